//! Invariants of an ELF x86-64 object and its DWARF.
//!
//! In: the bytes of any ELF x86-64 relocatable object, executable or shared
//! library (and the `.dwo` files of its skeleton units, or their parts of its
//! `.dwp` package, found as `read`'s `split` says). Out: the [`Problem`]s found (none: the object keeps every
//! invariant).
//!
//! The invariants, each checked on the raw DWARF (relocations applied, as
//! `read` does) rather than on the model, so that what `read` would leave
//! out is still seen:
//! - the ELF is well formed: header, section contents inside the file,
//!   relocations inside their sections and naming real symbols, function
//!   and data symbols inside their sections;
//! - every function symbol (with code) is covered by an `.eh_frame` (or
//!   `.debug_frame`) FDE (in a linked file, every one inside a unit's
//!   ranges: code linked in without debug information, such as libgcc's
//!   hand-written helpers, may have none);
//! - the line table: addresses within a sequence never go backwards, every
//!   row lies inside one code section and names a file of the table;
//! - every unit has a DIE, every attribute value decodes (strings, address
//!   indexes, ranges, location lists, file numbers) and the offset tables
//!   a unit points into have sound headers (see `forms`);
//! - every reference from one DIE to another names a DIE of the unit;
//! - every subprogram's address ranges are exactly those of function
//!   symbols; the ranges of scopes nested in a subprogram, lexical block or
//!   inlined call lie inside its ranges and do not overlap one another;
//! - every location list entry runs forwards, lies inside a function of
//!   its subprogram, and does not overlap another entry of its list;
//! - every typed operation (`DW_OP_regval_type`, `convert`, `reinterpret`,
//!   `const_type`, `deref_type`) names a `DW_TAG_base_type` DIE, and every
//!   `DW_OP_addr`/`DW_OP_addrx` points into a data object (an STT_OBJECT
//!   symbol) or a data section's unnamed bytes (string literals);
//! - every `.debug_names` entry names a DIE with its tag and name;
//! - the pieces of a composite location never exceed the variable's type
//!   size, and (with [`VerifyOptions::pieces_cover_variables`], dwarfsmith's
//!   promise) cover it.
//!
//! A problem names where it is: section, function, DIE offset in
//! `.debug_info`, variable name, address as `section+offset`.
//!
//! Beside the invariants, [`round_trip`] (and [`round_trip_with`], for any
//! writer) checks that a model written and read back is the model in
//! [`normalise`]d form.
//!
//! Modules: `object` (symbols, CFI coverage), `line` (the line program),
//! `names` (the name index),
//! `unit` (DIEs, location lists, expressions), `normalise` and
//! `round_trip`.

mod forms;
mod line;
mod names;
mod normalise;
mod object;
mod ranges;
mod round_trip;
mod unit;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use normalise::normalise;
pub use round_trip::{round_trip, round_trip_with};

use crate::read::{DwarfSections, ElfObject, FileBytes, PARALLEL_FROM};

/// One thing wrong with an object: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong, naming where (section, function, DIE offset...).
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What [`verify_with`] holds an object to beyond what every compiler's
/// objects keep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Composite locations cover every byte of their variable: dwarfsmith's
    /// promise (the model's `Op::Piece`); clang and gcc leave parts they
    /// know nothing of undescribed, so [`verify`] does not ask it.
    pub pieces_cover_variables: bool,
}

/// Checks an object and lists what is wrong with it (empty: nothing found).
pub fn verify(bytes: &[u8]) -> Vec<Problem> {
    verify_with(bytes, &VerifyOptions::default())
}

/// Checks an object under `options` and lists what is wrong with it. The
/// split DWARF files its skeleton units name are looked for under their
/// `DW_AT_comp_dir`.
pub fn verify_with(bytes: &[u8], options: &VerifyOptions) -> Vec<Problem> {
    verify_bytes(bytes, None, options, None)
}

