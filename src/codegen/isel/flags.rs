//! Compares that share flags across a branch, as LLVM's machine CSE and
//! compare optimisation find:
//!
//! - A compare that reads the flags its block's only predecessor left: the
//!   second test of `if (a == b) ... else return a > b;`, or of `if (x !=
//!   k) { if (x < k) ... }`, is no second `cmp`.
//! - A `sub` that sets them: `if (a < b) ... else { d = a - b; ... }` is
//!   `mov d, a; sub d, b; jb` in the branch's block instead of `cmp a, b;
//!   jb` there and the `sub` after it.
//! - An `add`/`sub`/`and`/`or`/`xor` whose result the branch tests for zero
//!   (`icmp eq/ne x, 0`), selected at that test instead of where it stands:
//!   zlib's `... && --chain_length != 0` is `cmp; jae; add r, -1; jne`, not
//!   `add r, -1; cmp; jae; test r, r; jne`.
//!
//! In: the IR function with its fused compares decided. Out: the set of
//! compares that emit no `cmp` of their own, each with the orientation of
//! the `cmp` whose flags it reads, and the compares that emit the `sub`
//! instead (see [`Selector::compare_inst`]).
//!
//! The rule for both: block `S` has exactly one predecessor `P`, whose
//! terminator is a conditional branch to two different blocks on a
//! compare fused into it (no branch chain), over integers or pointers of 8,
//! 16, 32 or 64 bits. `S` has no phis and opens with the instruction in
//! question. A flag-reading compare `D` has the same two operands (in
//! either order) and is either selected where it stands (`mov r, 0; setcc
//! r`) or fused into `S`'s own conditional branch, right after it. Nothing
//! between `P`'s `cmp` and `D`'s use of the flags writes them: `P`'s `jcc`
//! and `jmp`, and whatever register allocation puts at the block boundary
//! (copies, spill stores and reloads, all `mov`s). No edge block lies
//! between (`S` has no phis), and a branch to one block twice is excluded
//! (it emits no compare). A flag-setting `sub` has the compare's operands
//! in the `cmp`'s order, neither a constant nor a folded load: `sub d, b`
//! after `mov d, a` sets every flag as `cmp a, b` does, and its result,
//! defined in `P`, is read in `S`, which `P` dominates.
//!
//! The rule for a flag-setting ALU instruction (32 or 64 bits, in the
//! branch's block): the instruction sets ZF from its result, as `cmp x, 0`
//! does, and only `eq`/`ne` are read; the carry and overflow differ, so no
//! successor may read these flags again. Selected later, it must be read
//! only after the test: by the test, by phis (on edges, after the branch)
//! and in other blocks; with a branch chain, whose earlier jumps leave
//! before the test, only on edges no earlier jump takes or in a successor
//! entered only after it. Its operands are SSA values, so it computes the
//! same there; it takes the compare's location (both are one instruction
//! now; its own line would sit inside the statements between, as
//! `count++` between `x &= x - 1` and `while (x)`). A debug value of it before its new
//! place names a register not yet written: allocation leaves it undefined,
//! never the old contents, and it is given again right after the
//! instruction (`Selector::lower_record_in_place`). Decided from non-debug
//! instructions only.

use super::arith::{cond_of, swapped};
use super::*;

