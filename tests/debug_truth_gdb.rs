//! Debug information that stays true on code the corpus never had (issue
//! 20): each reproducer of `fixtures/debug_truth/` is compiled by the
//! dwarfsmith binary, linked by gcc and run, and where the bug showed in a
//! debugger, gdb's exact output at the stop is asserted.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{compile_ll, fixture, gcc_link, gcc_link_and_run, gdb_batch, llvm_dwarfdump, run};

/// Path of `fixtures/debug_truth/NAME`.
fn truth_fixture(name: &str) -> PathBuf {
    fixture(&format!("debug_truth/{name}"))
}

/// Compiles `fixtures/debug_truth/NAME` with `flags` into `dir`.
fn compile_truth(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let stem = name.trim_end_matches(".ll").replace('.', "_");
    compile_ll(dir, &truth_fixture(name), &stem, flags)
}

/// Compiles `fixtures/debug_truth/NAME` with `flags` and links it alone
/// with gcc; returns (object, executable).
fn build_truth(dir: &Path, name: &str, flags: &[&str]) -> (PathBuf, PathBuf) {
    let object = compile_truth(dir, name, flags);
    let exe = object.with_extension("exe");
    gcc_link(&exe, std::slice::from_ref(&object), &[]);
    (object, exe)
}

/// Compiles `fixtures/debug_truth/NAME.O0.ll` with our -O2 and links it
/// with its gcc-built driver `NAME.driver.c`; returns the executable.
fn build_with_driver(dir: &Path, name: &str) -> PathBuf {
    let object = compile_truth(dir, &format!("{name}.O0.ll"), &["-O2"]);
    let exe = object.with_extension("exe");
    let driver = truth_fixture(&format!("{name}.driver.c"));
    gcc_link(&exe, &[driver, object], &["-g"]);
    exe
}

