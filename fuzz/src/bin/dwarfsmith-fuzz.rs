//! `dwarfsmith-fuzz --inputs N --seed S`: runs the mutation harness for N
//! inputs and prints the counts and every finding; exits 1 on a finding.
//! `--first I --write-input FILE` writes input I alone, to reproduce it.
//!
//! `dwarfsmith-fuzz --debug-info --programs N --seed S [--jobs J] [--out DIR
//! [--reduce]]`: random-program debug testing (`debug_info` in the
//! library) of csmith's programs for seeds S..S+N; prints the table per
//! build and every finding, writes each finding's reproducer under DIR
//! (reduced with cvise with `--reduce`); exits 1 on a finding.
//! `--list-wrong` prints every build's wrong values too.
//! `--still-found TAG FILE` exits 0 when the C program FILE still shows the
//! finding TAG (the reproducers' interestingness test).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Deterministic mutation fuzzing of dwarfsmith (see the library doc).
#[derive(Parser)]
#[command(name = "dwarfsmith-fuzz")]
struct Args {
    /// How many inputs to run.
    #[arg(long, default_value_t = 10_000)]
    inputs: u64,
    /// The run's seed (input I of seed S is the same on every machine).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The first input's index (to resume or reproduce one input).
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// The repository root (where fixtures/ and emit/fixtures/ are).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Check every Nth compiled object with llvm-dwarfdump-19 --verify (0: none).
    #[arg(long, default_value_t = 20)]
    dwarfdump_every: u64,
    /// Write input FIRST (its .ll text or object bytes) to this file and
    /// stop, to make a reproducer of a finding.
    #[arg(long)]
    write_input: Option<PathBuf>,
    /// Random-program debug testing instead of mutation.
    #[arg(long)]
    debug_info: bool,
    /// With --debug-info: how many csmith seeds (S, S+1, ...).
    #[arg(long, default_value_t = 100)]
    programs: u64,
    /// With --debug-info: programs judged at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// With --debug-info: where to write reproducers of findings.
    #[arg(long)]
    out: Option<PathBuf>,
    /// With --debug-info: print every build's wrong values (llc-19's and
    /// gcc's too) as each program ends.
    #[arg(long)]
    list_wrong: bool,
    /// With --debug-info --out: reduce each reproducer with cvise.
    #[arg(long, requires = "out")]
    reduce: bool,
    /// Exit 0 when the C program FILE still shows the finding TAG.
    #[arg(long, num_args = 2, value_names = ["TAG", "FILE"])]
    still_found: Option<Vec<String>>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(tag_and_file) = &args.still_found {
        return still_found(&tag_and_file[0], &tag_and_file[1]);
    }
    if args.debug_info {
        return debug_info(&args);
    }
    let corpus = match dwarfsmith_fuzz::Corpus::load(&args.root) {
        Ok(corpus) => corpus,
        Err(e) => {
            eprintln!(
                "dwarfsmith-fuzz: cannot read the corpus under {}: {e}",
                args.root.display()
            );
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &args.write_input {
        let kinds = dwarfsmith_fuzz::mutate::KIND_COUNT;
        let input = dwarfsmith_fuzz::input(&corpus, args.seed, args.first, &mut vec![0; kinds]);
        let (bytes, origin) = match input {
            dwarfsmith_fuzz::Input::Ll { text, origin, .. } => (text.into_bytes(), origin),
            dwarfsmith_fuzz::Input::Object { bytes, origin } => (bytes, origin),
        };
        if let Err(e) = std::fs::write(path, bytes) {
            eprintln!("dwarfsmith-fuzz: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{origin}");
        return ExitCode::SUCCESS;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut kept = Vec::new();
    let mut compiled = 0u64;
    let mut findings = Vec::new();
    let mut totals = dwarfsmith_fuzz::Counts::default();
    // Batches of 10,000 inputs, each followed by one llvm-dwarfdump run.
    let batch = 10_000;
    let mut next = args.first;
    let end = args.first + args.inputs;
    while next < end {
        let count = batch.min(end - next);
        let (counts, mut found) =
            dwarfsmith_fuzz::run(&corpus, args.seed, next, count, |name, bytes| {
                compiled += 1;
                if args.dwarfdump_every > 0 && compiled.is_multiple_of(args.dwarfdump_every) {
                    let path = dir.path().join(format!("{name}.o"));
                    if std::fs::write(&path, bytes).is_ok() {
                        kept.push(path);
                    }
                }
            });
        match dwarfsmith_fuzz::dwarfdump_verify(&kept) {
            Ok(failing) => {
                found.extend(
                    failing
                        .into_iter()
                        .map(|(path, report)| dwarfsmith_fuzz::Finding {
                            input: path.display().to_string(),
                            problem: format!("llvm-dwarfdump-19 --verify: {report}"),
                        }),
                )
            }
            Err(e) => eprintln!("dwarfsmith-fuzz: cannot run llvm-dwarfdump-19: {e}"),
        }
        for path in kept.drain(..) {
            let _ = std::fs::remove_file(path);
        }
        accumulate(&mut totals, &counts);
        // Findings are reported as each batch ends, so a run stopped
        // early still tells what it found.
        for finding in &found {
            eprintln!("FINDING {}: {}", finding.input, finding.problem);
        }
        findings.extend(found);
        next += count;
        eprintln!(
            "dwarfsmith-fuzz: {next} / {end} inputs ({} .ll, {} of them C++: {} accepted by opt, {} \
             compiled ({} C++), {} refused; {} objects: {} read, {} clean; slowest {} ms), {} \
             findings",
            totals.ll_inputs,
            totals.cxx_inputs,
            totals.opt_accepted,
            totals.compiled,
            totals.cxx_compiled,
            totals.ll_refused,
            totals.object_inputs,
            totals.objects_read,
            totals.objects_clean,
            totals.slowest_ms,
            findings.len()
        );
    }
    println!("{totals:#?}");
    println!(
        "objects checked by llvm-dwarfdump-19 --verify: every {}th of {compiled}",
        args.dwarfdump_every
    );
    for finding in &findings {
        println!("FINDING {}: {}", finding.input, finding.problem);
    }
    println!("findings: {}", findings.len());
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn accumulate(totals: &mut dwarfsmith_fuzz::Counts, counts: &dwarfsmith_fuzz::Counts) {
    totals.inputs += counts.inputs;
    totals.ll_inputs += counts.ll_inputs;
    totals.cxx_inputs += counts.cxx_inputs;
    totals.opt_accepted += counts.opt_accepted;
    totals.compiled += counts.compiled;
    totals.cxx_compiled += counts.cxx_compiled;
    totals.ll_refused += counts.ll_refused;
    totals.object_inputs += counts.object_inputs;
    totals.objects_read += counts.objects_read;
    totals.objects_clean += counts.objects_clean;
    totals.slowest_ms = totals.slowest_ms.max(counts.slowest_ms);
    if totals.by_mutation.is_empty() {
        totals.by_mutation = counts.by_mutation.clone();
    } else {
        for (total, (_, n)) in totals.by_mutation.iter_mut().zip(&counts.by_mutation) {
            total.1 += n;
        }
    }
}

fn still_found(tag: &str, file: &str) -> ExitCode {
    std::panic::set_hook(Box::new(|_| {}));
    let config = dwarfsmith_fuzz::debug_info::Config::default();
    match dwarfsmith_fuzz::debug_info::still_found(file.as_ref(), tag, &config) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("dwarfsmith-fuzz: {e}");
            ExitCode::from(2)
        }
    }
}

fn debug_info(args: &Args) -> ExitCode {
    use dwarfsmith_fuzz::debug_info::{run, RunOptions};
    let reduce_with = match (args.reduce, std::env::current_exe()) {
        (false, _) => None,
        (true, Ok(exe)) => Some(exe),
        (true, Err(e)) => {
            eprintln!("dwarfsmith-fuzz: cannot find my own executable for cvise: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = RunOptions {
        seed: args.seed,
        programs: args.programs,
        jobs: args.jobs,
        out: args.out.clone(),
        reduce_with,
        config: Default::default(),
    };
    let done = std::sync::atomic::AtomicU64::new(0);
    let result = run(&options, |seed, report| {
        let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let status = match &report.discarded {
            Some(why) => format!("discarded: {}", why.lines().next().unwrap_or_default()),
            None => format!("{} findings", report.findings.len()),
        };
        eprintln!(
            "dwarfsmith-fuzz: {n} / {}: seed {seed}: {status}",
            args.programs
        );
        for (mode, wrong, carrier) in &report.ir_wrong {
            println!(
                "IR-WRONG seed {seed} {}: {wrong} carried by `{}`",
                mode.letter(),
                carrier.trim()
            );
        }
        if args.list_wrong {
            for (build, outcome) in &report.builds {
                if let dwarfsmith_fuzz::debug_info::Outcome::Judged(figures) = outcome {
                    for wrong in &figures.wrong {
                        println!("WRONG seed {seed} {}: {wrong}", build.name());
                    }
                }
            }
        }
    });
    let (totals, findings) = match result {
        Ok(done) => done,
        Err(e) => {
            eprintln!("dwarfsmith-fuzz: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (seed, finding) in &findings {
        println!(
            "FINDING seed {seed} {}: {}",
            finding.tag(),
            finding.detail.trim_end()
        );
    }
    print!("{}", totals.table());
    println!("findings: {}", findings.len());
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
