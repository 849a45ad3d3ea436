//! Where and how a function or data object was placed: its COMDAT group,
//! its explicit section name, its symbol's binding and its aliases.
//!
//! In: a laid-out [`ElfObject`] and the function or data object's
//! [`Placed`] symbol. Out: the model's `comdat`, `section_name`, `binding`
//! and `aliases` for it.
//!
//! Promises (the inverse of the writer's placement, write/elf.rs):
//! - `comdat` is the signature of the SHT_GROUP section listing the
//!   object's section;
//! - `section_name` is the section's name, except a standard one (`.text`;
//!   `.data`, `.rodata`, `.data.rel.ro`, `.bss`, `.tdata`, `.tbss`,
//!   `.rodata.str1.1`), or, in a COMDAT group, the standard one followed
//!   by `.` and the object's name (`.text.f`, `.data.g`), which give `None`;
//! - `binding` is STB_WEAK and the visibility of `st_other`;
//! - `aliases` are the other symbols of the same kind in the same section
//!   that start inside the object and have its size (an alias at an
//!   offset has the whole object's size), by offset then name.

use goblin::elf::{section_header, sym};

use super::elf::{ElfObject, Placed, Symbol};
use crate::model::{Alias, SymbolBinding, Visibility};

/// The standard sections a data object goes to without a name of its own.
const STANDARD_DATA_SECTIONS: [&str; 6] = [
    ".data",
    ".rodata",
    ".data.rel.ro",
    ".bss",
    ".tdata",
    ".tbss",
];

/// The standard code section.
const STANDARD_CODE_SECTION: &str = ".text";

/// The section of mergeable strings.
const STRINGS_SECTION: &str = ".rodata.str1.1";

/// The placement fields of one function or data object.
pub(crate) struct Placement {
    /// The COMDAT group.
    pub comdat: Option<String>,
    /// The explicit section name.
    pub section_name: Option<String>,
    /// The symbol's binding.
    pub binding: SymbolBinding,
    /// Further symbols for it.
    pub aliases: Vec<Alias>,
}

/// The signature of each section's COMDAT group, by section index.
pub(crate) fn section_groups(object: &ElfObject) -> Vec<Option<String>> {
    let mut groups = vec![None; object.sections.len()];
    for section in &object.sections {
        if section.kind != section_header::SHT_GROUP {
            continue;
        }
        let Some(signature) = object.symbols.get(section.info as usize) else {
            continue;
        };
        for word in section.data.chunks_exact(4).skip(1) {
            let member = u32::from_le_bytes([word[0], word[1], word[2], word[3]]) as usize;
            if let Some(slot) = groups.get_mut(member) {
                *slot = Some(signature.name.clone());
            }
        }
    }
    groups
}

/// The placement of the function (`kind` STT_FUNC) or data object
/// (STT_OBJECT) whose symbol is `placed`.
pub(crate) fn placement(
    object: &ElfObject,
    groups: &[Option<String>],
    placed: &Placed,
    kind: u8,
) -> Placement {
    let section = &object.sections[placed.section];
    let comdat = groups.get(placed.section).cloned().flatten();
    let own_symbol =
        |s: &&Symbol| s.kind == kind && s.section == Some(placed.section) && s.name == placed.name;
    let main = object.symbols.iter().find(own_symbol);
    let size = main.map_or(placed.size, |s| s.size);
    let mut aliases: Vec<Alias> = object
        .symbols
        .iter()
        .filter(|s| {
            let address = section.address + s.value;
            s.kind == kind
                && s.section == Some(placed.section)
                && s.name != placed.name
                && !s.name.is_empty()
                && s.size == size
                && address >= placed.address
                && address < placed.address + size.max(1)
        })
        .map(|s| Alias {
            name: s.name.clone(),
            global: s.binding != sym::STB_LOCAL,
            binding: binding_of(s),
            offset: section.address + s.value - placed.address,
        })
        .collect();
    aliases.sort_by(|a, b| (a.offset, &a.name).cmp(&(b.offset, &b.name)));
    let standard = if section.is_code() {
        vec![STANDARD_CODE_SECTION]
    } else {
        STANDARD_DATA_SECTIONS.to_vec()
    };
    let symbol_name = placed.name.as_str();
    let section_name = match &comdat {
        Some(_)
            if standard
                .iter()
                .any(|s| section.name == format!("{s}.{symbol_name}")) =>
        {
            None
        }
        None if standard.contains(&section.name.as_str()) || section.name == STRINGS_SECTION => {
            None
        }
        _ => Some(section.name.clone()),
    };
    Placement {
        comdat,
        section_name,
        binding: main.map(binding_of).unwrap_or_default(),
        aliases,
    }
}

/// The model binding of an ELF symbol.
fn binding_of(symbol: &Symbol) -> SymbolBinding {
    SymbolBinding {
        weak: symbol.binding == sym::STB_WEAK,
        visibility: match symbol.other & 3 {
            1 => Visibility::Internal,
            2 => Visibility::Hidden,
            3 => Visibility::Protected,
            _ => Visibility::Default,
        },
    }
}
