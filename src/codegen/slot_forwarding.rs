//! Spill-slot forwarding, after register allocation (its step 4).
//!
//! In: an allocated MIR function with the spill code [`super::regalloc`]
//! inserted. Out: the same function with fewer stack accesses and copies.
//! Rules, in order:
//! 1. Forwarding: a reload of a general-purpose spill slot whose value a
//!    register still holds (stored from there or loaded there, neither
//!    changed since, on every path: a forward dataflow over the jumps,
//!    which may leave a block from its middle) becomes a copy from that
//!    register, or disappears when it is the same register; a slot read as
//!    an operand of an ALU instruction or compare reads the register
//!    instead, and a spill store of a register already holding the slot's
//!    value is deleted. A spill store that a second store to the slot
//!    overwrites in the same block before anything reads it is deleted. A
//!    spill store of a register holding a constant the block set (`mov
//!    $imm`) stores the constant instead, when it fits a sign-extended
//!    32-bit immediate.
//! 2. Store sinking: a spill store at the head of a block (nothing before
//!    it in the block jumps, writes its register or touches its slot)
//!    whose value the slot already holds on some incoming edge moves into
//!    the predecessors where it does not; each of those must lead to this
//!    block only. The usual case is a phi spilled to the slot its incoming
//!    values share: a loop's back edge carries the value unchanged (a
//!    reload into a register and a store back each iteration), other edges
//!    a new one.
//! 3. Dead definitions: a reload, a register copy or a whole-register
//!    constant whose destination is written or dead before anything reads
//!    it (a backward liveness of the physical registers) is deleted, until
//!    none is left; rules 1 and 2 leave the reloads that only fed a sunk
//!    store and the constants only stored.
//!
//! Debug values never decide anything (so code is the same with and
//! without them); they are mended where a rule changes what a location
//! holds: where rule 1 deletes an overwritten store, debug values between
//! that named the slot name the stored register while it holds the value,
//! and have no location after; where rule 2 moves a store up, debug values
//! above its old place that named the slot have no location; where rule 3
//! deletes a definition, debug values that named its destination while it
//! would have held the deleted value (a forward dataflow) name the slot
//! reloaded (the register copied, the constant) while that holds the value
//! on every path, and have no location elsewhere.
//!
//! Cost: rule 1's dataflow walks every block until the pairs at its jumps
//! stop changing (they only shrink), a few passes, copying no instruction
//! (one it rewrites is copied where the rewrite decides what follows), and
//! then rewrites each block once; rule 2 is linear; rule 3 recomputes
//! liveness once per pass that deletes something (few), and its dataflow
//! over the code without the deleted definitions reads the function as it
//! is, skipping them.

use super::liveness;
use super::mir::{
    Access, Address, AddressBase, BlockId, DbgOperand, Function, Gpr, Inst, InstKind, PhysReg, Reg,
    Ri, Rm, Rmi, StackSlotId, Width,
};
use crate::x86::regs::RegSet;
use std::borrow::Cow;

/// Applies the three rules to the allocated `f` (see the module doc).
pub(super) fn run(f: &mut Function) {
    let is_spill = f.spill_slot_mask();
    if !is_spill.contains(&true) {
        return;
    }
    let edges = forward_reloads(f, &is_spill);
    sink_spill_stores(f, &edges, &is_spill);
    while delete_dead_definitions(f, &is_spill) {}
}

/// The spill slot `addr` is the whole of, if any.
fn whole_spill_slot(addr: &Address, is_spill: &[bool]) -> Option<StackSlotId> {
    match addr {
        Address {
            base: AddressBase::Slot(s),
            index: None,
            disp: 0,
        } if is_spill[s.0 as usize] => Some(*s),
        _ => None,
    }
}

/// Rule 1: tracks which general-purpose registers hold each spill slot's
/// 64-bit value (after a spill store or a reload, until the register is
/// written or the slot written otherwise), and reads the register instead
/// of the slot: a reload into the same register is dropped, into another
/// becomes a copy, a slot operand of an ALU instruction or compare becomes
/// the register, a spill store of a register that already holds the
/// slot's value is dropped, and one of a register holding a constant the
/// block set stores the constant. A block starts with the pairs that hold at the
/// end of every predecessor (a forward dataflow to a fixed point; the entry
/// block and blocks without predecessors start knowing nothing). A spill
/// store overwritten by the next store to its slot in the same block, with
/// no read between, is deleted ([`describe_by_register`] mends the debug
/// values between). Debug instructions never decide anything (so code is
/// the same with and without them). Returns the pairs each block carries
/// along each of its edges (`None` for a block never reached).
fn forward_reloads(f: &mut Function, is_spill: &[bool]) -> Vec<Option<EdgeHolders>> {
    let edges = reload_holders(f, is_spill, &[]);
    // The dataflow settled on `edges`: each block is rewritten once, from
    // what reaches it there (what its last walk in the dataflow saw).
    let predecessors = f.predecessor_lists();
    for b in 0..f.blocks.len() {
        let state = entry_state(b, &predecessors, &edges);
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let owned = insts.into_iter().map(Cow::Owned);
        let (code, _, _) = forward_in_block(owned, state, is_spill, &f.jump_tables, true);
        f.blocks[b].insts = code;
    }
    edges
}

