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
               7: je short 0x61
               9: cmp edi, 1
               c: je short 0x29
               e: cmp edi, 2
              11: je short 0x30
              13: cmp edi, 3
              16: je short 0x37
              18: cmp edi, 4
              1b: je short 0x3e
              1d: cmp edi, 7
              20: je short 0x45
              22: cmp edi, 0x64
              25: je short 0x4c
              27: jmp short 0x53
              29: mov ecx, 0xa
              2e: jmp short 0x5c
              30: mov ecx, 0xc
              35: jmp short 0x5c
              37: mov ecx, 5
              3c: jmp short 0x5c
              3e: mov ecx, 0x12
              43: jmp short 0x5c
              45: mov ecx, 3
              4a: jmp short 0x5c
              4c: mov ecx, 0
              51: jmp short 0x5c
              53: shl edi, 1
              56: or edi, 1
              59: mov rcx, rdi
              5c: mov rax, rcx
              5f: pop rbp
              60: ret
              61: mov ecx, 6
              66: jmp short 0x5c
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x29 6:18 stmt
              0x30 7:19 stmt
              0x37 8:18 stmt
              0x3e 9:19 stmt
              0x45 10:18 stmt
              0x4c 11:21 stmt
              0x53 12:18 stmt
              0x56 14:12 stmt
              0x59 12:23 
              0x5c 14:3 stmt
              0x5f 14:3 epilogue_begin
              0x61 4:3 stmt
            variables:
              k [0x4, 0x56) (reg5:i32) Arg(0)
              k [0x61, 0x68) (reg5:i32) Arg(0)
              r [0x29, 0x30) (const 9) Arg(0) StackValue
              r [0x30, 0x37) (const 11) Arg(0) StackValue
              r [0x37, 0x3e) (const 4) Arg(0) StackValue
              r [0x3e, 0x45) (const 17) Arg(0) StackValue
              r [0x45, 0x4c) (const 2) Arg(0) StackValue
              r [0x4c, 0x53) (const -1) Arg(0) StackValue
              r [0x56, 0x59) (reg5:i32) Arg(0)
              r [0x5c, 0x61) (reg2:i32) Arg(0)
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
           a: cmp edi, 0
           d: cmovg edx, esi
          10: shl edx, 1
          13: mov rax, rdx
          16: pop rbp
          17: ret
        rows:
          0x0 3:0 stmt
          0x4 5:7 stmt prologue_end
          0x10 9:12 stmt
          0x13 9:3 
          0x16 9:3 epilogue_begin
        variables:
          c [0x4, 0x18) (reg5:i32) Arg(0)
          a [0x4, 0x7) (reg4:i32) Arg(0)
          b [0x4, 0xa) (reg1:i32) Arg(0)
          r [0x10, 0x13) (reg1:i32) Arg(0)
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
               4: push rbx
               5: push r12
               7: push r13
               9: push r14
               b: push r15
               d: sub rsp, 0x38
              11: cmp esi, 0
              14: jle 0x103
              1a: mov eax, esi
              1c: mov [rbp-0x30], rax
              20: mov rcx, [rbp-0x30]
              24: and rcx, 3
              28: mov [rbp-0x30], rcx
              2c: cmp esi, 4
              2f: jb 0x10b
              35: mov [rbp-0x38], rax
              39: mov rax, [rbp-0x38]
              3d: and rax, 0x7ffffffc
              44: mov [rbp-0x38], rax
              48: mov ecx, 0
              4d: mov eax, 0
              52: mov [rbp-0x58], rax
              56: mov eax, 0
              5b: mov [rbp-0x60], rax
              5f: jmp short 0xaf
              61: mov rax, [rbp-0x30]
              65: cmp rax, 0
              69: je 0x12e
              6f: jmp 0x137
              74: mov eax, [rdi+rsi*4]
              77: imul eax, edx
              7a: mov r10, rax
              7d: add r10d, r8d
              80: mov r11, rsi
              83: add r11, 1
              87: mov rbx, r9
              8a: add rbx, 1
              8e: cmp rbx, [rbp-0x30]
              92: je 0x14a
              98: jmp 0x152
              9d: mov rax, r12
              a0: add rsp, 0x38
              a4: pop r15
              a6: pop r14
              a8: pop r13
              aa: pop r12
              ac: pop rbx
              ad: pop rbp
              ae: ret
              af: mov eax, [rdi+rcx*4]
              b2: imul eax, edx
              b5: add eax, [rbp-0x58]
              b8: mov r13, rcx
              bb: or r13, 1
              bf: mov r13d, [rdi+r13*4]
              c3: imul r13d, edx
              c7: add r13d, eax
              ca: mov rax, rcx
              cd: or rax, 2
              d1: mov eax, [rdi+rax*4]
              d4: imul eax, edx
              d7: add eax, r13d
              da: mov r13, rcx
              dd: or r13, 3
              e1: mov r13d, [rdi+r13*4]
              e5: imul r13d, edx
              e9: add r13d, eax
              ec: mov rax, rcx
              ef: add rax, 4
              f3: mov r14, [rbp-0x60]
              f7: add r14, 4
              fb: cmp r14, [rbp-0x38]
              ff: je short 0x160
             101: jmp short 0x171
             103: mov r12d, 0
             109: jmp short 0x9d
             10b: mov r15d, 0
             111: mov [rbp-0x40], r15
             115: mov r15d, 0
             11b: mov [rbp-0x48], r15
             11f: mov r15d, 0
             125: mov [rbp-0x50], r15
             129: jmp 0x61
             12e: mov r12, [rbp-0x40]
             132: jmp 0x9d
             137: mov rsi, [rbp-0x48]
             13b: mov r8, [rbp-0x50]
             13f: mov r9d, 0
             145: jmp 0x74
             14a: mov r12, r10
             14d: jmp 0x9d
             152: mov rsi, r11
             155: mov r8, r10
             158: mov r9, rbx
             15b: jmp 0x74
             160: mov [rbp-0x40], r13
             164: mov [rbp-0x48], rax
             168: mov [rbp-0x50], r13
             16c: jmp 0x61
             171: mov rcx, rax
             174: mov [rbp-0x58], r13
             178: mov [rbp-0x60], r14
             17c: jmp 0xaf
            rows:
              0x0 2:0 stmt
              0x11 4:3 stmt prologue_end
              0x1a 4:21 stmt
              0x1c 4:3 
              0x35 4:3 stmt
              0x61 4:3 stmt
              0x74 5:13 stmt
              0x77 5:18 
              0x7a 6:11 stmt
              0x80 4:27 stmt
              0x87 4:3 
              0x9d 8:3 stmt
              0xa0 8:3 epilogue_begin
              0xaf 5:13 stmt
              0xb2 5:18 
              0xb5 6:11 stmt
              0xb8 4:27 stmt
              0xbf 5:13 
              0xc3 5:18 
              0xc7 6:11 
              0xca 4:27 
              0xd1 5:13 
              0xd4 5:18 
              0xd7 6:11 
              0xda 4:27 
              0xe1 5:13 
              0xe5 5:18 
              0xe9 6:11 
              0xec 4:27 
              0xf3 4:3 
              0x103 4:3 stmt
              0x10b 4:3 stmt
              0x12e 4:3 stmt
              0x137 4:3 stmt
              0x14a 4:3 stmt
              0x152 4:3 stmt
              0x160 4:3 stmt
              0x171 4:3 stmt
            variables:
              a [0x11, 0x74) (reg5:u64) Arg(0)
              a [0xaf, 0x14a) (reg5:u64) Arg(0)
              a [0x160, 0x181) (reg5:u64) Arg(0)
              n [0x11, 0x74) (reg4:i32) Arg(0)
              n [0xaf, 0x13b) (reg4:i32) Arg(0)
              n [0x160, 0x181) (reg4:i32) Arg(0)
              scale [0x11, 0x74) (reg1:i32) Arg(0)
              scale [0xaf, 0x14a) (reg1:i32) Arg(0)
              scale [0x160, 0x181) (reg1:i32) Arg(0)
              total [0x11, 0x61) (const 0) Arg(0) StackValue
              total [0x74, 0x80) (reg8:i32) Arg(0)
              total [0x80, 0x9d) (reg10:i32) Arg(0)
              total [0xaf, 0xb8) (cfa-104) Arg(0)
              total [0xb8, 0xca) (reg0:i32) Arg(0)
              total [0xca, 0xda) (reg13:i32) Arg(0)
              total [0xda, 0xec) (reg0:i32) Arg(0)
              total [0xec, 0x103) (reg13:i32) Arg(0)
              total [0x103, 0x12e) (const 0) Arg(0) StackValue
              total [0x14a, 0x160) (reg10:i32) Arg(0)
              total [0x160, 0x181) (reg13:i32) Arg(0)
              i [0x11, 0x61) (const 0) Arg(0) StackValue
              i [0x74, 0x87) (reg4:i64) Arg(0)
              i [0x87, 0x9d) (reg11:i64) Arg(0)
              i [0xaf, 0xbf) (reg2:i64) Arg(0)
              i [0xbf, 0xc3) (reg13:i64) Arg(0)
              i [0xd1, 0xd4) (reg0:i64) Arg(0)
              i [0xe1, 0xe5) (reg13:i64) Arg(0)
              i [0xf3, 0x103) (reg0:i64) Arg(0)
              i [0x103, 0x12e) (const 0) Arg(0) StackValue
              i [0x14a, 0x160) (reg11:i64) Arg(0)
              i [0x160, 0x181) (reg0:i64) Arg(0)
              v [0x7a, 0x9d) (reg0:i32) Arg(0)
              v [0xb5, 0xb8) (reg0:i32) Arg(0)
              v [0xc7, 0xca) (reg13:i32) Arg(0)
              v [0xd7, 0xda) (reg0:i32) Arg(0)
              v [0xe9, 0xec) (reg13:i32) Arg(0)
              v [0x14a, 0x160) (reg0:i32) Arg(0)
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
           4: mov rcx, rdi
           7: movzx eax, byte ptr [rcx]
           a: lea rdx, [rcx+1]
           e: cmp al, 0
          11: jne short 0x1e
          13: mov rax, rcx
          16: mov rsi, rdi
          19: sub rax, rsi
          1c: pop rbp
          1d: ret
          1e: mov rcx, rdx
          21: jmp short 7
        rows:
          0x0 2:0 stmt
          0x4 4:3 stmt prologue_end
          0x7 4:10 stmt
          0xa 5:6 stmt
          0xe 4:3 
          0x13 6:28 stmt
          0x1c 6:3 epilogue_begin
          0x1e 4:3 stmt
        variables:
          s [0x4, 0x23) (reg5:u64) Arg(0)
          p [0x4, 0x7) (reg5:u64) Arg(0)
          p [0x7, 0xe) (reg2:u64) Arg(0)
          p [0xe, 0x23) (reg1:u64) Arg(0)
    "#]],
    );
}
