//! A file's bytes as the readers take them: memory-mapped, not copied.
//!
//! In: a path. Out: [`FileBytes`], the file's contents as a `&[u8]`.
//!
//! Promises: a regular file is mapped read-only (memmap2), so reading a
//! 100 MB executable costs no copy and no fresh memory: the pages come from
//! the page cache as they are read, and `verify` and `stats` touch only the
//! sections they read. Anything that cannot be mapped (an empty file, a
//! FIFO, a device) is read into memory instead. The file must not change
//! while it is mapped; the checkers only read files a build has finished
//! writing.

use std::fs::File;
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::Arc;

/// The contents of a file: mapped, or read when it cannot be mapped.
pub enum FileBytes {
    /// A read-only mapping of a regular file.
    Mapped(memmap2::Mmap),
    /// The bytes read (a file that cannot be mapped).
    Read(Vec<u8>),
}

impl FileBytes {
    /// Maps (or reads) the file at `path`.
    pub fn open(path: &Path) -> std::io::Result<FileBytes> {
        let mut file = File::open(path)?;
        let metadata = file.metadata()?;
        if metadata.is_file() && metadata.len() > 0 {
            // SAFETY: the mapping is read-only and private to this process;
            // the checkers read files that no one is writing (see above).
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                return Ok(FileBytes::Mapped(map));
            }
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes)?;
        Ok(FileBytes::Read(bytes))
    }
}

impl Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Read(bytes) => bytes,
        }
    }
}

/// A section's bytes: its own (inflated, or copied from bytes that are not
/// a mapped file), or a stretch of a mapped file that it keeps mapped, so
/// a large file's sections cost no copy and no fresh memory.
#[derive(Clone)]
pub(crate) enum SectionBytes {
    /// The section's own bytes.
    Owned(Vec<u8>),
    /// Bytes `range` of a file.
    Shared(Arc<FileBytes>, Range<usize>),
}

impl Default for SectionBytes {
    fn default() -> SectionBytes {
        SectionBytes::Owned(Vec::new())
    }
}

impl Deref for SectionBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            SectionBytes::Owned(bytes) => bytes,
            SectionBytes::Shared(file, range) => &file[range.clone()],
        }
    }
}

impl std::fmt::Debug for SectionBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::FileBytes;

    #[test]
    fn regular_files_are_mapped_and_empty_ones_read() {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join("full");
        std::fs::write(&full, b"\x7fELF bytes").unwrap();
        let bytes = FileBytes::open(&full).unwrap();
        assert!(matches!(bytes, FileBytes::Mapped(_)));
        assert_eq!(&bytes[..], b"\x7fELF bytes");
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        let bytes = FileBytes::open(&empty).unwrap();
        assert!(matches!(bytes, FileBytes::Read(_)));
        assert!(bytes.is_empty());
        assert!(FileBytes::open(&dir.path().join("missing")).is_err());
    }
}
