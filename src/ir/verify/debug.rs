//! The debug-info invariants of one function.
//!
//! In: a [`Checker`] whose function passed the code checks. Out: the first
//! broken debug-info invariant as a [`Diagnostic`]. Promise: passing means
//! every metadata id the function's code and records use exists and has
//! the right kind, every location's scope chain (through `inlinedAt`)
//! reaches the function's DISubprogram, and every record's variable belongs
//! to the subprogram its location is in.

use super::Checker;
use crate::error::Diagnostic;
use crate::ir::{DebugRecord, ExprId, ExprOp, InstKind, LocId, MdId, MdNode, RecordKind, Value};

pub(super) fn check_debug_info(c: &Checker) -> Result<(), Diagnostic> {
    let f = c.function;
    let subprogram = match f.subprogram {
        Some(sp) if matches!(node(c, sp), Some(MdNode::Subprogram(_))) => Some(sp),
        Some(sp) => {
            return Err(c.error(
                None,
                format!("its !dbg is {}, not a DISubprogram", node_text(c, sp)),
            ))
        }
        None => None,
    };
    if let Some(sp) = subprogram {
        if !c.module.debug.nodes[sp.0 as usize].distinct {
            return Err(c.error(
                None,
                format!(
                    "its !dbg {} is not distinct (a definition's must be)",
                    node_text(c, sp)
                ),
            ));
        }
        if let Some(owner) = c.subprogram_owners.get(&sp).filter(|o| **o != f.name) {
            return Err(c.error(
                None,
                format!("its !dbg {} is also attached to @{owner}", node_text(c, sp)),
            ));
        }
    }
    for (b, block) in f.blocks.iter().enumerate() {
        for &id in &block.insts {
            let inst = f.inst(id);
            // Only an error needs the text.
            let where_ = || format!("{} in block {}", c.inst_text(id), c.block_text(b));
            if let Some(loc) = inst.dbg {
                check_location(c, subprogram, loc).map_err(|p| {
                    c.error(
                        Some(id),
                        format!("{} has a !dbg location that {p}", where_()),
                    )
                })?;
            }
            if let Some(assign) = inst.assign_id {
                if !matches!(node(c, assign), Some(MdNode::AssignId)) {
                    return Err(c.error(
                        Some(id),
                        format!(
                            "{} has a !DIAssignID that is {}",
                            where_(),
                            node_text(c, assign)
                        ),
                    ));
                }
            }
            if matches!(inst.kind, InstKind::Phi { .. }) && !inst.records.is_empty() {
                return Err(c.error(
                    Some(id),
                    format!(
                        "{} has debug records attached; they belong after the phis",
                        where_()
                    ),
                ));
            }
            for record in &inst.records {
                check_record(c, subprogram, record).map_err(|p| {
                    c.error(
                        Some(id),
                        format!(
                            "#dbg_{} of {} before {}: {p}",
                            kind_name(record.kind),
                            variable_text(c, record.variable),
                            where_()
                        ),
                    )
                })?;
            }
        }
    }
    Ok(())
}

/// A location exists and its scope chain, followed out through
/// `inlinedAt`, reaches the function's subprogram.
fn check_location(c: &Checker, subprogram: Option<MdId>, loc: LocId) -> Result<(), String> {
    let Some(sp) = subprogram else {
        return Err("exists but the function has no DISubprogram".to_string());
    };
    let reached = outermost_subprogram(c, loc)?;
    if reached != sp {
        let inlined = c
            .module
            .debug
            .locations
            .get(loc.0 as usize)
            .is_some_and(|l| l.inlined_at.is_some());
        let (verb, preposition) = if inlined {
            ("is inlined into", "into")
        } else {
            ("is in", "in")
        };
        return Err(format!(
            "{verb} {}, not {preposition} the function's {}",
            node_text(c, reached),
            node_text(c, sp)
        ));
    }
    Ok(())
}

