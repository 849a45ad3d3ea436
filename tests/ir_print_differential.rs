//! The printer drops nothing the parser keeps: LLVM's own reading of our
//! print equals its reading of the input, text for text.
//!
//! For a file F, "LLVM's reading" is `llvm-as-19 < F | llvm-dis-19`. It is
//! its own normaliser: llvm-dis puts attributes, linkage words and
//! attribute groups in LLVM's canonical order and spelling, renumbers
//! metadata (`!N`) in its own visiting order, renumbers attribute groups
//! (`#N`) by first use and numbers unnamed values (`%N`) in order. Named
//! values keep their names, and our printer keeps every name it read, so no
//! further normalisation of value names or metadata numbers is needed, and
//! none is done: the comparison is exact.
//!
//! Inputs: every `fixtures/ll/*.ll`, and `tests/data/print_constructs.ll`,
//! which holds every module-level construct the parser accepts
//! (thread-local modes, visibility, DLL storage, comdats, aliases, sections,
//! partitions, alignment, address spaces, gc, prefix, prologue, personality,
//! attribute groups, byval/sret/inalloca/preallocated/swifterror/swiftself/
//! nest/returned/align/noalias/nocapture/readonly/dereferenceable parameter
//! attributes, calling conventions, musttail, instruction metadata
//! attachments, call-site attribute groups); and the real-world harness's
//! IR: clang-19 -O2 -g of one file of each of Lua, zlib, bzip2 and lz4.

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::Path;
use std::process::Command;

use support::{dwarfsmith, fixture, run};

/// `llvm-as-19 < file | llvm-dis-19`.
fn llvm_reading(file: &Path) -> String {
    let out = run(Command::new("sh")
        .arg("-c")
        .arg(format!("llvm-as-19 < '{}' | llvm-dis-19", file.display())));
    assert!(
        out.status.success(),
        "llvm-as-19 | llvm-dis-19 failed on {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Our print of `input`, written into `dir`.
fn our_print(dir: &Path, input: &Path) -> std::path::PathBuf {
    let printed = dir.join(input.file_name().unwrap());
    let out = dwarfsmith(&[
        "opt",
        input.to_str().unwrap(),
        "-o",
        printed.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "opt {}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    printed
}

#[test]
fn every_module_level_construct_prints_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/print_constructs.ll");
    let printed = our_print(dir.path(), &input);
    let theirs = llvm_reading(&input);
    assert!(theirs.contains("thread_local(initialexec)"), "{theirs}");
    assert!(theirs.contains("byval(%struct.S)"), "{theirs}");
    assert!(theirs.contains("!tbaa"), "{theirs}");
    assert!(
        theirs.contains("@alias_own = weak unnamed_addr alias i8, getelementptr"),
        "{theirs}"
    );
    assert_eq!(llvm_reading(&printed), theirs);
}

#[test]
fn fixtures_print_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<_> = std::fs::read_dir(fixture("ll"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 50, "{}", inputs.len());
    let mut differing = Vec::new();
    for input in &inputs {
        let printed = our_print(dir.path(), input);
        if llvm_reading(&printed) != llvm_reading(input) {
            differing.push(input.display().to_string());
        }
    }
    assert!(differing.is_empty(), "{differing:#?}");
}

#[test]
fn real_world_ir_prints_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let projects = [
        (realworld::lua(), "ltable.c"),
        (realworld::zlib(), "inflate.c"),
        (realworld::bzip2(), "huffman.c"),
        (realworld::lz4(), "xxhash.c"),
    ];
    let mut differing = Vec::new();
    for (project, file) in &projects {
        let source = project
            .sources
            .iter()
            .find(|s| s.file_name().is_some_and(|n| n == *file))
            .unwrap_or_else(|| panic!("{} has no {file}", project.name));
        let ll = dir.path().join(format!("{}_{file}.ll", project.name));
        let out = run(Command::new("clang-19")
            .args(["-O2", "-g", "-S", "-emit-llvm"])
            .args(&project.cpp_flags)
            .arg(source)
            .arg("-o")
            .arg(&ll));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let printed_dir = dir.path().join("printed");
        std::fs::create_dir_all(&printed_dir).unwrap();
        let printed = our_print(&printed_dir, &ll);
        if llvm_reading(&printed) != llvm_reading(&ll) {
            differing.push(ll.display().to_string());
        }
    }
    assert!(differing.is_empty(), "{differing:#?}");
}
