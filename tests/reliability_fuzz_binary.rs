//! The fuzz harness's mutated .ll inputs through the `dwarfsmith` binary: a
//! refused input exits 1 with FILE:LINE:COL, and leaves no output file
//! (neither a new one nor a changed existing one); an accepted one writes it.

use std::path::Path;
use std::process::Command;

use dwarfsmith_fuzz::{input, names_position, Corpus, Input};

/// Mutated inputs tried; the first `REFUSED` refused and `ACCEPTED` accepted go through the binary.
const TRIED: u64 = 400;
const REFUSED: usize = 30;
const ACCEPTED: usize = 6;

fn ll_corpus() -> Corpus {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ll");
    let mut ll: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    ll.sort();
    Corpus {
        ll,
        cxx: Vec::new(),
        objects: Vec::new(),
    }
}

fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn refused_inputs_leave_no_output_and_accepted_ones_write_it() {
    let corpus = ll_corpus();
    let mut by_mutation = vec![0; dwarfsmith_fuzz::mutate::KIND_COUNT];
    let (mut refused, mut accepted) = (0, 0);
    for index in 0..TRIED {
        let Input::Ll { name, text, origin } = input(&corpus, 0xb1, index, &mut by_mutation) else {
            unreachable!("a corpus without objects gives .ll inputs only");
        };
        let options = dwarfsmith::CompileOptions {
            opt_level: dwarfsmith::OptLevel::O2,
            debug_info: true,
            debugger_tune: dwarfsmith::DebuggerTune::Gdb,
        };
        let ok = dwarfsmith::compile(&text, &name, &options).is_ok();
        if (ok && accepted == ACCEPTED) || (!ok && refused == REFUSED) {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(&name), &text).unwrap();
        std::fs::write(dir.path().join("existing.o"), b"old").unwrap();
        for (command, output) in [
            ("compile", "out.o"),
            ("opt", "out.ll"),
            ("compile", "existing.o"),
        ] {
            let before = listing(dir.path());
            let out = Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
                .current_dir(dir.path())
                .args([command, &name, "-o", output])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            if command == "compile" && !ok {
                assert_eq!(out.status.code(), Some(1), "{origin}: {stderr}");
                assert!(
                    names_position(stderr.trim_end(), &name),
                    "{origin}: {stderr}"
                );
                assert_eq!(
                    listing(dir.path()),
                    before,
                    "{origin}: {command} -o {output}"
                );
            } else if out.status.success() {
                assert!(dir.path().join(output).exists(), "{origin}");
                assert_ne!(
                    std::fs::read(dir.path().join(output)).unwrap(),
                    b"old",
                    "{origin}"
                );
            } else {
                // opt may accept or refuse a module compile refuses, never leave output.
                assert_eq!(
                    listing(dir.path()),
                    before,
                    "{origin}: {command} -o {output}"
                );
            }
        }
        if ok {
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    assert_eq!((refused, accepted), (REFUSED, ACCEPTED));
}
