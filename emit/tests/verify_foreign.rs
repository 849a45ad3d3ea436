//! `emit::verify` on objects other compilers made (nothing to find), and
//! on copies broken one byte at a time (each must be found, and named).
//!
//! The broken copies patch bytes whose meaning was read off
//! `llvm-dwarfdump -v` / `readelf`; each patch first checks the bytes it
//! replaces, so a regenerated fixture fails loudly instead of testing
//! nothing.

mod read_support;

use dwarfsmith_emit::verify::{verify, verify_with, VerifyOptions};
use expect_test::{expect, Expect};
use read_support::{fixture, fixture_objects};

#[test]
fn verify_finds_nothing_wrong_in_gcc_clang_and_llc_objects() {
    let mut report = String::new();
    for path in fixture_objects() {
        let bytes = std::fs::read(&path).expect("fixture object");
        for problem in verify(&bytes) {
            report.push_str(&format!("{}: {problem}\n", path.display()));
        }
    }
    assert_eq!(report, "");
}

/// Fixture `name` with `old` at `offset` in `section` replaced by `new`.
fn patched(name: &str, section: &str, offset: usize, old: &[u8], new: &[u8]) -> Vec<u8> {
    let mut bytes = fixture(name);
    let elf = goblin::elf::Elf::parse(&bytes).expect("fixture parses");
    let header = elf
        .section_headers
        .iter()
        .find(|h| elf.shdr_strtab.get_at(h.sh_name) == Some(section))
        .unwrap_or_else(|| panic!("{name} has no {section}"));
    let start = header.sh_offset as usize + offset;
    assert_eq!(
        &bytes[start..start + old.len()],
        old,
        "{name} {section}+{offset:#x}"
    );
    bytes[start..start + new.len()].copy_from_slice(new);
    bytes
}

fn check(bytes: &[u8], expect: Expect) {
    let problems: Vec<String> = verify(bytes).iter().map(|p| p.to_string()).collect();
    expect.assert_eq(&problems.join("\n"));
}

#[test]
fn a_truncated_file_is_malformed() {
    let bytes = fixture("inlining.clang.o");
    check(
        &bytes[..bytes.len() / 2],
        expect!["malformed object: section headers: 24 entries at file offset 0xb98 run past the end of the file (0x8cc bytes): truncated?"],
    );
}

#[test]
fn not_an_elf_file() {
    check(
        b"!<arch>\nnot an object",
        expect!["malformed object: ELF header: Invalid magic number: 0xa3e686372613c21"],
    );
}

#[test]
fn a_location_list_entry_running_past_its_function() {
    // n: DW_LLE_offset_pair (0x33, 0x134) reg2; end 0x134 -> 0x1b4.
    let bytes = patched(
        "inlining.clang.o",
        ".debug_loclists",
        0x37,
        &[0xb4, 0x02],
        &[0xb4, 0x03],
    );
    check(&bytes, expect!["DIE 0x8a (n): location list entry [.text+0x33, .text+0x1b4 (past its end)) is not inside its subprogram's function (energy ends at .text+0x134)"]);
}

#[test]
fn overlapping_location_list_entries() {
    // n: DW_LLE_offset_pair (0, 0x33) reg4; end 0x33 -> 0x40, over (0x33, 0x134).
    let bytes = patched(
        "inlining.clang.o",
        ".debug_loclists",
        0x32,
        &[0x33],
        &[0x40],
    );
    check(&bytes, expect!["DIE 0x8a (n): location list entries [.text+0x0, .text+0x40) and [.text+0x33, .text+0x134) overlap"]);
}

