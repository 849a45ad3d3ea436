//! `emit::read` and `emit::verify` on C++ objects from clang++-19 and g++:
//! thread-local variables (their DWARF carries TLS relocations), templates
//! and lambdas in COMDAT sections of their own, namespaces, static locals
//! and bit-fields. Rebuilt by emit/fixtures/cpp/regen.sh.

use std::fmt::Write as _;

use dwarfsmith_emit::read::read;
use dwarfsmith_emit::verify::{round_trip, verify};
use dwarfsmith_emit::write::WriteOptions;
use expect_test::{expect, Expect};

fn object(name: &str) -> Vec<u8> {
    let path = format!("{}/fixtures/cpp/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Functions, subprograms (with their function) and globals (with their
/// data object) read from `name`; `verify` must find nothing and the model
/// must round-trip through the writer.
fn check(name: &str, expect: Expect) {
    let bytes = object(name);
    let model = read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let problems: Vec<String> = verify(&bytes).iter().map(|p| p.to_string()).collect();
    assert_eq!(problems, Vec::<String>::new(), "{name}");
    round_trip(&model, &WriteOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut out = String::new();
    for function in &model.functions {
        let _ = writeln!(
            out,
            "function {} {} bytes",
            function.name,
            function.code.len()
        );
    }
    let debug = model.debug.as_ref().expect("debug info");
    for subprogram in &debug.subprograms {
        let function = subprogram
            .function
            .map_or("abstract".to_string(), |f| model.functions[f].name.clone());
        let _ = writeln!(out, "subprogram {} ({function})", subprogram.name);
    }
    for global in &debug.globals {
        let data = global
            .data
            .map_or("no location".to_string(), |d| model.data[d].name.clone());
        let _ = writeln!(out, "global {} ({data})", global.name);
    }
    expect.assert_eq(&out);
}

#[test]
fn clang_at_o0() {
    check(
        "tls_templates.clang.O0.o",
        expect![[r#"
            function _ZN2ns5scaleEdf 61 bytes
            function _Z3usei 166 bytes
            function _ZZ3useiENK3$_0clEi 70 bytes
            function _ZNK2ns3BoxIlE3getEv 17 bytes
            function _ZTWN2ns11tls_counterE 22 bytes
            subprogram scale (_ZN2ns5scaleEdf)
            subprogram use (_Z3usei)
            subprogram operator() (_ZZ3useiENK3$_0clEi)
            subprogram get (_ZNK2ns3BoxIlE3getEv)
            global tls_counter (no location)
            global hidden (_ZN2nsL6hiddenE)
            global calls (_ZZN2ns5scaleEdfE5calls)
        "#]],
    );
}

#[test]
fn clang_at_o2() {
    check(
        "tls_templates.clang.O2.o",
        expect![[r#"
            function _ZN2ns5scaleEdf 23 bytes
            function _Z3usei 75 bytes
            function _ZTWN2ns11tls_counterE 17 bytes
            subprogram scale (_ZN2ns5scaleEdf)
            subprogram scale (abstract)
            subprogram use (_Z3usei)
            global tls_counter (no location)
            global hidden (no location)
            global calls (_ZZN2ns5scaleEdfE5calls)
        "#]],
    );
}

#[test]
fn gcc_at_o0() {
    check(
        "tls_templates.gcc.O0.o",
        expect![[r#"
            function _ZN2ns5scaleEdf 77 bytes
            function _ZZ3useiENKUliE_clEi 63 bytes
            function _Z3usei 188 bytes
            function _ZNK2ns3BoxIlE3getEv 17 bytes
            subprogram get (_ZNK2ns3BoxIlE3getEv)
            subprogram use (_Z3usei)
            subprogram operator() (_ZZ3useiENKUliE_clEi)
            subprogram scale (_ZN2ns5scaleEdf)
            global tls_counter (no location)
            global hidden (_ZN2nsL6hiddenE)
            global calls (_ZZN2ns5scaleEdfE5calls)
        "#]],
    );
}

#[test]
fn gcc_at_o2() {
    check(
        "tls_templates.gcc.O2.o",
        expect![[r#"
            function _ZN2ns5scaleEdf 24 bytes
            function _Z3usei 103 bytes
            subprogram get (abstract)
            subprogram use (_Z3usei)
            subprogram operator() (abstract)
            subprogram scale (abstract)
            subprogram scale (_ZN2ns5scaleEdf)
            global tls_counter (no location)
            global hidden (no location)
            global calls (_ZZN2ns5scaleEdfE5calls)
        "#]],
    );
}
