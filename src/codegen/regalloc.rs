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
//! 2. Intervals (the hull of a register's ranges) are visited in order of
//!    start. A register is a candidate when none of its fixed ranges meets
//!    the interval; among the free candidates a copy hint wins (the physical
//!    register or the register of the virtual register it is copied from/to),
//!    else the first in [`ALLOCATION_ORDER`] (caller-saved first, so a
//!    callee-saved register is only used when needed). With none free, the
//!    interval ending last is spilled, unless it is a spill temporary.
//! 3. A spilled register gets an 8-byte slot; every instruction touching it
//!    reads it as a memory operand where x86 allows, or through a fresh
//!    temporary loaded before and stored after. Temporaries are never
//!    spilled. Another round allocates the rewritten code; rounds stop when
//!    nothing is spilled.
//!
//! Debug values are never seen by steps 1–3 (so code is byte-identical with
//! and without them). Each operand naming a virtual register is rewritten at
//! the instruction's own position: the assigned physical register, or the
//! spill slot ([`DbgOperand::SpillSlot`]) when it was spilled, if the
//! register is live there; `$noreg` otherwise.
//!
//! Cost: each round is linear in instructions plus a log factor per
//! interval; rounds are few (spill temporaries are tiny and never spill).

use super::liveness::{self, intersects, DebugPosition, Liveness};
use super::mir::{
    Access, Address, BlockId, DbgOperand, Function, Gpr, GprSet, Inst, InstKind, Reg, Ri, Rm, Rmi,
    StackSlotId, StackSlotKind, VReg, Width,
};
use crate::x86::abi::{ALLOCATION_ORDER, CALLEE_SAVED};
use std::fmt;

