//! Live-range splitting around innermost loops, before allocation.
//!
//! In: a MIR function over virtual registers (after `zext`). Out: the same
//! function where each virtual register that lives on both sides of an
//! innermost loop and is used in it has a fresh register of its own inside
//! the loop: copied in on every edge into the loop's header, copied back at
//! the start of every exit block it is live into, after the block's leading
//! debug values (changed in the loop or not, so the outer register lives
//! nowhere in the loop), and renamed on
//! every instruction of the loop (debug values included).
//!
//! Why: the allocator spills a register whole, and weighs it by its uses
//! over the length of its life. A value of a long function that a hot loop
//! reads (a base pointer, a limit) lives long and is used in few places, so
//! it loses its register to short temporaries and every iteration reloads
//! it. Its copy inside the loop lives only as long as the loop and carries
//! all the loop's uses, so it keeps a register; the value outside, if it
//! is spilled, costs a reload where the loop is entered and a store where
//! it is left. Measured on the harness (callgrind): lz4 -2.4%, bzip2 -9
//! -0.5%, zlib level; bzip2 -d +3.8% (its bit-reading loops run once or
//! twice, so their copies cost more than they save).
//!
//! Rule: a loop is split only where the copies have a place of their own:
//! every predecessor of the header from outside the loop goes nowhere
//! else, and every block the loop exits to is entered only from the loop.
//! A register is split only when it is live into the header and used or
//! defined in the loop, and live into some entry block or exit block (it
//! lives outside the loop too). Debug instructions decide nothing (the code
//! is the same with and without them); the debug values in the loop name
//! the new register, which holds the same value there.

use super::liveness;
use super::loop_depth::natural_loops;
use super::mir::{BlockId, DbgOperand, Function, Inst, InstKind, Reg, VReg};

/// At most this many registers are split per loop (the copies cost
/// instructions on every entry and exit).
const MAX_SPLITS_PER_LOOP: usize = 16;

/// Splits the live ranges of `f` around its innermost loops (see the module
/// doc).
pub fn run(f: &mut Function) {
    let loops = natural_loops(f);
    if loops.is_empty() {
        return;
    }
    let n = f.blocks.len();
    let mut predecessors = vec![Vec::new(); n];
    for (b, succs) in f.successor_lists().into_iter().enumerate() {
        for s in succs {
            predecessors[s].push(b);
        }
    }
    // The loops with places for the copies, found before the liveness
    // they need is computed (most functions have none).
    let headers: Vec<usize> = loops.iter().map(|l| l.header).collect();
    let mut candidates = Vec::new();
    for l in &loops {
        let mut inside = vec![false; n];
        for &b in &l.blocks {
            inside[b] = true;
        }
        // Innermost: no other loop's header inside.
        if headers.iter().any(|&h| h != l.header && inside[h]) {
            continue;
        }
        let entries: Vec<usize> = predecessors[l.header]
            .iter()
            .copied()
            .filter(|&p| !inside[p])
            .collect();
        if entries.is_empty()
            || entries
                .iter()
                .any(|&p| f.successors(BlockId(p as u32)) != [BlockId(l.header as u32)])
        {
            continue;
        }
        let mut exits: Vec<usize> = l
            .blocks
            .iter()
            .flat_map(|&b| f.successors(BlockId(b as u32)))
            .map(|s| s.0 as usize)
            .filter(|&s| !inside[s])
            .collect();
        exits.sort_unstable();
        exits.dedup();
        if exits
            .iter()
            .any(|&e| e == 0 || predecessors[e].iter().any(|&p| !inside[p]))
        {
            continue;
        }
        candidates.push((l, entries, exits));
    }
    if candidates.is_empty() {
        return;
    }
    let live = liveness::compute(f);
    for (l, entries, exits) in candidates {
        // The registers the loop's code touches.
        let mut touched = vec![false; f.vregs.len()];
        for &b in &l.blocks {
            for inst in f.blocks[b].insts.iter().filter(|i| !i.is_debug()) {
                inst.kind.visit_regs(&mut |r, _| {
                    if let Reg::Virt(v) = r {
                        touched[v.0 as usize] = true;
                    }
                });
            }
        }
        let lives_outside = |v: VReg| {
            let r = Reg::Virt(v);
            let Some(i) = live.index(r) else {
                return false;
            };
            entries.iter().any(|&p| live.live_in[p].contains(i))
                || exits.iter().any(|&e| live.live_in[e].contains(i))
        };
        let split: Vec<VReg> = live
            .live_in_vregs(BlockId(l.header as u32))
            .filter(|v| touched[v.0 as usize] && lives_outside(*v))
            .take(MAX_SPLITS_PER_LOOP)
            .collect();
        for v in split {
            let info = f.vregs[v.0 as usize];
            f.vregs.push(info);
            let inner = Reg::Virt(VReg(f.vregs.len() as u32 - 1));
            let outer = Reg::Virt(v);
            for &b in &l.blocks {
                for inst in &mut f.blocks[b].insts {
                    inst.kind.visit_regs_mut(&mut |r, _| {
                        if *r == outer {
                            *r = inner;
                        }
                    });
                    rename_debug(&mut inst.kind, outer, inner);
                }
            }
            for &p in &entries {
                f.blocks[p].insert_before_jumps(InstKind::Copy {
                    dst: inner,
                    src: outer,
                });
            }
            // Back at every exit it lives into, changed or not: the outer
            // register then lives nowhere in the loop.
            for &e in &exits {
                let Some(i) = live.index(outer) else { continue };
                if !live.live_in[e].contains(i) {
                    continue;
                }
                // After the block's leading debug values, which take effect
                // at its first byte (the value is in `inner` until the
                // copy): before them, the copy took the next line's row and
                // a stop there missed what they say (csmith 205640, mode C:
                // `l_34 = 3` at the inner loop's first line showed the
                // value before the loop).
                let insts = &mut f.blocks[e].insts;
                let leading = insts.iter().take_while(|i| i.is_debug()).count();
                for inst in &mut insts[..leading] {
                    rename_debug(&mut inst.kind, outer, inner);
                }
                let loc = insts.get(leading).map_or(0, |i| i.loc);
                insts.insert(
                    leading,
                    Inst::new(
                        InstKind::Copy {
                            dst: outer,
                            src: inner,
                        },
                        loc,
                    ),
                );
            }
        }
    }
}

