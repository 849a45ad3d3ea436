//! Source-based coverage: `fixtures/src/coverage/cov_lib.c` instrumented
//! by clang-19 (`-O2 -g -fprofile-instr-generate -fcoverage-mapping`),
//! whose counters and profile data sit in `comdat nodeduplicate` groups and
//! whose data records point at their counters with 64-bit PC-relative
//! differences (R_X86_64_PC64). Our object, linked with the profile
//! runtime and run, gives llvm-cov-19 the same report as llc-19's object of
//! the same IR; the nodeduplicate members are in no COMDAT group (the
//! coverage records' `comdat any` groups stay COMDAT groups, as llc writes
//! them); both verifiers accept the object.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use expect_test::expect;
use support::{compile_ll, dwarfdump_verify, fixture, llc_object, readelf, stdout_of};

/// Links `object` with cov_main.c and the profile runtime, runs it, and
/// returns llvm-cov-19's line report of cov_lib.c.
fn coverage_report(dir: &Path, object: &Path, name: &str) -> String {
    let exe = dir.join(name);
    stdout_of(
        Command::new("clang-19")
            .arg("-fprofile-instr-generate")
            .arg(object)
            .arg(fixture("src/coverage/cov_main.c"))
            .arg("-o")
            .arg(&exe),
    );
    let raw = dir.join(format!("{name}.profraw"));
    let printed = stdout_of(Command::new(&exe).env("LLVM_PROFILE_FILE", &raw));
    assert_eq!(printed, "149\n");
    let data = dir.join(format!("{name}.profdata"));
    stdout_of(
        Command::new("llvm-profdata-19")
            .args(["merge", "-o"])
            .arg(&data)
            .arg(&raw),
    );
    stdout_of(
        Command::new("llvm-cov-19")
            .arg("show")
            .arg(&exe)
            .arg(format!("-instr-profile={}", data.display()))
            .arg(fixture("src/coverage/cov_lib.c")),
    )
}

#[test]
fn nodeduplicate_groups_count_as_llc_19s_do() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let ll: PathBuf = dir.join("cov_lib.ll");
    stdout_of(
        Command::new("clang-19")
            .args([
                "-O2",
                "-g",
                "-fprofile-instr-generate",
                "-fcoverage-mapping",
            ])
            .args(["-S", "-emit-llvm", "-o"])
            .arg(&ll)
            .arg(fixture("src/coverage/cov_lib.c")),
    );
    let ir = std::fs::read_to_string(&ll).unwrap();
    assert!(ir.contains("$__profc_walk = comdat nodeduplicate"));

    let ours = compile_ll(dir, &ll, "ours", &[]);
    let (clean, text) = dwarfdump_verify(&ours);
    assert!(clean, "{text}");
    let path = ours.to_str().unwrap();
    for args in [vec!["verify", path], vec!["verify", "--locations", path]] {
        let out = support::dwarfsmith(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let groups: Vec<String> = readelf("-g", &ours)
        .lines()
        .filter(|l| l.contains("group section"))
        .map(|l| l.split('[').nth(2).unwrap_or(l).trim().to_string())
        .collect();
    assert_eq!(groups.len(), 4, "{groups:?}");
    assert!(
        groups.iter().all(|g| g.starts_with("__covrec_")),
        "{groups:?}"
    );

    let reference = dir.join("llc.o");
    llc_object(&ll, &reference, &["-relocation-model=pic"]);
    let pc64 = |object: &Path| readelf("-r", object).matches("R_X86_64_PC64").count();
    assert_eq!(pc64(&ours), 4);
    assert_eq!(pc64(&ours), pc64(&reference));
    let expected = coverage_report(dir, &reference, "llc");
    assert_eq!(coverage_report(dir, &ours, "ours"), expected);
    // Line numbers are right-aligned; the snapshot shows the lines trimmed.
    let trimmed: Vec<&str> = expected.lines().map(str::trim_start).collect();
    expect![[r#"
        1|       |/* Instrumented for source-based coverage (clang -fprofile-instr-generate
        2|       |   -fcoverage-mapping): each function's counters and profile data are in a
        3|       |   `comdat nodeduplicate` group. */
        4|     39|int pick(int x) { return x > 3 ? x * 2 : x - 1; }
        5|       |
        6|     29|static inline int step(int y) { return y + 1; }
        7|       |
        8|     10|int walk(int z) {
        9|     10|  int total = 0;
        10|     39|  for (int i = 0; i < z; i++)
        11|     29|    total += step(i) + pick(i);
        12|     10|  return total;
        13|     10|}
        14|       |
        15|      0|int never(int x) { return x * x; }
    "#]]
    .assert_eq(&trimmed.join("\n"));
}
