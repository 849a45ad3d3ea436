//! Small rewrites of allocated code that allocation leaves behind.
//!
//! In: a MIR function over physical registers, after register allocation
//! and LiveDebugValues, before frame lowering. Out: the same function with
//! - a copy followed by an addition to the copy (`mov d, s; add d, c` or
//!   `add d, r`, what a two-address `add` becomes when its first operand
//!   stays live) fused into one `lea d, [s + c]` / `[s + r]` (32-bit adds
//!   into [`InstKind::Lea32`], which zero-extends as the `add` did), where
//!   the flags the `add` set are dead: the next instruction of the block
//!   that touches flags writes them without reading them, or the block
//!   returns first;
//! - likewise a copy followed by a mask of its low byte or word
//!   (`mov d, s; and d, 0xff` / `0xffff`, a truncation to `i8`/`i16`
//!   whose source stays live) fused into one `movzx d32, s8` / `s16`,
//!   which leaves the same value (zero upper bits) without the flags;
//! - a copy whose destination the next instruction reads only to overwrite
//!   it (`mov d, s; mov d32, [b + d*4]`) dropped, that instruction reading
//!   the source instead;
//! - `jcc t` falling through into a block that holds nothing but
//!   `jmp other` (an edge block whose copies were coalesced) and that
//!   nothing else reaches, with `t` the block after it: `j!cc other`, falling
//!   through the emptied block into `t`. The debug values of such a block
//!   only restate its one predecessor's locations (LiveDebugValues put them
//!   there), so no path sees a location it did not see before.
//!
//! The rule: decisions read non-debug instructions only, so debug
//! information never changes the code. A debug value between a fused copy
//! and its `add` that names the copy's destination names its source instead
//! (they held the same value there); debug values in the blocks a removed
//! jump skipped sit at the address it jumped to, as before.

use super::mir::{
    Access, Address, AddressBase, AluOp, DbgOperand, Function, Inst, InstKind, PhysReg, Reg, Rm,
    Rmi, Width,
};

/// Runs the rewrites over `f` (a `jmp` to the block that follows
/// anyway is left to the encoder, which emits no bytes for it).
pub fn run(f: &mut Function) {
    let flags_live_out = flags_live_out(f);
    for (block, live_out) in f.blocks.iter_mut().zip(flags_live_out) {
        fuse_copy_op(&mut block.insts, live_out);
        forward_copy(&mut block.insts);
    }
    branch_over_jump_blocks(f);
}

/// What a block does to the flags it is entered with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FlagsIn {
    /// It reads them before writing them (or may: anything not known).
    Read,
    /// It overwrites them first (or returns before reading them).
    Written,
    /// Neither: they reach its end, and its successors.
    Through,
}

/// What the first of `insts` to touch the flags does to them.
fn flags_effect(insts: &[Inst]) -> FlagsIn {
    for inst in insts.iter().filter(|i| !i.is_debug()) {
        match &inst.kind {
            InstKind::Alu { op, .. } => {
                return if matches!(op, AluOp::Adc | AluOp::Sbb) {
                    FlagsIn::Read
                } else {
                    FlagsIn::Written
                }
            }
            // `imul` defines CF and OF and leaves the rest undefined: nothing
            // after it can read what came before.
            InstKind::Cmp { .. }
            | InstKind::Test { .. }
            | InstKind::Bt { .. }
            | InstKind::Imul { .. }
            | InstKind::ImulImm { .. }
            | InstKind::FpCmp { .. }
            | InstKind::Call { .. }
            | InstKind::Ret { .. }
            | InstKind::TailJump { .. }
            | InstKind::Ud2 => return FlagsIn::Written,
            InstKind::Copy { .. }
            | InstKind::MovImm { .. }
            | InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Extend { .. }
            | InstKind::Lea { .. }
            | InstKind::Lea32 { .. }
            | InstKind::FpLoad { .. }
            | InstKind::FpStore { .. }
            | InstKind::MovToXmm { .. }
            | InstKind::MovFromXmm { .. }
            | InstKind::Jmp { .. } => {}
            _ => return FlagsIn::Read,
        }
    }
    FlagsIn::Through
}

