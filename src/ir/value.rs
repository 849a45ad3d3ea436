//! Operands: what an instruction can read.
//!
//! In: nothing (plain data). Out: [`Value`] (argument, instruction result or
//! constant) and [`Constant`] (integers of any width, null, undef, poison,
//! aggregates, strings, global addresses, constant expressions). Promise:
//! every value's type can be recovered without the text it came from:
//! see [`crate::ir::Function::value_type`] and [`Constant::ty`].

use super::inst::{ArithFlags, BinOp};
use super::types::{FloatKind, Type};

/// Index of an instruction in its function's arena ([`crate::ir::Function::insts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

/// Index of a basic block in its function ([`crate::ir::Function::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// Index of a global variable in [`crate::ir::Module::globals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// Index of a function in [`crate::ir::Module::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A module-level symbol whose address is a constant: `@name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlobalRef {
    /// A global variable.
    Var(GlobalId),
    /// A function (definition or declaration).
    Func(FuncId),
}

/// Something an instruction reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The function's N-th parameter (0-based).
    Arg(u32),
    /// The result of an instruction of the same function.
    Inst(InstId),
    /// A constant.
    Const(Constant),
}

impl Value {
    /// An integer constant of `bits` bits holding `value` (sign-extended).
    pub fn int(bits: u32, value: i128) -> Value {
        Value::Const(Constant::int(bits, value))
    }

    /// The instruction this value is the result of, if any.
    pub fn as_inst(&self) -> Option<InstId> {
        match self {
            Value::Inst(id) => Some(*id),
            _ => None,
        }
    }

    /// The constant, if this value is one.
    pub fn as_const(&self) -> Option<&Constant> {
        match self {
            Value::Const(c) => Some(c),
            _ => None,
        }
    }

    /// Whether this is `undef` or `poison` (an unavailable debug location).
    pub fn is_undef_or_poison(&self) -> bool {
        matches!(
            self,
            Value::Const(Constant::Undef(_)) | Value::Const(Constant::Poison(_))
        )
    }
}

/// A constant operand or initializer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Constant {
    /// `iN value`: `value` holds the bits sign-extended from `bits` (so
    /// `i8 255` is stored as -1 and `i1 true` as -1). Use
    /// [`Constant::zext_value`] for the unsigned reading.
    Int {
        /// The width N of `iN`.
        bits: u32,
        /// The value, sign-extended from `bits` to 128 bits.
        value: i128,
    },
    /// A floating-point constant, kept as the exact bits of its format
    /// (binary32 bits for `float`, binary64 for `double`, the 80 bits of
    /// `x86_fp80` with the sign and exponent on top, 16 bits for `half`):
    /// never rounded through a host float.
    Float {
        /// The format.
        kind: FloatKind,
        /// The value's bits in that format, zero-extended.
        bits: u128,
    },
    /// `<ty v, ...>`: a vector constant (a `splat (ty v)` is read as the
    /// value repeated).
    Vector {
        /// Lane type.
        elem: Type,
        /// Lanes (at least one).
        elems: Vec<Constant>,
    },
    /// `blockaddress(@f, %bb)`: the address of a basic block (type `ptr`).
    BlockAddress {
        /// The function holding the block.
        func: FuncId,
        /// The block.
        block: BlockId,
    },
    /// `asm [sideeffect] [alignstack] [inteldialect] [unwind] "template",
    /// "constraints"`: inline assembly, as the callee of a call (type `ptr`).
    InlineAsm(Box<InlineAsm>),
    /// `null` (type `ptr`).
    Null,
    /// `undef` of the given type.
    Undef(Type),
    /// `poison` of the given type.
    Poison(Type),
    /// `zeroinitializer` of the given type.
    Zero(Type),
    /// `[ty v, ...]`: an array of the given element type.
    Array {
        /// Element type.
        elem: Type,
        /// Elements.
        elems: Vec<Constant>,
    },
    /// `c"bytes"`: an `[N x i8]` array written as a string.
    Bytes(Vec<u8>),
    /// `{ ty v, ... }` or `%struct.name { ... }`: a struct constant.
    Struct {
        /// The struct's type (named or literal).
        ty: Type,
        /// Field values in order.
        fields: Vec<Constant>,
    },
    /// `@name`: the address of a global variable or function (type `ptr`).
    Global(GlobalRef),
    /// A constant expression (`getelementptr (...)`, casts).
    Expr(Box<ConstExpr>),
}

impl Constant {
    /// An integer constant of `bits` bits, normalised (sign-extended from `bits`).
    pub fn int(bits: u32, value: i128) -> Constant {
        Constant::Int {
            bits,
            value: sign_extend(value, bits),
        }
    }

    /// The unsigned value of an integer constant (its low `bits` bits).
    pub fn zext_value(&self) -> Option<u128> {
        match self {
            Constant::Int { bits, value } => Some(zero_extend(*value, *bits)),
            _ => None,
        }
    }

