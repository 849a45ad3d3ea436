//! Floating point end to end: `fixtures/src/fp/fp_lib.c` compiled at test
//! time by `clang-19 -O2 -g -fno-vectorize -fno-slp-vectorize -S -emit-llvm`
//! (vectors are a separate piece of work), then by dwarfsmith, linked with
//! the gcc-compiled `fp_main.c` (which calls into it, and is called back
//! with mixed integer, float and double arguments, some on the stack), run,
//! and its output compared byte for byte with the gcc -O0 build of both
//! files: arithmetic, libm calls, every fcmp predicate over zeros,
//! infinities and NaNs, conversions of every width (64-bit unsigned
//! included), selects, loops, globals, variadic printf of doubles,
//! `long double` copies, constants and globals (arithmetic: codegen_x87.rs).
//! Also: `llvm-dwarfdump-19 --verify` is clean, `-g` and `-g0` give the same
//! code, and gdb prints float and double parameters held in xmm registers,
//! float and double constants as locations (an inlined call's arguments)
//! and a double spilled across a call.

use std::path::{Path, PathBuf};

mod support;

use std::process::Command;

use support::{clang_ir, fixture, gcc_link, run_program};

use dwarfsmith::{compile, compile_to_model, CompileOptions, DebuggerTune, OptLevel};

/// The IR of fp_lib.c as clang-19 -O2 -g prints it.
fn fp_lib_ir(dir: &Path) -> String {
    clang_ir(
        dir,
        "src/fp/fp_lib.c",
        &["-O2", "-g", "-fno-vectorize", "-fno-slp-vectorize"],
    )
}

fn options(debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// Our object of fp_lib.c, written into `dir`.
fn our_object(dir: &Path) -> PathBuf {
    let ir = fp_lib_ir(dir);
    let bytes = compile(&ir, "fp_lib.ll", &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.join("fp_lib.o");
    std::fs::write(&object, bytes).unwrap();
    object
}

#[test]
fn fp_library_runs_exactly_like_its_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let object = our_object(dir.path());
    let ours = dir.path().join("ours");
    gcc_link(
        &ours,
        &[fixture("src/fp/fp_main.c"), object.clone()],
        &["-lm"],
    );
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[fixture("src/fp/fp_lib.c"), fixture("src/fp/fp_main.c")],
        &["-O0", "-lm"],
    );
    let expected = run_program(&reference);
    let got = run_program(&ours);
    assert_eq!(expected.lines().count(), 754, "the driver's output changed");
    for (n, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        assert_eq!(g, e, "line {}", n + 1);
    }
    assert_eq!(got, expected);
    // The NaN compares, unsigned 64-bit conversions and printf are in it.
    assert!(expected.contains("cmp 9 9 "));
    assert!(expected.contains("u64 1.8446744073709552e+19 43f0000000000000"));
    assert!(expected.contains("printf: 3.1415926535897931 2.5 42 6.022e+23 0x1.921fb54442d18p+1"));
    assert!(
        expected.contains("long double 0.333333333333333333342 -2.74999999999999999991e+100 3 1.5")
    );

    let verify = Command::new("llvm-dwarfdump-19")
        .arg("--verify")
        .arg(&object)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(
        verify.status.success() && text.contains("No errors."),
        "{text}"
    );
}

#[test]
fn debug_info_does_not_change_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let ir = fp_lib_ir(dir.path());
    let with = compile_to_model(&ir, "fp_lib.ll", &options(true)).unwrap();
    let without = compile_to_model(&ir, "fp_lib.ll", &options(false)).unwrap();
    assert_eq!(with.functions.len(), without.functions.len());
    for (a, b) in with.functions.iter().zip(&without.functions) {
        assert_eq!(a.code, b.code, "@{}", a.name);
    }
}

#[test]
fn gdb_prints_float_and_double_variables() {
    let dir = tempfile::tempdir().unwrap();
    let object = our_object(dir.path());
    let exe = dir.path().join("ours");
    gcc_link(&exe, &[fixture("src/fp/fp_main.c"), object], &["-g", "-lm"]);
    let source = std::fs::read_to_string(fixture("src/fp/fp_lib.c")).unwrap();
    let line_of = |text: &str| 1 + source.lines().position(|l| l.contains(text)).unwrap();
    // many() inlined into call_many(): its arguments are constants there.
    let inlined_many = format!("tbreak fp_lib.c:{}", line_of("return a + b * 2"));
    let after_call = format!("break fp_lib.c:{}", line_of("return r + kept"));
    let out = Command::new("gdb")
        .args(["-nx", "-batch", "-q"])
        .args(["-ex", "break mixf", "-ex", "break poly"])
        .args(["-ex", &inlined_many, "-ex", &after_call])
        .args(["-ex", "run", "-ex", "info args"])
        .args(["-ex", "continue", "-ex", "info args"])
        .args(["-ex", "continue", "-ex", "info args"])
        .args(["-ex", "continue", "-ex", "print kept", "-ex", "print x"])
        .arg(&exe)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let values: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" = "))
        .map(|l| l.trim())
        .collect();
    assert_eq!(
        values,
        [
            "x = 1.5",
            "a = 2",
            "b = -3",
            "c = 0.25",
            "x = 1.5",
            "n = 3",
            "y = 2",
            "m = 8",
            "a = 0.5",
            "b = 1",
            "c = 2.5",
            "d = 3.5",
            "e = 4",
            "f = 5.5",
            "g = 6.5",
            "h = 7.5",
            "i = 8.5",
            "j = 9.5",
            "k = 10.5",
            "l = 11",
            "m = 12.5",
            "n = 13.5",
            // kept (4 * 1.5) was spilled across the call to gcc_side: its
            // slot; x is dead after the call and every xmm register is
            // caller-saved, so it is honestly unavailable there.
            "$1 = 6",
            "$2 = <optimized out>",
        ],
        "{text}"
    );
}

