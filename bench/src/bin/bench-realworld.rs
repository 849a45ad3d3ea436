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

use dwarfsmith_bench::compilers::Compilers;
use dwarfsmith_bench::cputime::{interleaved_medians, median_seconds};
use dwarfsmith_bench::support;

#[path = "../../../tests/support/realworld.rs"]
mod realworld;

/// Compare dwarfsmith with llc-19 on real C: compile time and program run time.
#[derive(Parser)]
#[command(name = "bench-realworld", about, long_about = None)]
struct Cli {
    #[command(flatten)]
    compilers: Compilers,
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
    let dwarfsmith = match cli.compilers.dwarfsmith_path("bench-realworld") {
        Ok(path) => path,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
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
                Command::new(&cli.compilers.llc)
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
