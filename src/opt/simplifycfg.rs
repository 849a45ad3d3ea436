//! simplifycfg: folds branches on constants, removes unreachable blocks,
//! merges a block into its only predecessor when that predecessor branches
//! to it unconditionally, and forwards empty blocks (a lone `br`) to their
//! successor, unless the block carries a phi's edge from a branching
//! predecessor (removing it would make that edge critical).
//!
//! In: any function. Out: the same function with fewer blocks and branches.
//! Debug-info rules: a folded conditional branch becomes an unconditional
//! one at the same location, and the instructions of a block merged into
//! its unconditionally-branching predecessor keep their locations
//! (preserve); the debug records of the removed `br` move in front of the
//! merged instructions, where they were in program order. An empty block is
//! forwarded only when its `br` carries no debug records, so nothing but a
//! jump's location is lost (drop). Code in unreachable blocks goes with its
//! records (it never runs).
//!
//! A separate pass, `speculate-diamonds` ([`run_speculate`]), so the CSV
//! of `--debugify-each` keeps preserve and drop apart: a diamond or triangle
//! whose arms hold at most [`MAX_SPECULATED`] cheap,
//! non-trapping instructions becomes straight-line code with a `select` per
//! phi of the join. Rule for speculation: drop: the arms' instructions move
//! above the branch with line 0 (same scope), and the arms' debug records
//! go (they describe assignments made on one path only; kept above the
//! branch they would be wrong on the other); the selects get line 0 in the
//! branch's scope, and the phis' debug uses follow them (RAUW). The join
//! then starts with a record for each variable an arm gave a value to: the
//! value both paths agree on, the select made for a phi whose incoming
//! values are the two paths' values, or undefined (left out, the variable
//! would show the value it had before the branch on the arm's path).
//!
//! Two more separate passes, for the same reason: `hoist-common`
//! ([`run_hoist`]: the instructions both successors begin with move above
//! the branch; rule: drop) and `tail-dup` ([`run_tail_dup`]: a small block
//! ending in `ret` or `br` is copied into its unconditionally-branching
//! predecessors; rule: preserve).

use crate::ir::hash::FxHashMap;

use crate::ir::cfg::{predecessors, reverse_post_order};
use crate::ir::{
    BinOp, BlockId, Constant, DILocation, DebugRecord, Function, Inst, InstId, InstKind, MdId,
    RecordKind, Value,
};

use super::debug_update::{dropped_location, replace_all_uses_with};
use super::edit::{
    computes_only, phi_count, remove_at, remove_blocks, remove_phi_incoming, replace_through_map,
};
use super::PassCx;

/// Runs simplifycfg on one function until nothing changes (bounded). The
/// pass manager never hands it a function whose blocks `blockaddress` names.
pub fn run(_cx: &mut PassCx, function: &mut Function) -> bool {
    let mut changed = false;
    for _ in 0..16 {
        let mut round = fold_constant_branches(function);
        round |= remove_unreachable(function);
        round |= merge_into_predecessors(function);
        round |= forward_empty_blocks(function);
        if !round {
            break;
        }
        changed = true;
    }
    changed
}