/// What gdb prints from the first stop at `breakpoint` on, running
/// `commands` there: the stop line, the source line (found in
/// `fixtures/debug_truth/`) and each command's output (lines naming the
/// process, whose number changes, left out).
fn gdb_at(exe: &Path, breakpoint: &str, commands: &[&str]) -> String {
    let sources = truth_fixture("");
    let mut all = vec![
        format!("directory {}", sources.display()),
        format!("break {breakpoint}"),
        "run".to_string(),
    ];
    all.extend(commands.iter().map(|c| c.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let output = gdb_batch(exe, &all);
    let from = output
        .find("\nBreakpoint 1, ")
        .or_else(|| output.find("\nBreakpoint 1."))
        .unwrap_or_else(|| panic!("gdb never stopped at {breakpoint}:\n{output}"));
    output[from + 1..]
        .lines()
        .filter(|l| !l.contains("process") && !l.starts_with("[Inferior"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The location lists llvm-dwarfdump shows for variable `name` in `object`.
fn location_of(object: &Path, name: &str) -> String {
    let out = run(Command::new(llvm_dwarfdump())
        .arg("--debug-info")
        .arg(format!("--name={name}"))
        .arg(object));
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .skip_while(|l| !l.contains("DW_AT_location"))
        .take_while(|l| !l.trim().is_empty())
        .map(|l| format!("{}\n", l.trim()))
        .collect()
}

#[test]
fn a_loop_entered_through_an_earlier_loops_edge_block_compiles_at_every_level() {
    // reload_hoist panicked (index out of bounds) once a hoist into an
    // outer loop had added an edge block and an inner loop came next.
    let dir = tempfile::tempdir().unwrap();
    for level in ["-O0", "-O1", "-O2"] {
        compile_truth(dir.path(), "reload_hoist_panic.ll", &[level]);
    }
}

#[test]
fn a_second_hoist_into_one_loop_after_an_edge_block_compiles_and_runs() {
    // csmith seed 203488 through our -O2 (the long run): reload_hoist's
    // first hoist into a loop added an edge block, and its second into the
    // same loop read the loop's inside-marks, sized before that block
    // (index out of bounds). The marks are now made afresh for each hoist.
    let dir = tempfile::tempdir().unwrap();
    let object = compile_truth(dir.path(), "csmith203488.O0.ll", &["-O2"]);
    let output = gcc_link_and_run(dir.path(), "csmith203488", &[object], &[]);
    assert_eq!(output, "checksum = 51CE5CB0\n");
}

#[test]
fn csmith650_through_our_o2_of_o0_ir_prints_the_gcc_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let object = compile_truth(dir.path(), "csmith650.O0.ll", &["-O2"]);
    let output = gcc_link_and_run(dir.path(), "csmith650", &[object], &[]);
    assert_eq!(output, "checksum = 40AC8B92\n");
}

#[test]
fn a_variable_whose_address_is_in_a_register_is_memory_there_not_a_load() {
    // y is 32-byte aligned beside an alloca: its address is computed into
    // rax. The location was `DW_OP_breg0 RAX+0, DW_OP_deref` (gdb read y's
    // value, 7, as its address: "Cannot access memory at address 0x7").
    // The range ends after `mov (%rax),%eax` (0x42..0x44), the first
    // write of rax.
    let dir = tempfile::tempdir().unwrap();
    let (object, exe) = build_truth(dir.path(), "aligned_local_with_alloca.O2.ll", &[]);
    assert_eq!(
        location_of(&object, "y"),
        "DW_AT_location\t(0x0000001b:\n[0x0000000000000014, 0x0000000000000044): DW_OP_breg0 RAX+0)\n"
    );
    let listing = support::function_listing(&object, "f");
    assert!(
        listing.contains("42:\tmov    eax,DWORD PTR [rax]\n"),
        "{listing}"
    );
    assert_eq!(
        gdb_at(&exe, "aligned_local_with_alloca.c:7", &["print y"]),
        "Breakpoint 1, f (n=n@entry=40) at ./aligned_local_with_alloca.c:7\n7\t  x[0] = 3;\n$1 = 7\n"
    );
}

#[test]
fn an_i1_constant_is_pushed_as_0_or_1() {
    // `b = !a` with a = 0: `i1 true` through DW_OP_LLVM_convert 1 -> 32
    // bits. It was DW_OP_consts -1 and two converts, which gdb showed as
    // 255; the converts fold into the constant, as llc-19's do.
    let dir = tempfile::tempdir().unwrap();
    let (object, exe) = build_truth(dir.path(), "i1_true_shows_255.O2.ll", &[]);
    assert_eq!(
        location_of(&object, "b"),
        "DW_AT_location\t(DW_OP_lit1, DW_OP_stack_value)\n"
    );
    assert_eq!(
        gdb_at(&exe, "i1_true_shows_255.c:16", &["print b"]),
        "Breakpoint 1, main () at ./i1_true_shows_255.c:16\n16\t  return 0;\n$1 = 1\n"
    );
}

#[test]
fn an_i1_in_a_register_is_cut_to_one_bit_by_its_convert() {
    // b = !a over the setcc result: xor with all ones, then
    // DW_OP_LLVM_convert 1. A base type is whole bytes, so the convert
    // alone left bits 1..7 set and gdb showed 254 (llc-19 does too).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "i1_in_register.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "i1_in_register.c:10", &["print a", "print b"]),
        "Breakpoint 1, f (n=n@entry=7, m=m@entry=2) at ./i1_in_register.c:10\n10\t  g = n * 3;\n$1 = 1\n$2 = 0\n"
    );
}

#[test]
fn an_undefined_incoming_value_of_a_phi_is_no_location() {
    // `last` is set only in the loop; the exit block's phi takes undef from
    // the entry. isel writes 0 there, and gdb showed last = 0 at line 12
    // when the loop never ran (n = 1). The value is unknown on that edge,
    // so the phi's debug value has no location.
    let dir = tempfile::tempdir().unwrap();
    let exe = build_with_driver(dir.path(), "undef_phi");
    assert_eq!(
        gdb_at(&exe, "undef_phi.c:12", &["print last", "print i"]),
        "Breakpoint 1, f (n=1) at ./undef_phi.c:12\n12\t  g = i;\n$1 = <optimized out>\n$2 = 3\n"
    );
}

#[test]
fn a_value_set_in_a_branch_arm_that_block_placement_skips_is_not_the_old_one() {
    // `x` is 6 after the `if` arm and 5 after the `else`; the arm holds
    // only that debug value and a jump. Block placement sent the branch
    // straight to the join and dropped the arm, and gdb showed x = 5 at
    // line 13 on the second pass, after `++x` had run (csmith seed
    // 100163). The join does not know which arm ran: no location there.
    let dir = tempfile::tempdir().unwrap();
    let exe = build_with_driver(dir.path(), "arm_update");
    assert_eq!(
        gdb_at(&exe, "arm_update.c:13", &["print g", "print x", "continue", "print g", "print x"]),
        "Breakpoint 1, f (n=3) at ./arm_update.c:13\n13\t    g += 2;\n$1 = 3\n$2 = <optimized out>\n\n\
         Breakpoint 1, f (n=3) at ./arm_update.c:13\n13\t    g += 2;\n$3 = 5\n$4 = <optimized out>\n"
    );
}

#[test]
fn a_value_stored_into_a_local_is_not_followed_there() {
    // `*p = n` stores the parameter into the local `v`, and `n`'s register
    // is then reused. LiveDebugValues followed `n` into `v`'s slot as into
    // a spill slot, and `*p = g * 3` overwrote it: gdb showed n = 15 at
    // line 14. An alloca is written through pointers and by callees too,
    // so only spill slots are homes; `n` is now `n + 1`'s register minus 1.
    let dir = tempfile::tempdir().unwrap();
    let exe = build_with_driver(dir.path(), "store_to_local");
    assert_eq!(
        gdb_at(&exe, "store_to_local.c:14", &["print n", "print v"]),
        "Breakpoint 1, f (n=4) at ./store_to_local.c:14\n14\t  g += v;\n$1 = 4\n$2 = 15\n"
    );
}

#[test]
fn a_right_shift_of_a_three_byte_value_is_evaluated_by_gdb() {
    // `p` is a 21-bit signed bit-field passed on: clang salvages it as the
    // i24 load shifted left and arithmetically right by 3. The typed
    // expression shifted a 24-bit *unsigned* value with DW_OP_shra, and
    // gdb, which finds a signed variant only of 1-, 2-, 4- and 8-byte
    // types, said `no signed variant found for type` (csmith seed 200503).
    // The shift is now done in the 24-bit signed type.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "odd_width_shift.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "odd_width_shift.c:14", &["print p"]),
        "Breakpoint 1, use (p=1120) at ./odd_width_shift.c:14\n14\t  observe(2);\n$1 = 1120\n"
    );
}

#[test]
fn a_widened_loop_counter_is_its_phi_in_the_loop() {
    // indvars widened `i` to an i64 phi [0, preheader]: the preheader says
    // `#dbg_value(i32 0, i)` and the phi brings `i64 0`. The check that a
    // phi's incoming values are the variable's values took the two zeros
    // for different values and left `i` <optimized out> all through the
    // loop (bzip2's sendMTFValues lost `selCtr` so, which llc-19 shows).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "widened_counter.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "widened_counter.c:13", &["print i", "continue", "print i"]),
        "Breakpoint 1, scan (n=n@entry=8) at ./widened_counter.c:13\n13\t    sink = table[i];\n$1 = 0\n\n\
         Breakpoint 1, scan (n=n@entry=8) at ./widened_counter.c:13\n13\t    sink = table[i];\n$2 = 1\n"
    );
}

#[test]
fn a_widened_counter_started_from_a_value_is_its_phi_in_the_loop() {
    // `part` starts at `smax(groups, 2)`: the entry block says
    // `#dbg_value(i32 %3, part)` and indvars' i64 phi starts at
    // `zext nneg i32 %3`. The check that a phi's incoming values are the
    // variable's took the two for different values and left `part`
    // <optimized out> all through the loop (bzip2's `nPart`, which llc-19
    // shows).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "widened_from_value.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "widened_from_value.c:12", &["print part", "continue", "print part"]),
        "Breakpoint 1, spread (groups=groups@entry=5, total=total@entry=100) at ./widened_from_value.c:12\n12\t    observe(part);\n$1 = 5\n\n\
         Breakpoint 1, spread (groups=groups@entry=5, total=total@entry=100) at ./widened_from_value.c:12\n12\t    observe(part);\n$2 = 4\n"
    );
}

