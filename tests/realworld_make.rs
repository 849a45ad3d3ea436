//! `make CC="dwarfsmith cc"` builds Lua 5.4 with fixtures/realworld/lua.mk,
//! every file through dwarfsmith (there is no fallback to another back end),
//! and the interpreter must run the scripts of fixtures/realworld/lua exactly
//! as the same makefile's gcc -O0 build does.

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::Path;
use std::process::{Command, Output};

/// Runs `make -f lua.mk` with `CC` and extra arguments, the build going to `out`.
fn make(cc: &str, out: &Path, extra: &[&str]) -> Output {
    support::run(
        Command::new("make")
            .arg("-f")
            .arg(support::fixture("realworld/lua.mk"))
            .arg(format!("LUA_SRC={}", realworld::lua_dir().display()))
            .arg(format!("OUT={}", out.display()))
            .arg(format!("CC={cc}"))
            .args(extra),
    )
}

fn dwarfsmith_cc() -> String {
    format!("{} cc", env!("CARGO_BIN_EXE_dwarfsmith"))
}

/// Every script of fixtures/realworld/lua run by `lua`, with what it said.
fn run_scripts(lua: &Path) -> String {
    let scripts_dir = support::fixture("realworld/lua");
    let mut scripts: Vec<String> = std::fs::read_dir(&scripts_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".lua"))
        .collect();
    scripts.sort();
    scripts
        .iter()
        .map(|script| {
            format!(
                "=== {script}: {}",
                realworld::run_transcript(Command::new(lua).arg(script).current_dir(&scripts_dir))
            )
        })
        .collect()
}

#[test]
fn make_with_dwarfsmith_cc_builds_lua_that_runs_like_the_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dwarfsmith");
    let build = make(&dwarfsmith_cc(), &out, &[]);
    assert!(
        build.status.success(),
        "make CC=\"dwarfsmith cc\" failed:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let reference_out = dir.path().join("gcc");
    let reference = make(
        "gcc",
        &reference_out,
        &["CFLAGS=-O0 -g -DLUA_USE_POSIX -I$(LUA_SRC)"],
    );
    assert!(
        reference.status.success(),
        "{}",
        String::from_utf8_lossy(&reference.stderr)
    );
    let expected = run_scripts(&reference_out.join("lua"));
    assert_eq!(run_scripts(&out.join("lua")), expected);
    assert!(expected.contains("error: errors.lua:35: uncaught at the end"));
}
