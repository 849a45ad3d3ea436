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
