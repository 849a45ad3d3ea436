//! Variable-location history (LLVM's DbgEntityHistoryCalculator): from the
//! debug values of a finished function to address ranges with locations.
//!
//! In: the final MIR (physical registers, debug values rewritten by the
//! register allocator), each instruction's byte offset, each stack slot's
//! CFA-relative offset, and isel's [`DebugTable`] saying what each debug
//! value's variable and expression numbers mean. Out: [`VariableRange`]s.
//!
//! The rules:
//! - A debug value opens a range for its (variable, inlinedAt, fragment)
//!   and closes the open range of the same key and of every overlapping
//!   fragment of the same variable.
//! - A range ends after an instruction that writes a register it reads
//!   (calls clobber the caller-saved registers) or stores into a spill slot
//!   it reads, or at the end of its block.
//! - A location continues into a block when every predecessor ends with
//!   that same location (a forward dataflow over the blocks, LLVM's
//!   LiveDebugValues in its simplest form), so straight-line code split
//!   into blocks and loops keep their variables; LiveDebugValues restates
//!   only what this join cannot find (a value every path holds in a
//!   different home). Where every path holds the location but not every
//!   path its entry value, it is the entry value its register holds there
//!   on every path, if any.
//! - A declare (an indirect debug value on a stack slot: the variable lives
//!   in memory) holds for the whole function.
//! - An undefined operand (`$noreg`) makes the location unavailable: no
//!   range.
//!
//! Locations come out as `dwarfsmith_emit::model::Location`: registers by
//! DWARF number with the value's width and signedness, frame slots as CFA
//! offsets (a bare `Arg` over a frame slot is "in memory there"), and
//! constants; a computed value ends in `DW_OP_stack_value`. A location
//! over registers without `DW_OP_stack_value` whose last operation is
//! `DW_OP_deref` (assignment tracking's "in memory at this pointer") is a
//! memory location at the address before that deref, as LLVM's
//! DwarfExpression makes it: `DW_OP_bregN 0`, never a load of the value
//! taken as its address.

use crate::ir::hash::FxHashMap;
use std::rc::Rc;

use dwarfsmith_emit::model::{Location, LocationArg, Op};

use crate::codegen::isel::{ArgType, DebugTable, VariableKey};
use crate::codegen::mir::{
    Access, AluOp, BlockId, DbgOperand, DbgValue, Function, InstKind, Reg, Rmi, StackSlotId,
    UnaryOp,
};
use crate::x86::{Gpr, PhysReg, RegSet};

/// One address range over which a variable (or a fragment of it) is at a
/// location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariableRange {
    /// Which variable, inlined instance and fragment.
    pub key: VariableKey,
    /// First byte offset covered.
    pub start: u64,
    /// One past the last byte offset covered.
    pub end: u64,
    /// Where the value is.
    pub location: Location,
}

/// What history needs of a finished function.
pub struct HistoryInput<'a> {
    /// The final MIR.
    pub mir: &'a Function,
    /// `(offset, length)` per instruction, parallel to the MIR's blocks.
    pub inst_offsets: &'a [Vec<(u32, u32)>],
    /// Offset of each block's first byte.
    pub block_offsets: &'a [u32],
    /// Size of the function's code.
    pub code_size: u64,
    /// CFA-relative offset of each stack slot.
    pub slot_offsets: &'a [i64],
    /// (block, instruction, slot) of every store into a spill slot: it ends
    /// the locations that read the slot, as a register write does.
    pub spill_stores: &'a [(usize, usize, StackSlotId)],
    /// The meaning of the debug values' numbers.
    pub table: &'a DebugTable,
}

/// The state of one variable key at a point: its open location.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Open {
    location: Location,
    /// Registers the location reads.
    registers: Vec<PhysReg>,
    /// The same registers as a set, for the per-instruction clobber test.
    register_set: RegSet,
    /// Spill slots the location reads.
    spill_slots: Vec<StackSlotId>,
    /// For a location of the value the variable had at function entry,
    /// which was then in one register: that register, whose entry value
    /// still is the variable's value after the location is lost (the
    /// register reused, or a copy LiveDebugValues followed the value to
    /// overwritten in turn). General-purpose registers only: an entry value
    /// is a generic, integer-typed value.
    entry_register: Option<Gpr>,
}

/// Open locations by variable-key number, sorted by key (at most one per
/// key). Locations are shared: the dataflow copies states from block to
/// block, and copying one must not copy every location it holds.
type State = Vec<(u32, Rc<Open>)>;

/// What the walks need of one instruction, worked out once per function.
enum Step {
    /// A debug value of `variable`: the location it opens (`None`:
    /// unavailable), the registers its operands name, and whether it only
    /// follows the previous value to another home ([`DbgValue::moved`]).
    Debug {
        variable: u32,
        opened: Option<Rc<Open>>,
        operand_registers: RegSet,
        moved: bool,
        /// The argument register whose entry value the location's one
        /// register holds here on every path ([`mark_entry_copies`]).
        entry_copy_of: Option<Gpr>,
    },
    /// Any other instruction: the registers it writes and the spill slot
    /// it stores into, if any.
    Other {
        written: RegSet,
        stored: Option<StackSlotId>,
    },
}

/// Per block, per instruction: its [`Step`].
type Steps = Vec<Vec<Step>>;

/// The location ranges of every variable of one function, ordered by key
/// number, then start.
pub fn variable_ranges(input: &HistoryInput) -> Vec<VariableRange> {
    let mir = input.mir;
    let n = mir.blocks.len();
    let declares = declared_variables(input);
    let mut declared = vec![false; input.table.variables.len()];
    for &key in declares.keys() {
        declared[key as usize] = true;
    }
    let mut steps = steps(input);
    // Predecessors for the dataflow.
    let mut preds = vec![Vec::new(); n];
    for b in 0..n {
        for s in mir.successors(BlockId(b as u32)) {
            preds[s.0 as usize].push(b);
        }
    }
    let mut succs = vec![Vec::new(); n];
    for (b, block_preds) in preds.iter().enumerate() {
        for &p in block_preds {
            succs[p].push(b);
        }
    }
    let order = super::loop_depth::every_block_in_reverse_post_order(&succs);
    let entry_copies = mark_entry_copies(input, &mut steps, &preds, &order);
    let overlapping = input.table.overlapping_variables();
    let mut walker = Walker {
        input,
        steps: &steps,
        declared: &declared,
        overlapping: &overlapping,
        starts: vec![0; input.table.variables.len()],
        entry_starts: vec![false; input.table.variables.len()],
    };
    // Forward dataflow: a location is live into a block when every
    // (visited) predecessor ends with it. A block is walked again only when
    // a predecessor's exit changed since its last walk (its entry, and so
    // its exit, are otherwise what they were).
    // Blocks are visited in reverse post-order, so a loop header is seen
    // before its latch and keeps what enters the loop until the back edge
    // says otherwise (the greatest fixed point, as LiveDebugValues finds).
    // Every walk records the block's ranges: the outs are final when the
    // dataflow ends, so each block's last walk started from its final entry
    // and recorded what a walk now would.
    let mut outs: Vec<Option<State>> = vec![None; n];
    let mut entries: Vec<State> = vec![Vec::new(); n];
    let mut recorded: Vec<BlockRanges> = (0..n).map(|_| BlockRanges::default()).collect();
    let mut dirty = vec![true; n];
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 64 {
        changed = false;
        rounds += 1;
        for &b in &order {
            if !dirty[b] {
                continue;
            }
            dirty[b] = false;
            let entry = block_entry(input, b, &preds[b], &outs, &entry_copies[b]);
            entries[b].clone_from(&entry);
            let out = walker.walk_block(b, entry, &mut recorded[b]);
            if outs[b].as_ref() != Some(&out) {
                outs[b] = Some(out);
                changed = true;
                for &s in &succs[b] {
                    dirty[s] = true;
                }
            }
        }
    }
    if changed {
        // The rounds ran out before a fixed point: the entries from the
        // outs as they stand, and every block walked again from them.
        for (b, entry) in entries.iter_mut().enumerate() {
            *entry = block_entry(input, b, &preds[b], &outs, &entry_copies[b]);
        }
        for (b, exit) in outs.iter_mut().enumerate() {
            *exit = Some(walker.walk_block(b, entries[b].clone(), &mut recorded[b]));
        }
    }
    let mut ranges = Vec::new();
    stitch(input, &mut recorded, &outs, &entries, &mut ranges);
    for (key, location) in declares {
        ranges.push(VariableRange {
            key: input.table.variables[key as usize],
            start: 0,
            end: input.code_size,
            location,
        });
    }
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| (r.key.variable, r.key.inlined_at, r.key.fragment, r.start));
    // Merge touching ranges of one key with one location.
    let mut merged: Vec<VariableRange> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last)
                if last.key == r.key && last.end == r.start && last.location == r.location =>
            {
                last.end = r.end;
            }
            _ => merged.push(r),
        }
    }
    merged
}

