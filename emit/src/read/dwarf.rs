//! DWARF sections with relocations applied, and a unit's DIE tree in memory.
//!
//! In: a laid-out [`ElfObject`].
//! Out: [`DwarfSections`] (relocated copies of every `.debug_*` section)
//! from which a `gimli::Dwarf` is borrowed, and a [`DieTree`] per unit.
//!
//! Promises: every offset and address gimli reads is the relocated one
//! (offsets into `.debug_str`, `.debug_loclists`, ... are `S + A`; addresses
//! are synthetic, see `elf`). A missing section reads as empty.

use std::collections::HashMap;

use gimli::{
    AttributeValue, DebuggingInformationEntry, EndianSlice, LittleEndian, SectionId, Unit,
    UnitOffset,
};

use super::elf::ElfObject;

/// The reader type every DWARF structure here is read through.
pub(crate) type Slice<'a> = EndianSlice<'a, LittleEndian>;

/// Relocated copies of the object's DWARF sections.
pub(crate) struct DwarfSections {
    sections: HashMap<SectionId, Vec<u8>>,
}

impl DwarfSections {
    /// Copies and relocates every DWARF section present in `object`.
    pub fn load(object: &ElfObject) -> DwarfSections {
        DwarfSections::load_named(object, |id| Some(id.name()))
    }

    /// Copies the DWARF sections of a split DWARF file (`.debug_info.dwo`,
    /// ...), each under the id of the section it stands for.
    pub fn load_dwo(object: &ElfObject) -> DwarfSections {
        DwarfSections::load_named(object, SectionId::dwo_name)
    }

    fn load_named(
        object: &ElfObject,
        name: fn(SectionId) -> Option<&'static str>,
    ) -> DwarfSections {
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

    /// Sections given as bytes (the contributions of one unit of a DWARF
    /// package, see `split`).
    pub fn from_parts(sections: HashMap<SectionId, Vec<u8>>) -> DwarfSections {
        DwarfSections { sections }
    }

    /// Copies of the range and location list sections (`.debug_ranges`,
    /// `.debug_rnglists`, `.debug_loc`, `.debug_loclists`) with bytes
    /// appended that end no list, beside `.debug_addr` as it is. gimli ends
    /// a list silently at its section's end; read over these instead, a list
    /// that ran to the end without its end entry reads on (more entries, or
    /// an error), so comparing the two readings finds it.
    pub fn lists_run_on(&self) -> DwarfSections {
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
            sections.insert(id, data);
        }
        sections.insert(
            SectionId::DebugAddr,
            self.data(SectionId::DebugAddr).to_vec(),
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
        self.sections.get(&id).map_or(&[][..], Vec::as_slice)
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

/// One DIE and the indices of its children.
pub(crate) struct Die<'a> {
    /// The entry as gimli read it.
    pub entry: DebuggingInformationEntry<Slice<'a>>,
    /// Indices into [`DieTree::dies`].
    pub children: Vec<usize>,
    /// Index of the parent (`None` for the unit's root).
    pub parent: Option<usize>,
}

/// All DIEs of one unit, in DIE order (index 0 is the unit's root).
pub(crate) struct DieTree<'a> {
    /// The DIEs.
    pub dies: Vec<Die<'a>>,
    by_offset: HashMap<UnitOffset, usize>,
}

impl<'a> DieTree<'a> {
    /// Reads every DIE of `unit`.
    pub fn read(unit: &Unit<Slice<'a>>) -> gimli::Result<DieTree<'a>> {
        let mut dies: Vec<Die<'a>> = Vec::new();
        let mut by_offset = HashMap::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut cursor = unit.entries();
        while let Some(entry) = cursor.next_dfs()? {
            let depth = usize::try_from(entry.depth).unwrap_or(0);
            stack.truncate(depth);
            let index = dies.len();
            let parent = stack.last().copied();
            if let Some(parent) = parent {
                dies[parent].children.push(index);
            }
            by_offset.insert(entry.offset, index);
            dies.push(Die {
                entry: entry.clone(),
                children: Vec::new(),
                parent,
            });
            stack.push(index);
        }
        Ok(DieTree { dies, by_offset })
    }

    /// The tag of DIE `index`.
    pub fn tag(&self, index: usize) -> gimli::DwTag {
        self.dies[index].entry.tag
    }

    /// Attribute `name` of DIE `index`.
    pub fn attr(&self, index: usize, name: gimli::DwAt) -> Option<AttributeValue<Slice<'a>>> {
        self.dies[index].entry.attr_value(name)
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
            AttributeValue::UnitRef(offset) => self.by_offset.get(&offset).copied(),
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

    /// The DIE at `offset` in the unit.
    pub fn at(&self, offset: UnitOffset) -> Option<usize> {
        self.by_offset.get(&offset).copied()
    }
}
