//! Vectors end to end.
//!
//! `fixtures/vector/vec_lib.c` is compiled at test time by `clang-19 -O2 -g`
//! with the loop and SLP vectorisers on (the test checks the IR holds every
//! SSE2 vector type), then by dwarfsmith, linked with the gcc-compiled
//! `vec_main.c` (which calls it over odd lengths and unaligned pointers, and
//! is called back with vector arguments), and its output compared with the
//! gcc -O0 build of both files: integer lanes of 8 to 64 bits, float and
//! double lanes (NaN in compares), reductions, shifts by constants and by
//! vectors, extensions and truncations, explicit vector types as arguments
//! and results in xmm registers both ways, shuffles, lane inserts and
//! extracts with variable indices.
//!
//! `fixtures/vector/wide.ll` is hand-written IR of the shapes the real-world
//! libraries make (split and widened types, `<N x i1>` masks and their
//! bitcasts, reductions, lane intrinsics, vector phis that swap), run
//! against the same program built by llc-19.
//!
//! Also: `-g` and `-g0` give the same code, llvm-dwarfdump-19 --verify is
//! clean and the vector type carries DW_AT_GNU_vector, gdb prints a vector
//! local right (or `<optimized out>`, never wrong), the MIR of the natively
//! selected forms, and the errors for what is not selected.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{clang_ir, fixture, gcc_link, gdb_batch, run_program};

use dwarfsmith::{compile, compile_to_model, CompileOptions, DebuggerTune, OptLevel};
use expect_test::expect;

fn options(debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// The IR of vec_lib.c as clang-19 -O2 -g prints it (vectorisers on).
fn vec_lib_ir(dir: &Path) -> String {
    clang_ir(dir, "vector/vec_lib.c", &["-O2", "-g"])
}

/// Our object of vec_lib.c, written into `dir`.
fn our_object(dir: &Path) -> PathBuf {
    let ir = vec_lib_ir(dir);
    let bytes = compile(&ir, "vec_lib.ll", &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.join("vec_lib.o");
    std::fs::write(&object, bytes).unwrap();
    object
}

#[test]
fn the_ir_really_holds_sse2_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let ir = vec_lib_ir(dir.path());
    for construct in [
        "<16 x i8>",
        "<8 x i16>",
        "<4 x i32>",
        "<2 x i64>",
        "<4 x float>",
        "<2 x double>",
        "shufflevector",
        "insertelement",
        "extractelement",
        "@llvm.vector.reduce.add",
        "@llvm.smax.v4i32",
        "load <16 x i8>, ptr",
        "fcmp olt <4 x float>",
        "sext <",
        "zext <",
        "sitofp <",
    ] {
        assert!(ir.contains(construct), "no {construct} in the IR");
    }
}

#[test]
fn vectorised_library_runs_exactly_like_its_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let object = our_object(dir.path());
    let ours = dir.path().join("ours");
    gcc_link(
        &ours,
        &[fixture("vector/vec_main.c"), object.clone()],
        &["-lm"],
    );
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[fixture("vector/vec_lib.c"), fixture("vector/vec_main.c")],
        &["-O0", "-w", "-lm"],
    );
    let expected = run_program(&reference);
    let got = run_program(&ours);
    assert_eq!(expected.lines().count(), 688, "the driver's output changed");
    for (n, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
        assert_eq!(g, e, "line {}", n + 1);
    }
    assert_eq!(got, expected);
    // Some results, so the reference itself is what it should be.
    assert!(expected.contains("v4_shuffle 2 1 5 300000"));
    assert!(expected.contains("v4f_cmp -12 -10 -4 -10"));
    assert!(expected.contains("v4_call_gcc -1 -14 1500004 2147483647"));

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
    // The vector type as LLVM writes DIFlagVector.
    let types = Command::new("llvm-dwarfdump-19")
        .arg("--debug-info")
        .arg(&object)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&types.stdout);
    assert!(text.contains("DW_AT_GNU_vector\t(true)"), "{text}");
}

