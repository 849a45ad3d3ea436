//! Reading an ELF x86-64 object, executable or shared library back into an
//! [`ObjectModel`].
//!
//! In: the bytes of any ELF64 x86-64 relocatable object (dwarfsmith's,
//! gcc's, clang's, llc's), executable, PIE or shared library, with DWARF 2
//! to 5, compressed or not. Out: the same [`ObjectModel`] shape `write`
//! takes, or a [`ReadError`] saying what is malformed and where.
//!
//! The modules mirror `write/` one concept each: `elf` (sections, symbols,
//! relocations, a synthetic layout for objects), `compressed` (inflating
//! debug sections), `object` (functions and data objects), `cfi`
//! (`.eh_frame`), `dwarf` (relocated DWARF sections, the DIE tree), `split`
//! (a skeleton unit's `.dwo`, or its part of a `.dwp` package), `debug_file` (a stripped binary's debug file), `file` (a file's bytes, memory-mapped), `line` (files and rows), `names` (`.debug_names`), `types`, `unit`
//! (subprograms and scopes), `loclists` and `op` (variable locations,
//! raised back into the model's `DW_OP_LLVM_arg` form).
//!
//! Promises: in an object, relocations are applied to every section before
//! gimli reads it, so offsets and addresses are the linked ones under a
//! synthetic layout; a linked file's addresses are its own (see `elf`);
//! addresses become offsets into the function containing them.
//! What the model has no room for (static locals, entry values, view
//! pairs, relocation types other than the four it knows, ...) is left out
//! or approximated as each module documents; nothing panics on bad input.

mod cfi;
mod compressed;
mod debug_file;
mod dwarf;
mod elf;
mod file;
mod line;
mod loclists;
mod names;
mod object;
mod op;
mod placement;
mod split;
mod types;
mod unit;

use std::fmt;

use crate::model::ObjectModel;

pub use debug_file::find_debug_file;
pub(crate) use dwarf::DwarfSections;
pub use dwarf::{is_type_tag, DieTree, Noted, Slice, TreePool, PARALLEL_FROM};
pub(crate) use elf::{relocation_width, ElfObject, Section};
pub use file::FileBytes;
pub(crate) use file::SectionBytes;
pub use line::{
    read_line_listing, read_line_listing_with_debug, CodeSpan, LineListing, RawLineRow,
};
pub(crate) use names::{read_names, IndexedName};
pub(crate) use split::{dwo_file, split_unit, Package, SplitFile};

/// Why an object could not be read: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The section (or "ELF header", "section headers") the problem is in.
    pub section: String,
    /// Byte offset in that section, when known.
    pub offset: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl ReadError {
    /// An error somewhere in `section`.
    pub(crate) fn new(section: &str, message: impl Into<String>) -> ReadError {
        ReadError {
            section: section.to_string(),
            offset: None,
            message: message.into(),
        }
    }

    /// An error at `offset` in `section`.
    pub(crate) fn at(section: &str, offset: u64, message: impl Into<String>) -> ReadError {
        ReadError {
            section: section.to_string(),
            offset: Some(offset),
            message: message.into(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(f, "{}+{offset:#x}: {}", self.section, self.message),
            None => write!(f, "{}: {}", self.section, self.message),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads an ELF x86-64 object, executable or shared library into the model
/// (the first unit's debug information: the model holds one).
pub fn read(bytes: &[u8]) -> Result<ObjectModel, ReadError> {
    read_with_debug(bytes, None)
}

/// Reads a stripped linked file with its separate debug file (see
/// [`find_debug_file`]; `None`: the file alone) into the model.
pub fn read_with_debug(bytes: &[u8], debug: Option<&[u8]>) -> Result<ObjectModel, ReadError> {
    let object = ElfObject::parse_with_debug(bytes, debug)?;
    let mut code = object::read_code_and_data(&object);
    for (function, cfi) in code.functions.iter_mut().zip(cfi::read_cfi(&object)?) {
        function.cfi = cfi;
    }
    let sections = DwarfSections::load(&object);
    let debug = if sections.has_debug_info() {
        unit::read_unit(&sections.dwarf(), &object, &code.data_addresses)?
    } else {
        None
    };
    Ok(ObjectModel {
        functions: code.functions,
        data: code.data,
        debug,
        weak_references: object::weak_references(&object),
        exception_tables: Vec::new(),
    })
}
