//! dse: dead store elimination within a block: a store is dead when a later
//! store in the same block writes the same type through the same pointer
//! value and nothing in between may read memory (no load, call, atomic,
//! `va_arg` or volatile access).
//!
//! In: any function. Out: the same function without those stores.
//! Debug-info rules: salvage before delete: a store has no result, so no
//! debug value names it; its own debug records move to the next
//! instruction (they keep their place in the program). Assignment tracking:
//! the dead store's `#dbg_assign` markers stay (the assignment to the
//! variable still happened at that point, as the stored value says) but are
//! unlinked: their address becomes `poison`, because the memory no longer
//! holds that value, and the store's DIAssignID goes with it. A dead store
//! without a DIAssignID into a tracked variable's stack home (a store
//! through a pointer that turned out to be the variable's address) gets a
//! `#dbg_value` of what it stored in its place, since the variable would
//! otherwise read as the memory's older value
//! ([`describe_untagged_store`]).
//!
//! A partly dead write: a `memset`, `memcpy` or `memmove` of constant length
//! whose end a later store in the block overwrites (nothing reading memory
//! in between) is shortened to the bytes still live (LLVM's tail
//! shortening). Its markers stay linked (the live part is still written
//! there); each gets an unlinked copy for the dead fragment of its variable
//! with a `poison` address (LLVM's `shortenAssignment`): that part of the
//! variable is not in memory until the later store writes it.

use crate::ir::hash::FxHashMap;

use crate::ir::{
    Constant, DIExpression, DebugRecord, ExprOp, Function, InstId, InstKind, Intrinsic, LocId,
    MdId, MdNode, RecordKind, Type, Value,
};

use super::edit::remove_insts;
use super::PassCx;

/// A variable fragment's `(offset, size)` in bits (`None`: the whole).
type Fragment = Option<(u64, u64)>;

/// A memory intrinsic not yet read: the call, the base and byte range it writes.
struct PendingWrite {
    call: InstId,
    base: Value,
    start: i64,
    end: i64,
}

/// Runs DSE on one function; true when a store was deleted or shortened.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let mut dead = vec![false; function.insts.len()];
    let mut unlinked: Vec<MdId> = Vec::new();
    // Memory intrinsics to shorten: the call and its new length.
    let mut shortened: Vec<(InstId, i64)> = Vec::new();
    for block in &function.blocks {
        // The last store through each pointer value since memory was last read.
        let mut pending: FxHashMap<Value, (InstId, Type)> = FxHashMap::default();
        let mut pending_writes: Vec<PendingWrite> = Vec::new();
        for &id in &block.insts {
            let inst = function.inst(id);
            if let InstKind::Store { value, ptr, .. } = &inst.kind {
                let (base, start) = base_and_offset(cx, function, ptr);
                let end = start + cx.module.store_size(&function.value_type(value)) as i64;
                for write in pending_writes.iter_mut().filter(|w| w.base == base) {
                    if start > write.start && start < write.end && end >= write.end {
                        write.end = start;
                        shortened.retain(|(call, _)| *call != write.call);
                        shortened.push((write.call, start - write.start));
                    }
                }
            }
            if let Some(write) = memory_write(cx, function, id) {
                pending.clear();
                pending_writes.clear();
                pending_writes.push(write);
                continue;
            }
            match &inst.kind {
                InstKind::Store {
                    value,
                    ptr,
                    volatile: false,
                    atomic: None,
                    ..
                } => {
                    let ty = function.value_type(value);
                    if let Some((earlier, earlier_ty)) = pending.get(ptr) {
                        if *earlier_ty == ty {
                            dead[earlier.0 as usize] = true;
                            unlinked.extend(function.inst(*earlier).assign_id);
                        }
                    }
                    pending.insert(ptr.clone(), (id, ty));
                }
                InstKind::Binary { .. }
                | InstKind::ICmp { .. }
                | InstKind::FBinary { .. }
                | InstKind::FCmp { .. }
                | InstKind::FNeg { .. }
                | InstKind::Select { .. }
                | InstKind::Phi { .. }
                | InstKind::Cast { .. }
                | InstKind::Gep { .. }
                | InstKind::Alloca { .. }
                | InstKind::ExtractElement { .. }
                | InstKind::InsertElement { .. }
                | InstKind::ShuffleVector { .. }
                | InstKind::ExtractValue { .. }
                | InstKind::InsertValue { .. }
                | InstKind::Freeze { .. } => {}
                _ => {
                    pending.clear();
                    pending_writes.clear();
                }
            }
        }
    }
    for &(call, length) in &shortened {
        shorten(cx, function, call, length);
    }
    if unlinked.is_empty() && !dead.iter().any(|&d| d) {
        return !shortened.is_empty();
    }
    for inst in &mut function.insts {
        for record in &mut inst.records {
            if let Some(link) = &mut record.assign {
                if unlinked.contains(&link.id) {
                    link.address = Value::Const(Constant::Poison(Type::Ptr));
                }
            }
        }
    }
    for (index, is_dead) in dead.iter().enumerate() {
        if *is_dead {
            if function.insts[index].assign_id.is_none() {
                describe_untagged_store(cx, function, InstId(index as u32));
            }
            function.insts[index].assign_id = None;
        }
    }
    remove_insts(function, &dead);
    true
}

