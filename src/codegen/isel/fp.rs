//! Instruction selection for `float` and `double` with SSE2.
//!
//! In: IR instructions over `float`/`double` values (arithmetic, `fneg`,
//! `fcmp`, conversions, bitcasts, selects, the floating-point intrinsics).
//! Out: MIR over xmm virtual registers (one per value, [`FpSize`] giving its
//! precision), general-purpose ones where an integer is involved.
//!
//! Rules it follows:
//! - Constants are loaded (`movss`/`movsd`, exact bits) from the function's
//!   constant pool in its read-only data, RIP-relative; +0.0 is `pxor`.
//!   Sign masks are built in a general-purpose register and moved across
//!   with `movq`/`movd`.
//! - `fcmp` is NaN-correct: `ucomis` sets ZF, PF and CF all to 1 when the
//!   operands are unordered, so the ordered predicates read conditions that
//!   are false then (`oeq` = ZF=1 and PF=0; `ogt`/`oge` = `a`/`ae`, `olt`/`ole`
//!   the same with the operands swapped) and the unordered ones conditions
//!   that are true (`une` = ZF=0 or PF=1; `ult`/`ule` = `b`/`be`, …).
//! - Conversions from and to 64-bit unsigned integers have no SSE2
//!   instruction: both halves of the range are converted and the right one
//!   picked with `cmov`, without branches.
//! - A select of floating-point values goes through general-purpose
//!   registers (`movq` out, `cmov`, `movq` back).
//! - `frem`, `minnum`/`maxnum` (whose NaN rules `minsd` lacks), the rounding
//!   intrinsics and the transcendental ones call libm; `fmuladd` is a
//!   multiply then an add (no FMA in the baseline); `fabs`, `copysign` and
//!   `fneg` are masks on the sign bit.
//! - `x86_fp80` (`long double`) is [`super::x87`]'s.

use super::{container, Selector};
use crate::codegen::mir::{
    AluOp, Cond, FpLogicOp, FpOp, FpSize, InstKind as K, Reg, RegClass, Ri, Rm, Rmi, ShiftAmount,
    ShiftOp, Width,
};
use crate::error::Diagnostic;
use crate::ir::{self, CastOp, Constant, FBinOp, FCmpPred, FloatKind, InstId, Type, Value};

/// The SSE precision of a type, if it is `float` or `double`.
pub(super) fn fp_size(ty: &Type) -> Option<FpSize> {
    match ty {
        Type::Float(FloatKind::Float) => Some(FpSize::F32),
        Type::Float(FloatKind::Double) => Some(FpSize::F64),
        _ => None,
    }
}

/// The sign bit of a value of `size`.
fn sign_bit(size: FpSize) -> i64 {
    match size {
        FpSize::F32 => 0x8000_0000,
        FpSize::F64 => i64::MIN,
    }
}

/// What an `llvm.*` floating-point intrinsic becomes.
enum FpIntrinsic {
    Fabs,
    CopySign,
    Sqrt,
    MulAdd,
    /// A libm function of this base name (`floor`; `floorf` for float).
    Libm(&'static str),
}

/// Recognises a floating-point intrinsic by its full name
/// (`llvm.floor.f64`), or `None` when it is not one.
fn fp_intrinsic(name: &str) -> Option<FpIntrinsic> {
    let rest = name.strip_prefix("llvm.")?;
    let base = rest.split('.').next().unwrap_or("");
    Some(match base {
        "fabs" => FpIntrinsic::Fabs,
        "copysign" => FpIntrinsic::CopySign,
        "sqrt" => FpIntrinsic::Sqrt,
        "fmuladd" => FpIntrinsic::MulAdd,
        "fma" => FpIntrinsic::Libm("fma"),
        "minnum" => FpIntrinsic::Libm("fmin"),
        "maxnum" => FpIntrinsic::Libm("fmax"),
        "floor" => FpIntrinsic::Libm("floor"),
        "ceil" => FpIntrinsic::Libm("ceil"),
        "trunc" => FpIntrinsic::Libm("trunc"),
        "round" => FpIntrinsic::Libm("round"),
        "roundeven" => FpIntrinsic::Libm("roundeven"),
        "rint" => FpIntrinsic::Libm("rint"),
        "nearbyint" => FpIntrinsic::Libm("nearbyint"),
        "pow" => FpIntrinsic::Libm("pow"),
        "exp" => FpIntrinsic::Libm("exp"),
        "exp2" => FpIntrinsic::Libm("exp2"),
        "log" => FpIntrinsic::Libm("log"),
        "log2" => FpIntrinsic::Libm("log2"),
        "log10" => FpIntrinsic::Libm("log10"),
        "sin" => FpIntrinsic::Libm("sin"),
        "cos" => FpIntrinsic::Libm("cos"),
        _ => return None,
    })
}

impl Selector<'_> {
    /// The precision of a value's type, or an error naming the type when
    /// it is a floating-point type SSE2 does not compute in.
    pub(super) fn fp_size_of(&self, v: &Value) -> Result<Option<FpSize>, Diagnostic> {
        self.fp_size_of_type(&self.f.value_type(v))
    }