#[test]
fn a_record_above_the_instruction_it_names_takes_effect_there() {
    // `#dbg_value(i32 %12, ge)` stands above `%12 = select`, as LLVM's
    // sinking leaves it in bzip2's sendMTFValues; instruction selection had
    // no register for %12 at the record, and `ge` was <optimized out> from
    // there on. The record now takes effect at the select.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "sunk_select.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "sunk_select.c:12", &["print ge", "print gs"]),
        "Breakpoint 1, group (gs=gs@entry=10, n=n@entry=40, groups=groups@entry=6) at ./sunk_select.c:12\n12\t  observe(ge);\n$1 = 39\n$2 = 10\n"
    );
}

#[test]
fn a_loop_entered_from_another_loops_latch_starts_at_its_phis_value() {
    // The first loop's latch branches straight to the second loop's header:
    // the block that held `#dbg_value(0, i)` between the loops is gone, so
    // the latch's last record says i is 16 and the header's phi brings 0.
    // Taking the latch's record as what i is on every edge out of it left
    // i <optimized out> all through the second loop (bzip2's sendMTFValues,
    // line 507).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "second_loop.O2.ll", &[]);
    assert_eq!(
        gdb_at(
            &exe,
            "second_loop.c:14",
            &["print i", "continue", "print i"]
        ),
        "Breakpoint 1, both () at ./second_loop.c:14\n14\t      observe(i);\n$1 = 0\n\n\
         Breakpoint 1, both () at ./second_loop.c:14\n14\t      observe(i);\n$2 = 2\n"
    );
}

