//! IR → MIR → machine code, and the variable-location machinery.

pub mod assignment_tracking;
pub mod frame;
pub mod history;
pub mod isel;
pub mod line_table;
pub mod live_debug_values;
pub mod liveness;
pub mod mir;
pub mod regalloc;
