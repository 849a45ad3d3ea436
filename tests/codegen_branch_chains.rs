//! Branches on `i1` `and`/`or` (and their `select` forms) become chains of
//! conditional jumps with the compares fused in: the hand-written module
//! below covers `or`, `and`, `select a, true, b`, `select a, b, false`,
//! nesting that chains and nesting that does not, leaves that are not
//! compares (an argument, an fcmp), narrow and pointer compares and phis on
//! both targets (edge blocks). Compiled by dwarfsmith and by llc-19 and
//! linked with one C driver, both programs print the same thing; the MIR of
//! one function shows the chain.

mod support;

use dwarfsmith::OptLevel;

const MODULE: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @either(i32 %a, i32 %b) {
entry:
  %x = icmp slt i32 %a, 0
  %y = icmp ugt i32 %b, 100
  %c = or i1 %x, %y
  br i1 %c, label %yes, label %no
yes:
  ret i32 1
no:
  ret i32 2
}

define i32 @both(i8 %a, i64 %b) {
entry:
  %x = icmp eq i8 %a, 7
  %y = icmp sge i64 %b, -5
  %c = and i1 %x, %y
  br i1 %c, label %yes, label %no
yes:
  ret i32 3
no:
  ret i32 4
}

define i32 @logical_or_phis(i32 %a, i32 %b, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i32 [ %a, %entry ], [ %sum, %loop ]
  %sum = add i32 %acc, %b
  %next = add i32 %i, 1
  %big = icmp sgt i32 %sum, 1000
  %done = icmp eq i32 %next, %n
  %stop = select i1 %big, i1 true, i1 %done
  br i1 %stop, label %exit, label %loop
exit:
  %r = phi i32 [ %sum, %loop ]
  %k = mul i32 %next, 10000
  %out = add i32 %r, %k
  ret i32 %out
}

define i32 @logical_and_nested(i32 %a, i32 %b, i1 %flag, ptr %p, ptr %q) {
entry:
  %x = icmp ne i32 %a, %b
  %y = icmp ult ptr %p, %q
  %xy = select i1 %x, i1 %y, i1 false
  %all = and i1 %xy, %flag
  br i1 %all, label %yes, label %no
yes:
  %s = phi i32 [ 5, %entry ]
  ret i32 %s
no:
  %t = phi i32 [ 6, %entry ]
  ret i32 %t
}

define i32 @mixed_nesting(i32 %a, i32 %b, double %d) {
entry:
  %x = icmp sgt i32 %a, %b
  %y = icmp eq i32 %a, 3
  %f = fcmp olt double %d, 1.5
  %xy = and i1 %x, %y
  %c = or i1 %xy, %f
  br i1 %c, label %yes, label %no
yes:
  ret i32 7
no:
  ret i32 8
}

define i32 @or_of_ors(i16 %a, i16 %b, i16 %c) {
entry:
  %x = icmp eq i16 %a, 0
  %y = icmp eq i16 %b, 0
  %z = icmp eq i16 %c, 0
  %xy = or i1 %x, %y
  %all = or i1 %xy, %z
  br i1 %all, label %yes, label %no
yes:
  ret i32 9
no:
  ret i32 10
}

define i32 @shared_compare(i32 %a, i32 %b) {
entry:
  %x = icmp slt i32 %a, %b
  %y = icmp sgt i32 %b, 40
  %c = or i1 %x, %y
  br i1 %c, label %yes, label %no
yes:
  %z = zext i1 %x to i32
  ret i32 %z
no:
  ret i32 12
}
"#;

