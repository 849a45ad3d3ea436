//! `dwarfsmith stats` reads compile units in parallel (rayon): its output
//! is byte-identical whatever the number of threads, on a zlib executable
//! of 16 compile units built by gcc -O2 -g (text, JSON and the page); and
//! its output into a pipe closed early (`stats FILE | head`) ends it as it
//! ends a C tool, without a panic.

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// zlib built by gcc -O2 -g as an executable in `dir`.
fn zlib_executable(dir: &Path) -> PathBuf {
    let project = realworld::zlib();
    let exe = dir.join("zlib.exe");
    support::stdout_of(
        Command::new("gcc")
            .args(["-O2", "-g", "-w"])
            .args(&project.cpp_flags)
            .args(&project.sources)
            .arg("-o")
            .arg(&exe),
    );
    exe
}

#[test]
fn stats_output_is_the_same_with_one_thread_or_four() {
    let dir = tempfile::tempdir().unwrap();
    let exe = zlib_executable(dir.path());
    for args in [
        &["stats"][..],
        &["stats", "--json"],
        &["stats", "--html", "-"],
    ] {
        let one = stats(&exe, args, "1");
        let four = stats(&exe, args, "4");
        assert!(one.len() > 1000, "{args:?}: {one}");
        assert!(
            one == four,
            "{args:?}: output differs between 1 and 4 threads"
        );
    }
}

fn stats(exe: &Path, args: &[&str], threads: &str) -> String {
    support::stdout_of(
        Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
            .args(args)
            .arg(exe)
            .env("RAYON_NUM_THREADS", threads),
    )
}

#[test]
fn stats_into_a_closed_pipe_ends_by_sigpipe_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let exe = zlib_executable(dir.path());
    let mut child = Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .arg("stats")
        .arg(&exe)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reading end closed before the report is written.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.signal(),
        Some(13),
        "{:?}: {stderr}",
        output.status
    );
    assert_eq!(stderr, "");
}
