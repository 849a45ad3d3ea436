//! codegen::liveness (to be written).
