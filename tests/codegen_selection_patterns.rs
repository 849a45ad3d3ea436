//! Selection patterns of the hot loops of bzip2 and zlib:
//! `icmp eq/ne (and a, (shl 1, n)), 0` as `bt a, n` (bzip2's `ISSET_BH`),
//! with the count's mask dropped, at 32 and 64 bits, in branches and
//! selects, the `shl` on either side of the `and`; `and i64 (lshr x, c),
//! 2^(32-c) - 1` as a 32-bit `shr`; an `add`/`sub`/logic result that the
//! branch tests for zero setting the flags itself, moved to the compare
//! (zlib's `--chain_length != 0` after another test); `load p; op; store
//! p` as one `op [p], src` (mainGtU's `(*budget)--`) at every width, the
//! load on either side of a commutative operation; a pointer read at a
//! loop's exit folded into the loop's load and computed on the exit edge
//! (zlib's `longest_match`); `or disjoint` as an add, and a shift by 1-3
//! added as a scaled `lea` (bzip2's `zvec = (zvec << 1) | zj`). The cases that must
//! not change are here too: an ordered compare of the same `and` (a
//! `test`), a `shl` with a second use, a mask of another width, a result
//! used before the branch or on an edge an earlier jump of the chain
//! takes, `x - *p`, a store between, a loaded value used twice, a
//! volatile load, another pointer. Compiled by dwarfsmith and by llc-19 and linked with one C
//! driver, both programs print the same thing; MIR snapshots show the
//! selected forms.

mod support;

use dwarfsmith::OptLevel;

const MODULE: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @isset(ptr %bits, i64 %i) {
entry:
  %t = trunc i64 %i to i32
  %w = lshr i64 %i, 5
  %wm = and i64 %w, 134217727
  %p = getelementptr inbounds i32, ptr %bits, i64 %wm
  %word = load i32, ptr %p, align 4
  %n = and i32 %t, 31
  %bit = shl nuw i32 1, %n
  %set = and i32 %word, %bit
  %z = icmp eq i32 %set, 0
  %r = select i1 %z, i32 10, i32 20
  ret i32 %r
}

define i32 @branch64(i64 %a, i64 %n) {
entry:
  %m = and i64 %n, 63
  %bit = shl i64 1, %m
  %set = and i64 %bit, %a
  %nz = icmp ne i64 %set, 0
  br i1 %nz, label %yes, label %no
yes:
  ret i32 1
no:
  ret i32 0
}

define i32 @ordered(i32 %a, i32 %n) {
  %bit = shl i32 1, %n
  %set = and i32 %a, %bit
  %neg = icmp slt i32 %set, 0
  %r = zext i1 %neg to i32
  ret i32 %r
}

define i32 @shl_twice(i32 %a, i32 %n) {
  %bit = shl i32 1, %n
  %set = and i32 %a, %bit
  %z = icmp eq i32 %set, 0
  %r = select i1 %z, i32 0, i32 %bit
  ret i32 %r
}

define i64 @narrowed(i64 %x) {
  %s1 = lshr i64 %x, 1
  %m1 = and i64 %s1, 2147483647
  %s31 = lshr i64 %x, 31
  %m31 = and i64 1, %s31
  %s7 = lshr i64 %x, 7
  %m7 = and i64 %s7, 65535
  %a = add i64 %m1, %m31
  %r = add i64 %a, %m7
  ret i64 %r
}

define i32 @walk(ptr %prev, i32 %cur, i32 %limit, i32 %chain) {
entry:
  br label %loop
loop:
  %c = phi i32 [ %cur, %entry ], [ %next, %back ]
  %n = phi i32 [ %chain, %entry ], [ %dec, %back ]
  %idx = zext i32 %c to i64
  %p = getelementptr inbounds i16, ptr %prev, i64 %idx
  %v = load i16, ptr %p, align 2
  %next = zext i16 %v to i32
  %stop = icmp uge i32 %limit, %next
  %dec = add i32 %n, -1
  %zero = icmp eq i32 %dec, 0
  %done = select i1 %stop, i1 true, i1 %zero
  br i1 %done, label %exit, label %back
back:
  br label %loop
exit:
  %steps = sub i32 %chain, %n
  %r = mul i32 %steps, 1000
  %r2 = add i32 %r, %next
  ret i32 %r2
}

