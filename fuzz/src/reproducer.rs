//! Reproducers of the random-program findings, reduced with cvise.
//!
//! In: a finding of [`crate::debug_info`] and the program that shows it.
//! Out: a directory `OUT/seedS-TAG/` holding `program.c`, `finding.txt`
//! (the build, the tag, what was seen, how to check it again) and
//! `interesting.sh` (exit 0 while the finding is still there: `dwarfsmith-
//! fuzz --still-found TAG reduced.c`); with reduction, `reduced.c`, cvise's
//! smallest program that keeps the finding.

use std::path::{Path, PathBuf};

use crate::debug_info::Finding;

/// The longest one reduction may take.
pub const REDUCE_LIMIT: std::time::Duration = std::time::Duration::from_secs(3600);

/// Writes the reproducer of `finding` (seed `seed`, program `source`)
/// under `out`; reduces it when `reduce_with` names the `dwarfsmith-fuzz`
/// executable. Gives the reproducer's directory.
pub fn write(
    out: &Path,
    seed: u64,
    source: &Path,
    finding: &Finding,
    reduce_with: Option<&Path>,
) -> Result<PathBuf, String> {
    let tag = finding.tag();
    let dir = out.join(format!("seed{seed}-{}", tag.replace(':', "-")));
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(&dir).map_err(io)?;
    std::fs::copy(source, dir.join("program.c")).map_err(io)?;
    let fuzz = reduce_with
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "dwarfsmith-fuzz".to_string());
    std::fs::write(
        dir.join("finding.txt"),
        format!(
            "csmith seed {seed} ({})\nbuild: {}\ntag: {tag}\ncheck again: {fuzz} --still-found {tag} program.c\n\n{}\n",
            crate::csmith::CSMITH_OPTIONS.join(" "),
            finding.build.name(),
            finding.detail
        ),
    )
    .map_err(io)?;
    let script = dir.join("interesting.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nexec '{fuzz}' --still-found '{tag}' reduced.c >/dev/null 2>&1\n"),
    )
    .map_err(io)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
    if reduce_with.is_some() {
        std::fs::copy(source, dir.join("reduced.c")).map_err(io)?;
        // cvise keeps the smallest program so far in reduced.c, so a
        // reduction stopped at the limit still leaves a smaller one.
        let out = std::process::Command::new("timeout")
            .args(["-k", "10", &REDUCE_LIMIT.as_secs().to_string(), "cvise"])
            .args(["--n", "1", "--timeout", "300"])
            .arg(&script)
            .arg("reduced.c")
            .current_dir(&dir)
            .output()
            .map_err(|e| format!("cannot run cvise: {e}"))?;
        if !out.status.success() {
            std::fs::write(dir.join("cvise.log"), [out.stdout, out.stderr].concat()).map_err(io)?;
        }
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::debug_info::{Build, FindingKind, Mode};

    #[test]
    fn a_reproducer_holds_the_program_the_finding_and_its_test() {
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("csmith7.c");
        std::fs::write(&source, "int main(void) { return 0; }\n").unwrap();
        let finding = Finding {
            build: Build::Dwarfsmith(Mode::ClangO2),
            kind: FindingKind::Miscompile,
            detail: "gcc -O0 prints \"1\", this build \"2\"".into(),
        };
        let out = dir.path().join("out");
        let written = write(&out, 7, &source, &finding, None).unwrap();
        assert_eq!(written, out.join("seed7-miscompile-A"));
        let read = |name| std::fs::read_to_string(written.join(name)).unwrap();
        assert_eq!(read("program.c"), "int main(void) { return 0; }\n");
        assert!(read("finding.txt").contains("build: A dwarfsmith\ntag: miscompile:A\n"));
        assert_eq!(
            read("interesting.sh"),
            "#!/bin/sh\nexec 'dwarfsmith-fuzz' --still-found 'miscompile:A' reduced.c >/dev/null 2>&1\n"
        );
    }
}