/// The [`Step`] of every instruction: debug values with their location
/// ([`location_of`]), other instructions with what they overwrite. Debug
/// values with the same operands and expression share one location
/// (LiveDebugValues' restatements say again what another debug value said).
fn steps(input: &HistoryInput) -> Steps {
    let mut opened = Opened {
        by_operands: FxHashMap::default(),
        previous: vec![None; input.table.variables.len()],
    };
    let mut steps: Steps = input
        .mir
        .blocks
        .iter()
        .map(|block| {
            block
                .insts
                .iter()
                .map(|inst| match &inst.kind {
                    InstKind::DbgValue(d) => Step::Debug {
                        variable: d.variable,
                        opened: opened.open(input, d),
                        operand_registers: d.operands.iter().fold(
                            RegSet::EMPTY,
                            |set, o| match o {
                                DbgOperand::Reg(Reg::Phys(g)) => set.with(*g),
                                _ => set,
                            },
                        ),
                        moved: d.moved,
                        entry_copy_of: None,
                    },
                    kind => Step::Other {
                        written: written_registers(kind),
                        stored: None,
                    },
                })
                .collect()
        })
        .collect();
    for &(b, i, slot) in input.spill_stores {
        if let Some(Step::Other { stored, .. }) = steps.get_mut(b).and_then(|s| s.get_mut(i)) {
            *stored = Some(slot);
        }
    }
    steps
}

/// A debug value's operands, expression and indirection: what its location
/// depends on.
type Operands<'m> = (&'m [DbgOperand], u32, bool);

/// The locations [`steps`] has opened, shared by the debug values with the
/// same [`Operands`].
struct Opened<'m> {
    by_operands: FxHashMap<Operands<'m>, Option<Rc<Open>>>,
    /// By variable-key number: its previous debug value's operands and
    /// location. A restatement is most often the same again, found without
    /// hashing.
    previous: Vec<Option<(Operands<'m>, Option<Rc<Open>>)>>,
}

impl<'m> Opened<'m> {
    /// The location `d` opens ([`open_of`]), made once per [`Operands`].
    fn open(&mut self, input: &HistoryInput, d: &'m DbgValue) -> Option<Rc<Open>> {
        let key = (d.operands.as_slice(), d.expr, d.indirect);
        if let Some(Some((last, open))) = self.previous.get(d.variable as usize) {
            if *last == key {
                return open.clone();
            }
        }
        let open = self
            .by_operands
            .entry(key)
            .or_insert_with(|| open_of(input, d))
            .clone();
        if let Some(previous) = self.previous.get_mut(d.variable as usize) {
            *previous = Some((key, open.clone()));
        }
        open
    }
}

/// Which argument register's entry value each general-purpose register
/// holds (by hardware number), where known.
type EntryCopies = [Option<Gpr>; 16];

/// Fills in [`Step::Debug::entry_copy_of`] and returns what each block
/// starts with: a forward dataflow over the
/// blocks (reverse post-order, to a fixed point) of which registers hold an
/// argument register's entry value on every path. At entry each argument
/// register holds its own; a 64-bit copy passes what its source holds on;
/// any other write (a call's clobbers too) ends it. A variable whose value
/// is then in such a register is that entry value, and stays so after the
/// register is reused: a local of the function in a callee-saved copy of
/// its argument falls back to the argument's `DW_OP_entry_value` as the
/// parameter itself does (a variable of an inlined call does not: see
/// where the ranges open).
fn mark_entry_copies(
    input: &HistoryInput,
    steps: &mut Steps,
    preds: &[Vec<usize>],
    order: &[usize],
) -> Vec<EntryCopies> {
    let blocks = &input.mir.blocks;
    let transfer = |b: usize, held: &mut EntryCopies, steps: &mut [Step], record: bool| {
        for (inst, step) in blocks[b].insts.iter().zip(steps.iter_mut()) {
            match step {
                Step::Debug {
                    opened,
                    entry_copy_of,
                    ..
                } => {
                    if record {
                        *entry_copy_of = match opened.as_deref().map(|o| o.registers.as_slice()) {
                            Some([PhysReg::Gpr(register)]) => held[usize::from(register.hw())],
                            _ => None,
                        };
                    }
                }
                Step::Other { written, .. } => {
                    let copied = match inst.kind {
                        InstKind::Copy {
                            dst: Reg::Phys(PhysReg::Gpr(dst)),
                            src: Reg::Phys(PhysReg::Gpr(src)),
                        } => Some((dst, held[usize::from(src.hw())])),
                        _ => None,
                    };
                    for g in written.gprs().iter() {
                        held[usize::from(g.hw())] = None;
                    }
                    if let Some((dst, source)) = copied {
                        held[usize::from(dst.hw())] = source;
                    }
                }
            }
        }
    };
    let mut entry_state: EntryCopies = [None; 16];
    for register in crate::x86::abi::ARGUMENT_REGISTERS {
        entry_state[usize::from(register.hw())] = Some(register);
    }
    let n = blocks.len();
    let mut outs: Vec<Option<EntryCopies>> = vec![None; n];
    let entry_of = |b: usize, outs: &[Option<EntryCopies>]| -> EntryCopies {
        if b == 0 {
            return entry_state;
        }
        let mut known = preds[b].iter().filter_map(|&p| outs[p].as_ref());
        let Some(first) = known.next() else {
            return [None; 16];
        };
        let mut state = *first;
        for other in known {
            for (mine, theirs) in state.iter_mut().zip(other) {
                if mine != theirs {
                    *mine = None;
                }
            }
        }
        state
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order {
            let mut held = entry_of(b, &outs);
            transfer(b, &mut held, &mut steps[b], false);
            if outs[b] != Some(held) {
                outs[b] = Some(held);
                changed = true;
            }
        }
    }
    let mut entries = Vec::with_capacity(n);
    for (b, block_steps) in steps.iter_mut().enumerate() {
        let mut held = entry_of(b, &outs);
        entries.push(held);
        transfer(b, &mut held, block_steps, true);
    }
    entries
}

/// The location debug value `d` opens (`None`: unavailable).
fn open_of(input: &HistoryInput, d: &DbgValue) -> Option<Rc<Open>> {
    let (location, registers) = location_of(input, d)?;
    Some(Rc::new(Open {
        location,
        register_set: RegSet::of(&registers),
        registers,
        spill_slots: d
            .operands
            .iter()
            .filter_map(|o| match o {
                DbgOperand::SpillSlot(slot, _) => Some(*slot),
                _ => None,
            })
            .collect(),
        entry_register: None,
    }))
}

/// Variables with a declare: a frame-slot location for the whole function.
fn declared_variables(input: &HistoryInput) -> FxHashMap<u32, Location> {
    let mut out = FxHashMap::default();
    for block in &input.mir.blocks {
        for inst in &block.insts {
            if let InstKind::DbgValue(d) = &inst.kind {
                if d.indirect
                    && matches!(
                        d.operands.as_slice(),
                        [DbgOperand::StackSlot(_) | DbgOperand::IncomingArg(_)]
                    )
                {
                    if let Some((location, _)) = location_of(input, d) {
                        out.entry(d.variable).or_insert(location);
                    }
                }
            }
        }
    }
    out
}