define i64 @countdown(i64 %n, i64 %k) {
entry:
  br label %loop
loop:
  %i = phi i64 [ %n, %entry ], [ %d, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s2, %loop ]
  %s2 = add i64 %s, %i
  %d = sub i64 %i, %k
  %more = icmp ne i64 %d, 0
  br i1 %more, label %loop, label %exit
exit:
  %r = add i64 %s2, %d
  ret i64 %r
}

define i32 @used_before(i32 %a, i32 %b) {
entry:
  %x = xor i32 %a, %b
  %y = mul i32 %x, 3
  %z = icmp eq i32 %x, 0
  br i1 %z, label %same, label %differ
same:
  ret i32 -1
differ:
  ret i32 %y
}

define i32 @early_edge(i32 %a, i32 %b) {
entry:
  %x = add i32 %a, 1
  %neg = icmp slt i32 %b, 0
  %z = icmp eq i32 %x, 0
  %either = or i1 %neg, %z
  br i1 %either, label %out, label %in
in:
  ret i32 7
out:
  %r = phi i32 [ %x, %entry ]
  ret i32 %r
}

define i32 @budget(ptr %b, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ %n, %entry ], [ %next, %loop ]
  %v = load i32, ptr %b, align 4
  %d = add nsw i32 %v, -1
  store i32 %d, ptr %b, align 4
  %next = add i32 %i, -1
  %more = icmp sgt i32 %i, 1
  br i1 %more, label %loop, label %exit
exit:
  ret i32 %next
}

define void @updates(ptr %p, i8 %a, i16 %b, i64 %c, i64 %k) {
  %p1 = getelementptr inbounds i8, ptr %p, i64 1
  %v8 = load i8, ptr %p1, align 1
  %s8 = add i8 %a, %v8
  store i8 %s8, ptr %p1, align 1
  %p2 = getelementptr inbounds i8, ptr %p, i64 2
  %v16 = load i16, ptr %p2, align 2
  %s16 = sub i16 %v16, %b
  store i16 %s16, ptr %p2, align 2
  %p4 = getelementptr inbounds i8, ptr %p, i64 4
  %v32 = load i32, ptr %p4, align 4
  %s32 = or i32 %v32, -65536
  store i32 %s32, ptr %p4, align 4
  %p8 = getelementptr inbounds i64, ptr %p, i64 %k
  %v64 = load i64, ptr %p8, align 8
  %s64 = xor i64 %c, %v64
  store i64 %s64, ptr %p8, align 8
  %v8b = load i8, ptr %p, align 1
  %s8b = and i8 %v8b, -3
  store i8 %s8b, ptr %p, align 1
  ret void
}

define i32 @kept(ptr %p, ptr %q, i32 %x) {
  %v = load i32, ptr %p, align 4
  %d = sub i32 %x, %v
  store i32 %d, ptr %p, align 4
  %w = load i32, ptr %p, align 4
  store i32 5, ptr %q, align 4
  %e = add i32 %w, 1
  store i32 %e, ptr %p, align 4
  %u = load i32, ptr %q, align 4
  %f = add i32 %u, 2
  store i32 %f, ptr %q, align 4
  %g = load volatile i32, ptr %q, align 4
  %h = add i32 %g, 3
  store i32 %h, ptr %q, align 4
  %o = load i32, ptr %q, align 4
  %m = add i32 %o, 4
  store i32 %m, ptr %p, align 4
  %r = add i32 %u, %m
  ret i32 %r
}

