//! loop-rotate: turns a loop whose header tests and exits (`while` and
//! `for` as clang -O0 writes them) into a guarded do-while: the header's
//! test is duplicated into the preheader (the guard) and into the latch
//! (the test at the bottom), the header's phis move to the first body
//! block, and the old header becomes the new loop's preheader. Each
//! iteration then runs one conditional branch instead of a conditional and
//! an unconditional one, and LICM and LSR find a preheader that runs only
//! when the loop does.
//!
//! In: any function. Out: the same function with each rotatable loop
//! rotated. A loop is rotated when it has a preheader, one latch ending in
//! `br header`, a header of at most [`MAX_HEADER`] side-effect-free
//! instructions whose values are used only in the header, a conditional
//! branch in the header that is the loop's only exit, and a first body
//! block entered only from the header. An exit block with other
//! predecessors is first given a dedicated exit block. A header phi used
//! after the loop gets a phi in the exit block.
//!
//! Debug-info rule: preserve: the duplicated header keeps its locations
//! (both copies of the test carry the header's lines, the branches that
//! become conditional keep theirs, and the old header's block keeps the
//! header branch's location on its `br`); the header's debug
//! records move to the start of the body with the body's phis, a copy of
//! them goes with the guard (in terms of the preheader's values) and to the
//! exit block (in terms of the exit phis). In the body, a record naming a
//! header value that has no single definition there becomes `poison`; in
//! the exit block such a record is left out (the guard's and the body's
//! records disagree there, so the variable is unavailable, never stale).

use crate::ir::hash::FxHashMap;

use crate::ir::cfg::predecessors;
use crate::ir::{Block, BlockId, Constant, DebugRecord, Function, Inst, InstId, InstKind, Value};

use super::edit::{insert_block, insertion_point, phi_count};
use super::loops::{find_loops, Loop};
use super::PassCx;

/// The most non-phi instructions (besides the branch) a header may have to
/// be duplicated.
const MAX_HEADER: usize = 8;

/// A loop that can be rotated.
struct Plan {
    header: BlockId,
    preheader: BlockId,
    latch: BlockId,
    body_entry: BlockId,
    exit: BlockId,
    /// Whether the exit has predecessors besides the header (it gets a
    /// dedicated exit block first).
    shared_exit: bool,
    body: Vec<bool>,
}

/// Runs loop rotation on one function; true when a loop was rotated.
pub fn run(_cx: &mut PassCx, function: &mut Function) -> bool {
    let mut changed = false;
    // A rotated loop's latch ends in a conditional branch, so it is never
    // planned again; each loop is rotated at most once (and split once).
    let mut budget = 2 * find_loops(function).len();
    while budget > 0 {
        budget -= 1;
        let loops = find_loops(function);
        let Some(plan) = loops.iter().find_map(|lp| plan(function, lp)) else {
            break;
        };
        if plan.shared_exit {
            split_exit(function, &plan);
        } else {
            rotate(function, &plan);
        }
        changed = true;
    }
    changed
}

