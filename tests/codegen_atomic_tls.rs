//! Atomics, thread-local variables, computed goto and the linkages of
//! `fixtures/linkage/`, end to end: C compiled by clang-19 and clang-14
//! (`-O2 -g`) to IR, by dwarfsmith to objects, linked with gcc-compiled
//! drivers and run; each program prints exactly what the gcc -O0 build of
//! the same sources prints. Objects are checked against llc-19 for the same
//! IR (symbol types and bindings, TLS relocations), against
//! `llvm-dwarfdump-19 --verify` and `dwarfsmith verify`, and under gdb (TLS variables print their
//! thread's values); `-g` and `-g0` give the same `.text`.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{
    clang_ir, compile_ir, dwarfdump_verify, dwarfsmith, fixture, gcc_link, gcc_link_and_run,
    gdb_batch, readelf, run, run_program, symbol_kinds, text_section,
};

/// The clang versions whose IR is compiled.
const CLANGS: [&str; 2] = ["clang-19", "clang-14"];

/// The IR `clang` makes of `fixtures/SOURCE` with `flags`.
fn ir_of(dir: &Path, clang: &str, source: &str, flags: &[&str]) -> String {
    if clang == "clang-19" {
        return clang_ir(dir, source, flags);
    }
    let ll = dir.join("clang14.ll");
    let out = run(Command::new(clang)
        .args(flags)
        .args(["-S", "-emit-llvm", "-o"])
        .arg(&ll)
        .arg(fixture(source)));
    assert!(
        out.status.success(),
        "{clang}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(ll).unwrap()
}

/// Our object of `fixtures/SOURCE` from `clang`'s IR (`-O2 -g` plus
/// `flags`), with the IR's text.
fn our_object(
    dir: &Path,
    clang: &str,
    source: &str,
    flags: &[&str],
    name: &str,
) -> (PathBuf, String) {
    let mut all = vec!["-O2", "-g"];
    all.extend_from_slice(flags);
    let ir = ir_of(dir, clang, source, &all);
    (compile_ir(dir, name, &ir, &[]), ir)
}

/// The relocations of `.rela.text` as (type, symbol) pairs, without repeats.
fn text_relocations(object: &Path) -> BTreeSet<(String, String)> {
    let dump = readelf("-r", object);
    let Some(text) = dump
        .split("Relocation section ")
        .find(|part| part.starts_with("'.rela.text'"))
    else {
        return BTreeSet::new();
    };
    text.lines()
        .filter(|line| line.contains("R_X86_64_"))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields[2].to_string(), fields[4].to_string())
        })
        .collect()
}

/// Asserts the object passes `llvm-dwarfdump-19 --verify` and `dwarfsmith
/// verify`, and its `.text` is the same with -g0.
fn check_debug_and_g0(dir: &Path, object: &Path, ir: &str) {
    let (clean, report) = dwarfdump_verify(object);
    assert!(clean, "{}: {report}", object.display());
    let ours = dwarfsmith(&["verify", object.to_str().unwrap()]);
    assert!(
        ours.status.success(),
        "dwarfsmith verify {}: {}{}",
        object.display(),
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&ours.stderr)
    );
    let g0 = compile_ir(dir, "g0", ir, &["-g0"]);
    assert_eq!(
        text_section(dir, object),
        text_section(dir, &g0),
        "{}: -g and -g0 differ",
        object.display()
    );
}

#[test]
fn atomics_under_two_threads_count_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let main_c = fixture("linkage/atomics_main.c");
    let expected = gcc_link_and_run(
        dir.path(),
        "gcc.exe",
        &[fixture("linkage/atomics_lib.c"), main_c.clone()],
        &["-O0", "-pthread", "-latomic"],
    );
    assert_eq!(
        expected,
        "counter64 1200000\ncounter32 -800000\ncounter16 6784\ncounter8 128\n\
         guarded 39999800000\ntotal 200000.0 dsum 100000.00\nbits 0xffffffff\n\
         high 399998 uhigh 599997 low -7\ncheck 963\n"
    );
    for clang in CLANGS {
        let (object, ir) = our_object(dir.path(), clang, "linkage/atomics_lib.c", &[], clang);
        for construct in [
            "cmpxchg weak",
            "atomicrmw add",
            "atomicrmw sub",
            "atomicrmw xchg",
            "atomicrmw and",
            "atomicrmw or",
            "atomicrmw xor",
            "atomicrmw nand",
            "atomicrmw max",
            "atomicrmw min",
            "atomicrmw umax",
            "atomicrmw fadd",
            "atomicrmw fsub",
            "fence seq_cst",
            "load atomic",
            "store atomic",
        ] {
            assert!(ir.contains(construct), "{clang} IR has no {construct}");
        }
        let got = gcc_link_and_run(
            dir.path(),
            &format!("{clang}.exe"),
            &[object.clone(), main_c.clone()],
            &["-pthread"],
        );
        assert_eq!(got, expected, "{clang}");
        check_debug_and_g0(dir.path(), &object, &ir);
    }
}

