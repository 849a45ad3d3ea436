//! `emit::read` on objects compilers made: gcc 12 and clang-19 (`-g -O2
//! -c` of fixtures/src), llc-19 (`-O2 -filetype=obj` of fixtures/ll/*.O2.ll)
//! and dwarfsmith itself (`compile` of fixtures/ll/*.O0.ll and *.O2.ll),
//! rebuilt by emit/fixtures/obj/regen.sh.
//!
//! Functions are checked against `readelf -s`, line rows against
//! `llvm-dwarfdump --debug-line`, both run on the same object; the rest
//! (types, scopes, variable locations) against snapshots whose entries
//! were checked by hand against `llvm-dwarfdump --debug-info`.

mod read_support;

use std::process::Command;

use dwarfsmith_emit::model::{ChildScope, DebugInfo, ObjectModel, Scope};
use dwarfsmith_emit::read::read;
use expect_test::{expect, Expect};
use read_support::{dump, fixture, fixture_objects};

fn tool_output(tool: &str, args: &[&str], path: &std::path::Path) -> String {
    let output = Command::new(tool)
        .args(args)
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool}: {e}"));
    assert!(
        output.status.success(),
        "{tool} failed on {}",
        path.display()
    );
    String::from_utf8(output.stdout).expect("utf-8 tool output")
}

/// (name, value, size) of every FUNC symbol, by `readelf -sW`, by value.
fn readelf_functions(path: &std::path::Path) -> Vec<(String, u64, u64)> {
    let text = tool_output("readelf", &["-sW"], path);
    let mut functions: Vec<(String, u64, u64)> = text
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.len() == 8 && fields[3] == "FUNC").then(|| {
                (
                    fields[7].to_string(),
                    u64::from_str_radix(fields[1], 16).expect("value"),
                    fields[2].parse().expect("size"),
                )
            })
        })
        .collect();
    functions.sort_by_key(|f| f.1);
    functions
}

fn read_fixture(path: &std::path::Path) -> ObjectModel {
    let bytes = std::fs::read(path).expect("fixture object");
    read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_fixture_object_reads_with_readelfs_functions() {
    let paths = fixture_objects();
    assert_eq!(
        paths.len(),
        74,
        "14 programs by gcc, clang-19, llc-19 and dwarfsmith (-O0, -O2); 2 by gcc and clang as DWARF 4"
    );
    for path in paths {
        let model = read_fixture(&path);
        let got: Vec<(String, u64)> = model
            .functions
            .iter()
            .map(|f| (f.name.clone(), f.code.len() as u64))
            .collect();
        let expected: Vec<(String, u64)> = readelf_functions(&path)
            .into_iter()
            .map(|(name, _, size)| (name, size))
            .collect();
        assert_eq!(got, expected, "{}", path.display());
        let debug = model.debug.as_ref().expect("built with -g");
        assert_eq!(debug.line_rows.len(), model.functions.len());
    }
}

/// One row as `llvm-dwarfdump --debug-line` prints it, mapped to
/// (function, offset, file, line, column, flags).
type Row = (String, u64, u32, u32, u32, String);

fn dwarfdump_rows(path: &std::path::Path) -> Vec<Row> {
    let functions = readelf_functions(path);
    let text = tool_output("llvm-dwarfdump-19", &["--debug-line"], path);
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("0x")) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let address = u64::from_str_radix(&fields[0][2..], 16).expect("address");
        let flags: Vec<&str> = fields[7..].to_vec();
        if flags.contains(&"end_sequence") {
            continue;
        }
        let Some((name, value, _)) = functions
            .iter()
            .find(|(_, value, size)| address >= *value && address < value + size)
        else {
            continue;
        };
        let flags: Vec<&str> = flags
            .into_iter()
            .filter(|f| matches!(*f, "is_stmt" | "prologue_end" | "epilogue_begin"))
            .collect();
        rows.push((
            name.clone(),
            address - value,
            fields[3].parse().expect("file"),
            fields[1].parse().expect("line"),
            fields[2].parse().expect("column"),
            flags.join(" "),
        ));
    }
    rows.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    rows
}

