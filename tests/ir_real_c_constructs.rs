//! The IR on what clang-19 and clang-14 -O2 emit for real C beyond integer
//! code: floating-point types and every spelling of their constants,
//! vectors as the loop and SLP vectorisers write them, aggregates,
//! atomics, `va_arg`, inline asm (with `elementtype` operands), computed
//! goto, the constant expressions of relative lookup tables, `byval`/`sret`
//! parameters and bitfield members (`extraData: i64 0`). Each module must parse, verify,
//! print to text opt-19 accepts, and reach a fixed point after one print;
//! the printed text is snapshotted. Then the exact bits of constants, the
//! x86-64 layout of the new types, the verifier's and the parser's
//! verdicts on broken input, and instruction selection naming every
//! instruction (and `byval`/`sret` parameter) it does not lower yet.

use std::path::PathBuf;
use std::process::Command;

use dwarfsmith::codegen::isel::{select_function, IselOptions};
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::print::{print_module, DebugSyntax};
use dwarfsmith::ir::verify::verify_module;
use dwarfsmith::ir::{Constant, FloatKind, Type};
use expect_test::{expect, Expect};

const HEADER: &str = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\"\ntarget triple = \"x86_64-pc-linux-gnu\"\n";

fn opt19() -> PathBuf {
    ["/usr/bin/opt-19", "/usr/lib/llvm-19/bin/opt"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("opt-19 is needed: neither /usr/bin/opt-19 nor /usr/lib/llvm-19/bin/opt exists")
}

fn print(text: &str) -> String {
    let module = parse_module(text, "real.ll").unwrap_or_else(|d| panic!("{d}"));
    verify_module(&module).unwrap_or_else(|d| panic!("{d}"));
    print_module(&module, DebugSyntax::Records)
}

/// Parses, verifies and prints `body` (after the x86-64 header), checks the
/// fixed point and opt-19's verdict, and compares the print with `expected`.
fn check(body: &str, expected: Expect) {
    let text = format!("{HEADER}\n{body}");
    let first = print(&text);
    let second = print(&first);
    assert_eq!(first, second, "not a fixed point");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("real.ll");
    std::fs::write(&path, &first).unwrap();
    let output = Command::new(opt19())
        .args(["-passes=verify", "-disable-output"])
        .arg(&path)
        .output()
        .expect("cannot run opt-19");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "opt-19 rejects the text:\n{}\n{first}",
        String::from_utf8_lossy(&output.stderr)
    );
    let body = first.strip_prefix(HEADER).unwrap_or(&first);
    expected.assert_eq(body.trim_start());
}

