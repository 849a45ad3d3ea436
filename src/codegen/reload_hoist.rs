//! Loop-invariant spill reloads hoisted into free registers, after
//! allocation.
//!
//! In: an allocated MIR function (physical registers and spill code, its
//! blocks in selection order). Out: the same function where a natural
//! loop that reads a general-purpose spill slot and never writes it reads
//! a register instead, if some allocatable register is untouched by every
//! instruction of the loop (explicitly or implicitly) and dead on entry to
//! its header: the register is loaded from the slot on every edge into the
//! header from outside (before the jump of an entering block whose only
//! successor is the header, else in a new block on the edge), a reload
//! from the slot in the loop becomes a copy from the register, and a slot
//! operand the register. A copy whose destination is then only read before
//! being written or the end of its block (and is dead there) goes, its
//! readers reading the hoisted register.
//!
//! Why: the linear scan spills a value whole, so a value a loop only reads
//! (a base pointer, a bound) is reloaded on every iteration even where the
//! loop leaves registers unused; the slot holds the value the whole loop
//! long, so one load per entry serves every iteration.
//!
//! Rule: loops are taken outermost first (an outer loop's register serves
//! the loops inside it too); in a loop, slots in decreasing weight of their
//! reads ([`super::regalloc`]'s block weights), each taking the first free
//! register among the caller-saved ones, then the callee-saved ones the
//! function already writes (saved anyway), then the rest. Only reload
//! (`mov` of the whole slot) and operand forms the encoder reads as a
//! register are rewritten; a slot the loop accesses any other way stays.
//! Debug values are untouched (the slot still holds the value) except
//! where a deleted copy's destination was named: they name the hoisted
//! register, which holds the same value. Decisions read non-debug
//! instructions only, so code is the same with and without debug
//! information.

use super::liveness::{self, PhysLiveness};
use super::loop_depth::{depths_of, natural_loops, NaturalLoop};
use super::mir::{
    Access, Address, AddressBase, BlockId, DbgOperand, Function, Inst, InstKind, PhysReg, Reg,
    RegClass, Rm, Rmi, StackSlotId, Width,
};
use crate::x86::abi::{allocation_order, CALLEE_SAVED};
use crate::x86::regs::{GprSet, RegSet};

/// Hoists loop-invariant spill reloads of the allocated `f` (see the module
/// doc).
pub fn run(f: &mut Function) {
    let is_spill = f.spill_slot_mask();
    if !is_spill.contains(&true) {
        return;
    }
    let loops = natural_loops(f);
    if loops.is_empty() {
        return;
    }
    let n = f.blocks.len();
    let weights: Vec<u64> = depths_of(&loops, n)
        .into_iter()
        .map(super::regalloc::depth_weight)
        .collect();
    let order = allocation_order(RegClass::General, f.omits_frame_pointer);
    let mut live = None;
    // Registers made live in each block by earlier hoists.
    let mut hoisted_live = vec![RegSet::EMPTY; n];
    let mut successors = f.successor_lists();
    let mut written = super::regalloc::callee_saved_written(f);
    for l in &loops {
        // Copies a hoist deletes may free more registers.
        loop {
            // Every block of now, edge blocks added by earlier hoists too
            // (this loop's included: the search for entering blocks reads
            // them all). An edge block lies in no loop taken later: it
            // jumps only to the header of the loop it was made for, which
            // only that loop and the loops around it (taken before it)
            // contain.
            let mut inside = vec![false; f.blocks.len()];
            for &b in &l.blocks {
                inside[b] = true;
            }
            let mut state = State {
                weights: &weights,
                is_spill: &is_spill,
                order: &order,
                live: &mut live,
                hoisted_live: &mut hoisted_live,
                successors: &mut successors,
                written: &mut written,
            };
            if !hoist_in_loop(f, l, &inside, &mut state) {
                break;
            }
        }
    }
}