/// The dataflow of [`forward_reloads`] over `f` as it would be without the
/// instructions `deleted` lists (per block, sorted by index), which is
/// never rewritten: the pairs each block carries along each of its edges
/// (`None` for a block never reached).
fn reload_holders(
    f: &Function,
    is_spill: &[bool],
    deleted: &[Vec<DeadDef>],
) -> Vec<Option<EdgeHolders>> {
    let n = f.blocks.len();
    let predecessors = f.predecessor_lists();
    // The pairs each block's jumps (and its fall-through) carry to their
    // targets, sorted; `None` is "not reached yet" (every pair holds).
    let mut edges: Vec<Option<EdgeHolders>> = vec![None; n];
    // A worklist over blocks: a block runs again when what reaches it
    // shrank.
    let mut worklist: Vec<usize> = (0..n).rev().collect();
    let mut queued = vec![true; n];
    while let Some(b) = worklist.pop() {
        queued[b] = false;
        let state = entry_state(b, &predecessors, &edges);
        let gone = deleted.get(b).map_or(&[][..], Vec::as_slice);
        let insts = f.blocks[b]
            .insts
            .iter()
            .enumerate()
            .filter(|(i, _)| gone.binary_search_by_key(i, |d| d.0).is_err())
            .map(|(_, inst)| Cow::Borrowed(inst));
        let (_, mut out, end) = forward_in_block(insts, state, is_spill, &f.jump_tables, false);
        if let (Some(end), true) = (end, b + 1 < n) {
            out.push((BlockId(b as u32 + 1), end));
        }
        for (_, state) in &mut out {
            state.sort_unstable();
        }
        if edges[b].as_ref() != Some(&out) {
            for (to, _) in &out {
                let t = to.0 as usize;
                if !queued[t] {
                    queued[t] = true;
                    worklist.push(t);
                }
            }
            edges[b] = Some(out);
        }
    }
    edges
}

/// The pairs that hold on entry to block `b`: those every reached
/// predecessor carries along its edges to `b` (nothing for the entry block
/// and blocks without predecessors).
fn entry_state(
    b: usize,
    predecessors: &[Vec<usize>],
    edges: &[Option<EdgeHolders>],
) -> SlotHolders {
    if b == 0 || predecessors[b].is_empty() {
        return Vec::new();
    }
    let mut reached = predecessors[b]
        .iter()
        .filter_map(|&p| edges[p].as_ref())
        .flatten()
        .filter(|(to, _)| to.0 as usize == b)
        .map(|(_, state)| state);
    let Some(first) = reached.next() else {
        return Vec::new();
    };
    let mut meet = first.clone();
    for other in reached {
        meet.retain(|h| other.contains(h));
    }
    meet
}

/// Pairs of a spill slot and a register holding its value (the first pair
/// of a slot names the register its reloads read).
type SlotHolders = Vec<(StackSlotId, Gpr)>;

/// The pairs a block carries along its edges: each target with the pairs
/// holding when control leaves for it.
type EdgeHolders = Vec<(BlockId, SlotHolders)>;

