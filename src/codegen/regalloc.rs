//! Linear-scan register allocation that carries debug values.
//!
//! In: a [`Function`] over virtual registers, with physical registers where
//! the ABI fixes them. Out: the same function over physical registers only,
//! with spill code for what did not fit, identity copies removed, and every
//! debug value rewritten; plus an [`Allocation`] summary (which
//! callee-saved registers the frame must save).
//!
//! The algorithm, per round:
//! 1. [`liveness::compute`] gives each virtual register its live ranges and
//!    each physical register its fixed ranges (explicit uses, call clobbers).
//! 2. Virtual registers are visited in order of their first point; each is
//!    given a register of its class ([`RegClass`]: general-purpose or xmm),
//!    and the classes never compete for a register. Each
//!    physical register keeps its occupancy: the disjoint ranges of its
//!    fixed uses and of the virtual registers given to it, so a value fits
//!    into another's lifetime holes. Among the registers free over all of a
//!    value's ranges a copy hint wins (the physical register, or the
//!    register of the virtual register it is copied from/to), else the first
//!    in the class's [`allocation_order`] (caller-saved first, so a
//!    callee-saved register is only used when needed; every xmm register is
//!    caller-saved, so a float live across a call is spilled). With none free, the values in the
//!    way on some register are evicted (spilled) if each costs less per
//!    point of life than this one (uses, weighted by loop depth), choosing
//!    the register whose evictees weigh least (an evicted value moves to
//!    another register with room for it, or is spilled); else this value
//!    is spilled.
//!    Spill temporaries are never spilled.
//! 3. A spilled register gets an 8-byte slot (a general-purpose register
//!    is saved whole with `mov`, a float or double with `movsd`). Spilled
//!    registers joined by a copy share one slot when their live ranges do
//!    not meet (hottest copies first), and the copy between them
//!    disappears: a phi's value and its incoming values stay in one place
//!    instead of moving slot to slot through a register. For the same
//!    reason a register whose only accesses are copies with spilled
//!    registers whose live ranges its own does not meet is spilled with
//!    them. Every
//!    instruction touching it reads it as a memory operand where x86
//!    allows, or through a temporary of its class loaded before and
//!    stored after; an access within [`REUSE_WINDOW`] instructions of the
//!    previous one in the block (no call between) uses the same temporary,
//!    which still holds the value, instead of reloading it. (If that leaves
//!    an instruction without registers, allocation restarts with one
//!    temporary per instruction.) Temporaries are never
//!    spilled. Another round allocates the rewritten code; rounds stop when
//!    nothing is spilled.
//!
//! 4. After the last round, [`slot_forwarding`] reads registers that still
//!    hold a spill slot's value instead of the slot, moves spill stores a
//!    back edge makes redundant into the other predecessors, and deletes
//!    reloads and copies nothing reads.
//! 5. Then a slot a loop only reads moves into a register the loop leaves
//!    free, loaded where the loop is entered ([`reload_hoist`]).
//!
//! Debug values are never seen by steps 1–5 (so code is byte-identical with
//! and without them); they stay at their positions and only their operands
//! naming virtual registers are rewritten:
//! - a spilled register becomes its slot ([`DbgOperand::SpillSlot`]) where
//!   it is live (the slot is written after every definition), `$noreg`
//!   elsewhere;
//! - otherwise it becomes its physical register wherever that register
//!   still holds its value: everywhere it is live, and after its last use
//!   (or a coalesced copy) until the physical register is written; `$noreg`
//!   elsewhere.
//!
//! (Step 5 has debug values that named the destination of a copy it deletes
//! name the hoisted register the copy read.)
//!
//! Cost: each round is linear in instructions plus a log factor per live
//! range; rounds are few (spill temporaries are tiny and never spill).

use super::liveness::{self, intersects, DebugPosition, Liveness, Range};
use super::loop_depth;
use super::mir::{
    Access, Address, BlockId, DbgOperand, FpSize, Function, Gpr, GprSet, Inst, InstKind, PhysReg,
    Reg, RegClass, Ri, Rm, Rmi, StackSlotId, StackSlotKind, VReg, Width,
};
use super::reload_hoist;
use super::slot_forwarding;
use crate::x86::abi::{allocation_order, CALLEE_SAVED};
use std::collections::BTreeMap;
use std::fmt;

/// What allocation did, for frame lowering and statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Callee-saved registers written by the function (rbp only when it is
    /// not the frame pointer): the prologue saves them and the epilogue
    /// restores them.
    pub callee_saved_used: GprSet,
    /// Virtual registers spilled to the stack.
    pub spilled: usize,
    /// Allocation rounds run (1 when nothing was spilled).
    pub rounds: usize,
}

/// Allocation failed: the code needs more simultaneously live registers
/// than exist (an instruction-selection bug, not bad user input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegallocError {
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for RegallocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "register allocation failed: {}", self.message)
    }
}

impl std::error::Error for RegallocError {}

/// Rounds after which allocation gives up (each round only spills
/// registers that were not spill temporaries, so this is never reached by
/// code with at most a few operands per instruction).
const MAX_ROUNDS: usize = 16;

/// Allocates registers for `f` in place.
///
/// Spill code first keeps a spilled value's temporary for the next few
/// instructions ([`REUSE_WINDOW`]); if that leaves some instruction
/// without enough registers, allocation starts again from `f` as it came,
/// with one temporary per instruction.
pub fn allocate(f: &mut Function) -> Result<Allocation, RegallocError> {
    let mut original = None;
    match allocate_with(f, REUSE_WINDOW, Some(&mut original)) {
        Ok(allocation) => Ok(allocation),
        Err(_) => {
            if let Some(original) = original {
                *f = original;
            }
            allocate_with(f, 0, None)
        }
    }
}

/// How many instructions after one access of a spilled value a later
/// access still uses the same temporary (no reload).
const REUSE_WINDOW: usize = 6;

