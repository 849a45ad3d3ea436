//! `bench-cxx`: the real-world harness's C++ projects (leveldb, libFuzzer and
//! Dear ImGui, as tests/realworld_leveldb.rs, realworld_libfuzzer.rs and
//! realworld_imgui.rs build them) from clang++-19 `-O2 -g` IR, compiled file
//! by file by `dwarfsmith compile` and by `llc-19 -O2 -filetype=obj
//! -relocation-model=pic`, the two taking turns on every file; and leveldb's
//! db_bench linked from each compiler's objects, run in turns. Every time is
//! the CPU time (user + system) of the measured processes, from `getrusage`.
//!
//! The IR is made once into `--cache DIR/PROJECT/ir/` and reused by later
//! runs (delete the directory to make it again); each compiler's objects
//! stay in `DIR/PROJECT/ds/` and `DIR/PROJECT/llc/`, so two binaries' objects
//! can be compared byte for byte.
//!
//! Example: `cargo build --release --bin dwarfsmith && cargo run --release -p dwarfsmith-bench --bin bench-cxx`

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use clap::Parser;
use dwarfsmith_bench::compilers::Compilers;
use dwarfsmith_bench::cputime::interleaved_medians;
use dwarfsmith_bench::support;

#[path = "../../../tests/support/realworld.rs"]
mod realworld;

/// Compare dwarfsmith with llc-19 on real C++: compile time, and db_bench's run time.
#[derive(Parser)]
#[command(name = "bench-cxx", about, long_about = None)]
struct Cli {
    #[command(flatten)]
    compilers: Compilers,
    /// Rounds per file (each round compiles the file with dwarfsmith, then
    /// with llc-19); the median of each is summed.
    #[arg(long, default_value_t = 3)]
    repetitions: usize,
    /// Where the IR is kept between runs, and each compiler's objects.
    #[arg(long, default_value = "target/bench-cxx")]
    cache: PathBuf,
    /// Projects to measure (leveldb, libfuzzer, imgui); all by default.
    #[arg(long, value_delimiter = ',')]
    projects: Vec<String>,
    /// Print every file's times as well as each project's.
    #[arg(long)]
    per_file: bool,
    /// Measure compile time only, not db_bench's run time.
    #[arg(long)]
    no_run: bool,
    /// db_bench's `--num` (entries per benchmark).
    #[arg(long, default_value_t = 100_000)]
    db_bench_num: usize,
}

/// What db_bench runs: CPU-bound benchmarks (no `fillsync`, which waits on
/// the disk).
const DB_BENCH_BENCHMARKS: &str =
    "fillseq,fillrandom,overwrite,readrandom,readseq,readreverse,compact,readrandom,crc32c";

