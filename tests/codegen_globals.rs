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
//! the relative table is PC32 relocations with the addends llc uses, and
//! `llvm-dwarfdump-19 --verify` is clean.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{dwarfdump_verify, dwarfsmith, fixture, run};

/// The IR of globals_lib.c as clang-19 -O2 -g prints it, written into `dir`.
fn lib_ir(dir: &Path) -> PathBuf {
    let ll = dir.join("globals_lib.ll");
    let out = run(Command::new("clang-19")
        .args(["-O2", "-g", "-S", "-emit-llvm", "-o"])
        .arg(&ll)
        .arg(fixture("src/globals/globals_lib.c")));
    assert!(
        out.status.success(),
        "clang-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    ll
}

/// Our object of globals_lib.c.
fn our_object(dir: &Path, ll: &Path) -> PathBuf {
    let object = dir.join("globals_lib.o");
    let out = dwarfsmith(&[
        "compile",
        ll.to_str().unwrap(),
        "-o",
        object.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "dwarfsmith: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

fn gcc_link_and_run(dir: &Path, name: &str, inputs: &[PathBuf]) -> String {
    let exe = dir.join(name);
    let out = run(Command::new("gcc")
        .arg("-O0")
        .args(inputs)
        .arg("-o")
        .arg(&exe));
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&mut Command::new(&exe));
    assert!(out.status.success(), "{name} exited with {}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// `readelf -W` output for `flag` of `object`.
fn readelf(flag: &str, object: &Path) -> String {
    let out = run(Command::new("readelf").arg("-W").arg(flag).arg(object));
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// (type, binding, visibility) of each named symbol in `readelf -s` output.
fn symbol_kinds(symbols: &str, names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .map(|name| {
            let row = symbols
                .lines()
                .find(|line| line.split_whitespace().nth(7) == Some(name))
                .unwrap_or_else(|| panic!("no symbol {name} in\n{symbols}"));
            let fields: Vec<&str> = row.split_whitespace().collect();
            (name.to_string(), fields[3..6].join(" "))
        })
        .collect()
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
    let ll = lib_ir(dir.path());
    let ours = our_object(dir.path(), &ll);
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
    );
    let got = gcc_link_and_run(dir.path(), "ours.exe", &[main_o, ours.clone()]);
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
    let ll = lib_ir(dir.path());
    let ours = our_object(dir.path(), &ll);
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
            ".str.8 0",
            ".str.9 4",
            ".str.10 8",
            ".str.11 c",
            ".str.12 10"
        ]
    );
}
