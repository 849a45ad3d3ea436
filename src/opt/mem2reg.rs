//! mem2reg: promotes scalar allocas whose only uses are loads and stores to
//! SSA values, inserting phis where control flow joins (pruned SSA: a phi
//! only where the variable is live).
//!
//! In: a function (typically clang -O0 IR, every local in an alloca). Out:
//! the function without those allocas, their loads, stores and lifetime
//! markers. Debug-info rule (LLVM's ConvertDebugDeclareToDebugValue): a
//! variable's `#dbg_declare` of a promoted alloca becomes a `#dbg_value` of
//! the stored value right after each store, and of each inserted phi after
//! the block's phis; the declare itself goes. Deleted loads are replaced by
//! the value they read (their debug uses follow); no location is dropped:
//! the removed instructions have no code left to carry one.
//!
//! Assignment tracking (LLVM's rule for promoting an alloca with
//! `#dbg_assign`s): every variable a marker of the alloca describes gets a
//! `#dbg_value` of the stored value after each store to it (tagged or not)
//! and of each inserted phi, like a declared one; the markers linked to the
//! alloca or its stores go; a marker of it linked to nothing (its store was
//! deleted) becomes a `#dbg_value` of its value where it stands.
//!
//! A `#dbg_value` of a promoted alloca's address becomes `poison` (the
//! address is gone). A variable no store ever set keeps one `poison`
//! `#dbg_value` where its declare stood, so it stays declared. An alloca whose declare or marker expression is not a
//! plain location or fragment is left alone.

use crate::ir::hash::FxHashMap;

use crate::ir::cfg::{predecessors, DomTree};
use crate::ir::{
    BlockId, Constant, DebugRecord, ExprOp, Function, InstId, InstKind, Intrinsic, RecordKind,
    Type, Value,
};

use super::edit::{phi_count, remove_insts, replace_through_map};
use super::PassCx;

/// A promotable alloca and the declares that describe it.
struct Candidate {
    alloca: InstId,
    ty: Type,
    declares: Vec<DebugRecord>,
}

/// Runs mem2reg on one function; true when an alloca was promoted.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let candidates = find_candidates(cx, function);
    if candidates.is_empty() {
        return false;
    }
    promote(function, &candidates);
    true
}

/// The entry-block allocas that can be promoted, in block order.
fn find_candidates(cx: &PassCx, function: &Function) -> Vec<Candidate> {
    let Some(entry) = function.blocks.first() else {
        return Vec::new();
    };
    let mut index: FxHashMap<InstId, usize> = FxHashMap::default();
    let mut candidates: Vec<Option<Candidate>> = Vec::new();
    for &id in &entry.insts {
        let inst = function.inst(id);
        if let InstKind::Alloca {
            allocated,
            count: None,
            ..
        } = &inst.kind
        {
            if matches!(allocated, Type::Int(_) | Type::Ptr) {
                index.insert(id, candidates.len());
                candidates.push(Some(Candidate {
                    alloca: id,
                    ty: allocated.clone(),
                    declares: Vec::new(),
                }));
            }
        }
    }
    let reject = |candidates: &mut Vec<Option<Candidate>>, value: &Value| {
        if let Value::Inst(id) = value {
            if let Some(&i) = index.get(id) {
                candidates[i] = None;
            }
        }
    };
    for block in &function.blocks {
        for &id in &block.insts {
            let inst = function.inst(id);
            for record in &inst.records {
                let plain_declare = record.kind == RecordKind::Declare
                    && record.locations.len() == 1
                    && declare_is_plain(cx, record);
                if plain_declare {
                    if let Value::Inst(a) = &record.locations[0] {
                        if let Some(Some(c)) = index.get(a).map(|&i| candidates[i].as_mut()) {
                            c.declares.push(record.clone());
                        }
                    }
                } else if let Some(a) = plain_marker_alloca(cx, record) {
                    // A marker of the alloca: its variable gets a dbg.value
                    // at each store, like a declare's.
                    if let Some(Some(c)) = index.get(&a).map(|&i| candidates[i].as_mut()) {
                        if !c.declares.iter().any(|d| d.variable == record.variable) {
                            c.declares.push(DebugRecord {
                                kind: RecordKind::Value,
                                locations: Vec::new(),
                                assign: None,
                                ..record.clone()
                            });
                        }
                    }
                    for value in &record.locations {
                        reject(&mut candidates, value);
                    }
                } else if record.kind != RecordKind::Value {
                    for value in record.values() {
                        reject(&mut candidates, value);
                    }
                }
            }
            match &inst.kind {
                InstKind::Load {
                    ptr,
                    volatile: false,
                    atomic: None,
                    ..
                } => {
                    if let Some(&i) = ptr.as_inst().and_then(|p| index.get(&p)) {
                        if candidates[i].as_ref().is_some_and(|c| c.ty != inst.ty) {
                            candidates[i] = None;
                        }
                    }
                }
                InstKind::Store {
                    value,
                    ptr,
                    volatile,
                    atomic,
                    ..
                } => {
                    reject(&mut candidates, value);
                    if let Some(&i) = ptr.as_inst().and_then(|p| index.get(&p)) {
                        let same_type = candidates[i]
                            .as_ref()
                            .is_some_and(|c| c.ty == function.value_type(value));
                        if *volatile || atomic.is_some() || !same_type {
                            candidates[i] = None;
                        }
                    }
                }
                InstKind::Call { callee, .. }
                    if matches!(
                        cx.intrinsic(callee),
                        Some(Intrinsic::LifetimeStart | Intrinsic::LifetimeEnd)
                    ) => {}
                _ => {
                    for operand in inst.operands() {
                        reject(&mut candidates, operand);
                    }
                }
            }
        }
    }
    candidates.into_iter().flatten().collect()
}