define i64 @scan(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %next ]
  %q = getelementptr inbounds i8, ptr %p, i64 %i
  %q1 = getelementptr inbounds i8, ptr %q, i64 1
  %c = load i8, ptr %q1, align 1
  %z = icmp eq i8 %c, 0
  br i1 %z, label %found, label %next
next:
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %found
found:
  %r = phi ptr [ %q1, %loop ], [ %p, %next ]
  %d = ptrtoint ptr %r to i64
  %pi = ptrtoint ptr %p to i64
  %o = sub i64 %d, %pi
  ret i64 %o
}

define i32 @scaled(i32 %z, i32 %bit, i64 %i, ptr %p) {
  %s = shl i32 %z, 1
  %r = or disjoint i32 %s, %bit
  %t = shl i64 %i, 3
  %u = add i64 %t, %i
  %v = trunc i64 %u to i32
  %w = add i32 %r, %v
  ret i32 %w
}

define i32 @pack(i32 %a, i32 %b) {
  %s = shl i32 %a, 4
  %lo = and i32 %b, 15
  %r = or disjoint i32 %s, %lo
  ret i32 %r
}

define i32 @low_parts(i32 %a) {
  %w = and i32 %a, 65535
  %b = and i32 %a, 255
  %s = mul i32 %w, %b
  %r = add i32 %s, %a
  ret i32 %r
}

define i32 @late_sum(i32 %a, i32 %b, i32 %len, i32 %lim) {
entry:
  %ne = icmp ne i32 %a, %b
  %end = add i32 %len, %a
  %over = icmp ugt i32 %end, %lim
  %either = or i1 %ne, %over
  br i1 %either, label %out, label %in
in:
  ret i32 1
out:
  ret i32 0
}

define i32 @struct_fields(ptr %opt, i64 %pos, i32 %v) {
  %p0 = getelementptr inbounds { i32, i32, i32, i32 }, ptr %opt, i64 %pos, i32 0
  %p1 = getelementptr inbounds { i32, i32, i32, i32 }, ptr %opt, i64 %pos, i32 1
  %p3 = getelementptr inbounds { i32, i32, i32, i32 }, ptr %opt, i64 %pos, i32 3
  %x = load i32, ptr %p0, align 4
  store i32 %v, ptr %p1, align 4
  store i32 %x, ptr %p3, align 4
  ret i32 %x
}

define i32 @field_table(ptr %ctx, i32 %i, i32 %n) {
entry:
  %t = getelementptr inbounds i8, ptr %ctx, i64 131072
  br label %loop
loop:
  %c = phi i32 [ %i, %entry ], [ %next, %loop ]
  %k = phi i32 [ %n, %entry ], [ %dec, %loop ]
  %m = and i32 %c, 65535
  %x = zext i32 %m to i64
  %p = getelementptr inbounds i16, ptr %t, i64 %x
  %v = load i16, ptr %p, align 2
  %next = zext i16 %v to i32
  %dec = add i32 %k, -1
  %more = icmp sgt i32 %dec, 0
  br i1 %more, label %loop, label %exit
exit:
  ret i32 %next
}
"#;

