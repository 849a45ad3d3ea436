//! The ELF container: sections, symbols and relocations via `object::write`.
//!
//! In: the [`ObjectModel`], its [`Layout`] in `.text`, and the gimli
//! sections (`.eh_frame`, `.debug_*`) already written with their relocations.
//! Out: the bytes of an ELF x86-64 relocatable object.
//! Promises:
//! - `.text` holds the functions in model order, each 16-byte aligned
//!   (padding is `nop`), each with an STT_FUNC symbol of its code size;
//!   a function naming a section goes there (shared by all that name it),
//!   one in a COMDAT group to a section of its own (`.text.NAME` unless it
//!   names one), its jump tables to `.rodata.NAME` in the same group.
//! - A data object in a COMDAT group gets a section of its own (its
//!   explicit name, else `.data.NAME`, `.bss.NAME`, `.rodata.NAME`...);
//!   each group is an SHT_GROUP (GRP_COMDAT) section whose members carry
//!   SHF_GROUP, its signature the symbol of its name (a local one at the
//!   start of its first member when nothing defines the name), as llc.
//! - Aliases are further symbols of their function's or object's kind at
//!   its address plus their offset, with their own size and binding.
//! - `.rodata` holds each function's own rodata (8-byte aligned, in function
//!   order) and then the read-only data objects; read-only data objects with
//!   absolute relocations go to `.data.rel.ro` instead, so PIE links need no
//!   text relocations.
//! - A data object with an explicit section name goes to that section
//!   (`.init_array*`/`.fini_array*` typed SHT_INIT_ARRAY/SHT_FINI_ARRAY); one
//!   with an empty name gets no symbol (constructor lists).
//! - [`DataSection::Strings`] objects go to `.rodata.str1.1` (SHF_MERGE |
//!   SHF_STRINGS, entry size 1), where the linker merges equal strings.
//! - A function's literals go to `.rodata.cst4`/`.cst8`/`.cst16` by size
//!   (SHF_MERGE, entry size and alignment = size; sections in order of
//!   first use), each under a local STT_NOTYPE label `.LCPI<f>_<n>`, which
//!   the relocations against [`Symbol::Literal`] name (with the model's
//!   addend), as llc: a mergeable entry is found by its symbol, not by a
//!   section offset the linker could not map.
//! - A [`DataSection::Common`] object is a common symbol (SHN_COMMON, its
//!   alignment as its value); an undefined symbol the model lists among
//!   its weak references is STB_WEAK.
//! - Symbols carry the model's binding: STB_WEAK for weak definitions and
//!   the visibility in `st_other`; thread-local data objects (`.tdata`,
//!   `.tbss`) and undefined symbols named by TLS relocations are STT_TLS.
//! - A thread-local variable's DWARF location is `DW_OP_const8u` with an
//!   R_X86_64_DTPOFF64 relocation (see `thread_local_locations`).
//! - Relocations against [`Symbol::FunctionData`] and [`Symbol::FunctionCode`]
//!   become relocations against the `.rodata` / `.text` section symbol with
//!   the position folded into the addend; names that no function or data
//!   object defines become undefined global symbols.
//! - Every debug-section relocation is against a section symbol (the code
//!   section's for code addresses), or, for a
//!   global variable's `DW_OP_addr`, its data object's symbol): 8-byte
//!   fields use R_X86_64_64, 4-byte fields R_X86_64_32, and `.eh_frame`'s
//!   PC-relative pointers R_X86_64_PC32.
//! - A `.note.GNU-stack` section marks the stack non-executable.

use std::collections::HashMap;

use gimli::write::{Address, RelocationTarget, Sections};
use object::write::{
    Comdat, Object, Relocation, SectionId, StandardSection, SymbolId, SymbolSection,
};
use object::{
    elf, Architecture, BinaryFormat, ComdatKind, Endianness, RelocationFlags, SectionKind,
    SymbolFlags, SymbolKind, SymbolScope,
};

use super::relocate::{code_symbol, GimliSymbol, RelocatedSection};
use super::WriteError;
use crate::model::{
    Alias, DataObject, DataSection, Function, ObjectModel, Relocation as ModelRelocation,
    RelocationKind, Symbol, SymbolBinding, Visibility,
};

/// The section of [`DataSection::Strings`] objects (as llc names it).
const STRINGS_SECTION: &str = ".rodata.str1.1";

/// Alignment of every function in `.text`.
pub const FUNCTION_ALIGN: u64 = 16;
/// Alignment of each function's own rodata (jump tables) in `.rodata`.
pub const FUNCTION_RODATA_ALIGN: u64 = 8;

/// The standard code section, index 0 of [`Layout::code_sections`].
const TEXT_SECTION: &str = ".text";

/// One section holding code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSection {
    /// Section name (`.text`, `.text.NAME`, or an explicit one).
    pub name: String,
    /// The COMDAT group it belongs to, by signature name.
    pub comdat: Option<String>,
    /// Size in bytes (end of its last function).
    pub size: u64,
    /// Its alignment: the largest of its functions'.
    pub align: u64,
}

/// Where each function lands: which code section, at what offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Offset of `functions[i]` from the start of its code section.
    pub function_offsets: Vec<u64>,
    /// The code section of `functions[i]` (index into `code_sections`).
    pub function_sections: Vec<usize>,
    /// The code sections: `.text` first, then the others in the order of
    /// their first function. Functions naming one section without a COMDAT
    /// group share it; a function in a COMDAT group has a section of its
    /// own (`.text.NAME` unless it names one), as llc places it.
    pub code_sections: Vec<CodeSection>,
}