fn main() -> ExitCode {
    let cli = Cli::parse();
    let dwarfsmith = match cli.compilers.dwarfsmith_path("bench-cxx") {
        Ok(path) => path,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let projects: Vec<realworld::CxxProject> = [
        realworld::leveldb::project(),
        realworld::libfuzzer(),
        realworld::imgui(),
    ]
    .into_iter()
    .filter(|p| cli.projects.is_empty() || cli.projects.iter().any(|n| n == p.name))
    .collect();
    if projects.is_empty() {
        eprintln!("bench-cxx: error: no project named {:?}", cli.projects);
        return ExitCode::FAILURE;
    }
    println!(
        "{:<10} {:>8} {:>12} {:>12} {:>8}",
        "project", "files", "dwarfsmith", "llc-19", "ratio"
    );
    println!(
        "{:<10} {:>8} {:>12} {:>12} {:>8}",
        "", "compiled", "compile", "compile", "ds/llc"
    );
    let (mut total_ds, mut total_llc) = (0.0, 0.0);
    for project in &projects {
        let dir = cli.cache.join(project.name);
        make_ir(project, &dir);
        for sub in ["ds", "llc"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let (mut ds_time, mut llc_time, mut compiled) = (0.0, 0.0, 0);
        for source in &project.sources {
            let stem = stem(source);
            let ir = dir.join(format!("ir/{stem}.ll"));
            let ds = || {
                compile(
                    &dwarfsmith,
                    &["compile"],
                    &ir,
                    &dir.join(format!("ds/{stem}.o")),
                )
            };
            let llc_flags = ["-O2", "-filetype=obj", "-relocation-model=pic"];
            let llc = || {
                compile(
                    &cli.compilers.llc,
                    &llc_flags,
                    &ir,
                    &dir.join(format!("llc/{stem}.o")),
                )
            };
            if let Err(error) = ds() {
                println!("    {stem}: dwarfsmith FAILED: {error}");
                continue;
            }
            let (ds_file, llc_file) =
                interleaved_medians(cli.repetitions, || ds().is_ok(), || llc().is_ok());
            if cli.per_file {
                println!(
                    "    {:<24} {:>10.3} s {:>10.3} s {:>8.2}",
                    stem,
                    ds_file,
                    llc_file,
                    ds_file / llc_file
                );
            }
            ds_time += ds_file;
            llc_time += llc_file;
            compiled += 1;
        }
        println!(
            "{:<10} {:>8} {:>10.3} s {:>10.3} s {:>8.2}",
            project.name,
            format!("{compiled}/{}", project.sources.len()),
            ds_time,
            llc_time,
            ds_time / llc_time
        );
        total_ds += ds_time;
        total_llc += llc_time;
    }
    println!(
        "{:<10} {:>8} {:>10.3} s {:>10.3} s {:>8.2}",
        "all",
        "",
        total_ds,
        total_llc,
        total_ds / total_llc
    );
    if !cli.no_run && projects.iter().any(|p| p.name == "leveldb") {
        db_bench(&cli, &cli.cache.join("leveldb"));
    }
    ExitCode::SUCCESS
}

fn stem(source: &Path) -> String {
    source.file_stem().unwrap().to_str().unwrap().to_string()
}

/// Makes `dir/ir/STEM.ll` of every source that has none yet, with
/// clang++-19 `-O2 -g` and the project's flags.
fn make_ir(project: &realworld::CxxProject, dir: &Path) {
    let missing: Vec<PathBuf> = project
        .sources
        .iter()
        .filter(|source| !dir.join(format!("ir/{}.ll", stem(source))).exists())
        .cloned()
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "bench-cxx: {}: clang++-19 -O2 -g IR of {} files into {}",
            project.name,
            missing.len(),
            dir.join("ir").display()
        );
        realworld::cxx_ir(&missing, &project.cpp_flags, &["-O2", "-g"], dir);
    }
}

/// `COMPILER FLAGS IR -o OBJECT`: Ok, or the first line of its error.
fn compile(compiler: &Path, flags: &[&str], ir: &Path, object: &Path) -> Result<(), String> {
    let output = support::run(
        Command::new(compiler)
            .args(flags)
            .arg(ir)
            .arg("-o")
            .arg(object)
            .stdout(Stdio::null()),
    );
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(stderr.lines().next().unwrap_or("(no message)").to_string())
}

/// db_bench linked from dwarfsmith's objects and from llc-19's (library,
/// harness, db_bench.cc and histogram.cc), each run `--repetitions` times
/// in turns on a fresh database: the medians of their CPU time.
fn db_bench(cli: &Cli, dir: &Path) {
    let mut files: Vec<&str> = realworld::leveldb::LIBRARY.to_vec();
    files.extend(realworld::leveldb::HARNESS);
    files.extend(realworld::leveldb::BENCHMARK);
    let link = |build: &str| -> PathBuf {
        let objects: Vec<PathBuf> = files
            .iter()
            .map(|file| dir.join(format!("{build}/{}.o", stem(Path::new(file)))))
            .collect();
        let exe = dir.join(format!("db_bench-{build}"));
        let output = support::run(
            Command::new("gcc")
                .args(&objects)
                .args(["-lstdc++", "-lm", "-lpthread", "-o"])
                .arg(&exe),
        );
        assert!(
            output.status.success(),
            "linking {}: {}",
            exe.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        exe
    };
    let (ours, reference) = (link("ds"), link("llc"));
    let run = |exe: &Path| -> bool {
        let scratch = tempfile::tempdir().unwrap();
        Command::new(exe)
            .arg(format!("--benchmarks={DB_BENCH_BENCHMARKS}"))
            .arg(format!("--num={}", cli.db_bench_num))
            .arg(format!("--db={}", scratch.path().join("db").display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let (ds_run, llc_run) = interleaved_medians(cli.repetitions, || run(&ours), || run(&reference));
    println!(
        "db_bench --num={} ({DB_BENCH_BENCHMARKS}): {:.3} s against {:.3} s, ds/llc {:.2}",
        cli.db_bench_num,
        ds_run,
        llc_run,
        ds_run / llc_run
    );
}