/// What [`hoist_in_loop`] reads and keeps across loops.
struct State<'a> {
    weights: &'a [u64],
    is_spill: &'a [bool],
    order: &'a [PhysReg],
    /// The liveness of the function before any hoist, once needed.
    live: &'a mut Option<PhysLiveness>,
    /// Registers made live in each block by earlier hoists.
    hoisted_live: &'a mut Vec<RegSet>,
    /// Each block's successors, kept up to date as edge blocks are added.
    successors: &'a mut Vec<Vec<usize>>,
    /// The callee-saved registers the code writes so far.
    written: &'a mut GprSet,
}

/// Hoists the slots loop `l` (its blocks marked in `inside`) only reads
/// into the registers free in it; returns whether it hoisted any.
fn hoist_in_loop(f: &mut Function, l: &NaturalLoop, inside: &[bool], state: &mut State) -> bool {
    let State {
        weights,
        is_spill,
        order,
        live,
        hoisted_live,
        successors,
        written,
    } = state;
    // Read slots with their weights; slots accessed otherwise.
    let mut reads: Vec<(StackSlotId, u64)> = Vec::new();
    let mut blocked: Vec<StackSlotId> = Vec::new();
    let mut touched = RegSet::EMPTY;
    for &b in &l.blocks {
        for inst in f.blocks[b].insts.iter_mut().filter(|i| !i.is_debug()) {
            touched = touched
                .union(inst.kind.implicit_uses())
                .union(inst.kind.implicit_defs());
            inst.kind.visit_regs(&mut |r, _| {
                if let Reg::Phys(p) = r {
                    touched.insert(p);
                }
            });
            let slots = inst.kind.slots_addressed();
            match slot_read(&inst.kind) {
                Some(s) if slots == [s] && is_spill[s.0 as usize] => {
                    match reads.iter_mut().find(|r| r.0 == s) {
                        Some(r) => r.1 += weights[b],
                        None => reads.push((s, weights[b])),
                    }
                }
                _ => blocked.extend(slots),
            }
        }
    }
    reads.retain(|r| !blocked.contains(&r.0));
    if reads.is_empty() {
        return false;
    }
    let live = live.get_or_insert_with(|| liveness::physical(f));
    let header = l.header;
    let free: Vec<PhysReg> = order
        .iter()
        .copied()
        .filter(|&p| {
            !touched.contains(p)
                && !hoisted_live[header].contains(p)
                && !live.live_in[header].contains(p)
        })
        .collect();
    if free.is_empty() {
        return false;
    }
    let rank = |p: PhysReg| {
        let callee = p.gpr().is_some_and(|g| CALLEE_SAVED.contains(g));
        let saved = p.gpr().is_some_and(|g| written.contains(g));
        (callee, callee && !saved)
    };
    let mut free = free;
    free.sort_by_key(|&p| rank(p));
    reads.sort_by_key(|r| (std::cmp::Reverse(r.1), r.0));
    let entries: Vec<usize> = successors
        .iter()
        .enumerate()
        .filter(|&(p, succs)| !inside[p] && succs.contains(&header))
        .map(|(p, _)| p)
        .collect();
    if entries.iter().any(|&p| by_table(f, p)) {
        return false;
    }
    // Where the loads go: the end of each entering block, or a block
    // of its own on the edge.
    let places: Vec<usize> = entries
        .iter()
        .map(|&p| {
            if successors[p] == [header] {
                p
            } else {
                let middle = edge_block(f, p, header);
                hoisted_live.push(RegSet::EMPTY);
                for s in &mut successors[p] {
                    if *s == header {
                        *s = middle;
                    }
                }
                successors.push(vec![header]);
                middle
            }
        })
        .collect();
    for (&(slot, _), &reg) in reads.iter().zip(&free) {
        let r = Reg::Phys(reg);
        if let Some(g) = reg.gpr().filter(|&g| CALLEE_SAVED.contains(g)) {
            written.insert(g);
        }
        for &place in &places {
            f.blocks[place].insert_before_jumps(InstKind::Load {
                dst: r,
                addr: Address::slot(slot, 0),
                width: Width::W64,
            });
        }
        for &b in &l.blocks {
            hoisted_live[b].insert(reg);
            for inst in &mut f.blocks[b].insts {
                if slot_read(&inst.kind) == Some(slot) {
                    read_register(&mut inst.kind, r);
                }
            }
            let live_out = |g: Reg| matches!(g, Reg::Phys(p) if live.live_out[b].contains(p));
            drop_copies_of(&mut f.blocks[b].insts, r, &live_out);
        }
    }
    true
}