impl Layout {
    /// Lays the functions out one after another in their sections, each
    /// [`FUNCTION_ALIGN`]-aligned (or more, as its `align` asks).
    pub fn of(model: &ObjectModel) -> Layout {
        let mut layout = Layout {
            function_offsets: Vec::with_capacity(model.functions.len()),
            function_sections: Vec::with_capacity(model.functions.len()),
            code_sections: vec![CodeSection {
                name: TEXT_SECTION.to_string(),
                comdat: None,
                size: 0,
                align: FUNCTION_ALIGN,
            }],
        };
        for function in &model.functions {
            let section = layout.section_for(function);
            let code_section = &mut layout.code_sections[section];
            let align = function.align.max(FUNCTION_ALIGN);
            let start = code_section.size.next_multiple_of(align);
            code_section.align = code_section.align.max(align);
            code_section.size = start + function.code.len() as u64;
            layout.function_offsets.push(start);
            layout.function_sections.push(section);
        }
        layout
    }

    /// The index of `function`'s code section, made if it is new.
    fn section_for(&mut self, function: &Function) -> usize {
        let name = match (&function.comdat, &function.section_name) {
            (Some(_), Some(name)) => name.clone(),
            (Some(_), None) => {
                let name = String::from_utf8_lossy(&symbol_bytes(&function.name)).into_owned();
                format!("{TEXT_SECTION}.{name}")
            }
            (None, Some(name)) => name.clone(),
            (None, None) => return 0,
        };
        if function.comdat.is_none() {
            let shared = self
                .code_sections
                .iter()
                .position(|s| s.comdat.is_none() && s.name == name);
            if let Some(index) = shared {
                return index;
            }
        }
        self.code_sections.push(CodeSection {
            name,
            comdat: function.comdat.clone(),
            size: 0,
            align: FUNCTION_ALIGN,
        });
        self.code_sections.len() - 1
    }

    /// The address of byte `offset` of function `function`, for gimli.
    pub fn address(&self, function: usize, offset: u64) -> Address {
        Address::Symbol {
            symbol: code_symbol(self.function_sections[function]),
            addend: (self.function_offsets[function] + offset) as i64,
        }
    }
}

/// Builds the ELF object from the model, its layout and the gimli sections.
pub fn write_object(
    model: &ObjectModel,
    layout: &Layout,
    sections: &Sections<RelocatedSection>,
) -> Result<Vec<u8>, WriteError> {
    let mut builder = ElfBuilder::new();
    builder.add_text(model, layout)?;
    builder.add_rodata_and_data(model)?;
    builder.add_code_relocations(model, layout)?;
    builder.add_exception_tables(model)?;
    builder.add_gimli_sections(model, sections)?;
    builder.add_comdat_groups()?;
    let gnu_stack =
        builder
            .object
            .add_section(Vec::new(), b".note.GNU-stack".to_vec(), SectionKind::Other);
    builder.object.section_mut(gnu_stack).flags = object::SectionFlags::Elf {
        sh_type: elf::SHT_PROGBITS,
        sh_flags: elf::SectionFlags(0),
    };
    let mut bytes = builder
        .object
        .write()
        .map_err(|e| WriteError::new(format!("ELF writer: {e}")))?;
    set_literal_entry_sizes(&mut bytes)?;
    Ok(bytes)
}

/// The sizes of literals (and entry sizes of their sections).
const LITERAL_SIZES: [u64; 3] = [4, 8, 16];

/// The mergeable section of literals of `size` bytes, as llc names it.
fn literal_section_name(size: u64) -> String {
    format!(".rodata.cst{size}")
}

/// Sets `sh_entsize` of the literal sections to their entry size in the
/// written ELF bytes (`object::write` gives every section but strings an
/// entry size of 0, and a mergeable section needs its own).
fn set_literal_entry_sizes(bytes: &mut [u8]) -> Result<(), WriteError> {
    let malformed = || WriteError::new("ELF writer: malformed section headers".to_string());
    let u16_at = |b: &[u8], at: usize| -> Option<u64> {
        Some(u64::from(u16::from_le_bytes(
            b.get(at..at + 2)?.try_into().ok()?,
        )))
    };
    let u32_at = |b: &[u8], at: usize| -> Option<u64> {
        Some(u64::from(u32::from_le_bytes(
            b.get(at..at + 4)?.try_into().ok()?,
        )))
    };
    let u64_at = |b: &[u8], at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
    };
    // ELF64 header: e_shoff at 0x28, e_shentsize 0x3a, e_shnum 0x3c,
    // e_shstrndx 0x3e; section header: sh_name 0, sh_entsize 56.
    let shoff = u64_at(bytes, 0x28).ok_or_else(malformed)? as usize;
    let entsize = u16_at(bytes, 0x3a).ok_or_else(malformed)? as usize;
    let count = u16_at(bytes, 0x3c).ok_or_else(malformed)? as usize;
    let strndx = u16_at(bytes, 0x3e).ok_or_else(malformed)? as usize;
    let header = |index: usize| shoff + index * entsize;
    let names = u64_at(bytes, header(strndx) + 24).ok_or_else(malformed)? as usize;
    for index in 0..count {
        let name_at = names + u32_at(bytes, header(index)).ok_or_else(malformed)? as usize;
        let name = bytes
            .get(name_at..)
            .and_then(|rest| rest.split(|&b| b == 0).next())
            .ok_or_else(malformed)?;
        let Some(&size) = LITERAL_SIZES
            .iter()
            .find(|&&size| name == literal_section_name(size).as_bytes())
        else {
            continue;
        };
        let field = header(index) + 56;
        bytes
            .get_mut(field..field + 8)
            .ok_or_else(malformed)?
            .copy_from_slice(&size.to_le_bytes());
    }
    Ok(())
}

