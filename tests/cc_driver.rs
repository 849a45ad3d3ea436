//! `dwarfsmith cc`, the C compiler driver, through the binary: a C file compiled
//! with `-O2 -g -c` links with a gcc-compiled main and prints exactly what it
//! should; `-g0` gives the same code without DWARF and cc's default object name;
//! a link command goes to cc unchanged; clang's errors pass through with its exit
//! status; our errors name the C source's file:line:col; a failure writes no object.
//! Under the names `dwarfsmith-cc` and `dwarfsmith-c++` the binary is the driver;
//! `-E` with `-g` names the working directory as gcc does, and a `.i` compiles
//! to the same object in any directory.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::*;

const SAMPLE_OUTPUT: &str = "\
dwarfsmith: checksum 392a16cf, collatz(7) = 16 steps
cc: checksum 56299123, collatz(2) = 1 steps
twenty-seven: checksum c424919b, collatz(3) = 7 steps
";

/// Runs `dwarfsmith cc ARGS` in `dir`.
fn cc(dir: &Path, args: &[&str]) -> Output {
    run(Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .arg("cc")
        .args(args)
        .current_dir(dir))
}

fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

fn sample(name: &str) -> String {
    fixture(&format!("realworld/{name}"))
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn compiles_c_with_o2_g_and_links_with_a_gcc_compiled_main() {
    let dir = tempfile::tempdir().unwrap();
    let out = cc(
        dir.path(),
        &["-O2", "-g", "-c", &sample("cc_sample.c"), "-o", "sample.o"],
    );
    assert_success(&out, "dwarfsmith cc -O2 -g -c");
    let object = dir.path().join("sample.o");
    let (ok, text) = dwarfdump_verify(&object);
    assert!(ok, "llvm-dwarfdump --verify:\n{text}");
    let verify = dwarfsmith(&["verify", object.to_str().unwrap()]);
    assert_success(&verify, "dwarfsmith verify");

    let exe = dir.path().join("sample");
    let link = run(Command::new("gcc")
        .arg(sample("cc_sample_main.c"))
        .arg(&object)
        .arg("-o")
        .arg(&exe));
    assert_success(&link, "gcc link");
    assert_eq!(run_program(&exe), SAMPLE_OUTPUT);
}

#[test]
fn g0_gives_the_same_code_without_dwarf_and_cc_names_the_object() {
    let dir = tempfile::tempdir().unwrap();
    let with_g = cc(
        dir.path(),
        &["-O2", "-g", "-c", &sample("cc_sample.c"), "-o", "g.o"],
    );
    assert_success(&with_g, "dwarfsmith cc -g");
    // No -o: the object is cc_sample.o in the working directory, as cc names it.
    let without_g = cc(
        dir.path(),
        &["-O2", "-g", "-g0", "-c", &sample("cc_sample.c")],
    );
    assert_success(&without_g, "dwarfsmith cc -g0");
    let g0 = dir.path().join("cc_sample.o");
    assert!(g0.exists(), "cc_sample.o was not written");

    assert_eq!(
        text_section(dir.path(), &dir.path().join("g.o")),
        text_section(dir.path(), &g0)
    );
    let sections = run(Command::new("objdump").arg("-h").arg(&g0));
    let sections = String::from_utf8_lossy(&sections.stdout);
    assert!(!sections.contains(".debug_info"), "{sections}");
    let sections = run(Command::new("objdump")
        .arg("-h")
        .arg(dir.path().join("g.o")));
    assert!(String::from_utf8_lossy(&sections.stdout).contains(".debug_info"));
}

#[test]
fn a_link_command_goes_to_cc_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let compile = cc(
        dir.path(),
        &["-O2", "-c", &sample("cc_sample.c"), "-o", "sample.o"],
    );
    assert_success(&compile, "dwarfsmith cc -c");
    let link = cc(
        dir.path(),
        &[&sample("cc_sample_main.c"), "sample.o", "-o", "linked"],
    );
    assert_success(&link, "dwarfsmith cc (link)");
    assert_eq!(run_program(&dir.path().join("linked")), SAMPLE_OUTPUT);

    // cc's own failure comes back with its status.
    let missing = cc(dir.path(), &["no-such-object.o", "-o", "never"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(!dir.path().join("never").exists());
}

#[test]
fn clang_errors_pass_through_with_its_exit_status_and_no_object() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.c"), "int f( {\n").unwrap();
    let clang = run(Command::new("clang-19")
        .args(["-fsyntax-only", "bad.c"])
        .current_dir(dir.path()));
    let out = cc(dir.path(), &["-O2", "-g", "-c", "bad.c", "-o", "bad.o"]);
    assert_eq!(out.status.code(), clang.status.code());
    assert_ne!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("bad.c:1:8: error: expected parameter declarator"),
        "{stderr}"
    );
    assert!(!dir.path().join("bad.o").exists());
}

#[test]
fn our_errors_name_the_c_source_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    // A stand-in clang (through $DWARFSMITH_CLANG) that prints a fixed module
    // with an instruction dwarfsmith rejects, located at demo.c:7:12.
    let fake_clang = dir.path().join("fake-clang");
    std::fs::write(
        &fake_clang,
        format!(
            "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  if [ \"$1\" = -o ]; then cp '{}' \"$2\"; fi\n  shift\ndone\n",
            sample("cc_bad_instruction.ll")
        ),
    )
    .unwrap();
    run(Command::new("chmod").arg("+x").arg(&fake_clang));
    std::fs::write(dir.path().join("demo.c"), "int demo(int x);\n").unwrap();
    let out = run(Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .args(["cc", "-O2", "-g", "-c", "demo.c", "-o", "demo.o"])
        .env("DWARFSMITH_CLANG", &fake_clang)
        .current_dir(dir.path()));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "/src/demo.c:7:12: error: unknown instruction 'frobnicate' (clang's IR for it, line 8 column 8)\n"
    );
    assert!(!dir.path().join("demo.o").exists());
}

