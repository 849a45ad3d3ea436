//! mimalloc (the C allocator the `libmimalloc-sys` crate bundles; the
//! dwarfsmith binary links it as its global allocator) compiled from
//! clang-19 -O2 -g IR of its one-file build `src/static.c`: thread-local
//! heaps read through `llvm.thread.pointer`, atomics, `_mm_pause` spin
//! loops and `llvm.assume` operand bundles. Linked with a driver that
//! allocates, frees and reallocates from two threads, it prints what the
//! gcc -O0 build prints, and the object verifies.

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::Path;
use std::process::Command;

use support::{compile_ll, fixture, gcc_link, run, run_program};

#[test]
fn mimalloc_from_clang_19_runs_as_its_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let source = realworld::mimalloc_dir().join("src/static.c");
    let include = format!("-I{}", realworld::mimalloc_dir().join("include").display());
    let ll = dir.path().join("static.ll");
    let out = run(Command::new("clang-19")
        .args(["-O2", "-g", "-S", "-emit-llvm", &include])
        .arg(&source)
        .arg("-o")
        .arg(&ll));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ir = std::fs::read_to_string(&ll).unwrap();
    for construct in [
        "@llvm.thread.pointer()",
        "@llvm.x86.sse2.pause()",
        "@llvm.assume(i1 true) [ \"align\"",
    ] {
        assert!(ir.contains(construct), "the IR no longer has {construct}");
    }
    let object = compile_ll(dir.path(), &ll, "static", &[]);
    realworld::verify_objects(Path::new(env!("CARGO_BIN_EXE_dwarfsmith")), &[&object]);
    let driver = fixture("realworld/mimalloc_driver.c");
    let ours = dir.path().join("ours");
    gcc_link(&ours, &[driver.clone(), object], &[&include, "-lpthread"]);
    let reference_object = dir.path().join("static.gcc.o");
    let out = run(Command::new("gcc")
        .args(["-O0", "-g", "-c", &include])
        .arg(&source)
        .arg("-o")
        .arg(&reference_object));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[driver, reference_object],
        &[&include, "-lpthread"],
    );
    let expected = run_program(&reference);
    assert!(expected.starts_with("sums "), "{expected}");
    assert_eq!(run_program(&ours), expected);
}
