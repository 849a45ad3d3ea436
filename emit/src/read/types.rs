//! Type DIEs back into the model's [`Type`] table.
//!
//! In: a unit's [`DieTree`].
//! Out: a [`TypeTable`]: the types, and the [`TypeId`] of each type DIE.
//!
//! Promises: every type DIE the model can describe gets one id, in DIE
//! order, wherever it sits in the tree, except the base types compilers
//! make for DWARF itself (`DW_ATE_signed_32` for typed operations,
//! `__ARRAY_SIZE_TYPE__` for array indices), which are no source types.
//! Qualifiers the model lacks
//! (`DW_TAG_atomic_type`, `immutable`, `packed`, `shared`) are seen through:
//! a reference to one is a reference to what it qualifies. A class's
//! DW_TAG_inheritance children become its bases, its DW_TAG_variable
//! children its static members. A DW_TAG_namespace is read as a
//! [`Type::Namespace`], and a type inside one or inside a class has it as
//! its scope. A required type that is missing (a member or
//! element with no `DW_AT_type`) refers to an added `void` base type.

use std::collections::HashMap;

use gimli::{AttributeValue, Dwarf, Unit};

use super::dwarf::{DieTree, Slice};
use super::line::string;
use crate::model::{
    Access, Aggregate, Base, BitField, ConstantValue, Member, PassedBy, Type, TypeId, VectorShape,
};

/// The unit's types and where each came from.
pub(crate) struct TypeTable {
    /// The types, by [`TypeId`].
    pub types: Vec<Type>,
    ids: HashMap<usize, TypeId>,
}

impl TypeTable {
    /// The type a DIE is, if it is one.
    pub fn id_of(&self, die: usize) -> Option<TypeId> {
        self.ids.get(&die).copied()
    }

    /// The type a `DW_AT_type` value names (`None`: void or unknown).
    pub fn reference(
        &self,
        tree: &DieTree<'_>,
        value: Option<AttributeValue<Slice<'_>>>,
    ) -> Option<TypeId> {
        let mut die = tree.reference(value?)?;
        for _ in 0..16 {
            if let Some(&id) = self.ids.get(&die) {
                return Some(id);
            }
            if !is_transparent(tree.tag(die)) {
                return None;
            }
            die = tree.reference(tree.attr(die, gimli::DW_AT_type)?)?;
        }
        None
    }
}

fn is_model_type(tag: gimli::DwTag) -> bool {
    matches!(
        tag,
        gimli::DW_TAG_base_type
            | gimli::DW_TAG_pointer_type
            | gimli::DW_TAG_reference_type
            | gimli::DW_TAG_rvalue_reference_type
            | gimli::DW_TAG_const_type
            | gimli::DW_TAG_volatile_type
            | gimli::DW_TAG_restrict_type
            | gimli::DW_TAG_typedef
            | gimli::DW_TAG_structure_type
            | gimli::DW_TAG_union_type
            | gimli::DW_TAG_class_type
            | gimli::DW_TAG_array_type
            | gimli::DW_TAG_enumeration_type
            | gimli::DW_TAG_subroutine_type
            | gimli::DW_TAG_unspecified_type
            | gimli::DW_TAG_ptr_to_member_type
            | gimli::DW_TAG_namespace
    )
}

/// Whether `die` is a base type a compiler makes for DWARF's own needs
/// rather than for a source type: LLVM and dwarfsmith name the base types
/// of typed expression operations `DW_ATE_<encoding>_<bits>` and the index
/// type of array subranges `__ARRAY_SIZE_TYPE__`.
fn is_made_for_dwarf(
    dwarf: &Dwarf<Slice<'_>>,
    unit: &Unit<Slice<'_>>,
    tree: &DieTree<'_>,
    die: usize,
) -> gimli::Result<bool> {
    if tree.tag(die) != gimli::DW_TAG_base_type {
        return Ok(false);
    }
    let Some(name) = tree.attr(die, gimli::DW_AT_name) else {
        return Ok(false);
    };
    let name = string(dwarf, unit, name)?;
    Ok(name.starts_with("DW_ATE_") || name == "__ARRAY_SIZE_TYPE__")
}

fn is_transparent(tag: gimli::DwTag) -> bool {
    matches!(
        tag,
        gimli::DW_TAG_atomic_type
            | gimli::DW_TAG_immutable_type
            | gimli::DW_TAG_packed_type
            | gimli::DW_TAG_shared_type
    )
}

