//! The real-world harness (issue 7): Lua 5.4, zlib, bzip2 (with bzip2.c) and lz4,
//! from the crates that bundle them, built file by file from `clang -O2 -g` IR by
//! dwarfsmith. Each program is linked from dwarfsmith's objects where it compiles
//! and gcc -O0 objects elsewhere, and must print exactly what the pure gcc -O0
//! build prints. The per-file status is a snapshot, so a regression or an
//! improvement shows as a diff (re-bless with UPDATE_EXPECT=1); every dwarfsmith
//! object passes `dwarfsmith verify` and `llvm-dwarfdump --verify`. The same
//! four programs are also built from clang-19's `-O0` IR through dwarfsmith's
//! own optimiser (`compile -O2`), the optimiser issue's real-world test.

#[path = "support/gdb_values.rs"]
mod gdb_values;
#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use expect_test::{expect, Expect};
use realworld::{run_transcript, Build, Project};

/// Builds `project` from `clang`'s IR, checks the per-file status against
/// `status`, and returns the build.
fn build_and_check_status(project: &Project, clang: &str, dir: &Path, status: Expect) -> Build {
    let dwarfsmith = Path::new(env!("CARGO_BIN_EXE_dwarfsmith"));
    let build = realworld::build(project, clang, dwarfsmith, dir);
    check_status(&build, clang, status);
    build
}

/// Prints the first line of the build's report and checks the report
/// against `status`.
fn check_status(build: &Build, recipe: &str, status: Expect) {
    let report = build.report();
    println!(
        "{} ({recipe}): {}",
        build.name,
        report.lines().next().unwrap()
    );
    status.assert_eq(&report);
}

/// Runs `workload` on both programs and asserts they said exactly the same;
/// returns the gcc build's transcript.
fn same_behaviour(build: &Build, workload: impl Fn(&Path) -> String) -> String {
    let gcc = workload(&build.gcc_exe);
    let mixed = workload(&build.mixed_exe);
    assert_eq!(
        mixed, gcc,
        "{}: the mixed build (dwarfsmith objects where compiled) differs from gcc -O0",
        build.name
    );
    gcc
}

fn lua_workload(exe: &Path) -> String {
    let scripts_dir = support::fixture("realworld/lua");
    let mut scripts: Vec<String> = std::fs::read_dir(&scripts_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".lua"))
        .collect();
    scripts.sort();
    let mut transcript = String::new();
    for script in scripts {
        transcript.push_str(&format!("=== {script}: "));
        transcript.push_str(&run_transcript(
            Command::new(exe).arg(&script).current_dir(&scripts_dir),
        ));
    }
    transcript
}

fn scratch_workload(exe: &Path) -> String {
    let scratch = tempfile::tempdir().unwrap();
    run_transcript(Command::new(exe).arg(scratch.path()))
}

#[test]
fn lua_5_4_from_clang_19() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_and_check_status(
        &realworld::lua(),
        "clang-19",
        dir.path(),
        expect![[r#"
            compiled 33/33 files
            lapi.c: compiled
            lauxlib.c: compiled
            lbaselib.c: compiled
            lcode.c: compiled
            lcorolib.c: compiled
            lctype.c: compiled
            ldblib.c: compiled
            ldebug.c: compiled
            ldo.c: compiled
            ldump.c: compiled
            lfunc.c: compiled
            lgc.c: compiled
            linit.c: compiled
            liolib.c: compiled
            llex.c: compiled
            lmathlib.c: compiled
            lmem.c: compiled
            loadlib.c: compiled
            lobject.c: compiled
            lopcodes.c: compiled
            loslib.c: compiled
            lparser.c: compiled
            lstate.c: compiled
            lstring.c: compiled
            lstrlib.c: compiled
            ltable.c: compiled
            ltablib.c: compiled
            ltm.c: compiled
            lundump.c: compiled
            lutf8lib.c: compiled
            lvm.c: compiled
            lzio.c: compiled
            lua_main.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, lua_workload);
    assert!(
        transcript.contains("error: errors.lua:35: uncaught at the end"),
        "{transcript}"
    );
    lua_values_under_gdb(&build);
}

/// gdb at lines of Lua library functions with double and integer locals
/// (math.log's argument, base and result; math.random's bounds and draw):
/// every value the mixed build shows is the one the gcc -O0 build shows
/// there, or `<optimized out>`; prints available/total.
fn lua_values_under_gdb(build: &Build) {
    let source = realworld::lua_dir().join("lmathlib.c");
    let text = std::fs::read_to_string(&source).unwrap();
    let line_of = |needle: &str| {
        1 + text
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in {}", source.display()))
    };
    let breakpoints = [
        format!("lmathlib.c:{}", line_of("lua_pushnumber(L, res);")),
        format!("lmathlib.c:{}", line_of("p = project(I2UInt(rv)")),
    ];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("numbers.lua"),
        "math.randomseed(42)\n\
         print(math.random(1, 100), math.random(-5, 5))\n\
         print(math.log(8, 2), math.log(1000, 10), math.log(2.5), math.log(7, 3))\n",
    )
    .unwrap();
    let run = |exe: &Path| gdb_values::stops(exe, dir.path(), "numbers.lua", &breakpoints, 6);
    let reference = run(&build.gcc_exe);
    assert_eq!(reference.len(), 6, "gcc -O0 build: {reference:?}");
    let verdict = gdb_values::judge(&reference, &run(&build.mixed_exe));
    println!(
        "lua under gdb: {}/{} values available, {} wrong",
        verdict.available,
        verdict.total,
        verdict.wrong.len()
    );
    assert!(verdict.wrong.is_empty(), "{:#?}", verdict.wrong);
    assert!(verdict.available > 0, "no value available");
}

