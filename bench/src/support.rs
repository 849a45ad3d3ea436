//! What tests/support/realworld.rs (the real-world harness, which the
//! `bench-realworld` and `bench-cxx` binaries include by path) needs from the
//! tests' support module: the same three helpers, so the harness compiles
//! unchanged in this crate.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs a command and returns its output, panicking if it cannot start.
pub fn run(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// Path of a file under the repository's `fixtures/`.
pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(relative)
}

/// The llvm-dwarfdump of LLVM 19.
pub fn llvm_dwarfdump() -> &'static str {
    "llvm-dwarfdump-19"
}
