//! Compressed debug sections, inflated.
//!
//! In: a section's name, flags and file bytes. Out: its uncompressed bytes
//! (and, for a legacy `.zdebug_*` section, the `.debug_*` name it stands
//! for), or a [`ReadError`] naming the section.
//!
//! Two forms exist: `SHF_COMPRESSED` (an `Elf64_Chdr`, read with goblin,
//! then a zlib or zstd stream; `-gz`, `-gz=zstd`) and the GNU form that
//! predates it (`.zdebug_*`: "ZLIB", the size as 8 big-endian bytes, a zlib
//! stream; `-gz=zlib-gnu`). flate2 and zstd inflate. Promises: the result
//! is exactly the size the header declares, and never more than `limit`
//! bytes are inflated (a corrupt header cannot exhaust memory).

use std::io::Read;

use goblin::container::{Container, Ctx};
use goblin::elf::compression_header::{CompressionHeader, ELFCOMPRESS_ZLIB, ELFCOMPRESS_ZSTD};
use goblin::elf::section_header::SHF_COMPRESSED;

use super::ReadError;

/// The magic that opens a legacy `.zdebug_*` section.
const GNU_MAGIC: &[u8; 4] = b"ZLIB";

/// A section's name and contents as the reader sees them: inflated when
/// compressed, renamed from `.zdebug_*` to `.debug_*`.
pub(crate) struct Inflated {
    /// The section's name (`.debug_*` for a legacy `.zdebug_*`).
    pub name: String,
    /// The uncompressed bytes.
    pub data: Vec<u8>,
    /// The alignment of the uncompressed data, when a header gives it.
    pub align: Option<u64>,
}

/// Inflates `data` when the section is compressed; `None` when it is not.
pub(crate) fn inflate(
    name: &str,
    flags: u64,
    data: &[u8],
    limit: u64,
) -> Result<Option<Inflated>, ReadError> {
    if flags & u64::from(SHF_COMPRESSED) != 0 {
        let ctx = Ctx::new(Container::Big, goblin::container::Endian::Little);
        let header = CompressionHeader::parse(data, 0, ctx)
            .map_err(|e| ReadError::new(name, format!("malformed compression header: {e}")))?;
        let stream = &data[CompressionHeader::size(ctx).min(data.len())..];
        let bytes = match header.ch_type {
            ELFCOMPRESS_ZLIB => inflate_stream(
                name,
                flate2::read::ZlibDecoder::new(stream),
                header.ch_size,
                limit,
            )?,
            ELFCOMPRESS_ZSTD => {
                let decoder = zstd::stream::read::Decoder::with_buffer(stream)
                    .map_err(|e| ReadError::new(name, format!("malformed zstd stream: {e}")))?;
                inflate_stream(name, decoder, header.ch_size, limit)?
            }
            other => {
                return Err(ReadError::new(
                    name,
                    format!("compression type {other} is neither zlib (1) nor zstd (2)"),
                ))
            }
        };
        return Ok(Some(Inflated {
            name: name.to_string(),
            data: bytes,
            align: Some(header.ch_addralign),
        }));
    }
    let Some(suffix) = name.strip_prefix(".zdebug_") else {
        return Ok(None);
    };
    let Some(size) = data
        .strip_prefix(GNU_MAGIC)
        .and_then(|rest| rest.get(..8))
        .map(|size| u64::from_be_bytes(size.try_into().expect("8 bytes")))
    else {
        return Err(ReadError::new(
            name,
            "does not open with \"ZLIB\" and an 8-byte size",
        ));
    };
    let bytes = inflate_stream(
        name,
        flate2::read::ZlibDecoder::new(&data[12..]),
        size,
        limit,
    )?;
    Ok(Some(Inflated {
        name: format!(".debug_{suffix}"),
        data: bytes,
        align: None,
    }))
}

/// Reads `size` bytes from `decoder`: exactly that many, at most `limit`.
fn inflate_stream(
    name: &str,
    decoder: impl Read,
    size: u64,
    limit: u64,
) -> Result<Vec<u8>, ReadError> {
    if size > limit {
        return Err(ReadError::new(
            name,
            format!(
                "uncompressed size {size:#x} is more than this reader holds ({limit:#x} bytes)"
            ),
        ));
    }
    // The header's size is reserved only up to a bound: a corrupt one
    // costs memory only as far as the stream really inflates.
    let mut bytes = Vec::with_capacity(size.min(1 << 26) as usize);
    decoder
        .take(size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::new(name, format!("cannot inflate: {e}")))?;
    if bytes.len() as u64 != size {
        return Err(ReadError::new(
            name,
            format!(
                "inflates to {:#x} bytes{}, but its header says {size:#x}",
                bytes.len(),
                if bytes.len() as u64 > size {
                    " or more"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn chdr(kind: u32, size: u64) -> Vec<u8> {
        let mut header = kind.to_le_bytes().to_vec();
        header.extend([0; 4]);
        header.extend(size.to_le_bytes());
        header.extend(1u64.to_le_bytes());
        header
    }

    const COMPRESSED: u64 = SHF_COMPRESSED as u64;

    #[test]
    fn zlib_and_zstd_sections_inflate() {
        let text = b"debug info, debug info, debug info".repeat(3);
        let mut zlib_section = chdr(ELFCOMPRESS_ZLIB, text.len() as u64);
        zlib_section.extend(zlib(&text));
        let mut zstd_section = chdr(ELFCOMPRESS_ZSTD, text.len() as u64);
        zstd_section.extend(zstd::encode_all(&text[..], 3).unwrap());
        for section in [zlib_section, zstd_section] {
            let inflated = inflate(".debug_info", COMPRESSED, &section, 1 << 20)
                .unwrap()
                .unwrap();
            assert_eq!(inflated.name, ".debug_info");
            assert_eq!(inflated.data, text);
        }
    }

    #[test]
    fn gnu_zdebug_section_inflates_and_is_renamed() {
        let mut section = b"ZLIB".to_vec();
        section.extend(5u64.to_be_bytes());
        section.extend(zlib(b"lines"));
        let inflated = inflate(".zdebug_line", 0, &section, 1 << 20)
            .unwrap()
            .unwrap();
        assert_eq!(
            (inflated.name.as_str(), &inflated.data[..]),
            (".debug_line", &b"lines"[..])
        );
    }

    #[test]
    fn wrong_sizes_and_types_are_errors() {
        let mut short = chdr(ELFCOMPRESS_ZLIB, 100);
        short.extend(zlib(b"ten bytes!"));
        let error = inflate(".debug_str", COMPRESSED, &short, 1 << 20)
            .err()
            .unwrap();
        assert_eq!(
            error.to_string(),
            ".debug_str: inflates to 0xa bytes, but its header says 0x64"
        );
        let error = inflate(".debug_str", COMPRESSED, &chdr(7, 1), 1 << 20)
            .err()
            .unwrap();
        assert_eq!(
            error.to_string(),
            ".debug_str: compression type 7 is neither zlib (1) nor zstd (2)"
        );
        let error = inflate(".debug_str", COMPRESSED, &chdr(1, 1 << 40), 1 << 20)
            .err()
            .unwrap();
        assert_eq!(
            error.to_string(),
            ".debug_str: uncompressed size 0x10000000000 is more than this reader holds (0x100000 bytes)"
        );
        assert!(inflate(".debug_str", 0, b"plain", 1 << 20)
            .unwrap()
            .is_none());
    }
}
