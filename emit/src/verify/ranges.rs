//! Every DIE's address ranges, read once per unit.
//!
//! In: a unit and its DIE tree. Out: [`DieRanges`]: for each DIE, the
//! ranges gimli's `Dwarf::die_ranges` gives (empty ones and backward ones
//! as gimli gives them), or its error. The checks ask for a scope's ranges
//! several times (as a scope, as a child of its parent's, for every
//! variable's location list, for the unit's range check): reading them
//! once here saves the list decoding and a copy of the DIE's attributes
//! each time.
//!
//! Promises: [`DieRanges::of`] answers what `die_ranges` over
//! `DieTree::address_entry` would have, for every DIE.

use crate::read::{DieTree, Slice};

/// The ranges of every DIE of one unit.
pub(super) struct DieRanges {
    /// Per DIE, where its ranges start in `ranges` (they end where the
    /// next DIE's start); one more entry at the end.
    starts: Vec<usize>,
    /// All DIEs' ranges, in DIE order.
    ranges: Vec<(u64, u64)>,
    /// The DIEs whose ranges cannot be read, in DIE order, with gimli's error.
    errors: Vec<(usize, gimli::Error)>,
}

impl DieRanges {
    /// Reads the ranges of every DIE of `tree` (a unit of `dwarf`) that has
    /// `DW_AT_low_pc` or `DW_AT_ranges` (without either gimli reads none).
    pub fn read<'a>(
        dwarf: &gimli::Dwarf<Slice<'a>>,
        unit: &gimli::Unit<Slice<'a>>,
        tree: &DieTree<'a>,
    ) -> DieRanges {
        let mut table = DieRanges {
            starts: Vec::with_capacity(tree.len() + 1),
            ranges: Vec::new(),
            errors: Vec::new(),
        };
        for die in 0..tree.len() {
            table.starts.push(table.ranges.len());
            let addressed = tree.attributes(die).iter().any(|attribute| {
                matches!(attribute.name(), gimli::DW_AT_low_pc | gimli::DW_AT_ranges)
            });
            if !addressed {
                continue;
            }
            let first = table.ranges.len();
            let read = dwarf
                .die_ranges(unit, &tree.address_entry(die))
                .and_then(|mut iter| {
                    while let Some(range) = iter.next()? {
                        table.ranges.push((range.begin, range.end));
                    }
                    Ok(())
                });
            if let Err(error) = read {
                table.ranges.truncate(first);
                table.errors.push((die, error));
            }
        }
        table.starts.push(table.ranges.len());
        table
    }

    /// The ranges of DIE `die`, or the error reading them gave.
    pub fn of(&self, die: usize) -> Result<&[(u64, u64)], gimli::Error> {
        if let Ok(at) = self.errors.binary_search_by_key(&die, |&(die, _)| die) {
            return Err(self.errors[at].1);
        }
        let (from, to) = (self.starts[die], self.starts[die + 1]);
        Ok(&self.ranges[from..to])
    }
}
