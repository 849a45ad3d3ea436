//! Global variables to data objects.
//!
//! In: the module's global variables with initializers. Out: one
//! [`DataObject`] per defined global, its bytes laid out per the x86-64
//! data layout (little endian, struct padding from [`Module::field_offset`])
//! and an absolute 64-bit relocation for every pointer in it. Promise:
//! declarations (no initializer) produce nothing; a writable all-zero
//! global goes to `.bss`, a `constant` one to `.rodata`.

use dwarfsmith_emit::model::{DataObject, DataSection, Relocation, RelocationKind, Symbol};

use crate::error::Diagnostic;
use crate::ir::{ConstExpr, Constant, Global, Module};

/// The data objects of every global variable the module defines.
pub fn select_data(module: &Module) -> Result<Vec<DataObject>, Diagnostic> {
    let mut objects = Vec::new();
    for global in &module.globals {
        let Some(init) = &global.initializer else {
            continue;
        };
        let size = module.size_of(&global.ty) as usize;
        let mut writer = DataWriter {
            module,
            global,
            bytes: vec![0; size],
            relocations: Vec::new(),
        };
        writer.write(init, 0)?;
        let zero = writer.bytes.iter().all(|&b| b == 0) && writer.relocations.is_empty();
        let section = if global.constant {
            DataSection::ReadOnly
        } else if zero {
            DataSection::Bss
        } else {
            DataSection::Data
        };
        let align = u64::from(global.align.unwrap_or(0)).max(module.align_of(&global.ty));
        objects.push(DataObject {
            name: global.name.clone(),
            global: !global.linkage.is_local(),
            section,
            align: align.max(1),
            bytes: writer.bytes,
            relocations: writer.relocations,
        });
    }
    Ok(objects)
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
        let end = offset + size;
        if end > self.bytes.len() {
            return Err(self.error(format!(
                "initializer of @{} is larger than its type",
                self.global.name
            )));
        }
        self.bytes[offset..end].copy_from_slice(&value.to_le_bytes()[..size]);
        Ok(())
    }

    fn write(&mut self, c: &Constant, offset: usize) -> Result<(), Diagnostic> {
        match c {
            Constant::Int { bits, .. } => {
                let size = u64::from(*bits).div_ceil(8) as usize;
                self.put(offset, c.zext_value().unwrap_or(0), size)
            }
            Constant::Null | Constant::Undef(_) | Constant::Poison(_) | Constant::Zero(_) => Ok(()),
            Constant::Bytes(bytes) => {
                let end = offset + bytes.len();
                if end > self.bytes.len() {
                    return Err(self.error(format!(
                        "string initializer of @{} is larger than its type",
                        self.global.name
                    )));
                }
                self.bytes[offset..end].copy_from_slice(bytes);
                Ok(())
            }
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
            Constant::Float { .. }
            | Constant::Vector { .. }
            | Constant::BlockAddress { .. }
            | Constant::InlineAsm(_) => Err(self.error(format!(
                "unsupported constant {} in the initializer of @{}",
                crate::ir::print::type_text(self.module, &c.ty()),
                self.global.name
            ))),
            Constant::Global(g) => {
                let name = self.module.symbol_name(*g).to_string();
                self.pointer(offset, name, 0)
            }
            Constant::Expr(expr) => match &**expr {
                ConstExpr::Gep {
                    source,
                    base: Constant::Global(g),
                    indices,
                    ..
                } => {
                    let indices: Vec<crate::ir::Value> = indices
                        .iter()
                        .cloned()
                        .map(crate::ir::Value::Const)
                        .collect();
                    let addend =
                        self.module
                            .gep_const_offset(source, &indices)
                            .ok_or_else(|| {
                                self.error(format!(
                                    "unsupported constant address in the initializer of @{}",
                                    self.global.name
                                ))
                            })?;
                    let name = self.module.symbol_name(*g).to_string();
                    self.pointer(offset, name, addend)
                }
                ConstExpr::Cast { value, .. } => self.write(value, offset),
                ConstExpr::Gep { .. } | ConstExpr::Binary { .. } => Err(self.error(format!(
                    "unsupported constant expression in the initializer of @{}",
                    self.global.name
                ))),
            },
        }
    }

    fn pointer(&mut self, offset: usize, name: String, addend: i64) -> Result<(), Diagnostic> {
        self.put(offset, 0, 8)?;
        self.relocations.push(Relocation {
            offset: offset as u64,
            kind: RelocationKind::Abs64,
            symbol: Symbol::Named(name),
            addend,
        });
        Ok(())
    }
}
