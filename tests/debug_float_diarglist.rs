//! DIArgList expressions over fp registers (issue 7, item 9).
//!
//! clang-19 -O2 -g describes an integer computed from a float's (double's)
//! bits with a DIArgList whose first operand is the fp value itself (the
//! no-op bitcast is salvaged away): `v = bits(f) + j`, `w = bits(d) ^ k`
//! (fixtures/src/debug/float_bits.c). The fp operand lives in xmm0; the
//! expression's operations are integer operations on its bits, so it is
//! read with `DW_OP_regval_type XMM0` over the unsigned base type of its
//! width. gdb then prints the values the program computes.

mod support;

use std::path::{Path, PathBuf};

use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};
use expect_test::expect;
use support::{clang_ir, dwarfdump_verify, fixture, gcc_link, gdb_batch, run, run_program};

/// Compiles the IR at `opt_level` with `tune` into `dir/NAME.o`.
fn compile(dir: &Path, ir: &str, name: &str, opt_level: OptLevel, tune: DebuggerTune) -> PathBuf {
    let options = CompileOptions {
        opt_level,
        debug_info: true,
        debugger_tune: tune,
    };
    let bytes = dwarfsmith::compile(ir, "float_bits.ll", &options).unwrap();
    let object = dir.join(format!("{name}.o"));
    std::fs::write(&object, bytes).unwrap();
    object
}

/// The DW_AT_location lines of `v` and `w`, as llvm-dwarfdump-19 shows them.
fn locations(object: &Path) -> String {
    let out = run(std::process::Command::new(support::llvm_dwarfdump())
        .args(["--name=v", "--name=w"])
        .arg(object));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("DW_AT_name") || l.contains("DW_AT_location"))
        .map(|l| l.trim().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn an_integer_over_fp_bits_reads_the_xmm_register_as_its_bits() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "src/debug/float_bits.c", &["-O2", "-g"]);
    assert!(
        ir.contains("!DIArgList(float %0, i32 %1)") && ir.contains("!DIArgList(double %0, i64 %1)"),
        "{ir}"
    );
    let object = compile(dir.path(), &ir, "gdb", OptLevel::O0, DebuggerTune::Gdb);
    expect![[r#"
        DW_AT_name	("v")
        DW_AT_location	(DW_OP_regval_type XMM0 (0x00000043) "DW_ATE_unsigned_32", DW_OP_regval_type RDI (0x00000043) "DW_ATE_unsigned_32", DW_OP_plus, DW_OP_stack_value)
        DW_AT_name	("w")
        DW_AT_location	(DW_OP_regval_type XMM0 (0x0000004a) "DW_ATE_unsigned_64", DW_OP_regval_type RDI (0x0000004a) "DW_ATE_unsigned_64", DW_OP_xor, DW_OP_stack_value)"#]]
    .assert_eq(&locations(&object));
    let (clean, report) = dwarfdump_verify(&object);
    assert!(clean, "{report}");
    let problems = dwarfsmith_emit::verify::verify(&std::fs::read(&object).unwrap());
    assert!(problems.is_empty(), "{problems:?}");
    // Our optimiser keeps the same locations.
    let optimised = compile(dir.path(), &ir, "gdb_O2", OptLevel::O2, DebuggerTune::Gdb);
    assert_eq!(locations(&optimised), locations(&object));

    let exe = dir.path().join("float_bits");
    gcc_link(
        &exe,
        &[object, fixture("src/debug/float_bits.driver.c")],
        &[],
    );
    assert_eq!(run_program(&exe), "22 256 3 -4.5\n");
    // v = bits(1.5f) + 7 = 0x3fc00000 + 7; w = bits(-2.25) ^ 0xff.
    let printed = gdb_batch(
        &exe,
        &[
            "break float_bits.c:14",
            "break float_bits.c:22",
            "run",
            "print v",
            "print/x v",
            "continue",
            "print w",
            "print/x w",
        ],
    );
    let values: Vec<&str> = printed.lines().filter(|l| l.starts_with('$')).collect();
    assert_eq!(
        values,
        [
            "$1 = 1069547527",
            "$2 = 0x3fc00007",
            "$3 = 13835621005235585279",
            "$4 = 0xc0020000000000ff"
        ],
        "{printed}"
    );
}

#[test]
fn without_typed_operations_the_fp_computation_is_unavailable_not_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "src/debug/float_bits.c", &["-O2", "-g"]);
    // lldb evaluates no typed operation: no register read of xmm0 as an
    // address-sized integer, the value is simply not described.
    let object = compile(dir.path(), &ir, "lldb", OptLevel::O0, DebuggerTune::Lldb);
    let shown = locations(&object);
    assert!(
        !shown.contains("XMM0") && !shown.contains("DW_OP_breg17"),
        "{shown}"
    );
    let (clean, report) = dwarfdump_verify(&object);
    assert!(clean, "{report}");
}
