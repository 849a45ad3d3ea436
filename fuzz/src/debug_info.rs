//! Random-program debug testing, after Li et al. (PLDI 2020), Di Luna et
//! al. (ASPLOS 2021) and Assaiante et al. (ASPLOS 2023).
//!
//! In: a C program (a csmith seed, or a file). Out: a [`ProgramReport`]:
//! for every [`Build`], its [`Outcome`] (the [`oracle`] figures, a
//! miscompile or a failure), and the [`Finding`]s against dwarfsmith.
//!
//! The oracle is the gcc -O0 -g build, with the values its clang-19 -O0
//! twin shows added (see [`crate::csmith::Program`]); a program is
//! discarded when it does not run there, or when the llc-19 build of its
//! clang-19 -O2 IR (that is clang-19 -O2) prints something else. Each program is built in three
//! [`Mode`]s, by dwarfsmith (in process, under `catch_unwind` and a time
//! limit) and by llc-19 from the same IR, and once by gcc -O2 -g; each
//! build is linked with gcc, run (a different output is a miscompile) and
//! walked under gdb against the oracle.
//!
//! Findings: a miscompile, a compile that fails (error, panic, time),
//! `-g` and `-g0` giving different code, and wrong values: every wrong value
//! in mode C (dwarfsmith's own optimiser on clang -O0 IR, where the IR
//! carries no optimiser's mistakes), and in modes A and B the wrong values
//! at a (function, line, variable) where llc-19 shows no wrong value from
//! the same IR at -O2 or -O0 (where it does, the IR itself is wrong).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};

use crate::csmith::{self, Program, Ran, CSMITH_INCLUDE};
use crate::oracle::{self, End, Figures, Reference, Walk, WalkOptions, WrongValue, UNASSIGNED};
use crate::record_in_effect::{
    ir_only_record, ir_record_before_assignment, ir_record_in_effect, ir_stale_record_in_effect,
};

/// The longest one dwarfsmith compile may take.
pub const COMPILE_LIMIT: Duration = Duration::from_secs(60);

/// Which IR goes in and how it is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// A: clang-19 -O2 -g IR, compiled at -O2 (llc-19 -O2).
    ClangO2,
    /// B: the same IR compiled at -O0 (llc-19 -O0).
    ClangO2AtO0,
    /// C: clang-19 -O0 -Xclang -disable-O0-optnone -g IR compiled at -O2
    /// (llc-19 -O2): dwarfsmith's own optimiser.
    ClangO0AtO2,
}

impl Mode {
    /// The three modes.
    pub const ALL: [Mode; 3] = [Mode::ClangO2, Mode::ClangO2AtO0, Mode::ClangO0AtO2];

    /// The mode's letter.
    pub fn letter(self) -> char {
        match self {
            Mode::ClangO2 => 'A',
            Mode::ClangO2AtO0 => 'B',
            Mode::ClangO0AtO2 => 'C',
        }
    }

    /// The mode of a letter.
    pub fn from_letter(letter: &str) -> Option<Mode> {
        Mode::ALL
            .into_iter()
            .find(|m| m.letter().to_string() == letter)
    }

    /// What the mode is, for the table's legend.
    pub fn describe(self) -> &'static str {
        match self {
            Mode::ClangO2 => "clang-19 -O2 -g IR, compiled at -O2",
            Mode::ClangO2AtO0 => "clang-19 -O2 -g IR, compiled at -O0",
            Mode::ClangO0AtO2 => "clang-19 -O0 -disable-O0-optnone -g IR, compiled at -O2",
        }
    }

    /// Whether the mode's IR is clang's -O2 IR.
    fn optimised_ir(self) -> bool {
        self != Mode::ClangO0AtO2
    }

    /// dwarfsmith's level.
    fn level(self) -> OptLevel {
        match self {
            Mode::ClangO2AtO0 => OptLevel::O0,
            Mode::ClangO2 | Mode::ClangO0AtO2 => OptLevel::O2,
        }
    }

    /// llc-19's level.
    fn llc_level(self) -> &'static str {
        match self {
            Mode::ClangO2AtO0 => "-O0",
            Mode::ClangO2 | Mode::ClangO0AtO2 => "-O2",
        }
    }
}

/// One build of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Build {
    /// dwarfsmith in a mode.
    Dwarfsmith(Mode),
    /// llc-19 from the same IR at the matching level.
    Llc(Mode),
    /// gcc -O2 -g from the source.
    GccO2,
}

impl Build {
    /// Every build, in the table's order.
    pub const ALL: [Build; 7] = [
        Build::Dwarfsmith(Mode::ClangO2),
        Build::Llc(Mode::ClangO2),
        Build::Dwarfsmith(Mode::ClangO2AtO0),
        Build::Llc(Mode::ClangO2AtO0),
        Build::Dwarfsmith(Mode::ClangO0AtO2),
        Build::Llc(Mode::ClangO0AtO2),
        Build::GccO2,
    ];

    /// `A dwarfsmith`, `B llc-19`, `gcc -O2`.
    pub fn name(self) -> String {
        match self {
            Build::Dwarfsmith(mode) => format!("{} dwarfsmith", mode.letter()),
            Build::Llc(mode) => format!("{} llc-19", mode.letter()),
            Build::GccO2 => "gcc -O2".to_string(),
        }
    }

    /// The build of a name.
    pub fn from_name(name: &str) -> Option<Build> {
        Build::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// What became of one build.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// It ran right and was walked.
    Judged(Figures),
    /// It printed something else than the oracle.
    Miscompile {
        /// What it printed (or how it failed).
        got: String,
    },
    /// It could not be built, run or walked.
    Failed(String),
}

/// What kind of finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// Another output than the oracle's.
    Miscompile,
    /// A compile error, panic or time-out.
    CompileFailure,
    /// `-g` and `-g0` give different code.
    CodeDependsOnDebugInfo,
    /// Wrong values (sorted; the first names the finding).
    WrongValues(Vec<WrongValue>),
    /// Variables (function, `name@line`) that a peer build lists (llc-19
    /// of the same mode or gcc -O2) and this build never does (sorted;
    /// the first names the finding).
    MissingVariables(Vec<(String, String)>),
}

/// Something wrong with a dwarfsmith build.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The build.
    pub build: Build,
    /// The kind.
    pub kind: FindingKind,
    /// What was seen.
    pub detail: String,
}