/// The plan for rotating `lp`, if its shape allows it.
fn plan(function: &Function, lp: &Loop) -> Option<Plan> {
    let header = lp.header;
    let [latch] = lp.latches.as_slice() else {
        return None;
    };
    let latch = *latch;
    if latch == header
        || !matches!(function.terminator(latch)?.kind, InstKind::Br { dest } if dest == header)
    {
        return None;
    }
    let preds = predecessors(function);
    let mut header_preds = preds[header.0 as usize].clone();
    header_preds.sort();
    let mut expected = vec![lp.preheader, latch];
    expected.sort();
    if header_preds != expected {
        return None;
    }
    let InstKind::CondBr {
        if_true, if_false, ..
    } = function.terminator(header)?.kind
    else {
        return None;
    };
    let (body_entry, exit) = match (lp.contains(if_true), lp.contains(if_false)) {
        (true, false) => (if_true, if_false),
        (false, true) => (if_false, if_true),
        _ => return None,
    };
    if body_entry == header
        || preds[body_entry.0 as usize] != [header]
        || phi_count(function, body_entry) != 0
    {
        return None;
    }
    // The header's branch is the only way out of the loop.
    for (b, block) in function.blocks.iter().enumerate() {
        if b == header.0 as usize || !lp.body[b] {
            continue;
        }
        let term = function.inst(*block.insts.last()?);
        if term.successors().iter().any(|s| !lp.contains(*s)) {
            return None;
        }
    }
    let insts = &function.block(header).insts;
    let phis = phi_count(function, header);
    let rest = &insts[phis..insts.len() - 1];
    if rest.len() > MAX_HEADER {
        return None;
    }
    for &id in &insts[..phis] {
        let InstKind::Phi { incoming } = &function.inst(id).kind else {
            return None;
        };
        // The next value must not be one the header computes: the latch's
        // copy of it would belong to the following iteration.
        let from_header = incoming
            .iter()
            .any(|(v, _)| v.as_inst().is_some_and(|d| rest.contains(&d)));
        if incoming.len() != 2 || from_header {
            return None;
        }
    }
    for &id in rest {
        let inst = function.inst(id);
        let simple = match &inst.kind {
            InstKind::Binary { .. }
            | InstKind::ICmp { .. }
            | InstKind::FCmp { .. }
            | InstKind::Cast { .. }
            | InstKind::Gep { .. }
            | InstKind::Select { .. } => true,
            InstKind::Load {
                volatile, atomic, ..
            } => !volatile && atomic.is_none(),
            _ => false,
        };
        if !simple || inst.assign_id.is_some() {
            return None;
        }
    }
    // The header's own values are used only in the header.
    let in_header: Vec<bool> = {
        let mut v = vec![false; function.insts.len()];
        rest.iter().for_each(|id| v[id.0 as usize] = true);
        v
    };
    for (b, block) in function.blocks.iter().enumerate() {
        if b == header.0 as usize {
            continue;
        }
        for &id in &block.insts {
            let uses_header_value = function
                .inst(id)
                .operands()
                .iter()
                .any(|v| v.as_inst().is_some_and(|d| in_header[d.0 as usize]));
            if uses_header_value {
                return None;
            }
        }
    }
    Some(Plan {
        header,
        preheader: lp.preheader,
        latch,
        body_entry,
        exit,
        shared_exit: preds[exit.0 as usize] != [header],
        body: lp.body.clone(),
    })
}

/// Gives the loop a dedicated exit block: a block of one `br` to the old
/// exit, placed after the latch, which the header now branches to (the old
/// exit's phis name it instead of the header). Its branch keeps the header
/// branch's location.
fn split_exit(function: &mut Function, plan: &Plan) {
    let header_term = *function.block(plan.header).insts.last().unwrap();
    let at = BlockId(plan.latch.0 + 1);
    let shift = |b: BlockId| if b.0 >= at.0 { BlockId(b.0 + 1) } else { b };
    let mut br = Inst::new(
        InstKind::Br {
            dest: shift(plan.exit),
        },
        crate::ir::Type::Void,
    );
    br.dbg = function.inst(header_term).dbg;
    let br = function.add_inst(br);
    let dedicated = insert_block(
        function,
        at,
        Block {
            name: None,
            insts: vec![br],
        },
    );
    let (header, exit) = (shift(plan.header), shift(plan.exit));
    let term = *function.block(header).insts.last().unwrap();
    retarget(function, term, exit, dedicated);
    for i in 0..phi_count(function, exit) {
        let phi = function.block(exit).insts[i];
        if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
            for (_, from) in incoming.iter_mut() {
                if *from == header {
                    *from = dedicated;
                }
            }
        }
    }
}

/// Where a use of a header value is: in the loop (the body's phi replaces
/// it) or after it (the exit's phi does).
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Loop,
    After,
}

