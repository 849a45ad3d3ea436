//! Line tables of any compiler's object: listed (`dwarfsmith lines`) and
//! checked (`dwarfsmith verify --line-table`).
//!
//! In: the bytes of an ELF x86-64 object, executable or shared library (and, for the order
//! check, of a reference object: an -O0 build of the same source).
//! Out: the line rows, or the [`Finding`]s of the check.
//!
//! The check alone, on the rows of every sequence but those of code a linker
//! discarded (a row *covers* the
//! bytes up to the next row's address; a row at the same address as the
//! next covers none and only its file and line 0 are checked):
//! - every sequence ends with an end_sequence row, its addresses never
//!   go backwards and its rows stay in one code section;
//! - every row that covers bytes starts inside a function at an
//!   instruction boundary (the function's code decoded with iced-x86); in
//!   a linked file, rows outside every sized function symbol (assembly
//!   linked in) are not checked;
//! - every function with rows has a row at its first byte, so no row of
//!   the function before it runs into it;
//! - no is_stmt row has line 0;
//! - a prologue_end row lies inside its function at or after the end of
//!   the frame setup that opens it (`endbr64`, register pushes,
//!   `mov rbp, rsp`, `sub rsp, imm`);
//! - every row names a file of its table.
//!
//! With a reference, is_stmt rows reached out of source order are found
//! by the rule in `order` (functions matched by name).

pub(crate) mod graph;
mod order;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use dwarfsmith_emit::model::{ObjectModel, Symbol};
use dwarfsmith_emit::read::{
    read_line_listing_with_debug, read_with_debug, LineListing, RawLineRow,
};

use graph::{line_key, Graph, LineKey};

/// One thing wrong with a line table, at a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `section+offset` of the row.
    pub address: String,
    /// `function+offset` of the row (`-` outside every function).
    pub function: String,
    /// The row's line.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// Why `verify --line-table` and `lines` have nothing to read in a file
/// without a line table (a stripped file whose debug file was not found).
pub const NO_LINE_TABLE: &str = "no .debug_line section (the debug \
file of a stripped file is looked for through its build id and .gnu_debuglink, beside it and \
under --debug-dir)";

/// Reads the line rows of an object or linked file.
pub fn list_lines(bytes: &[u8]) -> Result<LineListing, String> {
    list_lines_with_debug(bytes, None)
}

/// [`list_lines`] of a stripped linked file with its separate debug file
/// (`None`: the file alone).
pub fn list_lines_with_debug(bytes: &[u8], debug: Option<&[u8]>) -> Result<LineListing, String> {
    read_line_listing_with_debug(bytes, debug).map_err(|e| e.to_string())
}

/// The rows of `listing` as a table (`json`: as a JSON document).
pub fn format_lines(listing: &LineListing, json: bool) -> String {
    let mut out = String::new();
    if json {
        out.push_str("{\"rows\": [");
        let mut first = true;
        for row in listing.sequences.iter().flatten() {
            out.push_str(if first { "\n  " } else { ",\n  " });
            first = false;
            let _ =
                write!(
                out,
                "{{\"address\": {}, \"function\": {}, \"file\": {}, \"line\": {}, \"column\": {}, \
                 \"is_stmt\": {}, \"prologue_end\": {}, \"epilogue_begin\": {}, \
                 \"discriminator\": {}, \"end_sequence\": {}}}",
                json_string(&listing.describe(row.address)),
                json_string(&listing.function_name(row.address)),
                row.file_name.as_deref().map_or("null".to_string(), json_string),
                row.line,
                row.column,
                row.is_stmt,
                row.prologue_end,
                row.epilogue_begin,
                row.discriminator,
                row.end_sequence
            );
        }
        out.push_str("\n]}\n");
        return out;
    }
    let _ = writeln!(
        out,
        "{:<14} {:<28} {:<22} flags",
        "address", "function", "file:line:column"
    );
    for row in listing.sequences.iter().flatten() {
        let file = row.file_name.as_deref().map_or_else(
            || format!("<file {}>", row.file),
            |f| f.rsplit('/').next().unwrap_or(f).to_string(),
        );
        let mut flags = Vec::new();
        for (set, name) in [
            (row.is_stmt, "is_stmt"),
            (row.prologue_end, "prologue_end"),
            (row.epilogue_begin, "epilogue_begin"),
            (row.end_sequence, "end_sequence"),
        ] {
            if set {
                flags.push(name.to_string());
            }
        }
        if row.discriminator != 0 {
            flags.push(format!("discriminator={}", row.discriminator));
        }
        let _ = writeln!(
            out,
            "{:<14} {:<28} {:<22} {}",
            listing.describe(row.address),
            listing.function_name(row.address),
            format!("{file}:{}:{}", row.line, row.column),
            flags.join(" ")
        )
        .map(|_| ());
    }
    out
}

