//! Instructions absorbed into their only user, which reads their operands
//! instead: `icmp eq/ne/... (and a, b), 0` is `test a, b` (no `and` into a
//! register first), and with `b = shl 1, n` and `eq`/`ne` it is `bt a, n`
//! (no `shl` either); the mask of a variable shift count, `shl x, (and n,
//! 31)`, is dropped, because x86 shifts mask the count in `cl` themselves
//! (by 31, or by 63 at 64 bits), as LLVM's selection does; and `and i64
//! (lshr x, c), 2^(32-c) - 1` is a 32-bit `shr` of `x`'s copy (no `lshr`
//! at 64 bits, no `and`); `add a, (shl x, k)` (or `or disjoint`), 1 ≤ k ≤
//! 3, is `lea [a + x*2^k]` (no `shl`, as LLVM's address-mode matching
//! selects it).
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
//! which makes the shift poison anyway. For a bit test, the `shl 1, n`
//! (32 or 64 bits) has the tested `and` as its only use, in its block: `bt
//! a, n` copies bit `n mod width` of `a` into CF, which is set exactly when
//! `a & (1 << n)` is not zero for every `n` the `shl` does not make poison
//! (and a mask of `n` absorbed into the `shl` is the one `bt` applies). A
//! 32-bit `shr` writes bits 0..31 of its register and clears 32..63, so it
//! leaves `(x >> c) & (2^(32-c) - 1)`; the `lshr` has the `and` as its only
//! use, in its block. A scaled add (32 or 64 bits) has the `shl` as an
//! operand that is its only use, in its block, the other operand a
//! register; `lea` computes `a + x*2^k` modulo 2^N as the `shl` and `add`
//! (or the `or` of disjoint bits) did, but sets no flags, so an add that
//! sets a branch's flags (see [`flags`]) or updates memory in place (see
//! [`fold`]) keeps its `shl`. The operands are SSA values
//! defined before the absorbed instruction, so reading them later at the
//! user reads the same values. Decided from non-debug uses only.

