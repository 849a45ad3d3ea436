//! Control-flow graph utilities over one function.
//!
//! In: a [`Function`] whose blocks end in terminators. Out: successor and
//! predecessor lists, a reverse post-order of the blocks reachable from the
//! entry, and the dominator tree ([`DomTree`], Cooper–Harvey–Kennedy).
//! Promise: unreachable blocks appear in no order and have no immediate
//! dominator; a block's predecessors are listed once each, in block order.

use super::module::Function;
use super::value::BlockId;

/// Successors of every block, indexed by block (duplicates removed, order kept).
pub fn successors(function: &Function) -> Vec<Vec<BlockId>> {
    (0..function.blocks.len())
        .map(|b| {
            let mut succs = function
                .terminator(BlockId(b as u32))
                .map(|t| t.successors())
                .unwrap_or_default();
            let mut kept = 0;
            for i in 0..succs.len() {
                if !succs[..kept].contains(&succs[i]) {
                    succs[kept] = succs[i];
                    kept += 1;
                }
            }
            succs.truncate(kept);
            succs
        })
        .collect()
}

/// Predecessors of every block, indexed by block, in ascending block order.
pub fn predecessors(function: &Function) -> Vec<Vec<BlockId>> {
    let mut preds = vec![Vec::new(); function.blocks.len()];
    for (b, succs) in successors(function).into_iter().enumerate() {
        for s in succs {
            if let Some(list) = preds.get_mut(s.0 as usize) {
                list.push(BlockId(b as u32));
            }
        }
    }
    preds
}

/// The blocks reachable from the entry, in reverse post-order.
pub fn reverse_post_order(function: &Function) -> Vec<BlockId> {
    let succs = successors(function);
    let n = function.blocks.len();
    let mut order = Vec::with_capacity(n);
    if n == 0 {
        return order;
    }
    let mut visited = vec![false; n];
    // Iterative DFS: (block, index of the next successor to visit).
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    while let Some((block, next)) = stack.last_mut() {
        let block = *block;
        if let Some(succ) = succs[block].get(*next) {
            *next += 1;
            let s = succ.0 as usize;
            if s < n && !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(BlockId(block as u32));
            stack.pop();
        }
    }
    order.reverse();
    order
}

/// The dominator tree of a function's reachable blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomTree {
    /// Immediate dominator per block; the entry and unreachable blocks have none.
    idom: Vec<Option<BlockId>>,
    /// Position of each reachable block in reverse post-order.
    rpo_index: Vec<Option<usize>>,
    /// The reverse post-order the tree was built over.
    rpo: Vec<BlockId>,
}

impl DomTree {
    /// Computes the dominator tree.
    pub fn compute(function: &Function) -> DomTree {
        let n = function.blocks.len();
        let rpo = reverse_post_order(function);
        let preds = predecessors(function);
        let mut rpo_index = vec![None; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.0 as usize] = Some(i);
        }
        // idom as rpo positions; the entry is its own idom during the iteration.
        let mut idom: Vec<Option<usize>> = vec![None; rpo.len()];
        if !rpo.is_empty() {
            idom[0] = Some(0);
        }
        let mut changed = true;
        while changed {
            changed = false;
            for i in 1..rpo.len() {
                let mut new_idom: Option<usize> = None;
                for p in &preds[rpo[i].0 as usize] {
                    let Some(p) = rpo_index[p.0 as usize] else {
                        continue;
                    };
                    if idom[p].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(cur) => intersect(&idom, p, cur),
                    });
                }
                if new_idom.is_some() && idom[i] != new_idom {
                    idom[i] = new_idom;
                    changed = true;
                }
            }
        }
        let mut block_idom = vec![None; n];
        for (i, d) in idom.iter().enumerate().skip(1) {
            block_idom[rpo[i].0 as usize] = d.map(|d| rpo[d]);
        }
        DomTree {
            idom: block_idom,
            rpo_index,
            rpo,
        }
    }

    /// The immediate dominator of a block (`None` for the entry and unreachable blocks).
    pub fn idom(&self, block: BlockId) -> Option<BlockId> {
        self.idom.get(block.0 as usize).copied().flatten()
    }

    /// Whether the block is reachable from the entry.
    pub fn is_reachable(&self, block: BlockId) -> bool {
        matches!(self.rpo_index.get(block.0 as usize), Some(Some(_)))
    }

    /// Whether `a` dominates `b` (every block dominates itself). Unreachable
    /// blocks dominate nothing and are dominated by nothing.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let mut current = b;
        loop {
            if current == a {
                return true;
            }
            match self.idom(current) {
                Some(up) => current = up,
                None => return false,
            }
        }
    }

    /// The reverse post-order the tree was computed over.
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }
}

/// Nearest common dominator of two rpo positions (Cooper–Harvey–Kennedy).
fn intersect(idom: &[Option<usize>], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = idom[a].unwrap_or(0);
        }
        while b > a {
            b = idom[b].unwrap_or(0);
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::inst::ParamAttrs;
    use crate::ir::inst::{Inst, InstKind};
    use crate::ir::module::{Block, Function, Linkage, UnnamedAddr};
    use crate::ir::types::Type;
    use crate::ir::value::Value;

    /// A function whose block `i` ends in a branch to `edges[i]` (0, 1 or 2 targets).
    fn cfg(edges: &[&[u32]]) -> Function {
        let mut f = Function {
            name: "f".into(),
            linkage: Linkage::External,
            dso_local: false,
            unnamed_addr: UnnamedAddr::None,
            ret_ty: Type::Void,
            ret_attrs: ParamAttrs::default(),
            params: Vec::new(),
            varargs: false,
            blocks: Vec::new(),
            insts: Vec::new(),
            subprogram: None,
            section: None,
            align: None,
            attrs: Default::default(),
            pos: Default::default(),
        };
        for targets in edges {
            let kind = match targets {
                [] => InstKind::Ret { value: None },
                [t] => InstKind::Br { dest: BlockId(*t) },
                [t, e, ..] => InstKind::CondBr {
                    cond: Value::int(1, 1),
                    if_true: BlockId(*t),
                    if_false: BlockId(*e),
                },
            };
            let id = f.add_inst(Inst::new(kind, Type::Void));
            f.blocks.push(Block {
                name: None,
                insts: vec![id],
            });
        }
        f
    }

    #[test]
    fn diamond_with_loop_and_unreachable_block() {
        // 0 -> 1,2; 1 -> 3; 2 -> 3; 3 -> 1 (loop), 4; 4 ret; 5 unreachable -> 3.
        let f = cfg(&[&[1, 2], &[3], &[3], &[4, 1], &[], &[3]]);
        assert_eq!(
            predecessors(&f)[3],
            vec![BlockId(1), BlockId(2), BlockId(5)]
        );
        let rpo = reverse_post_order(&f);
        assert_eq!(rpo.first(), Some(&BlockId(0)));
        assert_eq!(rpo.len(), 5);
        assert!(!rpo.contains(&BlockId(5)));
        let dom = DomTree::compute(&f);
        let idoms: Vec<_> = (0..6).map(|b| dom.idom(BlockId(b)).map(|d| d.0)).collect();
        assert_eq!(idoms, vec![None, Some(0), Some(0), Some(0), Some(3), None]);
        assert!(dom.dominates(BlockId(0), BlockId(4)));
        assert!(dom.dominates(BlockId(3), BlockId(4)));
        assert!(!dom.dominates(BlockId(1), BlockId(3)));
        assert!(!dom.dominates(BlockId(5), BlockId(3)));
    }
}
