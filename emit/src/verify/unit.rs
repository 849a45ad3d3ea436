//! The DIE side of `verify`: references, subprogram and scope ranges,
//! location lists, typed operations, addresses and pieces.
//!
//! In: the relocated DWARF of an object. Out: problems added to the list,
//! unit by unit in unit order (the units are checked in parallel).

use std::path::Path;

use gimli::{AttributeValue, Operation, RawLocListEntry, UnitOffset};
use rayon::prelude::*;

use super::forms::{check_debug_sections, check_forms, FormsContext};
use super::line::check_line_table;
use super::object::AddressRange;
use super::ranges::DieRanges;
use super::{describe, describe_range, Problems, VerifyOptions};
use crate::read::{
    dwo_file, split_unit, DieTree, DwarfSections, ElfObject, Package, Slice, SplitFile, TreePool,
    PARALLEL_FROM,
};

pub(super) fn check_dwarf(
    object: &ElfObject,
    sections: &DwarfSections,
    options: &VerifyOptions,
    file: Option<&Path>,
    problems: &mut Problems,
) {
    if !sections.has_debug_info() {
        return;
    }
    let beside = file.and_then(Path::parent);
    let package = match file.and_then(Package::of) {
        Some(Err(message)) => return problems.add(message),
        Some(Ok(package)) => Some(package),
        None => None,
    };
    let dwarf = sections.dwarf();
    // A DWARF 4 skeleton (GNU split DWARF) has a `.debug_addr` without
    // headers: the tables are DWARF 5's only when every unit is.
    let mut headers = dwarf.units();
    let mut all_dwarf5 = true;
    while let Ok(Some(header)) = headers.next() {
        all_dwarf5 &= header.version() >= 5;
    }
    check_debug_sections(object, all_dwarf5, problems);
    let run_on_sections = sections.lists_run_on();
    let run_on = run_on_sections.dwarf();
    // Units are checked in parallel (rayon) in a large file; their problems are listed in
    // unit order, up to the first unit that stops the check, so the output
    // is the same whatever the number of threads.
    let mut headers = Vec::new();
    let mut units = dwarf.units();
    let malformed = loop {
        match units.next() {
            Ok(Some(header)) => headers.push(header),
            Ok(None) => break None,
            Err(e) => break Some(format!("malformed .debug_info: {e}")),
        }
    };
    let check_one_unit = |tree: &mut _, header| {
        let mut problems = Problems::default();
        let unit = match dwarf.unit(header) {
            Ok(unit) => unit,
            Err(e) => {
                problems.add(format!("malformed unit in .debug_info: {e}"));
                return (problems, false);
            }
        };
        check_line_table(object, &unit, &mut problems);
        let run_on = Some(&run_on);
        if !check_unit(
            object,
            sections,
            &dwarf,
            run_on,
            &unit,
            tree,
            options,
            &mut problems,
        ) {
            return (problems, false);
        }
        match dwo_file(&dwarf, &unit, beside, package.as_ref()) {
            None => {}
            Some(Ok(file)) => {
                check_split_unit(object, &file, &dwarf, &unit, options, &mut problems)
            }
            Some(Err(message)) => problems.add(format!(
                ".debug_info: the skeleton unit at {:#x}: {message}",
                unit.header.offset().0
            )),
        }
        (problems, true)
    };
    // A few trees, read unit after unit.
    let largest = headers.iter().map(|header| header.unit_length()).max();
    let trees = TreePool::with_room(largest.unwrap_or(0));
    let check_one = |header| {
        let mut tree = trees.take();
        let checked = check_one_unit(&mut tree, header);
        trees.give(tree);
        checked
    };
    let checked: Vec<(Problems, bool)> =
        if sections.data(gimli::SectionId::DebugInfo).len() >= PARALLEL_FROM {
            headers.into_par_iter().map(check_one).collect()
        } else {
            headers.into_iter().map(check_one).collect()
        };
    for (found, go_on) in checked {
        problems.list.extend(found.list);
        if !go_on {
            return;
        }
    }
    if let Some(message) = malformed {
        return problems.add(message);
    }
    // DWARF 4 type units (`-fdebug-types-section`): their DIEs only; their
    // line tables are their compile units'.
    let mut tree = DieTree::default();
    let mut type_units = dwarf.type_units();
    loop {
        let header = match type_units.next() {
            Ok(Some(header)) => header,
            Ok(None) => return,
            Err(e) => return problems.add(format!("malformed .debug_types: {e}")),
        };
        match dwarf.unit(header) {
            Ok(unit) => {
                let run_on = Some(&run_on);
                if !check_unit(
                    object, sections, &dwarf, run_on, &unit, &mut tree, options, problems,
                ) {
                    return;
                }
            }
            Err(e) => return problems.add(format!("malformed unit in .debug_types: {e}")),
        }
    }
}

