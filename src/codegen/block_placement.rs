//! Block placement: the order of a function's blocks in memory, so that
//! the likely successor of each block is the one that follows it.
//!
//! In: a MIR function after register allocation and LiveDebugValues, its
//! blocks in selection order (the IR's), plus the branch weights isel
//! recorded from `!prof` ([`Function::edge_weights`]). Out: the same
//! blocks in a new order, every branch and jump table renamed, and an
//! explicit `jmp` wherever a block used to fall through into a block that
//! no longer follows it (the encoder emits no bytes for a `jmp` to the
//! next block, and turns `jcc t; jmp o` with `t` next into `j!cc o`).
//!
//! The rule (the bottom-up chaining of Pettis and Hansen, over estimated
//! frequencies as LLVM's MachineBlockPlacement uses them):
//! 1. Each edge gets a probability: the `!prof` weights where the IR has
//!    them; otherwise an edge leaving a loop (to a shallower block) or
//!    reaching a block that traps is unlikely (4 against 124, LLVM's loop
//!    branch heuristic), and the rest share evenly.
//! 2. Each block gets a frequency: the mass reaching it along forward
//!    edges (back edges dropped and the other edges of their block
//!    renormalised, so what enters a loop leaves it), times 8 per loop
//!    around it.
//! 3. Edges that can become a fall-through (a block's jump or fall-through
//!    target, or the target of its only `jcc`, which can be inverted) are
//!    taken in decreasing frequency (the edge that falls through today
//!    first among equals); each joins the chain ending at its source to
//!    the chain starting at its target. The entry block stays first.
//! 4. Chains are laid out with the entry's first, the others in the
//!    selection order of their first block.
//!
//! Only non-debug instructions decide anything, so the code is the same
//! with and without debug information. Debug values stay in their blocks:
//! history joins the locations blocks inherit over the final control flow,
//! not the layout, so no block relies on the block laid out before it (and
//! LiveDebugValues restates every inherited location around the blocks
//! this pass skips).

use super::loop_depth::{loop_depths, reverse_post_order};
use super::mir::{Block, BlockId, DbgOperand, DbgOperands, DbgValue, Function, Inst, InstKind};

/// How much more often a loop's body runs than the code around it.
const LOOP_SCALE: f64 = 8.0;
/// The weights of an edge leaving a loop or reaching a trap against the
/// other edge of its block (LLVM's loop branch heuristic).
const UNLIKELY: f64 = 4.0;
const LIKELY: f64 = 124.0;

