//! Bitfields under the debugger: `fixtures/src/debug/bitfield.c` compiled by
//! clang-19 -O2 -g and dwarfsmith, linked with gcc. Its bitfield members
//! carry DW_AT_bit_size and DW_AT_data_bit_offset (as LLVM writes them for
//! DWARF 5), so gdb prints each member's own bits (not the whole storage
//! unit), exactly as it does for the gcc -O0 build, and `ptype` shows the
//! widths. The object passes `llvm-dwarfdump-19 --verify`.

mod support;

use std::path::Path;

use expect_test::expect;
use support::{clang_ir, dwarfdump_verify, fixture, gcc_link, gdb_batch, llvm_dwarfdump, run};

use dwarfsmith::{compile, CompileOptions, DebuggerTune, OptLevel};

/// The gdb commands: stop after both calls and print both structs.
const COMMANDS: &[&str] = &[
    "break bitfield.c:26",
    "run",
    "print global_flags",
    "print local",
    "print local.big",
    "ptype struct flags",
];

/// What gdb printed after the breakpoint was reached.
fn printed(exe: &Path) -> String {
    let text = gdb_batch(exe, COMMANDS);
    let start = text.find("$1 = ").unwrap_or_else(|| panic!("{text}"));
    text[start..].to_string()
}

#[test]
fn gdb_prints_bitfield_members_as_the_gcc_build_does() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "src/debug/bitfield.c", &["-O2", "-g"]);
    assert!(ir.contains("DIFlagBitField"), "no bitfield in the IR");
    let options = CompileOptions {
        opt_level: OptLevel::O2,
        debug_info: true,
        debugger_tune: DebuggerTune::Gdb,
    };
    let bytes = compile(&ir, "bitfield.ll", &options).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.path().join("bitfield.o");
    std::fs::write(&object, bytes).unwrap();
    let (clean, report) = dwarfdump_verify(&object);
    assert!(clean, "{report}");

    let dump = run(std::process::Command::new(llvm_dwarfdump())
        .arg("--debug-info")
        .arg(&object));
    let dump = String::from_utf8_lossy(&dump.stdout);
    let members: Vec<String> = dump
        .split("\n\n")
        .filter(|die| die.contains("DW_TAG_member") && die.contains("DW_AT_bit_size"))
        .map(|die| {
            die.lines()
                .filter(|l| l.contains("DW_AT_name") || l.contains("bit_"))
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join("; ")
        })
        .collect();
    expect![[r#"
        DW_AT_name ("low"); DW_AT_bit_size (3); DW_AT_data_bit_offset (8)
        DW_AT_name ("delta"); DW_AT_bit_size (5); DW_AT_data_bit_offset (11)
        DW_AT_name ("wide"); DW_AT_bit_size (12); DW_AT_data_bit_offset (16)
        DW_AT_name ("one"); DW_AT_bit_size (1); DW_AT_data_bit_offset (28)
        DW_AT_name ("big"); DW_AT_bit_size (20); DW_AT_data_bit_offset (32)"#]]
    .assert_eq(&members.join("\n"));

    let ours = dir.path().join("ours");
    gcc_link(&ours, &[object], &["-g"]);
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[fixture("src/debug/bitfield.c")],
        &["-O0", "-g"],
    );
    let printed_ours = printed(&ours);
    assert_eq!(printed_ours, printed(&reference));
    expect![[r#"
        $1 = {tag = 103 'g', low = 5, delta = -7, wide = 3000, one = 1, big = -400000}
        $2 = {tag = 108 'l', low = 2, delta = 11, wide = 4095, one = 0, big = 123456}
        $3 = 123456
        type = struct flags {
            char tag;
            unsigned int low : 3;
            int delta : 5;
            unsigned int wide : 12;
            unsigned int one : 1;
            int big : 20;
        }
    "#]]
    .assert_eq(&printed_ours);
}