/// `br i1 true/false` and `switch` on a constant become `br` (same location).
fn fold_constant_branches(function: &mut Function) -> bool {
    let mut changed = false;
    for b in 0..function.blocks.len() {
        let block = BlockId(b as u32);
        let Some(&term) = function.blocks[b].insts.last() else {
            continue;
        };
        let (taken, all) = match &function.inst(term).kind {
            InstKind::CondBr {
                cond: Value::Const(Constant::Int { value, .. }),
                if_true,
                if_false,
            } => (
                if *value != 0 { *if_true } else { *if_false },
                vec![*if_true, *if_false],
            ),
            InstKind::CondBr {
                if_true, if_false, ..
            } if if_true == if_false => (*if_true, vec![*if_true, *if_false]),
            InstKind::Switch {
                value: Value::Const(c @ Constant::Int { .. }),
                default,
                cases,
            } => {
                let dest = cases
                    .iter()
                    .find(|(case, _)| case.sext_value() == c.sext_value())
                    .map(|(_, d)| *d)
                    .unwrap_or(*default);
                let mut all = vec![*default];
                all.extend(cases.iter().map(|(_, d)| *d));
                (dest, all)
            }
            _ => continue,
        };
        // Every edge but one edge to `taken` disappears: drop those phi entries.
        let mut kept_one = false;
        for dest in all {
            if dest == taken && !kept_one {
                kept_one = true;
                continue;
            }
            remove_one_phi_entry(function, dest, block);
        }
        function.inst_mut(term).kind = InstKind::Br { dest: taken };
        changed = true;
    }
    changed
}

/// Removes one incoming entry for `pred` from each phi of `block`.
fn remove_one_phi_entry(function: &mut Function, block: BlockId, pred: BlockId) {
    let phis: Vec<InstId> = function.block(block).insts[..phi_count(function, block)].to_vec();
    for phi in phis {
        if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
            if let Some(pos) = incoming.iter().position(|(_, from)| *from == pred) {
                incoming.remove(pos);
            }
        }
    }
}

/// Deletes blocks the entry cannot reach (and their phi entries elsewhere).
fn remove_unreachable(function: &mut Function) -> bool {
    let n = function.blocks.len();
    let mut keep = vec![false; n];
    for b in reverse_post_order(function) {
        keep[b.0 as usize] = true;
    }
    if keep.iter().all(|&k| k) {
        return false;
    }
    let mut removed_insts = Vec::new();
    for b in 0..n {
        if keep[b] {
            continue;
        }
        let succs = function
            .terminator(BlockId(b as u32))
            .map(|t| t.successors())
            .unwrap_or_default();
        for s in succs {
            if keep[s.0 as usize] {
                remove_phi_incoming(function, s, BlockId(b as u32));
            }
        }
        removed_insts.extend(function.blocks[b].insts.iter().copied());
    }
    // No kept code can use a value of unreachable code, but a debug record may:
    // it becomes undefined.
    let map = removed_insts
        .iter()
        .map(|&id| {
            let ty = function.inst(id).ty.clone();
            (id, Value::Const(Constant::Poison(ty)))
        })
        .collect();
    replace_through_map(function, &map);
    remove_blocks(function, &keep);
    true
}

/// Folds a block into its only predecessor when that one ends in `br` to it.
/// Predecessor lists are computed once and kept up to date, and the emptied
/// blocks are removed together at the end: recomputing and renumbering after
/// each merge made the pass quadratic in the number of blocks.
fn merge_into_predecessors(function: &mut Function) -> bool {
    let mut preds = predecessors(function);
    let mut keep = vec![true; function.blocks.len()];
    for b in 1..function.blocks.len() {
        let block = BlockId(b as u32);
        let [pred] = preds[b].as_slice() else {
            continue;
        };
        let pred = *pred;
        let pred_term = *function.blocks[pred.0 as usize].insts.last().unwrap();
        if pred == block || !matches!(function.inst(pred_term).kind, InstKind::Br { .. }) {
            continue;
        }
        // Single-entry phis become their value.
        let phis = phi_count(function, block);
        let mut map = crate::ir::hash::FxHashMap::default();
        for &phi in &function.blocks[b].insts[..phis] {
            if let InstKind::Phi { incoming } = &function.inst(phi).kind {
                if let Some((value, _)) = incoming.first() {
                    map.insert(phi, value.clone());
                }
            }
        }
        replace_through_map(function, &map);
        let mut moved: Vec<InstId> = function.blocks[b].insts.drain(..).skip(phis).collect();
        // The branch's records go in front of the merged code.
        let records = std::mem::take(&mut function.inst_mut(pred_term).records);
        if let Some(&first) = moved.first() {
            let inst = function.inst_mut(first);
            let rest = std::mem::take(&mut inst.records);
            inst.records = records;
            inst.records.extend(rest);
        }
        let pred_insts = &mut function.blocks[pred.0 as usize].insts;
        pred_insts.pop();
        pred_insts.append(&mut moved);
        // Successors' phis and predecessor lists now name `pred`.
        let succs = function
            .terminator(pred)
            .map(|t| t.successors())
            .unwrap_or_default();
        for s in succs {
            for from in &mut preds[s.0 as usize] {
                if *from == block {
                    *from = pred;
                }
            }
            let phis: Vec<InstId> = function.block(s).insts[..phi_count(function, s)].to_vec();
            for phi in phis {
                if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
                    for (_, from) in incoming.iter_mut() {
                        if *from == block {
                            *from = pred;
                        }
                    }
                }
            }
        }
        preds[b].clear();
        // The emptied block is unreachable now.
        keep[b] = false;
    }
    let changed = keep.contains(&false);
    if changed {
        remove_blocks(function, &keep);
    }
    changed
}