/// Reorders the blocks of `f` (see the module doc) and returns the new
/// index of each old block.
pub fn run(f: &mut Function) -> Vec<BlockId> {
    let n = f.blocks.len();
    if n <= 2 {
        return (0..n as u32).map(BlockId).collect();
    }
    let forward = thread_jumps(f);
    let exits: Vec<Exit> = (0..n).map(|b| Exit::of(f, b)).collect();
    // Every successor, those of a `jcc` in the middle of a block (isel's
    // branch chains) included.
    let successors = f.successor_lists();
    let depth = loop_depths(f);
    let rpo = reverse_post_order(&successors);
    let mut rpo_index = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        rpo_index[b] = i;
    }
    let probabilities = edge_probabilities(f, &successors, &exits, &depth);
    let frequency = block_frequencies(&rpo, &rpo_index, &probabilities, &depth);

    // An edge that returns to the top of a loop: to a block no later in
    // reverse post-order, or to a block that only leads to one (a latch's
    // copies). From a block with other ways out it never falls through:
    // the loop's blocks follow its top and the latch branches back. From
    // a block with no other way out it may: the top then follows it and
    // the loop is entered by a jump (the rotated loop LLVM lays out).
    let goes_back = |b: usize, s: usize| {
        rpo_index[s] <= rpo_index[b]
            || matches!(successors[s][..], [t] if rpo_index[t] <= rpo_index[b])
    };

    // Candidate fall-through edges, hottest first (from blocks execution
    // reaches).
    let reached = |b: usize| rpo_index[b] != usize::MAX;
    let mut edges: Vec<(f64, usize, usize)> = Vec::new();
    for (b, exit) in exits.iter().enumerate().filter(|&(b, _)| reached(b)) {
        for &s in &exit.fall_candidates() {
            if s == 0 || (successors[b].len() > 1 && goes_back(b, s)) {
                continue;
            }
            let p = probabilities[b]
                .iter()
                .find(|&&(t, _)| t == s)
                .map_or(0.0, |&(_, p)| p);
            edges.push((frequency[b] * p, b, s));
        }
    }
    edges.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| (x.2 != x.1 + 1).cmp(&(y.2 != y.1 + 1)))
            .then_with(|| (x.1, x.2).cmp(&(y.1, y.2)))
    });

    // Chains: `next[b]` follows `b`; `head[b]`/`tail[b]` hold for ends.
    let mut next = vec![usize::MAX; n];
    let mut prev = vec![usize::MAX; n];
    let mut chain_of: Vec<usize> = (0..n).collect();
    let mut members: Vec<Vec<usize>> = (0..n).map(|b| vec![b]).collect();
    for &(_, from, to) in &edges {
        if next[from] != usize::MAX || prev[to] != usize::MAX {
            continue;
        }
        let (a, c) = (chain_of[from], chain_of[to]);
        if a == c {
            continue;
        }
        next[from] = to;
        prev[to] = from;
        let moved = std::mem::take(&mut members[c]);
        for &m in &moved {
            chain_of[m] = a;
        }
        members[a].extend(moved);
    }

    // Layout: the entry's chain, then the rest by their first block. A
    // block that only jumped and that nothing reaches now is left out.
    let dropped = |b: usize| !reached(b) && forward[b] != b && reached(forward[b]);
    let mut order = Vec::with_capacity(n);
    let mut heads: Vec<usize> = (0..n)
        .filter(|&b| prev[b] == usize::MAX && !dropped(b))
        .collect();
    heads.sort_by_key(|&h| (chain_of[h] != chain_of[0], h));
    for h in heads {
        let mut b = h;
        loop {
            order.push(b);
            if next[b] == usize::MAX {
                break;
            }
            b = next[b];
        }
    }
    apply(f, &order, &exits, &forward)
}

/// Sends every branch, jump-table entry and fall-through that reaches a
/// block holding nothing but `jmp t` (an edge block whose copies were
/// coalesced), or nothing at all (falling into `t`), straight to `t`, adding the `jmp` a fall-through then needs.
/// A variable such a block changes has no location where it led
/// ([`end_locations_set_by_skipped_blocks`]); the rest of its debug values
/// restate its one predecessor's locations. The skipped blocks are left without predecessors. Returns
/// where execution entering each block goes on (itself for most).
fn thread_jumps(f: &mut Function) -> Vec<usize> {
    let n = f.blocks.len();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); n];
    for b in 0..n {
        for s in f.successors(BlockId(b as u32)) {
            predecessors[s.0 as usize].push(b);
        }
    }
    let only_jump: Vec<Option<usize>> = (0..n).map(|b| jump_only_target(f, b)).collect();
    let through = |mut b: usize| {
        for _ in 0..n {
            match only_jump[b] {
                Some(t) if t != b => b = t,
                _ => break,
            }
        }
        BlockId(b as u32)
    };
    for b in 0..n {
        let exit = Exit::of(f, b);
        if let (true, Some(d)) = (exit.falls, exit.default) {
            if only_jump[d].is_some() {
                let loc = last_loc(&f.blocks[b]);
                f.blocks[b].insts.push(Inst::new(
                    InstKind::Jmp {
                        target: BlockId(d as u32),
                    },
                    loc,
                ));
            }
        }
        let jumps_only = only_jump[b].is_some();
        for inst in &mut f.blocks[b].insts {
            if let InstKind::Jcc { target, .. }
            | InstKind::Jmp { target }
            | InstKind::Call {
                unwind: Some(target),
                ..
            } = &mut inst.kind
            {
                if !jumps_only {
                    *target = through(target.0 as usize);
                }
            }
        }
    }
    for table in &mut f.jump_tables {
        for target in table {
            *target = through(target.0 as usize);
        }
    }
    for weight in &mut f.edge_weights {
        weight.to = through(weight.to.0 as usize);
    }
    let forward: Vec<usize> = (0..n).map(|b| through(b).0 as usize).collect();
    end_locations_set_by_skipped_blocks(f, &forward, &predecessors);
    forward
}

