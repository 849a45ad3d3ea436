//! codegen::frame (to be written).
