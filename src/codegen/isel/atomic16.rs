//! 16-byte atomics: `load atomic`, `store atomic`, `atomicrmw` and
//! `cmpxchg` of `i128`, selected as llc-19 selects them.
//!
//! In: one atomic IR instruction whose value is an `i128` aligned to 16.
//! Out: MIR over the value's two 64-bit leaves (low half first).
//!
//! Rules (llc-19's):
//! - In a function whose target features have `+cx16`, everything is
//!   `lock cmpxchg16b` (expected value in rdx:rax, replacement in rcx:rbx,
//!   the old value back in rdx:rax, ZF set when it matched): a load is a
//!   compare-exchange of zero with zero (it writes only what was there);
//!   `cmpxchg` is one; a store and every `atomicrmw` are a loop that reads
//!   both halves with plain loads, computes the new value from the last
//!   value seen and retries until the compare-exchange succeeds.
//! - Without cx16, libatomic does the work: `__atomic_load_16`,
//!   `__atomic_store_16`, `__atomic_exchange_16`, `__atomic_fetch_{add,
//!   sub,and,or,xor,nand}_16` (pointer in rdi, value in rsi:rdx, the C
//!   memory order in the next register, the result in rax:rdx) and
//!   `__atomic_compare_exchange_16` (pointer, address of the expected
//!   value, replacement in rdx:rcx, success and failure orders; returns
//!   whether it matched and leaves the value seen in the expected slot);
//!   `min`/`max`/`umin`/`umax`, which libatomic lacks, are a loop over
//!   `__atomic_compare_exchange_16`.
//! - The other operations (`fadd`, `fsub`, `fmax`, `fmin`, `uinc_wrap`,
//!   `udec_wrap`: none of them apply to `i128`) and accesses aligned below
//!   16 are errors naming the instruction.

use iced_x86::Code;

use super::*;
use crate::codegen::mir::{AsmInstr, AsmOperand, InlineAsm, RegSet, UnaryOp};
use crate::ir::{Ordering, RmwOp};

/// How the 16-byte atomics of a function are made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Means {
    /// `lock cmpxchg16b` (the function's features have `+cx16`).
    Cmpxchg16b,
    /// libatomic's `__atomic_*_16` functions.
    Libatomic,
}

/// The C11 memory order libatomic takes for an LLVM ordering.
fn c_order(ordering: Ordering) -> i64 {
    match ordering {
        Ordering::Unordered | Ordering::Monotonic => 0,
        Ordering::Acquire => 2,
        Ordering::Release => 3,
        Ordering::AcqRel => 4,
        Ordering::SeqCst => 5,
    }
}

/// The failure order of a compare-exchange loop implementing an
/// `atomicrmw` of `ordering` (no release part: a failed exchange writes
/// nothing), as llc gives it.
fn failure_order(ordering: Ordering) -> Ordering {
    match ordering {
        Ordering::Release => Ordering::Monotonic,
        Ordering::AcqRel => Ordering::Acquire,
        other => other,
    }
}

/// Whether an atomic instruction accesses an `i128` (selected here).
pub(super) fn is_atomic16(f: &ir::Function, kind: &InstKind, ty: &Type) -> bool {
    let value_ty = match kind {
        InstKind::Load {
            atomic: Some(_), ..
        } => ty.clone(),
        InstKind::Store {
            atomic: Some(_),
            value,
            ..
        }
        | InstKind::AtomicRmw { value, .. } => f.value_type(value),
        InstKind::CmpXchg { cmp, .. } => f.value_type(cmp),
        _ => return false,
    };
    value_ty == Type::Int(128)
}

