//! Round trips through the real writer: `read(write(m)) == normalise(m)`
//! for hand-built models that between them use every `Type`, every scope
//! kind, every location kind and every `Op`, under both debugger tunings;
//! and every object written is one `verify` finds nothing wrong with.

use dwarfsmith_emit::model::*;
use dwarfsmith_emit::verify::{round_trip, verify_with, VerifyOptions};
use dwarfsmith_emit::write::{write, DebuggerTune, WriteOptions};

fn reg(register: u16, bits: u16, signed: bool) -> LocationArg {
    LocationArg::Register {
        register,
        bits,
        signed,
    }
}

fn location(args: Vec<LocationArg>, ops: Vec<Op>) -> Location {
    Location { args, ops }
}

fn in_register(register: u16) -> Location {
    location(vec![reg(register, 64, false)], vec![Op::Arg(0)])
}

fn row(offset: u64, line: u32, column: u32, is_stmt: bool) -> LineRow {
    LineRow {
        offset,
        file: 0,
        line,
        column,
        is_stmt,
        prologue_end: false,
        epilogue_begin: false,
    }
}

fn variable(
    name: &str,
    arg: Option<u32>,
    ty: TypeId,
    line: u32,
    location: VariableLocation,
) -> Variable {
    Variable {
        name: name.to_string(),
        arg,
        ty: Some(ty),
        file: 0,
        line,
        location,
        ..Default::default()
    }
}

/// 32 bytes of code: `push rbp; mov rbp, rsp; ...; pop rbp; ret` padded with nops.
fn code_f() -> Vec<u8> {
    let mut code = vec![0x55, 0x48, 0x89, 0xe5];
    code.extend([0x90; 26]);
    code.extend([0x5d, 0xc3]);
    code
}

/// Types: one of every kind. Ids are used below by these constants.
const INT: TypeId = 0;
const UCHAR: TypeId = 1;
const PTR_INT: TypeId = 2;
const VOID_PTR: TypeId = 3;
const CONST_INT: TypeId = 4;
const VOLATILE_INT: TypeId = 5;
const RESTRICT_PTR: TypeId = 6;
const TYPEDEF: TypeId = 7;
const POINT: TypeId = 8;
const UNION: TypeId = 9;
const DECLARED: TypeId = 10;
const ARRAY: TypeId = 11;
const ENUM: TypeId = 12;
const FUNCTION_TYPE: TypeId = 13;
const LONG: TypeId = 14;

fn types() -> Vec<Type> {
    vec![
        Type::Base {
            name: "int".into(),
            byte_size: 4,
            encoding: 5,
        },
        Type::Base {
            name: "unsigned char".into(),
            byte_size: 1,
            encoding: 8,
        },
        Type::Pointer(Some(INT)),
        Type::Pointer(None),
        Type::Const(Some(INT)),
        Type::Volatile(Some(INT)),
        Type::Restrict(Some(PTR_INT)),
        Type::Typedef {
            scope: None,
            name: "count_t".into(),
            target: Some(INT),
            access: None,
        },
        Type::Struct {
            scope: None,
            name: Some("point".into()),
            kind: Aggregate::Structure,
            bases: Vec::new(),
            byte_size: Some(8),
            members: vec![
                Member {
                    name: "x".into(),
                    ty: INT,
                    byte_offset: 0,
                    bit_field: None,
                    access: None,
                    artificial: false,
                    is_static: false,
                    const_value: Default::default(),
                },
                Member {
                    name: "y".into(),
                    ty: INT,
                    byte_offset: 4,
                    bit_field: None,
                    access: None,
                    artificial: false,
                    is_static: false,
                    const_value: Default::default(),
                },
            ],
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        },
        Type::Struct {
            scope: None,
            name: None,
            kind: Aggregate::Union,
            bases: Vec::new(),
            byte_size: Some(4),
            members: vec![
                Member {
                    name: "i".into(),
                    ty: INT,
                    byte_offset: 0,
                    bit_field: None,
                    access: None,
                    artificial: false,
                    is_static: false,
                    const_value: Default::default(),
                },
                Member {
                    name: "c".into(),
                    ty: UCHAR,
                    byte_offset: 0,
                    bit_field: None,
                    access: None,
                    artificial: false,
                    is_static: false,
                    const_value: Default::default(),
                },
            ],
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        },
        Type::Struct {
            scope: None,
            name: Some("opaque".into()),
            kind: Aggregate::Structure,
            bases: Vec::new(),
            byte_size: None,
            members: vec![],
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        },
        Type::Array {
            element: INT,
            counts: vec![Some(3), Some(4)],
            vector: None,
        },
        // A vector type, padded (as LLVM writes a `<3 x i32>` of 16 bytes).
        Type::Array {
            element: INT,
            counts: vec![Some(3)],
            vector: Some(VectorShape {
                padded_byte_size: Some(16),
            }),
        },
        Type::Enum {
            scope: None,
            name: Some("colour".into()),
            underlying: Some(INT),
            byte_size: 4,
            enum_class: false,
            enumerators: vec![("red".into(), 0), ("green".into(), 1), ("cold".into(), -40)],
        },
        Type::Subroutine {
            return_type: Some(INT),
            parameters: vec![Some(PTR_INT), None],
            this_parameter: false,
            variadic: false,
            prototyped: true,
        },
        Type::Base {
            name: "long".into(),
            byte_size: 8,
            encoding: 5,
        },
    ]
}

