//! dse: dead store elimination within a block: a store is dead when a later
//! store in the same block writes the same type through the same pointer
//! value and nothing in between may read memory (no load, call, atomic,
//! `va_arg` or volatile access).
//!
//! In: any function. Out: the same function without those stores.
//! Debug-info rules: salvage before delete: a store has no result, so no
//! debug value names it; its own debug records move to the next
//! instruction (they keep their place in the program). Assignment tracking:
//! the dead store's `#dbg_assign` markers stay (the assignment to the
//! variable still happened at that point, as the stored value says) but are
//! unlinked: their address becomes `poison`, because the memory no longer
//! holds that value, and the store's DIAssignID goes with it.

use std::collections::HashMap;

use crate::ir::{Constant, Function, InstId, InstKind, MdId, Type, Value};

use super::edit::remove_insts;
use super::PassCx;

/// Runs DSE on one function; true when a store was deleted.
pub fn run(_cx: &mut PassCx, function: &mut Function) -> bool {
    let mut dead = vec![false; function.insts.len()];
    let mut unlinked: Vec<MdId> = Vec::new();
    for block in &function.blocks {
        // The last store through each pointer value since memory was last read.
        let mut pending: HashMap<Value, (InstId, Type)> = HashMap::new();
        for &id in &block.insts {
            let inst = function.inst(id);
            match &inst.kind {
                InstKind::Store {
                    value,
                    ptr,
                    volatile: false,
                    atomic: None,
                    ..
                } => {
                    let ty = function.value_type(value);
                    if let Some((earlier, earlier_ty)) = pending.get(ptr) {
                        if *earlier_ty == ty {
                            dead[earlier.0 as usize] = true;
                            unlinked.extend(function.inst(*earlier).assign_id);
                        }
                    }
                    pending.insert(ptr.clone(), (id, ty));
                }
                InstKind::Binary { .. }
                | InstKind::ICmp { .. }
                | InstKind::FBinary { .. }
                | InstKind::FCmp { .. }
                | InstKind::FNeg { .. }
                | InstKind::Select { .. }
                | InstKind::Phi { .. }
                | InstKind::Cast { .. }
                | InstKind::Gep { .. }
                | InstKind::Alloca { .. }
                | InstKind::ExtractElement { .. }
                | InstKind::InsertElement { .. }
                | InstKind::ShuffleVector { .. }
                | InstKind::ExtractValue { .. }
                | InstKind::InsertValue { .. }
                | InstKind::Freeze { .. } => {}
                _ => pending.clear(),
            }
        }
    }
    if unlinked.is_empty() && !dead.iter().any(|&d| d) {
        return false;
    }
    for inst in &mut function.insts {
        for record in &mut inst.records {
            if let Some(link) = &mut record.assign {
                if unlinked.contains(&link.id) {
                    link.address = Value::Const(Constant::Poison(Type::Ptr));
                }
            }
        }
    }
    for (index, is_dead) in dead.iter().enumerate() {
        if *is_dead {
            function.insts[index].assign_id = None;
        }
    }
    remove_insts(function, &dead);
    true
}
