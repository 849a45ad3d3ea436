//! `dwarfsmith lines` and `dwarfsmith verify --line-table` on objects of
//! dwarfsmith, gcc, clang-19 and llc-19.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use dwarfsmith::linecheck::{check_line_table, format_findings, format_lines, list_lines};
use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};
use dwarfsmith_emit::model::LineRow;
use expect_test::expect;
use support::{build_c, corpus_programs, dwarfsmith, fixture, run};

/// Builds fixtures/ll/NAME with llc-19 -O2 into `dir`.
fn build_llc(dir: &Path, ll_name: &str) -> PathBuf {
    let object = dir.join(format!("{ll_name}.llc.o"));
    let out = run(Command::new("llc-19")
        .args(["-O2", "-filetype=obj"])
        .arg(fixture(&format!("ll/{ll_name}")))
        .arg("-o")
        .arg(&object));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

/// Compiles fixtures/ll/NAME with dwarfsmith at `opt_level`.
fn build_ours(ll_name: &str, opt_level: OptLevel) -> Vec<u8> {
    let text = std::fs::read_to_string(fixture(&format!("ll/{ll_name}"))).unwrap();
    dwarfsmith::compile(&text, ll_name, &options(opt_level)).unwrap()
}

fn options(opt_level: OptLevel) -> CompileOptions {
    CompileOptions {
        opt_level,
        debug_info: true,
        debugger_tune: DebuggerTune::Gdb,
    }
}

fn findings_text(object: &[u8], reference: Option<&[u8]>) -> String {
    format_findings(&check_line_table(object, reference).unwrap(), false)
}

#[test]
fn lines_lists_every_row_of_a_clang_object() {
    let bytes = std::fs::read(fixture("obj/licm.clang19.O2.o")).unwrap();
    let listing = list_lines(&bytes).unwrap();
    expect![[r#"
        address        function                     file:line:column       flags
        .text+0x0      accumulate                   licm.c:5:21            is_stmt prologue_end
        .text+0x2      accumulate+0x2               licm.c:5:3             
        .text+0x19     accumulate+0x19              licm.c:9:3             is_stmt
        .text+0x1a     accumulate+0x1a              licm.c:0:3             
        .text+0x1c     accumulate+0x1c              licm.c:9:3             
        .text+0x20     invariant_product            licm.c:14:21           is_stmt prologue_end
        .text+0x22     invariant_product+0x2        licm.c:14:3            
        .text+0x28     invariant_product+0x8        licm.c:0:3             
        .text+0x34     invariant_product+0x14       licm.c:14:3            
        .text+0x70     invariant_product+0x50       licm.c:16:17           is_stmt
        .text+0x78     invariant_product+0x58       licm.c:16:9            
        .text+0x7c     invariant_product+0x5c       licm.c:16:17           
        .text+0x80     invariant_product+0x60       licm.c:16:9            
        .text+0x88     invariant_product+0x68       licm.c:14:27           is_stmt
        .text+0x8d     invariant_product+0x6d       licm.c:14:3            
        .text+0xb0     invariant_product+0x90       licm.c:16:9            is_stmt
        .text+0xb2     invariant_product+0x92       licm.c:14:21           is_stmt
        .text+0xb8     invariant_product+0x98       licm.c:18:3            is_stmt
        .text+0xb9     invariant_product+0x99       licm.c:0:3             
        .text+0xbb     invariant_product+0x9b       licm.c:18:3            
        .text+0xbc     -                            licm.c:18:3            end_sequence
    "#]]
    .assert_eq(&format_lines(&listing, false));
}

#[test]
fn lines_json_names_the_full_file_path_and_every_flag() {
    let object = fixture("obj/licm.clang19.O2.o");
    let out = dwarfsmith(&["lines", object.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let first: Vec<&str> = text.lines().take(2).collect();
    assert_eq!(first[0], "{\"rows\": [");
    assert!(
        first[1].starts_with(
            "  {\"address\": \".text+0x0\", \"function\": \"accumulate\", \"file\": \""
        ) && first[1].ends_with(
            "/licm.c\", \"line\": 5, \"column\": 21, \"is_stmt\": true, \"prologue_end\": true, \
                 \"epilogue_begin\": false, \"discriminator\": 0, \"end_sequence\": false},"
        ),
        "{}",
        first[1]
    );
    assert_eq!(text.lines().count(), 21 + 2);
}

/// An is_stmt row of a loop-body line (15: `int prod = *p * *q;`) planted
/// before the loop of invariant_product, where a hoisted load would sit,
/// is flagged against clang's -O0 object; the unedited object is clean.
#[test]
fn a_planted_out_of_order_is_stmt_row_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let reference = std::fs::read(build_c(dir.path(), "clang-19", "licm", &["-O0"])).unwrap();
    let text = std::fs::read_to_string(fixture("ll/licm.O0.ll")).unwrap();
    let mut model =
        dwarfsmith::compile_to_model(&text, "licm.O0.ll", &options(OptLevel::O0)).unwrap();
    let write = |model: &dwarfsmith_emit::model::ObjectModel| {
        dwarfsmith_emit::write::write(
            model,
            &dwarfsmith_emit::write::WriteOptions {
                debugger_tune: DebuggerTune::Gdb,
            },
        )
        .unwrap()
    };
    assert_eq!(findings_text(&write(&model), Some(&reference)), "");
    let function = model
        .functions
        .iter()
        .position(|f| f.name == "invariant_product")
        .unwrap();
    let debug = model.debug.as_mut().unwrap();
    let rows: &mut Vec<LineRow> = &mut debug.line_rows[function];
    // The row of `int out = 0;` (line 13) is before the loop.
    let before_loop = rows.iter().position(|r| r.line == 13).unwrap();
    let planted = LineRow {
        line: 15,
        column: 16,
        is_stmt: true,
        prologue_end: false,
        ..rows[before_loop]
    };
    let offset = planted.offset;
    rows.insert(before_loop + 1, planted);
    let object = write(&model);
    let findings = check_line_table(&object, Some(&reference)).unwrap();
    assert_eq!(findings.len(), 1, "{}", format_findings(&findings, false));
    assert_eq!(findings[0].line, 15);
    assert_eq!(
        findings[0].function,
        format!("invariant_product+{offset:#x}")
    );
    assert_eq!(
        findings[0].message,
        "is_stmt row reached before its loop runs: in the reference every row of line 15 is \
         inside the loop entered at line 14; here the row is outside that loop and every path from it enters the loop"
    );

    // The command line: exit status 1, the finding in text and JSON.
    let path = dir.path().join("planted.o");
    std::fs::write(&path, &object).unwrap();
    let reference_path = dir.path().join("licm.clang-19-O0.o");
    for json in [false, true] {
        let mut args = vec![
            "verify",
            "--line-table",
            path.to_str().unwrap(),
            "--against",
            reference_path.to_str().unwrap(),
        ];
        if json {
            args.push("--json");
        }
        let out = dwarfsmith(&args);
        assert_eq!(out.status.code(), Some(1));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let expected = if json {
            format!(
                "{{\"findings\": [\n  {{\"address\": \"{}\", \"function\": \"{}\", \"line\": 15, \"reason\": \"{}\"}}\n]}}\n",
                findings[0].address, findings[0].function, findings[0].message
            )
        } else {
            format_findings(&findings, false)
        };
        assert_eq!(stdout, expected);
    }
}

/// The -O0 objects of gcc, clang-19 and dwarfsmith of every corpus program:
/// nothing found, alone or against either compiler's -O0 object.
#[test]
fn nothing_found_on_o0_objects_of_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = String::new();
    for program in corpus_programs() {
        let gcc = std::fs::read(build_c(dir.path(), "gcc", &program, &["-O0"])).unwrap();
        let clang = std::fs::read(build_c(dir.path(), "clang-19", &program, &["-O0"])).unwrap();
        let ours = build_ours(&format!("{program}.O0.ll"), OptLevel::O0);
        for (name, object) in [("gcc", &gcc), ("clang-19", &clang), ("dwarfsmith", &ours)] {
            for (reference_name, reference) in [
                ("alone", None),
                ("clang-19", Some(&clang)),
                ("gcc", Some(&gcc)),
            ] {
                let found = findings_text(object, reference.map(|r| r.as_slice()));
                if !found.is_empty() {
                    failures.push_str(&format!(
                        "{program} {name} -O0 against {reference_name}:\n{found}"
                    ));
                }
            }
        }
    }
    assert_eq!(failures, "");
}

/// gcc -O2, llc-19 -O2 and dwarfsmith -O2 objects of the corpus, checked
/// against clang-19's -O0 object: the check runs on each, and the findings
/// are printed per object (they are the out-of-order is_stmt rows of
/// optimised code; the test asserts none for rows outside the rule).
#[test]
fn optimised_objects_of_the_corpus_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    for program in corpus_programs() {
        let reference = std::fs::read(build_c(dir.path(), "clang-19", &program, &["-O0"])).unwrap();
        let gcc = std::fs::read(build_c(dir.path(), "gcc", &program, &["-O2"])).unwrap();
        let llc = std::fs::read(build_llc(dir.path(), &format!("{program}.O2.ll"))).unwrap();
        let ours = build_ours(&format!("{program}.O2.ll"), OptLevel::O2);
        for (name, object) in [
            ("gcc -O2", &gcc),
            ("llc-19 -O2", &llc),
            ("dwarfsmith -O2", &ours),
        ] {
            let findings = check_line_table(object, Some(&reference)).unwrap();
            println!("{program} {name}: {} finding(s)", findings.len());
            print!("{}", format_findings(&findings, false));
        }
    }
}
