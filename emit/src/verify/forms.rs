//! The encoding side of `verify`: every attribute value decodes and every
//! table a unit points into has a sound header.
//!
//! In: a unit and its DIE tree. Out: problems added to the list.
//!
//! Checks: the unit has a DIE; its subprograms lie inside its ranges; every string attribute names a string
//! inside its section (`DW_FORM_strp`, `strx`, `line_strp`); every
//! `addrx` names an entry of `.debug_addr`; every `DW_AT_ranges` and
//! location list decodes to its end (an end entry, not the section's
//! end), and no address range is longer than
//! the code of the whole file (4 GiB when it starts where discarded code is
//! left); every `DW_AT_decl_file` and
//! `DW_AT_call_file` names a file of the line table; the contributions of
//! the unit to `.debug_str_offsets`, `.debug_addr`, `.debug_rnglists` and
//! `.debug_loclists` (at the unit's bases) start with a DWARF 5 header
//! whose length stays inside the section.

use gimli::{AttributeValue, SectionId, UnitSectionOffset};

use super::ranges::DieRanges;
use super::Problems;
use crate::read::{is_type_tag, DieTree, DwarfSections, ElfObject, Slice};

/// What the checks need of the unit being checked.
pub(super) struct FormsContext<'c, 'a> {
    /// The object (for its addresses).
    pub object: &'c ElfObject,
    /// The DWARF sections the unit is in (for the offset tables' bytes).
    pub sections: &'c DwarfSections<'c>,
    /// The object's DWARF.
    pub dwarf: &'c gimli::Dwarf<Slice<'a>>,
    /// The same with its range and location lists read on past their
    /// sections' ends (`DwarfSections::lists_run_on`); `None` in a split unit.
    pub run_on: Option<&'c gimli::Dwarf<Slice<'a>>>,
    /// The unit.
    pub unit: &'c gimli::Unit<Slice<'a>>,
    /// Its DIEs.
    pub tree: &'c DieTree<'a>,
    /// Their ranges.
    pub ranges: &'c DieRanges,
}

