//! codegen::line_table (to be written).
