//! The small pieces of .ll text every part of the printer shares: names,
//! quoted strings, types and constants.
//!
//! In: model values ([`Type`], [`Constant`]) and the module they belong to.
//! Out: their LLVM IR spelling, appended to a `String`. Promise: what is
//! written here reads back (with LLVM 19's parser and ours) as the same
//! value: names that are not plain identifiers are quoted, bytes outside
//! printable ASCII are escaped as `\XX`.

use std::fmt::Write;

use crate::ir::value::f32_bits_to_f64_bits;
use crate::ir::{ConstExpr, Constant, FloatKind, GlobalRef, Module, Type};

/// Whether `name` can be written after `%`, `@` or `!` without quotes:
/// `[-a-zA-Z$._][-a-zA-Z$._0-9]*`.
fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_');
    ok(first) && !first.is_ascii_digit() && chars.all(ok)
}

/// Appends `sigil` and `name`, quoting the name when it is not a plain
/// identifier. A name keeps the escapes it was written with (the parser
/// stores a quoted name as written, `\5C` and `\01` included; an unquoted
/// name has no `\`), so a `\` is written back as it is; `"` and bytes
/// outside printable ASCII are escaped.
pub fn write_name(out: &mut String, sigil: char, name: &str) {
    out.push(sigil);
    if is_plain_identifier(name) {
        out.push_str(name);
        return;
    }
    out.push('"');
    for &b in name.as_bytes() {
        if (0x20..0x7f).contains(&b) && b != b'"' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\{b:02X}");
        }
    }
    out.push('"');
}

/// Appends `"bytes"` with LLVM's escaping: printable ASCII other than `"` and
/// `\` as is, everything else as `\XX` (upper-case hex).
pub fn write_quoted(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\{b:02X}");
        }
    }
    out.push('"');
}

/// Appends the spelling of a type (`i32`, `ptr`, `[4 x i32]`, `%struct.pt`).
pub fn write_type(out: &mut String, module: &Module, ty: &Type) {
    match ty {
        Type::Void => out.push_str("void"),
        Type::Int(bits) => {
            let _ = write!(out, "i{bits}");
        }
        Type::Ptr => out.push_str("ptr"),
        Type::Array { len, elem } => {
            let _ = write!(out, "[{len} x ");
            write_type(out, module, elem);
            out.push(']');
        }
        Type::Named(id) => match module.structs.get(id.0 as usize) {
            Some(def) => write_name(out, '%', &def.name),
            None => {
                let _ = write!(out, "%<unknown struct {}>", id.0);
            }
        },
        Type::Struct { fields, packed } => write_struct_body(out, module, fields, *packed),
        Type::Function(f) => {
            write_type(out, module, &f.ret);
            out.push_str(" (");
            for (i, param) in f.params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(out, module, param);
            }
            if f.varargs {
                out.push_str(if f.params.is_empty() { "..." } else { ", ..." });
            }
            out.push(')');
        }
        Type::Label => out.push_str("label"),
        Type::Metadata => out.push_str("metadata"),
        Type::Float(kind) => out.push_str(kind.name()),
        Type::Vector { len, elem } => {
            let _ = write!(out, "<{len} x ");
            write_type(out, module, elem);
            out.push('>');
        }
    }
}

/// Appends a struct body: `{ i32, ptr }`, `<{ i8 }>` or `{}`.
pub fn write_struct_body(out: &mut String, module: &Module, fields: &[Type], packed: bool) {
    if packed {
        out.push('<');
    }
    if fields.is_empty() {
        out.push_str("{}");
    } else {
        out.push_str("{ ");
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_type(out, module, field);
        }
        out.push_str(" }");
    }
    if packed {
        out.push('>');
    }
}

/// Appends `ty value` for a constant operand (`i32 7`, `ptr @g`).
pub fn write_typed_constant(out: &mut String, module: &Module, constant: &Constant) {
    write_type(out, module, &constant.ty());
    out.push(' ');
    write_constant(out, module, constant);
}