/// The alloca a `#dbg_assign` names as its address, when its address
/// expression is empty and its value expression is plain (at most a fragment).
fn plain_marker_alloca(cx: &PassCx, record: &DebugRecord) -> Option<InstId> {
    let link = record.assign.as_ref()?;
    let address_expr = cx.module.debug.expr(link.address_expr);
    if record.kind != RecordKind::Assign
        || address_expr.ops != [ExprOp::Arg(0)]
        || record.locations.len() != 1
        || !declare_is_plain(cx, record)
    {
        return None;
    }
    link.address.as_inst()
}

/// Whether a declare's expression is `DW_OP_LLVM_arg 0` with at most a fragment.
fn declare_is_plain(cx: &PassCx, record: &DebugRecord) -> bool {
    let expr = cx.module.debug.expr(record.expr);
    matches!(
        expr.ops.as_slice(),
        [ExprOp::Arg(0)] | [ExprOp::Arg(0), ExprOp::Fragment { .. }]
    )
}

/// Promotes every candidate at once.
fn promote(function: &mut Function, candidates: &[Candidate]) {
    let n = function.blocks.len();
    let slot: FxHashMap<InstId, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (c.alloca, i))
        .collect();
    let slot_of = |value: &Value| value.as_inst().and_then(|id| slot.get(&id).copied());
    let dom = DomTree::compute(function);
    let preds = predecessors(function);

    // Where each alloca is defined (stored) and where it is live on entry.
    let mut def_blocks = vec![vec![false; n]; candidates.len()];
    let mut live_in = vec![vec![false; n]; candidates.len()];
    for (b, block) in function.blocks.iter().enumerate() {
        let mut stored = vec![false; candidates.len()];
        for &id in &block.insts {
            match &function.inst(id).kind {
                InstKind::Store { ptr, .. } => {
                    if let Some(k) = slot_of(ptr) {
                        stored[k] = true;
                        def_blocks[k][b] = true;
                    }
                }
                InstKind::Load { ptr, .. } => {
                    if let Some(k) = slot_of(ptr) {
                        if !stored[k] {
                            live_in[k][b] = true;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for k in 0..candidates.len() {
        let mut work: Vec<usize> = (0..n).filter(|&b| live_in[k][b]).collect();
        while let Some(b) = work.pop() {
            for p in &preds[b] {
                let p = p.0 as usize;
                if !def_blocks[k][p] && !live_in[k][p] {
                    live_in[k][p] = true;
                    work.push(p);
                }
            }
        }
    }

    // Dominance frontiers, then phis at the iterated frontier of the stores.
    let mut frontier = vec![Vec::new(); n];
    for (b, block_preds) in preds.iter().enumerate() {
        let block = BlockId(b as u32);
        if block_preds.len() < 2 || !dom.is_reachable(block) {
            continue;
        }
        let idom = dom.idom(block);
        for &p in block_preds {
            let mut runner = Some(p);
            while let Some(r) = runner {
                if Some(r) == idom || !dom.is_reachable(r) {
                    break;
                }
                if !frontier[r.0 as usize].contains(&b) {
                    frontier[r.0 as usize].push(b);
                }
                runner = dom.idom(r);
            }
        }
    }
    // phis[b] = (candidate, phi id), in candidate order.
    let mut phis: Vec<Vec<(usize, InstId)>> = vec![Vec::new(); n];
    for (k, candidate) in candidates.iter().enumerate() {
        let mut has_phi = vec![false; n];
        let mut work: Vec<usize> = (0..n).filter(|&b| def_blocks[k][b]).collect();
        let mut queued = def_blocks[k].clone();
        while let Some(b) = work.pop() {
            for &f in &frontier[b] {
                if has_phi[f] || !live_in[k][f] {
                    continue;
                }
                has_phi[f] = true;
                let mut phi = crate::ir::Inst::new(
                    InstKind::Phi {
                        incoming: Vec::new(),
                    },
                    candidate.ty.clone(),
                );
                phi.name = function.inst(candidate.alloca).name.clone();
                let id = function.add_inst(phi);
                phis[f].push((k, id));
                if !queued[f] {
                    queued[f] = true;
                    work.push(f);
                }
            }
        }
    }
    for (b, list) in phis.iter_mut().enumerate() {
        list.sort_by_key(|(k, _)| *k);
        let ids: Vec<InstId> = list.iter().map(|(_, id)| *id).collect();
        let at = phi_count(function, BlockId(b as u32));
        function.blocks[b].insts.splice(at..at, ids);
    }

    // Renaming over the dominator tree.
    let mut children = vec![Vec::new(); n];
    for &b in dom.rpo() {
        if let Some(parent) = dom.idom(b) {
            children[parent.0 as usize].push(b);
        }
    }
    let mut dead = vec![false; function.insts.len()];
    let mut replace: FxHashMap<InstId, Value> = FxHashMap::default();
    let undef = |k: usize| Value::Const(Constant::Undef(candidates[k].ty.clone()));
    let mut stack = vec![(
        BlockId(0),
        (0..candidates.len()).map(undef).collect::<Vec<_>>(),
    )];
    let mut visited = vec![false; n];
    while let Some((block, mut current)) = stack.pop() {
        visited[block.0 as usize] = true;
        for &(k, phi) in &phis[block.0 as usize] {
            current[k] = Value::Inst(phi);
        }
        let insts = function.blocks[block.0 as usize].insts.clone();
        for &id in &insts {
            let (new_records, is_dead) = match &function.inst(id).kind {
                InstKind::Load { ptr, .. } => match slot_of(ptr) {
                    Some(k) => {
                        replace.insert(id, current[k].clone());
                        (Vec::new(), true)
                    }
                    None => (Vec::new(), false),
                },
                InstKind::Store { value, ptr, .. } => match slot_of(ptr) {
                    Some(k) => {
                        current[k] = value.clone();
                        (value_records(&candidates[k], value), true)
                    }
                    None => (Vec::new(), false),
                },
                InstKind::Call { args, .. } => {
                    let promoted_arg = args.iter().any(|a| slot_of(&a.value).is_some());
                    (Vec::new(), promoted_arg)
                }
                _ => (Vec::new(), false),
            };
            if is_dead {
                dead[id.0 as usize] = true;
                function.inst_mut(id).records.extend(new_records);
            }
        }
        let successors = function
            .terminator(block)
            .map(|t| t.successors())
            .unwrap_or_default();
        for succ in successors {
            for &(k, phi) in &phis[succ.0 as usize] {
                if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
                    incoming.push((current[k].clone(), block));
                }
            }
        }
        for &child in children[block.0 as usize].iter().rev() {
            stack.push((child, current.clone()));
        }
    }
    // Unreachable code: loads read undef, stores vanish, phis get undef entries.
    for (b, block) in function.blocks.iter().enumerate() {
        if visited[b] {
            continue;
        }
        for &id in &block.insts {
            match &function.inst(id).kind {
                InstKind::Load { ptr, .. } if slot_of(ptr).is_some() => {
                    replace.insert(id, undef(slot_of(ptr).unwrap_or(0)));
                    dead[id.0 as usize] = true;
                }
                InstKind::Store { ptr, .. } if slot_of(ptr).is_some() => {
                    dead[id.0 as usize] = true;
                }
                InstKind::Call { args, .. } if args.iter().any(|a| slot_of(&a.value).is_some()) => {
                    dead[id.0 as usize] = true;
                }
                _ => {}
            }
        }
        let successors = function
            .terminator(BlockId(b as u32))
            .map(|t| t.successors())
            .unwrap_or_default();
        for succ in successors {
            for &(k, phi) in &phis[succ.0 as usize] {
                if let InstKind::Phi { incoming } = &mut function.insts[phi.0 as usize].kind {
                    incoming.push((undef(k), BlockId(b as u32)));
                }
            }
        }
    }
    // A dbg.value of each inserted phi, after the block's phis.
    for (b, list) in phis.iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        let first = function.blocks[b].insts[phi_count(function, BlockId(b as u32))];
        let mut records: Vec<DebugRecord> = list
            .iter()
            .flat_map(|&(k, phi)| value_records(&candidates[k], &Value::Inst(phi)))
            .collect();
        let inst = function.inst_mut(first);
        records.append(&mut inst.records);
        inst.records = records;
    }
    for candidate in candidates {
        dead[candidate.alloca.0 as usize] = true;
    }
    // The declares of promoted allocas go, and so do the markers linked to
    // them or to their stores (each store's now stands as a dbg.value); a
    // marker of one linked to nothing (its store was deleted) is a plain
    // statement of the value, a dbg.value where it stands. A debug value of
    // an alloca's address has nothing left to describe.
    let promoted = |v: &Value| slot_of(v).is_some();
    let linked: crate::ir::hash::FxHashSet<crate::ir::MdId> =
        function.insts.iter().filter_map(|i| i.assign_id).collect();
    let mut removed: Vec<(InstId, DebugRecord)> = Vec::new();
    for block in 0..n {
        for &id in &function.blocks[block].insts.clone() {
            let records = &mut function.inst_mut(id).records;
            records.retain(|r| {
                let declare =
                    r.kind == RecordKind::Declare && r.locations.first().is_some_and(promoted);
                let linked_marker = r
                    .assign
                    .as_ref()
                    .is_some_and(|a| promoted(&a.address) && linked.contains(&a.id));
                if declare || linked_marker {
                    removed.push((id, r.clone()));
                }
                !(declare || linked_marker)
            });
            for record in records.iter_mut() {
                if record.assign.as_ref().is_some_and(|a| promoted(&a.address)) {
                    record.kind = RecordKind::Value;
                    record.assign = None;
                }
            }
            for record in records.iter_mut() {
                for location in record.locations.iter_mut() {
                    if promoted(location) {
                        *location = Value::Const(Constant::Poison(Type::Ptr));
                    }
                }
            }
        }
    }
    keep_declared(function, removed);
    replace_through_map(function, &replace);
    remove_insts(function, &dead);
}

/// A variable whose declare (or markers) went with its alloca and that no
/// store or phi gave a value (declared, never set) keeps one undefined
/// `#dbg_value` where its declare stood: it stays declared, and gdb says
/// `<optimized out>` rather than `No symbol`.
fn keep_declared(function: &mut Function, removed: Vec<(InstId, DebugRecord)>) {
    if removed.is_empty() {
        return;
    }
    let mut described: crate::ir::hash::FxHashSet<crate::ir::MdId> = function
        .insts
        .iter()
        .flat_map(|i| i.records.iter().map(|r| r.variable))
        .collect();
    for (id, record) in removed {
        if described.insert(record.variable) {
            function.inst_mut(id).records.push(DebugRecord {
                kind: RecordKind::Value,
                locations: vec![Value::Const(Constant::Poison(Type::Ptr))],
                assign: None,
                ..record
            });
        }
    }
}

/// The `#dbg_value`s saying a promoted alloca's variables now hold `value`.
fn value_records(candidate: &Candidate, value: &Value) -> Vec<DebugRecord> {
    candidate
        .declares
        .iter()
        .map(|declare| DebugRecord {
            kind: RecordKind::Value,
            variable: declare.variable,
            locations: vec![value.clone()],
            expr: declare.expr,
            loc: declare.loc,
            assign: None,
        })
        .collect()
}
