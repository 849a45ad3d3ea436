//! Our verifier against LLVM's: corpus modules broken at random (operands
//! replaced, instructions deleted, moved or swapped, branches retargeted,
//! debug records given other locations or operands or moved to another
//! instruction) must get the same verdict from
//! `verify_module` as their printed text gets from `opt-19 -passes=verify`
//! (where broken debug info, which opt only warns about, counts as
//! rejected). The mutations are drawn from a fixed seed, so every run checks
//! the same cases; about half of them break the module. (Result types are
//! not mutated: where .ll syntax has no place for a type, e.g. a binary
//! operation's result, the printed text cannot show a model inconsistent
//! in it, so opt-19 never sees what our verifier rejects.)

use std::path::{Path, PathBuf};
use std::process::Command;

use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::print::{print_module, DebugSyntax};
use dwarfsmith::ir::verify::verify_module;
use dwarfsmith::ir::{BlockId, Function, InstId, InstKind, LocId, Module, Value};

const ROUNDS: usize = 200;

/// A small deterministic generator (PCG-style LCG), so no crate is needed.
struct Rng(u64);

impl Rng {
    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.below(items.len())])
    }
}

fn opt19() -> PathBuf {
    ["/usr/bin/opt-19", "/usr/lib/llvm-19/bin/opt"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("opt-19 is needed: neither /usr/bin/opt-19 nor /usr/lib/llvm-19/bin/opt exists")
}

/// opt-19's verdict on `text` and its first line of complaint.
fn llvm_verdict(opt: &Path, path: &Path, text: &str) -> (bool, String) {
    std::fs::write(path, text).unwrap();
    let output = Command::new(opt)
        .args(["-passes=verify", "-disable-output"])
        .arg(path)
        .output()
        .expect("cannot run opt-19");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let accepted = output.status.success() && !stderr.contains("invalid debug info");
    (accepted, stderr.lines().next().unwrap_or("").to_string())
}

/// Breaks (perhaps) one function at random; returns what was done.
fn mutate(function: &mut Function, locations: usize, rng: &mut Rng) -> String {
    let placed: Vec<InstId> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter().copied())
        .collect();
    let results: Vec<InstId> = placed
        .iter()
        .copied()
        .filter(|&id| !function.inst(id).ty.is_void())
        .collect();
    let with_records: Vec<InstId> = placed
        .iter()
        .copied()
        .filter(|&id| !function.inst(id).records.is_empty())
        .collect();
    let block = rng.below(function.blocks.len());
    let len = function.blocks[block].insts.len();
    match rng.below(8) {
        0 => {
            let Some(target) = rng.pick(&placed) else {
                return "nothing".into();
            };
            let new = rng.pick(&results).map_or(Value::Arg(0), Value::Inst);
            match &mut function.inst_mut(target).kind {
                InstKind::Binary { rhs, .. } | InstKind::ICmp { rhs, .. } => *rhs = new.clone(),
                InstKind::Store { value, .. } => *value = new.clone(),
                InstKind::Load { ptr, .. } => *ptr = new.clone(),
                InstKind::Gep { base, .. } => *base = new.clone(),
                InstKind::Ret { value: Some(v) } => *v = new.clone(),
                InstKind::Phi { incoming } if !incoming.is_empty() => incoming[0].0 = new.clone(),
                _ => {}
            }
            format!("an operand of instruction #{} becomes {new:?}", target.0)
        }
        1 if len > 1 => {
            function.blocks[block].insts.remove(rng.below(len - 1));
            format!("an instruction of block {block} deleted")
        }
        2 if len > 1 => {
            let to = rng.below(function.blocks.len());
            let id = function.blocks[block].insts.remove(rng.below(len - 1));
            function.blocks[to].insts.insert(0, id);
            format!("an instruction moved from block {block} to the start of block {to}")
        }
        3 if len > 2 => {
            let (i, j) = (rng.below(len - 1), rng.below(len - 1));
            function.blocks[block].insts.swap(i, j);
            format!("instructions {i} and {j} of block {block} swapped")
        }
        4 => {
            let Some(target) = rng.pick(&with_records) else {
                return "nothing".into();
            };
            let loc = LocId(rng.below(locations) as u32);
            function.inst_mut(target).records[0].loc = loc;
            format!(
                "a record before instruction #{} gets location {loc:?}",
                target.0
            )
        }
        5 => {
            let (Some(target), Some(value)) = (rng.pick(&with_records), rng.pick(&results)) else {
                return "nothing".into();
            };
            let record = &mut function.inst_mut(target).records[0];
            if let Some(location) = record.locations.first_mut() {
                *location = Value::Inst(value);
            }
            format!(
                "a record before instruction #{} now uses #{}",
                target.0, value.0
            )
        }
        6 => {
            let last = *function.blocks[block].insts.last().unwrap();
            let to = BlockId(rng.below(function.blocks.len()) as u32);
            match &mut function.inst_mut(last).kind {
                InstKind::Br { dest } => *dest = to,
                InstKind::CondBr { if_false, .. } => *if_false = to,
                _ => {}
            }
            format!("the branch of block {block} retargeted to block {}", to.0)
        }
        7 => {
            let (Some(from), Some(to)) = (rng.pick(&with_records), rng.pick(&placed)) else {
                return "nothing".into();
            };
            let record = function.inst_mut(from).records.remove(0);
            function.inst_mut(to).records.push(record);
            format!("a record moved from instruction #{} to #{}", from.0, to.0)
        }
        _ => "nothing".into(),
    }
}

#[test]
fn our_verdict_matches_opt19_on_randomly_broken_corpus_modules() {
    let opt = opt19();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ll");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.to_string_lossy().contains("llvm14"))
        .collect();
    files.sort();
    let scratch = tempfile::tempdir().unwrap();
    let printed_path = scratch.path().join("mutant.ll");
    let mut rng = Rng(12345);
    let (mut rejected, mut disagreements) = (0, Vec::new());
    for round in 0..ROUNDS {
        let path = &files[rng.below(files.len())];
        let mut module: Module =
            parse_module(&std::fs::read_to_string(path).unwrap(), "corpus.ll").unwrap();
        let definitions: Vec<usize> = (0..module.functions.len())
            .filter(|&i| !module.functions[i].is_declaration())
            .collect();
        let index = rng.pick(&definitions).unwrap();
        let locations = module.debug.locations.len();
        let what = mutate(&mut module.functions[index], locations, &mut rng);
        let ours = verify_module(&module);
        let (llvm_accepts, complaint) = llvm_verdict(
            &opt,
            &printed_path,
            &print_module(&module, DebugSyntax::Records),
        );
        rejected += usize::from(ours.is_err());
        if ours.is_ok() != llvm_accepts {
            disagreements.push(format!(
                "round {round}, {} @{}: {what}\n  ours: {ours:?}\n  opt-19: {complaint}",
                path.file_name().unwrap().to_string_lossy(),
                module.functions[index].name
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert!(
        rejected > ROUNDS / 4 && rejected < ROUNDS * 3 / 4,
        "{rejected} of {ROUNDS} mutants rejected: the mutations should break about half"
    );
}