    /// The signed value of an integer constant.
    pub fn sext_value(&self) -> Option<i128> {
        match self {
            Constant::Int { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// The constant's type.
    pub fn ty(&self) -> Type {
        match self {
            Constant::Int { bits, .. } => Type::Int(*bits),
            Constant::Null
            | Constant::Global(_)
            | Constant::BlockAddress { .. }
            | Constant::InlineAsm(_) => Type::Ptr,
            Constant::Float { kind, .. } => Type::Float(*kind),
            Constant::Vector { elem, elems } => Type::Vector {
                len: elems.len() as u32,
                elem: Box::new(elem.clone()),
            },
            Constant::Undef(ty) | Constant::Poison(ty) | Constant::Zero(ty) => ty.clone(),
            Constant::Array { elem, elems } => Type::Array {
                len: elems.len() as u64,
                elem: Box::new(elem.clone()),
            },
            Constant::Bytes(bytes) => Type::Array {
                len: bytes.len() as u64,
                elem: Box::new(Type::I8),
            },
            Constant::Struct { ty, .. } => ty.clone(),
            Constant::Expr(expr) => expr.ty(),
        }
    }
}

/// An inline assembly callee.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InlineAsm {
    /// The template, decoded (`\XX` escapes resolved).
    pub template: Vec<u8>,
    /// The constraint string, decoded.
    pub constraints: Vec<u8>,
    /// `sideeffect`.
    pub side_effect: bool,
    /// `alignstack`.
    pub align_stack: bool,
    /// `inteldialect` (Intel syntax; AT&T otherwise).
    pub intel_dialect: bool,
    /// `unwind`.
    pub unwind: bool,
}

/// Sign-extends the low `bits` bits of `value` to 128 bits.
pub fn sign_extend(value: i128, bits: u32) -> i128 {
    if bits == 0 || bits >= 128 {
        return value;
    }
    let shift = 128 - bits;
    (value << shift) >> shift
}

/// The low `bits` bits of `value`, as an unsigned number.
pub fn zero_extend(value: i128, bits: u32) -> u128 {
    if bits >= 128 {
        return value as u128;
    }
    (value as u128) & ((1u128 << bits) - 1)
}

/// A constant expression, as clang prints them in initializers and operands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstExpr {
    /// `getelementptr [inbounds] (source, ptr base, indices...)`.
    Gep {
        /// GEP flags (`inbounds`, `nuw`, `nusw`).
        flags: GepFlags,
        /// The source element type the indices step through.
        source: Type,
        /// The base address.
        base: Constant,
        /// The indices (integer constants).
        indices: Vec<Constant>,
    },
    /// An integer operation on constants: `sub (i64 ptrtoint (...), i64 ...)`.
    Binary {
        /// The operation (LLVM 19 keeps add, sub, mul, xor, shl; older
        /// versions printed the others too).
        op: BinOp,
        /// `nuw`, `nsw`.
        flags: ArithFlags,
        /// Left operand.
        lhs: Constant,
        /// Right operand.
        rhs: Constant,
    },
    /// A cast such as `ptrtoint (ptr @g to i64)`.
    Cast {
        /// Which cast.
        op: super::inst::CastOp,
        /// The operand.
        value: Constant,
        /// The result type.
        to: Type,
    },
}

impl ConstExpr {
    /// The result type of the expression.
    pub fn ty(&self) -> Type {
        match self {
            ConstExpr::Gep { .. } => Type::Ptr,
            ConstExpr::Cast { to, .. } => to.clone(),
            ConstExpr::Binary { lhs, .. } => lhs.ty(),
        }
    }
}

/// The flags a `getelementptr` may carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GepFlags {
    /// `inbounds`.
    pub inbounds: bool,
    /// `nusw` (implied by `inbounds` in the text; kept only when written alone).
    pub nusw: bool,
    /// `nuw`.
    pub nuw: bool,
}

/// The binary64 bits of a binary32 value, exactly (NaN payloads and
/// signalling NaNs kept, as LLVM prints a `float` in double form).
pub fn f32_bits_to_f64_bits(bits: u32) -> u64 {
    let sign = u64::from(bits >> 31) << 63;
    let exp = (bits >> 23) & 0xff;
    let mantissa = u64::from(bits & 0x7f_ffff);
    match exp {
        0xff => sign | (0x7ff << 52) | (mantissa << 29),
        _ => (f64::from(f32::from_bits(bits))).to_bits() | sign,
    }
}

/// The binary32 bits of a binary64 value if it converts exactly (a NaN
/// whose payload fits, or a value a `float` holds), else `None`.
pub fn f64_bits_to_f32_bits(bits: u64) -> Option<u32> {
    let value = f64::from_bits(bits);
    if value.is_nan() {
        let mantissa = bits & ((1 << 52) - 1);
        if mantissa & ((1 << 29) - 1) != 0 {
            return None;
        }
        let sign = ((bits >> 63) as u32) << 31;
        return Some(sign | (0xff << 23) | (mantissa >> 29) as u32);
    }
    let narrow = value as f32;
    (f64::from(narrow).to_bits() == bits).then(|| narrow.to_bits())
}
