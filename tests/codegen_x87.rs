//! `long double` (x86_fp80) end to end, with the x87 unit:
//! `fixtures/src/x87/ld_lib.c` compiled at test time by clang-19 (`-O2
//! -g`, and `-O0 -g` through our -O0 and -O2), then by dwarfsmith, linked
//! with the gcc-compiled `ld_main.c` (which calls into it and is called
//! back, long doubles passed on the stack among integers and doubles and
//! returned in st(0) both ways, complex ones in st(0) and st(1)), run,
//! and its output compared byte for
//! byte with the gcc -O0 build of both files: arithmetic, `fmodl`/`sqrtl`/
//! `floorl`/`logl`, every compare over zeros, infinities and NaNs,
//! conversions from and to every integer width (64-bit unsigned included),
//! classification (`llvm.is.fpclass` at -O0),
//! float and double, selects, a loop of phis, memory and printf's `%Lf`.
//! Every object passes `dwarfsmith verify`, `verify --locations` and
//! `llvm-dwarfdump-19 --verify`; `-g` and `-g0` give the same code; gdb
//! prints `long double` variables (held in registers at -O2, in stack
//! slots at -O0) and parameters as it does for the gcc -O0 build; a
//! `long double` returned through an `invoke` (ld_invoke.cpp) and the
//! exception unwinding past it behave as clang's build; the MIR of one
//! function is a snapshot.

use std::path::{Path, PathBuf};

mod support;

use support::{clang_ir, dwarfdump_verify, dwarfsmith, fixture, gcc_link, gdb_batch, run_program};

use dwarfsmith::{compile, compile_to_model, CompileOptions, DebuggerTune, OptLevel};

fn options(opt_level: OptLevel, debug_info: bool) -> CompileOptions {
    CompileOptions {
        opt_level,
        debug_info,
        debugger_tune: DebuggerTune::Gdb,
    }
}

/// Our object of fixtures/src/x87/`source` from clang's IR at `clang_o`
/// through our `ours`, written into `dir` and checked by both verifiers.
fn our_object(dir: &Path, source: &str, clang_o: &str, ours: OptLevel) -> PathBuf {
    let ir = clang_ir(dir, &format!("src/x87/{source}"), &[clang_o, "-g"]);
    let bytes = compile(&ir, source, &options(ours, true)).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.join(format!("{source}{clang_o}-{ours:?}.o"));
    std::fs::write(&object, bytes).unwrap();
    let path = object.to_str().unwrap();
    for args in [vec!["verify", path], vec!["verify", "--locations", path]] {
        let out = dwarfsmith(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (clean, text) = dwarfdump_verify(&object);
    assert!(clean && text.contains("No errors."), "{text}");
    object
}

#[test]
fn long_double_library_runs_exactly_like_its_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let reference = dir.join("reference");
    gcc_link(
        &reference,
        &[fixture("src/x87/ld_lib.c"), fixture("src/x87/ld_main.c")],
        &["-O0", "-lm"],
    );
    let expected = run_program(&reference);
    assert_eq!(
        expected.lines().count(),
        1458,
        "the driver's output changed"
    );
    for line in [
        "0 0: add 0 00000000000000000000",
        "to_u64 18446744073709551615",
        "from_u64 18446744073709551615 403effffffffffffffff",
        "to_u64 1.8e19 18000000000000000000",
        "mixed 24.75 4003c600000000000000",
        "series 2.71828182845904523499 4000adf85458a2bb4a99",
        "call_back 10.75 4002ac00000000000000",
        "printf: 0.333333333333333333342 0.333333 2.5 0xa.aaaaaaaaaaaaaabp-5",
        "class subnormal 64 74",
        "complex re -8.75 c0028c00000000000000",
    ] {
        assert!(expected.contains(line), "{line}");
    }
    for (clang_o, ours) in [
        ("-O2", OptLevel::O2),
        ("-O0", OptLevel::O0),
        ("-O0", OptLevel::O2),
    ] {
        let object = our_object(dir, "ld_lib.c", clang_o, ours);
        let exe = dir.join(format!("ours{clang_o}-{ours:?}"));
        gcc_link(&exe, &[fixture("src/x87/ld_main.c"), object], &["-lm"]);
        let got = run_program(&exe);
        for (n, (e, g)) in expected.lines().zip(got.lines()).enumerate() {
            assert_eq!(g, e, "clang {clang_o}, ours {ours:?}: line {}", n + 1);
        }
        assert_eq!(got, expected, "clang {clang_o}, ours {ours:?}");
    }
}

#[test]
fn debug_info_does_not_change_the_code() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "src/x87/ld_lib.c", &["-O2", "-g"]);
    let with = compile_to_model(&ir, "ld_lib.ll", &options(OptLevel::O2, true)).unwrap();
    let without = compile_to_model(&ir, "ld_lib.ll", &options(OptLevel::O2, false)).unwrap();
    assert_eq!(with.functions.len(), without.functions.len());
    for (a, b) in with.functions.iter().zip(&without.functions) {
        assert_eq!(a.code, b.code, "@{}", a.name);
    }
}

