//! The ELF side of reading: sections, symbols and relocations of an x86-64
//! object, relocatable or linked, at the addresses DWARF names.
//!
//! In: the bytes of an ELF64 little-endian x86-64 file: a relocatable
//! object (ET_REL), an executable (ET_EXEC), or a PIE or shared library
//! (ET_DYN).
//! Out: an [`ElfObject`] that knows each section's bytes (inflated when
//! compressed, see `compressed`) and address, the function and data symbols
//! sorted by address, and can hand out a copy of any section with its
//! relocations applied.
//!
//! Promises: a linked file's allocated sections sit at their own addresses
//! (sh_addr) and its relocations (dynamic ones, for the loader) are not
//! applied: its DWARF holds final addresses already. A relocatable object
//! has no addresses, so every allocated section is placed at a synthetic
//! address (from [`FIRST_ADDRESS`], one after another in section-header
//! order, each starting on a multiple of [`SECTION_SPACING`]); non-allocated
//! sections sit at address 0, so a relocated offset into `.debug_str` is
//! just `symbol value + addend`. Relocations are applied as a linker would
//! under that layout, so addresses read from DWARF and `.eh_frame` map back
//! to (section, offset) exactly. Either way a [`Symbol`]'s value is an
//! offset into its section. Nothing here panics on malformed input:
//! out-of-range headers, symbols and relocations are [`ReadError`]s.

use std::borrow::Cow;

use goblin::elf::{header, reloc, section_header, sym, Elf};
use rayon::prelude::*;

use super::compressed::inflate;
use super::{FileBytes, ReadError, SectionBytes};
use std::sync::Arc;

/// The file size from which its sections are copied (and inflated) in
/// parallel (rayon); a smaller file's are copied on the calling thread.
const PARALLEL_COPY_FROM: usize = 4 << 20;

/// Where the first allocated section is placed. Not 0, so that an address
/// a missing relocation left as zero lands outside every section.
pub(crate) const FIRST_ADDRESS: u64 = 0x100000;

/// Allocated sections start on multiples of this, so an address that runs
/// a little past one section's end lands in a gap, not in the next section.
/// (Small enough that PC-relative fields between sections still fit.)
pub(crate) const SECTION_SPACING: u64 = 0x100000;

/// The largest section read (a `.bss` becomes zeros in memory). With at
/// most 65535 sections, synthetic addresses stay far from overflowing.
const MAX_SECTION_SIZE: u64 = 1 << 30;

/// One section of the object with its synthetic address.
#[derive(Clone, Debug)]
pub(crate) struct Section {
    /// Section name.
    pub name: String,
    /// SHT_* type.
    pub kind: u32,
    /// SHF_* flags.
    pub flags: u64,
    /// Address: sh_addr in a linked file, synthetic in a relocatable one
    /// (0 for a non-allocated section).
    pub address: u64,
    /// Size in bytes (for SHT_NOBITS, the size it occupies in memory; for
    /// a compressed section, the uncompressed size).
    pub size: u64,
    /// Alignment in bytes (at least 1).
    pub align: u64,
    /// sh_entsize: the size of each entry of a table or mergeable section.
    pub entsize: u64,
    /// sh_info (for SHT_GROUP, the signature symbol's index).
    pub info: u32,
    /// File contents, inflated when compressed (empty for SHT_NOBITS).
    pub data: SectionBytes,
}

impl Section {
    /// Whether the section holds machine code.
    pub fn is_code(&self) -> bool {
        self.flags & u64::from(section_header::SHF_EXECINSTR) != 0
            && self.flags & u64::from(section_header::SHF_ALLOC) != 0
    }

    /// Whether the section holds literals (`.rodata.cst4/8/16`): allocated,
    /// read-only, PROGBITS, SHF_MERGE without SHF_STRINGS, entries of 4, 8
    /// or 16 bytes.
    pub fn is_literals(&self) -> bool {
        let flag = |f: u32| self.flags & u64::from(f) != 0;
        flag(section_header::SHF_ALLOC)
            && flag(section_header::SHF_MERGE)
            && !flag(section_header::SHF_STRINGS)
            && !flag(section_header::SHF_WRITE)
            && self.kind == section_header::SHT_PROGBITS
            && matches!(self.entsize, 4 | 8 | 16)
    }

