//! The `dwarfsmith` command line: compile, opt, verify.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod allocator;
mod cc;

use clap::{Parser, Subcommand, ValueEnum};
use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};
use dwarfsmith_emit::read::FileBytes;

/// dwarfsmith: a compiler back end that keeps debug information true.
///
/// It reads LLVM IR text (.ll, as clang 14-19 prints it), lowers it to x86-64,
/// and writes an ELF relocatable object with DWARF 5 debug information.
#[derive(Parser)]
#[command(name = "dwarfsmith", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile IN.ll to an ELF x86-64 object (link it with gcc).
    ///
    /// Example: dwarfsmith compile fixtures/ll/arith_temps.O2.ll -o arith_temps.o
    Compile {
        /// The LLVM IR text file to compile.
        input: PathBuf,
        /// Where to write the object file (`-`: standard output).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// Optimisation level: -O0 compiles without optimisation (for clang -O0 IR); -O1..-O3 optimise.
        #[arg(short = 'O', value_name = "LEVEL", default_value = "2")]
        level: String,
        /// Debug information: -g (default) emits DWARF 5, -g0 omits it; the machine code is identical.
        #[arg(short = 'g', value_name = "LEVEL", default_value = "2", num_args = 0..=1,
              default_missing_value = "2")]
        debug_level: String,
        /// The debugger the DWARF is tuned for.
        #[arg(long = "debugger-tune", value_enum, default_value_t = Tune::Gdb)]
        debugger_tune: Tune,
        /// Assignment tracking (declare-to-assign first at -O1/-O2); false keeps dbg.declare.
        #[arg(long = "assignment-tracking", value_name = "BOOL", default_value_t = true,
              action = clap::ArgAction::Set)]
        assignment_tracking: bool,
        /// Also give every MIR definition a synthetic DBG_VALUE after instruction selection and report on stderr which lost their location ranges.
        #[arg(long = "mir-debugify")]
        mir_debugify: bool,
    },
    /// Parse, verify and print IN.ll back as LLVM IR.
    Opt {
        /// The LLVM IR text file to read.
        input: PathBuf,
        /// Where to write the printed module (`-`: standard output).
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// How debug records are printed.
        #[arg(long = "debug-syntax", value_enum, default_value_t = Syntax::Records)]
        debug_syntax: Syntax,
        /// Optimiser flags (-O1, --passes=..., --debugify...).
        #[command(flatten)]
        optimiser: OptFlags,
    },
    /// Check an ELF x86-64 object, executable or shared library (ours or any
    /// compiler's) and say what is wrong with it.
    Verify {
        /// The object, executable or shared library to check.
        input: PathBuf,
        /// Where a stripped file's debug file is looked for (by build id,
        /// DIR/.build-id/xx/rest.debug; by .gnu_debuglink); repeatable.
        #[arg(long = "debug-dir", value_name = "DIR")]
        debug_dirs: Vec<PathBuf>,
        /// Check the line table only: rows at instruction boundaries, well
        /// formed sequences, no is_stmt on line 0, prologue_end after the
        /// frame setup, files in the table (see the README for the rule).
        #[arg(long = "line-table")]
        line_table: bool,
        /// With --line-table: an -O0 build of the same source, whose order
        /// the is_stmt rows must follow.
        #[arg(long = "against", value_name = "REF.o", requires = "line_table")]
        against: Option<PathBuf>,
        /// Check the location lists against the machine code: registers
        /// written (or lost to a call) inside a range that reads them, memory
        /// locations based on a register that holds no address, entry values
        /// of registers that carry no parameter (see the README).
        #[arg(long = "locations", conflicts_with = "line_table")]
        locations: bool,
        /// With --line-table or --locations: print the findings as JSON.
        #[arg(long = "json")]
        json: bool,
    },
    /// Print the line table of an object, executable or shared library (any
    /// compiler's) as rows.
    Lines {
        /// The object, executable or shared library to read.
        input: PathBuf,
        /// Where a stripped file's debug file is looked for (as for verify).
        #[arg(long = "debug-dir", value_name = "DIR")]
        debug_dirs: Vec<PathBuf>,
        /// Print JSON instead of a table.
        #[arg(long = "json")]
        json: bool,
    },
    /// Debug-information quality figures of objects, executables or shared
    /// libraries (any compiler's): llvm-dwarfdump --statistics' keys and
    /// numbers, llvm-locstats' coverage buckets, and per function its
    /// variables, parameters, coverage, inlined instances and is_stmt rows.
    ///
    /// Example: dwarfsmith stats --json a.o b.out
    Stats {
        /// The files to measure (one report each, in order).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Print JSON (one document per file) instead of text.
        #[arg(long = "json")]
        json: bool,
        /// Compare two builds of one program (`--compare A B`): function by
        /// function and variable by variable, better, worse or changed in B.
        #[arg(long = "compare")]
        compare: bool,
        /// Write a self-contained page (`--html OUT.html FILE [--compare B]`):
        /// the per-function table and each function's variable-location map
        /// beside its disassembly and line table.
        #[arg(long = "html", value_name = "OUT.html")]
        html: Option<PathBuf>,
        /// Where a stripped file's debug file is looked for (as for verify).
        #[arg(long = "debug-dir", value_name = "DIR")]
        debug_dirs: Vec<PathBuf>,
    },
    /// A C compiler driver: clang makes IR, dwarfsmith compiles it; links go to cc.
    ///
    /// Example: dwarfsmith cc -O2 -g -c x.c -o x.o   (or: make CC="dwarfsmith cc")
    #[command(disable_help_flag = true)]
    Cc {
        /// The command line, as for cc.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// A C++ compiler driver: clang++ makes IR, dwarfsmith compiles it; links go to c++.
    ///
    /// Example: dwarfsmith c++ -O2 -g -c x.cpp -o x.o   (or: make CXX="dwarfsmith c++")
    #[command(name = "c++", disable_help_flag = true)]
    Cxx {
        /// The command line, as for c++.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
}

/// The optimiser's flags of `opt`.
#[derive(clap::Args)]
struct OptFlags {
    /// Run the -O1 or -O2 (-O3) pipeline.
    #[arg(short = 'O', value_name = "LEVEL")]
    level: Option<String>,
    /// Run these passes in order (sroa, mem2reg, instcombine, simplifycfg, hoist-common, mldst-motion, speculate-diamonds, inline, early-cse, licm, sink, tail-dup, dce, ...).
    #[arg(long = "passes", value_name = "A,B,C")]
    passes: Option<String>,
    /// Print the module to stderr after every pass.
    #[arg(long = "print-after-all")]
    print_after_all: bool,
    /// Print the module to stderr after this pass (repeatable).
    #[arg(long = "print-after", value_name = "PASS")]
    print_after: Vec<String>,
    /// Stop after the first run of this pass.
    #[arg(long = "stop-after", value_name = "PASS")]
    stop_after: Option<String>,
    /// Give the module synthetic debug info (lines 1, 2, 3..., a variable per value) first.
    #[arg(long = "debugify")]
    debugify: bool,
    /// Report on stderr the lines and variables lost since --debugify.
    #[arg(long = "check-debugify")]
    check_debugify: bool,
    /// Debugify before and check after every pass.
    #[arg(long = "debugify-each")]
    debugify_each: bool,
    /// With --debugify-each: write the per-pass counts as CSV (LLVM's columns).
    #[arg(long = "debugify-export", value_name = "FILE.csv")]
    debugify_export: Option<PathBuf>,
    /// Assignment tracking (declare-to-assign first at -O1/-O2); false keeps dbg.declare.
    #[arg(long = "assignment-tracking", value_name = "BOOL", default_value_t = true,
          action = clap::ArgAction::Set)]
    assignment_tracking: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Tune {
    Gdb,
    Lldb,
}

