//! Writing an [`ObjectModel`] as the bytes of an ELF x86-64 relocatable object.
//!
//! In: an [`ObjectModel`] (machine code, relocations, CFI, data, optional
//! DWARF content in model terms) and [`WriteOptions`].
//! Out: ELF bytes, or a [`WriteError`] naming what in the model is wrong.
//! Promise: every relocation of the model becomes an ELF relocation, every
//! function an STT_FUNC symbol with its size, and every cross-section
//! reference of the debug sections an ELF relocation.

mod elf;
mod frame;
mod line;
mod loclists;
mod ops;
mod relocate;
mod rnglists;
mod types;
mod unit;

use std::fmt;

use gimli::write::Sections;

use crate::model::ObjectModel;
use elf::Layout;
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

/// How [`write`] writes the object.
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
