//! The unit's file table: each DIFile (by name and directory) once.
//!
//! In: DIFile node ids. Out: indices into [`FileTable::files`], the emit
//! crate's line-table files; index 0 is the compile unit's file when it is
//! asked for first, and an unknown file is 0.

use crate::ir::hash::FxHashMap;

use dwarfsmith_emit::model as emit;

use crate::ir::{DebugInfo, MdId};

/// The files named so far, each once.
pub struct FileTable<'a> {
    debug: &'a DebugInfo,
    /// The files, by index.
    pub files: Vec<emit::SourceFile>,
    index: FxHashMap<(String, String), u32>,
}

impl<'a> FileTable<'a> {
    /// An empty table over the module's metadata.
    pub fn new(debug: &'a DebugInfo) -> Self {
        FileTable {
            debug,
            files: Vec::new(),
            index: FxHashMap::default(),
        }
    }

    /// The index of a DIFile (0, the compile unit's file, when unknown).
    pub fn file(&mut self, file: Option<MdId>) -> u32 {
        let Some(file) = file.and_then(|f| self.debug.file(f)) else {
            return 0;
        };
        let key = (file.filename.clone(), file.directory.clone());
        if let Some(&index) = self.index.get(&key) {
            return index;
        }
        let index = self.files.len() as u32;
        self.files.push(emit::SourceFile {
            name: file.filename.clone(),
            directory: file.directory.clone(),
            md5: file
                .checksum
                .as_ref()
                .filter(|(kind, _)| kind == "CSK_MD5")
                .and_then(|(_, hex)| md5_bytes(hex)),
        });
        self.index.insert(key, index);
        index
    }
}

/// The 16 bytes of an MD5 checksum written as 32 hex digits.
fn md5_bytes(hex: &str) -> Option<[u8; 16]> {
    if hex.len() != 32 {
        return None;
    }
    let mut bytes = [0u8; 16];
    for (i, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(bytes)
}
