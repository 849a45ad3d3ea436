//! Function bodies: local value names, instructions and debug records.
//!
//! In: one [`Function`] of a [`Module`], the module's [`MetadataSlots`] and
//! the chosen [`DebugSyntax`]. Out: the text of the function, header to
//! closing brace. Promise: unnamed arguments, blocks and instruction results
//! are numbered `%0, %1, ...` in the order LLVM requires (arguments, then
//! each block label and its results in layout order; the entry block's
//! label is implicit); named ones keep their names (made unique with a
//! `.N` suffix if a pass duplicated one). Each debug record is written just
//! before the instruction it rides on, as a `#dbg_*` record or as a call of
//! the matching `llvm.dbg.*` intrinsic.

use std::fmt::Write;

use super::metadata::{write_expr_by_id, MetadataSlots};
use super::names::LocalNames;
use super::text::{write_constant, write_gep_flags, write_name, write_type};
use super::DebugSyntax;
use crate::ir::{
    ArithFlags, Atomic, BlockId, CallArg, DebugRecord, ExprOp, FastMath, Function, FunctionType,
    Inst, InstKind, LandingPadClause, MdRef, Module, ParamAttrs, RecordKind, TailKind, Type, Value,
};

/// Appends the label of `block` of `function` as its body prints it (`%bb`,
/// `%7`), for `blockaddress` constants.
pub(super) fn write_block_ref(out: &mut String, function: &Function, block: BlockId) {
    match LocalNames::assign(function).blocks.get(block.0 as usize) {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "%<missing block {}>", block.0);
        }
    }
}

/// Appends `define ... { ... }` or `declare ...` for one function.
pub fn write_function(
    out: &mut String,
    module: &Module,
    slots: &MetadataSlots,
    function: &Function,
    syntax: DebugSyntax,
) {
    let names = LocalNames::assign(function);
    let printer = BodyPrinter {
        module,
        slots,
        function,
        names: &names,
        syntax,
    };
    printer.write_header(out);
    if function.is_declaration() {
        out.push('\n');
        return;
    }
    out.push_str(" {\n");
    for (index, block) in function.blocks.iter().enumerate() {
        if index > 0 {
            out.push('\n');
            out.push_str(&names.blocks[index][1..]);
            out.push_str(":\n");
        } else if block.name.is_some() {
            out.push_str(&names.blocks[index][1..]);
            out.push_str(":\n");
        }
        for &id in &block.insts {
            match function.insts.get(id.0 as usize) {
                Some(inst) => {
                    for record in &inst.records {
                        printer.write_record(out, record);
                    }
                    printer.write_inst(out, id.0 as usize, inst);
                }
                None => {
                    let _ = writeln!(out, "  <missing instruction {}>", id.0);
                }
            }
        }
    }
    out.push_str("}\n");
}

struct BodyPrinter<'a> {
    module: &'a Module,
    slots: &'a MetadataSlots,
    function: &'a Function,
    names: &'a LocalNames,
    syntax: DebugSyntax,
}

