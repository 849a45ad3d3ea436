//! The C types generated functions are written in, and their debug-info and TBAA metadata.
//!
//! In: a C scalar or pointer type. Out: its IR type, its `!DIBasicType` /
//! `!DIDerivedType` node and its TBAA access tag, shaped as clang-19 prints
//! them (signed and unsigned variants share a TBAA type, chars alias all).

use super::body::Ty;
use super::meta::{Md, MetadataTable};

/// A C integer type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scalar {
    /// `char` (signed on x86-64)
    Char,
    /// `unsigned char`
    UChar,
    /// `short`
    Short,
    /// `unsigned short`
    UShort,
    /// `int`
    Int,
    /// `unsigned int`
    UInt,
    /// `long`
    Long,
    /// `unsigned long`
    ULong,
}

impl Scalar {
    /// Every scalar type, for random choice.
    pub const ALL: [Scalar; 8] = [
        Scalar::Char,
        Scalar::UChar,
        Scalar::Short,
        Scalar::UShort,
        Scalar::Int,
        Scalar::UInt,
        Scalar::Long,
        Scalar::ULong,
    ];

    /// The IR integer type of this C type.
    pub fn ty(self) -> Ty {
        match self {
            Scalar::Char | Scalar::UChar => Ty::I8,
            Scalar::Short | Scalar::UShort => Ty::I16,
            Scalar::Int | Scalar::UInt => Ty::I32,
            Scalar::Long | Scalar::ULong => Ty::I64,
        }
    }

    /// Whether the type is signed (decides sext/zext, sdiv/udiv, signext/zeroext).
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Scalar::Char | Scalar::Short | Scalar::Int | Scalar::Long
        )
    }

    /// The type of the same width and the given signedness.
    pub fn with_sign(self, signed: bool) -> Scalar {
        match (self.ty(), signed) {
            (Ty::I8, true) => Scalar::Char,
            (Ty::I8, false) => Scalar::UChar,
            (Ty::I16, true) => Scalar::Short,
            (Ty::I16, false) => Scalar::UShort,
            (Ty::I32, true) => Scalar::Int,
            (Ty::I32, false) => Scalar::UInt,
            (_, true) => Scalar::Long,
            (_, false) => Scalar::ULong,
        }
    }

    /// The C spelling, as DWARF names the base type.
    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::Char => "char",
            Scalar::UChar => "unsigned char",
            Scalar::Short => "short",
            Scalar::UShort => "unsigned short",
            Scalar::Int => "int",
            Scalar::UInt => "unsigned int",
            Scalar::Long => "long",
            Scalar::ULong => "unsigned long",
        }
    }

    /// Size in bytes, which is also the alignment clang gives loads and stores.
    pub fn bytes(self) -> i64 {
        i64::from(self.ty().bits() / 8)
    }

    /// The parameter/return attribute clang adds for narrow integers.
    pub fn extension_attr(self) -> &'static str {
        match (self.ty(), self.is_signed()) {
            (Ty::I8 | Ty::I16, true) => "signext ",
            (Ty::I8 | Ty::I16, false) => "zeroext ",
            _ => "",
        }
    }

    fn encoding(self) -> &'static str {
        match self {
            Scalar::Char => "DW_ATE_signed_char",
            Scalar::UChar => "DW_ATE_unsigned_char",
            _ if self.is_signed() => "DW_ATE_signed",
            _ => "DW_ATE_unsigned",
        }
    }

    fn tbaa_name(self) -> &'static str {
        match self.ty() {
            Ty::I8 => "omnipotent char",
            Ty::I16 => "short",
            Ty::I32 => "int",
            _ => "long",
        }
    }
}

/// A C type of a parameter or variable: an integer or a pointer to one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CType {
    /// An integer.
    Scalar(Scalar),
    /// A pointer to an integer (the generated code indexes it as an array).
    Ptr(Scalar),
}

impl CType {
    /// The IR type.
    pub fn ty(self) -> Ty {
        match self {
            CType::Scalar(scalar) => scalar.ty(),
            CType::Ptr(_) => Ty::Ptr,
        }
    }
}

/// The `!DIBasicType` or pointer `!DIDerivedType` node of `ctype`.
pub fn di_type(md: &mut MetadataTable, ctype: CType) -> Md {
    match ctype {
        CType::Scalar(scalar) => md.intern(format!(
            "!DIBasicType(name: \"{}\", size: {}, encoding: {})",
            scalar.c_name(),
            scalar.ty().bits(),
            scalar.encoding()
        )),
        CType::Ptr(pointee) => {
            let base = di_type(md, CType::Scalar(pointee));
            md.intern(format!(
                "!DIDerivedType(tag: DW_TAG_pointer_type, baseType: {base}, size: 64)"
            ))
        }
    }
}

/// The TBAA access tag (`!tbaa !N`) for a load or store of `scalar`.
pub fn tbaa_tag(md: &mut MetadataTable, scalar: Scalar) -> Md {
    let root = md.intern("!{!\"Simple C/C++ TBAA\"}".to_string());
    let char_node = md.intern(format!("!{{!\"omnipotent char\", {root}, i64 0}}"));
    let type_node = if scalar.ty() == Ty::I8 {
        char_node
    } else {
        md.intern(format!(
            "!{{!\"{}\", {char_node}, i64 0}}",
            scalar.tbaa_name()
        ))
    };
    md.intern(format!("!{{{type_node}, {type_node}, i64 0}}"))
}
