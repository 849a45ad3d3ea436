//! Native SSE2 selection of the lane operations the fallback of
//! [`super`] would otherwise do one lane at a time through memory.
//!
//! In: one vector instruction (compare, select on a vector condition,
//! integer extension or truncation, conversion between int and fp lanes,
//! byte multiply, shift by constants, constant-index insert and extract,
//! shuffle, the min/max/saturating/abs/funnel-shift intrinsics, integer
//! reductions). Out: packed SSE2 instructions over the parts, or `false`
//! when the form has no pattern here (the caller then goes lane by lane).
//!
//! Rules it follows (the shapes `llc-19 -O2` gives the same IR for the
//! x86-64 baseline; nothing beyond SSE2 is used):
//! - A compare is computed as a mask as wide as its operands' lanes
//!   (`pcmpeq*`/`pcmpgt*`, unsigned compares with the sign bits flipped,
//!   64-bit lanes from dword compares, `cmpps`/`cmppd` for floats) and packed
//!   to the one-byte-per-lane layout of an `<N x i1>` with `packsswb`/
//!   `packssdw` (saturating packs keep 0 and -1).
//! - A select on a vector condition widens the condition's bytes back with
//!   `punpckl*`/`punpckh*` of the mask with itself, or recomputes the
//!   compare at the data's width when the condition is a compare of lanes
//!   that wide, and blends with `pand`/`pandn`/`por`.
//! - zext/sext interleave with zero or with the sign mask (`pcmpgt` of zero);
//!   trunc halves lanes with `pand`+`packuswb`, `pslld`/`psrad`+`packssdw`
//!   and `shufps`.
//! - Conversions are `cvtdq2ps`/`cvttps2dq`/`cvtdq2pd`/`cvttpd2dq`/
//!   `cvtps2pd`/`cvtpd2ps`, narrow integer lanes extended or truncated
//!   around them.
//! - Shifts by constants that differ per lane shift once per count and
//!   blend; byte shifts are word shifts masked; `ashr` without a native
//!   form is `((x >> c) ^ m) - m` with `m` the shifted sign bit.
//! - Shuffles are matched part by part, each at the coarsest lane size the
//!   mask allows: copies, `pshufd`, `pshuflw`/`pshufhw`, `psrldq`/`pslldq`,
//!   `punpckl*`/`punpckh*`, `shufps`, and for 32/64-bit lanes from two parts
//!   two `pshufd` and a blend with a constant mask.

use super::*;
use crate::codegen::mir::FpCmpPredicate;

/// How one 16-byte part of a shuffle's result is made.
#[derive(Clone, Copy, Debug)]
enum PartPlan {
    /// No lane defined.
    Undefined,
    /// A source part as it is.
    Copy(usize),
    /// `pshufd` of a source part.
    Dwords(usize, u8),
    /// `pshuflw` then `pshufhw` of a source part.
    Words(usize, u8, u8),
    /// `psrldq` (true) or `pslldq` of a source part by some bytes.
    ShiftBytes(usize, bool, u8),
    /// `punpckl*` (true) or `punpckh*` of two source parts, lanes of `bytes`.
    Unpack(usize, usize, bool, u32),
    /// `shufps` of two source parts.
    Shufps(usize, usize, u8),
    /// `pshufd` of each of two parts, blended by a mask of dword lanes
    /// (bit i set: dword i from the first).
    Blend(usize, u8, usize, u8, u8),
}

