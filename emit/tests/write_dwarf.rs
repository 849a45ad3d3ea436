//! DWARF written by `write` for one representative hand-built model that
//! uses every `Type`, every scope kind, every location kind and every `Op`:
//! llvm-dwarfdump (LLVM 14 and 19) must verify it without errors, and its
//! dump of .debug_info, .debug_loclists and .debug_line is pinned exactly.

mod write_support;

use dwarfsmith_emit::model::{
    Aggregate, CfiInstruction, CfiRow, ChildScope, DataObject, DataSection, DebugInfo, Function,
    GlobalVariable, LineRow, Location, LocationArg, LocationEntry, Member, ObjectModel, Op, Scope,
    SourceFile, Subprogram, Type, Variable, VariableLocation,
};
use dwarfsmith_emit::write::{write, DebuggerTune, WriteOptions};
use expect_test::{expect, Expect};
use write_support::{run_in, save, stderr, stdout};

const RAX: u16 = 0;
const RBX: u16 = 3;
const RSI: u16 = 4;
const RDI: u16 = 5;

fn register(register: u16, bits: u16, signed: bool) -> LocationArg {
    LocationArg::Register {
        register,
        bits,
        signed,
    }
}

fn location(args: Vec<LocationArg>, ops: Vec<Op>) -> Location {
    Location { args, ops }
}

fn entry(start: u64, end: u64, location: Location) -> LocationEntry {
    LocationEntry {
        start,
        end,
        location,
    }
}

fn variable(name: &str, arg: Option<u32>, ty: usize, line: u32, at: VariableLocation) -> Variable {
    Variable {
        name: name.to_string(),
        arg,
        ty: Some(ty),
        file: 0,
        line,
        location: at,
        ..Default::default()
    }
}

fn row(offset: u64, file: u32, line: u32, column: u32, is_stmt: bool) -> LineRow {
    LineRow {
        offset,
        file,
        line,
        column,
        is_stmt,
        prologue_end: false,
        epilogue_begin: false,
    }
}

const INT: usize = 0;
const UNSIGNED: usize = 15;

fn types() -> Vec<Type> {
    let base = |name: &str, byte_size, encoding| Type::Base {
        name: name.to_string(),
        byte_size,
        encoding,
    };
    let member = |name: &str, ty, byte_offset| Member {
        name: name.to_string(),
        ty,
        byte_offset,
        bit_field: None,
        access: None,
        artificial: false,
        is_static: false,
        const_value: Default::default(),
    };
    vec![
        base("int", 4, 5),           // 0
        base("unsigned char", 1, 8), // 1
        Type::Pointer(Some(1)),      // 2
        Type::Const(Some(0)),        // 3
        Type::Volatile(Some(0)),     // 4
        Type::Restrict(Some(2)),     // 5
        Type::Typedef {
            scope: None,
            name: "myint".to_string(),
            target: Some(0),
            access: None,
        }, // 6
        Type::Struct {
            scope: None,
            name: Some("pair".to_string()),
            kind: Aggregate::Structure,
            bases: Vec::new(),
            byte_size: Some(8),
            members: vec![member("a", 0, 0), member("b", 0, 4)],
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        }, // 7
        Type::Struct {
            scope: None,
            name: Some("either".to_string()),
            kind: Aggregate::Union,
            bases: Vec::new(),
            byte_size: Some(4),
            members: vec![member("i", 0, 0), member("c", 1, 0)],
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        }, // 8
        Type::Struct {
            scope: None,
            name: Some("opaque".to_string()),
            kind: Aggregate::Structure,
            bases: Vec::new(),
            byte_size: None,
            members: vec![],
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        }, // 9
        Type::Array {
            element: 0,
            counts: vec![Some(2), Some(3)],
            vector: None,
        }, // 10
        Type::Enum {
            scope: None,
            name: Some("color".to_string()),
            underlying: Some(15),
            byte_size: 4,
            enum_class: false,
            enumerators: vec![("RED".to_string(), 0), ("BLUE".to_string(), -1)],
        }, // 11
        Type::Subroutine {
            return_type: Some(0),
            parameters: vec![Some(0), Some(2)],
            this_parameter: false,
            variadic: false,
            prototyped: true,
        }, // 12
        Type::Pointer(None),         // 13
        Type::Pointer(Some(12)),     // 14
        base("unsigned int", 4, 7),  // 15
    ]
}