/// Checks the split unit a skeleton names (its line rows are the
/// skeleton's); what is found is prefixed with the `.dwo` file's path.
fn check_split_unit(
    object: &ElfObject,
    file: &SplitFile,
    dwarf: &gimli::Dwarf<Slice<'_>>,
    skeleton: &gimli::Unit<Slice<'_>>,
    options: &VerifyOptions,
    problems: &mut Problems,
) {
    let mut dwo = file.sections.dwarf();
    dwo.make_dwo(dwarf);
    let mut found = Problems::default();
    match split_unit(&dwo, skeleton) {
        Ok(unit) => {
            check_unit(
                object,
                &file.sections,
                &dwo,
                None,
                &unit,
                &mut DieTree::default(),
                options,
                &mut found,
            );
        }
        Err(message) => found.add(message),
    }
    for problem in found.list {
        problems.add(format!("{}: {}", file.path.display(), problem.message));
    }
}

/// Checks one unit's DIEs, read into `tree` (whose arrays are reused);
/// false when they cannot be read (reported). `run_on`: the DWARF with its
/// lists read on past their sections' ends (see
/// `DwarfSections::lists_run_on`), when it is not a split unit.
#[allow(clippy::too_many_arguments)]
fn check_unit<'a>(
    object: &ElfObject,
    sections: &DwarfSections,
    dwarf: &gimli::Dwarf<Slice<'a>>,
    run_on: Option<&gimli::Dwarf<Slice<'a>>>,
    unit: &gimli::Unit<Slice<'a>>,
    tree: &mut DieTree<'a>,
    options: &VerifyOptions,
    problems: &mut Problems,
) -> bool {
    match tree.read_into(unit) {
        Ok(()) => {}
        Err(e) => {
            problems.add(format!("malformed DIEs in .debug_info: {e}"));
            return false;
        }
    };
    let ranges = DieRanges::read(dwarf, unit, tree);
    let context = FormsContext {
        object,
        sections,
        dwarf,
        run_on,
        unit,
        tree,
        ranges: &ranges,
    };
    if tree.is_empty() {
        check_forms(&context, &|_| String::new(), problems);
        return true;
    }
    let mut checker = UnitChecker {
        object,
        dwarf,
        unit,
        tree,
        discarded: Vec::new(),
        ranges: &ranges,
    };
    checker.discarded = checker.discarded_dies();
    checker.check(options, problems);
    check_forms(&context, &|die| checker.die_name(die), problems);
    true
}

struct UnitChecker<'c, 'a> {
    object: &'c ElfObject,
    dwarf: &'c gimli::Dwarf<Slice<'a>>,
    unit: &'c gimli::Unit<Slice<'a>>,
    tree: &'c DieTree<'a>,
    /// Per DIE: it describes code the linker discarded (see
    /// `read::ElfObject::discarded`), so its addresses say nothing.
    discarded: Vec<bool>,
    /// Every DIE's ranges.
    ranges: &'c DieRanges,
}

