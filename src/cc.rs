//! `dwarfsmith cc` and `dwarfsmith c++`: C and C++ compiler drivers with
//! dwarfsmith as their back end.
//!
//! In: a cc-style command line. A compile (`-c`) runs clang (`cc`:
//! `$DWARFSMITH_CLANG`, else `clang-19` on PATH; `c++`: `$DWARFSMITH_CLANGXX`,
//! else `clang++-19`) once per source with the user's options plus
//! `-S -emit-llvm -o <temporary .ll>`, then compiles that IR with the library
//! pipeline into the object (`-o`, else `x.o` beside the working directory as cc
//! names it). A preprocess (`-E`) runs that clang too, so a tool that
//! preprocesses with the driver and compiles the `.i` elsewhere (distcc, ccache)
//! sees what the compile sees; with `-g` the output names the working directory
//! on its second line, as gcc's does (see `working_directory`). Any other
//! command (a link, `-S`, `-M`) goes to the system compiler (`cc` or `c++`)
//! unchanged. The drivers also run as `dwarfsmith-cc` and `dwarfsmith-c++`
//! (dwarfsmith installed or linked under those names), for tools that want
//! one compiler executable (`CC=dwarfsmith-cc`, `distcc dwarfsmith-cc`).
//!
//! Preprocessed input (`.i`, `.ii`) compiles like any source; when it names a
//! working directory, clang is given it as `-fdebug-compilation-dir` (unless
//! the command gives one), so the object is the same wherever the `.i` is
//! compiled. `-fdebug-prefix-map`/`-ffile-prefix-map` are clang's: it applies
//! them to every file and directory name of the IR, which the object copies.
//! A dependency file (`-MD`, `-MMD`) is clang's too, named and targeted after
//! the object as cc does (`x.d` beside `x.o`, rule `x.o: ...`), so make's
//! `-include $(OBJECTS:.o=.d)` works as with cc.
//!
//! Rules: `-O`/`-O0`..`-O3`/`-Os`/`-Oz` and `-g`/`-g0` (last one wins, as in cc)
//! choose dwarfsmith's optimisation level and whether it writes DWARF, and are
//! passed on to clang so the IR matches them; clang's errors pass through with its
//! exit status; our errors name the C source's file:line:col (from the failing IR
//! instruction's debug location when it has one) and then the IR position; a
//! failed compile leaves no output file. There is no fallback to another back end.

mod working_directory;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};

/// Options of clang/gcc that take their value as the next argument.
const OPTIONS_WITH_VALUE: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-isysroot",
    "-MF",
    "-MT",
    "-MQ",
    "-x",
    "-Xclang",
    "-Xpreprocessor",
    "-target",
    "--target",
];

/// Which language a driver compiles: its name and the programs it runs.
pub struct Driver {
    /// The command's name (`cc`, `c++`), which is also the system compiler
    /// that links and runs every command that is not a compile.
    pub name: &'static str,
    /// The environment variable naming the clang to run.
    pub clang_variable: &'static str,
    /// The clang run when that variable is unset.
    pub clang: &'static str,
}

/// `dwarfsmith cc`: C through clang-19, links by `cc`.
pub const C: Driver = Driver {
    name: "cc",
    clang_variable: "DWARFSMITH_CLANG",
    clang: "clang-19",
};

/// `dwarfsmith c++`: C++ through clang++-19, links by `c++`.
pub const CXX: Driver = Driver {
    name: "c++",
    clang_variable: "DWARFSMITH_CLANGXX",
    clang: "clang++-19",
};

/// The driver a program name selects: `dwarfsmith-cc` is [`C`],
/// `dwarfsmith-c++` is [`CXX`] (whatever directory the program is in).
pub fn driver_for_program(program: &OsStr) -> Option<&'static Driver> {
    let name = Path::new(program).file_name()?.to_str()?;
    let language = name.strip_prefix("dwarfsmith-")?;
    [&C, &CXX]
        .into_iter()
        .find(|driver| driver.name == language)
}