impl Finding {
    /// The finding as one word-like tag (`wrong:C:func_1:l_5`), which
    /// [`still_found`] takes to decide whether a reduced program keeps it.
    pub fn tag(&self) -> String {
        let letter = match self.build {
            Build::Dwarfsmith(mode) => mode.letter(),
            _ => '?',
        };
        match &self.kind {
            FindingKind::Miscompile => format!("miscompile:{letter}"),
            FindingKind::CompileFailure => format!("failure:{letter}"),
            FindingKind::CodeDependsOnDebugInfo => format!("g0:{letter}"),
            FindingKind::WrongValues(wrong) => match wrong.first() {
                Some(w) => format!("wrong:{letter}:{}:{}", w.function, w.variable),
                None => format!("wrong:{letter}"),
            },
            FindingKind::MissingVariables(missing) => match missing.first() {
                Some((function, variable)) => format!("missing:{letter}:{function}:{variable}"),
                None => format!("missing:{letter}"),
            },
        }
    }
}

/// Everything about one program.
#[derive(Clone, Debug)]
pub struct ProgramReport {
    /// Why it was discarded, if it was.
    pub discarded: Option<String>,
    /// Each build's outcome.
    pub builds: BTreeMap<Build, Outcome>,
    /// Its findings.
    pub findings: Vec<Finding>,
    /// Wrong values of dwarfsmith in modes A and B where llc-19 shows one
    /// too from the same IR (at either level), at the same function, line
    /// and variable (the IR's).
    pub shared_wrong: BTreeMap<Mode, usize>,
    /// Wrong values of dwarfsmith in modes A and B that llc-19 does not
    /// show but that the IR's own records carry (the IR's: clang's
    /// optimiser left them there), each with the IR line that carries it:
    /// a constant the record gives the variable ([`ir_constant_of`]), a
    /// register record that gives only values the variable never holds in
    /// the function ([`ir_record_never_held`]), the record in effect where
    /// the line's code runs ([`ir_record_in_effect`]), that record when no
    /// record of the variable describes its value there
    /// ([`ir_stale_record_in_effect`]), the record still in effect where
    /// the IR put the line's code before the assignment
    /// ([`ir_record_before_assignment`]), or the variable's only record
    /// ([`ir_only_record`]).
    pub ir_wrong: Vec<(Mode, WrongValue, String)>,
    /// Variables a peer build lists (see [`FindingKind::MissingVariables`])
    /// that dwarfsmith's build of a mode from clang -O2 IR misses and that
    /// the IR no longer declares (clang's optimiser dropped them; llc-19
    /// misses them too).
    pub ir_missing: Vec<(Mode, (String, String))>,
}

/// How to walk each build.
#[derive(Clone, Debug)]
pub struct Config {
    /// Stops per line in the builds' walks.
    pub max_hits_per_line: u32,
    /// Stops per address in the oracle's walks (which break on every row):
    /// more than the builds' per line, so that the oracle sees the values
    /// of every execution of a line a build's stops reach (a loop test
    /// stopped at after the increment is one iteration ahead).
    pub oracle_max_hits_per_line: u32,
    /// Stops per walk of a build.
    pub max_stops: u32,
    /// Stops per walk of the oracle: enough that its walk, bounded per
    /// address, ends with the program (a program whose oracle walk still
    /// reaches it is discarded: a build's walk, with fewer stops per line,
    /// gets further, and its later values would be judged against none).
    pub oracle_max_stops: u32,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_hits_per_line: 5,
            oracle_max_hits_per_line: 12,
            max_stops: 3_000,
            oracle_max_stops: 20_000,
        }
    }
}

/// A compiled object or why there is none.
fn dwarfsmith_object(
    ll: &str,
    name: &str,
    mode: Mode,
    debug_info: bool,
) -> Result<Vec<u8>, String> {
    let text = ll.to_string();
    let name = name.to_string();
    let options = CompileOptions {
        opt_level: mode.level(),
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    };
    let (sender, receiver) = mpsc::channel();
    // A compile that never ends cannot be stopped: its thread is left
    // behind and the finding is reported.
    std::thread::spawn(move || {
        let result = catch_unwind(AssertUnwindSafe(|| {
            dwarfsmith::compile(&text, &name, &options)
        }));
        let _ = sender.send(result);
    });
    match receiver.recv_timeout(COMPILE_LIMIT) {
        Ok(Ok(Ok(bytes))) => Ok(bytes),
        Ok(Ok(Err(diagnostic))) => Err(format!("compile error: {diagnostic}")),
        Ok(Err(payload)) => Err(format!("panicked: {}", crate::panic_message(&*payload))),
        Err(_) => Err(format!("compile ran past {COMPILE_LIMIT:?}")),
    }
}

/// Whether two objects hold the same functions, code and relocations.
fn same_code(with_debug: &[u8], without: &[u8]) -> Result<bool, String> {
    let read = |bytes| dwarfsmith_emit::read::read(bytes).map_err(|e| e.to_string());
    let (a, b) = (read(with_debug)?, read(without)?);
    let code = |m: &dwarfsmith_emit::model::ObjectModel| {
        m.functions
            .iter()
            .map(|f| (f.name.clone(), f.code.clone(), f.relocations.clone()))
            .collect::<Vec<_>>()
    };
    Ok(code(&a) == code(&b))
}

fn os(s: &str) -> &std::ffi::OsStr {
    s.as_ref()
}

/// The IR of one mode, made once per program.
struct Ir {
    path: PathBuf,
    text: String,
}

fn clang_ir(program: &Program, dir: &Path, optimised: bool) -> Result<Ir, String> {
    let path = dir.join(if optimised { "O2.ll" } else { "O0.ll" });
    let mut args = vec![
        os("-g"),
        os("-w"),
        os(CSMITH_INCLUDE),
        os("-S"),
        os("-emit-llvm"),
    ];
    if optimised {
        args.push(os("-O2"));
    } else {
        args.extend([os("-O0"), os("-Xclang"), os("-disable-O0-optnone")]);
    }
    args.extend([program.source.as_os_str(), os("-o"), path.as_os_str()]);
    csmith::build("clang-19", &args, dir)?;
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(Ir { path, text })
}

