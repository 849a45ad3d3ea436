//! A function's LSDA in object-model terms, as llc-19's `EHStreamer`
//! computes it, and the data objects it points through.
//!
//! In: the finished function (final MIR with instruction and block
//! offsets, where placement put each selected block) and its
//! [`EhTables`] from selection. Out: an [`ExceptionTable`]:
//! - actions: the landing pads sorted by their type ids; each pad's ids
//!   become a chain of action records, sharing the records of the previous
//!   pad's equal leading ids; a pad's action is 1 + the offset of its first
//!   record (0 without type ids);
//! - call sites, in address order: each invoke's call with its landing pad
//!   and action (adjacent invokes with the same pad and action merged), and,
//!   where a call that may throw lies between them (any call but one of a
//!   function declared `nounwind`, `__tls_get_addr` included), an entry
//!   without landing pad for the gap
//!   (from the function's start, or the previous invoke's end, to the next
//!   invoke or the function's end);
//! - type infos pointed at through local 8-byte stubs in `.data`
//!   (`.L<name>.DW.stub`), and the personality through the hidden weak
//!   `DW.ref.<personality>` in a COMDAT group of its own, both as
//!   llc-19 writes them for position-independent code.
//!
//! Debug-info rule: none is read or written here; the landing pads' code
//! and its locations are the selected code's.

use dwarfsmith_emit::model::{
    DataObject, DataSection, ExceptionAction, ExceptionCallSite, ExceptionTable, ObjectModel,
    Relocation, RelocationKind, Symbol, SymbolBinding, Visibility,
};

use super::isel::EhTables;
use super::mir::{BlockId, CallTarget, InstKind};
use super::pipeline::FinishedFunction;

/// The ULEB128 size of `value`.
fn uleb128_size(value: u32) -> i64 {
    (1 + (32 - value.leading_zeros()).saturating_sub(1) / 7) as i64
}

/// The SLEB128 size of `value`.
fn sleb128_size(mut value: i64) -> i64 {
    let mut size = 0;
    loop {
        let byte = value & 0x7f;
        value >>= 7;
        size += 1;
        if (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0) {
            return size;
        }
    }
}

/// The action records of landing pads whose type ids are `pads` (sorted),
/// and each pad's first action (1-based; 0: none), as LLVM's
/// `EHStreamer::computeActionsTable` makes them.
fn actions_table(pads: &[&[i32]], filter_ids: &[u32]) -> (Vec<ExceptionAction>, Vec<u64>) {
    // The offset of each filter's list among the exception specifications,
    // negative and 1-based.
    let mut filter_offsets = Vec::with_capacity(filter_ids.len());
    let mut offset = -1i64;
    for &id in filter_ids {
        filter_offsets.push(offset);
        offset -= uleb128_size(id);
    }
    let mut actions: Vec<ExceptionAction> = Vec::new();
    // Per action: the index of the record before it in its chain.
    let mut previous_of: Vec<Option<usize>> = Vec::new();
    let mut first_actions = Vec::with_capacity(pads.len());
    let mut first_action = 0i64;
    let mut size_actions = 0i64;
    let mut previous_pad: Option<&[i32]> = None;
    for &ids in pads {
        let shared =
            previous_pad.map_or(0, |p| p.iter().zip(ids).take_while(|(a, b)| a == b).count());
        let mut size_site_actions = 0;
        if shared < ids.len() {
            let mut size_entry = 0i64;
            let mut previous = None;
            if shared > 0 {
                let prev_ids = previous_pad.unwrap_or(&[]);
                let mut at = actions.len() - 1;
                size_entry = sleb128_size(actions[at].next) + sleb128_size(actions[at].filter);
                for _ in shared..prev_ids.len() {
                    size_entry -= sleb128_size(actions[at].filter);
                    size_entry += -actions[at].next;
                    at = previous_of[at].unwrap_or(at);
                }
                previous = Some(at);
            }
            for &id in &ids[shared..] {
                let filter = if id < 0 {
                    filter_offsets[(-1 - id) as usize]
                } else {
                    i64::from(id)
                };
                let size_filter = sleb128_size(filter);
                let next = if size_entry != 0 {
                    -(size_entry + size_filter)
                } else {
                    0
                };
                size_entry = size_filter + sleb128_size(next);
                size_site_actions += size_entry;
                actions.push(ExceptionAction { filter, next });
                previous_of.push(previous);
                previous = Some(actions.len() - 1);
            }
            first_action = size_actions + size_site_actions - size_entry + 1;
        }
        first_actions.push(first_action as u64);
        size_actions += size_site_actions;
        previous_pad = Some(ids);
    }
    (actions, first_actions)
}

/// The data objects made so far for exception tables (by name), so each
/// is made once per module without searching the object's data.
pub type PointerObjects = std::collections::HashSet<String>;

