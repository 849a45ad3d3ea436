//! dwarfsmith: LLVM IR text in, ELF x86-64 objects with DWARF 5 out.
//!
//! The pipeline (see ARCHITECTURE.md): parse → opt → codegen → emit.

pub mod codegen;
pub mod error;
pub mod ir;
pub mod x86;