/// Builds `build` into an executable in `dir`; a dwarfsmith build also
/// says whether `-g0` gives the same code.
fn executable(
    build: Build,
    program: &Program,
    ir: &BTreeMap<bool, Ir>,
    dir: &Path,
    findings: &mut Vec<Finding>,
) -> Result<PathBuf, String> {
    let name = build.name().replace([' ', '-'], "_");
    let exe = dir.join(&name);
    let object = dir.join(format!("{name}.o"));
    let link =
        |object: &Path| csmith::build("gcc", &[object.as_os_str(), os("-o"), exe.as_os_str()], dir);
    match build {
        Build::Dwarfsmith(mode) => {
            let ir = &ir[&mode.optimised_ir()];
            let file = ir.path.file_name().unwrap_or_default().to_string_lossy();
            let bytes = match dwarfsmith_object(&ir.text, &file, mode, true) {
                Ok(bytes) => bytes,
                Err(why) => {
                    findings.push(Finding {
                        build,
                        kind: FindingKind::CompileFailure,
                        detail: why.clone(),
                    });
                    return Err(why);
                }
            };
            let without = dwarfsmith_object(&ir.text, &file, mode, false)
                .map_err(|why| format!("-g0: {why}"))?;
            if !same_code(&bytes, &without)? {
                findings.push(Finding {
                    build,
                    kind: FindingKind::CodeDependsOnDebugInfo,
                    detail: "-g and -g0 give different code".into(),
                });
            }
            std::fs::write(&object, bytes).map_err(|e| e.to_string())?;
            link(&object)?;
        }
        Build::Llc(mode) => {
            let ir = &ir[&mode.optimised_ir()];
            csmith::build(
                "llc-19",
                &[
                    os(mode.llc_level()),
                    os("-filetype=obj"),
                    os("-relocation-model=pic"),
                    ir.path.as_os_str(),
                    os("-o"),
                    object.as_os_str(),
                ],
                dir,
            )?;
            link(&object)?;
        }
        Build::GccO2 => csmith::build(
            "gcc",
            &[
                os("-O2"),
                os("-g"),
                os("-w"),
                os(CSMITH_INCLUDE),
                program.source.as_os_str(),
                os("-o"),
                exe.as_os_str(),
            ],
            dir,
        )?,
    }
    Ok(exe)
}

/// Builds, runs and walks `builds` of the C program `source` (in `dir`,
/// which it fills), against its oracle.
pub fn judge_program(
    source: &Path,
    dir: &Path,
    builds: &[Build],
    config: &Config,
) -> Result<ProgramReport, String> {
    let mut report = ProgramReport {
        discarded: None,
        builds: BTreeMap::new(),
        findings: Vec::new(),
        shared_wrong: BTreeMap::new(),
        ir_wrong: Vec::new(),
        ir_missing: Vec::new(),
    };
    let program = match Program::prepare(source, dir)? {
        Ok(program) => program,
        Err(why) => {
            report.discarded = Some(why);
            return Ok(report);
        }
    };
    let mut ir = BTreeMap::new();
    for optimised in [true, false] {
        match clang_ir(&program, dir, optimised) {
            Ok(made) => ir.insert(optimised, made),
            Err(why) => {
                report.discarded = Some(format!("clang-19 does not build it: {why}"));
                return Ok(report);
            }
        };
    }
    // clang-19 -O2 must agree with gcc -O0, or the program's behaviour is
    // undefined somewhere.
    let clang = executable(
        Build::Llc(Mode::ClangO2),
        &program,
        &ir,
        dir,
        &mut Vec::new(),
    );
    match clang.map(|exe| csmith::run(&exe)) {
        Ok(Ok(Ran::Output(output))) if output == program.output => {}
        other => {
            report.discarded = Some(format!("clang-19 -O2 differs from gcc -O0: {other:?}"));
            return Ok(report);
        }
    }
    let options = WalkOptions {
        max_hits_per_line: config.max_hits_per_line,
        max_stops: config.max_stops,
        ..WalkOptions::new(program.functions.clone())
    };
    let every_row = WalkOptions {
        every_row: true,
        max_hits_per_line: config.oracle_max_hits_per_line,
        max_stops: config.oracle_max_stops,
        ..options.clone()
    };
    let gcc_walk = oracle::walk(&program.oracle, &every_row)?;
    let clang_walk = oracle::walk(&program.clang_oracle, &every_row)?;
    for walk in [&gcc_walk, &clang_walk] {
        let why = match &walk.end {
            End::Error(why) => format!("gdb cannot walk an -O0 build: {why}"),
            End::StopLimit | End::TimedOut => {
                format!(
                    "the walk of an -O0 build ends before the program ({:?})",
                    walk.end
                )
            }
            End::Exited => continue,
        };
        report.discarded = Some(why);
        return Ok(report);
    }
    let mut reference = Reference::new(&gcc_walk);
    reference.add_values(&clang_walk);
    for &build in builds {
        let outcome = match executable(build, &program, &ir, dir, &mut report.findings) {
            Err(why) => Outcome::Failed(why),
            Ok(exe) => match csmith::run(&exe)? {
                Ran::Output(output) if output == program.output => {
                    match oracle::walk(&exe, &options) {
                        Ok(Walk {
                            end: End::Error(why),
                            ..
                        }) => Outcome::Failed(format!("gdb cannot walk it: {why}")),
                        Ok(walk) => Outcome::Judged(oracle::judge(&reference, &walk)),
                        Err(why) => Outcome::Failed(why),
                    }
                }
                ran => Outcome::Miscompile {
                    got: format!("{ran:?}"),
                },
            },
        };
        if let (Build::Dwarfsmith(_), Outcome::Miscompile { got }) = (build, &outcome) {
            report.findings.push(Finding {
                build,
                kind: FindingKind::Miscompile,
                detail: format!("gcc -O0 prints {:?}, this build {got}", program.output),
            });
        }
        report.builds.insert(build, outcome);
    }
    for mode in Mode::ALL {
        let Some(Outcome::Judged(ours)) = report.builds.get(&Build::Dwarfsmith(mode)) else {
            continue;
        };
        // llc-19's wrong values from the same IR, at either level.
        let same_ir = Mode::ALL
            .into_iter()
            .filter(|m| mode.optimised_ir() && m.optimised_ir());
        let llc_wrong: Vec<&WrongValue> = same_ir
            .filter_map(|m| match report.builds.get(&Build::Llc(m)) {
                Some(Outcome::Judged(llc)) => Some(llc.wrong.iter()),
                _ => None,
            })
            .flatten()
            .collect();
        let (shared, own): (Vec<&WrongValue>, Vec<&WrongValue>) =
            ours.wrong.iter().partition(|w| {
                llc_wrong.iter().any(|l| {
                    (&l.function, l.line, &l.variable) == (&w.function, w.line, &w.variable)
                })
            });
        let mut own_values = Vec::new();
        for wrong in own {
            match ir
                .get(&true)
                .filter(|_| mode.optimised_ir())
                .and_then(|ir| {
                    let held = reference.held_in_function(&wrong.function, &wrong.variable);
                    ir_constant_of(&ir.text, &wrong.variable, &wrong.shown)
                        .or_else(|| {
                            ir_record_never_held(&ir.text, &wrong.variable, &wrong.shown, &held)
                        })
                        .or_else(|| {
                            ir_record_in_effect(&ir.text, wrong.line, &wrong.variable, &wrong.shown)
                        })
                        .or_else(|| {
                            ir_stale_record_in_effect(
                                &ir.text,
                                wrong.line,
                                &wrong.variable,
                                &wrong.shown,
                                &wrong.held,
                                &held,
                            )
                        })
                        .or_else(|| {
                            let before =
                                reference.held_before(&wrong.function, wrong.line, &wrong.variable);
                            ir_record_before_assignment(
                                &ir.text,
                                wrong.line,
                                &wrong.variable,
                                &wrong.shown,
                                &wrong.held,
                                &before,
                            )
                        })
                        .or_else(|| ir_only_record(&ir.text, &wrong.variable, &wrong.shown, &held))
                })
                .map(str::to_string)
            {
                Some(carrier) => report.ir_wrong.push((mode, wrong.clone(), carrier)),
                None => own_values.push(wrong),
            }
        }
        let own = own_values;
        if mode.optimised_ir() {
            report.shared_wrong.insert(mode, shared.len());
        }
        if !own.is_empty() {
            report.findings.push(Finding {
                build: Build::Dwarfsmith(mode),
                detail: own.iter().map(|w| format!("{w}\n")).collect(),
                kind: FindingKind::WrongValues(own.into_iter().cloned().collect()),
            });
        }
        let listed_by_peer: Vec<&(String, String)> = ours
            .missing
            .iter()
            .filter(|pair| {
                [Build::Llc(mode), Build::GccO2].iter().any(|peer| {
                    matches!(report.builds.get(peer),
                        Some(Outcome::Judged(theirs)) if !theirs.missing.contains(pair))
                })
            })
            .collect();
        let mut own_missing = Vec::new();
        for pair in listed_by_peer {
            match ir.get(&true).filter(|_| mode.optimised_ir()) {
                Some(ir) if !declares(&ir.text, &pair.1) => {
                    report.ir_missing.push((mode, pair.clone()))
                }
                _ => own_missing.push(pair.clone()),
            }
        }
        if !own_missing.is_empty() {
            report.findings.push(Finding {
                build: Build::Dwarfsmith(mode),
                detail: own_missing
                    .iter()
                    .map(|(function, variable)| {
                        format!(
                            "{function}: {variable} is never listed; llc-19 or gcc -O2 lists it\n"
                        )
                    })
                    .collect(),
                kind: FindingKind::MissingVariables(own_missing),
            });
        }
    }
    Ok(report)
}