#[test]
fn a_location_list_entry_running_backwards() {
    // n: DW_LLE_offset_pair (0x33, 0x134) -> (0x33, 0x14).
    let bytes = patched(
        "inlining.clang.o",
        ".debug_loclists",
        0x37,
        &[0xb4, 0x02],
        &[0x14, 0x00],
    );
    check(
        &bytes,
        expect![[r#"
            DIE 0x8a (n): location list entry [.text+0x33, .text+0x14) runs backwards
            DIE 0x8a (n): malformed location list entry: unexpected end of input"#]],
    );
}

#[test]
fn a_convert_naming_a_die_that_is_not_a_base_type() {
    // DW_OP_convert 0x27 (DW_ATE_unsigned_1) -> 0x0c (the compile unit).
    let bytes = patched(
        "select_diamond.clang.o",
        ".debug_loclists",
        0x4c,
        &[0xa7],
        &[0x8c],
    );
    check(&bytes, expect!["DIE 0x91 (neg): DW_OP_convert names unit offset 0xc, which is a DW_TAG_compile_unit, not a DW_TAG_base_type"]);
}

#[test]
fn pieces_larger_than_the_variable() {
    // a (struct pt, 8 bytes): DW_OP_reg5, DW_OP_piece 4 -> DW_OP_piece 16.
    let bytes = patched("structs.clang.o", ".debug_loclists", 0x2e, &[0x04], &[0x10]);
    check(
        &bytes,
        expect!["DIE 0x36 (a): pieces cover 16 of its 8 bytes"],
    );
}

#[test]
fn a_subprogram_range_that_is_not_its_symbols() {
    // energy: DW_AT_high_pc (data4) 0x134 -> 0x100.
    let bytes = patched(
        "inlining.clang.o",
        ".debug_info",
        0x73,
        &[0x34, 0x01],
        &[0x00, 0x01],
    );
    check(&bytes, expect!["DIE 0x71 (energy): subprogram range [.text+0x0, .text+0x100) is not that of a function symbol"]);
}

#[test]
fn a_function_no_fde_covers() {
    // energy's FDE: pc_range 0x134 -> 0x100.
    let bytes = patched(
        "inlining.clang.o",
        ".eh_frame",
        0x24,
        &[0x34, 0x01],
        &[0x00, 0x01],
    );
    check(
        &bytes,
        expect!["function energy [.text+0x0, .text+0x134) is not covered by an FDE in .eh_frame"],
    );
}

#[test]
fn a_line_sequence_outside_text() {
    // DW_LNE_set_address's relocation (.rela.debug_line entry 2): addend 0 -> 0x1000.
    let bytes = patched(
        "inlining.clang.o",
        ".rela.debug_line",
        2 * 24 + 16,
        &[0; 8],
        &[0, 0x10, 0, 0, 0, 0, 0, 0],
    );
    check(
        &bytes,
        expect![".debug_line: row at .text+0x1000 (past its end) (line 17) is outside every code section"],
    );
}

#[test]
fn a_relocation_outside_its_section() {
    // The same relocation's r_offset 0x4b -> 0x4b00.
    let bytes = patched(
        "inlining.clang.o",
        ".rela.debug_line",
        2 * 24,
        &[0x4b, 0],
        &[0, 0x4b],
    );
    check(&bytes, expect!["malformed object: .rela.debug_line+0x4b00: relocation field (8 bytes) runs past the end of .debug_line (0xc5 bytes)"]);
}

/// clang describes only the parts of a struct it knows: what `verify`
/// accepts, and what dwarfsmith's stricter promise does not.
#[test]
fn clang_leaves_parts_of_a_struct_undescribed() {
    let strict = VerifyOptions {
        pieces_cover_variables: true,
    };
    let problems: Vec<String> = verify_with(&fixture("structs.clang.o"), &strict)
        .iter()
        .map(|p| p.to_string())
        .collect();
    expect![[r#"
        DIE 0x36 (a): pieces cover 4 of its 8 bytes
        DIE 0x3f (b): pieces cover 4 of its 8 bytes
        DIE 0x3f (b): pieces cover 4 of its 8 bytes
        DIE 0x53 (d): pieces cover 4 of its 8 bytes
        DIE 0x53 (d): pieces cover 4 of its 8 bytes
        DIE 0x9f (a): pieces cover 4 of its 8 bytes
        DIE 0xa8 (b): pieces cover 4 of its 8 bytes
        DIE 0xb1 (m): pieces cover 4 of its 8 bytes
        DIE 0xb1 (m): pieces cover 4 of its 8 bytes"#]]
    .assert_eq(&problems.join("\n"));
}
