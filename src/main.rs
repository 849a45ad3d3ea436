//! The `dwarfsmith` command line: compile, opt, verify.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod cc;

use clap::{Parser, Subcommand, ValueEnum};
use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};

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
        /// Where to write the object file.
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
    },
    /// Parse, verify and print IN.ll back as LLVM IR.
    Opt {
        /// The LLVM IR text file to read.
        input: PathBuf,
        /// Where to write the printed module.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
        /// How debug records are printed.
        #[arg(long = "debug-syntax", value_enum, default_value_t = Syntax::Records)]
        debug_syntax: Syntax,
    },
    /// Check an ELF x86-64 object (ours or any compiler's) and say what is wrong with it.
    Verify {
        /// The object file to check.
        input: PathBuf,
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Cc { args } = &cli.command {
        return cc::main(args);
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
    match cli.command {
        Command::Compile {
            input,
            output,
            level,
            debug_level,
            debugger_tune,
        } => {
            let opt_level = match level.as_str() {
                "0" => OptLevel::O0,
                "1" | "2" | "3" => OptLevel::O2,
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
            let bytes = dwarfsmith::compile(&text, &input.display().to_string(), &options)
                .map_err(|e| e.to_string())?;
            write_atomically(&output, &bytes)
        }
        Command::Opt {
            input,
            output,
            debug_syntax,
        } => {
            let text = read_input(&input)?;
            let syntax = match debug_syntax {
                Syntax::Records => dwarfsmith::ir::print::DebugSyntax::Records,
                Syntax::Intrinsics => dwarfsmith::ir::print::DebugSyntax::Intrinsics,
            };
            let printed = dwarfsmith::opt(&text, &input.display().to_string(), syntax)
                .map_err(|e| e.to_string())?;
            write_atomically(&output, printed.as_bytes())
        }
        Command::Verify { input } => {
            let bytes = std::fs::read(&input)
                .map_err(|e| format!("{}: error: cannot read: {e}", input.display()))?;
            let problems = dwarfsmith_emit::verify::verify(&bytes);
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
        Command::Cc { .. } => unreachable!("handled in main"),
    }
}

fn read_input(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("{}: error: cannot read: {e}", path.display()))
}

/// Writes `bytes` to a temporary file beside `path` and renames it into
/// place, so a failed run never leaves a partial output.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let fail = |e: std::io::Error| format!("{}: error: cannot write: {e}", path.display());
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    file.write_all(bytes).map_err(fail)?;
    file.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
