//! The 16-bit saturating subtract clang's vectoriser writes at 32 bits
//! (zlib's `slide_hash`/`fill_window`), selected as one `psubusw`.
//!
//! In: `trunc <8 x i32> (usub.sat (zext <8 x i16> x), splat i32 s) to
//! <8 x i16>`, where the `usub.sat` has the `trunc` as its only user and
//! the `zext` the `usub.sat`. Out: `psubusw x, splat16(umin(s, 0xffff))` at
//! the `trunc`; the `zext` and the `usub.sat` select nothing. A splat of a
//! scalar `s` whose every user is such a `usub.sat` is selected, where it
//! stands (out of the loop, as LLVM hoists it), as the clamped word splat
//! itself; otherwise the clamp is made at the `trunc`.
//!
//! Rule it follows: the shape is exact for every `x` and `s`. A lane of `x`
//! is at most 0xffff, so `max(x - s, 0)` fits 16 bits (the `trunc` drops
//! nothing) and, when `s >= 0xffff`, is 0 as `max(x - 0xffff, 0)` is; so
//! `s` clamped to 0xffff gives the same lanes at 16 bits. A constant `s` is
//! folded into a constant splat. The `zext`, `usub.sat` and splat are split
//! (two-part) vectors, which have no debug location anyway, so leaving them
//! unselected changes nothing a debugger sees; uses are counted over
//! instructions only, so `-g` never changes the code.

use super::*;

/// The 32-bit subtrahend of the pattern: a constant or a scalar value.
enum Subtrahend {
    /// A constant splat, already clamped to 0xffff.
    Constant(u16),
    /// The `i32` value inserted in lane 0 of the splat.
    Scalar(Value),
}

