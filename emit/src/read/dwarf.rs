//! DWARF sections with relocations applied, and a unit's DIE tree in memory.
//!
//! In: a laid-out [`ElfObject`].
//! Out: [`DwarfSections`] (every `.debug_*` section, relocated: borrowed
//! from the object when it has no relocation, as in a linked file, else a
//! relocated copy) from which a `gimli::Dwarf` is borrowed, and a
//! [`DieTree`] per unit.
//!
//! Promises: every offset and address gimli reads is the relocated one
//! (offsets into `.debug_str`, `.debug_loclists`, ... are `S + A`; addresses
//! are synthetic, see `elf`). A missing section reads as empty.

use std::borrow::Cow;
use std::collections::HashMap;

use gimli::{
    Abbreviation, Abbreviations, Attribute, AttributeValue, DebuggingInformationEntry, EndianSlice,
    LittleEndian, SectionId, Unit, UnitHeader, UnitOffset,
};

use super::elf::ElfObject;

/// The reader type every DWARF structure here is read through.
pub type Slice<'a> = EndianSlice<'a, LittleEndian>;

/// The object's DWARF sections, relocated: borrowed from the object when
/// they have no relocation, else copies.
pub(crate) struct DwarfSections<'o> {
    sections: HashMap<SectionId, Cow<'o, [u8]>>,
}

impl<'o> DwarfSections<'o> {
    /// Every DWARF section present in `object`, relocated.
    pub fn load(object: &'o ElfObject) -> DwarfSections<'o> {
        DwarfSections::load_named(object, |id| Some(id.name()))
    }

    /// The DWARF sections of a split DWARF file (`.debug_info.dwo`, ...),
    /// each under the id of the section it stands for.
    pub fn load_dwo(object: &'o ElfObject) -> DwarfSections<'o> {
        DwarfSections::load_named(object, SectionId::dwo_name)
    }

    fn load_named(
        object: &'o ElfObject,
        name: fn(SectionId) -> Option<&'static str>,
    ) -> DwarfSections<'o> {
        let mut sections = HashMap::new();
        for (index, section) in object.sections.iter().enumerate() {
            let Some(id) = SECTIONS
                .into_iter()
                .find(|&id| name(id) == Some(section.name.as_str()))
            else {
                continue;
            };
            if let std::collections::hash_map::Entry::Vacant(slot) = sections.entry(id) {
                slot.insert(object.relocated(index));
            }
        }
        DwarfSections { sections }
    }

    /// The sections as copies that outlive the object they were read from.
    pub fn into_owned(self) -> DwarfSections<'static> {
        let sections = self
            .sections
            .into_iter()
            .map(|(id, data)| (id, Cow::Owned(data.into_owned())))
            .collect();
        DwarfSections { sections }
    }

    /// Sections given as bytes (the contributions of one unit of a DWARF
    /// package, see `split`).
    pub fn from_parts(sections: HashMap<SectionId, Vec<u8>>) -> DwarfSections<'o> {
        let sections = sections
            .into_iter()
            .map(|(id, data)| (id, Cow::Owned(data)))
            .collect();
        DwarfSections { sections }
    }

    /// Copies of the range and location list sections (`.debug_ranges`,
    /// `.debug_rnglists`, `.debug_loc`, `.debug_loclists`) with bytes
    /// appended that end no list, beside `.debug_addr` as it is. gimli ends
    /// a list silently at its section's end; read over these instead, a list
    /// that ran to the end without its end entry reads on (more entries, or
    /// an error), so comparing the two readings finds it.
    pub fn lists_run_on(&self) -> DwarfSections<'static> {
        let lists = [
            SectionId::DebugRanges,
            SectionId::DebugRngLists,
            SectionId::DebugLoc,
            SectionId::DebugLocLists,
        ];
        let mut sections = HashMap::new();
        for id in lists {
            let mut data = self.data(id).to_vec();
            data.extend(RUN_ON);
            sections.insert(id, Cow::Owned(data));
        }
        sections.insert(
            SectionId::DebugAddr,
            Cow::Owned(self.data(SectionId::DebugAddr).to_vec()),
        );
        DwarfSections { sections }
    }

    /// Whether the object has a `.debug_info` section.
    pub fn has_debug_info(&self) -> bool {
        self.sections
            .get(&SectionId::DebugInfo)
            .is_some_and(|s| !s.is_empty())
    }

    /// The bytes of section `id` (empty when the object has none).
    pub fn data(&self, id: SectionId) -> &[u8] {
        self.sections.get(&id).map_or(&[][..], |data| data)
    }

    /// A `gimli::Dwarf` over the relocated sections.
    pub fn dwarf(&self) -> gimli::Dwarf<Slice<'_>> {
        let load = |id: SectionId| -> Result<Slice<'_>, std::convert::Infallible> {
            Ok(EndianSlice::new(self.data(id), LittleEndian))
        };
        match gimli::Dwarf::load(load) {
            Ok(dwarf) => dwarf,
            Err(never) => match never {},
        }
    }
}

