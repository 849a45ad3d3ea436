//! licm: hoists loop-invariant computations into the loop's preheader.
//! A loop is a header with back edges (a predecessor it dominates) and the
//! blocks that reach them; its preheader is the single outside predecessor
//! of the header when that one branches only to the header. Loops are
//! handled innermost first, so an invariant of nested loops climbs out of
//! all of them. Operations that can neither trap nor touch memory move:
//! arithmetic other than division and remainder, comparisons, casts, GEPs
//! and selects, whose operands are all defined outside the loop. So does a
//! plain (neither volatile nor atomic) load of an invariant address, when
//! nothing in the loop may write memory (no store, no atomic, no call but
//! the pure intrinsics dce may delete) and the load runs on every way out
//! of the loop: its block dominates every block that leaves the loop, so a
//! load that would trap already trapped before the loop could be left.
//!
//! In: any function. Out: the same function with those instructions in
//! the preheaders. Debug-info rule: drop: a hoisted instruction no longer
//! belongs to one iteration's statement, so its location becomes line 0 (in
//! the same scope); its debug records stay where they were in the loop (they
//! ride on the next instruction) and still name the hoisted value. When the
//! source order was recorded (-O0 input), `source_order::project` gives the
//! line back, without is_stmt.

use crate::ir::cfg::{successors, DomTree};
use crate::ir::{BinOp, BlockId, Function, InstId, InstKind, Value};

use super::dce::is_removable;
use super::debug_update::dropped_location;
use super::edit::{inst_blocks, remove_at};
use super::loops::{find_loops, Loop};
use super::PassCx;

/// Runs LICM on one function; true when something was hoisted.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let mut loops = find_loops(function);
    loops.sort_by_key(|l| l.size);
    let dom = DomTree::compute(function);
    let mut blocks = inst_blocks(function);
    let succs = successors(function);
    let mut changed = false;
    for lp in &loops {
        let exiting = exiting_blocks(lp, &succs);
        let read_only = !exiting.is_empty() && !may_write_memory(cx, function, lp);
        for &block in dom.rpo() {
            if !lp.body[block.0 as usize] {
                continue;
            }
            let runs_on_every_exit = exiting.iter().all(|&e| dom.dominates(block, e));
            let mut index = 0;
            while index < function.blocks[block.0 as usize].insts.len() {
                let id = function.blocks[block.0 as usize].insts[index];
                let inst = function.inst(id);
                let movable = match &inst.kind {
                    InstKind::Binary { op, .. } => {
                        !matches!(op, BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem)
                    }
                    InstKind::ICmp { .. }
                    | InstKind::Cast { .. }
                    | InstKind::Gep { .. }
                    | InstKind::Select { .. } => true,
                    InstKind::Load {
                        volatile, atomic, ..
                    } => !volatile && atomic.is_none() && read_only && runs_on_every_exit,
                    _ => false,
                };
                let invariant = inst.operands().iter().all(|v| match v {
                    Value::Inst(def) => {
                        blocks[def.0 as usize].is_some_and(|b| !lp.body[b.0 as usize])
                    }
                    _ => true,
                });
                if !(movable && invariant) {
                    index += 1;
                    continue;
                }
                remove_at(function, block, index);
                let pre = &mut function.blocks[lp.preheader.0 as usize].insts;
                let at = pre.len() - 1;
                pre.insert(at, id);
                blocks[id.0 as usize] = Some(lp.preheader);
                let dropped = dropped_location(cx.module, function.inst(id).dbg);
                function.inst_mut(id).dbg = dropped;
                changed = true;
            }
        }
    }
    changed
}

/// The loop's blocks with a successor outside it.
fn exiting_blocks(lp: &Loop, succs: &[Vec<BlockId>]) -> Vec<BlockId> {
    (0..succs.len())
        .filter(|&b| lp.body[b] && succs[b].iter().any(|s| !lp.contains(*s)))
        .map(|b| BlockId(b as u32))
        .collect()
}

/// Whether any instruction of the loop may write memory: everything but
/// plain loads and operations on values (and the pure intrinsic calls dce
/// may delete).
fn may_write_memory(cx: &PassCx, function: &Function, lp: &Loop) -> bool {
    let writes = |id: InstId| match &function.inst(id).kind {
        InstKind::Load {
            volatile, atomic, ..
        } => *volatile || atomic.is_some(),
        InstKind::Call { .. } => !is_removable(cx, function, id),
        InstKind::Binary { .. }
        | InstKind::ICmp { .. }
        | InstKind::Select { .. }
        | InstKind::Phi { .. }
        | InstKind::Cast { .. }
        | InstKind::Gep { .. }
        | InstKind::Freeze { .. }
        | InstKind::FBinary { .. }
        | InstKind::FNeg { .. }
        | InstKind::FCmp { .. }
        | InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::ShuffleVector { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. }
        | InstKind::Br { .. }
        | InstKind::CondBr { .. }
        | InstKind::Switch { .. }
        | InstKind::Ret { .. }
        | InstKind::Unreachable => false,
        _ => true,
    };
    function
        .blocks
        .iter()
        .enumerate()
        .filter(|(b, _)| lp.body[*b])
        .any(|(_, block)| block.insts.iter().any(|&id| writes(id)))
}
