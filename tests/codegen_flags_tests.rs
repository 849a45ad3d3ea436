//! Compares without a `cmp` of their own: a block's opening compare of the
//! operands its only predecessor's branch compared reads the flags that
//! branch left (so a load the two compares share folds into the first),
//! a block's opening `sub` of them is the branch's compare,
//! (beside them: a GEP used only as addresses and as the base of constant
//! offsets folds into each address),
//! `icmp (and a, b), 0` is `test a, b`, and a shift count's mask that the
//! hardware applies anyway is dropped. The hand-written module below has
//! each shape with loads of several widths, a constant on the left, the
//! operands swapped, and the cases that must keep their `cmp` or `and`: a
//! successor with two predecessors, an instruction before the compare, a
//! mask narrower than the hardware's, an `and` with two uses. Compiled by
//! dwarfsmith and by llc-19 and linked with one C driver, both programs
//! print the same over edge values; MIR snapshots show the selection.

mod support;

use dwarfsmith::OptLevel;

const MODULE: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define zeroext i1 @greater8(ptr %p, i64 %i, i64 %j) {
entry:
  %pi = getelementptr inbounds i8, ptr %p, i64 %i
  %a = load i8, ptr %pi, align 1
  %pj = getelementptr inbounds i8, ptr %p, i64 %j
  %b = load i8, ptr %pj, align 1
  %eq = icmp eq i8 %a, %b
  br i1 %eq, label %next, label %differ
differ:
  %gt = icmp ugt i8 %a, %b
  br label %done
next:
  %pi1 = getelementptr inbounds i16, ptr %p, i64 %i
  %c = load i16, ptr %pi1, align 2
  %pj1 = getelementptr inbounds i16, ptr %p, i64 %j
  %d = load i16, ptr %pj1, align 2
  %eq1 = icmp eq i16 %c, %d
  br i1 %eq1, label %done, label %differ1
differ1:
  %gt1 = icmp sgt i16 %d, %c
  br label %done
done:
  %r = phi i1 [ %gt, %differ ], [ %gt1, %differ1 ], [ false, %next ]
  ret i1 %r
}

define i32 @three_way(ptr %p, i32 %k) {
entry:
  %v = load i32, ptr %p, align 4
  %ne = icmp ne i32 %v, %k
  br i1 %ne, label %unequal, label %same
unequal:
  %lt = icmp slt i32 %v, %k
  br i1 %lt, label %less, label %more
same:
  ret i32 0
less:
  ret i32 -1
more:
  ret i32 1
}

define i32 @constant_left(i64 %x) {
entry:
  %eq = icmp eq i64 7, %x
  br i1 %eq, label %seven, label %other
other:
  %below = icmp ugt i64 7, %x
  br i1 %below, label %small, label %large
small:
  ret i32 10
large:
  ret i32 20
seven:
  ret i32 30
}

define i64 @distance(i32 %a, i32 %b, i64 %c, i64 %d) {
entry:
  %below = icmp ult i32 %a, %b
  br i1 %below, label %near, label %far
far:
  %diff = sub i32 %a, %b
  %wide = zext i32 %diff to i64
  %big = icmp sgt i64 %c, %d
  br i1 %big, label %more, label %less
more:
  %gap = sub i64 %c, %d
  %sum = add i64 %gap, %wide
  ret i64 %sum
less:
  %back = sub i64 %d, %c
  %neg = sub i64 %wide, %back
  ret i64 %neg
near:
  ret i64 -1
}

define i32 @window(ptr %w, i32 %cur, i32 %best) {
entry:
  %c = zext i32 %cur to i64
  %m = getelementptr inbounds i8, ptr %w, i64 %c
  %b = sext i32 %best to i64
  %at = getelementptr inbounds i8, ptr %m, i64 %b
  %x = load i8, ptr %at, align 1
  %before = getelementptr i8, ptr %at, i64 -1
  %y = load i8, ptr %before, align 1
  %first = load i8, ptr %m, align 1
  %xw = zext i8 %x to i32
  %yw = zext i8 %y to i32
  %fw = zext i8 %first to i32
  %s = shl i32 %xw, 16
  %t = shl i32 %yw, 8
  %u = or i32 %s, %t
  %r = or i32 %u, %fw
  ret i32 %r
}