/// The `.debug_info` size from which the readers of a whole file (`verify`,
/// `stats`) work on units in parallel (rayon): a program of a few dozen
/// units is checked faster on two threads (Lua's 300 KB in 33 units:
/// `verify` 6.2 ms against 8.1 ms, `stats` 11 ms against 12.5 ms), for
/// about a megabyte more of the worker thread's heap; a small object stays
/// on the calling thread.
pub const PARALLEL_FROM: usize = 128 << 10;

/// What [`DwarfSections::lists_run_on`] appends: in DWARF 5 a first byte
/// that is no DW_RLE/DW_LLE kind (an error); before, a range from
/// 0x01..01ff to 0x02..02 (neither an end of list nor a base address
/// selection) and, in `.debug_loc`, an empty expression.
const RUN_ON: [u8; 18] = [0xff, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0];

/// The DWARF sections read.
const SECTIONS: [SectionId; 16] = [
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugAranges,
    SectionId::DebugCuIndex,
    SectionId::DebugFrame,
    SectionId::DebugInfo,
    SectionId::DebugLine,
    SectionId::DebugLineStr,
    SectionId::DebugLoc,
    SectionId::DebugLocLists,
    SectionId::DebugNames,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
    SectionId::DebugTypes,
];

/// One DIE's place in a [`DieTree`].
#[derive(Clone, Copy)]
struct Node {
    /// Its tag.
    tag: gimli::DwTag,
    /// Which of the tree's [`DieTree::noted`] names its abbreviation
    /// has, bit `i` for name `i` (in the room the tag leaves free).
    noted: NotedBits,
    /// Index of the parent (`NO_PARENT` for the unit's root, and for a
    /// DIE after the root's end, which has none).
    parent: u32,
    /// Its attributes: `attributes[first_attribute..]` up to the next
    /// node's first attribute.
    first_attribute: u32,
    /// Its children: `children[first_child..]` up to the next node's.
    first_child: u32,
    /// The names of its attributes, each as bit [`name_bit`]: a look-up
    /// of an attribute the DIE does not have is answered without a scan
    /// (two names may share a bit; then the scan tells).
    names: u64,
}

/// The bit of [`Node::names`] that stands for attribute `name`.
fn name_bit(name: gimli::DwAt) -> u64 {
    1 << (name.0 % 64)
}

/// [`Node::parent`] of the root.
const NO_PARENT: u32 = u32::MAX;

