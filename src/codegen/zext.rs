//! Zero extensions that x86-64 has already done.
//!
//! In: a MIR function over virtual registers, before register allocation.
//! Out: the same function in which every 32 → 64-bit zero extension
//! (`Extend { from: W32, to: W64, signed: false }`, a `mov r32, r32`) of a
//! virtual register whose every definition clears bits 32–63 has become a
//! [`InstKind::Copy`], which allocation can coalesce away.
//!
//! The rule: on x86-64 an instruction that writes a 32-bit register
//! zero-extends its result into the whole register. A virtual register
//! qualifies when each of its definitions is such a write (a 32-bit
//! `mov`, load, ALU operation, multiply, shift, `cmov`, `movzx`/`movsx`
//! to 32 bits, a zero extension to 64 bits, `movd`, `cvtt*2si` to 32 bits,
//! a 64-bit `mov` of a constant below 2^32), or a copy of a register that
//! qualifies (a greatest fixpoint, so phi copies around a loop qualify
//! together). Partial writes (8 and 16 bits, `setcc`), `lea` and anything
//! else disqualify. Only non-debug instructions are read, so debug
//! information never changes the code; debug values are left as they are
//! (the copy holds the same value the extension did).

use super::mir::{Access, Function, InstKind, Reg, Rm, VReg, Width};

/// How one definition leaves a register's bits 32–63.
#[derive(Clone, Copy, PartialEq, Eq)]
enum UpperBits {
    /// Cleared by the instruction itself.
    Zero,
    /// Those of the copied virtual register.
    CopyOf(VReg),
    /// Anything else: unknown.
    Unknown,
}

/// Turns the redundant zero extensions of `f` into copies; returns how many.
pub fn run(f: &mut Function) -> usize {
    let zeroed = upper_bits_zero(f);
    let mut changed = 0;
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            if let InstKind::Extend {
                dst,
                src: Rm::Reg(src @ Reg::Virt(v)),
                from: Width::W32,
                to: Width::W64,
                signed: false,
            } = inst.kind
            {
                if zeroed[v.0 as usize] {
                    inst.kind = InstKind::Copy { dst, src };
                    changed += 1;
                }
            }
        }
    }
    changed
}

/// Per virtual register: whether every definition leaves bits 32–63 zero.
fn upper_bits_zero(f: &Function) -> Vec<bool> {
    let n = f.vregs.len();
    let mut has_def = vec![false; n];
    let mut zero = vec![true; n];
    let mut copies: Vec<(VReg, VReg)> = Vec::new();
    for block in &f.blocks {
        let code: Vec<&InstKind> = block
            .insts
            .iter()
            .filter(|i| !i.is_debug())
            .map(|i| &i.kind)
            .collect();
        for (i, kind) in code.iter().enumerate() {
            let effect = upper_bits(kind);
            kind.visit_regs(&mut |reg, access| {
                let Reg::Virt(v) = reg else { return };
                if access == Access::Use {
                    return;
                }
                has_def[v.0 as usize] = true;
                if effect != UpperBits::Zero && overwritten_next(&code[i + 1..], reg) {
                    return;
                }
                match effect {
                    UpperBits::Zero => {}
                    UpperBits::CopyOf(from) => copies.push((v, from)),
                    UpperBits::Unknown => zero[v.0 as usize] = false,
                }
            });
        }
    }
    for v in 0..n {
        zero[v] &= has_def[v];
    }
    // Greatest fixpoint: a copy of a register that does not qualify
    // disqualifies its destination, until nothing changes.
    let mut changed = true;
    while changed {
        changed = false;
        for &(dst, src) in &copies {
            if zero[dst.0 as usize] && !zero[src.0 as usize] {
                zero[dst.0 as usize] = false;
                changed = true;
            }
        }
    }
    zero
}

/// Whether the next of `rest` to name `reg` writes all of its low 32 bits
/// and clears the rest (a two-address operation after the copy of its
/// first operand): then no reader sees the upper bits an earlier
/// definition left.
fn overwritten_next(rest: &[&InstKind], reg: Reg) -> bool {
    let Some(next) = rest.iter().find(|kind| {
        let mut names = false;
        kind.visit_regs(&mut |r, _| names |= r == reg);
        names
    }) else {
        return false;
    };
    let mut only_defines = true;
    let mut defines = false;
    next.visit_regs(&mut |r, access| {
        if r == reg {
            match access {
                Access::Def | Access::UseDef => defines = true,
                Access::Use => only_defines = false,
            }
        }
    });
    defines && only_defines && upper_bits(next) == UpperBits::Zero
}

