//! Variable locations as two debuggers read them: arith_temps' `diff` lives
//! in DW_OP_regval_type over two registers (its DIArgList operand `b` is
//! recovered from `b - a`), gdb prints it right, and the lldb tuning gives
//! lldb-19 the same values gdb shows.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use support::*;

/// `name = value` pairs gdb's `info args` and `info locals` print at `line`
/// of arith_temps.c (the first time it stops there).
fn gdb_values(exe: &Path, line: u32) -> BTreeMap<String, String> {
    let out = gdb_batch(
        exe,
        &[
            &format!("break arith_temps.c:{line}"),
            "run",
            "echo ==values==\\n",
            "info args",
            "info locals",
        ],
    );
    assert!(
        !out.contains("DWARF"),
        "gdb reported a DWARF problem:\n{out}"
    );
    let values = &out[out.find("==values==").expect("gdb stopped") + 11..];
    values
        .lines()
        .filter_map(|l| l.split_once(" = "))
        .map(|(n, v)| (n.to_string(), normalise(v)))
        .collect()
}

/// `name = value` pairs lldb-19's `frame variable` prints at `line`.
fn lldb_values(exe: &Path, line: u32) -> BTreeMap<String, String> {
    let out = run(Command::new("lldb-19")
        .arg("--batch")
        .args([
            "-o",
            &format!("breakpoint set --file arith_temps.c --line {line}"),
        ])
        .args(["-o", "run", "-o", "frame variable"])
        .arg(exe));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let values = &text[text.find("(lldb) frame variable").expect("lldb stopped")..];
    values
        .lines()
        .filter_map(|l| l.strip_prefix("(int) ")?.split_once(" = "))
        .map(|(n, v)| (n.to_string(), normalise(v)))
        .collect()
}

/// One spelling for "no value here" across the two debuggers.
fn normalise(value: &str) -> String {
    if value.starts_with('<') {
        "<unavailable>".to_string()
    } else {
        value.trim().to_string()
    }
}

fn arith_temps(dir: &Path, flags: &[&str]) -> (std::path::PathBuf, std::path::PathBuf) {
    let object = compile_fixture(dir, "arith_temps.O2.ll", flags);
    let exe = link_with_driver(dir, &object, "arith_temps");
    (object, exe)
}

#[test]
fn diff_is_regval_type_over_two_registers_and_gdb_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let (object, exe) = arith_temps(dir.path(), &[]);
    let out = run(Command::new(llvm_dwarfdump())
        .args(["--debug-info", "--name=diff"])
        .arg(&object));
    let dump = String::from_utf8_lossy(&out.stdout);
    assert!(
        dump.contains("DW_OP_regval_type RDI") && dump.contains("DW_OP_regval_type RSI"),
        "diff should be computed from rdi and rsi:\n{dump}"
    );
    // offsets(-4, 9): at line 13 sum = a + b and diff = a - b are known.
    let values = gdb_values(&exe, 13);
    assert_eq!(values["a"], "-4");
    assert_eq!(values["sum"], "5");
    assert_eq!(values["diff"], "-13");
}

#[test]
fn lldb_reads_the_lldb_tuning_as_gdb_reads_the_gdb_tuning() {
    let dir = tempfile::tempdir().unwrap();
    let (_, gdb_exe) = arith_temps(dir.path(), &[]);
    let lldb_dir = dir.path().join("lldb");
    std::fs::create_dir(&lldb_dir).unwrap();
    let (lldb_object, lldb_exe) = arith_temps(&lldb_dir, &["--debugger-tune=lldb"]);
    let (ok, text) = dwarfdump_verify(&lldb_object);
    assert!(ok, "{text}");
    for line in [13, 15] {
        let gdb = gdb_values(&gdb_exe, line);
        let lldb = lldb_values(&lldb_exe, line);
        assert_eq!(lldb, gdb, "offsets at line {line}");
        assert!(gdb.values().filter(|v| *v != "<unavailable>").count() >= 2);
    }
}
