//! Instruction selection for vectors, as clang's loop and SLP vectorisers
//! emit them for SSE2 (the x86-64 baseline).
//!
//! In: IR instructions whose result or an operand is a vector
//! (`<N x iK>`, `<N x float>`, `<N x double>`, `<N x ptr>`, `<N x i1>`).
//! Out: MIR over xmm virtual registers marked as vectors (spilled whole,
//! 16 bytes), general-purpose registers for the scalar lanes of the
//! fallback.
//!
//! How a vector lives: its lanes packed little-endian, `K/8` bytes each
//! (an `i1` lane is one byte, 0x00 or 0xff, as a compare's mask), in
//! `ceil(bytes / 16)` xmm registers ("parts"): wider types are split into
//! 16-byte parts, narrower ones keep their bytes at the bottom of one
//! register and the bytes above are unspecified. Only a one-part vector
//! has a register a debug value can name; a split one has no location.
//!
//! Rules it follows:
//! - Loads and stores of any alignment use `movd`/`movq`/`movdqu` (never an
//!   aligned form); sizes that are none of those go lane by lane.
//! - Constants: all zero is `pxor`; anything else is loaded from the
//!   function's constant pool (16 bytes per part).
//! - Natively selected: integer `add`/`sub`/`and`/`or`/`xor` (`padd*`,
//!   `psub*`, `pand`, `por`, `pxor`), `mul` of 8-bit lanes (word
//!   multiplies of the interleaved bytes), 16-bit lanes (`pmullw`) and
//!   32/64-bit lanes (`pmuludq` products recombined), shifts by constants
//!   (splat or per lane, `ashr` of 8- and 64-bit lanes included), float and
//!   double `fadd`/`fsub`/`fmul`/`fdiv`, bitcasts, selects on a scalar
//!   condition (`pand`/`pandn`/`por`), `<16 x i1>` to `i16` (`pmovmskb`);
//!   and, in [`native`], compares, selects on vector conditions,
//!   zext/sext/trunc, `sitofp`/`fptosi` through 32-bit lanes, `fpext`/
//!   `fptrunc`, inserts and extracts at constant indices, the shuffles a
//!   part-by-part pattern covers, min/max, saturating add/sub of unsigned
//!   lanes, abs, funnel shifts by constants and the integer reductions;
//!   in [`saturate`], zlib's 16-bit saturating subtract written at 32 bits
//!   (`psubusw`); in [`gep`], `getelementptr` over vectors, lane by lane
//!   with scalar address arithmetic.
//! - Everything else goes through memory: the operands are stored to
//!   scratch slots of the frame, each lane is computed with the scalar
//!   instructions (the same semantics as the scalar selector: extension
//!   before division, right shifts and compares; NaN-correct `ucomis`
//!   flags for `fcmp`), written to a result slot and the result loaded
//!   back. A variable lane index is masked to the scratch slot's size, so
//!   a poison index never writes outside it. What still goes this way:
//!   division and remainder, shifts by a variable amount, conversions
//!   from or to 64-bit integer lanes and unsigned ones (through `fp`'s
//!   scalar `uitofp`/`fptoui`), inserts and
//!   extracts at a variable index, shuffles of 8/16-bit lanes (or from
//!   three or more parts) no pattern matches, loads and stores of sizes
//!   other than 4, 8 and 16 bytes, `fadd`/`fmul` reductions (kept in lane
//!   order) and `mul` reductions, reductions of `<N x i1>`.
//! - Integer reductions (`llvm.vector.reduce.*`) halve the live bytes
//!   with `psrldq` and the operation; `fadd`/`fmul` reductions fold the
//!   lanes in lane order (the strict order they require without
//!   `reassoc`).
//! - Arguments and results of up to 16 bytes go in xmm registers per SysV
//!   (calls are placed by `isel::calls`); anything else (wider vectors,
//!   vector parameters on the stack) is a diagnostic.

mod gep;
mod native;
mod saturate;
mod x86;

pub(crate) use x86::x86_vector_form;

use super::*;
use crate::codegen::mir::{FpOp, FpSize, PackedOp, PackedShift, PackedShuffle};
use crate::ir::{FBinOp, FCmpPred};

/// What one lane of a vector holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lane {
    /// `i1`: one byte, 0x00 or 0xff.
    Bool,
    /// `iK` (K = 8, 16, 32 or 64) or `ptr` (64).
    Int(u32),
    /// `float` or `double`.
    Fp(FpSize),
}

impl Lane {
    fn bytes(self) -> u32 {
        match self {
            Lane::Bool => 1,
            Lane::Int(bits) => bits / 8,
            Lane::Fp(size) => size.bits() / 8,
        }
    }

    /// The machine width of the lane as an integer.
    fn width(self) -> Width {
        match self.bytes() {
            1 => Width::W8,
            2 => Width::W16,
            4 => Width::W32,
            _ => Width::W64,
        }
    }

    /// The register width a lane is computed in.
    fn container(self) -> Width {
        container(self.bytes() * 8)
    }
}

/// The layout of a vector type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct VecTy {
    lanes: u32,
    lane: Lane,
}

impl VecTy {
    fn bytes(self) -> u32 {
        self.lanes * self.lane.bytes()
    }

    fn parts(self) -> usize {
        self.bytes().div_ceil(16) as usize
    }

    /// Bytes of a scratch slot that holds the vector and any lane a masked
    /// index can name.
    fn scratch_bytes(self) -> u32 {
        (self.lanes.next_power_of_two() * self.lane.bytes())
            .next_multiple_of(16)
            .max(16)
    }
}

/// The scratch slots of the memory fallback: three operands and a result.
const SCRATCH_SLOTS: usize = 4;
const RESULT_SCRATCH: usize = 3;