/// Sends the predecessors of a block that only jumps on to its successor.
fn forward_empty_blocks(function: &mut Function) -> bool {
    let mut changed = false;
    let mut b = 1;
    while b < function.blocks.len() {
        let block = BlockId(b as u32);
        let insts = &function.blocks[b].insts;
        let succ = match insts.as_slice() {
            [only] => match &function.inst(*only).kind {
                InstKind::Br { dest }
                    if *dest != block && function.inst(*only).records.is_empty() =>
                {
                    *dest
                }
                _ => {
                    b += 1;
                    continue;
                }
            },
            _ => {
                b += 1;
                continue;
            }
        };
        let preds = predecessors(function);
        let my_preds = preds[b].clone();
        let succ_phis: Vec<InstId> =
            function.block(succ).insts[..phi_count(function, succ)].to_vec();
        let conflict =
            !succ_phis.is_empty() && my_preds.iter().any(|p| preds[succ.0 as usize].contains(p));
        // A block that holds a phi's edge from a branching predecessor stays:
        // without it the edge would be critical, and code generation would
        // put the phi's copies on a block of its own, out of layout order.
        let keeps_edge = !succ_phis.is_empty()
            && my_preds.iter().any(|&p| {
                function
                    .terminator(p)
                    .is_some_and(|t| t.successors().len() > 1)
            });
        if my_preds.is_empty() || conflict || keeps_edge {
            b += 1;
            continue;
        }
        // The edge count from each predecessor to `block` (a condbr may use it twice).
        for &p in &my_preds {
            let term = *function.blocks[p.0 as usize].insts.last().unwrap();
            let mut edges = 0;
            match &mut function.inst_mut(term).kind {
                InstKind::Br { dest } if *dest == block => {
                    *dest = succ;
                    edges += 1;
                }
                InstKind::CondBr {
                    if_true, if_false, ..
                } => {
                    for d in [if_true, if_false] {
                        if *d == block {
                            *d = succ;
                            edges += 1;
                        }
                    }
                }
                InstKind::Switch { default, cases, .. } => {
                    for d in std::iter::once(default).chain(cases.iter_mut().map(|(_, d)| d)) {
                        if *d == block {
                            *d = succ;
                            edges += 1;
                        }
                    }
                }
                InstKind::Invoke { normal, .. } if *normal == block => {
                    *normal = succ;
                    edges += 1;
                }
                _ => {}
            }
            for &phi in &succ_phis {
                if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
                    let value = incoming
                        .iter()
                        .find(|(_, from)| *from == block)
                        .map(|(v, _)| v.clone());
                    if let Some(value) = value {
                        for _ in 0..edges {
                            incoming.push((value.clone(), p));
                        }
                    }
                }
            }
        }
        for &phi in &succ_phis {
            if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
                incoming.retain(|(_, from)| *from != block);
            }
        }
        let mut keep = vec![true; function.blocks.len()];
        keep[b] = false;
        remove_blocks(function, &keep);
        changed = true;
    }
    changed
}