/// [`forward_reloads`] over one block's instructions, starting from the
/// pairs known on entry; returns the new instructions (with `emit`; none
/// without: the dataflow's walks copy no instruction, and rewrite one only
/// where the rewrite decides what follows), the pairs known at each jump (a
/// block may jump from its middle) with its target, and those known at the
/// end if control falls through to the next block.
fn forward_in_block<'i>(
    insts: impl Iterator<Item = Cow<'i, Inst>>,
    mut holds: SlotHolders,
    is_spill: &[bool],
    jump_tables: &[Vec<BlockId>],
    emit: bool,
) -> (Vec<Inst>, EdgeHolders, Option<SlotHolders>) {
    let spill_slot = |addr: &Address| whole_spill_slot(addr, is_spill);
    let gpr = |r: Reg| match r {
        Reg::Phys(PhysReg::Gpr(g)) => Some(g),
        _ => None,
    };
    // Spill stores nothing has read yet: (slot, index in `out`, register
    // stored); and the indices of stores found dead.
    let mut unread: Vec<(StackSlotId, usize, Gpr)> = Vec::new();
    // Registers holding a constant set in this block, with its 64-bit value.
    let mut constants: Vec<(Gpr, i64)> = Vec::new();
    let mut dead: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut jumps: EdgeHolders = Vec::new();
    let mut falls_through = true;
    for mut inst in insts {
        if inst.is_debug() {
            if emit {
                out.push(inst.into_owned());
            }
            continue;
        }
        falls_through = true;
        match &inst.kind {
            InstKind::Jcc { target, .. } => jumps.push((*target, holds.clone())),
            InstKind::Jmp { target } => {
                jumps.push((*target, holds.clone()));
                falls_through = false;
            }
            InstKind::JmpIndirect { table, .. } => {
                let targets = &jump_tables[table.0 as usize];
                jumps.extend(targets.iter().map(|&t| (t, holds.clone())));
                falls_through = false;
            }
            InstKind::Ret { .. } | InstKind::TailJump { .. } | InstKind::Ud2 => {
                falls_through = false
            }
            _ => {}
        }
        let held = |slot: StackSlotId, holds: &[(StackSlotId, Gpr)]| {
            holds.iter().find(|h| h.0 == slot).map(|h| h.1)
        };
        // What the instruction leaves in a slot's register, if it is a
        // spill store or reload.
        let mut now_holds: Option<(StackSlotId, Gpr)> = None;
        match &inst.kind {
            InstKind::Load {
                dst,
                addr,
                width: Width::W64,
            } => {
                if let (Some(slot), Some(d)) = (spill_slot(addr), gpr(*dst)) {
                    match held(slot, &holds) {
                        Some(g) if g == d => continue,
                        Some(g) => {
                            let dst = *dst;
                            inst.to_mut().kind = InstKind::Copy { dst, src: g.into() }
                        }
                        None => {}
                    }
                    now_holds = Some((slot, d));
                }
            }
            InstKind::Store {
                src: Ri::Reg(src),
                addr,
                width: Width::W64,
            } => {
                if let (Some(slot), Some(g)) = (spill_slot(addr), gpr(*src)) {
                    if holds.contains(&(slot, g)) {
                        // The slot already holds this register's value.
                        continue;
                    }
                    // A known constant is stored as an immediate (the
                    // register may then be dead: rule 3).
                    if let Some(imm) = constants
                        .iter()
                        .find(|c| c.0 == g)
                        .and_then(|c| i32::try_from(c.1).ok())
                    {
                        let addr = addr.clone();
                        inst.to_mut().kind = InstKind::Store {
                            src: Ri::Imm(imm),
                            addr,
                            width: Width::W64,
                        };
                    }
                    holds.retain(|h| h.0 != slot);
                    holds.push((slot, g));
                    if let Some(p) = unread.iter().position(|u| u.0 == slot) {
                        let (_, index, stored) = unread.swap_remove(p);
                        dead.push(index);
                        if emit {
                            describe_by_register(&mut out[index + 1..], slot, stored);
                        }
                    }
                    unread.push((slot, out.len(), g));
                    if emit {
                        out.push(inst.into_owned());
                    }
                    continue;
                }
            }
            InstKind::Alu {
                src: Rmi::Mem(addr),
                ..
            }
            | InstKind::Cmp {
                rhs: Rmi::Mem(addr),
                ..
            } => {
                if let Some(g) = spill_slot(addr).and_then(|slot| held(slot, &holds)) {
                    if let InstKind::Alu { src, .. } | InstKind::Cmp { rhs: src, .. } =
                        &mut inst.to_mut().kind
                    {
                        *src = Rmi::Reg(g.into());
                    }
                }
            }
            InstKind::Cmp {
                lhs: Rm::Mem(addr), ..
            } => {
                if let Some(g) = spill_slot(addr).and_then(|slot| held(slot, &holds)) {
                    if let InstKind::Cmp { lhs, .. } = &mut inst.to_mut().kind {
                        *lhs = Rm::Reg(g.into());
                    }
                }
            }
            _ => {}
        }
        // Anything else touching a spill slot may write it; anything
        // touching it reads it.
        inst.kind.visit_addresses(&mut |addr| {
            if let AddressBase::Slot(s) = addr.base {
                if now_holds.is_none_or(|h| h.0 != s) {
                    holds.retain(|h| h.0 != s);
                }
                unread.retain(|u| u.0 != s);
            }
        });
        let mut written = inst.kind.implicit_defs().gprs();
        inst.kind.visit_regs(&mut |r, access| {
            if let (Some(g), Access::Def | Access::UseDef) = (gpr(r), access) {
                written.insert(g);
            }
        });
        holds.retain(|h| !written.contains(h.1));
        constants.retain(|c| !written.contains(c.0));
        if let Some((Reg::Phys(PhysReg::Gpr(g)), DbgOperand::Imm(value))) =
            register_constant(&inst.kind)
        {
            constants.push((g, value));
        }
        // A reload leaves the slot as it was: its other holders stay.
        holds.extend(now_holds);
        if emit {
            out.push(inst.into_owned());
        }
    }
    dead.sort_unstable();
    let mut index = 0;
    out.retain(|_| {
        index += 1;
        dead.binary_search(&(index - 1)).is_err()
    });
    (out, jumps, falls_through.then_some(holds))
}

/// Debug values in `insts` (which follow a spill store of `stored` into
/// `slot` that is being deleted) that name `slot` name `stored` instead
/// while it keeps that value, and no location after it is written.
fn describe_by_register(insts: &mut [Inst], slot: StackSlotId, stored: Gpr) {
    let mut kept = true;
    for inst in insts {
        match &mut inst.kind {
            InstKind::DbgValue(dbg) => {
                for op in &mut dbg.operands {
                    if matches!(*op, DbgOperand::SpillSlot(s, _) if s == slot) {
                        *op = if kept {
                            DbgOperand::Reg(stored.into())
                        } else {
                            DbgOperand::NoReg
                        };
                    }
                }
            }
            kind => {
                kept &= !kind.implicit_defs().gprs().contains(stored);
                kind.visit_regs(&mut |r, access| {
                    if r == Reg::from(stored) && access != Access::Use {
                        kept = false;
                    }
                });
            }
        }
    }
}

/// The slot and register of a general-purpose spill store (`mov %g, slot`).
fn spill_store(kind: &InstKind, is_spill: &[bool]) -> Option<(StackSlotId, Gpr)> {
    match kind {
        InstKind::Store {
            src: Ri::Reg(Reg::Phys(PhysReg::Gpr(g))),
            addr,
            width: Width::W64,
        } => whole_spill_slot(addr, is_spill).map(|slot| (slot, *g)),
        _ => None,
    }
}