/// Renames `from` to `to` in a debug value's operands.
fn rename_debug(kind: &mut InstKind, from: Reg, to: Reg) {
    if let InstKind::DbgValue(d) = kind {
        for op in &mut d.operands {
            if let DbgOperand::Reg(r) = op {
                if *r == from {
                    *r = to;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{AluOp, Cond, Gpr, PhysReg, Rm, Rmi, Width};

    fn inst(kind: InstKind) -> Inst {
        Inst::new(kind, 0)
    }

    #[test]
    fn a_value_living_around_a_loop_gets_a_register_of_its_own_inside() {
        // bb0: v = 7 (jump to the loop)
        // bb1: v += 1; cmp v, 10; jl bb1 (falls into bb2)
        // bb2: ret v
        let mut f = Function::new("f");
        let v = f.new_vreg(Width::W64);
        f.blocks = vec![
            crate::codegen::mir::Block {
                insts: vec![
                    inst(InstKind::MovImm {
                        dst: v,
                        imm: 7,
                        width: Width::W64,
                    }),
                    inst(InstKind::Jmp { target: BlockId(1) }),
                ],
            },
            crate::codegen::mir::Block {
                insts: vec![
                    inst(InstKind::Alu {
                        op: AluOp::Add,
                        width: Width::W64,
                        dst: v,
                        src: Rmi::Imm(1),
                    }),
                    inst(InstKind::Cmp {
                        width: Width::W64,
                        lhs: Rm::Reg(v),
                        rhs: Rmi::Imm(10),
                    }),
                    inst(InstKind::Jcc {
                        cond: Cond::L,
                        target: BlockId(1),
                    }),
                ],
            },
            crate::codegen::mir::Block {
                insts: vec![
                    inst(InstKind::Copy {
                        dst: Reg::Phys(PhysReg::Gpr(Gpr::Rax)),
                        src: v,
                    }),
                    inst(InstKind::Ret {
                        uses: vec![PhysReg::Gpr(Gpr::Rax)],
                    }),
                ],
            },
        ];
        run(&mut f);
        let inner = Reg::Virt(VReg(1));
        assert_eq!(f.vregs.len(), 2);
        // Copied in before the entry's jump, renamed in the loop, copied
        // back where the loop is left.
        assert_eq!(
            f.blocks[0].insts[1].kind,
            InstKind::Copy { dst: inner, src: v }
        );
        assert!(matches!(f.blocks[1].insts[0].kind, InstKind::Alu { dst, .. } if dst == inner));
        assert_eq!(
            f.blocks[2].insts[0].kind,
            InstKind::Copy { dst: v, src: inner }
        );
    }
}
