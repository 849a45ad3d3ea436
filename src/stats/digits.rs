//! Numbers and padding appended to text by hand, for the text that is
//! made once per DIE or per function: `core::fmt` writes padding one
//! character at a time through a trait object, which took a tenth of
//! `stats`' instructions on a large file (the walk's ids and block paths,
//! the per-function table).

/// Appends `value` in decimal (as `{value}`).
pub(crate) fn push_decimal(out: &mut String, value: u64) {
    out.push_str(digits::<10>(value, &mut [0; DIGITS]));
}

/// Appends `value` in lowercase hexadecimal (as `{value:x}`).
pub(crate) fn push_hex(out: &mut String, value: u64) {
    out.push_str(digits::<16>(value, &mut [0; DIGITS]));
}

/// Appends each of `columns`' values in decimal right-aligned in its
/// width, after a space (as ` {value:>width$}` for each): made in a row of
/// spaces on the stack and appended at once, rather than a number and its
/// padding at a time (the function table has 7 columns a row, 80 000 rows
/// in a large file).
pub(crate) fn push_columns(out: &mut String, columns: &[(usize, u64)]) {
    const ROOM: usize = 128;
    let mut row = [b' '; ROOM];
    let mut end = 0;
    for &(width, value) in columns {
        let mut buffer = [0; DIGITS];
        let text = digits::<10>(value, &mut buffer);
        let field = 1 + width.max(text.len());
        if end + field > ROOM {
            push_ascii(out, &row[..end]);
            row[..end].fill(b' ');
            if field > ROOM {
                push_spaces(out, field - text.len());
                out.push_str(text);
                end = 0;
                continue;
            }
            end = 0;
        }
        end += field;
        row[end - text.len()..end].copy_from_slice(text.as_bytes());
    }
    push_ascii(out, &row[..end]);
}

/// Appends `bytes`, spaces and digits only.
fn push_ascii(out: &mut String, bytes: &[u8]) {
    // SAFETY: the callers' bytes are spaces and ASCII digits, and ASCII
    // is UTF-8.
    out.push_str(unsafe { std::str::from_utf8_unchecked(bytes) });
}

/// Appends `text` left-aligned in `width` columns (as `{text:<width$}`,
/// whose width counts characters).
pub(crate) fn push_left(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    // A character takes at most 4 bytes: a text of `4 * width` bytes fills
    // the width without counting (most ids of a large file's table do).
    if text.len() < 4 * width {
        push_spaces(out, width.saturating_sub(text.chars().count()));
    }
}

/// The most digits a `u64` has (in decimal).
const DIGITS: usize = 20;

/// `value`'s digits in `RADIX` (10 or 16), written at the end of
/// `buffer` (a constant radix: the divisions are multiplications and
/// shifts).
fn digits<const RADIX: u64>(value: u64, buffer: &mut [u8; DIGITS]) -> &str {
    let mut at = DIGITS;
    let mut rest = value;
    loop {
        at -= 1;
        buffer[at] = b"0123456789abcdef"[(rest % RADIX) as usize];
        rest /= RADIX;
        if rest == 0 {
            break;
        }
    }
    // SAFETY: every byte written comes from the table of ASCII digits
    // above, and ASCII is UTF-8 (checking it cost a tenth of the writing).
    unsafe { std::str::from_utf8_unchecked(&buffer[at..]) }
}

/// Appends `count` spaces, a stretch of them at a time.
fn push_spaces(out: &mut String, count: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = count;
    while left > 0 {
        let now = left.min(SPACES.len());
        out.push_str(&SPACES[..now]);
        left -= now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_padding_read_as_core_fmt_writes_them() {
        for value in [0, 1, 9, 10, 15, 16, 255, 1 << 32, u64::MAX] {
            let mut out = String::new();
            push_decimal(&mut out, value);
            push_hex(&mut out, value);
            push_columns(&mut out, &[(13, value), (1, value), (0, 7)]);
            push_left(&mut out, "é", 4);
            push_left(&mut out, "x", 150);
            push_left(&mut out, "ééééé", 2);
            assert_eq!(
                out,
                format!(
                    "{value}{value:x} {value:>13} {value:>1} {:>0}{:<4}{:<150}{:<2}",
                    7, "é", "x", "ééééé"
                )
            );
        }
    }

    #[test]
    fn columns_past_the_row_on_the_stack_read_as_core_fmt_writes_them() {
        let columns: Vec<(usize, u64)> = (0..40).map(|i| (i * 3, u64::MAX >> i)).collect();
        let mut out = String::new();
        push_columns(&mut out, &columns);
        push_columns(&mut out, &[(200, 5), (3, 12345)]);
        let mut expected = String::new();
        for (width, value) in columns.iter().chain(&[(200, 5), (3, 12345)]) {
            expected += &format!(" {value:>width$}");
        }
        assert_eq!(out, expected);
    }
}
