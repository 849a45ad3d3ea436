//! Loads folded into compares (`cmp reg, [mem]`, `cmp [mem], reg/imm`):
//! the hand-written module below compares loads of every width, a pointer,
//! a constant on the left, inside a select and inside a branch chain, and
//! also the cases that must not fold: a store or a call between the load
//! and the compare, a load with two uses, a volatile load; and `i8`/`i16`
//! loads whose zero extensions are copies (the load was a `movzx`). Compiled by
//! dwarfsmith and by llc-19 and linked with one C driver, both programs
//! print the same thing; MIR snapshots show which loads became operands.

mod support;

use dwarfsmith::OptLevel;

const MODULE: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @touch(ptr)

define i32 @widths(ptr %p, i8 %a, i16 %b, i32 %c, i64 %d) {
entry:
  %p1 = getelementptr inbounds i8, ptr %p, i64 1
  %l8 = load i8, ptr %p1, align 1
  %x = icmp ult i8 %a, %l8
  br i1 %x, label %one, label %next
next:
  %p2 = getelementptr inbounds i8, ptr %p, i64 2
  %l16 = load i16, ptr %p2, align 2
  %y = icmp sgt i16 %l16, %b
  br i1 %y, label %two, label %next2
next2:
  %p4 = getelementptr inbounds i8, ptr %p, i64 4
  %l32 = load i32, ptr %p4, align 4
  %z = icmp eq i32 7, %l32
  %l64 = load i64, ptr %p, align 8
  %w = icmp sle i64 %l64, %d
  %zw = or i1 %z, %w
  br i1 %zw, label %three, label %four
one:
  ret i32 1
two:
  ret i32 2
three:
  ret i32 3
four:
  %lc = load i32, ptr %p4, align 4
  %v = icmp ugt i32 %lc, %c
  %r = select i1 %v, i32 40, i32 50
  ret i32 %r
}

define i32 @pointers(ptr %pp, ptr %q) {
  %l = load ptr, ptr %pp, align 8
  %c = icmp eq ptr %l, %q
  %r = zext i1 %c to i32
  ret i32 %r
}

define i32 @store_between(ptr %p, i32 %v) {
  %old = load i32, ptr %p, align 4
  store i32 %v, ptr %p, align 4
  %c = icmp slt i32 %old, %v
  br i1 %c, label %less, label %more
less:
  ret i32 1
more:
  ret i32 0
}

define i32 @call_between(ptr %p, i32 %v) {
  %old = load i32, ptr %p, align 4
  call void @touch(ptr %p)
  %c = icmp slt i32 %old, %v
  %r = zext i1 %c to i32
  ret i32 %r
}

define i32 @two_uses(ptr %p, i32 %v) {
  %l = load i32, ptr %p, align 4
  %c = icmp ult i32 %l, %v
  %s = select i1 %c, i32 %l, i32 %v
  ret i32 %s
}

define i64 @narrow_zext(ptr %p, ptr %q) {
  %w = load i16, ptr %p, align 2
  %b = load i8, ptr %q, align 1
  %wz = zext i16 %w to i64
  %bz = zext i8 %b to i64
  %idx = getelementptr inbounds i16, ptr %p, i64 %bz
  %x = load i16, ptr %idx, align 2
  %xz = zext i16 %x to i64
  %s = add i64 %wz, %xz
  %t = mul i64 %s, 1000
  %r = add i64 %t, %bz
  ret i64 %r
}

define i32 @volatile_load(ptr %p, i32 %v) {
  %l = load volatile i32, ptr %p, align 4
  %c = icmp eq i32 %l, %v
  %r = zext i1 %c to i32
  ret i32 %r
}
"#;

const DRIVER: &str = r#"
#include <stdio.h>
#include <string.h>
int widths(void *, signed char, short, int, long);
int pointers(void **, void *);
int store_between(int *, int);
int call_between(int *, int);
int two_uses(int *, int);
int volatile_load(int *, int);
long narrow_zext(unsigned short *, unsigned char *);
void touch(int *p) { *p += 100; }
int main(void) {
  long vals[] = {-3, 0, 7, 300, 70000, 5000000000L};
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) {
      union { long l; unsigned char b[8]; short s[4]; int i[2]; } m;
      m.l = vals[i];
      if (j & 1) m.i[1] = 7;
      printf("%d", widths(&m, vals[j], vals[j], vals[j], vals[j]));
      int k = (int)vals[i];
      printf("%d", store_between(&k, (int)vals[j]));
      k = (int)vals[i];
      printf("%d", call_between(&k, (int)vals[j]));
      k = (int)vals[i];
      printf("%d", volatile_load(&k, (int)vals[j]));
      printf("/%d ", two_uses(&k, (int)vals[j]));
    }
  }
  union { long l; unsigned char b[8]; short s[4]; int i[2]; } m = {0};
  m.s[1] = -5;
  m.i[1] = 20;
  printf("\n%d %d", widths(&m, 0, 100, 3, 0), widths(&m, 0, 100, 30, 0));
  unsigned short words[4] = {65535, 40000, 3, 0};
  unsigned char bytes[3] = {1, 2, 255};
  printf(" %ld %ld", narrow_zext(words, bytes), narrow_zext(words + 1, bytes + 1));
  void *p = &p;
  printf("\n%d %d\n", pointers(&p, p), pointers(&p, 0));
  return 0;
}
"#;

