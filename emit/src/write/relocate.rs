//! A section buffer for gimli that keeps the relocations gimli asks for.
//!
//! In: the bytes and [`gimli::write::Relocation`]s gimli produces while it
//! writes a DWARF or `.eh_frame` section.
//! Out: the section bytes (zeros where relocations go) and the relocation
//! list, which `elf` turns one to one into ELF RELA entries.

use gimli::write::{EndianVec, RelocateWriter, Relocation};
use gimli::LittleEndian;

/// How many kinds of gimli symbol numbers there are (see [`GimliSymbol`]).
const SYMBOL_KINDS: usize = 3;

/// gimli's symbol number for the start of code section `section` of the
/// layout (0 is `.text`): every code address the debug and unwind sections
/// hold is `section + addend`.
pub fn code_symbol(section: usize) -> usize {
    SYMBOL_KINDS * section
}

/// gimli's symbol number for data object `index` of the model (the
/// address of a global variable).
pub fn data_symbol(index: usize) -> usize {
    SYMBOL_KINDS * index + 1
}

/// gimli's symbol number for the LSDA of exception table `index` of the
/// model (an FDE's LSDA pointer).
pub fn exception_table_symbol(index: usize) -> usize {
    SYMBOL_KINDS * index + 2
}

/// What a gimli symbol number stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GimliSymbol {
    /// The start of code section `n` of the layout.
    Code(usize),
    /// Data object `n` of the model.
    Data(usize),
    /// The LSDA of exception table `n` of the model.
    ExceptionTable(usize),
}

impl GimliSymbol {
    /// The symbol a number made by [`code_symbol`], [`data_symbol`] or
    /// [`exception_table_symbol`] names.
    pub fn of(symbol: usize) -> GimliSymbol {
        let index = symbol / SYMBOL_KINDS;
        match symbol % SYMBOL_KINDS {
            0 => GimliSymbol::Code(index),
            1 => GimliSymbol::Data(index),
            _ => GimliSymbol::ExceptionTable(index),
        }
    }
}

/// One section's bytes and the relocations against them.
#[derive(Clone, Debug)]
pub struct RelocatedSection {
    /// The bytes written so far.
    pub bytes: EndianVec<LittleEndian>,
    /// Relocations recorded so far, in writing order.
    pub relocations: Vec<Relocation>,
}

impl Default for RelocatedSection {
    fn default() -> Self {
        RelocatedSection {
            bytes: EndianVec::new(LittleEndian),
            relocations: Vec::new(),
        }
    }
}

impl RelocateWriter for RelocatedSection {
    type Writer = EndianVec<LittleEndian>;

    fn writer(&self) -> &Self::Writer {
        &self.bytes
    }

    fn writer_mut(&mut self) -> &mut Self::Writer {
        &mut self.bytes
    }

    fn relocate(&mut self, relocation: Relocation) {
        self.relocations.push(relocation);
    }
}