const DRIVER: &str = r#"
#include <stdio.h>
int isset(unsigned *, long);
int branch64(long, long);
int ordered(int, int);
int shl_twice(int, int);
long narrowed(long);
int walk(unsigned short *, int, int, int);
long countdown(long, long);
int used_before(int, int);
int early_edge(int, int);
int budget(int *, int);
void updates(void *, signed char, short, long, long);
int kept(int *, int *, int);
long scan(char *, long);
int pack(int, int);
int low_parts(int);
int field_table(unsigned short *, int, int);
int late_sum(int, int, int, int);
int struct_fields(int *, long, int);
static unsigned short ctx[2 * 65536];
int main(void) {
  unsigned bits[4] = {0x80000001u, 0x00010000u, 0u, 0xffffffffu};
  for (long i = 0; i < 128; i++) printf("%d", isset(bits, i) / 10);
  printf("\n");
  long vals[] = {0, 1, -1, 0x8000000000000000L, 0x123456789abcdefL, 0x10000L};
  for (int v = 0; v < 6; v++) {
    for (long n = 0; n < 64; n += 7) printf("%d", branch64(vals[v], n));
    printf(" %d%d%d", ordered((int)vals[v], 31), ordered((int)vals[v], 0), ordered(-1, 31));
    printf(" %d %d", shl_twice((int)vals[v], 16), shl_twice((int)vals[v], 0));
    printf(" %ld\n", narrowed(vals[v]));
  }
  unsigned short prev[8] = {3, 0, 7, 5, 1, 2, 6, 4};
  for (int limit = 0; limit < 8; limit += 3)
    for (int chain = 1; chain < 9; chain += 2) printf("%d ", walk(prev, 0, limit, chain));
  printf("\n%ld %ld %ld", countdown(10, 1), countdown(12, 3), countdown(1, 1));
  printf(" %d %d %d %d", used_before(5, 5), used_before(5, 6), early_edge(-1, 3), early_edge(4, -2));
  printf(" %d\n", early_edge(4, 2));
  int b = 100;
  int left = budget(&b, 9);
  printf("%d %d", left, b);
  union { unsigned char c[24]; long l[3]; } m = {{0}};
  for (int i = 0; i < 24; i++) m.c[i] = (unsigned char)(i * 37 + 5);
  updates(&m, -7, 300, 0x0123456789abcdefL, 2);
  updates(&m, 100, -1, -1, 1);
  for (int i = 0; i < 24; i++) printf(" %d", m.c[i]);
  int x = 10, y = 20;
  int r = kept(&x, &y, 7);
  printf(" %d %d %d", r, x, y);
  char text[] = "abc\0def";
  printf(" %ld %ld %d\n", scan(text, 7), scan(text, 2), pack(0x1234, 0x5b));
  printf("%d %d %d", low_parts(0x12345678), low_parts(-1), low_parts(0x1ff));
  for (int j = 0; j < 65536; j++) ctx[65536 + j] = (unsigned short)(j * 40503u + 17);
  printf(" %d %d", field_table(ctx, 0x10005, 1), field_table(ctx, 9, 1000));
  printf(" %d%d%d%d\n", late_sum(3, 3, 4, 7), late_sum(3, 3, 5, 7), late_sum(3, 4, 0, 9),
         late_sum(-1, -1, 1, 5));
  int opt[16];
  for (int j = 0; j < 16; j++) opt[j] = j * 3;
  printf("%d %d", struct_fields(opt, 2, 77), struct_fields(opt, 3, -5));
  for (int j = 0; j < 16; j++) printf(" %d", opt[j]);
  printf("\n");
  return 0;
}
"#;

#[test]
fn selection_patterns_run_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, expected) =
        support::outputs_of_ours_and_llc(dir.path(), MODULE, "patterns.ll", OptLevel::O0, DRIVER);
    assert_eq!(ours, expected);
    assert_eq!(
        expected,
        "21111111111111111111111111111112111111111111111121111111111111111111111111111111111111111111111122222222222222222222222222222222\n\
         0000000000 001 0 0 0\n\
         1000000000 001 0 1 0\n\
         1111111111 101 65536 1 2147549183\n\
         0000000001 001 0 0 0\n\
         1111001110 101 65536 1 1154891411\n\
         0000000000 001 65536 0 33280\n\
         3 2002 4004 6000 3 3 3 3 3 3 3 3 \n\
         55 30 1 -1 9 0 5 7\n\
         0 91 5 135 36 115 153 190 255 255 210 173 136 99 62 25 244 207 186 183 52 77 142 75 16 89 19 14 10 3 0 74571\n\
         308076216 16711424 130816 5924 64169 1001\n\
         24 36 0 3 6 9 12 15 18 21 24 77 30 24 36 -5 42 36\n"
    );
}

