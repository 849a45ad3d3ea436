//! Linkage constructs end to end: COMDAT groups, functions in sections of
//! their own, aliases. `fixtures/src/linkage/inline_{a,b}.cpp` both define
//! the same C++ inline function and inline variable (linkonce_odr, each in
//! a COMDAT group); they are compiled at test time by `clang-19 -O2 -g`
//! and dwarfsmith, linked by gcc with a C main, and run: the linker keeps
//! one copy of each, as it does for llc-19's objects. The groups and code
//! sections are named, typed and flagged as llc-19's; every object passes
//! `llvm-dwarfdump-19 --verify` and `dwarfsmith verify` (the unit's code
//! spans several sections: DW_AT_ranges); gdb breaks in functions placed
//! in their own sections and prints their variables.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{
    clang_ir, compile_ir, dwarfdump_verify, dwarfsmith, fixture, gcc_link, gdb_batch, readelf, run,
    run_program,
};

/// Our object and llc-19's of `fixtures/src/linkage/NAME.cpp`, from one
/// clang-19 -O2 -g IR.
fn objects(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let source = format!("src/linkage/{name}.cpp");
    let ir = clang_ir(dir, &source, &["-O2", "-g", "-fno-exceptions"]);
    let ours = compile_ir(dir, name, &ir, &[]);
    let llc = dir.join(format!("{name}.llc.o"));
    let ll = dir.join(format!("{name}-O2-g-fno-exceptions.ll"));
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-o"])
        .arg(&llc)
        .arg(&ll));
    assert!(out.status.success(), "llc-19: {:?}", out);
    (ours, llc)
}

/// The COMDAT groups of `readelf -g`: signature and member section names.
fn groups(object: &Path) -> Vec<String> {
    let listing = readelf("-g", object);
    let mut groups = Vec::new();
    for line in listing.lines() {
        if let Some(rest) = line.strip_prefix("COMDAT group section") {
            let (_, signature) = rest.rsplit_once('[').unwrap();
            let (signature, _) = signature.split_once(']').unwrap();
            groups.push(format!("group {signature}"));
        } else if line.trim_start().starts_with('[') && !line.contains("Index") {
            let member = line.split(']').nth(1).unwrap().trim();
            groups.push(format!("  {member}"));
        }
    }
    groups
}

/// Name, type and flags of the code sections and the COMDAT data section.
fn code_sections(object: &Path) -> Vec<String> {
    let mut sections: Vec<String> = readelf("-S", object)
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(']').nth(1)?.split_whitespace().collect();
            let name = *fields.first()?;
            (name.starts_with(".text") || name == ".data.shared_counter")
                .then(|| format!("{name} {} {}", fields[1], fields[6]))
        })
        .collect();
    sections.sort();
    sections
}