/// The object under construction and what has been placed in it.
struct ElfBuilder {
    object: Object<'static>,
    /// The ELF section of each code section of the layout (`.text` first).
    code: Vec<SectionId>,
    /// COMDAT groups by signature name, in order of first use, with their
    /// member sections.
    groups: Vec<(String, Vec<SectionId>)>,
    /// Defined and undefined symbols by name.
    symbols: HashMap<String, SymbolId>,
    /// `.rodata` and offset of each function's own rodata (`None`: it has none).
    function_rodata: Vec<Option<(object::write::SectionId, u64)>>,
    /// Section and offset of each data object, in model order.
    data_places: Vec<(object::write::SectionId, u64)>,
    /// Sections made for explicit section names.
    named_sections: HashMap<String, object::write::SectionId>,
    /// The mergeable literal sections made, by entry size, in order of
    /// first use.
    literal_sections: Vec<(u64, SectionId)>,
    /// The label of each literal of each function.
    literal_labels: Vec<Vec<SymbolId>>,
    /// Section and offset of each exception table (LSDA), in model order.
    exception_table_places: Vec<(SectionId, u64)>,
}

impl ElfBuilder {
    fn new() -> ElfBuilder {
        let mut object = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = object.section_id(StandardSection::Text);
        ElfBuilder {
            object,
            code: vec![text],
            groups: Vec::new(),
            symbols: HashMap::new(),
            function_rodata: Vec::new(),
            data_places: Vec::new(),
            named_sections: HashMap::new(),
            literal_sections: Vec::new(),
            literal_labels: Vec::new(),
            exception_table_places: Vec::new(),
        }
    }

    /// Writes each function's LSDA into `.gcc_except_table`, or, for a
    /// function in a COMDAT group, into `.gcc_except_table.NAME` in that
    /// group (as llc does), with an R_X86_64_PC32 relocation per type info.
    fn add_exception_tables(&mut self, model: &ObjectModel) -> Result<(), WriteError> {
        let mut shared = None;
        for table in &model.exception_tables {
            let Some(function) = model.functions.get(table.function) else {
                return Err(WriteError::new(format!(
                    "exception table of function {}, which does not exist",
                    table.function
                )));
            };
            let section = match &function.comdat {
                Some(group) => {
                    let name = String::from_utf8_lossy(&symbol_bytes(&function.name)).into_owned();
                    let id = self.gcc_except_table(&format!(".gcc_except_table.{name}"));
                    self.join_group(group, id);
                    id
                }
                None => *shared.get_or_insert_with(|| self.gcc_except_table(".gcc_except_table")),
            };
            let start = self.object.section(section).data().len() as u64;
            let start = start.next_multiple_of(4);
            let lsda = super::lsda::encode(table, start);
            let offset = self.object.append_section_data(section, &lsda.bytes, 4);
            self.exception_table_places.push((section, offset));
            for (at, symbol) in &lsda.relocations {
                let symbol = self.named(model, symbol);
                self.object
                    .add_relocation(
                        section,
                        Relocation {
                            offset: offset + at,
                            symbol,
                            addend: 0,
                            flags: RelocationFlags::Elf {
                                r_type: elf::R_X86_64_PC32,
                            },
                        },
                    )
                    .map_err(|e| WriteError::new(format!(".gcc_except_table: {e}")))?;
            }
        }
        Ok(())
    }

    /// A new allocated, read-only `.gcc_except_table` section called `name`.
    fn gcc_except_table(&mut self, name: &str) -> SectionId {
        let id = self.object.add_section(
            Vec::new(),
            name.as_bytes().to_vec(),
            SectionKind::ReadOnlyData,
        );
        self.object.section_mut(id).flags = object::SectionFlags::Elf {
            sh_type: elf::SHT_PROGBITS,
            sh_flags: elf::SHF_ALLOC,
        };
        id
    }

    fn add_text(&mut self, model: &ObjectModel, layout: &Layout) -> Result<(), WriteError> {
        for code_section in &layout.code_sections[1..] {
            let id = self.object.add_section(
                Vec::new(),
                code_section.name.as_bytes().to_vec(),
                SectionKind::Text,
            );
            self.code.push(id);
            if let Some(group) = &code_section.comdat {
                self.join_group(group, id);
            }
        }
        for (index, code_section) in layout.code_sections.iter().enumerate() {
            let mut bytes = Vec::with_capacity(code_section.size as usize);
            for (function, _) in model
                .functions
                .iter()
                .enumerate()
                .filter(|&(f, _)| layout.function_sections[f] == index)
            {
                bytes.resize(layout.function_offsets[function] as usize, 0x90);
                bytes.extend_from_slice(&model.functions[function].code);
            }
            self.object
                .append_section_data(self.code[index], &bytes, code_section.align);
        }
        for (index, function) in model.functions.iter().enumerate() {
            let section = self.code[layout.function_sections[index]];
            let offset = layout.function_offsets[index];
            self.define(
                &function.name,
                function.global,
                function.binding,
                SymbolKind::Text,
                section,
                offset,
                function.code.len() as u64,
            )?;
            let what = format!("function `{}`", function.name);
            let symbol = (SymbolKind::Text, function.code.len() as u64);
            self.define_aliases(&function.aliases, symbol, section, offset, &what)?;
        }
        Ok(())
    }