fn model_rows(model: &ObjectModel) -> Vec<Row> {
    let debug = model.debug.as_ref().expect("debug info");
    let mut rows = Vec::new();
    for (function, function_rows) in debug.line_rows.iter().enumerate() {
        for row in function_rows {
            let flags: Vec<&str> = [
                (row.is_stmt, "is_stmt"),
                (row.prologue_end, "prologue_end"),
                (row.epilogue_begin, "epilogue_begin"),
            ]
            .into_iter()
            .filter_map(|(set, name)| set.then_some(name))
            .collect();
            rows.push((
                model.functions[function].name.clone(),
                row.offset,
                row.file,
                row.line,
                row.column,
                flags.join(" "),
            ));
        }
    }
    rows.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    rows
}

#[test]
fn line_rows_match_llvm_dwarfdump_on_every_fixture_object() {
    let mut compared = 0;
    for path in fixture_objects() {
        let expected = dwarfdump_rows(&path);
        assert!(!expected.is_empty(), "{} has line rows", path.display());
        assert_eq!(
            model_rows(&read_fixture(&path)),
            expected,
            "{}",
            path.display()
        );
        compared += expected.len();
    }
    assert!(compared > 1000, "only {compared} rows compared");
}

fn check(name: &str, expect: Expect) {
    let model = read(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    expect.assert_eq(&dump(&model));
}

#[test]
fn inlining_by_gcc() {
    check(
        "inlining.gcc.o",
        expect![[r#"
            function energy global 69 bytes
            unit "inlining.c" language 0x1d dir "/ws/fixtures/src" producer "GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -O2 -fasynchronous-unwind-tables"
            file 0 "inlining.c" in "/ws/fixtures/src"
            file 1 "inlining.c" in "/ws/fixtures/src"
            type 0 base "int" size 4 encoding 0x5
            type 1 const t0
            type 2 pointer to t1
            subprogram 0 energy (function energy) at 1:15 returns t0 external prototyped
              param 1 samples t2 at 1:15:
                [0x0,0xd) reg5:u64
                [0xd,0x37) entry(reg5), StackValue
                [0x37,0x45) reg5:u64
              param 2 n t0 at 1:15:
                [0x0,0xd) reg4:u64
                [0xd,0x37) entry(reg4), StackValue
                [0x37,0x45) reg4:u64
              var e t0 at 1:16:
                [0x0,0xd) Constu(0), StackValue
                [0xd,0x37) reg2:u64
                [0x37,0x45) Constu(0), StackValue
              block [0x0,0x7) [0x10,0x34)
                var i t0 at 1:17:
                  [0x0,0xd) Constu(0), StackValue
                  [0xd,0x2a) reg5:u64, entry(reg5), Minus, Constu(2), Shr, StackValue
                  [0x2a,0x2f) reg5:u64, entry(reg5), Minus, Constu(4), Minus, Constu(2), Shr, StackValue
                  [0x37,0x45) Constu(0), StackValue
                block [0x10,0x26) [0x2a,0x2f)
                  var s t0 at 1:18:
                    [0x26,0x2d) reg0:u64
                  inlined subprogram 2 from 1:19:10 [0x2a,0x2d)
                    param 1 v t0 at 1:3: none
                    block [0x2a,0x2d)
                      var sq t0 at 1:4: none
              all calls described
            subprogram 1 clamp (abstract) at 1:8 returns t0 static prototyped
              param 1 v t0 at 1:8: none
              param 2 lo t0 at 1:8: none
              param 3 hi t0 at 1:8: none
              var out t0 at 1:9: none
            subprogram 2 square (abstract) at 1:3 returns t0 static prototyped
              param 1 v t0 at 1:3: none
              var sq t0 at 1:4: none
            rows of energy
              0x0000 1:15:39 is_stmt
              0x0000 1:16:3 is_stmt
              0x0000 1:17:3 is_stmt
              0x0000 1:17:8 is_stmt
              0x0000 1:17:21 is_stmt
              0x0007 1:17:21
              0x0007 1:16:7
              0x0010 1:18:5 is_stmt
              0x0010 1:18:5
              0x0026 1:19:5 is_stmt
              0x0026 1:3:12 is_stmt
              0x0026 1:4:3 is_stmt
              0x0026 1:5:3 is_stmt
              0x0026 1:5:3
              0x0026 1:17:21
              0x002a 1:4:7
              0x002d 1:4:7
              0x002d 1:19:7
              0x002f 1:19:7
              0x002f 1:17:27 is_stmt
              0x002f 1:17:21 is_stmt
              0x0034 1:22:1
              0x0040 1:16:7
              0x0042 1:21:3 is_stmt
              0x0042 1:22:1
        "#]],
    );
}

#[test]
fn inlining_by_clang() {
    check(
        "inlining.clang.o",
        expect![[r#"
            function energy global 308 bytes
              reloc 0x37 Pc32 energy$literal0-4
              reloc 0x3f Pc32 energy$literal1-4
              literal [9c, ff, ff, ff, 9c, ff, ff, ff, 9c, ff, ff, ff, 9c, ff, ff, ff]
              literal [64, 00, 00, 00, 64, 00, 00, 00, 64, 00, 00, 00, 64, 00, 00, 00]
            unit "inlining.c" language 0x1d dir "/ws/fixtures/src" producer "Debian clang version 19.1.7 (3~deb12u1)"
            file 0 "inlining.c" in "/ws/fixtures/src" md5
            type 0 base "int" size 4 encoding 0x5
            type 1 pointer to t2
            type 2 const t0
            subprogram 0 clamp (abstract) at 0:8 returns t0 static prototyped
              param 1 v t0 at 0:8: none
              param 2 lo t0 at 0:8: none
              param 3 hi t0 at 0:8: none
              var out t0 at 0:9: none
            subprogram 1 square (abstract) at 0:3 returns t0 static prototyped
              param 1 v t0 at 0:3: none
              var sq t0 at 0:4: none
            subprogram 2 energy (function energy) at 0:15 returns t0 external prototyped
              param 1 samples t1 at 0:15: reg5:u64
              param 2 n t0 at 0:15:
                [0x0,0x33) reg4:u64
                [0x33,0x134) reg2:u64
              var e t0 at 0:16:
                [0x0,0x10b) Constu(0), StackValue
                [0x10b,0x133) reg0:u64
              block [0x0,0xb) [0x17,0x133)
                var i t0 at 0:17:
                  [0x0,0xb) Constu(0), StackValue
                  [0x17,0x10b) Constu(0), StackValue
                  [0x10b,0x133) reg1:u64
                block [0x47,0xd5) [0x10b,0x12b)
                  var s t0 at 0:18:
                    [0x124,0x128) reg9:u64
                  inlined subprogram 0 from 0:18:13 [0x5b,0xab) [0x114,0x124)
                    param 1 v t0 at 0:8:
                      [0x114,0x11c) reg9:u64
                    param 2 lo t0 at 0:8:
                      [0x114,0x133) Consts(-100), StackValue
                    param 3 hi t0 at 0:8:
                      [0x114,0x133) Constu(100), StackValue
                    var out t0 at 0:9:
                      [0x114,0x124) reg9:u64
                  inlined subprogram 1 from 0:19:10 [0xab,0xbc) [0xc0,0xd1) [0x124,0x128)
                    param 1 v t0 at 0:3:
                      [0x124,0x128) reg9:u64
              all calls described
            rows of energy
              0x0000 0:17:21 is_stmt prologue_end
              0x0002 0:17:3
              0x0004 0:17:21
              0x0006 0:17:3
              0x000b 0:0:3
              0x0016 0:21:3 is_stmt
              0x0017 0:17:3 is_stmt
              0x0033 0:0:3
              0x0050 0:18:19 is_stmt
              0x005b 0:10:7 is_stmt
              0x0083 0:11:7 is_stmt
              0x00ab 0:4:14 is_stmt
              0x00bc 0:19:7 is_stmt
              0x00c0 0:4:14 is_stmt
              0x00d1 0:19:7 is_stmt
              0x00d5 0:17:27 is_stmt
              0x00e2 0:17:3
              0x0100 0:0:3
              0x0110 0:18:19 is_stmt
              0x0114 0:10:7 is_stmt
              0x011c 0:11:7 is_stmt
              0x0124 0:4:14 is_stmt
              0x0128 0:19:7 is_stmt
              0x012b 0:17:27 is_stmt
              0x012e 0:17:21
              0x0133 0:21:3 is_stmt
        "#]],
    );
}

#[test]
fn switch_table_by_llc() {
    check(
        "switch_table.llc.o",
        expect![[r#"
            function classify global 66 bytes
            data .rodata local ReadOnly align 8 64 bytes
              reloc 0x0 Abs64 classify+0xe+0
              reloc 0x8 Abs64 classify+0x36+0
              reloc 0x10 Abs64 classify+0x24+0
              reloc 0x18 Abs64 classify+0x30+0
              reloc 0x20 Abs64 classify+0x3c+0
              reloc 0x28 Abs64 classify+0x1c+0
              reloc 0x30 Abs64 classify+0x1c+0
              reloc 0x38 Abs64 classify+0x2a+0
            unit "switch_table.c" language 0x1d dir "." producer ""
            file 0 "switch_table.c" in "." md5
            type 0 base "int" size 4 encoding 0x5
            subprogram 0 classify (function classify) at 0:2 returns t0 external prototyped
              param 1 k t0 at 0:2: reg5:u64
              var r t0 at 0:3:
                [0x13,0x14) reg0:u64
                [0x19,0x1b) Consts(-1), StackValue
                [0x1b,0x1c) reg0:u64
                [0x23,0x24) reg0:u64
                [0x24,0x29) Constu(11), StackValue
                [0x29,0x2a) reg0:u64
                [0x2a,0x2f) Constu(2), StackValue
                [0x2f,0x30) reg0:u64
                [0x30,0x35) Constu(4), StackValue
                [0x35,0x36) reg0:u64
                [0x36,0x3b) Constu(9), StackValue
                [0x3b,0x3c) reg0:u64
                [0x3c,0x41) Constu(17), StackValue
                [0x41,0x42) reg0:u64
              all calls described
            rows of classify
              0x0000 0:4:3 is_stmt prologue_end
              0x000e 0:0:3
              0x0013 0:14:3 is_stmt
              0x0014 0:4:3 is_stmt
              0x0019 0:0:3
              0x001b 0:14:3 is_stmt
              0x001c 0:14:12
              0x0023 0:14:3
              0x0024 0:0:3
              0x0029 0:14:3
              0x002a 0:0:3
              0x002f 0:14:3
              0x0030 0:0:3
              0x0035 0:14:3
              0x0036 0:0:3
              0x003b 0:14:3
              0x003c 0:0:3
              0x0041 0:14:3
        "#]],
    );
}

/// clang's position-independent jump table: the bytes its code points
/// into become the function's rodata, each entry `target - table` at
/// byte `4k` a `Pc32` against `FunctionCode` with addend `4k`.
#[test]
fn switch_table_by_clang() {
    check(
        "switch_table.clang.o",
        expect![[r#"
            function classify global 75 bytes
              reloc 0xa Pc32 classify$data-4
              rodata 32 bytes
              rodata reloc 0x0 Pc32 classify+0x17+0
              rodata reloc 0x4 Pc32 classify+0x3f+4
              rodata reloc 0x8 Pc32 classify+0x2d+8
              rodata reloc 0xc Pc32 classify+0x39+12
              rodata reloc 0x10 Pc32 classify+0x45+16
              rodata reloc 0x14 Pc32 classify+0x25+20
              rodata reloc 0x18 Pc32 classify+0x25+24
              rodata reloc 0x1c Pc32 classify+0x33+28
            unit "switch_table.c" language 0x1d dir "/ws/fixtures/src" producer "Debian clang version 19.1.7 (3~deb12u1)"
            file 0 "switch_table.c" in "/ws/fixtures/src" md5
            type 0 base "int" size 4 encoding 0x5
            subprogram 0 classify (function classify) at 0:2 returns t0 external prototyped
              param 1 k t0 at 0:2: reg5:u64
              var r t0 at 0:3:
                [0x1c,0x1d) reg0:u64
                [0x22,0x24) Consts(-1), StackValue
                [0x24,0x25) reg0:u64
                [0x2c,0x2d) reg0:u64
                [0x2d,0x32) Constu(11), StackValue
                [0x32,0x33) reg0:u64
                [0x33,0x38) Constu(2), StackValue
                [0x38,0x39) reg0:u64
                [0x39,0x3e) Constu(4), StackValue
                [0x3e,0x3f) reg0:u64
                [0x3f,0x44) Constu(9), StackValue
                [0x44,0x45) reg0:u64
                [0x45,0x4a) Constu(17), StackValue
                [0x4a,0x4b) reg0:u64
              all calls described
            rows of classify
              0x0000 0:4:3 is_stmt prologue_end
              0x0005 0:0:3
              0x000e 0:4:3
              0x0017 0:0:3
              0x001c 0:14:3 is_stmt
              0x001d 0:4:3 is_stmt
              0x0022 0:0:3
              0x0024 0:14:3 is_stmt
              0x0025 0:14:12
              0x002c 0:14:3
              0x002d 0:0:3
              0x0032 0:14:3
              0x0033 0:0:3
              0x0038 0:14:3
              0x0039 0:0:3
              0x003e 0:14:3
              0x003f 0:0:3
              0x0044 0:14:3
              0x0045 0:0:3
              0x004a 0:14:3
        "#]],
    );
}

/// dwarfsmith's gdb-tuned typed expressions: `DW_OP_regval_type` reads
/// back as a register of its base type's width and signedness.
#[test]
fn arith_temps_by_dwarfsmith() {
    check(
        "arith_temps.O2.dwarfsmith.o",
        expect![[r#"
        function blend global 27 bytes
          cfi 0x1 DefCfaOffset(16)
          cfi 0x1 Offset { register: 6, offset: -16 }
          cfi 0x4 DefCfaRegister(6)
          cfi 0x1a DefCfa { register: 7, offset: 8 }
        function offsets global 24 bytes
          cfi 0x1 DefCfaOffset(16)
          cfi 0x1 Offset { register: 6, offset: -16 }
          cfi 0x4 DefCfaRegister(6)
          cfi 0x17 DefCfa { register: 7, offset: 8 }
        function narrow global 27 bytes
          cfi 0x1 DefCfaOffset(16)
          cfi 0x1 Offset { register: 6, offset: -16 }
          cfi 0x4 DefCfaRegister(6)
          cfi 0x1a DefCfa { register: 7, offset: 8 }
        unit "arith_temps.c" language 0x1d dir "." producer ""
        file 0 "arith_temps.c" in "." md5
        type 0 base "int" size 4 encoding 0x5
        type 1 base "unsigned short" size 2 encoding 0x7
        type 2 base "unsigned char" size 1 encoding 0x8
        type 3 base "unsigned int" size 4 encoding 0x7
        subprogram 0 blend (function blend) at 0:3 returns t0 external prototyped
          param 1 x t0 at 0:3: reg5:u64
          param 2 y t0 at 0:3: reg4:u64
          var q t0 at 0:6:
            [0x14,0x16) reg2:u64
          var z t0 at 0:4: none
          var w t0 at 0:5: none
        subprogram 1 offsets (function offsets) at 0:10 returns t0 external prototyped
          param 1 a t0 at 0:10: reg5:u64
          param 2 b t0 at 0:10:
            [0x4,0xb) reg4:u64
          var sum t0 at 0:11:
            [0x9,0xe) reg0:u64
          var diff t0 at 0:12:
            [0xb,0x11) reg5:i32, reg4:i32, reg5:i32, Plus, Minus, StackValue
          var scaled t0 at 0:13:
            [0xe,0x16) reg0:u64
          var shifted t0 at 0:14: none
        subprogram 2 narrow (function narrow) at 0:18 returns t3 external prototyped
          param 1 h t1 at 0:18: reg5:u64
          param 2 l t2 at 0:18: reg4:u64
          var wide t3 at 0:19:
            [0xa,0x10) reg0:u64
          var both t3 at 0:20:
            [0x10,0x16) reg0:u64
          var masked t3 at 0:21:
            [0x16,0x19) reg0:u64
        rows of blend
          0x0000 0:3:0 is_stmt
          0x0004 0:4:13 is_stmt prologue_end
          0x000a 0:5:13 is_stmt
          0x0012 0:6:13 is_stmt
          0x0014 0:7:12 is_stmt
          0x0016 0:7:3
          0x0019 0:7:3 epilogue_begin
        rows of offsets
          0x0000 0:10:0 is_stmt
          0x0004 0:11:15 is_stmt prologue_end
          0x0009 0:12:16 is_stmt
          0x000b 0:13:20 is_stmt
          0x000e 0:14:22 is_stmt
          0x0011 0:15:17 is_stmt
          0x0013 0:15:3
          0x0016 0:15:3 epilogue_begin
        rows of narrow
          0x0000 0:18:0 is_stmt
          0x0004 0:19:19 is_stmt prologue_end
          0x0007 0:19:31
          0x000a 0:20:26 is_stmt
          0x000e 0:20:24
          0x0010 0:21:26 is_stmt
          0x0016 0:22:17 is_stmt
          0x0019 0:22:3 epilogue_begin
    "#]],
    );
}

#[test]
fn select_diamond_by_dwarfsmith() {
    check(
        "select_diamond.O2.dwarfsmith.o",
        expect![[r#"
        function pick global 23 bytes
          cfi 0x1 DefCfaOffset(16)
          cfi 0x1 Offset { register: 6, offset: -16 }
          cfi 0x4 DefCfaRegister(6)
          cfi 0x16 DefCfa { register: 7, offset: 8 }
        function abs_diff global 16 bytes
          cfi 0x1 DefCfaOffset(16)
          cfi 0x1 Offset { register: 6, offset: -16 }
          cfi 0x4 DefCfaRegister(6)
          cfi 0xf DefCfa { register: 7, offset: 8 }
        unit "select_diamond.c" language 0x1d dir "." producer ""
        file 0 "select_diamond.c" in "." md5
        type 0 base "int" size 4 encoding 0x5
        subprogram 0 pick (function pick) at 0:3 returns t0 external prototyped
          param 1 c t0 at 0:3: reg5:u64
          param 2 a t0 at 0:3:
            [0x4,0x7) reg4:u64
          param 3 b t0 at 0:3:
            [0x4,0xa) reg1:u64
          var r t0 at 0:4:
            [0xf,0x12) reg1:u64
        subprogram 1 abs_diff (function abs_diff) at 0:12 returns t0 external prototyped
          param 1 a t0 at 0:12:
            [0x4,0x6) reg5:u64
          param 2 b t0 at 0:12: reg4:u64
          var d t0 at 0:13:
            [0x6,0xe) reg5:u64
            [0xe,0x10) reg0:u64
          var neg t0 at 0:14: none
        rows of pick
          0x0000 0:3:0 is_stmt
          0x0004 0:5:7 is_stmt prologue_end
          0x000f 0:9:12 is_stmt
          0x0012 0:9:3
          0x0015 0:9:3 epilogue_begin
        rows of abs_diff
          0x0000 0:12:0 is_stmt
          0x0004 0:13:13 is_stmt prologue_end
          0x0006 0:15:7 is_stmt
          0x000e 0:17:3 is_stmt epilogue_begin
    "#]],
    );
}

#[test]
fn pointers_by_gcc() {
    check(
        "pointers.gcc.o",
        expect![[r#"
            function list_sum global 53 bytes
              reloc 0x7 Pc32 counter-4
              reloc 0x22 Pc32 counter-4
            function list_find global 36 bytes
            data counter global Bss align 4 4 bytes
            unit "pointers.c" language 0x1d dir "/ws/fixtures/src" producer "GNU C17 12.2.0 -mtune=generic -march=x86-64 -g -O2 -fasynchronous-unwind-tables"
            file 0 "pointers.c" in "/ws/fixtures/src"
            file 1 "pointers.c" in "/ws/fixtures/src"
            type 0 struct Some("node") size Some(16) {value: t2 @0, next: t3 @8}
            type 1 const t0
            type 2 base "int" size 4 encoding 0x5
            type 3 pointer to t0
            type 4 pointer to t1
            subprogram 0 list_find (function list_find) at 1:17 returns t3 external prototyped
              param 1 head t3 at 1:17:
                [0x0,0x2) reg5:u64
                [0x2,0x24) entry(reg5), StackValue
              param 2 wanted t2 at 1:17: reg4:u64
              var cur t3 at 1:18:
                [0x0,0x24) reg5:u64
              all calls described
            subprogram 1 list_sum (function list_sum) at 1:6 returns t2 external prototyped
              param 1 head t4 at 1:6:
                [0x0,0x10) reg5:u64
                [0x10,0x29) entry(reg5), StackValue
                [0x29,0x35) reg5:u64
              var sum t2 at 1:7:
                [0x0,0x10) Constu(0), StackValue
                [0x10,0x29) reg1:u64
                [0x29,0x35) Constu(0), StackValue
              var cur t4 at 1:8:
                [0x0,0x35) reg5:u64
              all calls described
            global counter t2 at 1:4 external in counter
            rows of list_sum
              0x0000 1:6:39 is_stmt
              0x0000 1:7:3 is_stmt
              0x0000 1:8:3 is_stmt
              0x0000 1:9:3 is_stmt
              0x0000 1:9:10 is_stmt
              0x000b 1:7:7
              0x0010 1:10:5 is_stmt
              0x0010 1:10:9
              0x0012 1:11:5 is_stmt
              0x0012 1:12:5 is_stmt
              0x0012 1:12:9
              0x0016 1:9:10 is_stmt
              0x0026 1:15:1
              0x0030 1:7:7
              0x0032 1:14:3 is_stmt
              0x0032 1:15:1
            rows of list_find
              0x0000 1:17:55 is_stmt
              0x0000 1:18:3 is_stmt
              0x0000 1:19:3 is_stmt
              0x0000 1:19:20 is_stmt
              0x0008 1:20:5 is_stmt
              0x0008 1:20:8
              0x000c 1:19:29 is_stmt
              0x0010 1:19:20 is_stmt
              0x0015 1:19:20
              0x0020 1:19:20
              0x0023 1:22:3 is_stmt
              0x0023 1:23:1
        "#]],
    );
}

#[test]
fn structs_by_clang() {
    check(
        "structs.clang.o",
        expect![[r#"
            function area global 71 bytes
              reloc 0x32 Plt32 observe-4
              cfi 0x4 DefCfaOffset(32)
              cfi 0x46 DefCfaOffset(8)
            function midpoint global 40 bytes
            unit "structs.c" language 0x1d dir "/ws/fixtures/src" producer "Debian clang version 19.1.7 (3~deb12u1)"
            file 0 "structs.c" in "/ws/fixtures/src" md5
            type 0 pointer to t1
            type 1 base "int" size 4 encoding 0x5
            type 2 struct Some("pt") size Some(8) {x: t1 @0, y: t1 @4}
            type 3 array of t1 counts [Some(4)] vector None
            subprogram 0 area (function area) at 0:5 returns t1 external prototyped
              param 1 a t2 at 0:5:
                [0x4,0xd) reg5:u64, Piece(4)
                [0xd,0x2c) Piece(4), reg5:u64, Piece(4)
              param 2 b t2 at 0:5:
                [0x7,0x9) reg4:u64, Piece(4)
                [0x9,0x11) reg0:u64, Piece(4)
                [0x11,0x13) Piece(4), reg0:u64, Piece(4)
              var cells t3 at 0:9: reg7:u64, PlusUconst(0)
              var d t2 at 0:6:
                [0x9,0x13) reg4:u64, Piece(4)
                [0x13,0x24) reg4:u64, Piece(4), reg0:u64, Piece(4)
                [0x24,0x31) reg4:u64, Piece(4)
              var r t1 at 0:11:
                [0x3e,0x42) reg0:u64
              call site 0x36 Origin(1) [CallSiteParameter { register: 4, value: Constant(4) }]
              all calls described
            subprogram 1 observe (declaration) at 0:3 returns void external prototyped
            subprogram 2 midpoint (function midpoint) at 0:15 returns t2 external prototyped
              param 1 a t2 at 0:15:
                [0x0,0x7) reg5:u64, Piece(4)
                [0x7,0x28) Piece(4), reg5:u64, Piece(4)
              param 2 b t2 at 0:15:
                [0x0,0xb) reg4:u64, Piece(4)
                [0xb,0x28) Piece(4), reg4:u64, Piece(4)
              var m t2 at 0:16:
                [0x14,0x20) reg0:u64, Piece(4)
                [0x20,0x24) reg0:u64, Piece(4), reg1:u64, Piece(4)
                [0x24,0x27) reg0:u64, Piece(4)
              all calls described
            rows of area
              0x0000 0:5:0 is_stmt
              0x0007 0:7:13 is_stmt prologue_end
              0x0009 0:0:13
              0x0011 0:8:13 is_stmt
              0x0013 0:9:18 is_stmt
              0x002c 0:10:3 is_stmt
              0x0036 0:11:22 is_stmt
              0x003a 0:11:20
              0x003e 0:12:12 is_stmt
              0x0042 0:12:3 epilogue_begin
            rows of midpoint
              0x0000 0:17:14 is_stmt prologue_end
              0x0007 0:0:14
              0x000b 0:17:21
              0x0014 0:18:14 is_stmt
              0x0017 0:18:21
              0x0020 0:19:3 is_stmt
        "#]],
    );
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    let bytes = fixture("inlining.clang.o");
    let errors: Vec<String> = [&bytes[..bytes.len() / 2], &bytes[..40], b"\x7fELF"]
        .iter()
        .map(|input| read(input).expect_err("malformed").to_string())
        .collect();
    expect![[r#"
        section headers: 24 entries at file offset 0xb98 run past the end of the file (0x8cc bytes): truncated?
        ELF header: type is too big (8) for 0
        ELF header: Malformed entity: Too small"#]].assert_eq(&errors.join("\n"));
}

/// Every single-byte corruption, and every seventh truncation, of three
/// objects (by gcc, clang and dwarfsmith) reads and verifies without
/// panicking.
#[test]
fn corrupted_bytes_never_make_read_or_verify_panic() {
    for name in [
        "inlining.gcc.o",
        "inlining.clang.o",
        "select_diamond.O2.dwarfsmith.o",
    ] {
        let original = fixture(name);
        for index in 0..original.len() {
            let mut bytes = original.clone();
            bytes[index] ^= 0xa5;
            let _ = read(&bytes);
            let _ = dwarfsmith_emit::verify::verify(&bytes);
        }
        for length in (0..original.len()).step_by(7) {
            let _ = read(&original[..length]);
            let _ = dwarfsmith_emit::verify::verify(&original[..length]);
        }
    }
}

/// Rewrites every file number to that of the first file entry with the
/// same name and directory, so tables that number one file twice (DWARF 5
/// entry 0 and 1, DWARF 4 entry 1) compare by what they name.
fn canonical_files(debug: &mut DebugInfo) {
    let canonical: Vec<u32> = debug
        .files
        .iter()
        .map(|f| {
            debug
                .files
                .iter()
                .position(|g| (&g.name, &g.directory) == (&f.name, &f.directory))
                .expect("itself") as u32
        })
        .collect();
    let map = |file: &mut u32| *file = canonical[*file as usize];
    fn visit(scope: &mut Scope, map: &dyn Fn(&mut u32)) {
        for variable in &mut scope.variables {
            map(&mut variable.file);
        }
        for child in &mut scope.children {
            match child {
                ChildScope::Lexical { scope: inner, .. } => visit(inner, map),
                ChildScope::Inlined {
                    call_file,
                    scope: inner,
                    ..
                } => {
                    map(call_file);
                    visit(inner, map);
                }
            }
        }
    }
    for subprogram in &mut debug.subprograms {
        map(&mut subprogram.file);
        visit(&mut subprogram.scope, &map);
    }
    for row in debug.line_rows.iter_mut().flatten() {
        map(&mut row.file);
    }
}

/// The same program compiled as DWARF 4 and as DWARF 5 reads into the same
/// model: `.debug_loc`, `.debug_ranges` and 1-based file numbers are read
/// as their DWARF 5 counterparts (file numbers compared by what they name).
#[test]
fn dwarf4_and_dwarf5_objects_read_the_same() {
    for (dwarf4, dwarf5) in [
        ("inlining.gcc-dwarf4.o", "inlining.gcc.o"),
        ("structs.gcc-dwarf4.o", "structs.gcc.o"),
        ("inlining.clang-dwarf4.o", "inlining.clang.o"),
        ("structs.clang-dwarf4.o", "structs.clang.o"),
    ] {
        let old = read(&fixture(dwarf4)).expect(dwarf4);
        let new = read(&fixture(dwarf5)).expect(dwarf5);
        assert_eq!(old.functions, new.functions, "{dwarf4}");
        let (mut old, mut new) = (old.debug.expect("debug"), new.debug.expect("debug"));
        canonical_files(&mut old);
        canonical_files(&mut new);
        assert_eq!(old.types, new.types, "{dwarf4}");
        assert_eq!(old.subprograms, new.subprograms, "{dwarf4}");
        assert_eq!(old.line_rows, new.line_rows, "{dwarf4}");
    }
}
