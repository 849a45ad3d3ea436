//! `verify`, `verify --line-table` and `lines` on the binaries CI pipelines
//! hold, judged against llvm-dwarfdump-19.
//!
//! A matrix is built from fixtures/src programs: gcc and clang-19, -O0 and
//! -O2, as a relocatable object, an executable, a PIE and a shared library,
//! each with plain, zlib-compressed, zstd-compressed, DWARF 4, split
//! (DWARF 5 and GNU DWARF 4; and packaged by llvm-dwp-19 into `FILE.dwp`, the
//! `.dwo` files removed) and name-indexed (`-gpubnames`: clang's
//! `.debug_names`, gcc's `.debug_pubnames`) debug information. On every build: `verify` finds nothing where
//! `llvm-dwarfdump-19 --verify` finds nothing, `verify --line-table` (with
//! `--against` the -O0 build for an -O2 one) finds nothing, `lines` prints
//! rows, and every row the reader decodes is the row
//! `llvm-dwarfdump-19 --debug-line` prints. The matrix is printed and its
//! verdicts are a snapshot.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect;
use support::{dwarfsmith, fixture, llvm_dwarfdump, run};

/// What the compiler is asked to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Object,
    Executable,
    Pie,
    Shared,
}

/// How the debug information is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Debug {
    Plain,
    Zlib,
    Zstd,
    Dwarf4,
    /// -gsplit-dwarf: a skeleton here, the DIEs in a `.dwo` beside it.
    Split,
    /// -gsplit-dwarf -gdwarf-4: GNU split DWARF.
    SplitDwarf4,
    /// -gsplit-dwarf, the `.dwo` files packaged by llvm-dwp-19 into
    /// `FILE.dwp` and removed.
    Dwp,
    /// -gpubnames: a name index (`.debug_names` from clang).
    Names,
}

/// One cell of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Build {
    compiler: &'static str,
    level: &'static str,
    kind: Kind,
    debug: Debug,
}

impl Build {
    fn name(&self) -> String {
        let kind = match self.kind {
            Kind::Object => "o",
            Kind::Executable => "exe",
            Kind::Pie => "pie",
            Kind::Shared => "so",
        };
        let debug = match self.debug {
            Debug::Plain => "plain",
            Debug::Zlib => "zlib",
            Debug::Zstd => "zstd",
            Debug::Dwarf4 => "dwarf4",
            Debug::Split => "split",
            Debug::SplitDwarf4 => "split-dwarf4",
            Debug::Dwp => "dwp",
            Debug::Names => "names",
        };
        let level = self.level.trim_start_matches('-');
        format!("{}-{level}-{kind}-{debug}", self.compiler)
    }

    /// The same build at -O0: the reference of the line-order check (for a
    /// package, the split build: gcc's -O0 package is not made).
    fn at_o0(&self) -> Build {
        let debug = match self.debug {
            Debug::Dwp => Debug::Split,
            debug => debug,
        };
        Build {
            level: "-O0",
            debug,
            ..*self
        }
    }