/// Whether block `p` leads to block `b` only, through jumps at its very end
/// (or by falling through), so that an instruction put before its jumps
/// runs exactly when control goes from `p` to `b`.
fn leads_only_to(f: &Function, p: usize, b: usize) -> bool {
    if p == b || f.successors(BlockId(p as u32)) != [BlockId(b as u32)] {
        return false;
    }
    let code: Vec<&Inst> = f.blocks[p].insts.iter().filter(|i| !i.is_debug()).collect();
    let first_jump = code.iter().position(|i| i.is_terminator());
    first_jump.is_none_or(|j| {
        code[j..]
            .iter()
            .all(|i| matches!(i.kind, InstKind::Jcc { .. } | InstKind::Jmp { .. }))
    })
}

/// A spill store rule 2 moves: its block and index there, its slot and
/// register, and the predecessors it moves into.
struct StoreMove {
    block: usize,
    index: usize,
    pair: (StackSlotId, Gpr),
    into: Vec<usize>,
}

/// Rule 2: moves spill stores at the head of a block, redundant on some
/// incoming edge (`edges` from [`forward_reloads`]), into the predecessors
/// where the slot does not hold the register's value yet.
fn sink_spill_stores(f: &mut Function, edges: &[Option<EdgeHolders>], is_spill: &[bool]) {
    let predecessors = f.predecessor_lists();
    // Whether every edge from `p` to `b` carries the pair.
    let holds = |p: usize, b: usize, pair: (StackSlotId, Gpr)| {
        edges[p].as_ref().is_none_or(|out| {
            out.iter()
                .filter(|(to, _)| to.0 as usize == b)
                .all(|(_, state)| state.contains(&pair))
        })
    };
    // Decided on the code as it came.
    let mut moves: Vec<StoreMove> = Vec::new();
    for (b, incoming) in predecessors.iter().enumerate().skip(1) {
        let mut written = RegSet::EMPTY;
        let mut touched: Vec<StackSlotId> = Vec::new();
        for (i, inst) in f.blocks[b].insts.iter().enumerate() {
            if inst.is_debug() {
                continue;
            }
            if inst.is_terminator() {
                break;
            }
            if let Some(pair @ (slot, g)) = spill_store(&inst.kind, is_spill) {
                if !written.contains(g) && !touched.contains(&slot) {
                    let (held, missing): (Vec<usize>, Vec<usize>) =
                        incoming.iter().partition(|&&p| holds(p, b, pair));
                    if !held.is_empty()
                        && !missing.is_empty()
                        && missing.iter().all(|&p| leads_only_to(f, p, b))
                    {
                        moves.push(StoreMove {
                            block: b,
                            index: i,
                            pair,
                            into: missing,
                        });
                    }
                }
            }
            touched.extend(inst.kind.slots_addressed());
            written = written.union(liveness::physical_accesses(&inst.kind).1);
        }
    }
    // Deleting from the back keeps the earlier indices of a block valid.
    for StoreMove {
        block: b,
        index: i,
        pair: (slot, g),
        into,
    } in moves.into_iter().rev()
    {
        f.blocks[b].insts.remove(i);
        for inst in &mut f.blocks[b].insts[..i] {
            if let InstKind::DbgValue(dbg) = &mut inst.kind {
                for op in &mut dbg.operands {
                    if matches!(*op, DbgOperand::SpillSlot(s, _) if s == slot) {
                        *op = DbgOperand::NoReg;
                    }
                }
            }
        }
        for p in into {
            f.blocks[p].insert_before_jumps(InstKind::Store {
                src: Ri::Reg(g.into()),
                addr: Address::slot(slot, 0),
                width: Width::W64,
            });
        }
    }
}

/// Where the value a deleted definition would have put in a register can
/// still be read: the slot it reloaded, the register it copied or the
/// constant, while that is unchanged on every path; `None` when nowhere.
type Stand = Option<DbgOperand>;

/// A definition rule 3 deletes: its index in its block, its destination,
/// and where its value can be read instead ([`dead_candidate`]).
type DeadDef = (usize, PhysReg, DbgOperand);

/// Rule 3, one pass: deletes reloads, copies and constants into registers
/// that are dead after them, and mends the debug values that named those
/// registers (see the module doc). Returns whether anything was deleted.
fn delete_dead_definitions(f: &mut Function, is_spill: &[bool]) -> bool {
    let live = liveness::physical(f);
    // The deleted instructions of each block, in order.
    let mut dead: Vec<Vec<DeadDef>> = vec![Vec::new(); f.blocks.len()];
    let mut any = false;
    for (b, block) in f.blocks.iter().enumerate() {
        let mut live_now = live.live_out[b];
        for (i, inst) in block.insts.iter().enumerate().rev() {
            if inst.is_debug() {
                continue;
            }
            if let Some((dst, stand)) = dead_candidate(&inst.kind, is_spill) {
                if !live_now.contains(dst) {
                    dead[b].push((i, dst, stand));
                    any = true;
                    continue;
                }
            }
            let (uses, defs) = liveness::physical_accesses(&inst.kind);
            live_now = RegSet(live_now.0 & !defs.0).union(uses);
        }
        dead[b].reverse();
    }
    if !any {
        return false;
    }
    let holders = reload_holders(f, is_spill, &dead);
    mend_debug_values(f, &dead, &holders);
    for (block, dead) in f.blocks.iter_mut().zip(&dead) {
        let mut index = 0;
        block.insts.retain(|_| {
            index += 1;
            dead.binary_search_by_key(&(index - 1), |d| d.0).is_err()
        });
    }
    true
}

