//! declare-to-assign: turns the `#dbg_declare`s of clang -O0 IR into
//! assignment-tracking markers, as LLVM's `declare-to-assign` does, so later
//! passes can keep track of every source assignment to a variable's stack
//! home and the lowering can decide per program point whether the variable
//! lives in memory, in a value, or nowhere.
//!
//! In: a function without assignment tracking (no `#dbg_assign`, no
//! `!DIAssignID`). Out: for each `#dbg_declare` of a fixed-size alloca with a
//! plain expression (at most a fragment):
//! - the alloca gets a `!DIAssignID` and, right after it, a
//!   `#dbg_assign(i1 undef, var, expr, id, ptr %alloca, !DIExpression())`
//!   (the variable's storage begins here, its value is not known yet);
//! - every store, `memset`, `memcpy` and `memmove` that writes the alloca
//!   through a constant-offset pointer gets a `!DIAssignID` of its own and,
//!   right after it, a `#dbg_assign` of the stored value (`poison` for the
//!   memory intrinsics) with that id, the written pointer as address, and a
//!   `DW_OP_LLVM_fragment` of the bits written when they are not the whole
//!   variable (writes outside the variable get no marker);
//! - the declare goes, and the module flag `"debug-info-assignment-tracking"`
//!   is set.
//!
//! Declares of anything else (arguments, dynamic allocas, complex
//! expressions) stay declares and are lowered as today.

use crate::ir::hash::FxHashMap;

use crate::ir::{
    AssignLink, Constant, DIExpression, DebugRecord, ExprId, ExprOp, Function, InstId, InstKind,
    Intrinsic, MdNode, MdOperand, MdRef, NamedMetadata, RecordKind, Type, Value,
};

use super::PassCx;

/// The module flag assignment tracking is announced by.
pub const FLAG: &str = "debug-info-assignment-tracking";

/// A tracked variable: its declare and the bits of it the alloca holds.
struct Tracked {
    declare: DebugRecord,
    /// The declare's own fragment (offset, size) in the variable, if any.
    fragment: Option<(u64, u64)>,
    /// The bits of the alloca that hold the variable (the declare's
    /// fragment size, else the variable's size).
    bits: u64,
}

/// Runs declare-to-assign on one function; true when a declare was converted.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let already_tracked = function.insts.iter().any(|inst| {
        inst.assign_id.is_some() || inst.records.iter().any(|r| r.kind == RecordKind::Assign)
    });
    if already_tracked || function.subprogram.is_none() {
        return false;
    }
    let placed: Vec<InstId> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.clone())
        .collect();
    // The declares to convert, by alloca, in program order.
    let mut tracked: FxHashMap<InstId, Vec<Tracked>> = FxHashMap::default();
    for &id in &placed {
        for record in &function.inst(id).records {
            if let Some((alloca, t)) = trackable(cx, function, record) {
                tracked.entry(alloca).or_default().push(t);
            }
        }
    }
    if tracked.is_empty() {
        return false;
    }
    let empty_expr = empty_expr(cx);
    // Markers to insert after each instruction: the allocas' first.
    let mut after: FxHashMap<InstId, Vec<DebugRecord>> = FxHashMap::default();
    for &alloca in placed.iter().filter(|id| tracked.contains_key(id)) {
        let variables = &tracked[&alloca];
        let assign_id = cx.module.debug.add_node(true, MdNode::AssignId);
        let markers = variables
            .iter()
            .map(|t| DebugRecord {
                kind: RecordKind::Assign,
                variable: t.declare.variable,
                locations: vec![Value::Const(Constant::Undef(Type::Int(1)))],
                expr: t.declare.expr,
                loc: t.declare.loc,
                assign: Some(AssignLink {
                    id: assign_id,
                    address: Value::Inst(alloca),
                    address_expr: empty_expr,
                }),
            })
            .collect();
        function.inst_mut(alloca).assign_id = Some(assign_id);
        after.insert(alloca, markers);
    }
    after.extend(link_writes(cx, function, &tracked, &placed));
    // The declares go; the markers go after what they mark.
    for block in 0..function.blocks.len() {
        for id in function.blocks[block].insts.clone() {
            function.inst_mut(id).records.retain(|r| {
                !(r.kind == RecordKind::Declare
                    && r.locations.len() == 1
                    && r.locations[0]
                        .as_inst()
                        .is_some_and(|a| tracked.contains_key(&a)))
            });
        }
    }
    insert_after(function, after);
    set_flag(cx);
    true
}

