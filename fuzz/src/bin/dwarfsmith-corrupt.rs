//! `dwarfsmith-corrupt --keep N --seed S`: corrupts real executables until
//! N of them are ones llvm-dwarfdump-19 --verify rejects, runs `dwarfsmith
//! verify` on each (see the library's `corrupt`), and prints the tally and
//! every binary it panicked on, hung on or accepted (kept under `--dir`).
//! Exits 1 when it panicked or hung on any, or rejected fewer than 99%.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use dwarfsmith_fuzz::corrupt;

/// Corrupted executables through `dwarfsmith verify`.
#[derive(Parser)]
#[command(name = "dwarfsmith-corrupt")]
struct Args {
    /// How many binaries llvm-dwarfdump rejects to judge.
    #[arg(long, default_value_t = 500)]
    keep: u64,
    /// The run's seed (candidate I of seed S is the same on every machine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The repository root (where fixtures/src is).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// The dwarfsmith binary (default: beside this one).
    #[arg(long)]
    dwarfsmith: Option<PathBuf>,
    /// Where the base executables and the bad cases are written (default: a
    /// new temporary directory, kept when there are bad cases).
    #[arg(long)]
    dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let dwarfsmith = match args.dwarfsmith.clone() {
        Some(path) => path,
        None => match std::env::current_exe() {
            Ok(exe) => exe.with_file_name("dwarfsmith"),
            Err(e) => {
                eprintln!("dwarfsmith-corrupt: cannot find this program: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => match tempfile::Builder::new().prefix("corrupt").tempdir() {
            Ok(dir) => dir.keep(),
            Err(e) => {
                eprintln!("dwarfsmith-corrupt: cannot make a directory: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("dwarfsmith-corrupt: {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let bases = match corrupt::build_bases(&args.root, &dir) {
        Ok(bases) => bases,
        Err(e) => {
            eprintln!("dwarfsmith-corrupt: cannot build the executables: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (tally, cases) = corrupt::run(&corrupt::Run {
        bases: &bases,
        dwarfsmith: &dwarfsmith,
        dir: &dir,
        seed: args.seed,
        keep: args.keep,
        most_candidates: args.keep * 20,
    });
    print!("{}", tally.report());
    for case in &cases {
        println!(
            "{} ({}): {}",
            case.path.display(),
            case.origin,
            case.problem
        );
    }
    let hard = cases
        .iter()
        .filter(|c| !c.problem.starts_with("dwarfsmith verify accepted"))
        .count();
    if hard > 0 || tally.rejected_share() < 0.99 {
        ExitCode::FAILURE
    } else {
        if args.dir.is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
        ExitCode::SUCCESS
    }
}
