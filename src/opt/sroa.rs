//! sroa: splits an aggregate alloca (struct or array) whose every use is a
//! load or store at a constant offset into one scalar alloca per piece, so
//! mem2reg can promote the pieces. Pieces are cut at every access boundary;
//! an integer access spanning several pieces (clang's `store i64` of a
//! struct passed in a register, `load i64` of one returned) is split into a
//! load or store per piece with shifts, truncations and ors.
//!
//! In: any function (clang -O0 IR). Out: the same function with those
//! allocas split. Debug-info rules: a `#dbg_declare` of the aggregate
//! becomes one declare per piece with `DW_OP_LLVM_fragment` (offset, size)
//! (no fragment when one piece is the whole variable); the instructions that
//! split a wide access keep its location (preserve: same statement, same
//! block). GEPs into the aggregate go; a debug value of one becomes `poison`.
//!
//! Assignment tracking (LLVM SROA's rule for `#dbg_assign`): the alloca's
//! marker is cloned per piece, with the piece's fragment and a new
//! DIAssignID the piece's alloca carries; a store that stays whole gets a
//! new DIAssignID and its markers follow it to the piece; a split store's
//! markers are cloned per piece store, each with the part it writes, the
//! piece's fragment and the piece store's new DIAssignID. A marker linked
//! to nothing left loses its address (`poison`).
//!
//! Allocas with escaping addresses, variable indices, overlapping accesses
//! of different types, declares or markers that are not plain (or of a
//! variable whose size is unknown) are left alone.

use crate::ir::hash::FxHashMap;

use crate::ir::cfg::DomTree;
use crate::ir::{
    ArithFlags, AssignLink, BinOp, BlockId, CastOp, Constant, DIExpression, DebugRecord, ExprOp,
    Function, Inst, InstId, InstKind, Intrinsic, MdId, MdNode, Module, RecordKind, Type, Value,
};

use super::edit::{remove_insts, replace_through_map};
use super::PassCx;

/// One load or store of the aggregate.
struct Access {
    inst: InstId,
    offset: u64,
    ty: Type,
    is_store: bool,
}

/// One piece: a byte range and its scalar type.
struct Piece {
    start: u64,
    end: u64,
    ty: Type,
}

/// Runs SROA on one function; true when an alloca was split.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let Some(entry) = function.blocks.first() else {
        return false;
    };
    let allocas: Vec<InstId> = entry
        .insts
        .iter()
        .copied()
        .filter(|&id| {
            matches!(&function.inst(id).kind, InstKind::Alloca { allocated, count: None, .. }
                if matches!(allocated, Type::Named(_) | Type::Struct { .. } | Type::Array { .. })
                    && cx.module.size_of(allocated) <= 64)
        })
        .collect();
    let mut changed = false;
    for alloca in allocas {
        changed |= split(cx, function, alloca);
    }
    changed
}

