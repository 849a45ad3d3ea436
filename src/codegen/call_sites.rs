//! Call sites: what a debugger needs to evaluate a callee's entry values.
//!
//! In: a finished function (final MIR on physical registers, with the offset
//! and length of every instruction). Out: one [`CallSite`] per call and tail
//! call: where it returns to (or, for a tail call, where the jump is), what
//! it calls (a named function, or the register holding the address), and
//! for each argument register whose value is still recoverable in the
//! caller's frame once the call has returned, how to recover it
//! ([`CallValue`]).
//!
//! Debug-info rule (DWARF 5 §3.4.1, LLVM's `collectCallSiteParameters`): a
//! call-site parameter's value is described only when it is provably the
//! value the register held at the call, read from the caller's frame after
//! the call returns: a constant the block moved into it; a callee-saved
//! register it was copied from that nothing writes between the copy and the
//! call (the callee preserves it); or, in the entry block, the caller's own
//! entry value of the register when nothing wrote it before the call. Any
//! other value (loads, arithmetic, values from other blocks) is left
//! undescribed: a debugger then shows the callee's parameter as optimised
//! out rather than guessing. The analysis reads non-debug instructions only,
//! and the machine code never depends on it.

use super::mir::{CallTarget, Function, Inst, InstKind, Reg, Rm, Width};
use crate::x86::abi::{is_argument_register, CALLEE_SAVED};
use crate::x86::regs::PhysReg;

/// One call or tail call of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The call's source location (`LocId + 1`; 0: none), as MIR keeps it.
    pub loc: u32,
    /// For a call, the offset just past it (DW_AT_call_return_pc); for a
    /// tail call, the offset of the jump (DW_AT_call_pc).
    pub offset: u64,
    /// Whether this is a tail call (a jump that leaves the function).
    pub tail: bool,
    /// What is called.
    pub callee: Callee,
    /// The described argument registers, in the order the call lists them.
    pub parameters: Vec<(PhysReg, CallValue)>,
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function by symbol name.
    Symbol(String),
    /// The address held in this register at the call.
    Register(PhysReg),
}

/// How to recover, in the caller's frame after the call, the value an
/// argument register held at the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallValue {
    /// This constant (the register's 64 bits).
    Constant(u64),
    /// The low `bits` of this callee-saved register.
    Register {
        /// The callee-saved register.
        register: PhysReg,
        /// 64, or 32 when the argument is its zero-extended low half.
        bits: u16,
    },
    /// The value this register held on entry to the caller.
    EntryValue(PhysReg),
}

/// The call sites of `mir`, in code order. `inst_offsets` gives each
/// instruction's `(offset, length)`, parallel to the blocks; block 0 is the
/// entry block.
pub fn call_sites(mir: &Function, inst_offsets: &[Vec<(u32, u32)>]) -> Vec<CallSite> {
    let mut sites = Vec::new();
    for (b, block) in mir.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let (target, args, tail) = match &inst.kind {
                InstKind::Call { target, args, .. } => (target, args, false),
                InstKind::TailJump { target, args } => (target, args, true),
                _ => continue,
            };
            let (start, length) = inst_offsets[b][i];
            let callee = match target {
                CallTarget::Symbol(name) => Callee::Symbol(name.clone()),
                CallTarget::Reg(Reg::Phys(register)) => Callee::Register(*register),
                CallTarget::Reg(Reg::Virt(_)) => continue,
            };
            let before = &block.insts[..i];
            sites.push(CallSite {
                loc: inst.loc,
                offset: u64::from(if tail { start } else { start + length }),
                tail,
                callee,
                parameters: args
                    .iter()
                    .filter_map(|&arg| Some((arg, value_at_call(before, arg, b == 0)?)))
                    .collect(),
            });
        }
    }
    sites
}

/// How to recover the value `register` holds after `before` (the
/// instructions of the call's block ahead of it), if it can be recovered.
fn value_at_call(before: &[Inst], register: PhysReg, entry_block: bool) -> Option<CallValue> {
    let Some(at) = last_write(before, register) else {
        return (entry_block && is_argument_register(register))
            .then_some(CallValue::EntryValue(register));
    };
    let preserved_since = |source: PhysReg| last_write(&before[at + 1..], source).is_none();
    match &before[at].kind {
        InstKind::MovImm { imm, width, .. } => Some(CallValue::Constant(match width {
            Width::W64 => *imm as u64,
            _ => u64::from(*imm as u32),
        })),
        InstKind::Copy {
            src: Reg::Phys(source),
            ..
        } if callee_saved(*source) && preserved_since(*source) => Some(CallValue::Register {
            register: *source,
            bits: 64,
        }),
        InstKind::Extend {
            src: Rm::Reg(Reg::Phys(source)),
            from: Width::W32,
            to: Width::W64,
            signed: false,
            ..
        } if callee_saved(*source) && preserved_since(*source) => Some(CallValue::Register {
            register: *source,
            bits: 32,
        }),
        _ => None,
    }
}

