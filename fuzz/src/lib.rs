//! dwarfsmith-fuzz: a deterministic mutation harness for dwarfsmith.
//!
//! In: a corpus (the fixtures' .ll files; clang++'s IR of the C++ fixtures,
//! with exception handling and C++ debug metadata; and objects: the emit
//! fixtures' and ones freshly compiled from the .ll files), a seed and a
//! number of inputs. Out: [`Counts`] and a list of [`Finding`]s. Each input
//! is one seed file with 1-3 mutations ([`mutate`]); every eighth input
//! is C++ IR, mutated by the C++ mutations too:
//! - a .ll input goes through the library pipeline: `opt` (parse, verify,
//!   print, and the print parsed and printed again, which must give the
//!   same text) and `compile` (-O0/-O2, -g/-g0);
//! - an object input goes through `emit::verify::verify` and `emit::read::read`.
//!
//! Findings: a panic (caught with `catch_unwind`), an input that takes more
//! than [`TIME_LIMIT`] (a watchdog thread reports it and exits, since a
//! hung input cannot be interrupted), an error that does not start with
//! `FILE:LINE:COL: error: ` (line and column at least 1), a print that does
//! not parse again, and an object that `emit::verify` finds problems in.
//! Objects produced are kept for [`dwarfdump_verify`] (llvm-dwarfdump-19
//! --verify, once over many files).
//!
//! Determinism: input `i` of a run with seed `s` depends only on `s` and
//! `i` (its own [`SplitMix64`] stream), so a finding names `s` and `i`.

pub mod corrupt;
pub mod csmith;
pub mod debug_info;
pub mod mutate;
pub mod oracle;
pub mod ratchet;
pub mod record_in_effect;
pub mod reproducer;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};
pub use mutate::SplitMix64;

/// The longest any one input may take.
pub const TIME_LIMIT: Duration = Duration::from_secs(10);

/// The seed files.
pub struct Corpus {
    /// (file name, text) of each .ll file.
    pub ll: Vec<(String, String)>,
    /// (file name, text) of each C++ .ll file (clang++'s IR: `invoke`,
    /// `landingpad`, `resume`, personalities, C++ debug metadata).
    pub cxx: Vec<(String, String)>,
    /// (file name, bytes) of each object.
    pub objects: Vec<(String, Vec<u8>)>,
}

/// The directories of C++ seed IR, under the repository root.
const CXX_SEED_DIRS: &[&str] = &["fixtures/cxx", "fixtures/cxx_di"];

/// Input `index` is a C++ input when `index % CXX_EVERY == CXX_AT` (and
/// the corpus has C++ seeds); the others are drawn as before C++ seeds
/// existed, so earlier runs' inputs keep their seed and index.
const CXX_EVERY: u64 = 8;
const CXX_AT: u64 = 3;

impl Corpus {
    /// Reads `ROOT/fixtures/ll/*.ll`, the C++ seeds (`fixtures/cxx/*.ll`,
    /// `fixtures/cxx_di/*.ll`) and `ROOT/emit/fixtures/obj/*.o`, and
    /// compiles every .ll file at -O2 -g into a fresh object too.
    pub fn load(root: &Path) -> std::io::Result<Corpus> {
        let text = |dir: &str| -> std::io::Result<Vec<(String, String)>> {
            Ok(read_dir_sorted(&root.join(dir), "ll")?
                .into_iter()
                .map(|(name, bytes)| (name, String::from_utf8_lossy(&bytes).into_owned()))
                .collect())
        };
        let ll = text("fixtures/ll")?;
        let mut cxx = Vec::new();
        for dir in CXX_SEED_DIRS {
            cxx.extend(text(dir)?);
        }
        let mut objects = read_dir_sorted(&root.join("emit/fixtures/obj"), "o")?;
        for (name, text) in ll.iter().chain(&cxx) {
            if let Ok(bytes) = dwarfsmith::compile(text, name, &options(OptLevel::O2, true)) {
                objects.push((format!("{name}.o"), bytes));
            }
        }
        Ok(Corpus { ll, cxx, objects })
    }

