//! Instruction selection snapshots: the MIR isel makes of corpus functions,
//! and a sweep selecting every function of every corpus file.

use dwarfsmith::codegen::isel::{select_function, IselOptions};
use dwarfsmith::ir::parse::parse_module;
use expect_test::{expect, Expect};

fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/ll/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Selects `function` of fixture `file` and compares its MIR with `expected`.
fn check(file: &str, function: &str, expected: Expect) {
    let module = parse_module(&fixture(file), file).unwrap();
    let id = module.function_by_name(function).unwrap();
    let selected = select_function(&module, id, &IselOptions { debug_info: true }).unwrap();
    expected.assert_eq(&selected.mir.to_string());
}

#[test]
fn arith_temps_blend() {
    check(
        "arith_temps.O2.ll",
        "blend",
        expect![[r#"
            name: blend
            bb.0:
              %5 = COPY $rdi
              %6 = COPY $rsi
              DBG_VALUE %5, !var0, !expr0  ; loc 1
              DBG_VALUE %6, !var1, !expr0  ; loc 1
              %0 = COPY %6  ; loc 2
              %0 = IMUL32 %0, %5  ; loc 2
              DBG_VALUE $noreg, !var2, !expr0  ; loc 1
              DBG_VALUE $noreg, !var3, !expr0  ; loc 1
              %1 = COPY %6  ; loc 3
              %1 = SUB32 %1, %5  ; loc 3
              %2 = COPY %1  ; loc 3
              %2 = ADD32 %2, 4  ; loc 3
              %3 = COPY %2  ; loc 4
              %3 = ADD32 %3, %0  ; loc 4
              DBG_VALUE %3, !var4, !expr0  ; loc 1
              %4 = COPY %3  ; loc 5
              %4 = XOR32 %4, %6  ; loc 5
              $rax = COPY %4  ; loc 6
              RET $rax  ; loc 6
        "#]],
    );
}

#[test]
fn arith_temps_offsets() {
    check(
        "arith_temps.O2.ll",
        "offsets",
        expect![[r#"
            name: offsets
            bb.0:
              %5 = COPY $rdi
              %6 = COPY $rsi
              DBG_VALUE %5, !var0, !expr0  ; loc 7
              DBG_VALUE %6, !var1, !expr0  ; loc 7
              %0 = COPY %6  ; loc 8
              %0 = ADD32 %0, %5  ; loc 8
              DBG_VALUE %0, !var2, !expr0  ; loc 7
              %1 = COPY %6  ; loc 9
              %1 = SUB32 %1, %5  ; loc 9
              DBG_VALUE_LIST %5, %6, !var3, !expr1  ; loc 7
              DBG_VALUE %0, !var4, !expr2  ; loc 7
              %3 = COPY %1  ; loc 11
              %3 = SHL32 %3, 2  ; loc 11
              DBG_VALUE_LIST %5, %6, !var5, !expr3  ; loc 7
              %4 = LEA32 [%3 + %0*8]  ; loc 12
              $rax = COPY %4  ; loc 13
              RET $rax  ; loc 13
        "#]],
    );
}

#[test]
fn arith_temps_narrow() {
    check(
        "arith_temps.O2.ll",
        "narrow",
        expect![[r#"
            name: narrow
            bb.0:
              %6 = COPY $rdi
              %7 = COPY $rsi
              DBG_VALUE %6, !var0, !expr0  ; loc 14
              DBG_VALUE %7, !var1, !expr1  ; loc 14
              %0 = MOVZX32_16 %6  ; loc 15
              %1 = COPY %0  ; loc 16
              %1 = SHL32 %1, 8  ; loc 16
              DBG_VALUE %1, !var2, !expr2  ; loc 14
              %2 = MOVZX32_8 %7  ; loc 17
              %3 = COPY %1  ; loc 18
              %3 = ADD32 %3, %2  ; loc 18
              DBG_VALUE %3, !var3, !expr2  ; loc 14
              %4 = COPY %3  ; loc 19
              %4 = AND32 %4, 4080  ; loc 19
              DBG_VALUE %4, !var4, !expr2  ; loc 14
              %5 = COPY %4  ; loc 20
              %5 = ADD32 %5, 1  ; loc 20
              $rax = COPY %5  ; loc 21
              RET $rax  ; loc 21
        "#]],
    );
}

#[test]
fn many_args_caller() {
    check(
        "many_args.O2.ll",
        "caller",
        expect![[r#"
            name: caller
            bb.0:
              %4 = COPY $rdi
              DBG_VALUE %4, !var0, !expr0  ; loc 26
              DBG_VALUE %4, !var1, !expr0  ; loc 28
              DBG_VALUE %4, !var2, !expr1  ; loc 28
              DBG_VALUE %4, !var3, !expr2  ; loc 28
              DBG_VALUE %4, !var4, !expr3  ; loc 28
              DBG_VALUE %4, !var5, !expr4  ; loc 28
              DBG_VALUE %4, !var6, !expr5  ; loc 28
              DBG_VALUE %4, !var7, !expr6  ; loc 28
              DBG_VALUE %4, !var8, !expr7  ; loc 28
              DBG_VALUE %4, !var9, !expr8  ; loc 28
              %0 = COPY %4  ; loc 29
              %0 = SHL32 %0, 1  ; loc 29
              DBG_VALUE $noreg, !var10, !expr0  ; loc 26
              %1 = IMUL32 %4, 6
              %2 = COPY %0  ; loc 30
              %2 = ADD32 %2, 36  ; loc 30
              %3 = COPY %2  ; loc 31
              %3 = ADD32 %3, %1  ; loc 31
              $rax = COPY %3  ; loc 32
              RET $rax  ; loc 32
        "#]],
    );
}

#[test]
fn many_args_weigh() {
    check(
        "many_args.O2.ll",
        "weigh",
        expect![[r#"
            name: weigh
            bb.0:
              %15 = COPY $rdi
              %16 = COPY $rsi
              %17 = COPY $rdx
              %18 = COPY $rcx
              %19 = COPY $r8
              %20 = COPY $r9
              %21 = LOAD32 [%incoming-args]
              %22 = LOAD64 [%incoming-args + 8]
              DBG_VALUE %15, !var0, !expr0  ; loc 1
              DBG_VALUE %16, !var1, !expr1  ; loc 1
              DBG_VALUE %17, !var2, !expr2  ; loc 1
              DBG_VALUE %18, !var3, !expr3  ; loc 1
              DBG_VALUE %19, !var4, !expr4  ; loc 1
              DBG_VALUE %20, !var5, !expr5  ; loc 1
              DBG_VALUE incoming+0:32, !var6, !expr2  ; loc 1
              DBG_VALUE incoming+8:64, !var7, !expr3  ; loc 1
              %0 = MOVSX32_8 %15  ; loc 2
              %1 = MOVSX32_16 %16  ; loc 3
              %2 = COPY %1  ; loc 4
              %2 = ADD32 %2, %0  ; loc 4
              %3 = COPY %2  ; loc 5
              %3 = ADD32 %3, %17  ; loc 5
              %4 = MOVSX64_32 %3  ; loc 2
              DBG_VALUE %4, !var8, !expr3  ; loc 1
              %5 = MOVZX64_8 %19  ; loc 6
              %6 = MOVZX64_16 %20  ; loc 7
              %7 = COPY %5  ; loc 8
              %7 = ADD64 %7, %6  ; loc 8
              %8 = COPY %18  ; loc 8
              %8 = SUB64 %8, %7  ; loc 8
              DBG_VALUE %8, !var9, !expr3  ; loc 1
              %9 = MOVSX64_32 %21  ; loc 9
              %10 = COPY %9  ; loc 10
              %10 = IMUL64 %10, %22  ; loc 10
              DBG_VALUE %10, !var10, !expr3  ; loc 1
              %11 = IMUL64 %4, 100  ; loc 11
              %12 = IMUL64 %8, 10  ; loc 12
              %13 = COPY %12  ; loc 13
              %13 = ADD64 %13, %11  ; loc 13
              %14 = COPY %13  ; loc 14
              %14 = ADD64 %14, %10  ; loc 14
              $rax = COPY %14  ; loc 15
              RET $rax  ; loc 15
        "#]],
    );
}

/// Every defined function of every corpus file is selected without error.
#[test]
fn whole_corpus_selects() {
    let dir = format!("{}/fixtures/ll", env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    for name in names {
        let module = parse_module(&fixture(&name), &name).unwrap();
        for (i, f) in module.functions.iter().enumerate() {
            if f.is_declaration() {
                continue;
            }
            let id = dwarfsmith::ir::FuncId(i as u32);
            if let Err(e) = select_function(&module, id, &IselOptions { debug_info: true }) {
                failures.push(format!("{name} @{}: {e}", f.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Selects the only function of `text` and returns the diagnostic.
fn error_of(text: &str) -> String {
    let module = parse_module(text, "bad.ll").unwrap();
    let id = module.function_by_name("f").unwrap();
    let mut e = select_function(&module, id, &IselOptions { debug_info: true }).unwrap_err();
    e.file = "bad.ll".into();
    e.to_string()
}

#[test]
fn unsupported_input_is_a_diagnostic_naming_it() {
    let ctlz = "declare i24 @llvm.ctlz.i24(i24, i1)\n\
                define i24 @f(i24 %x) {\n\
                \x20 %c = call i24 @llvm.ctlz.i24(i24 %x, i1 false)\n\
                \x20 ret i24 %c\n\
                }\n";
    assert_eq!(
        error_of(ctlz),
        "bad.ll:3:3: error: function @f: unsupported intrinsic 'llvm.ctlz.i24'"
    );
    let unknown = "declare i32 @llvm.frobnicate.i32(i32)\n\
                   define i32 @f(i32 %x) {\n\
                   \x20 %c = call i32 @llvm.frobnicate.i32(i32 %x)\n\
                   \x20 ret i32 %c\n\
                   }\n";
    assert_eq!(
        error_of(unknown),
        "bad.ll:3:3: error: function @f: unsupported intrinsic 'llvm.frobnicate.i32'"
    );
    let three = "define { i64, i64, i64 } @f(i64 %x) {\n\
                 \x20 %a = insertvalue { i64, i64, i64 } poison, i64 %x, 0\n\
                 \x20 ret { i64, i64, i64 } %a\n\
                 }\n";
    assert_eq!(
        error_of(three),
        "bad.ll:3:3: error: function @f: unsupported return of { i64, i64, i64 } (more than two registers \
         of a kind: beyond the C ABI, which clang meets with sret)"
    );
    let wide = "define double @f(i128 %x) {\n\
                \x20 %y = sitofp i128 %x to double\n\
                \x20 ret double %y\n\
                }\n";
    assert_eq!(
        error_of(wide),
        "bad.ll:2:3: error: function @f: unsupported instruction 'sitofp' of i128"
    );
}

/// Global variables become data objects with exact bytes, sections and
/// pointer relocations.
#[test]
fn globals_become_data_objects() {
    let text = "%pair = type { i8, i32 }\n\
                @s = private unnamed_addr constant [3 x i8] c\"hi\\00\", align 1\n\
                @p = dso_local global %pair { i8 7, i32 -2 }, align 4\n\
                @q = global ptr getelementptr inbounds ([3 x i8], ptr @s, i64 0, i64 1), align 8\n\
                @z = internal global [2 x i16] zeroinitializer, align 2\n\
                @e = external global i32\n";
    let module = parse_module(text, "data.ll").unwrap();
    let data = dwarfsmith::codegen::isel::select_data(&module).unwrap();
    let shown: Vec<String> = data
        .iter()
        .map(|d| {
            format!(
                "{} {:?} global={} align={} {:02x?} {:?}",
                d.name,
                d.section,
                d.global,
                d.align,
                d.bytes,
                d.relocations
                    .iter()
                    .map(|r| format!("{}:{:?}{:?}{:+}", r.offset, r.kind, r.symbol, r.addend))
                    .collect::<Vec<_>>()
            )
        })
        .collect();
    expect![[r#"
        s Strings global=false align=1 [68, 69, 00] []
        p Data global=true align=4 [07, 00, 00, 00, fe, ff, ff, ff] []
        q Data global=true align=8 [00, 00, 00, 00, 00, 00, 00, 00] ["0:Abs64Named(\"s\")+1"]
        z Bss global=false align=2 [00, 00, 00, 00] []"#]]
    .assert_eq(&shown.join("\n"));
}