#[test]
fn inline_definitions_in_comdat_groups_link_once_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours_a, llc_a) = objects(dir.path(), "inline_a");
    let (ours_b, llc_b) = objects(dir.path(), "inline_b");
    for (ours, llc) in [(&ours_a, &llc_a), (&ours_b, &llc_b)] {
        assert_eq!(groups(ours), groups(llc), "{}", ours.display());
        assert_eq!(
            code_sections(ours),
            code_sections(llc),
            "{}",
            ours.display()
        );
        let (clean, text) = dwarfdump_verify(ours);
        assert!(clean, "{text}");
        let verified = dwarfsmith(&["verify", ours.to_str().unwrap()]);
        assert!(
            verified.status.success(),
            "{}",
            String::from_utf8_lossy(&verified.stdout)
        );
    }
    expect_test::expect![[r#"
        group _Z5twicei
          .text._Z5twicei
        group shared_counter
          .data.shared_counter
    "#]]
    .assert_eq(&(groups(&ours_a).join("\n") + "\n"));

    let exe = dir.path().join("inline");
    let main = fixture("src/linkage/inline_main.c");
    gcc_link(&exe, &[main, ours_a.clone(), ours_b.clone()], &[]);
    assert_eq!(run_program(&exe), "43 42 42\n");
    // One copy of the inline function survives the link.
    let symbols = run(Command::new("nm").arg(&exe));
    let copies = String::from_utf8_lossy(&symbols.stdout)
        .lines()
        .filter(|line| line.ends_with(" _Z5twicei"))
        .count();
    assert_eq!(copies, 1);

    // The unit spans three code sections: low_pc 0 and DW_AT_ranges.
    let info = run(Command::new(support::llvm_dwarfdump())
        .arg("--debug-info")
        .arg(&ours_a));
    let info = String::from_utf8_lossy(&info.stdout);
    let unit: Vec<&str> = info
        .lines()
        .skip_while(|line| !line.contains("DW_TAG_compile_unit"))
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.contains("DW_AT_low_pc") || line.contains("DW_AT_ranges"))
        .map(str::trim)
        .collect();
    assert_eq!(unit.len(), 2, "{info}");
    assert_eq!(unit[0], "DW_AT_low_pc\t(0x0000000000000000)");
    assert!(unit[1].starts_with("DW_AT_ranges"), "{}", unit[1]);

    let gdb = gdb_batch(
        &exe,
        &[
            "break hot",
            "break twice",
            "run",
            "info args",
            "continue",
            "info args",
        ],
    );
    let directory = format!("{}/", fixture("src/linkage").display());
    let stops: Vec<String> = gdb
        .lines()
        .filter(|line| line.starts_with("x = ") || line.contains(" (x="))
        .map(|line| line.replace(&directory, ""))
        .collect();
    // gdb finds the kept copy of `twice` in the last unit describing it
    // (both units' DWARF is relocated against it), as with llc's objects.
    // `hot`'s caller describes its call site, so gdb also shows that `x`
    // still holds its entry value (`x=x@entry=1`).
    assert_eq!(
        stops,
        [
            "Breakpoint 2, twice (x=20) at inline_b.cpp:3",
            "x = 20",
            "Breakpoint 1, hot (x=x@entry=1) at inline_a.cpp:11",
            "x = 1",
        ],
        "{gdb}"
    );
}

/// (type, binding, visibility) and size of each named symbol.
fn symbol_rows(object: &Path, names: &[&str]) -> Vec<String> {
    let symbols = readelf("-s", object);
    names
        .iter()
        .map(|name| {
            let row = symbols
                .lines()
                .find(|line| line.split_whitespace().nth(7) == Some(name))
                .unwrap_or_else(|| panic!("no symbol {name} in\n{symbols}"));
            let fields: Vec<&str> = row.split_whitespace().collect();
            format!(
                "{name}: {} value {} size {}",
                fields[3..6].join(" "),
                fields[1],
                fields[2]
            )
        })
        .collect()
}

#[test]
fn aliases_are_symbols_at_their_aliasees_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let ll = fixture("src/linkage/aliases.ll");
    let ir = std::fs::read_to_string(&ll).unwrap();
    let ours = compile_ir(dir.path(), "aliases", &ir, &["-g0"]);
    let llc = dir.path().join("aliases.llc.o");
    let out = run(Command::new("llc-19")
        .args(["-filetype=obj", "-o"])
        .arg(&llc)
        .arg(&ll));
    assert!(out.status.success(), "llc-19: {out:?}");
    let data = [
        "table",
        "table_alias",
        "third",
        "third_again",
        "overridden",
        "t",
        "t_alias",
    ];
    assert_eq!(symbol_rows(&ours, &data), symbol_rows(&llc, &data));
    // Function aliases: same type, binding and value as llc's (sizes are
    // the code's, which differs).
    let functions = ["add_one", "increment", "local_increment"];
    let kinds = |object: &Path| {
        symbol_rows(object, &functions)
            .into_iter()
            .map(|row| row.split(" size ").next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&ours), kinds(&llc));

    // gcc-compiled main reads the data aliases (one at an offset, one of
    // an alias, one thread-local), calls the function alias, and
    // overrides the weak alias with a strong definition.
    let exe = dir.path().join("aliases");
    gcc_link(
        &exe,
        &[fixture("src/linkage/aliases_main.c"), ours.clone()],
        &[],
    );
    assert_eq!(run_program(&exe), "40 30 30 7 42\n1070\n");
}