/// Splits one alloca if it can.
fn split(cx: &mut PassCx, function: &mut Function, alloca: InstId) -> bool {
    let InstKind::Alloca {
        allocated, align, ..
    } = function.inst(alloca).kind.clone()
    else {
        return false;
    };
    let size = cx.module.size_of(&allocated);
    let dom = DomTree::compute(function);
    // Pointers into the alloca and their constant offsets.
    let mut derived: FxHashMap<InstId, u64> = FxHashMap::from_iter([(alloca, 0)]);
    let mut accesses = Vec::new();
    let mut dead = Vec::new();
    let mut declares: Vec<DebugRecord> = Vec::new();
    let mut markers: Vec<DebugRecord> = Vec::new();
    let offset_of = |derived: &FxHashMap<InstId, u64>, v: &Value| {
        v.as_inst().and_then(|id| derived.get(&id).copied())
    };
    let mut blocks: Vec<BlockId> = dom.rpo().to_vec();
    // Unreachable blocks count too: their uses must be rewritable as well.
    for b in 0..function.blocks.len() {
        let b = BlockId(b as u32);
        if !dom.is_reachable(b) {
            blocks.push(b);
        }
    }
    for block in blocks {
        for &id in &function.block(block).insts {
            let inst = function.inst(id);
            for record in &inst.records {
                let names_pointer = record.values().any(|v| offset_of(&derived, v).is_some());
                if !names_pointer {
                    continue;
                }
                let expr = cx.module.debug.expr(record.expr);
                let plain = matches!(expr.ops.as_slice(), [ExprOp::Arg(0)]);
                match record.kind {
                    RecordKind::Declare if plain && record.locations[0] == Value::Inst(alloca) => {
                        declares.push(record.clone())
                    }
                    RecordKind::Value => {}
                    RecordKind::Assign if is_plain_marker(cx, record, &derived) => {
                        markers.push(record.clone())
                    }
                    _ => return false,
                }
            }
            match &inst.kind {
                InstKind::Gep {
                    source,
                    base,
                    indices,
                    ..
                } => {
                    if let Some(base_offset) = offset_of(&derived, base) {
                        let Some(delta) = cx.module.gep_const_offset(source, indices) else {
                            return false;
                        };
                        let offset = base_offset as i64 + delta;
                        if offset < 0 || offset as u64 >= size {
                            return false;
                        }
                        derived.insert(id, offset as u64);
                        dead.push(id);
                    } else if indices.iter().any(|i| offset_of(&derived, i).is_some()) {
                        return false;
                    }
                }
                InstKind::Load {
                    ptr,
                    volatile: false,
                    atomic: None,
                    ..
                } if offset_of(&derived, ptr).is_some() => accesses.push(Access {
                    inst: id,
                    offset: offset_of(&derived, ptr).unwrap_or(0),
                    ty: inst.ty.clone(),
                    is_store: false,
                }),
                InstKind::Store {
                    value,
                    ptr,
                    volatile: false,
                    atomic: None,
                    ..
                } if offset_of(&derived, ptr).is_some() && offset_of(&derived, value).is_none() => {
                    accesses.push(Access {
                        inst: id,
                        offset: offset_of(&derived, ptr).unwrap_or(0),
                        ty: function.value_type(value),
                        is_store: true,
                    })
                }
                InstKind::Call { callee, args, .. }
                    if matches!(
                        cx.intrinsic(callee),
                        Some(Intrinsic::LifetimeStart | Intrinsic::LifetimeEnd)
                    ) =>
                {
                    if args.iter().any(|a| offset_of(&derived, &a.value).is_some()) {
                        dead.push(id);
                    }
                }
                _ => {
                    if inst
                        .operands()
                        .iter()
                        .any(|v| offset_of(&derived, v).is_some())
                    {
                        return false;
                    }
                }
            }
        }
    }
    if accesses.is_empty() {
        return false;
    }
    let Some(pieces) = partition(cx.module, &accesses, size) else {
        return false;
    };
    // Every declare must describe a variable of known size covering the pieces.
    let alloca_id = function.inst(alloca).assign_id;
    let mut var_bits: FxHashMap<MdId, u64> = FxHashMap::default();
    for marker in &markers {
        let of_alloca = marker.assign.as_ref().map(|a| a.id) == alloca_id;
        if of_alloca && cx.module.debug.expr(marker.expr).fragment().is_some() {
            return false;
        }
    }
    for declare in declares.iter().chain(&markers) {
        match super::debug_update::variable_size_bits(&cx.module.debug, declare.variable) {
            Some(bits) if pieces.iter().all(|p| p.end * 8 <= bits) => {
                var_bits.insert(declare.variable, bits);
            }
            _ => return false,
        }
    }

    // New allocas, in the old one's place.
    let entry_pos = function.blocks[0]
        .insts
        .iter()
        .position(|&i| i == alloca)
        .unwrap_or(0);
    let mut new_allocas = Vec::new();
    for (k, piece) in pieces.iter().enumerate() {
        let mut inst = Inst::new(
            InstKind::Alloca {
                allocated: piece.ty.clone(),
                count: None,
                align: align.map(|a| a.min(cx.module.align_of(&piece.ty) as u32)),
            },
            Type::Ptr,
        );
        inst.name = function
            .inst(alloca)
            .name
            .as_ref()
            .map(|n| format!("{n}.sroa.{k}"));
        inst.dbg = function.inst(alloca).dbg;
        inst.assign_id = alloca_id.map(|_| cx.module.debug.add_node(true, MdNode::AssignId));
        let id = function.add_inst(inst);
        function.blocks[0].insts.insert(entry_pos + 1 + k, id);
        new_allocas.push(id);
    }
    let piece_at = |start: u64| pieces.iter().position(|p| p.start == start);

    let mut replace: FxHashMap<InstId, Value> = FxHashMap::default();
    // For each tagged store: the pieces it now writes, with each piece
    // store's new DIAssignID and (for a split store) the part it writes.
    let mut store_links: FxHashMap<MdId, Vec<(usize, MdId, Option<Value>)>> = FxHashMap::default();
    for access in &accesses {
        let old_id = function.inst(access.inst).assign_id;
        let end = access.offset + cx.module.store_size(&access.ty);
        let first = piece_at(access.offset).unwrap_or(0);
        let spanned: Vec<usize> = (first..pieces.len())
            .take_while(|&k| pieces[k].end <= end)
            .collect();
        if spanned.len() == 1 {
            if let InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } =
                &mut function.inst_mut(access.inst).kind
            {
                *ptr = Value::Inst(new_allocas[first]);
            }
            if let Some(old_id) = old_id {
                let new_id = cx.module.debug.add_node(true, MdNode::AssignId);
                function.inst_mut(access.inst).assign_id = Some(new_id);
                store_links.insert(old_id, vec![(first, new_id, None)]);
            }
            continue;
        }
        let wide_bits = match access.ty {
            Type::Int(bits) => bits,
            _ => unreachable!("partition accepts only integer wide accesses"),
        };
        let loc = function.inst(access.inst).dbg;
        let (block, mut index) = position(function, access.inst);
        let first_index = index;
        let mut add = |function: &mut Function, kind: InstKind, ty: Type| {
            let mut inst = Inst::new(kind, ty);
            inst.dbg = loc;
            let id = function.add_inst(inst);
            function.blocks[block.0 as usize].insts.insert(index, id);
            index += 1;
            id
        };
        let wide = Type::Int(wide_bits);
        if access.is_store {
            let InstKind::Store { value, .. } = function.inst(access.inst).kind.clone() else {
                continue;
            };
            for &k in &spanned {
                let shift = (pieces[k].start - access.offset) * 8;
                let mut part = value.clone();
                if shift > 0 {
                    part = Value::Inst(add(
                        function,
                        binary(BinOp::LShr, part, Value::int(wide_bits, shift as i128)),
                        wide.clone(),
                    ));
                }
                let part = Value::Inst(add(
                    function,
                    InstKind::Cast {
                        op: CastOp::Trunc,
                        flags: ArithFlags::default(),
                        value: part,
                    },
                    pieces[k].ty.clone(),
                ));
                let store = add(
                    function,
                    InstKind::Store {
                        value: part.clone(),
                        ptr: Value::Inst(new_allocas[k]),
                        align: None,
                        volatile: false,
                        atomic: None,
                    },
                    Type::Void,
                );
                if let Some(old_id) = old_id {
                    let new_id = cx.module.debug.add_node(true, MdNode::AssignId);
                    function.inst_mut(store).assign_id = Some(new_id);
                    store_links
                        .entry(old_id)
                        .or_default()
                        .push((k, new_id, Some(part)));
                }
            }
        } else {
            let mut combined: Option<Value> = None;
            for &k in &spanned {
                let shift = (pieces[k].start - access.offset) * 8;
                let loaded = add(
                    function,
                    InstKind::Load {
                        ptr: Value::Inst(new_allocas[k]),
                        align: None,
                        volatile: false,
                        atomic: None,
                    },
                    pieces[k].ty.clone(),
                );
                let mut part = Value::Inst(add(
                    function,
                    InstKind::Cast {
                        op: CastOp::ZExt,
                        flags: ArithFlags::default(),
                        value: Value::Inst(loaded),
                    },
                    wide.clone(),
                ));
                if shift > 0 {
                    part = Value::Inst(add(
                        function,
                        binary(BinOp::Shl, part, Value::int(wide_bits, shift as i128)),
                        wide.clone(),
                    ));
                }
                combined = Some(match combined {
                    None => part,
                    Some(acc) => {
                        Value::Inst(add(function, binary(BinOp::Or, acc, part), wide.clone()))
                    }
                });
            }
            if let Some(value) = combined {
                replace.insert(access.inst, value);
            }
        }
        // The access's records stay where they were: before its pieces.
        let first_new = function.blocks[block.0 as usize].insts[first_index];
        let mut records = std::mem::take(&mut function.inst_mut(access.inst).records);
        records.append(&mut function.inst_mut(first_new).records);
        function.inst_mut(first_new).records = records;
        dead.push(access.inst);
    }

    // Declares: one per piece, with a fragment unless the piece is the variable.
    let placed: Vec<InstId> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.clone())
        .collect();
    for id in placed {
        let records = std::mem::take(&mut function.inst_mut(id).records);
        let mut kept = Vec::with_capacity(records.len());
        for record in records {
            let bits = var_bits.get(&record.variable).copied().unwrap_or(0);
            let mut piece_expr = |k: usize| {
                let piece = &pieces[k];
                let mut ops = vec![ExprOp::Arg(0)];
                let piece_bits = (piece.end - piece.start) * 8;
                if !(piece.start == 0 && piece_bits == bits) {
                    ops.push(ExprOp::Fragment {
                        offset: piece.start * 8,
                        size: piece_bits,
                    });
                }
                cx.module.debug.intern_expr(DIExpression { ops })
            };
            let is_ours = record.kind == RecordKind::Declare
                && record.locations.first() == Some(&Value::Inst(alloca));
            if is_ours {
                for (k, &new_alloca) in new_allocas.iter().enumerate() {
                    let mut declare = record.clone();
                    declare.locations = vec![Value::Inst(new_alloca)];
                    declare.expr = piece_expr(k);
                    kept.push(declare);
                }
                continue;
            }
            let link = match &record.assign {
                Some(link) if offset_of(&derived, &link.address).is_some() => link.clone(),
                _ => {
                    kept.push(record);
                    continue;
                }
            };
            if Some(link.id) == alloca_id {
                // The alloca's marker: one per piece, linked to its alloca.
                for (k, &new_alloca) in new_allocas.iter().enumerate() {
                    let mut marker = record.clone();
                    marker.expr = piece_expr(k);
                    marker.assign = Some(AssignLink {
                        id: function.inst(new_alloca).assign_id.unwrap_or(link.id),
                        address: Value::Inst(new_alloca),
                        ..link.clone()
                    });
                    kept.push(marker);
                }
            } else if let Some(links) = store_links.get(&link.id) {
                // A store's marker: one per piece store, with its new id.
                for (k, new_id, part) in links {
                    let mut marker = record.clone();
                    if let Some(part) = part {
                        marker.locations = vec![part.clone()];
                        marker.expr = piece_expr(*k);
                    }
                    marker.assign = Some(AssignLink {
                        id: *new_id,
                        address: Value::Inst(new_allocas[*k]),
                        ..link.clone()
                    });
                    kept.push(marker);
                }
            } else {
                // Linked to nothing left: its address goes (below).
                kept.push(record);
            }
        }
        function.inst_mut(id).records = kept;
    }
    // Pointers into the old alloca are gone: their debug values become poison.
    for &id in derived.keys() {
        replace
            .entry(id)
            .or_insert(Value::Const(Constant::Poison(Type::Ptr)));
    }
    replace_through_map(function, &replace);
    let mut is_dead = vec![false; function.insts.len()];
    for id in dead.into_iter().chain([alloca]) {
        is_dead[id.0 as usize] = true;
    }
    remove_insts(function, &is_dead);
    true
}

