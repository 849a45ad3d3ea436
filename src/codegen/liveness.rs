//! Liveness over the machine CFG and live ranges at instruction granularity.
//!
//! In: a [`Function`] over virtual and physical registers. Out: a
//! [`Liveness`]: per block live-in/live-out sets (a backward dataflow that
//! iterates to a fixed point, so loops are right), and per virtual and
//! physical register the sorted, disjoint half-open ranges of program
//! points where it holds a value that is still needed.
//!
//! Program points: the non-debug instructions are numbered `0, 1, …` in
//! layout order; instruction `n` reads its operands at point `2n` and writes
//! its results at `2n + 1`. A value defined by instruction `i` and last read
//! by instruction `j` lives over `[2i + 1, 2j + 1)`, so an instruction's
//! destination may share a register with a source read by the same
//! instruction. A definition that is never read gets `[2i + 1, 2i + 2)`.
//! Physical registers written implicitly (call clobbers, `div`) get such
//! ranges too, which is how values live across a call are kept out of
//! caller-saved registers.
//!
//! Promise: debug instructions are invisible here (they get no point and
//! their operands are not uses), so debug values can never change
//! allocation. Cost: the dataflow is a worklist over blocks with bit sets
//! of the registers that cross block boundaries (block-local registers are
//! left out of it); the ranges are linear in instructions.

use super::mir::{Access, BlockId, Function, InstKind, PhysReg, Reg, VReg};
use crate::x86::regs::RegSet;

/// A half-open range `[start, end)` of program points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Range {
    /// First point covered.
    pub start: u32,
    /// One past the last point covered.
    pub end: u32,
}

/// A fixed-size bit set over register indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// An empty set able to hold `0..len`.
    pub fn new(len: usize) -> BitSet {
        BitSet {
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// Whether `i` is in the set.
    pub fn contains(&self, i: usize) -> bool {
        self.words[i / 64] & (1 << (i % 64)) != 0
    }

    /// Adds `i`.
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Removes `i`.
    pub fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }

    /// Adds every member of `other`; returns whether anything was added.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (w, o) in self.words.iter_mut().zip(&other.words) {
            let new = *w | o;
            changed |= new != *w;
            *w = new;
        }
        changed
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(i * 64 + bit)
            })
        })
    }
}

/// Where a debug instruction sits, in program points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DebugPosition {
    /// Just before the non-debug instruction with this number (at its read
    /// point `2n`).
    Before(u32),
    /// After the last non-debug instruction of this block.
    BlockEnd(BlockId),
}

/// The liveness facts of one function.
#[derive(Clone, Debug)]
pub struct Liveness {
    /// Number of virtual registers.
    pub vreg_count: usize,
    /// Dense index in the block sets of each register that can be live
    /// across a block boundary (physical registers first, by
    /// [`PhysReg::index`], then such virtual registers); `None` for a
    /// virtual register that lives within one block.
    global_index: Vec<Option<u32>>,
    /// The register (index among all registers) of each global index.
    global_regs: Vec<usize>,
    /// Registers live on entry to each block (by global index).
    pub live_in: Vec<BitSet>,
    /// Registers live on exit from each block (by global index).
    pub live_out: Vec<BitSet>,
    /// Ranges of each virtual register, sorted and disjoint.
    pub vreg_ranges: Vec<Vec<Range>>,
    /// Ranges of each physical register, general-purpose and xmm alike (by
    /// [`PhysReg::index`]).
    pub fixed_ranges: [Vec<Range>; PhysReg::COUNT],
    /// First program point of each block.
    pub block_start: Vec<u32>,
    /// One past the last program point of each block.
    pub block_end: Vec<u32>,
}

impl Liveness {
    /// The index of `reg` in the block sets, if it can be live across a
    /// block boundary.
    pub fn index(&self, reg: Reg) -> Option<usize> {
        self.global_index[reg_index(self.vreg_count, reg)].map(|i| i as usize)
    }

    /// The virtual registers live on entry to block `b`.
    pub fn live_in_vregs(&self, b: BlockId) -> impl Iterator<Item = VReg> + '_ {
        self.live_in[b.0 as usize]
            .iter()
            .map(|gi| self.global_regs[gi])
            .filter(|&idx| idx < self.vreg_count)
            .map(|idx| VReg(idx as u32))
    }

    /// Whether `reg` holds a needed value at `pos`.
    pub fn is_live_at(&self, reg: Reg, pos: DebugPosition) -> bool {
        match pos {
            DebugPosition::Before(n) => {
                let ranges = match reg {
                    Reg::Virt(v) => &self.vreg_ranges[v.0 as usize],
                    Reg::Phys(p) => &self.fixed_ranges[p.index()],
                };
                covers(ranges, 2 * n)
            }
            DebugPosition::BlockEnd(b) => self
                .index(reg)
                .is_some_and(|i| self.live_out[b.0 as usize].contains(i)),
        }
    }
}

