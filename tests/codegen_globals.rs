//! Globals, linkage and visibility end to end: `fixtures/src/globals/globals_lib.c`
//! compiled at test time by `clang-19 -O2 -g -S -emit-llvm`, then by
//! dwarfsmith, linked with the gcc-compiled `globals_main.c` (which
//! overrides two weak definitions and calls a hidden function across the
//! objects), run, and its output compared byte for byte with the gcc -O0
//! build of both files: constructors in priority order before main,
//! destructors after it, weak symbols overridden by strong ones, a hidden
//! counter shared by both objects, globals initialised with addresses of
//! globals, functions and array elements, a relative lookup table
//! (`trunc (sub (ptrtoint @str, ptrtoint @table))` read through
//! `llvm.load.relative`), `section` and `align` on globals. The object's
//! symbols are bound and seen as llc-19 binds them (same type, binding and
//! visibility), its constructor sections are named and typed as llc-19's,
//! the relative table is PC32 relocations with the addends llc uses, the
//! string constants are in a mergeable `.rodata.str1.1` as llc's, and
//! `llvm-dwarfdump-19 --verify` is clean.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{
    clang_ir, compile_ir, dwarfdump_verify, fixture, gcc_link_and_run, readelf, run, symbol_kinds,
};

/// Our object of globals_lib.c, from clang-19 -O2 -g IR (the IR file
/// beside it in `dir`), and the IR's path.
fn lib_object(dir: &Path) -> (PathBuf, PathBuf) {
    let ir = clang_ir(dir, "src/globals/globals_lib.c", &["-O2", "-g"]);
    let object = compile_ir(dir, "globals_lib", &ir, &[]);
    (object, dir.join("globals_lib.ll"))
}

/// Name and type of the constructor and destructor sections, in order.
fn structor_sections(sections: &str) -> Vec<String> {
    let mut found: Vec<String> = sections
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(']').nth(1)?.split_whitespace().take(2).collect();
            let [name, kind] = fields[..] else {
                return None;
            };
            (name.starts_with(".init_array") || name.starts_with(".fini_array"))
                .then(|| format!("{name} {kind}"))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn globals_link_and_run_like_gcc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, _) = lib_object(dir.path());
    let main_o = dir.path().join("globals_main.o");
    let out = run(Command::new("gcc")
        .args(["-O0", "-c", "-o"])
        .arg(&main_o)
        .arg(fixture("src/globals/globals_main.c")));
    assert!(out.status.success());
    let expected = gcc_link_and_run(
        dir.path(),
        "gcc.exe",
        &[
            fixture("src/globals/globals_main.c"),
            fixture("src/globals/globals_lib.c"),
        ],
        &["-O0"],
    );
    let got = gcc_link_and_run(dir.path(), "ours.exe", &[main_o, ours.clone()], &[]);
    assert_eq!(got, expected);
    // The run itself shows the order: what gcc's build prints.
    assert!(expected.starts_with(
        "ctor 101 (hidden_counter 0)\nctor 200 (hidden_counter 1)\nctor default (hidden_counter 2)\nmain (hidden_counter 3)\n"
    ));
    assert!(expected.contains("weak 223\n"), "{expected}");
    assert!(expected.contains("name_of(4) = four\nname_of(5) = many\n"));
    let (clean, report) = dwarfdump_verify(&ours);
    assert!(clean, "{report}");
}

