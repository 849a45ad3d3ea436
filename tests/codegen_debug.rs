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
               5: shl eax, 3
               8: shl esi, 2
               b: add esi, eax
               d: mov rax, rsi
              10: ret
            rows:
              0x0 11:15 stmt prologue_end
              0x3 12:16 stmt
              0x5 13:20 stmt
              0x8 14:22 stmt
              0xb 15:17 stmt
              0xd 15:3 
              0x10 15:3 epilogue_begin
            variables:
              a [0x0, 0x11) (reg5:i32) Arg(0)
              b [0x0, 0x5) (reg4:i32) Arg(0)
              b [0x5, 0xb) (reg4:i32, reg5:i32) Arg(0) Arg(1) Plus StackValue
              b [0xb, 0x11) (entry(reg4)) Arg(0) StackValue
              sum [0x3, 0x8) (reg0:i32) Arg(0)
              scaled [0x8, 0x10) (reg0:i32) Arg(0)
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
              1c: jmp short 0x58
              1e: cmp edi, 0x64
              21: je short 0x48
              23: jmp short 0x4f
              25: mov eax, 0xa
              2a: jmp short 0x58
              2c: mov eax, 0xc
              31: jmp short 0x58
              33: mov eax, 5
              38: jmp short 0x58
              3a: mov eax, 0x12
              3f: jmp short 0x58
              41: mov eax, 3
              46: jmp short 0x58
              48: mov eax, 0
              4d: jmp short 0x58
              4f: shl edi, 1
              52: or edi, 1
              55: mov rax, rdi
              58: ret
            rows:
              0x0 4:3 stmt prologue_end
              0x17 0:0 
              0x1e 4:3 stmt
              0x25 6:18 stmt
              0x2c 7:19 stmt
              0x33 8:18 stmt
              0x3a 9:19 stmt
              0x41 10:18 stmt
              0x48 11:21 stmt
              0x4f 12:18 stmt
              0x52 14:12 
              0x55 12:23 
              0x58 14:3 stmt epilogue_begin
            variables:
              k [0x0, 0x52) (reg5:i32) Arg(0)
              k [0x52, 0x58) (entry(reg5)) Arg(0) StackValue
              r [0x25, 0x2c) (const 9) Arg(0) StackValue
              r [0x2c, 0x33) (const 11) Arg(0) StackValue
              r [0x33, 0x3a) (const 4) Arg(0) StackValue
              r [0x3a, 0x41) (const 17) Arg(0) StackValue
              r [0x41, 0x48) (const 2) Arg(0) StackValue
              r [0x48, 0x4f) (const -1) Arg(0) StackValue
              r [0x52, 0x55) (reg5:i32) Arg(0)
              r [0x58, 0x59) (reg0:i32) Arg(0)
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
               2: jg short 0xb
               4: mov eax, 0
               9: jmp short 0x76
               b: mov ecx, esi
               d: mov r8, rcx
              10: and r8, 3
              14: cmp esi, 4
              17: jae short 0x2d
              19: mov r9d, 0
              1f: mov r10d, 0
              25: mov r11d, 0
              2b: jmp short 0x46
              2d: and rcx, 0x7ffffffc
              34: mov eax, 0
              39: mov esi, 0
              3e: mov r9d, 0
              44: jmp short 0x77
              46: test r8, r8
              49: jne short 0x50
              4b: mov rax, r9
              4e: jmp short 0x76
              50: mov ecx, 0
              55: mov esi, [rdi+r10*4]
              59: imul esi, edx
              5c: add esi, r11d
              5f: add r10, 1
              63: add rcx, 1
              67: cmp rcx, r8
              6a: jne short 0x71
              6c: mov rax, rsi
              6f: jmp short 0x76
              71: mov r11, rsi
              74: jmp short 0x55
              76: ret
              77: mov r10d, [rdi+rax*4]
              7b: imul r10d, edx
              7f: add r10d, esi
              82: mov r11, rax
              85: or r11, 1
              89: mov esi, [rdi+r11*4]
              8d: imul esi, edx
              90: add esi, r10d
              93: mov r11, rax
              96: or r11, 2
              9a: mov r10d, [rdi+r11*4]
              9e: imul r10d, edx
              a2: add r10d, esi
              a5: mov r11, rax
              a8: or r11, 3
              ac: mov esi, [rdi+r11*4]
              b0: imul esi, edx
              b3: add esi, r10d
              b6: add rax, 4
              ba: add r9, 4
              be: cmp r9, rcx
              c1: jne short 0xd1
              c3: mov r9, rsi
              c6: mov r10, rax
              c9: mov r11, rsi
              cc: jmp 0x46
              d1: jmp short 0x77
            rows:
              0x0 4:21 stmt prologue_end
              0x2 4:3 
              0x4 0:0 
              0xb 4:21 stmt
              0xd 4:3 
              0x19 0:0 
              0x2d 4:3 stmt
              0x46 4:3 stmt
              0x4b 0:0 
              0x50 0:0 
              0x55 5:13 stmt
              0x59 5:18 
              0x5c 6:11 stmt
              0x5f 4:27 stmt
              0x63 4:3 
              0x6c 0:0 
              0x71 0:0 
              0x76 8:3 stmt epilogue_begin
              0x77 5:13 stmt
              0x7b 5:18 
              0x7f 6:11 stmt
              0x82 4:27 stmt
              0x89 5:13 
              0x8d 5:18 
              0x90 6:11 
              0x93 4:27 
              0x9a 5:13 
              0x9e 5:18 
              0xa2 6:11 
              0xa5 4:27 
              0xac 5:13 
              0xb0 5:18 
              0xb3 6:11 
              0xb6 4:27 
              0xba 4:3 
              0xc3 0:0 
              0xd1 0:0 
            variables:
              a [0x0, 0xd3) (reg5:u64) Arg(0)
              n [0x0, 0x3e) (reg4:i32) Arg(0)
              n [0x3e, 0x46) (entry(reg4)) Arg(0) StackValue
              n [0x77, 0xd3) (entry(reg4)) Arg(0) StackValue
              scale [0x0, 0xd3) (reg1:i32) Arg(0)
              total [0x0, 0x46) (const 0) Arg(0) StackValue
              total [0x55, 0x5f) (reg11:i32) Arg(0)
              total [0x5f, 0x76) (reg4:i32) Arg(0)
              total [0x77, 0x82) (reg4:i32) Arg(0)
              total [0x82, 0x93) (reg10:i32) Arg(0)
              total [0x93, 0xa5) (reg4:i32) Arg(0)
              total [0xa5, 0xb6) (reg10:i32) Arg(0)
              total [0xb6, 0xd3) (reg4:i32) Arg(0)
              i [0x0, 0x46) (const 0) Arg(0) StackValue
              i [0x55, 0x76) (reg10:i64) Arg(0)
              i [0x77, 0x89) (reg0:i64) Arg(0)
              i [0x89, 0x96) (reg11:i64) Arg(0)
              i [0x9a, 0xa8) (reg11:i64) Arg(0)
              i [0xac, 0xba) (reg11:i64) Arg(0)
              i [0xba, 0xd3) (reg0:i64) Arg(0)
              v [0x5c, 0x5f) (reg4:i32) Arg(0)
              v [0x5f, 0x74) (reg4:i32, reg11:i32) Arg(0) Arg(1) Minus StackValue
              v [0x7f, 0x82) (reg10:i32) Arg(0)
              v [0x82, 0x8d) (reg10:i32, reg4:i32) Arg(0) Arg(1) Minus StackValue
              v [0x90, 0x93) (reg4:i32) Arg(0)
              v [0x93, 0x9e) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
              v [0xa2, 0xa5) (reg10:i32) Arg(0)
              v [0xa5, 0xb0) (reg10:i32, reg4:i32) Arg(0) Arg(1) Minus StackValue
              v [0xb3, 0xb6) (reg4:i32) Arg(0)
              v [0xb6, 0xc9) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
              v [0xd1, 0xd3) (reg4:i32, reg10:i32) Arg(0) Arg(1) Minus StackValue
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
               3: movzx ecx, byte ptr [rax]
               6: lea rdx, [rax+1]
               a: test cl, cl
               c: je short 0x13
               e: mov rax, rdx
              11: jmp short 3
              13: sub rax, rdi
              16: ret
            rows:
              0x0 4:3 stmt prologue_end
              0x3 4:10 stmt
              0x6 5:6 
              0xa 4:3 
              0xe 0:0 
              0x13 6:28 stmt
              0x16 6:3 epilogue_begin
            variables:
              s [0x0, 0x17) (reg5:u64) Arg(0)
              p [0x0, 0x3) (reg5:u64) Arg(0)
              p [0x3, 0xa) (reg0:u64) Arg(0)
              p [0xa, 0x17) (reg1:u64) Arg(0)
        "#]],
    );
}
