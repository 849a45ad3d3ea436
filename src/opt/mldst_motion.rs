//! mldst-motion (LLVM's MergedLoadStoreMotion): in a diamond (a head
//! ending in a conditional branch to two arms, each of which has only the
//! head as predecessor and branches on to one join that has only the two
//! arms as predecessors), a load both arms begin with and a store both arms
//! end with become one:
//! - loads: when the first memory access of each arm is a plain (neither
//!   volatile nor atomic) load of the same type from the same address,
//!   defined above the diamond, one load goes above the head's branch and
//!   the other arm's load is replaced by it;
//! - stores: when the last memory access of each arm is a plain store of
//!   the same type to the same address, defined above the diamond, one store
//!   goes to the top of the join (after its phis), storing a new phi of the
//!   two stored values when they differ.
//!
//! Both transformations run the same accesses in the same order on every
//! path: nothing touches memory between an arm's start and its first access,
//! or between its last access and the join.
//!
//! In: any function. Out: the same function with fewer loads and stores.
//! Debug-info rule (LLVM's "How to update debug info"): merge: the one
//! access now stands for two, so it gets [`merge_locations`] of the two
//! (the same location when they are equal, else line 0 in their nearest
//! common scope); the removed load's debug uses follow the kept one (RAUW).
//! The arms' debug records stay in the arms, where they were in program
//! order. Assignment tracking (merged stores merge IDs): the merged store
//! carries one `!DIAssignID`, the first of the two stores' (as LLVM's
//! `Instruction::mergeDIAssignID`), and every `#dbg_assign` linked to the
//! other ID (the markers in the other arm) is relinked to it, so both arms'
//! markers still name the store that makes their assignment.

use crate::ir::cfg::predecessors;
use crate::ir::{BlockId, Function, Inst, InstId, InstKind, Value};

use super::debug_update::{merge_assign_ids, merge_locations, replace_all_uses_with};
use super::edit::{computes_only, insertion_point, inst_blocks, phi_count, remove_at};
use super::PassCx;

/// The most loads hoisted or stores sunk per diamond (each round rescans
/// the arms).
const MAX_PER_DIAMOND: usize = 8;

/// Runs merged load/store motion on one function; true when it changed.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let preds = predecessors(function);
    let mut changed = false;
    for h in 0..function.blocks.len() {
        let head = BlockId(h as u32);
        let Some((left, right, join)) = diamond(function, &preds, head) else {
            continue;
        };
        for _ in 0..MAX_PER_DIAMOND {
            if !hoist_load(cx, function, head, left, right) {
                break;
            }
            changed = true;
        }
        for _ in 0..MAX_PER_DIAMOND {
            if !sink_store(cx, function, left, right, join) {
                break;
            }
            changed = true;
        }
    }
    changed
}

/// The arms and join of the diamond `head` starts, if it starts one.
fn diamond(
    function: &Function,
    preds: &[Vec<BlockId>],
    head: BlockId,
) -> Option<(BlockId, BlockId, BlockId)> {
    let InstKind::CondBr {
        if_true, if_false, ..
    } = function.terminator(head)?.kind
    else {
        return None;
    };
    let next = |arm: BlockId| match function.terminator(arm).map(|t| &t.kind) {
        Some(InstKind::Br { dest }) => Some(*dest),
        _ => None,
    };
    let join = next(if_true)?;
    let distinct = if_true != if_false && if_true != head && if_false != head;
    let arms_ok = [if_true, if_false]
        .iter()
        .all(|&arm| preds[arm.0 as usize] == [head] && next(arm) == Some(join));
    let mut join_preds = preds[join.0 as usize].clone();
    join_preds.sort_unstable();
    let mut arms = vec![if_true, if_false];
    arms.sort_unstable();
    (distinct && arms_ok && join != head && join_preds == arms).then_some((if_true, if_false, join))
}

/// Whether an instruction may read or write memory (or have another effect
/// an access must not move across).
fn touches_memory(kind: &InstKind) -> bool {
    !(computes_only(kind) || matches!(kind, InstKind::Phi { .. } | InstKind::Br { .. }))
}

/// Whether `value` is defined outside both arms (so it is available in the
/// head and the join alike).
fn defined_above(blocks: &[Option<BlockId>], value: &Value, arms: [BlockId; 2]) -> bool {
    match value {
        Value::Inst(def) => blocks[def.0 as usize].is_some_and(|b| !arms.contains(&b)),
        _ => true,
    }
}

