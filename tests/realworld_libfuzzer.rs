//! libFuzzer, the copy the `libfuzzer-sys` crate bundles (26 files, found
//! through `cargo metadata`), built file by file two ways by dwarfsmith —
//! from clang++-19 `-O2 -g` IR, and from `-O0 -g` IR through our own `-O2` —
//! and by llc-19 -O2 from the same `-O2` IR as the reference.
//! Where dwarfsmith refuses a file (the per-file status is a snapshot) the
//! fuzzer takes llc-19's object, as the C harness takes gcc's. Every object
//! of ours passes `dwarfsmith verify`, `verify --locations` and
//! `llvm-dwarfdump-19 --verify`.
//!
//! All three fuzzers run fixtures/cxx/fuzz_target.cpp (a planted bug) with one
//! seed and must find the bug after the same number of inputs, through the
//! same sequence of new coverage and mutations, writing the same crash
//! unit. The target is a shared library built by clang++-19 for both: its
//! comparisons are hashed with their program counters into libFuzzer's
//! tables, so it must sit at the same page offset in both programs. Our
//! own build of the target, from its coverage-instrumented IR (trace-pc
//! guards, comparison hooks, the stack depth read through
//! `llvm.frameaddress`), gives llc-19's fuzzer the coverage that finds the
//! bug too, after a number of inputs of its own (other program counters).

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use expect_test::expect;

