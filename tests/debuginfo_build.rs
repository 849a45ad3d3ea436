//! The DWARF description built from IR metadata: scopes from where the
//! instructions came from (lexical blocks, inlined calls with their call
//! sites), variables in their own scopes, types, files and line rows.
//! The code is synthetic (each IR instruction a 4-byte machine instruction),
//! so the test pins the builder alone, before any code generation.

use std::fmt::Write;

use dwarfsmith::codegen::{FunctionDebug, LineEntry};
use dwarfsmith::debuginfo::build;
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith_emit::model::{ChildScope, DebugInfo, Scope, VariableLocation};
use expect_test::{expect, Expect};

/// Every IR instruction of every defined function becomes 4 bytes of code.
fn synthetic_functions(module: &dwarfsmith::ir::Module) -> Vec<FunctionDebug> {
    let mut functions = Vec::new();
    for (index, function) in module.functions.iter().enumerate() {
        if function.is_declaration() {
            continue;
        }
        let mut lines: Vec<LineEntry> = Vec::new();
        let mut offset = 0;
        for block in &function.blocks {
            for &inst in &block.insts {
                let loc = function.inst(inst).dbg;
                if lines.last().map(|l| l.loc) != Some(loc) {
                    let location = loc.map(|l| module.debug.location(l));
                    lines.push(LineEntry {
                        offset,
                        loc,
                        file: function
                            .subprogram
                            .and_then(|sp| module.debug.subprogram(sp)?.file),
                        line: location.map_or(0, |l| l.line),
                        column: location.map_or(0, |l| l.column),
                        is_stmt: true,
                        prologue_end: offset == 0,
                        epilogue_begin: false,
                    });
                }
                offset += 4;
            }
        }
        functions.push(FunctionDebug {
            ir_function: index,
            code_size: offset,
            line_entries: lines,
            variable_ranges: Vec::new(),
            call_sites: Vec::new(),
        });
    }
    functions
}

fn print_scope(info: &DebugInfo, scope: &Scope, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for v in &scope.variables {
        let location = match &v.location {
            VariableLocation::None => "no location",
            VariableLocation::Single(_) => "single",
            VariableLocation::List { .. } => "list",
        };
        let _ = writeln!(
            out,
            "{pad}var {} arg={:?} line={} type={:?} {location}",
            v.name, v.arg, v.line, v.ty
        );
    }
    for child in &scope.children {
        match child {
            ChildScope::Lexical { ranges, scope } => {
                let _ = writeln!(out, "{pad}block {ranges:?}");
                print_scope(info, scope, depth + 1, out);
            }
            ChildScope::Inlined {
                origin,
                ranges,
                call_file,
                call_line,
                call_column,
                scope,
            } => {
                let _ = writeln!(
                    out,
                    "{pad}inlined {} {ranges:?} call {call_file}:{call_line}:{call_column}",
                    info.subprograms[*origin].name
                );
                print_scope(info, scope, depth + 1, out);
            }
        }
    }
}

fn check(ll: &str, expected: Expect) {
    let path = format!("{}/fixtures/ll/{ll}", env!("CARGO_MANIFEST_DIR"));
    let module = parse_module(&std::fs::read_to_string(path).unwrap(), ll).unwrap();
    let info = build(&module, &synthetic_functions(&module), &[]);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "cu {} in {} lang {:#x}",
        info.name,
        info.comp_dir.is_empty(),
        info.language
    );
    for f in &info.files {
        let _ = writeln!(out, "file {} md5 {}", f.name, f.md5.is_some());
    }
    for (i, t) in info.types.iter().enumerate() {
        let _ = writeln!(out, "type {i} {t:?}");
    }
    for sp in &info.subprograms {
        let _ = writeln!(
            out,
            "subprogram {} line {} function {:?} external {} return {:?}",
            sp.name, sp.line, sp.function, sp.external, sp.return_type
        );
        print_scope(&info, &sp.scope, 1, &mut out);
    }
    let rows = &info.line_rows[0];
    let _ = writeln!(out, "first rows of function 0:");
    for row in rows.iter().take(6) {
        let _ = writeln!(
            out,
            "  {:#x} {}:{}:{} stmt={}",
            row.offset, row.file, row.line, row.column, row.is_stmt
        );
    }
    expected.assert_eq(&out);
}

