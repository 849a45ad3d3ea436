//! Source types: the IR's DIBasicType / DIDerivedType / DICompositeType /
//! DISubroutineType nodes as the emit crate's [`emit::Type`] table.
//!
//! In: type node ids of the module's metadata. Out: indices into one shared
//! type table, each IR node converted once (recursive types are handled by
//! reserving the slot before converting the parts). C++ classes keep their
//! bases, accessibility, artificial `_vptr` members and static members. A
//! node the model has no shape for (a string type) gives `None`: the variable is
//! then emitted without a type rather than with a wrong one.
//!
//! A class's member functions are declarations in its DIE, made when the
//! class is (see [`super::subprograms`]), so the table also holds the
//! subprogram DIEs and the file table they share. Types with one ODR
//! `identifier:` are one type, written once per unit and referred to
//! everywhere else (a declaration's slot is taken over by the definition).

use crate::ir::hash::FxHashMap;

use dwarfsmith_emit::model::{self as emit, BitField, Member, SubprogramId, TypeId};

use super::files::FileTable;

use crate::ir::debug::{DICompositeType, DIDerivedType, MdField, MdNode};
use crate::ir::{DebugInfo, MdId, MdOperand, MdRef};

/// Converts IR type nodes to the emit crate's type table, once each.
pub struct TypeTable<'a> {
    pub(super) debug: &'a DebugInfo,
    /// The converted types, indexed by [`TypeId`].
    pub types: Vec<emit::Type>,
    converted: FxHashMap<MdId, Option<TypeId>>,
    /// The type of each ODR identifier, and whether it is a definition.
    identifiers: FxHashMap<&'a str, (TypeId, bool)>,
    /// The unit's files.
    pub files: FileTable<'a>,
    /// Every subprogram DIE: declarations, definitions, abstract origins.
    pub subprograms: Vec<emit::Subprogram>,
    /// The declaration DIE of each declaring DISubprogram node.
    pub(super) declared: FxHashMap<MdId, SubprogramId>,
    /// The unit is C (DW_AT_prototyped is written).
    pub(super) c_language: bool,
}

impl<'a> TypeTable<'a> {
    /// An empty table over the module's metadata; `c_language` when the
    /// unit is C or Objective-C.
    pub fn new(debug: &'a DebugInfo, c_language: bool) -> Self {
        TypeTable {
            debug,
            types: Vec::new(),
            converted: FxHashMap::default(),
            identifiers: FxHashMap::default(),
            files: FileTable::new(debug),
            subprograms: Vec::new(),
            declared: FxHashMap::default(),
            c_language,
        }
    }

    /// The table index of a type node, converting it on first use.
    pub fn type_of(&mut self, node: Option<MdId>) -> Option<TypeId> {
        let node = node?;
        if let Some(&known) = self.converted.get(&node) {
            return known;
        }
        let debug = self.debug;
        if let MdNode::CompositeType(t) = debug.node(node) {
            if let Some(identifier) = t.identifier.as_deref() {
                let definition = !has_flag(&t.flags, "DIFlagFwdDecl");
                match self.identifiers.get(identifier) {
                    Some(&(slot, true)) => {
                        self.converted.insert(node, Some(slot));
                        return Some(slot);
                    }
                    Some(&(slot, false)) if !definition => {
                        self.converted.insert(node, Some(slot));
                        return Some(slot);
                    }
                    Some(&(slot, false)) => {
                        // The definition takes over its declaration's slot.
                        self.converted.insert(node, Some(slot));
                        self.identifiers.insert(identifier, (slot, true));
                        if let Some(ty) = self.convert(node) {
                            self.types[slot] = ty;
                        }
                        return Some(slot);
                    }
                    None => {
                        self.identifiers
                            .insert(identifier, (self.types.len(), definition));
                    }
                }
            }
        }
        // Reserve the slot first so that a recursive reference (a struct
        // holding a pointer to itself) finds it.
        let slot = self.types.len();
        self.types.push(emit::Type::Pointer(None));
        self.converted.insert(node, Some(slot));
        match self.convert(node) {
            Some(ty) => {
                self.types[slot] = ty;
                Some(slot)
            }
            None => {
                self.converted.insert(node, None);
                if let MdNode::CompositeType(t) = debug.node(node) {
                    if let Some(identifier) = t.identifier.as_deref() {
                        self.identifiers.remove(identifier);
                    }
                }
                if slot + 1 == self.types.len() {
                    self.types.pop();
                }
                None
            }
        }
    }

