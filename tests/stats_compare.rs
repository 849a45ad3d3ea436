//! `dwarfsmith stats --compare A B` on two builds of one fixture: llc-19's
//! object (A) and dwarfsmith's (B) of fixtures/ll/inlining.O2.ll, text and
//! JSON, exact.

mod support;

use std::process::Command;

use expect_test::{expect, Expect};

fn check(json: bool, expected: Expect) {
    let dir = tempfile::tempdir().unwrap();
    let input = support::fixture("ll/inlining.O2.ll");
    support::stdout_of(
        Command::new("llc-19")
            .args(["-O2", "-filetype=obj"])
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join("llc.o")),
    );
    support::stdout_of(
        Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
            .arg("compile")
            .arg(&input)
            .arg("-o")
            .arg(dir.path().join("ds.o")),
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_dwarfsmith"));
    command.args(["stats", "--compare", "llc.o", "ds.o"]);
    if json {
        command.arg("--json");
    }
    expected.assert_eq(&support::stdout_of(command.current_dir(dir.path())));
}

#[test]
fn compare_text() {
    check(
        false,
        expect![[r#"
            A: llc.o
            B: ds.o
            function / variable                       A covered/scope          B covered/scope  verdict
            energy:inlining.c:15                      558/662 (84.3%)          884/996 (88.8%)  better
              vp0.samples                            147/147 (100.0%)         233/233 (100.0%)  changed
              vp1.n                                  147/147 (100.0%)         233/233 (100.0%)  changed
              ve                                      141/147 (95.9%)         233/233 (100.0%)  better
              v0.i                                    113/137 (82.5%)          152/182 (83.5%)  better
              v0.0.s                                    10/84 (11.9%)                        -  only A
              v0.0.0.s                                              -           33/115 (28.7%)  only B
            clamp:inlining.c:8                        191/208 (91.8%)          257/296 (86.8%)  worse
              vp0.v                                     42/52 (80.8%)            35/74 (47.3%)  worse
              vp1.lo                                   52/52 (100.0%)           74/74 (100.0%)  changed
              vp2.hi                                   52/52 (100.0%)           74/74 (100.0%)  changed
              vout                                      45/52 (86.5%)           74/74 (100.0%)  better
            square:inlining.c:3                        10/10 (100.0%)            20/40 (50.0%)  worse
              vp0.v                                    10/10 (100.0%)           20/20 (100.0%)  changed
              vsq                                                   -              0/20 (0.0%)  only B
            functions: better 1 worse 2 changed 0 same 0 only A 0 only B 0
            variables: better 3 worse 1 changed 5 same 0 only A 1 only B 2
        "#]],
    );
}

#[test]
fn compare_json() {
    check(
        true,
        expect![[r#"
            {
              "a": "llc.o",
              "b": "ds.o",
              "functions": [
                {"function": "energy:inlining.c:15", "verdict": "better", "a": {"covered": 558, "scope_bytes": 662}, "b": {"covered": 884, "scope_bytes": 996}},
                {"function": "clamp:inlining.c:8", "verdict": "worse", "a": {"covered": 191, "scope_bytes": 208}, "b": {"covered": 257, "scope_bytes": 296}},
                {"function": "square:inlining.c:3", "verdict": "worse", "a": {"covered": 10, "scope_bytes": 10}, "b": {"covered": 20, "scope_bytes": 40}}
              ],
              "variables": [
                {"function": "energy:inlining.c:15", "variable": "vp0.samples", "verdict": "changed", "a": {"covered": 147, "scope_bytes": 147}, "b": {"covered": 233, "scope_bytes": 233}},
                {"function": "energy:inlining.c:15", "variable": "vp1.n", "verdict": "changed", "a": {"covered": 147, "scope_bytes": 147}, "b": {"covered": 233, "scope_bytes": 233}},
                {"function": "energy:inlining.c:15", "variable": "ve", "verdict": "better", "a": {"covered": 141, "scope_bytes": 147}, "b": {"covered": 233, "scope_bytes": 233}},
                {"function": "energy:inlining.c:15", "variable": "v0.i", "verdict": "better", "a": {"covered": 113, "scope_bytes": 137}, "b": {"covered": 152, "scope_bytes": 182}},
                {"function": "energy:inlining.c:15", "variable": "v0.0.s", "verdict": "only A", "a": {"covered": 10, "scope_bytes": 84}, "b": null},
                {"function": "clamp:inlining.c:8", "variable": "vp0.v", "verdict": "worse", "a": {"covered": 42, "scope_bytes": 52}, "b": {"covered": 35, "scope_bytes": 74}},
                {"function": "clamp:inlining.c:8", "variable": "vp1.lo", "verdict": "changed", "a": {"covered": 52, "scope_bytes": 52}, "b": {"covered": 74, "scope_bytes": 74}},
                {"function": "clamp:inlining.c:8", "variable": "vp2.hi", "verdict": "changed", "a": {"covered": 52, "scope_bytes": 52}, "b": {"covered": 74, "scope_bytes": 74}},
                {"function": "clamp:inlining.c:8", "variable": "vout", "verdict": "better", "a": {"covered": 45, "scope_bytes": 52}, "b": {"covered": 74, "scope_bytes": 74}},
                {"function": "square:inlining.c:3", "variable": "vp0.v", "verdict": "changed", "a": {"covered": 10, "scope_bytes": 10}, "b": {"covered": 20, "scope_bytes": 20}},
                {"function": "energy:inlining.c:15", "variable": "v0.0.0.s", "verdict": "only B", "a": null, "b": {"covered": 33, "scope_bytes": 115}},
                {"function": "square:inlining.c:3", "variable": "vsq", "verdict": "only B", "a": null, "b": {"covered": 0, "scope_bytes": 20}}
              ],
              "summary": {
                "functions": {"better": 1, "worse": 2, "changed": 0, "same": 0, "only A": 0, "only B": 0},
                "variables": {"better": 3, "worse": 1, "changed": 5, "same": 0, "only A": 1, "only B": 2}
              }
            }
        "#]],
    );
}