/// The state entering block `b`: what all visited predecessors agree on.
/// A location every path holds, with an entry value on some paths only,
/// keeps the entry value its register holds on entry to `b` on every path
/// (`entry_copies`), as a debug value opening it there would.
fn block_entry(
    input: &HistoryInput,
    b: usize,
    preds: &[usize],
    outs: &[Option<State>],
    entry_copies: &EntryCopies,
) -> State {
    if b == 0 {
        return Vec::new();
    }
    let mut known = preds.iter().filter_map(|&p| outs[p].as_ref());
    let Some(first) = known.next() else {
        return Vec::new();
    };
    let mut state = first.clone();
    for other in known {
        // Both are sorted by key: a merge.
        let mut rest = other.as_slice();
        state.retain_mut(|entry| {
            // Most keys are in both: a step, not a search.
            while rest.first().is_some_and(|(k, _)| *k < entry.0) {
                rest = &rest[1..];
            }
            let mut theirs = rest.iter().take_while(|(k, _)| *k == entry.0);
            if theirs.clone().any(|e| e == entry) {
                return true;
            }
            // In the same place on every path, but not the same entry value:
            // the entry value its register holds on every path here.
            if theirs
                .clone()
                .any(|(_, open)| open.location == entry.1.location)
            {
                let inlined = input.table.variables[entry.0 as usize].inlined_at.is_some();
                let entry_register = match entry.1.registers.as_slice() {
                    [PhysReg::Gpr(register)]
                        if !inlined && entry.1.location.ops == [Op::Arg(0)] =>
                    {
                        entry_copies[usize::from(register.hw())]
                    }
                    _ => None,
                };
                entry.1 = Rc::new(Open {
                    entry_register,
                    ..Open::clone(&entry.1)
                });
                return true;
            }
            // Held in different places, but the entry value on every path:
            // the entry value.
            let Some(register) = entry.1.entry_register else {
                return false;
            };
            if !theirs.any(|(_, open)| open.entry_register == Some(register)) {
                return false;
            }
            match entry_value(&entry.1) {
                Some(open) => {
                    entry.1 = Rc::new(open);
                    true
                }
                None => false,
            }
        });
    }
    state
}

/// What a state's open locations read: registers, and whether any spill
/// slot.
#[derive(Clone, Copy, Default)]
struct Reads {
    registers: RegSet,
    spill_slots: bool,
}

impl Reads {
    fn add(&mut self, open: &Open) {
        self.registers = self.registers.union(open.register_set);
        self.spill_slots |= !open.spill_slots.is_empty();
    }
}

/// What a walk of one block recorded, kept until [`stitch`] joins the
/// blocks' ranges in layout order.
#[derive(Default)]
struct BlockRanges {
    /// The ranges closed in the block, in walk order, each with its key
    /// number when its start is the block's entry (the location was open
    /// when the block began: its range may have begun in the previous one).
    closed: Vec<(VariableRange, Option<u32>)>,
    /// Per entry of the exit state, in its order: where its range starts,
    /// and whether that is the block's entry.
    open_starts: Vec<(u64, bool)>,
}

/// Joins the blocks' recorded ranges in layout order into `ranges`: a
/// location open at a block's end that the next block (in layout) starts
/// with continues into it as one range rather than two touching ones (to be
/// merged later); the rest of what is open ends with the block.
fn stitch(
    input: &HistoryInput,
    recorded: &mut [BlockRanges],
    exits: &[Option<State>],
    entries: &[State],
    ranges: &mut Vec<VariableRange>,
) {
    let table = input.table;
    // By key number: the block an entry open at the end of the one before
    // it continues into, with the offset its range starts at.
    let mut carried: Vec<(usize, u64)> = vec![(usize::MAX, 0); table.variables.len()];
    for (b, block) in recorded.iter_mut().enumerate() {
        // Where the range of key `k`, open since block `b`'s entry, starts.
        let entry_start =
            |carried: &[(usize, u64)], k: u32, block_start: u64| match carried[k as usize] {
                (into, start) if into == b => start,
                _ => block_start,
            };
        for (mut range, entry_key) in block.closed.drain(..) {
            if let Some(k) = entry_key {
                range.start = entry_start(&carried, k, range.start);
            }
            ranges.push(range);
        }
        let block_end = input
            .block_offsets
            .get(b + 1)
            .map_or(input.code_size, |&o| u64::from(o));
        // What the next block starts with carries on; the rest ends here.
        // (Both states are sorted by key: a merge.)
        let exit = exits[b].as_deref().unwrap_or_default();
        let next = entries.get(b + 1).map_or(&[][..], |next| next.as_slice());
        let mut at = 0;
        for ((k, open), &(start, from_entry)) in exit.iter().zip(&block.open_starts) {
            let start = if from_entry {
                entry_start(&carried, *k, start)
            } else {
                start
            };
            while next.get(at).is_some_and(|(other, _)| other < k) {
                at += 1;
            }
            let continues = next[at..]
                .iter()
                .take_while(|(other, _)| other == k)
                .any(|(_, o)| Rc::ptr_eq(o, open) || **o == **open);
            if continues {
                carried[*k as usize] = (b + 1, start);
            } else {
                ranges.push(VariableRange {
                    key: table.variables[*k as usize],
                    start,
                    end: block_end,
                    location: open.location.clone(),
                });
            }
        }
    }
}

/// What every walk of one function's blocks shares.
struct Walker<'a> {
    input: &'a HistoryInput<'a>,
    steps: &'a Steps,
    /// By variable-key number: whether it has a declare (its debug values
    /// change nothing).
    declared: &'a [bool],
    /// By variable-key number: the key numbers a debug value of it closes
    /// ([`DebugTable::overlapping_variables`]).
    overlapping: &'a [Vec<u32>],
    /// By variable-key number: the offset the open entry's range starts at
    /// (meaningful only while the key is open).
    starts: Vec<u64>,
    /// By variable-key number: whether `starts` holds the walked block's
    /// start because the entry was open when the block began (meaningful
    /// only while the key is open).
    entry_starts: Vec<bool>,
}

