//! Scalar integer intrinsics and stack allocation end to end:
//! `fixtures/src/intrinsics/intr_lib.c` compiled at test time by
//! `clang-19 -O2 -g -fno-vectorize -fno-slp-vectorize -S -emit-llvm` (the
//! vectorisers would turn a loop into `llvm.vector.reduce`, a separate piece
//! of work) into `*.with.overflow`, `*.sat`, `ctpop`/`ctlz`/`cttz`,
//! `fshl`/`fshr`, `bitreverse`, `bswap`, `abs`, `prefetch`, `stacksave`/
//! `stackrestore` around variable-length arrays and allocas aligned to 32
//! and 64, then by dwarfsmith, linked with the gcc-compiled `intr_main.c`,
//! run, and compared byte for byte with the gcc -O0 build of both files.
//! The same file at -O0 keeps `llvm.objectsize` and `llvm.assume`. The object passes
//! `llvm-dwarfdump-19 --verify`, and `-g`/`-g0` give the same code.

use std::path::{Path, PathBuf};

mod support;

use std::process::Command;

use support::{clang_ir, fixture, gcc_link, run_program};

use dwarfsmith::{compile, compile_to_model, CompileOptions, DebuggerTune, OptLevel};

/// The IR of intr_lib.c as clang-19 prints it at `opt` (`-O2` or `-O0`).
fn lib_ir(dir: &Path, opt: &str) -> String {
    clang_ir(
        dir,
        "src/intrinsics/intr_lib.c",
        &[opt, "-g", "-fno-vectorize", "-fno-slp-vectorize"],
    )
}

fn options(debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// The output of the gcc -O0 build of the library and its driver.
fn reference_output(dir: &Path) -> String {
    let reference = dir.join("reference");
    gcc_link(
        &reference,
        &[
            fixture("src/intrinsics/intr_lib.c"),
            fixture("src/intrinsics/intr_main.c"),
        ],
        &["-O0", "-w"],
    );
    run_program(&reference)
}

/// Compiles the library's IR at `opt` with dwarfsmith, links it with the
/// driver, and returns (its output, the object).
fn our_output(dir: &Path, opt: &str) -> (String, PathBuf) {
    let ir = lib_ir(dir, opt);
    let bytes = compile(&ir, "intr_lib.ll", &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.join(format!("intr_lib{opt}.o"));
    std::fs::write(&object, bytes).unwrap();
    let exe = dir.join(format!("ours{opt}"));
    gcc_link(
        &exe,
        &[fixture("src/intrinsics/intr_main.c"), object.clone()],
        &[],
    );
    (run_program(&exe), object)
}

#[test]
fn the_o2_ir_uses_the_intrinsics_under_test() {
    let dir = tempfile::tempdir().unwrap();
    let ir = lib_ir(dir.path(), "-O2");
    for name in [
        "@llvm.sadd.with.overflow.i32",
        "@llvm.sadd.with.overflow.i8",
        "@llvm.ssub.with.overflow.i64",
        "@llvm.smul.with.overflow.i8",
        "@llvm.smul.with.overflow.i16",
        "@llvm.smul.with.overflow.i64",
        "@llvm.uadd.with.overflow.i32",
        "@llvm.usub.with.overflow.i64",
        "@llvm.umul.with.overflow.i8",
        "@llvm.umul.with.overflow.i32",
        "@llvm.umul.with.overflow.i64",
        "@llvm.uadd.sat.i32",
        "@llvm.usub.sat.i32",
        "@llvm.sadd.sat.i32",
        "@llvm.ssub.sat.i16",
        "@llvm.ssub.sat.i64",
        "@llvm.ctpop.i16",
        "@llvm.ctpop.i64",
        "@llvm.ctlz.i16",
        "@llvm.ctlz.i64",
        "@llvm.cttz.i32",
        "@llvm.fshl.i8",
        "@llvm.fshl.i32",
        "@llvm.fshl.i64",
        "@llvm.fshr.i64",
        "@llvm.bitreverse.i8",
        "@llvm.bitreverse.i64",
        "@llvm.bswap.i16",
        "@llvm.abs.i32",
        "@llvm.prefetch.p0",
        "@llvm.stacksave.p0",
        "@llvm.stackrestore.p0",
        "alloca i32, i64 %",
        "align 64",
    ] {
        assert!(ir.contains(name), "clang no longer emits {name}");
    }
    let unoptimised = lib_ir(dir.path(), "-O0");
    for name in ["@llvm.objectsize.i64.p0", "@llvm.assume"] {
        assert!(
            unoptimised.contains(name),
            "clang -O0 no longer emits {name}"
        );
    }
}

#[test]
fn intrinsics_and_dynamic_allocas_run_exactly_like_the_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference_output(dir.path());
    assert_eq!(expected.lines().count(), 57, "the driver's output changed");
    // Overflow flags, saturation and 64-bit bit tricks are in it.
    assert!(expected.contains("umul64 1 0\n"));
    assert!(expected.contains("sat 4294967295 3 0 4\nsat 255 30 2147483647 -2147483648 5\n"));
    assert!(expected.contains("vla 415 179300\nvlacall 307 354\naligned 7 17\n"));
    for opt in ["-O2", "-O0"] {
        let (got, object) = our_output(dir.path(), opt);
        for (n, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
            assert_eq!(g, e, "{opt}: line {}", n + 1);
        }
        assert_eq!(got, expected, "{opt}");
        let verify = Command::new("llvm-dwarfdump-19")
            .arg("--verify")
            .arg(&object)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&verify.stdout);
        assert!(
            verify.status.success() && text.contains("No errors."),
            "{opt}: {text}"
        );
    }
}

