//! Itanium C++ exception handling end to end: fixtures/cxx/eh.cpp (its
//! clang++-19 -O0 and -O2 -g IR committed beside it) compiled by dwarfsmith
//! at -O0 and -O2 (our -O2 of -O0 IR included), linked with g++-compiled
//! eh_driver.cpp: exceptions cross our frames and g++'s both ways, rethrow,
//! catch (...), nested try, destructors during unwinding in order, and a
//! noexcept violation ending in std::terminate (SIGABRT). Both verifiers
//! accept every object, and its LSDA and CIE match llc-19's
//! (-relocation-model=pic) for the same IR. fixtures/cxx/eh_more.cpp throws
//! from the constructors of a static local and of a thread_local and
//! carries a std::exception_ptr to another thread. `dwarfsmith c++` builds
//! eh.cpp through make.

mod support;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// What the program prints: the same as when g++ compiles both halves.
const EXPECTED: &str = "\
enter ours_throws
leave ours_throws
ours_throws(0) returned
enter ours_throws
leave ours_throws
g++ caught int 7
enter ours_throws
leave ours_throws
g++ caught from ours
enter ours_catches
leave ours_catches
ours_catches(0) = 0
enter ours_catches
ours caught int 42
leave ours_catches
ours_catches(1) = 42
enter ours_catches
ours caught exception from g++
leave ours_catches
ours_catches(2) = -1
enter ours_catches
ours caught something
leave ours_catches
ours_catches(3) = -2
enter outer
enter inner
leave inner
leave outer
ours_nested(0) = 2
enter outer
enter inner
leave inner
inner caught int 42 at stage 1, rethrowing
leave outer
outer caught int 42
ours_nested(1) = 43
enter outer
enter inner
leave inner
leave outer
outer caught from g++
ours_nested(2) = -1
ours_template(0) = 0
ours_template(1) = 43
enter ours_noexcept
leave ours_noexcept
done
";

/// The g++-compiled driver's object.
fn driver(dir: &Path) -> PathBuf {
    let object = dir.join("eh_driver.o");
    let out = run(Command::new("g++")
        .arg("-c")
        .arg(fixture("cxx/eh_driver.cpp"))
        .arg("-o")
        .arg(&object));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    object
}

/// Links `object` with the driver by g++ and checks the program's output,
/// and that `terminate` ends it by SIGABRT after the noexcept violation.
fn check_program(dir: &Path, object: &Path, name: &str) {
    let exe = dir.join(name);
    let out = run(Command::new("g++")
        .arg(driver(dir))
        .arg(object)
        .arg("-o")
        .arg(&exe));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(run_program(&exe), EXPECTED, "{name}");
    let out = run(Command::new(&exe).arg("terminate"));
    assert_eq!(out.status.signal(), Some(6), "{name}: {:?}", out.status);
    assert!(String::from_utf8_lossy(&out.stderr).contains("terminate called"));
}

/// Compiles fixtures/cxx/eh.IR.ll at `level`, runs it and verifies it.
fn check(ir: &str, level: &str) {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture(&format!("cxx/eh.{ir}.ll"));
    let object = compile_ll(dir.path(), &input, &format!("eh.{ir}"), &[level]);
    check_program(dir.path(), &object, &format!("eh_{ir}{level}"));
    let (ok, text) = dwarfdump_verify(&object);
    assert!(ok, "{text}");
    let out = dwarfsmith(&["verify", object.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn clang_o0_ir_at_our_o0() {
    check("O0", "-O0");
}

#[test]
fn clang_o0_ir_through_our_o2() {
    check("O0", "-O2");
}

#[test]
fn clang_o2_ir() {
    check("O2", "-O2");
}

/// One LSDA as a comparable summary: the @TType encoding, the call sites'
/// (has a landing pad, action) sorted (their order and offsets follow each
/// compiler's block placement), and the action records and type table
/// bytes and exception specifications without the trailing zeros (their
/// padding follows the code size).
#[derive(Debug, PartialEq, Eq)]
struct Lsda {
    ttype: u8,
    call_sites: Vec<(bool, u64)>,
    actions_and_types: Vec<u8>,
}

fn uleb(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut value, mut shift) = (0u64, 0);
    loop {
        let byte = bytes[*at];
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return value;
        }
    }
}

/// The LSDAs of each of an object's `.gcc_except_table*` sections, by
/// section name.
fn lsdas(dir: &Path, object: &Path) -> Vec<(String, Vec<Lsda>)> {
    let mut names: Vec<String> = readelf("-S", object)
        .lines()
        .filter_map(|l| {
            l.split_whitespace()
                .find(|w| w.starts_with(".gcc_except_table"))
        })
        .map(str::to_string)
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let found = section_lsdas(dir, object, &name);
            (name, found)
        })
        .collect()
}

