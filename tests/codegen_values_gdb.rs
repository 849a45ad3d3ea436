//! Variable locations under gdb: every value gdb shows for an -O2 build is
//! the value the -O0 build shows at the same breakpoint (first hit), before
//! or right after the line runs (a constant the IR assigns at the start of
//! its block is visible from there).
//!
//! Only programs whose first stop on a line is the same call and iteration
//! in both builds are compared: in loops the two layouts make gdb's first
//! hit land in different iterations (gdb keeps the lowest address of a line
//! per block, e.g. the remainder loop of an unrolled one), and some -O2 IR
//! records speculate (str_len's `p` is incremented before the exit test),
//! which this comparison cannot tell from a wrong location.
//!
//! Both objects come from this crate; their DWARF is built here minimally
//! (one file, base and pointer types, every variable of the function in its
//! outermost scope) from `compile_module`'s line rows and variable ranges,
//! with the shared `debuginfo::locations::describe` composing fragments.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use dwarfsmith::codegen::{compile_module, CodegenOptions, CompiledModule};
use dwarfsmith::debuginfo::locations::{describe, Fragment, LocationRange};
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::{MdId, MdNode, Module};
use dwarfsmith::OptLevel;
use dwarfsmith_emit::model::{DebugInfo, LineRow, Scope, SourceFile, Subprogram, Type, Variable};
use dwarfsmith_emit::write::{write, DebuggerTune, WriteOptions};

fn fixture(relative: &str) -> String {
    format!("{}/fixtures/{relative}", env!("CARGO_MANIFEST_DIR"))
}

/// The emit type of a DI type: base types and pointers only.
fn emit_type(module: &Module, types: &mut Vec<Type>, ty: Option<MdId>) -> Option<usize> {
    let node = module.debug.node(ty?);
    let made = match node {
        MdNode::BasicType(b) => Type::Base {
            name: b.name.clone(),
            byte_size: b.size / 8,
            encoding: match b.encoding.as_deref() {
                Some("DW_ATE_signed") => 5,
                Some("DW_ATE_signed_char") => 6,
                Some("DW_ATE_unsigned") => 7,
                Some("DW_ATE_unsigned_char") => 8,
                Some("DW_ATE_boolean") => 2,
                _ => return None,
            },
        },
        MdNode::DerivedType(d) if d.tag == "DW_TAG_pointer_type" => {
            Type::Pointer(emit_type(module, types, d.base_type))
        }
        MdNode::DerivedType(d) if d.tag == "DW_TAG_const_type" || d.tag == "DW_TAG_typedef" => {
            return emit_type(module, types, d.base_type)
        }
        _ => return None,
    };
    types.push(made);
    Some(types.len() - 1)
}

fn type_bits(module: &Module, ty: Option<MdId>) -> Option<u64> {
    match module.debug.node(ty?) {
        MdNode::BasicType(b) => Some(b.size),
        MdNode::DerivedType(d) if d.tag == "DW_TAG_pointer_type" => Some(64),
        MdNode::DerivedType(d) => type_bits(module, d.base_type),
        _ => None,
    }
}

