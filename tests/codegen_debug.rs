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
               7: je short 0x29
               9: cmp edi, 1
               c: je short 0x30
               e: cmp edi, 2
              11: je short 0x37
              13: cmp edi, 3
              16: je short 0x3e
              18: cmp edi, 4
              1b: je short 0x45
              1d: cmp edi, 7
              20: je short 0x4c
              22: cmp edi, 0x64
              25: je short 0x53
              27: jmp short 0x5a
              29: mov eax, 6
              2e: jmp short 0x63
              30: mov eax, 0xa
              35: jmp short 0x63
              37: mov eax, 0xc
              3c: jmp short 0x63
              3e: mov eax, 5
              43: jmp short 0x63
              45: mov eax, 0x12
              4a: jmp short 0x63
              4c: mov eax, 3
              51: jmp short 0x63
              53: mov eax, 0
              58: jmp short 0x63
              5a: shl edi, 1
              5d: or edi, 1
              60: mov rax, rdi
              63: pop rbp
              64: ret
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x29 4:3 stmt
              0x30 6:18 stmt
              0x37 7:19 stmt
              0x3e 8:18 stmt
              0x45 9:19 stmt
              0x4c 10:18 stmt
              0x53 11:21 stmt
              0x5a 12:18 stmt
              0x5d 14:12 stmt
              0x60 12:23 
              0x63 14:3 stmt epilogue_begin
            variables:
              k [0x4, 0x5d) (reg5:i32) Arg(0)
              r [0x30, 0x37) (const 9) Arg(0) StackValue
              r [0x37, 0x3e) (const 11) Arg(0) StackValue
              r [0x3e, 0x45) (const 4) Arg(0) StackValue
              r [0x45, 0x4c) (const 17) Arg(0) StackValue
              r [0x4c, 0x53) (const 2) Arg(0) StackValue
              r [0x53, 0x5a) (const -1) Arg(0) StackValue
              r [0x5d, 0x60) (reg5:i32) Arg(0)
              r [0x63, 0x65) (reg0:i32) Arg(0)
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
               d: sub rsp, 0x18
              11: cmp esi, 0
              14: jg short 0x20
              16: mov eax, 0
              1b: jmp 0xbe
              20: mov ecx, esi
              22: mov [rbp-0x30], rcx
              26: mov r8, [rbp-0x30]
              2a: and r8, 3
              2e: mov [rbp-0x30], r8
              32: cmp esi, 4
              35: jae short 0x4d
              37: mov esi, 0
              3c: mov [rbp-0x40], rsi
              40: mov esi, 0
              45: mov r8d, 0
              4b: jmp short 0x73
              4d: mov [rbp-0x38], rcx
              51: mov rcx, [rbp-0x38]
              55: and rcx, 0x7ffffffc
              5c: mov [rbp-0x38], rcx
              60: mov ecx, 0
              65: mov r9d, 0
              6b: mov r10d, 0
              71: jmp short 0xcd
              73: mov r11, [rbp-0x30]
              77: cmp r11, 0
              7b: jne short 0x83
              7d: mov rax, [rbp-0x40]
              81: jmp short 0xbe
              83: mov r11, rsi
              86: mov rbx, r8
              89: mov r12d, 0
              8f: mov r13d, [rdi+r11*4]
              93: imul r13d, edx
              97: add r13d, ebx
              9a: mov r14, r11
              9d: add r14, 1
              a1: mov r15, r12
              a4: add r15, 1
              a8: cmp r15, [rbp-0x30]
              ac: jne short 0xb3
              ae: mov rax, r13
              b1: jmp short 0xbe
              b3: mov r11, r14
              b6: mov rbx, r13
              b9: mov r12, r15
              bc: jmp short 0x8f
              be: add rsp, 0x18
              c2: pop r15
              c4: pop r14
              c6: pop r13
              c8: pop r12
              ca: pop rbx
              cb: pop rbp
              cc: ret
              cd: mov eax, [rdi+rcx*4]
              d0: imul eax, edx
              d3: add eax, r9d
              d6: mov r11, rcx
              d9: or r11, 1
              dd: mov r11d, [rdi+r11*4]
              e1: imul r11d, edx
              e5: add r11d, eax
              e8: mov rax, rcx
              eb: or rax, 2
              ef: mov eax, [rdi+rax*4]
              f2: imul eax, edx
              f5: add eax, r11d
              f8: mov r11, rcx
              fb: or r11, 3
              ff: mov r11d, [rdi+r11*4]
             103: imul r11d, edx
             107: add r11d, eax
             10a: mov rax, rcx
             10d: add rax, 4
             111: mov rbx, r10
             114: add rbx, 4
             118: cmp rbx, [rbp-0x38]
             11c: jne short 0x12d
             11e: mov [rbp-0x40], r11
             122: mov rsi, rax
             125: mov r8, r11
             128: jmp 0x73
             12d: mov rcx, rax
             130: mov r9, r11
             133: mov r10, rbx
             136: jmp short 0xcd
            rows:
              0x0 2:0 stmt
              0x11 4:3 stmt prologue_end
              0x16 4:3 stmt
              0x20 4:21 stmt
              0x22 4:3 
              0x37 4:3 stmt
              0x4d 4:3 stmt
              0x73 4:3 stmt
              0x7d 4:3 stmt
              0x83 4:3 stmt
              0x8f 5:13 stmt
              0x93 5:18 
              0x97 6:11 stmt
              0x9a 4:27 stmt
              0xa1 4:3 
              0xae 4:3 stmt
              0xb3 4:3 stmt
              0xbe 8:3 stmt epilogue_begin
              0xcd 5:13 stmt
              0xd0 5:18 
              0xd3 6:11 stmt
              0xd6 4:27 stmt
              0xdd 5:13 
              0xe1 5:18 
              0xe5 6:11 
              0xe8 4:27 
              0xef 5:13 
              0xf2 5:18 
              0xf5 6:11 
              0xf8 4:27 
              0xff 5:13 
              0x103 5:18 
              0x107 6:11 
              0x10a 4:27 
              0x111 4:3 
              0x11e 4:3 stmt
              0x12d 4:3 stmt
            variables:
              a [0x11, 0x138) (reg5:u64) Arg(0)
              n [0x11, 0x3c) (reg4:i32) Arg(0)
              n [0x4d, 0x73) (reg4:i32) Arg(0)
              n [0xcd, 0x125) (reg4:i32) Arg(0)
              n [0x12d, 0x138) (reg4:i32) Arg(0)
              scale [0x11, 0x138) (reg1:i32) Arg(0)
              total [0x11, 0x73) (const 0) Arg(0) StackValue
              total [0x8f, 0x9a) (reg3:i32) Arg(0)
              total [0x9a, 0xbe) (reg13:i32) Arg(0)
              total [0xcd, 0xd6) (reg9:i32) Arg(0)
              total [0xd6, 0xe8) (reg0:i32) Arg(0)
              total [0xe8, 0xf8) (reg11:i32) Arg(0)
              total [0xf8, 0x10a) (reg0:i32) Arg(0)
              total [0x10a, 0x138) (reg11:i32) Arg(0)
              i [0x11, 0x73) (const 0) Arg(0) StackValue
              i [0x8f, 0xa1) (reg11:i64) Arg(0)
              i [0xa1, 0xbe) (reg14:i64) Arg(0)
              i [0xcd, 0xdd) (reg2:i64) Arg(0)
              i [0xdd, 0xe1) (reg11:i64) Arg(0)
              i [0xef, 0xf2) (reg0:i64) Arg(0)
              i [0xff, 0x103) (reg11:i64) Arg(0)
              i [0x111, 0x138) (reg0:i64) Arg(0)
              v [0x97, 0x9a) (reg13:i32) Arg(0)
              v [0xd3, 0xd6) (reg0:i32) Arg(0)
              v [0xe5, 0xe8) (reg11:i32) Arg(0)
              v [0xf5, 0xf8) (reg0:i32) Arg(0)
              v [0x107, 0x10a) (reg11:i32) Arg(0)
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
               e: cmp cl, 0
              11: je short 0x18
              13: mov rax, rdx
              16: jmp short 7
              18: sub rax, rdi
              1b: pop rbp
              1c: ret
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x7 4:10 stmt
              0xa 5:6 stmt
              0xe 4:3 
              0x13 4:3 stmt
              0x18 6:28 stmt
              0x1b 6:3 epilogue_begin
            variables:
              s [0x4, 0x1d) (reg5:u64) Arg(0)
              p [0x4, 0x7) (reg5:u64) Arg(0)
              p [0x7, 0xe) (reg0:u64) Arg(0)
              p [0xe, 0x1d) (reg1:u64) Arg(0)
        "#]],
    );
}
