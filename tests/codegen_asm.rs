//! Inline asm end to end: `fixtures/src/asm/asm_lib.c` compiled at test
//! time by `clang-19 -O2 -g -S -emit-llvm`, then by dwarfsmith, linked with
//! the gcc-compiled `asm_main.c` and run; the output must equal the gcc -O0
//! build of both files. It covers the empty-template compiler barrier with
//! `r` and `*m` operands and a memory clobber, the `+r` escape idiom, rdtsc
//! (two outputs pinned to eax/edx), cpuid (four pinned outputs, inputs in
//! eax and ecx, rbx saved because cpuid writes it), `bswap $0`,
//! `lock; xaddl`, `pause`, an immediate (`rolq $$4`), an early-clobber
//! output with inputs pinned to esi/edi and a named clobber. A template
//! outside the table is an error quoting it with file:line:col.

use std::path::{Path, PathBuf};
use std::process::Command;

use dwarfsmith::{compile, CompileOptions, DebuggerTune, OptLevel};

fn fixture(relative: &str) -> String {
    format!("{}/fixtures/{relative}", env!("CARGO_MANIFEST_DIR"))
}

fn options() -> CompileOptions {
    CompileOptions {
        opt_level: OptLevel::O2,
        debug_info: true,
        debugger_tune: DebuggerTune::Gdb,
    }
}

fn clang_ir(dir: &Path, source: &str) -> String {
    let ll = dir.join("asm_lib.ll");
    let out = Command::new("clang-19")
        .args(["-O2", "-g", "-S", "-emit-llvm", "-o"])
        .arg(&ll)
        .arg(source)
        .output()
        .expect("clang-19 runs");
    assert!(
        out.status.success(),
        "clang-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(ll).unwrap()
}

fn link_and_run(exe: &Path, inputs: &[PathBuf], extra: &[&str]) -> String {
    let out = Command::new("gcc")
        .args(extra)
        .args(inputs)
        .arg("-o")
        .arg(exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "gcc: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn inline_asm_runs_exactly_like_the_gcc_build() {
    let dir = tempfile::tempdir().unwrap();
    let ir = clang_ir(dir.path(), &fixture("src/asm/asm_lib.c"));
    for text in [
        r#"asm sideeffect "", "r,*m,~{memory}"#,
        r#"asm sideeffect "rdtsc", "={ax},={dx}"#,
        r#"asm sideeffect "cpuid", "={ax},={bx},={cx},={dx},{ax},{cx}"#,
        r#"asm "bswap $0", "=r,0"#,
        r#"asm sideeffect "lock; xaddl $0, $1", "=r,=*m,0,*m,~{memory},~{cc}"#,
    ] {
        assert!(ir.contains(text), "clang no longer emits {text}");
    }
    let bytes = compile(&ir, "asm_lib.ll", &options()).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.path().join("asm_lib.o");
    std::fs::write(&object, bytes).unwrap();
    let main = PathBuf::from(fixture("src/asm/asm_main.c"));
    let got = link_and_run(
        &dir.path().join("ours"),
        &[main.clone(), object.clone()],
        &[],
    );
    let expected = link_and_run(
        &dir.path().join("reference"),
        &[PathBuf::from(fixture("src/asm/asm_lib.c")), main],
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
    ] {
        assert!(got.lines().any(|l| l == line), "missing {line:?} in\n{got}");
    }
    assert!(got.contains("cpuid same 1 vendor "));
    let verify = Command::new("llvm-dwarfdump-19")
        .arg("--verify")
        .arg(&object)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&verify.stdout).contains("No errors."));
}

#[test]
fn a_template_outside_the_table_is_an_error_quoting_it() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("bad.c");
    std::fs::write(
        &source,
        "int f(int x) { asm(\"popcntl %1, %0\" : \"=r\"(x) : \"r\"(x)); return x; }\n\
         int g(int x) { asm(\"\" : \"=x\"(x)); return x; }\n",
    )
    .unwrap();
    let ir = clang_ir(dir.path(), source.to_str().unwrap());
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
}
