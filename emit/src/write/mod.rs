//! Writing an [`ObjectModel`] as the bytes of an ELF x86-64 relocatable object.
//!
//! ```text
//!   ObjectModel ──Layout::of──▶ function offsets in .text
//!        │
//!        ├─ frame ──────────────▶ .eh_frame        (gimli FrameTable; CIEs with a
//!        │                         personality, FDEs with their LSDA)
//!        ├─ lsda ───────────────▶ .gcc_except_table (one per COMDAT group)
//!        ├─ unit (debug only) ──▶ .debug_info/abbrev/str   (gimli DwarfUnit)
//!        │    ├─ types             type DIEs, base types for expressions
//!        │    ├─ line              .debug_line, .debug_line_str
//!        │    ├─ rnglists          .debug_rnglists
//!        │    └─ loclists ◀─ ops   .debug_loclists, DW_OP_LLVM_* lowered
//!        └─ elf ────────────────▶ ELF bytes: .text .rodata .data.rel.ro .data
//!                                  .bss, symbols, RELA for code, data and every
//!                                  gimli relocation (relocate), .note.GNU-stack
//! ```
//!
//! In: an [`ObjectModel`] (machine code, relocations, CFI, data, optional
//! DWARF content in model terms) and [`WriteOptions`].
//! Out: ELF bytes, or a [`WriteError`] naming what in the model is wrong
//! (the writer checks what gimli and object would panic on).
//! Promises:
//! - every relocation of the model becomes an ELF relocation, every function
//!   an STT_FUNC symbol with its size, every data object an STT_OBJECT;
//! - every address and cross-section offset in `.eh_frame` and the debug
//!   sections is an ELF relocation (against the code section's symbol or
//!   the target section's symbol), so the contents hold zeros there;
//! - a unit whose code spans several sections (named sections, COMDAT
//!   groups) has `DW_AT_low_pc` 0 and a `DW_AT_ranges` list of one
//!   `DW_RLE_start_length` per section, as llc writes it;
//! - writing with or without debug info gives the same `.text`, `.rodata`,
//!   `.data` and `.eh_frame` bytes.
//!
//! Shapes a reader can rely on (the writer's side of `read(write(m))`):
//! DWARF 5, 32-bit format; one compile unit; base types made for
//! expressions are named `DW_ATE_signed_N`/`DW_ATE_unsigned_N`; the line
//! program has one sequence per non-empty function; location lists are
//! `DW_LLE_base_address` (function start) then `DW_LLE_offset_pair`s; scope
//! ranges are low_pc/high_pc for one range, else a rnglist of
//! `DW_RLE_base_address` + `DW_RLE_offset_pair`s; relocations against
//! [`crate::model::Symbol::FunctionData`]/[`crate::model::Symbol::FunctionCode`]
//! are against the `.rodata`/`.text` section symbol with the position added
//! to the addend. See `ops` for exactly how expressions are lowered.

mod elf;
mod frame;
mod line;
mod loclists;
mod lsda;
mod ops;
mod relocate;
mod rnglists;
mod types;
mod unit;

use std::fmt;

use gimli::write::Sections;

use crate::model::ObjectModel;
pub(crate) use elf::Layout;
use relocate::RelocatedSection;

/// The debugger the DWARF expressions are tuned for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DebuggerTune {
    /// gdb: register arguments under arithmetic become DW_OP_regval_type.
    #[default]
    Gdb,
    /// lldb: register arguments become DW_OP_bregN 0.
    Lldb,
}

/// How [`write()`] writes the object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// The debugger the location expressions are tuned for.
    pub debugger_tune: DebuggerTune,
}

/// Why a model could not be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError {
    /// What is wrong, naming the function, variable or section concerned.
    pub message: String,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WriteError {}

impl WriteError {
    fn new(message: String) -> WriteError {
        WriteError { message }
    }
}

/// Writes `model` as an ELF x86-64 relocatable object.
pub fn write(model: &ObjectModel, options: &WriteOptions) -> Result<Vec<u8>, WriteError> {
    let layout = Layout::of(model);
    let mut sections = Sections::new(RelocatedSection::default());
    frame::write_eh_frame(model, &layout, &mut sections.eh_frame)?;
    if let Some(debug) = &model.debug {
        let mut dwarf = unit::build_unit(model, debug, &layout, options)?;
        dwarf
            .write(&mut sections)
            .map_err(|e| WriteError::new(format!("DWARF writer: {e}")))?;
    }
    elf::write_object(model, &layout, &sections)
}