/// Every `Op`, each in a location that means something.
fn every_op_locations() -> Vec<LocationEntry> {
    let entry = |start, end, location| LocationEntry {
        start,
        end,
        location,
    };
    let rdi = reg(5, 32, true);
    vec![
        // a register
        entry(0, 2, in_register(5)),
        // a frame slot
        entry(
            2,
            4,
            location(vec![LocationArg::FrameSlot(-20)], vec![Op::Arg(0)]),
        ),
        // a constant
        entry(
            4,
            6,
            location(
                vec![LocationArg::Constant(-7)],
                vec![Op::Arg(0), Op::StackValue],
            ),
        ),
        // arithmetic over two registers
        entry(
            6,
            8,
            location(
                vec![rdi, reg(4, 32, true)],
                vec![
                    Op::Arg(0),
                    Op::Arg(1),
                    Op::Plus,
                    Op::Constu(3),
                    Op::Mul,
                    Op::Consts(-2),
                    Op::Minus,
                    Op::StackValue,
                ],
            ),
        ),
        entry(
            8,
            10,
            location(
                vec![rdi],
                vec![
                    Op::Arg(0),
                    Op::Constu(5),
                    Op::Div,
                    Op::Constu(3),
                    Op::Mod,
                    Op::Constu(0xff),
                    Op::And,
                    Op::Constu(1),
                    Op::Or,
                    Op::Constu(2),
                    Op::Xor,
                    Op::StackValue,
                ],
            ),
        ),
        entry(
            10,
            12,
            location(
                vec![rdi],
                vec![
                    Op::Arg(0),
                    Op::Constu(2),
                    Op::Shl,
                    Op::Constu(1),
                    Op::Shr,
                    Op::Constu(1),
                    Op::Shra,
                    Op::Neg,
                    Op::Not,
                    Op::PlusUconst(9),
                    Op::StackValue,
                ],
            ),
        ),
        // memory through a register
        entry(
            12,
            14,
            location(
                vec![reg(6, 64, false)],
                vec![
                    Op::Arg(0),
                    Op::PlusUconst(16),
                    Op::Deref,
                    Op::DerefSize(4),
                    Op::StackValue,
                ],
            ),
        ),
        // a conversion
        entry(
            14,
            16,
            location(
                vec![reg(0, 8, false)],
                vec![
                    Op::Arg(0),
                    Op::Convert {
                        bits: 32,
                        signed: false,
                    },
                    Op::StackValue,
                ],
            ),
        ),
    ]
}