/// Compiles fixture `program.form.ll` into an object with a minimal DWARF.
fn build(dir: &Path, program: &str, form: &str) -> PathBuf {
    let name = format!("{program}.{form}.ll");
    let mut module = parse_module(
        &std::fs::read_to_string(fixture(&format!("ll/{name}"))).unwrap(),
        &name,
    )
    .unwrap();
    dwarfsmith::codegen::debug_prep::prepare(&mut module);
    let opt_level = if form == "O0" {
        OptLevel::O0
    } else {
        OptLevel::O2
    };
    let mut compiled: CompiledModule = compile_module(
        &module,
        &CodegenOptions {
            opt_level,
            debug_info: true,
        },
    )
    .unwrap();
    let mut debug = DebugInfo {
        producer: "dwarfsmith test".into(),
        language: 0x1d,
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
        let sp = ir.subprogram.and_then(|s| module.debug.subprogram(s));
        // Ranges of the function's own (not inlined) variables.
        let mut by_variable: BTreeMap<MdId, Vec<LocationRange>> = BTreeMap::new();
        for r in f
            .variable_ranges
            .iter()
            .filter(|r| r.key.inlined_at.is_none())
        {
            by_variable
                .entry(r.key.variable)
                .or_default()
                .push(LocationRange {
                    fragment: r.key.fragment.map(|(o, s)| Fragment {
                        offset_bits: o as u32,
                        size_bits: s as u32,
                    }),
                    start: r.start,
                    end: r.end,
                    location: r.location.clone(),
                });
        }
        let mut variables = Vec::new();
        for (id, ranges) in by_variable {
            let v = module.debug.variable(id).unwrap();
            let Some(ty) = emit_type(&module, &mut debug.types, v.ty) else {
                continue;
            };
            variables.push(Variable {
                name: v.name.clone(),
                arg: v.arg,
                ty: Some(ty),
                file: 0,
                line: v.line,
                location: describe(i, type_bits(&module, v.ty), &[(0, f.code_size)], &ranges),
                ..Default::default()
            });
        }
        variables.sort_by_key(|v| (v.arg.is_none(), v.arg, v.name.clone()));
        debug.subprograms.push(Subprogram {
            name: ir.name.clone(),
            linkage_name: None,
            file: 0,
            line: sp.map_or(0, |s| s.line),
            return_type: None,
            external: true,
            prototyped: true,
            function: Some(i),
            declaration: false,
            calls: dwarfsmith_emit::model::Calls::default(),
            scope: Scope {
                variables,
                children: Vec::new(),
            },
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
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let object = dir.join(format!("{program}.{form}.o"));
    std::fs::write(&object, bytes).unwrap();
    // The location lists made from the ranges are valid DWARF. (Checked on
    // the lldb tuning: llvm-dwarfdump-19 cannot decode the DW_OP_const_type
    // the gdb tuning writes for constants in typed expressions.)
    let lldb = write(
        &compiled.object,
        &WriteOptions {
            debugger_tune: DebuggerTune::Lldb,
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let lldb_object = dir.join(format!("{program}.{form}.lldb.o"));
    std::fs::write(&lldb_object, lldb).unwrap();
    let verify = Command::new("llvm-dwarfdump-19")
        .arg("--verify")
        .arg(&lldb_object)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&verify.stdout);
    assert!(
        verify.status.success() && !report.contains("error:"),
        "llvm-dwarfdump --verify {name}:\n{report}"
    );
    let exe = dir.join(format!("{program}.{form}.exe"));
    let out = Command::new("gcc")
        .args(["-g", "-O0"])
        .arg(fixture(&format!("src/{program}.driver.c")))
        .arg(&object)
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

/// What gdb shows at the first stop on a line: arguments and locals, and
/// every value after stepping over the line.
struct Stop {
    args: BTreeMap<String, String>,
    locals: BTreeMap<String, String>,
    after: BTreeMap<String, String>,
}

/// The first stop on `line` (`None` if gdb does not stop on that very line).
fn values_at(exe: &Path, file: &str, line: u32) -> Option<Stop> {
    let out = Command::new("gdb")
        .args(["-nx", "-batch", "-q"])
        .args(["-ex", &format!("break {file}:{line}")])
        .args(["-ex", "run", "-ex", "echo ARGS\\n", "-ex", "info args"])
        .args(["-ex", "echo LOCALS\\n", "-ex", "info locals"])
        .args(["-ex", "next", "-ex", "echo AFTER\\n", "-ex", "info args"])
        .args(["-ex", "info locals"])
        .arg(exe)
        .current_dir(fixture("src"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let stop_line = text
        .lines()
        .find(|l| l.starts_with("Breakpoint 1,"))?
        .rsplit(':')
        .next()?
        .trim()
        .parse::<u32>()
        .ok()?;
    if stop_line != line {
        return None;
    }
    let mut stop = Stop {
        args: BTreeMap::new(),
        locals: BTreeMap::new(),
        after: BTreeMap::new(),
    };
    let mut section = 0;
    for l in text.lines() {
        match l {
            "ARGS" => section = 0,
            "LOCALS" => section = 1,
            "AFTER" => section = 2,
            _ => {
                if let Some((name, value)) = l.split_once(" = ") {
                    if !name.contains(' ') {
                        let map = match section {
                            0 => &mut stop.args,
                            1 => &mut stop.locals,
                            _ => &mut stop.after,
                        };
                        map.insert(name.to_string(), value.to_string());
                    }
                }
            }
        }
    }
    Some(stop)
}

/// At every line of `lines`, each value the -O2 build (of `form`) shows
/// equals the -O0 build's; returns how many values were compared.
fn check(program: &str, form: &str, lines: &[u32]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let o0 = build(dir.path(), program, "O0");
    let o2 = build(dir.path(), program, form);
    let file = format!("{program}.c");
    let mut compared = 0;
    let mut wrong = Vec::new();
    for &line in lines {
        let (Some(reference), Some(optimised)) =
            (values_at(&o0, &file, line), values_at(&o2, &file, line))
        else {
            continue;
        };
        // The first stop on a line may be in another call at -O2 (code
        // if-converted or moved): compare only the same call, known by
        // its arguments.
        let available = |m: &BTreeMap<String, String>| {
            m.iter()
                .filter(|(_, v)| !v.contains("<optimized out>"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Vec<_>>()
        };
        if available(&optimised.args)
            .iter()
            .any(|(k, v)| reference.args.get(k) != Some(v))
        {
            continue;
        }
        let after = reference.after;
        let reference: BTreeMap<String, String> =
            reference.args.into_iter().chain(reference.locals).collect();
        let optimised: BTreeMap<String, String> =
            optimised.args.into_iter().chain(optimised.locals).collect();
        for (name, value) in &optimised {
            if value.contains("<optimized out>") {
                continue;
            }
            compared += 1;
            // The value before the line, or (a constant the IR assigns at
            // its block's start) after it.
            if reference.get(name) != Some(value) && after.get(name) != Some(value) {
                wrong.push(format!(
                    "line {line}: {name} = {value} at -O2, {:?} at -O0",
                    reference.get(name)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{program}.{form}:\n{}", wrong.join("\n"));
    compared
}

/// Every source line of the program's -O2 build against its -O0 build.
fn check_program(program: &str, at_least: usize) {
    let source = std::fs::read_to_string(fixture(&format!("src/{program}.c"))).unwrap();
    let lines: Vec<u32> = (1..=source.lines().count() as u32).collect();
    let compared = check(program, "O2", &lines);
    assert!(
        compared >= at_least,
        "{program}: only {compared} values compared"
    );
}

macro_rules! value_tests {
    ($($program:ident: $at_least:expr),* $(,)?) => {
        $(
            #[test]
            fn $program() {
                check_program(stringify!($program), $at_least);
            }
        )*
    };
}

value_tests!(
    arith_temps: 20,
    bits: 5,
    many_args: 10,
    recursion: 3,
    select_diamond: 8,
    sort: 3,
    structs: 1,
    switch_table: 3,
);
