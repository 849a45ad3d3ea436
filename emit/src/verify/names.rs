//! The name index side of `verify`: `.debug_names` decodes (see `read`'s
//! `names`), and every entry names a DIE of a compile unit that has the
//! entry's tag and, as its `DW_AT_name` or `DW_AT_linkage_name` (its own or
//! its origin's), the entry's name.
//!
//! In: the relocated DWARF. Out: problems added to the list.

use std::collections::HashMap;

use gimli::{AttributeValue, DebugInfoOffset};

use super::Problems;
use crate::read::{read_names, DieTree, DwarfSections, IndexedName, Slice};

/// Checks `.debug_names`, when there is one.
pub(super) fn check_names(sections: &DwarfSections, problems: &mut Problems) {
    if sections.data(gimli::SectionId::DebugNames).is_empty() {
        return;
    }
    let dwarf = sections.dwarf();
    let names = match read_names(&dwarf) {
        Ok(names) => names,
        Err(e) => return problems.add(format!("malformed name index: {e}")),
    };
    let mut units: HashMap<DebugInfoOffset, Option<(gimli::Unit<Slice<'_>>, DieTree<'_>)>> =
        HashMap::new();
    for entry in &names {
        let (Some(unit_offset), Some(die_offset)) = (entry.unit, entry.die) else {
            continue;
        };
        let unit = units
            .entry(unit_offset)
            .or_insert_with(|| read_unit(&dwarf, unit_offset));
        let Some((unit, tree)) = unit else {
            problems.add(format!(
                "{}: its unit at .debug_info+{:#x} is no compile unit",
                describe(entry),
                unit_offset.0
            ));
            continue;
        };
        let Some(die) = tree.at(die_offset) else {
            problems.add(format!(
                "{}: there is no DIE at offset {:#x} of its unit",
                describe(entry),
                die_offset.0
            ));
            continue;
        };
        if tree.tag(die) != entry.tag {
            problems.add(format!(
                "{}: the DIE is a {}",
                describe(entry),
                tree.tag(die)
            ));
        }
        let names_it = [
            gimli::DW_AT_name,
            gimli::DW_AT_linkage_name,
            gimli::DW_AT_MIPS_linkage_name,
        ]
        .into_iter()
        .filter_map(|attribute| tree.inherited(die, attribute))
        .any(|value| string(&dwarf, unit, value).as_deref() == Some(entry.name.as_str()));
        if !names_it {
            problems.add(format!(
                "{}: the DIE is not named {}",
                describe(entry),
                entry.name
            ));
        }
    }
}

/// `.debug_names+0xINDEX: NAME (TAG, DIE 0xOFFSET)`: where an entry is.
fn describe(entry: &IndexedName) -> String {
    let unit = entry.unit.map_or(0, |unit| unit.0);
    let die = entry.die.map_or(0, |die| die.0);
    format!(
        ".debug_names+{:#x}: {} ({}, .debug_info+{:#x})",
        entry.index,
        entry.name,
        entry.tag,
        unit + die
    )
}

/// The compile unit at `offset` with its DIEs, if one starts there.
fn read_unit<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    offset: DebugInfoOffset,
) -> Option<(gimli::Unit<Slice<'a>>, DieTree<'a>)> {
    let header = dwarf.debug_info.header_from_offset(offset).ok()?;
    let unit = dwarf.unit(header).ok()?;
    let tree = DieTree::read(&unit).ok()?;
    Some((unit, tree))
}

fn string<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    value: AttributeValue<Slice<'a>>,
) -> Option<String> {
    let text = dwarf.attr_string(unit, value).ok()?;
    Some(String::from_utf8_lossy(text.slice()).into_owned())
}
