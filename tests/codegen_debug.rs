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
           d: sub rsp, 0x48
          11: cmp esi, 0
          14: jle 0x104
          1a: mov eax, esi
          1c: mov [rbp-0x30], rax
          20: mov rcx, [rbp-0x30]
          24: and rcx, 3
          28: mov [rbp-0x30], rcx
          2c: cmp esi, 4
          2f: jb 0x10f
          35: mov [rbp-0x38], rax
          39: mov rax, [rbp-0x38]
          3d: and rax, 0x7ffffffc
          44: mov [rbp-0x38], rax
          48: mov eax, 0
          4d: mov ecx, 0
          52: mov esi, 0
          57: mov r8, rax
          5a: mov [rbp-0x68], rcx
          5e: mov [rbp-0x70], rsi
          62: jmp short 0xb3
          64: mov rax, [rbp-0x30]
          68: cmp rax, 0
          6c: je 0x132
          72: jmp 0x13b
          77: mov eax, [rdi+rcx*4]
          7a: imul eax, edx
          7d: mov rsi, rax
          80: add esi, [rbp-0x58]
          83: mov r9, rcx
          86: add r9, 1
          8a: mov r10, [rbp-0x60]
          8e: add r10, 1
          92: cmp r10, [rbp-0x30]
          96: je 0x159
          9c: jmp 0x161
          a1: mov rax, r11
          a4: add rsp, 0x48
          a8: pop r15
          aa: pop r14
          ac: pop r13
          ae: pop r12
          b0: pop rbx
          b1: pop rbp
          b2: ret
          b3: mov eax, [rdi+r8*4]
          b7: imul eax, edx
          ba: add eax, [rbp-0x68]
          bd: mov rbx, r8
          c0: or rbx, 1
          c4: mov ebx, [rdi+rbx*4]
          c7: imul ebx, edx
          ca: add ebx, eax
          cc: mov rax, r8
          cf: or rax, 2
          d3: mov eax, [rdi+rax*4]
          d6: imul eax, edx
          d9: add eax, ebx
          db: mov rbx, r8
          de: or rbx, 3
          e2: mov ebx, [rdi+rbx*4]
          e5: imul ebx, edx
          e8: add ebx, eax
          ea: mov rax, r8
          ed: add rax, 4
          f1: mov r12, [rbp-0x70]
          f5: add r12, 4
          f9: cmp r12, [rbp-0x38]
          fd: je short 0x171
          ff: jmp 0x18b
         104: mov r13d, 0
         10a: mov r11, r13
         10d: jmp short 0xa1
         10f: mov r13d, 0
         115: mov r14d, 0
         11b: mov r15d, 0
         121: mov [rbp-0x40], r13
         125: mov [rbp-0x48], r14
         129: mov [rbp-0x50], r15
         12d: jmp 0x64
         132: mov r11, [rbp-0x40]
         136: jmp 0xa1
         13b: mov r13, [rbp-0x48]
         13f: mov r14, [rbp-0x50]
         143: mov r15d, 0
         149: mov rcx, r13
         14c: mov [rbp-0x58], r14
         150: mov [rbp-0x60], r15
         154: jmp 0x77
         159: mov r11, rsi
         15c: jmp 0xa1
         161: mov rcx, r9
         164: mov [rbp-0x58], rsi
         168: mov [rbp-0x60], r10
         16c: jmp 0x77
         171: mov rcx, rbx
         174: mov rsi, rax
         177: mov r9, rbx
         17a: mov [rbp-0x40], rcx
         17e: mov [rbp-0x48], rsi
         182: mov [rbp-0x50], r9
         186: jmp 0x64
         18b: mov r8, rax
         18e: mov [rbp-0x68], rbx
         192: mov [rbp-0x70], r12
         196: jmp 0xb3
        rows:
          0x0 2:0 stmt
          0x11 4:3 stmt prologue_end
          0x1a 4:21 stmt
          0x1c 4:3 
          0x35 4:3 stmt
          0x64 4:3 stmt
          0x77 5:13 stmt
          0x7a 5:18 
          0x7d 6:11 stmt
          0x83 4:27 stmt
          0x8a 4:3 
          0xa1 8:3 stmt
          0xa4 8:3 epilogue_begin
          0xb3 5:13 stmt
          0xb7 5:18 
          0xba 6:11 stmt
          0xbd 4:27 stmt
          0xc4 5:13 
          0xc7 5:18 
          0xca 6:11 
          0xcc 4:27 
          0xd3 5:13 
          0xd6 5:18 
          0xd9 6:11 
          0xdb 4:27 
          0xe2 5:13 
          0xe5 5:18 
          0xe8 6:11 
          0xea 4:27 
          0xf1 4:3 
          0x104 4:3 stmt
          0x10f 4:3 stmt
          0x132 4:3 stmt
          0x13b 4:3 stmt
          0x159 4:3 stmt
          0x161 4:3 stmt
          0x171 4:3 stmt
          0x18b 4:3 stmt
        variables:
          a [0x11, 0x77) (reg5:u64) Arg(0)
          a [0xb3, 0x159) (reg5:u64) Arg(0)
          a [0x171, 0x19b) (reg5:u64) Arg(0)
          n [0x11, 0x57) (reg4:i32) Arg(0)
          n [0x104, 0x132) (reg4:i32) Arg(0)
          scale [0x11, 0x77) (reg1:i32) Arg(0)
          scale [0xb3, 0x159) (reg1:i32) Arg(0)
          scale [0x171, 0x19b) (reg1:i32) Arg(0)
          total [0x11, 0x64) (const 0) Arg(0) StackValue
          total [0x77, 0x83) (cfa-104) Arg(0)
          total [0x83, 0xa1) (reg4:i32) Arg(0)
          total [0xb3, 0xbd) (cfa-120) Arg(0)
          total [0xbd, 0xcc) (reg0:i32) Arg(0)
          total [0xcc, 0xdb) (reg3:i32) Arg(0)
          total [0xdb, 0xea) (reg0:i32) Arg(0)
          total [0xea, 0x104) (reg3:i32) Arg(0)
          total [0x104, 0x132) (const 0) Arg(0) StackValue
          total [0x159, 0x171) (reg4:i32) Arg(0)
          total [0x171, 0x19b) (reg3:i32) Arg(0)
          i [0x11, 0x64) (const 0) Arg(0) StackValue
          i [0x77, 0x8a) (reg2:i64) Arg(0)
          i [0x8a, 0xa1) (reg9:i64) Arg(0)
          i [0xb3, 0xc4) (reg8:i64) Arg(0)
          i [0xc4, 0xc7) (reg3:i64) Arg(0)
          i [0xd3, 0xd6) (reg0:i64) Arg(0)
          i [0xe2, 0xe5) (reg3:i64) Arg(0)
          i [0xf1, 0x104) (reg0:i64) Arg(0)
          i [0x104, 0x132) (const 0) Arg(0) StackValue
          i [0x159, 0x171) (reg9:i64) Arg(0)
          i [0x171, 0x19b) (reg0:i64) Arg(0)
          v [0x7d, 0xa1) (reg0:i32) Arg(0)
          v [0xba, 0xbd) (reg0:i32) Arg(0)
          v [0xca, 0xcc) (reg3:i32) Arg(0)
          v [0xd9, 0xdb) (reg0:i32) Arg(0)
          v [0xe8, 0xea) (reg3:i32) Arg(0)
          v [0x159, 0x171) (reg0:i32) Arg(0)
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