/// Every op and location kind, one entry each, 2 bytes apart from offset 40.
fn op_zoo() -> Vec<LocationEntry> {
    let edi = register(RDI, 32, true);
    let esi = register(RSI, 32, true);
    let cases = vec![
        location(
            vec![edi],
            vec![
                Op::Arg(0),
                Op::Constu(3),
                Op::Mul,
                Op::Consts(-2),
                Op::Plus,
                Op::PlusUconst(5),
                Op::StackValue,
            ],
        ),
        location(
            vec![edi, esi],
            vec![
                Op::Arg(0),
                Op::Arg(1),
                Op::Div,
                Op::Constu(7),
                Op::Mod,
                Op::StackValue,
            ],
        ),
        location(
            vec![edi],
            vec![
                Op::Arg(0),
                Op::Constu(0xff),
                Op::And,
                Op::Constu(0x100),
                Op::Or,
                Op::Constu(1),
                Op::Xor,
                Op::StackValue,
            ],
        ),
        location(
            vec![edi],
            vec![
                Op::Arg(0),
                Op::Constu(2),
                Op::Shl,
                Op::Constu(1),
                Op::Shr,
                Op::Constu(1),
                Op::Shra,
                Op::StackValue,
            ],
        ),
        location(
            vec![edi],
            vec![Op::Arg(0), Op::Neg, Op::Not, Op::StackValue],
        ),
        location(
            vec![LocationArg::FrameSlot(-24)],
            vec![Op::Arg(0), Op::Deref, Op::StackValue],
        ),
        location(
            vec![register(RBX, 64, false)],
            vec![
                Op::Arg(0),
                Op::DerefSize(4),
                Op::Convert {
                    bits: 32,
                    signed: false,
                },
                Op::Convert {
                    bits: 64,
                    signed: false,
                },
                Op::StackValue,
            ],
        ),
        location(
            vec![register(RAX, 32, false), LocationArg::Constant(9)],
            vec![
                Op::Arg(0),
                Op::Piece(2),
                Op::Piece(1),
                Op::Arg(1),
                Op::StackValue,
                Op::Piece(1),
            ],
        ),
        location(
            vec![LocationArg::FrameSlot(-32)],
            vec![Op::Arg(0), Op::StackValue],
        ),
        location(
            vec![register(RBX, 64, false), edi],
            vec![Op::Arg(0), Op::Arg(1), Op::Plus, Op::Deref, Op::StackValue],
        ),
        location(
            vec![register(RBX, 64, false)],
            vec![Op::Arg(0), Op::PlusUconst(16)],
        ),
    ];
    cases
        .into_iter()
        .enumerate()
        .map(|(index, location)| entry(40 + 2 * index as u64, 42 + 2 * index as u64, location))
        .collect()
}

fn representative_model() -> ObjectModel {
    let mut calc_code = vec![0x90; 63];
    calc_code.push(0xc3);
    let calc = Function {
        name: "calc".to_string(),
        global: true,
        binding: Default::default(),
        code: calc_code,
        cfi: vec![
            CfiRow {
                offset: 1,
                instruction: CfiInstruction::DefCfaOffset(16),
            },
            CfiRow {
                offset: 1,
                instruction: CfiInstruction::Offset {
                    register: 6,
                    offset: -16,
                },
            },
            CfiRow {
                offset: 4,
                instruction: CfiInstruction::DefCfaRegister(6),
            },
            CfiRow {
                offset: 62,
                instruction: CfiInstruction::DefCfa {
                    register: 7,
                    offset: 8,
                },
            },
        ],
        ..Function::default()
    };
    let helper = Function {
        name: "helper".to_string(),
        global: false,
        code: vec![0x90, 0x90, 0xc3],
        ..Function::default()
    };
    let edi = register(RDI, 32, true);
    let esi = register(RSI, 32, true);
    let square = Subprogram {
        name: "square".to_string(),
        linkage_name: None,
        file: 1,
        line: 3,
        return_type: Some(INT),
        external: false,
        prototyped: true,
        function: None,
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: Scope {
            variables: vec![Variable {
                file: 1,
                ..variable("x", Some(1), INT, 3, VariableLocation::None)
            }],
            children: vec![],
        },
        ..Default::default()
    };
    let inlined_x = |register_number| Scope {
        variables: vec![Variable {
            file: 1,
            ..variable(
                "x",
                Some(1),
                INT,
                3,
                VariableLocation::Single(location(
                    vec![register(register_number, 32, true)],
                    vec![Op::Arg(0)],
                )),
            )
        }],
        children: vec![],
    };
    let calc_scope = Scope {
        variables: vec![
            variable(
                "a",
                Some(1),
                INT,
                10,
                VariableLocation::Single(location(vec![edi], vec![Op::Arg(0)])),
            ),
            variable(
                "b",
                Some(2),
                6,
                10,
                VariableLocation::List {
                    function: 0,
                    entries: vec![
                        entry(0, 8, location(vec![esi], vec![Op::Arg(0)])),
                        entry(8, 16, location(vec![esi], vec![Op::Arg(0)])),
                        entry(16, 16, location(vec![edi], vec![Op::Arg(0)])), // empty: dropped
                        entry(
                            20,
                            30,
                            location(
                                vec![edi, esi],
                                vec![Op::Arg(0), Op::Arg(1), Op::Minus, Op::StackValue],
                            ),
                        ),
                    ],
                },
            ),
            variable(
                "slot",
                None,
                7,
                11,
                VariableLocation::Single(location(
                    vec![LocationArg::FrameSlot(-20)],
                    vec![Op::Arg(0)],
                )),
            ),
            variable(
                "k",
                None,
                3,
                11,
                VariableLocation::Single(location(
                    vec![LocationArg::Constant(-7)],
                    vec![Op::Arg(0), Op::StackValue],
                )),
            ),
            variable("gone", None, 8, 11, VariableLocation::None),
            variable(
                "ops",
                None,
                UNSIGNED,
                11,
                VariableLocation::List {
                    function: 0,
                    entries: op_zoo(),
                },
            ),
            variable(
                "nothing",
                None,
                INT,
                11,
                VariableLocation::List {
                    function: 0,
                    entries: vec![],
                },
            ),
        ],
        children: vec![
            ChildScope::Lexical {
                ranges: vec![(8, 20)],
                scope: Scope {
                    variables: vec![
                        variable("t", None, 10, 12, VariableLocation::None),
                        variable("e", None, 11, 12, VariableLocation::None),
                        variable("s", None, 4, 12, VariableLocation::None),
                        variable("r", None, 5, 12, VariableLocation::None),
                        variable("f", None, 14, 12, VariableLocation::None),
                        variable("v", None, 13, 12, VariableLocation::None),
                        variable("o", None, 9, 12, VariableLocation::None),
                    ],
                    children: vec![ChildScope::Lexical {
                        ranges: vec![(10, 12), (13, 13), (14, 16)],
                        scope: Scope::default(),
                    }],
                },
            },
            ChildScope::Inlined {
                origin: 0,
                ranges: vec![(20, 24)],
                call_file: 0,
                call_line: 13,
                call_column: 9,
                scope: inlined_x(RAX),
            },
            ChildScope::Inlined {
                origin: 0,
                ranges: vec![(30, 32), (34, 36)],
                call_file: 0,
                call_line: 14,
                call_column: 12,
                scope: inlined_x(RBX),
            },
        ],
    };
    let calc_subprogram = Subprogram {
        name: "calc".to_string(),
        linkage_name: Some("_Z4calcii".to_string()),
        file: 0,
        line: 10,
        return_type: Some(INT),
        external: true,
        prototyped: true,
        function: Some(0),
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: calc_scope,
        ..Default::default()
    };
    let helper_subprogram = Subprogram {
        name: "helper".to_string(),
        linkage_name: None,
        file: 0,
        line: 20,
        return_type: None,
        external: false,
        prototyped: false,
        function: Some(1),
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: Scope::default(),
        ..Default::default()
    };
    let mut prologue = row(4, 0, 11, 3, true);
    prologue.prologue_end = true;
    let mut epilogue = row(62, 0, 15, 1, true);
    epilogue.epilogue_begin = true;
    ObjectModel {
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions: vec![calc, helper],
        data: vec![
            DataObject {
                aliases: Vec::new(),
                comdat: None,
                binding: Default::default(),
                section_name: None,
                name: "unrelated".to_string(),
                global: false,
                section: DataSection::ReadOnly,
                align: 1,
                bytes: b"x\0".to_vec(),
                relocations: vec![],
            },
            DataObject {
                aliases: Vec::new(),
                comdat: None,
                binding: Default::default(),
                section_name: None,
                name: "counter".to_string(),
                global: true,
                section: DataSection::Data,
                align: 4,
                bytes: vec![7, 0, 0, 0],
                relocations: vec![],
            },
        ],
        debug: Some(DebugInfo {
            producer: "dwarfsmith test".to_string(),
            language: 0x1d, // DW_LANG_C11
            name: "calc.c".to_string(),
            comp_dir: "/src".to_string(),
            files: vec![
                SourceFile {
                    name: "calc.c".to_string(),
                    directory: "/src".to_string(),
                    md5: Some([0x11; 16]),
                },
                SourceFile {
                    name: "calc.h".to_string(),
                    directory: "/src/include".to_string(),
                    md5: Some([0x22; 16]),
                },
            ],
            types: types(),
            subprograms: vec![square, calc_subprogram, helper_subprogram],
            line_rows: vec![
                vec![
                    row(0, 0, 10, 0, true),
                    prologue,
                    row(8, 0, 12, 5, true),
                    row(20, 1, 3, 10, true),
                    row(24, 0, 12, 7, false),
                    row(30, 0, 0, 0, false),
                    epilogue,
                ],
                vec![row(0, 0, 20, 1, true)],
            ],
            globals: vec![
                GlobalVariable {
                    function: None,
                    name: "counter".to_string(),
                    linkage_name: Some("_ZL7counter".to_string()),
                    ty: Some(INT),
                    file: 0,
                    line: 2,
                    external: true,
                    data: Some(1),
                    context: None,
                    specification: Default::default(),
                },
                GlobalVariable {
                    function: None,
                    name: "folded".to_string(),
                    linkage_name: None,
                    ty: Some(3),
                    file: 1,
                    line: 1,
                    external: false,
                    data: None,
                    context: None,
                    specification: Default::default(),
                },
            ],
            ..Default::default()
        }),
    }
}

