//! Editing helpers every pass shares: where each instruction lives, who uses
//! it, removing an instruction without losing the debug records that ride on
//! it, replacing values through a map, and removing blocks.
//!
//! In: a [`Function`] in any state a pass leaves between edits. Out: the same
//! function changed. Promises: a removed instruction's debug records move to
//! the instruction that followed it (they keep their position in the
//! program); block removal renumbers every [`BlockId`] consistently.

use crate::ir::hash::FxHashMap;

use crate::ir::{Block, BlockId, Function, Inst, InstId, InstKind, Value};

/// Whether an instruction of this kind only computes a value from its
/// operands: no memory access, no call, no control flow, not a phi. Such
/// an instruction may move to any place its operands reach (division may
/// trap, so a pass moving one onto a path where it did not run must check
/// that itself).
pub fn computes_only(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Binary { .. }
            | InstKind::ICmp { .. }
            | InstKind::FCmp { .. }
            | InstKind::FBinary { .. }
            | InstKind::FNeg { .. }
            | InstKind::Cast { .. }
            | InstKind::Gep { .. }
            | InstKind::Select { .. }
            | InstKind::ExtractValue { .. }
            | InstKind::InsertValue { .. }
            | InstKind::ExtractElement { .. }
            | InstKind::InsertElement { .. }
            | InstKind::ShuffleVector { .. }
            | InstKind::Freeze { .. }
    )
}

/// The block of every instruction that is placed in a block, by [`InstId`].
pub fn inst_blocks(function: &Function) -> Vec<Option<BlockId>> {
    let mut blocks = vec![None; function.insts.len()];
    for (b, block) in function.blocks.iter().enumerate() {
        for &id in &block.insts {
            blocks[id.0 as usize] = Some(BlockId(b as u32));
        }
    }
    blocks
}

/// How many code operands (not debug records) of placed instructions name
/// each instruction, by [`InstId`].
pub fn use_counts(function: &Function) -> Vec<u32> {
    let mut counts = vec![0u32; function.insts.len()];
    for block in &function.blocks {
        for &id in &block.insts {
            for operand in function.inst(id).operands() {
                if let Value::Inst(used) = operand {
                    counts[used.0 as usize] += 1;
                }
            }
        }
    }
    counts
}

/// Who uses each instruction, kept up to date across replacements and
/// rewrites, so a pass that replaces many values does not rescan the whole
/// function after each (that made instcombine quadratic: minutes on
/// lz4.c's -O0 IR).
pub struct UseIndex {
    /// Code uses by placed instructions, by [`InstId`] (as [`use_counts`]).
    pub counts: Vec<u32>,
    /// Placed instructions whose code operands may name each instruction
    /// (entries may be stale: they are checked when used).
    users: Vec<Vec<InstId>>,
    /// Placed instructions whose debug records may name each instruction.
    record_users: Vec<Vec<InstId>>,
}

impl UseIndex {
    /// The index of `function` as it is now.
    pub fn build(function: &Function) -> UseIndex {
        let n = function.insts.len();
        let mut index = UseIndex {
            counts: vec![0; n],
            users: vec![Vec::new(); n],
            record_users: vec![Vec::new(); n],
        };
        for block in &function.blocks {
            for &id in &block.insts {
                let inst = function.inst(id);
                index.add_operands(id, inst);
                for record in &inst.records {
                    for value in record.values() {
                        if let Value::Inst(used) = value {
                            index.record_users[used.0 as usize].push(id);
                        }
                    }
                }
            }
        }
        index
    }

    fn add_operands(&mut self, id: InstId, inst: &Inst) {
        for operand in inst.operands() {
            if let Value::Inst(used) = operand {
                self.counts[used.0 as usize] += 1;
                self.users[used.0 as usize].push(id);
            }
        }
    }

