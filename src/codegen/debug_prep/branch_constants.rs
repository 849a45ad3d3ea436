//! A variable a branch found equal to a constant is that constant past the
//! branch.
//!
//! In: a function in which a conditional branch tests `icmp eq X, C` (or
//! `ne`) of an integer or null constant `C`, and a variable's value where
//! the branch is taken is `X` (its last `#dbg_value` before the branch,
//! in the branch's block or up through blocks with one predecessor, is
//! plainly `X`). The commonest case is a counted loop's exit: `for (k = 0;
//! k < 5; k++)` leaves by `icmp eq %k.next, 5`, and `%k.next`'s register
//! is dead after the loop, so `k` would show as optimised out where the
//! source holds 5.
//! Out: the same function with `#dbg_value(C, variable)` first at the start
//! of the successor the equal edge reaches, when that successor has no
//! other predecessor (on that edge `X == C`, and `X` never changes; the
//! variable keeps the value until its next debug record, which a later
//! record there, one of speculated values included, still overrides).
//! Only debug records change: the code is the same with and without them.
//!
//! LLVM has no such rule (llc-19 shows such a variable only while `X`'s
//! register lives); it follows LLVM's rule that a debug value holds until
//! the variable's next one, with a constant operand where the IR proves
//! the value.

use crate::ir::hash::FxHashMap;
use crate::ir::value::Constant;
use crate::ir::{
    cfg, BlockId, DebugInfo, DebugRecord, Function, ICmpPred, InstId, InstKind, MdId, Module,
    RecordKind, Value,
};

/// How many blocks with one predecessor the search for a variable's value
/// at a branch climbs through.
const SEARCH_BLOCKS: usize = 8;

/// Applies the rule to every function of the module.
pub fn state_branch_constants(module: &mut Module) {
    let debug = &module.debug;
    for function in &mut module.functions {
        if !function.is_declaration() {
            state_in_function(function, debug);
        }
    }
}

fn state_in_function(function: &mut Function, debug: &DebugInfo) {
    let predecessors = cfg::predecessors(function);
    let records_of = plain_records_by_value(function, debug);
    let mut stated: Vec<(BlockId, DebugRecord)> = Vec::new();
    for (b, block) in function.blocks.iter().enumerate() {
        let Some(&branch) = block.insts.last() else {
            continue;
        };
        let InstKind::CondBr {
            cond: Value::Inst(cond),
            if_true,
            if_false,
        } = &function.inst(branch).kind
        else {
            continue;
        };
        let InstKind::ICmp { pred, lhs, rhs } = &function.inst(*cond).kind else {
            continue;
        };
        let (tested, constant) = match (lhs, rhs) {
            (x @ Value::Inst(_), Value::Const(c)) | (Value::Const(c), x @ Value::Inst(_)) => (x, c),
            _ => continue,
        };
        let Value::Inst(tested_inst) = tested else {
            continue;
        };
        if !matches!(constant, Constant::Int { .. } | Constant::Null) {
            continue;
        }
        let equal_edge = match pred {
            ICmpPred::Eq => *if_true,
            ICmpPred::Ne => *if_false,
            _ => continue,
        };
        if if_true == if_false || predecessors[equal_edge.0 as usize] != [BlockId(b as u32)] {
            continue;
        }
        for record in records_of.get(tested_inst).into_iter().flatten() {
            let fragment = debug.expr(record.expr).fragment();
            let at_branch = value_at_end_of(
                function,
                debug,
                &predecessors,
                BlockId(b as u32),
                record.variable,
                fragment,
            );
            if at_branch == Some(tested) {
                let mut constant_record = record.clone();
                constant_record.locations = vec![Value::Const(constant.clone())];
                stated.push((equal_edge, constant_record));
            }
        }
    }
    for (block, record) in stated {
        super::insert_at_block_start(function, block, record);
    }
}

/// Each instruction's distinct plain value records (`#dbg_value(%x, var,
/// frag)`), indexed once per function.
fn plain_records_by_value(
    function: &Function,
    debug: &DebugInfo,
) -> FxHashMap<InstId, Vec<DebugRecord>> {
    let mut found: FxHashMap<InstId, Vec<DebugRecord>> = FxHashMap::default();
    for block in &function.blocks {
        for &inst in &block.insts {
            for record in &function.inst(inst).records {
                let [Value::Inst(x)] = record.locations.as_slice() else {
                    continue;
                };
                if record.kind != RecordKind::Value || !super::is_plain(debug, record) {
                    continue;
                }
                let of_x = found.entry(*x).or_default();
                if !of_x
                    .iter()
                    .any(|f| f.variable == record.variable && f.expr == record.expr)
                {
                    of_x.push(record.clone());
                }
            }
        }
    }
    found
}

/// The single location the variable's (fragment's) last record before the
/// end of `block` gives it, looking through up to [`SEARCH_BLOCKS`] blocks
/// with one predecessor; `None` when it is not one plain location, when a
/// record of another part of the variable comes first, or when the search
/// reaches a join.
fn value_at_end_of<'f>(
    function: &'f Function,
    debug: &DebugInfo,
    predecessors: &[Vec<BlockId>],
    block: BlockId,
    variable: MdId,
    fragment: Option<(u64, u64)>,
) -> Option<&'f Value> {
    let mut block = block;
    for _ in 0..SEARCH_BLOCKS {
        let insts = &function.blocks[block.0 as usize].insts;
        let last = insts
            .iter()
            .rev()
            .flat_map(|&i| function.inst(i).records.iter().rev())
            .find(|r| r.kind != RecordKind::Label && r.variable == variable);
        if let Some(record) = last {
            let plain_value = record.kind == RecordKind::Value
                && record.locations.len() == 1
                && debug.expr(record.expr).fragment() == fragment
                && super::is_plain(debug, record);
            return plain_value.then(|| &record.locations[0]);
        }
        match predecessors[block.0 as usize].as_slice() {
            [only] => block = *only,
            _ => return None,
        }
    }
    None
}
