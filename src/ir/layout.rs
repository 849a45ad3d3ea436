//! Sizes, alignments and offsets of IR types on x86-64.
//!
//! In: a [`Type`] and the module's named structs. Out: byte sizes,
//! alignments, struct field offsets and GEP offsets. Promise: the numbers
//! follow the x86-64 System V data layout clang-19 writes
//! (`e-m:e-...-i64:64-i128:128-f80:128-n8:16:32:64-S128`): `iN` is aligned
//! like the next power-of-two width up to 16 bytes (up to 8 when the
//! module's datalayout lacks `i128:128`, as clang-14's does), pointers are 8 bytes,
//! structs pad each field to its alignment and their size to the largest
//! field alignment (packed structs have alignment 1 and no padding).

use super::module::Module;
use super::types::{FloatKind, Type};
use super::value::Value;

/// The ABI alignment of a floating-point type (`f80:128`: `x86_fp80` is
/// 16-aligned and occupies 16 bytes, of which a store writes 10).
fn float_align(kind: FloatKind) -> u64 {
    match kind {
        FloatKind::Half | FloatKind::BFloat => 2,
        FloatKind::Float => 4,
        FloatKind::Double => 8,
        FloatKind::X86Fp80 | FloatKind::Fp128 => 16,
    }
}

/// One step of a GEP's address computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GepStep {
    /// Add the index operand at this position times `stride` bytes.
    Scaled {
        /// Position of the index in the GEP's index list.
        index: usize,
        /// Bytes per unit of the index.
        stride: u64,
    },
    /// Add a constant number of bytes (a struct field offset).
    Offset(u64),
}

impl Module {
    /// The ABI alignment of a type, in bytes (1 for types without storage).
    pub fn align_of(&self, ty: &Type) -> u64 {
        match ty {
            Type::Int(bits) => self.int_align(*bits),
            Type::Float(kind) => float_align(*kind),
            Type::Vector { .. } => self.store_size(ty).next_power_of_two().max(1),
            Type::Ptr => 8,
            Type::Array { elem, .. } => self.align_of(elem),
            Type::Named(id) => match &self.structs[id.0 as usize] {
                def if def.packed => 1,
                def => def
                    .fields
                    .iter()
                    .flatten()
                    .map(|f| self.align_of(f))
                    .max()
                    .unwrap_or(1),
            },
            Type::Struct { fields, packed } => {
                if *packed {
                    1
                } else {
                    fields.iter().map(|f| self.align_of(f)).max().unwrap_or(1)
                }
            }
            Type::Void | Type::Function(_) | Type::Label | Type::Metadata => 1,
        }
    }

    /// The number of bytes a store of the type writes (`i1` → 1, `i24` → 3).
    pub fn store_size(&self, ty: &Type) -> u64 {
        match ty {
            Type::Int(bits) => u64::from(*bits).div_ceil(8),
            Type::Float(kind) => u64::from(kind.bits()).div_ceil(8),
            Type::Vector { len, elem } => (u64::from(*len) * self.lane_bits(elem)).div_ceil(8),
            _ => self.size_of(ty),
        }
    }

    /// The allocation size of a type in bytes: the distance between
    /// consecutive array elements (store size rounded up to the alignment).
    pub fn size_of(&self, ty: &Type) -> u64 {
        match ty {
            Type::Int(bits) => round_up(u64::from(*bits).div_ceil(8), self.int_align(*bits)),
            Type::Float(kind) => round_up(u64::from(kind.bits()).div_ceil(8), float_align(*kind)),
            Type::Vector { .. } => round_up(self.store_size(ty), self.align_of(ty)),
            Type::Ptr => 8,
            Type::Array { len, elem } => len.saturating_mul(self.size_of(elem)),
            Type::Named(id) => {
                let def = &self.structs[id.0 as usize];
                match &def.fields {
                    Some(fields) => self.struct_layout(fields, def.packed).0,
                    None => 0,
                }
            }
            Type::Struct { fields, packed } => self.struct_layout(fields, *packed).0,
            Type::Void | Type::Function(_) | Type::Label | Type::Metadata => 0,
        }
    }