/// Appends a constant without its type (`7`, `true`, `null`, `@g`, `c"hi\00"`).
pub fn write_constant(out: &mut String, module: &Module, constant: &Constant) {
    match constant {
        Constant::Int { bits: 1, value } => {
            out.push_str(if *value != 0 { "true" } else { "false" })
        }
        Constant::Int { value, .. } => {
            let _ = write!(out, "{value}");
        }
        Constant::Float { kind, bits } => write_float(out, *kind, *bits),
        Constant::Vector { elems, .. } => {
            out.push('<');
            for (i, elem) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_typed_constant(out, module, elem);
            }
            out.push('>');
        }
        Constant::BlockAddress { func, block } => {
            out.push_str("blockaddress(");
            write_global_ref(out, module, GlobalRef::Func(*func));
            out.push_str(", ");
            match module.functions.get(func.0 as usize) {
                Some(f) => super::function::write_block_ref(out, f, *block),
                None => {
                    let _ = write!(out, "%<unknown block {}>", block.0);
                }
            }
            out.push(')');
        }
        Constant::InlineAsm(asm) => {
            out.push_str("asm ");
            for (on, word) in [
                (asm.side_effect, "sideeffect "),
                (asm.align_stack, "alignstack "),
                (asm.intel_dialect, "inteldialect "),
                (asm.unwind, "unwind "),
            ] {
                if on {
                    out.push_str(word);
                }
            }
            write_quoted(out, &asm.template);
            out.push_str(", ");
            write_quoted(out, &asm.constraints);
        }
        Constant::Null => out.push_str("null"),
        Constant::Undef(_) => out.push_str("undef"),
        Constant::Poison(_) => out.push_str("poison"),
        Constant::Zero(_) => out.push_str("zeroinitializer"),
        Constant::Array { elems, .. } => {
            out.push('[');
            for (i, elem) in elems.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_typed_constant(out, module, elem);
            }
            out.push(']');
        }
        Constant::Bytes(bytes) => {
            out.push('c');
            write_quoted(out, bytes);
        }
        Constant::Struct { ty, fields } => {
            let packed = match ty {
                Type::Struct { packed, .. } => *packed,
                Type::Named(id) => module.structs.get(id.0 as usize).is_some_and(|d| d.packed),
                _ => false,
            };
            if packed {
                out.push('<');
            }
            if fields.is_empty() {
                out.push_str("{}");
            } else {
                out.push_str("{ ");
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_typed_constant(out, module, field);
                }
                out.push_str(" }");
            }
            if packed {
                out.push('>');
            }
        }
        Constant::Global(global) => write_global_ref(out, module, *global),
        Constant::Expr(expr) => write_const_expr(out, module, expr),
    }
}

/// Appends a floating-point constant the way LLVM does: `float` and
/// `double` in decimal (`1.500000e+00`) when that reads back to the same
/// bits, else as the hexadecimal bits of a double (`0x7FF8000000000000`;
/// a `float` is widened exactly first); the other formats always in hex
/// with their letter (`0xK` x86_fp80, `0xH` half, `0xR` bfloat, `0xL` fp128
/// with the low 64 bits first).
pub fn write_float(out: &mut String, kind: FloatKind, bits: u128) {
    let double_bits = match kind {
        FloatKind::Double => Some(bits as u64),
        FloatKind::Float => Some(f32_bits_to_f64_bits(bits as u32)),
        _ => None,
    };
    match (kind, double_bits) {
        (_, Some(d)) => {
            let value = f64::from_bits(d);
            if value.is_finite() {
                let decimal = llvm_decimal(value);
                if decimal.parse::<f64>().is_ok_and(|v| v.to_bits() == d) {
                    out.push_str(&decimal);
                    return;
                }
            }
            let _ = write!(out, "0x{d:016X}");
        }
        (FloatKind::X86Fp80, _) => {
            let _ = write!(out, "0xK{:020X}", bits & ((1u128 << 80) - 1));
        }
        (FloatKind::Half, _) => {
            let _ = write!(out, "0xH{:04X}", bits as u16);
        }
        (FloatKind::BFloat, _) => {
            let _ = write!(out, "0xR{:04X}", bits as u16);
        }
        (_, None) => {
            let _ = write!(out, "0xL{:016X}{:016X}", bits as u64, (bits >> 64) as u64);
        }
    }
}

