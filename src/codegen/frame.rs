//! Frame layout, prologue and epilogue, and the call-frame rows that
//! describe them.
//!
//! In: an allocated [`Function`] (physical registers only) and the
//! callee-saved registers it writes. Out: the same function with a
//! prologue at the start of the entry block, an epilogue before every
//! `ret`, every frame-relative address ([`AddressBase::Slot`],
//! [`AddressBase::IncomingArgs`], [`AddressBase::OutgoingArgs`]) rewritten
//! to rbp or rsp, and a [`LoweredFrame`] giving slot offsets and CFI.
//!
//! The frame, from the CFA (rsp before the call, 16-byte aligned) down:
//!
//! ```text
//! CFA + 0 ..      incoming stack arguments
//! CFA - 8         return address
//! CFA - 16        saved rbp            <- rbp
//! CFA - 24 ..     saved callee-saved registers, in push order
//! ..              stack slots (allocas, spills), each aligned
//! rsp + 0 ..      outgoing stack arguments  <- rsp, 16-byte aligned
//! ```
//!
//! Prologue: `push rbp; mov rbp, rsp; push <saved>…; sub rsp, N`. The CFA
//! is rbp + 16 from the `mov` on, so later pushes need no CFA change; rsp
//! stays put in the body, so every call site is 16-byte aligned. Epilogue:
//! `add rsp, N; pop <saved, reversed>…; pop rbp` then the `ret`; an
//! epilogue that is not the function's last code remembers the body's CFI
//! state and restores it after its `ret`.
//!
//! Promise: slot offsets are CFA-relative ([`LoweredFrame::slot_cfa_offset`])
//! so debug locations can use `DW_OP_call_frame_cfa`-based frame slots.
//! Prologue instructions carry the location of the function's first
//! located instruction; epilogue instructions carry their `ret`'s.

use super::mir::{
    Address, AddressBase, AluOp, Function, Gpr, GprSet, Inst, InstKind, Reg, Rmi, StackSlotId,
    Width,
};
use crate::x86::abi::STACK_ALIGNMENT;
use dwarfsmith_emit::model::CfiInstruction;

/// A CFI rule change that takes effect just after instruction `inst` of
/// block `block` (indices into the lowered function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfiPoint {
    /// Block index.
    pub block: usize,
    /// Instruction index in that block.
    pub inst: usize,
    /// The rule.
    pub instruction: CfiInstruction,
}

/// Where the prologue and epilogues are, by instruction index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameMarkers {
    /// Number of instructions at the start of the entry block that form the
    /// prologue.
    pub prologue_len: usize,
    /// (block, instruction index) of each epilogue's first instruction.
    pub epilogue_starts: Vec<(usize, usize)>,
}

/// The frame of a lowered function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoweredFrame {
    /// CFA-relative offset of each stack slot's first byte.
    pub slot_offsets: Vec<i64>,
    /// Callee-saved registers pushed after rbp, in push order.
    pub saved: Vec<Gpr>,
    /// Bytes subtracted from rsp after the pushes.
    pub frame_size: u32,
    /// The CFI rows, in code order.
    pub cfi: Vec<CfiPoint>,
    /// Prologue and epilogue positions.
    pub markers: FrameMarkers,
}

impl LoweredFrame {
    /// The CFA-relative offset of `slot`'s first byte.
    pub fn slot_cfa_offset(&self, slot: StackSlotId) -> i64 {
        self.slot_offsets[slot.0 as usize]
    }

    /// The rbp-relative offset of `slot`'s first byte (how the lowered code
    /// addresses it).
    pub fn slot_rbp_offset(&self, slot: StackSlotId) -> i64 {
        self.slot_offsets[slot.0 as usize] + RBP_BELOW_CFA
    }
}

/// Distance from the CFA down to rbp: return address and saved rbp.
const RBP_BELOW_CFA: i64 = 16;

