//! The back end's one entry point: a MIR function over virtual registers in,
//! final machine code out.
//!
//! In: a [`Function`] from instruction selection. Out: a
//! [`FinishedFunction`]: the final MIR (physical registers, spill code,
//! prologue and epilogues, debug values rewritten), where each of its
//! instructions landed, the code with relocations, jump tables, and CFI.
//!
//! The stages, in order: [`regalloc::allocate`] (liveness, linear scan,
//! spilling, debug-value rewriting), [`frame::lower_frame`] (layout,
//! prologue/epilogue, frame addresses), [`encode::encode`] (iced-x86), then
//! the CFI points become byte offsets. Promise: debug instructions change
//! nothing in `code`; every stage keeps each instruction's `loc`.

use super::encode::{self, EncodeError};
use crate::codegen::frame::{self, LoweredFrame};
use crate::codegen::mir::{
    Address, AddressBase, Function, Gpr, InstKind, Reg, StackSlotId, StackSlotKind, Width,
};
use crate::codegen::regalloc::{self, Allocation, RegallocError};
use dwarfsmith_emit::model::{self, CfiRow, Relocation};
use std::collections::HashMap;
use std::fmt;

/// What [`finish_function`] needs besides the function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FinishOptions {
    /// Index of this function in the object's `functions` (jump-table
    /// relocations name it).
    pub function_index: usize,
}

/// A function ready for the object model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinishedFunction {
    /// The final MIR: physical registers only, prologue and epilogues
    /// included, debug values on physical registers, spill slots
    /// ([`crate::codegen::mir::DbgOperand::SpillSlot`]), stack slots,
    /// constants or `$noreg`.
    pub mir: Function,
    /// `(offset, length)` of every instruction of `mir`, parallel to its
    /// blocks and instructions (debug values: length 0 at the next
    /// instruction's offset).
    pub inst_offsets: Vec<Vec<(u32, u32)>>,
    /// Offset of each block's first byte.
    pub block_offsets: Vec<u32>,
    /// The machine code.
    pub code: Vec<u8>,
    /// Relocations against `code`.
    pub relocations: Vec<Relocation>,
    /// Jump tables.
    pub rodata: Vec<u8>,
    /// Relocations against `rodata`.
    pub rodata_relocations: Vec<Relocation>,
    /// Call-frame rows in address order.
    pub cfi: Vec<CfiRow>,
    /// The frame layout, prologue length and epilogue positions.
    pub frame: LoweredFrame,
    /// What register allocation did.
    pub allocation: Allocation,
    /// Every instruction of `mir` that writes a spill slot, as (block,
    /// instruction index, slot): a location
    /// [`crate::codegen::mir::DbgOperand::SpillSlot`] of that slot opened
    /// before it no longer holds the value it described once it runs (the
    /// spilled register was defined anew), just as a register write ends a
    /// register location.
    pub spill_stores: Vec<(usize, usize, StackSlotId)>,
}

impl FinishedFunction {
    /// The CFA-relative offset of `slot`'s first byte, for
    /// `LocationArg::FrameSlot`.
    pub fn slot_cfa_offset(&self, slot: StackSlotId) -> i64 {
        self.frame.slot_cfa_offset(slot)
    }

    /// The object-model function (`global`: STB_GLOBAL binding).
    pub fn to_model(&self, global: bool) -> model::Function {
        model::Function {
            name: self.mir.name.clone(),
            global,
            code: self.code.clone(),
            relocations: self.relocations.clone(),
            cfi: self.cfi.clone(),
            rodata: self.rodata.clone(),
            rodata_relocations: self.rodata_relocations.clone(),
        }
    }
}

/// Why a function could not be finished (a bug in the MIR it was given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FinishError {
    /// Register allocation failed.
    Regalloc(RegallocError),
    /// Encoding failed.
    Encode(EncodeError),
}

impl fmt::Display for FinishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FinishError::Regalloc(e) => e.fmt(f),
            FinishError::Encode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for FinishError {}

/// Allocates registers, lowers the frame and encodes `f`.
pub fn finish_function(
    mut f: Function,
    options: &FinishOptions,
) -> Result<FinishedFunction, FinishError> {
    let allocation = regalloc::allocate(&mut f).map_err(FinishError::Regalloc)?;
    crate::codegen::live_debug_values::run(&mut f);
    let frame = frame::lower_frame(&mut f, allocation.callee_saved_used);
    let encoded = encode::encode(&f, options.function_index).map_err(FinishError::Encode)?;
    let cfi = frame
        .cfi
        .iter()
        .map(|p| {
            let (offset, len) = encoded.inst_offsets[p.block][p.inst];
            CfiRow {
                offset: u64::from(offset + len),
                instruction: p.instruction,
            }
        })
        .collect();
    let spill_stores = spill_stores(&f, &frame);
    Ok(FinishedFunction {
        spill_stores,
        mir: f,
        inst_offsets: encoded.inst_offsets,
        block_offsets: encoded.block_offsets,
        code: encoded.code,
        relocations: encoded.relocations,
        rodata: encoded.rodata,
        rodata_relocations: encoded.rodata_relocations,
        cfi,
        frame,
        allocation,
    })
}

/// The stores into spill slots of a frame-lowered function: 64-bit stores
/// at a spill slot's rbp-relative address (only spill code writes there).
fn spill_stores(f: &Function, frame: &LoweredFrame) -> Vec<(usize, usize, StackSlotId)> {
    let by_disp: HashMap<i64, StackSlotId> = f
        .stack_slots
        .iter()
        .enumerate()
        .filter(|(_, slot)| slot.kind == StackSlotKind::Spill)
        .map(|(i, _)| {
            let id = StackSlotId(i as u32);
            (frame.slot_rbp_offset(id), id)
        })
        .collect();
    let mut out = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if let InstKind::Store {
                addr:
                    Address {
                        base: AddressBase::Reg(Reg::Phys(Gpr::Rbp)),
                        index: None,
                        disp,
                    },
                width: Width::W64,
                ..
            } = &inst.kind
            {
                if let Some(&slot) = by_disp.get(&i64::from(*disp)) {
                    out.push((b, i, slot));
                }
            }
        }
    }
    out
}
