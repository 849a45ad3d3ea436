//! Instruction selection beyond the corpus: a hand-written module using
//! what the corpus does not (external data through the GOT, initialised
//! global data with pointers, memcpy/memset, narrow unsigned division,
//! i1 stores, varargs calls, min/max, byte swaps, select on i64, a switch
//! on i8 with a jump table, more than six arguments with narrow signext
//! ones), compiled by dwarfsmith and by llc-19, each linked with the same C
//! driver: both programs print the same thing.

mod support;

use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::OptLevel;

const MODULE: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@ext_counter = external global i32, align 4
@table = dso_local global [4 x i16] [i16 10, i16 -20, i16 30, i16 -40], align 2
@message = private unnamed_addr constant [6 x i8] c"hello\00", align 1
@message_ptr = dso_local global ptr getelementptr inbounds ([6 x i8], ptr @message, i64 0, i64 1), align 8
@zeros = internal global [3 x i64] zeroinitializer, align 8
@flag = dso_local global i8 0, align 1
@fmt = private unnamed_addr constant [10 x i8] c"v=%d w=%s\00", align 1

declare i32 @printf(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.bswap.i32(i32)
declare i64 @llvm.bswap.i64(i64)

define i32 @bump_ext(i32 %by) {
  %old = load i32, ptr @ext_counter, align 4
  %new = add i32 %old, %by
  store i32 %new, ptr @ext_counter, align 4
  ret i32 %new
}

define i32 @table_sum() {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %sum, %loop ]
  %p = getelementptr inbounds [4 x i16], ptr @table, i64 0, i64 %i
  %v = load i16, ptr %p, align 2
  %w = sext i16 %v to i32
  %sum = add i32 %acc, %w
  %next = add i64 %i, 1
  %done = icmp eq i64 %next, 4
  br i1 %done, label %exit, label %loop
exit:
  ret i32 %sum
}

define i8 @second_char() {
  %p = load ptr, ptr @message_ptr, align 8
  %c = load i8, ptr %p, align 1
  ret i8 %c
}

define i64 @copy_and_clear(i64 %a, i64 %b) {
  %buf = alloca [3 x i64], align 8
  store i64 %a, ptr %buf, align 8
  %b1 = getelementptr inbounds i8, ptr %buf, i64 8
  store i64 %b, ptr %b1, align 8
  %b2 = getelementptr inbounds i8, ptr %buf, i64 16
  store i64 7, ptr %b2, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr @zeros, ptr %buf, i64 24, i1 false)
  call void @llvm.memset.p0.i64(ptr %buf, i8 0, i64 16, i1 false)
  %z1 = getelementptr inbounds i8, ptr @zeros, i64 8
  %x = load i64, ptr %z1, align 8
  %y = load i64, ptr %buf, align 8
  %z2 = getelementptr inbounds i8, ptr @zeros, i64 16
  %t = load i64, ptr %z2, align 8
  %s1 = add i64 %x, %y
  %s2 = mul i64 %s1, %t
  ret i64 %s2
}

define zeroext i8 @narrow_div(i8 zeroext %a, i8 zeroext %b) {
  %q = udiv i8 %a, %b
  %r = urem i8 %a, %b
  %s = shl i8 %q, 4
  %t = or i8 %s, %r
  ret i8 %t
}

define signext i16 @narrow_sdiv(i16 signext %a, i16 signext %b) {
  %q = sdiv i16 %a, %b
  %r = srem i16 %a, %b
  %m = mul i16 %q, 100
  %t = add i16 %m, %r
  ret i16 %t
}

define void @set_flag(i32 %x) {
  %c = icmp sgt i32 %x, 10
  store i1 %c, ptr @flag, align 1
  ret void
}

define zeroext i1 @odd(i32 %x) {
  %t = trunc i32 %x to i1
  ret i1 %t
}

define i32 @print_it(i32 %v) {
  %w = getelementptr inbounds [6 x i8], ptr @message, i64 0, i64 0
  %n = call i32 (ptr, ...) @printf(ptr @fmt, i32 %v, ptr %w)
  ret i32 %n
}

define i32 @minmax(i32 %a, i32 %b) {
  %lo = call i32 @llvm.smin.i32(i32 %a, i32 %b)
  %hi = call i32 @llvm.umax.i32(i32 %a, i32 %b)
  %d = sub i32 %hi, %lo
  ret i32 %d
}

define i64 @swaps(i32 %a, i64 %b) {
  %x = call i32 @llvm.bswap.i32(i32 %a)
  %y = call i64 @llvm.bswap.i64(i64 %b)
  %z = zext i32 %x to i64
  %s = xor i64 %y, %z
  ret i64 %s
}

define i64 @pick64(i64 %a, i64 %b, i64 %c) {
  %lt = icmp ult i64 %a, %b
  %s = select i1 %lt, i64 %c, i64 %a
  %u = ashr i64 %s, 3
  %v = lshr i64 %b, %c
  %w = add i64 %u, %v
  ret i64 %w
}