    /// Whether the section holds program data a model `DataObject` can
    /// describe: allocated, not code, PROGBITS or NOBITS, not unwind tables.
    pub fn is_data(&self) -> bool {
        self.flags & u64::from(section_header::SHF_ALLOC) != 0
            && !self.is_code()
            && (self.kind == section_header::SHT_PROGBITS
                || self.kind == section_header::SHT_NOBITS)
            && self.flags & u64::from(section_header::SHF_TLS) == 0
            && self.name != ".eh_frame"
    }
}

/// One entry of the symbol table, resolved.
#[derive(Clone, Debug)]
pub(crate) struct Symbol {
    /// Name (empty for section symbols and unnamed locals).
    pub name: String,
    /// STT_* type.
    pub kind: u8,
    /// STB_* binding.
    pub binding: u8,
    /// Section index, or `None` for SHN_UNDEF / SHN_ABS / SHN_COMMON.
    pub section: Option<usize>,
    /// The offset into its section (st_value, less the section's address
    /// in a linked file); st_value itself without a section.
    pub value: u64,
    /// st_size.
    pub size: u64,
    /// st_other (the visibility in its low bits).
    pub other: u8,
}

/// One relocation entry of a section.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Relocation {
    /// Offset of the patched field in its section.
    pub offset: u64,
    /// R_X86_64_* type.
    pub kind: u32,
    /// Index into [`ElfObject::symbols`].
    pub symbol: usize,
    /// The addend (explicit for RELA, read from the field for REL).
    pub addend: i64,
}

/// A defined function or data symbol with its synthetic address range.
#[derive(Clone, Debug)]
pub(crate) struct Placed {
    /// Symbol name.
    pub name: String,
    /// STB_GLOBAL or STB_WEAK.
    pub global: bool,
    /// Section index.
    pub section: usize,
    /// Synthetic address of the first byte.
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
}

impl Placed {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.address + self.size
    }
}

/// An x86-64 object or linked file, parsed and laid out.
#[derive(Clone, Debug)]
pub(crate) struct ElfObject {
    /// In a linked file, the first address of its code: code the linker
    /// discarded (an unused function, a duplicate inline copy) is left in
    /// the DWARF at address 0 (GNU ld) or at tombstones (`-1`, `-2`: lld),
    /// so whatever starts below it is discarded. 0 in a relocatable object.
    pub code_start: u64,
    /// Sections by header index.
    pub sections: Vec<Section>,
    /// The symbol table by index.
    pub symbols: Vec<Symbol>,
    /// Relocations per target section index (empty when none).
    pub relocations: Vec<Vec<Relocation>>,
    /// Functions (STT_FUNC in code sections), by address, aliases removed.
    pub functions: Vec<Placed>,
}

impl ElfObject {
    /// Parses `bytes` as an ELF64 x86-64 relocatable object, executable,
    /// PIE or shared library.
    pub fn parse(bytes: &[u8]) -> Result<ElfObject, ReadError> {
        ElfObject::parse_from(bytes, None)
    }

    /// [`ElfObject::parse`] of a file's bytes (`bytes` are `file`'s), whose
    /// sections keep the file instead of copies of their bytes unless they
    /// are compressed.
    fn parse_from(bytes: &[u8], file: Option<&Arc<FileBytes>>) -> Result<ElfObject, ReadError> {
        let header =
            Elf::parse_header(bytes).map_err(|e| ReadError::new("ELF header", e.to_string()))?;
        let table_end = header
            .e_shoff
            .checked_add(u64::from(header.e_shnum) * u64::from(header.e_shentsize));
        if table_end.is_none_or(|end| end > bytes.len() as u64) {
            return Err(ReadError::new(
                "section headers",
                format!(
                    "{} entries at file offset {:#x} run past the end of the file ({:#x} bytes): truncated?",
                    header.e_shnum,
                    header.e_shoff,
                    bytes.len()
                ),
            ));
        }
        let elf = Elf::parse(bytes).map_err(|e| ReadError::new("ELF", e.to_string()))?;
        if !elf.is_64 || !elf.little_endian {
            return Err(ReadError::new(
                "ELF header",
                "not an ELF64 little-endian object",
            ));
        }
        if elf.header.e_machine != header::EM_X86_64 {
            return Err(ReadError::new(
                "ELF header",
                format!("e_machine is {}, not EM_X86_64", elf.header.e_machine),
            ));
        }
        let linked = match elf.header.e_type {
            header::ET_REL => false,
            header::ET_EXEC | header::ET_DYN => true,
            other => {
                return Err(ReadError::new(
                    "ELF header",
                    format!(
                        "e_type is {other}, not ET_REL, ET_EXEC or ET_DYN (an object, executable or shared library)"
                    ),
                ))
            }
        };
        let sections = read_sections(bytes, file, &elf, linked)?;
        let symbols = read_symbols(&elf, &sections, linked)?;
        let relocations = if linked {
            vec![Vec::new(); sections.len()]
        } else {
            read_relocations(&elf, &sections, symbols.len())?
        };
        let functions = place_functions(&sections, &symbols);
        let code_start = match linked {
            true => (sections.iter().filter(|s| s.is_code()).map(|s| s.address))
                .min()
                .unwrap_or(0),
            false => 0,
        };
        Ok(ElfObject {
            code_start,
            sections,
            symbols,
            relocations,
            functions,
        })
    }