/// Findings as lines of text, or as a JSON document.
pub fn format_findings(findings: &[Finding], json: bool) -> String {
    if json {
        return json_findings(findings.iter().map(|f| {
            format!(
                "{{\"address\": {}, \"function\": {}, \"line\": {}, \"reason\": {}}}",
                json_string(&f.address),
                json_string(&f.function),
                f.line,
                json_string(&f.message)
            )
        }));
    }
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(
            out,
            "{} ({}) line {}: {}",
            f.address, f.function, f.line, f.message
        );
    }
    out
}

/// A `{"findings": [...]}` document of the findings, each already a JSON
/// object.
pub(crate) fn json_findings(objects: impl Iterator<Item = String>) -> String {
    let mut out = String::from("{\"findings\": [");
    for (i, object) in objects.enumerate() {
        out.push_str(if i == 0 { "\n  " } else { ",\n  " });
        out.push_str(&object);
    }
    out.push_str("\n]}\n");
    out
}

/// `text` as a JSON string literal.
pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// An object read for the check: its rows and each function's graph.
struct Checked {
    listing: LineListing,
    /// Per function: its rows (offset, row) in table order.
    rows: Vec<Vec<(u64, RawLineRow)>>,
    /// Per function: its graph.
    graphs: Vec<Graph>,
}

impl Checked {
    fn read(bytes: &[u8], debug: Option<&[u8]>) -> Result<Checked, String> {
        let listing = list_lines_with_debug(bytes, debug)?;
        let model = read_with_debug(bytes, debug).map_err(|e| e.to_string())?;
        let mut rows = vec![Vec::new(); listing.functions.len()];
        for row in listing.sequences.iter().flatten() {
            if row.end_sequence {
                continue;
            }
            if let Some((function, offset)) = listing.function_at(row.address) {
                rows[function].push((offset, row.clone()));
            }
        }
        let targets = table_targets(&model);
        let graphs = model
            .functions
            .iter()
            .enumerate()
            .map(|(index, function)| {
                let relocations: Vec<u64> = function.relocations.iter().map(|r| r.offset).collect();
                let function_rows: Vec<(u64, &RawLineRow)> = rows
                    .get(index)
                    .map(|r| r.iter().map(|(o, row)| (*o, row)).collect())
                    .unwrap_or_default();
                Graph::build(
                    &function.code,
                    &relocations,
                    targets.get(&index).unwrap_or(&BTreeSet::new()),
                    &function_rows,
                )
            })
            .collect();
        Ok(Checked {
            listing,
            rows,
            graphs,
        })
    }

    fn finding(&self, address: u64, line: u64, message: String) -> Finding {
        Finding {
            address: self.listing.describe(address),
            function: self.listing.function_name(address),
            line,
            message,
        }
    }
}

/// Offsets into each function that jump tables (or any relocation) name.
pub(crate) fn table_targets(model: &ObjectModel) -> HashMap<usize, BTreeSet<u64>> {
    let mut targets: HashMap<usize, BTreeSet<u64>> = HashMap::new();
    let relocations = model
        .functions
        .iter()
        .flat_map(|f| f.relocations.iter().chain(&f.rodata_relocations))
        .chain(model.data.iter().flat_map(|d| &d.relocations));
    for relocation in relocations {
        if let Symbol::FunctionCode { function, offset } = relocation.symbol {
            targets.entry(function).or_default().insert(offset);
        }
    }
    targets
}

/// Checks the line table of `bytes`; with `reference` (an -O0 build of the
/// same source) also the source order of its is_stmt rows.
pub fn check_line_table(bytes: &[u8], reference: Option<&[u8]>) -> Result<Vec<Finding>, String> {
    check_line_table_with_debug(bytes, None, reference)
}

/// [`check_line_table`] of a stripped linked file with its separate debug
/// file (`debug`; `None`: the file alone). A file without a line table
/// gives one finding saying so ([`NO_LINE_TABLE`]), a reference without
/// one an error.
pub fn check_line_table_with_debug(
    bytes: &[u8],
    debug: Option<&[u8]>,
    reference: Option<&[u8]>,
) -> Result<Vec<Finding>, String> {
    let object = Checked::read(bytes, debug)?;
    if !object.listing.has_line_table {
        return Ok(vec![Finding {
            address: "-".into(),
            function: "-".into(),
            line: 0,
            message: format!("no line table to check: {NO_LINE_TABLE}"),
        }]);
    }
    let mut findings = check_alone(&object);
    if let Some(reference) = reference {
        let reference =
            Checked::read(reference, None).map_err(|e| format!("reference object: {e}"))?;
        if !reference.listing.has_line_table {
            return Err(format!("reference object: no line table: {NO_LINE_TABLE}"));
        }
        findings.extend(check_order(&object, &reference));
    }
    Ok(findings)
}

