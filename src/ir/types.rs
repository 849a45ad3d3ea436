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
