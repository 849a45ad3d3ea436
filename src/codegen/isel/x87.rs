//! Instruction selection for `x86_fp80` (`long double`) with the x87 unit.
//!
//! In: IR instructions computing with `x86_fp80` values (`fadd`/`fsub`/
//! `fmul`/`fdiv`/`frem`, `fneg`, `fcmp`, conversions to and from `float`,
//! `double` and integers, the floating-point intrinsics), and
//! `x86_fp80` parameters, call arguments, call results and returns. Out:
//! general-purpose MIR around [`InstKind::X87`](K::X87) sequences.
//!
//! Rules it follows:
//! - An `x86_fp80` value lives in two general-purpose virtual registers,
//!   the leaves [`super::aggregate`] gives it: the 64-bit significand (bytes
//!   0..8 in memory) and the 16-bit sign and exponent (bytes 8..10). Loads,
//!   stores, phis, selects and `freeze` move the leaves like any
//!   aggregate's, and the register allocator spills them like integers.
//! - The x87 register stack is used only inside one `X87` MIR instruction:
//!   its operands are stored from their leaves to the function's x87
//!   scratch slot, the sequence loads them (`fld tbyte`, `fild`), computes,
//!   and stores the result back there (`fstp`, `fistp`), from where the
//!   result's leaves (or an integer, or a float) are loaded. So the stack is
//!   empty between MIR instructions: no pass, the call frame information
//!   or a variable's location ever has to describe an x87 register. The two
//!   exceptions are the ABI's: a call's `x86_fp80` result arrives in st(0)
//!   and the `X87` right after the call (after an `invoke`, at the start
//!   of the block only its return reaches) stores it, and a returned one is
//!   loaded into st(0) by the `X87` right before `ret`.
//! - `fneg`, `fabs` and `copysign` are bit operations on the sign and
//!   exponent leaf (`fchs`/`fabs` change nothing else either).
//! - `fcmp` uses `fucomip`, whose flags read as those of `ucomisd`, so the
//!   predicates are those of [`super::fp`]'s compares; `llvm.is.fpclass`
//!   reads the class `fxam` leaves in the status word.
//! - Conversions to integers truncate through the control word (`fnstcw`,
//!   rounding toward zero, `fistp`, the word restored), as llc does without
//!   SSE3's `fisttp`; a 64-bit unsigned one converts `x` and `x - 2^63`
//!   and picks by `x >= 2^63`; an unsigned 64-bit integer is converted as
//!   signed and 2^64 added when its top bit is set.
//! - Debug values: an `x86_fp80` variable is described by its two leaves
//!   as pieces (`Selector::lower_split_record`), so its location follows
//!   the registers and spill slots the allocator gives them; no debug
//!   value names the scratch slot or the x87 stack, and none changes what
//!   is selected.
//! - Parameters and arguments take 16 bytes of the stack argument area,
//!   aligned to 16 (the SysV class X87 is passed in memory); results come
//!   back in st(0), a complex `{ x86_fp80, x86_fp80 }` in st(0) and st(1). `frem` and the rounding and transcendental intrinsics
//!   call libm's `long double` functions (`fmodl`, `floorl`...).

use super::*;
use crate::codegen::mir::{X87Format, X87Step};

/// The `x86_fp80` type.
const FP80: Type = Type::Float(ir::FloatKind::X86Fp80);

/// Byte offsets in the scratch slot: the first operand and the result,
/// the second operand, an integer or float, the control words, a float
/// constant.
const FIRST: i32 = 0;
const SECOND: i32 = 16;
const SCALAR: i32 = 32;
const CONTROL: i32 = 40;
const CONSTANT: i32 = 44;

/// The `llvm.is.fpclass` test bits other than the NaNs', with the `fxam`
/// class each is (status word bits 8 to 14 under 0x47: C0 is 1, the sign
/// C1 2, C2 4, C3 0x40).
const FPCLASS_CODES: [(u32, i32); 8] = [
    (2, 0x07), // -infinity
    (3, 0x06), // -normal
    (4, 0x46), // -subnormal
    (5, 0x42), // -zero
    (6, 0x40), // +zero
    (7, 0x44), // +subnormal
    (8, 0x04), // +normal
    (9, 0x05), // +infinity
];