impl Selector<'_> {
    /// Finds the compares that reuse their predecessor's flags; returns
    /// them, each with whether it reads the operands in the opposite order
    /// to the `cmp` that set the flags.
    pub(super) fn classify_reused_flags(&self) -> Vec<(InstId, bool)> {
        let f = self.f;
        let mut reused = Vec::new();
        for (s, pred) in self.single_predecessors() {
            let block = &f.blocks[s as usize];
            let Some(&first) = block.insts.first() else {
                continue;
            };
            let Some((_, flags)) = self.branch_flags(pred) else {
                continue;
            };
            let InstKind::ICmp { lhs, rhs, .. } = &f.inst(first).kind else {
                continue;
            };
            let selected_here = match self.lowering[first.0 as usize] {
                Lowering::Normal => true,
                Lowering::FusedCompare => block.insts.get(1).is_some_and(|&next| {
                    matches!(&f.inst(next).kind,
                        InstKind::CondBr { cond, if_true, if_false }
                            if *cond == Value::Inst(first) && if_true != if_false)
                }),
                _ => false,
            };
            if !selected_here || f.inst(first).ty != Type::Int(1) {
                continue;
            }
            if (lhs, rhs) == (flags.0, flags.1) {
                reused.push((first, false));
            } else if (lhs, rhs) == (flags.1, flags.0) {
                reused.push((first, true));
            }
        }
        reused
    }

    /// Finds the `sub`s that set their predecessor's branch flags: each
    /// with the compare it replaces.
    pub(super) fn classify_flag_setting_subs(&self) -> Vec<(InstId, InstId)> {
        let f = self.f;
        let mut found = Vec::new();
        for (s, pred) in self.single_predecessors() {
            let Some(&first) = f.blocks[s as usize].insts.first() else {
                continue;
            };
            let Some((compare, (a, b))) = self.branch_flags(pred) else {
                continue;
            };
            let InstKind::Binary {
                op: BinOp::Sub,
                lhs,
                rhs,
                ..
            } = &f.inst(first).kind
            else {
                continue;
            };
            let register = |v: &Value| match v {
                Value::Arg(_) => true,
                Value::Inst(id) => self.lowering[id.0 as usize] == Lowering::Normal,
                Value::Const(_) => false,
            };
            if (lhs, rhs) == (a, b)
                && register(a)
                && register(b)
                && matches!(f.inst(first).ty, Type::Int(8 | 16 | 32 | 64))
                && self.lowering[first.0 as usize] == Lowering::Normal
            {
                found.push((compare, first));
            }
        }
        found
    }

    /// Finds the `add`/`sub`/`and`/`or`/`xor` (of 32 or 64 bits) that the
    /// compare ending their block's branch tests for zero (`icmp eq/ne x,
    /// 0`): each with that compare, which selects it in place of a `cmp`
    /// (the instruction sets ZF from its result). Its other uses must read
    /// it after the compare: none in its block; in other blocks when the
    /// branch tests the compare alone; with a chain (whose earlier jumps
    /// leave before the compare), only phis of a successor no earlier jump
    /// goes to, on the edge from this block. No successor may read the
    /// compare's flags again (the carry and overflow differ from a `cmp`'s).
    pub(super) fn classify_flag_setting_alus(&self) -> Vec<(InstId, InstId)> {
        let f = self.f;
        let mut found = Vec::new();
        let mut preds = vec![0u32; f.blocks.len()];
        for s in self.succs.iter().flatten() {
            preds[s.0 as usize] += 1;
        }
        for (b, block) in f.blocks.iter().enumerate() {
            let Some(&term) = block.insts.last() else {
                continue;
            };
            let InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } = &f.inst(term).kind
            else {
                continue;
            };
            if if_true == if_false {
                continue;
            }
            // The compare ending the chain, and where earlier jumps go.
            let mut early = Vec::new();
            let mut v = cond;
            while let Value::Inst(id) = v {
                if self.lowering[id.0 as usize] != Lowering::BranchLogic {
                    break;
                }
                let Some((any, _, second)) = super::control::logic_shape(f, *id) else {
                    break;
                };
                early.push(if any { *if_true } else { *if_false });
                v = second;
            }
            let Value::Inst(c) = v else { continue };
            let InstKind::ICmp {
                pred: ICmpPred::Eq | ICmpPred::Ne,
                lhs,
                rhs,
            } = &f.inst(*c).kind
            else {
                continue;
            };
            let x = match (lhs, rhs) {
                (Value::Inst(x), zero) | (zero, Value::Inst(x))
                    if self.const_int(zero) == Some(0) =>
                {
                    *x
                }
                _ => continue,
            };
            let xi = x.0 as usize;
            let alu = matches!(
                f.inst(x).kind,
                InstKind::Binary {
                    op: BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor,
                    ..
                }
            );
            let reread = self.succs[b].iter().any(|s| {
                f.blocks[s.0 as usize]
                    .insts
                    .first()
                    .is_some_and(|i| self.reused_flags.contains_key(i))
            });
            if !alu
                || !matches!(f.inst(x).ty, Type::Int(32 | 64))
                || self.lowering[c.0 as usize] != Lowering::FusedCompare
                || self.lowering[xi] != Lowering::Normal
                || self.inst_block[xi] != b as u32
                || self.narrowing(x).is_some()
                || self.flag_setting_subs.contains_key(c)
                || self.flag_setting_subs.values().any(|&s| s == x)
                || reread
            {
                continue;
            }
            // A block entered only after the compare: this one's
            // successor, through no earlier jump, with no other predecessor.
            let after = |block: u32| {
                early.is_empty()
                    || self.succs[b].contains(&ir::BlockId(block))
                        && !early.contains(&ir::BlockId(block))
                        && preds[block as usize] == 1
            };
            let read_after = self.users(x).iter().all(|&u| {
                let ub = self.inst_block[u.0 as usize];
                match &f.inst(u).kind {
                    _ if u == *c => true,
                    // A phi reads on its edge (the copies go to an edge
                    // block): from this block, after the branch unless an
                    // earlier jump takes that edge.
                    InstKind::Phi { incoming } => incoming.iter().all(|(v, from)| {
                        *v != Value::Inst(x)
                            || if from.0 == b as u32 {
                                !early.contains(&ir::BlockId(ub))
                            } else {
                                after(from.0)
                            }
                    }),
                    _ => ub != b as u32 && after(ub),
                }
            });
            if read_after {
                found.push((*c, x));
            }
        }
        found
    }

    /// Each block with exactly one predecessor other than itself, with it.
    fn single_predecessors(&self) -> Vec<(u32, u32)> {
        let n = self.f.blocks.len();
        let mut preds = vec![0u32; n];
        let mut pred_of = vec![0u32; n];
        for (b, succs) in self.succs.iter().enumerate() {
            for s in succs {
                preds[s.0 as usize] += 1;
                pred_of[s.0 as usize] = b as u32;
            }
        }
        (0..n)
            .filter(|&s| preds[s] == 1 && pred_of[s] as usize != s)
            .map(|s| (s as u32, pred_of[s]))
            .collect()
    }

    /// The operands, in the order its `cmp` reads them, of the compare
    /// whose flags IR block `b`'s conditional branch leaves set, with it.
    fn branch_flags(&self, b: u32) -> Option<(InstId, (&Value, &Value))> {
        let f = self.f;
        let &last = f.blocks[b as usize].insts.last()?;
        let InstKind::CondBr {
            cond: Value::Inst(c),
            if_true,
            if_false,
        } = &f.inst(last).kind
        else {
            return None;
        };
        if if_true == if_false || self.lowering[c.0 as usize] != Lowering::FusedCompare {
            return None;
        }
        let InstKind::ICmp { lhs, rhs, .. } = &f.inst(*c).kind else {
            return None;
        };
        if !matches!(f.value_type(lhs), Type::Int(8 | 16 | 32 | 64) | Type::Ptr) {
            return None;
        }
        // The orientation `compare` gives the `cmp`: a constant goes right.
        if self.const_int(lhs).is_some() && self.const_int(rhs).is_none() {
            Some((*c, (rhs, lhs)))
        } else {
            Some((*c, (lhs, rhs)))
        }
    }

    /// The condition code of compare `id`: its predecessor's flags read
    /// again, or the flags of the `sub` selected in its place, when the
    /// module's rule says so; else a `cmp` of its own
    /// ([`Selector::compare`]).
    pub(super) fn compare_inst(&mut self, id: InstId) -> Result<Cond, Diagnostic> {
        let f = self.f;
        let InstKind::ICmp { pred, lhs, rhs } = &f.inst(id).kind else {
            return Err(self.error("internal: not a compare".into()));
        };
        self.lower_late_operands(id)?;
        if let Some(&alu) = self.flag_setting_subs.get(&id) {
            let InstKind::Binary { op, lhs, rhs, .. } = &f.inst(alu).kind else {
                return Err(self.error("internal: a flag-setting instruction is not binary".into()));
            };
            // It does the compare's work there: the compare's location.
            self.lower_binary(alu, *op, lhs, rhs)?;
            self.lower_waiting_records(alu)?;
            return Ok(cond_of(*pred));
        }
        match self.reused_flags.get(&id) {
            Some(false) => Ok(cond_of(*pred)),
            Some(true) => Ok(cond_of(swapped(*pred))),
            None => self.compare(*pred, lhs, rhs),
        }
    }
}
