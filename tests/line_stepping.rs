//! Stepping with gdb `next` through every corpus function: dwarfsmith on
//! clang's -O2 IR against llc-19 on the same IR, each scored against the
//! line order of llc-19's -O0 build.
//!
//! Score of a run: over consecutive stops (a, b) with a != b in one
//! function, the share where line b is stopped at after line a somewhere
//! in the -O0 run of that function (source order as -O0 steps it); and the
//! number of distinct (function, line) stops. Each function is stepped in
//! its first call, with the other functions' breakpoints disabled (a
//! function called only from a stepped one is stepped over).

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{fixture, link_with_driver, run};

/// The corpus programs (fixtures/src/*.c without the drivers).
fn programs() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture("src"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let stem = name.strip_suffix(".c")?;
            (!stem.ends_with(".driver")).then(|| stem.to_string())
        })
        .collect();
    names.sort();
    names
}

/// The functions `define`d in fixtures/ll/PROGRAM.O0.ll.
fn functions(program: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixture(&format!("ll/{program}.O0.ll"))).unwrap();
    text.lines()
        .filter(|l| l.starts_with("define "))
        .filter_map(|l| {
            let at = l.find('@')?;
            let rest = &l[at + 1..];
            Some(rest[..rest.find('(')?].to_string())
        })
        .collect()
}

fn llc(dir: &Path, ll_name: &str, level: &str) -> PathBuf {
    let object = dir.join(format!("{ll_name}.llc{level}.o"));
    let out = run(Command::new("llc-19")
        .args([level, "-filetype=obj", "--relocation-model=pic"])
        .arg(fixture(&format!("ll/{ll_name}")))
        .arg("-o")
        .arg(&object));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

fn ours(dir: &Path, ll_name: &str) -> PathBuf {
    support::compile_fixture(dir, ll_name, &["-O2"])
}

/// Per function, the lines gdb stops at stepping its first call.
fn steps(exe: &Path, functions: &[String]) -> BTreeMap<String, Vec<u32>> {
    let out = run(Command::new("timeout")
        .args(["60", "gdb", "-nx", "-batch", "-x"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/gdb_step.py"))
        .arg(exe)
        .env("STEP_FUNCTIONS", functions.join(","))
        .env("STEP_MAX", "300"));
    let mut stops: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() == 3 && fields[0] == "STEP" {
            stops
                .entry(fields[1].to_string())
                .or_default()
                .push(fields[2].parse().unwrap_or(0));
        }
    }
    stops
}

/// (ordered transitions, transitions, distinct stops) of `run` against
/// the -O0 stops `reference`.
fn score(
    run: &BTreeMap<String, Vec<u32>>,
    reference: &BTreeMap<String, Vec<u32>>,
) -> (usize, usize, usize) {
    let mut ordered = 0;
    let mut total = 0;
    let mut distinct = 0;
    for (function, lines) in run {
        distinct += lines.iter().collect::<BTreeSet<_>>().len();
        let order = reference.get(function).cloned().unwrap_or_default();
        for pair in lines.windows(2).filter(|p| p[0] != p[1]) {
            total += 1;
            let follows = order
                .iter()
                .enumerate()
                .any(|(i, &a)| a == pair[0] && order[i + 1..].contains(&pair[1]));
            ordered += usize::from(follows);
        }
    }
    (ordered, total, distinct)
}

#[test]
fn dwarfsmith_steps_in_source_order_at_least_as_well_as_llc() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = String::new();
    let mut worse = Vec::new();
    for program in programs() {
        let functions = functions(&program);
        let reference = link_with_driver(
            dir.path(),
            &llc(dir.path(), &format!("{program}.O0.ll"), "-O0"),
            &program,
        );
        let theirs = link_with_driver(
            dir.path(),
            &llc(dir.path(), &format!("{program}.O2.ll"), "-O2"),
            &program,
        );
        let ours = link_with_driver(
            dir.path(),
            &ours(dir.path(), &format!("{program}.O2.ll")),
            &program,
        );
        let reference = steps(&reference, &functions);
        let (llc_ordered, llc_total, llc_distinct) = score(&steps(&theirs, &functions), &reference);
        let (our_ordered, our_total, our_distinct) = score(&steps(&ours, &functions), &reference);
        let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
        let (llc_score, our_score) = (ratio(llc_ordered, llc_total), ratio(our_ordered, our_total));
        report.push_str(&format!(
            "{program:<16} llc-19 {llc_ordered}/{llc_total} = {llc_score:.3}, {llc_distinct} lines; dwarfsmith {our_ordered}/{our_total} = {our_score:.3}, {our_distinct} lines\n"
        ));
        if our_score < llc_score || our_distinct < llc_distinct {
            worse.push(format!(
                "{program}: llc-19 {llc_ordered}/{llc_total}, {llc_distinct} lines; dwarfsmith {our_ordered}/{our_total}, {our_distinct} lines"
            ));
        }
    }
    println!("{report}");
    assert_eq!(worse, Vec::<String>::new(), "{report}");
}