#[test]
fn a_long_double_returned_through_an_invoke_reaches_its_normal_edge() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let expected = "guard\ncaught negative\nguard\n6 -1\n";
    for clang_o in ["-O2", "-O0"] {
        let object = our_object(dir, "ld_invoke.cpp", clang_o, OptLevel::O2);
        let ir = std::fs::read_to_string(dir.join(format!("ld_invoke{clang_o}-g.ll"))).unwrap();
        assert!(ir.contains("invoke noundef x86_fp80"), "clang {clang_o}");
        let exe = dir.join(format!("ld_invoke{clang_o}"));
        let out = support::run(
            std::process::Command::new("g++")
                .arg(&object)
                .arg("-o")
                .arg(&exe),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(run_program(&exe), expected, "clang {clang_o}");
    }
}

/// What gdb prints of ld_gdb.c's long doubles: in main before the first
/// call of report (all four live across calls of twice and report), report's
/// parameters, and main's variables again from report's frame.
fn gdb_values(exe: &Path) -> Vec<String> {
    let variables = ["print ld", "print kept", "print third", "print fourth"];
    let mut commands = vec!["break ld_gdb.c:18", "break ld_gdb.c:9", "run"];
    commands.extend(variables);
    commands.extend(["continue", "print a", "print b", "bt 1", "up"]);
    commands.extend(variables);
    let text = gdb_batch(exe, &commands);
    text.lines()
        .filter(|l| l.starts_with('$') || l.starts_with("#0"))
        .map(|l| l.split(" at ").next().unwrap_or(l).to_string())
        .collect()
}

#[test]
fn gdb_prints_long_double_variables_as_for_the_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let reference = dir.join("reference");
    gcc_link(&reference, &[fixture("src/x87/ld_gdb.c")], &["-O0", "-g"]);
    let expected = gdb_values(&reference);
    let main = [
        "0.333333333333333333342",
        "1",
        "1.66666666666666666663",
        "-0.833333333333333333315",
    ];
    let mut want: Vec<String> = Vec::new();
    for (n, value) in main.iter().enumerate() {
        want.push(format!("${} = {value}", n + 1));
    }
    want.push("$5 = 0.333333333333333333342".into());
    want.push("$6 = 1".into());
    want.push("#0  report (a=0.333333333333333333342, b=1)".into());
    for (n, value) in main.iter().enumerate() {
        want.push(format!("${} = {value}", n + 7));
    }
    assert_eq!(expected, want);
    // -O2: in registers and, for `third`, spill slots (the leaves of each
    // value); -O0: in their allocas' stack slots.
    for (clang_o, ours) in [("-O2", OptLevel::O2), ("-O0", OptLevel::O0)] {
        let object = our_object(dir, "ld_gdb.c", clang_o, ours);
        let exe = dir.join(format!("gdb{clang_o}"));
        gcc_link(&exe, &[object], &[]);
        assert_eq!(gdb_values(&exe), expected, "clang {clang_o}");
        if ours == OptLevel::O2 {
            let address = gdb_batch(&exe, &["break ld_gdb.c:18", "run", "info address third"]);
            assert!(address.contains("DW_OP_fbreg"), "{address}");
        }
    }
}

/// The MIR isel makes of hand-written IR (no debug records).
fn selected(ir: &str, function: &str) -> String {
    use dwarfsmith::codegen::isel::{select_function, IselOptions};
    let module = dwarfsmith::ir::parse::parse_module(ir, "x87.ll").unwrap();
    let id = module.function_by_name(function).unwrap();
    let f = select_function(&module, id, &IselOptions { debug_info: false }).unwrap();
    f.mir.to_string()
}

