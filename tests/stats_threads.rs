//! `dwarfsmith stats` reads compile units in parallel (rayon): its output
//! is byte-identical whatever the number of threads, on a zlib executable
//! of 16 compile units built by gcc -O2 -g (text, JSON and the page).

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::Path;
use std::process::Command;

#[test]
fn stats_output_is_the_same_with_one_thread_or_four() {
    let dir = tempfile::tempdir().unwrap();
    let project = realworld::zlib();
    let exe = dir.path().join("zlib.exe");
    support::stdout_of(
        Command::new("gcc")
            .args(["-O2", "-g", "-w"])
            .args(&project.cpp_flags)
            .args(&project.sources)
            .arg("-o")
            .arg(&exe),
    );
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