/// A finite double as `%e` prints it: `d.dddddde+XX`.
fn llvm_decimal(value: f64) -> String {
    let text = format!("{value:.6e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let (sign, digits) = match exponent.strip_prefix('-') {
        Some(digits) => ('-', digits),
        None => ('+', exponent),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// Appends `@name` for a global variable or function.
pub fn write_global_ref(out: &mut String, module: &Module, global: GlobalRef) {
    let known = match global {
        GlobalRef::Var(id) => (id.0 as usize) < module.globals.len(),
        GlobalRef::Func(id) => (id.0 as usize) < module.functions.len(),
    };
    if known {
        write_name(out, '@', module.symbol_name(global));
    } else {
        let _ = write!(out, "@<unknown global {global:?}>");
    }
}

/// Appends a constant expression: `getelementptr inbounds (T, ptr @g, i64 1)`
/// or `ptrtoint (ptr @g to i64)`.
fn write_const_expr(out: &mut String, module: &Module, expr: &ConstExpr) {
    match expr {
        ConstExpr::Gep {
            flags,
            source,
            base,
            indices,
        } => {
            out.push_str("getelementptr ");
            write_gep_flags(out, *flags);
            out.push('(');
            write_type(out, module, source);
            out.push_str(", ");
            write_typed_constant(out, module, base);
            for index in indices {
                out.push_str(", ");
                write_typed_constant(out, module, index);
            }
            out.push(')');
        }
        ConstExpr::Binary {
            op,
            flags,
            lhs,
            rhs,
        } => {
            out.push_str(op.name());
            if flags.nuw {
                out.push_str(" nuw");
            }
            if flags.nsw {
                out.push_str(" nsw");
            }
            out.push_str(" (");
            write_typed_constant(out, module, lhs);
            out.push_str(", ");
            write_typed_constant(out, module, rhs);
            out.push(')');
        }
        ConstExpr::Cast { op, value, to } => {
            out.push_str(op.name());
            out.push_str(" (");
            write_typed_constant(out, module, value);
            out.push_str(" to ");
            write_type(out, module, to);
            out.push(')');
        }
    }
}

/// Appends the GEP flags, each followed by a space (`inbounds nuw `).
pub fn write_gep_flags(out: &mut String, flags: crate::ir::GepFlags) {
    if flags.inbounds {
        out.push_str("inbounds ");
    } else if flags.nusw {
        out.push_str("nusw ");
    }
    if flags.nuw {
        out.push_str("nuw ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_only_when_needed() {
        let mut out = String::new();
        write_name(&mut out, '%', "struct.node");
        out.push(' ');
        write_name(&mut out, '@', "has space");
        out.push(' ');
        write_name(&mut out, '%', "1st");
        assert_eq!(out, r#"%struct.node @"has space" %"1st""#);
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_control_bytes() {
        let mut out = String::new();
        write_quoted(&mut out, b"a\"b\\c\n\0");
        assert_eq!(out, r#""a\22b\5Cc\0A\00""#);
    }

    #[test]
    fn types_and_constants_spell_like_llvm() {
        let module = Module::default();
        let mut out = String::new();
        let ty = Type::Struct {
            fields: vec![
                Type::I32,
                Type::Array {
                    len: 4,
                    elem: Box::new(Type::Ptr),
                },
            ],
            packed: true,
        };
        write_type(&mut out, &module, &ty);
        out.push_str(" | ");
        write_typed_constant(&mut out, &module, &Constant::int(1, 1));
        out.push_str(" | ");
        write_typed_constant(&mut out, &module, &Constant::int(8, 255));
        out.push_str(" | ");
        write_typed_constant(&mut out, &module, &Constant::Bytes(b"hi\0".to_vec()));
        assert_eq!(
            out,
            r#"<{ i32, [4 x ptr] }> | i1 true | i8 -1 | [3 x i8] c"hi\00""#
        );
    }
}