impl UnitChecker<'_, '_> {
    /// Which DIEs describe discarded code: a subprogram, lexical block or
    /// inlined call of a linked file whose ranges all start at a discarded
    /// address (or that has an address attribute but no range gimli keeps:
    /// lld's tombstones), and everything inside one; not a subprogram a
    /// function symbol of its name is kept for, unless it starts at a
    /// tombstone (see [`Self::kept_elsewhere`]).
    fn discarded_dies(&self) -> Vec<bool> {
        let mut discarded = vec![false; self.tree.len()];
        if self.object.code_start == 0 {
            return discarded;
        }
        for die in 0..self.tree.len() {
            let parent = self.tree.parent(die).is_some_and(|p| discarded[p]);
            // Only a scope's attributes are looked at.
            let placed = || {
                self.tree.has(die, gimli::DW_AT_low_pc) || self.tree.has(die, gimli::DW_AT_ranges)
            };
            let scope = matches!(
                self.tree.tag(die),
                gimli::DW_TAG_subprogram
                    | gimli::DW_TAG_lexical_block
                    | gimli::DW_TAG_inlined_subroutine
            );
            discarded[die] = parent
                || (scope
                    && placed()
                    && self.ranges.of(die).is_ok_and(|ranges| {
                        ranges
                            .iter()
                            .all(|&(start, _)| self.object.discarded(start))
                            && !self.kept_elsewhere(die, ranges)
                    }));
        }
        discarded
    }

    /// Whether subprogram `die`, at discarded addresses `ranges`, is not at
    /// a linker's tombstone (0, or lld's -1/-2: where a discarded function
    /// starts) and names a function the file keeps: then its address is
    /// wrong, not discarded.
    fn kept_elsewhere(&self, die: usize, ranges: &[(u64, u64)]) -> bool {
        let tombstone = |start: u64| start == 0 || start >= u64::MAX - 1;
        if self.tree.tag(die) != gimli::DW_TAG_subprogram
            || ranges.iter().all(|&(start, _)| tombstone(start))
        {
            return false;
        }
        let Some(name) = self
            .tree
            .attr(die, gimli::DW_AT_name)
            .and_then(|value| self.dwarf.attr_string(self.unit, value).ok())
        else {
            return false;
        };
        self.object
            .functions
            .iter()
            .any(|function| function.name.as_bytes() == name.slice())
    }

    /// `DIE 0x...` with the DIE's offset in `.debug_info`, and its name.
    fn die_name(&self, die: usize) -> String {
        let offset = self.tree.offset(die);
        let section_offset = offset
            .to_debug_info_offset(&self.unit.header)
            .map_or(offset.0, |o| o.0);
        let name = self
            .tree
            .inherited(die, gimli::DW_AT_name)
            .and_then(|value| self.dwarf.attr_string(self.unit, value).ok())
            .map(|name| String::from_utf8_lossy(name.slice()).into_owned());
        match name {
            Some(name) => format!("DIE {section_offset:#x} ({name})"),
            None => format!("DIE {section_offset:#x}"),
        }
    }

    fn check(&self, options: &VerifyOptions, problems: &mut Problems) {
        let promises_full_pieces = options.pieces_cover_variables;
        for die in 0..self.tree.len() {
            self.check_references(die, problems);
            if self.discarded[die] {
                continue;
            }
            match self.tree.tag(die) {
                gimli::DW_TAG_subprogram => {
                    self.check_subprogram_ranges(die, problems);
                    if let Some(AttributeValue::Exprloc(expression)) =
                        self.tree.attr(die, gimli::DW_AT_frame_base)
                    {
                        self.check_expression(die, expression, None, problems);
                    }
                }
                gimli::DW_TAG_variable | gimli::DW_TAG_formal_parameter => {
                    self.check_variable(die, promises_full_pieces, problems);
                }
                _ => {}
            }
            if matches!(
                self.tree.tag(die),
                gimli::DW_TAG_subprogram
                    | gimli::DW_TAG_lexical_block
                    | gimli::DW_TAG_inlined_subroutine
            ) {
                self.check_nested_scopes(die, problems);
            }
        }
    }

