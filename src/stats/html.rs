//! The page of `stats --html OUT.html FILE [--compare B]`: one
//! self-contained HTML file (no network, no external script or style).
//!
//! In: the [`FileStatistics`] of one build (and of a second one to compare).
//! Out: the page's text: a per-function table sortable by any column
//! (coverage among them); for the function chosen (a list, or the page's
//! `#m<N>` anchor), a map with one strip per variable over the function's
//! address range (its first range), each segment coloured by where the
//! variable lives (register, memory, computed value, entry value; grey:
//! no location), and beside it the disassembly (iced-x86) with the line of
//! each instruction, is_stmt rows marked. In compare mode B's strips are
//! stacked under A's.
//!
//! Promises: every drawn segment carries `data-variable`, `data-kind`,
//! `data-low` and `data-high` (addresses as llvm-dwarfdump prints them), so
//! a test can hold the picture against the location lists; the script sets
//! `data-rendered="ok"` on `<body>` when it ran to its end, and any script
//! error sets `data-error`.

use std::fmt::Write as _;

use iced_x86::{Decoder, DecoderOptions, Formatter, IntelFormatter};

use super::{FileStatistics, FunctionRow};

/// The colours of the location kinds (and of "none").
const STYLE: &str = "body{font:13px sans-serif;margin:16px}table{border-collapse:collapse}\
td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}\
th{cursor:pointer;background:#f1f3f5}.map{display:none;margin-top:12px}.strips{width:100%}\
.strip{display:flex;align-items:center;height:18px;margin:2px 0}.strip .name{width:180px;font:12px monospace;overflow:hidden}\
.bar{position:relative;flex:1;height:14px;background:#f8f9fa}.seg{position:absolute;top:0;height:14px}\
.register{background:#2b8a3e}.memory{background:#1c7ed6}.computed{background:#f59f00}\
.entry-value{background:#ae3ec9}.none{background:#dee2e6}.build{margin:8px 0;padding:4px;border-left:4px solid #868e96}\
.side{display:flex;gap:24px}.side pre{font:12px monospace;margin:0}.stmt{background:#fff3bf}\
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}";

/// The page's script: sorting, choosing a function, the rendered marker.
const SCRIPT: &str = r#"window.onerror=function(m){document.body.setAttribute('data-error',String(m));};
var table=document.getElementById('functions');
function sortBy(col,numeric){var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
var dir=table.getAttribute('data-sorted')==String(col)?-1:1;table.setAttribute('data-sorted',dir==1?String(col):'');
rows.sort(function(a,b){var x=a.cells[col].getAttribute('data-value'),y=b.cells[col].getAttribute('data-value');
return numeric?dir*(parseFloat(x)-parseFloat(y)):dir*x.localeCompare(y);});rows.forEach(function(r){body.appendChild(r);});}
Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,i){th.onclick=function(){sortBy(i,th.hasAttribute('data-numeric'));};});
var choose=document.getElementById('choose');
function show(id){Array.prototype.forEach.call(document.querySelectorAll('.map'),function(m){m.style.display=m.id==id?'block':'none';});choose.value=id;}
choose.onchange=function(){show(choose.value);};
show(location.hash.length>1?location.hash.slice(1):choose.value);
document.body.setAttribute('data-rendered','ok');"#;

/// The page for build `a` (and `b` to compare).
pub fn write_page(a: &FileStatistics, a_name: &str, b: Option<(&FileStatistics, &str)>) -> String {
    let mut out = String::new();
    let title = match b {
        Some((_, b_name)) => format!("{a_name} (A) and {b_name} (B)"),
        None => a_name.to_string(),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>dwarfsmith stats: {}</title>\
         <style>{STYLE}</style></head><body>\n<h1>Variable locations: {}</h1>\n",
        escape(&title),
        escape(&title)
    );
    out.push_str("<p class=\"legend\">");
    for kind in ["register", "memory", "computed", "entry-value", "none"] {
        let _ = write!(out, "<span class=\"{kind}\"></span>{kind}");
    }
    out.push_str("</p>\n");
    function_table(&mut out, a, b.map(|(b, _)| b));
    out.push_str("<p>Function: <select id=\"choose\">");
    let mapped: Vec<(usize, &FunctionRow)> = a
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.ranges.is_empty())
        .collect();
    for (index, f) in &mapped {
        let _ = write!(out, "<option value=\"m{index}\">{}</option>", escape(&f.id));
    }
    out.push_str("</select></p>\n");
    for (index, f) in &mapped {
        let _ = writeln!(
            out,
            "<div class=\"map\" id=\"m{index}\" data-function=\"{}\">",
            escape(&f.id)
        );
        let mut builds = vec![("A", a, a_name, *f)];
        if let Some((b, b_name)) = b {
            if let Some(fb) = b
                .functions
                .iter()
                .find(|fb| fb.id == f.id && !fb.ranges.is_empty())
            {
                builds.push(("B", b, b_name, fb));
            }
        }
        for (label, stats, name, function) in &builds {
            strips(&mut out, label, stats, name, function);
        }
        out.push_str("<div class=\"side\">");
        for (label, stats, _, function) in &builds {
            disassembly(&mut out, label, stats, function);
        }
        out.push_str("</div></div>\n");
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body></html>\n");
    out
}

