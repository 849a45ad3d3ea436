//! Type DIEs: the model's [`Type`]s, and base types made on demand for
//! typed DWARF expressions.
//!
//! In: `DebugInfo::types`, each referring to others by index.
//! Out: one DIE per type, children of the unit root, in model order (DIE
//! ids are reserved first, so types may refer forward); a class's bases
//! (DW_TAG_inheritance) before its members, static data members as
//! DW_TAG_variable declarations; attributes as llc-19 writes them (pointers 8 bytes; array subranges counted with
//! `DW_AT_count` over an `__ARRAY_SIZE_TYPE__` index type).
//! Promise: a base type asked for by an expression exists once per width
//! and signedness, is a child of the unit root (where `DW_OP_regval_type`,
//! `DW_OP_const_type`, `DW_OP_deref_type` and `DW_OP_convert` must find it)
//! and is named like LLVM's (`DW_ATE_signed_32`).

use std::collections::HashMap;

use gimli::write::{AttributeValue, Expression, StringTable, Unit, UnitEntryId};

use super::ops::BaseTypes;
use super::WriteError;
use crate::model::{
    Access, Aggregate, Base, ConstantValue, Member, TemplateParameter, Type, TypeId,
};

/// Adds one DIE per model type under the unit root, or under its scope's
/// DIE, and fills them in.
pub fn add_types(
    unit: &mut Unit,
    strings: &mut StringTable,
    types: &[Type],
) -> Result<TypeDies, WriteError> {
    let root = unit.root();
    let ids = type_dies(unit, types)?;
    let reference = |id: TypeId, what: &str| {
        ids.get(id)
            .map(|&die| AttributeValue::UnitRef(die))
            .ok_or_else(|| {
                WriteError::new(format!("{what} refers to type {id}, which does not exist"))
            })
    };
    let mut array_index_type = None;
    let mut static_members = HashMap::new();
    for (index, ty) in types.iter().enumerate() {
        let die = ids[index];
        let what = format!("type {index}");
        let mut attributes: Vec<(gimli::DwAt, AttributeValue)> = Vec::new();
        let name = |name: &str, strings: &mut StringTable| {
            (
                gimli::DW_AT_name,
                AttributeValue::StringRef(strings.add(name)),
            )
        };
        match ty {
            Type::Base {
                name: type_name,
                byte_size,
                encoding,
            } => {
                attributes.push(name(type_name, strings));
                attributes.push((
                    gimli::DW_AT_encoding,
                    AttributeValue::Encoding(gimli::DwAte(*encoding)),
                ));
                attributes.push((gimli::DW_AT_byte_size, AttributeValue::Udata(*byte_size)));
            }
            Type::Pointer(target) => {
                if let Some(target) = target {
                    attributes.push((gimli::DW_AT_type, reference(*target, &what)?));
                }
                attributes.push((gimli::DW_AT_byte_size, AttributeValue::Udata(8)));
            }
            Type::Const(target) | Type::Volatile(target) | Type::Restrict(target) => {
                if let Some(target) = target {
                    attributes.push((gimli::DW_AT_type, reference(*target, &what)?));
                }
            }
            Type::Typedef {
                name: type_name,
                target,
                access,
                ..
            } => {
                attributes.push(name(type_name, strings));
                if let Some(target) = target {
                    attributes.push((gimli::DW_AT_type, reference(*target, &what)?));
                }
                if let Some(access) = access {
                    attributes.push((gimli::DW_AT_accessibility, accessibility(*access)));
                }
            }
            Type::Struct {
                name: type_name,
                byte_size,
                bases,
                members,
                containing_type,
                passed,
                template_parameters,
                export_symbols,
                ..
            } => {
                if *export_symbols {
                    attributes.push((gimli::DW_AT_export_symbols, AttributeValue::FlagPresent));
                }
                add_template_parameters(unit, strings, die, template_parameters, &|id| {
                    reference(id, &what)
                })?;
                if let Some(containing_type) = containing_type {
                    attributes.push((
                        gimli::DW_AT_containing_type,
                        reference(*containing_type, &what)?,
                    ));
                }
                if let Some(passed) = passed {
                    attributes.push((
                        gimli::DW_AT_calling_convention,
                        AttributeValue::CallingConvention(gimli::DwCc(*passed as u8)),
                    ));
                }
                if let Some(type_name) = type_name {
                    attributes.push(name(type_name, strings));
                }
                match byte_size {
                    Some(size) => {
                        attributes.push((gimli::DW_AT_byte_size, AttributeValue::Udata(*size)))
                    }
                    None => {
                        attributes.push((gimli::DW_AT_declaration, AttributeValue::FlagPresent))
                    }
                }
                for base in bases {
                    let base_die = unit.add(die, gimli::DW_TAG_inheritance);
                    let entry = unit.get_mut(base_die);
                    entry.set(gimli::DW_AT_type, reference(base.ty, &what)?);
                    entry.set(gimli::DW_AT_data_member_location, base_location(base));
                    if let Some(access) = base.access {
                        entry.set(gimli::DW_AT_accessibility, accessibility(access));
                    }
                    if base.is_virtual {
                        entry.set(
                            gimli::DW_AT_virtuality,
                            AttributeValue::Virtuality(gimli::DW_VIRTUALITY_virtual),
                        );
                    }
                }
                for (position, member) in members.iter().enumerate() {
                    let member_die = add_member(
                        unit,
                        strings,
                        die,
                        member,
                        reference(member.ty, &format!("{what} member `{}`", member.name))?,
                    );
                    if member.is_static {
                        static_members.insert((index, position), member_die);
                    }
                }
            }
            Type::Reference { target, .. } => {
                if let Some(target) = target {
                    attributes.push((gimli::DW_AT_type, reference(*target, &what)?));
                }
            }
            Type::Unspecified { name: type_name } => {
                attributes.push(name(type_name, strings));
            }
            Type::Namespace {
                name: namespace_name,
                export_symbols,
                ..
            } => {
                if let Some(namespace_name) = namespace_name {
                    attributes.push(name(namespace_name, strings));
                }
                if *export_symbols {
                    attributes.push((gimli::DW_AT_export_symbols, AttributeValue::FlagPresent));
                }
            }
            Type::PointerToMember { target, class } => {
                if let Some(target) = target {
                    attributes.push((gimli::DW_AT_type, reference(*target, &what)?));
                }
                attributes.push((gimli::DW_AT_containing_type, reference(*class, &what)?));
            }
            Type::Array {
                element,
                counts,
                vector,
            } => {
                if let Some(shape) = vector {
                    attributes.push((gimli::DW_AT_GNU_vector, AttributeValue::FlagPresent));
                    if let Some(size) = shape.padded_byte_size {
                        attributes.push((gimli::DW_AT_byte_size, AttributeValue::Udata(size)));
                    }
                }
                attributes.push((gimli::DW_AT_type, reference(*element, &what)?));
                let index_type = *array_index_type.get_or_insert_with(|| {
                    let id = unit.add(root, gimli::DW_TAG_base_type);
                    let entry = unit.get_mut(id);
                    entry.set(
                        gimli::DW_AT_name,
                        AttributeValue::StringRef(strings.add("__ARRAY_SIZE_TYPE__")),
                    );
                    entry.set(gimli::DW_AT_byte_size, AttributeValue::Udata(8));
                    entry.set(
                        gimli::DW_AT_encoding,
                        AttributeValue::Encoding(gimli::DW_ATE_unsigned),
                    );
                    id
                });
                for count in counts {
                    let subrange = unit.add(die, gimli::DW_TAG_subrange_type);
                    let entry = unit.get_mut(subrange);
                    entry.set(gimli::DW_AT_type, AttributeValue::UnitRef(index_type));
                    if let Some(count) = count {
                        entry.set(gimli::DW_AT_count, AttributeValue::Udata(*count));
                    }
                }
            }
            Type::Enum {
                scope: _,
                name: type_name,
                underlying,
                byte_size,
                enum_class,
                enumerators,
            } => {
                if let Some(type_name) = type_name {
                    attributes.push(name(type_name, strings));
                }
                if let Some(underlying) = underlying {
                    attributes.push((gimli::DW_AT_type, reference(*underlying, &what)?));
                }
                attributes.push((gimli::DW_AT_byte_size, AttributeValue::Udata(*byte_size)));
                if *enum_class {
                    attributes.push((gimli::DW_AT_enum_class, AttributeValue::FlagPresent));
                }
                for (enumerator, value) in enumerators {
                    let child = unit.add(die, gimli::DW_TAG_enumerator);
                    let entry = unit.get_mut(child);
                    entry.set(
                        gimli::DW_AT_name,
                        AttributeValue::StringRef(strings.add(enumerator.as_str())),
                    );
                    entry.set(gimli::DW_AT_const_value, AttributeValue::Sdata(*value));
                }
            }
            Type::Subroutine {
                return_type,
                parameters,
                this_parameter,
                variadic,
                prototyped,
            } => {
                if *prototyped {
                    attributes.push((gimli::DW_AT_prototyped, AttributeValue::FlagPresent));
                }
                if let Some(return_type) = return_type {
                    attributes.push((gimli::DW_AT_type, reference(*return_type, &what)?));
                }
                for (index, parameter) in parameters.iter().enumerate() {
                    let child = unit.add(die, gimli::DW_TAG_formal_parameter);
                    if let Some(parameter) = parameter {
                        let value = reference(*parameter, &what)?;
                        unit.get_mut(child).set(gimli::DW_AT_type, value);
                    }
                    if index == 0 && *this_parameter {
                        unit.get_mut(child)
                            .set(gimli::DW_AT_artificial, AttributeValue::FlagPresent);
                    }
                }
                if *variadic {
                    unit.add(die, gimli::DW_TAG_unspecified_parameters);
                }
            }
        }
        let entry = unit.get_mut(die);
        for (name, value) in attributes {
            entry.set(name, value);
        }
    }
    Ok(TypeDies {
        ids,
        static_members,
    })
}

