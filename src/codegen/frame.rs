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
//! Whether rbp is a frame pointer is decided before allocation
//! ([`omits_frame_pointer`], LLVM's rule): the `"frame-pointer"` attribute
//! (`"all"`: always; `"non-leaf"`: in functions that call; `"none"` or
//! none: never) unless the body moves rsp (dynamic allocas,
//! `stackrestore`) or holds inline asm, which keep it. Without one, rbp is
//! an allocatable callee-saved register and the frame is addressed from
//! rsp, which stays put in the body.
//!
//! The frame, from the CFA (rsp before the call, 16-byte aligned) down:
//!
//! ```text
//! CFA + 0 ..      incoming stack arguments
//! CFA - 8         return address
//! CFA - 16        saved rbp            <- rbp (with a frame pointer only)
//! ..              saved callee-saved registers, in push order
//! ..              stack slots (allocas, spills), each aligned
//! rsp + 0 ..      outgoing stack arguments  <- rsp, 16-byte aligned
//! ```
//!
//! With a frame pointer the prologue is `push rbp; mov rbp, rsp; push
//! <saved>…; sub rsp, N`: the CFA is rbp + 16 from the `mov` on, so later
//! pushes need no CFA change; the epilogue is `add rsp, N; pop <saved,
//! reversed>…; pop rbp` then the `ret`. Without one it is `push <saved>…;
//! sub rsp, N` and `add rsp, N; pop <saved, reversed>…`: the CFA is rsp +
//! its distance, and every push, pop and rsp adjustment has its row. rsp
//! is 16-byte aligned at every call; a function that makes no call keeps it
//! 8-byte aligned only. An epilogue that is not the function's last code
//! remembers the body's CFI state before its first row and restores it
//! after its `ret`.
//!
//! Promise: slot offsets are CFA-relative ([`LoweredFrame::slot_cfa_offset`])
//! so debug locations can use `DW_OP_call_frame_cfa`-based frame slots.
//! Prologue instructions carry the location of the function's first
//! located instruction; epilogue instructions carry their `ret`'s.

use super::mir::{
    Address, AddressBase, AluOp, Function, Gpr, GprSet, Inst, InstKind, Reg, Rmi, StackSlotId,
    Width,
};
use crate::ir;
use crate::x86::abi::STACK_ALIGNMENT;
use dwarfsmith_emit::model::CfiInstruction;

/// What a function's `"frame-pointer"` attribute asks for (LLVM's values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FramePointer {
    /// `"all"` (or `"reserved"`): always a frame pointer.
    #[default]
    All,
    /// `"non-leaf"`: a frame pointer in functions that make calls.
    NonLeaf,
    /// `"none"`, or no attribute: a frame pointer only where the frame
    /// needs one.
    None,
}

impl FramePointer {
    /// The rule `function`'s attributes (inline or in a group) give.
    pub fn of(module: &ir::Module, function: &ir::Function) -> FramePointer {
        let has = |value: &str| {
            crate::opt::has_function_attr(
                module,
                function,
                &format!("\"frame-pointer\"=\"{value}\""),
            )
        };
        if has("all") || has("reserved") {
            FramePointer::All
        } else if has("non-leaf") {
            FramePointer::NonLeaf
        } else {
            FramePointer::None
        }
    }
}

/// Whether `f` goes without a frame pointer under `rule`: not where the
/// body moves rsp, reads its frame's address or holds inline asm (which
/// may name rbp or rsp).
pub fn omits_frame_pointer(f: &Function, rule: FramePointer) -> bool {
    let mut insts = f.blocks.iter().flat_map(|b| &b.insts);
    let omit = match rule {
        FramePointer::All => false,
        FramePointer::NonLeaf => !makes_calls(f),
        FramePointer::None => true,
    };
    omit && !f.moves_stack_pointer
        && !f.frame_address_taken
        && !insts.any(|i| matches!(i.kind, InstKind::InlineAsm(_)))
}

/// Whether `f` calls anything (a tail jump leaves the frame first).
fn makes_calls(f: &Function) -> bool {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .any(|i| matches!(i.kind, InstKind::Call { .. }))
}

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
    /// Callee-saved registers pushed (after rbp when it is the frame
    /// pointer), in push order.
    pub saved: Vec<Gpr>,
    /// Bytes subtracted from rsp after the pushes.
    pub frame_size: u32,
    /// Whether rbp is the frame pointer (else the body addresses the
    /// frame from rsp).
    pub frame_pointer: bool,
    /// Distance from the body's rsp up to the CFA.
    pub rsp_below_cfa: i64,
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

    /// The register the body addresses the frame from: rbp or rsp.
    pub fn base(&self) -> Gpr {
        if self.frame_pointer {
            Gpr::Rbp
        } else {
            Gpr::Rsp
        }
    }

    /// How the lowered code addresses CFA + `cfa_offset`: [`Self::base`]
    /// and a displacement.
    fn address(&self, cfa_offset: i64) -> (Gpr, i64) {
        let below = if self.frame_pointer {
            RBP_BELOW_CFA
        } else {
            self.rsp_below_cfa
        };
        (self.base(), cfa_offset + below)
    }

    /// How the lowered code addresses `slot`'s first byte.
    pub fn slot_address(&self, slot: StackSlotId) -> (Gpr, i64) {
        self.address(self.slot_cfa_offset(slot))
    }
}