/// Whether the SysV ABI makes a callee preserve `register`.
fn callee_saved(register: PhysReg) -> bool {
    register.gpr().is_some_and(|g| CALLEE_SAVED.contains(g))
}

/// The index of the last instruction of `insts` that writes `register`.
fn last_write(insts: &[Inst], register: PhysReg) -> Option<usize> {
    insts.iter().rposition(|inst| {
        if inst.is_debug() {
            return false;
        }
        let mut writes = inst.kind.implicit_defs().contains(register);
        inst.kind.visit_regs(&mut |reg, access| {
            writes |= reg == Reg::Phys(register) && access != super::mir::Access::Use;
        });
        writes
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{Block, Function};
    use crate::x86::abi::CALLER_SAVED;
    use crate::x86::regs::Gpr;

    fn call(args: &[Gpr]) -> Inst {
        Inst::new(
            InstKind::Call {
                target: CallTarget::Symbol("f".into()),
                args: args.iter().map(|&g| PhysReg::Gpr(g)).collect(),
                rets: vec![PhysReg::Gpr(Gpr::Rax)],
                clobbers: CALLER_SAVED,
                unwind: None,
            },
            7,
        )
    }

    fn mov_imm(dst: Gpr, imm: i64, width: Width) -> Inst {
        Inst::new(
            InstKind::MovImm {
                dst: dst.into(),
                imm,
                width,
            },
            0,
        )
    }

    fn copy(dst: Gpr, src: Gpr) -> Inst {
        Inst::new(
            InstKind::Copy {
                dst: dst.into(),
                src: src.into(),
            },
            0,
        )
    }

    /// The call sites of one function made of `blocks`, every instruction
    /// four bytes long.
    fn sites(blocks: Vec<Vec<Inst>>) -> Vec<CallSite> {
        let mut function = Function::new("caller");
        let mut offsets = Vec::new();
        let mut offset = 0;
        for insts in blocks {
            offsets.push(
                insts
                    .iter()
                    .map(|_| {
                        offset += 4;
                        (offset - 4, 4)
                    })
                    .collect(),
            );
            function.blocks.push(Block { insts });
        }
        call_sites(&function, &offsets)
    }

    #[test]
    fn constants_callee_saved_copies_and_entry_values_are_described() {
        let found = sites(vec![vec![
            mov_imm(Gpr::Rdi, -1, Width::W32),
            copy(Gpr::Rdx, Gpr::Rbx),
            call(&[Gpr::Rdi, Gpr::Rsi, Gpr::Rdx]),
        ]]);
        assert_eq!(
            found,
            vec![CallSite {
                loc: 7,
                offset: 12,
                tail: false,
                callee: Callee::Symbol("f".into()),
                parameters: vec![
                    (PhysReg::Gpr(Gpr::Rdi), CallValue::Constant(0xffff_ffff)),
                    (
                        PhysReg::Gpr(Gpr::Rsi),
                        CallValue::EntryValue(PhysReg::Gpr(Gpr::Rsi))
                    ),
                    (
                        PhysReg::Gpr(Gpr::Rdx),
                        CallValue::Register {
                            register: PhysReg::Gpr(Gpr::Rbx),
                            bits: 64
                        }
                    ),
                ],
            }]
        );
    }

    #[test]
    fn values_the_caller_cannot_recover_are_left_out() {
        let found = sites(vec![
            vec![Inst::new(
                InstKind::Jmp {
                    target: super::super::mir::BlockId(1),
                },
                0,
            )],
            vec![
                // rbx is written after the copy: rdi no longer equals it.
                copy(Gpr::Rdi, Gpr::Rbx),
                mov_imm(Gpr::Rbx, 3, Width::W64),
                // rsi comes from a caller-saved register.
                copy(Gpr::Rsi, Gpr::Rcx),
                // rdx is never written, but this is not the entry block.
                call(&[Gpr::Rdi, Gpr::Rsi, Gpr::Rdx]),
            ],
        ]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].parameters, vec![]);
        assert_eq!(found[0].offset, 20);
    }
}
