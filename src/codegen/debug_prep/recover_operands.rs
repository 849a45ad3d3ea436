//! Dead debug operands recovered from the values computed from them.
//!
//! In: a function whose debug value names an operand that no instruction
//! reads after the record, so the register allocator may reuse its register
//! and the location would be lost. In arith_temps' `offsets`,
//! `diff = a - b` is described over `(a, b)` right after `b - a` was computed
//! into `b`'s register.
//! Out: the same function where such an operand `v` is replaced by the
//! instruction that last read it, when that instruction is a two-address
//! operation with `v` as its destination (x86 computes it in `v`'s register)
//! that can be undone and whose result is still read later:
//! `v = (v - w) + w` for `sub v, w`, and `v = (v + w) - w` for `add v, w`. The expression gains the
//! inverse operation (and `DW_OP_stack_value`, now that it computes a value),
//! the argument list gains `w`. Arithmetic wraps in the operands' width, so
//! the recovered value is exact. No instruction changes: code is identical
//! with and without debug info.

use crate::ir::value::Constant;
use crate::ir::{BinOp, DIExpression, DebugInfo, ExprOp, Function, InstId, InstKind, Value};

/// Applies the rewrite to every function of the module.
pub fn recover_dead_operands(module: &mut crate::ir::Module) {
    let debug = &mut module.debug;
    for function in &mut module.functions {
        if !function.is_declaration() {
            recover_in_function(function, debug);
        }
    }
}

fn recover_in_function(function: &mut Function, debug: &mut DebugInfo) {
    // No instruction changes below, so the reads are indexed once.
    let reads = Reads::index(function);
    for b in 0..function.blocks.len() {
        let insts = function.blocks[b].insts.clone();
        for (position, &inst) in insts.iter().enumerate() {
            for r in 0..function.inst(inst).records.len() {
                let record = &function.inst(inst).records[r];
                let mut locations = record.locations.clone();
                let mut ops = debug.expr(record.expr).ops.clone();
                let mut changed = false;
                for k in 0..locations.len() {
                    let dead = locations[k].clone();
                    if !matches!(dead, Value::Inst(_) | Value::Arg(_))
                        || reads.read_after(b, position, &dead)
                    {
                        continue;
                    }
                    let Some((consumer, other, inverse)) =
                        consumer_of(function, &insts[..position], &dead)
                    else {
                        continue;
                    };
                    if !reads.read_after(b, position, &Value::Inst(consumer)) {
                        continue;
                    }
                    locations[k] = Value::Inst(consumer);
                    let extra: Vec<ExprOp> =
                        match other {
                            Value::Const(Constant::Int { value, .. }) => {
                                vec![ExprOp::Consts(value as i64), inverse]
                            }
                            Value::Const(_) => continue,
                            other => {
                                let m = locations.iter().position(|l| *l == other).unwrap_or_else(
                                    || {
                                        locations.push(other.clone());
                                        locations.len() - 1
                                    },
                                );
                                vec![ExprOp::Arg(m as u32), inverse]
                            }
                        };
                    ops = ops
                        .into_iter()
                        .flat_map(|op| match op {
                            ExprOp::Arg(n) if n as usize == k => {
                                let mut out = vec![ExprOp::Arg(n)];
                                out.extend(extra.iter().cloned());
                                out
                            }
                            op => vec![op],
                        })
                        .collect();
                    changed = true;
                }
                if changed {
                    if !ops.contains(&ExprOp::StackValue) {
                        let at = ops
                            .iter()
                            .position(|op| matches!(op, ExprOp::Fragment { .. }))
                            .unwrap_or(ops.len());
                        ops.insert(at, ExprOp::StackValue);
                    }
                    let expr = debug.intern_expr(DIExpression { ops });
                    let record = &mut function.inst_mut(inst).records[r];
                    record.locations = locations;
                    record.expr = expr;
                }
            }
        }
    }
}

/// Where each instruction result and argument is read: per value, each
/// block reading it with the last position in that block that does.
struct Reads {
    /// By instruction id: `(block, last position)` pairs.
    insts: Vec<Vec<(usize, usize)>>,
    /// By argument number: `(block, last position)` pairs.
    args: Vec<Vec<(usize, usize)>>,
}

impl Reads {
    fn index(function: &Function) -> Reads {
        let mut reads = Reads {
            insts: vec![Vec::new(); function.insts.len()],
            args: vec![Vec::new(); function.params.len()],
        };
        for (b, block) in function.blocks.iter().enumerate() {
            for (position, &inst) in block.insts.iter().enumerate() {
                for operand in function.inst(inst).operands() {
                    let Some(entries) = reads.entries_mut(operand) else {
                        continue;
                    };
                    match entries.last_mut() {
                        Some((last_block, last)) if *last_block == b => *last = position,
                        _ => entries.push((b, position)),
                    }
                }
            }
        }
        reads
    }

    fn entries_mut(&mut self, value: &Value) -> Option<&mut Vec<(usize, usize)>> {
        match value {
            Value::Inst(id) => self.insts.get_mut(id.0 as usize),
            Value::Arg(n) => self.args.get_mut(*n as usize),
            Value::Const(_) => None,
        }
    }

    /// Whether any instruction of block `block` from `position` on, or of
    /// any other block, reads `value`.
    fn read_after(&self, block: usize, position: usize, value: &Value) -> bool {
        let entries = match value {
            Value::Inst(id) => self.insts.get(id.0 as usize),
            Value::Arg(n) => self.args.get(*n as usize),
            Value::Const(_) => None,
        };
        entries.is_some_and(|entries| {
            entries
                .iter()
                .any(|&(b, last)| b != block || last >= position)
        })
    }
}

/// The last instruction before the record that reads `dead`, when it is
/// a two-address operation that took `dead` as its destination (so its
/// result overwrote `dead`'s register) and can be undone: (the instruction,
/// its other operand, the operation that undoes it).
fn consumer_of(
    function: &Function,
    before: &[InstId],
    dead: &Value,
) -> Option<(InstId, Value, ExprOp)> {
    let last = *before
        .iter()
        .rev()
        .find(|&&i| function.inst(i).operands().contains(&dead))?;
    let InstKind::Binary { op, lhs, rhs, .. } = &function.inst(last).kind else {
        return None;
    };
    match op {
        BinOp::Sub if lhs == dead && rhs != dead => Some((last, rhs.clone(), ExprOp::Plus)),
        BinOp::Add if lhs == dead && rhs != dead => Some((last, rhs.clone(), ExprOp::Minus)),
        _ => None,
    }
}