#[test]
fn a_loop_test_fused_into_its_branch_shows_the_counter_before_its_increment() {
    // `if (flag)` is a compare clang left above the counter's increment
    // and its records; selection fuses it into the loop's `cmp; jcc` at
    // the block's end, after the `add`. The records waited for the
    // compare's line from now on: at line 8 n was shown one ahead
    // (csmith 201076, from the long run; llc-19's strength reduction
    // happened to leave n <optimized out> there).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "fused_loop_test.O2.ll", &[]);
    assert_eq!(
        gdb_at(
            &exe,
            "fused_loop_test.c:8",
            &["print n", "continue", "print n"]
        ),
        "Breakpoint 1, count_until_flag (n=4294967281, mask=0) at ./fused_loop_test.c:8\n8\t    if (flag)\n$1 = 4294967281\n\n\
         Breakpoint 1, count_until_flag (n=4294967282, mask=0) at ./fused_loop_test.c:8\n8\t    if (flag)\n$2 = 4294967282\n"
    );
}

#[test]
fn a_loop_counter_is_its_exit_bound_after_the_loop() {
    // The loop leaves by `icmp eq %k.next, 100`, so on that edge k is 100;
    // `%k.next`'s register (rbx) is then reused for `j`, and k was
    // <optimized out> after the second loop. It is now the constant the
    // branch proved. (llc-19's object keeps k in rbx for the whole
    // function and shows k = 50 here, j's value.)
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "loop_exit_value.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "loop_exit_value.c:12", &["print k", "print j"]),
        "Breakpoint 1, count () at ./loop_exit_value.c:12\n12\t  observe(-2);\n$1 = 100\n$2 = 50\n"
    );
}

#[test]
fn a_value_set_in_a_speculated_arm_is_not_the_old_one_after_the_join() {
    // `if (c) x = 9;` leaves an arm holding only `#dbg_value(9, x)`;
    // speculate-diamonds folded it into straight-line code and dropped
    // the arm's record, so after the join x kept the 5 it had before the
    // branch, where c = 1 made it 9 (csmith 200987: a loop body run once,
    // its `l_181 ^= ...` shown with the old value). The join now says what
    // both paths agree on, a select made for a phi, or nothing.
    let dir = tempfile::tempdir().unwrap();
    let exe = build_with_driver(dir.path(), "speculated_arm");
    assert_eq!(
        gdb_at(&exe, "speculated_arm.c:9", &["print x", "print c"]),
        "Breakpoint 1, f (c=1) at ./speculated_arm.c:10\n10\t}\n$1 = <optimized out>\n$2 = 1\n"
    );
}

