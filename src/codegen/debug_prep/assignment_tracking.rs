//! Assignment tracking: `#dbg_assign` records lowered to plain variable
//! locations before instruction selection.
//!
//! In: a function of a module that has the "debug-info-assignment-tracking"
//! flag, with `#dbg_assign` records linked to stores (and allocas) through
//! `!DIAssignID`. Out: the same function in which every assign record has
//! become a `#dbg_value` record, and the location each variable fragment has
//! at a block entry is stated again there unless every predecessor leaves
//! it as it enters (the location the last record gave still holds; stating
//! it again would undo an untracked record of the variable that came after
//! in a predecessor, and costs every later pass a debug value per fragment
//! and block).
//!
//! For every (variable, fragment) a fixed-point dataflow over the blocks
//! decides, at each program point, whether the variable lives
//! - in memory (its stack home holds the current assignment: the last store
//!   tagged with an assignment equals the last `#dbg_assign` seen), lowered
//!   to a value record over the address with `DW_OP_deref` appended to the
//!   address expression (an indirect location);
//! - in a value (the last `#dbg_assign` was not matched by its store, or a
//!   `#dbg_value` said so), lowered to a value record over that value;
//! - nowhere, lowered to a value record over `poison`.
//!
//! A store tagged with an assignment other than the one debug info last saw
//! (a store hoisted above its marker) takes a variable out of memory: it is
//! the value that last marker assigned until its own marker comes (LLVM's
//! rule). The alloca's own marker puts the variable in its uninitialised
//! home, as in LLVM, except for a variable one of whose assignments no store
//! makes (its store was deleted): the home may never hold the value the
//! source gave it, and a line after the declaration hoisted above that
//! assignment's marker would show stale memory, so until a store or another
//! marker that variable is nowhere.
//! A store without `!DIAssignID` to a variable's stack home puts the variable
//! in memory (as LLVM does). At a join (LLVM's rule), the location kind is
//! kept where every predecessor has the same (memory, or the same value),
//! else it is "nowhere"; the assignments memory and debug info hold are kept
//! where the predecessors agree, else they are unknown. So a variable that
//! lives in memory around a loop stays there, whichever store last wrote it.

use crate::ir::hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

use crate::ir::cfg;
use crate::ir::value::Constant;
use crate::ir::{
    BlockId, DIExpression, DebugRecord, ExprId, ExprOp, Function, InstKind, LocId, MdId,
    RecordKind, Type, Value,
};
use crate::ir::{DebugInfo, Module};

/// A variable fragment: the DILocalVariable and `(offset, size)` in bits.
type Key = (MdId, Option<(u64, u64)>);

/// Which assignment a location holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Assignment {
    /// None seen yet on any path.
    NoneYet,
    /// The one tagged with this `!DIAssignID`.
    Known(MdId),
    /// Something not tracked (an untagged store, or paths that disagree).
    Unknown,
}

/// Where a variable fragment lives at a program point.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// In its stack home.
    Memory,
    /// In the value of this record (locations and expression).
    Value(Vec<Value>, ExprId),
    /// Nowhere.
    Nowhere,
}

/// The assign record that made an assignment, by its instruction and its
/// position among that instruction's records.
type Source = (crate::ir::InstId, usize);

/// The state of one variable fragment.
#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    memory: Assignment,
    debug: Assignment,
    /// The record of the assignment `debug` names, where every path agrees.
    debug_source: Option<Source>,
    kind: Kind,
}

/// What a tracked fragment's stack home is, from its assign records.
#[derive(Clone, Debug)]
struct Home {
    address: Value,
    address_expr: ExprId,
    loc: LocId,
}

/// Lowers the assign records of every function of the module (a no-op for
/// modules without the assignment-tracking flag).
pub fn lower_module(module: &mut Module) {
    if !module.assignment_tracking() {
        return;
    }
    let debug = &mut module.debug;
    for function in &mut module.functions {
        if !function.is_declaration() {
            lower_function(function, debug);
        }
    }
}

