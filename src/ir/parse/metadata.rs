//! Metadata: numbered slots, specialised DI nodes, tuples, DIExpressions.
//!
//! In: the token cursor and the slot table of the pre-scan. Out: nodes
//! stored in their reserved [`MdId`]s, interned locations and expressions.
//! Promise: a reference to a slot that is never defined is an error
//! (`reference to undefined metadata !N`) at the reference; a location's
//! `inlinedAt` chain that loops back on itself is an error, not a hang.

use super::lexer::{unescape, Tok};
use super::{Lazy, PResult, Parser, Slot};
use crate::ir::debug::*;

/// The fields of a specialised node as read, consumed by typed accessors.
#[derive(Default)]
struct Fields<'a> {
    items: Vec<(&'a str, MdField, u32)>,
    /// Offset of the node, for errors about missing fields.
    offset: u32,
}

impl Fields<'_> {
    fn take(&mut self, name: &str) -> Option<(MdField, u32)> {
        let i = self.items.iter().position(|(n, _, _)| *n == name)?;
        let (_, field, offset) = self.items.remove(i);
        Some((field, offset))
    }

    fn rest(&mut self) -> OtherFields {
        std::mem::take(&mut self.items)
            .into_iter()
            .map(|(n, f, _)| (n.to_string(), f))
            .collect()
    }
}

/// The specialised metadata node kinds LLVM 19 reads (`!DIFile(...)`);
/// another name is an error there ("expected metadata type"), so here too.
const SPECIALISED_NODES: &[&str] = &[
    "DIArgList",
    "DIAssignID",
    "DIBasicType",
    "DICommonBlock",
    "DICompileUnit",
    "DICompositeType",
    "DIDerivedType",
    "DIEnumerator",
    "DIExpression",
    "DIFile",
    "DIGenericSubrange",
    "DIGlobalVariable",
    "DIGlobalVariableExpression",
    "DIImportedEntity",
    "DILabel",
    "DILexicalBlock",
    "DILexicalBlockFile",
    "DILocalVariable",
    "DILocation",
    "DIMacro",
    "DIMacroFile",
    "DIModule",
    "DINamespace",
    "DIObjCProperty",
    "DIStringType",
    "DISubprogram",
    "DISubrange",
    "DISubroutineType",
    "DITemplateTypeParameter",
    "DITemplateValueParameter",
    "GenericDINode",
];

impl<'a> Parser<'a> {
    /// `!N = [distinct] node` at the cursor.
    pub(super) fn parse_md_slot_def(&mut self, n: u32) -> PResult<()> {
        let offset = self.offset();
        self.bump();
        self.expect_punct(b'=')?;
        match self.slots.get(&n).copied() {
            Some(Slot::Node(id)) => {
                let distinct = self.eat_word("distinct");
                let node = self.parse_md_node_body()?;
                self.set_node(id, distinct, node);
                Ok(())
            }
            Some(Slot::Location(..) | Slot::Expr(..)) => {
                self.resolve_slot(n, offset)?;
                self.eat_word("distinct");
                self.bump();
                if !self.is_punct(b'(') {
                    return Err(self.expected("'('"));
                }
                self.skip_group()
            }
            None => Err(self.error_at(offset, format!("reference to undefined metadata !{n}"))),
        }
    }

    /// What `!N` refers to, parsing a lazy location or expression slot on first use.
    fn resolve_slot(&mut self, n: u32, offset: u32) -> PResult<MdRef> {
        let slot = self.slots.get(&n).copied();
        match slot {
            None => Err(self.error_at(offset, format!("reference to undefined metadata !{n}"))),
            Some(Slot::Node(id)) => Ok(MdRef::Node(id)),
            Some(Slot::Location(_, Lazy::Done(id))) => Ok(MdRef::Location(id)),
            Some(Slot::Expr(_, Lazy::Done(id))) => Ok(MdRef::Expr(id)),
            Some(Slot::Location(_, Lazy::InProgress) | Slot::Expr(_, Lazy::InProgress)) => {
                Err(self.error_at(offset, format!("metadata !{n} refers to itself")))
            }
            Some(Slot::Location(start, Lazy::Todo)) => {
                self.slots
                    .insert(n, Slot::Location(start, Lazy::InProgress));
                let id = self.parse_at(start, |p| {
                    let distinct = p.eat_word("distinct");
                    p.bump();
                    p.parse_location_fields(distinct)
                })?;
                self.slots.insert(n, Slot::Location(start, Lazy::Done(id)));
                Ok(MdRef::Location(id))
            }
            Some(Slot::Expr(start, Lazy::Todo)) => {
                self.slots.insert(n, Slot::Expr(start, Lazy::InProgress));
                let id = self.parse_at(start, |p| {
                    p.eat_word("distinct");
                    p.bump();
                    p.parse_expression_ops()
                })?;
                let id = self.module.debug.intern_expr(id);
                self.slots.insert(n, Slot::Expr(start, Lazy::Done(id)));
                Ok(MdRef::Expr(id))
            }
        }
    }

