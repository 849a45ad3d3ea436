//! dwarfsmith-emit: the object-file side of dwarfsmith.
//!
//! It knows DWARF, ELF and x86-64 numbers and nothing of the IR: code
//! generation hands it an [`model::ObjectModel`], `write` turns that into ELF
//! bytes, `read` turns any ELF x86-64 object, executable or shared library
//! back into the same shape, and `verify` checks their invariants.
#![deny(missing_docs)]

pub mod model;
pub mod read;
pub mod verify;
pub mod write;
