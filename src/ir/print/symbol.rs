//! The parts of a global's or function's line that are not its name, type
//! or body: visibility, thread-local mode, comdat, attribute groups and the
//! rest of [`SymbolAttrs`], each in the place LLVM's grammar puts it.

use std::fmt::Write;

use super::text::write_quoted;
use crate::ir::{Module, SymbolAttrs};

/// Appends visibility and DLL storage (after linkage and `dso_local`), each
/// followed by a space.
pub(super) fn write_visibility(out: &mut String, attrs: &SymbolAttrs) {
    for word in [&attrs.visibility, &attrs.dll_storage]
        .into_iter()
        .flatten()
    {
        out.push_str(word);
        out.push(' ');
    }
}

/// Appends a global's thread-local mode, each word followed by a space
/// (before `unnamed_addr`).
pub(super) fn write_thread_local(out: &mut String, attrs: &SymbolAttrs) {
    if let Some(mode) = &attrs.thread_local {
        out.push_str(mode);
        out.push(' ');
    }
}

/// Appends `addrspace(N)` and `externally_initialized` for a global (after
/// `unnamed_addr`), each followed by a space.
pub(super) fn write_global_storage(out: &mut String, attrs: &SymbolAttrs) {
    if let Some(n) = attrs.addrspace {
        let _ = write!(out, "addrspace({n}) ");
    }
    if attrs.externally_initialized {
        out.push_str("externally_initialized ");
    }
}

/// Appends a global's `, partition "p"` and `, comdat[($c)]` (after its section).
pub(super) fn write_global_placement(out: &mut String, attrs: &SymbolAttrs) {
    if let Some(partition) = &attrs.partition {
        out.push_str(", partition ");
        write_quoted(out, partition.as_bytes());
    }
    if let Some(comdat) = &attrs.comdat {
        out.push_str(", comdat");
        write_comdat_name(out, comdat);
    }
}

/// Appends a function's ` addrspace(N)`, ` #N` groups and inline attributes
/// (after `unnamed_addr`, before `section`), each with a leading space.
pub(super) fn write_function_attrs(out: &mut String, attrs: &SymbolAttrs) {
    if let Some(n) = attrs.addrspace {
        let _ = write!(out, " addrspace({n})");
    }
    for group in &attrs.attribute_groups {
        let _ = write!(out, " #{group}");
    }
    for attr in &attrs.inline_attrs {
        out.push(' ');
        out.push_str(attr);
    }
}

/// Appends a function's ` partition "p"` and ` comdat[($c)]` (after `section`).
pub(super) fn write_function_placement(out: &mut String, attrs: &SymbolAttrs) {
    if let Some(partition) = &attrs.partition {
        out.push_str(" partition ");
        write_quoted(out, partition.as_bytes());
    }
    if let Some(comdat) = &attrs.comdat {
        out.push_str(" comdat");
        write_comdat_name(out, comdat);
    }
}

/// Appends a function's ` gc "x"`, ` prefix T c`, ` prologue T c` and
/// ` personality T c` (after `align`).
pub(super) fn write_function_extras(out: &mut String, attrs: &SymbolAttrs) {
    if let Some(gc) = &attrs.gc {
        out.push_str(" gc ");
        write_quoted(out, gc.as_bytes());
    }
    for (keyword, value) in [
        ("prefix", &attrs.prefix),
        ("prologue", &attrs.prologue),
        ("personality", &attrs.personality),
    ] {
        if let Some(value) = value {
            let _ = write!(out, " {keyword} {value}");
        }
    }
}

fn write_comdat_name(out: &mut String, comdat: &Option<String>) {
    if let Some(name) = comdat {
        let _ = write!(out, "(${name})");
    }
}

/// Appends the module's `$name = comdat kind` lines.
pub(super) fn write_comdats(out: &mut String, module: &Module) {
    if !module.comdats.is_empty() {
        out.push('\n');
    }
    for comdat in &module.comdats {
        let _ = writeln!(out, "${} = comdat {}", comdat.name, comdat.kind);
    }
}

/// Appends the module's `attributes #N = { ... }` lines.
pub(super) fn write_attribute_groups(out: &mut String, module: &Module) {
    if !module.attribute_groups.is_empty() {
        out.push('\n');
    }
    for group in &module.attribute_groups {
        let _ = writeln!(
            out,
            "attributes #{} = {{ {} }}",
            group.number,
            group.attrs.join(" ")
        );
    }
}