#[test]
fn a_parameter_set_in_a_skipped_block_is_not_its_entry_value_after_it() {
    // csmith seed 201445 through our -O2: `for (p_10 = 0; p_10 > 20; ...)`
    // leaves a jump-only block holding `#dbg_value(0, p_10)`, which block
    // placement skipped. p_10 had no location there (its register was
    // reused), so the block set it "from nothing"; history then joined the
    // remaining paths on p_10's entry value, and gdb showed p_10 = 1 (the
    // caller's argument) at line 120, where the source made it 0.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "csmith201445.O0.ll", &["-O2"]);
    let output = gdb_at(&exe, "csmith201445.c:120", &["continue", "print p_10"]);
    assert!(
        output.ends_with("120\t    return g_49[3][1];\n$1 = <optimized out>\n"),
        "{output}"
    );
}

#[test]
fn a_record_of_an_and_selected_at_its_loop_test_takes_effect_after_it() {
    // `x &= x - 1` is selected at `while (x)`, whose jump reads the flags
    // the `and` sets, below `count++`: x's record in front of `count++`
    // named a register not yet written. x has no location at `count++` and
    // at the loop test (its old value would be one the source no longer
    // gives it), and from the `and` on it is the new value, 0xF0 & 0xEF;
    // the record was lost before (bits.c's popcount32 in corpus_gdb).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "flag_setting_and.O2.ll", &[]);
    let output = gdb_at(
        &exe,
        "flag_setting_and.c:5",
        &["print x", "next", "print x", "stepi", "print x"],
    );
    let after_stepi = output.split_once("\n0x").map(|(_, rest)| rest);
    assert!(
        output.starts_with(
            "Breakpoint 1, popcount32 (x=<optimized out>, x@entry=240) at ./flag_setting_and.c:5\n\
             5\t    count++;\n$1 = <optimized out>\n3\t  while (x) {\n$2 = <optimized out>\n"
        ) && after_stepi.is_some_and(|rest| rest.ends_with("\t3\t  while (x) {\n$3 = 224\n")),
        "{output}"
    );
}

#[test]
fn comparisons_salvaged_into_records_compare_in_their_own_width_and_signedness() {
    // `neg = d < 0`, `big = u > 4000000000u` and `zero = d == 0` are dead;
    // LLVM salvages each `icmp` into the record (`DW_OP_consts 0, DW_OP_lt`;
    // `DW_OP_constu 2^64 - 294967296, DW_OP_gt`; `DW_OP_lit0, DW_OP_eq`).
    // The records were dropped (no location). Compared as typed 32-bit
    // values in the constant's signedness, gdb shows the source's values;
    // llc-19's generic 64-bit compares show neg = 0 at d = -7 and big = 1
    // at u = 5.
    // Our -O2 of the -O0 IR salvages the same way when it deletes them.
    // There classify is inlined into main's line 18 (`printf("%d\n",
    // classify(ds[i], us[i]))`), between rows of line 18: its body's first
    // row is a statement of its own (it lost is_stmt as if moved into line
    // 18's run, and `break comparison_records.c:10` never stopped).
    let dir = tempfile::tempdir().unwrap();
    for (name, flags) in [
        ("comparison_records.O2.ll", &[][..]),
        ("comparison_records.O0.ll", &["-O2"][..]),
    ] {
        let (_, exe) = build_truth(dir.path(), name, flags);
        let output = gdb_at(
            &exe,
            "comparison_records.c:10",
            &["info locals", "continue", "info locals"],
        );
        let stops: Vec<&str> = output
            .lines()
            .filter(|l| l.starts_with("neg") || l.starts_with("big") || l.starts_with("zero"))
            .collect();
        assert_eq!(
            stops,
            ["neg = 1", "big = 1", "zero = 0", "neg = 0", "big = 0", "zero = 1"],
            "{name}: {output}"
        );
    }
}

