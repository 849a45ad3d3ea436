//! Types, constants and parameter attributes.
//!
//! In: the token cursor. Out: [`Type`]s (typed pointers folded to `ptr`),
//! [`Constant`]s checked against the type they are written with, and the
//! ABI attributes of parameters and arguments (others skipped).

use super::lexer::{unescape, Tok};
use super::{is_type_word, parse_int, PResult, Parser};
use crate::ir::inst::{ArithFlags, BinOp, CastOp, ParamAttrs};
use crate::ir::types::{FloatKind, FunctionType, Type};
use crate::ir::value::{
    f64_bits_to_f32_bits, BlockId, ConstExpr, Constant, GepFlags, GlobalRef, InlineAsm,
};

/// The most lanes a vector type may have: far above what any target
/// uses, low enough that a `splat` or mask is never a huge allocation.
const MAX_VECTOR_LANES: u32 = 1 << 16;

/// Words that start a value rather than an attribute.
pub(super) fn is_value_word(word: &str) -> bool {
    matches!(
        word,
        "null"
            | "undef"
            | "poison"
            | "true"
            | "false"
            | "zeroinitializer"
            | "getelementptr"
            | "bitcast"
            | "ptrtoint"
            | "inttoptr"
            | "trunc"
            | "zext"
            | "sext"
            | "none"
            | "blockaddress"
            | "splat"
            | "asm"
            | "add"
            | "sub"
            | "mul"
            | "xor"
            | "shl"
            | "and"
            | "or"
            | "lshr"
            | "ashr"
            | "fptrunc"
            | "fpext"
            | "fptoui"
            | "fptosi"
            | "uitofp"
            | "sitofp"
    )
}

/// The bits of a floating-point literal in format `kind`: decimal or
/// `0x` hex of a double for `float`/`double` (a `float` must convert
/// exactly), `0xK`/`0xH`/`0xR`/`0xL` hex for the others. `None` if the
/// text is not a valid, exact constant of that format.
fn float_bits(kind: FloatKind, text: &str) -> Option<u128> {
    let hex_digits = |prefix: &str, count: usize| -> Option<u128> {
        let digits = text.strip_prefix(prefix)?;
        (digits.len() == count)
            .then(|| u128::from_str_radix(digits, 16).ok())
            .flatten()
    };
    let double_bits = if let Some(digits) = text.strip_prefix("0x") {
        if digits.starts_with(|c: char| c.is_ascii_uppercase() && !c.is_ascii_hexdigit()) {
            None
        } else {
            Some(u64::from_str_radix(digits, 16).ok()?)
        }
    } else if text.contains('.') || text.contains('e') || text.contains('E') {
        Some(text.parse::<f64>().ok()?.to_bits())
    } else {
        None
    };
    match kind {
        FloatKind::Double => double_bits.map(u128::from),
        FloatKind::Float => f64_bits_to_f32_bits(double_bits?).map(u128::from),
        FloatKind::X86Fp80 => hex_digits("0xK", 20),
        FloatKind::Half => hex_digits("0xH", 4),
        FloatKind::BFloat => hex_digits("0xR", 4),
        FloatKind::Fp128 => {
            // LLVM writes the low 64 bits first.
            let pair = hex_digits("0xL", 32)?;
            Some(pair.rotate_left(64))
        }
    }
}

impl<'a> Parser<'a> {
    /// Whether the cursor is at the start of a type.
    pub(super) fn at_type(&self) -> bool {
        match self.peek() {
            Tok::Ident(word) => is_type_word(word),
            Tok::Local(_) | Tok::Punct(b'[' | b'{' | b'<') => true,
            _ => false,
        }
    }

    /// A type; `T*`, `T addrspace(N)*` and `T (args)*` all read as `ptr`.
    pub(super) fn parse_type(&mut self) -> PResult<Type> {
        self.nested(Self::parse_type_unguarded)
    }

