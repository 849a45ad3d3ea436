//! 16-byte atomics (`i128` `load atomic`, `store atomic`, `atomicrmw` of
//! every operation C makes, `cmpxchg`) under two threads: the C of
//! `fixtures/linkage/atomic128_ops_lib.c` compiled by clang-19 -O2 -g with
//! and without `-mcx16`, by dwarfsmith, linked with a gcc-compiled driver
//! (and libatomic) and run; the output equals the gcc -O0 build's exactly
//! (the sums, toggles, masks, max and min after 2 x 100,000 rounds, no torn
//! value ever seen, and each operation's returned old value). With cx16 the
//! object has as many `lock cmpxchg16b` as llc-19's and calls nothing but
//! printf; without it, it calls exactly the libatomic functions llc-19's
//! object calls. Both objects pass `llvm-dwarfdump-19 --verify` and
//! `dwarfsmith verify`, and `-g0` gives the same `.text`.

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use support::{
    clang_ir, compile_ir, dwarfdump_verify, dwarfsmith, fixture, gcc_link_and_run, readelf, run,
    text_section,
};

const LIB: &str = "linkage/atomic128_ops_lib.c";
const MAIN: &str = "linkage/atomic128_ops_main.c";

const EXPECTED: &str = "\
torn 0
counter 0000000000061a7ffffffffffffcf2c0
toggles 00000060000000000000000000000000
masks 00000000000000000000000000000000
highest 000000000001869f0000000000000002
lowest fffffffffffe7960fffffffffffffffe
nand_old 00000000000000000000000000000005
nand_new fffffffffffffffffffffffffffffffe
add_old fffffffffffffffffffffffffffffffe
cas_no 00000000000001bffffffffffffffffe
cas_yes 00000000000000000000000000000009
";

/// The symbols the `call`s of an object's `.text` name (PLT32 relocations).
fn called(object: &Path) -> BTreeSet<String> {
    readelf("-r", object)
        .split("Relocation section ")
        .filter(|part| part.starts_with("'.rela.text"))
        .flat_map(|part| part.lines())
        .filter(|line| line.contains("R_X86_64_PLT32"))
        .filter_map(|line| line.split_whitespace().nth(4).map(str::to_string))
        .collect()
}

/// The disassembly of an object.
fn disassembly(object: &Path) -> String {
    let out = run(Command::new("objdump").arg("-d").arg(object));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// llc-19 -O2's object of `ir`.
fn llc_object(dir: &Path, name: &str, ir: &str) -> std::path::PathBuf {
    let ll = dir.join(format!("{name}.llc.ll"));
    std::fs::write(&ll, ir).unwrap();
    let object = dir.join(format!("{name}.llc.o"));
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-o"])
        .arg(&object)
        .arg(&ll));
    assert!(out.status.success(), "{out:?}");
    object
}

/// Checks `dwarfsmith verify`, llvm-dwarfdump-19 --verify and -g0's `.text`.
fn check_debug_and_g0(dir: &Path, object: &Path, ir: &str) {
    let (clean, report) = dwarfdump_verify(object);
    assert!(clean, "{}: {report}", object.display());
    let ours = dwarfsmith(&["verify", object.to_str().unwrap()]);
    assert!(ours.status.success(), "{ours:?}");
    let g0 = compile_ir(dir, "g0", ir, &["-g0"]);
    assert_eq!(text_section(dir, object), text_section(dir, &g0));
}

#[test]
fn sixteen_byte_atomics_under_two_threads_with_and_without_cx16() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let main_c = fixture(MAIN);
    let expected = gcc_link_and_run(
        dir,
        "gcc.exe",
        &[fixture(LIB), main_c.clone()],
        &["-O0", "-mcx16", "-pthread", "-latomic"],
    );
    assert_eq!(expected, EXPECTED);

    // With cx16: lock cmpxchg16b, no library calls.
    let ir = clang_ir(dir, LIB, &["-O2", "-g", "-mcx16"]);
    assert!(ir.contains("atomicrmw umax ptr @highest, i128"), "{ir}");
    let object = compile_ir(dir, "cx16", &ir, &[]);
    let llc = llc_object(dir, "cx16", &ir);
    let count = |o: &Path| disassembly(o).matches("lock cmpxchg16b").count();
    assert_eq!(count(&object), 19);
    assert_eq!(count(&object), count(&llc));
    assert_eq!(called(&object), BTreeSet::from(["printf".to_string()]));
    assert_eq!(called(&object), called(&llc));
    let got = gcc_link_and_run(
        dir,
        "cx16.exe",
        &[object.clone(), main_c.clone()],
        &["-pthread"],
    );
    assert_eq!(got, expected);
    check_debug_and_g0(dir, &object, &ir);

    // Without cx16: libatomic's functions, the ones llc calls.
    let ir = clang_ir(dir, LIB, &["-O2", "-g"]);
    let object = compile_ir(dir, "libatomic", &ir, &[]);
    assert_eq!(count(&object), 0);
    let calls = called(&object);
    assert_eq!(calls, called(&llc_object(dir, "libatomic", &ir)));
    assert_eq!(
        calls.iter().filter(|c| c.starts_with("__atomic_")).count(),
        10,
        "{calls:?}"
    );
    let got = gcc_link_and_run(
        dir,
        "libatomic.exe",
        &[object.clone(), main_c],
        &["-pthread", "-latomic"],
    );
    assert_eq!(got, expected);
    check_debug_and_g0(dir, &object, &ir);
}
