//! The foundation's promises, end to end through the binary: the straight-line
//! corpus programs compile, link with gcc, run right, pass llvm-dwarfdump
//! --verify and our own verify, debug right in gdb, have identical .text with
//! and without -g, and malformed input gives a positioned error and no output.

mod support;

use support::*;

const PROGRAMS: &[&str] = &["arith_temps", "many_args"];

#[test]
fn straight_line_programs_link_and_print_the_expected_output() {
    let dir = tempfile::tempdir().unwrap();
    for program in PROGRAMS {
        let object = compile_fixture(dir.path(), &format!("{program}.O2.ll"), &[]);
        let exe = link_with_driver(dir.path(), &object, program);
        assert_eq!(run_program(&exe), expected_output(program), "{program}");
    }
}

#[test]
fn objects_pass_llvm_dwarfdump_verify_and_our_verify() {
    let dir = tempfile::tempdir().unwrap();
    for program in PROGRAMS {
        let object = compile_fixture(dir.path(), &format!("{program}.O2.ll"), &[]);
        let (ok, text) = dwarfdump_verify(&object);
        assert!(ok, "llvm-dwarfdump --verify on {program}:\n{text}");
        let out = dwarfsmith(&["verify", object.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "dwarfsmith verify on {program}:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn text_is_identical_with_and_without_debug_info() {
    let dir = tempfile::tempdir().unwrap();
    for program in PROGRAMS {
        let with = compile_fixture(dir.path(), &format!("{program}.O2.ll"), &[]);
        let without = compile_fixture(dir.path(), &format!("{program}.O2.ll"), &["-g0"]);
        assert_eq!(
            text_section(dir.path(), &with),
            text_section(dir.path(), &without),
            "{program}"
        );
    }
}

#[test]
fn gdb_shows_blends_arguments_return_value_and_caller() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile_fixture(dir.path(), "arith_temps.O2.ll", &[]);
    let exe = link_with_driver(dir.path(), &object, "arith_temps");
    let out = gdb_batch(
        &exe,
        &[
            "break blend",
            "run",
            // gcc evaluates printf's arguments right to left: the second stop
            // is blend(-7, 11), which returns -62.
            "continue",
            "echo ==args1==\\n",
            "info args",
            "bt",
            "next",
            "echo ==args2==\\n",
            "info args",
            "finish",
        ],
    );
    let section = |from: &str, to: &str| -> String {
        let start = out
            .find(from)
            .unwrap_or_else(|| panic!("no {from} in:\n{out}"))
            + from.len();
        let end = out[start..].find(to).map_or(out.len(), |i| start + i);
        out[start..end].to_string()
    };
    assert_eq!(section("==args1==\n", "#0"), "x = -7\ny = 11\n", "{out}");
    assert!(out.contains("#0  blend (x=-7, y=11) at "), "{out}");
    assert!(
        out.contains(" in main () at "),
        "bt must show main as the caller:\n{out}"
    );
    assert!(
        section("==args2==\n", "Run till exit").starts_with("x = -7\ny = 11\n"),
        "{out}"
    );
    assert!(out.contains("Value returned is $1 = -62"), "{out}");
    assert!(
        !out.contains("DWARF"),
        "gdb reported a DWARF problem:\n{out}"
    );
}

/// Each malformed input gives `file:line:col: error: ...`, exit status 1,
/// no panic and no output file.
#[test]
fn malformed_inputs_give_positioned_errors_and_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(fixture("ll/arith_temps.O2.ll")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "unknown_instruction.ll",
            good.replace("%7 = xor i32 %6, %1", "%7 = frobnicate i32 %6, %1"),
            ":17:8: error: unknown instruction 'frobnicate'",
        ),
        (
            "undefined_metadata.ll",
            good.replace("!dbg !22\n", "!dbg !999\n"),
            ":10:33: error: reference to undefined metadata !999",
        ),
        (
            "truncated.ll",
            good[..good.find("  ret i32 %7").unwrap()].to_string(),
            "error: unexpected end of file",
        ),
    ];
    for (name, text, expected) in cases {
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        let output = dir.path().join(format!("{name}.o"));
        let out = dwarfsmith(&[
            "compile",
            input.to_str().unwrap(),
            "-o",
            output.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.starts_with(input.to_str().unwrap()) && stderr.contains(expected),
            "{name}: expected `{expected}` in: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(!output.exists(), "{name}: a failed run left {output:?}");
    }
}
