//! Location lists: `.debug_loclists` from a variable's [`LocationEntry`]s.
//!
//! In: the entries (function offsets), the function's start in `.text`,
//! and a way to lower each entry's [`Location`] (see `ops`).
//! Out: a `gimli::write::LocationList`, or `None` when no entry is left.
//! Promises: empty entries (`start == end`) are dropped and adjacent
//! entries with equal locations merged first; the
//! list uses only `DW_LLE_base_address` (the function start, once) and
//! `DW_LLE_offset_pair`, which gdb 13 reads (it rejects startx_endx,
//! default_location and view pairs).

use gimli::write::{Address, Expression, LocationList};

use super::WriteError;
use crate::model::{Location, LocationEntry};

/// Drops empty entries and merges adjacent ones (`a.end == b.start`) whose
/// locations are equal.
pub fn merge_adjacent(entries: &[LocationEntry]) -> Vec<LocationEntry> {
    let mut merged: Vec<LocationEntry> = Vec::with_capacity(entries.len());
    for entry in entries.iter().filter(|entry| entry.start != entry.end) {
        match merged.last_mut() {
            Some(last) if last.end == entry.start && last.location == entry.location => {
                last.end = entry.end;
            }
            _ => merged.push(entry.clone()),
        }
    }
    merged
}

/// The location list for `entries` of a function at `function_start` with
/// `function_len` bytes of code; `None` when there are no entries.
pub fn location_list(
    entries: &[LocationEntry],
    function_start: Address,
    function_len: u64,
    lower: &mut dyn FnMut(&Location) -> Result<Expression, WriteError>,
    what: &str,
) -> Result<Option<LocationList>, WriteError> {
    let entries = merge_adjacent(entries);
    if entries.is_empty() {
        return Ok(None);
    }
    let mut previous_end = 0;
    let mut list = vec![gimli::write::Location::BaseAddress {
        address: function_start,
    }];
    for entry in &entries {
        if entry.start > entry.end || entry.start < previous_end || entry.end > function_len {
            return Err(WriteError::new(format!(
                "{what}: location entry [{:#x}, {:#x}) ends before it starts, overlaps the one \
                 before, or runs past the function ({function_len} bytes)",
                entry.start, entry.end
            )));
        }
        previous_end = entry.end;
        list.push(gimli::write::Location::OffsetPair {
            begin: entry.start,
            end: entry.end,
            data: lower(&entry.location)?,
        });
    }
    Ok(Some(LocationList(list)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LocationArg, Op};

    fn entry(start: u64, end: u64, register: u16) -> LocationEntry {
        LocationEntry {
            start,
            end,
            location: Location {
                args: vec![LocationArg::Register {
                    register,
                    bits: 32,
                    signed: true,
                }],
                ops: vec![Op::Arg(0)],
            },
        }
    }

    #[test]
    fn drops_empty_entries_and_merges_only_touching_equal_neighbours() {
        let merged = merge_adjacent(&[
            entry(0, 0, 4), // empty: dropped
            entry(0, 4, 5),
            entry(4, 8, 5),   // touches, equal: merged
            entry(9, 12, 5),  // gap: kept apart
            entry(12, 16, 4), // different location: kept apart
        ]);
        let ranges: Vec<_> = merged.iter().map(|e| (e.start, e.end)).collect();
        assert_eq!(ranges, [(0, 8), (9, 12), (12, 16)]);
    }
}