/// Lays out the frame of `f` and inserts prologue and epilogues.
pub fn lower_frame(f: &mut Function, callee_saved: GprSet) -> LoweredFrame {
    let saved: Vec<Gpr> = callee_saved.iter().filter(|&g| g != Gpr::Rbp).collect();
    let pushed = 8 * saved.len() as i64;
    let mut cursor = RBP_BELOW_CFA + pushed;
    let mut slot_offsets = Vec::with_capacity(f.stack_slots.len());
    for slot in &f.stack_slots {
        let align = i64::from(slot.align.max(1));
        cursor = (cursor + i64::from(slot.size) + align - 1) / align * align;
        slot_offsets.push(-cursor);
    }
    let align = i64::from(STACK_ALIGNMENT);
    let total = (cursor + i64::from(f.outgoing_args_size) + align - 1) / align * align;
    let frame_size = (total - RBP_BELOW_CFA - pushed) as u32;

    rewrite_frame_addresses(f, &slot_offsets);
    let mut cfi = Vec::new();
    let markers = insert_prologue_and_epilogues(f, &saved, frame_size, &mut cfi);
    LoweredFrame {
        slot_offsets,
        saved,
        frame_size,
        cfi,
        markers,
    }
}

fn rewrite_frame_addresses(f: &mut Function, slot_offsets: &[i64]) {
    for inst in f.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        inst.kind.visit_addresses_mut(&mut |addr| {
            let (base, offset) = match addr.base {
                AddressBase::Slot(s) => (Gpr::Rbp, slot_offsets[s.0 as usize] + RBP_BELOW_CFA),
                AddressBase::IncomingArgs => (Gpr::Rbp, RBP_BELOW_CFA),
                AddressBase::OutgoingArgs => (Gpr::Rsp, 0),
                _ => return,
            };
            addr.base = AddressBase::Reg(Reg::from(base));
            addr.disp += offset as i32;
        });
    }
}

fn insert_prologue_and_epilogues(
    f: &mut Function,
    saved: &[Gpr],
    frame_size: u32,
    cfi: &mut Vec<CfiPoint>,
) -> FrameMarkers {
    let first_loc = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .map(|i| i.loc)
        .find(|&l| l != 0)
        .unwrap_or(0);
    let rsp = Reg::from(Gpr::Rsp);
    let adjust = |op, loc| {
        Inst::new(
            InstKind::Alu {
                op,
                width: Width::W64,
                dst: rsp,
                src: Rmi::Imm(frame_size as i32),
            },
            loc,
        )
    };

    let mut prologue = vec![
        Inst::new(InstKind::Push { reg: Gpr::Rbp }, first_loc),
        Inst::new(
            InstKind::Copy {
                dst: Reg::from(Gpr::Rbp),
                src: rsp,
            },
            first_loc,
        ),
    ];
    let rbp = Gpr::Rbp.dwarf();
    cfi.push(point(0, 0, CfiInstruction::DefCfaOffset(16)));
    cfi.push(point(
        0,
        0,
        CfiInstruction::Offset {
            register: rbp,
            offset: -16,
        },
    ));
    cfi.push(point(0, 1, CfiInstruction::DefCfaRegister(rbp)));
    for (j, &g) in saved.iter().enumerate() {
        prologue.push(Inst::new(InstKind::Push { reg: g }, first_loc));
        cfi.push(point(
            0,
            prologue.len() - 1,
            CfiInstruction::Offset {
                register: g.dwarf(),
                offset: -24 - 8 * j as i32,
            },
        ));
    }
    if frame_size > 0 {
        prologue.push(adjust(AluOp::Sub, first_loc));
    }
    let prologue_len = prologue.len();
    if f.blocks.is_empty() {
        f.blocks.push(Default::default());
    }
    f.blocks[0].insts.splice(0..0, prologue);

    let last = last_code_position(f);
    let moves_stack_pointer = f.moves_stack_pointer;
    let mut epilogue_starts = Vec::new();
    for b in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for (i, inst) in old.into_iter().enumerate() {
            if !matches!(inst.kind, InstKind::Ret { .. } | InstKind::TailJump { .. }) {
                out.push(inst);
                continue;
            }
            epilogue_starts.push((b, out.len()));
            if moves_stack_pointer {
                // rsp moved in the body: the saved registers are just below rbp.
                let below_rbp = Address {
                    base: AddressBase::Reg(Reg::from(Gpr::Rbp)),
                    index: None,
                    disp: -8 * saved.len() as i32,
                };
                out.push(Inst::new(
                    InstKind::Lea {
                        dst: rsp,
                        addr: below_rbp,
                    },
                    inst.loc,
                ));
            } else if frame_size > 0 {
                out.push(adjust(AluOp::Add, inst.loc));
            }
            for &g in saved.iter().rev() {
                out.push(Inst::new(InstKind::Pop { reg: g }, inst.loc));
            }
            out.push(Inst::new(InstKind::Pop { reg: Gpr::Rbp }, inst.loc));
            let is_last = last == Some((b, i));
            if !is_last {
                cfi.push(point(b, out.len() - 1, CfiInstruction::RememberState));
            }
            cfi.push(point(
                b,
                out.len() - 1,
                CfiInstruction::DefCfa {
                    register: Gpr::Rsp.dwarf(),
                    offset: 8,
                },
            ));
            out.push(inst);
            if !is_last {
                cfi.push(point(b, out.len() - 1, CfiInstruction::RestoreState));
            }
        }
        f.blocks[b].insts = out;
    }
    FrameMarkers {
        prologue_len,
        epilogue_starts,
    }
}