/// The per-function table, sortable; with B, B's coverage beside A's.
fn function_table(out: &mut String, a: &FileStatistics, b: Option<&FileStatistics>) {
    out.push_str("<table id=\"functions\"><thead><tr><th>function</th>");
    let mut columns = vec![
        "instances",
        "inlined",
        "params",
        "locals",
        "scope bytes",
        "covered",
        "coverage %",
        "is_stmt",
    ];
    if b.is_some() {
        columns.push("B coverage %");
    }
    for column in &columns {
        let _ = write!(out, "<th data-numeric>{column}</th>");
    }
    out.push_str("</tr></thead><tbody>\n");
    for (index, f) in a.functions.iter().enumerate() {
        let _ = write!(
            out,
            "<tr><td data-value=\"{0}\"><a href=\"#m{index}\" onclick=\"show('m{index}')\">{0}</a></td>",
            escape(&f.id)
        );
        let mut values = vec![
            f.instances.to_string(),
            f.inlined.to_string(),
            f.params.to_string(),
            f.locals.to_string(),
            f.scope_bytes.to_string(),
            f.scope_bytes_covered.to_string(),
            percent(f.scope_bytes_covered, f.scope_bytes),
            f.is_stmt_lines.to_string(),
        ];
        if let Some(b) = b {
            values.push(
                b.functions
                    .iter()
                    .find(|fb| fb.id == f.id)
                    .map_or("-".into(), |fb| {
                        percent(fb.scope_bytes_covered, fb.scope_bytes)
                    }),
            );
        }
        for value in values {
            let sort = if value == "-" { "-1" } else { &value };
            let _ = write!(out, "<td data-value=\"{sort}\">{value}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
}

fn percent(covered: u64, scope: u64) -> String {
    if scope == 0 {
        "-".into()
    } else {
        format!("{:.1}", 100.0 * covered as f64 / scope as f64)
    }
}

/// One build's strips over the function's first range.
fn strips(
    out: &mut String,
    label: &str,
    stats: &FileStatistics,
    name: &str,
    function: &FunctionRow,
) {
    let (low, high) = function.ranges[0];
    let width = high.saturating_sub(low).max(1) as f64;
    let _ = write!(
        out,
        "<div class=\"build\" data-build=\"{label}\"><b>{label}: {}</b> {} [{:#x}, {:#x})<div class=\"strips\">",
        escape(name),
        escape(&function.id),
        stats.llvm_address(low),
        stats.llvm_address(low) + (high - low)
    );
    for variable in stats.variables.iter().filter(|v| v.function == function.id) {
        let mut segments: Vec<(u64, u64, &str)> = variable
            .ranges
            .iter()
            .filter_map(|&(start, end, kind)| {
                let (start, end) = (start.max(low), end.min(high));
                (start < end).then_some((start, end, kind.name()))
            })
            .collect();
        segments.sort_by_key(|&(start, end, _)| (start, end));
        let mut gaps = Vec::new();
        let mut reached = low;
        for &(start, end, _) in &segments {
            if start > reached {
                gaps.push((reached, start, "none"));
            }
            reached = reached.max(end);
        }
        if reached < high {
            gaps.push((reached, high, "none"));
        }
        segments.extend(gaps);
        let _ = write!(
            out,
            "<div class=\"strip\" data-variable=\"{}\"><span class=\"name\" title=\"{}\">{}{}</span><div class=\"bar\">",
            escape(&variable.name),
            escape(&variable.id),
            if variable.is_param { "param " } else { "" },
            escape(&variable.name)
        );
        for (start, end, kind) in segments {
            let _ = write!(
                out,
                "<div class=\"seg {kind}\" data-variable=\"{}\" data-kind=\"{kind}\" data-low=\"{:#x}\" \
                 data-high=\"{:#x}\" title=\"{kind} [{:#x}, {:#x})\" style=\"left:{:.3}%;width:{:.3}%\"></div>",
                escape(&variable.name),
                stats.llvm_address(start),
                stats.llvm_address(start) + (end - start),
                stats.llvm_address(start),
                stats.llvm_address(start) + (end - start),
                100.0 * (start - low) as f64 / width,
                100.0 * (end - start) as f64 / width,
            );
        }
        out.push_str("</div></div>");
    }
    out.push_str("</div></div>\n");
}

/// One build's disassembly of the function's first range, with lines.
fn disassembly(out: &mut String, label: &str, stats: &FileStatistics, function: &FunctionRow) {
    let (low, high) = function.ranges[0];
    let _ = writeln!(
        out,
        "<pre data-build=\"{label}\">{label}: address  line  instruction"
    );
    let Some(bytes) = stats.code_bytes(low, high) else {
        out.push_str("(no code bytes)</pre>");
        return;
    };
    let rows = &stats.line_rows;
    // Decoded at the addresses llvm-dwarfdump prints, so jump targets read alike.
    let shown_low = stats.llvm_address(low);
    let mut decoder = Decoder::with_ip(64, bytes, shown_low, DecoderOptions::NONE);
    let mut formatter = IntelFormatter::new();
    let mut text = String::new();
    while decoder.can_decode() {
        let instruction = decoder.decode();
        let address = low + (instruction.ip() - shown_low);
        let covering = rows.partition_point(|row| row.address <= address);
        let line = covering
            .checked_sub(1)
            .map(|i| rows[i])
            .filter(|row| row.address >= low);
        let stmt = rows[rows.partition_point(|row| row.address < address)..]
            .iter()
            .take_while(|row| row.address == address)
            .any(|row| row.is_stmt);
        text.clear();
        formatter.format(&instruction, &mut text);
        let _ = writeln!(
            out,
            "<span{}>{:#8x}  {:>4}  {}</span>",
            if stmt {
                " class=\"stmt\" data-stmt"
            } else {
                ""
            },
            instruction.ip(),
            line.map_or(String::new(), |row| row.line.to_string()),
            escape(&text)
        );
    }
    out.push_str("</pre>");
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