impl BodyPrinter<'_> {
    fn write_header(&self, out: &mut String) {
        let f = self.function;
        out.push_str(if f.is_declaration() {
            "declare "
        } else {
            "define "
        });
        if f.is_declaration() {
            if let Some(sp) = f.subprogram {
                out.push_str("!dbg ");
                self.slots.write_ref(out, self.module, MdRef::Node(sp));
                out.push(' ');
            }
            for (kind, target) in &f.attrs.metadata {
                out.push('!');
                out.push_str(kind);
                out.push(' ');
                self.slots.write_ref(out, self.module, *target);
                out.push(' ');
            }
        }
        write_linkage(out, f.linkage, f.dso_local);
        super::symbol::write_visibility(out, &f.attrs);
        write_attrs(out, self.module, &f.ret_attrs);
        write_type(out, self.module, &f.ret_ty);
        out.push(' ');
        write_name(out, '@', &f.name);
        out.push('(');
        for (i, param) in f.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_type(out, self.module, &param.ty);
            let mut attrs = String::new();
            write_attrs(&mut attrs, self.module, &param.attrs);
            if !attrs.is_empty() {
                out.push(' ');
                out.push_str(attrs.trim_end());
            }
            if !f.is_declaration() {
                out.push(' ');
                out.push_str(&self.names.args[i]);
            }
        }
        if f.varargs {
            out.push_str(if f.params.is_empty() { "..." } else { ", ..." });
        }
        out.push(')');
        write_unnamed_addr(out, f.unnamed_addr);
        super::symbol::write_function_attrs(out, &f.attrs);
        if let Some(section) = &f.section {
            out.push_str(" section ");
            super::text::write_quoted(out, section.as_bytes());
        }
        super::symbol::write_function_placement(out, &f.attrs);
        if let Some(align) = f.align {
            let _ = write!(out, " align {align}");
        }
        super::symbol::write_function_extras(out, &f.attrs);
        if !f.is_declaration() {
            if let Some(sp) = f.subprogram {
                out.push_str(" !dbg ");
                self.slots.write_ref(out, self.module, MdRef::Node(sp));
            }
            for (kind, target) in &f.attrs.metadata {
                out.push(' ');
                out.push('!');
                out.push_str(kind);
                out.push(' ');
                self.slots.write_ref(out, self.module, *target);
            }
        }
    }

    /// Appends a value without its type.
    fn value(&self, out: &mut String, value: &Value) {
        match value {
            Value::Arg(n) => match self.names.args.get(*n as usize) {
                Some(name) => out.push_str(name),
                None => {
                    let _ = write!(out, "%<missing argument {n}>");
                }
            },
            Value::Inst(id) => match self.names.insts.get(id.0 as usize) {
                Some(Some(name)) => out.push_str(name),
                _ => {
                    let _ = write!(out, "%<unnamed instruction {}>", id.0);
                }
            },
            Value::Const(c) => write_constant(out, self.module, c),
        }
    }

    /// Appends `ty value`.
    fn typed_value(&self, out: &mut String, value: &Value) {
        let ty = match value {
            Value::Arg(n) if *n as usize >= self.function.params.len() => Type::Void,
            Value::Inst(id) if id.0 as usize >= self.function.insts.len() => Type::Void,
            _ => self.function.value_type(value),
        };
        write_type(out, self.module, &ty);
        out.push(' ');
        self.value(out, value);
    }

    fn block(&self, out: &mut String, block: BlockId) {
        match self.names.blocks.get(block.0 as usize) {
            Some(name) => out.push_str(name),
            None => {
                let _ = write!(out, "%<missing block {}>", block.0);
            }
        }
    }

    fn write_inst(&self, out: &mut String, index: usize, inst: &Inst) {
        out.push_str("  ");
        if let Some(name) = &self.names.insts[index] {
            out.push_str(name);
            out.push_str(" = ");
        }
        self.write_operation(out, inst);
        if let Some(loc) = inst.dbg {
            out.push_str(", !dbg ");
            self.slots.write_ref(out, self.module, MdRef::Location(loc));
        }
        if let Some(id) = inst.assign_id {
            out.push_str(", !DIAssignID ");
            self.slots.write_ref(out, self.module, MdRef::Node(id));
        }
        for (kind, target) in &inst.metadata {
            out.push_str(", ");
            out.push('!');
            out.push_str(kind);
            out.push(' ');
            self.slots.write_ref(out, self.module, *target);
        }
        out.push('\n');
    }

    fn write_operation(&self, out: &mut String, inst: &Inst) {
        let m = self.module;
        match &inst.kind {
            InstKind::Binary {
                op,
                flags,
                lhs,
                rhs,
            } => {
                out.push_str(op.name());
                write_arith_flags(out, *flags);
                out.push(' ');
                self.typed_value(out, lhs);
                out.push_str(", ");
                self.value(out, rhs);
            }
            InstKind::ICmp { pred, lhs, rhs } => {
                let _ = write!(out, "icmp {} ", pred.name());
                self.typed_value(out, lhs);
                out.push_str(", ");
                self.value(out, rhs);
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => {
                out.push_str("select ");
                self.typed_value(out, cond);
                out.push_str(", ");
                self.typed_value(out, if_true);
                out.push_str(", ");
                self.typed_value(out, if_false);
            }
            InstKind::Phi { incoming } => {
                out.push_str("phi ");
                write_type(out, m, &inst.ty);
                for (i, (value, block)) in incoming.iter().enumerate() {
                    out.push_str(if i > 0 { ", [ " } else { " [ " });
                    self.value(out, value);
                    out.push_str(", ");
                    self.block(out, *block);
                    out.push_str(" ]");
                }
            }
            InstKind::Cast { op, flags, value } => {
                out.push_str(op.name());
                write_arith_flags(out, *flags);
                out.push(' ');
                self.typed_value(out, value);
                out.push_str(" to ");
                write_type(out, m, &inst.ty);
            }
            InstKind::Load {
                ptr,
                align,
                volatile,
                atomic,
            } => {
                out.push_str("load ");
                if atomic.is_some() {
                    out.push_str("atomic ");
                }
                if *volatile {
                    out.push_str("volatile ");
                }
                write_type(out, m, &inst.ty);
                out.push_str(", ");
                self.typed_value(out, ptr);
                if let Some(atomic) = atomic {
                    write_atomic(out, atomic);
                }
                write_align(out, *align);
            }
            InstKind::Store {
                value,
                ptr,
                align,
                volatile,
                atomic,
            } => {
                out.push_str("store ");
                if atomic.is_some() {
                    out.push_str("atomic ");
                }
                if *volatile {
                    out.push_str("volatile ");
                }
                self.typed_value(out, value);
                out.push_str(", ");
                self.typed_value(out, ptr);
                if let Some(atomic) = atomic {
                    write_atomic(out, atomic);
                }
                write_align(out, *align);
            }
            InstKind::FBinary { op, fmf, lhs, rhs } => {
                out.push_str(op.name());
                write_fast_math(out, *fmf);
                out.push(' ');
                self.typed_value(out, lhs);
                out.push_str(", ");
                self.value(out, rhs);
            }
            InstKind::FNeg { fmf, value } => {
                out.push_str("fneg");
                write_fast_math(out, *fmf);
                out.push(' ');
                self.typed_value(out, value);
            }
            InstKind::FCmp {
                pred,
                fmf,
                lhs,
                rhs,
            } => {
                out.push_str("fcmp");
                write_fast_math(out, *fmf);
                let _ = write!(out, " {} ", pred.name());
                self.typed_value(out, lhs);
                out.push_str(", ");
                self.value(out, rhs);
            }
            InstKind::ExtractElement { vector, index } => {
                out.push_str("extractelement ");
                self.typed_value(out, vector);
                out.push_str(", ");
                self.typed_value(out, index);
            }
            InstKind::InsertElement {
                vector,
                elem,
                index,
            } => {
                out.push_str("insertelement ");
                self.typed_value(out, vector);
                out.push_str(", ");
                self.typed_value(out, elem);
                out.push_str(", ");
                self.typed_value(out, index);
            }
            InstKind::ShuffleVector { lhs, rhs, mask } => {
                out.push_str("shufflevector ");
                self.typed_value(out, lhs);
                out.push_str(", ");
                self.typed_value(out, rhs);
                let _ = write!(out, ", <{} x i32> <", mask.len());
                for (i, lane) in mask.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    match lane {
                        Some(lane) => {
                            let _ = write!(out, "i32 {lane}");
                        }
                        None => out.push_str("i32 poison"),
                    }
                }
                out.push('>');
            }
            InstKind::ExtractValue { aggregate, indices } => {
                out.push_str("extractvalue ");
                self.typed_value(out, aggregate);
                for index in indices {
                    let _ = write!(out, ", {index}");
                }
            }
            InstKind::InsertValue {
                aggregate,
                elem,
                indices,
            } => {
                out.push_str("insertvalue ");
                self.typed_value(out, aggregate);
                out.push_str(", ");
                self.typed_value(out, elem);
                for index in indices {
                    let _ = write!(out, ", {index}");
                }
            }
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                weak,
                volatile,
                syncscope,
                success,
                failure,
                align,
            } => {
                out.push_str("cmpxchg ");
                if *weak {
                    out.push_str("weak ");
                }
                if *volatile {
                    out.push_str("volatile ");
                }
                self.typed_value(out, ptr);
                out.push_str(", ");
                self.typed_value(out, cmp);
                out.push_str(", ");
                self.typed_value(out, new);
                write_syncscope(out, syncscope.as_deref());
                let _ = write!(out, " {} {}", success.name(), failure.name());
                write_align(out, *align);
            }
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                volatile,
                atomic,
                align,
            } => {
                out.push_str("atomicrmw ");
                if *volatile {
                    out.push_str("volatile ");
                }
                out.push_str(op.name());
                out.push(' ');
                self.typed_value(out, ptr);
                out.push_str(", ");
                self.typed_value(out, value);
                write_atomic(out, atomic);
                write_align(out, *align);
            }
            InstKind::Fence { atomic } => {
                out.push_str("fence");
                write_atomic(out, atomic);
            }
            InstKind::VaArg { list } => {
                out.push_str("va_arg ");
                self.typed_value(out, list);
                out.push_str(", ");
                write_type(out, m, &inst.ty);
            }
            InstKind::IndirectBr { address, dests } => {
                out.push_str("indirectbr ");
                self.typed_value(out, address);
                out.push_str(", [");
                for (i, dest) in dests.iter().enumerate() {
                    out.push_str(if i > 0 { ", label " } else { "label " });
                    self.block(out, *dest);
                }
                out.push(']');
            }
            InstKind::Gep {
                flags,
                source,
                base,
                indices,
            } => {
                out.push_str("getelementptr ");
                write_gep_flags(out, *flags);
                write_type(out, m, source);
                out.push_str(", ");
                self.typed_value(out, base);
                for index in indices {
                    out.push_str(", ");
                    self.typed_value(out, index);
                }
            }
            InstKind::Alloca {
                allocated,
                count,
                align,
            } => {
                out.push_str("alloca ");
                write_type(out, m, allocated);
                if let Some(count) = count {
                    out.push_str(", ");
                    self.typed_value(out, count);
                }
                write_align(out, *align);
            }
            InstKind::Call {
                tail,
                fn_ty,
                callee,
                args,
                ret_attrs,
            } => {
                out.push_str(match tail {
                    TailKind::None => "",
                    TailKind::Tail => "tail ",
                    TailKind::MustTail => "musttail ",
                    TailKind::NoTail => "notail ",
                });
                out.push_str("call ");
                self.call_site(out, inst, fn_ty, callee, args, ret_attrs);
            }
            InstKind::Invoke {
                fn_ty,
                callee,
                args,
                ret_attrs,
                normal,
                unwind,
            } => {
                out.push_str("invoke ");
                self.call_site(out, inst, fn_ty, callee, args, ret_attrs);
                out.push_str("\n          to label ");
                self.block(out, *normal);
                out.push_str(" unwind label ");
                self.block(out, *unwind);
            }
            InstKind::LandingPad { cleanup, clauses } => {
                out.push_str("landingpad ");
                write_type(out, m, &inst.ty);
                if *cleanup {
                    out.push_str("\n          cleanup");
                }
                for clause in clauses {
                    let (word, constant) = match clause {
                        LandingPadClause::Catch(c) => ("catch", c),
                        LandingPadClause::Filter(c) => ("filter", c),
                    };
                    let _ = write!(out, "\n          {word} ");
                    super::text::write_typed_constant(out, m, constant);
                }
            }
            InstKind::Resume { value } => {
                out.push_str("resume ");
                self.typed_value(out, value);
            }
            InstKind::Freeze { value } => {
                out.push_str("freeze ");
                self.typed_value(out, value);
            }
            InstKind::Br { dest } => {
                out.push_str("br label ");
                self.block(out, *dest);
            }
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                out.push_str("br ");
                self.typed_value(out, cond);
                out.push_str(", label ");
                self.block(out, *if_true);
                out.push_str(", label ");
                self.block(out, *if_false);
            }
            InstKind::Switch {
                value,
                default,
                cases,
            } => {
                out.push_str("switch ");
                self.typed_value(out, value);
                out.push_str(", label ");
                self.block(out, *default);
                out.push_str(" [\n");
                for (case, dest) in cases {
                    out.push_str("    ");
                    super::text::write_typed_constant(out, m, case);
                    out.push_str(", label ");
                    self.block(out, *dest);
                    out.push('\n');
                }
                out.push_str("  ]");
            }
            InstKind::Ret { value } => match value {
                Some(value) => {
                    out.push_str("ret ");
                    self.typed_value(out, value);
                }
                None => out.push_str("ret void"),
            },
            InstKind::Unreachable => out.push_str("unreachable"),
        }
    }

    /// Appends what `call` and `invoke` share: return attributes and type,
    /// callee, arguments and attribute groups.
    fn call_site(
        &self,
        out: &mut String,
        inst: &Inst,
        fn_ty: &FunctionType,
        callee: &Value,
        args: &[CallArg],
        ret_attrs: &ParamAttrs,
    ) {
        let m = self.module;
        write_attrs(out, m, ret_attrs);
        if fn_ty.varargs {
            write_type(out, m, &Type::Function(Box::new(fn_ty.clone())));
        } else {
            write_type(out, m, &fn_ty.ret);
        }
        out.push(' ');
        self.value(out, callee);
        out.push('(');
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let ty = match &arg.value {
                Value::Arg(n) if *n as usize >= self.function.params.len() => Type::Void,
                Value::Inst(id) if id.0 as usize >= self.function.insts.len() => Type::Void,
                value => self.function.value_type(value),
            };
            write_type(out, m, &ty);
            out.push(' ');
            write_attrs(out, m, &arg.attrs);
            self.value(out, &arg.value);
        }
        out.push(')');
        for group in &inst.attr_groups {
            let _ = write!(out, " #{group}");
        }
    }

    /// Appends one debug record line, in the chosen syntax.
    fn write_record(&self, out: &mut String, record: &DebugRecord) {
        let metadata = match self.syntax {
            DebugSyntax::Records => "",
            DebugSyntax::Intrinsics => "metadata ",
        };
        let mut operands: Vec<String> = Vec::new();
        if record.kind == RecordKind::Label {
            let mut label = String::new();
            label.push_str(metadata);
            self.slots
                .write_ref(&mut label, self.module, MdRef::Node(record.variable));
            operands.push(label);
        } else {
            let mut location = String::from(metadata);
            let strip = self.write_locations(&mut location, &record.locations, record.expr);
            operands.push(location);
            let mut variable = String::from(metadata);
            self.slots
                .write_ref(&mut variable, self.module, MdRef::Node(record.variable));
            operands.push(variable);
            let mut expr = String::from(metadata);
            write_expr_by_id(&mut expr, self.module, record.expr, strip);
            operands.push(expr);
            if let Some(assign) = &record.assign {
                let mut id = String::from(metadata);
                self.slots
                    .write_ref(&mut id, self.module, MdRef::Node(assign.id));
                operands.push(id);
                let mut address = String::from(metadata);
                let strip = self.write_locations(
                    &mut address,
                    std::slice::from_ref(&assign.address),
                    assign.address_expr,
                );
                operands.push(address);
                let mut address_expr = String::from(metadata);
                write_expr_by_id(&mut address_expr, self.module, assign.address_expr, strip);
                operands.push(address_expr);
            }
        }
        let mut loc = String::new();
        self.slots
            .write_ref(&mut loc, self.module, MdRef::Location(record.loc));
        match self.syntax {
            DebugSyntax::Records => {
                operands.push(loc);
                let _ = writeln!(
                    out,
                    "    #dbg_{}({})",
                    record_kind_name(record.kind),
                    operands.join(", ")
                );
            }
            DebugSyntax::Intrinsics => {
                let _ = writeln!(
                    out,
                    "  call void @llvm.dbg.{}({}), !dbg {loc}",
                    record_kind_name(record.kind),
                    operands.join(", ")
                );
            }
        }
    }

    /// Appends a record's location operands: `ty v` when there is one and the
    /// expression names it only by a leading `DW_OP_LLVM_arg 0` (the legacy
    /// form, returned `true`: the expression is then written without that
    /// operation), otherwise `!DIArgList(ty v, ...)` (returned `false`), or
    /// the bare `ty undef` of a killed list.
    fn write_locations(
        &self,
        out: &mut String,
        locations: &[Value],
        expr: crate::ir::ExprId,
    ) -> bool {
        let ops = self
            .module
            .debug
            .exprs
            .get(expr.0 as usize)
            .map(|e| &e.ops[..]);
        let legacy = locations.len() == 1
            && ops.is_some_and(|ops| {
                matches!(ops.first(), Some(ExprOp::Arg(0)))
                    && ops[1..].iter().all(|op| !matches!(op, ExprOp::Arg(_)))
            });
        if legacy {
            self.typed_value(out, &locations[0]);
            return true;
        }
        // A killed DIArgList (its one operand undef or poison, its expression
        // still naming several): LLVM writes the bare operand, and so do we.
        let killed = locations.len() == 1
            && locations[0].is_undef_or_poison()
            && ops.is_some_and(|ops| ops.iter().any(|op| matches!(op, ExprOp::Arg(_))));
        if killed {
            self.typed_value(out, &locations[0]);
            return false;
        }
        out.push_str("!DIArgList(");
        for (i, location) in locations.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.typed_value(out, location);
        }
        out.push(')');
        false
    }
}

