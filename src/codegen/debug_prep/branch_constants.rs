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
//! of the successor the equal edge reaches, when every predecessor of that
//! successor reaches it by such an edge saying the variable is the same
//! `C` (on each edge `X == C`, and `X` never changes; the variable keeps the
//! value until its next debug record, which a later record there, one of
//! speculated values included, still overrides). Most often the successor
//! has one predecessor; a rotated `while (x)` loop's exit has two, the
//! guard's `x == 0` and the latch's `x' == 0` (gcd's `b`, popcount's `x`
//! at their shared return).
//! Only debug records change: the code is the same with and without them.
//!
//! LLVM has no such rule (llc-19 shows such a variable only while `X`'s
//! register lives); it follows LLVM's rule that a debug value holds until
//! the variable's next one, with a constant operand where the IR proves
//! the value.

use crate::ir::hash::FxHashMap;
use crate::ir::value::Constant;
use crate::ir::{
    cfg, BlockId, DebugInfo, DebugRecord, Function, ICmpPred, InstKind, LocId, MdId, Module,
    RecordKind, Value,
};
use std::collections::hash_map::Entry;

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
    // Per successor and variable instance (variable, inlined call,
    // fragment), in the order found: the record an equal edge states there
    // and the predecessors whose equal edge states it (`None` once two
    // edges disagree on the constant).
    let mut claims: Vec<(BlockId, Option<Claim>)> = Vec::new();
    let mut claim_of: FxHashMap<ClaimKey, usize> = FxHashMap::default();
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
            (x @ (Value::Inst(_) | Value::Arg(_)), Value::Const(c))
            | (Value::Const(c), x @ (Value::Inst(_) | Value::Arg(_))) => (x, c),
            _ => continue,
        };
        if !matches!(constant, Constant::Int { .. } | Constant::Null) {
            continue;
        }
        let equal_edge = match pred {
            ICmpPred::Eq => *if_true,
            ICmpPred::Ne => *if_false,
            _ => continue,
        };
        if if_true == if_false {
            continue;
        }
        for record in records_of.get(tested).into_iter().flatten() {
            let fragment = debug.expr(record.expr).fragment();
            let at_branch = value_at_end_of(
                function,
                debug,
                &predecessors,
                BlockId(b as u32),
                record.variable,
                fragment,
            );
            if at_branch != Some(tested) {
                continue;
            }
            let from = BlockId(b as u32);
            let stated = Value::Const(constant.clone());
            let inlined_at = debug.location(record.loc).inlined_at;
            match claim_of.entry((equal_edge, record.variable, inlined_at, fragment)) {
                Entry::Occupied(at) => match &mut claims[*at.get()].1 {
                    Some(claim) if claim.record.locations[0] == stated => {
                        claim.from.push(from);
                        claim.reassigned |= matches!(tested, Value::Inst(_));
                    }
                    disagreeing => *disagreeing = None,
                },
                Entry::Vacant(at) => {
                    at.insert(claims.len());
                    let mut record = record.clone();
                    record.locations = vec![stated];
                    claims.push((
                        equal_edge,
                        Some(Claim {
                            record,
                            from: vec![from],
                            reassigned: matches!(tested, Value::Inst(_)),
                        }),
                    ));
                }
            }
        }
    }
    for (block, claim) in claims {
        let Some(claim) = claim else { continue };
        if claim.reassigned
            && predecessors[block.0 as usize]
                .iter()
                .all(|p| claim.from.contains(p))
        {
            super::insert_at_block_start(function, block, claim.record);
        }
    }
}

/// A successor block and a variable instance: variable, inlined call,
/// fragment.
type ClaimKey = (BlockId, MdId, Option<LocId>, Option<(u64, u64)>);

/// What the equal edges into one block say of one variable fragment: the
/// record stating the constant, the blocks whose edge says it, and whether
/// any of them tests a value other than a parameter's own. A parameter
/// still holding its entry value on every edge is described already (its
/// register, then `DW_OP_entry_value`), and a record would end that
/// description at the next join.
struct Claim {
    record: DebugRecord,
    from: Vec<BlockId>,
    reassigned: bool,
}

/// Each instruction's and parameter's distinct plain value records
/// (`#dbg_value(%x, var, frag)`), indexed once per function.
fn plain_records_by_value(
    function: &Function,
    debug: &DebugInfo,
) -> FxHashMap<Value, Vec<DebugRecord>> {
    let mut found: FxHashMap<Value, Vec<DebugRecord>> = FxHashMap::default();
    for block in &function.blocks {
        for &inst in &block.insts {
            for record in &function.inst(inst).records {
                let [x @ (Value::Inst(_) | Value::Arg(_))] = record.locations.as_slice() else {
                    continue;
                };
                if record.kind != RecordKind::Value || !super::is_plain(debug, record) {
                    continue;
                }
                let of_x = found.entry(x.clone()).or_default();
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
