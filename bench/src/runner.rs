//! The benchmark procedure: which inputs, which commands, how many runs.
//!
//! In: a [`RunConfig`] (compiler paths, repetitions, corpus directory,
//! generator settings) and a scratch directory. Out: table rows for
//! [`crate::report`]. Promise: every input gets a row; a compiler that fails
//! on an input gives a failed cell with its first error line, and the other
//! inputs are still measured. A run that exits 0 without writing an ELF
//! object counts as a failure, so a stub compiler cannot look fast.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::coverage::object_coverage;
use crate::generate::{generate, GenConfig};
use crate::measure::{median, run_measured, run_via_helper, Limits, Outcome};
use crate::report::{CoverageRow, TimingRow};

/// Where the tools are and what to run.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The dwarfsmith binary (run as `dwarfsmith compile IN.ll -o OUT.o`).
    pub dwarfsmith: PathBuf,
    /// llc-19 (run as `llc-19 -O2 -filetype=obj -relocation-model=pic IN.ll -o OUT.o`).
    pub llc: PathBuf,
    /// llvm-dwarfdump-19, for `--coverage`.
    pub dwarfdump: PathBuf,
    /// Runs per compiler and input; the median is reported.
    pub repetitions: usize,
    /// Directory holding the corpus copies (`*.O2.ll` are used).
    pub corpus: PathBuf,
    /// The generated module's settings.
    pub generator: GenConfig,
    /// The `bench-run` binary, used as a lean parent for each measured child
    /// (see [`crate::measure`]); `None` measures directly from this process,
    /// whose own peak RSS then sets a floor under every child's.
    pub helper: Option<PathBuf>,
}

/// The two compilers compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compiler {
    /// The compiler under test.
    Dwarfsmith,
    /// The reference, llc-19.
    Llc,
}

impl RunConfig {
    /// The program and arguments that compile `input` to `output` with `compiler`.
    pub fn command(
        &self,
        compiler: Compiler,
        input: &Path,
        output: &Path,
    ) -> (PathBuf, Vec<OsString>) {
        match compiler {
            Compiler::Dwarfsmith => (
                self.dwarfsmith.clone(),
                vec!["compile".into(), input.into(), "-o".into(), output.into()],
            ),
            Compiler::Llc => (
                self.llc.clone(),
                vec![
                    "-O2".into(),
                    "-filetype=obj".into(),
                    "-relocation-model=pic".into(),
                    input.into(),
                    "-o".into(),
                    output.into(),
                ],
            ),
        }
    }
}

/// The corpus's clang-19 -O2 files (`NAME.O2.ll`, not the intrinsics or llvm14 variants), sorted.
pub fn corpus_inputs(directory: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(directory).map_err(|error| {
        format!(
            "cannot read corpus directory {}: {error}",
            directory.display()
        )
    })?;
    let mut inputs: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(".O2.ll"))
        })
        .collect();
    inputs.sort();
    Ok(inputs)
}

/// Writes the generated module into `workdir` and returns its path.
pub fn write_generated_module(config: &RunConfig, workdir: &Path) -> Result<PathBuf, String> {
    let path = workdir.join("bench_module.ll");
    std::fs::write(&path, generate(&config.generator))
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(path)
}

/// Compiles `input` `repetitions` times with `compiler` (stopping at the first failure)
/// and returns the median run.
pub fn measure_compiler(
    config: &RunConfig,
    compiler: Compiler,
    input: &Path,
    workdir: &Path,
) -> Outcome {
    let output = object_path(compiler, input, workdir);
    let (program, args) = config.command(compiler, input, &output);
    let mut runs = Vec::new();
    for _ in 0..config.repetitions.max(1) {
        // A stale object from an earlier run must not pass for this run's output.
        let _ = std::fs::remove_file(&output);
        let run = match &config.helper {
            Some(helper) => run_via_helper(helper, &program, &args, Limits::default()),
            None => run_measured(&program, &args),
        };
        let run = match run {
            Outcome::Finished(_) if !is_elf_file(&output) => Outcome::Failed {
                first_error_line: format!(
                    "exited with status 0 but wrote no ELF object to {}",
                    output.display()
                ),
            },
            run => run,
        };
        let failed = matches!(run, Outcome::Failed { .. });
        runs.push(run);
        if failed {
            break;
        }
    }
    median(&runs)
}

fn is_elf_file(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut magic))
        .is_ok()
        && magic == *b"\x7fELF"
}

fn object_path(compiler: Compiler, input: &Path, workdir: &Path) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "input".to_string());
    let suffix = match compiler {
        Compiler::Dwarfsmith => "dwarfsmith",
        Compiler::Llc => "llc",
    };
    workdir.join(format!("{stem}.{suffix}.o"))
}

fn display_name(input: &Path) -> String {
    input
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Time and memory rows: the generated module first, then every corpus `.O2.ll`.
pub fn timing_rows(config: &RunConfig, workdir: &Path) -> Result<Vec<TimingRow>, String> {
    let mut inputs = vec![write_generated_module(config, workdir)?];
    inputs.extend(corpus_inputs(&config.corpus)?);
    Ok(inputs
        .iter()
        .map(|input| TimingRow {
            input: display_name(input),
            dwarfsmith: measure_compiler(config, Compiler::Dwarfsmith, input, workdir),
            llc: measure_compiler(config, Compiler::Llc, input, workdir),
        })
        .collect())
}

/// Coverage rows: every corpus `.O2.ll`, compiled once by each compiler.
pub fn coverage_rows(config: &RunConfig, workdir: &Path) -> Result<Vec<CoverageRow>, String> {
    let single = RunConfig {
        repetitions: 1,
        ..config.clone()
    };
    let coverage_of = |compiler: Compiler, input: &Path| match measure_compiler(
        &single, compiler, input, workdir,
    ) {
        Outcome::Finished(_) => {
            object_coverage(&config.dwarfdump, &object_path(compiler, input, workdir))
        }
        Outcome::Failed { first_error_line } => Err(first_error_line),
    };
    Ok(corpus_inputs(&config.corpus)?
        .iter()
        .map(|input| CoverageRow {
            input: display_name(input),
            dwarfsmith: coverage_of(Compiler::Dwarfsmith, input),
            llc: coverage_of(Compiler::Llc, input),
        })
        .collect())
}