/// 2^63 and 2^64 as `float` bits.
const TWO_63_F32: i32 = 0x5f00_0000;
const TWO_64_F32: i64 = 0x5f80_0000;

/// The leaves of an `x86_fp80`: the significand, then sign and exponent.
pub(super) fn fp80_leaves(offset: u64) -> [aggregate::Leaf; 2] {
    [
        aggregate::Leaf {
            ty: Type::Int(64),
            offset,
        },
        aggregate::Leaf {
            ty: Type::Int(16),
            offset: offset + 8,
        },
    ]
}

/// Whether `ty` is or holds an `x86_fp80`.
fn holds_fp80(module: &Module, ty: &Type) -> bool {
    match ty {
        Type::Float(ir::FloatKind::X86Fp80) => true,
        Type::Array { elem, .. } | Type::Vector { elem, .. } => holds_fp80(module, elem),
        Type::Struct { .. } | Type::Named(_) => module
            .struct_fields(ty)
            .is_some_and(|(fields, _)| fields.iter().any(|f| holds_fp80(module, f))),
        _ => false,
    }
}

/// The libm `long double` function of an intrinsic on `x86_fp80`
/// (`llvm.floor.f80` → `floorl`), if it is one.
fn libm_long_double(name: &str) -> Option<&'static str> {
    let base = name.strip_prefix("llvm.")?.split('.').next()?;
    Some(match base {
        "fma" => "fmal",
        "minnum" => "fminl",
        "maxnum" => "fmaxl",
        "floor" => "floorl",
        "ceil" => "ceill",
        "trunc" => "truncl",
        "round" => "roundl",
        "roundeven" => "roundevenl",
        "rint" => "rintl",
        "nearbyint" => "nearbyintl",
        "pow" => "powl",
        "exp" => "expl",
        "exp2" => "exp2l",
        "log" => "logl",
        "log2" => "log2l",
        "log10" => "log10l",
        "sin" => "sinl",
        "cos" => "cosl",
        _ => return None,
    })
}