impl Walker<'_> {
    /// Walks block `b` from `state`, recording into `record` the ranges it
    /// closes and where those still open at its end start, and returns the
    /// state at its end.
    fn walk_block(&mut self, b: usize, mut state: State, record: &mut BlockRanges) -> State {
        let input = self.input;
        let table = input.table;
        let steps = &self.steps[b];
        let starts = &mut self.starts;
        let entry_starts = &mut self.entry_starts;
        let block_start = u64::from(input.block_offsets[b]);
        record.closed.clear();
        record.open_starts.clear();
        let closed = &mut record.closed;
        // The range of key `k`, open since `starts[k]`, ends at `end`.
        let close = |closed: &mut Vec<(VariableRange, Option<u32>)>,
                     starts: &[u64],
                     entry_starts: &[bool],
                     k: u32,
                     end: u64,
                     open: &Open| {
            closed.push((
                VariableRange {
                    key: table.variables[k as usize],
                    start: starts[k as usize],
                    end,
                    location: open.location.clone(),
                },
                entry_starts[k as usize].then_some(k),
            ));
        };
        // What the open locations read, for the common instruction that
        // overwrites none of it (a superset: closing may leave it larger).
        let mut reads = Reads::default();
        // Whether `reads` may hold what closed locations read.
        let mut reads_stale = false;
        for (k, open) in &state {
            starts[*k as usize] = block_start;
            entry_starts[*k as usize] = true;
            reads.add(open);
        }
        // The debug values of the function's opening (before its first located
        // instruction: frame setup and argument moves) hold from the first byte
        // when the registers they read were not written before them: those
        // registers hold the same values since entry (and no earlier debug value
        // of the same variable says otherwise). A register the setup copied an
        // untouched argument register into holds that register's entry value:
        // the variable is in the argument register from the first byte to the
        // debug value, and its entry value after its register is reused.
        let mut in_entry_setup = b == 0;
        let mut written_in_setup = RegSet::EMPTY;
        let mut seen_in_setup: Vec<u32> = Vec::new();
        let mut entry_copies: Vec<(Gpr, Gpr)> = Vec::new();
        let mut hint = 0;
        for (i, inst) in input.mir.blocks[b].insts.iter().enumerate() {
            let (offset, len) = input.inst_offsets[b][i];
            let (offset, end) = (u64::from(offset), u64::from(offset) + u64::from(len));
            match steps[i] {
                Step::Debug {
                    variable,
                    ref opened,
                    operand_registers,
                    moved,
                    entry_copy_of,
                } => {
                    let first_in_setup = in_entry_setup && {
                        let key = table.variables[variable as usize];
                        let first_of_variable = !seen_in_setup
                            .iter()
                            .any(|k| table.variables[*k as usize].overlaps(&key));
                        seen_in_setup.push(variable);
                        first_of_variable
                    };
                    let from_entry =
                        first_in_setup && operand_registers.0 & written_in_setup.0 == 0;
                    // The argument register this one is a setup copy of.
                    let copied_argument = match opened.as_ref().map(|o| o.registers.as_slice()) {
                        Some([PhysReg::Gpr(register)]) if first_in_setup && !from_entry => {
                            entry_copies
                                .iter()
                                .find(|(copy, _)| copy == register)
                                .map(|&(_, argument)| argument)
                        }
                        _ => None,
                    };
                    let offset = if from_entry { block_start } else { offset };
                    if self.declared[variable as usize] {
                        continue;
                    }
                    // A restatement of the open location (LiveDebugValues puts
                    // them at block starts) changes nothing.
                    // LiveDebugValues restates a block's locations in key
                    // order: the entry after the last restatement is
                    // tried before a search.
                    let first = match state.get(hint) {
                        Some((k, _))
                            if *k == variable && (hint == 0 || state[hint - 1].0 < variable) =>
                        {
                            hint
                        }
                        _ => state.partition_point(|(k, _)| *k < variable),
                    };
                    let restated = state[first..]
                        .iter()
                        .take_while(|(k, _)| *k == variable)
                        .any(|(_, open)| {
                            opened
                                .as_ref()
                                .is_some_and(|o| Rc::ptr_eq(o, open) || o.location == open.location)
                        });
                    if restated {
                        hint = first + 1;
                        continue;
                    }
                    // A moved value is still the entry value the open
                    // location was.
                    let inherited_entry = if moved {
                        state[first..]
                            .iter()
                            .take_while(|(k, _)| *k == variable)
                            .find_map(|(_, open)| open.entry_register)
                    } else {
                        None
                    };
                    // Closes the key and its overlapping fragments, in key
                    // order as a scan of the state would; what they read
                    // may stay in `reads` (a superset) until it matters.
                    // (Keys below `variable` closed first sat before `first`.)
                    let mut closed_below = 0;
                    for &k in &self.overlapping[variable as usize] {
                        let at = if k == variable {
                            first - closed_below
                        } else {
                            state.partition_point(|(other, _)| *other < k)
                        };
                        if state.get(at).is_some_and(|(other, _)| *other == k) {
                            let (_, open) = state.remove(at);
                            closed_below += usize::from(k < variable);
                            close(closed, starts, entry_starts, k, offset, &open);
                            reads_stale = true;
                        }
                    }
                    if let Some(opened) = opened {
                        let whole_value = opened.location.ops == [Op::Arg(0)];
                        // A variable of an inlined call never falls back to
                        // an entry value (as in LLVM): gdb 13 finds the
                        // physical frame's call site, but evaluates its
                        // DW_AT_call_value in the frame just outside the
                        // inlined one, which is the physical function's own
                        // frame, not its caller's. A call value in a
                        // callee-saved register then reads what the callee
                        // put there since (mimalloc's inlined
                        // mi_find_free_page showed `size` as the heap
                        // pointer in rbx, where mi_find_page's own
                        // size@entry was right).
                        let inlined = table.variables[variable as usize].inlined_at.is_some();
                        let entry_register = match opened.registers.as_slice() {
                            _ if inlined => None,
                            [PhysReg::Gpr(register)] if from_entry && whole_value => {
                                Some(*register)
                            }
                            _ if whole_value => {
                                copied_argument.or(inherited_entry).or(entry_copy_of)
                            }
                            _ => None,
                        };
                        if let (Some(argument), true) = (copied_argument, whole_value) {
                            if !written_in_setup.contains(PhysReg::Gpr(argument)) {
                                closed.push((
                                    VariableRange {
                                        key: table.variables[variable as usize],
                                        start: block_start,
                                        end: offset,
                                        location: in_other_register(&opened.location, argument),
                                    },
                                    None,
                                ));
                            }
                        }
                        let open = match entry_register {
                            None => Rc::clone(opened),
                            Some(_) => Rc::new(Open {
                                entry_register,
                                ..Open::clone(opened)
                            }),
                        };
                        reads.add(&open);
                        state.insert(first - closed_below, (variable, open));
                        starts[variable as usize] = offset;
                        entry_starts[variable as usize] = false;
                    }
                }
                Step::Other { written, stored } => {
                    let kind = &inst.kind;
                    // (The instruction itself is read only while in the
                    // setup, or when it overwrites what a location reads.)
                    if in_entry_setup {
                        in_entry_setup = inst.loc == 0 || is_frame_setup(kind);
                    }
                    if in_entry_setup {
                        entry_copies.retain(|(copy, _)| !written.contains(PhysReg::Gpr(*copy)));
                        if let InstKind::Copy {
                            dst: Reg::Phys(PhysReg::Gpr(copy)),
                            src: Reg::Phys(PhysReg::Gpr(source)),
                        } = kind
                        {
                            let argument = if written_in_setup.contains(PhysReg::Gpr(*source)) {
                                entry_copies
                                    .iter()
                                    .find(|(c, _)| c == source)
                                    .map(|&(_, argument)| argument)
                            } else {
                                Some(*source)
                            };
                            if let Some(argument) = argument {
                                entry_copies.push((*copy, argument));
                            }
                        }
                        written_in_setup = written_in_setup.union(written);
                    }
                    let touches = |reads: &Reads| {
                        written.0 & reads.registers.0 != 0 || stored.is_some() && reads.spill_slots
                    };
                    if !touches(&reads) {
                        continue;
                    }
                    if reads_stale {
                        reads = Reads::default();
                        for (_, open) in &state {
                            reads.add(open);
                        }
                        reads_stale = false;
                        if !touches(&reads) {
                            continue;
                        }
                    }
                    let survives = |open: &Open| {
                        open.register_set.0 & written.0 == 0
                            && !stored.is_some_and(|slot| open.spill_slots.contains(&slot))
                    };
                    // Locations an invertible update of their register leaves
                    // recoverable continue, rewritten, after the instruction.
                    let recovered: Vec<(u32, Open)> = state
                        .iter()
                        .filter(|(_, open)| !survives(open))
                        .filter_map(|(k, open)| {
                            Some((*k, undo_update(kind, open).or_else(|| entry_value(open))?))
                        })
                        .collect();
                    // Close what the instruction overwrote; what stays
                    // open is what `reads` holds again.
                    reads = Reads::default();
                    state.retain(|(k, open)| {
                        if survives(open) {
                            reads.add(open);
                            return true;
                        }
                        close(closed, starts, entry_starts, *k, end, open);
                        false
                    });
                    for (k, open) in recovered {
                        reads.add(&open);
                        let at = state.partition_point(|(other, _)| *other < k);
                        state.insert(at, (k, Rc::new(open)));
                        starts[k as usize] = end;
                        entry_starts[k as usize] = false;
                    }
                }
            }
        }
        record.open_starts.extend(
            state
                .iter()
                .map(|(k, _)| (starts[*k as usize], entry_starts[*k as usize])),
        );
        state
    }
}

