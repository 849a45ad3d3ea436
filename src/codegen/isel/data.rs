//! Global variables to data objects.
//!
//! In: the module's global variables with initializers. Out: one
//! [`DataObject`] per defined global, its bytes laid out per the x86-64
//! data layout (little endian, struct padding from [`Module::field_offset`])
//! and a relocation for every address in it: R_X86_64_64 for a pointer
//! (`symbol + addend`), R_X86_64_PC32 for a 32-bit difference between a
//! symbol and the global itself (relative lookup tables:
//! `trunc (sub (ptrtoint @x, ptrtoint @table))`).
//! Promise: declarations (no initializer) produce nothing; a `common`
//! global is a common symbol; a `thread_local` global goes to `.tdata`, or `.tbss` when all zero; a
//! writable all-zero global goes to `.bss`, a `constant` one to `.rodata`, one with
//! `section "name"` to that section; `llvm.metadata` globals
//! (`@llvm.used`, `@llvm.compiler.used`) produce nothing;
//! a `blockaddress` is an R_X86_64_64 against a placeholder the caller
//! resolves once the function is laid out ([`block_address_label`]);
//! `@llvm.global_ctors`/`@llvm.global_dtors` become `.init_array` /
//! `.fini_array` entries (`.init_array.N` for a priority N other than
//! 65535, as llc-19 names them; gcc pads N to five digits, and the linker
//! sorts both by number). Linkage and visibility become the symbol's
//! [`SymbolBinding`].

use dwarfsmith_emit::model::{
    Alias, DataObject, DataSection, ObjectModel, Relocation, RelocationKind, Symbol, SymbolBinding,
    Visibility,
};

use crate::error::Diagnostic;
use crate::ir::{
    BinOp, BlockId, CastOp, ConstExpr, Constant, FloatKind, FuncId, Global, Linkage, Module,
    SymbolAttrs, Type,
};

/// The priority llc leaves out of the section name (`.init_array`).
const DEFAULT_PRIORITY: u128 = 65535;

/// The data objects of every global variable the module defines.
pub fn select_data(module: &Module) -> Result<Vec<DataObject>, Diagnostic> {
    let mut objects = Vec::new();
    for global in &module.globals {
        let Some(init) = &global.initializer else {
            continue;
        };
        if global.section.as_deref() == Some("llvm.metadata") {
            continue;
        }
        match global.name.as_str() {
            "llvm.global_ctors" => {
                objects.extend(structors(module, global, init, ".init_array")?);
                continue;
            }
            "llvm.global_dtors" => {
                objects.extend(structors(module, global, init, ".fini_array")?);
                continue;
            }
            _ => {}
        }
        let size = module.size_of(&global.ty) as usize;
        let mut writer = DataWriter {
            module,
            global,
            bytes: vec![0; size],
            relocations: Vec::new(),
        };
        writer.write(init, 0)?;
        let zero = writer.bytes.iter().all(|&b| b == 0) && writer.relocations.is_empty();
        let named_bss = global
            .section
            .as_deref()
            .is_some_and(|name| name == ".bss" || name.starts_with(".bss."));
        let section = if global.linkage == Linkage::Common {
            DataSection::Common
        } else if global.attrs.thread_local.is_some() {
            if zero {
                DataSection::ThreadLocalBss
            } else {
                DataSection::ThreadLocal
            }
        } else if global.attrs.comdat.is_none()
            && is_mergeable_string(global, &writer.bytes, &writer.relocations)
        {
            DataSection::Strings
        } else if global.constant && !named_bss {
            DataSection::ReadOnly
        } else if zero && (global.section.is_none() || named_bss) {
            DataSection::Bss
        } else {
            DataSection::Data
        };
        let align = u64::from(global.align.unwrap_or(0)).max(module.align_of(&global.ty));
        objects.push(DataObject {
            name: global.name.clone(),
            global: !global.linkage.is_local(),
            binding: symbol_binding(global.linkage, &global.attrs),
            section,
            section_name: global.section.clone(),
            align: align.max(1),
            bytes: writer.bytes,
            relocations: writer.relocations,
            comdat: comdat_group(module, &global.name, &global.attrs),
            aliases: Vec::new(),
        });
    }
    Ok(objects)
}

