//! sink: an instruction whose every use is in one successor of its block,
//! where that successor has no other predecessor, moves to the start of the
//! successor (after its phis), so the path that skips the successor does
//! not compute it. Only operations without memory effects move: arithmetic
//! (division too: the successor runs only after the block did), comparisons,
//! casts, GEPs, selects and the aggregate and vector element operations.
//! Instructions are visited from the bottom of each block up, so a chain of
//! such instructions feeding one successor sinks together, in order.
//!
//! In: any function. Out: the same function with those instructions sunk.
//! Debug-info rule (LLVM's "How to update debug info": a location is
//! preserved only when the instruction stays in its block or its block is
//! folded into an unconditional predecessor, else dropped, as MachineSink
//! does for the same move; this project keeps the line of moved code
//! without is_stmt, see ARCHITECTURE.md's line table): the sunk
//! instruction gets an out-of-order copy of its location
//! ([`DebugInfo::out_of_order_copy`](crate::ir::DebugInfo::out_of_order_copy)),
//! so an address in it still names its statement but no stop is made
//! there: in the successor it runs after code of later statements (csmith
//! 209029: line 251's address computation sunk past line 260's
//! `l_68 = 6` made a stop at 251 show l_68's later value). Its debug
//! records stay where they were in program order (they describe earlier
//! assignments). The `#dbg_value`s of the sunk value left in its
//! old block no longer see a definition above them, so they are salvaged
//! into the instruction's operands where that is possible (the operands
//! still dominate them) and otherwise become `poison`, an undefined debug
//! value that ends the variable's previous location there; a copy of the
//! last `#dbg_value` of each variable that described the value goes right
//! after the instruction's new place, so the variable is available again
//! wherever the value now exists.

use crate::ir::cfg::predecessors;
use crate::ir::{BlockId, DebugRecord, Function, InstId, InstKind, RecordKind, Value};

use super::debug_update::salvage_debug_uses;
use super::edit::{computes_only, insertion_point, inst_blocks, remove_at};
use super::PassCx;

/// Runs sinking on one function; true when an instruction moved.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let preds = predecessors(function);
    let mut blocks = inst_blocks(function);
    let users = code_users(function);
    let mut changed = false;
    for b in 0..function.blocks.len() {
        let block = BlockId(b as u32);
        let Some(succs) = function.terminator(block).map(|t| t.successors()) else {
            continue;
        };
        let mut distinct = succs.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() < 2 {
            continue;
        }
        // From the last instruction before the terminator upwards.
        let mut index = function.blocks[b].insts.len().saturating_sub(1);
        while index > 0 {
            index -= 1;
            let id = function.blocks[b].insts[index];
            if !computes_only(&function.inst(id).kind) {
                continue;
            }
            let Some(target) = single_user_block(function, &blocks, &users[id.0 as usize]) else {
                continue;
            };
            if target == block || !distinct.contains(&target) || preds[target.0 as usize] != [block]
            {
                continue;
            }
            sink(cx, function, block, index, target);
            blocks[id.0 as usize] = Some(target);
            changed = true;
        }
    }
    changed
}

/// The placed instructions whose code operands name each instruction.
fn code_users(function: &Function) -> Vec<Vec<InstId>> {
    let mut users = vec![Vec::new(); function.insts.len()];
    for block in &function.blocks {
        for &id in &block.insts {
            for operand in function.inst(id).operands() {
                if let Value::Inst(used) = operand {
                    users[used.0 as usize].push(id);
                }
            }
        }
    }
    users
}

/// The one block all of `users` are in, when none of them is a phi (a phi
/// reads its operand at the end of the predecessor, not in its block).
fn single_user_block(
    function: &Function,
    blocks: &[Option<BlockId>],
    users: &[InstId],
) -> Option<BlockId> {
    let mut target = None;
    for &user in users {
        if matches!(function.inst(user).kind, InstKind::Phi { .. }) {
            return None;
        }
        let block = blocks[user.0 as usize]?;
        match target {
            None => target = Some(block),
            Some(t) if t == block => {}
            Some(_) => return None,
        }
    }
    target
}

/// Moves the instruction at `index` of `block` to the start of `target`
/// and updates its debug values (see the module doc).
fn sink(cx: &mut PassCx, function: &mut Function, block: BlockId, index: usize, target: BlockId) {
    let id = function.blocks[block.0 as usize].insts[index];
    let named = |r: &DebugRecord| r.locations.contains(&Value::Inst(id));
    // The last #dbg_value per variable that describes the value in its old block.
    let mut copies: Vec<DebugRecord> = Vec::new();
    for &later in &function.blocks[block.0 as usize].insts[index + 1..] {
        for record in &function.inst(later).records {
            if record.kind == RecordKind::Value && named(record) {
                copies.retain(|c| c.variable != record.variable);
                copies.push(record.clone());
            }
        }
    }
    // The instruction's own records stay in program order.
    remove_at(function, block, index);
    let at = insertion_point(function, target);
    // Records already in the target that name the value stay as they are
    // (the value is defined above them there); every other one is salvaged.
    let kept: Vec<(InstId, Vec<DebugRecord>)> = function.blocks[target.0 as usize].insts[at..]
        .iter()
        .map(|&i| (i, function.inst(i).records.clone()))
        .collect();
    salvage_debug_uses(cx.module, function, id);
    for (i, records) in kept {
        function.inst_mut(i).records = records;
    }
    if let Some(loc) = function.inst(id).dbg {
        function.inst_mut(id).dbg = Some(cx.module.debug.out_of_order_copy(loc));
    }
    function.blocks[target.0 as usize].insts.insert(at, id);
    let next = function.blocks[target.0 as usize].insts[at + 1];
    let next = function.inst_mut(next);
    let rest = std::mem::take(&mut next.records);
    next.records = copies;
    next.records.extend(rest);
}