    /// Parses a stripped linked file with the debug file holding its DWARF
    /// (`objcopy --only-keep-debug`; `None`: the file alone). The code,
    /// addresses and symbols are the file's and the `.debug_*` sections the
    /// debug file's; a file without `.symtab` takes the debug file's, each
    /// symbol's section matched by name.
    pub fn parse_with_debug(bytes: &[u8], debug: Option<&[u8]>) -> Result<ElfObject, ReadError> {
        ElfObject::parse_pair((bytes, None), debug.map(|debug| (debug, None)))
    }

    /// [`ElfObject::parse_with_debug`] of files as [`FileBytes`]: the
    /// sections keep the files (mapped) rather than copies of their bytes,
    /// unless they are compressed.
    pub fn parse_files(
        file: &Arc<FileBytes>,
        debug: Option<&Arc<FileBytes>>,
    ) -> Result<ElfObject, ReadError> {
        let debug = debug.map(|debug| (&debug[..], Some(debug)));
        ElfObject::parse_pair((&file[..], Some(file)), debug)
    }

    /// [`ElfObject::parse_with_debug`] of the bytes of a file and of its
    /// debug file, each with the file they are when it is known.
    fn parse_pair(
        (bytes, file): (&[u8], Option<&Arc<FileBytes>>),
        debug: Option<(&[u8], Option<&Arc<FileBytes>>)>,
    ) -> Result<ElfObject, ReadError> {
        let mut object = ElfObject::parse_from(bytes, file)?;
        let Some((debug, debug_file)) = debug else {
            return Ok(object);
        };
        let debug = ElfObject::parse_from(debug, debug_file).map_err(|e| ReadError {
            section: format!("debug file: {}", e.section),
            ..e
        })?;
        for section in &debug.sections {
            if section.name.starts_with(".debug_") && object.section_index(&section.name).is_none()
            {
                object.sections.push(section.clone());
                object.relocations.push(Vec::new());
            }
        }
        if object.section_index(".symtab").is_none() && debug.section_index(".symtab").is_some() {
            object.symbols = (debug.symbols.iter())
                .filter_map(|symbol| {
                    let section = match symbol.section {
                        Some(index) => Some(object.section_index(&debug.sections[index].name)?),
                        None => None,
                    };
                    Some(Symbol {
                        section,
                        ..symbol.clone()
                    })
                })
                .collect();
            object.functions = place_functions(&object.sections, &object.symbols);
        }
        Ok(object)
    }

    /// Whether code at `address` was discarded by the linker (see
    /// [`ElfObject::code_start`]); never in a relocatable object.
    pub fn discarded(&self, address: u64) -> bool {
        discarded(self.code_start, address)
    }