/// What `kind` does to the upper half of the register it defines.
fn upper_bits(kind: &InstKind) -> UpperBits {
    let full32 = |width: Width| {
        if width == Width::W32 {
            UpperBits::Zero
        } else {
            UpperBits::Unknown
        }
    };
    match kind {
        InstKind::Copy {
            src: Reg::Virt(v), ..
        } => UpperBits::CopyOf(*v),
        InstKind::MovImm { imm, width, .. } => match width {
            Width::W32 => UpperBits::Zero,
            Width::W64 if (0..=i64::from(u32::MAX)).contains(imm) => UpperBits::Zero,
            _ => UpperBits::Unknown,
        },
        InstKind::Extend {
            to: Width::W64,
            signed: false,
            ..
        } => UpperBits::Zero,
        InstKind::Extend { to, .. } => full32(*to),
        InstKind::Load { width, .. }
        | InstKind::Alu { width, .. }
        | InstKind::Imul { width, .. }
        | InstKind::ImulImm { width, .. }
        | InstKind::Shift { width, .. }
        | InstKind::Unary { width, .. }
        | InstKind::Cmov { width, .. }
        | InstKind::MovFromXmm { width, .. }
        | InstKind::FpToInt { width, .. } => full32(*width),
        _ => UpperBits::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{AluOp, Inst, Rmi};

    fn extend(dst: Reg, src: Reg) -> InstKind {
        InstKind::Extend {
            dst,
            src: Rm::Reg(src),
            from: Width::W32,
            to: Width::W64,
            signed: false,
        }
    }

    /// One block of `kinds` over registers made by `regs`.
    fn function(regs: usize, kinds: impl Fn(&[Reg]) -> Vec<InstKind>) -> Function {
        let mut f = Function::new("f");
        let r: Vec<Reg> = (0..regs).map(|_| f.new_vreg(Width::W64)).collect();
        f.new_block();
        f.blocks[0].insts = kinds(&r).into_iter().map(|k| Inst::new(k, 0)).collect();
        f
    }

    #[test]
    fn extension_of_a_32_bit_result_becomes_a_copy() {
        let mut f = function(3, |r| {
            vec![
                InstKind::Copy {
                    dst: r[0],
                    src: r[2],
                },
                InstKind::Alu {
                    op: AluOp::Add,
                    width: Width::W32,
                    dst: r[0],
                    src: Rmi::Imm(1),
                },
                extend(r[1], r[0]),
            ]
        });
        // r0's copy of r2 (which has no definition) is overwritten by the
        // 32-bit add before anything reads it.
        assert_eq!(run(&mut f), 1);
        // Not so when the copy is compared (read) before the add.
        let mut f = function(3, |r| {
            vec![
                InstKind::Copy {
                    dst: r[0],
                    src: r[2],
                },
                InstKind::Cmp {
                    width: Width::W64,
                    lhs: Rm::Reg(r[0]),
                    rhs: Rmi::Imm(0),
                },
                InstKind::Alu {
                    op: AluOp::Add,
                    width: Width::W32,
                    dst: r[0],
                    src: Rmi::Imm(1),
                },
                extend(r[1], r[0]),
            ]
        });
        assert_eq!(run(&mut f), 0);
        let mut f = function(2, |r| {
            vec![
                InstKind::MovImm {
                    dst: r[0],
                    imm: 7,
                    width: Width::W64,
                },
                InstKind::Alu {
                    op: AluOp::Add,
                    width: Width::W32,
                    dst: r[0],
                    src: Rmi::Imm(1),
                },
                extend(r[1], r[0]),
            ]
        });
        assert_eq!(run(&mut f), 1);
        assert_eq!(
            f.blocks[0].insts[2].kind,
            InstKind::Copy {
                dst: Reg::Virt(VReg(1)),
                src: Reg::Virt(VReg(0)),
            }
        );
    }

    #[test]
    fn a_64_bit_or_partial_definition_keeps_the_extension() {
        for (width, imm) in [(Width::W64, -1), (Width::W16, 1)] {
            let mut f = function(2, |r| {
                vec![
                    InstKind::MovImm {
                        dst: r[0],
                        imm: 0,
                        width: Width::W32,
                    },
                    InstKind::Alu {
                        op: AluOp::Sub,
                        width,
                        dst: r[0],
                        src: Rmi::Imm(imm),
                    },
                    extend(r[1], r[0]),
                ]
            });
            assert_eq!(run(&mut f), 0, "{width:?}");
        }
    }

    #[test]
    fn copies_around_a_loop_qualify_together() {
        // r0 = 0; r1 = r0; r0 = r1 (a phi cycle); r2 = zext r0.
        let mut f = function(3, |r| {
            vec![
                InstKind::MovImm {
                    dst: r[0],
                    imm: 0,
                    width: Width::W32,
                },
                InstKind::Copy {
                    dst: r[1],
                    src: r[0],
                },
                InstKind::Copy {
                    dst: r[0],
                    src: r[1],
                },
                extend(r[2], r[0]),
            ]
        });
        assert_eq!(run(&mut f), 1);
        // The same cycle fed by a 64-bit `lea` does not.
        let mut f = function(3, |r| {
            vec![
                InstKind::Lea {
                    dst: r[0],
                    addr: crate::codegen::mir::Address::reg(r[2], 1),
                },
                InstKind::Copy {
                    dst: r[1],
                    src: r[0],
                },
                InstKind::Copy {
                    dst: r[0],
                    src: r[1],
                },
                extend(r[2], r[0]),
            ]
        });
        assert_eq!(run(&mut f), 0);
    }
}
