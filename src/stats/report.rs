//! The figures of one file put together and printed.
//!
//! In: a [`Walk`], the [`LineFigures`] and the loaded file. Out: a
//! [`FileStatistics`] (llvm-dwarfdump's keys in its order, llvm-dwarfdump's
//! sums over its per-function table), and its text or JSON form.

use super::Map;
use std::fmt::Write as _;

use rayon::prelude::*;

use super::digits::{push_columns, push_decimal, push_left};
use super::lines::LineFigures;
use super::load::CodeSection;
use super::load::LoadedFile;
use super::walk::{FunctionStats, Walk};
use super::{FileStatistics, FunctionRow, Value, VariableRow, BUCKET_NAMES};
use crate::linecheck::json_string;

/// The statistics of one file, and what is left of `walk` (for the caller
/// to free, or not).
pub(crate) fn statistics(
    name: &str,
    file: &LoadedFile,
    code: Vec<CodeSection>,
    mut walk: Walk,
    lines: LineFigures,
) -> (FileStatistics, Walk) {
    let mut keys: Vec<(String, Value)> = Vec::new();
    // A sum that reached u64::MAX saturated: llvm-dwarfdump prints "overflowed".
    let mut put = |key: &str, value: u64| {
        let value = match value {
            u64::MAX => Value::Text("overflowed".into()),
            value => Value::Number(value),
        };
        keys.push((key.to_string(), value));
    };
    let totals = walk.totals;
    let mut sums = [0u64; 7];
    for f in &walk.functions {
        let instances = f.row.inlined + f.row.instances;
        let total = if f.is_function {
            f.unique_variables * instances
        } else {
            f.row.locals + totals.unit_scope_constant_members + totals.unit_scope_artificial
        };
        let is_function = u64::from(f.is_function);
        for (sum, value) in sums.iter_mut().zip([
            total,
            f.unique_variables,
            is_function,
            u64::from(f.has_source_location),
            is_function * f.row.inlined,
            f.row.params,
            f.row.locals,
        ]) {
            *sum = sum.saturating_add(value);
        }
    }
    let [total, unique, functions, with_source, inlined, params, locals] = sums;
    let with_location = totals.with_location + totals.constant_members;
    put("#functions", functions);
    put("#functions with location", with_source);
    put("#inlined functions", inlined);
    put(
        "#inlined functions with abstract origins",
        totals.abstract_origins,
    );
    put("#unique source variables", unique);
    put("#source variables", total);
    put("#source variables with location", with_location);
    put("#call site entries", walk.call_site_entries);
    put("#call site DIEs", walk.call_site_dies);
    put("#call site parameter DIEs", walk.call_site_parameter_dies);
    for (group, bytes) in [
        ("sum_all_variables", walk.all),
        ("sum_all_params", walk.params),
        ("sum_all_local_vars", walk.locals),
    ] {
        put(&format!("{group}(#bytes in parent scope)"), bytes.in_scope);
        if group == "sum_all_variables" {
            put(
                "sum_all_variables(#bytes in any scope covered by DW_AT_location)",
                walk.total_bytes_covered,
            );
        }
        put(
            &format!("{group}(#bytes in parent scope covered by DW_AT_location)"),
            bytes.covered,
        );
        put(
            &format!("{group}(#bytes in parent scope covered by DW_OP_entry_value)"),
            bytes.entry_value,
        );
    }
    put("#bytes within functions", walk.function_bytes);
    put("#bytes within inlined functions", walk.inlined_bytes);
    put("#params", params);
    put("#params with source location", totals.params_with_source);
    put("#params with type", totals.params_with_type);
    put("#params with binary location", totals.params_with_location);
    put("#local vars", locals);
    put(
        "#local vars with source location",
        totals.locals_with_source,
    );
    put("#local vars with type", totals.locals_with_type);
    put(
        "#local vars with binary location",
        totals.locals_with_location,
    );
    for (section, size) in &file.debug_section_sizes {
        put(&format!("#bytes in {section}"), *size);
    }
    for (group, buckets) in [
        ("#variables", walk.all_buckets),
        ("#params", walk.param_buckets),
        ("#local vars", walk.local_buckets),
    ] {
        put(
            &format!("{group} processed by location statistics"),
            buckets.processed,
        );
        put_buckets(&mut put, group, &buckets.counts);
        put_buckets(
            &mut put,
            &format!("{group} - entry values"),
            &buckets.non_entry_value,
        );
    }
    put("#bytes with line information", lines.bytes);
    put("#bytes with line-0 locations", lines.line_zero_bytes);
    put("#line entries", lines.entries);
    put("#line entries (is_stmt)", lines.is_stmt_entries);
    put("#line entries (unique)", lines.unique);
    put("#line entries (unique non-0)", lines.unique_non_zero);
    let mut all = vec![
        ("version".to_string(), Value::Number(9)),
        ("file".to_string(), Value::Text(name.to_string())),
        ("format".to_string(), Value::Text("elf64-x86-64".into())),
    ];
    all.extend(keys);
    let statistics = FileStatistics {
        keys: all,
        functions: function_rows(std::mem::take(&mut walk.functions), &lines),
        variables: variable_rows(&walk),
        line_rows: lines.rows,
        code,
        relocatable: file.relocatable,
    };
    (statistics, walk)
}