/// Whether the IR declares a local variable `variable` (`name@line`).
fn declares(ir: &str, variable: &str) -> bool {
    !declaration_ids(ir, variable).is_empty()
}

/// The metadata ids (`!282`) of the IR's `DILocalVariable`s with the name
/// and declaration line of `variable` (`name@line`).
pub(crate) fn declaration_ids<'t>(ir: &'t str, variable: &str) -> Vec<&'t str> {
    let Some((name, line)) = variable.split_once('@') else {
        return Vec::new();
    };
    let declared = format!("!DILocalVariable(name: \"{name}\", ");
    let line_field = format!(" line: {line},");
    ir.lines()
        .filter(|l| l.contains(&declared) && l.contains(&line_field))
        .filter_map(|l| l.split_once(" = ").map(|(id, _)| id))
        .collect()
}

/// The IR's `#dbg_value` or `#dbg_assign` line that gives the variable
/// `variable` (`name@line`, see [`crate::oracle::walk::Shown::variable`])
/// the integer constant gdb shows as `shown` (in two's complement at the
/// constant's width too: `i64 -2` shows as 18446744073709551614 in an
/// unsigned variable), directly or through an expression of constant
/// arithmetic (`i32 0` with `DW_OP_constu 1, DW_OP_minus`: clang's loop
/// deletion leaves a counter's first decrement of a loop that ran on);
/// `None` when there is none. (A `#dbg_assign` of a constant whose store was deleted says the
/// variable holds the constant, as a `#dbg_value` does; `ptr null` is the
/// constant gdb shows as `NULL`, `i1 false` and `i1 true` are 0 and 1, and
/// a char's number is compared.)
pub fn ir_constant_of<'t>(ir: &'t str, variable: &str, shown: &str) -> Option<&'t str> {
    let shown = shown_number(shown)?;
    let ids = declaration_ids(ir, variable);
    ir.lines().find(|l| {
        let Some((operand, id, expression)) = record_fields(l) else {
            return false;
        };
        let (width, value) = match operand.split_once(' ') {
            Some(("ptr", "null")) => (64, 0),
            Some(("i1", "false")) => (1, 0),
            Some(("i1", "true")) => (1, 1),
            Some((width, value)) => match (width.strip_prefix('i'), value.parse::<i128>()) {
                (Some(width), Ok(value)) => match width.parse::<u32>() {
                    Ok(width) => (width, value),
                    Err(_) => return false,
                },
                _ => return false,
            },
            None => return false,
        };
        let Some((value, width)) = evaluate_constant_expression(value, width, expression) else {
            return false;
        };
        let unsigned = (width < 128).then(|| value.rem_euclid(1i128 << width));
        ids.contains(&id) && (value == shown || unsigned == Some(shown))
    })
}

/// The number gdb shows as `shown`: a null pointer is `NULL`, a char has
/// its character after the number (`120 'x'`).
pub(crate) fn shown_number(shown: &str) -> Option<i128> {
    match shown {
        "NULL" => Some(0),
        _ => shown.split(' ').next()?.parse().ok(),
    }
}

/// The operand (`i32 %5`, `i64 -2`), variable id (`!394`) and expression
/// operations of an IR line that is a `#dbg_value` or `#dbg_assign`
/// record.
fn record_fields(line: &str) -> Option<(&str, &str, &str)> {
    let record = line.trim();
    let call = record
        .strip_prefix("#dbg_value(")
        .or_else(|| record.strip_prefix("#dbg_assign("))?;
    let mut fields = call.splitn(3, ", ");
    let (operand, id, rest) = (fields.next()?, fields.next()?, fields.next()?);
    let expression = rest
        .strip_prefix("!DIExpression(")
        .and_then(|ops| ops.split_once(')'))
        .map(|(ops, _)| ops)?;
    Some((operand, id, expression))
}

/// The IR's `#dbg_value` of a register that can only give the variable
/// `variable` (`name@line`) values that `shown` fits and that none of
/// `held` (every value the oracle's variable held in the function) fits,
/// judged by the bits the record's expression fixes ([`known_bits`]); `None`
/// when there is none. Such a record is clang's own wrong record, wherever
/// a build shows it: a 32-bit `l_32 |= (uint16_t)x` whose salvaged record
/// is `zext(x) | 98`, the source's constant being 0xB47DC462.
pub fn ir_record_never_held<'t>(
    ir: &'t str,
    variable: &str,
    shown: &str,
    held: &[String],
) -> Option<&'t str> {
    let shown = shown_number(shown)?;
    // A local not assigned yet holds no value to compare.
    let held: Vec<i128> = held
        .iter()
        .filter(|h| *h != UNASSIGNED)
        .map(|h| shown_number(h))
        .collect::<Option<_>>()?;
    if held.is_empty() {
        return None;
    }
    let ids = declaration_ids(ir, variable);
    ir.lines().find(|l| {
        let Some((operand, id, expression)) = record_fields(l) else {
            return false;
        };
        let Some(width) = operand
            .split_once(" %")
            .and_then(|(ty, _)| ty.strip_prefix('i')?.parse::<u32>().ok())
        else {
            return false;
        };
        let Some(bits) = known_bits(width, expression) else {
            return false;
        };
        ids.contains(&id) && bits.fits(shown) && !held.iter().any(|&v| bits.fits(v))
    })
}

