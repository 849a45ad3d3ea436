//! `make CC="dwarfsmith cc"` builds Lua 5.4 with fixtures/realworld/lua.mk.
//!
//! When every file compiles, the interpreter must run the scripts of
//! fixtures/realworld/lua exactly as the same makefile's gcc -O0 build does.
//! Until then the build must fail honestly: `make` stops at the first file with
//! our `file:line:col: error:` and writes no program, and `make -k` shows the
//! exact set of files that fail, a snapshot that shrinks as dwarfsmith grows
//! (re-bless with UPDATE_EXPECT=1). There is no fallback to another back end.

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::Path;
use std::process::{Command, Output};

use expect_test::expect;

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

/// The object files make could not build, from its `*** [...] Error` lines.
fn failed_objects(stderr: &str, out: &Path) -> Vec<String> {
    let prefix = format!("{}/", out.display());
    stderr
        .lines()
        .filter(|line| line.ends_with("] Error 1"))
        .filter_map(|line| {
            let target = line.split(": ").last()?.strip_suffix("] Error 1")?;
            Some(target.strip_prefix(&prefix).unwrap_or(target).to_string())
        })
        .collect()
}

/// Whether `line` is an error of ours: `path:line:col: error: ...`.
fn is_positioned_error(line: &str) -> bool {
    let mut fields = line.splitn(4, ':');
    let (Some(path), Some(row), Some(col), Some(rest)) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return false;
    };
    !path.is_empty()
        && row.parse::<u32>().is_ok()
        && col.parse::<u32>().is_ok()
        && rest.starts_with(" error: ")
}

#[test]
fn make_with_dwarfsmith_cc_builds_lua_or_stops_at_the_first_failure() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dwarfsmith");
    let build = make(&dwarfsmith_cc(), &out, &[]);
    let stderr = String::from_utf8_lossy(&build.stderr).to_string();

    if build.status.success() {
        // Lua compiles fully: the interpreter must behave as the gcc -O0 build.
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
        return;
    }

    // make stopped at the first failing file, whose error is ours and positioned.
    assert_eq!(build.status.code(), Some(2), "{stderr}");
    let failed = failed_objects(&stderr, &out);
    assert_eq!(
        failed.len(),
        1,
        "make did not stop at the first failure:\n{stderr}"
    );
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        is_positioned_error(errors[0]),
        "not file:line:col: {}",
        errors[0]
    );
    assert!(!out.join("lua").exists());

    // make -k: the exact set of files dwarfsmith cannot compile yet, each with
    // our error naming the C source (with line and column where the failing IR
    // has a debug location).
    let keep_going = make(&dwarfsmith_cc(), &out, &["-k"]);
    let stderr = String::from_utf8_lossy(&keep_going.stderr).to_string();
    let failed = failed_objects(&stderr, &out);
    assert_eq!(
        failed[0],
        failed_objects(&String::from_utf8_lossy(&build.stderr), &out)[0]
    );
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), failed.len(), "{stderr}");
    assert!(!out.join("lua").exists());
    let source_dir = format!("{}/", realworld::lua_dir().display());
    let report: Vec<String> = failed
        .iter()
        .zip(&errors)
        .map(|(object, error)| {
            assert!(error.starts_with(&source_dir), "{object}: {error}");
            format!("{object}: {}", error.replace(&source_dir, ""))
        })
        .collect();
    expect![[r#"
        lapi.o: lapi.c:570:3: error: function @lua_pushfstring: unsupported intrinsic 'llvm.va_start.p0' (clang's IR for it, line 3423 column 3)
        lauxlib.o: lauxlib.c:237:3: error: function @luaL_error: unsupported intrinsic 'llvm.va_start.p0' (clang's IR for it, line 621 column 3)
        ldebug.o: ldebug.c:92:5: error: function @luaG_getfuncline: unsupported instruction 'insertelement' (clang's IR for it, line 128 column 3)
        lgc.o: lgc.c:187:12: error: function @atomic: unsupported result type <2 x i8> of 'load' in code generation (clang's IR for it, line 3503 column 3)
        lobject.o: lobject.c:552:3: error: function @luaO_pushfstring: unsupported intrinsic 'llvm.va_start.p0' (clang's IR for it, line 1741 column 3)
        lstate.o: lstate.c:394:14: error: function @lua_newstate: unsupported type <8 x i8> in code generation (clang's IR for it, line 752 column 3)
        ltable.o: ltable.c:529:20: error: function @luaH_resize: unsupported result type <2 x ptr> of 'load' in code generation (clang's IR for it, line 468 column 3)"#]].assert_eq(&report.join("\n"));
}