/// The prefix of a block address's placeholder name (see [`block_address_label`]).
const BLOCK_ADDRESS_PREFIX: &str = ".Lblockaddress$";

/// The placeholder symbol a data relocation names for `blockaddress(@f,
/// %b)` until the function is laid out: code generation replaces it with
/// a relocation against the block's code ([`block_address_of`]).
pub(super) fn block_address_label(func: FuncId, block: BlockId) -> String {
    format!("{BLOCK_ADDRESS_PREFIX}{}${}", func.0, block.0)
}

/// The function and block a [`block_address_label`] names.
pub fn block_address_of(name: &str) -> Option<(FuncId, BlockId)> {
    let (func, block) = name.strip_prefix(BLOCK_ADDRESS_PREFIX)?.split_once('$')?;
    Some((FuncId(func.parse().ok()?), BlockId(block.parse().ok()?)))
}

/// Whether `global` is a C string the linker may merge with equal ones, as
/// LLVM decides for `.rodata.str1.1`: a private or internal `unnamed_addr`
/// constant array of `i8` in no explicit section, byte aligned, holding
/// one NUL-terminated string without other NULs.
fn is_mergeable_string(global: &Global, bytes: &[u8], relocations: &[Relocation]) -> bool {
    let bytes_type = matches!(&global.ty, Type::Array { elem, .. } if **elem == Type::Int(8));
    global.constant
        && global.unnamed_addr == crate::ir::UnnamedAddr::Global
        && global.linkage.is_local()
        && global.section.is_none()
        && global.attrs.thread_local.is_none()
        && global.align.unwrap_or(1) == 1
        && bytes_type
        && relocations.is_empty()
        && bytes.last() == Some(&0)
        && !bytes[..bytes.len() - 1].contains(&0)
}

/// The names the module declares `extern_weak` (undefined weak symbols).
pub fn weak_references(module: &Module) -> Vec<String> {
    let globals = module
        .globals
        .iter()
        .filter(|g| g.linkage == Linkage::ExternWeak)
        .map(|g| g.name.clone());
    let functions = module
        .functions
        .iter()
        .filter(|f| f.linkage == Linkage::ExternWeak)
        .map(|f| f.name.clone());
    globals.chain(functions).collect()
}

/// The ELF binding and visibility of a symbol with this linkage and these
/// attributes: weak for `weak`, `weak_odr`, `linkonce`, `linkonce_odr` and
/// `common` (a common symbol of C is overridden by a definition, as a
/// weak one is); `hidden`/`protected` visibility as written.
pub fn symbol_binding(linkage: Linkage, attrs: &SymbolAttrs) -> SymbolBinding {
    let weak = matches!(
        linkage,
        Linkage::Weak | Linkage::WeakOdr | Linkage::LinkOnce | Linkage::LinkOnceOdr
    );
    let visibility = match attrs.visibility.as_deref() {
        Some("hidden") => Visibility::Hidden,
        Some("protected") => Visibility::Protected,
        _ => Visibility::Default,
    };
    SymbolBinding { weak, visibility }
}

