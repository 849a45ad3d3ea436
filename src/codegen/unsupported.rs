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
//! `readonly`, `dereferenceable`, `align`, `returned`...), `byval` and
//! `sret` (copied and returned per SysV by `isel::calls`), `musttail` calls
//! (real tail calls; one isel cannot honour is an error naming it),
//! `fastcc` (the C convention here), `unnamed_addr`, global alignment,
//! external, internal, private, weak, weak_odr, linkonce, linkonce_odr,
//! common and extern_weak linkage, COMDAT groups of kind `any`, hidden
//! and protected visibility, `section` on functions and global variables, `thread_local` globals in every TLS model (see
//! `isel/tls.rs`), atomics, `indirectbr` and `blockaddress`, function
//! attribute groups other
//! than those listed, aliases (symbols placed by `isel::attach_aliases`),
//! personalities with `invoke`/`landingpad`/`resume` (Itanium exception
//! handling: `isel/eh.rs`, `codegen/lsda.rs`).
//! Refused earlier, by the parser: ifuncs,
//! and pointers in an address space other than 0 (the IR has one pointer
//! type); by the target gate: triples and datalayouts other than x86-64 ELF.

use crate::error::{Diagnostic, Pos};
use crate::ir::{
    CastOp, Constant, FloatKind, Function, Global, InstKind, Linkage, Module, ParamAttrs, Type,
    Value,
};

/// Parameter, argument and return attributes that change the ABI (codegen
/// passes every such value as a plain scalar or pointer; `byval` and
/// `sret` are honoured by `isel::calls`).
const REFUSED_PARAM_ATTRS: &[&str] = &[
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

/// The largest function alignment honoured (a page; every function is at
/// least 16-byte aligned).
const MAX_FUNCTION_ALIGN: u32 = 4096;

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
        .or_else(|| refused_comdat(module, &global.name, &global.attrs))
}

/// A COMDAT group whose selection kind ELF cannot express: `any` is a
/// GRP_COMDAT group, `nodeduplicate` no group at all (see
/// `isel::comdat_group`); the others are COFF's.
fn refused_comdat(module: &Module, name: &str, attrs: &crate::ir::SymbolAttrs) -> Option<String> {
    let group = attrs.comdat.as_ref()?.as_deref().unwrap_or(name);
    let kind = module
        .comdats
        .iter()
        .find(|comdat| comdat.name == group)
        .map_or("any", |comdat| comdat.kind.as_str());
    (kind != "any" && kind != "nodeduplicate")
        .then(|| format!("comdat ${group} with selection kind {kind}"))
}

