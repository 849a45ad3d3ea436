//! Natural loops, shared by the loop passes (licm, loop-rotate, lsr).
//!
//! In: a function. Out: its natural loops: a header with back edges (a
//! predecessor it dominates) and the blocks that reach them; its preheader
//! is the single outside predecessor of the header when that one branches
//! only to the header. Nothing is changed.

use crate::ir::cfg::{predecessors, DomTree};
use crate::ir::{BlockId, Function, InstKind};

/// One natural loop with a preheader.
pub struct Loop {
    /// The block every iteration starts in.
    pub header: BlockId,
    /// The single outside predecessor of the header, which branches only to it.
    pub preheader: BlockId,
    /// The blocks that branch back to the header.
    pub latches: Vec<BlockId>,
    /// Which blocks belong to the loop, by block index.
    pub body: Vec<bool>,
    /// How many blocks belong to it.
    pub size: usize,
}

impl Loop {
    /// Whether `block` belongs to the loop.
    pub fn contains(&self, block: BlockId) -> bool {
        self.body[block.0 as usize]
    }
}

/// A natural loop's header, the blocks that branch back to it, and which
/// blocks belong to it (by block index).
pub struct LoopBody {
    /// The block every iteration starts in.
    pub header: BlockId,
    /// The blocks that branch back to the header.
    pub latches: Vec<BlockId>,
    /// Which blocks belong to the loop, by block index.
    pub body: Vec<bool>,
}

/// Every natural loop of the function (one per header), with a preheader
/// or not, in reverse post-order of their headers.
pub fn find_loop_bodies(function: &Function) -> Vec<LoopBody> {
    loop_bodies(
        function,
        &DomTree::compute(function),
        &predecessors(function),
    )
}

/// [`find_loop_bodies`] with the dominator tree and predecessors given.
fn loop_bodies(function: &Function, dom: &DomTree, preds: &[Vec<BlockId>]) -> Vec<LoopBody> {
    let n = function.blocks.len();
    let mut loops = Vec::new();
    for &header in dom.rpo() {
        let h = header.0 as usize;
        let latches: Vec<BlockId> = preds[h]
            .iter()
            .copied()
            .filter(|&p| dom.dominates(header, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        let mut body = vec![false; n];
        body[h] = true;
        let mut work = latches.clone();
        while let Some(b) = work.pop() {
            if body[b.0 as usize] {
                continue;
            }
            body[b.0 as usize] = true;
            work.extend(preds[b.0 as usize].iter().copied());
        }
        loops.push(LoopBody {
            header,
            latches,
            body,
        });
    }
    loops
}

/// The function's natural loops that have a preheader (one per header), in
/// reverse post-order of their headers.
pub fn find_loops(function: &Function) -> Vec<Loop> {
    let dom = DomTree::compute(function);
    let preds = predecessors(function);
    let mut loops = Vec::new();
    for LoopBody {
        header,
        latches,
        body,
    } in loop_bodies(function, &dom, &preds)
    {
        let h = header.0 as usize;
        let outside: Vec<BlockId> = preds[h]
            .iter()
            .copied()
            .filter(|p| !body[p.0 as usize])
            .collect();
        let [preheader] = outside.as_slice() else {
            continue;
        };
        let only_to_header = matches!(
            function.terminator(*preheader).map(|t| &t.kind),
            Some(InstKind::Br { dest }) if *dest == header
        );
        if !only_to_header || !dom.is_reachable(*preheader) {
            continue;
        }
        let size = body.iter().filter(|&&b| b).count();
        loops.push(Loop {
            header,
            preheader: *preheader,
            latches,
            body,
            size,
        });
    }
    loops
}