/// Runs the checks; `die_name` names a DIE in a message.
pub(super) fn check_forms(
    context: &FormsContext<'_, '_>,
    die_name: &dyn Fn(usize) -> String,
    problems: &mut Problems,
) {
    let FormsContext {
        object,
        sections,
        dwarf,
        run_on,
        unit,
        tree,
        ranges: die_ranges,
    } = context;
    let UnitSectionOffset(unit_offset) = unit.header.offset();
    if tree.is_empty() {
        problems.add(format!(
            ".debug_info: the unit at {unit_offset:#x} has no DIE"
        ));
        return;
    }
    let split = dwarf.file_type == gimli::DwarfFileType::Dwo;
    check_headers(sections, unit, unit_offset, split, problems);
    let files = unit.line_program.as_ref().map(|program| {
        let header = program.header();
        let count = header.file_names().len() as u64;
        if header.version() >= 5 {
            0..count
        } else {
            1..count + 1
        }
    });
    // Subprograms lie inside the unit's ranges.
    let unit_ranges = die_ranges.of(0).unwrap_or_default();
    if !unit_ranges.is_empty() {
        for &child in tree.children(0) {
            if tree.tag(child) != gimli::DW_TAG_subprogram {
                continue;
            }
            let ranges = die_ranges.of(child).unwrap_or_default();
            let live = |&&(begin, end): &&(u64, u64)| begin < end && !object.discarded(begin);
            for &(begin, end) in ranges.iter().filter(live) {
                if !unit_ranges.iter().any(|&(b, e)| b <= begin && end <= e) {
                    problems.add(format!(
                        "{}: range [{begin:#x}, {end:#x}) is not inside the unit's ranges",
                        die_name(child)
                    ));
                }
            }
        }
    }
    let code_span = code_span(object);
    let strings = Strings::of(&dwarf.debug_str);
    let line_strings = Strings::of(&dwarf.debug_line_str);
    for index in 0..tree.len() {
        let mut has_ranges = false;
        for attribute in tree.attributes(index) {
            let value = checked_value(attribute);
            let name = attribute.name();
            let failure = match value {
                AttributeValue::DebugStrRef(offset) if strings.has(offset.0) => None,
                AttributeValue::DebugLineStrRef(offset) if line_strings.has(offset.0) => None,
                AttributeValue::DebugStrRef(_)
                | AttributeValue::DebugStrOffsetsIndex(_)
                | AttributeValue::DebugLineStrRef(_) => dwarf
                    .attr_string(unit, value)
                    .err()
                    .map(|e| format!("names no string: {e}")),
                AttributeValue::DebugAddrIndex(index) => dwarf
                    .address(unit, index)
                    .err()
                    .map(|e| format!("names no address: {e}")),
                // Variables' lists are checked entry by entry in `unit`.
                AttributeValue::LocationListsRef(_) | AttributeValue::DebugLocListsIndex(_)
                    if !(name == gimli::DW_AT_location
                        && matches!(
                            tree.tag(index),
                            gimli::DW_TAG_variable | gimli::DW_TAG_formal_parameter
                        )) =>
                {
                    locations_error(dwarf, unit, value)
                        .map(|e| format!("malformed location list: {e}"))
                        .or_else(|| {
                            let read = |dwarf| location_entries(dwarf, unit, value).ok();
                            run_on.filter(|run_on| read(run_on) != read(dwarf)).map(|_| {
                                "location list runs to the end of its section without an end entry"
                                    .to_string()
                            })
                        })
                }
                AttributeValue::FileIndex(file) | AttributeValue::Udata(file)
                    if matches!(name, gimli::DW_AT_decl_file | gimli::DW_AT_call_file) =>
                {
                    files
                        .as_ref()
                        .filter(|files| !files.contains(&file))
                        .map(|files| {
                            format!(
                                "names file {file}, but the line table's files are {}..{}",
                                files.start, files.end
                            )
                        })
                }
                _ => None,
            };
            if name == gimli::DW_AT_ranges {
                has_ranges = true;
            }
            if let Some(failure) = failure {
                problems.add(format!("{}: {name} {failure}", die_name(index)));
            }
        }
        if has_ranges {
            match die_ranges.of(index) {
                Err(e) => problems.add(format!(
                    "{}: malformed address ranges: {e}",
                    die_name(index)
                )),
                Ok(ranges) => {
                    let entry = tree.address_entry(index);
                    if run_on.is_some_and(|run_on| {
                        ranges_of(run_on, unit, &entry).ok().as_deref() != Some(ranges)
                    }) {
                        problems.add(format!(
                            "{}: address ranges run to the end of their section without an end entry",
                            die_name(index)
                        ));
                    }
                    for &(begin, end) in ranges {
                        let length = end.wrapping_sub(begin);
                        // Discarded code keeps its length after a tombstone
                        // start, and no function is 4 GiB long.
                        let too_long = if object.discarded(begin) {
                            (length > u64::from(u32::MAX)).then_some("4 GiB")
                        } else {
                            (length > code_span).then_some("all the code")
                        };
                        if let Some(limit) = too_long {
                            problems.add(format!(
                                "{}: address range [{begin:#x}, {end:#x}) is longer than {limit}",
                                die_name(index)
                            ));
                        }
                    }
                    for (begin, end) in backward_ranges(dwarf, unit, &entry) {
                        problems.add(format!(
                            "{}: address range [{begin:#x}, {end:#x}) ends before it begins",
                            die_name(index)
                        ));
                    }
                }
            }
        }
        if let Some(AttributeValue::UnitRef(target)) = tree.attr(index, gimli::DW_AT_type) {
            if let Some(target) = tree.at(target) {
                if !is_type_tag(tree.tag(target)) {
                    problems.add(format!(
                        "{}: DW_AT_type names {}, which is not a type",
                        die_name(index),
                        tree.tag(target)
                    ));
                }
            }
        }
    }
}

/// From the start of the first code section to the end of the last.
fn code_span(object: &ElfObject) -> u64 {
    let code = object.sections.iter().filter(|s| s.is_code());
    let start = code.clone().map(|s| s.address).min().unwrap_or(0);
    let end = code.map(|s| s.address + s.size).max().unwrap_or(0);
    end.saturating_sub(start)
}

/// How many entries a location list has.
fn location_entries<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    value: AttributeValue<Slice<'a>>,
) -> gimli::Result<usize> {
    let Some(mut list) = dwarf.attr_locations(unit, value)? else {
        return Ok(0);
    };
    let mut count = 0;
    while list.next()?.is_some() {
        count += 1;
    }
    Ok(count)
}

fn locations_error<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    value: AttributeValue<Slice<'a>>,
) -> Option<gimli::Error> {
    let mut list = match dwarf.attr_locations(unit, value) {
        Ok(Some(list)) => list,
        Ok(None) => return None,
        Err(e) => return Some(e),
    };
    loop {
        match list.next() {
            Ok(Some(_)) => {}
            Ok(None) => return None,
            Err(e) => return Some(e),
        }
    }
}