impl Selector<'_> {
    // ---- small helpers ---------------------------------------------------------

    /// A fresh vector register holding a copy of `src`.
    fn vcopy(&mut self, src: Reg) -> Reg {
        let t = self.mir.new_vector_vreg();
        self.emit(K::Copy { dst: t, src });
        t
    }

    /// `dst op= src`.
    fn packed(&mut self, op: PackedOp, dst: Reg, src: Reg) {
        self.emit(K::Packed { op, dst, src });
    }

    /// A fresh register `a op b`.
    fn packed_new(&mut self, op: PackedOp, a: Reg, b: Reg) -> Reg {
        let t = self.vcopy(a);
        self.packed(op, t, b);
        t
    }

    /// A fresh register `a` shifted by `imm`.
    fn shifted(&mut self, op: PackedShift, a: Reg, imm: u8) -> Reg {
        let t = self.vcopy(a);
        self.emit(K::PackedShiftImm { op, dst: t, imm });
        t
    }

    /// A fresh register `pshufd`/`pshuflw`/`pshufhw` of `src`.
    fn shuffled(&mut self, op: PackedShuffle, src: Reg, imm: u8) -> Reg {
        let dst = self.mir.new_vector_vreg();
        self.emit(K::PackedShuffleImm { op, dst, src, imm });
        dst
    }

    /// A register of zeros.
    fn zeros(&mut self) -> Reg {
        let t = self.mir.new_vector_vreg();
        self.emit(K::XmmZero { dst: t });
        t
    }

    /// A register of all ones (`pcmpeqd` of a register with itself).
    fn ones(&mut self) -> Reg {
        let t = self.zeros();
        self.packed(PackedOp::CmpEqD, t, t);
        t
    }

    /// A register holding 16 constant bytes (from the constant pool).
    fn const_bytes(&mut self, bytes: [u8; 16]) -> Reg {
        if bytes == [0; 16] {
            return self.zeros();
        }
        if bytes == [0xff; 16] {
            return self.ones();
        }
        let id = self.mir.constant(&bytes);
        let dst = self.mir.new_vector_vreg();
        self.emit(K::VecLoad {
            dst,
            addr: Address {
                base: AddressBase::Constant(id),
                index: None,
                disp: 0,
            },
            bytes: 16,
        });
        dst
    }

    /// `value` in every lane of `lane_bytes`.
    pub(super) fn splat_bytes(&mut self, lane_bytes: u32, value: u64) -> Reg {
        let mut out = [0u8; 16];
        for (i, b) in out.iter_mut().enumerate() {
            *b = (value >> (8 * (i as u32 % lane_bytes))) as u8;
        }
        self.const_bytes(out)
    }

    /// `mask ? a : b` bit by bit (`pand`, `pandn`, `por`).
    fn blend(&mut self, mask: Reg, a: Reg, b: Reg) -> Reg {
        let keep = self.packed_new(PackedOp::AndNot, mask, b);
        let d = self.packed_new(PackedOp::And, mask, a);
        self.packed(PackedOp::Or, d, keep);
        d
    }

    /// The lane size in bytes of a vector's lanes as a mask would cover them.
    fn lane_bytes(lane: Lane) -> u32 {
        lane.bytes()
    }

    // ---- compares ----------------------------------------------------------------

    /// The signed `pcmpgt` and `pcmpeq` of a lane size (8, 16, 32 bits).
    fn compare_ops(bits: u32) -> (PackedOp, PackedOp) {
        match bits {
            8 => (PackedOp::CmpGtB, PackedOp::CmpEqB),
            16 => (PackedOp::CmpGtW, PackedOp::CmpEqW),
            _ => (PackedOp::CmpGtD, PackedOp::CmpEqD),
        }
    }

    /// The mask (lanes as wide as the operands') of `a pred b` for lanes of
    /// `bits` (8, 16, 32 or 64).
    fn int_compare_mask(&mut self, pred: ICmpPred, bits: u32, a: Reg, b: Reg) -> Reg {
        use ICmpPred as P;
        // (swap the operands, negate the result, greater rather than equal)
        let (swap, negate, greater) = match pred {
            P::Eq => (false, false, false),
            P::Ne => (false, true, false),
            P::Sgt | P::Ugt => (false, false, true),
            P::Slt | P::Ult => (true, false, true),
            P::Sge | P::Uge => (true, true, true),
            P::Sle | P::Ule => (false, true, true),
        };
        let unsigned = matches!(pred, P::Ugt | P::Uge | P::Ult | P::Ule);
        let (x, y) = if swap { (b, a) } else { (a, b) };
        let mask = if !greater {
            self.equal_mask(bits, x, y)
        } else if bits == 8 && unsigned {
            // x > y unsigned: not (max(x, y) == y).
            let m = self.packed_new(PackedOp::MaxUB, x, y);
            self.packed(PackedOp::CmpEqB, m, y);
            let ones = self.ones();
            self.packed(PackedOp::Xor, m, ones);
            m
        } else if bits < 64 {
            let (gt, _) = Self::compare_ops(bits);
            if unsigned {
                let flip = self.splat_bytes(bits / 8, 1u64 << (bits - 1));
                let xf = self.packed_new(PackedOp::Xor, x, flip);
                let yf = self.packed_new(PackedOp::Xor, y, flip);
                self.packed(gt, xf, yf);
                xf
            } else {
                self.packed_new(gt, x, y)
            }
        } else {
            // 64-bit lanes: the high dwords decide, else the low dwords
            // (compared unsigned).
            let flip_value = if unsigned {
                0x8000_0000_8000_0000
            } else {
                0x8000_0000
            };
            let flip = self.splat_bytes(8, flip_value);
            let xf = self.packed_new(PackedOp::Xor, x, flip);
            let yf = self.packed_new(PackedOp::Xor, y, flip);
            let gt = self.packed_new(PackedOp::CmpGtD, xf, yf);
            self.packed(PackedOp::CmpEqD, xf, yf);
            let low_gt = self.shuffled(PackedShuffle::Dwords, gt, 0xa0);
            let high_eq = self.shuffled(PackedShuffle::Dwords, xf, 0xf5);
            self.packed(PackedOp::And, high_eq, low_gt);
            let high_gt = self.shuffled(PackedShuffle::Dwords, gt, 0xf5);
            self.packed(PackedOp::Or, high_eq, high_gt);
            high_eq
        };
        if negate {
            let ones = self.ones();
            self.packed(PackedOp::Xor, mask, ones);
        }
        mask
    }

    /// The mask of `x == y` for lanes of `bits`.
    fn equal_mask(&mut self, bits: u32, x: Reg, y: Reg) -> Reg {
        if bits < 64 {
            let (_, eq) = Self::compare_ops(bits);
            return self.packed_new(eq, x, y);
        }
        let e = self.packed_new(PackedOp::CmpEqD, x, y);
        let swapped = self.shuffled(PackedShuffle::Dwords, e, 0xb1);
        self.packed(PackedOp::And, e, swapped);
        e
    }

    /// The mask (lanes as wide as the operands') of `a pred b` for float
    /// or double lanes, NaN-correct (`cmpps`/`cmppd`).
    fn fp_compare_mask(&mut self, pred: FCmpPred, size: FpSize, a: Reg, b: Reg) -> Reg {
        use FCmpPred as C;
        use FpCmpPredicate as M;
        let cmp = |p: M| match size {
            FpSize::F32 => PackedOp::CmpPs(p),
            FpSize::F64 => PackedOp::CmpPd(p),
        };
        let single = |swap: bool, p: M| Some((swap, p));
        let rule = match pred {
            C::False => return self.zeros(),
            C::True => return self.ones(),
            C::Oeq => single(false, M::Eq),
            C::Olt => single(false, M::Lt),
            C::Ole => single(false, M::Le),
            C::Ogt => single(true, M::Lt),
            C::Oge => single(true, M::Le),
            C::Uno => single(false, M::Unord),
            C::Ord => single(false, M::Ord),
            C::Une => single(false, M::Neq),
            C::Uge => single(false, M::Nlt),
            C::Ugt => single(false, M::Nle),
            C::Ule => single(true, M::Nlt),
            C::Ult => single(true, M::Nle),
            C::One | C::Ueq => None,
        };
        match rule {
            Some((swap, p)) => {
                let (x, y) = if swap { (b, a) } else { (a, b) };
                self.packed_new(cmp(p), x, y)
            }
            None => {
                // one: ordered and not equal; ueq: unordered or equal.
                let (first, second, join) = if pred == C::One {
                    (M::Ord, M::Neq, PackedOp::And)
                } else {
                    (M::Unord, M::Eq, PackedOp::Or)
                };
                let m = self.packed_new(cmp(first), a, b);
                let n = self.packed_new(cmp(second), a, b);
                self.packed(join, m, n);
                m
            }
        }
    }

    /// The wide masks of a vector compare instruction, one per part of its
    /// operands, or `None` if `id` is no vector compare.
    fn compare_masks(&mut self, id: InstId) -> Result<Option<(Vec<Reg>, u32)>, Diagnostic> {
        let inst = self.f.inst(id);
        let (lhs, rhs) = match &inst.kind {
            InstKind::ICmp { lhs, rhs, .. } | InstKind::FCmp { lhs, rhs, .. } => (lhs, rhs),
            _ => return Ok(None),
        };
        let ty = self.must_vector(lhs)?;
        let a = self.parts(lhs)?;
        let b = self.parts(rhs)?;
        let mut masks = Vec::with_capacity(a.len());
        for (x, y) in a.into_iter().zip(b) {
            let m = match (&inst.kind, ty.lane) {
                (InstKind::ICmp { pred, .. }, Lane::Int(bits)) => {
                    self.int_compare_mask(*pred, bits, x, y)
                }
                (InstKind::ICmp { pred, .. }, Lane::Bool) => self.int_compare_mask(*pred, 8, x, y),
                (InstKind::FCmp { pred, .. }, Lane::Fp(size)) => {
                    self.fp_compare_mask(*pred, size, x, y)
                }
                _ => return Ok(None),
            };
            masks.push(m);
        }
        Ok(Some((masks, Self::lane_bytes(ty.lane))))
    }

    /// Packs masks of `lane_bytes`-wide lanes (all ones or all zeros) into
    /// the one-byte-per-lane layout, `count` parts.
    fn pack_masks(&mut self, mut masks: Vec<Reg>, mut lane_bytes: u32, count: usize) -> Vec<Reg> {
        while lane_bytes > 1 {
            let op = if lane_bytes >= 4 {
                PackedOp::PackSsDW
            } else {
                PackedOp::PackSsWB
            };
            let mut next = Vec::with_capacity(masks.len().div_ceil(2));
            for pair in masks.chunks(2) {
                let other = *pair.get(1).unwrap_or(&pair[0]);
                next.push(self.packed_new(op, pair[0], other));
            }
            masks = next;
            lane_bytes /= 2;
        }
        masks.truncate(count);
        masks
    }

    /// Widens one-byte-per-lane masks to lanes of `lane_bytes`, `count`
    /// parts (each byte interleaved with itself).
    fn widen_masks(&mut self, mut masks: Vec<Reg>, lane_bytes: u32, count: usize) -> Vec<Reg> {
        let mut size = 1;
        while size < lane_bytes {
            let (lo, hi) = match size {
                1 => (PackedOp::UnpackLoBW, PackedOp::UnpackHiBW),
                2 => (PackedOp::UnpackLoWD, PackedOp::UnpackHiWD),
                _ => (PackedOp::UnpackLoDQ, PackedOp::UnpackHiDQ),
            };
            size *= 2;
            let needed = (count * size as usize).div_ceil(lane_bytes as usize);
            let mut next = Vec::with_capacity(needed);
            for &m in &masks {
                if next.len() < needed {
                    next.push(self.packed_new(lo, m, m));
                }
                if next.len() < needed {
                    next.push(self.packed_new(hi, m, m));
                }
            }
            masks = next;
        }
        masks.truncate(count);
        masks
    }

    /// `icmp`/`fcmp` of vectors as packed compares, packed to bytes.
    pub(super) fn native_compare(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let Some((masks, lane_bytes)) = self.compare_masks(id)? else {
            return Ok(false);
        };
        let dst = self.result_parts(id);
        let packed = self.pack_masks(masks, lane_bytes, dst.len());
        for (d, m) in dst.into_iter().zip(packed) {
            self.emit(K::Copy { dst: d, src: m });
        }
        Ok(true)
    }

    /// The masks of a select's vector condition at the data's lane width.
    fn select_masks(
        &mut self,
        cond: &Value,
        lane_bytes: u32,
        count: usize,
    ) -> Result<Vec<Reg>, Diagnostic> {
        if let Value::Inst(c) = cond {
            let operand = match &self.f.inst(*c).kind {
                InstKind::ICmp { lhs, .. } | InstKind::FCmp { lhs, .. } => Some(lhs.clone()),
                _ => None,
            };
            if let Some(lhs) = operand {
                let ty = self.must_vector(&lhs)?;
                if Self::lane_bytes(ty.lane) == lane_bytes {
                    if let Some((masks, _)) = self.compare_masks(*c)? {
                        if masks.len() == count {
                            return Ok(masks);
                        }
                    }
                }
            }
        }
        let bytes = self.parts(cond)?;
        Ok(self.widen_masks(bytes, lane_bytes, count))
    }

    /// `select` on a vector condition: the condition's mask widened to the
    /// lanes, then `pand`/`pandn`/`por`.
    pub(super) fn native_select(
        &mut self,
        id: InstId,
        cond: &Value,
        if_true: &Value,
        if_false: &Value,
    ) -> Result<bool, Diagnostic> {
        let ty = self.must_vector(if_true)?;
        let dst = self.result_parts(id);
        let masks = self.select_masks(cond, Self::lane_bytes(ty.lane), dst.len())?;
        let t = self.parts(if_true)?;
        let f = self.parts(if_false)?;
        for (((d, m), a), b) in dst.into_iter().zip(masks).zip(t).zip(f) {
            let r = self.blend(m, a, b);
            self.emit(K::Copy { dst: d, src: r });
        }
        Ok(true)
    }

    // ---- extension and truncation -------------------------------------------------

    /// `zext`/`sext`/`trunc` between integer (or boolean) lanes.
    pub(super) fn native_int_cast(
        &mut self,
        id: InstId,
        op: CastOp,
        value: &Value,
        from: VecTy,
        to: VecTy,
    ) -> Result<bool, Diagnostic> {
        let (Lane::Int(_) | Lane::Bool, Lane::Int(_) | Lane::Bool) = (from.lane, to.lane) else {
            return Ok(false);
        };
        let src = self.parts(value)?;
        let dst = self.result_parts(id);
        let (a, b) = (from.lane.bytes(), to.lane.bytes());
        let out = match op {
            CastOp::ZExt | CastOp::SExt if a < b || from.lane == Lane::Bool => {
                // A boolean is its mask sign-extended; zext then takes 0 - mask.
                let signed = op == CastOp::SExt || from.lane == Lane::Bool;
                let mut parts = self.extend_lanes(src, a, b, signed, to.lanes);
                if from.lane == Lane::Bool && op == CastOp::ZExt {
                    let sub = match b {
                        1 => PackedOp::SubB,
                        2 => PackedOp::SubW,
                        4 => PackedOp::SubD,
                        _ => PackedOp::SubQ,
                    };
                    for p in &mut parts {
                        let z = self.zeros();
                        self.packed(sub, z, *p);
                        *p = z;
                    }
                }
                parts
            }
            CastOp::Trunc if a > b || to.lane == Lane::Bool => {
                let mut parts = self.truncate_lanes(src, a, b);
                if to.lane == Lane::Bool {
                    // Bit 0 of each byte to a 0x00/0xff mask.
                    for p in &mut parts {
                        let one = self.splat_bytes(1, 1);
                        let t = self.packed_new(PackedOp::And, *p, one);
                        self.packed(PackedOp::CmpEqB, t, one);
                        *p = t;
                    }
                }
                parts
            }
            _ => return Ok(false),
        };
        if out.len() < dst.len() {
            return Err(self.error("internal: a vector cast made too few parts".into()));
        }
        for (d, s) in dst.into_iter().zip(out) {
            self.emit(K::Copy { dst: d, src: s });
        }
        Ok(true)
    }

    /// Lanes of `from` bytes widened to `to` bytes (`lanes` of them):
    /// each step interleaves with zero or with the sign mask.
    fn extend_lanes(
        &mut self,
        mut parts: Vec<Reg>,
        from: u32,
        to: u32,
        signed: bool,
        lanes: u32,
    ) -> Vec<Reg> {
        let mut size = from;
        while size < to {
            let (lo, hi, gt) = match size {
                1 => (PackedOp::UnpackLoBW, PackedOp::UnpackHiBW, PackedOp::CmpGtB),
                2 => (PackedOp::UnpackLoWD, PackedOp::UnpackHiWD, PackedOp::CmpGtW),
                _ => (PackedOp::UnpackLoDQ, PackedOp::UnpackHiDQ, PackedOp::CmpGtD),
            };
            size *= 2;
            let needed = (lanes * size).div_ceil(16) as usize;
            let mut next = Vec::with_capacity(needed);
            for &p in &parts {
                let high = self.zeros();
                if signed {
                    self.packed(gt, high, p);
                }
                if next.len() < needed {
                    next.push(self.packed_new(lo, p, high));
                }
                if next.len() < needed {
                    next.push(self.packed_new(hi, p, high));
                }
            }
            parts = next;
        }
        parts
    }

    /// Lanes of `from` bytes truncated to `to` bytes, halving the lanes
    /// step by step and packing two parts into one.
    fn truncate_lanes(&mut self, mut parts: Vec<Reg>, from: u32, to: u32) -> Vec<Reg> {
        let mut size = from;
        while size > to {
            let prepared: Vec<Reg> = match size {
                2 => {
                    let low = self.splat_bytes(2, 0x00ff);
                    parts
                        .iter()
                        .map(|&p| self.packed_new(PackedOp::And, p, low))
                        .collect()
                }
                4 => parts
                    .iter()
                    .map(|&p| {
                        let t = self.shifted(PackedShift::LeftD, p, 16);
                        self.emit(K::PackedShiftImm {
                            op: PackedShift::ArithD,
                            dst: t,
                            imm: 16,
                        });
                        t
                    })
                    .collect(),
                _ => parts.clone(),
            };
            let op = match size {
                2 => PackedOp::PackUsWB,
                4 => PackedOp::PackSsDW,
                _ => PackedOp::ShufPs(0x88),
            };
            let mut next = Vec::with_capacity(prepared.len().div_ceil(2));
            for pair in prepared.chunks(2) {
                let other = *pair.get(1).unwrap_or(&pair[0]);
                next.push(self.packed_new(op, pair[0], other));
            }
            parts = next;
            size /= 2;
        }
        parts
    }

    /// `sitofp` from lanes of up to 32 bits, `fptosi` to lanes of up to 32
    /// bits, `fpext` and `fptrunc` with `cvt*` (narrow integer lanes
    /// extended or truncated around the conversion).
    pub(super) fn native_fp_cast(
        &mut self,
        id: InstId,
        op: CastOp,
        value: &Value,
        from: VecTy,
        to: VecTy,
    ) -> Result<bool, Diagnostic> {
        let src = self.parts(value)?;
        let out = match (op, from.lane, to.lane) {
            (CastOp::SIToFP, Lane::Int(bits @ (8 | 16 | 32)), Lane::Fp(size)) => {
                let dwords = self.extend_lanes(src, bits / 8, 4, true, from.lanes);
                match size {
                    FpSize::F32 => self.convert_same(PackedOp::CvtDq2Ps, dwords),
                    FpSize::F64 => self.convert_widening(PackedOp::CvtDq2Pd, dwords, to),
                }
            }
            (CastOp::FPToSI, Lane::Fp(size), Lane::Int(bits @ (8 | 16 | 32))) => {
                let dwords = match size {
                    FpSize::F32 => self.convert_same(PackedOp::CvtTPs2Dq, src),
                    FpSize::F64 => self.convert_narrowing(PackedOp::CvtTPd2Dq, src),
                };
                self.truncate_lanes(dwords, 4, bits / 8)
            }
            (CastOp::FPExt, Lane::Fp(FpSize::F32), Lane::Fp(FpSize::F64)) => {
                self.convert_widening(PackedOp::CvtPs2Pd, src, to)
            }
            (CastOp::FPTrunc, Lane::Fp(FpSize::F64), Lane::Fp(FpSize::F32)) => {
                self.convert_narrowing(PackedOp::CvtPd2Ps, src)
            }
            _ => return Ok(false),
        };
        let dst = self.result_parts(id);
        if out.len() < dst.len() {
            return Err(self.error("internal: a vector conversion made too few parts".into()));
        }
        for (d, s) in dst.into_iter().zip(out) {
            self.emit(K::Copy { dst: d, src: s });
        }
        Ok(true)
    }

    /// A conversion keeping the lane size, part by part.
    fn convert_same(&mut self, op: PackedOp, parts: Vec<Reg>) -> Vec<Reg> {
        parts
            .into_iter()
            .map(|p| {
                let t = self.vcopy(p);
                self.packed(op, t, p);
                t
            })
            .collect()
    }

    /// A conversion from 4-byte lanes to 8-byte lanes (which reads the low
    /// half of its source): each source part gives two result parts.
    fn convert_widening(&mut self, op: PackedOp, parts: Vec<Reg>, to: VecTy) -> Vec<Reg> {
        (0..to.parts())
            .map(|j| {
                let p = parts[j / 2];
                let src = if j % 2 == 0 {
                    p
                } else {
                    self.shuffled(PackedShuffle::Dwords, p, 0xee)
                };
                let t = self.vcopy(src);
                self.packed(op, t, src);
                t
            })
            .collect()
    }

    /// A conversion from 8-byte lanes to 4-byte lanes (which writes the low
    /// half of its result): two source parts join into one.
    fn convert_narrowing(&mut self, op: PackedOp, parts: Vec<Reg>) -> Vec<Reg> {
        let converted = self.convert_same(op, parts);
        converted
            .chunks(2)
            .map(|pair| match pair {
                [a, b] => self.packed_new(PackedOp::UnpackLoQDQ, *a, *b),
                _ => pair[0],
            })
            .collect()
    }

    // ---- shifts and byte multiplies -------------------------------------------------

    /// Integer operations the packed instructions of [`super`] leave out:
    /// `mul` of bytes (word multiplies of the interleaved bytes, packed),
    /// shifts of bytes by a constant (word shifts and a mask), `ashr` of
    /// 64-bit lanes (a logical shift with the sign bit moved by xor and
    /// sub), and shifts by constant vectors whose lanes differ (one shift
    /// per count, blended).
    pub(super) fn native_binary(
        &mut self,
        id: InstId,
        op: BinOp,
        bits: u32,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<bool, Diagnostic> {
        let dst = self.result_parts(id);
        let mut out = Vec::with_capacity(dst.len());
        match op {
            BinOp::Mul if bits == 8 => {
                let a = self.parts(lhs)?;
                let b = self.parts(rhs)?;
                for (x, y) in a.into_iter().zip(b) {
                    let low = self.splat_bytes(2, 0x00ff);
                    let mut halves = Vec::with_capacity(2);
                    for unpack in [PackedOp::UnpackLoBW, PackedOp::UnpackHiBW] {
                        let xw = self.packed_new(unpack, x, x);
                        let yw = self.packed_new(unpack, y, y);
                        self.packed(PackedOp::MulLoW, xw, yw);
                        self.packed(PackedOp::And, xw, low);
                        halves.push(xw);
                    }
                    out.push(self.packed_new(PackedOp::PackUsWB, halves[0], halves[1]));
                }
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                let Some(counts) = self.constant_lanes_exact(rhs) else {
                    return Ok(false);
                };
                if counts.iter().any(|&c| c >= u64::from(bits)) {
                    return Ok(false);
                }
                let a = self.parts(lhs)?;
                let per_part = (128 / bits) as usize;
                for (k, x) in a.into_iter().enumerate() {
                    let lanes: Vec<u32> = (0..per_part)
                        .map(|i| counts.get(k * per_part + i).map_or(0, |&c| c as u32))
                        .collect();
                    out.push(self.shift_by_constants(op, bits, x, &lanes));
                }
            }
            _ => return Ok(false),
        }
        for (d, s) in dst.into_iter().zip(out) {
            self.emit(K::Copy { dst: d, src: s });
        }
        Ok(true)
    }

    /// The lanes of a constant integer vector, if it is one (undefined
    /// lanes count 0).
    fn constant_lanes_exact(&self, v: &Value) -> Option<Vec<u64>> {
        match v {
            Value::Const(Constant::Vector { elems, .. }) => elems
                .iter()
                .map(|e| match e {
                    Constant::Int { value, .. } => Some(*value as u64),
                    Constant::Undef(_) | Constant::Poison(_) | Constant::Zero(_) => Some(0),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// One part shifted lane by lane by constant counts (each below `bits`).
    fn shift_by_constants(&mut self, op: BinOp, bits: u32, x: Reg, counts: &[u32]) -> Reg {
        self.per_distinct_count(bits, counts, x, |s, c| s.shift_lanes_by(op, bits, x, c))
    }

    /// Lane by lane constant counts (`bits`-wide lanes): `lanes_by(c)`
    /// computes every lane with count `c`; the lanes are then picked by
    /// mask and joined, one computation per distinct count (`fallback` when
    /// there are no lanes).
    fn per_distinct_count(
        &mut self,
        bits: u32,
        counts: &[u32],
        fallback: Reg,
        mut lanes_by: impl FnMut(&mut Self, u32) -> Reg,
    ) -> Reg {
        let mut distinct: Vec<u32> = counts.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let mut result: Option<Reg> = None;
        for &c in &distinct {
            let value = lanes_by(self, c);
            if distinct.len() == 1 {
                return value;
            }
            let mut mask = [0u8; 16];
            let lane_bytes = (bits / 8) as usize;
            for (i, &k) in counts.iter().enumerate() {
                if k == c {
                    mask[i * lane_bytes..(i + 1) * lane_bytes].fill(0xff);
                }
            }
            let mask = self.const_bytes(mask);
            let picked = self.packed_new(PackedOp::And, value, mask);
            result = Some(match result {
                None => picked,
                Some(r) => {
                    self.packed(PackedOp::Or, r, picked);
                    r
                }
            });
        }
        result.unwrap_or(fallback)
    }

    /// Every lane of `x` shifted by `c` (below `bits`).
    fn shift_lanes_by(&mut self, op: BinOp, bits: u32, x: Reg, c: u32) -> Reg {
        if c == 0 {
            return x;
        }
        let imm = c as u8;
        let logical = match (op, bits) {
            (BinOp::Shl, 8 | 16) => PackedShift::LeftW,
            (BinOp::Shl, 32) => PackedShift::LeftD,
            (BinOp::Shl, _) => PackedShift::LeftQ,
            (_, 8 | 16) => PackedShift::RightW,
            (_, 32) => PackedShift::RightD,
            (_, _) => PackedShift::RightQ,
        };
        match (op, bits) {
            (BinOp::AShr, 16) => self.shifted(PackedShift::ArithW, x, imm),
            (BinOp::AShr, 32) => self.shifted(PackedShift::ArithD, x, imm),
            (_, 8) => {
                // Word shifts carry bits across the bytes: mask them off.
                let t = self.shifted(logical, x, imm);
                let keep = if op == BinOp::Shl {
                    0xffu64 << c
                } else {
                    0xffu64 >> c
                };
                let keep = self.splat_bytes(1, keep & 0xff);
                self.packed(PackedOp::And, t, keep);
                if op == BinOp::AShr {
                    let sign = self.splat_bytes(1, 0x80 >> c);
                    self.packed(PackedOp::Xor, t, sign);
                    self.packed(PackedOp::SubB, t, sign);
                }
                t
            }
            (BinOp::AShr, _) => {
                // ((x >> c) ^ m) - m with m the moved sign bit.
                let t = self.shifted(logical, x, imm);
                let sign = self.splat_bytes(8, 1u64 << (63 - c));
                self.packed(PackedOp::Xor, t, sign);
                self.packed(PackedOp::SubQ, t, sign);
                t
            }
            _ => self.shifted(logical, x, imm),
        }
    }

    // ---- lanes at a constant index ------------------------------------------------

    /// The register holding constant-index lane `lane` of `parts` at the
    /// bottom (the other bits unspecified).
    fn lane_to_bottom(&mut self, parts: &[Reg], ty: VecTy, lane: u32) -> Reg {
        let bytes = ty.lane.bytes();
        let per_part = 16 / bytes;
        let part = parts[(lane / per_part) as usize];
        let pos = lane % per_part;
        if pos == 0 {
            return part;
        }
        match bytes {
            4 => self.shuffled(PackedShuffle::Dwords, part, pos as u8),
            8 => self.shuffled(PackedShuffle::Dwords, part, 0xee),
            _ => self.shifted(PackedShift::RightBytes, part, (pos * bytes) as u8),
        }
    }

    /// `extractelement` at a constant index: the lane moved to the bottom
    /// (`pshufd`/`psrldq`), then `movd`/`movq` (zero-extended like the
    /// fallback's lane loads).
    pub(super) fn native_extract(
        &mut self,
        id: InstId,
        vector: &Value,
        index: &Value,
    ) -> Result<bool, Diagnostic> {
        let Some(index) = self.const_int(index) else {
            return Ok(false);
        };
        let ty = self.must_vector(vector)?;
        let lane = index as u64;
        if lane >= u64::from(ty.lanes) {
            return Ok(false);
        }
        let dst = self.dst(id)?;
        let parts = self.parts(vector)?;
        let bottom = self.lane_to_bottom(&parts, ty, lane as u32);
        match ty.lane {
            Lane::Fp(_) => self.emit(K::Copy { dst, src: bottom }),
            Lane::Int(64) => self.emit(K::MovFromXmm {
                width: Width::W64,
                dst,
                src: bottom,
            }),
            Lane::Int(32) => self.emit(K::MovFromXmm {
                width: Width::W32,
                dst,
                src: bottom,
            }),
            lane => {
                let t = self.vreg(Width::W32);
                self.emit(K::MovFromXmm {
                    width: Width::W32,
                    dst: t,
                    src: bottom,
                });
                let r = self.vreg(Width::W32);
                self.emit(K::Extend {
                    dst: r,
                    src: Rm::Reg(t),
                    from: lane.width(),
                    to: Width::W32,
                    signed: false,
                });
                if lane == Lane::Bool {
                    self.emit(K::Alu {
                        op: AluOp::And,
                        width: Width::W32,
                        dst: r,
                        src: Rmi::Imm(1),
                    });
                }
                self.emit(K::Copy { dst, src: r });
            }
        }
        Ok(true)
    }

    /// A scalar element in the bottom lane of a fresh vector register.
    fn element_to_vector(&mut self, elem: &Value, lane: Lane) -> Result<Reg, Diagnostic> {
        let r = self.reg(elem)?;
        let v = self.mir.new_vector_vreg();
        match lane {
            Lane::Fp(_) => self.emit(K::Copy { dst: v, src: r }),
            Lane::Int(64) => self.emit(K::MovToXmm {
                width: Width::W64,
                dst: v,
                src: Rm::Reg(r),
            }),
            Lane::Int(32) => self.emit(K::MovToXmm {
                width: Width::W32,
                dst: v,
                src: Rm::Reg(r),
            }),
            lane => {
                let t = self.vreg(Width::W32);
                self.emit(K::Copy { dst: t, src: r });
                if lane == Lane::Bool {
                    // 0/1 to the 0x00/0xff byte.
                    self.emit(K::Alu {
                        op: AluOp::And,
                        width: Width::W32,
                        dst: t,
                        src: Rmi::Imm(1),
                    });
                    self.emit(K::Unary {
                        op: UnaryOp::Neg,
                        width: Width::W32,
                        dst: t,
                    });
                }
                self.emit(K::MovToXmm {
                    width: Width::W32,
                    dst: v,
                    src: Rm::Reg(t),
                });
            }
        }
        Ok(v)
    }

    /// `insertelement` at a constant index: the element splatted
    /// (`movd`/`movq` and shuffles) and blended into its part with a
    /// constant lane mask; into an undefined vector's lane 0, only the
    /// `movd`/`movq`.
    pub(super) fn native_insert(
        &mut self,
        id: InstId,
        vector: &Value,
        elem: &Value,
        index: &Value,
    ) -> Result<bool, Diagnostic> {
        let Some(index) = self.const_int(index) else {
            return Ok(false);
        };
        let ty = self.must_vector(vector)?;
        let lane = index as u64;
        if lane >= u64::from(ty.lanes) {
            return Ok(false);
        }
        let lane = lane as u32;
        let bytes = ty.lane.bytes();
        let per_part = 16 / bytes;
        let (part, pos) = ((lane / per_part) as usize, lane % per_part);
        let dst = self.result_parts(id);
        let undefined = matches!(
            vector,
            Value::Const(Constant::Undef(_) | Constant::Poison(_))
        );
        let v = self.element_to_vector(elem, ty.lane)?;
        if undefined && pos == 0 {
            for (i, d) in dst.into_iter().enumerate() {
                if i == part {
                    self.emit(K::Copy { dst: d, src: v });
                } else {
                    self.emit(K::XmmZero { dst: d });
                }
            }
            return Ok(true);
        }
        let splat_ty = VecTy {
            lanes: per_part,
            lane: raw(ty.lane),
        };
        let splat = self.splat_register(v, splat_ty);
        let src = self.parts(vector)?;
        let mut mask = [0u8; 16];
        for b in &mut mask[(pos * bytes) as usize..((pos + 1) * bytes) as usize] {
            *b = 0xff;
        }
        let mask = self.const_bytes(mask);
        for (i, (d, s)) in dst.into_iter().zip(src).enumerate() {
            if i == part {
                let r = self.blend(mask, splat, s);
                self.emit(K::Copy { dst: d, src: r });
            } else {
                self.emit(K::Copy { dst: d, src: s });
            }
        }
        Ok(true)
    }

    // ---- shuffles ------------------------------------------------------------------

    /// `shufflevector` part by part with native shuffles, or `false` when a
    /// part has no pattern.
    pub(super) fn native_shuffle(
        &mut self,
        id: InstId,
        lhs: &Value,
        rhs: &Value,
        mask: &[Option<u32>],
    ) -> Result<bool, Diagnostic> {
        let ty = self.must_vector(lhs)?;
        let bytes = ty.lane.bytes();
        let per_part = 16 / bytes;
        let lhs_parts = ty.parts();
        // Each result lane: (source part, lane within it).
        let sources: Vec<Option<(usize, u32)>> = mask
            .iter()
            .map(|m| {
                m.map(|m| {
                    let (base, lane) = if m < ty.lanes {
                        (0, m)
                    } else {
                        (lhs_parts, m - ty.lanes)
                    };
                    (base + (lane / per_part) as usize, lane % per_part)
                })
            })
            .collect();
        let dst = self.result_parts(id);
        let mut plans = Vec::with_capacity(dst.len());
        for j in 0..dst.len() {
            let start = j * per_part as usize;
            let end = (start + per_part as usize).min(sources.len());
            let mut lanes: Vec<Option<(usize, u32)>> = sources[start..end].to_vec();
            lanes.resize(per_part as usize, None);
            match Self::plan_part(&lanes, bytes) {
                Some(p) => plans.push(p),
                None => return Ok(false),
            }
        }
        let mut all = self.parts(lhs)?;
        all.extend(self.parts(rhs)?);
        for (d, plan) in dst.into_iter().zip(plans) {
            let r = self.emit_part_plan(plan, &all);
            self.emit(K::Copy { dst: d, src: r });
        }
        Ok(true)
    }

    /// The coarsest lane size a part's lane sources keep (pairs of lanes
    /// that read a pair of adjacent lanes, aligned, merge).
    fn coarsen(lanes: &[Option<(usize, u32)>], bytes: u32) -> (Vec<Option<(usize, u32)>>, u32) {
        let mut lanes = lanes.to_vec();
        let mut bytes = bytes;
        while bytes < 8 {
            let mut merged = Vec::with_capacity(lanes.len() / 2);
            let mut ok = true;
            for pair in lanes.chunks(2) {
                let m = match (pair[0], pair[1]) {
                    (None, None) => None,
                    (Some((p, a)), Some((q, b))) if p == q && a % 2 == 0 && b == a + 1 => {
                        Some((p, a / 2))
                    }
                    (Some((p, a)), None) if a % 2 == 0 => Some((p, a / 2)),
                    (None, Some((q, b))) if b % 2 == 1 => Some((q, b / 2)),
                    _ => {
                        ok = false;
                        break;
                    }
                };
                merged.push(m);
            }
            if !ok {
                break;
            }
            lanes = merged;
            bytes *= 2;
        }
        (lanes, bytes)
    }

    /// How to make one result part whose lanes (of `bytes`) read `lanes`.
    fn plan_part(lanes: &[Option<(usize, u32)>], bytes: u32) -> Option<PartPlan> {
        let (lanes, bytes) = Self::coarsen(lanes, bytes);
        let n = lanes.len() as u32;
        let mut parts: Vec<usize> = Vec::new();
        for &(p, _) in lanes.iter().flatten() {
            if !parts.contains(&p) {
                parts.push(p);
            }
        }
        parts.sort_unstable();
        // A dword index for each result dword (as the lane maps it).
        let dword_index = |pos: u32, i: u32| -> u32 {
            match bytes {
                4 => pos,
                _ => 2 * pos + (i % 2),
            }
        };
        match parts.as_slice() {
            [] => Some(PartPlan::Undefined),
            [p] => {
                let p = *p;
                let pos: Vec<Option<u32>> = lanes.iter().map(|l| l.map(|(_, x)| x)).collect();
                if pos
                    .iter()
                    .enumerate()
                    .all(|(i, x)| x.is_none_or(|x| x == i as u32))
                {
                    return Some(PartPlan::Copy(p));
                }
                if bytes >= 4 {
                    let mut imm = 0u8;
                    let per_dword = bytes / 4;
                    for i in 0..4u32 {
                        let lane = i / per_dword;
                        let d = match pos[lane as usize] {
                            Some(x) => dword_index(x, i),
                            None => i,
                        };
                        imm |= (d as u8) << (2 * i);
                    }
                    return Some(PartPlan::Dwords(p, imm));
                }
                // Whole-register byte shifts.
                for k in 1..n {
                    if pos
                        .iter()
                        .enumerate()
                        .all(|(i, x)| x.is_none_or(|x| x == i as u32 + k))
                    {
                        return Some(PartPlan::ShiftBytes(p, true, (k * bytes) as u8));
                    }
                    if pos
                        .iter()
                        .enumerate()
                        .all(|(i, x)| x.is_none_or(|x| x + k == i as u32))
                    {
                        return Some(PartPlan::ShiftBytes(p, false, (k * bytes) as u8));
                    }
                }
                if bytes == 2 {
                    // Each half of the words from its own half.
                    let mut lo = 0u8;
                    let mut hi = 0u8;
                    for i in 0..8u32 {
                        let x = pos[i as usize].unwrap_or(i);
                        if (x < 4) != (i < 4) {
                            return None;
                        }
                        if i < 4 {
                            lo |= (x as u8) << (2 * i);
                        } else {
                            hi |= ((x - 4) as u8) << (2 * (i - 4));
                        }
                    }
                    return Some(PartPlan::Words(p, lo, hi));
                }
                None
            }
            [p, q] => {
                let (p, q) = (*p, *q);
                // Interleaves: result lane i from (i even ? first : second)
                // lane i/2 (+ n/2 for the high form).
                for (first, second) in [(p, q), (q, p)] {
                    for low in [true, false] {
                        let base = if low { 0 } else { n / 2 };
                        let fits = lanes.iter().enumerate().all(|(i, l)| {
                            l.is_none_or(|(s, x)| {
                                let want = if i % 2 == 0 { first } else { second };
                                s == want && x == base + i as u32 / 2
                            })
                        });
                        if fits {
                            return Some(PartPlan::Unpack(first, second, low, bytes));
                        }
                    }
                }
                if bytes < 4 {
                    return None;
                }
                let per_dword = bytes / 4;
                let dwords: Vec<Option<(usize, u32)>> = (0..4u32)
                    .map(|i| lanes[(i / per_dword) as usize].map(|(s, x)| (s, dword_index(x, i))))
                    .collect();
                // shufps: dwords 0-1 from one part, 2-3 from the other.
                for (first, second) in [(p, q), (q, p)] {
                    let fits = dwords.iter().enumerate().all(|(i, d)| {
                        d.is_none_or(|(s, _)| s == if i < 2 { first } else { second })
                    });
                    if fits {
                        let mut imm = 0u8;
                        for (i, d) in dwords.iter().enumerate() {
                            imm |= (d.map_or(i as u32, |(_, x)| x) as u8) << (2 * i);
                        }
                        return Some(PartPlan::Shufps(first, second, imm));
                    }
                }
                let (mut imm_p, mut imm_q, mut from_p) = (0u8, 0u8, 0u8);
                for (i, d) in dwords.iter().enumerate() {
                    if let Some((s, x)) = d {
                        if *s == p {
                            imm_p |= (*x as u8) << (2 * i);
                            from_p |= 1 << i;
                        } else {
                            imm_q |= (*x as u8) << (2 * i);
                        }
                    }
                }
                Some(PartPlan::Blend(p, imm_p, q, imm_q, from_p))
            }
            _ => None,
        }
    }

    /// Emits one part of a shuffle's result from the source parts `all`.
    fn emit_part_plan(&mut self, plan: PartPlan, all: &[Reg]) -> Reg {
        match plan {
            PartPlan::Undefined => self.zeros(),
            PartPlan::Copy(p) => all[p],
            PartPlan::Dwords(p, imm) => self.shuffled(PackedShuffle::Dwords, all[p], imm),
            PartPlan::Words(p, lo, hi) => {
                let mut r = all[p];
                if lo != 0xe4 {
                    r = self.shuffled(PackedShuffle::LowWords, r, lo);
                }
                if hi != 0xe4 {
                    r = self.shuffled(PackedShuffle::HighWords, r, hi);
                }
                r
            }
            PartPlan::ShiftBytes(p, right, by) => {
                let op = if right {
                    PackedShift::RightBytes
                } else {
                    PackedShift::LeftBytes
                };
                self.shifted(op, all[p], by)
            }
            PartPlan::Unpack(p, q, low, bytes) => {
                let op = match (low, bytes) {
                    (true, 1) => PackedOp::UnpackLoBW,
                    (true, 2) => PackedOp::UnpackLoWD,
                    (true, 4) => PackedOp::UnpackLoDQ,
                    (true, _) => PackedOp::UnpackLoQDQ,
                    (false, 1) => PackedOp::UnpackHiBW,
                    (false, 2) => PackedOp::UnpackHiWD,
                    (false, 4) => PackedOp::UnpackHiDQ,
                    (false, _) => PackedOp::UnpackHiQDQ,
                };
                self.packed_new(op, all[p], all[q])
            }
            PartPlan::Shufps(p, q, imm) => self.packed_new(PackedOp::ShufPs(imm), all[p], all[q]),
            PartPlan::Blend(p, imm_p, q, imm_q, from_p) => {
                let a = self.shuffled(PackedShuffle::Dwords, all[p], imm_p);
                let b = self.shuffled(PackedShuffle::Dwords, all[q], imm_q);
                let mut mask = [0u8; 16];
                for i in 0..4 {
                    if from_p & (1 << i) != 0 {
                        mask[4 * i..4 * i + 4].fill(0xff);
                    }
                }
                let mask = self.const_bytes(mask);
                self.blend(mask, a, b)
            }
        }
    }

    // ---- intrinsics ------------------------------------------------------------------

    /// `a op b` for the integer min/max family on registers of lanes of `bits`.
    fn min_max(&mut self, op: &str, bits: u32, a: Reg, b: Reg) -> Reg {
        let native = match (op, bits) {
            ("umin", 8) => Some(PackedOp::MinUB),
            ("umax", 8) => Some(PackedOp::MaxUB),
            ("smin", 16) => Some(PackedOp::MinSW),
            ("smax", 16) => Some(PackedOp::MaxSW),
            _ => None,
        };
        if let Some(op) = native {
            return self.packed_new(op, a, b);
        }
        let pred = match op {
            "smax" => ICmpPred::Sgt,
            "smin" => ICmpPred::Slt,
            "umax" => ICmpPred::Ugt,
            _ => ICmpPred::Ult,
        };
        let mask = self.int_compare_mask(pred, bits, a, b);
        self.blend(mask, a, b)
    }

    /// `a op b` for a reduction's operation (add, and, or, xor, min/max).
    fn reduce_step(&mut self, op: &str, bits: u32, a: Reg, b: Reg) -> Option<Reg> {
        let p = match op {
            "add" => match bits {
                8 => PackedOp::AddB,
                16 => PackedOp::AddW,
                32 => PackedOp::AddD,
                _ => PackedOp::AddQ,
            },
            "and" => PackedOp::And,
            "or" => PackedOp::Or,
            "xor" => PackedOp::Xor,
            "smax" | "smin" | "umax" | "umin" => return Some(self.min_max(op, bits, a, b)),
            _ => return None,
        };
        Some(self.packed_new(p, a, b))
    }

    /// The element-wise integer intrinsics natively: min/max, saturating
    /// add/sub, abs, and funnel shifts by constants.
    pub(super) fn native_int_intrinsic(
        &mut self,
        id: InstId,
        op: &str,
        bits: u32,
        values: &[&Value],
    ) -> Result<bool, Diagnostic> {
        let dst = self.result_parts(id);
        let mut out = Vec::with_capacity(dst.len());
        match (op, values) {
            ("smax" | "smin" | "umax" | "umin", [a, b]) => {
                let a = self.parts(a)?;
                let b = self.parts(b)?;
                for (x, y) in a.into_iter().zip(b) {
                    out.push(self.min_max(op, bits, x, y));
                }
            }
            ("ssub" | "sadd", [a, b]) => {
                let op = match (op, bits) {
                    ("ssub", 8) => PackedOp::SubSsB,
                    ("ssub", 16) => PackedOp::SubSsW,
                    ("sadd", 8) => PackedOp::AddSsB,
                    ("sadd", 16) => PackedOp::AddSsW,
                    _ => return Ok(false),
                };
                let a = self.parts(a)?;
                let b = self.parts(b)?;
                for (x, y) in a.into_iter().zip(b) {
                    out.push(self.packed_new(op, x, y));
                }
            }
            ("usub" | "uadd", [a, b]) => {
                let a = self.parts(a)?;
                let b = self.parts(b)?;
                for (x, y) in a.into_iter().zip(b) {
                    let r = match (op, bits) {
                        ("usub", 8) => self.packed_new(PackedOp::SubUsB, x, y),
                        ("usub", 16) => self.packed_new(PackedOp::SubUsW, x, y),
                        ("uadd", 8) => self.packed_new(PackedOp::AddUsB, x, y),
                        ("uadd", 16) => self.packed_new(PackedOp::AddUsW, x, y),
                        ("usub", _) => {
                            // max(x, y) - y.
                            let m = self.min_max("umax", bits, x, y);
                            let sub = if bits == 32 {
                                PackedOp::SubD
                            } else {
                                PackedOp::SubQ
                            };
                            self.packed(sub, m, y);
                            m
                        }
                        _ => {
                            // The sum, or all ones where it wrapped below x.
                            let add = if bits == 32 {
                                PackedOp::AddD
                            } else {
                                PackedOp::AddQ
                            };
                            let s = self.packed_new(add, x, y);
                            let wrapped = self.int_compare_mask(ICmpPred::Ult, bits, s, x);
                            self.packed(PackedOp::Or, s, wrapped);
                            s
                        }
                    };
                    out.push(r);
                }
            }
            ("abs", [a, _]) => {
                let a = self.parts(a)?;
                for x in a {
                    // (x ^ sign) - sign.
                    let sign = self.zeros();
                    match bits {
                        8 => self.packed(PackedOp::CmpGtB, sign, x),
                        16 => self.packed(PackedOp::CmpGtW, sign, x),
                        32 => self.packed(PackedOp::CmpGtD, sign, x),
                        _ => {
                            let high = self.shuffled(PackedShuffle::Dwords, x, 0xf5);
                            self.packed(PackedOp::CmpGtD, sign, high);
                        }
                    }
                    let sub = match bits {
                        8 => PackedOp::SubB,
                        16 => PackedOp::SubW,
                        32 => PackedOp::SubD,
                        _ => PackedOp::SubQ,
                    };
                    let r = self.packed_new(PackedOp::Xor, x, sign);
                    self.packed(sub, r, sign);
                    out.push(r);
                }
            }
            ("fshl" | "fshr", [a, b, c]) if bits >= 16 => {
                let Some(counts) = self.constant_lanes(c, bits) else {
                    return Ok(false);
                };
                let a = self.parts(a)?;
                let b = self.parts(b)?;
                let per_part = (128 / bits) as usize;
                for (k, (x, y)) in a.into_iter().zip(b).enumerate() {
                    let lanes: Vec<u32> = (0..per_part)
                        .map(|i| counts.get(k * per_part + i).copied().unwrap_or(0))
                        .collect();
                    out.push(self.funnel_by_constants(op == "fshl", bits, x, y, &lanes));
                }
            }
            _ => return Ok(false),
        }
        for (d, s) in dst.into_iter().zip(out) {
            self.emit(K::Copy { dst: d, src: s });
        }
        Ok(true)
    }

    /// The lanes of a constant integer vector (modulo `bits`), if it is one.
    fn constant_lanes(&self, v: &Value, bits: u32) -> Option<Vec<u32>> {
        match v {
            Value::Const(Constant::Vector { elems, .. }) => elems
                .iter()
                .map(|e| match e {
                    Constant::Int { value, .. } => Some((*value as u64 % u64::from(bits)) as u32),
                    Constant::Undef(_) | Constant::Poison(_) | Constant::Zero(_) => Some(0),
                    _ => None,
                })
                .collect(),
            Value::Const(Constant::Zero(_)) => Some(Vec::new()),
            _ => None,
        }
    }

    /// `fshl`/`fshr` of one part by constant per-lane counts: for each
    /// distinct count two shifts and an `or`, blended into the lanes that
    /// use it.
    fn funnel_by_constants(
        &mut self,
        left: bool,
        bits: u32,
        a: Reg,
        b: Reg,
        counts: &[u32],
    ) -> Reg {
        let (shl, shr) = match bits {
            16 => (PackedShift::LeftW, PackedShift::RightW),
            32 => (PackedShift::LeftD, PackedShift::RightD),
            _ => (PackedShift::LeftQ, PackedShift::RightQ),
        };
        self.per_distinct_count(bits, counts, a, |s, c| {
            // fshl: a << c | b >> (bits - c); fshr: a << (bits - c) | b >> c.
            if c == 0 {
                if left {
                    a
                } else {
                    b
                }
            } else {
                let (up, down) = if left { (c, bits - c) } else { (bits - c, c) };
                let hi = s.shifted(shl, a, up as u8);
                let lo = s.shifted(shr, b, down as u8);
                s.packed(PackedOp::Or, hi, lo);
                hi
            }
        })
    }

    /// An integer `llvm.vector.reduce.*` (add, and, or, xor, min/max) of a
    /// power-of-two lane count by halving: the parts folded together, then
    /// the upper half of the live bytes shifted down (`psrldq`) and
    /// combined, down to one lane moved out with `movd`/`movq`.
    pub(super) fn native_reduce(
        &mut self,
        id: InstId,
        op: &str,
        vector: &Value,
    ) -> Result<bool, Diagnostic> {
        let ty = self.must_vector(vector)?;
        let bits = match ty.lane {
            Lane::Int(bits) => bits,
            _ => return Ok(false),
        };
        if !ty.lanes.is_power_of_two()
            || !matches!(
                op,
                "add" | "and" | "or" | "xor" | "smax" | "smin" | "umax" | "umin"
            )
        {
            return Ok(false);
        }
        let parts = self.parts(vector)?;
        let mut acc = parts[0];
        for &p in &parts[1..] {
            acc = self
                .reduce_step(op, bits, acc, p)
                .ok_or_else(|| self.error("internal: reduction step".into()))?;
        }
        let lane_bytes = bits / 8;
        let mut live = (ty.lanes * lane_bytes).min(16);
        while live > lane_bytes {
            live /= 2;
            let high = self.shifted(PackedShift::RightBytes, acc, live as u8);
            acc = self
                .reduce_step(op, bits, acc, high)
                .ok_or_else(|| self.error("internal: reduction step".into()))?;
        }
        let dst = self.dst(id)?;
        match bits {
            64 => self.emit(K::MovFromXmm {
                width: Width::W64,
                dst,
                src: acc,
            }),
            32 => self.emit(K::MovFromXmm {
                width: Width::W32,
                dst,
                src: acc,
            }),
            _ => {
                let t = self.vreg(Width::W32);
                self.emit(K::MovFromXmm {
                    width: Width::W32,
                    dst: t,
                    src: acc,
                });
                let r = self.vreg(Width::W32);
                self.emit(K::Extend {
                    dst: r,
                    src: Rm::Reg(t),
                    from: if bits == 8 { Width::W8 } else { Width::W16 },
                    to: Width::W32,
                    signed: false,
                });
                self.emit(K::Copy { dst, src: r });
            }
        }
        Ok(true)
    }
}
