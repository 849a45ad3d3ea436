//! Variadic function definitions under SysV: the register save area,
//! `llvm.va_start`, `llvm.va_end`, `llvm.va_copy` and the `va_arg`
//! instruction.
//!
//! In: a function whose type ends in `...`, and those intrinsics and
//! instructions. Out: stores of the argument registers not taken by named
//! parameters into a 176-byte save area at entry, before the parameter
//! copies (rdi..r9 at 0..48 always; xmm0..7 at 48..176, 16 bytes each,
//! only when `%al` is not zero), and the `va_list`
//! fields the psABI defines: `gp_offset` (+0), `fp_offset` (+4),
//! `overflow_arg_area` (+8), `reg_save_area` (+16).
//!
//! Rule: `va_arg` is branch-free: both candidate addresses are computed and
//! a `cmov` picks the register save area while its offset is in range,
//! else the overflow area; the offsets advance the same way. Integers up
//! to 64 bits, pointers, floats and doubles are read; other types are
//! errors naming the type (clang expands those itself, aligning the
//! overflow pointer of a `long double` with `llvm.ptrmask`, an `and`).

use super::calls::ArgumentPlaces;
use super::*;
use crate::codegen::mir::StackSlotKind;
use crate::x86::abi::{REGISTER_SAVE_AREA_FP_START, REGISTER_SAVE_AREA_SIZE};

/// What `va_start` needs to know of a variadic function's frame.
#[derive(Clone, Copy, Debug)]
pub(super) struct VarargsFrame {
    /// The register save area.
    save_area: StackSlotId,
    /// `gp_offset` at entry: 8 bytes per named integer register argument.
    gp_offset: u32,
    /// `fp_offset` at entry: 48 plus 16 bytes per named SSE argument.
    fp_offset: u32,
    /// The first variadic stack argument's displacement in the incoming
    /// stack area.
    overflow: u32,
}

/// The size of a `va_list`.
const VA_LIST_SIZE: u32 = 24;

