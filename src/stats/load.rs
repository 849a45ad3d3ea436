//! An ELF x86-64 file's DWARF sections, relocated and inflated, for the
//! statistics.
//!
//! In: the bytes of an object, executable, PIE or shared library.
//! Out: a [`LoadedFile`]: every `.debug_*` section inflated (`SHF_COMPRESSED`
//! zlib or zstd, or `.zdebug_*`) and, in an object, with its RELA entries
//! applied; the sizes of the debug sections as they are in the file; the code
//! sections (for the disassembly of the page).
//!
//! Promises: the object crate parses the ELF and its relocations, flate2 and
//! zstd inflate; this module only computes `S + A`. An object gets the
//! synthetic layout "allocated section `i` at `i << 32`", so addresses of
//! different sections never meet; [`LoadedFile::llvm_address`] takes the
//! section back off, giving the section-relative address llvm-dwarfdump
//! sees in an object (its sections all start at 0). A linked file's
//! addresses are its own.

use std::borrow::Cow;
use std::collections::HashMap;

use gimli::{EndianSlice, LittleEndian, SectionId};
use object::{Object, ObjectSection, ObjectSymbol, RelocationFlags, RelocationTarget};

/// The reader type the statistics read DWARF through.
pub(crate) type Slice<'a> = EndianSlice<'a, LittleEndian>;

/// Where an allocated section of an object starts in the synthetic layout.
const SECTION_SHIFT: u32 = 32;

/// A code section: its address and bytes.
#[derive(Clone, Debug)]
pub struct CodeSection {
    /// Its (synthetic, in an object) address.
    pub address: u64,
    /// Its contents.
    pub bytes: Vec<u8>,
}

/// What the statistics read from one file: its sections are borrowed from
/// the file's bytes unless they had to be inflated or relocated.
pub(crate) struct LoadedFile<'a> {
    sections: HashMap<SectionId, Cow<'a, [u8]>>,
    /// `.debug*`, `.zdebug*` and `.gdb_index` sections: name and size in the
    /// file (summed over sections of one name), in section order
    /// (llvm-dwarfdump's "#bytes in NAME").
    pub debug_section_sizes: Vec<(String, u64)>,
    /// Whether the file is a relocatable object.
    pub relocatable: bool,
    /// Executable sections (when [`LoadedFile::parse`] was asked for them).
    pub code: Vec<CodeSection>,
}

impl<'a> LoadedFile<'a> {
    /// Reads `bytes`, with a copy of its code sections when `code_wanted` asks
    /// for them; an error says why the file cannot be read.
    pub fn parse(bytes: &'a [u8], code_wanted: bool) -> Result<LoadedFile<'a>, String> {
        let file = object::File::parse(bytes).map_err(|e| format!("not an ELF file: {e}"))?;
        if file.format() != object::BinaryFormat::Elf
            || file.architecture() != object::Architecture::X86_64
        {
            return Err("not an ELF x86-64 file".into());
        }
        let relocatable = file.kind() == object::ObjectKind::Relocatable;
        let base = |index: object::SectionIndex| -> u64 {
            match file.section_by_index(index) {
                Ok(section) if relocatable && section.address() == 0 && is_allocated(&section) => {
                    (index.0 as u64) << SECTION_SHIFT
                }
                Ok(section) => section.address(),
                Err(_) => 0,
            }
        };
        let mut sections = HashMap::new();
        let mut debug_section_sizes = Vec::new();
        let mut code = Vec::new();
        for section in file.sections() {
            let name = section.name().unwrap_or("");
            if name.starts_with(".debug") || name.starts_with(".zdebug") || name == ".gdb_index" {
                match debug_section_sizes
                    .iter_mut()
                    .find(|(seen, _)| seen == name)
                {
                    Some((_, size)) => *size += section.size(),
                    None => debug_section_sizes.push((name.to_string(), section.size())),
                }
            }
            if code_wanted && section.kind() == object::SectionKind::Text {
                let bytes = section.data().map_err(|e| format!("{name}: {e}"))?;
                code.push(CodeSection {
                    address: base(section.index()),
                    bytes: bytes.to_vec(),
                });
            }
            let Some(id) = dwarf_section(name) else {
                continue;
            };
            // Type units of a COMDAT group come in sections of their own:
            // the compile units are in the one outside every group.
            if sections.contains_key(&id) || in_group(&section) {
                continue;
            }
            let mut data = inflate(&section).map_err(|e| format!("{name}: {e}"))?;
            if relocatable && section.relocations().next().is_some() {
                relocate(&file, &section, data.to_mut(), &base)
                    .map_err(|e| format!("{name}: {e}"))?;
            }
            sections.insert(id, data);
        }
        Ok(LoadedFile {
            sections,
            debug_section_sizes,
            relocatable,
            code,
        })
    }

    /// A `gimli::Dwarf` over the sections (a missing one reads as empty).
    pub fn dwarf(&self) -> gimli::Dwarf<Slice<'_>> {
        let load = |id: SectionId| -> Result<Slice<'_>, std::convert::Infallible> {
            let data = self.sections.get(&id).map_or(&[][..], |data| &data[..]);
            Ok(EndianSlice::new(data, LittleEndian))
        };
        match gimli::Dwarf::load(load) {
            Ok(dwarf) => dwarf,
            Err(never) => match never {},
        }
    }

    /// The file read as a DWARF package (`.dwp`).
    pub fn package(&self) -> Result<gimli::DwarfPackage<Slice<'_>>, String> {
        let empty = EndianSlice::new(&[][..], LittleEndian);
        gimli::DwarfPackage::load(
            |id| -> gimli::Result<Slice<'_>> {
                let data = self.sections.get(&id).map_or(&[][..], |data| &data[..]);
                Ok(EndianSlice::new(data, LittleEndian))
            },
            empty,
        )
        .map_err(|e| e.to_string())
    }

    /// The address llvm-dwarfdump reads for `address`: in an object, the
    /// offset in its section; in a linked file, itself.
    pub fn llvm_address(&self, address: u64) -> u64 {
        llvm_address(self.relocatable, address)
    }
}

