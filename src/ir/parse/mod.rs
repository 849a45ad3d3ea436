//! The .ll parser: LLVM IR text (clang 14–19) into an [`ir::Module`](Module).
//!
//! In: the text of one .ll file and its name (for diagnostics). Out: a
//! [`Module`], or the first error as a [`Diagnostic`] with file:line:col.
//!
//! How: the [`lexer`] turns the text into borrowed tokens; a pre-scan
//! numbers every top-level entity (named structs, globals, functions,
//! metadata slots) so forward references resolve; then recursive descent
//! reads the items in file order. Metadata nodes get their [`MdId`]s up
//! front; DILocations and DIExpressions are interned when first referenced.
//!
//! Promises: both debug syntaxes give the same records (`#dbg_value(...)`
//! and `call void @llvm.dbg.value(...)`); typed pointers become `ptr`;
//! record expressions are normalised to explicit `DW_OP_LLVM_arg`;
//! `llvm.dbg.*` declarations are not kept as functions. Module-level
//! constructs (attribute groups, comdats, visibility, thread-local modes,
//! sections, partitions, gc, prefix/prologue/personality, parameter
//! attributes the model does not interpret) are kept, some as written;
//! so are instruction metadata attachments and call-site attribute groups. Never panics: every
//! malformed input, truncated ones included, gives a diagnostic.

mod body;
pub mod lexer;
mod metadata;
mod records;
mod ty;

use crate::ir::hash::FxHashMap;

use lexer::{LineIndex, Tok, Token};

use super::debug::{ExprId, LocId, MdEntry, MdId, MdNode, MdRef};
use super::inst::ParamAttrs;
use super::module::{
    AttributeGroup, Comdat, Function, Global, Linkage, Module, ModuleAsm, NamedMetadata,
    SymbolAttrs, UnnamedAddr,
};
use super::types::{StructDef, StructId, Type};
use super::value::{FuncId, GlobalId, GlobalRef};
use crate::error::{Diagnostic, Pos};

/// Parses a whole .ll file.
pub fn parse_module(text: &str, file_name: &str) -> Result<Module, Diagnostic> {
    let (tokens, lines) = lexer::lex_with_lines(text).map_err(|(message, offset)| Diagnostic {
        file: file_name.to_string(),
        pos: LineIndex::new(text).pos(offset),
        message,
    })?;
    let mut parser = Parser {
        file: file_name,
        text,
        lines,
        tokens,
        at: 0,
        module: Module::default(),
        structs: FxHashMap::default(),
        globals: FxHashMap::default(),
        slots: FxHashMap::default(),
        nesting: 0,
        compile_unit_refs: Vec::new(),
    };
    // A file cut off inside a body or node is reported as cut off, even
    // when an earlier reference (to metadata that was cut away) fails first
    // (the braces are counted only then).
    let cut_off = |error: Diagnostic, parser: &Parser| {
        let count = |brace: u8| {
            parser
                .tokens
                .iter()
                .filter(|t| matches!(t.tok, Tok::Punct(b) if b == brace))
                .count()
        };
        if count(b'{') > count(b'}') {
            parser.error_at(text.len() as u32, "unexpected end of file")
        } else {
            error
        }
    };
    if let Err(error) = parser.prescan() {
        return Err(cut_off(error, &parser));
    }
    if let Err(error) = parser.parse_items() {
        return Err(cut_off(error, &parser));
    }
    parser.check_compile_units()?;
    let mut module = parser.module;
    renumber_attribute_groups(&mut module, file_name)?;
    Ok(module)
}