/// Checks the object, executable or shared library at `path` under
/// `options`, as [`verify_with`] does; split units are also looked for in
/// its package `PATH.dwp` first and beside it, and a stripped file's debug file beside it and under
/// `debug_dirs` (see [`crate::read::find_debug_file`]). A file with no
/// DWARF at all (no `.debug_info` in it nor in a debug file found for it)
/// is a problem: there is nothing to check, which a CI job asking for
/// debug information must hear.
pub fn verify_file(path: &Path, options: &VerifyOptions, debug_dirs: &[PathBuf]) -> Vec<Problem> {
    let cannot_read = |path: &Path, e: std::io::Error| {
        vec![Problem {
            message: format!("cannot read {}: {e}", path.display()),
        }]
    };
    let bytes = match FileBytes::open(path) {
        Ok(bytes) => Arc::new(bytes),
        Err(e) => return cannot_read(path, e),
    };
    let debug = match crate::read::find_debug_file(path, &bytes, debug_dirs) {
        Some(debug_path) => match FileBytes::open(&debug_path) {
            Ok(debug) => Some(Arc::new(debug)),
            Err(e) => return cannot_read(&debug_path, e),
        },
        None => None,
    };
    // The object's sections are stretches of the mapped files (no copy,
    // no fresh memory: the pages come from the page cache), and the DWARF
    // sections are borrowed from the object (`DwarfSections`).
    let object = ElfObject::parse_files(&bytes, debug.as_ref());
    verify_parsed(object, options, Some(path))
}

/// Checks `bytes` (and the debug file's `debug`); `file` is the path the
/// bytes were read from, which makes a file without DWARF a problem.
fn verify_bytes(
    bytes: &[u8],
    debug: Option<&[u8]>,
    options: &VerifyOptions,
    file: Option<&Path>,
) -> Vec<Problem> {
    verify_parsed(ElfObject::parse_with_debug(bytes, debug), options, file)
}

/// [`verify_bytes`] on the object as parsed.
fn verify_parsed(
    object: Result<ElfObject, crate::read::ReadError>,
    options: &VerifyOptions,
    file: Option<&Path>,
) -> Vec<Problem> {
    let mut problems = Problems::default();
    let object = match object {
        Ok(object) => object,
        Err(error) => {
            problems.add(format!("malformed object: {error}"));
            return problems.list;
        }
    };
    let sections = DwarfSections::load(&object);
    if file.is_some() && !sections.has_debug_info() {
        problems.add(NO_DWARF.to_string());
    }
    object::check_symbols(&object, &mut problems);
    // The call frames are checked beside the units in a large file (on
    // another of rayon's threads), not before them; their problems are
    // listed first all the same.
    let cfi = || {
        let mut found = Problems::default();
        object::check_cfi(&object, &sections, &mut found);
        found
    };
    let units = || {
        let mut found = Problems::default();
        unit::check_dwarf(&object, &sections, options, file, &mut found);
        found
    };
    let (cfi, units) = if sections.data(gimli::SectionId::DebugInfo).len() >= PARALLEL_FROM {
        rayon::join(cfi, units)
    } else {
        (cfi(), units())
    };
    problems.list.extend(cfi.list);
    problems.list.extend(units.list);
    names::check_names(&sections, &mut problems);
    problems.list
}

/// The problem of a file without DWARF.
const NO_DWARF: &str = "no DWARF to check: no .debug_info section (the debug file of a \
stripped file is looked for through its build id and .gnu_debuglink, beside it and under \
--debug-dir)";

#[derive(Default)]
struct Problems {
    list: Vec<Problem>,
}

impl Problems {
    fn add(&mut self, message: String) {
        self.list.push(Problem { message });
    }
}

/// The allocated section `address` lies in, or else the last one before it.
fn section_before(object: &ElfObject, address: u64) -> Option<&crate::read::Section> {
    object
        .sections
        .iter()
        .filter(|s| {
            s.flags & u64::from(goblin::elf::section_header::SHF_ALLOC) != 0 && s.address <= address
        })
        .max_by_key(|s| s.address)
}

/// `section+offset` for `address`, relative to `section`, marked when it
/// runs past the section's end.
fn relative(section: Option<&crate::read::Section>, address: u64) -> String {
    match section {
        Some(section) => {
            let offset = address.wrapping_sub(section.address);
            let past = if offset > section.size {
                " (past its end)"
            } else {
                ""
            };
            format!("{}+{offset:#x}{past}", section.name)
        }
        None => format!("address {address:#x} (before every section)"),
    }
}

/// `section+offset` for a synthetic address.
fn describe(object: &ElfObject, address: u64) -> String {
    relative(section_before(object, address), address)
}

/// `[start, end)`, both relative to the section `start` lies in.
fn describe_range(object: &ElfObject, start: u64, end: u64) -> String {
    let section = section_before(object, start);
    format!("[{}, {})", relative(section, start), relative(section, end))
}
