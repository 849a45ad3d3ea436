//! Assignment tracking through our own passes, one rule per test, on small
//! clang -O0 programs (fixtures/opt/at_*.O0.ll): the markers before and
//! after each pass (snapshots), the module flag, and the command line's
//! `--assignment-tracking=false`.

mod support;

use dwarfsmith::codegen::debug_prep::assignment_tracking::lower_module;
use dwarfsmith::ir::print::{print_module, DebugSyntax};
use dwarfsmith::opt::{parse_passes, run_pipeline, PipelineOptions};
use expect_test::{expect, Expect};
use support::*;

/// The text of a fixture under fixtures/opt.
fn input(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("opt/{name}"))).unwrap()
}

/// Runs `passes` on `text` (verifying after each) and returns the module.
fn optimised(passes: &str, text: &str) -> dwarfsmith::ir::Module {
    let mut module = dwarfsmith::parse_and_verify(text, "test.ll").unwrap();
    let options = PipelineOptions {
        verify_each: true,
        file_name: "test.ll".into(),
        ..PipelineOptions::default()
    };
    run_pipeline(&mut module, &parse_passes(passes).unwrap(), &options).unwrap();
    module
}

/// The function definitions of a printed module, then its
/// assignment-tracking module flag line (if any).
fn code_and_flag(module: &dwarfsmith::ir::Module) -> String {
    let text = print_module(module, DebugSyntax::Records);
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        inside |= line.starts_with("define ");
        if inside {
            out.push_str(line);
            out.push('\n');
        }
        if line == "}" {
            inside = false;
        }
    }
    for line in text.lines().filter(|l| l.contains("assignment-tracking")) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Runs `passes` on fixture `name` and compares functions and flag with `expected`.
fn check(passes: &str, name: &str, expected: Expect) {
    expected.assert_eq(&code_and_flag(&optimised(passes, &input(name))));
}