use super::arith::cond_of;
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
                    self.classify_bit_test(u, lhs, rhs, uses);
                }
            }
        }
        self.classify_narrowed_shifts(uses);
    }

    /// Marks `shl x, k` (1 ≤ k ≤ 3, 32 or 64 bits) absorbed when its only
    /// use is an `add` (or `or disjoint`) of it and a register, in its
    /// block, selected where it stands: the add is `lea [a + x*2^k]` (see
    /// [`Selector::scaled_add`]). An add that sets a branch's flags or
    /// updates memory in place is left whole (a `lea` sets no flags).
    pub(super) fn classify_scaled_adds(&mut self, uses: &[u32], user: &[Option<InstId>]) {
        let f = self.f;
        for block in &f.blocks {
            for &id in &block.insts {
                let i = id.0 as usize;
                let Some((shift, _, _, _)) = self.scaled_add_parts(id) else {
                    continue;
                };
                let s = shift.0 as usize;
                if self.lowering[i] == Lowering::Normal
                    && !self.selected_by_compares.contains(&id)
                    && uses[s] == 1
                    && user[s] == Some(id)
                    && self.lowering[s] == Lowering::Normal
                    && self.inst_block[s] == self.inst_block[i]
                {
                    self.lowering[s] = Lowering::Absorbed;
                }
            }
        }
    }

    /// For `add a, (shl x, k)` or `or disjoint` of them (either order; 32
    /// or 64 bits; 1 ≤ k ≤ 3; `a` no constant): the `shl`, `a`, `x` and
    /// the scale `2^k`.
    fn scaled_add_parts(&self, id: InstId) -> Option<(InstId, &'a Value, &'a Value, u8)> {
        let f: &'a ir::Function = self.f;
        let inst = f.inst(id);
        let InstKind::Binary {
            op,
            flags,
            lhs,
            rhs,
        } = &inst.kind
        else {
            return None;
        };
        if !(*op == BinOp::Add || *op == BinOp::Or && flags.disjoint)
            || !matches!(inst.ty, Type::Int(32 | 64))
        {
            return None;
        }
        let shifted = |v: &'a Value| match v {
            Value::Inst(s) => match &f.inst(*s).kind {
                InstKind::Binary {
                    op: BinOp::Shl,
                    lhs: x,
                    rhs: k,
                    ..
                } if self.const_int(x).is_none() => match self.const_int(k) {
                    Some(k @ 1..=3) => Some((*s, x, 1u8 << k)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        let (s, a, x, scale) = match (shifted(rhs), shifted(lhs)) {
            (Some((s, x, scale)), _) => (s, lhs, x, scale),
            (None, Some((s, x, scale))) => (s, rhs, x, scale),
            _ => return None,
        };
        (self.const_int(a).is_none() && *a != Value::Inst(s)).then_some((s, a, x, scale))
    }

    /// An add whose `shl` operand was absorbed, as `lea dst, [a + x*2^k]`;
    /// false for any other instruction.
    pub(super) fn scaled_add(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let Some((shift, a, x, scale)) = self.scaled_add_parts(id) else {
            return Ok(false);
        };
        if self.lowering[shift.0 as usize] != Lowering::Absorbed {
            return Ok(false);
        }
        let dst = self.dst(id)?;
        let a = self.reg(a)?;
        let x = self.reg(x)?;
        let addr = Address {
            base: AddressBase::Reg(a),
            index: Some((x, scale)),
            disp: 0,
        };
        self.emit(match self.f.inst(id).ty {
            Type::Int(32) => K::Lea32 { dst, addr },
            _ => K::Lea { dst, addr },
        });
        Ok(true)
    }

    /// Marks `lshr x, c` absorbed when its only use is a 64-bit `and` (in
    /// its block, itself selected) with `2^(32 - c) - 1`, 0 < c < 32: the
    /// `and` keeps bits c..31 of `x`, which a 32-bit `shr` of `x` leaves
    /// zero-extended (see [`Selector::narrowed_shift`]).
    fn classify_narrowed_shifts(&mut self, uses: &[u32]) {
        let f = self.f;
        for block in &f.blocks {
            for &id in &block.insts {
                if self.lowering[id.0 as usize] != Lowering::Normal {
                    continue;
                }
                if let Some((shift, _, _)) = self.narrowing(id) {
                    let s = shift.0 as usize;
                    if uses[s] == 1
                        && self.lowering[s] == Lowering::Normal
                        && self.inst_block[s] == self.inst_block[id.0 as usize]
                    {
                        self.lowering[s] = Lowering::Absorbed;
                    }
                }
            }
        }
    }

    /// For `and i64 (lshr x, c), 2^(32 - c) - 1` (either operand order)
    /// with 0 < c < 32: the `lshr`, `x` and `c`.
    pub(super) fn narrowing(&self, id: InstId) -> Option<(InstId, &'a Value, u8)> {
        let f: &'a ir::Function = self.f;
        let inst = f.inst(id);
        let InstKind::Binary {
            op: BinOp::And,
            lhs,
            rhs,
            ..
        } = &inst.kind
        else {
            return None;
        };
        if inst.ty != Type::Int(64) {
            return None;
        }
        let (shifted, mask) = match (self.const_int(lhs), self.const_int(rhs)) {
            (None, Some(m)) => (lhs, m),
            (Some(m), None) => (rhs, m),
            _ => return None,
        };
        let Value::Inst(shift) = shifted else {
            return None;
        };
        let InstKind::Binary {
            op: BinOp::LShr,
            lhs: x,
            rhs: c,
            ..
        } = &f.inst(*shift).kind
        else {
            return None;
        };
        let c = self.const_int(c).filter(|c| (1..32).contains(c))?;
        (mask == (1i64 << (32 - c)) - 1).then_some((*shift, x, c as u8))
    }

    /// `and i64 (lshr x, c), 2^(32 - c) - 1` with the `lshr` absorbed:
    /// `mov dst, x; shr dst32, c` (a 32-bit write clears bits 32-63).
    /// False for any other instruction.
    pub(super) fn narrowed_shift(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let Some((shift, x, c)) = self.narrowing(id) else {
            return Ok(false);
        };
        if self.lowering[shift.0 as usize] != Lowering::Absorbed {
            return Ok(false);
        }
        let dst = self.dst(id)?;
        let x = self.reg(x)?;
        self.emit(K::Copy { dst, src: x });
        self.emit(K::Shift {
            op: ShiftOp::Shr,
            width: Width::W32,
            dst,
            amount: ShiftAmount::Imm(c),
        });
        Ok(true)
    }

    /// Marks `shl 1, n` absorbed when it is an operand of the `and`
    /// (of 32 or 64 bits) that compare `cmp`, an `eq` or `ne` with zero,
    /// tests: the compare becomes `bt a, n` (see [`Selector::bit_test`]).
    fn classify_bit_test(&mut self, cmp: InstId, lhs: &Value, rhs: &Value, uses: &[u32]) {
        let f = self.f;
        let InstKind::ICmp {
            pred: ICmpPred::Eq | ICmpPred::Ne,
            ..
        } = f.inst(cmp).kind
        else {
            return;
        };
        for operand in [rhs, lhs] {
            let Value::Inst(s) = operand else { continue };
            let i = s.0 as usize;
            let shift = f.inst(*s);
            let one_shifted = matches!(
                &shift.kind,
                InstKind::Binary { op: BinOp::Shl, lhs: one, rhs: n, .. }
                    if self.const_int(one) == Some(1) && self.const_int(n).is_none()
            );
            if one_shifted
                && matches!(shift.ty, Type::Int(32 | 64))
                && uses[i] == 1
                && self.lowering[i] == Lowering::Normal
                && self.inst_block[i] == self.inst_block[cmp.0 as usize]
                && lhs != rhs
            {
                self.lowering[i] = Lowering::Absorbed;
                return;
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

    /// `test a, b` (or `bt`, see [`Selector::bit_test`]) for a compare
    /// `lhs pred rhs` of an absorbed `and` with zero (the caller has put
    /// the constant on the right): the condition meaning `lhs pred rhs`.
    pub(super) fn compare_tested_and(
        &mut self,
        pred: ICmpPred,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<Option<Cond>, Diagnostic> {
        let Some((a, b)) = self.absorbed_and(lhs) else {
            return Ok(None);
        };
        if self.const_int(rhs) != Some(0) {
            return Ok(None);
        }
        let Some(width) = exact_width(self.bits_of(lhs)?) else {
            return Ok(None);
        };
        if let Some(cond) = self.bit_test(pred, width, a, b)? {
            return Ok(Some(cond));
        }
        let a = self.reg(a)?;
        let imm = self.const_int(b).and_then(|c| immediate(c, width));
        let b = match imm {
            Some(imm) => Ri::Imm(imm),
            None => Ri::Reg(self.reg(b)?),
        };
        self.emit(K::Test {
            width,
            lhs: Rm::Reg(a),
            rhs: b,
        });
        Ok(Some(cond_of(pred)))
    }

    /// `bt a, n` for `icmp eq/ne (and a, (shl 1, n)), 0` with the `shl`
    /// absorbed (either operand of the `and`): CF is bit `n` of `a`, so
    /// `eq` holds when CF is clear (`ae`) and `ne` when it is set (`b`).
    /// The register form of `bt` takes `n` modulo the width, as an
    /// absorbed mask of the count (see the module's rule) and the shift
    /// (poison for larger counts) would.
    fn bit_test(
        &mut self,
        pred: ICmpPred,
        width: Width,
        a: &Value,
        b: &Value,
    ) -> Result<Option<Cond>, Diagnostic> {
        let shifted_one = |v: &Value| match v {
            Value::Inst(id) if self.lowering[id.0 as usize] == Lowering::Absorbed => {
                match &self.f.inst(*id).kind {
                    InstKind::Binary {
                        op: BinOp::Shl,
                        rhs,
                        ..
                    } => Some(rhs),
                    _ => None,
                }
            }
            _ => None,
        };
        let (base, n) = match (shifted_one(a), shifted_one(b)) {
            (_, Some(n)) => (a, n),
            (Some(n), None) => (b, n),
            (None, None) => return Ok(None),
        };
        let cond = match pred {
            ICmpPred::Eq => Cond::Ae,
            ICmpPred::Ne => Cond::B,
            _ => return Err(self.error("internal: a bit test of an ordered compare".into())),
        };
        let base = self.reg(base)?;
        let bit = self.shift_count(n)?;
        self.emit(K::Bt { width, base, bit });
        Ok(Some(cond))
    }
}
