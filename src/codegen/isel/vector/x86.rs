//! The SSE and SSE2 intrinsics of `<xmmintrin.h>` and `<emmintrin.h>`
//! that clang keeps as `llvm.x86.*` calls on 128-bit vectors (those with a
//! generic IR form, such as `_mm_add_epi32` or `_mm_movemask_epi8`, never
//! reach here).
//!
//! In: a call named in [`x86_vector_form`]. Out: its one instruction, as
//! llc-19 -O2 selects it for the x86-64 baseline: `psadbw`, `pmaddwd`,
//! `packsswb`/`packssdw`/`packuswb`, `pavgb`/`pavgw`, `pmulhw`/`pmulhuw`,
//! `minps`/`maxps`/`minpd`/`maxpd`/`minss`/`maxss`/`minsd`/`maxsd`,
//! `cvtps2dq`/`cvtpd2dq`/`cvtpd2ps`, `rsqrtps`/`rcpps`, `rsqrtss`/`rcpss`
//! (the low lane; the others come from the operand),
//! `cvtss2si`/`cvtsd2si` (the low lane to an integer), `comis`/`ucomis`
//! with `setcc` (`comieq`... `ucomineq`, NaN-correct as Intel defines
//! them: false on NaN except `neq`), and the shifts by
//! an xmm count (`psll*`/`psrl*`/`psra*`) or by an integer (`pslli.*`...:
//! an immediate when the count is a constant, else the count moved into
//! an xmm register with `movd`, so every count the intrinsic may get
//! shifts as the hardware does).
//!
//! Rule: each operand and the result is one 16-byte part; the first
//! operand is copied into the result, which the instruction then updates
//! (`dst op= src`), so the allocator coalesces the copy where it can.

use super::*;

/// How one intrinsic is selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum X86VectorForm {
    /// `dst = a op b`.
    Binary(PackedOp),
    /// `dst = op a`.
    Unary(PackedOp),
    /// A shift by an `i32` count: the immediate form for a constant count,
    /// else the form taking the count in an xmm register.
    ShiftByInt(PackedShift, PackedOp),
    /// The low lane to a signed integer of the width in the current
    /// rounding mode (`cvtss2si`/`cvtsd2si`).
    ToInt(FpSize, Width),
    /// The low lanes compared (`comis`, or `ucomis` when not signaling)
    /// to an `i32` 0 or 1, as `fcmp` with this predicate.
    Compare(FpSize, FCmpPred, bool),
}

/// The form of the `llvm.x86.*` intrinsic `name` on vectors, if it is one
/// selected here.
pub(crate) fn x86_vector_form(name: &str) -> Option<X86VectorForm> {
    use PackedOp as P;
    use PackedShift as S;
    use X86VectorForm::{Binary, Compare, ShiftByInt, ToInt, Unary};
    Some(match name.strip_prefix("llvm.x86.")? {
        "sse2.psad.bw" => Binary(P::SadBW),
        "sse2.pmadd.wd" => Binary(P::MaddWD),
        "sse2.packsswb.128" => Binary(P::PackSsWB),
        "sse2.packssdw.128" => Binary(P::PackSsDW),
        "sse2.packuswb.128" => Binary(P::PackUsWB),
        "sse2.pavg.b" => Binary(P::AvgB),
        "sse2.pavg.w" => Binary(P::AvgW),
        "sse2.pmulh.w" => Binary(P::MulHiW),
        "sse2.pmulhu.w" => Binary(P::MulHiUW),
        "sse.min.ps" => Binary(P::MinPs),
        "sse.max.ps" => Binary(P::MaxPs),
        "sse2.min.pd" => Binary(P::MinPd),
        "sse2.max.pd" => Binary(P::MaxPd),
        "sse.min.ss" => Binary(P::MinSs),
        "sse.max.ss" => Binary(P::MaxSs),
        "sse2.min.sd" => Binary(P::MinSd),
        "sse2.max.sd" => Binary(P::MaxSd),
        "sse2.psll.w" => Binary(P::ShlW),
        "sse2.psll.d" => Binary(P::ShlD),
        "sse2.psll.q" => Binary(P::ShlQ),
        "sse2.psrl.w" => Binary(P::ShrW),
        "sse2.psrl.d" => Binary(P::ShrD),
        "sse2.psrl.q" => Binary(P::ShrQ),
        "sse2.psra.w" => Binary(P::SarW),
        "sse2.psra.d" => Binary(P::SarD),
        "sse2.cvtps2dq" => Unary(P::CvtPs2Dq),
        "sse2.cvtpd2dq" => Unary(P::CvtPd2Dq),
        "sse2.cvtpd2ps" => Unary(P::CvtPd2Ps),
        "sse.rsqrt.ps" => Unary(P::RsqrtPs),
        "sse.rcp.ps" => Unary(P::RcpPs),
        "sse.rsqrt.ss" => Unary(P::RsqrtSs),
        "sse.rcp.ss" => Unary(P::RcpSs),
        "sse2.pslli.w" => ShiftByInt(S::LeftW, P::ShlW),
        "sse2.pslli.d" => ShiftByInt(S::LeftD, P::ShlD),
        "sse2.pslli.q" => ShiftByInt(S::LeftQ, P::ShlQ),
        "sse2.psrli.w" => ShiftByInt(S::RightW, P::ShrW),
        "sse2.psrli.d" => ShiftByInt(S::RightD, P::ShrD),
        "sse2.psrli.q" => ShiftByInt(S::RightQ, P::ShrQ),
        "sse2.psrai.w" => ShiftByInt(S::ArithW, P::SarW),
        "sse2.psrai.d" => ShiftByInt(S::ArithD, P::SarD),
        "sse.cvtss2si" => ToInt(FpSize::F32, Width::W32),
        "sse.cvtss2si64" => ToInt(FpSize::F32, Width::W64),
        "sse2.cvtsd2si" => ToInt(FpSize::F64, Width::W32),
        "sse2.cvtsd2si64" => ToInt(FpSize::F64, Width::W64),
        comparison => {
            let (size, rest) = if let Some(rest) = comparison.strip_prefix("sse.") {
                (FpSize::F32, rest.strip_suffix(".ss")?)
            } else {
                (
                    FpSize::F64,
                    comparison.strip_prefix("sse2.")?.strip_suffix(".sd")?,
                )
            };
            let (signaling, predicate) = match rest.strip_prefix("u") {
                Some(rest) => (false, rest.strip_prefix("comi")?),
                None => (true, rest.strip_prefix("comi")?),
            };
            // Intel's definitions: false on NaN, but `neq` true on NaN.
            let pred = match predicate {
                "eq" => FCmpPred::Oeq,
                "lt" => FCmpPred::Olt,
                "le" => FCmpPred::Ole,
                "gt" => FCmpPred::Ogt,
                "ge" => FCmpPred::Oge,
                "neq" => FCmpPred::Une,
                _ => return None,
            };
            Compare(size, pred, signaling)
        }
    })
}

