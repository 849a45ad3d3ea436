//! DCE: deletes instructions whose results nothing uses and that have no
//! effect (arithmetic, comparisons, casts, selects, phis, GEPs, non-volatile
//! loads, calls of pure intrinsics), repeating until none is left.
//!
//! In: any function. Out: the same function without dead code. Debug-info
//! rule: salvage before delete: every debug record naming a deleted value
//! is rewritten in terms of its operands ([`salvage_debug_uses`]), and
//! becomes `poison` only when that is impossible. Locations of kept
//! instructions are untouched (preserve).

use crate::ir::{Function, InstKind, Intrinsic};

use super::debug_update::salvage_debug_uses;
use super::edit::{remove_insts, use_counts};
use super::PassCx;

/// Runs DCE on one function; true when something was deleted.
pub fn run(cx: &mut PassCx, function: &mut Function) -> bool {
    let mut changed = false;
    loop {
        let mut counts = use_counts(function);
        let mut dead = vec![false; function.insts.len()];
        // Users before operands: a chain of dead values goes in one sweep,
        // and each is salvaged before the operands it is salvaged into.
        let mut order = Vec::new();
        let placed: Vec<_> = function
            .blocks
            .iter()
            .flat_map(|b| b.insts.iter().copied())
            .collect();
        for &id in placed.iter().rev() {
            if counts[id.0 as usize] != 0 || !is_removable(cx, function, id) {
                continue;
            }
            dead[id.0 as usize] = true;
            order.push(id);
            for operand in function.inst(id).operands() {
                if let Some(used) = operand.as_inst() {
                    counts[used.0 as usize] -= 1;
                }
            }
        }
        if order.is_empty() {
            break;
        }
        for &id in &order {
            salvage_debug_uses(cx.module, function, id);
        }
        remove_insts(function, &dead);
        changed = true;
    }
    changed
}

/// Whether deleting the instruction, if unused, changes nothing but debug values.
pub fn is_removable(cx: &PassCx, function: &Function, id: crate::ir::InstId) -> bool {
    let inst = function.inst(id);
    if inst.ty.is_void() {
        return false;
    }
    match &inst.kind {
        InstKind::Binary { .. }
        | InstKind::ICmp { .. }
        | InstKind::Select { .. }
        | InstKind::Phi { .. }
        | InstKind::Cast { .. }
        | InstKind::Gep { .. }
        | InstKind::Freeze { .. } => true,
        InstKind::Load {
            volatile, atomic, ..
        } => !volatile && atomic.is_none(),
        InstKind::Alloca { .. } => !function.insts.iter().any(|i| {
            i.records
                .iter()
                .any(|r| r.values().any(|v| v.as_inst() == Some(id)))
        }),
        InstKind::Call { callee, .. } => matches!(
            cx.intrinsic(callee),
            Some(
                Intrinsic::SMax
                    | Intrinsic::SMin
                    | Intrinsic::UMax
                    | Intrinsic::UMin
                    | Intrinsic::Abs
                    | Intrinsic::Bswap
                    | Intrinsic::Ctpop
                    | Intrinsic::Ctlz
                    | Intrinsic::Cttz
                    | Intrinsic::Fshl
                    | Intrinsic::Fshr
            )
        ),
        _ => false,
    }
}