#[test]
fn debug_info_does_not_change_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let ir = lib_ir(dir.path(), "-O2");
    let with = compile_to_model(&ir, "intr_lib.ll", &options(true)).unwrap();
    let without = compile_to_model(&ir, "intr_lib.ll", &options(false)).unwrap();
    assert_eq!(with.functions.len(), without.functions.len());
    for (a, b) in with.functions.iter().zip(&without.functions) {
        assert_eq!(a.code, b.code, "@{}", a.name);
    }
}

/// `llvm.is.constant` as libstdc++'s `std::advance` leaves it in clang -O0
/// IR (an always-inline function's `__builtin_constant_p`): true exactly
/// when the operand is a constant when selection sees it, so a call that our
/// -O2 inlines with a constant argument answers 1 and one with a variable 0.
#[test]
fn is_constant_is_true_exactly_for_a_constant_operand() {
    let ir = "\
define internal i32 @constant_bit(i64 %n) alwaysinline {
  %c = call i1 @llvm.is.constant.i64(i64 %n)
  %z = zext i1 %c to i32
  ret i32 %z
}
define i32 @probe(i64 %x) {
  %a = call i32 @constant_bit(i64 7)
  %b = call i32 @constant_bit(i64 %x)
  %s = shl i32 %a, 1
  %r = or i32 %s, %b
  ret i32 %r
}
declare i1 @llvm.is.constant.i64(i64)
";
    let dir = tempfile::tempdir().unwrap();
    let driver = dir.path().join("main.c");
    std::fs::write(
        &driver,
        "#include <stdio.h>\nint probe(long);\nint main(void) { printf(\"%d\\n\", probe(5)); return 0; }\n",
    )
    .unwrap();
    // Without inlining each call asks about its parameter (0); inlined, the
    // first asks about 7 (1, shifted to 2).
    for (flags, expected) in [(&["-O0"][..], "0\n"), (&["-O2"][..], "2\n")] {
        let object = support::compile_ir(dir.path(), "probe", ir, flags);
        let output = support::gcc_link_and_run(dir.path(), "probe", &[driver.clone(), object], &[]);
        assert_eq!(output, expected, "{flags:?}");
    }
    expect_test::expect![[r#"
        name: constant_bit
        bb.0:
          %2 = COPY $rdi
          %0 = MOV32 0
          %3 = COPY %0
          %3 = AND32 %3, 1
          %1 = COPY %3
          $rax = COPY %1
          RET $rax
    "#]]
    .assert_eq(&support::selected_mir(ir, "probe.ll", "constant_bit"));
}

/// `llvm.returnaddress(i32 0)`, as libFuzzer's interceptors and trace-pc
/// hooks call it: the address the function returns to, read from its frame
/// with or without a frame pointer (dladdr names the caller, `main`); a
/// caller's return address (depth 1) is refused by name.
#[test]
fn returnaddress_is_where_the_function_returns_to() {
    let ir = "\
declare ptr @llvm.returnaddress(i32)
declare void @use(ptr)
define ptr @with_frame_pointer() noinline \"frame-pointer\"=\"all\" {
  %r = call ptr @llvm.returnaddress(i32 0)
  ret ptr %r
}
define ptr @without_frame_pointer(i64 %n) noinline \"frame-pointer\"=\"none\" {
  %buffer = alloca [40 x i8], align 16
  call void @use(ptr %buffer)
  %r = call ptr @llvm.returnaddress(i32 0)
  ret ptr %r
}
";
    let driver = "\
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
void *with_frame_pointer(void);
void *without_frame_pointer(long);
void use(char *p) { p[0] = 1; }
static const char *name(void *address) {
  Dl_info info;
  return dladdr(address, &info) && info.dli_sname ? info.dli_sname : \"?\";
}
int main(void) {
  printf(\"%s %s\\n\", name(with_frame_pointer()), name(without_frame_pointer(3)));
  return 0;
}
";
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.c");
    std::fs::write(&main, driver).unwrap();
    for flags in [&["-O0"][..], &["-O2"][..]] {
        let object = support::compile_ir(dir.path(), "ra", ir, flags);
        let output =
            support::gcc_link_and_run(dir.path(), "ra", &[main.clone(), object], &["-rdynamic"]);
        assert_eq!(output, "main main\n", "{flags:?}");
    }
    let refused = support::refusal(
        dir.path(),
        "declare ptr @llvm.returnaddress(i32)\ndefine ptr @f() {\n  %r = call ptr @llvm.returnaddress(i32 1)\n  ret ptr %r\n}\n",
    );
    assert_eq!(
        refused,
        "case.ll:3:3: error: function @f: unsupported intrinsic 'llvm.returnaddress' of a caller (depth above 0)"
    );
}

