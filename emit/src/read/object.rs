//! Functions and data objects: the code and data side of the model.
//!
//! In: a laid-out [`ElfObject`].
//! Out: the model's [`Function`]s (without CFI, which `cfi` adds) and
//! [`DataObject`]s, their relocations re-expressed against [`Symbol`]s.
//!
//! Promises: every STT_FUNC symbol of a code section becomes one function
//! (aliases at one address become one), in address order; every STT_OBJECT
//! symbol of a data section becomes one data object (cut at its section's
//! end, where `verify` reports the symbol), and a data section
//! with contents but no object symbol (string literals, clang's jump tables)
//! becomes one local data object named after the section. A relocation
//! against a section symbol is re-expressed against what its target lies
//! in, with the addend adjusted so the address it computes is unchanged;
//! so is one against a local label (`.LCPI0_0`), which has no model form.
//! Relocation types the model has no room for (R_X86_64_32S, TLS, ...) are
//! left out.

use goblin::elf::{reloc, sym};

use super::elf::{self, ElfObject, Placed};
use crate::model::{DataObject, DataSection, Function, Relocation, RelocationKind, Symbol};

/// A data object with its synthetic placement.
#[derive(Clone, Debug)]
pub(crate) struct PlacedData {
    /// Where it sits.
    pub placed: Placed,
    /// Its model form.
    pub object: DataObject,
}

/// The model's functions and data objects of `object`.
pub(crate) fn read_code_and_data(object: &ElfObject) -> (Vec<Function>, Vec<DataObject>) {
    let data = place_data(object);
    let resolver = Resolver {
        object,
        data: &data,
    };
    let functions = object
        .functions
        .iter()
        .map(|placed| {
            let section = &object.sections[placed.section];
            let start = (placed.address - section.address) as usize;
            let end = (start + placed.size as usize).min(section.data.len());
            Function {
                name: placed.name.clone(),
                global: placed.global,
                code: section.data.get(start..end).unwrap_or_default().to_vec(),
                relocations: resolver.relocations_in(placed),
                ..Function::default()
            }
        })
        .collect();
    let data_objects = data
        .iter()
        .map(|d| DataObject {
            relocations: resolver.relocations_in(&d.placed),
            ..d.object.clone()
        })
        .collect();
    (functions, data_objects)
}

/// Data objects by address: STT_OBJECT symbols, then one object per data
/// section that has contents and no object symbol.
fn place_data(object: &ElfObject) -> Vec<PlacedData> {
    let mut placed: Vec<PlacedData> = Vec::new();
    for symbol in &object.symbols {
        let Some(index) = symbol.section else {
            continue;
        };
        let section = &object.sections[index];
        if symbol.kind != sym::STT_OBJECT || !section.is_data() {
            continue;
        }
        if symbol.value > section.size {
            continue;
        }
        let room = section.size - symbol.value;
        let size = if symbol.size == 0 {
            room
        } else {
            symbol.size.min(room)
        };
        placed.push(data_object(
            object,
            index,
            symbol.name.clone(),
            symbol.binding != sym::STB_LOCAL,
            symbol.value,
            size,
        ));
    }
    for (index, section) in object.sections.iter().enumerate() {
        let covered = placed.iter().any(|d| d.placed.section == index);
        if section.is_data() && section.size > 0 && !covered {
            placed.push(data_object(
                object,
                index,
                section.name.clone(),
                false,
                0,
                section.size,
            ));
        }
    }
    placed.sort_by_key(|d| d.placed.address);
    placed.dedup_by_key(|d| d.placed.address);
    placed
}