fn key_of(debug: &DebugInfo, record: &DebugRecord) -> Key {
    (record.variable, debug.expr(record.expr).fragment())
}

/// Lowers the assign records of one function.
pub fn lower_function(function: &mut Function, debug: &mut DebugInfo) {
    // The tracked fragments, their homes, and which fragments each assign id tags.
    // In key order: a store reports the fragments it overwrites in that
    // order (a HashMap's order made the output differ from run to run).
    let mut homes: BTreeMap<Key, Home> = BTreeMap::new();
    let mut tagged: FxHashMap<MdId, Vec<Key>> = FxHashMap::default();
    let mut assigned: FxHashMap<Source, (Vec<Value>, ExprId)> = FxHashMap::default();
    for (id, inst) in function.insts.iter().enumerate() {
        for (position, record) in inst.records.iter().enumerate() {
            if let (RecordKind::Assign, Some(link)) = (record.kind, &record.assign) {
                let source = (crate::ir::InstId(id as u32), position);
                assigned.insert(source, (record.locations.clone(), record.expr));
                let key = key_of(debug, record);
                // A marker whose address was killed (DSE) names no home; any
                // other marker of the fragment does.
                let killed = |address: &Value| matches!(address, Value::Const(_));
                let home = Home {
                    address: link.address.clone(),
                    address_expr: link.address_expr,
                    loc: record.loc,
                };
                match homes.get(&key) {
                    Some(old) if !killed(&old.address) || killed(&home.address) => {}
                    _ => {
                        homes.insert(key, home);
                    }
                }
                tagged.entry(link.id).or_default().push(key);
            }
        }
    }
    if homes.is_empty() {
        return;
    }
    // The tracked fragments in key order; states are indexed by position
    // here (a dense vector per block rather than a hash map: the dataflow
    // joins and compares every fragment's state at every block).
    let keys: Vec<Key> = homes.keys().copied().collect();
    let home_of: Vec<&Home> = homes.values().collect();
    let index: FxHashMap<Key, usize> = keys.iter().enumerate().map(|(i, &key)| (key, i)).collect();
    let tracked = Tracked {
        assigned,
        alloca_ids: function
            .insts
            .iter()
            .filter(|inst| matches!(inst.kind, InstKind::Alloca { .. }))
            .filter_map(|inst| inst.assign_id)
            .collect(),
        unfilled_home: {
            let stored: FxHashSet<MdId> =
                function.insts.iter().filter_map(|i| i.assign_id).collect();
            let mut unfilled = vec![false; keys.len()];
            for (id, tags) in &tagged {
                if !stored.contains(id) {
                    for key in tags {
                        unfilled[index[key]] = true;
                    }
                }
            }
            unfilled
        },
        tagged: tagged
            .iter()
            .map(|(&id, tags)| (id, tags.iter().map(|key| index[key]).collect()))
            .collect(),
        index,
        by_address: {
            let mut by_address: FxHashMap<&Value, Vec<usize>> = FxHashMap::default();
            for (i, home) in home_of.iter().enumerate() {
                by_address.entry(&home.address).or_default().push(i);
            }
            by_address
        },
    };

    let predecessors = cfg::predecessors(function);
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); function.blocks.len()];
    for (b, preds) in predecessors.iter().enumerate() {
        for p in preds {
            successors[p.0 as usize].push(b);
        }
    }
    let order = cfg::reverse_post_order(function);
    let initial = State {
        memory: Assignment::NoneYet,
        debug: Assignment::NoneYet,
        debug_source: None,
        kind: Kind::Nowhere,
    };
    let block_count = function.blocks.len();
    let mut entry_states: Vec<Option<Vec<State>>> = vec![None; block_count];
    let mut exit_states: Vec<Option<Vec<State>>> = vec![None; block_count];
    // A block is worked out again only when a predecessor's exit changed
    // since (its entry, and so its exit, are otherwise what they were).
    let mut dirty = vec![true; block_count];
    let mut changed = true;
    while changed {
        changed = false;
        for &block in &order {
            let b = block.0 as usize;
            if !std::mem::take(&mut dirty[b]) {
                continue;
            }
            let entry = join(block, &predecessors[b], &exit_states, keys.len(), &initial);
            let mut state = entry.clone();
            for &inst in &function.blocks[b].insts {
                transfer(function, debug, inst, &tracked, &mut state, &mut |_, _| {});
            }
            entry_states[b] = Some(entry);
            if exit_states[b].as_ref() != Some(&state) {
                exit_states[b] = Some(state);
                changed = true;
                for &s in &successors[b] {
                    dirty[s] = true;
                }
            }
        }
    }

    // Variables an untracked `#dbg_value` describes are never only in memory.
    let mut not_in_memory: FxHashSet<MdId> = function
        .insts
        .iter()
        .flat_map(|inst| &inst.records)
        .filter(|record| record.kind == RecordKind::Value)
        .map(|record| record.variable)
        .collect();
    // Rewrite: restate at block entries the fragments some predecessor
    // leaves otherwise, lower each record.
    let mut lowering = Lowering::default();
    for &block in &order {
        let Some(mut state) = entry_states[block.0 as usize].clone() else {
            continue;
        };
        let insts = function.blocks[block.0 as usize].insts.clone();
        let first_non_phi = insts
            .iter()
            .position(|&i| !matches!(function.inst(i).kind, InstKind::Phi { .. }));
        let mut pending: Vec<DebugRecord> = Vec::new();
        if block.0 != 0 {
            let exits: Vec<Option<&Vec<State>>> = predecessors[block.0 as usize]
                .iter()
                .map(|p| exit_states[p.0 as usize].as_ref())
                .collect();
            for (i, key) in keys.iter().enumerate() {
                // Every predecessor leaves the fragment as it enters: the
                // location its last record gave still holds.
                let carried = !exits.is_empty()
                    && exits
                        .iter()
                        .all(|exit| exit.is_some_and(|exit| exit[i] == state[i]));
                if !carried {
                    pending.push(lowering.lowered(debug, i, *key, &state[i], home_of[i]));
                }
            }
        }
        // The state changes made by the previous instruction (its stores):
        // they hold at the same point as this instruction's records.
        let mut changed_after: Vec<(usize, State)> = Vec::new();
        for (position, &inst) in insts.iter().enumerate() {
            let mut records = Vec::new();
            let mut emitted: Vec<(usize, State)> = Vec::new();
            transfer(
                function,
                debug,
                inst,
                &tracked,
                &mut state,
                &mut |i, new_state| emitted.push((i, new_state.clone())),
            );
            let old = std::mem::take(&mut function.inst_mut(inst).records);
            let assigns = old.iter().filter(|r| r.kind == RecordKind::Assign).count();
            let after_states = emitted.split_off(assigns.min(emitted.len()));
            // Each assign record emitted exactly one state change, in order.
            let mut emitted_iter = emitted.iter();
            for record in old {
                if record.kind == RecordKind::Assign {
                    if let Some((i, state)) = emitted_iter.next() {
                        records.push(lowering.lowered(debug, *i, keys[*i], state, home_of[*i]));
                    }
                } else {
                    records.push(record);
                }
            }
            // State changes made by the instruction itself (stores) take
            // effect after it: they go before the next instruction.
            let after: Vec<DebugRecord> = after_states
                .iter()
                .map(|(i, state)| lowering.lowered(debug, *i, keys[*i], state, home_of[*i]))
                .collect();
            let at_this_point = std::mem::replace(&mut changed_after, after_states);
            note_not_in_memory(
                at_this_point.iter().chain(&emitted),
                &tracked,
                &keys,
                &mut not_in_memory,
            );
            if Some(position) >= first_non_phi && !pending.is_empty() {
                let mut with_pending = std::mem::take(&mut pending);
                // A pending record a record at the same point overrides
                // (a store's change followed by its own marker) is dropped.
                with_pending.retain(|early| {
                    !records.iter().any(|later| {
                        later.variable == early.variable
                            && debug.expr(later.expr).fragment()
                                == debug.expr(early.expr).fragment()
                    })
                });
                with_pending.extend(records);
                records = with_pending;
            }
            function.inst_mut(inst).records = records;
            pending.extend(after);
        }
        note_not_in_memory(changed_after.iter(), &tracked, &keys, &mut not_in_memory);
    }
    declare_stack_homed(function, debug, &homes, &not_in_memory);
}

