//! Calls and the SysV calling convention: where parameters arrive and
//! where arguments go (integer and SSE registers counted separately, the
//! rest on the stack in argument order; aggregates leaf by leaf, `i128` in
//! a register pair or 16 aligned stack bytes, `x86_fp80` in 16 aligned
//! stack bytes and returned in st(0), vectors of up to 16 bytes in
//! an SSE register or 16 aligned stack bytes, `byval` copies on the
//! stack), variadic calls' `%al`, results in rax/rdx and xmm0/xmm1, `sret`
//! pointers returned in rax, `musttail` calls as jumps, and `tail` calls
//! as jumps too where the ABI allows (sibling calls: see
//! `Selector::is_sibling_call`); a call of an alias calls its symbol.
//!
//! In: the IR function's parameters and its call instructions. Out: copies
//! from and to the ABI's physical registers, stack argument loads and
//! stores, and `Call` instructions naming the registers they read and
//! write.

use super::*;
use crate::x86::abi::{RETURN_REGISTERS, TAIL_CALL_REGISTER, XMM_RETURN_REGISTERS};

/// Where one argument goes under SysV: the next free integer or SSE
/// register of its kind, else the next 8-byte stack slot (both kinds
/// share the stack, in argument order).
pub(super) enum ArgumentPlace {
    Register(PhysReg),
    Stack(u32),
}

/// Counts the argument registers and stack bytes used so far.
#[derive(Clone, Copy, Default)]
pub(super) struct ArgumentPlaces {
    pub(super) gpr: usize,
    pub(super) xmm: u32,
    pub(super) stack_bytes: u32,
}

impl ArgumentPlaces {
    pub(super) fn next(&mut self, floating: bool) -> ArgumentPlace {
        let register = if floating {
            XMM_ARGUMENT_REGISTERS
                .get(self.xmm as usize)
                .map(|&x| PhysReg::from(x))
        } else {
            ARGUMENT_REGISTERS.get(self.gpr).map(|&g| PhysReg::from(g))
        };
        if let Some(r) = register {
            if floating {
                self.xmm += 1;
            } else {
                self.gpr += 1;
            }
            return ArgumentPlace::Register(r);
        }
        ArgumentPlace::Stack(self.stack(STACK_ARGUMENT_SIZE, STACK_ARGUMENT_SIZE))
    }

    /// A vector (of up to 16 bytes): the next SSE register, else 16 stack
    /// bytes aligned to 16, whatever its size (llc widens every narrower
    /// vector to 128 bits to pass it).
    pub(super) fn next_vector(&mut self) -> ArgumentPlace {
        if self.xmm < XMM_ARGUMENT_REGISTERS.len() as u32 {
            return self.next(true);
        }
        ArgumentPlace::Stack(self.stack(16, 16))
    }

    /// An `i128`: two consecutive integer registers, else 16 bytes of
    /// stack aligned to 16 (later arguments may still take registers).
    pub(super) fn next_pair(&mut self) -> [ArgumentPlace; 2] {
        if self.gpr + 2 <= ARGUMENT_REGISTERS.len() {
            return [self.next(false), self.next(false)];
        }
        let disp = self.stack(16, 16);
        [ArgumentPlace::Stack(disp), ArgumentPlace::Stack(disp + 8)]
    }

    /// The displacement of `size` bytes of the stack argument area at
    /// `align` (a `byval` copy, an `i128`), rounded up to whole 8-byte
    /// slots.
    pub(super) fn stack(&mut self, size: u32, align: u32) -> u32 {
        let align = align.max(STACK_ARGUMENT_SIZE);
        let disp = self.stack_bytes.div_ceil(align) * align;
        self.stack_bytes = disp + size.div_ceil(STACK_ARGUMENT_SIZE) * STACK_ARGUMENT_SIZE;
        disp
    }
}

/// The stack bytes and alignment of a `byval(ty)` argument with `attrs`.
fn byval_layout(module: &Module, ty: &Type, attrs: &ir::ParamAttrs) -> (u32, u32) {
    let written = attrs
        .other
        .iter()
        .find_map(|a| a.strip_prefix("align ")?.trim().parse::<u64>().ok());
    let align = written.unwrap_or_else(|| module.align_of(ty)).clamp(8, 16);
    let size = module.size_of(ty);
    (u32::try_from(size).unwrap_or(u32::MAX), align as u32)
}

