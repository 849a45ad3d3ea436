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

/// Appends `value` in decimal right-aligned in `width` columns (as
/// `{value:>width$}`).
pub(crate) fn push_decimal_right(out: &mut String, value: u64, width: usize) {
    let mut buffer = [0; DIGITS];
    let text = digits::<10>(value, &mut buffer);
    push_spaces(out, width.saturating_sub(text.len()));
    out.push_str(text);
}

/// Appends `text` left-aligned in `width` columns (as `{text:<width$}`,
/// whose width counts characters).
pub(crate) fn push_left(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    push_spaces(out, width.saturating_sub(text.chars().count()));
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
            push_decimal_right(&mut out, value, 13);
            push_left(&mut out, "é", 4);
            push_left(&mut out, "x", 150);
            assert_eq!(
                out,
                format!("{value}{value:x}{value:>13}{:<4}{:<150}", "é", "x")
            );
        }
    }
}