#[test]
fn a_parameter_lives_on_in_the_register_it_was_zero_extended_into() {
    // In the corpus's insertion sort, `n`'s zero extension to 64 bits is
    // the loop bound (`mov eax, esi`); once the inner loop reuses esi for
    // `a[j]`, n is in eax, as llc-19's LiveDebugValues finds it. The gcc -O0
    // driver describes no call site, so the entry value shows nothing: n
    // was `<optimized out>` (corpus_gdb's sort).
    let dir = tempfile::tempdir().unwrap();
    let object = support::compile_fixture(dir.path(), "sort.O2.ll", &[]);
    let exe = support::link_with_driver(dir.path(), &object, "sort");
    let sources = format!("directory {}", fixture("src").display());
    let output = gdb_batch(
        &exe,
        &[&sources, "break sort.c:7", "run", "print n", "print key"],
    );
    assert!(
        output.ends_with(", n=9) at ./sort.c:7\n7\t      a[j + 1] = a[j];\n$1 = 9\n$2 = -3\n"),
        "{output}"
    );
}

#[test]
fn a_loop_exit_copy_comes_after_the_exit_blocks_debug_values() {
    // Live-range splitting copies a loop's register back at the start of
    // each exit block; the copy went before the block's leading debug
    // values and took the next line's row, so at line 285 (the first line
    // of the loop `for (l_34 = 3; ...)`) gdb stopped before `l_34 = 3` took
    // effect and showed its value before the loop, -50136740 (csmith 205640
    // from the long run, our -O2 of clang's -O0 IR).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "csmith205640.O0.ll", &["-O2"]);
    let output = gdb_at(&exe, "csmith205640.c:285", &["print l_34"]);
    assert!(output.ends_with("\n$1 = 3\n"), "{output}");
}

#[test]
fn a_sunk_statement_is_no_stop_after_the_statements_it_sank_below() {
    // Our -O2 sank line 68's `&l_149[1]` below line 69's `l_68 = 6`, into
    // the block that runs the loop, keeping line 68 as a statement: gdb's
    // stop at line 68 came after the store and showed l_68 as 6 where the
    // source still holds 0 (csmith 209029 from the sixth long run). The
    // sunk code keeps its line without is_stmt, so `break 68` stops at the
    // next statement, the loop at line 71, where 6 is l_68's value.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "csmith209029.O0.ll", &["-O2"]);
    let output = gdb_at(&exe, "csmith209029.c:68", &["print l_68"]);
    assert!(
        output.contains(") at ./csmith209029.c:71\n71\t") && output.ends_with("\n$1 = 6\n"),
        "{output}"
    );
}

#[test]
fn a_statement_calling_an_inlined_function_is_a_stop_of_its_own() {
    // Lines 16-19 each call the inlined fold(), whose first line (8) opens
    // every copy: line 18's first row stood between line 17's inlined 8 and
    // its own, was judged inside line 8's run and lost is_stmt, so `break
    // 18` went to the verbose path's copy and never stopped (as in csmith
    // 215010's main, one inlined transparent_crc per line). Judged by the
    // lines of main's own frame (17, 18, 18) it interrupts nothing.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "inlined_call_per_line.O2.ll", &[]);
    let output = gdb_batch(
        &exe,
        &[
            "break inlined_call_per_line.c:18",
            "break inlined_call_per_line.c:19",
            "run",
            "continue",
        ],
    );
    let stops: Vec<&str> = output
        .lines()
        .filter(|l| l.starts_with("Breakpoint ") && l.contains(" main "))
        .collect();
    assert_eq!(
        stops,
        [
            "Breakpoint 1, main (argc=<optimized out>, argv=<optimized out>) at ./inlined_call_per_line.c:18",
            "Breakpoint 2, main (argc=<optimized out>, argv=<optimized out>) at ./inlined_call_per_line.c:19",
        ],
        "{output}"
    );
}