/// [`allocate`] with spill temporaries reused over `window` instructions.
/// When `original` is given, `f` as it came is kept there before spill code
/// first changes it (most functions never spill, and are never copied).
fn allocate_with(
    f: &mut Function,
    window: usize,
    mut original: Option<&mut Option<Function>>,
) -> Result<Allocation, RegallocError> {
    let mut unspillable = vec![false; f.vregs.len()];
    let mut spill_count = 0;
    for round in 1..=MAX_ROUNDS {
        let live = liveness::compute(f);
        let outcome = scan(f, &live, &unspillable)?;
        let spilled: Vec<u32> = (0..f.vregs.len() as u32)
            .filter(|&v| outcome.spilled[v as usize])
            .collect();
        if spilled.is_empty() {
            place_debug_values(f, &live, &outcome.assignment);
            apply_assignment(f, &outcome.assignment);
            slot_forwarding::run(f);
            reload_hoist::run(f);
            return Ok(Allocation {
                callee_saved_used: callee_saved_written(f),
                spilled: spill_count,
                rounds: round,
            });
        }
        if let Some(original) = original.take() {
            *original = Some(f.clone());
        }
        let spilled = with_copies_of_spilled(f, &live, spilled, &unspillable);
        spill_count += spilled.len();
        // Scalar floats and doubles fit in 8 bytes as general-purpose
        // values do.
        let slot_of = spill_slots(f, &live, &spilled);
        let widths: Vec<Width> = f.vregs.iter().map(|i| i.width).collect();
        let positions = liveness::debug_positions(f);
        rewrite_debug(f, &live, &positions, &|v| {
            slot_of[v as usize].map(|s| DbgOperand::SpillSlot(s, widths[v as usize]))
        });
        insert_spill_code(f, &slot_of, window);
        unspillable.resize(f.vregs.len(), true);
    }
    Err(RegallocError {
        message: format!(
            "function `{}` still spills after {MAX_ROUNDS} rounds",
            f.name
        ),
    })
}

/// The result of one linear scan.
struct ScanOutcome {
    assignment: Vec<Option<PhysReg>>,
    spilled: Vec<bool>,
}

/// What occupies one physical register: its fixed ranges (sorted, from
/// liveness), and the disjoint ranges of the virtual registers given to it,
/// keyed by start with their end and owner.
struct Occupancy<'a> {
    fixed: &'a [Range],
    ranges: BTreeMap<u32, (u32, u32)>,
    /// No virtual register's range reaches this point or beyond: a value
    /// starting there only has the fixed ranges to fear.
    end: u32,
}

impl Occupancy<'_> {
    /// Whether `ranges` meet a fixed range of the register.
    fn meets_fixed(&self, ranges: &[Range]) -> bool {
        ranges
            .iter()
            .any(|r| intersects(self.fixed, r.start, r.end))
    }

    /// Calls `f(owner)` for every virtual register whose range meets one
    /// of `ranges`; stops and returns `false` as soon as `f` does.
    fn conflicts(&self, ranges: &[Range], f: &mut impl FnMut(u32) -> bool) -> bool {
        if ranges.first().is_none_or(|r| r.start >= self.end) {
            return true;
        }
        for r in ranges {
            for (_, &(end, owner)) in self.ranges.range(..r.end).rev() {
                if end <= r.start {
                    break;
                }
                if !f(owner) {
                    return false;
                }
            }
        }
        true
    }

    /// The last point before `start` at which the register held anything
    /// (0 if nothing): the allocator prefers the register idle longest, so a
    /// dead value stays readable in its register as long as possible.
    fn last_busy_before(&self, start: u32) -> u32 {
        let ended = self.fixed.partition_point(|r| r.end <= start);
        let fixed = ended.checked_sub(1).map_or(0, |i| self.fixed[i].end);
        let virtual_end = self
            .ranges
            .range(..start)
            .next_back()
            .map_or(0, |(_, &(end, _))| end.min(start));
        fixed.max(virtual_end)
    }

    fn is_free(&self, ranges: &[Range]) -> bool {
        !self.meets_fixed(ranges) && self.conflicts(ranges, &mut |_| false)
    }

    fn insert(&mut self, ranges: &[Range], owner: u32) {
        for r in ranges {
            self.ranges.insert(r.start, (r.end, owner));
            self.end = self.end.max(r.end);
        }
    }

    fn remove(&mut self, ranges: &[Range]) {
        for r in ranges {
            self.ranges.remove(&r.start);
        }
    }
}

fn scan(f: &Function, live: &Liveness, unspillable: &[bool]) -> Result<ScanOutcome, RegallocError> {
    let n = f.vregs.len();
    let ranges = &live.vreg_ranges;
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&v| !ranges[v as usize].is_empty())
        .collect();
    order.sort_by_key(|&v| (ranges[v as usize][0].start, v));
    let hints = copy_hints(f);
    let weights = use_weights(f);
    // Cost of keeping `v` in memory per point of its life, as a fraction.
    let density = |v: u32| {
        let r = &ranges[v as usize];
        let len: u32 = r.iter().map(|r| r.end - r.start).sum();
        (weights[v as usize], u64::from(len.max(1)))
    };
    let cheaper = |a: (u64, u64), b: (u64, u64)| a.0 * b.1 < b.0 * a.1;

    let mut occupancy: Vec<Occupancy> = live
        .fixed_ranges
        .iter()
        .map(|fixed| Occupancy {
            fixed,
            ranges: BTreeMap::new(),
            end: 0,
        })
        .collect();
    let mut assignment: Vec<Option<PhysReg>> = vec![None; n];
    let mut spilled = vec![false; n];
    let general_order = allocation_order(RegClass::General, f.omits_frame_pointer);
    let xmm_order = allocation_order(RegClass::Xmm, f.omits_frame_pointer);
    let callee_saved = |p: PhysReg| p.gpr().is_some_and(|g| CALLEE_SAVED.contains(g));
    for &vreg in &order {
        let mine = &ranges[vreg as usize];
        let class_order: &[PhysReg] = match f.vregs[vreg as usize].class {
            RegClass::General => &general_order,
            RegClass::Xmm => &xmm_order,
        };
        let fits = |g: PhysReg, occupancy: &[Occupancy]| occupancy[g.index()].is_free(mine);
        let hinted = hints[vreg as usize].iter().flatten().find_map(|hint| {
            let g = match *hint {
                Reg::Phys(g) => g,
                Reg::Virt(other) => assignment[other.0 as usize]?,
            };
            (class_order.contains(&g) && fits(g, &occupancy)).then_some(g)
        });
        let start = mine.first().map_or(0, |r| r.start);
        let chosen = hinted.or_else(|| {
            class_order
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, g)| fits(g, &occupancy))
                .min_by_key(|&(order, g)| {
                    let held = &occupancy[g.index()];
                    let unused_callee_saved = callee_saved(g) && held.ranges.is_empty();
                    (unused_callee_saved, held.last_busy_before(start), order)
                })
                .map(|(_, g)| g)
        });
        if let Some(g) = chosen {
            occupancy[g.index()].insert(mine, vreg);
            assignment[vreg as usize] = Some(g);
            continue;
        }
        // No register free: evict the intervals in the way where they are
        // all cheaper to keep in memory than this one, choosing the
        // register whose evictees weigh least; else spill this one.
        let current_spillable = !unspillable[vreg as usize];
        let mut best: Option<(PhysReg, Vec<u32>, u64)> = None;
        for &g in class_order {
            let occ = &occupancy[g.index()];
            if occ.meets_fixed(mine) {
                continue;
            }
            let mut evictees: Vec<u32> = Vec::new();
            let evictable = occ.conflicts(mine, &mut |owner| {
                if unspillable[owner as usize]
                    || (current_spillable && !cheaper(density(owner), density(vreg)))
                {
                    return false;
                }
                if !evictees.contains(&owner) {
                    evictees.push(owner);
                }
                true
            });
            if !evictable {
                continue;
            }
            let cost: u64 = evictees.iter().map(|&o| weights[o as usize]).sum();
            if best.as_ref().is_none_or(|b| cost < b.2) {
                best = Some((g, evictees, cost));
            }
        }
        match best {
            Some((g, evictees, _)) => {
                for &old in &evictees {
                    occupancy[g.index()].remove(&ranges[old as usize]);
                }
                occupancy[g.index()].insert(mine, vreg);
                assignment[vreg as usize] = Some(g);
                // An evicted value moves to another register with room for
                // it, if there is one; otherwise it is spilled.
                for old in evictees {
                    let theirs = &ranges[old as usize];
                    let moved = class_order
                        .iter()
                        .copied()
                        .find(|&h| occupancy[h.index()].is_free(theirs));
                    match moved {
                        Some(h) => {
                            occupancy[h.index()].insert(theirs, old);
                            assignment[old as usize] = Some(h);
                        }
                        None => {
                            spilled[old as usize] = true;
                            assignment[old as usize] = None;
                        }
                    }
                }
            }
            None if current_spillable => spilled[vreg as usize] = true,
            None => {
                return Err(RegallocError {
                    message: format!(
                        "no register left for spill temporary %{vreg} in `{}`",
                        f.name
                    ),
                })
            }
        }
    }
    Ok(ScanOutcome {
        assignment,
        spilled,
    })
}

