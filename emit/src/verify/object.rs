//! The ELF side of `verify`: symbols inside their sections, and every
//! function covered by call-frame information (in a linked file, every one
//! some unit's ranges describe).
//!
//! In: a laid-out object. Out: problems added to the list.

use gimli::{CieOrFde, UnwindSection};

use super::{describe_range, Problems};
use crate::read::{DwarfSections, ElfObject, Slice};

pub(super) fn check_symbols(object: &ElfObject, problems: &mut Problems) {
    for symbol in &object.symbols {
        let Some(index) = symbol.section else {
            continue;
        };
        let section = &object.sections[index];
        let sized = matches!(
            symbol.kind,
            goblin::elf::sym::STT_FUNC | goblin::elf::sym::STT_OBJECT
        );
        if sized && symbol.value.saturating_add(symbol.size) > section.size {
            problems.add(format!(
                "symbol {} ({:#x} bytes at {:#x}) runs past the end of {} ({:#x} bytes)",
                symbol.name, symbol.size, symbol.value, section.name, section.size
            ));
        }
    }
}

pub(super) fn check_cfi(object: &ElfObject, sections: &DwarfSections, problems: &mut Problems) {
    let (name, covered) = match fde_ranges(object) {
        Ok(found) => found,
        Err(message) => {
            problems.add(message);
            return;
        }
    };
    let covered = Cover::new(covered);
    let described = (object.code_start != 0).then(|| Cover::new(unit_ranges(sections)));
    let held = |start: u64, end: u64| {
        described
            .as_ref()
            .is_none_or(|ranges| ranges.contains(start, end))
    };
    for function in object
        .functions
        .iter()
        .filter(|f| f.size > 0 && held(f.address, f.end()))
    {
        if !covered.contains(function.address, function.end()) {
            problems.add(format!(
                "function {} {} is not covered by an FDE in {name}",
                function.name,
                describe_range(object, function.address, function.end())
            ));
        }
    }
}

/// Ranges asked whether one of them holds a range: sorted by start, each
/// with the furthest end of those starting at or before it, so the answer
/// is one binary search.
struct Cover {
    starts: Vec<u64>,
    furthest_ends: Vec<u64>,
}

impl Cover {
    fn new(mut ranges: Vec<AddressRange>) -> Cover {
        ranges.sort_unstable();
        let mut furthest = 0;
        let furthest_ends = (ranges.iter())
            .map(|&(_, end)| {
                furthest = furthest.max(end);
                furthest
            })
            .collect();
        Cover {
            starts: ranges.iter().map(|&(start, _)| start).collect(),
            furthest_ends,
        }
    }

    /// Whether one range holds all of `[start, end)`.
    fn contains(&self, start: u64, end: u64) -> bool {
        let before = self.starts.partition_point(|&s| s <= start);
        before > 0 && self.furthest_ends[before - 1] >= end
    }
}

/// The address ranges of every compile unit (unreadable ones left out:
/// `unit` reports them).
fn unit_ranges(sections: &DwarfSections) -> Vec<AddressRange> {
    let dwarf = sections.dwarf();
    let mut ranges = Vec::new();
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let Ok(mut iter) = dwarf.unit_ranges(&unit) else {
            continue;
        };
        while let Ok(Some(range)) = iter.next() {
            ranges.push((range.begin, range.end));
        }
    }
    ranges
}

/// The address ranges of every FDE, from `.eh_frame` or `.debug_frame`.
fn fde_ranges(object: &ElfObject) -> Result<(&'static str, Vec<AddressRange>), String> {
    fn collect<'a, S: UnwindSection<Slice<'a>>>(
        section: &S,
        bases: &gimli::BaseAddresses,
        name: &str,
    ) -> Result<Vec<AddressRange>, String> {
        let mut ranges = Vec::new();
        let mut entries = section.entries(bases);
        loop {
            match entries.next() {
                Ok(Some(CieOrFde::Fde(partial))) => {
                    let fde = partial
                        .parse(S::cie_from_offset)
                        .map_err(|e| format!("malformed FDE in {name}: {e}"))?;
                    ranges.push((
                        fde.initial_address(),
                        fde.initial_address().wrapping_add(fde.len()),
                    ));
                }
                Ok(Some(CieOrFde::Cie(_))) => {}
                Ok(None) => return Ok(ranges),
                Err(e) => return Err(format!("malformed {name}: {e}")),
            }
        }
    }
    if let Some(index) = object.section_index(".eh_frame") {
        let data = object.relocated(index);
        let mut section = gimli::EhFrame::new(&data, gimli::LittleEndian);
        section.set_address_size(8);
        let bases = gimli::BaseAddresses::default().set_eh_frame(object.sections[index].address);
        Ok((".eh_frame", collect(&section, &bases, ".eh_frame")?))
    } else if let Some(index) = object.section_index(".debug_frame") {
        let data = object.relocated(index);
        let mut section = gimli::DebugFrame::new(&data, gimli::LittleEndian);
        section.set_address_size(8);
        Ok((
            ".debug_frame",
            collect(&section, &gimli::BaseAddresses::default(), ".debug_frame")?,
        ))
    } else {
        Ok((
            "the object (it has no .eh_frame or .debug_frame)",
            Vec::new(),
        ))
    }
}

/// A half-open address range.
pub(super) type AddressRange = (u64, u64);

#[cfg(test)]
mod tests {
    use super::Cover;

    #[test]
    fn cover_holds_a_range_only_inside_one_range() {
        let cover = Cover::new(vec![(30, 40), (0, 10), (5, 25)]);
        let cases = [
            ((0, 10), true),
            ((6, 25), true),
            ((0, 25), false), // across two ranges
            ((30, 40), true),
            ((25, 30), false),
            ((35, 41), false),
        ];
        for ((start, end), held) in cases {
            assert_eq!(cover.contains(start, end), held, "[{start}, {end})");
        }
        assert!(!Cover::new(Vec::new()).contains(0, 1));
    }
}