/// Keeps the attribute groups the kept functions reference, numbered in
/// order of first reference (as LLVM numbers them when printing), so that a
/// module prints the same whichever debug syntax it was read in (the
/// `llvm.dbg.*` declarations are not kept) and whatever numbers it used.
fn renumber_attribute_groups(module: &mut Module, file_name: &str) -> Result<(), Diagnostic> {
    let mut order: Vec<u32> = Vec::new();
    for function in &mut module.functions {
        let call_sites = function
            .insts
            .iter_mut()
            .flat_map(|i| i.attr_groups.iter_mut());
        for group in function.attrs.attribute_groups.iter_mut().chain(call_sites) {
            if !module.attribute_groups.iter().any(|g| g.number == *group) {
                return Err(Diagnostic {
                    file: file_name.to_string(),
                    pos: function.pos,
                    message: format!("undefined attribute group #{group}"),
                });
            }
            let new = match order.iter().position(|old| old == group) {
                Some(at) => at,
                None => {
                    order.push(*group);
                    order.len() - 1
                }
            };
            *group = new as u32;
        }
    }
    let mut groups = std::mem::take(&mut module.attribute_groups);
    module.attribute_groups = order
        .iter()
        .enumerate()
        .filter_map(|(new, old)| {
            let at = groups.iter().position(|g| g.number == *old)?;
            let mut group = groups.swap_remove(at);
            group.number = new as u32;
            Some(group)
        })
        .collect();
    Ok(())
}

type PResult<T> = Result<T, Diagnostic>;

/// A metadata slot `!N` and how far it has been resolved.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// A general node with its reserved id.
    Node(MdId),
    /// A DILocation defined at this token, resolved lazily.
    Location(usize, Lazy<LocId>),
    /// A DIExpression defined at this token, resolved lazily.
    Expr(usize, Lazy<ExprId>),
}

/// Resolution state of a lazily parsed slot.
#[derive(Clone, Copy, Debug)]
enum Lazy<T> {
    Todo,
    InProgress,
    Done(T),
}

/// The parser state: tokens, cursor, the module being built and the
/// symbol tables of the pre-scan.
struct Parser<'a> {
    file: &'a str,
    /// The whole input, for keeping attributes as written.
    text: &'a str,
    lines: LineIndex,
    tokens: Vec<Token<'a>>,
    at: usize,
    module: Module,
    structs: FxHashMap<&'a str, StructId>,
    globals: FxHashMap<&'a str, GlobalRef>,
    slots: FxHashMap<u32, Slot>,
    /// Depth of nested types, constants and inline metadata being read.
    nesting: u32,
    /// The operands of `!llvm.dbg.cu` and where each is written: each must
    /// be a DICompileUnit, which only the finished module can tell.
    compile_unit_refs: Vec<(MdRef, u32)>,
}

/// How deep types, constants and inline metadata may nest before the input
/// is refused (a guard against stack exhaustion on hostile input).
const MAX_NESTING: u32 = 64;

/// Describes a token for an error message.
fn describe(tok: Tok<'_>) -> String {
    match tok {
        Tok::Ident(s) => format!("'{s}'"),
        Tok::Local(s) => format!("'%{s}'"),
        Tok::Global(s) => format!("'@{s}'"),
        Tok::MdNum(n) => format!("'!{n}'"),
        Tok::MdName(s) => format!("'!{s}'"),
        Tok::MdString(_) => "a metadata string".to_string(),
        Tok::Exclaim => "'!'".to_string(),
        Tok::Str(_) | Tok::CStr(_) => "a string".to_string(),
        Tok::Int(s) | Tok::Float(s) => format!("'{s}'"),
        Tok::LabelDef(s) => format!("label '{s}:'"),
        Tok::AttrRef(n) => format!("'#{n}'"),
        Tok::Hash(s) => format!("'#{s}'"),
        Tok::Punct(c) => format!("'{}'", c as char),
        Tok::Ellipsis => "'...'".to_string(),
        Tok::Eof => "end of file".to_string(),
    }
}

