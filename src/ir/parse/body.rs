//! Functions: headers, bodies and instructions.
//!
//! In: the token cursor at `define` or `declare`. Out: the function stored
//! in its pre-scanned slot of [`crate::ir::Module::functions`]. Promises:
//! values may be used before their definition (phis, loops) and are
//! resolved when the body ends, with their types checked against every
//! use; unnamed values are numbered as LLVM numbers them; debug records
//! (read by [`super::records`]) ride on the instruction that follows them.

use crate::ir::hash::FxHashMap;
use crate::ir::{Linkage, UnnamedAddr};

use super::lexer::Tok;
use super::{PResult, Parser};
use crate::ir::debug::DebugRecord;
use crate::ir::inst::*;
use crate::ir::module::{Block, Function, Param};
use crate::ir::types::{FunctionType, Type};
use crate::ir::value::{BlockId, Constant, GlobalRef, InstId, Value};

/// Instruction ids at and above this are placeholders for forward references.
const FORWARD_BASE: u32 = u32::MAX / 2;

/// A use of a value not defined yet.
struct ForwardUse<'a> {
    name: &'a str,
    ty: Type,
    offset: u32,
}

/// Per-function name tables.
#[derive(Default)]
pub(super) struct Scope<'a> {
    /// Values by the name written in the text (`%x`, `%3`).
    values: FxHashMap<&'a str, Value>,
    /// Values numbered implicitly (an unnamed parameter or result), by number.
    implicit: FxHashMap<u32, Value>,
    /// Blocks by the label written in the text.
    blocks: FxHashMap<&'a str, BlockId>,
    /// The slot number of an unlabelled entry block.
    entry_number: Option<u32>,
    /// The number LLVM gives the next unnamed value, parameter or block.
    next_number: u32,
    forward: Vec<ForwardUse<'a>>,
    forward_index: FxHashMap<&'a str, u32>,
}

/// What one instruction line of a function body became.
enum Parsed {
    /// An instruction, now last in the function's arena.
    Inst,
    /// The debug record an `llvm.dbg.*` call stands for.
    Record(DebugRecord),
    /// Nothing: a call that means nothing here
    /// (`llvm.experimental.noalias.scope.decl`).
    Nothing,
}

impl Scope<'_> {
    /// The value a local name refers to, written or implicit.
    fn value(&self, name: &str) -> Option<&Value> {
        self.values
            .get(name)
            .or_else(|| self.implicit.get(&name.parse::<u32>().ok()?))
    }

    /// Keeps the implicit numbering after an explicitly numbered name.
    fn saw_name(&mut self, name: &str) {
        if let Ok(n) = name.parse::<u32>() {
            self.next_number = n.saturating_add(1);
        }
    }

    /// Takes the next implicit number.
    fn take_number(&mut self) -> u32 {
        let n = self.next_number;
        self.next_number = n.saturating_add(1);
        n
    }
}

impl<'a> Parser<'a> {
    /// `define ...` or `declare ...` at the cursor.
    pub(super) fn parse_function(&mut self, is_definition: bool) -> PResult<()> {
        let start = self.offset();
        self.bump();
        let mut subprogram = None;
        let (mut linkage, mut dso_local, mut unnamed_prefix, mut symbol_attrs) =
            self.parse_linkage_words()?;
        // Calling convention, return attributes and `!dbg` before the type (declarations).
        let mut ret_attrs = ParamAttrs::default();
        while !self.at_type() {
            match self.peek() {
                // clang prints a declaration's `!dbg` before its linkage:
                // `declare !dbg !7 extern_weak i64 @f(ptr)`.
                Tok::Ident(word) if subprogram.is_some() && Parser::is_linkage_word(word) => {
                    let (more, local, unnamed, attrs) = self.parse_linkage_words()?;
                    if more != Linkage::External {
                        linkage = more;
                    }
                    dso_local |= local;
                    if unnamed != UnnamedAddr::None {
                        unnamed_prefix = unnamed;
                    }
                    if attrs.visibility.is_some() {
                        symbol_attrs.visibility = attrs.visibility;
                    }
                    if attrs.dll_storage.is_some() {
                        symbol_attrs.dll_storage = attrs.dll_storage;
                    }
                }
                Tok::MdName(kind) => {
                    self.bump();
                    let id = self.parse_node_ref()?;
                    if kind == "dbg" {
                        subprogram = Some(id);
                    } else {
                        symbol_attrs
                            .metadata
                            .push((kind.to_string(), crate::ir::MdRef::Node(id)));
                    }
                }
                Tok::Ident(_) => {
                    let before = self.at;
                    let attrs = self.parse_param_attrs()?;
                    merge_attrs(&mut ret_attrs, attrs);
                    if self.at == before {
                        return Err(self.expected("a return type"));
                    }
                }
                _ => return Err(self.expected("a return type")),
            }
        }
        let ret_ty = self.parse_type()?;
        let name = match self.peek() {
            Tok::Global(name) => name,
            _ => return Err(self.expected("a function name")),
        };
        self.bump();
        let skip = name.starts_with("llvm.dbg.");
        self.expect_punct(b'(')?;
        let mut params = Vec::new();
        let mut varargs = false;
        if !self.eat(Tok::Punct(b')')) {
            loop {
                if self.eat(Tok::Ellipsis) {
                    varargs = true;
                } else {
                    let ty = self.parse_type()?;
                    let attrs = self.parse_param_attrs()?;
                    let name = match self.peek() {
                        Tok::Local(n) => {
                            self.bump();
                            Some(n)
                        }
                        _ => None,
                    };
                    params.push((ty, attrs, name));
                }
                if self.eat(Tok::Punct(b')')) {
                    break;
                }
                self.expect_punct(b',')?;
            }
        }
        let mut function = Function {
            name: name.to_string(),
            linkage,
            dso_local,
            unnamed_addr: unnamed_prefix,
            ret_ty,
            ret_attrs,
            params: params
                .iter()
                .map(|(ty, attrs, name)| Param {
                    ty: ty.clone(),
                    attrs: attrs.clone(),
                    name: name.filter(|n| !is_number(n)).map(str::to_string),
                })
                .collect(),
            varargs,
            blocks: Vec::new(),
            insts: Vec::new(),
            subprogram,
            section: None,
            align: None,
            attrs: symbol_attrs,
            pos: self.pos_of(start),
        };
        self.parse_function_suffix(&mut function, is_definition)?;
        if is_definition {
            let mut scope = Scope::default();
            for (i, (_, _, name)) in params.iter().enumerate() {
                let arg = Value::Arg(i as u32);
                match name {
                    Some(name) => {
                        if scope.values.insert(name, arg).is_some() {
                            return Err(self
                                .error_at(start, format!("parameter '%{name}' is defined twice")));
                        }
                        scope.saw_name(name);
                    }
                    None => {
                        let n = scope.take_number();
                        scope.implicit.insert(n, arg);
                    }
                }
            }
            self.parse_body(&mut function, &mut scope)?;
        }
        if !skip {
            let Some(GlobalRef::Func(id)) = self.globals.get(name).copied() else {
                return Err(self.error_at(start, format!("'@{name}' is not a function")));
            };
            self.module.functions[id.0 as usize] = function;
        }
        Ok(())
    }

