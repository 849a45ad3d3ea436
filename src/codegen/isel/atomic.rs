//! Atomics: `load atomic`, `store atomic`, `cmpxchg`, `atomicrmw`, `fence`.
//!
//! In: one atomic IR instruction. Out: the x86-64 code llc gives it, with
//! the locked instructions as one-instruction [`K::InlineAsm`] statements
//! (iced-x86 codes, their register operands visible to the allocator).
//!
//! The x86-64 memory model (TSO) decides the rules:
//! - an aligned load or store of 1, 2, 4 or 8 bytes is atomic, so `load
//!   atomic` at any ordering and `store atomic` below `seq_cst` are plain
//!   `mov`s; a `seq_cst` store is `xchg` (a full barrier, as llc does);
//! - `fence seq_cst` is `mfence`; every weaker fence, and any fence of
//!   `syncscope("singlethread")`, only orders the compiler, which never
//!   moves memory accesses across it here;
//! - `cmpxchg` (strong or weak: x86 never fails spuriously) is `lock
//!   cmpxchg` with the expected value in rax; its `{T, i1}` result is the
//!   old value and ZF;
//! - `atomicrmw xchg` is `xchg`, `add`/`sub` are `lock xadd` (of the
//!   negated operand for `sub`); `and`, `or`, `xor`, `nand`, `max`, `min`,
//!   `umax`, `umin`, `fadd` and `fsub` are a `lock cmpxchg` loop that
//!   computes the new value from the last value seen.
//!
//! - every atomic of `i128` is selected by [`super::atomic16`]
//!   (`lock cmpxchg16b` with cx16, libatomic's `__atomic_*_16` without).
//!
//! Refused, each an error naming the instruction and the reason: other
//! accesses wider than 8 bytes, misaligned accesses (LLVM makes them
//! `__atomic_*` library calls), and the `atomicrmw` operations C does not
//! produce (`fmax`, `fmin`, `uinc_wrap`, `udec_wrap`).

use iced_x86::Code;

use super::*;
use crate::codegen::mir::{Access, AsmInstr, AsmOperand, FpOp, InlineAsm, RegSet, UnaryOp};
use crate::ir::{Ordering, RmwOp};

/// Whether `kind` is an atomic instruction (selected by [`Selector::lower_atomic`]).
pub(super) fn is_atomic(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Load {
            atomic: Some(_),
            ..
        } | InstKind::Store {
            atomic: Some(_),
            ..
        } | InstKind::CmpXchg { .. }
            | InstKind::AtomicRmw { .. }
            | InstKind::Fence { .. }
    )
}

/// What an atomic access reads and writes, in machine terms.
#[derive(Clone, Copy)]
struct AtomicAccess {
    /// The exact width of the memory access.
    width: Width,
    /// `Some` when the value lives in an xmm register.
    fp: Option<mir::FpSize>,
}

