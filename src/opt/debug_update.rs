//! The debug-info utilities every pass calls, after LLVM's "How to update
//! debug info": merged locations, salvage, and replace-all-debug-uses.
//!
//! In: a function and the module's metadata arenas. Out: debug records and
//! locations changed so they stay true after a pass's edit. Rules:
//! - [`merge_locations`]: two instructions that become one get the nearest
//!   common scope of their locations, with line 0 when their lines differ
//!   (column 0 when only the columns differ).
//! - [`salvage_debug_uses`]: before an instruction is deleted, every debug
//!   record that names it is rewritten in terms of its operands: a binary
//!   operation with a constant operand appends that operation to the
//!   expression; one with two SSA operands, and a GEP with variable indices,
//!   adds the operands to the record's DIArgList and names them with
//!   `DW_OP_LLVM_arg`; an integer cast appends `DW_OP_LLVM_convert` pairs.
//!   What cannot be salvaged becomes `poison` (the variable is unavailable
//!   there, never wrong).
//! - [`replace_all_debug_uses_with`]: debug uses move to a value of another
//!   width; a narrower value is extended back with `DW_OP_LLVM_convert` in
//!   the variable's signedness.
//!
//! Operations whose DWARF meaning depends on bits above the value's width
//! (right shifts, division, remainder) are only salvaged on 64-bit values,
//! so a salvaged expression is right whatever the register holds above them.

use crate::ir::debug::Comparison;
use crate::ir::{
    BinOp, CastOp, Constant, DILocation, DebugInfo, ExprOp, Function, ICmpPred, InstId, InstKind,
    LocId, MdId, MdNode, Module, RecordKind, Type, Value,
};

/// The location of an instruction moved away from its statement (hoisted,
/// or made by a pass for a loop's preheader): line 0 in the same scope and
/// inlined-at chain; `None` stays `None`.
pub fn dropped_location(module: &mut Module, loc: Option<LocId>) -> Option<LocId> {
    let old = module.debug.location(loc?).clone();
    Some(module.debug.intern_location(DILocation {
        line: 0,
        column: 0,
        implicit_code: false,
        distinct: false,
        ..old
    }))
}

/// The location of an instruction that replaces two instructions located at
/// `a` and `b`: the same location when equal, else the nearest common scope
/// with line 0 when the lines differ; `None` when either has none.
pub fn merge_locations(debug: &mut DebugInfo, a: Option<LocId>, b: Option<LocId>) -> Option<LocId> {
    let (a, b) = (a?, b?);
    if a == b {
        return Some(a);
    }
    let (la, lb) = (debug.location(a).clone(), debug.location(b).clone());
    if la.inlined_at != lb.inlined_at {
        // Different inlined copies: merge where they were called from.
        let outer = |mut loc: DILocation, debug: &DebugInfo| {
            while let Some(at) = loc.inlined_at {
                loc = debug.location(at).clone();
            }
            loc
        };
        let (oa, ob) = (outer(la, debug), outer(lb, debug));
        let (ia, ib) = (debug.intern_location(oa), debug.intern_location(ob));
        let merged = merge_same_inlining(debug, ia, ib);
        return Some(merged);
    }
    Some(merge_same_inlining(debug, a, b))
}

/// Merges two locations with the same `inlinedAt`.
fn merge_same_inlining(debug: &mut DebugInfo, a: LocId, b: LocId) -> LocId {
    if a == b {
        return a;
    }
    let (la, lb) = (debug.location(a).clone(), debug.location(b).clone());
    let scope = nearest_common_scope(debug, la.scope, lb.scope);
    let (line, column) = if la.line != lb.line {
        (0, 0)
    } else if la.column != lb.column {
        (la.line, 0)
    } else {
        (la.line, la.column)
    };
    debug.intern_location(DILocation {
        line,
        column,
        scope,
        inlined_at: la.inlined_at,
        implicit_code: false,
        distinct: false,
        atom_group: 0,
        atom_rank: 0,
    })
}

