//! `bench-realworld`: the real-world harness's programs (Lua 5.4, zlib, bzip2 and
//! lz4 from clang-19 -O2 -g IR, as tests/realworld.rs builds them) compiled by
//! dwarfsmith and by `llc-19 -O2` over the files dwarfsmith compiles: the compile
//! time of both (median of the runs, summed over the files), and each program's
//! run time when built with dwarfsmith's objects vs llc-19's for those files
//! (gcc -O0 objects for the other files in both builds), the two builds run
//! in turn in every round. Every time is the CPU time (user + system) of the
//! measured processes, from `getrusage`.
//!
//! Example: `cargo build --release --bin dwarfsmith && cargo run --release -p dwarfsmith-bench --bin bench-realworld`

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Output, Stdio};

use clap::Parser;

/// What tests/support/realworld.rs uses from the tests' support module.
mod support {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    /// Runs a command and returns its output, panicking if it cannot start.
    pub fn run(command: &mut Command) -> Output {
        command
            .output()
            .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
    }

    /// Path of a file under the repository's `fixtures/`.
    pub fn fixture(relative: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(relative)
    }

    /// The llvm-dwarfdump of LLVM 19.
    pub fn llvm_dwarfdump() -> &'static str {
        "llvm-dwarfdump-19"
    }
}

#[path = "../../../tests/support/realworld.rs"]
mod realworld;

/// Compare dwarfsmith with llc-19 on real C: compile time and program run time.
#[derive(Parser)]
#[command(name = "bench-realworld", about, long_about = None)]
struct Cli {
    /// The dwarfsmith binary (build it with `cargo build --release --bin dwarfsmith`).
    #[arg(long, default_value = "target/release/dwarfsmith")]
    dwarfsmith: PathBuf,
    /// The reference compiler.
    #[arg(long, default_value = "llc-19")]
    llc: PathBuf,
    /// Runs per measurement; the median is shown.
    #[arg(long, default_value_t = 3)]
    repetitions: usize,
    /// Times each program's workload runs within one run-time measurement
    /// (the workloads take a tenth of a second or so; several make the
    /// figure stable).
    #[arg(long, default_value_t = 5)]
    workload_runs: usize,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !cli.dwarfsmith.exists() {
        eprintln!(
            "bench-realworld: error: {} does not exist (cargo build --release --bin dwarfsmith)",
            cli.dwarfsmith.display()
        );
        return ExitCode::FAILURE;
    }
    let dwarfsmith = std::fs::canonicalize(&cli.dwarfsmith).unwrap();
    println!(
        "{:<8} {:>8} {:>12} {:>12} {:>8} {:>12} {:>12} {:>8}",
        "program", "files", "dwarfsmith", "llc-19", "ratio", "run (ds)", "run (llc)", "ratio"
    );
    println!(
        "{:<8} {:>8} {:>12} {:>12} {:>8} {:>12} {:>12} {:>8}",
        "", "compiled", "compile", "compile", "ds/llc", "", "", "ds/llc"
    );
    let (mut total_ds, mut total_llc) = (0.0, 0.0);
    for project in [
        realworld::lua(),
        realworld::zlib(),
        realworld::bzip2(),
        realworld::lz4(),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let build = realworld::build(&project, "clang-19", &dwarfsmith, dir.path());
        let compiled: Vec<String> = build
            .files
            .iter()
            .filter(|(_, result)| result.is_ok())
            .map(|(file, _)| file.trim_end_matches(".c").to_string())
            .collect();

        std::fs::create_dir_all(dir.path().join("llc")).unwrap();
        let (mut ds_time, mut llc_time) = (0.0, 0.0);
        for stem in &compiled {
            let ir = dir.path().join(format!("ir/{stem}.ll"));
            let ds_object = dir.path().join(format!("bench-{stem}.o"));
            let llc_object = dir.path().join(format!("llc/{stem}.o"));
            ds_time += median_seconds(cli.repetitions, || {
                Command::new(&dwarfsmith)
                    .arg("compile")
                    .arg(&ir)
                    .arg("-o")
                    .arg(&ds_object)
                    .status()
                    .is_ok_and(|s| s.success())
            });
            llc_time += median_seconds(cli.repetitions, || {
                Command::new(&cli.llc)
                    .args(["-O2", "-filetype=obj", "-relocation-model=pic"])
                    .arg(&ir)
                    .arg("-o")
                    .arg(&llc_object)
                    .status()
                    .is_ok_and(|s| s.success())
            });
        }
        total_ds += ds_time;
        total_llc += llc_time;

        // The llc-19 program: llc's object where dwarfsmith compiled, gcc's elsewhere.
        let objects: Vec<PathBuf> = build
            .files
            .iter()
            .map(|(file, result)| {
                let stem = file.trim_end_matches(".c");
                match result {
                    Ok(_) => dir.path().join(format!("llc/{stem}.o")),
                    Err(_) => dir.path().join(format!("gcc/{stem}.o")),
                }
            })
            .collect();
        std::fs::create_dir_all(dir.path().join("llc-program")).unwrap();
        let llc_exe = dir.path().join("llc-program").join(project.name);
        let link = support::run(
            Command::new("gcc")
                .args(&objects)
                .arg("-o")
                .arg(&llc_exe)
                .args(&project.libs),
        );
        assert!(
            link.status.success(),
            "{}",
            String::from_utf8_lossy(&link.stderr)
        );

        let runs = cli.workload_runs.max(1);
        let (ds_run, llc_run) = interleaved_medians(
            cli.repetitions,
            || (0..runs).all(|_| workload(project.name, &build.mixed_exe)),
            || (0..runs).all(|_| workload(project.name, &llc_exe)),
        );
        println!(
            "{:<8} {:>8} {:>10.3} s {:>10.3} s {:>8.2} {:>10.3} s {:>10.3} s {:>8.2}",
            project.name,
            format!("{}/{}", compiled.len(), build.files.len()),
            ds_time,
            llc_time,
            ds_time / llc_time,
            ds_run,
            llc_run,
            ds_run / llc_run
        );
    }
    println!(
        "{:<8} {:>8} {:>10.3} s {:>10.3} s {:>8.2}",
        "all",
        "",
        total_ds,
        total_llc,
        total_ds / total_llc
    );
    ExitCode::SUCCESS
}

