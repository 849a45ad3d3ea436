//! A symbol's address materialised once per block (`codegen/symbol_cse.rs`).
//!
//! `fixtures/layout/symbol_tables.ll`: `braid` reads three rows of a local
//! table with one `lea` (the rows are displacements 0x10 and 0x20 from
//! it, as llc addresses zlib's crc_braid_table); `pick` reads a preemptible
//! global at two indices through one GOT load; `keep` passes the table's
//! address to a call, and that copy stays. The linked program prints what
//! the table reads give, against gcc-compiled callers and data.

mod support;

use expect_test::expect;
use support::{compile_ll, fixture, function_listing, gcc_link_and_run};

#[test]
fn one_address_register_per_symbol() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile_ll(
        dir.path(),
        &fixture("layout/symbol_tables.ll"),
        "symbol_tables",
        &[],
    );
    expect![[r#"
        0:	lea    rax,[rip+0xfffffffffffffff9]        # 0 <braid>
        7:	mov    ecx,DWORD PTR [rax+rdi*4]
        a:	mov    r8d,DWORD PTR [rax+rsi*4+0x10]
        f:	mov    r9d,DWORD PTR [rax+rdx*4+0x20]
        14:	xor    ecx,r8d
        17:	xor    ecx,r9d
        1a:	mov    rax,rcx
        1d:	ret
    "#]]
    .assert_eq(&function_listing(&object, "braid"));
    expect![[r#"
        20:	mov    rax,QWORD PTR [rip+0xfffffffffffffff9]        # 20 <pick>
        27:	mov    ecx,DWORD PTR [rax+rdi*4]
        2a:	mov    edx,DWORD PTR [rax+rsi*4]
        2d:	add    ecx,edx
        2f:	mov    rax,rcx
        32:	ret
    "#]]
    .assert_eq(&function_listing(&object, "pick"));
    expect![[r#"
        40:	push   rbx
        41:	lea    rax,[rip+0xfffffffffffffff8]        # 40 <keep>
        48:	mov    ebx,DWORD PTR [rax+rdi*4]
        4b:	lea    rdi,[rip+0xffffffffffffffee]        # 40 <keep>
        52:	call   40 <keep>
        57:	mov    rax,rbx
        5a:	pop    rbx
        5b:	ret
    "#]]
    .assert_eq(&function_listing(&object, "keep"));

    let driver = dir.path().join("driver.c");
    std::fs::write(
        &driver,
        r#"
#include <stdio.h>
int braid(long a, long b, long c);
int pick(long i, long j);
int keep(long i);
int shared[8] = {5, 6, 7, 8, 9, 10, 11, 12};
static const int *seen;
void see(const int *rows) { seen = rows; }
int main(void) {
    printf("%d %d %d", braid(0, 1, 2), braid(3, 3, 3), pick(1, 7));
    int kept = keep(2);
    printf(" %d %d\n", kept, seen[9]);
    return 0;
}
"#,
    )
    .unwrap();
    let output = gcc_link_and_run(dir.path(), "symbol_tables", &[object, driver], &[]);
    assert_eq!(output, "313 444 18 30 200\n");
}