impl Selector<'_> {
    /// Selects a 16-byte atomic (see [`is_atomic16`]).
    pub(super) fn lower_atomic16(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let inst = self.f.inst(id);
        let what = match &inst.kind {
            InstKind::AtomicRmw { op, .. } => format!("atomicrmw {}", op.name()),
            InstKind::Load { .. } => "load atomic".to_string(),
            InstKind::Store { .. } => "store atomic".to_string(),
            other => other.opcode().to_string(),
        };
        let align = match &inst.kind {
            InstKind::Load { align, .. }
            | InstKind::Store { align, .. }
            | InstKind::AtomicRmw { align, .. }
            | InstKind::CmpXchg { align, .. } => *align,
            _ => None,
        };
        if let Some(align) = align.filter(|&a| a < 16) {
            return Err(self.error(format!(
                "unsupported misaligned atomic '{what}' of i128 (align {align}: LLVM calls \
                 __atomic_* functions for it)"
            )));
        }
        let means = if self.target_features().contains("+cx16") {
            Means::Cmpxchg16b
        } else {
            Means::Libatomic
        };
        match (&inst.kind, means) {
            (InstKind::Load { ptr, .. }, Means::Cmpxchg16b) => {
                let addr = self.address(ptr)?;
                let zero = [self.mov_imm(0), self.mov_imm(0)];
                let zero2 = [self.mov_imm(0), self.mov_imm(0)];
                let old = self.cmpxchg16b(addr, zero, zero2);
                self.define_leaves(id, &old)
            }
            (
                InstKind::Load {
                    ptr,
                    atomic: Some(atomic),
                    ..
                },
                Means::Libatomic,
            ) => {
                let ptr = self.reg(ptr)?;
                let order = self.mov_imm(c_order(atomic.ordering));
                let old = self.libatomic("__atomic_load_16", &[ptr, order]);
                self.define_leaves(id, &old)
            }
            (
                InstKind::Store {
                    value,
                    ptr,
                    atomic: Some(atomic),
                    ..
                },
                _,
            ) => {
                let leaves = self.leaves(value)?;
                let halves = [leaves[0], leaves[1]];
                match means {
                    Means::Cmpxchg16b => {
                        let addr = self.address(ptr)?;
                        self.cmpxchg16b_loop(id, addr, |_, _| Ok(halves))?;
                    }
                    Means::Libatomic => {
                        let ptr = self.reg(ptr)?;
                        let order = self.mov_imm(c_order(atomic.ordering));
                        let args = [ptr, halves[0], halves[1], order];
                        self.libatomic("__atomic_store_16", &args);
                    }
                }
                Ok(())
            }
            (
                InstKind::AtomicRmw {
                    op,
                    ptr,
                    value,
                    atomic,
                    ..
                },
                _,
            ) => {
                let op = *op;
                let operand = self.leaves(value)?;
                let libcall = match op {
                    RmwOp::Xchg => Some("__atomic_exchange_16"),
                    RmwOp::Add => Some("__atomic_fetch_add_16"),
                    RmwOp::Sub => Some("__atomic_fetch_sub_16"),
                    RmwOp::And => Some("__atomic_fetch_and_16"),
                    RmwOp::Or => Some("__atomic_fetch_or_16"),
                    RmwOp::Xor => Some("__atomic_fetch_xor_16"),
                    RmwOp::Nand => Some("__atomic_fetch_nand_16"),
                    RmwOp::Max | RmwOp::Min | RmwOp::UMax | RmwOp::UMin => None,
                    _ => {
                        return Err(self.error(format!("unsupported instruction '{what}' of i128")))
                    }
                };
                let step = |s: &mut Self, old: [Reg; 2]| s.rmw16_step(op, old, &operand);
                let old = match (means, libcall) {
                    (Means::Cmpxchg16b, _) => {
                        let addr = self.address(ptr)?;
                        self.cmpxchg16b_loop(id, addr, step)?
                    }
                    (Means::Libatomic, Some(name)) => {
                        let ptr = self.reg(ptr)?;
                        let order = self.mov_imm(c_order(atomic.ordering));
                        self.libatomic(name, &[ptr, operand[0], operand[1], order])
                    }
                    (Means::Libatomic, None) => {
                        let ptr = self.reg(ptr)?;
                        self.libatomic_cas_loop(id, ptr, atomic.ordering, step)?
                    }
                };
                self.define_leaves(id, &old)
            }
            (
                InstKind::CmpXchg {
                    ptr,
                    cmp,
                    new,
                    success,
                    failure,
                    ..
                },
                _,
            ) => {
                let expected = self.leaves(cmp)?;
                let replacement = self.leaves(new)?;
                let flag = self.vreg(Width::W32);
                let old = match means {
                    Means::Cmpxchg16b => {
                        let addr = self.address(ptr)?;
                        self.emit(K::MovImm {
                            dst: flag,
                            imm: 0,
                            width: Width::W32,
                        });
                        let old = self.cmpxchg16b(
                            addr,
                            [expected[0], expected[1]],
                            [replacement[0], replacement[1]],
                        );
                        self.emit(K::Setcc {
                            cond: Cond::E,
                            dst: flag,
                        });
                        old
                    }
                    Means::Libatomic => {
                        let ptr = self.reg(ptr)?;
                        let slot = self.mir.new_stack_slot(16, 16, mir::StackSlotKind::Alloca);
                        self.store_pair(slot, [expected[0], expected[1]]);
                        let matched = self.libatomic_cas(
                            ptr,
                            slot,
                            [replacement[0], replacement[1]],
                            *success,
                            *failure,
                        );
                        self.emit(K::Extend {
                            dst: flag,
                            src: Rm::Reg(matched),
                            from: Width::W8,
                            to: Width::W32,
                            signed: false,
                        });
                        self.load_pair(slot)
                    }
                };
                self.define_leaves(id, &[old[0], old[1], flag])
            }
            _ => Err(self.error("internal: not a 16-byte atomic".into())),
        }
    }

    /// A fresh 64-bit register holding `imm`.
    fn mov_imm(&mut self, imm: i64) -> Reg {
        let dst = self.vreg(Width::W64);
        self.emit(K::MovImm {
            dst,
            imm,
            width: if imm >= 0 { Width::W32 } else { Width::W64 },
        });
        dst
    }

    /// `lock cmpxchg16b [addr]` with `expected` in rdx:rax and
    /// `replacement` in rcx:rbx; returns fresh copies of rax and rdx (the
    /// old value). ZF says whether it matched (for a `setcc` right after).
    fn cmpxchg16b(&mut self, addr: Address, expected: [Reg; 2], replacement: [Reg; 2]) -> [Reg; 2] {
        let fixed = [
            (Gpr::Rax, expected[0]),
            (Gpr::Rdx, expected[1]),
            (Gpr::Rbx, replacement[0]),
            (Gpr::Rcx, replacement[1]),
        ];
        for (gpr, src) in fixed {
            self.emit(K::Copy {
                dst: Reg::from(gpr),
                src,
            });
        }
        let pair = RegSet::EMPTY.with(Gpr::Rax).with(Gpr::Rdx);
        self.emit(K::InlineAsm(Box::new(InlineAsm {
            regs: Vec::new(),
            instrs: vec![AsmInstr {
                code: Code::Cmpxchg16b_m128,
                lock: true,
                operands: vec![AsmOperand::Mem(addr)],
            }],
            uses: pair.with(Gpr::Rbx).with(Gpr::Rcx),
            defs: pair,
            alignments: Vec::new(),
            template: "lock cmpxchg16b".into(),
        })));
        self.rax_rdx()
    }

    /// Fresh copies of rax and rdx (a 16-byte result).
    fn rax_rdx(&mut self) -> [Reg; 2] {
        let (low, high) = (self.vreg(Width::W64), self.vreg(Width::W64));
        self.emit(K::Copy {
            dst: low,
            src: Reg::from(Gpr::Rax),
        });
        self.emit(K::Copy {
            dst: high,
            src: Reg::from(Gpr::Rdx),
        });
        [low, high]
    }

    /// Loops until `lock cmpxchg16b` replaces the value seen at `addr` by
    /// `step(value seen)`; returns the value it replaced.
    fn cmpxchg16b_loop(
        &mut self,
        id: InstId,
        addr: Address,
        step: impl Fn(&mut Self, [Reg; 2]) -> Result<[Reg; 2], Diagnostic>,
    ) -> Result<[Reg; 2], Diagnostic> {
        let old = [self.vreg(Width::W64), self.vreg(Width::W64)];
        for (half, &dst) in old.iter().enumerate() {
            let mut at = addr.clone();
            at.disp += 8 * half as i32;
            self.emit(K::Load {
                dst,
                addr: at,
                width: Width::W64,
            });
        }
        let (retry, done) = self.open_retry_loop(id);
        let new = step(self, old)?;
        let seen = self.cmpxchg16b(addr, old, new);
        for (&dst, src) in old.iter().zip(seen) {
            self.emit(K::Copy { dst, src });
        }
        self.emit(K::Jcc {
            cond: Cond::Ne,
            target: retry,
        });
        self.emit(K::Jmp { target: done });
        self.current = done;
        let result = [self.vreg(Width::W64), self.vreg(Width::W64)];
        for (&dst, &src) in result.iter().zip(&old) {
            self.emit(K::Copy { dst, src });
        }
        Ok(result)
    }

    /// Loops until `__atomic_compare_exchange_16` replaces the value seen
    /// at `ptr` by `step(value seen)`; returns the value it replaced.
    fn libatomic_cas_loop(
        &mut self,
        id: InstId,
        ptr: Reg,
        ordering: Ordering,
        step: impl Fn(&mut Self, [Reg; 2]) -> Result<[Reg; 2], Diagnostic>,
    ) -> Result<[Reg; 2], Diagnostic> {
        let slot = self.mir.new_stack_slot(16, 16, mir::StackSlotKind::Alloca);
        for half in 0..2 {
            let t = self.vreg(Width::W64);
            self.emit(K::Load {
                dst: t,
                addr: Address::reg(ptr, 8 * half),
                width: Width::W64,
            });
            self.emit(K::Store {
                src: Ri::Reg(t),
                addr: Address::slot(slot, 8 * half),
                width: Width::W64,
            });
        }
        let (retry, done) = self.open_retry_loop(id);
        let old = self.load_pair(slot);
        let new = step(self, old)?;
        let matched = self.libatomic_cas(ptr, slot, new, ordering, failure_order(ordering));
        self.emit(K::Test {
            width: Width::W8,
            lhs: Rm::Reg(matched),
            rhs: Ri::Reg(matched),
        });
        self.emit(K::Jcc {
            cond: Cond::E,
            target: retry,
        });
        self.emit(K::Jmp { target: done });
        self.current = done;
        Ok(old)
    }

    /// `__atomic_compare_exchange_16(ptr, &slot, replacement, success,
    /// failure)`: returns the register holding its `bool` result (al).
    fn libatomic_cas(
        &mut self,
        ptr: Reg,
        slot: mir::StackSlotId,
        replacement: [Reg; 2],
        success: Ordering,
        failure: Ordering,
    ) -> Reg {
        let expected = self.vreg(Width::W64);
        self.emit(K::Lea {
            dst: expected,
            addr: Address::slot(slot, 0),
        });
        let success = self.mov_imm(c_order(success));
        let failure = self.mov_imm(c_order(failure));
        let args = [
            ptr,
            expected,
            replacement[0],
            replacement[1],
            success,
            failure,
        ];
        let [matched, _] = self.libatomic("__atomic_compare_exchange_16", &args);
        matched
    }

    /// A call of libatomic's `name` with `args` in the integer argument
    /// registers; returns fresh copies of rax and rdx.
    fn libatomic(&mut self, name: &str, args: &[Reg]) -> [Reg; 2] {
        let mut used = Vec::with_capacity(args.len());
        for (&gpr, &src) in ARGUMENT_REGISTERS.iter().zip(args) {
            self.emit(K::Copy {
                dst: Reg::from(gpr),
                src,
            });
            used.push(PhysReg::from(gpr));
        }
        self.emit(K::Call {
            target: CallTarget::Symbol(name.into()),
            args: used,
            rets: vec![Gpr::Rax.into(), Gpr::Rdx.into()],
            clobbers: CALLER_SAVED,
            unwind: None,
        });
        self.rax_rdx()
    }

    /// Stores a pair of halves into a 16-byte slot.
    fn store_pair(&mut self, slot: mir::StackSlotId, halves: [Reg; 2]) {
        for (half, src) in halves.into_iter().enumerate() {
            self.emit(K::Store {
                src: Ri::Reg(src),
                addr: Address::slot(slot, 8 * half as i32),
                width: Width::W64,
            });
        }
    }

    /// Loads the pair of halves of a 16-byte slot into fresh registers.
    fn load_pair(&mut self, slot: mir::StackSlotId) -> [Reg; 2] {
        let halves = [self.vreg(Width::W64), self.vreg(Width::W64)];
        for (half, &dst) in halves.iter().enumerate() {
            self.emit(K::Load {
                dst,
                addr: Address::slot(slot, 8 * half as i32),
                width: Width::W64,
            });
        }
        halves
    }

    /// The new value of `atomicrmw op` on an `i128` from the value seen
    /// (`old`, left unchanged) and the operand, in fresh registers.
    fn rmw16_step(
        &mut self,
        op: RmwOp,
        old: [Reg; 2],
        operand: &[Reg],
    ) -> Result<[Reg; 2], Diagnostic> {
        let new = [self.vreg(Width::W64), self.vreg(Width::W64)];
        let alu = |s: &mut Self, ops: [AluOp; 2]| {
            for half in 0..2 {
                s.emit(K::Copy {
                    dst: new[half],
                    src: old[half],
                });
            }
            for half in 0..2 {
                s.emit(K::Alu {
                    op: ops[half],
                    width: Width::W64,
                    dst: new[half],
                    src: Rmi::Reg(operand[half]),
                });
            }
        };
        match op {
            RmwOp::Xchg => {
                for half in 0..2 {
                    self.emit(K::Copy {
                        dst: new[half],
                        src: operand[half],
                    });
                }
            }
            RmwOp::Add => alu(self, [AluOp::Add, AluOp::Adc]),
            RmwOp::Sub => alu(self, [AluOp::Sub, AluOp::Sbb]),
            RmwOp::And | RmwOp::Nand => {
                alu(self, [AluOp::And, AluOp::And]);
                if op == RmwOp::Nand {
                    for half in new {
                        self.emit(K::Unary {
                            op: UnaryOp::Not,
                            width: Width::W64,
                            dst: half,
                        });
                    }
                }
            }
            RmwOp::Or => alu(self, [AluOp::Or, AluOp::Or]),
            RmwOp::Xor => alu(self, [AluOp::Xor, AluOp::Xor]),
            RmwOp::Max | RmwOp::Min | RmwOp::UMax | RmwOp::UMin => {
                // The operand wins when old < operand (max) or operand <
                // old (min): the flags of that 128-bit subtraction (cmp of
                // the low halves, sbb of a copy of the high ones).
                let (lhs, rhs) = match op {
                    RmwOp::Max | RmwOp::UMax => (old, [operand[0], operand[1]]),
                    _ => ([operand[0], operand[1]], old),
                };
                let cond = match op {
                    RmwOp::Max | RmwOp::Min => Cond::L,
                    _ => Cond::B,
                };
                for half in 0..2 {
                    self.emit(K::Copy {
                        dst: new[half],
                        src: old[half],
                    });
                }
                let scratch = self.vreg(Width::W64);
                self.emit(K::Copy {
                    dst: scratch,
                    src: lhs[1],
                });
                self.emit(K::Cmp {
                    width: Width::W64,
                    lhs: Rm::Reg(lhs[0]),
                    rhs: Rmi::Reg(rhs[0]),
                });
                self.emit(K::Alu {
                    op: AluOp::Sbb,
                    width: Width::W64,
                    dst: scratch,
                    src: Rmi::Reg(rhs[1]),
                });
                for half in 0..2 {
                    self.emit(K::Cmov {
                        cond,
                        width: Width::W64,
                        dst: new[half],
                        src: Rm::Reg(operand[half]),
                    });
                }
            }
            _ => {
                return Err(self.error(format!(
                    "unsupported instruction 'atomicrmw {}' of i128",
                    op.name()
                )))
            }
        }
        Ok(new)
    }
}
