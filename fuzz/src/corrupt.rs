//! Corrupted executables: what `dwarfsmith verify` says of binaries whose
//! debug information is damaged.
//!
//! In: real executables (gcc's and clang's, `-O2 -g`), a seed and how many
//! corrupted binaries to judge. Out: a [`Tally`] and the cases where
//! `dwarfsmith verify` panicked, ran past [`crate::TIME_LIMIT`] or accepted a
//! binary llvm-dwarfdump-19 rejects.
//!
//! Each candidate is one base executable with one [`CORRUPTIONS`] kind
//! applied (its own [`SplitMix64`] stream: candidate `i` of seed `s` is the
//! same on every machine). `llvm-dwarfdump-19 --verify` judges it first: a
//! candidate it accepts (the damage fell where no reader looks, such as the
//! text of a name), or rejects with exactly the errors it finds in the
//! undamaged executable (clang's DWARF 5 linked by ld: string offsets into
//! tail-merged strings), is left out; one it rejects otherwise is *kept* and handed to
//! `dwarfsmith verify`, which must reject it too (non-zero exit, no panic)
//! within the time limit. Both programs run as processes, so a hang is
//! killed and counted rather than stopping the run.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::SplitMix64;

/// The kinds of damage, by index.
pub const CORRUPTIONS: &[&str] = &[
    "truncate a debug section",
    "flip bytes in a debug section",
    "write a bad offset into a debug section",
    "truncate the file",
];

/// How long llvm-dwarfdump may take on one candidate before it is left out
/// (it is slow on some damaged inputs, and its verdict is only the filter).
const LLVM_LIMIT: Duration = Duration::from_secs(30);

/// What a run found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Candidates made.
    pub candidates: u64,
    /// Candidates llvm-dwarfdump accepted, or rejected only as it rejects
    /// their base (left out).
    pub llvm_accepted: u64,
    /// Candidates llvm-dwarfdump did not finish within its limit (left out).
    pub llvm_timed_out: u64,
    /// Candidates llvm-dwarfdump rejected: the ones judged.
    pub kept: u64,
    /// Kept ones `dwarfsmith verify` rejected.
    pub rejected: u64,
    /// Kept ones per corruption kind: (kind, kept, rejected).
    pub by_kind: Vec<(String, u64, u64)>,
    /// The longest `dwarfsmith verify` took, in milliseconds.
    pub slowest_ms: u64,
}

impl Tally {
    /// The share of kept binaries `dwarfsmith verify` rejected.
    pub fn rejected_share(&self) -> f64 {
        if self.kept == 0 {
            return 1.0;
        }
        self.rejected as f64 / self.kept as f64
    }

    /// A few lines: the counts, then one line per kind.
    pub fn report(&self) -> String {
        let mut text = format!(
            "candidates {}, llvm-dwarfdump accepted {} (timed out {}), kept {}, \
             dwarfsmith verify rejected {} ({:.1}%), slowest {} ms\n",
            self.candidates,
            self.llvm_accepted,
            self.llvm_timed_out,
            self.kept,
            self.rejected,
            100.0 * self.rejected_share(),
            self.slowest_ms
        );
        for (kind, kept, rejected) in &self.by_kind {
            text.push_str(&format!("  {kind}: kept {kept}, rejected {rejected}\n"));
        }
        text
    }
}

/// A kept binary `dwarfsmith verify` got wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// Where the binary was written (kept for reproduction).
    pub path: PathBuf,
    /// The base executable and the damage done.
    pub origin: String,
    /// What went wrong: a panic, a hang, or an accepted binary, with the
    /// output of both programs.
    pub problem: String,
}

/// What a run is given.
pub struct Run<'a> {
    /// The executables to corrupt: (name, bytes).
    pub bases: &'a [(String, Vec<u8>)],
    /// The `dwarfsmith` binary.
    pub dwarfsmith: &'a Path,
    /// Where candidates are written; kept bad cases stay there.
    pub dir: &'a Path,
    /// The run's seed.
    pub seed: u64,
    /// Stop once this many candidates are kept.
    pub keep: u64,
    /// Stop after this many candidates in any case.
    pub most_candidates: u64,
}