    /// The index of the first section named `name`.
    pub fn section_index(&self, name: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.name == name)
    }

    /// Address of a symbol (`S` in relocation formulas).
    pub fn symbol_address(&self, symbol: &Symbol) -> u64 {
        match symbol.section {
            Some(index) => self.sections[index].address.wrapping_add(symbol.value),
            None => symbol.value,
        }
    }

    /// Section `index` with its relocations applied under the synthetic
    /// layout: borrowed when it has none (every section of a linked file),
    /// else a copy. TLS offsets (`R_X86_64_DTPOFF32/64`, for
    /// `DW_OP_form_tls_address`) are the symbol's offset in its TLS section;
    /// relocation types that have no meaning outside code are left as the
    /// bytes hold them.
    pub fn relocated(&self, index: usize) -> Cow<'_, [u8]> {
        let section = &self.sections[index];
        if self.relocations[index].is_empty() {
            return Cow::Borrowed(&section.data);
        }
        let mut data = section.data.to_vec();
        for relocation in &self.relocations[index] {
            let symbol = &self.symbols[relocation.symbol];
            let s = self.symbol_address(symbol);
            let a = relocation.addend;
            let p = section.address.wrapping_add(relocation.offset);
            let value = s.wrapping_add_signed(a);
            let tls_offset = symbol.value.wrapping_add_signed(a);
            let (bytes, width): ([u8; 8], usize) = match relocation.kind {
                reloc::R_X86_64_64 => (value.to_le_bytes(), 8),
                reloc::R_X86_64_32 | reloc::R_X86_64_32S => (value.to_le_bytes(), 4),
                reloc::R_X86_64_PC32 | reloc::R_X86_64_PLT32 => {
                    (value.wrapping_sub(p).to_le_bytes(), 4)
                }
                reloc::R_X86_64_PC64 => (value.wrapping_sub(p).to_le_bytes(), 8),
                reloc::R_X86_64_DTPOFF64 => (tls_offset.to_le_bytes(), 8),
                reloc::R_X86_64_DTPOFF32 => (tls_offset.to_le_bytes(), 4),
                _ => continue,
            };
            let start = relocation.offset as usize;
            data[start..start + width].copy_from_slice(&bytes[..width]);
        }
        Cow::Owned(data)
    }

    /// The function containing `address`, with the offset into it.
    pub fn function_at(&self, address: u64) -> Option<(usize, u64)> {
        let index = self.functions.partition_point(|f| f.address <= address);
        let function = self.functions.get(index.checked_sub(1)?)?;
        (address < function.end()).then(|| (index - 1, address - function.address))
    }
}

/// Whether `address` is code a linker discarded, in a file whose code
/// starts at `code_start` (0: a relocatable object, where nothing is).
pub(crate) fn discarded(code_start: u64, address: u64) -> bool {
    code_start != 0 && (address < code_start || address >= u64::MAX - 1)
}

/// A section's name and contents, inflated when compressed (the name and
/// size then those of the inflated section).
struct Contents {
    name: String,
    data: SectionBytes,
    size: u64,
    align: u64,
}

/// The contents of section `index`, or why they cannot be read: a stretch
/// of `file` (which `bytes` are) when it is given and the section is not
/// compressed, else a copy.
fn section_contents(
    bytes: &[u8],
    file: Option<&Arc<FileBytes>>,
    elf: &Elf,
    index: usize,
    header: &section_header::SectionHeader,
) -> Result<Contents, ReadError> {
    let mut name = elf
        .shdr_strtab
        .get_at(header.sh_name)
        .ok_or_else(|| {
            ReadError::new(
                "section headers",
                format!("section {index} has a name outside .shstrtab"),
            )
        })?
        .to_string();
    if header.sh_type == section_header::SHT_NOBITS {
        return Ok(Contents {
            name,
            data: SectionBytes::default(),
            size: header.sh_size,
            align: header.sh_addralign,
        });
    }
    let start = header.sh_offset as usize;
    let range = start
        .checked_add(header.sh_size as usize)
        .map(|end| start..end)
        .filter(|range| range.end <= bytes.len());
    let Some(range) = range else {
        return Err(ReadError::new(
            &name,
            format!(
                "contents at file offset {:#x}, size {:#x}, run past the end of the file ({:#x} bytes)",
                header.sh_offset,
                header.sh_size,
                bytes.len()
            ),
        ));
    };
    let mut size = header.sh_size;
    let mut align = header.sh_addralign;
    let data = match inflate(
        &name,
        header.sh_flags,
        &bytes[range.clone()],
        MAX_SECTION_SIZE,
    )? {
        Some(inflated) => {
            name = inflated.name;
            size = inflated.data.len() as u64;
            align = inflated.align.unwrap_or(align);
            SectionBytes::Owned(inflated.data)
        }
        None => match file {
            Some(file) => SectionBytes::Shared(Arc::clone(file), range),
            None => SectionBytes::Owned(bytes[range].to_vec()),
        },
    };
    Ok(Contents {
        name,
        data,
        size,
        align,
    })
}