/// Per block: whether a successor may read the flags the block leaves
/// (liveness, the least fixpoint over the successor lists).
fn flags_live_out(f: &Function) -> Vec<bool> {
    let effect: Vec<FlagsIn> = f.blocks.iter().map(|b| flags_effect(&b.insts)).collect();
    let succs = f.successor_lists();
    let mut live_out = vec![false; f.blocks.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..f.blocks.len()).rev() {
            let live = succs[b].iter().any(|&s| match effect[s] {
                FlagsIn::Read => true,
                FlagsIn::Written => false,
                FlagsIn::Through => live_out[s],
            });
            if live && !live_out[b] {
                live_out[b] = true;
                changed = true;
            }
        }
    }
    live_out
}

/// `mov d, s` whose next instruction reads `d` and then overwrites all of
/// it without reading it again (a load through `d` into `d`, an extension
/// of `d` into `d`): that instruction reads `s` instead and the copy goes.
fn forward_copy(insts: &mut Vec<Inst>) {
    fold_copy_into_next(insts, |insts, j, d, s| {
        let next = &insts[j].kind;
        let (mut reads, mut defines, mut other) = (false, false, false);
        next.visit_regs(&mut |r, access| {
            if r == d {
                match access {
                    Access::Use => reads = true,
                    Access::Def => defines = true,
                    Access::UseDef => other = true,
                }
            }
        });
        let simple = matches!(
            next,
            InstKind::Load { .. }
                | InstKind::Extend { .. }
                | InstKind::Lea { .. }
                | InstKind::Lea32 { .. }
        );
        // rsp cannot be an index register.
        let rsp = Reg::Phys(PhysReg::Gpr(super::mir::Gpr::Rsp));
        if s == rsp || !simple || !reads || !defines || other {
            return None;
        }
        let mut kind = next.clone();
        kind.visit_regs_mut(&mut |r, access| {
            if *r == d && access == Access::Use {
                *r = s;
            }
        });
        Some(kind)
    });
}

/// Removes each general-purpose copy `mov d, s` (d ≠ s) whose next
/// non-debug instruction `rewrite(insts, j, d, s)` can turn into one that
/// does the copy's work itself: it returns that instruction's new kind, or
/// None to keep the copy. Debug values between the two that name `d` name
/// `s` instead.
fn fold_copy_into_next(
    insts: &mut Vec<Inst>,
    rewrite: impl Fn(&[Inst], usize, Reg, Reg) -> Option<InstKind>,
) {
    let mut i = 0;
    while i < insts.len() {
        let InstKind::Copy {
            dst: d @ Reg::Phys(PhysReg::Gpr(_)),
            src: s,
        } = insts[i].kind
        else {
            i += 1;
            continue;
        };
        let Some(j) = (i + 1..insts.len()).find(|&j| !insts[j].is_debug()) else {
            break;
        };
        let Some(kind) = (d != s).then(|| rewrite(insts, j, d, s)).flatten() else {
            i += 1;
            continue;
        };
        insts[j].kind = kind;
        rename_in_debug_values(&mut insts[i + 1..j], d, s);
        insts.remove(i);
    }
}

/// Debug values of `insts` naming `from` name `to` instead.
fn rename_in_debug_values(insts: &mut [Inst], from: Reg, to: Reg) {
    for inst in insts {
        if let InstKind::DbgValue(value) = &mut inst.kind {
            for operand in &mut value.operands {
                if *operand == DbgOperand::Reg(from) {
                    *operand = DbgOperand::Reg(to);
                }
            }
        }
    }
}

/// `mov d, s; add d, x` → `lea d, [s + x]` and `mov d, s; and d, 0xff`
/// → `movzx d32, s8` (likewise `0xffff`) where the flags are dead
/// (`live_out`: whether they are live at the block's end).
fn fuse_copy_op(insts: &mut Vec<Inst>, live_out: bool) {
    fold_copy_into_next(insts, |insts, j, d, s| {
        let kind = &insts[j].kind;
        lea_of(kind, d, s)
            .or_else(|| zero_extension_of(kind, d, s))
            .filter(|_| flags_dead_after(insts, j, live_out))
    });
}

