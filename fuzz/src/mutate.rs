//! The mutators: deterministic edits of .ll text (any, and C++ exception
//! handling in particular) and of ELF objects.
//!
//! In: a seed input and a [`SplitMix64`] stream. Out: a mutated copy. Rule:
//! the same seed input and stream state give the same mutation, so any
//! finding is reproduced by its seed and index.

/// A small, fast, well-distributed PRNG (Steele, Lea and Flood's
/// SplitMix64), so runs are reproducible without a dependency.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Characters a flipped character becomes: the .ll grammar's punctuation,
/// digits, sigils and a few letters.
const FLIP_CHARS: &[u8] = b"0123456789(){}[]<>,%@!#\"=:-. xi*\\$^\n";

/// Integer constants that probe widths, signs and overflow.
const CONSTANTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "7",
    "31",
    "32",
    "63",
    "64",
    "127",
    "128",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "340282366920938463463374607431768211456",
    "0x7FF0000000000000",
];

/// Type words a type becomes.
const TYPES: &[&str] = &[
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "i7",
    "i33",
    "ptr",
    "void",
    "label",
    "metadata",
    "float",
    "double",
    "[4 x i32]",
    "{ i32, i8 }",
    "<4 x i32>",
    "i0",
    "i9999999",
];

/// Opcodes an opcode becomes.
const OPCODES: &[&str] = &[
    "add",
    "sub",
    "mul",
    "sdiv",
    "udiv",
    "srem",
    "urem",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "xor",
    "icmp",
    "select",
    "load",
    "store",
    "br",
    "ret",
    "call",
    "phi",
    "alloca",
    "getelementptr",
    "zext",
    "sext",
    "trunc",
    "ptrtoint",
    "inttoptr",
    "bitcast",
    "switch",
    "unreachable",
    "freeze",
];

/// Comparison predicates.
const PREDICATES: &[&str] = &[
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
];

/// The .ll mutation kinds, by name (for counts).
pub const LL_MUTATIONS: &[&str] = &[
    "truncate",
    "delete line",
    "duplicate line",
    "swap lines",
    "flip character",
    "constant",
    "type",
    "opcode",
    "predicate",
    "operand order",
];

/// Applies one .ll mutation; returns the text and the index of the kind in
/// [`LL_MUTATIONS`].
pub fn mutate_ll(text: &str, rng: &mut SplitMix64) -> (String, usize) {
    let kind = rng.below(LL_MUTATIONS.len());
    (apply_ll(text, kind, rng), kind)
}