/// The DIEs [`add_types`] made.
pub struct TypeDies {
    /// The DIE of each type.
    pub ids: Vec<UnitEntryId>,
    /// The declaration DIE of each static data member, by (class, index
    /// among its members).
    pub static_members: HashMap<(TypeId, usize), UnitEntryId>,
}

/// A constant in the form its signedness asks for.
fn constant(value: ConstantValue) -> AttributeValue {
    match value {
        ConstantValue::Unsigned(n) => AttributeValue::Udata(n),
        ConstantValue::Signed(n) => AttributeValue::Sdata(n),
    }
}

/// The template parameter DIEs of a class or function under `parent`,
/// as LLVM's DwarfUnit::addTemplateParams writes them.
pub fn add_template_parameters(
    unit: &mut Unit,
    strings: &mut StringTable,
    parent: UnitEntryId,
    parameters: &[TemplateParameter],
    reference: &dyn Fn(TypeId) -> Result<AttributeValue, WriteError>,
) -> Result<(), WriteError> {
    for parameter in parameters {
        let (tag, name) = match parameter {
            TemplateParameter::Type { name, .. } => (gimli::DW_TAG_template_type_parameter, name),
            TemplateParameter::Value { name, .. } => (gimli::DW_TAG_template_value_parameter, name),
            TemplateParameter::Template { name, .. } => {
                (gimli::DW_TAG_GNU_template_template_param, name)
            }
            TemplateParameter::Pack { name, .. } => {
                (gimli::DW_TAG_GNU_template_parameter_pack, name)
            }
        };
        let die = unit.add(parent, tag);
        let mut attributes = Vec::new();
        match parameter {
            TemplateParameter::Type { ty, .. } | TemplateParameter::Value { ty, .. } => {
                if let Some(ty) = ty {
                    attributes.push((gimli::DW_AT_type, reference(*ty)?));
                }
            }
            _ => {}
        }
        if let Some(name) = name {
            attributes.push((
                gimli::DW_AT_name,
                AttributeValue::StringRef(strings.add(name.as_str())),
            ));
        }
        match parameter {
            TemplateParameter::Type { default, .. } | TemplateParameter::Value { default, .. }
                if *default =>
            {
                attributes.push((gimli::DW_AT_default_value, AttributeValue::FlagPresent));
            }
            _ => {}
        }
        match parameter {
            TemplateParameter::Value {
                value: Some(value), ..
            } => attributes.push((gimli::DW_AT_const_value, constant(*value))),
            TemplateParameter::Template { template, .. } => attributes.push((
                gimli::DW_AT_GNU_template_name,
                AttributeValue::StringRef(strings.add(template.as_str())),
            )),
            TemplateParameter::Pack { parameters, .. } => {
                add_template_parameters(unit, strings, die, parameters, reference)?
            }
            _ => {}
        }
        let entry = unit.get_mut(die);
        for (name, value) in attributes {
            entry.set(name, value);
        }
    }
    Ok(())
}