/// Where block `b` goes on when it holds nothing but `jmp t` (`t`) or
/// nothing at all (the next block), debug values aside: the blocks
/// [`thread_jumps`] skips. `None` for the entry block and any other.
pub(super) fn jump_only_target(f: &Function, b: usize) -> Option<usize> {
    let mut code = f.blocks[b].insts.iter().filter(|i| !i.is_debug());
    match (code.next(), code.next()) {
        _ if b == 0 => None,
        (
            Some(Inst {
                kind: InstKind::Jmp { target },
                ..
            }),
            None,
        ) => Some(target.0 as usize),
        (None, _) if b + 1 < f.blocks.len() => Some(b + 1),
        _ => None,
    }
}

/// A skipped block may hold debug values that change a variable on its
/// edge (the IR's `#dbg_value` at the end of a branch arm) after
/// LiveDebugValues' restatement of what it inherits. Where that edge now
/// joins other paths, the variable's value at the join depends on the
/// path, and LiveDebugValues gave it no location there: it restates at the
/// start of `forward[b]` only what every path agrees on. History redoes
/// that join over the final blocks, where the changing block is gone and
/// the other paths may agree on the old value. So a variable a skipped
/// block changes and its target does not restate becomes unavailable at
/// the target's start, as LiveDebugValues found (a debug value only: the
/// code is the same with and without debug information). The block changes
/// it when its last debug value of it is not where every predecessor
/// (before threading) left it: two different debug values of it in the
/// block, or one that some predecessor's last does not say. That includes
/// a value set where the variable had no location, which history would
/// otherwise take for a parameter's entry value still holding (csmith
/// 201445: `p_10 = 0` in a skipped block, shown as the caller's 1). A
/// variable the block only restates needs nothing: its predecessors end as
/// it does.
fn end_locations_set_by_skipped_blocks(
    f: &mut Function,
    forward: &[usize],
    predecessors: &[Vec<usize>],
) {
    if forward.iter().enumerate().all(|(b, &t)| t == b) {
        return;
    }
    let n = f.blocks.len();
    let mut ended: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    // Worked out once per block that needs them, by variable id (a skipped
    // block may hold hundreds of debug values, LiveDebugValues'
    // restatements, and scanning its predecessors and target per value was
    // quadratic): each predecessor's last debug value of each variable, and
    // what each target's opening debug values restate or this pass ended.
    let mut last_values: Vec<Option<Vec<Option<&DbgValue>>>> = vec![None; n];
    let mut marks: Vec<Option<Vec<u8>>> = vec![None; n];
    const RESTATED: u8 = 1;
    const ENDED: u8 = 2;
    // By variable id, for the skipped block at hand (where `seen` holds its
    // number plus one): the indices of its first and last debug value of
    // the variable, and whether a predecessor leaves it elsewhere.
    let mut seen: Vec<usize> = Vec::new();
    let mut ends: Vec<(usize, usize)> = Vec::new();
    let mut left_elsewhere: Vec<Option<bool>> = Vec::new();
    for (b, &t) in forward.iter().enumerate() {
        if t == b {
            continue;
        }
        let values: Vec<&DbgValue> = f.blocks[b]
            .insts
            .iter()
            .filter_map(|i| match &i.kind {
                InstKind::DbgValue(d) => Some(d),
                _ => None,
            })
            .collect();
        if values.is_empty() {
            continue;
        }
        for (i, d) in values.iter().enumerate() {
            let v = d.variable as usize;
            if v >= seen.len() {
                seen.resize(v + 1, 0);
                ends.resize(v + 1, (0, 0));
                left_elsewhere.resize(v + 1, None);
            }
            if seen[v] != b + 1 {
                seen[v] = b + 1;
                ends[v].0 = i;
                left_elsewhere[v] = None;
            }
            ends[v].1 = i;
        }
        let marks_of_t = marks[t].get_or_insert_with(|| {
            let mut restated = Vec::new();
            for inst in f.blocks[t].insts.iter().take_while(|i| i.is_debug()) {
                if let InstKind::DbgValue(d) = &inst.kind {
                    let v = d.variable as usize;
                    if v >= restated.len() {
                        restated.resize(v + 1, 0);
                    }
                    restated[v] = RESTATED;
                }
            }
            restated
        });
        for d in &values {
            let v = d.variable as usize;
            if marks_of_t.get(v).is_some_and(|&m| m != 0) {
                continue;
            }
            let (first, last) = (values[ends[v].0], values[ends[v].1]);
            let changes = !first.same_location(d)
                || *left_elsewhere[v].get_or_insert_with(|| {
                    predecessors[b].iter().any(|&p| {
                        last_values[p]
                            .get_or_insert_with(|| last_debug_values(&f.blocks[p]))
                            .get(v)
                            .copied()
                            .flatten()
                            .is_none_or(|end| !end.same_location(last))
                    })
                });
            if changes {
                if v >= marks_of_t.len() {
                    marks_of_t.resize(v + 1, 0);
                }
                marks_of_t[v] = ENDED;
                ended[t].push((d.variable, d.expr));
            }
        }
    }
    for (t, variables) in ended.into_iter().enumerate() {
        let loc = f.blocks[t].insts.first().map_or(0, |i| i.loc);
        let undefined = variables.into_iter().map(|(variable, expr)| {
            Inst::new(
                InstKind::DbgValue(DbgValue {
                    variable,
                    operands: DbgOperands::one(DbgOperand::NoReg),
                    expr,
                    indirect: false,
                    moved: false,
                }),
                loc,
            )
        });
        f.blocks[t].insts.splice(0..0, undefined);
    }
}