/// The most instructions one arm may hold to be speculated.
pub const MAX_SPECULATED: usize = 3;

/// Whether an instruction may run where its block would not have (it can
/// neither trap nor touch memory).
fn speculatable(function: &Function, id: InstId) -> bool {
    match &function.inst(id).kind {
        InstKind::Binary { op, .. } => {
            !matches!(op, BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem)
        }
        InstKind::ICmp { .. }
        | InstKind::Cast { .. }
        | InstKind::Gep { .. }
        | InstKind::Select { .. } => true,
        _ => false,
    }
}

/// The `speculate-diamonds` pass: folds diamonds and triangles into selects
/// (see the module doc), then removes the emptied arms and merges the join
/// into the head.
pub fn run_speculate(cx: &mut PassCx, function: &mut Function) -> bool {
    let changed = fold_diamonds(cx, function);
    if changed {
        remove_unreachable(function);
        merge_into_predecessors(function);
    }
    changed
}

/// Folds two-armed diamonds and triangles into selects (see the module doc).
fn fold_diamonds(cx: &mut PassCx, function: &mut Function) -> bool {
    let mut changed = false;
    // Predecessors as of the last fold (recomputed only after one).
    let mut preds = predecessors(function);
    for h in 0..function.blocks.len() {
        let head = BlockId(h as u32);
        let Some(&branch) = function.blocks[h].insts.last() else {
            continue;
        };
        let InstKind::CondBr {
            cond,
            if_true,
            if_false,
        } = function.inst(branch).kind.clone()
        else {
            continue;
        };
        if if_true == if_false || matches!(cond, Value::Const(_)) {
            continue;
        }
        // The join: where both arms (or one arm and the head) go.
        let arm_target = |b: BlockId| match function.terminator(b).map(|t| &t.kind) {
            Some(InstKind::Br { dest }) => Some(*dest),
            _ => None,
        };
        let join = if arm_target(if_true) == Some(if_false) {
            if_false
        } else if arm_target(if_false) == Some(if_true) {
            if_true
        } else if arm_target(if_true).is_some() && arm_target(if_true) == arm_target(if_false) {
            arm_target(if_true).unwrap_or(if_true)
        } else {
            continue;
        };
        if join == head {
            continue;
        }
        let arms: Vec<BlockId> = [if_true, if_false]
            .into_iter()
            .filter(|&b| b != join)
            .collect();
        let arm_ok = |b: BlockId| {
            let insts = &function.block(b).insts;
            preds[b.0 as usize] == [head]
                && insts.len() <= MAX_SPECULATED + 1
                && insts[..insts.len() - 1]
                    .iter()
                    .all(|&i| speculatable(function, i))
        };
        let from = |arm: BlockId| if arm == join { head } else { arm };
        let (from_true, from_false) = (from(if_true), from(if_false));
        let mut join_preds = preds[join.0 as usize].clone();
        join_preds.sort_unstable();
        let mut expected = vec![from_true, from_false];
        expected.sort_unstable();
        if !arms.iter().all(|&a| arm_ok(a)) || join_preds != expected {
            continue;
        }
        let drop_line = |cx: &mut PassCx, loc: Option<crate::ir::LocId>| {
            loc.map(|l| {
                let old = cx.module.debug.location(l).clone();
                cx.module.debug.intern_location(DILocation {
                    line: 0,
                    column: 0,
                    implicit_code: false,
                    distinct: false,
                    ..old
                })
            })
        };
        // What each arm's records leave its variables holding, taken before
        // the records go.
        let arm_values: Vec<(BlockId, Vec<DebugRecord>)> = arms
            .iter()
            .map(|&arm| (arm, last_records(cx, function, arm)))
            .collect();
        // Speculate the arms above the branch.
        for &arm in &arms {
            let mut insts = std::mem::take(&mut function.blocks[arm.0 as usize].insts);
            let terminator = insts.pop();
            for &id in &insts {
                let dbg = function.inst(id).dbg;
                let dropped = drop_line(cx, dbg);
                let inst = function.inst_mut(id);
                inst.records.clear();
                inst.dbg = dropped;
            }
            let head_insts = &mut function.blocks[h].insts;
            let at = head_insts.len() - 1;
            head_insts.splice(at..at, insts);
            if let Some(terminator) = terminator {
                function.inst_mut(terminator).records.clear();
                function.blocks[arm.0 as usize].insts.push(terminator);
            }
        }
        // A select per phi of the join.
        let select_loc = drop_line(cx, function.inst(branch).dbg);
        let phis: Vec<InstId> = function.block(join).insts[..phi_count(function, join)].to_vec();
        let mut map = crate::ir::hash::FxHashMap::default();
        let mut selects = Vec::new();
        for phi in &phis {
            let phi_inst = function.inst(*phi).clone();
            let InstKind::Phi { incoming } = &phi_inst.kind else {
                continue;
            };
            let value_from = |b: BlockId| {
                incoming
                    .iter()
                    .find(|(_, from)| *from == b)
                    .map(|(v, _)| v.clone())
            };
            let (Some(t), Some(f)) = (value_from(from_true), value_from(from_false)) else {
                continue;
            };
            let mut select = Inst::new(
                InstKind::Select {
                    cond: cond.clone(),
                    if_true: t,
                    if_false: f,
                },
                phi_inst.ty.clone(),
            );
            select.name = phi_inst.name.clone();
            select.dbg = select_loc;
            let id = function.add_inst(select);
            let head_insts = &mut function.blocks[h].insts;
            let at = head_insts.len() - 1;
            head_insts.insert(at, id);
            map.insert(*phi, Value::Inst(id));
            selects.push(id);
        }
        replace_through_map(function, &map);
        function.blocks[join.0 as usize]
            .insts
            .retain(|id| !map.contains_key(id));
        let at_join = join_records(
            cx,
            function,
            head,
            (from_true, from_false),
            &arm_values,
            &selects,
        );
        if let Some(&first) = function.block(join).insts.first() {
            let records = &mut function.inst_mut(first).records;
            records.splice(0..0, at_join);
        }
        // The head now jumps to the join; the arms are unreachable.
        function.inst_mut(branch).kind = InstKind::Br { dest: join };
        changed = true;
        preds = predecessors(function);
    }
    changed
}