/// One member under `parent`: a DW_TAG_member, or for a static data member
/// the DW_TAG_variable declaration LLVM writes for DWARF 5.
fn add_member(
    unit: &mut Unit,
    strings: &mut StringTable,
    parent: UnitEntryId,
    member: &Member,
    ty: AttributeValue,
) -> UnitEntryId {
    let tag = if member.is_static {
        gimli::DW_TAG_variable
    } else {
        gimli::DW_TAG_member
    };
    let member_die = unit.add(parent, tag);
    let entry = unit.get_mut(member_die);
    // An anonymous union's member has no name.
    if !member.name.is_empty() {
        entry.set(
            gimli::DW_AT_name,
            AttributeValue::StringRef(strings.add(member.name.as_str())),
        );
    }
    entry.set(gimli::DW_AT_type, ty);
    if member.is_static {
        entry.set(gimli::DW_AT_external, AttributeValue::FlagPresent);
        entry.set(gimli::DW_AT_declaration, AttributeValue::FlagPresent);
    } else {
        match member.bit_field {
            Some(bits) => {
                entry.set(gimli::DW_AT_bit_size, AttributeValue::Udata(bits.bit_size));
                entry.set(
                    gimli::DW_AT_data_bit_offset,
                    AttributeValue::Udata(bits.data_bit_offset),
                );
            }
            None => entry.set(
                gimli::DW_AT_data_member_location,
                AttributeValue::Udata(member.byte_offset),
            ),
        }
    }
    if let Some(access) = member.access {
        entry.set(gimli::DW_AT_accessibility, accessibility(access));
    }
    if member.artificial {
        entry.set(gimli::DW_AT_artificial, AttributeValue::FlagPresent);
    }
    if let Some(value) = member.const_value {
        entry.set(gimli::DW_AT_const_value, constant(value));
    }
    member_die
}

