//! A section buffer for gimli that keeps the relocations gimli asks for.
//!
//! In: the bytes and [`gimli::write::Relocation`]s gimli produces while it
//! writes a DWARF or `.eh_frame` section.
//! Out: the section bytes (zeros where relocations go) and the relocation
//! list, which `elf` turns one to one into ELF RELA entries.

use gimli::write::{EndianVec, RelocateWriter, Relocation};
use gimli::LittleEndian;

/// gimli's symbol number for the start of code section `section` of the
/// layout (0 is `.text`): every code address the debug and unwind sections
/// hold is `section + addend`.
pub fn code_symbol(section: usize) -> usize {
    2 * section
}

/// gimli's symbol number for data object `index` of the model (the
/// address of a global variable).
pub fn data_symbol(index: usize) -> usize {
    2 * index + 1
}

/// What a gimli symbol number stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GimliSymbol {
    /// The start of code section `n` of the layout.
    Code(usize),
    /// Data object `n` of the model.
    Data(usize),
}

impl GimliSymbol {
    /// The symbol a number made by [`code_symbol`] or [`data_symbol`] names.
    pub fn of(symbol: usize) -> GimliSymbol {
        if symbol.is_multiple_of(2) {
            GimliSymbol::Code(symbol / 2)
        } else {
            GimliSymbol::Data(symbol / 2)
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