    /// Whether input `index` is made from a C++ seed.
    pub fn is_cxx_input(&self, index: u64) -> bool {
        !self.cxx.is_empty() && index % CXX_EVERY == CXX_AT
    }
}

fn read_dir_sorted(dir: &Path, extension: &str) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == extension) {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            files.push((name, std::fs::read(&path)?));
        }
    }
    files.sort();
    Ok(files)
}

fn options(opt_level: OptLevel, debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Inputs run.
    pub inputs: u64,
    /// Mutated .ll inputs.
    pub ll_inputs: u64,
    /// Of those, the ones made from C++ seeds.
    pub cxx_inputs: u64,
    /// .ll inputs that `opt` accepted.
    pub opt_accepted: u64,
    /// .ll inputs that `compile` turned into an object.
    pub compiled: u64,
    /// Of those, the ones made from C++ seeds.
    pub cxx_compiled: u64,
    /// .ll inputs refused with a diagnostic.
    pub ll_refused: u64,
    /// Mutated object inputs.
    pub object_inputs: u64,
    /// Objects `emit::read` read.
    pub objects_read: u64,
    /// Objects `emit::verify` found no problem in.
    pub objects_clean: u64,
    /// Inputs per mutation kind (.ll kinds, then object kinds).
    pub by_mutation: Vec<(String, u64)>,
    /// The slowest input, in milliseconds.
    pub slowest_ms: u64,
}

/// Something wrong the harness found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `seed S input I (seed file, mutations)`.
    pub input: String,
    /// What went wrong.
    pub problem: String,
}

/// One mutated input, reproducible from the run's seed and its index.
pub enum Input {
    /// .ll text named `name`.
    Ll {
        /// The file name errors must name.
        name: String,
        /// The text.
        text: String,
        /// Description for findings.
        origin: String,
    },
    /// Object bytes.
    Object {
        /// The bytes.
        bytes: Vec<u8>,
        /// Description for findings.
        origin: String,
    },
}

