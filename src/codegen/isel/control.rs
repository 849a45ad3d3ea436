//! Control flow: branches, phi elimination on edges (edge blocks for
//! critical edges, two-phase copies for swaps), switches as binary
//! searches over case runs with jump tables for dense ones, and
//! `indirectbr` (computed goto) as `jmp` through a register.
//!
//! An `indirectbr` edge cannot get an edge block (the address names the
//! block itself), so a destination's phis take their values as LLVM's phi
//! elimination gives them: every predecessor writes an incoming register
//! of the phi, and the block copies it into the phi's register first.
//! Writing another destination's incoming register is then harmless,
//! since it is read only at that block's entry.
//!
//! A conditional branch on an `i1` `and`/`or` (or its `select` form,
//! `select a, true, b` / `select a, b, false`) that nothing else uses,
//! computed in the branch's block, is a chain of conditional jumps, as
//! LLVM's selection splits such conditions: `or a, b` jumps to the true
//! side when `a` holds, then tests `b`; `and a, b` jumps to the false side
//! when `a` fails, then tests `b`. The operands' single-use integer
//! compares are fused into the jumps, so no boolean is ever materialised.
//! Both operands are side-effect free values, so testing the second only
//! when the first does not decide is what the IR means (a `select` form
//! even promises it).
//!
//! In: IR terminators and phis. Out: MIR jumps, compares, copies and jump
//! tables, and a conditional branch's `!prof` branch weights as the
//! [`EdgeWeight`]s of its block (block placement reads them).

use super::*;
use crate::codegen::mir::EdgeWeight;
use crate::ir::debug::{MdOperand, MdRef};

/// Where a phi copy of [`Selector::phi_copies`] takes its value from.
enum Source {
    /// The phi's own register: no copy.
    Same,
    /// A register (or a temporary saving one another copy overwrites).
    Reg(Reg),
    /// A value materialised straight into the phi (a constant, an argument).
    Value(Value),
    /// A folded GEP's address, computed into the phi by a `lea`.
    Address(Address),
}

/// The fewest cases worth a jump table.
pub(super) const JUMP_TABLE_MIN_CASES: usize = 4;

