//! Debug records made true to the source before instruction selection.
//!
//! In: a verified module as the optimiser left it. Out: the same module
//! whose debug records (never its instructions: code is identical with and
//! without debug info) say only what holds in the source:
//! - [`assignment_tracking`]: `#dbg_assign` lowered to memory or value
//!   locations by a dataflow over the blocks;
//! - [`phi_values`]: a phi described as a variable only where its incoming
//!   values are that variable's values;
//! - [`speculated_values`]: a debug value of code speculated into another
//!   statement ends with its block;
//! - [`recover_operands`]: an operand whose register the next instruction
//!   overwrites is recovered from that instruction's result.

pub mod assignment_tracking;
pub mod phi_values;
pub mod recover_operands;
pub mod speculated_values;

use crate::ir::Module;

/// Runs every rewrite above, in order.
pub fn prepare(module: &mut Module) {
    assignment_tracking::lower_module(module);
    phi_values::undefine_mismatched_phis(module);
    speculated_values::end_speculated_values(module);
    recover_operands::recover_dead_operands(module);
}