#[test]
fn folded_loads_run_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, expected) =
        support::outputs_of_ours_and_llc(dir.path(), MODULE, "folds.ll", OptLevel::O0, DRIVER);
    assert_eq!(ours, expected);
    // Every outcome of `widths` shows up, and the pointer compare goes both ways.
    for outcome in ["1", "2", "3", "\n40 50 105535001 40000002\n1 0\n"] {
        assert!(expected.contains(outcome), "{outcome} in {expected}");
    }
}

/// Selects `function` of the module above and compares its MIR with `expected`.
fn check(function: &str, expected: expect_test::Expect) {
    expected.assert_eq(&support::selected_mir(MODULE, "folds.ll", function));
}

#[test]
fn loads_of_every_width_become_compare_operands() {
    check(
        "widths",
        expect_test::expect![[r#"
        name: widths
        bb.0:  ; succ bb.1, bb.3
          %15 = COPY $rdi
          %16 = COPY $rsi
          %17 = COPY $rdx
          %18 = COPY $rcx
          %19 = COPY $r8
          CMP8 %16, [%15 + 1]
          JB bb.3
        bb.1:  ; succ bb.2, bb.4
          CMP16 [%15 + 2], %17
          JG bb.4
        bb.2:  ; succ bb.5, bb.6
          CMP32 [%15 + 4], 7
          JE bb.5
          CMP64 [%15], %19
          JLE bb.5
          JMP bb.6
        bb.3:
          %20 = MOV32 1
          $rax = COPY %20
          RET $rax
        bb.4:
          %21 = MOV32 2
          $rax = COPY %21
          RET $rax
        bb.5:
          %22 = MOV32 3
          $rax = COPY %22
          RET $rax
        bb.6:
          %23 = MOV32 40
          %24 = MOV32 50
          %14 = COPY %24
          CMP32 [%15 + 4], %18
          %14 = CMOVA32 %14, %23
          $rax = COPY %14
          RET $rax
    "#]],
    );
}

/// An `i8`/`i16` load is a `movzx` into 32 bits: its zero extension is a copy.
#[test]
fn narrow_loads_are_already_zero_extended() {
    check(
        "narrow_zext",
        expect_test::expect![[r#"
        name: narrow_zext
        bb.0:
          %10 = COPY $rdi
          %11 = COPY $rsi
          %0 = MOVZX32_16 [%10]
          %1 = MOVZX32_8 [%11]
          %2 = COPY %0
          %3 = COPY %1
          %5 = MOVZX32_16 [%10 + %3*2]
          %6 = COPY %5
          %7 = COPY %2
          %7 = ADD64 %7, %6
          %8 = IMUL64 %7, 1000
          %9 = COPY %8
          %9 = ADD64 %9, %3
          $rax = COPY %9
          RET $rax
    "#]],
    );
}

#[test]
fn a_store_between_keeps_the_load() {
    check(
        "store_between",
        expect_test::expect![[r#"
        name: store_between
        bb.0:  ; succ bb.1, bb.2
          %2 = COPY $rdi
          %3 = COPY $rsi
          %0 = LOAD32 [%2]
          STORE32 [%2], %3
          CMP32 %0, %3
          JGE bb.2
        bb.1:
          %4 = MOV32 1
          $rax = COPY %4
          RET $rax
        bb.2:
          %5 = MOV32 0
          $rax = COPY %5
          RET $rax
    "#]],
    );
}

#[test]
fn a_call_two_uses_or_volatile_keep_the_load() {
    check(
        "call_between",
        expect_test::expect![[r#"
            name: call_between
            bb.0:
              %3 = COPY $rdi
              %4 = COPY $rsi
              %0 = LOAD32 [%3]
              $rdi = COPY %3
              CALL @touch, args($rdi), rets()
              %1 = MOV32 0
              CMP32 %0, %4
              %1 = SETL
              %2 = COPY %1
              $rax = COPY %2
              RET $rax
        "#]],
    );
    check(
        "two_uses",
        expect_test::expect![[r#"
        name: two_uses
        bb.0:
          %3 = COPY $rdi
          %4 = COPY $rsi
          %0 = LOAD32 [%3]
          %2 = COPY %4
          CMP32 %0, %4
          %2 = CMOVB32 %2, %0
          $rax = COPY %2
          RET $rax
    "#]],
    );
    check(
        "volatile_load",
        expect_test::expect![[r#"
            name: volatile_load
            bb.0:
              %3 = COPY $rdi
              %4 = COPY $rsi
              %0 = LOAD32 [%3]
              %1 = MOV32 0
              CMP32 %0, %4
              %1 = SETE
              %2 = COPY %1
              $rax = COPY %2
              RET $rax
        "#]],
    );
}