/// What allocation did, for frame lowering and statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// Callee-saved registers written by the function (rbp excluded): the
    /// prologue saves them and the epilogue restores them.
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
pub fn allocate(f: &mut Function) -> Result<Allocation, RegallocError> {
    let mut unspillable = vec![false; f.vregs.len()];
    let mut spill_count = 0;
    for round in 1..=MAX_ROUNDS {
        let live = liveness::compute(f);
        let positions = liveness::debug_positions(f);
        let outcome = scan(f, &live, &unspillable)?;
        let spilled: Vec<u32> = (0..f.vregs.len() as u32)
            .filter(|&v| outcome.spilled[v as usize])
            .collect();
        if spilled.is_empty() {
            rewrite_debug(f, &live, &positions, &|v| {
                outcome.assignment[v as usize].map(|g| DbgOperand::Reg(Reg::Phys(g)))
            });
            apply_assignment(f, &outcome.assignment);
            return Ok(Allocation {
                callee_saved_used: callee_saved_written(f),
                spilled: spill_count,
                rounds: round,
            });
        }
        spill_count += spilled.len();
        let mut slot_of: Vec<Option<StackSlotId>> = vec![None; f.vregs.len()];
        for &v in &spilled {
            slot_of[v as usize] = Some(f.new_stack_slot(8, 8, StackSlotKind::Spill));
        }
        let widths: Vec<Width> = f.vregs.iter().map(|i| i.width).collect();
        rewrite_debug(f, &live, &positions, &|v| {
            slot_of[v as usize].map(|s| DbgOperand::SpillSlot(s, widths[v as usize]))
        });
        insert_spill_code(f, &slot_of);
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
    assignment: Vec<Option<Gpr>>,
    spilled: Vec<bool>,
}

/// One interval: the hull of a virtual register's ranges.
struct Interval {
    vreg: u32,
    start: u32,
    end: u32,
}

fn scan(f: &Function, live: &Liveness, unspillable: &[bool]) -> Result<ScanOutcome, RegallocError> {
    let n = f.vregs.len();
    let mut intervals: Vec<Interval> = live
        .vreg_ranges
        .iter()
        .enumerate()
        .filter_map(|(v, r)| {
            Some(Interval {
                vreg: v as u32,
                start: r.first()?.start,
                end: r.last()?.end,
            })
        })
        .collect();
    intervals.sort_by_key(|i| (i.start, i.vreg));
    let hints = copy_hints(f);
    let weights = use_weights(f);

    let mut assignment: Vec<Option<Gpr>> = vec![None; n];
    let mut spilled = vec![false; n];
    // holder[hw] = index into `intervals` of the interval holding it.
    let mut holder: [Option<usize>; 16] = [None; 16];
    for k in 0..intervals.len() {
        let (start, end, vreg) = (intervals[k].start, intervals[k].end, intervals[k].vreg);
        let is_candidate =
            |g: Gpr| !intersects(&live.fixed_ranges[usize::from(g.hw())], start, end);
        let is_free = |g: Gpr, holder: &[Option<usize>; 16]| {
            holder[usize::from(g.hw())].is_none_or(|h| intervals[h].end <= start)
        };
        let hinted = hints[vreg as usize].iter().find_map(|hint| {
            let g = match *hint {
                Reg::Phys(g) => g,
                Reg::Virt(other) => assignment[other.0 as usize]?,
            };
            (ALLOCATION_ORDER.contains(&g) && is_candidate(g) && is_free(g, &holder)).then_some(g)
        });
        let chosen = hinted.or_else(|| {
            ALLOCATION_ORDER
                .into_iter()
                .find(|&g| is_candidate(g) && is_free(g, &holder))
        });
        if let Some(g) = chosen {
            holder[usize::from(g.hw())] = Some(k);
            assignment[vreg as usize] = Some(g);
            continue;
        }
        // No register free: spill the cheapest of the current interval and
        // the holders of candidate registers (uses per length of interval).
        let density = |iv: &Interval| (weights[iv.vreg as usize], u64::from(iv.end - iv.start));
        let cheaper = |a: (u64, u64), b: (u64, u64)| a.0 * b.1 < b.0 * a.1;
        let victim = ALLOCATION_ORDER
            .into_iter()
            .filter(|&g| is_candidate(g))
            .filter_map(|g| {
                let h = holder[usize::from(g.hw())]?;
                (!unspillable[intervals[h].vreg as usize]).then_some((g, h))
            })
            .reduce(|best, next| {
                if cheaper(density(&intervals[next.1]), density(&intervals[best.1])) {
                    next
                } else {
                    best
                }
            });
        let current_spillable = !unspillable[vreg as usize];
        match victim {
            Some((g, h))
                if !current_spillable
                    || cheaper(density(&intervals[h]), density(&intervals[k])) =>
            {
                let old = intervals[h].vreg as usize;
                spilled[old] = true;
                assignment[old] = None;
                holder[usize::from(g.hw())] = Some(k);
                assignment[vreg as usize] = Some(g);
            }
            _ if current_spillable => spilled[vreg as usize] = true,
            _ => {
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

/// For each virtual register, how much its uses and definitions cost if it
/// lived in memory: 1 per access, times 8 per enclosing loop (up to 4
/// levels). A loop is approximated in layout order: a branch from block `c`
/// back to block `a <= c` encloses blocks `a..=c`.
fn use_weights(f: &Function) -> Vec<u64> {
    let n = f.blocks.len();
    let mut delta = vec![0i64; n + 1];
    for c in 0..n {
        for a in f.successors(BlockId(c as u32)) {
            if (a.0 as usize) <= c {
                delta[a.0 as usize] += 1;
                delta[c + 1] -= 1;
            }
        }
    }
    let mut weights = vec![0u64; f.vregs.len()];
    let mut depth = 0i64;
    for (b, block) in f.blocks.iter().enumerate() {
        depth += delta[b];
        let weight = 8u64.pow(depth.clamp(0, 4) as u32);
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

/// For each virtual register, the registers it is copied from or to.
fn copy_hints(f: &Function) -> Vec<Vec<Reg>> {
    let mut hints: Vec<Vec<Reg>> = vec![Vec::new(); f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let InstKind::Copy { dst, src } = inst.kind {
            if let Reg::Virt(d) = dst {
                hints[d.0 as usize].push(src);
            }
            if let Reg::Virt(s) = src {
                hints[s.0 as usize].push(dst);
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

/// Replaces virtual registers by their assigned physical registers and
/// drops the copies that became identities.
fn apply_assignment(f: &mut Function, assignment: &[Option<Gpr>]) {
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

/// Callee-saved registers (other than rbp) the code writes.
fn callee_saved_written(f: &Function) -> GprSet {
    let mut used = GprSet::EMPTY;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.kind.visit_regs(&mut |r, a| {
            if let (Reg::Phys(g), Access::Def | Access::UseDef) = (r, a) {
                used.insert(g);
            }
        });
        used = GprSet(used.0 | inst.kind.implicit_defs().0);
    }
    GprSet(used.0 & CALLEE_SAVED.0 & !GprSet::of(&[Gpr::Rbp]).0)
}

/// Rewrites every instruction that touches a spilled register.
fn insert_spill_code(f: &mut Function, slot_of: &[Option<StackSlotId>]) {
    let spilled = |r: &Reg| match r {
        Reg::Virt(v) => slot_of[v.0 as usize],
        Reg::Phys(_) => None,
    };
    let mut blocks = std::mem::take(&mut f.blocks);
    for block in &mut blocks {
        let old = std::mem::take(&mut block.insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            if inst.is_debug() {
                out.push(inst);
                continue;
            }
            fold_spilled_source(&mut inst.kind, &spilled);
            if let InstKind::Copy { dst, src } = inst.kind {
                match (spilled(&dst), spilled(&src)) {
                    (Some(slot), None) => {
                        out.push(spill_store(slot, src, inst.loc));
                        continue;
                    }
                    (None, Some(slot)) => {
                        out.push(spill_load(dst, slot, inst.loc));
                        continue;
                    }
                    _ => {}
                }
            }
            // (original vreg, temporary, read, written)
            let mut temps: Vec<(VReg, Reg, bool, bool)> = Vec::new();
            let vregs = &mut f.vregs;
            inst.kind.visit_regs_mut(&mut |r, access| {
                let (Reg::Virt(v), Some(_)) = (*r, spilled(r)) else {
                    return;
                };
                let idx = match temps.iter().position(|t| t.0 == v) {
                    Some(i) => i,
                    None => {
                        vregs.push(vregs[v.0 as usize]);
                        let t = Reg::Virt(VReg(vregs.len() as u32 - 1));
                        temps.push((v, t, false, false));
                        temps.len() - 1
                    }
                };
                let t = &mut temps[idx];
                t.2 |= access != Access::Def;
                t.3 |= access != Access::Use;
                *r = t.1;
            });
            let loc = inst.loc;
            for &(v, t, read, _) in &temps {
                if read {
                    out.push(spill_load(t, slot_of[v.0 as usize].unwrap(), loc));
                }
            }
            out.push(inst);
            for &(v, t, _, written) in &temps {
                if written {
                    out.push(spill_store(slot_of[v.0 as usize].unwrap(), t, loc));
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
        }
        | InstKind::Cmp {
            lhs: Rm::Reg(_),
            rhs: src @ Rmi::Reg(_),
            ..
        } => {
            if let Rmi::Reg(r) = src {
                if let Some(slot) = spilled(r) {
                    *src = Rmi::Mem(Address::slot(slot, 0));
                }
            }
        }
        InstKind::Imul {
            src: src @ Rm::Reg(_),
            ..
        }
        | InstKind::Extend {
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

fn spill_load(dst: Reg, slot: StackSlotId, loc: u32) -> Inst {
    Inst::new(
        InstKind::Load {
            dst,
            addr: Address::slot(slot, 0),
            width: Width::W64,
        },
        loc,
    )
}

fn spill_store(slot: StackSlotId, src: Reg, loc: u32) -> Inst {
    Inst::new(
        InstKind::Store {
            src: Ri::Reg(src),
            addr: Address::slot(slot, 0),
            width: Width::W64,
        },
        loc,
    )
}