/// How often each block is taken to run relative to straight-line code: 8
/// per enclosing natural loop ([`loop_depth::loop_depths`]), up to
/// [`MAX_WEIGHTED_DEPTH`] levels.
fn block_weights(f: &Function) -> Vec<u64> {
    loop_depth::loop_depths(f)
        .into_iter()
        .map(depth_weight)
        .collect()
}

/// The weight of a block `depth` loops deep ([`block_weights`]).
pub(super) fn depth_weight(depth: u32) -> u64 {
    8u64.pow(depth.min(MAX_WEIGHTED_DEPTH))
}

/// Loop depth beyond which a block weighs no more (8^6 per access keeps
/// every sum of weights far from overflowing).
const MAX_WEIGHTED_DEPTH: u32 = 6;

/// For each virtual register, how much its uses and definitions cost if it
/// lived in memory: 1 per access, times its block's [`block_weights`].
fn use_weights(f: &Function) -> Vec<u64> {
    let mut weights = vec![0u64; f.vregs.len()];
    for (block, weight) in f.blocks.iter().zip(block_weights(f)) {
        for inst in &block.insts {
            inst.kind.visit_regs(&mut |r, _| {
                if let Reg::Virt(v) = r {
                    weights[v.0 as usize] += weight;
                }
            });
        }
    }
    weights
}

/// `spilled` (sorted) and every other spillable virtual register whose
/// only accesses are copies from or to registers in `spilled` whose live
/// ranges its own do not meet: kept in a register it would only be loaded
/// from one slot and stored to another, spilled it shares their slot and
/// its copies disappear ([`spill_slots`]).
fn with_copies_of_spilled(
    f: &Function,
    live: &Liveness,
    spilled: Vec<u32>,
    unspillable: &[bool],
) -> Vec<u32> {
    let n = f.vregs.len();
    let mut is_spilled = vec![false; n];
    for &v in &spilled {
        is_spilled[v as usize] = true;
    }
    // Per register: only copies with spilled registers seen so far.
    let mut only_copies: Vec<bool> = (0..n)
        .map(|v| !is_spilled[v] && !unspillable[v] && !f.vregs[v].vector)
        .collect();
    let ranges = &live.vreg_ranges;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if inst.is_debug() {
            continue;
        }
        if let InstKind::Copy {
            dst: Reg::Virt(d),
            src: Reg::Virt(s),
        } = inst.kind
        {
            let (d, s) = (d.0 as usize, s.0 as usize);
            let apart = |a: usize, b: usize| {
                is_spilled[b]
                    && f.vregs[a].class == f.vregs[b].class
                    && !f.vregs[b].vector
                    && !ranges_meet(&ranges[a], &ranges[b])
            };
            if !apart(d, s) {
                only_copies[d] = false;
            }
            if !apart(s, d) {
                only_copies[s] = false;
            }
            continue;
        }
        inst.kind.visit_regs(&mut |r, _| {
            if let Reg::Virt(v) = r {
                only_copies[v.0 as usize] = false;
            }
        });
    }
    let mut all = spilled;
    all.extend(
        (0..n as u32).filter(|&v| only_copies[v as usize] && !ranges[v as usize].is_empty()),
    );
    all.sort_unstable();
    all
}

