//! The printer on the constructs the corpus lacks: named values and blocks,
//! named, packed and opaque structs, string, array, struct and
//! constant-expression initializers, sections, private/internal/external
//! linkage, varargs calls, volatile memory, freeze, inttoptr, switch with a
//! duplicate destination, dynamic alloca, unreachable, `#dbg_declare`,
//! `#dbg_label`, lexical block files, enumerations, global variable
//! expressions and named metadata other than debug info. The module must
//! verify, print to text opt-19 accepts in both syntaxes, and reach a fixed
//! point after one print.

use std::path::PathBuf;
use std::process::Command;

use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::print::{print_module, DebugSyntax};
use dwarfsmith::ir::verify::verify_module;
use expect_test::expect;

const CONSTRUCTS: &str = r#"source_filename = "ext.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.pair = type { i32, ptr }
%struct.packed = type <{ i8, i32 }>
%struct.opaque = type opaque

@.str = private unnamed_addr constant [7 x i8] c"x=%d\0A\22\00", align 1
@table = internal global [3 x i32] [i32 1, i32 -2, i32 3], align 4, !dbg !20
@pair = dso_local global %struct.pair { i32 7, ptr @table }, align 8
@packed = dso_local global %struct.packed <{ i8 1, i32 2 }>, section ".data.rel", align 1
@elem = dso_local global ptr getelementptr inbounds ([3 x i32], ptr @table, i64 0, i64 1), align 8
@addr = dso_local global i64 ptrtoint (ptr @pair to i64), align 8
@zero = dso_local global [4 x i64] zeroinitializer, align 16
@ext = external global i32, align 4

declare i32 @printf(ptr noundef, ...)

define internal i32 @helper(i32 noundef signext %value, ptr %out) !dbg !10 {
entry:
  %slot = alloca i32, align 4
    #dbg_declare(ptr %slot, !15, !DIExpression(), !17)
  store volatile i32 %value, ptr %slot, align 4
  %frozen = freeze i32 %value
    #dbg_value(i32 %frozen, !15, !DIExpression(DW_OP_consts, 18446744073709551615, DW_OP_plus, DW_OP_stack_value), !17)
    #dbg_value(!DIArgList(i32 %frozen, i32 poison, i64 3), !15, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 2, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_plus, DW_OP_stack_value), !17)
  %cmp = icmp ult i32 %frozen, 10, !dbg !17
  br i1 %cmp, label %small, label %big, !dbg !17

small:
    #dbg_label(!16, !18)
  %p = inttoptr i64 16 to ptr
  %sel = select i1 %cmp, ptr %p, ptr %out
  switch i32 %frozen, label %big [
    i32 0, label %done
    i32 1, label %done
  ]

big:
  %call = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %frozen), !dbg !18
  %loaded = load volatile i32, ptr @ext, align 4
  br label %done

done:
  %r = phi i32 [ 0, %small ], [ 0, %small ], [ %loaded, %big ]
  %n = alloca i8, i32 %r, align 1
  ret i32 %r
}

define void @never() {
  unreachable
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!llvm.ident = !{!5}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "hand", isOptimized: false, emissionKind: FullDebug, enums: !6, globals: !19)
!1 = !DIFile(filename: "ext.c", directory: "/tmp")
!2 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!3 = !{i32 7, !"Dwarf Version", i32 5}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !{!"hand-written"}
!6 = !{!7}
!7 = !DICompositeType(tag: DW_TAG_enumeration_type, name: "color", file: !1, line: 1, baseType: !8, size: 32, elements: !9)
!8 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
!9 = !{!21, !22}
!10 = distinct !DISubprogram(name: "helper", scope: !1, file: !1, line: 3, type: !11, scopeLine: 3, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition, unit: !0, retainedNodes: !13)
!11 = !DISubroutineType(types: !12)
!12 = !{!2, !2, null}
!13 = !{!15, !16}
!14 = distinct !DILexicalBlock(scope: !10, file: !1, line: 4, column: 5)
!15 = !DILocalVariable(name: "v", scope: !14, file: !1, line: 4, type: !2)
!16 = !DILabel(scope: !23, name: "out", file: !1, line: 9)
!17 = !DILocation(line: 4, column: 7, scope: !14)
!18 = !DILocation(line: 9, column: 1, scope: !23)
!19 = !{!20}
!20 = !DIGlobalVariableExpression(var: !24, expr: !DIExpression())
!21 = !DIEnumerator(name: "red", value: 0, isUnsigned: true)
!22 = !DIEnumerator(name: "blue", value: 1, isUnsigned: true)
!23 = !DILexicalBlockFile(scope: !14, file: !1, discriminator: 2)
!24 = distinct !DIGlobalVariable(name: "table", scope: !0, file: !1, line: 2, type: !25, isLocal: true, isDefinition: true)
!25 = !DICompositeType(tag: DW_TAG_array_type, baseType: !2, size: 96, elements: !26)
!26 = !{!27}
!27 = !DISubrange(count: 3)
"#;