impl Selector<'_> {
    /// An error when an aggregate `ty` holds an `x86_fp80` (its leaves
    /// would travel as integers where the ABI wants memory or the x87
    /// stack).
    pub(super) fn refuse_fp80_member(&self, ty: &Type, what: &str) -> Result<(), Diagnostic> {
        if *ty != FP80 && holds_fp80(self.module, ty) {
            return Err(self.error(format!(
                "unsupported {what} of type {} holding x86_fp80",
                type_name(self.module, ty)
            )));
        }
        Ok(())
    }

    /// The function's x87 scratch slot (48 bytes, 16-aligned).
    fn x87_scratch(&mut self, disp: i32) -> Address {
        let slot = match self.x87_scratch {
            Some(slot) => slot,
            None => {
                let slot = self.mir.new_stack_slot(48, 16, mir::StackSlotKind::Alloca);
                self.x87_scratch = Some(slot);
                slot
            }
        };
        Address::slot(slot, disp)
    }

    /// Stores the leaves of the `x86_fp80` `v` to `addr` (ten bytes).
    pub(super) fn store_fp80(&mut self, v: &Value, addr: Address) -> Result<(), Diagnostic> {
        let leaves = self.leaves(v)?;
        for (leaf, src) in fp80_leaves(0).iter().zip(leaves) {
            let mut at = addr.clone();
            at.disp += leaf.offset as i32;
            self.store_leaf(src, &leaf.ty, at)?;
        }
        Ok(())
    }

    /// Loads the leaves `dsts` of an `x86_fp80` from `addr`.
    pub(super) fn load_fp80(&mut self, dsts: &[Reg], addr: Address) -> Result<(), Diagnostic> {
        for (leaf, &dst) in fp80_leaves(0).iter().zip(dsts) {
            let mut at = addr.clone();
            at.disp += leaf.offset as i32;
            self.load_leaf(dst, &leaf.ty, at)?;
        }
        Ok(())
    }

    /// An x87 sequence that starts and ends with the stack empty.
    fn x87(&mut self, steps: Vec<X87Step>) {
        self.emit(K::X87 {
            steps,
            stack_in: 0,
            stack_out: 0,
        });
    }

    /// `x86_fp80` instructions other than loads, stores, selects, phis and
    /// `freeze` (which [`super::aggregate`] moves as leaves); `false` when
    /// `id` is none of them.
    pub(super) fn lower_x87(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let inst = self.f.inst(id);
        match &inst.kind {
            InstKind::FBinary { op, lhs, rhs, .. } if inst.ty == FP80 => {
                self.x87_binary(id, *op, lhs, rhs)?
            }
            InstKind::FNeg { value, .. } if inst.ty == FP80 => {
                self.sign_exponent_op(id, value, None, AluOp::Xor)?
            }
            InstKind::FCmp { pred, lhs, rhs, .. } if self.f.value_type(lhs) == FP80 => {
                self.x87_compare(id, *pred, lhs, rhs)?
            }
            InstKind::Cast { op, value, .. }
                if inst.ty == FP80 || self.f.value_type(value) == FP80 =>
            {
                self.x87_cast(id, *op, value)?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `fadd`/`fsub`/`fmul`/`fdiv` (`fld`, `fld`, `f<op>p`, `fstp`);
    /// `frem` calls `fmodl`.
    fn x87_binary(
        &mut self,
        id: InstId,
        op: ir::FBinOp,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let op = match op {
            ir::FBinOp::Add => FpOp::Add,
            ir::FBinOp::Sub => FpOp::Sub,
            ir::FBinOp::Mul => FpOp::Mul,
            ir::FBinOp::Div => FpOp::Div,
            ir::FBinOp::Rem => return self.call_long_double("fmodl", id, &[lhs, rhs]),
        };
        let (a, b) = (self.x87_scratch(FIRST), self.x87_scratch(SECOND));
        self.store_fp80(lhs, a.clone())?;
        self.store_fp80(rhs, b.clone())?;
        self.x87(vec![
            X87Step::Load(a.clone(), X87Format::F80),
            X87Step::Load(b, X87Format::F80),
            X87Step::Arith(op),
            X87Step::Store(a.clone(), X87Format::F80),
        ]);
        let dsts = self.result_leaves(id)?;
        self.load_fp80(&dsts, a)
    }

    /// `fneg` (`xor` of the sign), `fabs` (`and` without it) or `copysign`
    /// (`sign_of` given: the sign of that value, the rest of `value`) on
    /// the sign and exponent leaf.
    fn sign_exponent_op(
        &mut self,
        id: InstId,
        value: &Value,
        sign_of: Option<&Value>,
        op: AluOp,
    ) -> Result<(), Diagnostic> {
        let [low, high] = self.fp80_pair(value)?;
        let top = self.vreg(Width::W32);
        self.emit(K::Copy {
            dst: top,
            src: high,
        });
        let mask = if op == AluOp::Xor { 0x8000 } else { 0x7fff };
        self.emit(K::Alu {
            op,
            width: Width::W32,
            dst: top,
            src: Rmi::Imm(mask),
        });
        if let Some(sign_of) = sign_of {
            let [_, other] = self.fp80_pair(sign_of)?;
            let sign = self.vreg(Width::W32);
            self.emit(K::Copy {
                dst: sign,
                src: other,
            });
            self.emit(K::Alu {
                op: AluOp::And,
                width: Width::W32,
                dst: sign,
                src: Rmi::Imm(0x8000),
            });
            self.emit(K::Alu {
                op: AluOp::Or,
                width: Width::W32,
                dst: top,
                src: Rmi::Reg(sign),
            });
        }
        self.define_leaves(id, &[low, top])
    }

    /// The two leaves of an `x86_fp80` value.
    pub(super) fn fp80_pair(&mut self, v: &Value) -> Result<[Reg; 2], Diagnostic> {
        match self.leaves(v)?.as_slice() {
            &[low, high] => Ok([low, high]),
            _ => Err(self.error("internal: an x86_fp80 without its two leaves".into())),
        }
    }

    /// `fcmp` through `fucomip`, read as [`super::fp`]'s `ucomis` compares.
    fn x87_compare(
        &mut self,
        id: InstId,
        pred: ir::FCmpPred,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        if matches!(pred, ir::FCmpPred::False | ir::FCmpPred::True) {
            self.emit(K::MovImm {
                dst,
                imm: i64::from(pred == ir::FCmpPred::True),
                width: Width::W32,
            });
            return Ok(());
        }
        let (a, b) = (self.x87_scratch(FIRST), self.x87_scratch(SECOND));
        self.store_fp80(lhs, a.clone())?;
        self.store_fp80(rhs, b.clone())?;
        self.compare_with(pred, dst, &mut |s, swap| {
            // st(0) is the compare's left operand.
            let (left, right) = if swap { (&b, &a) } else { (&a, &b) };
            s.x87(vec![
                X87Step::Load(right.clone(), X87Format::F80),
                X87Step::Load(left.clone(), X87Format::F80),
                X87Step::Compare,
            ]);
        });
        Ok(())
    }

    /// Casts from or to `x86_fp80`.
    fn x87_cast(&mut self, id: InstId, op: CastOp, value: &Value) -> Result<(), Diagnostic> {
        let to_ty = self.f.inst(id).ty.clone();
        let from_ty = self.f.value_type(value);
        let scratch = |s: &mut Self| (s.x87_scratch(FIRST), s.x87_scratch(SCALAR));
        match op {
            // An i80 has the same two leaves.
            CastOp::FPExt | CastOp::FPTrunc | CastOp::BitCast
                if from_ty == to_ty
                    || (op == CastOp::BitCast && [&from_ty, &to_ty].contains(&&Type::Int(80))) =>
            {
                let srcs = self.leaves(value)?;
                self.define_leaves(id, &srcs)?;
            }
            CastOp::FPExt => {
                let size = self
                    .fp_size_of_type(&from_ty)?
                    .ok_or_else(|| self.unsupported_cast(op, &from_ty, &to_ty))?;
                let x = self.reg(value)?;
                let (first, scalar) = scratch(self);
                self.emit(K::FpStore {
                    src: x,
                    addr: scalar.clone(),
                    size,
                });
                self.x87(vec![
                    X87Step::Load(scalar, x87_format(size)),
                    X87Step::Store(first.clone(), X87Format::F80),
                ]);
                let dsts = self.result_leaves(id)?;
                self.load_fp80(&dsts, first)?;
            }
            CastOp::FPTrunc => {
                let size = self
                    .fp_size_of_type(&to_ty)?
                    .ok_or_else(|| self.unsupported_cast(op, &from_ty, &to_ty))?;
                let (first, scalar) = scratch(self);
                self.store_fp80(value, first.clone())?;
                self.x87(vec![
                    X87Step::Load(first, X87Format::F80),
                    X87Step::Store(scalar.clone(), x87_format(size)),
                ]);
                let dst = self.dst(id)?;
                self.emit(K::FpLoad {
                    dst,
                    addr: scalar,
                    size,
                });
            }
            CastOp::SIToFP | CastOp::UIToFP => self.int_to_fp80(id, value, op == CastOp::SIToFP)?,
            CastOp::FPToSI | CastOp::FPToUI => {
                let bits = self.bits_of_type(&to_ty)?;
                let dst = self.dst(id)?;
                let (first, _) = scratch(self);
                self.store_fp80(value, first)?;
                self.fp80_to_int(dst, bits, op == CastOp::FPToSI);
            }
            _ => return Err(self.unsupported_cast(op, &from_ty, &to_ty)),
        }
        Ok(())
    }

    /// The diagnostic for a cast of `x86_fp80` not selected here.
    fn unsupported_cast(&self, op: CastOp, from: &Type, to: &Type) -> Diagnostic {
        self.error(format!(
            "unsupported instruction '{}' from {} to {}",
            op.name(),
            type_name(self.module, from),
            type_name(self.module, to)
        ))
    }

    /// `sitofp`/`uitofp` to `x86_fp80`: `fild` of the integer widened to
    /// a width whose signed reading is its value (16, 32 or 64 bits); an
    /// unsigned 64-bit one gets 2^64 added when its top bit is set.
    fn int_to_fp80(&mut self, id: InstId, value: &Value, signed: bool) -> Result<(), Diagnostic> {
        let bits = self.bits_of(value)?;
        let (first, scalar) = (self.x87_scratch(FIRST), self.x87_scratch(SCALAR));
        let x = self.normalized(value, signed)?;
        let (x, width) = match (signed, bits) {
            (true, ..=32) | (false, ..=31) => (x, Width::W32),
            (false, 32) => (self.extend(x, 32, Width::W64, false), Width::W64),
            _ => (x, Width::W64),
        };
        self.emit(K::Store {
            src: Ri::Reg(x),
            addr: scalar.clone(),
            width,
        });
        let mut steps = vec![X87Step::LoadInt(scalar, width)];
        if !signed && bits == 64 {
            let constant = self.x87_scratch(CONSTANT);
            let add = self.vreg(Width::W32);
            let two_64 = self.vreg(Width::W32);
            self.emit(K::MovImm {
                dst: add,
                imm: 0,
                width: Width::W32,
            });
            self.emit(K::MovImm {
                dst: two_64,
                imm: TWO_64_F32,
                width: Width::W32,
            });
            self.move_if_negative(x, add, two_64, Width::W32);
            self.emit(K::Store {
                src: Ri::Reg(add),
                addr: constant.clone(),
                width: Width::W32,
            });
            steps.extend([
                X87Step::Load(constant, X87Format::F32),
                X87Step::Arith(FpOp::Add),
            ]);
        }
        steps.push(X87Step::Store(first.clone(), X87Format::F80));
        self.x87(steps);
        let dsts = self.result_leaves(id)?;
        self.load_fp80(&dsts, first)
    }

    /// `fptosi`/`fptoui` of the `x86_fp80` in the scratch slot's first
    /// operand into `dst`, an integer of `bits`.
    fn fp80_to_int(&mut self, dst: Reg, bits: u32, signed: bool) {
        let first = self.x87_scratch(FIRST);
        let scalar = self.x87_scratch(SCALAR);
        let control = self.x87_scratch(CONTROL);
        let truncated = |width| X87Step::StoreIntTruncated {
            addr: scalar.clone(),
            width,
            control: control.clone(),
        };
        if signed || bits < 64 {
            // The signed conversion of the next width up covers an
            // unsigned range.
            let width = match (signed, bits) {
                (true, ..=16) | (false, ..=15) => Width::W16,
                (true, ..=32) | (false, ..=31) => Width::W32,
                _ => Width::W64,
            };
            self.x87(vec![
                X87Step::Load(first.clone(), X87Format::F80),
                truncated(width),
            ]);
            self.load_int(dst, bits, scalar);
            return;
        }
        let constant = self.x87_scratch(CONSTANT);
        self.emit(K::Store {
            src: Ri::Imm(TWO_63_F32),
            addr: constant.clone(),
            width: Width::W32,
        });
        // x < 2^63: the signed conversion.
        self.x87(vec![
            X87Step::Load(first.clone(), X87Format::F80),
            truncated(Width::W64),
        ]);
        self.emit(K::Load {
            dst,
            addr: scalar.clone(),
            width: Width::W64,
        });
        // x >= 2^63: that of x - 2^63, with the top bit set.
        self.x87(vec![
            X87Step::Load(first.clone(), X87Format::F80),
            X87Step::Load(constant.clone(), X87Format::F32),
            X87Step::Arith(FpOp::Sub),
            truncated(Width::W64),
        ]);
        let big = self.vreg(Width::W64);
        self.emit(K::Load {
            dst: big,
            addr: scalar,
            width: Width::W64,
        });
        self.flip_top_bit(big);
        // Flags of x against 2^63, then the pick.
        self.x87(vec![
            X87Step::Load(constant, X87Format::F32),
            X87Step::Load(first, X87Format::F80),
            X87Step::Compare,
        ]);
        self.emit(K::Cmov {
            cond: Cond::Ae,
            width: Width::W64,
            dst,
            src: Rm::Reg(big),
        });
    }

    /// A floating-point intrinsic on `x86_fp80` (`Ok(false)` if `name` is
    /// not one or its first argument is not an `x86_fp80`).
    pub(super) fn lower_x87_intrinsic(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<bool, Diagnostic> {
        if args.first().map(|a| self.f.value_type(&a.value)) != Some(FP80) {
            return Ok(false);
        }
        let base = name
            .strip_prefix("llvm.")
            .and_then(|n| n.split('.').next())
            .unwrap_or("");
        let values: Vec<&Value> = args.iter().map(|a| &a.value).collect();
        if name.starts_with("llvm.is.fpclass.") {
            return match values.as_slice() {
                [x, mask] => match self.const_int(mask) {
                    Some(mask) => self.is_fpclass(id, x, mask as u32).map(|()| true),
                    None => Err(self.error(format!("unsupported intrinsic '{name}'"))),
                },
                _ => Err(self.error(format!("unsupported intrinsic '{name}'"))),
            };
        }
        match (base, values.as_slice()) {
            ("fabs", [a]) => self.sign_exponent_op(id, a, None, AluOp::And)?,
            ("copysign", [a, b]) => self.sign_exponent_op(id, a, Some(b), AluOp::And)?,
            ("sqrt", [a]) => {
                let first = self.x87_scratch(FIRST);
                self.store_fp80(a, first.clone())?;
                self.x87(vec![
                    X87Step::Load(first.clone(), X87Format::F80),
                    X87Step::Sqrt,
                    X87Step::Store(first.clone(), X87Format::F80),
                ]);
                let dsts = self.result_leaves(id)?;
                self.load_fp80(&dsts, first)?;
            }
            ("fmuladd", [a, b, c]) => {
                let (first, second) = (self.x87_scratch(FIRST), self.x87_scratch(SECOND));
                let third = self.x87_scratch(SCALAR);
                self.store_fp80(a, first.clone())?;
                self.store_fp80(b, second.clone())?;
                // The scalar and control parts hold the third's ten bytes.
                self.store_fp80(c, third.clone())?;
                self.x87(vec![
                    X87Step::Load(first.clone(), X87Format::F80),
                    X87Step::Load(second, X87Format::F80),
                    X87Step::Arith(FpOp::Mul),
                    X87Step::Load(third, X87Format::F80),
                    X87Step::Arith(FpOp::Add),
                    X87Step::Store(first.clone(), X87Format::F80),
                ]);
                let dsts = self.result_leaves(id)?;
                self.load_fp80(&dsts, first)?;
            }
            _ => match libm_long_double(name) {
                Some(function) => self.call_long_double(function, id, &values)?,
                None => return Err(self.error(format!("unsupported intrinsic '{name}'"))),
            },
        }
        Ok(true)
    }

    /// `llvm.is.fpclass` of an `x86_fp80`: `fxam` classifies it (an
    /// invalid encoding, which compares unordered, as a NaN), and the
    /// result is whether its class and sign are among `mask`'s. A mask
    /// telling signaling from quiet NaNs is refused by name.
    fn is_fpclass(&mut self, id: InstId, x: &Value, mask: u32) -> Result<(), Diagnostic> {
        let nans = mask & 3;
        if nans == 1 || nans == 2 {
            return Err(self.error(format!(
                "unsupported llvm.is.fpclass mask {mask} on x86_fp80 (signaling and quiet \
                 NaNs apart)"
            )));
        }
        let mut codes: Vec<i32> = if nans == 3 {
            vec![0x00, 0x01, 0x02, 0x03]
        } else {
            Vec::new()
        };
        codes.extend(
            FPCLASS_CODES
                .iter()
                .filter(|(bit, _)| mask & (1 << bit) != 0)
                .map(|&(_, code)| code),
        );
        let dst = self.dst(id)?;
        let first = self.x87_scratch(FIRST);
        let status = self.x87_scratch(CONTROL);
        self.store_fp80(x, first.clone())?;
        self.x87(vec![
            X87Step::Load(first, X87Format::F80),
            X87Step::Examine(status.clone()),
        ]);
        let class = self.vreg(Width::W32);
        self.emit(K::Extend {
            dst: class,
            src: Rm::Mem(status),
            from: Width::W16,
            to: Width::W32,
            signed: false,
        });
        self.emit(K::Shift {
            op: ShiftOp::Shr,
            width: Width::W32,
            dst: class,
            amount: ShiftAmount::Imm(8),
        });
        self.emit(K::Alu {
            op: AluOp::And,
            width: Width::W32,
            dst: class,
            src: Rmi::Imm(0x47),
        });
        self.emit(K::MovImm {
            dst,
            imm: 0,
            width: Width::W32,
        });
        for code in codes {
            let hit = self.vreg(Width::W32);
            self.emit(K::MovImm {
                dst: hit,
                imm: 0,
                width: Width::W32,
            });
            self.emit(K::Cmp {
                width: Width::W32,
                lhs: Rm::Reg(class),
                rhs: Rmi::Imm(code),
            });
            self.emit(K::Setcc {
                cond: Cond::E,
                dst: hit,
            });
            self.emit(K::Alu {
                op: AluOp::Or,
                width: Width::W32,
                dst,
                src: Rmi::Reg(hit),
            });
        }
        Ok(())
    }

    /// Calls libm's `function` with `x86_fp80` arguments (16 stack bytes
    /// each), its result in st(0) stored into `id`'s leaves.
    fn call_long_double(
        &mut self,
        function: &str,
        id: InstId,
        args: &[&Value],
    ) -> Result<(), Diagnostic> {
        for (n, arg) in args.iter().enumerate() {
            let addr = Address {
                base: AddressBase::OutgoingArgs,
                index: None,
                disp: 16 * n as i32,
            };
            self.store_fp80(arg, addr)?;
        }
        self.mir.outgoing_args_size = self.mir.outgoing_args_size.max(16 * args.len() as u32);
        self.emit(K::Call {
            target: CallTarget::Symbol(function.to_string()),
            args: Vec::new(),
            rets: Vec::new(),
            clobbers: CALLER_SAVED,
            unwind: None,
        });
        self.fp80_call_result(id)
    }

    /// How many values of type `ty` the ABI returns on the x87 stack: 1
    /// for an `x86_fp80`, 2 for a complex one (`{ x86_fp80, x86_fp80 }`:
    /// the real part in st(0), the imaginary in st(1)); `None` otherwise.
    pub(super) fn x87_values(&self, ty: &Type) -> Option<usize> {
        if *ty == FP80 {
            return Some(1);
        }
        match self.module.struct_fields(ty) {
            Some((fields, _)) if fields.len() == 2 && fields.iter().all(|f| *f == FP80) => Some(2),
            _ => None,
        }
    }

    /// Right after a call returning its result on the x87 stack: `fstp`s
    /// to the scratch slot (st(0) first), then the leaves of `id`'s result
    /// from there.
    pub(super) fn fp80_call_result(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let count = self.x87_values(&self.f.inst(id).ty).unwrap_or(1);
        let places: Vec<Address> = (0..count)
            .map(|n| self.x87_scratch(FIRST + SECOND * n as i32))
            .collect();
        self.emit(K::X87 {
            steps: places
                .iter()
                .map(|p| X87Step::Store(p.clone(), X87Format::F80))
                .collect(),
            stack_in: count as u8,
            stack_out: 0,
        });
        let dsts = self.result_leaves(id)?;
        for (pair, place) in dsts.chunks(2).zip(places) {
            self.load_fp80(pair, place)?;
        }
        Ok(())
    }

    /// `ret` of an `x86_fp80` (or a complex one): loaded onto the x87
    /// stack right before the `ret`, the first value last (into st(0)).
    pub(super) fn fp80_return(&mut self, value: &Value) -> Result<(), Diagnostic> {
        let leaves = self.leaves(value)?;
        let mut steps = Vec::new();
        for (n, pair) in leaves.chunks(2).enumerate() {
            let place = self.x87_scratch(FIRST + SECOND * n as i32);
            for (leaf, &src) in fp80_leaves(0).iter().zip(pair) {
                let mut at = place.clone();
                at.disp += leaf.offset as i32;
                self.store_leaf(src, &leaf.ty, at)?;
            }
            steps.insert(0, X87Step::Load(place, X87Format::F80));
        }
        self.emit(K::X87 {
            stack_in: 0,
            stack_out: steps.len() as u8,
            steps,
        });
        self.emit(K::Ret { uses: Vec::new() });
        Ok(())
    }
}

/// The x87 memory format of an SSE precision.
fn x87_format(size: mir::FpSize) -> X87Format {
    match size {
        mir::FpSize::F32 => X87Format::F32,
        mir::FpSize::F64 => X87Format::F64,
    }
}
