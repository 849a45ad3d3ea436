//! Floating-point and vector constants in the mergeable literal sections,
//! as llc-19 places them: `fixtures/linkage/literals_lib.c` (float and
//! double constants, a sign mask, vector constants of the vectorised
//! loops), compiled by clang-19 -O2 -g to IR, by dwarfsmith and by llc-19.
//! The `.rodata.cst4/.cst8/.cst16` section headers (type, flags SHF_ALLOC |
//! SHF_MERGE, entry size, alignment) equal llc's, no constant is left in
//! `.rodata`, every reference to a literal is an `R_X86_64_PC32` against a
//! local `.LCPI<f>_<n>` label with addend -4 as llc's are, the program
//! linked by gcc prints what the gcc -O0 build prints, the object is
//! byte-identical between runs, `-g0` gives the same `.text`, both
//! verifiers are clean, and the model reads back from the object
//! (literals included).

mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use support::{
    clang_ir, compile_ir, dwarfdump_verify, dwarfsmith, fixture, gcc_link_and_run, readelf, run,
    text_section,
};

use dwarfsmith::{compile_to_model, write_options, CompileOptions, DebuggerTune, OptLevel};
use dwarfsmith_emit::verify::round_trip;

/// `readelf -S` rows of the sections named `.rodata*`, without their
/// file offsets and sizes: (name, type, entry size, flags, alignment).
fn rodata_headers(object: &Path) -> Vec<[String; 5]> {
    readelf("-S", object)
        .lines()
        .filter_map(|line| {
            let line = line.split(']').nth(1)?;
            let f: Vec<&str> = line.split_whitespace().collect();
            f[0].starts_with(".rodata")
                .then(|| [f[0], f[1], f[5], f[6], f[9]].map(str::to_string))
        })
        .collect()
}

/// (type, symbol, addend) of every `.rela.text` relocation naming a
/// `.LCPI` label, the label's numbers replaced by `N`.
fn literal_relocations(object: &Path) -> BTreeSet<(String, String, String)> {
    readelf("-r", object)
        .lines()
        .filter(|line| line.contains(".LCPI"))
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let label: String = f[4]
                .chars()
                .map(|c| if c.is_ascii_digit() { 'N' } else { c })
                .collect();
            (f[2].to_string(), label, format!("{}{}", f[5], f[6]))
        })
        .collect()
}

#[test]
fn constants_live_in_mergeable_literal_sections_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let ir = clang_ir(dir, "linkage/literals_lib.c", &["-O2", "-g"]);
    let ours = compile_ir(dir, "ours", &ir, &[]);
    let ll = dir.join("llc.ll");
    std::fs::write(&ll, &ir).unwrap();
    let llc = dir.join("llc.o");
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-o"])
        .arg(&llc)
        .arg(&ll));
    assert!(out.status.success(), "{out:?}");

    let headers = rodata_headers(&ours);
    assert_eq!(
        headers,
        [
            [".rodata.cst4", "PROGBITS", "04", "AM", "4"],
            [".rodata.cst8", "PROGBITS", "08", "AM", "8"],
            [".rodata.cst16", "PROGBITS", "10", "AM", "16"],
        ]
        .map(|row| row.map(str::to_string))
    );
    assert_eq!(headers, rodata_headers(&llc));
    let relocations = literal_relocations(&ours);
    assert_eq!(
        relocations,
        BTreeSet::from([(
            "R_X86_64_PC32".to_string(),
            ".LCPIN_N".to_string(),
            "-4".to_string()
        )])
    );
    assert_eq!(relocations, literal_relocations(&llc));
    let labels = readelf("-s", &ours)
        .lines()
        .filter(|l| l.contains(".LCPI"))
        .filter(|l| l.contains("NOTYPE  LOCAL  DEFAULT"))
        .count();
    assert_eq!(labels, 16);

    let main_c = fixture("linkage/literals_main.c");
    let expected = gcc_link_and_run(
        dir,
        "gcc.exe",
        &[fixture("linkage/literals_lib.c"), main_c.clone()],
        &["-O0"],
    );
    assert_eq!(
        expected,
        "7.625 4.0390625 -1.9990000000000001 -0.499\n7 28 67 4 7.375 10.75\n"
    );
    assert_eq!(
        gcc_link_and_run(dir, "ours.exe", &[ours.clone(), main_c], &[]),
        expected
    );

    let again = compile_ir(dir, "again", &ir, &[]);
    assert_eq!(
        std::fs::read(&ours).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let g0 = compile_ir(dir, "g0", &ir, &["-g0"]);
    assert_eq!(text_section(dir, &ours), text_section(dir, &g0));
    let (clean, report) = dwarfdump_verify(&ours);
    assert!(clean, "{report}");
    let verified = dwarfsmith(&["verify", ours.to_str().unwrap()]);
    assert!(verified.status.success(), "{verified:?}");

    let options = CompileOptions {
        opt_level: OptLevel::O2,
        debug_info: true,
        debugger_tune: DebuggerTune::Gdb,
    };
    let model = compile_to_model(&ir, "literals_lib.ll", &options).unwrap();
    let literals: usize = model.functions.iter().map(|f| f.literals.len()).sum();
    assert_eq!(literals, 16);
    round_trip(&model, &write_options(&options)).unwrap();
}