fn put_buckets(put: &mut impl FnMut(&str, u64), group: &str, counts: &[u64]) {
    for (name, count) in BUCKET_NAMES.iter().zip(counts) {
        put(
            &format!("{group} with {name} of parent scope covered by DW_AT_location"),
            *count,
        );
    }
}

/// The functions' rows (the unit scope "/" left out), their is_stmt
/// counts made in parallel, in the table's own memory.
fn function_rows(mut functions: Vec<FunctionStats>, lines: &LineFigures) -> Vec<FunctionRow> {
    // The is_stmt rows of a range: one subtraction of two searches in the
    // sorted addresses (functions share addresses: discarded ones all
    // start at 0).
    let is_stmt = &lines.is_stmt_addresses;
    functions.par_iter_mut().for_each(|f| {
        f.row.is_stmt_lines = f
            .row
            .ranges
            .iter()
            .map(|&(low, high)| {
                let from = is_stmt.partition_point(|&address| address < low);
                let to = is_stmt.partition_point(|&address| address < high);
                to.saturating_sub(from) as u64
            })
            .sum();
    });
    functions
        .into_iter()
        .filter(|f| f.is_function)
        .map(|f| f.row)
        .collect()
}

/// The variables summed over their instances, keyed by function and id.
fn variable_rows(walk: &Walk) -> Vec<VariableRow> {
    let mut rows: Vec<VariableRow> = Vec::new();
    let mut index: Map<(String, String), usize> = Map::default();
    for variable in &walk.variables {
        let key = (variable.function.clone(), variable.id.clone());
        let at = *index.entry(key).or_insert_with(|| {
            rows.push(VariableRow {
                function: variable.function.clone(),
                id: variable.id.clone(),
                name: variable.name.clone(),
                is_param: variable.is_param,
                scope_bytes: 0,
                covered: 0,
                ranges: Vec::new(),
            });
            rows.len() - 1
        });
        let row = &mut rows[at];
        row.scope_bytes = row.scope_bytes.saturating_add(variable.scope_bytes);
        row.covered = row.covered.saturating_add(variable.covered);
        if !variable.inlined {
            row.ranges.extend(variable.ranges.iter().copied());
        }
    }
    rows
}

/// Writes the figures as text (`json`: one JSON document) to `out` —
/// llvm-dwarfdump's keys, llvm-locstats' table, the per-function table —
/// the per-function table made in parallel a few chunks at a time and
/// written as they come (on a large file the whole table is tens of
/// megabytes, which the kernel would fault in afresh were it made at once).
pub fn format_statistics(
    stats: &FileStatistics,
    json: bool,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    if json {
        return format_json(stats, out);
    }
    let mut text = String::new();
    let file = match stats.keys.iter().find(|(key, _)| key == "file") {
        Some((_, Value::Text(file))) => file.as_str(),
        _ => "",
    };
    let _ = writeln!(text, "{file}: llvm-dwarfdump --statistics");
    for (key, value) in &stats.keys {
        let value = match value {
            Value::Number(n) => n.to_string(),
            Value::Text(text) => text.clone(),
        };
        let _ = writeln!(text, "  {key:<80} {value}");
    }
    let _ = writeln!(text, "{file}: location coverage (llvm-locstats)");
    text.push_str(&locstats_table(stats));
    let _ = writeln!(text, "{file}: functions");
    let _ = write!(text, "  {:<40}", "function");
    for (name, _) in function_columns(&FunctionRow::default()) {
        let _ = write!(text, " {name}");
    }
    text.push('\n');
    out.write_all(text.as_bytes())?;
    in_parallel(&stats.functions, out, |_, f, text| {
        text.push_str("  ");
        push_left(text, &f.id, 40);
        push_columns(
            text,
            &function_columns(f).map(|(name, value)| (name.len(), value)),
        );
        text.push('\n');
    })
}