fn read_sections(
    bytes: &[u8],
    file: Option<&Arc<FileBytes>>,
    elf: &Elf,
    linked: bool,
) -> Result<Vec<Section>, ReadError> {
    // The contents are copied (and inflated) in parallel in a large file:
    // a 100 MB executable's copy is most of the time it takes to read
    // (none is made of a mapped file's, see `ElfObject::parse_files`).
    let read = |(index, header)| section_contents(bytes, file, elf, index, header);
    let contents: Vec<Result<Contents, ReadError>> = if bytes.len() >= PARALLEL_COPY_FROM {
        elf.section_headers
            .par_iter()
            .enumerate()
            .map(read)
            .collect()
    } else {
        elf.section_headers.iter().enumerate().map(read).collect()
    };
    let mut sections = Vec::with_capacity(elf.section_headers.len());
    let mut next_address = FIRST_ADDRESS;
    for (header, contents) in elf.section_headers.iter().zip(contents) {
        let Contents {
            name,
            data,
            size,
            align,
        } = contents?;
        if size > MAX_SECTION_SIZE {
            return Err(ReadError::new(
                &name,
                format!(
                    "size {size:#x} is more than this reader holds ({MAX_SECTION_SIZE:#x} bytes)",
                ),
            ));
        }
        let align = align.clamp(1, SECTION_SPACING);
        let allocated = header.sh_flags & u64::from(section_header::SHF_ALLOC) != 0;
        if linked && allocated && header.sh_addr.checked_add(size).is_none() {
            return Err(ReadError::new(
                &name,
                format!(
                    "address {:#x} and size {size:#x} run past the end of the address space",
                    header.sh_addr
                ),
            ));
        }
        let address = if linked && allocated {
            header.sh_addr
        } else if allocated {
            let aligned = next_address.next_multiple_of(SECTION_SPACING);
            next_address = aligned + header.sh_size;
            aligned
        } else {
            0
        };
        sections.push(Section {
            name,
            kind: header.sh_type,
            flags: header.sh_flags,
            address,
            size,
            align,
            entsize: header.sh_entsize,
            info: header.sh_info,
            data,
        });
    }
    Ok(sections)
}

/// The symbol table (`.symtab`; in a linked file without one, `.dynsym`),
/// each value made an offset into its section: a linked file's st_value is
/// an address (for STT_TLS, an offset into the TLS segment).
fn read_symbols(elf: &Elf, sections: &[Section], linked: bool) -> Result<Vec<Symbol>, ReadError> {
    let (table, strings, table_name) = if linked && elf.syms.is_empty() {
        (&elf.dynsyms, &elf.dynstrtab, ".dynsym")
    } else {
        (&elf.syms, &elf.strtab, ".symtab")
    };
    let tls_start = elf
        .program_headers
        .iter()
        .find(|p| p.p_type == goblin::elf::program_header::PT_TLS)
        .map_or(0, |p| p.p_vaddr);
    let mut symbols = Vec::with_capacity(table.len());
    for (index, symbol) in table.iter().enumerate() {
        let name = strings
            .get_at(symbol.st_name)
            .ok_or_else(|| {
                ReadError::new(
                    table_name,
                    format!("symbol {index} has a name outside its string table"),
                )
            })?
            .to_string();
        let section = match symbol.st_shndx as u32 {
            section_header::SHN_UNDEF | section_header::SHN_ABS | section_header::SHN_COMMON => {
                None
            }
            shndx if (shndx as usize) < sections.len() => Some(shndx as usize),
            shndx => {
                return Err(ReadError::new(
                    table_name,
                    format!(
                        "symbol {index} ({name}) names section {shndx}, but there are {}",
                        sections.len()
                    ),
                ))
            }
        };
        let value = match section {
            Some(index) if linked => {
                let address = if symbol.st_type() == sym::STT_TLS {
                    tls_start.wrapping_add(symbol.st_value)
                } else {
                    symbol.st_value
                };
                address.wrapping_sub(sections[index].address)
            }
            _ => symbol.st_value,
        };
        symbols.push(Symbol {
            name,
            kind: symbol.st_type(),
            binding: symbol.st_bind(),
            section,
            value,
            size: symbol.st_size,
            other: symbol.st_other,
        });
    }
    Ok(symbols)
}