    /// As [`Selector::fp_size_of`], for a type.
    pub(super) fn fp_size_of_type(&self, ty: &Type) -> Result<Option<FpSize>, Diagnostic> {
        match ty {
            Type::Float(FloatKind::Float | FloatKind::Double) => Ok(fp_size(ty)),
            Type::Float(kind) => Err(self.error(format!(
                "unsupported floating-point type {} in code generation",
                kind.name()
            ))),
            _ => Ok(None),
        }
    }

    /// A floating-point constant in a fresh xmm register.
    pub(super) fn fp_const_reg(&mut self, size: FpSize, bits: u64) -> Reg {
        let dst = self.mir.new_xmm_vreg(size);
        if bits == 0 {
            self.emit(K::XmmZero { dst });
            return dst;
        }
        let bytes = bits.to_le_bytes();
        let constant = self.mir.constant(&bytes[..size.width().bytes() as usize]);
        self.emit(K::FpLoad {
            dst,
            addr: crate::codegen::mir::Address {
                base: crate::codegen::mir::AddressBase::Constant(constant),
                index: None,
                disp: 0,
            },
            size,
        });
        dst
    }

    /// A mask register holding `bits` in its low element, built in a
    /// general-purpose register.
    fn fp_mask(&mut self, size: FpSize, bits: i64) -> Reg {
        let dst = self.mir.new_xmm_vreg(size);
        let width = size.width();
        let g = self.vreg(width);
        self.emit(K::MovImm {
            dst: g,
            imm: bits,
            width,
        });
        self.emit(K::MovToXmm {
            width,
            dst,
            src: Rm::Reg(g),
        });
        dst
    }

    /// The bits of a floating-point constant operand of `size`, if it is one
    /// (`undef`, `poison` and `zeroinitializer` are +0.0).
    pub(super) fn fp_const_bits(&self, c: &Constant, size: FpSize) -> Option<u64> {
        match c {
            Constant::Float { bits, .. } => Some(match size {
                FpSize::F32 => (*bits as u64) & 0xffff_ffff,
                FpSize::F64 => *bits as u64,
            }),
            Constant::Undef(_) | Constant::Poison(_) | Constant::Zero(_) => Some(0),
            _ => None,
        }
    }

    /// `fadd`/`fsub`/`fmul`/`fdiv`/`frem`.
    pub(super) fn lower_fbinary(
        &mut self,
        id: InstId,
        op: FBinOp,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let size = self.scalar_fp(lhs, op.name())?;
        let dst = self.dst(id)?;
        let fp_op = match op {
            FBinOp::Add => FpOp::Add,
            FBinOp::Sub => FpOp::Sub,
            FBinOp::Mul => FpOp::Mul,
            FBinOp::Div => FpOp::Div,
            FBinOp::Rem => {
                let a = self.reg(lhs)?;
                let b = self.reg(rhs)?;
                let name = libm_name("fmod", size);
                return self.call_fp_helper(name, &[a, b], Some(dst));
            }
        };
        let a = self.reg(lhs)?;
        let b = self.reg(rhs)?;
        self.emit(K::Copy { dst, src: a });
        self.emit(K::FpArith {
            op: fp_op,
            size,
            dst,
            src: Rm::Reg(b),
        });
        Ok(())
    }