/// `ptr align 4294967296 null` (clang's memcpy to a null pointer in
/// libFuzzer's FuzzerFork.cpp): alignments go up to 2^32 as in LLVM; above
/// is an error at the number.
#[test]
fn an_alignment_of_2_to_the_32_is_accepted_and_one_above_refused() {
    let ir = |align: &str| {
        format!(
            "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\ndefine void @copy(ptr %p, i64 %n) {{\n  call void @llvm.memcpy.p0.p0.i64(ptr align {align} null, ptr align 1 %p, i64 %n, i1 false)\n  ret void\n}}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let object = support::compile_ir(dir.path(), "copy", &ir("4294967296"), &[]);
    let main = dir.path().join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\nvoid copy(const char *, long);\nint main(void) { copy(\"x\", 0); puts(\"copied nothing\"); return 0; }\n",
    )
    .unwrap();
    assert_eq!(
        support::gcc_link_and_run(dir.path(), "copy", &[main, object], &[]),
        "copied nothing\n"
    );
    assert_eq!(
        support::refusal(dir.path(), &ir("8589934592")),
        "case.ll:3:46: error: alignment 8589934592 is above 2^32"
    );
}

#[test]
fn a_one_bit_bitreverse_is_the_bit() {
    // clang -O2 makes `llvm.bitreverse.i1` of a boolean's bit tricks; it
    // stopped csmith seed 200408 as an unsupported intrinsic.
    let dir = tempfile::tempdir().unwrap();
    let object = support::compile_ir(
        dir.path(),
        "rev1",
        "define i32 @rev1(i32 %x) {\n  %b = trunc i32 %x to i1\n  \
         %r = call i1 @llvm.bitreverse.i1(i1 %b)\n  %z = zext i1 %r to i32\n  ret i32 %z\n}\n\
         declare i1 @llvm.bitreverse.i1(i1)\n",
        &[],
    );
    let main = dir.path().join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\nint rev1(int);\n\
         int main(void) { printf(\"%d %d %d %d\\n\", rev1(0), rev1(1), rev1(2), rev1(3)); return 0; }\n",
    )
    .unwrap();
    assert_eq!(
        support::gcc_link_and_run(dir.path(), "rev1", &[object, main], &[]),
        "0 1 0 1\n"
    );
}

/// `fixtures/intrinsics/frame_address.ll`: `llvm.frameaddress` at depths 0
/// and 1 in a function without a `"frame-pointer"` attribute, called from
/// gcc -O0 code: its own frame starts with the caller's saved rbp, and
/// depth 1 is the caller's frame; llc-19's build prints the same.
#[test]
fn frame_addresses_are_the_frames_gcc_code_sees() {
    let dir = tempfile::tempdir().unwrap();
    let module = std::fs::read_to_string(fixture("intrinsics/frame_address.ll")).unwrap();
    let driver = std::fs::read_to_string(fixture("intrinsics/frame_address_main.c")).unwrap();
    let (ours, theirs) = support::outputs_of_ours_and_llc(
        dir.path(),
        &module,
        "frame_address.ll",
        OptLevel::O2,
        &driver,
    );
    assert_eq!(ours, theirs);
    assert_eq!(
        ours,
        "depth 1 is the caller's frame: yes\n\
         depth 0 holds the caller's rbp: yes\n\
         depth 0 is below the caller's: yes\n"
    );
}
