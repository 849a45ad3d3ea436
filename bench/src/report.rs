//! The tables `bench-run` prints.
//!
//! In: per input, the median measurement (or failure) of dwarfsmith and of
//! llc-19; or per program, the variable coverage of both objects. Out: a
//! fixed-width text table. Ratios are llc-19 / dwarfsmith, so above 1 means
//! dwarfsmith is faster or smaller; a failed side prints FAILED and its first
//! error line on the row below.

use std::fmt::Write;

use crate::coverage::Coverage;
use crate::measure::Outcome;

/// One input's results from both compilers.
#[derive(Clone, Debug)]
pub struct TimingRow {
    /// The input's file name.
    pub input: String,
    /// dwarfsmith's median run.
    pub dwarfsmith: Outcome,
    /// llc-19's median run.
    pub llc: Outcome,
}

/// The time and memory table.
pub fn timing_table(rows: &[TimingRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:>12} {:>12} {:>8} {:>12} {:>12} {:>8}",
        "input", "dwarfsmith", "llc-19", "ratio", "dwarfsmith", "llc-19", "ratio"
    );
    let _ = writeln!(
        out,
        "{:<24} {:>12} {:>12} {:>8} {:>12} {:>12} {:>8}",
        "", "time", "time", "time", "peak RSS", "peak RSS", "RSS"
    );
    for row in rows {
        let (ours_time, ours_rss) = cells(&row.dwarfsmith);
        let (llc_time, llc_rss) = cells(&row.llc);
        let (time_ratio, rss_ratio) = match (&row.dwarfsmith, &row.llc) {
            (Outcome::Finished(ours), Outcome::Finished(llc)) => (
                ratio(llc.wall.as_secs_f64(), ours.wall.as_secs_f64()),
                ratio(llc.peak_rss_kib as f64, ours.peak_rss_kib as f64),
            ),
            _ => ("-".to_string(), "-".to_string()),
        };
        let _ = writeln!(
            out,
            "{:<24} {ours_time:>12} {llc_time:>12} {time_ratio:>8} {ours_rss:>12} {llc_rss:>12} {rss_ratio:>8}",
            row.input
        );
        for (name, outcome) in [("dwarfsmith", &row.dwarfsmith), ("llc-19", &row.llc)] {
            if let Outcome::Failed { first_error_line } = outcome {
                let _ = writeln!(out, "    {name} FAILED: {first_error_line}");
            }
        }
    }
    out
}

fn cells(outcome: &Outcome) -> (String, String) {
    match outcome {
        Outcome::Finished(measurement) => (
            format!("{:.3} s", measurement.wall.as_secs_f64()),
            format!("{:.1} MiB", measurement.peak_rss_kib as f64 / 1024.0),
        ),
        Outcome::Failed { .. } => ("FAILED".to_string(), "FAILED".to_string()),
    }
}

fn ratio(numerator: f64, denominator: f64) -> String {
    if denominator > 0.0 {
        format!("{:.2}", numerator / denominator)
    } else {
        "-".to_string()
    }
}

/// One program's variable coverage from both compilers.
#[derive(Clone, Debug)]
pub struct CoverageRow {
    /// The input's file name.
    pub input: String,
    /// Coverage of dwarfsmith's object, or why there is none.
    pub dwarfsmith: Result<Coverage, String>,
    /// Coverage of llc-19's object, or why there is none.
    pub llc: Result<Coverage, String>,
}

/// The coverage table, with a total row summing the bytes of every program
/// both compilers handled.
pub fn coverage_table(rows: &[CoverageRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:>24} {:>24}",
        "input", "dwarfsmith coverage", "llc-19 coverage"
    );
    let mut total_ours = Coverage::default();
    let mut total_llc = Coverage::default();
    for row in rows {
        let _ = writeln!(
            out,
            "{:<24} {:>24} {:>24}",
            row.input,
            coverage_cell(&row.dwarfsmith),
            coverage_cell(&row.llc)
        );
        for (name, result) in [("dwarfsmith", &row.dwarfsmith), ("llc-19", &row.llc)] {
            if let Err(error) = result {
                let _ = writeln!(out, "    {name} FAILED: {error}");
            }
        }
        if let (Ok(ours), Ok(llc)) = (&row.dwarfsmith, &row.llc) {
            total_ours = total_ours.plus(ours);
            total_llc = total_llc.plus(llc);
        }
    }
    let _ = writeln!(
        out,
        "{:<24} {:>24} {:>24}",
        "total (both succeeded)",
        coverage_cell(&Ok(total_ours)),
        coverage_cell(&Ok(total_llc))
    );
    out
}

fn coverage_cell(result: &Result<Coverage, String>) -> String {
    match result {
        Ok(coverage) => match coverage.percent() {
            Some(percent) => format!(
                "{percent:.1}% ({}/{})",
                coverage.covered_bytes, coverage.scope_bytes
            ),
            None => "- (0/0)".to_string(),
        },
        Err(_) => "FAILED".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use expect_test::expect;

    use super::*;
    use crate::measure::Measurement;

    fn finished(millis: u64, kib: u64) -> Outcome {
        Outcome::Finished(Measurement {
            wall: Duration::from_millis(millis),
            peak_rss_kib: kib,
        })
    }

    #[test]
    fn timing_table_prints_ratios_and_failures() {
        let rows = [
            TimingRow {
                input: "bench_module.ll".to_string(),
                dwarfsmith: finished(500, 51200),
                llc: finished(2000, 102400),
            },
            TimingRow {
                input: "licm.O2.ll".to_string(),
                dwarfsmith: Outcome::Failed {
                    first_error_line: "licm.O2.ll:7:3: unsupported instruction".to_string(),
                },
                llc: finished(40, 30720),
            },
        ];
        expect![[r#"
            input                      dwarfsmith       llc-19    ratio   dwarfsmith       llc-19    ratio
                                             time         time     time     peak RSS     peak RSS      RSS
            bench_module.ll               0.500 s      2.000 s     4.00     50.0 MiB    100.0 MiB     2.00
            licm.O2.ll                     FAILED      0.040 s        -       FAILED     30.0 MiB        -
                dwarfsmith FAILED: licm.O2.ll:7:3: unsupported instruction
        "#]]
        .assert_eq(&timing_table(&rows));
    }

    #[test]
    fn coverage_table_totals_only_programs_both_compiled() {
        let rows = [
            CoverageRow {
                input: "licm.O2.ll".to_string(),
                dwarfsmith: Ok(Coverage {
                    covered_bytes: 900,
                    scope_bytes: 1000,
                }),
                llc: Ok(Coverage {
                    covered_bytes: 873,
                    scope_bytes: 959,
                }),
            },
            CoverageRow {
                input: "sort.O2.ll".to_string(),
                dwarfsmith: Err("sort.O2.ll:1:1: no".to_string()),
                llc: Ok(Coverage {
                    covered_bytes: 10,
                    scope_bytes: 20,
                }),
            },
        ];
        expect![[r#"
            input                         dwarfsmith coverage          llc-19 coverage
            licm.O2.ll                       90.0% (900/1000)          91.0% (873/959)
            sort.O2.ll                                 FAILED            50.0% (10/20)
                dwarfsmith FAILED: sort.O2.ll:1:1: no
            total (both succeeded)           90.0% (900/1000)          91.0% (873/959)
        "#]]
        .assert_eq(&coverage_table(&rows));
    }
}
