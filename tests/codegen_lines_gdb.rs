//! The line table under gdb: an object carrying only code and line rows
//! (no variables) steps like llc-19's object of the same -O0 IR.

use std::path::Path;
use std::process::Command;

use dwarfsmith::codegen::{compile_module, CodegenOptions};
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::OptLevel;
use dwarfsmith_emit::model::{DebugInfo, LineRow, Scope, SourceFile, Subprogram};
use dwarfsmith_emit::write::{write, DebuggerTune, WriteOptions};

fn fixture(relative: &str) -> String {
    format!("{}/fixtures/{relative}", env!("CARGO_MANIFEST_DIR"))
}

/// Compiles `program`.O0.ll into an object whose DWARF has the line table
/// and one subprogram per function, all in file 0.
fn object_with_lines(dir: &Path, program: &str) -> std::path::PathBuf {
    let name = format!("{program}.O0.ll");
    let module = parse_module(
        &std::fs::read_to_string(fixture(&format!("ll/{name}"))).unwrap(),
        &name,
    )
    .unwrap();
    let mut compiled = compile_module(
        &module,
        &CodegenOptions {
            opt_level: OptLevel::O0,
            debug_info: true,
        },
    )
    .unwrap();
    let mut debug = DebugInfo {
        producer: "dwarfsmith test".into(),
        language: 0x1d, // DW_LANG_C11
        name: format!("{program}.c"),
        comp_dir: fixture("src"),
        files: vec![SourceFile {
            name: format!("{program}.c"),
            directory: fixture("src"),
            md5: None,
        }],
        ..DebugInfo::default()
    };
    for (i, f) in compiled.functions.iter().enumerate() {
        let ir = &module.functions[f.ir_function];
        let line = ir
            .subprogram
            .and_then(|s| module.debug.subprogram(s))
            .map_or(0, |s| s.line);
        debug.subprograms.push(Subprogram {
            name: ir.name.clone(),
            linkage_name: None,
            file: 0,
            line,
            return_type: None,
            external: true,
            prototyped: true,
            function: Some(i),
            declaration: false,
            calls: dwarfsmith_emit::model::Calls::default(),
            scope: Scope::default(),
            ..Default::default()
        });
        debug.line_rows.push(
            f.line_entries
                .iter()
                .map(|e| LineRow {
                    offset: e.offset,
                    file: 0,
                    line: e.line,
                    column: e.column,
                    is_stmt: e.is_stmt,
                    prologue_end: e.prologue_end,
                    epilogue_begin: e.epilogue_begin,
                })
                .collect(),
        );
    }
    compiled.object.debug = Some(debug);
    let bytes = write(
        &compiled.object,
        &WriteOptions {
            debugger_tune: DebuggerTune::Gdb,
        },
    )
    .unwrap();
    let object = dir.join(format!("{program}.o"));
    std::fs::write(&object, bytes).unwrap();
    object
}

fn link(dir: &Path, object: &Path, program: &str, exe_name: &str) -> std::path::PathBuf {
    let exe = dir.join(exe_name);
    let out = Command::new("gcc")
        .args(["-g", "-O0"])
        .arg(fixture(&format!("src/{program}.driver.c")))
        .arg(object)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

/// The lines gdb shows breaking on `function` and stepping with `next`
/// until control returns to main (first call only).
fn stepped_lines(exe: &Path, function: &str) -> Vec<u32> {
    let mut cmd = Command::new("gdb");
    cmd.args([
        "-nx",
        "-batch",
        "-q",
        "-ex",
        &format!("break {function}"),
        "-ex",
        "run",
    ]);
    for _ in 0..60 {
        cmd.args(["-ex", "next"]);
    }
    // From the sources' directory, so both objects' sources are found and
    // gdb prints each stop's line on stdout.
    let out = cmd.arg(exe).current_dir(fixture("src")).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.starts_with("main ()") || line.contains(" in main ") {
            break;
        }
        if let Some(n) = line.split(['\t', ' ']).next().and_then(|n| n.parse().ok()) {
            lines.push(n);
        }
    }
    lines
}

/// Ours and llc-19's -O0 objects step through the same lines.
fn check(program: &str, function: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ours = object_with_lines(dir.path(), program);
    let theirs = dir.path().join("llc.o");
    let out = Command::new("llc-19")
        .args(["-O0", "-filetype=obj", "-relocation-model=pic", "-o"])
        .arg(&theirs)
        .arg(fixture(&format!("ll/{program}.O0.ll")))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = stepped_lines(&link(dir.path(), &ours, program, "ours"), function);
    let theirs = stepped_lines(&link(dir.path(), &theirs, program, "theirs"), function);
    assert!(
        theirs.len() > 3,
        "llc-19's stepping looks wrong: {theirs:?}"
    );
    assert_eq!(ours, theirs, "{program} {function}");
}

#[test]
fn sum_scaled_steps_like_llc() {
    check("sum_array", "sum_scaled");
}

#[test]
fn dot_steps_like_llc() {
    check("sum_array", "dot");
}

#[test]
fn classify_steps_like_llc() {
    check("switch_table", "classify");
}

#[test]
fn sort_steps_like_llc() {
    check("sort", "insertion_sort");
}