/// Reads every type DIE of `tree`.
pub(crate) fn read_types<'a>(
    dwarf: &Dwarf<Slice<'a>>,
    unit: &Unit<Slice<'a>>,
    tree: &DieTree<'a>,
) -> gimli::Result<TypeTable> {
    let mut table = TypeTable {
        types: Vec::new(),
        ids: HashMap::new(),
    };
    let mut dies: Vec<usize> = Vec::new();
    for die in 0..tree.len() {
        if is_model_type(tree.tag(die)) && !is_made_for_dwarf(dwarf, unit, tree, die)? {
            dies.push(die);
        }
    }
    for (id, &die) in dies.iter().enumerate() {
        table.ids.insert(die, id);
    }
    let mut void = None;
    let mut reader = TypeReader {
        dwarf,
        unit,
        tree,
        table: &table,
        void: &mut void,
        next_id: dies.len(),
    };
    let mut types = Vec::with_capacity(dies.len());
    for &die in &dies {
        types.push(reader.read(die)?);
    }
    table.types = types;
    if void.is_some() {
        table.types.push(Type::Base {
            name: "void".to_string(),
            byte_size: 0,
            encoding: 0,
        });
    }
    Ok(table)
}

struct TypeReader<'r, 'a> {
    dwarf: &'r Dwarf<Slice<'a>>,
    unit: &'r Unit<Slice<'a>>,
    tree: &'r DieTree<'a>,
    table: &'r TypeTable,
    void: &'r mut Option<TypeId>,
    next_id: TypeId,
}

