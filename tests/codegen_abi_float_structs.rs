//! Structs of floats as clang-19 passes them under SysV: two floats of one
//! SSE eightbyte travel as one `<2 x float>` (`struct {float x, y, z;}` is
//! returned as `{ <2 x float>, float }` in xmm0:xmm1 and passed as
//! `<2 x float>, float`), against gcc in both directions: the C files of
//! `fixtures/abi/float_structs_*.c` are compiled by `clang-19 -O2 -g` and
//! dwarfsmith, and linked with gcc -O0's counterparts (our callees called
//! from gcc's callers, our callers calling gcc's callees). The cases: two,
//! three and four floats, floats with a double or a long on either side,
//! structs in and out of the same call, a select between two structs, a
//! loop through calls, structs past the eight SSE registers (clang passes
//! them `byval`), `__m128`-like vectors past the registers (16 aligned
//! stack bytes) and 8-byte vectors. Hand-written IR adds what clang does
//! not emit for these in C: a phi, a select, a first-class load and store,
//! and constants of `{ <2 x float>, float }`; and `<2 x float>`/`<4 x i8>`
//! arguments past the SSE registers, called between our code and llc-19's
//! both ways (16 stack bytes aligned to 16 each). Every program prints exactly
//! what its gcc (or llc-19) build prints; `-g` and `-g0` give the same
//! code; llvm-dwarfdump-19 --verify is clean; gdb prints a struct
//! parameter that arrived as `<2 x float>, float`.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{clang_ir, dwarfdump_verify, fixture, gcc_link, run, run_program};

use dwarfsmith::{compile, compile_to_model, CompileOptions, DebuggerTune, OptLevel};

const SOURCES: [&str; 2] = ["float_structs_callers", "float_structs_callees"];

fn options(debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// Our object of `fixtures/abi/NAME.c` (clang-19 -O2 -g IR).
fn our_object(dir: &Path, name: &str) -> PathBuf {
    let ir = clang_ir(dir, &format!("abi/{name}.c"), &["-O2", "-g"]);
    let bytes =
        compile(&ir, &format!("{name}.ll"), &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.join(format!("ours_{name}.o"));
    std::fs::write(&object, bytes).unwrap();
    object
}

/// gcc -O0's object of `fixtures/abi/NAME.c`.
fn gcc_object(dir: &Path, name: &str) -> PathBuf {
    let object = dir.join(format!("gcc_{name}.o"));
    let out = run(Command::new("gcc")
        .args(["-O0", "-g", "-c", "-o"])
        .arg(&object)
        .arg(fixture(&format!("abi/{name}.c"))));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

const EXPECTED: &str = "\
make2 7 8
make3 1.5 2.5 3.5
make4 10 11 12 13
make_m 1.25 2.5 1e+10
make_fl 2.5 7.5 -7
make_lf 42 3 0.75
sum3 20.5
sum_m 1e+10
add4 10.5 12.5 14.5 16.5
cross -3 6 -3
pick3 -3 -3 1.5 3.5
spin -5.25 7.875 -2.625
many3 1.87599e+06
many4 978
vecs 138881
";

#[test]
fn float_structs_run_like_gcc_with_gcc_as_caller_and_as_callee() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let ours: Vec<PathBuf> = SOURCES.iter().map(|n| our_object(dir, n)).collect();
    let gcc: Vec<PathBuf> = SOURCES.iter().map(|n| gcc_object(dir, n)).collect();

    let reference = dir.join("reference");
    gcc_link(&reference, &gcc, &[]);
    assert_eq!(run_program(&reference), EXPECTED);

    let our_callees = dir.join("our_callees");
    gcc_link(&our_callees, &[gcc[0].clone(), ours[1].clone()], &[]);
    assert_eq!(run_program(&our_callees), EXPECTED);
    let our_callers = dir.join("our_callers");
    gcc_link(&our_callers, &[ours[0].clone(), gcc[1].clone()], &[]);
    assert_eq!(run_program(&our_callers), EXPECTED);

    for object in &ours {
        let (ok, text) = dwarfdump_verify(object);
        assert!(
            ok && text.contains("No errors."),
            "{}: {text}",
            object.display()
        );
    }

    // The struct parameter that arrived as <2 x float> (xmm0) and float
    // (xmm1), and a struct of four floats in two <2 x float> registers.
    let exe = dir.join("gdb");
    gcc_link(&exe, &[gcc[0].clone(), ours[1].clone()], &["-g"]);
    let out = run(Command::new("gdb")
        .args(["-nx", "-batch", "-q"])
        .args(["-ex", "break sum3", "-ex", "break add4", "-ex", "run"])
        .args(["-ex", "info args", "-ex", "continue", "-ex", "info args"])
        .arg(&exe));
    let text = String::from_utf8_lossy(&out.stdout);
    let values: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" = ") && !l.contains("struct V4 r"))
        .collect();
    assert_eq!(
        values,
        [
            "v = {x = 1.5, y = 2.5, z = 3.5}",
            "p = {x = 10, y = 11, z = 12, w = 13}",
            "q = {x = 0.5, y = 1.5, z = 2.5, w = 3.5}",
        ],
        "{text}"
    );
}