/// Splits sorted switch cases into runs: each run of at least
/// [`JUMP_TABLE_MIN_CASES`] cases whose span is at most three times its
/// number of cases (and at most 4096) becomes a jump table; every other
/// case is a run of its own, compared one by one. Greedy, left to right,
/// each table as long as it can be.
pub(super) fn switch_clusters(cases: &[(i64, MBlock)]) -> Vec<&[(i64, MBlock)]> {
    let dense = |run: &[(i64, MBlock)]| {
        let span = i128::from(run[run.len() - 1].0) - i128::from(run[0].0) + 1;
        span <= 3 * run.len() as i128
            && span <= 4096
            && i32::try_from(run[0].0).is_ok()
            && i32::try_from(run[run.len() - 1].0).is_ok()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < cases.len() {
        let mut best = i;
        for j in (i + JUMP_TABLE_MIN_CASES - 1)..cases.len() {
            if dense(&cases[i..=j]) {
                best = j;
            }
        }
        if best > i {
            out.push(&cases[i..=best]);
            i = best + 1;
        } else {
            out.push(&cases[i..=i]);
            i += 1;
        }
    }
    out
}

/// The branch-chain shape of instruction `id`: `(any, first, second)`, where
/// `any` says the value is true when either operand is (`or`, `select a,
/// true, b`) and not `any` that it is true when both are (`and`, `select a,
/// b, false`).
pub(super) fn logic_shape(f: &ir::Function, id: InstId) -> Option<(bool, &Value, &Value)> {
    let inst = f.inst(id);
    if inst.ty != Type::Int(1) {
        return None;
    }
    let constant = |v: &Value, bit: i128| match v {
        Value::Const(Constant::Int { value, .. }) => *value & 1 == bit,
        _ => false,
    };
    match &inst.kind {
        InstKind::Binary {
            op: op @ (BinOp::Or | BinOp::And),
            lhs,
            rhs,
            ..
        } => Some((*op == BinOp::Or, lhs, rhs)),
        InstKind::Select {
            cond,
            if_true,
            if_false,
        } if constant(if_true, 1) => Some((true, cond, if_false)),
        InstKind::Select {
            cond,
            if_true,
            if_false,
        } if constant(if_false, 0) => Some((false, cond, if_true)),
        _ => None,
    }
}

impl<'a> Selector<'a> {
    /// Marks each `and`/`or` tree a conditional branch tests (single-use
    /// nodes in the branch's block) as [`Lowering::BranchLogic`] and its
    /// single-use scalar integer compares as [`Lowering::FusedCompare`].
    /// Decided from non-debug uses only, like every fusion.
    pub(super) fn classify_branch_logic(&mut self, uses: &[u32], user: &[Option<InstId>]) {
        let f = self.f;
        for block in &f.blocks {
            let Some(&term) = block.insts.last() else {
                continue;
            };
            if let InstKind::CondBr {
                cond: Value::Inst(c),
                ..
            } = &f.inst(term).kind
            {
                if logic_shape(f, *c).is_some() {
                    self.mark_branch_logic(*c, term, None, uses, user);
                }
            }
        }
    }

    /// Marks `id`, used by `parent` only, as part of a branch chain.
    /// `jumps_when`: `Some(w)` for an operand whose chain jumps away when
    /// it equals `w` (an `or` inside an `or`'s first operand, an `and`
    /// inside an `and`'s: other nestings would need a block of their own),
    /// `None` for the test that ends the chain.
    fn mark_branch_logic(
        &mut self,
        id: InstId,
        parent: InstId,
        jumps_when: Option<bool>,
        uses: &[u32],
        user: &[Option<InstId>],
    ) {
        let f = self.f;
        let i = id.0 as usize;
        if uses[i] != 1
            || user[i] != Some(parent)
            || self.inst_block[i] != self.inst_block[parent.0 as usize]
            || self.lowering[i] != Lowering::Normal
        {
            return;
        }
        match logic_shape(f, id) {
            Some((any, first, second)) if jumps_when.is_none_or(|w| w == any) => {
                self.lowering[i] = Lowering::BranchLogic;
                if let Value::Inst(a) = first {
                    self.mark_branch_logic(*a, id, Some(any), uses, user);
                }
                if let Value::Inst(b) = second {
                    self.mark_branch_logic(*b, id, jumps_when, uses, user);
                }
            }
            None if matches!(f.inst(id).kind, InstKind::ICmp { .. })
                && f.inst(id).ty == Type::Int(1) =>
            {
                self.lowering[i] = Lowering::FusedCompare;
            }
            _ => {}
        }
    }

    /// Emits the leading jumps of the chain a branch on `cond` becomes
    /// (to `on_true` or `on_false`) and returns the value whose test ends it.
    fn branch_chain(
        &mut self,
        cond: &'a Value,
        on_true: MBlock,
        on_false: MBlock,
    ) -> Result<&'a Value, Diagnostic> {
        let mut v = cond;
        while let Value::Inst(id) = v {
            if self.lowering[id.0 as usize] != Lowering::BranchLogic {
                break;
            }
            let Some((any, first, second)) = logic_shape(self.f, *id) else {
                return Err(self.error("internal: branch logic is not and/or".into()));
            };
            self.jump_when(first, any, if any { on_true } else { on_false })?;
            v = second;
        }
        Ok(v)
    }

    /// Jumps to `target` when `v` equals `when`, falling through otherwise.
    fn jump_when(&mut self, v: &'a Value, when: bool, target: MBlock) -> Result<(), Diagnostic> {
        if let Value::Inst(id) = v {
            if self.lowering[id.0 as usize] == Lowering::BranchLogic {
                let Some((_, first, second)) = logic_shape(self.f, *id) else {
                    return Err(self.error("internal: branch logic is not and/or".into()));
                };
                self.jump_when(first, when, target)?;
                return self.jump_when(second, when, target);
            }
        }
        let cc = self.condition(v)?;
        self.emit(K::Jcc {
            cond: if when { cc } else { cc.invert() },
            target,
        });
        Ok(())
    }
}

