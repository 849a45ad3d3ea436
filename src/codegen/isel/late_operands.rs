//! Operands of a branch chain's later tests, selected at their test.
//!
//! A conditional branch on `or a, b` (or `and`) is a chain of jumps (see
//! [`control`](super::control)): the test of `a` may leave the block
//! before `b` is tested. An integer operation whose only user is `b`'s
//! compare (`icmp ugt (add x, y), z`, lz4's `matchLength + ip > limit`
//! tested after `matchLength != longest`) is selected right before that
//! compare instead of where it stands, so a path the earlier jump takes
//! does not compute it, as LLVM's machine sinking moves it into the block
//! of its use.
//!
//! In: the IR function with its branch chains and fused compares decided.
//! Out: for each such compare, the operations selected at it, in block
//! order.
//!
//! The rule: the operation is an `add`, `sub`, `mul`, `and`, `or`, `xor`
//! or shift of 8 to 64 bits (no trap, no memory access, no flags read),
//! in the branch's block, selected where it stands otherwise (no other
//! fusion claimed it), and used once, by a compare that is a later test of
//! the chain and emits its own `cmp` (it neither reads earlier flags nor
//! is selected as an ALU instruction). Its operands are SSA values, so it
//! computes the same at the test. It takes the compare's location (one
//! statement's test now). A debug value of it before its new place names
//! a register not yet written: allocation leaves it undefined, never the
//! old contents. Decided from non-debug instructions only.

use super::control::logic_shape;
use super::*;

impl Selector<'_> {
    /// Finds the operations selected at a later test of a branch chain:
    /// each compare with them, in block order.
    pub(super) fn classify_late_operands(
        &self,
        uses: &[u32],
        user: &[Option<InstId>],
    ) -> HashMap<InstId, Vec<InstId>> {
        let f = self.f;
        let mut found: HashMap<InstId, Vec<InstId>> = HashMap::new();
        for block in &f.blocks {
            let Some(&term) = block.insts.last() else {
                continue;
            };
            let InstKind::CondBr {
                cond: Value::Inst(c),
                ..
            } = &f.inst(term).kind
            else {
                continue;
            };
            let mut later = Vec::new();
            self.later_tests(*c, false, &mut later);
            for test in later {
                let InstKind::ICmp { lhs, rhs, .. } = &f.inst(test).kind else {
                    continue;
                };
                if self.lowering[test.0 as usize] != Lowering::FusedCompare
                    || self.reused_flags.contains_key(&test)
                    || self.flag_setting_subs.contains_key(&test)
                {
                    continue;
                }
                let mut ops: Vec<InstId> = [lhs, rhs]
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::Inst(x) => Some(*x),
                        _ => None,
                    })
                    .filter(|&x| {
                        let i = x.0 as usize;
                        uses[i] == 1
                            && user[i] == Some(test)
                            && self.inst_block[i] == self.inst_block[test.0 as usize]
                            && self.lowering[i] == Lowering::Normal
                            && !self.selected_by_compares.contains(&x)
                            && self.is_plain_integer_op(x)
                    })
                    .collect();
                ops.sort();
                ops.dedup();
                if !ops.is_empty() {
                    found.insert(test, ops);
                }
            }
        }
        found
    }

    /// Collects the tests of the chain `id` is part of that come after its
    /// first jump (`after`: whether one came before `id`).
    fn later_tests(&self, id: InstId, after: bool, out: &mut Vec<InstId>) {
        if self.lowering[id.0 as usize] != Lowering::BranchLogic {
            if after {
                out.push(id);
            }
            return;
        }
        let Some((_, first, second)) = logic_shape(self.f, id) else {
            return;
        };
        if let Value::Inst(a) = first {
            self.later_tests(*a, after, out);
        }
        if let Value::Inst(b) = second {
            self.later_tests(*b, true, out);
        }
    }

    /// Whether `x` is an integer `add`/`sub`/`mul`/logic/shift of 8 to 64
    /// bits: selected anywhere its operands are defined, it computes the
    /// same and touches nothing else.
    fn is_plain_integer_op(&self, x: InstId) -> bool {
        let inst = self.f.inst(x);
        matches!(inst.ty, Type::Int(8 | 16 | 32 | 64))
            && matches!(
                inst.kind,
                InstKind::Binary {
                    op: BinOp::Add
                        | BinOp::Sub
                        | BinOp::Mul
                        | BinOp::And
                        | BinOp::Or
                        | BinOp::Xor
                        | BinOp::Shl
                        | BinOp::LShr
                        | BinOp::AShr,
                    ..
                }
            )
    }

    /// Selects the operations [`Selector::classify_late_operands`] put at
    /// compare `id`, before its `cmp`.
    pub(super) fn lower_late_operands(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let Some(ops) = self.late_operands.get(&id).cloned() else {
            return Ok(());
        };
        let f = self.f;
        for x in ops {
            let InstKind::Binary { op, lhs, rhs, .. } = &f.inst(x).kind else {
                return Err(self.error("internal: a late operand is not binary".into()));
            };
            self.lower_binary(x, *op, lhs, rhs)?;
            self.lower_waiting_records(x)?;
        }
        Ok(())
    }
}
