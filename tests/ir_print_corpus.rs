//! The printer and verifier over the whole corpus: every one of the 56 files
//! parses, passes our verifier, prints, re-parses (and passes again) and
//! re-prints to the same text in both debug syntaxes, and opt-19's verifier
//! accepts the printed text of every file (the 42 clang-19 ones and the 14
//! clang-14 ones).

use std::path::{Path, PathBuf};
use std::process::Command;

use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::print::{print_module, DebugSyntax};
use dwarfsmith::ir::verify::verify_module;

const SYNTAXES: [DebugSyntax; 2] = [DebugSyntax::Records, DebugSyntax::Intrinsics];

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ll");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ll"))
        .collect();
    files.sort();
    assert_eq!(
        files.len(),
        56,
        "fixtures/ll should hold the 56 corpus files"
    );
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Parses a corpus file and prints it; the error names the file.
fn parse_and_print(path: &Path, syntax: DebugSyntax) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let module = parse_module(&text, &file_name(path)).map_err(|d| d.to_string())?;
    verify_module(&module).map_err(|d| format!("verifier rejects the parsed file: {d}"))?;
    Ok(print_module(&module, syntax))
}

#[test]
fn every_corpus_file_verifies_and_print_parse_print_is_a_fixed_point() {
    let mut failures = Vec::new();
    for path in corpus_files() {
        for syntax in SYNTAXES {
            let name = format!("{} ({syntax:?})", file_name(&path));
            let first = match parse_and_print(&path, syntax) {
                Ok(text) => text,
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let second = match parse_module(&first, "printed.ll") {
                Ok(module) => {
                    if let Err(e) = verify_module(&module) {
                        failures.push(format!("{name}: verifier rejects the printed text: {e}"));
                    }
                    print_module(&module, syntax)
                }
                Err(e) => {
                    failures.push(format!("{name}: printed text does not parse: {e}"));
                    continue;
                }
            };
            if first != second {
                let line = first
                    .lines()
                    .zip(second.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(first.lines().count().min(second.lines().count()));
                failures.push(format!(
                    "{name}: second print differs at line {}:\n  first:  {}\n  second: {}",
                    line + 1,
                    first.lines().nth(line).unwrap_or("<end>"),
                    second.lines().nth(line).unwrap_or("<end>")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// LLVM 19's `opt`; the test fails loudly when it is missing.
fn opt19() -> PathBuf {
    ["/usr/bin/opt-19", "/usr/lib/llvm-19/bin/opt"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("opt-19 is needed: neither /usr/bin/opt-19 nor /usr/lib/llvm-19/bin/opt exists")
}

/// Runs `opt-19 -passes=verify -disable-output` on `text`; `Err` holds its
/// message (also when it only warns that it ignores invalid debug info).
fn llvm_verify(opt: &Path, dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let output = Command::new(opt)
        .args(["-passes=verify", "-disable-output"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", opt.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Broken debug info is not fatal to opt: it warns and strips it.
    if output.status.success() && !stderr.contains("invalid debug info") {
        Ok(())
    } else {
        Err(stderr.trim().to_string())
    }
}

#[test]
fn opt19_verifies_the_printed_text_of_every_corpus_file_in_both_syntaxes() {
    let opt = opt19();
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in corpus_files() {
        for syntax in SYNTAXES {
            let name = format!("{}.{syntax:?}.ll", file_name(&path));
            let result = parse_and_print(&path, syntax)
                .and_then(|text| llvm_verify(&opt, dir.path(), &name, &text));
            checked += 1;
            if let Err(e) = result {
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    assert_eq!(checked, 112);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `opt-19 -S` of a file: LLVM's own reading of it, printed canonically.
fn llvm_reading(opt: &Path, path: &Path) -> Result<String, String> {
    let output = Command::new(opt)
        .args(["-S", "-o", "-"])
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", opt.display()));
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
    }
}

/// The code and debug records of `opt -S` output, without what the model
/// does not keep: comments, attribute groups and their `#N` references,
/// `!tbaa` and `!llvm.loop` attachments, `range(...)`, the `nocapture`,
/// `readonly`, `writeonly` and `readnone` parameter attributes, and metadata
/// numbers (which the printer renumbers; `!N` stays as a placeholder).
fn code_and_records(llvm_text: &str) -> String {
    let mut out = String::new();
    for line in llvm_text.lines() {
        if line.is_empty()
            || line.starts_with(';')
            || line.starts_with('!')
            || line.starts_with("attributes ")
        {
            continue;
        }
        let mut line = line.to_string();
        for attr in [" nocapture", " readonly", " writeonly", " readnone"] {
            line = line.replace(attr, "");
        }
        line = cut_all(&line, ", !tbaa !", digits);
        line = cut_all(&line, ", !llvm.loop !", digits);
        line = cut_all(&line, " #", |rest| {
            match digits(rest) {
                0 => None,
                n => Some(n),
            }
            .unwrap_or(usize::MAX)
        });
        line = cut_all(&line, " range(", |rest| {
            rest.find(')').map_or(usize::MAX, |i| i + 1)
        });
        out.push_str(&numbers_to_n(&line));
        out.push('\n');
    }
    out
}

fn digits(text: &str) -> usize {
    text.bytes().take_while(u8::is_ascii_digit).count()
}

/// Removes every `marker` together with the `len(rest)` bytes after it;
/// a length of `usize::MAX` keeps that occurrence.
fn cut_all(line: &str, marker: &str, len: impl Fn(&str) -> usize) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(marker) {
        let after = &rest[at + marker.len()..];
        let n = len(after);
        if n == usize::MAX {
            out.push_str(&rest[..at + marker.len()]);
            rest = after;
        } else {
            out.push_str(&rest[..at]);
            rest = &after[n..];
        }
    }
    out.push_str(rest);
    out
}

/// `!12` becomes `!N`.
fn numbers_to_n(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('!') {
        out.push_str(&rest[..=at]);
        let after = &rest[at + 1..];
        let n = digits(after);
        if n > 0 {
            out.push('N');
        }
        rest = &after[n..];
    }
    out.push_str(rest);
    out
}

#[test]
fn opt19_reads_the_printed_text_as_it_reads_the_original() {
    let opt = opt19();
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for path in corpus_files() {
        let original = llvm_reading(&opt, &path).map(|t| code_and_records(&t));
        for syntax in SYNTAXES {
            let name = format!("{}.{syntax:?}.ll", file_name(&path));
            let printed_path = dir.path().join(&name);
            let printed = parse_and_print(&path, syntax).and_then(|text| {
                std::fs::write(&printed_path, text).unwrap();
                llvm_reading(&opt, &printed_path).map(|t| code_and_records(&t))
            });
            match (&original, printed) {
                (Ok(a), Ok(b)) if *a == b => {}
                (Ok(a), Ok(b)) => {
                    let line = a
                        .lines()
                        .zip(b.lines())
                        .position(|(x, y)| x != y)
                        .unwrap_or(0);
                    failures.push(format!(
                        "{name}: differs at line {}:\n  original: {}\n  printed:  {}",
                        line + 1,
                        a.lines().nth(line).unwrap_or("<end>"),
                        b.lines().nth(line).unwrap_or("<end>")
                    ));
                }
                (Err(e), _) => failures.push(format!("{name}: opt-19 on the original: {e}")),
                (_, Err(e)) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
