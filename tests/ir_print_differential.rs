//! The printer drops nothing the parser keeps at module level: LLVM's own
//! reading of our print equals its reading of the input.
//!
//! For a file F, "LLVM's reading" is `llvm-as-19 < F | llvm-dis-19`: it
//! puts attributes, linkage words and attribute groups in LLVM's canonical
//! order and spelling, so two texts with the same meaning print the same.
//!
//! - `tests/data/print_constructs.ll` (every module-level construct the
//!   parser accepts: thread-local modes, visibility, DLL storage, comdats,
//!   sections, partitions, alignment, address spaces, gc, prefix, prologue,
//!   personality, attribute groups, byval/sret/inalloca/preallocated/
//!   swifterror/swiftself/nest/returned/align/noalias/nocapture/readonly/
//!   dereferenceable parameter attributes, calling conventions, musttail)
//!   is compared whole, without any normalisation.
//! - For every `fixtures/ll/*.ll`, the module-level lines are compared:
//!   globals (`@`), comdats (`$`), `define`/`declare` lines, and the
//!   `attributes #N` groups those lines reference. Instruction lines are not
//!   compared because the model does not keep TBAA/loop metadata or
//!   call-site attribute groups (instruction-level; see the printer's doc).
//!   The one normalisation: metadata numbers (`!12`) are renumbered in order
//!   of first appearance within the compared lines, since our printer
//!   numbers metadata from the module's shape and the dropped TBAA nodes
//!   shift the numbers. Value names are not normalised: they already agree.

mod support;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use support::{dwarfsmith, fixture, run};

/// `llvm-as-19 < file | llvm-dis-19`.
fn llvm_reading(file: &Path) -> String {
    let out = run(Command::new("sh")
        .arg("-c")
        .arg(format!("llvm-as-19 < '{}' | llvm-dis-19", file.display())));
    assert!(
        out.status.success(),
        "llvm-as-19 | llvm-dis-19 failed on {}:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Our print of `input`, written into `dir`.
fn our_print(dir: &Path, input: &Path) -> std::path::PathBuf {
    let printed = dir.join(input.file_name().unwrap());
    let out = dwarfsmith(&[
        "opt",
        input.to_str().unwrap(),
        "-o",
        printed.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "opt {}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    printed
}

/// Replaces each `!N` by `!K`, K counting distinct numbers in order of first appearance.
fn renumber_metadata(lines: &[&str]) -> Vec<String> {
    let mut numbers: HashMap<String, usize> = HashMap::new();
    lines
        .iter()
        .map(|line| {
            let mut out = String::new();
            let mut rest = *line;
            while let Some(at) = rest.find('!') {
                out.push_str(&rest[..=at]);
                rest = &rest[at + 1..];
                let digits =
                    rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                if digits > 0 {
                    let next = numbers.len();
                    let k = *numbers.entry(rest[..digits].to_string()).or_insert(next);
                    out.push_str(&k.to_string());
                    rest = &rest[digits..];
                }
            }
            out.push_str(rest);
            out
        })
        .collect()
}

/// The module-level lines of an llvm-dis text (see the module doc).
fn module_level(text: &str) -> Vec<String> {
    let symbols: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.starts_with('@')
                || l.starts_with('$')
                || l.starts_with("define ")
                || l.starts_with("declare ")
        })
        .collect();
    let referenced = |line: &str| {
        let group = line
            .strip_prefix("attributes ")
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("");
        symbols
            .iter()
            .any(|s| s.split_whitespace().any(|word| word == group))
    };
    let mut lines = symbols.clone();
    lines.extend(
        text.lines()
            .filter(|l| l.starts_with("attributes ") && referenced(l)),
    );
    renumber_metadata(&lines)
}

#[test]
fn every_module_level_construct_prints_back() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/print_constructs.ll");
    let printed = our_print(dir.path(), &input);
    let theirs = llvm_reading(&input);
    assert!(theirs.contains("thread_local(initialexec)"), "{theirs}");
    assert!(theirs.contains("byval(%struct.S)"), "{theirs}");
    assert_eq!(llvm_reading(&printed), theirs);
}

#[test]
fn fixtures_print_back_their_module_level_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<_> = std::fs::read_dir(fixture("ll"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 50, "{}", inputs.len());
    let mut compared_lines = 0;
    for input in &inputs {
        let printed = our_print(dir.path(), input);
        let theirs = module_level(&llvm_reading(input));
        let ours = module_level(&llvm_reading(&printed));
        assert_eq!(ours, theirs, "{}", input.display());
        compared_lines += theirs.len();
    }
    assert!(compared_lines > 200, "{compared_lines}");
}

#[test]
fn renumbering_follows_first_appearance() {
    assert_eq!(
        renumber_metadata(&[
            "define void @f() !dbg !9 {",
            "declare !dbg !4 void @g()",
            "@x = global i32 0, !dbg !9"
        ]),
        [
            "define void @f() !dbg !0 {",
            "declare !dbg !1 void @g()",
            "@x = global i32 0, !dbg !0"
        ]
    );
}