    /// `fneg`: flips the sign bit.
    pub(super) fn lower_fneg(&mut self, id: InstId, value: &Value) -> Result<(), Diagnostic> {
        let size = self.scalar_fp(value, "fneg")?;
        let dst = self.dst(id)?;
        let a = self.reg(value)?;
        let mask = self.fp_mask(size, sign_bit(size));
        self.emit(K::Copy { dst, src: a });
        self.emit(K::FpLogic {
            op: FpLogicOp::Xor,
            dst,
            src: mask,
        });
        Ok(())
    }

    /// `fcmp pred lhs, rhs` into the `i1` result's register (0 or 1).
    pub(super) fn lower_fcmp(
        &mut self,
        id: InstId,
        pred: FCmpPred,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let size = self.scalar_fp(lhs, "fcmp")?;
        let dst = self.dst(id)?;
        match pred {
            FCmpPred::False | FCmpPred::True => {
                self.emit(K::MovImm {
                    dst,
                    imm: i64::from(pred == FCmpPred::True),
                    width: Width::W32,
                });
                return Ok(());
            }
            _ => {}
        }
        let a = self.reg(lhs)?;
        let b = self.reg(rhs)?;
        self.compare_fp(size, pred, a, b, dst, false);
        Ok(())
    }

    /// `dst = pred(a, b)` (0 or 1, 32 bits) of the low elements of the xmm
    /// registers `a` and `b` through `ucomis` (`comis` when `signaling`)
    /// and `setcc`, NaN-correct; `pred` is neither `false` nor `true`.
    pub(super) fn compare_fp(
        &mut self,
        size: FpSize,
        pred: FCmpPred,
        a: Reg,
        b: Reg,
        dst: Reg,
        signaling: bool,
    ) {
        self.compare_with(pred, dst, &mut |s, swap| {
            let (l, r) = if swap { (b, a) } else { (a, b) };
            s.emit(K::FpCmp {
                size,
                lhs: l,
                rhs: Rm::Reg(r),
                signaling,
            });
        });
    }

    /// `dst = pred(a, b)` (0 or 1, 32 bits) from the flags `compare` sets
    /// as `ucomis a, b` would (`b, a` when it is told to swap); `pred` is
    /// neither `false` nor `true`.
    pub(super) fn compare_with(
        &mut self,
        pred: FCmpPred,
        dst: Reg,
        compare: &mut dyn FnMut(&mut Self, bool),
    ) {
        let zero = |s: &mut Self, dst| {
            s.emit(K::MovImm {
                dst,
                imm: 0,
                width: Width::W32,
            })
        };
        // (swap operands, condition, second condition and how to join them)
        let (swap, cond, second): (bool, Cond, Option<(Cond, AluOp)>) = match pred {
            FCmpPred::Oeq => (false, Cond::E, Some((Cond::Np, AluOp::And))),
            FCmpPred::Une => (false, Cond::Ne, Some((Cond::P, AluOp::Or))),
            FCmpPred::Ogt => (false, Cond::A, None),
            FCmpPred::Oge => (false, Cond::Ae, None),
            FCmpPred::Olt => (true, Cond::A, None),
            FCmpPred::Ole => (true, Cond::Ae, None),
            FCmpPred::Ugt => (true, Cond::B, None),
            FCmpPred::Uge => (true, Cond::Be, None),
            FCmpPred::Ult => (false, Cond::B, None),
            FCmpPred::Ule => (false, Cond::Be, None),
            FCmpPred::One => (false, Cond::Ne, None),
            FCmpPred::Ueq => (false, Cond::E, None),
            FCmpPred::Ord => (false, Cond::Np, None),
            FCmpPred::Uno => (false, Cond::P, None),
            FCmpPred::False | FCmpPred::True => unreachable!("the caller's"),
        };
        zero(self, dst);
        let extra = second.map(|(c, op)| {
            let t = self.vreg(Width::W32);
            zero(self, t);
            (t, c, op)
        });
        compare(self, swap);
        self.emit(K::Setcc { cond, dst });
        if let Some((t, c, op)) = extra {
            self.emit(K::Setcc { cond: c, dst: t });
            self.emit(K::Alu {
                op,
                width: Width::W32,
                dst,
                src: Rmi::Reg(t),
            });
        }
    }