#[test]
fn thread_locals_in_executables_and_shared_objects() {
    let dir = tempfile::tempdir().unwrap();
    let main_c = fixture("linkage/tls_main.c");
    let expected = gcc_link_and_run(
        dir.path(),
        "gcc.exe",
        &[fixture("linkage/tls_lib.c"), main_c.clone()],
        &["-O0", "-pthread"],
    );
    assert_eq!(
        expected,
        "thread: sum 786 counter 11 zeroed 12 main 142 name bls own 1 static 25\n\
         main: sum 294 counter 7 zeroed 4 main 114 name cls own 1 static 13\n"
    );
    let tls_names = [
        "lib_counter",
        "lib_zeroed",
        "lib_static",
        "lib_local_dynamic",
        "lib_initial_exec",
        "lib_hidden",
        "lib_name",
        "main_counter",
    ];
    for clang in CLANGS {
        // An executable (clang's default, PIE): local and initial exec.
        let (exe_object, exe_ir) = our_object(
            dir.path(),
            clang,
            "linkage/tls_lib.c",
            &[],
            &format!("{clang}-pie"),
        );
        let exe = dir.path().join(format!("{clang}-pie.exe"));
        gcc_link(&exe, &[exe_object.clone(), main_c.clone()], &["-pthread"]);
        assert_eq!(run_program(&exe), expected, "{clang} executable");
        // Every TLS symbol is STT_TLS (never plain .bss/.data), as llc's.
        let llc = dir.path().join(format!("{clang}-pie.llc.o"));
        let ll = dir.path().join(format!("{clang}-pie.ll"));
        let out = run(Command::new("llc-19")
            .args(["-O2", "-filetype=obj", "-o"])
            .arg(&llc)
            .arg(&ll));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ours = symbol_kinds(&readelf("-s", &exe_object), &tls_names);
        assert!(
            ours.iter().all(|(_, kind)| kind.starts_with("TLS ")),
            "{ours:?}"
        );
        assert_eq!(ours, symbol_kinds(&readelf("-s", &llc), &tls_names));
        assert_eq!(text_relocations(&exe_object), text_relocations(&llc));
        let sections = readelf("-S", &exe_object);
        assert!(sections.contains(" .tdata ") && sections.contains(" .tbss "));
        check_debug_and_g0(dir.path(), &exe_object, &exe_ir);
        let info = run(Command::new(support::llvm_dwarfdump())
            .arg("--debug-info")
            .arg(&exe_object));
        let info = String::from_utf8_lossy(&info.stdout);
        assert!(
            info.contains("DW_AT_location\t(DW_OP_const8u 0x0, DW_OP_GNU_push_tls_address)"),
            "{info}"
        );
        assert!(readelf("-r", &exe_object).contains("R_X86_64_DTPOFF64"));

        // A shared object (-fPIC): general and local dynamic through
        // __tls_get_addr, in a library gcc's main links against.
        let (so_object, so_ir) = our_object(
            dir.path(),
            clang,
            "linkage/tls_lib.c",
            &["-fPIC"],
            &format!("{clang}-pic"),
        );
        let library = dir.path().join(format!("lib{clang}tls.so"));
        gcc_link(&library, std::slice::from_ref(&so_object), &["-shared"]);
        let so_exe = dir.path().join(format!("{clang}-so.exe"));
        let rpath = format!("-Wl,-rpath,{}", dir.path().display());
        let search = format!("-L{}", dir.path().display());
        let link = format!("-l{clang}tls");
        gcc_link(
            &so_exe,
            std::slice::from_ref(&main_c),
            &[&search, &link, &rpath, "-pthread"],
        );
        assert_eq!(run_program(&so_exe), expected, "{clang} shared object");
        // The same object in an executable: ld relaxes the sequences.
        let relaxed = gcc_link_and_run(
            dir.path(),
            &format!("{clang}-relaxed.exe"),
            &[so_object.clone(), main_c.clone()],
            &["-pthread"],
        );
        assert_eq!(relaxed, expected, "{clang} relaxed");
        // As llc-19 in clang's PIC relocation model, except that llc
        // computes the module's block once (one TLSLD, against lib_static).
        let llc = dir.path().join(format!("{clang}-pic.llc.o"));
        let ll = dir.path().join(format!("{clang}-pic.ll"));
        let out = run(Command::new("llc-19")
            .args(["-O2", "-relocation-model=pic", "-filetype=obj", "-o"])
            .arg(&llc)
            .arg(&ll));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let without_ld_base = |set: BTreeSet<(String, String)>| -> BTreeSet<(String, String)> {
            set.into_iter()
                .filter(|(kind, _)| kind != "R_X86_64_TLSLD")
                .collect()
        };
        let ours = text_relocations(&so_object);
        assert!(ours.contains(&("R_X86_64_TLSGD".into(), "lib_counter".into())));
        assert!(ours.contains(&("R_X86_64_TLSLD".into(), "lib_static".into())));
        assert!(ours.contains(&("R_X86_64_DTPOFF32".into(), "lib_hidden".into())));
        assert_eq!(
            without_ld_base(ours),
            without_ld_base(text_relocations(&llc))
        );
        let code = run(Command::new("objdump").arg("-d").arg(&so_object));
        let code = String::from_utf8_lossy(&code.stdout);
        assert!(
            code.contains("66 48 8d 3d") && code.contains("66 66 48 e8"),
            "no general-dynamic sequence in\n{code}"
        );
        check_debug_and_g0(dir.path(), &so_object, &so_ir);

        // gdb prints the thread's values.
        let printed = gdb_batch(
            &exe,
            &[
                "break bump",
                "run",
                "print lib_counter",
                "print lib_local_dynamic",
                "print lib_zeroed",
                "print lib_name",
                "print lib_hidden",
                "print lib_initial_exec",
            ],
        );
        let values: Vec<&str> = printed
            .lines()
            .filter_map(|l| l.strip_prefix('$'))
            .collect();
        assert_eq!(
            values,
            [
                "1 = 5",
                "2 = 3",
                "3 = 0",
                "4 = \"tls\\000\\000\\000\\000\"",
                "5 = 13",
                "6 = 11"
            ],
            "{clang}: {printed}"
        );
    }
}

