//! The printer's exact output: snapshots of a whole module in records syntax
//! and of one function in intrinsics syntax, and the promise that a
//! program's records-form and intrinsics-form files print to the same text.

use std::path::Path;

use dwarfsmith::ir::parse::parse_module;
use dwarfsmith::ir::print::{print_function, print_module, DebugSyntax};
use dwarfsmith::ir::Module;
use expect_test::{expect, Expect};

/// Parses `fixtures/ll/NAME`.
fn parse_fixture(name: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/ll")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_module(&text, name).unwrap_or_else(|d| panic!("{d}"))
}

/// Parses `fixtures/ll/NAME` and prints it.
fn print_fixture(name: &str, syntax: DebugSyntax) -> String {
    print_module(&parse_fixture(name), syntax)
}

fn check(actual: &str, expected: Expect) {
    expected.assert_eq(actual);
}

#[test]
fn arith_temps_o2_in_records_syntax() {
    check(
        &print_fixture("arith_temps.O2.ll", DebugSyntax::Records),
        expect![[r#"
            source_filename = "arith_temps.c"
            target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
            target triple = "x86_64-pc-linux-gnu"

            define dso_local i32 @blend(i32 noundef %0, i32 noundef %1) local_unnamed_addr #0 !dbg !11 {
                #dbg_value(i32 %0, !16, !DIExpression(), !21)
                #dbg_value(i32 %1, !17, !DIExpression(), !21)
              %3 = mul nsw i32 %1, %0, !dbg !22
                #dbg_value(i32 poison, !18, !DIExpression(), !21)
                #dbg_value(i32 poison, !19, !DIExpression(), !21)
              %4 = sub i32 %1, %0, !dbg !23
              %5 = add i32 %4, 4, !dbg !23
              %6 = add i32 %5, %3, !dbg !24
                #dbg_value(i32 %6, !20, !DIExpression(), !21)
              %7 = xor i32 %6, %1, !dbg !25
              ret i32 %7, !dbg !26
            }

            define dso_local i32 @offsets(i32 noundef %0, i32 noundef %1) local_unnamed_addr #0 !dbg !27 {
                #dbg_value(i32 %0, !29, !DIExpression(), !35)
                #dbg_value(i32 %1, !30, !DIExpression(), !35)
              %3 = add nsw i32 %1, %0, !dbg !36
                #dbg_value(i32 %3, !31, !DIExpression(), !35)
              %4 = sub i32 %1, %0, !dbg !37
                #dbg_value(!DIArgList(i32 %0, i32 %1), !32, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_minus, DW_OP_stack_value), !35)
              %5 = shl nsw i32 %3, 3, !dbg !38
                #dbg_value(i32 %5, !33, !DIExpression(), !35)
              %6 = shl i32 %4, 2, !dbg !39
                #dbg_value(!DIArgList(i32 %0, i32 %1), !34, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_minus, DW_OP_constu, 2, DW_OP_shl, DW_OP_stack_value), !35)
              %7 = add i32 %6, %5, !dbg !40
              ret i32 %7, !dbg !41
            }

            define dso_local range(i32 1, 4082) i32 @narrow(i16 noundef zeroext %0, i8 noundef zeroext %1) local_unnamed_addr #0 !dbg !42 {
                #dbg_value(i16 %0, !48, !DIExpression(), !53)
                #dbg_value(i8 %1, !49, !DIExpression(), !53)
              %3 = zext i16 %0 to i32, !dbg !54
              %4 = shl nuw nsw i32 %3, 8, !dbg !55
                #dbg_value(i32 %4, !50, !DIExpression(), !53)
              %5 = zext i8 %1 to i32, !dbg !56
              %6 = or disjoint i32 %4, %5, !dbg !57
                #dbg_value(i32 %6, !51, !DIExpression(), !53)
              %7 = and i32 %6, 4080, !dbg !58
                #dbg_value(i32 %7, !52, !DIExpression(), !53)
              %8 = or disjoint i32 %7, 1, !dbg !59
              ret i32 %8, !dbg !60
            }

            attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

            !llvm.dbg.cu = !{!0}
            !llvm.module.flags = !{!4, !5, !6, !7, !8, !9, !10}

            !0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, isOptimized: true, emissionKind: FullDebug, retainedTypes: !2, runtimeVersion: 0, splitDebugInlining: false, nameTableKind: None)
            !1 = !DIFile(filename: "arith_temps.c", directory: ".", checksumkind: CSK_MD5, checksum: "3eee814d8bf11851044463b5ee13600a")
            !2 = !{!3}
            !3 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
            !4 = !{i32 7, !"Dwarf Version", i32 5}
            !5 = !{i32 2, !"Debug Info Version", i32 3}
            !6 = !{i32 1, !"wchar_size", i32 4}
            !7 = !{i32 8, !"PIC Level", i32 2}
            !8 = !{i32 7, !"PIE Level", i32 2}
            !9 = !{i32 7, !"uwtable", i32 2}
            !10 = !{i32 7, !"debug-info-assignment-tracking", i1 true}
            !11 = distinct !DISubprogram(name: "blend", scope: !1, file: !1, line: 3, type: !12, scopeLine: 3, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !15)
            !12 = !DISubroutineType(types: !13)
            !13 = !{!14, !14, !14}
            !14 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
            !15 = !{!16, !17, !18, !19, !20}
            !16 = !DILocalVariable(name: "x", arg: 1, scope: !11, file: !1, line: 3, type: !14)
            !17 = !DILocalVariable(name: "y", arg: 2, scope: !11, file: !1, line: 3, type: !14)
            !18 = !DILocalVariable(name: "z", scope: !11, file: !1, line: 4, type: !14)
            !19 = !DILocalVariable(name: "w", scope: !11, file: !1, line: 5, type: !14)
            !20 = !DILocalVariable(name: "q", scope: !11, file: !1, line: 6, type: !14)
            !21 = !DILocation(line: 0, scope: !11)
            !22 = !DILocation(line: 4, column: 13, scope: !11)
            !23 = !DILocation(line: 5, column: 13, scope: !11)
            !24 = !DILocation(line: 6, column: 13, scope: !11)
            !25 = !DILocation(line: 7, column: 12, scope: !11)
            !26 = !DILocation(line: 7, column: 3, scope: !11)
            !27 = distinct !DISubprogram(name: "offsets", scope: !1, file: !1, line: 10, type: !12, scopeLine: 10, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !28)
            !28 = !{!29, !30, !31, !32, !33, !34}
            !29 = !DILocalVariable(name: "a", arg: 1, scope: !27, file: !1, line: 10, type: !14)
            !30 = !DILocalVariable(name: "b", arg: 2, scope: !27, file: !1, line: 10, type: !14)
            !31 = !DILocalVariable(name: "sum", scope: !27, file: !1, line: 11, type: !14)
            !32 = !DILocalVariable(name: "diff", scope: !27, file: !1, line: 12, type: !14)
            !33 = !DILocalVariable(name: "scaled", scope: !27, file: !1, line: 13, type: !14)
            !34 = !DILocalVariable(name: "shifted", scope: !27, file: !1, line: 14, type: !14)
            !35 = !DILocation(line: 0, scope: !27)
            !36 = !DILocation(line: 11, column: 15, scope: !27)
            !37 = !DILocation(line: 12, column: 16, scope: !27)
            !38 = !DILocation(line: 13, column: 20, scope: !27)
            !39 = !DILocation(line: 14, column: 22, scope: !27)
            !40 = !DILocation(line: 15, column: 17, scope: !27)
            !41 = !DILocation(line: 15, column: 3, scope: !27)
            !42 = distinct !DISubprogram(name: "narrow", scope: !1, file: !1, line: 18, type: !43, scopeLine: 18, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !47)
            !43 = !DISubroutineType(types: !44)
            !44 = !{!3, !45, !46}
            !45 = !DIBasicType(name: "unsigned short", size: 16, encoding: DW_ATE_unsigned)
            !46 = !DIBasicType(name: "unsigned char", size: 8, encoding: DW_ATE_unsigned_char)
            !47 = !{!48, !49, !50, !51, !52}
            !48 = !DILocalVariable(name: "h", arg: 1, scope: !42, file: !1, line: 18, type: !45)
            !49 = !DILocalVariable(name: "l", arg: 2, scope: !42, file: !1, line: 18, type: !46)
            !50 = !DILocalVariable(name: "wide", scope: !42, file: !1, line: 19, type: !3)
            !51 = !DILocalVariable(name: "both", scope: !42, file: !1, line: 20, type: !3)
            !52 = !DILocalVariable(name: "masked", scope: !42, file: !1, line: 21, type: !3)
            !53 = !DILocation(line: 0, scope: !42)
            !54 = !DILocation(line: 19, column: 19, scope: !42)
            !55 = !DILocation(line: 19, column: 31, scope: !42)
            !56 = !DILocation(line: 20, column: 26, scope: !42)
            !57 = !DILocation(line: 20, column: 24, scope: !42)
            !58 = !DILocation(line: 21, column: 26, scope: !42)
            !59 = !DILocation(line: 22, column: 17, scope: !42)
            !60 = !DILocation(line: 22, column: 3, scope: !42)
        "#]],
    );
}