/// The median, over `repetitions` runs of `run` (which must succeed), of the
/// CPU time (user + system) of the child processes each run waited for.
/// CPU time, unlike wall time, hardly moves when other work shares the
/// machine, so the run-time column can tell two builds of a program apart.
fn median_seconds(repetitions: usize, mut run: impl FnMut() -> bool) -> f64 {
    let mut times: Vec<f64> = (0..repetitions.max(1))
        .map(|_| {
            let before = children_cpu_seconds();
            assert!(run(), "a measured run failed");
            children_cpu_seconds() - before
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The medians, over `repetitions` rounds, of the CPU time of `a` and of
/// `b`, each round running `a` then `b`: load that comes and goes while
/// the benchmark runs then weighs on both programs alike, not on whichever
/// ran while it lasted.
fn interleaved_medians(
    repetitions: usize,
    mut a: impl FnMut() -> bool,
    mut b: impl FnMut() -> bool,
) -> (f64, f64) {
    let mut times_a = Vec::new();
    let mut times_b = Vec::new();
    for _ in 0..repetitions.max(1) {
        times_a.push(median_seconds(1, &mut a));
        times_b.push(median_seconds(1, &mut b));
    }
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };
    (median(times_a), median(times_b))
}

/// User + system CPU seconds of every child this process has waited for so far.
fn children_cpu_seconds() -> f64 {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid for writes for the duration of the call.
    let status = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(status, 0, "getrusage failed");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs the program's workload (what tests/realworld.rs runs); true if it
/// behaved (the Lua error script exits 1 by design).
fn workload(project: &str, exe: &Path) -> bool {
    let quiet = |command: &mut Command| {
        command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.code())
    };
    match project {
        "lua" => {
            let scripts = support::fixture("realworld/lua");
            ["coroutines", "errors", "numbers", "strings", "tables"]
                .iter()
                .all(|script| {
                    let code = quiet(
                        Command::new(exe)
                            .arg(format!("{script}.lua"))
                            .current_dir(&scripts),
                    );
                    code.is_ok_and(|c| c == Some(if *script == "errors" { 1 } else { 0 }))
                })
        }
        "bzip2" => bzip2_round_trip(exe),
        _ => {
            let scratch = tempfile::tempdir().unwrap();
            quiet(Command::new(exe).arg(scratch.path())).is_ok_and(|c| c == Some(0))
        }
    }
}

/// bzip2 -9 then bzip2 -d of the crate's three reference files, concatenated.
fn bzip2_round_trip(exe: &Path) -> bool {
    let samples = realworld::bzip2_dir();
    let scratch = tempfile::tempdir().unwrap();
    let input = scratch.path().join("input");
    let mut data = Vec::new();
    for sample in ["sample1.ref", "sample2.ref", "sample3.ref"] {
        data.extend(std::fs::read(samples.join(sample)).unwrap());
    }
    std::fs::write(&input, &data).unwrap();
    let packed = scratch.path().join("input.bz2");
    let compress = Command::new(exe)
        .args(["-9", "-c"])
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&packed).unwrap())
        .status();
    let decompress: std::io::Result<Output> = Command::new(exe)
        .args(["-d", "-c"])
        .stdin(std::fs::File::open(&packed).unwrap())
        .output();
    compress.is_ok_and(|s| s.success()) && decompress.is_ok_and(|o| o.stdout == data)
}
