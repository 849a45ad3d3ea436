//! gdb reads what `write` writes: a hand-built program whose `compute` sets
//! edi = 5 and esi = 12, with variables whose locations compute from those
//! registers (`DW_OP_regval_type` for gdb), linked by gcc and debugged by
//! gdb 13 in batch mode. It must stop on the right lines, print the right
//! values (a negative 32-bit difference, a 32-bit logical shift), report no
//! DWARF error, unwind to `main` through the CFI, and the program must exit
//! with compute's result. lldb 19 must read the lldb tuning (`DW_OP_bregN`)
//! and, as the tuning exists for, fails on the gdb one's `DW_OP_regval_type`.
//! Both debuggers stop in an inlined call (abstract origin, call site) and
//! see the inlined frame and its caller.

mod write_support;

use dwarfsmith_emit::model::{
    CfiInstruction, CfiRow, ChildScope, DataObject, DataSection, DebugInfo, Function,
    GlobalVariable, LineRow, Location, LocationArg, LocationEntry, ObjectModel, Op, Relocation,
    RelocationKind, Scope, SourceFile, Subprogram, Symbol, Type, Variable, VariableLocation,
};
use dwarfsmith_emit::write::{write, DebuggerTune, WriteOptions};
use expect_test::{expect, Expect};
use write_support::{link, run, run_in, save, stderr, stdout};

const RSI: u16 = 4;
const RDI: u16 = 5;
const INT: usize = 0;
const UNSIGNED: usize = 1;
const LONG: usize = 2;

fn row(offset: u64, line: u32, prologue_end: bool, epilogue_begin: bool) -> LineRow {
    LineRow {
        offset,
        file: 0,
        line,
        column: 3,
        is_stmt: true,
        prologue_end,
        epilogue_begin,
    }
}

fn cfi(offset: u64, instruction: CfiInstruction) -> CfiRow {
    CfiRow {
        offset,
        instruction,
    }
}

/// A variable of `compute` valid over [`start`, 25) of its code.
fn local(name: &str, ty: usize, start: u64, args: Vec<LocationArg>, ops: Vec<Op>) -> Variable {
    Variable {
        name: name.to_string(),
        arg: None,
        ty: Some(ty),
        file: 0,
        line: 21,
        location: VariableLocation::List {
            function: 0,
            entries: vec![LocationEntry {
                start,
                end: 25,
                location: Location { args, ops },
            }],
        },
        ..Default::default()
    }
}

fn subprogram(name: &str, line: u32, function: usize, variables: Vec<Variable>) -> Subprogram {
    Subprogram {
        name: name.to_string(),
        linkage_name: None,
        file: 0,
        line,
        return_type: Some(INT),
        external: true,
        prototyped: true,
        function: Some(function),
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: Scope {
            variables,
            children: vec![],
        },
        ..Default::default()
    }
}

/// `compute`, with `square` inlined over [11, 21) (the register set-up),
/// its parameter `x` in the frame slot written at offset 4.
fn compute_subprogram(variables: Vec<Variable>) -> Subprogram {
    let mut compute = subprogram("compute", 20, 0, variables);
    compute.scope.children.push(ChildScope::Inlined {
        origin: 2,
        ranges: vec![(11, 21)],
        call_file: 0,
        call_line: 21,
        call_column: 7,
        scope: Scope {
            variables: vec![Variable {
                file: 1,
                line: 3,
                arg: Some(1),
                location: VariableLocation::Single(Location {
                    args: vec![LocationArg::FrameSlot(-24)],
                    ops: vec![Op::Arg(0)],
                }),
                ..local("x", INT, 0, vec![], vec![])
            }],
            children: vec![],
        },
    });
    compute
}

/// The abstract `square(int x)` of square.h:3.
fn square() -> Subprogram {
    Subprogram {
        file: 1,
        line: 3,
        external: false,
        function: None,
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: Scope {
            variables: vec![Variable {
                file: 1,
                line: 3,
                arg: Some(1),
                location: VariableLocation::None,
                ..local("x", INT, 0, vec![], vec![])
            }],
            children: vec![],
        },
        ..subprogram("square", 3, 0, vec![])
    }
}

