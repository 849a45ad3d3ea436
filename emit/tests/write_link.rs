//! Link-and-run: a hand-encoded `main` written by `write`, linked by gcc
//! (PIE) against libc, must run, print and exit exactly as its code says;
//! readelf and objdump must accept the object without a warning.

mod write_support;

use dwarfsmith_emit::model::{
    CfiInstruction, CfiRow, DataObject, DataSection, Function, ObjectModel, Relocation,
    RelocationKind, Symbol,
};
use dwarfsmith_emit::write::{write, WriteOptions};
use write_support::{link, run, save, stderr, stdout};

/// `main`: `sub rsp,8; lea rdi,[rip+message]; call puts; mov eax,3; add rsp,8; ret`,
/// preceded by a local helper function so `main` does not start at offset 0.
fn hello_model() -> ObjectModel {
    let helper = Function {
        name: "helper".to_string(),
        global: false,
        code: vec![0x31, 0xc0, 0xc3], // xor eax,eax; ret
        ..Function::default()
    };
    let main = Function {
        name: "main".to_string(),
        global: true,
        code: vec![
            0x48, 0x83, 0xec, 0x08, // sub rsp, 8
            0x48, 0x8d, 0x3d, 0, 0, 0, 0, // lea rdi, [rip + message]
            0xe8, 0, 0, 0, 0, // call puts
            0xb8, 0x03, 0, 0, 0, // mov eax, 3
            0x48, 0x83, 0xc4, 0x08, // add rsp, 8
            0xc3, // ret
        ],
        relocations: vec![
            Relocation {
                offset: 7,
                kind: RelocationKind::Pc32,
                symbol: Symbol::Named("message".to_string()),
                addend: -4,
            },
            Relocation {
                offset: 12,
                kind: RelocationKind::Plt32,
                symbol: Symbol::Named("puts".to_string()),
                addend: -4,
            },
        ],
        cfi: vec![
            CfiRow {
                offset: 4,
                instruction: CfiInstruction::DefCfaOffset(16),
            },
            CfiRow {
                offset: 25,
                instruction: CfiInstruction::DefCfaOffset(8),
            },
        ],
        ..Function::default()
    };
    ObjectModel {
        functions: vec![helper, main],
        data: vec![DataObject {
            name: "message".to_string(),
            global: false,
            section: DataSection::ReadOnly,
            align: 1,
            bytes: b"hello from dwarfsmith\0".to_vec(),
            relocations: vec![],
        }],
        debug: None,
    }
}

#[test]
fn hello_links_runs_prints_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = write(&hello_model(), &WriteOptions::default()).unwrap();
    let object = save(dir.path(), "hello.o", &bytes);
    let exe = dir.path().join("hello");
    link(&[&object], &exe);
    let output = run(exe.to_str().unwrap(), &[]);
    assert_eq!(stdout(&output), "hello from dwarfsmith\n");
    assert_eq!(output.status.code(), Some(3));
}

#[test]
fn readelf_and_objdump_accept_the_object() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = write(&hello_model(), &WriteOptions::default()).unwrap();
    let object = save(dir.path(), "hello.o", &bytes);
    let object = object.to_str().unwrap();
    for (tool, args) in [
        ("readelf", vec!["-a", "-W", "--debug-dump=frames", object]),
        ("objdump", vec!["-d", "-r", object]),
    ] {
        let output = run(tool, &args);
        assert!(
            output.status.success(),
            "{tool} failed: {}",
            stderr(&output)
        );
        assert_eq!(stderr(&output), "", "{tool} warned");
    }
}
