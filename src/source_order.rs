//! Source order, recorded before the optimiser runs and projected onto what
//! it leaves.
//!
//! In: a verified module as read, whose functions belong to a compile unit
//! with `isOptimized: false` (clang -O0 IR): their order is the source's.
//! [`record`] keeps, per such function, its *source CFG of positions*: each
//! block's ordered statement locations and its successor blocks, with the
//! blocks' dominators, post-dominators and loops; and, for every
//! instruction, its *origin*: the block it starts in and its location,
//! keyed by the instruction's `pos` (where it was read from), which every
//! pass keeps as it moves or clones an instruction.
//! Out: [`project`] runs after the optimiser and marks, in the same module,
//! the code that left its source block for one it does not run in step
//! with.
//!
//! The rule. A block of the optimised function has a *home*: the origin
//! block of its terminator (else of most of its instructions). An
//! instruction of that function whose origin block differs from its
//! block's home is *in order* when the two source blocks run in step: one
//! dominates the other, the other post-dominates the first, and both sit in
//! the same source loops (a block folded into its only predecessor). Any
//! other instruction was moved out of order (hoisted out of a loop, sunk
//! past later statements, speculated above its condition): it keeps its
//! line, so an address in it still names the statement, but its location
//! becomes a `distinct` copy listed in `DebugInfo::out_of_order`, which the
//! line table never marks is_stmt. A pass that dropped such an
//! instruction's line to 0 (licm hoisting, simplifycfg speculating, both
//! keeping its scope) gets the source line back the same way. Phis, code a
//! pass made (no `pos`), inlined code (origins of another function) and
//! instructions without a source line are left as they are; reordering
//! inside one block is the line table's own rule.
//!
//! Functions of a compile unit with `isOptimized: true` (IR someone else
//! optimised) have no source order to record; for them [`record`] reads it
//! from their debug records instead ([`records`]: code sunk below a later
//! declaration of its scope), and [`project`] treats the instructions it
//! finds the same way: a `distinct` copy of their location, listed in
//! `DebugInfo::out_of_order`.

mod records;

use crate::ir::hash::{FxHashMap, FxHashSet};

use crate::ir::{
    cfg, DILocation, DebugInfo, Function, InstId, InstKind, LocId, MdId, MdNode, Module,
};

/// The source order of a module's unoptimised functions.
#[derive(Clone, Debug, Default)]
pub struct SourceOrder {
    /// By function name.
    functions: FxHashMap<String, SourceFunction>,
    /// For optimised functions, by name: the `pos` of each instruction
    /// their debug records place after its statement's turn.
    sunk: FxHashMap<String, FxHashSet<(u32, u32)>>,
}

/// The source CFG of positions of one function.
#[derive(Clone, Debug)]
pub struct SourceFunction {
    /// Its blocks, in the order read.
    pub blocks: Vec<SourceBlock>,
    /// Origins of its instructions, by `pos` (line, column).
    origins: FxHashMap<(u32, u32), Origin>,
    /// `dominators[b][a]`: block a dominates block b.
    dominators: Vec<Vec<bool>>,
    /// `post_dominators[b][a]`: block a post-dominates block b.
    post_dominators: Vec<Vec<bool>>,
    /// For each block, the headers of the loops it is in, sorted.
    loops: Vec<Vec<usize>>,
}

/// A block of the source CFG.
#[derive(Clone, Debug, Default)]
pub struct SourceBlock {
    /// Its statement locations in order (consecutive repeats once).
    pub statements: Vec<LocId>,
    /// Its successor blocks.
    pub successors: Vec<usize>,
}

/// Where an instruction starts in the source CFG.
#[derive(Clone, Copy, Debug)]
struct Origin {
    block: usize,
    loc: Option<LocId>,
}

/// Records the source order of every function whose compile unit is not
/// optimised (see the module rule).
pub fn record(module: &Module) -> SourceOrder {
    let mut order = SourceOrder::default();
    for function in &module.functions {
        if function.is_declaration() {
            continue;
        }
        if !unoptimised(&module.debug, function.subprogram) {
            let sunk = records::sunk_instructions(function, &module.debug);
            if !sunk.is_empty() {
                order.sunk.insert(function.name.clone(), sunk);
            }
            continue;
        }
        let successors: Vec<Vec<usize>> = cfg::successors(function)
            .into_iter()
            .map(|s| s.into_iter().map(|b| b.0 as usize).collect())
            .collect();
        let mut blocks = Vec::with_capacity(function.blocks.len());
        let mut origins = FxHashMap::default();
        for (b, block) in function.blocks.iter().enumerate() {
            let mut statements: Vec<LocId> = Vec::new();
            for &id in &block.insts {
                let inst = function.inst(id);
                let loc = inst.dbg.filter(|&l| module.debug.location(l).line != 0);
                if let Some(l) = loc {
                    if statements.last() != Some(&l) {
                        statements.push(l);
                    }
                }
                if inst.pos.line != 0 {
                    origins.insert((inst.pos.line, inst.pos.col), Origin { block: b, loc });
                }
            }
            blocks.push(SourceBlock {
                statements,
                successors: successors[b].clone(),
            });
        }
        let dominators = dominator_sets(&successors, false);
        let post_dominators = dominator_sets(&successors, true);
        let loops = loop_headers(&successors, &dominators);
        order.functions.insert(
            function.name.clone(),
            SourceFunction {
                blocks,
                origins,
                dominators,
                post_dominators,
                loops,
            },
        );
    }
    order
}