/// A model using every type, scope kind, location kind and operation.
fn everything() -> ObjectModel {
    let f = Function {
        aliases: Vec::new(),
        comdat: None,
        section_name: None,
        literals: Vec::new(),
        name: "f".into(),
        global: true,
        binding: Default::default(),
        code: code_f(),
        align: 0,
        relocations: vec![
            Relocation {
                offset: 6,
                kind: RelocationKind::Pc32,
                symbol: Symbol::Named("counter".into()),
                addend: -4,
            },
            Relocation {
                offset: 11,
                kind: RelocationKind::Plt32,
                symbol: Symbol::Named("puts".into()),
                addend: -4,
            },
            Relocation {
                offset: 16,
                kind: RelocationKind::GotPcRelX,
                symbol: Symbol::Named("stderr".into()),
                addend: -4,
            },
            Relocation {
                offset: 21,
                kind: RelocationKind::Pc32,
                symbol: Symbol::FunctionData(0),
                addend: -4,
            },
        ],
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
                offset: 30,
                instruction: CfiInstruction::RememberState,
            },
            CfiRow {
                offset: 30,
                instruction: CfiInstruction::DefCfa {
                    register: 7,
                    offset: 8,
                },
            },
            CfiRow {
                offset: 30,
                instruction: CfiInstruction::Restore(6),
            },
            CfiRow {
                offset: 31,
                instruction: CfiInstruction::RestoreState,
            },
        ],
        rodata: vec![0; 8],
        rodata_relocations: vec![
            Relocation {
                offset: 0,
                kind: RelocationKind::Pc32,
                symbol: Symbol::FunctionCode {
                    function: 0,
                    offset: 8,
                },
                addend: 0,
            },
            Relocation {
                offset: 4,
                kind: RelocationKind::Pc32,
                symbol: Symbol::FunctionCode {
                    function: 0,
                    offset: 12,
                },
                addend: 4,
            },
        ],
    };
    // Aligned beyond the writer's 16 bytes (inline asm `.p2align 6`).
    let g = Function {
        name: "g".into(),
        global: false,
        code: vec![0x31, 0xc0, 0xc3],
        align: 64,
        cfi: vec![],
        ..Function::default()
    };
    let data = vec![
        DataObject {
            aliases: Vec::new(),
            comdat: None,
            binding: Default::default(),
            section_name: None,
            name: "counter".into(),
            global: true,
            section: DataSection::Data,
            align: 8,
            bytes: vec![0; 8],
            relocations: vec![Relocation {
                offset: 0,
                kind: RelocationKind::Abs64,
                symbol: Symbol::Named("g".into()),
                addend: 0,
            }],
        },
        DataObject {
            aliases: Vec::new(),
            comdat: None,
            binding: Default::default(),
            section_name: None,
            name: "message".into(),
            global: false,
            section: DataSection::ReadOnly,
            align: 1,
            bytes: b"hello\0".to_vec(),
            relocations: vec![],
        },
        DataObject {
            aliases: Vec::new(),
            comdat: None,
            binding: Default::default(),
            section_name: None,
            name: "table".into(),
            global: true,
            section: DataSection::Bss,
            align: 16,
            bytes: vec![0; 64],
            relocations: vec![],
        },
    ];
    let inline_origin = Subprogram {
        name: "helper".into(),
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
            variables: vec![
                variable("v", Some(1), INT, 3, VariableLocation::None),
                variable("t", None, INT, 4, VariableLocation::None),
            ],
            children: vec![],
        },
        ..Default::default()
    };
    let f_debug = Subprogram {
        name: "f".into(),
        linkage_name: Some("_Z1fPii".into()),
        file: 0,
        line: 10,
        return_type: Some(TYPEDEF),
        external: true,
        prototyped: true,
        function: Some(0),
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: Scope {
            variables: vec![
                variable(
                    "p",
                    Some(1),
                    RESTRICT_PTR,
                    10,
                    VariableLocation::Single(in_register(5)),
                ),
                variable(
                    "n",
                    Some(2),
                    CONST_INT,
                    10,
                    VariableLocation::Single(location(
                        vec![LocationArg::FrameSlot(-24)],
                        vec![Op::Arg(0)],
                    )),
                ),
                variable(
                    "every",
                    None,
                    INT,
                    11,
                    VariableLocation::List {
                        function: 0,
                        entries: every_op_locations(),
                    },
                ),
                variable(
                    "pt",
                    None,
                    POINT,
                    12,
                    VariableLocation::List {
                        function: 0,
                        entries: vec![
                            LocationEntry {
                                start: 4,
                                end: 20,
                                location: location(
                                    vec![reg(0, 64, false), reg(1, 64, false)],
                                    vec![Op::Arg(0), Op::Piece(4), Op::Arg(1), Op::Piece(4)],
                                ),
                            },
                            LocationEntry {
                                start: 20,
                                end: 30,
                                location: location(
                                    vec![reg(2, 64, false), LocationArg::Constant(9)],
                                    vec![
                                        Op::Arg(1),
                                        Op::StackValue,
                                        Op::Piece(4),
                                        Op::Arg(0),
                                        Op::Piece(4),
                                    ],
                                ),
                            },
                        ],
                    },
                ),
                variable("gone", None, VOLATILE_INT, 13, VariableLocation::None),
                variable("u", None, UNION, 14, VariableLocation::None),
                variable("o", None, PTR_INT, 15, VariableLocation::None),
                variable("grid", None, ARRAY, 16, VariableLocation::None),
                variable("c", None, ENUM, 17, VariableLocation::None),
                variable("fp", None, FUNCTION_TYPE, 18, VariableLocation::None),
                variable("vp", None, VOID_PTR, 19, VariableLocation::None),
                variable("big", None, LONG, 20, VariableLocation::None),
                variable("d", None, DECLARED, 21, VariableLocation::None),
            ],
            children: vec![
                ChildScope::Lexical {
                    ranges: vec![(4, 12), (16, 24)],
                    scope: Scope {
                        variables: vec![variable(
                            "i",
                            None,
                            INT,
                            22,
                            VariableLocation::List {
                                function: 0,
                                // an empty entry is dropped
                                entries: vec![
                                    LocationEntry {
                                        start: 4,
                                        end: 12,
                                        location: in_register(3),
                                    },
                                    LocationEntry {
                                        start: 12,
                                        end: 12,
                                        location: in_register(4),
                                    },
                                ],
                            },
                        )],
                        children: vec![ChildScope::Inlined {
                            origin: 0,
                            ranges: vec![(8, 12)],
                            call_file: 0,
                            call_line: 23,
                            call_column: 9,
                            scope: Scope {
                                variables: vec![
                                    variable(
                                        "v",
                                        Some(1),
                                        INT,
                                        3,
                                        VariableLocation::Single(in_register(3)),
                                    ),
                                    variable("t", None, INT, 4, VariableLocation::None),
                                ],
                                children: vec![],
                            },
                        }],
                    },
                },
                // an empty range (history may give one) is dropped
                ChildScope::Lexical {
                    ranges: vec![(24, 28), (28, 28)],
                    scope: Scope::default(),
                },
            ],
        },
        ..Default::default()
    };
    let g_debug = Subprogram {
        name: "g".into(),
        linkage_name: None,
        file: 0,
        line: 30,
        return_type: Some(INT),
        external: false,
        prototyped: false,
        function: Some(1),
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: Scope::default(),
        ..Default::default()
    };
    let mut f_rows = vec![
        row(0, 10, 0, true),
        row(4, 11, 5, true),
        row(8, 3, 9, true),
        row(12, 11, 5, false),
    ];
    f_rows[1].prologue_end = true;
    f_rows.push(LineRow {
        file: 1,
        ..row(16, 4, 2, true)
    });
    f_rows.push(LineRow {
        epilogue_begin: true,
        ..row(30, 25, 1, true)
    });
    ObjectModel {
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions: vec![f, g],
        data,
        debug: Some(DebugInfo {
            producer: "dwarfsmith test".into(),
            language: 0x1d,
            name: "everything.c".into(),
            comp_dir: "/src".into(),
            files: vec![
                SourceFile {
                    name: "everything.c".into(),
                    directory: "/src".into(),
                    md5: Some([7; 16]),
                },
                SourceFile {
                    name: "helper.h".into(),
                    directory: "/src/include".into(),
                    md5: None,
                },
            ],
            types: types(),
            subprograms: vec![inline_origin, f_debug, g_debug],
            line_rows: vec![f_rows, vec![row(0, 30, 1, true), row(2, 31, 1, true)]],
            globals: vec![
                GlobalVariable {
                    function: None,
                    name: "table".into(),
                    linkage_name: None,
                    ty: Some(ARRAY),
                    file: 0,
                    line: 2,
                    external: true,
                    data: Some(2),
                    context: None,
                    specification: Default::default(),
                },
                GlobalVariable {
                    function: None,
                    name: "message".into(),
                    linkage_name: Some("_ZL7message".into()),
                    ty: Some(PTR_INT),
                    file: 1,
                    line: 1,
                    external: false,
                    data: Some(1),
                    context: None,
                    specification: Default::default(),
                },
                GlobalVariable {
                    function: None,
                    name: "gone".into(),
                    linkage_name: None,
                    ty: Some(INT),
                    file: 0,
                    line: 5,
                    external: false,
                    data: None,
                    context: None,
                    specification: Default::default(),
                },
                // A static of `f` (subprogram 1): in f's DIE, read back last.
                GlobalVariable {
                    function: Some(1),
                    name: "counter".into(),
                    linkage_name: None,
                    ty: Some(INT),
                    file: 0,
                    line: 11,
                    external: false,
                    data: Some(0),
                    context: None,
                    specification: Default::default(),
                },
            ],
            ..Default::default()
        }),
    }
}

