//! codegen::regalloc (to be written).