/// Notes the variables whose fragments are not in memory at a point, from
/// the state changes made there in order (a later change of a fragment
/// overrides an earlier one at the same point: a store's "nowhere" followed
/// by its own marker's "memory" leaves the variable in memory). The alloca's
/// marker leaving a fragment nowhere does not count: it is in the home a
/// declare would name.
fn note_not_in_memory<'s>(
    changes: impl DoubleEndedIterator<Item = &'s (usize, State)>,
    tracked: &Tracked,
    keys: &[Key],
    not_in_memory: &mut FxHashSet<MdId>,
) {
    let mut seen: Vec<usize> = Vec::new();
    for (i, state) in changes.rev() {
        if seen.contains(i) {
            continue;
        }
        seen.push(*i);
        let allocated = matches!(state.debug,
            Assignment::Known(id) if tracked.alloca_ids.contains(&id));
        if state.kind != Kind::Memory && !allocated {
            not_in_memory.insert(keys[*i].0);
        }
    }
}

/// LLVM's "always stack homed" rule: a variable whose every fragment was in
/// memory after every instruction that changed it (and that no untracked
/// `#dbg_value` describes), with a whole-variable home at an alloca that
/// holds every fragment's home, gets one `#dbg_declare` of that alloca for
/// the whole function instead of its value records, as llc gives it a
/// single memory location.
fn declare_stack_homed(
    function: &mut Function,
    debug: &mut DebugInfo,
    homes: &BTreeMap<Key, Home>,
    not_in_memory: &FxHashSet<MdId>,
) {
    let plain = |debug: &DebugInfo, expr: ExprId| {
        matches!(debug.expr(expr).ops.as_slice(), [] | [ExprOp::Arg(0)])
    };
    // Only an alloca with a fixed frame slot: a run-time one's address is
    // a register, which a declare cannot name.
    let alloca = |value: &Value| match value {
        Value::Inst(id) => match &function.inst(*id).kind {
            InstKind::Alloca { count, align, .. }
                if crate::codegen::isel::stack::is_fixed_slot(
                    count.as_ref().is_none_or(|c| matches!(c, Value::Const(_))),
                    *align,
                ) =>
            {
                Some(*id)
            }
            _ => None,
        },
        _ => None,
    };
    let based_on = |address: &Value, base: crate::ir::InstId| match address {
        Value::Inst(id) if *id == base => true,
        Value::Inst(id) => matches!(&function.inst(*id).kind,
            InstKind::Gep { base: Value::Inst(b), .. } if *b == base),
        _ => false,
    };
    let mut declares: Vec<(crate::ir::InstId, DebugRecord)> = Vec::new();
    for ((variable, fragment), home) in homes {
        if fragment.is_some() || not_in_memory.contains(variable) {
            continue;
        }
        let Some(base) = alloca(&home.address).filter(|_| plain(debug, home.address_expr)) else {
            continue;
        };
        let fragments_inside = homes
            .range((*variable, None)..)
            .take_while(|((v, _), _)| v == variable)
            .all(|(_, h)| based_on(&h.address, base) && plain(debug, h.address_expr));
        if fragments_inside {
            declares.push((
                base,
                DebugRecord {
                    kind: RecordKind::Declare,
                    variable: *variable,
                    locations: vec![Value::Inst(base)],
                    expr: debug.intern_expr(DIExpression {
                        ops: vec![ExprOp::Arg(0)],
                    }),
                    loc: home.loc,
                    assign: None,
                },
            ));
        }
    }
    let declared: FxHashSet<MdId> = declares.iter().map(|(_, d)| d.variable).collect();
    if declared.is_empty() {
        return;
    }
    for inst in &mut function.insts {
        inst.records
            .retain(|r| r.kind != RecordKind::Value || !declared.contains(&r.variable));
    }
    // Each declare goes right after its alloca (a record precedes the
    // instruction that carries it).
    let mut next_of: FxHashMap<crate::ir::InstId, crate::ir::InstId> = FxHashMap::default();
    for block in &function.blocks {
        for pair in block.insts.windows(2) {
            next_of.insert(pair[0], pair[1]);
        }
    }
    for (alloca, declare) in declares {
        if let Some(&next) = next_of.get(&alloca) {
            function.inst_mut(next).records.insert(0, declare);
        }
    }
}