/// All DIEs of one unit in DIE order (index 0 is the unit's root): each
/// DIE's offset, tag, attributes, parent and children, read in one pass
/// over the unit.
///
/// This is the one DIE reader of the project: `emit::read` builds its model
/// from it and `dwarfsmith stats` walks it. A DIE is an index (`usize`);
/// children are in DIE order. The attributes of all DIEs share one array
/// and the children one more, so a unit costs three allocations however
/// many DIEs it has; a DIE is found by offset with a binary search (DIE
/// order is offset order) among the few DIEs that start in its 64-byte
/// stretch of the unit, which a table by stretch gives, so a look-up
/// touches two or three cache lines, not a binary search's twenty. Only references within the unit are resolved
/// here (`DW_FORM_ref*`); a caller that follows `DW_FORM_ref_addr` reads the
/// other unit's tree itself.
#[derive(Default)]
pub struct DieTree<'a> {
    nodes: Vec<Node>,
    /// Each DIE's offset in its unit, in DIE order.
    offsets: Vec<u32>,
    /// For each [`STRETCH`]-byte stretch of the unit, the first DIE that
    /// starts in it or after it; one more entry at the end.
    stretches: Vec<u32>,
    attributes: Vec<Attribute<Slice<'a>>>,
    children: Vec<usize>,
    /// Room the reading needs and keeps for the next unit: the open
    /// parents, then each DIE's child count.
    scratch: Vec<u32>,
    /// The names whose presence [`DieTree::read_some`] recorded in each
    /// node rather than keeping the attribute (none for a full read).
    noted: &'static [gimli::DwAt],
    /// Their [`name_bit`]s: a name with none of them is not noted.
    noted_bits: u64,
}

/// A node's bits of its tree's noted names ([`Node::noted`]).
type NotedBits = u16;