impl Selector<'_> {
    /// Makes room for the register saves before anything else: block 0
    /// will hold the integer saves and the test of `%al`, a new block the
    /// SSE saves, and the block after it the parameter copies and IR block
    /// 0's code (both laid out right after block 0).
    pub(super) fn split_variadic_entry(&mut self) {
        let sse_saves = self.mir.new_block();
        let code = self.mir.new_block();
        self.edge_order.push((0, sse_saves));
        self.edge_order.push((0, code));
        self.entry_code = code;
        self.current = code;
    }

    /// Stores the argument registers the named parameters left into the
    /// register save area: the integer ones always, in block 0, the SSE ones
    /// in the block after it, skipped when `%al` (the caller's count of
    /// vector registers used) is zero.
    pub(super) fn save_variadic_registers(&mut self, named: ArgumentPlaces) {
        let slot = self
            .mir
            .new_stack_slot(REGISTER_SAVE_AREA_SIZE, 16, StackSlotKind::Alloca);
        let code = self.entry_code;
        let sse_saves = MBlock(code.0 - 1);
        let saved = self.current;
        self.current = MBlock(0);
        for (i, &g) in ARGUMENT_REGISTERS.iter().enumerate().skip(named.gpr) {
            self.emit(K::Store {
                src: Ri::Reg(Reg::from(g)),
                addr: Address::slot(slot, 8 * i as i32),
                width: Width::W64,
            });
        }
        let al = Reg::from(Gpr::Rax);
        self.emit(K::Test {
            width: Width::W8,
            lhs: Rm::Reg(al),
            rhs: Ri::Reg(al),
        });
        self.emit(K::Jcc {
            cond: Cond::E,
            target: code,
        });
        self.emit(K::Jmp { target: sse_saves });
        self.current = sse_saves;
        for (i, &x) in XMM_ARGUMENT_REGISTERS
            .iter()
            .enumerate()
            .skip(named.xmm as usize)
        {
            self.emit(K::FpStore {
                src: Reg::from(x),
                addr: Address::slot(slot, (REGISTER_SAVE_AREA_FP_START + 16 * i as u32) as i32),
                size: mir::FpSize::F64,
            });
        }
        self.emit(K::Jmp { target: code });
        self.current = saved;
        self.varargs = Some(VarargsFrame {
            save_area: slot,
            gp_offset: 8 * named.gpr as u32,
            fp_offset: REGISTER_SAVE_AREA_FP_START + 16 * named.xmm,
            overflow: named.stack_bytes,
        });
    }

    /// `llvm.va_start`, `llvm.va_end`, `llvm.va_copy`; `false` for any
    /// other intrinsic.
    /// `llvm.ptrmask.p0.i64(ptr p, i64 mask)`: `p & mask`, which clang's
    /// own `va_arg` lowering uses to align the overflow-area pointer of
    /// an over-aligned argument (`long double`). Returns `false` for any
    /// other intrinsic.
    pub(super) fn lower_ptrmask(
        &mut self,
        id: InstId,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<bool, Diagnostic> {
        let [pointer, mask] = args else {
            return Ok(false);
        };
        if name != "llvm.ptrmask.p0.i64" {
            return Ok(false);
        }
        let dst = self.dst(id)?;
        let src = self.reg(&pointer.value)?;
        let mask = self.rmi(&mask.value)?;
        self.emit(K::Copy { dst, src });
        self.emit(K::Alu {
            op: AluOp::And,
            width: Width::W64,
            dst,
            src: mask,
        });
        Ok(true)
    }

    pub(super) fn lower_varargs_intrinsic(
        &mut self,
        name: &str,
        args: &[ir::CallArg],
    ) -> Result<bool, Diagnostic> {
        let base = name.split('.').take(2).collect::<Vec<_>>().join(".");
        match (base.as_str(), args) {
            ("llvm.va_start", [list]) => {
                let Some(frame) = self.varargs else {
                    return Err(self.error(format!(
                        "'{name}' in function @{}, which is not variadic",
                        self.f.name
                    )));
                };
                let at = self.address(&list.value)?;
                let field = |disp: i32| {
                    let mut a = at.clone();
                    a.disp += disp;
                    a
                };
                self.emit(K::Store {
                    src: Ri::Imm(frame.gp_offset as i32),
                    addr: field(0),
                    width: Width::W32,
                });
                self.emit(K::Store {
                    src: Ri::Imm(frame.fp_offset as i32),
                    addr: field(4),
                    width: Width::W32,
                });
                let overflow = self.vreg(Width::W64);
                self.emit(K::Lea {
                    dst: overflow,
                    addr: Address {
                        base: AddressBase::IncomingArgs,
                        index: None,
                        disp: frame.overflow as i32,
                    },
                });
                self.emit(K::Store {
                    src: Ri::Reg(overflow),
                    addr: field(8),
                    width: Width::W64,
                });
                let area = self.vreg(Width::W64);
                self.emit(K::Lea {
                    dst: area,
                    addr: Address::slot(frame.save_area, 0),
                });
                self.emit(K::Store {
                    src: Ri::Reg(area),
                    addr: field(16),
                    width: Width::W64,
                });
                Ok(true)
            }
            ("llvm.va_end", [_]) => Ok(true),
            ("llvm.va_copy", [dst, src]) => {
                let to = self.address(&dst.value)?;
                let from = self.address(&src.value)?;
                self.copy_bytes(from, to, VA_LIST_SIZE);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// `va_arg list, T`: the next variadic argument of type `T`.
    pub(super) fn lower_va_arg(&mut self, id: InstId, list: &Value) -> Result<(), Diagnostic> {
        let ty = self.f.inst(id).ty.clone();
        let floating = match self.fp_size_of_type(&ty)? {
            Some(_) => true,
            None if matches!(ty, Type::Ptr) || matches!(ty, Type::Int(b) if b <= 64) => false,
            None => {
                return Err(self.error(format!(
                    "unsupported va_arg of {}",
                    type_name(self.module, &ty)
                )))
            }
        };
        // (offset field, last offset still in registers, register step)
        let (field, last, step) = if floating {
            (4, REGISTER_SAVE_AREA_SIZE - 16, 16)
        } else {
            (0, REGISTER_SAVE_AREA_FP_START - 8, 8)
        };
        let at = self.address(list)?;
        let at_field = |disp: i32| {
            let mut a = at.clone();
            a.disp += disp;
            a
        };
        let offset = self.vreg(Width::W64);
        self.emit(K::Load {
            dst: offset,
            addr: at_field(field),
            width: Width::W32,
        });
        let in_registers = self.vreg(Width::W64);
        self.emit(K::Load {
            dst: in_registers,
            addr: at_field(16),
            width: Width::W64,
        });
        self.emit(K::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst: in_registers,
            src: Rmi::Reg(offset),
        });
        let overflow = self.vreg(Width::W64);
        self.emit(K::Load {
            dst: overflow,
            addr: at_field(8),
            width: Width::W64,
        });
        let next_offset = self.vreg(Width::W64);
        self.emit(K::Lea {
            dst: next_offset,
            addr: Address::reg(offset, step),
        });
        let next_overflow = self.vreg(Width::W64);
        self.emit(K::Lea {
            dst: next_overflow,
            addr: Address::reg(overflow, STACK_ARGUMENT_SIZE as i32),
        });
        let address = self.vreg(Width::W64);
        self.emit(K::Copy {
            dst: address,
            src: overflow,
        });
        self.emit(K::Cmp {
            width: Width::W32,
            lhs: Rm::Reg(offset),
            rhs: Rmi::Imm(last as i32),
        });
        // In registers while offset <= last (unsigned).
        let cond = Cond::Be;
        self.emit(K::Cmov {
            cond,
            width: Width::W64,
            dst: address,
            src: Rm::Reg(in_registers),
        });
        self.emit(K::Cmov {
            cond,
            width: Width::W64,
            dst: offset,
            src: Rm::Reg(next_offset),
        });
        self.emit(K::Cmov {
            cond,
            width: Width::W64,
            dst: next_overflow,
            src: Rm::Reg(overflow),
        });
        self.emit(K::Store {
            src: Ri::Reg(offset),
            addr: at_field(field),
            width: Width::W32,
        });
        self.emit(K::Store {
            src: Ri::Reg(next_overflow),
            addr: at_field(8),
            width: Width::W64,
        });
        let dst = self.dst(id)?;
        self.load_leaf(dst, &ty, Address::reg(address, 0))
    }
}