define i32 @byte_switch(i8 signext %k) {
entry:
  switch i8 %k, label %other [
    i8 -2, label %a
    i8 -1, label %b
    i8 0, label %c
    i8 1, label %d
    i8 3, label %e
    i8 100, label %f
  ]
a:
  br label %join
b:
  br label %join
c:
  br label %join
d:
  br label %join
e:
  br label %join
f:
  br label %join
other:
  unreachable
join:
  %r = phi i32 [ 11, %a ], [ 22, %b ], [ 33, %c ], [ 44, %d ], [ 55, %e ], [ 66, %f ]
  ret i32 %r
}

define i32 @sparse_switch(i32 %k) {
entry:
  switch i32 %k, label %other [
    i32 -1000, label %a
    i32 -7, label %b
    i32 5, label %c
    i32 40, label %d
    i32 41, label %e
    i32 42, label %c
    i32 44, label %f
    i32 300, label %a
    i32 5000, label %b
    i32 1048576, label %d
  ]
a:
  br label %join
b:
  br label %join
c:
  br label %join
d:
  br label %join
e:
  br label %join
f:
  br label %join
other:
  br label %join
join:
  %r = phi i32 [ 1, %a ], [ 2, %b ], [ 3, %c ], [ 4, %d ], [ 5, %e ], [ 6, %f ], [ -1, %other ]
  ret i32 %r
}

%struct.triple = type { i32, i32, i32 }

@triples = dso_local global [3 x %struct.triple] [%struct.triple { i32 1, i32 2, i32 3 }, %struct.triple { i32 4, i32 5, i32 6 }, %struct.triple { i32 7, i32 8, i32 9 }], align 4

define i32 @triple_field(i64 %i, i32 %j) {
  %f = getelementptr inbounds [3 x %struct.triple], ptr @triples, i64 0, i64 %i, i32 2
  %v = load i32, ptr %f, align 4
  %base = getelementptr inbounds %struct.triple, ptr @triples, i32 %j
  %w = load i32, ptr %base, align 4
  %s = mul i32 %v, 10
  %t = add i32 %s, %w
  ret i32 %t
}

define i32 @odd_widths(i32 %x, i32 %y) {
  %a = trunc i32 %x to i3
  %b = trunc i32 %y to i3
  %lt = icmp slt i3 %a, %b
  %ult = icmp ult i3 %a, %b
  %sa = sext i3 %a to i32
  %za = zext i3 %b to i32
  %l1 = zext i1 %lt to i32
  %l2 = zext i1 %ult to i32
  %l2s = shl i32 %l2, 1
  %m = or i32 %l1, %l2s
  %n = mul i32 %sa, 100
  %o = add i32 %n, %za
  %p = mul i32 %o, 10
  %q = add i32 %p, %m
  %c = trunc i32 %y to i8
  %amt = and i8 %c, 7
  %byte = trunc i32 %x to i8
  %sh = lshr i8 %byte, %amt
  %sh32 = zext i8 %sh to i32
  %r = mul i32 %q, 1000
  %out = add i32 %r, %sh32
  %odd = trunc i32 %x to i1
  %sel = select i1 %odd, i32 %out, i32 -1
  ret i32 %sel
}

define i64 @many(i8 signext %a, i16 zeroext %b, i32 %c, i64 %d, i32 %e, i32 %f, i8 signext %g, i16 signext %h, i64 %i) {
  %a1 = sext i8 %a to i64
  %b1 = zext i16 %b to i64
  %c1 = sext i32 %c to i64
  %e1 = sext i32 %e to i64
  %f1 = zext i32 %f to i64
  %g1 = sext i8 %g to i64
  %h1 = sext i16 %h to i64
  %s1 = add i64 %a1, %b1
  %s2 = add i64 %s1, %c1
  %s3 = add i64 %s2, %d
  %s4 = add i64 %s3, %e1
  %s5 = add i64 %s4, %f1
  %s6 = mul i64 %s5, %g1
  %s7 = add i64 %s6, %h1
  %s8 = sub i64 %s7, %i
  ret i64 %s8
}

define i64 @call_many(i32 %x) {
  %t = trunc i32 %x to i8
  %u = trunc i32 %x to i16
  %r = call i64 @many(i8 signext %t, i16 zeroext %u, i32 %x, i64 -5, i32 %x, i32 -1, i8 signext -3, i16 signext %u, i64 1000)
  ret i64 %r
}
"#;

