//! `dwarfsmith stats --json` against `llvm-dwarfdump-19 --statistics`, key for
//! key, on objects and executables built by gcc, clang-19 and dwarfsmith:
//! zlib (the real-world harness's copy, from libz-sys) built eight ways
//! (split DWARF among them: the skeletons' `.dwo` files are read) and
//! linked, zlib files and corpus fixtures compiled by dwarfsmith, and a
//! zlib linked from dwarfsmith's objects and gcc's. Every key that differs
//! is printed, and any difference fails the test. The llvm-locstats table
//! `stats` prints is checked against the same file's coverage keys
//! (llvm-locstats reads nothing else; Debian ships no llvm-locstats-19).

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The build variants of zlib: compiler and flags.
const VARIANTS: [(&str, &str, &[&str]); 8] = [
    ("gcc-O2", "gcc", &["-O2", "-g"]),
    ("gcc-O0", "gcc", &["-O0", "-g"]),
    ("gcc-O2-dwarf4", "gcc", &["-O2", "-g", "-gdwarf-4"]),
    ("clang-O2", "clang-19", &["-O2", "-g"]),
    (
        "clang-O2-dwarf4-gz",
        "clang-19",
        &["-O2", "-g", "-gdwarf-4", "-gz=zlib"],
    ),
    ("clang-O1-zstd", "clang-19", &["-O1", "-g", "-gz=zstd"]),
    ("gcc-O2-split", "gcc", &["-O2", "-g", "-gsplit-dwarf"]),
    (
        "clang-O2-split-dwarf4",
        "clang-19",
        &["-O2", "-g", "-gsplit-dwarf", "-gdwarf-4"],
    ),
];

/// zlib files also compiled by dwarfsmith (from clang-19 -O2 IR).
const DWARFSMITH_ZLIB: [&str; 4] = ["adler32", "compress", "uncompr", "zutil"];

/// Corpus fixtures compiled by dwarfsmith.
const DWARFSMITH_FIXTURES: [&str; 4] = ["inlining.O2", "sort.O2", "structs.O2", "recursion.O0"];

#[test]
fn stats_agrees_with_llvm_dwarfdump_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let files = build_files(dir.path());
    let dwarfsmith = env!("CARGO_BIN_EXE_dwarfsmith");
    let mut differences = Vec::new();
    let mut keys = 0;
    for file in &files {
        let reference = flat_object(&support::stdout_of(
            Command::new("llvm-dwarfdump-19")
                .arg("--statistics")
                .arg(file),
        ));
        let json = support::stdout_of(Command::new(dwarfsmith).args(["stats", "--json"]).arg(file));
        let ours = flat_object(section(&json, "\"statistics\": {", "}"));
        assert!(reference.len() > 100, "{}: {reference:?}", file.display());
        keys += reference.len();
        for (key, value) in &reference {
            let mine = ours.iter().find(|(k, _)| k == key).map(|(_, v)| v);
            if mine != Some(value) {
                differences.push(format!(
                    "{}: {key}: llvm-dwarfdump {value}, dwarfsmith {}",
                    file.display(),
                    mine.map_or("(none)", String::as_str)
                ));
            }
        }
        for (key, value) in &ours {
            if !reference.iter().any(|(k, _)| k == key) {
                differences.push(format!(
                    "{}: {key}: only dwarfsmith ({value})",
                    file.display()
                ));
            }
        }
        check_locstats(file, &json, &reference, &mut differences);
    }
    println!(
        "{} files, {keys} keys compared, {} differ",
        files.len(),
        differences.len()
    );
    for difference in &differences {
        println!("{difference}");
    }
    assert!(differences.is_empty(), "{} keys differ", differences.len());
}

/// The locstats rows agree with llvm-dwarfdump's "#variables with ..." keys.
fn check_locstats(
    file: &Path,
    json: &str,
    reference: &[(String, String)],
    differences: &mut Vec<String>,
) {
    let rows = section(json, "\"locstats\": [", "]");
    let mut count = 0;
    for line in rows.lines().filter(|line| line.contains("\"coverage\"")) {
        count += 1;
        let bucket = line.split('"').nth(3).unwrap();
        let samples = line
            .split("\"variables\": ")
            .nth(1)
            .and_then(|rest| rest.split(',').next())
            .unwrap();
        let key = format!("#variables with {bucket} of parent scope covered by DW_AT_location");
        let expected = reference.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        if expected.map(String::as_str) != Some(samples) {
            differences.push(format!(
                "{}: locstats {bucket}: {samples}, llvm-dwarfdump {expected:?}",
                file.display()
            ));
        }
    }
    if count != 12 {
        differences.push(format!("{}: {count} locstats rows", file.display()));
    }
}