/// Input `index` of a run with `seed`: one in [`CXX_EVERY`] is C++ IR, and
/// of the others three .ll inputs for every object input. `by_mutation`
/// counts by kind, in [`mutate::kind_names`]' order.
pub fn input(corpus: &Corpus, seed: u64, index: u64, by_mutation: &mut [u64]) -> Input {
    let mut rng = SplitMix64::new(seed ^ index.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let rounds = 1 + rng.below(3);
    let cxx = corpus.is_cxx_input(index);
    if cxx || rng.below(4) != 0 || corpus.objects.is_empty() {
        let (file, seed_text) = rng.pick(if cxx { &corpus.cxx } else { &corpus.ll });
        let mut text = seed_text.clone();
        let mut kinds = Vec::new();
        for _ in 0..rounds {
            let (mutated, kind) = if cxx {
                let (mutated, kind) = mutate::mutate_cxx_ll(&text, &mut rng);
                // Counted after the object kinds.
                let counted = match kind.checked_sub(mutate::LL_MUTATIONS.len()) {
                    Some(cxx_kind) => {
                        mutate::LL_MUTATIONS.len() + mutate::OBJECT_MUTATIONS.len() + cxx_kind
                    }
                    None => kind,
                };
                (mutated, counted)
            } else {
                mutate::mutate_ll(&text, &mut rng)
            };
            text = mutated;
            by_mutation[kind] += 1;
            kinds.push(mutate::kind_names().nth(kind).unwrap_or("?"));
        }
        Input::Ll {
            name: format!("fuzz{index}.ll"),
            text,
            origin: format!("seed {seed} input {index} ({file}: {})", kinds.join(", ")),
        }
    } else {
        let (file, seed_bytes) = rng.pick(&corpus.objects);
        let mut bytes = seed_bytes.clone();
        let mut kinds = Vec::new();
        for _ in 0..rounds {
            let (mutated, kind) = mutate::mutate_object(&bytes, &mut rng);
            bytes = mutated;
            by_mutation[mutate::LL_MUTATIONS.len() + kind] += 1;
            kinds.push(mutate::OBJECT_MUTATIONS[kind]);
        }
        Input::Object {
            bytes,
            origin: format!("seed {seed} input {index} ({file}: {})", kinds.join(", ")),
        }
    }
}

/// Whether `message` is `NAME:LINE:COL: error: ...` with LINE, COL ≥ 1.
pub fn names_position(message: &str, name: &str) -> bool {
    let Some(rest) = message.strip_prefix(name).and_then(|r| r.strip_prefix(':')) else {
        return false;
    };
    let mut parts = rest.splitn(3, ':');
    let number = |p: Option<&str>| {
        p.and_then(|p| p.parse::<u32>().ok())
            .is_some_and(|n| n >= 1)
    };
    number(parts.next())
        && number(parts.next())
        && parts.next().is_some_and(|r| r.starts_with(" error: "))
}

/// Runs `count` inputs of `seed`, starting at input `first`; objects that
/// compile are handed to `keep_object` (for a batched llvm-dwarfdump check).
pub fn run(
    corpus: &Corpus,
    seed: u64,
    first: u64,
    count: u64,
    mut keep_object: impl FnMut(&str, &[u8]),
) -> (Counts, Vec<Finding>) {
    let mut counts = Counts::default();
    let mut findings = Vec::new();
    let mut by_mutation = vec![0u64; mutate::KIND_COUNT];
    let watchdog = Watchdog::start();
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for index in first..first + count {
        let cxx = corpus.is_cxx_input(index);
        counts.cxx_inputs += u64::from(cxx);
        let compiled = counts.compiled;
        let input = input(corpus, seed, index, &mut by_mutation);
        let started = Instant::now();
        let origin = match &input {
            Input::Ll { origin, .. } | Input::Object { origin, .. } => origin.clone(),
        };
        watchdog.begin(&origin);
        let problems = match input {
            Input::Ll { name, text, .. } => run_ll(&name, &text, &mut counts, &mut keep_object),
            Input::Object { bytes, .. } => run_object(&bytes, &mut counts),
        };
        watchdog.end();
        counts.cxx_compiled += u64::from(cxx && counts.compiled > compiled);
        let elapsed = started.elapsed();
        counts.slowest_ms = counts.slowest_ms.max(elapsed.as_millis() as u64);
        if elapsed > TIME_LIMIT {
            findings.push(Finding {
                input: origin.clone(),
                problem: format!("took {elapsed:?}"),
            });
        }
        findings.extend(problems.into_iter().map(|problem| Finding {
            input: origin.clone(),
            problem,
        }));
        counts.inputs += 1;
    }
    std::panic::set_hook(previous_hook);
    counts.by_mutation = mutate::kind_names()
        .map(str::to_string)
        .zip(by_mutation)
        .collect();
    (counts, findings)
}

/// The message of a caught panic.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// Runs a stage under `catch_unwind`, recording a panic as a problem.
fn guarded<T>(stage: &str, problems: &mut Vec<String>, f: impl FnOnce() -> T) -> Option<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => Some(value),
        Err(payload) => {
            problems.push(format!("{stage} panicked: {}", panic_message(&*payload)));
            None
        }
    }
}

fn run_ll(
    name: &str,
    text: &str,
    counts: &mut Counts,
    keep_object: &mut impl FnMut(&str, &[u8]),
) -> Vec<String> {
    counts.ll_inputs += 1;
    let mut problems = Vec::new();
    let syntax = dwarfsmith::ir::print::DebugSyntax::Records;
    let check_error = |stage: &str, message: String, problems: &mut Vec<String>| {
        if !names_position(&message, name) {
            problems.push(format!("{stage} error without {name}:LINE:COL: {message}"));
        }
    };
    match guarded("opt", &mut problems, || dwarfsmith::opt(text, name, syntax)) {
        Some(Ok(printed)) => {
            counts.opt_accepted += 1;
            match guarded("opt of the print", &mut problems, || {
                dwarfsmith::opt(&printed, name, syntax)
            }) {
                Some(Ok(again)) if again != printed => {
                    problems.push("printing the print gives a different text".to_string())
                }
                Some(Ok(_)) | None => {}
                Some(Err(error)) => {
                    problems.push(format!("the print does not parse again: {error}"))
                }
            }
        }
        Some(Err(error)) => check_error("opt", error.to_string(), &mut problems),
        None => {}
    }
    let variant = (text.len() % 4) as u8;
    let options = options(
        if variant & 1 == 0 {
            OptLevel::O2
        } else {
            OptLevel::O0
        },
        variant & 2 == 0,
    );
    match guarded("compile", &mut problems, || {
        dwarfsmith::compile(text, name, &options)
    }) {
        Some(Ok(bytes)) => {
            counts.compiled += 1;
            match guarded("emit::verify", &mut problems, || {
                dwarfsmith_emit::verify::verify(&bytes)
            }) {
                Some(found) if !found.is_empty() => problems.push(format!(
                    "compiled object fails emit::verify: {}",
                    found
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join("; ")
                )),
                _ => keep_object(name, &bytes),
            }
        }
        Some(Err(error)) => {
            counts.ll_refused += 1;
            check_error("compile", error.to_string(), &mut problems);
        }
        None => {}
    }
    problems
}