/// The bits of a debug expression's result that are the same for every
/// value of its one register operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct KnownBits {
    /// The result's width.
    width: u32,
    /// Bits always 0.
    zeros: u128,
    /// Bits always 1.
    ones: u128,
}

impl KnownBits {
    /// Whether the value `value` (as gdb shows it: signed or unsigned) can
    /// be the result.
    pub(crate) fn fits(&self, value: i128) -> bool {
        let unsigned = value.rem_euclid(1i128 << self.width) as u128;
        unsigned & self.zeros == 0 && unsigned & self.ones == self.ones
    }
}

/// [`KnownBits`] of a debug expression (`DW_OP_LLVM_convert, 16,
/// DW_ATE_unsigned, DW_OP_LLVM_convert, 32, DW_ATE_unsigned, DW_OP_constu,
/// 98, DW_OP_or, DW_OP_stack_value`) over a register of `width` bits;
/// `None` for an operation other than conversions and bitwise operations
/// with a constant.
pub(crate) fn known_bits(width: u32, expression: &str) -> Option<KnownBits> {
    let mask = |bits: u32| -> u128 { (1u128 << bits.min(127)) - 1 };
    let mut bits = KnownBits {
        width: width.min(64),
        zeros: 0,
        ones: 0,
    };
    let mut ops = expression.split(", ").filter(|op| !op.is_empty());
    while let Some(op) = ops.next() {
        match op {
            "DW_OP_stack_value" => {}
            "DW_OP_LLVM_convert" => {
                let to: u32 = ops.next()?.parse().ok()?;
                let signed = ops.next()? == "DW_ATE_signed";
                let to = to.min(64);
                if to > bits.width && !signed {
                    bits.zeros |= mask(to) & !mask(bits.width);
                } else if to > bits.width {
                    // The sign bit, unknown or known, fills the new bits.
                    let sign = 1u128 << (bits.width - 1);
                    let upper = mask(to) & !mask(bits.width);
                    if bits.zeros & sign != 0 {
                        bits.zeros |= upper;
                    } else if bits.ones & sign != 0 {
                        bits.ones |= upper;
                    }
                }
                bits.width = to;
                bits.zeros &= mask(to);
                bits.ones &= mask(to);
            }
            "DW_OP_constu" => {
                let constant = ops.next()?.parse::<u128>().ok()? & mask(bits.width);
                match ops.next()? {
                    "DW_OP_or" => {
                        bits.ones |= constant;
                        bits.zeros &= !constant;
                    }
                    "DW_OP_and" => {
                        bits.zeros |= mask(bits.width) & !constant;
                        bits.ones &= constant;
                    }
                    "DW_OP_xor" => {
                        let (zeros, ones) = (bits.zeros, bits.ones);
                        bits.zeros = (zeros & !constant) | (ones & constant);
                        bits.ones = (ones & !constant) | (zeros & constant);
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(bits)
}

/// The value of a debug expression (its operations as the IR writes them,
/// `DW_OP_constu, 1, DW_OP_minus, DW_OP_stack_value`) over the constant
/// `value` of `width` bits, with the width of the result; `None` for an
/// operation other than constant integer arithmetic.
fn evaluate_constant_expression(value: i128, width: u32, expression: &str) -> Option<(i128, u32)> {
    let wrap = |v: i128, bits: u32| -> i128 {
        if bits >= 128 {
            return v;
        }
        let unsigned = v.rem_euclid(1i128 << bits);
        if unsigned >= 1i128 << (bits - 1) {
            unsigned - (1i128 << bits)
        } else {
            unsigned
        }
    };
    let mut stack = vec![value];
    let mut width = width;
    let mut ops = expression.split(", ").filter(|op| !op.is_empty());
    let number = |ops: &mut dyn Iterator<Item = &str>| ops.next()?.parse::<i128>().ok();
    while let Some(op) = ops.next() {
        match op {
            "DW_OP_stack_value" => {}
            "DW_OP_constu" | "DW_OP_consts" => stack.push(number(&mut ops)?),
            "DW_OP_plus_uconst" => {
                let n = number(&mut ops)?;
                *stack.last_mut()? += n;
            }
            "DW_OP_neg" => *stack.last_mut()? = -*stack.last()?,
            "DW_OP_not" => *stack.last_mut()? = !*stack.last()?,
            "DW_OP_LLVM_convert" => {
                width = u32::try_from(number(&mut ops)?).ok()?;
                let signed = ops.next()? == "DW_ATE_signed";
                let top = stack.last_mut()?;
                *top = if signed {
                    wrap(*top, width)
                } else {
                    top.rem_euclid(1i128 << width.min(127))
                };
            }
            "DW_OP_plus" | "DW_OP_minus" | "DW_OP_mul" | "DW_OP_and" | "DW_OP_or" | "DW_OP_xor" => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                stack.push(match op {
                    "DW_OP_plus" => a + b,
                    "DW_OP_minus" => a - b,
                    "DW_OP_mul" => a.checked_mul(b)?,
                    "DW_OP_and" => a & b,
                    "DW_OP_or" => a | b,
                    _ => a ^ b,
                });
            }
            // Shifts act on DWARF's generic type, 64 bits wide, whatever
            // the operand's width (csmith 227563: clang's salvage of a
            // 32-bit `ashr (shl x, 16), 16` as `DW_OP_constu 16, DW_OP_shl,
            // DW_OP_constu 16, DW_OP_shra` leaves 0x5021C3A2 as it is).
            "DW_OP_shl" | "DW_OP_shr" | "DW_OP_shra" => {
                let b = u32::try_from(stack.pop()?).ok().filter(|&b| b < 64)?;
                let a = stack.pop()? as u64;
                stack.push(match op {
                    "DW_OP_shl" => i128::from(a << b),
                    "DW_OP_shr" => i128::from(a >> b),
                    _ => i128::from((a as i64) >> b),
                });
            }
            _ => return None,
        }
    }
    match stack[..] {
        [result] => Some((wrap(result, width), width)),
        _ => None,
    }
}

/// Whether the C program `source` still shows the finding `tag` (see
/// [`Finding::tag`]): the interestingness test of a reduction.
pub fn still_found(source: &Path, tag: &str, config: &Config) -> Result<bool, String> {
    let parts: Vec<&str> = tag.split(':').collect();
    let mode = parts
        .get(1)
        .and_then(|letter| Mode::from_letter(letter))
        .ok_or_else(|| format!("not a finding tag: {tag}"))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = dir.path().join("program.c");
    std::fs::copy(source, &copy).map_err(|e| e.to_string())?;
    // llc-19's builds decide only whether a wrong value from clang -O2 IR
    // is the IR's.
    let mut builds = vec![Build::Dwarfsmith(mode)];
    if mode.optimised_ir() {
        builds.extend([Build::Llc(Mode::ClangO2), Build::Llc(Mode::ClangO2AtO0)]);
    }
    // A missing variable is one a peer lists.
    if parts[0] == "missing" {
        for peer in [Build::Llc(mode), Build::GccO2] {
            if !builds.contains(&peer) {
                builds.push(peer);
            }
        }
    }
    let report = judge_program(&copy, dir.path(), &builds, config)?;
    // A wrong value keeps the finding when any wrong value of a variable
    // of the same function and name remains (a reduction moves its
    // declaration line).
    let name = |variable: &str| variable.split('@').next().unwrap_or_default().to_string();
    let wanted = (parts.get(2).copied(), parts.get(3).map(|v| name(v)));
    Ok(report.findings.iter().any(|f| match &f.kind {
        FindingKind::WrongValues(wrong) => wrong.iter().any(|w| {
            parts[0] == "wrong" && wanted == (Some(w.function.as_str()), Some(name(&w.variable)))
        }),
        FindingKind::MissingVariables(missing) => missing.iter().any(|(function, variable)| {
            parts[0] == "missing" && wanted == (Some(function.as_str()), Some(name(variable)))
        }),
        _ => f.tag() == tag,
    }))
}

/// The figures of many programs, per build.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    /// Programs tried.
    pub programs: usize,
    /// Programs discarded.
    pub discarded: usize,
    /// Per build: programs judged, summed figures, lines stopped at
    /// (summed over programs), lines llc-19 of the same mode stops at that
    /// the build never does, miscompiles, failures.
    pub per_build: BTreeMap<Build, BuildTotals>,
    /// Wrong values dwarfsmith shares with llc-19 (modes A and B).
    pub shared_wrong: BTreeMap<Mode, usize>,
    /// Further wrong values of dwarfsmith that the IR's own records carry
    /// (modes A and B; see [`ProgramReport::ir_wrong`]).
    pub ir_wrong: BTreeMap<Mode, usize>,
    /// Variables dwarfsmith misses that a peer build lists (llc-19 of the
    /// same mode or gcc -O2), per mode: the IR's (no longer declared in
    /// clang -O2 IR) and its own.
    pub missing_listed_by_peer: BTreeMap<Mode, (usize, usize)>,
}

/// One build's totals.
#[derive(Clone, Debug, Default)]
pub struct BuildTotals {
    /// Programs walked.
    pub judged: usize,
    /// The figures summed.
    pub figures: Figures,
    /// Distinct lines stopped at, summed over programs.
    pub lines: usize,
    /// Lines llc-19 (same mode; mode C's for gcc -O2) stopped at that
    /// this build did not, summed over programs walked by both.
    pub lines_missed: usize,
    /// Miscompiles.
    pub miscompiles: usize,
    /// Builds that failed.
    pub failures: usize,
}

impl Totals {
    /// Adds one program's report.
    pub fn add(&mut self, report: &ProgramReport) {
        self.programs += 1;
        if report.discarded.is_some() {
            self.discarded += 1;
            return;
        }
        for (mode, n) in &report.shared_wrong {
            *self.shared_wrong.entry(*mode).or_default() += n;
        }
        for (mode, _, _) in &report.ir_wrong {
            *self.ir_wrong.entry(*mode).or_default() += 1;
        }
        for (mode, _) in &report.ir_missing {
            self.missing_listed_by_peer.entry(*mode).or_default().0 += 1;
        }
        for finding in &report.findings {
            if let (Build::Dwarfsmith(mode), FindingKind::MissingVariables(own)) =
                (finding.build, &finding.kind)
            {
                self.missing_listed_by_peer.entry(mode).or_default().1 += own.len();
            }
        }
        for (build, outcome) in &report.builds {
            let totals = self.per_build.entry(*build).or_default();
            match outcome {
                Outcome::Judged(figures) => {
                    totals.judged += 1;
                    totals.figures.add(figures);
                    totals.lines += figures.lines.len();
                    let baseline = match build {
                        Build::Dwarfsmith(mode) => Some(Build::Llc(*mode)),
                        Build::GccO2 => Some(Build::Llc(Mode::ClangO0AtO2)),
                        Build::Llc(_) => None,
                    };
                    if let Some(Outcome::Judged(llc)) = baseline.and_then(|b| report.builds.get(&b))
                    {
                        totals.lines_missed += figures.lines_missed(llc).len();
                    }
                }
                Outcome::Miscompile { .. } => totals.miscompiles += 1,
                Outcome::Failed(_) => totals.failures += 1,
            }
        }
    }

    /// The table: one row per build.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{} programs, {} discarded (gcc -O0 and clang-19 -O2 disagree, or time out)\n",
            self.programs, self.discarded
        );
        out += &format!(
            "{:<14} {:>5} {:>7} {:>6} {:>15} {:>8} {:>6} {:>7} {:>6} {:>6} {:>6} {:>6} {:>5}\n",
            "build",
            "walks",
            "stops",
            "avail",
            "shown/expected",
            "distinct",
            "wrong",
            "missing",
            "lines",
            "missed",
            "steps",
            "miscmp",
            "fail"
        );
        for build in Build::ALL {
            let Some(t) = self.per_build.get(&build) else {
                continue;
            };
            let f = &t.figures;
            out += &format!(
                "{:<14} {:>5} {:>7} {:>6.3} {:>15} {:>8} {:>6} {:>7} {:>6} {:>6} {:>6.3} {:>6} {:>5}\n",
                build.name(),
                t.judged,
                f.stops,
                f.availability(),
                format!("{}/{}", f.available, f.expected),
                f.distinct_values,
                f.wrong.len(),
                f.missing.len(),
                t.lines,
                t.lines_missed,
                f.stepping_order(),
                t.miscompiles,
                t.failures
            );
        }
        for (mode, n) in &self.shared_wrong {
            out += &format!(
                "{} dwarfsmith: {n} of its wrong values are llc-19's too (the IR's)\n",
                mode.letter()
            );
        }
        for (mode, n) in &self.ir_wrong {
            out += &format!(
                "{} dwarfsmith: {n} more are the IR's own records, a constant or values the variable never holds (the IR's)\n",
                mode.letter()
            );
        }
        for (mode, (of_ir, own)) in &self.missing_listed_by_peer {
            out += &format!(
                "{} dwarfsmith: {own} missing variables llc-19 or gcc -O2 lists (and {of_ir} the IR no longer declares)\n",
                mode.letter()
            );
        }
        out += "modes: ";
        out += &Mode::ALL
            .iter()
            .map(|m| format!("{} = {}", m.letter(), m.describe()))
            .collect::<Vec<_>>()
            .join("; ");
        out += "\nmissed: lines llc-19 of the mode stops at that the build never does (gcc -O2: against C llc-19)\n";
        out
    }

    /// The figures the ratchet keeps for a build: higher is better except
    /// for `wrong` and `missing` (see [`crate::ratchet`]). A dwarfsmith
    /// build's `wrong` is its own: in modes A and B, values llc-19 also
    /// shows from the same IR and constants the IR's own records carry are
    /// the IR's (the criterion), not counted.
    pub fn ratchet_figures(&self, build: Build) -> Vec<(&'static str, f64)> {
        let Some(t) = self.per_build.get(&build) else {
            return Vec::new();
        };
        let the_irs = match build {
            Build::Dwarfsmith(mode) => {
                self.shared_wrong.get(&mode).copied().unwrap_or(0)
                    + self.ir_wrong.get(&mode).copied().unwrap_or(0)
            }
            _ => 0,
        };
        vec![
            ("availability", t.figures.availability()),
            ("distinct_values", t.figures.distinct_values as f64),
            ("stepping_order", t.figures.stepping_order()),
            ("lines", t.lines as f64),
            (
                "wrong",
                t.figures.wrong.len().saturating_sub(the_irs) as f64,
            ),
            ("missing", t.figures.missing.len() as f64),
        ]
    }
}

/// A run over consecutive csmith seeds.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The first seed; program `i` is csmith's program for `seed + i`.
    pub seed: u64,
    /// How many seeds.
    pub programs: u64,
    /// Programs judged at once.
    pub jobs: usize,
    /// Where reproducers of findings go (none written when `None`).
    pub out: Option<PathBuf>,
    /// Reduce each reproducer with cvise, whose interestingness script runs
    /// this `dwarfsmith-fuzz` executable's `--still-found`.
    pub reduce_with: Option<PathBuf>,
    /// The walks' bounds.
    pub config: Config,
}

