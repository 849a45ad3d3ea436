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
    let described = (object.code_start != 0).then(|| unit_ranges(sections));
    let held = |start: u64, end: u64| {
        described.as_ref().is_none_or(|ranges| {
            ranges
                .iter()
                .any(|&(low, high)| low <= start && end <= high)
        })
    };
    for function in object
        .functions
        .iter()
        .filter(|f| f.size > 0 && held(f.address, f.end()))
    {
        let covering = covered
            .iter()
            .any(|&(start, end)| start <= function.address && function.end() <= end);
        if !covering {
            problems.add(format!(
                "function {} {} is not covered by an FDE in {name}",
                function.name,
                describe_range(object, function.address, function.end())
            ));
        }
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