    /// The field types and packedness of a struct type (named or literal).
    pub fn struct_fields<'a>(&'a self, ty: &'a Type) -> Option<(&'a [Type], bool)> {
        match ty {
            Type::Named(id) => {
                let def = &self.structs[id.0 as usize];
                def.fields.as_deref().map(|f| (f, def.packed))
            }
            Type::Struct { fields, packed } => Some((fields, *packed)),
            _ => None,
        }
    }

    /// The byte offset of field `index` of a struct type.
    pub fn field_offset(&self, ty: &Type, index: usize) -> Option<u64> {
        let (fields, packed) = self.struct_fields(ty)?;
        if index >= fields.len() {
            return None;
        }
        Some(self.struct_layout(fields, packed).1[index])
    }

    /// How a GEP with this source type and these indices computes its
    /// address: one step per index. `None` if a struct is indexed by a
    /// non-constant or out-of-range index, or a non-aggregate is indexed.
    pub fn gep_steps(&self, source: &Type, indices: &[Value]) -> Option<Vec<GepStep>> {
        let mut steps = Vec::with_capacity(indices.len());
        let mut current = source.clone();
        for (position, index) in indices.iter().enumerate() {
            if position == 0 {
                steps.push(GepStep::Scaled {
                    index: 0,
                    stride: self.size_of(&current),
                });
                continue;
            }
            current = match current {
                Type::Array { elem, .. } | Type::Vector { elem, .. } => {
                    steps.push(GepStep::Scaled {
                        index: position,
                        stride: self.size_of(&elem),
                    });
                    *elem
                }
                Type::Named(_) | Type::Struct { .. } => {
                    let field = index.as_const()?.sext_value()?;
                    let field = usize::try_from(field).ok()?;
                    steps.push(GepStep::Offset(self.field_offset(&current, field)?));
                    self.struct_fields(&current)?.0[field].clone()
                }
                _ => return None,
            };
        }
        Some(steps)
    }

    /// The constant byte offset of a GEP whose indices are all constants.
    pub fn gep_const_offset(&self, source: &Type, indices: &[Value]) -> Option<i64> {
        let mut offset: i64 = 0;
        for step in self.gep_steps(source, indices)? {
            let delta = match step {
                GepStep::Offset(bytes) => bytes as i64,
                GepStep::Scaled { index, stride } => {
                    let n = indices[index].as_const()?.sext_value()?;
                    i64::try_from(n).ok()?.wrapping_mul(stride as i64)
                }
            };
            offset = offset.wrapping_add(delta);
        }
        Some(offset)
    }

    /// Alignment of `iN`: the byte size rounded up to a power of two, at
    /// most 16, or at most 8 if the datalayout does not align `i128` to 16.
    /// The bits one lane of a vector occupies (lanes are packed without padding).
    fn lane_bits(&self, elem: &Type) -> u64 {
        match elem {
            Type::Int(bits) => u64::from(*bits),
            Type::Float(kind) => u64::from(kind.bits()),
            other => self.size_of(other) * 8,
        }
    }

    fn int_align(&self, bits: u32) -> u64 {
        let bytes = u64::from(bits).div_ceil(8).max(1);
        let largest = match &self.datalayout {
            Some(layout) if !layout.contains("i128:128") => 8,
            _ => 16,
        };
        bytes.next_power_of_two().min(largest)
    }

    /// Size and field offsets of a struct with these fields.
    fn struct_layout(&self, fields: &[Type], packed: bool) -> (u64, Vec<u64>) {
        let mut offsets = Vec::with_capacity(fields.len());
        let mut size = 0u64;
        let mut max_align = 1u64;
        for field in fields {
            let align = if packed { 1 } else { self.align_of(field) };
            max_align = max_align.max(align);
            size = round_up(size, align);
            offsets.push(size);
            size = size.saturating_add(self.size_of(field));
        }
        (round_up(size, max_align), offsets)
    }
}

/// Rounds `value` up to a multiple of `align` (a power of two, or 1).
fn round_up(value: u64, align: u64) -> u64 {
    value.div_ceil(align.max(1)).saturating_mul(align.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::types::{StructDef, StructId};

    fn module_with_node() -> Module {
        let mut module = Module::default();
        module.structs.push(StructDef {
            name: "struct.node".into(),
            fields: Some(vec![Type::I32, Type::Ptr]),
            packed: false,
        });
        module
    }

    #[test]
    fn scalar_sizes_and_alignments() {
        let m = Module::default();
        let cases = [
            (1, 1, 1),
            (8, 1, 1),
            (16, 2, 2),
            (24, 4, 4),
            (32, 4, 4),
            (64, 8, 8),
        ];
        for (bits, size, align) in cases {
            assert_eq!(m.size_of(&Type::Int(bits)), size, "size of i{bits}");
            assert_eq!(m.align_of(&Type::Int(bits)), align, "align of i{bits}");
        }
        assert_eq!(m.size_of(&Type::Int(128)), 16);
        assert_eq!(m.align_of(&Type::Int(128)), 16);
        let clang14 = Module {
            datalayout: Some(
                "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128".into(),
            ),
            ..Module::default()
        };
        assert_eq!(clang14.align_of(&Type::Int(128)), 8);
        let wide = Type::Struct {
            fields: vec![Type::I8, Type::Int(128)],
            packed: false,
        };
        assert_eq!((m.size_of(&wide), clang14.size_of(&wide)), (32, 24));
        assert_eq!(m.store_size(&Type::Int(24)), 3);
        assert_eq!(m.size_of(&Type::Ptr), 8);
    }

    #[test]
    fn struct_padding_and_field_offsets() {
        let m = module_with_node();
        let node = Type::Named(StructId(0));
        assert_eq!(m.size_of(&node), 16);
        assert_eq!(m.align_of(&node), 8);
        assert_eq!(m.field_offset(&node, 1), Some(8));
        let packed = Type::Struct {
            fields: vec![Type::I8, Type::I32],
            packed: true,
        };
        assert_eq!(m.size_of(&packed), 5);
        assert_eq!(m.field_offset(&packed, 1), Some(1));
    }

    #[test]
    fn gep_offsets_through_arrays_and_structs() {
        let m = module_with_node();
        let arr = Type::Array {
            len: 4,
            elem: Box::new(Type::Named(StructId(0))),
        };
        let indices = [Value::int(64, 1), Value::int(64, 2), Value::int(32, 1)];
        // One whole array (64) + two elements (32) + field 1 (8).
        assert_eq!(m.gep_const_offset(&arr, &indices), Some(104));
        let variable = [Value::Arg(0), Value::int(32, 1)];
        assert_eq!(
            m.gep_steps(&Type::Named(StructId(0)), &variable),
            Some(vec![
                GepStep::Scaled {
                    index: 0,
                    stride: 16
                },
                GepStep::Offset(8)
            ])
        );
        assert_eq!(
            m.gep_const_offset(&Type::I32, &[Value::int(64, -3)]),
            Some(-12)
        );
    }
}
