//! Variable coverage from `llvm-dwarfdump-19 --statistics`.
//!
//! In: the JSON object llvm-dwarfdump prints (one flat object of counters).
//! Out: the bytes of variables' parent scopes covered by DW_AT_location and
//! the bytes of those scopes, summed over all variables (parameters and
//! locals). Promise: a missing key or a non-numeric value is an error that
//! names the key, never a zero that looks like a measurement.

use std::path::Path;
use std::process::Command;

/// The llvm-dwarfdump-19 statistics key for covered bytes.
pub const COVERED_KEY: &str = "sum_all_variables(#bytes in parent scope covered by DW_AT_location)";
/// The llvm-dwarfdump-19 statistics key for scope bytes.
pub const SCOPE_KEY: &str = "sum_all_variables(#bytes in parent scope)";

/// Covered and total scope bytes of the variables of one object (or a sum of objects).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Bytes of parent scopes where a variable has a location.
    pub covered_bytes: u64,
    /// Bytes of the variables' parent scopes.
    pub scope_bytes: u64,
}

impl Coverage {
    /// Covered bytes as a percentage of scope bytes; `None` when there are no scope bytes.
    pub fn percent(&self) -> Option<f64> {
        (self.scope_bytes > 0).then(|| 100.0 * self.covered_bytes as f64 / self.scope_bytes as f64)
    }

    /// The sum of two coverages (for a total over programs).
    pub fn plus(&self, other: &Coverage) -> Coverage {
        Coverage {
            covered_bytes: self.covered_bytes + other.covered_bytes,
            scope_bytes: self.scope_bytes + other.scope_bytes,
        }
    }
}

/// Reads the coverage counters out of llvm-dwarfdump's `--statistics` JSON.
pub fn coverage_from_statistics(json: &str) -> Result<Coverage, String> {
    Ok(Coverage {
        covered_bytes: counter(json, COVERED_KEY)?,
        scope_bytes: counter(json, SCOPE_KEY)?,
    })
}

/// The unsigned number after `"key":` in a flat JSON object.
fn counter(json: &str, key: &str) -> Result<u64, String> {
    let quoted = format!("\"{key}\"");
    let start = json
        .find(&quoted)
        .ok_or_else(|| format!("statistics have no \"{key}\""))?;
    let rest = json[start + quoted.len()..].trim_start();
    let rest = rest
        .strip_prefix(':')
        .ok_or_else(|| format!("statistics: no ':' after \"{key}\""))?
        .trim_start();
    let digits: &str = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    digits
        .parse()
        .map_err(|_| format!("statistics: \"{key}\" is not an unsigned number"))
}

/// Runs `dwarfdump --statistics OBJECT` and reads the coverage out of its output.
pub fn object_coverage(dwarfdump: &Path, object: &Path) -> Result<Coverage, String> {
    let output = Command::new(dwarfdump)
        .arg("--statistics")
        .arg(object)
        .output()
        .map_err(|error| format!("cannot run {}: {error}", dwarfdump.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(stderr
            .lines()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("llvm-dwarfdump failed")
            .to_string());
    }
    coverage_from_statistics(&String::from_utf8_lossy(&output.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_two_sums_and_not_their_longer_neighbours() {
        // Abridged from llvm-dwarfdump-19 --statistics on llc-19's licm.O2.o.
        let json = r#"{"version":9,"file":"licm.o",
            "sum_all_variables(#bytes in parent scope)": 959,
            "sum_all_variables(#bytes in parent scope covered by DW_AT_location)": 873,
            "sum_all_variables(#bytes in parent scope covered by DW_OP_entry_value)": 345,
            "sum_all_params(#bytes in parent scope)": 517}"#;
        let coverage = coverage_from_statistics(json).unwrap();
        assert_eq!(
            coverage,
            Coverage {
                covered_bytes: 873,
                scope_bytes: 959
            }
        );
        assert_eq!(format!("{:.2}", coverage.percent().unwrap()), "91.03");
    }

    #[test]
    fn a_missing_or_malformed_key_is_an_error_naming_it() {
        assert_eq!(
            coverage_from_statistics(r#"{"sum_all_variables(#bytes in parent scope)": 3}"#),
            Err(format!("statistics have no \"{COVERED_KEY}\""))
        );
        assert_eq!(
            counter(r#"{"k": "x"}"#, "k"),
            Err("statistics: \"k\" is not an unsigned number".to_string())
        );
    }
}
