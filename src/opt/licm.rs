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

use crate::ir::cfg::{predecessors, DomTree};
use crate::ir::{BinOp, BlockId, DILocation, Function, InstKind, Value};

use super::edit::{inst_blocks, remove_at};
use super::PassCx;

/// One natural loop.
struct Loop {
    preheader: BlockId,
    body: Vec<bool>,
    size: usize,
}

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
                if let Some(loc) = function.inst(id).dbg {
                    let old = cx.module.debug.location(loc).clone();
                    let dropped = cx.module.debug.intern_location(DILocation {
                        line: 0,
                        column: 0,
                        implicit_code: false,
                        distinct: false,
                        ..old
                    });
                    function.inst_mut(id).dbg = Some(dropped);
                }
                changed = true;
            }
        }
    }
    changed
}

/// The function's natural loops that have a preheader (one per header).
fn find_loops(function: &Function) -> Vec<Loop> {
    let dom = DomTree::compute(function);
    let preds = predecessors(function);
    let n = function.blocks.len();
    let mut loops = Vec::new();
    for &header in dom.rpo() {
        let h = header.0 as usize;
        let latches: Vec<BlockId> = preds[h]
            .iter()
            .copied()
            .filter(|&p| dom.dominates(header, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        let mut body = vec![false; n];
        body[h] = true;
        let mut work = latches.clone();
        while let Some(b) = work.pop() {
            if body[b.0 as usize] {
                continue;
            }
            body[b.0 as usize] = true;
            work.extend(preds[b.0 as usize].iter().copied());
        }
        let outside: Vec<BlockId> = preds[h]
            .iter()
            .copied()
            .filter(|p| !body[p.0 as usize])
            .collect();
        let [preheader] = outside.as_slice() else {
            continue;
        };
        let only_to_header = matches!(
            function.terminator(*preheader).map(|t| &t.kind),
            Some(InstKind::Br { dest }) if *dest == header
        );
        if !only_to_header || !dom.is_reachable(*preheader) {
            continue;
        }
        let size = body.iter().filter(|&&b| b).count();
        loops.push(Loop {
            preheader: *preheader,
            body,
            size,
        });
    }
    loops
}
