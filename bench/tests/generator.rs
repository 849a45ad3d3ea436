//! The generated module: deterministic, of the promised size and shape, and
//! accepted by LLVM 19 (opt-19 verifier, llc-19 code generation, and
//! llvm-dwarfdump-19 --verify on llc's object).

use std::path::Path;
use std::process::Command;

use dwarfsmith_bench::generate::{generate, GenConfig};

mod support;
use support::find_tool;

fn run(program: &Path, args: &[&str]) {
    let output = Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{} {args:?} failed:\n{}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_same_seed_gives_the_same_text_and_another_seed_another() {
    let config = GenConfig {
        seed: 42,
        functions: 60,
    };
    let first = generate(&config);
    assert_eq!(first, generate(&config));
    assert_ne!(first, generate(&GenConfig { seed: 43, ..config }));
}

#[test]
fn the_default_module_has_400_functions_and_about_60k_lines() {
    let text = generate(&GenConfig::default());
    let defines = text
        .lines()
        .filter(|line| line.starts_with("define "))
        .count();
    let lines = text.lines().count();
    assert_eq!(defines, 400);
    assert!((55_000..=70_000).contains(&lines), "{lines} lines");
    // The size scales with the function count.
    let small = generate(&GenConfig {
        seed: 1,
        functions: 40,
    });
    let small_lines = small.lines().count();
    assert!(
        (4_000..=8_000).contains(&small_lines),
        "{small_lines} lines"
    );
}

#[test]
fn the_module_has_the_shape_of_clang_o2_g_integer_code() {
    let text = generate(&GenConfig::default());
    for needle in [
        "#dbg_value(",
        "!DIArgList(",
        "DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1",
        "DW_OP_plus_uconst",
        " poison, !",
        "!DILexicalBlock(",
        "!DISubprogram(name: \"ext_",
        "tail call void @ext_sink(",
        "tail call i64 @ext_hash(",
        "noundef signext %",
        "noundef zeroext %",
        "add nsw i32",
        "mul nsw i64",
        "switch i32",
        "phi i32",
        "phi i64",
        "select i1",
        "icmp slt",
        "sdiv i32",
        "srem i64",
        "udiv i32",
        "sext i8",
        "zext i16",
        "trunc i32",
        "trunc i64",
        "getelementptr inbounds i32, ptr",
        "getelementptr inbounds i8, ptr",
        "load i64, ptr",
        "store i16",
        "!tbaa !",
        "!llvm.loop !",
        "@llvm.smax.i32(",
        "@llvm.abs.i64(",
        "!{i32 7, !\"Dwarf Version\", i32 5}",
        "!{i32 2, !\"Debug Info Version\", i32 3}",
        "!llvm.dbg.cu = !{!0}",
    ] {
        assert!(text.contains(needle), "no {needle:?} in the module");
    }
    for absent in ["float", "double", "x i32>", "llvm.dbg.value", "fadd"] {
        assert!(!text.contains(absent), "{absent:?} in the module");
    }
    // Every call to a generated function goes to one defined earlier (no cycles).
    let mut defined = std::collections::HashSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            let name = rest.split('@').nth(1).unwrap().split('(').next().unwrap();
            defined.insert(name.to_string());
        } else if let Some(call) = line.split("tail call ").nth(1) {
            let callee = call.split('@').nth(1).unwrap().split('(').next().unwrap();
            if !callee.starts_with("llvm.") && !callee.starts_with("ext_") {
                assert!(
                    defined.contains(callee),
                    "{callee} called before it is defined"
                );
            }
        }
    }
}

#[test]
fn every_instruction_result_is_used_by_an_instruction_as_in_clang_o2_output() {
    let text = generate(&GenConfig::default());
    for function in text.split("\ndefine ").skip(1) {
        let body = function.split("\n}\n").next().unwrap();
        let code: Vec<&str> = body
            .lines()
            .filter(|line| !line.trim_start().starts_with("#dbg_"))
            .collect();
        let mut mentions = std::collections::HashMap::new();
        for line in &code {
            for token in line.split(|c: char| !(c == '%' || c.is_ascii_digit())) {
                if token.len() > 1 && token.starts_with('%') {
                    *mentions.entry(token).or_insert(0) += 1;
                }
            }
        }
        for line in &code {
            let Some((name, instruction)) = line.trim_start().split_once(" = ") else {
                continue;
            };
            // A call's result may be ignored (`f(x);`), never another instruction's.
            if name.starts_with('%') && !instruction.contains("call ") {
                assert!(mentions[name] >= 2, "{name} is dead in:\ndefine {body}");
            }
        }
    }
}