/// The suffix of `#dbg_*` and `llvm.dbg.*` for a record kind.
pub fn record_kind_name(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Value => "value",
        RecordKind::Declare => "declare",
        RecordKind::Assign => "assign",
        RecordKind::Label => "label",
    }
}

/// Appends the linkage keyword and `dso_local`, each followed by a space.
pub fn write_linkage(out: &mut String, linkage: crate::ir::Linkage, dso_local: bool) {
    if !linkage.keyword().is_empty() {
        out.push_str(linkage.keyword());
        out.push(' ');
    }
    // Local linkage implies dso_local; LLVM does not write it there.
    if dso_local && !linkage.is_local() {
        out.push_str("dso_local ");
    }
}

/// Appends ` unnamed_addr` or ` local_unnamed_addr` (with a leading space).
pub fn write_unnamed_addr(out: &mut String, unnamed_addr: crate::ir::UnnamedAddr) {
    match unnamed_addr {
        crate::ir::UnnamedAddr::None => {}
        crate::ir::UnnamedAddr::Local => out.push_str(" local_unnamed_addr"),
        crate::ir::UnnamedAddr::Global => out.push_str(" unnamed_addr"),
    }
}

/// Appends parameter attributes, each followed by a space: the ones kept
/// as written first (calling conventions and fast-math flags of a call are
/// among them and must precede return attributes), then the flags and the
/// typed ones.
fn write_attrs(out: &mut String, module: &Module, attrs: &ParamAttrs) {
    for attr in &attrs.other {
        out.push_str(attr);
        out.push(' ');
    }
    for (on, name) in [
        (attrs.noundef, "noundef"),
        (attrs.nonnull, "nonnull"),
        (attrs.signext, "signext"),
        (attrs.zeroext, "zeroext"),
        (attrs.immarg, "immarg"),
    ] {
        if on {
            out.push_str(name);
            out.push(' ');
        }
    }
    for (ty, name) in [
        (&attrs.byval, "byval"),
        (&attrs.sret, "sret"),
        (&attrs.elementtype, "elementtype"),
    ] {
        if let Some(ty) = ty {
            out.push_str(name);
            out.push('(');
            write_type(out, module, ty);
            out.push_str(") ");
        }
    }
    if let Some(align) = attrs.align {
        let _ = write!(out, "align {align} ");
    }
}