/// Whether a subprogram's compile unit says `isOptimized: false`.
fn unoptimised(debug: &DebugInfo, subprogram: Option<MdId>) -> bool {
    let Some(unit) = subprogram.and_then(|s| debug.subprogram(s)?.unit) else {
        return false;
    };
    matches!(debug.node(unit), MdNode::CompileUnit(cu) if !cu.is_optimized)
}

/// Applies the module rule to the optimised module; returns how many
/// instructions it found out of order.
pub fn project(module: &mut Module, order: &SourceOrder) -> usize {
    let mut moved = 0;
    let debug = &mut module.debug;
    for function in &mut module.functions {
        if let Some(sunk) = order.sunk.get(&function.name) {
            moved += mark_sunk(function, debug, sunk);
        }
        let Some(source) = order.functions.get(&function.name) else {
            continue;
        };
        let origins: Vec<Vec<(InstId, Option<Origin>)>> = function
            .blocks
            .iter()
            .map(|block| {
                block
                    .insts
                    .iter()
                    .map(|&id| {
                        let pos = function.inst(id).pos;
                        (id, source.origins.get(&(pos.line, pos.col)).copied())
                    })
                    .collect()
            })
            .collect();
        let preds = cfg::predecessors(function);
        for (b, insts) in origins.iter().enumerate() {
            let Some(home) = home_block(&origins, &preds, b, source.blocks.len()) else {
                continue;
            };
            for &(id, origin) in insts {
                if matches!(function.inst(id).kind, InstKind::Phi { .. }) {
                    continue;
                }
                let Some(origin) = origin else {
                    continue;
                };
                if origin.block == home || source.in_step(origin.block, home) {
                    continue;
                }
                let Some(source_loc) = origin.loc else {
                    continue;
                };
                let kept = match function.inst(id).dbg {
                    Some(loc) if debug.out_of_order.contains(&loc) => continue,
                    Some(loc) if debug.location(loc).line != 0 => loc,
                    // A line dropped by the pass that moved it comes back.
                    Some(loc) if same_place(debug.location(loc), debug.location(source_loc)) => {
                        source_loc
                    }
                    _ => continue,
                };
                function.inst_mut(id).dbg = Some(debug.out_of_order_copy(kept));
                moved += 1;
            }
        }
    }
    moved
}

/// Gives each instruction of `function` whose `pos` is in `sunk` (and
/// that still has a line) an out-of-order copy of its location; returns
/// how many.
fn mark_sunk(
    function: &mut Function,
    debug: &mut DebugInfo,
    sunk: &FxHashSet<(u32, u32)>,
) -> usize {
    let mut moved = 0;
    for b in 0..function.blocks.len() {
        for i in 0..function.blocks[b].insts.len() {
            let id = function.blocks[b].insts[i];
            let inst = function.inst(id);
            if !sunk.contains(&(inst.pos.line, inst.pos.col)) {
                continue;
            }
            let Some(loc) = inst.dbg else {
                continue;
            };
            if debug.out_of_order.contains(&loc) || debug.location(loc).line == 0 {
                continue;
            }
            function.inst_mut(id).dbg = Some(debug.out_of_order_copy(loc));
            moved += 1;
        }
    }
    moved
}

/// Whether a line-0 location is the source location with its line dropped
/// (same scope and inlining).
fn same_place(dropped: &DILocation, source: &DILocation) -> bool {
    dropped.scope == source.scope && dropped.inlined_at == source.inlined_at
}

/// The home of block `b` (`origins`: every block's instructions with their
/// origins): its terminator's origin block; else, for a block a pass made
/// in front of another (a loop's new preheader), the origin of its only
/// predecessor's terminator, the block it runs in step with; else the
/// origin block most of its instructions have.
fn home_block(
    origins: &[Vec<(InstId, Option<Origin>)>],
    preds: &[Vec<crate::ir::BlockId>],
    b: usize,
    blocks: usize,
) -> Option<usize> {
    let insts = &origins[b];
    if let Some((_, Some(origin))) = insts.last() {
        return Some(origin.block);
    }
    if let [pred] = preds[b][..] {
        if let Some((_, Some(origin))) = origins[pred.0 as usize].last() {
            return Some(origin.block);
        }
    }
    let mut counts = vec![0usize; blocks];
    for (_, origin) in insts {
        if let Some(origin) = origin {
            counts[origin.block] += 1;
        }
    }
    let (best, &count) = counts
        .iter()
        .enumerate()
        .max_by_key(|&(b, &c)| (c, usize::MAX - b))?;
    (count > 0).then_some(best)
}