    /// The instructions code operands of `id` name, to hand back to
    /// [`UseIndex::rewritten`] after `id` is rewritten in place.
    pub fn operands_of(function: &Function, id: InstId) -> Vec<InstId> {
        function
            .inst(id)
            .operands()
            .into_iter()
            .filter_map(|v| match v {
                Value::Inst(used) => Some(*used),
                _ => None,
            })
            .collect()
    }

    /// Records that `id`, which used `before`, was rewritten in place.
    pub fn rewritten(&mut self, function: &Function, id: InstId, before: &[InstId]) {
        for used in before {
            self.counts[used.0 as usize] -= 1;
        }
        self.add_operands(id, function.inst(id));
    }

    /// Replaces every use of `from` by `to`, code operands and debug records
    /// alike, as [`super::debug_update::replace_all_uses_with`] does, but
    /// only where the index says the uses are.
    pub fn replace(
        &mut self,
        debug: &mut crate::ir::debug::DebugInfo,
        function: &mut Function,
        from: InstId,
        to: &Value,
    ) {
        let mut places = std::mem::take(&mut self.record_users[from.0 as usize]);
        places.sort_unstable();
        places.dedup();
        super::debug_update::replace_debug_uses_at(debug, function, from, to, &places);
        let target = Value::Inst(from);
        let mut users = std::mem::take(&mut self.users[from.0 as usize]);
        users.sort_unstable();
        users.dedup();
        for &user in &users {
            let mut replaced = 0;
            for operand in function.inst_mut(user).operands_mut() {
                if *operand == target {
                    *operand = to.clone();
                    replaced += 1;
                }
            }
            self.counts[from.0 as usize] -= replaced;
            if let (Value::Inst(new), true) = (to, replaced > 0) {
                self.counts[new.0 as usize] += replaced;
                self.users[new.0 as usize].push(user);
            }
        }
        if let Value::Inst(new) = to {
            self.record_users[new.0 as usize].extend(places);
        }
    }
}

/// Removes the instruction at `index` of `block` and returns it; its debug
/// records move to the front of the next instruction's records (a block's
/// terminator is never removed this way, so there always is one).
pub fn remove_at(function: &mut Function, block: BlockId, index: usize) -> InstId {
    let id = function.blocks[block.0 as usize].insts.remove(index);
    let records = std::mem::take(&mut function.inst_mut(id).records);
    if !records.is_empty() {
        let next = function.blocks[block.0 as usize].insts[index];
        let next_inst = function.inst_mut(next);
        let rest = std::mem::take(&mut next_inst.records);
        next_inst.records = records;
        next_inst.records.extend(rest);
    }
    id
}

/// Removes every instruction in `dead` from its block, moving records as
/// [`remove_at`] does.
pub fn remove_insts(function: &mut Function, dead: &[bool]) {
    for b in 0..function.blocks.len() {
        let mut index = 0;
        while index < function.blocks[b].insts.len() {
            let id = function.blocks[b].insts[index];
            if dead.get(id.0 as usize).copied().unwrap_or(false) {
                remove_at(function, BlockId(b as u32), index);
            } else {
                index += 1;
            }
        }
    }
}

/// Replaces every use (code operands and debug record values) of an
/// instruction that is a key of `map` by its value, following chains
/// (`a → b`, `b → c` gives `a → c`).
pub fn replace_through_map(function: &mut Function, map: &FxHashMap<InstId, Value>) {
    if map.is_empty() {
        return;
    }
    // Only a value the map names is copied: most operands are not, and
    // cloning each (constants included) was most of this scan's cost.
    let resolve = |value: &Value| -> Option<Value> {
        let Value::Inst(id) = value else {
            return None;
        };
        let mut current = map.get(id)?;
        for _ in 0..map.len() {
            match current {
                Value::Inst(id) => match map.get(id) {
                    Some(next) => current = next,
                    None => break,
                },
                _ => break,
            }
        }
        Some(current.clone())
    };
    for inst in &mut function.insts {
        for operand in inst.operands_mut() {
            if let Some(new) = resolve(operand) {
                *operand = new;
            }
        }
        for record in &mut inst.records {
            for value in record.values_mut() {
                if let Some(new) = resolve(value) {
                    *value = new;
                }
            }
        }
    }
}

