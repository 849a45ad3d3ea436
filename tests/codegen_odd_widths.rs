//! Integers of widths with no machine instruction: loads and stores of
//! `i7`, `i20`, `i24`, `i40`, `i44`, `i48`, `i56` (their store size, in
//! pieces), and arithmetic, compares, extensions, loads and stores of `i72`,
//! `i96` and `i104` over register pairs. clang gives such types to bitfield
//! storage units, packed ones above all.
//!
//! - `fixtures/odd_width/wide_ops.ll`, compiled by dwarfsmith and by
//!   llc-19, linked with the same driver: the same bytes come out, and the
//!   bytes after each store's size are left alone.
//! - `fixtures/odd_width/packed_bitfields.c` through clang-19 -O2 -g and
//!   dwarfsmith prints what its gcc -O0 build prints, its object verifies,
//!   and gdb prints the packed structs as it does for the gcc -O0 build.
//! - Passing such an integer to or from a function is an error naming it.
//! - Globals of integers wider than 128 bits (csmith's packed structs have
//!   `i152` and `i168` members) hold the bytes llc-19 gives them; computing
//!   with such an integer is an error naming it (tests/reliability_constructs.rs).

mod support;

use std::path::PathBuf;

use support::{
    clang_ir, compile_ll, dwarfdump_verify, dwarfsmith, fixture, gcc_link, gdb_batch, run,
    run_program,
};

#[test]
fn wide_and_odd_integers_compute_as_llcs_build_does() {
    let dir = tempfile::tempdir().unwrap();
    let module = std::fs::read_to_string(fixture("odd_width/wide_ops.ll")).unwrap();
    let driver = std::fs::read_to_string(fixture("odd_width/wide_ops.driver.c")).unwrap();
    let (ours, llc) = support::outputs_of_ours_and_llc(
        dir.path(),
        &module,
        "wide_ops.ll",
        dwarfsmith::OptLevel::O2,
        &driver,
    );
    assert_eq!(ours, llc);
    // The comparison compares something: 36 operand pairs, and a store of
    // i20 leaves the bytes from the fourth on untouched (0xee).
    assert_eq!(ours.matches("compare72 ").count(), 36, "{ours}");
    assert!(
        ours.contains("round trip 524288: -524288 524288 0"),
        "{ours}"
    );
    assert!(ours.contains("  bytes 000008eeeeeeeeee"), "{ours}");
}

/// gdb's view of the packed structs once `main` has returned.
fn printed(exe: &std::path::Path) -> String {
    let text = gdb_batch(
        exe,
        &[
            "break exit",
            "run",
            "print packets",
            "print headers",
            "print tails",
            "print colours",
        ],
    );
    let start = text.find("$1 = ").unwrap_or_else(|| panic!("{text}"));
    text[start..].to_string()
}

#[test]
fn packed_bitfields_from_clang_19_o2_run_and_print_as_gccs_build() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(
        dir.path(),
        "odd_width/packed_bitfields.c",
        &["-O2", "-g", "-w"],
    );
    for width in ["i24", "i40", "i48", "i56", "i72"] {
        assert!(
            ir.contains(&format!("load {width}")) && ir.contains(&format!("store {width}")),
            "clang no longer loads and stores {width}"
        );
    }
    let ll = dir.path().join("packed_bitfields-O2-g-w.ll");
    let object = compile_ll(dir.path(), &ll, "packed_bitfields", &[]);
    let verified = dwarfsmith(&["verify", object.to_str().unwrap()]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
    let (clean, report) = dwarfdump_verify(&object);
    assert!(clean, "{report}");
    let ours = dir.path().join("ours");
    gcc_link(&ours, &[object], &[]);
    let reference = dir.path().join("reference");
    let source: PathBuf = fixture("odd_width/packed_bitfields.c");
    let out = run(std::process::Command::new("gcc")
        .args(["-O0", "-g", "-w"])
        .arg(&source)
        .arg("-o")
        .arg(&reference));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = run_program(&reference);
    assert_eq!(run_program(&ours), expected);
    assert!(
        expected.contains("colour p 3125b3 q ac9af10d646"),
        "{expected}"
    );
    let theirs = printed(&reference);
    assert_eq!(printed(&ours), theirs);
    assert!(theirs.contains("seq = "), "{theirs}");
}

#[test]
fn an_i72_argument_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        support::refusal(
            dir.path(),
            "define i64 @f(i72 %x) {\n  %t = trunc i72 %x to i64\n  ret i64 %t\n}\n",
        ),
        "case.ll:1:1: error: function @f: parameter 1 of type i72 (integers of 65 to 127 bits are not passed to or returned from functions) is not supported by code generation"
    );
}

#[test]
fn globals_wider_than_128_bits_hold_llcs_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let text = "@g = global i168 7\n@h = global i152 -2\n@s = global <{ i8, i168, i8 }> <{ i8 1, i168 -3, i8 2 }>\n";
    let ll = dir.path().join("wide_globals.ll");
    std::fs::write(&ll, text).unwrap();
    let ours = compile_ll(dir.path(), &ll, "wide_globals", &[]);
    let theirs = dir.path().join("llc.o");
    support::llc_object(&ll, &theirs, &[]);
    let data = |object: &PathBuf| {
        String::from_utf8_lossy(
            &run(std::process::Command::new("readelf")
                .args(["-x", ".data"])
                .arg(object))
            .stdout,
        )
        .lines()
        .skip(2)
        .collect::<Vec<_>>()
        .join("\n")
    };
    assert_eq!(data(&ours), data(&theirs));
    assert!(data(&ours).contains("01fdffff ffffffff"), "{}", data(&ours));
}