#[test]
fn declare_to_assign_links_every_store_of_a_declared_alloca_and_sets_the_flag() {
    // Each alloca gets a DIAssignID and an undef marker; each store a
    // DIAssignID and a marker of the stored value, with the fragment a field
    // store writes; the declares go.
    check(
        "declare-to-assign",
        "at_fields.O0.ll",
        expect![[r#"
            define dso_local i32 @f(i32 noundef %0) !dbg !10 {
              %2 = alloca i32, align 4, !DIAssignID !15
                #dbg_assign(i1 undef, !16, !DIExpression(), !15, ptr %2, !DIExpression(), !17)
              %3 = alloca i32, align 4, !DIAssignID !18
                #dbg_assign(i1 undef, !19, !DIExpression(), !18, ptr %3, !DIExpression(), !20)
              %4 = alloca %struct.P, align 4, !DIAssignID !21
                #dbg_assign(i1 undef, !22, !DIExpression(), !21, ptr %4, !DIExpression(), !27)
              store i32 %0, ptr %2, align 4, !DIAssignID !28
                #dbg_assign(i32 %0, !16, !DIExpression(), !28, ptr %2, !DIExpression(), !17)
              %5 = load i32, ptr %2, align 4, !dbg !29
              %6 = add nsw i32 %5, 1, !dbg !30
              store i32 %6, ptr %3, align 4, !dbg !20, !DIAssignID !31
                #dbg_assign(i32 %6, !19, !DIExpression(), !31, ptr %3, !DIExpression(), !20)
              %7 = load i32, ptr %3, align 4, !dbg !32
              %8 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 0, !dbg !33
              store i32 %7, ptr %8, align 4, !dbg !34, !DIAssignID !35
                #dbg_assign(i32 %7, !22, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !35, ptr %8, !DIExpression(), !27)
              %9 = load i32, ptr %2, align 4, !dbg !36
              %10 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 1, !dbg !37
              store i32 %9, ptr %10, align 4, !dbg !38, !DIAssignID !39
                #dbg_assign(i32 %9, !22, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !39, ptr %10, !DIExpression(), !27)
              %11 = load i32, ptr %3, align 4, !dbg !40
              %12 = mul nsw i32 %11, 2, !dbg !41
              store i32 %12, ptr %3, align 4, !dbg !42, !DIAssignID !43
                #dbg_assign(i32 %12, !19, !DIExpression(), !43, ptr %3, !DIExpression(), !20)
              %13 = load i32, ptr %3, align 4, !dbg !44
              %14 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 0, !dbg !45
              %15 = load i32, ptr %14, align 4, !dbg !45
              %16 = add nsw i32 %13, %15, !dbg !46
              %17 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 1, !dbg !47
              %18 = load i32, ptr %17, align 4, !dbg !47
              %19 = add nsw i32 %16, %18, !dbg !48
              ret i32 %19, !dbg !49
            }
            !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
        "#]],
    );
}

#[test]
fn sroa_clones_the_alloca_marker_per_piece_and_field_markers_follow_their_stores() {
    // The struct's marker becomes one per field alloca, each with the
    // field's fragment and the new alloca's DIAssignID; each field store
    // gets a new DIAssignID and its marker names the piece.
    check(
        "declare-to-assign,sroa",
        "at_fields.O0.ll",
        expect![[r#"
        define dso_local i32 @f(i32 noundef %0) !dbg !10 {
          %2 = alloca i32, align 4, !DIAssignID !15
            #dbg_assign(i1 undef, !16, !DIExpression(), !15, ptr %2, !DIExpression(), !17)
          %3 = alloca i32, align 4, !DIAssignID !18
            #dbg_assign(i1 undef, !19, !DIExpression(), !18, ptr %3, !DIExpression(), !20)
          %4 = alloca i32, align 4, !DIAssignID !21
          %5 = alloca i32, align 4, !DIAssignID !22
            #dbg_assign(i1 undef, !23, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !21, ptr %4, !DIExpression(), !28)
            #dbg_assign(i1 undef, !23, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !22, ptr %5, !DIExpression(), !28)
          store i32 %0, ptr %2, align 4, !DIAssignID !29
            #dbg_assign(i32 %0, !16, !DIExpression(), !29, ptr %2, !DIExpression(), !17)
          %6 = load i32, ptr %2, align 4, !dbg !30
          %7 = add nsw i32 %6, 1, !dbg !31
          store i32 %7, ptr %3, align 4, !dbg !20, !DIAssignID !32
            #dbg_assign(i32 %7, !19, !DIExpression(), !32, ptr %3, !DIExpression(), !20)
          %8 = load i32, ptr %3, align 4, !dbg !33
          store i32 %8, ptr %4, align 4, !dbg !34, !DIAssignID !35
            #dbg_assign(i32 %8, !23, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !35, ptr %4, !DIExpression(), !28)
          %9 = load i32, ptr %2, align 4, !dbg !36
          store i32 %9, ptr %5, align 4, !dbg !37, !DIAssignID !38
            #dbg_assign(i32 %9, !23, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !38, ptr %5, !DIExpression(), !28)
          %10 = load i32, ptr %3, align 4, !dbg !39
          %11 = mul nsw i32 %10, 2, !dbg !40
          store i32 %11, ptr %3, align 4, !dbg !41, !DIAssignID !42
            #dbg_assign(i32 %11, !19, !DIExpression(), !42, ptr %3, !DIExpression(), !20)
          %12 = load i32, ptr %3, align 4, !dbg !43
          %13 = load i32, ptr %4, align 4, !dbg !44
          %14 = add nsw i32 %12, %13, !dbg !45
          %15 = load i32, ptr %5, align 4, !dbg !46
          %16 = add nsw i32 %14, %15, !dbg !47
          ret i32 %16, !dbg !48
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]],
    );
}

#[test]
fn sroa_splits_a_wide_store_and_its_marker_per_piece_with_new_ids() {
    // `p` arrives as one i64 store: split into two i32 stores, each with a
    // new DIAssignID and a marker of the part it writes.
    check(
        "declare-to-assign,sroa",
        "pt.O0.ll",
        expect![[r#"
        define dso_local i64 @flip(i64 %0) !dbg !10 {
          %2 = alloca i32, align 4, !DIAssignID !19
          %3 = alloca i32, align 4, !DIAssignID !20
            #dbg_assign(i1 undef, !21, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !19, ptr %2, !DIExpression(), !22)
            #dbg_assign(i1 undef, !21, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !20, ptr %3, !DIExpression(), !22)
          %4 = alloca i32, align 4, !DIAssignID !23
          %5 = alloca i32, align 4, !DIAssignID !24
            #dbg_assign(i1 undef, !25, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !23, ptr %4, !DIExpression(), !26)
            #dbg_assign(i1 undef, !25, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !24, ptr %5, !DIExpression(), !26)
          %6 = trunc i64 %0 to i32
          store i32 %6, ptr %4, !DIAssignID !27
          %7 = lshr i64 %0, 32
          %8 = trunc i64 %7 to i32
          store i32 %8, ptr %5, !DIAssignID !28
            #dbg_assign(i32 %6, !25, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !27, ptr %4, !DIExpression(), !26)
            #dbg_assign(i32 %8, !25, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !28, ptr %5, !DIExpression(), !26)
          %9 = load i32, ptr %5, align 4, !dbg !29
          store i32 %9, ptr %2, align 4, !dbg !30, !DIAssignID !31
            #dbg_assign(i32 %9, !21, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !31, ptr %2, !DIExpression(), !22)
          %10 = load i32, ptr %4, align 4, !dbg !32
          store i32 %10, ptr %3, align 4, !dbg !33, !DIAssignID !34
            #dbg_assign(i32 %10, !21, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !34, ptr %3, !DIExpression(), !22)
          %11 = load i32, ptr %2, !dbg !35
          %12 = zext i32 %11 to i64, !dbg !35
          %13 = load i32, ptr %3, !dbg !35
          %14 = zext i32 %13 to i64, !dbg !35
          %15 = shl i64 %14, 32, !dbg !35
          %16 = or i64 %12, %15, !dbg !35
          ret i64 %16, !dbg !35
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]],
    );
    // Then mem2reg: every fragment a value at its store.
    check(
        "declare-to-assign,sroa,mem2reg",
        "pt.O0.ll",
        expect![[r#"
        define dso_local i64 @flip(i64 %0) !dbg !10 {
          %2 = trunc i64 %0 to i32
            #dbg_value(i32 %2, !19, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !20)
          %3 = lshr i64 %0, 32
          %4 = trunc i64 %3 to i32
            #dbg_value(i32 %4, !19, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !20)
            #dbg_value(i32 %4, !21, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !22)
            #dbg_value(i32 %2, !21, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !22)
          %5 = zext i32 %4 to i64, !dbg !23
          %6 = zext i32 %2 to i64, !dbg !23
          %7 = shl i64 %6, 32, !dbg !23
          %8 = or i64 %5, %7, !dbg !23
          ret i64 %8, !dbg !23
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]],
    );
}

#[test]
fn mem2reg_turns_markers_into_values_at_stores_and_after_inserted_phis() {
    check(
        "declare-to-assign,mem2reg",
        "at_loop.O0.ll",
        expect![[r#"
        define dso_local i32 @f(i32 noundef %0) !dbg !10 {
            #dbg_value(i32 %0, !15, !DIExpression(), !16)
            #dbg_value(i32 0, !17, !DIExpression(), !18)
            #dbg_value(i32 0, !19, !DIExpression(), !21)
          br label %2, !dbg !22

        2:
          %3 = phi i32 [ 0, %1 ], [ %7, %8 ]
          %4 = phi i32 [ 0, %1 ], [ %9, %8 ]
            #dbg_value(i32 %3, !17, !DIExpression(), !18)
            #dbg_value(i32 %4, !19, !DIExpression(), !21)
          %5 = icmp slt i32 %4, %0, !dbg !23
          br i1 %5, label %6, label %10, !dbg !25

        6:
          %7 = add nsw i32 %3, %4, !dbg !26
            #dbg_value(i32 %7, !17, !DIExpression(), !18)
          br label %8, !dbg !27

        8:
          %9 = add nsw i32 %4, 1, !dbg !28
            #dbg_value(i32 %9, !19, !DIExpression(), !21)
          br label %2, !dbg !29, !llvm.loop !30

        10:
          ret i32 %3, !dbg !33
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]],
    );
}

#[test]
fn mem2reg_gives_an_untagged_store_to_a_tracked_alloca_a_value_too() {
    // `i++`'s store loses its DIAssignID and marker (as a pass that knows
    // nothing of assignment tracking might leave it): it still assigns `i`.
    let tracked = print_module(
        &optimised("declare-to-assign", &input("at_loop.O0.ll")),
        DebugSyntax::Records,
    );
    let mut untagged = String::new();
    let mut lines = tracked.lines().peekable();
    while let Some(line) = lines.next() {
        if line.contains("store i32 %15") {
            let end = line.find(", !DIAssignID").unwrap();
            untagged.push_str(&line[..end]);
            untagged.push('\n');
            assert!(lines.next().unwrap().contains("#dbg_assign(i32 %15"));
            continue;
        }
        untagged.push_str(line);
        untagged.push('\n');
    }
    expect![[r#"
        define dso_local i32 @f(i32 noundef %0) !dbg !10 {
            #dbg_value(i32 %0, !15, !DIExpression(), !16)
            #dbg_value(i32 0, !17, !DIExpression(), !18)
            #dbg_value(i32 0, !19, !DIExpression(), !21)
          br label %2, !dbg !22

        2:
          %3 = phi i32 [ 0, %1 ], [ %7, %8 ]
          %4 = phi i32 [ 0, %1 ], [ %9, %8 ]
            #dbg_value(i32 %3, !17, !DIExpression(), !18)
            #dbg_value(i32 %4, !19, !DIExpression(), !21)
          %5 = icmp slt i32 %4, %0, !dbg !23
          br i1 %5, label %6, label %10, !dbg !25

        6:
          %7 = add nsw i32 %3, %4, !dbg !26
            #dbg_value(i32 %7, !17, !DIExpression(), !18)
          br label %8, !dbg !27

        8:
          %9 = add nsw i32 %4, 1, !dbg !28
            #dbg_value(i32 %9, !19, !DIExpression(), !21)
          br label %2, !dbg !29, !llvm.loop !30

        10:
          ret i32 %3, !dbg !33
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]]
    .assert_eq(&code_and_flag(&optimised("mem2reg", &untagged)));
}

#[test]
fn inline_links_an_inlined_store_to_the_caller_variable_it_writes() {
    // `set(&x, a)` inlined: its store writes x's alloca, so it gets a
    // DIAssignID and a marker of x.
    check(
        "declare-to-assign,sroa,mem2reg,inline",
        "at_inline.O0.ll",
        expect![[r#"
            define dso_local i32 @f(i32 noundef %0) !dbg !10 {
              %2 = alloca i32, align 4, !DIAssignID !15
                #dbg_assign(i1 undef, !16, !DIExpression(), !15, ptr %2, !DIExpression(), !17)
                #dbg_value(i32 %0, !18, !DIExpression(), !19)
              br label %6, !dbg !20

            3:
              %4 = call i32 @g(ptr noundef %2), !dbg !21
              %5 = load i32, ptr %2, align 4, !dbg !22
              ret i32 %5, !dbg !23

            6:
                #dbg_value(ptr %2, !24, !DIExpression(), !29)
                #dbg_value(i32 %0, !30, !DIExpression(), !31)
              store i32 %0, ptr %2, align 4, !dbg !32, !DIAssignID !33
                #dbg_assign(i32 %0, !16, !DIExpression(), !33, ptr %2, !DIExpression(), !17)
              br label %3, !dbg !20
            }
            define internal void @set(ptr noundef %0, i32 noundef %1) !dbg !25 {
                #dbg_value(ptr %0, !24, !DIExpression(), !34)
                #dbg_value(i32 %1, !30, !DIExpression(), !35)
              store i32 %1, ptr %0, align 4, !dbg !36
              ret void, !dbg !37
            }
            !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
        "#]],
    );
}

#[test]
fn inline_gives_each_copy_of_a_tagged_store_and_its_marker_new_ids() {
    let text = r#"
define void @set(ptr %p, i32 %v) !dbg !5 {
  store i32 %v, ptr %p, align 4, !dbg !9, !DIAssignID !10
    #dbg_assign(i32 %v, !8, !DIExpression(), !10, ptr %p, !DIExpression(), !9)
  ret void, !dbg !9
}

define void @two(ptr %p) !dbg !11 {
  call void @set(ptr %p, i32 1), !dbg !12
  call void @set(ptr %p, i32 2), !dbg !12
  ret void, !dbg !12
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "t.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
!5 = distinct !DISubprogram(name: "set", scope: !1, file: !1, line: 1, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{null})
!7 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!8 = !DILocalVariable(name: "x", scope: !5, file: !1, line: 2, type: !7)
!9 = !DILocation(line: 2, column: 3, scope: !5)
!10 = distinct !DIAssignID()
!11 = distinct !DISubprogram(name: "two", scope: !1, file: !1, line: 4, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!12 = !DILocation(line: 5, column: 3, scope: !11)
"#;
    expect![[r#"
        define void @set(ptr %p, i32 %v) !dbg !4 {
          store i32 %v, ptr %p, align 4, !dbg !7, !DIAssignID !8
            #dbg_assign(i32 %v, !9, !DIExpression(), !8, ptr %p, !DIExpression(), !7)
          ret void, !dbg !7
        }
        define void @two(ptr %p) !dbg !11 {
          br label %2, !dbg !12

        1:
          br label %4, !dbg !12

        2:
          store i32 1, ptr %p, align 4, !dbg !13, !DIAssignID !14
            #dbg_assign(i32 1, !9, !DIExpression(), !14, ptr %p, !DIExpression(), !13)
          br label %1, !dbg !12

        3:
          ret void, !dbg !12

        4:
          store i32 2, ptr %p, align 4, !dbg !13, !DIAssignID !15
            #dbg_assign(i32 2, !9, !DIExpression(), !15, ptr %p, !DIExpression(), !13)
          br label %3, !dbg !12
        }
        !3 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]]
    .assert_eq(&code_and_flag(&optimised("inline", text)));
}

#[test]
fn dse_shortens_a_partly_dead_memset_and_gives_the_dead_fragment_no_address() {
    // `s.d = v` overwrites the memset's last 4 bytes: the memset keeps 12,
    // its marker stays linked, and an unlinked marker of bits 96..128 with a
    // poison address says that part is not in memory until the store.
    check(
        "declare-to-assign,mem2reg,dse",
        "at_tail.O0.ll",
        expect![[r#"
        define dso_local i32 @f(i32 noundef %0) !dbg !10 {
          %2 = alloca %struct.S, align 4, !DIAssignID !15
            #dbg_assign(i1 undef, !16, !DIExpression(), !15, ptr %2, !DIExpression(), !23)
            #dbg_value(i32 %0, !24, !DIExpression(), !25)
          call void @llvm.memset.p0.i64(ptr align 4 %2, i8 0, i64 12, i1 false), !dbg !26, !DIAssignID !27
            #dbg_assign(i8 poison, !16, !DIExpression(), !27, ptr %2, !DIExpression(), !23)
            #dbg_assign(i8 poison, !16, !DIExpression(DW_OP_LLVM_fragment, 96, 32), !28, ptr poison, !DIExpression(), !23)
          %3 = getelementptr inbounds %struct.S, ptr %2, i32 0, i32 3, !dbg !29
          store i32 %0, ptr %3, align 4, !dbg !30, !DIAssignID !31
            #dbg_assign(i32 %0, !16, !DIExpression(DW_OP_LLVM_fragment, 96, 32), !31, ptr %3, !DIExpression(), !23)
          %4 = call i32 @use(ptr noundef %2), !dbg !32
          ret i32 %4, !dbg !33
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]],
    );
}

#[test]
fn merged_stores_share_one_assign_id_and_their_markers_follow_it() {
    let text = print_module(
        &optimised("declare-to-assign", &input("at_fields.O0.ll")),
        DebugSyntax::Records,
    );
    let mut module = dwarfsmith::parse_and_verify(&text, "test.ll").unwrap();
    let function = &mut module.functions[0];
    let stores: Vec<_> = function
        .blocks
        .iter()
        .flat_map(|b| b.insts.clone())
        .filter(|&id| {
            matches!(
                function.inst(id).kind,
                dwarfsmith::ir::InstKind::Store { .. }
            )
        })
        .collect();
    // The two stores to `b` (as a pass merging them into the first would).
    dwarfsmith::opt::debug_update::merge_assign_ids(function, stores[1], &[stores[4]]);
    expect![[r#"
        define dso_local i32 @f(i32 noundef %0) !dbg !10 {
          %2 = alloca i32, align 4, !DIAssignID !15
            #dbg_assign(i1 undef, !16, !DIExpression(), !15, ptr %2, !DIExpression(), !17)
          %3 = alloca i32, align 4, !DIAssignID !18
            #dbg_assign(i1 undef, !19, !DIExpression(), !18, ptr %3, !DIExpression(), !20)
          %4 = alloca %struct.P, align 4, !DIAssignID !21
            #dbg_assign(i1 undef, !22, !DIExpression(), !21, ptr %4, !DIExpression(), !27)
          store i32 %0, ptr %2, align 4, !DIAssignID !28
            #dbg_assign(i32 %0, !16, !DIExpression(), !28, ptr %2, !DIExpression(), !17)
          %5 = load i32, ptr %2, align 4, !dbg !29
          %6 = add nsw i32 %5, 1, !dbg !30
          store i32 %6, ptr %3, align 4, !dbg !20, !DIAssignID !31
            #dbg_assign(i32 %6, !19, !DIExpression(), !31, ptr %3, !DIExpression(), !20)
          %7 = load i32, ptr %3, align 4, !dbg !32
          %8 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 0, !dbg !33
          store i32 %7, ptr %8, align 4, !dbg !34, !DIAssignID !35
            #dbg_assign(i32 %7, !22, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !35, ptr %8, !DIExpression(), !27)
          %9 = load i32, ptr %2, align 4, !dbg !36
          %10 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 1, !dbg !37
          store i32 %9, ptr %10, align 4, !dbg !38, !DIAssignID !39
            #dbg_assign(i32 %9, !22, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !39, ptr %10, !DIExpression(), !27)
          %11 = load i32, ptr %3, align 4, !dbg !40
          %12 = mul nsw i32 %11, 2, !dbg !41
          store i32 %12, ptr %3, align 4, !dbg !42
            #dbg_assign(i32 %12, !19, !DIExpression(), !31, ptr %3, !DIExpression(), !20)
          %13 = load i32, ptr %3, align 4, !dbg !43
          %14 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 0, !dbg !44
          %15 = load i32, ptr %14, align 4, !dbg !44
          %16 = add nsw i32 %13, %15, !dbg !45
          %17 = getelementptr inbounds %struct.P, ptr %4, i32 0, i32 1, !dbg !46
          %18 = load i32, ptr %17, align 4, !dbg !46
          %19 = add nsw i32 %16, %18, !dbg !47
          ret i32 %19, !dbg !48
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]].assert_eq(&code_and_flag(&module));
}

#[test]
fn the_lowering_after_our_pipeline_keeps_a_struct_in_memory_where_its_stores_are() {
    // at_tail's `s` escapes (its address goes to `use`): it stays in memory,
    // the memset's dead tail is nowhere until `s.d = v` stores it.
    let mut module = optimised("declare-to-assign,mem2reg,dse", &input("at_tail.O0.ll"));
    lower_module(&mut module);
    dwarfsmith::ir::verify::verify_module(&module).unwrap();
    expect![[r#"
        define dso_local i32 @f(i32 noundef %0) !dbg !10 {
          %2 = alloca %struct.S, align 4, !DIAssignID !15
            #dbg_value(ptr %2, !16, !DIExpression(DW_OP_deref), !23)
            #dbg_value(i32 %0, !24, !DIExpression(), !25)
          call void @llvm.memset.p0.i64(ptr align 4 %2, i8 0, i64 12, i1 false), !dbg !26, !DIAssignID !27
            #dbg_value(ptr %2, !16, !DIExpression(DW_OP_deref), !23)
            #dbg_value(i8 poison, !16, !DIExpression(DW_OP_LLVM_fragment, 96, 32), !23)
          %3 = getelementptr inbounds %struct.S, ptr %2, i32 0, i32 3, !dbg !28
          store i32 %0, ptr %3, align 4, !dbg !29, !DIAssignID !30
            #dbg_value(ptr %3, !16, !DIExpression(DW_OP_deref, DW_OP_LLVM_fragment, 96, 32), !23)
          %4 = call i32 @use(ptr noundef %2), !dbg !31
          ret i32 %4, !dbg !32
        }
        !9 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
    "#]].assert_eq(&code_and_flag(&module));
}

#[test]
fn assignment_tracking_false_leaves_the_declares_on_opt_and_compile() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture("opt/at_tail.O0.ll");
    let out_ll = dir.path().join("out.ll");
    let opt = |extra: &[&str]| {
        let mut args = vec![
            "opt",
            file.to_str().unwrap(),
            "--passes=declare-to-assign,mem2reg",
            "-o",
            out_ll.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = dwarfsmith(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&out_ll).unwrap();
        (
            text.matches("#dbg_declare").count(),
            text.matches("#dbg_assign").count(),
            text.contains("debug-info-assignment-tracking"),
        )
    };
    assert_eq!(opt(&[]), (0, 3, true));
    assert_eq!(opt(&["--assignment-tracking=false"]), (1, 0, false));

    let object = dir.path().join("t.o");
    for flag in ["--assignment-tracking=false", "--assignment-tracking=true"] {
        let out = dwarfsmith(&[
            "compile",
            "-O2",
            flag,
            file.to_str().unwrap(),
            "-o",
            object.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = dwarfsmith(&[
        "compile",
        "--assignment-tracking=maybe",
        file.to_str().unwrap(),
        "-o",
        object.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("maybe"));
}

#[test]
fn the_tracking_passes_lose_no_location_under_debugify_each() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["at_fields", "at_loop", "at_inline", "at_tail"] {
        let file = fixture(&format!("opt/{name}.O0.ll"));
        let csv = dir.path().join(format!("{name}.csv"));
        let out = dwarfsmith(&[
            "opt",
            file.to_str().unwrap(),
            "--passes=declare-to-assign,sroa,mem2reg,inline,dse",
            "--debugify-each",
            "--debugify-export",
            csv.to_str().unwrap(),
            "-o",
            dir.path().join("out.ll").to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let csv = std::fs::read_to_string(&csv).unwrap();
        for row in csv.lines().skip(1) {
            let fields: Vec<&str> = row.split(',').collect();
            assert_eq!(fields[2], "0", "{name}: {row}");
        }
    }
}

/// Compiles fixtures/opt/STEM.O0.ll with `-O2 FLAG`, links it with
/// STEM.driver.c, and returns what one gdb run prints for `commands`.
fn gdb_on(stem: &str, flag: &str, commands: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(&format!("opt/{stem}.O0.ll"));
    let object = compile_ll(dir.path(), &input, stem, &["-O2", flag]);
    let exe = dir.path().join(stem);
    let out = run(std::process::Command::new("gcc")
        .arg("-g")
        .arg(fixture(&format!("opt/{stem}.driver.c")))
        .arg(&object)
        .arg("-o")
        .arg(&exe));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut gdb = std::process::Command::new("gdb");
    gdb.args(["-nx", "-batch"]);
    for command in commands {
        gdb.args(["-ex", command]);
    }
    String::from_utf8_lossy(&run(gdb.arg(&exe)).stdout).into_owned()
}

#[test]
fn gdb_reads_an_escaped_struct_from_memory_with_tracking_on_and_off() {
    // at_tail's `s` stays in memory (its address goes to `use`); with
    // tracking on, the lowering's "in memory" (a value record with
    // DW_OP_deref of the slot) of a 16-byte variable is a memory location,
    // so gdb reads all 16 bytes, as it does from the declare with tracking
    // off.
    for flag in ["--assignment-tracking=true", "--assignment-tracking=false"] {
        let text = gdb_on("at_tail", flag, &["break use", "run", "up", "print s"]);
        assert!(
            text.contains("$1 = {a = 0, b = 0, c = 0, d = 7}"),
            "{flag}:\n{text}"
        );
    }
}

#[test]
fn gdb_shows_the_value_a_deleted_store_assigned_with_tracking_on() {
    // at_dse: `int x = a; x = b + 1; g(&x);` DSE deletes the store of `a`.
    // On line 4 (before `x = b + 1` runs) x is 5 (f(5, 7)). With tracking
    // on the unlinked marker says so; with it off the declare points at
    // memory the deleted store never wrote (printed for comparison).
    let on = gdb_on(
        "at_dse",
        "--assignment-tracking=true",
        &["break at_dse.c:4", "run", "print x"],
    );
    assert!(on.contains("$1 = 5"), "{on}");
    let off = gdb_on(
        "at_dse",
        "--assignment-tracking=false",
        &["break at_dse.c:4", "run", "print x"],
    );
    println!(
        "x on line 4: tracking on: {}; off: {}",
        on.lines().last().unwrap_or(""),
        off.lines().last().unwrap_or("")
    );
}