#[derive(Clone, Copy, ValueEnum)]
enum Syntax {
    /// `#dbg_value(...)` records (LLVM 19).
    Records,
    /// `call void @llvm.dbg.value(...)` intrinsics.
    Intrinsics,
}

/// The process's allocator (see [`allocator`]).
#[global_allocator]
static ALLOCATOR: allocator::MiMalloc = allocator::MiMalloc;

/// Turns transparent huge pages off for the checkers (`lines`, `verify`,
/// `stats`): mimalloc asks the kernel for huge pages, and the checkers'
/// short-lived, scattered allocations then fault in (and the kernel
/// zeroes) 2 MiB for each few KiB they touch: a third of `stats`' CPU time
/// on a large file, and more peak memory.
fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes no pointer and only sets a flag of
    // this process; when it fails (an old kernel) nothing changes.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    let mut args = std::env::args_os();
    let program = args.next().unwrap_or_default();
    if let Some(driver) = cc::driver_for_program(&program) {
        let args: Result<Vec<String>, _> = args.map(|arg| arg.into_string()).collect();
        return match args {
            Ok(args) => cc::main(driver, &args),
            Err(arg) => {
                eprintln!(
                    "dwarfsmith {}: error: argument is not UTF-8: {}",
                    driver.name,
                    arg.to_string_lossy()
                );
                ExitCode::FAILURE
            }
        };
    }
    let cli = Cli::parse();
    match &cli.command {
        Command::Cc { args } => return cc::main(&cc::C, args),
        Command::Cxx { args } => return cc::main(&cc::CXX, args),
        _ => {}
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    if matches!(
        cli.command,
        Command::Lines { .. } | Command::Verify { .. } | Command::Stats { .. }
    ) {
        no_huge_pages();
    }
    match cli.command {
        Command::Compile {
            input,
            output,
            level,
            debug_level,
            debugger_tune,
            assignment_tracking,
            mir_debugify,
        } => {
            let opt_level = match level.as_str() {
                "0" => OptLevel::O0,
                "1" => OptLevel::O1,
                "2" | "3" => OptLevel::O2,
                other => return Err(format!("error: unknown optimisation level -O{other}")),
            };
            let debug_info = match debug_level.as_str() {
                "0" => false,
                "1" | "2" | "3" => true,
                other => return Err(format!("error: unknown debug level -g{other}")),
            };
            let options = CompileOptions {
                opt_level,
                debug_info,
                debugger_tune: match debugger_tune {
                    Tune::Gdb => DebuggerTune::Gdb,
                    Tune::Lldb => DebuggerTune::Lldb,
                },
            };
            let text = read_input(&input)?;
            let optimiser = dwarfsmith::OptimiserOptions {
                assignment_tracking,
            };
            let bytes =
                dwarfsmith::compile_with(&text, &input.display().to_string(), &options, optimiser)
                    .map_err(|e| e.to_string())?;
            if mir_debugify {
                let name = input.display().to_string();
                let report = dwarfsmith::codegen::mir_debugify::report_for_input(
                    &text, &name, opt_level, optimiser,
                )
                .map_err(|e| e.to_string())?;
                eprint!("{report}");
            }
            dwarfsmith::output::write_output(&output, &bytes)
        }
        Command::Opt {
            input,
            output,
            debug_syntax,
            optimiser,
        } => {
            let text = read_input(&input)?;
            let syntax = match debug_syntax {
                Syntax::Records => dwarfsmith::ir::print::DebugSyntax::Records,
                Syntax::Intrinsics => dwarfsmith::ir::print::DebugSyntax::Intrinsics,
            };
            run_opt(&text, &input, &output, syntax, optimiser)
        }
        Command::Lines {
            input,
            debug_dirs,
            json,
        } => {
            let bytes = read_object(&input)?;
            let debug = read_debug_file(&input, &bytes, &debug_dirs)?;
            let listing = dwarfsmith::linecheck::list_lines_with_debug(&bytes, debug.as_deref())
                .map_err(|e| format!("{}: error: {e}", input.display()))?;
            if !listing.has_line_table {
                return Err(format!(
                    "{}: error: no line table to list: {}",
                    input.display(),
                    dwarfsmith::linecheck::NO_LINE_TABLE
                ));
            }
            print!("{}", dwarfsmith::linecheck::format_lines(&listing, json));
            Ok(())
        }
        Command::Verify {
            input,
            locations: true,
            json,
            ..
        } => {
            let bytes = read_object(&input)?;
            let name = input.display().to_string();
            let findings = dwarfsmith::loccheck::check_object(&bytes)
                .map_err(|e| format!("{name}: error: {e}"))?;
            print!(
                "{}",
                dwarfsmith::loccheck::format_findings(&name, &findings, json)
            );
            if findings.is_empty() {
                if !json {
                    println!("{name}: no location problems found");
                }
                Ok(())
            } else {
                Err(format!(
                    "{name}: error: {} location problem(s) found",
                    findings.len()
                ))
            }
        }
        Command::Verify {
            input,
            debug_dirs,
            line_table: true,
            against,
            json,
            ..
        } => {
            let bytes = read_object(&input)?;
            let debug = read_debug_file(&input, &bytes, &debug_dirs)?;
            let reference = against.as_deref().map(read_object).transpose()?;
            let findings = dwarfsmith::linecheck::check_line_table_with_debug(
                &bytes,
                debug.as_deref(),
                reference.as_deref(),
            )
            .map_err(|e| format!("{}: error: {e}", input.display()))?;
            print!(
                "{}",
                dwarfsmith::linecheck::format_findings(&findings, json)
            );
            if findings.is_empty() {
                if !json {
                    println!("{}: no line-table problems found", input.display());
                }
                Ok(())
            } else {
                Err(format!(
                    "{}: error: {} line-table problem(s) found",
                    input.display(),
                    findings.len()
                ))
            }
        }
        Command::Verify {
            input,
            debug_dirs,
            json,
            ..
        } => {
            if json {
                return Err("error: --json needs --line-table or --locations".into());
            }
            let problems =
                dwarfsmith_emit::verify::verify_file(&input, &Default::default(), &debug_dirs);
            if problems.is_empty() {
                println!("{}: no problems found", input.display());
                Ok(())
            } else {
                for problem in &problems {
                    println!("{}: {problem}", input.display());
                }
                Err(format!(
                    "{}: error: {} problem(s) found",
                    input.display(),
                    problems.len()
                ))
            }
        }
        Command::Stats {
            inputs,
            html: Some(page),
            compare,
            debug_dirs,
            ..
        } => {
            let stats = inputs
                .iter()
                .map(|input| read_statistics(input, true, false, &debug_dirs))
                .collect::<Result<Vec<_>, _>>()?;
            let names: Vec<String> = inputs.iter().map(|i| i.display().to_string()).collect();
            let text = match (stats.as_slice(), compare) {
                ([a], false) => dwarfsmith::stats::write_page(a, &names[0], None),
                ([a, b], true) => dwarfsmith::stats::write_page(a, &names[0], Some((b, &names[1]))),
                _ => return Err("error: --html takes one file, or two with --compare".into()),
            };
            dwarfsmith::output::write_output(&page, text.as_bytes())
        }
        Command::Stats {
            inputs,
            json,
            compare: true,
            debug_dirs,
            ..
        } => {
            let [a, b] = inputs.as_slice() else {
                return Err("error: --compare needs two files, A and B".into());
            };
            let comparison = dwarfsmith::stats::compare(
                &read_statistics(a, true, false, &debug_dirs)?,
                &read_statistics(b, true, false, &debug_dirs)?,
            );
            print!(
                "{}",
                dwarfsmith::stats::format_comparison(
                    &comparison,
                    &a.display().to_string(),
                    &b.display().to_string(),
                    json
                )
            );
            Ok(())
        }
        Command::Stats {
            inputs,
            json,
            debug_dirs,
            ..
        } => {
            for (position, input) in inputs.iter().enumerate() {
                let last = position + 1 == inputs.len();
                let stats = read_statistics(input, false, last, &debug_dirs)?;
                let mut out = std::io::stdout().lock();
                dwarfsmith::stats::format_statistics(&stats, json, &mut out)
                    .map_err(|e| format!("error: cannot write the statistics: {e}"))?;
                drop(out);
                if last {
                    end_without_freeing(stats);
                }
            }
            Ok(())
        }
        Command::Cc { .. } | Command::Cxx { .. } => unreachable!("handled in main"),
    }
}

