//! The line table: file entries and rows split per function.
//!
//! In: a unit's line program (relocated) and the object's functions.
//! Out: the model's [`SourceFile`]s and, per function, its [`LineRow`]s.
//!
//! Promises: file numbering is DWARF 5's (index 0 is the primary source
//! file); for a DWARF 2-4 table, whose numbering starts at 1, entry 0 is
//! made from the unit's name and directory so row and DIE file numbers keep
//! their meaning. Each row (end-of-sequence rows excepted) goes to the
//! function containing its address, as an offset from the function's first
//! byte; rows outside every function (padding) are left out. Rows of one
//! function are in address order, rows at one address in table order.

use gimli::{AttributeValue, ColumnType, Dwarf, Unit};

use super::dwarf::Slice;
use super::elf::ElfObject;
use super::ReadError;
use crate::model::{LineRow, SourceFile};

/// Files and per-function rows of a unit's line table.
pub(crate) struct LineTable {
    /// The file entries.
    pub files: Vec<SourceFile>,
    /// `rows[i]` belongs to function `i`.
    pub rows: Vec<Vec<LineRow>>,
}

/// Reads the line table of `unit`; an empty table when it has none.
pub(crate) fn read_line_table(
    dwarf: &Dwarf<Slice<'_>>,
    unit: &Unit<Slice<'_>>,
    object: &ElfObject,
    unit_name: &str,
    comp_dir: &str,
) -> Result<LineTable, ReadError> {
    let mut table = LineTable {
        files: Vec::new(),
        rows: vec![Vec::new(); object.functions.len()],
    };
    let Some(program) = unit.line_program.clone() else {
        return Ok(table);
    };
    let error = |e: gimli::Error| ReadError::new(".debug_line", e.to_string());
    let header = program.header();
    if header.version() < 5 {
        table.files.push(SourceFile {
            name: unit_name.to_string(),
            directory: comp_dir.to_string(),
            md5: None,
        });
    }
    for file in header.file_names() {
        let name = string(dwarf, unit, file.path_name()).map_err(error)?;
        let directory = match file.directory(header) {
            Some(value) => string(dwarf, unit, value).map_err(error)?,
            None => String::new(),
        };
        table.files.push(SourceFile {
            name,
            directory,
            md5: header.file_has_md5().then(|| *file.md5()),
        });
    }
    let mut rows = program.rows();
    while let Some((_, row)) = rows.next_row().map_err(error)? {
        if row.end_sequence() {
            continue;
        }
        let Some((function, offset)) = object.function_at(row.address()) else {
            continue;
        };
        table.rows[function].push(LineRow {
            offset,
            file: row.file_index() as u32,
            line: row.line().map_or(0, |line| line.get() as u32),
            column: match row.column() {
                ColumnType::LeftEdge => 0,
                ColumnType::Column(column) => column.get() as u32,
            },
            is_stmt: row.is_stmt(),
            prologue_end: row.prologue_end(),
            epilogue_begin: row.epilogue_begin(),
        });
    }
    for rows in &mut table.rows {
        rows.sort_by_key(|row| row.offset);
    }
    Ok(table)
}

/// A string-valued attribute as an owned string (lossy UTF-8).
pub(crate) fn string(
    dwarf: &Dwarf<Slice<'_>>,
    unit: &Unit<Slice<'_>>,
    value: AttributeValue<Slice<'_>>,
) -> gimli::Result<String> {
    let slice = dwarf.attr_string(unit, value)?;
    Ok(String::from_utf8_lossy(slice.slice()).into_owned())
}

/// A function's code as the line listing places it: name, section and
/// synthetic address range (see `elf` for the layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSpan {
    /// The function's symbol name.
    pub name: String,
    /// The code section it is in.
    pub section: String,
    /// Synthetic address of its first byte.
    pub address: u64,
    /// Size in bytes.
    pub size: u64,
}

/// One row of a line program, exactly as the state machine produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawLineRow {
    /// Synthetic address (relocations applied, see `elf`).
    pub address: u64,
    /// File number as the program names it.
    pub file: u64,
    /// The file's path (directory joined), `None` when the number names no
    /// entry of the table.
    pub file_name: Option<String>,
    /// Source line (0: no source line).
    pub line: u64,
    /// Source column (0: none).
    pub column: u64,
    /// A recommended breakpoint location.
    pub is_stmt: bool,
    /// First instruction after the frame setup.
    pub prologue_end: bool,
    /// First instruction of the frame teardown.
    pub epilogue_begin: bool,
    /// The block discriminator.
    pub discriminator: u64,
    /// The row ends its sequence (its address is one past the last byte).
    pub end_sequence: bool,
}

/// Every row of every unit's line program, with the functions and code
/// sections needed to name their addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineListing {
    /// Functions in address order.
    pub functions: Vec<CodeSpan>,
    /// Code sections: name, synthetic address, size.
    pub code_sections: Vec<(String, u64, u64)>,
    /// Sequences in program order, each ending with its end_sequence row
    /// (a sequence the program leaves unterminated ends without one).
    pub sequences: Vec<Vec<RawLineRow>>,
    /// In a linked file, the first address of its code (0 in a relocatable
    /// object): a sequence starting below it describes code the linker
    /// discarded (see [`LineListing::discarded`]).
    pub code_start: u64,
    /// Whether the file (or its debug file) has a `.debug_line` section: a
    /// stripped file without its debug file has none, and so no rows.
    pub has_line_table: bool,
}

