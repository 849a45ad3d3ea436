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
//! and branches only to the phi's block, the phi's incoming value from
//! that predecessor must be that same value. A predecessor that says
//! nothing is no evidence either way, nor one that also branches elsewhere:
//! the optimiser drops the records of an empty block it removes from a
//! critical edge (bzip2's `for (i = 0; ...)` right after another loop over
//! `i`: the old loop's latch says `i` is 16, and the `i = 0` between the
//! loops went with the block that held it; the new loop's phi starts at 0). An incoming
//! `undef` or `poison` never passes: an undefined value is no location
//! (a debug value never shows a constant the source never assigned, such
//! as the 0 isel writes for an `undef` incoming value).

use crate::ir::value::Constant;
use crate::ir::{cfg, BlockId, CastOp, DebugInfo, Function, InstKind, RecordKind, Type, Value};
use crate::opt::debug_update::variable_size_bits;

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
    // Computed at the first debug value of a phi (most functions have none).
    let successors = std::cell::OnceCell::new();
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
                let bits = fragment
                    .map(|(_, size)| size)
                    .or_else(|| variable_size_bits(debug, record.variable));
                let successors = successors.get_or_init(|| cfg::successors(function));
                // An undefined incoming value is no value of the variable:
                // instruction selection writes 0 (or nothing) on that edge,
                // and the phi would show it where the source set nothing.
                let mismatched = incoming.iter().any(|(value, from)| {
                    value.is_undef_or_poison()
                        || (successors[from.0 as usize].len() == 1
                            && last_value_in(function, debug, *from, record.variable, fragment)
                                .is_some_and(|known| {
                                    !same_value_of_the_variable(function, bits, known, value)
                                }))
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
/// value from it) give the variable (of `bits`) the same value: the same
/// value; integer constants of one value at different widths (`i32 0` said
/// of `selCtr` and the `i64 0` of its widened induction phi); or `known`
/// zero- or sign-extended to the phi's width, when the variable is no wider
/// than `known` (bzip2's `nPart` is `i32 %n` in the preheader and the
/// widened phi starts at `zext nneg i32 %n to i64`: its low 32 bits are
/// `%n`).
fn same_value_of_the_variable(
    function: &Function,
    bits: Option<u64>,
    known: &Value,
    incoming: &Value,
) -> bool {
    match (known, incoming) {
        (
            Value::Const(Constant::Int { value: x, .. }),
            Value::Const(Constant::Int { value: y, .. }),
        ) => x == y,
        (_, Value::Inst(cast)) if known != incoming => match &function.inst(*cast).kind {
            InstKind::Cast {
                op: CastOp::ZExt | CastOp::SExt,
                value,
                ..
            } => {
                value == known
                    && bits.is_some_and(|bits| {
                        function
                            .value_type(known)
                            .int_bits()
                            .is_some_and(|w| bits <= w as u64)
                    })
            }
            _ => false,
        },
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