/// The tracked fragments by position in key order, and what finds them.
struct Tracked<'h> {
    /// What each assign record assigned (read before records are lowered).
    assigned: FxHashMap<Source, (Vec<Value>, ExprId)>,
    /// The assignments that allocas carry (where a variable will live, not
    /// a value of it).
    alloca_ids: FxHashSet<MdId>,
    /// By position: whether the fragment has an assignment that no store
    /// makes (its store was deleted), so its home never holds that value.
    unfilled_home: Vec<bool>,
    /// Each fragment's position.
    index: FxHashMap<Key, usize>,
    /// The fragments each assign id tags, by position.
    tagged: FxHashMap<MdId, Vec<usize>>,
    /// The fragments whose stack home is at each address, in key order.
    by_address: FxHashMap<&'h Value, Vec<usize>>,
}

/// The entry state of `block`: the predecessors' exit states where they agree.
fn join(
    block: BlockId,
    predecessors: &[BlockId],
    exit_states: &[Option<Vec<State>>],
    count: usize,
    initial: &State,
) -> Vec<State> {
    let known: Vec<&Vec<State>> = predecessors
        .iter()
        .filter_map(|p| exit_states[p.0 as usize].as_ref())
        .collect();
    match known[..] {
        _ if block.0 == 0 => vec![initial.clone(); count],
        [] => vec![initial.clone(); count],
        [only] => only.clone(),
        _ => (0..count)
            .map(|i| {
                let first = &known[0][i].kind;
                let first_source = known[0][i].debug_source;
                State {
                    memory: agree(known.iter().map(|s| s[i].memory)),
                    debug: agree(known.iter().map(|s| s[i].debug)),
                    debug_source: first_source
                        .filter(|_| known.iter().all(|s| s[i].debug_source == first_source)),
                    kind: if known.iter().all(|s| &s[i].kind == first) {
                        first.clone()
                    } else {
                        Kind::Nowhere
                    },
                }
            })
            .collect(),
    }
}

