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
               4: test edi, edi
               6: je short 0x5d
               8: cmp edi, 1
               b: je short 0x28
               d: cmp edi, 2
              10: je short 0x2f
              12: cmp edi, 3
              15: je short 0x36
              17: cmp edi, 4
              1a: je short 0x3d
              1c: cmp edi, 7
              1f: je short 0x44
              21: cmp edi, 0x64
              24: je short 0x4b
              26: jmp short 0x52
              28: mov eax, 0xa
              2d: jmp short 0x5b
              2f: mov eax, 0xc
              34: jmp short 0x5b
              36: mov eax, 5
              3b: jmp short 0x5b
              3d: mov eax, 0x12
              42: jmp short 0x5b
              44: mov eax, 3
              49: jmp short 0x5b
              4b: mov eax, 0
              50: jmp short 0x5b
              52: shl edi, 1
              55: or edi, 1
              58: mov rax, rdi
              5b: pop rbp
              5c: ret
              5d: mov eax, 6
              62: jmp short 0x5b
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x28 6:18 stmt
              0x2f 7:19 stmt
              0x36 8:18 stmt
              0x3d 9:19 stmt
              0x44 10:18 stmt
              0x4b 11:21 stmt
              0x52 12:18 stmt
              0x55 14:12 
              0x58 12:23 
              0x5b 14:3 stmt epilogue_begin
              0x5d 4:3 stmt
            variables:
              k [0x4, 0x55) (reg5:i32) Arg(0)
              k [0x5d, 0x64) (reg5:i32) Arg(0)
              r [0x28, 0x2f) (const 9) Arg(0) StackValue
              r [0x2f, 0x36) (const 11) Arg(0) StackValue
              r [0x36, 0x3d) (const 4) Arg(0) StackValue
              r [0x3d, 0x44) (const 17) Arg(0) StackValue
              r [0x44, 0x4b) (const 2) Arg(0) StackValue
              r [0x4b, 0x52) (const -1) Arg(0) StackValue
              r [0x55, 0x58) (reg5:i32) Arg(0)
              r [0x5b, 0x5d) (reg0:i32) Arg(0)
        "#]],
    );
}