const DRIVER: &str = r#"
#include <stdio.h>
#include <stdint.h>
int ext_counter = 5;
extern int8_t flag;
int bump_ext(int);
int table_sum(void);
char second_char(void);
long copy_and_clear(long, long);
unsigned char narrow_div(unsigned char, unsigned char);
short narrow_sdiv(short, short);
void set_flag(int);
_Bool odd(int);
int print_it(int);
int minmax(int, int);
long swaps(int, long);
long pick64(long, long, long);
int byte_switch(signed char);
long many(signed char, unsigned short, int, long, int, unsigned, signed char, short, long);
long call_many(int);
int sparse_switch(int);
int triple_field(long, int);
int odd_widths(int, int);
int main(void) {
  printf("%d %d\n", bump_ext(3), ext_counter);
  printf("%d %c\n", table_sum(), second_char());
  printf("%ld\n", copy_and_clear(40, 2));
  printf("%u %u\n", narrow_div(200, 7), narrow_div(9, 255));
  printf("%d %d\n", narrow_sdiv(-301, 7), narrow_sdiv(32000, -3));
  set_flag(11); printf("%d ", flag); set_flag(-4); printf("%d\n", flag);
  printf("%d %d\n", odd(7), odd(-8));
  printf(" %d\n", print_it(-42));
  printf("%d %d\n", minmax(2, 9), minmax(7, -9));
  printf("%lx\n", swaps(0x11223344, 0x0102030405060708L));
  printf("%ld %ld\n", pick64(-16, 5, 1), pick64(100, 200, 2));
  for (int k = -3; k <= 4; k++) if (k != 2 && k != -3 && k != 4) printf("%d ", byte_switch(k));
  printf("%d\n", byte_switch(100));
  int keys[] = {-1001, -1000, -999, -7, 0, 5, 39, 40, 41, 42, 43, 44, 45, 300, 5000, 1048576, 1048577};
  for (unsigned k = 0; k < sizeof keys / sizeof keys[0]; k++) printf("%d ", sparse_switch(keys[k]));
  printf("\n");
  printf("%d %d %d\n", triple_field(0, 1), triple_field(2, 2), triple_field(1, 0));
  for (int x = -9; x <= 9; x += 3) for (int y = -4; y <= 12; y += 5) printf("%d ", odd_widths(x * 37, y));
  printf("\n");
  printf("%ld %ld\n", many(-1, 65535, -3, 10, 4, 5, -2, -7, 9), call_many(-70000));
  return 0;
}
"#;

#[test]
fn breadth_module_runs_like_llc() {
    let dir = tempfile::tempdir().unwrap();
    let (ours, expected) =
        support::outputs_of_ours_and_llc(dir.path(), MODULE, "breadth.ll", OptLevel::O2, DRIVER);
    assert_eq!(ours, expected);
    // A sanity check that the comparison compares something.
    assert!(expected.contains("v=-42 w=hello"), "{expected}");
}

#[test]
fn sparse_switch_is_a_search_tree_with_a_table_leaf() {
    use dwarfsmith::codegen::isel::{select_function, IselOptions};
    let module = parse_module(MODULE, "breadth.ll").unwrap();
    let id = module.function_by_name("sparse_switch").unwrap();
    let selected = select_function(&module, id, &IselOptions { debug_info: false }).unwrap();
    expect_test::expect![[r#"
        name: sparse_switch
          %jump-table.0: bb.7, bb.8, bb.6, bb.10, bb.9
        bb.0:  ; succ bb.1, bb.2, bb.5, bb.7, bb.10
          %1 = COPY $rdi
          CMP32 %1, 40
          JL bb.1
          CMP32 %1, 5000
          JL bb.2
          CMP32 %1, 5000
          JE bb.5
          CMP32 %1, 1048576
          JE bb.7
          JMP bb.10
        bb.1:  ; succ bb.4, bb.5, bb.6, bb.10
          CMP32 %1, -1000
          JE bb.4
          CMP32 %1, -7
          JE bb.5
          CMP32 %1, 5
          JE bb.6
          JMP bb.10
        bb.2:  ; succ bb.3, bb.6, bb.7, bb.8, bb.9, bb.10
          %2 = COPY %1
          %2 = SUB32 %2, 40
          CMP32 %2, 4
          JA bb.3
          %3 = LEA [%jump-table.0]
          %4 = MOVSX64_32 [%3 + %2*4]
          %4 = ADD64 %4, %3
          JMP %4, %jump-table.0
        bb.3:  ; succ bb.4, bb.10
          CMP32 %1, 300
          JNE bb.10
        bb.4:  ; succ bb.11
          %0 = MOV32 1
          JMP bb.11
        bb.5:  ; succ bb.11
          %0 = MOV32 2
          JMP bb.11
        bb.6:  ; succ bb.11
          %0 = MOV32 3
          JMP bb.11
        bb.7:  ; succ bb.11
          %0 = MOV32 4
          JMP bb.11
        bb.8:  ; succ bb.11
          %0 = MOV32 5
          JMP bb.11
        bb.9:  ; succ bb.11
          %0 = MOV32 6
          JMP bb.11
        bb.10:  ; succ bb.11
          %0 = MOV32 -1
        bb.11:
          $rax = COPY %0
          RET $rax
    "#]]
    .assert_eq(&selected.mir.to_string());
}
