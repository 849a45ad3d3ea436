//! Everything that knows x86-64: registers of both classes, the SysV
//! calling convention, and encoding of machine IR into bytes (and back, for
//! tests).
//!
//! In: register names and (for [`encode`]) a fully allocated, frame-lowered
//! [`crate::codegen::mir::Function`]. Out: DWARF register numbers, ABI
//! register sets, and machine code with relocations. Nothing outside this
//! module names an x86 encoding detail; the pipeline that drives allocation,
//! frame lowering and encoding is [`crate::codegen::pipeline`].

pub mod abi;
mod codes;
pub mod disasm;
pub mod encode;
pub mod inline_asm;
pub mod regs;

pub use regs::{Gpr, GprSet, PhysReg, RegClass, RegSet, Xmm};
