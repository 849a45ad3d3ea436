//! IR types: what a value is, as LLVM's type system says it.
//!
//! In: nothing (plain data). Out: [`Type`], [`FunctionType`], named struct
//! definitions ([`StructDef`]). Promise: pointers are always opaque
//! ([`Type::Ptr`]); typed pointers of older LLVM (`i32*`, `%struct.node**`)
//! are normalised to `ptr` by the parser, so every consumer sees one form.
//! Sizes and alignments live in [`crate::ir::layout`].

/// Index of a named struct type in [`crate::ir::Module::structs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StructId(pub u32);

/// A first-class or structural IR type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void`: the type of an instruction that yields nothing.
    Void,
    /// `iN` for any N from 1 up.
    Int(u32),
    /// A floating-point type (`half`, `float`, `double`, `x86_fp80`...).
    Float(FloatKind),
    /// `<len x elem>`: a fixed-length vector of integers, floats or pointers.
    Vector {
        /// Number of lanes (at least 1).
        len: u32,
        /// Lane type.
        elem: Box<Type>,
    },
    /// `ptr` (address space 0; typed pointers are normalised to this).
    Ptr,
    /// `[len x elem]`.
    Array {
        /// Number of elements.
        len: u64,
        /// Element type.
        elem: Box<Type>,
    },
    /// A named struct (`%struct.node`), defined in the module's struct table.
    Named(StructId),
    /// A literal struct `{ i32, ptr }` or packed `<{ i8, i32 }>`.
    Struct {
        /// Field types in order.
        fields: Vec<Type>,
        /// Whether the struct is packed (no padding, alignment 1).
        packed: bool,
    },
    /// A function type, as a call or declaration names it.
    Function(Box<FunctionType>),
    /// `label`: the type of a basic block operand.
    Label,
    /// `metadata`: the type of a metadata operand (intrinsic parameters).
    Metadata,
}

impl Type {
    /// `i1`, the type of comparisons and branch conditions.
    pub const I1: Type = Type::Int(1);
    /// `i8`.
    pub const I8: Type = Type::Int(8);
    /// `i32`.
    pub const I32: Type = Type::Int(32);
    /// `i64`.
    pub const I64: Type = Type::Int(64);

    /// The bit width if this is an integer type.
    pub fn int_bits(&self) -> Option<u32> {
        match self {
            Type::Int(bits) => Some(*bits),
            _ => None,
        }
    }

    /// Whether this is `void`.
    pub fn is_void(&self) -> bool {
        matches!(self, Type::Void)
    }

    /// Whether this is `ptr`.
    pub fn is_ptr(&self) -> bool {
        matches!(self, Type::Ptr)
    }

    /// `float`.
    pub const F32: Type = Type::Float(FloatKind::Float);
    /// `double`.
    pub const F64: Type = Type::Float(FloatKind::Double);

    /// The floating-point kind if this is a floating-point type.
    pub fn float_kind(&self) -> Option<FloatKind> {
        match self {
            Type::Float(kind) => Some(*kind),
            _ => None,
        }
    }

    /// The lane type of a vector, or the type itself for a scalar.
    pub fn scalar(&self) -> &Type {
        match self {
            Type::Vector { elem, .. } => elem,
            other => other,
        }
    }

    /// The number of lanes if this is a vector type.
    pub fn vector_len(&self) -> Option<u32> {
        match self {
            Type::Vector { len, .. } => Some(*len),
            _ => None,
        }
    }

    /// `ty` with the lane count of `self` when `self` is a vector (`icmp` on
    /// `<4 x i32>` yields `<4 x i1>`), else `ty` itself.
    pub fn with_lanes_of(&self, ty: Type) -> Type {
        match self {
            Type::Vector { len, .. } => Type::Vector {
                len: *len,
                elem: Box::new(ty),
            },
            _ => ty,
        }
    }

    /// Whether this is an integer type or a vector of integers.
    pub fn is_int_or_int_vector(&self) -> bool {
        matches!(self.scalar(), Type::Int(_))
    }

    /// Whether this is a floating-point type or a vector of them.
    pub fn is_fp_or_fp_vector(&self) -> bool {
        matches!(self.scalar(), Type::Float(_))
    }
}

/// The floating-point formats LLVM IR names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// `half`: IEEE binary16.
    Half,
    /// `bfloat`: brain float (8-bit exponent, 7-bit mantissa).
    BFloat,
    /// `float`: IEEE binary32.
    Float,
    /// `double`: IEEE binary64.
    Double,
    /// `x86_fp80`: the x87 80-bit extended format (`long double`).
    X86Fp80,
    /// `fp128`: IEEE binary128.
    Fp128,
}

impl FloatKind {
    /// The type's name in .ll text.
    pub fn name(self) -> &'static str {
        match self {
            FloatKind::Half => "half",
            FloatKind::BFloat => "bfloat",
            FloatKind::Float => "float",
            FloatKind::Double => "double",
            FloatKind::X86Fp80 => "x86_fp80",
            FloatKind::Fp128 => "fp128",
        }
    }

    /// The kind for a .ll type name.
    pub fn from_name(name: &str) -> Option<FloatKind> {
        Some(match name {
            "half" => FloatKind::Half,
            "bfloat" => FloatKind::BFloat,
            "float" => FloatKind::Float,
            "double" => FloatKind::Double,
            "x86_fp80" => FloatKind::X86Fp80,
            "fp128" => FloatKind::Fp128,
            _ => return None,
        })
    }

    /// The number of bits the value occupies (80 for `x86_fp80`).
    pub fn bits(self) -> u32 {
        match self {
            FloatKind::Half | FloatKind::BFloat => 16,
            FloatKind::Float => 32,
            FloatKind::Double => 64,
            FloatKind::X86Fp80 => 80,
            FloatKind::Fp128 => 128,
        }
    }
}

/// The signature of a function: return type, parameter types, varargs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FunctionType {
    /// The return type (`Type::Void` for none).
    pub ret: Type,
    /// Parameter types in order.
    pub params: Vec<Type>,
    /// Whether the function takes `...` after its fixed parameters.
    pub varargs: bool,
}

/// A named struct type: `%struct.node = type { i32, ptr }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    /// The name without the leading `%` (e.g. `struct.node`).
    pub name: String,
    /// The field types; `None` for an opaque struct (`type opaque`).
    pub fields: Option<Vec<Type>>,
    /// Whether the struct is packed (`<{ ... }>`).
    pub packed: bool,
}
