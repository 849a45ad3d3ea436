//! The debugger oracle for real-world programs: stop two builds of one
//! program (gcc -O0 and ours) at the same breakpoints, have gdb print every
//! argument and local at each stop, and judge ours against gcc's.
//!
//! A value of ours is right when it equals gcc's or is `<optimized out>`
//! (available only in the first case); a variable gcc shows that ours does
//! not list at all counts as unavailable. Values that are addresses (they
//! contain `0x`) depend on each build's layout, so they count for
//! availability but are not compared.
#![allow(dead_code)] // each test binary uses its own subset of these helpers

use std::path::Path;

/// What gdb printed at one stop: `name = value` lines of `info args` and
/// `info locals`, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// `(name, value)` pairs.
    pub values: Vec<(String, String)>,
}

/// The marker gdb echoes between stops.
const STOP_MARKER: &str = "==== stop ====";

/// Runs `exe` with `args` (in `dir`) under gdb with `breakpoints`, and at
/// each of the first `stops` stops prints the arguments and locals.
pub fn stops(
    exe: &Path,
    dir: &Path,
    args: &str,
    breakpoints: &[String],
    stops: usize,
) -> Vec<Stop> {
    let mut commands: Vec<String> = vec!["set pagination off".into(), "set confirm off".into()];
    commands.extend(breakpoints.iter().map(|b| format!("break {b}")));
    commands.push(format!("run {args}"));
    for _ in 0..stops {
        commands.push(format!("echo {STOP_MARKER}\\n"));
        commands.push("info args".into());
        commands.push("info locals".into());
        commands.push("continue".into());
    }
    let mut gdb = std::process::Command::new("gdb");
    gdb.args(["-nx", "-batch", "-q"]).current_dir(dir);
    for c in &commands {
        gdb.args(["-ex", c]);
    }
    gdb.arg(exe);
    let output = crate::support::run(&mut gdb);
    let text = String::from_utf8_lossy(&output.stdout);
    text.split(STOP_MARKER)
        .skip(1)
        .map(|chunk| Stop {
            values: chunk
                .lines()
                .filter_map(|line| {
                    let (name, value) = line.split_once(" = ")?;
                    let name = name.trim();
                    let plain =
                        !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
                    plain.then(|| (name.to_string(), value.trim().to_string()))
                })
                .collect(),
        })
        .collect()
}

/// The verdict over all stops.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Variables gcc showed.
    pub total: usize,
    /// Of those, how many ours showed with a value.
    pub available: usize,
    /// `stop: name: ours (gcc's)` for every value of ours that differs.
    pub wrong: Vec<String>,
}

/// Judges `ours` against `reference` stop by stop.
pub fn judge(reference: &[Stop], ours: &[Stop]) -> Verdict {
    assert_eq!(
        reference.len(),
        ours.len(),
        "the builds stopped a different number of times"
    );
    let mut verdict = Verdict::default();
    for (index, (gcc, mine)) in reference.iter().zip(ours).enumerate() {
        for (name, expected) in &gcc.values {
            verdict.total += 1;
            let Some((_, got)) = mine.values.iter().find(|(n, _)| n == name) else {
                continue;
            };
            if got == "<optimized out>" {
                continue;
            }
            verdict.available += 1;
            if got != expected && !(got.contains("0x") && expected.contains("0x")) {
                verdict
                    .wrong
                    .push(format!("stop {index}: {name}: {got} (gcc -O0: {expected})"));
            }
        }
    }
    verdict
}