fn check_alone(object: &Checked) -> Vec<Finding> {
    let listing = &object.listing;
    let mut findings = Vec::new();
    let section_of = |address: u64, end: bool| {
        listing.code_sections.iter().position(|(_, start, size)| {
            address >= *start && (address < start + size || end && address == start + size)
        })
    };
    let live = |sequence: &&Vec<RawLineRow>| {
        !sequence
            .first()
            .is_some_and(|row| listing.discarded(row.address))
    };
    for sequence in listing.sequences.iter().filter(live) {
        if !sequence.last().is_some_and(|r| r.end_sequence) {
            let row = sequence.last().expect("sequences are not empty");
            findings.push(object.finding(
                row.address,
                row.line,
                "the sequence ends without an end_sequence row".into(),
            ));
        }
        let mut section = None;
        for (index, row) in sequence.iter().enumerate() {
            let next = sequence.get(index + 1).map(|r| r.address);
            if let Some(previous) = index.checked_sub(1).map(|i| sequence[i].address) {
                if row.address < previous {
                    findings.push(object.finding(
                        row.address,
                        row.line,
                        format!(
                            "address goes backwards from {} in one sequence",
                            listing.describe(previous)
                        ),
                    ));
                }
            }
            if row.file_name.is_none() {
                findings.push(object.finding(
                    row.address,
                    row.line,
                    format!("names file {}, which the table does not have", row.file),
                ));
            }
            if row.end_sequence {
                if let (Some(first), here) = (section, section_of(row.address, true)) {
                    if here != Some(first) {
                        findings.push(object.finding(
                            row.address,
                            row.line,
                            "the sequence ends outside the code section it covers".into(),
                        ));
                    }
                }
                continue;
            }
            if row.is_stmt && row.line == 0 {
                findings.push(object.finding(row.address, 0, "is_stmt on line 0".into()));
            }
            let covers = next.is_some_and(|n| n > row.address);
            if !covers {
                continue;
            }
            let here = section_of(row.address, false);
            match (section, here) {
                (_, None) => findings.push(object.finding(
                    row.address,
                    row.line,
                    "outside every code section".into(),
                )),
                (Some(first), Some(here)) if first != here => findings.push(object.finding(
                    row.address,
                    row.line,
                    "the sequence runs into another code section".into(),
                )),
                _ => section = here,
            }
            let Some((function, offset)) = listing.function_at(row.address) else {
                // A linked file holds code no sized function symbol names
                // (hand-written assembly, startup files): not reported there.
                if here.is_some() && listing.code_start == 0 {
                    findings.push(object.finding(
                        row.address,
                        row.line,
                        "outside every function".into(),
                    ));
                }
                continue;
            };
            let graph = &object.graphs[function];
            if !graph.instructions.iter().any(|i| i.offset == offset) {
                findings.push(object.finding(
                    row.address,
                    row.line,
                    "not at an instruction boundary".into(),
                ));
            }
        }
    }
    for (function, rows) in object.rows.iter().enumerate() {
        let start = listing.functions[function].address;
        if rows.is_empty() {
            continue;
        }
        if !rows.iter().any(|(offset, _)| *offset == 0) {
            findings.push(object.finding(start, 0, "the function has rows but none at its first byte: the row before it runs into it".into()));
        }
        let setup_end = object.graphs[function]
            .instructions
            .iter()
            .take_while(|i| i.frame_setup)
            .last()
            .map_or(0, |i| i.offset + i.length);
        for (offset, row) in rows.iter().filter(|(_, r)| r.prologue_end) {
            if *offset < setup_end {
                findings.push(object.finding(
                    row.address,
                    row.line,
                    format!("prologue_end inside the frame setup, which ends at +{setup_end:#x}"),
                ));
            }
        }
    }
    findings
}

fn check_order(object: &Checked, reference: &Checked) -> Vec<Finding> {
    let mut findings = Vec::new();
    let by_name: HashMap<&str, usize> = reference
        .listing
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    for (function, span) in object.listing.functions.iter().enumerate() {
        let Some(&theirs) = by_name.get(span.name.as_str()) else {
            continue;
        };
        let loops = order::reference_loops(&reference.graphs[theirs]);
        if loops.is_empty() {
            continue;
        }
        // The line of the reference's entry piece (the function's opening
        // line, which compilers also give to parameter moves) is not known.
        let opening = reference.graphs[theirs]
            .pieces
            .first()
            .and_then(|p| p.line.clone());
        let known: HashSet<LineKey> = reference.rows[theirs]
            .iter()
            .filter_map(|(_, row)| line_key(row))
            .filter(|line| Some(line) != opening.as_ref())
            .collect();
        let stmt_rows: Vec<(u64, LineKey)> = object.rows[function]
            .iter()
            .filter(|(_, row)| row.is_stmt)
            .filter_map(|(offset, row)| Some((*offset, line_key(row)?)))
            .collect();
        for found in order::out_of_order(&object.graphs[function], &stmt_rows, &loops, &known) {
            let header: Vec<String> = found.header.iter().map(|(_, l)| l.to_string()).collect();
            findings.push(object.finding(
                span.address + found.offset,
                found.line.1,
                format!(
                    "is_stmt row reached before its loop runs: in the reference every row of line {} is inside the loop entered at line {}; here the row is outside that loop and every path from it enters the loop",
                    found.line.1,
                    header.join(", ")
                ),
            ));
        }
    }
    findings
}
