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

/// `.p2align` and `.balign` (zstd aligns its hot loops so) pad with `nop`s:
/// the instruction after each run of padding starts at a multiple of 16,
/// `.balign 64` puts the template's `pause` at a multiple of 64 (the
/// code section is 64-byte aligned for it), and the program computes what
/// the gcc build does. A directive with a fill or limit, or any other, is
/// an error naming it.
#[test]
fn alignment_directives_pad_with_nops_to_their_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("aligned.c");
    std::fs::write(
        &source,
        "int spin(const int *p, int n) {\n\
         \x20   int s = 0;\n\
         \x20   __asm__(\".p2align 5\");\n\
         \x20   for (int i = 0; i < n; i++) { __asm__(\".p2align 4\"); s += p[i] * 3; }\n\
         \x20   __asm__(\".balign 64\\n\\tpause\");\n\
         \x20   return s;\n\
         }\n",
    )
    .unwrap();
    let ir = clang_ir(dir.path(), source.to_str().unwrap(), &["-O2", "-g"]);
    let bytes = compile(&ir, "aligned.ll", &options()).unwrap_or_else(|e| panic!("{e}"));
    let object = dir.path().join("aligned.o");
    std::fs::write(&object, bytes).unwrap();
    // objdump's listing, `nop`s included (the padding after `ret` too).
    let out = support::run(
        std::process::Command::new("objdump")
            .args([
                "-d",
                "--no-show-raw-insn",
                "-M",
                "intel",
                "--disassemble=spin",
            ])
            .arg(&object),
    );
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines = listing.lines().filter_map(|l| {
        let (address, text) = l.trim().split_once(":\t")?;
        Some((u64::from_str_radix(address, 16).ok()?, text.to_string()))
    });
    let mut padded_points = Vec::new();
    let mut in_padding = false;
    let mut pause = None;
    for (address, text) in lines {
        if text.starts_with("ret") {
            break;
        }
        let is_nop = text.starts_with("nop");
        if in_padding && !is_nop {
            padded_points.push(address);
        }
        if text == "pause" {
            pause = Some(address);
        }
        in_padding = is_nop;
    }
    assert!(!padded_points.is_empty(), "{listing}");
    assert!(
        padded_points.iter().all(|a| a % 16 == 0),
        "{padded_points:x?}\n{listing}"
    );
    assert_eq!(pause.map(|a| a % 64), Some(0), "{listing}");
    let section = support::readelf("-S", &object);
    let text = section.lines().find(|l| l.contains(" .text ")).unwrap();
    assert!(text.trim_end().ends_with(" 64"), "{text}");

    let main = dir.path().join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\nint spin(const int *, int);\n\
         int main(void) { int v[5] = {1, 2, 3, 4, 5}; printf(\"%d\\n\", spin(v, 5)); return 0; }\n",
    )
    .unwrap();
    assert_eq!(
        link_and_run(&dir.path().join("ours"), &[main, object], &[]),
        "45\n"
    );

    for (directive, named) in [
        (".p2align 5, 0x90", "directive '.p2align 5, 0x90'"),
        (".balign 24", "directive '.balign 24'"),
        (".byte 0x90", "directive '.byte 0x90'"),
    ] {
        let bad = ir.replace(".p2align 5", directive);
        let err = compile(&bad, "aligned.ll", &options())
            .unwrap_err()
            .to_string();
        assert!(err.contains(named), "{err}");
        assert!(err.starts_with("aligned.ll:"), "{err}");
    }
}
