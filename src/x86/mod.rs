//! Everything that knows x86-64: registers, the SysV calling convention,
//! encoding of machine IR into bytes, and the back end's entry point
//! [`finish_function`] (register allocation → frame lowering → encoding).
//!
//! In: register names and (for [`encode`]) a fully allocated, frame-lowered
//! [`crate::codegen::mir::Function`]. Out: DWARF register numbers, ABI
//! register sets, and machine code with relocations. Nothing outside this
//! module names an x86 encoding detail.

pub mod abi;
mod codes;
pub mod disasm;
pub mod encode;
pub mod finish;
pub mod regs;

pub use finish::{finish_function, FinishError, FinishOptions, FinishedFunction};
pub use regs::{Gpr, GprSet};