    /// Defines `aliases` of a function or data object of `size` bytes
    /// placed at `base` in `section`.
    fn define_aliases(
        &mut self,
        aliases: &[Alias],
        (kind, size): (SymbolKind, u64),
        section: SectionId,
        base: u64,
        what: &str,
    ) -> Result<(), WriteError> {
        for alias in aliases {
            if alias.name.is_empty() {
                return Err(WriteError::new(format!("{what}: an alias without a name")));
            }
            self.define(
                &alias.name,
                alias.global,
                alias.binding,
                kind,
                section,
                base + alias.offset,
                size,
            )?;
        }
        Ok(())
    }

    /// Adds `section` to COMDAT group `group` (made on first use).
    fn join_group(&mut self, group: &str, section: SectionId) {
        match self.groups.iter_mut().find(|(name, _)| name == group) {
            Some((_, members)) => members.push(section),
            None => self.groups.push((group.to_string(), vec![section])),
        }
    }

    /// Writes the COMDAT groups: SHF_GROUP on every member, and a
    /// SHT_GROUP section whose signature is the symbol of the group's
    /// name, or (when nothing here defines that name) a local one at the
    /// start of its first member, as llc does.
    fn add_comdat_groups(&mut self) -> Result<(), WriteError> {
        for (name, members) in std::mem::take(&mut self.groups) {
            for &member in &members {
                let object::SectionFlags::Elf { sh_type, sh_flags } =
                    self.object.section_flags(self.object.section(member))
                else {
                    return Err(WriteError::new(format!(
                        "COMDAT group `{name}`: a member section has no ELF flags"
                    )));
                };
                self.object.section_mut(member).flags = object::SectionFlags::Elf {
                    sh_type,
                    sh_flags: sh_flags | elf::SHF_GROUP,
                };
            }
            let symbol = match self.symbols.get(&name) {
                Some(&id) => id,
                None => self.object.add_symbol(object::write::Symbol {
                    name: symbol_bytes(&name),
                    value: 0,
                    size: 0,
                    kind: SymbolKind::Label,
                    scope: SymbolScope::Compilation,
                    weak: false,
                    section: SymbolSection::Section(members[0]),
                    flags: SymbolFlags::None,
                }),
            };
            self.object.add_comdat(Comdat {
                kind: ComdatKind::Any,
                symbol,
                sections: members,
            });
        }
        Ok(())
    }

    fn add_rodata_and_data(&mut self, model: &ObjectModel) -> Result<(), WriteError> {
        for function in &model.functions {
            let placed = if function.rodata.is_empty() {
                None
            } else {
                // A function in a COMDAT group keeps its rodata in the
                // group, so that nothing kept refers to discarded code.
                let rodata = match &function.comdat {
                    Some(group) => {
                        let name =
                            String::from_utf8_lossy(&symbol_bytes(&function.name)).into_owned();
                        let id = self.object.add_section(
                            Vec::new(),
                            format!(".rodata.{name}").into_bytes(),
                            SectionKind::ReadOnlyData,
                        );
                        self.join_group(group, id);
                        id
                    }
                    None => self.object.section_id(StandardSection::ReadOnlyData),
                };
                let offset = self.object.append_section_data(
                    rodata,
                    &function.rodata,
                    FUNCTION_RODATA_ALIGN,
                );
                Some((rodata, offset))
            };
            self.function_rodata.push(placed);
        }
        for (index, function) in model.functions.iter().enumerate() {
            let labels = self.add_literals(index, function)?;
            self.literal_labels.push(labels);
        }
        for data in &model.data {
            self.add_data_object(data)?;
        }
        Ok(())
    }

    /// Places the literals of function number `index` in the mergeable
    /// section of their size, each under a local label `.LCPI<index>_<n>`
    /// (llc's name); returns the labels.
    fn add_literals(
        &mut self,
        index: usize,
        function: &Function,
    ) -> Result<Vec<SymbolId>, WriteError> {
        let mut labels = Vec::with_capacity(function.literals.len());
        for (n, literal) in function.literals.iter().enumerate() {
            let size = literal.len() as u64;
            if !LITERAL_SIZES.contains(&size) {
                return Err(WriteError::new(format!(
                    "function `{}`: literal {n} has {size} bytes (literals have 4, 8 or 16)",
                    function.name
                )));
            }
            let section = match self.literal_sections.iter().find(|(s, _)| *s == size) {
                Some(&(_, id)) => id,
                None => {
                    let id = self.object.add_section(
                        Vec::new(),
                        literal_section_name(size).into_bytes(),
                        SectionKind::ReadOnlyData,
                    );
                    self.object.section_mut(id).flags = object::SectionFlags::Elf {
                        sh_type: elf::SHT_PROGBITS,
                        sh_flags: elf::SHF_ALLOC | elf::SHF_MERGE,
                    };
                    self.literal_sections.push((size, id));
                    id
                }
            };
            let offset = self.object.append_section_data(section, literal, size);
            labels.push(self.object.add_symbol(object::write::Symbol {
                name: format!(".LCPI{index}_{n}").into_bytes(),
                value: offset,
                size: 0,
                kind: SymbolKind::Label,
                scope: SymbolScope::Compilation,
                weak: false,
                section: SymbolSection::Section(section),
                flags: SymbolFlags::None,
            }));
        }
        Ok(labels)
    }