/// Whether `record` is a `#dbg_assign` whose address is a pointer into the
/// alloca (`derived`) with an empty address expression, whose value does
/// not name such a pointer, and whose value expression is plain (at most a
/// fragment).
fn is_plain_marker(cx: &PassCx, record: &DebugRecord, derived: &FxHashMap<InstId, u64>) -> bool {
    let Some(link) = &record.assign else {
        return false;
    };
    let into = |v: &Value| v.as_inst().is_some_and(|id| derived.contains_key(&id));
    into(&link.address)
        && cx.module.debug.expr(link.address_expr).ops == [ExprOp::Arg(0)]
        && !record.locations.iter().any(into)
        && matches!(
            cx.module.debug.expr(record.expr).ops.as_slice(),
            [ExprOp::Arg(0)] | [ExprOp::Arg(0), ExprOp::Fragment { .. }]
        )
}

/// `op lhs, rhs` without flags.
fn binary(op: BinOp, lhs: Value, rhs: Value) -> InstKind {
    InstKind::Binary {
        op,
        flags: ArithFlags::default(),
        lhs,
        rhs,
    }
}

/// The block and index of a placed instruction.
fn position(function: &Function, id: InstId) -> (BlockId, usize) {
    for (b, block) in function.blocks.iter().enumerate() {
        if let Some(i) = block.insts.iter().position(|&x| x == id) {
            return (BlockId(b as u32), i);
        }
    }
    (BlockId(0), 0)
}

