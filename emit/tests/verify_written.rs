//! `emit::verify` on objects dwarfsmith's own writer makes: a clean one,
//! and one whose line table is broken so that a sequence runs backwards.

use dwarfsmith_emit::model::{
    Aggregate, DebugInfo, Function, LineRow, Location, LocationArg, ObjectModel, Op, Scope,
    SourceFile, Subprogram, Type, Variable, VariableLocation,
};
use dwarfsmith_emit::verify::{verify, verify_with, VerifyOptions};
use dwarfsmith_emit::write::{write, WriteOptions};
use expect_test::{expect, Expect};

fn row(offset: u64, line: u32) -> LineRow {
    LineRow {
        offset,
        file: 0,
        line,
        column: 1,
        is_stmt: true,
        prologue_end: false,
        epilogue_begin: false,
    }
}

/// Two functions, one line sequence each.
fn two_functions() -> ObjectModel {
    let function = |name: &str| Function {
        name: name.into(),
        global: true,
        code: vec![0x90, 0x90, 0x90, 0xc3],
        ..Function::default()
    };
    ObjectModel {
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions: vec![function("first"), function("second")],
        data: vec![],
        debug: Some(DebugInfo {
            producer: "dwarfsmith".into(),
            language: 0x1d,
            name: "two.c".into(),
            comp_dir: "/src".into(),
            files: vec![SourceFile {
                name: "two.c".into(),
                directory: "/src".into(),
                md5: None,
            }],
            types: vec![],
            subprograms: vec![],
            line_rows: vec![vec![row(0, 1), row(2, 2)], vec![row(0, 5), row(3, 6)]],
            globals: vec![],
            ..Default::default()
        }),
    }
}

fn check(bytes: &[u8], expect: Expect) {
    let problems: Vec<String> = verify(bytes).iter().map(|p| p.to_string()).collect();
    expect.assert_eq(&problems.join("\n"));
}

#[test]
fn a_written_object_verifies_clean() {
    let bytes = write(&two_functions(), &WriteOptions::default()).expect("writes");
    check(&bytes, expect![[r#""#]]);
}

/// Turns the first sequence's `DW_LNE_end_sequence` into an unknown
/// extended opcode (which readers skip) and points the second sequence's
/// `DW_LNE_set_address` at `.text+0`: the first sequence then runs on from
/// `first`'s last row back to address 0.
#[test]
fn a_line_sequence_that_runs_backwards() {
    let written = write(&two_functions(), &WriteOptions::default()).expect("writes");
    let mut bytes = written.clone();
    let elf = goblin::elf::Elf::parse(&written).expect("parses");
    let section = |name: &str| {
        elf.section_headers
            .iter()
            .position(|h| elf.shdr_strtab.get_at(h.sh_name) == Some(name))
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let line = section(".debug_line");
    let (rela_index, relocations) = elf
        .shdr_relocs
        .iter()
        .find(|(index, _)| elf.section_headers[*index].sh_info as usize == line)
        .expect(".rela.debug_line");
    // The R_X86_64_64 relocations are the sequences' DW_LNE_set_address.
    let set_address: Vec<(usize, goblin::elf::Reloc)> = relocations
        .iter()
        .enumerate()
        .filter(|(_, r)| r.r_type == goblin::elf::reloc::R_X86_64_64)
        .collect();
    assert_eq!(set_address.len(), 2, "one sequence per function");
    let (entry, second) = set_address[1];
    let line_start = elf.section_headers[line].sh_offset as usize;
    let end_sequence = line_start + second.r_offset as usize - 6;
    assert_eq!(
        bytes[end_sequence..end_sequence + 6],
        [0x00, 0x01, 0x01, 0x00, 0x09, 0x02],
        "end_sequence, then set_address"
    );
    bytes[end_sequence + 2] = 0x80; // DW_LNE_lo_user: skipped
    let addend = elf.section_headers[*rela_index].sh_offset as usize + entry * 24 + 16;
    let old_addend = i64::from_le_bytes(bytes[addend..addend + 8].try_into().expect("8 bytes"));
    assert_eq!(old_addend, 16, "`second` starts 16 bytes into .text");
    bytes[addend..addend + 8].copy_from_slice(&0i64.to_le_bytes());
    check(&bytes, expect![".debug_line: row at .text+0x0 (line 6) follows a row at .text+0x2 in the same sequence"]);
}

/// A 16-byte struct described by one 8-byte piece: dwarfsmith promises
/// pieces that cover the variable, so the strict check names it.
#[test]
fn pieces_that_leave_part_of_a_variable_out() {
    let mut model = two_functions();
    let debug = model.debug.as_mut().expect("debug");
    debug.types = vec![
        Type::Base {
            name: "long".into(),
            byte_size: 8,
            encoding: 5,
        },
        Type::Struct {
            scope: None,
            name: Some("pair".into()),
            kind: Aggregate::Structure,
            bases: Vec::new(),
            byte_size: Some(16),
            members: vec![],
            containing_type: None,
            passed: None,
            template_parameters: Vec::new(),
            export_symbols: Default::default(),
        },
    ];
    debug.subprograms = vec![Subprogram {
        name: "first".into(),
        linkage_name: None,
        file: 0,
        line: 1,
        return_type: None,
        external: true,
        prototyped: true,
        function: Some(0),
        declaration: false,
        calls: dwarfsmith_emit::model::Calls::default(),
        scope: Scope {
            variables: vec![Variable {
                name: "half".into(),
                arg: None,
                ty: Some(1),
                file: 0,
                line: 2,
                location: VariableLocation::Single(Location {
                    args: vec![LocationArg::Register {
                        register: 0,
                        bits: 64,
                        signed: true,
                    }],
                    ops: vec![Op::Arg(0), Op::Piece(8)],
                }),
                ..Default::default()
            }],
            children: vec![],
        },
        ..Default::default()
    }];
    let bytes = write(&model, &WriteOptions::default()).expect("writes");
    check(&bytes, expect![[r#""#]]);
    let strict = VerifyOptions {
        pieces_cover_variables: true,
    };
    let problems: Vec<String> = verify_with(&bytes, &strict)
        .iter()
        .map(|p| p.to_string())
        .collect();
    expect!["DIE 0x46 (half): pieces cover 8 of its 16 bytes"].assert_eq(&problems.join("\n"));
}