/// The LSDAs of `section` of `object`, in order.
fn section_lsdas(dir: &Path, object: &Path, section: &str) -> Vec<Lsda> {
    let bin = dir.join("except.bin");
    let out = run(Command::new("objcopy")
        .args(["-O", "binary"])
        .arg(format!("--only-section={section}"))
        .arg(object)
        .arg(&bin));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&bin).unwrap();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        assert_eq!(bytes[at], 0xff, "@LPStart at {at:#x}");
        let ttype = bytes[at + 1];
        at += 2;
        let tt_base = (ttype != 0xff).then(|| {
            let offset = uleb(&bytes, &mut at);
            at + offset as usize
        });
        assert_eq!(bytes[at], 1, "call-site encoding");
        at += 1;
        let length = uleb(&bytes, &mut at) as usize;
        let end = at + length;
        let mut call_sites = Vec::new();
        while at < end {
            let _start = uleb(&bytes, &mut at);
            let _length = uleb(&bytes, &mut at);
            let pad = uleb(&bytes, &mut at);
            let action = uleb(&bytes, &mut at);
            call_sites.push((pad != 0, action));
        }
        let mut actions_and_types = match tt_base {
            Some(base) => {
                let types = bytes[at..base].to_vec();
                at = base;
                types
            }
            None => Vec::new(),
        };
        // The exception specifications, then padding to the next LSDA.
        while at < bytes.len() && (at % 4 != 0 || bytes[at] != 0xff) {
            actions_and_types.push(bytes[at]);
            at += 1;
        }
        call_sites.sort_unstable();
        while actions_and_types.last() == Some(&0) {
            actions_and_types.pop();
        }
        found.push(Lsda {
            ttype,
            call_sites,
            actions_and_types,
        });
    }
    found
}

/// The symbols the relocations of `section` name, in offset order.
fn relocated_symbols(object: &Path, section: &str) -> Vec<String> {
    let text = readelf("-r", object);
    let header = format!("Relocation section '.rela{section}'");
    let Some(start) = text.find(&header) else {
        return Vec::new();
    };
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().nth(4).map(str::to_string))
        .collect()
}