    /// Everything between `)` and `{` (or the end of a declaration).
    fn parse_function_suffix(
        &mut self,
        function: &mut Function,
        is_definition: bool,
    ) -> PResult<()> {
        loop {
            match self.peek() {
                Tok::Punct(b'{') if is_definition => return Ok(()),
                Tok::Ident("unnamed_addr") => {
                    self.bump();
                    function.unnamed_addr = crate::ir::module::UnnamedAddr::Global;
                }
                Tok::Ident("local_unnamed_addr") => {
                    self.bump();
                    function.unnamed_addr = crate::ir::module::UnnamedAddr::Local;
                }
                Tok::Ident("section") => {
                    self.bump();
                    function.section = Some(self.string()?);
                }
                Tok::Ident("align") => {
                    self.bump();
                    function.align = Some(self.alignment()?);
                }
                Tok::Ident(word @ ("personality" | "prefix" | "prologue")) => {
                    self.bump();
                    let at = self.offset();
                    self.parse_typed_constant()?;
                    let written = Some(self.source_since(at).to_string());
                    match word {
                        "personality" => function.attrs.personality = written,
                        "prefix" => function.attrs.prefix = written,
                        _ => function.attrs.prologue = written,
                    }
                }
                Tok::Ident("comdat") => {
                    self.bump();
                    function.attrs.comdat = Some(self.comdat_name()?);
                }
                Tok::Ident("partition") => {
                    self.bump();
                    function.attrs.partition = Some(self.string()?);
                }
                Tok::Ident("gc") => {
                    self.bump();
                    function.attrs.gc = Some(self.string()?);
                }
                Tok::Ident("addrspace") => {
                    self.bump();
                    function.attrs.addrspace = Some(self.addrspace_number()?);
                }
                Tok::MdName(kind) if self.peek_n(1) != Tok::Punct(b'=') => {
                    self.bump();
                    let at = self.offset();
                    let id = self.parse_md_ref()?;
                    if kind == "dbg" {
                        function.subprogram = Some(self.expect_node(id, at)?);
                    } else {
                        function.attrs.metadata.push((kind.to_string(), id));
                    }
                }
                Tok::AttrRef(n) => {
                    self.bump();
                    function.attrs.attribute_groups.push(n);
                }
                _ if !is_definition && self.at_item_start() => return Ok(()),
                Tok::Ident(_) | Tok::Str(_) => {
                    let attr = self.attribute_as_written()?;
                    function.attrs.inline_attrs.push(attr);
                }
                _ if is_definition => return Err(self.expected("'{'")),
                _ => return Err(self.expected("a top-level entity")),
            }
        }
    }

    /// `{ blocks }` with the cursor at `{`.
    fn parse_body(&mut self, function: &mut Function, scope: &mut Scope<'a>) -> PResult<()> {
        self.expect_punct(b'{')?;
        self.prescan_blocks(function, scope)?;
        let mut current: Option<usize> = None;
        let mut pending: Vec<DebugRecord> = Vec::new();
        let mut next_block = 0usize;
        loop {
            match self.peek() {
                Tok::Punct(b'}') => {
                    if !pending.is_empty() {
                        return Err(
                            self.error_at(self.offset(), "debug record at the end of a block")
                        );
                    }
                    self.bump();
                    break;
                }
                Tok::LabelDef(label) => {
                    if !pending.is_empty() {
                        return Err(
                            self.error_at(self.offset(), "debug record at the end of a block")
                        );
                    }
                    self.bump();
                    scope.saw_name(label);
                    current = Some(next_block);
                    next_block += 1;
                }
                Tok::Eof => return Err(self.expected("'}'")),
                _ => {
                    if current.is_none() {
                        // The unlabelled entry block.
                        current = Some(next_block);
                        next_block += 1;
                    }
                    if let Tok::Hash(kind) = self.peek() {
                        let record = self.parse_record(kind, function, scope)?;
                        pending.push(record);
                        continue;
                    }
                    match self.parse_instruction(function, scope)? {
                        Parsed::Inst => {}
                        Parsed::Record(record) => {
                            pending.push(record);
                            continue;
                        }
                        Parsed::Nothing => continue,
                    }
                    let id = InstId(function.insts.len() as u32 - 1);
                    function.insts[id.0 as usize].records = std::mem::take(&mut pending);
                    let block = current.unwrap_or(0);
                    match function.blocks.get_mut(block) {
                        Some(b) => b.insts.push(id),
                        None => return Err(self.error_at(self.offset(), "malformed function body")),
                    }
                }
            }
        }
        self.resolve_forward(function, scope)
    }