/// Distance from the CFA down to rbp: return address and saved rbp.
const RBP_BELOW_CFA: i64 = 16;

/// Size of the return address the call pushed.
const RETURN_ADDRESS: i64 = 8;

/// Lays out the frame of `f` and inserts prologue and epilogues.
pub fn lower_frame(f: &mut Function, callee_saved: GprSet) -> LoweredFrame {
    let frame_pointer = !f.omits_frame_pointer;
    let saved: Vec<Gpr> = callee_saved
        .iter()
        .filter(|&g| !(frame_pointer && g == Gpr::Rbp))
        .collect();
    let above = if frame_pointer {
        RBP_BELOW_CFA
    } else {
        RETURN_ADDRESS
    };
    let pushed = 8 * saved.len() as i64;
    let mut cursor = above + pushed;
    let mut slot_offsets = Vec::with_capacity(f.stack_slots.len());
    for slot in &f.stack_slots {
        let align = i64::from(slot.align.max(1));
        cursor = (cursor + i64::from(slot.size) + align - 1) / align * align;
        slot_offsets.push(-cursor);
    }
    let align = if frame_pointer || makes_calls(f) {
        i64::from(STACK_ALIGNMENT)
    } else {
        8
    };
    let total = (cursor + i64::from(f.outgoing_args_size) + align - 1) / align * align;
    let frame_size = (total - above - pushed) as u32;

    let mut frame = LoweredFrame {
        slot_offsets,
        saved,
        frame_size,
        frame_pointer,
        rsp_below_cfa: total,
        cfi: Vec::new(),
        markers: FrameMarkers::default(),
    };
    rewrite_frame_addresses(f, &frame);
    let mut cfi = Vec::new();
    frame.markers = insert_prologue_and_epilogues(f, &frame, &mut cfi);
    frame.cfi = cfi;
    frame
}

fn rewrite_frame_addresses(f: &mut Function, frame: &LoweredFrame) {
    for inst in f.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        inst.kind.visit_addresses_mut(&mut |addr| {
            let (base, offset) = match addr.base {
                AddressBase::Slot(s) => frame.slot_address(s),
                AddressBase::IncomingArgs => frame.address(0),
                AddressBase::OutgoingArgs => (Gpr::Rsp, 0),
                _ => return,
            };
            addr.base = AddressBase::Reg(Reg::from(base));
            addr.disp += offset as i32;
        });
    }
}

