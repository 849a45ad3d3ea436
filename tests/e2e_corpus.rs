//! The whole corpus through the binary: every program, from every IR form,
//! links with its driver and prints exactly the expected output, and
//! llvm-dwarfdump --verify is clean on every object (tuned for gdb and for lldb). Also: in the -O0 build of
//! sum_array, a breakpoint on every line with code stops there (stepping
//! against llc-19 is in codegen_lines_gdb.rs).

#[macro_use]
mod support;

use support::*;

/// Compiles, links and runs one (program, form); checks output and DWARF.
fn check(program: &str, form: &str) {
    let dir = tempfile::tempdir().unwrap();
    let flags: &[&str] = if form == "O0" { &["-O0"] } else { &[] };
    let object = compile_fixture(dir.path(), &format!("{program}.{form}.ll"), flags);
    let exe = link_with_driver(dir.path(), &object, program);
    assert_eq!(
        run_program(&exe),
        expected_output(program),
        "{program}.{form}"
    );
    let (ok, text) = dwarfdump_verify(&object);
    assert!(ok, "llvm-dwarfdump --verify on {program}.{form}:\n{text}");
    let lldb_dir = dir.path().join("lldb");
    std::fs::create_dir(&lldb_dir).unwrap();
    let mut lldb_flags = flags.to_vec();
    lldb_flags.push("--debugger-tune=lldb");
    let lldb_object = compile_fixture(&lldb_dir, &format!("{program}.{form}.ll"), &lldb_flags);
    let (ok, text) = dwarfdump_verify(&lldb_object);
    assert!(
        ok,
        "llvm-dwarfdump --verify on {program}.{form} tuned for lldb:\n{text}"
    );
}

macro_rules! corpus_tests {
    ($($program:ident),* $(,)?) => {
        $(
            mod $program {
                #[test]
                fn o2_records() { super::check(stringify!($program), "O2") }
                #[test]
                fn o2_intrinsics() { super::check(stringify!($program), "O2.intrinsics") }
                #[test]
                fn o2_llvm14() { super::check(stringify!($program), "O2.llvm14") }
                #[test]
                fn o0() { super::check(stringify!($program), "O0") }
            }
        )*
    };
}

corpus_programs!(corpus_tests);

#[test]
fn o0_breakpoints_work_on_every_line_with_code() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile_fixture(dir.path(), "sum_array.O0.ll", &["-O0"]);
    let exe = link_with_driver(dir.path(), &object, "sum_array");
    // Every line that holds code in sum_array.O0.ll, with the line gdb stops
    // on: a function's opening line resolves past the prologue to its first
    // statement (as it does for llc-19's object).
    let table = [
        (2, 3),
        (3, 3),
        (4, 4),
        (5, 5),
        (6, 6),
        (8, 8),
        (11, 12),
        (12, 12),
        (13, 13),
        (14, 14),
        (15, 15),
        (17, 17),
    ];
    for (line, stop) in table {
        let out = gdb_batch(
            &exe,
            &[&format!("break sum_array.c:{line}"), "run", "info line"],
        );
        assert!(
            out.contains(&format!("Line {stop} of")) && out.contains("Breakpoint 1,"),
            "break sum_array.c:{line} did not stop on line {stop}:\n{out}"
        );
    }
}