#[test]
fn x87_sequences_keep_the_stack_empty_between_instructions() {
    let ir = "define x86_fp80 @f(x86_fp80 %a, ptr %p, i64 %n) {\n\
              \x20 %b = load x86_fp80, ptr %p, align 16\n\
              \x20 %s = fadd x86_fp80 %a, %b\n\
              \x20 %lt = fcmp olt x86_fp80 %s, 0xK3FFF8000000000000000\n\
              \x20 %c = uitofp i64 %n to x86_fp80\n\
              \x20 %r = select i1 %lt, x86_fp80 %c, x86_fp80 %s\n\
              \x20 %i = fptosi x86_fp80 %r to i32\n\
              \x20 store i32 %i, ptr %p, align 4\n\
              \x20 ret x86_fp80 %r\n\
              }\n";
    expect_test::expect![[r#"
        name: f
          %stack.0: size 48, align 16, alloca
        bb.0:
          %10 = LOAD64 [%incoming-args]
          %11 = MOVZX32_16 [%incoming-args + 8]
          %12 = COPY $rdi
          %13 = COPY $rsi
          %2 = LOAD64 [%12]
          %3 = MOVZX32_16 [%12 + 8]
          STORE64 [%stack.0], %10
          STORE16 [%stack.0 + 8], %11
          STORE64 [%stack.0 + 16], %2
          STORE16 [%stack.0 + 24], %3
          X87 0->0 FLD80 [%stack.0]; FLD80 [%stack.0 + 16]; FADDP; FSTP80 [%stack.0]
          %4 = LOAD64 [%stack.0]
          %5 = MOVZX32_16 [%stack.0 + 8]
          STORE64 [%stack.0], %4
          STORE16 [%stack.0 + 8], %5
          %14 = MOV64 -9223372036854775808
          %15 = MOV32 16383
          STORE64 [%stack.0 + 16], %14
          STORE16 [%stack.0 + 24], %15
          %0 = MOV32 0
          X87 0->0 FLD80 [%stack.0]; FLD80 [%stack.0 + 16]; FUCOMIP; FSTP st0
          %0 = SETA
          STORE64 [%stack.0 + 32], %13
          %16 = MOV32 0
          %17 = MOV32 1602224128
          TEST64 %13, %13
          %16 = CMOVS32 %16, %17
          STORE32 [%stack.0 + 44], %16
          X87 0->0 FILD64 [%stack.0 + 32]; FLD32 [%stack.0 + 44]; FADDP; FSTP80 [%stack.0]
          %6 = LOAD64 [%stack.0]
          %7 = MOVZX32_16 [%stack.0 + 8]
          %18 = COPY %4
          %19 = COPY %5
          TEST8 %0, 1
          %18 = CMOVNE64 %18, %6
          %19 = CMOVNE32 %19, %7
          %8 = COPY %18
          %9 = COPY %19
          STORE64 [%stack.0], %8
          STORE16 [%stack.0 + 8], %9
          X87 0->0 FLD80 [%stack.0]; FISTP32_TRUNC [%stack.0 + 32] (control [%stack.0 + 40])
          %1 = LOAD32 [%stack.0 + 32]
          STORE32 [%12], %1
          STORE64 [%stack.0], %8
          STORE16 [%stack.0 + 8], %9
          X87 0->1 FLD80 [%stack.0]
          RET
    "#]]
    .assert_eq(&selected(ir, "f"));
}

#[test]
fn an_aggregate_holding_x86_fp80_is_refused_by_name() {
    let ir = "define i32 @g({ x86_fp80, i32 } %s) {\n\
              \x20 %v = extractvalue { x86_fp80, i32 } %s, 1\n\
              \x20 ret i32 %v\n\
              }\n";
    let error = compile(ir, "ld.ll", &options(OptLevel::O2, false)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "ld.ll:1:1: error: function @g: unsupported parameter of type { x86_fp80, i32 } \
         holding x86_fp80"
    );
}

#[test]
fn an_i80_bitcast_moves_the_two_leaves() {
    let ir = "define i80 @bits(x86_fp80 %x) {\n\
              \x20 %b = bitcast x86_fp80 %x to i80\n\
              \x20 ret i80 %b\n\
              }\n";
    expect_test::expect![[r#"
        name: bits
        bb.0:
          %2 = LOAD64 [%incoming-args]
          %3 = MOVZX32_16 [%incoming-args + 8]
          %0 = COPY %2
          %1 = COPY %3
          $rax = COPY %0
          $rdx = COPY %1
          RET $rax, $rdx
    "#]]
    .assert_eq(&selected(ir, "bits"));
}

#[test]
fn an_fpclass_mask_telling_nans_apart_is_refused_by_name() {
    let ir = "declare i1 @llvm.is.fpclass.f80(x86_fp80, i32 immarg)\n\
              define i1 @snan(x86_fp80 %x) {\n\
              \x20 %c = call i1 @llvm.is.fpclass.f80(x86_fp80 %x, i32 1)\n\
              \x20 ret i1 %c\n\
              }\n";
    let error = compile(ir, "ld.ll", &options(OptLevel::O2, false)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "ld.ll:3:3: error: function @snan: unsupported llvm.is.fpclass mask 1 on x86_fp80 \
         (signaling and quiet NaNs apart)"
    );
}