    fn add_data_object(&mut self, data: &DataObject) -> Result<(), WriteError> {
        if !data.align.is_power_of_two() {
            return Err(WriteError::new(format!(
                "data object `{}`: alignment {} is not a power of two",
                data.name, data.align
            )));
        }
        let standard = match data.section {
            DataSection::Data => StandardSection::Data,
            // PC-relative fields (relative lookup tables) need no load-time
            // relocation: they stay in `.rodata`, as llc places them.
            DataSection::ReadOnly
                if data
                    .relocations
                    .iter()
                    .all(|r| matches!(r.kind, RelocationKind::Pc32 | RelocationKind::Pc64)) =>
            {
                StandardSection::ReadOnlyData
            }
            DataSection::ReadOnly => StandardSection::ReadOnlyDataWithRel,
            DataSection::Bss => StandardSection::UninitializedData,
            DataSection::Common if data.comdat.is_some() => {
                return Err(WriteError::new(format!(
                    "common symbol `{}` cannot be in a COMDAT group",
                    data.name
                )))
            }
            DataSection::Common => return self.add_common(data),
            // In a COMDAT group a string gets a section of its own.
            DataSection::Strings if data.comdat.is_some() => StandardSection::ReadOnlyData,
            DataSection::Strings => {
                if !data.relocations.is_empty() || data.bytes.last() != Some(&0) {
                    return Err(WriteError::new(format!(
                        "data object `{}`: a mergeable string must end in NUL and have no \
                         relocations",
                        data.name
                    )));
                }
                let section = self.strings_section();
                return self.add_placed(data, section);
            }
            DataSection::ThreadLocal => StandardSection::Tls,
            DataSection::ThreadLocalBss => StandardSection::UninitializedTls,
        };
        let section = match (&data.comdat, &data.section_name) {
            (Some(group), name) => {
                let (standard_name, kind) = standard_section_name(standard);
                let name = name.clone().unwrap_or_else(|| {
                    let symbol = String::from_utf8_lossy(&symbol_bytes(&data.name)).into_owned();
                    format!("{standard_name}.{symbol}")
                });
                let id = self.new_section(&name, kind);
                self.join_group(group, id);
                id
            }
            (None, Some(name)) => self.named_section(name, data.section),
            (None, None) => self.object.section_id(standard),
        };
        self.add_placed(data, section)
    }

    /// `.rodata.str1.1`, made on first use.
    fn strings_section(&mut self) -> object::write::SectionId {
        if let Some(&id) = self.named_sections.get(STRINGS_SECTION) {
            return id;
        }
        let id = self.object.add_section(
            Vec::new(),
            STRINGS_SECTION.as_bytes().to_vec(),
            SectionKind::ReadOnlyString,
        );
        self.named_sections.insert(STRINGS_SECTION.to_string(), id);
        id
    }

    /// Appends a data object to `section` and defines its symbol.
    fn add_placed(
        &mut self,
        data: &DataObject,
        section: object::write::SectionId,
    ) -> Result<(), WriteError> {
        let offset = if data.section.is_bss() {
            self.object
                .append_section_bss(section, data.bytes.len() as u64, data.align)
        } else {
            self.object
                .append_section_data(section, &data.bytes, data.align)
        };
        self.data_places.push((section, offset));
        if data.name.is_empty() {
            return Ok(());
        }
        let kind = if data.section.is_thread_local() {
            SymbolKind::Tls
        } else {
            SymbolKind::Data
        };
        self.define(
            &data.name,
            data.global,
            data.binding,
            kind,
            section,
            offset,
            data.bytes.len() as u64,
        )?;
        let what = format!("data object `{}`", data.name);
        let symbol = (kind, data.bytes.len() as u64);
        self.define_aliases(&data.aliases, symbol, section, offset, &what)
    }

    /// A common symbol: no section, its alignment as its value.
    fn add_common(&mut self, data: &DataObject) -> Result<(), WriteError> {
        if self.symbols.contains_key(&data.name) {
            return Err(WriteError::new(format!(
                "symbol `{}` is defined twice",
                data.name
            )));
        }
        if !data.relocations.is_empty() || data.bytes.iter().any(|&b| b != 0) {
            return Err(WriteError::new(format!(
                "common symbol `{}` has contents",
                data.name
            )));
        }
        let id = self.object.add_common_symbol(
            object::write::Symbol {
                name: data.name.as_bytes().to_vec(),
                value: 0,
                size: 0,
                kind: SymbolKind::Data,
                scope: SymbolScope::Dynamic,
                weak: data.binding.weak,
                section: SymbolSection::Undefined,
                flags: SymbolFlags::None,
            },
            data.bytes.len() as u64,
            data.align,
        );
        // STT_OBJECT as llc and gcc type common symbols (not STT_COMMON).
        let binding = if data.binding.weak {
            elf::STB_WEAK
        } else {
            elf::STB_GLOBAL
        };
        let st_other = match data.binding.visibility {
            Visibility::Default => elf::STV_DEFAULT,
            Visibility::Internal => elf::STV_INTERNAL,
            Visibility::Hidden => elf::STV_HIDDEN,
            Visibility::Protected => elf::STV_PROTECTED,
        };
        self.object.symbol_mut(id).flags = SymbolFlags::Elf {
            st_info: elf::SymbolInfo::new(binding, elf::STT_OBJECT),
            st_other: st_other.into(),
        };
        self.symbols.insert(data.name.clone(), id);
        // No place: a common symbol has no contents to relocate.
        self.data_places.push((self.code[0], 0));
        Ok(())
    }

    /// The section called `name` (made on first use), typed by its name:
    /// `.init_array*`/`.fini_array*` are SHT_INIT_ARRAY/SHT_FINI_ARRAY,
    /// others follow the data object's kind.
    fn named_section(&mut self, name: &str, kind: DataSection) -> object::write::SectionId {
        if let Some(&id) = self.named_sections.get(name) {
            return id;
        }
        let section_kind = match kind {
            DataSection::Data => SectionKind::Data,
            DataSection::ReadOnly => SectionKind::ReadOnlyData,
            DataSection::Bss | DataSection::Common => SectionKind::UninitializedData,
            DataSection::Strings => SectionKind::ReadOnlyString,
            DataSection::ThreadLocal => SectionKind::Tls,
            DataSection::ThreadLocalBss => SectionKind::UninitializedTls,
        };
        let id = self.new_section(name, section_kind);
        self.named_sections.insert(name.to_string(), id);
        id
    }