/// A block's last debug value of each variable, by variable id.
fn last_debug_values(block: &Block) -> Vec<Option<&DbgValue>> {
    let mut last = Vec::new();
    for inst in &block.insts {
        if let InstKind::DbgValue(d) = &inst.kind {
            let v = d.variable as usize;
            if v >= last.len() {
                last.resize(v + 1, None);
            }
            last[v] = Some(d);
        }
    }
    last
}

/// The `loc` of a block's last non-debug instruction (0 if none), for a
/// `jmp` added at its end.
fn last_loc(block: &Block) -> u32 {
    block
        .insts
        .iter()
        .rev()
        .find(|inst| !inst.is_debug())
        .map_or(0, |inst| inst.loc)
}

/// How a block ends, from its non-debug terminators.
struct Exit {
    /// Targets of its `jcc`s, in order.
    conditional: Vec<usize>,
    /// Where it goes when no `jcc` is taken: its `jmp` target or the next
    /// block; `None` after `ret`, `ud2`, an indirect or tail jump.
    default: Option<usize>,
    /// Whether the block falls into `default` (no `jmp`).
    falls: bool,
    /// Whether it ends in a trap (`ud2`, what `unreachable` after a
    /// call that does not return becomes): a path to it is cold.
    traps: bool,
}

impl Exit {
    fn of(f: &Function, b: usize) -> Exit {
        let mut code = f.blocks[b].insts.iter().rev().filter(|i| !i.is_debug());
        let mut exit = Exit {
            conditional: Vec::new(),
            default: (b + 1 < f.blocks.len()).then_some(b + 1),
            falls: true,
            traps: matches!(
                code.clone().next(),
                Some(Inst {
                    kind: InstKind::Ud2,
                    ..
                })
            ),
        };
        for inst in code.by_ref().take_while(|i| i.is_terminator()) {
            match inst.kind {
                InstKind::Jcc { target, .. } => exit.conditional.insert(0, target.0 as usize),
                InstKind::Jmp { target } => {
                    exit.default = Some(target.0 as usize);
                    exit.falls = false;
                }
                _ => {
                    exit.default = None;
                    exit.falls = false;
                }
            }
        }
        exit
    }

    /// The successors that can follow the block: its default target, and
    /// the target of a lone `jcc` (inverted when it follows).
    fn fall_candidates(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.default.into_iter().collect();
        if let ([only], Some(_)) = (&self.conditional[..], self.default) {
            out.push(*only);
        }
        out
    }
}

