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
//! bitcasts, reductions, lane intrinsics, vector phis that swap, pointer
//! lanes through ptrtoint and inttoptr, bswap of 16-, 32- and 64-bit lanes,
//! square roots of float and double lanes, rsqrtss and rcpss), run
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
    // call) is shown at both stops, k at the first, u after the call; a
    // and k are dead after the call (k is then its entry value, which gdb
    // cannot find without call-site information).
    for shown in [0, 2, 3, 4] {
        assert!(!ours[shown].ends_with("<optimized out>"), "{ours:?}");
    }
    assert_eq!(ours[0], "$1 = {25, 19, -5, 10}");
    assert_eq!(ours[4], "$5 = {93, 71, -17, 38}");
    assert!(available >= 5, "{ours:?}");
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
    assert_eq!(expected.lines().count(), 90, "the driver's output changed");
    assert_eq!(run_program(&ours), expected);
}

#[test]
fn native_forms_run_like_the_llc_build_over_edge_values() {
    let dir = tempfile::tempdir().unwrap();
    let ll = fixture("vector/native.ll");
    let ir = std::fs::read_to_string(&ll).unwrap();
    let bytes = compile(&ir, "native.ll", &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.path().join("native.o");
    std::fs::write(&object, bytes).unwrap();
    let llc_object = dir.path().join("native_llc.o");
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
    gcc_link(&ours, &[fixture("vector/native_main.c"), object], &["-lm"]);
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[fixture("vector/native_main.c"), llc_object],
        &["-lm"],
    );
    let expected = run_program(&reference);
    let got = run_program(&ours);
    assert_eq!(
        expected.lines().count(),
        1952,
        "the driver's output changed"
    );
    for (e, g) in expected.lines().zip(got.lines()) {
        assert_eq!(g, e);
    }
    // The reference itself: unsigned, 64-bit and NaN-aware compares,
    // extensions, truncations, lanes, reductions, saturation, rotates.
    for line in [
        "icmp_ult_v16i8 1 ff000000 ffff0000 ff000000 ffff0000",
        "icmp_sgt_v2i64 2 ffffffff ffffffff 00000000 00000000",
        "fcmp_ueq_v4float 4 ffffffff 00000000 00000000 00000000",
        "fcmp_one_v2double 3 ffffffff ffffffff 00000000 00000000",
        "sext_v8i16_v8i32 0 00000000 ffffffff 0080ffff ff7f0000 01000000 55550000 feffffff efcdffff",
        "trunc_v4i64_v4i8 0 00ff00ff",
        "extract_1_v8i16 2 ff7f0000 00000000",
        "reduce_umax_v16i8 0 ffffffff ffffffff",
        "usub_sat_v4i32 1 00000000 ffffff7f 01000000 feffff7f",
        "rotl_lanes_v4i32 0 00000000 ffffffff 00080000 fffffdff",
    ] {
        assert!(expected.lines().any(|l| l == line), "{line}");
    }
}

#[test]
fn every_native_form_is_selected_without_the_lane_by_lane_fallback() {
    let ir = std::fs::read_to_string(fixture("vector/native.ll")).unwrap();
    let names: Vec<&str> = ir
        .lines()
        .filter_map(|l| l.strip_prefix("define "))
        .map(|l| {
            let at = l.find('@').unwrap();
            &l[at + 1..l.find('(').unwrap()]
        })
        .collect();
    assert_eq!(names.len(), 244);
    // And -g does not change the code.
    let with = compile_to_model(&ir, "native.ll", &options(true)).unwrap();
    let without = compile_to_model(&ir, "native.ll", &options(false)).unwrap();
    assert_eq!(with.functions.len(), 244);
    for (a, b) in with.functions.iter().zip(&without.functions) {
        assert_eq!(a.code, b.code, "@{}", a.name);
    }
    for name in names {
        let mir = selected(&ir, name);
        // The fallback goes through scratch stack slots.
        assert!(!mir.contains("%stack."), "@{name}:\n{mir}");
    }
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
        bb.0:
          %7 = COPY $xmm0
          %8 = COPY $xmm1
          %9 = COPY $rdi
          %0 = COPY %7
          %0 = PADDD %0, %8
          %1 = COPY %0
          %1 = PSHIFT.leftd %1, 3
          %10 = MOV_TO_XMM32 %9
          %2 = COPY %10
          %11 = PSHUF.dwords %2, 0
          %3 = COPY %11
          %4 = COPY %1
          %4 = PXOR %4, %3
          %12 = COPY %4
          %12 = PCMPEQD %12, %7
          %13 = COPY %12
          %13 = PPACKSSDW %13, %12
          %14 = COPY %13
          %14 = PPACKSSWB %14, %13
          %5 = COPY %14
          %15 = COPY %4
          %15 = PCMPEQD %15, %7
          %16 = COPY %15
          %16 = PANDNOT %16, %4
          %17 = COPY %15
          %17 = PAND %17, %7
          %17 = POR %17, %16
          %6 = COPY %17
          $xmm0 = COPY %6
          RET $xmm0
    "#]]
    .assert_eq(&selected(ir, "f"));
}