#[test]
fn computed_goto_interpreter_runs() {
    let dir = tempfile::tempdir().unwrap();
    let main_c = fixture("linkage/goto_main.c");
    let expected = gcc_link_and_run(
        dir.path(),
        "gcc.exe",
        &[fixture("linkage/goto_lib.c"), main_c.clone()],
        &["-O0"],
    );
    assert_eq!(
        expected,
        "emit 5\nemit 4\nemit 3\nemit 2\nemit 1\ncountdown -> 21001\nemit 84\nemit 84\narith -> 9003\n\
         pick 10 20 30\n"
    );
    for clang in CLANGS {
        let (object, ir) = our_object(dir.path(), clang, "linkage/goto_lib.c", &[], clang);
        assert!(ir.contains("indirectbr") && ir.contains("blockaddress(@run"));
        assert!(ir.contains("blockaddress(@pick"), "{clang}: {ir}");
        let got = gcc_link_and_run(
            dir.path(),
            &format!("{clang}.exe"),
            &[object.clone(), main_c.clone()],
            &[],
        );
        assert_eq!(got, expected, "{clang}");
        // The dispatch table: one absolute address per label, into .text.
        let relocations = readelf("-r", &object);
        let table = relocations
            .split("Relocation section ")
            .find(|part| part.starts_with("'.rela.data.rel.ro'"))
            .unwrap_or_else(|| panic!("no .rela.data.rel.ro in\n{relocations}"));
        let entries: Vec<&str> = table
            .lines()
            .filter(|line| line.contains("R_X86_64_64"))
            .collect();
        assert_eq!(entries.len(), 9, "{table}");
        assert!(entries.iter().all(|e| e.contains(" .text + ")), "{table}");
        check_debug_and_g0(dir.path(), &object, &ir);
    }
}