#[test]
fn pick_select_ranges() {
    check(
        "select_diamond.O2.ll",
        "pick",
        expect![[r#"
               0: push rbp
               1: mov rbp, rsp
               4: add esi, 1
               7: add edx, 0xffffffff
               a: test edi, edi
               c: cmovg edx, esi
               f: shl edx, 1
              12: mov rax, rdx
              15: pop rbp
              16: ret
            rows:
              0x0 3:0 stmt
              0x4 5:7 stmt prologue_end
              0xf 9:12 stmt
              0x12 9:3 
              0x15 9:3 epilogue_begin
            variables:
              c [0x4, 0x17) (reg5:i32) Arg(0)
              a [0x4, 0x7) (reg4:i32) Arg(0)
              b [0x4, 0xa) (reg1:i32) Arg(0)
              r [0xf, 0x12) (reg1:i32) Arg(0)
        "#]],
    );
}

#[test]
fn abs_diff_ranges() {
    check(
        "select_diamond.O2.ll",
        "abs_diff",
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: sub edi, esi
           6: mov rax, rdi
           9: neg eax
           b: cmovs eax, edi
           e: pop rbp
           f: ret
        rows:
          0x0 12:0 stmt
          0x4 13:13 stmt prologue_end
          0x6 15:7 stmt
          0xe 17:3 stmt epilogue_begin
        variables:
          a [0x4, 0x6) (reg5:i32) Arg(0)
          b [0x4, 0x10) (reg4:i32) Arg(0)
          d [0x6, 0xe) (reg5:i32) Arg(0)
          d [0xe, 0x10) (reg0:i32) Arg(0)
    "#]],
    );
}

#[test]
fn sum_scaled_loop_ranges() {
    check(
        "sum_array.O2.ll",
        "sum_scaled",
        expect![[r#"
               0: push rbp
               1: mov rbp, rsp
               4: test esi, esi
               6: jle 0xb9
               c: mov eax, esi
               e: mov rcx, rax
              11: and rcx, 3
              15: cmp esi, 4
              18: jb 0xc0
              1e: and rax, 0x7ffffffc
              25: mov esi, 0
              2a: mov r8d, 0
              30: mov r9d, 0
              36: jmp short 0x69
              38: test rcx, rcx
              3b: je 0xd5
              41: jmp 0xd7
              46: mov r9d, [rdi+rsi*4]
              4a: imul r9d, edx
              4e: add r9d, r8d
              51: add rsi, 1
              55: add rax, 1
              59: cmp rax, rcx
              5c: je 0xe1
              62: jmp 0xe6
              67: pop rbp
              68: ret
              69: mov r10d, [rdi+rsi*4]
              6d: imul r10d, edx
              71: add r10d, r8d
              74: mov r8, rsi
              77: or r8, 1
              7b: mov r8d, [rdi+r8*4]
              7f: imul r8d, edx
              83: add r8d, r10d
              86: mov r10, rsi
              89: or r10, 2
              8d: mov r10d, [rdi+r10*4]
              91: imul r10d, edx
              95: add r10d, r8d
              98: mov r8, rsi
              9b: or r8, 3
              9f: mov r8d, [rdi+r8*4]
              a3: imul r8d, edx
              a7: add r8d, r10d
              aa: add rsi, 4
              ae: add r9, 4
              b2: cmp r9, rax
              b5: je short 0xee
              b7: jmp short 0xf6
              b9: mov eax, 0
              be: jmp short 0x67
              c0: mov eax, 0
              c5: mov esi, 0
              ca: mov r8d, 0
              d0: jmp 0x38
              d5: jmp short 0x67
              d7: mov eax, 0
              dc: jmp 0x46
              e1: mov rax, r9
              e4: jmp short 0x67
              e6: mov r8, r9
              e9: jmp 0x46
              ee: mov rax, r8
              f1: jmp 0x38
              f6: jmp 0x69
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0xc 4:21 stmt
              0xe 4:3 
              0x1e 4:3 stmt
              0x38 4:3 stmt
              0x46 5:13 stmt
              0x4a 5:18 
              0x4e 6:11 stmt
              0x51 4:27 stmt
              0x55 4:3 
              0x67 8:3 stmt epilogue_begin
              0x69 5:13 stmt
              0x6d 5:18 
              0x71 6:11 
              0x74 4:27 
              0x7b 5:13 
              0x7f 5:18 
              0x83 6:11 
              0x86 4:27 
              0x8d 5:13 
              0x91 5:18 
              0x95 6:11 
              0x98 4:27 
              0x9f 5:13 
              0xa3 5:18 
              0xa7 6:11 stmt
              0xaa 4:27 stmt
              0xae 4:3 
              0xb9 4:3 stmt
              0xc0 4:3 stmt
              0xd5 4:3 stmt
              0xd7 4:3 stmt
              0xe1 4:3 stmt
              0xe6 4:3 stmt
              0xee 4:3 stmt
              0xf6 4:3 stmt
            variables:
              a [0x4, 0xfb) (reg5:u64) Arg(0)
              n [0x4, 0x2a) (reg4:i32) Arg(0)
              n [0xb9, 0xca) (reg4:i32) Arg(0)
              scale [0x4, 0xfb) (reg1:i32) Arg(0)
              total [0x4, 0x38) (const 0) Arg(0) StackValue
              total [0x46, 0x51) (reg8:i32) Arg(0)
              total [0x51, 0x67) (reg9:i32) Arg(0)
              total [0x69, 0x74) (reg8:i32) Arg(0)
              total [0x74, 0x86) (reg10:i32) Arg(0)
              total [0x86, 0x98) (reg8:i32) Arg(0)
              total [0x98, 0xaa) (reg10:i32) Arg(0)
              total [0xaa, 0xb9) (reg8:i32) Arg(0)
              total [0xb9, 0xd5) (const 0) Arg(0) StackValue
              total [0xe1, 0xee) (reg9:i32) Arg(0)
              total [0xee, 0xfb) (reg8:i32) Arg(0)
              i [0x4, 0x38) (const 0) Arg(0) StackValue
              i [0x46, 0x67) (reg4:i64) Arg(0)
              i [0x69, 0x7b) (reg4:i64) Arg(0)
              i [0x7b, 0x7f) (reg8:i64) Arg(0)
              i [0x8d, 0x91) (reg10:i64) Arg(0)
              i [0x9f, 0xa3) (reg8:i64) Arg(0)
              i [0xae, 0xb9) (reg4:i64) Arg(0)
              i [0xb9, 0xd5) (const 0) Arg(0) StackValue
              i [0xe1, 0xfb) (reg4:i64) Arg(0)
              v [0x4e, 0x51) (reg9:i32) Arg(0)
              v [0x71, 0x74) (reg10:i32) Arg(0)
              v [0x83, 0x86) (reg8:i32) Arg(0)
              v [0x95, 0x98) (reg10:i32) Arg(0)
              v [0xa7, 0xaa) (reg8:i32) Arg(0)
        "#]],
    );
}

#[test]
fn str_len_pointer_loop() {
    check(
        "strings.O2.ll",
        "str_len",
        expect![[r#"
               0: push rbp
               1: mov rbp, rsp
               4: mov rax, rdi
               7: movzx ecx, byte ptr [rax]
               a: lea rdx, [rax+1]
               e: test cl, cl
              10: jne short 0x17
              12: sub rax, rdi
              15: pop rbp
              16: ret
              17: mov rax, rdx
              1a: jmp short 7
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x7 4:10 stmt
              0xa 5:6 
              0xe 4:3 
              0x12 6:28 stmt
              0x15 6:3 epilogue_begin
              0x17 4:3 stmt
            variables:
              s [0x4, 0x1c) (reg5:u64) Arg(0)
              p [0x4, 0x7) (reg5:u64) Arg(0)
              p [0x7, 0xe) (reg0:u64) Arg(0)
              p [0xe, 0x1c) (reg1:u64) Arg(0)
        "#]],
    );
}
