//! Bad models give a `WriteError` that names what is wrong, never a panic
//! (gimli and object panic on several of these when not checked first).

use dwarfsmith_emit::model::{
    CfiInstruction, CfiRow, ChildScope, DataObject, DataSection, DebugInfo, Function,
    GlobalVariable, LineRow, Location, LocationArg, LocationEntry, ObjectModel, Op, Relocation,
    RelocationKind, Scope, SourceFile, Subprogram, Symbol, Variable, VariableLocation,
};
use dwarfsmith_emit::write::{write, WriteOptions};
use expect_test::{expect, Expect};

/// A valid model: `f` (4 bytes) with one subprogram and one variable `v`
/// in edi over [0, 4).
fn valid() -> ObjectModel {
    ObjectModel {
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions: vec![Function {
            name: "f".to_string(),
            global: true,
            code: vec![0x90, 0x90, 0x90, 0xc3],
            ..Function::default()
        }],
        data: vec![],
        debug: Some(DebugInfo {
            producer: "test".to_string(),
            language: 0x1d,
            name: "f.c".to_string(),
            comp_dir: "/src".to_string(),
            files: vec![SourceFile {
                name: "f.c".to_string(),
                directory: "/src".to_string(),
                md5: None,
            }],
            types: vec![],
            subprograms: vec![Subprogram {
                name: "f".to_string(),
                linkage_name: None,
                file: 0,
                line: 1,
                return_type: None,
                external: true,
                prototyped: true,
                function: Some(0),
                declaration: false,
                calls: dwarfsmith_emit::model::Calls::default(),
                scope: Scope {
                    variables: vec![Variable {
                        name: "v".to_string(),
                        arg: None,
                        ty: None,
                        file: 0,
                        line: 2,
                        location: list(vec![(0, 4, edi_location(vec![Op::Arg(0)]))]),
                        ..Default::default()
                    }],
                    children: vec![],
                },
                ..Default::default()
            }],
            line_rows: vec![vec![LineRow {
                offset: 0,
                file: 0,
                line: 1,
                column: 1,
                is_stmt: true,
                prologue_end: false,
                epilogue_begin: false,
            }]],
            globals: vec![],
            ..Default::default()
        }),
    }
}

fn edi_location(ops: Vec<Op>) -> Location {
    Location {
        args: vec![LocationArg::Register {
            register: 5,
            bits: 32,
            signed: true,
        }],
        ops,
    }
}

fn list(entries: Vec<(u64, u64, Location)>) -> VariableLocation {
    VariableLocation::List {
        function: 0,
        entries: entries
            .into_iter()
            .map(|(start, end, location)| LocationEntry {
                start,
                end,
                location,
            })
            .collect(),
    }
}

fn debug(model: &mut ObjectModel) -> &mut DebugInfo {
    model.debug.as_mut().unwrap()
}

fn variable(model: &mut ObjectModel) -> &mut Variable {
    &mut debug(model).subprograms[0].scope.variables[0]
}

fn check(break_it: impl FnOnce(&mut ObjectModel), expect: Expect) {
    let mut model = valid();
    write(&model, &WriteOptions::default()).expect("the base model is valid");
    break_it(&mut model);
    let error = write(&model, &WriteOptions::default()).expect_err("the model is broken");
    expect.assert_eq(&error.to_string());
}

