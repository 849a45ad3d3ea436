//! Functions and data objects: the code and data side of the model.
//!
//! In: a laid-out [`ElfObject`].
//! Out: the model's [`Function`]s (without CFI, which `cfi` adds) and
//! [`DataObject`]s, their relocations re-expressed against [`Symbol`]s.
//!
//! Promises:
//! - every STT_FUNC symbol of a code section becomes one function (aliases
//!   become one), in address order, with its COMDAT group, explicit section
//!   name, binding and aliases (see `placement`);
//! - every STT_OBJECT symbol of a data section becomes one data object
//!   (cut at its section's end, where `verify` reports the symbol), except
//!   one starting inside another (an alias of it), with its placement as a
//!   function's; its
//!   alignment is its section's; `.data.rel.ro` is read-only data;
//! - the bytes of a read-only data section that no object symbol covers
//!   (jump tables, string literals) become functions' own rodata: each
//!   uncovered stretch is split where the functions whose code points into
//!   it first point, and each function takes the part from its first
//!   target to the next function's (at most one part per function, the
//!   first in address order); what no function claims, and uncovered bytes
//!   of writable sections, become local data objects named after their
//!   section (`.rodata`, or `.rodata+0x40` when not at its start), unless
//!   they are alignment padding (zeros, unrelocated, shorter than the
//!   section's alignment);
//! - a relocation against a named function, data object or undefined
//!   symbol keeps its name; one against a section symbol or a local label
//!   (`.LCPI0_0`, which has no model form) is re-expressed against what its
//!   target lies in, with the addend adjusted so the address it computes is
//!   unchanged. The target of a PC-relative field in code is taken 4 bytes
//!   past the address it computes (the field ends its instruction), of one
//!   in data back by the field's offset in its object (a jump-table entry
//!   `target - table` at byte `4k` has addend `target + 4k`), of an
//!   absolute field at that address. In a function it is
//!   [`Symbol::FunctionCode`] (or the function's name at its first byte)
//!   with the rest in the addend (-4 in code, `4k` in a table, 0 for
//!   `R_X86_64_64`); in a function's rodata [`Symbol::FunctionData`]; in a
//!   data object its name;
//! - the literal sections (`.rodata.cst4/8/16`: SHF_MERGE without
//!   SHF_STRINGS, entries of 4, 8 or 16 bytes) hold functions' literals:
//!   each function's literals are the entries its code's relocations
//!   point at (looked up as above), in the order of the first relocation
//!   naming each, and those relocations are [`Symbol::Literal`] with the
//!   addend from the entry's start; entries no code points at are dropped;
//! - relocation types the model has no room for (R_X86_64_32S, TLS, ...)
//!   are left out.

use goblin::elf::{reloc, section_header, sym};

use super::elf::{self, ElfObject, Placed};
use super::placement;
use crate::model::{DataObject, DataSection, Function, Relocation, RelocationKind, Symbol};

/// A data object with its synthetic placement.
#[derive(Clone, Debug)]
struct PlacedData {
    /// Where it sits.
    placed: Placed,
    /// Its model form.
    object: DataObject,
    /// Whether a symbol names it (not a stretch no symbol covers).
    from_symbol: bool,
}

/// A function's own rodata: where it sits.
#[derive(Clone, Debug)]
struct Chunk {
    /// Index of the function.
    function: usize,
    /// Where its bytes are.
    placed: Placed,
}

/// The code and data side of the model, with where each data object sits.
pub(crate) struct CodeAndData {
    /// The functions, in address order.
    pub functions: Vec<Function>,
    /// The data objects, in address order.
    pub data: Vec<DataObject>,
    /// Synthetic address of each data object's first byte.
    pub data_addresses: Vec<u64>,
}