impl LineListing {
    /// Whether a sequence starting at `address` describes code the linker
    /// discarded: GNU ld leaves it at address 0, lld at the tombstone -1.
    pub fn discarded(&self, address: u64) -> bool {
        super::elf::discarded(self.code_start, address)
    }

    /// The function containing `address` and the offset into it.
    pub fn function_at(&self, address: u64) -> Option<(usize, u64)> {
        let index = self.functions.partition_point(|f| f.address <= address);
        let function = self.functions.get(index.checked_sub(1)?)?;
        (address < function.address + function.size)
            .then(|| (index - 1, address - function.address))
    }

    /// `section+offset` for `address` (its code section, else the address).
    pub fn describe(&self, address: u64) -> String {
        let inside = |at_end: bool| {
            self.code_sections.iter().find(move |(_, start, size)| {
                address >= *start && (address < start + size || at_end && address == start + size)
            })
        };
        inside(false).or_else(|| inside(true)).map_or_else(
            || format!("{address:#x}"),
            |(name, start, _)| format!("{name}+{:#x}", address - start),
        )
    }

    /// `function+offset` for `address`, or `-` outside every function.
    pub fn function_name(&self, address: u64) -> String {
        match self.function_at(address) {
            Some((index, 0)) => self.functions[index].name.clone(),
            Some((index, offset)) => format!("{}+{offset:#x}", self.functions[index].name),
            None => "-".to_string(),
        }
    }
}

/// Reads every line program of an object as raw rows.
///
/// In: the bytes of any ELF x86-64 object, executable or shared library.
/// Out: its functions, code sections and line rows at their addresses
/// (synthetic in a relocatable object), or what is malformed. Rows are those gimli's state machine produces, in program
/// order, with nothing dropped.
pub fn read_line_listing(bytes: &[u8]) -> Result<LineListing, ReadError> {
    read_line_listing_with_debug(bytes, None)
}

/// [`read_line_listing`] of a stripped linked file with its separate debug
/// file (`None`: the file alone).
pub fn read_line_listing_with_debug(
    bytes: &[u8],
    debug: Option<&[u8]>,
) -> Result<LineListing, ReadError> {
    let object = ElfObject::parse_with_debug(bytes, debug)?;
    let mut listing = LineListing {
        functions: object
            .functions
            .iter()
            .map(|f| CodeSpan {
                name: f.name.clone(),
                section: object.sections[f.section].name.clone(),
                address: f.address,
                size: f.size,
            })
            .collect(),
        code_sections: object
            .sections
            .iter()
            .filter(|s| s.is_code())
            .map(|s| (s.name.clone(), s.address, s.size))
            .collect(),
        sequences: Vec::new(),
        code_start: object.code_start,
        has_line_table: false,
    };
    let sections = super::DwarfSections::load(&object);
    listing.has_line_table = !sections.data(gimli::SectionId::DebugLine).is_empty();
    let dwarf = sections.dwarf();
    let error = |e: gimli::Error| ReadError::new(".debug_line", e.to_string());
    let mut headers = dwarf.units();
    while let Some(header) = headers
        .next()
        .map_err(|e| ReadError::new(".debug_info", e.to_string()))?
    {
        let unit = dwarf
            .unit(header)
            .map_err(|e| ReadError::new(".debug_info", e.to_string()))?;
        let Some(program) = unit.line_program.clone() else {
            continue;
        };
        let header = program.header().clone();
        let mut rows = program.rows();
        let mut sequence = Vec::new();
        while let Some((_, row)) = rows.next_row().map_err(error)? {
            let file_name = row.file(&header).and_then(|file| {
                let name = string(&dwarf, &unit, file.path_name()).ok()?;
                let directory = match file.directory(&header) {
                    Some(value) => string(&dwarf, &unit, value).ok()?,
                    None => String::new(),
                };
                Some(if directory.is_empty() || name.starts_with('/') {
                    name
                } else {
                    format!("{directory}/{name}")
                })
            });
            sequence.push(RawLineRow {
                address: row.address(),
                file: row.file_index(),
                file_name,
                line: row.line().map_or(0, |line| line.get()),
                column: match row.column() {
                    ColumnType::LeftEdge => 0,
                    ColumnType::Column(column) => column.get(),
                },
                is_stmt: row.is_stmt(),
                prologue_end: row.prologue_end(),
                epilogue_begin: row.epilogue_begin(),
                discriminator: row.discriminator(),
                end_sequence: row.end_sequence(),
            });
            if row.end_sequence() {
                listing.sequences.push(std::mem::take(&mut sequence));
            }
        }
        if !sequence.is_empty() {
            listing.sequences.push(sequence);
        }
    }
    Ok(listing)
}