/// Writes `model` tuned for `tune` and runs `llvm-dwarfdump` with `args`
/// on it (from its directory, so the dump names the file `obj.o`).
fn dwarfdump(tool: &str, model: &ObjectModel, tune: DebuggerTune, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let bytes = write(
        model,
        &WriteOptions {
            debugger_tune: tune,
        },
    )
    .unwrap();
    save(dir.path(), "obj.o", &bytes);
    let mut all_args = args.to_vec();
    all_args.push("obj.o");
    let output = run_in(dir.path(), tool, &all_args);
    assert!(
        output.status.success(),
        "{tool} {args:?} failed:\n{}{}",
        stdout(&output),
        stderr(&output)
    );
    stdout(&output)
}

fn check_verifies(tool: &str, tune: DebuggerTune) {
    let output = dwarfdump(tool, &representative_model(), tune, &["--verify"]);
    assert!(output.contains("No errors."), "{tool} --verify:\n{output}");
    assert!(!output.contains("warning"), "{tool} --verify:\n{output}");
}

#[test]
fn llvm_dwarfdump_14_verifies_gdb_and_lldb_tunings() {
    check_verifies("llvm-dwarfdump", DebuggerTune::Gdb);
    check_verifies("llvm-dwarfdump", DebuggerTune::Lldb);
}

#[test]
fn llvm_dwarfdump_19_verifies_gdb_and_lldb_tunings() {
    check_verifies("llvm-dwarfdump-19", DebuggerTune::Gdb);
    check_verifies("llvm-dwarfdump-19", DebuggerTune::Lldb);
}

fn check_dump(tune: DebuggerTune, args: &[&str], expect: Expect) {
    let dump = dwarfdump("llvm-dwarfdump-19", &representative_model(), tune, args);
    expect.assert_eq(&dump);
}