/// The last record of each variable (fragment) in `block`, in order.
fn last_records(cx: &PassCx, function: &Function, block: BlockId) -> Vec<DebugRecord> {
    let mut last: Vec<DebugRecord> = Vec::new();
    for &inst in &function.block(block).insts {
        for record in &function.inst(inst).records {
            if record.kind == RecordKind::Label {
                continue;
            }
            let key = record_key(cx, record);
            last.retain(|r| record_key(cx, r) != key);
            last.push(record.clone());
        }
    }
    last
}

/// A record's variable and fragment: what it gives a value to.
fn record_key(cx: &PassCx, record: &DebugRecord) -> (MdId, Option<(u64, u64)>) {
    (
        record.variable,
        cx.module.debug.expr(record.expr).fragment(),
    )
}

/// The records the join of a folded diamond starts with, for the variables
/// its arms gave values to (whose records went with the speculated code):
/// each is what both paths agree on, the select made for a phi whose
/// incoming values are the two paths' values, or else undefined. Left
/// alone, a variable would keep above the join the value it had before the
/// branch, which the arm changed on its path (csmith 200987: `l_181 ^= …`
/// in a loop body run once, shown with its old value after the loop).
fn join_records(
    cx: &PassCx,
    function: &Function,
    head: BlockId,
    (from_true, from_false): (BlockId, BlockId),
    arm_values: &[(BlockId, Vec<DebugRecord>)],
    selects: &[InstId],
) -> Vec<DebugRecord> {
    let head_values = last_records(cx, function, head);
    let on_path = |from: BlockId, key| {
        let records = arm_values
            .iter()
            .find(|(arm, _)| *arm == from)
            .map_or(&head_values, |(_, records)| records);
        records.iter().find(|r| record_key(cx, r) == key)
    };
    let mut keys: Vec<(MdId, Option<(u64, u64)>)> = Vec::new();
    let mut out = Vec::new();
    for record in arm_values.iter().flat_map(|(_, records)| records) {
        let key = record_key(cx, record);
        if keys.contains(&key) {
            continue;
        }
        keys.push(key);
        let (on_true, on_false) = (on_path(from_true, key), on_path(from_false, key));
        let mut joined = record.clone();
        joined.assign = None;
        joined.kind = RecordKind::Value;
        match (on_true, on_false) {
            (Some(t), Some(f))
                if t.kind == RecordKind::Value
                    && t.locations == f.locations
                    && t.expr == f.expr =>
            {
                joined.locations = t.locations.clone();
                joined.expr = t.expr;
            }
            (Some(t), Some(f))
                if t.kind == RecordKind::Value
                    && f.kind == RecordKind::Value
                    && t.expr == f.expr
                    && t.locations.len() == 1
                    && f.locations.len() == 1 =>
            {
                joined.expr = t.expr;
                joined.locations =
                    match select_of(function, selects, &t.locations[0], &f.locations[0]) {
                        Some(select) => vec![select],
                        None => vec![Value::Const(Constant::Poison(crate::ir::Type::Ptr))],
                    };
            }
            _ => {
                joined.locations = vec![Value::Const(Constant::Poison(crate::ir::Type::Ptr))];
            }
        }
        out.push(joined);
    }
    out
}

