//! Integer arithmetic, casts, compares and conditions.
//!
//! In: IR integer instructions. Out: two-address MIR over general-purpose
//! virtual registers; narrow values are extended only where their upper
//! bits are looked at.

use super::*;

/// The x86 condition of an integer predicate.
pub(super) fn cond_of(pred: ICmpPred) -> Cond {
    match pred {
        ICmpPred::Eq => Cond::E,
        ICmpPred::Ne => Cond::Ne,
        ICmpPred::Ugt => Cond::A,
        ICmpPred::Uge => Cond::Ae,
        ICmpPred::Ult => Cond::B,
        ICmpPred::Ule => Cond::Be,
        ICmpPred::Sgt => Cond::G,
        ICmpPred::Sge => Cond::Ge,
        ICmpPred::Slt => Cond::L,
        ICmpPred::Sle => Cond::Le,
    }
}

/// The predicate with its operands swapped (`a < b` ⇔ `b > a`).
pub(super) fn swapped(pred: ICmpPred) -> ICmpPred {
    match pred {
        ICmpPred::Eq | ICmpPred::Ne => pred,
        ICmpPred::Ugt => ICmpPred::Ult,
        ICmpPred::Uge => ICmpPred::Ule,
        ICmpPred::Ult => ICmpPred::Ugt,
        ICmpPred::Ule => ICmpPred::Uge,
        ICmpPred::Sgt => ICmpPred::Slt,
        ICmpPred::Sge => ICmpPred::Sle,
        ICmpPred::Slt => ICmpPred::Sgt,
        ICmpPred::Sle => ICmpPred::Sge,
    }
}

pub(super) fn is_signed(pred: ICmpPred) -> bool {
    matches!(
        pred,
        ICmpPred::Sgt | ICmpPred::Sge | ICmpPred::Slt | ICmpPred::Sle
    )
}

