//! The ratchet: measured debug-info figures may rise, never fall silently.
//!
//! In: a suite, a subject and its figures now. Out: `Ok` when no figure is
//! worse than its row in `ratchet.tsv` at the repository root, else an
//! `Err` naming every worse one; either way the whole table of the subject
//! (now against recorded) is printed. Higher is better, except for the
//! metrics [`lower_is_better`] names (wrong values, missing variables,
//! miscompiles): those must not rise.
//!
//! Updating the table: `RATCHET_BLESS=1` writes the rows of figures that
//! are better or new (a worse one still fails); `RATCHET_BLESS=all` writes
//! every row checked, worse ones too. A lowered row is a deliberate trade:
//! change it in the same commit and say why in the commit message.
//!
//! The file: `#` comment lines, then one row per figure, tab-separated:
//! `suite subject metric value`, sorted; values are written with four
//! decimals and compared at that precision.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The table's path: `ratchet.tsv` at the repository root.
pub fn table_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ratchet.tsv")
}

/// The comment the table file opens with.
const HEADER: &str = "\
# The ratchet (fuzz/src/ratchet.rs): debug-info figures the tests measured.
# A test fails when a figure gets worse than its row (lower, or higher for
# wrong / missing / miscompiles). RATCHET_BLESS=1 cargo test ... writes the
# rows that got better; RATCHET_BLESS=all writes every row it checks. A row
# made worse is a deliberate trade: change it in the same commit and say why
# in the commit message.
# suite\tsubject\tmetric\tvalue
";

/// Whether a smaller value of `metric` is the better one.
pub fn lower_is_better(metric: &str) -> bool {
    ["wrong", "missing", "miscompiles"]
        .iter()
        .any(|word| metric.starts_with(word))
}

/// Serialises reading and writing the table between the tests of one
/// process.
static TABLE: Mutex<()> = Mutex::new(());

type Rows = BTreeMap<(String, String, String), f64>;

fn read(path: &Path) -> Result<Rows, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut rows = Rows::new();
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [suite, subject, metric, value] = fields[..] else {
            return Err(format!("{}:{}: not 4 fields", path.display(), number + 1));
        };
        let value = value
            .parse()
            .map_err(|e| format!("{}:{}: {e}", path.display(), number + 1))?;
        rows.insert((suite.into(), subject.into(), metric.into()), value);
    }
    Ok(rows)
}

fn write(path: &Path, rows: &Rows) -> Result<(), String> {
    let mut text = HEADER.to_string();
    for ((suite, subject, metric), value) in rows {
        text += &format!("{suite}\t{subject}\t{metric}\t{}\n", format_value(*value));
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn format_value(value: f64) -> String {
    let text = format!("{value:.4}");
    let trimmed = text.trim_end_matches('0').trim_end_matches('.');
    trimmed.to_string()
}

/// Rounds to the table's precision.
fn rounded(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

/// What [`check`] does with rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bless {
    /// Compare only.
    No,
    /// Write better and new rows.
    Better,
    /// Write every row checked.
    All,
}

impl Bless {
    /// From `RATCHET_BLESS` (`1` or `all`).
    pub fn from_env() -> Bless {
        match std::env::var("RATCHET_BLESS").as_deref() {
            Ok("all") => Bless::All,
            Ok(v) if !v.is_empty() && v != "0" => Bless::Better,
            _ => Bless::No,
        }
    }
}

/// Checks `figures` of `subject` in `suite` against `ratchet.tsv`, blessing
/// as `RATCHET_BLESS` says, and prints the comparison.
pub fn check(suite: &str, subject: &str, figures: &[(&str, f64)]) -> Result<(), String> {
    check_in(&table_path(), Bless::from_env(), suite, subject, figures)
}

/// [`check`] against the table at `path`, blessing as `bless` says.
pub fn check_in(
    path: &Path,
    bless: Bless,
    suite: &str,
    subject: &str,
    figures: &[(&str, f64)],
) -> Result<(), String> {
    let _guard = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    let mut rows = read(path)?;
    let mut worse = Vec::new();
    let mut changed = false;
    let mut report = format!("ratchet {suite} / {subject}: metric, now, recorded\n");
    for &(metric, now) in figures {
        let now = rounded(now);
        let key = (suite.to_string(), subject.to_string(), metric.to_string());
        let recorded = rows.get(&key).copied();
        let verdict = match recorded {
            None => "new",
            Some(old) if now == old => "",
            Some(old) if (now < old) != lower_is_better(metric) => "WORSE",
            Some(_) => "better",
        };
        report += &format!(
            "  {metric:<20} {:>12} {:>12} {verdict}\n",
            format_value(now),
            recorded.map(format_value).unwrap_or_else(|| "-".into())
        );
        let write = match bless {
            Bless::All => recorded != Some(now),
            Bless::Better => verdict == "new" || verdict == "better",
            Bless::No => false,
        };
        if write {
            rows.insert(key, now);
            changed = true;
        } else if verdict == "WORSE" {
            worse.push(format!(
                "{suite} / {subject} / {metric}: {} now, {} recorded",
                format_value(now),
                recorded.map(format_value).unwrap_or_default()
            ));
        } else if verdict == "new" {
            worse.push(format!(
                "{suite} / {subject} / {metric}: {} has no row (RATCHET_BLESS=1 adds it)",
                format_value(now)
            ));
        }
    }
    print!("{report}");
    if changed {
        write(path, &rows)?;
        println!("ratchet: {} rewritten", path.display());
    }
    if worse.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the ratchet ({}) fails:\n{}\n(a deliberate trade: RATCHET_BLESS=all, the changed row in the same commit, the reason in its message)",
            path.display(),
            worse.join("\n")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("ratchet.tsv");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_lower_figure_or_more_wrong_values_fail() {
        let dir = tempfile::tempdir().unwrap();
        let path = table(dir.path(), "# c\ns\tA\tavailability\t0.5\ns\tA\twrong\t2\n");
        assert!(check_in(
            &path,
            Bless::No,
            "s",
            "A",
            &[("availability", 0.5), ("wrong", 2.0)]
        )
        .is_ok());
        assert!(check_in(
            &path,
            Bless::No,
            "s",
            "A",
            &[("availability", 0.6), ("wrong", 1.0)]
        )
        .is_ok());
        let error = check_in(
            &path,
            Bless::No,
            "s",
            "A",
            &[("availability", 0.49994), ("wrong", 3.0)],
        )
        .unwrap_err();
        assert!(
            error.contains("s / A / availability: 0.4999 now, 0.5 recorded"),
            "{error}"
        );
        assert!(
            error.contains("s / A / wrong: 3 now, 2 recorded"),
            "{error}"
        );
        // A figure without a row fails until it is blessed.
        assert!(check_in(&path, Bless::No, "s", "B", &[("lines", 7.0)]).is_err());
    }

    #[test]
    fn blessing_writes_better_rows_and_all_writes_worse_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = table(dir.path(), "s\tA\tavailability\t0.5\ns\tA\tlines\t10\n");
        let figures = [("availability", 0.625), ("lines", 9.0)];
        assert!(check_in(&path, Bless::Better, "s", "A", &figures).is_err());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# The ratchet"));
        assert!(
            text.ends_with("s\tA\tavailability\t0.625\ns\tA\tlines\t10\n"),
            "{text}"
        );
        assert!(check_in(&path, Bless::All, "s", "A", &figures).is_ok());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.ends_with("s\tA\tavailability\t0.625\ns\tA\tlines\t9\n"),
            "{text}"
        );
        assert!(check_in(&path, Bless::No, "s", "A", &figures).is_ok());
    }
}