/// A dead store without `!DIAssignID` into a tracked variable's stack home
/// (LLVM's rule for such a store: the variable is in memory after it)
/// leaves memory holding the older value, so after the store's place the
/// variable would be shown stale. Its effect is stated instead, after the
/// records before it: each variable fragment it wholly writes has the
/// stored value from there on, and any other fragment it overlaps has no
/// location (`poison`) until its next assignment.
fn describe_untagged_store(cx: &mut PassCx, function: &mut Function, store: InstId) {
    let InstKind::Store { value, ptr, .. } = &function.inst(store).kind else {
        return;
    };
    let (base, start) = base_and_offset(cx, function, ptr);
    let stored = (value.clone(), function.value_type(value));
    let start_bits = start as u64 * 8;
    let end_bits = start_bits + cx.module.store_size(&stored.1) * 8;
    // (variable, fragment, the marker's location) of each home.
    let mut homes: Vec<(MdId, Fragment, LocId)> = Vec::new();
    for record in function.insts.iter().flat_map(|i| &i.records) {
        let Some(link) = &record.assign else {
            continue;
        };
        // The home is the address itself (`!DIExpression()`, which reads
        // as `DW_OP_LLVM_arg 0`).
        let plain = matches!(
            cx.module.debug.expr(link.address_expr).ops[..],
            [] | [ExprOp::Arg(0)]
        );
        if link.address != base || !plain {
            continue;
        }
        let fragment = cx.module.debug.expr(record.expr).fragment();
        if !homes
            .iter()
            .any(|h| (h.0, h.1) == (record.variable, fragment))
        {
            homes.push((record.variable, fragment, record.loc));
        }
    }
    let mut described = Vec::new();
    for (variable, fragment, loc) in homes {
        let (offset, size) = match fragment {
            Some(fragment) => fragment,
            None => match super::debug_update::variable_size_bits(&cx.module.debug, variable) {
                Some(size) => (0, size),
                None => continue,
            },
        };
        let (from, to) = (start_bits.max(offset), end_bits.min(offset + size));
        if from >= to {
            continue;
        }
        let whole = (start_bits, end_bits) == (offset, offset + size);
        let mut ops = vec![ExprOp::Arg(0)];
        if fragment.is_some() || !whole {
            ops.push(ExprOp::Fragment {
                offset: from,
                size: to - from,
            });
        }
        described.push(DebugRecord {
            kind: RecordKind::Value,
            variable,
            locations: vec![if whole {
                stored.0.clone()
            } else {
                Value::Const(Constant::Poison(stored.1.clone()))
            }],
            expr: cx.module.debug.intern_expr(DIExpression { ops }),
            loc,
            assign: None,
        });
    }
    function.inst_mut(store).records.extend(described);
}