/// Binary operations and compares clang -O2 would have folded (both operands
/// constant, or the same value twice), and how many operations were checked.
fn foldable_operations(text: &str) -> (Vec<String>, usize) {
    let mut foldable = Vec::new();
    let mut checked = 0;
    for line in text.lines().filter(|line| line.starts_with("  %")) {
        let instruction = line.split_once(" = ").unwrap().1;
        let instruction = instruction.split(", !dbg").next().unwrap();
        let mut words = instruction.split(' ');
        let opcode = words.next().unwrap();
        if !matches!(
            opcode,
            "add"
                | "sub"
                | "mul"
                | "shl"
                | "lshr"
                | "ashr"
                | "and"
                | "or"
                | "xor"
                | "sdiv"
                | "srem"
                | "udiv"
                | "urem"
                | "icmp"
        ) {
            continue;
        }
        // Flags and the predicate come before the type; `A, B` after it.
        let operands = words
            .skip_while(|word| !word.starts_with('i'))
            .skip(1)
            .collect::<Vec<_>>()
            .join(" ");
        let (first, second) = operands.split_once(", ").unwrap();
        if (!first.starts_with('%') && !second.starts_with('%')) || first == second {
            foldable.push(line.trim().to_string());
        }
        checked += 1;
    }
    (foldable, checked)
}

#[test]
fn no_binary_operation_or_compare_is_one_clang_would_fold() {
    let (foldable, checked) = foldable_operations(&generate(&GenConfig::default()));
    assert_eq!(foldable, Vec::<String>::new());
    assert!(checked > 5_000, "only {checked} operations checked");
    let (foldable, checked) = foldable_operations(
        "  %2 = icmp ult i32 4, 5, !dbg !3\n  %3 = or disjoint i32 %1, %1\n  %4 = add nsw i32 %1, 2\n",
    );
    assert_eq!(
        foldable,
        [
            "%2 = icmp ult i32 4, 5, !dbg !3",
            "%3 = or disjoint i32 %1, %1"
        ]
    );
    assert_eq!(checked, 3);
}

/// Numbers `%N` mentioned in `text`, except block labels (`label %N`).
fn value_operands(text: &str) -> Vec<usize> {
    let mut operands = Vec::new();
    let mut rest = text;
    while let Some(position) = rest.find('%') {
        let before = &rest[..position];
        let digits: String = rest[position + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if !digits.is_empty() && !before.ends_with("label ") {
            operands.push(digits.parse().unwrap());
        }
        rest = &rest[position + 1..];
    }
    operands
}

struct ParsedBlock {
    label: usize,
    /// (line, defined value) in order; records and instructions alike.
    lines: Vec<(String, Option<usize>)>,
    successors: Vec<usize>,
}

/// Splits one function body into blocks with their lines and successors.
fn parse_blocks(entry_label: usize, body: &str) -> Vec<ParsedBlock> {
    let mut blocks = vec![ParsedBlock {
        label: entry_label,
        lines: Vec::new(),
        successors: Vec::new(),
    }];
    for line in body.lines().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        if let Some((label, _)) = line.split_once(':').filter(|_| !line.starts_with(' ')) {
            blocks.push(ParsedBlock {
                label: label.parse().unwrap(),
                lines: Vec::new(),
                successors: Vec::new(),
            });
            continue;
        }
        let block = blocks.last_mut().unwrap();
        for target in line.split("label %").skip(1) {
            let digits: String = target.chars().take_while(char::is_ascii_digit).collect();
            block.successors.push(digits.parse().unwrap());
        }
        let defined = line
            .trim_start()
            .split_once(" = ")
            .and_then(|(name, _)| name.strip_prefix('%'))
            .and_then(|number| number.parse().ok());
        block.lines.push((line.to_string(), defined));
    }
    blocks
}