/// The MIR isel makes of hand-written IR (no debug records).
fn selected(ir: &str, function: &str) -> String {
    use dwarfsmith::codegen::isel::{select_function, IselOptions};
    let module = dwarfsmith::ir::parse::parse_module(ir, "fp.ll").unwrap();
    let id = module.function_by_name(function).unwrap();
    let f = select_function(&module, id, &IselOptions { debug_info: false }).unwrap();
    f.mir.to_string()
}

#[test]
fn fcmp_reads_parity_where_nan_decides_and_swaps_operands_for_less_than() {
    let ir = "define i32 @cmp(double %a, double %b) {\n\
              \x20 %oeq = fcmp oeq double %a, %b\n\
              \x20 %une = fcmp une double %a, %b\n\
              \x20 %olt = fcmp olt double %a, %b\n\
              \x20 %uge = fcmp uge double %a, %b\n\
              \x20 %x = zext i1 %oeq to i32\n\
              \x20 %y = zext i1 %une to i32\n\
              \x20 %z = zext i1 %olt to i32\n\
              \x20 %w = zext i1 %uge to i32\n\
              \x20 %s1 = add i32 %x, %y\n\
              \x20 %s2 = add i32 %z, %w\n\
              \x20 %s = add i32 %s1, %s2\n\
              \x20 ret i32 %s\n\
              }\n";
    expect_test::expect![[r#"
        name: cmp
        bb.0:
          %11 = COPY $xmm0
          %12 = COPY $xmm1
          %0 = MOV32 0
          %13 = MOV32 0
          UCOMIS64 %11, %12
          %0 = SETE
          %13 = SETNP
          %0 = AND32 %0, %13
          %1 = MOV32 0
          %14 = MOV32 0
          UCOMIS64 %11, %12
          %1 = SETNE
          %14 = SETP
          %1 = OR32 %1, %14
          %2 = MOV32 0
          UCOMIS64 %12, %11
          %2 = SETA
          %3 = MOV32 0
          UCOMIS64 %12, %11
          %3 = SETBE
          %15 = COPY %0
          %15 = AND32 %15, 1
          %4 = COPY %15
          %16 = COPY %1
          %16 = AND32 %16, 1
          %5 = COPY %16
          %17 = COPY %2
          %17 = AND32 %17, 1
          %6 = COPY %17
          %18 = COPY %3
          %18 = AND32 %18, 1
          %7 = COPY %18
          %8 = COPY %4
          %8 = ADD32 %8, %5
          %9 = COPY %6
          %9 = ADD32 %9, %7
          %10 = COPY %8
          %10 = ADD32 %10, %9
          $rax = COPY %10
          RET $rax
    "#]]
    .assert_eq(&selected(ir, "cmp"));
}

#[test]
fn arguments_fill_integer_and_sse_registers_separately_then_share_the_stack() {
    let ir = "declare void @g(i64, double, float, double, double, double, double, double, \
              double, i32, double, i64)\n\
              define void @f(double %d, i64 %i) {\n\
              \x20 call void @g(i64 %i, double %d, float 1.5, double %d, double %d, double %d, \
              double %d, double %d, double %d, i32 7, double %d, i64 %i)\n\
              \x20 ret void\n\
              }\n";
    expect_test::expect![[r#"
        name: f
          %const.0: 0x3fc00000
        bb.0:
          %0 = COPY $xmm0
          %1 = COPY $rdi
          %2 = FLOAD32 [%const.0]
          %3 = MOV32 7
          FSTORE64 [%outgoing-args], %0
          $rdi = COPY %1
          $xmm0 = COPY %0
          $xmm1 = COPY %2
          $xmm2 = COPY %0
          $xmm3 = COPY %0
          $xmm4 = COPY %0
          $xmm5 = COPY %0
          $xmm6 = COPY %0
          $xmm7 = COPY %0
          $rsi = COPY %3
          $rdx = COPY %1
          CALL @g, args($rdi, $xmm0, $xmm1, $xmm2, $xmm3, $xmm4, $xmm5, $xmm6, $xmm7, $rsi, $rdx), rets()
          RET
    "#]].assert_eq(&selected(ir, "f"));
}