impl Selector<'_> {
    /// The only instruction using `id`'s result, if exactly one does.
    fn sole_user(&self, id: InstId) -> Option<InstId> {
        match self.users(id) {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Every instruction using `id`'s result (once per use).
    pub(in crate::codegen::isel) fn users(&self, id: InstId) -> &[InstId] {
        let index = self.users.get_or_init(|| {
            let mut users = vec![Vec::new(); self.f.insts.len()];
            for block in &self.f.blocks {
                for &user in &block.insts {
                    for op in self.f.inst(user).operands().iter() {
                        if let Value::Inst(used) = op {
                            users[used.0 as usize].push(user);
                        }
                    }
                }
            }
            users
        });
        &index[id.0 as usize]
    }

    /// Whether `id` is a splat of a scalar whose every user is the
    /// `usub.sat` of a pattern: it is then selected as the clamped word
    /// splat itself (once, where it is, so out of the loop).
    fn splat_only_in_narrow_subtracts(&self, id: InstId) -> bool {
        if !matches!(
            self.splat_subtrahend(&Value::Inst(id)),
            Some(Subtrahend::Scalar(_))
        ) {
            return false;
        }
        let users = self.users(id);
        !users.is_empty()
            && users.iter().all(|&sub| {
                self.sole_user(sub)
                    .and_then(|trunc| self.narrow_subtract(trunc))
                    .is_some_and(|(s, _, _, _)| s == sub)
                    && matches!(&self.f.inst(sub).kind,
                        InstKind::Call { args, .. } if args[0].value != Value::Inst(id))
            })
    }

    /// Selects a splat every user of which is a pattern's `usub.sat` as
    /// `splat16(umin(s, 0xffff))` in its first part.
    pub(super) fn lower_subtrahend_splat(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        if !self.splat_only_in_narrow_subtracts(id) {
            return Ok(false);
        }
        let Some(Subtrahend::Scalar(v)) = self.splat_subtrahend(&Value::Inst(id)) else {
            return Ok(false);
        };
        let splat = self.clamped_word_splat(&v)?;
        let dst = self.result_parts(id)[0];
        self.emit(K::Copy { dst, src: splat });
        Ok(true)
    }

    /// `umin(s, 0xffff)` of the `i32` `v`, in every word lane.
    fn clamped_word_splat(&mut self, v: &Value) -> Result<Reg, Diagnostic> {
        let s = self.reg(v)?;
        let clamped = self.vreg(Width::W32);
        self.emit(K::Copy {
            dst: clamped,
            src: s,
        });
        let limit = self.vreg(Width::W32);
        self.emit(K::MovImm {
            dst: limit,
            imm: 0xffff,
            width: Width::W32,
        });
        self.emit(K::Cmp {
            width: Width::W32,
            lhs: Rm::Reg(clamped),
            rhs: Rmi::Imm(0xffff),
        });
        self.emit(K::Cmov {
            cond: Cond::A,
            width: Width::W32,
            dst: clamped,
            src: Rm::Reg(limit),
        });
        let low = self.mir.new_vector_vreg();
        self.emit(K::MovToXmm {
            width: Width::W32,
            dst: low,
            src: Rm::Reg(clamped),
        });
        Ok(self.splat_register(
            low,
            VecTy {
                lanes: 8,
                lane: Lane::Int(16),
            },
        ))
    }

    /// Whether `ty` is `<8 x iK>`.
    fn is_eight_lanes_of(ty: &Type, bits: u32) -> bool {
        matches!(ty, Type::Vector { len: 8, elem } if **elem == Type::Int(bits))
    }

    /// The splat of `v` (an `<8 x i32>`): a constant or lane 0 of an
    /// `insertelement` at index 0 that every defined mask lane takes.
    fn splat_subtrahend(&self, v: &Value) -> Option<Subtrahend> {
        if let Some(c) = Self::splat_constant(v) {
            let s = (c as u64) & 0xffff_ffff;
            return Some(Subtrahend::Constant(s.min(0xffff) as u16));
        }
        let Value::Inst(shuffle) = v else {
            return None;
        };
        let InstKind::ShuffleVector { lhs, mask, .. } = &self.f.inst(*shuffle).kind else {
            return None;
        };
        if !mask.iter().all(|m| matches!(m, None | Some(0))) {
            return None;
        }
        let Value::Inst(insert) = lhs else {
            return None;
        };
        let InstKind::InsertElement { elem, index, .. } = &self.f.inst(*insert).kind else {
            return None;
        };
        (self.const_int(index) == Some(0)).then(|| Subtrahend::Scalar(elem.clone()))
    }

    /// For a `trunc` of the pattern: the `usub.sat`, the `zext`, its
    /// `<8 x i16>` source and the subtrahend.
    fn narrow_subtract(&self, trunc: InstId) -> Option<(InstId, InstId, Value, Subtrahend)> {
        let inst = self.f.inst(trunc);
        let InstKind::Cast {
            op: CastOp::Trunc,
            value: Value::Inst(sub),
            ..
        } = &inst.kind
        else {
            return None;
        };
        if !Self::is_eight_lanes_of(&inst.ty, 16) {
            return None;
        }
        let InstKind::Call { callee, args, .. } = &self.f.inst(*sub).kind else {
            return None;
        };
        let callee = self.module.direct_callee(callee)?;
        if self.module.function(callee).name != "llvm.usub.sat.v8i32" || args.len() != 2 {
            return None;
        }
        let Value::Inst(zext) = &args[0].value else {
            return None;
        };
        let InstKind::Cast {
            op: CastOp::ZExt,
            value: x,
            ..
        } = &self.f.inst(*zext).kind
        else {
            return None;
        };
        if !Self::is_eight_lanes_of(&self.f.value_type(x), 16)
            || self.sole_user(*sub) != Some(trunc)
            || self.sole_user(*zext) != Some(*sub)
        {
            return None;
        }
        let s = self.splat_subtrahend(&args[1].value)?;
        Some((*sub, *zext, x.clone(), s))
    }

    /// The second operand (the splat) of the `usub.sat` `sub`.
    fn splat_operand(&self, sub: InstId) -> Value {
        match &self.f.inst(sub).kind {
            InstKind::Call { args, .. } => args[1].value.clone(),
            _ => Value::Const(Constant::Null),
        }
    }

    /// Whether `id` is the `usub.sat` or the `zext` of a pattern selected at
    /// its `trunc` (and so selects nothing itself).
    pub(super) fn inside_narrow_subtract(&self, id: InstId) -> bool {
        let inst = self.f.inst(id);
        let sub = match &inst.kind {
            InstKind::Cast {
                op: CastOp::ZExt, ..
            } if Self::is_eight_lanes_of(&inst.ty, 32) => self.sole_user(id),
            InstKind::Call { .. } if Self::is_eight_lanes_of(&inst.ty, 32) => Some(id),
            _ => None,
        };
        let Some(sub) = sub else {
            return false;
        };
        let Some(trunc) = self.sole_user(sub) else {
            return false;
        };
        self.narrow_subtract(trunc)
            .is_some_and(|(s, z, _, _)| s == sub && (z == id || s == id))
    }

    /// Selects the `trunc` `id` as `psubusw` if it ends the pattern.
    pub(super) fn lower_narrow_subtract(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let Some((sub, _, x, s)) = self.narrow_subtract(id) else {
            return Ok(false);
        };
        let splat = match s {
            Subtrahend::Constant(c) => self.splat_bytes(2, u64::from(c)),
            Subtrahend::Scalar(v) => match self.splat_operand(sub) {
                Value::Inst(splat) if self.splat_only_in_narrow_subtracts(splat) => {
                    self.result_parts(splat)[0]
                }
                _ => self.clamped_word_splat(&v)?,
            },
        };
        let x = self.parts(&x)?[0];
        let dst = self.result_parts(id)[0];
        self.emit(K::Copy { dst, src: x });
        self.emit(K::Packed {
            op: PackedOp::SubUsW,
            dst,
            src: splat,
        });
        Ok(true)
    }
}