#[test]
fn inlined_calls_become_inlined_subroutines_with_their_variables() {
    check(
        "inlining.O2.ll",
        expect![[r#"
            cu inlining.c in false lang 0x1d
            file inlining.c md5 true
            type 0 Pointer(Some(1))
            type 1 Const(Some(2))
            type 2 Base { name: "int", byte_size: 4, encoding: 5 }
            subprogram clamp line 8 function None external false return Some(2)
              var v arg=Some(1) line=8 type=Some(2) no location
              var lo arg=Some(2) line=8 type=Some(2) no location
              var hi arg=Some(3) line=8 type=Some(2) no location
              var out arg=None line=9 type=Some(2) no location
            subprogram square line 3 function None external false return Some(2)
              var v arg=Some(1) line=3 type=Some(2) no location
              var sq arg=None line=4 type=Some(2) no location
            subprogram energy line 15 function Some(0) external true return Some(2)
              var samples arg=Some(1) line=15 type=Some(0) no location
              var n arg=Some(2) line=15 type=Some(2) no location
              var e arg=None line=16 type=Some(2) no location
              block [(0, 32), (44, 76), (100, 168)]
                var i arg=None line=17 type=Some(2) no location
                block [(0, 4), (8, 12), (52, 76), (100, 156)]
                  block [(52, 76), (100, 124), (128, 152)]
                    var s arg=None line=18 type=Some(2) no location
                    inlined clamp [(60, 68), (108, 116), (136, 144)] call 0:18:13
                      var v arg=Some(1) line=8 type=Some(2) no location
                      var lo arg=Some(2) line=8 type=Some(2) no location
                      var hi arg=Some(3) line=8 type=Some(2) no location
                      var out arg=None line=9 type=Some(2) no location
                    inlined square [(68, 72), (116, 120), (144, 148)] call 0:19:10
                      var v arg=Some(1) line=3 type=Some(2) no location
                      var sq arg=None line=4 type=Some(2) no location
            first rows of function 0:
              0x0 0:17:21 stmt=true
              0x4 0:17:3 stmt=true
              0x8 0:17:21 stmt=true
              0xc 0:17:3 stmt=true
              0x20 0:0:0 stmt=true
              0x2c 0:17:3 stmt=true
        "#]],
    );
}

#[test]
fn lexical_blocks_and_types_of_a_program_with_structs() {
    check(
        "structs.O2.ll",
        expect![[r#"
            cu structs.c in false lang 0x1d
            file structs.c md5 true
            type 0 Struct { scope: None, name: Some("pt"), kind: Structure, byte_size: Some(8), bases: [], members: [Member { name: "x", ty: 1, byte_offset: 0, bit_field: None, access: None, artificial: false, is_static: false, const_value: None }, Member { name: "y", ty: 1, byte_offset: 4, bit_field: None, access: None, artificial: false, is_static: false, const_value: None }], containing_type: None, passed: None, template_parameters: [], export_symbols: false }
            type 1 Base { name: "int", byte_size: 4, encoding: 5 }
            type 2 Array { element: 1, counts: [Some(4)], vector: None }
            subprogram area line 5 function Some(0) external true return Some(1)
              var a arg=Some(1) line=5 type=Some(0) no location
              var b arg=Some(2) line=5 type=Some(0) no location
              var d arg=None line=6 type=Some(0) no location
              var cells arg=None line=9 type=Some(2) no location
              var r arg=None line=11 type=Some(1) no location
            subprogram midpoint line 15 function Some(1) external true return Some(0)
              var a arg=Some(1) line=15 type=Some(0) no location
              var b arg=Some(2) line=15 type=Some(0) no location
              var m arg=None line=16 type=Some(0) no location
            first rows of function 0:
              0x0 0:0:0 stmt=true
              0x1c 0:7:13 stmt=true
              0x20 0:8:13 stmt=true
              0x24 0:9:3 stmt=true
              0x28 0:9:18 stmt=true
              0x44 0:10:3 stmt=true
        "#]],
    );
}