/// Inserts `inst` into `block` before position `index` and returns its id.
pub fn insert_at(function: &mut Function, block: BlockId, index: usize, inst: Inst) -> InstId {
    let id = function.add_inst(inst);
    function.blocks[block.0 as usize].insts.insert(index, id);
    id
}

/// Where code may be inserted at the head of a block: after its phis and
/// its `landingpad`, which must open a landing pad.
pub fn insertion_point(function: &Function, block: BlockId) -> usize {
    let phis = phi_count(function, block);
    let opens_with_pad = function
        .block(block)
        .insts
        .get(phis)
        .is_some_and(|&id| matches!(function.inst(id).kind, InstKind::LandingPad { .. }));
    phis + usize::from(opens_with_pad)
}

/// The number of leading phis of a block.
pub fn phi_count(function: &Function, block: BlockId) -> usize {
    function
        .block(block)
        .insts
        .iter()
        .take_while(|&&id| matches!(function.inst(id).kind, InstKind::Phi { .. }))
        .count()
}

/// Removes the incoming entries for `pred` from every phi of `block`.
pub fn remove_phi_incoming(function: &mut Function, block: BlockId, pred: BlockId) {
    let phis: Vec<InstId> = function.block(block).insts[..phi_count(function, block)].to_vec();
    for phi in phis {
        if let InstKind::Phi { incoming } = &mut function.inst_mut(phi).kind {
            incoming.retain(|(_, from)| *from != pred);
        }
    }
}

/// Removes the blocks not marked in `keep` and renumbers every block
/// reference (branch targets, phi incoming blocks). Removed blocks must not
/// be referenced by kept ones.
pub fn remove_blocks(function: &mut Function, keep: &[bool]) {
    if keep.iter().all(|&k| k) {
        return;
    }
    let mut new_index = vec![u32::MAX; keep.len()];
    let mut next = 0u32;
    for (b, &k) in keep.iter().enumerate() {
        if k {
            new_index[b] = next;
            next += 1;
        }
    }
    let old_blocks = std::mem::take(&mut function.blocks);
    for (b, block) in old_blocks.into_iter().enumerate() {
        if keep[b] {
            function.blocks.push(block);
        }
    }
    map_block_refs(function, |b| BlockId(new_index[b.0 as usize]));
}

/// Inserts `block` at layout position `at` and returns its id; every block
/// reference to a block at or after `at` is renumbered.
pub fn insert_block(function: &mut Function, at: BlockId, block: Block) -> BlockId {
    map_block_refs(function, |b| if b.0 >= at.0 { BlockId(b.0 + 1) } else { b });
    function.blocks.insert(at.0 as usize, block);
    at
}

/// Rewrites every block reference of the placed instructions (branch
/// targets, phi incoming blocks) through `map`.
fn map_block_refs(function: &mut Function, map: impl Fn(BlockId) -> BlockId) {
    let renumber = |b: &mut BlockId| *b = map(*b);
    let placed: Vec<InstId> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter().copied())
        .collect();
    for id in placed {
        match &mut function.inst_mut(id).kind {
            InstKind::Br { dest } => renumber(dest),
            InstKind::CondBr {
                if_true, if_false, ..
            } => {
                renumber(if_true);
                renumber(if_false);
            }
            InstKind::Switch { default, cases, .. } => {
                renumber(default);
                cases.iter_mut().for_each(|(_, b)| renumber(b));
            }
            InstKind::IndirectBr { dests, .. } => dests.iter_mut().for_each(renumber),
            InstKind::Invoke { normal, unwind, .. } => {
                renumber(normal);
                renumber(unwind);
            }
            InstKind::Phi { incoming } => incoming.iter_mut().for_each(|(_, b)| renumber(b)),
            _ => {}
        }
    }
}