    fn parse_type_unguarded(&mut self) -> PResult<Type> {
        let offset = self.offset();
        let mut ty = match self.peek() {
            Tok::Ident("void") => Type::Void,
            Tok::Ident("ptr") => Type::Ptr,
            Tok::Ident("label") => Type::Label,
            Tok::Ident("metadata") => Type::Metadata,
            Tok::Ident(word) if FloatKind::from_name(word).is_some() => {
                Type::Float(FloatKind::from_name(word).unwrap_or(FloatKind::Double))
            }
            Tok::Ident(word) if is_type_word(word) => {
                let bits: u32 = word[1..]
                    .parse()
                    .ok()
                    .filter(|b| (1..=(1 << 23)).contains(b))
                    .ok_or_else(|| {
                        self.error_at(offset, format!("invalid integer type '{word}'"))
                    })?;
                Type::Int(bits)
            }
            Tok::Ident(word @ ("ppc_fp128" | "x86_mmx" | "x86_amx")) => {
                return Err(self.error_at(offset, format!("type '{word}' is not supported")));
            }
            Tok::Local(name) => match self.structs.get(name) {
                Some(&id) => Type::Named(id),
                None => return Err(self.error_at(offset, format!("undefined type '%{name}'"))),
            },
            Tok::Punct(b'[') => {
                self.bump();
                let len = self.int()?;
                let len = u64::try_from(len)
                    .map_err(|_| self.error_at(offset, "array length out of range"))?;
                self.expect_word("x")?;
                let elem = self.parse_type()?;
                if !self.is_punct(b']') {
                    return Err(self.expected("']'"));
                }
                Type::Array {
                    len,
                    elem: Box::new(elem),
                }
            }
            Tok::Punct(b'{') => {
                let fields = self.parse_struct_body(b'}')?;
                return self.parse_type_suffix(Type::Struct {
                    fields,
                    packed: false,
                });
            }
            Tok::Punct(b'<') => {
                self.bump();
                if !self.is_punct(b'{') {
                    return self.parse_vector_type(offset);
                }
                let fields = self.parse_struct_body(b'}')?;
                if !self.is_punct(b'>') {
                    return Err(self.expected("'>'"));
                }
                Type::Struct {
                    fields,
                    packed: true,
                }
            }
            _ => return Err(self.expected("a type")),
        };
        self.bump();
        if ty == Type::Ptr && self.peek() == Tok::Ident("addrspace") {
            self.bump();
            self.default_addrspace()?;
        }
        ty = self.parse_type_suffix(ty)?;
        Ok(ty)
    }

    /// `N x T>` after `<`; then any pointer suffix.
    fn parse_vector_type(&mut self, offset: u32) -> PResult<Type> {
        if self.peek() == Tok::Ident("vscale") {
            return Err(self.error_at(offset, "scalable vector types are not supported"));
        }
        let len = self.int()?;
        let len = u32::try_from(len)
            .ok()
            .filter(|n| (1..=MAX_VECTOR_LANES).contains(n))
            .ok_or_else(|| {
                self.error_at(
                    offset,
                    format!("vector length {len} is not supported (1 to {MAX_VECTOR_LANES})"),
                )
            })?;
        self.expect_word("x")?;
        let elem = self.parse_type()?;
        if !matches!(elem, Type::Int(_) | Type::Float(_) | Type::Ptr) {
            return Err(self.error_at(offset, "invalid vector element type"));
        }
        self.expect_punct(b'>')?;
        self.parse_type_suffix(Type::Vector {
            len,
            elem: Box::new(elem),
        })
    }

    /// `{ T, T }` with the cursor at `{`; leaves the cursor after `}`.
    fn parse_struct_body(&mut self, close: u8) -> PResult<Vec<Type>> {
        self.bump();
        let mut fields = Vec::new();
        if self.eat(Tok::Punct(close)) {
            return Ok(fields);
        }
        loop {
            fields.push(self.parse_type()?);
            if self.eat(Tok::Punct(close)) {
                return Ok(fields);
            }
            self.expect_punct(b',')?;
        }
    }