/// Cuts the accessed bytes into pieces (see the module doc); `None` when
/// the accesses do not fit one consistent cut.
fn partition(module: &Module, accesses: &[Access], size: u64) -> Option<Vec<Piece>> {
    let range = |a: &Access| (a.offset, a.offset + module.store_size(&a.ty));
    let mut bounds: Vec<u64> = accesses
        .iter()
        .flat_map(|a| {
            let (s, e) = range(a);
            [s, e]
        })
        .collect();
    bounds.sort_unstable();
    bounds.dedup();
    if bounds.last().copied().unwrap_or(0) > size {
        return None;
    }
    let mut pieces = Vec::new();
    for pair in bounds.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        let covered = accesses.iter().any(|a| {
            let (s, e) = range(a);
            s <= start && end <= e
        });
        if !covered {
            continue;
        }
        let exact: Vec<&Type> = accesses
            .iter()
            .filter(|a| range(a) == (start, end))
            .map(|a| &a.ty)
            .collect();
        let ty = match exact.first() {
            Some(ty) => {
                if exact.iter().any(|t| t != ty) {
                    return None;
                }
                (*ty).clone()
            }
            None => Type::Int(((end - start) * 8) as u32),
        };
        if module.store_size(&ty) != end - start || module.size_of(&ty) != end - start {
            return None;
        }
        pieces.push(Piece { start, end, ty });
    }
    // Every access is one piece, or an integer spanning whole integer pieces.
    for access in accesses {
        let (s, e) = range(access);
        let spanned: Vec<&Piece> = pieces
            .iter()
            .filter(|p| p.start >= s && p.end <= e)
            .collect();
        match spanned.as_slice() {
            [one] if one.ty == access.ty => {}
            [_, _, ..]
                if matches!(access.ty, Type::Int(_))
                    && spanned.iter().all(|p| matches!(p.ty, Type::Int(_))) => {}
            _ => return None,
        }
    }
    Some(pieces)
}
