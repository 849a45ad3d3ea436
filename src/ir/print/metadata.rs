//! Metadata: numbering the nodes a module uses and writing them out.
//!
//! In: a [`Module`] (its metadata arenas, named metadata, and the functions
//! and globals that refer to nodes). Out: [`MetadataSlots`], the `!N` number
//! of every node and location reachable from the module, and the text of
//! each: `!N = [distinct ]!DIKind(...)`.
//!
//! Promise: numbers depend only on the shape of the metadata graph seen
//! from the module (globals' `!dbg`, named metadata, then each function's
//! subprogram, records and attachments, in order; a node is numbered before
//! the nodes it refers to), never on arena order. So printing a module,
//! parsing the text and printing again gives the same numbers. Nodes nothing
//! refers to (TBAA, loop metadata the parser skipped) are not printed.
//! DIExpressions and DIArgLists are written inline, as LLVM does.

use std::fmt::Write;

use super::text::{write_quoted, write_typed_constant};
use crate::ir::debug::{MdField, OtherFields};
use crate::ir::{
    DIExpression, DILocation, ExprId, ExprOp, LocId, MdId, MdNode, MdOperand, MdRef, Module,
};

/// A numbered piece of metadata: a node or a location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slotted {
    Node(MdId),
    Location(LocId),
}

/// The `!N` numbers of the metadata a module uses.
pub struct MetadataSlots {
    node_slots: Vec<Option<u32>>,
    location_slots: Vec<Option<u32>>,
    order: Vec<Slotted>,
}

impl MetadataSlots {
    /// Numbers every node and location reachable from the module, in the
    /// order described in the module documentation.
    pub fn number(module: &Module) -> MetadataSlots {
        let mut slots = MetadataSlots {
            node_slots: vec![None; module.debug.nodes.len()],
            location_slots: vec![None; module.debug.locations.len()],
            order: Vec::new(),
        };
        for global in &module.globals {
            for &id in &global.dbg {
                slots.visit(module, MdRef::Node(id));
            }
            for (_, target) in &global.attrs.metadata {
                slots.visit(module, *target);
            }
        }
        for named in &module.named_metadata {
            for &node in &named.nodes {
                slots.visit(module, node);
            }
        }
        for function in &module.functions {
            if let Some(sp) = function.subprogram {
                slots.visit(module, MdRef::Node(sp));
            }
            for (_, target) in &function.attrs.metadata {
                slots.visit(module, *target);
            }
            for block in &function.blocks {
                for inst in block
                    .insts
                    .iter()
                    .filter_map(|&id| function.insts.get(id.0 as usize))
                {
                    for record in &inst.records {
                        slots.visit(module, MdRef::Node(record.variable));
                        if let Some(assign) = &record.assign {
                            slots.visit(module, MdRef::Node(assign.id));
                        }
                        slots.visit(module, MdRef::Location(record.loc));
                    }
                    if let Some(loc) = inst.dbg {
                        slots.visit(module, MdRef::Location(loc));
                    }
                    if let Some(id) = inst.assign_id {
                        slots.visit(module, MdRef::Node(id));
                    }
                    for (_, target) in &inst.metadata {
                        slots.visit(module, *target);
                    }
                }
            }
        }
        slots
    }

    /// Numbers `root` and everything it refers to, depth first, a node
    /// before its operands.
    fn visit(&mut self, module: &Module, root: MdRef) {
        let mut stack = vec![root];
        while let Some(item) = stack.pop() {
            let (slot, refs) = match item {
                MdRef::Expr(_) => continue,
                MdRef::Node(id) => match (
                    self.node_slots.get_mut(id.0 as usize),
                    module.debug.nodes.get(id.0 as usize),
                ) {
                    (Some(slot), Some(entry)) => (slot, node_refs(&entry.node)),
                    _ => continue,
                },
                MdRef::Location(id) => match (
                    self.location_slots.get_mut(id.0 as usize),
                    module.debug.locations.get(id.0 as usize),
                ) {
                    (Some(slot), Some(loc)) => (slot, location_refs(loc)),
                    _ => continue,
                },
            };
            if slot.is_some() {
                continue;
            }
            *slot = Some(self.order.len() as u32);
            self.order.push(match item {
                MdRef::Node(id) => Slotted::Node(id),
                MdRef::Location(id) => Slotted::Location(id),
                MdRef::Expr(_) => unreachable!("expressions are skipped above"),
            });
            stack.extend(refs.into_iter().rev());
        }
    }