/// The position of an arm's first (or, with `last`, last) memory access.
fn memory_access(function: &Function, arm: BlockId, last: bool) -> Option<usize> {
    let insts = &function.block(arm).insts;
    let touching = |&(_, id): &(usize, &InstId)| touches_memory(&function.inst(*id).kind);
    let mut all = insts.iter().enumerate();
    if last {
        all.rev().find(touching).map(|(i, _)| i)
    } else {
        all.find(touching).map(|(i, _)| i)
    }
}

/// A plain load's address, or `None` for anything else.
fn plain_load(inst: &Inst) -> Option<&Value> {
    match &inst.kind {
        InstKind::Load {
            ptr,
            volatile: false,
            atomic: None,
            ..
        } => Some(ptr),
        _ => None,
    }
}

/// Hoists the loads both arms begin with into the head (see the module doc).
fn hoist_load(
    cx: &mut PassCx,
    function: &mut Function,
    head: BlockId,
    left: BlockId,
    right: BlockId,
) -> bool {
    let (Some(li), Some(ri)) = (
        memory_access(function, left, false),
        memory_access(function, right, false),
    ) else {
        return false;
    };
    let (lid, rid) = (
        function.block(left).insts[li],
        function.block(right).insts[ri],
    );
    let (l, r) = (function.inst(lid), function.inst(rid));
    let blocks = inst_blocks(function);
    let same = match (plain_load(l), plain_load(r)) {
        (Some(lp), Some(rp)) => {
            l.kind == r.kind
                && l.ty == r.ty
                && defined_above(&blocks, lp, [left, right])
                && lp == rp
        }
        _ => false,
    };
    if !same {
        return false;
    }
    let merged = merge_locations(&mut cx.module.debug, l.dbg, r.dbg);
    remove_at(function, left, li);
    remove_at(function, right, ri);
    function.inst_mut(lid).dbg = merged;
    let head_insts = &mut function.blocks[head.0 as usize].insts;
    head_insts.insert(head_insts.len() - 1, lid);
    replace_all_uses_with(&mut cx.module.debug, function, rid, &Value::Inst(lid));
    true
}

/// Sinks the stores both arms end with into the join (see the module doc).
fn sink_store(
    cx: &mut PassCx,
    function: &mut Function,
    left: BlockId,
    right: BlockId,
    join: BlockId,
) -> bool {
    let (Some(li), Some(ri)) = (
        memory_access(function, left, true),
        memory_access(function, right, true),
    ) else {
        return false;
    };
    let (lid, rid) = (
        function.block(left).insts[li],
        function.block(right).insts[ri],
    );
    let blocks = inst_blocks(function);
    let store_of = |id: InstId| match &function.inst(id).kind {
        InstKind::Store {
            value,
            ptr,
            align,
            volatile: false,
            atomic: None,
        } => Some((
            value.clone(),
            ptr.clone(),
            *align,
            function.value_type(value),
        )),
        _ => None,
    };
    let (Some((lv, lp, la, lt)), Some((rv, rp, ra, rt))) = (store_of(lid), store_of(rid)) else {
        return false;
    };
    if lp != rp || la != ra || lt != rt || !defined_above(&blocks, &lp, [left, right]) {
        return false;
    }
    let merged = merge_locations(
        &mut cx.module.debug,
        function.inst(lid).dbg,
        function.inst(rid).dbg,
    );
    merge_assign_ids(function, lid, &[rid]);
    remove_at(function, left, li);
    remove_at(function, right, ri);
    let at = phi_count(function, join);
    let stored = if lv == rv {
        lv
    } else {
        let phi = Inst::new(
            InstKind::Phi {
                incoming: vec![(lv, left), (rv, right)],
            },
            lt,
        );
        let phi = function.add_inst(phi);
        function.blocks[join.0 as usize].insts.insert(at, phi);
        Value::Inst(phi)
    };
    let store = function.inst_mut(lid);
    if let InstKind::Store { value, .. } = &mut store.kind {
        *value = stored;
    }
    store.dbg = merged;
    let at = insertion_point(function, join);
    function.blocks[join.0 as usize].insts.insert(at, lid);
    true
}