impl Selector<'_> {
    /// The layout of a vector type, `None` for other types, an error for a
    /// vector whose lanes are not selected.
    pub(super) fn vector_type(&self, ty: &Type) -> Result<Option<VecTy>, Diagnostic> {
        let Type::Vector { len, elem } = ty else {
            return Ok(None);
        };
        let lane = match &**elem {
            Type::Int(1) => Lane::Bool,
            Type::Int(bits @ (8 | 16 | 32 | 64)) => Lane::Int(*bits),
            Type::Ptr => Lane::Int(64),
            other => match fp::fp_size(other) {
                Some(size) => Lane::Fp(size),
                None => {
                    return Err(self.error(format!(
                        "unsupported vector type {} in code generation",
                        type_name(self.module, ty)
                    )))
                }
            },
        };
        Ok(Some(VecTy { lanes: *len, lane }))
    }

    fn vector_of(&self, v: &Value) -> Result<Option<VecTy>, Diagnostic> {
        self.vector_type(&self.f.value_type_ref(v))
    }

    fn must_vector(&self, v: &Value) -> Result<VecTy, Diagnostic> {
        self.vector_of(v)?
            .ok_or_else(|| self.error("internal: a vector operand expected".into()))
    }

    /// Gives every vector-valued instruction its parts (one xmm vector
    /// register per 16 bytes); a one-part vector is also its value register.
    pub(super) fn assign_vector_registers(&mut self) -> Result<(), Diagnostic> {
        let f = self.f;
        for (i, inst) in f.insts.iter().enumerate() {
            if !matches!(inst.ty, Type::Vector { .. }) {
                continue;
            }
            self.pos = inst.pos;
            let Some(ty) = self.vector_type(&inst.ty)? else {
                continue;
            };
            let parts: Vec<Reg> = (0..ty.parts())
                .map(|_| self.mir.new_vector_vreg())
                .collect();
            self.values[i] = (parts.len() == 1).then(|| parts[0]);
            self.vector_parts.insert(i as u32, parts);
        }
        self.pos = f.pos;
        Ok(())
    }

    /// Whether instruction `id` computes or reads a vector.
    pub(super) fn involves_vectors(&self, id: InstId) -> bool {
        let inst = self.f.inst(id);
        matches!(inst.ty, Type::Vector { .. })
            || inst
                .operands()
                .iter()
                .any(|v| matches!(*self.f.value_type_ref(v), Type::Vector { .. }))
    }

    /// The parts of a vector value (constants materialised).
    pub(super) fn parts(&mut self, v: &Value) -> Result<Vec<Reg>, Diagnostic> {
        let ty = self.must_vector(v)?;
        match v {
            Value::Inst(id) if self.lowering[id.0 as usize] != Lowering::Normal => {
                Err(self.error("internal: a vector value folded into its user".into()))
            }
            Value::Inst(id) => self
                .vector_parts
                .get(&id.0)
                .cloned()
                .ok_or_else(|| self.error("internal: a vector without registers".into())),
            Value::Arg(n) => Ok(vec![self.args[*n as usize]]),
            Value::Const(c) => {
                let bytes = self.vector_constant_bytes(c, ty).ok_or_else(|| {
                    self.error(format!(
                        "unsupported vector constant {} in code generation",
                        type_name(self.module, &c.ty())
                    ))
                })?;
                let mut parts = Vec::with_capacity(ty.parts());
                for chunk in bytes.chunks(16) {
                    let dst = self.mir.new_vector_vreg();
                    if chunk.iter().all(|&b| b == 0) {
                        self.emit(K::XmmZero { dst });
                    } else {
                        let mut padded = chunk.to_vec();
                        padded.resize(16, 0);
                        let id = self.mir.constant(&padded);
                        self.emit(K::VecLoad {
                            dst,
                            addr: Address {
                                base: AddressBase::Constant(id),
                                index: None,
                                disp: 0,
                            },
                            bytes: 16,
                        });
                    }
                    parts.push(dst);
                }
                Ok(parts)
            }
        }
    }

    /// The bytes of a vector constant in the layout of `ty` (undefined
    /// lanes are zero), or `None` for a form not selected.
    fn vector_constant_bytes(&self, c: &Constant, ty: VecTy) -> Option<Vec<u8>> {
        let lane_bytes = ty.lane.bytes() as usize;
        match c {
            Constant::Zero(_) | Constant::Undef(_) | Constant::Poison(_) => {
                Some(vec![0; ty.bytes() as usize])
            }
            Constant::Vector { elems, .. } => {
                let mut out = Vec::with_capacity(ty.bytes() as usize);
                for e in elems {
                    let bits: u128 = match e {
                        Constant::Int { value, .. } if ty.lane == Lane::Bool => {
                            if *value != 0 {
                                0xff
                            } else {
                                0
                            }
                        }
                        Constant::Int { value, .. } => *value as u128,
                        Constant::Float { bits, .. } => *bits,
                        Constant::Null
                        | Constant::Zero(_)
                        | Constant::Undef(_)
                        | Constant::Poison(_) => 0,
                        _ => return None,
                    };
                    out.extend_from_slice(&bits.to_le_bytes()[..lane_bytes]);
                }
                Some(out)
            }
            _ => None,
        }
    }

    // ---- the memory fallback --------------------------------------------

    /// Scratch slot `which`, grown to at least `bytes`.
    fn scratch(&mut self, which: usize, bytes: u32) -> StackSlotId {
        if self.vector_scratch.is_empty() {
            for _ in 0..SCRATCH_SLOTS {
                let slot = self.mir.new_stack_slot(16, 16, StackSlotKind::Alloca);
                self.vector_scratch.push(slot);
            }
        }
        let slot = self.vector_scratch[which];
        let info = &mut self.mir.stack_slots[slot.0 as usize];
        info.size = info.size.max(bytes);
        slot
    }

    /// Stores a vector's parts into scratch slot `which`.
    fn spill_to_scratch(&mut self, v: &Value, which: usize) -> Result<StackSlotId, Diagnostic> {
        let ty = self.must_vector(v)?;
        let parts = self.parts(v)?;
        let slot = self.scratch(which, ty.scratch_bytes());
        for (i, src) in parts.into_iter().enumerate() {
            self.emit(K::VecStore {
                src,
                addr: Address::slot(slot, 16 * i as i32),
                bytes: 16,
            });
        }
        Ok(slot)
    }

    /// Loads the result parts of `id` from the result scratch slot.
    fn reload_result(&mut self, id: InstId, slot: StackSlotId) {
        let parts = self.vector_parts.get(&id.0).cloned().unwrap_or_default();
        for (i, dst) in parts.into_iter().enumerate() {
            self.emit(K::VecLoad {
                dst,
                addr: Address::slot(slot, 16 * i as i32),
                bytes: 16,
            });
        }
    }

    /// A lane's address in a scratch slot.
    fn lane_address(slot: StackSlotId, ty: VecTy, lane: u32) -> Address {
        Address::slot(slot, (lane * ty.lane.bytes()) as i32)
    }

    /// Loads an integer (or boolean, as 0/1) lane into a general-purpose
    /// register of the lane's container width; floats as their bits.
    fn load_int_lane(&mut self, addr: Address, lane: Lane, signed: bool) -> Reg {
        let width = lane.container();
        let dst = self.vreg(width);
        match lane.width() {
            w @ (Width::W8 | Width::W16) => {
                self.emit(K::Extend {
                    dst,
                    src: Rm::Mem(addr),
                    from: w,
                    to: Width::W32,
                    signed: signed && lane != Lane::Bool,
                });
                if lane == Lane::Bool {
                    self.emit(K::Alu {
                        op: AluOp::And,
                        width: Width::W32,
                        dst,
                        src: Rmi::Imm(1),
                    });
                }
            }
            w => self.emit(K::Load {
                dst,
                addr,
                width: w,
            }),
        }
        dst
    }

    /// Stores a lane from a general-purpose register (a boolean given as
    /// 0/1 in its low bit becomes the 0x00/0xff byte).
    fn store_int_lane(&mut self, addr: Address, lane: Lane, src: Reg) {
        let src = if lane == Lane::Bool {
            let t = self.vreg(Width::W32);
            self.emit(K::Copy { dst: t, src });
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
            t
        } else {
            src
        };
        self.emit(K::Store {
            src: Ri::Reg(src),
            addr,
            width: lane.width(),
        });
    }

    /// `setcc` into a fresh zeroed 32-bit register.
    fn set_condition(&mut self, cond: Cond) -> Reg {
        let dst = self.vreg(Width::W32);
        self.emit(K::MovImm {
            dst,
            imm: 0,
            width: Width::W32,
        });
        self.emit(K::Setcc { cond, dst });
        dst
    }

    // ---- dispatch --------------------------------------------------------

    /// Selects an instruction that computes or reads a vector.
    pub(super) fn lower_vector(&mut self, id: InstId) -> Result<(), Diagnostic> {
        if self.inside_narrow_subtract(id) {
            return Ok(());
        }
        let inst = self.f.inst(id);
        match &inst.kind {
            InstKind::Phi { .. } => Ok(()),
            InstKind::Freeze { value } => {
                let src = self.parts(value)?;
                let dst = self.result_parts(id);
                for (d, s) in dst.into_iter().zip(src) {
                    self.emit(K::Copy { dst: d, src: s });
                }
                Ok(())
            }
            InstKind::Load {
                atomic: None, ptr, ..
            } => self.lower_vector_load(id, ptr),
            InstKind::Store {
                atomic: None,
                value,
                ptr,
                ..
            } => self.lower_vector_store(value, ptr),
            InstKind::Binary { op, lhs, rhs, .. } => self.lower_vector_binary(id, *op, lhs, rhs),
            InstKind::FBinary { op, lhs, rhs, .. } => self.lower_vector_fbinary(id, *op, lhs, rhs),
            InstKind::FNeg { value, .. } => self.lower_vector_fneg(id, value),
            InstKind::ICmp { pred, lhs, rhs } => self.lower_vector_icmp(id, *pred, lhs, rhs),
            InstKind::FCmp { pred, lhs, rhs, .. } => self.lower_vector_fcmp(id, *pred, lhs, rhs),
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => self.lower_vector_select(id, cond, if_true, if_false),
            InstKind::Cast { op, value, .. } => self.lower_vector_cast(id, *op, value),
            InstKind::Gep { .. } => self.lower_vector_gep(id),
            InstKind::ExtractElement { vector, index } => {
                self.lower_extract_element(id, vector, index)
            }
            InstKind::InsertElement {
                vector,
                elem,
                index,
            } => self.lower_insert_element(id, vector, elem, index),
            InstKind::ShuffleVector { .. } if self.lower_subtrahend_splat(id)? => Ok(()),
            InstKind::ShuffleVector { lhs, rhs, mask } => self.lower_shuffle(id, lhs, rhs, mask),
            InstKind::Call { callee, args, .. } => {
                let name = self
                    .module
                    .direct_callee(callee)
                    .map(|f| self.module.function(f).name.clone());
                match name {
                    Some(name) if name.starts_with("llvm.x86.") => {
                        self.lower_x86_vector(id, &name, args)
                    }
                    Some(name) if name.starts_with("llvm.") => {
                        self.lower_vector_intrinsic(id, &name, args)
                    }
                    _ => {
                        let InstKind::Call { fn_ty, .. } = &inst.kind else {
                            return Err(self.error("internal: not a call".into()));
                        };
                        self.lower_call(id, callee, args, fn_ty)
                    }
                }
            }
            InstKind::Invoke {
                callee,
                args,
                fn_ty,
                ..
            } => self.lower_call(id, callee, args, fn_ty),
            // A tail jump returned already.
            InstKind::Ret { .. } if std::mem::take(&mut self.after_tail_jump) => Ok(()),
            InstKind::Ret { value: Some(value) } => {
                let parts = self.parts(value)?;
                if parts.len() != 1 {
                    return Err(self.error(format!(
                        "unsupported return of {} (wider than 16 bytes)",
                        type_name(self.module, &self.f.value_type(value))
                    )));
                }
                self.emit(K::Copy {
                    dst: Reg::from(XMM_RETURN_REGISTER),
                    src: parts[0],
                });
                self.emit(K::Ret {
                    uses: vec![XMM_RETURN_REGISTER.into()],
                });
                Ok(())
            }
            other => Err(self.error(format!(
                "unsupported instruction '{}' on vectors",
                other.opcode()
            ))),
        }
    }

    fn result_parts(&self, id: InstId) -> Vec<Reg> {
        self.vector_parts.get(&id.0).cloned().unwrap_or_default()
    }

    // ---- memory ------------------------------------------------------------

    fn lower_vector_load(&mut self, id: InstId, ptr: &Value) -> Result<(), Diagnostic> {
        let ty = self.must_vector(&Value::Inst(id))?;
        if ty.lane == Lane::Bool {
            return Err(self.error("unsupported load of a vector of i1".into()));
        }
        let addr = self.address(ptr)?;
        let parts = self.result_parts(id);
        let bytes = ty.bytes();
        if bytes.is_multiple_of(16) || matches!(bytes, 4 | 8) {
            for (i, dst) in parts.into_iter().enumerate() {
                let addr = self.displaced(&addr, 16 * i as i32)?;
                self.emit(K::VecLoad {
                    dst,
                    addr,
                    bytes: bytes.min(16) as u8,
                });
            }
            return Ok(());
        }
        // Lane by lane through the result scratch slot.
        let slot = self.scratch(RESULT_SCRATCH, ty.scratch_bytes());
        for lane in 0..ty.lanes {
            let disp = (lane * ty.lane.bytes()) as i32;
            let from = self.displaced(&addr, disp)?;
            let r = self.load_int_lane(from, ty.lane, false);
            self.store_int_lane(Self::lane_address(slot, ty, lane), ty.lane, r);
        }
        self.reload_result(id, slot);
        Ok(())
    }

    fn lower_vector_store(&mut self, value: &Value, ptr: &Value) -> Result<(), Diagnostic> {
        let ty = self.must_vector(value)?;
        if ty.lane == Lane::Bool {
            return Err(self.error("unsupported store of a vector of i1".into()));
        }
        let bytes = ty.bytes();
        if bytes.is_multiple_of(16) || matches!(bytes, 4 | 8) {
            let parts = self.parts(value)?;
            let addr = self.address(ptr)?;
            for (i, src) in parts.into_iter().enumerate() {
                let addr = self.displaced(&addr, 16 * i as i32)?;
                self.emit(K::VecStore {
                    src,
                    addr,
                    bytes: bytes.min(16) as u8,
                });
            }
            return Ok(());
        }
        let slot = self.spill_to_scratch(value, 0)?;
        let addr = self.address(ptr)?;
        for lane in 0..ty.lanes {
            let r = self.load_int_lane(Self::lane_address(slot, ty, lane), ty.lane, false);
            let disp = (lane * ty.lane.bytes()) as i32;
            let to = self.displaced(&addr, disp)?;
            self.store_int_lane(to, ty.lane, r);
        }
        Ok(())
    }

    fn displaced(&self, addr: &Address, by: i32) -> Result<Address, Diagnostic> {
        let mut a = addr.clone();
        a.disp = a
            .disp
            .checked_add(by)
            .ok_or_else(|| self.error("address displacement out of range".into()))?;
        Ok(a)
    }

    // ---- arithmetic --------------------------------------------------------

    /// `dst = a op b` part by part with a packed instruction.
    fn packed_parts(
        &mut self,
        id: InstId,
        op: PackedOp,
        a: &Value,
        b: &Value,
    ) -> Result<(), Diagnostic> {
        let a = self.parts(a)?;
        let b = self.parts(b)?;
        for ((d, x), y) in self.result_parts(id).into_iter().zip(a).zip(b) {
            self.emit(K::Copy { dst: d, src: x });
            self.emit(K::Packed { op, dst: d, src: y });
        }
        Ok(())
    }

    /// The splat constant of a vector value, if it is one.
    fn splat_constant(v: &Value) -> Option<i128> {
        let Value::Const(Constant::Vector { elems, .. }) = v else {
            return None;
        };
        let mut value = None;
        for e in elems {
            let Constant::Int { value: x, .. } = e else {
                return None;
            };
            if value.is_some_and(|v| v != *x) {
                return None;
            }
            value = Some(*x);
        }
        value
    }

    fn lower_vector_binary(
        &mut self,
        id: InstId,
        op: BinOp,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let ty = self.must_vector(lhs)?;
        let bits = match ty.lane {
            Lane::Bool => 8,
            Lane::Int(bits) => bits,
            Lane::Fp(_) => return Err(self.error("internal: integer operation on floats".into())),
        };
        let by_bits = |ops: [PackedOp; 4]| match bits {
            8 => ops[0],
            16 => ops[1],
            32 => ops[2],
            _ => ops[3],
        };
        let native = match op {
            BinOp::And => Some(PackedOp::And),
            BinOp::Or => Some(PackedOp::Or),
            BinOp::Xor => Some(PackedOp::Xor),
            BinOp::Add if ty.lane != Lane::Bool => Some(by_bits([
                PackedOp::AddB,
                PackedOp::AddW,
                PackedOp::AddD,
                PackedOp::AddQ,
            ])),
            BinOp::Sub if ty.lane != Lane::Bool => Some(by_bits([
                PackedOp::SubB,
                PackedOp::SubW,
                PackedOp::SubD,
                PackedOp::SubQ,
            ])),
            BinOp::Mul if bits == 16 => Some(PackedOp::MulLoW),
            _ => None,
        };
        if let Some(p) = native {
            return self.packed_parts(id, p, lhs, rhs);
        }
        if op == BinOp::Mul && matches!(bits, 32 | 64) {
            return self.multiply_with_pmuludq(id, bits, lhs, rhs);
        }
        // Shifts of 16/32/64-bit lanes by a splat constant.
        if let (Some(count), Lane::Int(16 | 32 | 64)) = (Self::splat_constant(rhs), ty.lane) {
            let shift = match (op, bits) {
                (BinOp::Shl, 16) => Some(PackedShift::LeftW),
                (BinOp::Shl, 32) => Some(PackedShift::LeftD),
                (BinOp::Shl, 64) => Some(PackedShift::LeftQ),
                (BinOp::LShr, 16) => Some(PackedShift::RightW),
                (BinOp::LShr, 32) => Some(PackedShift::RightD),
                (BinOp::LShr, 64) => Some(PackedShift::RightQ),
                (BinOp::AShr, 16) => Some(PackedShift::ArithW),
                (BinOp::AShr, 32) => Some(PackedShift::ArithD),
                _ => None,
            };
            if let (Some(shift), Ok(imm)) = (shift, u8::try_from(count)) {
                if u32::from(imm) < bits {
                    let a = self.parts(lhs)?;
                    for (d, x) in self.result_parts(id).into_iter().zip(a) {
                        self.emit(K::Copy { dst: d, src: x });
                        self.emit(K::PackedShiftImm {
                            op: shift,
                            dst: d,
                            imm,
                        });
                    }
                    return Ok(());
                }
            }
        }
        if ty.lane != Lane::Bool && self.native_binary(id, op, bits, lhs, rhs)? {
            return Ok(());
        }
        // Lane by lane.
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem | BinOp::AShr);
        let a_slot = self.spill_to_scratch(lhs, 0)?;
        let b_slot = self.spill_to_scratch(rhs, 1)?;
        let out = self.scratch(RESULT_SCRATCH, ty.scratch_bytes());
        let width = ty.lane.container();
        for lane in 0..ty.lanes {
            let a = self.load_int_lane(Self::lane_address(a_slot, ty, lane), ty.lane, signed);
            let b = self.load_int_lane(Self::lane_address(b_slot, ty, lane), ty.lane, signed);
            let r = self.scalar_binary(op, width, a, b)?;
            self.store_int_lane(Self::lane_address(out, ty, lane), ty.lane, r);
        }
        self.reload_result(id, out);
        Ok(())
    }

    /// `mul` of 32- or 64-bit lanes from `pmuludq`'s 32x32→64 products:
    /// dwords multiply their even and odd lanes apart and interleave the low
    /// halves; qwords add the cross products' low halves to the high half.
    fn multiply_with_pmuludq(
        &mut self,
        id: InstId,
        bits: u32,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let a = self.parts(lhs)?;
        let b = self.parts(rhs)?;
        for ((d, x), y) in self.result_parts(id).into_iter().zip(a).zip(b) {
            let copy = |s: &mut Self, src: Reg| {
                let t = s.mir.new_vector_vreg();
                s.emit(K::Copy { dst: t, src });
                t
            };
            let shift = |s: &mut Self, op: PackedShift, dst: Reg, imm: u8| {
                s.emit(K::PackedShiftImm { op, dst, imm });
            };
            let packed = |s: &mut Self, op: PackedOp, dst: Reg, src: Reg| {
                s.emit(K::Packed { op, dst, src });
            };
            if bits == 32 {
                let even = copy(self, x);
                packed(self, PackedOp::MulUDq, even, y);
                let odd = copy(self, x);
                shift(self, PackedShift::RightQ, odd, 32);
                let y_odd = copy(self, y);
                shift(self, PackedShift::RightQ, y_odd, 32);
                packed(self, PackedOp::MulUDq, odd, y_odd);
                // The low dwords of each product, side by side.
                self.emit(K::PackedShuffleImm {
                    op: PackedShuffle::Dwords,
                    dst: d,
                    src: even,
                    imm: 0x08,
                });
                let high = self.mir.new_vector_vreg();
                self.emit(K::PackedShuffleImm {
                    op: PackedShuffle::Dwords,
                    dst: high,
                    src: odd,
                    imm: 0x08,
                });
                packed(self, PackedOp::UnpackLoDQ, d, high);
            } else {
                let x_high = copy(self, x);
                shift(self, PackedShift::RightQ, x_high, 32);
                packed(self, PackedOp::MulUDq, x_high, y);
                let y_high = copy(self, y);
                shift(self, PackedShift::RightQ, y_high, 32);
                let cross = copy(self, x);
                packed(self, PackedOp::MulUDq, cross, y_high);
                packed(self, PackedOp::AddQ, x_high, cross);
                shift(self, PackedShift::LeftQ, x_high, 32);
                self.emit(K::Copy { dst: d, src: x });
                packed(self, PackedOp::MulUDq, d, y);
                packed(self, PackedOp::AddQ, d, x_high);
            }
        }
        Ok(())
    }

    /// `a op b` on registers of `width` (already extended as `op` needs).
    fn scalar_binary(
        &mut self,
        op: BinOp,
        width: Width,
        a: Reg,
        b: Reg,
    ) -> Result<Reg, Diagnostic> {
        let dst = self.vreg(width);
        if let Some(alu) = alu_op(op) {
            self.emit(K::Copy { dst, src: a });
            self.emit(K::Alu {
                op: alu,
                width,
                dst,
                src: Rmi::Reg(b),
            });
            return Ok(dst);
        }
        match op {
            BinOp::Mul => {
                self.emit(K::Copy { dst, src: a });
                self.emit(K::Imul {
                    width,
                    dst,
                    src: Rm::Reg(b),
                });
            }
            BinOp::Shl | BinOp::LShr | BinOp::AShr => {
                self.emit(K::Copy { dst, src: a });
                self.emit(K::Copy {
                    dst: Reg::from(Gpr::Rcx),
                    src: b,
                });
                let shift = match op {
                    BinOp::Shl => ShiftOp::Shl,
                    BinOp::LShr => ShiftOp::Shr,
                    _ => ShiftOp::Sar,
                };
                self.emit(K::Shift {
                    op: shift,
                    width,
                    dst,
                    amount: ShiftAmount::Cl,
                });
            }
            _ => {
                self.divide(op, width, a, b, dst);
            }
        }
        Ok(dst)
    }

    fn lower_vector_fbinary(
        &mut self,
        id: InstId,
        op: FBinOp,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        let ty = self.must_vector(lhs)?;
        let Lane::Fp(size) = ty.lane else {
            return Err(self.error("internal: fp operation on integers".into()));
        };
        let ops = match op {
            FBinOp::Add => [PackedOp::AddPs, PackedOp::AddPd],
            FBinOp::Sub => [PackedOp::SubPs, PackedOp::SubPd],
            FBinOp::Mul => [PackedOp::MulPs, PackedOp::MulPd],
            FBinOp::Div => [PackedOp::DivPs, PackedOp::DivPd],
            FBinOp::Rem => {
                return Err(self.error("unsupported instruction 'frem' on vectors".into()))
            }
        };
        let p = match size {
            FpSize::F32 => ops[0],
            FpSize::F64 => ops[1],
        };
        self.packed_parts(id, p, lhs, rhs)
    }

    fn lower_vector_fneg(&mut self, id: InstId, value: &Value) -> Result<(), Diagnostic> {
        let ty = self.must_vector(value)?;
        let Lane::Fp(size) = ty.lane else {
            return Err(self.error("internal: fneg on integers".into()));
        };
        self.sign_mask(id, size, value, PackedOp::Xor, true)
    }

    /// `fneg` (`xor` with the sign bits) or `fabs` (`and` with all bits
    /// but the sign) of every lane.
    fn sign_mask(
        &mut self,
        id: InstId,
        size: FpSize,
        value: &Value,
        op: PackedOp,
        sign_bits: bool,
    ) -> Result<(), Diagnostic> {
        let sign: u128 = match size {
            FpSize::F32 => 0x8000_0000_8000_0000_8000_0000_8000_0000,
            FpSize::F64 => 0x8000_0000_0000_0000_8000_0000_0000_0000,
        };
        let mask = if sign_bits { sign } else { !sign };
        let id_const = self.mir.constant(&mask.to_le_bytes());
        let src = self.parts(value)?;
        for (d, s) in self.result_parts(id).into_iter().zip(src) {
            let mask = self.mir.new_vector_vreg();
            self.emit(K::VecLoad {
                dst: mask,
                addr: Address {
                    base: AddressBase::Constant(id_const),
                    index: None,
                    disp: 0,
                },
                bytes: 16,
            });
            self.emit(K::Copy { dst: d, src: s });
            self.emit(K::Packed {
                op,
                dst: d,
                src: mask,
            });
        }
        Ok(())
    }

    // ---- compares and selects ---------------------------------------------

    fn lower_vector_icmp(
        &mut self,
        id: InstId,
        pred: ICmpPred,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        if self.native_compare(id)? {
            return Ok(());
        }
        let ty = self.must_vector(lhs)?;
        // eq/ne of byte lanes: the mask is the result's layout already.
        if matches!(ty.lane, Lane::Int(8) | Lane::Bool)
            && matches!(pred, ICmpPred::Eq | ICmpPred::Ne)
        {
            let a = self.parts(lhs)?;
            let b = self.parts(rhs)?;
            for ((d, x), y) in self.result_parts(id).into_iter().zip(a).zip(b) {
                self.emit(K::Copy { dst: d, src: x });
                self.emit(K::Packed {
                    op: PackedOp::CmpEqB,
                    dst: d,
                    src: y,
                });
                if pred == ICmpPred::Ne {
                    let ones = self.mir.new_vector_vreg();
                    self.emit(K::XmmZero { dst: ones });
                    self.emit(K::Packed {
                        op: PackedOp::CmpEqB,
                        dst: ones,
                        src: ones,
                    });
                    self.emit(K::Packed {
                        op: PackedOp::Xor,
                        dst: d,
                        src: ones,
                    });
                }
            }
            return Ok(());
        }
        let out_ty = VecTy {
            lanes: ty.lanes,
            lane: Lane::Bool,
        };
        let signed = arith::is_signed(pred);
        let a_slot = self.spill_to_scratch(lhs, 0)?;
        let b_slot = self.spill_to_scratch(rhs, 1)?;
        let out = self.scratch(RESULT_SCRATCH, out_ty.scratch_bytes());
        let lane_ty = match ty.lane {
            Lane::Fp(_) => return Err(self.error("internal: icmp on floats".into())),
            other => other,
        };
        for lane in 0..ty.lanes {
            let a = self.load_int_lane(Self::lane_address(a_slot, ty, lane), lane_ty, signed);
            let b = self.load_int_lane(Self::lane_address(b_slot, ty, lane), lane_ty, signed);
            self.emit(K::Cmp {
                width: lane_ty.container(),
                lhs: Rm::Reg(a),
                rhs: Rmi::Reg(b),
            });
            let r = self.set_condition(arith::cond_of(pred));
            self.store_int_lane(Self::lane_address(out, out_ty, lane), Lane::Bool, r);
        }
        self.reload_result(id, out);
        Ok(())
    }

    fn lower_vector_fcmp(
        &mut self,
        id: InstId,
        pred: FCmpPred,
        lhs: &Value,
        rhs: &Value,
    ) -> Result<(), Diagnostic> {
        if self.native_compare(id)? {
            return Ok(());
        }
        let ty = self.must_vector(lhs)?;
        let Lane::Fp(size) = ty.lane else {
            return Err(self.error("internal: fcmp on integers".into()));
        };
        let out_ty = VecTy {
            lanes: ty.lanes,
            lane: Lane::Bool,
        };
        let a_slot = self.spill_to_scratch(lhs, 0)?;
        let b_slot = self.spill_to_scratch(rhs, 1)?;
        let out = self.scratch(RESULT_SCRATCH, out_ty.scratch_bytes());
        // (swap operands, condition, second condition and how to join them),
        // as the scalar fcmp reads the flags of ucomis.
        let rule: Option<FlagRule> = match pred {
            FCmpPred::False | FCmpPred::True => None,
            FCmpPred::Oeq => Some((false, Cond::E, Some((Cond::Np, AluOp::And)))),
            FCmpPred::Une => Some((false, Cond::Ne, Some((Cond::P, AluOp::Or)))),
            FCmpPred::Ogt => Some((false, Cond::A, None)),
            FCmpPred::Oge => Some((false, Cond::Ae, None)),
            FCmpPred::Olt => Some((true, Cond::A, None)),
            FCmpPred::Ole => Some((true, Cond::Ae, None)),
            FCmpPred::Ugt => Some((true, Cond::B, None)),
            FCmpPred::Uge => Some((true, Cond::Be, None)),
            FCmpPred::Ult => Some((false, Cond::B, None)),
            FCmpPred::Ule => Some((false, Cond::Be, None)),
            FCmpPred::One => Some((false, Cond::Ne, None)),
            FCmpPred::Ueq => Some((false, Cond::E, None)),
            FCmpPred::Ord => Some((false, Cond::Np, None)),
            FCmpPred::Uno => Some((false, Cond::P, None)),
        };
        for lane in 0..ty.lanes {
            let r = match rule {
                None => {
                    let r = self.vreg(Width::W32);
                    self.emit(K::MovImm {
                        dst: r,
                        imm: i64::from(pred == FCmpPred::True),
                        width: Width::W32,
                    });
                    r
                }
                Some((swap, cond, second)) => {
                    let (l, rs) = if swap {
                        (b_slot, a_slot)
                    } else {
                        (a_slot, b_slot)
                    };
                    let x = self.mir.new_xmm_vreg(size);
                    self.emit(K::FpLoad {
                        dst: x,
                        addr: Self::lane_address(l, ty, lane),
                        size,
                    });
                    let first = self.vreg(Width::W32);
                    self.emit(K::MovImm {
                        dst: first,
                        imm: 0,
                        width: Width::W32,
                    });
                    let extra = second.map(|(c, op)| {
                        let t = self.vreg(Width::W32);
                        self.emit(K::MovImm {
                            dst: t,
                            imm: 0,
                            width: Width::W32,
                        });
                        (t, c, op)
                    });
                    self.emit(K::FpCmp {
                        size,
                        lhs: x,
                        rhs: Rm::Mem(Self::lane_address(rs, ty, lane)),
                        signaling: false,
                    });
                    self.emit(K::Setcc { cond, dst: first });
                    if let Some((t, c, op)) = extra {
                        self.emit(K::Setcc { cond: c, dst: t });
                        self.emit(K::Alu {
                            op,
                            width: Width::W32,
                            dst: first,
                            src: Rmi::Reg(t),
                        });
                    }
                    first
                }
            };
            self.store_int_lane(Self::lane_address(out, out_ty, lane), Lane::Bool, r);
        }
        self.reload_result(id, out);
        Ok(())
    }

    fn lower_vector_select(
        &mut self,
        id: InstId,
        cond: &Value,
        if_true: &Value,
        if_false: &Value,
    ) -> Result<(), Diagnostic> {
        let ty = self.must_vector(if_true)?;
        if self.vector_of(cond)?.is_none() {
            // One condition: an all-ones or all-zeros mask over every part.
            // 0 or 1 (a compare fused into this select sets the flags).
            let wide = self.vreg(Width::W64);
            self.emit(K::MovImm {
                dst: wide,
                imm: 0,
                width: Width::W32,
            });
            let cc = self.condition(cond)?;
            self.emit(K::Setcc {
                cond: cc,
                dst: wide,
            });
            self.emit(K::Unary {
                op: UnaryOp::Neg,
                width: Width::W64,
                dst: wide,
            });
            let low = self.mir.new_vector_vreg();
            self.emit(K::MovToXmm {
                width: Width::W64,
                dst: low,
                src: Rm::Reg(wide),
            });
            let mask = self.mir.new_vector_vreg();
            self.emit(K::PackedShuffleImm {
                op: PackedShuffle::Dwords,
                dst: mask,
                src: low,
                imm: 0x44,
            });
            let t = self.parts(if_true)?;
            let f = self.parts(if_false)?;
            for ((d, a), b) in self.result_parts(id).into_iter().zip(t).zip(f) {
                let keep = self.mir.new_vector_vreg();
                self.emit(K::Copy {
                    dst: keep,
                    src: mask,
                });
                self.emit(K::Packed {
                    op: PackedOp::AndNot,
                    dst: keep,
                    src: b,
                });
                self.emit(K::Copy { dst: d, src: mask });
                self.emit(K::Packed {
                    op: PackedOp::And,
                    dst: d,
                    src: a,
                });
                self.emit(K::Packed {
                    op: PackedOp::Or,
                    dst: d,
                    src: keep,
                });
            }
            return Ok(());
        }
        if self.native_select(id, cond, if_true, if_false)? {
            return Ok(());
        }
        let cond_ty = self.must_vector(cond)?;
        let c_slot = self.spill_to_scratch(cond, 0)?;
        let t_slot = self.spill_to_scratch(if_true, 1)?;
        let f_slot = self.spill_to_scratch(if_false, 2)?;
        let out = self.scratch(RESULT_SCRATCH, ty.scratch_bytes());
        let lane_ty = match ty.lane {
            Lane::Fp(size) => Lane::Int(size.bits()),
            other => other,
        };
        let data_ty = VecTy {
            lanes: ty.lanes,
            lane: lane_ty,
        };
        for lane in 0..ty.lanes {
            let c =
                self.load_int_lane(Self::lane_address(c_slot, cond_ty, lane), Lane::Bool, false);
            let r = self.load_int_lane(Self::lane_address(f_slot, data_ty, lane), lane_ty, false);
            let t = self.load_int_lane(Self::lane_address(t_slot, data_ty, lane), lane_ty, false);
            self.emit(K::Test {
                width: Width::W32,
                lhs: Rm::Reg(c),
                rhs: Ri::Reg(c),
            });
            self.emit(K::Cmov {
                cond: Cond::Ne,
                width: lane_ty.container(),
                dst: r,
                src: Rm::Reg(t),
            });
            self.store_int_lane(Self::lane_address(out, data_ty, lane), lane_ty, r);
        }
        self.reload_result(id, out);
        Ok(())
    }

    // ---- casts -----------------------------------------------------------

    fn lower_vector_cast(
        &mut self,
        id: InstId,
        op: CastOp,
        value: &Value,
    ) -> Result<(), Diagnostic> {
        let from = self.vector_of(value)?;
        let to = self.vector_type(&self.f.inst(id).ty)?;
        match (op, from, to) {
            (CastOp::PtrToInt | CastOp::IntToPtr, Some(a), Some(b)) => {
                // A pointer lane is a 64-bit integer lane: the cast is a
                // bitcast, or the truncation or zero extension it implies.
                let as_integers = match a.lane.bytes().cmp(&b.lane.bytes()) {
                    std::cmp::Ordering::Equal => CastOp::BitCast,
                    std::cmp::Ordering::Greater => CastOp::Trunc,
                    std::cmp::Ordering::Less => CastOp::ZExt,
                };
                self.lower_vector_cast(id, as_integers, value)
            }
            (CastOp::BitCast, Some(a), Some(b)) => {
                if (a.lane == Lane::Bool) != (b.lane == Lane::Bool) {
                    return Err(self.error(format!(
                        "unsupported bitcast between {} and {}",
                        type_name(self.module, &self.f.value_type(value)),
                        type_name(self.module, &self.f.inst(id).ty)
                    )));
                }
                let src = self.parts(value)?;
                for (d, s) in self.result_parts(id).into_iter().zip(src) {
                    self.emit(K::Copy { dst: d, src: s });
                }
                Ok(())
            }
            (CastOp::BitCast, Some(a), None) => {
                let dst = self.dst(id)?;
                let src = self.parts(value)?;
                if a.lane == Lane::Bool && a.lanes % 16 == 0 {
                    // Each lane's mask byte gives one bit (lane 0 the
                    // lowest), 16 bits from each part in turn.
                    self.emit(K::MoveMask { dst, src: src[0] });
                    for (i, &part) in src.iter().enumerate().skip(1) {
                        let bits = self.vreg(Width::W64);
                        self.emit(K::MoveMask {
                            dst: bits,
                            src: part,
                        });
                        self.emit(K::Shift {
                            op: ShiftOp::Shl,
                            width: Width::W64,
                            dst: bits,
                            amount: ShiftAmount::Imm(16 * i as u8),
                        });
                        self.emit(K::Alu {
                            op: AluOp::Or,
                            width: Width::W64,
                            dst,
                            src: Rmi::Reg(bits),
                        });
                    }
                    return Ok(());
                }
                if src.len() != 1 {
                    return Err(self.error(
                        "unsupported bitcast of a vector wider than 16 bytes to a scalar".into(),
                    ));
                }
                let ty = self.f.inst(id).ty.clone();
                if a.lane == Lane::Bool {
                    // Each lane's mask byte gives one bit (lane 0 the lowest).
                    self.emit(K::MoveMask { dst, src: src[0] });
                    return Ok(());
                }
                match ty {
                    Type::Float(_) => self.emit(K::Copy { dst, src: src[0] }),
                    _ => {
                        let bits = self.bits_of_type(&ty)?;
                        self.emit(K::MovFromXmm {
                            width: container(bits),
                            dst,
                            src: src[0],
                        });
                    }
                }
                Ok(())
            }
            (CastOp::BitCast, None, Some(b)) => {
                let parts = self.result_parts(id);
                if b.lane == Lane::Bool || parts.len() != 1 {
                    return Err(self.error(format!(
                        "unsupported bitcast to {}",
                        type_name(self.module, &self.f.inst(id).ty)
                    )));
                }
                let src = self.reg(value)?;
                match self.f.value_type(value) {
                    Type::Float(_) => self.emit(K::Copy { dst: parts[0], src }),
                    ty => {
                        let bits = self.bits_of_type(&ty)?;
                        self.emit(K::MovToXmm {
                            width: container(bits),
                            dst: parts[0],
                            src: Rm::Reg(src),
                        });
                    }
                }
                Ok(())
            }
            (CastOp::ZExt | CastOp::SExt | CastOp::Trunc, Some(a), Some(b)) => {
                if self.lower_narrow_subtract(id)? || self.native_int_cast(id, op, value, a, b)? {
                    return Ok(());
                }
                let signed = op == CastOp::SExt;
                let a_slot = self.spill_to_scratch(value, 0)?;
                let out = self.scratch(RESULT_SCRATCH, b.scratch_bytes());
                for lane in 0..a.lanes {
                    let mut r =
                        self.load_int_lane(Self::lane_address(a_slot, a, lane), a.lane, signed);
                    if a.lane == Lane::Bool && signed {
                        // 0/1 to 0/-1.
                        self.emit(K::Unary {
                            op: UnaryOp::Neg,
                            width: Width::W32,
                            dst: r,
                        });
                    }
                    if a.lane.container() == Width::W32 && b.lane.container() == Width::W64 {
                        let w = self.vreg(Width::W64);
                        self.emit(K::Extend {
                            dst: w,
                            src: Rm::Reg(r),
                            from: Width::W32,
                            to: Width::W64,
                            signed,
                        });
                        r = w;
                    }
                    self.store_int_lane(Self::lane_address(out, b, lane), b.lane, r);
                }
                self.reload_result(id, out);
                Ok(())
            }
            (
                CastOp::SIToFP
                | CastOp::FPToSI
                | CastOp::UIToFP
                | CastOp::FPToUI
                | CastOp::FPExt
                | CastOp::FPTrunc,
                Some(a),
                Some(b),
            ) => self.lower_vector_fp_cast(id, op, value, a, b),
            _ => Err(self.error(format!(
                "unsupported instruction '{}' on vectors",
                op.name()
            ))),
        }
    }

    fn lower_vector_fp_cast(
        &mut self,
        id: InstId,
        op: CastOp,
        value: &Value,
        a: VecTy,
        b: VecTy,
    ) -> Result<(), Diagnostic> {
        if self.native_fp_cast(id, op, value, a, b)? {
            return Ok(());
        }
        let a_slot = self.spill_to_scratch(value, 0)?;
        let out = self.scratch(RESULT_SCRATCH, b.scratch_bytes());
        for lane in 0..a.lanes {
            let from = Self::lane_address(a_slot, a, lane);
            let to = Self::lane_address(out, b, lane);
            match (a.lane, b.lane) {
                // Unsigned lanes: the scalar conversions of `fp`, lane by lane.
                (Lane::Int(bits), Lane::Fp(size)) if op == CastOp::UIToFP => {
                    let r = self.load_int_lane(from, a.lane, false);
                    let x = self.mir.new_xmm_vreg(size);
                    self.uitofp_reg(x, r, bits, size);
                    self.emit(K::FpStore {
                        src: x,
                        addr: to,
                        size,
                    });
                }
                (Lane::Fp(size), Lane::Int(bits)) if op == CastOp::FPToUI => {
                    let x = self.mir.new_xmm_vreg(size);
                    self.emit(K::FpLoad {
                        dst: x,
                        addr: from,
                        size,
                    });
                    let r = self.vreg(b.lane.container());
                    self.fptoui_reg(r, x, size, bits);
                    self.store_int_lane(to, b.lane, r);
                }
                (Lane::Int(bits), Lane::Fp(size)) if bits >= 8 => {
                    let r = self.load_int_lane(from, a.lane, true);
                    let x = self.mir.new_xmm_vreg(size);
                    self.emit(K::IntToFp {
                        size,
                        width: a.lane.container(),
                        dst: x,
                        src: Rm::Reg(r),
                    });
                    self.emit(K::FpStore {
                        src: x,
                        addr: to,
                        size,
                    });
                }
                (Lane::Fp(size), Lane::Int(_)) => {
                    let r = self.vreg(b.lane.container());
                    self.emit(K::FpToInt {
                        rounded: false,
                        size,
                        width: b.lane.container(),
                        dst: r,
                        src: Rm::Mem(from),
                    });
                    self.store_int_lane(to, b.lane, r);
                }
                (Lane::Fp(s), Lane::Fp(t)) if s != t => {
                    let x = self.mir.new_xmm_vreg(t);
                    self.emit(K::FpConvert {
                        from: s,
                        dst: x,
                        src: Rm::Mem(from),
                    });
                    self.emit(K::FpStore {
                        src: x,
                        addr: to,
                        size: t,
                    });
                }
                _ => {
                    return Err(self.error(format!(
                        "unsupported instruction '{}' on vectors",
                        op.name()
                    )))
                }
            }
        }
        self.reload_result(id, out);
        Ok(())
    }

    // ---- lanes -------------------------------------------------------------

    /// The address of lane `index` (constant, or a register masked to the
    /// slot) of a vector of `ty` in `slot`.
    fn indexed_lane(
        &mut self,
        slot: StackSlotId,
        ty: VecTy,
        index: &Value,
    ) -> Result<Address, Diagnostic> {
        let limit = ty.lanes.next_power_of_two();
        if let Some(c) = self.const_int(index) {
            let lane = (c as u64 % u64::from(limit)) as u32;
            return Ok(Self::lane_address(slot, ty, lane));
        }
        let i = self.reg(index)?;
        let masked = self.vreg(Width::W64);
        let bits = self.bits_of(index)?;
        self.emit(K::Copy {
            dst: masked,
            src: i,
        });
        if bits < 64 {
            let w = self.extend(masked, bits, Width::W64, false);
            self.emit(K::Copy {
                dst: masked,
                src: w,
            });
        }
        self.emit(K::Alu {
            op: AluOp::And,
            width: Width::W64,
            dst: masked,
            src: Rmi::Imm((limit - 1) as i32),
        });
        Ok(Address {
            base: AddressBase::Slot(slot),
            index: Some((masked, ty.lane.bytes() as u8)),
            disp: 0,
        })
    }

    fn lower_extract_element(
        &mut self,
        id: InstId,
        vector: &Value,
        index: &Value,
    ) -> Result<(), Diagnostic> {
        if self.native_extract(id, vector, index)? {
            return Ok(());
        }
        let ty = self.must_vector(vector)?;
        let dst = self.dst(id)?;
        let slot = self.spill_to_scratch(vector, 0)?;
        let addr = self.indexed_lane(slot, ty, index)?;
        match ty.lane {
            Lane::Fp(size) => self.emit(K::FpLoad { dst, addr, size }),
            lane => {
                let r = self.load_int_lane(addr, lane, false);
                self.emit(K::Copy { dst, src: r });
            }
        }
        Ok(())
    }

    fn lower_insert_element(
        &mut self,
        id: InstId,
        vector: &Value,
        elem: &Value,
        index: &Value,
    ) -> Result<(), Diagnostic> {
        if self.native_insert(id, vector, elem, index)? {
            return Ok(());
        }
        let ty = self.must_vector(vector)?;
        let slot = self.scratch(RESULT_SCRATCH, ty.scratch_bytes());
        let parts = self.parts(vector)?;
        for (i, src) in parts.into_iter().enumerate() {
            self.emit(K::VecStore {
                src,
                addr: Address::slot(slot, 16 * i as i32),
                bytes: 16,
            });
        }
        let addr = self.indexed_lane(slot, ty, index)?;
        match ty.lane {
            Lane::Fp(size) => {
                let x = self.reg(elem)?;
                self.emit(K::FpStore { src: x, addr, size });
            }
            lane => {
                let r = self.reg(elem)?;
                self.store_int_lane(addr, lane, r);
            }
        }
        self.reload_result(id, slot);
        Ok(())
    }

    fn lower_shuffle(
        &mut self,
        id: InstId,
        lhs: &Value,
        rhs: &Value,
        mask: &[Option<u32>],
    ) -> Result<(), Diagnostic> {
        let ty = self.must_vector(lhs)?;
        let out_ty = VecTy {
            lanes: mask.len() as u32,
            lane: ty.lane,
        };
        // A splat of lane 0.
        if mask.iter().all(|m| m.is_none_or(|m| m == 0)) && mask.first() == Some(&Some(0)) {
            if let Some(splat) = self.splat_lane_zero(lhs, ty)? {
                for d in self.result_parts(id) {
                    self.emit(K::Copy { dst: d, src: splat });
                }
                return Ok(());
            }
        }
        if self.native_shuffle(id, lhs, rhs, mask)? {
            return Ok(());
        }
        let lane = raw(ty.lane);
        let data = VecTy {
            lanes: ty.lanes,
            lane,
        };
        let a_slot = self.spill_to_scratch(lhs, 0)?;
        let b_slot = self.spill_to_scratch(rhs, 1)?;
        let out = self.scratch(RESULT_SCRATCH, out_ty.scratch_bytes());
        let out_data = VecTy {
            lanes: out_ty.lanes,
            lane,
        };
        for (i, m) in mask.iter().enumerate() {
            let Some(m) = *m else { continue };
            let (slot, from) = if m < ty.lanes {
                (a_slot, m)
            } else {
                (b_slot, m - ty.lanes)
            };
            let r = self.load_int_lane(Self::lane_address(slot, data, from), lane, false);
            self.store_int_lane(Self::lane_address(out, out_data, i as u32), lane, r);
        }
        self.reload_result(id, out);
        Ok(())
    }

    /// A register whose every lane of `ty`'s size is lane 0 of `v`, if a
    /// shuffle makes one.
    fn splat_lane_zero(&mut self, v: &Value, ty: VecTy) -> Result<Option<Reg>, Diagnostic> {
        let src = self.parts(v)?[0];
        Ok(Some(self.splat_register(src, ty)))
    }

    /// A register whose every lane of `ty`'s size is lane 0 of `src`.
    fn splat_register(&mut self, src: Reg, ty: VecTy) -> Reg {
        let dst = self.mir.new_vector_vreg();
        match ty.lane.bytes() {
            1 => {
                let t = self.mir.new_vector_vreg();
                self.emit(K::Copy { dst: t, src });
                self.emit(K::Packed {
                    op: PackedOp::UnpackLoBW,
                    dst: t,
                    src: t,
                });
                let u = self.mir.new_vector_vreg();
                self.emit(K::PackedShuffleImm {
                    op: PackedShuffle::LowWords,
                    dst: u,
                    src: t,
                    imm: 0,
                });
                self.emit(K::PackedShuffleImm {
                    op: PackedShuffle::Dwords,
                    dst,
                    src: u,
                    imm: 0,
                });
            }
            2 => {
                let u = self.mir.new_vector_vreg();
                self.emit(K::PackedShuffleImm {
                    op: PackedShuffle::LowWords,
                    dst: u,
                    src,
                    imm: 0,
                });
                self.emit(K::PackedShuffleImm {
                    op: PackedShuffle::Dwords,
                    dst,
                    src: u,
                    imm: 0,
                });
            }
            4 => self.emit(K::PackedShuffleImm {
                op: PackedShuffle::Dwords,
                dst,
                src,
                imm: 0,
            }),
            _ => self.emit(K::PackedShuffleImm {
                op: PackedShuffle::Dwords,
                dst,
                src,
                imm: 0x44,
            }),
        }
        dst
    }

    // ---- intrinsics ----------------------------------------------------------

    fn lower_vector_intrinsic(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<(), Diagnostic> {
        let base: Vec<&str> = name.split('.').collect();
        let unsupported = || format!("unsupported intrinsic '{name}' on vectors");
        if base.get(1) == Some(&"vector") && base.get(2) == Some(&"reduce") {
            let op = base.get(3).copied().unwrap_or("");
            return self.lower_reduce(id, op, args, name);
        }
        let op = base.get(1).copied().unwrap_or("");
        let values: Vec<&Value> = args.iter().map(|a| &a.value).collect();
        let ty = self.must_vector(&Value::Inst(id))?;
        if let ("fabs", Lane::Fp(size), [a]) = (op, ty.lane, values.as_slice()) {
            return self.sign_mask(id, size, a, PackedOp::And, false);
        }
        if let ("sqrt", Lane::Fp(size), [a]) = (op, ty.lane, values.as_slice()) {
            // Every lane of each part, unused ones too (their square roots
            // raise no trap: exceptions are masked).
            let sqrt = match size {
                FpSize::F32 => PackedOp::SqrtPs,
                FpSize::F64 => PackedOp::SqrtPd,
            };
            let a = self.parts(a)?;
            for (d, x) in self.result_parts(id).into_iter().zip(a) {
                self.emit(K::Copy { dst: d, src: x });
                self.emit(K::Packed {
                    op: sqrt,
                    dst: d,
                    src: x,
                });
            }
            return Ok(());
        }
        if let ("fmuladd", Lane::Fp(size), [a, b, c]) = (op, ty.lane, values.as_slice()) {
            // A multiply, then an add (no FMA in the baseline).
            let (mul, add) = match size {
                FpSize::F32 => (PackedOp::MulPs, PackedOp::AddPs),
                FpSize::F64 => (PackedOp::MulPd, PackedOp::AddPd),
            };
            self.packed_parts(id, mul, a, b)?;
            let c = self.parts(c)?;
            for (d, y) in self.result_parts(id).into_iter().zip(c) {
                self.emit(K::Packed {
                    op: add,
                    dst: d,
                    src: y,
                });
            }
            return Ok(());
        }
        let Lane::Int(bits) = ty.lane else {
            return Err(self.error(unsupported()));
        };
        let width = ty.lane.container();
        let arity = match op {
            "smax" | "smin" | "umax" | "umin" | "usub" | "uadd" | "ssub" | "sadd" => 2,
            "fshl" | "fshr" => 3,
            "abs" => 2,
            "bswap" if bits >= 16 => 1,
            _ => return Err(self.error(unsupported())),
        };
        if matches!(op, "usub" | "uadd" | "ssub" | "sadd") && base.get(2) != Some(&"sat") {
            return Err(self.error(unsupported()));
        }
        if values.len() != arity {
            return Err(self.error(unsupported()));
        }
        if self.native_int_intrinsic(id, op, bits, &values)? {
            return Ok(());
        }
        if matches!(op, "ssub" | "sadd") {
            // Signed saturation has packed forms for bytes and words only.
            return Err(self.error(unsupported()));
        }
        let signed = matches!(op, "smax" | "smin" | "abs");
        let slots: Vec<StackSlotId> = if matches!(op, "abs" | "bswap") {
            vec![self.spill_to_scratch(values[0], 0)?]
        } else {
            let mut s = Vec::new();
            for (k, v) in values.iter().enumerate() {
                s.push(self.spill_to_scratch(v, k)?);
            }
            s
        };
        let out = self.scratch(RESULT_SCRATCH, ty.scratch_bytes());
        for lane in 0..ty.lanes {
            let a = self.load_int_lane(Self::lane_address(slots[0], ty, lane), ty.lane, signed);
            let r = match op {
                "abs" => {
                    let n = self.vreg(width);
                    self.emit(K::Copy { dst: n, src: a });
                    self.emit(K::Unary {
                        op: UnaryOp::Neg,
                        width,
                        dst: n,
                    });
                    // neg sets SF from the result: keep a where -a < 0.
                    self.emit(K::Cmov {
                        cond: Cond::S,
                        width,
                        dst: n,
                        src: Rm::Reg(a),
                    });
                    n
                }
                "bswap" => {
                    let r = self.vreg(width);
                    self.emit(K::Copy { dst: r, src: a });
                    if bits == 16 {
                        self.emit(K::Shift {
                            op: ShiftOp::Rol,
                            width: Width::W16,
                            dst: r,
                            amount: ShiftAmount::Imm(8),
                        });
                    } else {
                        self.emit(K::Unary {
                            op: UnaryOp::Bswap,
                            width,
                            dst: r,
                        });
                    }
                    r
                }
                "fshl" | "fshr" => {
                    // Concatenate in a 64-bit register (lanes up to 32 bits)
                    // or do two shifts (64-bit lanes).
                    let b =
                        self.load_int_lane(Self::lane_address(slots[1], ty, lane), ty.lane, false);
                    let c =
                        self.load_int_lane(Self::lane_address(slots[2], ty, lane), ty.lane, false);
                    self.funnel_lane(op == "fshl", bits, a, b, c)
                }
                _ => {
                    let b =
                        self.load_int_lane(Self::lane_address(slots[1], ty, lane), ty.lane, signed);
                    let r = self.vreg(width);
                    self.emit(K::Copy { dst: r, src: a });
                    match op {
                        "usub" | "uadd" => {
                            self.emit(K::Alu {
                                op: if op == "usub" { AluOp::Sub } else { AluOp::Add },
                                width,
                                dst: r,
                                src: Rmi::Reg(b),
                            });
                            if bits < 32 {
                                // Out of range: below zero or past the top.
                                let limit = if op == "usub" { 0 } else { (1i64 << bits) - 1 };
                                let l = self.vreg(width);
                                self.emit(K::MovImm {
                                    dst: l,
                                    imm: limit,
                                    width,
                                });
                                self.emit(K::Cmp {
                                    width,
                                    lhs: Rm::Reg(r),
                                    rhs: Rmi::Imm(((1i64 << bits) - 1) as i32),
                                });
                                self.emit(K::Cmov {
                                    cond: Cond::A,
                                    width,
                                    dst: r,
                                    src: Rm::Reg(l),
                                });
                            } else {
                                let l = self.vreg(width);
                                self.emit(K::MovImm {
                                    dst: l,
                                    imm: if op == "usub" { 0 } else { -1 },
                                    width,
                                });
                                self.emit(K::Cmov {
                                    cond: Cond::B,
                                    width,
                                    dst: r,
                                    src: Rm::Reg(l),
                                });
                            }
                        }
                        _ => self.min_max_in_place(min_max_of(op), width, r, b),
                    }
                    r
                }
            };
            self.store_int_lane(Self::lane_address(out, ty, lane), ty.lane, r);
        }
        self.reload_result(id, out);
        Ok(())
    }

    /// One lane of `fshl`/`fshr` of `bits`-bit lanes: `a`, `b` zero-extended,
    /// `c` the count (taken modulo `bits`).
    fn funnel_lane(&mut self, left: bool, bits: u32, a: Reg, b: Reg, c: Reg) -> Reg {
        let width = container(bits);
        let count = self.vreg(Width::W32);
        self.emit(K::Copy { dst: count, src: c });
        self.emit(K::Alu {
            op: AluOp::And,
            width: Width::W32,
            dst: count,
            src: Rmi::Imm((bits - 1) as i32),
        });
        if bits <= 32 {
            // (a << bits | b) shifted in 64 bits.
            let wide = self.vreg(Width::W64);
            self.emit(K::Extend {
                dst: wide,
                src: Rm::Reg(a),
                from: Width::W32,
                to: Width::W64,
                signed: false,
            });
            self.emit(K::Shift {
                op: ShiftOp::Shl,
                width: Width::W64,
                dst: wide,
                amount: ShiftAmount::Imm(bits as u8),
            });
            let low = self.vreg(Width::W64);
            self.emit(K::Extend {
                dst: low,
                src: Rm::Reg(b),
                from: Width::W32,
                to: Width::W64,
                signed: false,
            });
            self.emit(K::Alu {
                op: AluOp::Or,
                width: Width::W64,
                dst: wide,
                src: Rmi::Reg(low),
            });
            self.emit(K::Copy {
                dst: Reg::from(Gpr::Rcx),
                src: count,
            });
            self.emit(K::Shift {
                op: if left { ShiftOp::Shl } else { ShiftOp::Shr },
                width: Width::W64,
                dst: wide,
                amount: ShiftAmount::Cl,
            });
            if left {
                self.emit(K::Shift {
                    op: ShiftOp::Shr,
                    width: Width::W64,
                    dst: wide,
                    amount: ShiftAmount::Imm(bits as u8),
                });
            }
            let r = self.vreg(width);
            self.emit(K::Copy { dst: r, src: wide });
            return r;
        }
        // 64-bit lanes: a count of 0 gives a (fshl) or b (fshr).
        let hi = self.vreg(width);
        let lo = self.vreg(width);
        self.emit(K::Copy { dst: hi, src: a });
        self.emit(K::Copy { dst: lo, src: b });
        self.emit(K::Copy {
            dst: Reg::from(Gpr::Rcx),
            src: count,
        });
        let (first, second) = if left {
            (ShiftOp::Shl, ShiftOp::Shr)
        } else {
            (ShiftOp::Shr, ShiftOp::Shl)
        };
        let (x, y) = if left { (hi, lo) } else { (lo, hi) };
        self.emit(K::Shift {
            op: first,
            width,
            dst: x,
            amount: ShiftAmount::Cl,
        });
        let rest = self.vreg(Width::W32);
        self.emit(K::MovImm {
            dst: rest,
            imm: 64,
            width: Width::W32,
        });
        self.emit(K::Alu {
            op: AluOp::Sub,
            width: Width::W32,
            dst: rest,
            src: Rmi::Reg(count),
        });
        self.emit(K::Copy {
            dst: Reg::from(Gpr::Rcx),
            src: rest,
        });
        // A shift by 64 is a shift by 0 on x86: zero `y` when count is 0.
        self.emit(K::Shift {
            op: second,
            width,
            dst: y,
            amount: ShiftAmount::Cl,
        });
        let zero = self.vreg(width);
        self.emit(K::MovImm {
            dst: zero,
            imm: 0,
            width,
        });
        self.emit(K::Test {
            width: Width::W32,
            lhs: Rm::Reg(count),
            rhs: Ri::Reg(count),
        });
        self.emit(K::Cmov {
            cond: Cond::E,
            width,
            dst: y,
            src: Rm::Reg(zero),
        });
        self.emit(K::Alu {
            op: AluOp::Or,
            width,
            dst: x,
            src: Rmi::Reg(y),
        });
        x
    }

    fn lower_reduce(
        &mut self,
        id: InstId,
        op: &str,
        args: &[ir::CallArg],
        name: &str,
    ) -> Result<(), Diagnostic> {
        let unsupported = || format!("unsupported intrinsic '{name}'");
        let dst = self.dst(id)?;
        match op {
            "fadd" | "fmul" => {
                let [start, vector] = args else {
                    return Err(self.error(unsupported()));
                };
                let ty = self.must_vector(&vector.value)?;
                let Lane::Fp(size) = ty.lane else {
                    return Err(self.error(unsupported()));
                };
                let slot = self.spill_to_scratch(&vector.value, 0)?;
                let acc = self.reg(&start.value)?;
                self.emit(K::Copy { dst, src: acc });
                let fop = if op == "fadd" { FpOp::Add } else { FpOp::Mul };
                for lane in 0..ty.lanes {
                    self.emit(K::FpArith {
                        op: fop,
                        size,
                        dst,
                        src: Rm::Mem(Self::lane_address(slot, ty, lane)),
                    });
                }
                Ok(())
            }
            "add" | "mul" | "and" | "or" | "xor" | "smax" | "smin" | "umax" | "umin" => {
                let [vector] = args else {
                    return Err(self.error(unsupported()));
                };
                if self.native_reduce(id, op, &vector.value)? {
                    return Ok(());
                }
                let ty = self.must_vector(&vector.value)?;
                let lane = match ty.lane {
                    Lane::Fp(_) => return Err(self.error(unsupported())),
                    other => other,
                };
                let signed = matches!(op, "smax" | "smin");
                let width = lane.container();
                let slot = self.spill_to_scratch(&vector.value, 0)?;
                let acc = self.load_int_lane(Self::lane_address(slot, ty, 0), lane, signed);
                self.emit(K::Copy { dst, src: acc });
                for l in 1..ty.lanes {
                    let x = self.load_int_lane(Self::lane_address(slot, ty, l), lane, signed);
                    match op {
                        "mul" => self.emit(K::Imul {
                            width,
                            dst,
                            src: Rm::Reg(x),
                        }),
                        "add" | "and" | "or" | "xor" => {
                            let alu = match op {
                                "add" => AluOp::Add,
                                "and" => AluOp::And,
                                "or" => AluOp::Or,
                                _ => AluOp::Xor,
                            };
                            self.emit(K::Alu {
                                op: alu,
                                width,
                                dst,
                                src: Rmi::Reg(x),
                            });
                        }
                        _ => self.min_max_in_place(min_max_of(op), width, dst, x),
                    }
                }
                Ok(())
            }
            _ => Err(self.error(unsupported())),
        }
    }

    // ---- calls and control flow -----------------------------------------------

    /// The copies giving `succ`'s vector phis their values on the edge from
    /// `pred` (through temporaries, so phis reading phis are right).
    pub(super) fn vector_phi_copies(
        &mut self,
        pred: u32,
        succ: ir::BlockId,
    ) -> Result<(), Diagnostic> {
        let mut moves: Vec<(Vec<Reg>, Vec<Reg>)> = Vec::new();
        for &id in &self.f.blocks[succ.0 as usize].insts {
            let InstKind::Phi { incoming } = &self.f.inst(id).kind else {
                break;
            };
            if !matches!(self.f.inst(id).ty, Type::Vector { .. }) {
                continue;
            }
            let Some((value, _)) = incoming.iter().find(|(_, b)| b.0 == pred) else {
                continue;
            };
            let value = value.clone();
            let src = self.parts(&value)?;
            let mut temps = Vec::with_capacity(src.len());
            for s in src {
                let t = self.mir.new_vector_vreg();
                self.emit(K::Copy { dst: t, src: s });
                temps.push(t);
            }
            moves.push((self.result_parts(id), temps));
        }
        for (dst, temps) in moves {
            for (d, t) in dst.into_iter().zip(temps) {
                self.emit(K::Copy { dst: d, src: t });
            }
        }
        Ok(())
    }
}

/// How an `fcmp` reads the flags of `ucomis`: swap the operands, the
/// condition, and a second condition with how to join it.
type FlagRule = (bool, Cond, Option<(Cond, AluOp)>);

/// The integer lane moving a lane's bits unchanged (floats as integers).
fn raw(lane: Lane) -> Lane {
    match lane {
        Lane::Fp(size) => Lane::Int(size.bits()),
        other => other,
    }
}

/// The min/max intrinsic a lane operation's name (`smax`, `smin`, `umax`,
/// `umin`) stands for.
fn min_max_of(op: &str) -> ir::Intrinsic {
    match op {
        "smax" => ir::Intrinsic::SMax,
        "smin" => ir::Intrinsic::SMin,
        "umax" => ir::Intrinsic::UMax,
        _ => ir::Intrinsic::UMin,
    }
}