fn program() -> ObjectModel {
    let compute = Function {
        name: "compute".to_string(),
        global: true,
        code: vec![
            0x55, // 0: push rbp
            0x48, 0x89, 0xe5, // 1: mov rbp, rsp
            0xc7, 0x45, 0xf8, 100, 0, 0, 0, // 4: mov dword [rbp - 8], 100 (CFA - 24)
            0xbf, 0x05, 0, 0, 0, // 11: mov edi, 5
            0xbe, 0x0c, 0, 0, 0, // 16: mov esi, 12
            0x89, 0xf8, // 21: mov eax, edi
            0x29, 0xf0, // 23: sub eax, esi
            0x5d, // 25: pop rbp
            0xc3, // 26: ret
        ],
        cfi: vec![
            cfi(1, CfiInstruction::DefCfaOffset(16)),
            cfi(
                1,
                CfiInstruction::Offset {
                    register: 6,
                    offset: -16,
                },
            ),
            cfi(4, CfiInstruction::DefCfaRegister(6)),
            cfi(
                26,
                CfiInstruction::DefCfa {
                    register: 7,
                    offset: 8,
                },
            ),
        ],
        ..Function::default()
    };
    let main = Function {
        name: "main".to_string(),
        global: true,
        code: vec![
            0x48, 0x83, 0xec, 0x08, // 0: sub rsp, 8
            0xe8, 0, 0, 0, 0, // 4: call compute
            0x48, 0x83, 0xc4, 0x08, // 9: add rsp, 8
            0xc3, // 13: ret
        ],
        relocations: vec![Relocation {
            offset: 5,
            kind: RelocationKind::Plt32,
            symbol: Symbol::Named("compute".to_string()),
            addend: -4,
        }],
        cfi: vec![
            cfi(4, CfiInstruction::DefCfaOffset(16)),
            cfi(13, CfiInstruction::DefCfaOffset(8)),
        ],
        ..Function::default()
    };
    let edi = LocationArg::Register {
        register: RDI,
        bits: 32,
        signed: true,
    };
    let esi = LocationArg::Register {
        register: RSI,
        bits: 32,
        signed: true,
    };
    let variables = vec![
        local("a", INT, 16, vec![edi], vec![Op::Arg(0)]),
        local("b", INT, 21, vec![esi], vec![Op::Arg(0)]),
        local(
            "d",
            INT,
            21,
            vec![edi, esi],
            vec![Op::Arg(0), Op::Arg(1), Op::Minus, Op::StackValue],
        ),
        local(
            "half",
            UNSIGNED,
            21,
            vec![edi, esi],
            vec![
                Op::Arg(0),
                Op::Arg(1),
                Op::Minus,
                Op::Constu(1),
                Op::Shr,
                Op::StackValue,
            ],
        ),
        local(
            "scaled",
            INT,
            21,
            vec![esi, LocationArg::Constant(-3)],
            vec![
                Op::Arg(0),
                Op::Arg(1),
                Op::Mul,
                Op::PlusUconst(1),
                Op::StackValue,
            ],
        ),
        local(
            "slot",
            INT,
            11,
            vec![LocationArg::FrameSlot(-24)],
            vec![Op::Arg(0)],
        ),
        local(
            "mixed",
            INT,
            21,
            vec![edi, LocationArg::FrameSlot(-24)],
            vec![
                Op::Arg(0),
                Op::Arg(1),
                Op::DerefSize(4),
                Op::Minus,
                Op::StackValue,
            ],
        ),
        local(
            "wide",
            LONG,
            21,
            vec![edi, esi],
            vec![
                Op::Arg(0),
                Op::Convert {
                    bits: 64,
                    signed: true,
                },
                Op::Constu(32),
                Op::Shl,
                Op::Arg(1),
                Op::Convert {
                    bits: 64,
                    signed: true,
                },
                Op::Minus,
                Op::StackValue,
            ],
        ),
    ];
    ObjectModel {
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions: vec![compute, main],
        data: vec![DataObject {
            aliases: Vec::new(),
            comdat: None,
            binding: Default::default(),
            section_name: None,
            name: "counter".to_string(),
            global: true,
            section: DataSection::Data,
            align: 4,
            bytes: vec![42, 0, 0, 0],
            relocations: vec![],
        }],
        debug: Some(DebugInfo {
            producer: "dwarfsmith test".to_string(),
            language: 0x1d,
            name: "calc.c".to_string(),
            comp_dir: "/nonexistent".to_string(),
            files: vec![
                SourceFile {
                    name: "calc.c".to_string(),
                    directory: "/nonexistent".to_string(),
                    md5: None,
                },
                SourceFile {
                    name: "square.h".to_string(),
                    directory: "/nonexistent".to_string(),
                    md5: None,
                },
            ],
            types: vec![
                Type::Base {
                    name: "int".to_string(),
                    byte_size: 4,
                    encoding: 5,
                },
                Type::Base {
                    name: "unsigned int".to_string(),
                    byte_size: 4,
                    encoding: 7,
                },
                Type::Base {
                    name: "long".to_string(),
                    byte_size: 8,
                    encoding: 5,
                },
            ],
            subprograms: vec![
                compute_subprogram(variables),
                subprogram("main", 30, 1, vec![]),
                square(),
            ],
            line_rows: vec![
                vec![
                    row(0, 20, false, false),
                    row(4, 21, true, false),
                    LineRow {
                        file: 1,
                        ..row(11, 4, false, false)
                    },
                    row(21, 22, false, false),
                    row(25, 23, false, true),
                ],
                vec![
                    row(0, 30, false, false),
                    row(4, 31, true, false),
                    row(9, 32, false, true),
                ],
            ],
            globals: vec![GlobalVariable {
                function: None,
                name: "counter".to_string(),
                linkage_name: None,
                ty: Some(INT),
                file: 0,
                line: 2,
                external: true,
                data: Some(0),
                context: None,
                specification: Default::default(),
            }],
            ..Default::default()
        }),
    }
}

