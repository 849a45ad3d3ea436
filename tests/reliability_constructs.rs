//! Nothing is accepted that code generation ignores: each construct below
//! is either compiled and run end to end (linked with a C driver by gcc,
//! exact output) or refused with the exact error naming it, the function or
//! global, and file:line:col. The refusals come from one gate,
//! `src/codegen/unsupported.rs` (and the target gate for pointer address
//! spaces); when a construct becomes honoured, move its row from
//! `REFUSED` to `COMPILED` with a driver that exercises it.

mod support;

use std::path::Path;
use std::process::Command;

use support::run;

/// (construct, .ll text, the exact error `compile case.ll` prints).
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "a global larger than 2 GiB",
        "@g = global [4294967296 x [4294967296 x i64]] zeroinitializer\n",
        "case.ll:1:1: error: global @g: 18446744073709551615 bytes (more than the small code model's 2 GiB) is not supported by code generation",
    ),
    (
        "an alloca larger than 2 GiB",
        "define i64 @f() {\n  %p = alloca [268435456 x i64]\n  ret i64 0\n}\n",
        "case.ll:2:3: error: function @f: an alloca of 2147483648 bytes (more than the small code model's 2 GiB) is not supported by code generation",
    ),
    (
        "alias of a declaration",
        "@g = external global i32\n@a = alias i32, ptr @g\n",
        "case.ll:2:1: error: alias @a: the aliasee @g is not a function or variable defined here with a place in this object",
    ),
    (
        "ifunc",
        "define ptr @r() {\n  ret ptr null\n}\n@i = ifunc void (), ptr @r\n",
        "case.ll:4:6: error: '@i' is an ifunc: ifuncs are not supported",
    ),
    ("inalloca", "define void @f(ptr inalloca(i32) %p) {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: attribute inalloca(i32) on parameter 1 is not supported by code generation"),
    ("preallocated", "define void @f(ptr preallocated(i32) %p) {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: attribute preallocated(i32) on parameter 1 is not supported by code generation"),
    ("swifterror", "define void @f(ptr swifterror %p) {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: attribute swifterror on parameter 1 is not supported by code generation"),
    ("swiftself", "define void @f(ptr swiftself %p) {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: attribute swiftself on parameter 1 is not supported by code generation"),
    ("nest", "define void @f(ptr nest %p) {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: attribute nest on parameter 1 is not supported by code generation"),
    ("inreg", "define i32 @f(i32 inreg %x) {\n  ret i32 %x\n}\n",
     "case.ll:1:1: error: function @f: attribute inreg on parameter 1 is not supported by code generation"),
    ("calling convention", "define x86_vectorcallcc i32 @f(i32 %x) {\n  ret i32 %x\n}\n",
     "case.ll:1:1: error: function @f: calling convention x86_vectorcallcc on the return value is not supported by code generation"),
    ("musttail with stack arguments", "declare i64 @g(i64, i64, i64, i64, i64, i64, i64)\ndefine i64 @f(i64 %x) {\n  %r = musttail call i64 @g(i64 %x, i64 %x, i64 %x, i64 %x, i64 %x, i64 %x, i64 %x)\n  ret i64 %r\n}\n",
     "case.ll:3:3: error: function @f: unsupported musttail call with arguments on the stack (only register arguments are passed in place)"),
    ("an SSE intrinsic with no selection here (cmpps with its predicate)", "define <4 x float> @f(<4 x float> %a, <4 x float> %b) {\n  %r = call <4 x float> @llvm.x86.sse.cmp.ps(<4 x float> %a, <4 x float> %b, i8 1)\n  ret <4 x float> %r\n}\ndeclare <4 x float> @llvm.x86.sse.cmp.ps(<4 x float>, <4 x float>, i8)\n",
     "case.ll:2:3: error: function @f: intrinsic @llvm.x86.sse.cmp.ps on vectors is not supported by code generation"),
    ("comdat with a selection kind ELF cannot express", "$f = comdat largest\ndefine void @f() comdat {\n  ret void\n}\n",
     "case.ll:2:1: error: function @f: comdat $f with selection kind largest is not supported by code generation"),
    ("address space of a global", "@g = addrspace(1) global i32 1\n",
     "case.ll:1:1: error: global @g: address space (addrspace(1)) is not supported by code generation"),
    ("address space of a pointer", "define i32 @f(ptr addrspace(256) %p) {\n  %v = load i32, ptr addrspace(256) %p\n  ret i32 %v\n}\n",
     "case.ll:1:28: error: pointers in address space 256 are not supported"),
    ("gc", "define void @f() gc \"shadow-stack\" {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: garbage collector (gc \"shadow-stack\") is not supported by code generation"),
    ("prefix data", "define void @f() prefix i32 7 {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: prefix data (prefix) is not supported by code generation"),
    ("prologue data", "define void @f() prologue i8 144 {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: prologue data (prologue) is not supported by code generation"),
    ("dllexport", "define dllexport void @f() {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: DLL storage class (dllexport) is not supported by code generation"),
    ("available_externally linkage", "define available_externally i32 @f() {\n  ret i32 1\n}\n",
     "case.ll:1:1: error: function @f: available_externally linkage is not supported by code generation"),
    ("function alignment above a page", "define void @f() align 8192 {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: align 8192 (functions are aligned to at most 4096 bytes) is not supported by code generation"),
    ("naked", "define void @f() #0 {\n  ret void\n}\nattributes #0 = { naked noinline }\n",
     "case.ll:1:1: error: function @f: function attribute naked is not supported by code generation"),
    ("alignstack", "define void @f() alignstack(32) {\n  ret void\n}\n",
     "case.ll:1:1: error: function @f: function attribute alignstack(32) is not supported by code generation"),
    ("appending global other than llvm.used/compiler.used/global_ctors/global_dtors", "@list = appending global [1 x i32] [i32 1]\n",
     "case.ll:1:1: error: global @list: appending linkage is not supported by code generation"),
    ("module asm", "module asm \".globl sym\"\n",
     "case.ll:1:1: error: module asm: module-level inline assembly is not supported by code generation"),
    ("a return in more than two registers of a kind", "define { i64, i64, i64 } @f(i64 %x) {\n  %a = insertvalue { i64, i64, i64 } zeroinitializer, i64 %x, 0\n  ret { i64, i64, i64 } %a\n}\n",
     "case.ll:3:3: error: function @f: unsupported return of { i64, i64, i64 } (more than two registers of a kind: beyond the C ABI, which clang meets with sret)"),
    ("a misaligned 16-byte atomic", "define i128 @f(ptr %p) {\n  %v = load atomic i128, ptr %p seq_cst, align 8\n  ret i128 %v\n}\n",
     "case.ll:2:3: error: function @f: unsupported misaligned atomic 'load atomic' of i128 (align 8: LLVM calls __atomic_* functions for it)"),
    ("a vector member of an aggregate not of 4, 8 or 16 bytes", "define float @f({ <3 x float>, float } %s) {\n  %v = extractvalue { <3 x float>, float } %s, 1\n  ret float %v\n}\n",
     "case.ll:1:1: error: function @f: unsupported type { <3 x float>, float } in code generation"),
    ("an integer of 65 to 127 bits as a return value", "define i96 @f(i64 %x) {\n  %v = zext i64 %x to i96\n  ret i96 %v\n}\n",
     "case.ll:1:1: error: function @f: return value of type i96 (integers of 65 to 127 bits are not passed to or returned from functions) is not supported by code generation"),
    ("an integer wider than 128 bits (csmith's packed structs)", "define void @f(ptr %p) {\n  %v = load i168, ptr %p\n  store i168 %v, ptr %p\n  ret void\n}\n",
     "case.ll:2:3: error: function @f: unsupported result type i168 of 'load' in code generation"),
    ("a signed saturating add of 32-bit lanes", "define <4 x i32> @f(<4 x i32> %a, <4 x i32> %b) {\n  %r = call <4 x i32> @llvm.sadd.sat.v4i32(<4 x i32> %a, <4 x i32> %b)\n  ret <4 x i32> %r\n}\ndeclare <4 x i32> @llvm.sadd.sat.v4i32(<4 x i32>, <4 x i32>)\n",
     "case.ll:2:3: error: function @f: intrinsic @llvm.sadd.sat.v4i32 on vectors is not supported by code generation"),
    ("a constant wider than 128 bits", "define void @f(ptr %p) {\n  store i168 340282366920938463463374607431768211457, ptr %p\n  ret void\n}\n",
     "case.ll:2:14: error: unsupported constant 340282366920938463463374607431768211457 of type i168: integers wider than 128 bits are not supported"),
];