    fn arguments(&self, output: &Path) -> Vec<String> {
        let mut args = vec![self.level.to_string(), "-g".to_string()];
        args.extend(
            match (self.debug, self.compiler) {
                (Debug::Plain, _) => vec![],
                (Debug::Zlib, _) => vec!["-gz=zlib"],
                // gcc 12 knows no -gz=zstd; its assembler and linker do.
                (Debug::Zstd, "gcc") => vec![
                    "-Wa,--compress-debug-sections=zstd",
                    "-Wl,--compress-debug-sections=zstd",
                ],
                (Debug::Zstd, _) => vec!["-gz=zstd"],
                (Debug::Dwarf4, _) => vec!["-gdwarf-4"],
                (Debug::Split | Debug::Dwp, _) => vec!["-gsplit-dwarf"],
                (Debug::Names, _) => vec!["-gpubnames"],
                (Debug::SplitDwarf4, _) => vec!["-gsplit-dwarf", "-gdwarf-4"],
            }
            .into_iter()
            .map(String::from),
        );
        let (flags, sources): (&[&str], &[&str]) = match self.kind {
            Kind::Object => (&["-c"], &["inlining"]),
            Kind::Executable => (
                &["-fno-pie", "-no-pie"],
                &["inlining", "inlining.driver", "switch_table"],
            ),
            Kind::Pie => (
                &["-fPIE", "-pie"],
                &["inlining", "inlining.driver", "switch_table"],
            ),
            Kind::Shared => (&["-fPIC", "-shared"], &["inlining", "switch_table"]),
        };
        args.extend(flags.iter().map(|f| f.to_string()));
        for source in sources {
            args.push(
                fixture(&format!("src/{source}.c"))
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        args.extend(["-o".to_string(), output.to_string_lossy().into_owned()]);
        args
    }
}

fn matrix() -> Vec<Build> {
    let mut builds = Vec::new();
    for compiler in ["gcc", "clang-19"] {
        for level in ["-O0", "-O2"] {
            for kind in [Kind::Object, Kind::Executable, Kind::Pie, Kind::Shared] {
                for debug in [
                    Debug::Plain,
                    Debug::Zlib,
                    Debug::Zstd,
                    Debug::Dwarf4,
                    Debug::Split,
                    Debug::SplitDwarf4,
                    Debug::Dwp,
                    Debug::Names,
                ] {
                    // llvm-dwp-19 never ends on gcc 12's -O0 DWARF 5 .dwo of
                    // inlining.driver.c (`gcc -O0 -g -gsplit-dwarf -c
                    // inlining.driver.c && llvm-dwp-19 inlining.driver.dwo -o
                    // x.dwp`); GNU dwp crashes on DWARF 5.
                    if debug == Debug::Dwp && compiler == "gcc" && level == "-O0" {
                        continue;
                    }
                    builds.push(Build {
                        compiler,
                        level,
                        kind,
                        debug,
                    });
                }
            }
        }
    }
    builds
}

fn path_of(dir: &Path, build: &Build) -> PathBuf {
    dir.join(build.name())
}

fn compile(dir: &Path, build: &Build) {
    let output = path_of(dir, build);
    let out = run(Command::new(build.compiler).args(build.arguments(&output)));
    assert!(
        out.status.success(),
        "{}: {}",
        build.name(),
        String::from_utf8_lossy(&out.stderr)
    );
    // The split builds have their .dwo files, which `verify` reads.
    let dwo_files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            // `NAME.dwo`, `NAME-source.dwo` (not NAME-dwarf4-source.dwo).
            let rest = name.strip_prefix(&build.name()).unwrap_or("");
            name.ends_with(".dwo")
                && (rest == ".dwo" || rest.starts_with('-') && !rest.starts_with("-dwarf4"))
        })
        .collect();
    if matches!(build.debug, Debug::Split | Debug::SplitDwarf4 | Debug::Dwp) {
        assert!(!dwo_files.is_empty(), "{}: no .dwo file", build.name());
    }
    // The package replaces them.
    if build.debug == Debug::Dwp {
        let package = dir.join(format!("{}.dwp", build.name()));
        let out = run(Command::new("llvm-dwp-19")
            .arg("-e")
            .arg(&output)
            .arg("-o")
            .arg(&package));
        assert!(
            out.status.success(),
            "{}: llvm-dwp-19: {}",
            build.name(),
            text(&out)
        );
        for dwo in dwo_files {
            std::fs::remove_file(dwo).unwrap();
        }
    }
    // The compressed builds really hold compressed debug sections.
    let expected = match build.debug {
        Debug::Zlib => Some("ZLIB, "),
        Debug::Zstd => Some("ZSTD, "),
        _ => None,
    };
    if let Some(expected) = expected {
        let headers = text(&run(Command::new("readelf").arg("-t").arg(&output)));
        assert!(headers.contains(expected), "{}: {headers}", build.name());
    }
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// What was found on one build.
struct Verdict {
    /// llvm-dwarfdump-19 --verify: `None` when clean, else its error kinds.
    llvm_errors: Option<String>,
    /// Our `verify`'s findings.
    ours: Vec<String>,
    /// Our `verify --line-table`'s output when it found something.
    line_table: Option<String>,
    /// Rows `lines` printed.
    rows: usize,
    /// The first row where the reader and llvm-dwarfdump disagree.
    row_mismatch: Option<String>,
}

fn check(dir: &Path, build: &Build) -> Verdict {
    let path = path_of(dir, build);
    let llvm = run(Command::new(llvm_dwarfdump()).arg("--verify").arg(&path));
    let llvm_text = text(&llvm);
    let llvm_errors = (!llvm.status.success() || llvm_text.contains("error:")).then(|| {
        // "error: KIND occurred N time(s)." lines sum the errors up.
        let kinds: Vec<&str> = llvm_text
            .lines()
            .filter_map(|l| l.strip_prefix("error: ")?.split_once(" occurred "))
            .map(|(kind, _)| kind)
            .collect();
        kinds.join("; ")
    });
    let path_arg = path.to_str().unwrap();
    let verify = dwarfsmith(&["verify", path_arg]);
    let ours = if verify.status.success() {
        Vec::new()
    } else {
        text(&verify).lines().map(String::from).collect()
    };
    let reference = path_of(dir, &build.at_o0());
    let mut line_args = vec!["verify", "--line-table", path_arg];
    if build.level != "-O0" {
        line_args.extend(["--against", reference.to_str().unwrap()]);
    }
    let line_table = dwarfsmith(&line_args);
    let line_table = (!line_table.status.success()).then(|| text(&line_table));
    let lines = dwarfsmith(&["lines", path_arg]);
    assert!(lines.status.success(), "{}: {}", build.name(), text(&lines));
    let rows = String::from_utf8_lossy(&lines.stdout).lines().count() - 1;
    Verdict {
        llvm_errors,
        ours,
        line_table,
        rows,
        row_mismatch: row_mismatch(&path),
    }
}

/// Compares every row the reader decodes with llvm-dwarfdump-19's.
fn row_mismatch(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).unwrap();
    let listing = dwarfsmith_emit::read::read_line_listing(&bytes).unwrap();
    // In a relocatable object llvm-dwarfdump places every section at 0, the
    // reader at a synthetic address (see emit's read::elf).
    let llvm_address = |address: u64| {
        let section = listing
            .code_sections
            .iter()
            .find(|(_, start, size)| address >= *start && address <= start + size);
        match section {
            Some((_, start, _)) if listing.code_start == 0 => address - start,
            _ => address,
        }
    };
    let ours: Vec<String> = listing
        .sequences
        .iter()
        .flatten()
        .map(|row| {
            let flags = [
                (row.is_stmt, "is_stmt"),
                (row.end_sequence, "end_sequence"),
                (row.prologue_end, "prologue_end"),
                (row.epilogue_begin, "epilogue_begin"),
            ];
            canonical_row(
                llvm_address(row.address),
                [row.line, row.column, row.file, row.discriminator],
                flags.iter().filter(|(set, _)| *set).map(|(_, name)| *name),
            )
        })
        .collect();
    let dump = run(Command::new(llvm_dwarfdump()).arg("--debug-line").arg(path));
    let theirs: Vec<String> = String::from_utf8_lossy(&dump.stdout)
        .lines()
        .filter_map(|line| {
            // 0xADDRESS LINE COLUMN FILE ISA DISCRIMINATOR OPINDEX FLAGS...
            let fields: Vec<&str> = line.split_whitespace().collect();
            let address = u64::from_str_radix(fields.first()?.strip_prefix("0x")?, 16).ok()?;
            let number = |i: usize| fields.get(i)?.parse::<u64>().ok();
            Some(canonical_row(
                address,
                [number(1)?, number(2)?, number(3)?, number(5)?],
                fields[7..].iter().copied().filter(|f| *f != "basic_block"),
            ))
        })
        .collect();
    if theirs.is_empty() {
        return Some("llvm-dwarfdump printed no rows".into());
    }
    let first_difference = ours.iter().zip(&theirs).position(|(a, b)| a != b);
    match first_difference {
        Some(i) => Some(format!("row {i}: ours {} llvm {}", ours[i], theirs[i])),
        None if ours.len() != theirs.len() => Some(format!(
            "{} rows here, {} in llvm-dwarfdump",
            ours.len(),
            theirs.len()
        )),
        None => None,
    }
}

