//! Invariants of an ELF x86-64 object and its DWARF.
//!
//! In: the bytes of any ELF x86-64 relocatable object.
//! Out: the [`Problem`]s found (none: the object keeps every invariant).
//!
//! The invariants, each checked on the raw DWARF (relocations applied, as
//! `read` does) rather than on the model, so that what `read` would leave
//! out is still seen:
//! - the ELF is well formed: header, section contents inside the file,
//!   relocations inside their sections and naming real symbols, function
//!   and data symbols inside their sections;
//! - every function symbol (with code) is covered by an `.eh_frame` (or
//!   `.debug_frame`) FDE;
//! - the line table: addresses within a sequence never go backwards, and
//!   every row lies inside one code section;
//! - every subprogram's address ranges are exactly those of function
//!   symbols;
//! - every location list entry runs forwards, lies inside a function of
//!   its subprogram, and does not overlap another entry of its list;
//! - every typed operation (`DW_OP_regval_type`, `convert`, `reinterpret`,
//!   `const_type`, `deref_type`) names a `DW_TAG_base_type` DIE;
//! - the pieces of a composite location never exceed the variable's type
//!   size, and (with [`VerifyOptions::pieces_cover_variables`], dwarfsmith's
//!   promise) cover it.
//!
//! A problem names where it is: section, function, DIE offset in
//! `.debug_info`, variable name, address as `section+offset`.
//!
//! Beside the invariants, [`round_trip_with`] checks that a model written
//! and read back is the model in [`normalise`]d form.

mod normalise;
mod round_trip;

use std::fmt;

pub use normalise::normalise;
pub use round_trip::{round_trip, round_trip_with};

use gimli::{AttributeValue, CieOrFde, Operation, RawLocListEntry, UnitOffset, UnwindSection};

use crate::read::{DieTree, DwarfSections, ElfObject, Slice};

/// One thing wrong with an object: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong, naming where (section, function, DIE offset...).
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// What [`verify_with`] holds an object to beyond what every compiler's
/// objects keep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Composite locations cover every byte of their variable: dwarfsmith's
    /// promise (the model's `Op::Piece`); clang and gcc leave parts they
    /// know nothing of undescribed, so [`verify`] does not ask it.
    pub pieces_cover_variables: bool,
}

/// Checks an object and lists what is wrong with it (empty: nothing found).
pub fn verify(bytes: &[u8]) -> Vec<Problem> {
    verify_with(bytes, &VerifyOptions::default())
}

/// Checks an object under `options` and lists what is wrong with it.
pub fn verify_with(bytes: &[u8], options: &VerifyOptions) -> Vec<Problem> {
    let mut problems = Problems::default();
    let object = match ElfObject::parse(bytes) {
        Ok(object) => object,
        Err(error) => {
            problems.add(format!("malformed object: {error}"));
            return problems.list;
        }
    };
    check_symbols(&object, &mut problems);
    check_cfi(&object, &mut problems);
    match DwarfSections::load(&object) {
        Ok(sections) => check_dwarf(&object, &sections, options, &mut problems),
        Err(error) => problems.add(format!("malformed DWARF section: {error}")),
    }
    problems.list
}

#[derive(Default)]
struct Problems {
    list: Vec<Problem>,
}

impl Problems {
    fn add(&mut self, message: String) {
        self.list.push(Problem { message });
    }
}

/// The allocated section `address` lies in, or else the last one before it.
fn section_before(object: &ElfObject, address: u64) -> Option<&crate::read::Section> {
    object
        .sections
        .iter()
        .filter(|s| {
            s.flags & u64::from(goblin::elf::section_header::SHF_ALLOC) != 0 && s.address <= address
        })
        .max_by_key(|s| s.address)
}

/// `section+offset` for `address`, relative to `section`, marked when it
/// runs past the section's end.
fn relative(section: Option<&crate::read::Section>, address: u64) -> String {
    match section {
        Some(section) => {
            let offset = address.wrapping_sub(section.address);
            let past = if offset > section.size {
                " (past its end)"
            } else {
                ""
            };
            format!("{}+{offset:#x}{past}", section.name)
        }
        None => format!("address {address:#x} (before every section)"),
    }
}

/// `section+offset` for a synthetic address.
fn describe(object: &ElfObject, address: u64) -> String {
    relative(section_before(object, address), address)
}

/// `[start, end)`, both relative to the section `start` lies in.
fn describe_range(object: &ElfObject, start: u64, end: u64) -> String {
    let section = section_before(object, start);
    format!("[{}, {})", relative(section, start), relative(section, end))
}

