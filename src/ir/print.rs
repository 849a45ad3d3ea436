//! The .ll writer: prints a module as LLVM IR text, with debug records or
//! with llvm.dbg.* intrinsic calls.
//!
//! In: a [`Module`] and a [`DebugSyntax`]. Out: LLVM IR text that LLVM 19
//! (`opt-19 -passes=verify`) and our parser accept.
//!
//! Promises:
//! - Deterministic: the text depends only on the module, and parse → print
//!   → parse → print gives the same text (metadata is renumbered from the
//!   module's shape, see `print/metadata.rs`; local values are numbered in order,
//!   see `print/function.rs`).
//! - Debug records ride where the model keeps them (before their
//!   instruction). In [`DebugSyntax::Intrinsics`] each becomes a call of
//!   `llvm.dbg.value/declare/assign/label`, and the declarations of the
//!   intrinsics used are added; in [`DebugSyntax::Records`] no such
//!   declaration is written.
//! - A record expression, kept with explicit `DW_OP_LLVM_arg`, is written in
//!   the legacy single-location form when it has one location named only by
//!   a leading `DW_OP_LLVM_arg 0`, and with a `!DIArgList` otherwise.
//! - Nothing the parser keeps is dropped: attribute groups (function and
//!   call site), comdats, visibility, thread-local modes, sections,
//!   partitions, alignment, gc, prefix/prologue/personality, every parameter
//!   attribute and every instruction metadata attachment are written back
//!   (`tests/ir_print_differential.rs` checks the text against
//!   llvm-as-19 | llvm-dis-19 of the input).

mod function;
mod metadata;
mod names;
mod symbol;
mod text;

pub(crate) use names::LocalNames;
use std::fmt::Write;

use crate::ir::{FuncId, Module, RecordKind};
use function::{record_kind_name, write_function, write_linkage, write_unnamed_addr};
use metadata::MetadataSlots;
use text::{write_constant, write_name, write_quoted, write_struct_body, write_type};

/// How debug records are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DebugSyntax {
    /// `#dbg_value(...)` records (LLVM 19's default).
    #[default]
    Records,
    /// `call void @llvm.dbg.value(...)` intrinsic calls.
    Intrinsics,
}

/// The spelling of a type (`i32`, `[4 x ptr]`), for messages.
pub(crate) fn type_text(module: &Module, ty: &crate::ir::Type) -> String {
    let mut out = String::new();
    write_type(&mut out, module, ty);
    out
}

/// Prints a whole module as LLVM IR text in the given debug syntax.
pub fn print_module(module: &Module, syntax: DebugSyntax) -> String {
    let slots = MetadataSlots::number(module);
    let mut out = String::new();
    write_header(&mut out, module);
    for line in &module.module_asm {
        out.push_str("module asm ");
        write_quoted(&mut out, line.text.as_bytes());
        out.push('\n');
    }
    symbol::write_comdats(&mut out, module);
    write_structs(&mut out, module);
    write_globals(&mut out, module, &slots);
    for function in &module.functions {
        // The model keeps debug intrinsics as records; their declarations
        // are written below only when the syntax needs them.
        if function.name.starts_with("llvm.dbg.") {
            continue;
        }
        out.push('\n');
        write_function(&mut out, module, &slots, function, syntax);
    }
    if syntax == DebugSyntax::Intrinsics {
        write_intrinsic_declarations(&mut out, module);
    }
    symbol::write_attribute_groups(&mut out, module);
    if !module.named_metadata.is_empty() {
        out.push('\n');
    }
    for named in &module.named_metadata {
        out.push('!');
        out.push_str(&named.name);
        out.push_str(" = !{");
        for (i, &node) in named.nodes.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            slots.write_ref(&mut out, module, node);
        }
        out.push_str("}\n");
    }
    let mut definitions = String::new();
    slots.write_definitions(&mut definitions, module);
    if !definitions.is_empty() {
        out.push('\n');
        out.push_str(&definitions);
    }
    out
}

/// Prints one function (`define ... { ... }` or `declare ...`) as it appears
/// in [`print_module`]'s text, metadata numbers included: for looking at
/// one function of a large module, e.g. after a pass.
pub fn print_function(module: &Module, function: FuncId, syntax: DebugSyntax) -> String {
    let slots = MetadataSlots::number(module);
    let mut out = String::new();
    if let Some(function) = module.functions.get(function.0 as usize) {
        write_function(&mut out, module, &slots, function, syntax);
    }
    out
}

