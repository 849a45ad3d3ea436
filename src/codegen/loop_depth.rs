//! Loop nesting depth of MIR blocks, for the register allocator's costs.
//!
//! In: a [`Function`]'s control flow (block successors). Out: for each
//! block, how many natural loops contain it. Rule: an edge `u → h` whose
//! target dominates its source is a back edge; its loop is `h` and every
//! block that reaches `u` without passing `h`. Loops with the same header
//! count once. Dominators come from Cooper, Harvey and Kennedy's iteration
//! over reverse post-order. Retreating edges whose target does not dominate
//! their source (irreducible flow) and unreachable blocks add no depth.
//!
//! Cost: linear in blocks and edges for the order, a few passes for the
//! dominators, and the sum of the loops' sizes for the bodies.

use super::mir::Function;

/// A natural loop: its header and every block in it (the header first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NaturalLoop {
    /// The block every back edge of the loop targets.
    pub header: usize,
    /// The loop's blocks, the header first, each once.
    pub blocks: Vec<usize>,
}

/// The loop nesting depth of each block of `f` (0 outside every loop).
pub fn loop_depths(f: &Function) -> Vec<u32> {
    depths_of(&natural_loops(f), f.blocks.len())
}

/// The loop nesting depth of each of `n` blocks, given their natural
/// loops.
pub fn depths_of(loops: &[NaturalLoop], n: usize) -> Vec<u32> {
    let mut depth = vec![0u32; n];
    for l in loops {
        for &b in &l.blocks {
            depth[b] += 1;
        }
    }
    depth
}

/// The natural loops of `f`, one per header, headers in reverse
/// post-order (an outer loop before the loops inside it).
pub fn natural_loops(f: &Function) -> Vec<NaturalLoop> {
    let n = f.blocks.len();
    let mut loops = Vec::new();
    if n == 0 {
        return loops;
    }
    let successors = f.successor_lists();
    let mut predecessors = vec![Vec::new(); n];
    for (b, succs) in successors.iter().enumerate() {
        for &s in succs {
            predecessors[s].push(b);
        }
    }
    let rpo = reverse_post_order(&successors);
    let mut rpo_index = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        rpo_index[b] = i;
    }
    let idom = dominators(&rpo, &rpo_index, &predecessors);
    let dominates = |h: usize, mut b: usize| loop {
        if b == h {
            return true;
        }
        if b == rpo[0] {
            return false;
        }
        b = idom[b];
    };

    // Blocks already counted for the header being walked.
    let mut stamp = vec![usize::MAX; n];
    for &h in &rpo {
        let latches: Vec<usize> = predecessors[h]
            .iter()
            .copied()
            .filter(|&u| rpo_index[u] != usize::MAX && dominates(h, u))
            .collect();
        if latches.is_empty() {
            continue;
        }
        stamp[h] = h;
        let mut blocks = vec![h];
        let mut work = latches;
        while let Some(b) = work.pop() {
            if stamp[b] == h {
                continue;
            }
            stamp[b] = h;
            blocks.push(b);
            work.extend(
                predecessors[b]
                    .iter()
                    .copied()
                    .filter(|&p| rpo_index[p] != usize::MAX && stamp[p] != h),
            );
        }
        loops.push(NaturalLoop { header: h, blocks });
    }
    loops
}

/// The blocks reachable from block 0, in reverse post-order, given each
/// block's successors.
pub(super) fn reverse_post_order(successors: &[Vec<usize>]) -> Vec<usize> {
    let mut visited = vec![false; successors.len()];
    let mut post = Vec::with_capacity(successors.len());
    let mut stack = vec![(0usize, 0usize)];
    visited[0] = true;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        if let Some(&s) = successors[b].get(next) {
            top.1 += 1;
            if !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// Every block: those reachable from block 0 in reverse post-order, then
/// the unreachable ones in index order (a forward dataflow visits each
/// block after its forward predecessors).
pub(super) fn every_block_in_reverse_post_order(successors: &[Vec<usize>]) -> Vec<usize> {
    let mut order = reverse_post_order(successors);
    let mut reached = vec![false; successors.len()];
    for &b in &order {
        reached[b] = true;
    }
    order.extend((0..successors.len()).filter(|&b| !reached[b]));
    order
}

/// The immediate dominator of each reachable block (the entry's is itself).
fn dominators(rpo: &[usize], rpo_index: &[usize], predecessors: &[Vec<usize>]) -> Vec<usize> {
    let mut idom = vec![usize::MAX; rpo_index.len()];
    idom[rpo[0]] = rpo[0];
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while rpo_index[a] > rpo_index[b] {
                a = idom[a];
            }
            while rpo_index[b] > rpo_index[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo[1..] {
            let mut new = usize::MAX;
            for &p in &predecessors[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    intersect(&idom, p, new)
                };
            }
            if new != idom[b] {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{BlockId, Cond, Inst, InstKind};

    fn jump(to: u32) -> Inst {
        Inst::new(
            InstKind::Jmp {
                target: BlockId(to),
            },
            0,
        )
    }

    fn branch(to: u32, otherwise: u32) -> Vec<Inst> {
        vec![
            Inst::new(
                InstKind::Jcc {
                    cond: Cond::E,
                    target: BlockId(to),
                },
                0,
            ),
            jump(otherwise),
        ]
    }

    #[test]
    fn nested_loops_count_their_headers_and_irreducible_edges_add_nothing() {
        // 0 → 1; 1: outer header; 2: inner header, 3: inner latch → 2 or 4;
        // 4: outer latch → 1 or 5; 5 → 6 or 7; 6 ↔ 7 (entered twice:
        // irreducible); 8 unreachable → 1.
        let mut f = Function::new("loops");
        for _ in 0..9 {
            f.new_block();
        }
        f.blocks[0].insts = vec![jump(1)];
        f.blocks[1].insts = vec![jump(2)];
        f.blocks[2].insts = vec![jump(3)];
        f.blocks[3].insts = branch(2, 4);
        f.blocks[4].insts = branch(1, 5);
        f.blocks[5].insts = branch(6, 7);
        f.blocks[6].insts = vec![jump(7)];
        f.blocks[7].insts = branch(6, 5);
        f.blocks[8].insts = vec![jump(1)];
        assert_eq!(loop_depths(&f), [0, 1, 2, 2, 1, 1, 1, 1, 0]);
    }
}