#[test]
fn relocation_past_the_code() {
    check(
        |m| {
            m.functions[0].relocations.push(Relocation {
                offset: 2,
                kind: RelocationKind::Pc32,
                symbol: Symbol::Named("g".to_string()),
                addend: -4,
            })
        },
        expect![[r#"function `f`: relocation at 0x2 runs past the end (4 bytes)"#]],
    );
}

#[test]
fn symbol_defined_twice() {
    check(
        |m| {
            m.data.push(DataObject {
                aliases: Vec::new(),
                comdat: None,
                binding: Default::default(),
                section_name: None,
                name: "f".to_string(),
                global: false,
                section: DataSection::Data,
                align: 4,
                bytes: vec![0; 4],
                relocations: vec![],
            })
        },
        expect![[r#"symbol `f` is defined twice"#]],
    );
}

#[test]
fn alignment_not_a_power_of_two() {
    check(
        |m| {
            m.data.push(DataObject {
                aliases: Vec::new(),
                comdat: None,
                binding: Default::default(),
                section_name: None,
                name: "d".to_string(),
                global: false,
                section: DataSection::ReadOnly,
                align: 3,
                bytes: vec![0; 4],
                relocations: vec![],
            })
        },
        expect![[r#"data object `d`: alignment 3 is not a power of two"#]],
    );
}

#[test]
fn jump_table_relocation_without_rodata() {
    check(
        |m| {
            m.functions[0].relocations.push(Relocation {
                offset: 0,
                kind: RelocationKind::Pc32,
                symbol: Symbol::FunctionData(0),
                addend: 0,
            })
        },
        expect![[r#"function `f`: relocation against the rodata of function 0, which has none"#]],
    );
}

#[test]
fn code_relocation_to_a_missing_function() {
    check(
        |m| {
            m.functions[0].relocations.push(Relocation {
                offset: 0,
                kind: RelocationKind::Pc32,
                symbol: Symbol::FunctionCode {
                    function: 3,
                    offset: 0,
                },
                addend: 0,
            })
        },
        expect![[r#"function `f`: relocation against function 3, which does not exist"#]],
    );
}

#[test]
fn cfi_rows_out_of_order() {
    check(
        |m| {
            m.functions[0].cfi = vec![
                CfiRow {
                    offset: 3,
                    instruction: CfiInstruction::DefCfaOffset(16),
                },
                CfiRow {
                    offset: 1,
                    instruction: CfiInstruction::DefCfaOffset(8),
                },
            ]
        },
        expect![[r#"CFI of `f`: row at 0x1 comes after one at 0x3"#]],
    );
}

#[test]
fn line_row_past_the_code() {
    check(
        |m| debug(m).line_rows[0][0].offset = 4,
        expect![[r#"line rows of `f`: row at 0x4 is out of order or past the code (4 bytes)"#]],
    );
}

#[test]
fn line_row_naming_a_missing_file() {
    check(
        |m| debug(m).line_rows[0][0].file = 2,
        expect![[r#"line rows of `f`: row at 0x0 names file 2, which does not exist"#]],
    );
}

#[test]
fn compilation_directory_with_a_nul_byte() {
    check(
        |m| debug(m).comp_dir = "/tmp\0x".to_string(),
        expect![[r#"line table: the compilation directory contains a NUL byte: "/tmp\0x""#]],
    );
}

/// An empty compilation directory and empty file names are legal (LLVM
/// writes `DIFile(filename: "", directory: "")` as it is): the object is
/// written and its line table names them.
#[test]
fn empty_compilation_directory_and_file_names_are_written() {
    let mut model = valid();
    let debug = debug(&mut model);
    debug.comp_dir.clear();
    for file in &mut debug.files {
        file.name.clear();
        file.directory.clear();
    }
    let bytes = write(&model, &WriteOptions::default()).unwrap();
    let problems = dwarfsmith_emit::verify::verify(&bytes);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn variable_of_a_missing_type() {
    check(
        |m| variable(m).ty = Some(7),
        expect![[r#"subprogram `f` variable `v` refers to type 7, which does not exist"#]],
    );
}

#[test]
fn overlapping_location_entries() {
    check(
        |m| {
            variable(m).location = list(vec![
                (0, 3, edi_location(vec![Op::Arg(0)])),
                (
                    2,
                    4,
                    edi_location(vec![Op::Arg(0), Op::Neg, Op::StackValue]),
                ),
            ])
        },
        expect!["subprogram `f` variable `v`: location entry [0x2, 0x4) ends before it starts, overlaps the one before, or runs past the function (4 bytes)"],
    );
}

#[test]
fn argument_out_of_range() {
    check(
        |m| variable(m).location = list(vec![(0, 4, edi_location(vec![Op::Arg(1)]))]),
        expect![[
            r#"subprogram `f` variable `v`: DW_OP_LLVM_arg 1 but the location has 1 argument(s)"#
        ]],
    );
}

#[test]
fn stack_value_not_last() {
    check(
        |m| {
            variable(m).location =
                VariableLocation::Single(edi_location(vec![Op::Arg(0), Op::StackValue, Op::Neg]))
        },
        expect![[
            r#"subprogram `f` variable `v`: DW_OP_stack_value is not the last operation of its piece"#
        ]],
    );
}

#[test]
fn operation_without_operands() {
    check(
        |m| {
            variable(m).location =
                VariableLocation::Single(edi_location(vec![Op::Arg(0), Op::Plus, Op::StackValue]))
        },
        expect![[r#"subprogram `f` variable `v`: Plus with too few values on the stack"#]],
    );
}

#[test]
fn ranges_in_an_abstract_subprogram() {
    check(
        |m| {
            let subprogram = &mut debug(m).subprograms[0];
            subprogram.function = None;
            subprogram.scope.children.push(ChildScope::Lexical {
                ranges: vec![(0, 2)],
                scope: Scope::default(),
            });
        },
        expect![[
            r#"subprogram `f` lexical block has address ranges but its subprogram has no code"#
        ]],
    );
}

#[test]
fn inlined_call_of_a_missing_subprogram() {
    check(
        |m| {
            debug(m).subprograms[0]
                .scope
                .children
                .push(ChildScope::Inlined {
                    origin: 5,
                    ranges: vec![(0, 2)],
                    call_file: 0,
                    call_line: 3,
                    call_column: 1,
                    scope: Scope::default(),
                })
        },
        expect![[r#"subprogram `f` inlined call has origin 5, which does not exist"#]],
    );
}

#[test]
fn block_range_past_the_function() {
    check(
        |m| {
            debug(m).subprograms[0]
                .scope
                .children
                .push(ChildScope::Lexical {
                    ranges: vec![(2, 9)],
                    scope: Scope::default(),
                })
        },
        expect!["subprogram `f` lexical block: range [0x2, 0x9) ends before it starts or runs past the function (4 bytes)"],
    );
}

#[test]
fn global_in_a_missing_data_object() {
    check(
        |m| {
            debug(m).globals.push(GlobalVariable {
                function: None,
                name: "g".to_string(),
                linkage_name: None,
                ty: None,
                file: 0,
                line: 1,
                external: true,
                data: Some(0),
                context: None,
                specification: Default::default(),
            })
        },
        expect!["global variable `g` lives in data object 0, which does not exist"],
    );
}