    /// Appends a reference: `!N` for a numbered node or location, the
    /// expression itself for a DIExpression.
    pub fn write_ref(&self, out: &mut String, module: &Module, reference: MdRef) {
        let slot = match reference {
            MdRef::Node(id) => self.node_slots.get(id.0 as usize).copied().flatten(),
            MdRef::Location(id) => self.location_slots.get(id.0 as usize).copied().flatten(),
            MdRef::Expr(id) => {
                write_expr_by_id(out, module, id, false);
                return;
            }
        };
        match slot {
            Some(n) => {
                let _ = write!(out, "!{n}");
            }
            // Only a reference to a node missing from the arena gets here:
            // write something the reader will reject rather than a wrong number.
            None => {
                let _ = write!(out, "!<missing {reference:?}>");
            }
        }
    }

    /// Appends every numbered node's definition, one per line, in number order.
    pub fn write_definitions(&self, out: &mut String, module: &Module) {
        for (n, item) in self.order.iter().enumerate() {
            let _ = write!(out, "!{n} = ");
            match *item {
                Slotted::Node(id) => {
                    let entry = &module.debug.nodes[id.0 as usize];
                    if entry.distinct {
                        out.push_str("distinct ");
                    }
                    self.write_node(out, module, &entry.node);
                }
                Slotted::Location(id) => {
                    self.write_location(out, module, &module.debug.locations[id.0 as usize]);
                }
            }
            out.push('\n');
        }
    }

    fn write_location(&self, out: &mut String, module: &Module, loc: &DILocation) {
        if loc.distinct {
            out.push_str("distinct ");
        }
        let mut fields = Fields::open(out, "DILocation");
        fields.int("line", loc.line as i128);
        if loc.column != 0 {
            fields.int("column", loc.column as i128);
        }
        fields.reference(self, module, "scope", MdRef::Node(loc.scope));
        if let Some(at) = loc.inlined_at {
            fields.reference(self, module, "inlinedAt", MdRef::Location(at));
        }
        if loc.implicit_code {
            fields.raw("isImplicitCode", "true");
        }
        if loc.atom_group != 0 {
            fields.int("atomGroup", loc.atom_group as i128);
        }
        if loc.atom_rank != 0 {
            fields.int("atomRank", loc.atom_rank as i128);
        }
        fields.close();
    }