/// Puts each instruction's markers in front of the next instruction's
/// records (the written instructions are never terminators).
fn insert_after(function: &mut Function, mut after: FxHashMap<InstId, Vec<DebugRecord>>) {
    for block in 0..function.blocks.len() {
        let insts = function.blocks[block].insts.clone();
        for (i, &id) in insts.iter().enumerate() {
            if let (Some(mut markers), Some(&next)) = (after.remove(&id), insts.get(i + 1)) {
                let next = function.inst_mut(next);
                markers.append(&mut next.records);
                next.records = markers;
            }
        }
    }
}

/// `!DIExpression()` as an address expression.
fn empty_expr(cx: &mut PassCx) -> ExprId {
    cx.module.debug.intern_expr(DIExpression {
        ops: vec![ExprOp::Arg(0)],
    })
}

/// Links the untagged writes among `writes` that write a tracked alloca
/// (through a constant-offset pointer) to markers of the alloca's
/// variables: each such store, `memset`, `memcpy` or `memmove` gets a new
/// DIAssignID, and the markers to put after it are returned by instruction.
fn link_writes(
    cx: &mut PassCx,
    function: &mut Function,
    tracked: &FxHashMap<InstId, Vec<Tracked>>,
    writes: &[InstId],
) -> FxHashMap<InstId, Vec<DebugRecord>> {
    let placed: Vec<InstId> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.clone())
        .collect();
    // Pointers into each tracked alloca, with their constant byte offsets.
    let mut derived: FxHashMap<InstId, (InstId, u64)> =
        tracked.keys().map(|&a| (a, (a, 0))).collect();
    for &id in &placed {
        if let InstKind::Gep {
            source,
            base,
            indices,
            ..
        } = &function.inst(id).kind
        {
            let Some(&(alloca, base_offset)) = base.as_inst().and_then(|b| derived.get(&b)) else {
                continue;
            };
            if let Some(delta) = cx.module.gep_const_offset(source, indices) {
                if let Ok(offset) = u64::try_from(base_offset as i64 + delta) {
                    derived.insert(id, (alloca, offset));
                }
            }
        }
    }
    let empty_expr = empty_expr(cx);
    let mut after: FxHashMap<InstId, Vec<DebugRecord>> = FxHashMap::default();
    for &id in writes {
        let inst = function.inst(id);
        if inst.assign_id.is_some() {
            continue;
        }
        let write = match &inst.kind {
            InstKind::Store { value, ptr, .. } => {
                let bytes = cx.module.store_size(&function.value_type(value));
                Some((ptr.clone(), bytes, value.clone()))
            }
            InstKind::Call { callee, args, .. } => match cx.intrinsic(callee) {
                Some(Intrinsic::Memset | Intrinsic::Memcpy | Intrinsic::Memmove) => {
                    match args.get(2).map(|a| &a.value) {
                        Some(Value::Const(length)) => length.zext_value().map(|bytes| {
                            (
                                args[0].value.clone(),
                                bytes as u64,
                                Value::Const(Constant::Poison(Type::Int(8))),
                            )
                        }),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        };
        let Some((ptr, bytes, value)) = write else {
            continue;
        };
        let Some(&(alloca, offset)) = ptr.as_inst().and_then(|p| derived.get(&p)) else {
            continue;
        };
        let mut markers = Vec::new();
        let mut assign_id = None;
        for t in &tracked[&alloca] {
            let Some(expr) = written_fragment(cx, t, offset * 8, bytes * 8) else {
                continue;
            };
            let id =
                *assign_id.get_or_insert_with(|| cx.module.debug.add_node(true, MdNode::AssignId));
            markers.push(DebugRecord {
                kind: RecordKind::Assign,
                variable: t.declare.variable,
                locations: vec![value.clone()],
                expr,
                loc: t.declare.loc,
                assign: Some(AssignLink {
                    id,
                    address: ptr.clone(),
                    address_expr: empty_expr,
                }),
            });
        }
        if let Some(assign_id) = assign_id {
            function.inst_mut(id).assign_id = Some(assign_id);
            after.insert(id, markers);
        }
    }
    after
}

/// LLVM's rule for inlined stores: a store of the copied body `copied` that
/// writes an alloca of the caller whose variables are tracked (the alloca
/// carries markers) is an assignment to those variables: it gets a new
/// DIAssignID and markers of them right after it.
pub(super) fn track_inlined_stores(cx: &mut PassCx, function: &mut Function, copied: &[InstId]) {
    let mut tracked: FxHashMap<InstId, Vec<Tracked>> = FxHashMap::default();
    let placed = function.blocks.iter().flat_map(|b| &b.insts);
    for inst in placed.map(|&id| function.inst(id)) {
        for record in &inst.records {
            let Some(link) = &record.assign else { continue };
            let Some(alloca) = link.address.as_inst() else {
                continue;
            };
            let of_alloca = function.inst(alloca).assign_id == Some(link.id)
                && matches!(function.inst(alloca).kind, InstKind::Alloca { .. });
            if !of_alloca || cx.module.debug.expr(link.address_expr).ops != [ExprOp::Arg(0)] {
                continue;
            }
            let as_declare = DebugRecord {
                kind: RecordKind::Declare,
                locations: vec![link.address.clone()],
                assign: None,
                ..record.clone()
            };
            if let Some((alloca, t)) = trackable(cx, function, &as_declare) {
                let variables = tracked.entry(alloca).or_default();
                if !variables
                    .iter()
                    .any(|v| v.declare.variable == t.declare.variable)
                {
                    variables.push(t);
                }
            }
        }
    }
    if tracked.is_empty() {
        return;
    }
    let after = link_writes(cx, function, &tracked, copied);
    insert_after(function, after);
}

/// The alloca a declare describes and what of the variable it holds, when
/// the declare is one this pass converts.
fn trackable(cx: &PassCx, function: &Function, record: &DebugRecord) -> Option<(InstId, Tracked)> {
    if record.kind != RecordKind::Declare || record.locations.len() != 1 {
        return None;
    }
    let alloca = record.locations[0].as_inst()?;
    if !matches!(
        function.inst(alloca).kind,
        InstKind::Alloca { count: None, .. }
    ) {
        return None;
    }
    let fragment = match cx.module.debug.expr(record.expr).ops.as_slice() {
        [ExprOp::Arg(0)] => None,
        [ExprOp::Arg(0), ExprOp::Fragment { offset, size }] => Some((*offset, *size)),
        _ => return None,
    };
    let bits = match fragment {
        Some((_, size)) => size,
        None => super::debug_update::variable_size_bits(&cx.module.debug, record.variable)?,
    };
    Some((
        alloca,
        Tracked {
            declare: record.clone(),
            fragment,
            bits,
        },
    ))
}

/// The value expression of a marker for a write of `size` bits at bit
/// `offset` of the alloca: the declare's, with the fragment written when it
/// is not all the declare describes; `None` when the write misses the
/// variable.
fn written_fragment(cx: &mut PassCx, tracked: &Tracked, offset: u64, size: u64) -> Option<ExprId> {
    let start = offset;
    let end = (offset + size).min(tracked.bits);
    if start >= end {
        return None;
    }
    if start == 0 && end == tracked.bits {
        return Some(tracked.declare.expr);
    }
    let base = tracked.fragment.map_or(0, |(o, _)| o);
    Some(cx.module.debug.intern_expr(DIExpression {
        ops: vec![
            ExprOp::Arg(0),
            ExprOp::Fragment {
                offset: base + start,
                size: end - start,
            },
        ],
    }))
}

/// Sets `!{i32 7, !"debug-info-assignment-tracking", i1 true}` (once).
fn set_flag(cx: &mut PassCx) {
    if cx.module.assignment_tracking() {
        return;
    }
    let flag = cx.module.debug.add_node(
        false,
        MdNode::Tuple(vec![
            MdOperand::Value(Constant::Int { bits: 32, value: 7 }),
            MdOperand::Str(FLAG.to_string()),
            MdOperand::Value(Constant::Int { bits: 1, value: -1 }),
        ]),
    );
    match cx
        .module
        .named_metadata
        .iter_mut()
        .find(|n| n.name == "llvm.module.flags")
    {
        Some(flags) => flags.nodes.push(MdRef::Node(flag)),
        None => cx.module.named_metadata.push(NamedMetadata {
            name: "llvm.module.flags".to_string(),
            nodes: vec![MdRef::Node(flag)],
        }),
    }
}