/// The CIEs' augmentation strings and data (as readelf prints them).
fn cies(object: &Path) -> Vec<(String, String)> {
    let text = readelf("--debug-dump=frames", object);
    let mut found = Vec::new();
    let mut augmentation = String::new();
    for line in text.lines().map(str::trim) {
        if let Some(a) = line.strip_prefix("Augmentation:") {
            augmentation = a.trim().trim_matches('"').to_string();
        }
        // FDEs print their LSDA pointer as augmentation data too.
        if let Some(data) = line.strip_prefix("Augmentation data:") {
            if !augmentation.is_empty() {
                found.push((std::mem::take(&mut augmentation), data.trim().to_string()));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn lsda_and_cie_match_llc() {
    let dir = tempfile::tempdir().unwrap();
    // Our -O2 of -O0 IR inlines (llc never does): -O0 IR at -O0.
    for (ir, level) in [("O0", "-O0"), ("O2", "-O2")] {
        let input = fixture(&format!("cxx/eh.{ir}.ll"));
        let ours = compile_ll(dir.path(), &input, &format!("eh.{ir}"), &[level]);
        let llc = dir.path().join(format!("eh.{ir}.llc.o"));
        llc_object(&input, &llc, &[level, "-relocation-model=pic"]);
        let found = lsdas(dir.path(), &ours);
        assert_eq!(found, lsdas(dir.path(), &llc), "{ir}");
        // The template instance's LSDA is in its COMDAT group.
        let guarded = "_Z7guardedIiEiT_";
        assert!(found
            .iter()
            .any(|(name, _)| *name == format!(".gcc_except_table.{guarded}")));
        let groups = readelf("-g", &ours);
        let group = groups
            .split("COMDAT group section")
            .find(|g| g.contains(&format!("[{guarded}]")))
            .unwrap_or_else(|| panic!("{groups}"));
        assert!(
            group.contains(&format!(".gcc_except_table.{guarded}")),
            "{group}"
        );
        // Type infos through 8-byte stubs in .data (ours named, llc's
        // local labels): as many pointers, to stubs of the same type infos.
        assert_eq!(
            relocated_symbols(&ours, ".gcc_except_table").len(),
            relocated_symbols(&llc, ".gcc_except_table").len(),
            "{ir}"
        );
        let mut stub_targets = relocated_symbols(&ours, ".data");
        let mut llc_stub_targets = relocated_symbols(&llc, ".data");
        stub_targets.sort();
        llc_stub_targets.sort();
        assert_eq!(stub_targets, llc_stub_targets, "{ir}");
        // The same CIEs: augmentation zPLR, the personality indirect pcrel
        // sdata4 (0x9b) through DW.ref.__gxx_personality_v0, LSDA and FDE
        // pointers pcrel sdata4 (0x1b); the pointer's bytes masked.
        let mask = |(aug, data): (String, String)| {
            let parts: Vec<&str> = data.split(' ').collect();
            let masked: Vec<&str> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    if aug == "zPLR" && (1..5).contains(&i) {
                        "??"
                    } else {
                        p
                    }
                })
                .collect();
            (aug, masked.join(" "))
        };
        let ours_cies: Vec<_> = cies(&ours).into_iter().map(mask).collect();
        let llc_cies: Vec<_> = cies(&llc).into_iter().map(mask).collect();
        assert_eq!(ours_cies, llc_cies, "{ir}");
        assert!(ours_cies.contains(&("zPLR".into(), "9b ?? ?? ?? ?? 1b 1b".into())));
        let symbols = readelf("-s", &ours);
        let dw_ref = symbols
            .lines()
            .find(|l| l.ends_with(" DW.ref.__gxx_personality_v0"))
            .unwrap_or_else(|| panic!("{symbols}"));
        assert!(dw_ref.contains("OBJECT  WEAK   HIDDEN"), "{dw_ref}");
    }
}

/// `llvm-as-19 < file | llvm-dis-19`: LLVM's own reading of a module.
fn llvm_reading(file: &Path) -> String {
    let out = run(Command::new("sh")
        .arg("-c")
        .arg(format!("llvm-as-19 < '{}' | llvm-dis-19", file.display())));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn invoke_landingpad_and_resume_print_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for ir in ["O0", "O2"] {
        let input = fixture(&format!("cxx/eh.{ir}.ll"));
        let printed = dir.path().join(format!("eh.{ir}.printed.ll"));
        let out = dwarfsmith(&[
            "opt",
            input.to_str().unwrap(),
            "-o",
            printed.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&printed).unwrap();
        for construct in [
            "invoke ",
            "landingpad ",
            "cleanup",
            "catch ptr null",
            "resume ",
        ] {
            assert!(text.contains(construct), "{ir}: no {construct}");
        }
        assert_eq!(llvm_reading(&printed), llvm_reading(&input), "{ir}");
    }
}

#[test]
fn a_filter_clause_and_typeid_for_compile_and_print() {
    // A throw() specification: `filter [1 x ptr] [ptr @_ZTIi]`.
    let text = "declare i32 @__gxx_personality_v0(...)
declare void @g()
declare i32 @llvm.eh.typeid.for.p0(ptr)
declare void @__cxa_call_unexpected(ptr)
@_ZTIi = external constant ptr

define i32 @f() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @g()
          to label %ok unwind label %pad

ok:
  ret i32 0

pad:
  %lp = landingpad { ptr, i32 }
          filter [1 x ptr] [ptr @_ZTIi]
          catch ptr @_ZTIi
  %sel = extractvalue { ptr, i32 } %lp, 1
  %id = call i32 @llvm.eh.typeid.for.p0(ptr @_ZTIi)
  %is = icmp eq i32 %sel, %id
  br i1 %is, label %caught, label %unexpected

caught:
  ret i32 %id

unexpected:
  %exn = extractvalue { ptr, i32 } %lp, 0
  call void @__cxa_call_unexpected(ptr %exn)
  unreachable
}
";
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("filter.ll");
    std::fs::write(&input, text).unwrap();
    let ours = compile_ll(dir.path(), &input, "filter", &["-O2"]);
    let llc = dir.path().join("filter.llc.o");
    llc_object(&input, &llc, &["-O2", "-relocation-model=pic"]);
    let found = lsdas(dir.path(), &ours);
    assert_eq!(found, lsdas(dir.path(), &llc));
    // Type id 1 is _ZTIi (catch, last clause first); the filter lists it
    // at offset -1 of the specifications: actions (1, 0) then (-1, -3).
    // Then padding, the type table (one entry) and the specification
    // list [1, 0].
    assert_eq!(
        found[0].1[0].actions_and_types,
        [1, 0, 0x7f, 0x7d, 0, 0, 0, 0, 0, 0, 0, 1]
    );
    let selected = selected_mir(text, "filter.ll", "f");
    assert!(selected.contains("unwind bb."), "{selected}");
}

#[test]
fn the_cxx_driver_compiles_and_links_through_make() {
    // `make CXX="dwarfsmith c++"`: compiles by clang++-19 and us, links by c++.
    let dir = tempfile::tempdir().unwrap();
    let makefile = format!(
        "eh: eh.o eh_driver.o\n\t$(CXX) $^ -o $@\n\
         eh.o: {0}/eh.cpp\n\t$(CXX) -O2 -g -c $< -o $@\n\
         eh_driver.o: {0}/eh_driver.cpp\n\t$(CXX) -O0 -c $< -o $@\n",
        fixture("cxx").display()
    );
    std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
    let out = run(Command::new("make")
        .current_dir(dir.path())
        .arg(format!("CXX={} c++", env!("CARGO_BIN_EXE_dwarfsmith"))));
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(run_program(&dir.path().join("eh")), EXPECTED);
    let (ok, text) = dwarfdump_verify(&dir.path().join("eh.o"));
    assert!(ok, "{text}");
    // $DWARFSMITH_CLANGXX names the clang++ to run.
    let out = run(Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .env("DWARFSMITH_CLANGXX", "/nonexistent/clang++")
        .args(["c++", "-c"])
        .arg(fixture("cxx/eh.cpp"))
        .arg("-o")
        .arg(dir.path().join("never.o")));
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "dwarfsmith c++: error: cannot run /nonexistent/clang++: No such file or directory (os error 2)\n"
    );
}

/// What fixtures/cxx/eh_more.cpp prints (as when g++ compiles it).
const EXPECTED_MORE: &str = "\
constructing Flaky, attempt 1
static local threw: first construction fails
constructing Flaky, attempt 2
flaky 2
thread_local threw -3
thread-local constructed
then 9
main thread got: from a worker thread
";

#[test]
fn static_local_and_thread_local_constructors_and_exception_ptr_across_threads() {
    let dir = tempfile::tempdir().unwrap();
    for (ir, level) in [("O0", "-O0"), ("O0", "-O2"), ("O2", "-O2")] {
        let input = fixture(&format!("cxx/eh_more.{ir}.ll"));
        let object = compile_ll(dir.path(), &input, &format!("eh_more.{ir}"), &[level]);
        let exe = dir.path().join(format!("eh_more_{ir}{level}"));
        let out = run(Command::new("g++").arg(&object).arg("-o").arg(&exe));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(run_program(&exe), EXPECTED_MORE, "{ir} {level}");
        let (ok, text) = dwarfdump_verify(&object);
        assert!(ok, "{text}");
    }
}

#[test]
fn an_invoke_ends_its_block_and_its_pad_receives_rax_and_rdx() {
    // A value live across the invoke (%x) reaches both successors; the
    // landing pad's phi gets its value before the call; the result is
    // copied in the continuation block, which jumps to the normal block.
    let text = "declare i32 @__gxx_personality_v0(...)
declare i64 @g(i64)
declare void @h(ptr, i32, i64)

define i64 @f(i64 %x) personality ptr @__gxx_personality_v0 {
entry:
  %r = invoke i64 @g(i64 %x)
          to label %ok unwind label %pad

ok:
  %s = add i64 %r, %x
  ret i64 %s

pad:
  %p = phi i64 [ 7, %entry ]
  %lp = landingpad { ptr, i32 }
          cleanup
  %exn = extractvalue { ptr, i32 } %lp, 0
  %sel = extractvalue { ptr, i32 } %lp, 1
  call void @h(ptr %exn, i32 %sel, i64 %p)
  resume { ptr, i32 } %lp
}
";
    expect_test::expect![[r#"
        name: f
        bb.0:  ; succ bb.1, bb.3
          %7 = COPY $rdi
          $rdi = COPY %7
          %2 = MOV64 7
          CALL @g, args($rdi), rets($rax), unwind bb.3
        bb.1:  ; succ bb.2
          %0 = COPY $rax
        bb.2:
          %1 = COPY %0
          %1 = ADD64 %1, %7
          $rax = COPY %1
          RET $rax
        bb.3:
          %5 = COPY $rax
          %6 = COPY $rdx
          %3 = COPY %5
          %4 = COPY %6
          $rdi = COPY %3
          $rsi = COPY %4
          $rdx = COPY %2
          CALL @h, args($rdi, $rsi, $rdx), rets()
          $rdi = COPY %5
          CALL @_Unwind_Resume, args($rdi), rets()
          UD2
    "#]]
    .assert_eq(&selected_mir(text, "invoke.ll", "f"));
}

/// The bytes of `section` of `object`.
fn section_bytes(dir: &Path, object: &Path, section: &str) -> Vec<u8> {
    let bin = dir.join("section.bin");
    let out = run(Command::new("objcopy")
        .args(["-O", "binary"])
        .arg(format!("--only-section={section}"))
        .arg(object)
        .arg(&bin));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&bin).unwrap()
}

#[test]
fn g0_gives_the_same_code_and_tables_and_objects_repeat_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("cxx/eh.O2.ll");
    let with = compile_ll(dir.path(), &input, "eh", &["-O2"]);
    let without = compile_ll(dir.path(), &input, "eh", &["-O2", "-g0"]);
    for section in [".text", ".gcc_except_table", ".eh_frame"] {
        assert_eq!(
            section_bytes(dir.path(), &with, section),
            section_bytes(dir.path(), &without, section),
            "{section}"
        );
    }
    let first = std::fs::read(&with).unwrap();
    let again = compile_ll(dir.path(), &input, "eh", &["-O2"]);
    assert_eq!(first, std::fs::read(again).unwrap());
}

#[test]
fn malformed_exception_handling_is_refused_with_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let head = "declare i32 @p(...)\ndeclare void @g()\n";
    let cases = [
        (
            "define void @f() personality ptr @p {\nentry:\n  invoke void @g()\n          to label %ok unwind label %ok\n\nok:\n  ret void\n}\n",
            "case.ll:5:3: error: in function @f: `invoke` in block %entry: the unwind destination %ok does not open with a landingpad",
        ),
        (
            "define void @f() {\nentry:\n  invoke void @g()\n          to label %ok unwind label %pad\n\nok:\n  ret void\n\npad:\n  %lp = landingpad { ptr, i32 }\n          cleanup\n  resume { ptr, i32 } %lp\n}\n",
            "case.ll:12:3: error: in function @f: `%lp = landingpad` in block %pad: landingpad in a function without a personality",
        ),
        (
            "define void @f() personality ptr @p {\nentry:\n  invoke void @g()\n          to label %ok unwind label %pad\n\nok:\n  ret void\n\npad:\n  call void @g()\n  %lp = landingpad { ptr, i32 }\n          cleanup\n  resume { ptr, i32 } %lp\n}\n",
            "case.ll:5:3: error: in function @f: `invoke` in block %entry: the unwind destination %pad does not open with a landingpad",
        ),
    ];
    for (body, want) in cases {
        let got = refusal(dir.path(), &format!("{head}{body}"));
        assert_eq!(got, want);
    }
}

