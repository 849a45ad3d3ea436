//! Subprogram DIEs from DISubprogram nodes, as LLVM's DwarfUnit writes
//! them: declarations (a class's member functions, functions an import or
//! a call site names) and the attributes of definitions and abstract
//! origins.
//!
//! In: DISubprogram nodes. Out: [`emit::Subprogram`]s without code, scopes
//! or calls (the caller adds those), declarations pushed once each into
//! [`TypeTable::subprograms`].
//! Rules (LLVM's getOrCreateSubprogramDIE and applySubprogramAttributes):
//! - a declaration sits in its scope's DIE (class or namespace) and lists
//!   its parameter types, `this` artificial, and `...` as
//!   DW_TAG_unspecified_parameters;
//! - a definition or abstract origin with a `declaration:` sits in the
//!   unit and completes that declaration (DW_AT_specification); without
//!   one it sits in its scope's DIE with every attribute itself;
//! - virtuality, the vtable slot (`DW_OP_constu virtualIndex`), the
//!   containing type, accessibility, artificial, explicit, deleted and
//!   noreturn come from `flags:`/`spFlags:`; DW_AT_prototyped only in C.

use dwarfsmith_emit::model::{self as emit, SubprogramId};

use super::types::{access, field_node, has_flag, TypeTable};
use crate::ir::debug::{DISubprogram, MdField, MdNode};
use crate::ir::value::Constant;
use crate::ir::{MdId, MdOperand, MdRef};

impl<'a> TypeTable<'a> {
    /// The declaration DIE of a declaring DISubprogram node, made once, in
    /// its class's or namespace's DIE.
    pub fn declaration_of(&mut self, sp: MdId) -> SubprogramId {
        if let Some(&id) = self.declared.get(&sp) {
            return id;
        }
        let debug = self.debug;
        let MdNode::Subprogram(subprogram) = debug.node(sp) else {
            unreachable!("declarations are made of DISubprogram nodes")
        };
        // Making the class makes its member functions' declarations.
        self.scope_of(subprogram.scope);
        if let Some(&id) = self.declared.get(&sp) {
            return id;
        }
        let id = self.subprograms.len();
        self.declared.insert(sp, id);
        // Reserved first: a parameter's type may be the class declaring it.
        self.subprograms.push(emit::Subprogram::default());
        self.subprograms[id] = self.subprogram(subprogram, None, true);
        id
    }

    /// The DIE of `subprogram` with its own attributes only (no variables,
    /// scopes or calls): concrete when `function` is its code, else a
    /// declaration or an abstract origin.
    pub fn subprogram(
        &mut self,
        subprogram: &'a DISubprogram,
        function: Option<usize>,
        declaration: bool,
    ) -> emit::Subprogram {
        let specification = match subprogram.declaration {
            Some(declared) if !declaration => Some(self.declaration_of(declared)),
            _ => None,
        };
        let types = self.signature(subprogram.ty);
        let return_type = types.first().and_then(|op| self.operand_type(op));
        let variadic = types.len() > 1 && matches!(types.last(), Some(MdOperand::Null));
        let parameters = if declaration {
            types
                .iter()
                .skip(1)
                .filter_map(|op| match op {
                    MdOperand::Ref(MdRef::Node(id)) => Some(emit::ParameterType {
                        ty: self.type_of(Some(*id)),
                        artificial: self.is_artificial(Some(*id)),
                    }),
                    MdOperand::Null => None,
                    _ => Some(emit::ParameterType {
                        ty: None,
                        artificial: false,
                    }),
                })
                .collect()
        } else {
            Vec::new()
        };
        let flag = |name: &str| has_flag(&subprogram.flags, name);
        let sp_flag = |name: &str| subprogram.sp_flags.iter().any(|f| f == name);
        let virtuality =
            (sp_flag("DISPFlagVirtual") || sp_flag("DISPFlagPureVirtual")).then(|| {
                let index = subprogram
                    .other
                    .iter()
                    .find_map(|(name, value)| match value {
                        MdField::Int(n) if name == "virtualIndex" => Some(*n),
                        _ => None,
                    })
                    .unwrap_or(0);
                emit::Virtuality {
                    pure: sp_flag("DISPFlagPureVirtual"),
                    // LLVM writes no slot for an index of -1u.
                    vtable_index: (index != i128::from(u32::MAX)).then_some(index as u64),
                    containing_type: self.type_of(field_node(&subprogram.other, "containingType")),
                }
            });
        emit::Subprogram {
            name: subprogram.name.clone(),
            linkage_name: subprogram.linkage_name.clone(),
            file: self.files.file(subprogram.file),
            line: subprogram.line,
            return_type,
            external: !subprogram.is_local(),
            prototyped: self.c_language && flag("DIFlagPrototyped"),
            function,
            declaration,
            scope: emit::Scope::default(),
            calls: emit::Calls::default(),
            context: match specification {
                Some(_) => None,
                None => self.scope_of(subprogram.scope),
            },
            specification,
            parameters,
            variadic,
            traits: emit::SubprogramTraits {
                access: access(&subprogram.flags),
                virtuality,
                artificial: flag("DIFlagArtificial"),
                explicit: flag("DIFlagExplicit"),
                deleted: sp_flag("DISPFlagDeleted"),
                noreturn: flag("DIFlagNoReturn"),
            },
            template_parameters: self
                .template_parameters(field_node(&subprogram.other, "templateParams")),
            abstract_origin: None,
        }
    }

