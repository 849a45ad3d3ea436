//! The code generation gate: constructs the parser accepts but code
//! generation does not honour are refused before instruction selection.
//!
//! In: a parsed, verified module. Out: `Ok`, or the first refused construct
//! as an error naming the construct, the function or global, and the
//! file:line:col of the function, global, instruction or `module asm` line.
//!
//! Rule: nothing is compiled into something it does not mean (objects
//! larger than the small code model addresses included). Each table
//! below lists what is refused and why; when a construct becomes honoured
//! (implemented end to end, with a test that runs it), delete its entry and
//! move its case in `tests/reliability_constructs.rs` to the compiled side.
//! Honoured today, for contrast: parameter hints (`noalias`, `nocapture`,
//! `readonly`, `dereferenceable`, `align` without `byval`, `returned`...),
//! `fastcc` (the C convention here), `unnamed_addr`, global alignment,
//! external, internal, private, weak, weak_odr, linkonce, linkonce_odr,
//! common and extern_weak linkage (without comdat), hidden and protected visibility, `section` on
//! global variables, `thread_local` globals in every TLS model (see
//! `isel/tls.rs`), atomics, `indirectbr` and `blockaddress`, function
//! attribute groups other
//! than those listed. Refused earlier, by the parser: aliases and ifuncs,
//! and pointers in an address space other than 0 (the IR has one pointer
//! type); by the target gate: triples and datalayouts other than x86-64 ELF.

use crate::error::{Diagnostic, Pos};
use crate::ir::{
    Constant, Function, Global, InstKind, Linkage, Module, ParamAttrs, TailKind, Value,
};

/// Parameter, argument and return attributes that change the ABI (codegen
/// passes every such value as a plain scalar or pointer).
const REFUSED_PARAM_ATTRS: &[&str] = &[
    "byval",
    "sret",
    "inalloca",
    "preallocated",
    "swifterror",
    "swiftself",
    "swiftasync",
    "nest",
    "inreg",
];

/// Calling conventions honoured (any other `...cc` word is refused).
const HONOURED_CALLING_CONVENTIONS: &[&str] = &["ccc", "fastcc"];

/// Function attributes (in groups or inline) that change the code a
/// function must get.
const REFUSED_FUNCTION_ATTRS: &[&str] = &[
    "naked",
    "alignstack",
    "\"stackrealign\"",
    "\"patchable-function-entry\"",
];

/// Linkages the object writer cannot express (it has local, global, weak
/// and common definitions and weak references, but no discarded bodies).
const REFUSED_LINKAGES: &[Linkage] = &[Linkage::AvailableExternally];

/// The `appending` globals code generation honours: the `llvm.metadata`
/// lists (no data) and the constructor/destructor lists (`.init_array`,
/// `.fini_array`). Any other appending global is refused.
const APPENDING_GLOBALS_HONOURED: &[&str] = &[
    "llvm.used",
    "llvm.compiler.used",
    "llvm.global_ctors",
    "llvm.global_dtors",
];

/// The largest function alignment honoured (every function is 16-byte aligned).
const MAX_FUNCTION_ALIGN: u32 = 16;

/// The largest global or stack object: the small code model addresses
/// data and stack slots with signed 32-bit displacements.
const MAX_OBJECT_SIZE: u64 = (1 << 31) - 1;

/// Symbol properties (globals and functions alike) that are refused, with
/// the name the error gives them. Each is ignored by the object writer.
#[allow(clippy::type_complexity)]
const REFUSED_SYMBOL_ATTRS: &[(&str, fn(&crate::ir::SymbolAttrs) -> Option<String>)] = &[
    ("DLL storage class", |a| a.dll_storage.clone()),
    ("address space", |a| {
        a.addrspace
            .filter(|&n| n != 0)
            .map(|n| format!("addrspace({n})"))
    }),
    ("comdat", |a| {
        a.comdat.as_ref().map(|_| "comdat".to_string())
    }),
    ("partition", |a| {
        a.partition.as_ref().map(|p| format!("partition \"{p}\""))
    }),
    ("garbage collector", |a| {
        a.gc.as_ref().map(|g| format!("gc \"{g}\""))
    }),
    ("prefix data", |a| {
        a.prefix.as_ref().map(|_| "prefix".into())
    }),
    ("prologue data", |a| {
        a.prologue.as_ref().map(|_| "prologue".into())
    }),
    ("personality function (exception handling)", |a| {
        a.personality.as_ref().map(|_| "personality".into())
    }),
];

/// Checks the module; `file` names the input for errors.
pub fn check_module(module: &Module, file: &str) -> Result<(), Diagnostic> {
    let refuse = |pos: Pos, message: String| {
        Err(Diagnostic {
            file: file.to_string(),
            pos,
            message,
        })
    };
    if let Some(line) = module.module_asm.first() {
        return refuse(
            line.pos,
            "module asm: module-level inline assembly is not supported by code generation"
                .to_string(),
        );
    }
    for global in &module.globals {
        if let Some(what) = refused_in_global(module, global) {
            return refuse(
                global.pos,
                format!(
                    "global @{}: {what} is not supported by code generation",
                    global.name
                ),
            );
        }
    }
    for function in &module.functions {
        if let Some((pos, what)) = refused_in_function(module, function) {
            return refuse(
                pos,
                format!(
                    "function @{}: {what} is not supported by code generation",
                    function.name
                ),
            );
        }
    }
    Ok(())
}