/// Gives every alias of the module (`@a = alias T, ptr @x`, possibly at
/// an offset: `getelementptr (i8, ptr @x, i64 8)`, or of another alias) a
/// symbol on the function or data object it names: at the object's
/// address plus the offset, with the alias's own linkage and visibility.
/// An aliasee that is not an address inside a function or data object
/// defined here is an error naming the alias.
pub fn attach_aliases(module: &Module, object: &mut ObjectModel) -> Result<(), Diagnostic> {
    for global in module.globals.iter().filter(|g| g.is_alias()) {
        let error = |message: String| Diagnostic {
            file: String::new(),
            pos: global.pos,
            message: format!("alias @{}: {message}", global.name),
        };
        let (target, offset) = alias_target(module, global)?;
        let offset = u64::try_from(offset)
            .map_err(|_| error(format!("a negative offset ({offset}) from @{target}")))?;
        let alias = Alias {
            name: global.name.clone(),
            global: !global.linkage.is_local(),
            binding: symbol_binding(global.linkage, &global.attrs),
            offset,
        };
        if let Some(function) = object.functions.iter_mut().find(|f| f.name == target) {
            function.aliases.push(alias);
        } else if let Some(data) = object
            .data
            .iter_mut()
            .find(|d| d.name == target && d.section != DataSection::Common)
        {
            data.aliases.push(alias);
        } else {
            return Err(error(format!(
                "the aliasee @{target} is not a function or variable defined here with a place in this object"
            )));
        }
    }
    Ok(())
}

/// The symbol an alias's address is in and the offset from it, through
/// aliases of aliases.
fn alias_target(module: &Module, alias: &Global) -> Result<(String, i64), Diagnostic> {
    let mut current = alias;
    let mut offset = 0i64;
    for _ in 0..=module.globals.len() {
        let writer = DataWriter {
            module,
            global: current,
            bytes: Vec::new(),
            relocations: Vec::new(),
        };
        let Some(aliasee) = &current.aliasee else {
            break;
        };
        // A thread-local aliasee is named directly (its address is no
        // constant an initializer could hold, but a symbol can alias it).
        let value = match aliasee {
            Constant::Global(g) => Symbolic {
                plus: Some(module.symbol_name(*g).to_string()),
                ..Symbolic::default()
            },
            _ => writer.evaluate(aliasee)?,
        };
        let (Some(symbol), None) = (value.plus, value.minus) else {
            break;
        };
        offset = offset.wrapping_add(value.addend);
        match module
            .globals
            .iter()
            .find(|g| g.name == symbol && g.is_alias())
        {
            Some(next) => current = next,
            None => return Ok((symbol, offset)),
        }
    }
    Err(Diagnostic {
        file: String::new(),
        pos: alias.pos,
        message: format!(
            "alias @{}: the aliasee is not an address inside a global (or the aliases form a cycle)",
            alias.name
        ),
    })
}

/// The COMDAT group of a symbol: `comdat` names the symbol's own group,
/// `comdat($c)` group `c`. A `nodeduplicate` group (profile counters and
/// their data, sanitizer coverage tables) is none: the linker keeps every
/// copy, which is what an ELF object without a group asks for too (llc
/// writes a group without GRP_COMDAT, which only keeps the members
/// together under `--gc-sections`; the object crate writes COMDAT groups
/// only).
pub fn comdat_group(module: &Module, name: &str, attrs: &SymbolAttrs) -> Option<String> {
    let group = attrs
        .comdat
        .as_ref()
        .map(|group| group.clone().unwrap_or_else(|| name.to_string()))?;
    let kind = module.comdats.iter().find(|c| c.name == group);
    (kind.is_none_or(|c| c.kind != "nodeduplicate")).then_some(group)
}