/// Whether sorted disjoint `ranges` cover `point`.
pub fn covers(ranges: &[Range], point: u32) -> bool {
    let i = ranges.partition_point(|r| r.end <= point);
    i < ranges.len() && ranges[i].start <= point
}

/// Whether sorted disjoint `ranges` intersect `[start, end)`.
pub fn intersects(ranges: &[Range], start: u32, end: u32) -> bool {
    let i = ranges.partition_point(|r| r.end <= start);
    i < ranges.len() && ranges[i].start < end
}

/// Index of a register among all registers: virtual ones first, then the
/// physical ones (by [`PhysReg::index`]).
fn reg_index(vreg_count: usize, reg: Reg) -> usize {
    match reg {
        Reg::Virt(v) => v.0 as usize,
        Reg::Phys(p) => vreg_count + p.index(),
    }
}

/// Calls `f(register index, access)` for every register an instruction
/// touches, explicit and implicit; a use-def is reported once as `UseDef`.
fn for_each_access(kind: &InstKind, vreg_count: usize, f: &mut impl FnMut(usize, Access)) {
    kind.visit_regs(&mut |r, a| f(reg_index(vreg_count, r), a));
    let uses = kind.implicit_uses();
    let defs = kind.implicit_defs();
    if uses.is_empty() && defs.is_empty() {
        return;
    }
    for g in uses.union(defs).iter() {
        let idx = vreg_count + g.index();
        match (uses.contains(g), defs.contains(g)) {
            (true, true) => f(idx, Access::UseDef),
            (true, false) => f(idx, Access::Use),
            (false, true) => f(idx, Access::Def),
            (false, false) => {}
        }
    }
}

/// Which registers take part in the dataflow: every physical register, and
/// each virtual register that is touched in more than one block or read
/// before it is written in its block. The others live and die within their
/// block, which keeps the dataflow small for -O0 code.
fn global_registers(f: &Function) -> (Vec<Option<u32>>, usize) {
    let vreg_count = f.vregs.len();
    const UNSEEN: u32 = u32::MAX;
    let mut home = vec![UNSEEN; vreg_count];
    let mut global = vec![false; vreg_count];
    for (b, block) in f.blocks.iter().enumerate() {
        for inst in block.insts.iter().filter(|i| !i.is_debug()) {
            inst.kind.visit_regs(&mut |r, a| {
                if let Reg::Virt(v) = r {
                    let v = v.0 as usize;
                    if home[v] == UNSEEN {
                        home[v] = b as u32;
                        global[v] |= a != Access::Def;
                    } else if home[v] != b as u32 {
                        global[v] = true;
                    }
                }
            });
        }
    }
    let mut index = vec![None; vreg_count + PhysReg::COUNT];
    for p in 0..PhysReg::COUNT {
        index[vreg_count + p] = Some(p as u32);
    }
    let mut next = PhysReg::COUNT as u32;
    for v in 0..vreg_count {
        if global[v] {
            index[v] = Some(next);
            next += 1;
        }
    }
    (index, next as usize)
}