/// The register a `mov $imm` of 32 or 64 bits writes whole, and the
/// 64-bit value it leaves there as a debug operand.
fn register_constant(kind: &InstKind) -> Option<(Reg, DbgOperand)> {
    match *kind {
        InstKind::MovImm {
            dst,
            imm,
            width: Width::W32,
        } => Some((dst, DbgOperand::Imm(i64::from(imm as u32)))),
        InstKind::MovImm {
            dst,
            imm,
            width: Width::W64,
        } => Some((dst, DbgOperand::Imm(imm))),
        _ => None,
    }
}

/// A definition rule 3 may delete when its destination is dead: a reload
/// of a whole general-purpose spill slot, a copy between registers or a
/// constant written whole (not into the stack or frame pointer), with
/// where its value can be read instead.
fn dead_candidate(kind: &InstKind, is_spill: &[bool]) -> Option<(PhysReg, DbgOperand)> {
    let (dst, stand) = match kind {
        InstKind::Load {
            dst: Reg::Phys(dst),
            addr,
            width: Width::W64,
        } => (
            *dst,
            DbgOperand::SpillSlot(whole_spill_slot(addr, is_spill)?, Width::W64),
        ),
        InstKind::Copy {
            dst: Reg::Phys(dst),
            src: src @ Reg::Phys(_),
        } => (*dst, DbgOperand::Reg(*src)),
        InstKind::MovImm { .. } => match register_constant(kind)? {
            (Reg::Phys(dst), value) => (dst, value),
            _ => return None,
        },
        _ => return None,
    };
    let frame = [PhysReg::Gpr(Gpr::Rsp), PhysReg::Gpr(Gpr::Rbp)];
    (!frame.contains(&dst)).then_some((dst, stand))
}

/// Rewrites the debug values of `f` that name a register where it would
/// have held the value of a definition in `dead` (per block): a
/// forward dataflow of such registers, each with where the value still is.
/// `holders` are [`forward_reloads`]'s pairs for the code without them:
/// where a register kept its value on some incoming edges and lost it on
/// others, a slot that holds the value on all of them stands for it.
fn mend_debug_values(f: &mut Function, dead: &[Vec<DeadDef>], holders: &[Option<EdgeHolders>]) {
    let n = f.blocks.len();
    let successors = f.successor_lists();
    let predecessors = f.predecessor_lists();
    // Each block's state at its end; `None` until the block is walked.
    let mut exits: Vec<Option<Vec<(PhysReg, Stand)>>> = vec![None; n];
    // Whether every edge from `p` to `b` leaves `slot` holding `reg`'s
    // value, in the code without the dead definitions.
    let slot_holds = |p: usize, b: usize, slot: StackSlotId, reg: PhysReg| {
        let (Some(out), Some(g)) = (&holders[p], reg.gpr()) else {
            return false;
        };
        out.iter()
            .filter(|(to, _)| to.0 as usize == b)
            .all(|(_, state)| state.contains(&(slot, g)))
    };
    let entry = |b: usize, exits: &[Option<Vec<(PhysReg, Stand)>>]| {
        let reached: Vec<(usize, &Vec<(PhysReg, Stand)>)> = predecessors[b]
            .iter()
            .filter_map(|&p| exits[p].as_ref().map(|e| (p, e)))
            .collect();
        let mut state: Vec<(PhysReg, Stand)> = Vec::new();
        for &(reg, stand) in reached.iter().flat_map(|r| r.1) {
            if state.iter().any(|s| s.0 == reg) {
                continue;
            }
            // Where the register lost its value, the stand must agree;
            // where it kept it, a slot stand must hold the same value.
            let agreed = reached
                .iter()
                .all(|&(p, exit)| match exit.iter().find(|s| s.0 == reg) {
                    Some(other) => other.1 == stand,
                    None => matches!(stand, Some(DbgOperand::SpillSlot(slot, _))
                        if slot_holds(p, b, slot, reg)),
                });
            state.push((reg, if agreed { stand } else { None }));
        }
        state.sort_by_key(|s| s.0.index());
        state
    };
    let mut worklist: Vec<usize> = (0..n).rev().collect();
    let mut queued = vec![true; n];
    while let Some(b) = worklist.pop() {
        queued[b] = false;
        let mut state = entry(b, &exits);
        walk_block(&mut f.blocks[b].insts, &dead[b], &mut state, false);
        if exits[b].as_ref() != Some(&state) {
            exits[b] = Some(state);
            for &s in &successors[b] {
                if !queued[s] {
                    queued[s] = true;
                    worklist.push(s);
                }
            }
        }
    }
    for (b, dead) in dead.iter().enumerate() {
        let mut state = entry(b, &exits);
        walk_block(&mut f.blocks[b].insts, dead, &mut state, true);
    }
}