fn options(debugger_tune: DebuggerTune) -> WriteOptions {
    WriteOptions { debugger_tune }
}

#[test]
fn everything_round_trips_tuned_for_gdb() {
    round_trip(&everything(), &options(DebuggerTune::Gdb)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn everything_round_trips_tuned_for_lldb() {
    round_trip(&everything(), &options(DebuggerTune::Lldb)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn an_object_without_debug_info_round_trips() {
    let model = ObjectModel {
        debug: None,
        ..everything()
    };
    round_trip(&model, &options(DebuggerTune::Gdb)).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn written_objects_verify_clean() {
    for tune in [DebuggerTune::Gdb, DebuggerTune::Lldb] {
        let bytes = write(&everything(), &options(tune)).expect("writes");
        let strict = VerifyOptions {
            pieces_cover_variables: true,
        };
        let problems: Vec<String> = verify_with(&bytes, &strict)
            .iter()
            .map(|p| p.to_string())
            .collect();
        assert_eq!(problems, Vec::<String>::new(), "{tune:?}");
    }
}

/// Jump-table entries (`target - table`, addend = the entry's offset) and
/// the code's reference to its table read back exactly as written, not
/// just as an equivalent address.
#[test]
fn jump_tables_read_back_as_written() {
    let model = everything();
    let bytes = write(&model, &options(DebuggerTune::Gdb)).expect("writes");
    let read = dwarfsmith_emit::read::read(&bytes).expect("reads");
    let (written, read) = (&model.functions[0], &read.functions[0]);
    assert_eq!(read.rodata_relocations, written.rodata_relocations);
    assert_eq!(read.relocations, written.relocations);
    assert_eq!(read.rodata, written.rodata);
}

/// The model promises that a piece with no operations before it is an
/// empty piece (that part of the variable is unavailable).
#[test]
fn an_empty_piece_round_trips() {
    let mut model = everything();
    let debug = model.debug.as_mut().expect("debug");
    let pt = &mut debug.subprograms[1].scope.variables[3];
    assert_eq!(pt.name, "pt");
    pt.location = VariableLocation::Single(location(
        vec![reg(2, 64, false)],
        vec![Op::Piece(4), Op::Arg(0), Op::Piece(4)],
    ));
    round_trip(&model, &options(DebuggerTune::Gdb)).unwrap_or_else(|e| panic!("{e}"));
}
