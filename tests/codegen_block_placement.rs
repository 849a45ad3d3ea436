//! Block placement (`codegen/block_placement.rs`): the likely successor of
//! each block follows it, and a rarely taken block moves out of the loop.
//!
//! `fixtures/layout/placement.ll` has two loops whose IR order puts a rare
//! block between the loop's test and its latch: one marked by `!prof`
//! branch weights (1 against 2000), one a path that traps. In both, the
//! loop body runs straight through with the back edge its only taken
//! branch, the rare block sits after the return (`jmp` back, or `ud2`),
//! and the linked program computes the sums.

mod support;

use expect_test::expect;
use support::{compile_ll, fixture, function_listing as listing, gcc_link_and_run};

#[test]
fn rare_blocks_leave_the_loop() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile_ll(
        dir.path(),
        &fixture("layout/placement.ll"),
        "placement",
        &[],
    );
    expect![[r#"
        0:	push   rbx
        1:	push   r12
        3:	push   r13
        5:	push   r14
        7:	push   r15
        9:	mov    rbx,rdi
        c:	mov    r12,rsi
        f:	mov    r13d,0x0
        15:	mov    r14d,0x0
        1b:	mov    r15d,DWORD PTR [rbx+r13*4]
        1f:	cmp    r15d,0x3e8
        26:	jg     41 <sum_noting_big+0x41>
        28:	add    r14d,r15d
        2b:	add    r13,0x1
        2f:	cmp    r13,r12
        32:	jne    1b <sum_noting_big+0x1b>
        34:	mov    rax,r14
        37:	pop    r15
        39:	pop    r14
        3b:	pop    r13
        3d:	pop    r12
        3f:	pop    rbx
        40:	ret
        41:	mov    rdi,r15
        44:	call   0 <sum_noting_big>
        49:	jmp    28 <sum_noting_big+0x28>
    "#]]
    .assert_eq(&listing(&object, "sum_noting_big"));
    expect![[r#"
          50:	sub    rsp,0x8
          54:	mov    eax,0x0
          59:	mov    ecx,0x0
          5e:	mov    edx,DWORD PTR [rdi+rax*4]
          61:	test   edx,edx
          63:	jl     78 <sum_checked+0x28>
          65:	add    ecx,edx
          67:	add    rax,0x1
          6b:	cmp    rax,rsi
          6e:	jne    5e <sum_checked+0xe>
          70:	mov    rax,rcx
          73:	add    rsp,0x8
          77:	ret
          78:	call   50 <sum_checked>
          7d:	ud2
    "#]]
    .assert_eq(&listing(&object, "sum_checked"));

    let driver = dir.path().join("driver.c");
    std::fs::write(
        &driver,
        r#"
#include <stdio.h>
int sum_noting_big(const int *p, long n);
int sum_checked(const int *p, long n);
static int bigs;
void note_big(int v) { bigs += v > 1000; }
int main(void) {
    int values[] = {5, 2000, 7, 1001, 1000, 3};
    int small[] = {1, 2, 3, 4};
    int total = sum_noting_big(values, 6);
    printf("%d %d %d\n", total, bigs, sum_checked(small, 4));
    return 0;
}
"#,
    )
    .unwrap();
    let output = gcc_link_and_run(dir.path(), "placement", &[object, driver], &[]);
    assert_eq!(output, "4016 2 10\n");
}
