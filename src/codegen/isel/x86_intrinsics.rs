//! The target intrinsics C code reaches through `<x86intrin.h>` that are
//! one instruction with no vector operand, and `llvm.thread.pointer`.
//!
//! In: a call of `llvm.x86.sse2.pause`, `llvm.x86.sse2.lfence`,
//! `llvm.x86.sse2.mfence`, `llvm.x86.sse.sfence`, `llvm.x86.rdtsc`,
//! `llvm.x86.sse.stmxcsr`, `llvm.x86.sse.ldmxcsr`, `llvm.x86.sse2.clflush`
//! or `llvm.thread.pointer`. Out: the instruction itself (`pause`, `lfence`,
//! `mfence`, `sfence`; `rdtsc` with its result joined from edx:eax;
//! `stmxcsr`/`ldmxcsr` on the pointed-to 4 bytes, `clflush` on the
//! pointed-to line), or
//! `mov dst, fs:[0]` for the thread pointer, as llc-19 emits them.
//!
//! Rule: the fences, `pause` and the MXCSR accesses are statements whose
//! order against memory accesses (and floating-point arithmetic) is kept (they are never moved or
//! deleted: isel emits them where the call stands, like inline asm);
//! `rdtsc` writes rax and rdx, which the allocator sees as pinned
//! definitions.

use super::*;
use crate::codegen::mir::{AsmInstr, AsmOperand, InlineAsm, TlsAccess};
use crate::ir::X86Intrinsic;
use crate::x86::regs::RegSet;
use iced_x86::Code;

impl Selector<'_> {
    /// `llvm.thread.pointer`: the thread pointer, read from `fs:[0]`.
    pub(super) fn lower_thread_pointer(&mut self, id: InstId) -> Result<(), Diagnostic> {
        let dst = self.dst(id)?;
        self.emit(K::ThreadLocal {
            access: TlsAccess::ThreadPointer,
            symbol: String::new(),
            dst: Some(dst),
            base: None,
        });
        Ok(())
    }

    /// One `llvm.x86.*` intrinsic of [`X86Intrinsic`].
    pub(super) fn lower_x86_intrinsic(
        &mut self,
        id: InstId,
        intrinsic: X86Intrinsic,
        operands: &[&Value],
    ) -> Result<(), Diagnostic> {
        let (code, template) = match intrinsic {
            X86Intrinsic::Pause => (Code::Pause, "pause"),
            X86Intrinsic::Lfence => (Code::Lfence, "lfence"),
            X86Intrinsic::Mfence => (Code::Mfence, "mfence"),
            X86Intrinsic::Sfence => (Code::Sfence, "sfence"),
            X86Intrinsic::Rdtsc => (Code::Rdtsc, "rdtsc"),
            X86Intrinsic::Stmxcsr => (Code::Stmxcsr_m32, "stmxcsr"),
            X86Intrinsic::Ldmxcsr => (Code::Ldmxcsr_m32, "ldmxcsr"),
            X86Intrinsic::Clflush => (Code::Clflush_m8, "clflush"),
        };
        let operands = match intrinsic {
            X86Intrinsic::Stmxcsr | X86Intrinsic::Ldmxcsr | X86Intrinsic::Clflush => {
                vec![AsmOperand::Mem(self.address(operands[0])?)]
            }
            _ => Vec::new(),
        };
        let defs = if intrinsic == X86Intrinsic::Rdtsc {
            RegSet::of(&[Gpr::Rax.into(), Gpr::Rdx.into()])
        } else {
            RegSet::EMPTY
        };
        self.emit(K::InlineAsm(Box::new(InlineAsm {
            regs: Vec::new(),
            instrs: vec![AsmInstr {
                code,
                lock: false,
                operands,
            }],
            uses: RegSet::EMPTY,
            defs,
            alignments: Vec::new(),
            template: template.into(),
        })));
        if intrinsic == X86Intrinsic::Rdtsc {
            // The counter is edx:eax (the upper halves of rax and rdx are
            // zero after rdtsc).
            let dst = self.dst(id)?;
            let high = self.vreg(Width::W64);
            self.emit(K::Copy {
                dst: high,
                src: Reg::from(Gpr::Rdx),
            });
            self.emit(K::Copy {
                dst,
                src: Reg::from(Gpr::Rax),
            });
            self.emit(K::Shift {
                op: ShiftOp::Shl,
                width: Width::W64,
                dst: high,
                amount: ShiftAmount::Imm(32),
            });
            self.emit(K::Alu {
                op: AluOp::Or,
                width: Width::W64,
                dst,
                src: Rmi::Reg(high),
            });
        }
        Ok(())
    }
}
