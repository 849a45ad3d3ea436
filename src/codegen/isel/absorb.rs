//! Instructions absorbed into their only user, which reads their operands
//! instead: `icmp eq/ne/... (and a, b), 0` is `test a, b` (no `and` into a
//! register first), and the mask of a variable shift count, `shl x, (and n,
//! 31)`, is dropped, because x86 shifts mask the count in `cl` themselves
//! (by 31, or by 63 at 64 bits), as LLVM's selection does.
//!
//! In: the IR function and its use counts. Out: instructions marked
//! [`Lowering::Absorbed`], which emit nothing at their position; their user
//! reads the operands ([`Selector::compare`], [`Selector::shift_count`]).
//!
//! The rule: the absorbed instruction is a scalar integer `and` with
//! exactly one non-debug use, in its user's block. For a test, the user is
//! an `i1` integer compare of it with zero, of 8, 16, 32 or 64 bits: `test
//! a, b` sets ZF and SF from `a & b` and clears CF and OF, which is what
//! `cmp (a & b), 0` leaves, so every predicate reads the same flags. For a
//! shift count, the user is a scalar shift of at most 64 bits whose count
//! it is, and its constant mask keeps every bit the hardware keeps (31, or
//! 63 for a 64-bit shift): the count's bits the hardware reads are then
//! the same, and a count the mask would have changed is at least the width,
//! which makes the shift poison anyway. The operands are SSA values
//! defined before the absorbed instruction, so reading them later at the
//! user reads the same values. Decided from non-debug uses only.

use super::*;

impl<'a> Selector<'a> {
    /// Marks the `and`s that compares test and that shift counts mask.
    pub(super) fn classify_absorbed(&mut self, uses: &[u32], user: &[Option<InstId>]) {
        let f = self.f;
        for block in &f.blocks {
            for &id in &block.insts {
                let inst = f.inst(id);
                let i = id.0 as usize;
                let InstKind::Binary {
                    op: BinOp::And,
                    lhs,
                    rhs,
                    ..
                } = &inst.kind
                else {
                    continue;
                };
                let Type::Int(bits) = inst.ty else {
                    continue;
                };
                let Some(u) = user[i].filter(|_| uses[i] == 1) else {
                    continue;
                };
                if self.lowering[i] != Lowering::Normal
                    || self.inst_block[u.0 as usize] != self.inst_block[i]
                {
                    continue;
                }
                let absorbed = match &f.inst(u).kind {
                    InstKind::ICmp { lhs: a, rhs: b, .. } => {
                        f.inst(u).ty == Type::Int(1)
                            && exact_width(bits).is_some()
                            && ((*a == Value::Inst(id) && self.const_int(b) == Some(0))
                                || (*b == Value::Inst(id) && self.const_int(a) == Some(0)))
                    }
                    InstKind::Binary {
                        op: BinOp::Shl | BinOp::LShr | BinOp::AShr,
                        lhs: shifted,
                        rhs: count,
                        ..
                    } => {
                        let hardware = if bits > 32 { 63 } else { 31 };
                        let mask = self.const_int(rhs).or_else(|| self.const_int(lhs));
                        bits <= 64
                            && *count == Value::Inst(id)
                            && *shifted != Value::Inst(id)
                            && f.inst(u).ty == inst.ty
                            && mask.is_some_and(|m| m & hardware == hardware)
                    }
                    _ => false,
                };
                if absorbed {
                    self.lowering[i] = Lowering::Absorbed;
                }
            }
        }
    }

    /// The operands of an absorbed `and`, the constant (if any) second.
    pub(super) fn absorbed_and(&self, v: &Value) -> Option<(&'a Value, &'a Value)> {
        let f: &'a ir::Function = self.f;
        let Value::Inst(id) = v else {
            return None;
        };
        if self.lowering[id.0 as usize] != Lowering::Absorbed {
            return None;
        }
        match &f.inst(*id).kind {
            InstKind::Binary {
                op: BinOp::And,
                lhs,
                rhs,
                ..
            } if self.const_int(lhs).is_some() => Some((rhs, lhs)),
            InstKind::Binary {
                op: BinOp::And,
                lhs,
                rhs,
                ..
            } => Some((lhs, rhs)),
            _ => None,
        }
    }

    /// The register holding a variable shift count: a masked count's
    /// unmasked value when the mask was absorbed.
    pub(super) fn shift_count(&mut self, count: &Value) -> Result<Reg, Diagnostic> {
        match self.absorbed_and(count) {
            Some((n, _)) => self.reg(n),
            None => self.reg(count),
        }
    }

    /// `test a, b` for a compare of an absorbed `and` with zero (the
    /// caller has put the constant on the right): the flags of `cmp (a &
    /// b), 0`.
    pub(super) fn compare_tested_and(
        &mut self,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<bool, Diagnostic> {
        let Some((a, b)) = self.absorbed_and(lhs) else {
            return Ok(false);
        };
        if self.const_int(rhs) != Some(0) {
            return Ok(false);
        }
        let Some(width) = exact_width(self.bits_of(lhs)?) else {
            return Ok(false);
        };
        let a = self.reg(a)?;
        // The immediate as the instruction's width reads it (sign-extended
        // from 32 bits at 64).
        let imm = self.const_int(b).and_then(|c| match width {
            Width::W8 => Some(i32::from(c as i8)),
            Width::W16 => Some(i32::from(c as i16)),
            Width::W32 => Some(c as i32),
            Width::W64 => i32::try_from(c).ok(),
        });
        let b = match imm {
            Some(imm) => Ri::Imm(imm),
            None => Ri::Reg(self.reg(b)?),
        };
        self.emit(K::Test {
            width,
            lhs: Rm::Reg(a),
            rhs: b,
        });
        Ok(true)
    }
}