fn read_relocations(
    elf: &Elf,
    sections: &[Section],
    symbol_count: usize,
) -> Result<Vec<Vec<Relocation>>, ReadError> {
    let mut relocations = vec![Vec::new(); sections.len()];
    for (relocation_section, entries) in &elf.shdr_relocs {
        let header = &elf.section_headers[*relocation_section];
        let rel_name = &sections[*relocation_section].name;
        let target = header.sh_info as usize;
        let Some(target_section) = sections.get(target) else {
            return Err(ReadError::new(
                rel_name,
                format!(
                    "applies to section {target}, but there are {}",
                    sections.len()
                ),
            ));
        };
        for entry in entries.iter() {
            let width = relocation_width(entry.r_type);
            if entry
                .r_offset
                .checked_add(width)
                .is_none_or(|end| end > target_section.size)
                || (target_section.kind == section_header::SHT_NOBITS && width > 0)
            {
                return Err(ReadError::at(
                    rel_name,
                    entry.r_offset,
                    format!(
                        "relocation field ({width} bytes) runs past the end of {} ({:#x} bytes)",
                        target_section.name, target_section.size
                    ),
                ));
            }
            if entry.r_sym >= symbol_count {
                return Err(ReadError::at(
                    rel_name,
                    entry.r_offset,
                    format!(
                        "relocation names symbol {}, but there are {symbol_count}",
                        entry.r_sym
                    ),
                ));
            }
            let addend = match entry.r_addend {
                Some(addend) => addend,
                None => implicit_addend(&target_section.data, entry.r_offset, width),
            };
            relocations[target].push(Relocation {
                offset: entry.r_offset,
                kind: entry.r_type,
                symbol: entry.r_sym,
                addend,
            });
        }
    }
    for list in &mut relocations {
        list.sort_by_key(|r| r.offset);
    }
    Ok(relocations)
}

/// Width in bytes of the field an x86-64 relocation patches (0 for none).
pub(crate) fn relocation_width(kind: u32) -> u64 {
    match kind {
        reloc::R_X86_64_NONE => 0,
        reloc::R_X86_64_64
        | reloc::R_X86_64_PC64
        | reloc::R_X86_64_GOTOFF64
        | reloc::R_X86_64_GOTPC64 => 8,
        reloc::R_X86_64_16 | reloc::R_X86_64_PC16 => 2,
        reloc::R_X86_64_8 | reloc::R_X86_64_PC8 => 1,
        _ => 4,
    }
}

fn implicit_addend(data: &[u8], offset: u64, width: u64) -> i64 {
    let start = offset as usize;
    match width {
        8 => i64::from_le_bytes(data[start..start + 8].try_into().unwrap_or_default()),
        4 => i64::from(i32::from_le_bytes(
            data[start..start + 4].try_into().unwrap_or_default(),
        )),
        _ => 0,
    }
}

/// Defined STT_FUNC symbols of code sections, by address (then size); of
/// several symbols with one address and size (aliases) the global one (then
/// the first) is kept, and one starting inside another (an alias at an
/// offset) is left out. One running past its section's end is cut there
/// (`verify` reports it).
fn place_functions(sections: &[Section], symbols: &[Symbol]) -> Vec<Placed> {
    let mut placed: Vec<Placed> = symbols
        .iter()
        .filter(|s| s.kind == sym::STT_FUNC)
        .filter_map(|s| {
            let index = s.section?;
            let section = &sections[index];
            (section.is_code() && s.value <= section.size).then(|| Placed {
                name: s.name.clone(),
                global: s.binding != sym::STB_LOCAL,
                section: index,
                address: section.address + s.value,
                size: s.size.min(section.size - s.value),
            })
        })
        .collect();
    placed.sort_by_key(|p| (p.address, p.size, !p.global));
    placed.dedup_by_key(|p| (p.address, p.size));
    // A symbol starting inside a function is an alias of it (at an offset).
    let mut kept: Vec<Placed> = Vec::with_capacity(placed.len());
    for p in placed {
        let nested = kept.last().is_some_and(|last: &Placed| {
            last.section == p.section && p.address > last.address && p.address < last.end()
        });
        if !nested {
            kept.push(p);
        }
    }
    kept
}
