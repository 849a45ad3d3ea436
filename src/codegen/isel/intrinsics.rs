//! Instruction selection for the scalar integer intrinsics.
//!
//! In: calls of `llvm.*` integer intrinsics (min/max, `abs`, `bswap`,
//! `bitreverse`, `ctpop`/`ctlz`/`cttz`, `fshl`/`fshr`, `*.with.overflow`,
//! `*.sat`, `expect`, `assume`, `load.relative`, `stacksave`/`stackrestore`,
//! `trap`/`debugtrap`, `prefetch`, `objectsize`, `is.constant`,
//! `returnaddress`, `frameaddress`, `memcpy`/`memset`/`memmove`, lifetime
//! markers). Out: MIR over general-purpose virtual registers.
//!
//! Rules it follows:
//! - Only baseline x86-64 instructions: `ctlz`/`cttz` are `bsr`/`bsf` with a
//!   `cmov` for a zero input, `ctpop` and `bitreverse` are mask-and-shift
//!   sequences (no `lzcnt`/`tzcnt`/`popcnt`, whatever the target features).
//! - Narrow operands (i8, i16) whose result depends on bits above them are
//!   extended to 32 bits first and computed there exactly.
//! - A `{T, i1}` result of `*.with.overflow` is a two-leaf aggregate
//!   (see [`super::aggregate`]).
//! - `prefetch` is a hint and becomes no code; `assume` none either;
//!   `expect` is its first argument; `objectsize` is "unknown" (-1, or 0
//!   when asked for the minimum), as LLVM folds it when it cannot know;
//!   `is.constant` is true exactly when its operand is a constant, as
//!   LLVM's LowerConstantIntrinsics decides what folding left.
//! - `returnaddress(0)` loads the return address from its frame slot, 8
//!   bytes below the CFA; a caller's (a depth above 0) needs a
//!   frame-pointer walk and is refused by name.
//! - `frameaddress(N)` is rbp, followed N times through the saved rbp each
//!   frame starts with; the function keeps rbp as its frame pointer
//!   ([`crate::codegen::mir::Function::frame_address_taken`]). A caller's
//!   frame is only as findable as the callers keep frame pointers, as with
//!   LLVM.
//! - `stacksave`/`stackrestore` read and write rsp and mark the function as
//!   moving rsp, so its epilogue restores rsp from rbp.

use super::{container, exact_width, Selector};
use crate::codegen::mir::{
    Address, AddressBase, AluOp, Cond, InstKind as K, Reg, Rm, Rmi, ShiftAmount, ShiftOp, UnaryOp,
    Width,
};
use crate::error::Diagnostic;
use crate::ir::{
    self, Constant, InstId, Intrinsic, OverflowArith, OverflowOp, Value, X86Intrinsic,
};
use crate::x86::Gpr;