#[test]
fn zlib_from_clang_19() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_and_check_status(
        &realworld::zlib(),
        "clang-19",
        dir.path(),
        expect![[r#"
            compiled 16/16 files
            adler32.c: compiled
            compress.c: compiled
            crc32.c: compiled
            deflate.c: compiled
            gzclose.c: compiled
            gzlib.c: compiled
            gzread.c: compiled
            gzwrite.c: compiled
            infback.c: compiled
            inffast.c: compiled
            inflate.c: compiled
            inftrees.c: compiled
            trees.c: compiled
            uncompr.c: compiled
            zutil.c: compiled
            zlib_driver.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, scratch_workload);
    assert!(transcript.contains("all round trips ok"), "{transcript}");
}

#[test]
fn zlib_from_clang_14() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_and_check_status(
        &realworld::zlib(),
        "clang-14",
        dir.path(),
        expect![[r#"
            compiled 16/16 files
            adler32.c: compiled
            compress.c: compiled
            crc32.c: compiled
            deflate.c: compiled
            gzclose.c: compiled
            gzlib.c: compiled
            gzread.c: compiled
            gzwrite.c: compiled
            infback.c: compiled
            inffast.c: compiled
            inflate.c: compiled
            inftrees.c: compiled
            trees.c: compiled
            uncompr.c: compiled
            zutil.c: compiled
            zlib_driver.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, scratch_workload);
    assert!(transcript.contains("all round trips ok"), "{transcript}");
}

#[test]
fn lz4_from_clang_19() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_and_check_status(
        &realworld::lz4(),
        "clang-19",
        dir.path(),
        expect![[r#"
            compiled 6/6 files
            lz4.c: compiled
            lz4file.c: compiled
            lz4frame.c: compiled
            lz4hc.c: compiled
            xxhash.c: compiled
            lz4_driver.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, scratch_workload);
    assert!(transcript.contains("all round trips ok"), "{transcript}");
}

#[test]
fn lz4_from_clang_14() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_and_check_status(
        &realworld::lz4(),
        "clang-14",
        dir.path(),
        expect![[r#"
            compiled 6/6 files
            lz4.c: compiled
            lz4file.c: compiled
            lz4frame.c: compiled
            lz4hc.c: compiled
            xxhash.c: compiled
            lz4_driver.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, scratch_workload);
    assert!(transcript.contains("all round trips ok"), "{transcript}");
}

#[test]
fn bzip2_from_clang_19() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_and_check_status(
        &realworld::bzip2(),
        "clang-19",
        dir.path(),
        expect![[r#"
            compiled 8/8 files
            blocksort.c: compiled
            bzlib.c: compiled
            compress.c: compiled
            crctable.c: compiled
            decompress.c: compiled
            huffman.c: compiled
            randtable.c: compiled
            bzip2.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, bzip2_workload);
    assert_eq!(
        transcript.matches("round trip ok").count(),
        3,
        "{transcript}"
    );
    assert_eq!(
        transcript.matches("matches the reference").count(),
        3,
        "{transcript}"
    );
}

/// Text-like data with runs and binary noise, the same on every run.
fn bzip2_input() -> Vec<u8> {
    let words: [&[u8]; 8] = [
        b"burrows ",
        b"wheeler ",
        b"huffman ",
        b"block ",
        b"sort ",
        b"\n",
        b"aaaaaaaa",
        b"42 ",
    ];
    let mut state: u32 = 7;
    let mut data = Vec::new();
    while data.len() < 250_000 {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        data.extend_from_slice(words[(state >> 16) as usize % words.len()]);
        if (state >> 8).is_multiple_of(61) {
            data.extend((0..200).map(|k| (state >> (k % 24)) as u8));
        }
    }
    data
}

/// FNV-1a, to print a checksum of an output.
fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Runs bzip2 with `args`, `input` on stdin; returns (stdout, a transcript line).
fn bzip2_run(exe: &Path, args: &[&str], input: &[u8]) -> (Vec<u8>, String) {
    use std::io::Write;
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&feed);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let line = format!(
        "bzip2 {}: {}, {} bytes out, fnv64 {:016x}, stderr {:?}\n",
        args.join(" "),
        output.status,
        output.stdout.len(),
        fnv64(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.stdout, line)
}

fn bzip2_workload(exe: &Path) -> String {
    let input = bzip2_input();
    let mut transcript = format!(
        "input {} bytes, fnv64 {:016x}\n",
        input.len(),
        fnv64(&input)
    );
    for level in ["-1", "-5", "-9"] {
        let (packed, line) = bzip2_run(exe, &["-c", "-v", level], &input);
        transcript.push_str(&line);
        let (_, line) = bzip2_run(exe, &["-t", "-v"], &packed);
        transcript.push_str(&line);
        let (unpacked, line) = bzip2_run(exe, &["-d", "-c"], &packed);
        transcript.push_str(&line);
        if unpacked == input {
            transcript.push_str("round trip ok\n");
        }
    }
    let samples = realworld::bzip2_dir();
    for sample in ["sample1", "sample2", "sample3"] {
        let packed = std::fs::read(samples.join(format!("{sample}.bz2"))).unwrap();
        let reference = std::fs::read(samples.join(format!("{sample}.ref"))).unwrap();
        let (unpacked, line) = bzip2_run(exe, &["-d", "-c", "-s"], &packed);
        transcript.push_str(&line);
        if unpacked == reference {
            transcript.push_str(&format!("{sample} matches the reference\n"));
        }
    }
    let (_, line) = bzip2_run(exe, &["-d", "-c"], b"BZh9 this is not bzip2 data");
    transcript.push_str(&line);
    transcript
}

/// Builds `project` from clang-19's `-O0` IR (optnone off, as
/// fixtures/ll/*.O0.ll) optimised by dwarfsmith's own `-O2`, and checks the
/// per-file status against `status`.
fn build_through_our_optimiser(project: &Project, dir: &Path, status: Expect) -> Build {
    let dwarfsmith = Path::new(env!("CARGO_BIN_EXE_dwarfsmith"));
    let ir_flags = ["-O0", "-Xclang", "-disable-O0-optnone", "-g"];
    let build = realworld::build_with(project, "clang-19", &ir_flags, &["-O2"], dwarfsmith, dir);
    check_status(&build, "clang-19 -O0, dwarfsmith -O2", status);
    build
}

#[test]
fn lua_5_4_through_our_optimiser() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_through_our_optimiser(
        &realworld::lua(),
        dir.path(),
        expect![[r#"
            compiled 33/33 files
            lapi.c: compiled
            lauxlib.c: compiled
            lbaselib.c: compiled
            lcode.c: compiled
            lcorolib.c: compiled
            lctype.c: compiled
            ldblib.c: compiled
            ldebug.c: compiled
            ldo.c: compiled
            ldump.c: compiled
            lfunc.c: compiled
            lgc.c: compiled
            linit.c: compiled
            liolib.c: compiled
            llex.c: compiled
            lmathlib.c: compiled
            lmem.c: compiled
            loadlib.c: compiled
            lobject.c: compiled
            lopcodes.c: compiled
            loslib.c: compiled
            lparser.c: compiled
            lstate.c: compiled
            lstring.c: compiled
            lstrlib.c: compiled
            ltable.c: compiled
            ltablib.c: compiled
            ltm.c: compiled
            lundump.c: compiled
            lutf8lib.c: compiled
            lvm.c: compiled
            lzio.c: compiled
            lua_main.c: compiled
        "#]],
    );
    same_behaviour(&build, lua_workload);
}

#[test]
fn zlib_through_our_optimiser() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_through_our_optimiser(
        &realworld::zlib(),
        dir.path(),
        expect![[r#"
            compiled 16/16 files
            adler32.c: compiled
            compress.c: compiled
            crc32.c: compiled
            deflate.c: compiled
            gzclose.c: compiled
            gzlib.c: compiled
            gzread.c: compiled
            gzwrite.c: compiled
            infback.c: compiled
            inffast.c: compiled
            inflate.c: compiled
            inftrees.c: compiled
            trees.c: compiled
            uncompr.c: compiled
            zutil.c: compiled
            zlib_driver.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, scratch_workload);
    assert!(transcript.contains("all round trips ok"), "{transcript}");
}

#[test]
fn lz4_through_our_optimiser() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_through_our_optimiser(
        &realworld::lz4(),
        dir.path(),
        expect![[r#"
            compiled 6/6 files
            lz4.c: compiled
            lz4file.c: compiled
            lz4frame.c: compiled
            lz4hc.c: compiled
            xxhash.c: compiled
            lz4_driver.c: compiled
        "#]],
    );
    let transcript = same_behaviour(&build, scratch_workload);
    assert!(transcript.contains("all round trips ok"), "{transcript}");
}

#[test]
fn bzip2_through_our_optimiser() {
    let dir = tempfile::tempdir().unwrap();
    let build = build_through_our_optimiser(
        &realworld::bzip2(),
        dir.path(),
        expect![[r#"
        compiled 8/8 files
        blocksort.c: compiled
        bzlib.c: compiled
        compress.c: compiled
        crctable.c: compiled
        decompress.c: compiled
        huffman.c: compiled
        randtable.c: compiled
        bzip2.c: compiled
    "#]],
    );
    let transcript = same_behaviour(&build, bzip2_workload);
    assert_eq!(
        transcript.matches("round trip ok").count(),
        3,
        "{transcript}"
    );
}