/// Attribute names whose presence a [`DieTree`] records without keeping
/// the attribute ([`DieTree::read_some`]): at most 16 (one bit each of
/// [`Node::noted`]), which making one in a `const` checks at compile time.
#[derive(Clone, Copy)]
pub struct Noted(&'static [gimli::DwAt]);

impl Noted {
    /// No name: every attribute kept is kept whole.
    pub const NONE: Noted = Noted(&[]);

    /// The names `names` (at most 16).
    pub const fn new(names: &'static [gimli::DwAt]) -> Noted {
        assert!(
            names.len() <= NotedBits::BITS as usize,
            "a tree notes at most 16 names"
        );
        Noted(names)
    }
}

impl<'a> DieTree<'a> {
    /// Reads every DIE of `unit`; an error is gimli's (a bad abbreviation
    /// code, an attribute running past the unit, ...).
    pub fn read(unit: &Unit<Slice<'a>>) -> gimli::Result<DieTree<'a>> {
        let mut tree = DieTree::default();
        tree.read_into(unit)?;
        Ok(tree)
    }

    /// [`DieTree::read`] into this tree, whose arrays are reused: a reader
    /// of many units keeps one tree per thread rather than allocating (and
    /// the allocator faulting in) fresh arrays for each unit.
    pub fn read_into(&mut self, unit: &Unit<Slice<'a>>) -> gimli::Result<()> {
        self.read_with(&unit.header, &unit.abbreviations)
    }

    /// [`DieTree::read_into`] of the unit of `header` with its
    /// `abbreviations`, for a reader that keeps many units' headers and
    /// parses a unit's abbreviations only while it reads the unit's DIEs.
    pub fn read_with(
        &mut self,
        header: &UnitHeader<Slice<'a>>,
        abbreviations: &Abbreviations,
    ) -> gimli::Result<()> {
        self.read_some(header, abbreviations, |_| true, |_| true, Noted::NONE)
    }

    /// [`DieTree::read_with`] keeping the attributes only of the DIEs whose
    /// abbreviation `keep` accepts: the others are in the tree (tag,
    /// offset, parent, children) with no attribute, their attributes
    /// skipped unread, for a reader that never looks at them (`stats`
    /// reads no attribute of a type); those of them whose abbreviation
    /// says they have no children are left out of the tree altogether
    /// (no index, not among their parent's children, not found by
    /// [`DieTree::at`]): most of a large unit's DIEs are such leaves
    /// (members, enumerators, template parameters). Of the DIEs it keeps
    /// attributes of, only the attributes whose name `wanted` accepts are
    /// kept (the others skipped unread). Of the names `noted` (none of
    /// them `wanted`), only whether a kept DIE has one is recorded, which
    /// [`DieTree::has`] answers: a reader that asks no more of an attribute
    /// than that needs no room for its value.
    pub fn read_some(
        &mut self,
        header: &UnitHeader<Slice<'a>>,
        abbreviations: &Abbreviations,
        keep: impl Fn(&Abbreviation) -> bool,
        wanted: impl Fn(gimli::DwAt) -> bool,
        noted: Noted,
    ) -> gimli::Result<()> {
        self.noted = noted.0;
        self.noted_bits = noted.0.iter().fold(0, |bits, &name| bits | name_bit(name));
        let DieTree {
            nodes,
            offsets,
            stretches,
            attributes,
            children,
            scratch,
            noted: _,
            noted_bits: _,
        } = self;
        nodes.clear();
        offsets.clear();
        stretches.clear();
        attributes.clear();
        children.clear();
        // Rarely more than a DIE per 4 bytes and an attribute per 2 in
        // real units (rustc's: 3.2 bytes an attribute, where the 4 reserved
        // before made the arrays grow and be copied): reserving that much
        // costs address space only, since pages never written are never
        // faulted in.
        let size = header.unit_length();
        // Every DIE and attribute of the unit takes one of its bytes at
        // least, and a DIE's offset counts the header's few bytes too: in a
        // unit well below 2^32 bytes each count and offset fits a u32
        // (checked once here rather than for each DIE).
        if u32::try_from(size.saturating_add(64)).is_err() {
            return Err(too_big());
        }
        reserve_empty(nodes, size / DIE_BYTES);
        reserve_empty(offsets, size / DIE_BYTES);
        reserve_empty(stretches, size / STRETCH + 2);
        reserve_empty(attributes, size / ATTRIBUTE_BYTES);
        let stack = scratch;
        stack.clear();
        let mut answers = KeepAnswers::default();
        let mut entries = header.entries_raw(abbreviations, None)?;
        while !entries.is_empty() {
            let depth = usize::try_from(entries.next_depth()).unwrap_or(0);
            let offset = entries.next_offset();
            let Some(abbreviation) = entries.read_abbreviation()? else {
                continue;
            };
            stack.truncate(depth);
            let first_attribute = attributes.len() as u32;
            let mut names = 0;
            let (kept, noted_names) = answers.keep(abbreviation, &keep, noted.0);
            if kept {
                for spec in abbreviation.attributes() {
                    if wanted(spec.name()) {
                        names |= name_bit(spec.name());
                        attributes.push(entries.read_attribute(*spec)?);
                    } else {
                        entries.skip_attributes(std::slice::from_ref(spec))?;
                    }
                }
            } else {
                entries.skip_attributes(abbreviation.attributes())?;
                if !abbreviation.has_children() {
                    continue;
                }
            }
            let index = nodes.len() as u32;
            offsets.push(offset.0 as u32);
            nodes.push(Node {
                tag: abbreviation.tag(),
                noted: noted_names,
                parent: stack.last().copied().unwrap_or(NO_PARENT),
                first_attribute,
                first_child: 0,
                names,
            });
            stack.push(index);
        }
        // The first DIE at or after each stretch: DIE `index` is the first
        // for the stretches from the one after its predecessor's to its own.
        for (index, &offset) in offsets.iter().enumerate() {
            let stretch = offset as usize / STRETCH;
            let first = u32::try_from(index).map_err(|_| too_big())?;
            while stretches.len() <= stretch {
                stretches.push(first);
            }
        }
        stretches.push(u32::try_from(offsets.len()).map_err(|_| too_big())?);
        // Children in DIE order, counted then placed (a parent comes before
        // its children, so each parent's run is filled in order).
        let counts = stack;
        counts.clear();
        counts.resize(nodes.len() + 1, 0);
        for node in nodes.iter() {
            if node.parent != NO_PARENT {
                counts[node.parent as usize] += 1;
            }
        }
        let mut next = 0u32;
        for (node, count) in nodes.iter_mut().zip(counts.iter_mut()) {
            node.first_child = next;
            next += *count;
            *count = 0;
        }
        children.resize(next as usize, 0);
        for index in 0..nodes.len() {
            let parent = nodes[index].parent;
            if parent != NO_PARENT {
                let parent = parent as usize;
                children[(nodes[parent].first_child + counts[parent]) as usize] = index;
                counts[parent] += 1;
            }
        }
        Ok(())
    }

    /// Room for a unit of `size` bytes in the empty tree.
    fn reserve(&mut self, size: usize) {
        reserve_empty(&mut self.nodes, size / DIE_BYTES);
        reserve_empty(&mut self.offsets, size / DIE_BYTES);
        reserve_empty(&mut self.stretches, size / STRETCH + 2);
        reserve_empty(&mut self.attributes, size / ATTRIBUTE_BYTES);
    }

    /// How many DIEs the unit has.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the unit has no DIE at all.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The tag of DIE `index`.
    pub fn tag(&self, index: usize) -> gimli::DwTag {
        self.nodes[index].tag
    }

    /// The offset of DIE `index` in its unit.
    pub fn offset(&self, index: usize) -> UnitOffset {
        UnitOffset(self.offsets[index] as usize)
    }

    /// The parent of DIE `index` (`None` for the root).
    pub fn parent(&self, index: usize) -> Option<usize> {
        let parent = self.nodes[index].parent;
        (parent != NO_PARENT).then_some(parent as usize)
    }

    /// The children of DIE `index`, in DIE order.
    pub fn children(&self, index: usize) -> &[usize] {
        let from = self.nodes[index].first_child as usize;
        let to = self
            .nodes
            .get(index + 1)
            .map_or(self.children.len(), |next| next.first_child as usize);
        &self.children[from..to]
    }

    /// The attributes of DIE `index`, in the order its abbreviation gives.
    pub fn attributes(&self, index: usize) -> &[Attribute<Slice<'a>>] {
        let from = self.nodes[index].first_attribute as usize;
        let to = self
            .nodes
            .get(index + 1)
            .map_or(self.attributes.len(), |next| next.first_attribute as usize);
        &self.attributes[from..to]
    }

    /// Attribute `name` of DIE `index`, found without a scan when the
    /// DIE has no attribute of its bit.
    fn find(&self, index: usize, name: gimli::DwAt) -> Option<&Attribute<Slice<'a>>> {
        if self.nodes[index].names & name_bit(name) == 0 {
            return None;
        }
        self.attributes(index).iter().find(|a| a.name() == name)
    }

    /// Whether DIE `index` has attribute `name` (kept, or noted by
    /// [`DieTree::read_some`]).
    pub fn has(&self, index: usize, name: gimli::DwAt) -> bool {
        if self.noted_bits & name_bit(name) != 0 {
            if let Some(bit) = self.noted.iter().position(|&noted| noted == name) {
                return self.nodes[index].noted & (1 << bit) != 0;
            }
        }
        self.find(index, name).is_some()
    }

    /// Attribute `name` of DIE `index`, as gimli's `Attribute::value` gives
    /// it (file indices, languages, ... typed by the attribute's name).
    pub fn attr(&self, index: usize, name: gimli::DwAt) -> Option<AttributeValue<Slice<'a>>> {
        self.find(index, name).map(Attribute::value)
    }

    /// Attribute `name` of DIE `index` as it is encoded (`raw_value`).
    pub fn raw_attr(&self, index: usize, name: gimli::DwAt) -> Option<AttributeValue<Slice<'a>>> {
        self.find(index, name).map(Attribute::raw_value)
    }

    /// Attribute `name` of DIE `index`, or of the DIE its
    /// `DW_AT_abstract_origin` / `DW_AT_specification` chain leads to.
    pub fn inherited(&self, index: usize, name: gimli::DwAt) -> Option<AttributeValue<Slice<'a>>> {
        let mut current = index;
        for _ in 0..8 {
            if let Some(value) = self.attr(current, name) {
                return Some(value);
            }
            current = self.origin(current)?;
        }
        None
    }

    /// The DIE that `DW_AT_abstract_origin` or `DW_AT_specification` of
    /// DIE `index` names.
    pub fn origin(&self, index: usize) -> Option<usize> {
        let value = self
            .attr(index, gimli::DW_AT_abstract_origin)
            .or_else(|| self.attr(index, gimli::DW_AT_specification))?;
        self.reference(value)
    }

    /// The DIE a reference attribute names (references within the unit only).
    pub fn reference(&self, value: AttributeValue<Slice<'_>>) -> Option<usize> {
        match value {
            AttributeValue::UnitRef(offset) => self.at(offset),
            _ => None,
        }
    }

    /// Attribute `name` of DIE `index` (or its origin) as an unsigned number;
    /// file indices, languages and encodings count as numbers.
    pub fn number(&self, index: usize, name: gimli::DwAt) -> Option<u64> {
        match self.inherited(index, name)? {
            AttributeValue::FileIndex(value) => Some(value),
            AttributeValue::Language(language) => Some(u64::from(language.0)),
            AttributeValue::Encoding(encoding) => Some(u64::from(encoding.0)),
            other => other.udata_value(),
        }
    }

    /// The DIE at `offset` in the unit (`None` when no DIE starts there).
    pub fn at(&self, offset: UnitOffset) -> Option<usize> {
        let offset = u32::try_from(offset.0).ok()?;
        let stretch = offset as usize / STRETCH;
        let from = *self.stretches.get(stretch)? as usize;
        let to = self
            .stretches
            .get(stretch + 1)
            .map_or(self.offsets.len(), |&to| to as usize);
        let index = from + self.offsets[from..to].partition_point(|&at| at < offset);
        (*self.offsets.get(index)? == offset).then_some(index)
    }

    /// DIE `index` as a gimli entry (its attributes copied), for gimli
    /// functions that take one.
    pub fn entry(&self, index: usize) -> DebuggingInformationEntry<Slice<'a>> {
        self.entry_with(index, self.attributes(index).to_vec())
    }

    /// DIE `index` as a gimli entry with only its address attributes
    /// (`DW_AT_low_pc`, `DW_AT_high_pc`, `DW_AT_ranges`, in its order), for
    /// gimli's `die_ranges`, which reads no other: the same ranges as
    /// [`DieTree::entry`]'s without copying every attribute.
    pub fn address_entry(&self, index: usize) -> DebuggingInformationEntry<Slice<'a>> {
        let addresses = self.attributes(index).iter().filter(|attribute| {
            matches!(
                attribute.name(),
                gimli::DW_AT_low_pc | gimli::DW_AT_high_pc | gimli::DW_AT_ranges
            )
        });
        self.entry_with(index, addresses.copied().collect())
    }

    /// DIE `index` as a gimli entry with attributes `attrs`.
    fn entry_with(
        &self,
        index: usize,
        attrs: Vec<Attribute<Slice<'a>>>,
    ) -> DebuggingInformationEntry<Slice<'a>> {
        DebuggingInformationEntry {
            tag: self.nodes[index].tag,
            has_children: !self.children(index).is_empty(),
            attrs,
            offset: self.offset(index),
            ..Default::default()
        }
    }
}