#[test]
fn variables_are_shown_at_a_return_their_paths_reach_in_different_homes() {
    // popcount32's return is shared, and the join dropped both variables
    // (<optimized out> at line 7 on both calls):
    // - count is the constant 0 on the early exit, where eax is loaded with
    //   0, and in rcx after the loop, copied to rax: both paths hold it in
    //   rax (LiveDebugValues);
    // - x: the rotated `while (x)` leaves by the guard's `x == 0` (x the
    //   parameter, in rdi) and the latch's `x' == 0` (in rdx): every edge
    //   into the return says x is 0 (branch_constants).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "constant_at_shared_return.O2.ll", &[]);
    let output = gdb_at(
        &exe,
        "constant_at_shared_return.c:7",
        &[
            "print count",
            "print x",
            "continue",
            "print count",
            "print x",
        ],
    );
    let values: Vec<&str> = output.lines().filter(|l| l.starts_with('$')).collect();
    assert_eq!(values, ["$1 = 0", "$2 = 0", "$3 = 4", "$4 = 0"], "{output}");
}

#[test]
fn a_wide_constant_in_a_computed_value_keeps_its_width() {
    // l_28's record is `i64 C xor zext(i8 trunc(i16 %51))`. The DWARF
    // lowering typed the constant as the first register it read (16 bits
    // signed), so C was cut to 16 bits and gdb showed -28465 at line 81
    // (csmith 205509 from the long run, clang -O2 IR); the constant now
    // converts to its own 64 bits.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "csmith205509.O2.ll", &[]);
    let output = gdb_at(&exe, "csmith205509.c:81", &["print l_28"]);
    assert!(output.ends_with("\n$1 = 770674895\n"), "{output}");
}

#[test]
fn a_retained_variable_of_an_inlined_function_is_declared_in_its_copies() {
    // `never` is only in add's retainedNodes; add is inlined into f. Its
    // copies had no DIE for it and gdb said `No symbol "never" in current
    // context` where llc-19's object gives <optimized out> (csmith seeds 25
    // and 30: 22 variables the bounded random programs missed).
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "inlined_retained.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "inlined_retained.c:8", &["info locals", "print n"]),
        "Breakpoint 1.2, add (n=2) at ./inlined_retained.c:8\n8\t  g += n;\nnever = <optimized out>\n$1 = 2\n"
    );
}

#[test]
fn a_dead_store_through_a_pointer_to_a_variable_leaves_its_value_said() {
    // `*p = n` writes `v` through a pointer and dse deletes it (`*p = n * 3`
    // follows with only a store between). `v` stays in memory, which
    // still held -1 from the loop: gdb showed v = -1 at line 12 (csmith
    // seed 100619). The deleted store's value is stated in its place.
    let dir = tempfile::tempdir().unwrap();
    let exe = build_with_driver(dir.path(), "dead_store_through_pointer");
    assert_eq!(
        gdb_at(&exe, "dead_store_through_pointer.c:12", &["print v"]),
        "Breakpoint 1, f (n=4) at ./dead_store_through_pointer.c:12\n12\t  g = 7;\n$1 = 4\n"
    );
}

#[test]
fn a_variable_declared_but_never_set_keeps_its_die() {
    // `never` is declared and never set: through our -O2 of clang -O0 IR
    // mem2reg dropped its only record with its alloca, and gdb said
    // `No symbol "never" in current context` (clang -O0 IR has no
    // retainedNodes). It stays declared, without a location.
    let dir = tempfile::tempdir().unwrap();
    let exe = build_with_driver(dir.path(), "vanished");
    assert_eq!(
        gdb_at(&exe, "vanished.c:10", &["print never", "print i"]),
        "Breakpoint 1, f (n=4) at ./vanished.c:10\n10\t  g = i;\n$1 = <optimized out>\n$2 = 5\n"
    );
}

#[test]
fn a_bool_parameter_stored_as_a_byte_keeps_its_value() {
    // clang -O0 stores a `bool` parameter as `zext i1 %force to i8`; when
    // DCE deleted the zext its record became poison, and gdb showed
    // `force` as `<optimized out>` in every function of mimalloc that takes
    // a bool. The record is salvaged into the bit (`DW_OP_constu 1,
    // DW_OP_and`), as LLVM salvages a zext.
    let dir = tempfile::tempdir().unwrap();
    let exe = build_with_driver(dir.path(), "bool_parameter");
    assert_eq!(
        gdb_at(&exe, "bool_parameter.c:9", &["print force", "continue", "print force"]),
        "Breakpoint 1, f (x=<optimized out>, force=true) at ./bool_parameter.c:9\n9\t  return r + g(force);\n$1 = true\n\n\
         Breakpoint 1, f (x=<optimized out>, force=false) at ./bool_parameter.c:9\n9\t  return r + g(force);\n$2 = false\n"
    );
}