/// The registers a value with these leaves is returned in (integers in
/// rax then rdx, floating point in xmm0 then xmm1), or `None` when more
/// are needed (the C ABI never returns more: clang returns such structs
/// through an `sret` pointer, while llc would use rcx, xmm2... beyond it).
pub(super) fn return_registers(floating: &[bool]) -> Option<Vec<PhysReg>> {
    let (mut gpr, mut xmm) = (0, 0);
    let mut out = Vec::with_capacity(floating.len());
    for &fp in floating {
        if fp {
            out.push(PhysReg::from(*XMM_RETURN_REGISTERS.get(xmm)?));
            xmm += 1;
        } else {
            out.push(PhysReg::from(*RETURN_REGISTERS.get(gpr)?));
            gpr += 1;
        }
    }
    Some(out)
}

/// How one call argument is passed.
enum Outgoing {
    /// A scalar in a register: floating-point precision or integer bits.
    Scalar(Reg, Result<mir::FpSize, u32>),
    /// An `i128`: its two halves, in a register pair or 16 stack bytes.
    Pair([Reg; 2]),
    /// A `byval` copy of `size` bytes from the address in the register.
    ByVal { ptr: Reg, size: u32, align: u32 },
    /// A vector of up to 16 bytes: the next SSE register, else 16 stack
    /// bytes aligned to 16.
    Vector(Reg),
    /// An `x86_fp80`'s leaves: 16 stack bytes aligned to 16.
    Fp80([Reg; 2]),
}