#[test]
fn debug_info_does_not_change_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let ir = vec_lib_ir(dir.path());
    let with = compile_to_model(&ir, "vec_lib.ll", &options(true)).unwrap();
    let without = compile_to_model(&ir, "vec_lib.ll", &options(false)).unwrap();
    assert_eq!(with.functions.len(), without.functions.len());
    for (a, b) in with.functions.iter().zip(&without.functions) {
        assert_eq!(a.code, b.code, "@{}", a.name);
    }
}

/// The `name = value` lines gdb printed.
fn values(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with('$'))
        .map(|l| l.trim().to_string())
        .collect()
}

#[test]
fn gdb_prints_a_vector_local_right_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let object = our_object(dir.path());
    let ours = dir.path().join("ours");
    gcc_link(
        &ours,
        &[fixture("vector/vec_main.c"), object],
        &["-g", "-lm"],
    );
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[fixture("vector/vec_lib.c"), fixture("vector/vec_main.c")],
        &["-O0", "-g", "-w", "-lm"],
    );
    let source = std::fs::read_to_string(fixture("vector/vec_lib.c")).unwrap();
    let line_of = |text: &str| 1 + source.lines().position(|l| l.contains(text)).unwrap();
    let call = format!(
        "break vec_lib.c:{}",
        line_of("v4si u = ext_v4si_mix(t, a, k);")
    );
    let ret = format!("break vec_lib.c:{}", line_of("return r + t[1];"));
    let commands = [
        call.as_str(),
        ret.as_str(),
        "run",
        "print t",
        "print a",
        "print k",
        "continue",
        "print t",
        "print u",
        "print a",
        "print k",
    ];
    let ours = values(&gdb_batch(&ours, &commands));
    let reference = values(&gdb_batch(&reference, &commands));
    assert_eq!(ours.len(), reference.len(), "{ours:?} / {reference:?}");
    let mut available = 0;
    for (o, r) in ours.iter().zip(&reference) {
        let value = o.split_once(" = ").map(|(_, v)| v).unwrap_or("");
        let expected = r.split_once(" = ").map(|(_, v)| v).unwrap_or("");
        if value == "<optimized out>" {
            continue;
        }
        assert_eq!(value, expected, "ours {ours:?}, gcc -O0 {reference:?}");
        available += 1;
    }
    // t (in an xmm register, then in its 16-byte spill slot across the
    // call) and k are shown at both stops, u after the call; a may be
    // dead after the call.
    for shown in [0, 2, 3, 4, 6] {
        assert!(!ours[shown].ends_with("<optimized out>"), "{ours:?}");
    }
    assert_eq!(ours[0], "$1 = {25, 19, -5, 10}");
    assert_eq!(ours[4], "$5 = {93, 71, -17, 38}");
    assert!(available >= 6, "{ours:?}");
}

#[test]
fn wide_and_boolean_vectors_run_like_the_llc_build() {
    let dir = tempfile::tempdir().unwrap();
    let ll = fixture("vector/wide.ll");
    let ir = std::fs::read_to_string(&ll).unwrap();
    let bytes = compile(&ir, "wide.ll", &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.path().join("wide.o");
    std::fs::write(&object, bytes).unwrap();
    let llc_object = dir.path().join("wide_llc.o");
    let out = Command::new("llc-19")
        .args(["-O2", "-filetype=obj", "-relocation-model=pic", "-o"])
        .arg(&llc_object)
        .arg(&ll)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = dir.path().join("ours");
    gcc_link(&ours, &[fixture("vector/wide_main.c"), object], &["-lm"]);
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[fixture("vector/wide_main.c"), llc_object],
        &["-lm"],
    );
    let expected = run_program(&reference);
    assert_eq!(expected.lines().count(), 72, "the driver's output changed");
    assert_eq!(run_program(&ours), expected);
}