/// The innermost scope enclosing both `a` and `b`.
pub fn nearest_common_scope(debug: &DebugInfo, a: MdId, b: MdId) -> MdId {
    let mut chain = vec![a];
    let mut scope = a;
    while let Some(parent) = debug.parent_scope(scope) {
        if chain.len() > debug.nodes.len() {
            break;
        }
        chain.push(parent);
        scope = parent;
    }
    let mut scope = b;
    for _ in 0..=debug.nodes.len() {
        if chain.contains(&scope) {
            return scope;
        }
        match debug.parent_scope(scope) {
            Some(parent) => scope = parent,
            None => break,
        }
    }
    *chain.last().unwrap_or(&a)
}

/// What a deleted instruction's value is in terms of other values: a base
/// value, extra operands for the DIArgList, and the operations that follow
/// `DW_OP_LLVM_arg` of the base (`Arg(EXTRA + k)` names extra operand k).
struct Salvaged {
    base: Value,
    extra: Vec<Value>,
    ops: Vec<ExprOp>,
}

/// Placeholder offset for extra operands in [`Salvaged::ops`], renumbered per record.
const EXTRA: u32 = 1 << 20;

/// Bits of an integer or pointer type.
fn width(ty: &Type) -> Option<u32> {
    match ty {
        Type::Int(bits) => Some(*bits),
        Type::Ptr => Some(64),
        _ => None,
    }
}

/// Operations that apply `op` with a constant right operand `c` (sign-extended bits).
fn const_operand_ops(op: BinOp, c: i128, bits: u32) -> Option<Vec<ExprOp>> {
    let c64 = c as i64;
    let wide = bits == 64;
    Some(match op {
        BinOp::Add if c64 >= 0 => vec![ExprOp::PlusUconst(c64 as u64)],
        BinOp::Add => vec![ExprOp::Constu(c64.unsigned_abs()), ExprOp::Minus],
        BinOp::Sub if c64 >= 0 => vec![ExprOp::Constu(c64 as u64), ExprOp::Minus],
        BinOp::Sub => vec![ExprOp::PlusUconst(c64.unsigned_abs())],
        BinOp::Mul => vec![ExprOp::Constu(c64 as u64), ExprOp::Mul],
        BinOp::And => vec![ExprOp::Constu(c64 as u64), ExprOp::And],
        BinOp::Or => vec![ExprOp::Constu(c64 as u64), ExprOp::Or],
        BinOp::Xor => vec![ExprOp::Constu(c64 as u64), ExprOp::Xor],
        BinOp::Shl => vec![ExprOp::Constu(c64 as u64), ExprOp::Shl],
        BinOp::LShr if wide => vec![ExprOp::Constu(c64 as u64), ExprOp::Shr],
        BinOp::AShr if wide => vec![ExprOp::Constu(c64 as u64), ExprOp::Shra],
        _ => return None,
    })
}

/// The DWARF operation combining two stack values for `op`, where it is
/// right whatever the bits above `bits` hold.
fn two_operand_op(op: BinOp, bits: u32) -> Option<ExprOp> {
    Some(match op {
        BinOp::Add => ExprOp::Plus,
        BinOp::Sub => ExprOp::Minus,
        BinOp::Mul => ExprOp::Mul,
        BinOp::And => ExprOp::And,
        BinOp::Or => ExprOp::Or,
        BinOp::Xor => ExprOp::Xor,
        BinOp::Shl if bits == 64 => ExprOp::Shl,
        BinOp::LShr if bits == 64 => ExprOp::Shr,
        BinOp::AShr if bits == 64 => ExprOp::Shra,
        _ => return None,
    })
}

/// The DWARF comparison for `pred`, and whether it is signed (as LLVM
/// salvages an `icmp`: one operation for both signednesses, the constant
/// operand written `DW_OP_consts` for a signed predicate and `DW_OP_constu`
/// otherwise; isel compares in that signedness).
fn comparison_of(pred: ICmpPred) -> (Comparison, bool) {
    match pred {
        ICmpPred::Eq => (Comparison::Eq, false),
        ICmpPred::Ne => (Comparison::Ne, false),
        ICmpPred::Ugt => (Comparison::Gt, false),
        ICmpPred::Uge => (Comparison::Ge, false),
        ICmpPred::Ult => (Comparison::Lt, false),
        ICmpPred::Ule => (Comparison::Le, false),
        ICmpPred::Sgt => (Comparison::Gt, true),
        ICmpPred::Sge => (Comparison::Ge, true),
        ICmpPred::Slt => (Comparison::Lt, true),
        ICmpPred::Sle => (Comparison::Le, true),
    }
}