/// Applies .ll mutation `kind` of [`LL_MUTATIONS`].
fn apply_ll(text: &str, kind: usize, rng: &mut SplitMix64) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        lines.push(String::new());
    }
    let line = rng.below(lines.len());
    match kind {
        0 => {
            let mut cut = rng.below(text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            return text[..cut].to_string();
        }
        1 => {
            lines.remove(line);
        }
        2 => {
            let copy = lines[line].clone();
            lines.insert(rng.below(lines.len() + 1), copy);
        }
        3 => {
            let other = rng.below(lines.len());
            lines.swap(line, other);
        }
        4 => {
            let bytes = lines[line].as_bytes();
            if !bytes.is_empty() {
                let at = rng.below(bytes.len());
                let mut bytes = bytes.to_vec();
                bytes[at] = *rng.pick(FLIP_CHARS);
                lines[line] = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
        5 => lines[line] = replace_token(&lines[line], rng, is_number, CONSTANTS),
        6 => lines[line] = replace_token(&lines[line], rng, |w| TYPES.contains(&w), TYPES),
        7 => lines[line] = replace_token(&lines[line], rng, |w| OPCODES.contains(&w), OPCODES),
        8 => {
            lines[line] = replace_token(&lines[line], rng, |w| PREDICATES.contains(&w), PREDICATES)
        }
        _ => lines[line] = swap_operands(&lines[line], rng),
    }
    join_lines(&lines)
}

fn join_lines(lines: &[String]) -> String {
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The mutation kinds of C++ exception handling, by name (for counts): they
/// edit what clang++ writes for `try`, `catch` and cleanups.
pub const CXX_MUTATIONS: &[&str] = &[
    "landingpad clause",
    "invoke destinations",
    "invoke to call",
    "exception value type",
    "personality",
];

/// What a landingpad clause becomes: the clause kinds, with type infos that
/// the module may or may not declare.
const CLAUSES: &[&str] = &[
    "cleanup",
    "catch ptr null",
    "catch ptr @_ZTIi",
    "catch ptr @_ZTISt9exception",
    "filter [0 x ptr] zeroinitializer",
    "filter [1 x ptr] [ptr @_ZTIi]",
    "catch i32 0",
];

/// What the `{ ptr, i32 }` of a landingpad, extractvalue or resume becomes.
const EXCEPTION_TYPES: &[&str] = &["{ ptr, i64 }", "{ i32, ptr }", "ptr", "{ ptr, i32, i32 }"];

/// What a function's personality becomes (empty: none).
const PERSONALITIES: &[&str] = &[
    "",
    " personality ptr null",
    " personality ptr @__gcc_personality_v0",
    " personality i32 0",
];

/// Applies one mutation of C++ IR: a kind of [`LL_MUTATIONS`] or of
/// [`CXX_MUTATIONS`] (the text is unchanged when it has nothing the kind
/// edits); returns the text and the kind's index in the two lists joined.
pub fn mutate_cxx_ll(text: &str, rng: &mut SplitMix64) -> (String, usize) {
    let kind = rng.below(LL_MUTATIONS.len() + CXX_MUTATIONS.len());
    let Some(cxx_kind) = kind.checked_sub(LL_MUTATIONS.len()) else {
        return (apply_ll(text, kind, rng), kind);
    };
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let trimmed = |line: &String| line.trim_start().to_string();
    let chosen = |lines: &[String], rng: &mut SplitMix64, wanted: &dyn Fn(&str) -> bool| {
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| wanted(lines[i].trim_start()))
            .collect();
        (!at.is_empty()).then(|| *rng.pick(&at))
    };
    match cxx_kind {
        0 => {
            let clause = |l: &str| {
                l.starts_with("cleanup") || l.starts_with("catch ") || l.starts_with("filter ")
            };
            if let Some(i) = chosen(&lines, rng, &clause) {
                let line = trimmed(&lines[i]);
                let end = line.find(", !").unwrap_or(line.len());
                let indent = &lines[i][..lines[i].len() - line.len()];
                lines[i] = format!("{indent}{}{}", rng.pick(CLAUSES), &line[end..]);
            }
        }
        1 => {
            if let Some(i) = chosen(&lines, rng, &|l| l.starts_with("to label ")) {
                lines[i] = swap_invoke_destinations(&lines[i]);
            }
        }
        2 => {
            let invoke = |l: &str| l.contains("invoke ");
            if let Some(i) = chosen(&lines, rng, &invoke) {
                lines[i] = lines[i].replacen("invoke ", "call ", 1);
                // clang puts the destinations on the next line.
                if lines
                    .get(i + 1)
                    .is_some_and(|l| l.trim_start().starts_with("to "))
                {
                    let next = lines.remove(i + 1);
                    let metadata = next.find(", !").map_or("", |at| &next[at..]);
                    lines[i].push_str(metadata);
                }
            }
        }
        3 => {
            if let Some(i) = chosen(&lines, rng, &|l| l.contains("{ ptr, i32 }")) {
                let new = rng.pick(EXCEPTION_TYPES);
                lines[i] = lines[i].replacen("{ ptr, i32 }", new, 1);
            }
        }
        _ => {
            let personality = " personality ptr @__gxx_personality_v0";
            if let Some(i) = chosen(&lines, rng, &|l| l.contains(personality)) {
                let new = rng.pick(PERSONALITIES);
                lines[i] = lines[i].replacen(personality, new, 1);
            }
        }
    }
    (join_lines(&lines), kind)
}

/// `to label %a unwind label %b` becomes `to label %b unwind label %a`
/// (what follows, such as `, !dbg !7`, stays).
fn swap_invoke_destinations(line: &str) -> String {
    let Some(to) = line.find("to label ") else {
        return line.to_string();
    };
    let Some(unwind) = line.find(" unwind label ") else {
        return line.to_string();
    };
    let normal = &line[to + "to label ".len()..unwind];
    let rest = &line[unwind + " unwind label ".len()..];
    let end = rest.find(',').unwrap_or(rest.len());
    format!(
        "{}to label {} unwind label {normal}{}",
        &line[..to],
        &rest[..end],
        &rest[end..]
    )
}

fn is_number(word: &str) -> bool {
    let digits = word.strip_prefix('-').unwrap_or(word);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Replaces one word of `line` that `matches` by a pick from `choices`
/// (the line is unchanged when no word matches).
fn replace_token(
    line: &str,
    rng: &mut SplitMix64,
    matches: impl Fn(&str) -> bool,
    choices: &[&str],
) -> String {
    let words: Vec<(usize, &str)> = word_spans(line)
        .into_iter()
        .filter(|(_, w)| matches(w))
        .collect();
    if words.is_empty() {
        return line.to_string();
    }
    let (at, word) = *rng.pick(&words);
    format!(
        "{}{}{}",
        &line[..at],
        rng.pick(choices),
        &line[at + word.len()..]
    )
}

/// The words of a line (runs of letters, digits, `-`, `_`, `.`) and their offsets.
fn word_spans(line: &str) -> Vec<(usize, &str)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        let in_word = c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
        match (start, in_word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                spans.push((s, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    spans
}

/// Swaps two comma-separated operands of a line.
fn swap_operands(line: &str, rng: &mut SplitMix64) -> String {
    let mut parts: Vec<&str> = line.split(", ").collect();
    if parts.len() < 2 {
        return line.to_string();
    }
    let a = rng.below(parts.len());
    let b = rng.below(parts.len());
    parts.swap(a, b);
    parts.join(", ")
}

/// The object mutation kinds, by name (for counts).
pub const OBJECT_MUTATIONS: &[&str] = &[
    "flip ELF header byte",
    "flip section header byte",
    "flip debug section byte",
    "write debug section word",
    "write header word",
    "truncate",
];

/// How many mutation kinds the harness counts: [`LL_MUTATIONS`],
/// [`OBJECT_MUTATIONS`] and [`CXX_MUTATIONS`].
pub const KIND_COUNT: usize = LL_MUTATIONS.len() + OBJECT_MUTATIONS.len() + CXX_MUTATIONS.len();

/// The names of every kind in the harness's order: the .ll kinds, the
/// object kinds, then the C++ kinds.
pub fn kind_names() -> impl Iterator<Item = &'static str> {
    LL_MUTATIONS
        .iter()
        .chain(OBJECT_MUTATIONS)
        .chain(CXX_MUTATIONS)
        .copied()
}

/// Words written over object fields.
const WORDS: &[u64] = &[
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0xffff,
    0x7fff_ffff,
    0xffff_ffff,
    0xffff_fff0,
    0x1_0000_0000,
    u64::MAX,
];

/// Applies one object mutation; returns the bytes and the index of the kind
/// in [`OBJECT_MUTATIONS`].
pub fn mutate_object(bytes: &[u8], rng: &mut SplitMix64) -> (Vec<u8>, usize) {
    let mut out = bytes.to_vec();
    let kind = rng.below(OBJECT_MUTATIONS.len());
    if out.is_empty() {
        return (out, kind);
    }
    let sections = sections(bytes);
    let debug: Vec<(usize, usize)> = sections
        .iter()
        .filter(|(name, _, size)| {
            (name.starts_with(".debug") || name.starts_with(".rela.debug") || name == ".eh_frame")
                && *size > 0
        })
        .map(|(_, offset, size)| (*offset, *size))
        .collect();
    let header_table = section_header_table(bytes);
    let whole = out.len();
    match kind {
        0 => flip(&mut out, 0, 64, rng),
        1 => match header_table {
            Some((start, len)) => flip(&mut out, start, len, rng),
            None => flip(&mut out, 0, whole, rng),
        },
        2 => match debug.is_empty() {
            false => {
                let (start, len) = *rng.pick(&debug);
                flip(&mut out, start, len, rng);
            }
            true => flip(&mut out, 0, whole, rng),
        },
        3 => {
            let (start, len) = if debug.is_empty() {
                (0, whole)
            } else {
                *rng.pick(&debug)
            };
            write_word(&mut out, start, len, rng);
        }
        4 => match header_table {
            Some((start, len)) if rng.below(2) == 0 => write_word(&mut out, start, len, rng),
            _ => write_word(&mut out, 0, 64, rng),
        },
        _ => out.truncate(rng.below(out.len())),
    }
    (out, kind)
}

/// Flips one random bit pattern of a byte in `start..start+len` (clamped).
fn flip(bytes: &mut [u8], start: usize, len: usize, rng: &mut SplitMix64) {
    let end = (start + len).min(bytes.len());
    if start >= end {
        return;
    }
    let at = start + rng.below(end - start);
    bytes[at] ^= (rng.next_u64() as u8).max(1);
}

/// Writes a 4- or 8-byte word from [`WORDS`] at an aligned offset in range.
fn write_word(bytes: &mut [u8], start: usize, len: usize, rng: &mut SplitMix64) {
    let width = if rng.below(2) == 0 { 4 } else { 8 };
    let end = (start + len).min(bytes.len());
    if end < start + width {
        return;
    }
    let at = start + rng.below((end - start - width) / width + 1) * width;
    let word = rng.pick(WORDS).to_le_bytes();
    bytes[at..at + width].copy_from_slice(&word[..width]);
}

fn read_u16(bytes: &[u8], at: usize) -> Option<usize> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?) as usize)
}

fn read_u32(bytes: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
}

fn read_u64(bytes: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?)).ok()
}