fn check_record(c: &Checker, subprogram: Option<MdId>, record: &DebugRecord) -> Result<(), String> {
    let variable_scope = match (record.kind, node(c, record.variable)) {
        (RecordKind::Label, Some(MdNode::Label(label))) => label.scope,
        (RecordKind::Label, _) => {
            return Err(format!(
                "it names {}, not a DILabel",
                node_text(c, record.variable)
            ))
        }
        (_, Some(MdNode::LocalVariable(var))) => var.scope,
        _ => {
            return Err(format!(
                "it names {}, not a DILocalVariable",
                node_text(c, record.variable)
            ))
        }
    };
    check_location(c, subprogram, record.loc).map_err(|p| format!("its DILocation {p}"))?;
    // The record's own (innermost) location and its variable must be in
    // the same subprogram: the inlined callee for inlined code.
    let loc_scope = c.module.debug.locations[record.loc.0 as usize].scope;
    let loc_sp = scope_subprogram(c, loc_scope).map_err(|p| format!("its DILocation {p}"))?;
    let var_sp = scope_subprogram(c, variable_scope).map_err(|p| format!("the variable {p}"))?;
    if loc_sp != var_sp {
        return Err(format!(
            "the variable belongs to {} but the record's DILocation is in {}",
            node_text(c, var_sp),
            node_text(c, loc_sp)
        ));
    }
    if record.kind == RecordKind::Label {
        return Ok(());
    }
    for value in &record.locations {
        check_operand(c, value)?;
    }
    check_expression(c, record.expr, &record.locations)?;
    check_fragment(c, record)?;
    if let Some(assign) = &record.assign {
        if !matches!(node(c, assign.id), Some(MdNode::AssignId)) {
            return Err(format!(
                "its assign id is {}, not a DIAssignID",
                node_text(c, assign.id)
            ));
        }
        if let Some(owner) = c.assign_owners.get(&assign.id) {
            if *owner != c.function.name {
                return Err(format!(
                    "its DIAssignID is attached to an instruction of @{owner}, not of this function"
                ));
            }
        }
        check_operand(c, &assign.address)?;
        check_expression(
            c,
            assign.address_expr,
            std::slice::from_ref(&assign.address),
        )?;
    }
    Ok(())
}

/// A record operand is an argument or an instruction with a result, of this function.
fn check_operand(c: &Checker, value: &Value) -> Result<(), String> {
    let f = c.function;
    let problem = match value {
        Value::Arg(n) if *n as usize >= f.params.len() => {
            let count = f.params.len();
            let plural = if count == 1 { "" } else { "s" };
            format!("it uses argument #{n}, but the function has {count} parameter{plural}")
        }
        Value::Inst(id) => match f.insts.get(id.0 as usize) {
            None => format!("it uses instruction #{}, which does not exist", id.0),
            Some(inst) if !inst.ty.is_void() && c.is_placed(*id) => return Ok(()),
            Some(inst) if inst.ty.is_void() => {
                format!("it uses {}, which has no result", c.inst_text(*id))
            }
            Some(_) => format!(
                "it uses instruction #{}, which is in no block (deleted without salvaging its debug uses?)",
                id.0
            ),
        },
        _ => return Ok(()),
    };
    Err(problem)
}

/// A fragment lies inside its variable and is smaller than it, when the
/// variable's size is known (as LLVM's verifier requires).
fn check_fragment(c: &Checker, record: &DebugRecord) -> Result<(), String> {
    let fragment = c.module.debug.exprs[record.expr.0 as usize].fragment();
    let (Some((offset, size)), Some(var_size)) = (fragment, variable_bits(c, record.variable))
    else {
        return Ok(());
    };
    if offset.checked_add(size).is_none_or(|end| end > var_size) {
        return Err(format!(
            "its fragment (offset {offset}, size {size} bits) is larger than or outside of the {var_size}-bit variable"
        ));
    }
    if offset == 0 && size == var_size {
        return Err(format!(
            "its fragment covers the entire {var_size}-bit variable"
        ));
    }
    Ok(())
}

/// The size in bits of a variable's type, looking through derived types
/// without a size of their own (typedefs, qualifiers), as LLVM does.
fn variable_bits(c: &Checker, variable: MdId) -> Option<u64> {
    let Some(MdNode::LocalVariable(var)) = node(c, variable) else {
        return None;
    };
    let mut ty = var.ty;
    for _ in 0..=c.module.debug.nodes.len() {
        let size = match node(c, ty?)? {
            MdNode::BasicType(t) => t.size,
            MdNode::CompositeType(t) => t.size,
            MdNode::DerivedType(t) if t.size == 0 => {
                ty = t.base_type;
                continue;
            }
            MdNode::DerivedType(t) => t.size,
            _ => return None,
        };
        return (size != 0).then_some(size);
    }
    None
}