#[test]
fn gdb_in_a_catch_block_and_in_a_destructor_run_by_unwinding() {
    // At a catch line, the caught value and the locals; then in the
    // destructor the rethrow runs while unwinding ours_nested's frame: the
    // same values as llc-19's object from the same IR shows.
    let dir = tempfile::tempdir().unwrap();
    let input = fixture("cxx/eh.O0.ll");
    let ours = compile_ll(dir.path(), &input, "eh.O0", &["-O0"]);
    let llc = dir.path().join("eh.O0.llc.o");
    llc_object(&input, &llc, &["-O0", "-relocation-model=pic"]);
    let commands = [
        "break eh.cpp:49",
        "run",
        "print e",
        "print stage",
        "print *outer.name@5",
        "break Noisy::~Noisy",
        "continue",
        "print *this->name@5",
        "frame 1",
        "print stage",
    ];
    let session = |object: &Path, name: &str| {
        let exe = dir.path().join(name);
        let out = run(Command::new("g++")
            .arg(driver(dir.path()))
            .arg(object)
            .arg("-o")
            .arg(&exe));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = gdb_batch(&exe, &commands);
        text.lines()
            .filter(|l| l.starts_with('$') || l.starts_with("#1"))
            .map(|l| match l.find(" in ") {
                Some(at) if l.starts_with("#1") => format!("#1 {}", &l[at + 4..]),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let got = session(&ours, "gdb_ours");
    assert_eq!(
        got,
        "$1 = 42\n$2 = 1\n$3 = \"outer\"\n$4 = \"outer\"\n#1 ours_nested (kind=1) at eh.cpp:52\n$5 = 1"
    );
    assert_eq!(got, session(&llc, "gdb_llc"));
}