/// Builds every file the test compares; returns their paths.
fn build_files(dir: &Path) -> Vec<PathBuf> {
    let project = realworld::zlib();
    let mut commands = Vec::new();
    let mut files = Vec::new();
    for (name, compiler, flags) in VARIANTS {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        for source in &project.sources {
            let object = dir.join(name).join(format!("{}.o", stem(source)));
            let mut command = Command::new(compiler);
            command
                .args(flags)
                .args(["-w", "-c"])
                .args(&project.cpp_flags)
                .arg(source)
                .arg("-o")
                .arg(&object);
            commands.push(command);
            files.push(object);
        }
    }
    std::fs::create_dir_all(dir.join("ds")).unwrap();
    let mut ir = Vec::new();
    for name in DWARFSMITH_ZLIB {
        let source = project.sources.iter().find(|s| stem(s) == name).unwrap();
        let mut command = Command::new("clang-19");
        command
            .args(["-O2", "-g", "-w", "-S", "-emit-llvm"])
            .args(&project.cpp_flags)
            .arg(source)
            .arg("-o")
            .arg(dir.join(format!("ds/{name}.ll")));
        commands.push(command);
        ir.push((
            dir.join(format!("ds/{name}.ll")),
            dir.join(format!("ds/{name}.o")),
        ));
    }
    for name in DWARFSMITH_FIXTURES {
        ir.push((
            support::fixture(&format!("ll/{name}.ll")),
            dir.join(format!("ds/{name}.o")),
        ));
    }
    check_ran(realworld::run_all(commands));
    let dwarfsmith = env!("CARGO_BIN_EXE_dwarfsmith");
    let compiles = ir
        .iter()
        .map(|(ll, object)| {
            let mut command = Command::new(dwarfsmith);
            command.arg("compile").arg(ll).arg("-o").arg(object);
            command
        })
        .collect();
    check_ran(realworld::run_all(compiles));
    files.extend(ir.iter().map(|(_, object)| object.clone()));

    let mut links = Vec::new();
    for (name, compiler, flags) in VARIANTS {
        let objects: Vec<PathBuf> = project
            .sources
            .iter()
            .map(|s| dir.join(name).join(format!("{}.o", stem(s))))
            .collect();
        links.push(link(
            compiler,
            flags,
            &objects,
            &dir.join(format!("{name}.exe")),
        ));
    }
    let mixed: Vec<PathBuf> = project
        .sources
        .iter()
        .map(|s| {
            let ours = dir.join(format!("ds/{}.o", stem(s)));
            if ours.exists() {
                ours
            } else {
                dir.join("gcc-O2").join(format!("{}.o", stem(s)))
            }
        })
        .collect();
    links.push(link("gcc", &[], &mixed, &dir.join("mixed.exe")));
    check_ran(realworld::run_all(links));
    for (name, _, _) in VARIANTS {
        files.push(dir.join(format!("{name}.exe")));
    }
    files.push(dir.join("mixed.exe"));
    files
}

fn link(compiler: &str, flags: &[&str], objects: &[PathBuf], output: &Path) -> Command {
    let mut command = Command::new(compiler);
    command.args(flags).args(objects).arg("-o").arg(output);
    command
}

fn check_ran(outputs: Vec<std::process::Output>) {
    for output in outputs {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_str().unwrap().to_string()
}

/// The text between `start` and the next line holding only `end`.
fn section<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no {start} in {text}"))
        + start.len();
    let rest = &text[from..];
    let to = rest
        .lines()
        .scan(0, |offset, line| {
            let at = *offset;
            *offset += line.len() + 1;
            Some((at, line))
        })
        .find(|(_, line)| line.trim().trim_end_matches(',') == end)
        .map_or(rest.len(), |(at, _)| at);
    &rest[..to]
}

/// The `"key": value` lines of a flat JSON object, as text.
fn flat_object(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim().trim_end_matches(',');
            let (key, value) = line.strip_prefix('"')?.split_once("\": ")?;
            Some((key.to_string(), value.to_string()))
        })
        .collect()
}
