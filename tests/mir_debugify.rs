//! `dwarfsmith compile --mir-debugify`: every MIR definition gets a
//! synthetic DBG_VALUE after instruction selection, and stderr says which
//! of those variables the machine passes left without a location range (or
//! without one at their last use), in LLVM's wording; the object is the
//! same as without the flag.

mod support;

use support::*;

fn report(ll: &str, level: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(&format!("ll/{ll}"));
    let with = dir.path().join("with.o");
    let without = dir.path().join("without.o");
    let out = dwarfsmith(&[
        "compile",
        level,
        "--mir-debugify",
        input.to_str().unwrap(),
        "-o",
        with.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plain = dwarfsmith(&[
        "compile",
        level,
        input.to_str().unwrap(),
        "-o",
        without.to_str().unwrap(),
    ]);
    assert!(plain.status.success());
    assert!(plain.stderr.is_empty());
    assert_eq!(
        std::fs::read(&with).unwrap(),
        std::fs::read(&without).unwrap(),
        "--mir-debugify changed the object"
    );
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn mir_debugify_of_sort_at_o0_names_the_flag_values_that_never_get_a_range() {
    assert_eq!(
        report("sort.O0.ll", "-O0"),
        "WARNING: Missing variable 17 in function insertion_sort: no location range (defined by `%23 = SETG in bb.5`)\n\
         WARNING: Missing variable 18 in function insertion_sort: no location range (defined by `%24 = COPY %23 in bb.5`)\n\
         Machine IR debug info check: FAIL\n"
    );
}

#[test]
fn mir_debugify_of_arith_temps_at_o0_passes() {
    assert_eq!(
        report("arith_temps.O0.ll", "-O0"),
        "Machine IR debug info check: PASS\n"
    );
}