/// How the value of instruction `id` can be rebuilt from its operands.
fn salvage_of(module: &Module, function: &Function, id: InstId) -> Option<Salvaged> {
    let inst = function.inst(id);
    let bits = width(&inst.ty);
    match &inst.kind {
        InstKind::Binary { op, lhs, rhs, .. } => {
            let bits = bits?;
            let commutative = matches!(
                op,
                BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
            );
            let (lhs, rhs) = match (lhs, rhs) {
                (Value::Const(_), r) if commutative && !matches!(r, Value::Const(_)) => (r, lhs),
                _ => (lhs, rhs),
            };
            if let Value::Const(Constant::Int { value, .. }) = rhs {
                return Some(Salvaged {
                    base: lhs.clone(),
                    extra: Vec::new(),
                    ops: const_operand_ops(*op, *value, bits)?,
                });
            }
            if matches!(lhs, Value::Const(_)) || matches!(rhs, Value::Const(_)) {
                return None;
            }
            Some(Salvaged {
                base: lhs.clone(),
                extra: vec![rhs.clone()],
                ops: vec![ExprOp::Arg(EXTRA), two_operand_op(*op, bits)?],
            })
        }
        InstKind::ICmp { pred, lhs, rhs } => {
            width(&function.value_type(lhs)).filter(|&bits| bits <= 64)?;
            let (comparison, signed) = comparison_of(*pred);
            let ops = match rhs {
                Value::Const(Constant::Int { value, .. }) if signed => {
                    vec![ExprOp::Consts(*value as i64), ExprOp::Compare(comparison)]
                }
                Value::Const(Constant::Int { value, .. }) => {
                    vec![
                        ExprOp::Constu(*value as i64 as u64),
                        ExprOp::Compare(comparison),
                    ]
                }
                // Two values: only equality says nothing of signedness.
                Value::Inst(_) | Value::Arg(_) if !comparison.is_ordered() => {
                    return Some(Salvaged {
                        base: lhs.clone(),
                        extra: vec![rhs.clone()],
                        ops: vec![ExprOp::Arg(EXTRA), ExprOp::Compare(comparison)],
                    })
                }
                _ => return None,
            };
            Some(Salvaged {
                base: lhs.clone(),
                extra: Vec::new(),
                ops,
            })
        }
        InstKind::Cast { op, value, .. } => {
            let from = width(&function.value_type(value))?;
            let to = bits?;
            let ops = match op {
                CastOp::BitCast | CastOp::PtrToInt | CastOp::IntToPtr if from == to => Vec::new(),
                // A C `_Bool` stored as `zext i1 to i8`: the bit itself
                // (what a register holds above it is not the value's).
                CastOp::ZExt if from == 1 => vec![ExprOp::Constu(1), ExprOp::And],
                CastOp::ZExt | CastOp::SExt | CastOp::Trunc if from >= 8 && to >= 8 => {
                    let signed = *op == CastOp::SExt;
                    vec![
                        ExprOp::Convert { bits: from, signed },
                        ExprOp::Convert { bits: to, signed },
                    ]
                }
                _ => return None,
            };
            Some(Salvaged {
                base: value.clone(),
                extra: Vec::new(),
                ops,
            })
        }
        InstKind::Gep {
            source,
            base,
            indices,
            ..
        } => {
            let steps = module.gep_steps(source, indices)?;
            let mut ops = Vec::new();
            let mut extra = Vec::new();
            let mut offset: i64 = 0;
            for step in steps {
                match step {
                    crate::ir::GepStep::Offset(o) => offset = offset.wrapping_add(o as i64),
                    crate::ir::GepStep::Scaled { index, stride } => match &indices[index] {
                        Value::Const(c) => {
                            offset = offset.wrapping_add((c.sext_value()? as i64) * stride as i64)
                        }
                        variable => {
                            if width(&function.value_type(variable)) != Some(64) {
                                return None;
                            }
                            ops.push(ExprOp::Arg(EXTRA + extra.len() as u32));
                            extra.push(variable.clone());
                            if stride != 1 {
                                ops.push(ExprOp::Constu(stride));
                                ops.push(ExprOp::Mul);
                            }
                            ops.push(ExprOp::Plus);
                        }
                    },
                }
            }
            if offset > 0 {
                ops.push(ExprOp::PlusUconst(offset as u64));
            } else if offset < 0 {
                ops.push(ExprOp::Constu(offset.unsigned_abs()));
                ops.push(ExprOp::Minus);
            }
            Some(Salvaged {
                base: base.clone(),
                extra,
                ops,
            })
        }
        _ => None,
    }
}