    /// The precision of the scalar `float` or `double` operand of the
    /// instruction `opcode`; an error naming both otherwise (x86_fp80
    /// arithmetic would need x87 code, vectors are not selected yet).
    fn scalar_fp(&self, v: &Value, opcode: &str) -> Result<FpSize, Diagnostic> {
        let ty = self.f.value_type(v);
        fp_size(&ty).ok_or_else(|| {
            self.error(format!(
                "unsupported instruction '{opcode}' on {} in code generation",
                super::type_name(self.module, &ty)
            ))
        })
    }

    /// Casts that produce or consume floating-point values; `Ok(false)`
    /// when the cast is an integer one for the caller.
    pub(super) fn lower_fp_cast(
        &mut self,
        id: InstId,
        op: CastOp,
        value: &Value,
    ) -> Result<bool, Diagnostic> {
        let to_ty = self.f.inst(id).ty.clone();
        let from = self.fp_size_of(value)?;
        let to = self.fp_size_of_type(&to_ty)?;
        if from.is_none() && to.is_none() {
            return Ok(false);
        }
        let dst = self.dst(id)?;
        match (op, from, to) {
            (CastOp::FPExt | CastOp::FPTrunc, Some(from), Some(to)) if from != to => {
                let a = self.reg(value)?;
                self.emit(K::FpConvert {
                    from,
                    dst,
                    src: Rm::Reg(a),
                });
            }
            (CastOp::BitCast | CastOp::FPExt | CastOp::FPTrunc, Some(_), Some(_)) => {
                let a = self.reg(value)?;
                self.emit(K::Copy { dst, src: a });
            }
            (CastOp::BitCast, None, Some(size)) => {
                let a = self.reg(value)?;
                self.emit(K::MovToXmm {
                    width: size.width(),
                    dst,
                    src: Rm::Reg(a),
                });
            }
            (CastOp::BitCast, Some(size), None) => {
                let a = self.reg(value)?;
                self.emit(K::MovFromXmm {
                    width: size.width(),
                    dst,
                    src: a,
                });
            }
            (CastOp::SIToFP, None, Some(size)) => {
                let bits = self.bits_of(value)?;
                let a = self.normalized(value, true)?;
                self.emit(K::IntToFp {
                    size,
                    width: container(bits),
                    dst,
                    src: Rm::Reg(a),
                });
            }
            (CastOp::UIToFP, None, Some(size)) => self.lower_uitofp(dst, value, size)?,
            (CastOp::FPToSI, Some(size), None) => {
                let bits = self.bits_of_type(&to_ty)?;
                let a = self.reg(value)?;
                self.emit(K::FpToInt {
                    rounded: false,
                    size,
                    width: container(bits),
                    dst,
                    src: Rm::Reg(a),
                });
            }
            (CastOp::FPToUI, Some(size), None) => {
                let bits = self.bits_of_type(&to_ty)?;
                self.lower_fptoui(dst, value, size, bits)?;
            }
            _ => {
                return Err(self.error(format!(
                    "unsupported instruction '{}' from {} to {}",
                    op.name(),
                    super::type_name(self.module, &self.f.value_type(value)),
                    super::type_name(self.module, &to_ty)
                )))
            }
        }
        Ok(true)
    }

    /// `uitofp`: below 64 bits the zero-extended value is a non-negative
    /// signed one; a 64-bit value at or above 2^63 is halved (keeping the
    /// lowest bit, so rounding is right), converted and doubled.
    fn lower_uitofp(&mut self, dst: Reg, value: &Value, size: FpSize) -> Result<(), Diagnostic> {
        let bits = self.bits_of(value)?;
        let x = if bits < 64 {
            self.normalized(value, false)?
        } else {
            self.reg(value)?
        };
        self.uitofp_reg(dst, x, bits, size);
        Ok(())
    }

