//! gdb never shows a wrong value: for every corpus program compiled from its
//! -O2 IR, gdb stops on every source line that has code and prints every
//! variable in scope; each value must be one the gcc -O0 or clang-19 -O0
//! build of the same C source shows for that variable at that line (on any
//! visit), or `<optimized out>`. (Both, because each stops on a loop's
//! condition line differently: gcc -O0 tests a `while` at the bottom, so a
//! breakpoint on its line stops only on entry, while clang -O0 stops there on
//! every iteration, as optimised code with the test at the top does.) Before a local's first assignment any value is
//! accepted: on its declaration line and before, and wherever the reference
//! shows it unassigned (the reference is built with
//! `-ftrivial-auto-var-init=pattern`, so a local declared without an
//! initializer shows gcc's 0xFE fill pattern until it is assigned). The same
//! walk over llc-19's object of the same IR is reported beside ours for
//! comparison. The same judge also walks our `compile -O2` of the program's
//! clang -O0 IR (our optimiser, then codegen): 0 wrong values there too; and
//! the same with `--assignment-tracking=false`, printed beside it: tracking
//! on must show at least as many correct values as off.

#[macro_use]
mod support;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;
use support::*;

/// How often the checked builds stop on each line; the reference stops far
/// more often, so that every value the checked build can show at a line within
/// its first visits is among the reference's.
const CHECKED_HITS: u32 = 20;
/// How often the gcc -O0 reference stops on each line.
const REFERENCE_HITS: u32 = 400;

/// One variable as gdb printed it at one stop.
struct Shown {
    function: String,
    line: u32,
    name: String,
    is_local: bool,
    decl_line: u32,
    value: String,
}