/// What [`DieTree::read_some`]'s `keep` said of each abbreviation of the
/// unit, and which noted names it has ([`Node::noted`]), by abbreviation
/// code: asked once per abbreviation rather than once per DIE (real units
/// number their abbreviations from 1 up).
#[derive(Default)]
struct KeepAnswers {
    by_code: Vec<Option<(bool, NotedBits)>>,
}

/// Codes up to this one have their answers kept; a larger (odd) code is
/// asked every time.
const LARGEST_KEPT_CODE: usize = 1 << 16;

impl KeepAnswers {
    /// `keep`'s answer for `abbreviation`, and the bits of the names of
    /// `noted` it has (none when it is not kept).
    fn keep(
        &mut self,
        abbreviation: &Abbreviation,
        keep: &impl Fn(&Abbreviation) -> bool,
        noted: &[gimli::DwAt],
    ) -> (bool, NotedBits) {
        let code = usize::try_from(abbreviation.code()).unwrap_or(usize::MAX);
        if let Some(Some(answer)) = self.by_code.get(code) {
            return *answer;
        }
        let kept = keep(abbreviation);
        let mut bits = 0;
        if kept {
            for spec in abbreviation.attributes() {
                if let Some(bit) = noted.iter().position(|&name| name == spec.name()) {
                    bits |= 1 << bit;
                }
            }
        }
        let answer = (kept, bits);
        if code <= LARGEST_KEPT_CODE {
            if self.by_code.len() <= code {
                self.by_code.resize(code + 1, None);
            }
            self.by_code[code] = Some(answer);
        }
        answer
    }
}