    /// [`Self::lower_uitofp`] of the `bits`-bit integer in `a`, zero-extended
    /// to its container when `bits` is below 64.
    pub(super) fn uitofp_reg(&mut self, dst: Reg, a: Reg, bits: u32, size: FpSize) {
        if bits < 64 {
            let a = if bits == 32 {
                let wide = self.vreg(Width::W64);
                self.emit(K::Extend {
                    dst: wide,
                    src: Rm::Reg(a),
                    from: Width::W32,
                    to: Width::W64,
                    signed: false,
                });
                wide
            } else {
                a
            };
            self.emit(K::IntToFp {
                size,
                width: if bits >= 32 { Width::W64 } else { Width::W32 },
                dst,
                src: Rm::Reg(a),
            });
            return;
        }
        let x = a;
        // small = (signed) x, right when x < 2^63.
        let small = self.mir.new_xmm_vreg(size);
        self.emit(K::IntToFp {
            size,
            width: Width::W64,
            dst: small,
            src: Rm::Reg(x),
        });
        // big = 2 * (signed) ((x >> 1) | (x & 1)), right when x >= 2^63.
        let half = self.vreg(Width::W64);
        let low = self.vreg(Width::W64);
        self.emit(K::Copy { dst: half, src: x });
        self.emit(K::Shift {
            op: ShiftOp::Shr,
            width: Width::W64,
            dst: half,
            amount: ShiftAmount::Imm(1),
        });
        self.emit(K::Copy { dst: low, src: x });
        self.emit(K::Alu {
            op: AluOp::And,
            width: Width::W64,
            dst: low,
            src: Rmi::Imm(1),
        });
        self.emit(K::Alu {
            op: AluOp::Or,
            width: Width::W64,
            dst: half,
            src: Rmi::Reg(low),
        });
        let big = self.mir.new_xmm_vreg(size);
        self.emit(K::IntToFp {
            size,
            width: Width::W64,
            dst: big,
            src: Rm::Reg(half),
        });
        self.emit(K::FpArith {
            op: FpOp::Add,
            size,
            dst: big,
            src: Rm::Reg(big),
        });
        // Pick by the sign bit of x, in general-purpose registers.
        let width = size.width();
        let chosen = self.vreg(Width::W64);
        let big_bits = self.vreg(Width::W64);
        self.emit(K::MovFromXmm {
            width,
            dst: chosen,
            src: small,
        });
        self.emit(K::MovFromXmm {
            width,
            dst: big_bits,
            src: big,
        });
        self.move_if_negative(x, chosen, big_bits, Width::W64);
        self.emit(K::MovToXmm {
            width,
            dst,
            src: Rm::Reg(chosen),
        });
    }

    /// Flips bit 63 of the 64-bit register `r` (`movabs` of the bit,
    /// `xor`): a conversion of `x - 2^63` made that of `x`.
    pub(super) fn flip_top_bit(&mut self, r: Reg) {
        let top = self.vreg(Width::W64);
        self.emit(K::MovImm {
            dst: top,
            imm: i64::MIN,
            width: Width::W64,
        });
        self.emit(K::Alu {
            op: AluOp::Xor,
            width: Width::W64,
            dst: r,
            src: Rmi::Reg(top),
        });
    }

    /// `dst = src` (`width` bits) when the 64-bit integer in `x` is
    /// negative: `test` and `cmovs`.
    pub(super) fn move_if_negative(&mut self, x: Reg, dst: Reg, src: Reg, width: Width) {
        self.emit(K::Test {
            width: Width::W64,
            lhs: Rm::Reg(x),
            rhs: Ri::Reg(x),
        });
        self.emit(K::Cmov {
            cond: Cond::S,
            width,
            dst,
            src: Rm::Reg(src),
        });
    }

    /// `fptoui`: below 32 bits the signed 32-bit conversion covers the
    /// range, 32 bits the signed 64-bit one; for 64 bits a value at or
    /// above 2^63 is reduced by 2^63 first and the top bit set after.
    fn lower_fptoui(
        &mut self,
        dst: Reg,
        value: &Value,
        size: FpSize,
        bits: u32,
    ) -> Result<(), Diagnostic> {
        let x = self.reg(value)?;
        self.fptoui_reg(dst, x, size, bits);
        Ok(())
    }

