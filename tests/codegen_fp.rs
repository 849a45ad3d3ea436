//! Floating point end to end: `fixtures/src/fp/fp_lib.c` compiled at test
//! time by `clang-19 -O2 -g -fno-vectorize -fno-slp-vectorize -S -emit-llvm`
//! (vectors are a separate piece of work), then by dwarfsmith, linked with
//! the gcc-compiled `fp_main.c` (which calls into it, and is called back
//! with mixed integer, float and double arguments, some on the stack), run,
//! and its output compared byte for byte with the gcc -O0 build of both
//! files: arithmetic, libm calls, every fcmp predicate over zeros,
//! infinities and NaNs, conversions of every width (64-bit unsigned
//! included), selects, loops, globals, variadic printf of doubles. Also:
//! `llvm-dwarfdump-19 --verify` is clean, `-g` and `-g0` give the same
//! code, and gdb prints float and double parameters held in xmm registers
//! and a double spilled across a call.

use std::path::{Path, PathBuf};
use std::process::Command;

use dwarfsmith::{compile, compile_to_model, CompileOptions, DebuggerTune, OptLevel};

fn fixture(relative: &str) -> String {
    format!("{}/fixtures/{relative}", env!("CARGO_MANIFEST_DIR"))
}

/// The IR of fp_lib.c as clang-19 -O2 -g prints it.
fn fp_lib_ir(dir: &Path) -> String {
    let ll = dir.join("fp_lib.ll");
    let out = Command::new("clang-19")
        .args(["-O2", "-g", "-fno-vectorize", "-fno-slp-vectorize", "-S"])
        .args(["-emit-llvm", "-o"])
        .arg(&ll)
        .arg(fixture("src/fp/fp_lib.c"))
        .output()
        .expect("clang-19 runs");
    assert!(
        out.status.success(),
        "clang-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(ll).unwrap()
}

fn options(debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// Links `objects_and_sources` with gcc (and libm) into `exe`.
fn link(exe: &Path, inputs: &[PathBuf], extra: &[&str]) {
    let out = Command::new("gcc")
        .args(extra)
        .args(inputs)
        .arg("-lm")
        .arg("-o")
        .arg(exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run(exe: &Path) -> String {
    let out = Command::new(exe).output().unwrap();
    assert!(
        out.status.success(),
        "{} exited with {}",
        exe.display(),
        out.status
    );
    String::from_utf8(out.stdout).unwrap()
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
    link(
        &ours,
        &[PathBuf::from(fixture("src/fp/fp_main.c")), object.clone()],
        &[],
    );
    let reference = dir.path().join("reference");
    link(
        &reference,
        &[
            PathBuf::from(fixture("src/fp/fp_lib.c")),
            PathBuf::from(fixture("src/fp/fp_main.c")),
        ],
        &["-O0"],
    );
    let expected = run(&reference);
    let got = run(&ours);
    assert_eq!(expected.lines().count(), 752, "the driver's output changed");
    for (n, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        assert_eq!(g, e, "line {}", n + 1);
    }
    assert_eq!(got, expected);
    // The NaN compares, unsigned 64-bit conversions and printf are in it.
    assert!(expected.contains("cmp 9 9 "));
    assert!(expected.contains("u64 1.8446744073709552e+19 43f0000000000000"));
    assert!(expected.contains("printf: 3.1415926535897931 2.5 42 6.022e+23 0x1.921fb54442d18p+1"));

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
    link(
        &exe,
        &[PathBuf::from(fixture("src/fp/fp_main.c")), object],
        &["-g"],
    );
    let out = Command::new("gdb")
        .args(["-nx", "-batch", "-q"])
        .args(["-ex", "break mixf", "-ex", "break poly"])
        .args(["-ex", "break fp_lib.c:105"])
        .args(["-ex", "run", "-ex", "info args"])
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
            // kept (4 * 1.5) was spilled across the call to gcc_side: its
            // slot; x is dead after the call and every xmm register is
            // caller-saved, so it is honestly unavailable there.
            "$1 = 6",
            "$2 = <optimized out>",
        ],
        "{text}"
    );
}