/// The select made for a join's phi that picks `on_true` or `on_false`.
fn select_of(
    function: &Function,
    selects: &[InstId],
    on_true: &Value,
    on_false: &Value,
) -> Option<Value> {
    selects
        .iter()
        .find(|&&id| {
            matches!(&function.inst(id).kind,
                InstKind::Select { if_true, if_false, .. } if if_true == on_true && if_false == on_false)
        })
        .map(|&id| Value::Inst(id))
}

/// The most instructions (phis and terminator aside) a block may hold to be
/// duplicated into its predecessors by `tail-dup`.
pub const MAX_TAIL_DUPLICATED: usize = 3;

/// The `hoist-common` pass: when both successors of a conditional branch
/// have it as their only predecessor and begin with the same instruction
/// (same operation, operands, flags and type: an operation without memory
/// effects, or a plain load or store), that instruction moves above the
/// branch once and the other copy goes, its uses (debug ones too) following
/// the hoisted one (RAUW). Repeated while the arms still begin alike.
///
/// Debug-info rule: drop, as issue 8 asks ("hoisting common code from
/// successors (drop)"). LLVM's SimplifyCFG merges here instead
/// (`applyMergedLocation`: the same line when both copies have it, else
/// line 0); we drop to line 0 in the instruction's scope even when the two
/// lines agree, because the hoisted instruction now runs before the branch
/// has decided, in the head's statement, and a stepping debugger must not
/// stop on an arm's line on the path that never takes it (the line can come
/// back without is_stmt through `source_order`). The arms' debug records
/// stay in the arms, where they were in program order, so each arm still
/// describes only its own assignments. Stores carrying a `!DIAssignID` are
/// left where they are: two linked stores would need their IDs merged,
/// which is mldst-motion's job.
pub fn run_hoist(cx: &mut PassCx, function: &mut Function) -> bool {
    let preds = predecessors(function);
    let mut changed = false;
    for h in 0..function.blocks.len() {
        let head = BlockId(h as u32);
        let Some(InstKind::CondBr {
            if_true, if_false, ..
        }) = function.terminator(head).map(|t| t.kind.clone())
        else {
            continue;
        };
        let arms_ok = if_true != if_false
            && [if_true, if_false].iter().all(|&arm| {
                arm != head && preds[arm.0 as usize] == [head] && phi_count(function, arm) == 0
            });
        if !arms_ok {
            continue;
        }
        for _ in 0..MAX_HOISTED {
            let (a, b) = (
                function.block(if_true).insts[0],
                function.block(if_false).insts[0],
            );
            let (ia, ib) = (function.inst(a), function.inst(b));
            if ia.kind != ib.kind || ia.ty != ib.ty || !hoistable(ia) || !hoistable(ib) {
                break;
            }
            remove_at(function, if_true, 0);
            remove_at(function, if_false, 0);
            let dropped = dropped_location(cx.module, function.inst(a).dbg);
            function.inst_mut(a).dbg = dropped;
            let head_insts = &mut function.blocks[h].insts;
            head_insts.insert(head_insts.len() - 1, a);
            replace_all_uses_with(&mut cx.module.debug, function, b, &Value::Inst(a));
            changed = true;
        }
    }
    changed
}