/// Trees to read units into, shared by the threads of a parallel reader:
/// a thread takes one, reads a unit into it ([`DieTree::read_into`]) and
/// gives it back, so a file's units reuse as many trees as there are
/// threads, whatever the number of jobs rayon splits the units into (its
/// `map_init` would make a fresh tree per job, and the allocator fault
/// fresh pages in for each).
#[derive(Default)]
pub struct TreePool<'a> {
    trees: std::sync::Mutex<Vec<DieTree<'a>>>,
    /// The length of the largest unit the trees will read.
    largest: usize,
}

impl<'a> TreePool<'a> {
    /// A pool whose trees have room for units of up to `largest` bytes
    /// from the start, so no tree's arrays are allocated again (and their
    /// pages faulted in afresh) when a larger unit than the last comes;
    /// room never used costs address space only.
    pub fn with_room(largest: usize) -> TreePool<'a> {
        TreePool {
            trees: Default::default(),
            largest,
        }
    }

    /// A tree from the pool (a new one when all are taken).
    pub fn take(&self) -> DieTree<'a> {
        self.trees
            .lock()
            .map(|mut trees| trees.pop())
            .ok()
            .flatten()
            .unwrap_or_else(|| {
                let mut tree = DieTree::default();
                tree.reserve(self.largest);
                tree
            })
    }

    /// Gives `tree` back for the next unit.
    pub fn give(&self, tree: DieTree<'a>) {
        if let Ok(mut trees) = self.trees.lock() {
            trees.push(tree);
        }
    }
}

