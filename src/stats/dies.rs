//! Every compile unit of a file, and one unit's DIEs with the look-ups
//! the statistics make: attributes found through `DW_AT_abstract_origin`
//! and `DW_AT_specification`, references across units, names, address
//! ranges, location lists and file names, each read as llvm-dwarfdump 19
//! reads it.
//!
//! In: a `gimli::Dwarf` of a [`LoadedFile`](super::load::LoadedFile).
//! Out: [`Units`] (every unit's header, abbreviations and line-table
//! header; no DIE) and, per unit, a [`View`]: the unit's
//! [`DieTree`](dwarfsmith_emit::read::DieTree), read when the unit is
//! walked and dropped after it, so only the units being walked are in
//! memory. A unit that another unit names through `DW_FORM_ref_addr` is
//! read once more and kept (partial units, LTO). Promises: a unit that
//! cannot be read is an error naming its offset; a range or location list
//! that cannot be read is `None` (llvm-dwarfdump then counts no range or no
//! location), never a panic.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use rayon::prelude::*;

use dwarfsmith_emit::read::{is_type_tag, DieTree, Noted, PARALLEL_FROM};
use gimli::{AttributeValue, DwAt, DwTag, Unit, UnitOffset};

use super::load::Slice;

/// A DIE: its unit's index in [`Units::units`] and its index in the
/// unit's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct DieRef {
    /// The unit.
    pub unit: usize,
    /// The DIE in the unit's tree.
    pub die: usize,
}

/// One compile unit, without its DIEs.
pub(crate) struct UnitInfo<'a> {
    /// The unit as gimli parsed it (of a split unit: the `.dwo`'s unit).
    pub unit: Unit<Slice<'a>>,
    /// The DWARF sections the unit is read from.
    pub dwarf: &'a gimli::Dwarf<Slice<'a>>,
    /// Of a split unit: the skeleton unit and the main file's sections,
    /// which hold its line table.
    pub skeleton: Option<(Unit<Slice<'a>>, &'a gimli::Dwarf<Slice<'a>>)>,
    /// Offset of the unit header in `.debug_info`.
    pub start: u64,
}

impl<'a> UnitInfo<'a> {
    /// Reads the unit's DIEs into `tree`.
    fn read_tree(&self, tree: &mut DieTree<'a>) -> gimli::Result<()> {
        let abbreviations = &self.unit.abbreviations;
        tree.read_some(&self.unit.header, abbreviations, is_read, is_wanted, NOTED)
    }
}

/// Whether the statistics read attributes of DIEs of `abbreviation`: not
/// of types and what only describes a type (most of rustc's DIEs), only
/// their tags (and of those without children not even that: see
/// [`DieTree::read_some`]); of a member, only when it may be a constant
/// (`DW_AT_const_value`) or a static member a variable's
/// `DW_AT_specification` names (`DW_AT_declaration`, `DW_AT_external`).
fn is_read(abbreviation: &gimli::Abbreviation) -> bool {
    let tag = abbreviation.tag();
    if tag == gimli::DW_TAG_member {
        return abbreviation.attributes().iter().any(|spec| {
            matches!(
                spec.name(),
                gimli::DW_AT_const_value | gimli::DW_AT_declaration | gimli::DW_AT_external
            )
        });
    }
    !is_type_tag(tag)
        && !matches!(
            tag,
            gimli::DW_TAG_enumerator
                | gimli::DW_TAG_template_type_parameter
                | gimli::DW_TAG_template_value_parameter
                | gimli::DW_TAG_variant_part
                | gimli::DW_TAG_variant
                | gimli::DW_TAG_inheritance
        )
}

/// Whether the statistics look at attributes named `name` (of the DIEs
/// [`is_read`] accepts): what [`View`]'s look-ups ask for, and nothing
/// else (frame bases, alignments, call columns, ... are skipped unread).
fn is_wanted(name: DwAt) -> bool {
    matches!(
        name,
        gimli::DW_AT_abstract_origin
            | gimli::DW_AT_artificial
            | gimli::DW_AT_const_value
            | gimli::DW_AT_decl_file
            | gimli::DW_AT_decl_line
            | gimli::DW_AT_entry_pc
            | gimli::DW_AT_high_pc
            | gimli::DW_AT_linkage_name
            | gimli::DW_AT_MIPS_linkage_name
            | gimli::DW_AT_location
            | gimli::DW_AT_low_pc
            | gimli::DW_AT_name
            | gimli::DW_AT_ranges
            | gimli::DW_AT_specification
            | gimli::DW_AT_type
    )
}

