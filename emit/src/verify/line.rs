//! The line table side of `verify`: each file of the table names one of its
//! directories; each sequence runs forwards, stays in one code section, and
//! names files of the table. A sequence of code a
//! linker discarded (see `read::ElfObject::discarded`) has only its files
//! checked.
//!
//! In: a unit's line program. Out: problems added to the list.

use super::{describe, Problems};
use crate::read::{ElfObject, Slice};

/// Walks the line program's instructions (not gimli's rows, which hide a
/// sequence whose address goes backwards as a tombstone) and checks each
/// row's address.
pub(super) fn check_line_table(
    object: &ElfObject,
    unit: &gimli::Unit<Slice<'_>>,
    problems: &mut Problems,
) {
    let Some(program) = unit.line_program.clone() else {
        return;
    };
    let header = program.header();
    check_file_directories(header, problems);
    let min_length = u64::from(header.minimum_instruction_length());
    let line_range = header.line_range().max(1);
    let opcode_base = header.opcode_base();
    let line_base = i64::from(header.line_base());
    // Address and line advance of a special opcode.
    let special = |opcode: u8| {
        let adjusted = opcode.wrapping_sub(opcode_base);
        (
            u64::from(adjusted / line_range) * min_length,
            line_base + i64::from(adjusted % line_range),
        )
    };
    // DWARF 5 numbers files from 0, earlier versions from 1.
    let files = header.file_names().len() as u64;
    let valid_files = if header.version() >= 5 {
        0..files
    } else {
        1..files + 1
    };
    let mut instructions = header.instructions();
    let mut sequence = Sequence::default();
    let mut address = 0u64;
    let mut line = 1i64;
    let mut file = 1u64;
    loop {
        let instruction = match instructions.next_instruction(header) {
            Ok(Some(instruction)) => instruction,
            Ok(None) => return,
            Err(e) => return problems.add(format!("malformed .debug_line: {e}")),
        };
        let emits = match instruction {
            gimli::LineInstruction::Special(opcode) => {
                let (advance, line_advance) = special(opcode);
                address = address.wrapping_add(advance);
                line = line.wrapping_add(line_advance);
                Some(false)
            }
            gimli::LineInstruction::Copy => Some(false),
            gimli::LineInstruction::EndSequence => Some(true),
            gimli::LineInstruction::AdvancePc(advance) => {
                address = address.wrapping_add(advance.wrapping_mul(min_length));
                None
            }
            gimli::LineInstruction::ConstAddPc => {
                address = address.wrapping_add(special(255).0);
                None
            }
            gimli::LineInstruction::FixedAddPc(advance) => {
                address = address.wrapping_add(u64::from(advance));
                None
            }
            gimli::LineInstruction::AdvanceLine(advance) => {
                line = line.wrapping_add(advance);
                None
            }
            gimli::LineInstruction::SetAddress(new) => {
                address = new;
                None
            }
            gimli::LineInstruction::SetFile(new) => {
                file = new;
                None
            }
            _ => None,
        };
        let Some(end_sequence) = emits else {
            continue;
        };
        check_row(object, &mut sequence, address, line, problems);
        if !valid_files.contains(&file) && !sequence.reported_file {
            sequence.reported_file = true;
            problems.add(format!(
                ".debug_line: row at {} (line {line}) names file {file}, but the table's files are {}..{}",
                describe(object, address),
                valid_files.start,
                valid_files.end
            ));
        }
        if end_sequence {
            sequence = Sequence::default();
            address = 0;
            line = 1;
            file = 1;
        }
    }
}

/// Each file entry's directory index names a directory of the table
/// (before DWARF 5, index 0 is the unit's compilation directory).
fn check_file_directories(header: &gimli::LineProgramHeader<Slice<'_>>, problems: &mut Problems) {
    let directories = header.include_directories().len() as u64;
    let (first_file, last_directory) = if header.version() >= 5 {
        (0, directories.checked_sub(1))
    } else {
        (1, Some(directories))
    };
    for (number, file) in (first_file..).zip(header.file_names()) {
        let index = file.directory_index();
        if last_directory.is_none_or(|last| index > last) {
            problems.add(format!(
                ".debug_line: file {number} names directory {index}, but the table lists {directories} directories"
            ));
        }
    }
}

/// Checks one row of a sequence: its address follows the previous row's
/// and lies in the sequence's code section (or at its end).
fn check_row(
    object: &ElfObject,
    sequence: &mut Sequence,
    address: u64,
    line: i64,
    problems: &mut Problems,
) {
    if sequence.previous.is_none() {
        sequence.discarded = object.discarded(address);
    }
    if sequence.discarded {
        sequence.previous = Some(address);
        return;
    }
    if let Some(previous) = sequence.previous {
        if address < previous {
            problems.add(format!(
                ".debug_line: row at {} (line {line}) follows a row at {} in the same sequence",
                describe(object, address),
                describe(object, previous)
            ));
        }
    }
    // A row at a section's very end covers no bytes (gcc puts one before
    // the end_sequence row); a row after it at a higher address is
    // reported itself.
    let within = |s: &crate::read::Section, at_end: bool| {
        let end = s.address + s.size;
        s.is_code() && address >= s.address && (address < end || at_end && address == end)
    };
    // At the end of the sequence's own section, the row is still in it (in
    // a linked file the next code section often starts right there).
    let code = (sequence.section)
        .filter(|&first| within(&object.sections[first], true))
        .or_else(|| object.sections.iter().position(|s| within(s, false)))
        .or_else(|| object.sections.iter().position(|s| within(s, true)));
    match (code, sequence.section) {
        (None, _) if !sequence.reported_outside => {
            sequence.reported_outside = true;
            problems.add(format!(
                ".debug_line: row at {} (line {line}) is outside every code section",
                describe(object, address)
            ));
        }
        (None, _) => {}
        (Some(section), Some(first)) if section != first => problems.add(format!(
            ".debug_line: a sequence starting in {} continues into {} at {}",
            object.sections[first].name,
            object.sections[section].name,
            describe(object, address)
        )),
        (Some(section), _) => sequence.section = Some(section),
    }
    sequence.previous = Some(address);
}

/// What is known of the line-table sequence being read.
#[derive(Default)]
struct Sequence {
    /// Address of the previous row.
    previous: Option<u64>,
    /// The code section its rows are in.
    section: Option<usize>,
    /// Whether a row outside every code section was reported already.
    reported_outside: bool,
    /// Whether a row naming no file was reported already.
    reported_file: bool,
    /// It starts at an address the linker gave discarded code: its
    /// addresses say nothing.
    discarded: bool,
}
