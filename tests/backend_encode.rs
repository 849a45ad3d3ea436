//! Machine code of hand-built MIR functions after register allocation,
//! frame lowering and encoding: disassembly, relocations and CFI rows as
//! snapshots (re-bless with UPDATE_EXPECT=1), and the promise that debug
//! values never change the code.

mod backend_mir;

use dwarfsmith::codegen::mir::Function;
use dwarfsmith::x86::disasm::disassemble;
use dwarfsmith::x86::{finish_function, FinishOptions, FinishedFunction};
use expect_test::{expect, Expect};

fn finish(f: Function) -> FinishedFunction {
    finish_function(f, &FinishOptions { function_index: 0 }).expect("finishes")
}

/// The one caller of the API under test: code, relocations, CFI.
fn check(f: Function, expected: Expect) {
    let done = finish(f);
    let mut out = disassemble(&done.code);
    for r in &done.relocations {
        out.push_str(&format!(
            "reloc {:#x} {:?} {:?} {}\n",
            r.offset, r.kind, r.symbol, r.addend
        ));
    }
    for r in &done.rodata_relocations {
        out.push_str(&format!(
            "rodata reloc {:#x} {:?} {:?} {}\n",
            r.offset, r.kind, r.symbol, r.addend
        ));
    }
    for row in &done.cfi {
        out.push_str(&format!("cfi {:#x} {:?}\n", row.offset, row.instruction));
    }
    expected.assert_eq(&out);
}

#[test]
fn add3() {
    check(
        backend_mir::add3(false),
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: add edi, esi
           6: add edi, edx
           8: mov rax, rdi
           b: pop rbp
           c: ret
        cfi 0x1 DefCfaOffset(16)
        cfi 0x1 Offset { register: 6, offset: -16 }
        cfi 0x4 DefCfaRegister(6)
        cfi 0xc DefCfa { register: 7, offset: 8 }
    "#]],
    );
}