const DRIVER: &str = r#"
#include <stdio.h>
int either(int, int);
int both(signed char, long);
int logical_or_phis(int, int, int);
int logical_and_nested(int, int, _Bool, char *, char *);
int mixed_nesting(int, int, double);
int or_of_ors(short, short, short);
int shared_compare(int, int);
int main(void) {
  char buf[4];
  int ints[] = {-3, 0, 3, 7, 40, 101, 2000};
  long longs[] = {-6, -5, 0, 9};
  double doubles[] = {-1.0, 1.5, 2.0};
  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 7; j++)
      printf("%d%d%d%d ", either(ints[i], ints[j]), logical_or_phis(ints[i], ints[j], 5),
             shared_compare(ints[i], ints[j]), or_of_ors(ints[i] % 3, ints[j] % 7, ints[i] - 3));
  printf("\n");
  for (int i = 0; i < 7; i++)
    for (int k = 0; k < 4; k++) printf("%d", both(ints[i], longs[k]));
  printf("\n");
  for (int i = 0; i < 7; i++)
    for (int j = 0; j < 7; j++)
      for (int k = 0; k < 3; k++)
        printf("%d%d ", logical_and_nested(ints[i], ints[j], k != 1, buf + k, buf + 1),
               mixed_nesting(ints[i], ints[j], doubles[k]));
  printf("\n");
  return 0;
}
"#;

#[test]
fn branch_chains_run_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, expected) =
        support::outputs_of_ours_and_llc(dir.path(), MODULE, "chains.ll", OptLevel::O0, DRIVER);
    assert_eq!(ours, expected);
    // The grid is not degenerate: every outcome of every function shows up.
    for outcome in ["1", "2", "3", "4", "57", "67", "68", "9 ", "10 ", "12"] {
        assert!(expected.contains(outcome), "{outcome} in {expected}");
    }
}

/// Selects `function` of the module above and compares its MIR with `expected`.
fn check(function: &str, expected: expect_test::Expect) {
    expected.assert_eq(&support::selected_mir(MODULE, "chains.ll", function));
}

#[test]
fn logical_or_in_a_loop_is_two_jumps_and_no_boolean() {
    check(
        "logical_or_phis",
        expect_test::expect![[r#"
            name: logical_or_phis
            bb.0:  ; succ bb.1
              %10 = COPY $rdi
              %11 = COPY $rsi
              %12 = COPY $rdx
              %0 = MOV32 0
              %1 = COPY %10
            bb.1:  ; succ bb.2, bb.3
              %2 = COPY %1
              %2 = ADD32 %2, %11
              %3 = COPY %0
              %3 = ADD32 %3, 1
              CMP32 %2, 1000
              JG bb.2
              CMP32 %3, %12
              JNE bb.3
            bb.2:  ; succ bb.4
              %7 = COPY %2
              JMP bb.4
            bb.3:  ; succ bb.1
              %0 = COPY %3
              %1 = COPY %2
              JMP bb.1
            bb.4:
              %8 = IMUL32 %3, 10000
              %9 = COPY %7
              %9 = ADD32 %9, %8
              $rax = COPY %9
              RET $rax
        "#]],
    );
}

#[test]
fn and_inside_or_chains_only_as_far_as_one_block_allows() {
    check(
        "mixed_nesting",
        expect_test::expect![[r#"
        name: mixed_nesting
          %const.0: 0x3ff8000000000000
        bb.0:  ; succ bb.1, bb.2
          %5 = COPY $rdi
          %6 = COPY $rsi
          %7 = COPY $xmm0
          %0 = MOV32 0
          CMP32 %5, %6
          %0 = SETG
          %1 = MOV32 0
          CMP32 %5, 3
          %1 = SETE
          %8 = FLOAD64 [%const.0]
          %2 = MOV32 0
          UCOMIS64 %8, %7
          %2 = SETA
          %3 = COPY %0
          %3 = AND32 %3, %1
          TEST8 %3, 1
          JNE bb.1
          TEST8 %2, 1
          JE bb.2
        bb.1:
          %9 = MOV32 7
          $rax = COPY %9
          RET $rax
        bb.2:
          %10 = MOV32 8
          $rax = COPY %10
          RET $rax
    "#]],
    );
}
