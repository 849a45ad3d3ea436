//! early-cse: an instruction that computes what a dominating instruction
//! already computed (same operation, flags, operands and type) is replaced
//! by it. Only pure operations take part: arithmetic, comparisons, casts,
//! GEPs and selects; memory and calls do not.
//!
//! In: any function. Out: the same function with each such duplicate gone.
//! Debug-info rule: merge: the kept instruction now stands for both, so it
//! gets [`merge_locations`] of the two (line 0 when their lines differ); the
//! duplicate's debug uses follow the kept value (RAUW).

use std::collections::HashMap;

use crate::ir::cfg::DomTree;
use crate::ir::{BlockId, Function, InstId, InstKind, Value};

use super::debug_update::{merge_locations, replace_all_uses_with};
use super::edit::remove_insts;
use super::PassCx;

/// Runs early CSE on one function; true when a duplicate was removed.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let dom = DomTree::compute(function);
    let mut available: HashMap<String, Vec<(InstId, BlockId)>> = HashMap::new();
    let mut dead = vec![false; function.insts.len()];
    let mut changed = false;
    for &block in dom.rpo() {
        let insts = function.block(block).insts.clone();
        for id in insts {
            let inst = function.inst(id);
            let pure = matches!(
                inst.kind,
                InstKind::Binary { .. }
                    | InstKind::ICmp { .. }
                    | InstKind::Cast { .. }
                    | InstKind::Gep { .. }
                    | InstKind::Select { .. }
            );
            if !pure {
                continue;
            }
            let key = format!("{:?}|{:?}", inst.kind, inst.ty);
            let entries = available.entry(key).or_default();
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
                    replace_all_uses_with(
                        &mut cx.module.debug,
                        function,
                        id,
                        &Value::Inst(earlier),
                    );
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
