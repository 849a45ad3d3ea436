//! Loads folded into the compares that use them: `cmp reg, [mem]` and
//! `cmp [mem], reg/imm` instead of a `mov`/`movzx` into a register first;
//! and loads updated in place: `load p; op; store p` as one `op [p], src`
//! (mainGtU's `(*budget)--`).
//!
//! In: the IR function and the fusion decisions already made (compares
//! fused into branches, selects and branch chains). Out: loads marked
//! [`Lowering::FoldedLoad`], which emit nothing at their position; the
//! compare reads the memory operand itself (see [`Selector::compare`]).
//!
//! The rule: a plain (neither volatile nor atomic) scalar integer or
//! pointer load of 8, 16, 32 or 64 bits whose only non-debug use is a
//! compare in its block, where every instruction between the load and the
//! place the compare is emitted (the compare itself, or the branch or
//! select it is fused into) emits no code there either: compares fused
//! into the same user, the `and`/`or` of a branch chain, other folded
//! loads, GEPs folded into addresses, absorbed `and`s. A use by a compare
//! that reads its predecessor's flags (see [`flags`]) reads no register and
//! is not counted. So the folded read sees the memory
//! the load would have seen (nothing between writes memory), and no code
//! moves across another instruction's code, so the line table keeps its
//! order (a load moved past an address computation would let a later
//! line's row begin the block). In a branch chain the read happens only
//! when the chain reaches its compare, which the program may skip but
//! never adds. A debug value of a folded load has no register to name, so
//! it becomes `$noreg` (as LLVM's selection loses a folded load's value);
//! decisions read non-debug uses only, so `-g` does not change the code.
//!
//! The rule for an update in place: a plain store of an 8, 16, 32 or
//! 64-bit integer whose value is an `add`/`sub`/`and`/`or`/`xor` with no
//! other non-debug use, one of whose operands (the first, for `sub`) is a
//! plain load of the same type from the same pointer value with no other
//! use; the other operand is not that load. The three are in one block and
//! everything between the load and the store emits no code at its place
//! (as above, plus the operation itself), so nothing writes memory in
//! between and no code moves across another's: `op [p], src` reads what
//! the load read and writes what the store wrote, with the store's
//! location. The load's and the operation's debug values become `$noreg`.

use super::*;

impl Selector<'_> {
    /// Marks the loads that compares read as memory operands (at most one
    /// per compare: the right-hand one if it qualifies, else the left).
    /// Later compares first, so that the loads of a branch chain's later
    /// compares are already folded when an earlier one looks past them.
    pub(super) fn classify_folded_loads(&mut self, uses: &[u32], user: &[Option<InstId>]) {
        let f = self.f;
        for block in &f.blocks {
            let position: HashMap<InstId, usize> = block
                .insts
                .iter()
                .enumerate()
                .map(|(at, &id)| (id, at))
                .collect();
            for (at, &id) in block.insts.iter().enumerate().rev() {
                let inst = f.inst(id);
                let InstKind::ICmp { lhs, rhs, .. } = &inst.kind else {
                    continue;
                };
                if inst.ty != Type::Int(1) {
                    continue;
                }
                let emitted_at = match self.lowering[id.0 as usize] {
                    Lowering::Normal => Some(at),
                    Lowering::FusedCompare => {
                        let mut u = user[id.0 as usize];
                        while let Some(parent) =
                            u.filter(|p| self.lowering[p.0 as usize] == Lowering::BranchLogic)
                        {
                            u = user[parent.0 as usize];
                        }
                        u.and_then(|u| position.get(&u).copied())
                    }
                    _ => None,
                };
                let Some(emitted_at) = emitted_at else {
                    continue;
                };
                for operand in [rhs, lhs] {
                    if let Some(load) =
                        self.foldable_load(operand, id, &position, emitted_at, uses, user)
                    {
                        self.lowering[load.0 as usize] = Lowering::FoldedLoad;
                        break;
                    }
                }
            }
        }
    }

    /// `v` if it is a load that compare `cmp`, emitted at `emitted_at` of
    /// the load's block, may read as its memory operand (see the module's rule).
    fn foldable_load(
        &self,
        v: &Value,
        cmp: InstId,
        position: &HashMap<InstId, usize>,
        emitted_at: usize,
        uses: &[u32],
        user: &[Option<InstId>],
    ) -> Option<InstId> {
        let f = self.f;
        let Value::Inst(load) = v else {
            return None;
        };
        let inst = f.inst(*load);
        let plain = matches!(
            inst.kind,
            InstKind::Load {
                volatile: false,
                atomic: None,
                ..
            }
        );
        let scalar = matches!(inst.ty, Type::Int(8 | 16 | 32 | 64) | Type::Ptr);
        let i = load.0 as usize;
        if !plain
            || !scalar
            || uses[i] != 1
            || user[i] != Some(cmp)
            || self.lowering[i] != Lowering::Normal
        {
            return None;
        }
        let &from = position.get(load)?;
        let block = &f.blocks[self.inst_block[i] as usize];
        let quiet = block.insts[from + 1..emitted_at]
            .iter()
            .all(|&between| self.emits_nothing_here(between));
        quiet.then_some(*load)
    }

    /// Whether instruction `id` emits no code at its position (selected
    /// into a user, or not at all).
    fn emits_nothing_here(&self, id: InstId) -> bool {
        matches!(
            self.lowering[id.0 as usize],
            Lowering::FusedCompare
                | Lowering::BranchLogic
                | Lowering::FoldedLoad
                | Lowering::FoldedAddress
                | Lowering::Absorbed
                | Lowering::InPlace
        )
    }
}