/// Whether block `b` ends in a jump through a table.
fn by_table(f: &Function, b: usize) -> bool {
    f.blocks[b]
        .insts
        .iter()
        .any(|i| matches!(i.kind, InstKind::JmpIndirect { .. }))
}

/// The slot `kind` only reads in a form [`read_register`] rewrites: a
/// whole-slot reload, or a whole-slot source operand.
fn slot_read(kind: &InstKind) -> Option<StackSlotId> {
    let whole = |a: &Address| match a {
        Address {
            base: AddressBase::Slot(s),
            index: None,
            disp: 0,
        } => Some(*s),
        _ => None,
    };
    match kind {
        InstKind::Load {
            dst: Reg::Phys(PhysReg::Gpr(_)),
            addr,
            width: Width::W64,
        } => whole(addr),
        InstKind::Alu {
            src: Rmi::Mem(a), ..
        }
        | InstKind::Cmp {
            rhs: Rmi::Mem(a), ..
        } => whole(a),
        InstKind::Cmp {
            lhs: Rm::Mem(a), ..
        }
        | InstKind::Test {
            lhs: Rm::Mem(a), ..
        }
        | InstKind::Cmov {
            src: Rm::Mem(a), ..
        }
        | InstKind::Imul {
            src: Rm::Mem(a), ..
        }
        | InstKind::ImulImm {
            src: Rm::Mem(a), ..
        }
        | InstKind::Extend {
            src: Rm::Mem(a), ..
        } => whole(a),
        _ => None,
    }
}

/// Rewrites the slot read [`slot_read`] found to read `r` instead.
fn read_register(kind: &mut InstKind, r: Reg) {
    match kind {
        InstKind::Load { dst, .. } => *kind = InstKind::Copy { dst: *dst, src: r },
        InstKind::Alu { src, .. }
        | InstKind::Cmp {
            rhs: src @ Rmi::Mem(_),
            ..
        } => *src = Rmi::Reg(r),
        InstKind::Cmp { lhs: src, .. }
        | InstKind::Test { lhs: src, .. }
        | InstKind::Cmov { src, .. }
        | InstKind::Imul { src, .. }
        | InstKind::ImulImm { src, .. }
        | InstKind::Extend { src, .. } => *src = Rm::Reg(r),
        _ => {}
    }
}

/// Deletes each copy `d ← r` in `insts` whose destination is only read
/// (explicitly) after it until it is written or the block ends where
/// `live_out(d)` is false; its readers, debug values included, read `r`.
/// `r` is never written in `insts`.
fn drop_copies_of(insts: &mut Vec<Inst>, r: Reg, live_out: &dyn Fn(Reg) -> bool) {
    let mut i = 0;
    while i < insts.len() {
        let InstKind::Copy { dst, src } = insts[i].kind else {
            i += 1;
            continue;
        };
        if src != r || dst == r {
            i += 1;
            continue;
        }
        let Reg::Phys(d) = dst else {
            i += 1;
            continue;
        };
        // How far the copied value is read, and whether it is needed after.
        let mut end = insts.len();
        let mut needed = None;
        for (j, inst) in insts.iter().enumerate().skip(i + 1) {
            if inst.is_debug() {
                continue;
            }
            let mut used = false;
            let mut written = false;
            inst.kind.visit_regs(&mut |x, a| {
                if x == dst {
                    used |= a != Access::Def;
                    written |= a != Access::Use;
                }
            });
            let implicit_use = inst.kind.implicit_uses().contains(d);
            let implicit_def = inst.kind.implicit_defs().contains(d);
            if implicit_use || (used && written) {
                needed = Some(true);
                break;
            }
            if written || implicit_def {
                end = j;
                needed = Some(false);
                break;
            }
        }
        let needed = needed.unwrap_or_else(|| live_out(dst));
        if needed {
            i += 1;
            continue;
        }
        // Readers up to and including the instruction that writes `d`
        // (its address operands read the old value).
        let last = end.min(insts.len() - 1);
        for inst in &mut insts[i + 1..=last] {
            rename_reads(&mut inst.kind, dst, r);
        }
        insts.remove(i);
    }
}