impl Selector<'_> {
    /// Copies the parameters out of their ABI places into virtual
    /// registers: scalars and the leaves of aggregates and `i128`s from
    /// registers or the incoming stack area; a `byval` parameter is the
    /// address of its copy in the incoming stack area; then the register
    /// save area of a variadic function.
    pub(super) fn lower_params(&mut self) -> Result<(), Diagnostic> {
        self.current = MBlock(0);
        if self.f.varargs {
            self.split_variadic_entry();
        }
        // No location: the line table counts them with the prologue.
        self.loc = 0;
        let mut places = ArgumentPlaces::default();
        for (n, param) in self.f.params.iter().enumerate() {
            if matches!(param.ty, Type::Vector { .. }) {
                if aggregate::one_register_vector_bytes(&param.ty).is_none() {
                    return Err(self.error(format!(
                        "unsupported parameter of type {}",
                        type_name(self.module, &param.ty)
                    )));
                }
                let reg = self.mir.new_vector_vreg();
                match places.next_vector() {
                    ArgumentPlace::Register(phys) => self.emit(K::Copy {
                        dst: reg,
                        src: Reg::from(phys),
                    }),
                    ArgumentPlace::Stack(disp) => self.emit(K::VecLoad {
                        dst: reg,
                        addr: incoming(disp),
                        bytes: 16,
                    }),
                }
                self.args.push(reg);
                continue;
            }
            if let Some(ty) = &param.attrs.byval {
                let (size, align) = byval_layout(self.module, ty, &param.attrs);
                let disp = places.stack(size, align);
                let reg = self.vreg(Width::W64);
                self.emit(K::Lea {
                    dst: reg,
                    addr: incoming(disp),
                });
                self.args.push(reg);
                self.byval_homes.insert(n as u32, disp);
                continue;
            }
            if param.ty == Type::Float(ir::FloatKind::X86Fp80) {
                let regs = self.new_leaf_regs(&param.ty);
                let disp = places.stack(16, 16);
                self.load_fp80(&regs, incoming(disp))?;
                self.args.push(regs[0]);
                self.arg_leaves.insert(n as u32, regs);
                continue;
            }
            self.refuse_fp80_member(&param.ty, "parameter")?;
            if let Some(leaves) = self.leaves_of_type(&param.ty) {
                let regs = self.new_leaf_regs(&param.ty);
                let wide_places = if param.ty == Type::Int(128) {
                    places.next_pair().into_iter().collect()
                } else {
                    let mut out = Vec::with_capacity(leaves.len());
                    for leaf in &leaves {
                        self.fp_size_of_type(&leaf.ty)?;
                        out.push(places.next(self.is_sse_leaf(&leaf.ty)));
                    }
                    out
                };
                for ((leaf, &reg), place) in leaves.iter().zip(&regs).zip(wide_places) {
                    match place {
                        ArgumentPlace::Register(phys) => self.emit(K::Copy {
                            dst: reg,
                            src: Reg::from(phys),
                        }),
                        ArgumentPlace::Stack(disp) => {
                            self.leaf_sse_size(&leaf.ty)?;
                            self.load_leaf(reg, &leaf.ty, incoming(disp))?
                        }
                    }
                }
                self.args.push(regs[0]);
                self.arg_leaves.insert(n as u32, regs);
                continue;
            }
            let fp = self.fp_size_of_type(&param.ty)?;
            let reg = match fp {
                Some(size) => self.mir.new_xmm_vreg(size),
                None => {
                    let bits = self.bits_of_type(&param.ty)?;
                    self.vreg(container(bits))
                }
            };
            self.args.push(reg);
            match places.next(fp.is_some()) {
                ArgumentPlace::Register(phys) => self.emit(K::Copy {
                    dst: reg,
                    src: Reg::from(phys),
                }),
                ArgumentPlace::Stack(disp) => {
                    let addr = incoming(disp);
                    let width = match fp {
                        Some(mir::FpSize::F32) => Width::W32,
                        Some(mir::FpSize::F64) => Width::W64,
                        None => self.width_of(reg),
                    };
                    self.stack_arg_homes.insert(n as u32, (disp, width));
                    match fp {
                        Some(size) => self.emit(K::FpLoad {
                            dst: reg,
                            addr,
                            size,
                        }),
                        None => {
                            let width = self.width_of(reg);
                            self.emit(K::Load {
                                dst: reg,
                                addr,
                                width,
                            })
                        }
                    }
                }
            }
        }
        if let Some(n) = self.f.params.iter().position(|p| p.attrs.sret.is_some()) {
            // Kept in a slot for the whole function: returned from there,
            // and the variable living in the sret memory is found through it.
            let slot = self.mir.new_stack_slot(8, 8, mir::StackSlotKind::Alloca);
            self.emit(K::Store {
                src: Ri::Reg(self.args[n]),
                addr: Address::slot(slot, 0),
                width: Width::W64,
            });
            self.sret_slot = Some((n as u32, slot));
        }
        if self.f.varargs {
            self.save_variadic_registers(places);
        }
        Ok(())
    }

    pub(super) fn lower_call(
        &mut self,
        id: InstId,
        callee: &Value,
        args: &[ir::CallArg],
        fn_ty: &ir::FunctionType,
    ) -> Result<(), Diagnostic> {
        let direct = self.module.direct_callee(callee);
        let mut symbol = None;
        if let Some(fid) = direct {
            let name = &self.module.function(fid).name;
            if name.starts_with("llvm.") {
                if matches!(self.f.inst(id).kind, InstKind::Invoke { .. }) {
                    return Err(self.error(format!("unsupported invoke of intrinsic @{name}")));
                }
                if name.starts_with("llvm.eh.typeid.for") && self.lower_typeid_for(id, args)? {
                    return Ok(());
                }
                if self.lower_varargs_intrinsic(name, args)?
                    || self.lower_ptrmask(id, name, args)?
                    || self.lower_wide_intrinsic(id, name, args)?
                {
                    return Ok(());
                }
                if self.lower_x87_intrinsic(id, name, args)?
                    || self.lower_fp_intrinsic(id, name, args)?
                {
                    return Ok(());
                }
                return self.lower_intrinsic(id, name, args);
            }
            symbol = Some(name.clone());
        }
        // A call of an alias is a direct call of the alias's symbol.
        if let Value::Const(ir::Constant::Global(ir::GlobalRef::Var(global))) = callee {
            let global = self.module.global(*global);
            if global.is_alias() {
                symbol = Some(global.name.clone());
            }
        }
        self.call(id, symbol, callee, args, fn_ty.varargs)
    }

    /// A call following the SysV ABI: six integer and eight SSE register
    /// arguments, the rest on the stack in argument order; narrow
    /// `signext`/`zeroext` arguments extended to 32 bits; aggregates leaf
    /// by leaf, `i128` in a register pair, `byval` copied onto the stack;
    /// results in rax/rdx and xmm0/xmm1. A `musttail` call becomes a jump
    /// after the epilogue.
    pub(super) fn call(
        &mut self,
        id: InstId,
        symbol: Option<String>,
        callee: &Value,
        args: &[ir::CallArg],
        varargs: bool,
    ) -> Result<(), Diagnostic> {
        let must_tail = matches!(
            &self.f.inst(id).kind,
            InstKind::Call {
                tail: ir::TailKind::MustTail,
                ..
            }
        );
        let mut outgoing: Vec<Outgoing> = Vec::with_capacity(args.len());
        for arg in args {
            if let Some(ty) = &arg.attrs.byval {
                let (size, align) = byval_layout(self.module, ty, &arg.attrs);
                let ptr = self.reg(&arg.value)?;
                outgoing.push(Outgoing::ByVal { ptr, size, align });
                continue;
            }
            let ty = self.f.value_type(&arg.value);
            if matches!(ty, Type::Vector { .. }) {
                if aggregate::one_register_vector_bytes(&ty).is_none() {
                    return Err(self.error(format!(
                        "unsupported argument of type {}",
                        type_name(self.module, &ty)
                    )));
                }
                if varargs {
                    return Err(
                        self.error("unsupported variadic call with vector arguments".into())
                    );
                }
                let reg = self.parts(&arg.value)?[0];
                outgoing.push(Outgoing::Vector(reg));
                continue;
            }
            if ty == Type::Float(ir::FloatKind::X86Fp80) {
                outgoing.push(Outgoing::Fp80(self.fp80_pair(&arg.value)?));
                continue;
            }
            self.refuse_fp80_member(&ty, "argument")?;
            if self.is_multi_register(&ty) {
                let leaves = self.leaves(&arg.value)?;
                if ty == Type::Int(128) {
                    outgoing.push(Outgoing::Pair([leaves[0], leaves[1]]));
                    continue;
                }
                let types = self.leaves_of_type(&ty).unwrap_or_default();
                for (leaf, r) in types.iter().zip(leaves) {
                    let kind = match self.leaf_sse_size(&leaf.ty)? {
                        Some(size) => Ok(size),
                        None => Err(self.bits_of_type(&leaf.ty)?),
                    };
                    outgoing.push(Outgoing::Scalar(r, kind));
                }
                continue;
            }
            if let Some(size) = self.fp_size_of(&arg.value)? {
                outgoing.push(Outgoing::Scalar(self.reg(&arg.value)?, Ok(size)));
                continue;
            }
            let bits = self.bits_of(&arg.value)?;
            let mut r = self.reg(&arg.value)?;
            if bits < 32 && (arg.attrs.signext || arg.attrs.zeroext) {
                r = self.extend(r, bits, Width::W32, arg.attrs.signext);
            }
            outgoing.push(Outgoing::Scalar(r, Err(bits)));
        }
        let target = match symbol {
            Some(name) => CallTarget::Symbol(name),
            None => CallTarget::Reg(self.reg(callee)?),
        };
        let mut places = ArgumentPlaces::default();
        let mut copies = Vec::new();
        let mut stores: Vec<(Reg, Result<mir::FpSize, u32>, u32)> = Vec::new();
        let mut vector_stores: Vec<(Reg, u32)> = Vec::new();
        let mut byval_copies = Vec::new();
        for arg in &outgoing {
            match *arg {
                Outgoing::Scalar(r, kind) => match places.next(kind.is_ok()) {
                    ArgumentPlace::Register(phys) => copies.push((phys, r)),
                    ArgumentPlace::Stack(disp) => stores.push((r, kind, disp)),
                },
                Outgoing::Pair(halves) => {
                    for (place, r) in places.next_pair().into_iter().zip(halves) {
                        match place {
                            ArgumentPlace::Register(phys) => copies.push((phys, r)),
                            ArgumentPlace::Stack(disp) => stores.push((r, Err(64), disp)),
                        }
                    }
                }
                Outgoing::ByVal { ptr, size, align } => {
                    byval_copies.push((ptr, size, places.stack(size, align)));
                }
                Outgoing::Fp80([low, high]) => {
                    let disp = places.stack(16, 16);
                    stores.push((low, Err(64), disp));
                    stores.push((high, Err(16), disp + 8));
                }
                Outgoing::Vector(reg) => match places.next_vector() {
                    ArgumentPlace::Register(phys) => copies.push((phys, reg)),
                    ArgumentPlace::Stack(disp) => vector_stores.push((reg, disp)),
                },
            }
        }
        if must_tail && places.stack_bytes > 0 {
            return Err(self.error(
                "unsupported musttail call with arguments on the stack (only register \
                 arguments are passed in place)"
                    .into(),
            ));
        }
        if must_tail && self.f.varargs {
            return Err(self.error("unsupported musttail call in a variadic function".into()));
        }
        let tail_jump = must_tail || (places.stack_bytes == 0 && self.is_sibling_call(id));
        for (ptr, size, disp) in byval_copies {
            self.copy_bytes(Address::reg(ptr, 0), outgoing_at(disp), size);
        }
        for (src, disp) in vector_stores {
            self.emit(K::VecStore {
                src,
                addr: outgoing_at(disp),
                bytes: 16,
            });
        }
        for (r, kind, disp) in stores {
            let addr = outgoing_at(disp);
            match kind {
                Ok(size) => self.emit(K::FpStore { src: r, addr, size }),
                Err(bits) => self.emit(K::Store {
                    src: Ri::Reg(r),
                    addr,
                    width: container(bits),
                }),
            }
        }
        self.mir.outgoing_args_size = self.mir.outgoing_args_size.max(places.stack_bytes);
        let target = match target {
            CallTarget::Reg(r) if tail_jump => {
                let jump: Reg = TAIL_CALL_REGISTER.into();
                self.emit(K::Copy { dst: jump, src: r });
                CallTarget::Reg(jump)
            }
            other => other,
        };
        let mut used: Vec<PhysReg> = Vec::new();
        for (phys, r) in copies {
            self.emit(K::Copy {
                dst: Reg::from(phys),
                src: r,
            });
            used.push(phys);
        }
        if varargs {
            // %al: an upper bound of the number of vector registers used.
            self.emit(K::MovImm {
                dst: Reg::from(Gpr::Rax),
                imm: i64::from(places.xmm),
                width: Width::W32,
            });
            used.push(Gpr::Rax.into());
        }
        if tail_jump {
            self.emit(K::TailJump { target, args: used });
            self.after_tail_jump = true;
            return Ok(());
        }
        let unwind = self.invoke_landing_pad(id)?;
        let (results, rets) = self.call_results(id)?;
        self.emit(K::Call {
            target,
            args: used,
            rets: rets.clone(),
            clobbers: CALLER_SAVED,
            unwind,
        });
        if unwind.is_some() {
            return self.continue_after_invoke(id, results, rets);
        }
        if self.x87_values(&self.f.inst(id).ty).is_some() {
            return self.fp80_call_result(id);
        }
        for (dst, src) in results.into_iter().zip(rets) {
            self.emit(K::Copy {
                dst,
                src: Reg::from(src),
            });
        }
        Ok(())
    }

    /// Whether call `id` (its arguments all in registers) may be a jump
    /// after the epilogue (a sibling call), as llc makes a `tail` call
    /// where the ABI allows: it is marked `tail` (the callee reads none
    /// of this frame's allocas), the `ret` right after it returns its
    /// result unchanged (or both are void), extended at least as the
    /// function promises; no `byval` or `sret` argument, no `sret`
    /// parameter of this function, not variadic, one result register or
    /// none, and no alloca selected as stack code (dynamic or
    /// over-aligned: the frame's rsp would not be the fixed one).
    fn is_sibling_call(&self, id: InstId) -> bool {
        let inst = self.f.inst(id);
        let InstKind::Call {
            tail: ir::TailKind::Tail,
            args,
            ret_attrs,
            ..
        } = &inst.kind
        else {
            return false;
        };
        let block = &self.f.blocks[self.inst_block[id.0 as usize] as usize];
        let next = block
            .insts
            .iter()
            .position(|&i| i == id)
            .and_then(|at| block.insts.get(at + 1));
        let this_block = ir::BlockId(self.inst_block[id.0 as usize]);
        let returns_result = match next.map(|&next| &self.f.inst(next).kind) {
            Some(InstKind::Ret { value }) => self.returns_call(id, value.as_ref(), None),
            // A branch to a block that only returns (through a phi), as
            // llc's return duplication makes a sibling call of it.
            Some(InstKind::Br { dest }) => {
                let insts = &self.f.block(*dest).insts;
                let phis = insts
                    .iter()
                    .take_while(|&&i| matches!(self.f.inst(i).kind, InstKind::Phi { .. }))
                    .count();
                match insts[phis..] {
                    [ret] => match &self.f.inst(ret).kind {
                        InstKind::Ret { value } => {
                            self.returns_call(id, value.as_ref(), Some(this_block))
                        }
                        _ => false,
                    },
                    _ => false,
                }
            }
            _ => false,
        };
        let extended = (!self.f.ret_attrs.signext || ret_attrs.signext)
            && (!self.f.ret_attrs.zeroext || ret_attrs.zeroext);
        returns_result
            && extended
            && !self.f.varargs
            && self.sret_slot.is_none()
            && !self.is_multi_register(&inst.ty)
            && args
                .iter()
                .all(|a| a.attrs.byval.is_none() && a.attrs.sret.is_none())
            && !self.f.insts.iter().any(|i| self.needs_stack_code(&i.kind))
    }

    /// Whether `ret value` returns call `id`'s result unchanged (both void,
    /// or the call itself, or a phi taking the call from `from`).
    fn returns_call(&self, id: InstId, value: Option<&Value>, from: Option<ir::BlockId>) -> bool {
        let call_ty = &self.f.inst(id).ty;
        let Some(value) = value else {
            return *call_ty == Type::Void;
        };
        let Value::Inst(returned) = value else {
            return false;
        };
        let same = match (&self.f.inst(*returned).kind, from) {
            _ if *returned == id => true,
            (InstKind::Phi { incoming }, Some(from)) => incoming
                .iter()
                .any(|(v, b)| *b == from && *v == Value::Inst(id)),
            _ => false,
        };
        same && *call_ty == self.f.ret_ty
    }

    /// The registers receiving call `id`'s result and the physical
    /// registers it arrives in.
    pub(super) fn call_results(
        &mut self,
        id: InstId,
    ) -> Result<(Vec<Reg>, Vec<PhysReg>), Diagnostic> {
        if let Some(dst) = self.values[id.0 as usize] {
            let ret: PhysReg = match self.mir.class_of(dst) {
                mir::RegClass::Xmm => XMM_RETURN_REGISTER.into(),
                _ => RETURN_REGISTER.into(),
            };
            return Ok((vec![dst], vec![ret]));
        }
        let ty = self.f.inst(id).ty.clone();
        // An x86_fp80 arrives in st(0), a complex one in st(0) and st(1)
        // (see [`x87`]).
        if ty == Type::Void || self.x87_values(&ty).is_some() {
            return Ok((Vec::new(), Vec::new()));
        }
        let regs = self.result_leaves(id)?;
        let phys = self.return_places(&ty)?;
        Ok((regs, phys))
    }

    /// The physical registers of a multi-register value of `ty` returned.
    fn return_places(&self, ty: &Type) -> Result<Vec<PhysReg>, Diagnostic> {
        self.refuse_fp80_member(ty, "return")?;
        let leaves = self.leaves_of_type(ty).unwrap_or_default();
        let floating: Vec<bool> = leaves.iter().map(|l| self.is_sse_leaf(&l.ty)).collect();
        return_registers(&floating).ok_or_else(|| {
            self.error(format!(
                "unsupported return of {} (more than two registers of a kind: beyond the C \
                 ABI, which clang meets with sret)",
                type_name(self.module, ty)
            ))
        })
    }

    /// Copies `size` bytes from `src` to `dst` with 8-, 4-, 2- and
    /// 1-byte moves.
    pub(super) fn copy_bytes(&mut self, src: Address, dst: Address, size: u32) {
        let mut offset = 0;
        for (step, width) in [
            (8, Width::W64),
            (4, Width::W32),
            (2, Width::W16),
            (1, Width::W8),
        ] {
            while size - offset >= step {
                let t = self.vreg(if step == 8 { Width::W64 } else { Width::W32 });
                let mut from = src.clone();
                from.disp += offset as i32;
                let mut to = dst.clone();
                to.disp += offset as i32;
                match width {
                    Width::W64 | Width::W32 => self.emit(K::Load {
                        dst: t,
                        addr: from,
                        width,
                    }),
                    _ => self.emit(K::Extend {
                        dst: t,
                        src: Rm::Mem(from),
                        from: width,
                        to: Width::W32,
                        signed: false,
                    }),
                }
                self.emit(K::Store {
                    src: Ri::Reg(t),
                    addr: to,
                    width,
                });
                offset += step;
            }
        }
    }

    /// `ret` where the ABI needs more than one register or a pointer
    /// back: a multi-register value leaf by leaf, `ret void` of a function
    /// with an `sret` parameter (the pointer in rax); nothing after a tail
    /// jump. `false` when the ordinary return applies.
    pub(super) fn lower_abi_ret(&mut self, value: Option<&Value>) -> Result<bool, Diagnostic> {
        if std::mem::take(&mut self.after_tail_jump) {
            return Ok(true);
        }
        match value {
            None => {
                let Some((_, slot)) = self.sret_slot else {
                    return Ok(false);
                };
                self.emit(K::Load {
                    dst: Reg::from(RETURN_REGISTER),
                    addr: Address::slot(slot, 0),
                    width: Width::W64,
                });
                self.emit(K::Ret {
                    uses: vec![RETURN_REGISTER.into()],
                });
                Ok(true)
            }
            Some(v) => {
                let ty = self.f.value_type(v);
                if self.x87_values(&ty).is_some() {
                    self.fp80_return(v)?;
                    return Ok(true);
                }
                if !self.is_multi_register(&ty) {
                    return Ok(false);
                }
                let srcs = self.leaves(v)?;
                let phys = self.return_places(&ty)?;
                for (&src, &dst) in srcs.iter().zip(&phys) {
                    self.emit(K::Copy {
                        dst: Reg::from(dst),
                        src,
                    });
                }
                self.emit(K::Ret { uses: phys });
                Ok(true)
            }
        }
    }
}

