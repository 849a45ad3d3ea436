//! The whole corpus through the binary: every program, from every IR form,
//! links with its driver and prints exactly the expected output, and
//! llvm-dwarfdump --verify is clean on every object. Also: -O0 stepping in
//! gdb follows the same lines as llc-19's -O0 build.

mod support;

use std::path::Path;
use std::process::Command;
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

corpus_tests!(
    arith_temps,
    bits,
    inlining,
    licm,
    many_args,
    matrix,
    pointers,
    recursion,
    select_diamond,
    sort,
    strings,
    structs,
    sum_array,
    switch_table,
);

/// The lines gdb visits when it breaks on `function` and steps with `next`
/// until control leaves it (the first call only).
fn stepped_lines(exe: &Path, function: &str) -> Vec<u32> {
    let mut commands = vec![format!("break {function}"), "run".to_string()];
    commands.extend(std::iter::repeat_n("next".to_string(), 80));
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    let out = gdb_batch(exe, &commands);
    let mut lines = Vec::new();
    for line in out.lines() {
        if line.starts_with("main ()") || line.contains(" in main ") {
            break;
        }
        if let Some(number) = line.split(['\t', ' ']).next().and_then(|n| n.parse().ok()) {
            lines.push(number);
        }
    }
    lines
}

#[test]
fn o0_stepping_through_sum_scaled_matches_llc_19() {
    let dir = tempfile::tempdir().unwrap();
    let ours = compile_fixture(dir.path(), "sum_array.O0.ll", &["-O0"]);
    let llc_object = dir.path().join("llc.o");
    let out = run(Command::new("llc-19")
        .args(["-O0", "-filetype=obj", "-relocation-model=pic", "-o"])
        .arg(&llc_object)
        .arg(fixture("ll/sum_array.O0.ll")));
    assert!(
        out.status.success(),
        "llc-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = stepped_lines(
        &link_with_driver(dir.path(), &ours, "sum_array"),
        "sum_scaled",
    );
    let theirs = stepped_lines(
        &link_with_driver(dir.path(), &llc_object, "sum_array"),
        "sum_scaled",
    );
    assert_eq!(
        theirs[..4],
        [3, 4, 5, 6],
        "llc-19's own sequence changed: {theirs:?}"
    );
    assert_eq!(ours, theirs);
}

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