fn run_object(bytes: &[u8], counts: &mut Counts) -> Vec<String> {
    counts.object_inputs += 1;
    let mut problems = Vec::new();
    if let Some(found) = guarded("emit::verify", &mut problems, || {
        dwarfsmith_emit::verify::verify(bytes)
    }) {
        counts.objects_clean += u64::from(found.is_empty());
    }
    if let Some(read) = guarded("emit::read", &mut problems, || {
        dwarfsmith_emit::read::read(bytes)
    }) {
        counts.objects_read += u64::from(read.is_ok());
    }
    problems
}

/// Runs `llvm-dwarfdump-19 --verify` once over `objects`; returns the
/// objects it reports errors for, with its output for them.
pub fn dwarfdump_verify(objects: &[PathBuf]) -> std::io::Result<Vec<(PathBuf, String)>> {
    if objects.is_empty() {
        return Ok(Vec::new());
    }
    let out = Command::new("llvm-dwarfdump-19")
        .arg("--verify")
        .args(objects)
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // The report is one "Verifying FILE:" section per object.
    let mut failing = Vec::new();
    for section in text.split("Verifying ").skip(1) {
        let is_header = section.contains("file format");
        if !is_header {
            continue;
        }
        if section.contains("error:") || section.contains("Errors detected") {
            let file = section.split(':').next().unwrap_or("").to_string();
            failing.push((PathBuf::from(file), section.to_string()));
        }
    }
    if !out.status.success() && failing.is_empty() {
        failing.push((
            PathBuf::new(),
            format!("{text}{}", String::from_utf8_lossy(&out.stderr)),
        ));
    }
    Ok(failing)
}

/// A thread that ends the process when one input runs past [`TIME_LIMIT`].
struct Watchdog {
    /// Milliseconds since `epoch` when the current input began, 0 when idle.
    started: Arc<AtomicU64>,
    origin: Arc<std::sync::Mutex<String>>,
    epoch: Instant,
}

impl Watchdog {
    fn start() -> Watchdog {
        let watchdog = Watchdog {
            started: Arc::new(AtomicU64::new(0)),
            origin: Arc::new(std::sync::Mutex::new(String::new())),
            epoch: Instant::now(),
        };
        let started = Arc::clone(&watchdog.started);
        let origin = Arc::clone(&watchdog.origin);
        let epoch = watchdog.epoch;
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            if Arc::strong_count(&started) == 1 {
                return;
            }
            let began = started.load(Ordering::SeqCst);
            let now = epoch.elapsed().as_millis() as u64 + 1;
            if began != 0 && now.saturating_sub(began) > TIME_LIMIT.as_millis() as u64 {
                let origin = origin.lock().map(|o| o.clone()).unwrap_or_default();
                eprintln!("dwarfsmith-fuzz: {origin} ran past {TIME_LIMIT:?}");
                std::process::exit(3);
            }
        });
        watchdog
    }

    fn begin(&self, origin: &str) {
        if let Ok(mut o) = self.origin.lock() {
            origin.clone_into(&mut o);
        }
        let now = self.epoch.elapsed().as_millis() as u64 + 1;
        self.started.store(now, Ordering::SeqCst);
    }

    fn end(&self) {
        self.started.store(0, Ordering::SeqCst);
    }
}