fn write_header(out: &mut String, module: &Module) {
    if let Some(name) = &module.source_filename {
        out.push_str("source_filename = ");
        write_quoted(out, name.as_bytes());
        out.push('\n');
    }
    if let Some(layout) = &module.datalayout {
        out.push_str("target datalayout = ");
        write_quoted(out, layout.as_bytes());
        out.push('\n');
    }
    if let Some(triple) = &module.triple {
        out.push_str("target triple = ");
        write_quoted(out, triple.as_bytes());
        out.push('\n');
    }
}

fn write_structs(out: &mut String, module: &Module) {
    if !module.structs.is_empty() {
        out.push('\n');
    }
    for def in &module.structs {
        write_name(out, '%', &def.name);
        out.push_str(" = type ");
        match &def.fields {
            Some(fields) => write_struct_body(out, module, fields, def.packed),
            None => out.push_str("opaque"),
        }
        out.push('\n');
    }
}

fn write_globals(out: &mut String, module: &Module, slots: &MetadataSlots) {
    if !module.globals.is_empty() {
        out.push('\n');
    }
    for global in &module.globals {
        write_name(out, '@', &global.name);
        out.push_str(" = ");
        if global.initializer.is_none()
            && !global.is_alias()
            && global.linkage == crate::ir::Linkage::External
        {
            out.push_str("external ");
        }
        write_linkage(out, global.linkage, global.dso_local);
        symbol::write_visibility(out, &global.attrs);
        symbol::write_thread_local(out, &global.attrs);
        let mut unnamed = String::new();
        write_unnamed_addr(&mut unnamed, global.unnamed_addr);
        if !unnamed.is_empty() {
            out.push_str(&unnamed[1..]);
            out.push(' ');
        }
        if let Some(aliasee) = &global.aliasee {
            out.push_str("alias ");
            write_type(out, module, &global.ty);
            out.push_str(", ");
            // A constant expression goes without its type, as LLVM prints it.
            if !matches!(aliasee, crate::ir::Constant::Expr(_)) {
                write_type(out, module, &aliasee.ty());
                out.push(' ');
            }
            write_constant(out, module, aliasee);
            symbol::write_global_placement(out, &global.attrs);
            out.push('\n');
            continue;
        }
        symbol::write_global_storage(out, &global.attrs);
        out.push_str(if global.constant {
            "constant "
        } else {
            "global "
        });
        write_type(out, module, &global.ty);
        if let Some(init) = &global.initializer {
            out.push(' ');
            write_constant(out, module, init);
        }
        if let Some(section) = &global.section {
            out.push_str(", section ");
            write_quoted(out, section.as_bytes());
        }
        symbol::write_global_placement(out, &global.attrs);
        if let Some(align) = global.align {
            let _ = write!(out, ", align {align}");
        }
        for &dbg in &global.dbg {
            out.push_str(", !dbg ");
            slots.write_ref(out, module, crate::ir::MdRef::Node(dbg));
        }
        for (kind, target) in &global.attrs.metadata {
            out.push_str(", ");
            out.push('!');
            out.push_str(kind);
            out.push(' ');
            slots.write_ref(out, module, *target);
        }
        out.push('\n');
    }
}

/// Declares the `llvm.dbg.*` intrinsics the module's records need.
fn write_intrinsic_declarations(out: &mut String, module: &Module) {
    let mut used = [false; 4];
    let kinds = [
        RecordKind::Declare,
        RecordKind::Value,
        RecordKind::Assign,
        RecordKind::Label,
    ];
    for function in &module.functions {
        for inst in &function.insts {
            for record in &inst.records {
                if let Some(i) = kinds.iter().position(|&k| k == record.kind) {
                    used[i] = true;
                }
            }
        }
    }
    for (kind, _) in kinds.iter().zip(used).filter(|(_, used)| *used) {
        let params = match kind {
            RecordKind::Assign => "metadata, metadata, metadata, metadata, metadata, metadata",
            RecordKind::Label => "metadata",
            RecordKind::Value | RecordKind::Declare => "metadata, metadata, metadata",
        };
        let _ = write!(
            out,
            "\ndeclare void @llvm.dbg.{}({params})\n",
            record_kind_name(*kind)
        );
    }
}