define i32 @two_preds(i32 %x, i32 %y, i1 %f) {
entry:
  br i1 %f, label %test, label %join
test:
  %eq = icmp eq i32 %x, %y
  br i1 %eq, label %out, label %join
join:
  %lt = icmp slt i32 %x, %y
  %r = zext i1 %lt to i32
  ret i32 %r
out:
  ret i32 5
}

define i32 @not_first(i32 %x, i32 %y) {
entry:
  %eq = icmp eq i32 %x, %y
  br i1 %eq, label %out, label %other
other:
  %s = sub i32 %x, %y
  %lt = icmp slt i32 %x, %y
  %r = select i1 %lt, i32 %s, i32 9
  ret i32 %r
out:
  ret i32 5
}

define i32 @tests(i8 %a, i16 %b, i32 %c, i64 %d) {
entry:
  %a1 = and i8 %a, -128
  %t1 = icmp ne i8 %a1, 0
  %b1 = and i16 %b, 40000
  %t2 = icmp eq i16 %b1, 0
  %d32 = trunc i64 %d to i32
  %c1 = and i32 %c, %d32
  %t3 = icmp slt i32 %c1, 0
  %d1 = and i64 %d, 4294967296
  %t4 = icmp ne i64 %d1, 0
  %d2 = and i64 %d, -8
  %t5 = icmp ugt i64 %d2, 0
  %r1 = zext i1 %t1 to i32
  %r2 = zext i1 %t2 to i32
  %r3 = zext i1 %t3 to i32
  %r4 = zext i1 %t4 to i32
  %r5 = zext i1 %t5 to i32
  %s2 = shl i32 %r2, 1
  %s3 = shl i32 %r3, 2
  %s4 = shl i32 %r4, 3
  %s5 = shl i32 %r5, 4
  %o1 = or i32 %r1, %s2
  %o2 = or i32 %o1, %s3
  %o3 = or i32 %o2, %s4
  %o4 = or i32 %o3, %s5
  ret i32 %o4
}

define i32 @bit_set(ptr %bits, i32 %n) {
  %word = lshr i32 %n, 5
  %wide = zext i32 %word to i64
  %at = getelementptr inbounds i32, ptr %bits, i64 %wide
  %w = load i32, ptr %at, align 4
  %low = and i32 %n, 31
  %mask = shl nuw i32 1, %low
  %set = and i32 %w, %mask
  %zero = icmp eq i32 %set, 0
  %r = select i1 %zero, i32 100, i32 %n
  ret i32 %r
}

define i64 @shifts(i64 %x, i32 %y, i64 %n) {
  %m64 = and i64 %n, 63
  %a = lshr i64 %x, %m64
  %n32 = trunc i64 %n to i32
  %m255 = and i32 %n32, 255
  %b = ashr i32 %y, %m255
  %m15 = and i32 %n32, 15
  %c = shl i32 %y, %m15
  %bw = sext i32 %b to i64
  %cw = zext i32 %c to i64
  %s = add i64 %a, %bw
  %t = xor i64 %s, %cw
  ret i64 %t
}

define i32 @and_two_uses(i32 %x, i32 %y) {
  %a = and i32 %x, %y
  %z = icmp eq i32 %a, 0
  %r = select i1 %z, i32 -1, i32 %a
  ret i32 %r
}
"#;

