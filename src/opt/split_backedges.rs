//! split-backedges: gives every critical back edge into a block with phis
//! (the bottom test of a rotated loop branching back to its first block) a
//! block of its own, placed just before the loop's first block. Code
//! generation puts a phi's copies on such a block; placed there, the bottom
//! test is one conditional jump back and the copies fall through into the
//! loop, instead of a branch out of the loop and a jump back.
//!
//! In: any function. Out: the same function with those edges split (the
//! new block is a lone `br`, which simplifycfg keeps: it carries a phi's
//! edge from a branching predecessor). Debug-info rule: drop: the new `br`
//! (and the phi copies code generation puts before it) gets line 0 in the
//! scope of the branch whose edge it carries: it runs between the bottom
//! test and the loop's first statement and belongs to neither. A `br` that
//! fell through into the loop and now jumps over the new block keeps its
//! line if that line has other code (a `for` line: gdb's breakpoint on it
//! must stop once at the loop's entry, as at -O0), else it gets line 0 too
//! (gdb would otherwise stop on a line such as `do {` where no -O0 code
//! stops). No debug record moves.

use crate::ir::cfg::DomTree;
use crate::ir::{Block, BlockId, Function, Inst, InstId, InstKind, Type};

use super::debug_update::dropped_location;
use super::edit::{insert_block, phi_count};
use super::PassCx;

/// Runs the pass on one function; true when an edge was split.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    // Splitting an edge changes neither the dominators of the other blocks
    // nor their reverse post-order (the new block is reached only from the
    // edge's source, and leads only to a block already visited), so the
    // edges found once are split in that order, their block ids shifted by
    // the blocks inserted before them.
    let edges = critical_back_edges(function);
    let limit = function.blocks.len();
    let mut inserted_at: Vec<BlockId> = Vec::new();
    for (pred, succ) in edges.into_iter().take(limit) {
        let shift = |b: BlockId, at: &BlockId| if b.0 >= at.0 { BlockId(b.0 + 1) } else { b };
        let pred = inserted_at.iter().fold(pred, shift);
        let succ = inserted_at.iter().fold(succ, shift);
        split(cx, function, pred, succ);
        inserted_at.push(succ);
    }
    !inserted_at.is_empty()
}

/// The critical back edges into blocks with phis, each taken once by a
/// conditional branch, in reverse post-order of their sources.
fn critical_back_edges(function: &Function) -> Vec<(BlockId, BlockId)> {
    let dom = DomTree::compute(function);
    let mut edges = Vec::new();
    for &pred in dom.rpo() {
        let Some(term) = function.terminator(pred) else {
            continue;
        };
        if !matches!(term.kind, InstKind::CondBr { .. }) {
            continue;
        }
        let succs = term.successors();
        for &succ in &succs {
            let once = succs.iter().filter(|&&s| s == succ).count() == 1;
            if once && dom.dominates(succ, pred) && phi_count(function, succ) != 0 {
                edges.push((pred, succ));
            }
        }
    }
    edges
}

/// Whether another placed instruction of the function has the same line as
/// `id` (a statement with code of its own, such as a `for` whose test is
/// elsewhere, rather than a line like `do {` that only branches).
fn line_has_other_code(cx: &PassCx, function: &Function, id: InstId) -> bool {
    let Some(loc) = function.inst(id).dbg else {
        return false;
    };
    let line = cx.module.debug.location(loc).line;
    function.blocks.iter().flat_map(|b| &b.insts).any(|&other| {
        other != id
            && function
                .inst(other)
                .dbg
                .is_some_and(|l| cx.module.debug.location(l).line == line)
    })
}

/// Puts a block of one `br succ` before `succ` and sends `pred`'s edge there.
/// A `br succ` of the block before it, which fell through and now jumps
/// over the new block, keeps its line when that line has other code (the
/// jump is where the statement begins, as a `for`'s initialisation); else it
/// gets line 0: the jump is new code of a line that no -O0 code stops at.
fn split(cx: &mut PassCx, function: &mut Function, pred: BlockId, succ: BlockId) {
    if succ.0 > 0 {
        let before = *function.blocks[succ.0 as usize - 1].insts.last().unwrap();
        if matches!(function.inst(before).kind, InstKind::Br { dest } if dest == succ)
            && !line_has_other_code(cx, function, before)
        {
            let dropped = dropped_location(cx.module, function.inst(before).dbg);
            function.inst_mut(before).dbg = dropped;
        }
    }
    let shift = |b: BlockId| if b.0 >= succ.0 { BlockId(b.0 + 1) } else { b };
    let term_loc = function.terminator(pred).and_then(|t| t.dbg);
    let mut br = Inst::new(InstKind::Br { dest: shift(succ) }, Type::Void);
    br.dbg = dropped_location(cx.module, term_loc);
    let br = function.add_inst(br);
    let edge = insert_block(
        function,
        succ,
        Block {
            name: None,
            insts: vec![br],
        },
    );
    let (pred, succ) = (shift(pred), shift(succ));
    let term = *function.block(pred).insts.last().unwrap();
    if let InstKind::CondBr {
        if_true, if_false, ..
    } = &mut function.inst_mut(term).kind
    {
        for target in [if_true, if_false] {
            if *target == succ {
                *target = edge;
            }
        }
    }
    for i in 0..phi_count(function, succ) {
        let phi = function.block(succ).insts[i];
        if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
            for (_, from) in incoming.iter_mut() {
                if *from == pred {
                    *from = edge;
                }
            }
        }
    }
}
