//! Inline asm end to end: `fixtures/src/asm/asm_lib.c` compiled at test
//! time by `clang-19 -O2 -g -S -emit-llvm`, then by dwarfsmith, linked with
//! the gcc-compiled `asm_main.c` and run; the output must equal the gcc -O0
//! build of both files. It covers the empty-template compiler barrier with
//! `r` and `*m` operands and a memory clobber, the `+r` escape idiom, rdtsc
//! (two outputs pinned to eax/edx), cpuid (four pinned outputs, inputs in
//! eax and ecx, rbx saved because cpuid writes it), `bswap $0`,
//! `lock; xaddl`, `pause`, an immediate (`rolq $$4`), an early-clobber
//! output with inputs pinned to esi/edi and a named clobber, and `x`
//! operands (a double and a float in xmm registers across empty templates),
//! and zstd's `cmp; cmova` select (a cmovCC has only the register-destination
//! form).
//! A template outside the table, or one naming an xmm operand, is an error
//! quoting it with file:line:col.

mod support;

use std::path::{Path, PathBuf};

use dwarfsmith::{compile, CompileOptions, DebuggerTune, OptLevel};
use support::{clang_ir, dwarfdump_verify, fixture, gcc_link, run_program};

fn options() -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info: true,
        debugger_tune: DebuggerTune::Gdb,
    }
}

fn link_and_run(exe: &Path, inputs: &[PathBuf], flags: &[&str]) -> String {
    gcc_link(exe, inputs, flags);
    run_program(exe)
}

#[test]
fn inline_asm_runs_exactly_like_the_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), "src/asm/asm_lib.c", &["-O2", "-g"]);
    for text in [
        r#"asm sideeffect "", "r,*m,~{memory}"#,
        r#"asm sideeffect "rdtsc", "={ax},={dx}"#,
        r#"asm sideeffect "cpuid", "={ax},={bx},={cx},={dx},{ax},{cx}"#,
        r#"asm "bswap $0", "=r,0"#,
        r#"asm sideeffect "lock; xaddl $0, $1", "=r,=*m,0,*m,~{memory},~{cc}"#,
        r#"asm sideeffect "", "=x,0"#,
        r#"asm sideeffect "", "x,~{memory}"#,
    ] {
        assert!(ir.contains(text), "clang no longer emits {text}");
    }
    let bytes = compile(&ir, "asm_lib.ll", &options()).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.path().join("asm_lib.o");
    std::fs::write(&object, bytes).unwrap();
    let main = fixture("src/asm/asm_main.c");
    let got = link_and_run(
        &dir.path().join("ours"),
        &[main.clone(), object.clone()],
        &[],
    );
    let expected = link_and_run(
        &dir.path().join("reference"),
        &[fixture("src/asm/asm_lib.c"), main],
        &["-O0"],
    );
    assert_eq!(got, expected);
    for line in [
        "barrier 5 escape 41",
        "rdtsc advances 1 nonzero 1",
        "cpuid7 same 1",
        "bswap 44332211",
        "xadd old 10 new 15",
        "sum 45 rot 18 pinned 7",
        "keep_fp 12.125",
        "cmova 7 9",
    ] {
        assert!(got.lines().any(|l| l == line), "missing {line:?} in\n{got}");
    }
    assert!(got.contains("cpuid same 1 vendor "));
    let (clean, report) = dwarfdump_verify(&object);
    assert!(clean, "{report}");
}

#[test]
fn a_template_outside_the_table_is_an_error_quoting_it() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("bad.c");
    std::fs::write(
        &source,
        "int f(int x) { asm(\"popcntl %1, %0\" : \"=r\"(x) : \"r\"(x)); return x; }\n\
         int g(int x) { asm(\"\" : \"=x\"(x)); return x; }\n\
         double h(double x, double y) { asm(\"addsd %1, %0\" : \"+x\"(x) : \"x\"(y)); return x; }\n",
    )
    .unwrap();
    // An absolute path: `fixture` joins it onto nothing.
    let ir = clang_ir(dir.path(), source.to_str().unwrap(), &["-O2", "-g"]);
    let err = compile(&ir, "bad.ll", &options()).unwrap_err().to_string();
    assert!(
        err.contains(r#"unsupported inline asm "popcntl $1, $0" ("=r,r,~{dirflag},~{fpsr},~{flags}"): instruction 'popcntl $1, $0'"#),
        "{err}"
    );
    assert!(err.starts_with("bad.ll:"), "{err}");
    let g_only = ir.replace("popcntl $1, $0", "");
    let err = compile(&g_only, "bad.ll", &options())
        .unwrap_err()
        .to_string();
    assert!(err.contains("output constraint 'x'"), "{err}");
    // An xmm operand is honoured for empty templates only: naming it in an
    // instruction is an error, never a general-purpose register.
    let h_only = g_only.replace(r#""=x,~{dirflag}"#, r#""=r,~{dirflag}"#);
    let err = compile(&h_only, "bad.ll", &options())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(r#"unsupported inline asm "addsd $1, $0" ("=x,x,0,~{dirflag},~{fpsr},~{flags}"): xmm operand $1 in an instruction"#),
        "{err}"
    );
}