/// What is refused in a global, if anything.
fn refused_in_global(module: &Module, global: &Global) -> Option<String> {
    let size = module.size_of(&global.ty);
    if size > MAX_OBJECT_SIZE {
        return Some(too_large(size));
    }
    let known_appending = APPENDING_GLOBALS_HONOURED.contains(&global.name.as_str());
    if REFUSED_LINKAGES.contains(&global.linkage)
        || (global.linkage == Linkage::Appending && !known_appending)
    {
        return Some(format!("{} linkage", global.linkage.keyword()));
    }
    refused_symbol_attr(&global.attrs)
}

/// What is refused in a function (its symbol, signature, attributes or
/// instructions), and where.
fn refused_in_function(module: &Module, function: &Function) -> Option<(Pos, String)> {
    let at_function = |what: String| Some((function.pos, what));
    if REFUSED_LINKAGES.contains(&function.linkage) {
        return at_function(format!("{} linkage", function.linkage.keyword()));
    }
    if let Some(section) = &function.section {
        return at_function(format!("section \"{section}\""));
    }
    if let Some(align) = function.align.filter(|&a| a > MAX_FUNCTION_ALIGN) {
        return at_function(format!(
            "align {align} (functions are {MAX_FUNCTION_ALIGN}-byte aligned)"
        ));
    }
    if let Some(what) = refused_symbol_attr(&function.attrs) {
        return at_function(what);
    }
    if let Some(what) = refused_param_attr(module, &function.ret_attrs) {
        return at_function(format!("{what} on the return value"));
    }
    for (i, param) in function.params.iter().enumerate() {
        if let Some(what) = refused_param_attr(module, &param.attrs) {
            return at_function(format!("{what} on parameter {}", i + 1));
        }
    }
    let group_attrs = function.attrs.attribute_groups.iter().flat_map(|&n| {
        module
            .attribute_groups
            .iter()
            .filter(move |g| g.number == n)
            .flat_map(|g| g.attrs.iter())
    });
    for attr in group_attrs.chain(&function.attrs.inline_attrs) {
        if REFUSED_FUNCTION_ATTRS.contains(&attr_keyword(attr)) {
            return at_function(format!("function attribute {attr}"));
        }
    }
    for inst in &function.insts {
        if let InstKind::Alloca {
            allocated, count, ..
        } = &inst.kind
        {
            let count = match count {
                Some(Value::Const(Constant::Int { value, .. })) => u64::try_from(*value).ok(),
                _ => Some(1),
            };
            let size = count.map_or(u64::MAX, |n| n.saturating_mul(module.size_of(allocated)));
            if size > MAX_OBJECT_SIZE {
                return Some((inst.pos, format!("an alloca of {}", too_large(size))));
            }
        }
        let InstKind::Call {
            tail,
            args,
            ret_attrs,
            ..
        } = &inst.kind
        else {
            continue;
        };
        let at_call = |what: String| Some((inst.pos, what));
        if *tail == TailKind::MustTail {
            return at_call("musttail call".to_string());
        }
        if let Some(what) = refused_param_attr(module, ret_attrs) {
            return at_call(format!("{what} on a call"));
        }
        for (i, arg) in args.iter().enumerate() {
            if let Some(what) = refused_param_attr(module, &arg.attrs) {
                return at_call(format!("{what} on argument {} of a call", i + 1));
            }
        }
    }
    None
}

/// "N bytes (more than the small code model's 2 GiB)", N saturating at u64::MAX.
fn too_large(size: u64) -> String {
    format!("{size} bytes (more than the small code model's 2 GiB)")
}

/// The first refused symbol property, named.
fn refused_symbol_attr(attrs: &crate::ir::SymbolAttrs) -> Option<String> {
    REFUSED_SYMBOL_ATTRS
        .iter()
        .find_map(|(name, get)| get(attrs).map(|written| format!("{name} ({written})")))
}

/// The first refused parameter attribute or calling convention, as written.
fn refused_param_attr(module: &Module, attrs: &ParamAttrs) -> Option<String> {
    for (ty, name) in [(&attrs.byval, "byval"), (&attrs.sret, "sret")] {
        if let Some(ty) = ty {
            let ty = crate::ir::print::type_text(module, ty);
            return Some(format!("attribute {name}({ty})"));
        }
    }
    attrs.other.iter().find_map(|attr| {
        let keyword = attr_keyword(attr);
        let calling_convention =
            keyword.ends_with("cc") && !HONOURED_CALLING_CONVENTIONS.contains(&keyword);
        if REFUSED_PARAM_ATTRS.contains(&keyword) {
            Some(format!("attribute {attr}"))
        } else if calling_convention {
            Some(format!("calling convention {attr}"))
        } else {
            None
        }
    })
}

/// The keyword of an attribute as written: `byval` of `byval(%struct.S)`,
/// `"stackrealign"` of `"stackrealign"="true"`, `alignstack` of `alignstack=16`.
fn attr_keyword(attr: &str) -> &str {
    let end = attr.find(['(', '=', ' ']).unwrap_or(attr.len());
    &attr[..end]
}
