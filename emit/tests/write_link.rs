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
        binding: Default::default(),
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
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions: vec![helper, main],
        data: vec![DataObject {
            aliases: Vec::new(),
            comdat: None,
            binding: Default::default(),
            section_name: None,
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

/// `pick(i)`: a jump table in its own rodata (entries `case - table`, by
/// PC32 relocations against `FunctionCode`), reached by a PC32 `lea`
/// against `FunctionData`; returns 10, 20 or 30.
fn pick() -> Function {
    let case = |value: u8| [0xb8, value, 0, 0, 0, 0xc3]; // mov eax, value; ret
    let mut code = vec![
        0x48, 0x8d, 0x05, 0, 0, 0, 0, // 0: lea rax, [rip + table]
        0x48, 0x63, 0x0c, 0xb8, // 7: movsxd rcx, dword [rax + rdi*4]
        0x48, 0x01, 0xc1, // 11: add rcx, rax
        0xff, 0xe1, // 14: jmp rcx
    ];
    code.extend(case(10)); // 16
    code.extend(case(20)); // 22
    code.extend(case(30)); // 28
    let entry = |index: u64, target: u64| Relocation {
        offset: 4 * index,
        kind: RelocationKind::Pc32,
        symbol: Symbol::FunctionCode {
            function: 0,
            offset: target,
        },
        addend: 4 * index as i64,
    };
    Function {
        name: "pick".to_string(),
        global: false,
        code,
        relocations: vec![Relocation {
            offset: 3,
            kind: RelocationKind::Pc32,
            symbol: Symbol::FunctionData(0),
            addend: -4,
        }],
        rodata: vec![0; 12],
        rodata_relocations: vec![entry(0, 16), entry(1, 22), entry(2, 28)],
        ..Function::default()
    }
}

/// `main` prints the string `.data`'s `pointer` points to (R_X86_64_64),
/// sums pick(0..3), adds `counter` through the GOT (REX_GOTPCRELX) and the
/// zero in `.bss`: exit code 10 + 20 + 30 + 5 + 0 = 65.
fn tables_model() -> ObjectModel {
    let named = |offset, kind, name: &str| Relocation {
        offset,
        kind,
        symbol: Symbol::Named(name.to_string()),
        addend: -4,
    };
    let main = Function {
        name: "main".to_string(),
        global: true,
        binding: Default::default(),
        code: vec![
            0x53, // 0: push rbx
            0x48, 0x8b, 0x3d, 0, 0, 0, 0, // 1: mov rdi, [rip + pointer]
            0xe8, 0, 0, 0, 0, // 8: call puts
            0x31, 0xff, // 13: xor edi, edi
            0xe8, 0, 0, 0, 0, // 15: call pick
            0x89, 0xc3, // 20: mov ebx, eax
            0xbf, 0x01, 0, 0, 0, // 22: mov edi, 1
            0xe8, 0, 0, 0, 0, // 27: call pick
            0x01, 0xc3, // 32: add ebx, eax
            0xbf, 0x02, 0, 0, 0, // 34: mov edi, 2
            0xe8, 0, 0, 0, 0, // 39: call pick
            0x01, 0xd8, // 44: add eax, ebx
            0x48, 0x8b, 0x0d, 0, 0, 0, 0, // 46: mov rcx, [rip + counter@GOTPCREL]
            0x03, 0x01, // 53: add eax, [rcx]
            0x03, 0x05, 0, 0, 0, 0,    // 55: add eax, [rip + zeroed]
            0x5b, // 61: pop rbx
            0xc3, // 62: ret
        ],
        relocations: vec![
            named(4, RelocationKind::Pc32, "pointer"),
            named(9, RelocationKind::Plt32, "puts"),
            named(16, RelocationKind::Plt32, "pick"),
            named(28, RelocationKind::Plt32, "pick"),
            named(40, RelocationKind::Plt32, "pick"),
            named(49, RelocationKind::GotPcRelX, "counter"),
            named(57, RelocationKind::Pc32, "zeroed"),
        ],
        cfi: vec![
            CfiRow {
                offset: 1,
                instruction: CfiInstruction::DefCfaOffset(16),
            },
            CfiRow {
                offset: 1,
                instruction: CfiInstruction::Offset {
                    register: 3,
                    offset: -16,
                },
            },
            CfiRow {
                offset: 62,
                instruction: CfiInstruction::DefCfaOffset(8),
            },
        ],
        ..Function::default()
    };
    let data = |name: &str, section, bytes: Vec<u8>, relocations| DataObject {
        aliases: Vec::new(),
        comdat: None,
        binding: Default::default(),
        section_name: None,
        name: name.to_string(),
        global: name == "counter",
        section,
        align: 8,
        bytes,
        relocations,
    };
    ObjectModel {
        weak_references: Vec::new(),
        exception_tables: Vec::new(),
        functions: vec![pick(), main],
        data: vec![
            data(
                "text",
                DataSection::ReadOnly,
                b"tables work\0".to_vec(),
                vec![],
            ),
            data(
                "pointer",
                DataSection::Data,
                vec![0; 8],
                vec![Relocation {
                    offset: 0,
                    kind: RelocationKind::Abs64,
                    symbol: Symbol::Named("text".to_string()),
                    addend: 0,
                }],
            ),
            data("counter", DataSection::Data, vec![5, 0, 0, 0], vec![]),
            data("zeroed", DataSection::Bss, vec![0; 4], vec![]),
        ],
        debug: None,
    }
}

#[test]
fn jump_tables_data_pointers_got_and_bss_link_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = write(&tables_model(), &WriteOptions::default()).unwrap();
    let object = save(dir.path(), "tables.o", &bytes);
    let exe = dir.path().join("tables");
    link(&[&object], &exe);
    let output = run(exe.to_str().unwrap(), &[]);
    assert_eq!(stdout(&output), "tables work\n");
    assert_eq!(output.status.code(), Some(65));
}