/// Where a string section's strings may start: at every offset up to its
/// last NUL (a NUL follows the offset), which is what gimli's string
/// look-up finds. Answered without reading the string (most DIEs of a
/// large file name one, and reading each one is a cache miss); a string
/// that is not there is looked up through gimli, for its error.
struct Strings {
    /// The offset of the section's last NUL.
    last_nul: Option<usize>,
}

impl Strings {
    fn of<'a, S: gimli::Section<Slice<'a>>>(section: &S) -> Strings {
        let data = section.reader().slice();
        Strings {
            last_nul: data.iter().rposition(|&byte| byte == 0),
        }
    }

    /// Whether a string starts at `offset`.
    fn has(&self, offset: usize) -> bool {
        self.last_nul.is_some_and(|last| offset <= last)
    }
}

fn ranges_of<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    entry: &gimli::DebuggingInformationEntry<Slice<'a>>,
) -> gimli::Result<Vec<(u64, u64)>> {
    let mut ranges = dwarf.die_ranges(unit, entry)?;
    let mut out = Vec::new();
    while let Some(range) = ranges.next()? {
        out.push((range.begin, range.end));
    }
    Ok(out)
}

/// The entries of a DIE's `DW_AT_ranges` list that end before they begin
/// (gimli's range iterator skips them).
fn backward_ranges<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &gimli::Unit<Slice<'a>>,
    entry: &gimli::DebuggingInformationEntry<Slice<'a>>,
) -> Vec<(u64, u64)> {
    use gimli::RawRngListEntry;
    let Some(value) = entry.attr_value(gimli::DW_AT_ranges) else {
        return Vec::new();
    };
    let Ok(Some(offset)) = dwarf.attr_ranges_offset(unit, value) else {
        return Vec::new();
    };
    let Ok(mut list) = dwarf.ranges(unit, offset) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    while let Ok(Some(raw)) = list.next_raw() {
        let pair = match raw {
            RawRngListEntry::OffsetPair { begin, end }
            | RawRngListEntry::StartEnd { begin, end }
            | RawRngListEntry::AddressOrOffsetPair { begin, end } => Some((begin, end)),
            RawRngListEntry::StartxEndx { begin, end } => {
                match (dwarf.address(unit, begin), dwarf.address(unit, end)) {
                    (Ok(begin), Ok(end)) => Some((begin, end)),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((begin, end)) = pair.filter(|(begin, end)| begin > end) {
            out.push((begin, end));
        }
    }
    out
}

/// The unit's contributions to the offset tables start with sound headers.
/// A split unit (`split`) takes `.debug_addr` from its skeleton (checked
/// there), and gimli gives it the default base of a table its `.dwo` may
/// not have: a table it lacks is not checked.
fn check_headers(
    sections: &DwarfSections,
    unit: &gimli::Unit<Slice<'_>>,
    unit_offset: usize,
    split: bool,
    problems: &mut Problems,
) {
    // (section, the unit's base, header size before the base)
    let tables = [
        (SectionId::DebugStrOffsets, unit.str_offsets_base.0, 8),
        (SectionId::DebugAddr, unit.addr_base.0, 8),
        (SectionId::DebugRngLists, unit.rnglists_base.0, 12),
        (SectionId::DebugLocLists, unit.loclists_base.0, 12),
    ];
    if unit.header.version() < 5 {
        return;
    }
    for (id, base, header_size) in tables {
        if base == 0 {
            continue;
        }
        let name = id.name();
        let data = sections.data(id);
        if split && (id == SectionId::DebugAddr || data.is_empty()) {
            continue;
        }
        let Some(start) = base.checked_sub(header_size) else {
            problems.add(format!(
                "{name}: the unit at {unit_offset:#x} puts its base at {base:#x}, inside the section's first header"
            ));
            continue;
        };
        if start + header_size > data.len() {
            problems.add(format!(
                "{name}: the unit at {unit_offset:#x} puts its base at {base:#x}, past the section's end ({:#x})",
                data.len()
            ));
            continue;
        }
        let length =
            u32::from_le_bytes(data[start..start + 4].try_into().expect("4 bytes")) as usize;
        let version = u16::from_le_bytes(data[start + 4..start + 6].try_into().expect("2 bytes"));
        if start + 4 + length > data.len() {
            problems.add(format!(
                "{name}+{start:#x}: the table's length {length:#x} runs past the section's end ({:#x})",
                data.len()
            ));
        }
        if version != 5 {
            problems.add(format!(
                "{name}+{start:#x}: the table's version is {version}, not 5"
            ));
        }
    }
}

/// Object-wide checks of the debug sections: every relocated field of a
/// debug section holds zeros (the addend is the relocation's, as gcc,
/// clang and dwarfsmith write RELA objects; other bytes mean a reader
/// that reads the field unrelocated sees another value), and the offset
/// tables (`.debug_str_offsets`, `.debug_addr`, `.debug_rnglists`,
/// `.debug_loclists`) are a chain of DWARF 5 contributions filling their
/// section exactly (when every unit is DWARF 5, `all_dwarf5`), every string offset of `.debug_str_offsets` inside
/// `.debug_str`.
pub(super) fn check_debug_sections(object: &ElfObject, all_dwarf5: bool, problems: &mut Problems) {
    for (index, section) in object.sections.iter().enumerate() {
        if !section.name.starts_with(".debug_") {
            continue;
        }
        for relocation in &object.relocations[index] {
            let start = relocation.offset as usize;
            let end = start + crate::read::relocation_width(relocation.kind) as usize;
            if section
                .data
                .get(start..end)
                .is_some_and(|field| field.iter().any(|&b| b != 0))
            {
                problems.add(format!(
                    "{}+{start:#x}: a relocated field holds {:02x?} instead of zeros",
                    section.name,
                    &section.data[start..end]
                ));
            }
        }
    }
    if !all_dwarf5 {
        return;
    }
    let strings = object
        .section_index(".debug_str")
        .map_or(0, |index| object.sections[index].data.len());
    for (name, header_size) in [
        (".debug_str_offsets", 8),
        (".debug_addr", 8),
        (".debug_rnglists", 12),
        (".debug_loclists", 12),
    ] {
        let Some(index) = object.section_index(name) else {
            continue;
        };
        let data = object.relocated(index);
        let mut at = 0usize;
        while at < data.len() {
            if at + header_size > data.len() {
                problems.add(format!(
                    "{name}+{at:#x}: {} bytes left, too few for a table header",
                    data.len() - at
                ));
                break;
            }
            let length = u32::from_le_bytes(data[at..at + 4].try_into().expect("4 bytes")) as usize;
            let version = u16::from_le_bytes(data[at + 4..at + 6].try_into().expect("2 bytes"));
            if version != 5 {
                problems.add(format!(
                    "{name}+{at:#x}: the table's version is {version}, not 5"
                ));
                break;
            }
            let end = at + 4 + length;
            if length + 4 < header_size || end > data.len() {
                problems.add(format!(
                    "{name}+{at:#x}: the table's length {length:#x} runs past the section's end ({:#x})",
                    data.len()
                ));
                break;
            }
            if name == ".debug_str_offsets" {
                for entry in (at + header_size..end).step_by(4) {
                    let Some(bytes) = data.get(entry..entry + 4) else {
                        break;
                    };
                    let offset = u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as usize;
                    if offset >= strings {
                        problems.add(format!(
                            "{name}+{entry:#x}: string offset {offset:#x} is past the end of .debug_str ({strings:#x})"
                        ));
                    }
                }
            }
            at = end;
        }
    }
}

/// The value of `attribute` as far as [`check_forms`] tells values apart:
/// gimli's `Attribute::value` where it may turn the raw value into one of
/// those (a constant or section offset of an attribute that may name a
/// location list or a file: `value` makes a `LocationListsRef` or a
/// `FileIndex` of it), the raw value for the others, which `value` leaves
/// as they are or turns into none of those: the same checks without
/// `value`'s look-up by attribute name for every attribute.
fn checked_value<'a>(attribute: &gimli::Attribute<Slice<'a>>) -> AttributeValue<Slice<'a>> {
    let raw = attribute.raw_value();
    let numeric = matches!(
        raw,
        AttributeValue::SecOffset(_)
            | AttributeValue::Udata(_)
            | AttributeValue::Sdata(_)
            | AttributeValue::Data1(_)
            | AttributeValue::Data2(_)
            | AttributeValue::Data4(_)
            | AttributeValue::Data8(_)
    );
    let converted = matches!(
        attribute.name(),
        gimli::DW_AT_location
            | gimli::DW_AT_string_length
            | gimli::DW_AT_return_addr
            | gimli::DW_AT_frame_base
            | gimli::DW_AT_segment
            | gimli::DW_AT_static_link
            | gimli::DW_AT_use_location
            | gimli::DW_AT_vtable_elem_location
            | gimli::DW_AT_decl_file
            | gimli::DW_AT_call_file
    );
    if numeric && converted {
        attribute.value()
    } else {
        raw
    }
}
