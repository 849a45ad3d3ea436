//! Each pass under debugify: the IR it prints (snapshots) and what
//! `--check-debugify` says it lost, plus the `opt` command line's flags.
//! Salvage is shown at work: `add %a, 4`, `add %a, %b`, trunc/sext with
//! `DW_OP_LLVM_convert`, and a GEP with a variable index.

mod support;

use dwarfsmith::ir::print::{print_module, DebugSyntax};
use dwarfsmith::opt::{debugify, parse_passes, run_pipeline, PipelineOptions};
use expect_test::{expect, Expect};
use support::*;

/// Debugifies `input`, runs `passes`, and compares the printed functions
/// (metadata left out) followed by the debugify check with `expected`.
fn check(passes: &str, input: &str, expected: Expect) {
    run(passes, input, true, expected)
}

/// Runs `passes` on `input` with its own debug info, and compares the
/// printed functions and the locations they name with `expected`.
fn check_real(passes: &str, input: &str, expected: Expect) {
    run(passes, input, false, expected)
}

fn run(passes: &str, input: &str, with_debugify: bool, expected: Expect) {
    let mut module = dwarfsmith::parse_and_verify(input, "test.ll").unwrap();
    let state = with_debugify.then(|| debugify::apply(&mut module, "test.ll"));
    let passes = parse_passes(passes).unwrap();
    let options = PipelineOptions {
        verify_each: true,
        file_name: "test.ll".into(),
        ..PipelineOptions::default()
    };
    run_pipeline(&mut module, &passes, &options).unwrap();
    let text = print_module(&module, DebugSyntax::Records);
    let code: String = text
        .lines()
        .filter(|l| !l.starts_with('!') && !l.is_empty())
        .skip_while(|l| !l.starts_with("define"))
        .map(|l| format!("{l}\n"))
        .collect();
    let tail = match &state {
        Some(state) => debugify::check(&module, Some(state)).unwrap().text(""),
        None => text
            .lines()
            .filter(|l| l.contains("DILocation(") || l.contains("DILocalVariable("))
            .map(|l| format!("{l}\n"))
            .collect(),
    };
    expected.assert_eq(&format!("{code}{tail}"));
}