#[test]
fn one_function_with_assignment_tracking_in_intrinsics_syntax() {
    let module = parse_fixture("structs.O2.ll");
    let area = module.function_by_name("area").unwrap();
    let text = print_function(&module, area, DebugSyntax::Intrinsics);
    check(
        &text,
        expect![[r#"
            define dso_local i32 @area(i64 %0, i64 %1) local_unnamed_addr #0 !dbg !9 {
              %3 = alloca [4 x i32], align 16, !DIAssignID !26
              call void @llvm.dbg.assign(metadata i1 undef, metadata !21, metadata !DIExpression(), metadata !26, metadata ptr %3, metadata !DIExpression()), !dbg !27
              %4 = trunc i64 %0 to i32
              %5 = lshr i64 %0, 32
              %6 = trunc nuw i64 %5 to i32
              call void @llvm.dbg.value(metadata i32 %4, metadata !18, metadata !DIExpression(DW_OP_LLVM_fragment, 0, 32)), !dbg !27
              call void @llvm.dbg.value(metadata i32 %6, metadata !18, metadata !DIExpression(DW_OP_LLVM_fragment, 32, 32)), !dbg !27
              %7 = trunc i64 %1 to i32
              %8 = lshr i64 %1, 32
              %9 = trunc nuw i64 %8 to i32
              call void @llvm.dbg.value(metadata i32 %7, metadata !19, metadata !DIExpression(DW_OP_LLVM_fragment, 0, 32)), !dbg !27
              call void @llvm.dbg.value(metadata i32 %9, metadata !19, metadata !DIExpression(DW_OP_LLVM_fragment, 32, 32)), !dbg !27
              %10 = sub nsw i32 %7, %4, !dbg !28
              call void @llvm.dbg.value(metadata i32 %10, metadata !20, metadata !DIExpression(DW_OP_LLVM_fragment, 0, 32)), !dbg !27
              %11 = sub nsw i32 %9, %6, !dbg !29
              call void @llvm.dbg.value(metadata i32 %11, metadata !20, metadata !DIExpression(DW_OP_LLVM_fragment, 32, 32)), !dbg !27
              call void @llvm.lifetime.start.p0(i64 16, ptr nonnull %3) #1, !dbg !30
              store i32 %10, ptr %3, align 16, !dbg !31, !DIAssignID !32, !tbaa !33
              call void @llvm.dbg.assign(metadata i32 %10, metadata !21, metadata !DIExpression(DW_OP_LLVM_fragment, 0, 32), metadata !32, metadata ptr %3, metadata !DIExpression()), !dbg !27
              %12 = getelementptr inbounds i8, ptr %3, i64 4, !dbg !31
              store i32 %11, ptr %12, align 4, !dbg !31, !DIAssignID !37, !tbaa !33
              call void @llvm.dbg.assign(metadata i32 %11, metadata !21, metadata !DIExpression(DW_OP_LLVM_fragment, 32, 32), metadata !37, metadata ptr %12, metadata !DIExpression()), !dbg !27
              %13 = getelementptr inbounds i8, ptr %3, i64 8, !dbg !31
              store i32 1, ptr %13, align 8, !dbg !31, !DIAssignID !38, !tbaa !33
              call void @llvm.dbg.assign(metadata i32 1, metadata !21, metadata !DIExpression(DW_OP_LLVM_fragment, 64, 32), metadata !38, metadata ptr %13, metadata !DIExpression()), !dbg !27
              %14 = getelementptr inbounds i8, ptr %3, i64 12, !dbg !31
              store i32 2, ptr %14, align 4, !dbg !31, !DIAssignID !39, !tbaa !33
              call void @llvm.dbg.assign(metadata i32 2, metadata !21, metadata !DIExpression(DW_OP_LLVM_fragment, 96, 32), metadata !39, metadata ptr %14, metadata !DIExpression()), !dbg !27
              call void @observe(ptr noundef nonnull %3, i32 noundef 4) #1, !dbg !40
              %15 = load i32, ptr %3, align 16, !dbg !41, !tbaa !33
              %16 = load i32, ptr %12, align 4, !dbg !42, !tbaa !33
              %17 = mul nsw i32 %16, %15, !dbg !43
              call void @llvm.dbg.value(metadata i32 %17, metadata !25, metadata !DIExpression()), !dbg !27
              %18 = load i32, ptr %14, align 4, !dbg !44, !tbaa !33
              %19 = add nsw i32 %17, %18, !dbg !45
              call void @llvm.lifetime.end.p0(i64 16, ptr nonnull %3) #1, !dbg !46
              ret i32 %19, !dbg !47
            }
        "#]],
    );
}

#[test]
fn intrinsics_syntax_declares_exactly_the_intrinsics_its_records_need() {
    let declarations = |name: &str, syntax| -> Vec<String> {
        print_fixture(name, syntax)
            .lines()
            .filter(|line| line.starts_with("declare void @llvm.dbg."))
            .map(str::to_string)
            .collect()
    };
    check(
        &declarations("structs.O2.ll", DebugSyntax::Intrinsics).join("\n"),
        expect![[r#"
            declare void @llvm.dbg.value(metadata, metadata, metadata)
            declare void @llvm.dbg.assign(metadata, metadata, metadata, metadata, metadata, metadata)"#]],
    );
    check(
        &declarations("structs.O0.ll", DebugSyntax::Intrinsics).join("\n"),
        expect!["declare void @llvm.dbg.declare(metadata, metadata, metadata)"],
    );
    // Records syntax declares none, even when the input declared them.
    assert_eq!(
        declarations("structs.O2.intrinsics.ll", DebugSyntax::Records),
        Vec::<String>::new()
    );
}

#[test]
fn records_and_intrinsics_files_of_a_program_print_the_same_text() {
    let programs = [
        "arith_temps",
        "bits",
        "inlining",
        "licm",
        "many_args",
        "matrix",
        "pointers",
        "recursion",
        "select_diamond",
        "sort",
        "strings",
        "structs",
        "sum_array",
        "switch_table",
    ];
    let mut differing = Vec::new();
    for program in programs {
        for syntax in [DebugSyntax::Records, DebugSyntax::Intrinsics] {
            let from_records = print_fixture(&format!("{program}.O2.ll"), syntax);
            let from_intrinsics = print_fixture(&format!("{program}.O2.intrinsics.ll"), syntax);
            if from_records != from_intrinsics {
                differing.push(format!("{program} ({syntax:?})"));
            }
        }
    }
    assert!(
        differing.is_empty(),
        "printed texts differ for: {differing:?}"
    );
}

/// Metadata numbers come from the module's shape, not from the order the
/// nodes were read in: a file with its `!N = ...` definitions reversed (so
/// every arena is filled in another order) prints the same text.
#[test]
fn metadata_numbering_ignores_definition_order() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ll");
    let mut differing = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let (definitions, code): (Vec<&str>, Vec<&str>) = text
            .lines()
            .partition(|line| line.starts_with('!') && !line.starts_with("!llvm"));
        let reversed: String = code
            .iter()
            .chain(definitions.iter().rev())
            .map(|line| format!("{line}\n"))
            .collect();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = parse_module(&text, &name).unwrap();
        let shuffled = parse_module(&reversed, &name).unwrap();
        assert_ne!(
            original.debug.locations, shuffled.debug.locations,
            "{name}: reversing the definitions should change the arena order"
        );
        if print_module(&original, DebugSyntax::Records)
            != print_module(&shuffled, DebugSyntax::Records)
        {
            differing.push(name);
        }
        files += 1;
    }
    assert_eq!(files, 56);
    assert!(
        differing.is_empty(),
        "printed texts differ for: {differing:?}"
    );
}
