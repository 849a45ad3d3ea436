//! The LSDA of one function (`.gcc_except_table`), as llc-19 writes it for
//! x86-64 ELF with position-independent code.
//!
//! In: an [`ExceptionTable`] and the offset its bytes start at in their
//! section (a multiple of 4). Out: the bytes and the relocations of its
//! type table. Layout: `@LPStart` omitted (0xff: landing pads are offsets
//! from the function's start); `@TType` encoding `indirect pcrel sdata4`
//! (0x9b) and the uleb128 offset to the end of the type table, or omitted
//! (0xff) when there are no type infos and no exception specifications;
//! the call-site encoding uleb128 (1), the table's length and its entries
//! (start, length, landing pad, action, all uleb128); the action records
//! (sleb128 pairs); then, with a type table, zeros up to a multiple of 4,
//! the type infos from the last type id to the first (4 bytes each, a
//! pc-relative pointer to the data object holding the type info's address,
//! 0 for the catch-all) and the exception specifications (uleb128).
//! Promise: the bytes end at a multiple of 4 from the section start.

use crate::model::ExceptionTable;

/// `DW_EH_PE_omit`.
const OMIT: u8 = 0xff;
/// `DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4`.
const INDIRECT_PCREL_SDATA4: u8 = 0x9b;
/// `DW_EH_PE_uleb128`.
const ULEB128: u8 = 0x01;

/// An encoded LSDA.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EncodedLsda {
    /// The bytes (zeros where relocations go).
    pub bytes: Vec<u8>,
    /// R_X86_64_PC32 fields: offset in `bytes` and the symbol pointed to.
    pub relocations: Vec<(u64, String)>,
}

/// Appends `value` as uleb128.
fn uleb128(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Appends `value` as sleb128.
fn sleb128(out: &mut Vec<u8>, mut value: i64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        let done = (value == 0 && byte & 0x40 == 0) || (value == -1 && byte & 0x40 != 0);
        if done {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Encodes `table` to start at `start` in its section.
pub fn encode(table: &ExceptionTable, start: u64) -> EncodedLsda {
    let mut call_sites = Vec::new();
    for site in &table.call_sites {
        uleb128(&mut call_sites, site.start);
        uleb128(&mut call_sites, site.length);
        uleb128(&mut call_sites, site.landing_pad.unwrap_or(0));
        uleb128(&mut call_sites, site.action);
    }
    let mut actions = Vec::new();
    for action in &table.actions {
        sleb128(&mut actions, action.filter);
        sleb128(&mut actions, action.next);
    }
    let mut body = vec![ULEB128];
    uleb128(&mut body, call_sites.len() as u64);
    body.extend_from_slice(&call_sites);
    body.extend_from_slice(&actions);
    let mut out = EncodedLsda {
        bytes: vec![OMIT],
        relocations: Vec::new(),
    };
    if table.type_infos.is_empty() && table.filter_ids.is_empty() {
        out.bytes.push(OMIT);
        out.bytes.extend_from_slice(&body);
    } else {
        out.bytes.push(INDIRECT_PCREL_SDATA4);
        let types = 4 * table.type_infos.len() as u64;
        // The offset's own length moves the padding: try each length.
        let (offset, padding) = (1..=5u64)
            .find_map(|len| {
                let unpadded = start + 2 + len + body.len() as u64;
                let padding = unpadded.next_multiple_of(4) - unpadded;
                let offset = body.len() as u64 + padding + types;
                let mut encoded = Vec::new();
                uleb128(&mut encoded, offset);
                (encoded.len() as u64 == len).then_some((offset, padding))
            })
            .unwrap_or((0, 0));
        uleb128(&mut out.bytes, offset);
        out.bytes.extend_from_slice(&body);
        out.bytes.resize(out.bytes.len() + padding as usize, 0);
        for type_info in table.type_infos.iter().rev() {
            if let Some(symbol) = type_info {
                out.relocations
                    .push((out.bytes.len() as u64, symbol.clone()));
            }
            out.bytes.extend_from_slice(&[0; 4]);
        }
        for &id in &table.filter_ids {
            uleb128(&mut out.bytes, u64::from(id));
        }
    }
    let end = start + out.bytes.len() as u64;
    out.bytes.resize(
        out.bytes.len() + (end.next_multiple_of(4) - end) as usize,
        0,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ExceptionAction, ExceptionCallSite};

    #[test]
    fn leb128_forms() {
        let mut out = Vec::new();
        uleb128(&mut out, 624_485);
        sleb128(&mut out, -3);
        sleb128(&mut out, 125);
        assert_eq!(out, [0xe5, 0x8e, 0x26, 0x7d, 0xfd, 0x00]);
    }

    #[test]
    fn a_catch_all_and_a_typed_catch_as_llc_writes_them() {
        // llc-19 -relocation-model=pic: `catch ptr @_ZTIi` then `catch ptr
        // null` (ids: null 1, _ZTIi 2), one invoke, a gap after it.
        let table = ExceptionTable {
            call_sites: vec![
                ExceptionCallSite {
                    start: 4,
                    length: 5,
                    landing_pad: Some(16),
                    action: 3,
                },
                ExceptionCallSite {
                    start: 9,
                    length: 20,
                    landing_pad: None,
                    action: 0,
                },
            ],
            actions: vec![
                ExceptionAction { filter: 1, next: 0 },
                ExceptionAction {
                    filter: 2,
                    next: -3,
                },
            ],
            type_infos: vec![None, Some("stub".into())],
            ..ExceptionTable::default()
        };
        let lsda = encode(&table, 0);
        assert_eq!(
            lsda.bytes,
            [
                0xff, 0x9b, 0x19, 0x01, 0x08, 4, 5, 16, 3, 9, 20, 0, 0, 1, 0, 2, 0x7d, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0
            ]
        );
        assert_eq!(lsda.relocations, [(20, "stub".to_string())]);
    }
}
