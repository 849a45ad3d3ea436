//! `bench-checkers`: `dwarfsmith verify` and `dwarfsmith stats` against
//! `llvm-dwarfdump-19 --verify` and `--statistics` on the same files: wall
//! time and peak resident memory of each, the minimum of the runs (the
//! machine is shared, so the least disturbed run is the fairest figure), and
//! the ratios llvm-dwarfdump / dwarfsmith (above 1: dwarfsmith is faster or
//! smaller). The two take turns, dwarfsmith then llvm-dwarfdump in every
//! round, so load that comes and goes weighs on both alike; the last column
//! is the median over the rounds of each round's time ratio.
//!
//! Exit status 1 of a checker (findings) still counts as a finished run; a
//! status above 1 or a run past `--timeout` (killed then) is a failure,
//! shown in its cell. The checker is started by the measuring helper
//! itself, not through a shell and `timeout`, whose start-up (about 1.5 ms
//! a run) had been counted in both checkers' times: on Lua (7 ms against
//! 34 ms) it had lowered the `stats` ratio by about a tenth.
//!
//! Example: `cargo run --release -p dwarfsmith-bench --bin bench-checkers -- lua-gcc/lua target/debug/dwarfsmith`

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use dwarfsmith_bench::measure::{
    measuring_helper, run_via_helper, Limits, Measurement, Outcome, HELPER_ARG,
};

/// Compare dwarfsmith's verify and stats with llvm-dwarfdump-19's on binaries.
#[derive(Parser)]
#[command(name = "bench-checkers", about, long_about = None)]
struct Cli {
    /// The dwarfsmith binary (build it with `cargo build --release --bin dwarfsmith`).
    #[arg(long, default_value = "target/release/dwarfsmith")]
    dwarfsmith: PathBuf,
    /// The reference.
    #[arg(long, default_value = "llvm-dwarfdump-19")]
    dwarfdump: PathBuf,
    /// Rounds per file and check (one run of each checker a round); the
    /// minimum is shown.
    #[arg(long, default_value_t = 3)]
    repetitions: usize,
    /// Seconds after which one run is stopped and counted as failed.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// The binaries to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

/// One row of the table: a checker pair on one file.
struct Pair {
    /// `verify` or `stats`.
    what: &'static str,
    /// dwarfsmith's arguments before the file.
    ours: &'static [&'static str],
    /// llvm-dwarfdump's arguments before the file.
    theirs: &'static [&'static str],
}

/// The pairs measured, in table order.
const PAIRS: [Pair; 2] = [
    Pair {
        what: "verify",
        ours: &["verify"],
        theirs: &["--verify"],
    },
    Pair {
        what: "stats",
        ours: &["stats"],
        theirs: &["--statistics"],
    },
];

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|first| first == HELPER_ARG) {
        return measuring_helper(args.collect());
    }
    let cli = Cli::parse();
    let Ok(helper) = std::env::current_exe() else {
        eprintln!("bench-checkers: cannot find its own executable");
        return ExitCode::FAILURE;
    };
    println!(
        "dwarfsmith: {}  reference: {}  minimum of {} runs, timeout {} s",
        cli.dwarfsmith.display(),
        cli.dwarfdump.display(),
        cli.repetitions.max(1),
        cli.timeout
    );
    println!(
        "{:<28} {:<7} {:>11} {:>11} {:>7} {:>11} {:>11} {:>7} {:>7}",
        "file",
        "check",
        "dwarfsmith",
        "dwarfdump",
        "ratio",
        "dwarfsmith",
        "dwarfdump",
        "ratio",
        "median"
    );
    println!(
        "{:<28} {:<7} {:>11} {:>11} {:>7} {:>11} {:>11} {:>7} {:>7}",
        "", "", "time", "time", "time", "peak RSS", "peak RSS", "RSS", "rounds"
    );
    for file in &cli.files {
        for pair in &PAIRS {
            let (ours, theirs, rounds) = rounds(&cli, &helper, pair, file);
            println!("{}", row(file, pair.what, &ours, &theirs, &rounds));
            for (name, outcome) in [("dwarfsmith", &ours), ("dwarfdump", &theirs)] {
                if let Outcome::Failed { first_error_line } = outcome {
                    println!("    {name} FAILED: {first_error_line}");
                }
            }
        }
    }
    ExitCode::SUCCESS
}

