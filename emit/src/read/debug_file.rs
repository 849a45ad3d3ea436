//! Separate debug files: where a stripped binary's DWARF went.
//!
//! In: the path and bytes of a linked file, and the directories given with
//! `--debug-dir`. Out: the path of its debug file (`objcopy
//! --only-keep-debug`), or `None` when the file holds its own DWARF or no
//! debug file it names is found.
//!
//! Looked for as gdb does: by build id (`.note.gnu.build-id`),
//! `DIR/.build-id/XX/REST.debug` under each directory; then by debug link
//! (`.gnu_debuglink`: a name, then its CRC-32), the name beside the file,
//! in its `.debug/` subdirectory, and under each directory (joined to the
//! file's own directory, then alone). A file found through the link must
//! have the link's CRC-32 (flate2's).

use std::path::{Path, PathBuf};

use goblin::elf::Elf;

/// The note type of a GNU build id.
const NT_GNU_BUILD_ID: u32 = 3;

/// The debug file of the linked file at `path` (`bytes`), if it has none of
/// its own DWARF and one it names is found.
pub fn find_debug_file(path: &Path, bytes: &[u8], debug_dirs: &[PathBuf]) -> Option<PathBuf> {
    // A file with DWARF of its own needs none: told from its section
    // headers alone (the object crate reads them lazily), without goblin's
    // parse of every symbol of a large file.
    if let Ok(file) = object::File::parse(bytes) {
        use object::{Object as _, ObjectSection as _};
        if file
            .sections()
            .any(|s| matches!(s.name(), Ok(".debug_info" | ".zdebug_info")))
        {
            return None;
        }
    }
    let elf = Elf::parse(bytes).ok()?;
    let names: Vec<&str> = (elf.section_headers.iter())
        .filter_map(|s| elf.shdr_strtab.get_at(s.sh_name))
        .collect();
    if names
        .iter()
        .any(|n| matches!(*n, ".debug_info" | ".zdebug_info"))
    {
        return None;
    }
    let build_id = elf
        .iter_note_sections(bytes, Some(".note.gnu.build-id"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .find(|note| note.n_type == NT_GNU_BUILD_ID && note.name == "GNU")
        .map(|note| {
            note.desc
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        });
    if let Some(id) = build_id.filter(|id| id.len() > 2) {
        let relative = format!(".build-id/{}/{}.debug", &id[..2], &id[2..]);
        if let Some(found) = debug_dirs
            .iter()
            .map(|d| d.join(&relative))
            .find(|p| p.is_file())
        {
            return Some(found);
        }
    }
    let (name, crc) = debug_link(&elf, bytes)?;
    let directory = path.parent().unwrap_or(Path::new(""));
    let absolute = std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_path_buf());
    let mut candidates = vec![directory.join(&name), directory.join(".debug").join(&name)];
    for dir in debug_dirs {
        candidates.push(
            dir.join(absolute.strip_prefix("/").unwrap_or(&absolute))
                .join(&name),
        );
        candidates.push(dir.join(&name));
    }
    candidates.into_iter().find(|candidate| {
        candidate != path
            && std::fs::read(candidate).is_ok_and(|data| {
                let mut sum = flate2::Crc::new();
                sum.update(&data);
                sum.sum() == crc
            })
    })
}

/// The name and CRC-32 `.gnu_debuglink` gives.
fn debug_link(elf: &Elf, bytes: &[u8]) -> Option<(String, u32)> {
    let header = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".gnu_debuglink"))?;
    let start = usize::try_from(header.sh_offset).ok()?;
    let data = bytes.get(start..start.checked_add(usize::try_from(header.sh_size).ok()?)?)?;
    let end = data.iter().position(|&b| b == 0)?;
    let name = std::str::from_utf8(&data[..end]).ok()?.to_string();
    let crc_at = (end + 1).next_multiple_of(4);
    let crc = u32::from_le_bytes(data.get(crc_at..crc_at + 4)?.try_into().ok()?);
    (!name.contains('/')).then_some((name, crc))
}
