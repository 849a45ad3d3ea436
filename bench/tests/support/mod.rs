//! Helpers shared by the bench crate's integration tests.

use std::path::PathBuf;

/// The full path of `name` found on PATH (as the shell's `command -v` would), if any.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|directory| directory.join(name))
        .find(|candidate| candidate.is_file())
}
