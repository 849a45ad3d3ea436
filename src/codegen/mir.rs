//! codegen::mir (to be written).