/// Whether an instruction only sets up the frame (writes rsp or rbp alone).
fn is_frame_setup(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Push { .. }
            | InstKind::Copy {
                dst: Reg::Phys(PhysReg::Gpr(Gpr::Rbp)),
                src: Reg::Phys(PhysReg::Gpr(Gpr::Rsp)),
            }
            | InstKind::Alu {
                dst: Reg::Phys(PhysReg::Gpr(Gpr::Rsp)),
                ..
            }
    )
}

/// How many operations recovery may add to one location (each undone
/// update adds two or three; a loop would otherwise grow it without end).
const MAX_RECOVERED_OPS: usize = 12;

/// The location `open` has after `kind` overwrote one of its registers, when
/// the write can be undone: `r += x`, `r -= x` (x an immediate or another
/// register the location then also reads), `r = -r`, `r = !r`. The old
/// value is the new one with the inverse operation applied; a plain
/// register location becomes a computed value. `None` otherwise.
fn undo_update(kind: &InstKind, open: &Open) -> Option<Open> {
    let (dst, inverse): (PhysReg, Vec<InverseOperand>) = match kind {
        InstKind::Alu {
            op: op @ (AluOp::Add | AluOp::Sub),
            dst: Reg::Phys(dst),
            src,
            ..
        } => {
            let undo = if *op == AluOp::Add {
                Op::Minus
            } else {
                Op::Plus
            };
            let operand = match src {
                Rmi::Imm(c) => InverseOperand::Constant(i64::from(*c)),
                Rmi::Reg(Reg::Phys(other)) if other != dst => InverseOperand::Register(*other),
                _ => return None,
            };
            (*dst, vec![operand, InverseOperand::Op(undo)])
        }
        InstKind::Unary {
            op: UnaryOp::Neg,
            dst: Reg::Phys(dst),
            ..
        } => (*dst, vec![InverseOperand::Op(Op::Neg)]),
        InstKind::Unary {
            op: UnaryOp::Not,
            dst: Reg::Phys(dst),
            ..
        } => (*dst, vec![InverseOperand::Op(Op::Not)]),
        _ => return None,
    };
    // Only the one register may change, and nothing else may be lost.
    let written = written_registers(kind);
    if written.iter().any(|w| w != dst) || !open.spill_slots.is_empty() {
        return None;
    }
    let location = &open.location;
    let plain = location.ops == [Op::Arg(0)] && location.args.len() == 1;
    if !plain && !location.ops.contains(&Op::StackValue) {
        return None;
    }
    let k = location.args.iter().position(
        |a| matches!(a, LocationArg::Register { register, .. } if *register == dst.dwarf()),
    )?;
    let LocationArg::Register { bits, signed, .. } = location.args[k] else {
        return None;
    };
    let mut args = location.args.clone();
    let mut registers = open.registers.clone();
    let mut undo = Vec::new();
    for part in inverse {
        undo.push(match part {
            InverseOperand::Constant(c) => Op::Consts(c),
            InverseOperand::Register(other) => {
                let register = LocationArg::Register {
                    register: other.dwarf(),
                    bits,
                    signed,
                };
                let m = args.iter().position(|a| *a == register).unwrap_or_else(|| {
                    args.push(register);
                    args.len() - 1
                });
                if !registers.contains(&other) {
                    registers.push(other);
                }
                Op::Arg(m as u32)
            }
            InverseOperand::Op(op) => op,
        });
    }
    let mut ops = Vec::with_capacity(location.ops.len() + undo.len() + 1);
    for op in &location.ops {
        ops.push(*op);
        if *op == Op::Arg(k as u32) {
            ops.extend_from_slice(&undo);
        }
    }
    if plain {
        ops.push(Op::StackValue);
    }
    if ops.len() > MAX_RECOVERED_OPS + 4 {
        return None;
    }
    Some(Open {
        location: Location { args, ops },
        register_set: RegSet::of(&registers),
        registers,
        spill_slots: Vec::new(),
        entry_register: open.entry_register,
    })
}

/// The location of a variable that held its function-entry value in a
/// register now reused: that register's entry value (DW_OP_entry_value),
/// which no later write can change.
fn entry_value(open: &Open) -> Option<Open> {
    let register = open.entry_register?;
    Some(Open {
        location: Location {
            args: vec![LocationArg::EntryValue {
                register: register.dwarf(),
            }],
            ops: vec![Op::Arg(0), Op::StackValue],
        },
        registers: Vec::new(),
        register_set: RegSet::EMPTY,
        spill_slots: Vec::new(),
        entry_register: Some(register),
    })
}

/// `location`, a whole value in one register, in `register` instead.
fn in_other_register(location: &Location, register: Gpr) -> Location {
    let mut location = location.clone();
    if let [LocationArg::Register { register: r, .. }] = location.args.as_mut_slice() {
        *r = PhysReg::Gpr(register).dwarf();
    }
    location
}

/// One part of an undo sequence.
enum InverseOperand {
    Constant(i64),
    Register(PhysReg),
    Op(Op),
}

/// Physical registers an instruction writes (explicitly or implicitly).
fn written_registers(kind: &InstKind) -> RegSet {
    let mut out = kind.implicit_defs();
    kind.visit_regs(&mut |r, access| {
        if let (Reg::Phys(g), Access::Def | Access::UseDef) = (r, access) {
            out.insert(g);
        }
    });
    out
}

/// A value stored at a frame offset (from the CFA), read at its width:
/// the location's argument and the load that follows it.
fn stored_at(
    offset: i64,
    width: crate::codegen::mir::Width,
    args: &mut Vec<LocationArg>,
    after: &mut Vec<Vec<Op>>,
) {
    args.push(LocationArg::FrameSlot(offset));
    after.push(vec![match width.bytes() {
        8 => Op::Deref,
        bytes => Op::DerefSize(bytes as u8),
    }]);
}

/// The location a debug value gives its variable, and the registers it
/// reads; `None` when it is unavailable.
///
/// A float or double operand in a register is a
/// [`LocationArg::FloatRegister`] (read with a float base type; operations
/// after it work on its bits, as LLVM's DIExpression operations do); one
/// that is a constant or in a spill slot is its bits already.
fn location_of(input: &HistoryInput, d: &DbgValue) -> Option<(Location, Vec<PhysReg>)> {
    let expr = input.table.exprs.get(d.expr as usize)?;
    let mut args = Vec::with_capacity(d.operands.len());
    let mut registers = Vec::new();
    // Per operand: operations to insert after its `Arg`.
    let mut after: Vec<Vec<Op>> = Vec::with_capacity(d.operands.len());
    let mut is_value = false;
    let mut is_spilled = false;
    for (n, operand) in d.operands.iter().enumerate() {
        let ty = expr.args.get(n).copied().unwrap_or(ArgType {
            bits: 64,
            signed: false,
            float: false,
        });
        match *operand {
            DbgOperand::Reg(Reg::Phys(g)) => {
                registers.push(g);
                args.push(if ty.float {
                    LocationArg::FloatRegister {
                        register: g.dwarf(),
                        bits: ty.bits,
                    }
                } else {
                    LocationArg::Register {
                        register: g.dwarf(),
                        bits: ty.bits.div_ceil(8) * 8,
                        signed: ty.signed,
                    }
                });
                after.push(Vec::new());
            }
            DbgOperand::Reg(Reg::Virt(_)) | DbgOperand::NoReg => return None,
            DbgOperand::Imm(value) => {
                args.push(LocationArg::Constant(value));
                after.push(Vec::new());
                is_value = true;
            }
            DbgOperand::StackSlot(slot) => {
                args.push(LocationArg::FrameSlot(
                    *input.slot_offsets.get(slot.0 as usize)?,
                ));
                after.push(Vec::new());
                is_value |= !d.indirect;
            }
            DbgOperand::IncomingArg(disp) => {
                // The incoming stack area starts at the CFA.
                args.push(LocationArg::FrameSlot(i64::from(disp)));
                after.push(Vec::new());
                is_value |= !d.indirect;
            }
            DbgOperand::IncomingValue(disp, width) => {
                // The incoming stack area starts at the CFA.
                stored_at(i64::from(disp), width, &mut args, &mut after);
                is_spilled = true;
            }
            DbgOperand::SpillSlot(slot, width) => {
                let offset = *input.slot_offsets.get(slot.0 as usize)?;
                stored_at(offset, width, &mut args, &mut after);
                is_spilled = true;
            }
        }
    }
    let plain = expr.ops == [Op::Arg(0)];
    let ops = if plain && is_spilled {
        // The value is in memory at the slot: a memory location.
        expr.ops.clone()
    } else {
        let mut ops = Vec::with_capacity(expr.ops.len() + 2);
        for op in &expr.ops {
            ops.push(*op);
            if let Op::Arg(n) = op {
                ops.extend_from_slice(after.get(*n as usize).map_or(&[][..], |v| v));
            }
        }
        if (is_value || is_spilled) && !ops.contains(&Op::StackValue) {
            ops.push(Op::StackValue);
        }
        let over_registers = args
            .iter()
            .all(|a| matches!(a, LocationArg::Register { .. }));
        if over_registers && !ops.contains(&Op::StackValue) && ops.last() == Some(&Op::Deref) {
            // A memory location over registers only (the variable lives at
            // the address they compute; a deref after a spill slot's `Arg`
            // is the load of the spilled pointer and stays): LLVM's
            // trailing DW_OP_deref of such
            // an expression is implicit, not a load (DwarfExpression makes
            // it a memory location). Kept, it would read the variable's
            // value and take that as its address.
            ops.pop();
            if let [Op::Arg(n)] = ops[..] {
                // Alone, a register argument would be a register location:
                // an offset of 0 keeps it the address (`DW_OP_bregN 0`).
                if matches!(args.get(n as usize), Some(LocationArg::Register { .. })) {
                    ops.push(Op::PlusUconst(0));
                }
            }
        }
        ops
    };
    let ops = exact_converts(&mut args, ops, &expr.args);
    if ops.is_empty() {
        return None;
    }
    registers.sort();
    registers.dedup();
    Some((Location { args, ops }, registers))
}

