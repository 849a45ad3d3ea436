//! Assignment tracking's lowering: on structs.O2.ll, whose `area` keeps an
//! array in memory through stores tagged with !DIAssignID, the array is
//! always in memory and becomes one `#dbg_declare` (LLVM's "always stack
//! homed"), while the values of other variables become value records; on
//! hand-written functions, a store DSE deleted leaves the variable in the
//! value it assigned until the next store, a variable stored on both
//! ways into a loop stays in memory all through: one declare; a store
//! hoisted above its marker leaves the earlier value until the marker; a
//! variable whose initialising store was deleted is nowhere, not in its
//! stale home, until that assignment's marker; and a block is told a
//! variable's location only when some predecessor leaves it otherwise.

use dwarfsmith::codegen::debug_prep::assignment_tracking::lower_module;
use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::print::{print_module, DebugSyntax};
use expect_test::expect;

/// The printed text of one function of `module`, from `define` to `}`.
fn function_text(printed: &str, name: &str) -> String {
    let start = printed
        .find(&format!("@{name}("))
        .and_then(|at| printed[..at].rfind("define "))
        .expect("function is defined");
    let end = start + printed[start..].find("\n}\n").unwrap() + 3;
    printed[start..end].to_string()
}

#[test]
fn assign_records_become_memory_and_value_locations() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/ll/structs.O2.ll");
    let text = std::fs::read_to_string(path).unwrap();
    let mut module = parse_module(&text, "structs.O2.ll").unwrap();
    lower_module(&mut module);
    dwarfsmith::ir::verify::verify_module(&module).unwrap();
    let printed = print_module(&module, DebugSyntax::Records);
    assert!(!printed.contains("#dbg_assign"));
    expect![[r#"
        define dso_local i32 @area(i64 %0, i64 %1) local_unnamed_addr #0 !dbg !9 {
          %3 = alloca [4 x i32], align 16, !DIAssignID !26
            #dbg_declare(ptr %3, !21, !DIExpression(), !27)
          %4 = trunc i64 %0 to i32
          %5 = lshr i64 %0, 32
          %6 = trunc nuw i64 %5 to i32
            #dbg_value(i32 %4, !18, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !27)
            #dbg_value(i32 %6, !18, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !27)
          %7 = trunc i64 %1 to i32
          %8 = lshr i64 %1, 32
          %9 = trunc nuw i64 %8 to i32
            #dbg_value(i32 %7, !19, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !27)
            #dbg_value(i32 %9, !19, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !27)
          %10 = sub nsw i32 %7, %4, !dbg !28
            #dbg_value(i32 %10, !20, !DIExpression(DW_OP_LLVM_fragment, 0, 32), !27)
          %11 = sub nsw i32 %9, %6, !dbg !29
            #dbg_value(i32 %11, !20, !DIExpression(DW_OP_LLVM_fragment, 32, 32), !27)
          call void @llvm.lifetime.start.p0(i64 16, ptr nonnull %3) #1, !dbg !30
          store i32 %10, ptr %3, align 16, !dbg !31, !DIAssignID !32, !tbaa !33
          %12 = getelementptr inbounds i8, ptr %3, i64 4, !dbg !31
          store i32 %11, ptr %12, align 4, !dbg !31, !DIAssignID !37, !tbaa !33
          %13 = getelementptr inbounds i8, ptr %3, i64 8, !dbg !31
          store i32 1, ptr %13, align 8, !dbg !31, !DIAssignID !38, !tbaa !33
          %14 = getelementptr inbounds i8, ptr %3, i64 12, !dbg !31
          store i32 2, ptr %14, align 4, !dbg !31, !DIAssignID !39, !tbaa !33
          call void @observe(ptr noundef nonnull %3, i32 noundef 4) #1, !dbg !40
          %15 = load i32, ptr %3, align 16, !dbg !41, !tbaa !33
          %16 = load i32, ptr %12, align 4, !dbg !42, !tbaa !33
          %17 = mul nsw i32 %16, %15, !dbg !43
            #dbg_value(i32 %17, !25, !DIExpression(), !27)
          %18 = load i32, ptr %14, align 4, !dbg !44, !tbaa !33
          %19 = add nsw i32 %17, %18, !dbg !45
          call void @llvm.lifetime.end.p0(i64 16, ptr nonnull %3) #1, !dbg !46
          ret i32 %19, !dbg !47
        }
    "#]]
    .assert_eq(&function_text(&printed, "area"));
}

