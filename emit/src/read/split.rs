//! Split DWARF: the `.dwo` file a skeleton unit names, and the split unit
//! in it.
//!
//! In: a skeleton unit (`-gsplit-dwarf`: DWARF 5's `DW_AT_dwo_name` or the
//! GNU `DW_AT_GNU_dwo_name`, with `DW_AT_comp_dir`), and the directory of
//! the file holding it. Out: the `.dwo` read ([`SplitFile`]), then its unit
//! whose id is the skeleton's with the skeleton's address base and low pc
//! (gimli's `make_dwo` and `copy_relocated_attributes`).
//!
//! Where the file is looked for, in order: the name itself when absolute,
//! else joined to `DW_AT_comp_dir`; then the name's last component beside
//! the file holding the skeleton (a build tree moved as a whole).

use std::path::{Path, PathBuf};

use gimli::{Dwarf, Unit};

use super::dwarf::{DwarfSections, Slice};
use super::elf::ElfObject;
use super::line::string;

/// A `.dwo` file, read.
pub(crate) struct SplitFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its `.debug_*.dwo` sections under the ids of what they stand for.
    pub sections: DwarfSections,
}

/// The `.dwo` file of `unit`: `None` when the unit is no skeleton, else
/// the file read or why it could not be.
pub(crate) fn dwo_file(
    dwarf: &Dwarf<Slice<'_>>,
    unit: &Unit<Slice<'_>>,
    beside: Option<&Path>,
) -> Option<Result<SplitFile, String>> {
    unit.dwo_id?;
    let name = match unit.dwo_name() {
        Ok(Some(value)) => match string(dwarf, unit, value) {
            Ok(name) => name,
            Err(e) => return Some(Err(format!("DW_AT_dwo_name names no string: {e}"))),
        },
        Ok(None) => return Some(Err("a skeleton unit without DW_AT_dwo_name".into())),
        Err(e) => return Some(Err(format!("malformed skeleton unit: {e}"))),
    };
    let comp_dir = unit
        .comp_dir
        .map(|dir| String::from_utf8_lossy(dir.slice()).into_owned())
        .unwrap_or_default();
    let mut candidates = vec![Path::new(&comp_dir).join(&name)];
    if let (Some(beside), Some(file_name)) = (beside, Path::new(&name).file_name()) {
        candidates.push(beside.join(file_name));
    }
    candidates.dedup();
    let Some(path) = candidates.iter().find(|path| path.is_file()) else {
        let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        return Some(Err(format!(
            "split DWARF file {name} not found (looked for {})",
            looked.join(", ")
        )));
    };
    Some(read_dwo(path))
}

fn read_dwo(path: &Path) -> Result<SplitFile, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let object = ElfObject::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let sections = DwarfSections::load_dwo(&object);
    Ok(SplitFile {
        path: path.to_path_buf(),
        sections,
    })
}

/// The unit of `dwo` (a `.dwo`'s DWARF, made so with `make_dwo`) whose id
/// is the skeleton's, with the skeleton's relocated attributes.
pub(crate) fn split_unit<'a>(
    dwo: &Dwarf<Slice<'a>>,
    skeleton: &Unit<Slice<'a>>,
) -> Result<Unit<Slice<'a>>, String> {
    let mut headers = dwo.units();
    while let Some(header) = headers.next().map_err(|e| e.to_string())? {
        let mut unit = dwo.unit(header).map_err(|e| e.to_string())?;
        if unit.dwo_id == skeleton.dwo_id {
            unit.copy_relocated_attributes(skeleton);
            return Ok(unit);
        }
    }
    Err(format!(
        "no unit has the skeleton's id {:#x}",
        skeleton.dwo_id.map_or(0, |id| id.0)
    ))
}