/// `disp` bytes into the incoming stack-argument area.
fn incoming(disp: u32) -> Address {
    Address {
        base: AddressBase::IncomingArgs,
        index: None,
        disp: disp as i32,
    }
}

/// `disp` bytes into the outgoing stack-argument area.
fn outgoing_at(disp: u32) -> Address {
    Address {
        base: AddressBase::OutgoingArgs,
        index: None,
        disp: disp as i32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(place: ArgumentPlace) -> String {
        match place {
            ArgumentPlace::Register(r) => format!("{r}"),
            ArgumentPlace::Stack(disp) => format!("stack+{disp}"),
        }
    }

    #[test]
    fn an_i128_takes_a_register_pair_or_sixteen_aligned_stack_bytes() {
        let mut places = ArgumentPlaces::default();
        let mut seen = Vec::new();
        for _ in 0..5 {
            seen.push(describe(places.next(false)));
        }
        // One register left: the pair goes to the stack, 16-aligned after
        // an 8-byte argument, and the next integer still takes r9.
        seen.push(describe(places.next(false)));
        seen.push(describe(places.next(false)));
        let [lo, hi] = places.next_pair();
        seen.extend([describe(lo), describe(hi)]);
        seen.push(describe(places.next(true)));
        assert_eq!(
            seen,
            ["rdi", "rsi", "rdx", "rcx", "r8", "r9", "stack+0", "stack+16", "stack+24", "xmm0"]
        );
        let disp = places.stack(20, 8);
        assert_eq!((disp, places.stack_bytes), (32, 56));
    }

    #[test]
    fn returns_take_rax_rdx_and_xmm0_xmm1_by_kind() {
        let show = |kinds: &[bool]| {
            return_registers(kinds).map(|regs| {
                regs.iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
                    .join(":")
            })
        };
        assert_eq!(show(&[false, false]).as_deref(), Some("rax:rdx"));
        assert_eq!(show(&[true, true]).as_deref(), Some("xmm0:xmm1"));
        assert_eq!(show(&[false, true]).as_deref(), Some("rax:xmm0"));
        assert_eq!(show(&[true, false, true]).as_deref(), Some("xmm0:rax:xmm1"));
        assert_eq!(show(&[false, false, false]), None);
    }
}
