//! Calls and the SysV calling convention: where parameters arrive and
//! where arguments go (integer and SSE registers counted separately, the
//! rest on the stack in argument order), variadic calls' `%al`, results in
//! rax or xmm0.
//!
//! In: the IR function's parameters and its call instructions. Out: copies
//! from and to the ABI's physical registers, stack argument loads and
//! stores, and `Call` instructions naming the registers they read and
//! write.

use super::*;

/// Where one argument goes under SysV: the next free integer or SSE
/// register of its kind, else the next 8-byte stack slot (both kinds
/// share the stack, in argument order).
pub(super) enum ArgumentPlace {
    Register(PhysReg),
    Stack(u32),
}

/// Counts the argument registers and stack bytes used so far.
#[derive(Default)]
pub(super) struct ArgumentPlaces {
    gpr: usize,
    xmm: u32,
    stack_bytes: u32,
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
        let disp = self.stack_bytes;
        self.stack_bytes += STACK_ARGUMENT_SIZE;
        ArgumentPlace::Stack(disp)
    }
}

impl Selector<'_> {
    /// Copies the parameters out of their ABI places into virtual registers.
    pub(super) fn lower_params(&mut self) -> Result<(), Diagnostic> {
        self.current = MBlock(0);
        // No location: the line table counts them with the prologue.
        self.loc = 0;
        let mut places = ArgumentPlaces::default();
        for param in &self.f.params {
            if let Some(reg) = self.vector_param(&param.ty, &mut places)? {
                self.args.push(reg);
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
                    let addr = Address {
                        base: AddressBase::IncomingArgs,
                        index: None,
                        disp: disp as i32,
                    };
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
                if self.lower_fp_intrinsic(id, name, args)? {
                    return Ok(());
                }
                return self.lower_intrinsic(id, name, args);
            }
            symbol = Some(name.clone());
        }
        self.call(id, symbol, callee, args, fn_ty.varargs)
    }

    /// A call following the SysV ABI: six register arguments, the rest on
    /// the stack; narrow `signext`/`zeroext` arguments extended to 32 bits.
    pub(super) fn call(
        &mut self,
        id: InstId,
        symbol: Option<String>,
        callee: &Value,
        args: &[ir::CallArg],
        varargs: bool,
    ) -> Result<(), Diagnostic> {
        // (register, floating-point precision or integer bits)
        let mut regs: Vec<(Reg, Result<mir::FpSize, u32>)> = Vec::with_capacity(args.len());
        for arg in args {
            if let Some(size) = self.fp_size_of(&arg.value)? {
                regs.push((self.reg(&arg.value)?, Ok(size)));
                continue;
            }
            let bits = self.bits_of(&arg.value)?;
            let mut r = self.reg(&arg.value)?;
            if bits < 32 && (arg.attrs.signext || arg.attrs.zeroext) {
                r = self.extend(r, bits, Width::W32, arg.attrs.signext);
            }
            regs.push((r, Err(bits)));
        }
        let target = match symbol {
            Some(name) => CallTarget::Symbol(name),
            None => CallTarget::Reg(self.reg(callee)?),
        };
        let mut places = ArgumentPlaces::default();
        let mut copies = Vec::new();
        for &(r, kind) in &regs {
            match places.next(kind.is_ok()) {
                ArgumentPlace::Register(phys) => copies.push((phys, r)),
                ArgumentPlace::Stack(disp) => {
                    let addr = Address {
                        base: AddressBase::OutgoingArgs,
                        index: None,
                        disp: disp as i32,
                    };
                    match kind {
                        Ok(size) => self.emit(K::FpStore { src: r, addr, size }),
                        Err(bits) => self.emit(K::Store {
                            src: Ri::Reg(r),
                            addr,
                            width: container(bits),
                        }),
                    }
                }
            }
        }
        self.mir.outgoing_args_size = self.mir.outgoing_args_size.max(places.stack_bytes);
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
        let result = self.values[id.0 as usize];
        let ret: PhysReg = match result.map(|r| self.mir.class_of(r)) {
            Some(mir::RegClass::Xmm) => XMM_RETURN_REGISTER.into(),
            _ => RETURN_REGISTER.into(),
        };
        self.emit(K::Call {
            target,
            args: used,
            rets: if result.is_some() {
                vec![ret]
            } else {
                Vec::new()
            },
            clobbers: CALLER_SAVED,
        });
        if let Some(dst) = result {
            self.emit(K::Copy {
                dst,
                src: Reg::from(ret),
            });
        }
        Ok(())
    }
}