impl Selector<'_> {
    /// Lowers a call of the `llvm.*` integer intrinsic `name`.
    pub(super) fn lower_intrinsic(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<(), Diagnostic> {
        let unsupported = || format!("unsupported intrinsic '{name}'");
        let intrinsic = Intrinsic::from_name(name).ok_or_else(|| self.error(unsupported()))?;
        let operands: Vec<&Value> = args.iter().map(|a| &a.value).collect();
        let arity = match intrinsic {
            Intrinsic::LifetimeStart
            | Intrinsic::LifetimeEnd
            | Intrinsic::Assume
            | Intrinsic::StackSave
            | Intrinsic::StackRestore
            | Intrinsic::Prefetch
            | Intrinsic::Trap
            | Intrinsic::DebugTrap
            | Intrinsic::ThreadPointer
            | Intrinsic::X86(
                X86Intrinsic::Pause
                | X86Intrinsic::Lfence
                | X86Intrinsic::Mfence
                | X86Intrinsic::Sfence
                | X86Intrinsic::Rdtsc,
            ) => 0,
            Intrinsic::X86(
                X86Intrinsic::Stmxcsr | X86Intrinsic::Ldmxcsr | X86Intrinsic::Clflush,
            ) => 1,
            Intrinsic::Abs
            | Intrinsic::Bswap
            | Intrinsic::BitReverse
            | Intrinsic::Ctpop
            | Intrinsic::Ctlz
            | Intrinsic::Cttz
            | Intrinsic::Expect
            | Intrinsic::ObjectSize
            | Intrinsic::IsConstant
            | Intrinsic::ReturnAddress
            | Intrinsic::FrameAddress => 1,
            Intrinsic::SMax
            | Intrinsic::SMin
            | Intrinsic::UMax
            | Intrinsic::UMin
            | Intrinsic::WithOverflow(_)
            | Intrinsic::Saturating(_)
            | Intrinsic::LoadRelative => 2,
            Intrinsic::Fshl | Intrinsic::Fshr | Intrinsic::Memset | Intrinsic::Memcpy => 3,
            Intrinsic::Memmove => 3,
        };
        if operands.len() < arity {
            return Err(self.error(unsupported()));
        }
        match intrinsic {
            Intrinsic::LifetimeStart | Intrinsic::LifetimeEnd => Ok(()),
            Intrinsic::Assume | Intrinsic::Prefetch => Ok(()),
            Intrinsic::ThreadPointer => self.lower_thread_pointer(id),
            Intrinsic::X86(x86) => self.lower_x86_intrinsic(id, x86, &operands),
            Intrinsic::SMax | Intrinsic::SMin | Intrinsic::UMax | Intrinsic::UMin => {
                self.lower_min_max(id, intrinsic, operands[0], operands[1])
            }
            Intrinsic::Abs => {
                let a = operands[0];
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
                let a = operands[0];
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
            Intrinsic::BitReverse => self.lower_bitreverse(id, operands[0], &unsupported),
            Intrinsic::Ctpop => self.lower_ctpop(id, operands[0], &unsupported),
            Intrinsic::Ctlz | Intrinsic::Cttz => {
                self.lower_bit_scan(id, operands[0], intrinsic == Intrinsic::Ctlz, &unsupported)
            }
            Intrinsic::Fshl | Intrinsic::Fshr => self.lower_funnel_shift(
                id,
                intrinsic == Intrinsic::Fshl,
                [operands[0], operands[1], operands[2]],
                &unsupported,
            ),
            Intrinsic::WithOverflow(op) => {
                self.lower_with_overflow(id, op, operands[0], operands[1], &unsupported)
            }
            Intrinsic::Saturating(op) => {
                self.lower_saturating(id, op, operands[0], operands[1], &unsupported)
            }
            Intrinsic::Expect => {
                let dst = self.dst(id)?;
                let src = self.reg(operands[0])?;
                self.emit(K::Copy { dst, src });
                Ok(())
            }
            Intrinsic::FrameAddress => {
                let Some(depth) = self.const_int(operands[0]).filter(|d| *d >= 0) else {
                    return Err(self.error(format!(
                        "unsupported intrinsic '{name}' of a depth not constant"
                    )));
                };
                self.mir.frame_address_taken = true;
                let dst = self.dst(id)?;
                self.emit(K::Copy {
                    dst,
                    src: Reg::from(Gpr::Rbp),
                });
                // Each frame's first word is its caller's saved rbp.
                for _ in 0..depth {
                    self.emit(K::Load {
                        dst,
                        addr: Address::reg(dst, 0),
                        width: Width::W64,
                    });
                }
                Ok(())
            }
            Intrinsic::ReturnAddress => {
                if self.const_int(operands[0]) != Some(0) {
                    return Err(self.error(format!(
                        "unsupported intrinsic '{name}' of a caller (depth above 0)"
                    )));
                }
                let dst = self.dst(id)?;
                // The return address sits just below the incoming arguments.
                self.emit(K::Load {
                    dst,
                    addr: Address {
                        base: AddressBase::IncomingArgs,
                        index: None,
                        disp: -8,
                    },
                    width: Width::W64,
                });
                Ok(())
            }
            Intrinsic::IsConstant => {
                let dst = self.dst(id)?;
                let constant = matches!(operands[0], Value::Const(_));
                let width = self.width_of(dst);
                self.emit(K::MovImm {
                    dst,
                    imm: i64::from(constant),
                    width,
                });
                Ok(())
            }
            Intrinsic::ObjectSize => {
                let dst = self.dst(id)?;
                let min = operands
                    .get(1)
                    .and_then(|v| self.const_int(v))
                    .is_some_and(|m| m & 1 == 1);
                let width = self.width_of(dst);
                self.emit(K::MovImm {
                    dst,
                    imm: if min { 0 } else { -1 },
                    width,
                });
                Ok(())
            }
            Intrinsic::LoadRelative => self.lower_load_relative(id, args),
            Intrinsic::StackSave => {
                self.mir.moves_stack_pointer = true;
                let dst = self.dst(id)?;
                self.emit(K::Copy {
                    dst,
                    src: Reg::from(Gpr::Rsp),
                });
                Ok(())
            }
            Intrinsic::StackRestore => {
                self.mir.moves_stack_pointer = true;
                let src = self.reg(operands[0])?;
                self.emit(K::Copy {
                    dst: Reg::from(Gpr::Rsp),
                    src,
                });
                Ok(())
            }
            Intrinsic::Trap | Intrinsic::DebugTrap => {
                self.emit(K::Trap {
                    breakpoint: intrinsic == Intrinsic::DebugTrap,
                });
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
        }
    }

    fn lower_min_max(
        &mut self,
        id: InstId,
        intrinsic: Intrinsic,
        a: &Value,
        b: &Value,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let bits = self.bits_of(a)?;
        let signed = matches!(intrinsic, Intrinsic::SMax | Intrinsic::SMin);
        let ra = self.normalized(a, signed)?;
        let rb = self.normalized(b, signed)?;
        let width = container(bits);
        self.emit(K::Copy { dst, src: ra });
        self.min_max_in_place(intrinsic, width, dst, rb);
        Ok(())
    }

    /// `dst = which(dst, other)` for `which` one of smax, smin, umax, umin
    /// (operands already extended to `width`): compare, then take `other`
    /// with a cmov when `dst` is not already the answer.
    pub(super) fn min_max_in_place(
        &mut self,
        which: Intrinsic,
        width: Width,
        dst: Reg,
        other: Reg,
    ) {
        self.emit(K::Cmp {
            width,
            lhs: Rm::Reg(dst),
            rhs: Rmi::Reg(other),
        });
        let take_other = match which {
            Intrinsic::SMax => Cond::L,
            Intrinsic::SMin => Cond::G,
            Intrinsic::UMax => Cond::B,
            _ => Cond::A,
        };
        self.emit(K::Cmov {
            cond: take_other,
            width,
            dst,
            src: Rm::Reg(other),
        });
    }

    /// A constant as an ALU operand at `width`: an immediate when the
    /// instruction's sign extension of 32 bits gives it, else a register.
    fn wide_constant(&mut self, value: i64, width: Width) -> Rmi {
        let fits = match width {
            Width::W64 => i32::try_from(value).is_ok(),
            _ => true,
        };
        if fits {
            return Rmi::Imm(value as i32);
        }
        let r = self.vreg(width);
        self.emit(K::MovImm {
            dst: r,
            imm: value,
            width,
        });
        Rmi::Reg(r)
    }

    /// `dst op= src` at `width`.
    fn alu(&mut self, op: AluOp, width: Width, dst: Reg, src: Rmi) {
        self.emit(K::Alu {
            op,
            width,
            dst,
            src,
        });
    }

    /// `dst shift= n` at `width`.
    fn shift_imm(&mut self, op: ShiftOp, width: Width, dst: Reg, n: u32) {
        self.emit(K::Shift {
            op,
            width,
            dst,
            amount: ShiftAmount::Imm(n as u8),
        });
    }

    /// A copy of `src` in a new register of `width`.
    fn copy_of(&mut self, src: Reg, width: Width) -> Reg {
        let r = self.vreg(width);
        self.emit(K::Copy { dst: r, src });
        r
    }

    /// The operand, zero-extended to 32 bits when narrower, with its bit
    /// width: the form the bit-counting sequences work on.
    fn widened_unsigned(
        &mut self,
        v: &Value,
        unsupported: &dyn Fn() -> String,
    ) -> Result<(Reg, u32, Width), Diagnostic> {
        let bits = self.bits_of(v)?;
        if exact_width(bits).is_none() {
            return Err(self.error(unsupported()));
        }
        let width = container(bits);
        let r = self.normalized(v, false)?;
        Ok((r, bits, width))
    }

    /// `ctpop`: the SWAR population count (pairs, nibbles, bytes, then a
    /// multiply that sums the bytes into the top one). Any width up to 64
    /// bits: the zero extension to the container adds no set bits
    /// (`llvm.ctpop.i4` of a csmith bit-field).
    fn lower_ctpop(
        &mut self,
        id: InstId,
        a: &Value,
        unsupported: &dyn Fn() -> String,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let bits = self.bits_of(a)?;
        if bits > 64 {
            return Err(self.error(unsupported()));
        }
        let w = container(bits);
        let x = self.normalized(a, false)?;
        let pattern = |byte: u8| -> i64 {
            let all = i64::from_ne_bytes([byte; 8]);
            if w == Width::W64 {
                all
            } else {
                all & 0xffff_ffff
            }
        };
        // x - ((x >> 1) & 0x55…)
        let t = self.copy_of(x, w);
        self.shift_imm(ShiftOp::Shr, w, t, 1);
        let m55 = self.wide_constant(pattern(0x55), w);
        self.alu(AluOp::And, w, t, m55);
        let v = self.copy_of(x, w);
        self.alu(AluOp::Sub, w, v, Rmi::Reg(t));
        // (v & 0x33…) + ((v >> 2) & 0x33…)
        let m33 = self.wide_constant(pattern(0x33), w);
        let hi = self.copy_of(v, w);
        self.shift_imm(ShiftOp::Shr, w, hi, 2);
        self.alu(AluOp::And, w, hi, m33.clone());
        self.alu(AluOp::And, w, v, m33);
        self.alu(AluOp::Add, w, v, Rmi::Reg(hi));
        // (v + (v >> 4)) & 0x0f…
        let h4 = self.copy_of(v, w);
        self.shift_imm(ShiftOp::Shr, w, h4, 4);
        self.alu(AluOp::Add, w, v, Rmi::Reg(h4));
        let m0f = self.wide_constant(pattern(0x0f), w);
        self.alu(AluOp::And, w, v, m0f);
        // (v * 0x01…) >> (bits - 8)
        if w == Width::W64 {
            let k = self.vreg(w);
            self.emit(K::MovImm {
                dst: k,
                imm: pattern(0x01),
                width: w,
            });
            self.emit(K::Copy { dst, src: v });
            self.emit(K::Imul {
                width: w,
                dst,
                src: Rm::Reg(k),
            });
        } else {
            self.emit(K::ImulImm {
                width: w,
                dst,
                src: Rm::Reg(v),
                imm: pattern(0x01) as i32,
            });
        }
        self.shift_imm(ShiftOp::Shr, w, dst, w.bits() - 8);
        Ok(())
    }

    /// `ctlz`/`cttz`: `bsr`/`bsf` on the zero-extended operand, a `cmov`
    /// giving the bit width for a zero input (whatever the poison flag says).
    fn lower_bit_scan(
        &mut self,
        id: InstId,
        a: &Value,
        leading: bool,
        unsupported: &dyn Fn() -> String,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let (x, bits, w) = self.widened_unsigned(a, unsupported)?;
        let top = i64::from(w.bits() - 1);
        // For ctlz: index ^ (W-1) is W-1-index; 2W-1 becomes W after the xor.
        let zero_result = if leading {
            2 * top + 1
        } else {
            i64::from(bits)
        };
        let fallback = self.vreg(w);
        self.emit(K::MovImm {
            dst: fallback,
            imm: zero_result,
            width: w,
        });
        self.emit(K::BitScan {
            reverse: leading,
            width: w,
            dst,
            src: Rm::Reg(x),
        });
        self.emit(K::Cmov {
            cond: Cond::E,
            width: w,
            dst,
            src: Rm::Reg(fallback),
        });
        if leading {
            self.alu(AluOp::Xor, w, dst, Rmi::Imm(top as i32));
            let unused = w.bits() - bits;
            if unused > 0 {
                self.alu(AluOp::Sub, w, dst, Rmi::Imm(unused as i32));
            }
        }
        Ok(())
    }

    /// `bitreverse`: `bswap`, then swaps of nibbles, bit pairs and bits (of
    /// one bit, the bit).
    fn lower_bitreverse(
        &mut self,
        id: InstId,
        a: &Value,
        unsupported: &dyn Fn() -> String,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        // One bit is its own reverse (clang -O2 makes `bitreverse.i1` of a
        // boolean's bit tricks).
        if self.bits_of(a)? == 1 {
            let x = self.normalized(a, false)?;
            self.emit(K::Copy { dst, src: x });
            return Ok(());
        }
        let (x, bits, w) = self.widened_unsigned(a, unsupported)?;
        self.emit(K::Copy { dst, src: x });
        self.emit(K::Unary {
            op: UnaryOp::Bswap,
            width: w,
            dst,
        });
        for (shift, byte) in [(4u32, 0x0fu8), (2, 0x33), (1, 0x55)] {
            let all = i64::from_ne_bytes([byte; 8]);
            let mask = if w == Width::W64 {
                all
            } else {
                all & 0xffff_ffff
            };
            let m = self.wide_constant(mask, w);
            let hi = self.copy_of(dst, w);
            self.shift_imm(ShiftOp::Shr, w, hi, shift);
            self.alu(AluOp::And, w, hi, m.clone());
            self.alu(AluOp::And, w, dst, m);
            self.shift_imm(ShiftOp::Shl, w, dst, shift);
            self.alu(AluOp::Or, w, dst, Rmi::Reg(hi));
        }
        let unused = w.bits() - bits;
        if unused > 0 {
            self.shift_imm(ShiftOp::Shr, w, dst, unused);
        }
        Ok(())
    }

    /// `fshl`/`fshr`: a rotate when both inputs are the same value,
    /// otherwise two shifts by amounts kept below the width.
    fn lower_funnel_shift(
        &mut self,
        id: InstId,
        left: bool,
        [a, b, amount]: [&Value; 3],
        unsupported: &dyn Fn() -> String,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let bits = self.bits_of(a)?;
        let Some(exact) = exact_width(bits) else {
            return Err(self.error(unsupported()));
        };
        let w = container(bits);
        let mask = bits - 1;
        let constant = self
            .const_int(amount)
            .map(|c| (c as u64 % u64::from(bits)) as u32);
        if a == b {
            let ra = self.reg(a)?;
            self.emit(K::Copy { dst, src: ra });
            let op = if left { ShiftOp::Rol } else { ShiftOp::Ror };
            let amount = match constant {
                Some(k) => ShiftAmount::Imm(k as u8),
                None => {
                    let s = self.reg(amount)?;
                    self.emit(K::Copy {
                        dst: Reg::from(Gpr::Rcx),
                        src: s,
                    });
                    ShiftAmount::Cl
                }
            };
            self.emit(K::Shift {
                op,
                width: exact,
                dst,
                amount,
            });
            return Ok(());
        }
        let ra = self.reg(a)?;
        // The right-shifted input must have zeros above its width.
        let rb = self.normalized(b, false)?;
        let (high, low) = (ra, rb);
        match constant {
            Some(0) => {
                let keep = if left { high } else { low };
                self.emit(K::Copy { dst, src: keep });
            }
            Some(k) => {
                let (l, r) = if left { (k, bits - k) } else { (bits - k, k) };
                self.emit(K::Copy { dst, src: high });
                self.shift_imm(ShiftOp::Shl, w, dst, l);
                let t = self.copy_of(low, w);
                self.shift_imm(ShiftOp::Shr, w, t, r);
                self.alu(AluOp::Or, w, dst, Rmi::Reg(t));
            }
            None => {
                // fshl: (a << s) | ((b >> 1) >> (s ^ mask));
                // fshr: (b >> s) | ((a << 1) << (s ^ mask)).
                let s = self.normalized(amount, false)?;
                let s = self.copy_of(s, w);
                self.alu(AluOp::And, w, s, Rmi::Imm(mask as i32));
                let ns = self.copy_of(s, w);
                self.alu(AluOp::Xor, w, ns, Rmi::Imm(mask as i32));
                let (first, first_op, second, second_op) = if left {
                    (high, ShiftOp::Shl, low, ShiftOp::Shr)
                } else {
                    (low, ShiftOp::Shr, high, ShiftOp::Shl)
                };
                self.emit(K::Copy { dst, src: first });
                self.emit(K::Copy {
                    dst: Reg::from(Gpr::Rcx),
                    src: s,
                });
                self.emit(K::Shift {
                    op: first_op,
                    width: w,
                    dst,
                    amount: ShiftAmount::Cl,
                });
                let t = self.copy_of(second, w);
                self.shift_imm(second_op, w, t, 1);
                self.emit(K::Copy {
                    dst: Reg::from(Gpr::Rcx),
                    src: ns,
                });
                self.emit(K::Shift {
                    op: second_op,
                    width: w,
                    dst: t,
                    amount: ShiftAmount::Cl,
                });
                self.alu(AluOp::Or, w, dst, Rmi::Reg(t));
            }
        }
        Ok(())
    }

    /// `*.with.overflow`: the result and its flag as a two-member aggregate.
    fn lower_with_overflow(
        &mut self,
        id: InstId,
        op: OverflowOp,
        a: &Value,
        b: &Value,
        unsupported: &dyn Fn() -> String,
    ) -> Result<(), Diagnostic> {
        let bits = self.bits_of(a)?;
        let Some(exact) = exact_width(bits) else {
            return Err(self.error(unsupported()));
        };
        let w = container(bits);
        let value = self.vreg(w);
        let flag = self.vreg(Width::W32);
        match op.op {
            OverflowArith::Add | OverflowArith::Sub => {
                let ra = self.reg(a)?;
                let rb = self.reg(b)?;
                self.emit(K::Copy {
                    dst: value,
                    src: ra,
                });
                self.zero(flag);
                let alu = if op.op == OverflowArith::Add {
                    AluOp::Add
                } else {
                    AluOp::Sub
                };
                self.alu(alu, exact, value, Rmi::Reg(rb));
                let cond = if op.signed { Cond::O } else { Cond::B };
                self.emit(K::Setcc { cond, dst: flag });
            }
            OverflowArith::Mul if bits == 8 => {
                // Exact in 32 bits; overflow when the product does not fit.
                let ra = self.normalized(a, op.signed)?;
                let rb = self.normalized(b, op.signed)?;
                self.emit(K::Copy {
                    dst: value,
                    src: ra,
                });
                self.emit(K::Imul {
                    width: Width::W32,
                    dst: value,
                    src: Rm::Reg(rb),
                });
                let narrowed = self.vreg(Width::W32);
                self.emit(K::Extend {
                    dst: narrowed,
                    src: Rm::Reg(value),
                    from: Width::W8,
                    to: Width::W32,
                    signed: op.signed,
                });
                self.zero(flag);
                self.emit(K::Cmp {
                    width: Width::W32,
                    lhs: Rm::Reg(narrowed),
                    rhs: Rmi::Reg(value),
                });
                self.emit(K::Setcc {
                    cond: Cond::Ne,
                    dst: flag,
                });
            }
            OverflowArith::Mul if op.signed => {
                let ra = self.reg(a)?;
                let rb = self.reg(b)?;
                self.emit(K::Copy {
                    dst: value,
                    src: ra,
                });
                self.zero(flag);
                self.emit(K::Imul {
                    width: exact,
                    dst: value,
                    src: Rm::Reg(rb),
                });
                self.emit(K::Setcc {
                    cond: Cond::O,
                    dst: flag,
                });
            }
            OverflowArith::Mul => {
                let ra = self.reg(a)?;
                let rb = self.reg(b)?;
                self.zero(flag);
                self.emit(K::Copy {
                    dst: Reg::from(Gpr::Rax),
                    src: ra,
                });
                self.emit(K::MulWide {
                    width: exact,
                    src: Rm::Reg(rb),
                });
                self.emit(K::Copy {
                    dst: value,
                    src: Reg::from(Gpr::Rax),
                });
                self.emit(K::Setcc {
                    cond: Cond::B,
                    dst: flag,
                });
            }
        }
        self.define_leaves(id, &[value, flag])
    }

    /// `mov r, 0` (as `MovImm`, before any flags it must not disturb are set).
    fn zero(&mut self, r: Reg) {
        self.emit(K::MovImm {
            dst: r,
            imm: 0,
            width: Width::W32,
        });
    }

    /// `*.sat`: 32 and 64 bits use the flags of the operation and a `cmov`
    /// of the bound; i8 and i16 are computed exactly in 32 bits and clamped.
    fn lower_saturating(
        &mut self,
        id: InstId,
        op: OverflowOp,
        a: &Value,
        b: &Value,
        unsupported: &dyn Fn() -> String,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let bits = self.bits_of(a)?;
        if exact_width(bits).is_none() {
            return Err(self.error(unsupported()));
        }
        let w = container(bits);
        let alu = if op.op == OverflowArith::Add {
            AluOp::Add
        } else {
            AluOp::Sub
        };
        if bits < 32 {
            let ra = self.normalized(a, op.signed)?;
            let rb = self.normalized(b, op.signed)?;
            self.emit(K::Copy { dst, src: ra });
            self.alu(alu, Width::W32, dst, Rmi::Reg(rb));
            let (min, max) = if op.signed {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            } else {
                (0, (1i64 << bits) - 1)
            };
            for (bound, cond) in [(max, Cond::G), (min, Cond::L)] {
                let r = self.vreg(Width::W32);
                self.emit(K::MovImm {
                    dst: r,
                    imm: bound,
                    width: Width::W32,
                });
                self.emit(K::Cmp {
                    width: Width::W32,
                    lhs: Rm::Reg(dst),
                    rhs: Rmi::Reg(r),
                });
                self.emit(K::Cmov {
                    cond,
                    width: Width::W32,
                    dst,
                    src: Rm::Reg(r),
                });
            }
            return Ok(());
        }
        let ra = self.reg(a)?;
        let rb = self.reg(b)?;
        let bound = self.vreg(w);
        if op.signed {
            // a < 0 ? MIN : MAX, i.e. (a >> (W-1)) ^ MAX.
            let max = if w == Width::W64 {
                i64::MAX
            } else {
                i64::from(i32::MAX)
            };
            self.emit(K::Copy {
                dst: bound,
                src: ra,
            });
            self.shift_imm(ShiftOp::Sar, w, bound, w.bits() - 1);
            let m = self.wide_constant(max, w);
            self.alu(AluOp::Xor, w, bound, m);
        } else {
            let limit = if op.op == OverflowArith::Add { -1 } else { 0 };
            self.emit(K::MovImm {
                dst: bound,
                imm: limit,
                width: w,
            });
        }
        self.emit(K::Copy { dst, src: ra });
        self.alu(alu, w, dst, Rmi::Reg(rb));
        self.emit(K::Cmov {
            cond: if op.signed { Cond::O } else { Cond::B },
            width: w,
            dst,
            src: Rm::Reg(bound),
        });
        Ok(())
    }
}