#[test]
fn loop_with_call_keeps_values_in_callee_saved_registers() {
    check(
        backend_mir::sum_calls(false),
        expect![[r#"
               0: push rbp
               1: mov rbp, rsp
               4: push rbx
               5: push r12
               7: push r13
               9: sub rsp, 8
               d: mov rbx, rdi
              10: mov r12d, 0
              16: mov r13d, 0
              1c: cmp rbx, 0
              20: jle short 0x36
              22: mov rdi, r13
              25: call 0
              2a: add r12, rax
              2d: add r13, 1
              31: cmp r13, rbx
              34: jl short 0x22
              36: mov rax, r12
              39: add rsp, 8
              3d: pop r13
              3f: pop r12
              41: pop rbx
              42: pop rbp
              43: ret
            reloc 0x26 Plt32 Named("twice") -4
            cfi 0x1 DefCfaOffset(16)
            cfi 0x1 Offset { register: 6, offset: -16 }
            cfi 0x4 DefCfaRegister(6)
            cfi 0x5 Offset { register: 3, offset: -24 }
            cfi 0x7 Offset { register: 12, offset: -32 }
            cfi 0x9 Offset { register: 13, offset: -40 }
            cfi 0x43 DefCfa { register: 7, offset: 8 }
        "#]],
    );
}

#[test]
fn register_pressure_spills() {
    check(
        backend_mir::sum20(false),
        expect![[r#"
               0: push rbp
               1: mov rbp, rsp
               4: push rbx
               5: push r12
               7: push r13
               9: push r14
               b: push r15
               d: sub rsp, 0x48
              11: mov rax, [rdi]
              14: mov rcx, [rdi+8]
              18: mov rdx, [rdi+0x10]
              1c: mov rsi, [rdi+0x18]
              20: mov r8, [rdi+0x20]
              24: mov r9, [rdi+0x28]
              28: mov r10, [rdi+0x30]
              2c: mov r11, [rdi+0x38]
              30: mov rbx, [rdi+0x40]
              34: mov r12, [rdi+0x48]
              38: mov r13, [rdi+0x50]
              3c: mov r14, [rdi+0x58]
              40: mov r15, [rdi+0x60]
              44: mov [rbp-0x68], r15
              48: mov r15, [rdi+0x68]
              4c: mov [rbp-0x30], r15
              50: mov r15, [rdi+0x70]
              54: mov [rbp-0x38], r15
              58: mov r15, [rdi+0x78]
              5c: mov [rbp-0x40], r15
              60: mov r15, [rdi+0x80]
              67: mov [rbp-0x48], r15
              6b: mov r15, [rdi+0x88]
              72: mov [rbp-0x50], r15
              76: mov r15, [rdi+0x90]
              7d: mov [rbp-0x58], r15
              81: mov rdi, [rdi+0x98]
              88: mov [rbp-0x60], rdi
              8c: mov rdi, rax
              8f: add rdi, rcx
              92: add rdi, rdx
              95: add rdi, rsi
              98: add rdi, r8
              9b: add rdi, r9
              9e: add rdi, r10
              a1: add rdi, r11
              a4: add rdi, rbx
              a7: add rdi, r12
              aa: add rdi, r13
              ad: add rdi, r14
              b0: add rdi, [rbp-0x68]
              b4: add rdi, [rbp-0x30]
              b8: add rdi, [rbp-0x38]
              bc: add rdi, [rbp-0x40]
              c0: add rdi, [rbp-0x48]
              c4: add rdi, [rbp-0x50]
              c8: add rdi, [rbp-0x58]
              cc: add rdi, [rbp-0x60]
              d0: imul rax, 0
              d4: add rdi, rax
              d7: imul rcx, 1
              db: add rdi, rcx
              de: imul rdx, 2
              e2: add rdi, rdx
              e5: imul rsi, 3
              e9: add rdi, rsi
              ec: imul r8, 4
              f0: add rdi, r8
              f3: imul r9, 5
              f7: add rdi, r9
              fa: imul r10, 6
              fe: add rdi, r10
             101: imul r11, 7
             105: add rdi, r11
             108: imul rbx, 8
             10c: add rdi, rbx
             10f: imul r12, 9
             113: add rdi, r12
             116: imul r13, 0xa
             11a: add rdi, r13
             11d: imul r14, 0xb
             121: add rdi, r14
             124: mov rax, [rbp-0x68]
             128: imul rax, 0xc
             12c: mov [rbp-0x68], rax
             130: add rdi, [rbp-0x68]
             134: mov rax, [rbp-0x30]
             138: imul rax, 0xd
             13c: mov [rbp-0x30], rax
             140: add rdi, [rbp-0x30]
             144: mov rax, [rbp-0x38]
             148: imul rax, 0xe
             14c: mov [rbp-0x38], rax
             150: add rdi, [rbp-0x38]
             154: mov rax, [rbp-0x40]
             158: imul rax, 0xf
             15c: mov [rbp-0x40], rax
             160: add rdi, [rbp-0x40]
             164: mov rax, [rbp-0x48]
             168: imul rax, 0x10
             16c: mov [rbp-0x48], rax
             170: add rdi, [rbp-0x48]
             174: mov rax, [rbp-0x50]
             178: imul rax, 0x11
             17c: mov [rbp-0x50], rax
             180: add rdi, [rbp-0x50]
             184: mov rax, [rbp-0x58]
             188: imul rax, 0x12
             18c: mov [rbp-0x58], rax
             190: add rdi, [rbp-0x58]
             194: mov rax, [rbp-0x60]
             198: imul rax, 0x13
             19c: mov [rbp-0x60], rax
             1a0: add rdi, [rbp-0x60]
             1a4: mov rax, rdi
             1a7: add rsp, 0x48
             1ab: pop r15
             1ad: pop r14
             1af: pop r13
             1b1: pop r12
             1b3: pop rbx
             1b4: pop rbp
             1b5: ret
            cfi 0x1 DefCfaOffset(16)
            cfi 0x1 Offset { register: 6, offset: -16 }
            cfi 0x4 DefCfaRegister(6)
            cfi 0x5 Offset { register: 3, offset: -24 }
            cfi 0x7 Offset { register: 12, offset: -32 }
            cfi 0x9 Offset { register: 13, offset: -40 }
            cfi 0xb Offset { register: 14, offset: -48 }
            cfi 0xd Offset { register: 15, offset: -56 }
            cfi 0x1b5 DefCfa { register: 7, offset: 8 }
        "#]],
    );
}

#[test]
fn jump_table() {
    check(
        backend_mir::pick(false),
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: cmp edi, 3
           7: ja short 0x37
           9: mov eax, edi
           b: lea rcx, [0]
          12: movsxd rax, [rcx+rax*4]
          16: add rax, rcx
          19: jmp rax
          1b: mov eax, 0xa
          20: pop rbp
          21: ret
          22: mov eax, 0xb
          27: pop rbp
          28: ret
          29: mov eax, 0xc
          2e: pop rbp
          2f: ret
          30: mov eax, 0xd
          35: pop rbp
          36: ret
          37: mov eax, 0xffffffff
          3c: pop rbp
          3d: ret
        reloc 0xe Pc32 FunctionData(0) -4
        rodata reloc 0x0 Pc32 FunctionCode { function: 0, offset: 27 } 0
        rodata reloc 0x4 Pc32 FunctionCode { function: 0, offset: 34 } 4
        rodata reloc 0x8 Pc32 FunctionCode { function: 0, offset: 41 } 8
        rodata reloc 0xc Pc32 FunctionCode { function: 0, offset: 48 } 12
        cfi 0x1 DefCfaOffset(16)
        cfi 0x1 Offset { register: 6, offset: -16 }
        cfi 0x4 DefCfaRegister(6)
        cfi 0x21 RememberState
        cfi 0x21 DefCfa { register: 7, offset: 8 }
        cfi 0x22 RestoreState
        cfi 0x28 RememberState
        cfi 0x28 DefCfa { register: 7, offset: 8 }
        cfi 0x29 RestoreState
        cfi 0x2f RememberState
        cfi 0x2f DefCfa { register: 7, offset: 8 }
        cfi 0x30 RestoreState
        cfi 0x36 RememberState
        cfi 0x36 DefCfa { register: 7, offset: 8 }
        cfi 0x37 RestoreState
        cfi 0x3d DefCfa { register: 7, offset: 8 }
    "#]],
    );
}

#[test]
fn globals_through_got_and_pc32() {
    check(
        backend_mir::globals(false),
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: mov rax, [0]
           b: mov rax, [rax]
           e: mov rcx, [0]
          15: add rax, rcx
          18: pop rbp
          19: ret
        reloc 0x7 GotPcRelX Named("ext_counter") -4
        reloc 0x11 Pc32 Named("local_table") 4
        cfi 0x1 DefCfaOffset(16)
        cfi 0x1 Offset { register: 6, offset: -16 }
        cfi 0x4 DefCfaRegister(6)
        cfi 0x19 DefCfa { register: 7, offset: 8 }
    "#]],
    );
}

#[test]
fn division_shift_and_stack_arguments() {
    check(
        backend_mir::div_mix(false),
        expect![[r#"
           0: push rbp
           1: mov rbp, rsp
           4: mov r10, rdx
           7: mov r8, [rbp+0x10]
           b: mov r9, [rbp+0x18]
           f: mov rax, rdi
          12: cqo
          14: idiv rsi
          17: shl r10, cl
          1a: add rax, rdx
          1d: add rax, r10
          20: add rax, r8
          23: add rax, r9
          26: pop rbp
          27: ret
        cfi 0x1 DefCfaOffset(16)
        cfi 0x1 Offset { register: 6, offset: -16 }
        cfi 0x4 DefCfaRegister(6)
        cfi 0x27 DefCfa { register: 7, offset: 8 }
    "#]],
    );
}

#[test]
fn outgoing_stack_arguments() {
    check(
        backend_mir::call8(false),
        expect![[r#"
               0: push rbp
               1: mov rbp, rsp
               4: sub rsp, 0x10
               8: mov rdx, rdi
               b: imul rdi, rdx, 0x64
               f: mov [rsp], rdx
              13: mov qword ptr [rsp+8], 0x3e8
              1c: mov esi, 7
              21: mov ecx, 3
              26: mov r8d, 0
              2c: mov r9d, 0
              32: call 0
              37: add rsp, 0x10
              3b: pop rbp
              3c: ret
            reloc 0x33 Plt32 Named("div_mix") -4
            cfi 0x1 DefCfaOffset(16)
            cfi 0x1 Offset { register: 6, offset: -16 }
            cfi 0x4 DefCfaRegister(6)
            cfi 0x3c DefCfa { register: 7, offset: 8 }
        "#]],
    );
}

#[test]
fn debug_values_never_change_the_code() {
    for (plain, debug) in backend_mir::all(false)
        .into_iter()
        .zip(backend_mir::all(true))
    {
        let name = plain.name.clone();
        let (plain, debug) = (finish(plain), finish(debug));
        assert_eq!(plain.code, debug.code, "{name}");
        assert_eq!(plain.relocations, debug.relocations, "{name}");
        assert_eq!(plain.cfi, debug.cfi, "{name}");
    }
}