    /// The `types:` of a DISubroutineType: the return type, then the
    /// parameters (`null` last for `...`).
    fn signature(&self, ty: Option<MdId>) -> &'a [MdOperand] {
        let debug = self.debug;
        match ty.map(|ty| debug.node(ty)) {
            Some(MdNode::SubroutineType(t)) => t.types.map(|list| debug.tuple(list)).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The template parameters a `templateParams:` tuple lists.
    pub(super) fn template_parameters(
        &mut self,
        list: Option<MdId>,
    ) -> Vec<emit::TemplateParameter> {
        let debug = self.debug;
        let Some(list) = list else {
            return Vec::new();
        };
        let mut parameters = Vec::new();
        for operand in debug.tuple(list) {
            let MdOperand::Ref(MdRef::Node(node)) = operand else {
                continue;
            };
            let MdNode::Other { kind, fields } = debug.node(*node) else {
                continue;
            };
            let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
            let name = match field("name") {
                Some(MdField::Str(name)) if !name.is_empty() => Some(name.clone()),
                _ => None,
            };
            let ty = self.type_of(field_node(fields, "type"));
            let default = field("defaulted") == Some(&MdField::Bool(true));
            let tag = match field("tag") {
                Some(MdField::Name(tag)) => tag.as_str(),
                _ => "DW_TAG_template_value_parameter",
            };
            parameters.push(match (kind.as_str(), tag, field("value")) {
                ("DITemplateTypeParameter", ..) => {
                    emit::TemplateParameter::Type { name, ty, default }
                }
                (_, "DW_TAG_GNU_template_parameter_pack", value) => emit::TemplateParameter::Pack {
                    name,
                    parameters: self.template_parameters(match value {
                        Some(MdField::Ref(Some(MdRef::Node(list)))) => Some(*list),
                        _ => None,
                    }),
                },
                (_, "DW_TAG_GNU_template_template_param", value) => {
                    emit::TemplateParameter::Template {
                        name,
                        template: match value {
                            Some(MdField::Str(template)) => template.clone(),
                            _ => String::new(),
                        },
                    }
                }
                (_, _, value) => emit::TemplateParameter::Value {
                    name,
                    ty,
                    default,
                    value: match value {
                        Some(MdField::Value(value)) => {
                            self.constant(value, field_node(fields, "type"))
                        }
                        _ => None,
                    },
                },
            });
        }
        parameters
    }

    /// An integer constant of type `ty` as LLVM's addConstantValue writes
    /// it (`None` for anything else, or wider than 64 bits).
    pub(super) fn constant(
        &self,
        value: &Constant,
        ty: Option<MdId>,
    ) -> Option<emit::ConstantValue> {
        let Constant::Int { bits, value } = value else {
            return None;
        };
        if *bits > 64 {
            return None;
        }
        Some(if self.is_unsigned(ty) {
            let mask = if *bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            emit::ConstantValue::Unsigned(*value as u64 & mask)
        } else {
            emit::ConstantValue::Signed(*value as i64)
        })
    }

    /// Whether a constant of this type is written unsigned (LLVM's
    /// isUnsignedDIType: pointers, references, bool, unsigned and UTF
    /// characters, aggregates; an enum is signed).
    fn is_unsigned(&self, ty: Option<MdId>) -> bool {
        let mut ty = ty;
        for _ in 0..64 {
            let Some(node) = ty else { return false };
            match self.debug.node(node) {
                MdNode::CompositeType(t) => return t.tag != "DW_TAG_enumeration_type",
                MdNode::DerivedType(t) => match t.tag.as_str() {
                    "DW_TAG_pointer_type"
                    | "DW_TAG_ptr_to_member_type"
                    | "DW_TAG_reference_type"
                    | "DW_TAG_rvalue_reference_type" => return true,
                    _ => ty = t.base_type,
                },
                MdNode::BasicType(t) => {
                    return t.tag.as_deref() == Some("DW_TAG_unspecified_type")
                        || matches!(
                            t.encoding.as_deref(),
                            Some(
                                "DW_ATE_unsigned"
                                    | "DW_ATE_unsigned_char"
                                    | "DW_ATE_UTF"
                                    | "DW_ATE_boolean"
                            )
                        )
                }
                _ => return false,
            }
        }
        false
    }
}