/// Rotates the loop of `plan` (whose exit is entered only from the header).
fn rotate(function: &mut Function, plan: &Plan) {
    let Plan {
        header,
        preheader,
        latch,
        body_entry,
        exit,
        ..
    } = *plan;
    let insts = function.block(header).insts.clone();
    let phis = phi_count(function, header);
    let header_phis = insts[..phis].to_vec();
    let header_rest = insts[phis..insts.len() - 1].to_vec();
    let header_term = insts[insts.len() - 1];
    let incoming_from = |function: &Function, phi: InstId, from: BlockId| -> Value {
        match &function.inst(phi).kind {
            InstKind::Phi { incoming } => incoming
                .iter()
                .find(|(_, b)| *b == from)
                .map(|(v, _)| v.clone())
                .unwrap(),
            _ => unreachable!("a header phi"),
        }
    };
    let entry_values: FxHashMap<InstId, Value> = header_phis
        .iter()
        .map(|&p| (p, incoming_from(function, p, preheader)))
        .collect();

    // The body's phis take over the header's.
    let mut body_phis: FxHashMap<InstId, Value> = FxHashMap::default();
    for (i, &phi) in header_phis.iter().enumerate() {
        let mut new = Inst::new(
            InstKind::Phi { incoming: vec![] },
            function.inst(phi).ty.clone(),
        );
        new.dbg = function.inst(phi).dbg;
        new.name = function.inst_mut(phi).name.take();
        let id = function.add_inst(new);
        function.blocks[body_entry.0 as usize].insts.insert(i, id);
        body_phis.insert(phi, Value::Inst(id));
    }
    let through = |map: &FxHashMap<InstId, Value>, v: &Value| -> Value {
        v.as_inst()
            .and_then(|id| map.get(&id).cloned())
            .unwrap_or_else(|| v.clone())
    };
    let latch_values: FxHashMap<InstId, Value> = header_phis
        .iter()
        .map(|&p| (p, through(&body_phis, &incoming_from(function, p, latch))))
        .collect();

    // Which header phis are used after the loop (by code, not debug records).
    let side_of = |b: BlockId| {
        if plan.body[b.0 as usize] {
            Side::Loop
        } else {
            Side::After
        }
    };
    let mut used_after = vec![false; header_phis.len()];
    for (b, block) in function.blocks.iter().enumerate() {
        if b == header.0 as usize {
            continue;
        }
        for &id in &block.insts {
            let inst = function.inst(id);
            let uses: Vec<(&Value, BlockId)> = match &inst.kind {
                InstKind::Phi { incoming } => incoming.iter().map(|(v, from)| (v, *from)).collect(),
                _ => inst
                    .operands()
                    .into_iter()
                    .map(|v| (v, BlockId(b as u32)))
                    .collect(),
            };
            for (value, at) in uses {
                if let Some(i) = value
                    .as_inst()
                    .and_then(|d| header_phis.iter().position(|&p| p == d))
                {
                    if side_of(at) == Side::After && !(b == exit.0 as usize && at == header) {
                        used_after[i] = true;
                    }
                }
            }
        }
    }
    // The exit's phis from the header now come from the guard and the latch.
    for i in 0..phi_count(function, exit) {
        let phi = function.block(exit).insts[i];
        if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
            let mut new = Vec::new();
            for (v, from) in incoming.drain(..) {
                if from == header {
                    new.push((through(&entry_values, &v), preheader));
                    new.push((through(&latch_values, &v), latch));
                } else {
                    new.push((v, from));
                }
            }
            *incoming = new;
        }
    }
    let mut exit_phis: FxHashMap<InstId, Value> = FxHashMap::default();
    let mut at = insertion_point(function, exit);
    for (i, &phi) in header_phis.iter().enumerate() {
        if !used_after[i] {
            continue;
        }
        let mut new = Inst::new(
            InstKind::Phi {
                incoming: vec![
                    (entry_values[&phi].clone(), preheader),
                    (latch_values[&phi].clone(), latch),
                ],
            },
            function.inst(phi).ty.clone(),
        );
        new.dbg = function.inst(phi).dbg;
        let id = function.add_inst(new);
        function.blocks[exit.0 as usize].insts.insert(at, id);
        at += 1;
        exit_phis.insert(phi, Value::Inst(id));
    }

    // Every other use of a header phi names the body's or the exit's phi;
    // a debug record after the loop without an exit phi becomes poison.
    let poison_of = |function: &Function, id: InstId| {
        Value::Const(Constant::Poison(function.inst(id).ty.clone()))
    };
    let rest_poison: FxHashMap<InstId, Value> = header_rest
        .iter()
        .map(|&id| (id, poison_of(function, id)))
        .collect();
    let mut after_records: FxHashMap<InstId, Value> = exit_phis.clone();
    for &phi in &header_phis {
        after_records
            .entry(phi)
            .or_insert_with(|| poison_of(function, phi));
    }
    for (b, block) in function.blocks.clone().iter().enumerate() {
        if b == header.0 as usize {
            continue;
        }
        let here = BlockId(b as u32);
        for &id in &block.insts {
            if body_phis.values().any(|v| v == &Value::Inst(id))
                || exit_phis.values().any(|v| v == &Value::Inst(id))
            {
                continue;
            }
            let inst = function.inst_mut(id);
            match &mut inst.kind {
                InstKind::Phi { incoming } if b == exit.0 as usize => {
                    // Already rewritten above, except uses from other blocks.
                    for (v, from) in incoming.iter_mut() {
                        if *from != preheader && *from != latch {
                            *v = through(&exit_phis, v);
                        }
                    }
                }
                InstKind::Phi { incoming } => {
                    for (v, from) in incoming.iter_mut() {
                        let map = if side_of(*from) == Side::Loop {
                            &body_phis
                        } else {
                            &exit_phis
                        };
                        *v = through(map, v);
                    }
                }
                _ => {
                    let map = if side_of(here) == Side::Loop {
                        &body_phis
                    } else {
                        &exit_phis
                    };
                    for v in inst.operands_mut() {
                        *v = through(map, v);
                    }
                }
            }
            let record_map = if side_of(here) == Side::Loop {
                &body_phis
            } else {
                &after_records
            };
            for record in &mut inst.records {
                for v in record.values_mut() {
                    *v = through(&rest_poison, &through(record_map, v));
                }
            }
        }
    }

    // The body's phis: the entry value from the new preheader (the old
    // header's block), the next value from the latch.
    for &phi in &header_phis {
        let id = body_phis[&phi].as_inst().unwrap();
        function.inst_mut(id).kind = InstKind::Phi {
            incoming: vec![
                (entry_values[&phi].clone(), header),
                (latch_values[&phi].clone(), latch),
            ],
        };
    }

    // The header's records, in order, and where copies of them go.
    let header_records: Vec<DebugRecord> = header_rest
        .iter()
        .chain(std::iter::once(&header_term))
        .flat_map(|&id| function.inst(id).records.clone())
        .collect();
    let remap_records = |map: &FxHashMap<InstId, Value>| -> Vec<DebugRecord> {
        header_records
            .iter()
            .cloned()
            .map(|mut r| {
                for v in r.values_mut() {
                    *v = through(&rest_poison, &through(map, v));
                }
                r
            })
            .collect()
    };
    let into_body = remap_records(&body_phis);
    // After the loop, a record without a single value there is left out:
    // the guard's and the body's own records then disagree, and the
    // variable is unavailable rather than stale.
    let into_exit: Vec<DebugRecord> = remap_records(&after_records)
        .into_iter()
        .filter(|r| !r.values().any(|v| v.is_undef_or_poison()))
        .collect();
    prepend_records(function, body_entry, into_body);
    prepend_records(function, exit, into_exit);

    // The guard and the bottom test: copies of the header's instructions.
    let mut guard_map = entry_values.clone();
    duplicate_test(
        function,
        &header_rest,
        header_term,
        preheader,
        &mut guard_map,
        true,
    );
    let mut latch_map = latch_values.clone();
    duplicate_test(
        function,
        &header_rest,
        header_term,
        latch,
        &mut latch_map,
        false,
    );

    // The old header becomes the preheader of the rotated loop.
    let mut br = Inst::new(InstKind::Br { dest: body_entry }, crate::ir::Type::Void);
    br.dbg = function.inst(header_term).dbg;
    let br = function.add_inst(br);
    function.blocks[header.0 as usize].insts = vec![br];
    let guard_term = *function.block(preheader).insts.last().unwrap();
    retarget(function, guard_term, body_entry, header);

    // The exit's phis take the latch's values in a block of their own after
    // the latch, so the bottom test falls through to it.
    if phi_count(function, exit) != 0 {
        let at = BlockId(latch.0 + 1);
        let shift = |b: BlockId| if b.0 >= at.0 { BlockId(b.0 + 1) } else { b };
        let mut br = Inst::new(InstKind::Br { dest: shift(exit) }, crate::ir::Type::Void);
        br.dbg = function.inst(header_term).dbg;
        let br = function.add_inst(br);
        let edge = insert_block(
            function,
            at,
            Block {
                name: None,
                insts: vec![br],
            },
        );
        let (latch, exit) = (shift(latch), shift(exit));
        let latch_term = *function.block(latch).insts.last().unwrap();
        retarget(function, latch_term, exit, edge);
        for i in 0..phi_count(function, exit) {
            let phi = function.block(exit).insts[i];
            if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
                for (_, from) in incoming.iter_mut() {
                    if *from == latch {
                        *from = edge;
                    }
                }
            }
        }
    }
}