#[test]
fn symbols_and_sections_match_llc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, ll) = lib_object(dir.path());
    let theirs = dir.path().join("llc.o");
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-o"])
        .arg(&theirs)
        .arg(&ll));
    assert!(
        out.status.success(),
        "llc-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = [
        "hidden_add",
        "protected_value",
        "hidden_counter",
        "weak_value",
        "weak_kept",
        "weak_data",
        "in_section",
        "aligned_array",
        "lib_report",
    ];
    let our_symbols = symbol_kinds(&readelf("-s", &ours), &names);
    assert_eq!(our_symbols, symbol_kinds(&readelf("-s", &theirs), &names));
    assert_eq!(
        our_symbols[..4],
        [
            ("hidden_add".to_string(), "FUNC GLOBAL HIDDEN".to_string()),
            (
                "protected_value".to_string(),
                "OBJECT GLOBAL PROTECTED".to_string()
            ),
            (
                "hidden_counter".to_string(),
                "OBJECT GLOBAL HIDDEN".to_string()
            ),
            ("weak_value".to_string(), "FUNC WEAK DEFAULT".to_string()),
        ]
    );
    let our_sections = readelf("-S", &ours);
    assert_eq!(
        structor_sections(&our_sections),
        structor_sections(&readelf("-S", &theirs))
    );
    assert_eq!(
        structor_sections(&our_sections),
        [
            ".fini_array FINI_ARRAY",
            ".fini_array.150 FINI_ARRAY",
            ".init_array INIT_ARRAY",
            ".init_array.101 INIT_ARRAY",
            ".init_array.200 INIT_ARRAY",
        ]
    );
    assert!(our_sections.contains(" .data.custom "), "{our_sections}");
    // The unnamed_addr string constants are mergeable, as llc places them:
    // type, entry size, flags and alignment of `.rodata.str1.1`.
    let strings = |sections: &str| {
        sections
            .lines()
            .find(|l| l.contains(" .rodata.str1.1 "))
            .map(|l| {
                let fields: Vec<&str> = l.split(']').nth(1).unwrap().split_whitespace().collect();
                format!("{} {} {} {}", fields[1], fields[5], fields[6], fields[9])
            })
    };
    assert_eq!(
        strings(&our_sections),
        Some("PROGBITS 01 AMS 1".to_string())
    );
    assert_eq!(strings(&our_sections), strings(&readelf("-S", &theirs)));
    // The relative lookup table: five PC32 fields, each `str - table`, the
    // addend the entry's own offset (llc's addends also carry the string's
    // offset in its merged section, which we do not use).
    let relocations = readelf("-r", &ours);
    let rodata = relocations
        .split("Relocation section ")
        .find(|part| part.starts_with("'.rela.rodata'"))
        .unwrap_or_else(|| panic!("no .rela.rodata in\n{relocations}"));
    let table: Vec<String> = rodata
        .lines()
        .filter(|line| line.contains("R_X86_64_PC32"))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            format!("{} {}", fields[4], fields[6])
        })
        .collect();
    assert_eq!(
        table,
        [
            ".L.str.8 0",
            ".L.str.9 4",
            ".L.str.10 8",
            ".L.str.11 c",
            ".L.str.12 10"
        ]
    );
}

/// Quoted names with LLVM's escapes: `@"\01name"` is the symbol `name` (the
/// `\01` marker says "no mangling", and ELF has none to suppress) and a `\XX`
/// escape is that byte; gcc-compiled code links against both, and llc-19
/// names them the same.
#[test]
fn escaped_and_unmangled_names_are_the_symbols_llc_writes() {
    let dir = tempfile::tempdir().unwrap();
    let ir = "target triple = \"x86_64-pc-linux-gnu\"\n\
              @\"\\01plain_counter\" = global i32 41, align 4\n\
              define i32 @\"\\01bump\"() {\n\
              \x20 %v = load i32, ptr @\"\\01plain_counter\", align 4\n\
              \x20 %w = add i32 %v, 1\n\
              \x20 store i32 %w, ptr @\"\\01plain_counter\", align 4\n\
              \x20 ret i32 %w\n\
              }\n\
              define i32 @\"with\\2Edot\"() {\n\
              \x20 ret i32 7\n\
              }\n";
    let ours = compile_ir(dir.path(), "names", ir, &[]);
    let ll = dir.path().join("names.ll");
    let reference = dir.path().join("names.llc.o");
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-relocation-model=pic", "-o"])
        .arg(&reference)
        .arg(&ll));
    assert!(out.status.success(), "llc-19 failed");
    let names = ["plain_counter", "bump", "with.dot"];
    assert_eq!(
        symbol_kinds(&readelf("-s", &ours), &names),
        symbol_kinds(&readelf("-s", &reference), &names)
    );
    let main = dir.path().join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\nint bump(void); extern int plain_counter;\n\
         int main(void) { bump(); printf(\"%d\\n\", bump() + plain_counter); return 0; }\n",
    )
    .unwrap();
    assert_eq!(
        gcc_link_and_run(dir.path(), "names", &[main, ours], &[]),
        "86\n"
    );
}
