//! The back end's driver: a MIR function over virtual registers in, final
//! machine code out. It runs the target-neutral stages of `codegen` and the
//! x86 encoder (`codegen` uses `x86`, never the reverse).
//!
//! In: a [`Function`] from instruction selection. Out: a
//! [`FinishedFunction`]: the final MIR (physical registers, spill code,
//! prologue and epilogues, debug values rewritten), where each of its
//! instructions landed, the code with relocations, jump tables, and CFI.
//!
//! The stages, in order: the frame-pointer decision
//! ([`frame::omits_frame_pointer`], which allocation needs), [`symbol_cse::run`]
//! (a symbol's address materialised once per block), [`zext::run`] (32 → 64-bit zero extensions the
//! x86 already did become copies), [`loop_split::run`] (values living around an
//! innermost loop get a register of their own inside it),
//! [`regalloc::allocate`] (liveness, linear scan,
//! spilling, debug-value rewriting), LiveDebugValues, [`block_placement::run`]
//! (likely successors laid out next), [`peephole::run`]
//! (copy + add → `lea`, jumps to the fall-through block), [`frame::lower_frame`] (layout,
//! prologue/epilogue, frame addresses), [`encode::encode`] (x86-64 through
//! iced-x86), then
//! the CFI points become byte offsets. Promise: debug instructions change
//! nothing in `code`; every stage keeps each instruction's `loc`.

use super::frame::{self, FramePointer, LoweredFrame};
use super::mir::{
    Address, AddressBase, BlockId, FpSize, Function, InstKind, PhysReg, Reg, StackSlotId,
    StackSlotKind, Width,
};
use super::regalloc::{self, Allocation, RegallocError};
use super::{block_placement, loop_split, peephole, symbol_cse, zext};
use crate::x86::encode::{self, EncodeError};
use dwarfsmith_emit::model::{self, CfiRow, Relocation};
use std::collections::HashMap;
use std::fmt;

/// What [`finish_function`] needs besides the function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FinishOptions {
    /// Index of this function in the object's `functions` (jump-table
    /// relocations name it).
    pub function_index: usize,
    /// What the function's `"frame-pointer"` attribute asks for.
    pub frame_pointer: FramePointer,
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
    /// Where block placement put each block of the function as given:
    /// `placed[b]` is the final index of its block `b`.
    pub placed: Vec<BlockId>,
    /// The machine code.
    pub code: Vec<u8>,
    /// The alignment the code needs (inline asm `.p2align`; 0: none).
    pub align: u32,
    /// Relocations against `code`.
    pub relocations: Vec<Relocation>,
    /// Jump tables.
    pub rodata: Vec<u8>,
    /// Relocations against `rodata`.
    pub rodata_relocations: Vec<Relocation>,
    /// Constants of 4, 8 or 16 bytes (`.rodata.cst4/8/16`).
    pub literals: Vec<Vec<u8>>,
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
            binding: Default::default(),
            code: self.code.clone(),
            align: u64::from(self.align),
            relocations: self.relocations.clone(),
            cfi: self.cfi.clone(),
            rodata: self.rodata.clone(),
            rodata_relocations: self.rodata_relocations.clone(),
            literals: self.literals.clone(),
            ..model::Function::default()
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
    /// The function breaks a precondition of the back end (named in the
    /// message).
    Invalid(String),
}

impl fmt::Display for FinishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FinishError::Regalloc(e) => e.fmt(f),
            FinishError::Encode(e) => e.fmt(f),
            FinishError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for FinishError {}

/// Allocates registers, lowers the frame and encodes `f`.
pub fn finish_function(
    mut f: Function,
    options: &FinishOptions,
) -> Result<FinishedFunction, FinishError> {
    check_preconditions(&f).map_err(FinishError::Invalid)?;
    f.omits_frame_pointer = frame::omits_frame_pointer(&f, options.frame_pointer);
    symbol_cse::run(&mut f);
    zext::run(&mut f);
    loop_split::run(&mut f);
    let allocation = regalloc::allocate(&mut f).map_err(FinishError::Regalloc)?;
    crate::codegen::live_debug_values::run(&mut f);
    let placed = block_placement::run(&mut f);
    peephole::run(&mut f);
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
        placed,
        mir: f,
        inst_offsets: encoded.inst_offsets,
        block_offsets: encoded.block_offsets,
        code: encoded.code,
        align: encoded.align,
        relocations: encoded.relocations,
        rodata: encoded.rodata,
        rodata_relocations: encoded.rodata_relocations,
        literals: encoded.literals,
        cfi,
        frame,
        allocation,
    })
}

/// What the back end assumes of its input and cannot repair: the prologue
/// goes at the top of the entry block, so nothing may branch there; frames
/// are aligned to 16 bytes, so no slot may need more.
fn check_preconditions(f: &Function) -> Result<(), String> {
    for b in 0..f.blocks.len() {
        if f.successors(BlockId(b as u32)).contains(&BlockId(0)) {
            return Err(format!(
                "`{}`: bb.{b} branches to the entry block, which holds the prologue",
                f.name
            ));
        }
    }
    for (i, slot) in f.stack_slots.iter().enumerate() {
        if !slot.align.is_power_of_two() || slot.align > 16 {
            return Err(format!(
                "`{}`: %stack.{i} asks for alignment {} (1 to 16, a power of two)",
                f.name, slot.align
            ));
        }
    }
    Ok(())
}

/// The stores into spill slots of a frame-lowered function: 64-bit stores
/// (`mov` or `movsd`) at a spill slot's frame address (rbp- or
/// rsp-relative, [`LoweredFrame::slot_address`]; only spill code writes
/// there).
fn spill_stores(f: &Function, frame: &LoweredFrame) -> Vec<(usize, usize, StackSlotId)> {
    let by_disp: HashMap<i64, StackSlotId> = f
        .stack_slots
        .iter()
        .enumerate()
        .filter(|(_, slot)| slot.kind == StackSlotKind::Spill)
        .map(|(i, _)| {
            let id = StackSlotId(i as u32);
            (frame.slot_address(id).1, id)
        })
        .collect();
    let frame_base = Reg::Phys(PhysReg::Gpr(frame.base()));
    let mut out = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let addr = match &inst.kind {
                InstKind::Store {
                    addr,
                    width: Width::W64,
                    ..
                }
                | InstKind::FpStore {
                    addr,
                    size: FpSize::F64,
                    ..
                } => addr,
                _ => continue,
            };
            if let Address {
                base: AddressBase::Reg(base),
                index: None,
                disp,
            } = addr
            {
                if *base == frame_base {
                    if let Some(&slot) = by_disp.get(&i64::from(*disp)) {
                        out.push((b, i, slot));
                    }
                }
            }
        }
    }
    out
}