/// The byte range of the ELF64 section header table, if the header is sane.
fn section_header_table(bytes: &[u8]) -> Option<(usize, usize)> {
    let offset = read_u64(bytes, 0x28)?;
    let size = read_u16(bytes, 0x3a)?.checked_mul(read_u16(bytes, 0x3c)?)?;
    (offset.checked_add(size)? <= bytes.len()).then_some((offset, size))
}

/// (name, file offset, size) of each section of an ELF64 object, as far as
/// its headers can be read.
fn sections(bytes: &[u8]) -> Vec<(String, usize, usize)> {
    let Some((table, _)) = section_header_table(bytes) else {
        return Vec::new();
    };
    let (Some(entsize), Some(count), Some(strndx)) = (
        read_u16(bytes, 0x3a),
        read_u16(bytes, 0x3c),
        read_u16(bytes, 0x3e),
    ) else {
        return Vec::new();
    };
    let header = |i: usize| table + i * entsize;
    let Some(strtab) = read_u64(bytes, header(strndx) + 24) else {
        return Vec::new();
    };
    (0..count)
        .filter_map(|i| {
            let name_at = strtab.checked_add(read_u32(bytes, header(i))?)?;
            let name_bytes = bytes.get(name_at..)?;
            let end = name_bytes.iter().position(|&b| b == 0)?;
            let name = String::from_utf8_lossy(&name_bytes[..end]).into_owned();
            let offset = read_u64(bytes, header(i) + 24)?;
            let size = read_u64(bytes, header(i) + 32)?;
            (offset.checked_add(size)? <= bytes.len()).then_some((name, offset, size))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // The first outputs for seed 0 of the reference implementation.
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn mutations_are_deterministic() {
        let text = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n";
        let run = |seed| {
            let mut rng = SplitMix64::new(seed);
            (0..50)
                .map(|_| mutate_ll(text, &mut rng).0)
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn cxx_mutations_edit_exception_handling() {
        let text = "define void @f() personality ptr @__gxx_personality_v0 {\n  invoke void @g()\n          to label %1 unwind label %2, !dbg !4\n1:\n  ret void\n2:\n  %3 = landingpad { ptr, i32 }\n          cleanup, !dbg !5\n  resume { ptr, i32 } %3\n}\n";
        assert_eq!(
            swap_invoke_destinations("    to label %1 unwind label %2, !dbg !4"),
            "    to label %2 unwind label %1, !dbg !4"
        );
        // Every kind, over many streams, and each changes the text.
        let mut changed = vec![false; CXX_MUTATIONS.len()];
        for seed in 0..200 {
            let (out, kind) = mutate_cxx_ll(text, &mut SplitMix64::new(seed));
            if let Some(cxx) = kind.checked_sub(LL_MUTATIONS.len()) {
                changed[cxx] |= out != text;
                if cxx == 2 {
                    assert!(out.contains("  call void @g(), !dbg !4\n"), "{out}");
                }
            }
        }
        assert_eq!(changed, vec![true; CXX_MUTATIONS.len()]);
    }

    #[test]
    fn token_mutations_change_the_named_token() {
        let line = "  %c = icmp slt i32 %a, 7";
        let mut rng = SplitMix64::new(1);
        let out = replace_token(line, &mut rng, |w| PREDICATES.contains(&w), &["uge"]);
        assert_eq!(out, "  %c = icmp uge i32 %a, 7");
        let out = replace_token(line, &mut rng, is_number, &["-1"]);
        assert_eq!(out, "  %c = icmp slt i32 %a, -1");
        assert_eq!(swap_operands("a, b", &mut SplitMix64::new(3)).len(), 4);
    }
}