/// Appends arithmetic and cast flags, each preceded by a space.
fn write_arith_flags(out: &mut String, flags: ArithFlags) {
    for (on, name) in [
        (flags.nneg, "nneg"),
        (flags.nuw, "nuw"),
        (flags.nsw, "nsw"),
        (flags.exact, "exact"),
        (flags.disjoint, "disjoint"),
    ] {
        if on {
            out.push(' ');
            out.push_str(name);
        }
    }
}

/// Appends ` [syncscope("s")] ordering` of an atomic access or fence.
fn write_atomic(out: &mut String, atomic: &Atomic) {
    write_syncscope(out, atomic.syncscope.as_deref());
    out.push(' ');
    out.push_str(atomic.ordering.name());
}

/// Appends ` syncscope("s")` when a scope is named.
fn write_syncscope(out: &mut String, scope: Option<&str>) {
    if let Some(scope) = scope {
        out.push_str(" syncscope(");
        super::text::write_quoted(out, scope.as_bytes());
        out.push(')');
    }
}

/// Appends each fast-math flag with a leading space.
fn write_fast_math(out: &mut String, fmf: FastMath) {
    for word in fmf.words() {
        out.push(' ');
        out.push_str(word);
    }
}

fn write_align(out: &mut String, align: Option<u32>) {
    if let Some(align) = align {
        let _ = write!(out, ", align {align}");
    }
}