/// The model's functions and data objects of `object`.
pub(crate) fn read_code_and_data(object: &ElfObject) -> CodeAndData {
    let mut data = symbol_data(object);
    let gaps = uncovered(object, &data);
    let (chunks, unclaimed) = claim_rodata(object, &data, gaps);
    for gap in unclaimed.into_iter().filter(|gap| !is_padding(object, gap)) {
        let section = &object.sections[gap.section];
        let offset = gap.address - section.address;
        let name = if offset == 0 {
            section.name.clone()
        } else {
            format!("{}+{offset:#x}", section.name)
        };
        data.push(data_object(
            object,
            gap.section,
            name,
            false,
            offset,
            gap.size,
        ));
    }
    data.sort_by_key(|d| d.placed.address);
    let literals = function_literals(object);
    let groups = placement::section_groups(object);
    let resolver = Resolver {
        object,
        data: &data,
        chunks: &chunks,
        literals: &literals,
    };
    let functions = object
        .functions
        .iter()
        .enumerate()
        .map(|(index, placed)| {
            let chunk = chunks.iter().find(|c| c.function == index);
            let placement = placement::placement(object, &groups, placed, sym::STT_FUNC);
            Function {
                aliases: placement.aliases,
                comdat: placement.comdat,
                section_name: placement.section_name,
                name: placed.name.clone(),
                global: placed.global,
                binding: placement.binding,
                code: bytes_of(object, placed),
                align: 0,
                relocations: resolver.relocations_in(placed, Some(index)),
                literals: literals[index]
                    .iter()
                    .map(|entry| bytes_of(object, entry))
                    .collect(),
                cfi: Vec::new(),
                rodata: chunk.map_or_else(Vec::new, |c| bytes_of(object, &c.placed)),
                rodata_relocations: chunk
                    .map_or_else(Vec::new, |c| resolver.relocations_in(&c.placed, None)),
            }
        })
        .collect();
    let data_objects = data
        .iter()
        .map(|d| {
            let mut object_model = DataObject {
                relocations: resolver.relocations_in(&d.placed, None),
                ..d.object.clone()
            };
            if d.from_symbol {
                let placement = placement::placement(object, &groups, &d.placed, sym::STT_OBJECT);
                object_model.comdat = placement.comdat;
                object_model.section_name = placement.section_name;
                object_model.binding = placement.binding;
                object_model.aliases = placement.aliases;
            }
            object_model
        })
        .collect();
    CodeAndData {
        functions,
        data: data_objects,
        data_addresses: data.iter().map(|d| d.placed.address).collect(),
    }
}

/// The bytes `placed` covers (zeros for a NOBITS section).
fn bytes_of(object: &ElfObject, placed: &Placed) -> Vec<u8> {
    let section = &object.sections[placed.section];
    if section.kind == section_header::SHT_NOBITS {
        return vec![0; placed.size as usize];
    }
    let start = ((placed.address - section.address) as usize).min(section.data.len());
    let end = (start + placed.size as usize).min(section.data.len());
    section.data[start..end].to_vec()
}

/// Data objects of STT_OBJECT symbols, by address.
fn symbol_data(object: &ElfObject) -> Vec<PlacedData> {
    let mut placed: Vec<PlacedData> = Vec::new();
    for symbol in &object.symbols {
        let Some(index) = symbol.section else {
            continue;
        };
        let section = &object.sections[index];
        if symbol.kind != sym::STT_OBJECT || !section.is_data() || symbol.value > section.size {
            continue;
        }
        let room = section.size - symbol.value;
        let size = if symbol.size == 0 {
            room
        } else {
            symbol.size.min(room)
        };
        let global = symbol.binding != sym::STB_LOCAL;
        placed.push(PlacedData {
            from_symbol: true,
            ..data_object(
                object,
                index,
                symbol.name.clone(),
                global,
                symbol.value,
                size,
            )
        });
    }
    placed.sort_by_key(|d| d.placed.address);
    placed.dedup_by_key(|d| d.placed.address);
    // A symbol starting inside an object is an alias of it (at an offset).
    let mut kept: Vec<PlacedData> = Vec::with_capacity(placed.len());
    for d in placed {
        let nested = kept.last().is_some_and(|last: &PlacedData| {
            last.placed.section == d.placed.section
                && d.placed.address > last.placed.address
                && d.placed.address < last.placed.end()
        });
        if !nested {
            kept.push(d);
        }
    }
    kept
}

/// The literal entries each function's code points at (see the module
/// comment), in the order of its first relocation naming each.
fn function_literals(object: &ElfObject) -> Vec<Vec<Placed>> {
    let empty = Resolver {
        object,
        data: &[],
        chunks: &[],
        literals: &[],
    };
    object
        .functions
        .iter()
        .map(|placed| {
            let mut relocations: Vec<&elf::Relocation> = empty.within(placed).collect();
            relocations.sort_by_key(|r| r.offset);
            let mut entries: Vec<Placed> = Vec::new();
            for relocation in relocations {
                let Some(entry) = empty
                    .probe(relocation)
                    .and_then(|p| literal_entry(object, p))
                else {
                    continue;
                };
                if !entries.iter().any(|e| e.address == entry.address) {
                    entries.push(entry);
                }
            }
            entries
        })
        .collect()
}

