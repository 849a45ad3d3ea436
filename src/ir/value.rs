//! Operands: what an instruction can read.
//!
//! In: nothing (plain data). Out: [`Value`] (argument, instruction result or
//! constant) and [`Constant`] (integers of any width, null, undef, poison,
//! aggregates, strings, global addresses, constant expressions). Promise:
//! every value's type can be recovered without the text it came from:
//! see [`crate::ir::Function::value_type`] and [`Constant::ty`].

use super::types::Type;

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
            Constant::Null | Constant::Global(_) => Type::Ptr,
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
