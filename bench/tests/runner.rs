//! bench-run end to end, with stand-ins for dwarfsmith: a script that runs
//! llc-19 under dwarfsmith's command line, failing on chosen inputs.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const BENCH_RUN: &str = env!("CARGO_BIN_EXE_bench-run");

mod support;

fn llc_installed() -> bool {
    let installed = support::find_tool("llc-19").is_some();
    if !installed {
        eprintln!("\n!!! SKIPPED: llc-19 is not installed; bench-run was NOT exercised !!!\n");
    }
    installed
}

/// A stand-in `dwarfsmith compile IN -o OUT` that runs llc-19, except that it
/// fails like a compiler with a diagnostic on inputs whose name contains
/// `fail_on`, and exits 0 without writing anything (like a stub) on inputs
/// whose name contains `stub_on`.
fn stand_in(directory: &Path, fail_on: &str, stub_on: &str) -> PathBuf {
    let path = directory.join("dwarfsmith-stand-in");
    let script = format!(
        "#!/bin/sh\n[ \"$1\" = compile ] || exit 2\nshift\n\
         case \"$1\" in *{fail_on}*) echo \"$1:1:1: error: unsupported by the stand-in\" >&2; exit 1;; esac\n\
         case \"$1\" in *{stub_on}*) exit 0;; esac\n\
         exec llc-19 -O2 -filetype=obj -relocation-model=pic \"$@\"\n"
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A corpus directory with three -O2 files and one intrinsics variant (which must be skipped).
fn small_corpus(directory: &Path) -> PathBuf {
    let corpus = directory.join("ll");
    std::fs::create_dir(&corpus).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/ll");
    for name in [
        "bits.O2.ll",
        "licm.O2.ll",
        "switch_table.O2.ll",
        "licm.O2.intrinsics.ll",
    ] {
        std::fs::copy(fixtures.join(name), corpus.join(name)).unwrap();
    }
    corpus
}

fn bench_run(args: &[&str]) -> String {
    let output = Command::new(BENCH_RUN).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "bench-run failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn timing_table_has_a_row_per_input_and_shows_failures() {
    if !llc_installed() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let compiler = stand_in(directory.path(), "switch_table", "bits");
    let corpus = small_corpus(directory.path());
    let work = directory.path().join("work");
    let table = bench_run(&[
        "--keep",
        work.to_str().unwrap(),
        "--dwarfsmith",
        compiler.to_str().unwrap(),
        "--corpus",
        corpus.to_str().unwrap(),
        "--repetitions",
        "2",
        "--functions",
        "20",
    ]);
    let mut rows: Vec<&str> = table.lines().skip(3).collect();
    assert_eq!(rows.len(), 6, "{table}");
    // bits: the stand-in exited 0 without an object, which is a failure, not a fast run.
    let stub_row: Vec<&str> = rows[1].split_whitespace().collect();
    assert_eq!(stub_row[..2], ["bits.O2.ll", "FAILED"], "{table}");
    assert_eq!(
        rows[2],
        format!(
            "    dwarfsmith FAILED: exited with status 0 but wrote no ELF object to {}",
            work.join("bits.O2.dwarfsmith.o").display()
        )
    );
    assert!(
        work.join("bits.O2.llc.o").exists(),
        "--keep keeps the objects"
    );
    rows.drain(1..3);
    // The generated module and licm: both compilers ran, so every cell is a number.
    for (row, input) in rows.iter().zip(["bench_module.ll", "licm.O2.ll"]) {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[0], input, "{table}");
        assert_eq!(cells.len(), 11, "{row}");
        for ratio in [cells[5], cells[10]] {
            let ratio: f64 = ratio.parse().unwrap_or_else(|_| panic!("{row}"));
            assert!(ratio > 0.0, "{row}");
        }
    }
    // switch_table: the stand-in failed, so dwarfsmith's cells say FAILED with its diagnostic.
    let failed: Vec<&str> = rows[2].split_whitespace().collect();
    assert_eq!(failed[0], "switch_table.O2.ll");
    assert_eq!(failed[1], "FAILED", "{table}");
    assert_eq!(failed[4], "-", "{table}");
    let switch_table = corpus.join("switch_table.O2.ll");
    assert_eq!(
        rows[3],
        format!(
            "    dwarfsmith FAILED: {}:1:1: error: unsupported by the stand-in",
            switch_table.display()
        )
    );
    assert!(!table.contains("intrinsics"), "{table}");
}

#[test]
fn coverage_mode_reads_llvm_dwarfdump_statistics() {
    if !llc_installed() {
        return;
    }
    let directory = tempfile::tempdir().unwrap();
    let compiler = stand_in(directory.path(), "no-such-input", "no-such-input");
    let corpus = small_corpus(directory.path());
    let table = bench_run(&[
        "--dwarfsmith",
        compiler.to_str().unwrap(),
        "--corpus",
        corpus.to_str().unwrap(),
        "--coverage",
    ]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "{table}");
    let cells = |line: &str| {
        line.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // The stand-in is llc-19, so both columns agree; licm's figures are llc-19's own
    // (llvm-dwarfdump-19 --statistics on llc-19 -O2 output).
    assert_eq!(
        cells(lines[2]),
        ["licm.O2.ll", "91.0%", "(873/959)", "91.0%", "(873/959)"]
    );
    for (line, input) in lines[1..]
        .iter()
        .zip(["bits.O2.ll", "licm.O2.ll", "switch_table.O2.ll"])
    {
        let row = cells(line);
        assert_eq!(row[0], input, "{table}");
        assert_eq!(row[1..3], row[3..5], "{table}");
    }
    // The total sums the bytes of the three programs.
    let bytes = |cell: &str| -> (u64, u64) {
        let (covered, scope) = cell.trim_matches(['(', ')']).split_once('/').unwrap();
        (covered.parse().unwrap(), scope.parse().unwrap())
    };
    let sums = lines[1..4]
        .iter()
        .map(|line| bytes(&cells(line)[2]))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let total = cells(lines[4]);
    assert_eq!(total[..3], ["total", "(both", "succeeded)"], "{table}");
    assert_eq!(bytes(&total[4]), sums, "{table}");
}

#[test]
fn the_measuring_helper_keeps_the_runners_size_out_of_a_childs_peak_rss() {
    let output = Command::new(BENCH_RUN)
        .args(["__measure-child", "/bin/true"])
        .output()
        .unwrap();
    let line = String::from_utf8(output.stdout).unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields[0], "finished", "{line}");
    let peak_kib: u64 = fields[2].parse().unwrap();
    assert!(peak_kib < 8 * 1024, "/bin/true peaked at {peak_kib} KiB");
    let failing = Command::new(BENCH_RUN)
        .args(["__measure-child", "/bin/false"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(failing.stdout).unwrap(),
        "failed exited with status 1\n"
    );
}