/// Runs every program of `options` (`progress` hears of each as it ends)
/// and gives the totals and the findings with their seeds, in seed order.
pub fn run(
    options: &RunOptions,
    progress: impl Fn(u64, &ProgramReport) + Sync,
) -> Result<(Totals, Vec<(u64, Finding)>), String> {
    let next = std::sync::atomic::AtomicU64::new(options.seed);
    let end = options.seed + options.programs;
    let results = std::sync::Mutex::new(Vec::new());
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| loop {
                let seed = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if seed >= end {
                    break;
                }
                let result = one_program(seed, options);
                if let Ok(report) = &result {
                    progress(seed, report);
                }
                let failed = result.is_err();
                if let Ok(mut results) = results.lock() {
                    results.push((seed, result));
                }
                if failed {
                    // The tools are missing or broken: stop early.
                    next.store(end, std::sync::atomic::Ordering::SeqCst);
                }
            });
        }
    });
    std::panic::set_hook(previous_hook);
    let mut results = results.into_inner().map_err(|e| e.to_string())?;
    results.sort_by_key(|(seed, _)| *seed);
    let mut totals = Totals::default();
    let mut findings = Vec::new();
    for (seed, result) in results {
        let report = result.map_err(|e| format!("seed {seed}: {e}"))?;
        totals.add(&report);
        findings.extend(report.findings.into_iter().map(|f| (seed, f)));
    }
    Ok((totals, findings))
}