#[test]
fn real_world_vector_shapes_select_packed_instructions() {
    // zlib's slide_hash: words widened, a saturating subtract of a splat,
    // narrowed back.
    let slide = "define void @f(ptr %p, i32 %w) {\n\
                 \x20 %v = load <8 x i16>, ptr %p, align 2\n\
                 \x20 %z = zext <8 x i16> %v to <8 x i32>\n\
                 \x20 %i = insertelement <8 x i32> poison, i32 %w, i64 0\n\
                 \x20 %s = shufflevector <8 x i32> %i, <8 x i32> poison, <8 x i32> zeroinitializer\n\
                 \x20 %d = call <8 x i32> @llvm.usub.sat.v8i32(<8 x i32> %z, <8 x i32> %s)\n\
                 \x20 %t = trunc nuw <8 x i32> %d to <8 x i16>\n\
                 \x20 store <8 x i16> %t, ptr %p, align 2\n\
                 \x20 ret void\n\
                 }\n\
                 declare <8 x i32> @llvm.usub.sat.v8i32(<8 x i32>, <8 x i32>)\n";
    expect![[r#"
        name: f
        bb.0:
          %10 = COPY $rdi
          %11 = COPY $rsi
          %0 = VLOAD16 [%10]
          %12 = MOV_TO_XMM32 %11
          %3 = COPY %12
          %4 = XMM_ZERO
          %13 = COPY %11
          %14 = MOV32 65535
          CMP32 %13, 65535
          %13 = CMOVA32 %13, %14
          %15 = MOV_TO_XMM32 %13
          %17 = PSHUF.lowwords %15, 0
          %16 = PSHUF.dwords %17, 0
          %5 = COPY %16
          %9 = COPY %0
          %9 = PSUBUSW %9, %5
          VSTORE16 [%10], %9
          RET
    "#]]
    .assert_eq(&selected(slide, "f"));
    // xxhash's lanes: rotates by constants, then a horizontal add.
    let xxhash = "define i32 @f(<4 x i32> %a) {\n\
                  \x20 %r = call <4 x i32> @llvm.fshl.v4i32(<4 x i32> %a, <4 x i32> %a, <4 x i32> <i32 1, i32 7, i32 1, i32 7>)\n\
                  \x20 %s = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %r)\n\
                  \x20 ret i32 %s\n\
                  }\n\
                  declare <4 x i32> @llvm.fshl.v4i32(<4 x i32>, <4 x i32>, <4 x i32>)\n\
                  declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)\n";
    expect![[r#"
        name: f
          %const.0: 0x00000000ffffffff00000000ffffffff
          %const.1: 0xffffffff00000000ffffffff00000000
        bb.0:
          %2 = COPY $xmm0
          %3 = COPY %2
          %3 = PSHIFT.leftd %3, 1
          %4 = COPY %2
          %4 = PSHIFT.rightd %4, 31
          %3 = POR %3, %4
          %5 = VLOAD16 [%const.0]
          %6 = COPY %3
          %6 = PAND %6, %5
          %7 = COPY %2
          %7 = PSHIFT.leftd %7, 7
          %8 = COPY %2
          %8 = PSHIFT.rightd %8, 25
          %7 = POR %7, %8
          %9 = VLOAD16 [%const.1]
          %10 = COPY %7
          %10 = PAND %10, %9
          %6 = POR %6, %10
          %1 = COPY %6
          %11 = COPY %1
          %11 = PSHIFT.rightbytes %11, 8
          %12 = COPY %1
          %12 = PADDD %12, %11
          %13 = COPY %12
          %13 = PSHIFT.rightbytes %13, 4
          %14 = COPY %12
          %14 = PADDD %14, %13
          %0 = MOV_FROM_XMM32 %14
          $rax = COPY %0
          RET $rax
    "#]]
    .assert_eq(&selected(xxhash, "f"));
    // An unsigned 64-bit compare feeding a select, and a two-source shuffle.
    let compare = "define <2 x i64> @f(<2 x i64> %a, <2 x i64> %b) {\n\
                   \x20 %c = icmp ugt <2 x i64> %a, %b\n\
                   \x20 %m = select <2 x i1> %c, <2 x i64> %a, <2 x i64> %b\n\
                   \x20 %r = shufflevector <2 x i64> %m, <2 x i64> %b, <2 x i32> <i32 1, i32 2>\n\
                   \x20 ret <2 x i64> %r\n\
                   }\n";
    expect![[r#"
        name: f
          %const.0: 0x80000000800000008000000080000000
        bb.0:
          %3 = COPY $xmm0
          %4 = COPY $xmm1
          %5 = VLOAD16 [%const.0]
          %6 = COPY %3
          %6 = PXOR %6, %5
          %7 = COPY %4
          %7 = PXOR %7, %5
          %8 = COPY %6
          %8 = PCMPGTD %8, %7
          %6 = PCMPEQD %6, %7
          %9 = PSHUF.dwords %8, 160
          %10 = PSHUF.dwords %6, 245
          %10 = PAND %10, %9
          %11 = PSHUF.dwords %8, 245
          %10 = POR %10, %11
          %12 = COPY %10
          %12 = PPACKSSDW %12, %10
          %13 = COPY %12
          %13 = PPACKSSDW %13, %12
          %14 = COPY %13
          %14 = PPACKSSWB %14, %13
          %0 = COPY %14
          %15 = VLOAD16 [%const.0]
          %16 = COPY %3
          %16 = PXOR %16, %15
          %17 = COPY %4
          %17 = PXOR %17, %15
          %18 = COPY %16
          %18 = PCMPGTD %18, %17
          %16 = PCMPEQD %16, %17
          %19 = PSHUF.dwords %18, 160
          %20 = PSHUF.dwords %16, 245
          %20 = PAND %20, %19
          %21 = PSHUF.dwords %18, 245
          %20 = POR %20, %21
          %22 = COPY %20
          %22 = PANDNOT %22, %4
          %23 = COPY %20
          %23 = PAND %23, %3
          %23 = POR %23, %22
          %1 = COPY %23
          %24 = COPY %1
          %24 = PSHUFPS(78) %24, %4
          %2 = COPY %24
          $xmm0 = COPY %2
          RET $xmm0
    "#]]
    .assert_eq(&selected(compare, "f"));
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
            "define <4 x float> @f(<4 x float> %a) {\n  %r = call <4 x float> @llvm.floor.v4f32(<4 x float> %a)\n  ret <4 x float> %r\n}\ndeclare <4 x float> @llvm.floor.v4f32(<4 x float>)\n",
            gate(2, 3, "intrinsic @llvm.floor.v4f32 on vectors"),
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

#[test]
fn zlib_saturating_subtract_runs_like_the_llc_build_over_edge_values() {
    let dir = tempfile::tempdir().unwrap();
    let ll = fixture("vector/saturate.ll");
    let ir = std::fs::read_to_string(&ll).unwrap();
    let bytes = compile(&ir, "saturate.ll", &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.path().join("saturate.o");
    std::fs::write(&object, bytes).unwrap();
    let llc_object = dir.path().join("saturate_llc.o");
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
    gcc_link(&ours, &[fixture("vector/saturate_main.c"), object], &[]);
    let reference = dir.path().join("reference");
    gcc_link(
        &reference,
        &[fixture("vector/saturate_main.c"), llc_object],
        &[],
    );
    let expected = run_program(&reference);
    assert_eq!(expected.lines().count(), 33, "the driver's output changed");
    assert_eq!(run_program(&ours), expected);
    // The reference itself: s clamps at 0xffff, lanes stay unsigned.
    for line in [
        "slide 00000001 0000 0000 7ffe 7fff fffe fffd 8000 1233",
        "slide 0000fffe 0000 0000 0000 0000 0001 0000 0000 0000",
        "slide ffffffff 0000 0000 0000 0000 0000 0000 0000 0000",
        "slide_by_32768 00008000 0000 0000 0000 0000 7fff 7ffe 0001 0000",
    ] {
        assert!(expected.lines().any(|l| l == line), "{line}");
    }
}

#[test]
fn zlib_saturating_subtract_is_one_psubusw() {
    let ir = std::fs::read_to_string(fixture("vector/saturate.ll")).unwrap();
    // A variable subtrahend is clamped to 0xffff and splat to words where
    // its 32-bit splat was (the block before: out of a loop).
    expect![[r#"
        name: slide
        bb.0:  ; succ bb.1
          %10 = COPY $rdi
          %11 = COPY $rsi
          %12 = MOV_TO_XMM32 %11
          %0 = COPY %12
          %1 = XMM_ZERO
          %13 = COPY %11
          %14 = MOV32 65535
          CMP32 %13, 65535
          %13 = CMOVA32 %13, %14
          %15 = MOV_TO_XMM32 %13
          %17 = PSHUF.lowwords %15, 0
          %16 = PSHUF.dwords %17, 0
          %2 = COPY %16
        bb.1:
          %4 = VLOAD16 [%10]
          %9 = COPY %4
          %9 = PSUBUSW %9, %2
          VSTORE16 [%10], %9
          RET
    "#]]
    .assert_eq(&selected(&ir, "slide"));
    // A constant one is folded, clamped.
    expect![[r#"
        name: slide_by_65536
        bb.0:
          %6 = COPY $rdi
          %0 = VLOAD16 [%6]
          %7 = XMM_ZERO
          %7 = PCMPEQD %7, %7
          %5 = COPY %0
          %5 = PSUBUSW %5, %7
          VSTORE16 [%6], %5
          RET
    "#]]
    .assert_eq(&selected(&ir, "slide_by_65536"));
    // The 32-bit result used twice is not the pattern.
    assert!(!selected(&ir, "kept_wide").contains("psubusw"));
    // And -g does not change the code.
    let with = compile_to_model(&ir, "saturate.ll", &options(true)).unwrap();
    let without = compile_to_model(&ir, "saturate.ll", &options(false)).unwrap();
    for (a, b) in with.functions.iter().zip(&without.functions) {
        assert_eq!(a.code, b.code, "@{}", a.name);
    }
}

/// Builds `fixtures/vector/NAME.c` from the clang-19 -O2 -g IR `ir` (as
/// `clang_ir` wrote it) with dwarfsmith and by gcc -O0, runs both and
/// asserts they print the same; returns what they printed.
fn runs_as_gccs_build(dir: &Path, name: &str) -> String {
    let ll = dir.join(format!("{name}-O2-g.ll"));
    let object = support::compile_ll(dir, &ll, name, &[]);
    let exe = dir.join("ours");
    gcc_link(&exe, &[object], &[]);
    let reference = dir.join("reference");
    gcc_link(
        &reference,
        &[fixture(&format!("vector/{name}.c"))],
        &["-O0"],
    );
    let expected = run_program(&reference);
    assert_eq!(run_program(&exe), expected);
    expected
}

/// `fixtures/vector/vector_gep.c`: the loop vectoriser walks arrays of
/// structs with vectors of indices (`getelementptr %struct.item, ptr %p,
/// <2 x i64> %i`, with struct field steps after it), and clang folds a
/// pointer difference into `sub (i64 0, i64 ptrtoint (ptr @g to i64))` as
/// an operand; the program prints what its gcc -O0 build prints.
#[test]
fn vector_geps_and_address_expressions_run_as_gccs_build() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "vector/vector_gep.c", &["-O2", "-g"]);
    assert!(
        ir.contains("getelementptr inbounds %struct.item, ptr %0, <2 x i64>")
            && ir.contains("<2 x i64> %16, i32 1, i64 %7")
            && ir.contains("sub (i64 0, i64 ptrtoint (ptr @main.items to i64))"),
        "clang-19 no longer makes vector GEPs or the address expression here"
    );
    let printed = runs_as_gccs_build(dir.path(), "vector_gep");
    assert!(printed.starts_with("items "), "{printed}");
}

/// `fixtures/vector/unsigned_conversions.c`: the loop vectoriser's
/// `uitofp` of 16-, 32- and 64-bit lanes and `fptoui` to 8-, 32- and
/// 64-bit lanes (values at and above 2^31 and 2^63 included), lane by lane
/// through the scalar conversions; the program prints what its gcc -O0
/// build prints.
#[test]
fn unsigned_lane_conversions_run_as_gccs_build() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "vector/unsigned_conversions.c", &["-O2", "-g"]);
    for shape in [
        "uitofp <4 x i32>",
        "uitofp <2 x i64>",
        "uitofp <2 x i16>",
        "fptoui <4 x float>",
        "fptoui <2 x double>",
    ] {
        assert!(
            ir.contains(shape),
            "clang-19 no longer vectorises to {shape}"
        );
    }
    let printed = runs_as_gccs_build(dir.path(), "unsigned_conversions");
    assert_eq!(printed.lines().count(), 37, "{printed}");
}

/// `fixtures/vector/sse_intrinsics.c`: the `<emmintrin.h>` intrinsics
/// clang-19 -O2 keeps as `llvm.x86.sse*` calls (`psadbw`, `pmaddwd`, the
/// packs, `pavg*`, `pmulh*`, min/max of every width, the rounding
/// conversions, `rsqrtps`/`rcpps`, shifts by xmm, variable and constant
/// counts) and the signed saturating adds (`llvm.sadd.sat`), on inputs at
/// their corners (saturation, NaN, signed zero, counts past the lane
/// width); the program prints what its gcc -O0 build prints.
#[test]
fn sse_intrinsics_run_as_gccs_build() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "vector/sse_intrinsics.c", &["-O2", "-g"]);
    for intrinsic in [
        "@llvm.x86.sse2.psad.bw",
        "@llvm.x86.sse2.pmadd.wd",
        "@llvm.x86.sse2.psrai.w",
        "@llvm.x86.sse.cvtss2si64",
        "@llvm.sadd.sat.v8i16",
    ] {
        assert!(
            ir.contains(intrinsic),
            "clang-19 no longer calls {intrinsic}"
        );
    }
    let printed = runs_as_gccs_build(dir.path(), "sse_intrinsics");
    assert!(printed.contains("sad_epu8: 571 724\n"), "{printed}");
    assert!(
        printed.contains("rsqrt_ps and rcp_ps within 1/1000: 1\n"),
        "{printed}"
    );
}

/// `fixtures/vector/mask_bits.ll`: compares of 32 and 64 lanes bitcast to
/// `i32`/`i64` bit masks (zstd's `ZSTD_loadCEntropy` has the 32-lane one):
/// a `pmovmskb` per 16-byte part, shifted into place; and a 4-lane mask
/// bitcast to `i4` and counted by `llvm.ctpop.i4` (csmith seed 202234's
/// xor-reduction); the program prints what llc-19's build prints.
#[test]
fn masks_of_32_and_64_lanes_become_integers_as_llcs_build() {
    let dir = tempfile::tempdir().unwrap();
    let module = std::fs::read_to_string(fixture("vector/mask_bits.ll")).unwrap();
    let driver = std::fs::read_to_string(fixture("vector/mask_bits_main.c")).unwrap();
    let (ours, theirs) = support::outputs_of_ours_and_llc(
        dir.path(),
        &module,
        "mask_bits.ll",
        OptLevel::O2,
        &driver,
    );
    assert_eq!(ours, theirs);
    assert!(ours.starts_with("zero_words c9249249\n"), "{ours}");
    assert!(
        ours.ends_with(
            "matches_and_parity -3 11\nmatches_and_parity 2 0\nmatches_and_parity 7 31\n"
        ),
        "{ours}"
    );
}

/// `fixtures/vector/sse_compare.c`: `_mm_comi*`/`_mm_ucomi*` of floats and
/// doubles (`comiss`/`ucomiss` and `setcc`: false on NaN but `neq` true,
/// as LLVM defines them, where gcc's build answers from the raw flags) and
/// `_mm_getcsr`/`_mm_setcsr` (`stmxcsr`/`ldmxcsr`: 2.5 converts to 2, 2, 3,
/// 2 under round-to-nearest, down, up and toward zero); the program prints
/// exactly what llc-19's build prints.
#[test]
fn sse_compares_and_mxcsr_run_as_llcs_build() {
    let dir = tempfile::tempdir().unwrap();
    let module = clang_ir(dir.path(), "vector/sse_compare.c", &["-O2", "-g"]);
    for intrinsic in [
        "@llvm.x86.sse.comilt.ss",
        "@llvm.x86.sse2.ucomineq.sd",
        "@llvm.x86.sse.stmxcsr",
        "@llvm.x86.sse.ldmxcsr",
    ] {
        assert!(
            module.contains(intrinsic),
            "clang-19 no longer calls {intrinsic}"
        );
    }
    let driver = std::fs::read_to_string(fixture("vector/sse_compare_main.c")).unwrap();
    let (ours, theirs) = support::outputs_of_ours_and_llc(
        dir.path(),
        &module,
        "sse_compare.ll",
        OptLevel::O2,
        &driver,
    );
    assert_eq!(ours, theirs);
    assert_eq!(
        ours,
        "555/555 9a6/9a6 e38/e38 e38/e38 820/820 e38/e38 555/555 e38/e38 e38/e38 820/820 \
         9a6/9a6 9a6/9a6 555/555 555/555 820/820 9a6/9a6 9a6/9a6 555/555 555/555 820/820 \
         820/820 820/820 820/820 820/820 820/820 \n32 33 50 35 \n"
    );
}
