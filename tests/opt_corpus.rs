//! The optimiser on the whole corpus: every program's clang -O0 IR,
//! compiled with `dwarfsmith compile -O2` (our pipeline, then codegen),
//! links with its driver and prints exactly the expected output; the object
//! passes llvm-dwarfdump --verify, and its `.text` is identical with -g0.
//! `opt -O2` output passes `opt-19 -passes=verify`, and
//! `opt --debugify-each -O2 --debugify-export` writes LLVM's CSV with no
//! missing location for the passes whose rule is preserve (declare-to-assign, sroa, mem2reg, inline,
//! simplifycfg, dce, loop-rotate, sink); the merge and drop passes' counts are
//! printed.

mod support;

use std::process::Command;
use support::*;

fn check(program: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ll = format!("{program}.O0.ll");
    let object = compile_fixture(dir.path(), &ll, &["-O2"]);
    let exe = link_with_driver(dir.path(), &object, program);
    assert_eq!(
        run_program(&exe),
        expected_output(program),
        "{program} -O2 of -O0 IR"
    );
    let (ok, text) = dwarfdump_verify(&object);
    assert!(
        ok,
        "llvm-dwarfdump --verify on {program} -O2 of -O0 IR:\n{text}"
    );
    let nodebug_dir = dir.path().join("g0");
    std::fs::create_dir(&nodebug_dir).unwrap();
    let nodebug = compile_fixture(&nodebug_dir, &ll, &["-O2", "-g0"]);
    assert_eq!(
        text_section(dir.path(), &object),
        text_section(&nodebug_dir, &nodebug),
        "{program}: .text differs between -g and -g0"
    );

    let optimised = dir.path().join("opt.ll");
    let csv = dir.path().join("each.csv");
    let input = fixture(&format!("ll/{ll}"));
    let out = dwarfsmith(&[
        "opt",
        input.to_str().unwrap(),
        "-O2",
        "-o",
        optimised.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(Command::new("opt-19")
        .args(["-passes=verify", "-disable-output"])
        .arg(&optimised));
    assert!(
        out.status.success(),
        "opt-19 rejects our -O2 of {program}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = dwarfsmith(&[
        "opt",
        input.to_str().unwrap(),
        "-O2",
        "--debugify-each",
        "--debugify-export",
        csv.to_str().unwrap(),
        "-o",
        optimised.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(csv).unwrap();
    let mut rows = csv.lines();
    assert_eq!(
        rows.next(),
        Some("Pass Name,# of missing debug values,# of missing locations,Missing/Expected value ratio,Missing/Expected location ratio")
    );
    let rows: Vec<Vec<&str>> = rows.map(|r| r.split(',').collect()).collect();
    let names: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        names,
        [
            "declare-to-assign",
            "sroa",
            "mem2reg",
            "instcombine",
            "simplifycfg",
            "inline",
            "instcombine",
            "simplifycfg",
            "hoist-common",
            "mldst-motion",
            "speculate-diamonds",
            "loop-rotate",
            "early-cse",
            "dse",
            "licm",
            "lsr",
            "licm",
            "dce",
            "instcombine",
            "sink",
            "simplifycfg",
            "dce",
            "split-backedges"
        ]
    );
    // Passes whose rule is preserve lose no location; merge (instcombine's
    // fused operations, early-cse) and drop (speculate-diamonds, licm) may.
    for row in rows.iter().filter(|r| {
        matches!(
            r[0],
            "declare-to-assign"
                | "sroa"
                | "mem2reg"
                | "simplifycfg"
                | "inline"
                | "dce"
                | "loop-rotate"
                | "sink"
        )
    }) {
        assert_eq!(row[2], "0", "{program}: {} lost locations: {csv}", row[0]);
        assert_eq!(row[4], "0.000000e+00", "{program}: {csv}");
    }
    println!("{program}:\n{csv}");
}

macro_rules! corpus_tests {
    ($($program:ident),* $(,)?) => {
        $(
            #[test]
            fn $program() { check(stringify!($program)) }
        )*
    };
}

corpus_tests!(
    arith_temps,
    bits,
    inlining,
    licm,
    many_args,
    matrix,
    pointers,
    recursion,
    select_diamond,
    sort,
    strings,
    structs,
    sum_array,
    switch_table,
);