/// A stack slot for each register in `spilled` (indexed by virtual
/// register): 8 bytes, or 16 for a whole vector. Two spilled registers of
/// the same kind joined by a copy share a slot when no live range of one
/// group meets one of the other; copies are tried hottest first
/// ([`block_weights`]), so a loop's phi copies are the ones removed.
fn spill_slots(f: &mut Function, live: &Liveness, spilled: &[u32]) -> Vec<Option<StackSlotId>> {
    let n = f.vregs.len();
    let mut is_spilled = vec![false; n];
    for &v in spilled {
        is_spilled[v as usize] = true;
    }
    // Union-find over the spilled registers; a root keeps its group's
    // ranges, sorted and disjoint.
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let mut group_ranges: Vec<Vec<Range>> = vec![Vec::new(); n];
    for &v in spilled {
        group_ranges[v as usize] = live.vreg_ranges[v as usize].clone();
    }
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            let up = parent[parent[v as usize] as usize];
            parent[v as usize] = up;
            v = up;
        }
        v
    }
    let weights = block_weights(f);
    let mut copies: Vec<(u64, u32, u32)> = Vec::new();
    for (block, &weight) in f.blocks.iter().zip(&weights) {
        for inst in &block.insts {
            if let InstKind::Copy {
                dst: Reg::Virt(d),
                src: Reg::Virt(s),
            } = inst.kind
            {
                let (di, si) = (f.vregs[d.0 as usize], f.vregs[s.0 as usize]);
                if is_spilled[d.0 as usize]
                    && is_spilled[s.0 as usize]
                    && di.class == si.class
                    && di.vector == si.vector
                {
                    copies.push((weight, d.0, s.0));
                }
            }
        }
    }
    // Stable: equally hot copies keep their code order.
    copies.sort_by_key(|&(weight, _, _)| std::cmp::Reverse(weight));
    for (_, d, s) in copies {
        let (a, b) = (root(&mut parent, d), root(&mut parent, s));
        if a == b || ranges_meet(&group_ranges[a as usize], &group_ranges[b as usize]) {
            continue;
        }
        let theirs = std::mem::take(&mut group_ranges[b as usize]);
        let mut joined: Vec<Range> = group_ranges[a as usize]
            .iter()
            .chain(&theirs)
            .copied()
            .collect();
        joined.sort_unstable_by_key(|r| r.start);
        group_ranges[a as usize] = joined;
        parent[b as usize] = a;
    }
    let mut slot_of: Vec<Option<StackSlotId>> = vec![None; n];
    for &v in spilled {
        let r = root(&mut parent, v);
        let slot = match slot_of[r as usize] {
            Some(slot) => slot,
            None => {
                let size = if f.vregs[v as usize].vector { 16 } else { 8 };
                let slot = f.new_stack_slot(size, size, StackSlotKind::Spill);
                slot_of[r as usize] = Some(slot);
                slot
            }
        };
        slot_of[v as usize] = Some(slot);
    }
    slot_of
}

/// Whether two sorted lists of disjoint ranges share a point.
fn ranges_meet(a: &[Range], b: &[Range]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].end <= b[j].start {
            i += 1;
        } else if b[j].end <= a[i].start {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// For each virtual register, up to two registers it is copied from or to.
fn copy_hints(f: &Function) -> Vec<[Option<Reg>; 2]> {
    let mut hints: Vec<[Option<Reg>; 2]> = vec![[None; 2]; f.vregs.len()];
    let mut add = |v: VReg, hint: Reg| {
        let slots = &mut hints[v.0 as usize];
        if let Some(free) = slots.iter_mut().find(|s| s.is_none()) {
            *free = Some(hint);
        }
    };
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let InstKind::Copy { dst, src } = inst.kind {
            if let Reg::Virt(d) = dst {
                add(d, src);
            }
            if let Reg::Virt(s) = src {
                add(s, dst);
            }
        }
    }
    hints
}

/// Rewrites every debug operand naming a virtual register for which
/// `location` has an answer: that answer where the register is live at the
/// debug instruction's position, `$noreg` elsewhere.
fn rewrite_debug(
    f: &mut Function,
    live: &Liveness,
    positions: &[Vec<Option<DebugPosition>>],
    location: &dyn Fn(u32) -> Option<DbgOperand>,
) {
    for (block, block_positions) in f.blocks.iter_mut().zip(positions) {
        for (inst, pos) in block.insts.iter_mut().zip(block_positions) {
            let (InstKind::DbgValue(dbg), Some(pos)) = (&mut inst.kind, pos) else {
                continue;
            };
            for op in &mut dbg.operands {
                let DbgOperand::Reg(reg @ Reg::Virt(v)) = *op else {
                    continue;
                };
                if let Some(new) = location(v.0) {
                    *op = if live.is_live_at(reg, *pos) {
                        new
                    } else {
                        DbgOperand::NoReg
                    };
                }
            }
        }
    }
}

/// Rewrites the debug operands naming virtual registers once every
/// register has its place: the assigned register where it still holds the
/// register's value, `$noreg` elsewhere.
///
/// A forward walk over each block tracks which virtual registers' values
/// each physical register holds: on entry the live-in ones assigned to it;
/// a write replaces them by the register written (a coalesced copy, which
/// disappears, adds its destination instead). This covers every point
/// where the register is live, and also points after its last use until
/// the physical register is overwritten (LLVM keeps those through
/// coalescing); a register no instruction touches has no location.
fn place_debug_values(f: &mut Function, live: &Liveness, assignment: &[Option<PhysReg>]) {
    let place = |r: Reg| match r {
        Reg::Virt(v) => assignment[v.0 as usize],
        Reg::Phys(g) => Some(g),
    };
    let mut holds: [Vec<u32>; PhysReg::COUNT] = std::array::from_fn(|_| Vec::new());
    for (b, block) in f.blocks.iter_mut().enumerate() {
        for h in &mut holds {
            h.clear();
        }
        for v in live.live_in_vregs(BlockId(b as u32)) {
            if let Some(g) = assignment[v.0 as usize] {
                holds[g.index()].push(v.0);
            }
        }
        for inst in &mut block.insts {
            match &mut inst.kind {
                InstKind::DbgValue(dbg) => {
                    for op in &mut dbg.operands {
                        if let DbgOperand::Reg(Reg::Virt(v)) = *op {
                            *op = match assignment[v.0 as usize] {
                                Some(g) if holds[g.index()].contains(&v.0) => {
                                    DbgOperand::Reg(Reg::Phys(g))
                                }
                                _ => DbgOperand::NoReg,
                            };
                        }
                    }
                }
                InstKind::Copy { dst, src } if place(*dst) == place(*src) => {
                    if let (Reg::Virt(d), Some(g)) = (*dst, place(*dst)) {
                        holds[g.index()].push(d.0);
                    }
                }
                kind => {
                    kind.visit_regs(&mut |r, access| {
                        if access == Access::Use {
                            return;
                        }
                        if let Some(g) = place(r) {
                            let h = &mut holds[g.index()];
                            h.clear();
                            if let Reg::Virt(v) = r {
                                h.push(v.0);
                            }
                        }
                    });
                    for g in kind.implicit_defs().iter() {
                        holds[g.index()].clear();
                    }
                }
            }
        }
    }
}

/// Replaces virtual registers by their assigned physical registers and
/// drops the copies that became identities.
fn apply_assignment(f: &mut Function, assignment: &[Option<PhysReg>]) {
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            inst.kind.visit_regs_mut(&mut |r, _| {
                if let Reg::Virt(v) = *r {
                    let g = assignment[v.0 as usize]
                        .expect("every register with a live range is assigned");
                    *r = Reg::Phys(g);
                }
            });
        }
        block
            .insts
            .retain(|i| !matches!(i.kind, InstKind::Copy { dst, src } if dst == src));
    }
}