/// Makes a write to a closed pipe end the process as it ends a C tool
/// (`SIGPIPE`'s default action), so `dwarfsmith stats FILE | head` stops
/// quietly instead of panicking in `print!`: Rust's runtime ignores the
/// signal, which turns the write into an `EPIPE` error.
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: restoring a signal's default action at the start of `main`,
    // before any thread is started, has no other effect on the program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ends the process with status 0 once standard output is flushed, without
/// freeing `tables` or running the allocator's exit work: on a
/// large file, freeing the last file's tables one by one and mimalloc's
/// handing its memory back at exit were a twentieth of `stats`' time,
/// spent after the report was written; the kernel takes the memory back
/// at once.
fn end_without_freeing<T>(tables: T) {
    use std::io::Write as _;
    std::mem::forget(tables);
    if std::io::stdout().flush().is_err() {
        std::process::exit(1);
    }
    // SAFETY: `_exit` ends the process at once; nothing runs after it, and
    // standard output is flushed (standard error is unbuffered).
    unsafe { libc::_exit(0) }
}

/// `opt`: parse, run the requested passes, print; stderr gets dumps and
/// debugify reports, `--debugify-export` the CSV.
fn run_opt(
    text: &str,
    input: &Path,
    output: &Path,
    syntax: dwarfsmith::ir::print::DebugSyntax,
    flags: OptFlags,
) -> Result<(), String> {
    let file = input.display().to_string();
    let level = match flags.level.as_deref() {
        None | Some("0") => None,
        Some("1") => Some(1),
        Some("2" | "3") => Some(2),
        Some(other) => return Err(format!("error: unknown optimisation level -O{other}")),
    };
    if flags.debugify_export.is_some() && !flags.debugify_each {
        return Err("error: --debugify-export needs --debugify-each".into());
    }
    let request = dwarfsmith::opt::command::OptRequest {
        level,
        passes: flags.passes,
        print_after_all: flags.print_after_all,
        print_after: flags.print_after,
        stop_after: flags.stop_after,
        debugify: flags.debugify,
        check_debugify: flags.check_debugify,
        debugify_each: flags.debugify_each,
        syntax,
        no_assignment_tracking: !flags.assignment_tracking,
    };
    let mut module = dwarfsmith::parse_and_verify(text, &file).map_err(|e| e.to_string())?;
    let report = dwarfsmith::opt::command::run_request(&mut module, &request, &file)?;
    eprint!("{}", report.messages);
    if let (Some(path), Some(csv)) = (&flags.debugify_export, &report.csv) {
        dwarfsmith::output::write_output(path, csv.as_bytes())?;
    }
    let printed = dwarfsmith::ir::print::print_module(&module, syntax);
    dwarfsmith::output::write_output(output, printed.as_bytes())
}

