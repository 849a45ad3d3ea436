//! Helpers shared by the `write*` tests: running tools on written objects.
#![allow(dead_code)] // each test file uses its own subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Writes `bytes` as `name` in `dir` and returns the path.
pub fn save(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs `program` with `args` and returns its output (panics if it cannot start).
pub fn run(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

/// stdout of a run as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// stderr of a run as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Links `objects` with gcc (default: PIE) into `exe`; panics with gcc's
/// message if the link fails or warns.
pub fn link(objects: &[&Path], exe: &Path) {
    let mut args: Vec<&str> = objects.iter().map(|p| p.to_str().unwrap()).collect();
    args.extend(["-o", exe.to_str().unwrap()]);
    let output = run("gcc", &args);
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "gcc failed or warned:\n{}",
        stderr(&output)
    );
}

/// Runs `program` with `args` in `dir` and returns its output.
pub fn run_in(dir: &Path, program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}