/// Runs `dwarfsmith cc ARGS` (or `c++`, per `driver`) and returns the exit
/// code: that of the system compiler for a pass-through command, that of
/// clang when clang fails, and failure with a message on stderr when
/// dwarfsmith fails.
pub fn main(driver: &Driver, args: &[String]) -> ExitCode {
    if args.iter().any(|arg| arg == "-E") {
        return preprocess(driver, args);
    }
    if !args.iter().any(|arg| arg == "-c") {
        return pass_through(driver, Command::new(driver.name).args(args));
    }
    let command = match parse(args).and_then(CompileCommand::new) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("dwarfsmith {}: error: {message}", driver.name);
            return ExitCode::FAILURE;
        }
    };
    for (source, object) in &command.jobs {
        if let Err(failure) = compile_one(driver, &command, source, object) {
            return match failure {
                Failure::Clang(code) => code,
                Failure::Ours(message) => {
                    eprintln!("{message}");
                    ExitCode::FAILURE
                }
            };
        }
    }
    ExitCode::SUCCESS
}

/// A cc command line, taken apart.
struct CommandLine {
    /// The user's options for clang, without `-c`, `-o` and the inputs.
    clang_args: Vec<String>,
    /// The input files, in order.
    sources: Vec<PathBuf>,
    /// What `-o` names.
    output: Option<PathBuf>,
    /// dwarfsmith's options, from the `-O` and `-g` flags.
    options: CompileOptions,
}

/// A compile command line: each source with the object it becomes.
struct CompileCommand {
    /// The user's options for clang, without `-c`, `-o` and the sources.
    clang_args: Vec<String>,
    /// Each source with the object it becomes.
    jobs: Vec<(PathBuf, PathBuf)>,
    /// dwarfsmith's options, from the `-O` and `-g` flags.
    options: CompileOptions,
}

impl CompileCommand {
    /// The compile `line` asks for, or why it is not one cc accepts.
    fn new(line: CommandLine) -> Result<CompileCommand, String> {
        if line.sources.is_empty() {
            return Err("no input files".to_string());
        }
        if line.output.is_some() && line.sources.len() > 1 {
            return Err("cannot give -o with -c and more than one input file".to_string());
        }
        let jobs = line
            .sources
            .into_iter()
            .map(|source| {
                let object = line
                    .output
                    .clone()
                    .unwrap_or_else(|| default_object_name(&source));
                (source, object)
            })
            .collect();
        Ok(CompileCommand {
            clang_args: line.clang_args,
            jobs,
            options: line.options,
        })
    }
}

/// Why one source did not become an object.
enum Failure {
    /// clang failed (it printed its own errors) with this exit code.
    Clang(ExitCode),
    /// dwarfsmith (or starting a program) failed with this message.
    Ours(String),
}

fn parse(args: &[String]) -> Result<CommandLine, String> {
    let mut clang_args = Vec::new();
    let mut sources = Vec::new();
    let mut output = None;
    let mut opt_level = OptLevel::O0;
    let mut debug_info = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let arg = arg.as_str();
        if OPTIONS_WITH_VALUE.contains(&arg) {
            let value = iter
                .next()
                .ok_or_else(|| format!("option {arg} needs a value"))?;
            if arg == "-o" {
                output = Some(PathBuf::from(value));
            } else {
                clang_args.push(arg.to_string());
                clang_args.push(value.clone());
            }
            continue;
        }
        if arg == "-c" {
            continue;
        }
        if let Some(value) = arg.strip_prefix("-o") {
            output = Some(PathBuf::from(value));
            continue;
        }
        if let Some(level) = arg.strip_prefix("-O") {
            opt_level = match level {
                "0" => OptLevel::O0,
                "" | "1" | "2" | "3" | "s" | "z" => OptLevel::O2,
                other => return Err(format!("unsupported optimisation level -O{other}")),
            };
        } else if let Some(level) = arg.strip_prefix("-g") {
            match level {
                "0" => debug_info = false,
                "" | "1" | "2" | "3" | "dwarf" | "dwarf-4" | "dwarf-5" | "gdb" => debug_info = true,
                _ => {}
            }
        }
        if arg.starts_with('-') || arg.is_empty() {
            clang_args.push(arg.to_string());
        } else {
            sources.push(PathBuf::from(arg));
        }
    }
    Ok(CommandLine {
        clang_args,
        sources,
        output,
        options: CompileOptions {
            opt_level,
            debug_info,
            debugger_tune: DebuggerTune::Gdb,
        },
    })
}