/// Callee-saved registers the code writes (rbp only where it is not the
/// frame pointer).
pub(super) fn callee_saved_written(f: &Function) -> GprSet {
    let mut used = GprSet::EMPTY;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.kind.visit_regs(&mut |r, a| {
            if let (Reg::Phys(PhysReg::Gpr(g)), Access::Def | Access::UseDef) = (r, a) {
                used.insert(g);
            }
        });
        used = GprSet(used.0 | inst.kind.implicit_defs().gprs().0);
    }
    let saved = if f.omits_frame_pointer {
        CALLEE_SAVED
    } else {
        GprSet(CALLEE_SAVED.0 & !GprSet::of(&[Gpr::Rbp]).0)
    };
    GprSet(used.0 & saved.0)
}

/// Rewrites every instruction that touches a spilled register.
fn insert_spill_code(f: &mut Function, slot_of: &[Option<StackSlotId>], window: usize) {
    let spilled = |r: &Reg| match r {
        Reg::Virt(v) => slot_of[v.0 as usize],
        Reg::Phys(_) => None,
    };
    let mut blocks = std::mem::take(&mut f.blocks);
    for block in &mut blocks {
        let old = std::mem::take(&mut block.insts);
        let mut out = Vec::with_capacity(old.len());
        // Temporaries that hold a spilled (non-vector) register's current
        // value: (register, temporary, position of its last access).
        let mut held: Vec<(VReg, Reg, usize)> = Vec::new();
        let mut position = 0;
        for mut inst in old {
            if inst.is_debug() {
                out.push(inst);
                continue;
            }
            position += 1;
            // A call (or any instruction with implicit results) ends every
            // reuse: a temporary kept across it would need a callee-saved
            // register.
            if !inst.kind.implicit_defs().is_empty() {
                held.clear();
            }
            held.retain(|h| position - h.2 <= window);
            let holder = |held: &[(VReg, Reg, usize)], r: &Reg| match r {
                Reg::Virt(v) => held.iter().find(|h| h.0 == *v).map(|h| h.1),
                Reg::Phys(_) => None,
            };
            fold_spilled_source(&mut inst.kind, &|r| match holder(&held, r) {
                Some(_) => None,
                None => spilled(r),
            });
            if let InstKind::Copy { dst, src } = inst.kind {
                match (spilled(&dst), spilled(&src)) {
                    (Some(to), Some(from)) if to == from => {
                        // The slot now holds src's value, not a
                        // temporary of dst's.
                        held.retain(|h| Reg::Virt(h.0) != dst);
                        continue;
                    }
                    (Some(slot), None) if f.is_vector(dst) => {
                        out.push(vector_spill(slot, src, false, inst.loc));
                        continue;
                    }
                    (None, Some(slot)) if f.is_vector(src) => {
                        out.push(vector_spill(slot, dst, true, inst.loc));
                        continue;
                    }
                    (Some(slot), None) => {
                        // The slot changes under any temporary of dst.
                        held.retain(|h| Reg::Virt(h.0) != dst);
                        out.push(spill_store(slot, src, f.class_of(src), inst.loc));
                        continue;
                    }
                    (None, Some(slot)) => {
                        match holder(&held, &src) {
                            Some(t) => {
                                for h in held.iter_mut().filter(|h| Reg::Virt(h.0) == src) {
                                    h.2 = position;
                                }
                                out.push(Inst::new(InstKind::Copy { dst, src: t }, inst.loc));
                            }
                            None => out.push(spill_load(dst, f.class_of(dst), slot, inst.loc)),
                        }
                        continue;
                    }
                    _ => {}
                }
            }
            // (original vreg, temporary, read, written, already holds it)
            let mut temps: Vec<(VReg, Reg, bool, bool, bool)> = Vec::new();
            let vregs = &mut f.vregs;
            inst.kind.visit_regs_mut(&mut |r, access| {
                let (Reg::Virt(v), Some(_)) = (*r, spilled(r)) else {
                    return;
                };
                let idx = match temps.iter().position(|t| t.0 == v) {
                    Some(i) => i,
                    None => {
                        let (t, holds) = match holder(&held, r) {
                            Some(t) => (t, true),
                            None => {
                                vregs.push(vregs[v.0 as usize]);
                                (Reg::Virt(VReg(vregs.len() as u32 - 1)), false)
                            }
                        };
                        temps.push((v, t, false, false, holds));
                        temps.len() - 1
                    }
                };
                let t = &mut temps[idx];
                t.2 |= access != Access::Def;
                t.3 |= access != Access::Use;
                *r = t.1;
            });
            let loc = inst.loc;
            for &(v, t, read, _, holds) in &temps {
                if read && !holds {
                    let info = f.vregs[v.0 as usize];
                    let slot = slot_of[v.0 as usize].unwrap();
                    out.push(if info.vector {
                        vector_spill(slot, t, true, loc)
                    } else {
                        spill_load(t, info.class, slot, loc)
                    });
                }
            }
            out.push(inst);
            for &(v, t, _, written, _) in &temps {
                let info = f.vregs[v.0 as usize];
                if written {
                    let slot = slot_of[v.0 as usize].unwrap();
                    out.push(if info.vector {
                        vector_spill(slot, t, false, loc)
                    } else {
                        spill_store(slot, t, info.class, loc)
                    });
                }
                held.retain(|h| h.0 != v);
                if !info.vector {
                    held.push((v, t, position));
                }
            }
        }
        block.insts = out;
    }
    f.blocks = blocks;
}