    /// The ranges of `die`'s nested scopes (lexical blocks, inlined calls)
    /// lie inside its own ranges and do not overlap one another.
    fn check_nested_scopes(&self, die: usize, problems: &mut Problems) {
        let Ok(outer) = self.ranges.of(die) else {
            return; // reported where the ranges are checked
        };
        let outer: Vec<(u64, u64)> = outer
            .iter()
            .copied()
            .filter(|(start, end)| start < end)
            .collect();
        let placed = self.tree.attr(die, gimli::DW_AT_low_pc).is_some()
            || self.tree.attr(die, gimli::DW_AT_ranges).is_some();
        if outer.is_empty() && !placed {
            return; // an abstract scope: its copies carry the ranges
        }
        let mut inner: Vec<(u64, u64, usize)> = Vec::new();
        for &child in self.tree.children(die) {
            if !matches!(
                self.tree.tag(child),
                gimli::DW_TAG_lexical_block | gimli::DW_TAG_inlined_subroutine
            ) {
                continue;
            }
            let Ok(ranges) = self.ranges.of(child) else {
                continue;
            };
            for &(start, end) in ranges.iter().filter(|(start, end)| start < end) {
                if !covered(&outer, start, end) {
                    problems.add(format!(
                        "{}: range {} is not inside the ranges of {}",
                        self.die_name(child),
                        describe_range(self.object, start, end),
                        self.die_name(die)
                    ));
                }
                inner.push((start, end, child));
            }
        }
        inner.sort_unstable();
        for pair in inner.windows(2) {
            let ((_, first_end, first), (second_start, second_end, second)) = (
                (pair[0].0, pair[0].1, pair[0].2),
                (pair[1].0, pair[1].1, pair[1].2),
            );
            if second_start < first_end && first != second {
                problems.add(format!(
                    "{} and {}: ranges overlap at {}",
                    self.die_name(first),
                    self.die_name(second),
                    describe_range(self.object, second_start, second_end.min(first_end))
                ));
            }
        }
    }

    /// Every reference within the unit names the first byte of a DIE.
    fn check_references(&self, die: usize, problems: &mut Problems) {
        // gimli's `Attribute::value` makes no unit reference of another
        // raw value, nor another value of one: the raw value is enough.
        for attribute in self.tree.attributes(die) {
            if let AttributeValue::UnitRef(offset) = attribute.raw_value() {
                if self.tree.at(offset).is_none() {
                    problems.add(format!(
                        "{}: {} names unit offset {:#x}, where no DIE starts",
                        self.die_name(die),
                        attribute.name(),
                        offset.0
                    ));
                }
            }
        }
    }

    fn check_subprogram_ranges(&self, die: usize, problems: &mut Problems) {
        let ranges = match self.ranges.of(die) {
            Ok(ranges) => ranges,
            Err(e) => {
                return problems.add(format!(
                    "{}: malformed address ranges: {e}",
                    self.die_name(die)
                ))
            }
        };
        for &(start, end) in ranges {
            let functions = &self.object.functions;
            let first = functions.partition_point(|f| f.address < start);
            let matching = functions[first..]
                .iter()
                .take_while(|f| f.address == start)
                .any(|f| f.end() == end);
            if !matching {
                problems.add(format!(
                    "{}: subprogram range {} is not that of a function symbol",
                    self.die_name(die),
                    describe_range(self.object, start, end)
                ));
            }
        }
    }

    /// The functions the subprogram enclosing `die` covers.
    fn enclosing_functions(&self, die: usize) -> Vec<(u64, u64)> {
        let Some(subprogram) = self.enclosing_subprogram(die) else {
            return Vec::new();
        };
        let ranges = self.ranges.of(subprogram).unwrap_or_default();
        let mut functions: Vec<usize> = ranges
            .iter()
            .filter_map(|&(start, _)| Some(self.object.function_at(start)?.0))
            .collect();
        functions.sort_unstable();
        functions.dedup();
        let placed = |f: usize| &self.object.functions[f];
        functions
            .into_iter()
            .map(|f| (placed(f).address, placed(f).end()))
            .collect()
    }

    fn enclosing_subprogram(&self, die: usize) -> Option<usize> {
        let mut current = die;
        loop {
            current = self.tree.parent(current)?;
            if self.tree.tag(current) == gimli::DW_TAG_subprogram {
                return Some(current);
            }
        }
    }