fn opt19() -> PathBuf {
    ["/usr/bin/opt-19", "/usr/lib/llvm-19/bin/opt"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("opt-19 is needed: neither /usr/bin/opt-19 nor /usr/lib/llvm-19/bin/opt exists")
}

fn print(text: &str, syntax: DebugSyntax) -> String {
    let module = parse_module(text, "constructs.ll").unwrap_or_else(|d| panic!("{d}"));
    verify_module(&module).unwrap_or_else(|d| panic!("{d}"));
    print_module(&module, syntax)
}

#[test]
fn constructs_outside_the_corpus_print_valid_stable_text() {
    let dir = tempfile::tempdir().unwrap();
    for syntax in [DebugSyntax::Records, DebugSyntax::Intrinsics] {
        let first = print(CONSTRUCTS, syntax);
        let second = print(&first, syntax);
        assert_eq!(first, second, "not a fixed point in {syntax:?} syntax");
        let path = dir.path().join(format!("constructs.{syntax:?}.ll"));
        std::fs::write(&path, &first).unwrap();
        let output = Command::new(opt19())
            .args(["-passes=verify", "-disable-output"])
            .arg(&path)
            .output()
            .expect("cannot run opt-19");
        assert!(
            output.status.success() && output.stderr.is_empty(),
            "opt-19 rejects the {syntax:?} text:\n{}\n{first}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn constructs_outside_the_corpus_in_records_syntax() {
    expect![[r#"
        source_filename = "ext.c"
        target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
        target triple = "x86_64-pc-linux-gnu"

        %struct.pair = type { i32, ptr }
        %struct.packed = type <{ i8, i32 }>
        %struct.opaque = type opaque

        @.str = private unnamed_addr constant [7 x i8] c"x=%d\0A\22\00", align 1
        @table = internal global [3 x i32] [i32 1, i32 -2, i32 3], align 4, !dbg !0
        @pair = dso_local global %struct.pair { i32 7, ptr @table }, align 8
        @packed = dso_local global %struct.packed <{ i8 1, i32 2 }>, section ".data.rel", align 1
        @elem = dso_local global ptr getelementptr inbounds ([3 x i32], ptr @table, i64 0, i64 1), align 8
        @addr = dso_local global i64 ptrtoint (ptr @pair to i64), align 8
        @zero = dso_local global [4 x i64] zeroinitializer, align 16
        @ext = external global i32, align 4

        declare i32 @printf(ptr noundef, ...)

        define internal i32 @helper(i32 noundef signext %value, ptr %out) !dbg !18 {
        entry:
          %slot = alloca i32, align 4
            #dbg_declare(ptr %slot, !22, !DIExpression(), !26)
          store volatile i32 %value, ptr %slot, align 4
          %frozen = freeze i32 %value
            #dbg_value(i32 %frozen, !22, !DIExpression(DW_OP_consts, 18446744073709551615, DW_OP_plus, DW_OP_stack_value), !26)
            #dbg_value(!DIArgList(i32 %frozen, i32 poison, i64 3), !22, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 2, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_plus, DW_OP_stack_value), !26)
          %cmp = icmp ult i32 %frozen, 10, !dbg !26
          br i1 %cmp, label %small, label %big, !dbg !26

        small:
            #dbg_label(!24, !27)
          %p = inttoptr i64 16 to ptr
          %sel = select i1 %cmp, ptr %p, ptr %out
          switch i32 %frozen, label %big [
            i32 0, label %done
            i32 1, label %done
          ]

        big:
          %call = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %frozen), !dbg !27
          %loaded = load volatile i32, ptr @ext, align 4
          br label %done

        done:
          %r = phi i32 [ 0, %small ], [ 0, %small ], [ %loaded, %big ]
          %n = alloca i8, i32 %r, align 1
          ret i32 %r
        }

        define void @never() {
          unreachable
        }

        !llvm.dbg.cu = !{!2}
        !llvm.module.flags = !{!15, !16}
        !llvm.ident = !{!17}

        !0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
        !1 = distinct !DIGlobalVariable(name: "table", scope: !2, file: !3, line: 2, type: !11, isLocal: true, isDefinition: true)
        !2 = distinct !DICompileUnit(language: DW_LANG_C11, file: !3, producer: "hand", isOptimized: false, emissionKind: FullDebug, enums: !4, globals: !10)
        !3 = !DIFile(filename: "ext.c", directory: "/tmp")
        !4 = !{!5}
        !5 = !DICompositeType(tag: DW_TAG_enumeration_type, name: "color", file: !3, line: 1, baseType: !6, size: 32, elements: !7)
        !6 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
        !7 = !{!8, !9}
        !8 = !DIEnumerator(name: "red", value: 0, isUnsigned: true)
        !9 = !DIEnumerator(name: "blue", value: 1, isUnsigned: true)
        !10 = !{!0}
        !11 = !DICompositeType(tag: DW_TAG_array_type, baseType: !12, size: 96, elements: !13)
        !12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
        !13 = !{!14}
        !14 = !DISubrange(count: 3)
        !15 = !{i32 7, !"Dwarf Version", i32 5}
        !16 = !{i32 2, !"Debug Info Version", i32 3}
        !17 = !{!"hand-written"}
        !18 = distinct !DISubprogram(name: "helper", scope: !3, file: !3, line: 3, type: !19, scopeLine: 3, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition, unit: !2, retainedNodes: !21)
        !19 = !DISubroutineType(types: !20)
        !20 = !{!12, !12, null}
        !21 = !{!22, !24}
        !22 = !DILocalVariable(name: "v", scope: !23, file: !3, line: 4, type: !12)
        !23 = distinct !DILexicalBlock(scope: !18, file: !3, line: 4, column: 5)
        !24 = !DILabel(scope: !25, name: "out", file: !3, line: 9)
        !25 = !DILexicalBlockFile(scope: !23, file: !3, discriminator: 2)
        !26 = !DILocation(line: 4, column: 7, scope: !23)
        !27 = !DILocation(line: 9, column: 1, scope: !25)
    "#]].assert_eq(&print(CONSTRUCTS, DebugSyntax::Records));
}