fn check_symbols(object: &ElfObject, problems: &mut Problems) {
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

fn check_cfi(object: &ElfObject, problems: &mut Problems) {
    let (name, covered) = match fde_ranges(object) {
        Ok(found) => found,
        Err(message) => {
            problems.add(message);
            return;
        }
    };
    for function in object.functions.iter().filter(|f| f.size > 0) {
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
    let relocated = |index: usize| {
        object
            .relocated(index)
            .map_err(|e| format!("malformed ELF: {e}"))
    };
    if let Some(index) = object.section_index(".eh_frame") {
        let data = relocated(index)?;
        let mut section = gimli::EhFrame::new(&data, gimli::LittleEndian);
        section.set_address_size(8);
        let bases = gimli::BaseAddresses::default().set_eh_frame(object.sections[index].address);
        Ok((".eh_frame", collect(&section, &bases, ".eh_frame")?))
    } else if let Some(index) = object.section_index(".debug_frame") {
        let data = relocated(index)?;
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

fn check_dwarf(
    object: &ElfObject,
    sections: &DwarfSections,
    options: &VerifyOptions,
    problems: &mut Problems,
) {
    if !sections.has_debug_info() {
        return;
    }
    let dwarf = sections.dwarf();
    let mut units = dwarf.units();
    loop {
        let header = match units.next() {
            Ok(Some(header)) => header,
            Ok(None) => return,
            Err(e) => return problems.add(format!("malformed .debug_info: {e}")),
        };
        let unit = match dwarf.unit(header) {
            Ok(unit) => unit,
            Err(e) => return problems.add(format!("malformed unit in .debug_info: {e}")),
        };
        let tree = match DieTree::read(&unit) {
            Ok(tree) => tree,
            Err(e) => return problems.add(format!("malformed DIEs in .debug_info: {e}")),
        };
        check_line_table(object, &unit, problems);
        let checker = UnitChecker {
            object,
            dwarf: &dwarf,
            unit: &unit,
            tree: &tree,
        };
        checker.check(options, problems);
    }
}

/// Walks the line program's instructions (not gimli's rows, which hide a
/// sequence whose address goes backwards as a tombstone) and checks each
/// row's address.
fn check_line_table(object: &ElfObject, unit: &gimli::Unit<Slice<'_>>, problems: &mut Problems) {
    let Some(program) = unit.line_program.clone() else {
        return;
    };
    let header = program.header();
    let min_length = u64::from(header.minimum_instruction_length());
    let line_range = header.line_range().max(1);
    let opcode_base = header.opcode_base();
    let line_base = i64::from(header.line_base());
    // Address and line advance of a special opcode.
    let special = |opcode: u8| {
        let adjusted = opcode.wrapping_sub(opcode_base);
        (
            u64::from(adjusted / line_range) * min_length,
            line_base + i64::from(adjusted % line_range),
        )
    };
    let mut instructions = header.instructions();
    let mut sequence = Sequence::default();
    let mut address = 0u64;
    let mut line = 1i64;
    loop {
        let instruction = match instructions.next_instruction(header) {
            Ok(Some(instruction)) => instruction,
            Ok(None) => return,
            Err(e) => return problems.add(format!("malformed .debug_line: {e}")),
        };
        let emits = match instruction {
            gimli::LineInstruction::Special(opcode) => {
                let (advance, line_advance) = special(opcode);
                address = address.wrapping_add(advance);
                line = line.wrapping_add(line_advance);
                Some(false)
            }
            gimli::LineInstruction::Copy => Some(false),
            gimli::LineInstruction::EndSequence => Some(true),
            gimli::LineInstruction::AdvancePc(advance) => {
                address = address.wrapping_add(advance.wrapping_mul(min_length));
                None
            }
            gimli::LineInstruction::ConstAddPc => {
                address = address.wrapping_add(special(255).0);
                None
            }
            gimli::LineInstruction::FixedAddPc(advance) => {
                address = address.wrapping_add(u64::from(advance));
                None
            }
            gimli::LineInstruction::AdvanceLine(advance) => {
                line = line.wrapping_add(advance);
                None
            }
            gimli::LineInstruction::SetAddress(new) => {
                address = new;
                None
            }
            _ => None,
        };
        let Some(end_sequence) = emits else {
            continue;
        };
        check_row(object, &mut sequence, address, line, end_sequence, problems);
        if end_sequence {
            sequence = Sequence::default();
            address = 0;
            line = 1;
        }
    }
}

/// Checks one row of a sequence: its address follows the previous row's
/// and lies in the sequence's code section.
fn check_row(
    object: &ElfObject,
    sequence: &mut Sequence,
    address: u64,
    line: i64,
    end_sequence: bool,
    problems: &mut Problems,
) {
    if let Some(previous) = sequence.previous {
        if address < previous {
            problems.add(format!(
                ".debug_line: row at {} (line {line}) follows a row at {} in the same sequence",
                describe(object, address),
                describe(object, previous)
            ));
        }
    }
    let code = object.sections.iter().position(|s| {
        let end = s.address + s.size;
        s.is_code() && address >= s.address && (address < end || (end_sequence && address == end))
    });
    match (code, sequence.section) {
        (None, _) if !sequence.reported_outside => {
            sequence.reported_outside = true;
            problems.add(format!(
                ".debug_line: row at {} (line {line}) is outside every code section",
                describe(object, address)
            ));
        }
        (None, _) => {}
        (Some(section), Some(first)) if section != first => problems.add(format!(
            ".debug_line: a sequence starting in {} continues into {} at {}",
            object.sections[first].name,
            object.sections[section].name,
            describe(object, address)
        )),
        (Some(section), _) => sequence.section = Some(section),
    }
    sequence.previous = Some(address);
}

/// What is known of the line-table sequence being read.
#[derive(Default)]
struct Sequence {
    /// Address of the previous row.
    previous: Option<u64>,
    /// The code section its rows are in.
    section: Option<usize>,
    /// Whether a row outside every code section was reported already.
    reported_outside: bool,
}

struct UnitChecker<'c, 'a> {
    object: &'c ElfObject,
    dwarf: &'c gimli::Dwarf<Slice<'a>>,
    unit: &'c gimli::Unit<Slice<'a>>,
    tree: &'c DieTree<'a>,
}

impl UnitChecker<'_, '_> {
    /// `DIE 0x...` with the DIE's offset in `.debug_info`, and its name.
    fn die_name(&self, die: usize) -> String {
        let offset = self.tree.dies[die].entry.offset;
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
        for die in 0..self.tree.dies.len() {
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
        }
    }

    fn ranges(&self, die: usize) -> Result<Vec<(u64, u64)>, gimli::Error> {
        let mut ranges = Vec::new();
        let mut iter = self
            .dwarf
            .die_ranges(self.unit, &self.tree.dies[die].entry)?;
        while let Some(range) = iter.next()? {
            ranges.push((range.begin, range.end));
        }
        Ok(ranges)
    }

    fn check_subprogram_ranges(&self, die: usize, problems: &mut Problems) {
        let ranges = match self.ranges(die) {
            Ok(ranges) => ranges,
            Err(e) => {
                return problems.add(format!(
                    "{}: malformed address ranges: {e}",
                    self.die_name(die)
                ))
            }
        };
        for (start, end) in ranges {
            let matching = self
                .object
                .functions
                .iter()
                .any(|f| f.address == start && f.end() == end);
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
        let ranges = self.ranges(subprogram).unwrap_or_default();
        self.object
            .functions
            .iter()
            .filter(|f| {
                ranges
                    .iter()
                    .any(|&(start, _)| start >= f.address && start < f.end())
            })
            .map(|f| (f.address, f.end()))
            .collect()
    }

    fn enclosing_subprogram(&self, die: usize) -> Option<usize> {
        let mut current = die;
        loop {
            current = self.tree.dies[current].parent?;
            if self.tree.tag(current) == gimli::DW_TAG_subprogram {
                return Some(current);
            }
        }
    }

    fn check_variable(&self, die: usize, promises_full_pieces: bool, problems: &mut Problems) {
        let size = self.type_size(self.tree.inherited(die, gimli::DW_AT_type), 0);
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
                for &child in &self.tree.dies[die].children {
                    if self.tree.tag(child) == gimli::DW_TAG_subrange_type {
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
                Some(total)
            }
            _ => self.type_size(self.tree.attr(die, gimli::DW_AT_type), depth + 1),
        }
    }
}

/// A half-open address range.
type AddressRange = (u64, u64);

/// A location list entry's start, end and expression.
type EntryRange<'a> = (u64, u64, gimli::Expression<Slice<'a>>);

/// How the pieces of a variable's location are checked.
#[derive(Clone, Copy)]
struct PieceRule {
    /// The variable's type size in bytes, when known.
    size: Option<u64>,
    /// Whether the pieces must cover every byte (dwarfsmith's promise).
    promises_full_pieces: bool,
}