/// The fuzzer's run: its exit status, the target's line naming how many
/// inputs it took, libFuzzer's progress lines without their speed and
/// memory figures, and the crash unit's name.
fn fuzz(exe: &Path, artifacts: &Path) -> String {
    std::fs::create_dir_all(artifacts).unwrap();
    let output = support::run(
        Command::new(exe)
            .args(["-seed=1", "-runs=1000000"])
            .arg(format!("-artifact_prefix={}/", artifacts.display())),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut transcript = format!("{}\n", output.status);
    for line in stderr.lines() {
        if line.starts_with('#') {
            // `exec/s: N rss: NMb` depend on the machine.
            let speed = line.find("exec/s:").unwrap_or(line.len());
            let after = line.find("Mb").map_or(line.len(), |i| i + 2);
            transcript.push_str(&format!("{}{}\n", &line[..speed], &line[after..]));
        } else if line.starts_with("planted bug") || line.starts_with("MS: ") {
            transcript.push_str(&format!("{line}\n"));
        }
    }
    let units: Vec<String> = std::fs::read_dir(artifacts)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    transcript.push_str(&format!("units: {units:?}\n"));
    transcript
}

#[test]
fn libfuzzer_finds_the_planted_bug_as_the_llc_19_build_does() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let dwarfsmith = Path::new(env!("CARGO_BIN_EXE_dwarfsmith"));
    let project = realworld::libfuzzer();
    let (sources, flags) = (project.sources, project.cpp_flags);
    assert_eq!(sources.len(), 26, "libFuzzer's files changed");
    realworld::cxx_ir(&sources, &flags, &["-O2", "-g"], dir);
    let files = realworld::compile_each(&sources, &[], dwarfsmith, dir);
    let llc = realworld::llc_each(&sources, dir);
    let o0 = dir.join("o0");
    let o0_ir = ["-O0", "-Xclang", "-disable-O0-optnone", "-g"];
    realworld::cxx_ir(&sources, &flags, &o0_ir, &o0);
    let o0_files = realworld::compile_each(&sources, &["-O2"], dwarfsmith, &o0);

    // The target's own IR, instrumented for coverage.
    let target = support::fixture("cxx/fuzz_target.cpp");
    let target_files = [target.clone()];
    // Position-independent: our build of it is a shared library too.
    let instrumented = ["-O1", "-g", "-fsanitize=fuzzer-no-link", "-fPIC"];
    realworld::cxx_ir(&target_files, &flags, &instrumented, dir);
    let target_result = realworld::compile_each(&target_files, &[], dwarfsmith, dir);

    let mut report = String::new();
    let builds = [
        (
            "-O2 IR",
            files.iter().chain(&target_result).collect::<Vec<_>>(),
        ),
        ("-O0 IR, our -O2", o0_files.iter().collect()),
    ];
    for (build, results) in builds {
        report.push_str(&format!("{build}:\n"));
        for (file, result) in results {
            match result {
                Ok(_) => report.push_str(&format!("{file}: compiled\n")),
                Err(error) => report.push_str(&format!("{file}: {error}\n")),
            }
        }
    }
    expect![[r#"
        -O2 IR:
        FuzzerCrossOver.cpp: compiled
        FuzzerDataFlowTrace.cpp: compiled
        FuzzerDriver.cpp: compiled
        FuzzerExtFunctionsDlsym.cpp: compiled
        FuzzerExtFunctionsWeak.cpp: compiled
        FuzzerExtFunctionsWindows.cpp: compiled
        FuzzerExtraCounters.cpp: compiled
        FuzzerExtraCountersDarwin.cpp: compiled
        FuzzerExtraCountersWindows.cpp: compiled
        FuzzerFork.cpp: compiled
        FuzzerIO.cpp: compiled
        FuzzerIOPosix.cpp: compiled
        FuzzerIOWindows.cpp: compiled
        FuzzerInterceptors.cpp: compiled
        FuzzerLoop.cpp: compiled
        FuzzerMain.cpp: compiled
        FuzzerMerge.cpp: compiled
        FuzzerMutate.cpp: compiled
        FuzzerSHA1.cpp: compiled
        FuzzerTracePC.cpp: compiled
        FuzzerUtil.cpp: compiled
        FuzzerUtilDarwin.cpp: compiled
        FuzzerUtilFuchsia.cpp: compiled
        FuzzerUtilLinux.cpp: compiled
        FuzzerUtilPosix.cpp: compiled
        FuzzerUtilWindows.cpp: compiled
        fuzz_target.cpp: compiled
        -O0 IR, our -O2:
        FuzzerCrossOver.cpp: compiled
        FuzzerDataFlowTrace.cpp: compiled
        FuzzerDriver.cpp: compiled
        FuzzerExtFunctionsDlsym.cpp: compiled
        FuzzerExtFunctionsWeak.cpp: compiled
        FuzzerExtFunctionsWindows.cpp: compiled
        FuzzerExtraCounters.cpp: compiled
        FuzzerExtraCountersDarwin.cpp: compiled
        FuzzerExtraCountersWindows.cpp: compiled
        FuzzerFork.cpp: compiled
        FuzzerIO.cpp: compiled
        FuzzerIOPosix.cpp: compiled
        FuzzerIOWindows.cpp: compiled
        FuzzerInterceptors.cpp: compiled
        FuzzerLoop.cpp: compiled
        FuzzerMain.cpp: compiled
        FuzzerMerge.cpp: compiled
        FuzzerMutate.cpp: compiled
        FuzzerSHA1.cpp: compiled
        FuzzerTracePC.cpp: compiled
        FuzzerUtil.cpp: compiled
        FuzzerUtilDarwin.cpp: compiled
        FuzzerUtilFuchsia.cpp: compiled
        FuzzerUtilLinux.cpp: compiled
        FuzzerUtilPosix.cpp: compiled
        FuzzerUtilWindows.cpp: compiled
    "#]]
    .assert_eq(&report);
    let ours: Vec<&PathBuf> = files
        .iter()
        .chain(&o0_files)
        .chain(&target_result)
        .filter_map(|(_, r)| r.as_ref().ok())
        .collect();
    realworld::verify_objects(dwarfsmith, &ours);

    let library = dir.join("libtarget.so");
    let out = support::run(
        Command::new("clang++-19")
            .args(instrumented)
            .args(["-shared", "-o"])
            .arg(&library)
            .arg(&target),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let link_with = |objects: Vec<PathBuf>, exe: &Path, library_dir: &Path| {
        let rpath = format!("-Wl,-rpath,{}", library_dir.display());
        let search = format!("-L{}", library_dir.display());
        support::gcc_link(
            exe,
            &objects,
            &[
                &search,
                "-ltarget",
                &rpath,
                "-rdynamic",
                "-lstdc++",
                "-lm",
                "-lpthread",
            ],
        );
    };
    let link = |objects: Vec<PathBuf>, exe: &Path| link_with(objects, exe, dir);
    // Ours where it compiled, llc-19's object elsewhere.
    let mixed = |files: &[(String, Result<PathBuf, String>)]| -> Vec<PathBuf> {
        files
            .iter()
            .zip(&llc)
            .map(|((_, result), reference)| result.as_ref().unwrap_or(reference).clone())
            .collect()
    };
    let ours_exe = dir.join("fuzzer-ours");
    link(mixed(&files), &ours_exe);
    let o0_exe = dir.join("fuzzer-ours-O0-IR");
    link(mixed(&o0_files), &o0_exe);
    let llc_exe = dir.join("fuzzer-llc");
    link(llc.clone(), &llc_exe);

    let expected = fuzz(&llc_exe, &dir.join("crashes-llc"));
    assert!(
        expected.contains("planted bug found after ") && expected.contains("units: [\"crash-"),
        "llc-19's build did not find the bug:\n{expected}"
    );
    let found = expected
        .lines()
        .find(|l| l.starts_with("planted bug"))
        .unwrap();
    println!("{found} (llc-19's build and both of ours)");
    assert_eq!(fuzz(&ours_exe, &dir.join("crashes-ours")), expected);
    assert_eq!(fuzz(&o0_exe, &dir.join("crashes-ours-O0-IR")), expected);

    // llc-19's fuzzer over our build of the instrumented target.
    let our_target_dir = dir.join("our-target");
    std::fs::create_dir_all(&our_target_dir).unwrap();
    let our_target = target_result[0].1.as_ref().unwrap();
    support::gcc_link(
        &our_target_dir.join("libtarget.so"),
        std::slice::from_ref(our_target),
        &["-shared"],
    );
    let our_target_exe = dir.join("fuzzer-llc-our-target");
    link_with(llc.clone(), &our_target_exe, &our_target_dir);
    let with_our_target = fuzz(&our_target_exe, &dir.join("crashes-our-target"));
    assert!(
        with_our_target.contains("planted bug found after ")
            && with_our_target.contains("units: [\"crash-"),
        "llc-19's fuzzer over our target did not find the bug:\n{with_our_target}"
    );
    println!(
        "{} (llc-19's fuzzer, our target)",
        with_our_target
            .lines()
            .find(|l| l.starts_with("planted bug"))
            .unwrap()
    );
}