/// The attributes the statistics only ask whether a DIE has: their
/// presence is noted in the tree, their values neither read nor kept.
const NOTED: Noted = Noted::new(&[
    gimli::DW_AT_call_file,
    gimli::DW_AT_call_line,
    gimli::DW_AT_declaration,
    gimli::DW_AT_inline,
]);

/// A location list entry as llvm-dwarfdump interprets it: a range (`None`:
/// a default location, valid everywhere) and the expression.
pub(crate) struct LocationEntry<'a> {
    /// `[low, high)`, synthetic addresses in an object.
    pub range: Option<(u64, u64)>,
    /// The DWARF expression.
    pub expression: Slice<'a>,
}

/// All compile units of a file.
pub(crate) struct Units<'a> {
    /// The compile (and partial) units, in `.debug_info` order.
    pub units: Vec<UnitInfo<'a>>,
    /// The trees of units that other units reference, read on first use.
    referenced: Vec<OnceLock<DieTree<'a>>>,
    /// Whether units are read and walked in parallel (a `.debug_info` of
    /// at least [`PARALLEL_FROM`] bytes).
    pub parallel: bool,
}

/// Reads every compile (and partial) unit of `dwarf`, in `.debug_info`
/// order whatever the number of threads: type units are left out, as
/// llvm-dwarfdump's statistics leave them. Each unit's abbreviations,
/// root and line-table header are read once, here (the abbreviations are
/// kept for reading its DIEs: parsing them again cost more than the few
/// megabytes a large file's tables take). The skeletons' split units are
/// put in their place by [`Units::new`].
pub(crate) fn main_units<'a>(
    dwarf: &'a gimli::Dwarf<Slice<'a>>,
) -> Result<Vec<UnitInfo<'a>>, String> {
    let mut headers = Vec::new();
    let mut iter = dwarf.units();
    loop {
        match iter.next() {
            Ok(Some(header)) => {
                if !matches!(
                    header.type_(),
                    gimli::UnitType::Type { .. } | gimli::UnitType::SplitType { .. }
                ) {
                    headers.push(header);
                }
            }
            Ok(None) => break,
            Err(e) => return Err(format!(".debug_info: {e}")),
        }
    }
    let read = |header: gimli::UnitHeader<Slice<'a>>| {
        let start = header.offset().0 as u64;
        let unit = dwarf
            .unit(header)
            .map_err(|e| format!(".debug_info+{start:#x}: {e}"))?;
        Ok(UnitInfo {
            unit,
            dwarf,
            skeleton: None,
            start,
        })
    };
    map_in_order(headers, is_large(dwarf), read)
        .into_iter()
        .collect()
}

impl<'a> Units<'a> {
    /// The units of `main` ([`main_units`]), each skeleton unit replaced by
    /// its split unit when one of `dwos` (`.dwo` files' or a package's
    /// sections) holds it, as llvm-dwarfdump does.
    pub fn new(
        main: Vec<UnitInfo<'a>>,
        dwos: &'a [gimli::Dwarf<Slice<'a>>],
    ) -> Result<Units<'a>, String> {
        let parallel = main.first().is_some_and(|unit| is_large(unit.dwarf));
        let splits = if main.iter().any(|unit| is_skeleton(&unit.unit)) {
            split_units(dwos)?
        } else {
            SplitIndex::default()
        };
        let mut units = Vec::with_capacity(main.len());
        for info in main {
            if !is_skeleton(&info.unit) {
                units.push(info);
                continue;
            }
            let split = info.unit.dwo_id.and_then(|id| splits.get(&id));
            let Some(&(dwo, split_header)) = split else {
                units.push(info);
                continue;
            };
            let split_start = split_header.offset().0 as u64;
            let mut split = dwos[dwo]
                .unit(split_header)
                .map_err(|e| format!(".debug_info.dwo+{split_start:#x}: {e}"))?;
            split.copy_relocated_attributes(&info.unit);
            units.push(UnitInfo {
                unit: split,
                dwarf: &dwos[dwo],
                skeleton: Some((info.unit, info.dwarf)),
                start: split_start,
            });
        }
        let referenced = units.iter().map(|_| OnceLock::new()).collect();
        Ok(Units {
            units,
            referenced,
            parallel,
        })
    }

    /// The unit whose line table unit `unit` reads (a split unit's
    /// skeleton), and its sections.
    pub fn line_unit(&self, unit: usize) -> (&Unit<Slice<'a>>, &'a gimli::Dwarf<Slice<'a>>) {
        let unit = &self.units[unit];
        match &unit.skeleton {
            Some((skeleton, dwarf)) => (skeleton, dwarf),
            None => (&unit.unit, unit.dwarf),
        }
    }

    /// Reads the DIEs of unit `unit` into `tree` (whose arrays are reused),
    /// for walking it.
    pub fn view(&self, unit: usize, mut tree: DieTree<'a>) -> Result<View<'_, 'a>, String> {
        let info = &self.units[unit];
        info.read_tree(&mut tree)
            .map_err(|e| format!(".debug_info+{:#x}: {e}", info.start))?;
        Ok(View {
            units: self,
            current: unit,
            tree,
        })
    }
}

