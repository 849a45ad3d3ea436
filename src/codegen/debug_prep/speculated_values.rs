//! Debug values of speculated code end with their block.
//!
//! In: a function whose optimiser moved a statement's code into the middle of
//! another statement: in str_len's loop, `p++` is computed (and `p` given
//! its new value by a `#dbg_value`) before the `while (*p)` test that decides
//! whether `p++` runs at all. Taken at face value, that debug value says `p`
//! already moved past the terminating zero when the loop exits.
//! Out: the same function with an undefined `#dbg_value` for each such
//! variable at the start of every successor of the block, so the speculated
//! value never reaches code where the statement did not run. The successor
//! may restate the variable (a phi's value in a loop header); elsewhere the
//! variable shows as optimised out rather than wrong.
//!
//! An instruction is speculated into another statement when it sits inside
//! that statement's run within its block: the located instruction before it
//! has another line, and that line comes back later in the block. This is
//! the same test the line table uses to withhold is_stmt from moved code.

use crate::codegen::line_table::inside_another_run;
use crate::ir::value::Constant;
use crate::ir::{
    cfg, BlockId, DIExpression, DebugInfo, DebugRecord, ExprOp, Function, InstId, Module,
    RecordKind, Type, Value,
};

/// Applies the rule to every function of the module.
pub fn end_speculated_values(module: &mut Module) {
    let debug = &mut module.debug;
    for function in &mut module.functions {
        if !function.is_declaration() {
            end_in_function(function, debug);
        }
    }
}

fn end_in_function(function: &mut Function, debug: &mut DebugInfo) {
    let successors = cfg::successors(function);
    let mut endings: Vec<(BlockId, DebugRecord)> = Vec::new();
    for (b, block) in function.blocks.iter().enumerate() {
        let lines: Vec<u32> = block
            .insts
            .iter()
            .map(|&i| function.inst(i).dbg.map_or(0, |l| debug.location(l).line))
            .collect();
        let speculated: Vec<InstId> = block
            .insts
            .iter()
            .enumerate()
            .filter(|&(i, _)| inside_another_run(&lines, i))
            .map(|(_, &id)| id)
            .collect();
        if speculated.is_empty() {
            continue;
        }
        for &inst in &block.insts {
            for record in &function.inst(inst).records {
                let uses_speculated = record
                    .locations
                    .iter()
                    .any(|v| matches!(v, Value::Inst(id) if speculated.contains(id)));
                if record.kind == RecordKind::Value && uses_speculated {
                    let mut ops = vec![ExprOp::Arg(0)];
                    if let Some((offset, size)) = debug.expr(record.expr).fragment() {
                        ops.push(ExprOp::Fragment { offset, size });
                    }
                    let undefined = DebugRecord {
                        kind: RecordKind::Value,
                        variable: record.variable,
                        locations: vec![Value::Const(Constant::Poison(Type::Ptr))],
                        expr: debug.intern_expr(DIExpression { ops }),
                        loc: record.loc,
                        assign: None,
                    };
                    for &succ in &successors[b] {
                        endings.push((succ, undefined.clone()));
                    }
                }
            }
        }
    }
    for (block, record) in endings {
        super::insert_at_block_start(function, block, record);
    }
}