    /// Creates the blocks in label order and maps label names to them, and
    /// makes room for the instructions: one for each result defined (`=`)
    /// and each block's terminator, most of them (a 464-byte
    /// [`crate::ir::inst::Inst`] copied as the vector grows was 1% of a
    /// compile).
    fn prescan_blocks(&mut self, function: &mut Function, scope: &mut Scope<'a>) -> PResult<()> {
        let mut depth = 0usize;
        let mut first = true;
        let mut results = 0;
        for token in &self.tokens[self.at..] {
            match token.tok {
                Tok::Punct(b'=') if depth == 0 => results += 1,
                Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
                Tok::Punct(b'}') if depth == 0 => break,
                Tok::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                Tok::Eof => break,
                Tok::LabelDef(name) if depth == 0 => {
                    let id = BlockId(function.blocks.len() as u32);
                    if scope.blocks.insert(name, id).is_some() {
                        return Err(
                            self.error_at(token.offset, format!("redefinition of label '%{name}'"))
                        );
                    }
                    function.blocks.push(Block {
                        name: Some(name).filter(|n| !is_number(n)).map(str::to_string),
                        insts: Vec::new(),
                    });
                }
                _ if depth == 0 && first => {
                    function.blocks.push(Block::default());
                    scope.entry_number = Some(scope.take_number());
                }
                _ => {}
            }
            first = false;
        }
        if function.blocks.is_empty() {
            return Err(self.error_at(self.offset(), "function body has no blocks"));
        }
        function.insts.reserve(results + function.blocks.len());
        Ok(())
    }

    /// Replaces forward-reference placeholders with the values defined later.
    fn resolve_forward(&mut self, function: &mut Function, scope: &mut Scope<'a>) -> PResult<()> {
        if scope.forward.is_empty() {
            return Ok(());
        }
        let mut targets = Vec::with_capacity(scope.forward.len());
        for use_ in &scope.forward {
            let Some(value) = scope.value(use_.name) else {
                return Err(self.error_at(
                    use_.offset,
                    format!("use of undefined value '%{}'", use_.name),
                ));
            };
            if *function.value_type_ref(value) != use_.ty {
                return Err(self.error_at(
                    use_.offset,
                    format!(
                        "type mismatch: '%{}' is used with another type than it is defined with",
                        use_.name
                    ),
                ));
            }
            targets.push(value.clone());
        }
        let fix = |v: &mut Value| {
            if let Value::Inst(InstId(n)) = *v {
                if n >= FORWARD_BASE {
                    *v = targets[(n - FORWARD_BASE) as usize].clone();
                }
            }
        };
        for inst in &mut function.insts {
            inst.operands_mut().into_iter().for_each(fix);
            for record in &mut inst.records {
                record.values_mut().for_each(fix);
            }
        }
        Ok(())
    }

    // ----- values -----

    /// A value of type `ty`: a local (`%x`) or a constant.
    fn parse_value(
        &mut self,
        ty: &Type,
        function: &Function,
        scope: &mut Scope<'a>,
    ) -> PResult<Value> {
        let offset = self.offset();
        match self.peek() {
            Tok::Local(name) => {
                self.bump();
                if let Some(value) = scope.value(name) {
                    if *function.value_type_ref(value) != *ty {
                        return Err(self.error_at(
                            offset,
                            format!("type mismatch: '%{name}' is not of the type it is used with"),
                        ));
                    }
                    return Ok(value.clone());
                }
                let next = scope.forward.len() as u32;
                let index = *scope.forward_index.entry(name).or_insert(next);
                if index == next {
                    scope.forward.push(ForwardUse {
                        name,
                        ty: ty.clone(),
                        offset,
                    });
                } else if scope.forward[index as usize].ty != *ty {
                    return Err(self.error_at(
                        offset,
                        format!("type mismatch: '%{name}' is used with two types"),
                    ));
                }
                Ok(Value::Inst(InstId(FORWARD_BASE + index)))
            }
            _ => Ok(Value::Const(self.parse_constant(ty)?)),
        }
    }

    /// `T v`.
    pub(super) fn parse_typed_value(
        &mut self,
        function: &Function,
        scope: &mut Scope<'a>,
    ) -> PResult<(Type, Value)> {
        let ty = self.parse_type()?;
        let value = self.parse_value(&ty, function, scope)?;
        Ok((ty, value))
    }

    /// `label %name`.
    fn parse_label_ref(&mut self, scope: &Scope<'a>) -> PResult<BlockId> {
        self.expect_word("label")?;
        self.parse_block_name(scope)
    }

    fn parse_block_name(&mut self, scope: &Scope<'a>) -> PResult<BlockId> {
        let offset = self.offset();
        match self.peek() {
            Tok::Local(name) => {
                self.bump();
                let entry = name
                    .parse::<u32>()
                    .ok()
                    .filter(|n| Some(*n) == scope.entry_number)
                    .map(|_| BlockId(0));
                scope.blocks.get(name).copied().or(entry).ok_or_else(|| {
                    self.error_at(offset, format!("use of undefined label '%{name}'"))
                })
            }
            _ => Err(self.expected("a label")),
        }
    }

    // ----- instructions -----

