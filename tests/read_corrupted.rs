//! Corrupted executables through `dwarfsmith verify` (fuzz's `corrupt`):
//! gcc's and clang-19's `-O2 -g` builds of three fixtures/src programs (DWARF 5
//! and 4) with a debug section cut short, bytes flipped in a debug section, a
//! bad offset written into one, or the file cut. Of the first 100 that
//! `llvm-dwarfdump-19 --verify` rejects (beyond what it finds in the undamaged
//! build), `verify` must reject at least 99, never panic and never take 10 s.
//! `dwarfsmith-corrupt --keep 600` is the long run of the same.

use std::path::Path;

use dwarfsmith_fuzz::corrupt;

#[test]
fn verify_rejects_corrupted_executables_llvm_dwarfdump_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bases = corrupt::build_bases(root, dir.path()).unwrap();
    let (tally, cases) = corrupt::run(&corrupt::Run {
        bases: &bases,
        dwarfsmith: Path::new(env!("CARGO_BIN_EXE_dwarfsmith")),
        dir: dir.path(),
        seed: 22,
        keep: 100,
        most_candidates: 400,
    });
    println!("{}", tally.report());
    assert!(tally.kept >= 100, "{}", tally.report());
    let listed: Vec<String> = cases
        .iter()
        .map(|case| format!("{}: {}", case.origin, case.problem))
        .collect();
    let panics_and_hangs: Vec<&String> = listed
        .iter()
        .filter(|case| !case.contains("dwarfsmith verify accepted it"))
        .collect();
    assert!(panics_and_hangs.is_empty(), "{panics_and_hangs:#?}");
    assert!(
        tally.rejected_share() >= 0.99,
        "{}{}",
        tally.report(),
        listed.join("\n")
    );
}
