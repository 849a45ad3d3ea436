//! is_stmt decided from source order and from Key Instructions: what the
//! line table of dwarfsmith's objects says, and what gdb and addr2line do
//! with it.

mod support;

use std::process::Command;

use dwarfsmith::linecheck::{check_line_table, format_findings, format_lines, list_lines};
use dwarfsmith::{CompileOptions, DebuggerTune, OptLevel};
use expect_test::expect;
use support::{dwarfsmith, fixture, gdb_batch, link_with_driver, run};

fn compile(text: &str, name: &str, opt_level: OptLevel) -> Vec<u8> {
    let options = CompileOptions {
        opt_level,
        debug_info: true,
        debugger_tune: DebuggerTune::Gdb,
    };
    dwarfsmith::compile(text, name, &options).unwrap()
}

fn lines_of(bytes: &[u8]) -> String {
    format_lines(&list_lines(bytes).unwrap(), false)
}

fn key_instructions_ll() -> String {
    std::fs::read_to_string(fixture("lines/key_instructions.ll")).unwrap()
}

#[test]
fn key_instructions_put_is_stmt_on_each_atoms_key_instruction() {
    let text = key_instructions_ll();
    // The add (line 3) is only the store's backup (rank 2): no is_stmt,
    // and prologue_end moves on to the store, the statement. The branch
    // and its compare (both 4:7, ranks 1 and 2) make one row, a statement:
    // a second location at the same line and column is no new row.
    expect![[r#"
        address        function                     file:line:column       flags
        .text+0x0      store_sum                    key_instructions.c:3:7 
        .text+0x3      store_sum+0x3                key_instructions.c:2:6 is_stmt prologue_end
        .text+0x5      store_sum+0x5                key_instructions.c:4:7 is_stmt
        .text+0x9      store_sum+0x9                key_instructions.c:4:13 is_stmt
        .text+0xf      store_sum+0xf                key_instructions.c:5:1 is_stmt epilogue_begin
        .text+0x10     -                            key_instructions.c:5:1 is_stmt end_sequence
    "#]]
    .assert_eq(&lines_of(&compile(
        &text,
        "key_instructions.ll",
        OptLevel::O0,
    )));
    // Without keyInstructions: true the atoms are ignored (LLVM's rule):
    // every line's first row in a block is a statement.
    let plain = text.replace(", keyInstructions: true", "");
    assert_ne!(plain, text);
    expect![[r#"
        address        function                     file:line:column       flags
        .text+0x0      store_sum                    key_instructions.c:3:7 is_stmt prologue_end
        .text+0x3      store_sum+0x3                key_instructions.c:2:6 is_stmt
        .text+0x5      store_sum+0x5                key_instructions.c:4:7 is_stmt
        .text+0x9      store_sum+0x9                key_instructions.c:4:13 is_stmt
        .text+0xf      store_sum+0xf                key_instructions.c:5:1 is_stmt epilogue_begin
        .text+0x10     -                            key_instructions.c:5:1 is_stmt end_sequence
    "#]]
    .assert_eq(&lines_of(&compile(
        &plain,
        "key_instructions.ll",
        OptLevel::O0,
    )));
}

#[test]
fn key_instructions_metadata_prints_back_and_is_range_checked() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("lines/key_instructions.ll");
    let out = dwarfsmith(&["opt", input.to_str().unwrap(), "-o", "-"]);
    assert!(out.status.success());
    let printed = String::from_utf8(out.stdout).unwrap();
    let locations: Vec<&str> = printed
        .lines()
        .filter(|l| l.contains("DILocation"))
        .collect();
    expect![[r#"
        !7 = !DILocation(line: 3, column: 7, scope: !4, atomGroup: 1, atomRank: 2)
        !8 = !DILocation(line: 2, column: 6, scope: !4, atomGroup: 1, atomRank: 1)
        !9 = !DILocation(line: 4, column: 7, scope: !4, atomGroup: 2, atomRank: 2)
        !10 = !DILocation(line: 4, column: 7, scope: !4, atomGroup: 2, atomRank: 1)
        !11 = !DILocation(line: 4, column: 13, scope: !4, atomGroup: 3, atomRank: 1)
        !12 = !DILocation(line: 4, column: 13, scope: !4)
        !13 = !DILocation(line: 5, column: 1, scope: !4, atomGroup: 4, atomRank: 1)"#]]
    .assert_eq(&locations.join("\n"));
    assert!(printed.contains("keyInstructions: true"));
    // atomRank is 3 bits in LLVM; a misspelt field is not silently dropped.
    for (from, to, message) in [
        (
            "atomRank: 2)",
            "atomRank: 8)",
            "error: field 'atomRank' out of range",
        ),
        (
            "atomRank: 2)",
            "atomRonk: 2)",
            "error: invalid field 'atomRonk' of DILocation",
        ),
    ] {
        let bad = dir.path().join("bad.ll");
        std::fs::write(&bad, key_instructions_ll().replacen(from, to, 1)).unwrap();
        let out = dwarfsmith(&["opt", bad.to_str().unwrap(), "-o", "-"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            stderr.contains("bad.ll:38:") && stderr.contains(message),
            "{stderr}"
        );
    }
}

/// Our -O2 of clang's -O0 IR of select_diamond.c speculates both arms of
/// `pick`'s if/else into a select: the arms keep their lines (an address
/// in them names the statement) but not is_stmt; the compare fused into
/// the select keeps the `if`'s line (5), where a breakpoint on the
/// function stops, not in a speculated arm.
#[test]
fn speculated_code_keeps_its_line_without_is_stmt() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("ll/select_diamond.O0.ll")).unwrap();
    let bytes = compile(&text, "select_diamond.O0.ll", OptLevel::O2);
    expect![[r#"
        address        function                     file:line:column       flags
        .text+0x0      pick                         select_diamond.c:3:0   is_stmt
        .text+0x4      pick+0x4                     select_diamond.c:6:11  
        .text+0x7      pick+0x7                     select_diamond.c:8:11  
        .text+0xa      pick+0xa                     select_diamond.c:5:9   is_stmt prologue_end
        .text+0xc      pick+0xc                     select_diamond.c:0:0   
        .text+0xf      pick+0xf                     select_diamond.c:9:12  is_stmt
        .text+0x12     pick+0x12                    select_diamond.c:9:3   
        .text+0x15     pick+0x15                    select_diamond.c:9:3   epilogue_begin
        .text+0x17     -                            select_diamond.c:9:3   end_sequence
        .text+0x20     abs_diff                     select_diamond.c:12:0  is_stmt
        .text+0x24     abs_diff+0x4                 select_diamond.c:13:13 is_stmt prologue_end
        .text+0x26     abs_diff+0x6                 select_diamond.c:16:9  
        .text+0x2d     abs_diff+0xd                 select_diamond.c:0:0   
        .text+0x30     abs_diff+0x10                select_diamond.c:14:15 is_stmt
        .text+0x32     abs_diff+0x12                select_diamond.c:0:0   
        .text+0x35     abs_diff+0x15                select_diamond.c:17:3  is_stmt
        .text+0x38     abs_diff+0x18                select_diamond.c:17:3  epilogue_begin
        .text+0x3a     -                            select_diamond.c:17:3  end_sequence
    "#]]
    .assert_eq(&lines_of(&bytes));
    let object = dir.path().join("select_diamond.o");
    std::fs::write(&object, &bytes).unwrap();
    let out = run(Command::new("addr2line")
        .arg("-e")
        .arg(&object)
        .args(["0x4", "0x7", "0x26"]));
    let named: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.rsplit(':').next().unwrap().to_string())
        .collect();
    assert_eq!(named, ["6", "8", "16"]);
    let exe = link_with_driver(dir.path(), &object, "select_diamond");
    let stops = gdb_batch(&exe, &["break pick", "run", "info line *$pc"]);
    assert!(
        stops.contains("Line 5 of \"./select_diamond.c\""),
        "gdb stopped elsewhere:\n{stops}"
    );
}

/// is_sorted's loop: no is_stmt row of the loop body's line (16) before
/// the loop runs, in our -O2 of clang's -O2 IR and of its -O0 IR: phi
/// copies on the edge into the loop are line 0, as llc makes them.
#[test]
fn no_loop_body_statement_in_is_sorteds_preheader() {
    let reference = compile(
        &std::fs::read_to_string(fixture("ll/sort.O0.ll")).unwrap(),
        "sort.O0.ll",
        OptLevel::O0,
    );
    for input in ["sort.O2.ll", "sort.O0.ll"] {
        let text = std::fs::read_to_string(fixture(&format!("ll/{input}"))).unwrap();
        let bytes = compile(&text, input, OptLevel::O2);
        let findings = check_line_table(&bytes, Some(&reference)).unwrap();
        assert!(
            findings.is_empty(),
            "{input}: {}",
            format_findings(&findings, false)
        );
        let listing = lines_of(&bytes);
        let is_sorted: Vec<&str> = listing
            .lines()
            .filter(|l| l.contains(" is_sorted") && l.contains("is_stmt"))
            .collect();
        // The edge into the loop (after the peeled first comparison) has
        // only line-0 rows: none of line 16 with is_stmt outside the loop.
        if input == "sort.O2.ll" {
            expect![[r#"
                .text+0x60     is_sorted                    sort.c:15:21           is_stmt prologue_end
                .text+0x6a     is_sorted+0xa                sort.c:19:1            is_stmt epilogue_begin
                .text+0x6b     is_sorted+0xb                sort.c:15:0            is_stmt
                .text+0x6d     is_sorted+0xd                sort.c:16:9            is_stmt
                .text+0x81     is_sorted+0x21               sort.c:15:27           is_stmt
                .text+0x8a     is_sorted+0x2a               sort.c:16:9            is_stmt"#]]
            .assert_eq(&is_sorted.join("\n"));
        }
    }
}

/// licm.c's `int foo = *bar;` (line 6): our -O2 of clang's -O0 IR hoists
/// the load out of the loop (nothing in the loop writes memory). The load
/// keeps line 6 without is_stmt, so addr2line on it names line 6 while
/// gdb, stepping the function with `next`, never stops at line 6 before
/// the loop's first iteration (line 7).
#[test]
fn hoisted_load_keeps_its_line_without_is_stmt() {
    let dir = tempfile::tempdir().unwrap();
    let object = support::compile_fixture(dir.path(), "licm.O0.ll", &["-O2"]);
    let listing = lines_of(&std::fs::read(&object).unwrap());
    let accumulate: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains(" accumulate"))
        .collect();
    expect![[r#"
        .text+0x0      accumulate                   licm.c:3:0             is_stmt
        .text+0x4      accumulate+0x4               licm.c:5:21            
        .text+0x6      accumulate+0x6               licm.c:5:8             is_stmt prologue_end
        .text+0x8      accumulate+0x8               licm.c:0:0             
        .text+0xf      accumulate+0xf               licm.c:6:15            
        .text+0x11     accumulate+0x11              licm.c:5:3             is_stmt
        .text+0x1c     accumulate+0x1c              licm.c:7:18            is_stmt
        .text+0x23     accumulate+0x23              licm.c:7:11            
        .text+0x26     accumulate+0x26              licm.c:5:27            is_stmt
        .text+0x2a     accumulate+0x2a              licm.c:5:21            
        .text+0x2d     accumulate+0x2d              licm.c:5:3             
        .text+0x2f     accumulate+0x2f              licm.c:5:3             is_stmt
        .text+0x32     accumulate+0x32              licm.c:9:3             is_stmt epilogue_begin"#]]
    .assert_eq(&accumulate.join("\n"));
    // The line-6 row is the hoisted load, in front of the loop (0x1e).
    let load_row = accumulate.iter().find(|l| l.contains("licm.c:6:")).unwrap();
    let address = load_row
        .split_whitespace()
        .next()
        .unwrap()
        .trim_start_matches(".text+");
    let disassembly = run(Command::new("objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(&object));
    let text = String::from_utf8_lossy(&disassembly.stdout);
    let label = format!("{}:", &address[2..]);
    let instruction = text
        .lines()
        .find(|l| l.trim_start().starts_with(&label))
        .unwrap();
    assert!(
        instruction.contains("mov") && instruction.contains("(%rdi)"),
        "not the load of *bar: {instruction}"
    );
    let out = run(Command::new("addr2line")
        .arg("-e")
        .arg(&object)
        .arg(address));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        "././licm.c:6"
    );
    // Both calls: accumulate(&y, 0), whose loop never runs, then
    // accumulate(&x, 10); the program's output is unchanged.
    let exe = link_with_driver(dir.path(), &object, "licm");
    let output = run(&mut Command::new(&exe));
    let expected = std::fs::read_to_string(fixture("expected/licm.out")).unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    // With the source found, every line gdb prints goes to stdout, in order.
    let sources = format!("directory {}", fixture("src").display());
    let mut commands = vec![&sources[..], "break accumulate", "run", "next", "continue"];
    commands.extend(["next"; 6]);
    let session = gdb_batch(&exe, &commands);
    // The line of each stop: "N\t..." after `next`, "at ./licm.c:N" at
    // the breakpoint (whose source line gdb then echoes); a new call
    // starts at each breakpoint.
    let mut calls: Vec<Vec<u32>> = Vec::new();
    let mut echo = false;
    for line in session.lines() {
        if line.starts_with("Breakpoint 1, accumulate") {
            let at = line.rsplit(':').next().unwrap().parse().unwrap();
            calls.push(vec![at]);
            echo = true;
        } else if let Some((number, _)) = line.split_once('\t') {
            if let (Ok(n), Some(call)) = (number.parse::<u32>(), calls.last_mut()) {
                if !std::mem::take(&mut echo) {
                    call.push(n);
                }
            }
        }
    }
    assert_eq!(calls.len(), 2, "{session}");
    // No iteration: the loop's header, then the return.
    assert_eq!(calls[0], [5, 9], "{session}");
    let first_body = calls[1].iter().position(|&l| l == 7);
    assert!(first_body.is_some(), "{session}");
    assert!(
        !calls[1][..first_body.unwrap()].contains(&6),
        "gdb stopped at line 6 before the loop ran: {:?}",
        calls[1]
    );
    assert_eq!(calls[1], [5, 7, 5, 7, 5, 7, 5], "{session}");
}

/// Our compile of clang's -O2 IR of inlining.c: `energy`'s loop is
/// unrolled twice with clamp and square inlined into each copy. In the
/// unrolled block (from 0x81) each line's statement is its first copy
/// (18, then the inlined 10, 11 and 4, then 19 and the increment 17:27);
/// the second copy keeps its lines for addr2line but no is_stmt, so a
/// breakpoint on a line of the body stops in the first iteration the
/// block runs, not the last.
#[test]
fn unrolled_and_inlined_lines_are_statements_on_their_first_copy() {
    let text = std::fs::read_to_string(fixture("ll/inlining.O2.ll")).unwrap();
    let bytes = compile(&text, "inlining.O2.ll", OptLevel::O2);
    expect![[r#"
        address        function                     file:line:column       flags
        .text+0x0      energy                       inlining.c:17:21       is_stmt prologue_end
        .text+0x2      energy+0x2                   inlining.c:17:3        
        .text+0x4      energy+0x4                   inlining.c:0:0         
        .text+0x9      energy+0x9                   inlining.c:21:3        is_stmt epilogue_begin
        .text+0xa      energy+0xa                   inlining.c:17:21       is_stmt
        .text+0xc      energy+0xc                   inlining.c:17:3        
        .text+0x18     energy+0x18                  inlining.c:0:0         
        .text+0x2a     energy+0x2a                  inlining.c:17:3        is_stmt
        .text+0x33     energy+0x33                  inlining.c:0:0         
        .text+0x38     energy+0x38                  inlining.c:17:3        is_stmt
        .text+0x4f     energy+0x4f                  inlining.c:18:19       is_stmt
        .text+0x53     energy+0x53                  inlining.c:10:7        is_stmt
        .text+0x60     energy+0x60                  inlining.c:11:7        is_stmt
        .text+0x6d     energy+0x6d                  inlining.c:4:14        is_stmt
        .text+0x74     energy+0x74                  inlining.c:19:7        is_stmt
        .text+0x77     energy+0x77                  inlining.c:17:27       is_stmt
        .text+0x7b     energy+0x7b                  inlining.c:18:19       
        .text+0x7f     energy+0x7f                  inlining.c:10:7        
        .text+0x8b     energy+0x8b                  inlining.c:11:7        
        .text+0x98     energy+0x98                  inlining.c:4:14        
        .text+0x9f     energy+0x9f                  inlining.c:19:7        
        .text+0xa2     energy+0xa2                  inlining.c:17:27       
        .text+0xa6     energy+0xa6                  inlining.c:17:3        
        .text+0xaf     energy+0xaf                  inlining.c:0:0         
        .text+0xbd     energy+0xbd                  inlining.c:18:19       is_stmt
        .text+0xc1     energy+0xc1                  inlining.c:10:7        is_stmt
        .text+0xcb     energy+0xcb                  inlining.c:11:7        is_stmt
        .text+0xd8     energy+0xd8                  inlining.c:4:14        is_stmt
        .text+0xde     energy+0xde                  inlining.c:19:7        is_stmt
        .text+0xe1     energy+0xe1                  inlining.c:21:3        is_stmt
        .text+0xe9     -                            inlining.c:21:3        is_stmt end_sequence
    "#]]
    .assert_eq(&lines_of(&bytes));
    // The second copy still names its lines, the inlined ones included.
    let dir = tempfile::tempdir().unwrap();
    let object = dir.path().join("inlining.o");
    std::fs::write(&object, &bytes).unwrap();
    let out = run(Command::new("addr2line")
        .arg("-e")
        .arg(&object)
        .args(["0x7d", "0x81", "0x8d", "0x9a", "0xa0"]));
    let named: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.rsplit(':').next().unwrap().to_string())
        .collect();
    assert_eq!(named, ["18", "10", "11", "4", "19"]);
}

/// clang -O2 IR of fixtures/lines/sunk.c: instcombine sank `a * b + 7`
/// (line 3) past scaled_sum's loop and `x / y` (line 12) into
/// quotient_or_rest's else branch, both keeping their lines. Their debug
/// records say the source had already passed a later declaration of the
/// same scope (`int s` at line 4 on every path out of the loop, `int w`
/// at line 13 before the branch), so the sunk code keeps its line without
/// is_stmt: gdb's `next` goes from the loop to line 8 and from the `if` to
/// line 17 without stopping at the statement that ran earlier in source.
#[test]
fn code_sunk_in_clang_o2_ir_keeps_its_line_without_is_stmt() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("lines/sunk.O2.ll")).unwrap();
    let bytes = compile(&text, "sunk.O2.ll", OptLevel::O2);
    let listing = lines_of(&bytes);
    let sunk: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains("sunk.c:3:") || l.contains("sunk.c:12:"))
        .collect();
    expect![[r#"
        .text+0x9      scaled_sum+0x9               sunk.c:3:17            
        .text+0xc      scaled_sum+0xc               sunk.c:3:21            
        .text+0x108    quotient_or_rest+0x8         sunk.c:12:13           "#]]
    .assert_eq(&sunk.join("\n"));
    let quotient_or_rest: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains(" quotient_or_rest"))
        .collect();
    expect![[r#"
        .text+0x100    quotient_or_rest             sunk.c:13:13           is_stmt prologue_end
        .text+0x103    quotient_or_rest+0x3         sunk.c:14:9            is_stmt
        .text+0x106    quotient_or_rest+0x6         sunk.c:14:7            
        .text+0x108    quotient_or_rest+0x8         sunk.c:12:13           
        .text+0x10e    quotient_or_rest+0xe         sunk.c:17:14           is_stmt
        .text+0x110    quotient_or_rest+0x10        sunk.c:17:5            
        .text+0x113    quotient_or_rest+0x13        sunk.c:19:1            is_stmt
        .text+0x116    quotient_or_rest+0x16        sunk.c:19:1            epilogue_begin"#]]
    .assert_eq(&quotient_or_rest.join("\n"));
    let object = dir.path().join("sunk.o");
    std::fs::write(&object, &bytes).unwrap();
    // An address in the sunk code still names its statement.
    let out = run(Command::new("addr2line")
        .arg("-e")
        .arg(&object)
        .args(["0xc", "0x10c"]));
    let named: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.rsplit(':').next().unwrap().to_string())
        .collect();
    assert_eq!(named, ["3", "12"]);
    let exe = dir.path().join("sunk");
    let out = run(Command::new("gcc")
        .arg("-g")
        .arg(fixture("lines/sunk.driver.c"))
        .arg(&object)
        .arg("-o")
        .arg(&exe));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let output = run(&mut Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "676\n20 -1\n");
    // scaled_sum(v, 10, 2, 3), then quotient_or_rest(2, 6) (the last
    // argument first, as gcc evaluates them), then quotient_or_rest(20, 6).
    let sources = format!("directory {}", fixture("lines").display());
    let mut commands = vec![&sources[..], "break scaled_sum", "run"];
    commands.extend(["next"; 7]);
    commands.extend(["break quotient_or_rest", "continue", "next", "next"]);
    commands.extend(["continue", "next", "next", "next"]);
    let session = gdb_batch(&exe, &commands);
    // The line of each stop: "N\t..." after `next`, ":N" at a breakpoint
    // (whose source line gdb then echoes).
    let mut calls: Vec<Vec<u32>> = Vec::new();
    let mut echo = false;
    for line in session.lines() {
        let hit = line.starts_with("Breakpoint ") && !line.contains(": file ");
        if hit {
            let at = line.rsplit(':').next().unwrap().parse().unwrap();
            calls.push(vec![at]);
            echo = true;
        } else if let Some((number, _)) = line.split_once('\t') {
            if let (Ok(n), Some(call)) = (number.parse::<u32>(), calls.last_mut()) {
                if !std::mem::take(&mut echo) {
                    call.push(n);
                }
            }
        }
    }
    assert_eq!(
        calls,
        [
            vec![5, 6, 5, 6, 5, 6, 5, 8],
            vec![13, 14, 19],
            vec![13, 14, 17, 19]
        ],
        "{session}"
    );
}