/// The zero extension computing what `and d, 0xff` / `0xffff` `kind`
/// leaves in `d` when `d` started as a copy of `s` (a 32-bit destination
/// clears the upper half as a 64-bit `and` does).
fn zero_extension_of(kind: &InstKind, d: Reg, s: Reg) -> Option<InstKind> {
    let InstKind::Alu {
        op: AluOp::And,
        width: Width::W32 | Width::W64,
        dst,
        src: Rmi::Imm(mask),
    } = kind
    else {
        return None;
    };
    let from = match mask {
        0xff => Width::W8,
        0xffff => Width::W16,
        _ => return None,
    };
    (*dst == d).then_some(InstKind::Extend {
        dst: d,
        src: Rm::Reg(s),
        from,
        to: Width::W32,
        signed: false,
    })
}

/// The `lea` computing what `add`/`sub` `kind` leaves in `d` when `d`
/// started as a copy of `s`.
fn lea_of(kind: &InstKind, d: Reg, s: Reg) -> Option<InstKind> {
    let InstKind::Alu {
        op,
        width,
        dst,
        src,
    } = kind
    else {
        return None;
    };
    if *dst != d || !matches!(width, Width::W32 | Width::W64) {
        return None;
    }
    let addr = match (op, src) {
        (AluOp::Add, Rmi::Imm(c)) => Address::reg(s, *c),
        (AluOp::Sub, Rmi::Imm(c)) if *c != i32::MIN => Address::reg(s, -*c),
        (AluOp::Add, Rmi::Reg(r)) if *r != d => Address {
            base: AddressBase::Reg(s),
            index: Some((*r, 1)),
            disp: 0,
        },
        _ => return None,
    };
    Some(match width {
        Width::W32 => InstKind::Lea32 { dst: d, addr },
        _ => InstKind::Lea { dst: d, addr },
    })
}

/// Whether the flags written by `insts[at]` are dead: before anything of
/// the block reads them, an instruction overwrites them without reading
/// them, or the function returns, or the block ends with them dead
/// (`live_out` false). An instruction not known to leave the flags unread
/// counts as reading them.
fn flags_dead_after(insts: &[Inst], at: usize, live_out: bool) -> bool {
    match flags_effect(&insts[at + 1..]) {
        FlagsIn::Read => false,
        FlagsIn::Written => true,
        FlagsIn::Through => !live_out,
    }
}