    fn check_variable(&self, die: usize, promises_full_pieces: bool, problems: &mut Problems) {
        // A size of 0 says nothing (a base type written without `size:`,
        // an array of such elements): LLVM's IR verifier checks fragments
        // only against a known variable size, and llvm-dwarfdump checks
        // pieces against none; so the pieces are not checked either.
        let size = self
            .type_size(self.tree.inherited(die, gimli::DW_AT_type), 0)
            .filter(|&size| size > 0);
        let piece_rule = PieceRule {
            size,
            promises_full_pieces,
        };
        match self.tree.attr(die, gimli::DW_AT_location) {
            None => {}
            Some(AttributeValue::Exprloc(expression)) => {
                self.check_expression(die, expression, Some(piece_rule), problems);
            }
            Some(value) => self.check_location_list(die, value, piece_rule, problems),
        }
    }

    fn check_location_list(
        &self,
        die: usize,
        value: AttributeValue<Slice<'_>>,
        piece_rule: PieceRule,
        problems: &mut Problems,
    ) {
        let offset = match self.dwarf.attr_locations_offset(self.unit, value) {
            Ok(Some(offset)) => offset,
            Ok(None) => return,
            Err(e) => {
                return problems.add(format!(
                    "{}: malformed location list: {e}",
                    self.die_name(die)
                ))
            }
        };
        let mut raw = match self.dwarf.raw_locations(self.unit, offset) {
            Ok(raw) => raw,
            Err(e) => {
                return problems.add(format!(
                    "{}: malformed location list: {e}",
                    self.die_name(die)
                ))
            }
        };
        let functions = self.enclosing_functions(die);
        let mut base = self.unit.low_pc;
        let mut entries: Vec<(u64, u64)> = Vec::new();
        loop {
            let entry = match raw.next() {
                Ok(Some(entry)) => entry,
                Ok(None) => break,
                Err(e) => {
                    return problems.add(format!(
                        "{}: malformed location list at .debug_loclists+{:#x}: {e}",
                        self.die_name(die),
                        offset.0
                    ))
                }
            };
            let range = match self.entry_range(entry, &mut base) {
                Ok(Some((start, end, expression))) => {
                    self.check_expression(die, expression, Some(piece_rule), problems);
                    (start, end)
                }
                Ok(None) => continue,
                Err(e) => {
                    return problems.add(format!(
                        "{}: malformed location list entry: {e}",
                        self.die_name(die)
                    ))
                }
            };
            self.check_entry_range(die, range, &functions, problems);
            entries.push(range);
        }
        entries.retain(|(start, end)| start < end);
        entries.sort();
        for pair in entries.windows(2) {
            if pair[1].0 < pair[0].1 {
                problems.add(format!(
                    "{}: location list entries {} and {} overlap",
                    self.die_name(die),
                    describe_range(self.object, pair[0].0, pair[0].1),
                    describe_range(self.object, pair[1].0, pair[1].1)
                ));
            }
        }
    }

