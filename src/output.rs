//! Writing an output file the way a compiler driver writes it.
//!
//! In: the path the user gave with `-o` and the finished bytes. Out: the
//! bytes at that path, or an error naming the path. Rules:
//! - `-` is standard output;
//! - an existing path that is not a regular file (a character device such as
//!   `/dev/null` or `/dev/full`, a FIFO) is opened and written through, and a
//!   failed write or flush is an error;
//! - anything else is written to a temporary file in the same directory,
//!   created with mode 0666 (the kernel applies the umask, as for `cc`), and
//!   renamed into place only once every byte is written. A failure removes
//!   the temporary file, so no partial output is ever visible and an
//!   existing output is left as it was.

use std::fs::{OpenOptions, Permissions};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Writes `bytes` to `path` following the rules in the module doc; the error
/// is a finished message (`PATH: error: cannot write: REASON`).
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("{}: error: cannot write: {e}", path.display());
    if path.as_os_str() == "-" {
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(bytes)
            .and_then(|()| stdout.flush())
            .map_err(fail);
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(format!(
            "{}: error: cannot write: is a directory",
            path.display()
        )),
        Ok(meta) if !meta.is_file() => {
            let mut file = OpenOptions::new().write(true).open(path).map_err(fail)?;
            file.write_all(bytes)
                .and_then(|()| file.flush())
                .map_err(fail)
        }
        _ => write_by_rename(path, bytes).map_err(fail),
    }
}

/// Writes a regular file through a temporary file beside it, renamed into place.
fn write_by_rename(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".dwarfsmith-")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    file.flush()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}