impl Selector<'_> {
    /// Selects an atomic instruction. Returns `false` for an atomic load or
    /// store the plain selection gives the right code for (after checking
    /// its size and alignment), `true` when it was selected here.
    pub(super) fn lower_atomic(&mut self, id: InstId) -> Result<bool, Diagnostic> {
        let inst = self.f.inst(id);
        if atomic16::is_atomic16(self.f, &inst.kind, &inst.ty) {
            return self.lower_atomic16(id).map(|()| true);
        }
        match &inst.kind {
            InstKind::Load {
                atomic: Some(_),
                align,
                ..
            } => {
                self.atomic_access(&inst.ty, *align, "load atomic")?;
                Ok(false)
            }
            InstKind::Store {
                atomic: Some(atomic),
                value,
                ptr,
                align,
                ..
            } => {
                let ty = self.f.value_type(value);
                let access = self.atomic_access(&ty, *align, "store atomic")?;
                if atomic.ordering != Ordering::SeqCst {
                    return Ok(false);
                }
                let src = self.atomic_bits(value, access)?;
                let addr = self.address(ptr)?;
                let code = by_width(access.width, XCHG);
                self.locked(code, false, addr, src, Access::UseDef, RegSet::EMPTY);
                Ok(true)
            }
            InstKind::Fence { atomic } => {
                if atomic.ordering == Ordering::SeqCst
                    && atomic.syncscope.as_deref() != Some("singlethread")
                {
                    self.emit(K::InlineAsm(Box::new(InlineAsm {
                        regs: Vec::new(),
                        instrs: vec![AsmInstr {
                            code: Code::Mfence,
                            lock: false,
                            operands: Vec::new(),
                        }],
                        uses: RegSet::EMPTY,
                        defs: RegSet::EMPTY,
                        alignments: Vec::new(),
                        template: "mfence".into(),
                    })));
                }
                Ok(true)
            }
            InstKind::CmpXchg {
                ptr,
                cmp,
                new,
                align,
                ..
            } => {
                let ty = self.f.value_type(cmp);
                let access = self.atomic_access(&ty, *align, "cmpxchg")?;
                let expected = self.reg(cmp)?;
                let replacement = self.reg(new)?;
                let addr = self.address(ptr)?;
                let flag = self.vreg(Width::W32);
                self.emit(K::MovImm {
                    dst: flag,
                    imm: 0,
                    width: Width::W32,
                });
                let old = self.vreg(container(access.width.bits()));
                self.compare_exchange(access.width, addr, expected, replacement);
                self.emit(K::Setcc {
                    cond: Cond::E,
                    dst: flag,
                });
                self.emit(K::Copy {
                    dst: old,
                    src: Reg::from(Gpr::Rax),
                });
                // The {T, i1} result's leaves exist from the start (phi
                // copies on any edge may name them): copy into them.
                self.define_leaves(id, &[old, flag])?;
                Ok(true)
            }
            InstKind::AtomicRmw {
                op,
                ptr,
                value,
                align,
                ..
            } => {
                let ty = self.f.value_type(value);
                let access = self.atomic_access(&ty, *align, "atomicrmw")?;
                self.lower_rmw(id, *op, ptr, value, access)?;
                Ok(true)
            }
            _ => Err(self.error("internal: not an atomic instruction".into())),
        }
    }

    /// Checks that an atomic access of `ty` with `align` is one x86 does
    /// atomically, and says how wide it is.
    fn atomic_access(
        &self,
        ty: &Type,
        align: Option<u32>,
        what: &str,
    ) -> Result<AtomicAccess, Diagnostic> {
        let size = self.module.size_of(ty);
        let fp = fp::fp_size(ty);
        let integer = matches!(ty, Type::Int(8 | 16 | 32 | 64) | Type::Ptr);
        let width = match exact_width(size as u32 * 8) {
            Some(width) if integer || fp.is_some() => width,
            _ => {
                return Err(self.error(format!(
                    "unsupported atomic '{what}' of {}",
                    type_name(self.module, ty)
                )))
            }
        };
        if let Some(align) = align.filter(|&a| u64::from(a) < size) {
            return Err(self.error(format!(
                "unsupported misaligned atomic '{what}' of {} (align {align}: LLVM calls \
                 __atomic_* functions for it)",
                type_name(self.module, ty)
            )));
        }
        Ok(AtomicAccess { width, fp })
    }

    /// The function's `target-features` string (empty when it has none).
    pub(super) fn target_features(&self) -> String {
        let groups = self.f.attrs.attribute_groups.iter().flat_map(|&n| {
            self.module
                .attribute_groups
                .iter()
                .filter(move |g| g.number == n)
                .flat_map(|g| g.attrs.iter())
        });
        groups
            .chain(&self.f.attrs.inline_attrs)
            .filter_map(|a| a.strip_prefix("\"target-features\"="))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A fresh general-purpose register holding `value`'s bits (an xmm
    /// value's bits moved over), free to be overwritten.
    fn atomic_bits(&mut self, value: &Value, access: AtomicAccess) -> Result<Reg, Diagnostic> {
        let src = self.reg(value)?;
        let copy = self.vreg(container(access.width.bits()));
        match access.fp {
            Some(_) => self.emit(K::MovFromXmm {
                width: container(access.width.bits()),
                dst: copy,
                src,
            }),
            None => self.emit(K::Copy { dst: copy, src }),
        }
        Ok(copy)
    }

    /// One locked (or implicitly locked) instruction `code [addr], reg`
    /// where the instruction accesses `reg` as `access`.
    fn locked(
        &mut self,
        code: Code,
        lock: bool,
        addr: Address,
        reg: Reg,
        access: Access,
        implicit: RegSet,
    ) {
        let width = match code {
            Code::Xchg_rm8_r8 | Code::Xadd_rm8_r8 | Code::Cmpxchg_rm8_r8 => Width::W8,
            Code::Xchg_rm16_r16 | Code::Xadd_rm16_r16 | Code::Cmpxchg_rm16_r16 => Width::W16,
            Code::Xchg_rm32_r32 | Code::Xadd_rm32_r32 | Code::Cmpxchg_rm32_r32 => Width::W32,
            _ => Width::W64,
        };
        let template = format!("{}{:?}", if lock { "lock " } else { "" }, code);
        self.emit(K::InlineAsm(Box::new(InlineAsm {
            regs: vec![(reg, access)],
            instrs: vec![AsmInstr {
                code,
                lock,
                operands: vec![AsmOperand::Mem(addr), AsmOperand::Reg { index: 0, width }],
            }],
            uses: implicit,
            defs: implicit,
            alignments: Vec::new(),
            template,
        })));
    }

    /// `rax = expected; lock cmpxchg [addr], replacement`: afterwards ZF
    /// says whether memory held `expected`, and rax holds what it held.
    fn compare_exchange(&mut self, width: Width, addr: Address, expected: Reg, replacement: Reg) {
        self.emit(K::Copy {
            dst: Reg::from(Gpr::Rax),
            src: expected,
        });
        let rax = RegSet::EMPTY.with(Gpr::Rax);
        let code = by_width(width, CMPXCHG);
        self.locked(code, true, addr, replacement, Access::Use, rax);
    }

    fn lower_rmw(
        &mut self,
        id: InstId,
        op: RmwOp,
        ptr: &Value,
        value: &Value,
        access: AtomicAccess,
    ) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        let width = access.width;
        let wide = container(width.bits());
        match (op, access.fp) {
            (RmwOp::Xchg | RmwOp::Add | RmwOp::Sub, _)
                if access.fp.is_none() || op == RmwOp::Xchg =>
            {
                let t = self.atomic_bits(value, access)?;
                if op == RmwOp::Sub {
                    self.emit(K::Unary {
                        op: UnaryOp::Neg,
                        width: wide,
                        dst: t,
                    });
                }
                let addr = self.address(ptr)?;
                let (code, lock) = match op {
                    RmwOp::Xchg => (by_width(width, XCHG), false),
                    _ => (by_width(width, XADD), true),
                };
                self.locked(code, lock, addr, t, Access::UseDef, RegSet::EMPTY);
                self.bits_to(dst, t, access);
                Ok(())
            }
            (
                RmwOp::And
                | RmwOp::Or
                | RmwOp::Xor
                | RmwOp::Nand
                | RmwOp::Max
                | RmwOp::Min
                | RmwOp::UMax
                | RmwOp::UMin,
                None,
            )
            | (RmwOp::FAdd | RmwOp::FSub, Some(_)) => {
                let operand = self.reg(value)?;
                let addr = self.address(ptr)?;
                let old = self.vreg(wide);
                self.load_bits(old, addr.clone(), width);
                let (retry, done) = self.open_retry_loop(id);
                let new = self.vreg(wide);
                self.emit(K::Copy { dst: new, src: old });
                self.rmw_step(op, access, new, old, operand);
                self.compare_exchange(width, addr, old, new);
                self.emit(K::Copy {
                    dst: old,
                    src: Reg::from(Gpr::Rax),
                });
                self.emit(K::Jcc {
                    cond: Cond::Ne,
                    target: retry,
                });
                self.emit(K::Jmp { target: done });
                self.current = done;
                self.bits_to(dst, old, access);
                Ok(())
            }
            _ => Err(self.error(format!(
                "unsupported instruction 'atomicrmw {}' of {}",
                op.name(),
                type_name(self.module, &self.f.value_type(value))
            ))),
        }
    }

    /// `dst = [addr]` at `width`, zero-extended into its container.
    fn load_bits(&mut self, dst: Reg, addr: Address, width: Width) {
        match width {
            Width::W8 | Width::W16 => self.emit(K::Extend {
                dst,
                src: Rm::Mem(addr),
                from: width,
                to: Width::W32,
                signed: false,
            }),
            _ => self.emit(K::Load { dst, addr, width }),
        }
    }

    /// The result register `dst` from the bits in `bits`.
    fn bits_to(&mut self, dst: Reg, bits: Reg, access: AtomicAccess) {
        match access.fp {
            Some(_) => self.emit(K::MovToXmm {
                width: container(access.width.bits()),
                dst,
                src: Rm::Reg(bits),
            }),
            None => self.emit(K::Copy { dst, src: bits }),
        }
    }

    /// `new = old op operand`, `new` starting as a copy of `old`.
    fn rmw_step(&mut self, op: RmwOp, access: AtomicAccess, new: Reg, old: Reg, operand: Reg) {
        let wide = container(access.width.bits());
        let alu = |op| K::Alu {
            op,
            width: wide,
            dst: new,
            src: Rmi::Reg(operand),
        };
        match op {
            RmwOp::And => self.emit(alu(AluOp::And)),
            RmwOp::Or => self.emit(alu(AluOp::Or)),
            RmwOp::Xor => self.emit(alu(AluOp::Xor)),
            RmwOp::Nand => {
                self.emit(alu(AluOp::And));
                self.emit(K::Unary {
                    op: UnaryOp::Not,
                    width: wide,
                    dst: new,
                });
            }
            RmwOp::Max | RmwOp::Min | RmwOp::UMax | RmwOp::UMin => {
                // `new` becomes the operand when it wins against `old`.
                let cond = match op {
                    RmwOp::Max => Cond::L,
                    RmwOp::Min => Cond::G,
                    RmwOp::UMax => Cond::B,
                    _ => Cond::A,
                };
                self.emit(K::Cmp {
                    width: access.width,
                    lhs: Rm::Reg(old),
                    rhs: Rmi::Reg(operand),
                });
                self.emit(K::Cmov {
                    cond,
                    width: wide,
                    dst: new,
                    src: Rm::Reg(operand),
                });
            }
            _ => {
                let size = access.fp.unwrap_or(mir::FpSize::F64);
                let x = self.mir.new_vreg_of(mir::RegClass::Xmm, size.width());
                self.emit(K::MovToXmm {
                    width: wide,
                    dst: x,
                    src: Rm::Reg(old),
                });
                self.emit(K::FpArith {
                    op: if op == RmwOp::FAdd {
                        FpOp::Add
                    } else {
                        FpOp::Sub
                    },
                    size,
                    dst: x,
                    src: Rm::Reg(operand),
                });
                self.emit(K::MovFromXmm {
                    width: wide,
                    dst: new,
                    src: x,
                });
            }
        }
    }

    /// Two new blocks, `retry` and `done`, placed after the IR block of
    /// `id`, with a jump to `retry`; selection continues in `retry`.
    pub(super) fn open_retry_loop(&mut self, id: InstId) -> (MBlock, MBlock) {
        let retry = self.mir.new_block();
        let done = self.mir.new_block();
        let ir_block = self.inst_block[id.0 as usize];
        self.edge_order.push((ir_block, retry));
        self.edge_order.push((ir_block, done));
        self.emit(K::Jmp { target: retry });
        self.current = retry;
        (retry, done)
    }
}

const XCHG: [Code; 4] = [
    Code::Xchg_rm8_r8,
    Code::Xchg_rm16_r16,
    Code::Xchg_rm32_r32,
    Code::Xchg_rm64_r64,
];
const XADD: [Code; 4] = [
    Code::Xadd_rm8_r8,
    Code::Xadd_rm16_r16,
    Code::Xadd_rm32_r32,
    Code::Xadd_rm64_r64,
];
const CMPXCHG: [Code; 4] = [
    Code::Cmpxchg_rm8_r8,
    Code::Cmpxchg_rm16_r16,
    Code::Cmpxchg_rm32_r32,
    Code::Cmpxchg_rm64_r64,
];

/// The code of `codes` (8, 16, 32, 64 bits) for `width`.
fn by_width(width: Width, codes: [Code; 4]) -> Code {
    codes[match width {
        Width::W8 => 0,
        Width::W16 => 1,
        Width::W32 => 2,
        Width::W64 => 3,
    }]
}