#[test]
fn dce_salvages_constant_and_two_operand_binops_and_casts() {
    // `%bool` is C's `_Bool` parameter as clang -O0 stores it, a byte made
    // of an i1: the salvaged value is that bit. Comparisons are salvaged as
    // LLVM does (the constant's form says the predicate's signedness), but
    // an ordered comparison of two values, whose signedness nothing would
    // say, is not.
    check(
        "dce",
        r#"
define i32 @f(i32 %a, i32 %b, ptr %p, i64 %i, i1 zeroext %c) {
  %bool = zext i1 %c to i8
  %x = add i32 %a, 4
  %y = add i32 %a, %b
  %z = mul i32 %y, 3
  %t = trunc i32 %a to i16
  %s = sext i16 %t to i32
  %g = getelementptr i32, ptr %p, i64 %i
  %u = udiv i32 %a, %b
  %negative = icmp slt i32 %a, 0
  %big = icmp ugt i32 %b, -294967296
  %same = icmp eq i32 %a, %b
  %below = icmp ult i32 %a, %b
  ret i32 %a
}
"#,
        expect![[r#"
            define i32 @f(i32 %a, i32 %b, ptr %p, i64 %i, i1 zeroext %c) !dbg !5 {
                #dbg_value(i1 %c, !8, !DIExpression(DW_OP_constu, 1, DW_OP_and, DW_OP_stack_value), !10)
                #dbg_value(i32 %a, !11, !DIExpression(DW_OP_plus_uconst, 4, DW_OP_stack_value), !13)
                #dbg_value(!DIArgList(i32 %a, i32 %b), !14, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value), !15)
                #dbg_value(!DIArgList(i32 %a, i32 %b), !16, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_constu, 3, DW_OP_mul, DW_OP_stack_value), !17)
                #dbg_value(i32 %a, !18, !DIExpression(DW_OP_LLVM_convert, 32, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_stack_value), !20)
                #dbg_value(i32 %a, !21, !DIExpression(DW_OP_LLVM_convert, 32, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_unsigned, DW_OP_LLVM_convert, 16, DW_ATE_signed, DW_OP_LLVM_convert, 32, DW_ATE_signed, DW_OP_stack_value), !22)
                #dbg_value(!DIArgList(ptr %p, i64 %i), !23, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_constu, 4, DW_OP_mul, DW_OP_plus, DW_OP_stack_value), !25)
                #dbg_value(i32 poison, !26, !DIExpression(), !27)
                #dbg_value(i32 %a, !28, !DIExpression(DW_OP_consts, 0, DW_OP_lt, DW_OP_stack_value), !30)
                #dbg_value(i32 %b, !31, !DIExpression(DW_OP_constu, 18446744073414584320, DW_OP_gt, DW_OP_stack_value), !32)
                #dbg_value(!DIArgList(i32 %a, i32 %b), !33, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_eq, DW_OP_stack_value), !34)
                #dbg_value(i1 poison, !35, !DIExpression(), !36)
              ret i32 %a, !dbg !37
            }
            WARNING: Missing variable 8
            WARNING: Missing variable 12
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn mem2reg_under_debugify_keeps_every_location() {
    check(
        "mem2reg",
        r#"
define i32 @max(i32 %a, i32 %b) {
entry:
  %m = alloca i32, align 4
  store i32 %a, ptr %m, align 4
  %c = icmp slt i32 %a, %b
  br i1 %c, label %then, label %join
then:
  store i32 %b, ptr %m, align 4
  br label %join
join:
  %r = load i32, ptr %m, align 4
  ret i32 %r
}
"#,
        expect![[r#"
            define i32 @max(i32 %a, i32 %b) !dbg !5 {
            entry:
                #dbg_value(ptr poison, !8, !DIExpression(), !10)
              %c = icmp slt i32 %a, %b, !dbg !11
                #dbg_value(i1 %c, !12, !DIExpression(), !11)
              br i1 %c, label %then, label %join, !dbg !14
            then:
              br label %join, !dbg !15
            join:
              %m = phi i32 [ %a, %entry ], [ %b, %then ]
                #dbg_value(i32 %m, !16, !DIExpression(), !18)
              ret i32 %m, !dbg !19
            }
            WARNING: Missing variable 1
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn mem2reg_makes_values_of_declared_variables_at_stores_and_phis() {
    let input = std::fs::read_to_string(fixture("opt/max.O0.ll")).unwrap();
    check_real(
        "mem2reg",
        &input,
        expect![[r#"
        define dso_local i32 @max(i32 noundef %0, i32 noundef %1) !dbg !9 {
            #dbg_value(i32 %0, !14, !DIExpression(), !15)
            #dbg_value(i32 %1, !16, !DIExpression(), !17)
            #dbg_value(i32 %0, !18, !DIExpression(), !19)
          %3 = icmp slt i32 %0, %1, !dbg !20
          br i1 %3, label %4, label %5, !dbg !22
        4:
            #dbg_value(i32 %1, !18, !DIExpression(), !19)
          br label %5, !dbg !23
        5:
          %6 = phi i32 [ %0, %2 ], [ %1, %4 ]
            #dbg_value(i32 %6, !18, !DIExpression(), !19)
          ret i32 %6, !dbg !24
        }
        !14 = !DILocalVariable(name: "a", arg: 1, scope: !9, file: !1, line: 1, type: !12)
        !15 = !DILocation(line: 1, column: 13, scope: !9)
        !16 = !DILocalVariable(name: "b", arg: 2, scope: !9, file: !1, line: 1, type: !12)
        !17 = !DILocation(line: 1, column: 20, scope: !9)
        !18 = !DILocalVariable(name: "m", scope: !9, file: !1, line: 2, type: !12)
        !19 = !DILocation(line: 2, column: 7, scope: !9)
        !20 = !DILocation(line: 3, column: 9, scope: !21)
        !22 = !DILocation(line: 3, column: 7, scope: !9)
        !23 = !DILocation(line: 4, column: 5, scope: !21)
        !24 = !DILocation(line: 5, column: 3, scope: !9)
    "#]],
    );
}

#[test]
fn instcombine_preserves_rewrites_converts_replaced_truncs_and_merges_fused_ops() {
    check(
        "instcombine",
        r#"
define i64 @f(i32 %x, i8 %c, i32 %y) {
  %dbl = add i32 %x, %x
  %z = zext i8 %c to i32
  %s = sext i32 %z to i64
  %w = zext i32 %x to i64
  %t = trunc i64 %w to i32
  %a1 = add i32 %y, 1
  %a2 = add i32 %a1, 2
  %m = mul i32 %a2, 8
  %sum = add i32 %dbl, %t
  %sum2 = add i32 %sum, %m
  %e = sext i32 %sum2 to i64
  %r = add i64 %e, %s
  ret i64 %r
}
"#,
        expect![[r#"
            define i64 @f(i32 %x, i8 %c, i32 %y) !dbg !5 {
              %dbl = shl i32 %x, 1, !dbg !8
                #dbg_value(i32 %dbl, !9, !DIExpression(), !8)
              %z = zext i8 %c to i32, !dbg !11
                #dbg_value(i32 %z, !12, !DIExpression(), !11)
              %s = zext i8 %c to i64, !dbg !13
                #dbg_value(i64 %s, !14, !DIExpression(), !13)
              %w = zext i32 %x to i64, !dbg !16
                #dbg_value(i64 %w, !17, !DIExpression(), !16)
                #dbg_value(i32 %x, !18, !DIExpression(), !19)
              %a1 = add i32 %y, 1, !dbg !20
                #dbg_value(i32 %a1, !21, !DIExpression(), !20)
              %a2 = add i32 %y, 3, !dbg !22
                #dbg_value(i32 %a2, !23, !DIExpression(), !24)
              %m = shl i32 %a2, 3, !dbg !25
                #dbg_value(i32 %m, !26, !DIExpression(), !25)
              %sum = add i32 %dbl, %x, !dbg !27
                #dbg_value(i32 %sum, !28, !DIExpression(), !27)
              %sum2 = add i32 %sum, %m, !dbg !29
                #dbg_value(i32 %sum2, !30, !DIExpression(), !29)
              %e = sext i32 %sum2 to i64, !dbg !31
                #dbg_value(i64 %e, !32, !DIExpression(), !31)
              %r = add i64 %e, %s, !dbg !33
                #dbg_value(i64 %r, !34, !DIExpression(), !33)
              ret i64 %r, !dbg !35
            }
            WARNING: Missing line 7
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn simplifycfg_folds_blocks_into_unconditional_predecessors_and_keeps_locations() {
    check(
        "simplifycfg",
        r#"
define i32 @f(i32 %x) {
entry:
  %a = add i32 %x, 1
  br label %next
next:
  %b = mul i32 %a, 3
  br i1 true, label %yes, label %no
yes:
  %c = sub i32 %b, 2
  br label %join
no:
  %d = sub i32 %b, 5
  br label %join
join:
  %p = phi i32 [ %c, %yes ], [ %d, %no ]
  ret i32 %p
}
"#,
        expect![[r#"
            define i32 @f(i32 %x) !dbg !5 {
            entry:
              %a = add i32 %x, 1, !dbg !8
                #dbg_value(i32 %a, !9, !DIExpression(), !8)
              %b = mul i32 %a, 3, !dbg !11
                #dbg_value(i32 %b, !12, !DIExpression(), !11)
              %c = sub i32 %b, 2, !dbg !13
                #dbg_value(i32 %c, !14, !DIExpression(), !13)
                #dbg_value(i32 %c, !15, !DIExpression(), !16)
              ret i32 %c, !dbg !17
            }
            WARNING: Missing variable 4
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn the_o2_pipeline_csv_of_sum_array_shows_only_merges_losing_lines() {
    let input = std::fs::read_to_string(fixture("ll/sum_array.O0.ll")).unwrap();
    let mut module = dwarfsmith::parse_and_verify(&input, "sum_array.O0.ll").unwrap();
    let options = PipelineOptions {
        debugify_each: true,
        verify_each: true,
        file_name: "sum_array.O0.ll".into(),
        ..PipelineOptions::default()
    };
    let report = run_pipeline(&mut module, &dwarfsmith::opt::level_pipeline(2), &options).unwrap();
    expect![[r#"
        Pass Name,# of missing debug values,# of missing locations,Missing/Expected value ratio,Missing/Expected location ratio
        declare-to-assign,0,0,0.000000e+00,0.000000e+00
        sroa,0,0,0.000000e+00,0.000000e+00
        mem2reg,12,0,2.400000e-01,0.000000e+00
        instcombine,0,0,0.000000e+00,0.000000e+00
        simplifycfg,0,0,0.000000e+00,0.000000e+00
        inline,0,0,0.000000e+00,0.000000e+00
        instcombine,0,0,0.000000e+00,0.000000e+00
        simplifycfg,0,0,0.000000e+00,0.000000e+00
        hoist-common,0,0,0.000000e+00,0.000000e+00
        mldst-motion,0,0,0.000000e+00,0.000000e+00
        speculate-diamonds,0,0,0.000000e+00,0.000000e+00
        loop-rotate,0,0,0.000000e+00,0.000000e+00
        early-cse,0,1,0.000000e+00,2.702703e-02
        dse,0,0,0.000000e+00,0.000000e+00
        licm,0,0,0.000000e+00,0.000000e+00
        lsr,0,0,0.000000e+00,0.000000e+00
        licm,0,0,0.000000e+00,0.000000e+00
        dce,0,0,0.000000e+00,0.000000e+00
        instcombine,0,0,0.000000e+00,0.000000e+00
        sink,0,0,0.000000e+00,0.000000e+00
        simplifycfg,0,0,0.000000e+00,0.000000e+00
        dce,0,0,0.000000e+00,0.000000e+00
        split-backedges,0,2,0.000000e+00,5.555556e-02
    "#]].assert_eq(&report.csv());
}

#[test]
fn opt_command_line_prints_stops_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("opt/max.O0.ll");
    let output = dir.path().join("out.ll");
    let out = dwarfsmith(&[
        "opt",
        input.to_str().unwrap(),
        "--passes=mem2reg,instcombine,simplifycfg",
        "--print-after=mem2reg",
        "--stop-after=instcombine",
        "--debugify",
        "--check-debugify",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("; *** IR Dump After mem2reg ***\n"));
    assert_eq!(stderr.matches("IR Dump After").count(), 1);
    assert!(stderr.ends_with("CheckModuleDebugify: PASS\n"), "{stderr}");
    // Stopped before simplifycfg: the three blocks are still there.
    let printed = std::fs::read_to_string(&output).unwrap();
    assert_eq!(printed.matches("br label").count(), 1, "{printed}");

    let out = dwarfsmith(&[
        "opt",
        input.to_str().unwrap(),
        "--passes=mem2reg,nosuchpass",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "{}: error: unknown pass 'nosuchpass' (known: declare-to-assign, sroa, mem2reg, instcombine, simplifycfg, speculate-diamonds, inline, early-cse, licm, loop-rotate, lsr, dce, dse, sink, mldst-motion, hoist-common, tail-dup, split-backedges)\n",
            input.display()
        )
    );
}

#[test]
fn early_cse_merges_the_locations_of_a_duplicate_and_its_original() {
    check(
        "early-cse",
        r#"
define i32 @f(i32 %x, i32 %y, i1 %c) {
entry:
  %a = mul i32 %x, %y
  br i1 %c, label %then, label %join
then:
  %b = mul i32 %x, %y
  %d = add i32 %b, 1
  br label %join
join:
  %p = phi i32 [ %a, %entry ], [ %d, %then ]
  %e = mul i32 %x, %y
  %r = add i32 %p, %e
  ret i32 %r
}
"#,
        expect![[r#"
            define i32 @f(i32 %x, i32 %y, i1 %c) !dbg !5 {
            entry:
              %a = mul i32 %x, %y, !dbg !8
                #dbg_value(i32 %a, !9, !DIExpression(), !11)
              br i1 %c, label %then, label %join, !dbg !12
            then:
                #dbg_value(i32 %a, !13, !DIExpression(), !14)
              %d = add i32 %a, 1, !dbg !15
                #dbg_value(i32 %d, !16, !DIExpression(), !15)
              br label %join, !dbg !17
            join:
              %p = phi i32 [ %a, %entry ], [ %d, %then ], !dbg !18
                #dbg_value(i32 %p, !19, !DIExpression(), !18)
                #dbg_value(i32 %a, !20, !DIExpression(), !21)
              %r = add i32 %p, %a, !dbg !22
                #dbg_value(i32 %r, !23, !DIExpression(), !22)
              ret i32 %r, !dbg !24
            }
            WARNING: Missing line 1
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn licm_hoists_invariants_to_the_preheader_and_drops_their_lines() {
    check(
        "licm",
        r#"
define i64 @f(ptr %m, i64 %row, i64 %n) {
entry:
  br label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %sum, %loop ]
  %base = mul i64 %row, 400
  %rowp = getelementptr i32, ptr %m, i64 %base
  %cell = getelementptr i32, ptr %rowp, i64 %j
  %v = load i32, ptr %cell
  %w = sext i32 %v to i64
  %sum = add i64 %acc, %w
  %next = add i64 %j, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %sum
}
"#,
        expect![[r#"
            define i64 @f(ptr %m, i64 %row, i64 %n) !dbg !5 {
            entry:
              %base = mul i64 %row, 400, !dbg !8
              %rowp = getelementptr i32, ptr %m, i64 %base, !dbg !8
              br label %loop, !dbg !9
            loop:
              %j = phi i64 [ 0, %entry ], [ %next, %loop ], !dbg !10
              %acc = phi i64 [ 0, %entry ], [ %sum, %loop ], !dbg !11
                #dbg_value(i64 %j, !12, !DIExpression(), !10)
                #dbg_value(i64 %acc, !14, !DIExpression(), !11)
                #dbg_value(i64 %base, !15, !DIExpression(), !16)
                #dbg_value(ptr %rowp, !17, !DIExpression(), !18)
              %cell = getelementptr i32, ptr %rowp, i64 %j, !dbg !19
                #dbg_value(ptr %cell, !20, !DIExpression(), !19)
              %v = load i32, ptr %cell, !dbg !21
                #dbg_value(i32 %v, !22, !DIExpression(), !21)
              %w = sext i32 %v to i64, !dbg !24
                #dbg_value(i64 %w, !25, !DIExpression(), !24)
              %sum = add i64 %acc, %w, !dbg !26
                #dbg_value(i64 %sum, !27, !DIExpression(), !26)
              %next = add i64 %j, 1, !dbg !28
                #dbg_value(i64 %next, !29, !DIExpression(), !28)
              %done = icmp eq i64 %next, %n, !dbg !30
                #dbg_value(i1 %done, !31, !DIExpression(), !30)
              br i1 %done, label %exit, label %loop, !dbg !33
            exit:
              ret i64 %sum, !dbg !34
            }
            WARNING: Missing line 4
            WARNING: Missing line 5
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn sroa_splits_a_struct_into_fragments_that_mem2reg_promotes() {
    let input = std::fs::read_to_string(fixture("opt/pt.O0.ll")).unwrap();
    check_real(
        "sroa",
        &input,
        expect![[r#"
        define dso_local i64 @flip(i64 %0) !dbg !9 {
          %2 = alloca i32, align 4
          %3 = alloca i32, align 4
          %4 = alloca i32, align 4
          %5 = alloca i32, align 4
          %6 = trunc i64 %0 to i32
          store i32 %6, ptr %4
          %7 = lshr i64 %0, 32
          %8 = trunc i64 %7 to i32
          store i32 %8, ptr %5
            #dbg_declare(ptr %4, !18, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !19)
            #dbg_declare(ptr %5, !18, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !19)
            #dbg_declare(ptr %2, !20, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !21)
            #dbg_declare(ptr %3, !20, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !21)
          %9 = load i32, ptr %5, align 4, !dbg !22
          store i32 %9, ptr %2, align 4, !dbg !23
          %10 = load i32, ptr %4, align 4, !dbg !24
          store i32 %10, ptr %3, align 4, !dbg !25
          %11 = load i32, ptr %2, !dbg !26
          %12 = zext i32 %11 to i64, !dbg !26
          %13 = load i32, ptr %3, !dbg !26
          %14 = zext i32 %13 to i64, !dbg !26
          %15 = shl i64 %14, 32, !dbg !26
          %16 = or i64 %12, %15, !dbg !26
          ret i64 %16, !dbg !26
        }
        !18 = !DILocalVariable(name: "p", arg: 1, scope: !9, file: !1, line: 2, type: !12)
        !19 = !DILocation(line: 2, column: 26, scope: !9)
        !20 = !DILocalVariable(name: "q", scope: !9, file: !1, line: 3, type: !12)
        !21 = !DILocation(line: 3, column: 13, scope: !9)
        !22 = !DILocation(line: 4, column: 11, scope: !9)
        !23 = !DILocation(line: 4, column: 7, scope: !9)
        !24 = !DILocation(line: 5, column: 11, scope: !9)
        !25 = !DILocation(line: 5, column: 7, scope: !9)
        !26 = !DILocation(line: 6, column: 3, scope: !9)
    "#]],
    );
    check_real(
        "sroa,mem2reg",
        &input,
        expect![[r#"
        define dso_local i64 @flip(i64 %0) !dbg !9 {
          %2 = trunc i64 %0 to i32
            #dbg_value(i32 %2, !18, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !19)
          %3 = lshr i64 %0, 32
          %4 = trunc i64 %3 to i32
            #dbg_value(i32 %4, !18, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !19)
            #dbg_value(i32 %4, !20, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !21)
            #dbg_value(i32 %2, !20, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !21)
          %5 = zext i32 %4 to i64, !dbg !22
          %6 = zext i32 %2 to i64, !dbg !22
          %7 = shl i64 %6, 32, !dbg !22
          %8 = or i64 %5, %7, !dbg !22
          ret i64 %8, !dbg !22
        }
        !18 = !DILocalVariable(name: "p", arg: 1, scope: !9, file: !1, line: 2, type: !12)
        !19 = !DILocation(line: 2, column: 26, scope: !9)
        !20 = !DILocalVariable(name: "q", scope: !9, file: !1, line: 3, type: !12)
        !21 = !DILocation(line: 3, column: 13, scope: !9)
        !22 = !DILocation(line: 6, column: 3, scope: !9)
    "#]],
    );
}

#[test]
fn inline_copies_a_small_callee_with_inlined_at_locations() {
    let input = std::fs::read_to_string(fixture("opt/inl.O0.ll")).unwrap();
    check_real(
        "mem2reg,inline,simplifycfg",
        &input,
        expect![[r#"
        define dso_local i32 @f(i32 noundef %0) !dbg !9 {
            #dbg_value(i32 %0, !14, !DIExpression(), !15)
            #dbg_value(i32 %0, !16, !DIExpression(), !18)
          %2 = mul nsw i32 %0, %0, !dbg !20
            #dbg_value(i32 %2, !21, !DIExpression(), !22)
          %3 = add nsw i32 %2, 1, !dbg !23
            #dbg_value(i32 %3, !24, !DIExpression(), !25)
          ret i32 %3, !dbg !26
        }
        define internal i32 @sq(i32 noundef %0) !dbg !17 {
            #dbg_value(i32 %0, !16, !DIExpression(), !27)
          %2 = mul nsw i32 %0, %0, !dbg !28
            #dbg_value(i32 %2, !21, !DIExpression(), !29)
          ret i32 %2, !dbg !30
        }
        !14 = !DILocalVariable(name: "a", arg: 1, scope: !9, file: !1, line: 5, type: !12)
        !15 = !DILocation(line: 5, column: 11, scope: !9)
        !16 = !DILocalVariable(name: "x", arg: 1, scope: !17, file: !1, line: 1, type: !12)
        !18 = !DILocation(line: 1, column: 19, scope: !17, inlinedAt: !19)
        !19 = !DILocation(line: 6, column: 11, scope: !9)
        !20 = !DILocation(line: 2, column: 13, scope: !17, inlinedAt: !19)
        !21 = !DILocalVariable(name: "y", scope: !17, file: !1, line: 2, type: !12)
        !22 = !DILocation(line: 2, column: 7, scope: !17, inlinedAt: !19)
        !23 = !DILocation(line: 6, column: 17, scope: !9)
        !24 = !DILocalVariable(name: "b", scope: !9, file: !1, line: 6, type: !12)
        !25 = !DILocation(line: 6, column: 7, scope: !9)
        !26 = !DILocation(line: 7, column: 3, scope: !9)
        !27 = !DILocation(line: 1, column: 19, scope: !17)
        !28 = !DILocation(line: 2, column: 13, scope: !17)
        !29 = !DILocation(line: 2, column: 7, scope: !17)
        !30 = !DILocation(line: 3, column: 3, scope: !17)
    "#]],
    );
}

#[test]
fn inline_stops_on_mutual_recursion_after_one_level() {
    check(
        "inline",
        r#"
define i32 @even(i32 %n) {
  %r = call i32 @odd(i32 %n)
  ret i32 %r
}
define i32 @odd(i32 %n) {
  %r = call i32 @even(i32 %n)
  ret i32 %r
}
"#,
        expect![[r#"
            define i32 @even(i32 %n) !dbg !5 {
              br label %2, !dbg !8
            1:
                #dbg_value(i32 %r, !9, !DIExpression(), !8)
              ret i32 %r, !dbg !11
            2:
              %r = call i32 @even(i32 %n), !dbg !12
                #dbg_value(i32 %r, !16, !DIExpression(), !12)
              br label %1, !dbg !8
            }
            define i32 @odd(i32 %n) !dbg !13 {
              br label %2, !dbg !17
            1:
                #dbg_value(i32 %r, !16, !DIExpression(), !17)
              ret i32 %r, !dbg !18
            2:
              %r = call i32 @odd(i32 %n), !dbg !19
                #dbg_value(i32 %r, !9, !DIExpression(), !19)
              br label %1, !dbg !17
            }
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn inline_honours_noinline_unless_clang_o0_marked_every_function() {
    // @keep is the programmer's noinline (clang -O2 IR): never inlined.
    check(
        "inline",
        r#"
define i32 @keep(i32 %x) #0 {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @take(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}
define i32 @main() {
  %a = call i32 @keep(i32 1)
  %b = call i32 @take(i32 %a)
  ret i32 %b
}
attributes #0 = { noinline nounwind }
"#,
        expect![[r#"
            define i32 @keep(i32 %x) #0 !dbg !5 {
              %y = add i32 %x, 1, !dbg !8
                #dbg_value(i32 %y, !9, !DIExpression(), !8)
              ret i32 %y, !dbg !11
            }
            define i32 @take(i32 %x) !dbg !12 {
              %y = mul i32 %x, 3, !dbg !15
                #dbg_value(i32 %y, !16, !DIExpression(), !15)
              ret i32 %y, !dbg !17
            }
            define i32 @main() !dbg !18 {
              %a = call i32 @keep(i32 1), !dbg !21
                #dbg_value(i32 %a, !22, !DIExpression(), !21)
              br label %2, !dbg !23
            1:
                #dbg_value(i32 %y, !24, !DIExpression(), !23)
              ret i32 %y, !dbg !25
            2:
              %y = mul i32 %a, 3, !dbg !26
                #dbg_value(i32 %y, !16, !DIExpression(), !26)
              br label %1, !dbg !23
            }
            attributes #0 = { noinline nounwind }
            CheckModuleDebugify: PASS
        "#]],
    );
    // clang -O0 marks every function noinline: that is not the
    // programmer's, and -O2 on such IR inlines as if it were absent.
    check(
        "inline",
        r#"
define i32 @keep(i32 %x) #0 {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @main() #0 {
  %a = call i32 @keep(i32 1)
  ret i32 %a
}
attributes #0 = { noinline nounwind }
"#,
        expect![[r#"
            define i32 @keep(i32 %x) #0 !dbg !5 {
              %y = add i32 %x, 1, !dbg !8
                #dbg_value(i32 %y, !9, !DIExpression(), !8)
              ret i32 %y, !dbg !11
            }
            define i32 @main() #0 !dbg !12 {
              br label %2, !dbg !15
            1:
                #dbg_value(i32 %y, !16, !DIExpression(), !15)
              ret i32 %y, !dbg !17
            2:
              %y = add i32 1, 1, !dbg !18
                #dbg_value(i32 %y, !9, !DIExpression(), !18)
              br label %1, !dbg !15
            }
            attributes #0 = { noinline nounwind }
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn speculate_diamonds_turns_a_diamond_into_a_select_dropping_speculated_lines() {
    check(
        "speculate-diamonds",
        r#"
define i32 @f(i32 %x, i32 %y) {
entry:
  %c = icmp slt i32 %x, %y
  br i1 %c, label %small, label %big
small:
  %s = add i32 %x, 1
  br label %join
big:
  %b = sub i32 %y, 1
  br label %join
join:
  %m = phi i32 [ %s, %small ], [ %b, %big ]
  %r = mul i32 %m, 2
  ret i32 %r
}
"#,
        expect![[r#"
            define i32 @f(i32 %x, i32 %y) !dbg !5 {
            entry:
              %c = icmp slt i32 %x, %y, !dbg !8
              %s = add i32 %x, 1, !dbg !9
              %b = sub i32 %y, 1, !dbg !9
              %m = select i1 %c, i32 %s, i32 %b, !dbg !9
                #dbg_value(i1 %c, !10, !DIExpression(), !8)
                #dbg_value(ptr poison, !12, !DIExpression(), !14)
                #dbg_value(ptr poison, !15, !DIExpression(), !16)
                #dbg_value(i32 %m, !17, !DIExpression(), !18)
              %r = mul i32 %m, 2, !dbg !19
                #dbg_value(i32 %r, !20, !DIExpression(), !19)
              ret i32 %r, !dbg !21
            }
            WARNING: Missing line 3
            WARNING: Missing line 5
            WARNING: Missing variable 2
            WARNING: Missing variable 3
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn a_function_whose_blocks_are_named_by_blockaddress_is_left_as_it_is() {
    // A computed-goto dispatch table in a global names the blocks of @f:
    // removing or renumbering them (the dead %unused, the foldable %two)
    // would make the table name other blocks. Every other function is
    // optimised as usual (@g's dead add goes).
    check_real(
        "simplifycfg,dce,instcombine",
        r#"
@table = internal constant [2 x ptr] [ptr blockaddress(@f, %one), ptr blockaddress(@f, %two)]

define i32 @f(i64 %i) {
  %slot = getelementptr [2 x ptr], ptr @table, i64 0, i64 %i
  %target = load ptr, ptr %slot
  indirectbr ptr %target, [label %one, label %two]
unused:
  br label %one
one:
  ret i32 1
two:
  %dead = add i32 0, 2
  br label %done
done:
  ret i32 2
}

define i32 @g(i32 %a) {
  %dead = add i32 %a, 1
  ret i32 %a
}
"#,
        expect![[r#"
            define i32 @f(i64 %i) {
              %slot = getelementptr [2 x ptr], ptr @table, i64 0, i64 %i
              %target = load ptr, ptr %slot
              indirectbr ptr %target, [label %one, label %two]
            unused:
              br label %one
            one:
              ret i32 1
            two:
              %dead = add i32 0, 2
              br label %done
            done:
              ret i32 2
            }
            define i32 @g(i32 %a) {
              ret i32 %a
            }
        "#]],
    );
}

#[test]
fn loop_rotate_makes_a_guarded_do_while_and_keeps_every_line() {
    check(
        "loop-rotate",
        r#"
define i32 @f(ptr %p, i32 %n) {
entry:
  br label %head
head:
  %i = phi i32 [ 0, %entry ], [ %next, %body ]
  %sum = phi i32 [ 0, %entry ], [ %acc, %body ]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %body, label %exit
body:
  %wide = sext i32 %i to i64
  %cell = getelementptr i32, ptr %p, i64 %wide
  %v = load i32, ptr %cell
  %acc = add i32 %sum, %v
  %next = add nsw i32 %i, 1
  br label %head
exit:
  ret i32 %sum
}
"#,
        expect![[r#"
            define i32 @f(ptr %p, i32 %n) !dbg !5 {
            entry:
                #dbg_value(i32 0, !8, !DIExpression(), !10)
                #dbg_value(i32 0, !11, !DIExpression(), !12)
              %0 = icmp slt i32 0, %n, !dbg !13
                #dbg_value(i1 %0, !14, !DIExpression(), !13)
              br i1 %0, label %head, label %exit, !dbg !16
            head:
              br label %body, !dbg !17
            body:
              %i = phi i32 [ 0, %head ], [ %next, %body ], !dbg !10
              %sum = phi i32 [ 0, %head ], [ %acc, %body ], !dbg !12
                #dbg_value(i32 %i, !8, !DIExpression(), !10)
                #dbg_value(i32 %sum, !11, !DIExpression(), !12)
                #dbg_value(i1 poison, !14, !DIExpression(), !13)
              %wide = sext i32 %i to i64, !dbg !18
                #dbg_value(i64 %wide, !19, !DIExpression(), !18)
              %cell = getelementptr i32, ptr %p, i64 %wide, !dbg !21
                #dbg_value(ptr %cell, !22, !DIExpression(), !21)
              %v = load i32, ptr %cell, !dbg !23
                #dbg_value(i32 %v, !24, !DIExpression(), !23)
              %acc = add i32 %sum, %v, !dbg !25
                #dbg_value(i32 %acc, !26, !DIExpression(), !25)
              %next = add nsw i32 %i, 1, !dbg !27
                #dbg_value(i32 %next, !28, !DIExpression(), !27)
              %1 = icmp slt i32 %next, %n, !dbg !13
              br i1 %1, label %body, label %2, !dbg !29
            2:
              br label %exit, !dbg !17
            exit:
              %3 = phi i32 [ 0, %entry ], [ %acc, %2 ], !dbg !12
                #dbg_value(i32 %3, !11, !DIExpression(), !12)
              ret i32 %3, !dbg !30
            }
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn lsr_turns_a_row_address_into_a_pointer_induction_variable_and_dce_salvages_the_rest() {
    check(
        "lsr,dce",
        r#"
define i64 @f(ptr %a, i32 %row, i32 %n) {
entry:
  %base = mul nsw i32 %row, %n
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %sum, %loop ]
  %at = add nsw i32 %base, %k
  %wide = sext i32 %at to i64
  %cell = getelementptr inbounds i64, ptr %a, i64 %wide
  %v = load i64, ptr %cell
  %sum = add i64 %acc, %v
  %next = add nsw i32 %k, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i64 %sum
}
"#,
        expect![[r#"
            define i64 @f(ptr %a, i32 %row, i32 %n) !dbg !5 {
            entry:
              %base = mul nsw i32 %row, %n, !dbg !8
              %0 = sext i32 %base to i64, !dbg !9
              %1 = getelementptr i64, ptr %a, i64 %0, !dbg !9
                #dbg_value(i32 %base, !10, !DIExpression(), !8)
              br label %loop, !dbg !12
            loop:
              %2 = phi ptr [ %1, %entry ], [ %3, %loop ], !dbg !9
              %k = phi i32 [ 0, %entry ], [ %next, %loop ], !dbg !13
              %acc = phi i64 [ 0, %entry ], [ %sum, %loop ], !dbg !14
                #dbg_value(i32 %k, !15, !DIExpression(), !13)
                #dbg_value(i64 %acc, !16, !DIExpression(), !14)
                #dbg_value(!DIArgList(i32 %base, i32 %k), !18, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value), !19)
                #dbg_value(!DIArgList(i32 %base, i32 %k), !20, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_LLVM_convert, 32, DW_ATE_signed, DW_OP_LLVM_convert, 64, DW_ATE_signed, DW_OP_stack_value), !21)
                #dbg_value(ptr %2, !22, !DIExpression(), !23)
              %v = load i64, ptr %2, !dbg !24
                #dbg_value(i64 %v, !25, !DIExpression(), !24)
              %sum = add i64 %acc, %v, !dbg !26
                #dbg_value(i64 %sum, !27, !DIExpression(), !26)
              %next = add nsw i32 %k, 1, !dbg !28
                #dbg_value(i32 %next, !29, !DIExpression(), !28)
              %more = icmp slt i32 %next, %n, !dbg !30
              %3 = getelementptr i64, ptr %2, i64 1, !dbg !23
                #dbg_value(i1 %more, !31, !DIExpression(), !30)
              br i1 %more, label %loop, label %exit, !dbg !33
            exit:
              ret i64 %sum, !dbg !34
            }
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn lsr_steps_a_column_address_by_an_invariant_stride() {
    check_real(
        "lsr",
        r#"
define i64 @f(ptr %b, i32 %col, i32 %n) {
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i64 [ 0, %entry ], [ %sum, %loop ]
  %rowk = mul nsw i32 %k, %n
  %at = add nsw i32 %rowk, %col
  %wide = sext i32 %at to i64
  %cell = getelementptr inbounds i64, ptr %b, i64 %wide
  %v = load i64, ptr %cell
  %sum = add i64 %acc, %v
  %next = add nsw i32 %k, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i64 %sum
}
"#,
        expect![[r#"
            define i64 @f(ptr %b, i32 %col, i32 %n) {
            entry:
              %0 = sext i32 %n to i64
              %1 = sext i32 %col to i64
              %2 = getelementptr i64, ptr %b, i64 %1
              br label %loop
            loop:
              %3 = phi ptr [ %2, %entry ], [ %4, %loop ]
              %k = phi i32 [ 0, %entry ], [ %next, %loop ]
              %acc = phi i64 [ 0, %entry ], [ %sum, %loop ]
              %rowk = mul nsw i32 %k, %n
              %at = add nsw i32 %rowk, %col
              %wide = sext i32 %at to i64
              %cell = getelementptr inbounds i64, ptr %b, i64 %wide
              %v = load i64, ptr %3
              %sum = add i64 %acc, %v
              %next = add nsw i32 %k, 1
              %more = icmp slt i32 %next, %n
              %4 = getelementptr i64, ptr %3, i64 %0
              br i1 %more, label %loop, label %exit
            exit:
              ret i64 %sum
            }
        "#]],
    );
}

#[test]
fn lsr_leaves_an_index_without_nsw_under_sext_alone() {
    check_real(
        "lsr",
        r#"
define i64 @f(ptr %a, i32 %base, i32 %n) {
entry:
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %next, %loop ]
  %at = add i32 %base, %k
  %wide = sext i32 %at to i64
  %cell = getelementptr inbounds i64, ptr %a, i64 %wide
  %v = load i64, ptr %cell
  %next = add nsw i32 %k, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i64 %v
}
"#,
        expect![[r#"
            define i64 @f(ptr %a, i32 %base, i32 %n) {
            entry:
              br label %loop
            loop:
              %k = phi i32 [ 0, %entry ], [ %next, %loop ]
              %at = add i32 %base, %k
              %wide = sext i32 %at to i64
              %cell = getelementptr inbounds i64, ptr %a, i64 %wide
              %v = load i64, ptr %cell
              %next = add nsw i32 %k, 1
              %more = icmp slt i32 %next, %n
              br i1 %more, label %loop, label %exit
            exit:
              ret i64 %v
            }
        "#]],
    );
}

#[test]
fn split_backedges_gives_a_phi_edge_of_a_bottom_test_its_own_block_before_the_loop() {
    check(
        "split-backedges",
        r#"
define i32 @f(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i32 %next
}
"#,
        expect![[r#"
            define i32 @f(i32 %n) !dbg !5 {
            entry:
              br label %loop, !dbg !8
            0:
              br label %loop, !dbg !8
            loop:
              %i = phi i32 [ 0, %entry ], [ %next, %0 ], !dbg !9
                #dbg_value(i32 %i, !10, !DIExpression(), !9)
              %next = add i32 %i, 1, !dbg !12
                #dbg_value(i32 %next, !13, !DIExpression(), !12)
              %more = icmp slt i32 %next, %n, !dbg !14
                #dbg_value(i1 %more, !15, !DIExpression(), !14)
              br i1 %more, label %0, label %exit, !dbg !17
            exit:
              ret i32 %next, !dbg !18
            }
            WARNING: Missing line 1
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn instcombine_folds_loads_of_constant_globals_but_never_of_interposable_ones() {
    check_real(
        "instcombine",
        r#"
@weak = weak constant i32 7
@linkonce = linkonce constant i32 8
@strong = constant i32 9
@mutable = global i32 10

define i32 @f() {
  %a = load i32, ptr @weak
  %b = load i32, ptr @linkonce
  %c = load i32, ptr @strong
  %d = load i32, ptr @mutable
  %x = add i32 %a, %b
  %y = add i32 %x, %c
  %z = add i32 %y, %d
  ret i32 %z
}
"#,
        expect![[r#"
            define i32 @f() {
              %a = load i32, ptr @weak
              %b = load i32, ptr @linkonce
              %d = load i32, ptr @mutable
              %x = add i32 %a, %b
              %y = add i32 %x, 9
              %z = add i32 %y, %d
              ret i32 %z
            }
        "#]],
    );
}

#[test]
fn dse_deletes_an_overwritten_store_and_unlinks_its_assignment_marker() {
    check_real(
        "dse",
        r#"
define void @f(ptr %p, ptr %q, i32 %a, i32 %b) !dbg !5 {
  %x = alloca i32, align 4, !DIAssignID !10
    #dbg_assign(i1 undef, !8, !DIExpression(), !10, ptr %x, !DIExpression(), !9)
  store i32 %a, ptr %x, align 4, !dbg !9, !DIAssignID !11
    #dbg_assign(i32 %a, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !9)
  store i32 %a, ptr %q, align 4, !dbg !9
  store i32 %b, ptr %x, align 4, !dbg !9, !DIAssignID !12
    #dbg_assign(i32 %b, !8, !DIExpression(), !12, ptr %x, !DIExpression(), !9)
  store i32 %a, ptr %p, align 4, !dbg !9
  %v = load i32, ptr %p, align 4, !dbg !9
  store i32 %v, ptr %p, align 4, !dbg !9
  call void @g(ptr %x), !dbg !9
  ret void, !dbg !9
}

declare void @g(ptr)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "t.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{null})
!7 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!8 = !DILocalVariable(name: "x", scope: !5, file: !1, line: 2, type: !7)
!9 = !DILocation(line: 2, column: 3, scope: !5)
!10 = distinct !DIAssignID()
!11 = distinct !DIAssignID()
!12 = distinct !DIAssignID()
"#,
        expect![[r#"
            define void @f(ptr %p, ptr %q, i32 %a, i32 %b) !dbg !4 {
              %x = alloca i32, align 4, !DIAssignID !7
                #dbg_assign(i1 undef, !8, !DIExpression(), !7, ptr %x, !DIExpression(), !10)
                #dbg_assign(i32 %a, !8, !DIExpression(), !11, ptr poison, !DIExpression(), !10)
              store i32 %a, ptr %q, align 4, !dbg !10
              store i32 %b, ptr %x, align 4, !dbg !10, !DIAssignID !12
                #dbg_assign(i32 %b, !8, !DIExpression(), !12, ptr %x, !DIExpression(), !10)
              store i32 %a, ptr %p, align 4, !dbg !10
              %v = load i32, ptr %p, align 4, !dbg !10
              store i32 %v, ptr %p, align 4, !dbg !10
              call void @g(ptr %x), !dbg !10
              ret void, !dbg !10
            }
            declare void @g(ptr)
            !8 = !DILocalVariable(name: "x", scope: !4, file: !1, line: 2, type: !9)
            !10 = !DILocation(line: 2, column: 3, scope: !4)
        "#]],
    );
}

#[test]
fn licm_hoists_a_load_only_when_the_loop_writes_no_memory_and_the_load_runs_on_every_exit() {
    // %p's load is hoisted, with its line dropped (line 4 goes missing):
    // nothing in the loop writes memory and its block, the header,
    // dominates the loop's only exiting block. %q's is not (the store to
    // %out may write what it reads), nor %r's (its block does not run on
    // every way out).
    check(
        "licm",
        r#"
define i32 @f(ptr %p, ptr %q, ptr %r, ptr %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  %acc = phi i32 [ 0, %entry ], [ %sum, %latch ]
  %a = load i32, ptr %p
  %odd = and i32 %i, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %then, label %latch
then:
  %b = load i32, ptr %r
  br label %latch
latch:
  %x = phi i32 [ %b, %then ], [ 0, %loop ]
  %s = add i32 %acc, %a
  %sum = add i32 %s, %x
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  br label %store_loop
store_loop:
  %j = phi i32 [ 0, %exit ], [ %jnext, %store_loop ]
  %v = load i32, ptr %q
  store i32 %v, ptr %out
  %jnext = add i32 %j, 1
  %jdone = icmp eq i32 %jnext, %n
  br i1 %jdone, label %end, label %store_loop
end:
  ret i32 %sum
}
"#,
        expect![[r#"
            define i32 @f(ptr %p, ptr %q, ptr %r, ptr %out, i32 %n) !dbg !5 {
            entry:
              %a = load i32, ptr %p, !dbg !8
              br label %loop, !dbg !9
            loop:
              %i = phi i32 [ 0, %entry ], [ %next, %latch ], !dbg !10
              %acc = phi i32 [ 0, %entry ], [ %sum, %latch ], !dbg !11
                #dbg_value(i32 %i, !12, !DIExpression(), !10)
                #dbg_value(i32 %acc, !14, !DIExpression(), !11)
                #dbg_value(i32 %a, !15, !DIExpression(), !16)
              %odd = and i32 %i, 1, !dbg !17
                #dbg_value(i32 %odd, !18, !DIExpression(), !17)
              %c = icmp eq i32 %odd, 0, !dbg !19
                #dbg_value(i1 %c, !20, !DIExpression(), !19)
              br i1 %c, label %then, label %latch, !dbg !22
            then:
              %b = load i32, ptr %r, !dbg !23
                #dbg_value(i32 %b, !24, !DIExpression(), !23)
              br label %latch, !dbg !25
            latch:
              %x = phi i32 [ %b, %then ], [ 0, %loop ], !dbg !26
                #dbg_value(i32 %x, !27, !DIExpression(), !26)
              %s = add i32 %acc, %a, !dbg !28
                #dbg_value(i32 %s, !29, !DIExpression(), !28)
              %sum = add i32 %s, %x, !dbg !30
                #dbg_value(i32 %sum, !31, !DIExpression(), !30)
              %next = add i32 %i, 1, !dbg !32
                #dbg_value(i32 %next, !33, !DIExpression(), !32)
              %done = icmp eq i32 %next, %n, !dbg !34
                #dbg_value(i1 %done, !35, !DIExpression(), !34)
              br i1 %done, label %exit, label %loop, !dbg !36
            exit:
              br label %store_loop, !dbg !37
            store_loop:
              %j = phi i32 [ 0, %exit ], [ %jnext, %store_loop ], !dbg !38
                #dbg_value(i32 %j, !39, !DIExpression(), !38)
              %v = load i32, ptr %q, !dbg !40
                #dbg_value(i32 %v, !41, !DIExpression(), !40)
              store i32 %v, ptr %out, !dbg !42
              %jnext = add i32 %j, 1, !dbg !43
                #dbg_value(i32 %jnext, !44, !DIExpression(), !43)
              %jdone = icmp eq i32 %jnext, %n, !dbg !45
                #dbg_value(i1 %jdone, !46, !DIExpression(), !45)
              br i1 %jdone, label %end, label %store_loop, !dbg !47
            end:
              ret i32 %sum, !dbg !48
            }
            WARNING: Missing line 4
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn sink_moves_values_into_the_one_arm_that_uses_them_leaving_salvaged_or_undefined_values() {
    check(
        "sink",
        r#"
define i32 @f(i32 %a, i32 %b, i1 %c) {
entry:
  %x = add i32 %a, %b
  %y = udiv i32 %a, %b
  %z = mul i32 %y, 3
  br i1 %c, label %then, label %else
then:
  %r = add i32 %x, %z
  ret i32 %r
else:
  ret i32 0
}
"#,
        expect![[r#"
            define i32 @f(i32 %a, i32 %b, i1 %c) !dbg !5 {
            entry:
                #dbg_value(!DIArgList(i32 %a, i32 %b), !8, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value), !10)
                #dbg_value(i32 poison, !11, !DIExpression(), !12)
                #dbg_value(i32 poison, !13, !DIExpression(DW_OP_constu, 3, DW_OP_mul, DW_OP_stack_value), !14)
              br i1 %c, label %then, label %else, !dbg !15
            then:
              %x = add i32 %a, %b, !dbg !16
                #dbg_value(i32 %x, !8, !DIExpression(), !10)
              %y = udiv i32 %a, %b, !dbg !17
                #dbg_value(i32 %y, !11, !DIExpression(), !12)
                #dbg_value(i32 %y, !13, !DIExpression(DW_OP_constu, 3, DW_OP_mul, DW_OP_stack_value), !14)
              %z = mul i32 %y, 3, !dbg !18
                #dbg_value(i32 %z, !13, !DIExpression(), !14)
              %r = add i32 %x, %z, !dbg !19
                #dbg_value(i32 %r, !20, !DIExpression(), !19)
              ret i32 %r, !dbg !21
            else:
              ret i32 0, !dbg !22
            }
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn sink_gives_the_sunk_code_its_line_as_moved_code() {
    // sink.c: `int x = a * b;` (line 3) is used only by `g = x;` under
    // `if (c)` (line 4). The multiply sinks below the branch of line 4 and
    // keeps line 3 in a `distinct` location listed as out of order, which
    // the line table never marks is_stmt: a stop at line 3 after line 4's
    // test would show the statements in the wrong order (csmith 209029).
    let input = std::fs::read_to_string(fixture("opt/sink.O0.ll")).unwrap();
    check_real(
        "mem2reg,sink",
        &input,
        expect![[r#"
        define dso_local void @f(i32 noundef %0, i32 noundef %1, i32 noundef %2) #0 !dbg !13 {
            #dbg_value(i32 %0, !17, !DIExpression(), !18)
            #dbg_value(i32 %1, !19, !DIExpression(), !20)
            #dbg_value(i32 %2, !21, !DIExpression(), !22)
            #dbg_value(!DIArgList(i32 %0, i32 %1), !23, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_mul, DW_OP_stack_value), !24)
          %4 = icmp ne i32 %2, 0, !dbg !25
          br i1 %4, label %5, label %7, !dbg !27
        5:
          %6 = mul nsw i32 %0, %1, !dbg !28
            #dbg_value(i32 %6, !23, !DIExpression(), !24)
          store i32 %6, ptr @g, align 4, !dbg !29
          br label %7, !dbg !30
        7:
          ret void, !dbg !31
        }
        attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
        !17 = !DILocalVariable(name: "a", arg: 1, scope: !13, file: !3, line: 2, type: !5)
        !18 = !DILocation(line: 2, column: 12, scope: !13)
        !19 = !DILocalVariable(name: "b", arg: 2, scope: !13, file: !3, line: 2, type: !5)
        !20 = !DILocation(line: 2, column: 19, scope: !13)
        !21 = !DILocalVariable(name: "c", arg: 3, scope: !13, file: !3, line: 2, type: !5)
        !22 = !DILocation(line: 2, column: 26, scope: !13)
        !23 = !DILocalVariable(name: "x", scope: !13, file: !3, line: 3, type: !5)
        !24 = !DILocation(line: 3, column: 7, scope: !13)
        !25 = !DILocation(line: 4, column: 7, scope: !26)
        !27 = !DILocation(line: 4, column: 7, scope: !13)
        !28 = distinct !DILocation(line: 3, column: 13, scope: !13)
        !29 = !DILocation(line: 5, column: 7, scope: !26)
        !30 = !DILocation(line: 5, column: 5, scope: !26)
        !31 = !DILocation(line: 6, column: 1, scope: !13)
    "#]],
    );
}

#[test]
fn mldst_motion_hoists_the_arms_first_loads_and_sinks_their_last_stores_with_merged_lines() {
    check(
        "mldst-motion",
        r#"
define void @f(ptr %p, i1 %c, i32 %a) {
entry:
  br i1 %c, label %then, label %else
then:
  %l1 = load i32, ptr %p, align 4
  %x = add i32 %l1, 1
  store i32 %x, ptr %p, align 4
  br label %join
else:
  %l2 = load i32, ptr %p, align 4
  %y = mul i32 %l2, %a
  store i32 %y, ptr %p, align 4
  br label %join
join:
  ret void
}
"#,
        expect![[r#"
            define void @f(ptr %p, i1 %c, i32 %a) !dbg !5 {
            entry:
              %l1 = load i32, ptr %p, align 4, !dbg !8
              br i1 %c, label %then, label %else, !dbg !9
            then:
                #dbg_value(i32 %l1, !10, !DIExpression(), !12)
              %x = add i32 %l1, 1, !dbg !13
                #dbg_value(i32 %x, !14, !DIExpression(), !13)
              br label %join, !dbg !15
            else:
                #dbg_value(i32 %l1, !16, !DIExpression(), !17)
              %y = mul i32 %l1, %a, !dbg !18
                #dbg_value(i32 %y, !19, !DIExpression(), !18)
              br label %join, !dbg !20
            join:
              %0 = phi i32 [ %x, %then ], [ %y, %else ]
              store i32 %0, ptr %p, align 4, !dbg !8
              ret void, !dbg !21
            }
            WARNING: Missing line 2
            WARNING: Missing line 4
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn mldst_motion_gives_the_merged_store_one_assign_id_and_relinks_both_arms_markers() {
    check_real(
        "mldst-motion",
        r#"
define void @f(i1 %c, i32 %a, i32 %b) !dbg !5 {
entry:
  %x = alloca i32, align 4, !DIAssignID !10
    #dbg_assign(i1 undef, !8, !DIExpression(), !10, ptr %x, !DIExpression(), !9)
  br i1 %c, label %then, label %else, !dbg !9
then:
  store i32 %a, ptr %x, align 4, !dbg !13, !DIAssignID !11
    #dbg_assign(i32 %a, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !13)
  br label %join, !dbg !13
else:
  store i32 %b, ptr %x, align 4, !dbg !14, !DIAssignID !12
    #dbg_assign(i32 %b, !8, !DIExpression(), !12, ptr %x, !DIExpression(), !14)
  br label %join, !dbg !14
join:
  call void @g(ptr %x), !dbg !9
  ret void, !dbg !9
}

declare void @g(ptr)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "t.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{null})
!7 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!8 = !DILocalVariable(name: "x", scope: !5, file: !1, line: 2, type: !7)
!9 = !DILocation(line: 2, column: 3, scope: !5)
!10 = distinct !DIAssignID()
!11 = distinct !DIAssignID()
!12 = distinct !DIAssignID()
!13 = !DILocation(line: 3, column: 5, scope: !5)
!14 = !DILocation(line: 4, column: 5, scope: !5)
"#,
        expect![[r#"
            define void @f(i1 %c, i32 %a, i32 %b) !dbg !4 {
            entry:
              %x = alloca i32, align 4, !DIAssignID !7
                #dbg_assign(i1 undef, !8, !DIExpression(), !7, ptr %x, !DIExpression(), !10)
              br i1 %c, label %then, label %else, !dbg !10
            then:
                #dbg_assign(i32 %a, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !12)
              br label %join, !dbg !12
            else:
                #dbg_assign(i32 %b, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !13)
              br label %join, !dbg !13
            join:
              %0 = phi i32 [ %a, %then ], [ %b, %else ]
              store i32 %0, ptr %x, align 4, !dbg !14, !DIAssignID !11
              call void @g(ptr %x), !dbg !10
              ret void, !dbg !10
            }
            declare void @g(ptr)
            !8 = !DILocalVariable(name: "x", scope: !4, file: !1, line: 2, type: !9)
            !10 = !DILocation(line: 2, column: 3, scope: !4)
            !12 = !DILocation(line: 3, column: 5, scope: !4)
            !13 = !DILocation(line: 4, column: 5, scope: !4)
            !14 = !DILocation(line: 0, scope: !4)
        "#]],
    );
}

#[test]
fn hoist_common_moves_what_both_arms_begin_with_above_the_branch_dropping_its_line() {
    check(
        "hoist-common",
        r#"
define i32 @g(i32 %a, i32 %b, i1 %c) {
entry:
  br i1 %c, label %then, label %else
then:
  %x = add i32 %a, %b
  %y = mul i32 %x, 2
  br label %join
else:
  %x2 = add i32 %a, %b
  %y2 = mul i32 %x2, 3
  br label %join
join:
  %p = phi i32 [ %y, %then ], [ %y2, %else ]
  ret i32 %p
}
"#,
        expect![[r#"
            define i32 @g(i32 %a, i32 %b, i1 %c) !dbg !5 {
            entry:
              %x = add i32 %a, %b, !dbg !8
              br i1 %c, label %then, label %else, !dbg !9
            then:
                #dbg_value(i32 %x, !10, !DIExpression(), !12)
              %y = mul i32 %x, 2, !dbg !13
                #dbg_value(i32 %y, !14, !DIExpression(), !13)
              br label %join, !dbg !15
            else:
                #dbg_value(i32 %x, !16, !DIExpression(), !17)
              %y2 = mul i32 %x, 3, !dbg !18
                #dbg_value(i32 %y2, !19, !DIExpression(), !18)
              br label %join, !dbg !20
            join:
              %p = phi i32 [ %y, %then ], [ %y2, %else ], !dbg !21
                #dbg_value(i32 %p, !22, !DIExpression(), !21)
              ret i32 %p, !dbg !23
            }
            WARNING: Missing line 2
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn tail_dup_copies_a_small_return_block_and_a_small_branching_block_into_their_predecessors() {
    check(
        "tail-dup",
        r#"
define i32 @h(i32 %a, i1 %c) {
entry:
  br i1 %c, label %then, label %else
then:
  %x = add i32 %a, 1
  br label %exit
else:
  %y = mul i32 %a, 3
  br label %exit
exit:
  %p = phi i32 [ %x, %then ], [ %y, %else ]
  %q = add i32 %p, 7
  ret i32 %q
}

define i32 @k(i32 %a, i1 %c, i1 %d) {
entry:
  br i1 %c, label %then, label %else
then:
  br label %mid
else:
  br label %mid
mid:
  %p = phi i32 [ 1, %then ], [ 2, %else ]
  %q = add i32 %p, %a
  br label %exit
exit:
  %r = phi i32 [ %q, %mid ]
  ret i32 %r
}
"#,
        expect![[r#"
            define i32 @h(i32 %a, i1 %c) !dbg !5 {
            entry:
              br i1 %c, label %then, label %else, !dbg !8
            then:
              %x = add i32 %a, 1, !dbg !9
                #dbg_value(i32 %x, !10, !DIExpression(), !9)
                #dbg_value(i32 %x, !12, !DIExpression(), !13)
              %q = add i32 %x, 7, !dbg !14
                #dbg_value(i32 %q, !15, !DIExpression(), !14)
              ret i32 %q, !dbg !16
            else:
              %y = mul i32 %a, 3, !dbg !17
                #dbg_value(i32 %y, !18, !DIExpression(), !17)
                #dbg_value(i32 %y, !12, !DIExpression(), !13)
              %q.1 = add i32 %y, 7, !dbg !14
                #dbg_value(i32 %q.1, !15, !DIExpression(), !14)
              ret i32 %q.1, !dbg !16
            }
            define i32 @k(i32 %a, i1 %c, i1 %d) !dbg !19 {
            entry:
              br i1 %c, label %then, label %else, !dbg !22
            then:
                #dbg_value(i32 1, !23, !DIExpression(), !24)
              %q = add i32 1, %a, !dbg !25
                #dbg_value(i32 %q, !26, !DIExpression(), !25)
                #dbg_value(i32 %q, !27, !DIExpression(), !28)
              ret i32 %q, !dbg !29
            else:
                #dbg_value(i32 2, !23, !DIExpression(), !24)
              %q.1 = add i32 2, %a, !dbg !25
                #dbg_value(i32 %q.1, !26, !DIExpression(), !25)
                #dbg_value(i32 %q.1, !27, !DIExpression(), !28)
              ret i32 %q.1, !dbg !29
            }
            CheckModuleDebugify: PASS
        "#]],
    );
}

#[test]
fn lsr_compares_the_decremented_counter_after_the_decrement() {
    // A countdown tested against 1 after its decrement (how instcombine
    // leaves `while (--n > 0)`): the test reads `%n.next > 0` instead, so
    // %n dies at the decrement. The loop has no preheader (the entry
    // branches elsewhere too). `eq` moves without `nsw`; an unsigned order
    // and a signed order of a wrapping add stay.
    check_real(
        "lsr",
        r#"
define i32 @f(i32 %start, i32 %m, i1 %go) {
entry:
  br i1 %go, label %loop, label %exit
loop:
  %n = phi i32 [ %start, %entry ], [ %n.next, %loop ]
  %w = phi i32 [ %m, %entry ], [ %w.next, %loop ]
  %n.next = add nsw i32 %n, -1
  %w.next = add i32 %w, 3
  %more = icmp sgt i32 %n, 1
  %hit = icmp eq i32 %w, 7
  %wide = icmp ugt i32 %n, 5
  %wrap = icmp slt i32 %w, 100
  %a = and i1 %more, %wide
  %b = or i1 %hit, %wrap
  %c = and i1 %a, %b
  br i1 %c, label %loop, label %exit
exit:
  %r = phi i32 [ 0, %entry ], [ %n.next, %loop ]
  ret i32 %r
}
"#,
        expect![[r#"
            define i32 @f(i32 %start, i32 %m, i1 %go) {
            entry:
              br i1 %go, label %loop, label %exit
            loop:
              %n = phi i32 [ %start, %entry ], [ %n.next, %loop ]
              %w = phi i32 [ %m, %entry ], [ %w.next, %loop ]
              %n.next = add nsw i32 %n, -1
              %w.next = add i32 %w, 3
              %more = icmp sgt i32 %n.next, 0
              %hit = icmp eq i32 %w.next, 10
              %wide = icmp ugt i32 %n, 5
              %wrap = icmp slt i32 %w, 100
              %a = and i1 %more, %wide
              %b = or i1 %hit, %wrap
              %c = and i1 %a, %b
              br i1 %c, label %loop, label %exit
            exit:
              %r = phi i32 [ 0, %entry ], [ %n.next, %loop ]
              ret i32 %r
            }
        "#]],
    );
}