impl Selector<'_> {
    /// Selects the call `id` of the intrinsic `name` (of
    /// [`x86_vector_form`]) with arguments `args`.
    pub(super) fn lower_x86_vector(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<(), Diagnostic> {
        let form = x86_vector_form(name)
            .ok_or_else(|| self.error(format!("unsupported intrinsic '{name}' on vectors")))?;
        let values: Vec<&Value> = args.iter().map(|a| &a.value).collect();
        if let (X86VectorForm::Compare(size, pred, signaling), [a, b]) = (form, values.as_slice()) {
            let (&[a], &[b]) = (&self.parts(a)?[..], &self.parts(b)?[..]) else {
                return Err(self.error(format!("an operand of '{name}' is not one 16-byte vector")));
            };
            let dst = self.dst(id)?;
            self.compare_fp(size, pred, a, b, dst, signaling);
            return Ok(());
        }
        if let (X86VectorForm::ToInt(size, width), [a]) = (form, values.as_slice()) {
            let [a] = self.parts(a)?[..] else {
                return Err(
                    self.error(format!("the operand of '{name}' is not one 16-byte vector"))
                );
            };
            let dst = self.dst(id)?;
            self.emit(K::FpToInt {
                size,
                width,
                rounded: true,
                dst,
                src: Rm::Reg(a),
            });
            return Ok(());
        }
        let [dst] = self.result_parts(id)[..] else {
            return Err(self.error(format!("'{name}' does not return one 16-byte vector")));
        };
        let first = |s: &mut Self, v: &Value| -> Result<Reg, Diagnostic> {
            match s.parts(v)?[..] {
                [part] => Ok(part),
                _ => Err(s.error(format!("an operand of '{name}' is not one 16-byte vector"))),
            }
        };
        match (form, values.as_slice()) {
            (X86VectorForm::Binary(op), [a, b]) => {
                let (a, b) = (first(self, a)?, first(self, b)?);
                self.emit(K::Copy { dst, src: a });
                self.emit(K::Packed { op, dst, src: b });
            }
            (X86VectorForm::Unary(op), [a]) => {
                let a = first(self, a)?;
                self.emit(K::Copy { dst, src: a });
                self.emit(K::Packed { op, dst, src: a });
            }
            (X86VectorForm::ShiftByInt(by_imm, by_xmm), [a, count]) => {
                let a = first(self, a)?;
                self.emit(K::Copy { dst, src: a });
                match count {
                    Value::Const(c) if c.zext_value().is_some() => {
                        // A count the lanes cannot hold clears them (or fills
                        // them with the sign), as any count above 255 does.
                        let count = c.zext_value().unwrap_or(0) as u32;
                        let imm = count.min(255) as u8;
                        self.emit(K::PackedShiftImm {
                            op: by_imm,
                            dst,
                            imm,
                        });
                    }
                    _ => {
                        let n = self.reg(count)?;
                        let counts = self.mir.new_vector_vreg();
                        self.emit(K::MovToXmm {
                            width: Width::W32,
                            dst: counts,
                            src: Rm::Reg(n),
                        });
                        self.emit(K::Packed {
                            op: by_xmm,
                            dst,
                            src: counts,
                        });
                    }
                }
            }
            _ => return Err(self.error(format!("'{name}' with {} operands", values.len()))),
        }
        Ok(())
    }
}