    /// Pointer stars, address spaces and function-type parameter lists after a type.
    fn parse_type_suffix(&mut self, mut ty: Type) -> PResult<Type> {
        loop {
            match self.peek() {
                Tok::Punct(b'*') => {
                    self.bump();
                    ty = Type::Ptr;
                }
                Tok::Ident("addrspace") => {
                    self.bump();
                    self.default_addrspace()?;
                    if !self.is_punct(b'*') {
                        return Err(self.expected("'*'"));
                    }
                }
                Tok::Punct(b'(') => {
                    self.bump();
                    let mut params = Vec::new();
                    let mut varargs = false;
                    if !self.eat(Tok::Punct(b')')) {
                        loop {
                            if self.eat(Tok::Ellipsis) {
                                varargs = true;
                            } else {
                                params.push(self.parse_type()?);
                            }
                            if self.eat(Tok::Punct(b')')) {
                                break;
                            }
                            self.expect_punct(b',')?;
                        }
                    }
                    ty = Type::Function(Box::new(FunctionType {
                        ret: ty,
                        params,
                        varargs,
                    }));
                }
                _ => return Ok(ty),
            }
        }
    }

    /// `(N)` after `addrspace` in a pointer type: the model's pointers are
    /// all in address space 0, so any other is refused here.
    fn default_addrspace(&mut self) -> PResult<()> {
        let offset = self.offset();
        match self.addrspace_number()? {
            0 => Ok(()),
            n => Err(self.error_at(
                offset,
                format!("pointers in address space {n} are not supported"),
            )),
        }
    }

    /// Parameter or argument attributes, up to the value or name: the ABI
    /// flags, and every other attribute as written.
    pub(super) fn parse_param_attrs(&mut self) -> PResult<ParamAttrs> {
        let mut attrs = ParamAttrs::default();
        let mut align = None;
        loop {
            match self.peek() {
                Tok::Ident(word) if !is_value_word(word) && !is_type_word(word) => match word {
                    "signext" => attrs.signext = true,
                    "zeroext" => attrs.zeroext = true,
                    "noundef" => attrs.noundef = true,
                    "nonnull" => attrs.nonnull = true,
                    "immarg" => attrs.immarg = true,
                    "align" if matches!(self.peek_n(1), Tok::Int(_)) => {
                        let start = self.offset();
                        self.bump();
                        let at = self.offset();
                        align = Some((
                            at,
                            self.wide_alignment()?,
                            self.source_since(start).to_string(),
                        ));
                        continue;
                    }
                    "byval" | "sret" | "elementtype" if self.peek_n(1) == Tok::Punct(b'(') => {
                        self.bump();
                        self.bump();
                        let ty = self.parse_type()?;
                        self.expect_punct(b')')?;
                        match word {
                            "byval" => attrs.byval = Some(ty),
                            "sret" => attrs.sret = Some(ty),
                            _ => attrs.elementtype = Some(ty),
                        }
                        continue;
                    }
                    _ => {
                        attrs.other.push(self.attribute_as_written()?);
                        continue;
                    }
                },
                _ => {
                    // `align N` belongs to the copy of a byval/sret pointer;
                    // on any other pointer it is kept as written.
                    if let Some((at, n, written)) = align {
                        if attrs.byval.is_some() || attrs.sret.is_some() {
                            attrs.align = Some(u32::try_from(n).map_err(|_| {
                                self.error_at(
                                    at,
                                    format!("alignment {n} of a copy is not supported"),
                                )
                            })?);
                        } else {
                            attrs.other.push(written);
                        }
                    }
                    return Ok(attrs);
                }
            }
            self.bump();
        }
    }

    /// `T c`: a type and a constant of it.
    pub(super) fn parse_typed_constant(&mut self) -> PResult<Constant> {
        let ty = self.parse_type()?;
        self.parse_constant(&ty)
    }

    /// A constant of type `ty`.
    pub(super) fn parse_constant(&mut self, ty: &Type) -> PResult<Constant> {
        self.nested(|p| p.parse_constant_unguarded(ty))
    }