fn data_object(
    object: &ElfObject,
    index: usize,
    name: String,
    global: bool,
    value: u64,
    size: u64,
) -> PlacedData {
    let section = &object.sections[index];
    let kind = if section.kind == goblin::elf::section_header::SHT_NOBITS {
        DataSection::Bss
    } else if section.flags & u64::from(goblin::elf::section_header::SHF_WRITE) != 0 {
        DataSection::Data
    } else {
        DataSection::ReadOnly
    };
    let bytes = if kind == DataSection::Bss {
        vec![0; size as usize]
    } else {
        let start = (value as usize).min(section.data.len());
        let end = (start + size as usize).min(section.data.len());
        section.data[start..end].to_vec()
    };
    PlacedData {
        placed: Placed {
            name: name.clone(),
            global,
            section: index,
            address: section.address + value,
            size,
        },
        object: DataObject {
            name,
            global,
            section: kind,
            align: section.align,
            bytes,
            relocations: Vec::new(),
        },
    }
}

/// Re-expresses ELF relocations against model symbols.
struct Resolver<'a> {
    object: &'a ElfObject,
    data: &'a [PlacedData],
}

impl Resolver<'_> {
    /// The model relocations of the bytes `placed` covers, offsets relative
    /// to its start.
    fn relocations_in(&self, placed: &Placed) -> Vec<Relocation> {
        let section = &self.object.sections[placed.section];
        let start = placed.address - section.address;
        self.object.relocations[placed.section]
            .iter()
            .filter(|r| r.offset >= start && r.offset < start + placed.size)
            .filter_map(|r| {
                let kind = relocation_kind(r.kind)?;
                let (symbol, addend) = self.target(r, kind);
                Some(Relocation {
                    offset: r.offset - start,
                    kind,
                    symbol,
                    addend,
                })
            })
            .collect()
    }

    /// The model symbol and addend for one ELF relocation.
    fn target(&self, relocation: &elf::Relocation, kind: RelocationKind) -> (Symbol, i64) {
        let symbol = &self.object.symbols[relocation.symbol];
        // Functions, data objects, globals and undefined symbols are named;
        // section symbols and local labels (`.LCPI0_0`, `.L.str`) are
        // resolved by the address they stand for.
        let named = !symbol.name.is_empty()
            && (symbol.section.is_none()
                || symbol.binding != sym::STB_LOCAL
                || symbol.kind == sym::STT_FUNC
                || symbol.kind == sym::STT_OBJECT);
        if named {
            return (Symbol::Named(symbol.name.clone()), relocation.addend);
        }
        // The address the relocation computes (before subtracting P).
        let address = self
            .object
            .symbol_address(symbol)
            .wrapping_add_signed(relocation.addend);
        // A PC-relative field is followed by the rest of its instruction, so
        // the address it means is `address + 4` (for a field ending the
        // instruction); look up the entity there.
        let bias: u64 = match kind {
            RelocationKind::Abs64 => 0,
            _ => 4,
        };
        let probe = address.wrapping_add(bias);
        if let Some((function, offset)) = self.object.function_at(probe) {
            return if offset == 0 {
                (
                    Symbol::Named(self.object.functions[function].name.clone()),
                    -(bias as i64),
                )
            } else {
                (Symbol::FunctionCode { function, offset }, -(bias as i64))
            };
        }
        let containing = self
            .data
            .iter()
            .find(|d| probe >= d.placed.address && probe < d.placed.end())
            .or_else(|| self.data.iter().find(|d| d.placed.address == address));
        if let Some(data) = containing {
            return (
                Symbol::Named(data.placed.name.clone()),
                address.wrapping_sub(data.placed.address) as i64,
            );
        }
        let name = symbol.section.map_or_else(
            || symbol.name.clone(),
            |s| self.object.sections[s].name.clone(),
        );
        (Symbol::Named(name), relocation.addend)
    }
}

/// The model kind of an x86-64 relocation type, `None` when the model has
/// no room for it.
fn relocation_kind(kind: u32) -> Option<RelocationKind> {
    match kind {
        reloc::R_X86_64_PC32 => Some(RelocationKind::Pc32),
        reloc::R_X86_64_PLT32 => Some(RelocationKind::Plt32),
        reloc::R_X86_64_GOTPCREL | reloc::R_X86_64_GOTPCRELX | reloc::R_X86_64_REX_GOTPCRELX => {
            Some(RelocationKind::GotPcRelX)
        }
        reloc::R_X86_64_64 => Some(RelocationKind::Abs64),
        _ => None,
    }
}
