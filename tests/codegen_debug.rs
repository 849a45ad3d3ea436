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
               0: mov rax, rsi
               3: imul eax, edi
               6: mov rcx, rsi
               9: sub ecx, edi
               b: add ecx, 4
               e: add ecx, eax
              10: xor ecx, esi
              12: mov rax, rcx
              15: ret
            rows:
              0x0 4:13 stmt prologue_end
              0x6 5:13 stmt
              0xe 6:13 stmt
              0x10 7:12 stmt
              0x12 7:3 
              0x15 7:3 epilogue_begin
            variables:
              x [0x0, 0x16) (reg5:i32) Arg(0)
              y [0x0, 0x16) (reg4:i32) Arg(0)
              q [0x10, 0x12) (reg2:i32) Arg(0)
        "#]],
    );
}

#[test]
fn offsets_two_operand_expressions() {
    check(
        "arith_temps.O2.ll",
        "offsets",
        expect![[r#"
               0: lea eax, [rsi+rdi]
               3: sub esi, edi
               5: shl esi, 2
               8: lea eax, [rsi+rax*8]
               b: ret
            rows:
              0x0 11:15 stmt prologue_end
              0x3 12:16 stmt
              0x5 14:22 stmt
              0x8 15:17 stmt
              0xb 15:3 epilogue_begin
            variables:
              a [0x0, 0xc) (reg5:i32) Arg(0)
              b [0x0, 0x5) (reg4:i32) Arg(0)
              b [0x5, 0x8) (reg4:i32, reg5:i32) Arg(0) Arg(1) Plus StackValue
              b [0x8, 0xc) (entry(reg4)) Arg(0) StackValue
              sum [0x3, 0xb) (reg0:i32) Arg(0)
              scaled [0x5, 0xb) (reg0:i32) Arg(0) Constu(3) Shl StackValue
        "#]],
    );
}

#[test]
fn classify_jump_table_and_phi() {
    check(
        "switch_table.O2.ll",
        "classify",
        expect![[r#"
               0: mov eax, edi
               2: cmp eax, 7
               5: ja short 0x1e
               7: lea rcx, [0]
               e: movsxd rdx, [rcx+rax*4]
              12: add rdx, rcx
              15: jmp rdx
              17: mov eax, 6
              1c: jmp short 0x56
              1e: cmp edi, 0x64
              21: jne short 0x4d
              23: mov eax, 0
              28: jmp short 0x56
              2a: mov eax, 0xa
              2f: jmp short 0x56
              31: mov eax, 0xc
              36: jmp short 0x56
              38: mov eax, 5
              3d: jmp short 0x56
              3f: mov eax, 0x12
              44: jmp short 0x56
              46: mov eax, 3
              4b: jmp short 0x56
              4d: shl edi, 1
              50: add edi, 1
              53: mov rax, rdi
              56: ret
            rows:
              0x0 4:3 stmt prologue_end
              0x17 0:0 
              0x1e 4:3 stmt
              0x23 11:21 stmt
              0x2a 6:18 stmt
              0x31 7:19 stmt
              0x38 8:18 stmt
              0x3f 9:19 stmt
              0x46 10:18 stmt
              0x4d 12:18 stmt
              0x50 14:12 
              0x53 12:23 
              0x56 14:3 stmt epilogue_begin
            variables:
              k [0x0, 0x50) (reg5:i32) Arg(0)
              k [0x50, 0x56) (reg0:i32) Arg(0)
              k [0x56, 0x57) (entry(reg5)) Arg(0) StackValue
              r [0x23, 0x2a) (const -1) Arg(0) StackValue
              r [0x2a, 0x31) (const 9) Arg(0) StackValue
              r [0x31, 0x38) (const 11) Arg(0) StackValue
              r [0x38, 0x3f) (const 4) Arg(0) StackValue
              r [0x3f, 0x46) (const 17) Arg(0) StackValue
              r [0x46, 0x4d) (const 2) Arg(0) StackValue
              r [0x50, 0x53) (reg5:i32) Arg(0)
              r [0x53, 0x56) (reg5:i32) Arg(0) Consts(1) Minus StackValue
              r [0x56, 0x57) (reg0:i32) Arg(0)
        "#]],
    );
}

#[test]
fn pick_select_ranges() {
    check(
        "select_diamond.O2.ll",
        "pick",
        expect![[r#"
               0: add esi, 1
               3: add edx, 0xffffffff
               6: test edi, edi
               8: cmovg edx, esi
               b: shl edx, 1
               e: mov rax, rdx
              11: ret
            rows:
              0x0 5:7 stmt prologue_end
              0x6 5:9 
              0x8 5:7 
              0xb 9:12 stmt
              0xe 9:3 
              0x11 9:3 epilogue_begin
            variables:
              c [0x0, 0x12) (reg5:i32) Arg(0)
              a [0x0, 0x3) (reg4:i32) Arg(0)
              a [0x3, 0x12) (reg4:i32) Arg(0) Consts(1) Minus StackValue
              b [0x0, 0x6) (reg1:i32) Arg(0)
              b [0x6, 0xb) (reg1:i32) Arg(0) Consts(-1) Minus StackValue
              b [0xb, 0x12) (entry(reg1)) Arg(0) StackValue
              r [0xb, 0xe) (reg1:i32) Arg(0)
        "#]],
    );
}

#[test]
fn abs_diff_ranges() {
    check(
        "select_diamond.O2.ll",
        "abs_diff",
        expect![[r#"
               0: sub edi, esi
               2: mov rax, rdi
               5: neg eax
               7: cmovs eax, edi
               a: ret
            rows:
              0x0 13:13 stmt prologue_end
              0x2 15:7 stmt
              0xa 17:3 stmt epilogue_begin
            variables:
              a [0x0, 0x2) (reg5:i32) Arg(0)
              a [0x2, 0xb) (reg5:i32, reg4:i32) Arg(0) Arg(1) Plus StackValue
              b [0x0, 0xb) (reg4:i32) Arg(0)
              d [0x2, 0xa) (reg5:i32) Arg(0)
              d [0xa, 0xb) (reg0:i32) Arg(0)
              neg [0x2, 0xb) (reg5:i32) Arg(0) Consts(0) Compare(Lt) Constu(1) And Convert { bits: 1, signed: false } Convert { bits: 32, signed: false } StackValue
        "#]],
    );
}

#[test]
fn sum_scaled_loop_ranges() {
    check(
        "sum_array.O2.ll",
        "sum_scaled",
        expect![[r#"
               0: test esi, esi
               2: jg short 0xa
               4: mov eax, 0
               9: ret
               a: mov ecx, esi
               c: mov r8, rcx
               f: and r8, 3
              13: cmp esi, 4
              16: jae short 0x34
              18: mov r9d, 0
              1e: mov r10d, 0
              24: mov r11d, 0
              2a: test r8, r8
              2d: jne short 0x99
              2f: mov rax, r9
              32: jmp short 9
              34: and rcx, 0x7ffffffc
              3b: mov eax, 0
              40: mov esi, 0
              45: mov r9d, 0
              4b: mov r10d, [rdi+rax*4]
              4f: imul r10d, edx
              53: add r10d, esi
              56: lea r11, [rax+1]
              5a: mov esi, [rdi+r11*4]
              5e: imul esi, edx
              61: add esi, r10d
              64: lea r11, [rax+2]
              68: mov r10d, [rdi+r11*4]
              6c: imul r10d, edx
              70: add r10d, esi
              73: lea r11, [rax+3]
              77: mov esi, [rdi+r11*4]
              7b: imul esi, edx
              7e: add esi, r10d
              81: add rax, 4
              85: add r9, 4
              89: cmp r9, rcx
              8c: jne short 0x4b
              8e: mov r9, rsi
              91: mov r10, rax
              94: mov r11, rsi
              97: jmp short 0x2a
              99: mov ecx, 0
              9e: jmp short 0xa3
              a0: mov r11, rsi
              a3: mov esi, [rdi+r10*4]
              a7: imul esi, edx
              aa: add esi, r11d
              ad: add r10, 1
              b1: add rcx, 1
              b5: cmp rcx, r8
              b8: jne short 0xa0
              ba: mov rax, rsi
              bd: jmp 9
            rows:
              0x0 4:21 stmt prologue_end
              0x2 4:3 
              0x4 0:0 
              0x9 8:3 stmt epilogue_begin
              0xa 4:21 stmt
              0xc 4:3 
              0x18 0:0 
              0x2a 4:3 stmt
              0x2f 0:0 
              0x34 4:3 stmt
              0x4b 5:13 stmt
              0x4f 5:18 
              0x53 6:11 stmt
              0x56 4:27 stmt
              0x5a 5:13 
              0x5e 5:18 
              0x61 6:11 
              0x64 4:27 
              0x68 5:13 
              0x6c 5:18 
              0x70 6:11 
              0x73 4:27 
              0x77 5:13 
              0x7b 5:18 
              0x7e 6:11 
              0x81 4:27 
              0x85 4:3 
              0x8e 0:0 
              0x99 0:0 
              0xa0 0:0 
              0xa3 5:13 stmt
              0xa7 5:18 
              0xaa 6:11 stmt
              0xad 4:27 stmt
              0xb1 4:3 
              0xba 0:0 
            variables:
              a [0x0, 0xc2) (reg5:u64) Arg(0)
              n [0x0, 0x9) (reg4:i32) Arg(0)
              n [0x9, 0xa) (entry(reg4)) Arg(0) StackValue
              n [0xa, 0x2a) (reg4:i32) Arg(0)
              n [0x2a, 0x34) (entry(reg4)) Arg(0) StackValue
              n [0x34, 0x45) (reg4:i32) Arg(0)
              n [0x45, 0xc2) (entry(reg4)) Arg(0) StackValue
              scale [0x0, 0xc2) (reg1:i32) Arg(0)
              total [0x0, 0x9) (const 0) Arg(0) StackValue
              total [0x9, 0xa) (reg0:i32) Arg(0)
              total [0xa, 0x2a) (const 0) Arg(0) StackValue
              total [0x2a, 0x34) (reg9:i32) Arg(0)
              total [0x34, 0x4b) (const 0) Arg(0) StackValue
              total [0x4b, 0x56) (reg4:i32) Arg(0)
              total [0x56, 0x64) (reg10:i32) Arg(0)
              total [0x64, 0x73) (reg4:i32) Arg(0)
              total [0x73, 0x81) (reg10:i32) Arg(0)
              total [0x81, 0x99) (reg4:i32) Arg(0)
              total [0x99, 0xa0) (reg9:i32) Arg(0)
              total [0xa0, 0xa3) (reg4:i32) Arg(0)
              total [0xa3, 0xad) (reg11:i32) Arg(0)
              total [0xad, 0xc2) (reg4:i32) Arg(0)
              i [0x0, 0x9) (const 0) Arg(0) StackValue
              i [0xa, 0x2a) (const 0) Arg(0) StackValue
              i [0x34, 0x4b) (const 0) Arg(0) StackValue
              i [0x4b, 0x5a) (reg0:i64) Arg(0)
              i [0x5a, 0x85) (reg11:i64) Arg(0)
              i [0x85, 0x99) (reg0:i64) Arg(0)
              i [0xa0, 0xc2) (reg10:i64) Arg(0)
              v [0x53, 0x56) (reg10:i32) Arg(0)
              v [0x56, 0x5e) (reg10:i32, reg4:i32) Arg(0) Arg(1) Minus StackValue
              v [0x61, 0x64) (reg4:i32) Arg(0)
              v [0x64, 0x6c) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
              v [0x70, 0x73) (reg10:i32) Arg(0)
              v [0x73, 0x7b) (reg10:i32, reg4:i32) Arg(0) Arg(1) Minus StackValue
              v [0x7e, 0x81) (reg4:i32) Arg(0)
              v [0x81, 0x94) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
              v [0xa0, 0xa3) (reg4:i32, reg11:i32) Arg(0) Arg(1) Minus StackValue
              v [0xaa, 0xad) (reg4:i32) Arg(0)
              v [0xad, 0xc2) (reg4:i32, reg11:i32) Arg(0) Arg(1) Minus StackValue
        "#]],
    );
}

#[test]
fn str_len_pointer_loop() {
    check(
        "strings.O2.ll",
        "str_len",
        expect![[r#"
               0: mov rax, rdi
               3: jmp short 8
               5: mov rax, rdx
               8: movzx ecx, byte ptr [rax]
               b: lea rdx, [rax+1]
               f: test cl, cl
              11: jne short 5
              13: sub rax, rdi
              16: ret
            rows:
              0x0 4:3 stmt prologue_end
              0x5 0:0 
              0x8 4:10 stmt
              0xb 5:6 
              0xf 4:3 
              0x13 6:28 stmt
              0x16 6:3 epilogue_begin
            variables:
              s [0x0, 0x17) (reg5:u64) Arg(0)
              p [0x0, 0x5) (reg5:u64) Arg(0)
              p [0x5, 0x8) (reg1:u64) Arg(0)
              p [0x8, 0xf) (reg0:u64) Arg(0)
              p [0xf, 0x17) (reg1:u64) Arg(0)
        "#]],
    );
}