/// Writes to `out` the text `row` makes of each function (given its
/// position), in order: the functions made in parallel chunks (rayon), a
/// few chunks at a time, so that the text in memory at once is a few
/// megabytes whatever the number of functions.
fn in_parallel(
    functions: &[FunctionRow],
    out: &mut impl std::io::Write,
    row: impl Fn(usize, &FunctionRow, &mut String) + Sync,
) -> std::io::Result<()> {
    const CHUNK: usize = 4096;
    const CHUNKS_AT_ONCE: usize = 8;
    for (group, functions) in functions.chunks(CHUNK * CHUNKS_AT_ONCE).enumerate() {
        let texts: Vec<String> = functions
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(chunk, functions)| {
                // Room for the chunk's text from the start, so that a
                // chunk's string (half a megabyte and more) is not copied
                // as it grows.
                let room = functions.iter().map(|f| f.id.len() + ROW_ROOM).sum();
                let mut text = String::with_capacity(room);
                let first = (group * CHUNKS_AT_ONCE + chunk) * CHUNK;
                for (position, f) in functions.iter().enumerate() {
                    row(first + position, f, &mut text);
                }
                text
            })
            .collect();
        for text in texts {
            out.write_all(text.as_bytes())?;
        }
    }
    Ok(())
}

/// The bytes of a row of the function table besides its id: what the
/// columns, the id's padding and the JSON's names take, and more.
const ROW_ROOM: usize = 200;

/// A function's figures: name (as in the JSON) and value.
fn function_columns(f: &FunctionRow) -> [(&'static str, u64); 7] {
    [
        ("instances", f.instances),
        ("inlined", f.inlined),
        ("params", f.params),
        ("locals", f.locals),
        ("scope_bytes", f.scope_bytes),
        ("scope_bytes_covered", f.scope_bytes_covered),
        ("is_stmt_lines", f.is_stmt_lines),
    ]
}

/// The bucket counts of all variables, and their rounded share.
fn locstats(stats: &FileStatistics) -> Vec<(&'static str, u64, u64)> {
    let total = stats.number("#variables processed by location statistics");
    BUCKET_NAMES
        .iter()
        .map(|name| {
            let count = stats.number(&format!(
                "#variables with {name} of parent scope covered by DW_AT_location"
            ));
            let percent = (count * 100 + total / 2).checked_div(total).unwrap_or(0);
            (*name, count, percent)
        })
        .collect()
}

fn locstats_table(stats: &FileStatistics) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<12} {:>10} {:>14}",
        "cov%", "samples", "percentage(~)"
    );
    for (name, count, percent) in locstats(stats) {
        let _ = writeln!(out, "  {name:<12} {count:>10} {percent:>13}%");
    }
    let _ = writeln!(
        out,
        "  the number of debug variables processed: {}",
        stats.number("#variables processed by location statistics")
    );
    out
}

fn format_json(stats: &FileStatistics, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut text = String::from("{\n  \"statistics\": {");
    for (position, (key, value)) in stats.keys.iter().enumerate() {
        let value = match value {
            Value::Number(n) => n.to_string(),
            Value::Text(text) => json_string(text),
        };
        let comma = if position + 1 < stats.keys.len() {
            ","
        } else {
            ""
        };
        let _ = write!(text, "\n    {}: {value}{comma}", json_string(key));
    }
    text.push_str("\n  },\n  \"locstats\": [");
    for (position, (name, count, percent)) in locstats(stats).into_iter().enumerate() {
        let comma = if position + 1 < BUCKET_NAMES.len() {
            ","
        } else {
            ""
        };
        let _ = write!(
            text,
            "\n    {{\"coverage\": {}, \"variables\": {count}, \"percent\": {percent}}}{comma}",
            json_string(name)
        );
    }
    text.push_str("\n  ],\n  \"functions\": [");
    out.write_all(text.as_bytes())?;
    in_parallel(&stats.functions, out, |position, f, text| {
        let comma = if position + 1 < stats.functions.len() {
            ","
        } else {
            ""
        };
        let _ = write!(text, "\n    {{\"function\": {}", json_string(&f.id));
        for (name, value) in function_columns(f) {
            text.push_str(", \"");
            text.push_str(name);
            text.push_str("\": ");
            push_decimal(text, value);
        }
        let _ = write!(text, "}}{comma}");
    })?;
    out.write_all(b"\n  ]\n}\n")
}