/// Makes candidates until `run.keep` are kept (or `run.most_candidates`
/// are made), judging them on two threads; gives the tally and the bad cases.
pub fn run(run: &Run) -> (Tally, Vec<Case>) {
    let base_errors: Vec<String> = run
        .bases
        .iter()
        .map(|(name, bytes)| {
            let path = run.dir.join(format!("base-{name}"));
            std::fs::write(&path, bytes)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            let llvm = finish(
                Command::new("llvm-dwarfdump-19").arg("--verify").arg(&path),
                LLVM_LIMIT,
            );
            let _ = std::fs::remove_file(&path);
            llvm.map(|llvm| errors(&llvm.output)).unwrap_or_default()
        })
        .collect();
    let mut tally = Tally {
        by_kind: CORRUPTIONS.iter().map(|k| (k.to_string(), 0, 0)).collect(),
        ..Tally::default()
    };
    let mut cases = Vec::new();
    let mut next = 0;
    while tally.kept < run.keep && next < run.most_candidates {
        let batch: Vec<u64> = (next..(next + 2).min(run.most_candidates)).collect();
        next += batch.len() as u64;
        let judged: Vec<Judged> = std::thread::scope(|scope| {
            let workers: Vec<_> = batch
                .iter()
                .map(|&index| {
                    let base_errors = &base_errors;
                    scope.spawn(move || judge(run, base_errors, index))
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("a judging thread panicked"))
                .collect()
        });
        for judged in judged {
            tally.candidates += 1;
            match judged {
                Judged::LlvmAccepted => tally.llvm_accepted += 1,
                Judged::LlvmTimedOut => tally.llvm_timed_out += 1,
                Judged::Kept {
                    kind,
                    elapsed,
                    bad_case,
                } => {
                    tally.kept += 1;
                    tally.by_kind[kind].1 += 1;
                    tally.slowest_ms = tally.slowest_ms.max(elapsed.as_millis() as u64);
                    match bad_case {
                        Some(case) => cases.push(case),
                        None => {
                            tally.rejected += 1;
                            tally.by_kind[kind].2 += 1;
                        }
                    }
                }
            }
        }
    }
    (tally, cases)
}

/// One candidate's fate.
enum Judged {
    LlvmAccepted,
    LlvmTimedOut,
    Kept {
        kind: usize,
        elapsed: Duration,
        /// `None`: `dwarfsmith verify` rejected it cleanly in time.
        bad_case: Option<Case>,
    },
}

/// Judges candidate `index`; `base_errors` are llvm-dwarfdump's errors on
/// each base, as [`errors`] gives them.
fn judge(run: &Run, base_errors: &[String], index: u64) -> Judged {
    let mut rng = SplitMix64::new(run.seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let which = rng.below(run.bases.len());
    let (base_name, base) = &run.bases[which];
    let (bytes, kind, damage) = corrupt(base, &mut rng);
    let path = run.dir.join(format!("corrupt-{}-{index}", run.seed));
    std::fs::write(&path, &bytes)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    let origin = format!("seed {} candidate {index}: {base_name}, {damage}", run.seed);
    let llvm = finish(
        Command::new("llvm-dwarfdump-19").arg("--verify").arg(&path),
        LLVM_LIMIT,
    );
    let Some(llvm) = llvm else {
        let _ = std::fs::remove_file(&path);
        return Judged::LlvmTimedOut;
    };
    if errors(&llvm.output) == base_errors[which]
        && (llvm.success || !base_errors[which].is_empty())
    {
        let _ = std::fs::remove_file(&path);
        return Judged::LlvmAccepted;
    }
    let started = Instant::now();
    let ours = finish(
        Command::new(run.dwarfsmith).arg("verify").arg(&path),
        crate::TIME_LIMIT,
    );
    let elapsed = started.elapsed();
    let problem = match ours {
        None => Some(format!(
            "dwarfsmith verify ran past {:?}",
            crate::TIME_LIMIT
        )),
        Some(ours) if ours.panicked() => {
            Some(format!("dwarfsmith verify panicked:\n{}", ours.output))
        }
        Some(ours) if ours.success => Some(format!(
            "dwarfsmith verify accepted it; llvm-dwarfdump-19 --verify said:\n{}",
            first_errors(&llvm.output)
        )),
        Some(_) => None,
    };
    if problem.is_none() {
        let _ = std::fs::remove_file(&path);
    }
    Judged::Kept {
        kind,
        elapsed,
        bad_case: problem.map(|problem| Case {
            path,
            origin,
            problem,
        }),
    }
}

/// The `error:` lines of llvm-dwarfdump's output (empty: it found none).
fn errors(output: &str) -> String {
    let errors: Vec<&str> = output.lines().filter(|l| l.contains("error:")).collect();
    errors.join("\n")
}

/// The first few `error:` lines of llvm-dwarfdump's output.
fn first_errors(output: &str) -> String {
    let errors: Vec<&str> = output
        .lines()
        .filter(|l| l.contains("error:"))
        .take(5)
        .collect();
    errors.join("\n")
}

/// How a program ended.
struct Finished {
    success: bool,
    /// Exit code 101 (Rust's panic exit) or a panic message.
    code: Option<i32>,
    output: String,
}

impl Finished {
    fn panicked(&self) -> bool {
        self.code == Some(101) || self.output.contains("panicked at")
    }
}

/// Runs `command` to its end, or kills it after `limit` (then `None`).
/// Standard output and error are read through temporary files, so a
/// chatty program cannot block on a full pipe.
fn finish(command: &mut Command, limit: Duration) -> Option<Finished> {
    let stdout = tempfile::tempfile().expect("cannot make a temporary file");
    let stderr = tempfile::tempfile().expect("cannot make a temporary file");
    let mut child: Child = command
        .stdin(Stdio::null())
        .stdout(stdout.try_clone().expect("cannot clone a file handle"))
        .stderr(stderr.try_clone().expect("cannot clone a file handle"))
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", command.get_program()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("cannot wait for a child") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |mut file: std::fs::File| {
        use std::io::{Read, Seek};
        let mut text = Vec::new();
        file.rewind().and_then(|_| file.read_to_end(&mut text)).ok();
        String::from_utf8_lossy(&text).into_owned()
    };
    Some(Finished {
        success: status.success(),
        code: status.code(),
        output: read(stdout) + &read(stderr),
    })
}

/// The programs of fixtures/src the base executables are built from.
const PROGRAMS: &[&str] = &["inlining", "matrix", "strings"];

/// Builds the base executables under `dir`: each of [`PROGRAMS`] by gcc and
/// clang-19 at `-O2 -g`, with DWARF 5 and with DWARF 4; gives (name, bytes).
pub fn build_bases(root: &Path, dir: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut bases = Vec::new();
    for program in PROGRAMS {
        for compiler in ["gcc", "clang-19"] {
            for version in ["-gdwarf-5", "-gdwarf-4"] {
                let name = format!("{program}-{compiler}{version}");
                let output = dir.join(&name);
                let sources = root.join("fixtures/src");
                let built = Command::new(compiler)
                    .args(["-O2", "-g", version])
                    .arg(sources.join(format!("{program}.c")))
                    .arg(sources.join(format!("{program}.driver.c")))
                    .arg("-o")
                    .arg(&output)
                    .output()
                    .map_err(|e| format!("cannot run {compiler}: {e}"))?;
                if !built.status.success() {
                    return Err(format!(
                        "{compiler} {version} {program}: {}",
                        String::from_utf8_lossy(&built.stderr)
                    ));
                }
                let bytes = std::fs::read(&output).map_err(|e| format!("{name}: {e}"))?;
                bases.push((name, bytes));
            }
        }
    }
    Ok(bases)
}

/// One corruption of `bytes`: the damaged copy, the kind's index in
/// [`CORRUPTIONS`] and what was done.
pub fn corrupt(bytes: &[u8], rng: &mut SplitMix64) -> (Vec<u8>, usize, String) {
    let mut out = bytes.to_vec();
    let sections = debug_sections(bytes);
    let kind = rng.below(CORRUPTIONS.len());
    if sections.is_empty() {
        let at = rng.below(out.len());
        out.truncate(at);
        return (out, 3, format!("no debug section: file cut at {at:#x}"));
    }
    let section = rng.pick(&sections);
    let damage = match kind {
        0 => {
            let size = rng.below(section.size as usize) as u64;
            let field = section.header + 32;
            out[field..field + 8].copy_from_slice(&size.to_le_bytes());
            format!(
                "{} cut from {:#x} to {size:#x} bytes",
                section.name, section.size
            )
        }
        1 => {
            let count = 1 + rng.below(4);
            let mut at = Vec::new();
            for _ in 0..count {
                let offset = rng.below(section.size as usize);
                out[section.offset + offset] ^= (rng.next_u64() as u8).max(1);
                at.push(format!("{offset:#x}"));
            }
            format!("{} bytes flipped at {}", section.name, at.join(", "))
        }
        2 => {
            // A 4-byte value just past the end of some debug section, or
            // far past every one, where an offset may be.
            let target = rng.pick(&sections);
            let value = match rng.below(3) {
                0 => target.size + rng.below(16) as u64,
                1 => 0xffff_fff0 + rng.below(16) as u64,
                _ => 0x0100_0000 + rng.below(0x00ff_ffff) as u64,
            } as u32;
            let room = (section.size as usize).saturating_sub(4);
            let offset = rng.below(room + 1);
            let end = (section.offset + offset + 4).min(out.len());
            let start = section.offset + offset;
            out[start..end].copy_from_slice(&value.to_le_bytes()[..end - start]);
            format!("{} gets {value:#x} at {offset:#x}", section.name)
        }
        _ => {
            // Cut inside the debug sections (or their section headers).
            let start = sections.iter().map(|s| s.offset).min().unwrap_or(0);
            let at = start + rng.below(out.len() - start);
            out.truncate(at);
            format!("file cut at {at:#x} of {:#x}", bytes.len())
        }
    };
    (out, kind, damage)
}

/// A debug section of the base executable.
struct DebugSection {
    name: String,
    /// File offset of its contents.
    offset: usize,
    size: u64,
    /// File offset of its section header.
    header: usize,
}

/// The non-empty `.debug_*` sections with contents in the file.
fn debug_sections(bytes: &[u8]) -> Vec<DebugSection> {
    let Ok(elf) = goblin::elf::Elf::parse(bytes) else {
        return Vec::new();
    };
    let table = elf.header.e_shoff as usize;
    let entry = elf.header.e_shentsize as usize;
    elf.section_headers
        .iter()
        .enumerate()
        .filter_map(|(index, header)| {
            let name = elf.shdr_strtab.get_at(header.sh_name)?;
            let inside = header.sh_offset.checked_add(header.sh_size)? <= bytes.len() as u64;
            (name.starts_with(".debug_") && header.sh_size > 0 && inside).then(|| DebugSection {
                name: name.to_string(),
                offset: header.sh_offset as usize,
                size: header.sh_size,
                header: table + index * entry,
            })
        })
        .collect()
}
