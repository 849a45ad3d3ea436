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

impl VariableKey {
    /// Whether `other` describes the same variable instance with bits in
    /// common (itself, the whole variable, or an overlapping fragment).
    pub fn overlaps(&self, other: &VariableKey) -> bool {
        if self.variable != other.variable || self.inlined_at != other.inlined_at {
            return false;
        }
        match (self.fragment, other.fragment) {
            (Some((a, a_size)), Some((b, b_size))) => a < b + b_size && b < a + a_size,
            _ => true,
        }
    }
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

    /// By variable number: the numbers of the keys it overlaps
    /// ([`VariableKey::overlaps`]), itself included, ascending. A debug value
    /// of one ends the locations of all of them. A variable's keys are few
    /// (its fragments), so this is found once per function.
    pub fn overlapping_variables(&self) -> Vec<Vec<u32>> {
        let mut by_variable: FxHashMap<(MdId, Option<LocId>), Vec<u32>> = FxHashMap::default();
        for (k, key) in self.variables.iter().enumerate() {
            by_variable
                .entry((key.variable, key.inlined_at))
                .or_default()
                .push(k as u32);
        }
        self.variables
            .iter()
            .map(|key| {
                by_variable[&(key.variable, key.inlined_at)]
                    .iter()
                    .copied()
                    .filter(|&k| self.variables[k as usize].overlaps(key))
                    .collect()
            })
            .collect()
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
/// value, no longer a location. `args` gives each operand's type.
///
/// A comparison whose result depends on signedness (`lt`, `gt`, `le`,
/// `ge`) takes it from its constant operand, as LLVM salvages an `icmp`
/// (`DW_OP_consts` for a signed predicate, `DW_OP_constu` for an unsigned
/// one): the value compared is converted to that signedness in its own
/// width when its type says otherwise, since typed values compare in their
/// type's signedness. An ordered comparison without such a constant, or
/// over a value of no known width, says nothing of its signedness.
///
/// `None` for what DWARF-lowering does not support: entry values, unknown
/// operations, comparisons of unknown signedness.
pub fn translate_expr(ops: &[ExprOp], salvage: &[Vec<Op>], args: &[ArgType]) -> Option<Translated> {
    let mut out = Vec::with_capacity(ops.len() + 1);
    let mut fragment = None;
    let mut salvaged = false;
    for (at, op) in ops.iter().enumerate() {
        let translated = match op {
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
            ExprOp::Lit(v) => Op::Constu(u64::from(*v)),
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
            ExprOp::Compare(comparison) if comparison.is_ordered() => {
                // The constant operand, as written and as translated.
                let signed = match (at.checked_sub(1).map(|i| &ops[i]), out.last()) {
                    (Some(ExprOp::Consts(_)), Some(Op::Consts(_))) => true,
                    (Some(ExprOp::Constu(_)), Some(Op::Constu(_))) => false,
                    _ => return None,
                };
                let constant_at = out.len() - 1;
                let (bits, own_signedness) = operand_types(&out[..constant_at], args).pop()??;
                if own_signedness != signed {
                    out.insert(constant_at, Op::Convert { bits, signed });
                }
                Op::Compare(*comparison)
            }
            ExprOp::Compare(comparison) => Op::Compare(*comparison),
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
        };
        out.push(translated);
    }
    if salvaged && !out.contains(&Op::StackValue) {
        out.push(Op::StackValue);
    }
    Some(Translated { ops: out, fragment })
}

/// The types (width in bits, signedness) of the values `ops` leaves on the
/// DWARF stack, as emit's typed lowering gives them (write/ops.rs):
/// registers in their operand's type, loads in the first register's
/// signedness, a binary operation in its lower operand's type; `None` for
/// generic values (constants on their own, comparisons' results).
fn operand_types(ops: &[Op], args: &[ArgType]) -> Vec<Option<(u16, bool)>> {
    let arg_type = |n: u32| args.get(n as usize).map(|a| (a.bits, a.signed && !a.float));
    let load_signed = ops
        .iter()
        .find_map(|op| match op {
            Op::Arg(n) => arg_type(*n).map(|(_, signed)| signed),
            _ => None,
        })
        .unwrap_or(false);
    let mut stack: Vec<Option<(u16, bool)>> = Vec::new();
    for op in ops {
        match op {
            Op::Arg(n) => stack.push(arg_type(*n)),
            Op::Constu(_) | Op::Consts(_) => stack.push(stack.last().copied().flatten()),
            Op::Compare(_) => {
                stack.pop();
                stack.pop();
                stack.push(None);
            }
            Op::Deref => {
                stack.pop();
                stack.push(Some((64, load_signed)));
            }
            Op::DerefSize(n) => {
                stack.pop();
                stack.push(Some((u16::from(*n) * 8, load_signed)));
            }
            Op::Convert { bits, signed } => {
                stack.pop();
                stack.push(Some((*bits, *signed)));
            }
            // Unary operations keep the type; binary ones leave the lower
            // operand's.
            op => {
                if op.is_binary_arithmetic() {
                    stack.pop();
                }
            }
        }
    }
    stack
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

    const INT: ArgType = ArgType {
        bits: 32,
        signed: true,
        float: false,
    };

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
            translate_expr(&ops, &[vec![]], &[INT]),
            t(vec![Op::Arg(0)], Some((32, 32)))
        );
        assert_eq!(
            translate_expr(&ops, &[vec![Op::PlusUconst(8)]], &[INT]),
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
            translate_expr(&two, &[vec![], vec![Op::Consts(-4), Op::Plus]], &[INT, INT]),
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
            translate_expr(&[ExprOp::Arg(0), ExprOp::EntryValue(1)], &[vec![]], &[INT]),
            None
        );
    }