/// Lowers the assign records of `text` (after running `passes` on it) and
/// returns the printed functions.
fn lowered_after(passes: &str, text: &str) -> String {
    let mut module = dwarfsmith::parse_and_verify(text, "test.ll").unwrap();
    let options = dwarfsmith::opt::PipelineOptions {
        verify_each: true,
        ..Default::default()
    };
    let passes = dwarfsmith::opt::parse_passes(passes).unwrap();
    dwarfsmith::opt::run_pipeline(&mut module, &passes, &options).unwrap();
    lower_module(&mut module);
    dwarfsmith::ir::verify::verify_module(&module).unwrap();
    let printed = print_module(&module, DebugSyntax::Records);
    printed
        .lines()
        .filter(|l| !l.starts_with('!') && !l.starts_with("declare") && !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The metadata of the hand-written functions below: `x` is an int.
const METADATA: &str = r#"
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
"#;

#[test]
fn a_store_dse_deletes_leaves_its_value_in_a_register_until_the_next_store() {
    // x = a; x = b; g(&x): DSE deletes the first store and unlinks its
    // marker, so between the two x is the value `a`, not the stale memory;
    // after the second store it is in memory again.
    let text = format!(
        r#"
define void @f(i32 %a, i32 %b) !dbg !5 {{
  %x = alloca i32, align 4, !DIAssignID !10
    #dbg_assign(i1 undef, !8, !DIExpression(), !10, ptr %x, !DIExpression(), !9)
  store i32 %a, ptr %x, align 4, !dbg !9, !DIAssignID !11
    #dbg_assign(i32 %a, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !9)
  %c = add i32 %b, 1, !dbg !9
  store i32 %c, ptr %x, align 4, !dbg !9, !DIAssignID !12
    #dbg_assign(i32 %c, !8, !DIExpression(), !12, ptr %x, !DIExpression(), !9)
  call void @g(ptr %x), !dbg !9
  ret void, !dbg !9
}}
{METADATA}"#
    );
    expect![[r#"
        define void @f(i32 %a, i32 %b) !dbg !4 {
          %x = alloca i32, align 4, !DIAssignID !7
            #dbg_value(ptr poison, !8, !DIExpression(), !10)
            #dbg_value(i32 %a, !8, !DIExpression(), !10)
          %c = add i32 %b, 1, !dbg !10
          store i32 %c, ptr %x, align 4, !dbg !10, !DIAssignID !11
            #dbg_value(ptr %x, !8, !DIExpression(DW_OP_deref), !10)
          call void @g(ptr %x), !dbg !10
          ret void, !dbg !10
        }
    "#]]
    .assert_eq(&lowered_after("dse", &text));
}

#[test]
fn a_variable_stored_on_both_ways_into_a_loop_stays_in_memory_at_its_header() {
    // Different stores (assignments) reach the header from the entry and
    // the latch; both leave x in memory, so it stays there (LLVM's join),
    // and x, in memory after every instruction, is declared at its alloca.
    let text = format!(
        r#"
define void @f(i32 %n) !dbg !5 {{
  %x = alloca i32, align 4, !DIAssignID !10
    #dbg_assign(i1 undef, !8, !DIExpression(), !10, ptr %x, !DIExpression(), !9)
  store i32 0, ptr %x, align 4, !dbg !9, !DIAssignID !11
    #dbg_assign(i32 0, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !9)
  br label %loop, !dbg !9

loop:
  call void @g(ptr %x), !dbg !9
  %v = load i32, ptr %x, align 4, !dbg !9
  %w = add i32 %v, 1, !dbg !9
  store i32 %w, ptr %x, align 4, !dbg !9, !DIAssignID !12
    #dbg_assign(i32 %w, !8, !DIExpression(), !12, ptr %x, !DIExpression(), !9)
  %more = icmp slt i32 %w, %n, !dbg !9
  br i1 %more, label %loop, label %done, !dbg !9

done:
  ret void, !dbg !9
}}
{METADATA}"#
    );
    expect![[r#"
        define void @f(i32 %n) !dbg !4 {
          %x = alloca i32, align 4, !DIAssignID !7
            #dbg_declare(ptr %x, !8, !DIExpression(), !10)
          store i32 0, ptr %x, align 4, !dbg !10, !DIAssignID !11
          br label %loop, !dbg !10
        loop:
          call void @g(ptr %x), !dbg !10
          %v = load i32, ptr %x, align 4, !dbg !10
          %w = add i32 %v, 1, !dbg !10
          store i32 %w, ptr %x, align 4, !dbg !10, !DIAssignID !12
          %more = icmp slt i32 %w, %n, !dbg !10
          br i1 %more, label %loop, label %done, !dbg !10
        done:
          ret void, !dbg !10
        }
    "#]]
    .assert_eq(&lowered_after("", &text));
}

#[test]
fn a_store_hoisted_above_its_assignment_leaves_the_earlier_value_until_the_marker() {
    // x = a; g(&x); h(); x = b; with the store of b hoisted above h():
    // between that store and its marker memory holds the later value, so x
    // is the value `a` the debug program last assigned (LLVM's rule), and
    // in memory again from the marker on.
    let text = format!(
        r#"
declare void @h()

define void @f(i32 %a, i32 %b) !dbg !5 {{
  %x = alloca i32, align 4, !DIAssignID !10
    #dbg_assign(i1 undef, !8, !DIExpression(), !10, ptr %x, !DIExpression(), !9)
  store i32 %a, ptr %x, align 4, !dbg !9, !DIAssignID !11
    #dbg_assign(i32 %a, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !9)
  call void @g(ptr %x), !dbg !9
  store i32 %b, ptr %x, align 4, !dbg !9, !DIAssignID !12
  call void @h(), !dbg !9
    #dbg_assign(i32 %b, !8, !DIExpression(), !12, ptr %x, !DIExpression(), !9)
  call void @g(ptr %x), !dbg !9
  ret void, !dbg !9
}}
{METADATA}"#
    );
    expect![[r#"
        define void @f(i32 %a, i32 %b) !dbg !4 {
          %x = alloca i32, align 4, !DIAssignID !7
            #dbg_value(ptr %x, !8, !DIExpression(DW_OP_deref), !10)
          store i32 %a, ptr %x, align 4, !dbg !10, !DIAssignID !11
            #dbg_value(ptr %x, !8, !DIExpression(DW_OP_deref), !10)
          call void @g(ptr %x), !dbg !10
          store i32 %b, ptr %x, align 4, !dbg !10, !DIAssignID !12
            #dbg_value(i32 %a, !8, !DIExpression(), !10)
          call void @h(), !dbg !10
            #dbg_value(ptr %x, !8, !DIExpression(DW_OP_deref), !10)
          call void @g(ptr %x), !dbg !10
          ret void, !dbg !10
        }
    "#]]
    .assert_eq(&lowered_after("", &text));
}

#[test]
fn a_variable_whose_initialising_store_was_deleted_is_not_shown_from_its_uninitialised_home() {
    // int x = -1; with the store of -1 deleted and its marker after a call
    // of a later line hoisted above it: memory never holds -1, so from the
    // alloca's marker to that one x is nowhere, not its stale home.
    let text = format!(
        r#"
declare void @h()

define void @f(i32 %a, i1 %c) !dbg !5 {{
  %x = alloca i32, align 4, !DIAssignID !10
    #dbg_assign(i1 undef, !8, !DIExpression(), !10, ptr %x, !DIExpression(), !9)
  call void @h(), !dbg !9
    #dbg_assign(i32 -1, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !9)
  call void @g(ptr %x), !dbg !9
  ret void, !dbg !9
}}
{METADATA}"#
    );
    expect![[r#"
        define void @f(i32 %a, i1 %c) !dbg !4 {
          %x = alloca i32, align 4, !DIAssignID !7
            #dbg_value(ptr poison, !8, !DIExpression(), !10)
          call void @h(), !dbg !10
            #dbg_value(i32 -1, !8, !DIExpression(), !10)
          call void @g(ptr %x), !dbg !10
          ret void, !dbg !10
        }
    "#]]
    .assert_eq(&lowered_after("", &text));
}

#[test]
fn a_block_is_not_told_again_what_every_predecessor_leaves_unchanged() {
    // x = a (its store deleted); then, on one way, x = b + 1 in memory.
    // `then`, entered only from where x is `a`, is not told so again: the
    // location the entry's record gave still holds (a restatement there
    // would also undo a later untracked record of the variable). `join`,
    // whose predecessors leave x differently, is told that x is nowhere.
    let text = format!(
        r#"
define void @f(i32 %a, i32 %b, i1 %c) !dbg !5 {{
  %x = alloca i32, align 4, !DIAssignID !10
    #dbg_assign(i1 undef, !8, !DIExpression(), !10, ptr %x, !DIExpression(), !9)
    #dbg_assign(i32 %a, !8, !DIExpression(), !11, ptr %x, !DIExpression(), !9)
  br i1 %c, label %then, label %join, !dbg !9

then:
  %d = add i32 %b, 1, !dbg !9
  store i32 %d, ptr %x, align 4, !dbg !9, !DIAssignID !12
    #dbg_assign(i32 %d, !8, !DIExpression(), !12, ptr %x, !DIExpression(), !9)
  br label %join, !dbg !9

join:
  call void @g(ptr %x), !dbg !9
  ret void, !dbg !9
}}
{METADATA}"#
    );
    expect![[r#"
        define void @f(i32 %a, i32 %b, i1 %c) !dbg !4 {
          %x = alloca i32, align 4, !DIAssignID !7
            #dbg_value(ptr poison, !8, !DIExpression(), !10)
            #dbg_value(i32 %a, !8, !DIExpression(), !10)
          br i1 %c, label %then, label %join, !dbg !10
        then:
          %d = add i32 %b, 1, !dbg !10
          store i32 %d, ptr %x, align 4, !dbg !10, !DIAssignID !11
            #dbg_value(ptr %x, !8, !DIExpression(DW_OP_deref), !10)
          br label %join, !dbg !10
        join:
            #dbg_value(ptr poison, !8, !DIExpression(), !10)
          call void @g(ptr %x), !dbg !10
          ret void, !dbg !10
        }
    "#]]
    .assert_eq(&lowered_after("", &text));
}
