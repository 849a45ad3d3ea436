//! The debug side of instruction selection: what a MIR `DbgValue`'s opaque
//! `variable` and `expr` numbers mean.
//!
//! In: IR debug records (variable, DIExpression with explicit
//! `DW_OP_LLVM_arg`, DILocation) and, per location operand, its width and
//! any operations salvaged from folded address arithmetic. Out: a
//! [`DebugTable`] per function, interning variable keys (variable,
//! inlinedAt, fragment) and expressions already translated to the emit
//! crate's [`Op`]s. Promise: `DW_OP_LLVM_fragment` never appears in an
//! expression's ops (it is part of the key); an expression this crate
//! cannot describe in DWARF yields `None` from [`translate_expr`] and the
//! caller emits an undefined location instead.

use dwarfsmith_emit::model::Op;

use crate::ir::hash::FxHashMap;
use crate::ir::{DebugInfo, ExprOp, LocId, MdId, MdNode};

/// Which source variable (and which part of it) a debug value describes:
/// the key history ranges are computed per.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VariableKey {
    /// The DILocalVariable.
    pub variable: MdId,
    /// The inlined-at location of the record's DILocation (`None` when the
    /// variable belongs to the function itself).
    pub inlined_at: Option<LocId>,
    /// `DW_OP_LLVM_fragment` (offset, size) in bits, if the value describes
    /// only part of the variable.
    pub fragment: Option<(u64, u64)>,
}

/// The width and signedness of one location operand's value (what a
/// `DW_OP_regval_type` base type says).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArgType {
    /// Width of the value in bits (1 to 64).
    pub bits: u16,
    /// Whether the variable's type is signed.
    pub signed: bool,
    /// Whether the operand is a `float` or `double` (its register is an
    /// xmm register; DWARF arithmetic over it would need a floating-point
    /// base type).
    pub float: bool,
}

/// A translated expression over a debug value's operands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DebugExpr {
    /// The operations, `Op::Arg(n)` naming operand `n`; no fragment.
    pub ops: Vec<Op>,
    /// Per operand: the type of its value.
    pub args: Vec<ArgType>,
}

/// What the `variable` and `expr` numbers of a function's `DbgValue`s mean.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugTable {
    /// Indexed by `DbgValue::variable`.
    pub variables: Vec<VariableKey>,
    /// Indexed by `DbgValue::expr`.
    pub exprs: Vec<DebugExpr>,
    variable_index: FxHashMap<VariableKey, u32>,
    expr_index: FxHashMap<DebugExpr, u32>,
}

impl DebugTable {
    /// The number for a variable key, adding it if new.
    pub fn intern_variable(&mut self, key: VariableKey) -> u32 {
        *self.variable_index.entry(key).or_insert_with(|| {
            self.variables.push(key);
            self.variables.len() as u32 - 1
        })
    }

    /// The number for an expression, adding it if new.
    pub fn intern_expr(&mut self, expr: DebugExpr) -> u32 {
        if let Some(&n) = self.expr_index.get(&expr) {
            return n;
        }
        self.exprs.push(expr.clone());
        let n = self.exprs.len() as u32 - 1;
        self.expr_index.insert(expr, n);
        n
    }
}

/// A DIExpression in emit terms, its fragment taken out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Translated {
    /// The operations (no fragment).
    pub ops: Vec<Op>,
    /// `DW_OP_LLVM_fragment` (offset, size) in bits, if present.
    pub fragment: Option<(u64, u64)>,
}