/// The `.init_array`/`.fini_array` objects of `@llvm.global_ctors` or
/// `@llvm.global_dtors`: one symbol-less object per priority, its entries
/// in the array's order.
fn structors(
    module: &Module,
    global: &Global,
    init: &Constant,
    section: &str,
) -> Result<Vec<DataObject>, Diagnostic> {
    let error = |message: String| Diagnostic {
        file: String::new(),
        pos: global.pos,
        message,
    };
    let entries: &[Constant] = match init {
        Constant::Array { elems, .. } => elems,
        Constant::Zero(_) => &[],
        _ => return Err(error(format!("@{}: unsupported initializer", global.name))),
    };
    let mut by_priority: Vec<(u128, DataObject)> = Vec::new();
    for entry in entries {
        let Constant::Struct { fields, .. } = entry else {
            return Err(error(format!("@{}: unsupported entry", global.name)));
        };
        let (Some(priority), Some(Constant::Global(function))) =
            (fields.first().and_then(Constant::zext_value), fields.get(1))
        else {
            return Err(error(format!(
                "@{}: an entry is not {{ i32 priority, ptr @function, ... }}",
                global.name
            )));
        };
        let index = match by_priority.iter().position(|(p, _)| *p == priority) {
            Some(index) => index,
            None => {
                let name = if priority == DEFAULT_PRIORITY {
                    section.to_string()
                } else {
                    format!("{section}.{priority}")
                };
                by_priority.push((
                    priority,
                    DataObject {
                        aliases: Vec::new(),
                        comdat: None,
                        name: String::new(),
                        global: false,
                        binding: SymbolBinding::default(),
                        section: DataSection::Data,
                        section_name: Some(name),
                        align: 8,
                        bytes: Vec::new(),
                        relocations: Vec::new(),
                    },
                ));
                by_priority.len() - 1
            }
        };
        let object = &mut by_priority[index].1;
        object.relocations.push(Relocation {
            offset: object.bytes.len() as u64,
            kind: RelocationKind::Abs64,
            symbol: Symbol::Named(module.symbol_name(*function).to_string()),
            addend: 0,
        });
        object.bytes.extend_from_slice(&[0; 8]);
    }
    Ok(by_priority.into_iter().map(|(_, object)| object).collect())
}

/// A constant as the linker sees it: `plus - minus + addend`, where `plus`
/// and `minus` are symbol addresses.
#[derive(Default)]
struct Symbolic {
    plus: Option<String>,
    minus: Option<String>,
    addend: i64,
}

/// Lays one initializer out into a byte buffer.
struct DataWriter<'a> {
    module: &'a Module,
    global: &'a Global,
    bytes: Vec<u8>,
    relocations: Vec<Relocation>,
}

