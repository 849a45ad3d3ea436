//! Random C programs from csmith, and the tools that build and run them.
//!
//! In: a seed. Out: the source csmith writes for that seed (small:
//! [`CSMITH_OPTIONS`]); then a [`Program`]: the source, its functions, and
//! its gcc -O0 -g build (the oracle) and clang-19 -O0 -g build with what
//! they print, or the reason the program is discarded (an -O0 build does
//! not build, fails, runs past [`RUN_LIMIT`], or the two print different
//! things).
//! Every tool runs under coreutils `timeout`, so a program or a compiler
//! that hangs costs at most its limit.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// csmith's options: at most 3 functions besides main, shallow blocks and
/// simple expressions (programs of 200-500 lines that run in milliseconds),
/// no volatiles (their accesses cannot be reordered, which leaves little
/// to optimise), no packed structs (gcc and clang lay them out differently
/// at the edges), no argc (every build runs the same way).
pub const CSMITH_OPTIONS: &[&str] = &[
    "--max-funcs",
    "3",
    "--max-block-depth",
    "3",
    "--max-expr-complexity",
    "5",
    "--no-volatiles",
    "--no-packed-struct",
    "--no-argc",
    "--concise",
];

/// Where csmith's headers are (Debian's `csmith` package).
pub const CSMITH_INCLUDE: &str = "-I/usr/include/csmith";

/// The longest a build may run (outside gdb).
pub const RUN_LIMIT: Duration = Duration::from_secs(5);

/// The longest a compiler or linker may run.
pub const TOOL_LIMIT: Duration = Duration::from_secs(120);

/// One C program with its oracle build (gcc -O0 -g
/// -ftrivial-auto-var-init=pattern: see [`crate::oracle`]).
#[derive(Clone, Debug)]
pub struct Program {
    /// The source file.
    pub source: PathBuf,
    /// Its functions: `func_N` and `main`.
    pub functions: Vec<String>,
    /// The gcc -O0 -g executable.
    pub oracle: PathBuf,
    /// The same built by clang-19 -O0 -g -ftrivial-auto-var-init=pattern,
    /// whose values the oracle adds ([`crate::oracle::Reference::add_values`]).
    pub clang_oracle: PathBuf,
    /// What the oracle prints.
    pub output: String,
}

/// What running an executable gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ran {
    /// It exited with status 0 and printed this.
    Output(String),
    /// It exited otherwise: the status and what it printed.
    Failed(String),
    /// It ran past [`RUN_LIMIT`].
    TimedOut,
}

/// Runs `program` with `args` under `timeout LIMIT`; an `Err` is a tool that
/// could not be started at all.
pub fn run_tool(
    program: &str,
    args: &[&std::ffi::OsStr],
    dir: &Path,
    limit: Duration,
) -> Result<Output, String> {
    Command::new("timeout")
        .args(["-k", "2", &limit.as_secs().max(1).to_string(), program])
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))
}

/// Whether a `timeout` run was stopped by the time limit.
pub fn timed_out(output: &Output) -> bool {
    matches!(output.status.code(), Some(124) | Some(137))
}

/// Runs `tool` (a compiler or linker) and gives its stderr as the error
/// when it fails.
pub fn build(tool: &str, args: &[&std::ffi::OsStr], dir: &Path) -> Result<(), String> {
    let out = run_tool(tool, args, dir, TOOL_LIMIT)?;
    if out.status.success() {
        Ok(())
    } else if timed_out(&out) {
        Err(format!("{tool} ran past {TOOL_LIMIT:?}"))
    } else {
        Err(format!(
            "{tool} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs an executable for at most [`RUN_LIMIT`].
pub fn run(exe: &Path) -> Result<Ran, String> {
    let dir = exe.parent().unwrap_or(Path::new("."));
    let out = run_tool(exe.to_str().unwrap_or_default(), &[], dir, RUN_LIMIT)?;
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    Ok(if timed_out(&out) {
        Ran::TimedOut
    } else if out.status.success() {
        Ran::Output(printed)
    } else {
        Ran::Failed(format!("{}: {printed}", out.status))
    })
}

/// The functions a csmith program defines: every `func_N` it names, and
/// `main` (names it only declares are ignored by the walk).
pub fn functions(source: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (at, _) in source.match_indices("func_") {
        let digits: String = source[at + 5..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        let name = format!("func_{digits}");
        if !digits.is_empty() && !names.contains(&name) {
            names.push(name);
        }
    }
    names.sort_by_key(|n| n[5..].parse::<u64>().unwrap_or(0));
    names.push("main".to_string());
    names
}

/// Writes csmith's program for `seed` into `dir`; gives its path.
pub fn write(seed: u64, dir: &Path) -> Result<PathBuf, String> {
    let source = dir.join(format!("csmith{seed}.c"));
    let seed_text = seed.to_string();
    let mut args: Vec<&std::ffi::OsStr> = vec!["--seed".as_ref(), seed_text.as_ref()];
    args.extend(CSMITH_OPTIONS.iter().map(std::ffi::OsStr::new));
    args.extend(["-o".as_ref(), source.as_os_str()]);
    build("csmith", &args, dir)?;
    Ok(source)
}

impl Program {
    /// Builds and runs the oracle of `source` in `dir` (and its clang-19
    /// -O0 twin); `Ok(Err(reason))` is a program that is discarded.
    pub fn prepare(source: &Path, dir: &Path) -> Result<Result<Program, String>, String> {
        let text = std::fs::read_to_string(source)
            .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
        let mut outputs = Vec::new();
        for compiler in ["gcc", "clang-19"] {
            let exe = dir.join(format!("{compiler}-O0"));
            let built = build(
                compiler,
                &[
                    "-O0".as_ref(),
                    "-g".as_ref(),
                    "-ftrivial-auto-var-init=pattern".as_ref(),
                    "-w".as_ref(),
                    CSMITH_INCLUDE.as_ref(),
                    source.as_os_str(),
                    "-o".as_ref(),
                    exe.as_os_str(),
                ],
                dir,
            );
            if let Err(why) = built {
                return Ok(Err(format!("{compiler} -O0 does not build it: {why}")));
            }
            match run(&exe)? {
                Ran::Output(output) => outputs.push((exe, output)),
                Ran::TimedOut => return Ok(Err(format!("the {compiler} -O0 build runs too long"))),
                Ran::Failed(why) => {
                    return Ok(Err(format!("the {compiler} -O0 build fails: {why}")))
                }
            }
        }
        let (clang_oracle, clang_output) = outputs.pop().unwrap_or_default();
        let (oracle, output) = outputs.pop().unwrap_or_default();
        if clang_output != output {
            return Ok(Err("gcc -O0 and clang-19 -O0 print different things".into()));
        }
        Ok(Ok(Program {
            source: source.to_path_buf(),
            functions: functions(&text),
            oracle,
            clang_oracle,
            output,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_the_func_names_in_order_then_main() {
        let source = "static int func_13(int);\nstatic int func_1(void)\n{ return func_13(2); }\n";
        assert_eq!(functions(source), ["func_1", "func_13", "main"]);
    }
}