/// The LSDA of `finished`, whose selection found landing pads (`tables`);
/// `may_throw` tells whether a call of a symbol may throw. Adds the data
/// objects it points through to `object` (once per module: `made`).
pub fn build(
    object: &mut ObjectModel,
    made: &mut PointerObjects,
    function: usize,
    finished: &FinishedFunction,
    tables: &EhTables,
    may_throw: &dyn Fn(&str) -> bool,
) -> ExceptionTable {
    let mir = &finished.mir;
    let final_block = |b: BlockId| finished.placed[b.0 as usize];
    // The landing pads some call still lands in, sorted by type ids.
    let used: Vec<BlockId> = mir
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i.kind {
            InstKind::Call {
                unwind: Some(pad), ..
            } => Some(pad),
            _ => None,
        })
        .collect();
    let mut pads: Vec<(BlockId, &[i32])> = tables
        .landing_pads
        .iter()
        .map(|(block, ids)| (final_block(*block), ids.as_slice()))
        .filter(|(block, _)| used.contains(block))
        .collect();
    pads.sort_by(|a, b| a.1.cmp(b.1));
    let ids: Vec<&[i32]> = pads.iter().map(|p| p.1).collect();
    let (actions, first_actions) = actions_table(&ids, &tables.filter_ids);
    let action_of = |pad: BlockId| {
        pads.iter()
            .position(|p| p.0 == pad)
            .map_or(0, |i| first_actions[i])
    };

    let code_size = finished.code.len() as u64;
    let mut call_sites: Vec<ExceptionCallSite> = Vec::new();
    let mut last_end = 0u64;
    let mut saw_throwing = false;
    let mut previous_is_invoke = false;
    for (b, block) in mir.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let (offset, length) = finished.inst_offsets[b][i];
            let (offset, length) = (u64::from(offset), u64::from(length));
            let (target, unwind) = match &inst.kind {
                InstKind::Call { target, unwind, .. } => (target, *unwind),
                InstKind::TailJump { target, .. } => (target, None),
                // `__tls_get_addr`, which llc counts as a call that may throw.
                InstKind::ThreadLocal { access, .. } => {
                    saw_throwing |= access.is_call();
                    continue;
                }
                _ => continue,
            };
            let Some(pad) = unwind else {
                saw_throwing |= match target {
                    CallTarget::Symbol(name) => may_throw(name),
                    CallTarget::Reg(_) => true,
                };
                continue;
            };
            if saw_throwing {
                call_sites.push(ExceptionCallSite {
                    start: last_end,
                    length: offset - last_end,
                    landing_pad: None,
                    action: 0,
                });
                previous_is_invoke = false;
            }
            saw_throwing = false;
            last_end = offset + length;
            let landing_pad = Some(u64::from(finished.block_offsets[pad.0 as usize]));
            let action = action_of(pad);
            if let Some(last) = call_sites.last_mut().filter(|_| previous_is_invoke) {
                if last.landing_pad == landing_pad && last.action == action {
                    last.length = last_end - last.start;
                    continue;
                }
            }
            call_sites.push(ExceptionCallSite {
                start: offset,
                length,
                landing_pad,
                action,
            });
            previous_is_invoke = true;
        }
    }
    if saw_throwing {
        call_sites.push(ExceptionCallSite {
            start: last_end,
            length: code_size - last_end,
            landing_pad: None,
            action: 0,
        });
    }

    let type_infos = tables
        .type_infos
        .iter()
        .map(|t| {
            t.as_ref()
                .map(|name| pointer_object(object, made, name, false))
        })
        .collect();
    ExceptionTable {
        function,
        personality_reference: pointer_object(object, made, &tables.personality, true),
        call_sites,
        actions,
        type_infos,
        filter_ids: tables.filter_ids.clone(),
    }
}

/// The name of the data object holding the address of `symbol`, made on
/// first use: a personality's hidden weak `DW.ref.NAME` in a COMDAT group
/// of its own, or a type info's local `.LNAME.DW.stub` in `.data`.
fn pointer_object(
    object: &mut ObjectModel,
    made: &mut PointerObjects,
    symbol: &str,
    personality: bool,
) -> String {
    let name = if personality {
        format!("DW.ref.{symbol}")
    } else {
        format!(".L{symbol}.DW.stub")
    };
    if !made.insert(name.clone()) {
        return name;
    }
    object.data.push(DataObject {
        name: name.clone(),
        global: personality,
        binding: SymbolBinding {
            weak: personality,
            visibility: if personality {
                Visibility::Hidden
            } else {
                Visibility::Default
            },
        },
        section: DataSection::Data,
        section_name: personality.then(|| format!(".data.{name}")),
        align: 8,
        bytes: vec![0; 8],
        relocations: vec![Relocation {
            offset: 0,
            kind: RelocationKind::Abs64,
            symbol: Symbol::Named(symbol.to_string()),
            addend: 0,
        }],
        comdat: personality.then(|| name.clone()),
        aliases: Vec::new(),
    });
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_share_the_leading_type_ids_of_the_previous_pad() {
        // llc-19 on `catch @_ZTIi, catch @_ZTISt9exception, catch null`
        // (ids 3, 2, 1): records (1, 0), (2, -3), (3, -3); first action 5.
        let (actions, first) = actions_table(&[&[1, 2, 3]], &[]);
        let pairs: Vec<(i64, i64)> = actions.iter().map(|a| (a.filter, a.next)).collect();
        assert_eq!(pairs, [(1, 0), (2, -3), (3, -3)]);
        assert_eq!(first, [5]);
        // A cleanup-only pad (no ids) and a catch-all pad.
        let (actions, first) = actions_table(&[&[], &[1]], &[]);
        assert_eq!(actions, [ExceptionAction { filter: 1, next: 0 }]);
        assert_eq!(first, [0, 1]);
    }

    #[test]
    fn leb128_sizes() {
        assert_eq!(
            [0, 127, 128, 16383, 16384].map(uleb128_size),
            [1, 1, 2, 2, 3]
        );
        assert_eq!([0, 63, 64, -64, -65].map(sleb128_size), [1, 1, 2, 1, 2]);
    }

    #[test]
    fn a_filter_is_its_negative_offset_among_the_specifications() {
        let (actions, first) = actions_table(&[&[-1]], &[0]);
        assert_eq!(
            actions,
            [ExceptionAction {
                filter: -1,
                next: 0
            }]
        );
        assert_eq!(first, [1]);
    }
}
