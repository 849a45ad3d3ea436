//! Split DWARF: the `.dwo` file a skeleton unit names, or its part of a DWARF
//! package, and the split unit in it.
//!
//! In: a skeleton unit (`-gsplit-dwarf`: DWARF 5's `DW_AT_dwo_name` or the
//! GNU `DW_AT_GNU_dwo_name`, with `DW_AT_comp_dir`), the directory of the
//! file holding it, and that file's package when it has one ([`Package`]:
//! `FILE.dwp`, made by `llvm-dwp`/`dwp`, found as gdb finds it). Out: the
//! split unit's sections ([`SplitFile`]), then its unit whose id is the
//! skeleton's with the skeleton's address base and low pc (gimli's
//! `make_dwo` and `copy_relocated_attributes`).
//!
//! Where the unit is looked for, in order: the package, by the skeleton's
//! id through `.debug_cu_index` (gimli's `UnitIndex`; the unit's
//! contributions to each section, and the whole `.debug_str.dwo`, become the
//! [`SplitFile`]'s sections, so offsets read in it are the unit's own); the
//! `.dwo` name itself when absolute, else joined to `DW_AT_comp_dir`; then the
//! name's last component beside the file holding the skeleton (a build tree
//! moved as a whole).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gimli::{Dwarf, DwoId, LittleEndian, SectionId, Unit};

use super::dwarf::{DwarfSections, Slice};
use super::elf::ElfObject;
use super::line::string;

/// A `.dwo` file, or one unit's part of a package, read.
pub(crate) struct SplitFile {
    /// Where it was found.
    pub path: PathBuf,
    /// Its `.debug_*.dwo` sections under the ids of what they stand for.
    pub sections: DwarfSections<'static>,
}

/// A DWARF package: the split units of a whole program in one file.
pub(crate) struct Package {
    /// Where it is.
    path: PathBuf,
    /// Its `.debug_*.dwo` sections and `.debug_cu_index`.
    sections: DwarfSections<'static>,
}

impl Package {
    /// The package of `file` (`FILE.dwp`): `None` when there is none, else
    /// the package read or why it could not be.
    pub fn of(file: &Path) -> Option<Result<Package, String>> {
        let mut name = file.as_os_str().to_owned();
        name.push(".dwp");
        let path = PathBuf::from(name);
        if !path.is_file() {
            return None;
        }
        Some(read_dwo(&path).map(|file| Package {
            path: file.path,
            sections: file.sections,
        }))
    }

    /// The split unit whose id is `id`: its contributions to each section.
    fn unit(&self, id: DwoId) -> Result<SplitFile, String> {
        let at = |e: gimli::Error| format!("{}: .debug_cu_index: {e}", self.path.display());
        let index_data = self.sections.data(SectionId::DebugCuIndex);
        let index = gimli::DebugCuIndex::new(index_data, LittleEndian)
            .index()
            .map_err(at)?;
        let row = index.find(id.0).ok_or_else(|| {
            format!(
                "{}: no unit has the skeleton's id {:#x}",
                self.path.display(),
                id.0
            )
        })?;
        let mut parts = HashMap::new();
        for contribution in index.sections(row).map_err(at)? {
            let section = contribution.section.section_id();
            let data = self.sections.data(section);
            let start = contribution.offset as usize;
            let part = start
                .checked_add(contribution.size as usize)
                .and_then(|end| data.get(start..end))
                .ok_or_else(|| {
                    format!(
                        "{}: .debug_cu_index: the unit's part of {} ([{start:#x}, +{:#x})) is outside the section ({:#x} bytes)",
                        self.path.display(),
                        contribution.section.dwo_name(),
                        contribution.size,
                        data.len()
                    )
                })?;
            parts.insert(section, part.to_vec());
        }
        parts.insert(
            SectionId::DebugStr,
            self.sections.data(SectionId::DebugStr).to_vec(),
        );
        Ok(SplitFile {
            path: self.path.clone(),
            sections: DwarfSections::from_parts(parts),
        })
    }
}

/// The split unit of `unit`: `None` when the unit is no skeleton, else its
/// `.dwo` file (or its part of `package`) read, or why it could not be.
pub(crate) fn dwo_file(
    dwarf: &Dwarf<Slice<'_>>,
    unit: &Unit<Slice<'_>>,
    beside: Option<&Path>,
    package: Option<&Package>,
) -> Option<Result<SplitFile, String>> {
    let id = unit.dwo_id?;
    let from_package = package.map(|package| package.unit(id));
    if let Some(Ok(file)) = from_package {
        return Some(Ok(file));
    }
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
        let in_package = match from_package {
            Some(Err(message)) => format!("; {message}"),
            _ => String::new(),
        };
        return Some(Err(format!(
            "split DWARF file {name} not found (looked for {}){in_package}",
            looked.join(", ")
        )));
    };
    Some(read_dwo(path))
}

fn read_dwo(path: &Path) -> Result<SplitFile, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let object = ElfObject::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let sections = DwarfSections::load_dwo(&object).into_owned();
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
