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
               4: mov eax, edi
               6: cmp eax, 7
               9: ja short 0x22
               b: lea rcx, [0]
              12: movsxd rax, [rcx+rax*4]
              16: add rax, rcx
              19: jmp rax
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
              0x1b 4:3 stmt
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
              k [0x4, 0x56) (reg5:i32) Arg(0)
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
               6: jg short 0xf
               8: mov eax, 0
               d: jmp short 0x77
               f: mov eax, esi
              11: mov rcx, rax
              14: and rcx, 3
              18: cmp esi, 4
              1b: jae short 0x2f
              1d: mov eax, 0
              22: mov esi, 0
              27: mov r8d, 0
              2d: jmp short 0x49
              2f: and rax, 0x7ffffffc
              36: mov esi, 0
              3b: mov r8d, 0
              41: mov r9d, 0
              47: jmp short 0x79
              49: test rcx, rcx
              4c: jne short 0x50
              4e: jmp short 0x77
              50: mov eax, 0
              55: mov r9d, [rdi+rsi*4]
              59: imul r9d, edx
              5d: add r9d, r8d
              60: add rsi, 1
              64: add rax, 1
              68: cmp rax, rcx
              6b: jne short 0x72
              6d: mov rax, r9
              70: jmp short 0x77
              72: mov r8, r9
              75: jmp short 0x55
              77: pop rbp
              78: ret
              79: mov r10d, [rdi+rsi*4]
              7d: imul r10d, edx
              81: add r10d, r8d
              84: mov r8, rsi
              87: or r8, 1
              8b: mov r8d, [rdi+r8*4]
              8f: imul r8d, edx
              93: add r8d, r10d
              96: mov r10, rsi
              99: or r10, 2
              9d: mov r10d, [rdi+r10*4]
              a1: imul r10d, edx
              a5: add r10d, r8d
              a8: mov r8, rsi
              ab: or r8, 3
              af: mov r8d, [rdi+r8*4]
              b3: imul r8d, edx
              b7: add r8d, r10d
              ba: add rsi, 4
              be: add r9, 4
              c2: cmp r9, rax
              c5: jne short 0xcf
              c7: mov rax, r8
              ca: jmp 0x49
              cf: jmp short 0x79
            rows:
              0x0 2:0 stmt
              0x4 4:3 stmt prologue_end
              0x8 4:3 stmt
              0xf 4:21 stmt
              0x11 4:3 
              0x1d 4:3 stmt
              0x2f 4:3 stmt
              0x49 4:3 stmt
              0x4e 4:3 stmt
              0x50 4:3 stmt
              0x55 5:13 stmt
              0x59 5:18 
              0x5d 6:11 stmt
              0x60 4:27 stmt
              0x64 4:3 
              0x6d 4:3 stmt
              0x72 4:3 stmt
              0x77 8:3 stmt epilogue_begin
              0x79 5:13 stmt
              0x7d 5:18 
              0x81 6:11 
              0x84 4:27 
              0x8b 5:13 
              0x8f 5:18 
              0x93 6:11 
              0x96 4:27 
              0x9d 5:13 
              0xa1 5:18 
              0xa5 6:11 
              0xa8 4:27 
              0xaf 5:13 
              0xb3 5:18 
              0xb7 6:11 stmt
              0xba 4:27 stmt
              0xbe 4:3 
              0xc7 4:3 stmt
              0xcf 4:3 stmt
            variables:
              a [0x4, 0xd1) (reg5:u64) Arg(0)
              n [0x4, 0x27) (reg4:i32) Arg(0)
              n [0x2f, 0x3b) (reg4:i32) Arg(0)
              scale [0x4, 0xd1) (reg1:i32) Arg(0)
              total [0x4, 0x49) (const 0) Arg(0) StackValue
              total [0x55, 0x60) (reg8:i32) Arg(0)
              total [0x60, 0x77) (reg9:i32) Arg(0)
              total [0x79, 0x84) (reg8:i32) Arg(0)
              total [0x84, 0x96) (reg10:i32) Arg(0)
              total [0x96, 0xa8) (reg8:i32) Arg(0)
              total [0xa8, 0xba) (reg10:i32) Arg(0)
              total [0xba, 0xd1) (reg8:i32) Arg(0)
              i [0x4, 0x49) (const 0) Arg(0) StackValue
              i [0x55, 0x77) (reg4:i64) Arg(0)
              i [0x79, 0x8b) (reg4:i64) Arg(0)
              i [0x8b, 0x8f) (reg8:i64) Arg(0)
              i [0x9d, 0xa1) (reg10:i64) Arg(0)
              i [0xaf, 0xb3) (reg8:i64) Arg(0)
              i [0xbe, 0xd1) (reg4:i64) Arg(0)
              v [0x5d, 0x60) (reg9:i32) Arg(0)
              v [0x81, 0x84) (reg10:i32) Arg(0)
              v [0x93, 0x96) (reg8:i32) Arg(0)
              v [0xa5, 0xa8) (reg10:i32) Arg(0)
              v [0xb7, 0xba) (reg8:i32) Arg(0)
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
              0x12 4:3 stmt
              0x17 6:28 stmt
              0x1a 6:3 epilogue_begin
            variables:
              s [0x4, 0x1c) (reg5:u64) Arg(0)
              p [0x4, 0x7) (reg5:u64) Arg(0)
              p [0x7, 0xe) (reg0:u64) Arg(0)
              p [0xe, 0x1c) (reg1:u64) Arg(0)
        "#]],
    );
}