/// The base pointer `ptr` is a constant byte offset from (through GEPs).
fn base_and_offset(cx: &PassCx, function: &Function, ptr: &Value) -> (Value, i64) {
    let mut base = ptr.clone();
    let mut offset = 0i64;
    for _ in 0..64 {
        let Some(id) = base.as_inst() else { break };
        let InstKind::Gep {
            source,
            base: next,
            indices,
            ..
        } = &function.inst(id).kind
        else {
            break;
        };
        let Some(delta) = cx.module.gep_const_offset(source, indices) else {
            break;
        };
        offset += delta;
        base = next.clone();
    }
    (base, offset)
}

/// The bytes a non-volatile `memset`, `memcpy` or `memmove` of constant
/// length writes.
fn memory_write(cx: &PassCx, function: &Function, id: InstId) -> Option<PendingWrite> {
    let InstKind::Call { callee, args, .. } = &function.inst(id).kind else {
        return None;
    };
    if !matches!(
        cx.intrinsic(callee),
        Some(Intrinsic::Memset | Intrinsic::Memcpy | Intrinsic::Memmove)
    ) {
        return None;
    }
    let volatile = args.get(3).map(|a| &a.value);
    let length = match (args.get(2).map(|a| &a.value), volatile) {
        (Some(Value::Const(length)), Some(Value::Const(v))) if v.zext_value() == Some(0) => {
            i64::try_from(length.zext_value()?).ok()?
        }
        _ => return None,
    };
    let (base, start) = base_and_offset(cx, function, &args[0].value);
    Some(PendingWrite {
        call: id,
        base,
        start,
        end: start + length,
    })
}

/// Shortens memory intrinsic `call` to its first `length` bytes; each of
/// its markers gets an unlinked copy for the dead bytes' fragment of its
/// variable, with a `poison` address.
fn shorten(cx: &mut PassCx, function: &mut Function, call: InstId, length: i64) {
    let InstKind::Call { args, .. } = &function.inst(call).kind else {
        return;
    };
    let old_length = match &args[2].value {
        Value::Const(c) => c.zext_value().unwrap_or(0) as i64,
        _ => return,
    };
    let bits = match function.value_type(&args[2].value) {
        Type::Int(bits) => bits,
        _ => return,
    };
    if let InstKind::Call { args, .. } = &mut function.inst_mut(call).kind {
        args[2].value = Value::int(bits, i128::from(length));
    }
    let Some(id) = function.inst(call).assign_id else {
        return;
    };
    for inst in 0..function.insts.len() {
        let mut records = Vec::new();
        for record in &function.insts[inst].records {
            records.push(record.clone());
            if record.assign.as_ref().map(|a| a.id) != Some(id) {
                continue;
            }
            let (offset, size) = match cx.module.debug.expr(record.expr).fragment() {
                Some(fragment) => fragment,
                None => {
                    match super::debug_update::variable_size_bits(&cx.module.debug, record.variable)
                    {
                        Some(size) => (0, size),
                        None => continue,
                    }
                }
            };
            let dead_start = offset + length as u64 * 8;
            let dead_end = (offset + old_length as u64 * 8).min(offset + size);
            if dead_start >= dead_end {
                continue;
            }
            let mut ops: Vec<ExprOp> = cx.module.debug.expr(record.expr).ops.clone();
            if let Some(ExprOp::Fragment { .. }) = ops.last() {
                ops.pop();
            }
            ops.push(ExprOp::Fragment {
                offset: dead_start,
                size: dead_end - dead_start,
            });
            let mut dead = record.clone();
            dead.expr = cx.module.debug.intern_expr(DIExpression { ops });
            if let Some(link) = &mut dead.assign {
                link.id = cx.module.debug.add_node(true, MdNode::AssignId);
                link.address = Value::Const(Constant::Poison(Type::Ptr));
            }
            records.push(dead);
        }
        function.insts[inst].records = records;
    }
}