/// Whether a word names a first-class or aggregate type's start.
fn is_type_word(word: &str) -> bool {
    matches!(word, "void" | "ptr" | "label" | "metadata")
        || super::types::FloatKind::from_name(word).is_some()
        || word
            .strip_prefix('i')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

impl<'a> Parser<'a> {
    // ----- cursor -----

    fn peek(&self) -> Tok<'a> {
        self.tokens[self.at].tok
    }

    fn peek_n(&self, n: usize) -> Tok<'a> {
        self.tokens[(self.at + n).min(self.tokens.len() - 1)].tok
    }

    fn offset(&self) -> u32 {
        self.tokens[self.at].offset
    }

    fn bump(&mut self) -> Token<'a> {
        let token = self.tokens[self.at];
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
        token
    }

    fn eat(&mut self, tok: Tok<'_>) -> bool {
        // Punctuation, most of what is eaten, compared without the general
        // token comparison (a call per token otherwise).
        let same = match (self.peek(), tok) {
            (Tok::Punct(a), Tok::Punct(b)) => a == b,
            (_, Tok::Punct(_)) => false,
            (next, tok) => next == tok,
        };
        if same {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        self.eat(Tok::Ident(word))
    }

    fn expect(&mut self, tok: Tok<'_>) -> PResult<()> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.expected(&describe(tok)))
        }
    }

    fn expect_punct(&mut self, c: u8) -> PResult<()> {
        self.expect(Tok::Punct(c))
    }

    fn expect_word(&mut self, word: &str) -> PResult<()> {
        self.expect(Tok::Ident(word))
    }

    fn is_punct(&self, c: u8) -> bool {
        matches!(self.peek(), Tok::Punct(p) if p == c)
    }

    /// Runs a recursive reader one nesting level deeper, refusing input
    /// nested more than [`MAX_NESTING`] levels.
    fn nested<T>(&mut self, read: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.nesting >= MAX_NESTING {
            return Err(self.error_at(self.offset(), "nesting too deep"));
        }
        self.nesting += 1;
        let result = read(self);
        self.nesting -= 1;
        result
    }

    // ----- errors -----

    fn error_at(&self, offset: u32, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: self.file.to_string(),
            pos: self.lines.pos(offset),
            message: message.into(),
        }
    }

    /// "expected X, found Y" at the current token ("unexpected end of file" at the end).
    fn expected(&self, what: &str) -> Diagnostic {
        match self.peek() {
            Tok::Eof => self.error_at(self.offset(), "unexpected end of file"),
            tok => self.error_at(
                self.offset(),
                format!("expected {what}, found {}", describe(tok)),
            ),
        }
    }

    fn pos_of(&self, offset: u32) -> Pos {
        self.lines.pos(offset)
    }

    // ----- small readers -----

    fn string(&mut self) -> PResult<String> {
        match self.peek() {
            Tok::Str(raw) => {
                self.bump();
                Ok(String::from_utf8_lossy(&lexer::unescape(raw)).into_owned())
            }
            _ => Err(self.expected("a string")),
        }
    }

    /// An integer literal as i128.
    fn int(&mut self) -> PResult<i128> {
        match self.peek() {
            Tok::Int(text) => {
                let offset = self.offset();
                self.bump();
                parse_int(text)
                    .ok_or_else(|| self.error_at(offset, format!("invalid integer '{text}'")))
            }
            _ => Err(self.expected("an integer")),
        }
    }

    fn u32_value(&mut self) -> PResult<u32> {
        let offset = self.offset();
        let v = self.int()?;
        u32::try_from(v).map_err(|_| self.error_at(offset, format!("integer {v} out of range")))
    }

    /// The number after `align`: a power of two, as LLVM requires.
    fn alignment(&mut self) -> PResult<u32> {
        let offset = self.offset();
        let v = self.wide_alignment()?;
        u32::try_from(v).map_err(|_| {
            self.error_at(
                offset,
                format!("alignment {v} is not supported here (at most 2147483648)"),
            )
        })
    }

    /// `N` of `align N`: a power of two up to 2^32, LLVM's largest.
    pub(super) fn wide_alignment(&mut self) -> PResult<u64> {
        let offset = self.offset();
        let v = self.int()?;
        match u64::try_from(v) {
            Ok(v) if v.is_power_of_two() && v <= 1 << 32 => Ok(v),
            Ok(v) if v.is_power_of_two() => {
                Err(self.error_at(offset, format!("alignment {v} is above 2^32")))
            }
            _ => Err(self.error_at(offset, "alignment is not a power of two")),
        }
    }

    /// Skips a balanced `(...)`, `[...]` or `{...}` group starting at the cursor.
    fn skip_group(&mut self) -> PResult<()> {
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
                Tok::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                Tok::Eof => return Err(self.expected("a closing bracket")),
                _ => {}
            }
            self.bump();
            if depth == 0 {
                return Ok(());
            }
        }
    }

    // ----- pre-scan -----

    /// Numbers every top-level entity so that later references resolve.
    fn prescan(&mut self) -> PResult<()> {
        let mut depth = 0usize;
        let mut i = 0;
        while i < self.tokens.len() {
            let tok = self.tokens[i].tok;
            let next = |n: usize| self.tokens.get(i + n).map_or(Tok::Eof, |t| t.tok);
            match tok {
                Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
                Tok::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                _ if depth > 0 => {}
                Tok::Local(name)
                    if next(1) == Tok::Punct(b'=') && next(2) == Tok::Ident("type") =>
                {
                    let id = StructId(self.module.structs.len() as u32);
                    if self.structs.insert(name, id).is_some() {
                        return Err(self.error_at(
                            self.tokens[i].offset,
                            format!("redefinition of type '%{name}'"),
                        ));
                    }
                    self.module.structs.push(StructDef {
                        name: name.to_string(),
                        fields: None,
                        packed: false,
                    });
                }
                Tok::Global(name) if next(1) == Tok::Punct(b'=') => {
                    let id = GlobalRef::Var(GlobalId(self.module.globals.len() as u32));
                    self.declare_global(name, id, self.tokens[i].offset)?;
                    self.module.globals.push(placeholder_global(name));
                }
                Tok::Ident("define" | "declare") => {
                    let name_at = self.tokens[i..]
                        .iter()
                        .position(|t| matches!(t.tok, Tok::Global(_) | Tok::Eof))
                        .map(|n| i + n);
                    if let Some(Tok::Global(name)) = name_at.map(|n| self.tokens[n].tok) {
                        if !name.starts_with("llvm.dbg.") {
                            let id = GlobalRef::Func(FuncId(self.module.functions.len() as u32));
                            self.declare_global(name, id, self.tokens[i].offset)?;
                            self.module.functions.push(placeholder_function(name));
                        }
                    }
                }
                Tok::MdNum(n) if next(1) == Tok::Punct(b'=') => {
                    let start = i + 2;
                    let kind_at = if next(2) == Tok::Ident("distinct") {
                        3
                    } else {
                        2
                    };
                    let slot = match next(kind_at) {
                        Tok::MdName("DILocation") => Slot::Location(start, Lazy::Todo),
                        Tok::MdName("DIExpression") => Slot::Expr(start, Lazy::Todo),
                        _ => {
                            Slot::Node(self.module.debug.add_node(false, MdNode::Tuple(Vec::new())))
                        }
                    };
                    if self.slots.insert(n, slot).is_some() {
                        return Err(self.error_at(
                            self.tokens[i].offset,
                            format!("redefinition of metadata !{n}"),
                        ));
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Ok(())
    }

    fn declare_global(&mut self, name: &'a str, id: GlobalRef, offset: u32) -> PResult<()> {
        if self.globals.insert(name, id).is_some() {
            return Err(self.error_at(offset, format!("redefinition of '@{name}'")));
        }
        Ok(())
    }

    // ----- top level -----

    fn parse_items(&mut self) -> PResult<()> {
        loop {
            match self.peek() {
                Tok::Eof => return Ok(()),
                Tok::Ident("source_filename") => {
                    self.bump();
                    self.expect_punct(b'=')?;
                    self.module.source_filename = Some(self.string()?);
                }
                Tok::Ident("target") => {
                    self.bump();
                    let which = self.peek();
                    self.bump();
                    self.expect_punct(b'=')?;
                    let pos = self.pos_of(self.offset());
                    let value = self.string()?;
                    match which {
                        Tok::Ident("datalayout") => {
                            self.module.datalayout = Some(value);
                            self.module.datalayout_pos = pos;
                        }
                        Tok::Ident("triple") => {
                            self.module.triple = Some(value);
                            self.module.triple_pos = pos;
                        }
                        _ => {}
                    }
                }
                Tok::Local(name) => self.parse_struct_def(name)?,
                Tok::Global(name) => self.parse_global(name)?,
                Tok::Ident("define") => self.parse_function(true)?,
                Tok::Ident("declare") => self.parse_function(false)?,
                Tok::Ident("attributes") => {
                    self.bump();
                    let Tok::AttrRef(number) = self.peek() else {
                        return Err(self.expected("an attribute group '#N'"));
                    };
                    self.bump();
                    self.expect_punct(b'=')?;
                    self.expect_punct(b'{')?;
                    let mut attrs = Vec::new();
                    while !self.eat(Tok::Punct(b'}')) {
                        attrs.push(self.attribute_as_written()?);
                    }
                    self.module
                        .attribute_groups
                        .push(AttributeGroup { number, attrs });
                }
                Tok::Ident(word) if word.starts_with('$') => {
                    self.bump();
                    self.expect_punct(b'=')?;
                    self.expect_word("comdat")?;
                    let kind = match self.peek() {
                        Tok::Ident(kind) => kind,
                        _ => return Err(self.expected("a comdat selection kind")),
                    };
                    self.bump();
                    self.module.comdats.push(Comdat {
                        name: word[1..].to_string(),
                        kind: kind.to_string(),
                    });
                }
                Tok::Ident("module") => {
                    let pos = self.pos_of(self.offset());
                    self.bump();
                    self.expect_word("asm")?;
                    let text = self.string()?;
                    self.module.module_asm.push(ModuleAsm { text, pos });
                }
                Tok::MdNum(n) => self.parse_md_slot_def(n)?,
                Tok::MdName(name) => self.parse_named_metadata(name)?,
                _ => return Err(self.expected("a top-level entity")),
            }
        }
    }

    fn parse_struct_def(&mut self, name: &'a str) -> PResult<()> {
        self.bump();
        self.expect_punct(b'=')?;
        self.expect_word("type")?;
        let id = *self
            .structs
            .get(name)
            .ok_or_else(|| self.error_at(self.offset(), format!("undefined type '%{name}'")))?;
        if self.eat_word("opaque") {
            return Ok(());
        }
        let packed = self.eat(Tok::Punct(b'<'));
        self.expect_punct(b'{')?;
        let mut fields = Vec::new();
        if !self.eat(Tok::Punct(b'}')) {
            loop {
                fields.push(self.parse_type()?);
                if self.eat(Tok::Punct(b'}')) {
                    break;
                }
                self.expect_punct(b',')?;
            }
        }
        if packed {
            self.expect_punct(b'>')?;
        }
        let def = &mut self.module.structs[id.0 as usize];
        def.fields = Some(fields);
        def.packed = packed;
        Ok(())
    }

    /// Whether `word` starts the words [`Parser::parse_linkage_words`] reads
    /// before a function's type (not `thread_local`, `addrspace` or
    /// `externally_initialized`, which only globals have).
    pub(super) fn is_linkage_word(word: &str) -> bool {
        Linkage::from_keyword(word).is_some()
            || matches!(
                word,
                "dso_local"
                    | "dso_preemptable"
                    | "unnamed_addr"
                    | "local_unnamed_addr"
                    | "default"
                    | "hidden"
                    | "protected"
                    | "dllimport"
                    | "dllexport"
            )
    }

    /// Reads linkage, preemption, visibility, DLL storage, thread-local,
    /// `unnamed_addr`, `addrspace` and `externally_initialized` words.
    fn parse_linkage_words(&mut self) -> PResult<(Linkage, bool, UnnamedAddr, SymbolAttrs)> {
        let mut linkage = Linkage::External;
        let mut dso_local = false;
        let mut unnamed = UnnamedAddr::None;
        let mut attrs = SymbolAttrs::default();
        while let Tok::Ident(word) = self.peek() {
            if let Some(l) = Linkage::from_keyword(word) {
                linkage = l;
                self.bump();
                continue;
            }
            match word {
                "dso_local" => dso_local = true,
                "unnamed_addr" => unnamed = UnnamedAddr::Global,
                "local_unnamed_addr" => unnamed = UnnamedAddr::Local,
                "dso_preemptable" | "default" => {}
                "hidden" | "protected" => attrs.visibility = Some(word.to_string()),
                "dllimport" | "dllexport" => attrs.dll_storage = Some(word.to_string()),
                "externally_initialized" => attrs.externally_initialized = true,
                "thread_local" => {
                    let start = self.offset();
                    self.bump();
                    if self.is_punct(b'(') {
                        self.skip_group()?;
                    }
                    attrs.thread_local = Some(self.source_since(start).to_string());
                    continue;
                }
                "addrspace" => {
                    self.bump();
                    attrs.addrspace = Some(self.addrspace_number()?);
                    continue;
                }
                _ => break,
            }
            self.bump();
        }
        Ok((linkage, dso_local, unnamed, attrs))
    }

    /// `(N)` after `addrspace`.
    pub(super) fn addrspace_number(&mut self) -> PResult<u32> {
        self.expect_punct(b'(')?;
        let n = self.u32_value()?;
        self.expect_punct(b')')?;
        Ok(n)
    }

    /// The source text from `start` up to the cursor, without trailing space.
    fn source_since(&self, start: u32) -> &'a str {
        self.text
            .get(start as usize..self.offset() as usize)
            .unwrap_or("")
            .trim_end()
    }

    /// One attribute as written: a word with an optional `(...)` argument,
    /// `align N`, `alignstack=N` or a `"key"="value"` string attribute.
    pub(super) fn attribute_as_written(&mut self) -> PResult<String> {
        let start = self.offset();
        match self.peek() {
            Tok::Ident(word) => {
                self.bump();
                if self.is_punct(b'(') {
                    self.skip_group()?;
                } else if self.eat(Tok::Punct(b'='))
                    || (word == "align" && matches!(self.peek(), Tok::Int(_)))
                {
                    self.bump();
                }
            }
            Tok::Str(_) => {
                self.bump();
                if self.eat(Tok::Punct(b'=')) {
                    self.string()?;
                }
            }
            _ => return Err(self.expected("an attribute")),
        }
        Ok(self.source_since(start).to_string())
    }

    fn parse_global(&mut self, name: &'a str) -> PResult<()> {
        let offset = self.offset();
        self.bump();
        self.expect_punct(b'=')?;
        let external_keyword = self.peek() == Tok::Ident("external");
        let (linkage, dso_local, unnamed_addr, attrs) = self.parse_linkage_words()?;
        let constant = match self.peek() {
            Tok::Ident("global") => false,
            Tok::Ident("constant") => true,
            Tok::Ident("alias") => {
                let mut alias = placeholder_global(name);
                alias.linkage = linkage;
                alias.dso_local = dso_local;
                alias.unnamed_addr = unnamed_addr;
                alias.attrs = attrs;
                alias.pos = self.pos_of(offset);
                return self.parse_alias(alias, offset);
            }
            Tok::Ident("ifunc") => {
                return Err(self.error_at(
                    self.offset(),
                    format!("'@{name}' is an ifunc: ifuncs are not supported"),
                ))
            }
            _ => return Err(self.expected("'global' or 'constant'")),
        };
        self.bump();
        let ty = self.parse_type()?;
        let has_init = !external_keyword && linkage != Linkage::ExternWeak;
        // `@g = global ptr @x`: an `@name` here is the initializer (a
        // definition always has one), not the next item.
        let global_initializer = matches!(self.peek(), Tok::Global(_));
        let initializer =
            if has_init && !self.is_punct(b',') && (global_initializer || !self.at_item_start()) {
                Some(self.parse_constant(&ty)?)
            } else {
                None
            };
        let mut global = Global {
            name: name.to_string(),
            linkage,
            dso_local,
            unnamed_addr,
            constant,
            ty,
            initializer,
            align: None,
            section: None,
            dbg: Vec::new(),
            attrs,
            pos: self.pos_of(offset),
            aliasee: None,
        };
        while self.eat(Tok::Punct(b',')) {
            match self.peek() {
                Tok::Ident("align") => {
                    self.bump();
                    global.align = Some(self.alignment()?);
                }
                Tok::Ident("section") => {
                    self.bump();
                    global.section = Some(self.string()?);
                }
                Tok::Ident("comdat") => {
                    self.bump();
                    global.attrs.comdat = Some(self.comdat_name()?);
                }
                Tok::Ident("partition") => {
                    self.bump();
                    global.attrs.partition = Some(self.string()?);
                }
                Tok::MdName(kind) => {
                    self.bump();
                    let at = self.offset();
                    let target = self.parse_md_ref()?;
                    if kind == "dbg" {
                        global.dbg.push(self.expect_node(target, at)?);
                    } else {
                        global.attrs.metadata.push((kind.to_string(), target));
                    }
                }
                _ => return Err(self.expected("a global attribute")),
            }
        }
        let Some(GlobalRef::Var(id)) = self.globals.get(name).copied() else {
            return Err(self.error_at(offset, format!("'@{name}' is a function")));
        };
        self.module.globals[id.0 as usize] = global;
        Ok(())
    }

    /// The rest of `@a = ... alias T, ptr ALIASEE[, partition "p"]`, from
    /// `alias` on.
    fn parse_alias(&mut self, mut alias: Global, offset: u32) -> PResult<()> {
        self.bump();
        alias.ty = self.parse_type()?;
        self.expect_punct(b',')?;
        // `ptr @g`, or a constant expression written without its type
        // (`getelementptr (i8, ptr @g, i64 8)`), as LLVM prints them.
        let aliasee_ty = match self.peek() {
            Tok::Ident(word) if ty::is_value_word(word) => Type::Ptr,
            _ => self.parse_type()?,
        };
        alias.aliasee = Some(self.parse_constant(&aliasee_ty)?);
        while self.eat(Tok::Punct(b',')) {
            match self.peek() {
                Tok::Ident("partition") => {
                    self.bump();
                    alias.attrs.partition = Some(self.string()?);
                }
                _ => return Err(self.expected("an alias attribute")),
            }
        }
        let Some(GlobalRef::Var(id)) = self.globals.get(alias.name.as_str()).copied() else {
            return Err(self.error_at(offset, format!("'@{}' is a function", alias.name)));
        };
        self.module.globals[id.0 as usize] = alias;
        Ok(())
    }

    /// The optional `($name)` after `comdat`.
    pub(super) fn comdat_name(&mut self) -> PResult<Option<String>> {
        if !self.eat(Tok::Punct(b'(')) {
            return Ok(None);
        }
        let name = match self.peek() {
            Tok::Ident(word) if word.starts_with('$') => word[1..].to_string(),
            _ => return Err(self.expected("a comdat name")),
        };
        self.bump();
        self.expect_punct(b')')?;
        Ok(Some(name))
    }

    /// Whether the cursor is at the start of a new top-level item.
    fn at_item_start(&self) -> bool {
        match self.peek() {
            Tok::Eof | Tok::Global(_) | Tok::MdNum(_) | Tok::Local(_) => true,
            Tok::Ident(w) => {
                w.starts_with('$')
                    || matches!(
                        w,
                        "define"
                            | "declare"
                            | "attributes"
                            | "target"
                            | "source_filename"
                            | "module"
                    )
            }
            Tok::MdName(_) => self.peek_n(1) == Tok::Punct(b'='),
            _ => false,
        }
    }

    fn parse_named_metadata(&mut self, name: &'a str) -> PResult<()> {
        self.bump();
        self.expect_punct(b'=')?;
        self.expect(Tok::Exclaim)?;
        self.expect_punct(b'{')?;
        let mut nodes = Vec::new();
        if !self.eat(Tok::Punct(b'}')) {
            loop {
                let offset = self.offset();
                nodes.push(self.parse_md_ref()?);
                if name == "llvm.dbg.cu" {
                    self.compile_unit_refs
                        .push((nodes[nodes.len() - 1], offset));
                }
                if self.eat(Tok::Punct(b'}')) {
                    break;
                }
                self.expect_punct(b',')?;
            }
        }
        self.module.named_metadata.push(NamedMetadata {
            name: name.to_string(),
            nodes,
        });
        Ok(())
    }

    /// Every operand of `!llvm.dbg.cu` is a DICompileUnit whose file is a
    /// DIFile (LLVM's verifier: "invalid compile unit", "invalid file").
    fn check_compile_units(&self) -> PResult<()> {
        for &(target, offset) in &self.compile_unit_refs {
            let unit = match target {
                MdRef::Node(id) => match self.module.debug.node(id) {
                    MdNode::CompileUnit(unit) => Some(unit),
                    _ => None,
                },
                _ => None,
            };
            let Some(unit) = unit else {
                return Err(self.error_at(
                    offset,
                    "invalid compile unit: !llvm.dbg.cu lists a node that is not a DICompileUnit",
                ));
            };
            let file_is_a_file = matches!(unit.file, Some(file) if matches!(self.module.debug.node(file), MdNode::File(_)));
            if !file_is_a_file {
                return Err(self.error_at(offset, "invalid compile unit: its file is not a DIFile"));
            }
        }
        Ok(())
    }

    /// A metadata reference that must be a general node.
    fn expect_node(&self, target: MdRef, offset: u32) -> PResult<MdId> {
        match target {
            MdRef::Node(id) => Ok(id),
            _ => Err(self.error_at(
                offset,
                "expected a metadata node, found a location or expression",
            )),
        }
    }

    /// Stores a parsed node into its reserved slot.
    fn set_node(&mut self, id: MdId, distinct: bool, node: MdNode) {
        self.module.debug.nodes[id.0 as usize] = MdEntry { distinct, node };
    }
}

/// Parses an integer literal (decimal, optionally negative, or `0x` hex).
fn parse_int(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16).ok()?,
        // Up to 19 digits fit in 64 bits, whose arithmetic is much cheaper
        // than `u128`'s checked steps.
        None if (1..=19).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) => {
            u128::from(
                digits
                    .bytes()
                    .fold(0u64, |n, d| n * 10 + u64::from(d - b'0')),
            )
        }
        None => digits.parse::<u128>().ok()?,
    };
    if negative {
        0i128.checked_sub_unsigned(magnitude)
    } else {
        // Values up to u128::MAX keep their bits (i128 wraps for widths of 128).
        Some(magnitude as i128)
    }
}

fn placeholder_global(name: &str) -> Global {
    Global {
        name: name.to_string(),
        linkage: Linkage::External,
        dso_local: false,
        unnamed_addr: UnnamedAddr::None,
        constant: false,
        ty: Type::Void,
        initializer: None,
        align: None,
        section: None,
        dbg: Vec::new(),
        attrs: SymbolAttrs::default(),
        pos: Pos::default(),
        aliasee: None,
    }
}

fn placeholder_function(name: &str) -> Function {
    Function {
        name: name.to_string(),
        linkage: Linkage::External,
        dso_local: false,
        unnamed_addr: UnnamedAddr::None,
        ret_ty: Type::Void,
        ret_attrs: ParamAttrs::default(),
        params: Vec::new(),
        varargs: false,
        blocks: Vec::new(),
        insts: Vec::new(),
        subprogram: None,
        section: None,
        align: None,
        attrs: SymbolAttrs::default(),
        pos: Pos::default(),
    }
}
