//! Assignment tracking on structs.O2.ll, whose `area` keeps an array in
//! memory through stores tagged with !DIAssignID: after lowering, every
//! assign record has become a value record stating where each fragment lives.

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
            #dbg_value(ptr %3, !21, !DIExpression(DW_OP_deref), !27)
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
            #dbg_value(ptr %3, !21, !DIExpression(DW_OP_deref, DW_OP_LLVM_fragment, 0, 32), !27)
          %12 = getelementptr inbounds i8, ptr %3, i64 4, !dbg !31
          store i32 %11, ptr %12, align 4, !dbg !31, !DIAssignID !37, !tbaa !33
            #dbg_value(ptr %12, !21, !DIExpression(DW_OP_deref, DW_OP_LLVM_fragment, 32, 32), !27)
          %13 = getelementptr inbounds i8, ptr %3, i64 8, !dbg !31
          store i32 1, ptr %13, align 8, !dbg !31, !DIAssignID !38, !tbaa !33
            #dbg_value(ptr %13, !21, !DIExpression(DW_OP_deref, DW_OP_LLVM_fragment, 64, 32), !27)
          %14 = getelementptr inbounds i8, ptr %3, i64 12, !dbg !31
          store i32 2, ptr %14, align 4, !dbg !31, !DIAssignID !39, !tbaa !33
            #dbg_value(ptr %14, !21, !DIExpression(DW_OP_deref, DW_OP_LLVM_fragment, 96, 32), !27)
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