    /// A new section called `name` of `kind`, typed by its name:
    /// `.init_array*`/`.fini_array*` are SHT_INIT_ARRAY/SHT_FINI_ARRAY.
    fn new_section(&mut self, name: &str, kind: SectionKind) -> SectionId {
        let id = self
            .object
            .add_section(Vec::new(), name.as_bytes().to_vec(), kind);
        let array_type = if name == ".init_array" || name.starts_with(".init_array.") {
            Some(elf::SHT_INIT_ARRAY)
        } else if name == ".fini_array" || name.starts_with(".fini_array.") {
            Some(elf::SHT_FINI_ARRAY)
        } else {
            None
        };
        if let Some(sh_type) = array_type {
            self.object.section_mut(id).flags = object::SectionFlags::Elf {
                sh_type,
                sh_flags: elf::SHF_ALLOC | elf::SHF_WRITE,
            };
        }
        id
    }

    #[allow(clippy::too_many_arguments)]
    fn define(
        &mut self,
        name: &str,
        global: bool,
        binding: SymbolBinding,
        kind: SymbolKind,
        section: object::write::SectionId,
        value: u64,
        size: u64,
    ) -> Result<(), WriteError> {
        if self.symbols.contains_key(name) {
            return Err(WriteError::new(format!("symbol `{name}` is defined twice")));
        }
        let id = self.object.add_symbol(object::write::Symbol {
            name: symbol_bytes(name),
            value,
            size,
            kind,
            scope: if global {
                SymbolScope::Dynamic
            } else {
                SymbolScope::Compilation
            },
            weak: binding.weak,
            section: SymbolSection::Section(section),
            flags: SymbolFlags::None,
        });
        self.set_visibility(id, binding.visibility);
        self.symbols.insert(name.to_string(), id);
        Ok(())
    }

    /// Writes `visibility` into the symbol's `st_other`, keeping the
    /// binding and type the object crate gives it.
    fn set_visibility(&mut self, id: SymbolId, visibility: Visibility) {
        let st_visibility = match visibility {
            Visibility::Default => return,
            Visibility::Internal => elf::STV_INTERNAL,
            Visibility::Hidden => elf::STV_HIDDEN,
            Visibility::Protected => elf::STV_PROTECTED,
        };
        let symbol = self.object.symbol(id);
        let SymbolFlags::Elf { st_info, .. } = self.object.default_symbol_flags(symbol) else {
            return;
        };
        self.object.symbol_mut(id).flags = SymbolFlags::Elf {
            st_info,
            st_other: st_visibility.into(),
        };
    }

    /// The symbol for `name`, declaring it undefined if nothing defines it
    /// (weak when the model lists it among its weak references).
    fn named(&mut self, model: &ObjectModel, name: &str) -> SymbolId {
        if let Some(&id) = self.symbols.get(name) {
            return id;
        }
        let id = self.object.add_symbol(object::write::Symbol {
            name: symbol_bytes(name),
            value: 0,
            size: 0,
            kind: SymbolKind::Unknown,
            scope: SymbolScope::Dynamic,
            weak: model.weak_references.iter().any(|w| w == name),
            section: SymbolSection::Undefined,
            flags: SymbolFlags::None,
        });
        self.symbols.insert(name.to_string(), id);
        id
    }

