//! Shared helpers for the end-to-end tests: run the dwarfsmith binary, link
//! with gcc, run programs, drive gdb and llvm-dwarfdump.
#![allow(dead_code)] // each test binary uses its own subset of these helpers

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Calls macro `$m` with the names of the corpus programs (fixtures/src/NAME.c,
/// fixtures/ll/NAME.*.ll), one test per program.
#[allow(unused_macros)] // only the corpus-wide test binaries use it
macro_rules! corpus_programs {
    ($m:ident) => {
        $m!(
            arith_temps,
            bits,
            inlining,
            licm,
            many_args,
            matrix,
            pointers,
            recursion,
            select_diamond,
            sort,
            strings,
            structs,
            sum_array,
            switch_table,
        );
    };
}

/// Path of a file under `fixtures/`.
pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(relative)
}

/// Runs a command and returns its output, panicking with a clear message if
/// it cannot be started.
pub fn run(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// Runs a command that must succeed and returns its standard output.
pub fn stdout_of(command: &mut Command) -> String {
    let output = run(command);
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Runs the dwarfsmith binary with `args`.
pub fn dwarfsmith(args: &[&str]) -> Output {
    run(Command::new(env!("CARGO_BIN_EXE_dwarfsmith")).args(args))
}

/// Compiles `fixtures/ll/NAME` into `dir` with extra flags; panics with the
/// compiler's message on failure. Returns the object path.
pub fn compile_fixture(dir: &Path, ll_name: &str, flags: &[&str]) -> PathBuf {
    compile_ll(dir, &fixture(&format!("ll/{ll_name}")), ll_name, flags)
}

/// Compiles `input` to `dir/STEM<flags>.o` with the dwarfsmith binary; panics
/// with the compiler's message on failure. Returns the object path.
pub fn compile_ll(dir: &Path, input: &Path, stem: &str, flags: &[&str]) -> PathBuf {
    let object = dir.join(format!("{stem}{}.o", flags.concat()));
    let mut args = vec![
        "compile",
        input.to_str().unwrap(),
        "-o",
        object.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    let out = dwarfsmith(&args);
    assert!(
        out.status.success(),
        "dwarfsmith {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

/// The MIR instruction selection makes of `function` in the IR text
/// `module` (file name `name`), without debug information, as printed.
pub fn selected_mir(module: &str, name: &str, function: &str) -> String {
    use dwarfsmith::codegen::isel::{select_function, IselOptions};
    let module = dwarfsmith::ir::parse::parse_module(module, name).unwrap();
    let id = module.function_by_name(function).unwrap();
    let selected = select_function(&module, id, &IselOptions { debug_info: false }).unwrap();
    selected.mir.to_string()
}

/// Compiles the IR `text` as `dir/case.ll` with the dwarfsmith binary,
/// which must refuse it: exit status 1 and no object written. Returns its
/// standard error with the directory taken out (`case.ll:L:C: error: ...`).
pub fn refusal(dir: &Path, text: &str) -> String {
    let ll = dir.join("case.ll");
    std::fs::write(&ll, text).unwrap();
    let object = dir.join("case.o");
    let out = dwarfsmith(&[
        "compile",
        ll.to_str().unwrap(),
        "-o",
        object.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        !object.exists(),
        "a refused compile wrote {}",
        object.display()
    );
    let prefix = format!("{}/", dir.display());
    String::from_utf8_lossy(&out.stderr)
        .trim_end()
        .replace(&prefix, "")
}

/// Links `object` with the corpus driver of `program` (fixtures/src/PROGRAM.driver.c)
/// into an executable in `dir`, with gcc's defaults (PIE).
pub fn link_with_driver(dir: &Path, object: &Path, program: &str) -> PathBuf {
    let exe = dir.join(format!(
        "{}.exe",
        object.file_name().unwrap().to_str().unwrap()
    ));
    let driver = fixture(&format!("src/{program}.driver.c"));
    let out = run(Command::new("gcc")
        .arg("-g")
        .arg("-O0")
        .arg(&driver)
        .arg(object)
        .arg("-o")
        .arg(&exe));
    assert!(
        out.status.success(),
        "gcc failed to link {}:\n{}",
        object.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// The expected output of a corpus program.
pub fn expected_output(program: &str) -> String {
    std::fs::read_to_string(fixture(&format!("expected/{program}.out"))).unwrap()
}

/// Runs an executable and returns its stdout, asserting it exited with 0.
pub fn run_program(exe: &Path) -> String {
    let out = run(&mut Command::new(exe));
    assert!(
        out.status.success(),
        "{} exited with {}",
        exe.display(),
        out.status
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs gdb in batch mode with the given commands and returns everything it printed.
pub fn gdb_batch(exe: &Path, commands: &[&str]) -> String {
    let mut cmd = Command::new("gdb");
    cmd.args(["-nx", "-batch", "-q"]);
    for c in commands {
        cmd.args(["-ex", c]);
    }
    cmd.arg(exe);
    let out = run(&mut cmd);
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The llvm-dwarfdump to use: llvm-dwarfdump-19 if installed, else the default one.
pub fn llvm_dwarfdump() -> &'static str {
    if Path::new("/usr/bin/llvm-dwarfdump-19").exists() {
        "llvm-dwarfdump-19"
    } else {
        "llvm-dwarfdump"
    }
}

/// Runs `llvm-dwarfdump --verify` on an object and returns (success, output).
pub fn dwarfdump_verify(object: &Path) -> (bool, String) {
    let out = run(Command::new(llvm_dwarfdump()).arg("--verify").arg(object));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success() && !text.contains("error:"), text)
}

/// The bytes of an object's `.text` section (via objcopy).
pub fn text_section(dir: &Path, object: &Path) -> Vec<u8> {
    let dump = dir.join(format!(
        "{}.text.bin",
        object.file_name().unwrap().to_str().unwrap()
    ));
    let out = run(Command::new("objcopy")
        .args(["-O", "binary", "--only-section=.text"])
        .arg(object)
        .arg(&dump));
    assert!(
        out.status.success(),
        "objcopy failed on {}",
        object.display()
    );
    std::fs::read(dump).unwrap()
}

/// The IR clang-19 makes of `fixtures/SOURCE` with `flags` (plus `-S
/// -emit-llvm`), written into `dir` and returned as text.
pub fn clang_ir(dir: &Path, source: &str, flags: &[&str]) -> String {
    let stem = Path::new(source).file_stem().unwrap().to_string_lossy();
    let ll = dir.join(format!("{stem}{}.ll", flags.concat()));
    let out = run(Command::new("clang-19")
        .args(flags)
        .args(["-S", "-emit-llvm", "-o"])
        .arg(&ll)
        .arg(fixture(source)));
    assert!(
        out.status.success(),
        "clang-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(ll).unwrap()
}

/// Links `inputs` (objects and C sources) with gcc into `exe`; `flags` come
/// after the inputs, so libraries (`-lm`) resolve their symbols.
pub fn gcc_link(exe: &Path, inputs: &[PathBuf], flags: &[&str]) {
    let out = run(Command::new("gcc")
        .args(inputs)
        .args(flags)
        .arg("-o")
        .arg(exe));
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Defines `LISTED_PROGRAMS` from the names `corpus_programs!` passes.
macro_rules! listed_programs {
    ($($name:ident),* $(,)?) => {
        /// The corpus programs as `corpus_programs!` lists them.
        const LISTED_PROGRAMS: &[&str] = &[$(stringify!($name)),*];
    };
}
corpus_programs!(listed_programs);

/// The corpus programs (the one list in `corpus_programs!`), sorted; panics
/// if fixtures/src/*.c (without the drivers) holds a different set, so the
/// macro's per-program tests and the run-time loops cannot drift apart.
pub fn corpus_programs() -> Vec<String> {
    let mut on_disk: Vec<String> = std::fs::read_dir(fixture("src"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let stem = name.strip_suffix(".c")?;
            (!stem.ends_with(".driver")).then(|| stem.to_string())
        })
        .collect();
    on_disk.sort();
    let listed: Vec<String> = LISTED_PROGRAMS.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        listed, on_disk,
        "corpus_programs! in tests/support/mod.rs must list exactly fixtures/src/*.c"
    );
    listed
}

/// Builds fixtures/src/PROGRAM.c with `compiler` (gcc, clang-19...), `-g -c`
/// and `flags` into `dir`; returns the object's path.
pub fn build_c(dir: &Path, compiler: &str, program: &str, flags: &[&str]) -> PathBuf {
    let object = dir.join(format!("{program}.{compiler}{}.o", flags.concat()));
    let out = run(Command::new(compiler)
        .args(["-g", "-c"])
        .args(flags)
        .arg(fixture(&format!("src/{program}.c")))
        .arg("-o")
        .arg(&object));
    assert!(
        out.status.success(),
        "{compiler}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

/// failure. Returns the object path.
pub fn compile_ir(dir: &Path, name: &str, text: &str, flags: &[&str]) -> PathBuf {
    let ll = dir.join(format!("{name}.ll"));
    std::fs::write(&ll, text).unwrap();
    let object = dir.join(format!("{name}.o"));
    let mut args = vec![
        "compile",
        ll.to_str().unwrap(),
        "-o",
        object.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    let out = dwarfsmith(&args);
    assert!(
        out.status.success(),
        "dwarfsmith {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

/// A function's instructions as objdump prints them (Intel syntax, without
/// bytes; an instruction line is an indented `address:<tab>`), one per line
/// with its indentation trimmed (expect-test's dedent
/// would eat it), the padding after the last `ret`/`ud2`/`jmp` dropped.
pub fn function_listing(object: &Path, function: &str) -> String {
    let out = run(Command::new("objdump")
        .args(["-d", "--no-show-raw-insn", "-M", "intel"])
        .arg(format!("--disassemble={function}"))
        .arg(object));
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| l.starts_with(' ') && l.contains(":\t") && !l.ends_with("\tnop"))
        .map(|l| l.trim().to_string() + "\n")
        .collect()
}

/// `readelf -W FLAG object`, asserting it succeeded.
pub fn readelf(flag: &str, object: &Path) -> String {
    let out = run(Command::new("readelf").arg("-W").arg(flag).arg(object));
    assert!(out.status.success(), "readelf {flag} {}", object.display());
    String::from_utf8(out.stdout).unwrap()
}

/// its standard output (it must exit with 0).
pub fn gcc_link_and_run(dir: &Path, name: &str, inputs: &[PathBuf], flags: &[&str]) -> String {
    let exe = dir.join(name);
    gcc_link(&exe, inputs, flags);
    run_program(&exe)
}

/// (type, binding, visibility) of each named symbol in `readelf -s` output.
pub fn symbol_kinds(symbols: &str, names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|name| {
            let row = symbols
                .lines()
                .find(|line| line.split_whitespace().nth(7) == Some(name))
                .unwrap_or_else(|| panic!("no symbol {name} in\n{symbols}"));
            let fields: Vec<&str> = row.split_whitespace().collect();
            (name.to_string(), fields[3..6].join(" "))
        })
        .collect()
}

/// Compiles the IR text `module` (file name `name`) with the dwarfsmith
/// library at `opt_level` without debug information, and with llc-19 -O2;
/// links each object with the C `driver` by gcc and runs it. Returns the
/// standard output of our program and of llc's, for tests that compare them.
pub fn outputs_of_ours_and_llc(
    dir: &Path,
    module: &str,
    name: &str,
    opt_level: dwarfsmith::OptLevel,
    driver: &str,
) -> (String, String) {
    let parsed = dwarfsmith::ir::parse::parse_module(module, name).unwrap();
    let options = dwarfsmith::codegen::CodegenOptions {
        opt_level,
        debug_info: false,
    };
    let compiled =
        dwarfsmith::codegen::compile_module(&parsed, &options).unwrap_or_else(|e| panic!("{e}"));
    let write_options = dwarfsmith_emit::write::WriteOptions {
        debugger_tune: dwarfsmith_emit::write::DebuggerTune::Gdb,
    };
    let ours = dir.join("ours.o");
    std::fs::write(
        &ours,
        dwarfsmith_emit::write::write(&compiled.object, &write_options).unwrap(),
    )
    .unwrap();
    let ll = dir.join(name);
    std::fs::write(&ll, module).unwrap();
    let theirs = dir.join("theirs.o");
    llc_object(&ll, &theirs, &["-O2", "-relocation-model=pic"]);
    let driver_path = dir.join("driver.c");
    std::fs::write(&driver_path, driver).unwrap();
    let run_linked = |object: &Path, exe_name: &str| {
        let exe = dir.join(exe_name);
        let out = run(Command::new("gcc")
            .arg(&driver_path)
            .arg(object)
            .arg("-o")
            .arg(&exe));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = run(&mut Command::new(&exe));
        assert!(
            out.status.success(),
            "{exe_name} exited with {}",
            out.status
        );
        String::from_utf8(out.stdout).unwrap()
    };
    (run_linked(&ours, "ours"), run_linked(&theirs, "theirs"))
}

/// Compiles the IR file `ll` with llc-19 (and `flags`) into `object`,
/// asserting it succeeded.
pub fn llc_object(ll: &Path, object: &Path, flags: &[&str]) {
    let out = run(Command::new("llc-19")
        .args(flags)
        .arg("-filetype=obj")
        .arg("-o")
        .arg(object)
        .arg(ll));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