    fn write_node(&self, out: &mut String, module: &Module, node: &MdNode) {
        match node {
            MdNode::Tuple(operands) => {
                out.push_str("!{");
                for (i, operand) in operands.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    match operand {
                        MdOperand::Ref(r) => self.write_ref(out, module, *r),
                        MdOperand::Null => out.push_str("null"),
                        MdOperand::Str(s) => {
                            out.push('!');
                            write_quoted(out, s.as_bytes());
                        }
                        MdOperand::Value(c) => write_typed_constant(out, module, c),
                    }
                }
                out.push('}');
            }
            MdNode::AssignId => out.push_str("!DIAssignID()"),
            MdNode::CompileUnit(cu) => {
                let mut f = Fields::open(out, "DICompileUnit");
                f.raw("language", &cu.language);
                f.opt_node(self, module, "file", cu.file);
                f.opt_str("producer", cu.producer.as_deref());
                f.bool("isOptimized", cu.is_optimized);
                if let Some(kind) = &cu.emission_kind {
                    f.raw("emissionKind", kind);
                }
                f.opt_node(self, module, "enums", cu.enums);
                f.opt_node(self, module, "retainedTypes", cu.retained_types);
                f.opt_node(self, module, "globals", cu.globals);
                f.other(self, module, &cu.other);
                f.close();
            }
            MdNode::File(file) => {
                let mut f = Fields::open(out, "DIFile");
                f.str("filename", &file.filename);
                f.str("directory", &file.directory);
                if let Some((kind, sum)) = &file.checksum {
                    f.raw("checksumkind", kind);
                    f.str("checksum", sum);
                }
                f.opt_str("source", file.source.as_deref());
                f.close();
            }
            MdNode::Subprogram(sp) => {
                let mut f = Fields::open(out, "DISubprogram");
                f.str("name", &sp.name);
                f.opt_str("linkageName", sp.linkage_name.as_deref());
                f.opt_node(self, module, "scope", sp.scope);
                f.opt_node(self, module, "file", sp.file);
                f.nonzero("line", sp.line);
                f.opt_node(self, module, "type", sp.ty);
                f.nonzero("scopeLine", sp.scope_line);
                f.flags("flags", &sp.flags);
                // An absent spFlags reads as a definition: a declaration
                // (a member function's, inside its class) says 0.
                if sp.sp_flags.is_empty() {
                    f.raw("spFlags", "0");
                } else {
                    f.flags("spFlags", &sp.sp_flags);
                }
                f.opt_node(self, module, "unit", sp.unit);
                f.opt_node(self, module, "declaration", sp.declaration);
                f.opt_node(self, module, "retainedNodes", sp.retained_nodes);
                f.other(self, module, &sp.other);
                f.close();
            }
            MdNode::LexicalBlock(block) => {
                let mut f = Fields::open(out, "DILexicalBlock");
                f.reference(self, module, "scope", MdRef::Node(block.scope));
                f.opt_node(self, module, "file", block.file);
                f.nonzero("line", block.line);
                f.nonzero("column", block.column);
                f.close();
            }
            MdNode::LexicalBlockFile(block) => {
                let mut f = Fields::open(out, "DILexicalBlockFile");
                f.reference(self, module, "scope", MdRef::Node(block.scope));
                f.opt_node(self, module, "file", block.file);
                f.int("discriminator", block.discriminator as i128);
                f.close();
            }
            MdNode::LocalVariable(var) => {
                let mut f = Fields::open(out, "DILocalVariable");
                f.str("name", &var.name);
                if let Some(arg) = var.arg {
                    f.int("arg", arg as i128);
                }
                f.reference(self, module, "scope", MdRef::Node(var.scope));
                f.opt_node(self, module, "file", var.file);
                f.nonzero("line", var.line);
                f.opt_node(self, module, "type", var.ty);
                f.flags("flags", &var.flags);
                if let Some(align) = var.align {
                    f.int("align", align as i128);
                }
                f.close();
            }
            MdNode::Label(label) => {
                let mut f = Fields::open(out, "DILabel");
                f.reference(self, module, "scope", MdRef::Node(label.scope));
                f.str("name", &label.name);
                f.nullable_node(self, module, "file", label.file);
                f.int("line", label.line as i128);
                f.close();
            }
            MdNode::BasicType(ty) => {
                let mut f = Fields::open(out, "DIBasicType");
                if let Some(tag) = &ty.tag {
                    f.raw("tag", tag);
                }
                f.str("name", &ty.name);
                f.nonzero64("size", ty.size);
                if let Some(align) = ty.align {
                    f.int("align", align as i128);
                }
                if let Some(encoding) = &ty.encoding {
                    f.raw("encoding", encoding);
                }
                f.flags("flags", &ty.flags);
                f.close();
            }
            MdNode::DerivedType(ty) => {
                let mut f = Fields::open(out, "DIDerivedType");
                f.raw("tag", &ty.tag);
                f.opt_str("name", ty.name.as_deref());
                f.opt_node(self, module, "scope", ty.scope);
                f.opt_node(self, module, "file", ty.file);
                f.nonzero("line", ty.line);
                f.nullable_node(self, module, "baseType", ty.base_type);
                f.nonzero64("size", ty.size);
                if let Some(align) = ty.align {
                    f.int("align", align as i128);
                }
                f.nonzero64("offset", ty.offset);
                f.flags("flags", &ty.flags);
                f.other(self, module, &ty.other);
                f.close();
            }
            MdNode::CompositeType(ty) => {
                let mut f = Fields::open(out, "DICompositeType");
                f.raw("tag", &ty.tag);
                f.opt_str("name", ty.name.as_deref());
                f.opt_node(self, module, "scope", ty.scope);
                f.opt_node(self, module, "file", ty.file);
                f.nonzero("line", ty.line);
                f.opt_node(self, module, "baseType", ty.base_type);
                f.nonzero64("size", ty.size);
                if let Some(align) = ty.align {
                    f.int("align", align as i128);
                }
                f.flags("flags", &ty.flags);
                f.opt_node(self, module, "elements", ty.elements);
                f.opt_str("identifier", ty.identifier.as_deref());
                f.other(self, module, &ty.other);
                f.close();
            }
            MdNode::SubroutineType(ty) => {
                let mut f = Fields::open(out, "DISubroutineType");
                f.flags("flags", &ty.flags);
                if let Some(cc) = &ty.cc {
                    f.raw("cc", cc);
                }
                f.nullable_node(self, module, "types", ty.types);
                f.close();
            }
            MdNode::Subrange(range) => {
                let mut f = Fields::open(out, "DISubrange");
                if let Some(count) = &range.count {
                    f.field(self, module, "count", count);
                }
                f.other(self, module, &range.other);
                f.close();
            }
            MdNode::Enumerator(e) => {
                let mut f = Fields::open(out, "DIEnumerator");
                f.str("name", &e.name);
                f.int("value", e.value);
                if e.is_unsigned {
                    f.raw("isUnsigned", "true");
                }
                f.close();
            }
            MdNode::GlobalVariable(var) => {
                let mut f = Fields::open(out, "DIGlobalVariable");
                f.opt_str("name", Some(var.name.as_str()).filter(|n| !n.is_empty()));
                f.opt_str("linkageName", var.linkage_name.as_deref());
                f.opt_node(self, module, "scope", var.scope);
                f.opt_node(self, module, "file", var.file);
                f.nonzero("line", var.line);
                f.opt_node(self, module, "type", var.ty);
                f.bool("isLocal", var.is_local);
                f.bool("isDefinition", var.is_definition);
                f.other(self, module, &var.other);
                f.close();
            }
            MdNode::GlobalVariableExpression(gve) => {
                let mut f = Fields::open(out, "DIGlobalVariableExpression");
                f.reference(self, module, "var", MdRef::Node(gve.var));
                f.reference(self, module, "expr", MdRef::Expr(gve.expr));
                f.close();
            }
            MdNode::Other { kind, fields } => {
                let mut f = Fields::open(out, kind);
                f.other(self, module, fields);
                f.close();
            }
        }
    }
}

