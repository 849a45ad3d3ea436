//! Every corpus .ll file parses completely.

use std::path::Path;

use dwarfsmith::ir::parse::parse_module;

/// Reads every `fixtures/ll/*.ll` file, sorted by name.
fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ll");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/ll exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("readable fixture"))
        })
        .collect()
}

#[test]
fn all_56_corpus_files_parse() {
    let files = corpus();
    assert_eq!(
        files.len(),
        56,
        "fixtures/ll should hold the 56 corpus files"
    );
    let failures: Vec<String> = files
        .iter()
        .filter_map(|(name, text)| parse_module(text, name).err().map(|d| d.to_string()))
        .collect();
    assert!(
        failures.is_empty(),
        "files that fail to parse:\n{}",
        failures.join("\n")
    );
}