/// `stats`' figures of the file at `path` (per-variable rows with
/// `variables`), read through its debug file when it is stripped (found
/// beside it or under `debug_dirs`) and its package `PATH.dwp` when there is
/// one, with a progress bar on a terminal once reading has taken more than a
/// second. With `ends_process`, the process ends once the figures are
/// written ([`end_without_freeing`]), and the reading frees nothing it
/// would free only for later files.
fn read_statistics(
    path: &Path,
    variables: bool,
    ends_process: bool,
    debug_dirs: &[PathBuf],
) -> Result<dwarfsmith::stats::FileStatistics, String> {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    let name = path.display().to_string();
    let bytes = read_object(path)?;
    let debug = read_debug_file(path, &bytes, debug_dirs)?;
    let mut package = path.as_os_str().to_owned();
    package.push(".dwp");
    let package = Path::new(&package);
    let package = package
        .is_file()
        .then(|| read_object(package))
        .transpose()?;
    let options = dwarfsmith::stats::ReadOptions {
        variables,
        debug_file: debug.as_deref(),
        package: package.as_deref(),
        ends_process,
    };
    let bar = ProgressBar::with_draw_target(Some(100), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:40}] {percent}% of units") {
        bar.set_style(style);
    }
    bar.set_message(name.clone());
    let started = std::time::Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let shown = AtomicBool::new(false);
    let progress = |share: f64| {
        if terminal
            && started.elapsed() > std::time::Duration::from_secs(1)
            && !shown.swap(true, Ordering::Relaxed)
        {
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        bar.set_position((share * 100.0) as u64);
    };
    let stats = dwarfsmith::stats::read_statistics_with(&bytes, &name, options, &progress)
        .map_err(|e| format!("{name}: error: {e}"));
    bar.finish_and_clear();
    // The figures own their data: the files are unmapped aside.
    dwarfsmith::stats::drop_aside((bytes, debug, package));
    stats
}

/// The file's bytes, memory-mapped (see `dwarfsmith_emit::read::FileBytes`).
fn read_object(path: &Path) -> Result<FileBytes, String> {
    FileBytes::open(path).map_err(|e| format!("{}: error: cannot read: {e}", path.display()))
}

/// The bytes of the debug file of a stripped `path`, when it has one.
fn read_debug_file(
    path: &Path,
    bytes: &[u8],
    debug_dirs: &[PathBuf],
) -> Result<Option<FileBytes>, String> {
    dwarfsmith_emit::read::find_debug_file(path, bytes, debug_dirs)
        .map(|debug| read_object(&debug))
        .transpose()
}

fn read_input(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("{}: error: cannot read: {e}", path.display()))
}