/// `jcc t` then (falling through) a block of only `jmp other` that
/// nothing else reaches, `t` next: `j!cc other`, the `jmp` removed.
fn branch_over_jump_blocks(f: &mut Function) {
    let n = f.blocks.len();
    let mut targeted = vec![false; n];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let InstKind::Jmp { target }
        | InstKind::Jcc { target, .. }
        | InstKind::Call {
            unwind: Some(target),
            ..
        } = inst.kind
        {
            targeted[target.0 as usize] = true;
        }
    }
    for table in &f.jump_tables {
        for target in table {
            targeted[target.0 as usize] = true;
        }
    }
    let code = |f: &Function, b: usize| -> Vec<usize> {
        let insts = &f.blocks[b].insts;
        (0..insts.len()).filter(|&i| !insts[i].is_debug()).collect()
    };
    for a in 0..n {
        let Some(&jcc) = code(f, a).last() else {
            continue;
        };
        let InstKind::Jcc { cond, target } = f.blocks[a].insts[jcc].kind else {
            continue;
        };
        // The block with code that `a` falls into, through empty blocks
        // nothing branches to.
        let Some(b) = (a + 1..n).find(|&b| targeted[b] || !code(f, b).is_empty()) else {
            continue;
        };
        if targeted[b] {
            continue;
        }
        let jump = code(f, b);
        let [only] = jump[..] else { continue };
        let InstKind::Jmp { target: other } = f.blocks[b].insts[only].kind else {
            continue;
        };
        // `t` must be where execution goes on once the `jmp` is gone (right
        // after: the debug values of an empty block between would describe
        // its own predecessors, not `a`).
        if target.0 as usize != b + 1 || other == target {
            continue;
        }
        f.blocks[a].insts[jcc].kind = InstKind::Jcc {
            cond: cond.invert(),
            target: other,
        };
        f.blocks[b].insts.remove(only);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{BlockId, Cond, DbgOperands, DbgValue, Gpr};

    fn gpr(g: Gpr) -> Reg {
        Reg::Phys(PhysReg::Gpr(g))
    }

    fn block(kinds: Vec<InstKind>) -> Vec<Inst> {
        kinds.into_iter().map(|k| Inst::new(k, 0)).collect()
    }

    fn debug_in(reg: Reg) -> InstKind {
        InstKind::DbgValue(DbgValue {
            variable: 0,
            operands: DbgOperands::one(DbgOperand::Reg(reg)),
            expr: 0,
            indirect: false,
            moved: false,
        })
    }

    fn copy_add(width: Width, then: InstKind) -> Vec<Inst> {
        block(vec![
            InstKind::Copy {
                dst: gpr(Gpr::Rax),
                src: gpr(Gpr::Rdi),
            },
            debug_in(gpr(Gpr::Rax)),
            InstKind::Alu {
                op: AluOp::Add,
                width,
                dst: gpr(Gpr::Rax),
                src: Rmi::Imm(1),
            },
            then,
        ])
    }

    #[test]
    fn copy_then_add_becomes_lea_when_the_flags_are_dead() {
        let cmp = InstKind::Cmp {
            width: Width::W32,
            lhs: Rm::Reg(gpr(Gpr::Rax)),
            rhs: Rmi::Imm(3),
        };
        let mut insts = copy_add(Width::W32, cmp.clone());
        fuse_copy_op(&mut insts, true);
        let kinds: Vec<InstKind> = insts.into_iter().map(|i| i.kind).collect();
        assert_eq!(
            kinds,
            vec![
                // The debug value between now names the copy's source.
                debug_in(gpr(Gpr::Rdi)),
                InstKind::Lea32 {
                    dst: gpr(Gpr::Rax),
                    addr: Address::reg(gpr(Gpr::Rdi), 1),
                },
                cmp,
            ]
        );
        let mut insts = copy_add(Width::W64, InstKind::Ret { uses: vec![] });
        fuse_copy_op(&mut insts, true);
        assert!(matches!(insts[1].kind, InstKind::Lea { .. }));
    }

    #[test]
    fn the_add_stays_when_its_flags_may_be_read() {
        for then in [
            InstKind::Jcc {
                cond: Cond::E,
                target: BlockId(1),
            },
            InstKind::Jmp { target: BlockId(1) },
            InstKind::Setcc {
                cond: Cond::B,
                dst: gpr(Gpr::Rcx),
            },
        ] {
            let mut insts = copy_add(Width::W64, then);
            let before = insts.clone();
            fuse_copy_op(&mut insts, true);
            assert_eq!(insts, before);
        }
    }

    #[test]
    fn copy_then_low_mask_becomes_movzx_when_the_flags_are_dead() {
        let copy_and = |width: Width, mask: i32, then: InstKind| {
            block(vec![
                InstKind::Copy {
                    dst: gpr(Gpr::Rax),
                    src: gpr(Gpr::Rsi),
                },
                debug_in(gpr(Gpr::Rax)),
                InstKind::Alu {
                    op: AluOp::And,
                    width,
                    dst: gpr(Gpr::Rax),
                    src: Rmi::Imm(mask),
                },
                then,
            ])
        };
        let ret = InstKind::Ret { uses: vec![] };
        for (width, mask, from) in [
            (Width::W32, 0xffff, Width::W16),
            (Width::W64, 0xff, Width::W8),
        ] {
            let mut insts = copy_and(width, mask, ret.clone());
            fuse_copy_op(&mut insts, true);
            let kinds: Vec<InstKind> = insts.into_iter().map(|i| i.kind).collect();
            assert_eq!(
                kinds,
                vec![
                    debug_in(gpr(Gpr::Rsi)),
                    InstKind::Extend {
                        dst: gpr(Gpr::Rax),
                        src: Rm::Reg(gpr(Gpr::Rsi)),
                        from,
                        to: Width::W32,
                        signed: false,
                    },
                    ret.clone(),
                ]
            );
        }
        // Other masks, and an `and` whose flags a jump reads, stay.
        for (mask, then) in [
            (0x7f, ret.clone()),
            (
                0xff,
                InstKind::Jcc {
                    cond: Cond::E,
                    target: BlockId(1),
                },
            ),
        ] {
            let mut insts = copy_and(Width::W32, mask, then);
            let before = insts.clone();
            fuse_copy_op(&mut insts, true);
            assert_eq!(insts, before);
        }
    }

    #[test]
    fn flags_live_across_blocks_only_where_a_successor_reads_them() {
        // Block 0 jumps to 1, which reads the flags (jcc); block 2 jumps to
        // 3, which overwrites them; block 4 jumps to 5, which passes them on
        // to 1 through its own jump.
        let mut f = Function::new("f");
        let jmp = |t: u32| InstKind::Jmp { target: BlockId(t) };
        let jcc = InstKind::Jcc {
            cond: Cond::E,
            target: BlockId(3),
        };
        let cmp = InstKind::Cmp {
            width: Width::W64,
            lhs: Rm::Reg(gpr(Gpr::Rax)),
            rhs: Rmi::Imm(0),
        };
        let copy = InstKind::Copy {
            dst: gpr(Gpr::Rcx),
            src: gpr(Gpr::Rax),
        };
        for kinds in [
            vec![jmp(1)],
            vec![jcc, InstKind::Ret { uses: vec![] }],
            vec![jmp(3)],
            vec![cmp, InstKind::Ret { uses: vec![] }],
            vec![jmp(5)],
            vec![copy, jmp(1)],
        ] {
            let b = f.new_block();
            f.blocks[b.0 as usize].insts = block(kinds);
        }
        assert_eq!(
            flags_live_out(&f),
            vec![true, false, false, false, true, true]
        );
        // At the end of a block whose successors overwrite them, an `add`'s
        // flags are dead.
        let mut insts = copy_add(Width::W64, jmp(3));
        fuse_copy_op(&mut insts, false);
        assert!(matches!(insts[1].kind, InstKind::Lea { .. }));
    }

    #[test]
    fn a_copy_read_once_to_be_overwritten_is_forwarded() {
        let load = |index: Gpr| InstKind::Load {
            dst: gpr(Gpr::Rax),
            addr: Address {
                base: AddressBase::Reg(gpr(Gpr::Rbx)),
                index: Some((gpr(index), 4)),
                disp: 0,
            },
            width: Width::W32,
        };
        let mut insts = block(vec![
            InstKind::Copy {
                dst: gpr(Gpr::Rax),
                src: gpr(Gpr::Rdx),
            },
            debug_in(gpr(Gpr::Rax)),
            load(Gpr::Rax),
        ]);
        forward_copy(&mut insts);
        let kinds: Vec<InstKind> = insts.into_iter().map(|i| i.kind).collect();
        assert_eq!(kinds, vec![debug_in(gpr(Gpr::Rdx)), load(Gpr::Rdx)]);
        // A byte load keeps the rest of `d`: the copy stays.
        let mut insts = block(vec![
            InstKind::Copy {
                dst: gpr(Gpr::Rax),
                src: gpr(Gpr::Rdx),
            },
            InstKind::Load {
                dst: gpr(Gpr::Rax),
                addr: Address::reg(gpr(Gpr::Rax), 0),
                width: Width::W8,
            },
        ]);
        let before = insts.clone();
        forward_copy(&mut insts);
        assert_eq!(insts, before);
    }

    #[test]
    fn a_branch_over_a_lone_jump_is_inverted() {
        let mut f = Function::new("f");
        for _ in 0..4 {
            f.new_block();
        }
        f.blocks[0].insts = block(vec![InstKind::Jcc {
            cond: Cond::E,
            target: BlockId(2),
        }]);
        f.blocks[1].insts = block(vec![InstKind::Jmp { target: BlockId(3) }]);
        f.blocks[2].insts = block(vec![InstKind::Ud2]);
        f.blocks[3].insts = block(vec![InstKind::Ret { uses: vec![] }]);
        let mut reached = f.clone();
        branch_over_jump_blocks(&mut f);
        assert_eq!(
            f.blocks[0].insts[0].kind,
            InstKind::Jcc {
                cond: Cond::Ne,
                target: BlockId(3),
            }
        );
        assert!(f.blocks[1].insts.is_empty());
        // Not when another branch reaches the jump block.
        reached.blocks[2].insts = block(vec![InstKind::Jmp { target: BlockId(1) }]);
        let before = reached.clone();
        branch_over_jump_blocks(&mut reached);
        assert_eq!(reached, before);
    }
}