/// Where a base class sits: a byte offset, or for a virtual base LLVM's
/// expression reading its offset from the vtable
/// (`dup deref constu N minus deref plus`).
fn base_location(base: &Base) -> AttributeValue {
    if !base.is_virtual {
        return AttributeValue::Udata(base.byte_offset);
    }
    // Written byte by byte: LLVM's `DW_OP_constu N` even where a
    // `DW_OP_litN` would do (gimli's `op_constu` picks the shorter).
    let mut bytes = vec![
        gimli::DW_OP_dup.0,
        gimli::DW_OP_deref.0,
        gimli::DW_OP_constu.0,
    ];
    gimli::leb128::write::unsigned(&mut bytes, base.byte_offset).expect("a Vec takes every byte");
    bytes.extend([
        gimli::DW_OP_minus.0,
        gimli::DW_OP_deref.0,
        gimli::DW_OP_plus.0,
    ]);
    let expression = Expression::raw(bytes);
    AttributeValue::Exprloc(expression)
}

/// DW_AT_accessibility's value.
pub fn accessibility(access: Access) -> AttributeValue {
    AttributeValue::Accessibility(gimli::DwAccess(access as u8))
}

/// The DIE of each type, made scopes first: a type whose scope is a
/// namespace or class is that DIE's child.
fn type_dies(unit: &mut Unit, types: &[Type]) -> Result<Vec<UnitEntryId>, WriteError> {
    let mut ids: Vec<Option<UnitEntryId>> = vec![None; types.len()];
    for index in 0..types.len() {
        // The chain of scopes not made yet, innermost first.
        let mut chain = vec![index];
        while let Some(scope) = types[*chain.last().unwrap()].scope() {
            if ids.get(scope).is_some_and(Option::is_some) {
                break;
            }
            if scope >= types.len() || chain.len() > types.len() {
                return Err(WriteError::new(format!(
                    "type {index}: its scope chain reaches type {scope}, which does not \
                     exist or encloses itself"
                )));
            }
            chain.push(scope);
        }
        for &made in chain.iter().rev() {
            if ids[made].is_none() {
                let parent = types[made]
                    .scope()
                    .and_then(|s| ids[s])
                    .unwrap_or(unit.root());
                ids[made] = Some(unit.add(parent, tag(&types[made])));
            }
        }
    }
    Ok(ids.into_iter().flatten().collect())
}