/// Each block's successors with their probabilities (see the module doc,
/// rule 1).
fn edge_probabilities(
    f: &Function,
    successors: &[Vec<usize>],
    exits: &[Exit],
    depth: &[u32],
) -> Vec<Vec<(usize, f64)>> {
    let mut hints: Vec<Vec<(usize, u32)>> = vec![Vec::new(); successors.len()];
    for w in &f.edge_weights {
        hints[w.from.0 as usize].push((w.to.0 as usize, w.weight));
    }
    successors
        .iter()
        .enumerate()
        .map(|(b, succs)| {
            let hinted: Vec<(usize, f64)> = succs
                .iter()
                .filter_map(|&s| {
                    hints[b]
                        .iter()
                        .find(|&&(t, _)| t == s)
                        .map(|&(_, w)| (s, f64::from(w)))
                })
                .collect();
            let weights: Vec<(usize, f64)> = if hinted.len() == succs.len() {
                hinted
            } else {
                let unlikely = |s: usize| depth[s] < depth[b] || exits[s].traps;
                let mixed =
                    succs.iter().any(|&s| unlikely(s)) && !succs.iter().all(|&s| unlikely(s));
                succs
                    .iter()
                    .map(|&s| match (mixed, unlikely(s)) {
                        (true, true) => (s, UNLIKELY),
                        (true, false) => (s, LIKELY),
                        _ => (s, 1.0),
                    })
                    .collect()
            };
            let total: f64 = weights.iter().map(|&(_, w)| w).sum();
            weights
                .into_iter()
                .map(|(s, w)| (s, if total > 0.0 { w / total } else { 0.0 }))
                .collect()
        })
        .collect()
}

/// Each block's estimated frequency, the entry's being 1 (see the module
/// doc, rule 2). Unreachable blocks get 0.
fn block_frequencies(
    rpo: &[usize],
    rpo_index: &[usize],
    probabilities: &[Vec<(usize, f64)>],
    depth: &[u32],
) -> Vec<f64> {
    let n = rpo_index.len();
    let forward = |from: usize, to: usize| rpo_index[to] > rpo_index[from];
    let mut mass = vec![0.0; n];
    mass[0] = 1.0;
    for &b in rpo {
        let forward_total: f64 = probabilities[b]
            .iter()
            .filter(|&&(s, _)| forward(b, s))
            .map(|&(_, p)| p)
            .sum();
        if forward_total <= 0.0 {
            continue;
        }
        for &(s, p) in &probabilities[b] {
            if forward(b, s) {
                mass[s] += mass[b] * p / forward_total;
            }
        }
    }
    (0..n)
        .map(|b| mass[b] * LOOP_SCALE.powi(depth[b].min(8) as i32))
        .collect()
}

