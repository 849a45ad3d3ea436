//! Call sites: the DW_TAG_call_site and DW_TAG_call_site_parameter DIEs
//! of our objects, and gdb and lldb evaluating a callee's entry values
//! through them once its parameter registers were reused.
//!
//! `fixtures/call_sites/entry_values.c`: `forward` calls `scale(7, x)`,
//! `fp(x + 1)` and `scale(x, 5)`; `scale` passes `a * 3` to `sink`, which
//! clobbers rdi and rsi, so at its second line `a` and `b` are only entry
//! values. Without call sites both debuggers show them as optimised out.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect;
use support::{compile_ll, fixture, gcc_link, gdb_batch, run};

/// Our object of the fixture's clang -O2 IR (with `flags`), linked with the
/// gcc-compiled driver.
fn program(dir: &Path, flags: &[&str]) -> (PathBuf, PathBuf) {
    let object = compile_ll(
        dir,
        &fixture("call_sites/entry_values.O2.ll"),
        "entry_values",
        flags,
    );
    let exe = dir.join(format!("entry_values{}", flags.concat()));
    gcc_link(
        &exe,
        &[object.clone(), fixture("call_sites/entry_values.driver.c")],
        &["-g"],
    );
    (object, exe)
}

/// The call-site DIEs of `object` as llvm-dwarfdump-19 prints them, one
/// line each, addresses kept (they are function offsets in an object).
fn call_site_dies(object: &Path) -> String {
    let out = run(Command::new("llvm-dwarfdump-19")
        .arg("--debug-info")
        .arg(object));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.contains("DW_TAG_") {
            inside = trimmed.contains("DW_TAG_call_site") || trimmed.contains("DW_TAG_subprogram");
            if inside {
                lines.push(
                    trimmed
                        .split_once(": ")
                        .map_or(trimmed, |(_, t)| t)
                        .trim()
                        .to_string(),
                );
            }
        } else if inside
            && (trimmed.starts_with("DW_AT_call")
                || trimmed.starts_with("DW_AT_location")
                || trimmed.starts_with("DW_AT_name")
                || trimmed.starts_with("DW_AT_declaration"))
        {
            lines.push(format!("  {trimmed}"));
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn call_sites_describe_every_call_and_the_recoverable_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let (object, _) = program(dir.path(), &[]);
    expect![[r#"
        DW_TAG_subprogram
          DW_AT_name	("scale")
          DW_AT_call_all_calls	(true)
        DW_TAG_call_site
          DW_AT_call_origin	(0x00000000 "sink")
          DW_AT_call_return_pc	(0x000000000000000c)
        DW_TAG_call_site
          DW_AT_call_origin	(0x00000000 "sink")
          DW_AT_call_return_pc	(0x0000000000000014)
        DW_TAG_call_site_parameter
          DW_AT_location	(DW_OP_reg5 RDI)
          DW_AT_call_value	(DW_OP_breg3 RBX+0)
        DW_TAG_subprogram
          DW_AT_name	("forward")
          DW_AT_call_all_calls	(true)
        DW_TAG_call_site
          DW_AT_call_origin	(0x00000000 "scale")
          DW_AT_call_return_pc	(0x000000000000003a)
        DW_TAG_call_site_parameter
          DW_AT_location	(DW_OP_reg5 RDI)
          DW_AT_call_value	(DW_OP_lit7)
        DW_TAG_call_site_parameter
          DW_AT_location	(DW_OP_reg4 RSI)
          DW_AT_call_value	(DW_OP_breg3 RBX+0)
        DW_TAG_call_site
          DW_AT_call_target	(DW_OP_reg12 R12)
          DW_AT_call_return_pc	(0x0000000000000040)
        DW_TAG_call_site
          DW_AT_call_origin	(0x00000000 "scale")
          DW_AT_call_return_pc	(0x0000000000000050)
        DW_TAG_call_site_parameter
          DW_AT_location	(DW_OP_reg5 RDI)
          DW_AT_call_value	(DW_OP_breg3 RBX+0)
        DW_TAG_call_site_parameter
          DW_AT_location	(DW_OP_reg4 RSI)
          DW_AT_call_value	(DW_OP_lit5)
        DW_TAG_subprogram
          DW_AT_name	("sink")
          DW_AT_declaration	(true)
    "#]]
    .assert_eq(&call_site_dies_without_offsets(&object));
    let (ok, report) = support::dwarfdump_verify(&object);
    assert!(ok, "{report}");
    let verify = support::dwarfsmith(&["verify", object.to_str().unwrap()]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}

/// [`call_site_dies`] with the DIE offsets of `DW_AT_call_origin` hidden.
fn call_site_dies_without_offsets(object: &Path) -> String {
    call_site_dies(object)
        .lines()
        .map(|line| match line.find("(0x") {
            Some(at) if line.contains("DW_AT_call_origin") => {
                format!("{}(0x00000000{}", &line[..at], &line[at + 11..])
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn gdb_shows_parameters_through_their_entry_values() {
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = program(dir.path(), &[]);
    let out = gdb_batch(
        &exe,
        &[
            "break entry_values.c:9",
            "run",
            "print a",
            "print b",
            "frame",
            "continue",
            "print a",
            "print b",
            "frame",
        ],
    );
    let shown: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with('$') || l.starts_with("#0"))
        .collect();
    assert_eq!(
        shown,
        vec![
            "$1 = 7",
            "$2 = 4",
            "#0  scale (a=a@entry=7, b=b@entry=4) at entry_values.c:9",
            "$3 = 4",
            "$4 = 5",
            "#0  scale (a=a@entry=4, b=b@entry=5) at entry_values.c:9",
        ],
        "{out}"
    );
}

#[test]
fn lldb_shows_parameters_through_their_entry_values() {
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = program(dir.path(), &["--debugger-tune=lldb"]);
    let out = run(Command::new("lldb-19")
        .args([
            "-b",
            "-o",
            "breakpoint set -f entry_values.c -l 9",
            "-o",
            "run",
        ])
        .args(["-o", "frame variable a b", "-o", "continue"])
        .args(["-o", "frame variable a b"])
        .arg(&exe));
    let text = String::from_utf8_lossy(&out.stdout);
    let shown: Vec<&str> = text.lines().filter(|l| l.starts_with("(int)")).collect();
    assert_eq!(
        shown,
        vec!["(int) a = 7", "(int) b = 4", "(int) a = 4", "(int) b = 5"],
        "{text}"
    );
}

/// `fixtures/call_sites/inlined_entry_value.c` (its `.O2.ll` by
/// `clang-19 -O2 -g -fdebug-compilation-dir=. -S -emit-llvm`): `inner`,
/// always inlined into `outer`, uses its parameter `n` only before its loop,
/// whose call to `observe` reuses rdi (clang unrolls it; the breakpoint on
/// line 8 stops once). There `outer`'s own `n` is the entry value of its
/// rdi (7, from `main`'s call site). The inlined `n` gets no entry value,
/// as in LLVM: gdb 13 evaluates an inlined frame's entry value in the wrong
/// frame (it read a callee-saved register's later value in mimalloc).
fn inlined_program(dir: &Path, flags: &[&str]) -> PathBuf {
    let object = compile_ll(
        dir,
        &fixture("call_sites/inlined_entry_value.O2.ll"),
        "inlined_entry_value",
        flags,
    );
    let exe = dir.join(format!("inlined_entry_value{}", flags.concat()));
    gcc_link(&exe, &[object], &[]);
    exe
}

#[test]
fn gdb_shows_the_physical_functions_entry_value_and_no_inlined_one() {
    let dir = tempfile::tempdir().unwrap();
    let exe = inlined_program(dir.path(), &[]);
    let out = gdb_batch(
        &exe,
        &[
            "break inlined_entry_value.c:8",
            "run",
            "print n",
            "info frame",
            "up",
            "print n",
        ],
    );
    let shown: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with('$') || l.contains("inlined into") || l.starts_with("#1"))
        .collect();
    assert_eq!(
        shown,
        [
            "$1 = <optimized out>",
            " inlined into frame 1",
            "#1  outer (n=n@entry=7, p=0x555555558010 <data>) at ./inlined_entry_value.c:13",
            "$2 = 7"
        ],
        "{out}"
    );
}

/// lldb stops at line 8's first row, before rdi is reused: the inlined
/// `n` is still in it.
#[test]
fn lldb_shows_an_inlined_parameter_in_its_register() {
    let dir = tempfile::tempdir().unwrap();
    let exe = inlined_program(dir.path(), &["--debugger-tune=lldb"]);
    let out = run(Command::new("lldb-19")
        .args(["-b", "-o", "breakpoint set -f inlined_entry_value.c -l 8"])
        .args(["-o", "run", "-o", "frame variable n"])
        .arg(&exe));
    let text = String::from_utf8_lossy(&out.stdout);
    let shown: Vec<&str> = text.lines().filter(|l| l.starts_with("(int)")).collect();
    assert_eq!(shown, ["(int) n = 7"], "{text}");
    assert!(text.contains("[inlined] inner"), "{text}");
}