    /// One instruction line: what it became (see [`Parsed`]).
    fn parse_instruction(
        &mut self,
        function: &mut Function,
        scope: &mut Scope<'a>,
    ) -> PResult<Parsed> {
        let start = self.offset();
        let result_name = match (self.peek(), self.peek_n(1)) {
            (Tok::Local(name), Tok::Punct(b'=')) => {
                self.bump();
                self.bump();
                Some(name)
            }
            _ => None,
        };
        let opcode_offset = self.offset();
        let opcode = match self.peek() {
            Tok::Ident(word) => word,
            _ => return Err(self.expected("an instruction")),
        };
        self.bump();
        let (kind, ty) = match opcode {
            _ if BinOp::from_name(opcode).is_some() => {
                let op = BinOp::from_name(opcode).unwrap_or(BinOp::Add);
                let flags = self.parse_arith_flags();
                let (ty, lhs) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let rhs = self.parse_value(&ty, function, scope)?;
                (
                    InstKind::Binary {
                        op,
                        flags,
                        lhs,
                        rhs,
                    },
                    ty,
                )
            }
            "icmp" => {
                self.eat_word("samesign");
                let pred = match self.peek() {
                    Tok::Ident(p) => ICmpPred::from_name(p),
                    _ => None,
                }
                .ok_or_else(|| self.expected("a comparison predicate"))?;
                self.bump();
                let (ty, lhs) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let rhs = self.parse_value(&ty, function, scope)?;
                let result = ty.with_lanes_of(Type::I1);
                (InstKind::ICmp { pred, lhs, rhs }, result)
            }
            "select" => {
                self.parse_fast_math();
                let (cond_ty, cond) = self.parse_typed_value(function, scope)?;
                if *cond_ty.scalar() != Type::I1 {
                    return Err(
                        self.error_at(opcode_offset, "type mismatch: select condition must be i1")
                    );
                }
                self.expect_punct(b',')?;
                let (ty, if_true) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (ty2, if_false) = self.parse_typed_value(function, scope)?;
                if ty != ty2 {
                    return Err(
                        self.error_at(opcode_offset, "type mismatch: select operands differ")
                    );
                }
                (
                    InstKind::Select {
                        cond,
                        if_true,
                        if_false,
                    },
                    ty,
                )
            }
            "phi" => {
                self.parse_fast_math();
                let ty = self.parse_type()?;
                let mut incoming = Vec::new();
                loop {
                    self.expect_punct(b'[')?;
                    let value = self.parse_value(&ty, function, scope)?;
                    self.expect_punct(b',')?;
                    let block = self.parse_block_name(scope)?;
                    self.expect_punct(b']')?;
                    incoming.push((value, block));
                    if !(self.is_punct(b',') && self.peek_n(1) == Tok::Punct(b'[')) {
                        break;
                    }
                    self.bump();
                }
                (InstKind::Phi { incoming }, ty)
            }
            _ if CastOp::from_name(opcode).is_some() => {
                let op = CastOp::from_name(opcode).unwrap_or(CastOp::BitCast);
                self.parse_fast_math();
                let flags = self.parse_arith_flags();
                let (_, value) = self.parse_typed_value(function, scope)?;
                self.expect_word("to")?;
                let to = self.parse_type()?;
                (InstKind::Cast { op, flags, value }, to)
            }
            "freeze" => {
                let (ty, value) = self.parse_typed_value(function, scope)?;
                (InstKind::Freeze { value }, ty)
            }
            "load" => {
                let is_atomic = self.eat_word("atomic");
                let volatile = self.eat_word("volatile");
                let ty = self.parse_type()?;
                self.expect_punct(b',')?;
                let (_, ptr) = self.parse_typed_value(function, scope)?;
                let atomic = if is_atomic {
                    Some(self.parse_atomic()?)
                } else {
                    None
                };
                let align = self.parse_align_suffix()?;
                (
                    InstKind::Load {
                        ptr,
                        align,
                        volatile,
                        atomic,
                    },
                    ty,
                )
            }
            "store" => {
                let is_atomic = self.eat_word("atomic");
                let volatile = self.eat_word("volatile");
                let (_, value) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (_, ptr) = self.parse_typed_value(function, scope)?;
                let atomic = if is_atomic {
                    Some(self.parse_atomic()?)
                } else {
                    None
                };
                let align = self.parse_align_suffix()?;
                (
                    InstKind::Store {
                        value,
                        ptr,
                        align,
                        volatile,
                        atomic,
                    },
                    Type::Void,
                )
            }
            _ if FBinOp::from_name(opcode).is_some() => {
                let op = FBinOp::from_name(opcode).unwrap_or(FBinOp::Add);
                let fmf = self.parse_fast_math();
                let (ty, lhs) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let rhs = self.parse_value(&ty, function, scope)?;
                (InstKind::FBinary { op, fmf, lhs, rhs }, ty)
            }
            "fneg" => {
                let fmf = self.parse_fast_math();
                let (ty, value) = self.parse_typed_value(function, scope)?;
                (InstKind::FNeg { fmf, value }, ty)
            }
            "fcmp" => {
                let fmf = self.parse_fast_math();
                let pred = match self.peek() {
                    Tok::Ident(p) => FCmpPred::from_name(p),
                    _ => None,
                }
                .ok_or_else(|| self.expected("a floating-point comparison predicate"))?;
                self.bump();
                let (ty, lhs) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let rhs = self.parse_value(&ty, function, scope)?;
                let result = ty.with_lanes_of(Type::I1);
                (
                    InstKind::FCmp {
                        pred,
                        fmf,
                        lhs,
                        rhs,
                    },
                    result,
                )
            }
            "extractelement" => {
                let (ty, vector) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (_, index) = self.parse_typed_value(function, scope)?;
                let Type::Vector { elem, .. } = ty else {
                    return Err(self.error_at(opcode_offset, "extractelement needs a vector"));
                };
                (InstKind::ExtractElement { vector, index }, *elem)
            }
            "insertelement" => {
                let (ty, vector) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (_, elem) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (_, index) = self.parse_typed_value(function, scope)?;
                (
                    InstKind::InsertElement {
                        vector,
                        elem,
                        index,
                    },
                    ty,
                )
            }
            "shufflevector" => {
                let (ty, lhs) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (_, rhs) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let mask_offset = self.offset();
                let mask = self.parse_typed_constant()?;
                let mask = shuffle_mask(&mask)
                    .ok_or_else(|| self.error_at(mask_offset, "invalid shufflevector mask"))?;
                let Type::Vector { elem, .. } = ty else {
                    return Err(self.error_at(opcode_offset, "shufflevector needs vectors"));
                };
                let result = Type::Vector {
                    len: mask.len() as u32,
                    elem,
                };
                (InstKind::ShuffleVector { lhs, rhs, mask }, result)
            }
            "extractvalue" => {
                let (ty, aggregate) = self.parse_typed_value(function, scope)?;
                let indices = self.parse_member_indices()?;
                let member = self.member_type(&ty, &indices, opcode_offset)?;
                (InstKind::ExtractValue { aggregate, indices }, member)
            }
            "insertvalue" => {
                let (ty, aggregate) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (_, elem) = self.parse_typed_value(function, scope)?;
                let indices = self.parse_member_indices()?;
                (
                    InstKind::InsertValue {
                        aggregate,
                        elem,
                        indices,
                    },
                    ty,
                )
            }
            "cmpxchg" => {
                let weak = self.eat_word("weak");
                let volatile = self.eat_word("volatile");
                let (_, ptr) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (ty, cmp) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let new = self.parse_typed_value(function, scope)?.1;
                let syncscope = self.parse_syncscope()?;
                let success = self.parse_ordering()?;
                let failure = self.parse_ordering()?;
                let align = self.parse_align_suffix()?;
                let result = Type::Struct {
                    fields: vec![ty, Type::I1],
                    packed: false,
                };
                (
                    InstKind::CmpXchg {
                        ptr,
                        cmp,
                        new,
                        weak,
                        volatile,
                        syncscope,
                        success,
                        failure,
                        align,
                    },
                    result,
                )
            }
            "atomicrmw" => {
                let volatile = self.eat_word("volatile");
                let op = match self.peek() {
                    Tok::Ident(word) => RmwOp::from_name(word),
                    _ => None,
                }
                .ok_or_else(|| self.expected("an atomicrmw operation"))?;
                self.bump();
                let (_, ptr) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let (ty, value) = self.parse_typed_value(function, scope)?;
                let atomic = self.parse_atomic()?;
                let align = self.parse_align_suffix()?;
                (
                    InstKind::AtomicRmw {
                        op,
                        ptr,
                        value,
                        volatile,
                        atomic,
                        align,
                    },
                    ty,
                )
            }
            "fence" => {
                let atomic = self.parse_atomic()?;
                (InstKind::Fence { atomic }, Type::Void)
            }
            "va_arg" => {
                let (_, list) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let ty = self.parse_type()?;
                (InstKind::VaArg { list }, ty)
            }
            "indirectbr" => {
                let (_, address) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                self.expect_punct(b'[')?;
                let mut dests = Vec::new();
                while !self.eat(Tok::Punct(b']')) {
                    if !dests.is_empty() {
                        self.expect_punct(b',')?;
                    }
                    dests.push(self.parse_label_ref(scope)?);
                }
                (InstKind::IndirectBr { address, dests }, Type::Void)
            }
            "callbr" | "catchswitch" | "catchpad" | "cleanuppad" | "catchret" | "cleanupret" => {
                return Err(self.error_at(
                    opcode_offset,
                    format!("instruction '{opcode}' is not supported"),
                ))
            }
            "getelementptr" => {
                let flags = self.parse_gep_flags()?;
                let source = self.parse_type()?;
                self.expect_punct(b',')?;
                let (base_ty, base) = self.parse_typed_value(function, scope)?;
                // A vector base or index makes a vector of addresses.
                let mut result = base_ty.with_lanes_of(Type::Ptr);
                let mut indices = Vec::new();
                while self.is_punct(b',') && !matches!(self.peek_n(1), Tok::MdName(_)) {
                    self.bump();
                    let (index_ty, index) = self.parse_typed_value(function, scope)?;
                    if result == Type::Ptr {
                        result = index_ty.with_lanes_of(Type::Ptr);
                    }
                    indices.push(index);
                }
                (
                    InstKind::Gep {
                        flags,
                        source,
                        base,
                        indices,
                    },
                    result,
                )
            }
            "alloca" => {
                self.eat_word("inalloca");
                let allocated = self.parse_type()?;
                let mut count = None;
                let mut align = None;
                while self.is_punct(b',') && !matches!(self.peek_n(1), Tok::MdName(_)) {
                    self.bump();
                    match self.peek() {
                        Tok::Ident("align") => {
                            self.bump();
                            align = Some(self.alignment()?);
                        }
                        Tok::Ident("addrspace") => {
                            self.bump();
                            self.skip_group()?;
                        }
                        _ => count = Some(self.parse_typed_value(function, scope)?.1),
                    }
                }
                (
                    InstKind::Alloca {
                        allocated,
                        count,
                        align,
                    },
                    Type::Ptr,
                )
            }
            "tail" | "musttail" | "notail" | "call" => {
                let tail = match opcode {
                    "tail" => TailKind::Tail,
                    "musttail" => TailKind::MustTail,
                    "notail" => TailKind::NoTail,
                    _ => TailKind::None,
                };
                if tail != TailKind::None {
                    self.expect_word("call")?;
                }
                return self.parse_call(tail, result_name, start, function, scope);
            }
            "br" => {
                if self.peek() == Tok::Ident("label") {
                    let dest = self.parse_label_ref(scope)?;
                    (InstKind::Br { dest }, Type::Void)
                } else {
                    let (ty, cond) = self.parse_typed_value(function, scope)?;
                    if ty != Type::I1 {
                        return Err(self.error_at(
                            opcode_offset,
                            "type mismatch: branch condition must be i1",
                        ));
                    }
                    self.expect_punct(b',')?;
                    let if_true = self.parse_label_ref(scope)?;
                    self.expect_punct(b',')?;
                    let if_false = self.parse_label_ref(scope)?;
                    (
                        InstKind::CondBr {
                            cond,
                            if_true,
                            if_false,
                        },
                        Type::Void,
                    )
                }
            }
            "switch" => {
                let (ty, value) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                let default = self.parse_label_ref(scope)?;
                self.expect_punct(b'[')?;
                let mut cases = Vec::new();
                while !self.eat(Tok::Punct(b']')) {
                    let case_ty = self.parse_type()?;
                    if case_ty != ty {
                        return Err(
                            self.error_at(self.offset(), "type mismatch: switch case type differs")
                        );
                    }
                    let c = self.parse_constant(&ty)?;
                    self.expect_punct(b',')?;
                    let dest = self.parse_label_ref(scope)?;
                    cases.push((c, dest));
                }
                (
                    InstKind::Switch {
                        value,
                        default,
                        cases,
                    },
                    Type::Void,
                )
            }
            "ret" => {
                if self.eat_word("void") {
                    (InstKind::Ret { value: None }, Type::Void)
                } else {
                    let (ty, value) = self.parse_typed_value(function, scope)?;
                    if ty != function.ret_ty {
                        return Err(self.error_at(
                            opcode_offset,
                            "type mismatch: returned type differs from the function's",
                        ));
                    }
                    (InstKind::Ret { value: Some(value) }, Type::Void)
                }
            }
            "unreachable" => (InstKind::Unreachable, Type::Void),
            "invoke" => return self.parse_invoke(result_name, start, function, scope),
            "landingpad" => {
                let ty = self.parse_type()?;
                (self.parse_landing_pad()?, ty)
            }
            "resume" => {
                let (_, value) = self.parse_typed_value(function, scope)?;
                (InstKind::Resume { value }, Type::Void)
            }
            _ => {
                return Err(self.error_at(opcode_offset, format!("unknown instruction '{opcode}'")))
            }
        };
        let mut inst = Inst::new(kind, ty);
        inst.pos = self.pos_of(start);
        self.parse_attachments(&mut inst)?;
        self.define_result(result_name, inst, start, function, scope)?;
        Ok(Parsed::Inst)
    }