/// The rounds of one check on one file: dwarfsmith's and llvm-dwarfdump's
/// minimum time and minimum peak RSS (or a checker's first failure, after
/// which it is not run again), and each round's time ratio
/// (llvm-dwarfdump / dwarfsmith) while both finish.
fn rounds(cli: &Cli, helper: &Path, pair: &Pair, file: &Path) -> (Outcome, Outcome, Vec<f64>) {
    let mut ours = Best::default();
    let mut theirs = Best::default();
    let mut ratios = Vec::new();
    for _ in 0..cli.repetitions.max(1) {
        let a = ours.run(cli, helper, &cli.dwarfsmith, pair.ours, file);
        let b = theirs.run(cli, helper, &cli.dwarfdump, pair.theirs, file);
        if let (Some(a), Some(b)) = (a, b) {
            ratios.push(b.wall.as_secs_f64() / a.wall.as_secs_f64().max(1e-9));
        }
    }
    (ours.outcome(), theirs.outcome(), ratios)
}

/// One checker's runs so far: the minimum time and peak RSS, or its failure.
#[derive(Default)]
struct Best {
    least: Option<Measurement>,
    failed: Option<Outcome>,
}

impl Best {
    /// Runs `program ARGS FILE` once (unless it failed before); the run's
    /// measurement when it finished.
    fn run(
        &mut self,
        cli: &Cli,
        helper: &Path,
        program: &Path,
        args: &[&str],
        file: &Path,
    ) -> Option<Measurement> {
        if self.failed.is_some() {
            return None;
        }
        // The checker itself is measured: exit status 1 (findings) counts
        // as finished, and a run past the timeout is killed and failed.
        let limits = Limits {
            highest_ok_status: 1,
            timeout: Some(Duration::from_secs(cli.timeout)),
        };
        let mut checker_args: Vec<OsString> = args.iter().map(OsString::from).collect();
        checker_args.push(file.into());
        match run_via_helper(helper, program, &checker_args, limits) {
            Outcome::Finished(m) => {
                self.least = Some(match self.least {
                    None => m,
                    Some(least) => Measurement {
                        wall: least.wall.min(m.wall),
                        peak_rss_kib: least.peak_rss_kib.min(m.peak_rss_kib),
                    },
                });
                Some(m)
            }
            failed @ Outcome::Failed { .. } => {
                self.failed = Some(failed);
                None
            }
        }
    }

    /// The first failure, else the minimum of the runs.
    fn outcome(self) -> Outcome {
        match (self.failed, self.least) {
            (Some(failed), _) => failed,
            (None, Some(least)) => Outcome::Finished(least),
            (None, None) => unreachable!("at least one round is run"),
        }
    }
}

/// The median of `values` (the upper middle for an even count, as
/// `measure::median` takes it), `None` when empty.
fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied()
}

/// One table row: the file's name, the check, both times and memories and their ratios.
fn row(file: &Path, what: &str, ours: &Outcome, theirs: &Outcome, rounds: &[f64]) -> String {
    let name = file.display().to_string();
    let time = |o: &Outcome| match o {
        Outcome::Finished(m) => format!("{:.3} s", m.wall.as_secs_f64()),
        Outcome::Failed { .. } => "FAILED".to_string(),
    };
    let rss = |o: &Outcome| match o {
        Outcome::Finished(m) => format!("{:.1} MiB", m.peak_rss_kib as f64 / 1024.0),
        Outcome::Failed { .. } => "FAILED".to_string(),
    };
    let (time_ratio, rss_ratio) = match (ours, theirs) {
        (Outcome::Finished(a), Outcome::Finished(b)) => (
            format!(
                "{:.2}",
                b.wall.as_secs_f64() / a.wall.as_secs_f64().max(1e-9)
            ),
            format!(
                "{:.2}",
                b.peak_rss_kib as f64 / (a.peak_rss_kib.max(1)) as f64
            ),
        ),
        _ => ("-".to_string(), "-".to_string()),
    };
    let rounds = median(rounds).map_or("-".to_string(), |ratio| format!("{ratio:.2}"));
    format!(
        "{:<28} {:<7} {:>11} {:>11} {:>7} {:>11} {:>11} {:>7} {:>7}",
        name,
        what,
        time(ours),
        time(theirs),
        time_ratio,
        rss(ours),
        rss(theirs),
        rss_ratio,
        rounds
    )
}
