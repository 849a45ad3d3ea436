//! Empty and odd inputs: an empty module is valid (`opt` prints it,
//! `compile` writes an object with no code, and no DWARF when there is no
//! compile unit); the target triple and datalayout must describe x86-64 ELF.

mod support;

use std::path::Path;
use std::process::Command;

use support::{compile_ll, dwarfdump_verify, dwarfsmith, run};

/// Sections of an object, by name, as readelf lists them.
fn section_names(object: &Path) -> Vec<String> {
    let out = run(Command::new("readelf").arg("-SW").arg(object));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once("] ")?;
            rest.split_whitespace().next().map(str::to_string)
        })
        .filter(|name| name != "Name" && name != "NULL")
        .collect()
}

/// Compiles `text` (written to DIR/NAME.ll) to DIR/NAME.o and returns the
/// object, asserting success.
fn compile(dir: &Path, name: &str, text: &str, flags: &[&str]) -> std::path::PathBuf {
    let input = dir.join(format!("{name}.ll"));
    std::fs::write(&input, text).unwrap();
    compile_ll(dir, &input, name, flags)
}

/// Links `object` with a C main that prints "linked" and runs it.
fn link_and_run(dir: &Path, object: &Path) -> String {
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\nint main(void) { puts(\"linked\"); return 0; }\n",
    )
    .unwrap();
    let exe = object.with_extension("exe");
    let out = run(Command::new("gcc")
        .arg(&main)
        .arg(object)
        .arg("-o")
        .arg(&exe));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&mut Command::new(&exe));
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

const CU_ONLY: &str = r#"source_filename = "cuonly.c"
target triple = "x86_64-pc-linux-gnu"

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "cuonly.c", directory: "/tmp")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
"#;

#[test]
fn an_empty_module_compiles_to_an_object_without_code_or_dwarf() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("empty", ""), ("comment", "; nothing here\n\n")] {
        let object = compile(dir.path(), name, text, &[]);
        assert_eq!(
            section_names(&object),
            [
                ".text",
                ".note.GNU-stack",
                ".symtab",
                ".strtab",
                ".shstrtab"
            ],
            "{name}"
        );
        // Nothing to check is a finding of `verify` (exit 1), not a pass.
        let out = dwarfsmith(&["verify", object.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.contains(": no DWARF to check: "), "{name}: {said}");
        let (ok, report) = dwarfdump_verify(&object);
        assert!(ok, "{name}: {report}");
        assert_eq!(link_and_run(dir.path(), &object), "linked\n");
    }
}

