//! `dwarfsmith-fuzz --inputs N --seed S`: runs the mutation harness for N
//! inputs and prints the counts and every finding; exits 1 on a finding.
//! `--first I --write-input FILE` writes input I alone, to reproduce it.

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
}

fn main() -> ExitCode {
    let args = Args::parse();
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
        let kinds = dwarfsmith_fuzz::mutate::LL_MUTATIONS.len()
            + dwarfsmith_fuzz::mutate::OBJECT_MUTATIONS.len();
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
            "dwarfsmith-fuzz: {next} / {end} inputs ({} .ll: {} accepted by opt, {} compiled, {} \
             refused; {} objects: {} read, {} clean; slowest {} ms), {} findings",
            totals.ll_inputs,
            totals.opt_accepted,
            totals.compiled,
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
    totals.opt_accepted += counts.opt_accepted;
    totals.compiled += counts.compiled;
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