impl Selector<'_> {
    /// Whether IR block `b` starts with phis.
    pub(super) fn has_phis(&self, b: ir::BlockId) -> bool {
        self.f.blocks[b.0 as usize]
            .insts
            .first()
            .is_some_and(|&i| matches!(self.f.inst(i).kind, InstKind::Phi { .. }))
    }

    /// Emits the copies that give `succ`'s phis their values for the edge
    /// from `pred`, into the current block.
    pub(super) fn phi_copies(&mut self, pred: u32, succ: ir::BlockId) -> Result<(), Diagnostic> {
        let mut moves = Vec::new();
        // Leaf copies of multi-register phis (see `aggregate`).
        let mut leaf_moves: Vec<(Reg, Reg)> = Vec::new();
        for &id in &self.f.blocks[succ.0 as usize].insts {
            let InstKind::Phi { incoming } = &self.f.inst(id).kind else {
                break;
            };
            let Some((value, _)) = incoming.iter().find(|(_, b)| b.0 == pred) else {
                continue;
            };
            if self.is_multi_register(&self.f.inst(id).ty) {
                let srcs = self.leaves(value)?;
                leaf_moves.extend(self.result_leaves(id)?.into_iter().zip(srcs));
            } else if matches!(self.f.inst(id).ty, Type::Int(_) | Type::Ptr)
                || fp::fp_size(&self.f.inst(id).ty).is_some()
            {
                let dst = match self.phi_incoming.get(&id.0) {
                    Some(&incoming) => incoming,
                    None => self.dst(id)?,
                };
                moves.push((dst, value.clone()));
            }
        }
        // A phi of this block read by another move is saved in a temporary
        // first (the parallel-copy problem: swaps, rotations); every other
        // value is copied or materialised straight into its phi.
        let written: Vec<Reg> = moves
            .iter()
            .map(|(dst, _)| *dst)
            .chain(leaf_moves.iter().map(|(dst, _)| *dst))
            .collect();
        let mut leaf_sources = Vec::with_capacity(leaf_moves.len());
        for &(dst, src) in &leaf_moves {
            leaf_sources.push(if src == dst {
                None
            } else if written.contains(&src) {
                let t = self
                    .mir
                    .new_vreg_of(self.mir.class_of(src), self.width_of(src));
                self.emit(K::Copy { dst: t, src });
                Some(t)
            } else {
                Some(src)
            });
        }
        let mut sources = Vec::with_capacity(moves.len());
        for (dst, value) in &moves {
            let source = match value {
                Value::Inst(id) if self.lowering[id.0 as usize] == Lowering::Normal => {
                    let src = self.dst(*id)?;
                    if src == *dst {
                        Source::Same
                    } else if written.contains(&src) {
                        let t = self
                            .mir
                            .new_vreg_of(self.mir.class_of(src), self.width_of(src));
                        self.emit(K::Copy { dst: t, src });
                        Source::Reg(t)
                    } else {
                        Source::Reg(src)
                    }
                }
                // A folded GEP: its `lea` reads registers, so it goes
                // straight into the phi only when no other move writes one
                // of them (else into a temporary, now).
                Value::Inst(id) if self.lowering[id.0 as usize] == Lowering::FoldedAddress => {
                    let addr = self.address(value)?;
                    let base = match addr.base {
                        AddressBase::Reg(r) => Some(r),
                        _ => None,
                    };
                    let clobbered = [base, addr.index.map(|(r, _)| r)]
                        .into_iter()
                        .flatten()
                        .any(|r| written.iter().any(|&w| w == r && w != *dst));
                    if clobbered {
                        let t = self.vreg(Width::W64);
                        self.emit(K::Lea { dst: t, addr });
                        Source::Reg(t)
                    } else {
                        Source::Address(addr)
                    }
                }
                _ => Source::Value(value.clone()),
            };
            sources.push(source);
        }
        for ((dst, _), source) in moves.iter().zip(sources) {
            match source {
                Source::Same => {}
                Source::Reg(src) => self.emit(K::Copy { dst: *dst, src }),
                Source::Value(value) => self.materialize_into(*dst, &value)?,
                Source::Address(addr) => self.emit(K::Lea { dst: *dst, addr }),
            }
        }
        for ((dst, _), source) in leaf_moves.iter().zip(leaf_sources) {
            if let Some(src) = source {
                self.emit(K::Copy { dst: *dst, src });
            }
        }
        self.vector_phi_copies(pred, succ)
    }

    /// The width of a virtual register (64 bits for a physical one).
    pub(super) fn width_of(&self, reg: Reg) -> Width {
        match reg {
            Reg::Virt(v) => self.mir.vregs[v.0 as usize].width,
            Reg::Phys(_) => Width::W64,
        }
    }

    /// Puts a value that is not an instruction's register (an argument, a
    /// constant, an address) into `dst`.
    pub(super) fn materialize_into(&mut self, dst: Reg, value: &Value) -> Result<(), Diagnostic> {
        if let Some(c) = self.const_int(value) {
            let width = self.width_of(dst);
            self.emit(K::MovImm { dst, imm: c, width });
            return Ok(());
        }
        let src = self.reg(value)?;
        self.emit(K::Copy { dst, src });
        Ok(())
    }

    /// The MIR block a branch from IR block `pred` to `succ` jumps to: an
    /// edge block holding the phi copies when the edge is critical.
    pub(super) fn edge_target(
        &mut self,
        pred: u32,
        succ: ir::BlockId,
    ) -> Result<MBlock, Diagnostic> {
        if !self.has_phis(succ) || self.succs[pred as usize].len() <= 1 {
            return Ok(MBlock(succ.0));
        }
        if let Some(&b) = self.edge_blocks.get(&(pred, succ.0)) {
            return Ok(b);
        }
        let block = self.mir.new_block();
        self.edge_blocks.insert((pred, succ.0), block);
        self.edge_order.push((pred, block));
        let saved = (self.current, self.loc);
        self.current = block;
        // The copies of an edge belong to no statement: a line-0 row, as
        // llc gives them, not the branch's line in a loop's preheader.
        self.loc = 0;
        self.phi_copies(pred, succ)?;
        self.emit(K::Jmp {
            target: MBlock(succ.0),
        });
        (self.current, self.loc) = saved;
        Ok(block)
    }

    pub(super) fn jump(&mut self, target: MBlock) {
        if target.0 != self.current.0 + 1 {
            self.emit(K::Jmp { target });
        }
    }

    pub(super) fn lower_branch(&mut self, id: InstId) -> Result<(), Diagnostic> {
        // The IR block; code before the branch may have moved selection on
        // to a block of its own (an atomic loop's exit).
        let pred = self.inst_block[id.0 as usize];
        // Copies for a single successor go before the branch's compare.
        if let [only] = self.succs[pred as usize].as_slice() {
            let only = *only;
            if self.has_phis(only) {
                self.phi_copies(pred, only)?;
            }
        }
        match &self.f.inst(id).kind {
            InstKind::Br { dest } => {
                let t = self.edge_target(pred, *dest)?;
                self.jump(t);
            }
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                let t = self.edge_target(pred, *if_true)?;
                let e = self.edge_target(pred, *if_false)?;
                if t == e {
                    // Still evaluate nothing: the condition has no effect.
                    self.jump(t);
                    return Ok(());
                }
                let last = self.branch_chain(cond, t, e)?;
                let cc = self.condition(last)?;
                if let Some((on_true, on_false)) = self.branch_weights(id) {
                    for (to, weight) in [(t, on_true), (e, on_false)] {
                        self.mir.edge_weights.push(EdgeWeight {
                            from: self.current,
                            to,
                            weight,
                        });
                    }
                }
                if t.0 == self.current.0 + 1 {
                    self.emit(K::Jcc {
                        cond: cc.invert(),
                        target: e,
                    });
                } else {
                    self.emit(K::Jcc {
                        cond: cc,
                        target: t,
                    });
                    self.jump(e);
                }
            }
            InstKind::Switch {
                value,
                default,
                cases,
            } => self.lower_switch(pred, value, *default, cases)?,
            _ => return Err(self.error("internal: not a branch".into())),
        }
        Ok(())
    }

    /// The `!prof` branch weights of a conditional branch (true, false),
    /// if it has them: `!{!"branch_weights", [!"expected",] i32 T, i32 F}`.
    fn branch_weights(&self, id: InstId) -> Option<(u32, u32)> {
        let (_, MdRef::Node(node)) = self.f.inst(id).metadata.iter().find(|(k, _)| k == "prof")?
        else {
            return None;
        };
        let weights: Vec<u32> = match self.module.debug.tuple(*node) {
            [MdOperand::Str(kind), rest @ ..] if kind == "branch_weights" => rest
                .iter()
                .filter_map(|op| match op {
                    MdOperand::Value(c) => {
                        c.zext_value().map(|v| v.min(u128::from(u32::MAX)) as u32)
                    }
                    _ => None,
                })
                .collect(),
            _ => return None,
        };
        match weights[..] {
            [on_true, on_false] => Some((on_true, on_false)),
            _ => None,
        }
    }

    pub(super) fn lower_switch(
        &mut self,
        pred: u32,
        value: &Value,
        default: ir::BlockId,
        cases: &[(Constant, ir::BlockId)],
    ) -> Result<(), Diagnostic> {
        let default_target = self.edge_target(pred, default)?;
        let mut targets = Vec::with_capacity(cases.len());
        for (c, dest) in cases {
            let v = c
                .sext_value()
                .ok_or_else(|| self.error("switch case is not an integer".into()))?;
            targets.push((v as i64, self.edge_target(pred, *dest)?));
        }
        targets.sort_by_key(|&(v, _)| v);
        let bits = self.bits_of(value)?;
        let width = container(bits);
        let v = self.normalized(value, true)?;
        let runs = switch_clusters(&targets);
        self.switch_tree(pred, v, width, &runs, default_target);
        Ok(())
    }

    /// Emits a binary search over the sorted case runs: more than three
    /// runs split at the middle one (`v < its first value` goes left);
    /// at most three are tested in turn. Every path not matched ends at
    /// `default`.
    pub(super) fn switch_tree(
        &mut self,
        pred: u32,
        v: Reg,
        width: Width,
        runs: &[&[(i64, MBlock)]],
        default: MBlock,
    ) {
        if runs.len() > 3 {
            let middle = runs.len() / 2;
            let left = self.mir.new_block();
            self.edge_order.push((pred, left));
            let pivot = runs[middle][0].0;
            let rhs = self.case_operand(pivot, width);
            self.emit(K::Cmp {
                width,
                lhs: Rm::Reg(v),
                rhs,
            });
            self.emit(K::Jcc {
                cond: Cond::L,
                target: left,
            });
            self.switch_tree(pred, v, width, &runs[middle..], default);
            self.current = left;
            self.switch_tree(pred, v, width, &runs[..middle], default);
            return;
        }
        for (i, run) in runs.iter().enumerate() {
            let last = i + 1 == runs.len();
            match run {
                [(lo, _), .., (hi, _)] if run.len() >= JUMP_TABLE_MIN_CASES => {
                    // Values outside [lo, hi] go on to the next run.
                    let next = if last {
                        default
                    } else {
                        let next = self.mir.new_block();
                        self.edge_order.push((pred, next));
                        next
                    };
                    self.jump_table(v, width, (*lo, *hi), run, default, next);
                    if last {
                        return;
                    }
                    self.current = next;
                }
                _ => {
                    for &(c, t) in run.iter() {
                        let rhs = self.case_operand(c, width);
                        self.emit(K::Cmp {
                            width,
                            lhs: Rm::Reg(v),
                            rhs,
                        });
                        self.emit(K::Jcc {
                            cond: Cond::E,
                            target: t,
                        });
                    }
                }
            }
        }
        self.jump(default);
    }

    /// A case value as a compare operand.
    pub(super) fn case_operand(&mut self, c: i64, width: Width) -> Rmi {
        match i32::try_from(c) {
            Ok(imm) => Rmi::Imm(imm),
            Err(_) => {
                let r = self.vreg(width);
                self.emit(K::MovImm {
                    dst: r,
                    imm: c,
                    width,
                });
                Rmi::Reg(r)
            }
        }
    }

    /// A PC-relative jump table for the sorted, dense `cases` spanning
    /// `lo..=hi`: values outside the span jump to `outside`, holes to
    /// `default`. Ends the current block.
    pub(super) fn jump_table(
        &mut self,
        v: Reg,
        width: Width,
        (lo, hi): (i64, i64),
        cases: &[(i64, MBlock)],
        default: MBlock,
        outside: MBlock,
    ) {
        // index = v - lo, compared unsigned: below lo wraps above the span.
        let index = self.vreg(Width::W64);
        if lo != 0 || width == Width::W64 {
            self.emit(K::Copy { dst: index, src: v });
        }
        if lo != 0 {
            self.emit(K::Alu {
                op: AluOp::Sub,
                width,
                dst: index,
                src: Rmi::Imm(lo as i32),
            });
        } else if width == Width::W32 {
            // Zero the upper half so the index is a clean 64-bit value.
            self.emit(K::Extend {
                dst: index,
                src: Rm::Reg(v),
                from: Width::W32,
                to: Width::W64,
                signed: false,
            });
        }
        self.emit(K::Cmp {
            width,
            lhs: Rm::Reg(index),
            rhs: Rmi::Imm((hi - lo) as i32),
        });
        self.emit(K::Jcc {
            cond: Cond::A,
            target: outside,
        });
        let mut table = vec![default; (hi - lo + 1) as usize];
        for &(c, t) in cases {
            table[(c - lo) as usize] = t;
        }
        let table_id = mir::JumpTableId(self.mir.jump_tables.len() as u32);
        self.mir.jump_tables.push(table);
        let base = self.vreg(Width::W64);
        self.emit(K::Lea {
            dst: base,
            addr: Address {
                base: AddressBase::JumpTable(table_id),
                index: None,
                disp: 0,
            },
        });
        let entry = self.vreg(Width::W64);
        self.emit(K::Extend {
            dst: entry,
            src: Rm::Mem(Address {
                base: AddressBase::Reg(base),
                index: Some((index, 4)),
                disp: 0,
            }),
            from: Width::W32,
            to: Width::W64,
            signed: true,
        });
        self.emit(K::Alu {
            op: AluOp::Add,
            width: Width::W64,
            dst: entry,
            src: Rmi::Reg(base),
        });
        self.emit(K::JmpIndirect {
            target: entry,
            table: table_id,
        });
    }
}