/// The most instructions `hoist-common` hoists from one pair of arms.
const MAX_HOISTED: usize = 8;

/// Whether an instruction that begins both arms may run before the branch
/// instead: no terminator, phi or alloca, no call; loads and stores only
/// when plain, and stores only without a `!DIAssignID`.
fn hoistable(inst: &Inst) -> bool {
    match &inst.kind {
        kind if computes_only(kind) => true,
        InstKind::Load {
            volatile, atomic, ..
        } => !volatile && atomic.is_none(),
        InstKind::Store {
            volatile, atomic, ..
        } => !volatile && atomic.is_none() && inst.assign_id.is_none(),
        _ => false,
    }
}

/// The `tail-dup` pass: a small block (at most [`MAX_TAIL_DUPLICATED`]
/// instructions besides its phis and terminator) that ends in `ret` or in
/// `br` to another block, whose predecessors all end in `br` to it, is
/// copied into each predecessor in place of that `br`, and goes. Its phis
/// become, in each copy, the value coming from that predecessor; the
/// successor of a `br`-ending block gets one phi entry per copy. A block
/// whose values are used outside it (other than by its successor's phis,
/// or by any debug record) is left alone, as are loop shapes (a
/// predecessor that is its successor, or itself).
///
/// Debug-info rule: preserve: each copy keeps the location of the
/// instruction it copies (it is the same statement, now on one path), and
/// the block's debug records are copied with it, their values following
/// the copies. The predecessor's removed `br` gives its records to the
/// front of the copied code, as when simplifycfg merges a block into its
/// predecessor. A copied store keeps its `!DIAssignID` (cloning keeps the
/// ID: the markers in the block are copied with it, one per path).
pub fn run_tail_dup(_cx: &mut PassCx, function: &mut Function) -> bool {
    let mut changed = false;
    let mut b = 1;
    while b < function.blocks.len() {
        if tail_duplicate(function, BlockId(b as u32)) {
            changed = true;
        } else {
            b += 1;
        }
    }
    changed
}