    /// The size in bits of a type node, following typedefs and qualifiers.
    pub fn size_bits(&self, node: Option<MdId>) -> Option<u64> {
        let mut node = node?;
        for _ in 0..64 {
            match self.debug.node(node) {
                MdNode::BasicType(t) => return Some(t.size),
                MdNode::CompositeType(t) => return Some(t.size),
                MdNode::DerivedType(t)
                    if matches!(
                        t.tag.as_str(),
                        "DW_TAG_pointer_type"
                            | "DW_TAG_reference_type"
                            | "DW_TAG_rvalue_reference_type"
                    ) =>
                {
                    return Some(64)
                }
                MdNode::DerivedType(t) if t.tag == "DW_TAG_ptr_to_member_type" => {
                    return Some(t.size)
                }
                MdNode::DerivedType(t) => node = t.base_type?,
                _ => return None,
            }
        }
        None
    }

    fn convert(&mut self, node: MdId) -> Option<emit::Type> {
        let debug = self.debug;
        match debug.node(node) {
            MdNode::BasicType(t) if t.tag.as_deref() == Some("DW_TAG_unspecified_type") => {
                Some(emit::Type::Unspecified {
                    name: t.name.clone(),
                })
            }
            MdNode::BasicType(t) => Some(emit::Type::Base {
                name: t.name.clone(),
                byte_size: t.size / 8,
                encoding: encoding(t.encoding.as_deref()),
            }),
            MdNode::DerivedType(t) => {
                let base = self.type_of(t.base_type);
                match t.tag.as_str() {
                    "DW_TAG_pointer_type" => Some(emit::Type::Pointer(base)),
                    "DW_TAG_const_type" => Some(emit::Type::Const(base)),
                    "DW_TAG_volatile_type" => Some(emit::Type::Volatile(base)),
                    "DW_TAG_restrict_type" => Some(emit::Type::Restrict(base)),
                    "DW_TAG_reference_type" | "DW_TAG_rvalue_reference_type" => {
                        Some(emit::Type::Reference {
                            rvalue: t.tag == "DW_TAG_rvalue_reference_type",
                            target: base,
                        })
                    }
                    "DW_TAG_ptr_to_member_type" => {
                        let class = self.type_of(extra_data(t))?;
                        Some(emit::Type::PointerToMember {
                            target: base,
                            class,
                        })
                    }
                    "DW_TAG_typedef" => Some(emit::Type::Typedef {
                        scope: self.scope_of(t.scope),
                        name: t.name.clone().unwrap_or_default(),
                        target: base,
                        access: access(&t.flags),
                    }),
                    _ => None,
                }
            }
            MdNode::CompositeType(t) => self.composite(t),
            MdNode::Other { kind, fields } if kind == "DINamespace" => {
                let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
                let scope = match field("scope") {
                    Some(MdField::Ref(Some(MdRef::Node(id)))) => Some(*id),
                    _ => None,
                };
                Some(emit::Type::Namespace {
                    scope: self.scope_of(scope),
                    name: match field("name") {
                        Some(MdField::Str(name)) => Some(name.clone()),
                        _ => None,
                    },
                    export_symbols: field("exportSymbols") == Some(&MdField::Bool(true)),
                })
            }
            MdNode::SubroutineType(t) => {
                let mut parts = t.types.map(|list| debug.tuple(list)).unwrap_or(&[]).iter();
                let return_type = parts.next().and_then(|op| self.operand_type(op));
                let this_parameter = parts.clone().next().is_some_and(|op| match op {
                    MdOperand::Ref(MdRef::Node(id)) => matches!(
                        debug.node(*id),
                        MdNode::DerivedType(p) if has_flag(&p.flags, "DIFlagArtificial")
                    ),
                    _ => false,
                });
                // LLVM's rule: a null last parameter is `...`, and `(null)`
                // alone an unprototyped function.
                let rest: Vec<&MdOperand> = parts.collect();
                let variadic = rest.last().is_some_and(|op| matches!(op, MdOperand::Null));
                let prototyped = self.c_language && !(rest.len() == 1 && variadic);
                let parameters = rest[..rest.len() - usize::from(variadic)]
                    .iter()
                    .map(|op| self.operand_type(op))
                    .collect();
                Some(emit::Type::Subroutine {
                    return_type,
                    parameters,
                    this_parameter,
                    variadic,
                    prototyped,
                })
            }
            _ => None,
        }
    }