/// The literal entry holding synthetic address `probe`, if a literal
/// section holds it.
fn literal_entry(object: &ElfObject, probe: u64) -> Option<Placed> {
    let (index, section) = object
        .sections
        .iter()
        .enumerate()
        .find(|(_, s)| s.is_literals() && probe >= s.address && probe < s.address + s.size)?;
    let offset = (probe - section.address) / section.entsize * section.entsize;
    Some(Placed {
        name: String::new(),
        global: false,
        section: index,
        address: section.address + offset,
        size: section.entsize.min(section.size - offset),
    })
}

/// The stretches of data sections no data object covers, by address.
fn uncovered(object: &ElfObject, data: &[PlacedData]) -> Vec<Placed> {
    let mut gaps = Vec::new();
    for (index, section) in object.sections.iter().enumerate() {
        if !section.is_data() || section.size == 0 || section.is_literals() {
            continue;
        }
        let mut next = section.address;
        let end = section.address + section.size;
        let inside = data.iter().filter(|d| d.placed.section == index);
        for covered in inside
            .map(|d| (d.placed.address, d.placed.end()))
            .chain([(end, end)])
        {
            if covered.0 > next {
                gaps.push(Placed {
                    name: String::new(),
                    global: false,
                    section: index,
                    address: next,
                    size: covered.0 - next,
                });
            }
            next = next.max(covered.1);
        }
    }
    gaps
}

/// Whether an unclaimed stretch is alignment padding: shorter than its
/// section's alignment, all zeros, and relocated nowhere.
fn is_padding(object: &ElfObject, gap: &Placed) -> bool {
    let section = &object.sections[gap.section];
    let start = gap.address - section.address;
    let relocated = object.relocations[gap.section]
        .iter()
        .any(|r| r.offset >= start && r.offset < start + gap.size);
    gap.size < section.align && !relocated && bytes_of(object, gap).iter().all(|&b| b == 0)
}

/// Splits the read-only gaps into functions' rodata (see the module
/// comment); returns the chunks and the stretches no function claims.
fn claim_rodata(
    object: &ElfObject,
    data: &[PlacedData],
    gaps: Vec<Placed>,
) -> (Vec<Chunk>, Vec<Placed>) {
    // Where each function's code first points into each gap.
    let mut first_target: Vec<(usize, u64, usize)> = Vec::new(); // (gap, probe, function)
    let empty = Resolver {
        object,
        data,
        chunks: &[],
        literals: &[],
    };
    for (function, placed) in object.functions.iter().enumerate() {
        for relocation in empty.within(placed) {
            let Some(probe) = empty.probe(relocation) else {
                continue;
            };
            let gap = gaps.iter().position(|g| {
                let section = &object.sections[g.section];
                let read_only = section.flags & u64::from(section_header::SHF_WRITE) == 0
                    && section.kind != section_header::SHT_NOBITS;
                read_only && probe >= g.address && probe < g.end()
            });
            if let Some(gap) = gap {
                first_target.push((gap, probe, function));
            }
        }
    }
    first_target.sort();
    let mut chunks: Vec<Chunk> = Vec::new();
    let mut unclaimed = Vec::new();
    for (index, gap) in gaps.into_iter().enumerate() {
        let mut starts: Vec<(u64, usize)> = Vec::new();
        for &(_, probe, function) in first_target.iter().filter(|t| t.0 == index) {
            let owned = chunks.iter().any(|c| c.function == function)
                || starts.iter().any(|s| s.1 == function);
            if !owned && starts.last().is_none_or(|last| last.0 < probe) {
                starts.push((probe, function));
            }
        }
        if let Some(&(first, _)) = starts.first() {
            if first > gap.address {
                unclaimed.push(Placed {
                    size: first - gap.address,
                    ..gap.clone()
                });
            }
        } else {
            unclaimed.push(gap);
            continue;
        }
        for (k, &(start, function)) in starts.iter().enumerate() {
            let end = starts.get(k + 1).map_or(gap.end(), |next| next.0);
            chunks.push(Chunk {
                function,
                placed: Placed {
                    address: start,
                    size: end - start,
                    ..gap.clone()
                },
            });
        }
    }
    (chunks, unclaimed)
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
    let tls = section.flags & u64::from(section_header::SHF_TLS) != 0;
    let kind = if tls && section.kind == section_header::SHT_NOBITS {
        DataSection::ThreadLocalBss
    } else if tls {
        DataSection::ThreadLocal
    } else if section.kind == section_header::SHT_NOBITS {
        DataSection::Bss
    } else if section.flags & u64::from(section_header::SHF_MERGE | section_header::SHF_STRINGS)
        == u64::from(section_header::SHF_MERGE | section_header::SHF_STRINGS)
    {
        DataSection::Strings
    } else if section.name.starts_with(".data.rel.ro") {
        DataSection::ReadOnly
    } else if section.flags & u64::from(section_header::SHF_WRITE) != 0 {
        DataSection::Data
    } else {
        DataSection::ReadOnly
    };
    let placed = Placed {
        name: name.clone(),
        global,
        section: index,
        address: section.address + value,
        size,
    };
    PlacedData {
        from_symbol: false,
        object: DataObject {
            aliases: Vec::new(),
            comdat: None,
            binding: Default::default(),
            section_name: None,
            name,
            global,
            section: kind,
            align: section.align,
            bytes: bytes_of(object, &placed),
            relocations: Vec::new(),
        },
        placed,
    }
}