/// Uses (in instructions, phis and debug records) whose definition does not
/// dominate them, as "%N in LINE"; and how many uses were checked.
fn undominated_uses(text: &str) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut checked_uses = 0;
    for function in text.split("\ndefine ").skip(1) {
        let body = function.split("\n}\n").next().unwrap();
        let header = body.lines().next().unwrap();
        let params = header.matches(" %").count();
        let blocks = parse_blocks(params, body);
        let index_of = |label: usize| {
            blocks
                .iter()
                .position(|block| block.label == label)
                .unwrap()
        };
        // Dominator sets by the classic iterative data flow.
        let count = blocks.len();
        let mut predecessors = vec![Vec::new(); count];
        for (index, block) in blocks.iter().enumerate() {
            for &successor in &block.successors {
                predecessors[index_of(successor)].push(index);
            }
        }
        let mut dominators: Vec<Vec<bool>> = vec![vec![true; count]; count];
        dominators[0] = (0..count).map(|index| index == 0).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for index in 1..count {
                let mut new: Vec<bool> = vec![true; count];
                for &pred in &predecessors[index] {
                    for (slot, dominates) in new.iter_mut().zip(&dominators[pred]) {
                        *slot &= *dominates;
                    }
                }
                new[index] = true;
                if new != dominators[index] {
                    dominators[index] = new;
                    changed = true;
                }
            }
        }
        let mut definition = std::collections::HashMap::new();
        for (block_index, block) in blocks.iter().enumerate() {
            for (position, (_, defined)) in block.lines.iter().enumerate() {
                if let Some(value) = defined {
                    definition.insert(*value, (block_index, position));
                }
            }
        }
        // Is the definition of `value` available at `position` of block `at`?
        let available = |value: usize, at: usize, position: usize| -> bool {
            if value < params {
                return true;
            }
            let Some(&(block, defined_at)) = definition.get(&value) else {
                return false;
            };
            if block == at {
                defined_at < position
            } else {
                dominators[at][block]
            }
        };
        for (block_index, block) in blocks.iter().enumerate() {
            for (position, (line, _)) in block.lines.iter().enumerate() {
                let used_text = line
                    .split_once(" = ")
                    .map_or(line.as_str(), |(_, rest)| rest);
                if used_text.starts_with("phi ") {
                    // Each incoming value must be available at the end of its predecessor.
                    for pair in used_text.split("[ ").skip(1) {
                        let (value, pred) = pair.split_once(", %").unwrap();
                        let pred: usize = pred.split(' ').next().unwrap().parse().unwrap();
                        let pred_index = index_of(pred);
                        for operand in value_operands(value) {
                            let end = blocks[pred_index].lines.len();
                            if !available(operand, pred_index, end) {
                                problems.push(format!("%{operand} in {}", line.trim()));
                            }
                            checked_uses += 1;
                        }
                    }
                } else {
                    for operand in value_operands(used_text) {
                        if !available(operand, block_index, position) {
                            problems.push(format!("%{operand} in {}", line.trim()));
                        }
                        checked_uses += 1;
                    }
                }
            }
        }
    }
    (problems, checked_uses)
}

#[test]
fn every_use_in_an_instruction_or_debug_record_is_dominated_by_its_definition() {
    let (problems, checked_uses) = undominated_uses(&generate(&GenConfig::default()));
    assert_eq!(problems, Vec::<String>::new());
    assert!(checked_uses > 30_000, "only {checked_uses} uses checked");
}

#[test]
fn the_dominance_check_finds_uses_from_a_sibling_branch() {
    // %4 is defined on one side of the diamond and used after the join and in a record.
    let broken = "
define i32 @f(i32 noundef %0) {
  %2 = icmp eq i32 %0, 0
  br i1 %2, label %3, label %5

3:                                                ; preds = %1
  %4 = add i32 %0, 1
  br label %5

5:                                                ; preds = %1, %3
  %6 = phi i32 [ %4, %1 ], [ %4, %3 ]
    #dbg_value(i32 %4, !9, !DIExpression(), !10)
  ret i32 %6
}
";
    let (problems, checked_uses) = undominated_uses(broken);
    assert_eq!(
        problems,
        [
            "%4 in %6 = phi i32 [ %4, %1 ], [ %4, %3 ]",
            "%4 in #dbg_value(i32 %4, !9, !DIExpression(), !10)"
        ]
    );
    assert_eq!(checked_uses, 7);
}

#[test]
fn opt_19_and_llc_19_accept_the_default_module() {
    let (Some(opt), Some(llc)) = (find_tool("opt-19"), find_tool("llc-19")) else {
        eprintln!("\n!!! SKIPPED: opt-19 or llc-19 is not installed; the generated module was NOT checked by LLVM !!!\n");
        return;
    };
    let directory = tempfile::tempdir().unwrap();
    let module = directory.path().join("bench_module.ll");
    std::fs::write(&module, generate(&GenConfig::default())).unwrap();
    let module = module.to_str().unwrap();
    run(&opt, &["-passes=verify", "-disable-output", module]);
    let object = directory.path().join("bench_module.o");
    let object = object.to_str().unwrap();
    run(
        &llc,
        &[
            "-O2",
            "-filetype=obj",
            "-relocation-model=pic",
            module,
            "-o",
            object,
        ],
    );
    assert!(Path::new(object).metadata().unwrap().len() > 100_000);
    if let Some(dwarfdump) = find_tool("llvm-dwarfdump-19") {
        let output = Command::new(dwarfdump)
            .args(["--verify", object])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("No errors."),
            "{stdout}"
        );
    }
}
