//! Round trips starting from real objects: every fixture object (gcc,
//! clang-19, llc-19, dwarfsmith), read into the model, written again and
//! read back, is its normalised model, and the rewritten object verifies
//! clean; dwarfsmith's own objects also keep its stricter promise (pieces
//! cover their variables).

mod read_support;

use dwarfsmith_emit::read::read;
use dwarfsmith_emit::verify::{round_trip, verify, verify_with, VerifyOptions};
use dwarfsmith_emit::write::{write, DebuggerTune, WriteOptions};
use read_support::fixture_objects;

#[test]
fn every_fixture_object_rewrites_and_reads_back() {
    let mut report = String::new();
    for path in fixture_objects() {
        let model = read(&std::fs::read(&path).expect("fixture")).expect("reads");
        for debugger_tune in [DebuggerTune::Gdb, DebuggerTune::Lldb] {
            let options = WriteOptions { debugger_tune };
            if let Err(error) = round_trip(&model, &options) {
                report.push_str(&format!(
                    "{} ({debugger_tune:?}): {error}\n",
                    path.display()
                ));
                continue;
            }
            let rewritten = write(&model, &options).expect("writes");
            for problem in verify(&rewritten) {
                report.push_str(&format!(
                    "{} rewritten ({debugger_tune:?}): {problem}\n",
                    path.display()
                ));
            }
        }
    }
    assert_eq!(report, "");
}

#[test]
fn dwarfsmith_objects_keep_the_strict_promises() {
    let strict = VerifyOptions {
        pieces_cover_variables: true,
    };
    let mut checked = 0;
    let mut report = String::new();
    for path in fixture_objects() {
        if !path.to_string_lossy().ends_with(".dwarfsmith.o") {
            continue;
        }
        checked += 1;
        for problem in verify_with(&std::fs::read(&path).expect("fixture"), &strict) {
            report.push_str(&format!("{}: {problem}\n", path.display()));
        }
    }
    assert_eq!(checked, 28, "14 programs at -O0 and -O2");
    assert_eq!(report, "");
}
