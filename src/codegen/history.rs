//! codegen::history (to be written).
