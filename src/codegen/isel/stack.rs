//! Instruction selection for allocas the fixed frame cannot hold: dynamic
//! ones (`alloca T, iN %n`, C's variable-length arrays) and ones aligned
//! above the 16 bytes the frame guarantees.
//!
//! In: such an `alloca`. Out: MIR computing its address into the alloca's
//! virtual register.
//!
//! Rules it follows:
//! - A dynamic alloca moves rsp down by its size rounded up to 16 (plus
//!   the extra alignment it asks for) and marks the function as moving rsp,
//!   so the epilogue restores rsp from rbp (the frame pointer is always
//!   kept). The memory starts above the outgoing-argument area at the new
//!   rsp; the area's size is known only when selection ends, so the `lea`
//!   giving the address is completed then ([`Selector::finish_dynamic_allocas`]).
//! - An over-aligned constant-size alloca gets a frame slot larger by
//!   `align - 16` and its address is the slot's rounded up to `align`.
//! - Either kind lives in a register rather than a frame slot, so a
//!   `dbg.declare` of it describes the variable as optimised out (never wrong).

use super::{container, Selector};
use crate::codegen::mir::{
    Address, AddressBase, AluOp, BlockId as MBlock, InstKind as K, Reg, Rm, Rmi, StackSlotKind,
    Width,
};
use crate::error::Diagnostic;
use crate::ir::{InstId, InstKind};
use crate::x86::Gpr;

/// The alignment the frame gives every slot and rsp at calls.
const FRAME_ALIGN: u64 = 16;

/// Whether an alloca gets a fixed frame slot: a constant element count and
/// an alignment the frame gives; otherwise its stack is made at run time.
pub(crate) fn is_fixed_slot(constant_count: bool, align: Option<u32>) -> bool {
    constant_count && align.is_none_or(|a| u64::from(a) <= FRAME_ALIGN)
}

impl Selector<'_> {
    /// Whether an alloca is selected here rather than given a frame slot.
    pub(super) fn needs_stack_code(&self, kind: &InstKind) -> bool {
        match kind {
            InstKind::Alloca { count, align, .. } => !is_fixed_slot(
                count.as_ref().is_none_or(|c| self.const_int(c).is_some()),
                *align,
            ),
            _ => false,
        }
    }

    /// Selects a dynamic or over-aligned alloca.
    pub(super) fn lower_stack_alloca(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let InstKind::Alloca {
            allocated,
            count,
            align,
        } = &self.f.inst(id).kind
        else {
            return Err(self.error("internal: not an alloca".into()));
        };
        let dst = self.dst(id)?;
        let element = self.module.size_of(allocated).max(1);
        let align = u64::from(align.unwrap_or(1))
            .max(self.module.align_of(allocated))
            .max(FRAME_ALIGN);
        let extra = align - FRAME_ALIGN;
        let message = "unsupported alloca: its size does not fit in 32 bits";
        let pos = self.pos;
        let too_big = || Diagnostic {
            file: String::new(),
            pos,
            message: message.into(),
        };
        let dynamic_count = count.as_ref().filter(|c| self.const_int(c).is_none());
        match dynamic_count {
            None => {
                let n = count.as_ref().and_then(|c| self.const_int(c)).unwrap_or(1) as u64;
                let size = element.checked_mul(n).ok_or_else(too_big)? + extra;
                let size = u32::try_from(size).map_err(|_| too_big())?;
                let slot =
                    self.mir
                        .new_stack_slot(size.max(1), FRAME_ALIGN as u32, StackSlotKind::Alloca);
                self.emit(K::Lea {
                    dst,
                    addr: Address::slot(slot, 0),
                });
            }
            Some(n) => {
                let bits = self.bits_of(n)?;
                let r = self.normalized(n, false)?;
                let r = self.extend(r, container(bits).bits(), Width::W64, false);
                let size = self.vreg(Width::W64);
                let element = i32::try_from(element).map_err(|_| too_big())?;
                self.emit(K::ImulImm {
                    width: Width::W64,
                    dst: size,
                    src: Rm::Reg(r),
                    imm: element,
                });
                let round = i32::try_from(FRAME_ALIGN - 1 + extra).map_err(|_| too_big())?;
                self.emit(K::Alu {
                    op: AluOp::Add,
                    width: Width::W64,
                    dst: size,
                    src: Rmi::Imm(round),
                });
                self.emit(K::Alu {
                    op: AluOp::And,
                    width: Width::W64,
                    dst: size,
                    src: Rmi::Imm(-(FRAME_ALIGN as i32)),
                });
                self.mir.moves_stack_pointer = true;
                let rsp = Reg::from(Gpr::Rsp);
                self.emit(K::Alu {
                    op: AluOp::Sub,
                    width: Width::W64,
                    dst: rsp,
                    src: Rmi::Reg(size),
                });
                let block = self.current;
                let index = self.mir.blocks[block.0 as usize].insts.len();
                self.emit(K::Lea {
                    dst,
                    addr: Address {
                        base: AddressBase::Reg(rsp),
                        index: None,
                        disp: 0,
                    },
                });
                self.dynamic_allocas.push((block, index));
            }
        }
        if extra > 0 {
            let mask = i32::try_from(align).map_err(|_| too_big())?;
            self.emit(K::Alu {
                op: AluOp::Add,
                width: Width::W64,
                dst,
                src: Rmi::Imm(mask - 1),
            });
            self.emit(K::Alu {
                op: AluOp::And,
                width: Width::W64,
                dst,
                src: Rmi::Imm(-mask),
            });
        }
        Ok(())
    }

    /// Points each dynamic alloca's address above the outgoing-argument
    /// area, whose size is final once every call is selected.
    pub(super) fn finish_dynamic_allocas(&mut self) {
        let above = self.mir.outgoing_args_size as i32;
        for &(MBlock(b), i) in &self.dynamic_allocas {
            if let K::Lea { addr, .. } = &mut self.mir.blocks[b as usize].insts[i].kind {
                addr.disp = above;
            }
        }
    }
}
