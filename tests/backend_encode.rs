//! Machine code of hand-built MIR functions after register allocation,
//! frame lowering and encoding: disassembly, relocations and CFI rows as
//! snapshots (re-bless with UPDATE_EXPECT=1), and the promise that debug
//! values never change the code.

mod backend_mir;

use dwarfsmith::codegen::mir::Function;
use dwarfsmith::codegen::pipeline::{finish_function, FinishOptions, FinishedFunction};
use dwarfsmith::x86::disasm::disassemble;
use expect_test::{expect, Expect};

fn finish(f: Function) -> FinishedFunction {
    finish_function(
        f,
        &FinishOptions {
            function_index: 0,
            ..FinishOptions::default()
        },
    )
    .expect("finishes")
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
              1c: test rbx, rbx
              1f: jle short 0x35
              21: mov rdi, r13
              24: call 0
              29: add r12, rax
              2c: add r13, 1
              30: cmp r13, rbx
              33: jl short 0x21
              35: mov rax, r12
              38: add rsp, 8
              3c: pop r13
              3e: pop r12
              40: pop rbx
              41: pop rbp
              42: ret
            reloc 0x25 Plt32 Named("twice") -4
            cfi 0x1 DefCfaOffset(16)
            cfi 0x1 Offset { register: 6, offset: -16 }
            cfi 0x4 DefCfaRegister(6)
            cfi 0x5 Offset { register: 3, offset: -24 }
            cfi 0x7 Offset { register: 12, offset: -32 }
            cfi 0x9 Offset { register: 13, offset: -40 }
            cfi 0x42 DefCfa { register: 7, offset: 8 }
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
              14: mov [rbp-0x30], rax
              18: mov rcx, [rdi+8]
              1c: mov rdx, [rdi+0x10]
              20: mov rsi, [rdi+0x18]
              24: mov r8, [rdi+0x20]
              28: mov r9, [rdi+0x28]
              2c: mov r10, [rdi+0x30]
              30: mov r11, [rdi+0x38]
              34: mov rax, [rdi+0x40]
              38: mov [rbp-0x68], rax
              3c: mov rax, [rdi+0x48]
              40: mov rbx, [rdi+0x50]
              44: mov r12, [rdi+0x58]
              48: mov r13, [rdi+0x60]
              4c: mov r14, [rdi+0x68]
              50: mov [rbp-0x38], r14
              54: mov r14, [rdi+0x70]
              58: mov [rbp-0x40], r14
              5c: mov r14, [rdi+0x78]
              60: mov [rbp-0x48], r14
              64: mov r14, [rdi+0x80]
              6b: mov [rbp-0x50], r14
              6f: mov r14, [rdi+0x88]
              76: mov [rbp-0x58], r14
              7a: mov r14, [rdi+0x90]
              81: mov [rbp-0x60], r14
              85: mov r14, [rdi+0x98]
              8c: mov rdi, [rbp-0x30]
              90: add rdi, rcx
              93: add rdi, rdx
              96: add rdi, rsi
              99: add rdi, r8
              9c: add rdi, r9
              9f: add rdi, r10
              a2: add rdi, r11
              a5: add rdi, [rbp-0x68]
              a9: add rdi, rax
              ac: add rdi, rbx
              af: add rdi, r12
              b2: add rdi, r13
              b5: add rdi, [rbp-0x38]
              b9: add rdi, [rbp-0x40]
              bd: add rdi, [rbp-0x48]
              c1: add rdi, [rbp-0x50]
              c5: add rdi, [rbp-0x58]
              c9: add rdi, [rbp-0x60]
              cd: add rdi, r14
              d0: imul r15, [rbp-0x30], 0
              d5: mov [rbp-0x30], r15
              d9: add rdi, r15
              dc: imul rcx, 1
              e0: add rdi, rcx
              e3: imul rdx, 2
              e7: add rdi, rdx
              ea: imul rsi, 3
              ee: add rdi, rsi
              f1: imul r8, 4
              f5: add rdi, r8
              f8: imul r9, 5
              fc: add rdi, r9
              ff: imul r10, 6
             103: add rdi, r10
             106: imul r11, 7
             10a: add rdi, r11
             10d: imul r15, [rbp-0x68], 8
             112: mov [rbp-0x68], r15
             116: add rdi, r15
             119: imul rax, 9
             11d: add rdi, rax
             120: imul rbx, 0xa
             124: add rdi, rbx
             127: imul r12, 0xb
             12b: add rdi, r12
             12e: imul r13, 0xc
             132: add rdi, r13
             135: imul rcx, [rbp-0x38], 0xd
             13a: mov [rbp-0x38], rcx
             13e: add rdi, rcx
             141: imul rdx, [rbp-0x40], 0xe
             146: mov [rbp-0x40], rdx
             14a: add rdi, rdx
             14d: imul rsi, [rbp-0x48], 0xf
             152: mov [rbp-0x48], rsi
             156: add rdi, rsi
             159: imul r8, [rbp-0x50], 0x10
             15e: mov [rbp-0x50], r8
             162: add rdi, r8
             165: imul r9, [rbp-0x58], 0x11
             16a: mov [rbp-0x58], r9
             16e: add rdi, r9
             171: imul r10, [rbp-0x60], 0x12
             176: mov [rbp-0x60], r10
             17a: add rdi, r10
             17d: imul r14, 0x13
             181: add rdi, r14
             184: mov rax, rdi
             187: add rsp, 0x48
             18b: pop r15
             18d: pop r14
             18f: pop r13
             191: pop r12
             193: pop rbx
             194: pop rbp
             195: ret
            cfi 0x1 DefCfaOffset(16)
            cfi 0x1 Offset { register: 6, offset: -16 }
            cfi 0x4 DefCfaRegister(6)
            cfi 0x5 Offset { register: 3, offset: -24 }
            cfi 0x7 Offset { register: 12, offset: -32 }
            cfi 0x9 Offset { register: 13, offset: -40 }
            cfi 0xb Offset { register: 14, offset: -48 }
            cfi 0xd Offset { register: 15, offset: -56 }
            cfi 0x195 DefCfa { register: 7, offset: 8 }
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
              12: movsxd rdx, [rcx+rax*4]
              16: add rdx, rcx
              19: jmp rdx
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
               7: mov r11, [rbp+0x10]
               b: mov r8, [rbp+0x18]
               f: mov rax, rdi
              12: cqo
              14: idiv rsi
              17: shl r10, cl
              1a: add rax, rdx
              1d: add rax, r10
              20: add rax, r11
              23: add rax, r8
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

#[test]
fn instruction_offsets_tile_the_code() {
    for f in backend_mir::all(true) {
        let done = finish(f);
        let mut next = 0;
        for (b, (block, offsets)) in done.mir.blocks.iter().zip(&done.inst_offsets).enumerate() {
            assert_eq!(block.insts.len(), offsets.len());
            assert_eq!(done.block_offsets[b], next, "{} bb.{b}", done.mir.name);
            for (inst, &(offset, len)) in block.insts.iter().zip(offsets) {
                assert_eq!(offset, next, "{}: {}", done.mir.name, inst.kind);
                assert_eq!(
                    len == 0,
                    inst.is_debug(),
                    "{}: {}",
                    done.mir.name,
                    inst.kind
                );
                next = offset + len;
            }
        }
        assert_eq!(next as usize, done.code.len(), "{}", done.mir.name);
    }
}

#[test]
fn spill_stores_are_listed_with_their_slots() {
    let done = finish(backend_mir::sum20(true));
    let listed: Vec<String> = done
        .spill_stores
        .iter()
        .map(|&(b, i, slot)| {
            let inst = &done.mir.blocks[b].insts[i];
            format!("{}  ; CFA{}", inst.kind, done.slot_cfa_offset(slot))
        })
        .collect();
    expect![[r#"
        [
            "STORE64 [$rbp - 48], $rax  ; CFA-64",
            "STORE64 [$rbp - 104], $rax  ; CFA-120",
            "STORE64 [$rbp - 56], $r14  ; CFA-72",
            "STORE64 [$rbp - 64], $r14  ; CFA-80",
            "STORE64 [$rbp - 72], $r14  ; CFA-88",
            "STORE64 [$rbp - 80], $r14  ; CFA-96",
            "STORE64 [$rbp - 88], $r14  ; CFA-104",
            "STORE64 [$rbp - 96], $r14  ; CFA-112",
            "STORE64 [$rbp - 48], $r15  ; CFA-64",
            "STORE64 [$rbp - 104], $r15  ; CFA-120",
            "STORE64 [$rbp - 56], $rcx  ; CFA-72",
            "STORE64 [$rbp - 64], $rdx  ; CFA-80",
            "STORE64 [$rbp - 72], $rsi  ; CFA-88",
            "STORE64 [$rbp - 80], $r8  ; CFA-96",
            "STORE64 [$rbp - 88], $r9  ; CFA-104",
            "STORE64 [$rbp - 96], $r10  ; CFA-112",
        ]
    "#]]
    .assert_debug_eq(&listed);
}

#[test]
fn values_across_calls_fill_the_callee_saved_registers_then_spill() {
    let done = finish(backend_mir::pressure_calls(false));
    // 14 values cross the call; 5 callee-saved registers hold some. The
    // rest are spilled: loop_split gives every value the loop uses a
    // register of its own inside it, so a value spilled both inside and
    // before the loop counts twice (13 registers).
    assert_eq!(done.allocation.callee_saved_used.iter().count(), 5);
    assert_eq!(done.allocation.spilled, 13);
    assert_eq!(done.frame.saved.len(), 5);
}

#[test]
fn broken_preconditions_are_errors() {
    use dwarfsmith::codegen::mir::{BlockId, Inst, InstKind, StackSlotKind};
    let mut loops_to_entry = Function::new("spin");
    loops_to_entry.new_block();
    loops_to_entry.blocks[0].insts = vec![Inst::new(InstKind::Jmp { target: BlockId(0) }, 0)];
    let mut overaligned = Function::new("wide");
    overaligned.new_stack_slot(64, 32, StackSlotKind::Alloca);
    overaligned.new_block();
    overaligned.blocks[0].insts = vec![Inst::new(InstKind::Ret { uses: vec![] }, 0)];
    let messages: Vec<String> = [loops_to_entry, overaligned]
        .into_iter()
        .map(|f| {
            finish_function(f, &FinishOptions::default())
                .unwrap_err()
                .to_string()
        })
        .collect();
    expect![[r#"
        [
            "`spin`: bb.0 branches to the entry block, which holds the prologue",
            "`wide`: %stack.0 asks for alignment 32 (1 to 16, a power of two)",
        ]
    "#]]
    .assert_debug_eq(&messages);
}