/// Translates a normalised DIExpression to emit ops, dropping the fragment
/// (returned separately) and inserting `salvage[n]` after every
/// `DW_OP_LLVM_arg n`. When anything was salvaged into an expression that
/// had no `DW_OP_stack_value`, one is appended: the result is a computed
/// value, no longer a location. `None` for operations DWARF-lowering does
/// not support (entry values, unknown operations).
pub fn translate_expr(ops: &[ExprOp], salvage: &[Vec<Op>]) -> Option<Translated> {
    let mut out = Vec::with_capacity(ops.len() + 1);
    let mut fragment = None;
    let mut salvaged = false;
    for op in ops {
        out.push(match op {
            ExprOp::Arg(n) => {
                out.push(Op::Arg(*n));
                if let Some(extra) = salvage.get(*n as usize) {
                    salvaged |= !extra.is_empty();
                    out.extend_from_slice(extra);
                }
                continue;
            }
            ExprOp::Constu(v) => Op::Constu(*v),
            ExprOp::Consts(v) => Op::Consts(*v),
            ExprOp::PlusUconst(v) => Op::PlusUconst(*v),
            ExprOp::Plus => Op::Plus,
            ExprOp::Minus => Op::Minus,
            ExprOp::Mul => Op::Mul,
            ExprOp::Div => Op::Div,
            ExprOp::Mod => Op::Mod,
            ExprOp::And => Op::And,
            ExprOp::Or => Op::Or,
            ExprOp::Xor => Op::Xor,
            ExprOp::Shl => Op::Shl,
            ExprOp::Shr => Op::Shr,
            ExprOp::Shra => Op::Shra,
            ExprOp::Neg => Op::Neg,
            ExprOp::Not => Op::Not,
            ExprOp::Deref => Op::Deref,
            ExprOp::DerefSize(n) => Op::DerefSize(*n),
            ExprOp::StackValue => Op::StackValue,
            ExprOp::Convert { bits, signed } => Op::Convert {
                bits: u16::try_from(*bits).ok()?,
                signed: *signed,
            },
            ExprOp::Fragment { offset, size } => {
                fragment = Some((*offset, *size));
                continue;
            }
            ExprOp::EntryValue(_) | ExprOp::Other { .. } => return None,
        });
    }
    if salvaged && !out.contains(&Op::StackValue) {
        out.push(Op::StackValue);
    }
    Some(Translated { ops: out, fragment })
}

/// Whether a variable's type is signed: follows typedefs, qualifiers and
/// enums down to a base type and reads its encoding (pointers and unknown
/// types are unsigned).
pub fn variable_is_signed(debug: &DebugInfo, variable: MdId) -> bool {
    let mut ty = debug.variable(variable).and_then(|v| v.ty);
    // Type chains are short; the bound guards against a malformed cycle.
    for _ in 0..64 {
        let Some(id) = ty else { return false };
        match debug.node(id) {
            MdNode::BasicType(b) => {
                return matches!(
                    b.encoding.as_deref(),
                    Some("DW_ATE_signed" | "DW_ATE_signed_char")
                )
            }
            MdNode::DerivedType(d) if d.tag != "DW_TAG_pointer_type" => ty = d.base_type,
            MdNode::CompositeType(c) if c.tag == "DW_TAG_enumeration_type" => ty = c.base_type,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_leaves_the_ops_and_salvage_adds_stack_value() {
        let ops = [
            ExprOp::Arg(0),
            ExprOp::Fragment {
                offset: 32,
                size: 32,
            },
        ];
        let t = |ops: Vec<Op>, fragment| Some(Translated { ops, fragment });
        assert_eq!(
            translate_expr(&ops, &[vec![]]),
            t(vec![Op::Arg(0)], Some((32, 32)))
        );
        assert_eq!(
            translate_expr(&ops, &[vec![Op::PlusUconst(8)]]),
            t(
                vec![Op::Arg(0), Op::PlusUconst(8), Op::StackValue],
                Some((32, 32))
            )
        );
        let two = [
            ExprOp::Arg(0),
            ExprOp::Arg(1),
            ExprOp::Minus,
            ExprOp::StackValue,
        ];
        assert_eq!(
            translate_expr(&two, &[vec![], vec![Op::Consts(-4), Op::Plus]]),
            t(
                vec![
                    Op::Arg(0),
                    Op::Arg(1),
                    Op::Consts(-4),
                    Op::Plus,
                    Op::Minus,
                    Op::StackValue
                ],
                None
            )
        );
        assert_eq!(
            translate_expr(&[ExprOp::Arg(0), ExprOp::EntryValue(1)], &[vec![]]),
            None
        );
    }
}