    fn composite(&mut self, t: &DICompositeType) -> Option<emit::Type> {
        let debug = self.debug;
        let elements = tuple_nodes(debug, t.elements);
        match t.tag.as_str() {
            "DW_TAG_structure_type" | "DW_TAG_union_type" | "DW_TAG_class_type" => {
                let declaration = has_flag(&t.flags, "DIFlagFwdDecl");
                let mut bases = Vec::new();
                let mut members = Vec::new();
                for element in elements {
                    if let MdNode::Subprogram(_) = debug.node(element) {
                        // A member function: its declaration, a child of
                        // this class's DIE.
                        self.declaration_of(element);
                        continue;
                    }
                    let MdNode::DerivedType(m) = debug.node(element) else {
                        continue;
                    };
                    let is_static = has_flag(&m.flags, "DIFlagStaticMember");
                    match m.tag.as_str() {
                        "DW_TAG_inheritance" => {
                            if let Some(ty) = self.type_of(m.base_type) {
                                let is_virtual = has_flag(&m.flags, "DIFlagVirtual");
                                bases.push(emit::Base {
                                    ty,
                                    // A virtual base's offset is the byte
                                    // offset of its slot in the vtable, as
                                    // clang writes it; the others are bits.
                                    byte_offset: if is_virtual { m.offset } else { m.offset / 8 },
                                    is_virtual,
                                    access: access(&m.flags),
                                });
                            }
                        }
                        "DW_TAG_member" | "DW_TAG_variable" => {
                            if let Some(ty) = self.type_of(m.base_type) {
                                let bit_field = (has_flag(&m.flags, "DIFlagBitField")
                                    && !is_static)
                                    .then_some(BitField {
                                        bit_size: m.size,
                                        data_bit_offset: m.offset,
                                    });
                                members.push(Member {
                                    name: m.name.clone().unwrap_or_default(),
                                    ty,
                                    byte_offset: if is_static { 0 } else { m.offset / 8 },
                                    bit_field,
                                    access: access(&m.flags),
                                    artificial: has_flag(&m.flags, "DIFlagArtificial"),
                                    is_static,
                                    const_value: match m
                                        .other
                                        .iter()
                                        .find(|(n, _)| n == "extraData")
                                    {
                                        Some((_, MdField::Value(value))) if is_static => {
                                            self.constant(value, m.base_type)
                                        }
                                        _ => None,
                                    },
                                });
                            }
                        }
                        _ => {}
                    }
                }
                Some(emit::Type::Struct {
                    scope: self.scope_of(t.scope),
                    name: t.name.clone(),
                    kind: match t.tag.as_str() {
                        "DW_TAG_union_type" => emit::Aggregate::Union,
                        "DW_TAG_class_type" => emit::Aggregate::Class,
                        _ => emit::Aggregate::Structure,
                    },
                    byte_size: (!declaration).then_some(t.size / 8),
                    bases,
                    members,
                    containing_type: self.type_of(field_node(&t.other, "vtableHolder")),
                    passed: if has_flag(&t.flags, "DIFlagTypePassByValue") {
                        Some(emit::PassedBy::Value)
                    } else if has_flag(&t.flags, "DIFlagTypePassByReference") {
                        Some(emit::PassedBy::Reference)
                    } else {
                        None
                    },
                    template_parameters: self
                        .template_parameters(field_node(&t.other, "templateParams")),
                    export_symbols: has_flag(&t.flags, "DIFlagExportSymbols"),
                })
            }
            "DW_TAG_array_type" => {
                let element = self.type_of(t.base_type)?;
                let counts = elements
                    .iter()
                    .filter_map(|&e| match debug.node(e) {
                        MdNode::Subrange(range) => Some(match range.count {
                            Some(MdField::Int(n)) if n >= 0 => Some(n as u64),
                            _ => None,
                        }),
                        _ => None,
                    })
                    .collect::<Vec<_>>();
                // LLVM's rule: a vector gets DW_AT_GNU_vector, and its byte
                // size only when that is more than its elements fill.
                let vector = t.flags.iter().any(|f| f == "DIFlagVector").then(|| {
                    let elements_bits = counts
                        .iter()
                        .map(|c| c.unwrap_or(0))
                        .product::<u64>()
                        .saturating_mul(self.size_bits(t.base_type).unwrap_or(0));
                    emit::VectorShape {
                        padded_byte_size: (elements_bits < t.size).then_some(t.size / 8),
                    }
                });
                Some(emit::Type::Array {
                    element,
                    counts,
                    vector,
                })
            }
            "DW_TAG_enumeration_type" => {
                let underlying = self.type_of(t.base_type);
                let enumerators = elements
                    .iter()
                    .filter_map(|&e| match debug.node(e) {
                        MdNode::Enumerator(en) => Some((en.name.clone(), en.value as i64)),
                        _ => None,
                    })
                    .collect();
                Some(emit::Type::Enum {
                    scope: self.scope_of(t.scope),
                    name: t.name.clone(),
                    underlying,
                    byte_size: t.size / 8,
                    enum_class: has_flag(&t.flags, "DIFlagEnumClass"),
                    enumerators,
                })
            }
            _ => None,
        }
    }

