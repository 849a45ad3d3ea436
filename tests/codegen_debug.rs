//! The debug side of code generation on real functions: the machine code,
//! its line rows and its variable ranges, exactly.

use dwarfsmith::codegen::{compile_module, CodegenOptions};
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::{MdNode, Module};
use dwarfsmith::x86::disasm::disassemble;
use dwarfsmith::OptLevel;
use dwarfsmith_emit::model::{LocationArg, Op};
use expect_test::{expect, Expect};

fn variable_name(module: &Module, id: dwarfsmith::ir::MdId) -> String {
    match module.debug.node(id) {
        MdNode::LocalVariable(v) => v.name.clone(),
        _ => format!("!{}", id.0),
    }
}

/// Compiles fixture `file` and prints `function`'s code, rows and ranges.
fn check(file: &str, function: &str, expected: Expect) {
    let path = format!("{}/fixtures/ll/{file}", env!("CARGO_MANIFEST_DIR"));
    let module = parse_module(&std::fs::read_to_string(path).unwrap(), file).unwrap();
    let compiled = compile_module(
        &module,
        &CodegenOptions {
            opt_level: OptLevel::O2,
            debug_info: true,
        },
    )
    .unwrap();
    let index = compiled
        .object
        .functions
        .iter()
        .position(|f| f.name == function)
        .unwrap();
    let debug = &compiled.functions[index];
    let mut out = disassemble(&compiled.object.functions[index].code);
    out.push_str("rows:\n");
    for row in &debug.line_entries {
        let flags: Vec<&str> = [
            (row.is_stmt, "stmt"),
            (row.prologue_end, "prologue_end"),
            (row.epilogue_begin, "epilogue_begin"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect();
        out.push_str(&format!(
            "  {:#x} {}:{} {}\n",
            row.offset,
            row.line,
            row.column,
            flags.join(" ")
        ));
    }
    out.push_str("variables:\n");
    for range in &debug.variable_ranges {
        let args: Vec<String> = range
            .location
            .args
            .iter()
            .map(|a| match a {
                LocationArg::Register {
                    register,
                    bits,
                    signed,
                } => format!("reg{register}:{}{bits}", if *signed { 'i' } else { 'u' }),
                LocationArg::FrameSlot(off) => format!("cfa{off:+}"),
                LocationArg::Constant(c) => format!("const {c}"),
            })
            .collect();
        let ops: Vec<String> = range
            .location
            .ops
            .iter()
            .map(|o| format!("{o:?}"))
            .collect();
        let fragment = range
            .key
            .fragment
            .map_or(String::new(), |(o, s)| format!(" [bits {o}..{}]", o + s));
        out.push_str(&format!(
            "  {}{fragment} [{:#x}, {:#x}) ({}) {}\n",
            variable_name(&module, range.key.variable),
            range.start,
            range.end,
            args.join(", "),
            ops.join(" ")
        ));
    }
    let _ = Op::StackValue;
    expected.assert_eq(&out);
}

#[test]
fn blend_rows_and_ranges() {
    check(
        "arith_temps.O2.ll",
        "blend",
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: mov rax, rsi
           7: imul eax, edi
           a: mov rcx, rsi
           d: sub ecx, edi
           f: add ecx, 4
          12: add ecx, eax
          14: xor ecx, esi
          16: mov rax, rcx
          19: pop rbp
          1a: ret
        rows:
          0x0 3:0 stmt
          0x4 4:13 stmt prologue_end
          0xa 5:13 stmt
          0x12 6:13 stmt
          0x14 7:12 stmt
          0x16 7:3 
          0x19 7:3 epilogue_begin
        variables:
          x [0x4, 0x1b) (reg5:i32) Arg(0)
          y [0x4, 0x1b) (reg4:i32) Arg(0)
          q [0x14, 0x16) (reg2:i32) Arg(0)
    "#]],
    );
}

#[test]
fn offsets_two_operand_expressions() {
    check(
        "arith_temps.O2.ll",
        "offsets",
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: mov rax, rsi
           7: add eax, edi
           9: sub esi, edi
           b: shl eax, 3
           e: shl esi, 2
          11: add esi, eax
          13: mov rax, rsi
          16: pop rbp
          17: ret
        rows:
          0x0 10:0 stmt
          0x4 11:15 stmt prologue_end
          0x9 12:16 stmt
          0xb 13:20 stmt
          0xe 14:22 stmt
          0x11 15:17 stmt
          0x13 15:3 
          0x16 15:3 epilogue_begin
        variables:
          a [0x4, 0x18) (reg5:i32) Arg(0)
          b [0x4, 0xb) (reg4:i32) Arg(0)
          sum [0x9, 0xe) (reg0:i32) Arg(0)
          scaled [0xe, 0x16) (reg0:i32) Arg(0)
    "#]],
    );
}

#[test]
fn classify_jump_table_and_phi() {
    check(
        "switch_table.O2.ll",
        "classify",
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: cmp edi, 0
           7: je short 0x73
           9: cmp edi, 1
           c: je short 0x29
           e: cmp edi, 2
          11: je short 0x33
          13: cmp edi, 3
          16: je short 0x3d
          18: cmp edi, 4
          1b: je short 0x47
          1d: cmp edi, 7
          20: je short 0x51
          22: cmp edi, 0x64
          25: je short 0x5b
          27: jmp short 0x65
          29: mov eax, 0xa
          2e: mov rcx, rax
          31: jmp short 0x6e
          33: mov eax, 0xc
          38: mov rcx, rax
          3b: jmp short 0x6e
          3d: mov eax, 5
          42: mov rcx, rax
          45: jmp short 0x6e
          47: mov eax, 0x12
          4c: mov rcx, rax
          4f: jmp short 0x6e
          51: mov eax, 3
          56: mov rcx, rax
          59: jmp short 0x6e
          5b: mov eax, 0
          60: mov rcx, rax
          63: jmp short 0x6e
          65: shl edi, 1
          68: or edi, 1
          6b: mov rcx, rdi
          6e: mov rax, rcx
          71: pop rbp
          72: ret
          73: mov eax, 6
          78: mov rcx, rax
          7b: jmp short 0x6e
        rows:
          0x0 2:0 stmt
          0x4 4:3 stmt prologue_end
          0x29 6:18 stmt
          0x33 7:19 stmt
          0x3d 8:18 stmt
          0x47 9:19 stmt
          0x51 10:18 stmt
          0x5b 11:21 stmt
          0x65 12:18 stmt
          0x68 14:12 stmt
          0x6b 12:23 
          0x6e 14:3 stmt
          0x71 14:3 epilogue_begin
          0x73 4:3 stmt
        variables:
          k [0x4, 0x68) (reg5:i32) Arg(0)
          k [0x73, 0x7d) (reg5:i32) Arg(0)
          r [0x29, 0x33) (const 9) Arg(0) StackValue
          r [0x33, 0x3d) (const 11) Arg(0) StackValue
          r [0x3d, 0x47) (const 4) Arg(0) StackValue
          r [0x47, 0x51) (const 17) Arg(0) StackValue
          r [0x51, 0x5b) (const 2) Arg(0) StackValue
          r [0x5b, 0x65) (const -1) Arg(0) StackValue
          r [0x68, 0x6b) (reg5:i32) Arg(0)
          r [0x6e, 0x73) (reg2:i32) Arg(0)
    "#]],
    );
}
