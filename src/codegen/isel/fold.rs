//! Loads folded into the compares that use them: `cmp reg, [mem]` and
//! `cmp [mem], reg/imm` instead of a `mov`/`movzx` into a register first.
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
        let quiet = block.insts[from + 1..emitted_at].iter().all(|between| {
            matches!(
                self.lowering[between.0 as usize],
                Lowering::FusedCompare
                    | Lowering::BranchLogic
                    | Lowering::FoldedLoad
                    | Lowering::FoldedAddress
                    | Lowering::Absorbed
            )
        });
        quiet.then_some(*load)
    }
}