    /// Adds the instruction to the arena and its name to the scope.
    fn define_result(
        &mut self,
        name: Option<&'a str>,
        mut inst: Inst,
        start: u32,
        function: &mut Function,
        scope: &mut Scope<'a>,
    ) -> PResult<()> {
        let id = InstId(function.insts.len() as u32);
        if let Some(name) = name {
            if inst.ty.is_void() {
                return Err(self.error_at(
                    start,
                    format!("'%{name}' names an instruction without a result"),
                ));
            }
            if scope.values.insert(name, Value::Inst(id)).is_some() {
                return Err(self.error_at(start, format!("redefinition of '%{name}'")));
            }
            scope.saw_name(name);
            inst.name = Some(name).filter(|n| !is_number(n)).map(str::to_string);
        } else if !inst.ty.is_void() {
            let n = scope.take_number();
            scope.implicit.insert(n, Value::Inst(id));
        }
        function.insts.push(inst);
        Ok(())
    }

    fn parse_arith_flags(&mut self) -> ArithFlags {
        let mut flags = ArithFlags::default();
        loop {
            match self.peek() {
                Tok::Ident("nuw") => flags.nuw = true,
                Tok::Ident("nsw") => flags.nsw = true,
                Tok::Ident("exact") => flags.exact = true,
                Tok::Ident("disjoint") => flags.disjoint = true,
                Tok::Ident("nneg") => flags.nneg = true,
                _ => return flags,
            }
            self.bump();
        }
    }

