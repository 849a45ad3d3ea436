//! The integer and memory intrinsics (`llvm.smax`, `llvm.abs`,
//! `llvm.bswap`, `llvm.memcpy`, …); the floating-point ones are in
//! [`super::fp`].
//!
//! In: a call of an `llvm.*` function. Out: MIR for it, or a diagnostic
//! naming an intrinsic that is not supported.

use super::*;

impl Selector<'_> {
    pub(super) fn lower_intrinsic(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<(), Diagnostic> {
        let unsupported = || format!("unsupported intrinsic '{name}'");
        let intrinsic = Intrinsic::from_name(name).ok_or_else(|| self.error(unsupported()))?;
        let arg = |i: usize| args.get(i).map(|a| &a.value);
        match intrinsic {
            Intrinsic::LifetimeStart | Intrinsic::LifetimeEnd => Ok(()),
            Intrinsic::SMax | Intrinsic::SMin | Intrinsic::UMax | Intrinsic::UMin => {
                let (Some(a), Some(b)) = (arg(0), arg(1)) else {
                    return Err(self.error(unsupported()));
                };
                let dst = self.dst(id)?;
                let bits = self.bits_of(a)?;
                let signed = matches!(intrinsic, Intrinsic::SMax | Intrinsic::SMin);
                let ra = self.normalized(a, signed)?;
                let rb = self.normalized(b, signed)?;
                let width = container(bits);
                self.emit(K::Copy { dst, src: ra });
                self.emit(K::Cmp {
                    width,
                    lhs: Rm::Reg(ra),
                    rhs: Rmi::Reg(rb),
                });
                // Take b when a is not already the answer.
                let take_b = match intrinsic {
                    Intrinsic::SMax => Cond::L,
                    Intrinsic::SMin => Cond::G,
                    Intrinsic::UMax => Cond::B,
                    _ => Cond::A,
                };
                self.emit(K::Cmov {
                    cond: take_b,
                    width,
                    dst,
                    src: Rm::Reg(rb),
                });
                Ok(())
            }
            Intrinsic::Abs => {
                let Some(a) = arg(0) else {
                    return Err(self.error(unsupported()));
                };
                let dst = self.dst(id)?;
                let width = container(self.bits_of(a)?);
                let ra = self.normalized(a, true)?;
                self.emit(K::Copy { dst, src: ra });
                self.emit(K::Unary {
                    op: UnaryOp::Neg,
                    width,
                    dst,
                });
                // neg made it negative: the original was the absolute value.
                self.emit(K::Cmov {
                    cond: Cond::S,
                    width,
                    dst,
                    src: Rm::Reg(ra),
                });
                Ok(())
            }
            Intrinsic::Bswap => {
                let Some(a) = arg(0) else {
                    return Err(self.error(unsupported()));
                };
                let dst = self.dst(id)?;
                let bits = self.bits_of(a)?;
                let ra = self.reg(a)?;
                self.emit(K::Copy { dst, src: ra });
                match bits {
                    16 => self.emit(K::Shift {
                        op: ShiftOp::Rol,
                        width: Width::W16,
                        dst,
                        amount: ShiftAmount::Imm(8),
                    }),
                    32 | 64 => self.emit(K::Unary {
                        op: UnaryOp::Bswap,
                        width: container(bits),
                        dst,
                    }),
                    _ => return Err(self.error(unsupported())),
                }
                Ok(())
            }
            Intrinsic::Memset | Intrinsic::Memcpy | Intrinsic::Memmove => {
                let symbol = match intrinsic {
                    Intrinsic::Memset => "memset",
                    Intrinsic::Memcpy => "memcpy",
                    _ => "memmove",
                };
                // The trailing `i1 isvolatile` is not a C argument.
                let c_args = &args[..args.len().min(3)];
                let callee = Value::Const(Constant::Null);
                self.call(id, Some(symbol.to_string()), &callee, c_args, false)
            }
            Intrinsic::Ctpop
            | Intrinsic::Ctlz
            | Intrinsic::Cttz
            | Intrinsic::Fshl
            | Intrinsic::Fshr => Err(self.error(unsupported())),
        }
    }
}