/// What is refused in a function (its symbol, signature, attributes or
/// instructions), and where.
fn refused_in_function(module: &Module, function: &Function) -> Option<(Pos, String)> {
    let at_function = |what: String| Some((function.pos, what));
    if REFUSED_LINKAGES.contains(&function.linkage) {
        return at_function(format!("{} linkage", function.linkage.keyword()));
    }
    if let Some(align) = function.align.filter(|&a| a > MAX_FUNCTION_ALIGN) {
        return at_function(format!(
            "align {align} (functions are aligned to at most {MAX_FUNCTION_ALIGN} bytes)"
        ));
    }
    if let Some(what) = refused_symbol_attr(&function.attrs)
        .or_else(|| refused_comdat(module, &function.name, &function.attrs))
    {
        return at_function(what);
    }
    if let Some(what) = refused_param_attr(&function.ret_attrs) {
        return at_function(format!("{what} on the return value"));
    }
    if odd_wide_integer(&function.ret_ty) {
        return at_function(odd_wide_passed(&function.ret_ty, "return value"));
    }
    for (i, param) in function.params.iter().enumerate() {
        if let Some(what) = refused_param_attr(&param.attrs) {
            return at_function(format!("{what} on parameter {}", i + 1));
        }
        if odd_wide_integer(&param.ty) {
            return at_function(odd_wide_passed(&param.ty, &format!("parameter {}", i + 1)));
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
    if let Some(refused) = refused_vector_construct(module, function) {
        return Some(refused);
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
        let (InstKind::Call {
            args, ret_attrs, ..
        }
        | InstKind::Invoke {
            args, ret_attrs, ..
        }) = &inst.kind
        else {
            continue;
        };
        let at_call = |what: String| Some((inst.pos, what));
        if let Some(what) = refused_param_attr(ret_attrs) {
            return at_call(format!("{what} on a call"));
        }
        if odd_wide_integer(&inst.ty) {
            return at_call(odd_wide_passed(&inst.ty, "return value of a call"));
        }
        for (i, arg) in args.iter().enumerate() {
            if let Some(what) = refused_param_attr(&arg.attrs) {
                return at_call(format!("{what} on argument {} of a call", i + 1));
            }
            let ty = function.value_type(&arg.value);
            if odd_wide_integer(&ty) {
                return at_call(odd_wide_passed(
                    &ty,
                    &format!("argument {} of a call", i + 1),
                ));
            }
        }
    }
    None
}

/// Whether `ty` is an integer of 65 to 127 bits: computed on and kept in
/// memory (`isel/wide.rs`), but with no argument or return convention here
/// (clang passes no such type; LLVM splits it into 64-bit parts).
fn odd_wide_integer(ty: &Type) -> bool {
    matches!(ty, Type::Int(65..=127))
}

fn odd_wide_passed(ty: &Type, what: &str) -> String {
    let Type::Int(bits) = ty else {
        return format!("{what} of an integer type wider than 64 bits");
    };
    format!("{what} of type i{bits} (integers of 65 to 127 bits are not passed to or returned from functions)")
}

// ---- vectors (codegen/isel/vector.rs) -----------------------------------

/// The vector intrinsics selected (the name's second part: `llvm.smax.v4i32`),
/// for integer lanes, beside the `llvm.vector.reduce.*` family.
const VECTOR_LANE_INTRINSICS: &[&str] = &[
    "smax", "smin", "umax", "umin", "fshl", "fshr", "abs", "bswap",
];

/// The `llvm.vector.reduce.*` operations selected (`fmax`/`fmin` and their
/// NaN rules are not).
const VECTOR_REDUCTIONS: &[&str] = &[
    "add", "mul", "and", "or", "xor", "smax", "smin", "umax", "umin", "fadd", "fmul",
];

/// The most lanes a vector may have: the vectorisers' widest SSE2 forms
/// (`<16 x i64>`, `<64 x i8>`) fit; a lane-by-lane fallback over more would
/// only make code nobody asked for.
const MAX_VECTOR_LANES: u32 = 64;

/// The layout of a vector type the selector keeps in xmm registers:
/// (lanes, bytes per lane), or `None` for lanes it does not select (or
/// more than [`MAX_VECTOR_LANES`] of them).
fn vector_layout(ty: &Type) -> Option<(u32, u32)> {
    let Type::Vector { len, elem } = ty else {
        return None;
    };
    if *len > MAX_VECTOR_LANES {
        return None;
    }
    let lane = match &**elem {
        Type::Int(1 | 8) => 1,
        Type::Int(16) => 2,
        Type::Int(32) | Type::Float(FloatKind::Float) => 4,
        Type::Int(64) | Type::Ptr | Type::Float(FloatKind::Double) => 8,
        _ => return None,
    };
    Some((*len, lane))
}

/// Whether a vector lives in one xmm register and may cross a call in one
/// (at most 16 bytes, lanes other than i1).
fn vector_in_one_register(ty: &Type) -> bool {
    let boolean = matches!(ty, Type::Vector { elem, .. } if **elem == Type::Int(1));
    vector_layout(ty).is_some_and(|(len, lane)| len * lane <= 16) && !boolean
}

/// Whether a vector may be a member of an aggregate kept in registers
/// (`isel::aggregate`): one xmm register of 4, 8 or 16 bytes, as clang's
/// `{ <2 x float>, float }` for a struct of three floats.
fn vector_member(ty: &Type) -> bool {
    vector_in_one_register(ty)
        && vector_layout(ty).is_some_and(|(len, lane)| matches!(len * lane, 4 | 8 | 16))
}

/// The first vector construct of `function` that code generation refuses,
/// and where.
fn refused_vector_construct(module: &Module, function: &Function) -> Option<(Pos, String)> {
    let text = |ty: &Type| crate::ir::print::type_text(module, ty);
    let is_vector = |ty: &Type| matches!(ty, Type::Vector { .. });
    if function.blocks.is_empty() {
        // A declaration: only calls of it pass vectors.
        return None;
    }
    for (i, param) in function.params.iter().enumerate() {
        if is_vector(&param.ty) && !vector_in_one_register(&param.ty) {
            return Some((
                function.pos,
                format!("parameter {} of type {}", i + 1, text(&param.ty)),
            ));
        }
    }
    if is_vector(&function.ret_ty) && !vector_in_one_register(&function.ret_ty) {
        return Some((
            function.pos,
            format!("a return of {}", text(&function.ret_ty)),
        ));
    }
    for inst in &function.insts {
        let operands = inst.operands();
        // Only an instruction with a vector among its types is checked (its
        // operand types made only then).
        if !is_vector(&inst.ty)
            && !operands
                .iter()
                .any(|v| is_vector(&function.value_type_ref(v)))
        {
            continue;
        }
        let at = |what: String| Some((inst.pos, what));
        let operand_types: Vec<Type> = operands.iter().map(|v| function.value_type(v)).collect();
        let types = || std::iter::once(&inst.ty).chain(&operand_types);
        if let Some(ty) = types().find(|t| is_vector(t) && vector_layout(t).is_none()) {
            return at(format!("vector type {}", text(ty)));
        }
        let opcode = inst.kind.opcode();
        match &inst.kind {
            InstKind::FBinary {
                op: crate::ir::FBinOp::Rem,
                ..
            } => return at("frem on vectors".into()),
            InstKind::Load {
                atomic: Some(_), ..
            }
            | InstKind::Store {
                atomic: Some(_), ..
            }
            | InstKind::AtomicRmw { .. }
            | InstKind::CmpXchg { .. }
            | InstKind::VaArg { .. } => return at(format!("'{opcode}' on vectors")),
            InstKind::ExtractValue { .. } | InstKind::InsertValue { .. } => {
                if let Some(ty) = types().find(|t| is_vector(t) && !vector_member(t)) {
                    return at(format!(
                        "'{opcode}' of a vector member of type {} (members are 4, 8 or 16 bytes)",
                        text(ty)
                    ));
                }
            }
            InstKind::Load { .. } | InstKind::Store { .. }
                if types()
                    .any(|t| matches!(t, Type::Vector { elem, .. } if **elem == Type::Int(1))) =>
            {
                return at(format!("'{opcode}' of a vector of i1"));
            }
            InstKind::Cast {
                op: CastOp::BitCast,
                value,
                ..
            } => {
                let from = function.value_type(value);
                let boolean =
                    |t: &Type| matches!(t, Type::Vector { elem, .. } if **elem == Type::Int(1));
                let scalar_side = !is_vector(&from) || !is_vector(&inst.ty);
                let vector_side = if is_vector(&from) { &from } else { &inst.ty };
                // A mask of 32 or 64 lanes to an integer is a movemask per
                // 16-byte part, the parts' bits joined.
                let mask_bits = matches!(&from, Type::Vector { len: 32 | 64, .. })
                    && boolean(&from)
                    && matches!(&inst.ty, Type::Int(32 | 64));
                let wide = vector_layout(vector_side).is_some_and(|(len, lane)| len * lane > 16)
                    && !mask_bits;
                let mixed =
                    is_vector(&from) && is_vector(&inst.ty) && boolean(&from) != boolean(&inst.ty);
                let scalar_to_mask = !is_vector(&from) && boolean(&inst.ty);
                if (scalar_side && wide) || mixed || scalar_to_mask {
                    return at(format!(
                        "bitcast from {} to {}",
                        text(&from),
                        text(&inst.ty)
                    ));
                }
            }
            InstKind::Call {
                callee,
                args,
                fn_ty,
                ..
            }
            | InstKind::Invoke {
                callee,
                args,
                fn_ty,
                ..
            } => {
                let name = module
                    .direct_callee(callee)
                    .map(|f| module.function(f).name.as_str())
                    .unwrap_or("");
                if let Some(rest) = name.strip_prefix("llvm.") {
                    let parts: Vec<&str> = rest.split('.').collect();
                    let honoured = match parts.as_slice() {
                        ["x86", ..] => crate::codegen::isel::x86_vector_form(name).is_some(),
                        ["vector", "reduce", op, ..] => VECTOR_REDUCTIONS.contains(op),
                        ["usub" | "uadd", "sat", ..] => true,
                        ["ssub" | "sadd", "sat", ty, ..] => {
                            ty.ends_with("i8") || ty.ends_with("i16")
                        }
                        ["fmuladd" | "fabs" | "sqrt", ..] => true,
                        [op, ..] => VECTOR_LANE_INTRINSICS.contains(op),
                        _ => false,
                    };
                    if !honoured {
                        return at(format!("intrinsic @{name} on vectors"));
                    }
                    continue;
                }
                let crossing = args
                    .iter()
                    .map(|a| function.value_type(&a.value))
                    .chain([inst.ty.clone()])
                    .find(|t| is_vector(t) && !vector_in_one_register(t));
                if let Some(ty) = crossing {
                    return at(format!("a call passing or returning {}", text(&ty)));
                }
                if fn_ty.varargs {
                    return at("a variadic call with vector arguments".into());
                }
            }
            _ => {}
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
fn refused_param_attr(attrs: &ParamAttrs) -> Option<String> {
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