    /// Fast-math flag words (`fast`, `nnan`, ...), possibly none.
    fn parse_fast_math(&mut self) -> FastMath {
        let mut fmf = FastMath::default();
        while let Tok::Ident(word) = self.peek() {
            if !fmf.set(word) {
                break;
            }
            self.bump();
        }
        fmf
    }

    /// `syncscope("name")`, if written.
    fn parse_syncscope(&mut self) -> PResult<Option<String>> {
        if !self.eat_word("syncscope") {
            return Ok(None);
        }
        self.expect_punct(b'(')?;
        let scope = self.string()?;
        self.expect_punct(b')')?;
        Ok(Some(scope))
    }

    /// An atomic ordering word.
    fn parse_ordering(&mut self) -> PResult<Ordering> {
        let ordering = match self.peek() {
            Tok::Ident(word) => Ordering::from_name(word),
            _ => None,
        }
        .ok_or_else(|| self.expected("an atomic ordering"))?;
        self.bump();
        Ok(ordering)
    }

    /// `[syncscope("name")] ordering`.
    fn parse_atomic(&mut self) -> PResult<Atomic> {
        let syncscope = self.parse_syncscope()?;
        let ordering = self.parse_ordering()?;
        Ok(Atomic {
            ordering,
            syncscope,
        })
    }

    /// `, i, j...` member indices of extractvalue/insertvalue (not
    /// consuming metadata attachments).
    fn parse_member_indices(&mut self) -> PResult<Vec<u32>> {
        let mut indices = Vec::new();
        while self.is_punct(b',') && matches!(self.peek_n(1), Tok::Int(_)) {
            self.bump();
            indices.push(self.u32_value()?);
        }
        if indices.is_empty() {
            return Err(self.expected("a member index"));
        }
        Ok(indices)
    }

