//! End to end through the library, without the DWARF builder: every corpus
//! program, from every IR form, is compiled by `codegen::compile_module`,
//! written by `dwarfsmith_emit::write::write`, linked by gcc with its C
//! driver (default PIE) and run; its stdout must be exactly the expected
//! output. Also: the machine code is identical with and without debug info.

use std::path::Path;
use std::process::Command;

use dwarfsmith::codegen::{compile_module, CodegenOptions, CompiledModule};
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::OptLevel;
use dwarfsmith_emit::write::{write, DebuggerTune, WriteOptions};

fn fixture(relative: &str) -> String {
    format!("{}/fixtures/{relative}", env!("CARGO_MANIFEST_DIR"))
}

fn compile(program: &str, form: &str, debug_info: bool) -> CompiledModule {
    let name = format!("{program}.{form}.ll");
    let text = std::fs::read_to_string(fixture(&format!("ll/{name}"))).unwrap();
    let module = parse_module(&text, &name).unwrap();
    let opt_level = if form == "O0" {
        OptLevel::O0
    } else {
        OptLevel::O2
    };
    compile_module(
        &module,
        &CodegenOptions {
            opt_level,
            debug_info,
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Compiles, links and runs one (program, form) and checks its output.
fn check(program: &str, form: &str) {
    let compiled = compile(program, form, true);
    let bytes = write(
        &compiled.object,
        &WriteOptions {
            debugger_tune: DebuggerTune::Gdb,
        },
    )
    .unwrap_or_else(|e| panic!("{program}.{form}: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let object = dir.path().join(format!("{program}.{form}.o"));
    std::fs::write(&object, bytes).unwrap();
    let exe = dir.path().join(format!("{program}.{form}.exe"));
    let out = Command::new("gcc")
        .arg(fixture(&format!("src/{program}.driver.c")))
        .arg(&object)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gcc failed to link {program}.{form}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(Path::new(&exe)).output().unwrap();
    assert!(
        run.status.success(),
        "{program}.{form} exited with {}",
        run.status
    );
    let expected = std::fs::read_to_string(fixture(&format!("expected/{program}.out"))).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        expected,
        "{program}.{form}"
    );
    // The code does not depend on debug info.
    let without = compile(program, form, false);
    for (with, without) in compiled
        .object
        .functions
        .iter()
        .zip(&without.object.functions)
    {
        assert_eq!(with.code, without.code, "{program}.{form} @{}", with.name);
    }
}

macro_rules! corpus_tests {
    ($($program:ident),* $(,)?) => {
        $(
            mod $program {
                #[test]
                fn o2_records() { super::check(stringify!($program), "O2") }
                #[test]
                fn o2_intrinsics() { super::check(stringify!($program), "O2.intrinsics") }
                #[test]
                fn o2_llvm14() { super::check(stringify!($program), "O2.llvm14") }
                #[test]
                fn o0() { super::check(stringify!($program), "O0") }
            }
        )*
    };
}

corpus_tests!(
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
