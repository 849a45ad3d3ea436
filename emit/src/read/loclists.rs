//! A variable's `DW_AT_location` / `DW_AT_const_value` back into a
//! [`VariableLocation`].
//!
//! In: the attribute, the unit, the enclosing subprogram's function and
//! frame base.
//! Out: `None`, a single location, or a location list over the function.
//!
//! Promises: a location list's entries keep their order; their addresses
//! become offsets from the function's first byte; adjacent entries with
//! equal locations are merged (gcc splits them by view). Entries that are empty,
//! lie outside the function (gcc's cold parts) or whose expression has no
//! model form are left out; a list left with no entry is
//! [`VariableLocation::None`]. `DW_AT_const_value` with an integer becomes
//! the constant as a stack value (`Constu`, or `Consts` when negative).

use gimli::{AttributeValue, Dwarf, Unit};

use super::dwarf::Slice;
use super::elf::ElfObject;
use super::op::{raise, BaseTypeLookup, FrameBase};
use super::ReadError;
use crate::model::{Location, LocationEntry, Op, VariableLocation};

/// Where a variable's location expressions are evaluated.
pub(crate) struct LocationContext<'c, 'a> {
    /// The DWARF sections.
    pub dwarf: &'c Dwarf<Slice<'a>>,
    /// The unit.
    pub unit: &'c Unit<Slice<'a>>,
    /// The object (for addresses).
    pub object: &'c ElfObject,
    /// The enclosing subprogram's function, when it is concrete.
    pub function: Option<usize>,
    /// Its frame base.
    pub frame_base: FrameBase,
    /// Base-type lookup for typed operations.
    pub base_type: BaseTypeLookup<'c>,
}

impl LocationContext<'_, '_> {
    /// The location `location` (a `DW_AT_location` value) or `const_value`
    /// describes.
    pub fn read(
        &self,
        location: Option<AttributeValue<Slice<'_>>>,
        const_value: Option<AttributeValue<Slice<'_>>>,
    ) -> Result<VariableLocation, ReadError> {
        let encoding = self.unit.encoding();
        match location {
            Some(AttributeValue::Exprloc(expression)) => Ok(
                match raise(expression, encoding, self.frame_base, self.base_type) {
                    Some(location) => VariableLocation::Single(location),
                    None => VariableLocation::None,
                },
            ),
            Some(value) => self.list(value),
            None => Ok(const_value
                .and_then(constant)
                .map_or(VariableLocation::None, VariableLocation::Single)),
        }
    }

    fn list(&self, value: AttributeValue<Slice<'_>>) -> Result<VariableLocation, ReadError> {
        let error = |e: gimli::Error| ReadError::new(".debug_loclists", e.to_string());
        let Some(function) = self.function else {
            return Ok(VariableLocation::None);
        };
        let Some(mut list) = self.dwarf.attr_locations(self.unit, value).map_err(error)? else {
            return Ok(VariableLocation::None);
        };
        let placed = &self.object.functions[function];
        let mut entries = Vec::new();
        while let Some(entry) = list.next().map_err(error)? {
            let (start, end) = (entry.range.begin, entry.range.end);
            if start >= end || start < placed.address || start >= placed.end() {
                continue;
            }
            let encoding = self.unit.encoding();
            let Some(location) = raise(entry.data, encoding, self.frame_base, self.base_type)
            else {
                continue;
            };
            let (start, end) = (start - placed.address, end - placed.address);
            match entries.last_mut() {
                Some(LocationEntry {
                    end: last_end,
                    location: last,
                    ..
                }) if *last_end == start && *last == location => *last_end = end,
                _ => entries.push(LocationEntry {
                    start,
                    end,
                    location,
                }),
            }
        }
        Ok(if entries.is_empty() {
            VariableLocation::None
        } else {
            VariableLocation::List { function, entries }
        })
    }
}

/// An integer `DW_AT_const_value` as a constant stack value.
fn constant(value: AttributeValue<Slice<'_>>) -> Option<Location> {
    let constant = match value {
        AttributeValue::Udata(value) => Op::Constu(value),
        other => match other.sdata_value()? {
            value if value < 0 => Op::Consts(value),
            value => Op::Constu(value as u64),
        },
    };
    Some(Location {
        args: Vec::new(),
        ops: vec![constant, Op::StackValue],
    })
}
