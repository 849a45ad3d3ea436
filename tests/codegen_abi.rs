//! The SysV ABI end to end, against gcc in both directions: the C files of
//! `fixtures/abi/` are compiled at test time by `clang-19 -O2 -g -S
//! -emit-llvm` and then by dwarfsmith, and linked with gcc-compiled
//! counterparts: our callees (`callees.c`) called from gcc's `callers.c`,
//! and our `callers.c` calling gcc's callees. The cases: `byval` structs
//! (small, large, with doubles, mixed, after stack arguments), `sret`, the
//! struct-return classes ({i64,i64} in rax:rdx, {double,double} in
//! xmm0:xmm1, {i64,double} in rax:xmm0, {ptr,i32}), coerced small structs,
//! `i128` arithmetic, division, shifts, compares, min/max, a loop-carried
//! `i128` (a phi), loads and stores, arguments in register pairs and on the
//! stack, variadic definitions reading ints and doubles past the register
//! save area (and through `va_copy`), `va_arg` of structs of every class
//! and of `long double` as clang lowers it itself (`va_structs_lib.c`),
//! `tail` calls made jumps where the ABI allows (`sibling.c`: 10,000,000
//! calls deep between our code and gcc's), and `musttail` mutual recursion
//! 50,000,000 calls deep (`tail.c`, `tail_odd.c`, direct and indirect); the
//! callees also from clang-14 IR. Every program's output equals the gcc
//! build's exactly (gcc -O0, except the two tail-call files at -O2: without sibling calls
//! gcc's own build would overflow the stack). Also: `-g` and `-g0` give the
//! same code, llvm-dwarfdump-19 --verify is clean, gdb prints `byval`
//! parameters at their stack homes, the variable living in `sret` memory,
//! and an `i128` local from its register pair (two pieces), and the selected MIR of the new constructs is pinned.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{clang_ir, dwarfdump_verify, fixture, gcc_link, run, run_program};

use dwarfsmith::{compile, compile_to_model, CompileOptions, DebuggerTune, OptLevel};
use expect_test::expect;

/// The C files of the ABI tests.
const SOURCES: [&str; 4] = ["callers", "callees", "tail", "tail_odd"];