    #[test]
    fn ordered_comparisons_take_their_signedness_from_the_constant() {
        use dwarfsmith_emit::model::Comparison::{Eq, Gt, Lt};
        let tail = [
            ExprOp::Convert {
                bits: 1,
                signed: false,
            },
            ExprOp::StackValue,
        ];
        let with = |head: &[ExprOp]| [head, &tail[..]].concat();
        let ops = |t: Option<Translated>| t.map(|t| t.ops);
        let unsigned = ArgType {
            signed: false,
            ..INT
        };
        let converted = |signed| Op::Convert { bits: 32, signed };
        let tail_ops = [
            Op::Convert {
                bits: 1,
                signed: false,
            },
            Op::StackValue,
        ];
        // A signed constant over a signed value: compared as it is.
        let signed_lt = with(&[ExprOp::Arg(0), ExprOp::Consts(0), ExprOp::Compare(Lt)]);
        assert_eq!(
            ops(translate_expr(&signed_lt, &[vec![]], &[INT])),
            Some([&[Op::Arg(0), Op::Consts(0), Op::Compare(Lt)][..], &tail_ops].concat())
        );
        // ... over an unsigned one: the value is read as signed first.
        assert_eq!(
            ops(translate_expr(&signed_lt, &[vec![]], &[unsigned])),
            Some(
                [
                    &[Op::Arg(0), converted(true), Op::Consts(0), Op::Compare(Lt)][..],
                    &tail_ops
                ]
                .concat()
            )
        );
        // An unsigned constant after a salvaged addition, over a signed value.
        let unsigned_gt = with(&[ExprOp::Arg(0), ExprOp::Constu(7), ExprOp::Compare(Gt)]);
        assert_eq!(
            ops(translate_expr(
                &unsigned_gt,
                &[vec![Op::PlusUconst(1)]],
                &[INT]
            )),
            Some(
                [
                    &[
                        Op::Arg(0),
                        Op::PlusUconst(1),
                        converted(false),
                        Op::Constu(7),
                        Op::Compare(Gt)
                    ][..],
                    &tail_ops
                ]
                .concat()
            )
        );
        // Equality needs no signedness; a literal is a constant.
        let eq = with(&[ExprOp::Arg(0), ExprOp::Lit(0), ExprOp::Compare(Eq)]);
        assert_eq!(
            ops(translate_expr(&eq, &[vec![]], &[INT])),
            Some([&[Op::Arg(0), Op::Constu(0), Op::Compare(Eq)][..], &tail_ops].concat())
        );
        // Two values, or a literal: the predicate's signedness is lost.
        let two = with(&[ExprOp::Arg(0), ExprOp::Arg(1), ExprOp::Compare(Lt)]);
        assert_eq!(translate_expr(&two, &[vec![], vec![]], &[INT, INT]), None);
        let literal = with(&[ExprOp::Arg(0), ExprOp::Lit(3), ExprOp::Compare(Lt)]);
        assert_eq!(translate_expr(&literal, &[vec![]], &[INT]), None);
    }
}