/// `ops` with every `DW_OP_LLVM_convert` exact in DWARF, as LLVM's are:
/// converts right after a constant argument (used once) are folded into it
/// (LLVM's `DIExpression::constantFold`: an `i1 true` converted to 1 bit
/// unsigned, then to 32, is the constant 1, not a sign-extended -1), and a
/// convert to a width that is no whole number of bytes cuts the value to
/// that width first (a DWARF base type is whole bytes, so `DW_OP_convert`
/// alone would keep bits 1..7 of an i1 and show `true` as 255): unsigned
/// by masking, signed by masking and sign-extending (`(x ^ s) - s`).
fn exact_converts(args: &mut [LocationArg], ops: Vec<Op>, types: &[ArgType]) -> Vec<Op> {
    let mut ops = ops;
    if let (Some(Op::Arg(n)), Some(LocationArg::Constant(value))) = (
        ops.first().copied(),
        ops.first().and_then(|op| match op {
            Op::Arg(n) => args.get(*n as usize).copied(),
            _ => None,
        }),
    ) {
        let uses = ops.iter().filter(|op| **op == Op::Arg(n)).count();
        let converts = ops[1..]
            .iter()
            .take_while(|op| matches!(op, Op::Convert { .. }))
            .count();
        if uses == 1 && converts > 0 {
            // The constant's own width: its bits above it mean nothing.
            let width = types.get(n as usize).map_or(64, |t| t.bits);
            let mut folded = cut(value, width, false);
            for op in &ops[1..=converts] {
                if let Op::Convert { bits, signed } = *op {
                    folded = cut(folded, bits, signed);
                }
            }
            args[n as usize] = LocationArg::Constant(folded);
            ops.drain(1..=converts);
        }
    }
    // A constant wider than the first register the expression reads gets
    // a convert to its own width: the lowering otherwise types a constant
    // as that register (csmith 205509: an i64 constant xor-ed with an i16
    // widened to 64 bits was cut to 16 and the variable showed -28465).
    let register_bits = args.iter().find_map(|arg| match arg {
        LocationArg::Register { bits, .. } => Some(*bits),
        _ => None,
    });
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        match op {
            Op::Arg(n) if matches!(args.get(n as usize), Some(LocationArg::Constant(_))) => {
                out.push(op);
                if let (Some(register_bits), Some(ty)) = (register_bits, types.get(n as usize)) {
                    if ty.bits > register_bits {
                        out.push(Op::Convert {
                            bits: ty.bits,
                            signed: ty.signed,
                        });
                    }
                }
            }
            Op::Convert { bits, signed } if bits < 64 && bits % 8 != 0 => {
                let mask = (1u64 << bits) - 1;
                out.extend([Op::Constu(mask), Op::And]);
                if signed {
                    let sign = 1u64 << (bits - 1);
                    out.extend([Op::Constu(sign), Op::Xor, Op::Constu(sign), Op::Minus]);
                }
                out.push(op);
            }
            _ => out.push(op),
        }
    }
    out
}