fn options(debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// clang-19 -O2 -g IR of `fixtures/abi/NAME.c`.
fn ir_of(dir: &Path, name: &str) -> String {
    clang_ir(dir, &format!("abi/{name}.c"), &["-O2", "-g"])
}

/// Our object of `fixtures/abi/NAME.c`.
fn our_object(dir: &Path, name: &str) -> PathBuf {
    let ir = ir_of(dir, name);
    let bytes =
        compile(&ir, &format!("{name}.ll"), &options(true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.join(format!("ours_{name}.o"));
    std::fs::write(&object, bytes).unwrap();
    object
}

/// gcc's object of `fixtures/abi/NAME.c` (-O0, but -O2 for the tail-call
/// files, whose 50M-deep recursion needs gcc's sibling calls).
fn gcc_object(dir: &Path, name: &str) -> PathBuf {
    let object = dir.join(format!("gcc_{name}.o"));
    let level = if name.starts_with("tail") {
        "-O2"
    } else {
        "-O0"
    };
    let out = run(Command::new("gcc")
        .args([level, "-g", "-c", "-o"])
        .arg(&object)
        .arg(fixture(&format!("abi/{name}.c"))));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

#[test]
fn abi_cases_run_like_gcc_with_gcc_as_caller_and_as_callee() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let ours: Vec<PathBuf> = SOURCES.iter().map(|n| our_object(dir, n)).collect();
    let gcc: Vec<PathBuf> = SOURCES.iter().map(|n| gcc_object(dir, n)).collect();

    let reference = dir.join("reference");
    gcc_link(&reference, &gcc, &[]);
    let expected = run_program(&reference);
    assert_eq!(expected.lines().count(), 49, "the driver's output changed");
    assert!(expected.contains("after_stack 396\n"));
    assert!(expected.contains("ret_ld 33 2.75\n"));
    assert!(expected.contains("twice128 02468acf13579bdffdb97530eca86421\n"));
    assert!(expected.contains("mix 71313.7500\n"));
    assert!(expected.contains("fact128 0688589cc0e9505e2f2fee5580000000\n"));
    assert!(expected.contains("is_even 1 1\n"));

    // Our callees (and tail calls), gcc's caller.
    let our_callees = dir.join("our_callees");
    gcc_link(
        &our_callees,
        &[
            gcc[0].clone(),
            ours[1].clone(),
            ours[2].clone(),
            ours[3].clone(),
        ],
        &[],
    );
    assert_eq!(run_program(&our_callees), expected);
    // Our caller, gcc's callees.
    let our_caller = dir.join("our_caller");
    gcc_link(
        &our_caller,
        &[
            ours[0].clone(),
            gcc[1].clone(),
            gcc[2].clone(),
            gcc[3].clone(),
        ],
        &[],
    );
    assert_eq!(run_program(&our_caller), expected);

    for object in &ours {
        let (ok, text) = dwarfdump_verify(object);
        assert!(
            ok && text.contains("No errors."),
            "{}: {text}",
            object.display()
        );
    }
}

#[test]
fn debug_info_does_not_change_the_code() {
    let dir = tempfile::tempdir().unwrap();
    for name in SOURCES.into_iter().chain(["sibling", "va_structs_lib"]) {
        let ir = ir_of(dir.path(), name);
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
fn gdb_prints_byval_and_sret_variables_and_an_i128_local() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let objects: Vec<PathBuf> = SOURCES
        .iter()
        .map(|n| {
            if *n == "callers" {
                gcc_object(dir, n)
            } else {
                our_object(dir, n)
            }
        })
        .collect();
    let exe = dir.join("ours");
    gcc_link(&exe, &objects, &["-g"]);
    let source = std::fs::read_to_string(fixture("abi/callees.c")).unwrap();
    let line_of = |text: &str| 1 + source.lines().position(|l| l.contains(text)).unwrap();
    let at_note = format!("break callees.c:{}", line_of("note((long)t)"));
    let in_make_big = format!("break callees.c:{}", 1 + line_of("struct Big b = {x"));
    let out = Command::new("gdb")
        .args(["-nx", "-batch", "-q"])
        .args(["-ex", "break sum_big", "-ex", "break mixed"])
        .args([
            "-ex",
            "break after_stack",
            "-ex",
            &at_note,
            "-ex",
            &in_make_big,
        ])
        .args(["-ex", "run", "-ex", "info args"])
        .args(["-ex", "continue", "-ex", "info args"])
        .args(["-ex", "continue", "-ex", "print big", "-ex", "print h"])
        .args(["-ex", "continue", "-ex", "print b", "-ex", "finish"])
        .args(["-ex", "continue", "-ex", "print/x t", "-ex", "print/x x"])
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
            "b = {a = 1, b = 2, c = 3, d = 4}",
            "x = 5",
            "m = {c = 97 'a', d = 1.25, i = 7, l = 100000}",
            "y = 9.75",
            "b2 = {a = 1, b = 2, c = 3, d = 4}",
            "$1 = {a = 1, b = 2, c = 3, d = 4}",
            "$2 = 13",
            // make_big's b lives in the sret memory: found through the
            // pointer's slot; `finish` reads the struct back through rax.
            "$3 = {a = 6, b = 12, c = 18, d = 24}",
            "Value returned is $4 = {a = 6, b = 12, c = 18, d = 24}",
            "$5 = 0x369d0369d0369cffc962fc962fc9631",
            "$6 = 0x123456789abcdeffedcba9876543210",
        ],
        "{text}"
    );
}

/// The MIR isel makes of hand-written IR (no debug records).
fn selected(ir: &str, function: &str) -> String {
    use dwarfsmith::codegen::isel::{select_function, IselOptions};
    let module = dwarfsmith::ir::parse::parse_module(ir, "abi.ll").unwrap();
    let id = module.function_by_name(function).unwrap();
    let f = select_function(&module, id, &IselOptions { debug_info: false }).unwrap();
    f.mir.to_string()
}

#[test]
fn i128_add_carries_and_a_mixed_struct_returns_in_rax_and_xmm0() {
    let ir = "define { i64, double } @f(i128 %a, i128 %b, double %d) {\n\
              \x20 %s = add i128 %a, %b\n\
              \x20 %t = trunc i128 %s to i64\n\
              \x20 %r = insertvalue { i64, double } poison, i64 %t, 0\n\
              \x20 %q = insertvalue { i64, double } %r, double %d, 1\n\
              \x20 ret { i64, double } %q\n\
              }\n";
    expect![[r#"
        name: f
        bb.0:
          %7 = COPY $rdi
          %8 = COPY $rsi
          %9 = COPY $rdx
          %10 = COPY $rcx
          %11 = COPY $xmm0
          %12 = COPY %7
          %13 = COPY %8
          %12 = ADD64 %12, %9
          %13 = ADC64 %13, %10
          %1 = COPY %12
          %2 = COPY %13
          %0 = COPY %1
          %14 = MOV64 0
          %15 = XMM_ZERO
          %3 = COPY %0
          %4 = COPY %15
          %5 = COPY %3
          %6 = COPY %11
          $rax = COPY %5
          $xmm0 = COPY %6
          RET $rax, $xmm0
    "#]]
    .assert_eq(&selected(ir, "f"));
}

#[test]
fn musttail_is_a_jump_and_va_start_fills_the_va_list() {
    let ir = "declare i32 @g(i32, ptr)\n\
              define i32 @f(i32 %x, ptr %p) {\n\
              \x20 %r = musttail call i32 @g(i32 %x, ptr %p)\n\
              \x20 ret i32 %r\n\
              }\n\
              declare void @llvm.va_start.p0(ptr)\n\
              define i32 @v(i32 %n, ...) {\n\
              \x20 %l = alloca [24 x i8], align 16\n\
              \x20 call void @llvm.va_start.p0(ptr %l)\n\
              \x20 %a = va_arg ptr %l, i32\n\
              \x20 ret i32 %a\n\
              }\n";
    expect![[r#"
        name: f
        bb.0:
          %1 = COPY $rdi
          %2 = COPY $rsi
          $rdi = COPY %1
          $rsi = COPY %2
          TAILJMP @g, args($rdi, $rsi)
    "#]]
    .assert_eq(&selected(ir, "f"));
    expect![[r#"
        name: v
          %stack.0: size 24, align 16, alloca
          %stack.1: size 176, align 16, alloca
        bb.0:  ; succ bb.1, bb.2
          STORE64 [%stack.1 + 8], $rsi
          STORE64 [%stack.1 + 16], $rdx
          STORE64 [%stack.1 + 24], $rcx
          STORE64 [%stack.1 + 32], $r8
          STORE64 [%stack.1 + 40], $r9
          TEST8 $rax, $rax
          JE bb.2
        bb.1:  ; succ bb.2
          FSTORE64 [%stack.1 + 48], $xmm0
          FSTORE64 [%stack.1 + 64], $xmm1
          FSTORE64 [%stack.1 + 80], $xmm2
          FSTORE64 [%stack.1 + 96], $xmm3
          FSTORE64 [%stack.1 + 112], $xmm4
          FSTORE64 [%stack.1 + 128], $xmm5
          FSTORE64 [%stack.1 + 144], $xmm6
          FSTORE64 [%stack.1 + 160], $xmm7
        bb.2:
          %2 = COPY $rdi
          STORE32 [%stack.0], 8
          STORE32 [%stack.0 + 4], 48
          %3 = LEA [%incoming-args]
          STORE64 [%stack.0 + 8], %3
          %4 = LEA [%stack.1]
          STORE64 [%stack.0 + 16], %4
          %5 = LOAD32 [%stack.0]
          %6 = LOAD64 [%stack.0 + 16]
          %6 = ADD64 %6, %5
          %7 = LOAD64 [%stack.0 + 8]
          %8 = LEA [%5 + 8]
          %9 = LEA [%7 + 8]
          %10 = COPY %7
          CMP32 %5, 40
          %10 = CMOVBE64 %10, %6
          %5 = CMOVBE64 %5, %8
          %9 = CMOVBE64 %9, %7
          STORE32 [%stack.0], %5
          STORE64 [%stack.0 + 8], %9
          %1 = LOAD32 [%10]
          $rax = COPY %1
          RET $rax
    "#]]
    .assert_eq(&selected(ir, "v"));
}

/// The `va_arg` instruction itself (clang expands its own `va_arg` inline,
/// so hand-written IR runs it): integers and doubles past the register
/// save area, called from gcc.
#[test]
fn va_arg_instruction_reads_ints_and_doubles_past_the_registers() {
    let ir = "declare void @llvm.va_start.p0(ptr)\n\
              declare void @llvm.va_end.p0(ptr)\n\
              define double @vsum(i32 %n, ...) {\n\
              entry:\n\
              \x20 %l = alloca [24 x i8], align 16\n\
              \x20 call void @llvm.va_start.p0(ptr %l)\n\
              \x20 br label %loop\n\
              loop:\n\
              \x20 %i = phi i32 [ 0, %entry ], [ %j, %loop ]\n\
              \x20 %acc = phi double [ 0.0, %entry ], [ %next, %loop ]\n\
              \x20 %k = va_arg ptr %l, i64\n\
              \x20 %d = va_arg ptr %l, double\n\
              \x20 %kf = sitofp i64 %k to double\n\
              \x20 %scaled = fmul double %acc, 3.0\n\
              \x20 %a = fadd double %scaled, %kf\n\
              \x20 %next = fadd double %a, %d\n\
              \x20 %j = add i32 %i, 1\n\
              \x20 %more = icmp slt i32 %j, %n\n\
              \x20 br i1 %more, label %loop, label %done\n\
              done:\n\
              \x20 call void @llvm.va_end.p0(ptr %l)\n\
              \x20 ret double %next\n\
              }\n";
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let object = dir.join("vsum.o");
    std::fs::write(&object, compile(ir, "vsum.ll", &options(false)).unwrap()).unwrap();
    let driver = dir.join("driver.c");
    std::fs::write(
        &driver,
        "#include <stdio.h>\n\
         double vsum(int n, ...);\n\
         int main(void) {\n\
         \x20 printf(\"%.3f\\n\", vsum(1, 5L, 0.5));\n\
         \x20 printf(\"%.3f\\n\", vsum(9, 1L, 0.25, 2L, 0.5, 3L, 0.75, 4L, 1.0, 5L, 1.25, 6L, 1.5,\n\
         \x20                      7L, 1.75, 8L, 2.0, -9L, 2.25));\n\
         }\n",
    )
    .unwrap();
    let exe = dir.join("vsum");
    gcc_link(&exe, &[driver, object], &[]);
    // 1: 5.5; 9: each step acc*3 + k + d, computed exactly in binary.
    assert_eq!(run_program(&exe), "5.500\n18428.250\n");
}

/// clang-14's IR (typed pointers, `byval(%struct.Big)` on `%struct.Big*`,
/// `llvm.va_start(i8*)`) of the callees, called from gcc's callers.
#[test]
fn clang_14_callees_run_like_gcc() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut objects = vec![gcc_object(dir, "callers")];
    for name in &SOURCES[1..] {
        let ll = dir.join(format!("{name}14.ll"));
        let out = run(Command::new("clang-14")
            .args(["-O2", "-g", "-S", "-emit-llvm", "-o"])
            .arg(&ll)
            .arg(fixture(&format!("abi/{name}.c"))));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ir = std::fs::read_to_string(&ll).unwrap();
        let bytes =
            compile(&ir, &format!("{name}14.ll"), &options(true)).unwrap_or_else(|e| panic!("{e}"));
        let object = dir.join(format!("ours14_{name}.o"));
        std::fs::write(&object, bytes).unwrap();
        objects.push(object);
    }
    let reference = dir.join("reference");
    let gcc: Vec<PathBuf> = SOURCES.iter().map(|n| gcc_object(dir, n)).collect();
    gcc_link(&reference, &gcc, &[]);
    let ours = dir.join("ours14");
    gcc_link(&ours, &objects, &[]);
    assert_eq!(run_program(&ours), run_program(&reference));
}

#[test]
fn va_arg_of_structs_and_long_double_as_clang_lowers_it() {
    let dir = tempfile::tempdir().unwrap();
    let ir = ir_of(dir.path(), "va_structs_lib");
    // clang lowers va_arg itself; the long double's overflow slot is
    // aligned with llvm.ptrmask.
    assert!(!ir.contains(" va_arg "), "{ir}");
    assert!(ir.contains("@llvm.ptrmask.p0.i64"), "{ir}");
    let ours = our_object(dir.path(), "va_structs_lib");
    let (clean, report) = dwarfdump_verify(&ours);
    assert!(clean, "{report}");
    let main = fixture("abi/va_structs_main.c");
    let expected = "782 1.25\n15\n-2.50\n";
    let gcc_exe = dir.path().join("gcc_va_structs");
    gcc_link(
        &gcc_exe,
        &[gcc_object(dir.path(), "va_structs_lib"), main.clone()],
        &[],
    );
    assert_eq!(run_program(&gcc_exe), expected);
    let exe = dir.path().join("va_structs");
    gcc_link(&exe, &[ours, main], &[]);
    assert_eq!(run_program(&exe), expected);
}

#[test]
fn tail_calls_become_jumps_where_the_abi_allows() {
    let dir = tempfile::tempdir().unwrap();
    let ir = ir_of(dir.path(), "sibling");
    assert!(ir.contains("tail call i64 @step_down"), "{ir}");
    let ours = our_object(dir.path(), "sibling");
    let (clean, report) = dwarfdump_verify(&ours);
    assert!(clean, "{report}");
    // count_down's call (its result reaches `ret` through a phi) is a jump;
    // sum7's passes an argument on the stack and stays a call.
    let disassembly = run(Command::new("objdump")
        .args(["-dr", "--no-show-raw-insn"])
        .arg(&ours));
    let disassembly = String::from_utf8_lossy(&disassembly.stdout);
    let transfers: Vec<String> = disassembly
        .lines()
        .filter(|line| line.contains("R_X86_64_PLT32"))
        .map(|line| line.split_whitespace().last().unwrap().to_string())
        .collect();
    assert_eq!(transfers, ["step_down-0x4", "add7-0x4"], "{disassembly}");
    let call_lines: Vec<&str> = disassembly
        .lines()
        .filter(|line| line.contains("\tcall") || line.contains("\tjmp "))
        .collect();
    assert_eq!(
        call_lines.iter().filter(|l| l.contains("call")).count(),
        1,
        "{disassembly}"
    );
    // 10,000,000 calls deep between our count_down and gcc's step_down: no
    // stack overflow only if both sides jump.
    let exe = dir.path().join("sibling");
    let main = dir.path().join("sibling_main.o");
    let out = run(Command::new("gcc")
        .args(["-O2", "-c", "-o"])
        .arg(&main)
        .arg(fixture("abi/sibling_main.c")));
    assert!(out.status.success(), "{out:?}");
    gcc_link(&exe, &[ours, main], &[]);
    assert_eq!(run_program(&exe), "5000000 42\n");
}