#[test]
fn a_compile_unit_without_functions_gives_valid_dwarf() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile(dir.path(), "cuonly", CU_ONLY, &[]);
    let sections = section_names(&object);
    assert!(sections.iter().any(|s| s == ".debug_info"), "{sections:?}");
    let out = dwarfsmith(&["verify", object.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let (ok, report) = dwarfdump_verify(&object);
    assert!(ok, "{report}");
    assert_eq!(link_and_run(dir.path(), &object), "linked\n");
}

#[test]
fn a_module_without_a_compile_unit_gets_no_dwarf_even_with_g() {
    let dir = tempfile::tempdir().unwrap();
    let text = "define i32 @seven() {\n  ret i32 7\n}\n";
    let with_g = compile(dir.path(), "nocu", text, &["-g"]);
    let without_g = compile(dir.path(), "nocu", text, &["-g0"]);
    assert!(
        !section_names(&with_g)
            .iter()
            .any(|s| s.starts_with(".debug")),
        "{:?}",
        section_names(&with_g)
    );
    assert_eq!(
        std::fs::read(with_g).unwrap(),
        std::fs::read(without_g).unwrap()
    );
}

#[test]
fn opt_prints_an_empty_module_that_llvm_as_accepts() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("empty", ""), ("cuonly", CU_ONLY)] {
        let input = dir.path().join(format!("{name}.ll"));
        std::fs::write(&input, text).unwrap();
        let printed = dir.path().join(format!("{name}.printed.ll"));
        let out = dwarfsmith(&[
            "opt",
            input.to_str().unwrap(),
            "-o",
            printed.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = run(Command::new("llvm-as-19")
            .arg(&printed)
            .arg("-o")
            .arg("/dev/null"));
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Compiles a one-function module with this triple and datalayout lines and
/// returns (success, stderr).
fn compile_with_target(triple_line: &str, layout_line: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("t.ll");
    std::fs::write(
        &input,
        format!(
            "; target\n{layout_line}\n{triple_line}\n\ndefine i32 @seven() {{\n  ret i32 7\n}}\n"
        ),
    )
    .unwrap();
    let object = dir.path().join("t.o");
    let out = dwarfsmith(&[
        "compile",
        input.to_str().unwrap(),
        "-o",
        object.to_str().unwrap(),
    ]);
    assert_eq!(out.status.success(), object.exists());
    let stderr = String::from_utf8_lossy(&out.stderr).replace(input.to_str().unwrap(), "t.ll");
    (out.status.success(), stderr)
}

const CLANG19_LAYOUT: &str = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"";

#[test]
fn x86_64_elf_triples_are_accepted() {
    for triple in [
        "x86_64-pc-linux-gnu",
        "x86_64-unknown-linux-gnu",
        "x86_64-unknown-none-elf",
        "x86_64-linux",
        "x86_64-unknown-linux-musl",
    ] {
        let (ok, stderr) =
            compile_with_target(&format!("target triple = \"{triple}\""), CLANG19_LAYOUT);
        assert!(ok, "{triple}: {stderr}");
    }
    let (ok, stderr) = compile_with_target("", "");
    assert!(ok, "no triple, no datalayout: {stderr}");
    let clang14 = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128\"";
    let (ok, stderr) = compile_with_target("", clang14);
    assert!(ok, "clang 14 datalayout: {stderr}");
}

#[test]
fn other_triples_are_rejected_naming_the_triple() {
    for triple in [
        "i686-pc-linux-gnu",
        "x86_64-pc-windows-msvc",
        "aarch64-unknown-linux-gnu",
        "x86_64-apple-macosx14.0.0",
        "x86_64-unknown-linux-gnux32",
    ] {
        let (ok, stderr) = compile_with_target(&format!("target triple = \"{triple}\""), "");
        assert!(!ok);
        assert_eq!(
            stderr,
            format!(
                "t.ll:3:17: error: unsupported target triple \"{triple}\": dwarfsmith generates \
                 x86-64 ELF objects for the System V ABI (e.g. x86_64-pc-linux-gnu, \
                 x86_64-unknown-none-elf)\n"
            )
        );
    }
}

#[test]
fn a_foreign_datalayout_is_rejected_naming_it() {
    for (layout, wrong) in [
        (
            "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64",
            "'p:32:32'",
        ),
        ("E-m:e-i64:64-n32:64-S128", "'E'"),
        (
            "e-m:w-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128",
            "'m:w'",
        ),
        ("e-m:e-n8:16:32:64-S128", "no 'i64:64'"),
    ] {
        let (ok, stderr) = compile_with_target("", &format!("target datalayout = \"{layout}\""));
        assert!(!ok);
        assert_eq!(
            stderr,
            format!(
                "t.ll:2:21: error: unsupported target datalayout \"{layout}\": {wrong} does not \
                 describe x86-64 ELF\n"
            )
        );
    }
}

#[test]
fn opt_prints_foreign_targets_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("win.ll");
    let text =
        "target triple = \"x86_64-pc-windows-msvc\"\n\ndefine i32 @seven() {\n  ret i32 7\n}\n";
    std::fs::write(&input, text).unwrap();
    let out = dwarfsmith(&["opt", input.to_str().unwrap(), "-o", "-"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("target triple = \"x86_64-pc-windows-msvc\"")
    );
}