/// Rewrites every debug record of `function` that names instruction `id`
/// so it no longer does: salvaged into its operands where possible, else
/// `poison`. Returns how many record locations were salvaged.
pub fn salvage_debug_uses(module: &mut Module, function: &mut Function, id: InstId) -> usize {
    let salvage = salvage_of(module, function, id);
    let ty = function.inst(id).ty.clone();
    let target = Value::Inst(id);
    let mut salvaged = 0;
    let placed: Vec<InstId> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.clone())
        .collect();
    for at in placed {
        for r in 0..function.inst(at).records.len() {
            let record = &function.inst(at).records[r];
            if !record.values().any(|v| *v == target) {
                continue;
            }
            let mut record = record.clone();
            if let Some(assign) = &mut record.assign {
                if assign.address == target {
                    assign.address = Value::Const(Constant::Poison(Type::Ptr));
                }
            }
            for i in 0..record.locations.len() {
                if record.locations[i] != target {
                    continue;
                }
                let rewritten = match (&salvage, record.kind) {
                    (Some(s), RecordKind::Value | RecordKind::Assign) => {
                        apply_salvage(&mut module.debug, &mut record, i, s)
                    }
                    _ => false,
                };
                if rewritten {
                    salvaged += 1;
                } else {
                    record.locations[i] = Value::Const(Constant::Poison(ty.clone()));
                }
            }
            function.inst_mut(at).records[r] = record;
        }
    }
    salvaged
}

/// Puts `s` into location `i` of `record`; false when the expression cannot
/// take it (it already names too many operands).
fn apply_salvage(
    debug: &mut DebugInfo,
    record: &mut crate::ir::DebugRecord,
    i: usize,
    s: &Salvaged,
) -> bool {
    let first_extra = record.locations.len() as u32;
    if first_extra + s.extra.len() as u32 > 16 {
        return false;
    }
    let renumber = |op: &ExprOp| match op {
        ExprOp::Arg(n) if *n >= EXTRA => ExprOp::Arg(n - EXTRA + first_extra),
        other => other.clone(),
    };
    let old = debug.expr(record.expr).clone();
    let mut ops = Vec::with_capacity(old.ops.len() + s.ops.len() + 1);
    let mut has_stack_value = false;
    for op in &old.ops {
        if matches!(op, ExprOp::Fragment { .. }) && !has_stack_value && !s.ops.is_empty() {
            ops.push(ExprOp::StackValue);
            has_stack_value = true;
        }
        if matches!(op, ExprOp::StackValue) {
            has_stack_value = true;
        }
        ops.push(op.clone());
        if *op == ExprOp::Arg(i as u32) {
            ops.extend(s.ops.iter().map(renumber));
        }
    }
    if !has_stack_value && !s.ops.is_empty() {
        ops.push(ExprOp::StackValue);
    }
    record.locations[i] = s.base.clone();
    record.locations.extend(s.extra.iter().cloned());
    record.expr = debug.intern_expr(crate::ir::DIExpression { ops });
    true
}

/// Whether a variable's type is a signed integer (through typedefs and
/// qualifiers to its DIBasicType).
pub fn variable_is_signed(debug: &DebugInfo, variable: MdId) -> bool {
    let mut ty = debug.variable(variable).and_then(|v| v.ty);
    for _ in 0..32 {
        match ty.map(|t| debug.node(t)) {
            Some(MdNode::BasicType(b)) => {
                return b
                    .encoding
                    .as_deref()
                    .is_some_and(|e| e.contains("signed") && !e.contains("unsigned"));
            }
            Some(MdNode::DerivedType(d)) if d.tag != "DW_TAG_pointer_type" => ty = d.base_type,
            _ => return false,
        }
    }
    false
}