impl TypeReader<'_, '_> {
    fn read(&mut self, die: usize) -> gimli::Result<Type> {
        let tree = self.tree;
        let target = self
            .table
            .reference(tree, tree.attr(die, gimli::DW_AT_type));
        // The namespace or class the DIE sits in.
        let scope = tree
            .parent(die)
            .and_then(|parent| self.table.ids.get(&parent).copied());
        let ty = match tree.tag(die) {
            gimli::DW_TAG_base_type => Type::Base {
                name: self.name(die)?.unwrap_or_default(),
                byte_size: self.byte_size(die).unwrap_or(0),
                encoding: tree
                    .number(die, gimli::DW_AT_encoding)
                    .and_then(|v| u8::try_from(v).ok())
                    .unwrap_or(0),
            },
            gimli::DW_TAG_unspecified_type => Type::Unspecified {
                name: self.name(die)?.unwrap_or_default(),
            },
            gimli::DW_TAG_pointer_type => Type::Pointer(target),
            gimli::DW_TAG_reference_type | gimli::DW_TAG_rvalue_reference_type => Type::Reference {
                rvalue: tree.tag(die) == gimli::DW_TAG_rvalue_reference_type,
                target,
            },
            gimli::DW_TAG_ptr_to_member_type => Type::PointerToMember {
                target,
                class: self.required(tree.attr(die, gimli::DW_AT_containing_type)),
            },
            gimli::DW_TAG_const_type => Type::Const(target),
            gimli::DW_TAG_volatile_type => Type::Volatile(target),
            gimli::DW_TAG_restrict_type => Type::Restrict(target),
            gimli::DW_TAG_namespace => Type::Namespace {
                scope,
                name: self.name(die)?,
                export_symbols: tree.attr(die, gimli::DW_AT_export_symbols).is_some(),
            },
            gimli::DW_TAG_typedef => Type::Typedef {
                scope,
                name: self.name(die)?.unwrap_or_default(),
                target,
                access: access(tree, die),
            },
            gimli::DW_TAG_structure_type | gimli::DW_TAG_union_type | gimli::DW_TAG_class_type => {
                let mut bases = Vec::new();
                let mut members = Vec::new();
                for &child in tree.children(die) {
                    let is_static = match tree.tag(child) {
                        gimli::DW_TAG_member => false,
                        gimli::DW_TAG_variable => true,
                        gimli::DW_TAG_inheritance => {
                            bases.push(Base {
                                ty: self.required(tree.attr(child, gimli::DW_AT_type)),
                                byte_offset: base_offset(tree, child),
                                is_virtual: tree.attr(child, gimli::DW_AT_virtuality).is_some(),
                                access: access(tree, child),
                            });
                            continue;
                        }
                        _ => continue,
                    };
                    let ty = self.required(tree.attr(child, gimli::DW_AT_type));
                    members.push(Member {
                        name: self.name(child)?.unwrap_or_default(),
                        ty,
                        byte_offset: if is_static {
                            0
                        } else {
                            member_offset(tree, child)
                        },
                        bit_field: bit_field(tree, child),
                        access: access(tree, child),
                        artificial: tree.attr(child, gimli::DW_AT_artificial).is_some(),
                        is_static,
                        const_value: match tree.attr(child, gimli::DW_AT_const_value) {
                            Some(AttributeValue::Sdata(n)) => Some(ConstantValue::Signed(n)),
                            Some(value) => value.udata_value().map(ConstantValue::Unsigned),
                            None => None,
                        },
                    });
                }
                let declaration = tree.attr(die, gimli::DW_AT_declaration).is_some();
                Type::Struct {
                    scope,
                    name: self.name(die)?,
                    kind: match tree.tag(die) {
                        gimli::DW_TAG_union_type => Aggregate::Union,
                        gimli::DW_TAG_class_type => Aggregate::Class,
                        _ => Aggregate::Structure,
                    },
                    byte_size: if declaration {
                        None
                    } else {
                        self.byte_size(die)
                    },
                    bases,
                    members,
                    containing_type: self
                        .table
                        .reference(tree, tree.attr(die, gimli::DW_AT_containing_type)),
                    passed: match tree.attr(die, gimli::DW_AT_calling_convention) {
                        Some(AttributeValue::CallingConvention(gimli::DW_CC_pass_by_value)) => {
                            Some(PassedBy::Value)
                        }
                        Some(AttributeValue::CallingConvention(gimli::DW_CC_pass_by_reference)) => {
                            Some(PassedBy::Reference)
                        }
                        _ => None,
                    },
                    template_parameters: Vec::new(),
                    export_symbols: tree.attr(die, gimli::DW_AT_export_symbols).is_some(),
                }
            }
            gimli::DW_TAG_array_type => {
                let element = self.required(tree.attr(die, gimli::DW_AT_type));
                let counts = tree
                    .children(die)
                    .iter()
                    .filter(|&&child| tree.tag(child) == gimli::DW_TAG_subrange_type)
                    .map(|&child| subrange_count(tree, child))
                    .collect();
                let vector =
                    tree.attr(die, gimli::DW_AT_GNU_vector)
                        .is_some()
                        .then(|| VectorShape {
                            padded_byte_size: self.byte_size(die),
                        });
                Type::Array {
                    element,
                    counts,
                    vector,
                }
            }
            gimli::DW_TAG_enumeration_type => {
                let mut enumerators = Vec::new();
                for &child in tree.children(die) {
                    if tree.tag(child) != gimli::DW_TAG_enumerator {
                        continue;
                    }
                    let value = match tree.attr(child, gimli::DW_AT_const_value) {
                        Some(AttributeValue::Sdata(value)) => value,
                        Some(other) => other.udata_value().unwrap_or(0) as i64,
                        None => 0,
                    };
                    enumerators.push((self.name(child)?.unwrap_or_default(), value));
                }
                Type::Enum {
                    scope,
                    name: self.name(die)?,
                    underlying: target,
                    byte_size: self.byte_size(die).unwrap_or(0),
                    enum_class: tree.attr(die, gimli::DW_AT_enum_class).is_some(),
                    enumerators,
                }
            }
            _ => {
                // DW_TAG_subroutine_type, the only other model type tag.
                let parameters = tree
                    .children(die)
                    .iter()
                    .filter(|&&child| tree.tag(child) == gimli::DW_TAG_formal_parameter)
                    .map(|&child| {
                        self.table
                            .reference(tree, tree.attr(child, gimli::DW_AT_type))
                    })
                    .collect();
                let this_parameter = tree
                    .children(die)
                    .iter()
                    .find(|&&child| tree.tag(child) == gimli::DW_TAG_formal_parameter)
                    .is_some_and(|&first| tree.attr(first, gimli::DW_AT_artificial).is_some());
                Type::Subroutine {
                    return_type: target,
                    parameters,
                    this_parameter,
                    variadic: tree
                        .children(die)
                        .iter()
                        .any(|&child| tree.tag(child) == gimli::DW_TAG_unspecified_parameters),
                    prototyped: tree.attr(die, gimli::DW_AT_prototyped).is_some(),
                }
            }
        };
        Ok(ty)
    }

