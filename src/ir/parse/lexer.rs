//! The .ll lexer: text into tokens that borrow from it.
//!
//! In: the whole input text. Out: a token vector ending in [`Tok::Eof`],
//! each token with its byte offset, and the byte offsets where lines start
//! (for turning offsets into line:col). Promise: no allocation per token
//! (every payload is a slice of the input), linear time, and an error with
//! a position for a character that starts no token or an unterminated string.

use crate::error::Pos;

/// A token kind with its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    /// A bare word: keywords, types (`i32`), DWARF names, field names.
    Ident(&'a str),
    /// `%name` / `%3` / `%"quoted"` (the text after `%`, without quotes).
    Local(&'a str),
    /// `@name` (the text after `@`, without quotes).
    Global(&'a str),
    /// `!123`.
    MdNum(u32),
    /// `!name` (`!dbg`, `!llvm.dbg.cu`, `!DILocation`).
    MdName(&'a str),
    /// `!"text"` (raw text between the quotes, escapes undecoded).
    MdString(&'a str),
    /// `!` alone (as in `!{`).
    Exclaim,
    /// `"text"` (raw, escapes undecoded).
    Str(&'a str),
    /// `c"bytes"` (raw, escapes undecoded).
    CStr(&'a str),
    /// An integer literal as written (`-5`, `42`), or hexadecimal digits
    /// (`0x3FF0000000000000`: the bits of a double, or an integer).
    Int(&'a str),
    /// A floating-point literal: decimal (`1.500000e+00`, `-0.0`) or
    /// hexadecimal with a format letter (`0xK3FFF8000000000000000`, `0xH3C00`).
    Float(&'a str),
    /// A label or field name followed by `:` (`entry:`, `3:`, `line:`).
    LabelDef(&'a str),
    /// `#0`: an attribute group reference.
    AttrRef(u32),
    /// `#dbg_value` and the other debug record keywords (text after `#`).
    Hash(&'a str),
    /// A one-character punctuator: `= , ( ) [ ] { } < > * | :`.
    Punct(u8),
    /// `...`.
    Ellipsis,
    /// End of input.
    Eof,
}

/// A token and where it starts.
#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    /// What it is.
    pub tok: Tok<'a>,
    /// Byte offset of its first character.
    pub offset: u32,
}

/// Byte offsets of line starts, for positions.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes the lines of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        // `find` of one byte searches a word at a time.
        let mut at = 0;
        while let Some(n) = text[at..].find('\n') {
            at += n + 1;
            starts.push(at as u32);
        }
        LineIndex { starts }
    }

    /// The 1-based line and column of a byte offset.
    pub fn pos(&self, offset: u32) -> Pos {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        Pos {
            line: line as u32,
            col: offset - self.starts[line - 1] + 1,
        }
    }
}

/// A lexing failure: message and byte offset.
pub type LexError = (String, u32);

/// By byte: whether it may continue a name (`[-a-zA-Z$._0-9]`).
const IDENT_CHARS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-');
        b += 1;
    }
    table
};

/// The value of a run of ASCII digits, if it fits in 32 bits (`str::parse`
/// checks for a sign and other radixes first: a tenth of the lexer's time).
fn decimal(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, &d| {
        n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })
}

fn is_ident_char(b: u8) -> bool {
    IDENT_CHARS[b as usize]
}

fn is_name_char(b: u8) -> bool {
    is_ident_char(b) || b == b'\\'
}

/// Splits the text into tokens.
pub fn lex(text: &str) -> Result<Vec<Token<'_>>, LexError> {
    lex_with_lines(text).map(|(tokens, _)| tokens)
}

/// [`lex`], also indexing the lines (the lexer sees every line break).
pub fn lex_with_lines(text: &str) -> Result<(Vec<Token<'_>>, LineIndex), LexError> {
    let bytes = text.as_bytes();
    let mut starts = vec![0u32];
    if bytes.len() >= u32::MAX as usize {
        return Err(("input too large".to_string(), 0));
    }
    let mut tokens = Vec::with_capacity(bytes.len() / 4);
    let mut i = 0usize;
    let scan = |mut j: usize, pred: fn(u8) -> bool| {
        while j < bytes.len() && pred(bytes[j]) {
            j += 1;
        }
        j
    };
    let string_end = |start: usize, starts: &mut Vec<u32>| -> Result<usize, LexError> {
        // `start` is just after the opening quote; returns the closing quote's
        // index, noting the line breaks in between.
        match bytes[start..].iter().position(|&b| b == b'"') {
            Some(n) => {
                for (at, _) in bytes[start..start + n]
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                {
                    starts.push((start + at + 1) as u32);
                }
                Ok(start + n)
            }
            None => Err(("unexpected end of file".to_string(), bytes.len() as u32)),
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        let offset = i as u32;
        let tok = match b {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'\n' => {
                i += 1;
                starts.push(i as u32);
                continue;
            }
            b';' => {
                i = bytes[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'%' | b'@' => {
                let (name, end) = if bytes.get(i + 1) == Some(&b'"') {
                    let close = string_end(i + 2, &mut starts)?;
                    (&text[i + 2..close], close + 1)
                } else {
                    // `[-a-zA-Z$._0-9]+` as in LLVM: escapes only in quotes.
                    let end = scan(i + 1, is_ident_char);
                    if end == i + 1 {
                        return Err((format!("expected a name after '{}'", b as char), offset));
                    }
                    (&text[i + 1..end], end)
                };
                i = end;
                if b == b'%' {
                    Tok::Local(name)
                } else {
                    Tok::Global(name)
                }
            }
            b'!' => match bytes.get(i + 1) {
                Some(c) if c.is_ascii_digit() => {
                    let end = scan(i + 1, |c| c.is_ascii_digit());
                    let n = decimal(&bytes[i + 1..end])
                        .ok_or_else(|| ("metadata number too large".to_string(), offset))?;
                    i = end;
                    Tok::MdNum(n)
                }
                Some(b'"') => {
                    let close = string_end(i + 2, &mut starts)?;
                    let s = &text[i + 2..close];
                    i = close + 1;
                    Tok::MdString(s)
                }
                Some(&c) if is_name_char(c) && !c.is_ascii_digit() => {
                    let end = scan(i + 1, is_name_char);
                    let s = &text[i + 1..end];
                    i = end;
                    Tok::MdName(s)
                }
                _ => {
                    i += 1;
                    Tok::Exclaim
                }
            },
            b'#' => match bytes.get(i + 1) {
                Some(c) if c.is_ascii_digit() => {
                    let end = scan(i + 1, |c| c.is_ascii_digit());
                    let n = decimal(&bytes[i + 1..end])
                        .ok_or_else(|| ("attribute group number too large".to_string(), offset))?;
                    i = end;
                    Tok::AttrRef(n)
                }
                Some(c) if c.is_ascii_alphabetic() => {
                    let end = scan(i + 1, is_ident_char);
                    let s = &text[i + 1..end];
                    i = end;
                    Tok::Hash(s)
                }
                _ => return Err(("unexpected character '#'".to_string(), offset)),
            },
            b'"' => {
                let close = string_end(i + 1, &mut starts)?;
                let s = &text[i + 1..close];
                i = close + 1;
                if bytes.get(i) == Some(&b':') {
                    i += 1;
                    Tok::LabelDef(s)
                } else {
                    Tok::Str(s)
                }
            }
            b'c' if bytes.get(i + 1) == Some(&b'"') => {
                let close = string_end(i + 2, &mut starts)?;
                let s = &text[i + 2..close];
                i = close + 1;
                Tok::CStr(s)
            }
            b'0'..=b'9' | b'-' => {
                let digits_start = if b == b'-' { i + 1 } else { i };
                if !bytes.get(digits_start).is_some_and(|c| c.is_ascii_digit()) {
                    // A name starting with '-' is not valid .ll; report the character.
                    return Err(("unexpected character '-'".to_string(), offset));
                }
                let hex = bytes.get(digits_start) == Some(&b'0')
                    && bytes.get(digits_start + 1) == Some(&b'x');
                let lettered = hex
                    && matches!(
                        bytes.get(digits_start + 2),
                        Some(b'K' | b'L' | b'M' | b'H' | b'R')
                    );
                let end = if lettered {
                    scan(digits_start + 3, |c| c.is_ascii_hexdigit())
                } else if hex {
                    scan(digits_start + 2, |c| c.is_ascii_hexdigit())
                } else {
                    scan(digits_start, |c| c.is_ascii_digit())
                };
                let decimal_float = !hex && bytes.get(end) == Some(&b'.');
                if lettered || decimal_float {
                    let mut end = end;
                    if decimal_float {
                        end = scan(end + 1, |c| c.is_ascii_digit());
                        if matches!(bytes.get(end), Some(b'e' | b'E')) {
                            let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
                            if bytes
                                .get(end + 1 + sign)
                                .is_some_and(|c| c.is_ascii_digit())
                            {
                                end = scan(end + 1 + sign, |c| c.is_ascii_digit());
                            }
                        }
                    }
                    i = end;
                    tokens.push(Token {
                        tok: Tok::Float(&text[offset as usize..end]),
                        offset,
                    });
                    continue;
                }
                let s = &text[i..end];
                i = end;
                if b != b'-' && bytes.get(i) == Some(&b':') {
                    i += 1;
                    Tok::LabelDef(s)
                } else if bytes.get(i).is_some_and(|&c| is_ident_char(c) && c != b'-') {
                    // A label like `3abc:` or an identifier starting with digits.
                    let end = scan(i, is_ident_char);
                    let s = &text[offset as usize..end];
                    i = end;
                    if bytes.get(i) == Some(&b':') {
                        i += 1;
                        Tok::LabelDef(s)
                    } else {
                        return Err((format!("invalid number '{s}'"), offset));
                    }
                } else {
                    Tok::Int(s)
                }
            }
            b'.' if text[i..].starts_with("...") => {
                i += 3;
                Tok::Ellipsis
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$' => {
                let end = scan(i, is_ident_char);
                let s = &text[i..end];
                i = end;
                if bytes.get(i) == Some(&b':') {
                    i += 1;
                    Tok::LabelDef(s)
                } else {
                    Tok::Ident(s)
                }
            }
            b'=' | b',' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b'*' | b'|'
            | b':' => {
                i += 1;
                Tok::Punct(b)
            }
            _ => {
                let c = text[i..].chars().next().unwrap_or('?');
                return Err((format!("unexpected character '{c}'"), offset));
            }
        };
        tokens.push(Token { tok, offset });
    }
    tokens.push(Token {
        tok: Tok::Eof,
        offset: bytes.len() as u32,
    });
    Ok((tokens, LineIndex { starts }))
}

/// Decodes a .ll string body: `\XX` hex escapes and `\\`.
pub fn unescape(raw: &str) -> Vec<u8> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(v) = hex {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Tok<'_>> {
        lex(text).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn tokens_of_an_instruction_and_a_record() {
        assert_eq!(
            kinds("%3 = mul nsw i32 %1, %0, !dbg !22 ; comment\n  #dbg_value(i32 %0, !16)"),
            vec![
                Tok::Local("3"),
                Tok::Punct(b'='),
                Tok::Ident("mul"),
                Tok::Ident("nsw"),
                Tok::Ident("i32"),
                Tok::Local("1"),
                Tok::Punct(b','),
                Tok::Local("0"),
                Tok::Punct(b','),
                Tok::MdName("dbg"),
                Tok::MdNum(22),
                Tok::Hash("dbg_value"),
                Tok::Punct(b'('),
                Tok::Ident("i32"),
                Tok::Local("0"),
                Tok::Punct(b','),
                Tok::MdNum(16),
                Tok::Punct(b')'),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn labels_strings_and_metadata() {
        assert_eq!(
            kinds("3: line: -7 c\"a\\00\" !{!\"x\"} @\"q r\" ..."),
            vec![
                Tok::LabelDef("3"),
                Tok::LabelDef("line"),
                Tok::Int("-7"),
                Tok::CStr("a\\00"),
                Tok::Exclaim,
                Tok::Punct(b'{'),
                Tok::MdString("x"),
                Tok::Punct(b'}'),
                Tok::Global("q r"),
                Tok::Ellipsis,
                Tok::Eof,
            ]
        );
        assert_eq!(unescape("a\\00\\\\b\\22"), b"a\0\\b\"".to_vec());
    }

    #[test]
    fn float_literals() {
        assert_eq!(
            kinds("1.000000e+00 -2.5 0x3FF0000000000000 0xK3FFF8000000000000000 0xH3C00 3.0E-5"),
            vec![
                Tok::Float("1.000000e+00"),
                Tok::Float("-2.5"),
                Tok::Int("0x3FF0000000000000"),
                Tok::Float("0xK3FFF8000000000000000"),
                Tok::Float("0xH3C00"),
                Tok::Float("3.0E-5"),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn the_lexers_lines_are_the_texts_lines() {
        let text = "a\n\n  ; c\n@\"x\ny\" = 1\n!\"p\nq\"\n";
        let (_, lines) = lex_with_lines(text).unwrap();
        assert_eq!(lines.starts, LineIndex::new(text).starts);
        assert_eq!(lines.starts, vec![0, 2, 3, 9, 13, 20, 24, 27]);
    }

    #[test]
    fn positions_and_errors() {
        let text = "ab\ncd ?";
        let index = LineIndex::new(text);
        assert_eq!(index.pos(4), Pos { line: 2, col: 2 });
        assert_eq!(
            lex(text).unwrap_err(),
            ("unexpected character '?'".into(), 6)
        );
        assert_eq!(
            lex("x \"abc").unwrap_err(),
            ("unexpected end of file".into(), 6)
        );
    }
}