impl Selector<'_> {
    /// Marks the loads and operations that stores update in place (see
    /// the module's rule).
    pub(super) fn classify_in_place_updates(&mut self, uses: &[u32], user: &[Option<InstId>]) {
        let f = self.f;
        for block in &f.blocks {
            for (at, &store) in block.insts.iter().enumerate() {
                let Some((load, op)) = self.in_place_update(store, uses, user) else {
                    continue;
                };
                let from = block.insts[..at].iter().position(|&i| i == load);
                let quiet = from.is_some_and(|from| {
                    block.insts[from + 1..at]
                        .iter()
                        .all(|&between| between == op || self.emits_nothing_here(between))
                });
                let op_between = from.is_some_and(|from| block.insts[from + 1..at].contains(&op));
                if quiet && op_between {
                    self.lowering[load.0 as usize] = Lowering::InPlace;
                    self.lowering[op.0 as usize] = Lowering::InPlace;
                }
            }
        }
    }

    /// The load and the operation `store` writes back, if the module's
    /// rule holds for them apart from their positions.
    fn in_place_update(
        &self,
        store: InstId,
        uses: &[u32],
        user: &[Option<InstId>],
    ) -> Option<(InstId, InstId)> {
        let f = self.f;
        let InstKind::Store {
            value: Value::Inst(op),
            ptr,
            volatile: false,
            atomic: None,
            ..
        } = &f.inst(store).kind
        else {
            return None;
        };
        let ty = &f.inst(*op).ty;
        let single = |id: &InstId, by: InstId| {
            let i = id.0 as usize;
            uses[i] == 1
                && user[i] == Some(by)
                && self.lowering[i] == Lowering::Normal
                && self.inst_block[i] == self.inst_block[store.0 as usize]
        };
        if !matches!(ty, Type::Int(8 | 16 | 32 | 64)) || !single(op, store) {
            return None;
        }
        let InstKind::Binary {
            op: bin @ (BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor),
            lhs,
            rhs,
            ..
        } = &f.inst(*op).kind
        else {
            return None;
        };
        let loaded = |v: &Value| match v {
            Value::Inst(l) if single(l, *op) => matches!(
                &f.inst(*l).kind,
                InstKind::Load { ptr: p, volatile: false, atomic: None, .. }
                    if p == ptr && f.inst(*l).ty == *ty
            )
            .then_some(*l),
            _ => None,
        };
        let load = loaded(lhs).or_else(|| (*bin != BinOp::Sub).then(|| loaded(rhs)).flatten())?;
        // The other operand: a register or an immediate.
        let other = if *lhs == Value::Inst(load) { rhs } else { lhs };
        let selectable = match other {
            Value::Inst(o) => matches!(
                self.lowering[o.0 as usize],
                Lowering::Normal | Lowering::Slot(_) | Lowering::FoldedAddress
            ),
            _ => true,
        };
        (selectable && *other != Value::Inst(load)).then_some((load, *op))
    }

    /// `op [ptr], src` for a store whose value is updated in place.
    pub(super) fn lower_in_place(&mut self, op: InstId, ptr: &Value) -> Result<(), Diagnostic> {
        let f = self.f;
        let InstKind::Binary {
            op: bin, lhs, rhs, ..
        } = &f.inst(op).kind
        else {
            return Err(self.error("internal: an update in place is not binary".into()));
        };
        let Some(alu) = alu_op(*bin) else {
            return Err(self.error("internal: an update in place is not an ALU operation".into()));
        };
        let width = exact_width(self.bits_of_type(&f.inst(op).ty)?)
            .ok_or_else(|| self.error("internal: an update in place of an odd width".into()))?;
        let other = match lhs {
            Value::Inst(l) if self.lowering[l.0 as usize] == Lowering::InPlace => rhs,
            _ => lhs,
        };
        let src = match self.const_int(other).and_then(|c| immediate(c, width)) {
            Some(imm) => Ri::Imm(imm),
            None => Ri::Reg(self.reg(other)?),
        };
        let addr = self.address(ptr)?;
        self.emit(K::AluMem {
            op: alu,
            width,
            addr,
            src,
        });
        Ok(())
    }
}