/// A directory with `dwarfsmith-cc` and `dwarfsmith-c++`: dwarfsmith under
/// the names build tools are given as one compiler executable.
fn driver_links(dir: &Path) -> (PathBuf, PathBuf) {
    let cc = dir.join("dwarfsmith-cc");
    let cxx = dir.join("dwarfsmith-c++");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_dwarfsmith"), &cc).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_dwarfsmith"), &cxx).unwrap();
    (cc, cxx)
}

#[test]
fn dwarfsmith_cc_and_cxx_are_the_drivers_under_their_program_names() {
    let dir = tempfile::tempdir().unwrap();
    let (cc_program, cxx_program) = driver_links(dir.path());
    let through_name = run(Command::new(&cc_program)
        .args(["-O2", "-g", "-c", &sample("cc_sample.c"), "-o", "named.o"])
        .current_dir(dir.path()));
    assert_success(&through_name, "dwarfsmith-cc -c");
    let through_subcommand = cc(
        dir.path(),
        &["-O2", "-g", "-c", &sample("cc_sample.c"), "-o", "sub.o"],
    );
    assert_success(&through_subcommand, "dwarfsmith cc -c");
    assert_eq!(
        std::fs::read(dir.path().join("named.o")).unwrap(),
        std::fs::read(dir.path().join("sub.o")).unwrap()
    );
    // A link goes to cc.
    let link = run(Command::new(&cc_program)
        .args([&sample("cc_sample_main.c"), "named.o", "-o", "linked"])
        .current_dir(dir.path()));
    assert_success(&link, "dwarfsmith-cc (link)");
    assert_eq!(run_program(&dir.path().join("linked")), SAMPLE_OUTPUT);

    // dwarfsmith-c++ runs clang++: the function's name is mangled.
    std::fs::write(
        dir.path().join("twice.cpp"),
        "int twice(int x) { return 2 * x; }\n",
    )
    .unwrap();
    let cxx = run(Command::new(&cxx_program)
        .args(["-O2", "-g", "-c", "twice.cpp"])
        .current_dir(dir.path()));
    assert_success(&cxx, "dwarfsmith-c++ -c");
    let symbols = run(Command::new("nm").arg(dir.path().join("twice.o")));
    assert_eq!(
        String::from_utf8_lossy(&symbols.stdout),
        "0000000000000000 T _Z5twicei\n"
    );
}