impl Selector<'_> {
    /// Gives each phi of an `indirectbr` destination its incoming register.
    pub(super) fn prepare_indirect_destinations(&mut self) {
        let f = self.f;
        for inst in &f.insts {
            let InstKind::IndirectBr { dests, .. } = &inst.kind else {
                continue;
            };
            for dest in dests {
                for &id in &f.blocks[dest.0 as usize].insts {
                    if !matches!(f.inst(id).kind, InstKind::Phi { .. }) {
                        break;
                    }
                    let Some(Some(phi)) = self.values.get(id.0 as usize) else {
                        continue;
                    };
                    if self.phi_incoming.contains_key(&id.0) {
                        continue;
                    }
                    let class = self.mir.class_of(*phi);
                    let width = self.width_of(*phi);
                    let incoming = self.mir.new_vreg_of(class, width);
                    self.phi_incoming.insert(id.0, incoming);
                }
            }
        }
    }

    /// A phi: nothing at its block's entry, unless its block is an
    /// `indirectbr` destination, which copies its incoming register.
    pub(super) fn lower_indirect_phi(&mut self, id: InstId) -> Result<(), Diagnostic> {
        if let Some(&incoming) = self.phi_incoming.get(&id.0) {
            let dst = self.dst(id)?;
            self.emit(K::Copy { dst, src: incoming });
        }
        Ok(())
    }

    /// `indirectbr`: the phi copies of every destination, then `jmp` through
    /// the address (a `blockaddress` of one of `dests`). The destinations
    /// are listed as a jump table of the MIR function so every later stage
    /// sees them as successors.
    pub(super) fn lower_indirect_branch(
        &mut self,
        id: InstId,
        address: &Value,
        dests: &[ir::BlockId],
    ) -> Result<(), Diagnostic> {
        let pred = self.inst_block[id.0 as usize];
        let target = self.reg(address)?;
        let mut seen = Vec::new();
        for &dest in dests {
            if !seen.contains(&dest) {
                seen.push(dest);
                self.phi_copies(pred, dest)?;
            }
        }
        if seen.is_empty() {
            self.emit(K::Ud2);
            return Ok(());
        }
        self.mir
            .jump_tables
            .push(seen.iter().map(|d| MBlock(d.0)).collect());
        let table = mir::JumpTableId(self.mir.jump_tables.len() as u32 - 1);
        self.emit(K::JmpIndirect { target, table });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_runs_become_tables_and_outliers_single_compares() {
        let cases = |values: &[i64]| -> Vec<(i64, MBlock)> {
            values.iter().map(|&v| (v, MBlock(0))).collect()
        };
        let shape = |values: &[i64]| -> Vec<Vec<i64>> {
            switch_clusters(&cases(values))
                .iter()
                .map(|run| run.iter().map(|&(v, _)| v).collect())
                .collect()
        };
        // switch_table.c's classify: 0..4 and 7 in one table, 100 alone.
        assert_eq!(
            shape(&[0, 1, 2, 3, 4, 7, 100]),
            [vec![0, 1, 2, 3, 4, 7], vec![100]]
        );
        // Too few cases for a table.
        assert_eq!(shape(&[1, 2, 3]), [vec![1], vec![2], vec![3]]);
        // Sparse: no table.
        assert_eq!(
            shape(&[0, 10, 20, 30]),
            [vec![0], vec![10], vec![20], vec![30]]
        );
        // Two tables.
        assert_eq!(
            shape(&[-3, -2, -1, 0, 1000, 1001, 1002, 1004]),
            [vec![-3, -2, -1, 0], vec![1000, 1001, 1002, 1004]]
        );
    }
}
