//! What clang -O2 leaves in C code that uses `<x86intrin.h>` and
//! `__builtin_assume_aligned`: the x86 intrinsics with no vector operand,
//! `llvm.thread.pointer`, and operand bundles on `llvm.assume`.
//!
//! - `fixtures/intrinsics/x86_intrinsics.ll`: exact instructions (`pause`, `lfence`,
//!   `rdtsc`, `clflush`, `mfence`, `sfence`, `mov rax, fs:[0]`), and linked with a C
//!   driver the counter advances and the thread pointer is the one gcc's
//!   `mov %fs:0` reads.
//! - `llvm.assume` with `"align"`/`"nonnull"` bundles compiles (the hints
//!   are dropped, as LLVM may drop any assumption); a bundle on any other
//!   call is an error naming it.
//! - `llvm.experimental.noalias.scope.decl` (clang -O2 puts one where a
//!   `restrict` parameter was inlined) is read and dropped: nothing here
//!   reads alias scopes.

mod support;

use support::{compile_ir, compile_ll, fixture, gcc_link, run, run_program};

const DRIVER: &str = r#"
#include <stdio.h>
long fenced_ticks(long *p);
void *thread_pointer(void);
int main(void) {
    long at = 0, d = fenced_ticks(&at);
    void *mine;
    __asm__("mov %%fs:0, %0" : "=r"(mine));
    printf("ticks advance: %d, counter stored: %d, thread pointer: %d\n",
           d > 0, at != 0, thread_pointer() == mine);
    return 0;
}
"#;

#[test]
fn x86_intrinsics_are_their_instructions_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile_ll(
        dir.path(),
        &fixture("intrinsics/x86_intrinsics.ll"),
        "x86_intrinsics",
        &[],
    );
    let listing = run(std::process::Command::new("objdump")
        .args(["-d", "--no-show-raw-insn", "-M", "intel"])
        .arg(&object));
    let text = String::from_utf8_lossy(&listing.stdout);
    let mnemonics: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split('\t').nth(1))
        .map(|i| i.split_whitespace().next().unwrap_or(""))
        .filter(|m| ["pause", "lfence", "rdtsc", "clflush", "mfence", "sfence"].contains(m))
        .collect();
    assert_eq!(
        mnemonics,
        ["pause", "lfence", "rdtsc", "clflush", "mfence", "sfence", "rdtsc"],
        "{text}"
    );
    assert!(text.contains("mov    rax,QWORD PTR fs:0x0"), "{text}");
    let driver = dir.path().join("driver.c");
    std::fs::write(&driver, DRIVER).unwrap();
    let exe = dir.path().join("intrinsics");
    gcc_link(&exe, &[driver, object], &[]);
    assert_eq!(
        run_program(&exe),
        "ticks advance: 1, counter stored: 1, thread pointer: 1\n"
    );
}

#[test]
fn assume_bundles_compile_and_other_bundles_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let assume = "define i32 @f(ptr %p) {\n  call void @llvm.assume(i1 true) [ \"align\"(ptr %p, i64 16), \"nonnull\"(ptr %p) ]\n  %v = load i32, ptr %p, align 16\n  ret i32 %v\n}\ndeclare void @llvm.assume(i1)\n";
    compile_ir(dir.path(), "assume", assume, &[]);
    let other = "declare void @g()\ndefine void @f(ptr %p) {\n  call void @g() [ \"deopt\"(ptr %p) ]\n  ret void\n}\n";
    assert_eq!(
        support::refusal(dir.path(), other),
        "case.ll:3:18: error: operand bundle \"deopt\" on a call is not supported"
    );
}

#[test]
fn noalias_scope_declarations_mean_nothing_and_go() {
    let dir = tempfile::tempdir().unwrap();
    let text = "define i32 @f(ptr noalias %p, ptr %q) {\n  tail call void @llvm.experimental.noalias.scope.decl(metadata !0)\n  %v = load i32, ptr %p, align 4, !alias.scope !0\n  store i32 1, ptr %q, align 4, !noalias !0\n  ret i32 %v\n}\ndeclare void @llvm.experimental.noalias.scope.decl(metadata)\n!0 = !{!1}\n!1 = distinct !{!1, !2, !\"f: %p\"}\n!2 = distinct !{!2, !\"f\"}\n";
    compile_ir(dir.path(), "noalias", text, &[]);
    let ll = dir.path().join("noalias.ll");
    let printed = dir.path().join("printed.ll");
    let out = support::dwarfsmith(&["opt", ll.to_str().unwrap(), "-o", printed.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = std::fs::read_to_string(printed).unwrap();
    let body = &printed[printed.find("define").unwrap()..];
    let body = &body[..body.find("\n}\n").unwrap()];
    expect_test::expect![[r#"
        define i32 @f(ptr noalias %p, ptr %q) {
          %v = load i32, ptr %p, align 4, !alias.scope !0
          store i32 1, ptr %q, align 4, !noalias !0
          ret i32 %v"#]]
    .assert_eq(body);
}