#[test]
fn a_function_breakpoint_stops_on_a_statement_of_its_scope_line() {
    // main's body is on its scopeLine: the row after the prologue was no
    // is_stmt row, and gdb showed the stop as `0x... in main ()`.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "one_line_main.O0.ll", &["-O0"]);
    assert_eq!(
        gdb_at(&exe, "main", &[]),
        "Breakpoint 1, main () at ./one_line_main.c:7\n7\tint main(void) { return f(1, 2) == 6 ? 0 : 1; }\n"
    );
}

#[test]
fn a_functions_statics_are_its_locals_in_every_copy() {
    // A DIGlobalVariable scoped in a function was written at unit level:
    // gdb's `info locals` never listed it. It now sits in the function's
    // abstract origin, so the inlined copy of f in main (where llc-19's
    // object says `No locals.`), the out-of-line f and the only-inlined g
    // (where llc-19's says `No symbol "gy"`) all show it.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "function_statics.O2.ll", &[]);
    assert_eq!(
        gdb_at(
            &exe,
            "f",
            &[
                "info locals",
                "break g",
                "continue",
                "info locals",
                "continue",
                "info locals"
            ]
        ),
        "Breakpoint 1.2, f (x=1) at ./function_statics.c:5\n5\t  count += x;\n\
         count = 0\ninner = 3\n\
         Breakpoint 2 at 0x555555555160: g. (2 locations)\n\n\
         Breakpoint 2.2, g (y=2) at ./function_statics.c:15\n15\t  gy += y;\ngy = 0\n\n\
         Breakpoint 1.1, f (x=x@entry=2) at ./function_statics.c:5\n5\t  count += x;\n\
         count = 1\ninner = 4\n"
    );
}

#[test]
fn an_inlined_functions_breakpoint_stops_on_its_line_when_scheduling_interleaves_it() {
    // main's inlined f and h's inlined g (all one-line functions) are
    // interleaved: g's entry row (line 3) sat between two rows of f's line
    // 2, so the "inside another line's run" rule took it for moved code
    // and gave it no is_stmt; gdb showed `0x... in g (y=2)`. Runs are now
    // those of one inlined frame.
    let dir = tempfile::tempdir().unwrap();
    let (_, exe) = build_truth(dir.path(), "inlined_interleaved.O2.ll", &[]);
    assert_eq!(
        gdb_at(&exe, "g", &["bt"]),
        "Breakpoint 1.2, g (y=2) at ./inlined_interleaved.c:3\n\
         3\tstatic inline int g(int y) { static int gy; gy += y; return gy; }\n\
         #0  g (y=2) at ./inlined_interleaved.c:3\n\
         #1  h (z=2) at ./inlined_interleaved.c:4\n\
         #2  main () at ./inlined_interleaved.c:5\n"
    );
}

#[test]
fn a_parameter_passed_on_the_stack_is_its_incoming_slot_all_through() {
    // `version` and `size` arrive on the stack. Their debug values named
    // the register each was loaded into, so once strcmp's call took that
    // register gdb said `version=<optimized out>`. Their incoming slots
    // hold them all through the function (as llc-19's `DW_OP_fbreg`).
    let dir = tempfile::tempdir().unwrap();
    let (object, exe) = build_truth(dir.path(), "stack_parameters.O2.ll", &[]);
    assert_eq!(
        location_of(&object, "version"),
        "DW_AT_location\t(DW_OP_fbreg +0)\n"
    );
    assert_eq!(
        location_of(&object, "size"),
        "DW_AT_location\t(DW_OP_fbreg +8)\n"
    );
    let stop = gdb_at(&exe, "stack_parameters.c:11", &["info args"]);
    assert!(
        stop.ends_with("version = 0x55555555600c \"1.3\"\nsize = 56\n"),
        "{stop}"
    );
}