    fn name(&self, die: usize) -> gimli::Result<Option<String>> {
        match self.tree.attr(die, gimli::DW_AT_name) {
            Some(value) => string(self.dwarf, self.unit, value).map(Some),
            None => Ok(None),
        }
    }

    fn byte_size(&self, die: usize) -> Option<u64> {
        self.tree.attr(die, gimli::DW_AT_byte_size)?.udata_value()
    }

    /// The type a required reference names, or the added `void`.
    fn required(&mut self, value: Option<AttributeValue<Slice<'_>>>) -> TypeId {
        match self.table.reference(self.tree, value) {
            Some(id) => id,
            None => *self.void.get_or_insert(self.next_id),
        }
    }
}

fn member_offset(tree: &DieTree<'_>, member: usize) -> u64 {
    if let Some(value) = tree.attr(member, gimli::DW_AT_data_member_location) {
        if let Some(offset) = value.udata_value() {
            return offset;
        }
        if let AttributeValue::Exprloc(expression) = value {
            // DWARF 2 style: DW_OP_plus_uconst N.
            let bytes = expression.0.slice();
            if bytes.first() == Some(&gimli::DW_OP_plus_uconst.0) {
                let mut rest = gimli::EndianSlice::new(&bytes[1..], gimli::LittleEndian);
                return gimli::leb128::read::unsigned(&mut rest).unwrap_or(0);
            }
        }
        return 0;
    }
    tree.attr(member, gimli::DW_AT_data_bit_offset)
        .and_then(|v| v.udata_value())
        .map_or(0, |bits| bits / 8)
}

/// A base's offset: a constant, or for a virtual base the `N` of LLVM's
/// `dup deref constu N minus deref plus`.
fn base_offset(tree: &DieTree<'_>, base: usize) -> u64 {
    match tree.attr(base, gimli::DW_AT_data_member_location) {
        Some(AttributeValue::Exprloc(expression)) => {
            let bytes = expression.0.slice();
            let start = [
                gimli::DW_OP_dup.0,
                gimli::DW_OP_deref.0,
                gimli::DW_OP_constu.0,
            ];
            if bytes.starts_with(&start) {
                let mut rest = gimli::EndianSlice::new(&bytes[3..], gimli::LittleEndian);
                return gimli::leb128::read::unsigned(&mut rest).unwrap_or(0);
            }
            0
        }
        Some(value) => value.udata_value().unwrap_or(0),
        None => 0,
    }
}

fn access(tree: &DieTree<'_>, die: usize) -> Option<Access> {
    match tree.attr(die, gimli::DW_AT_accessibility)? {
        AttributeValue::Accessibility(gimli::DW_ACCESS_public) => Some(Access::Public),
        AttributeValue::Accessibility(gimli::DW_ACCESS_protected) => Some(Access::Protected),
        AttributeValue::Accessibility(gimli::DW_ACCESS_private) => Some(Access::Private),
        _ => None,
    }
}

/// The bit size and offset of a bitfield member (DWARF 4+ form).
fn bit_field(tree: &DieTree<'_>, member: usize) -> Option<BitField> {
    let bit_size = tree.attr(member, gimli::DW_AT_bit_size)?.udata_value()?;
    let data_bit_offset = tree
        .attr(member, gimli::DW_AT_data_bit_offset)?
        .udata_value()?;
    Some(BitField {
        bit_size,
        data_bit_offset,
    })
}

fn subrange_count(tree: &DieTree<'_>, subrange: usize) -> Option<u64> {
    if let Some(count) = tree.attr(subrange, gimli::DW_AT_count) {
        return count.udata_value();
    }
    let upper = match tree.attr(subrange, gimli::DW_AT_upper_bound)? {
        AttributeValue::Sdata(value) => u64::try_from(value).ok()?,
        other => other.udata_value()?,
    };
    let lower = tree
        .attr(subrange, gimli::DW_AT_lower_bound)
        .and_then(|v| v.udata_value())
        .unwrap_or(0);
    upper.checked_add(1)?.checked_sub(lower)
}
