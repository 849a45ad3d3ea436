//! `gen-module`: writes the benchmark's large clang -O2 -g shaped LLVM IR module.
//!
//! Example: `cargo run --release -p dwarfsmith-bench --bin gen-module -- -o big.ll`

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use dwarfsmith_bench::generate::{generate, GenConfig};

/// Write a large, deterministic LLVM IR module shaped like clang-19 -O2 -g output.
#[derive(Parser)]
#[command(name = "gen-module", about, long_about = None)]
struct Cli {
    /// Seed of the generator: the same seed always gives the same module.
    #[arg(long, default_value_t = GenConfig::default().seed)]
    seed: u64,
    /// Number of functions (the line count scales with it: about 150 lines each).
    #[arg(long, default_value_t = GenConfig::default().functions)]
    functions: usize,
    /// Where to write the module (standard output when absent).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let text = generate(&GenConfig {
        seed: cli.seed,
        functions: cli.functions,
    });
    match cli.output {
        Some(path) => {
            if let Err(error) = std::fs::write(&path, text) {
                eprintln!("gen-module: cannot write {}: {error}", path.display());
                return ExitCode::FAILURE;
            }
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}