const DRIVER: &str = r#"
#include <stdio.h>
#include <stdbool.h>
bool greater8(void *, long, long);
int three_way(int *, int);
int constant_left(long);
int two_preds(int, int, bool);
long distance(unsigned, unsigned, long, long);
int window(unsigned char *, unsigned, int);
int not_first(int, int);
int tests(signed char, short, int, long);
int bit_set(unsigned *, int);
long shifts(long, int, long);
int and_two_uses(int, int);
int main(void) {
  long vals[] = {-5000000000L, -129, -128, -1, 0, 1, 7, 8, 31, 32, 63, 64, 127, 255,
                 40000, 65535, 4294967296L, 5000000000L};
  int n = sizeof vals / sizeof vals[0];
  unsigned short words[6] = {1, 1, 65535, 2, 300, 300};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) printf("%d", greater8(words, i, j));
  printf("\n");
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      int a = (int)vals[i], b = (int)vals[j];
      printf("%d %d %d %d|", three_way(&a, b), two_preds(a, b, 1), two_preds(a, b, 0),
             not_first(a, b));
      printf("%ld ", distance(a, b, vals[i], vals[j]));
      printf("%d %lx %d|", tests(vals[i], vals[j], a, vals[j]), shifts(vals[i], b, vals[j]),
             and_two_uses(a, b));
    }
    unsigned bits[4] = {0x80000001u, 0, 0xffffffffu, 0x10};
    unsigned char text[16] = "abcdefghijklmno";
    printf("\n%x", window(text, (unsigned)(vals[i] & 7), (int)(vals[i] & 7) + 1));
    printf("\n%d %d", constant_left(vals[i]), bit_set(bits, (int)(vals[i] & 127)));
    printf("\n");
  }
  return 0;
}
"#;

#[test]
fn flag_reuse_tests_and_shift_masks_run_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, expected) =
        support::outputs_of_ours_and_llc(dir.path(), MODULE, "flags.ll", OptLevel::O0, DRIVER);
    assert_eq!(ours, expected);
    // Every outcome of the compares shows up.
    for outcome in [
        "-1 1 1 ", "1 0 0 9", "0 5 0 5", "\n10 ", "\n20 ", "\n30 ", " 100\n", " 0\n",
    ] {
        assert!(expected.contains(outcome), "{outcome} in {expected}");
    }
}

/// Selects `function` of the module above and compares its MIR with `expected`.
fn check(function: &str, expected: expect_test::Expect) {
    expected.assert_eq(&support::selected_mir(MODULE, "flags.ll", function));
}