    fn parse_constant_unguarded(&mut self, ty: &Type) -> PResult<Constant> {
        let offset = self.offset();
        let mismatch = |p: &Self, what: &str| {
            p.error_at(
                offset,
                format!("type mismatch: {what} is not a valid constant of this type"),
            )
        };
        let constant = match self.peek() {
            Tok::Int(text) | Tok::Float(text) if ty.float_kind().is_some() => {
                let kind = ty.float_kind().unwrap_or(FloatKind::Double);
                let bits = float_bits(kind, text).ok_or_else(|| {
                    self.error_at(offset, format!("invalid {} constant '{text}'", kind.name()))
                })?;
                Constant::Float { kind, bits }
            }
            Tok::Float(_) => return Err(mismatch(self, "a floating-point number")),
            Tok::Ident("splat") => {
                let Type::Vector { len, elem } = ty else {
                    return Err(mismatch(self, "a splat"));
                };
                self.bump();
                self.expect_punct(b'(')?;
                let value = self.parse_typed_constant()?;
                self.expect_punct(b')')?;
                if value.ty() != **elem {
                    return Err(mismatch(self, "this splat"));
                }
                return Ok(Constant::Vector {
                    elem: (**elem).clone(),
                    elems: vec![value; *len as usize],
                });
            }
            Tok::Punct(b'<') if self.peek_n(1) != Tok::Punct(b'{') => {
                let Type::Vector { len, elem } = ty else {
                    return Err(mismatch(self, "a vector"));
                };
                self.bump();
                let elems = self.parse_constant_list(b'>')?;
                if elems.len() != *len as usize || elems.iter().any(|e| e.ty() != **elem) {
                    return Err(mismatch(self, "this vector"));
                }
                return Ok(Constant::Vector {
                    elem: (**elem).clone(),
                    elems,
                });
            }
            Tok::Ident("blockaddress") => {
                if *ty != Type::Ptr {
                    return Err(mismatch(self, "a block address"));
                }
                self.bump();
                self.expect_punct(b'(')?;
                let (func, name) = match self.peek() {
                    Tok::Global(name) => match self.globals.get(name) {
                        Some(GlobalRef::Func(id)) => (*id, name),
                        _ => {
                            return Err(self
                                .error_at(self.offset(), format!("'@{name}' is not a function")))
                        }
                    },
                    _ => return Err(self.expected("a function name")),
                };
                self.bump();
                self.expect_punct(b',')?;
                let label_offset = self.offset();
                let Tok::Local(label) = self.peek() else {
                    return Err(self.expected("a label"));
                };
                let block = self.block_of_function(name, label).ok_or_else(|| {
                    self.error_at(
                        label_offset,
                        format!("'@{name}' has no block '%{label}' to take the address of"),
                    )
                })?;
                self.bump();
                if !self.is_punct(b')') {
                    return Err(self.expected("')'"));
                }
                Constant::BlockAddress { func, block }
            }
            Tok::Ident("asm") => {
                if *ty != Type::Ptr {
                    return Err(mismatch(self, "inline asm"));
                }
                self.bump();
                let mut asm = InlineAsm {
                    template: Vec::new(),
                    constraints: Vec::new(),
                    side_effect: false,
                    align_stack: false,
                    intel_dialect: false,
                    unwind: false,
                };
                loop {
                    match self.peek() {
                        Tok::Ident("sideeffect") => asm.side_effect = true,
                        Tok::Ident("alignstack") => asm.align_stack = true,
                        Tok::Ident("inteldialect") => asm.intel_dialect = true,
                        Tok::Ident("unwind") => asm.unwind = true,
                        _ => break,
                    }
                    self.bump();
                }
                let Tok::Str(template) = self.peek() else {
                    return Err(self.expected("an asm template string"));
                };
                self.bump();
                self.expect_punct(b',')?;
                let Tok::Str(constraints) = self.peek() else {
                    return Err(self.expected("an asm constraint string"));
                };
                asm.template = unescape(template);
                asm.constraints = unescape(constraints);
                Constant::InlineAsm(Box::new(asm))
            }
            Tok::Ident(word) if BinOp::from_name(word).is_some() => {
                let op = BinOp::from_name(word).unwrap_or(BinOp::Add);
                self.bump();
                let mut flags = ArithFlags::default();
                loop {
                    match self.peek() {
                        Tok::Ident("nuw") => flags.nuw = true,
                        Tok::Ident("nsw") => flags.nsw = true,
                        Tok::Ident("exact") => flags.exact = true,
                        _ => break,
                    }
                    self.bump();
                }
                self.expect_punct(b'(')?;
                let lhs = self.parse_typed_constant()?;
                self.expect_punct(b',')?;
                let rhs = self.parse_typed_constant()?;
                self.expect_punct(b')')?;
                if lhs.ty() != *ty || rhs.ty() != *ty {
                    return Err(mismatch(self, "this expression"));
                }
                return Ok(Constant::Expr(Box::new(ConstExpr::Binary {
                    op,
                    flags,
                    lhs,
                    rhs,
                })));
            }
            Tok::Int(text) => {
                let Type::Int(bits) = ty else {
                    return Err(mismatch(self, "an integer"));
                };
                let bits = *bits;
                if bits > 128 && parse_int(text).is_none() {
                    return Err(self.error_at(
                        self.offset(),
                        format!(
                            "unsupported constant {text} of type i{bits}: integers wider than 128 bits are not supported"
                        ),
                    ));
                }
                let value = self.int()?;
                return Ok(Constant::int(bits, value));
            }
            Tok::Ident(word @ ("true" | "false")) => {
                if *ty != Type::I1 {
                    return Err(mismatch(self, word));
                }
                Constant::int(1, i128::from(word == "true"))
            }
            Tok::Ident("null") => {
                if *ty != Type::Ptr {
                    return Err(mismatch(self, "null"));
                }
                Constant::Null
            }
            Tok::Ident("undef") => Constant::Undef(ty.clone()),
            Tok::Ident("poison") => Constant::Poison(ty.clone()),
            Tok::Ident("zeroinitializer") => Constant::Zero(ty.clone()),
            Tok::Global(name) => {
                if *ty != Type::Ptr {
                    return Err(mismatch(self, "a global address"));
                }
                match self.globals.get(name) {
                    Some(&g) => Constant::Global(g),
                    None => {
                        return Err(
                            self.error_at(offset, format!("use of undefined global '@{name}'"))
                        )
                    }
                }
            }
            Tok::CStr(raw) => {
                let bytes = unescape(raw);
                match ty {
                    Type::Array { len, elem }
                        if **elem == Type::I8 && *len == bytes.len() as u64 => {}
                    _ => return Err(mismatch(self, "this string")),
                }
                Constant::Bytes(bytes)
            }
            Tok::Punct(b'[') => {
                let Type::Array { len, elem } = ty else {
                    return Err(mismatch(self, "an array"));
                };
                self.bump();
                let elems = self.parse_constant_list(b']')?;
                if elems.len() as u64 != *len || elems.iter().any(|e| e.ty() != **elem) {
                    return Err(mismatch(self, "this array"));
                }
                return Ok(Constant::Array {
                    elem: (**elem).clone(),
                    elems,
                });
            }
            Tok::Punct(open @ (b'{' | b'<')) => {
                self.bump();
                if open == b'<' {
                    self.expect_punct(b'{')?;
                }
                let fields = self.parse_constant_list(b'}')?;
                if open == b'<' {
                    self.expect_punct(b'>')?;
                }
                let expected: Option<Vec<Type>> =
                    self.module.struct_fields(ty).map(|(f, _)| f.to_vec());
                let actual: Vec<Type> = fields.iter().map(Constant::ty).collect();
                if expected.as_deref() != Some(actual.as_slice()) {
                    return Err(mismatch(self, "this struct"));
                }
                return Ok(Constant::Struct {
                    ty: ty.clone(),
                    fields,
                });
            }
            Tok::Ident("getelementptr") => {
                self.bump();
                let flags = self.parse_gep_flags()?;
                self.expect_punct(b'(')?;
                let source = self.parse_type()?;
                self.expect_punct(b',')?;
                let base = self.parse_typed_constant()?;
                let mut indices = Vec::new();
                while self.eat(Tok::Punct(b',')) {
                    indices.push(self.parse_typed_constant()?);
                }
                self.expect_punct(b')')?;
                return Ok(Constant::Expr(Box::new(ConstExpr::Gep {
                    flags,
                    source,
                    base,
                    indices,
                })));
            }
            Tok::Ident(word) if CastOp::from_name(word).is_some() => {
                let op = CastOp::from_name(word).unwrap_or(CastOp::BitCast);
                self.bump();
                self.expect_punct(b'(')?;
                let value = self.parse_typed_constant()?;
                self.expect_word("to")?;
                let to = self.parse_type()?;
                self.expect_punct(b')')?;
                if to != *ty {
                    return Err(mismatch(self, "this cast"));
                }
                return Ok(Constant::Expr(Box::new(ConstExpr::Cast { op, value, to })));
            }
            _ => return Err(self.expected("a constant")),
        };
        self.bump();
        Ok(constant)
    }