/// One unit's DIEs, and the look-ups of the statistics on them (and on the
/// DIEs of other units they reference).
pub(crate) struct View<'u, 'a> {
    units: &'u Units<'a>,
    current: usize,
    tree: DieTree<'a>,
}

impl<'u, 'a> View<'u, 'a> {
    /// The units.
    pub fn units(&self) -> &'u Units<'a> {
        self.units
    }

    /// The unit's tree, for reading the next unit into.
    pub fn into_tree(self) -> DieTree<'a> {
        self.tree
    }

    /// Whether the unit has no DIE.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// The tree of unit `unit`: this view's own, or one read for a
    /// reference from another unit (empty when it cannot be read).
    fn tree(&self, unit: usize) -> &DieTree<'a> {
        if unit == self.current {
            return &self.tree;
        }
        self.units.referenced[unit].get_or_init(|| {
            let mut tree = DieTree::default();
            match self.units.units[unit].read_tree(&mut tree) {
                Ok(()) => tree,
                Err(_) => DieTree::default(),
            }
        })
    }

    /// The DIE's children, in DIE order.
    pub fn children(&self, die: DieRef) -> impl Iterator<Item = DieRef> + '_ {
        self.tree(die.unit)
            .children(die.die)
            .iter()
            .map(move |&child| DieRef {
                unit: die.unit,
                die: child,
            })
    }

    /// The DIE's parent (`None` for the root).
    pub fn parent(&self, die: DieRef) -> Option<DieRef> {
        let parent = self.tree(die.unit).parent(die.die)?;
        Some(DieRef {
            unit: die.unit,
            die: parent,
        })
    }

    /// The DIE's tag.
    pub fn tag(&self, die: DieRef) -> DwTag {
        self.tree(die.unit).tag(die.die)
    }

    /// Attribute `name` of the DIE itself.
    pub fn find(&self, die: DieRef, name: DwAt) -> Option<AttributeValue<Slice<'a>>> {
        self.tree(die.unit).attr(die.die, name)
    }

    /// Whether the DIE itself has attribute `name`.
    pub fn has(&self, die: DieRef, name: DwAt) -> bool {
        self.tree(die.unit).has(die.die, name)
    }

    /// The raw value of a reference attribute, as LLVM's `getRawUValue`
    /// gives it: the unit-relative offset of `DW_FORM_ref*`, the section
    /// offset of `DW_FORM_ref_addr`.
    pub fn raw_reference(&self, die: DieRef, name: DwAt) -> Option<u64> {
        raw_reference_value(&self.tree(die.unit).raw_attr(die.die, name)?)
    }

    /// The DIE's `DW_AT_abstract_origin`: its raw value (as
    /// [`View::raw_reference`] gives it) and the DIE it names, read once.
    pub fn abstract_origin(&self, die: DieRef) -> Option<(u64, Option<DieRef>)> {
        let value = self
            .tree(die.unit)
            .raw_attr(die.die, gimli::DW_AT_abstract_origin)?;
        let raw = raw_reference_value(&value)?;
        Some((raw, self.resolve(die.unit, value)))
    }

    /// The DIE at `.debug_info` offset `offset`, in unit `unit` only.
    pub fn at_offset(&self, unit: usize, offset: u64) -> Option<DieRef> {
        let relative = offset.checked_sub(self.units.units[unit].start)?;
        let die = self
            .tree(unit)
            .at(UnitOffset(usize::try_from(relative).ok()?))?;
        Some(DieRef { unit, die })
    }

    /// The DIE's offset in `.debug_info`.
    pub fn offset(&self, die: DieRef) -> u64 {
        self.units.units[die.unit].start + self.tree(die.unit).offset(die.die).0 as u64
    }

    /// The DIE a reference attribute `name` of `die` names.
    pub fn referenced(&self, die: DieRef, name: DwAt) -> Option<DieRef> {
        self.resolve(die.unit, self.find(die, name)?)
    }

    /// The DIE that `die`'s only `DW_AT_abstract_origin` names, when
    /// `die` has neither `DW_AT_specification` nor any of `names`: then a
    /// walk of [`View::find_each`] for those names from `die` is the walk
    /// from that origin.
    pub fn sole_origin(&self, die: DieRef, names: &[DwAt]) -> Option<DieRef> {
        let mut origin = None;
        for attribute in self.tree(die.unit).attributes(die.die) {
            match attribute.name() {
                gimli::DW_AT_abstract_origin if origin.is_none() => {
                    origin = Some(attribute.value())
                }
                gimli::DW_AT_abstract_origin | gimli::DW_AT_specification => return None,
                name if names.contains(&name) => return None,
                _ => {}
            }
        }
        self.resolve(die.unit, origin?)
    }

    /// The DIE a reference `value` of a DIE of unit `unit` names.
    fn resolve(&self, unit: usize, value: AttributeValue<Slice<'a>>) -> Option<DieRef> {
        match value {
            AttributeValue::UnitRef(offset) => {
                let target = self.tree(unit).at(offset)?;
                Some(DieRef { unit, die: target })
            }
            AttributeValue::DebugInfoRef(offset) => {
                let offset = offset.0 as u64;
                let unit = self
                    .units
                    .units
                    .partition_point(|unit| unit.start <= offset)
                    .checked_sub(1)?;
                self.at_offset(unit, offset)
            }
            _ => None,
        }
    }

    /// For each of `queries`, the first of its names found on the DIE or,
    /// depth first, on the DIEs its `DW_AT_specification` and
    /// `DW_AT_abstract_origin` name (LLVM's `findRecursively`, once per
    /// query), in one walk over those DIEs: each origin is found once,
    /// not once per query.
    pub fn find_each<const N: usize>(
        &self,
        die: DieRef,
        queries: [&[DwAt]; N],
    ) -> [Option<gimli::Attribute<Slice<'a>>>; N] {
        self.find_each_counted(die, queries).0
    }

    /// [`View::find_each`], with how many DIEs the walk looked at
    /// ([`MAX_CHAIN`] or one less when it stopped there).
    pub fn find_each_counted<const N: usize>(
        &self,
        die: DieRef,
        queries: [&[DwAt]; N],
    ) -> ([Option<gimli::Attribute<Slice<'a>>>; N], usize) {
        let mut found = [None; N];
        let mut missing = N;
        let mut visited = 0;
        // The first DIE of the walk that has one of a query's names
        // answers it; true when every query is answered.
        let mut look = |attributes: &[gimli::Attribute<Slice<'a>>]| {
            visited += 1;
            for (query, slot) in queries.iter().zip(found.iter_mut()) {
                if slot.is_none() {
                    if let Some(attr) = attributes.iter().find(|a| query.contains(&a.name())) {
                        *slot = Some(*attr);
                        missing -= 1;
                    }
                }
            }
            missing == 0
        };
        // Most DIEs have the attributes or no origin, and most chains are
        // one line (a DIE names one origin): followed without lists, DIE by
        // DIE, as the search below would.
        let mut current = die;
        let mut in_line = true;
        for _ in 0..MAX_CHAIN {
            let attributes = self.tree(current.unit).attributes(current.die);
            if look(attributes) {
                return (found, visited);
            }
            let mut next = attributes.iter().filter(|a| {
                a.name() == gimli::DW_AT_abstract_origin || a.name() == gimli::DW_AT_specification
            });
            match (next.next(), next.next()) {
                (None, _) => return (found, visited),
                (Some(one), None) => match self.resolve(current.unit, one.value()) {
                    Some(next) => current = next,
                    None => return (found, visited),
                },
                (Some(_), Some(_)) => {
                    in_line = false;
                    break;
                }
            }
        }
        if in_line {
            // A chain of `MAX_CHAIN` DIEs (a cycle): the search below
            // visits the same DIEs in the same order, and finds nothing
            // more.
            return (found, visited);
        }
        // Real chains are a few DIEs long: a list is cheaper than a set,
        // and a corrupted file's chain stops after `MAX_CHAIN` DIEs. The
        // DIEs already looked at above are looked at again in the same
        // order, which answers nothing they did not.
        let mut seen: Vec<DieRef> = Vec::new();
        let mut work = vec![die];
        while let Some(current) = work.pop() {
            if seen.contains(&current) {
                continue;
            }
            if seen.len() == MAX_CHAIN {
                break;
            }
            seen.push(current);
            if look(self.tree(current.unit).attributes(current.die)) {
                return (found, visited);
            }
            for name in [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification] {
                if let Some(next) = self.referenced(current, name) {
                    work.push(next);
                }
            }
        }
        (found, visited)
    }

    /// The text of a string attribute's value, read for unit `unit` ("" when
    /// it is no string).
    pub fn text(&self, unit: usize, value: AttributeValue<Slice<'a>>) -> Cow<'a, str> {
        let Some((bytes, ascii)) = self.string_bytes(unit, value) else {
            return Cow::Borrowed("");
        };
        if ascii {
            // SAFETY: every byte is below 0x80 (`c_string` looked), and
            // ASCII is UTF-8.
            return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        // What `from_utf8_lossy` gives, checked the faster way first.
        match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        }
    }

    /// The bytes gimli's `attr_string` gives for a string attribute's
    /// value, and whether they are all ASCII (known for a `.debug_str`
    /// string, whose end is found in the same pass: [`c_string`]).
    fn string_bytes(
        &self,
        unit: usize,
        value: AttributeValue<Slice<'a>>,
    ) -> Option<(&'a [u8], bool)> {
        let info = &self.units.units[unit];
        let (dwarf, unit) = (info.dwarf, &info.unit);
        let offset = match value {
            AttributeValue::DebugStrRef(offset) => offset,
            AttributeValue::DebugStrOffsetsIndex(index) => dwarf.string_offset(unit, index).ok()?,
            other => return Some((dwarf.attr_string(unit, other).ok()?.slice(), false)),
        };
        let section = gimli::Section::reader(&dwarf.debug_str).slice();
        c_string(section.get(offset.0..)?)
    }

    /// The address ranges of a DIE (LLVM's `getAddressRanges`): low and
    /// high pc, else `DW_AT_ranges`; `None` when the list cannot be read.
    pub fn ranges(&self, die: DieRef) -> Option<Vec<(u64, u64)>> {
        let mut ranges = Vec::new();
        self.read_ranges(die, &mut ranges)?;
        Some(ranges)
    }

    /// [`View::ranges`] appended to `ranges` (whose room a walk reuses
    /// from one scope to the next); false, with `ranges` as it was, when
    /// the list cannot be read.
    pub fn ranges_into(&self, die: DieRef, ranges: &mut Vec<(u64, u64)>) -> bool {
        let before = ranges.len();
        if self.read_ranges(die, ranges).is_some() {
            return true;
        }
        ranges.truncate(before);
        false
    }

    /// [`View::ranges_into`], `None` where it says false.
    fn read_ranges(&self, die: DieRef, ranges: &mut Vec<(u64, u64)>) -> Option<()> {
        let info = &self.units.units[die.unit];
        let (unit, dwarf) = (&info.unit, info.dwarf);
        let tree = self.tree(die.unit);
        if let Some(low) = tree.attr(die.die, gimli::DW_AT_low_pc) {
            if let Ok(Some(low)) = dwarf.attr_address(unit, low) {
                let high = match tree.attr(die.die, gimli::DW_AT_high_pc) {
                    Some(AttributeValue::Addr(high)) => Some(high),
                    Some(AttributeValue::DebugAddrIndex(index)) => dwarf.address(unit, index).ok(),
                    Some(other) => other.udata_value().map(|size| low.wrapping_add(size)),
                    None => None,
                };
                if let Some(high) = high {
                    ranges.push((low, high));
                    return Some(());
                }
            }
        }
        let Some(value) = tree.attr(die.die, gimli::DW_AT_ranges) else {
            return Some(());
        };
        let offset = dwarf.attr_ranges_offset(unit, value).ok()??;
        let mut raw = dwarf.raw_ranges(unit, offset).ok()?;
        let tombstone = tombstone(unit.encoding().address_size);
        let mut base = unit.low_pc;
        let mut has_base = self.has_base_address(die.unit);
        while let Some(entry) = raw.next().ok()? {
            use gimli::RawRngListEntry as E;
            let (low, high) = match entry {
                E::BaseAddress { addr } => {
                    base = addr;
                    has_base = true;
                    continue;
                }
                E::BaseAddressx { addr } => {
                    base = dwarf.address(unit, addr).unwrap_or(addr.0 as u64);
                    has_base = true;
                    continue;
                }
                E::AddressOrOffsetPair { begin, end } => {
                    // .debug_ranges (DWARF 4): the tombstone is max - 1.
                    let tombstone = tombstone - 1;
                    if begin == tombstone || (has_base && base == tombstone) {
                        continue;
                    }
                    let add = if has_base { base } else { 0 };
                    (begin.wrapping_add(add), end.wrapping_add(add))
                }
                E::OffsetPair { begin, end } => {
                    if begin == tombstone || (has_base && base == tombstone) {
                        continue;
                    }
                    let add = if has_base { base } else { 0 };
                    (begin.wrapping_add(add), end.wrapping_add(add))
                }
                E::StartEnd { begin, end } => (begin, end),
                E::StartLength { begin, length } => (begin, begin.wrapping_add(length)),
                E::StartxLength { begin, length } => {
                    let begin = dwarf.address(unit, begin).unwrap_or(0);
                    (begin, begin.wrapping_add(length))
                }
                E::StartxEndx { begin, end } => (
                    dwarf.address(unit, begin).unwrap_or(0),
                    dwarf.address(unit, end).unwrap_or(0),
                ),
            };
            if low != tombstone {
                ranges.push((low, high));
            }
        }
        Some(())
    }

    /// Whether the unit's DIE has a base address (`DW_AT_low_pc` or
    /// `DW_AT_entry_pc`).
    /// A split unit's base address is its skeleton's.
    fn has_base_address(&self, unit: usize) -> bool {
        let names = [gimli::DW_AT_low_pc, gimli::DW_AT_entry_pc];
        if let Some((skeleton, _)) = &self.units.units[unit].skeleton {
            let mut entries = skeleton.entries();
            return matches!(entries.next_dfs(), Ok(Some(root))
                if names.iter().any(|&name| root.attr(name).is_some()));
        }
        let root = DieRef { unit, die: 0 };
        names.iter().any(|&name| self.has(root, name))
    }

    /// The entries of the DIE's `DW_AT_location` as LLVM's `getLocations`
    /// gives them, in `entries` (whose room is reused from one variable
    /// to the next): false without the attribute or when the list cannot
    /// be read or interpreted (an offset pair without a base address).
    pub fn locations(&self, die: DieRef, entries: &mut Vec<LocationEntry<'a>>) -> bool {
        entries.clear();
        self.read_locations(die, entries).is_some()
    }

    /// [`View::locations`], `None` where it says false.
    fn read_locations(&self, die: DieRef, entries: &mut Vec<LocationEntry<'a>>) -> Option<()> {
        let info = &self.units.units[die.unit];
        let (unit, dwarf) = (&info.unit, info.dwarf);
        let value = self.find(die, gimli::DW_AT_location)?;
        if let AttributeValue::Exprloc(expression) = value {
            entries.push(LocationEntry {
                range: None,
                expression: expression.0,
            });
            return Some(());
        }
        if let AttributeValue::Block(expression) = value {
            entries.push(LocationEntry {
                range: None,
                expression,
            });
            return Some(());
        }
        let offset = dwarf.attr_locations_offset(unit, value).ok()??;
        let mut raw = dwarf.raw_locations(unit, offset).ok()?;
        let mut base = self.has_base_address(die.unit).then_some(unit.low_pc);
        while let Some(entry) = raw.next().ok()? {
            use gimli::RawLocListEntry as E;
            let (range, data) = match entry {
                E::BaseAddress { addr } => {
                    base = Some(addr);
                    continue;
                }
                E::BaseAddressx { addr } => {
                    base = Some(dwarf.address(unit, addr).ok()?);
                    continue;
                }
                E::AddressOrOffsetPair { begin, end, data }
                | E::OffsetPair { begin, end, data } => {
                    let base = base?;
                    (
                        Some((base.wrapping_add(begin), base.wrapping_add(end))),
                        data,
                    )
                }
                E::StartxEndx { begin, end, data } => {
                    let begin = dwarf.address(unit, begin).ok()?;
                    let end = dwarf.address(unit, end).ok()?;
                    (Some((begin, end)), data)
                }
                E::StartxLength {
                    begin,
                    length,
                    data,
                } => {
                    let begin = dwarf.address(unit, begin).ok()?;
                    (Some((begin, begin.wrapping_add(length))), data)
                }
                E::StartEnd { begin, end, data } => (Some((begin, end)), data),
                E::StartLength {
                    begin,
                    length,
                    data,
                } => (Some((begin, begin.wrapping_add(length))), data),
                E::DefaultLocation { data } => (None, data),
            };
            entries.push(LocationEntry {
                range,
                expression: data.0,
            });
        }
        Some(())
    }
}

/// LLVM's `getRawUValue` of a reference attribute's raw value: the
/// unit-relative offset of `DW_FORM_ref*`, the section offset of
/// `DW_FORM_ref_addr`, else the value as a number.
fn raw_reference_value(value: &AttributeValue<Slice<'_>>) -> Option<u64> {
    match value {
        AttributeValue::UnitRef(offset) => Some(offset.0 as u64),
        AttributeValue::DebugInfoRef(offset) => Some(offset.0 as u64),
        other => other.udata_value(),
    }
}

/// The bytes of `bytes` before its first NUL (`None` without one), and
/// whether they are all ASCII: both found in one pass, eight bytes at a
/// time (names in `.debug_str` are long mangled ASCII: finding the end and
/// then checking UTF-8 read each twice).
fn c_string(bytes: &[u8]) -> Option<(&[u8], bool)> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut high = 0;
    let mut words = bytes.chunks_exact(8);
    for (number, word) in words.by_ref().enumerate() {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        // The lowest byte that is 0 sets its top bit here (bytes above it
        // may set theirs falsely, which the lowest set bit never is).
        let zeros = word.wrapping_sub(ONES) & !word & HIGHS;
        if zeros != 0 {
            let end = zeros.trailing_zeros() as usize / 8;
            let before = (1u64 << (8 * end)).wrapping_sub(1);
            high |= word & HIGHS & before;
            let end = number * 8 + end;
            return Some((&bytes[..end], high == 0));
        }
        high |= word & HIGHS;
    }
    let rest = words.remainder();
    let end = rest.iter().position(|&byte| byte == 0)?;
    let ascii = high == 0 && rest[..end].is_ascii();
    Some((&bytes[..bytes.len() - rest.len() + end], ascii))
}

