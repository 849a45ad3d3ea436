//! From a variable's location ranges to its DWARF location description.
//!
//! In: the ranges the history calculator produced for one variable (each with
//! an optional fragment), and the byte range of the variable's scope.
//! Out: an [`emit::VariableLocation`]: `None` when no range survives, a
//! single location when one location covers the whole scope, otherwise a
//! location list whose adjacent equal entries are merged and whose fragments
//! are composed into `DW_OP_piece`s covering every byte (empty pieces for the
//! parts that are unavailable). Ranges are clipped to the scope; undefined
//! ranges are simply absent.

use std::borrow::Cow;

use dwarfsmith_emit::model::{self as emit, Location, LocationEntry, Op};

/// A bit range of a variable, as `DW_OP_LLVM_fragment offset, size` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fragment {
    /// Offset in bits from the start of the variable.
    pub offset_bits: u32,
    /// Size in bits.
    pub size_bits: u32,
}

/// One range over which (part of) a variable has a location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocationRange {
    /// The part of the variable described; `None` is the whole variable.
    pub fragment: Option<Fragment>,
    /// First byte offset (in the function) covered.
    pub start: u64,
    /// One past the last byte offset covered.
    pub end: u64,
    /// Where that part lives over the range.
    pub location: Location,
}

/// Builds the location description of a variable of `size_bits` bits whose
/// scope covers the function offsets in `scope` (sorted, disjoint, half open).
pub fn describe(
    function: usize,
    size_bits: Option<u64>,
    scope: &[(u64, u64)],
    ranges: &[LocationRange],
) -> emit::VariableLocation {
    let mut entries = Vec::new();
    let mut cuts: Vec<u64> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
    cuts.extend(scope.iter().flat_map(|&(s, e)| [s, e]));
    cuts.sort_unstable();
    cuts.dedup();
    // One sweep over the windows between cuts, in address order: every
    // range and scope range either covers a window or misses it. The ranges
    // covering the window stay in their order in `ranges`.
    let mut by_start: Vec<usize> = (0..ranges.len()).collect();
    by_start.sort_by_key(|&i| ranges[i].start);
    let mut next_range = 0;
    let mut covering: Vec<usize> = Vec::new();
    let mut active: Vec<&LocationRange> = Vec::new();
    let mut next_scope = 0;
    for window in cuts.windows(2) {
        let (start, end) = (window[0], window[1]);
        while scope.get(next_scope).is_some_and(|&(_, e)| e <= start) {
            next_scope += 1;
        }
        if !scope
            .get(next_scope)
            .is_some_and(|&(s, e)| s <= start && end <= e)
        {
            continue;
        }
        covering.retain(|&i| ranges[i].end > start);
        while let Some(&i) = by_start.get(next_range) {
            if ranges[i].start > start {
                break;
            }
            if ranges[i].end > start {
                let at = covering.partition_point(|&c| c < i);
                covering.insert(at, i);
            }
            next_range += 1;
        }
        active.clear();
        active.extend(covering.iter().map(|&i| &ranges[i]));
        if let Some(location) = compose(&active, size_bits) {
            push_merged(&mut entries, start, end, location);
        }
    }
    if entries.is_empty() {
        return emit::VariableLocation::None;
    }
    let covers_scope = scope.iter().all(|&(s, e)| {
        entries
            .iter()
            .any(|entry| entry.start <= s && e <= entry.end)
    });
    let first = &entries[0].location;
    if covers_scope && entries.iter().all(|entry| &entry.location == first) {
        return emit::VariableLocation::Single(first.clone());
    }
    emit::VariableLocation::List { function, entries }
}

/// Appends an entry, extending the previous one when it is adjacent and equal.
fn push_merged(entries: &mut Vec<LocationEntry>, start: u64, end: u64, location: Cow<Location>) {
    if let Some(last) = entries.last_mut() {
        if last.end == start && last.location == *location {
            last.end = end;
            return;
        }
    }
    entries.push(LocationEntry {
        start,
        end,
        location: location.into_owned(),
    });
}