/// Makes the conditional branch `term` go to `to` where it went to `from`.
fn retarget(function: &mut Function, term: InstId, from: BlockId, to: BlockId) {
    if let InstKind::CondBr {
        if_true, if_false, ..
    } = &mut function.inst_mut(term).kind
    {
        for target in [if_true, if_false] {
            if *target == from {
                *target = to;
            }
        }
    }
}

/// Puts `records` before the first non-phi instruction of `block`, ahead of
/// the records already there.
fn prepend_records(function: &mut Function, block: BlockId, records: Vec<DebugRecord>) {
    if records.is_empty() {
        return;
    }
    let first = function.block(block).insts[phi_count(function, block)];
    let inst = function.inst_mut(first);
    let rest = std::mem::take(&mut inst.records);
    inst.records = records;
    inst.records.extend(rest);
}

/// Copies the header's instructions to the end of `block` (before its
/// `br header`, which becomes the copied conditional branch), mapping header
/// values through `map` (extended with the copies). The copies keep the
/// header's locations; with `with_records` they also get copies of the
/// header's records. The replaced branch keeps its location, metadata and
/// records (which now precede the copies).
fn duplicate_test(
    function: &mut Function,
    rest: &[InstId],
    header_term: InstId,
    block: BlockId,
    map: &mut FxHashMap<InstId, Value>,
    with_records: bool,
) {
    let through = |map: &FxHashMap<InstId, Value>, v: &Value| -> Value {
        v.as_inst()
            .and_then(|id| map.get(&id).cloned())
            .unwrap_or_else(|| v.clone())
    };
    let term = *function.block(block).insts.last().unwrap();
    let mut moved_records = std::mem::take(&mut function.inst_mut(term).records);
    let at = function.block(block).insts.len() - 1;
    let mut placed = 0;
    for &id in rest.iter().chain(std::iter::once(&header_term)) {
        let original = function.inst(id);
        let mut copy = original.clone();
        copy.name = None;
        for v in copy.operands_mut() {
            *v = through(map, v);
        }
        let mut records = if with_records {
            copy.records
                .iter()
                .cloned()
                .map(|mut r| {
                    for v in r.values_mut() {
                        *v = through(map, v);
                    }
                    r
                })
                .collect()
        } else {
            Vec::new()
        };
        if !moved_records.is_empty() {
            moved_records.append(&mut records);
            records = std::mem::take(&mut moved_records);
        }
        if id == header_term {
            let target = function.inst_mut(term);
            target.kind = copy.kind;
            target.records = records;
        } else {
            copy.records = records;
            let new = function.add_inst(copy);
            function.blocks[block.0 as usize]
                .insts
                .insert(at + placed, new);
            placed += 1;
            map.insert(id, Value::Inst(new));
        }
    }
}