/// Selects `function` of the module above and compares its MIR with `expected`.
fn check(function: &str, expected: expect_test::Expect) {
    expected.assert_eq(&support::selected_mir(MODULE, "patterns.ll", function));
}

/// bzip2's `ISSET_BH`: the word index is a 32-bit `shr`, the bit a `bt`.
#[test]
fn a_shifted_one_tested_is_bt() {
    check(
        "isset",
        expect_test::expect![[r#"
        name: isset
        bb.0:
          %10 = COPY $rdi
          %11 = COPY $rsi
          %0 = COPY %11
          %2 = COPY %11
          %2 = SHR32 %2, 5
          %4 = LOAD32 [%10 + %2*4]
          %12 = MOV32 10
          %13 = MOV32 20
          %9 = COPY %13
          BT32 %4, %0
          %9 = CMOVAE32 %9, %12
          $rax = COPY %9
          RET $rax
    "#]],
    );
}

#[test]
fn a_64_bit_bit_test_in_a_branch() {
    check(
        "branch64",
        expect_test::expect![[r#"
        name: branch64
        bb.0:  ; succ bb.1, bb.2
          %4 = COPY $rdi
          %5 = COPY $rsi
          BT64 %4, %5
          JAE bb.2
        bb.1:
          %6 = MOV32 1
          $rax = COPY %6
          RET $rax
        bb.2:
          %7 = MOV32 0
          $rax = COPY %7
          RET $rax
    "#]],
    );
}

/// `slt` reads the sign of the `and`, which `bt` does not give: a `test`.
#[test]
fn an_ordered_compare_keeps_test() {
    check(
        "ordered",
        expect_test::expect![[r#"
        name: ordered
        bb.0:
          %4 = COPY $rdi
          %5 = COPY $rsi
          %6 = MOV32 1
          %0 = COPY %6
          $rcx = COPY %5
          %0 = SHL32 %0, $cl
          %2 = MOV32 0
          TEST32 %4, %0
          %2 = SETL
          %3 = COPY %2
          $rax = COPY %3
          RET $rax
    "#]],
    );
}

/// The shifted one is used again: it stays in a register.
#[test]
fn a_shift_with_two_uses_is_kept() {
    check(
        "shl_twice",
        expect_test::expect![[r#"
        name: shl_twice
        bb.0:
          %4 = COPY $rdi
          %5 = COPY $rsi
          %6 = MOV32 1
          %0 = COPY %6
          $rcx = COPY %5
          %0 = SHL32 %0, $cl
          %7 = MOV32 0
          %3 = COPY %0
          TEST32 %4, %0
          %3 = CMOVE32 %3, %7
          $rax = COPY %3
          RET $rax
    "#]],
    );
}

/// Only the mask `2^(32-c) - 1` makes the `and` a 32-bit `shr`.
#[test]
fn masked_shifts_of_the_low_word_are_32_bit() {
    check(
        "narrowed",
        expect_test::expect![[r#"
        name: narrowed
        bb.0:
          %8 = COPY $rdi
          %1 = COPY %8
          %1 = SHR32 %1, 1
          %3 = COPY %8
          %3 = SHR32 %3, 31
          %4 = COPY %8
          %4 = SHR64 %4, 7
          %5 = COPY %4
          %5 = AND64 %5, 65535
          %6 = COPY %1
          %6 = ADD64 %6, %3
          %7 = COPY %6
          %7 = ADD64 %7, %5
          $rax = COPY %7
          RET $rax
    "#]],
    );
}

/// mainGtU's `(*budget)--` in its loop: one `add [mem], -1`.
#[test]
fn a_loaded_value_updated_and_stored_back_is_one_instruction() {
    check(
        "budget",
        expect_test::expect![[r#"
        name: budget
        bb.0:  ; succ bb.1
          %5 = COPY $rdi
          %6 = COPY $rsi
          %0 = COPY %6
        bb.1:  ; succ bb.2, bb.3
          ADD32 [%5], -1
          %3 = COPY %0
          %3 = ADD32 %3, -1
          CMP32 %0, 1
          JLE bb.3
        bb.2:  ; succ bb.1
          %0 = COPY %3
          JMP bb.1
        bb.3:
          $rax = COPY %3
          RET $rax
    "#]],
    );
}

#[test]
fn updates_in_place_of_every_width() {
    check(
        "updates",
        expect_test::expect![[r#"
        name: updates
        bb.0:
          %14 = COPY $rdi
          %15 = COPY $rsi
          %16 = COPY $rdx
          %17 = COPY $rcx
          %18 = COPY $r8
          ADD8 [%14 + 1], %15
          SUB16 [%14 + 2], %16
          OR32 [%14 + 4], -65536
          XOR64 [%14 + %18*8], %17
          AND8 [%14], -3
          RET
    "#]],
    );
}

/// `x - *p`, a store between, a volatile load, a second use, another pointer.
#[test]
fn updates_that_must_load_first() {
    check(
        "kept",
        expect_test::expect![[r#"
        name: kept
        bb.0:
          %11 = COPY $rdi
          %12 = COPY $rsi
          %13 = COPY $rdx
          %0 = LOAD32 [%11]
          %1 = COPY %13
          %1 = SUB32 %1, %0
          STORE32 [%11], %1
          %2 = LOAD32 [%11]
          STORE32 [%12], 5
          %3 = COPY %2
          %3 = ADD32 %3, 1
          STORE32 [%11], %3
          %4 = LOAD32 [%12]
          %5 = COPY %4
          %5 = ADD32 %5, 2
          STORE32 [%12], %5
          %6 = LOAD32 [%12]
          %7 = COPY %6
          %7 = ADD32 %7, 3
          STORE32 [%12], %7
          %8 = LOAD32 [%12]
          %9 = COPY %8
          %9 = ADD32 %9, 4
          STORE32 [%11], %9
          %10 = COPY %4
          %10 = ADD32 %10, %9
          $rax = COPY %10
          RET $rax
    "#]],
    );
}

/// zlib's `longest_match` loop: the decrement moves after the first test
/// of the chain and sets the flags of the second (no `test`).
#[test]
fn a_decrement_tested_for_zero_sets_the_flags() {
    check(
        "walk",
        expect_test::expect![[r#"
        name: walk
        bb.0:  ; succ bb.1
          %13 = COPY $rdi
          %14 = COPY $rsi
          %15 = COPY $rdx
          %16 = COPY $rcx
          %0 = COPY %14
          %1 = COPY %16
        bb.1:  ; succ bb.2, bb.3
          %2 = MOVZX64_32 %0
          %4 = MOVZX32_16 [%13 + %2*2]
          %5 = COPY %4
          CMP32 %15, %5
          JAE bb.3
          %7 = COPY %1
          %7 = ADD32 %7, -1
          JE bb.3
        bb.2:  ; succ bb.1
          %0 = COPY %5
          %1 = COPY %7
          JMP bb.1
        bb.3:
          %10 = COPY %16
          %10 = SUB32 %10, %1
          %11 = IMUL32 %10, 1000
          %12 = COPY %11
          %12 = ADD32 %12, %5
          $rax = COPY %12
          RET $rax
    "#]],
    );
}

#[test]
fn a_subtraction_tested_for_zero_in_a_loop() {
    check(
        "countdown",
        expect_test::expect![[r#"
        name: countdown
        bb.0:  ; succ bb.1
          %6 = COPY $rdi
          %7 = COPY $rsi
          %0 = COPY %6
          %1 = MOV64 0
        bb.1:  ; succ bb.2, bb.3
          %2 = COPY %1
          %2 = ADD64 %2, %0
          %3 = COPY %0
          %3 = SUB64 %3, %7
          JE bb.3
        bb.2:  ; succ bb.1
          %0 = COPY %3
          %1 = COPY %2
          JMP bb.1
        bb.3:
          %5 = COPY %2
          %5 = ADD64 %5, %3
          $rax = COPY %5
          RET $rax
    "#]],
    );
}

/// Read before the branch: selected where it stands, then compared.
#[test]
fn a_result_used_before_the_branch_is_compared() {
    check(
        "used_before",
        expect_test::expect![[r#"
        name: used_before
        bb.0:  ; succ bb.1, bb.2
          %3 = COPY $rdi
          %4 = COPY $rsi
          %0 = COPY %3
          %0 = XOR32 %0, %4
          %1 = IMUL32 %0, 3
          CMP32 %0, 0
          JNE bb.2
        bb.1:
          %5 = MOV32 -1
          $rax = COPY %5
          RET $rax
        bb.2:
          $rax = COPY %1
          RET $rax
    "#]],
    );
}

/// The chain's first jump takes an edge whose phi reads the result.
#[test]
fn a_result_read_on_an_earlier_jumps_edge_is_compared() {
    check(
        "early_edge",
        expect_test::expect![[r#"
        name: early_edge
        bb.0:  ; succ bb.1, bb.2
          %5 = COPY $rdi
          %6 = COPY $rsi
          %0 = COPY %5
          %0 = ADD32 %0, 1
          CMP32 %6, 0
          JL bb.1
          CMP32 %0, 0
          JNE bb.2
        bb.1:  ; succ bb.3
          %4 = COPY %0
          JMP bb.3
        bb.2:
          %7 = MOV32 7
          $rax = COPY %7
          RET $rax
        bb.3:
          $rax = COPY %4
          RET $rax
    "#]],
    );
}

/// zlib's `longest_match`: the pointer a loop's exit reads is folded into
/// the load's address, and computed by a `lea` on the exit edge only.
#[test]
fn a_pointer_read_at_a_loops_exit_is_a_lea_there() {
    check(
        "scan",
        expect_test::expect![[r#"
        name: scan
        bb.0:  ; succ bb.1
          %11 = COPY $rdi
          %12 = COPY $rsi
          %0 = MOV64 0
        bb.1:  ; succ bb.2, bb.3
          CMP8 [%11 + %0*1 + 1], 0
          JNE bb.3
        bb.2:  ; succ bb.6
          %7 = LEA [%11 + %0*1 + 1]
          JMP bb.6
        bb.3:  ; succ bb.4, bb.5
          %5 = COPY %0
          %5 = ADD64 %5, 1
          CMP64 %5, %12
          JAE bb.5
        bb.4:  ; succ bb.1
          %0 = COPY %5
          JMP bb.1
        bb.5:  ; succ bb.6
          %7 = COPY %11
        bb.6:
          %8 = COPY %7
          %9 = COPY %11
          %10 = COPY %8
          %10 = SUB64 %10, %9
          $rax = COPY %10
          RET $rax
    "#]],
    );
}

/// `or disjoint` adds: an `add`, which the peephole may make a `lea`.
#[test]
fn a_disjoint_or_is_an_add() {
    check(
        "pack",
        expect_test::expect![[r#"
        name: pack
        bb.0:
          %3 = COPY $rdi
          %4 = COPY $rsi
          %0 = COPY %3
          %0 = SHL32 %0, 4
          %1 = COPY %4
          %1 = AND32 %1, 15
          %2 = COPY %0
          %2 = ADD32 %2, %1
          $rax = COPY %2
          RET $rax
    "#]],
    );
}

/// bzip2's `zvec = (zvec << 1) | zj`: a shift by 1, 2 or 3 added (or
/// disjointly or-ed) to a register is the index of one `lea`.
#[test]
fn a_small_shift_added_is_a_scaled_lea() {
    check(
        "scaled",
        expect_test::expect![[r#"
        name: scaled
        bb.0:
          %6 = COPY $rdi
          %7 = COPY $rsi
          %8 = COPY $rdx
          %9 = COPY $rcx
          %1 = LEA32 [%7 + %6*2]
          %3 = LEA [%8 + %8*8]
          %4 = COPY %3
          %5 = COPY %1
          %5 = ADD32 %5, %4
          $rax = COPY %5
          RET $rax
    "#]],
    );
}

/// A low byte or word taken while the value stays live: `movzx` from the
/// source register, not a copy and an `and` (the flags nothing reads).
#[test]
fn a_masked_copy_is_movzx() {
    let dir = tempfile::tempdir().unwrap();
    let object = support::compile_ir(dir.path(), "patterns", MODULE, &[]);
    expect_test::expect![[r#"
        200:	movzx  eax,di
        203:	movzx  ecx,dil
        207:	imul   eax,ecx
        20a:	add    eax,edi
        20c:	ret
    "#]]
    .assert_eq(&support::function_listing(&object, "low_parts"));
}

/// A table at a constant offset in a struct (lz4's `chainTable`), indexed
/// in a loop: the offset is the displacement of each load from the
/// struct's pointer, no register holds the table's address.
#[test]
fn a_field_base_folds_into_indexed_loads() {
    check(
        "field_table",
        expect_test::expect![[r#"
        name: field_table
        bb.0:  ; succ bb.1
          %10 = COPY $rdi
          %11 = COPY $rsi
          %12 = COPY $rdx
          %1 = COPY %11
          %2 = COPY %12
        bb.1:  ; succ bb.2, bb.3
          %3 = COPY %1
          %3 = AND32 %3, 65535
          %4 = MOVZX64_32 %3
          %6 = MOVZX32_16 [%10 + %4*2 + 131072]
          %7 = COPY %6
          %8 = COPY %2
          %8 = ADD32 %8, -1
          CMP32 %8, 0
          JLE bb.3
        bb.2:  ; succ bb.1
          %1 = COPY %7
          %2 = COPY %8
          JMP bb.1
        bb.3:
          $rax = COPY %7
          RET $rax
    "#]],
    );
}

/// `a != b || len + a > lim` (lz4's `matchLength != longest || ...`): the
/// add is selected after the first jump, at the test that reads it.
#[test]
fn an_operand_of_a_later_test_is_selected_at_it() {
    check(
        "late_sum",
        expect_test::expect![[r#"
        name: late_sum
        bb.0:  ; succ bb.1, bb.2
          %4 = COPY $rdi
          %5 = COPY $rsi
          %6 = COPY $rdx
          %7 = COPY $rcx
          CMP32 %4, %5
          JNE bb.2
          %1 = COPY %6
          %1 = ADD32 %1, %4
          CMP32 %1, %7
          JA bb.2
        bb.1:
          %8 = MOV32 1
          $rax = COPY %8
          RET $rax
        bb.2:
          %9 = MOV32 0
          $rax = COPY %9
          RET $rax
    "#]],
    );
}

/// Fields of one array element of a 16-byte struct (lz4's `opt[pos]`): one
/// `imul` of the index for the block, each access at its field's offset.
#[test]
fn a_scaled_index_is_computed_once_per_block() {
    check(
        "struct_fields",
        expect_test::expect![[r#"
        name: struct_fields
        bb.0:
          %4 = COPY $rdi
          %5 = COPY $rsi
          %6 = COPY $rdx
          %7 = IMUL64 %5, 16
          %3 = LOAD32 [%4 + %7*1]
          STORE32 [%4 + %7*1 + 4], %6
          STORE32 [%4 + %7*1 + 12], %3
          $rax = COPY %3
          RET $rax
    "#]],
    );
}
