//! The round trip: a model written to ELF and read back must be the model.
//!
//! In: an [`ObjectModel`] and a way to write it.
//! Out: `Ok(())` when `read(write(m)) == normalise(m)`, else a message
//! naming where they first differ (the path down the model, then the
//! expected and the read line).

use std::fmt::Display;

use super::normalise::normalise;
use crate::model::ObjectModel;
use crate::read::read;
use crate::write::{write, WriteOptions};

/// Writes `model` with [`write`] under `options`, reads it back, and
/// compares the result with the normalised model.
pub fn round_trip(model: &ObjectModel, options: &WriteOptions) -> Result<(), String> {
    round_trip_with(model, options, |m| write(m, options))
}

/// Writes `model` with `write` (a writer run under `options`), reads the
/// bytes back, and compares the result with the normalised model.
pub fn round_trip_with<E: Display>(
    model: &ObjectModel,
    options: &WriteOptions,
    write: impl FnOnce(&ObjectModel) -> Result<Vec<u8>, E>,
) -> Result<(), String> {
    let bytes = write(model).map_err(|e| format!("write failed: {e}"))?;
    let got = read(&bytes).map_err(|e| format!("reading the written object failed: {e}"))?;
    let expected = normalise(model, options);
    match first_difference(&expected, &got) {
        None => Ok(()),
        Some(difference) => Err(format!(
            "read(write(m)) differs from normalise(m): {difference}"
        )),
    }
}

/// Where two models first differ, as the chain of enclosing lines of their
/// pretty-printed forms followed by the two differing lines.
pub(crate) fn first_difference(expected: &ObjectModel, got: &ObjectModel) -> Option<String> {
    if expected == got {
        return None;
    }
    let expected_text = format!("{expected:#?}");
    let got_text = format!("{got:#?}");
    let expected_lines: Vec<&str> = expected_text.lines().collect();
    let got_lines: Vec<&str> = got_text.lines().collect();
    let index = expected_lines
        .iter()
        .zip(&got_lines)
        .position(|(e, g)| e != g)
        .unwrap_or(expected_lines.len().min(got_lines.len()));
    let mut path: Vec<String> = Vec::new();
    let mut depth = expected_lines
        .get(index)
        .or(got_lines.get(index))
        .map_or(0, |line| indentation(line));
    for (position, line) in expected_lines[..index].iter().enumerate().rev() {
        if indentation(line) < depth {
            depth = indentation(line);
            // Name the element: its own `name:` field, when printed already.
            let name = expected_lines[position + 1..index]
                .iter()
                .find(|l| indentation(l) == depth + 4 && l.trim_start().starts_with("name: "));
            path.push(match name {
                Some(name) => format!("{} ({})", line.trim(), name.trim().trim_end_matches(',')),
                None => line.trim().to_string(),
            });
        }
    }
    path.reverse();
    Some(format!(
        "at {}\n  expected: {}\n  read:     {}",
        path.join(" "),
        expected_lines.get(index).map_or("(end)", |l| l.trim()),
        got_lines.get(index).map_or("(end)", |l| l.trim()),
    ))
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}
