//! The line-table figures of llvm-dwarfdump's statistics, and the rows
//! each function's figures count and the page shows.
//!
//! In: one unit of [`Units`] at a time ([`unit_lines`]), summed in unit
//! order by [`LineSums`]. Out: [`LineFigures`]. Follows llvm-dwarfdump 19:
//! per unit, the rows of every sequence whose first address is below its
//! end_sequence address, the end_sequence row left out; a row is unique by
//! (line, column as 16 bits, file), files compared by their absolute path
//! (LLVM's `getFileNameByIndex` with `AbsoluteFilePath`); a unit whose
//! table names no file counts nothing.

use rayon::prelude::*;

use super::{Map, Set};

use super::dies::{comp_dir, string, Units};
use super::load::Slice;

/// The bytes of line table an is_stmt row is guessed to take, to give the
/// rows' arrays room up front (rustc's and clang's tables take 6 to 11).
const IS_STMT_ROW_BYTES: usize = 8;

/// The line figures of a whole file.
#[derive(Default)]
pub(crate) struct LineFigures {
    /// Bytes covered by sequences.
    pub bytes: u64,
    /// Bytes covered by rows of line 0.
    pub line_zero_bytes: u64,
    /// Rows (end_sequence rows left out).
    pub entries: u64,
    /// Rows with is_stmt.
    pub is_stmt_entries: u64,
    /// Distinct (line, column, file).
    pub unique: u64,
    /// Distinct (line, column, file) with line ≠ 0.
    pub unique_non_zero: u64,
    /// The addresses of the is_stmt rows (synthetic in an object), sorted:
    /// what each function's is_stmt count needs.
    pub is_stmt_addresses: Vec<u64>,
    /// Every row but end_sequence rows, sorted by address, when asked for
    /// (the page shows them); else empty.
    pub rows: Vec<LineRow>,
}

/// One row of a line table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRow {
    /// Its address.
    pub address: u64,
    /// Its line (0: no line).
    pub line: u32,
    /// Whether it is a recommended breakpoint (is_stmt).
    pub is_stmt: bool,
}

/// The line figures of one unit, before the units are summed: its files'
/// absolute paths by file index, and its distinct (line, column, file
/// index) triples.
#[derive(Default)]
pub(crate) struct UnitLines {
    paths: Vec<(u64, String)>,
    unique: Set<(u32, u16, u64)>,
    figures: LineFigures,
}

/// The units' line figures summed in unit order, so the figures are the
/// same whatever the number of threads that read the units.
pub(crate) struct LineSums {
    figures: LineFigures,
    /// File ids by absolute path, given as the paths are first met.
    files: Map<String, u16>,
    /// The distinct (line, column, file id) triples.
    unique: Set<(u32, u16, u16)>,
}

impl LineSums {
    /// No figures yet, with room for the is_stmt addresses of `bytes` of
    /// line tables ([`IS_STMT_ROW_BYTES`]), so that their array is not
    /// copied as it grows.
    pub fn with_room(bytes: usize) -> LineSums {
        let mut figures = LineFigures::default();
        figures.is_stmt_addresses.reserve(bytes / IS_STMT_ROW_BYTES);
        LineSums {
            figures,
            files: Map::default(),
            unique: Set::default(),
        }
    }

    /// Adds the next unit's figures.
    pub fn add(&mut self, part: UnitLines) {
        // A file index naming no path counts as id 0.
        let mut mapping: Map<u64, u16> = Map::default();
        for (file, path) in part.paths {
            let next = self.files.len() as u16;
            mapping.insert(file, *self.files.entry(path).or_insert(next));
        }
        for (line, column, file) in part.unique {
            let file = mapping.get(&file).copied().unwrap_or(0);
            self.unique.insert((line, column, file));
        }
        let unit = part.figures;
        let figures = &mut self.figures;
        figures.bytes = figures.bytes.saturating_add(unit.bytes);
        figures.line_zero_bytes = figures.line_zero_bytes.saturating_add(unit.line_zero_bytes);
        figures.entries += unit.entries;
        figures.is_stmt_entries += unit.is_stmt_entries;
        figures.is_stmt_addresses.extend(unit.is_stmt_addresses);
        figures.rows.extend(unit.rows);
    }