/// Writes `!Kind(name: value, ...)`, one field at a time.
struct Fields<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Fields<'a> {
    fn open(out: &'a mut String, kind: &str) -> Fields<'a> {
        let _ = write!(out, "!{kind}(");
        Fields { out, first: true }
    }

    fn name(&mut self, name: &str) {
        if !self.first {
            self.out.push_str(", ");
        }
        self.first = false;
        self.out.push_str(name);
        self.out.push_str(": ");
    }

    fn raw(&mut self, name: &str, value: &str) {
        self.name(name);
        self.out.push_str(value);
    }

    fn int(&mut self, name: &str, value: i128) {
        self.name(name);
        let _ = write!(self.out, "{value}");
    }

    fn nonzero(&mut self, name: &str, value: u32) {
        if value != 0 {
            self.int(name, value as i128);
        }
    }

    fn nonzero64(&mut self, name: &str, value: u64) {
        if value != 0 {
            self.int(name, value as i128);
        }
    }

    fn bool(&mut self, name: &str, value: bool) {
        self.raw(name, if value { "true" } else { "false" });
    }

    fn str(&mut self, name: &str, value: &str) {
        self.name(name);
        write_quoted(self.out, value.as_bytes());
    }

    fn opt_str(&mut self, name: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.str(name, value);
        }
    }

    fn flags(&mut self, name: &str, flags: &[String]) {
        if !flags.is_empty() {
            self.raw(name, &flags.join(" | "));
        }
    }

    fn reference(&mut self, slots: &MetadataSlots, module: &Module, name: &str, r: MdRef) {
        self.name(name);
        slots.write_ref(self.out, module, r);
    }

    fn opt_node(&mut self, slots: &MetadataSlots, module: &Module, name: &str, id: Option<MdId>) {
        if let Some(id) = id {
            self.reference(slots, module, name, MdRef::Node(id));
        }
    }

    /// A field LLVM requires: `null` when absent.
    fn nullable_node(
        &mut self,
        slots: &MetadataSlots,
        module: &Module,
        name: &str,
        id: Option<MdId>,
    ) {
        match id {
            Some(id) => self.reference(slots, module, name, MdRef::Node(id)),
            None => self.raw(name, "null"),
        }
    }

    fn field(&mut self, slots: &MetadataSlots, module: &Module, name: &str, value: &MdField) {
        match value {
            MdField::Int(v) => self.int(name, *v),
            MdField::Str(s) => self.str(name, s),
            MdField::Ref(Some(r)) | MdField::Inline(r) => self.reference(slots, module, name, *r),
            MdField::Ref(None) => self.raw(name, "null"),
            MdField::Name(n) => self.raw(name, n),
            MdField::Flags(flags) => self.raw(name, &flags.join(" | ")),
            MdField::Bool(b) => self.bool(name, *b),
            MdField::Value(c) => {
                let mut text = String::new();
                super::text::write_typed_constant(&mut text, module, c);
                self.raw(name, &text);
            }
        }
    }

    fn other(&mut self, slots: &MetadataSlots, module: &Module, fields: &OtherFields) {
        for (name, value) in fields {
            self.field(slots, module, name, value);
        }
    }

    fn close(self) {
        self.out.push(')');
    }
}

