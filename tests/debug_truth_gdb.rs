//! Debug information that stays true on code the corpus never had (issue
//! 20): each reproducer of `fixtures/debug_truth/` is compiled by the
//! dwarfsmith binary, linked by gcc and run, and where the bug showed in a
//! debugger, gdb's exact output at the stop is asserted.

mod support;

use std::path::{Path, PathBuf};

use support::{compile_ll, fixture, gcc_link_and_run};

/// Path of `fixtures/debug_truth/NAME`.
fn truth_fixture(name: &str) -> PathBuf {
    fixture(&format!("debug_truth/{name}"))
}

/// Compiles `fixtures/debug_truth/NAME` with `flags` into `dir`.
fn compile_truth(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let stem = name.trim_end_matches(".ll").replace('.', "_");
    compile_ll(dir, &truth_fixture(name), &stem, flags)
}

#[test]
fn a_loop_entered_through_an_earlier_loops_edge_block_compiles_at_every_level() {
    // reload_hoist panicked (index out of bounds) once a hoist into an
    // outer loop had added an edge block and an inner loop came next.
    let dir = tempfile::tempdir().unwrap();
    for level in ["-O0", "-O1", "-O2"] {
        compile_truth(dir.path(), "reload_hoist_panic.ll", &[level]);
    }
}

#[test]
fn csmith650_through_our_o2_of_o0_ir_prints_the_gcc_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile_truth(dir.path(), "csmith650.O0.ll", &["-O2"]);
    let output = gcc_link_and_run(dir.path(), "csmith650", &[object], &[]);
    assert_eq!(output, "checksum = 40AC8B92\n");
}