    /// The class and member index of a static data member's declaration
    /// node (its class's `members` hold the static members that have a
    /// type, in element order).
    pub fn static_member(&mut self, member: MdId) -> Option<(TypeId, usize)> {
        let debug = self.debug;
        let MdNode::DerivedType(declared) = debug.node(member) else {
            return None;
        };
        let class = self.type_of(declared.scope)?;
        let emit::Type::Struct { members, .. } = &self.types[class] else {
            return None;
        };
        let index = members
            .iter()
            .position(|m| m.is_static && Some(&m.name) == declared.name.as_ref())?;
        Some((class, index))
    }

    /// Whether a type node is marked artificial (the type of `this`).
    pub fn is_artificial(&self, node: Option<MdId>) -> bool {
        match node.map(|n| self.debug.node(n)) {
            Some(MdNode::DerivedType(t)) => has_flag(&t.flags, "DIFlagArtificial"),
            Some(MdNode::CompositeType(t)) => has_flag(&t.flags, "DIFlagArtificial"),
            _ => false,
        }
    }

    /// The namespace or class a `scope:` names; `None` for a file or unit
    /// (the DIE is then a child of the unit root).
    pub fn scope_of(&mut self, scope: Option<MdId>) -> Option<TypeId> {
        let scope = scope?;
        match self.debug.node(scope) {
            MdNode::CompositeType(_) => self.type_of(Some(scope)),
            MdNode::Other { kind, .. } if kind == "DINamespace" => self.type_of(Some(scope)),
            _ => None,
        }
    }

    pub(super) fn operand_type(&mut self, operand: &MdOperand) -> Option<TypeId> {
        match operand {
            MdOperand::Ref(MdRef::Node(id)) => self.type_of(Some(*id)),
            _ => None,
        }
    }
}

/// A pointer to member's class: its `extraData:` node.
fn extra_data(t: &DIDerivedType) -> Option<MdId> {
    field_node(&t.other, "extraData")
}

/// The nodes a tuple lists (none when there is no tuple).
pub(super) fn tuple_nodes(debug: &DebugInfo, list: Option<MdId>) -> Vec<MdId> {
    list.map(|list| debug.tuple(list))
        .unwrap_or(&[])
        .iter()
        .filter_map(|op| match op {
            MdOperand::Ref(MdRef::Node(id)) => Some(*id),
            _ => None,
        })
        .collect()
}

/// The node a field among a node's unmodelled fields names.
pub(super) fn field_node(fields: &[(String, MdField)], name: &str) -> Option<MdId> {
    fields.iter().find_map(|(field, value)| match value {
        MdField::Ref(Some(MdRef::Node(id))) if field == name => Some(*id),
        _ => None,
    })
}

pub(super) fn has_flag(flags: &[String], flag: &str) -> bool {
    flags.iter().any(|f| f == flag)
}

/// The accessibility a member's or base's `flags:` give (`DIFlagPublic` is
/// both bits of the other two, as in LLVM's flag encoding).
pub(super) fn access(flags: &[String]) -> Option<emit::Access> {
    flags.iter().find_map(|flag| match flag.as_str() {
        "DIFlagPublic" => Some(emit::Access::Public),
        "DIFlagProtected" => Some(emit::Access::Protected),
        "DIFlagPrivate" => Some(emit::Access::Private),
        _ => None,
    })
}

/// The DW_ATE_* number of an encoding name (`DW_ATE_signed` → 5).
fn encoding(name: Option<&str>) -> u8 {
    match name.unwrap_or("DW_ATE_signed") {
        "DW_ATE_address" => 0x01,
        "DW_ATE_boolean" => 0x02,
        "DW_ATE_float" => 0x04,
        "DW_ATE_signed" => 0x05,
        "DW_ATE_signed_char" => 0x06,
        "DW_ATE_unsigned" => 0x07,
        "DW_ATE_unsigned_char" => 0x08,
        "DW_ATE_UTF" => 0x10,
        _ => 0x05,
    }
}