/// Computes liveness and live ranges of `f`.
pub fn compute(f: &Function) -> Liveness {
    let vreg_count = f.vregs.len();
    let size = vreg_count + PhysReg::COUNT;
    let nblocks = f.blocks.len();
    let (global_index, global_count) = global_registers(f);

    // Local gen (read before written) and kill (written) sets of the
    // global registers, and the program points of each block.
    let mut gen = Vec::with_capacity(nblocks);
    let mut kill = Vec::with_capacity(nblocks);
    let mut block_start = Vec::with_capacity(nblocks);
    let mut block_end = Vec::with_capacity(nblocks);
    let mut next = 0u32;
    let mut defs = Vec::new();
    for block in &f.blocks {
        let mut g = BitSet::new(global_count);
        let mut k = BitSet::new(global_count);
        block_start.push(2 * next);
        for inst in block.insts.iter().filter(|i| !i.is_debug()) {
            defs.clear();
            for_each_access(&inst.kind, vreg_count, &mut |idx, a| {
                let Some(gi) = global_index[idx] else { return };
                let gi = gi as usize;
                if a != Access::Def && !k.contains(gi) {
                    g.insert(gi);
                }
                if a != Access::Use {
                    defs.push(gi);
                }
            });
            for &gi in &defs {
                k.insert(gi);
            }
            next += 1;
        }
        block_end.push(2 * next);
        gen.push(g);
        kill.push(k);
    }

    // Backward dataflow over a worklist: a block is revisited only when the
    // live-in set of one of its successors grew.
    let successors: Vec<Vec<BlockId>> = (0..nblocks)
        .map(|b| f.successors(BlockId(b as u32)))
        .collect();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); nblocks];
    for (b, succs) in successors.iter().enumerate() {
        for s in succs {
            predecessors[s.0 as usize].push(b);
        }
    }
    let mut live_in: Vec<BitSet> = gen.clone();
    let mut live_out: Vec<BitSet> = vec![BitSet::new(global_count); nblocks];
    let mut new_in = BitSet::new(global_count);
    let mut worklist: Vec<usize> = (0..nblocks).collect();
    let mut queued = vec![true; nblocks];
    while let Some(b) = worklist.pop() {
        queued[b] = false;
        for s in &successors[b] {
            let (out, inn) = (&mut live_out[b], &live_in[s.0 as usize]);
            out.union_with(inn);
        }
        // in = gen ∪ (out − kill)
        for ((w, o), k) in new_in
            .words
            .iter_mut()
            .zip(&live_out[b].words)
            .zip(&kill[b].words)
        {
            *w = o & !k;
        }
        new_in.union_with(&gen[b]);
        if new_in != live_in[b] {
            std::mem::swap(&mut live_in[b], &mut new_in);
            for &p in &predecessors[b] {
                if !queued[p] {
                    queued[p] = true;
                    worklist.push(p);
                }
            }
        }
    }

    // Ranges, built backwards; each register's list comes out in
    // decreasing order and is reversed and merged at the end. `live` holds
    // every register; at a block's start only global ones can be in it.
    let mut global_regs = vec![0usize; global_count];
    for (idx, gi) in global_index.iter().enumerate() {
        if let Some(gi) = gi {
            global_regs[*gi as usize] = idx;
        }
    }
    let mut ranges: Vec<Vec<Range>> = vec![Vec::new(); size];
    let mut range_end = vec![0u32; size];
    let mut live = BitSet::new(size);
    let mut accesses = Vec::new();
    for b in (0..nblocks).rev() {
        for gi in live_out[b].iter() {
            let idx = global_regs[gi];
            live.insert(idx);
            range_end[idx] = block_end[b];
        }
        let mut point = block_end[b] / 2;
        for inst in f.blocks[b].insts.iter().rev().filter(|i| !i.is_debug()) {
            point -= 1;
            let (use_pt, def_pt) = (2 * point, 2 * point + 1);
            accesses.clear();
            for_each_access(&inst.kind, vreg_count, &mut |idx, a| {
                accesses.push((idx, a))
            });
            for &(idx, a) in &accesses {
                if a == Access::Use {
                    continue;
                }
                if live.contains(idx) {
                    push_range(
                        &mut ranges[idx],
                        Range {
                            start: def_pt,
                            end: range_end[idx],
                        },
                    );
                    live.remove(idx);
                } else {
                    push_range(
                        &mut ranges[idx],
                        Range {
                            start: def_pt,
                            end: def_pt + 1,
                        },
                    );
                }
            }
            for &(idx, a) in &accesses {
                if a != Access::Def && !live.contains(idx) {
                    live.insert(idx);
                    range_end[idx] = use_pt + 1;
                }
            }
        }
        for gi in live_in[b].iter() {
            let idx = global_regs[gi];
            push_range(
                &mut ranges[idx],
                Range {
                    start: block_start[b],
                    end: range_end[idx],
                },
            );
            live.remove(idx);
        }
    }
    for list in &mut ranges {
        list.reverse();
        merge_ranges(list);
    }
    let fixed_ranges: [Vec<Range>; PhysReg::COUNT] =
        std::array::from_fn(|p| std::mem::take(&mut ranges[vreg_count + p]));
    ranges.truncate(vreg_count);
    Liveness {
        vreg_count,
        global_index,
        global_regs,
        live_in,
        live_out,
        vreg_ranges: ranges,
        fixed_ranges,
        block_start,
        block_end,
    }
}