fn canonical_row<'a>(
    address: u64,
    [line, column, file, discriminator]: [u64; 4],
    flags: impl Iterator<Item = &'a str>,
) -> String {
    let mut flags: Vec<&str> = flags.collect();
    flags.sort_unstable();
    format!(
        "{address:#x} {line}:{column} file {file} discriminator {discriminator} {}",
        flags.join(",")
    )
}

/// Runs `work` on every item on two threads, results in item order.
fn on_two_threads<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let work = &work;
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|worker| {
                scope.spawn(move || {
                    (items.iter().enumerate())
                        .filter(|(i, _)| i % 2 == worker)
                        .map(|(i, item)| (i, work(item)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker panicked"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn verify_and_lines_agree_with_llvm_dwarfdump_on_every_kind_of_binary() {
    let dir = tempfile::tempdir().unwrap();
    let builds = matrix();
    let started = std::time::Instant::now();
    on_two_threads(&builds, |build| compile(dir.path(), build));
    let built = started.elapsed();
    let verdicts = on_two_threads(&builds, |build| check(dir.path(), build));
    println!(
        "built {} binaries in {:.1} s, checked in {:.1} s",
        builds.len(),
        built.as_secs_f64(),
        (started.elapsed() - built).as_secs_f64()
    );
    let mut table = String::new();
    let mut printed = String::new();
    for (build, verdict) in builds.iter().zip(&verdicts) {
        let llvm = verdict.llvm_errors.as_deref().unwrap_or("clean");
        let ours = match verdict.ours.len() {
            0 => "clean".to_string(),
            n => format!("{n} findings"),
        };
        let line_table = if verdict.line_table.is_some() {
            "findings"
        } else {
            "clean"
        };
        let rows = match &verdict.row_mismatch {
            None => "rows = llvm's",
            Some(_) => "rows differ",
        };
        let row = format!(
            "{:<28} llvm: {llvm:<8} verify: {ours:<8} line-table: {line_table:<8} lines: {rows}",
            build.name()
        );
        printed.push_str(&format!("{row} ({} rows)\n", verdict.rows));
        table.push_str(row.trim_end());
        table.push('\n');
    }
    println!("{printed}");
    for (build, verdict) in builds.iter().zip(&verdicts) {
        let name = build.name();
        if verdict.llvm_errors.is_none() {
            assert!(
                verdict.ours.is_empty(),
                "{name}: llvm-dwarfdump finds nothing, verify finds:\n{}",
                verdict.ours.join("\n")
            );
        }
        assert_eq!(verdict.line_table, None, "{name}: verify --line-table");
        assert!(verdict.rows > 0, "{name}: lines printed no row");
        assert_eq!(verdict.row_mismatch, None, "{name}: rows");
    }
    // llvm-dwarfdump's errors on clang's DWARF 5 linked by GNU ld are its
    // own: ld merges the tails of .debug_str strings, and llvm-dwarfdump
    // wants every .debug_str_offsets entry to follow a NUL.
    expect![[r#"
        gcc-O0-o-plain               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-o-zlib                llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-o-zstd                llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-o-dwarf4              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-o-split               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-o-split-dwarf4        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-o-names               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-exe-plain             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-exe-zlib              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-exe-zstd              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-exe-dwarf4            llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-exe-split             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-exe-split-dwarf4      llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-exe-names             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-pie-plain             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-pie-zlib              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-pie-zstd              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-pie-dwarf4            llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-pie-split             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-pie-split-dwarf4      llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-pie-names             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-so-plain              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-so-zlib               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-so-zstd               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-so-dwarf4             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-so-split              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-so-split-dwarf4       llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O0-so-names              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-plain               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-zlib                llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-zstd                llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-dwarf4              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-split               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-split-dwarf4        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-dwp                 llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-o-names               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-plain             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-zlib              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-zstd              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-dwarf4            llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-split             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-split-dwarf4      llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-dwp               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-exe-names             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-plain             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-zlib              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-zstd              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-dwarf4            llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-split             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-split-dwarf4      llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-dwp               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-pie-names             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-plain              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-zlib               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-zstd               llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-dwarf4             llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-split              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-split-dwarf4       llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-dwp                llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        gcc-O2-so-names              llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-plain          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-zlib           llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-zstd           llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-dwarf4         llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-split          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-split-dwarf4   llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-dwp            llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-o-names          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-plain        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-zlib         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-zstd         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-dwarf4       llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-split        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-split-dwarf4 llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-dwp          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-exe-names        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-plain        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-zlib         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-zstd         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-dwarf4       llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-split        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-split-dwarf4 llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-dwp          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-pie-names        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-plain         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-zlib          llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-zstd          llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-dwarf4        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-split         llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-split-dwarf4  llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-dwp           llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O0-so-names         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-plain          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-zlib           llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-zstd           llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-dwarf4         llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-split          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-split-dwarf4   llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-dwp            llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-o-names          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-plain        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-zlib         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-zstd         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-dwarf4       llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-split        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-split-dwarf4 llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-dwp          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-exe-names        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-plain        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-zlib         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-zstd         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-dwarf4       llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-split        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-split-dwarf4 llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-dwp          llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-pie-names        llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-plain         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-zlib          llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-zstd          llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-dwarf4        llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-split         llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-split-dwarf4  llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-dwp           llvm: clean    verify: clean    line-table: clean    lines: rows = llvm's
        clang-19-O2-so-names         llvm: Section contribution contains invalid string offset verify: clean    line-table: clean    lines: rows = llvm's
    "#]]
    .assert_eq(&table);
}

/// A fresh directory holding `build` alone.
fn build_alone(build: Build) -> (tempfile::TempDir, Build) {
    let dir = tempfile::tempdir().unwrap();
    compile(dir.path(), &build);
    (dir, build)
}

/// A few rows of `lines` on a linked gcc -O0 program, exactly; the test
/// above checks every row against llvm-dwarfdump-19 --debug-line.
#[test]
fn lines_of_an_executable() {
    let (dir, build) = build_alone(Build {
        compiler: "gcc",
        level: "-O0",
        kind: Kind::Executable,
        debug: Debug::Zlib,
    });
    let lines = dwarfsmith(&["lines", path_of(dir.path(), &build).to_str().unwrap()]);
    assert!(lines.status.success(), "{}", text(&lines));
    let listing = String::from_utf8_lossy(&lines.stdout);
    let energy: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains(" energy"))
        .take(6)
        .collect();
    expect![[r#"
        .text+0x12f    energy                       inlining.c:15:39       is_stmt
        .text+0x13e    energy+0xf                   inlining.c:16:7        is_stmt
        .text+0x145    energy+0x16                  inlining.c:17:12       is_stmt
        .text+0x14c    energy+0x1d                  inlining.c:17:3        is_stmt
        .text+0x14e    energy+0x1f                  inlining.c:18:26       is_stmt discriminator=3
        .text+0x162    energy+0x33                  inlining.c:18:13       is_stmt discriminator=3
    "#]]
    .assert_eq(&(energy.join("\n") + "\n"));
}

/// `verify` reads the `.dwo` files of split DWARF: one missing is named,
/// one cut short is rejected.
#[test]
fn split_dwarf_files_are_read() {
    let (dir, build) = build_alone(Build {
        compiler: "gcc",
        level: "-O2",
        kind: Kind::Executable,
        debug: Debug::Split,
    });
    let path = path_of(dir.path(), &build);
    let dwo = dir.path().join(format!("{}-inlining.dwo", build.name()));
    let kept = dir.path().join("kept.dwo");
    std::fs::rename(&dwo, &kept).unwrap();
    let missing = dwarfsmith(&["verify", path.to_str().unwrap()]);
    assert!(!missing.status.success());
    cut_in_half(".debug_info.dwo", &kept, Some(&dwo));
    let cut = dwarfsmith(&["verify", path.to_str().unwrap()]);
    assert!(!cut.status.success());
    let dir_name = dir.path().to_str().unwrap();
    expect![[r#"
        DIR/gcc-O2-exe-split: .debug_info: the skeleton unit at 0x0: split DWARF file DIR/gcc-O2-exe-split-inlining.dwo not found (looked for DIR/gcc-O2-exe-split-inlining.dwo)
        DIR/gcc-O2-exe-split: DIR/gcc-O2-exe-split-inlining.dwo: unexpected end of input
    "#]]
    .assert_eq(
        &format!(
            "{}{}",
            String::from_utf8_lossy(&missing.stdout),
            String::from_utf8_lossy(&cut.stdout)
        )
        .replace(dir_name, "DIR"),
    );
}

/// `verify` reads split units from the package `FILE.dwp` (the `.dwo` files
/// gone): a package cut short, and one without the program's units, are
/// reported as such.
#[test]
fn split_units_are_read_from_the_package() {
    let (dir, build) = build_alone(Build {
        compiler: "clang-19",
        level: "-O2",
        kind: Kind::Executable,
        debug: Debug::Dwp,
    });
    let path = path_of(dir.path(), &build);
    let path_arg = path.to_str().unwrap();
    assert!(dwarfsmith(&["verify", path_arg]).status.success());
    // `stats` reads the split units from the package too, as
    // llvm-dwarfdump-19 --statistics does.
    let llvm = text(&run(Command::new(llvm_dwarfdump())
        .arg("--statistics")
        .arg(&path)));
    let ours = dwarfsmith(&["stats", "--json", path_arg]);
    assert!(ours.status.success(), "{}", text(&ours));
    let ours = String::from_utf8_lossy(&ours.stdout).into_owned();
    for key in STATS_KEYS {
        let value = statistic(&llvm, key);
        assert!(value.as_deref().is_some_and(|v| v != "0"), "{key}: {llvm}");
        assert_eq!(statistic(&ours, key), value, "{key}");
    }
    let package = dir.path().join(format!("{}.dwp", build.name()));
    cut_in_half(".debug_info.dwo", &package, None);
    let cut = dwarfsmith(&["verify", path_arg]);
    assert!(!cut.status.success());
    // A package of another program.
    let other = dir.path().join("other");
    let compiled = run(Command::new("clang-19")
        .args(["-O2", "-g", "-gsplit-dwarf", "-c", "-o"])
        .arg(&other)
        .arg(fixture("src/matrix.c")));
    assert!(compiled.status.success(), "{}", text(&compiled));
    let packaged = run(Command::new("llvm-dwp-19")
        .arg("-e")
        .arg(&other)
        .arg("-o")
        .arg(&package));
    assert!(packaged.status.success(), "{}", text(&packaged));
    let foreign = dwarfsmith(&["verify", path_arg]);
    assert!(!foreign.status.success());
    let dir_name = dir.path().to_str().unwrap();
    let found = format!(
        "{}{}",
        String::from_utf8_lossy(&cut.stdout),
        String::from_utf8_lossy(&foreign.stdout)
    )
    .replace(dir_name, "DIR");
    // A unit's id is a hash clang makes of it (its directory included).
    let found: Vec<String> = found
        .lines()
        .map(|line| match line.find("id 0x") {
            Some(at) => format!("{}id ID", &line[..at]),
            None => line.to_string(),
        })
        .collect();
    let found = found.join("\n");
    expect![[r#"
        DIR/clang-19-O2-exe-dwp: .debug_info: the skeleton unit at 0x28: split DWARF file DIR/clang-19-O2-exe-dwp-inlining.driver.dwo not found (looked for DIR/clang-19-O2-exe-dwp-inlining.driver.dwo); DIR/clang-19-O2-exe-dwp.dwp: .debug_cu_index: the unit's part of .debug_info.dwo ([0xe1, +0xd1)) is outside the section (0xfa bytes)
        DIR/clang-19-O2-exe-dwp: .debug_info: the skeleton unit at 0x50: split DWARF file DIR/clang-19-O2-exe-dwp-switch_table.dwo not found (looked for DIR/clang-19-O2-exe-dwp-switch_table.dwo); DIR/clang-19-O2-exe-dwp.dwp: .debug_cu_index: the unit's part of .debug_info.dwo ([0x1b2, +0x42)) is outside the section (0xfa bytes)
        DIR/clang-19-O2-exe-dwp: .debug_info: the skeleton unit at 0x0: split DWARF file DIR/clang-19-O2-exe-dwp-inlining.dwo not found (looked for DIR/clang-19-O2-exe-dwp-inlining.dwo); DIR/clang-19-O2-exe-dwp.dwp: no unit has the skeleton's id ID
        DIR/clang-19-O2-exe-dwp: .debug_info: the skeleton unit at 0x28: split DWARF file DIR/clang-19-O2-exe-dwp-inlining.driver.dwo not found (looked for DIR/clang-19-O2-exe-dwp-inlining.driver.dwo); DIR/clang-19-O2-exe-dwp.dwp: no unit has the skeleton's id ID
        DIR/clang-19-O2-exe-dwp: .debug_info: the skeleton unit at 0x50: split DWARF file DIR/clang-19-O2-exe-dwp-switch_table.dwo not found (looked for DIR/clang-19-O2-exe-dwp-switch_table.dwo); DIR/clang-19-O2-exe-dwp.dwp: no unit has the skeleton's id ID"#]].assert_eq(&found);
}

/// Keys of llvm-dwarfdump's statistics that are 0 when no split unit is read.
const STATS_KEYS: [&str; 4] = [
    "#functions",
    "#source variables",
    "#source variables with location",
    "sum_all_variables(#bytes in parent scope covered by DW_AT_location)",
];

/// The value of statistic `key` in a JSON document of `stats` or
/// llvm-dwarfdump-19 (`"key": value`).
fn statistic(json: &str, key: &str) -> Option<String> {
    let quoted = format!("\"{key}\": ");
    let at = json.find(&quoted)? + quoted.len();
    let rest = &json[at..];
    let end = rest.find([',', '\n', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// `verify` reads `.debug_names` and checks its entries against the DIEs:
/// an entry whose DIE offset is damaged is reported, as llvm-dwarfdump-19
/// reports it.
#[test]
fn name_index_entries_are_checked() {
    let (dir, build) = build_alone(Build {
        compiler: "clang-19",
        level: "-O2",
        kind: Kind::Executable,
        debug: Debug::Names,
    });
    let path = path_of(dir.path(), &build);
    assert!(dwarfsmith(&["verify", path.to_str().unwrap()])
        .status
        .success());
    let section = dir.path().join("names.bin");
    objcopy(
        &format!("--dump-section=.debug_names={}", section.display()),
        &path,
        None,
    );
    let mut bytes = std::fs::read(&section).unwrap();
    // The pool ends with the last entry (abbreviation, 4-byte DIE offset,
    // end of the name's entries) and two bytes of padding: the third byte of
    // that DIE offset makes it point past its unit.
    let at = bytes.len() - 6;
    bytes[at] = 0x7f;
    std::fs::write(&section, &bytes).unwrap();
    let damaged = dir.path().join("damaged");
    objcopy(
        &format!("--update-section=.debug_names={}", section.display()),
        &path,
        Some(&damaged),
    );
    let (llvm_ok, llvm_text) = support::dwarfdump_verify(&damaged);
    assert!(
        !llvm_ok && llvm_text.contains("references a non-existing DIE"),
        "{llvm_text}"
    );
    let verify = dwarfsmith(&["verify", damaged.to_str().unwrap()]);
    assert!(!verify.status.success());
    expect![[r#"
        DIR/damaged: .debug_names+0x140: classify (DW_TAG_subprogram, .debug_info+0x7f01f3): there is no DIE at offset 0x7f0027 of its unit
    "#]].assert_eq(
        &String::from_utf8_lossy(&verify.stdout).replace(dir.path().to_str().unwrap(), "DIR"),
    );
}

/// Cuts section `name` of `file` to its first half (written to `output`, or
/// in place).
fn cut_in_half(name: &str, file: &Path, output: Option<&Path>) {
    let dir = tempfile::tempdir().unwrap();
    let section = dir.path().join("section.bin");
    objcopy(
        &format!("--dump-section={name}={}", section.display()),
        file,
        None,
    );
    let bytes = std::fs::read(&section).unwrap();
    std::fs::write(&section, &bytes[..bytes.len() / 2]).unwrap();
    objcopy(
        &format!("--update-section={name}={}", section.display()),
        file,
        output,
    );
}

/// Runs `objcopy OPTION INPUT [OUTPUT]`.
fn objcopy(option: &str, input: &Path, output: Option<&Path>) {
    let out = run(Command::new("objcopy").arg(option).arg(input).args(output));
    assert!(out.status.success(), "{}", text(&out));
}

/// A linked program whose `.debug_info` is cut short is rejected by both.
#[test]
fn a_truncated_executable_is_rejected_by_both() {
    let (dir, build) = build_alone(Build {
        compiler: "gcc",
        level: "-O2",
        kind: Kind::Executable,
        debug: Debug::Plain,
    });
    let path = path_of(dir.path(), &build);
    let section = dir.path().join("info.bin");
    objcopy(
        &format!("--dump-section=.debug_info={}", section.display()),
        &path,
        None,
    );
    let bytes = std::fs::read(&section).unwrap();
    std::fs::write(&section, &bytes[..bytes.len() * 3 / 4]).unwrap();
    let cut = dir.path().join("cut");
    objcopy(
        &format!("--update-section=.debug_info={}", section.display()),
        &path,
        Some(&cut),
    );
    let llvm = run(Command::new(llvm_dwarfdump()).arg("--verify").arg(&cut));
    assert!(!llvm.status.success(), "{}", text(&llvm));
    let ours = dwarfsmith(&["verify", cut.to_str().unwrap()]);
    assert!(!ours.status.success());
    expect![[r#"
        CUT: malformed .debug_info: unexpected end of input
    "#]]
    .assert_eq(&String::from_utf8_lossy(&ours.stdout).replace(cut.to_str().unwrap(), "CUT"));
}

/// A stripped program's DWARF is read from its debug file, found through
/// `.gnu_debuglink` beside it or through its build id under `--debug-dir`:
/// `lines` prints the unstripped program's rows, `stats` its figures, and
/// `verify` and `verify --line-table` find nothing. Without the debug file
/// `verify` has no DWARF to check, and `verify --line-table` and `lines` no
/// line table, and each says so (exit status 1).
#[test]
fn separate_debug_files_are_found_by_link_and_build_id() {
    let (dir, build) = build_alone(Build {
        compiler: "gcc",
        level: "-O2",
        kind: Kind::Executable,
        debug: Debug::Plain,
    });
    let full = path_of(dir.path(), &build);
    let lines = |path: &Path, extra: &[&str]| {
        let mut args = vec!["lines", path.to_str().unwrap()];
        args.extend(extra);
        let out = dwarfsmith(&args);
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let unstripped = lines(&full, &[]);
    let (linked, by_id) = (dir.path().join("linked"), dir.path().join("by_id"));
    for stripped in [&linked, &by_id] {
        std::fs::copy(&full, stripped).unwrap();
        let debug = stripped.with_extension("debug");
        objcopy("--only-keep-debug", stripped, Some(&debug));
        let strip = run(Command::new("strip").arg("--strip-all").arg(stripped));
        assert!(strip.status.success(), "{}", text(&strip));
    }
    // By link: the debug file beside the program.
    let link = format!(
        "--add-gnu-debuglink={}",
        linked.with_extension("debug").display()
    );
    objcopy(&link, &linked, None);
    // By build id: DIR/.build-id/xx/rest.debug.
    let notes = text(&run(Command::new("readelf").arg("-n").arg(&by_id)));
    let id = notes
        .lines()
        .find_map(|l| l.trim().strip_prefix("Build ID: "))
        .expect("gcc links a build id");
    let store = dir.path().join("debug").join(".build-id").join(&id[..2]);
    std::fs::create_dir_all(&store).unwrap();
    std::fs::rename(
        by_id.with_extension("debug"),
        store.join(format!("{}.debug", &id[2..])),
    )
    .unwrap();
    let debug_dir = dir.path().join("debug");
    let with_dir = ["--debug-dir", debug_dir.to_str().unwrap()];
    // Without the debug file there is no line table: `lines` says so and
    // `verify --line-table` finds it, both exiting 1.
    let no_lines = dwarfsmith(&["lines", by_id.to_str().unwrap()]);
    assert_eq!(no_lines.status.code(), Some(1), "{}", text(&no_lines));
    assert!(no_lines.stdout.is_empty(), "{}", text(&no_lines));
    expect![[r#"
        BY_ID: error: no line table to list: no .debug_line section (the debug file of a stripped file is looked for through its build id and .gnu_debuglink, beside it and under --debug-dir)
    "#]]
    .assert_eq(&String::from_utf8_lossy(&no_lines.stderr).replace(by_id.to_str().unwrap(), "BY_ID"));
    let no_table = dwarfsmith(&["verify", "--line-table", by_id.to_str().unwrap()]);
    assert_eq!(no_table.status.code(), Some(1), "{}", text(&no_table));
    expect![[r#"
        - (-) line 0: no line table to check: no .debug_line section (the debug file of a stripped file is looked for through its build id and .gnu_debuglink, beside it and under --debug-dir)
        BY_ID: error: 1 line-table problem(s) found
    "#]]
    .assert_eq(&text(&no_table).replace(by_id.to_str().unwrap(), "BY_ID"));
    let no_dwarf = dwarfsmith(&["verify", by_id.to_str().unwrap()]);
    assert_eq!(no_dwarf.status.code(), Some(1), "{}", text(&no_dwarf));
    expect![[r#"
        BY_ID: no DWARF to check: no .debug_info section (the debug file of a stripped file is looked for through its build id and .gnu_debuglink, beside it and under --debug-dir)
    "#]]
    .assert_eq(&String::from_utf8_lossy(&no_dwarf.stdout).replace(by_id.to_str().unwrap(), "BY_ID"));
    let stats = |path: &Path, extra: &[&str]| {
        let mut args = vec!["stats", "--json", path.to_str().unwrap()];
        args.extend(extra);
        let out = dwarfsmith(&args);
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8_lossy(&out.stdout).replace(path.to_str().unwrap(), "FILE")
    };
    let unstripped_stats = stats(&full, &[]);
    assert!(statistic(&unstripped_stats, "#source variables").is_some_and(|v| v != "0"));
    assert_eq!(
        statistic(&stats(&by_id, &[]), "#source variables").as_deref(),
        Some("0"),
        "no variables without the debug file"
    );
    for (stripped, extra) in [(&linked, &[][..]), (&by_id, &with_dir[..])] {
        assert_eq!(lines(stripped, extra), unstripped, "{}", stripped.display());
        assert_eq!(
            stats(stripped, extra),
            unstripped_stats,
            "{}",
            stripped.display()
        );
        for check in [&["verify"][..], &["verify", "--line-table"][..]] {
            let mut args = check.to_vec();
            args.push(stripped.to_str().unwrap());
            args.extend(extra);
            let out = dwarfsmith(&args);
            assert!(out.status.success(), "{args:?}: {}", text(&out));
        }
    }
}

/// DWARF 4 type units (`-fdebug-types-section`, in `.debug_types`) are
/// checked: clean where llvm-dwarfdump-19 is, and one cut short rejected.
#[test]
fn type_units_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("binaries/type_units.cc");
    let mut verdicts = String::new();
    for compiler in ["g++", "clang++-19"] {
        let program = dir.path().join(compiler);
        let out = run(Command::new(compiler)
            .args(["-O2", "-g", "-gdwarf-4", "-fdebug-types-section"])
            .arg(&source)
            .arg("-o")
            .arg(&program));
        assert!(out.status.success(), "{compiler}: {}", text(&out));
        let sections = text(&run(Command::new("readelf").arg("-S").arg(&program)));
        assert!(sections.contains(".debug_types"), "{compiler}: {sections}");
        let llvm = run(Command::new(llvm_dwarfdump()).arg("--verify").arg(&program));
        let ours = dwarfsmith(&["verify", program.to_str().unwrap()]);
        if llvm.status.success() {
            assert!(ours.status.success(), "{compiler}: {}", text(&ours));
        }
        verdicts.push_str(&format!(
            "{compiler}: llvm {}, ours {}\n",
            if llvm.status.success() {
                "clean"
            } else {
                "errors"
            },
            if ours.status.success() {
                "clean"
            } else {
                "findings"
            }
        ));
        let types = dir.path().join(format!("{compiler}.types"));
        objcopy(
            &format!("--dump-section=.debug_types={}", types.display()),
            &program,
            None,
        );
        let bytes = std::fs::read(&types).unwrap();
        std::fs::write(&types, &bytes[..bytes.len() / 2]).unwrap();
        let cut = dir.path().join(format!("{compiler}.cut"));
        let update = format!("--update-section=.debug_types={}", types.display());
        objcopy(&update, &program, Some(&cut));
        let ours = dwarfsmith(&["verify", cut.to_str().unwrap()]);
        verdicts.push_str(
            &String::from_utf8_lossy(&ours.stdout).replace(dir.path().to_str().unwrap(), "DIR"),
        );
    }
    // g++'s error in llvm-dwarfdump-19's eyes: a location list entry with
    // DW_OP_GNU_implicit_pointer (0xf2), which it does not decode.
    expect![[r#"
        g++: llvm errors, ours clean
        DIR/g++.cut: malformed .debug_types: unexpected end of input
        clang++-19: llvm clean, ours clean
        DIR/clang++-19.cut: malformed .debug_types: unexpected end of input
    "#]]
    .assert_eq(&verdicts);
}