/// The (block, index) of the function's last non-debug instruction.
fn last_code_position(f: &Function) -> Option<(usize, usize)> {
    f.blocks.iter().enumerate().rev().find_map(|(b, block)| {
        let i = block.insts.iter().rposition(|i| !i.is_debug())?;
        Some((b, i))
    })
}

fn point(block: usize, inst: usize, instruction: CfiInstruction) -> CfiPoint {
    CfiPoint {
        block,
        inst,
        instruction,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{Address, Ri, StackSlotKind};
    use expect_test::expect;

    #[test]
    fn layout_aligns_slots_and_the_call_area() {
        let mut f = Function::new("frame");
        let a = f.new_stack_slot(4, 4, StackSlotKind::Alloca);
        let b = f.new_stack_slot(16, 16, StackSlotKind::Alloca);
        let s = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        f.outgoing_args_size = 8;
        f.new_block();
        f.blocks[0].insts = vec![
            Inst::new(
                InstKind::Store {
                    src: Ri::Imm(1),
                    addr: Address::slot(b, 4),
                    width: Width::W32,
                },
                3,
            ),
            Inst::new(InstKind::Ret { uses: vec![] }, 4),
        ];
        let frame = lower_frame(&mut f, GprSet::of(&[Gpr::Rbx, Gpr::R12, Gpr::R13]));
        // rbx/r12/r13 at CFA-24..-40; a at -44; b 16-aligned at -64; s at -72.
        assert_eq!(frame.slot_cfa_offset(a), -44);
        assert_eq!(frame.slot_cfa_offset(b), -64);
        assert_eq!(frame.slot_cfa_offset(s), -72);
        // 72 + 8 bytes of outgoing arguments, rounded to 80; minus 16 + 24.
        assert_eq!(frame.frame_size, 40);
        expect![[r#"
            name: frame
              %stack.0: size 4, align 4, alloca
              %stack.1: size 16, align 16, alloca
              %stack.2: size 8, align 8, spill
            bb.0:
              PUSH $rbp  ; loc 3
              $rbp = COPY $rsp  ; loc 3
              PUSH $rbx  ; loc 3
              PUSH $r12  ; loc 3
              PUSH $r13  ; loc 3
              $rsp = SUB64 $rsp, 40  ; loc 3
              STORE32 [$rbp - 44], 1  ; loc 3
              $rsp = ADD64 $rsp, 40  ; loc 4
              $r13 = POP  ; loc 4
              $r12 = POP  ; loc 4
              $rbx = POP  ; loc 4
              $rbp = POP  ; loc 4
              RET  ; loc 4
        "#]]
        .assert_eq(&f.to_string());
        assert_eq!(frame.markers.prologue_len, 6);
        assert_eq!(frame.markers.epilogue_starts, [(0, 7)]);
        let rows: Vec<String> = frame
            .cfi
            .iter()
            .map(|p| format!("{}:{} {:?}", p.block, p.inst, p.instruction))
            .collect();
        expect![[r#"
            [
                "0:0 DefCfaOffset(16)",
                "0:0 Offset { register: 6, offset: -16 }",
                "0:1 DefCfaRegister(6)",
                "0:2 Offset { register: 3, offset: -24 }",
                "0:3 Offset { register: 12, offset: -32 }",
                "0:4 Offset { register: 13, offset: -40 }",
                "0:11 DefCfa { register: 7, offset: 8 }",
            ]
        "#]]
        .assert_debug_eq(&rows);
    }
}