    /// The type of the member `indices` name inside `ty`.
    fn member_type(&self, ty: &Type, indices: &[u32], offset: u32) -> PResult<Type> {
        let mut current = ty.clone();
        for &index in indices {
            current = match &current {
                Type::Array { len, elem } if u64::from(index) < *len => (**elem).clone(),
                _ => match self.module.struct_fields(&current) {
                    Some((fields, _)) if (index as usize) < fields.len() => {
                        fields[index as usize].clone()
                    }
                    _ => {
                        return Err(
                            self.error_at(offset, format!("member index {index} is out of range"))
                        )
                    }
                },
            };
        }
        Ok(current)
    }

    /// `, align N` after a load or store (not consuming metadata attachments).
    fn parse_align_suffix(&mut self) -> PResult<Option<u32>> {
        if self.is_punct(b',') && self.peek_n(1) == Tok::Ident("align") {
            self.bump();
            self.bump();
            return Ok(Some(self.alignment()?));
        }
        Ok(None)
    }

    /// `, !name !N` attachments: keeps `!dbg` and `!DIAssignID`, checks and drops the rest.
    fn parse_attachments(&mut self, inst: &mut Inst) -> PResult<()> {
        while self.is_punct(b',') {
            self.bump();
            let Tok::MdName(kind) = self.peek() else {
                return Err(self.expected("a metadata attachment"));
            };
            self.bump();
            match kind {
                "dbg" => inst.dbg = Some(self.parse_location_ref()?),
                "DIAssignID" => inst.assign_id = Some(self.parse_node_ref()?),
                _ => {
                    let target = self.parse_md_ref()?;
                    inst.metadata.push((kind.to_string(), target));
                }
            }
        }
        Ok(())
    }

    /// A call after `call`: an instruction, or a record for `llvm.dbg.*`.
    fn parse_call(
        &mut self,
        tail: TailKind,
        result_name: Option<&'a str>,
        start: u32,
        function: &mut Function,
        scope: &mut Scope<'a>,
    ) -> PResult<Parsed> {
        // Fast-math flags and calling conventions are words before the type.
        let ret_attrs = self.parse_param_attrs()?;
        let written = self.parse_type()?;
        let callee_offset = self.offset();
        let is_assume = self.peek() == Tok::Global("llvm.assume");
        if let Tok::Global(name) = self.peek() {
            if let Some(kind) = name.strip_prefix("llvm.dbg.") {
                self.bump();
                return self
                    .parse_dbg_intrinsic(kind, callee_offset, function, scope)
                    .map(Parsed::Record);
            }
            if name == "llvm.experimental.noalias.scope.decl" {
                self.bump();
                self.skip_noalias_scope_decl()?;
                return Ok(Parsed::Nothing);
            }
        }
        let site = self.parse_call_site(written, is_assume, function, scope)?;
        let mut inst = Inst::new(
            InstKind::Call {
                tail,
                fn_ty: site.fn_ty,
                callee: site.callee,
                args: site.args,
                ret_attrs,
            },
            site.ret,
        );
        inst.pos = self.pos_of(start);
        inst.attr_groups = site.attr_groups;
        self.parse_attachments(&mut inst)?;
        self.define_result(result_name, inst, start, function, scope)?;
        Ok(Parsed::Inst)
    }

    /// An invoke after `invoke`: a call site, then `to label %normal
    /// unwind label %unwind`.
    fn parse_invoke(
        &mut self,
        result_name: Option<&'a str>,
        start: u32,
        function: &mut Function,
        scope: &mut Scope<'a>,
    ) -> PResult<Parsed> {
        let ret_attrs = self.parse_param_attrs()?;
        let written = self.parse_type()?;
        let site = self.parse_call_site(written, false, function, scope)?;
        self.expect_word("to")?;
        let normal = self.parse_label_ref(scope)?;
        self.expect_word("unwind")?;
        let unwind = self.parse_label_ref(scope)?;
        let mut inst = Inst::new(
            InstKind::Invoke {
                fn_ty: site.fn_ty,
                callee: site.callee,
                args: site.args,
                ret_attrs,
                normal,
                unwind,
            },
            site.ret,
        );
        inst.pos = self.pos_of(start);
        inst.attr_groups = site.attr_groups;
        self.parse_attachments(&mut inst)?;
        self.define_result(result_name, inst, start, function, scope)?;
        Ok(Parsed::Inst)
    }

    /// The clauses of a `landingpad` after its type: `cleanup`, `catch ty
    /// c`, `filter ty c`, in any number and order.
    fn parse_landing_pad(&mut self) -> PResult<InstKind> {
        let mut cleanup = false;
        let mut clauses = Vec::new();
        loop {
            if self.eat_word("cleanup") {
                cleanup = true;
            } else if self.eat_word("catch") {
                let ty = self.parse_type()?;
                clauses.push(LandingPadClause::Catch(self.parse_constant(&ty)?));
            } else if self.eat_word("filter") {
                let ty = self.parse_type()?;
                clauses.push(LandingPadClause::Filter(self.parse_constant(&ty)?));
            } else {
                break;
            }
        }
        Ok(InstKind::LandingPad { cleanup, clauses })
    }