/// `dwarfsmith cc ARGS` in `dir`, which must succeed; its standard output.
fn cc_ok(dir: &Path, args: &[&str]) -> String {
    let out = cc(dir, args);
    assert_success(&out, &format!("dwarfsmith cc {args:?}"));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn preprocessing_with_g_names_the_working_directory_on_the_second_line_as_gcc_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.c"),
        "#define TWICE(x) (2 * (x))\nint p(int x) { return TWICE(x); }\n",
    )
    .unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let first_lines = |text: &str| text.lines().take(3).collect::<Vec<_>>().join("\n");
    assert_eq!(
        first_lines(&cc_ok(dir.path(), &["-O2", "-g", "-E", "p.c"])),
        format!(
            "# 1 \"p.c\"\n# 1 \"{}//\"\n# 1 \"<built-in>\" 1",
            cwd.display()
        )
    );
    // Without -g, and with -P (no line markers), nothing is added.
    assert_eq!(
        first_lines(&cc_ok(dir.path(), &["-O2", "-E", "p.c"])),
        "# 1 \"p.c\"\n# 1 \"<built-in>\" 1\n# 1 \"<built-in>\" 3"
    );
    assert_eq!(
        cc_ok(dir.path(), &["-g", "-E", "-P", "p.c"]),
        "\nint p(int x) { return (2 * (x)); }\n"
    );
    // -o writes the same text to the file.
    cc_ok(dir.path(), &["-O2", "-g", "-E", "p.c", "-o", "p.i"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("p.i")).unwrap(),
        cc_ok(dir.path(), &["-O2", "-g", "-E", "p.c"])
    );
}

#[test]
fn a_preprocessed_file_compiles_to_the_same_object_in_any_directory() {
    let dir = tempfile::tempdir().unwrap();
    let client = dir.path().join("client");
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&client).unwrap();
    std::fs::create_dir(&elsewhere).unwrap();
    let client = client.canonicalize().unwrap();
    let map = format!("-ffile-prefix-map={}=.", client.display());
    let sample_c = sample("cc_sample.c");
    let sample_i = client.join("sample.i");
    let sample_i = sample_i.to_str().unwrap();
    let flags = ["-O2", "-g", map.as_str()];
    cc_ok(
        &client,
        &[&flags[..], &["-E", &sample_c, "-o", "sample.i"]].concat(),
    );
    cc_ok(
        &client,
        &[&flags[..], &["-c", "sample.i", "-o", "here.o"]].concat(),
    );
    cc_ok(
        &elsewhere,
        &[&flags[..], &["-c", sample_i, "-o", "there.o"]].concat(),
    );
    let here = std::fs::read(client.join("here.o")).unwrap();
    assert_eq!(here, std::fs::read(elsewhere.join("there.o")).unwrap());
    // The compilation directory is the client's, mapped.
    let info = run(Command::new("llvm-dwarfdump-19")
        .args(["--debug-info", "here.o"])
        .current_dir(&client));
    let info = String::from_utf8_lossy(&info.stdout);
    let comp_dirs: Vec<&str> = info
        .lines()
        .filter(|l| l.contains("DW_AT_comp_dir"))
        .collect();
    assert_eq!(comp_dirs, ["              DW_AT_comp_dir\t(\".\")"]);
    // The object links and runs like one compiled from the C source.
    let link = run(Command::new("gcc")
        .arg(sample("cc_sample_main.c"))
        .arg(client.join("here.o"))
        .arg("-o")
        .arg(dir.path().join("from_i")));
    assert_success(&link, "gcc link");
    assert_eq!(run_program(&dir.path().join("from_i")), SAMPLE_OUTPUT);
}