    /// [`Self::lower_fptoui`] of the float or double in `x`.
    pub(super) fn fptoui_reg(&mut self, dst: Reg, x: Reg, size: FpSize, bits: u32) {
        if bits < 64 {
            let width = if bits < 32 { Width::W32 } else { Width::W64 };
            let wide = self.vreg(width);
            self.emit(K::FpToInt {
                rounded: false,
                size,
                width,
                dst: wide,
                src: Rm::Reg(x),
            });
            self.emit(K::Copy { dst, src: wide });
            return;
        }
        let two63 = match size {
            FpSize::F32 => 0x5f00_0000u64,
            FpSize::F64 => 0x43e0_0000_0000_0000u64,
        };
        let limit = self.fp_const_reg(size, two63);
        self.emit(K::FpToInt {
            rounded: false,
            size,
            width: Width::W64,
            dst,
            src: Rm::Reg(x),
        });
        let reduced = self.mir.new_xmm_vreg(size);
        self.emit(K::Copy {
            dst: reduced,
            src: x,
        });
        self.emit(K::FpArith {
            op: FpOp::Sub,
            size,
            dst: reduced,
            src: Rm::Reg(limit),
        });
        let big = self.vreg(Width::W64);
        self.emit(K::FpToInt {
            rounded: false,
            size,
            width: Width::W64,
            dst: big,
            src: Rm::Reg(reduced),
        });
        self.flip_top_bit(big);
        self.emit(K::FpCmp {
            size,
            lhs: x,
            rhs: Rm::Reg(limit),
            signaling: false,
        });
        self.emit(K::Cmov {
            cond: Cond::Ae,
            width: Width::W64,
            dst,
            src: Rm::Reg(big),
        });
    }

    /// `select` of floating-point values.
    pub(super) fn lower_fp_select(
        &mut self,
        id: InstId,
        size: FpSize,
        cond: &Value,
        if_true: &Value,
        if_false: &Value,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let width = size.width();
        let t = self.reg(if_true)?;
        let fv = self.reg(if_false)?;
        let chosen = self.vreg(Width::W64);
        let t_bits = self.vreg(Width::W64);
        self.emit(K::MovFromXmm {
            width,
            dst: chosen,
            src: fv,
        });
        self.emit(K::MovFromXmm {
            width,
            dst: t_bits,
            src: t,
        });
        let cc = self.condition(cond)?;
        self.emit(K::Cmov {
            cond: cc,
            width: Width::W64,
            dst: chosen,
            src: Rm::Reg(t_bits),
        });
        self.emit(K::MovToXmm {
            width,
            dst,
            src: Rm::Reg(chosen),
        });
        Ok(())
    }

    /// A load of a `float` or `double`.
    pub(super) fn lower_fp_load(
        &mut self,
        id: InstId,
        size: FpSize,
        ptr: &Value,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let addr = self.address(ptr)?;
        self.emit(K::FpLoad { dst, addr, size });
        Ok(())
    }

    /// A store of a `float` or `double` (a constant goes through a
    /// general-purpose register's immediate when it fits one).
    pub(super) fn lower_fp_store(
        &mut self,
        size: FpSize,
        value: &Value,
        ptr: &Value,
    ) -> Result<(), Diagnostic> {
        if let Value::Const(c) = value {
            if let Some(bits) = self.fp_const_bits(c, size) {
                let width = size.width();
                let addr = self.address(ptr)?;
                match i32::try_from(bits as i64) {
                    Ok(imm) if size == FpSize::F64 || bits <= 0x7fff_ffff => {
                        self.emit(K::Store {
                            src: Ri::Imm(imm),
                            addr,
                            width,
                        });
                    }
                    _ => {
                        let g = self.vreg(width);
                        self.emit(K::MovImm {
                            dst: g,
                            imm: bits as i64,
                            width,
                        });
                        self.emit(K::Store {
                            src: Ri::Reg(g),
                            addr,
                            width,
                        });
                    }
                }
                return Ok(());
            }
        }
        let src = self.reg(value)?;
        let addr = self.address(ptr)?;
        self.emit(K::FpStore { src, addr, size });
        Ok(())
    }

