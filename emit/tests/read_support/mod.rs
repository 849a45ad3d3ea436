//! Shared by the emit crate's read, verify and round-trip tests: the
//! fixture objects and a compact, stable text form of an `ObjectModel`
//! for expect-test snapshots.

#![allow(dead_code)] // each test crate uses a different part of this module

use std::fmt::Write as _;
use std::path::PathBuf;

use dwarfsmith_emit::model::{
    Aggregate, CfiRow, ChildScope, DataObject, DebugInfo, Function, Location, LocationArg,
    ObjectModel, Op, Scope, Symbol, Type, Variable, VariableLocation,
};

/// The directory of the foreign fixture objects (gcc, clang-19, llc-19).
pub fn object_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/obj")
}

/// Every fixture object, sorted by file name.
pub fn fixture_objects() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(object_dir())
        .expect("fixture directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "o"))
        .collect();
    paths.sort();
    paths
}

/// The bytes of fixture object `name` (e.g. "inlining.gcc.o").
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(object_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The model as compact text, one fact per line.
pub fn dump(model: &ObjectModel) -> String {
    let mut out = String::new();
    for function in &model.functions {
        dump_function(&mut out, model, function);
    }
    for data in &model.data {
        dump_data(&mut out, model, data);
    }
    if let Some(debug) = &model.debug {
        dump_debug(&mut out, model, debug);
    }
    out
}

fn symbol(model: &ObjectModel, symbol: &Symbol) -> String {
    match symbol {
        Symbol::Named(name) => name.clone(),
        Symbol::FunctionData(function) => format!("{}$data", model.functions[*function].name),
        Symbol::FunctionCode { function, offset } => {
            format!("{}+{offset:#x}", model.functions[*function].name)
        }
        Symbol::Literal { function, index } => {
            format!("{}$literal{index}", model.functions[*function].name)
        }
    }
}

fn dump_function(out: &mut String, model: &ObjectModel, function: &Function) {
    let binding = if function.global { "global" } else { "local" };
    let _ = writeln!(
        out,
        "function {} {binding} {} bytes",
        function.name,
        function.code.len()
    );
    for r in &function.relocations {
        let _ = writeln!(
            out,
            "  reloc {:#x} {:?} {}{:+}",
            r.offset,
            r.kind,
            symbol(model, &r.symbol),
            r.addend
        );
    }
    for CfiRow {
        offset,
        instruction,
    } in &function.cfi
    {
        let _ = writeln!(out, "  cfi {offset:#x} {instruction:?}");
    }
    if !function.rodata.is_empty() {
        let _ = writeln!(out, "  rodata {} bytes", function.rodata.len());
    }
    for literal in &function.literals {
        let _ = writeln!(out, "  literal {literal:02x?}");
    }
    for r in &function.rodata_relocations {
        let _ = writeln!(
            out,
            "  rodata reloc {:#x} {:?} {}{:+}",
            r.offset,
            r.kind,
            symbol(model, &r.symbol),
            r.addend
        );
    }
}

fn dump_data(out: &mut String, model: &ObjectModel, data: &DataObject) {
    let binding = if data.global { "global" } else { "local" };
    let _ = writeln!(
        out,
        "data {} {binding} {:?} align {} {} bytes",
        data.name,
        data.section,
        data.align,
        data.bytes.len()
    );
    for r in &data.relocations {
        let _ = writeln!(
            out,
            "  reloc {:#x} {:?} {}{:+}",
            r.offset,
            r.kind,
            symbol(model, &r.symbol),
            r.addend
        );
    }
}

fn dump_debug(out: &mut String, model: &ObjectModel, debug: &DebugInfo) {
    let _ = writeln!(
        out,
        "unit {:?} language {:#x} dir {:?} producer {:?}",
        debug.name, debug.language, debug.comp_dir, debug.producer
    );
    for (index, file) in debug.files.iter().enumerate() {
        let md5 = if file.md5.is_some() { " md5" } else { "" };
        let _ = writeln!(
            out,
            "file {index} {:?} in {:?}{md5}",
            file.name, file.directory
        );
    }
    for (index, ty) in debug.types.iter().enumerate() {
        let _ = writeln!(out, "type {index} {}", type_text(ty));
    }
    for (index, subprogram) in debug.subprograms.iter().enumerate() {
        let concrete = match subprogram.function {
            Some(function) => format!("function {}", model.functions[function].name),
            None if subprogram.declaration => "declaration".to_string(),
            None => "abstract".to_string(),
        };
        let _ = writeln!(
            out,
            "subprogram {index} {} ({concrete}) at {}:{} returns {} {}{}{}",
            subprogram.name,
            subprogram.file,
            subprogram.line,
            opt(subprogram.return_type),
            if subprogram.external {
                "external"
            } else {
                "static"
            },
            if subprogram.prototyped {
                " prototyped"
            } else {
                ""
            },
            subprogram
                .linkage_name
                .as_ref()
                .map_or(String::new(), |name| format!(" linkage {name}")),
        );
        dump_scope(out, &subprogram.scope, 1);
        for site in &subprogram.calls.sites {
            let _ = writeln!(
                out,
                "  call site {:#x}{} {:?} {:?}",
                site.offset,
                if site.tail { " tail" } else { "" },
                site.callee,
                site.parameters
            );
        }
        if subprogram.calls.all_described {
            let _ = writeln!(out, "  all calls described");
        }
    }
    for global in &debug.globals {
        let data = match global.data {
            Some(data) => format!("in {}", model.data[data].name),
            None => "optimised out".to_string(),
        };
        let _ = writeln!(
            out,
            "global {} {} at {}:{} {}{} {data}",
            global.name,
            opt(global.ty),
            global.file,
            global.line,
            if global.external {
                "external"
            } else {
                "static"
            },
            global
                .linkage_name
                .as_ref()
                .map_or(String::new(), |name| format!(" linkage {name}")),
        );
    }
    for (function, rows) in debug.line_rows.iter().enumerate() {
        let _ = writeln!(out, "rows of {}", model.functions[function].name);
        for row in rows {
            let flags = [
                (row.is_stmt, " is_stmt"),
                (row.prologue_end, " prologue_end"),
                (row.epilogue_begin, " epilogue_begin"),
            ];
            let flags: String = flags
                .iter()
                .filter(|(set, _)| *set)
                .map(|(_, name)| *name)
                .collect();
            let _ = writeln!(
                out,
                "  {:#06x} {}:{}:{}{flags}",
                row.offset, row.file, row.line, row.column
            );
        }
    }
}

fn opt(ty: Option<usize>) -> String {
    ty.map_or("void".to_string(), |t| format!("t{t}"))
}

fn type_text(ty: &Type) -> String {
    match ty {
        Type::Base {
            name,
            byte_size,
            encoding,
        } => format!("base {name:?} size {byte_size} encoding {encoding:#x}"),
        Type::Pointer(target) => format!("pointer to {}", opt(*target)),
        Type::Const(target) => format!("const {}", opt(*target)),
        Type::Volatile(target) => format!("volatile {}", opt(*target)),
        Type::Restrict(target) => format!("restrict {}", opt(*target)),
        Type::Reference { rvalue, target } => {
            let ampersands = if *rvalue { "&&" } else { "&" };
            format!("reference {ampersands} {}", opt(*target))
        }
        Type::Unspecified { name } => format!("unspecified {name:?}"),
        Type::Namespace { scope, name, .. } => format!("namespace {name:?} in {}", opt(*scope)),
        Type::PointerToMember { target, class } => {
            format!("pointer to member of t{class}: {}", opt(*target))
        }
        Type::Typedef { name, target, .. } => format!("typedef {name:?} = {}", opt(*target)),
        Type::Struct {
            name,
            kind,
            byte_size,
            members,
            ..
        } => {
            let members: Vec<String> = members
                .iter()
                .map(|m| format!("{}: t{} @{}", m.name, m.ty, m.byte_offset))
                .collect();
            format!(
                "{} {name:?} size {byte_size:?} {{{}}}",
                if *kind == Aggregate::Union {
                    "union"
                } else {
                    "struct"
                },
                members.join(", ")
            )
        }
        Type::Array {
            element,
            counts,
            vector,
        } => format!("array of t{element} counts {counts:?} vector {vector:?}"),
        Type::Enum {
            name,
            underlying,
            byte_size,
            enumerators,
            ..
        } => format!(
            "enum {name:?} of {} size {byte_size} {enumerators:?}",
            opt(*underlying)
        ),
        Type::Subroutine {
            return_type,
            parameters,
            ..
        } => {
            let parameters: Vec<String> = parameters.iter().map(|p| opt(*p)).collect();
            format!(
                "subroutine ({}) -> {}",
                parameters.join(", "),
                opt(*return_type)
            )
        }
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

fn dump_scope(out: &mut String, scope: &Scope, depth: usize) {
    for variable in &scope.variables {
        dump_variable(out, variable, depth);
    }
    for child in &scope.children {
        match child {
            ChildScope::Lexical { ranges, scope } => {
                let _ = writeln!(out, "{}block {}", indent(depth), ranges_text(ranges));
                dump_scope(out, scope, depth + 1);
            }
            ChildScope::Inlined {
                origin,
                ranges,
                call_file,
                call_line,
                call_column,
                scope,
            } => {
                let _ = writeln!(
                    out,
                    "{}inlined subprogram {origin} from {call_file}:{call_line}:{call_column} {}",
                    indent(depth),
                    ranges_text(ranges)
                );
                dump_scope(out, scope, depth + 1);
            }
        }
    }
}

fn ranges_text(ranges: &[(u64, u64)]) -> String {
    let ranges: Vec<String> = ranges
        .iter()
        .map(|(s, e)| format!("[{s:#x},{e:#x})"))
        .collect();
    ranges.join(" ")
}

fn dump_variable(out: &mut String, variable: &Variable, depth: usize) {
    let kind = match variable.arg {
        Some(arg) => format!("param {arg}"),
        None => "var".to_string(),
    };
    let head = format!(
        "{}{kind} {} {} at {}:{}",
        indent(depth),
        variable.name,
        opt(variable.ty),
        variable.file,
        variable.line
    );
    match &variable.location {
        VariableLocation::None => {
            let _ = writeln!(out, "{head}: none");
        }
        VariableLocation::Single(location) => {
            let _ = writeln!(out, "{head}: {}", location_text(location));
        }
        VariableLocation::List { entries, .. } => {
            let _ = writeln!(out, "{head}:");
            for entry in entries {
                let _ = writeln!(
                    out,
                    "{}  [{:#x},{:#x}) {}",
                    indent(depth),
                    entry.start,
                    entry.end,
                    location_text(&entry.location)
                );
            }
        }
    }
}

/// A location as text: its operations, with each `Arg` replaced by what
/// it stands for.
pub fn location_text(location: &Location) -> String {
    let ops: Vec<String> = location
        .ops
        .iter()
        .map(|op| match op {
            Op::Arg(n) => match location.args.get(*n as usize) {
                Some(LocationArg::Register {
                    register,
                    bits,
                    signed,
                }) => format!("reg{register}:{}{bits}", if *signed { 'i' } else { 'u' }),
                Some(LocationArg::FloatRegister { register, bits }) => {
                    format!("reg{register}:f{bits}")
                }
                Some(LocationArg::FrameSlot(offset)) => format!("cfa{offset:+}"),
                Some(LocationArg::Constant(value)) => format!("const {value}"),
                Some(LocationArg::EntryValue { register }) => format!("entry(reg{register})"),
                None => format!("arg{n}?"),
            },
            other => format!("{other:?}"),
        })
        .collect();
    ops.join(", ")
}