    /// The block of function `@name` labelled `%label`, found in the text
    /// of its definition (which may come later in the file).
    fn block_of_function(&self, name: &str, label: &str) -> Option<BlockId> {
        let tokens = &self.tokens;
        let define = (0..tokens.len()).find(|&i| {
            tokens[i].tok == Tok::Ident("define")
                && tokens[i..]
                    .iter()
                    .find(|t| matches!(t.tok, Tok::Global(_) | Tok::Eof))
                    .is_some_and(|t| t.tok == Tok::Global(name))
        })?;
        let name_at = define
            + tokens[define..]
                .iter()
                .position(|t| t.tok == Tok::Global(name))?;
        // Skip the parameter list, then find the body's opening brace.
        let mut i = name_at + 1;
        let mut depth = 0usize;
        loop {
            match tokens.get(i)?.tok {
                Tok::Punct(b'(') => depth += 1,
                Tok::Punct(b')') => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Eof => return None,
                _ => {}
            }
            i += 1;
        }
        i += tokens[i..].iter().position(|t| t.tok == Tok::Punct(b'{'))? + 1;
        let mut blocks = 0u32;
        let mut depth = 0usize;
        let mut first = true;
        for token in &tokens[i..] {
            match token.tok {
                Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
                Tok::Punct(b'}') if depth == 0 => return None,
                Tok::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                Tok::Eof => return None,
                Tok::LabelDef(l) if depth == 0 => {
                    if l == label {
                        return Some(BlockId(blocks));
                    }
                    blocks += 1;
                }
                _ if depth == 0 && first => blocks += 1,
                _ => {}
            }
            first = false;
        }
        None
    }

    /// `T c, T c ... close` with the cursor after the opening bracket.
    fn parse_constant_list(&mut self, close: u8) -> PResult<Vec<Constant>> {
        let mut items = Vec::new();
        if self.eat(Tok::Punct(close)) {
            return Ok(items);
        }
        loop {
            items.push(self.parse_typed_constant()?);
            if self.eat(Tok::Punct(close)) {
                return Ok(items);
            }
            self.expect_punct(b',')?;
        }
    }

    /// `inbounds`, `nuw`, `nusw` and `inrange(...)` after `getelementptr`.
    pub(super) fn parse_gep_flags(&mut self) -> PResult<GepFlags> {
        let mut flags = GepFlags::default();
        loop {
            match self.peek() {
                Tok::Ident("inbounds") => flags.inbounds = true,
                Tok::Ident("nuw") => flags.nuw = true,
                Tok::Ident("nusw") => flags.nusw = true,
                Tok::Ident("inrange") => {
                    self.bump();
                    self.skip_group()?;
                    continue;
                }
                _ => return Ok(flags),
            }
            self.bump();
        }
    }
}
