//! Itanium C++ exception handling end to end: fixtures/cxx/eh.cpp (its
//! clang++-19 -O0 and -O2 -g IR committed beside it) compiled by dwarfsmith
//! at -O0 and -O2 (our -O2 of -O0 IR included), linked with g++-compiled
//! eh_driver.cpp: exceptions cross our frames and g++'s both ways, rethrow,
//! catch (...), nested try, destructors during unwinding in order, and a
//! noexcept violation ending in std::terminate (SIGABRT). Both verifiers
//! accept every object, and its LSDA and CIE match llc-19's
//! (-relocation-model=pic) for the same IR.

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
/// bytes without the trailing zeros (their padding follows the code size).
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

/// The LSDAs of an object's `.gcc_except_table`, in order.
fn lsdas(dir: &Path, object: &Path) -> Vec<Lsda> {
    let bin = dir.join("except.bin");
    let out = run(Command::new("objcopy")
        .args(["-O", "binary", "--only-section=.gcc_except_table"])
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
        let actions_and_types = match tt_base {
            Some(base) => {
                let types = bytes[at..base].to_vec();
                at = base;
                types
            }
            None => Vec::new(),
        };
        at = at.next_multiple_of(4);
        call_sites.sort_unstable();
        let mut actions_and_types = actions_and_types;
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
        assert_eq!(lsdas(dir.path(), &ours), lsdas(dir.path(), &llc), "{ir}");
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
        // The same encodings: personality indirect pcrel sdata4 (0x9b)
        // through DW.ref.__gxx_personality_v0, LSDA and FDE pointers pcrel
        // sdata4 (0x1b); gimli writes `L` before `P`, llc `P` before `L`.
        let ours_cies = cies(&ours);
        let llc_cies = cies(&llc);
        let reorder = |(aug, data): &(String, String)| {
            let mut parts: Vec<&str> = data.split(' ').collect();
            if aug == "zLPR" {
                let lsda = parts.remove(0);
                parts.insert(5, lsda);
                return ("zPLR".to_string(), parts.join(" "));
            }
            (aug.clone(), data.clone())
        };
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
        let ours_cies: Vec<_> = ours_cies.iter().map(reorder).map(mask).collect();
        let llc_cies: Vec<_> = llc_cies.into_iter().map(mask).collect();
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
