//! `emit::verify::round_trip_with` and `normalise`, checked without the
//! writer: foreign objects stand in for written ones.

mod read_support;

use dwarfsmith_emit::model::{LocationArg, VariableLocation};
use dwarfsmith_emit::read::read;
use dwarfsmith_emit::verify::{normalise, round_trip_with};
use dwarfsmith_emit::write::WriteOptions;
use expect_test::expect;
use read_support::{fixture, fixture_objects};

/// What `read` gives is already in normal form, so a round trip through
/// any object compares what was read with what is read again.
#[test]
fn read_models_are_already_normal() {
    for path in fixture_objects() {
        let bytes = std::fs::read(&path).expect("fixture object");
        let model = read(&bytes).expect("reads");
        assert_eq!(
            normalise(&model, &WriteOptions::default()),
            model,
            "{}",
            path.display()
        );
        let written = bytes.clone();
        round_trip_with(&model, &WriteOptions::default(), |_| {
            Ok::<_, String>(written)
        })
        .expect("same object");
    }
}

#[test]
fn a_difference_is_named_by_its_path() {
    let bytes = fixture("inlining.clang.o");
    let mut model = read(&bytes).expect("reads");
    let energy = &mut model.debug.as_mut().expect("debug").subprograms[2];
    let VariableLocation::List { entries, .. } = &mut energy.scope.variables[1].location else {
        panic!("n has a location list");
    };
    entries[1].location.args[0] = LocationArg::Register {
        register: 3,
        bits: 64,
        signed: false,
    };
    let error = round_trip_with(&model, &WriteOptions::default(), |_| {
        Ok::<_, String>(bytes.clone())
    })
    .expect_err("differs");
    expect![[r#"
        read(write(m)) differs from normalise(m): at ObjectModel { debug: Some( DebugInfo { (name: "inlining.c") subprograms: [ Subprogram { (name: "energy") scope: Scope { variables: [ Variable { (name: "n") location: List { entries: [ LocationEntry { location: Location { args: [ Register {
          expected: register: 3,
          read:     register: 2,"#]].assert_eq(&error);
}

#[test]
fn a_write_failure_is_reported() {
    let model = read(&fixture("inlining.clang.o")).expect("reads");
    let error =
        round_trip_with(&model, &WriteOptions::default(), |_| Err("no room")).expect_err("fails");
    expect!["write failed: no room"].assert_eq(&error);
    let error = round_trip_with(&model, &WriteOptions::default(), |_| {
        Ok::<_, String>(b"not ELF".to_vec())
    })
    .expect_err("fails");
    expect!["reading the written object failed: ELF header: Malformed entity: Too small"]
        .assert_eq(&error);
}