/// How many DIEs [`View::find_each`] visits at most.
pub(crate) const MAX_CHAIN: usize = 64;

/// A string attribute's value, read through `dwarf` for `unit`.
pub(crate) fn string<'a>(
    dwarf: &gimli::Dwarf<Slice<'a>>,
    unit: &Unit<Slice<'a>>,
    value: AttributeValue<Slice<'a>>,
) -> Option<String> {
    let text = dwarf.attr_string(unit, value).ok()?;
    Some(String::from_utf8_lossy(text.slice()).into_owned())
}

/// A unit's `DW_AT_comp_dir` ("" without one).
pub(crate) fn comp_dir(unit: &Unit<Slice<'_>>) -> String {
    unit.comp_dir
        .map(|dir| String::from_utf8_lossy(dir.slice()).into_owned())
        .unwrap_or_default()
}

/// The split compile units of `dwos` by DWO id: which `.dwo` and the
/// unit's header.
type SplitIndex<'a> = HashMap<gimli::DwoId, (usize, gimli::UnitHeader<Slice<'a>>)>;

fn split_units<'a>(dwos: &'a [gimli::Dwarf<Slice<'a>>]) -> Result<SplitIndex<'a>, String> {
    let mut index = HashMap::new();
    for (number, dwo) in dwos.iter().enumerate() {
        let mut headers = dwo.units();
        while let Ok(Some(header)) = headers.next() {
            let start = header.offset().0 as u64;
            let split = dwo
                .unit(header)
                .map_err(|e| format!(".debug_info.dwo+{start:#x}: {e}"))?;
            if let Some(id) = split.dwo_id {
                index.entry(id).or_insert((number, header));
            }
        }
    }
    Ok(index)
}

/// Whether `unit` is a skeleton: DWARF 5's skeleton unit type, or (before
/// DWARF 5) a root DIE with `DW_AT_GNU_dwo_id` (GNU split DWARF), which
/// gimli reads into [`Unit::dwo_id`].
fn is_skeleton(unit: &Unit<Slice<'_>>) -> bool {
    match unit.header.type_() {
        gimli::UnitType::Skeleton(_) => true,
        _ => unit.header.version() < 5 && unit.dwo_id.is_some(),
    }
}

/// The DWO ids of the skeleton units among `units`, in unit order.
pub(crate) fn dwo_ids(units: &[UnitInfo<'_>]) -> Vec<gimli::DwoId> {
    units
        .iter()
        .filter(|info| is_skeleton(&info.unit))
        .filter_map(|info| info.unit.dwo_id)
        .collect()
}

/// The `.dwo` files the skeleton units among `units` name
/// (`DW_AT_comp_dir`/`DW_AT_dwo_name`, or `DW_AT_GNU_dwo_name`), each
/// once, in unit order.
pub(crate) fn dwo_paths(units: &[UnitInfo<'_>]) -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    for info in units.iter().filter(|info| is_skeleton(&info.unit)) {
        let (unit, dwarf) = (&info.unit, info.dwarf);
        if unit.dwo_id.is_none() {
            continue;
        }
        let name = unit
            .dwo_name()
            .ok()
            .flatten()
            .and_then(|name| string(dwarf, unit, name));
        if let Some(name) = name {
            let path = std::path::Path::new(&comp_dir(unit)).join(name);
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

/// `items` mapped with `map`, in order: on rayon's threads when `parallel`.
fn map_in_order<T: Send, U: Send>(
    items: Vec<T>,
    parallel: bool,
    map: impl Fn(T) -> U + Sync + Send,
) -> Vec<U> {
    if parallel {
        items.into_par_iter().map(map).collect()
    } else {
        items.into_iter().map(map).collect()
    }
}

/// Whether `dwarf`'s units are read and walked on rayon's threads (a
/// `.debug_info` of at least [`PARALLEL_FROM`] bytes).
fn is_large(dwarf: &gimli::Dwarf<Slice<'_>>) -> bool {
    gimli::Section::reader(&dwarf.debug_info).len() >= PARALLEL_FROM
}

/// The address DWARF 5 marks discarded code with (all ones).
fn tombstone(address_size: u8) -> u64 {
    if address_size >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * u32::from(address_size))) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::c_string;

    #[test]
    fn a_c_string_ends_at_its_first_nul_and_is_ascii_when_every_byte_before_is() {
        let texts: [&[u8]; 8] = [
            b"\0",
            b"x\0",
            b"_ZN4core3fmt9Formatter9write_str17h0123456789abcdefE\0tail",
            b"1234567\0",
            b"12345678\0",
            "caf\u{e9} au lait\0".as_bytes(),
            b"abcdefg\0\xff\xfe after the end",
            b"no end",
        ];
        for text in texts {
            // Its end at every place in a word of eight bytes.
            for longer in 0..8 {
                let mut bytes = vec![b'a'; longer];
                bytes.extend_from_slice(text);
                let expected = std::ffi::CStr::from_bytes_until_nul(&bytes)
                    .ok()
                    .map(|c| (c.to_bytes(), c.to_bytes().is_ascii()));
                assert_eq!(c_string(&bytes), expected, "{text:?} after {longer}");
            }
        }
    }
}