/// The location of the variable while `active` ranges hold: the whole-variable
/// one if there is one, else the fragments composed into pieces.
fn compose<'r>(active: &[&'r LocationRange], size_bits: Option<u64>) -> Option<Cow<'r, Location>> {
    if let Some(whole) = active.iter().find(|r| r.fragment.is_none()) {
        return Some(Cow::Borrowed(&whole.location));
    }
    let mut fragments: Vec<(Fragment, &Location)> = active
        .iter()
        .filter_map(|r| r.fragment.map(|f| (f, &r.location)))
        .filter(|(f, _)| f.offset_bits % 8 == 0 && f.size_bits % 8 == 0)
        .collect();
    if fragments.is_empty() {
        return None;
    }
    fragments.sort_by_key(|(f, _)| f.offset_bits);
    let mut composed = Location {
        args: Vec::new(),
        ops: Vec::new(),
    };
    let mut covered_bits = 0u64;
    for (fragment, location) in fragments {
        let offset = u64::from(fragment.offset_bits);
        if offset < covered_bits {
            continue; // overlaps the previous fragment: the history never gives this
        }
        if offset > covered_bits {
            composed.ops.push(Op::Piece((offset - covered_bits) / 8));
        }
        let base = composed.args.len() as u32;
        composed.args.extend_from_slice(&location.args);
        composed.ops.extend(location.ops.iter().map(|op| match *op {
            Op::Arg(n) => Op::Arg(n + base),
            other => other,
        }));
        composed
            .ops
            .push(Op::Piece(u64::from(fragment.size_bits) / 8));
        covered_bits = offset + u64::from(fragment.size_bits);
    }
    if let Some(total) = size_bits {
        if total > covered_bits && total % 8 == 0 {
            composed.ops.push(Op::Piece((total - covered_bits) / 8));
        }
    }
    Some(Cow::Owned(composed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dwarfsmith_emit::model::LocationArg;

    fn reg(register: u16) -> Location {
        Location {
            args: vec![LocationArg::Register {
                register,
                bits: 32,
                signed: true,
            }],
            ops: vec![Op::Arg(0)],
        }
    }

    fn range(
        fragment: Option<(u32, u32)>,
        start: u64,
        end: u64,
        location: Location,
    ) -> LocationRange {
        LocationRange {
            fragment: fragment.map(|(offset_bits, size_bits)| Fragment {
                offset_bits,
                size_bits,
            }),
            start,
            end,
            location,
        }
    }

    #[test]
    fn one_location_over_the_whole_scope_is_a_single_location() {
        let got = describe(0, Some(32), &[(0, 20)], &[range(None, 0, 20, reg(5))]);
        assert_eq!(got, emit::VariableLocation::Single(reg(5)));
    }

    #[test]
    fn adjacent_equal_entries_merge_and_ranges_are_clipped_to_the_scope() {
        let got = describe(
            3,
            Some(32),
            &[(4, 30)],
            &[
                range(None, 0, 10, reg(5)),
                range(None, 10, 16, reg(5)),
                range(None, 16, 40, reg(0)),
            ],
        );
        let expected = emit::VariableLocation::List {
            function: 3,
            entries: vec![
                LocationEntry {
                    start: 4,
                    end: 16,
                    location: reg(5),
                },
                LocationEntry {
                    start: 16,
                    end: 30,
                    location: reg(0),
                },
            ],
        };
        assert_eq!(got, expected);
    }

    #[test]
    fn no_ranges_means_no_location() {
        assert_eq!(
            describe(0, Some(32), &[(0, 8)], &[]),
            emit::VariableLocation::None
        );
    }

    #[test]
    fn fragments_compose_into_pieces_with_empty_pieces_for_gaps() {
        // A 128-bit struct: bytes 0..4 in rdi, bytes 8..12 in rsi, the rest unknown.
        let got = describe(
            0,
            Some(128),
            &[(0, 10)],
            &[
                range(Some((0, 32)), 0, 10, reg(5)),
                range(Some((64, 32)), 0, 10, reg(4)),
            ],
        );
        let expected = Location {
            args: vec![reg(5).args[0], reg(4).args[0]],
            ops: vec![
                Op::Arg(0),
                Op::Piece(4),
                Op::Piece(4),
                Op::Arg(1),
                Op::Piece(4),
                Op::Piece(4),
            ],
        };
        assert_eq!(got, emit::VariableLocation::Single(expected));
    }
}