    /// The address range and expression of a raw entry (`None` for base
    /// address entries and default locations), tracking the base address.
    fn entry_range<'a>(
        &self,
        entry: RawLocListEntry<Slice<'a>>,
        base: &mut u64,
    ) -> Result<Option<EntryRange<'a>>, gimli::Error> {
        let address = |index| self.dwarf.address(self.unit, index);
        Ok(Some(match entry {
            RawLocListEntry::BaseAddress { addr } => {
                *base = addr;
                return Ok(None);
            }
            RawLocListEntry::BaseAddressx { addr } => {
                *base = address(addr)?;
                return Ok(None);
            }
            RawLocListEntry::DefaultLocation { .. } => return Ok(None),
            RawLocListEntry::AddressOrOffsetPair { begin, end, data }
            | RawLocListEntry::OffsetPair { begin, end, data } => {
                (base.wrapping_add(begin), base.wrapping_add(end), data)
            }
            RawLocListEntry::StartEnd { begin, end, data } => (begin, end, data),
            RawLocListEntry::StartLength {
                begin,
                length,
                data,
            } => (begin, begin.wrapping_add(length), data),
            RawLocListEntry::StartxEndx { begin, end, data } => {
                (address(begin)?, address(end)?, data)
            }
            RawLocListEntry::StartxLength {
                begin,
                length,
                data,
            } => {
                let begin = address(begin)?;
                (begin, begin.wrapping_add(length), data)
            }
        }))
    }

    fn check_entry_range(
        &self,
        die: usize,
        (start, end): (u64, u64),
        functions: &[(u64, u64)],
        problems: &mut Problems,
    ) {
        if end < start {
            problems.add(format!(
                "{}: location list entry {} runs backwards",
                self.die_name(die),
                describe_range(self.object, start, end)
            ));
            return;
        }
        let inside = functions
            .iter()
            .any(|&(low, high)| start >= low && end <= high);
        if !inside {
            problems.add(format!(
                "{}: location list entry {} is not inside its subprogram's function{}",
                self.die_name(die),
                describe_range(self.object, start, end),
                match self.object.function_at(start) {
                    Some((f, _)) => format!(
                        " ({} ends at {})",
                        self.object.functions[f].name,
                        describe(self.object, self.object.functions[f].end())
                    ),
                    None => String::new(),
                }
            ));
        }
    }

    fn check_expression(
        &self,
        die: usize,
        expression: gimli::Expression<Slice<'_>>,
        piece_rule: Option<PieceRule>,
        problems: &mut Problems,
    ) {
        let mut operations = expression.operations(self.unit.encoding());
        let mut piece_bits: u64 = 0;
        let mut has_pieces = false;
        loop {
            let operation = match operations.next() {
                Ok(Some(operation)) => operation,
                Ok(None) => break,
                Err(e) => {
                    return problems.add(format!(
                        "{}: malformed location expression: {e}",
                        self.die_name(die)
                    ))
                }
            };
            let typed = match operation {
                Operation::RegisterOffset { base_type, .. } => {
                    Some(("DW_OP_regval_type", base_type))
                }
                Operation::Convert { base_type } => Some(("DW_OP_convert", base_type)),
                Operation::Reinterpret { base_type } => Some(("DW_OP_reinterpret", base_type)),
                Operation::TypedLiteral { base_type, .. } => Some(("DW_OP_const_type", base_type)),
                Operation::Deref { base_type, .. } => Some(("DW_OP_deref_type", base_type)),
                Operation::Address { address } => {
                    self.check_data_address(die, address, problems);
                    None
                }
                Operation::AddressIndex { index } => {
                    match self.dwarf.address(self.unit, index) {
                        Ok(address) => self.check_data_address(die, address, problems),
                        Err(e) => problems.add(format!(
                            "{}: DW_OP_addrx {}: {e}",
                            self.die_name(die),
                            index.0
                        )),
                    }
                    None
                }
                Operation::Piece { size_in_bits, .. } => {
                    has_pieces = true;
                    piece_bits = piece_bits.saturating_add(size_in_bits);
                    None
                }
                _ => None,
            };
            if let Some((name, base_type)) = typed {
                self.check_base_type(die, name, base_type, problems);
            }
        }
        let Some(PieceRule {
            size: Some(size),
            promises_full_pieces,
        }) = piece_rule
        else {
            return;
        };
        if !has_pieces {
            return;
        }
        let bits = size.saturating_mul(8);
        if piece_bits > bits || (promises_full_pieces && piece_bits < bits) {
            let covered = if piece_bits.is_multiple_of(8) {
                format!("{} of its {size} bytes", piece_bits / 8)
            } else {
                format!("{piece_bits} bits of its {size} bytes")
            };
            problems.add(format!("{}: pieces cover {covered}", self.die_name(die)));
        }
    }

    /// A `DW_OP_addr` must point into a data object (an STT_OBJECT symbol),
    /// into a data section's bytes no symbol names (a string literal in
    /// `.rodata.str1.1`, whose address clang and gcc describe as a value),
    /// or at the start of a function (an STT_FUNC symbol: a function's
    /// address held as a value, `DW_OP_addr f, DW_OP_stack_value`, as gcc
    /// describes a function pointer whose register it optimised away).
    ///
    /// In a linked file an address below its code (0: GNU ld's value for
    /// data it discarded, such as a vtable of discarded code) is not checked.
    fn check_data_address(&self, die: usize, address: u64, problems: &mut Problems) {
        if self.object.discarded(address) {
            return;
        }
        let in_data_section = self.object.sections.iter().any(|section| {
            section.is_data()
                && address >= section.address
                && address < section.address + section.size
        });
        let inside = in_data_section
            || self.object.symbols.iter().any(|symbol| {
                if symbol.section.is_none() {
                    return false;
                }
                let start = self.object.symbol_address(symbol);
                match symbol.kind {
                    goblin::elf::sym::STT_OBJECT => {
                        address == start
                            || (address > start && address < start.saturating_add(symbol.size))
                    }
                    goblin::elf::sym::STT_FUNC => address == start,
                    _ => false,
                }
            });
        if !inside {
            problems.add(format!(
                "{}: DW_OP_addr {} is in no data object",
                self.die_name(die),
                describe(self.object, address)
            ));
        }
    }

    fn check_base_type(
        &self,
        die: usize,
        operation: &str,
        base_type: UnitOffset,
        problems: &mut Problems,
    ) {
        if base_type.0 == 0 {
            return; // the generic type (and plain DW_OP_bregN / DW_OP_deref)
        }
        let tag = self.tree.at(base_type).map(|d| self.tree.tag(d));
        if tag != Some(gimli::DW_TAG_base_type) {
            problems.add(format!(
                "{}: {operation} names unit offset {:#x}, which is {}, not a DW_TAG_base_type",
                self.die_name(die),
                base_type.0,
                match tag {
                    Some(tag) => format!("a {tag}"),
                    None => "no DIE".to_string(),
                }
            ));
        }
    }

    /// The byte size of the type a `DW_AT_type` names, when known.
    fn type_size(&self, value: Option<AttributeValue<Slice<'_>>>, depth: usize) -> Option<u64> {
        if depth > 16 {
            return None;
        }
        let die = self.tree.reference(value?)?;
        if let Some(size) = self
            .tree
            .attr(die, gimli::DW_AT_byte_size)
            .and_then(|v| v.udata_value())
        {
            return Some(size);
        }
        match self.tree.tag(die) {
            gimli::DW_TAG_pointer_type
            | gimli::DW_TAG_reference_type
            | gimli::DW_TAG_rvalue_reference_type => {
                Some(u64::from(self.unit.encoding().address_size))
            }
            gimli::DW_TAG_array_type => {
                let element = self.type_size(self.tree.attr(die, gimli::DW_AT_type), depth + 1)?;
                let mut total = element;
                let mut bounded = false;
                for &child in self.tree.children(die) {
                    if self.tree.tag(child) == gimli::DW_TAG_subrange_type {
                        bounded = true;
                        let count = self
                            .tree
                            .attr(child, gimli::DW_AT_count)
                            .and_then(|v| v.udata_value())
                            .or_else(|| {
                                let upper = self
                                    .tree
                                    .attr(child, gimli::DW_AT_upper_bound)?
                                    .udata_value()?;
                                upper.checked_add(1)
                            })?;
                        total = total.checked_mul(count)?;
                    }
                }
                // An array without a subrange has no known bounds (LLVM
                // writes one so when the elements are no DISubrange).
                bounded.then_some(total)
            }
            _ => self.type_size(self.tree.attr(die, gimli::DW_AT_type), depth + 1),
        }
    }
}

/// Whether `[start, end)` lies inside the union of `ranges`.
fn covered(ranges: &[AddressRange], start: u64, end: u64) -> bool {
    let mut sorted = ranges.to_vec();
    sorted.sort_unstable();
    let mut reached = start;
    for (low, high) in sorted {
        if low <= reached && high > reached {
            reached = high;
        }
        if reached >= end {
            return true;
        }
    }
    reached >= end
}

/// A location list entry's start, end and expression.
type EntryRange<'a> = (u64, u64, gimli::Expression<Slice<'a>>);

/// How the pieces of a variable's location are checked.
#[derive(Clone, Copy)]
struct PieceRule {
    /// The variable's type size in bytes, when known (never 0).
    size: Option<u64>,
    /// Whether the pieces must cover every byte (dwarfsmith's promise).
    promises_full_pieces: bool,
}
