//! dwarfsmith-bench: how fast and how lean dwarfsmith is next to llc-19, and how
//! much of each variable's scope its debug information covers.
//!
//! The crate drives the `dwarfsmith` binary as a user would and never links
//! the dwarfsmith library. Its binaries:
//! - `gen-module` writes a large clang -O2 -g shaped module ([`generate`]);
//! - `bench-run` compiles that module and the corpus with dwarfsmith and with
//!   llc-19 and prints time, peak memory and (with `--coverage`) variable
//!   coverage side by side ([`measure`], [`report`], [`coverage`]);
//! - `bench-checkers` measures `dwarfsmith verify` and `stats` against
//!   `llvm-dwarfdump-19 --verify` and `--statistics` ([`measure`]);
//! - `bench-realworld` (real C) and `bench-cxx` (real C++) compare compile
//!   time and run time with llc-19's builds over the real-world harness's
//!   projects ([`compilers`], [`cputime`], [`support`]).

pub mod compilers;
pub mod coverage;
pub mod cputime;
pub mod generate;
pub mod measure;
pub mod prng;
pub mod report;
pub mod runner;
pub mod support;