    fn add_code_relocations(
        &mut self,
        model: &ObjectModel,
        layout: &Layout,
    ) -> Result<(), WriteError> {
        for (index, function) in model.functions.iter().enumerate() {
            let base = layout.function_offsets[index];
            let section = self.code[layout.function_sections[index]];
            let what = format!("function `{}`", function.name);
            for relocation in &function.relocations {
                self.add_model_relocation(
                    model,
                    layout,
                    section,
                    base,
                    function.code.len(),
                    relocation,
                    &what,
                )?;
            }
            if !function.rodata_relocations.is_empty() {
                let Some((rodata, offset)) = self.function_rodata[index] else {
                    return Err(WriteError::new(format!(
                        "{what}: rodata relocations without rodata"
                    )));
                };
                for relocation in &function.rodata_relocations {
                    self.add_model_relocation(
                        model,
                        layout,
                        rodata,
                        offset,
                        function.rodata.len(),
                        relocation,
                        &format!("{what} rodata"),
                    )?;
                }
            }
        }
        for (index, data) in model.data.iter().enumerate() {
            let (section, base) = self.data_places[index];
            if data.section.is_bss() && !data.relocations.is_empty() {
                return Err(WriteError::new(format!(
                    "data object `{}`: relocations in .bss",
                    data.name
                )));
            }
            for relocation in &data.relocations {
                self.add_model_relocation(
                    model,
                    layout,
                    section,
                    base,
                    data.bytes.len(),
                    relocation,
                    &format!("data object `{}`", data.name),
                )?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn add_model_relocation(
        &mut self,
        model: &ObjectModel,
        layout: &Layout,
        section: object::write::SectionId,
        base: u64,
        len: usize,
        relocation: &ModelRelocation,
        what: &str,
    ) -> Result<(), WriteError> {
        let (r_type, size) = match relocation.kind {
            RelocationKind::Pc32 => (elf::R_X86_64_PC32, 4),
            RelocationKind::Plt32 => (elf::R_X86_64_PLT32, 4),
            RelocationKind::Pc64 => (elf::R_X86_64_PC64, 8),
            RelocationKind::GotPcRelX => (elf::R_X86_64_REX_GOTPCRELX, 4),
            RelocationKind::Abs64 => (elf::R_X86_64_64, 8),
            RelocationKind::TlsGd => (elf::R_X86_64_TLSGD, 4),
            RelocationKind::TlsLd => (elf::R_X86_64_TLSLD, 4),
            RelocationKind::DtpOff32 => (elf::R_X86_64_DTPOFF32, 4),
            RelocationKind::GotTpOff => (elf::R_X86_64_GOTTPOFF, 4),
            RelocationKind::TpOff32 => (elf::R_X86_64_TPOFF32, 4),
        };
        if relocation.offset + size > len as u64 {
            return Err(WriteError::new(format!(
                "{what}: relocation at {:#x} runs past the end ({len} bytes)",
                relocation.offset
            )));
        }
        let (symbol, addend) = self.resolve(model, layout, &relocation.symbol, what)?;
        if relocation.kind.is_thread_local()
            && self.object.symbol(symbol).section == SymbolSection::Undefined
        {
            self.object.symbol_mut(symbol).kind = SymbolKind::Tls;
        }
        self.object
            .add_relocation(
                section,
                Relocation {
                    offset: base + relocation.offset,
                    symbol,
                    addend: relocation.addend + addend,
                    flags: RelocationFlags::Elf { r_type },
                },
            )
            .map_err(|e| WriteError::new(format!("{what}: {e}")))
    }

    /// The ELF symbol and extra addend a model symbol stands for.
    fn resolve(
        &mut self,
        model: &ObjectModel,
        layout: &Layout,
        symbol: &Symbol,
        what: &str,
    ) -> Result<(SymbolId, i64), WriteError> {
        match *symbol {
            Symbol::Named(ref name) => Ok((self.named(model, name), 0)),
            Symbol::FunctionData(index) => match self.function_rodata.get(index) {
                Some(&Some((rodata, offset))) => {
                    Ok((self.object.section_symbol(rodata), offset as i64))
                }
                _ => Err(WriteError::new(format!(
                    "{what}: relocation against the rodata of function {index}, which has none"
                ))),
            },
            Symbol::Literal { function, index } => {
                match self.literal_labels.get(function).and_then(|l| l.get(index)) {
                    Some(&label) => Ok((label, 0)),
                    None => Err(WriteError::new(format!(
                        "{what}: relocation against literal {index} of function {function}, \
                         which does not exist"
                    ))),
                }
            }
            Symbol::FunctionCode { function, offset } => {
                let Some(target) = model.functions.get(function) else {
                    return Err(WriteError::new(format!(
                        "{what}: relocation against function {function}, which does not exist"
                    )));
                };
                check_code_offset(target, offset, what)?;
                let start = layout.function_offsets[function];
                let section = self.code[layout.function_sections[function]];
                Ok((self.object.section_symbol(section), (start + offset) as i64))
            }
        }
    }

    fn add_gimli_sections(
        &mut self,
        model: &ObjectModel,
        sections: &Sections<RelocatedSection>,
    ) -> Result<(), WriteError> {
        let mut ids = HashMap::new();
        sections.for_each(|id, section| -> Result<(), WriteError> {
            if section.bytes.slice().is_empty() {
                return Ok(());
            }
            let object_id = if id == gimli::SectionId::EhFrame {
                self.object.section_id(StandardSection::EhFrame)
            } else {
                let kind = match id {
                    gimli::SectionId::DebugStr | gimli::SectionId::DebugLineStr => {
                        SectionKind::DebugString
                    }
                    _ => SectionKind::Debug,
                };
                self.object
                    .add_section(Vec::new(), id.name().as_bytes().to_vec(), kind)
            };
            let align = if id == gimli::SectionId::EhFrame {
                8
            } else {
                1
            };
            let mut bytes = section.bytes.slice().to_vec();
            if id == gimli::SectionId::DebugInfo {
                thread_local_locations(model, section, &mut bytes)?;
            }
            self.object.append_section_data(object_id, &bytes, align);
            ids.insert(id, object_id);
            Ok(())
        })?;
        sections.for_each(|id, section| -> Result<(), WriteError> {
            for relocation in &section.relocations {
                let symbol = match relocation.target {
                    RelocationTarget::Symbol(symbol) => match GimliSymbol::of(symbol) {
                        GimliSymbol::Code(section) => match self.code.get(section) {
                            Some(&section) => self.object.section_symbol(section),
                            None => unreachable!("gimli was given no code section {section}"),
                        },
                        GimliSymbol::Data(index) => match model.data.get(index) {
                            Some(data) => self.symbols[&data.name],
                            None => unreachable!("gimli was given no data object {index}"),
                        },
                        GimliSymbol::ExceptionTable(index) => {
                            match self.exception_table_places.get(index) {
                                Some(&(section, _)) => self.object.section_symbol(section),
                                None => unreachable!("gimli was given no exception table {index}"),
                            }
                        }
                    },
                    RelocationTarget::Section(target) => match ids.get(&target) {
                        Some(&target) => self.object.section_symbol(target),
                        None => {
                            return Err(WriteError::new(format!(
                                "{}: relocation against empty section {}",
                                id.name(),
                                target.name()
                            )))
                        }
                    },
                };
                // An LSDA pointer is against its section's symbol.
                let lsda_offset = match relocation.target {
                    RelocationTarget::Symbol(symbol) => match GimliSymbol::of(symbol) {
                        GimliSymbol::ExceptionTable(index) => {
                            self.exception_table_places[index].1 as i64
                        }
                        _ => 0,
                    },
                    RelocationTarget::Section(_) => 0,
                };
                let thread_local = matches!(
                    relocation.target,
                    RelocationTarget::Symbol(other) if is_thread_local_symbol(model, other)
                );
                let r_type = match (relocation.eh_pe, relocation.size) {
                    (None, 8) if thread_local => elf::R_X86_64_DTPOFF64,
                    (Some(pe), 4) if pe.application() == gimli::DW_EH_PE_pcrel => {
                        elf::R_X86_64_PC32
                    }
                    (None, 4) => elf::R_X86_64_32,
                    (None, 8) => elf::R_X86_64_64,
                    (pe, size) => {
                        return Err(WriteError::new(format!(
                            "{}: unsupported relocation of {size} bytes ({pe:?})",
                            id.name()
                        )))
                    }
                };
                self.object
                    .add_relocation(
                        ids[&id],
                        Relocation {
                            offset: relocation.offset as u64,
                            symbol,
                            addend: relocation.addend + lsda_offset,
                            flags: RelocationFlags::Elf { r_type },
                        },
                    )
                    .map_err(|e| WriteError::new(format!("{}: {e}", id.name())))?;
            }
            Ok(())
        })
    }
}

/// The name and section kind of a standard data section, for the name of
/// a COMDAT member (`.data.NAME`, as llc names it).
fn standard_section_name(section: StandardSection) -> (&'static str, SectionKind) {
    match section {
        StandardSection::Data => (".data", SectionKind::Data),
        StandardSection::ReadOnlyDataWithRel => (".data.rel.ro", SectionKind::ReadOnlyDataWithRel),
        StandardSection::UninitializedData => (".bss", SectionKind::UninitializedData),
        StandardSection::Tls => (".tdata", SectionKind::Tls),
        StandardSection::UninitializedTls => (".tbss", SectionKind::UninitializedTls),
        _ => (".rodata", SectionKind::ReadOnlyData),
    }
}

/// Whether gimli symbol `symbol` is a thread-local data object's.
fn is_thread_local_symbol(model: &ObjectModel, symbol: usize) -> bool {
    match GimliSymbol::of(symbol) {
        GimliSymbol::Code(_) | GimliSymbol::ExceptionTable(_) => false,
        GimliSymbol::Data(index) => model
            .data
            .get(index)
            .is_some_and(|data| data.section.is_thread_local()),
    }
}

/// Rewrites each `DW_OP_addr` of a thread-local variable in `.debug_info`
/// into `DW_OP_const8u`: the relocation (R_X86_64_DTPOFF64) then gives the
/// variable's offset in its TLS block, which the following
/// `DW_OP_GNU_push_tls_address`/`DW_OP_form_tls_address` turns into the
/// thread's address, as gcc and clang describe TLS variables.
fn thread_local_locations(
    model: &ObjectModel,
    section: &RelocatedSection,
    bytes: &mut [u8],
) -> Result<(), WriteError> {
    for relocation in &section.relocations {
        let RelocationTarget::Symbol(symbol) = relocation.target else {
            continue;
        };
        if !is_thread_local_symbol(model, symbol) {
            continue;
        }
        match relocation.offset.checked_sub(1).map(|at| &mut bytes[at]) {
            Some(opcode) if *opcode == gimli::DW_OP_addr.0 && relocation.size == 8 => {
                *opcode = gimli::DW_OP_const8u.0;
            }
            _ => {
                return Err(WriteError::new(format!(
                    ".debug_info: the address of a thread-local variable at {:#x} is not a \
                     DW_OP_addr operand",
                    relocation.offset
                )))
            }
        }
    }
    Ok(())
}

/// Checks that `offset` lies within `function`'s code (its end included).
pub fn check_code_offset(function: &Function, offset: u64, what: &str) -> Result<(), WriteError> {
    if offset > function.code.len() as u64 {
        return Err(WriteError::new(format!(
            "{what}: offset {offset:#x} is past the end of `{}` ({} bytes)",
            function.name,
            function.code.len()
        )));
    }
    Ok(())
}

/// The bytes of the ELF symbol for a name as LLVM IR writes it: `\XX` hex
/// escapes (from quoted names such as `@"\01foo"`) decoded, and LLVM's
/// leading `\01` ("use this name as it is") dropped, as llc does: ELF adds
/// no prefix that it would suppress.
fn symbol_bytes(name: &str) -> Vec<u8> {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    if out.first() == Some(&1) {
        out.remove(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_sixteen_byte_aligned_in_order() {
        let function = |len| Function {
            code: vec![0xc3; len],
            ..Function::default()
        };
        let model = ObjectModel {
            functions: vec![function(5), function(16), function(1)],
            ..ObjectModel::default()
        };
        let layout = Layout::of(&model);
        assert_eq!(layout.function_offsets, vec![0, 16, 32]);
        assert_eq!(layout.function_sections, vec![0, 0, 0]);
        assert_eq!(layout.code_sections[0].size, 33);
        assert_eq!(layout.code_sections.len(), 1);
    }

    #[test]
    fn symbol_names_decode_llvm_escapes_and_drop_the_no_mangle_marker() {
        assert_eq!(super::symbol_bytes("plain"), b"plain");
        assert_eq!(super::symbol_bytes("\\01foo"), b"foo");
        assert_eq!(super::symbol_bytes("with\\2Edot"), b"with.dot");
        assert_eq!(super::symbol_bytes("a\\5Cb"), b"a\\b");
        assert_eq!(super::symbol_bytes("trailing\\"), b"trailing\\");
    }
}
