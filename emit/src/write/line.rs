//! The DWARF 5 line program: file entries and rows.
//!
//! In: the model's files and per-function [`LineRow`]s, and the code layout.
//! Out: a `gimli::write::LineProgram` and the line-table file id of each
//! model file.
//! Promises:
//! - file entry 0 is `files[0]` (the primary source file); the others follow
//!   in model order, except that a file equal (name and directory) to an
//!   earlier one shares its entry, as gimli keeps file entries unique;
//! - MD5 checksums are written when every file has one (DWARF 5 wants all
//!   or none);
//! - one sequence per function with code and rows, starting at the function's
//!   address and ending (`DW_LNE_end_sequence`) at its end; rows keep
//!   is_stmt, prologue_end and epilogue_begin as given.

use gimli::write::{DirectoryId, FileId, FileInfo, LineProgram, LineString, LineStringTable};
use gimli::{Encoding, LineEncoding};

use super::elf::Layout;
use super::WriteError;
use crate::model::{DebugInfo, ObjectModel, SourceFile};

/// The line program of the unit and the file id of each model file.
pub fn line_program(
    model: &ObjectModel,
    debug: &DebugInfo,
    layout: &Layout,
    encoding: Encoding,
    line_strings: &mut LineStringTable,
) -> Result<(LineProgram, Vec<FileId>), WriteError> {
    let primary = primary_file(debug);
    check_path(&debug.comp_dir, "the compilation directory")?;
    check_path(&primary.name, "the primary file name")?;
    let mut string = |text: &str| LineString::new(text, encoding, line_strings);
    let has_md5 = debug.files.iter().all(|file| file.md5.is_some()) && !debug.files.is_empty();
    let info = |file: &SourceFile| {
        file.md5.map(|md5| FileInfo {
            md5,
            ..FileInfo::default()
        })
    };
    let primary_dir = (!primary.directory.is_empty() && primary.directory != debug.comp_dir)
        .then(|| string(&primary.directory));
    let mut program = LineProgram::new(
        encoding,
        LineEncoding::default(),
        string(&debug.comp_dir),
        primary_dir,
        string(&primary.name),
        info(&primary),
    );
    program.file_has_md5 = has_md5;
    let mut file_ids = Vec::with_capacity(debug.files.len());
    for (index, file) in debug.files.iter().enumerate() {
        check_path(&file.name, &format!("the name of file {index}"))?;
        let directory = directory_id(&mut program, file, debug, line_strings, encoding);
        let name = LineString::new(file.name.as_str(), encoding, line_strings);
        file_ids.push(program.add_file(name, directory, info(file)));
    }
    for (index, (function, rows)) in model.functions.iter().zip(&debug.line_rows).enumerate() {
        // A function without rows gets no sequence: an empty one would end
        // on a row naming gimli's default file, which may not exist.
        if function.code.is_empty() || rows.is_empty() {
            continue;
        }
        let what = format!("line rows of `{}`", function.name);
        program.begin_sequence(Some(layout.address(index, 0)));
        let mut previous = 0;
        for row in rows {
            if row.offset < previous || row.offset >= function.code.len() as u64 {
                return Err(WriteError::new(format!(
                    "{what}: row at {:#x} is out of order or past the code ({} bytes)",
                    row.offset,
                    function.code.len()
                )));
            }
            previous = row.offset;
            let Some(&file) = file_ids.get(row.file as usize) else {
                return Err(WriteError::new(format!(
                    "{what}: row at {:#x} names file {}, which does not exist",
                    row.offset, row.file
                )));
            };
            let line_row = program.row();
            line_row.address_offset = row.offset;
            line_row.file = file;
            line_row.line = row.line.into();
            line_row.column = row.column.into();
            line_row.is_statement = row.is_stmt;
            line_row.prologue_end = row.prologue_end;
            line_row.epilogue_begin = row.epilogue_begin;
            program.generate_row();
        }
        program.end_sequence(function.code.len() as u64);
    }
    if debug.line_rows.len() > model.functions.len() {
        return Err(WriteError::new(format!(
            "{} line-row lists for {} functions",
            debug.line_rows.len(),
            model.functions.len()
        )));
    }
    Ok((program, file_ids))
}

/// `files[0]`, or a file named after the unit when the model lists none.
fn primary_file(debug: &DebugInfo) -> SourceFile {
    debug.files.first().cloned().unwrap_or_else(|| SourceFile {
        name: debug.name.clone(),
        directory: debug.comp_dir.clone(),
        md5: None,
    })
}

fn directory_id(
    program: &mut LineProgram,
    file: &SourceFile,
    debug: &DebugInfo,
    line_strings: &mut LineStringTable,
    encoding: Encoding,
) -> DirectoryId {
    if file.directory.is_empty() || file.directory == debug.comp_dir {
        program.default_directory()
    } else {
        program.add_directory(LineString::new(
            file.directory.as_str(),
            encoding,
            line_strings,
        ))
    }
}

/// gimli panics on paths with NUL bytes (a DWARF string ends at NUL); say
/// so instead. An empty path is legal (`DIFile(directory: "")` is common,
/// and LLVM writes it as it is): DWARF 5 line strings may be empty.
fn check_path(path: &str, what: &str) -> Result<(), WriteError> {
    if path.contains('\0') {
        return Err(WriteError::new(format!(
            "line table: {what} contains a NUL byte: {path:?}"
        )));
    }
    Ok(())
}