fn tag(ty: &Type) -> gimli::DwTag {
    match ty {
        Type::Base { .. } => gimli::DW_TAG_base_type,
        Type::Pointer(_) => gimli::DW_TAG_pointer_type,
        Type::Const(_) => gimli::DW_TAG_const_type,
        Type::Volatile(_) => gimli::DW_TAG_volatile_type,
        Type::Restrict(_) => gimli::DW_TAG_restrict_type,
        Type::Typedef { .. } => gimli::DW_TAG_typedef,
        Type::Struct { kind, .. } => match kind {
            Aggregate::Structure => gimli::DW_TAG_structure_type,
            Aggregate::Class => gimli::DW_TAG_class_type,
            Aggregate::Union => gimli::DW_TAG_union_type,
        },
        Type::Reference { rvalue: false, .. } => gimli::DW_TAG_reference_type,
        Type::Reference { rvalue: true, .. } => gimli::DW_TAG_rvalue_reference_type,
        Type::Unspecified { .. } => gimli::DW_TAG_unspecified_type,
        Type::Namespace { .. } => gimli::DW_TAG_namespace,
        Type::PointerToMember { .. } => gimli::DW_TAG_ptr_to_member_type,
        Type::Array { .. } => gimli::DW_TAG_array_type,
        Type::Enum { .. } => gimli::DW_TAG_enumeration_type,
        Type::Subroutine { .. } => gimli::DW_TAG_subroutine_type,
    }
}

/// Base types for expressions, created on demand under the unit root.
pub struct ExpressionBaseTypes<'a> {
    /// The unit the DIEs go into.
    pub unit: &'a mut Unit,
    /// Its string table (for the names).
    pub strings: &'a mut StringTable,
    /// Base types made so far, by (bits, signed).
    pub made: &'a mut HashMap<(u16, bool), UnitEntryId>,
}

impl BaseTypes for ExpressionBaseTypes<'_> {
    fn base_type(&mut self, bits: u16, signed: bool) -> UnitEntryId {
        if let Some(&id) = self.made.get(&(bits, signed)) {
            return id;
        }
        let root = self.unit.root();
        let id = self.unit.add(root, gimli::DW_TAG_base_type);
        let (encoding, spelling) = if signed {
            (gimli::DW_ATE_signed, "signed")
        } else {
            (gimli::DW_ATE_unsigned, "unsigned")
        };
        let entry = self.unit.get_mut(id);
        let name = format!("DW_ATE_{spelling}_{bits}");
        entry.set(
            gimli::DW_AT_name,
            AttributeValue::StringRef(self.strings.add(name)),
        );
        entry.set(gimli::DW_AT_encoding, AttributeValue::Encoding(encoding));
        entry.set(
            gimli::DW_AT_byte_size,
            AttributeValue::Udata(u64::from(bits.div_ceil(8))),
        );
        self.made.insert((bits, signed), id);
        id
    }
}