    /// The figures of the whole file.
    pub fn finish(self) -> LineFigures {
        let mut figures = self.figures;
        figures.unique = self.unique.len() as u64;
        figures.unique_non_zero =
            self.unique.iter().filter(|&&(line, ..)| line != 0).count() as u64;
        // Each unit's sequences come in address order, and a linker lays
        // the units out mostly in order: a sort that merges the runs
        // already sorted (timsort's) does far less than one that does not.
        figures.is_stmt_addresses.par_sort();
        // A stable sort: rows at one address stay in unit order.
        figures.rows.par_sort_by_key(|row| row.address);
        figures
    }
}

/// The line figures of unit `index` alone, with its rows when `rows` asks
/// for them.
pub(crate) fn unit_lines(units: &Units<'_>, index: usize, rows: bool) -> UnitLines {
    let mut part = UnitLines::default();
    let (unit, dwarf) = units.line_unit(index);
    let Some(program) = unit.line_program.clone() else {
        return part;
    };
    let header = program.header();
    let count = header.file_names().len() as u64;
    if count == 0 {
        return part;
    }
    let first = if header.version() >= 5 { 0 } else { 1 };
    let comp_dir = comp_dir(unit);
    for file in first..first + count {
        if let Some(path) = absolute_path(dwarf, unit, header, file, &comp_dir) {
            part.paths.push((file, path));
        }
    }
    let figures = &mut part.figures;
    // Room for the table's is_stmt rows from the start, so their array is
    // not copied as it grows.
    let room = header.unit_length() / IS_STMT_ROW_BYTES;
    figures.is_stmt_addresses.reserve(room);
    if rows {
        figures.rows.reserve(room);
    }
    let mut program_rows = program.rows();
    let mut sequence: Vec<(u64, bool, u32, u16, u64)> = Vec::with_capacity(64);
    while let Ok(Some((_, row))) = program_rows.next_row() {
        if !row.end_sequence() {
            let column = match row.column() {
                gimli::ColumnType::LeftEdge => 0,
                gimli::ColumnType::Column(column) => column.get() as u16,
            };
            let line = row.line().map_or(0, |line| line.get() as u32);
            sequence.push((row.address(), row.is_stmt(), line, column, row.file_index()));
            continue;
        }
        let end = row.address();
        let Some(&(low, ..)) = sequence.first() else {
            continue;
        };
        if low >= end {
            sequence.clear();
            continue;
        }
        figures.bytes = figures.bytes.saturating_add(end - low);
        figures.entries += sequence.len() as u64;
        for (position, &(address, is_stmt, line, column, file)) in sequence.iter().enumerate() {
            figures.is_stmt_entries += u64::from(is_stmt);
            if is_stmt {
                figures.is_stmt_addresses.push(address);
            }
            if rows {
                figures.rows.push(LineRow {
                    address,
                    line,
                    is_stmt,
                });
            }
            part.unique.insert((line, column, file));
            if line == 0 {
                let next = sequence.get(position + 1).map_or(end, |&(next, ..)| next);
                figures.line_zero_bytes = figures
                    .line_zero_bytes
                    .saturating_add(next.wrapping_sub(address));
            }
        }
        sequence.clear();
    }
    part
}

/// The absolute path of file `file` of a line table, as LLVM's
/// `getFileNameByIndex(AbsoluteFilePath)` makes it.
pub(crate) fn absolute_path<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    header: &gimli::LineProgramHeader<Slice<'a>>,
    file: u64,
    comp_dir: &str,
) -> Option<String> {
    let version = header.version();
    let entry = if version >= 5 {
        header.file_names().get(usize::try_from(file).ok()?)?
    } else {
        header
            .file_names()
            .get(usize::try_from(file.checked_sub(1)?).ok()?)?
    };
    let name = string(dwarf, unit, entry.path_name())?;
    if name.starts_with('/') {
        return Some(name);
    }
    let directory = entry.directory_index();
    let directories = header.include_directories();
    let include = if version >= 5 {
        directories.get(usize::try_from(directory).ok()?)
    } else if directory > 0 {
        directories.get(usize::try_from(directory - 1).ok()?)
    } else {
        None
    };
    let include = include
        .and_then(|dir| string(dwarf, unit, *dir))
        .unwrap_or_default();
    let mut path = String::new();
    if (version < 5 || directory != 0) && !comp_dir.is_empty() && !include.starts_with('/') {
        append(&mut path, comp_dir);
    }
    append(&mut path, &include);
    append(&mut path, &name);
    Some(path)
}

/// LLVM's `sys::path::append` of one component: empty ones are skipped, a
/// separator goes between.
fn append(path: &mut String, component: &str) {
    if component.is_empty() {
        return;
    }
    if !path.is_empty() && !path.ends_with('/') && !component.starts_with('/') {
        path.push('/');
    }
    path.push_str(component);
}
