//! What is written is read back: for every corpus file in every form, the
//! object model dwarfsmith builds (code, line rows, scopes, variables and
//! the location lists the history calculator produced) is written, read
//! back with `emit::read`, and compared with the model, tuned for gdb and
//! for lldb. `dwarfsmith verify` finds nothing wrong with any of them.

use dwarfsmith::{compile_to_model, write_options, CompileOptions, DebuggerTune, OptLevel};
use dwarfsmith_emit::model::VariableLocation;
use dwarfsmith_emit::verify::{round_trip, verify};

fn corpus_files() -> Vec<std::path::PathBuf> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/ll");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 56, "the corpus has 56 .ll files");
    files
}

#[test]
fn every_corpus_object_round_trips_through_emit_read() {
    let mut failures = Vec::new();
    let mut location_lists = 0;
    for path in corpus_files() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        for debugger_tune in [DebuggerTune::Gdb, DebuggerTune::Lldb] {
            let options = CompileOptions {
                opt_level: if name.contains(".O0.") {
                    OptLevel::O0
                } else {
                    OptLevel::O2
                },
                debug_info: true,
                debugger_tune,
            };
            let model = compile_to_model(&text, &name, &options).unwrap();
            location_lists += model
                .debug
                .iter()
                .flat_map(|d| &d.subprograms)
                .flat_map(|s| &s.scope.variables)
                .filter(|v| matches!(v.location, VariableLocation::List { .. }))
                .count();
            if let Err(difference) = round_trip(&model, &write_options(&options)) {
                failures.push(format!("{name} ({debugger_tune:?}): {difference}"));
            }
            let bytes = dwarfsmith::compile(&text, &name, &options).unwrap();
            for problem in verify(&bytes) {
                failures.push(format!("{name} ({debugger_tune:?}): verify: {problem}"));
            }
        }
    }
    assert!(location_lists > 100, "only {location_lists} location lists");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