    /// A floating-point intrinsic, if `name` is one (`Ok(false)` if not).
    pub(super) fn lower_fp_intrinsic(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<bool, Diagnostic> {
        let Some(intrinsic) = fp_intrinsic(name) else {
            return Ok(false);
        };
        let unsupported = || format!("unsupported intrinsic '{name}'");
        let Some(first) = args.first() else {
            return Err(self.error(unsupported()));
        };
        let size = self
            .fp_size_of(&first.value)?
            .ok_or_else(|| self.error(unsupported()))?;
        let dst = self.dst(id)?;
        let mut regs = Vec::with_capacity(args.len());
        for arg in args {
            regs.push(self.reg(&arg.value)?);
        }
        match (intrinsic, regs.as_slice()) {
            (FpIntrinsic::Fabs, [a]) => {
                let mask = self.fp_mask(size, !sign_bit(size) & mask_of(size));
                self.emit(K::Copy { dst, src: *a });
                self.emit(K::FpLogic {
                    op: FpLogicOp::And,
                    dst,
                    src: mask,
                });
            }
            (FpIntrinsic::CopySign, [a, b]) => {
                let sign = self.fp_mask(size, sign_bit(size));
                let sign_of_b = self.mir.new_xmm_vreg(size);
                self.emit(K::Copy {
                    dst: sign_of_b,
                    src: sign,
                });
                self.emit(K::FpLogic {
                    op: FpLogicOp::And,
                    dst: sign_of_b,
                    src: *b,
                });
                // andnps: dst = !sign & a, the magnitude of a.
                self.emit(K::Copy { dst, src: sign });
                self.emit(K::FpLogic {
                    op: FpLogicOp::AndNot,
                    dst,
                    src: *a,
                });
                self.emit(K::FpLogic {
                    op: FpLogicOp::Or,
                    dst,
                    src: sign_of_b,
                });
            }
            (FpIntrinsic::Sqrt, [a]) => self.emit(K::FpSqrt {
                size,
                dst,
                src: Rm::Reg(*a),
            }),
            (FpIntrinsic::MulAdd, [a, b, c]) => {
                self.emit(K::Copy { dst, src: *a });
                self.emit(K::FpArith {
                    op: FpOp::Mul,
                    size,
                    dst,
                    src: Rm::Reg(*b),
                });
                self.emit(K::FpArith {
                    op: FpOp::Add,
                    size,
                    dst,
                    src: Rm::Reg(*c),
                });
            }
            (FpIntrinsic::Libm(base), regs) => {
                let regs = regs.to_vec();
                self.call_fp_helper(libm_name(base, size), &regs, Some(dst))?;
            }
            _ => return Err(self.error(unsupported())),
        }
        Ok(true)
    }

    /// Calls a libm function whose arguments and result are all
    /// floating-point values in xmm registers.
    fn call_fp_helper(
        &mut self,
        name: String,
        args: &[Reg],
        result: Option<Reg>,
    ) -> Result<(), Diagnostic> {
        let mut used = Vec::with_capacity(args.len());
        for (&r, &x) in args
            .iter()
            .zip(crate::x86::abi::XMM_ARGUMENT_REGISTERS.iter())
        {
            self.emit(K::Copy {
                dst: Reg::from(x),
                src: r,
            });
            used.push(x.into());
        }
        let ret = crate::x86::abi::XMM_RETURN_REGISTER;
        self.emit(K::Call {
            target: crate::codegen::mir::CallTarget::Symbol(name),
            args: used,
            rets: result.map(|_| ret.into()).into_iter().collect(),
            clobbers: crate::x86::abi::CALLER_SAVED,
            unwind: None,
        });
        if let Some(dst) = result {
            self.emit(K::Copy {
                dst,
                src: Reg::from(ret),
            });
        }
        Ok(())
    }

    /// The register class and width of a value of type `ty` (`None` for
    /// types without one).
    pub(super) fn class_of_type(&self, ty: &Type) -> Option<(RegClass, Width)> {
        match ty {
            Type::Int(bits) if *bits <= 64 => Some((RegClass::General, container(*bits))),
            Type::Ptr => Some((RegClass::General, Width::W64)),
            _ => fp_size(ty).map(|s| (RegClass::Xmm, s.width())),
        }
    }
}

/// All bits of a value of `size`.
fn mask_of(size: FpSize) -> i64 {
    match size {
        FpSize::F32 => 0xffff_ffff,
        FpSize::F64 => -1,
    }
}

/// The libm name of `base` at `size` (`floor`, `floorf`).
fn libm_name(base: &str, size: FpSize) -> String {
    match size {
        FpSize::F32 => format!("{base}f"),
        FpSize::F64 => base.to_string(),
    }
}