fn agree(mut assignments: impl Iterator<Item = Assignment>) -> Assignment {
    let first = assignments.next().unwrap_or(Assignment::NoneYet);
    if assignments.all(|a| a == first) {
        first
    } else {
        Assignment::Unknown
    }
}

/// Applies one instruction's records and then the instruction to `state`,
/// reporting each state change (by fragment position) of an assign record
/// and of a store.
fn transfer(
    function: &Function,
    debug: &DebugInfo,
    inst_id: crate::ir::InstId,
    tracked: &Tracked,
    state: &mut [State],
    report: &mut dyn FnMut(usize, &State),
) {
    let inst = function.inst(inst_id);
    // Where memory holding assignment `id` puts fragment `i`: its home,
    // unless `id` is the alloca's and an assignment of the fragment never
    // reaches memory (the home holds no value the source gave it yet).
    let in_memory = |i: usize, id: MdId| {
        if tracked.alloca_ids.contains(&id) && tracked.unfilled_home[i] {
            Kind::Nowhere
        } else {
            Kind::Memory
        }
    };
    for (position, record) in inst.records.iter().enumerate() {
        let Some(&i) = tracked.index.get(&key_of(debug, record)) else {
            continue;
        };
        let current = &mut state[i];
        match (record.kind, &record.assign) {
            (RecordKind::Assign, Some(link)) => {
                current.debug = Assignment::Known(link.id);
                current.debug_source = Some((inst_id, position));
                current.kind = if current.memory == current.debug {
                    in_memory(i, link.id)
                } else {
                    Kind::Value(record.locations.clone(), record.expr)
                };
                report(i, current);
            }
            (RecordKind::Value, _) => {
                current.debug = Assignment::Unknown;
                current.debug_source = None;
                current.kind = Kind::Value(record.locations.clone(), record.expr);
            }
            _ => {}
        }
    }
    if let Some(id) = inst.assign_id {
        for &i in tracked.tagged.get(&id).into_iter().flatten() {
            let current = &mut state[i];
            current.memory = Assignment::Known(id);
            let kind = if current.memory == current.debug {
                in_memory(i, id)
            } else if current.kind == Kind::Memory {
                // Memory now holds an assignment debug info has not seen:
                // the variable is the value it last assigned, if known.
                match current.debug_source {
                    Some(source) => {
                        let (locations, expr) = &tracked.assigned[&source];
                        Kind::Value(locations.clone(), *expr)
                    }
                    None => Kind::Nowhere,
                }
            } else {
                continue;
            };
            if current.kind != kind {
                current.kind = kind;
                report(i, current);
            }
        }
    } else if let InstKind::Store { ptr, .. } = &inst.kind {
        for &i in tracked.by_address.get(ptr).into_iter().flatten() {
            let current = &mut state[i];
            current.memory = Assignment::Unknown;
            current.debug = Assignment::Unknown;
            current.debug_source = None;
            current.kind = Kind::Memory;
            report(i, current);
        }
    }
}

