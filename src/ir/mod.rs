//! The SSA IR, shaped like LLVM's, with its debug metadata.

pub mod print;
pub mod verify;