/// Renames the reads of `from` in `kind` (operands and addresses, or debug
/// operands) to `to`; writes stay.
fn rename_reads(kind: &mut InstKind, from: Reg, to: Reg) {
    if let InstKind::DbgValue(d) = kind {
        for op in &mut d.operands {
            if *op == DbgOperand::Reg(from) {
                *op = DbgOperand::Reg(to);
            }
        }
        return;
    }
    kind.visit_regs_mut(&mut |x, a| {
        if *x == from && a == Access::Use {
            *x = to;
        }
    });
}

/// Puts a new block on the edge `from → to` (jumps and a fall-through
/// from `from` to `to` now reach it; it jumps to `to`) and returns it. A
/// branch weight recorded for the edge moves to the new one.
fn edge_block(f: &mut Function, from: usize, to: usize) -> usize {
    let falls = f.falls_through(BlockId(from as u32)) && from + 1 == to;
    let middle = f.new_block();
    let target = BlockId(to as u32);
    let loc = f.blocks[from]
        .insts
        .iter()
        .rev()
        .find(|i| !i.is_debug())
        .map_or(0, |i| i.loc);
    for inst in &mut f.blocks[from].insts {
        match &mut inst.kind {
            InstKind::Jcc { target: t, .. } | InstKind::Jmp { target: t } if *t == target => {
                *t = middle;
            }
            _ => {}
        }
    }
    if falls {
        f.blocks[from]
            .insts
            .push(Inst::new(InstKind::Jmp { target: middle }, loc));
    }
    f.blocks[middle.0 as usize]
        .insts
        .push(Inst::new(InstKind::Jmp { target }, loc));
    for w in &mut f.edge_weights {
        if w.from.0 as usize == from && w.to == target {
            w.to = middle;
        }
    }
    middle.0 as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::StackSlotKind;
    use crate::codegen::mir::{AluOp, Block, Cond, Gpr};

    fn inst(kind: InstKind) -> Inst {
        Inst::new(kind, 0)
    }

    fn gpr(g: Gpr) -> Reg {
        Reg::Phys(PhysReg::Gpr(g))
    }

    /// `rax += src`.
    fn add(src: Rmi) -> InstKind {
        InstKind::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst: gpr(Gpr::Rax),
            src,
        }
    }

    /// The entry block: `slot = rdi; rax = 0`, then `jumps`.
    fn entry(slot: StackSlotId, jumps: Vec<Inst>) -> Block {
        let mut insts = vec![
            inst(InstKind::Store {
                src: crate::codegen::mir::Ri::Reg(gpr(Gpr::Rdi)),
                addr: Address::slot(slot, 0),
                width: Width::W64,
            }),
            inst(InstKind::MovImm {
                dst: gpr(Gpr::Rax),
                imm: 0,
                width: Width::W64,
            }),
        ];
        insts.extend(jumps);
        Block { insts }
    }

    #[test]
    fn a_slot_a_loop_only_reads_is_loaded_once_into_a_free_register() {
        // bb0: slot = rdi; rax = 0 (jump to the loop)
        // bb1: rdx = slot; rax += rdx; rax += slot; cmp rax, 100; jl bb1
        // bb2: ret rax
        let mut f = Function::new("f");
        let slot = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        let at = || Address::slot(slot, 0);
        f.blocks = vec![
            entry(slot, vec![inst(InstKind::Jmp { target: BlockId(1) })]),
            Block {
                insts: vec![
                    inst(InstKind::Load {
                        dst: gpr(Gpr::Rdx),
                        addr: at(),
                        width: Width::W64,
                    }),
                    inst(add(Rmi::Reg(gpr(Gpr::Rdx)))),
                    inst(add(Rmi::Mem(at()))),
                    inst(InstKind::Cmp {
                        width: Width::W64,
                        lhs: Rm::Reg(gpr(Gpr::Rax)),
                        rhs: Rmi::Imm(100),
                    }),
                    inst(InstKind::Jcc {
                        cond: Cond::L,
                        target: BlockId(1),
                    }),
                ],
            },
            Block {
                insts: vec![inst(InstKind::Ret {
                    uses: vec![PhysReg::Gpr(Gpr::Rax)],
                })],
            },
        ];
        run(&mut f);
        // rcx is the first register the loop leaves alone: loaded before
        // the entry's jump, read by both adds; the reload's copy is gone.
        let rcx = gpr(Gpr::Rcx);
        assert_eq!(
            f.blocks[0].insts[2].kind,
            InstKind::Load {
                dst: rcx,
                addr: at(),
                width: Width::W64
            }
        );
        let kinds: Vec<InstKind> = f.blocks[1].insts.iter().map(|i| i.kind.clone()).collect();
        assert_eq!(kinds[..2], [add(Rmi::Reg(rcx)), add(Rmi::Reg(rcx))]);
        assert_eq!(kinds.len(), 4);
    }

    #[test]
    fn a_loop_taken_after_an_edge_block_was_added_is_hoisted_too() {
        // bb0: slot = rdi; rax = 0; je bb2; jmp bb1
        // bb1: rax += slot; cmp rax, 100; jl bb1; jmp bb2
        // bb2: rax += slot; cmp rax, 200; jl bb2; jmp bb3
        // bb3: ret rax
        // bb0 -> bb1 needs an edge block (bb4) for the first loop; the
        // search for the second loop's entering blocks then reads bb4.
        let mut f = Function::new("f");
        let slot = f.new_stack_slot(8, 8, StackSlotKind::Spill);
        let at = || Address::slot(slot, 0);
        let counted_loop = |me: u32, bound: i32| Block {
            insts: vec![
                inst(add(Rmi::Mem(at()))),
                inst(InstKind::Cmp {
                    width: Width::W64,
                    lhs: Rm::Reg(gpr(Gpr::Rax)),
                    rhs: Rmi::Imm(bound),
                }),
                inst(InstKind::Jcc {
                    cond: Cond::L,
                    target: BlockId(me),
                }),
                inst(InstKind::Jmp {
                    target: BlockId(me + 1),
                }),
            ],
        };
        f.blocks = vec![
            entry(
                slot,
                vec![
                    inst(InstKind::Jcc {
                        cond: Cond::E,
                        target: BlockId(2),
                    }),
                    inst(InstKind::Jmp { target: BlockId(1) }),
                ],
            ),
            counted_loop(1, 100),
            counted_loop(2, 200),
            Block {
                insts: vec![inst(InstKind::Ret {
                    uses: vec![PhysReg::Gpr(Gpr::Rax)],
                })],
            },
        ];
        run(&mut f);
        // Both loops read rcx, loaded on each edge into their headers.
        let rcx = gpr(Gpr::Rcx);
        for b in [1, 2] {
            assert_eq!(f.blocks[b].insts[0].kind, add(Rmi::Reg(rcx)), "bb{b}");
        }
        let load = InstKind::Load {
            dst: rcx,
            addr: at(),
            width: Width::W64,
        };
        let loads = f
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter(|i| i.kind == load)
            .count();
        // bb0 -> bb1 and bb0 -> bb2 through edge blocks, bb1 -> bb2 in bb1.
        assert_eq!(loads, 3);
    }
}
