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
                LocationArg::FloatRegister { register, bits } => format!("reg{register}:f{bits}"),
                LocationArg::FrameSlot(off) => format!("cfa{off:+}"),
                LocationArg::Constant(c) => format!("const {c}"),
                LocationArg::EntryValue { register } => format!("entry(reg{register})"),
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
              x [0x0, 0x1b) (reg5:i32) Arg(0)
              y [0x0, 0x1b) (reg4:i32) Arg(0)
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
               4: lea eax, [rsi+rdi]
               7: sub esi, edi
               9: shl eax, 3
               c: shl esi, 2
               f: add esi, eax
              11: mov rax, rsi
              14: pop rbp
              15: ret
            rows:
              0x0 10:0 stmt
              0x4 11:15 stmt prologue_end
              0x7 12:16 stmt
              0x9 13:20 stmt
              0xc 14:22 stmt
              0xf 15:17 stmt
              0x11 15:3 
              0x14 15:3 epilogue_begin
            variables:
              a [0x0, 0x16) (reg5:i32) Arg(0)
              b [0x0, 0x9) (reg4:i32) Arg(0)
              b [0x9, 0xf) (reg4:i32, reg5:i32) Arg(0) Arg(1) Plus StackValue
              b [0xf, 0x16) (entry(reg4)) Arg(0) StackValue
              sum [0x7, 0xc) (reg0:i32) Arg(0)
              scaled [0xc, 0x14) (reg0:i32) Arg(0)
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
               4: mov eax, edi
               6: cmp eax, 7
               9: ja short 0x22
               b: lea rcx, [0]
              12: movsxd rdx, [rcx+rax*4]
              16: add rdx, rcx
              19: jmp rdx
              1b: mov eax, 6
              20: jmp short 0x5c
              22: cmp edi, 0x64
              25: je short 0x4c
              27: jmp short 0x53
              29: mov eax, 0xa
              2e: jmp short 0x5c
              30: mov eax, 0xc
              35: jmp short 0x5c
              37: mov eax, 5
              3c: jmp short 0x5c
              3e: mov eax, 0x12
              43: jmp short 0x5c
              45: mov eax, 3
              4a: jmp short 0x5c
              4c: mov eax, 0
              51: jmp short 0x5c
              53: shl edi, 1
              56: or edi, 1
              59: mov rax, rdi
              5c: pop rbp
              5d: ret
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x1b 0:0 
              0x22 4:3 stmt
              0x29 6:18 stmt
              0x30 7:19 stmt
              0x37 8:18 stmt
              0x3e 9:19 stmt
              0x45 10:18 stmt
              0x4c 11:21 stmt
              0x53 12:18 stmt
              0x56 14:12 
              0x59 12:23 
              0x5c 14:3 stmt epilogue_begin
            variables:
              k [0x0, 0x56) (reg5:i32) Arg(0)
              k [0x56, 0x5c) (entry(reg5)) Arg(0) StackValue
              r [0x29, 0x30) (const 9) Arg(0) StackValue
              r [0x30, 0x37) (const 11) Arg(0) StackValue
              r [0x37, 0x3e) (const 4) Arg(0) StackValue
              r [0x3e, 0x45) (const 17) Arg(0) StackValue
              r [0x45, 0x4c) (const 2) Arg(0) StackValue
              r [0x4c, 0x53) (const -1) Arg(0) StackValue
              r [0x56, 0x59) (reg5:i32) Arg(0)
              r [0x5c, 0x5e) (reg0:i32) Arg(0)
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
              0xa 5:9 
              0xc 5:7 
              0xf 9:12 stmt
              0x12 9:3 
              0x15 9:3 epilogue_begin
            variables:
              c [0x0, 0x17) (reg5:i32) Arg(0)
              a [0x0, 0x7) (reg4:i32) Arg(0)
              a [0x7, 0x17) (reg4:i32) Arg(0) Consts(1) Minus StackValue
              b [0x0, 0xa) (reg1:i32) Arg(0)
              b [0xa, 0xf) (reg1:i32) Arg(0) Consts(-1) Minus StackValue
              b [0xf, 0x17) (entry(reg1)) Arg(0) StackValue
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
              a [0x0, 0x6) (reg5:i32) Arg(0)
              a [0x6, 0x10) (reg5:i32, reg4:i32) Arg(0) Arg(1) Plus StackValue
              b [0x0, 0x10) (reg4:i32) Arg(0)
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
               6: jg short 0xf
               8: mov eax, 0
               d: jmp short 0x7a
               f: mov ecx, esi
              11: mov r8, rcx
              14: and r8, 3
              18: cmp esi, 4
              1b: jae short 0x31
              1d: mov r9d, 0
              23: mov r10d, 0
              29: mov r11d, 0
              2f: jmp short 0x4a
              31: and rcx, 0x7ffffffc
              38: mov eax, 0
              3d: mov esi, 0
              42: mov r9d, 0
              48: jmp short 0x7c
              4a: test r8, r8
              4d: jne short 0x54
              4f: mov rax, r9
              52: jmp short 0x7a
              54: mov ecx, 0
              59: mov esi, [rdi+r10*4]
              5d: imul esi, edx
              60: add esi, r11d
              63: add r10, 1
              67: add rcx, 1
              6b: cmp rcx, r8
              6e: jne short 0x75
              70: mov rax, rsi
              73: jmp short 0x7a
              75: mov r11, rsi
              78: jmp short 0x59
              7a: pop rbp
              7b: ret
              7c: mov r10d, [rdi+rax*4]
              80: imul r10d, edx
              84: add r10d, esi
              87: mov r11, rax
              8a: or r11, 1
              8e: mov esi, [rdi+r11*4]
              92: imul esi, edx
              95: add esi, r10d
              98: mov r11, rax
              9b: or r11, 2
              9f: mov r10d, [rdi+r11*4]
              a3: imul r10d, edx
              a7: add r10d, esi
              aa: mov r11, rax
              ad: or r11, 3
              b1: mov esi, [rdi+r11*4]
              b5: imul esi, edx
              b8: add esi, r10d
              bb: add rax, 4
              bf: add r9, 4
              c3: cmp r9, rcx
              c6: jne short 0xd6
              c8: mov r9, rsi
              cb: mov r10, rax
              ce: mov r11, rsi
              d1: jmp 0x4a
              d6: jmp short 0x7c
            rows:
              0x0 2:0 stmt
              0x4 4:21 stmt prologue_end
              0x6 4:3 
              0x8 0:0 
              0xf 4:21 stmt
              0x11 4:3 
              0x1d 0:0 
              0x31 4:3 stmt
              0x4a 4:3 stmt
              0x4f 0:0 
              0x54 0:0 
              0x59 5:13 stmt
              0x5d 5:18 
              0x60 6:11 stmt
              0x63 4:27 stmt
              0x67 4:3 
              0x70 0:0 
              0x75 0:0 
              0x7a 8:3 stmt epilogue_begin
              0x7c 5:13 stmt
              0x80 5:18 
              0x84 6:11 stmt
              0x87 4:27 stmt
              0x8e 5:13 
              0x92 5:18 
              0x95 6:11 
              0x98 4:27 
              0x9f 5:13 
              0xa3 5:18 
              0xa7 6:11 
              0xaa 4:27 
              0xb1 5:13 
              0xb5 5:18 
              0xb8 6:11 
              0xbb 4:27 
              0xbf 4:3 
              0xc8 0:0 
              0xd6 0:0 
            variables:
              a [0x0, 0xd8) (reg5:u64) Arg(0)
              n [0x0, 0x42) (reg4:i32) Arg(0)
              n [0x42, 0x4a) (entry(reg4)) Arg(0) StackValue
              n [0x7c, 0xd8) (entry(reg4)) Arg(0) StackValue
              scale [0x0, 0xd8) (reg1:i32) Arg(0)
              total [0x0, 0x4a) (const 0) Arg(0) StackValue
              total [0x59, 0x63) (reg11:i32) Arg(0)
              total [0x63, 0x7a) (reg4:i32) Arg(0)
              total [0x7c, 0x87) (reg4:i32) Arg(0)
              total [0x87, 0x98) (reg10:i32) Arg(0)
              total [0x98, 0xaa) (reg4:i32) Arg(0)
              total [0xaa, 0xbb) (reg10:i32) Arg(0)
              total [0xbb, 0xd8) (reg4:i32) Arg(0)
              i [0x0, 0x4a) (const 0) Arg(0) StackValue
              i [0x59, 0x7a) (reg10:i64) Arg(0)
              i [0x7c, 0x8e) (reg0:i64) Arg(0)
              i [0x8e, 0x9b) (reg11:i64) Arg(0)
              i [0x9f, 0xad) (reg11:i64) Arg(0)
              i [0xb1, 0xbf) (reg11:i64) Arg(0)
              i [0xbf, 0xd8) (reg0:i64) Arg(0)
              v [0x60, 0x63) (reg4:i32) Arg(0)
              v [0x63, 0x78) (reg4:i32, reg11:i32) Arg(0) Arg(1) Minus StackValue
              v [0x84, 0x87) (reg10:i32) Arg(0)
              v [0x87, 0x92) (reg10:i32, reg4:i32) Arg(0) Arg(1) Minus StackValue
              v [0x95, 0x98) (reg4:i32) Arg(0)
              v [0x98, 0xa3) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
              v [0xa7, 0xaa) (reg10:i32) Arg(0)
              v [0xaa, 0xb5) (reg10:i32, reg4:i32) Arg(0) Arg(1) Minus StackValue
              v [0xb8, 0xbb) (reg4:i32) Arg(0)
              v [0xbb, 0xce) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
              v [0xd6, 0xd8) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
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
              10: je short 0x17
              12: mov rax, rdx
              15: jmp short 7
              17: sub rax, rdi
              1a: pop rbp
              1b: ret
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x7 4:10 stmt
              0xa 5:6 
              0xe 4:3 
              0x12 0:0 
              0x17 6:28 stmt
              0x1a 6:3 epilogue_begin
            variables:
              s [0x0, 0x1c) (reg5:u64) Arg(0)
              p [0x0, 0x7) (reg5:u64) Arg(0)
              p [0x7, 0xe) (reg0:u64) Arg(0)
              p [0xe, 0x1c) (reg1:u64) Arg(0)
        "#]],
    );
}
