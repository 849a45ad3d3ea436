//! `bench-run`: compiles the generated module and the corpus with dwarfsmith and
//! llc-19 and prints time, peak memory and their ratios (or, with
//! `--coverage`, the variable coverage of both compilers' objects).
//!
//! Example: `cargo build --release --bin dwarfsmith && cargo run --release -p dwarfsmith-bench --bin bench-run`

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use dwarfsmith_bench::generate::GenConfig;
use dwarfsmith_bench::measure::{measuring_helper, HELPER_ARG};
use dwarfsmith_bench::report::{coverage_table, timing_table};
use dwarfsmith_bench::runner::{coverage_rows, timing_rows, RunConfig};

/// Compare dwarfsmith with llc-19: time, peak memory, variable coverage.
#[derive(Parser)]
#[command(name = "bench-run", about, long_about = None)]
struct Cli {
    /// The dwarfsmith binary (build it with `cargo build --release --bin dwarfsmith`).
    #[arg(long, default_value = "target/release/dwarfsmith")]
    dwarfsmith: PathBuf,
    /// The reference compiler.
    #[arg(long, default_value = "llc-19")]
    llc: PathBuf,
    /// llvm-dwarfdump of LLVM 19 (for --coverage).
    #[arg(long, default_value = "llvm-dwarfdump-19")]
    dwarfdump: PathBuf,
    /// Runs per compiler and input; the table shows the median.
    #[arg(long, default_value_t = 5)]
    repetitions: usize,
    /// Directory with the corpus copies; its `*.O2.ll` files are compiled.
    #[arg(long, default_value = "fixtures/ll")]
    corpus: PathBuf,
    /// Seed of the generated module.
    #[arg(long, default_value_t = GenConfig::default().seed)]
    seed: u64,
    /// Functions in the generated module (about 150 lines each).
    #[arg(long, default_value_t = GenConfig::default().functions)]
    functions: usize,
    /// Print variable coverage (llvm-dwarfdump-19 --statistics) of the corpus instead of timings.
    #[arg(long)]
    coverage: bool,
    /// Keep the generated module and objects in this directory instead of a temporary one.
    #[arg(long)]
    keep: Option<PathBuf>,
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|first| first == HELPER_ARG) {
        return measuring_helper(args.collect());
    }
    let cli = Cli::parse();
    match run(&cli) {
        Ok(table) => {
            print!("{table}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("bench-run: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> Result<String, String> {
    let config = RunConfig {
        dwarfsmith: cli.dwarfsmith.clone(),
        llc: cli.llc.clone(),
        dwarfdump: cli.dwarfdump.clone(),
        repetitions: cli.repetitions,
        corpus: cli.corpus.clone(),
        generator: GenConfig {
            seed: cli.seed,
            functions: cli.functions,
        },
        helper: std::env::current_exe().ok(),
    };
    let temporary = tempfile::tempdir()
        .map_err(|error| format!("cannot make a temporary directory: {error}"))?;
    let workdir = match &cli.keep {
        Some(directory) => {
            std::fs::create_dir_all(directory)
                .map_err(|error| format!("cannot create {}: {error}", directory.display()))?;
            directory.clone()
        }
        None => temporary.path().to_path_buf(),
    };
    // A bare name is looked up on PATH by the system; a path can be checked here.
    if cli.dwarfsmith.components().count() > 1 && !cli.dwarfsmith.is_file() {
        eprintln!(
            "bench-run: {} does not exist: build it with `cargo build --release --bin dwarfsmith` \
             or pass --dwarfsmith PATH (every dwarfsmith cell will say FAILED)",
            cli.dwarfsmith.display()
        );
    }
    if cli.coverage {
        Ok(coverage_table(&coverage_rows(&config, &workdir)?))
    } else {
        let header = format!(
            "dwarfsmith: {}  llc: {}  median of {} runs  generated module: seed {}, {} functions\n",
            config.dwarfsmith.display(),
            config.llc.display(),
            config.repetitions.max(1),
            config.generator.seed,
            config.generator.functions
        );
        Ok(header + &timing_table(&timing_rows(&config, &workdir)?))
    }
}