/// The expressions of each fragment's "in memory" and "nowhere" records,
/// interned once per fragment rather than once per restatement.
#[derive(Default)]
struct Lowering {
    memory: FxHashMap<usize, ExprId>,
    nowhere: FxHashMap<usize, ExprId>,
}

impl Lowering {
    /// The value record that states `state` for fragment `key` (at
    /// position `i`).
    fn lowered(
        &mut self,
        debug: &mut DebugInfo,
        i: usize,
        key: Key,
        state: &State,
        home: &Home,
    ) -> DebugRecord {
        let fragment = key
            .1
            .map(|(offset, size)| ExprOp::Fragment { offset, size });
        let (locations, expr) = match &state.kind {
            Kind::Memory => {
                let expr = *self.memory.entry(i).or_insert_with(|| {
                    let mut ops: Vec<ExprOp> = debug.expr(home.address_expr).ops.clone();
                    ops.push(ExprOp::Deref);
                    ops.extend(fragment);
                    debug.intern_expr(DIExpression { ops })
                });
                (vec![home.address.clone()], expr)
            }
            Kind::Value(locations, expr) => (locations.clone(), *expr),
            Kind::Nowhere => {
                let expr = *self.nowhere.entry(i).or_insert_with(|| {
                    let mut ops = vec![ExprOp::Arg(0)];
                    ops.extend(fragment);
                    debug.intern_expr(DIExpression { ops })
                });
                (vec![Value::Const(Constant::Poison(Type::Ptr))], expr)
            }
        };
        DebugRecord {
            kind: RecordKind::Value,
            variable: key.0,
            locations,
            expr,
            loc: home.loc,
            assign: None,
        }
    }
}
