//! `emit::verify::round_trip_with`: what it reports when the object read
//! back is not the model, or cannot be written or read.

use dwarfsmith_emit::model::{Function, ObjectModel};
use dwarfsmith_emit::verify::round_trip_with;
use dwarfsmith_emit::write::{write, WriteOptions};
use expect_test::expect;

fn model(code: Vec<u8>) -> ObjectModel {
    ObjectModel {
        functions: vec![
            Function {
                name: "first".into(),
                global: true,
                code: vec![0xc3],
                ..Function::default()
            },
            Function {
                name: "second".into(),
                global: false,
                code,
                ..Function::default()
            },
        ],
        ..ObjectModel::default()
    }
}

#[test]
fn a_difference_is_named_by_its_path() {
    let options = WriteOptions::default();
    let written = model(vec![0x90, 0xc3]);
    let error = round_trip_with(&model(vec![0x90, 0x90, 0xc3]), &options, |_| {
        write(&written, &options)
    })
    .expect_err("differs");
    expect![[r#"
        read(write(m)) differs from normalise(m): at ObjectModel { functions: [ Function { (name: "second") code: [
          expected: 144,
          read:     195,"#]].assert_eq(&error);
}

#[test]
fn a_write_failure_is_reported() {
    let options = WriteOptions::default();
    let error =
        round_trip_with(&model(vec![0xc3]), &options, |_| Err("no room")).expect_err("fails");
    expect!["write failed: no room"].assert_eq(&error);
    let error = round_trip_with(&model(vec![0xc3]), &options, |_| {
        Ok::<_, String>(b"not ELF".to_vec())
    })
    .expect_err("fails");
    expect!["reading the written object failed: ELF header: Malformed entity: Too small"]
        .assert_eq(&error);
}

#[test]
fn the_same_model_round_trips() {
    let options = WriteOptions::default();
    let same = model(vec![0x90, 0xc3]);
    round_trip_with(&same, &options, |m| write(m, &options)).expect("same");
}