#[test]
fn float_struct_values_through_phi_select_load_store_and_constants() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let ll = fixture("abi/float_struct_values.ll");
    let driver = fixture("abi/float_struct_values.driver.c");
    let ours = dir.join("ours.o");
    let text = std::fs::read_to_string(&ll).unwrap();
    std::fs::write(
        &ours,
        compile(&text, "float_struct_values.ll", &options(false)).unwrap(),
    )
    .unwrap();
    let llc = dir.join("llc.o");
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-o"])
        .arg(&llc)
        .arg(&ll));
    assert!(out.status.success(), "{out:?}");
    let expected = "repeat 5 10 15\n\
                    load_or_constant 0.5 -1.5 2.25 7 8 9\n\
                    store_scaled 1 -3 4.5\n";
    for object in [llc, ours] {
        let exe = dir.join("values");
        gcc_link(&exe, &[driver.clone(), object], &[]);
        assert_eq!(run_program(&exe), expected);
    }
}

#[test]
fn debug_info_does_not_change_float_struct_code() {
    let dir = tempfile::tempdir().unwrap();
    for name in SOURCES {
        let ir = clang_ir(dir.path(), &format!("abi/{name}.c"), &["-O2", "-g"]);
        let file = format!("{name}.ll");
        let with = compile_to_model(&ir, &file, &options(true)).unwrap();
        let without = compile_to_model(&ir, &file, &options(false)).unwrap();
        assert_eq!(with.functions.len(), without.functions.len());
        for (a, b) in with.functions.iter().zip(&without.functions) {
            assert_eq!(a.code, b.code, "{name}: @{}", a.name);
        }
    }
}

#[test]
fn vectors_past_the_registers_take_sixteen_aligned_stack_bytes_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let object = |name: &str, ours: bool| {
        let ll = fixture(&format!("abi/vector_stack_{name}.ll"));
        let object = dir.join(format!("{name}_{ours}.o"));
        if ours {
            let text = std::fs::read_to_string(&ll).unwrap();
            std::fs::write(&object, compile(&text, "v.ll", &options(false)).unwrap()).unwrap();
        } else {
            let out = run(Command::new("llc-19")
                .args(["-O2", "-filetype=obj", "-o"])
                .arg(&object)
                .arg(&ll));
            assert!(out.status.success(), "{out:?}");
        }
        object
    };
    let driver = fixture("abi/vector_stack.driver.c");
    for (callee_ours, caller_ours) in [(false, false), (true, false), (false, true), (true, true)] {
        let exe = dir.join("vs");
        gcc_link(
            &exe,
            &[
                driver.clone(),
                object("callee", callee_ours),
                object("caller", caller_ours),
            ],
            &[],
        );
        assert_eq!(run_program(&exe), "71202.8\n");
    }
}