/// The references a node makes, in the order its fields are printed.
fn node_refs(node: &MdNode) -> Vec<MdRef> {
    let nodes = |ids: &[Option<MdId>]| ids.iter().flatten().map(|&id| MdRef::Node(id)).collect();
    let mut refs: Vec<MdRef> = match node {
        MdNode::Tuple(operands) => operands
            .iter()
            .filter_map(|op| match op {
                MdOperand::Ref(r) => Some(*r),
                _ => None,
            })
            .collect(),
        MdNode::AssignId | MdNode::File(_) | MdNode::Enumerator(_) | MdNode::BasicType(_) => {
            Vec::new()
        }
        MdNode::CompileUnit(cu) => nodes(&[cu.file, cu.enums, cu.retained_types, cu.globals]),
        MdNode::Subprogram(sp) => nodes(&[
            sp.scope,
            sp.file,
            sp.ty,
            sp.unit,
            sp.declaration,
            sp.retained_nodes,
        ]),
        MdNode::LexicalBlock(b) => nodes(&[Some(b.scope), b.file]),
        MdNode::LexicalBlockFile(b) => nodes(&[Some(b.scope), b.file]),
        MdNode::LocalVariable(v) => nodes(&[Some(v.scope), v.file, v.ty]),
        MdNode::Label(l) => nodes(&[Some(l.scope), l.file]),
        MdNode::DerivedType(t) => nodes(&[t.scope, t.file, t.base_type]),
        MdNode::CompositeType(t) => nodes(&[t.scope, t.file, t.base_type, t.elements]),
        MdNode::SubroutineType(t) => nodes(&[t.types]),
        MdNode::Subrange(r) => r.count.iter().filter_map(field_ref).collect(),
        MdNode::GlobalVariable(v) => nodes(&[v.scope, v.file, v.ty]),
        MdNode::GlobalVariableExpression(g) => vec![MdRef::Node(g.var)],
        MdNode::Other { .. } => Vec::new(),
    };
    let other = match node {
        MdNode::CompileUnit(cu) => Some(&cu.other),
        MdNode::Subprogram(sp) => Some(&sp.other),
        MdNode::DerivedType(t) => Some(&t.other),
        MdNode::CompositeType(t) => Some(&t.other),
        MdNode::Subrange(r) => Some(&r.other),
        MdNode::GlobalVariable(v) => Some(&v.other),
        MdNode::Other { fields, .. } => Some(fields),
        _ => None,
    };
    if let Some(other) = other {
        refs.extend(other.iter().filter_map(|(_, field)| field_ref(field)));
    }
    refs
}

fn field_ref(field: &MdField) -> Option<MdRef> {
    match field {
        MdField::Ref(Some(r)) | MdField::Inline(r) => Some(*r),
        _ => None,
    }
}

fn location_refs(loc: &DILocation) -> Vec<MdRef> {
    let mut refs = vec![MdRef::Node(loc.scope)];
    refs.extend(loc.inlined_at.map(MdRef::Location));
    refs
}

/// Appends `!DIExpression(...)` for an expression of the arena. With
/// `strip_arg0`, a leading `DW_OP_LLVM_arg, 0` is left out (the legacy
/// single-location form of a record's expression).
pub fn write_expr_by_id(out: &mut String, module: &Module, id: ExprId, strip_arg0: bool) {
    match module.debug.exprs.get(id.0 as usize) {
        Some(expr) => write_expr(out, expr, strip_arg0),
        None => {
            let _ = write!(out, "!<missing expression {}>", id.0);
        }
    }
}

