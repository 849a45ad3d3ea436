//! Arithmetic on integers of 65 to 128 bits over register pairs.
//!
//! In: `add`, `sub`, `mul`, `and`, `or`, `xor`, `shl`, `lshr`, `ashr`,
//! `udiv`, `sdiv`, `urem`, `srem` of `i65`..`i128`, `icmp` of such
//! operands, `zext`/`sext` to and `trunc` from them, and
//! `llvm.{s,u}{min,max}.i128`. Out: MIR over the value's two leaves (low
//! 64 bits first, see [`super::aggregate`]).
//!
//! Rules: a width below 128 (clang gives `i72`, `i96`... to packed bitfield
//! storage) keeps the selector's rule for narrow values: the high leaf's
//! bits above the width are unspecified, so right shifts, division,
//! compares and extensions first extend the high leaf from the value's top
//! bit (zero or sign, as the operation reads it); the other operations
//! never carry those bits down. Beyond that, every width computes as
//! `i128`: add/sub carry through `adc`/`sbb`; `mul` is one widening `mul`
//! of the low halves plus two `imul` cross products; a shift by a variable
//! amount shifts both halves by the amount modulo 64, moves the bits that
//! cross between them with a double shift (`(x >> 1) >> (63 - n)`, exact
//! for n = 0), and a `cmov` on bit 6 of the amount handles amounts of 64
//! and more; ordered compares subtract through `cmp`/`sbb` and read the
//! flags; division and remainder call libgcc's `__divti3`, `__udivti3`,
//! `__modti3`, `__umodti3` (pairs in rdi:rsi and rdx:rcx, the result in
//! rax:rdx).

use super::*;
use crate::codegen::mir::UnaryOp;

/// Whether values of `ty` are integers held in two 64-bit leaves.
pub(super) fn is_wide_int(ty: &Type) -> bool {
    matches!(ty, Type::Int(65..=128))
}