/// Moves every debug use of instruction `from` to `to`. When `to` is
/// narrower than `from`, the expression extends it back to `from`'s width
/// (`DW_OP_LLVM_convert to, DW_OP_LLVM_convert from`, signed when the
/// variable is); a wider `to` needs nothing (the debugger reads the low bits).
pub fn replace_all_debug_uses_with(
    debug: &mut DebugInfo,
    function: &mut Function,
    from: InstId,
    to: &Value,
) {
    let placed: Vec<InstId> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.clone())
        .collect();
    replace_debug_uses_at(debug, function, from, to, &placed);
}

/// [`replace_all_debug_uses_with`] over the records of the instructions
/// `places` only (a pass that knows where the debug uses are).
pub fn replace_debug_uses_at(
    debug: &mut DebugInfo,
    function: &mut Function,
    from: InstId,
    to: &Value,
    places: &[InstId],
) {
    let from_bits = width(&function.inst(from).ty);
    let to_bits = width(&function.value_type(to));
    let target = Value::Inst(from);
    for &at in places {
        for r in 0..function.inst(at).records.len() {
            let mut record = function.inst(at).records[r].clone();
            if !record.values().any(|v| *v == target) {
                continue;
            }
            for i in 0..record.locations.len() {
                if record.locations[i] != target {
                    continue;
                }
                match (from_bits, to_bits) {
                    (Some(f), Some(t)) if t < f => {
                        let signed = variable_is_signed(debug, record.variable);
                        let s = Salvaged {
                            base: to.clone(),
                            extra: Vec::new(),
                            ops: vec![
                                ExprOp::Convert { bits: t, signed },
                                ExprOp::Convert { bits: f, signed },
                            ],
                        };
                        apply_salvage(debug, &mut record, i, &s);
                    }
                    _ => record.locations[i] = to.clone(),
                }
            }
            if let Some(assign) = &mut record.assign {
                if assign.address == target {
                    assign.address = to.clone();
                }
            }
            function.inst_mut(at).records[r] = record;
        }
    }
}

/// Replaces every use of instruction `from` by `to`: code operands and
/// debug records alike (debug uses follow the value, converting widths as
/// [`replace_all_debug_uses_with`] does).
pub fn replace_all_uses_with(
    debug: &mut DebugInfo,
    function: &mut Function,
    from: InstId,
    to: &Value,
) {
    replace_all_debug_uses_with(debug, function, from, to);
    let target = Value::Inst(from);
    for inst in &mut function.insts {
        for operand in inst.operands_mut() {
            if *operand == target {
                *operand = to.clone();
            }
        }
    }
}

/// LLVM's `mergeDIAssignID`: when the instructions `merged` are folded into
/// `kept` (stores a pass merges into one), their assignments become one:
/// `kept` carries one DIAssignID (its own, else the first of `merged`'s) and
/// every marker linked to any of their DIAssignIDs is linked to it.
pub fn merge_assign_ids(function: &mut Function, kept: InstId, merged: &[InstId]) {
    let ids: Vec<MdId> = std::iter::once(kept)
        .chain(merged.iter().copied())
        .filter_map(|id| function.inst(id).assign_id)
        .collect();
    let Some(&one) = ids.first() else {
        return;
    };
    function.inst_mut(kept).assign_id = Some(one);
    for &id in merged {
        function.inst_mut(id).assign_id = None;
    }
    for inst in &mut function.insts {
        for record in &mut inst.records {
            if let Some(link) = &mut record.assign {
                if ids.contains(&link.id) {
                    link.id = one;
                }
            }
        }
    }
}

/// The size in bits of a local variable's type (through typedefs and qualifiers).
pub fn variable_size_bits(debug: &DebugInfo, variable: MdId) -> Option<u64> {
    let mut node = debug.variable(variable)?.ty?;
    for _ in 0..64 {
        match debug.node(node) {
            MdNode::BasicType(t) => return Some(t.size),
            MdNode::CompositeType(t) => return Some(t.size),
            MdNode::DerivedType(t) if t.tag == "DW_TAG_pointer_type" => return Some(64),
            MdNode::DerivedType(t) => node = t.base_type?,
            _ => return None,
        }
    }
    None
}