#[test]
fn common_and_weak_references_match_llc() {
    let dir = tempfile::tempdir().unwrap();
    let ir = std::fs::read_to_string(fixture("linkage/common_weak.ll")).unwrap();
    let ours = compile_ir(dir.path(), "common_weak", &ir, &[]);
    let llc = dir.path().join("llc.o");
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-o"])
        .arg(&llc)
        .arg(fixture("linkage/common_weak.ll")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = [
        "shared_count",
        "shared_table",
        "maybe_value",
        "maybe_hook",
        "count_all",
    ];
    let symbols = symbol_kinds(&readelf("-s", &ours), &names);
    assert_eq!(symbols, symbol_kinds(&readelf("-s", &llc), &names));
    let common = |name: &str| {
        let dump = readelf("-s", &ours);
        let row = dump
            .lines()
            .find(|l| l.split_whitespace().nth(7) == Some(name))
            .unwrap()
            .to_string();
        let fields: Vec<String> = row.split_whitespace().map(str::to_string).collect();
        (fields[1].clone(), fields[2].clone(), fields[6].clone())
    };
    // Value = alignment, size, SHN_COMMON.
    assert_eq!(
        common("shared_table"),
        ("0000000000000010".into(), "800".into(), "COM".into())
    );
    // GOT references as llc makes them (llc's `cmp [rip + x@GOTPCREL], 0`
    // is our `mov r, [rip + x@GOTPCREL]` then `test r, r`).
    let got_load = |set: BTreeSet<(String, String)>| -> BTreeSet<(String, String)> {
        set.into_iter()
            .map(|(kind, symbol)| match kind.as_str() {
                "R_X86_64_GOTPCREL" => ("R_X86_64_REX_GOTPCRELX".to_string(), symbol),
                _ => (kind, symbol),
            })
            .collect()
    };
    assert_eq!(text_relocations(&ours), got_load(text_relocations(&llc)));
    // Without definitions the weak references are null; with them, used.
    let driver = fixture("linkage/common_weak_main.c");
    let alone = gcc_link_and_run(dir.path(), "alone", &[ours.clone(), driver.clone()], &[]);
    assert_eq!(alone, "count_all 7 (no value, no hook)\n");
    let defs = fixture("linkage/common_weak_defs.c");
    let with = gcc_link_and_run(dir.path(), "with", &[ours, driver, defs], &[]);
    assert_eq!(with, "count_all 7 (value 35, hook 1)\n");
}

#[test]
fn sixteen_byte_compare_exchange_under_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let main_c = fixture("linkage/atomic128_main.c");
    let lib = "linkage/atomic128_lib.c";
    let expected = gcc_link_and_run(
        dir.path(),
        "gcc.exe",
        &[fixture(lib), main_c.clone()],
        &["-O0", "-mcx16", "-pthread", "-latomic"],
    );
    assert_eq!(expected, "high 200000 low 300000\n");
    let (object, ir) = our_object(dir.path(), "clang-19", lib, &["-mcx16"], "cx16");
    assert!(ir.contains("cmpxchg ptr @counter, i128"), "{ir}");
    let disassembly = run(Command::new("objdump").arg("-d").arg(&object));
    let disassembly = String::from_utf8_lossy(&disassembly.stdout);
    assert_eq!(
        disassembly.matches("lock cmpxchg16b").count(),
        2,
        "{disassembly}"
    );
    let got = gcc_link_and_run(
        dir.path(),
        "cx16.exe",
        &[object.clone(), main_c.clone()],
        &["-pthread"],
    );
    assert_eq!(got, expected);
    check_debug_and_g0(dir.path(), &object, &ir);

    // Without cx16 LLVM calls libatomic (__atomic_compare_exchange_16);
    // so do we (tests/codegen_atomic128.rs runs every 16-byte atomic so).
    let ir = ir_of(dir.path(), "clang-19", lib, &["-O2", "-g"]);
    let object = compile_ir(dir.path(), "nocx16", &ir, &[]);
    assert!(text_relocations(&object).contains(&(
        "R_X86_64_PLT32".to_string(),
        "__atomic_compare_exchange_16".to_string()
    )));
    let got = gcc_link_and_run(
        dir.path(),
        "nocx16.exe",
        &[object, main_c],
        &["-pthread", "-latomic"],
    );
    assert_eq!(got, expected);
}