    /// Runs `f` with the cursor at token `start`, then restores the cursor.
    fn parse_at<T>(&mut self, start: usize, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let saved = self.at;
        self.at = start;
        let result = f(self);
        self.at = saved;
        result
    }

    /// A metadata reference: `!N`, or an inline node `!DIx(...)` / `!{...}`.
    pub(super) fn parse_md_ref(&mut self) -> PResult<MdRef> {
        self.nested(Self::parse_md_ref_unguarded)
    }

    fn parse_md_ref_unguarded(&mut self) -> PResult<MdRef> {
        let offset = self.offset();
        match self.peek() {
            Tok::MdNum(n) => {
                self.bump();
                self.resolve_slot(n, offset)
            }
            Tok::MdName("DILocation") => {
                self.bump();
                Ok(MdRef::Location(self.parse_location_fields(false)?))
            }
            Tok::MdName("DIExpression") => {
                self.bump();
                let expr = self.parse_expression_ops()?;
                Ok(MdRef::Expr(self.module.debug.intern_expr(expr)))
            }
            Tok::MdName(_) | Tok::Exclaim => {
                let node = self.parse_md_node_body()?;
                Ok(MdRef::Node(self.module.debug.add_node(false, node)))
            }
            Tok::Ident("distinct") => {
                self.bump();
                let node = self.parse_md_node_body()?;
                Ok(MdRef::Node(self.module.debug.add_node(true, node)))
            }
            _ => Err(self.expected("metadata")),
        }
    }

    /// A reference that must be a location.
    pub(super) fn parse_location_ref(&mut self) -> PResult<LocId> {
        let offset = self.offset();
        match self.parse_md_ref()? {
            MdRef::Location(id) => Ok(id),
            _ => Err(self.error_at(offset, "expected a DILocation")),
        }
    }

    /// A reference that must be an expression.
    pub(super) fn parse_expression_ref(&mut self) -> PResult<ExprId> {
        let offset = self.offset();
        match self.parse_md_ref()? {
            MdRef::Expr(id) => Ok(id),
            _ => Err(self.error_at(offset, "expected a DIExpression")),
        }
    }

    /// A reference that must be a general node.
    pub(super) fn parse_node_ref(&mut self) -> PResult<MdId> {
        let offset = self.offset();
        let target = self.parse_md_ref()?;
        self.expect_node(target, offset)
    }

    /// A node body after `=` and `distinct`: a tuple or a specialised node.
    fn parse_md_node_body(&mut self) -> PResult<MdNode> {
        let offset = self.offset();
        match self.peek() {
            Tok::Exclaim => {
                self.bump();
                self.parse_tuple()
            }
            Tok::MdName(kind) => {
                self.bump();
                if matches!(kind, "DILocation" | "DIExpression" | "DIArgList") {
                    return Err(self.error_at(offset, format!("!{kind} is not allowed here")));
                }
                if !SPECIALISED_NODES.contains(&kind) {
                    return Err(
                        self.error_at(offset, format!("expected metadata type, found !{kind}"))
                    );
                }
                let fields = self.parse_fields()?;
                self.build_node(kind, fields)
            }
            _ => Err(self.expected("a metadata node")),
        }
    }

    /// `{ operand, ... }` after `!`.
    fn parse_tuple(&mut self) -> PResult<MdNode> {
        self.expect_punct(b'{')?;
        let mut ops = Vec::new();
        if self.eat(Tok::Punct(b'}')) {
            return Ok(MdNode::Tuple(ops));
        }
        loop {
            let op = match self.peek() {
                Tok::Ident("null") => {
                    self.bump();
                    MdOperand::Null
                }
                Tok::MdString(raw) => {
                    self.bump();
                    MdOperand::Str(decode(raw))
                }
                Tok::MdNum(_) | Tok::MdName(_) | Tok::Exclaim | Tok::Ident("distinct") => {
                    MdOperand::Ref(self.parse_md_ref()?)
                }
                _ => MdOperand::Value(self.parse_typed_constant()?),
            };
            ops.push(op);
            if self.eat(Tok::Punct(b'}')) {
                return Ok(MdNode::Tuple(ops));
            }
            self.expect_punct(b',')?;
        }
    }

