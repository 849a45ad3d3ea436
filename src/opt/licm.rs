//! licm: hoists loop-invariant computations into the loop's preheader.
//! A loop is a header with back edges (a predecessor it dominates) and the
//! blocks that reach them; its preheader is the single outside predecessor
//! of the header when that one branches only to the header. Loops are
//! handled innermost first, so an invariant of nested loops climbs out of
//! all of them. Only operations that can neither trap nor touch memory
//! move: arithmetic other than division and remainder, comparisons, casts,
//! GEPs and selects, whose operands are all defined outside the loop.
//!
//! In: any function. Out: the same function with those instructions in
//! the preheaders. Debug-info rule: drop: a hoisted instruction no longer
//! belongs to one iteration's statement, so its location becomes line 0 (in
//! the same scope); its debug records stay where they were in the loop (they
//! ride on the next instruction) and still name the hoisted value.

use crate::ir::cfg::DomTree;
use crate::ir::{BinOp, Function, InstKind, Value};

use super::debug_update::dropped_location;
use super::edit::{inst_blocks, remove_at};
use super::loops::find_loops;
use super::PassCx;

/// Runs LICM on one function; true when something was hoisted.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let mut loops = find_loops(function);
    loops.sort_by_key(|l| l.size);
    let dom = DomTree::compute(function);
    let mut blocks = inst_blocks(function);
    let mut changed = false;
    for lp in &loops {
        for &block in dom.rpo() {
            if !lp.body[block.0 as usize] {
                continue;
            }
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