/// The expression exists, its `DW_OP_LLVM_arg`s name existing operands
/// (unless every operand is undef/poison: a killed location), and a
/// fragment comes last.
fn check_expression(c: &Checker, expr: ExprId, values: &[Value]) -> Result<(), String> {
    let operands = values.len();
    let Some(expr) = c.module.debug.exprs.get(expr.0 as usize) else {
        return Err(format!("its expression #{} does not exist", expr.0));
    };
    let killed = values.iter().all(Value::is_undef_or_poison);
    if !killed {
        if let Some(n) = expr.ops.iter().find_map(|op| match op {
            ExprOp::Arg(n) if *n as usize >= operands => Some(*n),
            _ => None,
        }) {
            return Err(format!(
                "its expression uses DW_OP_LLVM_arg {n} but there are {operands} location operands"
            ));
        }
    }
    let last = expr.ops.len().saturating_sub(1);
    if expr
        .ops
        .iter()
        .enumerate()
        .any(|(i, op)| matches!(op, ExprOp::Fragment { .. }) && i != last)
    {
        return Err("its expression has DW_OP_LLVM_fragment before the end".to_string());
    }
    Ok(())
}

/// The subprogram a location belongs to once inlining is undone: the one
/// enclosing the scope of the outermost `inlinedAt` location.
fn outermost_subprogram(c: &Checker, loc: LocId) -> Result<MdId, String> {
    let locations = &c.module.debug.locations;
    let mut current = loc;
    for _ in 0..=locations.len() {
        let Some(location) = locations.get(current.0 as usize) else {
            return Err(format!(
                "refers to location #{}, which does not exist",
                current.0
            ));
        };
        match location.inlined_at {
            Some(outer) => current = outer,
            None => return scope_subprogram(c, location.scope),
        }
    }
    Err("has an inlinedAt chain that is a cycle".to_string())
}

/// The subprogram enclosing a local scope (walking lexical blocks up).
fn scope_subprogram(c: &Checker, scope: MdId) -> Result<MdId, String> {
    let mut current = scope;
    for _ in 0..=c.module.debug.nodes.len() {
        match node(c, current) {
            Some(MdNode::Subprogram(_)) => return Ok(current),
            Some(MdNode::LexicalBlock(b)) => current = b.scope,
            Some(MdNode::LexicalBlockFile(b)) => current = b.scope,
            _ => {
                return Err(format!(
                    "has a scope chain that ends at {}, not at a DISubprogram",
                    node_text(c, current)
                ))
            }
        }
    }
    Err("has a scope chain that is a cycle".to_string())
}

fn node<'a>(c: &'a Checker, id: MdId) -> Option<&'a MdNode> {
    c.module.debug.nodes.get(id.0 as usize).map(|e| &e.node)
}

/// A node as a message names it: `DISubprogram "blend"`, `a DIBasicType`.
fn node_text(c: &Checker, id: MdId) -> String {
    match node(c, id) {
        None => format!("metadata #{} (which does not exist)", id.0),
        Some(MdNode::Subprogram(sp)) => format!("DISubprogram \"{}\"", sp.name),
        Some(MdNode::LocalVariable(v)) => format!("DILocalVariable \"{}\"", v.name),
        Some(MdNode::Label(l)) => format!("DILabel \"{}\"", l.name),
        Some(other) => format!("a {}", kind_of(other)),
    }
}

/// A record's variable as a message names it: `variable "x"`.
fn variable_text(c: &Checker, id: MdId) -> String {
    match node(c, id) {
        Some(MdNode::LocalVariable(v)) => format!("variable \"{}\"", v.name),
        Some(MdNode::Label(l)) => format!("label \"{}\"", l.name),
        _ => format!("metadata #{}", id.0),
    }
}

fn kind_name(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Value => "value",
        RecordKind::Declare => "declare",
        RecordKind::Assign => "assign",
        RecordKind::Label => "label",
    }
}

fn kind_of(node: &MdNode) -> &str {
    match node {
        MdNode::CompileUnit(_) => "DICompileUnit",
        MdNode::File(_) => "DIFile",
        MdNode::Subprogram(_) => "DISubprogram",
        MdNode::LexicalBlock(_) => "DILexicalBlock",
        MdNode::LexicalBlockFile(_) => "DILexicalBlockFile",
        MdNode::LocalVariable(_) => "DILocalVariable",
        MdNode::Label(_) => "DILabel",
        MdNode::BasicType(_) => "DIBasicType",
        MdNode::DerivedType(_) => "DIDerivedType",
        MdNode::CompositeType(_) => "DICompositeType",
        MdNode::SubroutineType(_) => "DISubroutineType",
        MdNode::Subrange(_) => "DISubrange",
        MdNode::Enumerator(_) => "DIEnumerator",
        MdNode::GlobalVariable(_) => "DIGlobalVariable",
        MdNode::GlobalVariableExpression(_) => "DIGlobalVariableExpression",
        MdNode::AssignId => "DIAssignID",
        MdNode::Tuple(_) => "tuple",
        MdNode::Other { kind, .. } => kind,
    }
}