    /// What `call` and `invoke` share after the return type: the callee,
    /// the arguments, attribute groups and operand bundles (accepted on
    /// `llvm.assume` only, where `is_assume`).
    fn parse_call_site(
        &mut self,
        written: Type,
        is_assume: bool,
        function: &mut Function,
        scope: &mut Scope<'a>,
    ) -> PResult<CallSite> {
        let (ret, explicit) = match written {
            Type::Function(f) => (f.ret.clone(), Some(*f)),
            ty => (ty, None),
        };
        let callee = self.parse_value(&Type::Ptr, function, scope)?;
        self.expect_punct(b'(')?;
        let mut args = Vec::new();
        if !self.eat(Tok::Punct(b')')) {
            loop {
                let ty = self.parse_type()?;
                let attrs = self.parse_param_attrs()?;
                let value = self.parse_value(&ty, function, scope)?;
                args.push((ty, CallArg { value, attrs }));
                if self.eat(Tok::Punct(b')')) {
                    break;
                }
                self.expect_punct(b',')?;
            }
        }
        let fn_ty = match explicit {
            Some(f) => f,
            None => FunctionType {
                ret: ret.clone(),
                params: args.iter().map(|(t, _)| t.clone()).collect(),
                varargs: false,
            },
        };
        // Attribute groups after the arguments (clang prints no inline ones).
        let mut attr_groups = Vec::new();
        while let Tok::AttrRef(n) = self.peek() {
            self.bump();
            attr_groups.push(n);
        }
        // Operand bundles (`[ "align"(ptr %p, i64 8) ]`) come after them.
        // On `llvm.assume` they are hints that may be dropped, as LLVM drops
        // assumptions freely; on any other call a bundle changes what the
        // call means, so it is refused by name.
        if self.peek() == Tok::Punct(b'[') {
            let bundle_offset = self.offset();
            let tags = self.parse_operand_bundles(function, scope)?;
            if let (false, Some(tag)) = (is_assume, tags.first()) {
                return Err(self.error_at(
                    bundle_offset,
                    format!("operand bundle \"{tag}\" on a call is not supported"),
                ));
            }
        }
        Ok(CallSite {
            ret,
            fn_ty,
            callee,
            args: args.into_iter().map(|(_, a)| a).collect(),
            attr_groups,
        })
    }

    /// Reads the rest of a call of `llvm.experimental.noalias.scope.decl`,
    /// `(metadata !N)` and its attachments, and keeps nothing: the call
    /// only tells alias analysis where a `noalias` scope starts, and
    /// nothing here reads alias scopes, so the call has no meaning left.
    fn skip_noalias_scope_decl(&mut self) -> PResult<()> {
        self.expect_punct(b'(')?;
        if !self.eat(Tok::Ident("metadata")) {
            return Err(self.expected("'metadata'"));
        }
        let Tok::MdNum(_) = self.peek() else {
            return Err(self.expected("a metadata node"));
        };
        self.bump();
        self.expect_punct(b')')?;
        while let Tok::AttrRef(_) = self.peek() {
            self.bump();
        }
        let mut dropped = Inst::new(InstKind::Unreachable, Type::Void);
        self.parse_attachments(&mut dropped)
    }

    /// Reads the operand bundles of a call, `[ "tag"(ty value, ...), ... ]`,
    /// and returns their tags; the values are read (so their names resolve)
    /// and dropped.
    fn parse_operand_bundles(
        &mut self,
        function: &mut Function,
        scope: &mut Scope<'a>,
    ) -> PResult<Vec<&'a str>> {
        self.expect_punct(b'[')?;
        let mut tags = Vec::new();
        loop {
            let Tok::Str(tag) = self.peek() else {
                return Err(self.expected("an operand bundle tag"));
            };
            self.bump();
            tags.push(tag);
            self.expect_punct(b'(')?;
            if !self.eat(Tok::Punct(b')')) {
                loop {
                    let ty = self.parse_type()?;
                    self.parse_value(&ty, function, scope)?;
                    if self.eat(Tok::Punct(b')')) {
                        break;
                    }
                    self.expect_punct(b',')?;
                }
            }
            if self.eat(Tok::Punct(b']')) {
                return Ok(tags);
            }
            self.expect_punct(b',')?;
        }
    }
}

/// The lanes a shufflevector mask constant selects (`None` for poison or
/// undef lanes), or `None` if the constant is not an `i32` vector mask.
fn shuffle_mask(mask: &Constant) -> Option<Vec<Option<u32>>> {
    let lanes = |len: u32| Some(len as usize);
    match mask {
        Constant::Vector { elems, .. } => elems
            .iter()
            .map(|e| match e {
                Constant::Int { bits: 32, value } => u32::try_from(*value).ok().map(Some),
                Constant::Undef(_) | Constant::Poison(_) => Some(None),
                _ => None,
            })
            .collect(),
        Constant::Zero(Type::Vector { len, elem }) if **elem == Type::I32 => {
            Some(vec![Some(0); lanes(*len)?])
        }
        Constant::Undef(Type::Vector { len, elem })
        | Constant::Poison(Type::Vector { len, elem })
            if **elem == Type::I32 =>
        {
            Some(vec![None; lanes(*len)?])
        }
        _ => None,
    }
}

/// Whether a value or label name is a slot number (an unnamed value).
fn is_number(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

/// Ors the flags of `extra` into `attrs`.
fn merge_attrs(attrs: &mut ParamAttrs, extra: ParamAttrs) {
    attrs.signext |= extra.signext;
    attrs.zeroext |= extra.zeroext;
    attrs.noundef |= extra.noundef;
    attrs.nonnull |= extra.nonnull;
    attrs.immarg |= extra.immarg;
    attrs.other.extend(extra.other);
    attrs.byval = attrs.byval.take().or(extra.byval);
    attrs.sret = attrs.sret.take().or(extra.sret);
    attrs.elementtype = attrs.elementtype.take().or(extra.elementtype);
    attrs.align = attrs.align.or(extra.align);
}

/// The parts of a `call` or `invoke` after its return type.
struct CallSite {
    /// The result type.
    ret: Type,
    /// The callee's signature.
    fn_ty: FunctionType,
    /// The called value.
    callee: Value,
    /// The arguments.
    args: Vec<CallArg>,
    /// Attribute groups after the arguments.
    attr_groups: Vec<u32>,
}
