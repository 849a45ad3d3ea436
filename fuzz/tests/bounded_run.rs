//! The bounded fuzz run of `cargo test`: a fixed seed, a fixed number of
//! inputs, no finding allowed; every object compiled on the way is checked
//! by llvm-dwarfdump-19 --verify in one batch.

use std::path::Path;

/// Inputs per `cargo test` run (see the README's note on its time).
const INPUTS: u64 = 2_000;

#[test]
fn two_thousand_mutated_inputs_find_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let corpus = dwarfsmith_fuzz::Corpus::load(&root).unwrap();
    assert!(corpus.ll.len() >= 50 && corpus.cxx.len() >= 5 && corpus.objects.len() >= 100);
    let dir = tempfile::tempdir().unwrap();
    let mut kept = Vec::new();
    let (counts, findings) = dwarfsmith_fuzz::run(&corpus, 0x5eed, 0, INPUTS, |name, bytes| {
        let path = dir.path().join(format!("{name}.o"));
        std::fs::write(&path, bytes).unwrap();
        kept.push(path);
    });
    println!("{counts:#?}");
    let listed: Vec<String> = findings
        .iter()
        .map(|f| format!("{}: {}", f.input, f.problem))
        .collect();
    assert!(listed.is_empty(), "{}", listed.join("\n"));
    assert_eq!(counts.inputs, INPUTS);
    // Every kind of mutation ran, and the run reached every stage.
    assert!(
        counts.by_mutation.iter().all(|(_, n)| *n > 0),
        "{counts:#?}"
    );
    assert!(
        counts.compiled > 100 && counts.ll_refused > 100,
        "{counts:#?}"
    );
    // One input in eight is C++ IR (exception handling, C++ debug
    // metadata), mutated by the C++ mutations too.
    assert_eq!(counts.cxx_inputs, INPUTS / 8, "{counts:#?}");
    assert!(counts.cxx_compiled > 20, "{counts:#?}");
    assert!(
        counts.object_inputs > 100 && counts.objects_read > 10,
        "{counts:#?}"
    );
    let failing = dwarfsmith_fuzz::dwarfdump_verify(&kept).unwrap();
    assert!(failing.is_empty(), "{failing:#?}");
    // Regressions: inputs of long runs that found something, now fixed.
    // Seed 20261123 input 15623: a metadata attachment kind with a character
    // that needs quoting was printed quoted (`!"k"`), which does not parse.
    let (_, findings) = dwarfsmith_fuzz::run(&corpus, 20261123, 15623, 1, |_, _| {});
    assert!(
        findings.is_empty(),
        "seed 20261123 input 15623: {findings:?}"
    );
}

#[test]
fn errors_must_name_file_line_and_column() {
    use dwarfsmith_fuzz::names_position;
    assert!(names_position("a.ll:3:14: error: bad", "a.ll"));
    assert!(!names_position("a.ll:0:0: error: bad", "a.ll"));
    assert!(!names_position("a.ll: error: bad", "a.ll"));
    assert!(!names_position("b.ll:3:14: error: bad", "a.ll"));
}