/// [`mend_debug_values`] through one block: updates `state` past each
/// instruction and, with `rewrite`, mends the debug values on the way.
fn walk_block(
    insts: &mut [Inst],
    dead: &[DeadDef],
    state: &mut Vec<(PhysReg, Stand)>,
    rewrite: bool,
) {
    let mut dead = dead.iter().peekable();
    for (i, inst) in insts.iter_mut().enumerate() {
        if let Some(&(_, dst, stand)) = dead.next_if(|d| d.0 == i) {
            // A copy of a register that itself lost its value stands where
            // that one's value does.
            let stand = match stand {
                DbgOperand::Reg(Reg::Phys(src)) => state
                    .iter()
                    .find(|s| s.0 == src)
                    .map_or(Some(stand), |s| s.1),
                _ => Some(stand),
            };
            state.retain(|s| s.0 != dst);
            state.push((dst, stand));
            state.sort_by_key(|s| s.0.index());
            continue;
        }
        if state.is_empty() {
            continue;
        }
        if let InstKind::DbgValue(dbg) = &mut inst.kind {
            if rewrite {
                for op in &mut dbg.operands {
                    if let DbgOperand::Reg(Reg::Phys(p)) = *op {
                        if let Some(&(_, stand)) = state.iter().find(|s| s.0 == p) {
                            *op = stand.unwrap_or(DbgOperand::NoReg);
                        }
                    }
                }
            }
            continue;
        }
        let slots = inst.kind.slots_addressed();
        let written_slot = |s: StackSlotId| match &inst.kind {
            InstKind::Load { .. } | InstKind::FpLoad { .. } | InstKind::VecLoad { .. } => false,
            _ => slots.contains(&s),
        };
        let (_, defs) = liveness::physical_accesses(&inst.kind);
        state.retain(|s| !defs.contains(s.0));
        for (_, stand) in state.iter_mut() {
            let gone = match *stand {
                Some(DbgOperand::Reg(Reg::Phys(p))) => defs.contains(p),
                Some(DbgOperand::SpillSlot(s, _)) => written_slot(s),
                _ => false,
            };
            if gone {
                *stand = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{AluOp, CallTarget, Cond, StackSlotKind};
    use crate::codegen::test_support::{dbg, mov, phys, ret};
    use crate::x86::abi::CALLER_SAVED;
    use expect_test::expect;

    /// Rule 1 alone.
    fn forward(f: &mut Function) {
        let is_spill = f.spill_slot_mask();
        forward_reloads(f, &is_spill);
    }

    fn load(dst: Gpr, slot: StackSlotId) -> InstKind {
        InstKind::Load {
            dst: phys(dst),
            addr: Address::slot(slot, 0),
            width: Width::W64,
        }
    }

    fn store(src: Gpr, slot: StackSlotId) -> InstKind {
        InstKind::Store {
            src: Ri::Reg(phys(src)),
            addr: Address::slot(slot, 0),
            width: Width::W64,
        }
    }

    fn set_blocks(f: &mut Function, blocks: Vec<Vec<InstKind>>) {
        for insts in blocks {
            let b = f.new_block();
            f.blocks[b.0 as usize].insts = insts.into_iter().map(|k| Inst::new(k, 0)).collect();
        }
    }

    #[test]
    fn a_store_the_back_edge_makes_redundant_moves_into_the_other_predecessor() {
        // bb1 reloads the slot into rdx for bb3, which stores rdx back: on
        // that edge the store is redundant. It moves into bb2 (which sets
        // rdx), and bb1's reload, now feeding nothing, goes. Debug values:
        // var1 named the slot above the store (the old value): no
        // location; var2 named rdx, which bb1 no longer loads, but the slot
        // holds the value on both edges: the slot. (bb0's constant is
        // stored as an immediate; bb3's rdx = 7 is never read and goes.)
        let mut f = Function::new("t");
        let s = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        let jump = |cond: Option<Cond>, to: u32| match cond {
            Some(cond) => InstKind::Jcc {
                cond,
                target: BlockId(to),
            },
            None => InstKind::Jmp {
                target: BlockId(to),
            },
        };
        let compare = InstKind::Cmp {
            width: Width::W64,
            lhs: Rm::Reg(phys(Gpr::Rax)),
            rhs: Rmi::Imm(0),
        };
        set_blocks(
            &mut f,
            vec![
                vec![
                    mov(phys(Gpr::Rcx), 1),
                    store(Gpr::Rcx, s),
                    compare.clone(),
                    jump(Some(Cond::E), 2),
                ],
                vec![load(Gpr::Rdx, s), jump(None, 3)],
                vec![mov(phys(Gpr::Rdx), 5)],
                vec![
                    dbg(1, vec![DbgOperand::SpillSlot(s, Width::W64)]),
                    dbg(2, vec![DbgOperand::Reg(phys(Gpr::Rdx))]),
                    store(Gpr::Rdx, s),
                    mov(phys(Gpr::Rdx), 7),
                    compare,
                    jump(Some(Cond::Ne), 1),
                ],
                vec![load(Gpr::Rax, s), ret()],
            ],
        );
        run(&mut f);
        expect![[r#"
            name: t
              %stack.0: size 8, align 8, spill
            bb.0:  ; succ bb.1, bb.2
              STORE64 [%stack.0], 1
              CMP64 $rax, 0
              JE bb.2
            bb.1:  ; succ bb.3
              JMP bb.3
            bb.2:  ; succ bb.3
              $rdx = MOV64 5
              STORE64 [%stack.0], $rdx
            bb.3:  ; succ bb.1, bb.4
              DBG_VALUE $noreg, !var1, !expr0
              DBG_VALUE %stack.0:64, !var2, !expr0
              CMP64 $rax, 0
              JNE bb.1
            bb.4:
              $rax = LOAD64 [%stack.0]
              RET $rax
        "#]]
        .assert_eq(&f.to_string());
    }

    #[test]
    fn a_constant_is_stored_as_an_immediate_and_its_dead_register_goes() {
        // r13 = 0 only to be stored: the store takes the immediate, the
        // mov goes, and var1 (r13) is the constant. rax = 2^32 - 1 (a
        // 32-bit mov) does not fit a sign-extended immediate: it stays.
        let mut f = Function::new("t");
        let s = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        let t = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        set_blocks(
            &mut f,
            vec![vec![
                mov(phys(Gpr::R13), 0),
                dbg(1, vec![DbgOperand::Reg(phys(Gpr::R13))]),
                store(Gpr::R13, s),
                InstKind::MovImm {
                    dst: phys(Gpr::Rax),
                    imm: -1,
                    width: Width::W32,
                },
                store(Gpr::Rax, t),
                ret(),
            ]],
        );
        run(&mut f);
        expect![[r#"
            name: t
              %stack.0: size 8, align 8, spill
              %stack.1: size 8, align 8, spill
            bb.0:
              DBG_VALUE 0, !var1, !expr0
              STORE64 [%stack.0], 0
              $rax = MOV32 -1
              STORE64 [%stack.1], $rax
              RET $rax
        "#]]
        .assert_eq(&f.to_string());
    }

    #[test]
    fn a_store_stays_where_a_predecessor_also_leads_elsewhere() {
        // bb0 may go to bb2 instead: a store at its end would overwrite the
        // slot bb2 reads, so bb1's store stays where it is.
        let mut f = Function::new("t");
        let s = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        set_blocks(
            &mut f,
            vec![
                vec![
                    store(Gpr::Rcx, s),
                    mov(phys(Gpr::Rdx), 5),
                    InstKind::Jcc {
                        cond: Cond::E,
                        target: BlockId(2),
                    },
                ],
                vec![
                    store(Gpr::Rdx, s),
                    InstKind::Jcc {
                        cond: Cond::E,
                        target: BlockId(1),
                    },
                ],
                vec![load(Gpr::Rax, s), ret()],
            ],
        );
        let before = f.to_string();
        run(&mut f);
        assert_eq!(f.to_string(), before);
    }

    #[test]
    fn dead_reloads_and_copies_go_and_debug_values_follow_the_value() {
        // rdx is reloaded and copied to rsi, both overwritten unread: both
        // go. var1 (rdx) reads the slot instead; var2 (rsi, a copy of the
        // lost rdx) too; var3 and var4 name them after a store changed the
        // slot: no location. rdi's reload is read: it stays. The constants
        // rdx and rsi get after are never read: they go too.
        let mut f = Function::new("t");
        let s = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        let t = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        set_blocks(
            &mut f,
            vec![vec![
                load(Gpr::Rdx, s),
                dbg(1, vec![DbgOperand::Reg(phys(Gpr::Rdx))]),
                InstKind::Copy {
                    dst: phys(Gpr::Rsi),
                    src: phys(Gpr::Rdx),
                },
                dbg(2, vec![DbgOperand::Reg(phys(Gpr::Rsi))]),
                load(Gpr::Rdi, t),
                store(Gpr::Rax, s),
                dbg(3, vec![DbgOperand::Reg(phys(Gpr::Rsi))]),
                dbg(4, vec![DbgOperand::Reg(phys(Gpr::Rdx))]),
                mov(phys(Gpr::Rdx), 1),
                mov(phys(Gpr::Rsi), 2),
                InstKind::Alu {
                    op: AluOp::Add,
                    width: Width::W64,
                    dst: phys(Gpr::Rax),
                    src: Rmi::Reg(phys(Gpr::Rdi)),
                },
                ret(),
            ]],
        );
        run(&mut f);
        expect![[r#"
            name: t
              %stack.0: size 8, align 8, spill
              %stack.1: size 8, align 8, spill
            bb.0:
              DBG_VALUE %stack.0:64, !var1, !expr0
              DBG_VALUE %stack.0:64, !var2, !expr0
              $rdi = LOAD64 [%stack.1]
              STORE64 [%stack.0], $rax
              DBG_VALUE $noreg, !var3, !expr0
              DBG_VALUE $noreg, !var4, !expr0
              $rax = ADD64 $rax, $rdi
              RET $rax
        "#]]
        .assert_eq(&f.to_string());
    }

    #[test]
    fn reloads_read_the_register_that_still_holds_the_slot() {
        let mut f = Function::new("t");
        let spill = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        let local = f.new_stack_slot(8, 8, StackSlotKind::Alloca);
        f.new_block();
        let load = |dst: Gpr, slot| InstKind::Load {
            dst: phys(dst),
            addr: Address::slot(slot, 0),
            width: Width::W64,
        };
        let store = |src: Gpr, slot| InstKind::Store {
            src: Ri::Reg(phys(src)),
            addr: Address::slot(slot, 0),
            width: Width::W64,
        };
        f.blocks[0].insts = [
            store(Gpr::Rax, spill),
            // Another register: a copy; the same register: nothing.
            load(Gpr::Rcx, spill),
            load(Gpr::Rax, spill),
            // A slot operand reads the register.
            InstKind::Alu {
                op: AluOp::Add,
                width: Width::W32,
                dst: phys(Gpr::Rdx),
                src: Rmi::Mem(Address::slot(spill, 0)),
            },
            InstKind::Cmp {
                width: Width::W64,
                lhs: Rm::Mem(Address::slot(spill, 0)),
                rhs: Rmi::Imm(8),
            },
            // rax changes; rcx still holds the slot.
            mov(phys(Gpr::Rax), 5),
            load(Gpr::Rsi, spill),
            // A call clobbers rcx and rsi: the slot is read again.
            InstKind::Call {
                target: CallTarget::Symbol("g".into()),
                args: vec![],
                rets: vec![],
                clobbers: CALLER_SAVED,
                unwind: None,
            },
            load(Gpr::Rsi, spill),
            // A new store: the slot now holds rbx.
            store(Gpr::Rbx, spill),
            load(Gpr::Rdi, spill),
            // Nothing reads the slot before the next store: the store of
            // rbx goes, and debug values naming the slot name rbx while it
            // holds the value.
            dbg(1, vec![DbgOperand::SpillSlot(spill, Width::W64)]),
            mov(phys(Gpr::Rbx), 3),
            dbg(2, vec![DbgOperand::SpillSlot(spill, Width::W64)]),
            store(Gpr::Rdx, spill),
            dbg(3, vec![DbgOperand::SpillSlot(spill, Width::W64)]),
            // Allocas are memory the program may reach: never forwarded.
            store(Gpr::Rbx, local),
            load(Gpr::Rdi, local),
            ret(),
        ]
        .into_iter()
        .map(|k| Inst::new(k, 0))
        .collect();
        forward(&mut f);
        expect![[r#"
            name: t
              %stack.0: size 8, align 8, spill
              %stack.1: size 8, align 8, alloca
            bb.0:
              STORE64 [%stack.0], $rax
              $rcx = COPY $rax
              $rdx = ADD32 $rdx, $rax
              CMP64 $rax, 8
              $rax = MOV64 5
              $rsi = COPY $rcx
              CALL @g, args(), rets()
              $rsi = LOAD64 [%stack.0]
              $rdi = COPY $rbx
              DBG_VALUE $rbx, !var1, !expr0
              $rbx = MOV64 3
              DBG_VALUE $noreg, !var2, !expr0
              STORE64 [%stack.0], $rdx
              DBG_VALUE %stack.0:64, !var3, !expr0
              STORE64 [%stack.1], $rbx
              $rdi = LOAD64 [%stack.1]
              RET $rax
        "#]]
        .assert_eq(&f.to_string());
    }

    #[test]
    fn slot_holders_cross_blocks_where_every_incoming_edge_agrees() {
        // bb0: rax -> slot; jcc bb2 from the middle, then rax changes and
        // rcx reloads the slot, falling into bb1. bb1 loops to itself and
        // is entered holding the slot in rcx both ways: its reload becomes
        // a copy and its store of rcx goes. bb2 is reached with rax from
        // the jump and rcx, rdx from bb1: no register agrees.
        let mut f = Function::new("t");
        let spill = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        for _ in 0..3 {
            f.new_block();
        }
        let load = |dst: Gpr| InstKind::Load {
            dst: phys(dst),
            addr: Address::slot(spill, 0),
            width: Width::W64,
        };
        let store = |src: Gpr| InstKind::Store {
            src: Ri::Reg(phys(src)),
            addr: Address::slot(spill, 0),
            width: Width::W64,
        };
        let jcc = |to: u32| InstKind::Jcc {
            cond: Cond::E,
            target: BlockId(to),
        };
        let blocks = [
            vec![
                store(Gpr::Rax),
                jcc(2),
                mov(phys(Gpr::Rax), 1),
                load(Gpr::Rcx),
            ],
            vec![
                load(Gpr::Rdx),
                store(Gpr::Rcx),
                InstKind::Cmp {
                    width: Width::W64,
                    lhs: Rm::Reg(phys(Gpr::Rdx)),
                    rhs: Rmi::Imm(0),
                },
                jcc(1),
            ],
            vec![load(Gpr::Rsi), ret()],
        ];
        for (block, insts) in f.blocks.iter_mut().zip(blocks) {
            block.insts = insts.into_iter().map(|k| Inst::new(k, 0)).collect();
        }
        forward(&mut f);
        expect![[r#"
            name: t
              %stack.0: size 8, align 8, spill
            bb.0:  ; succ bb.1, bb.2
              STORE64 [%stack.0], $rax
              JE bb.2
              $rax = MOV64 1
              $rcx = LOAD64 [%stack.0]
            bb.1:  ; succ bb.1, bb.2
              $rdx = COPY $rcx
              CMP64 $rdx, 0
              JE bb.1
            bb.2:
              $rsi = LOAD64 [%stack.0]
              RET $rax
        "#]]
        .assert_eq(&f.to_string());
    }
}