#[test]
fn floating_point_types_constants_and_instructions() {
    check(
        r#"@d = global double 1.500000e+00, align 8
@tenth = global double 0x3FB999999999999A, align 8
@f = global float 0x3FB99999A0000000, align 4
@negzero = global float -0.000000e+00, align 4
@snan = global float 0x7FF4000000000000, align 4
@inf = global double 0x7FF0000000000000, align 8
@ld = global x86_fp80 0xK3FFF8000000000000000, align 16
@h = global half 0xH3C00, align 2
@b = global bfloat 0xR3F80, align 2
@q = global fp128 0xL00000000000000003FFF000000000000, align 16
@mix = global { float, double, x86_fp80 } { float 2.500000e-01, double 3.0, x86_fp80 0xK4000C000000000000000 }, align 16

define double @arith(double %x, float %y, i32 %n, i64 %u) {
entry:
  %a = fadd fast double %x, 1.000000e+00
  %b = fsub nnan ninf double %a, %x
  %c = fmul reassoc nsz arcp contract afn double %b, %b
  %d = fdiv double %c, 0x7FF8000000000000
  %e = frem double %d, 2.0
  %g = fneg double %e
  %wide = fpext float %y to double
  %narrow = fptrunc double %g to float
  %si = sitofp i32 %n to double
  %ui = uitofp i64 %u to float
  %fs = fptosi double %g to i64
  %fu = fptoui float %narrow to i32
  %bits = bitcast double %g to i64
  %back = bitcast i64 %bits to double
  %l = fpext float %ui to x86_fp80
  %lt = fptrunc x86_fp80 %l to double
  br label %cmp

cmp:
  %p = phi double [ %s, %cmp ], [ 0.000000e+00, %entry ]
  %c0 = fcmp false double %x, %g
  %c1 = fcmp oeq double %x, %g
  %c2 = fcmp ogt double %x, %g
  %c3 = fcmp oge double %x, %g
  %c4 = fcmp olt double %x, %g
  %c5 = fcmp ole double %x, %g
  %c6 = fcmp one double %x, %g
  %c7 = fcmp ord double %x, %g
  %c8 = fcmp ueq double %x, %g
  %c9 = fcmp ugt double %x, %g
  %c10 = fcmp uge double %x, %g
  %c11 = fcmp ult double %x, %g
  %c12 = fcmp ule double %x, %g
  %c13 = fcmp une double %x, %g
  %c14 = fcmp uno double %x, %g
  %c15 = fcmp nnan true double %x, %g
  %s = select i1 %c4, double %back, double %lt
  br i1 %c14, label %cmp, label %done

done:
  ret double %p
}
"#,
        expect![[r#"
            @d = global double 1.500000e+00, align 8
            @tenth = global double 1.000000e-01, align 8
            @f = global float 0x3FB99999A0000000, align 4
            @negzero = global float -0.000000e+00, align 4
            @snan = global float 0x7FF4000000000000, align 4
            @inf = global double 0x7FF0000000000000, align 8
            @ld = global x86_fp80 0xK3FFF8000000000000000, align 16
            @h = global half 0xH3C00, align 2
            @b = global bfloat 0xR3F80, align 2
            @q = global fp128 0xL00000000000000003FFF000000000000, align 16
            @mix = global { float, double, x86_fp80 } { float 2.500000e-01, double 3.000000e+00, x86_fp80 0xK4000C000000000000000 }, align 16

            define double @arith(double %x, float %y, i32 %n, i64 %u) {
            entry:
              %a = fadd fast double %x, 1.000000e+00
              %b = fsub nnan ninf double %a, %x
              %c = fmul reassoc nsz arcp contract afn double %b, %b
              %d = fdiv double %c, 0x7FF8000000000000
              %e = frem double %d, 2.000000e+00
              %g = fneg double %e
              %wide = fpext float %y to double
              %narrow = fptrunc double %g to float
              %si = sitofp i32 %n to double
              %ui = uitofp i64 %u to float
              %fs = fptosi double %g to i64
              %fu = fptoui float %narrow to i32
              %bits = bitcast double %g to i64
              %back = bitcast i64 %bits to double
              %l = fpext float %ui to x86_fp80
              %lt = fptrunc x86_fp80 %l to double
              br label %cmp

            cmp:
              %p = phi double [ %s, %cmp ], [ 0.000000e+00, %entry ]
              %c0 = fcmp false double %x, %g
              %c1 = fcmp oeq double %x, %g
              %c2 = fcmp ogt double %x, %g
              %c3 = fcmp oge double %x, %g
              %c4 = fcmp olt double %x, %g
              %c5 = fcmp ole double %x, %g
              %c6 = fcmp one double %x, %g
              %c7 = fcmp ord double %x, %g
              %c8 = fcmp ueq double %x, %g
              %c9 = fcmp ugt double %x, %g
              %c10 = fcmp uge double %x, %g
              %c11 = fcmp ult double %x, %g
              %c12 = fcmp ule double %x, %g
              %c13 = fcmp une double %x, %g
              %c14 = fcmp uno double %x, %g
              %c15 = fcmp nnan true double %x, %g
              %s = select i1 %c4, double %back, double %lt
              br i1 %c14, label %cmp, label %done

            done:
              ret double %p
            }
        "#]],
    );
}

#[test]
fn vectors_as_the_vectorisers_write_them() {
    check(
        r#"@v = global <4 x i32> <i32 1, i32 2, i32 3, i32 4>, align 16
@z = global <2 x double> zeroinitializer, align 16
@s = global <4 x float> splat (float 1.000000e+00), align 16

define <4 x i32> @lanes(<4 x i32> %a, <4 x float> %f, <2 x i64> %w, ptr %p) {
  %b = add nsw <4 x i32> %a, <i32 1, i32 1, i32 1, i32 1>
  %sh = shl <4 x i32> %b, splat (i32 2)
  %c = icmp sgt <4 x i32> %sh, zeroinitializer
  %d = select <4 x i1> %c, <4 x i32> %sh, <4 x i32> %a
  %e = extractelement <4 x i32> %d, i64 0
  %g = insertelement <4 x i32> poison, i32 %e, i64 0
  %h = shufflevector <4 x i32> %g, <4 x i32> poison, <4 x i32> zeroinitializer
  %i = shufflevector <4 x i32> %h, <4 x i32> %d, <2 x i32> <i32 0, i32 5>
  %i2 = shufflevector <2 x i32> %i, <2 x i32> undef, <4 x i32> <i32 1, i32 undef, i32 poison, i32 0>
  %j = fadd <4 x float> %f, <float 1.000000e+00, float 2.000000e+00, float 0x36A0000000000000, float -0.000000e+00>
  %k = bitcast <4 x float> %j to <2 x i64>
  %m = fcmp ogt <4 x float> %j, zeroinitializer
  %n = zext <4 x i1> %m to <4 x i32>
  %t = trunc <2 x i64> %w to <2 x i32>
  %st = sitofp <4 x i32> %n to <4 x float>
  %l = load <4 x i32>, ptr %p, align 1
  store <4 x float> %st, ptr %p, align 4
  %pv = getelementptr inbounds <4 x i32>, ptr %p, i64 1, i64 2
  %ptrs = insertelement <2 x ptr> poison, ptr %pv, i32 1
  %vp = getelementptr inbounds i32, ptr %p, <4 x i64> <i64 0, i64 1, i64 2, i64 3>
  %vq = getelementptr i8, <4 x ptr> %vp, i64 4
  %r = add <4 x i32> %l, %n
  ret <4 x i32> %r
}
"#,
        expect![[r#"
            @v = global <4 x i32> <i32 1, i32 2, i32 3, i32 4>, align 16
            @z = global <2 x double> zeroinitializer, align 16
            @s = global <4 x float> <float 1.000000e+00, float 1.000000e+00, float 1.000000e+00, float 1.000000e+00>, align 16

            define <4 x i32> @lanes(<4 x i32> %a, <4 x float> %f, <2 x i64> %w, ptr %p) {
              %b = add nsw <4 x i32> %a, <i32 1, i32 1, i32 1, i32 1>
              %sh = shl <4 x i32> %b, <i32 2, i32 2, i32 2, i32 2>
              %c = icmp sgt <4 x i32> %sh, zeroinitializer
              %d = select <4 x i1> %c, <4 x i32> %sh, <4 x i32> %a
              %e = extractelement <4 x i32> %d, i64 0
              %g = insertelement <4 x i32> poison, i32 %e, i64 0
              %h = shufflevector <4 x i32> %g, <4 x i32> poison, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
              %i = shufflevector <4 x i32> %h, <4 x i32> %d, <2 x i32> <i32 0, i32 5>
              %i2 = shufflevector <2 x i32> %i, <2 x i32> undef, <4 x i32> <i32 1, i32 poison, i32 poison, i32 0>
              %j = fadd <4 x float> %f, <float 1.000000e+00, float 2.000000e+00, float 0x36A0000000000000, float -0.000000e+00>
              %k = bitcast <4 x float> %j to <2 x i64>
              %m = fcmp ogt <4 x float> %j, zeroinitializer
              %n = zext <4 x i1> %m to <4 x i32>
              %t = trunc <2 x i64> %w to <2 x i32>
              %st = sitofp <4 x i32> %n to <4 x float>
              %l = load <4 x i32>, ptr %p, align 1
              store <4 x float> %st, ptr %p, align 4
              %pv = getelementptr inbounds <4 x i32>, ptr %p, i64 1, i64 2
              %ptrs = insertelement <2 x ptr> poison, ptr %pv, i32 1
              %vp = getelementptr inbounds i32, ptr %p, <4 x i64> <i64 0, i64 1, i64 2, i64 3>
              %vq = getelementptr i8, <4 x ptr> %vp, i64 4
              %r = add <4 x i32> %l, %n
              ret <4 x i32> %r
            }
        "#]],
    );
}

#[test]
fn aggregates_atomics_and_varargs() {
    check(
        r#"%struct.pair = type { i64, [2 x double] }

define i32 @memory(ptr %p, ptr %ap, %struct.pair %agg) {
  %a = load atomic i32, ptr %p seq_cst, align 4
  %a2 = load atomic volatile i64, ptr %p syncscope("singlethread") acquire, align 8
  store atomic i32 %a, ptr %p release, align 4
  store atomic volatile ptr null, ptr %p unordered, align 8
  %x = cmpxchg ptr %p, i32 %a, i32 1 seq_cst seq_cst, align 4
  %y = cmpxchg weak volatile ptr %p, ptr null, ptr %p syncscope("singlethread") acq_rel monotonic, align 8
  %ok = extractvalue { i32, i1 } %x, 1
  %old = extractvalue { i32, i1 } %x, 0
  %r0 = atomicrmw xchg ptr %p, i32 1 seq_cst, align 4
  %r1 = atomicrmw add ptr %p, i32 1 monotonic, align 4
  %r2 = atomicrmw sub ptr %p, i32 1 acquire, align 4
  %r3 = atomicrmw and ptr %p, i32 1 release, align 4
  %r4 = atomicrmw nand ptr %p, i32 1 acq_rel, align 4
  %r5 = atomicrmw or ptr %p, i32 1 seq_cst, align 4
  %r6 = atomicrmw xor ptr %p, i32 1 seq_cst, align 4
  %r7 = atomicrmw max ptr %p, i32 1 seq_cst, align 4
  %r8 = atomicrmw min ptr %p, i32 1 seq_cst, align 4
  %r9 = atomicrmw umax ptr %p, i32 1 seq_cst, align 4
  %r10 = atomicrmw umin ptr %p, i32 1 seq_cst, align 4
  %r11 = atomicrmw volatile fadd ptr %p, float 1.0 seq_cst, align 4
  %r12 = atomicrmw fsub ptr %p, double 1.0 seq_cst, align 8
  %r13 = atomicrmw fmax ptr %p, float 1.0 seq_cst, align 4
  %r14 = atomicrmw fmin ptr %p, float 1.0 seq_cst, align 4
  %r15 = atomicrmw uinc_wrap ptr %p, i32 1 syncscope("singlethread") seq_cst, align 4
  %r16 = atomicrmw udec_wrap ptr %p, i32 1 seq_cst, align 4
  %r17 = atomicrmw xchg ptr %p, double 1.0 seq_cst, align 8
  fence acquire
  fence release
  fence acq_rel
  fence syncscope("singlethread") seq_cst
  %va = va_arg ptr %ap, i32
  %vd = va_arg ptr %ap, double
  %ins = insertvalue { i32, i1 } undef, i32 %va, 0
  %ins2 = insertvalue { i32, i1 } %ins, i1 %ok, 1
  %lo = extractvalue %struct.pair %agg, 0
  %d1 = extractvalue %struct.pair %agg, 1, 1
  %agg2 = insertvalue %struct.pair %agg, double %vd, 1, 0
  %arr = insertvalue [2 x double] zeroinitializer, double %d1, 1
  ret i32 %r0
}

!bitfields = !{!0}
!0 = !DIDerivedType(tag: DW_TAG_member, name: "a", baseType: !1, size: 3, offset: 5, flags: DIFlagBitField, extraData: i64 0)
!1 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
"#,
        expect![[r#"
            %struct.pair = type { i64, [2 x double] }

            define i32 @memory(ptr %p, ptr %ap, %struct.pair %agg) {
              %a = load atomic i32, ptr %p seq_cst, align 4
              %a2 = load atomic volatile i64, ptr %p syncscope("singlethread") acquire, align 8
              store atomic i32 %a, ptr %p release, align 4
              store atomic volatile ptr null, ptr %p unordered, align 8
              %x = cmpxchg ptr %p, i32 %a, i32 1 seq_cst seq_cst, align 4
              %y = cmpxchg weak volatile ptr %p, ptr null, ptr %p syncscope("singlethread") acq_rel monotonic, align 8
              %ok = extractvalue { i32, i1 } %x, 1
              %old = extractvalue { i32, i1 } %x, 0
              %r0 = atomicrmw xchg ptr %p, i32 1 seq_cst, align 4
              %r1 = atomicrmw add ptr %p, i32 1 monotonic, align 4
              %r2 = atomicrmw sub ptr %p, i32 1 acquire, align 4
              %r3 = atomicrmw and ptr %p, i32 1 release, align 4
              %r4 = atomicrmw nand ptr %p, i32 1 acq_rel, align 4
              %r5 = atomicrmw or ptr %p, i32 1 seq_cst, align 4
              %r6 = atomicrmw xor ptr %p, i32 1 seq_cst, align 4
              %r7 = atomicrmw max ptr %p, i32 1 seq_cst, align 4
              %r8 = atomicrmw min ptr %p, i32 1 seq_cst, align 4
              %r9 = atomicrmw umax ptr %p, i32 1 seq_cst, align 4
              %r10 = atomicrmw umin ptr %p, i32 1 seq_cst, align 4
              %r11 = atomicrmw volatile fadd ptr %p, float 1.000000e+00 seq_cst, align 4
              %r12 = atomicrmw fsub ptr %p, double 1.000000e+00 seq_cst, align 8
              %r13 = atomicrmw fmax ptr %p, float 1.000000e+00 seq_cst, align 4
              %r14 = atomicrmw fmin ptr %p, float 1.000000e+00 seq_cst, align 4
              %r15 = atomicrmw uinc_wrap ptr %p, i32 1 syncscope("singlethread") seq_cst, align 4
              %r16 = atomicrmw udec_wrap ptr %p, i32 1 seq_cst, align 4
              %r17 = atomicrmw xchg ptr %p, double 1.000000e+00 seq_cst, align 8
              fence acquire
              fence release
              fence acq_rel
              fence syncscope("singlethread") seq_cst
              %va = va_arg ptr %ap, i32
              %vd = va_arg ptr %ap, double
              %ins = insertvalue { i32, i1 } undef, i32 %va, 0
              %ins2 = insertvalue { i32, i1 } %ins, i1 %ok, 1
              %lo = extractvalue %struct.pair %agg, 0
              %d1 = extractvalue %struct.pair %agg, 1, 1
              %agg2 = insertvalue %struct.pair %agg, double %vd, 1, 0
              %arr = insertvalue [2 x double] zeroinitializer, double %d1, 1
              ret i32 %r0
            }

            !bitfields = !{!0}

            !0 = !DIDerivedType(tag: DW_TAG_member, name: "a", baseType: !1, size: 3, offset: 5, flags: DIFlagBitField, extraData: i64 0)
            !1 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
        "#]],
    );
}

#[test]
fn computed_goto_inline_asm_and_relative_tables() {
    check(
        r#"@disp = internal constant [3 x ptr] [ptr blockaddress(@dispatch, %op_a), ptr blockaddress(@dispatch, %op_b), ptr blockaddress(@dispatch, %3)], align 16
@.str = private constant [3 x i8] c"ab\00"
@.str.1 = private constant [3 x i8] c"cd\00"
@reltable = private unnamed_addr constant [2 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr @.str to i64), i64 ptrtoint (ptr @reltable to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @.str.1 to i64), i64 ptrtoint (ptr @reltable to i64)) to i32)], align 4
@off = global i64 add nuw (i64 ptrtoint (ptr @.str to i64), i64 1)
@end = global ptr getelementptr (i8, ptr @.str, i64 sub (i64 0, i64 ptrtoint (ptr @.str.1 to i64)))

define i32 @dispatch(i32 %i) {
entry:
  %idx = zext i32 %i to i64
  %slot = getelementptr inbounds [3 x ptr], ptr @disp, i64 0, i64 %idx
  %t = load ptr, ptr %slot, align 8
  indirectbr ptr %t, [label %op_a, label %op_b, label %3]

op_a:
  call void asm sideeffect "", "~{memory},~{dirflag},~{fpsr},~{flags}"()
  br label %3

op_b:
  %tsc = call { i32, i32 } asm sideeffect "rdtsc", "={ax},={dx},~{dirflag},~{fpsr},~{flags}"()
  %lo = extractvalue { i32, i32 } %tsc, 0
  %sum = call i32 asm "addl $2, $0", "=r,0,ir,~{cc}"(i32 %lo, i32 %i)
  %intel = call i32 asm alignstack inteldialect "mov $0, $1", "=r,r"(i32 %sum)
  %q = call i32 asm "movl \22$1\22, $0\0A\09nop", "=r,m"(ptr %slot)
  ret i32 %q

3:
  %v = call i32 @rel(i64 1)
  ret i32 %v
}

define i32 @rel(i64 %n) {
  %off = shl i64 %n, 2
  %p = call ptr @llvm.load.relative.i64(ptr @reltable, i64 %off)
  %c = load i8, ptr %p, align 1
  %r = zext i8 %c to i32
  ret i32 %r
}

declare ptr @llvm.load.relative.i64(ptr, i64)

%struct.big = type { i64, i64, i64, double }

define void @abi(ptr sret(%struct.big) align 16 %out, ptr noundef byval(%struct.big) align 8 %b, ptr %cell) {
  call void @abi_callee(ptr byval(%struct.big) align 8 %b)
  call void asm "incl $0", "=*m,*m"(ptr elementtype(i32) %cell, ptr elementtype(i32) %cell)
  ret void
}

declare void @abi_callee(ptr byval(%struct.big) align 8)
"#,
        expect![[r#"
            %struct.big = type { i64, i64, i64, double }

            @disp = internal constant [3 x ptr] [ptr blockaddress(@dispatch, %op_a), ptr blockaddress(@dispatch, %op_b), ptr blockaddress(@dispatch, %0)], align 16
            @.str = private constant [3 x i8] c"ab\00"
            @.str.1 = private constant [3 x i8] c"cd\00"
            @reltable = private unnamed_addr constant [2 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr @.str to i64), i64 ptrtoint (ptr @reltable to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @.str.1 to i64), i64 ptrtoint (ptr @reltable to i64)) to i32)], align 4
            @off = global i64 add nuw (i64 ptrtoint (ptr @.str to i64), i64 1)
            @end = global ptr getelementptr (i8, ptr @.str, i64 sub (i64 0, i64 ptrtoint (ptr @.str.1 to i64)))

            define i32 @dispatch(i32 %i) {
            entry:
              %idx = zext i32 %i to i64
              %slot = getelementptr inbounds [3 x ptr], ptr @disp, i64 0, i64 %idx
              %t = load ptr, ptr %slot, align 8
              indirectbr ptr %t, [label %op_a, label %op_b, label %0]

            op_a:
              call void asm sideeffect "", "~{memory},~{dirflag},~{fpsr},~{flags}"()
              br label %0

            op_b:
              %tsc = call { i32, i32 } asm sideeffect "rdtsc", "={ax},={dx},~{dirflag},~{fpsr},~{flags}"()
              %lo = extractvalue { i32, i32 } %tsc, 0
              %sum = call i32 asm "addl $2, $0", "=r,0,ir,~{cc}"(i32 %lo, i32 %i)
              %intel = call i32 asm alignstack inteldialect "mov $0, $1", "=r,r"(i32 %sum)
              %q = call i32 asm "movl \22$1\22, $0\0A\09nop", "=r,m"(ptr %slot)
              ret i32 %q

            0:
              %v = call i32 @rel(i64 1)
              ret i32 %v
            }

            define i32 @rel(i64 %n) {
              %off = shl i64 %n, 2
              %p = call ptr @llvm.load.relative.i64(ptr @reltable, i64 %off)
              %c = load i8, ptr %p, align 1
              %r = zext i8 %c to i32
              ret i32 %r
            }

            declare ptr @llvm.load.relative.i64(ptr, i64)

            define void @abi(ptr sret(%struct.big) align 16 %out, ptr noundef byval(%struct.big) align 8 %b, ptr %cell) {
              call void @abi_callee(ptr byval(%struct.big) align 8 %b)
              call void asm "incl $0", "=*m,*m"(ptr elementtype(i32) %cell, ptr elementtype(i32) %cell)
              ret void
            }

            declare void @abi_callee(ptr byval(%struct.big) align 8)
        "#]],
    );
}

/// The bits of the one global initializer of `text`.
fn constant_of(text: &str) -> Constant {
    let module = parse_module(text, "c.ll").unwrap_or_else(|d| panic!("{d}"));
    module.globals[0].initializer.clone().unwrap()
}

#[test]
fn floating_point_constants_keep_their_exact_bits() {
    let cases: [(&str, FloatKind, u128); 11] = [
        (
            "double 1.000000e+00",
            FloatKind::Double,
            0x3FF0_0000_0000_0000,
        ),
        (
            "double 0x3FB999999999999A",
            FloatKind::Double,
            0x3FB9_9999_9999_999A,
        ),
        (
            "double -0.000000e+00",
            FloatKind::Double,
            0x8000_0000_0000_0000,
        ),
        (
            "double 0x7FF8000000000001",
            FloatKind::Double,
            0x7FF8_0000_0000_0001,
        ),
        ("float 0x3FB99999A0000000", FloatKind::Float, 0x3DCC_CCCD),
        ("float 2.5E+1", FloatKind::Float, 0x41C8_0000),
        // A signalling NaN keeps its payload and stays signalling.
        ("float 0x7FF4000000000000", FloatKind::Float, 0x7FA0_0000),
        ("float 0xFFF0000000000000", FloatKind::Float, 0xFF80_0000),
        (
            "x86_fp80 0xK3FFF8000000000000000",
            FloatKind::X86Fp80,
            0x3FFF_8000_0000_0000_0000,
        ),
        ("half 0xH3C00", FloatKind::Half, 0x3C00),
        (
            "fp128 0xL00000000000000013FFF000000000000",
            FloatKind::Fp128,
            0x3FFF_0000_0000_0000_0000_0000_0000_0001,
        ),
    ];
    for (typed, kind, bits) in cases {
        assert_eq!(
            constant_of(&format!("@g = global {typed}\n")),
            Constant::Float { kind, bits },
            "{typed}"
        );
    }
}

#[test]
fn new_types_follow_the_x86_64_layout() {
    let module = parse_module(HEADER, "layout.ll").unwrap();
    let layout = |text: &str| {
        let module = parse_module(&format!("{HEADER}@g = external global {text}\n"), "t.ll")
            .unwrap_or_else(|d| panic!("{d}"));
        let ty: &Type = &module.globals[0].ty;
        (
            module.store_size(ty),
            module.size_of(ty),
            module.align_of(ty),
        )
    };
    let cases: [(&str, (u64, u64, u64)); 12] = [
        ("half", (2, 2, 2)),
        ("bfloat", (2, 2, 2)),
        ("float", (4, 4, 4)),
        ("double", (8, 8, 8)),
        ("x86_fp80", (10, 16, 16)),
        ("fp128", (16, 16, 16)),
        ("<4 x i32>", (16, 16, 16)),
        ("<2 x double>", (16, 16, 16)),
        ("<3 x float>", (12, 16, 16)),
        ("<8 x i1>", (1, 1, 1)),
        ("<8 x i32>", (32, 32, 32)),
        ("{ i8, x86_fp80 }", (32, 32, 16)),
    ];
    for (text, expected) in cases {
        assert_eq!(layout(text), expected, "{text}");
    }
    assert_eq!(module.align_of(&Type::F64), 8);
}

/// Parses `body` (expected to parse) and returns the verifier's verdict as
/// `line:col: message`.
fn verdict(body: &str) -> String {
    let module = parse_module(body, "bad.ll").unwrap_or_else(|d| panic!("{d}"));
    match verify_module(&module) {
        Ok(()) => "ok".to_string(),
        Err(d) => format!("{}:{}: {}", d.pos.line, d.pos.col, d.message),
    }
}

/// Whether opt-19 accepts `text` as written.
fn opt19_accepts(text: &str) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ll");
    std::fs::write(&path, text).unwrap();
    Command::new(opt19())
        .args(["-passes=verify", "-disable-output"])
        .arg(&path)
        .output()
        .expect("cannot run opt-19")
        .status
        .success()
}

#[test]
fn the_verifier_rejects_ill_typed_new_instructions_as_llvm_does() {
    let cases = [
        "define void @f(i32 %x) {\n  %y = fadd i32 %x, %x\n  ret void\n}\n",
        "define void @f(double %x) {\n  %y = fneg double %x\n  %z = fneg i64 1\n  ret void\n}\n",
        "define void @f(i32 %x) {\n  %c = fcmp olt i32 %x, %x\n  ret void\n}\n",
        "define void @f(double %x) {\n  %c = sitofp double %x to double\n  ret void\n}\n",
        "define void @f(float %x) {\n  %c = fptrunc float %x to double\n  ret void\n}\n",
        "define void @f(<4 x i32> %v) {\n  %c = bitcast <4 x i32> %v to i64\n  ret void\n}\n",
        "define void @f(<4 x i32> %v) {\n  %c = zext <4 x i32> %v to <2 x i64>\n  ret void\n}\n",
        "define void @f(<4 x i32> %v) {\n  %c = insertelement <4 x i32> %v, i64 1, i32 0\n  ret void\n}\n",
        "define void @f(<4 x i32> %v) {\n  %c = shufflevector <4 x i32> %v, <4 x i32> %v, <2 x i32> <i32 0, i32 8>\n  ret void\n}\n",
        "define void @f(<4 x i32> %v, <2 x i1> %c) {\n  %s = select <2 x i1> %c, <4 x i32> %v, <4 x i32> %v\n  ret void\n}\n",
        "define void @f(ptr %p) {\n  %x = cmpxchg ptr %p, i32 0, i32 1 seq_cst release\n  ret void\n}\n",
        "define void @f(ptr %p) {\n  %x = atomicrmw fadd ptr %p, i32 1 seq_cst\n  ret void\n}\n",
        "define void @f(ptr %p) {\n  %x = atomicrmw add ptr %p, float 1.0 seq_cst\n  ret void\n}\n",
        "define void @f() {\n  fence monotonic\n  ret void\n}\n",
        "define void @f(ptr %p) {\n  %x = load atomic i32, ptr %p release, align 4\n  ret void\n}\n",
        "define void @f(ptr %p) {\n  store atomic i32 0, ptr %p acquire, align 4\n  ret void\n}\n",
        "define void @f(ptr %p) {\n  %x = load atomic i32, ptr %p seq_cst\n  ret void\n}\n",
        "define void @f() {\n  %x = insertvalue { i32, i1 } undef, i64 1, 0\n  ret void\n}\n",
        "define i32 @f(ptr sret(i32) %p) {\n  ret i32 0\n}\n",
        "declare void @f(i64 byval(i64))\n",
        "define void @f(<2 x ptr> %p) {\n  %x = getelementptr i8, <2 x ptr> %p, <4 x i64> zeroinitializer\n  ret void\n}\n",
    ];
    let verdicts: Vec<String> = cases
        .iter()
        .map(|case| {
            assert!(!opt19_accepts(case), "opt-19 accepts:\n{case}");
            verdict(case)
        })
        .collect();
    expect![[r#"
        2:3: in function @f: `%y = fadd` in block %0: result type i32 is not floating-point
        3:3: in function @f: `%z = fneg` in block %0: result type i64 is not floating-point
        2:3: in function @f: `%c = fcmp` in block %0: compares values of type i32
        2:3: in function @f: `%c = sitofp` in block %0: sitofp double to double: it needs an integer to a float
        2:3: in function @f: `%c = fptrunc` in block %0: fptrunc float to double: the result must be narrower
        2:3: in function @f: `%c = bitcast` in block %0: bitcast <4 x i32> to i64: both types must be the same size and kind
        2:3: in function @f: `%c = zext` in block %0: zext <4 x i32> to <2 x i64>: both types must have the same number of lanes
        2:3: in function @f: `%c = insertelement` in block %0: the inserted value has type i64, expected i32
        2:3: in function @f: `%c = shufflevector` in block %0: mask lane 8 is out of range for two vectors of 4
        2:3: in function @f: `%s = select` in block %0: the condition has type <2 x i1>, expected i1 per lane
        2:3: in function @f: `%x = cmpxchg` in block %0: orderings seq_cst release are not allowed
        2:3: in function @f: `%x = atomicrmw` in block %0: atomicrmw fadd on i32
        2:3: in function @f: `%x = atomicrmw` in block %0: atomicrmw add on float
        2:3: in function @f: `fence` in block %0: a fence cannot be monotonic
        2:3: in function @f: `%x = load` in block %0: an atomic access cannot be release
        2:3: in function @f: `store` in block %0: an atomic access cannot be acquire
        2:3: in function @f: `%x = load` in block %0: an atomic access needs an alignment
        2:3: in function @f: `%x = insertvalue` in block %0: the inserted value has type i64, expected i32
        1:1: in function @f: a function with an sret parameter must return void
        1:1: in function @f: parameter 1 is byval or sret but not ptr
        2:3: in function @f: `%x = getelementptr` in block %0: the operands have different vector lengths"#]]
    .assert_eq(&verdicts.join("\n"));
}

#[test]
fn the_parser_names_what_it_refuses() {
    let cases = [
        "define void @f() {\n  callbr void asm \"\", \"!i\"() to label %a [label %b]\na:\n  ret void\nb:\n  ret void\n}\n",
        "@g = global float 1.000000e-01\n",
        "@g = global half 1.0\n",
        "@g = global <vscale x 4 x i32> zeroinitializer\n",
        "@g = global x86_mmx undef\n",
        "@g = global <100000 x i8> zeroinitializer\n",
        "define void @f(<4 x i32> %v) {\n  %s = shufflevector <4 x i32> %v, <4 x i32> %v, <2 x i64> <i64 0, i64 1>\n  ret void\n}\n",
        "define void @f({ i32, i1 } %a) {\n  %x = extractvalue { i32, i1 } %a, 2\n  ret void\n}\n",
        "define void @f(i32 %x) {\n  %y = extractelement i32 %x, i32 0\n  ret void\n}\n",
        "@t = global [1 x ptr] [ptr blockaddress(@f, %nowhere)]\ndefine void @f() {\n  ret void\n}\n",
        "@t = global <2 x i32> <i32 1>\n",
        "define void @f(ptr %p) {\n  fence\n  ret void\n}\n",
    ];
    let errors: Vec<String> = cases
        .iter()
        .map(|case| match parse_module(case, "bad.ll") {
            Ok(_) => "parsed".to_string(),
            Err(d) => format!("{}:{}: {}", d.pos.line, d.pos.col, d.message),
        })
        .collect();
    expect![[r#"
        2:3: instruction 'callbr' is not supported
        1:19: invalid float constant '1.000000e-01'
        1:18: invalid half constant '1.0'
        1:13: scalable vector types are not supported
        1:13: type 'x86_mmx' is not supported
        1:13: vector length 100000 is not supported (1 to 65536)
        2:50: invalid shufflevector mask
        2:8: member index 2 is out of range
        2:8: extractelement needs a vector
        1:45: '@f' has no block '%nowhere' to take the address of
        1:23: type mismatch: this vector is not a valid constant of this type
        3:3: expected an atomic ordering, found 'ret'"#]]
    .assert_eq(&errors.join("\n"));
}

/// Selects function `@f` of `text` and returns its diagnostic.
fn isel_error(text: &str) -> String {
    let module = parse_module(text, "new.ll").unwrap_or_else(|d| panic!("{d}"));
    verify_module(&module).unwrap_or_else(|d| panic!("{d}"));
    let id = module.function_by_name("f").unwrap();
    match select_function(&module, id, &IselOptions { debug_info: true }) {
        Ok(_) => "selected".to_string(),
        Err(mut e) => {
            e.file = "new.ll".into();
            e.to_string()
        }
    }
}

#[test]
fn instruction_selection_names_each_new_instruction_it_does_not_lower() {
    let body =
        |inst: &str| format!("define void @f(ptr %p, i64 %n) {{\n  {inst}\n  ret void\n}}\n");
    let cases = [
        "%x = load atomic i64, ptr %p seq_cst, align 8",
        "store atomic i64 %n, ptr %p seq_cst, align 8",
        "%x = cmpxchg ptr %p, i64 0, i64 %n seq_cst seq_cst, align 8",
        "%x = atomicrmw add ptr %p, i64 %n seq_cst, align 8",
        "fence seq_cst",
        "%x = va_arg ptr %p, { i64, i64 }",
        "call void asm sideeffect \"hlt\", \"~{memory}\"()",
    ];
    let mut errors: Vec<String> = cases.iter().map(|inst| isel_error(&body(inst))).collect();
    errors.push(isel_error(
        "define void @f(ptr %p) {\n  indirectbr ptr %p, [label %a]\na:\n  ret void\n}\n",
    ));
    errors.push(isel_error(
        "define { i64, i64, i64 } @f() {\n  ret { i64, i64, i64 } zeroinitializer\n}\n",
    ));
    errors.push(isel_error(&body(
        "%x = getelementptr i8, ptr %p, <2 x i64> <i64 0, i64 1>",
    )));
    errors.push(isel_error(
        "declare void @g(ptr byval([4 x i64]))\ndefine void @f(ptr %p) {\n  musttail call void @g(ptr byval([4 x i64]) %p)\n  ret void\n}\n",
    ));
    errors.push(isel_error(&body("%x = uitofp i128 0 to double")));
    expect![[r#"
        selected
        selected
        selected
        selected
        selected
        new.ll:2:3: error: function @f: unsupported va_arg of { i64, i64 }
        new.ll:2:3: error: function @f: unsupported inline asm "hlt" ("~{memory}"): instruction 'hlt'
        selected
        new.ll:2:3: error: function @f: unsupported return of { i64, i64, i64 } (more than two registers of a kind: beyond the C ABI, which clang meets with sret)
        selected
        new.ll:3:3: error: function @f: unsupported musttail call with arguments on the stack (only register arguments are passed in place)
        new.ll:2:3: error: function @f: unsupported instruction 'uitofp' of i128"#]]
    .assert_eq(&errors.join("\n"));
}

#[test]
fn the_optimiser_keeps_an_unused_atomic_load_and_drops_a_plain_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("atomic.ll");
    std::fs::write(
        &input,
        "define void @f(ptr %p) {\n  %a = load atomic i32, ptr %p acquire, align 4\n  %b = load i32, ptr %p, align 4\n  ret void\n}\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .args(["opt", "-O2", "-o", "-"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    expect![[r#"

        define void @f(ptr %p) {
          %a = load atomic i32, ptr %p acquire, align 4
          ret void
        }
    "#]]
    .assert_eq(&String::from_utf8_lossy(&output.stdout));
}

#[test]
fn the_optimiser_leaves_the_blocks_of_a_computed_goto_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("goto.ll");
    std::fs::write(
        &input,
        "@disp = internal constant [2 x ptr] [ptr blockaddress(@go, %b), ptr blockaddress(@go, %c)]\n\
         define i32 @go(i32 %i) {\nentry:\n  br label %a\na:\n  %idx = zext i32 %i to i64\n  \
         %slot = getelementptr [2 x ptr], ptr @disp, i64 0, i64 %idx\n  %t = load ptr, ptr %slot\n  \
         indirectbr ptr %t, [label %b, label %c]\nb:\n  br label %c\nc:\n  ret i32 1\n}\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .args(["opt", "-O2", "-o", "-"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let printed = String::from_utf8_lossy(&output.stdout);
    let path = dir.path().join("printed.ll");
    std::fs::write(&path, printed.as_bytes()).unwrap();
    let verdict = Command::new(opt19())
        .args(["-passes=verify", "-disable-output"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(verdict.status.success(), "opt-19 rejects:\n{printed}");
    expect![[r#"

        @disp = internal constant [2 x ptr] [ptr blockaddress(@go, %b), ptr blockaddress(@go, %c)]

        define i32 @go(i32 %i) {
        entry:
          br label %a

        a:
          %idx = zext i32 %i to i64
          %slot = getelementptr [2 x ptr], ptr @disp, i64 0, i64 %idx
          %t = load ptr, ptr %slot
          indirectbr ptr %t, [label %b, label %c]

        b:
          br label %c

        c:
          ret i32 1
        }
    "#]]
    .assert_eq(&printed);
}

#[test]
fn dbg_addr_is_upgraded_to_a_dbg_value_of_the_address_with_a_deref() {
    // LLVM 14-15's `llvm.dbg.addr`, as LLVM 16's upgrade rewrites it: the
    // variable is in memory at the address from this point on. DW_OP_deref
    // goes before a fragment.
    check(
        r#"define i32 @f(i32 %a) !dbg !6 {
  %x = alloca i64, align 8
  call void @llvm.dbg.addr(metadata ptr %x, metadata !9, metadata !DIExpression()), !dbg !11
  call void @llvm.dbg.addr(metadata ptr %x, metadata !9, metadata !DIExpression(DW_OP_LLVM_fragment, 0, 32)), !dbg !11
  store i64 0, ptr %x, align 8, !dbg !11
  ret i32 %a, !dbg !11
}

declare void @llvm.dbg.addr(metadata, metadata, metadata)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang version 14.0.6", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "a.c", directory: "/tmp")
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!6 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !7, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!7 = !DISubroutineType(types: !8)
!8 = !{null}
!9 = !DILocalVariable(name: "x", scope: !6, file: !1, line: 1, type: !10)
!10 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
!11 = !DILocation(line: 1, column: 1, scope: !6)
"#,
        expect![[r#"
            define i32 @f(i32 %a) !dbg !4 {
              %x = alloca i64, align 8
                #dbg_value(ptr %x, !7, !DIExpression(DW_OP_deref), !9)
                #dbg_value(ptr %x, !7, !DIExpression(DW_OP_deref, DW_OP_LLVM_fragment, 0, 32), !9)
              store i64 0, ptr %x, align 8, !dbg !9
              ret i32 %a, !dbg !9
            }

            !llvm.dbg.cu = !{!0}
            !llvm.module.flags = !{!2, !3}

            !0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang version 14.0.6", isOptimized: false, emissionKind: FullDebug, runtimeVersion: 0, splitDebugInlining: false, nameTableKind: None)
            !1 = !DIFile(filename: "a.c", directory: "/tmp")
            !2 = !{i32 7, !"Dwarf Version", i32 5}
            !3 = !{i32 2, !"Debug Info Version", i32 3}
            !4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !5, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
            !5 = !DISubroutineType(types: !6)
            !6 = !{null}
            !7 = !DILocalVariable(name: "x", scope: !4, file: !1, line: 1, type: !8)
            !8 = !DIBasicType(name: "long", size: 64, encoding: DW_ATE_signed)
            !9 = !DILocation(line: 1, column: 1, scope: !4)
        "#]],
    );
}