/// `dwarfsmith cc -E ...`: clang preprocesses (it is the front end of the
/// compile); with `-g` and line markers in the output (no `-P`, no `-M`/`-MM`
/// dependency list) the working-directory line goes after the first marker.
/// The output goes where `-o` says (standard output without one).
fn preprocess(driver: &Driver, args: &[String]) -> ExitCode {
    let name = driver.name;
    let line = match parse(args) {
        Ok(line) => line,
        Err(message) => {
            eprintln!("dwarfsmith {name}: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let clang = clang_program(driver);
    let result = Command::new(&clang)
        .args(&line.clang_args)
        .args(&line.sources)
        .stdin(Stdio::inherit())
        .stderr(Stdio::inherit())
        .output();
    let result = match result {
        Ok(result) => result,
        Err(e) => {
            eprintln!(
                "dwarfsmith {name}: error: cannot run {}: {e}",
                Path::new(&clang).display()
            );
            return ExitCode::FAILURE;
        }
    };
    if !result.status.success() {
        return exit_code(result.status);
    }
    let marked = line.options.debug_info
        && !line
            .clang_args
            .iter()
            .any(|arg| matches!(arg.as_str(), "-P" | "-M" | "-MM"));
    let text = match std::env::current_dir() {
        Ok(cwd) if marked => match cwd.to_str() {
            Some(cwd) => working_directory::insert(&result.stdout, cwd),
            None => result.stdout,
        },
        _ => result.stdout,
    };
    let output = line.output.unwrap_or_else(|| PathBuf::from("-"));
    match dwarfsmith::output::write_output(&output, &text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// The clang a driver runs: its variable's value, else its default.
fn clang_program(driver: &Driver) -> std::ffi::OsString {
    std::env::var_os(driver.clang_variable).unwrap_or_else(|| driver.clang.into())
}

/// `dir/x.c` becomes `x.o` in the working directory, as cc names it.
fn default_object_name(source: &Path) -> PathBuf {
    let stem = source.file_stem().unwrap_or(source.as_os_str());
    let mut name = PathBuf::from(stem);
    name.set_extension("o");
    name
}

fn compile_one(
    driver: &Driver,
    command: &CompileCommand,
    source: &Path,
    object: &Path,
) -> Result<(), Failure> {
    let name = driver.name;
    let temp = tempfile::tempdir().map_err(|e| {
        Failure::Ours(format!(
            "dwarfsmith {name}: error: cannot make a temporary directory: {e}"
        ))
    })?;
    let ir_path = temp.path().join("module.ll");
    let clang = clang_program(driver);
    let compilation_dir = compilation_directory(&command.clang_args, source);
    let status = Command::new(&clang)
        .args(&command.clang_args)
        .args(compilation_dir)
        .args(dependency_file(&command.clang_args, object))
        .args(["-S", "-emit-llvm", "-o"])
        .arg(&ir_path)
        .arg(source)
        .status()
        .map_err(|e| {
            Failure::Ours(format!(
                "dwarfsmith {name}: error: cannot run {}: {e}",
                Path::new(&clang).display()
            ))
        })?;
    if !status.success() {
        return Err(Failure::Clang(exit_code(status)));
    }
    let text = std::fs::read_to_string(&ir_path).map_err(|e| {
        Failure::Ours(format!(
            "dwarfsmith {name}: error: cannot read clang's IR for {}: {e}",
            source.display()
        ))
    })?;
    let ir_name = format!("{}.ll", source.display());
    let bytes = dwarfsmith::compile(&text, &ir_name, &command.options)
        .map_err(|diagnostic| Failure::Ours(source_diagnostic(source, &text, &diagnostic)))?;
    dwarfsmith::output::write_output(object, &bytes).map_err(Failure::Ours)
}

/// `-fdebug-compilation-dir=DIR` when `source` is preprocessed (`.i`, `.ii`),
/// names its working directory DIR on its second line, and the command gives
/// no compilation directory of its own; else nothing (a source that cannot be
/// read is clang's to report).
fn compilation_directory(clang_args: &[String], source: &Path) -> Option<String> {
    let preprocessed = source
        .extension()
        .is_some_and(|extension| extension == "i" || extension == "ii");
    let given = clang_args.iter().any(|arg| {
        arg.starts_with("-fdebug-compilation-dir") || arg.starts_with("-ffile-compilation-dir")
    });
    if !preprocessed || given {
        return None;
    }
    let dir = working_directory::read(source).ok()??;
    Some(format!("-fdebug-compilation-dir={dir}"))
}

/// What clang needs, besides the user's options, to write the dependency file
/// (`-MD`, `-MMD`) a compile to `object` would write: clang is given the
/// temporary IR as its output, so where cc would take the file's name and
/// its rule's target from `-o`, they are given here: `-MF OBJECT.d` unless
/// the command has `-MF`, and `-MQ OBJECT` (the target quoted for make, as
/// cc quotes it) unless it has `-MT` or `-MQ`.
fn dependency_file(clang_args: &[String], object: &Path) -> Vec<String> {
    let given = |option: &str| clang_args.iter().any(|arg| arg.starts_with(option));
    if !clang_args.iter().any(|arg| arg == "-MD" || arg == "-MMD") {
        return Vec::new();
    }
    let mut args = Vec::new();
    if !given("-MF") {
        args.push("-MF".to_string());
        args.push(object.with_extension("d").to_string_lossy().into_owned());
    }
    if !given("-MT") && !given("-MQ") {
        args.push("-MQ".to_string());
        args.push(object.to_string_lossy().into_owned());
    }
    args
}

/// Says where in the C source an IR diagnostic is: the debug location of the
/// IR line (an instruction's or debug record's `DILocation` gives file:line:col;
/// a function's `DISubprogram` or a global's `DIGlobalVariable` gives file:line;
/// a line inside a function without one takes its function's), else the source
/// file alone (e.g. a type declaration). The IR position follows in every case,
/// since the IR is clang's output for that source.
fn source_diagnostic(
    source: &Path,
    ir: &str,
    diagnostic: &dwarfsmith::error::Diagnostic,
) -> String {
    let ir_position = format!(
        "(clang's IR for it, line {} column {})",
        diagnostic.pos.line, diagnostic.pos.col
    );
    let place = match debug_location(ir, diagnostic.pos.line) {
        Some((file, line, Some(col))) => format!("{file}:{line}:{col}"),
        Some((file, line, None)) => format!("{file}:{line}"),
        None => source.display().to_string(),
    };
    format!("{place}: error: {} {ir_position}", diagnostic.message)
}

/// The file, line and (when known) column that IR line `line` comes from.
fn debug_location(ir: &str, line: u32) -> Option<(String, u32, Option<u32>)> {
    let index = line.checked_sub(1)? as usize;
    let text = ir.lines().nth(index)?;
    let trimmed = text.trim_start();
    let node = if let Some(id) = number_field(text, "!dbg !") {
        metadata_node(ir, id)?
    } else if trimmed.starts_with("#dbg_") {
        // The record's last operand is its DILocation.
        let at = text.rfind('!')?;
        metadata_node(ir, number_field(&text[at..], "!")?)?
    } else if text.starts_with(' ') && !trimmed.is_empty() {
        // Inside a function body: the function's own line.
        return debug_location(ir, enclosing_define(ir, index)?);
    } else {
        return None;
    };
    if node.contains("!DILocation(") {
        let row = number_field(node, "line: ")?;
        if row == 0 {
            // Line 0: code with no source line; say which function it is in.
            return debug_location(ir, enclosing_define(ir, index)?);
        }
        let col = number_field(node, "column: ");
        let file = scope_file(ir, number_field(node, "scope: !")?)?;
        return Some((file, row, col));
    }
    let node = if node.contains("!DIGlobalVariableExpression(") {
        metadata_node(ir, number_field(node, "var: !")?)?
    } else {
        node
    };
    if node.contains("!DISubprogram(") || node.contains("!DIGlobalVariable(") {
        let row = number_field(node, "line: ")?;
        let file = file_name(ir, number_field(node, "file: !")?)?;
        return Some((file, row, None));
    }
    None
}

/// The 1-based line of the `define` that IR line `index` (0-based) is inside.
fn enclosing_define(ir: &str, index: usize) -> Option<u32> {
    let (define, _) = ir
        .lines()
        .take(index)
        .enumerate()
        .filter(|(_, l)| l.starts_with("define "))
        .last()?;
    Some(define as u32 + 1)
}

/// The file name of a scope (subprogram, lexical block, …), following
/// `file:` to its DIFile.
fn scope_file(ir: &str, scope: u32) -> Option<String> {
    let node = metadata_node(ir, scope)?;
    file_name(ir, number_field(node, "file: !")?)
}

/// The path a DIFile names.
fn file_name(ir: &str, id: u32) -> Option<String> {
    let file = metadata_node(ir, id)?;
    let name = string_field(file, "filename: \"")?;
    let directory = string_field(file, "directory: \"").unwrap_or_default();
    if name.starts_with('/') || directory.is_empty() {
        Some(name.to_string())
    } else {
        Some(format!("{directory}/{name}"))
    }
}

/// The text of metadata node `!id = ...`.
fn metadata_node(ir: &str, id: u32) -> Option<&str> {
    let prefix = format!("!{id} = ");
    ir.lines()
        .find_map(|line| line.strip_prefix(prefix.as_str()))
}

/// The number after `key` (e.g. `"scope: !"`) in `text`.
fn number_field(text: &str, key: &str) -> Option<u32> {
    let rest = &text[text.find(key)? + key.len()..];
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..digits].parse().ok()
}

fn string_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let rest = &text[text.find(key)? + key.len()..];
    Some(&rest[..rest.find('"')?])
}

/// Runs a command with inherited standard streams and returns its exit code.
fn pass_through(driver: &Driver, command: &mut Command) -> ExitCode {
    match command.status() {
        Ok(status) => exit_code(status),
        Err(e) => {
            eprintln!(
                "dwarfsmith {}: error: cannot run {}: {e}",
                driver.name,
                command.get_program().to_string_lossy()
            );
            ExitCode::FAILURE
        }
    }
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    match status.code() {
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dependency_args(args: &[&str], object: &str) -> Vec<String> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        dependency_file(&args, Path::new(object))
    }

    #[test]
    fn a_dependency_file_is_named_and_targeted_after_the_object() {
        assert_eq!(
            dependency_args(&["-MMD", "-MP"], "out/x.o"),
            ["-MF", "out/x.d", "-MQ", "out/x.o"]
        );
        assert_eq!(
            dependency_args(&["-MD", "-MF", "deps/x.dep"], "x.o"),
            ["-MQ", "x.o"]
        );
        assert_eq!(
            dependency_args(&["-MMD", "-MFx.dep", "-MT", "all"], "x.o"),
            Vec::<String>::new()
        );
        assert_eq!(
            dependency_args(&["-MP", "-O2"], "x.o"),
            Vec::<String>::new()
        );
    }
}
