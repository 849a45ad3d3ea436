//! Two builds of one program side by side (`stats --compare A B`), function
//! by function and variable by variable, as a debug-info engineer reviews
//! a compiler change.
//!
//! In: the [`FileStatistics`] of builds A and B. Out: a [`Comparison`]:
//! per function and per variable (matched by llvm-dwarfdump's ids) the
//! figures of each build and a [`Verdict`]. Better and worse are about
//! coverage (bytes of the parent scope covered, as a share of the scope,
//! compared exactly); "changed" is any other figure that moved; a function
//! or variable of one build only is named so. Nothing is dropped: every
//! function and variable of either build has a row (the text leaves out
//! the variables that are the same in both, and counts them).

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::{FileStatistics, FunctionRow, VariableRow};
use crate::linecheck::json_string;

/// How B compares with A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// B covers a larger share.
    Better,
    /// B covers a smaller share.
    Worse,
    /// The same share, other figures moved.
    Changed,
    /// Nothing moved.
    Same,
    /// Only A has it.
    OnlyA,
    /// Only B has it.
    OnlyB,
}

impl Verdict {
    fn name(self) -> &'static str {
        match self {
            Verdict::Better => "better",
            Verdict::Worse => "worse",
            Verdict::Changed => "changed",
            Verdict::Same => "same",
            Verdict::OnlyA => "only A",
            Verdict::OnlyB => "only B",
        }
    }
}

/// One function in both builds.
#[derive(Clone, Debug)]
pub struct FunctionChange {
    /// llvm-dwarfdump's id of the function.
    pub id: String,
    /// Its figures in A.
    pub a: Option<FunctionRow>,
    /// Its figures in B.
    pub b: Option<FunctionRow>,
    /// How B compares.
    pub verdict: Verdict,
}

/// One variable in both builds.
#[derive(Clone, Debug)]
pub struct VariableChange {
    /// The function's id.
    pub function: String,
    /// The variable's id.
    pub id: String,
    /// (covered, scope bytes) in A.
    pub a: Option<(u64, u64)>,
    /// (covered, scope bytes) in B.
    pub b: Option<(u64, u64)>,
    /// How B compares.
    pub verdict: Verdict,
}

/// Two builds compared.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Every function of either build.
    pub functions: Vec<FunctionChange>,
    /// Every variable of either build.
    pub variables: Vec<VariableChange>,
}

/// Compares build B with build A.
pub fn compare(a: &FileStatistics, b: &FileStatistics) -> Comparison {
    let (a_functions, b_functions) = (functions_by_id(a), functions_by_id(b));
    let mut functions = Vec::new();
    for id in union(
        a.functions.iter().map(|f| &f.id),
        b.functions.iter().map(|f| &f.id),
    ) {
        let fa = a_functions.get(id.as_str()).map(|&f| f.clone());
        let fb = b_functions.get(id.as_str()).map(|&f| f.clone());
        let verdict = match (&fa, &fb) {
            (Some(x), Some(y)) => coverage_verdict(
                (x.scope_bytes_covered, x.scope_bytes),
                (y.scope_bytes_covered, y.scope_bytes),
                x == y || same_figures(x, y),
            ),
            (Some(_), None) => Verdict::OnlyA,
            _ => Verdict::OnlyB,
        };
        functions.push(FunctionChange {
            id,
            a: fa,
            b: fb,
            verdict,
        });
    }
    let (a_variables, b_variables) = (variables_by_key(a), variables_by_key(b));
    let mut variables = Vec::new();
    for both in union(
        a.variables.iter().map(variable_key),
        b.variables.iter().map(variable_key),
    ) {
        let va = a_variables.get(&both).copied();
        let vb = b_variables.get(&both).copied();
        let figures = |v: Option<&VariableRow>| v.map(|v| (v.covered, v.scope_bytes));
        let verdict = match (figures(va), figures(vb)) {
            (Some(x), Some(y)) => coverage_verdict(x, y, x == y),
            (Some(_), None) => Verdict::OnlyA,
            _ => Verdict::OnlyB,
        };
        let (function, id) = both.split_once('\u{0}').unwrap_or((&both, ""));
        variables.push(VariableChange {
            function: function.to_string(),
            id: id.to_string(),
            a: figures(va),
            b: figures(vb),
            verdict,
        });
    }
    Comparison {
        functions,
        variables,
    }
}

fn functions_by_id(stats: &FileStatistics) -> HashMap<&str, &FunctionRow> {
    stats.functions.iter().map(|f| (f.id.as_str(), f)).collect()
}

/// A variable's function and id, as one key.
fn variable_key(v: &VariableRow) -> String {
    format!("{}\u{0}{}", v.function, v.id)
}

fn variables_by_key(stats: &FileStatistics) -> HashMap<String, &VariableRow> {
    stats
        .variables
        .iter()
        .map(|v| (variable_key(v), v))
        .collect()
}

/// Whether two rows differ only in their addresses.
fn same_figures(a: &FunctionRow, b: &FunctionRow) -> bool {
    FunctionRow {
        ranges: Vec::new(),
        ..a.clone()
    } == FunctionRow {
        ranges: Vec::new(),
        ..b.clone()
    }
}

