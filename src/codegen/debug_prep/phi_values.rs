//! A phi describes a variable only where its incoming values are the
//! variable's values.
//!
//! In: a function in which a `#dbg_value` names a phi as a variable's value.
//! The optimiser may have folded later arithmetic into the phi's incoming
//! values without updating the debug value: in switch_table's `classify`,
//! `return r + 1` became a phi of `r + 1` constants still described as `r`.
//! Out: the same function where such a debug value is undefined instead
//! (gdb shows `<optimized out>` rather than a wrong value).
//!
//! The check: for each predecessor that itself says what the variable is
//! when it branches (its last `#dbg_value` of the same variable fragment),
//! the phi's incoming value from that predecessor must be that same value.
//! A predecessor that says nothing is no evidence either way. An incoming
//! `undef` or `poison` never passes: an undefined value is no location
//! (a debug value never shows a constant the source never assigned, such
//! as the 0 isel writes for an `undef` incoming value).

use crate::ir::value::Constant;
use crate::ir::{BlockId, DebugInfo, Function, InstKind, RecordKind, Type, Value};

/// Applies the check to every function of the module.
pub fn undefine_mismatched_phis(module: &mut crate::ir::Module) {
    let debug = &module.debug;
    for function in &mut module.functions {
        if !function.is_declaration() {
            check_function(function, debug);
        }
    }
}

fn check_function(function: &mut Function, debug: &DebugInfo) {
    let mut undefine = Vec::new();
    for block in &function.blocks {
        for (position, &inst) in block.insts.iter().enumerate() {
            for (index, record) in function.inst(inst).records.iter().enumerate() {
                let [Value::Inst(phi)] = record.locations.as_slice() else {
                    continue;
                };
                if record.kind != RecordKind::Value {
                    continue;
                }
                let InstKind::Phi { incoming } = &function.inst(*phi).kind else {
                    continue;
                };
                let fragment = debug.expr(record.expr).fragment();
                // An undefined incoming value is no value of the variable:
                // instruction selection writes 0 (or nothing) on that edge,
                // and the phi would show it where the source set nothing.
                let mismatched = incoming.iter().any(|(value, from)| {
                    value.is_undef_or_poison()
                        || last_value_in(function, debug, *from, record.variable, fragment)
                            .is_some_and(|known| !same_value_of_the_variable(known, value))
                });
                if mismatched {
                    undefine.push((block.insts[position], index));
                }
            }
        }
    }
    for (inst, index) in undefine {
        function.inst_mut(inst).records[index].locations =
            vec![Value::Const(Constant::Poison(Type::Ptr))];
    }
}

/// Whether `known` (a predecessor's debug value) and `incoming` (the phi's
/// value from it) give the variable the same value: the same value, or
/// integer constants of one value at different widths (`i32 0` said of
/// `selCtr` and the `i64 0` of its widened induction phi).
fn same_value_of_the_variable(known: &Value, incoming: &Value) -> bool {
    match (known, incoming) {
        (
            Value::Const(Constant::Int { value: x, .. }),
            Value::Const(Constant::Int { value: y, .. }),
        ) => x == y,
        _ => known == incoming,
    }
}

/// The value the last plain `#dbg_value` of `variable` (and `fragment`) in
/// `block` gives it, if there is one with a single location and an
/// expression that is just that location.
fn last_value_in<'f>(
    function: &'f Function,
    debug: &DebugInfo,
    block: BlockId,
    variable: crate::ir::MdId,
    fragment: Option<(u64, u64)>,
) -> Option<&'f Value> {
    let block = &function.blocks[block.0 as usize];
    let record = block
        .insts
        .iter()
        .flat_map(|&i| function.inst(i).records.iter())
        .rev()
        .find(|r| {
            r.kind == RecordKind::Value
                && r.variable == variable
                && debug.expr(r.expr).fragment() == fragment
        })?;
    let plain = super::is_plain(debug, record);
    match record.locations.as_slice() {
        [value] if plain && !value.is_undef_or_poison() => Some(value),
        _ => None,
    }
}