impl SourceOrder {
    /// The recorded source CFG of a function, by name.
    pub fn function(&self, name: &str) -> Option<&SourceFunction> {
        self.functions.get(name)
    }
}

impl SourceFunction {
    /// Whether source blocks `a` and `b` run in step (see the module rule).
    fn in_step(&self, a: usize, b: usize) -> bool {
        let (first, second) = if self.dominators[b][a] {
            (a, b)
        } else if self.dominators[a][b] {
            (b, a)
        } else {
            return false;
        };
        self.post_dominators[first][second] && self.loops[a] == self.loops[b]
    }
}

/// Dominator sets over `successors` from block 0 (`reverse`: post-dominators,
/// from every block without successors). `sets[b][a]`: a (post-)dominates b.
/// Unreachable blocks are dominated by every block.
fn dominator_sets(successors: &[Vec<usize>], reverse: bool) -> Vec<Vec<bool>> {
    let n = successors.len();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, succs) in successors.iter().enumerate() {
        for &s in succs {
            if reverse {
                predecessors[b].push(s);
            } else {
                predecessors[s].push(b);
            }
        }
    }
    let roots: Vec<bool> = (0..n)
        .map(|b| {
            if reverse {
                successors[b].is_empty()
            } else {
                b == 0
            }
        })
        .collect();
    let mut sets: Vec<Vec<bool>> = (0..n)
        .map(|b| {
            if roots[b] {
                (0..n).map(|a| a == b).collect()
            } else {
                vec![true; n]
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if roots[b] || predecessors[b].is_empty() {
                continue;
            }
            let mut set = vec![true; n];
            for &p in &predecessors[b] {
                for (bit, &other) in set.iter_mut().zip(&sets[p]) {
                    *bit &= other;
                }
            }
            set[b] = true;
            if set != sets[b] {
                sets[b] = set;
                changed = true;
            }
        }
    }
    sets
}

/// For each block, the headers of the natural loops it is in: a back edge
/// `t → h` (h dominates t) makes a loop of h and the blocks that reach t
/// without passing h.
fn loop_headers(successors: &[Vec<usize>], dominators: &[Vec<bool>]) -> Vec<Vec<usize>> {
    let n = successors.len();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, succs) in successors.iter().enumerate() {
        for &s in succs {
            predecessors[s].push(b);
        }
    }
    let mut headers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (tail, succs) in successors.iter().enumerate() {
        for &header in succs {
            if !dominators[tail][header] {
                continue;
            }
            let mut inside = vec![false; n];
            inside[header] = true;
            let mut work = vec![tail];
            while let Some(b) = work.pop() {
                if !std::mem::replace(&mut inside[b], true) {
                    work.extend(&predecessors[b]);
                }
            }
            for (b, &is_in) in inside.iter().enumerate() {
                if is_in && !headers[b].contains(&header) {
                    headers[b].push(header);
                }
            }
        }
    }
    for list in &mut headers {
        list.sort_unstable();
    }
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    /// entry 0 → for.cond 1 ⇄ for.body 2 (→ for.inc 3 → 1), 1 → exit 4.
    fn for_loop() -> Vec<Vec<usize>> {
        vec![vec![1], vec![2, 4], vec![3], vec![1], vec![]]
    }

    #[test]
    fn loops_and_dominators_of_a_for_loop() {
        let succs = for_loop();
        let dom = dominator_sets(&succs, false);
        let pdom = dominator_sets(&succs, true);
        assert!(dom[2][1] && dom[4][1] && !dom[1][2]);
        assert!(pdom[0][1] && pdom[2][3] && !pdom[1][2]);
        assert_eq!(
            loop_headers(&succs, &dom),
            [vec![], vec![1], vec![1], vec![1], vec![]]
        );
        let f = SourceFunction {
            blocks: vec![],
            origins: FxHashMap::default(),
            loops: loop_headers(&succs, &dom),
            dominators: dom,
            post_dominators: pdom,
        };
        // The body and its increment run in step; the body and the
        // preheader do not (hoisting), nor the condition and the body.
        assert!(f.in_step(2, 3) && f.in_step(3, 2));
        assert!(!f.in_step(0, 2) && !f.in_step(1, 2));
        // The entry and the exit run in step, outside the loop.
        assert!(f.in_step(0, 4));
    }
}