/// Puts the blocks of `f` in `order` (the blocks left out only jumped to
/// `forward` of them), adding a `jmp` where a block's fall-through target
/// no longer follows it, and renames every block reference. Returns the
/// new index of each old block (a block left out: of where it jumped).
fn apply(f: &mut Function, order: &[usize], exits: &[Exit], forward: &[usize]) -> Vec<BlockId> {
    let n = f.blocks.len();
    let mut new_index = vec![None; n];
    for (i, &b) in order.iter().enumerate() {
        new_index[b] = Some(BlockId(i as u32));
    }
    let new_index: Vec<BlockId> = (0..n)
        .map(|b| new_index[b].or(new_index[forward[b]]).unwrap_or(BlockId(0)))
        .collect();
    for (i, &b) in order.iter().enumerate() {
        if let (true, Some(d)) = (exits[b].falls, exits[b].default) {
            if order.get(i + 1) != Some(&d) {
                let loc = last_loc(&f.blocks[b]);
                f.blocks[b].insts.push(Inst::new(
                    InstKind::Jmp {
                        target: BlockId(d as u32),
                    },
                    loc,
                ));
            }
        }
    }
    let mut old: Vec<_> = std::mem::take(&mut f.blocks)
        .into_iter()
        .map(Some)
        .collect();
    f.blocks = order
        .iter()
        .map(|&b| old[b].take().unwrap_or_default())
        .collect();
    for inst in f.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        if let InstKind::Jcc { target, .. }
        | InstKind::Jmp { target }
        | InstKind::Call {
            unwind: Some(target),
            ..
        } = &mut inst.kind
        {
            *target = new_index[target.0 as usize];
        }
    }
    for table in &mut f.jump_tables {
        for target in table {
            *target = new_index[target.0 as usize];
        }
    }
    for weight in &mut f.edge_weights {
        weight.from = new_index[weight.from.0 as usize];
        weight.to = new_index[weight.to.0 as usize];
    }
    new_index
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{
        AluOp, Cond, EdgeWeight, Gpr, JumpTableId, PhysReg, Reg, Rmi, Width,
    };

    fn block(kinds: Vec<InstKind>) -> Block {
        Block {
            insts: kinds.into_iter().map(|k| Inst::new(k, 0)).collect(),
        }
    }

    fn ret() -> InstKind {
        InstKind::Ret { uses: vec![] }
    }

    fn jcc(target: u32) -> InstKind {
        InstKind::Jcc {
            cond: Cond::E,
            target: BlockId(target),
        }
    }

    fn jmp(target: u32) -> InstKind {
        InstKind::Jmp {
            target: BlockId(target),
        }
    }

    fn work() -> InstKind {
        InstKind::Copy {
            dst: Reg::Phys(PhysReg::Gpr(Gpr::Rax)),
            src: Reg::Phys(PhysReg::Gpr(Gpr::Rcx)),
        }
    }

    /// The non-debug instructions of each block, by kind.
    fn kinds(f: &Function) -> Vec<Vec<InstKind>> {
        f.blocks
            .iter()
            .map(|b| b.insts.iter().map(|i| i.kind.clone()).collect())
            .collect()
    }

    #[test]
    fn a_weighted_rare_block_moves_after_the_likely_one() {
        // bb0: je bb1 (rare) else bb2; bb1: falls into bb2; bb2: ret.
        let mut f = Function::new("f");
        f.blocks = vec![
            block(vec![work(), jcc(1), jmp(2)]),
            block(vec![work()]),
            block(vec![ret()]),
        ];
        f.edge_weights = vec![
            EdgeWeight {
                from: BlockId(0),
                to: BlockId(1),
                weight: 1,
            },
            EdgeWeight {
                from: BlockId(0),
                to: BlockId(2),
                weight: 2000,
            },
        ];
        let placed = run(&mut f);
        assert_eq!(placed, [BlockId(0), BlockId(2), BlockId(1)]);
        assert_eq!(
            kinds(&f),
            [
                vec![work(), jcc(2), jmp(1)],
                vec![ret()],
                // It no longer falls into its successor.
                vec![work(), jmp(1)],
            ]
        );
    }

    #[test]
    fn jumps_through_jump_only_blocks_are_threaded_and_those_blocks_dropped() {
        // bb0: je bb1 else bb3 (through bb2, which only jumps); bb1 ends in
        // an indirect jump whose table names bb2.
        let mut f = Function::new("f");
        let table = JumpTableId(0);
        f.jump_tables = vec![vec![BlockId(2), BlockId(3)]];
        let target = Reg::Phys(PhysReg::Gpr(Gpr::Rax));
        f.blocks = vec![
            block(vec![work(), jcc(1), jmp(2)]),
            block(vec![InstKind::JmpIndirect { target, table }]),
            block(vec![jmp(3)]),
            block(vec![InstKind::Alu {
                op: AluOp::Add,
                width: Width::W64,
                dst: target,
                src: Rmi::Imm(1),
            }]),
            block(vec![ret()]),
        ];
        let placed = run(&mut f);
        // bb2 is gone; whatever pointed at it (a blockaddress) now points
        // at bb3.
        assert_eq!(placed[2], placed[3]);
        assert_eq!(f.blocks.len(), 4);
        assert_eq!(f.jump_tables, [vec![placed[3], placed[3]]]);
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            if let InstKind::Jcc { target, .. } | InstKind::Jmp { target } = inst.kind {
                assert_ne!(f.blocks[target.0 as usize].insts.len(), 0);
            }
        }
        assert_eq!(f.successors(placed[0]), [placed[1], placed[3]]);
    }
}