impl Selector<'_> {
    /// `dst = a OP b` for sdiv/udiv/srem/urem at `width`: the dividend in
    /// rax (sign- or zero-extended into rdx), `div`/`idiv`, the quotient or
    /// remainder copied out.
    pub(super) fn divide(&mut self, op: BinOp, width: Width, a: Reg, b: Reg, dst: Reg) {
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        self.emit(K::Copy {
            dst: Reg::from(Gpr::Rax),
            src: a,
        });
        if signed {
            self.emit(K::SignExtendAx { width });
        } else {
            self.emit(K::MovImm {
                dst: Reg::from(Gpr::Rdx),
                imm: 0,
                width: Width::W32,
            });
        }
        self.emit(K::Div {
            signed,
            width,
            divisor: Rm::Reg(b),
        });
        let result = if matches!(op, BinOp::SDiv | BinOp::UDiv) {
            Gpr::Rax
        } else {
            Gpr::Rdx
        };
        self.emit(K::Copy {
            dst,
            src: Reg::from(result),
        });
    }

    /// `reg` (an integer of `bits` bits with unspecified upper bits)
    /// extended to fill `to`; returns `reg` itself when it already does.
    pub(super) fn extend(&mut self, reg: Reg, bits: u32, to: Width, signed: bool) -> Reg {
        if bits == to.bits() {
            return reg;
        }
        let dst = self.vreg(to);
        if let Some(from) = exact_width(bits) {
            self.emit(K::Extend {
                dst,
                src: Rm::Reg(reg),
                from,
                to,
                signed,
            });
            return dst;
        }
        self.emit(K::Copy { dst, src: reg });
        if !signed && bits < 32 {
            self.emit(K::Alu {
                op: AluOp::And,
                width: Width::W32,
                dst,
                src: Rmi::Imm(((1u32 << bits) - 1) as i32),
            });
        } else {
            let shift = (to.bits() - bits) as u8;
            self.emit(K::Shift {
                op: ShiftOp::Shl,
                width: to,
                dst,
                amount: ShiftAmount::Imm(shift),
            });
            self.emit(K::Shift {
                op: if signed { ShiftOp::Sar } else { ShiftOp::Shr },
                width: to,
                dst,
                amount: ShiftAmount::Imm(shift),
            });
        }
        dst
    }

    /// A value extended to its container width.
    pub(super) fn normalized(&mut self, v: &Value, signed: bool) -> Result<Reg, Diagnostic> {
        let bits = self.bits_of(v)?;
        let r = self.reg(v)?;
        if !signed && self.is_zero_extended(v) {
            return Ok(r);
        }
        Ok(self.extend(r, bits, container(bits), signed))
    }

    /// Whether `v`'s register already holds it zero-extended to 64 bits:
    /// an integer compare selected into its own register (`mov r32, 0`
    /// then `setcc`) or a non-atomic `i8`/`i16` load (selected as `movzx
    /// r32`), so
    /// its zero extension to any width is the register itself.
    pub(super) fn is_zero_extended(&self, v: &Value) -> bool {
        let Value::Inst(id) = v else {
            return false;
        };
        if self.lowering[id.0 as usize] != Lowering::Normal {
            return false;
        }
        let inst = self.f.inst(*id);
        match &inst.kind {
            InstKind::ICmp { .. } => inst.ty == Type::Int(1),
            InstKind::Load { atomic: None, .. } => matches!(inst.ty, Type::Int(8 | 16)),
            _ => false,
        }
    }

    pub(super) fn lower_binary(
        &mut self,
        id: InstId,
        op: BinOp,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let bits = self.bits_of(lhs)?;
        let width = container(bits);
        let commutative = matches!(
            op,
            BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
        );
        let (lhs, rhs) = if commutative && self.const_int(lhs).is_some() {
            (rhs, lhs)
        } else {
            (lhs, rhs)
        };
        if let Some(mut alu_op) = alu_op(op) {
            if self.narrowed_shift(id)? || self.scaled_add(id)? {
                return Ok(());
            }
            // `or disjoint` sets no bit both operands set: it adds them,
            // and an `add` the peephole may turn into a `lea` (ZF, all a
            // test of it reads, is the same).
            if matches!(&self.f.inst(id).kind, InstKind::Binary { flags, .. } if flags.disjoint)
                && op == BinOp::Or
            {
                alu_op = AluOp::Add;
            }
            let a = self.reg(lhs)?;
            let b = self.rmi(rhs)?;
            self.emit(K::Copy { dst, src: a });
            self.emit(K::Alu {
                op: alu_op,
                width,
                dst,
                src: b,
            });
            return Ok(());
        }
        match op {
            BinOp::Mul => {
                let a = self.reg(lhs)?;
                match self.const_int(rhs).and_then(|c| i32::try_from(c).ok()) {
                    Some(imm) => self.emit(K::ImulImm {
                        width,
                        dst,
                        src: Rm::Reg(a),
                        imm,
                    }),
                    None => {
                        let b = self.reg(rhs)?;
                        self.emit(K::Copy { dst, src: a });
                        self.emit(K::Imul {
                            width,
                            dst,
                            src: Rm::Reg(b),
                        });
                    }
                }
                Ok(())
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let a = match op {
                    BinOp::Shl => self.reg(lhs)?,
                    _ => self.normalized(lhs, op == BinOp::AShr)?,
                };
                let shift = match op {
                    BinOp::Shl => ShiftOp::Shl,
                    BinOp::LShr => ShiftOp::Shr,
                    _ => ShiftOp::Sar,
                };
                let count = match self.const_int(rhs) {
                    Some(c) => Err((c as u64 & u64::from(width.bits() - 1)) as u8),
                    None => Ok(self.shift_count(rhs)?),
                };
                self.emit(K::Copy { dst, src: a });
                let amount = match count {
                    Err(imm) => ShiftAmount::Imm(imm),
                    Ok(count) => {
                        self.emit(K::Copy {
                            dst: Reg::from(Gpr::Rcx),
                            src: count,
                        });
                        ShiftAmount::Cl
                    }
                };
                self.emit(K::Shift {
                    op: shift,
                    width,
                    dst,
                    amount,
                });
                Ok(())
            }
            BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem => {
                let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
                let a = self.normalized(lhs, signed)?;
                let b = self.normalized(rhs, signed)?;
                self.divide(op, width, a, b, dst);
                Ok(())
            }
            _ => Err(self.error(format!("unsupported instruction '{}'", op.name()))),
        }
    }

    pub(super) fn lower_cast(
        &mut self,
        id: InstId,
        op: CastOp,
        value: &Value,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let to_bits = self.bits_of_type(&self.f.inst(id).ty)?;
        let from_bits = self.bits_of(value)?;
        let src = self.reg(value)?;
        let signed = match op {
            CastOp::ZExt | CastOp::IntToPtr if from_bits < to_bits => false,
            CastOp::SExt => true,
            _ => {
                self.emit(K::Copy { dst, src });
                return Ok(());
            }
        };
        let to = container(to_bits);
        if !signed && self.is_zero_extended(value) {
            self.emit(K::Copy { dst, src });
            return Ok(());
        }
        match exact_width(from_bits) {
            // One movzx/movsx straight into the result.
            Some(from) if from < to => self.emit(K::Extend {
                dst,
                src: Rm::Reg(src),
                from,
                to,
                signed,
            }),
            _ => {
                let result = self.extend(src, from_bits, to, signed);
                self.emit(K::Copy { dst, src: result });
            }
        }
        Ok(())
    }

    /// Emits a compare of two integers and returns the condition that holds
    /// when `lhs pred rhs`.
    pub(super) fn compare(
        &mut self,
        pred: ICmpPred,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<Cond, Diagnostic> {
        if wide::is_wide_int(&self.f.value_type(lhs)) {
            return self.wide_compare(pred, lhs, rhs);
        }
        let (pred, lhs, rhs) = if self.const_int(lhs).is_some() && self.const_int(rhs).is_none() {
            (swapped(pred), rhs, lhs)
        } else {
            (pred, lhs, rhs)
        };
        if let Some(cond) = self.compare_tested_and(pred, lhs, rhs)? {
            return Ok(cond);
        }
        let bits = self.bits_of(lhs)?;
        if let Some(flags) = self.compare_memory(pred, lhs, rhs, bits)? {
            return Ok(flags);
        }
        let (a, width) = match exact_width(bits) {
            Some(w) => (self.reg(lhs)?, w),
            None => (self.normalized(lhs, is_signed(pred))?, container(bits)),
        };
        let b = match self.const_int(rhs) {
            Some(c) if i32::try_from(c).is_ok() => {
                let c = if exact_width(bits).is_none() && !is_signed(pred) {
                    // The normalised left side is zero-extended: so is the constant.
                    Constant::int(bits, i128::from(c)).zext_value().unwrap_or(0) as i64
                } else {
                    c
                };
                match i32::try_from(c) {
                    Ok(imm) => Rmi::Imm(imm),
                    Err(_) => Rmi::Reg(self.normalized(rhs, false)?),
                }
            }
            _ if exact_width(bits).is_some() => Rmi::Reg(self.reg(rhs)?),
            _ => Rmi::Reg(self.normalized(rhs, is_signed(pred))?),
        };
        self.emit(K::Cmp {
            width,
            lhs: Rm::Reg(a),
            rhs: b,
        });
        Ok(cond_of(pred))
    }

    /// The compare of [`Selector::compare`] when one operand is a load
    /// folded into it (see [`fold`]): `cmp a, [mem]` or `cmp [mem], b`.
    fn compare_memory(
        &mut self,
        pred: ICmpPred,
        lhs: &Value,
        rhs: &Value,
        bits: u32,
    ) -> Result<Option<Cond>, Diagnostic> {
        let folded = |v: &Value| match v {
            Value::Inst(id) if self.lowering[id.0 as usize] == Lowering::FoldedLoad => {
                match &self.f.inst(*id).kind {
                    InstKind::Load { ptr, .. } => Some(ptr),
                    _ => None,
                }
            }
            _ => None,
        };
        let Some(width) = exact_width(bits) else {
            return Ok(None);
        };
        if let Some(ptr) = folded(rhs) {
            let a = self.reg(lhs)?;
            let addr = self.address(ptr)?;
            self.emit(K::Cmp {
                width,
                lhs: Rm::Reg(a),
                rhs: Rmi::Mem(addr),
            });
            return Ok(Some(cond_of(pred)));
        }
        if let Some(ptr) = folded(lhs) {
            let b = match self.const_int(rhs).and_then(|c| i32::try_from(c).ok()) {
                Some(imm) => Rmi::Imm(imm),
                None => Rmi::Reg(self.reg(rhs)?),
            };
            let addr = self.address(ptr)?;
            self.emit(K::Cmp {
                width,
                lhs: Rm::Mem(addr),
                rhs: b,
            });
            return Ok(Some(cond_of(pred)));
        }
        Ok(None)
    }

    /// Sets the flags from an `i1` condition and returns the condition code
    /// meaning "true": a fused compare, or a test of the value's low bit.
    /// A fused compare keeps its own source line (the `if`'s), as LLVM's
    /// selection does; one without a line takes its user's.
    pub(super) fn condition(&mut self, cond: &Value) -> Result<Cond, Diagnostic> {
        if let Value::Inst(id) = cond {
            if self.lowering[id.0 as usize] == Lowering::FusedCompare {
                let icmp = self.f.inst(*id);
                let user_loc = self.loc;
                if icmp
                    .dbg
                    .is_some_and(|l| self.module.debug.location(l).line != 0)
                {
                    self.loc = mir_loc(icmp.dbg);
                }
                let flags = self.compare_inst(*id);
                if self.holding_for == Some(*id) {
                    self.release_held_records()?;
                }
                self.loc = user_loc;
                return flags;
            }
        }
        let r = self.reg(cond)?;
        self.emit(K::Test {
            width: Width::W8,
            lhs: Rm::Reg(r),
            rhs: Ri::Imm(1),
        });
        Ok(Cond::Ne)
    }
}
