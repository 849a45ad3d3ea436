//! The two compilers the real-world benchmarks (`bench-realworld`,
//! `bench-cxx`) compare, as command-line options.

use std::path::PathBuf;

/// `--dwarfsmith PATH` (the compiler under test) and `--llc PATH` (the
/// reference), flattened into each benchmark's options.
#[derive(clap::Args)]
pub struct Compilers {
    /// The dwarfsmith binary (build it with `cargo build --release --bin dwarfsmith`).
    #[arg(long, default_value = "target/release/dwarfsmith")]
    pub dwarfsmith: PathBuf,
    /// The reference compiler.
    #[arg(long, default_value = "llc-19")]
    pub llc: PathBuf,
}

impl Compilers {
    /// The absolute path of the dwarfsmith binary (the benchmarks run it
    /// from other directories), or the message `program` prints when it
    /// does not exist.
    pub fn dwarfsmith_path(&self, program: &str) -> Result<PathBuf, String> {
        std::fs::canonicalize(&self.dwarfsmith).map_err(|_| {
            format!(
                "{program}: error: {} does not exist (cargo build --release --bin dwarfsmith)",
                self.dwarfsmith.display()
            )
        })
    }
}