/// Re-expresses ELF relocations against model symbols.
struct Resolver<'a> {
    object: &'a ElfObject,
    data: &'a [PlacedData],
    chunks: &'a [Chunk],
    /// Each function's literal entries.
    literals: &'a [Vec<Placed>],
}

impl Resolver<'_> {
    /// The ELF relocations of the bytes `placed` covers.
    fn within<'r>(&'r self, placed: &Placed) -> impl Iterator<Item = &'r elf::Relocation> {
        let section = &self.object.sections[placed.section];
        let start = placed.address - section.address;
        let end = start + placed.size;
        self.object.relocations[placed.section]
            .iter()
            .filter(move |r| r.offset >= start && r.offset < end)
    }

    /// The model relocations of the bytes `placed` covers (the code of
    /// function number `function`, or other bytes), offsets relative to its
    /// start.
    fn relocations_in(&self, placed: &Placed, function: Option<usize>) -> Vec<Relocation> {
        let section = &self.object.sections[placed.section];
        let start = placed.address - section.address;
        self.within(placed)
            .filter_map(|r| {
                let kind = relocation_kind(r.kind)?;
                let field = if section.is_code() {
                    Field::Code
                } else {
                    Field::Data(r.offset - start)
                };
                let (symbol, addend) = match self.literal_target(r, kind, function) {
                    Some(found) => found,
                    None => self.target(r, kind, field),
                };
                Some(Relocation {
                    offset: r.offset - start,
                    kind,
                    symbol,
                    addend,
                })
            })
            .collect()
    }

    /// Whether a relocation keeps its symbol's name (see the module comment).
    fn is_named(&self, relocation: &elf::Relocation) -> bool {
        let symbol = &self.object.symbols[relocation.symbol];
        !symbol.name.is_empty()
            && (symbol.section.is_none()
                || symbol.binding != sym::STB_LOCAL
                || symbol.kind == sym::STT_FUNC
                || symbol.kind == sym::STT_OBJECT)
    }

    /// For a relocation resolved by address: the address it computes and
    /// the address its target is looked up at.
    fn addresses(
        &self,
        relocation: &elf::Relocation,
        kind: RelocationKind,
        field: Field,
    ) -> (u64, u64) {
        let symbol = &self.object.symbols[relocation.symbol];
        let address = self
            .object
            .symbol_address(symbol)
            .wrapping_add_signed(relocation.addend);
        (address, address.wrapping_add_signed(shift(kind, field)))
    }

    /// The look-up address of a relocation in code resolved by address.
    fn probe(&self, relocation: &elf::Relocation) -> Option<u64> {
        let kind = relocation_kind(relocation.kind)?;
        (!self.is_named(relocation)).then(|| self.addresses(relocation, kind, Field::Code).1)
    }

    /// A relocation in the code of function number `function` pointing at
    /// one of its literals: [`Symbol::Literal`] and the addend from the
    /// entry's start.
    fn literal_target(
        &self,
        relocation: &elf::Relocation,
        kind: RelocationKind,
        function: Option<usize>,
    ) -> Option<(Symbol, i64)> {
        let entries = self.literals.get(function?)?;
        if self.is_named(relocation) {
            return None;
        }
        let (address, probe) = self.addresses(relocation, kind, Field::Code);
        let index = entries
            .iter()
            .position(|e| probe >= e.address && probe < e.end())?;
        Some((
            Symbol::Literal {
                function: function?,
                index,
            },
            address.wrapping_sub(entries[index].address) as i64,
        ))
    }

    /// The model symbol and addend for one ELF relocation.
    fn target(
        &self,
        relocation: &elf::Relocation,
        kind: RelocationKind,
        field: Field,
    ) -> (Symbol, i64) {
        let symbol = &self.object.symbols[relocation.symbol];
        if self.is_named(relocation) {
            return (Symbol::Named(symbol.name.clone()), relocation.addend);
        }
        let (address, probe) = self.addresses(relocation, kind, field);
        let addend = address.wrapping_sub(probe) as i64;
        if let Some((function, offset)) = self.object.function_at(probe) {
            return if offset == 0 {
                (
                    Symbol::Named(self.object.functions[function].name.clone()),
                    addend,
                )
            } else {
                (Symbol::FunctionCode { function, offset }, addend)
            };
        }
        let inside = |placed: &Placed| probe >= placed.address && probe < placed.end();
        if let Some(chunk) = self.chunks.iter().find(|c| inside(&c.placed)) {
            return (
                Symbol::FunctionData(chunk.function),
                address.wrapping_sub(chunk.placed.address) as i64,
            );
        }
        let containing = self
            .data
            .iter()
            .find(|d| inside(&d.placed))
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

/// Where a relocated field sits: in code, or at this offset in a function's
/// rodata or a data object.
#[derive(Clone, Copy)]
enum Field {
    Code,
    Data(u64),
}

/// How far from the address a relocation computes its target is looked
/// up: for a PC-relative field in code, 4 bytes on (the field ends its
/// instruction); in data, back by the field's offset (a jump-table entry
/// `target - table` at byte `4k` has addend `target + 4k`); for an
/// absolute field, nowhere.
fn shift(kind: RelocationKind, field: Field) -> i64 {
    match (kind, field) {
        (kind, _) if !kind.is_pc_relative() => 0,
        (_, Field::Code) => 4,
        (_, Field::Data(offset)) => -(offset as i64),
    }
}

/// The model kind of an x86-64 relocation type, `None` when the model has
/// no room for it.
fn relocation_kind(kind: u32) -> Option<RelocationKind> {
    match kind {
        reloc::R_X86_64_PC32 => Some(RelocationKind::Pc32),
        reloc::R_X86_64_PLT32 => Some(RelocationKind::Plt32),
        reloc::R_X86_64_PC64 => Some(RelocationKind::Pc64),
        reloc::R_X86_64_GOTPCREL | reloc::R_X86_64_GOTPCRELX | reloc::R_X86_64_REX_GOTPCRELX => {
            Some(RelocationKind::GotPcRelX)
        }
        reloc::R_X86_64_64 => Some(RelocationKind::Abs64),
        reloc::R_X86_64_TLSGD => Some(RelocationKind::TlsGd),
        reloc::R_X86_64_TLSLD => Some(RelocationKind::TlsLd),
        reloc::R_X86_64_DTPOFF32 => Some(RelocationKind::DtpOff32),
        reloc::R_X86_64_GOTTPOFF => Some(RelocationKind::GotTpOff),
        reloc::R_X86_64_TPOFF32 => Some(RelocationKind::TpOff32),
        _ => None,
    }
}

/// The names of the undefined weak symbols (LLVM `extern_weak`), sorted.
pub(super) fn weak_references(object: &ElfObject) -> Vec<String> {
    let mut names: Vec<String> = object
        .symbols
        .iter()
        .filter(|s| {
            s.binding == sym::STB_WEAK && s.section.is_none() && s.size == 0 && !s.name.is_empty()
        })
        .map(|s| s.name.clone())
        .collect();
    names.sort();
    names.dedup();
    names
}