/// Tags a `DW_AT_type` may name.
pub fn is_type_tag(tag: gimli::DwTag) -> bool {
    matches!(
        tag,
        gimli::DW_TAG_base_type
            | gimli::DW_TAG_pointer_type
            | gimli::DW_TAG_reference_type
            | gimli::DW_TAG_rvalue_reference_type
            | gimli::DW_TAG_const_type
            | gimli::DW_TAG_volatile_type
            | gimli::DW_TAG_restrict_type
            | gimli::DW_TAG_atomic_type
            | gimli::DW_TAG_typedef
            | gimli::DW_TAG_structure_type
            | gimli::DW_TAG_union_type
            | gimli::DW_TAG_class_type
            | gimli::DW_TAG_enumeration_type
            | gimli::DW_TAG_array_type
            | gimli::DW_TAG_subroutine_type
            | gimli::DW_TAG_ptr_to_member_type
            | gimli::DW_TAG_unspecified_type
            | gimli::DW_TAG_string_type
            | gimli::DW_TAG_subrange_type
            | gimli::DW_TAG_set_type
            | gimli::DW_TAG_file_type
            | gimli::DW_TAG_shared_type
            | gimli::DW_TAG_immutable_type
            | gimli::DW_TAG_packed_type
            | gimli::DW_TAG_interface_type
            | gimli::DW_TAG_dynamic_type
            | gimli::DW_TAG_coarray_type
            | gimli::DW_TAG_generic_subrange
    )
}

/// The bytes of a unit each entry of [`DieTree`]'s table of stretches
/// covers.
const STRETCH: usize = 64;
/// The fewest bytes of a unit a DIE takes, as the arrays are reserved.
const DIE_BYTES: usize = 4;
/// The fewest bytes of a unit an attribute takes, as the arrays are reserved.
const ATTRIBUTE_BYTES: usize = 2;

