//! Address ranges of scopes: `DW_AT_low_pc`/`DW_AT_high_pc` or `DW_AT_ranges`.
//!
//! In: half-open ranges as offsets in one function, and its address.
//! Out: the attributes to put on the DIE.
//! Promise: empty ranges are dropped; one range becomes low_pc (relocated
//! address) and high_pc (a length); several become a `.debug_rnglists`
//! list of one `DW_RLE_base_address` (the function start) and
//! `DW_RLE_offset_pair`s.

use gimli::write::{Address, AttributeValue, Range, RangeList, RangeListTable};

use super::WriteError;

/// The attributes describing `ranges` of the function starting at
/// `function_start` (the address of its first byte), whose code is `function_len` bytes long.
pub fn range_attributes(
    ranges: &[(u64, u64)],
    function_start: Address,
    function_len: u64,
    table: &mut RangeListTable,
    what: &str,
) -> Result<Vec<(gimli::DwAt, AttributeValue)>, WriteError> {
    for &(start, end) in ranges {
        if start > end || end > function_len {
            return Err(WriteError::new(format!(
                "{what}: range [{start:#x}, {end:#x}) ends before it starts or runs past the \
                 function ({function_len} bytes)"
            )));
        }
    }
    let ranges: Vec<(u64, u64)> = ranges
        .iter()
        .copied()
        .filter(|(start, end)| start != end)
        .collect();
    let address = |offset: u64| offset_address(function_start, offset);
    Ok(match ranges[..] {
        [] => Vec::new(),
        [(start, end)] => vec![
            (gimli::DW_AT_low_pc, AttributeValue::Address(address(start))),
            (gimli::DW_AT_high_pc, AttributeValue::Udata(end - start)),
        ],
        _ => {
            let mut list = vec![Range::BaseAddress {
                address: address(0),
            }];
            list.extend(
                ranges
                    .iter()
                    .map(|&(begin, end)| Range::OffsetPair { begin, end }),
            );
            vec![(
                gimli::DW_AT_ranges,
                AttributeValue::RangeListRef(table.add(RangeList(list))),
            )]
        }
    })
}

/// The address `offset` bytes after `start`.
pub fn offset_address(start: Address, offset: u64) -> Address {
    match start {
        Address::Constant(address) => Address::Constant(address + offset),
        Address::Symbol { symbol, addend } => Address::Symbol {
            symbol,
            addend: addend + offset as i64,
        },
    }
}