#[test]
fn debug_info_dump() {
    check_dump(
        DebuggerTune::Gdb,
        &["--debug-info"],
        expect![[r#"
            obj.o:	file format elf64-x86-64

            .debug_info contents:
            0x00000000: Compile Unit: length = 0x00000240, format = DWARF32, version = 0x0005, unit_type = DW_UT_compile, abbr_offset = 0x0000, addr_size = 0x08 (next unit at 0x00000244)

            0x0000000c: DW_TAG_compile_unit
                          DW_AT_producer	("dwarfsmith test")
                          DW_AT_language	(DW_LANG_C11)
                          DW_AT_name	("calc.c")
                          DW_AT_comp_dir	("/src")
                          DW_AT_low_pc	(0x0000000000000000)
                          DW_AT_high_pc	(0x0000000000000043)
                          DW_AT_stmt_list	(0x00000000)

            0x00000027:   DW_TAG_base_type
                            DW_AT_name	("int")
                            DW_AT_encoding	(DW_ATE_signed)
                            DW_AT_byte_size	(4)

            0x0000002e:   DW_TAG_base_type
                            DW_AT_name	("unsigned char")
                            DW_AT_encoding	(DW_ATE_unsigned_char)
                            DW_AT_byte_size	(1)

            0x00000035:   DW_TAG_base_type
                            DW_AT_name	("unsigned int")
                            DW_AT_encoding	(DW_ATE_unsigned)
                            DW_AT_byte_size	(4)

            0x0000003c:   DW_TAG_base_type
                            DW_AT_name	("__ARRAY_SIZE_TYPE__")
                            DW_AT_byte_size	(8)
                            DW_AT_encoding	(DW_ATE_unsigned)

            0x00000043:   DW_TAG_base_type
                            DW_AT_name	("DW_ATE_signed_32")
                            DW_AT_encoding	(DW_ATE_signed)
                            DW_AT_byte_size	(4)

            0x0000004a:   DW_TAG_base_type
                            DW_AT_name	("DW_ATE_unsigned_64")
                            DW_AT_encoding	(DW_ATE_unsigned)
                            DW_AT_byte_size	(8)

            0x00000051:   DW_TAG_base_type
                            DW_AT_name	("DW_ATE_unsigned_32")
                            DW_AT_encoding	(DW_ATE_unsigned)
                            DW_AT_byte_size	(4)

            0x00000058:   DW_TAG_pointer_type
                            DW_AT_type	(0x0000002e "unsigned char")
                            DW_AT_byte_size	(8)

            0x0000005e:   DW_TAG_const_type
                            DW_AT_type	(0x00000027 "int")

            0x00000063:   DW_TAG_volatile_type
                            DW_AT_type	(0x00000027 "int")

            0x00000068:   DW_TAG_restrict_type
                            DW_AT_type	(0x00000058 "unsigned char *")

            0x0000006d:   DW_TAG_typedef
                            DW_AT_name	("myint")
                            DW_AT_type	(0x00000027 "int")

            0x00000076:   DW_TAG_structure_type
                            DW_AT_name	("pair")
                            DW_AT_byte_size	(8)

            0x0000007c:     DW_TAG_member
                              DW_AT_name	("a")
                              DW_AT_type	(0x00000027 "int")
                              DW_AT_data_member_location	(0)

            0x00000086:     DW_TAG_member
                              DW_AT_name	("b")
                              DW_AT_type	(0x00000027 "int")
                              DW_AT_data_member_location	(4)

            0x00000090:     NULL

            0x00000091:   DW_TAG_union_type
                            DW_AT_name	("either")
                            DW_AT_byte_size	(4)

            0x00000097:     DW_TAG_member
                              DW_AT_name	("i")
                              DW_AT_type	(0x00000027 "int")
                              DW_AT_data_member_location	(0)

            0x000000a1:     DW_TAG_member
                              DW_AT_name	("c")
                              DW_AT_type	(0x0000002e "unsigned char")
                              DW_AT_data_member_location	(0)

            0x000000ab:     NULL

            0x000000ac:   DW_TAG_structure_type
                            DW_AT_name	("opaque")
                            DW_AT_declaration	(true)

            0x000000b1:   DW_TAG_array_type
                            DW_AT_type	(0x00000027 "int")

            0x000000b6:     DW_TAG_subrange_type
                              DW_AT_type	(0x0000003c "__ARRAY_SIZE_TYPE__")
                              DW_AT_count	(2)

            0x000000bc:     DW_TAG_subrange_type
                              DW_AT_type	(0x0000003c "__ARRAY_SIZE_TYPE__")
                              DW_AT_count	(3)

            0x000000c2:     NULL

            0x000000c3:   DW_TAG_enumeration_type
                            DW_AT_name	("color")
                            DW_AT_type	(0x00000035 "unsigned int")
                            DW_AT_byte_size	(4)

            0x000000cd:     DW_TAG_enumerator
                              DW_AT_name	("RED")
                              DW_AT_const_value	(0)

            0x000000d3:     DW_TAG_enumerator
                              DW_AT_name	("BLUE")
                              DW_AT_const_value	(-1)

            0x000000d9:     NULL

            0x000000da:   DW_TAG_subroutine_type
                            DW_AT_prototyped	(true)
                            DW_AT_type	(0x00000027 "int")

            0x000000df:     DW_TAG_formal_parameter
                              DW_AT_type	(0x00000027 "int")

            0x000000e4:     DW_TAG_formal_parameter
                              DW_AT_type	(0x00000058 "unsigned char *")

            0x000000e9:     NULL

            0x000000ea:   DW_TAG_pointer_type
                            DW_AT_byte_size	(8)

            0x000000ec:   DW_TAG_pointer_type
                            DW_AT_type	(0x000000da "int (int, unsigned char *)")
                            DW_AT_byte_size	(8)

            0x000000f2:   DW_TAG_subprogram
                            DW_AT_name	("square")
                            DW_AT_decl_file	("/src/include/calc.h")
                            DW_AT_decl_line	(3)
                            DW_AT_prototyped	(true)
                            DW_AT_type	(0x00000027 "int")
                            DW_AT_inline	(DW_INL_inlined)

            0x000000fe:     DW_TAG_formal_parameter
                              DW_AT_name	("x")
                              DW_AT_decl_file	("/src/include/calc.h")
                              DW_AT_decl_line	(3)
                              DW_AT_type	(0x00000027 "int")

            0x00000109:     NULL

            0x0000010a:   DW_TAG_subprogram
                            DW_AT_low_pc	(0x0000000000000000)
                            DW_AT_high_pc	(0x0000000000000040)
                            DW_AT_frame_base	(DW_OP_call_frame_cfa)
                            DW_AT_linkage_name	("_Z4calcii")
                            DW_AT_name	("calc")
                            DW_AT_decl_file	("/src/calc.c")
                            DW_AT_decl_line	(10)
                            DW_AT_prototyped	(true)
                            DW_AT_type	(0x00000027 "int")
                            DW_AT_external	(true)

            0x00000124:     DW_TAG_formal_parameter
                              DW_AT_name	("a")
                              DW_AT_decl_file	("/src/calc.c")
                              DW_AT_decl_line	(10)
                              DW_AT_type	(0x00000027 "int")
                              DW_AT_location	(DW_OP_reg5 RDI)

            0x00000131:     DW_TAG_formal_parameter
                              DW_AT_name	("b")
                              DW_AT_decl_file	("/src/calc.c")
                              DW_AT_decl_line	(10)
                              DW_AT_type	(0x0000006d "myint")
                              DW_AT_location	(0x0000000c: 
                                 [0x0000000000000000, 0x0000000000000010): DW_OP_reg4 RSI
                                 [0x0000000000000014, 0x000000000000001e): DW_OP_regval_type RDI (0x00000043) "DW_ATE_signed_32", DW_OP_regval_type RSI (0x00000043) "DW_ATE_signed_32", DW_OP_minus, DW_OP_stack_value)

            0x00000140:     DW_TAG_variable
                              DW_AT_name	("slot")
                              DW_AT_decl_file	("/src/calc.c")
                              DW_AT_decl_line	(11)
                              DW_AT_type	(0x00000076 "pair")
                              DW_AT_location	(DW_OP_fbreg -20)

            0x0000014e:     DW_TAG_variable
                              DW_AT_name	("k")
                              DW_AT_decl_file	("/src/calc.c")
                              DW_AT_decl_line	(11)
                              DW_AT_type	(0x0000005e "const int")
                              DW_AT_location	(DW_OP_consts -7, DW_OP_stack_value)

            0x0000015d:     DW_TAG_variable
                              DW_AT_name	("gone")
                              DW_AT_decl_file	("/src/calc.c")
                              DW_AT_decl_line	(11)
                              DW_AT_type	(0x00000091 "either")

            0x00000168:     DW_TAG_variable
                              DW_AT_name	("ops")
                              DW_AT_decl_file	("/src/calc.c")
                              DW_AT_decl_line	(11)
                              DW_AT_type	(0x00000035 "unsigned int")
                              DW_AT_location	(0x00000027: 
                                 [0x0000000000000028, 0x000000000000002a): DW_OP_regval_type RDI (0x00000043) "DW_ATE_signed_32", DW_OP_lit3, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_mul, DW_OP_consts -2, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_plus, DW_OP_lit5, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_plus, DW_OP_stack_value
                                 [0x000000000000002a, 0x000000000000002c): DW_OP_regval_type RDI (0x00000043) "DW_ATE_signed_32", DW_OP_regval_type RSI (0x00000043) "DW_ATE_signed_32", DW_OP_div, DW_OP_lit7, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_mod, DW_OP_stack_value
                                 [0x000000000000002c, 0x000000000000002e): DW_OP_regval_type RDI (0x00000043) "DW_ATE_signed_32", DW_OP_constu 0xff, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_and, DW_OP_constu 0x100, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_or, DW_OP_lit1, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_xor, DW_OP_stack_value
                                 [0x000000000000002e, 0x0000000000000030): DW_OP_regval_type RDI (0x00000043) "DW_ATE_signed_32", DW_OP_lit2, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_shl, DW_OP_lit1, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_shr, DW_OP_lit1, DW_OP_convert (0x00000043) "DW_ATE_signed_32", DW_OP_shra, DW_OP_stack_value
                                 [0x0000000000000030, 0x0000000000000032): DW_OP_regval_type RDI (0x00000043) "DW_ATE_signed_32", DW_OP_neg, DW_OP_not, DW_OP_stack_value
                                 [0x0000000000000032, 0x0000000000000034): DW_OP_fbreg -24, DW_OP_deref, DW_OP_stack_value
                                 [0x0000000000000034, 0x0000000000000036): DW_OP_regval_type RBX (0x0000004a) "DW_ATE_unsigned_64", DW_OP_deref_size 0x4, DW_OP_convert (0x00000051) "DW_ATE_unsigned_32", DW_OP_convert (0x00000051) "DW_ATE_unsigned_32", DW_OP_convert (0x0000004a) "DW_ATE_unsigned_64", DW_OP_stack_value
                                 [0x0000000000000036, 0x0000000000000038): DW_OP_reg0 RAX, DW_OP_piece 0x2, DW_OP_piece 0x1, DW_OP_lit9, DW_OP_stack_value, DW_OP_piece 0x1
                                 [0x0000000000000038, 0x000000000000003a): DW_OP_fbreg -32, DW_OP_stack_value
                                 [0x000000000000003a, 0x000000000000003c): DW_OP_regval_type RBX (0x0000004a) "DW_ATE_unsigned_64", DW_OP_regval_type RDI (0x00000043) "DW_ATE_signed_32", DW_OP_convert (0x0000004a) "DW_ATE_unsigned_64", DW_OP_plus, DW_OP_deref, DW_OP_convert (0x0000004a) "DW_ATE_unsigned_64", DW_OP_stack_value
                                 [0x000000000000003c, 0x000000000000003e): DW_OP_breg3 RBX+0, DW_OP_plus_uconst 0x10)

            0x00000177:     DW_TAG_variable
                              DW_AT_name	("nothing")
                              DW_AT_decl_file	("/src/calc.c")
                              DW_AT_decl_line	(11)
                              DW_AT_type	(0x00000027 "int")

            0x00000182:     DW_TAG_lexical_block
                              DW_AT_low_pc	(0x0000000000000008)
                              DW_AT_high_pc	(0x0000000000000014)

            0x0000018c:       DW_TAG_variable
                                DW_AT_name	("t")
                                DW_AT_decl_file	("/src/calc.c")
                                DW_AT_decl_line	(12)
                                DW_AT_type	(0x000000b1 "int[2][3]")

            0x00000197:       DW_TAG_variable
                                DW_AT_name	("e")
                                DW_AT_decl_file	("/src/calc.c")
                                DW_AT_decl_line	(12)
                                DW_AT_type	(0x000000c3 "color")

            0x000001a2:       DW_TAG_variable
                                DW_AT_name	("s")
                                DW_AT_decl_file	("/src/calc.c")
                                DW_AT_decl_line	(12)
                                DW_AT_type	(0x00000063 "volatile int")

            0x000001ad:       DW_TAG_variable
                                DW_AT_name	("r")
                                DW_AT_decl_file	("/src/calc.c")
                                DW_AT_decl_line	(12)
                                DW_AT_type	(0x00000068 "restrict ")

            0x000001b8:       DW_TAG_variable
                                DW_AT_name	("f")
                                DW_AT_decl_file	("/src/calc.c")
                                DW_AT_decl_line	(12)
                                DW_AT_type	(0x000000ec "int (*)(int, unsigned char *)")

            0x000001c3:       DW_TAG_variable
                                DW_AT_name	("v")
                                DW_AT_decl_file	("/src/calc.c")
                                DW_AT_decl_line	(12)
                                DW_AT_type	(0x000000ea "void *")

            0x000001ce:       DW_TAG_variable
                                DW_AT_name	("o")
                                DW_AT_decl_file	("/src/calc.c")
                                DW_AT_decl_line	(12)
                                DW_AT_type	(0x000000ac "opaque")

            0x000001d9:       DW_TAG_lexical_block
                                DW_AT_ranges	(0x0000000c
                                   [0x000000000000000a, 0x000000000000000c)
                                   [0x000000000000000e, 0x0000000000000010))

            0x000001de:       NULL

            0x000001df:     DW_TAG_inlined_subroutine
                              DW_AT_abstract_origin	(0x000000f2 "square")
                              DW_AT_low_pc	(0x0000000000000014)
                              DW_AT_high_pc	(0x0000000000000018)
                              DW_AT_call_file	("/src/calc.c")
                              DW_AT_call_line	(13)
                              DW_AT_call_column	(9)

            0x000001f0:       DW_TAG_formal_parameter
                                DW_AT_abstract_origin	(0x000000fe "x")
                                DW_AT_location	(DW_OP_reg0 RAX)

            0x000001f7:       NULL

            0x000001f8:     DW_TAG_inlined_subroutine
                              DW_AT_abstract_origin	(0x000000f2 "square")
                              DW_AT_ranges	(0x0000001c
                                 [0x000000000000001e, 0x0000000000000020)
                                 [0x0000000000000022, 0x0000000000000024))
                              DW_AT_call_file	("/src/calc.c")
                              DW_AT_call_line	(14)
                              DW_AT_call_column	(12)

            0x00000204:       DW_TAG_formal_parameter
                                DW_AT_abstract_origin	(0x000000fe "x")
                                DW_AT_location	(DW_OP_reg3 RBX)

            0x0000020b:       NULL

            0x0000020c:     NULL

            0x0000020d:   DW_TAG_subprogram
                            DW_AT_low_pc	(0x0000000000000040)
                            DW_AT_high_pc	(0x0000000000000043)
                            DW_AT_frame_base	(DW_OP_call_frame_cfa)
                            DW_AT_name	("helper")
                            DW_AT_decl_file	("/src/calc.c")
                            DW_AT_decl_line	(20)

            0x0000021f:   DW_TAG_variable
                            DW_AT_name	("counter")
                            DW_AT_type	(0x00000027 "int")
                            DW_AT_external	(true)
                            DW_AT_decl_file	("/src/calc.c")
                            DW_AT_decl_line	(2)
                            DW_AT_linkage_name	("_ZL7counter")
                            DW_AT_location	(DW_OP_addr 0x0)

            0x00000238:   DW_TAG_variable
                            DW_AT_name	("folded")
                            DW_AT_type	(0x0000005e "const int")
                            DW_AT_decl_file	("/src/include/calc.h")
                            DW_AT_decl_line	(1)

            0x00000243:   NULL
        "#]],
    );
}

#[test]
fn loclists_dump_gdb() {
    check_dump(
        DebuggerTune::Gdb,
        &["--debug-loclists"],
        expect![[r#"
        obj.o:	file format elf64-x86-64

        .debug_loclists contents:
        locations list header: length = 0x000000cd, format = DWARF32, version = 0x0005, addr_size = 0x08, seg_size = 0x00, offset_entry_count = 0x00000000
        0x0000000c: 
                    [0x0000000000000000, 0x0000000000000010): DW_OP_reg4 RSI
                    [0x0000000000000014, 0x000000000000001e): DW_OP_regval_type RDI <base_type ref: 0x43>, DW_OP_regval_type RSI <base_type ref: 0x43>, DW_OP_minus, DW_OP_stack_value

        0x00000027: 
                    [0x0000000000000028, 0x000000000000002a): DW_OP_regval_type RDI <base_type ref: 0x43>, DW_OP_lit3, DW_OP_convert 0x43, DW_OP_mul, DW_OP_consts -2, DW_OP_convert 0x43, DW_OP_plus, DW_OP_lit5, DW_OP_convert 0x43, DW_OP_plus, DW_OP_stack_value
                    [0x000000000000002a, 0x000000000000002c): DW_OP_regval_type RDI <base_type ref: 0x43>, DW_OP_regval_type RSI <base_type ref: 0x43>, DW_OP_div, DW_OP_lit7, DW_OP_convert 0x43, DW_OP_mod, DW_OP_stack_value
                    [0x000000000000002c, 0x000000000000002e): DW_OP_regval_type RDI <base_type ref: 0x43>, DW_OP_constu 0xff, DW_OP_convert 0x43, DW_OP_and, DW_OP_constu 0x100, DW_OP_convert 0x43, DW_OP_or, DW_OP_lit1, DW_OP_convert 0x43, DW_OP_xor, DW_OP_stack_value
                    [0x000000000000002e, 0x0000000000000030): DW_OP_regval_type RDI <base_type ref: 0x43>, DW_OP_lit2, DW_OP_convert 0x43, DW_OP_shl, DW_OP_lit1, DW_OP_convert 0x43, DW_OP_shr, DW_OP_lit1, DW_OP_convert 0x43, DW_OP_shra, DW_OP_stack_value
                    [0x0000000000000030, 0x0000000000000032): DW_OP_regval_type RDI <base_type ref: 0x43>, DW_OP_neg, DW_OP_not, DW_OP_stack_value
                    [0x0000000000000032, 0x0000000000000034): DW_OP_fbreg -24, DW_OP_deref, DW_OP_stack_value
                    [0x0000000000000034, 0x0000000000000036): DW_OP_regval_type RBX <base_type ref: 0x4a>, DW_OP_deref_size 0x4, DW_OP_convert 0x51, DW_OP_convert 0x51, DW_OP_convert 0x4a, DW_OP_stack_value
                    [0x0000000000000036, 0x0000000000000038): DW_OP_reg0 RAX, DW_OP_piece 0x2, DW_OP_piece 0x1, DW_OP_lit9, DW_OP_stack_value, DW_OP_piece 0x1
                    [0x0000000000000038, 0x000000000000003a): DW_OP_fbreg -32, DW_OP_stack_value
                    [0x000000000000003a, 0x000000000000003c): DW_OP_regval_type RBX <base_type ref: 0x4a>, DW_OP_regval_type RDI <base_type ref: 0x43>, DW_OP_convert 0x4a, DW_OP_plus, DW_OP_deref, DW_OP_convert 0x4a, DW_OP_stack_value
                    [0x000000000000003c, 0x000000000000003e): DW_OP_breg3 RBX+0, DW_OP_plus_uconst 0x10
    "#]],
    );
}

#[test]
fn loclists_dump_lldb() {
    check_dump(
        DebuggerTune::Lldb,
        &["--debug-loclists"],
        expect![[r#"
        obj.o:	file format elf64-x86-64

        .debug_loclists contents:
        locations list header: length = 0x000000a8, format = DWARF32, version = 0x0005, addr_size = 0x08, seg_size = 0x00, offset_entry_count = 0x00000000
        0x0000000c: 
                    [0x0000000000000000, 0x0000000000000010): DW_OP_reg4 RSI
                    [0x0000000000000014, 0x000000000000001e): DW_OP_breg5 RDI+0, DW_OP_breg4 RSI+0, DW_OP_minus, DW_OP_stack_value

        0x00000025: 
                    [0x0000000000000028, 0x000000000000002a): DW_OP_breg5 RDI+0, DW_OP_lit3, DW_OP_mul, DW_OP_consts -2, DW_OP_plus, DW_OP_plus_uconst 0x5, DW_OP_stack_value
                    [0x000000000000002a, 0x000000000000002c): DW_OP_breg5 RDI+0, DW_OP_breg4 RSI+0, DW_OP_div, DW_OP_lit7, DW_OP_mod, DW_OP_stack_value
                    [0x000000000000002c, 0x000000000000002e): DW_OP_breg5 RDI+0, DW_OP_constu 0xff, DW_OP_and, DW_OP_constu 0x100, DW_OP_or, DW_OP_lit1, DW_OP_xor, DW_OP_stack_value
                    [0x000000000000002e, 0x0000000000000030): DW_OP_breg5 RDI+0, DW_OP_lit2, DW_OP_shl, DW_OP_lit1, DW_OP_shr, DW_OP_lit1, DW_OP_shra, DW_OP_stack_value
                    [0x0000000000000030, 0x0000000000000032): DW_OP_breg5 RDI+0, DW_OP_neg, DW_OP_not, DW_OP_stack_value
                    [0x0000000000000032, 0x0000000000000034): DW_OP_fbreg -24, DW_OP_deref, DW_OP_stack_value
                    [0x0000000000000034, 0x0000000000000036): DW_OP_breg3 RBX+0, DW_OP_deref_size 0x4, DW_OP_convert 0x43, DW_OP_convert 0x4a, DW_OP_stack_value
                    [0x0000000000000036, 0x0000000000000038): DW_OP_reg0 RAX, DW_OP_piece 0x2, DW_OP_piece 0x1, DW_OP_lit9, DW_OP_stack_value, DW_OP_piece 0x1
                    [0x0000000000000038, 0x000000000000003a): DW_OP_fbreg -32, DW_OP_stack_value
                    [0x000000000000003a, 0x000000000000003c): DW_OP_breg3 RBX+0, DW_OP_breg5 RDI+0, DW_OP_plus, DW_OP_deref, DW_OP_stack_value
                    [0x000000000000003c, 0x000000000000003e): DW_OP_breg3 RBX+0, DW_OP_plus_uconst 0x10
    "#]],
    );
}

#[test]
fn line_table_dump() {
    check_dump(
        DebuggerTune::Gdb,
        &["--debug-line"],
        expect![[r#"
        obj.o:	file format elf64-x86-64

        .debug_line contents:
        debug_line[0x00000000]
        Line table prologue:
            total_length: 0x000000a7
                  format: DWARF32
                 version: 5
            address_size: 8
         seg_select_size: 0
         prologue_length: 0x00000050
         min_inst_length: 1
        max_ops_per_inst: 1
         default_is_stmt: 1
               line_base: -5
              line_range: 14
             opcode_base: 13
        standard_opcode_lengths[DW_LNS_copy] = 0
        standard_opcode_lengths[DW_LNS_advance_pc] = 1
        standard_opcode_lengths[DW_LNS_advance_line] = 1
        standard_opcode_lengths[DW_LNS_set_file] = 1
        standard_opcode_lengths[DW_LNS_set_column] = 1
        standard_opcode_lengths[DW_LNS_negate_stmt] = 0
        standard_opcode_lengths[DW_LNS_set_basic_block] = 0
        standard_opcode_lengths[DW_LNS_const_add_pc] = 0
        standard_opcode_lengths[DW_LNS_fixed_advance_pc] = 1
        standard_opcode_lengths[DW_LNS_set_prologue_end] = 0
        standard_opcode_lengths[DW_LNS_set_epilogue_begin] = 0
        standard_opcode_lengths[DW_LNS_set_isa] = 1
        include_directories[  0] = "/src"
        include_directories[  1] = "/src/include"
        file_names[  0]:
                   name: "calc.c"
              dir_index: 0
           md5_checksum: 11111111111111111111111111111111
        file_names[  1]:
                   name: "calc.h"
              dir_index: 1
           md5_checksum: 22222222222222222222222222222222

        Address            Line   Column File   ISA Discriminator OpIndex Flags
        ------------------ ------ ------ ------ --- ------------- ------- -------------
        0x0000000000000000     10      0      0   0             0       0  is_stmt
        0x0000000000000004     11      3      0   0             0       0  is_stmt prologue_end
        0x0000000000000008     12      5      0   0             0       0  is_stmt
        0x0000000000000014      3     10      1   0             0       0  is_stmt
        0x0000000000000018     12      7      0   0             0       0 
        0x000000000000001e      0      0      0   0             0       0 
        0x000000000000003e     15      1      0   0             0       0  is_stmt epilogue_begin
        0x0000000000000040     15      1      0   0             0       0  is_stmt end_sequence
        0x0000000000000040     20      1      0   0             0       0  is_stmt
        0x0000000000000043     20      1      0   0             0       0  is_stmt end_sequence

    "#]],
    );
}

/// The bytes of section `name` in ELF `bytes` (`None`: no such section).
fn section<'a>(bytes: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let elf = goblin::elf::Elf::parse(bytes).unwrap();
    elf.section_headers
        .iter()
        .find(|header| elf.shdr_strtab.get_at(header.sh_name) == Some(name))
        .map(|header| &bytes[header.file_range().unwrap_or(0..0)])
}

#[test]
fn debug_info_changes_no_code_or_unwind_byte() {
    let with = write(&representative_model(), &WriteOptions::default()).unwrap();
    let without = write(
        &ObjectModel {
            debug: None,
            ..representative_model()
        },
        &WriteOptions::default(),
    )
    .unwrap();
    for name in [".text", ".eh_frame"] {
        let code = section(&with, name).unwrap();
        assert!(!code.is_empty(), "{name} is empty");
        assert_eq!(Some(code), section(&without, name), "{name} differs");
    }
    assert!(section(&with, ".debug_info").is_some());
    assert_eq!(section(&without, ".debug_info"), None);
}

#[test]
fn readelf_and_objdump_read_the_debug_sections_without_warnings() {
    for tune in [DebuggerTune::Gdb, DebuggerTune::Lldb] {
        let dir = tempfile::tempdir().unwrap();
        let bytes = write(
            &representative_model(),
            &WriteOptions {
                debugger_tune: tune,
            },
        )
        .unwrap();
        save(dir.path(), "obj.o", &bytes);
        for (tool, args) in [
            (
                "readelf",
                &[
                    "-a",
                    "-W",
                    "--debug-dump=info,rawline,decodedline,loc,Ranges,frames,str",
                ][..],
            ),
            (
                "objdump",
                &["-d", "-r", "--dwarf=info,rawline,loc,Ranges,frames"][..],
            ),
        ] {
            let mut all_args = args.to_vec();
            all_args.push("obj.o");
            let output = run_in(dir.path(), tool, &all_args);
            let text = format!("{}{}", stdout(&output), stderr(&output));
            assert!(output.status.success(), "{tool} failed:\n{text}");
            assert_eq!(stderr(&output), "", "{tool} wrote to stderr");
            assert!(
                !text.to_lowercase().contains("warning"),
                "{tool} warned:\n{text}"
            );
            assert!(text.contains("DW_OP_regval_type") == (tune == DebuggerTune::Gdb));
        }
    }
}