/// Runs the gdb walker on `exe`, breaking on every line of the file that
/// defines `anchor` (each line at most `max_hits` times); returns every
/// variable printed at every stop.
fn walk(exe: &Path, anchor: &str, max_hits: u32) -> Vec<Shown> {
    let out = run(Command::new("gdb")
        .args(["-nx", "-batch", "-x"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/gdb_walk.py"))
        .arg(exe)
        .env("WALK_FUNCTION", anchor)
        .env("WALK_MAX_HITS", max_hits.to_string()));
    let text = String::from_utf8_lossy(&out.stdout);
    let mut shown = Vec::new();
    let (mut function, mut line) = (String::new(), 0);
    for row in text.lines() {
        let fields: Vec<&str> = row.split('\t').collect();
        match fields.as_slice() {
            ["STOP", f, l] => {
                function = f.to_string();
                line = l.parse().unwrap();
            }
            ["VAR", name, kind, decl_line, value] => shown.push(Shown {
                function: function.clone(),
                line,
                name: name.to_string(),
                is_local: *kind == "local",
                decl_line: decl_line.parse().unwrap(),
                value: value.to_string(),
            }),
            _ => {}
        }
    }
    assert!(
        !shown.is_empty(),
        "the gdb walk of {} stopped nowhere:\n{text}\n{}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    shown
}

/// The name of the first function defined in a .ll file.
fn first_defined_function(ll: &str) -> String {
    let text = std::fs::read_to_string(fixture(&format!("ll/{ll}"))).unwrap();
    let line = text.lines().find(|l| l.starts_with("define ")).unwrap();
    let start = line.find('@').unwrap() + 1;
    let end = start + line[start..].find('(').unwrap();
    line[start..end].to_string()
}

/// Counts of what a walk showed.
#[derive(Debug, Default)]
struct Tally {
    available: usize,
    optimized_out: usize,
    wrong: Vec<String>,
}

/// Whether a reference value is (or contains) gcc's fill pattern for a local
/// not yet assigned: 0xFE bytes read as a char, short, int, long or pointer.
fn is_unassigned(value: &str) -> bool {
    const PATTERNS: [&str; 9] = [
        "-16843010",
        "4278124286",
        "-72340172838076674",
        "18374403900871474942",
        "0xfefefefe",
        "\\376",
        "-258",
        "65278",
        "-2 '",
    ];
    PATTERNS.iter().any(|p| value.contains(p))
}

/// Whether a value shown matches a reference value: equal, where each
/// `<optimized out>` part (a field or element whose piece is unavailable)
/// stands for whatever the reference shows there.
fn matches_reference(shown: &str, reference: &str) -> bool {
    const HOLE: &str = "<optimized out>";
    let mut parts = shown.split(HOLE);
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = reference.strip_prefix(first) else {
        return false;
    };
    for part in parts {
        // A hole spans one field value: up to the next ',' or '}' at this depth.
        let hole_end = rest.find([',', '}']).unwrap_or(rest.len());
        rest = &rest[hole_end..];
        let Some(after) = rest.strip_prefix(part) else {
            return false;
        };
        rest = after;
    }
    rest.is_empty()
}

fn judge(shown: &[Shown], reference: &HashMap<(String, u32, String), HashSet<String>>) -> Tally {
    let mut tally = Tally::default();
    for s in shown {
        if s.value == "<optimized out>" {
            tally.optimized_out += 1;
            continue;
        }
        tally.available += 1;
        let key = (s.function.clone(), s.line, s.name.clone());
        let seen = reference.get(&key);
        // A local whose declaration (with its initializer) has not run yet.
        let before_declaration = s.is_local && s.line <= s.decl_line;
        let ok = !s.value.starts_with("<error")
            && (before_declaration
                || seen.is_some_and(|values| {
                    values
                        .iter()
                        .any(|v| is_unassigned(v) || matches_reference(&s.value, v))
                }));
        if !ok {
            tally.wrong.push(format!(
                "{}:{} {} = {} (gcc -O0 shows {:?})",
                s.function, s.line, s.name, s.value, seen
            ));
        }
    }
    tally
}

fn check(program: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ll = format!("{program}.O2.ll");
    let anchor = first_defined_function(&ll);

    let mut reference: HashMap<(String, u32, String), HashSet<String>> = HashMap::new();
    for compiler in ["gcc", "clang-19"] {
        let reference_exe = dir.path().join(format!("reference-{compiler}"));
        let out = run(Command::new(compiler)
            .args(["-g", "-O0", "-ftrivial-auto-var-init=pattern"])
            .arg(fixture(&format!("src/{program}.c")))
            .arg(fixture(&format!("src/{program}.driver.c")))
            .arg("-o")
            .arg(&reference_exe));
        assert!(
            out.status.success(),
            "{compiler} -O0 build of {program} failed"
        );
        for s in walk(&reference_exe, &anchor, REFERENCE_HITS) {
            reference
                .entry((s.function, s.line, s.name))
                .or_default()
                .insert(s.value);
        }
    }

    let object = compile_fixture(dir.path(), &ll, &[]);
    let exe = link_with_driver(dir.path(), &object, program);
    let ours = judge(&walk(&exe, &anchor, CHECKED_HITS), &reference);

    let llc_object = dir.path().join("llc.o");
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-relocation-model=pic"])
        .arg(fixture(&format!("ll/{ll}")))
        .arg("-o")
        .arg(&llc_object));
    assert!(out.status.success(), "llc-19 failed on {ll}");
    let llc_exe = link_with_driver(dir.path(), &llc_object, program);
    let llc = judge(&walk(&llc_exe, &anchor, CHECKED_HITS), &reference);

    println!(
        "{program}: dwarfsmith shows {} values ({} optimized out); llc-19 shows {} ({} optimized out, {} not confirmed by the -O0 references)",
        ours.available,
        ours.optimized_out,
        llc.available,
        llc.optimized_out,
        llc.wrong.len()
    );
    let optimised_dir = dir.path().join("optimised");
    std::fs::create_dir(&optimised_dir).unwrap();
    let optimised_object = compile_fixture(&optimised_dir, &format!("{program}.O0.ll"), &["-O2"]);
    let optimised_exe = link_with_driver(&optimised_dir, &optimised_object, program);
    let optimised = judge(&walk(&optimised_exe, &anchor, CHECKED_HITS), &reference);
    println!(
        "{program}: dwarfsmith -O2 of -O0 IR shows {} values ({} optimized out, {} wrong)",
        optimised.available,
        optimised.optimized_out,
        optimised.wrong.len()
    );
    // The same without assignment tracking (dbg.declare through the passes).
    let untracked_dir = dir.path().join("untracked");
    std::fs::create_dir(&untracked_dir).unwrap();
    let untracked_object = compile_fixture(
        &untracked_dir,
        &format!("{program}.O0.ll"),
        &["-O2", "--assignment-tracking=false"],
    );
    let untracked_exe = link_with_driver(&untracked_dir, &untracked_object, program);
    let untracked = judge(&walk(&untracked_exe, &anchor, CHECKED_HITS), &reference);
    let correct = |t: &Tally| t.available - t.wrong.len();
    println!(
        "{program}: assignment tracking on: {} correct, {} wrong, {} optimized out; off: {} correct, {} wrong, {} optimized out",
        correct(&optimised),
        optimised.wrong.len(),
        optimised.optimized_out,
        correct(&untracked),
        untracked.wrong.len(),
        untracked.optimized_out
    );
    assert!(
        correct(&optimised) >= correct(&untracked),
        "{program}: assignment tracking shows fewer correct values ({}) than without it ({})",
        correct(&optimised),
        correct(&untracked)
    );
    assert!(
        optimised.wrong.is_empty(),
        "{program}: gdb showed {} wrong value(s) in dwarfsmith's -O2 of -O0 IR:\n{}",
        optimised.wrong.len(),
        optimised.wrong.join("\n")
    );
    assert!(
        ours.wrong.is_empty(),
        "{program}: gdb showed {} wrong value(s) in dwarfsmith's build:\n{}",
        ours.wrong.len(),
        ours.wrong.join("\n")
    );
}

macro_rules! variable_tests {
    ($($program:ident),* $(,)?) => {
        $(
            #[test]
            fn $program() { check(stringify!($program)) }
        )*
    };
}

corpus_programs!(variable_tests);
