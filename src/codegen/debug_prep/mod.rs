//! Debug records made true to the source before instruction selection.
//!
//! In: a verified module as the optimiser left it. Out: the same module
//! whose debug records (never its instructions: code is identical with and
//! without debug info) say only what holds in the source:
//! - [`assignment_tracking`]: `#dbg_assign` lowered to memory or value
//!   locations by a dataflow over the blocks;
//! - [`dangling_values`]: a debug value of an instruction its block defines
//!   later takes effect at that definition;
//! - [`phi_values`]: a phi described as a variable only where its incoming
//!   values are that variable's values;
//! - [`speculated_values`]: a debug value of code speculated into another
//!   statement ends with its block;
//! - [`recover_operands`]: an operand whose register the next instruction
//!   overwrites is recovered from that instruction's result;
//! - [`branch_constants`]: a variable a branch found equal to a constant is
//!   that constant where the equal edge leads (after the speculated-value
//!   endings, so that an ended value is not stated again).

pub mod assignment_tracking;
pub mod branch_constants;
pub mod dangling_values;
pub mod phi_values;
pub mod recover_operands;
pub mod speculated_values;

use crate::ir::{BlockId, DebugInfo, DebugRecord, ExprOp, Function, InstKind, Module};

/// Runs every rewrite above, in order.
pub fn prepare(module: &mut Module) {
    assignment_tracking::lower_module(module);
    dangling_values::resolve_dangling_values(module);
    phi_values::undefine_mismatched_phis(module);
    speculated_values::end_speculated_values(module);
    recover_operands::recover_dead_operands(module);
    branch_constants::state_branch_constants(module);
}

/// Puts `record` first among the debug records at the start of `block`
/// (on its first instruction after the phis), so that the block's own
/// records still override it; a record already there is not added twice.
fn insert_at_block_start(function: &mut Function, block: BlockId, record: DebugRecord) {
    let Some(&first) = function.blocks[block.0 as usize]
        .insts
        .iter()
        .find(|&&i| !matches!(function.inst(i).kind, InstKind::Phi { .. }))
    else {
        return;
    };
    let records = &mut function.inst_mut(first).records;
    if !records.contains(&record) {
        records.insert(0, record);
    }
}

/// Whether the record's expression is just its one location (and a
/// fragment): the record says the variable is that value.
fn is_plain(debug: &DebugInfo, record: &DebugRecord) -> bool {
    debug
        .expr(record.expr)
        .ops
        .iter()
        .filter(|op| !matches!(op, ExprOp::Fragment { .. }))
        .eq([ExprOp::Arg(0)].iter())
}