#[test]
fn a_successor_reads_its_predecessors_flags() {
    check(
        "distance",
        expect_test::expect![[r#"
        name: distance
        bb.0:  ; succ bb.1, bb.4
          %8 = COPY $rdi
          %9 = COPY $rsi
          %10 = COPY $rdx
          %11 = COPY $rcx
          %1 = COPY %8
          %1 = SUB32 %1, %9
          JB bb.4
        bb.1:  ; succ bb.2, bb.3
          %2 = MOVZX64_32 %1
          %4 = COPY %10
          %4 = SUB64 %4, %11
          JLE bb.3
        bb.2:
          %5 = COPY %4
          %5 = ADD64 %5, %2
          $rax = COPY %5
          RET $rax
        bb.3:
          %6 = COPY %11
          %6 = SUB64 %6, %10
          %7 = COPY %2
          %7 = SUB64 %7, %6
          $rax = COPY %7
          RET $rax
        bb.4:
          %12 = MOV64 -1
          $rax = COPY %12
          RET $rax
    "#]],
    );
    check(
        "greater8",
        expect_test::expect![[r#"
        name: greater8
        bb.0:  ; succ bb.1, bb.2
          %13 = COPY $rdi
          %14 = COPY $rsi
          %15 = COPY $rdx
          %1 = MOVZX32_8 [%13 + %14*1]
          CMP8 %1, [%13 + %15*1]
          JE bb.2
        bb.1:  ; succ bb.5
          %5 = MOV32 0
          %5 = SETA
          %12 = COPY %5
          JMP bb.5
        bb.2:  ; succ bb.3, bb.4
          %7 = MOVZX32_16 [%13 + %14*2]
          CMP16 %7, [%13 + %15*2]
          JNE bb.4
        bb.3:  ; succ bb.5
          %12 = MOV32 0
          JMP bb.5
        bb.4:  ; succ bb.5
          %11 = MOV32 0
          %11 = SETL
          %12 = COPY %11
        bb.5:
          %16 = COPY %12
          %16 = AND32 %16, 1
          $rax = COPY %16
          RET $rax
    "#]],
    );
    check(
        "three_way",
        expect_test::expect![[r#"
        name: three_way
        bb.0:  ; succ bb.1, bb.2
          %3 = COPY $rdi
          %4 = COPY $rsi
          CMP32 [%3], %4
          JE bb.2
        bb.1:  ; succ bb.3, bb.4
          JL bb.3
          JMP bb.4
        bb.2:
          %5 = MOV32 0
          $rax = COPY %5
          RET $rax
        bb.3:
          %6 = MOV32 -1
          $rax = COPY %6
          RET $rax
        bb.4:
          %7 = MOV32 1
          $rax = COPY %7
          RET $rax
    "#]],
    );
    check(
        "constant_left",
        expect_test::expect![[r#"
        name: constant_left
        bb.0:  ; succ bb.1, bb.4
          %2 = COPY $rdi
          CMP64 %2, 7
          JE bb.4
        bb.1:  ; succ bb.2, bb.3
          JAE bb.3
        bb.2:
          %3 = MOV32 10
          $rax = COPY %3
          RET $rax
        bb.3:
          %4 = MOV32 20
          $rax = COPY %4
          RET $rax
        bb.4:
          %5 = MOV32 30
          $rax = COPY %5
          RET $rax
    "#]],
    );
}

#[test]
fn a_second_predecessor_or_code_before_keeps_the_compare() {
    check(
        "two_preds",
        expect_test::expect![[r#"
        name: two_preds
        bb.0:  ; succ bb.1, bb.2
          %3 = COPY $rdi
          %4 = COPY $rsi
          %5 = COPY $rdx
          TEST8 %5, 1
          JE bb.2
        bb.1:  ; succ bb.2, bb.3
          CMP32 %3, %4
          JE bb.3
        bb.2:
          %1 = MOV32 0
          CMP32 %3, %4
          %1 = SETL
          %2 = COPY %1
          $rax = COPY %2
          RET $rax
        bb.3:
          %6 = MOV32 5
          $rax = COPY %6
          RET $rax
    "#]],
    );
    check(
        "not_first",
        expect_test::expect![[r#"
            name: not_first
            bb.0:  ; succ bb.1, bb.2
              %4 = COPY $rdi
              %5 = COPY $rsi
              %1 = COPY %4
              %1 = SUB32 %1, %5
              JE bb.2
            bb.1:
              %6 = MOV32 9
              %3 = COPY %6
              CMP32 %4, %5
              %3 = CMOVL32 %3, %1
              $rax = COPY %3
              RET $rax
            bb.2:
              %7 = MOV32 5
              $rax = COPY %7
              RET $rax
        "#]],
    );
}

#[test]
fn an_and_compared_with_zero_is_a_test() {
    check(
        "tests",
        expect_test::expect![[r#"
        name: tests
        bb.0:
          %24 = COPY $rdi
          %25 = COPY $rsi
          %26 = COPY $rdx
          %27 = COPY $rcx
          %1 = MOV32 0
          TEST8 %24, -128
          %1 = SETNE
          %3 = MOV32 0
          TEST16 %25, -25536
          %3 = SETE
          %4 = COPY %27
          %6 = MOV32 0
          TEST32 %26, %4
          %6 = SETL
          %8 = MOV32 0
          %28 = MOV64 4294967296
          TEST64 %27, %28
          %8 = SETNE
          %10 = MOV32 0
          TEST64 %27, -8
          %10 = SETA
          %11 = COPY %1
          %12 = COPY %3
          %13 = COPY %6
          %14 = COPY %8
          %15 = COPY %10
          %16 = COPY %12
          %16 = SHL32 %16, 1
          %17 = COPY %13
          %17 = SHL32 %17, 2
          %18 = COPY %14
          %18 = SHL32 %18, 3
          %19 = COPY %15
          %19 = SHL32 %19, 4
          %20 = COPY %11
          %20 = OR32 %20, %16
          %21 = COPY %20
          %21 = OR32 %21, %17
          %22 = COPY %21
          %22 = OR32 %22, %18
          %23 = COPY %22
          %23 = OR32 %23, %19
          $rax = COPY %23
          RET $rax
    "#]],
    );
    check(
        "bit_set",
        expect_test::expect![[r#"
            name: bit_set
            bb.0:
              %9 = COPY $rdi
              %10 = COPY $rsi
              %0 = COPY %10
              %0 = SHR32 %0, 5
              %1 = MOVZX64_32 %0
              %3 = LOAD32 [%9 + %1*4]
              %11 = MOV32 100
              %8 = COPY %10
              BT32 %3, %10
              %8 = CMOVAE32 %8, %11
              $rax = COPY %8
              RET $rax
        "#]],
    );
    check(
        "and_two_uses",
        expect_test::expect![[r#"
        name: and_two_uses
        bb.0:
          %3 = COPY $rdi
          %4 = COPY $rsi
          %0 = COPY %3
          %0 = AND32 %0, %4
          %5 = MOV32 -1
          %2 = COPY %0
          CMP32 %0, 0
          %2 = CMOVE32 %2, %5
          $rax = COPY %2
          RET $rax
    "#]],
    );
}

/// `p = w + cur` read at `p`, `q = p + best` and `q - 1`: the loads of `q`
/// and `q - 1` read `[p + best + disp]`, no `lea` keeps `q` in a register
/// (`p`, the base of a variable offset, keeps its `lea`, as in llc-19).
#[test]
fn an_address_base_folds_into_its_users() {
    check(
        "window",
        expect_test::expect![[r#"
        name: window
        bb.0:
          %15 = COPY $rdi
          %16 = COPY $rsi
          %17 = COPY $rdx
          %0 = MOVZX64_32 %16
          %1 = LEA [%15 + %0*1]
          %2 = MOVSX64_32 %17
          %4 = MOVZX32_8 [%1 + %2*1]
          %6 = MOVZX32_8 [%1 + %2*1 - 1]
          %7 = MOVZX32_8 [%1]
          %8 = COPY %4
          %9 = COPY %6
          %10 = COPY %7
          %11 = COPY %8
          %11 = SHL32 %11, 16
          %12 = COPY %9
          %12 = SHL32 %12, 8
          %13 = COPY %11
          %13 = OR32 %13, %12
          %14 = COPY %13
          %14 = OR32 %14, %10
          $rax = COPY %14
          RET $rax
    "#]],
    );
}

#[test]
fn a_shift_count_mask_the_hardware_applies_is_dropped() {
    check(
        "shifts",
        expect_test::expect![[r#"
        name: shifts
        bb.0:
          %11 = COPY $rdi
          %12 = COPY $rsi
          %13 = COPY $rdx
          %1 = COPY %11
          $rcx = COPY %13
          %1 = SHR64 %1, $cl
          %2 = COPY %13
          %4 = COPY %12
          $rcx = COPY %2
          %4 = SAR32 %4, $cl
          %5 = COPY %2
          %5 = AND32 %5, 15
          %6 = COPY %12
          $rcx = COPY %5
          %6 = SHL32 %6, $cl
          %7 = MOVSX64_32 %4
          %8 = MOVZX64_32 %6
          %9 = COPY %1
          %9 = ADD64 %9, %7
          %10 = COPY %9
          %10 = XOR64 %10, %8
          $rax = COPY %10
          RET $rax
    "#]],
    );
}