impl DataWriter<'_> {
    fn error(&self, message: String) -> Diagnostic {
        Diagnostic {
            file: String::new(),
            pos: self.global.pos,
            message,
        }
    }

    fn put(&mut self, offset: usize, value: u128, size: usize) -> Result<(), Diagnostic> {
        self.put_bytes(offset, &value.to_le_bytes()[..size])
    }

    fn put_bytes(&mut self, offset: usize, bytes: &[u8]) -> Result<(), Diagnostic> {
        let end = offset + bytes.len();
        if end > self.bytes.len() {
            return Err(self.error(format!(
                "initializer of @{} is larger than its type",
                self.global.name
            )));
        }
        self.bytes[offset..end].copy_from_slice(bytes);
        Ok(())
    }

    fn write(&mut self, c: &Constant, offset: usize) -> Result<(), Diagnostic> {
        match c {
            Constant::Int { bits, .. } if *bits > 128 => {
                // The parser holds such a constant as an i128 (it refuses
                // literals beyond): its bytes, then its sign repeated.
                let value = c.sext_value().unwrap_or(0);
                let mut bytes = value.to_le_bytes().to_vec();
                let sign = if value < 0 { 0xff } else { 0 };
                bytes.resize(u64::from(*bits).div_ceil(8) as usize, sign);
                self.put_bytes(offset, &bytes)
            }
            Constant::Int { bits, .. } => {
                let size = u64::from(*bits).div_ceil(8) as usize;
                self.put(offset, c.zext_value().unwrap_or(0), size)
            }
            Constant::Null | Constant::Undef(_) | Constant::Poison(_) | Constant::Zero(_) => Ok(()),
            Constant::Bytes(bytes) => self.put_bytes(offset, bytes),
            Constant::Array { elem, elems } => {
                let stride = self.module.size_of(elem) as usize;
                for (i, e) in elems.iter().enumerate() {
                    self.write(e, offset + i * stride)?;
                }
                Ok(())
            }
            Constant::Struct { ty: sty, fields } => {
                for (i, field) in fields.iter().enumerate() {
                    let at = self.module.field_offset(sty, i).unwrap_or(0) as usize;
                    self.write(field, offset + at)?;
                }
                Ok(())
            }
            // The exact bits of the format, little-endian (x86_fp80: ten
            // bytes, the sign and exponent last; its padding stays zero).
            Constant::Float { kind, bits } => {
                let size = match kind {
                    FloatKind::Half | FloatKind::BFloat => 2,
                    FloatKind::Float => 4,
                    FloatKind::Double => 8,
                    FloatKind::X86Fp80 => 10,
                    FloatKind::Fp128 => 16,
                };
                self.put(offset, *bits, size)
            }
            Constant::Vector { elem, elems } if !matches!(elem, Type::Int(1)) => {
                let stride = self.module.size_of(elem) as usize;
                for (i, e) in elems.iter().enumerate() {
                    self.write(e, offset + i * stride)?;
                }
                Ok(())
            }
            Constant::BlockAddress { func, block } if self.module.size_of(&c.ty()) == 8 => {
                self.relocations.push(Relocation {
                    offset: offset as u64,
                    kind: RelocationKind::Abs64,
                    symbol: Symbol::Named(block_address_label(*func, *block)),
                    addend: 0,
                });
                Ok(())
            }
            Constant::Vector { .. } | Constant::BlockAddress { .. } | Constant::InlineAsm(_) => {
                Err(self.error(format!(
                    "unsupported constant {} in the initializer of @{}",
                    crate::ir::print::type_text(self.module, &c.ty()),
                    self.global.name
                )))
            }
            Constant::Global(_) | Constant::Expr(_) => {
                let value = self.evaluate(c)?;
                let size = self.module.size_of(&c.ty()) as usize;
                self.place(offset, value, size)
            }
        }
    }

    /// Writes a symbolic value into a field of `size` bytes.
    fn place(&mut self, offset: usize, value: Symbolic, size: usize) -> Result<(), Diagnostic> {
        let kind_and_addend = match (&value.plus, &value.minus) {
            (None, None) => return self.put(offset, value.addend as u128, size),
            (Some(_), None) if size == 8 => Some((RelocationKind::Abs64, value.addend)),
            // S - G + a at G + offset is PC-relative: S + (a + offset) - P.
            (Some(_), Some(minus)) if *minus == self.global.name && size == 4 => {
                Some((RelocationKind::Pc32, value.addend + offset as i64))
            }
            (Some(_), Some(minus)) if *minus == self.global.name && size == 8 => {
                Some((RelocationKind::Pc64, value.addend + offset as i64))
            }
            _ => None,
        };
        let (Some((kind, addend)), Some(symbol)) = (kind_and_addend, value.plus) else {
            return Err(self.error(format!(
                "unsupported constant expression in the initializer of @{} (an address \
                 that is neither a 64-bit pointer nor a 32- or 64-bit offset from @{})",
                self.global.name, self.global.name
            )));
        };
        self.put(offset, 0, size)?;
        self.relocations.push(Relocation {
            offset: offset as u64,
            kind,
            symbol: Symbol::Named(symbol),
            addend,
        });
        Ok(())
    }

    /// The symbolic value of an address or integer constant expression.
    fn evaluate(&self, c: &Constant) -> Result<Symbolic, Diagnostic> {
        let unsupported = || {
            self.error(format!(
                "unsupported constant expression in the initializer of @{}",
                self.global.name
            ))
        };
        match c {
            Constant::Int { .. } => Ok(Symbolic {
                addend: c.sext_value().ok_or_else(unsupported)? as i64,
                ..Symbolic::default()
            }),
            Constant::Null | Constant::Zero(_) => Ok(Symbolic::default()),
            Constant::Global(crate::ir::GlobalRef::Var(g))
                if self.module.global(*g).attrs.thread_local.is_some() =>
            {
                Err(self.error(format!(
                    "the address of thread-local @{} in the initializer of @{} (it differs per \
                     thread)",
                    self.module.global(*g).name,
                    self.global.name
                )))
            }
            Constant::Global(g) => Ok(Symbolic {
                plus: Some(self.module.symbol_name(*g).to_string()),
                ..Symbolic::default()
            }),
            Constant::Expr(expr) => match &**expr {
                ConstExpr::Gep {
                    source,
                    base,
                    indices,
                    ..
                } => {
                    let mut value = self.evaluate(base)?;
                    let indices: Vec<crate::ir::Value> = indices
                        .iter()
                        .cloned()
                        .map(crate::ir::Value::Const)
                        .collect();
                    let delta = self
                        .module
                        .gep_const_offset(source, &indices)
                        .ok_or_else(unsupported)?;
                    value.addend = value.addend.wrapping_add(delta);
                    Ok(value)
                }
                ConstExpr::Cast { op, value, to } => {
                    let inner = self.evaluate(value)?;
                    let symbolic = inner.plus.is_some() || inner.minus.is_some();
                    match op {
                        CastOp::PtrToInt | CastOp::IntToPtr | CastOp::BitCast => Ok(inner),
                        // A truncated address keeps its relocation; the
                        // field's width decides which one.
                        CastOp::Trunc if symbolic => Ok(inner),
                        CastOp::Trunc | CastOp::SExt if !symbolic => {
                            let bits = self.module.size_of(to) * 8;
                            Ok(Symbolic {
                                addend: sign_extend(inner.addend, bits.min(64) as u32),
                                ..inner
                            })
                        }
                        CastOp::ZExt if !symbolic => {
                            let from = self.module.size_of(&value.ty()) * 8;
                            let addend = if from >= 64 {
                                inner.addend
                            } else {
                                (inner.addend as u64 & ((1u64 << from) - 1)) as i64
                            };
                            Ok(Symbolic { addend, ..inner })
                        }
                        _ => Err(unsupported()),
                    }
                }
                ConstExpr::Binary { op, lhs, rhs, .. } => {
                    let (l, r) = (self.evaluate(lhs)?, self.evaluate(rhs)?);
                    let r = match op {
                        BinOp::Add => r,
                        BinOp::Sub => Symbolic {
                            plus: r.minus,
                            minus: r.plus,
                            addend: r.addend.wrapping_neg(),
                        },
                        _ if [&l.plus, &l.minus, &r.plus, &r.minus]
                            .iter()
                            .all(|s| s.is_none()) =>
                        {
                            return integer_binary(*op, l.addend, r.addend)
                                .map(|addend| Symbolic {
                                    addend,
                                    ..Symbolic::default()
                                })
                                .ok_or_else(unsupported)
                        }
                        _ => return Err(unsupported()),
                    };
                    let combine = |a: Option<String>, b: Option<String>| match (a, b) {
                        (a, None) => Ok(a),
                        (None, b) => Ok(b),
                        _ => Err(unsupported()),
                    };
                    let mut plus = combine(l.plus, r.plus)?;
                    let mut minus = combine(l.minus, r.minus)?;
                    if plus.is_some() && plus == minus {
                        plus = None;
                        minus = None;
                    }
                    Ok(Symbolic {
                        plus,
                        minus,
                        addend: l.addend.wrapping_add(r.addend),
                    })
                }
            },
            _ => Err(unsupported()),
        }
    }
}

/// `value`'s low `bits` bits, sign-extended.
fn sign_extend(value: i64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        return value;
    }
    let shift = 64 - bits;
    (value << shift) >> shift
}

/// An integer constant operation on 64-bit values (`None`: not folded here).
fn integer_binary(op: BinOp, l: i64, r: i64) -> Option<i64> {
    Some(match op {
        BinOp::Mul => l.wrapping_mul(r),
        BinOp::Shl => l.checked_shl(u32::try_from(r).ok()?)?,
        BinOp::And => l & r,
        BinOp::Or => l | r,
        BinOp::Xor => l ^ r,
        _ => return None,
    })
}
