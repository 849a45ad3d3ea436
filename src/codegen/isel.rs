//! codegen::isel (to be written).
