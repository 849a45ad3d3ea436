//! early-cse: an instruction that computes what a dominating instruction
//! already computed (same operation, flags, operands and type) is replaced
//! by it. Only pure operations take part: arithmetic, comparisons, casts,
//! GEPs and selects; memory and calls do not.
//!
//! In: any function. Out: the same function with each such duplicate gone.
//! Debug-info rule: merge: the kept instruction now stands for both, so it
//! gets [`merge_locations`] of the two (line 0 when their lines differ); the
//! duplicate's debug uses follow the kept value (RAUW).

use crate::ir::hash::FxHashMap;

use crate::ir::cfg::DomTree;
use crate::ir::{
    ArithFlags, BinOp, BlockId, CastOp, Function, GepFlags, ICmpPred, InstId, InstKind, Type, Value,
};

use super::debug_update::merge_locations;
use super::edit::{remove_insts, UseIndex};
use super::PassCx;

/// Runs early CSE on one function; true when a duplicate was removed.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let dom = DomTree::compute(function);
    let mut available: FxHashMap<(PureOp, Type), Vec<(InstId, BlockId)>> = FxHashMap::default();
    let mut dead = vec![false; function.insts.len()];
    // Replacing through the index touches only the duplicate's users: a
    // whole-function rewrite per duplicate made the pass quadratic.
    let mut uses = UseIndex::build(function);
    let mut changed = false;
    for &block in dom.rpo() {
        let insts = function.block(block).insts.clone();
        for id in insts {
            let inst = function.inst(id);
            let Some(operation) = PureOp::of(&inst.kind) else {
                continue;
            };
            let entries = available.entry((operation, inst.ty.clone())).or_default();
            let earlier = entries
                .iter()
                .find(|(_, b)| *b == block || dom.dominates(*b, block))
                .map(|(e, _)| *e);
            match earlier {
                Some(earlier) => {
                    let merged = merge_locations(
                        &mut cx.module.debug,
                        function.inst(earlier).dbg,
                        function.inst(id).dbg,
                    );
                    function.inst_mut(earlier).dbg = merged;
                    uses.replace(&mut cx.module.debug, function, id, &Value::Inst(earlier));
                    dead[id.0 as usize] = true;
                    changed = true;
                }
                None => entries.push((id, block)),
            }
        }
    }
    remove_insts(function, &dead);
    changed
}

/// A pure instruction's operation, flags and operands as they are when it is
/// met: two instructions compute the same value when these and their result
/// types are equal.
#[derive(PartialEq, Eq, Hash)]
enum PureOp {
    Binary(BinOp, ArithFlags, Value, Value),
    ICmp(ICmpPred, Value, Value),
    Cast(CastOp, ArithFlags, Value),
    Gep(GepFlags, Type, Value, Vec<Value>),
    Select(Value, Value, Value),
}

impl PureOp {
    /// The key of an instruction that takes part (arithmetic, comparison,
    /// cast, GEP, select); `None` for every other kind.
    fn of(kind: &InstKind) -> Option<PureOp> {
        Some(match kind {
            InstKind::Binary {
                op,
                flags,
                lhs,
                rhs,
            } => PureOp::Binary(*op, *flags, lhs.clone(), rhs.clone()),
            InstKind::ICmp { pred, lhs, rhs } => PureOp::ICmp(*pred, lhs.clone(), rhs.clone()),
            InstKind::Cast { op, flags, value } => PureOp::Cast(*op, *flags, value.clone()),
            InstKind::Gep {
                flags,
                source,
                base,
                indices,
            } => PureOp::Gep(*flags, source.clone(), base.clone(), indices.clone()),
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => PureOp::Select(cond.clone(), if_true.clone(), if_false.clone()),
            _ => return None,
        })
    }
}