/// Duplicates `block` into its predecessors when `tail-dup` may (see
/// [`run_tail_dup`]); true when it did (the block is gone then).
fn tail_duplicate(function: &mut Function, block: BlockId) -> bool {
    let preds = predecessors(function);
    let my_preds = preds[block.0 as usize].clone();
    let insts = function.block(block).insts.clone();
    let phis = phi_count(function, block);
    let Some(&term) = insts.last() else {
        return false;
    };
    let dest = match &function.inst(term).kind {
        InstKind::Ret { .. } => None,
        InstKind::Br { dest } if *dest != block && !my_preds.contains(dest) => Some(*dest),
        _ => return false,
    };
    let small = insts.len() - phis - 1 <= MAX_TAIL_DUPLICATED;
    let preds_ok = my_preds.len() >= 2
        && my_preds.iter().all(|&p| {
            p != block
                && matches!(
                    function.terminator(p).map(|t| &t.kind),
                    Some(InstKind::Br { .. })
                )
        });
    let copyable = insts[phis..].iter().all(|&i| {
        !matches!(
            function.inst(i).kind,
            InstKind::Alloca { .. } | InstKind::Phi { .. }
        )
    });
    if !small || !preds_ok || !copyable || used_outside(function, block, dest) {
        return false;
    }
    let dest_phis: Vec<InstId> = dest
        .map(|d| function.block(d).insts[..phi_count(function, d)].to_vec())
        .unwrap_or_default();
    for &pred in &my_preds {
        let mut map: FxHashMap<InstId, Value> = FxHashMap::default();
        for &phi in &insts[..phis] {
            if let InstKind::Phi { incoming } = &function.inst(phi).kind {
                if let Some((value, _)) = incoming.iter().find(|(_, from)| *from == pred) {
                    map.insert(phi, value.clone());
                }
            }
        }
        let remap = |map: &FxHashMap<InstId, Value>, value: &mut Value| {
            if let Value::Inst(id) = value {
                if let Some(new) = map.get(id) {
                    *value = new.clone();
                }
            }
        };
        let pred_term = function.blocks[pred.0 as usize].insts.pop().unwrap_or(term);
        let mut leading = std::mem::take(&mut function.inst_mut(pred_term).records);
        for &phi in &insts[..phis] {
            leading.extend(function.inst(phi).records.iter().cloned());
        }
        for (n, &original) in insts[phis..].iter().enumerate() {
            let mut copy = function.inst(original).clone();
            for operand in copy.operands_mut() {
                remap(&map, operand);
            }
            for record in &mut copy.records {
                for value in record.values_mut() {
                    remap(&map, value);
                }
            }
            if n == 0 {
                leading.append(&mut copy.records);
                copy.records = std::mem::take(&mut leading);
            }
            let id = function.add_inst(copy);
            function.blocks[pred.0 as usize].insts.push(id);
            map.insert(original, Value::Inst(id));
        }
        for &phi in &dest_phis {
            let InstKind::Phi { incoming } = &function.inst(phi).kind else {
                continue;
            };
            let from_block: Vec<Value> = incoming
                .iter()
                .filter(|(_, from)| *from == block)
                .map(|(v, _)| v.clone())
                .collect();
            for mut value in from_block {
                remap(&map, &mut value);
                if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
                    incoming.push((value, pred));
                }
            }
        }
    }
    for &phi in &dest_phis {
        if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
            incoming.retain(|(_, from)| *from != block);
        }
    }
    let mut keep = vec![true; function.blocks.len()];
    keep[block.0 as usize] = false;
    remove_blocks(function, &keep);
    true
}

/// Whether a value `block` defines is used outside it: by code other than
/// the phis of `dest`, or by a debug record of another block.
fn used_outside(function: &Function, block: BlockId, dest: Option<BlockId>) -> bool {
    let own = &function.block(block).insts;
    let defined = |v: &Value| matches!(v, Value::Inst(id) if own.contains(id));
    function.blocks.iter().enumerate().any(|(b, other)| {
        if b == block.0 as usize {
            return false;
        }
        other.insts.iter().any(|&id| {
            let inst = function.inst(id);
            let phi_of_dest =
                Some(BlockId(b as u32)) == dest && matches!(inst.kind, InstKind::Phi { .. });
            (!phi_of_dest && inst.operands().iter().any(|v| defined(v)))
                || inst.records.iter().any(|r| r.values().any(&defined))
        })
    })
}