/// Turns a spilled register that an instruction only reads, in an operand
/// that may be memory, into a read of its slot.
fn fold_spilled_source(kind: &mut InstKind, spilled: &dyn Fn(&Reg) -> Option<StackSlotId>) {
    match kind {
        InstKind::Alu {
            src: src @ Rmi::Reg(_),
            ..
        } => {
            if let Rmi::Reg(r) = src {
                if let Some(slot) = spilled(r) {
                    *src = Rmi::Mem(Address::slot(slot, 0));
                }
            }
        }
        // Either side of a compare of two registers may be memory (the
        // right one first), not both.
        InstKind::Cmp {
            lhs: lhs @ Rm::Reg(_),
            rhs: rhs @ Rmi::Reg(_),
            ..
        } => {
            if let (Rm::Reg(l), Rmi::Reg(r)) = (&*lhs, &*rhs) {
                if let Some(slot) = spilled(r) {
                    *rhs = Rmi::Mem(Address::slot(slot, 0));
                } else if let Some(slot) = spilled(l) {
                    *lhs = Rm::Mem(Address::slot(slot, 0));
                }
            }
        }
        InstKind::Imul {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::ImulImm {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::Cmov {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::Div {
            divisor: src @ Rm::Reg(_),
            ..
        }
        | InstKind::Extend {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::Cmp {
            lhs: src @ Rm::Reg(_),
            rhs: Rmi::Imm(_),
            ..
        }
        | InstKind::Test {
            lhs: src @ Rm::Reg(_),
            rhs: Ri::Imm(_),
            ..
        }
        | InstKind::FpArith {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::FpSqrt {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::FpCmp {
            rhs: src @ Rm::Reg(_),
            ..
        }
        | InstKind::FpCmpMask {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::IntToFp {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::FpToInt {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::FpConvert {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::MovToXmm {
            src: src @ Rm::Reg(_),
            ..
        } => {
            if let Rm::Reg(r) = src {
                if let Some(slot) = spilled(r) {
                    *src = Rm::Mem(Address::slot(slot, 0));
                }
            }
        }
        _ => {}
    }
}

/// Reloads `dst` of `class` from its spill slot.
fn spill_load(dst: Reg, class: RegClass, slot: StackSlotId, loc: u32) -> Inst {
    let addr = Address::slot(slot, 0);
    let kind = match class {
        RegClass::General => InstKind::Load {
            dst,
            addr,
            width: Width::W64,
        },
        RegClass::Xmm => InstKind::FpLoad {
            dst,
            addr,
            size: FpSize::F64,
        },
    };
    Inst::new(kind, loc)
}

/// Reloads (`load`) or saves a vector register from or to its 16-byte
/// spill slot.
fn vector_spill(slot: StackSlotId, reg: Reg, load: bool, loc: u32) -> Inst {
    let addr = Address::slot(slot, 0);
    let kind = if load {
        InstKind::VecLoad {
            dst: reg,
            addr,
            bytes: 16,
        }
    } else {
        InstKind::VecStore {
            src: reg,
            addr,
            bytes: 16,
        }
    };
    Inst::new(kind, loc)
}

/// Saves `src` of `class` into its spill slot.
fn spill_store(slot: StackSlotId, src: Reg, class: RegClass, loc: u32) -> Inst {
    let addr = Address::slot(slot, 0);
    let kind = match class {
        RegClass::General => InstKind::Store {
            src: Ri::Reg(src),
            addr,
            width: Width::W64,
        },
        RegClass::Xmm => InstKind::FpStore {
            src,
            addr,
            size: FpSize::F64,
        },
    };
    Inst::new(kind, loc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{AluOp, CallTarget, Cond, Rmi};
    use crate::codegen::test_support::{dbg, mov, phys, ret};
    use crate::x86::abi::CALLER_SAVED;
    use expect_test::{expect, Expect};

    /// Allocates a one-block function and compares the result.
    fn check(vregs: usize, insts: Vec<InstKind>, expected: Expect) -> Allocation {
        let mut f = Function::new("t");
        for _ in 0..vregs {
            f.new_vreg(Width::W64);
        }
        f.new_block();
        f.blocks[0].insts = insts.into_iter().map(|k| Inst::new(k, 0)).collect();
        let allocation = allocate(&mut f).expect("allocates");
        expected.assert_eq(&f.to_string());
        allocation
    }

    fn v(n: u32) -> Reg {
        Reg::Virt(VReg(n))
    }

    fn add(dst: Reg, src: Reg) -> InstKind {
        InstKind::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst,
            src: Rmi::Reg(src),
        }
    }

    #[test]
    fn xmm_values_get_xmm_registers_and_a_double_live_across_a_call_is_spilled_with_movsd() {
        // double f(double a, long n) { double b = a * a; g(n); return b + a; }
        // Every xmm register is caller-saved: %1 (b) and %0 (a) live
        // across the call and go to 8-byte slots; the integer %2 in the
        // same function takes general-purpose registers as before.
        let mut f = Function::new("t");
        let a = f.new_xmm_vreg(FpSize::F64);
        let b = f.new_xmm_vreg(FpSize::F64);
        let n = f.new_vreg(Width::W64);
        f.new_block();
        let x0: Reg = crate::x86::Xmm::new(0).into();
        f.blocks[0].insts = [
            InstKind::Copy { dst: a, src: x0 },
            InstKind::Copy {
                dst: n,
                src: phys(Gpr::Rdi),
            },
            InstKind::Copy { dst: b, src: a },
            InstKind::FpArith {
                op: crate::codegen::mir::FpOp::Mul,
                size: FpSize::F64,
                dst: b,
                src: Rm::Reg(a),
            },
            InstKind::Copy {
                dst: phys(Gpr::Rdi),
                src: n,
            },
            InstKind::Call {
                target: CallTarget::Symbol("g".into()),
                args: vec![Gpr::Rdi.into()],
                rets: vec![],
                clobbers: CALLER_SAVED,
                unwind: None,
            },
            InstKind::FpArith {
                op: crate::codegen::mir::FpOp::Add,
                size: FpSize::F64,
                dst: b,
                src: Rm::Reg(a),
            },
            InstKind::Copy { dst: x0, src: b },
            InstKind::Ret {
                uses: vec![crate::x86::Xmm::new(0).into()],
            },
        ]
        .into_iter()
        .map(|k| Inst::new(k, 0))
        .collect();
        let allocation = allocate(&mut f).expect("allocates");
        assert_eq!(allocation.spilled, 2);
        expect![[r#"
            name: t
              %stack.0: size 8, align 8, spill
              %stack.1: size 8, align 8, spill
            bb.0:
              FSTORE64 [%stack.0], $xmm0
              $xmm1 = FLOAD64 [%stack.0]
              $xmm2 = COPY $xmm1
              FSTORE64 [%stack.1], $xmm2
              $xmm2 = FMUL64 $xmm2, $xmm1
              FSTORE64 [%stack.1], $xmm2
              CALL @g, args($rdi), rets()
              $xmm0 = FLOAD64 [%stack.1]
              $xmm0 = FADD64 $xmm0, [%stack.0]
              FSTORE64 [%stack.1], $xmm0
              RET $xmm0
        "#]]
        .assert_eq(&f.to_string());
    }

    #[test]
    fn interfering_values_get_different_registers_and_dead_ones_are_reused() {
        // %0 and %1 overlap; %2 starts where %0 and %1 end and takes rax
        // back; the copy into rax disappears.
        check(
            3,
            vec![
                mov(v(0), 1),
                mov(v(1), 2),
                add(v(0), v(1)),
                InstKind::Copy {
                    dst: v(2),
                    src: v(0),
                },
                InstKind::Copy {
                    dst: phys(Gpr::Rax),
                    src: v(2),
                },
                ret(),
            ],
            expect![[r#"
                name: t
                bb.0:
                  $rax = MOV64 1
                  $rcx = MOV64 2
                  $rax = ADD64 $rax, $rcx
                  RET $rax
            "#]],
        );
    }

    #[test]
    fn precoloured_registers_are_respected() {
        // %0 is live while rdx is written by cqo/idiv, so it avoids rax and
        // rdx even though it was copied from rax.
        check(
            2,
            vec![
                InstKind::Copy {
                    dst: v(0),
                    src: phys(Gpr::Rax),
                },
                InstKind::Copy {
                    dst: v(1),
                    src: phys(Gpr::Rdi),
                },
                InstKind::SignExtendAx { width: Width::W64 },
                InstKind::Div {
                    signed: true,
                    width: Width::W64,
                    divisor: Rm::Reg(v(1)),
                },
                add(phys(Gpr::Rax), v(0)),
                ret(),
            ],
            expect![[r#"
                name: t
                bb.0:
                  $rcx = COPY $rax
                  SIGNEXTEND64 $rax
                  IDIV64 $rdi
                  $rax = ADD64 $rax, $rcx
                  RET $rax
            "#]],
        );
    }

    #[test]
    fn values_live_across_calls_use_callee_saved_registers() {
        let allocation = check(
            2,
            vec![
                mov(v(0), 7),
                mov(v(1), 8),
                InstKind::Copy {
                    dst: phys(Gpr::Rdi),
                    src: v(1),
                },
                InstKind::Call {
                    target: CallTarget::Symbol("g".into()),
                    args: vec![Gpr::Rdi.into()],
                    rets: vec![Gpr::Rax.into()],
                    clobbers: CALLER_SAVED,
                    unwind: None,
                },
                add(phys(Gpr::Rax), v(0)),
                ret(),
            ],
            expect![[r#"
                name: t
                bb.0:
                  $rbx = MOV64 7
                  $rdi = MOV64 8
                  CALL @g, args($rdi), rets($rax)
                  $rax = ADD64 $rax, $rbx
                  RET $rax
            "#]],
        );
        assert_eq!(allocation.callee_saved_used, GprSet::of(&[Gpr::Rbx]));
    }

    #[test]
    fn pressure_spills_the_least_used_values() {
        // 16 values live at once, %16 used many times: it stays in a register.
        let n = 16;
        let mut insts: Vec<InstKind> = (0..n).map(|k| mov(v(k), i64::from(k))).collect();
        insts.push(mov(v(n), 0));
        for _ in 0..4 {
            for k in 0..n {
                insts.push(add(v(n), v(k)));
            }
        }
        insts.push(InstKind::Copy {
            dst: phys(Gpr::Rax),
            src: v(n),
        });
        insts.push(ret());
        let mut f = Function::new("t");
        for _ in 0..=n {
            f.new_vreg(Width::W64);
        }
        f.new_block();
        f.blocks[0].insts = insts.into_iter().map(|k| Inst::new(k, 0)).collect();
        let allocation = allocate(&mut f).unwrap();
        assert_eq!((allocation.spilled, allocation.rounds), (3, 2));
        let adds: Vec<String> = f.blocks[0]
            .insts
            .iter()
            .filter(|i| matches!(i.kind, InstKind::Alu { .. }))
            .map(|i| i.kind.to_string())
            .collect();
        // Every add accumulates into one register; spilled values are read
        // straight from their slots.
        let acc = adds[0].split(' ').next().unwrap().to_string();
        assert!(adds
            .iter()
            .all(|a| a.starts_with(&format!("{acc} = ADD64 {acc}, "))));
        assert_eq!(adds.iter().filter(|a| a.contains("[$rbp")).count(), 0);
        assert_eq!(adds.iter().filter(|a| a.contains("[%stack.")).count(), 12);
    }

    #[test]
    fn spilled_registers_joined_by_a_copy_share_a_slot_and_the_copy_goes() {
        // 14 busy values fill every register while %14, then its copy
        // %15, lives beside them with two accesses each: both spill (the
        // busy values are used far more), into one slot, and the copy
        // between them disappears.
        let busy = 14;
        let (a, b) = (v(busy), v(busy + 1));
        let mut insts = vec![mov(a, 7)];
        insts.extend((0..busy).map(|k| mov(v(k), i64::from(k))));
        for k in 1..busy {
            insts.push(add(v(0), v(k)));
        }
        insts.push(InstKind::Copy { dst: b, src: a });
        for _ in 0..4 {
            for k in 1..busy {
                insts.push(add(v(0), v(k)));
            }
        }
        insts.push(add(v(0), b));
        insts.push(InstKind::Copy {
            dst: phys(Gpr::Rax),
            src: v(0),
        });
        insts.push(ret());
        let mut f = Function::new("t");
        for _ in 0..busy + 2 {
            f.new_vreg(Width::W64);
        }
        f.new_block();
        f.blocks[0].insts = insts.into_iter().map(|k| Inst::new(k, 0)).collect();
        let allocation = allocate(&mut f).unwrap();
        assert_eq!(allocation.spilled, 2);
        assert_eq!(f.stack_slots.len(), 1);
        let touching_slots: Vec<String> = f.blocks[0]
            .insts
            .iter()
            .map(|i| i.kind.to_string())
            .filter(|text| text.contains("%stack") || text.contains("COPY"))
            .collect();
        expect![[r#"
            [
                "STORE64 [%stack.0], 7",
                "$rax = ADD64 $rax, [%stack.0]",
            ]
        "#]]
        .assert_debug_eq(&touching_slots);
    }

    #[test]
    fn a_compare_reads_one_spilled_side_from_its_slot() {
        // The right side first; the left when only it is spilled; never
        // both.
        let slot = StackSlotId(0);
        let spilled = |r: &Reg| matches!(r, Reg::Virt(VReg(0 | 1))).then_some(slot);
        let compare = |lhs: u32, rhs: u32| {
            let mut kind = InstKind::Cmp {
                width: Width::W32,
                lhs: Rm::Reg(v(lhs)),
                rhs: Rmi::Reg(v(rhs)),
            };
            fold_spilled_source(&mut kind, &spilled);
            kind.to_string()
        };
        assert_eq!(compare(2, 0), "CMP32 %2, [%stack.0]");
        assert_eq!(compare(0, 2), "CMP32 [%stack.0], %2");
        assert_eq!(compare(0, 1), "CMP32 %0, [%stack.0]");
    }

    #[test]
    fn a_value_only_copied_between_spilled_values_is_spilled_with_them() {
        // %1 only carries %0 to %2 (both spilled): it joins them. %3 is
        // also added to: it stays. %4 is copied from %2 while %2 is still
        // live (their ranges meet): it stays.
        let mut f = Function::new("t");
        for _ in 0..5 {
            f.new_vreg(Width::W64);
        }
        f.new_block();
        f.blocks[0].insts = [
            mov(v(0), 1),
            InstKind::Copy {
                dst: v(1),
                src: v(0),
            },
            InstKind::Copy {
                dst: v(2),
                src: v(1),
            },
            InstKind::Copy {
                dst: v(3),
                src: v(2),
            },
            add(v(3), v(3)),
            InstKind::Copy {
                dst: v(4),
                src: v(2),
            },
            add(v(4), v(2)),
            InstKind::Copy {
                dst: phys(Gpr::Rax),
                src: v(4),
            },
            ret(),
        ]
        .into_iter()
        .map(|k| Inst::new(k, 0))
        .collect();
        let live = liveness::compute(&f);
        assert_eq!(
            with_copies_of_spilled(&f, &live, vec![0, 2], &[false; 5]),
            [0, 1, 2]
        );
    }

    #[test]
    fn debug_values_follow_registers_spills_and_liveness() {
        // %0 in a register; %1 spilled under pressure; %2 dead at its
        // second debug value; an immediate stays.
        let n = 15;
        let mut insts = vec![InstKind::Copy {
            dst: v(0),
            src: phys(Gpr::Rdi),
        }];
        insts.push(dbg(1, vec![DbgOperand::Reg(v(0)), DbgOperand::Imm(4)]));
        insts.push(mov(v(2), 5));
        insts.push(add(v(0), v(2)));
        insts.push(dbg(2, vec![DbgOperand::Reg(v(2))]));
        insts.extend((3..3 + n).map(|k| mov(v(k), i64::from(k))));
        insts.push(mov(v(1), 9));
        insts.push(dbg(3, vec![DbgOperand::Reg(v(1))]));
        for k in 3..3 + n {
            insts.push(add(v(0), v(k)));
        }
        insts.push(add(v(0), v(1)));
        insts.push(dbg(3, vec![DbgOperand::Reg(v(1))]));
        // A register no instruction touches has no location.
        insts.push(dbg(4, vec![DbgOperand::Reg(v(3 + n))]));
        insts.push(InstKind::Copy {
            dst: phys(Gpr::Rax),
            src: v(0),
        });
        insts.push(ret());
        let mut f = Function::new("t");
        for _ in 0..4 + n {
            f.new_vreg(Width::W64);
        }
        f.new_block();
        f.blocks[0].insts = insts.into_iter().map(|k| Inst::new(k, 0)).collect();
        let mut plain = f.clone();
        plain.blocks[0].insts.retain(|i| !i.is_debug());
        allocate(&mut f).unwrap();
        allocate(&mut plain).unwrap();
        let debug: Vec<String> = f.blocks[0]
            .insts
            .iter()
            .filter(|i| i.is_debug())
            .map(|i| i.kind.to_string())
            .collect();
        expect![[r#"
            [
                "DBG_VALUE_LIST $rdi, 4, !var1, !expr0",
                "DBG_VALUE $rax, !var2, !expr0",
                "DBG_VALUE %stack.0:64, !var3, !expr0",
                "DBG_VALUE $noreg, !var3, !expr0",
                "DBG_VALUE $noreg, !var4, !expr0",
            ]
        "#]]
        .assert_debug_eq(&debug);
        f.blocks[0].insts.retain(|i| !i.is_debug());
        assert_eq!(f, plain, "debug values changed the allocation");
    }

    #[test]
    fn debug_values_survive_coalesced_copies_until_the_register_is_written() {
        // %0 dies at the copy into %1, which takes its register: the value
        // is still there for the first debug value, not after the add.
        check(
            2,
            vec![
                mov(v(0), 7),
                InstKind::Copy {
                    dst: v(1),
                    src: v(0),
                },
                dbg(1, vec![DbgOperand::Reg(v(0))]),
                InstKind::Alu {
                    op: AluOp::Add,
                    width: Width::W64,
                    dst: v(1),
                    src: Rmi::Imm(1),
                },
                dbg(1, vec![DbgOperand::Reg(v(0))]),
                dbg(2, vec![DbgOperand::Reg(v(1))]),
                InstKind::Copy {
                    dst: phys(Gpr::Rax),
                    src: v(1),
                },
                ret(),
                dbg(2, vec![DbgOperand::Reg(v(1))]),
            ],
            expect![[r#"
                name: t
                bb.0:
                  $rax = MOV64 7
                  DBG_VALUE $rax, !var1, !expr0
                  $rax = ADD64 $rax, 1
                  DBG_VALUE $noreg, !var1, !expr0
                  DBG_VALUE $rax, !var2, !expr0
                  RET $rax
                  DBG_VALUE $rax, !var2, !expr0
            "#]],
        );
    }

    #[test]
    fn loops_keep_loop_carried_values_in_registers() {
        let mut f = Function::new("loop");
        let (i, s) = (f.new_vreg(Width::W64), f.new_vreg(Width::W64));
        for _ in 0..3 {
            f.new_block();
        }
        let ins = |k| Inst::new(k, 0);
        f.blocks[0].insts = vec![ins(mov(i, 10)), ins(mov(s, 0))];
        f.blocks[1].insts = vec![
            ins(add(s, i)),
            ins(InstKind::Alu {
                op: AluOp::Sub,
                width: Width::W64,
                dst: i,
                src: Rmi::Imm(1),
            }),
            ins(InstKind::Jcc {
                cond: Cond::Ne,
                target: crate::codegen::mir::BlockId(1),
            }),
        ];
        f.blocks[2].insts = vec![
            ins(InstKind::Copy {
                dst: phys(Gpr::Rax),
                src: s,
            }),
            ins(ret()),
        ];
        allocate(&mut f).unwrap();
        expect![[r#"
            name: loop
            bb.0:  ; succ bb.1
              $rax = MOV64 10
              $rcx = MOV64 0
            bb.1:  ; succ bb.1, bb.2
              $rcx = ADD64 $rcx, $rax
              $rax = SUB64 $rax, 1
              JNE bb.1
            bb.2:
              $rax = COPY $rcx
              RET $rax
        "#]]
        .assert_eq(&f.to_string());
    }
}
