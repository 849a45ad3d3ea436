//! The generated module: deterministic, of the promised size and shape, and
//! accepted by LLVM 19 (opt-19 verifier, llc-19 code generation, and
//! llvm-dwarfdump-19 --verify on llc's object).

use std::path::Path;
use std::process::Command;

use dwarfsmith_bench::generate::{generate, GenConfig};

fn tool(name: &str) -> Option<String> {
    let found = Command::new("which").arg(name).output().ok()?;
    found
        .status
        .success()
        .then(|| String::from_utf8_lossy(&found.stdout).trim().to_string())
}

fn run(program: &str, args: &[&str]) {
    let output = Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{program} {args:?} failed:\n{}",
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

#[test]
fn opt_19_and_llc_19_accept_the_default_module() {
    let (Some(opt), Some(llc)) = (tool("opt-19"), tool("llc-19")) else {
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
    if let Some(dwarfdump) = tool("llvm-dwarfdump-19") {
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
