//! The working-directory line of preprocessed output, as gcc writes it
//! (`-fworking-directory`, on whenever debug information is): the second
//! line of `cc -g -E x.c` is `# 1 "/the/build/directory//"`.
//!
//! In: the text the preprocessor printed (when writing), or the first lines
//! of a `.i`/`.ii` file (when reading). Out: the text with that line after its
//! first line marker, or the directory the line names.
//!
//! Why: distcc (and any tool that ships preprocessed source elsewhere)
//! compiles the `.i` in another directory on another machine, where clang's
//! `DW_AT_comp_dir` would be the daemon's directory. The driver reads the
//! line back and hands the directory to clang as `-fdebug-compilation-dir`,
//! so the object names the directory the source was preprocessed in (then
//! mapped by `-fdebug-prefix-map`/`-ffile-prefix-map`, as clang maps it),
//! wherever it is compiled. clang reads the line as a line marker that
//! covers no line, so a `.i` with it compiles exactly as one without.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// `text` with the working-directory line naming `directory` inserted after
/// its first line, when that line is a line marker (`# 1 "x.c"`); otherwise
/// (`-P` output, empty output) `text` unchanged.
pub fn insert(text: &[u8], directory: &str) -> Vec<u8> {
    let Some(first_end) = text.iter().position(|&b| b == b'\n') else {
        return text.to_vec();
    };
    if !text.starts_with(b"# ") {
        return text.to_vec();
    }
    let line = format!("# 1 \"{}//\"\n", escape(directory));
    let mut out = Vec::with_capacity(text.len() + line.len());
    out.extend_from_slice(&text[..=first_end]);
    out.extend_from_slice(line.as_bytes());
    out.extend_from_slice(&text[first_end + 1..]);
    out
}

/// The directory named by the working-directory line of preprocessed file
/// `path` (its second line, as gcc and [`insert`] place it), if it has one.
pub fn read(path: &Path) -> std::io::Result<Option<String>> {
    let file = std::fs::File::open(path)?;
    // Two lines, each no longer than a path can be.
    let mut lines = BufReader::new(file.take(2 * 8192)).lines();
    let (Some(first), Some(second)) = (lines.next(), lines.next()) else {
        return Ok(None);
    };
    let (first, second) = match (first, second) {
        (Ok(first), Ok(second)) => (first, second),
        // Not text: not preprocessed output this reads.
        _ => return Ok(None),
    };
    if !first.starts_with("# ") {
        return Ok(None);
    }
    Ok(directory_of(&second))
}

/// The directory of a line `# N "DIR//"`.
fn directory_of(line: &str) -> Option<String> {
    let rest = line.strip_prefix("# ")?;
    let quoted = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    if quoted.len() == rest.len() {
        return None;
    }
    let name = quoted.strip_prefix(" \"")?.strip_suffix('"')?;
    let directory = unescape(name)?;
    let directory = directory.strip_suffix("//")?;
    (!directory.is_empty()).then(|| directory.to_string())
}

/// A name as a line marker quotes it: `\` and `"` escaped.
fn escape(name: &str) -> String {
    name.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The name inside a line marker's quotes, escapes undone; `None` when the
/// quotes end early or an escape is not one [`escape`] (or cpp) writes.
fn unescape(quoted: &str) -> Option<String> {
    let mut name = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next()? {
                escaped @ ('\\' | '"') => name.push(escaped),
                _ => return None,
            },
            '"' => return None,
            c => name.push(c),
        }
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_follows_the_first_line_marker_and_reads_back() {
        let text = b"# 1 \"t.c\"\n# 1 \"<built-in>\" 1\nint x;\n";
        let marked = insert(text, "/build/a \"b\"\\c");
        assert_eq!(
            String::from_utf8(marked.clone()).unwrap(),
            "# 1 \"t.c\"\n# 1 \"/build/a \\\"b\\\"\\\\c//\"\n# 1 \"<built-in>\" 1\nint x;\n"
        );
        let second = String::from_utf8(marked)
            .unwrap()
            .lines()
            .nth(1)
            .unwrap()
            .to_string();
        assert_eq!(directory_of(&second).as_deref(), Some("/build/a \"b\"\\c"));
    }

    #[test]
    fn output_without_line_markers_is_left_as_it_is() {
        assert_eq!(insert(b"int x;\n", "/build"), b"int x;\n");
        assert_eq!(insert(b"", "/build"), b"");
    }

    #[test]
    fn only_a_quoted_name_ending_in_two_slashes_is_a_working_directory() {
        assert_eq!(
            directory_of("# 1 \"/tmp/cid//\"").as_deref(),
            Some("/tmp/cid")
        );
        assert_eq!(directory_of("# 1 \"/usr/include/stdio.h\" 1 3 4"), None);
        assert_eq!(directory_of("# 1 \"<built-in>\" 1"), None);
        assert_eq!(directory_of("# \"/x//\""), None);
        assert_eq!(directory_of("# 1 \"//\""), None);
        assert_eq!(directory_of("# 1 \"/a\\n//\""), None);
    }
}