/// `value` cut to its low `bits` bits, read as signed or unsigned.
fn cut(value: i64, bits: u16, signed: bool) -> i64 {
    if bits == 0 || bits >= 64 {
        return value;
    }
    let shift = 64 - u32::from(bits);
    if signed {
        (value << shift) >> shift
    } else {
        ((value as u64) << shift >> shift) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::isel::DebugExpr;
    use crate::codegen::mir::{CallTarget, DbgOperands, Inst, Width};
    use crate::ir::{LocId, MdId};
    use crate::x86::abi::CALLER_SAVED;

    fn dbg(variable: u32, operand: DbgOperand, indirect: bool) -> InstKind {
        InstKind::DbgValue(DbgValue {
            variable,
            operands: DbgOperands::one(operand),
            expr: 0,
            indirect,
            moved: false,
        })
    }

    /// A debug value of `x` (variable 0): expression `expr` over `operand`.
    fn x_with_expr(operand: DbgOperand, expr: u32) -> InstKind {
        InstKind::DbgValue(DbgValue {
            variable: 0,
            operands: DbgOperands::one(operand),
            expr,
            indirect: false,
            moved: false,
        })
    }

    fn reg(g: Gpr) -> DbgOperand {
        DbgOperand::Reg(g.into())
    }

    fn mov(dst: Gpr, imm: i64) -> InstKind {
        InstKind::MovImm {
            dst: dst.into(),
            imm,
            width: Width::W32,
        }
    }

    /// Ranges of blocks of instructions; every real instruction is 2 bytes
    /// and located (so none counts as the function's unlocated opening).
    /// Variables: 0 = `x`, 1 = `y` bits 0..32, 2 = `y` bits 32..64,
    /// 3 = `y` whole, 4 = `p` of an inlined call.
    fn ranges(blocks: Vec<Vec<InstKind>>) -> Vec<(u32, u64, u64, String)> {
        ranges_with_stores(blocks, &[])
    }

    fn ranges_with_stores(
        blocks: Vec<Vec<InstKind>>,
        spill_stores: &[(usize, usize, StackSlotId)],
    ) -> Vec<(u32, u64, u64, String)> {
        ranges_after_opening(0, blocks, spill_stores)
    }

    /// [`ranges_with_stores`], where the first `opening` instructions of
    /// the first block have no source location (the function's setup).
    fn ranges_after_opening(
        opening: usize,
        blocks: Vec<Vec<InstKind>>,
        spill_stores: &[(usize, usize, StackSlotId)],
    ) -> Vec<(u32, u64, u64, String)> {
        let mut mir = Function::new("f");
        let mut offsets = Vec::new();
        let mut block_offsets = Vec::new();
        let mut at = 0u32;
        for insts in blocks {
            block_offsets.push(at);
            let mut block_offsets_of = Vec::new();
            let b = mir.new_block();
            for kind in insts {
                let len = if matches!(kind, InstKind::DbgValue(_)) {
                    0
                } else {
                    2
                };
                block_offsets_of.push((at, len));
                at += len;
                let insts = &mut mir.blocks[b.0 as usize].insts;
                let loc = u32::from(b.0 != 0 || insts.len() >= opening);
                insts.push(Inst::new(kind, loc));
            }
            offsets.push(block_offsets_of);
        }
        let key = |variable, fragment| VariableKey {
            variable: MdId(variable),
            inlined_at: None::<LocId>,
            fragment,
        };
        let mut table = DebugTable::default();
        table.intern_variable(key(10, None));
        table.intern_variable(key(11, Some((0, 32))));
        table.intern_variable(key(11, Some((32, 32))));
        table.intern_variable(key(11, None));
        // Variable 4: `p`, a parameter of a function inlined here.
        table.intern_variable(VariableKey {
            variable: MdId(12),
            inlined_at: Some(LocId(1)),
            fragment: None,
        });
        table.intern_expr(DebugExpr {
            ops: vec![Op::Arg(0)],
            args: vec![ArgType {
                bits: 32,
                signed: true,
                float: false,
            }],
        });
        // Expressions 1 and 2: a double plain, and under arithmetic.
        let double = ArgType {
            bits: 64,
            signed: false,
            float: true,
        };
        table.intern_expr(DebugExpr {
            ops: vec![Op::Arg(0)],
            args: vec![double],
        });
        table.intern_expr(DebugExpr {
            ops: vec![Op::Arg(0), Op::PlusUconst(1), Op::StackValue],
            args: vec![double],
        });
        // Expressions 3 and 4: in memory at a pointer (LLVM's trailing
        // DW_OP_deref), at the pointer plus 8.
        let pointer = ArgType {
            bits: 64,
            signed: false,
            float: false,
        };
        table.intern_expr(DebugExpr {
            ops: vec![Op::Arg(0), Op::Deref],
            args: vec![pointer],
        });
        table.intern_expr(DebugExpr {
            ops: vec![Op::Arg(0), Op::PlusUconst(8), Op::Deref],
            args: vec![pointer],
        });
        let input = HistoryInput {
            mir: &mir,
            inst_offsets: &offsets,
            block_offsets: &block_offsets,
            code_size: u64::from(at),
            slot_offsets: &[-24],
            spill_stores,
            table: &table,
        };
        variable_ranges(&input)
            .into_iter()
            .map(|r| {
                let arg = match r.location.args[0] {
                    LocationArg::Register { register, .. } => format!("reg{register}"),
                    LocationArg::FloatRegister { register, bits } => {
                        format!("f{bits}reg{register}")
                    }
                    LocationArg::FrameSlot(o) => format!("cfa{o}"),
                    LocationArg::Constant(c) => format!("const{c}"),
                    LocationArg::EntryValue { register } => format!("entry{register}"),
                };
                let ops: Vec<String> = r.location.ops.iter().map(|o| format!("{o:?}")).collect();
                let fragment = r.key.fragment.map_or(String::new(), |f| format!("{f:?}"));
                (
                    r.key.variable.0,
                    r.start,
                    r.end,
                    format!("{arg} {}{fragment}", ops.join(" ")),
                )
            })
            .collect()
    }

    #[test]
    fn a_double_in_an_xmm_register_is_a_float_register_plain_or_computed_with() {
        let xmm1 = DbgOperand::Reg(crate::x86::Xmm::new(1).into());
        let double = |expr| x_with_expr(xmm1, expr);
        let got = ranges(vec![vec![
            mov(Gpr::Rax, 1),
            double(1),
            mov(Gpr::Rax, 2),
            double(2), // integer arithmetic over the double's bits
            mov(Gpr::Rax, 3),
        ]]);
        assert_eq!(
            got,
            [
                (10, 2, 4, "f64reg18 Arg(0)".to_string()),
                (
                    10,
                    4,
                    6,
                    "f64reg18 Arg(0) PlusUconst(1) StackValue".to_string()
                )
            ]
        );
    }

    #[test]
    fn a_variable_in_memory_at_a_register_is_a_memory_location_not_a_load() {
        let at_rax = |expr| x_with_expr(reg(Gpr::Rax), expr);
        let got = ranges(vec![vec![
            mov(Gpr::Rcx, 1),
            at_rax(3),
            mov(Gpr::Rcx, 2),
            at_rax(4),
            mov(Gpr::Rax, 3), // the address is gone: the range ends after it
            mov(Gpr::Rcx, 4),
        ]]);
        assert_eq!(
            got,
            [
                (10, 2, 4, "reg0 Arg(0) PlusUconst(0)".to_string()),
                (10, 4, 6, "reg0 Arg(0) PlusUconst(8)".to_string())
            ]
        );
    }

    #[test]
    fn converts_fold_into_constants_and_cut_to_odd_widths() {
        let bit = |bits| ArgType {
            bits,
            signed: false,
            float: false,
        };
        let convert = |bits, signed| Op::Convert { bits, signed };
        // i1 true (-1) read as 1 bit unsigned, then 32: the constant 1.
        let mut args = [LocationArg::Constant(-1)];
        let ops = vec![
            Op::Arg(0),
            convert(1, false),
            convert(32, false),
            Op::StackValue,
        ];
        assert_eq!(
            exact_converts(&mut args, ops, &[bit(1)]),
            [Op::Arg(0), Op::StackValue]
        );
        assert_eq!(args, [LocationArg::Constant(1)]);
        // Read as 1 bit signed it is -1.
        let mut args = [LocationArg::Constant(1)];
        let ops = vec![Op::Arg(0), convert(1, true), Op::StackValue];
        exact_converts(&mut args, ops, &[bit(1)]);
        assert_eq!(args, [LocationArg::Constant(-1)]);
        // Over a register: masked (and sign-extended) before the convert.
        let mut args = [LocationArg::Register {
            register: 0,
            bits: 8,
            signed: false,
        }];
        let ops = vec![Op::Arg(0), convert(1, false), convert(3, true)];
        assert_eq!(
            exact_converts(&mut args, ops, &[bit(1)]),
            [
                Op::Arg(0),
                Op::Constu(1),
                Op::And,
                convert(1, false),
                Op::Constu(7),
                Op::And,
                Op::Constu(4),
                Op::Xor,
                Op::Constu(4),
                Op::Minus,
                convert(3, true)
            ]
        );
    }

    #[test]
    fn clobbers_calls_and_undefined_values_end_ranges() {
        let call = InstKind::Call {
            target: CallTarget::Symbol("g".into()),
            args: vec![],
            rets: vec![],
            clobbers: CALLER_SAVED,
            unwind: None,
        };
        let got = ranges(vec![vec![
            mov(Gpr::Rax, 1),
            dbg(0, reg(Gpr::Rax), false),
            mov(Gpr::Rcx, 2),
            mov(Gpr::Rax, 3), // clobbers x: the range ends after it
            dbg(0, reg(Gpr::Rbx), false),
            call, // rbx is callee-saved: x survives
            dbg(0, DbgOperand::Imm(7), false),
            mov(Gpr::Rdx, 4),
            dbg(0, DbgOperand::NoReg, false),
            mov(Gpr::Rdx, 5),
        ]]);
        assert_eq!(
            got,
            [
                (10, 2, 6, "reg0 Arg(0)".to_string()),
                (10, 6, 8, "reg3 Arg(0)".to_string()),
                (10, 8, 10, "const7 Arg(0) StackValue".to_string()),
            ]
        );
    }

    #[test]
    fn a_parameter_copied_in_the_setup_is_its_entry_value_when_lost() {
        let moved = |operand| {
            InstKind::DbgValue(DbgValue {
                variable: 0,
                operands: DbgOperands::one(operand),
                expr: 0,
                indirect: false,
                moved: true,
            })
        };
        let copy = |dst: Gpr, src: Gpr| InstKind::Copy {
            dst: dst.into(),
            src: src.into(),
        };
        // The setup copies x from rdi into rbx; x is in rdi until its debug
        // value, then in rbx, then (moved by LiveDebugValues) in rcx; when
        // rcx is reused, x is rdi's entry value.
        let got = ranges_after_opening(
            1,
            vec![vec![
                copy(Gpr::Rbx, Gpr::Rdi),
                dbg(0, reg(Gpr::Rbx), false),
                copy(Gpr::Rcx, Gpr::Rbx),
                mov(Gpr::Rbx, 1),
                moved(reg(Gpr::Rcx)),
                mov(Gpr::Rcx, 2),
                mov(Gpr::Rdx, 3),
            ]],
            &[],
        );
        assert_eq!(
            got,
            [
                (10, 0, 2, "reg5 Arg(0)".to_string()),
                (10, 2, 6, "reg3 Arg(0)".to_string()),
                (10, 6, 8, "reg2 Arg(0)".to_string()),
                (10, 8, 10, "entry5 Arg(0) StackValue".to_string()),
            ]
        );
    }

    #[test]
    fn only_the_physical_functions_variables_fall_back_to_entry_values() {
        // x and the inlined p both hold rdi's entry value; when rdi is
        // reused, x is rdi's entry value and p's range ends (gdb would
        // evaluate p's entry value in the wrong frame).
        let got = ranges_after_opening(
            2,
            vec![vec![
                dbg(0, reg(Gpr::Rdi), false),
                dbg(4, reg(Gpr::Rdi), false),
                mov(Gpr::Rax, 0),
                mov(Gpr::Rdi, 1),
                mov(Gpr::Rdx, 2),
            ]],
            &[],
        );
        assert_eq!(
            got,
            [
                (10, 0, 4, "reg5 Arg(0)".to_string()),
                (10, 4, 6, "entry5 Arg(0) StackValue".to_string()),
                (12, 0, 4, "reg5 Arg(0)".to_string()),
            ]
        );
    }

    #[test]
    fn a_value_in_a_copy_of_an_argument_falls_back_to_its_entry_value_anywhere() {
        use crate::codegen::mir::{BlockId, Cond};
        let copy = |dst: Gpr, src: Gpr| InstKind::Copy {
            dst: dst.into(),
            src: src.into(),
        };
        // bb0 copies rcx into r12 (and rdx into rbx, after rdx changed);
        // in bb2, after a join, x is r12 and the inlined p is rbx. When r12
        // is reused x is rcx's entry value; p, a copy of a changed rdx, ends.
        let got = ranges(vec![
            vec![
                copy(Gpr::R12, Gpr::Rcx),
                mov(Gpr::Rdx, 7),
                copy(Gpr::Rbx, Gpr::Rdx),
                InstKind::Jcc {
                    cond: Cond::E,
                    target: BlockId(2),
                },
            ],
            vec![mov(Gpr::Rax, 1)],
            vec![
                dbg(0, reg(Gpr::R12), false),
                dbg(4, reg(Gpr::Rbx), false),
                mov(Gpr::R12, 2),
                mov(Gpr::Rbx, 3),
                InstKind::Ret { uses: vec![] },
            ],
        ]);
        assert_eq!(
            got,
            [
                (10, 10, 12, "reg12 Arg(0)".to_string()),
                (10, 12, 16, "entry2 Arg(0) StackValue".to_string()),
                (12, 10, 14, "reg3 Arg(0)".to_string()),
            ]
        );
    }

    #[test]
    fn fragments_overlap_and_declares_cover_the_function() {
        let got = ranges(vec![vec![
            dbg(1, reg(Gpr::Rax), false),
            dbg(2, reg(Gpr::Rcx), false),
            mov(Gpr::Rdx, 1),
            dbg(3, reg(Gpr::Rsi), false), // the whole variable ends both pieces
            mov(Gpr::Rdx, 2),
            dbg(0, DbgOperand::StackSlot(StackSlotId(0)), true),
            mov(Gpr::Rdx, 3),
        ]]);
        assert_eq!(
            got,
            [
                (10, 0, 6, "cfa-24 Arg(0)".to_string()),
                (11, 2, 6, "reg4 Arg(0)".to_string()),
                (11, 0, 2, "reg0 Arg(0)(0, 32)".to_string()),
                (11, 0, 2, "reg2 Arg(0)(32, 32)".to_string()),
            ]
        );
    }

    #[test]
    fn locations_flow_into_blocks_where_all_predecessors_agree() {
        use crate::codegen::mir::{BlockId, Cond};
        // bb0: x in rbx, y in rsi; branch to bb2 or fall into bb1.
        // bb1: y moves to rdi. bb2 (join): x continues, y does not.
        let got = ranges(vec![
            vec![
                dbg(0, reg(Gpr::Rbx), false),
                dbg(3, reg(Gpr::Rsi), false),
                mov(Gpr::Rax, 0),
                InstKind::Jcc {
                    cond: Cond::E,
                    target: BlockId(2),
                },
            ],
            vec![dbg(3, reg(Gpr::Rdi), false), mov(Gpr::Rax, 1)],
            vec![mov(Gpr::Rax, 2), InstKind::Ret { uses: vec![] }],
        ]);
        assert_eq!(
            got,
            [
                (10, 0, 10, "reg3 Arg(0)".to_string()),
                (11, 0, 4, "reg4 Arg(0)".to_string()),
                (11, 4, 6, "reg5 Arg(0)".to_string()),
            ]
        );
    }

    #[test]
    fn a_place_every_path_holds_keeps_the_entry_value_every_path_holds() {
        use crate::codegen::mir::{BlockId, Cond};
        // x (from entry) in rdx; bb1 gives it a new value in rdx, bb2 keeps
        // the entry value. At bb3 both paths hold x in rdx, its entry value
        // on one only: x is in rdx until bb3 reuses it, and no entry value
        // after.
        let got = ranges_after_opening(
            1,
            vec![
                vec![
                    dbg(0, reg(Gpr::Rdx), false),
                    mov(Gpr::Rax, 0),
                    InstKind::Jcc {
                        cond: Cond::E,
                        target: BlockId(2),
                    },
                ],
                vec![
                    mov(Gpr::Rdx, 5),
                    dbg(0, reg(Gpr::Rdx), false),
                    InstKind::Jmp { target: BlockId(3) },
                ],
                vec![mov(Gpr::Rax, 1)],
                vec![
                    mov(Gpr::Rax, 2),
                    mov(Gpr::Rdx, 7),
                    InstKind::Ret { uses: vec![] },
                ],
            ],
            &[],
        );
        assert_eq!(got, [(10, 0, 14, "reg1 Arg(0)".to_string())]);
    }

    #[test]
    fn a_loop_whose_latch_reuses_a_parameters_register_keeps_its_entry_value() {
        use crate::codegen::mir::{BlockId, Cond};
        // bb0: x (from entry) in rdx; jump to the loop header bb2. bb1, the
        // latch laid out before its header, reuses rdx. At bb2 the entry
        // says rdx, the back edge rdx's entry value: both are the entry
        // value, which holds from bb1 on.
        let got = ranges_after_opening(
            1,
            vec![
                vec![
                    dbg(0, reg(Gpr::Rdx), false),
                    mov(Gpr::Rax, 0),
                    InstKind::Jmp { target: BlockId(2) },
                ],
                vec![mov(Gpr::Rdx, 1)],
                vec![
                    mov(Gpr::Rax, 2),
                    InstKind::Jcc {
                        cond: Cond::Ne,
                        target: BlockId(1),
                    },
                ],
                vec![InstKind::Ret { uses: vec![] }],
            ],
            &[],
        );
        assert_eq!(
            got,
            [
                (10, 0, 4, "reg1 Arg(0)".to_string()),
                (10, 4, 12, "entry1 Arg(0) StackValue".to_string()),
            ]
        );
    }

    #[test]
    fn a_store_into_its_spill_slot_ends_a_spilled_location() {
        let slot = StackSlotId(0);
        let got = ranges_with_stores(
            vec![vec![
                dbg(0, DbgOperand::SpillSlot(slot, Width::W64), false),
                mov(Gpr::Rax, 1),
                mov(Gpr::Rax, 2), // the spill store (by the list below)
                mov(Gpr::Rax, 3),
            ]],
            &[(0, 2, slot)],
        );
        assert_eq!(got, [(10, 0, 4, "cfa-24 Arg(0)".to_string())]);
    }
}