impl Selector<'_> {
    /// The two leaves of the wide integer `v`, the high one extended
    /// (`signed` or not) from the value's top bit, so that all 128 bits
    /// mean what the value means.
    fn wide_extended(&mut self, v: &Value, signed: bool) -> Result<[Reg; 2], Diagnostic> {
        let leaves = self.leaves(v)?;
        let hi = match self.f.value_type(v) {
            Type::Int(bits) if bits < 128 => self.extend(leaves[1], bits - 64, Width::W64, signed),
            _ => leaves[1],
        };
        Ok([leaves[0], hi])
    }

    /// Selects `id` if it computes on a wide integer; `false` otherwise.
    pub(super) fn lower_wide(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let inst = self.f.inst(id);
        match &inst.kind {
            InstKind::Binary { op, lhs, rhs, .. } if is_wide_int(&inst.ty) => {
                self.lower_wide_binary(id, *op, lhs, rhs)?
            }
            InstKind::Cast {
                op: op @ (CastOp::ZExt | CastOp::SExt),
                value,
                ..
            } if is_wide_int(&inst.ty) && is_wide_int(&self.f.value_type(value)) => {
                let extended = self.wide_extended(value, *op == CastOp::SExt)?;
                self.define_leaves(id, &extended)?;
            }
            InstKind::Cast {
                op: op @ (CastOp::ZExt | CastOp::SExt),
                value,
                ..
            } if is_wide_int(&inst.ty) => {
                let bits = self.bits_of(value)?;
                let r = self.reg(value)?;
                let signed = *op == CastOp::SExt;
                let lo = self.extend(r, bits, Width::W64, signed);
                let lo = self.copied(lo);
                let hi = self.vreg(Width::W64);
                if signed {
                    self.emit(K::Copy { dst: hi, src: lo });
                    self.shift64(ShiftOp::Sar, hi, 63);
                } else {
                    self.emit(K::MovImm {
                        dst: hi,
                        imm: 0,
                        width: Width::W32,
                    });
                }
                self.define_leaves(id, &[lo, hi])?;
            }
            InstKind::Cast {
                op: CastOp::Trunc,
                value,
                ..
            } if is_wide_int(&self.f.value_type(value)) => {
                let halves = self.leaves(value)?;
                if is_wide_int(&inst.ty) {
                    self.define_leaves(id, &halves)?;
                } else {
                    let dst = self.dst(id)?;
                    self.emit(K::Copy {
                        dst,
                        src: halves[0],
                    });
                }
            }
            InstKind::Cast { op, value, .. }
                if is_wide_int(&inst.ty) || is_wide_int(&self.f.value_type(value)) =>
            {
                let wide = match &inst.ty {
                    ty if is_wide_int(ty) => ty.clone(),
                    _ => self.f.value_type(value),
                };
                return Err(self.error(format!(
                    "unsupported instruction '{}' of {}",
                    op.name(),
                    type_name(self.module, &wide)
                )));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A fresh copy of `r` (so that in-place operations leave `r` alone).
    fn copied(&mut self, r: Reg) -> Reg {
        let t = self.vreg(Width::W64);
        self.emit(K::Copy { dst: t, src: r });
        t
    }

    fn shift64(&mut self, op: ShiftOp, dst: Reg, n: u8) {
        if n == 0 {
            return;
        }
        self.emit(K::Shift {
            op,
            width: Width::W64,
            dst,
            amount: ShiftAmount::Imm(n),
        });
    }

    fn alu64(&mut self, op: AluOp, dst: Reg, src: Reg) {
        self.emit(K::Alu {
            op,
            width: Width::W64,
            dst,
            src: Rmi::Reg(src),
        });
    }

    fn lower_wide_binary(
        &mut self,
        id: InstId,
        op: BinOp,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        // Which operands must have their high leaves extended, and how.
        let (lhs_extended, rhs_extended) = match op {
            BinOp::LShr | BinOp::UDiv | BinOp::URem => (Some(false), Some(false)),
            BinOp::AShr => (Some(true), None),
            BinOp::SDiv | BinOp::SRem => (Some(true), Some(true)),
            _ => (None, None),
        };
        let a = match lhs_extended {
            Some(signed) => self.wide_extended(lhs, signed)?.to_vec(),
            None => self.leaves(lhs)?,
        };
        let b = match rhs_extended {
            Some(signed) => self.wide_extended(rhs, signed)?.to_vec(),
            None => self.leaves(rhs)?,
        };
        let (lo, hi) = (self.copied(a[0]), self.copied(a[1]));
        match op {
            BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor => {
                let (low_op, high_op) = match op {
                    BinOp::Add => (AluOp::Add, AluOp::Adc),
                    BinOp::Sub => (AluOp::Sub, AluOp::Sbb),
                    BinOp::And => (AluOp::And, AluOp::And),
                    BinOp::Or => (AluOp::Or, AluOp::Or),
                    _ => (AluOp::Xor, AluOp::Xor),
                };
                self.alu64(low_op, lo, b[0]);
                self.alu64(high_op, hi, b[1]);
            }
            BinOp::Mul => {
                // lo*lo (128 bits) + (lo_a*hi_b + hi_a*lo_b) << 64.
                self.emit(K::Imul {
                    width: Width::W64,
                    dst: hi,
                    src: Rm::Reg(b[0]),
                });
                let cross = self.copied(a[0]);
                self.emit(K::Imul {
                    width: Width::W64,
                    dst: cross,
                    src: Rm::Reg(b[1]),
                });
                self.alu64(AluOp::Add, hi, cross);
                self.emit(K::Copy {
                    dst: Reg::from(Gpr::Rax),
                    src: a[0],
                });
                self.emit(K::MulWide {
                    width: Width::W64,
                    src: Rm::Reg(b[0]),
                });
                self.emit(K::Copy {
                    dst: lo,
                    src: Reg::from(Gpr::Rax),
                });
                self.alu64(AluOp::Add, hi, Reg::from(Gpr::Rdx));
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => match self.const_int_128(rhs) {
                Some(n) => self.shift_wide_by_constant(op, lo, hi, n),
                None => self.shift_wide(op, lo, hi, b[0]),
            },
            BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem => {
                let symbol = match op {
                    BinOp::UDiv => "__udivti3",
                    BinOp::SDiv => "__divti3",
                    BinOp::URem => "__umodti3",
                    _ => "__modti3",
                };
                let places = [Gpr::Rdi, Gpr::Rsi, Gpr::Rdx, Gpr::Rcx];
                for (&g, &r) in places.iter().zip(a.iter().chain(&b)) {
                    self.emit(K::Copy {
                        dst: Reg::from(g),
                        src: r,
                    });
                }
                self.emit(K::Call {
                    target: CallTarget::Symbol(symbol.into()),
                    args: places.iter().map(|&g| g.into()).collect(),
                    rets: vec![Gpr::Rax.into(), Gpr::Rdx.into()],
                    clobbers: CALLER_SAVED,
                    unwind: None,
                });
                self.emit(K::Copy {
                    dst: lo,
                    src: Reg::from(Gpr::Rax),
                });
                self.emit(K::Copy {
                    dst: hi,
                    src: Reg::from(Gpr::Rdx),
                });
            }
        }
        self.define_leaves(id, &[lo, hi])
    }

    /// The low 7 bits of a constant shift amount of type `i128`.
    fn const_int_128(&self, v: &Value) -> Option<u8> {
        match v {
            Value::Const(Constant::Int { value, .. }) => Some((*value & 127) as u8),
            _ => None,
        }
    }

    fn shift_wide_by_constant(&mut self, op: BinOp, lo: Reg, hi: Reg, n: u8) {
        if n == 0 {
            return;
        }
        match op {
            BinOp::Shl if n >= 64 => {
                self.emit(K::Copy { dst: hi, src: lo });
                self.shift64(ShiftOp::Shl, hi, n - 64);
                self.zero64(lo);
            }
            BinOp::Shl => {
                let carried = self.copied(lo);
                self.shift64(ShiftOp::Shr, carried, 64 - n);
                self.shift64(ShiftOp::Shl, hi, n);
                self.alu64(AluOp::Or, hi, carried);
                self.shift64(ShiftOp::Shl, lo, n);
            }
            _ if n >= 64 => {
                let arithmetic = op == BinOp::AShr;
                let kind = if arithmetic {
                    ShiftOp::Sar
                } else {
                    ShiftOp::Shr
                };
                self.emit(K::Copy { dst: lo, src: hi });
                self.shift64(kind, lo, n - 64);
                if arithmetic {
                    self.shift64(ShiftOp::Sar, hi, 63);
                } else {
                    self.zero64(hi);
                }
            }
            _ => {
                let kind = if op == BinOp::AShr {
                    ShiftOp::Sar
                } else {
                    ShiftOp::Shr
                };
                let carried = self.copied(hi);
                self.shift64(ShiftOp::Shl, carried, 64 - n);
                self.shift64(ShiftOp::Shr, lo, n);
                self.alu64(AluOp::Or, lo, carried);
                self.shift64(kind, hi, n);
            }
        }
    }

    fn zero64(&mut self, r: Reg) {
        self.emit(K::MovImm {
            dst: r,
            imm: 0,
            width: Width::W32,
        });
    }

    /// `r op= cl` with `amount` copied into rcx first.
    fn shift_by(&mut self, op: ShiftOp, r: Reg, amount: Reg) {
        self.emit(K::Copy {
            dst: Reg::from(Gpr::Rcx),
            src: amount,
        });
        self.emit(K::Shift {
            op,
            width: Width::W64,
            dst: r,
            amount: ShiftAmount::Cl,
        });
    }

    fn shift_wide(&mut self, op: BinOp, lo: Reg, hi: Reg, amount: Reg) {
        let n = self.copied(amount);
        // 63 - (n mod 64) is (!n mod 64).
        let inverse = self.copied(n);
        self.emit(K::Unary {
            op: UnaryOp::Not,
            width: Width::W64,
            dst: inverse,
        });
        let (near, far) = if op == BinOp::Shl { (lo, hi) } else { (hi, lo) };
        let (toward, across) = match op {
            BinOp::Shl => (ShiftOp::Shl, ShiftOp::Shr),
            _ => (ShiftOp::Shr, ShiftOp::Shl),
        };
        let inner = if op == BinOp::Shl {
            ShiftOp::Shl
        } else {
            ShiftOp::Shr
        };
        // The bits crossing from `near` into `far`.
        let carried = self.copied(near);
        self.shift64(across, carried, 1);
        self.shift_by(across, carried, inverse);
        self.shift_by(toward, far, n);
        self.alu64(AluOp::Or, far, carried);
        // `near` shifted within itself; for n >= 64 it moves into `far`.
        let shifted = self.copied(near);
        let kind = if op == BinOp::AShr {
            ShiftOp::Sar
        } else {
            inner
        };
        self.shift_by(kind, shifted, n);
        let fill = self.vreg(Width::W64);
        if op == BinOp::AShr {
            self.emit(K::Copy {
                dst: fill,
                src: near,
            });
            self.shift64(ShiftOp::Sar, fill, 63);
        } else {
            self.zero64(fill);
        }
        self.emit(K::Copy {
            dst: near,
            src: shifted,
        });
        self.emit(K::Test {
            width: Width::W32,
            lhs: Rm::Reg(n),
            rhs: Ri::Imm(64),
        });
        self.emit(K::Cmov {
            cond: Cond::Ne,
            width: Width::W64,
            dst: far,
            src: Rm::Reg(shifted),
        });
        self.emit(K::Cmov {
            cond: Cond::Ne,
            width: Width::W64,
            dst: near,
            src: Rm::Reg(fill),
        });
    }

    /// Compares two wide integers, returning the condition meaning
    /// `lhs pred rhs` in the flags.
    pub(super) fn wide_compare(
        &mut self,
        pred: ICmpPred,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<Cond, Diagnostic> {
        let signed = matches!(
            pred,
            ICmpPred::Slt | ICmpPred::Sle | ICmpPred::Sgt | ICmpPred::Sge
        );
        let a = self.wide_extended(lhs, signed)?;
        let b = self.wide_extended(rhs, signed)?;
        if matches!(pred, ICmpPred::Eq | ICmpPred::Ne) {
            let lo = self.copied(a[0]);
            self.alu64(AluOp::Xor, lo, b[0]);
            let hi = self.copied(a[1]);
            self.alu64(AluOp::Xor, hi, b[1]);
            self.alu64(AluOp::Or, lo, hi);
            return Ok(if pred == ICmpPred::Eq {
                Cond::E
            } else {
                Cond::Ne
            });
        }
        // x < y (or >=) from the borrow and sign of x - y.
        let (swap, cond) = match pred {
            ICmpPred::Ult => (false, Cond::B),
            ICmpPred::Uge => (false, Cond::Ae),
            ICmpPred::Ugt => (true, Cond::B),
            ICmpPred::Ule => (true, Cond::Ae),
            ICmpPred::Slt => (false, Cond::L),
            ICmpPred::Sge => (false, Cond::Ge),
            ICmpPred::Sgt => (true, Cond::L),
            _ => (true, Cond::Ge),
        };
        let (x, y) = if swap { (b, a) } else { (a, b) };
        let hi = self.copied(x[1]);
        self.emit(K::Cmp {
            width: Width::W64,
            lhs: Rm::Reg(x[0]),
            rhs: Rmi::Reg(y[0]),
        });
        self.alu64(AluOp::Sbb, hi, y[1]);
        Ok(cond)
    }

    /// `llvm.{s,u}{min,max}.i128`: a wide compare and two `cmov`s;
    /// `false` for any other intrinsic.
    pub(super) fn lower_wide_intrinsic(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<bool, Diagnostic> {
        let pred = match name {
            "llvm.smax.i128" => ICmpPred::Sgt,
            "llvm.smin.i128" => ICmpPred::Slt,
            "llvm.umax.i128" => ICmpPred::Ugt,
            "llvm.umin.i128" => ICmpPred::Ult,
            _ => return Ok(false),
        };
        let [a, b] = args else {
            return Err(self.error(format!("'{name}' takes two arguments")));
        };
        let x = self.leaves(&a.value)?;
        let y = self.leaves(&b.value)?;
        let (lo, hi) = (self.copied(y[0]), self.copied(y[1]));
        let cond = self.wide_compare(pred, &a.value, &b.value)?;
        for (dst, src) in [(lo, x[0]), (hi, x[1])] {
            self.emit(K::Cmov {
                cond,
                width: Width::W64,
                dst,
                src: Rm::Reg(src),
            });
        }
        self.define_leaves(id, &[lo, hi])?;
        Ok(true)
    }
}