fn one_program(seed: u64, options: &RunOptions) -> Result<ProgramReport, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let source = csmith::write(seed, dir.path())?;
    let report = judge_program(&source, dir.path(), &Build::ALL, &options.config)?;
    if let Some(out) = &options.out {
        for finding in &report.findings {
            crate::reproducer::write(out, seed, &source, finding, options.reduce_with.as_deref())?;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_wrong_value_the_irs_own_constant_gives_is_found_with_its_line() {
        let ir = "  #dbg_value(i64 -2, !394, !DIExpression(), !561)\n\
                  \x20 #dbg_value(i32 7, !12, !DIExpression(DW_OP_plus_uconst, 1, DW_OP_stack_value), !5)\n\
                  !394 = !DILocalVariable(name: \"l_200\", scope: !9, file: !3, line: 192, type: !7)\n\
                  !12 = !DILocalVariable(name: \"k\", scope: !9, file: !3, line: 120, type: !7)\n";
        let line = "#dbg_value(i64 -2, !394, !DIExpression(), !561)";
        assert_eq!(
            ir_constant_of(ir, "l_200@192", "-2").map(str::trim),
            Some(line)
        );
        assert_eq!(
            ir_constant_of(ir, "l_200@192", "18446744073709551614").map(str::trim),
            Some(line)
        );
        let assigned = "  #dbg_assign(i32 -147594850, !302, !DIExpression(), !722, ptr undef, !DIExpression(), !718)\n\
                        !302 = !DILocalVariable(name: \"l_298\", scope: !9, file: !3, line: 82, type: !7)\n";
        assert_eq!(
            ir_constant_of(assigned, "l_298@82", "-147594850").map(str::trim),
            assigned.lines().next().map(str::trim)
        );
        let null = "  #dbg_value(ptr null, !241, !DIExpression(), !353)\n\
                    !241 = !DILocalVariable(name: \"l_88\", scope: !9, file: !3, line: 61, type: !7)\n";
        assert!(ir_constant_of(null, "l_88@61", "NULL").is_some());
        assert!(ir_constant_of(null, "l_88@61", "&g_2").is_none());
        // Shifts in DWARF's 64-bit generic type: a 32-bit constant shifted
        // left and back by 16 is itself.
        let shifted = "  #dbg_value(i32 1344390050, !174, !DIExpression(DW_OP_constu, 16, DW_OP_shl, DW_OP_constu, 16, DW_OP_shra, DW_OP_stack_value), !200)\n\
                       !174 = !DILocalVariable(name: \"l_12\", scope: !9, file: !3, line: 35, type: !7)\n";
        assert!(ir_constant_of(shifted, "l_12@35", "1344390050").is_some());
        assert_eq!(ir_constant_of(shifted, "l_12@35", "-15454"), None);
        // Another value or another declaration line is not the IR's
        // constant; a constant expression's result is.
        assert_eq!(ir_constant_of(ir, "l_200@192", "2"), None);
        assert_eq!(ir_constant_of(ir, "l_200@193", "-2"), None);
        assert_eq!(ir_constant_of(ir, "k@120", "7"), None);
        assert!(ir_constant_of(ir, "k@120", "8").is_some());
        let decremented = "  #dbg_value(i32 0, !251, !DIExpression(DW_OP_constu, 1, DW_OP_minus, DW_OP_stack_value), !524)\n\
                           !251 = !DILocalVariable(name: \"l_68\", scope: !9, file: !3, line: 256, type: !7)\n";
        assert!(ir_constant_of(decremented, "l_68@256", "-1").is_some());
        assert!(ir_constant_of(decremented, "l_68@256", "4294967295").is_some());
        assert!(ir_constant_of(decremented, "l_68@256", "1").is_none());
        // Long runs 219170 and 219760: a bool constant widened, and negated
        // first (clang's `!false` of a GlobalOpt-shrunk global).
        let negated = "  #dbg_value(i1 false, !297, !DIExpression(DW_OP_constu, 18446744073709551615, DW_OP_xor, DW_OP_LLVM_convert, 1, DW_ATE_unsigned, DW_OP_LLVM_convert, 32, DW_ATE_unsigned, DW_OP_stack_value), !399)\n\
                       !297 = !DILocalVariable(name: \"l_74\", scope: !289, file: !3, line: 101, type: !85)\n";
        assert!(ir_constant_of(negated, "l_74@101", "1").is_some());
        assert!(ir_constant_of(negated, "l_74@101", "0").is_none());
        let widened = "  #dbg_value(i1 false, !30, !DIExpression(DW_OP_LLVM_convert, 1, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_stack_value), !31)\n\
                       !30 = !DILocalVariable(name: \"p_3\", arg: 1, scope: !9, file: !3, line: 130, type: !7)\n";
        assert!(ir_constant_of(widened, "p_3@130", "0").is_some());
        assert!(ir_constant_of(&widened.replace("false", "true"), "p_3@130", "1").is_some());
        let register = "  #dbg_value(i32 0, !251, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value), !524)\n\
                        !251 = !DILocalVariable(name: \"l_68\", scope: !9, file: !3, line: 256, type: !7)\n";
        assert!(ir_constant_of(register, "l_68@256", "0").is_none());
    }

    #[test]
    fn a_register_record_that_never_gives_a_held_value_is_the_irs() {
        // Seed 202482: `l_32 |= (uint16_t)x` with l_32 = 0xB47DC462, salvaged
        // by clang as zext(x) | 98.
        let ir = "  #dbg_value(i16 %50, !418, !DIExpression(DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_LLVM_convert, 32, DW_ATE_unsigned, DW_OP_constu, 98, DW_OP_or, DW_OP_stack_value), !510)\n\
                  !418 = !DILocalVariable(name: \"l_32\", scope: !410, file: !3, line: 201, type: !133)\n";
        let held = ["-1266826142".to_string(), "-1266826141".to_string()];
        assert!(ir_record_never_held(ir, "l_32@201", "99", &held).is_some());
        // A value the record cannot give (bit 1 clear), a variable that
        // holds a value the record can give, or another variable: not the
        // record's.
        assert!(ir_record_never_held(ir, "l_32@201", "97", &held).is_none());
        let small = ["-1266826142".to_string(), "99".to_string()];
        assert!(ir_record_never_held(ir, "l_32@201", "99", &small).is_none());
        assert!(ir_record_never_held(ir, "l_32@202", "99", &held).is_none());
        // A record without fixed bits fits every value.
        let plain = ir.replace(
            "DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_LLVM_convert, 32, DW_ATE_unsigned, DW_OP_constu, 98, DW_OP_or, DW_OP_stack_value",
            "",
        );
        assert!(ir_record_never_held(&plain, "l_32@201", "99", &held).is_none());
    }

    #[test]
    fn known_bits_follow_conversions_and_constant_operations() {
        let bits = known_bits(8, "DW_OP_LLVM_convert, 8, DW_ATE_signed, DW_OP_LLVM_convert, 32, DW_ATE_signed, DW_OP_constu, 128, DW_OP_or").unwrap();
        // The sign bit is unknown before the or: only bit 7 is known.
        assert_eq!((bits.width, bits.zeros, bits.ones), (32, 0, 128));
        let masked = known_bits(
            32,
            "DW_OP_constu, 15, DW_OP_and, DW_OP_constu, 1, DW_OP_xor",
        )
        .unwrap();
        assert_eq!((masked.zeros, masked.ones), (0xffff_fff0, 0));
        assert!(masked.fits(14) && !masked.fits(16));
        assert!(known_bits(32, "DW_OP_constu, 1, DW_OP_plus").is_none());
    }

    use super::*;

    fn finding(build: Build, kind: FindingKind) -> Finding {
        Finding {
            build,
            kind,
            detail: String::new(),
        }
    }

    #[test]
    fn a_finding_tag_names_kind_mode_and_first_wrong_variable() {
        let wrong = WrongValue {
            function: "func_1".into(),
            line: 7,
            variable: "l_5@3".into(),
            shown: "255".into(),
            held: vec!["1".into()],
        };
        let tags: Vec<String> = [
            finding(Build::Dwarfsmith(Mode::ClangO2), FindingKind::Miscompile),
            finding(
                Build::Dwarfsmith(Mode::ClangO2AtO0),
                FindingKind::CompileFailure,
            ),
            finding(
                Build::Dwarfsmith(Mode::ClangO0AtO2),
                FindingKind::CodeDependsOnDebugInfo,
            ),
            finding(
                Build::Dwarfsmith(Mode::ClangO0AtO2),
                FindingKind::WrongValues(vec![wrong]),
            ),
            finding(
                Build::Dwarfsmith(Mode::ClangO2),
                FindingKind::MissingVariables(vec![("func_2".into(), "l_9@4".into())]),
            ),
        ]
        .iter()
        .map(Finding::tag)
        .collect();
        assert_eq!(
            tags,
            [
                "miscompile:A",
                "failure:B",
                "g0:C",
                "wrong:C:func_1:l_5@3",
                "missing:A:func_2:l_9@4"
            ]
        );
    }

    #[test]
    fn a_variable_is_declared_by_name_and_line() {
        let ir = "!7 = !DILocalVariable(name: \"l_9\", scope: !3, file: !1, line: 4, type: !5)";
        assert!(declares(ir, "l_9@4"));
        assert!(!declares(ir, "l_9@5"));
        assert!(!declares(ir, "l_90@4"));
    }

    #[test]
    fn builds_are_named_both_ways() {
        for build in Build::ALL {
            assert_eq!(Build::from_name(&build.name()), Some(build));
        }
        assert_eq!(Mode::from_letter("C"), Some(Mode::ClangO0AtO2));
        assert_eq!(Mode::from_letter("D"), None);
    }
}
