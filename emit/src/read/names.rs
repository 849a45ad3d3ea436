//! `.debug_names`: DWARF 5's name index (clang's `-gpubnames`, or its
//! default when tuned for lldb), one index per unit in a linked file.
//!
//! In: the relocated DWARF ([`super::DwarfSections`]). Out: every entry of
//! every index as an [`IndexedName`] (gimli's `DebugNames` decodes the
//! headers, hash table, names and entries), or a [`ReadError`] naming the
//! index and what is malformed. A name is also looked up through the hash
//! table (its case-folded DJB hash, as the index's readers find it), so an
//! index whose hash table loses a name is malformed too (names with letters
//! beyond ASCII, whose Unicode case folding this does not do, excepted).

use gimli::{DebugInfoOffset, DwTag, UnitOffset};

use super::dwarf::Slice;
use super::ReadError;

/// One entry of a name index: a name and the DIE it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IndexedName {
    /// Offset of its index in `.debug_names`.
    pub index: usize,
    /// The name.
    pub name: String,
    /// The compile unit of the DIE (`None`: a type unit's entry).
    pub unit: Option<DebugInfoOffset>,
    /// The DIE's offset in its unit, when the entry gives one.
    pub die: Option<UnitOffset>,
    /// The tag the entry says the DIE has.
    pub tag: DwTag,
}

/// Every entry of every name index of `dwarf`'s `.debug_names`.
pub(crate) fn read_names(dwarf: &gimli::Dwarf<Slice<'_>>) -> Result<Vec<IndexedName>, ReadError> {
    let mut names = Vec::new();
    let mut headers = dwarf.debug_names.headers();
    loop {
        let header = match headers.next() {
            Ok(Some(header)) => header,
            Ok(None) => return Ok(names),
            Err(e) => return Err(ReadError::new(".debug_names", e.to_string())),
        };
        let index_offset = header.offset().0;
        let fail =
            |e: gimli::Error| ReadError::at(".debug_names", index_offset as u64, e.to_string());
        let index = header.index().map_err(fail)?;
        for name_index in index.names() {
            let name = index
                .name_string(name_index, &dwarf.debug_str)
                .map_err(fail)?;
            let name = String::from_utf8_lossy(name.slice()).into_owned();
            if index.has_hash_table()
                && name.is_ascii()
                && !found_by_hash(&index, name_index, &name).map_err(fail)?
            {
                return Err(ReadError::at(
                    ".debug_names",
                    index_offset as u64,
                    format!(
                        "name {} ({name}) is not found through the hash table",
                        name_index.0
                    ),
                ));
            }
            let mut entries = index.name_entries(name_index).map_err(fail)?;
            while let Some(entry) = entries.next().map_err(fail)? {
                let unit = match entry.type_unit(&index).map_err(fail)? {
                    Some(_) => None,
                    None => match entry.compile_unit(&index).map_err(fail)? {
                        Some(unit) => Some(unit),
                        None => index.default_compile_unit().map_err(fail)?,
                    },
                };
                names.push(IndexedName {
                    index: index_offset,
                    name: name.clone(),
                    unit,
                    die: entry.die_offset().map_err(fail)?,
                    tag: entry.tag,
                });
            }
        }
    }
}

/// Whether the hash table leads to name `name_index` from `name`'s hash.
fn found_by_hash(
    index: &gimli::NameIndex<Slice<'_>>,
    name_index: gimli::NameTableIndex,
    name: &str,
) -> gimli::Result<bool> {
    let mut found = index.find_by_hash(djb_hash(name.to_ascii_lowercase().as_bytes()))?;
    while let Some(candidate) = found.next()? {
        if candidate.0 == name_index.0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The hash of `.debug_names` (DWARF 5, section 6.1.1.4.5: Bernstein's, of
/// the case-folded name).
fn djb_hash(bytes: &[u8]) -> u32 {
    bytes.iter().fold(5381u32, |hash, &byte| {
        hash.wrapping_mul(33).wrapping_add(u32::from(byte))
    })
}

#[cfg(test)]
mod tests {
    use super::djb_hash;

    #[test]
    fn the_hash_is_dwarf_5s() {
        assert_eq!(djb_hash(b""), 5381);
        assert_eq!(djb_hash(b"main"), 0x7c9a_7f6a);
    }
}