/// The ids of A in order, then those only B has.
fn union(
    a: impl Iterator<Item = impl ToString>,
    b: impl Iterator<Item = impl ToString>,
) -> Vec<String> {
    let mut ids: Vec<String> = a.map(|id| id.to_string()).collect();
    let mut seen: HashSet<String> = ids.iter().cloned().collect();
    for id in b {
        let id = id.to_string();
        if seen.insert(id.clone()) {
            ids.push(id);
        }
    }
    ids
}

/// Better or worse by covered share (exactly, by cross-multiplying); else
/// same or changed.
fn coverage_verdict(a: (u64, u64), b: (u64, u64), same: bool) -> Verdict {
    let share_a = u128::from(a.0) * u128::from(b.1);
    let share_b = u128::from(b.0) * u128::from(a.1);
    match share_b.cmp(&share_a) {
        _ if same => Verdict::Same,
        Ordering::Greater => Verdict::Better,
        Ordering::Less => Verdict::Worse,
        Ordering::Equal => Verdict::Changed,
    }
}

/// "covered/scope (percent)" or "-".
fn coverage_text(figures: Option<(u64, u64)>) -> String {
    match figures {
        None => "-".into(),
        Some((covered, 0)) => format!("{covered}/0"),
        Some((covered, scope)) => {
            format!(
                "{covered}/{scope} ({:.1}%)",
                100.0 * covered as f64 / scope as f64
            )
        }
    }
}

/// The comparison as text (`json`: one JSON document); `a` and `b` name the
/// builds.
pub fn format_comparison(comparison: &Comparison, a: &str, b: &str, json: bool) -> String {
    let summary = |verdicts: &mut dyn Iterator<Item = Verdict>| {
        let mut counts = [0usize; 6];
        for verdict in verdicts {
            counts[verdict as usize] += 1;
        }
        counts
    };
    let function_counts = summary(&mut comparison.functions.iter().map(|f| f.verdict));
    let variable_counts = summary(&mut comparison.variables.iter().map(|v| v.verdict));
    let verdicts = [
        Verdict::Better,
        Verdict::Worse,
        Verdict::Changed,
        Verdict::Same,
        Verdict::OnlyA,
        Verdict::OnlyB,
    ];
    let function_figures =
        |f: &Option<FunctionRow>| f.as_ref().map(|f| (f.scope_bytes_covered, f.scope_bytes));
    let mut out = String::new();
    if json {
        let _ = write!(
            out,
            "{{\n  \"a\": {},\n  \"b\": {},\n  \"functions\": [",
            json_string(a),
            json_string(b)
        );
        for (position, f) in comparison.functions.iter().enumerate() {
            let _ = write!(
                out,
                "{}\n    {{\"function\": {}, \"verdict\": \"{}\", \"a\": {}, \"b\": {}}}",
                if position == 0 { "" } else { "," },
                json_string(&f.id),
                f.verdict.name(),
                json_figures(function_figures(&f.a)),
                json_figures(function_figures(&f.b)),
            );
        }
        out.push_str("\n  ],\n  \"variables\": [");
        for (position, v) in comparison.variables.iter().enumerate() {
            let _ = write!(
                out,
                "{}\n    {{\"function\": {}, \"variable\": {}, \"verdict\": \"{}\", \"a\": {}, \"b\": {}}}",
                if position == 0 { "" } else { "," },
                json_string(&v.function),
                json_string(&v.id),
                v.verdict.name(),
                json_figures(v.a),
                json_figures(v.b),
            );
        }
        out.push_str("\n  ],\n  \"summary\": {");
        for (kind, counts) in [
            ("functions", function_counts),
            ("variables", variable_counts),
        ] {
            let _ = write!(out, "\n    \"{kind}\": {{");
            for (position, verdict) in verdicts.iter().enumerate() {
                let _ = write!(
                    out,
                    "{}\"{}\": {}",
                    if position == 0 { "" } else { ", " },
                    verdict.name(),
                    counts[*verdict as usize]
                );
            }
            out.push_str(if kind == "functions" { "}," } else { "}" });
        }
        out.push_str("\n  }\n}\n");
        return out;
    }
    let _ = writeln!(out, "A: {a}\nB: {b}");
    let _ = writeln!(
        out,
        "{:<32} {:>24} {:>24}  verdict",
        "function / variable", "A covered/scope", "B covered/scope"
    );
    for f in &comparison.functions {
        let _ = writeln!(
            out,
            "{:<32} {:>24} {:>24}  {}",
            f.id,
            coverage_text(function_figures(&f.a)),
            coverage_text(function_figures(&f.b)),
            f.verdict.name()
        );
        for v in comparison
            .variables
            .iter()
            .filter(|v| v.function == f.id && v.verdict != Verdict::Same)
        {
            let _ = writeln!(
                out,
                "  {:<30} {:>24} {:>24}  {}",
                v.id,
                coverage_text(v.a),
                coverage_text(v.b),
                v.verdict.name()
            );
        }
    }
    for (kind, counts) in [
        ("functions", function_counts),
        ("variables", variable_counts),
    ] {
        let _ = write!(out, "{kind}:");
        for verdict in verdicts {
            let _ = write!(out, " {} {}", verdict.name(), counts[verdict as usize]);
        }
        out.push('\n');
    }
    out
}

fn json_figures(figures: Option<(u64, u64)>) -> String {
    match figures {
        None => "null".into(),
        Some((covered, scope)) => format!("{{\"covered\": {covered}, \"scope_bytes\": {scope}}}"),
    }
}