/// Adds `r` to a list built backwards (in decreasing order of start),
/// merging it into the last range when they touch, so a register live
/// through many consecutive blocks keeps one range.
fn push_range(list: &mut Vec<Range>, r: Range) {
    match list.last_mut() {
        Some(last) if r.end >= last.start && r.start <= last.end => {
            last.start = last.start.min(r.start);
            last.end = last.end.max(r.end);
        }
        _ => list.push(r),
    }
}

/// Sorts and merges overlapping ranges in place; lists built with
/// [`push_range`] are already sorted and disjoint and are left alone.
fn merge_ranges(list: &mut Vec<Range>) {
    if list.windows(2).all(|w| w[0].end <= w[1].start) {
        return;
    }
    list.sort_unstable();
    let mut out: Vec<Range> = Vec::with_capacity(list.len());
    for r in list.drain(..) {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    *list = out;
}

/// The position of every debug instruction, in block/instruction order.
pub fn debug_positions(f: &Function) -> Vec<Vec<Option<DebugPosition>>> {
    let mut next = 0u32;
    f.blocks
        .iter()
        .enumerate()
        .map(|(b, block)| {
            let mut out = vec![None; block.insts.len()];
            let mut pending = Vec::new();
            for (i, inst) in block.insts.iter().enumerate() {
                if inst.is_debug() {
                    pending.push(i);
                } else {
                    for p in pending.drain(..) {
                        out[p] = Some(DebugPosition::Before(next));
                    }
                    next += 1;
                }
            }
            for p in pending {
                out[p] = Some(DebugPosition::BlockEnd(BlockId(b as u32)));
            }
            out
        })
        .collect()
}

/// The physical registers live on entry to and exit from each block of an
/// allocated function.
pub struct PhysLiveness {
    /// Live on entry to each block.
    pub live_in: Vec<RegSet>,
    /// Live on exit from each block.
    pub live_out: Vec<RegSet>,
}

/// The physical registers an instruction reads and those it writes,
/// explicitly or implicitly.
pub fn physical_accesses(kind: &InstKind) -> (RegSet, RegSet) {
    let mut uses = kind.implicit_uses();
    let mut defs = kind.implicit_defs();
    kind.visit_regs(&mut |r, a| {
        if let Reg::Phys(p) = r {
            if a != Access::Def {
                uses.insert(p);
            }
            if a != Access::Use {
                defs.insert(p);
            }
        }
    });
    (uses, defs)
}

/// [`PhysLiveness`] of the allocated `f`: a backward dataflow over its
/// blocks, explicit and implicit accesses alike.
pub fn physical(f: &Function) -> PhysLiveness {
    let n = f.blocks.len();
    // Read before written (gen) and written (kill) in each block.
    let mut gen = vec![RegSet::EMPTY; n];
    let mut kill = vec![RegSet::EMPTY; n];
    for (b, block) in f.blocks.iter().enumerate() {
        for inst in block.insts.iter().filter(|i| !i.is_debug()) {
            let (uses, defs) = physical_accesses(&inst.kind);
            gen[b] = gen[b].union(RegSet(uses.0 & !kill[b].0));
            kill[b] = kill[b].union(defs);
        }
    }
    let successors = f.successor_lists();
    let mut live_in = gen.clone();
    let mut live_out = vec![RegSet::EMPTY; n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let out = successors[b]
                .iter()
                .fold(RegSet::EMPTY, |acc, &s| acc.union(live_in[s]));
            let inn = gen[b].union(RegSet(out.0 & !kill[b].0));
            if out != live_out[b] || inn != live_in[b] {
                live_out[b] = out;
                live_in[b] = inn;
                changed = true;
            }
        }
    }
    PhysLiveness { live_in, live_out }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{AluOp, Cond, DbgOperand, DbgValue, Gpr, Inst, Rm, Rmi, VReg, Width};
    use crate::x86::abi::CALLER_SAVED;

    fn v(n: u32) -> Reg {
        Reg::Virt(VReg(n))
    }

    fn r(start: u32, end: u32) -> Range {
        Range { start, end }
    }

    /// bb0: %0 = COPY $rdi; %1 = MOV 0
    /// bb1: %1 += %0; %0 -= 1 (twice, as ALU); CMP %0, 0; JNE bb1
    /// bb2: $rax = COPY %1; RET $rax
    fn counting_loop() -> Function {
        let mut f = Function::new("loop");
        let a = f.new_vreg(Width::W32);
        let s = f.new_vreg(Width::W32);
        for _ in 0..3 {
            f.new_block();
        }
        let i = |k| Inst::new(k, 0);
        f.blocks[0].insts = vec![
            i(InstKind::Copy {
                dst: a,
                src: Gpr::Rdi.into(),
            }),
            i(InstKind::MovImm {
                dst: s,
                imm: 0,
                width: Width::W32,
            }),
        ];
        f.blocks[1].insts = vec![
            i(InstKind::Alu {
                op: AluOp::Add,
                width: Width::W32,
                dst: s,
                src: Rmi::Reg(a),
            }),
            i(InstKind::Alu {
                op: AluOp::Sub,
                width: Width::W32,
                dst: a,
                src: Rmi::Imm(1),
            }),
            i(InstKind::Cmp {
                width: Width::W32,
                lhs: Rm::Reg(a),
                rhs: Rmi::Imm(0),
            }),
            i(InstKind::Jcc {
                cond: Cond::Ne,
                target: BlockId(1),
            }),
        ];
        f.blocks[2].insts = vec![
            i(InstKind::Copy {
                dst: Gpr::Rax.into(),
                src: s,
            }),
            i(InstKind::Ret {
                uses: vec![Gpr::Rax.into()],
            }),
        ];
        f
    }

    #[test]
    fn loop_carried_values_live_through_the_whole_loop() {
        let live = compute(&counting_loop());
        assert_eq!(
            (live.block_start.clone(), live.block_end.clone()),
            (vec![0, 4, 12], vec![4, 12, 16])
        );
        // %0 from its copy to the loop's end (the back edge keeps it live).
        assert_eq!(live.vreg_ranges[0], [r(1, 12)]);
        assert_eq!(live.vreg_ranges[1], [r(3, 13)]);
        let (a, s) = (live.index(v(0)).unwrap(), live.index(v(1)).unwrap());
        assert!(live.live_in[1].contains(a) && live.live_in[1].contains(s));
        assert_eq!(live.fixed_ranges[Gpr::Rdi.hw() as usize], [r(0, 1)]);
        assert_eq!(live.fixed_ranges[Gpr::Rax.hw() as usize], [r(13, 15)]);
    }

    #[test]
    fn calls_clobber_caller_saved_registers() {
        let mut f = Function::new("calls");
        let a = f.new_vreg(Width::W64);
        f.new_block();
        f.blocks[0].insts = vec![
            Inst::new(
                InstKind::MovImm {
                    dst: a,
                    imm: 5,
                    width: Width::W64,
                },
                0,
            ),
            Inst::new(
                InstKind::Call {
                    target: crate::codegen::mir::CallTarget::Symbol("g".into()),
                    args: vec![],
                    rets: vec![Gpr::Rax.into()],
                    clobbers: CALLER_SAVED,
                    unwind: None,
                },
                0,
            ),
            Inst::new(
                InstKind::Copy {
                    dst: Gpr::Rdi.into(),
                    src: a,
                },
                0,
            ),
            Inst::new(InstKind::Ret { uses: vec![] }, 0),
        ];
        let live = compute(&f);
        assert_eq!(live.vreg_ranges[0], [r(1, 5)]);
        assert_eq!(live.fixed_ranges[Gpr::R11.hw() as usize], [r(3, 4)]);
        assert!(intersects(&live.fixed_ranges[Gpr::R11.hw() as usize], 1, 5));
        assert!(!intersects(
            &live.fixed_ranges[Gpr::Rbx.hw() as usize],
            1,
            5
        ));
    }

    #[test]
    fn debug_instructions_are_invisible() {
        let mut f = counting_loop();
        let plain = compute(&f);
        f.blocks[1].insts.insert(
            1,
            Inst::new(
                InstKind::DbgValue(DbgValue {
                    variable: 1,
                    operands: vec![DbgOperand::Reg(v(0)), DbgOperand::Reg(v(1))].into(),
                    expr: 1,
                    indirect: false,
                    moved: false,
                }),
                0,
            ),
        );
        let with_debug = compute(&f);
        assert_eq!(plain.vreg_ranges, with_debug.vreg_ranges);
        assert_eq!(plain.fixed_ranges, with_debug.fixed_ranges);
        let positions = debug_positions(&f);
        assert_eq!(positions[1][1], Some(DebugPosition::Before(3)));
        assert!(with_debug.is_live_at(v(1), DebugPosition::Before(3)));
    }
}