/// Room for `count` elements in the empty `array`: a fresh allocation when
/// it has less, since growing would copy the old capacity's bytes.
fn reserve_empty<T>(array: &mut Vec<T>, count: usize) {
    if array.capacity() < count {
        *array = Vec::with_capacity(count);
    }
}

/// The error of a unit with more DIEs or attributes than a `u32` counts.
fn too_big() -> gimli::Error {
    gimli::Error::UnsupportedOffset
}

#[cfg(test)]
mod tests {
    use super::*;
    use gimli::write::{AttributeValue as Value, DwarfUnit, EndianVec, Sections};
    use gimli::{Encoding, Format, LittleEndian};

    /// A unit whose root has two variables, the first with a `DW_AT_type`
    /// (naming a base type), the second without; each section's bytes.
    fn unit_with_typed_and_untyped_variable() -> Vec<(gimli::SectionId, Vec<u8>)> {
        let encoding = Encoding {
            format: Format::Dwarf32,
            version: 5,
            address_size: 8,
        };
        let mut unit = DwarfUnit::new(encoding);
        let root = unit.unit.root();
        let int = unit.unit.add(root, gimli::DW_TAG_base_type);
        let typed = unit.unit.add(root, gimli::DW_TAG_variable);
        let untyped = unit.unit.add(root, gimli::DW_TAG_variable);
        for (die, name) in [(typed, "typed"), (untyped, "untyped")] {
            let name = Value::String(name.into());
            unit.unit.get_mut(die).set(gimli::DW_AT_name, name);
        }
        unit.unit
            .get_mut(typed)
            .set(gimli::DW_AT_type, Value::UnitRef(int));
        let mut sections = Sections::new(EndianVec::new(LittleEndian));
        unit.write(&mut sections).unwrap();
        let mut bytes = Vec::new();
        sections
            .for_each(|id, data| {
                bytes.push((id, data.slice().to_vec()));
                Ok::<_, gimli::Error>(())
            })
            .unwrap();
        bytes
    }

    #[test]
    fn a_noted_name_is_answered_by_has_and_not_kept() {
        let sections = unit_with_typed_and_untyped_variable();
        let section = |id: gimli::SectionId| {
            let data = sections
                .iter()
                .find(|(s, _)| *s == id)
                .map_or(&[][..], |(_, d)| d);
            Ok::<_, gimli::Error>(Slice::new(data, LittleEndian))
        };
        let dwarf = gimli::Dwarf::load(section).unwrap();
        let header = dwarf.units().next().unwrap().unwrap();
        let unit = dwarf.unit(header).unwrap();
        const TYPE_NOTED: Noted = Noted::new(&[gimli::DW_AT_type]);
        let mut noted = DieTree::default();
        let wanted = |name| name == gimli::DW_AT_name;
        noted
            .read_some(
                &unit.header,
                &unit.abbreviations,
                |_| true,
                wanted,
                TYPE_NOTED,
            )
            .unwrap();
        let mut full = DieTree::default();
        full.read_with(&unit.header, &unit.abbreviations).unwrap();
        let variables: Vec<usize> = (0..noted.len())
            .filter(|&die| noted.tag(die) == gimli::DW_TAG_variable)
            .collect();
        assert_eq!(variables.len(), 2);
        let names: Vec<Vec<gimli::DwAt>> = variables
            .iter()
            .map(|&die| noted.attributes(die).iter().map(Attribute::name).collect())
            .collect();
        assert_eq!(names, [[gimli::DW_AT_name], [gimli::DW_AT_name]]);
        for tree in [&noted, &full] {
            assert!(tree.has(variables[0], gimli::DW_AT_type));
            assert!(!tree.has(variables[1], gimli::DW_AT_type));
            assert!(tree.has(variables[1], gimli::DW_AT_name));
        }
        assert_eq!(full.attributes(variables[0]).len(), 2);
    }
}