    /// `(name: value, ...)` of a specialised node.
    fn parse_fields(&mut self) -> PResult<Fields<'a>> {
        let offset = self.offset();
        self.expect_punct(b'(')?;
        // Room for the fields of the largest common nodes (DISubprogram,
        // DICompositeType), so reading one does not grow the list.
        let mut items = Vec::with_capacity(16);
        if !self.eat(Tok::Punct(b')')) {
            loop {
                let Tok::LabelDef(name) = self.peek() else {
                    return Err(self.expected("a field name"));
                };
                let field_offset = self.offset();
                self.bump();
                let value = self.parse_field_value()?;
                items.push((name, value, field_offset));
                if self.eat(Tok::Punct(b')')) {
                    break;
                }
                self.expect_punct(b',')?;
            }
        }
        Ok(Fields { items, offset })
    }

    fn parse_field_value(&mut self) -> PResult<MdField> {
        Ok(match self.peek() {
            Tok::Int(_) => MdField::Int(self.int()?),
            Tok::Str(raw) => {
                let text = decode(raw);
                if text.contains('\0') {
                    // DWARF strings end at the first NUL: the rest would be lost.
                    return Err(self.error_at(
                        self.offset(),
                        "a debug-info string cannot contain a NUL byte",
                    ));
                }
                self.bump();
                MdField::Str(text)
            }
            Tok::Ident("null") => {
                self.bump();
                MdField::Ref(None)
            }
            Tok::Ident(word @ ("true" | "false")) => {
                self.bump();
                MdField::Bool(word == "true")
            }
            _ if self.at_type() => MdField::Value(self.parse_typed_constant()?),
            Tok::Ident(word) => {
                self.bump();
                if self.is_punct(b'|') || word.starts_with("DIFlag") || word.starts_with("DISPFlag")
                {
                    let mut flags = vec![word.to_string()];
                    while self.eat(Tok::Punct(b'|')) {
                        match self.peek() {
                            Tok::Ident(w) => flags.push(w.to_string()),
                            Tok::Int(w) => flags.push(w.to_string()),
                            _ => return Err(self.expected("a flag")),
                        }
                        self.bump();
                    }
                    MdField::Flags(flags)
                } else {
                    MdField::Name(word.to_string())
                }
            }
            Tok::MdNum(_) => MdField::Ref(Some(self.parse_md_ref()?)),
            Tok::MdName(_) | Tok::Exclaim => MdField::Inline(self.parse_md_ref()?),
            Tok::MdString(raw) => {
                self.bump();
                MdField::Str(decode(raw))
            }
            _ => return Err(self.expected("a field value")),
        })
    }

    // ----- typed field accessors -----

    fn field_int(&self, fields: &mut Fields, name: &str) -> PResult<Option<i128>> {
        match fields.take(name) {
            None => Ok(None),
            Some((MdField::Int(v), _)) => Ok(Some(v)),
            Some((_, offset)) => {
                Err(self.error_at(offset, format!("field '{name}' expects an integer")))
            }
        }
    }

    fn field_u32(&self, fields: &mut Fields, name: &str) -> PResult<u32> {
        let offset = fields.offset;
        match self.field_int(fields, name)? {
            None => Ok(0),
            Some(v) => u32::try_from(v)
                .map_err(|_| self.error_at(offset, format!("field '{name}' out of range"))),
        }
    }

    fn field_u64(&self, fields: &mut Fields, name: &str) -> PResult<u64> {
        let offset = fields.offset;
        match self.field_int(fields, name)? {
            None => Ok(0),
            Some(v) => u64::try_from(v)
                .map_err(|_| self.error_at(offset, format!("field '{name}' out of range"))),
        }
    }

    fn field_string(&self, fields: &mut Fields, name: &str) -> PResult<Option<String>> {
        match fields.take(name) {
            None => Ok(None),
            Some((MdField::Str(s), _)) => Ok(Some(s)),
            Some((_, offset)) => {
                Err(self.error_at(offset, format!("field '{name}' expects a string")))
            }
        }
    }

    fn field_node(&self, fields: &mut Fields, name: &str) -> PResult<Option<MdId>> {
        match fields.take(name) {
            None | Some((MdField::Ref(None), _)) => Ok(None),
            Some((MdField::Ref(Some(MdRef::Node(id))) | MdField::Inline(MdRef::Node(id)), _)) => {
                Ok(Some(id))
            }
            Some((_, offset)) => {
                Err(self.error_at(offset, format!("field '{name}' expects a metadata node")))
            }
        }
    }

    fn required_node(&self, fields: &mut Fields, name: &str) -> PResult<MdId> {
        let offset = fields.offset;
        self.field_node(fields, name)?
            .ok_or_else(|| self.error_at(offset, format!("missing field '{name}'")))
    }

    fn required_string(&self, fields: &mut Fields, name: &str) -> PResult<String> {
        let offset = fields.offset;
        self.field_string(fields, name)?
            .ok_or_else(|| self.error_at(offset, format!("missing required field '{name}'")))
    }

    fn required_name(&self, fields: &mut Fields, name: &str) -> PResult<String> {
        let offset = fields.offset;
        self.field_name(fields, name)?
            .ok_or_else(|| self.error_at(offset, format!("missing required field '{name}'")))
    }

    fn field_name(&self, fields: &mut Fields, name: &str) -> PResult<Option<String>> {
        match fields.take(name) {
            None => Ok(None),
            Some((MdField::Name(s), _)) => Ok(Some(s)),
            Some((MdField::Flags(f), _)) if f.len() == 1 => Ok(f.into_iter().next()),
            Some((_, offset)) => {
                Err(self.error_at(offset, format!("field '{name}' expects a named constant")))
            }
        }
    }

    fn field_flags(&self, fields: &mut Fields, name: &str) -> PResult<Vec<String>> {
        match fields.take(name) {
            None => Ok(Vec::new()),
            Some((MdField::Flags(f), _)) => Ok(f),
            Some((MdField::Name(s), _)) => Ok(vec![s]),
            Some((MdField::Int(0), _)) => Ok(Vec::new()),
            Some((_, offset)) => {
                Err(self.error_at(offset, format!("field '{name}' expects flags")))
            }
        }
    }

    fn field_bool(&self, fields: &mut Fields, name: &str) -> PResult<Option<bool>> {
        match fields.take(name) {
            None => Ok(None),
            Some((MdField::Bool(b), _)) => Ok(Some(b)),
            Some((_, offset)) => {
                Err(self.error_at(offset, format!("field '{name}' expects true or false")))
            }
        }
    }

    /// Builds a typed node from its kind and fields. As in LLVM, a field
    /// the kind does not have is an error (`invalid field`), and so is a
    /// missing required one; kinds that keep unmodelled fields (`other`)
    /// take every field.
    fn build_node(&mut self, kind: &str, mut f: Fields) -> PResult<MdNode> {
        let node = self.build_node_fields(kind, &mut f)?;
        if let Some((name, _, offset)) = f.items.first() {
            return Err(self.error_at(*offset, format!("invalid field '{name}' of {kind}")));
        }
        Ok(node)
    }

    fn build_node_fields(&mut self, kind: &str, f: &mut Fields) -> PResult<MdNode> {
        Ok(match kind {
            "DICompileUnit" => MdNode::CompileUnit(DICompileUnit {
                language: self.required_name(f, "language")?,
                file: Some(self.required_node(f, "file")?),
                producer: self.field_string(f, "producer")?,
                is_optimized: self.field_bool(f, "isOptimized")?.unwrap_or(false),
                emission_kind: self.field_name(f, "emissionKind")?,
                enums: self.field_node(f, "enums")?,
                retained_types: self.field_node(f, "retainedTypes")?,
                globals: self.field_node(f, "globals")?,
                other: f.rest(),
            }),
            "DIFile" => {
                let filename = self.required_string(f, "filename")?;
                let directory = self.required_string(f, "directory")?;
                let kind = self.field_name(f, "checksumkind")?;
                let sum = self.field_string(f, "checksum")?;
                MdNode::File(DIFile {
                    filename,
                    directory,
                    checksum: kind.zip(sum),
                    source: self.field_string(f, "source")?,
                })
            }
            "DISubprogram" => MdNode::Subprogram(DISubprogram {
                name: self.field_string(f, "name")?.unwrap_or_default(),
                linkage_name: self.field_string(f, "linkageName")?,
                scope: self.field_node(f, "scope")?,
                file: self.field_node(f, "file")?,
                line: self.field_u32(f, "line")?,
                ty: self.field_node(f, "type")?,
                scope_line: self.field_u32(f, "scopeLine")?,
                flags: self.field_flags(f, "flags")?,
                sp_flags: self.field_flags(f, "spFlags")?,
                unit: self.field_node(f, "unit")?,
                retained_nodes: self.field_node(f, "retainedNodes")?,
                declaration: self.field_node(f, "declaration")?,
                other: f.rest(),
            }),
            "DILexicalBlock" => MdNode::LexicalBlock(DILexicalBlock {
                scope: self.required_node(f, "scope")?,
                file: self.field_node(f, "file")?,
                line: self.field_u32(f, "line")?,
                column: self.field_u32(f, "column")?,
            }),
            "DILexicalBlockFile" => MdNode::LexicalBlockFile(DILexicalBlockFile {
                scope: self.required_node(f, "scope")?,
                file: self.field_node(f, "file")?,
                discriminator: self.field_u32(f, "discriminator")?,
            }),
            "DILocalVariable" => MdNode::LocalVariable(DILocalVariable {
                name: self.field_string(f, "name")?.unwrap_or_default(),
                arg: Some(self.field_u32(f, "arg")?).filter(|&a| a != 0),
                scope: self.required_node(f, "scope")?,
                file: self.field_node(f, "file")?,
                line: self.field_u32(f, "line")?,
                ty: self.field_node(f, "type")?,
                flags: self.field_flags(f, "flags")?,
                align: self
                    .field_int(f, "align")?
                    .and_then(|a| u32::try_from(a).ok()),
            }),
            "DILabel" => MdNode::Label(DILabel {
                scope: self.required_node(f, "scope")?,
                name: self.field_string(f, "name")?.unwrap_or_default(),
                file: self.field_node(f, "file")?,
                line: self.field_u32(f, "line")?,
            }),
            "DIBasicType" => MdNode::BasicType(DIBasicType {
                tag: self.field_name(f, "tag")?,
                name: self.field_string(f, "name")?.unwrap_or_default(),
                size: self.field_u64(f, "size")?,
                align: Some(self.field_u64(f, "align")?).filter(|&a| a != 0),
                encoding: self.field_name(f, "encoding")?,
                flags: self.field_flags(f, "flags")?,
            }),
            "DIDerivedType" => MdNode::DerivedType(DIDerivedType {
                tag: self.required_name(f, "tag")?,
                name: self.field_string(f, "name")?,
                scope: self.field_node(f, "scope")?,
                file: self.field_node(f, "file")?,
                line: self.field_u32(f, "line")?,
                base_type: self.field_node(f, "baseType")?,
                size: self.field_u64(f, "size")?,
                align: Some(self.field_u64(f, "align")?).filter(|&a| a != 0),
                offset: self.field_u64(f, "offset")?,
                flags: self.field_flags(f, "flags")?,
                other: f.rest(),
            }),
            "DICompositeType" => MdNode::CompositeType(DICompositeType {
                tag: self.required_name(f, "tag")?,
                name: self.field_string(f, "name")?,
                scope: self.field_node(f, "scope")?,
                file: self.field_node(f, "file")?,
                line: self.field_u32(f, "line")?,
                base_type: self.field_node(f, "baseType")?,
                size: self.field_u64(f, "size")?,
                align: Some(self.field_u64(f, "align")?).filter(|&a| a != 0),
                flags: self.field_flags(f, "flags")?,
                elements: self.field_node(f, "elements")?,
                identifier: self.field_string(f, "identifier")?,
                other: f.rest(),
            }),
            "DISubroutineType" => MdNode::SubroutineType(DISubroutineType {
                flags: self.field_flags(f, "flags")?,
                cc: self.field_name(f, "cc")?,
                types: self.field_node(f, "types")?,
            }),
            "DISubrange" => MdNode::Subrange(DISubrange {
                count: f.take("count").map(|(v, _)| v),
                other: f.rest(),
            }),
            "DIEnumerator" => MdNode::Enumerator(DIEnumerator {
                name: self.field_string(f, "name")?.unwrap_or_default(),
                value: self.field_int(f, "value")?.unwrap_or(0),
                is_unsigned: self.field_bool(f, "isUnsigned")?.unwrap_or(false),
            }),
            "DIGlobalVariable" => MdNode::GlobalVariable(DIGlobalVariable {
                name: self.field_string(f, "name")?.unwrap_or_default(),
                linkage_name: self.field_string(f, "linkageName")?,
                scope: self.field_node(f, "scope")?,
                file: self.field_node(f, "file")?,
                line: self.field_u32(f, "line")?,
                ty: self.field_node(f, "type")?,
                is_local: self.field_bool(f, "isLocal")?.unwrap_or(false),
                is_definition: self.field_bool(f, "isDefinition")?.unwrap_or(true),
                other: f.rest(),
            }),
            "DIGlobalVariableExpression" => {
                let var = self.required_node(f, "var")?;
                let expr = match f.take("expr") {
                    Some((
                        MdField::Ref(Some(MdRef::Expr(e))) | MdField::Inline(MdRef::Expr(e)),
                        _,
                    )) => e,
                    None => self.module.debug.intern_expr(DIExpression::default()),
                    Some((_, offset)) => {
                        return Err(self.error_at(offset, "field 'expr' expects a DIExpression"))
                    }
                };
                MdNode::GlobalVariableExpression(DIGlobalVariableExpression { var, expr })
            }
            "DIAssignID" => MdNode::AssignId,
            _ => MdNode::Other {
                kind: kind.to_string(),
                fields: f.rest(),
            },
        })
    }

    /// The fields of a DILocation, with the cursor at its `(`.
    fn parse_location_fields(&mut self, distinct: bool) -> PResult<LocId> {
        let mut f = self.parse_fields()?;
        let line = self.field_u32(&mut f, "line")?;
        let column = self.field_u32(&mut f, "column")?;
        let scope = self.required_node(&mut f, "scope")?;
        let inlined_at = match f.take("inlinedAt") {
            None | Some((MdField::Ref(None), _)) => None,
            Some((
                MdField::Ref(Some(MdRef::Location(id))) | MdField::Inline(MdRef::Location(id)),
                _,
            )) => Some(id),
            Some((_, offset)) => {
                return Err(self.error_at(offset, "field 'inlinedAt' expects a DILocation"))
            }
        };
        let implicit_code = self.field_bool(&mut f, "isImplicitCode")?.unwrap_or(false);
        // Key Instructions: the group is 61 bits and the rank 3, as in LLVM.
        let atom_group = self.field_u64(&mut f, "atomGroup")?;
        if atom_group >= 1 << 61 {
            return Err(self.error_at(f.offset, "field 'atomGroup' out of range"));
        }
        let atom_rank = match u8::try_from(self.field_u32(&mut f, "atomRank")?) {
            Ok(rank) if rank <= 7 => rank,
            _ => return Err(self.error_at(f.offset, "field 'atomRank' out of range")),
        };
        if let Some((name, _, offset)) = f.items.first() {
            return Err(self.error_at(*offset, format!("invalid field '{name}' of DILocation")));
        }
        Ok(self.module.debug.intern_location(DILocation {
            line,
            column,
            scope,
            inlined_at,
            implicit_code,
            distinct,
            atom_group,
            atom_rank,
        }))
    }

    /// `(DW_OP_x, N, ...)` of a DIExpression, with the cursor at its `(`.
    pub(super) fn parse_expression_ops(&mut self) -> PResult<DIExpression> {
        self.expect_punct(b'(')?;
        let mut elements: Vec<(Tok<'a>, u32)> = Vec::new();
        if !self.eat(Tok::Punct(b')')) {
            loop {
                match self.peek() {
                    tok @ (Tok::Ident(_) | Tok::Int(_)) => elements.push((tok, self.offset())),
                    _ => return Err(self.expected("a DWARF operation or integer")),
                }
                self.bump();
                if self.eat(Tok::Punct(b')')) {
                    break;
                }
                self.expect_punct(b',')?;
            }
        }
        self.expression_from_elements(&elements)
    }

    fn expression_from_elements(&self, elements: &[(Tok<'a>, u32)]) -> PResult<DIExpression> {
        let mut ops = Vec::new();
        let mut i = 0;
        while i < elements.len() {
            let (tok, offset) = elements[i];
            let Tok::Ident(name) = tok else {
                return Err(self.error_at(offset, "expected a DWARF operation"));
            };
            i += 1;
            // The integer (or DW_ATE name) arguments that follow.
            let args_end = elements[i..]
                .iter()
                .position(|(t, _)| matches!(t, Tok::Ident(w) if w.starts_with("DW_OP_")))
                .map_or(elements.len(), |n| i + n);
            let args = &elements[i..args_end];
            let arg = |k: usize| -> PResult<u64> {
                match args.get(k) {
                    Some((Tok::Int(text), at)) => super::parse_int(text)
                        .map(|v| v as u64)
                        .ok_or_else(|| self.error_at(*at, format!("invalid integer '{text}'"))),
                    _ => Err(self.error_at(offset, format!("{name} needs {} argument(s)", k + 1))),
                }
            };
            let (op, used) = match name {
                "DW_OP_LLVM_arg" => (ExprOp::Arg(arg(0)? as u32), 1),
                "DW_OP_constu" => (ExprOp::Constu(arg(0)?), 1),
                "DW_OP_consts" => (ExprOp::Consts(arg(0)? as i64), 1),
                "DW_OP_plus_uconst" => (ExprOp::PlusUconst(arg(0)?), 1),
                "DW_OP_deref_size" => (ExprOp::DerefSize(arg(0)? as u8), 1),
                "DW_OP_LLVM_entry_value" => (ExprOp::EntryValue(arg(0)?), 1),
                "DW_OP_LLVM_fragment" => (
                    ExprOp::Fragment {
                        offset: arg(0)?,
                        size: arg(1)?,
                    },
                    2,
                ),
                "DW_OP_LLVM_convert" => {
                    let bits = arg(0)? as u32;
                    match args.get(1) {
                        Some((Tok::Ident("DW_ATE_signed"), _)) => {
                            (ExprOp::Convert { bits, signed: true }, 2)
                        }
                        Some((Tok::Ident("DW_ATE_unsigned"), _)) => (
                            ExprOp::Convert {
                                bits,
                                signed: false,
                            },
                            2,
                        ),
                        _ => (other_op(name, args), args.len()),
                    }
                }
                "DW_OP_plus" => (ExprOp::Plus, 0),
                "DW_OP_minus" => (ExprOp::Minus, 0),
                "DW_OP_mul" => (ExprOp::Mul, 0),
                "DW_OP_div" => (ExprOp::Div, 0),
                "DW_OP_mod" => (ExprOp::Mod, 0),
                "DW_OP_and" => (ExprOp::And, 0),
                "DW_OP_or" => (ExprOp::Or, 0),
                "DW_OP_xor" => (ExprOp::Xor, 0),
                "DW_OP_shl" => (ExprOp::Shl, 0),
                "DW_OP_shr" => (ExprOp::Shr, 0),
                "DW_OP_shra" => (ExprOp::Shra, 0),
                "DW_OP_neg" => (ExprOp::Neg, 0),
                "DW_OP_not" => (ExprOp::Not, 0),
                "DW_OP_deref" => (ExprOp::Deref, 0),
                "DW_OP_stack_value" => (ExprOp::StackValue, 0),
                _ => match (literal(name), Comparison::from_name(name)) {
                    (Some(n), _) => (ExprOp::Lit(n), 0),
                    (None, Some(comparison)) => (ExprOp::Compare(comparison), 0),
                    (None, None) => (other_op(name, args), args.len()),
                },
            };
            if used != args.len() {
                return Err(self.error_at(offset, format!("wrong number of arguments to {name}")));
            }
            ops.push(op);
            i = args_end;
        }
        Ok(DIExpression { ops })
    }
}

/// N of `DW_OP_litN` (0 to 31).
fn literal(name: &str) -> Option<u8> {
    let digits = name.strip_prefix("DW_OP_lit")?;
    let n: u8 = digits.parse().ok()?;
    (n < 32 && n.to_string() == digits).then_some(n)
}

/// An operation the model does not name, with its arguments as integers
/// (`DW_ATE_*` names become their DWARF codes, which LLVM also accepts).
fn other_op(name: &str, args: &[(Tok<'_>, u32)]) -> ExprOp {
    ExprOp::Other {
        name: name.to_string(),
        args: args
            .iter()
            .filter_map(|(t, _)| match t {
                Tok::Int(text) => super::parse_int(text).map(|v| v as u64),
                Tok::Ident(word) => ate_code(word),
                _ => None,
            })
            .collect(),
    }
}

/// The DWARF code of a `DW_ATE_*` base type encoding name.
fn ate_code(name: &str) -> Option<u64> {
    Some(match name {
        "DW_ATE_address" => 0x01,
        "DW_ATE_boolean" => 0x02,
        "DW_ATE_float" => 0x04,
        "DW_ATE_signed" => 0x05,
        "DW_ATE_signed_char" => 0x06,
        "DW_ATE_unsigned" => 0x07,
        "DW_ATE_unsigned_char" => 0x08,
        "DW_ATE_UTF" => 0x10,
        _ => return None,
    })
}

/// Decodes a string body into text.
fn decode(raw: &str) -> String {
    String::from_utf8_lossy(&unescape(raw)).into_owned()
}

#[cfg(test)]
mod tests {
    use crate::ir::debug::ExprOp;
    use crate::ir::parse::parse_module;

    /// The operations of the expression of the only record in `f`.
    fn record_ops(location: &str, expr: &str) -> Vec<ExprOp> {
        let text = format!(
            "define void @f(i32 %x) !dbg !1 {{\n  #dbg_value({location}, !2, {expr}, !3)\n  ret void\n}}\n\
             !1 = distinct !DISubprogram(name: \"f\")\n!2 = !DILocalVariable(name: \"v\", scope: !1)\n\
             !3 = !DILocation(line: 1, scope: !1)\n"
        );
        let m = parse_module(&text, "t.ll").unwrap_or_else(|d| panic!("{d}"));
        let record = &m.functions[0].insts[0].records[0];
        m.debug.expr(record.expr).ops.clone()
    }

    #[test]
    fn single_location_expressions_get_an_explicit_arg() {
        assert_eq!(record_ops("i32 %x", "!DIExpression()"), [ExprOp::Arg(0)]);
        assert_eq!(
            record_ops(
                "i32 %x",
                "!DIExpression(DW_OP_plus_uconst, 4, DW_OP_stack_value)"
            ),
            [ExprOp::Arg(0), ExprOp::PlusUconst(4), ExprOp::StackValue]
        );
        assert_eq!(
            record_ops(
                "!DIArgList(i32 %x)",
                "!DIExpression(DW_OP_LLVM_arg, 0, DW_OP_stack_value)"
            ),
            [ExprOp::Arg(0), ExprOp::StackValue]
        );
    }

    #[test]
    fn every_operation_form() {
        assert_eq!(
            record_ops(
                "i32 %x",
                "!DIExpression(DW_OP_LLVM_convert, 32, DW_ATE_signed, DW_OP_LLVM_convert, 8, \
                 DW_ATE_unsigned_char, DW_OP_consts, 18446744073709551615, DW_OP_swap, \
                 DW_OP_deref_size, 4, DW_OP_LLVM_fragment, 8, 24)"
            ),
            [
                ExprOp::Arg(0),
                ExprOp::Convert {
                    bits: 32,
                    signed: true
                },
                ExprOp::Other {
                    name: "DW_OP_LLVM_convert".into(),
                    args: vec![8, 8]
                },
                ExprOp::Consts(-1),
                ExprOp::Other {
                    name: "DW_OP_swap".into(),
                    args: vec![]
                },
                ExprOp::DerefSize(4),
                ExprOp::Fragment {
                    offset: 8,
                    size: 24
                },
            ]
        );
    }

    #[test]
    fn literals_and_comparisons_are_named_and_print_back() {
        use crate::ir::debug::Comparison;
        let expr = "!DIExpression(DW_OP_lit31, DW_OP_ne, DW_OP_lit0, DW_OP_ge, DW_OP_lit32)";
        let ops = record_ops("i32 %x", expr);
        assert_eq!(
            ops[..5],
            [
                ExprOp::Arg(0),
                ExprOp::Lit(31),
                ExprOp::Compare(Comparison::Ne),
                ExprOp::Lit(0),
                ExprOp::Compare(Comparison::Ge),
            ]
        );
        assert!(matches!(&ops[5], ExprOp::Other { name, .. } if name == "DW_OP_lit32"));
        let text = format!(
            "define void @f(i32 %x) !dbg !1 {{\n  #dbg_value(i32 %x, !2, {expr}, !3)\n  ret void\n}}\n\
             !1 = distinct !DISubprogram(name: \"f\")\n!2 = !DILocalVariable(name: \"v\", scope: !1)\n\
             !3 = !DILocation(line: 1, scope: !1)\n"
        );
        let m = parse_module(&text, "t.ll").unwrap_or_else(|d| panic!("{d}"));
        let printed = crate::ir::print::print_module(&m, Default::default());
        assert!(printed.contains(expr), "{printed}");
    }

    #[test]
    fn malformed_expressions_are_errors() {
        let text = "define void @f(i32 %x) !dbg !1 {\n  #dbg_value(i32 %x, !2, !DIExpression(DW_OP_LLVM_fragment, 8), !3)\n  ret void\n}\n\
                    !1 = distinct !DISubprogram(name: \"f\")\n!2 = !DILocalVariable(name: \"v\", scope: !1)\n\
                    !3 = !DILocation(line: 1, scope: !1)\n";
        let error = parse_module(text, "t.ll").unwrap_err();
        assert_eq!(
            error.to_string(),
            "t.ll:2:40: error: DW_OP_LLVM_fragment needs 2 argument(s)"
        );
    }
}