/// The lines of a gdb session worth pinning: stops, printed values and
/// frames, with addresses replaced by `ADDR`.
fn interesting(output: &str) -> String {
    output
        .lines()
        .filter(|line| {
            line.starts_with("Breakpoint")
                || line.starts_with('$')
                || line.starts_with('#')
                || line.contains("DWARF")
                || line.contains("Incompatible")
        })
        .map(|line| {
            line.split(' ')
                .map(|word| if word.starts_with("0x") { "ADDR" } else { word })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes the program tuned for `tune`, checks llvm-dwarfdump 14 and 19
/// verify it, links it in a fresh directory and checks it runs; returns
/// the directory (holding `calc`).
fn build(tune: DebuggerTune) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let options = WriteOptions {
        debugger_tune: tune,
    };
    let bytes = write(&program(), &options).unwrap();
    let object = save(dir.path(), "calc.o", &bytes);
    for dwarfdump in ["llvm-dwarfdump", "llvm-dwarfdump-19"] {
        let output = run_in(dir.path(), dwarfdump, &["--verify", "calc.o"]);
        assert!(
            output.status.success() && stdout(&output).contains("No errors."),
            "{dwarfdump} --verify:\n{}",
            stdout(&output)
        );
    }
    let exe = dir.path().join("calc");
    link(&[&object], &exe);
    let status = run(exe.to_str().unwrap(), &[]).status;
    assert_eq!(status.code(), Some(256 - 7), "compute returns 5 - 12");
    dir
}

fn check_gdb(tune: DebuggerTune, expect: Expect) {
    let dir = build(tune);
    let output = run_in(
        dir.path(),
        "gdb",
        &[
            "-batch",
            "-nx",
            "-ex",
            "break compute",
            "-ex",
            "run",
            "-ex",
            "break calc.c:22",
            "-ex",
            "continue",
            "-ex",
            "print a",
            "-ex",
            "print b",
            "-ex",
            "print d",
            "-ex",
            "print half",
            "-ex",
            "print scaled",
            "-ex",
            "print slot",
            "-ex",
            "print mixed",
            "-ex",
            "print wide",
            "-ex",
            "print counter",
            "-ex",
            "bt",
            "calc",
        ],
    );
    let all = format!("{}{}", stdout(&output), stderr(&output));
    expect.assert_eq(&interesting(&all));
}

#[test]
fn gdb_stops_on_lines_prints_typed_values_and_unwinds() {
    check_gdb(
        DebuggerTune::Gdb,
        expect![[r#"
            Breakpoint 1 at ADDR file calc.c, line 21.
            Breakpoint 1, compute () at calc.c:21
            Breakpoint 2 at ADDR file calc.c, line 22.
            Breakpoint 2, compute () at calc.c:22
            $1 = 5
            $2 = 12
            $3 = -7
            $4 = 2147483644
            $5 = -35
            $6 = 100
            $7 = -95
            $8 = 21474836468
            $9 = 42
            #0  compute () at calc.c:22
            #1  ADDR in main () at calc.c:31"#]],
    );
}

#[test]
fn gdb_reads_the_lldb_tuning_too() {
    check_gdb(
        DebuggerTune::Lldb,
        expect![[r#"
            Breakpoint 1 at ADDR file calc.c, line 21.
            Breakpoint 1, compute () at calc.c:21
            Breakpoint 2 at ADDR file calc.c, line 22.
            Breakpoint 2, compute () at calc.c:22
            $1 = 5
            $2 = 12
            $3 = -7
            $4 = 4294967292
            $5 = -35
            $6 = 100
            $7 = -95
            $8 = 21474836468
            $9 = 42
            #0  compute () at calc.c:22
            #1  ADDR in main () at calc.c:31"#]],
    );
}

/// lldb's `frame variable` lines and this program's `bt` frames,
/// addresses replaced by `ADDR`.
fn lldb_interesting(output: &str) -> String {
    output
        .lines()
        .filter(|line| {
            line.starts_with('(') && !line.starts_with("(lldb)") || line.contains("frame #")
        })
        .map(|line| {
            line.split(' ')
                .map(|word| if word.starts_with("0x") { "ADDR" } else { word })
                .collect::<Vec<_>>()
                .join(" ")
        })
        // Frames of this program only: libc's show stack addresses.
        .filter(|line| !line.contains("frame #") || line.contains("ADDR calc`"))
        .filter(|line| !line.contains("_start"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_lldb(tune: DebuggerTune, expect: Expect) {
    let output = session(
        "lldb-19",
        tune,
        &[
            "b calc.c:22",
            "run",
            "frame variable",
            "target variable counter",
            "bt",
        ],
    );
    expect.assert_eq(&lldb_interesting(&output));
}

#[test]
fn lldb_reads_the_lldb_tuning() {
    check_lldb(
        DebuggerTune::Lldb,
        expect![[r#"
                frame #0: ADDR calc`compute at calc.c:22:3
            (int) a = 5
            (int) b = 12
            (int) d = -7
            (unsigned int) half = 4294967292
            (int) scaled = -35
            (int) slot = 100
            (int) mixed = -95
            (long) wide = 21474836468
            (int) counter = 42
              * frame #0: ADDR calc`compute at calc.c:22:3
                frame #1: ADDR calc`main at calc.c:31:3"#]],
    );
}

#[test]
fn lldb_cannot_evaluate_the_gdb_tuning() {
    check_lldb(
        DebuggerTune::Gdb,
        expect![[r#"
                frame #0: ADDR calc`compute at calc.c:22:3
            (int) a = 5
            (int) b = 12
            (int) d = <Unhandled opcode DW_OP_regval_type in DWARFExpression>
            (unsigned int) half = <Unhandled opcode DW_OP_regval_type in DWARFExpression>
            (int) scaled = <Unhandled opcode DW_OP_regval_type in DWARFExpression>
            (int) slot = 100
            (int) mixed = <Unhandled opcode DW_OP_regval_type in DWARFExpression>
            (long) wide = <Unhandled opcode DW_OP_regval_type in DWARFExpression>
            (int) counter = 42
              * frame #0: ADDR calc`compute at calc.c:22:3
                frame #1: ADDR calc`main at calc.c:31:3"#]],
    );
}

/// Runs `debugger` (gdb or lldb-19) in batch mode with `commands` on the
/// program written with `tune`; returns everything it printed.
fn session(debugger: &str, tune: DebuggerTune, commands: &[&str]) -> String {
    let dir = build(tune);
    let flag = if debugger == "gdb" { "-ex" } else { "-o" };
    let mut args = vec![if debugger == "gdb" { "-batch" } else { "-b" }];
    if debugger == "gdb" {
        args.push("-nx");
    }
    for command in commands {
        args.extend([flag, command]);
    }
    args.push("calc");
    let output = run_in(dir.path(), debugger, &args);
    format!("{}{}", stdout(&output), stderr(&output))
}

#[test]
fn gdb_stops_in_the_inlined_call_and_sees_both_frames() {
    let output = session(
        "gdb",
        DebuggerTune::Gdb,
        &["break square", "run", "bt", "print x", "up", "print slot"],
    );
    expect![[r#"
        Breakpoint 1 at ADDR file /nonexistent/square.h, line 4.
        Breakpoint 1, square (x=100) at /nonexistent/square.h:4
        #0  square (x=100) at /nonexistent/square.h:4
        #1  compute () at calc.c:21
        #2  ADDR in main () at calc.c:31
        $1 = 100
        #1  compute () at calc.c:21
        $2 = 100"#]]
    .assert_eq(&interesting(&output));
}

#[test]
fn lldb_stops_in_the_inlined_call_and_sees_both_frames() {
    let output = session(
        "lldb-19",
        DebuggerTune::Lldb,
        &[
            "b square",
            "run",
            "bt",
            "frame variable",
            "up",
            "frame variable slot",
        ],
    );
    expect![[r#"
            frame #0: ADDR calc`compute [inlined] square(x=100) at square.h:4:3
          * frame #0: ADDR calc`compute [inlined] square(x=100) at square.h:4:3
            frame #1: ADDR calc`compute at calc.c:21:7
            frame #2: ADDR calc`main at calc.c:31:3
        (int) x = 100
        frame #1: ADDR calc`compute at calc.c:21:7
        (int) slot = 100"#]]
    .assert_eq(&lldb_interesting(&output));
}