/// (construct, .ll text, C driver, exact program output).
const COMPILED: &[(&str, &str, &str, &str)] = &[
    ("common linkage", "@g = common global i32 0, align 4\ndefine i32 @f() {\n  %v = load i32, ptr @g\n  ret i32 %v\n}\n",
     "int f(void);\nint g = 42;\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("extern_weak linkage", "@g = extern_weak global i32\ndeclare extern_weak i32 @h()\ndefine i32 @f() {\n  %a = icmp eq ptr @g, null\n  %b = icmp eq ptr @h, null\n  %c = and i1 %a, %b\n  %r = select i1 %c, i32 42, i32 0\n  ret i32 %r\n}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("thread_local", "@t = thread_local global i32 40, align 4\ndefine i32 @f() {\n  %v = load i32, ptr @t\n  %r = add i32 %v, 2\n  store i32 %r, ptr @t\n  ret i32 %r\n}\n",
     "int f(void);\nextern __thread int t;\nint main(void) { int r = f(); printf(\"%d %d\\n\", r, t); }\n", "42 42\n"),
    ("thread_local(initialexec)", "@t = thread_local(initialexec) global i32 40\ndefine i32 @f() {\n  %p = call ptr @llvm.threadlocal.address.p0(ptr @t)\n  %v = load i32, ptr %p\n  %r = add i32 %v, 2\n  ret i32 %r\n}\ndeclare ptr @llvm.threadlocal.address.p0(ptr)\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("thread_local(localdynamic)", "@t = internal thread_local(localdynamic) global i32 40\ndefine i32 @f() {\n  %v = load i32, ptr @t\n  %r = add i32 %v, 2\n  ret i32 %r\n}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("thread_local(localexec)", "@t = thread_local(localexec) global i32 0\ndefine ptr @f() {\n  ret ptr @t\n}\n",
     "int *f(void);\nextern __thread int t;\nint main(void) { t = 42; printf(\"%d %d\\n\", *f(), f() == &t); }\n", "42 1\n"),
    ("returned", "define i64 @f(i64 returned %x) {\n  ret i64 %x\n}\n",
     "long f(long);\nint main(void) { printf(\"%ld\\n\", f(41) + 1); }\n", "42\n"),
    ("pointer hints", "define i32 @f(ptr noalias nocapture readonly align 4 dereferenceable(8) %p) {\n  %a = load i32, ptr %p, align 4\n  %q = getelementptr inbounds i32, ptr %p, i64 1\n  %b = load i32, ptr %q, align 4\n  %s = add i32 %a, %b\n  ret i32 %s\n}\n",
     "int f(const int *);\nint main(void) { int v[2] = {40, 2}; printf(\"%d\\n\", f(v)); }\n", "42\n"),
    ("fastcc internal call", "define internal fastcc i32 @g(i32 %x) {\n  %r = mul i32 %x, 2\n  ret i32 %r\n}\ndefine i32 @f(i32 %x) {\n  %r = call fastcc i32 @g(i32 %x)\n  ret i32 %r\n}\n",
     "int f(int);\nint main(void) { printf(\"%d\\n\", f(21)); }\n", "42\n"),
    ("function align 16 and attribute groups", "define i32 @f() #0 align 16 {\n  ret i32 42\n}\nattributes #0 = { noinline nounwind uwtable \"frame-pointer\"=\"all\" }\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("function align 64", "define i32 @f() align 64 {\n  ret i32 42\n}\ndefine i32 @g() align 64 {\n  ret i32 0\n}\n",
     "int f(void);\nint g(void);\nint main(void) { printf(\"%d %d\\n\", f() + g(), (int)((unsigned long)&g % 64)); }\n", "42 0\n"),
    ("extern_weak declaration with !dbg before its linkage", "declare !dbg !3 extern_weak i32 @h()\ndefine i32 @f() {\n  %b = icmp eq ptr @h, null\n  %r = select i1 %b, i32 42, i32 0\n  ret i32 %r\n}\n!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!5, !6}\n!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: \"clang\", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)\n!1 = !DIFile(filename: \"w.c\", directory: \"/tmp\")\n!3 = !DISubprogram(name: \"h\", scope: !1, file: !1, line: 1, type: !4, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)\n!4 = !DISubroutineType(types: !{null})\n!5 = !{i32 7, !\"Dwarf Version\", i32 5}\n!6 = !{i32 2, !\"Debug Info Version\", i32 3}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("global alignment and unnamed_addr", "@g = unnamed_addr global i32 42, align 64\ndefine ptr @f() {\n  ret ptr @g\n}\n",
     "int *f(void);\nint main(void) { int *p = f(); printf(\"%d %d\\n\", *p, (int)((unsigned long)p % 64)); }\n", "42 0\n"),
    ("internal and private linkage", "@p = private constant i32 40\ndefine internal i32 @g() {\n  %v = load i32, ptr @p\n  ret i32 %v\n}\ndefine i32 @f() {\n  %v = call i32 @g()\n  %r = add i32 %v, 2\n  ret i32 %r\n}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("explicit address space 0", "define i32 @f(ptr addrspace(0) %p) {\n  %v = load i32, ptr addrspace(0) %p\n  ret i32 %v\n}\n",
     "int f(int *);\nint main(void) { int v = 42; printf(\"%d\\n\", f(&v)); }\n", "42\n"),
    ("section on a global", "@g = global i32 42, section \".mydata\"\ndefine ptr @f() {\n  ret ptr @g\n}\n",
     "int *f(void);\nint main(void) { printf(\"%d\\n\", *f()); }\n", "42\n"),
    ("hidden and protected visibility", "@g = protected global i32 40\ndefine hidden i32 @f() {\n  %v = load i32, ptr @g\n  %r = add i32 %v, 2\n  ret i32 %r\n}\n",
     "int f(void) __attribute__((visibility(\"hidden\")));\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("weak linkage overridden by a strong definition", "define weak i32 @g() {\n  ret i32 1\n}\ndefine i32 @f() {\n  %v = call i32 @g()\n  ret i32 %v\n}\n",
     "int f(void);\nint g(void) { return 42; }\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("linkonce_odr and weak_odr linkage", "@d = weak_odr global i32 40\ndefine linkonce_odr i32 @f() {\n  %v = load i32, ptr @d\n  %r = add i32 %v, 2\n  ret i32 %r\n}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("byval", "%S = type { i64, i64, i64 }\ndefine i64 @f(ptr byval(%S) align 8 %p) {\n  %a = load i64, ptr %p\n  %q = getelementptr i8, ptr %p, i64 16\n  %c = load i64, ptr %q\n  %r = sub i64 %a, %c\n  ret i64 %r\n}\n",
     "struct S { long a, b, c; };\nlong f(struct S);\nint main(void) { struct S s = {50, 1, 8}; printf(\"%ld\\n\", f(s)); }\n", "42\n"),
    ("byval at a call", "%S = type { i64, i64, i64 }\ndeclare i64 @g(ptr byval(%S) align 8)\ndefine i64 @f(ptr %p) {\n  %r = call i64 @g(ptr byval(%S) align 8 %p)\n  store i64 0, ptr %p\n  ret i64 %r\n}\n",
     "struct S { long a, b, c; };\nlong f(struct S *);\nlong g(struct S s) { long r = s.a - s.c; s.a = 7; return r; }\nint main(void) { struct S s = {50, 1, 8}; long r = f(&s); printf(\"%ld %ld\\n\", r, s.a); }\n", "42 0\n"),
    ("sret", "%S = type { i64, i64, i64 }\ndefine void @f(ptr sret(%S) %p) {\n  store i64 42, ptr %p\n  %q = getelementptr i8, ptr %p, i64 16\n  store i64 7, ptr %q\n  ret void\n}\n",
     "struct S { long a, b, c; };\nstruct S f(void);\nint main(void) { struct S s = f(); printf(\"%ld %ld\\n\", s.a, s.c); }\n", "42 7\n"),
    ("section on a function", "define i32 @f() section \".text.hot\" {\n  ret i32 42\n}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("comdat", "$f = comdat any\ndefine linkonce_odr i32 @f() comdat {\n  ret i32 42\n}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("comdat on a global", "$c = comdat any\n@g = global i32 40, comdat($c)\n@z = linkonce_odr global i32 0, comdat($c)\ndefine i32 @f() {\n  %v = load i32, ptr @g\n  %w = load i32, ptr @z\n  %s = add i32 %v, %w\n  %r = add i32 %s, 2\n  ret i32 %r\n}\n",
     "int f(void);\nint main(void) { printf(\"%d\\n\", f()); }\n", "42\n"),
    ("alias", "@g = global [2 x i32] [i32 40, i32 2]\n@a = alias i32, getelementptr (i8, ptr @g, i64 4)\ndefine i32 @f() {\n  %v = load i32, ptr @g\n  %w = load i32, ptr @a\n  %r = add i32 %v, %w\n  ret i32 %r\n}\n",
     "int f(void);\nextern int a;\nint main(void) { printf(\"%d %d\\n\", f(), a); }\n", "42 2\n"),
    ("a struct of floats returned as { <2 x float>, float }", "define { <2 x float>, float } @f(<2 x float> %xy, float %z) {\n  %a = insertvalue { <2 x float>, float } poison, <2 x float> %xy, 0\n  %b = insertvalue { <2 x float>, float } %a, float %z, 1\n  ret { <2 x float>, float } %b\n}\n",
     "struct V3 { float x, y, z; };\nstruct V3 f(struct V3);\nint main(void) { struct V3 v = f((struct V3){40, 1, 2}); printf(\"%g %g %g\\n\", v.x, v.y, v.z); }\n", "40 1 2\n"),
    ("16-byte atomics with cx16", "define i128 @f(ptr %p, i128 %x) #0 {\n  %o = atomicrmw add ptr %p, i128 %x seq_cst, align 16\n  %v = load atomic i128, ptr %p acquire, align 16\n  %r = add i128 %o, %v\n  ret i128 %r\n}\nattributes #0 = { \"target-features\"=\"+cx16\" }\n",
     "__int128 f(__int128 *, __int128);\nint main(void) { __int128 c = 40; printf(\"%d\\n\", (int)(f(&c, 1) - 39)); }\n", "42\n"),
    ("comiss and its flags", "define i32 @f(<4 x float> %a, <4 x float> %b) {\n  %r = call i32 @llvm.x86.sse.comilt.ss(<4 x float> %a, <4 x float> %b)\n  ret i32 %r\n}\ndeclare i32 @llvm.x86.sse.comilt.ss(<4 x float>, <4 x float>)\n",
     "#include <xmmintrin.h>\nint f(__m128, __m128);\nint main(void) { printf(\"%d %d\\n\", f(_mm_set_ss(1), _mm_set_ss(2)), f(_mm_set_ss(2), _mm_set_ss(1))); }\n", "1 0\n"),
    ("an MXCSR intrinsic", "define i32 @f() {\n  %p = alloca i32\n  call void @llvm.x86.sse.stmxcsr(ptr %p)\n  %r = load i32, ptr %p\n  ret i32 %r\n}\ndeclare void @llvm.x86.sse.stmxcsr(ptr)\n",
     "#include <xmmintrin.h>\nint f(void);\nint main(void) { printf(\"%d\\n\", f() == (int)_mm_getcsr()); }\n", "1\n"),
    ("musttail", "define i32 @f(i32 %x) {\n  %c = icmp eq i32 %x, 0\n  br i1 %c, label %done, label %more\nmore:\n  %y = sub i32 %x, 1\n  %r = musttail call i32 @f(i32 %y)\n  ret i32 %r\ndone:\n  ret i32 42\n}\n",
     "int f(int);\nint main(void) { printf(\"%d\\n\", f(50000000)); }\n", "42\n"),
];

fn compile(dir: &Path, text: &str) -> std::process::Output {
    std::fs::write(dir.join("case.ll"), text).unwrap();
    run(Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .current_dir(dir)
        .args(["compile", "case.ll", "-o", "case.o"]))
}

#[test]
fn refused_constructs_are_errors_naming_them() {
    let mut wrong = Vec::new();
    for (construct, text, expected) in REFUSED {
        let dir = tempfile::tempdir().unwrap();
        let out = compile(dir.path(), text);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(1) || stderr.trim_end() != *expected {
            wrong.push(format!(
                "{construct}: exit {:?}: {stderr}",
                out.status.code()
            ));
        }
        assert!(
            !dir.path().join("case.o").exists(),
            "{construct}: an object was written"
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn compiled_constructs_run_end_to_end() {
    let mut wrong = Vec::new();
    for (construct, text, driver, expected) in COMPILED {
        let dir = tempfile::tempdir().unwrap();
        let out = compile(dir.path(), text);
        assert!(
            out.status.success(),
            "{construct}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(
            dir.path().join("main.c"),
            format!("#include <stdio.h>\n{driver}"),
        )
        .unwrap();
        let link = run(Command::new("gcc")
            .current_dir(dir.path())
            .args(["main.c", "case.o", "-o", "case"]));
        assert!(
            link.status.success(),
            "{construct}: {}",
            String::from_utf8_lossy(&link.stderr)
        );
        let ran = run(&mut Command::new(dir.path().join("case")));
        let stdout = String::from_utf8_lossy(&ran.stdout);
        if !ran.status.success() || stdout != *expected {
            wrong.push(format!(
                "{construct}: printed {stdout:?}, expected {expected:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