/// [`LoadedFile::llvm_address`] of a file that is (or is not) `relocatable`.
pub(crate) fn llvm_address(relocatable: bool, address: u64) -> u64 {
    if relocatable {
        address & ((1 << SECTION_SHIFT) - 1)
    } else {
        address
    }
}

fn in_group(section: &object::Section<'_, '_>) -> bool {
    match section.flags() {
        object::SectionFlags::Elf { sh_flags, .. } => sh_flags.0 & object::elf::SHF_GROUP.0 != 0,
        _ => false,
    }
}

fn is_allocated(section: &object::Section<'_, '_>) -> bool {
    match section.flags() {
        object::SectionFlags::Elf { sh_flags, .. } => sh_flags.0 & object::elf::SHF_ALLOC.0 != 0,
        _ => false,
    }
}

/// The gimli section a file section named `name` holds (`.zdebug_x` and,
/// in a `.dwo` file, `.debug_x.dwo` hold `.debug_x`).
fn dwarf_section(name: &str) -> Option<SectionId> {
    let name = name.strip_suffix(".dwo").unwrap_or(name);
    let plain = match name.strip_prefix(".zdebug_") {
        Some(rest) => format!(".debug_{rest}"),
        None => name.to_string(),
    };
    SECTIONS.into_iter().find(|id| id.name() == plain)
}

/// The DWARF sections read.
const SECTIONS: [SectionId; 16] = [
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugAranges,
    SectionId::DebugCuIndex,
    SectionId::DebugTuIndex,
    SectionId::DebugFrame,
    SectionId::DebugInfo,
    SectionId::DebugLine,
    SectionId::DebugLineStr,
    SectionId::DebugLoc,
    SectionId::DebugLocLists,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
    SectionId::DebugTypes,
];

/// The section's contents, inflated when compressed (else borrowed).
fn inflate<'a>(section: &object::Section<'a, '_>) -> Result<Cow<'a, [u8]>, String> {
    use std::io::Read as _;
    let compressed = section.compressed_data().map_err(|e| e.to_string())?;
    let size = usize::try_from(compressed.uncompressed_size).unwrap_or(0);
    match compressed.format {
        object::CompressionFormat::None => Ok(Cow::Borrowed(compressed.data)),
        object::CompressionFormat::Zlib => {
            let mut out = Vec::with_capacity(size);
            flate2::read::ZlibDecoder::new(compressed.data)
                .read_to_end(&mut out)
                .map_err(|e| format!("zlib: {e}"))?;
            Ok(Cow::Owned(out))
        }
        object::CompressionFormat::Zstandard => zstd::stream::decode_all(compressed.data)
            .map(Cow::Owned)
            .map_err(|e| format!("zstd: {e}")),
        other => Err(format!("unknown compression {other:?}")),
    }
}

/// Writes `S + A` of every relocation of `section` into `data`.
fn relocate(
    file: &object::File<'_>,
    section: &object::Section<'_, '_>,
    data: &mut [u8],
    base: &dyn Fn(object::SectionIndex) -> u64,
) -> Result<(), String> {
    for (offset, relocation) in section.relocations() {
        let RelocationFlags::Elf { r_type } = relocation.flags() else {
            continue;
        };
        let width = match r_type {
            object::elf::R_X86_64_64 | object::elf::R_X86_64_DTPOFF64 => 8,
            object::elf::R_X86_64_32
            | object::elf::R_X86_64_32S
            | object::elf::R_X86_64_DTPOFF32 => 4,
            _ => continue,
        };
        let symbol_value = match relocation.target() {
            RelocationTarget::Symbol(index) => {
                let symbol = file.symbol_by_index(index).map_err(|e| e.to_string())?;
                let section_base = symbol.section_index().map_or(0, base);
                section_base.wrapping_add(symbol.address())
            }
            RelocationTarget::Section(index) => base(index),
            _ => 0,
        };
        let value = symbol_value.wrapping_add(relocation.addend() as u64);
        let at = usize::try_from(offset).map_err(|e| e.to_string())?;
        let Some(slot) = data.get_mut(at..at + width) else {
            return Err(format!("relocation at {offset:#x} outside the section"));
        };
        slot.copy_from_slice(&value.to_le_bytes()[..width]);
    }
    Ok(())
}