/// Appends `!DIExpression(...)`; see [`write_expr_by_id`] for `strip_arg0`.
pub fn write_expr(out: &mut String, expr: &DIExpression, strip_arg0: bool) {
    let ops = match expr.ops.split_first() {
        Some((ExprOp::Arg(0), rest)) if strip_arg0 => rest,
        _ => &expr.ops[..],
    };
    out.push_str("!DIExpression(");
    let mut first = true;
    let mut item = |out: &mut String, text: &dyn std::fmt::Display| {
        if !first {
            out.push_str(", ");
        }
        first = false;
        let _ = write!(out, "{text}");
    };
    for op in ops {
        let (name, args): (&str, Vec<u64>) = match op {
            ExprOp::Arg(n) => ("DW_OP_LLVM_arg", vec![*n as u64]),
            ExprOp::Constu(n) => ("DW_OP_constu", vec![*n]),
            ExprOp::Consts(n) => ("DW_OP_consts", vec![*n as u64]),
            ExprOp::PlusUconst(n) => ("DW_OP_plus_uconst", vec![*n]),
            ExprOp::Lit(n) => {
                item(out, &format_args!("DW_OP_lit{n}"));
                continue;
            }
            ExprOp::Compare(comparison) => (comparison.name(), vec![]),
            ExprOp::Plus => ("DW_OP_plus", vec![]),
            ExprOp::Minus => ("DW_OP_minus", vec![]),
            ExprOp::Mul => ("DW_OP_mul", vec![]),
            ExprOp::Div => ("DW_OP_div", vec![]),
            ExprOp::Mod => ("DW_OP_mod", vec![]),
            ExprOp::And => ("DW_OP_and", vec![]),
            ExprOp::Or => ("DW_OP_or", vec![]),
            ExprOp::Xor => ("DW_OP_xor", vec![]),
            ExprOp::Shl => ("DW_OP_shl", vec![]),
            ExprOp::Shr => ("DW_OP_shr", vec![]),
            ExprOp::Shra => ("DW_OP_shra", vec![]),
            ExprOp::Neg => ("DW_OP_neg", vec![]),
            ExprOp::Not => ("DW_OP_not", vec![]),
            ExprOp::Deref => ("DW_OP_deref", vec![]),
            ExprOp::DerefSize(n) => ("DW_OP_deref_size", vec![*n as u64]),
            ExprOp::StackValue => ("DW_OP_stack_value", vec![]),
            ExprOp::Convert { bits, signed } => {
                item(out, &"DW_OP_LLVM_convert");
                item(out, bits);
                item(
                    out,
                    &if *signed {
                        "DW_ATE_signed"
                    } else {
                        "DW_ATE_unsigned"
                    },
                );
                continue;
            }
            ExprOp::Fragment { offset, size } => ("DW_OP_LLVM_fragment", vec![*offset, *size]),
            ExprOp::EntryValue(n) => ("DW_OP_LLVM_entry_value", vec![*n]),
            ExprOp::Other { name, args } => (name.as_str(), args.clone()),
        };
        item(out, &name);
        for arg in args {
            item(out, &arg);
        }
    }
    out.push(')');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_print_like_llvm_and_shorten_the_single_location_form() {
        let expr = DIExpression {
            ops: vec![
                ExprOp::Arg(0),
                ExprOp::Consts(-1),
                ExprOp::Convert {
                    bits: 32,
                    signed: true,
                },
                ExprOp::Fragment {
                    offset: 0,
                    size: 32,
                },
            ],
        };
        let mut out = String::new();
        write_expr(&mut out, &expr, true);
        out.push('\n');
        write_expr(&mut out, &expr, false);
        assert_eq!(
            out,
            "!DIExpression(DW_OP_consts, 18446744073709551615, DW_OP_LLVM_convert, 32, DW_ATE_signed, DW_OP_LLVM_fragment, 0, 32)\n\
             !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_consts, 18446744073709551615, DW_OP_LLVM_convert, 32, DW_ATE_signed, DW_OP_LLVM_fragment, 0, 32)"
        );
    }
}