/// The MIR isel makes of hand-written IR (no debug records).
fn selected(ir: &str, function: &str) -> String {
    use dwarfsmith::codegen::isel::{select_function, IselOptions};
    let module = dwarfsmith::ir::parse::parse_module(ir, "v.ll").unwrap();
    let id = module.function_by_name(function).unwrap();
    let f = select_function(&module, id, &IselOptions { debug_info: false }).unwrap();
    f.mir.to_string()
}

#[test]
fn packed_forms_are_selected_natively_and_a_mask_compare_is_computed() {
    let ir = "define <4 x i32> @f(<4 x i32> %a, <4 x i32> %b, i32 %k) {\n\
              \x20 %s = add <4 x i32> %a, %b\n\
              \x20 %t = shl <4 x i32> %s, splat (i32 3)\n\
              \x20 %i = insertelement <4 x i32> poison, i32 %k, i64 0\n\
              \x20 %p = shufflevector <4 x i32> %i, <4 x i32> poison, <4 x i32> zeroinitializer\n\
              \x20 %x = xor <4 x i32> %t, %p\n\
              \x20 %c = icmp eq <4 x i32> %x, %a\n\
              \x20 %r = select <4 x i1> %c, <4 x i32> %a, <4 x i32> %x\n\
              \x20 ret <4 x i32> %r\n\
              }\n";
    expect![[r#"
        name: f
          %stack.0: size 16, align 16, alloca
          %stack.1: size 16, align 16, alloca
          %stack.2: size 16, align 16, alloca
          %stack.3: size 16, align 16, alloca
        bb.0:
          %7 = COPY $xmm0
          %8 = COPY $xmm1
          %9 = COPY $rdi
          %0 = COPY %7
          %0 = PADDD %0, %8
          %1 = COPY %0
          %1 = PSHIFT.leftd %1, 3
          %10 = XMM_ZERO
          VSTORE16 [%stack.3], %10
          STORE32 [%stack.3], %9
          %2 = VLOAD16 [%stack.3]
          %11 = PSHUF.dwords %2, 0
          %3 = COPY %11
          %4 = COPY %1
          %4 = PXOR %4, %3
          VSTORE16 [%stack.0], %4
          VSTORE16 [%stack.1], %7
          %12 = LOAD32 [%stack.0]
          %13 = LOAD32 [%stack.1]
          CMP32 %12, %13
          %14 = MOV32 0
          %14 = SETE
          %15 = COPY %14
          %15 = AND32 %15, 1
          %15 = NEG32 %15
          STORE8 [%stack.3], %15
          %16 = LOAD32 [%stack.0 + 4]
          %17 = LOAD32 [%stack.1 + 4]
          CMP32 %16, %17
          %18 = MOV32 0
          %18 = SETE
          %19 = COPY %18
          %19 = AND32 %19, 1
          %19 = NEG32 %19
          STORE8 [%stack.3 + 1], %19
          %20 = LOAD32 [%stack.0 + 8]
          %21 = LOAD32 [%stack.1 + 8]
          CMP32 %20, %21
          %22 = MOV32 0
          %22 = SETE
          %23 = COPY %22
          %23 = AND32 %23, 1
          %23 = NEG32 %23
          STORE8 [%stack.3 + 2], %23
          %24 = LOAD32 [%stack.0 + 12]
          %25 = LOAD32 [%stack.1 + 12]
          CMP32 %24, %25
          %26 = MOV32 0
          %26 = SETE
          %27 = COPY %26
          %27 = AND32 %27, 1
          %27 = NEG32 %27
          STORE8 [%stack.3 + 3], %27
          %5 = VLOAD16 [%stack.3]
          VSTORE16 [%stack.0], %5
          VSTORE16 [%stack.1], %7
          VSTORE16 [%stack.2], %4
          %28 = MOVZX32_8 [%stack.0]
          %28 = AND32 %28, 1
          %29 = LOAD32 [%stack.2]
          %30 = LOAD32 [%stack.1]
          TEST32 %28, %28
          %29 = CMOVNE32 %29, %30
          STORE32 [%stack.3], %29
          %31 = MOVZX32_8 [%stack.0 + 1]
          %31 = AND32 %31, 1
          %32 = LOAD32 [%stack.2 + 4]
          %33 = LOAD32 [%stack.1 + 4]
          TEST32 %31, %31
          %32 = CMOVNE32 %32, %33
          STORE32 [%stack.3 + 4], %32
          %34 = MOVZX32_8 [%stack.0 + 2]
          %34 = AND32 %34, 1
          %35 = LOAD32 [%stack.2 + 8]
          %36 = LOAD32 [%stack.1 + 8]
          TEST32 %34, %34
          %35 = CMOVNE32 %35, %36
          STORE32 [%stack.3 + 8], %35
          %37 = MOVZX32_8 [%stack.0 + 3]
          %37 = AND32 %37, 1
          %38 = LOAD32 [%stack.2 + 12]
          %39 = LOAD32 [%stack.1 + 12]
          TEST32 %37, %37
          %38 = CMOVNE32 %38, %39
          STORE32 [%stack.3 + 12], %38
          %6 = VLOAD16 [%stack.3]
          $xmm0 = COPY %6
          RET $xmm0
    "#]]
    .assert_eq(&selected(ir, "f"));
}

#[test]
fn what_is_not_selected_is_an_error_naming_it() {
    let gate = |line: u32, col: u32, what: &str| {
        format!("v.ll:{line}:{col}: error: function @f: {what} is not supported by code generation")
    };
    let cases = [
        (
            "define <4 x float> @f(<4 x float> %a) {\n  %r = frem <4 x float> %a, %a\n  ret <4 x float> %r\n}\n",
            gate(2, 3, "frem on vectors"),
        ),
        (
            "define void @f(ptr %p) {\n  %v = load <4 x i1>, ptr %p\n  store <4 x i1> %v, ptr %p\n  ret void\n}\n",
            gate(2, 3, "'load' of a vector of i1"),
        ),
        (
            "define <8 x i32> @f(<8 x i32> %a) {\n  ret <8 x i32> %a\n}\n",
            gate(1, 1, "parameter 1 of type <8 x i32>"),
        ),
        (
            "define void @f(ptr %p) {\n  %v = load <2 x i128>, ptr %p\n  ret void\n}\n",
            gate(2, 3, "vector type <2 x i128>"),
        ),
        (
            "define void @f(ptr %p) {\n  %v = load <128 x i8>, ptr %p\n  ret void\n}\n",
            gate(2, 3, "vector type <128 x i8>"),
        ),
        (
            "define <4 x i32> @f(<4 x float> %a) {\n  %r = fptoui <4 x float> %a to <4 x i32>\n  ret <4 x i32> %r\n}\n",
            gate(2, 3, "'fptoui' on vectors"),
        ),
        (
            "define <4 x float> @f(<4 x float> %a) {\n  %r = call <4 x float> @llvm.sqrt.v4f32(<4 x float> %a)\n  ret <4 x float> %r\n}\ndeclare <4 x float> @llvm.sqrt.v4f32(<4 x float>)\n",
            gate(2, 3, "intrinsic @llvm.sqrt.v4f32 on vectors"),
        ),
        (
            "declare void @g(<8 x float>)\ndefine void @f(<8 x float> %a) {\n  call void @g(<8 x float> zeroinitializer)\n  ret void\n}\n",
            gate(2, 1, "parameter 1 of type <8 x float>"),
        ),
        (
            "declare void @g(<8 x float>)\ndefine void @f() {\n  call void @g(<8 x float> zeroinitializer)\n  ret void\n}\n",
            gate(3, 3, "a call passing or returning <8 x float>"),
        ),
    ];
    for (ir, message) in cases {
        let error = compile(ir, "v.ll", &options(false)).unwrap_err();
        assert_eq!(error.to_string(), message, "{ir}");
    }
}