/// Inserts the prologue and every epilogue (see the module doc for their
/// shape with and without a frame pointer) and their CFI rows.
fn insert_prologue_and_epilogues(
    f: &mut Function,
    frame: &LoweredFrame,
    cfi: &mut Vec<CfiPoint>,
) -> FrameMarkers {
    let (saved, frame_size) = (&frame.saved, frame.frame_size);
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

    let mut prologue = Vec::new();
    // The CFA's distance above rsp, while rsp is the CFA's register.
    let mut cfa_offset = RETURN_ADDRESS;
    if frame.frame_pointer {
        prologue.push(Inst::new(InstKind::Push { reg: Gpr::Rbp }, first_loc));
        prologue.push(Inst::new(
            InstKind::Copy {
                dst: Reg::from(Gpr::Rbp),
                src: rsp,
            },
            first_loc,
        ));
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
        cfa_offset = RBP_BELOW_CFA;
    }
    for &g in saved {
        prologue.push(Inst::new(InstKind::Push { reg: g }, first_loc));
        cfa_offset += 8;
        let at = prologue.len() - 1;
        if !frame.frame_pointer {
            cfi.push(point(
                0,
                at,
                CfiInstruction::DefCfaOffset(cfa_offset as u32),
            ));
        }
        cfi.push(point(
            0,
            at,
            CfiInstruction::Offset {
                register: g.dwarf(),
                offset: -cfa_offset as i32,
            },
        ));
    }
    if frame_size > 0 {
        prologue.push(adjust(AluOp::Sub, first_loc));
        if !frame.frame_pointer {
            let at = prologue.len() - 1;
            cfi.push(point(
                0,
                at,
                CfiInstruction::DefCfaOffset(frame.rsp_below_cfa as u32),
            ));
        }
    }
    let prologue_len = prologue.len();
    if f.blocks.is_empty() {
        f.blocks.push(Default::default());
    }
    f.blocks[0].insts.splice(0..0, prologue);

    let last = last_code_position(f);
    let moves_stack_pointer = f.moves_stack_pointer;
    let mut epilogue_starts = Vec::new();
    let returns =
        |inst: &Inst| matches!(inst.kind, InstKind::Ret { .. } | InstKind::TailJump { .. });
    for b in 0..f.blocks.len() {
        // Most blocks hold no return: they stay as they are (not copied).
        if !f.blocks[b].insts.iter().any(returns) {
            continue;
        }
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len() + saved.len() + 2);
        for (i, inst) in old.into_iter().enumerate() {
            if !returns(&inst) {
                out.push(inst);
                continue;
            }
            epilogue_starts.push((b, out.len()));
            let is_last = last == Some((b, i));
            // Rows of this epilogue: the first remembers the body's state
            // (unless nothing follows).
            let mut rows = 0;
            let mut row = |out: &Vec<Inst>, instruction, cfi: &mut Vec<CfiPoint>| {
                if rows == 0 && !is_last {
                    cfi.push(point(b, out.len() - 1, CfiInstruction::RememberState));
                }
                rows += 1;
                cfi.push(point(b, out.len() - 1, instruction));
            };
            let mut cfa_offset = frame.rsp_below_cfa;
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
                cfa_offset -= i64::from(frame_size);
                if !frame.frame_pointer {
                    row(&out, CfiInstruction::DefCfaOffset(cfa_offset as u32), cfi);
                }
            }
            for &g in saved.iter().rev() {
                out.push(Inst::new(InstKind::Pop { reg: g }, inst.loc));
                cfa_offset -= 8;
                if !frame.frame_pointer {
                    row(&out, CfiInstruction::DefCfaOffset(cfa_offset as u32), cfi);
                }
            }
            if frame.frame_pointer {
                out.push(Inst::new(InstKind::Pop { reg: Gpr::Rbp }, inst.loc));
                let rsp_cfa = CfiInstruction::DefCfa {
                    register: Gpr::Rsp.dwarf(),
                    offset: RETURN_ADDRESS as u32,
                };
                row(&out, rsp_cfa, cfi);
            }
            out.push(inst);
            if rows > 0 && !is_last {
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

    /// The CFI rows as `block:inst rule`.
    fn cfi_rows(frame: &LoweredFrame) -> Vec<String> {
        frame
            .cfi
            .iter()
            .map(|p| format!("{}:{} {:?}", p.block, p.inst, p.instruction))
            .collect()
    }

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
        let rows = cfi_rows(&frame);
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

    #[test]
    fn without_a_frame_pointer_rsp_addresses_the_frame_and_every_push_has_a_row() {
        let mut f = Function::new("rsp_frame");
        f.omits_frame_pointer = true;
        let a = f.new_stack_slot(4, 4, StackSlotKind::Alloca);
        f.new_block();
        f.new_block();
        f.blocks[0].insts = vec![
            Inst::new(
                InstKind::Store {
                    src: Ri::Imm(1),
                    addr: Address::slot(a, 0),
                    width: Width::W32,
                },
                3,
            ),
            Inst::new(InstKind::Ret { uses: vec![] }, 4),
        ];
        f.blocks[1].insts = vec![Inst::new(InstKind::Ret { uses: vec![] }, 5)];
        let frame = lower_frame(&mut f, GprSet::of(&[Gpr::Rbx, Gpr::Rbp]));
        // Return address, rbx, rbp: a at CFA-28; no call, so 8-aligned: 32.
        assert_eq!(frame.slot_cfa_offset(a), -28);
        assert_eq!(frame.rsp_below_cfa, 32);
        assert_eq!(frame.frame_size, 8);
        assert_eq!(frame.slot_address(a), (Gpr::Rsp, 4));
        expect![[r#"
            name: rsp_frame
              %stack.0: size 4, align 4, alloca
            bb.0:
              PUSH $rbx  ; loc 3
              PUSH $rbp  ; loc 3
              $rsp = SUB64 $rsp, 8  ; loc 3
              STORE32 [$rsp + 4], 1  ; loc 3
              $rsp = ADD64 $rsp, 8  ; loc 4
              $rbp = POP  ; loc 4
              $rbx = POP  ; loc 4
              RET  ; loc 4
            bb.1:
              $rsp = ADD64 $rsp, 8  ; loc 5
              $rbp = POP  ; loc 5
              $rbx = POP  ; loc 5
              RET  ; loc 5
        "#]]
        .assert_eq(&f.to_string());
        let rows = cfi_rows(&frame);
        expect![[r#"
            [
                "0:0 DefCfaOffset(16)",
                "0:0 Offset { register: 3, offset: -16 }",
                "0:1 DefCfaOffset(24)",
                "0:1 Offset { register: 6, offset: -24 }",
                "0:2 DefCfaOffset(32)",
                "0:4 RememberState",
                "0:4 DefCfaOffset(24)",
                "0:5 DefCfaOffset(16)",
                "0:6 DefCfaOffset(8)",
                "0:7 RestoreState",
                "1:0 DefCfaOffset(24)",
                "1:1 DefCfaOffset(16)",
                "1:2 DefCfaOffset(8)",
            ]
        "#]]
        .assert_debug_eq(&rows);
    }
}
