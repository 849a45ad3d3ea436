//! Dear ImGui, the copy the `imgui-sys` crate bundles (imgui-master, found
//! through `cargo metadata`): its five files built two ways by dwarfsmith —
//! from clang++-19 `-O2 -g` IR, and from `-O0 -g` IR through our own `-O2` —
//! and by llc-19 -O2 from the same `-O2` IR. Every object of ours
//! passes `dwarfsmith verify`, `verify --locations` and
//! `llvm-dwarfdump-19 --verify`. Linked with the headless driver
//! fixtures/realworld/imgui_driver.cpp (gcc -O0: the font atlas and eight
//! frames of the demo window with a scripted mouse), all three print the
//! same checksums of the atlas and of every frame's draw data.

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn imgui_demo_frames_draw_as_the_llc_19_build_does() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let dwarfsmith = Path::new(env!("CARGO_BIN_EXE_dwarfsmith"));
    let project = realworld::imgui();
    let (sources, flags) = (project.sources, project.cpp_flags);
    let include = format!("-I{}", realworld::imgui_dir().display());
    // Every file must compile, and every object verify.
    let ours = |ir_flags: &[&str], compile_flags: &[&str], dir: &Path| -> Vec<PathBuf> {
        realworld::cxx_ir(&sources, &flags, ir_flags, dir);
        let files = realworld::compile_each(&sources, compile_flags, dwarfsmith, dir);
        let failures: Vec<String> = files
            .iter()
            .filter_map(|(file, result)| result.as_ref().err().map(|e| format!("{file}: {e}")))
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        let objects: Vec<PathBuf> = files.into_iter().map(|(_, r)| r.unwrap()).collect();
        realworld::verify_objects(dwarfsmith, &objects.iter().collect::<Vec<_>>());
        objects
    };
    let ours_o2 = ours(&["-O2", "-g"], &[], dir);
    let llc = realworld::llc_each(&sources, dir);
    let o0_ir = ["-O0", "-Xclang", "-disable-O0-optnone", "-g"];
    let ours_o0 = ours(&o0_ir, &["-O2"], &dir.join("o0"));

    let driver = dir.join("driver.o");
    let out = support::run(
        Command::new("g++")
            .args(["-std=c++11", "-O0", "-c", &include])
            .arg(support::fixture("realworld/imgui_driver.cpp"))
            .arg("-o")
            .arg(&driver),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = |objects: Vec<PathBuf>, name: &str| {
        let exe = dir.join(name);
        let mut inputs = vec![driver.clone()];
        inputs.extend(objects);
        support::gcc_link(&exe, &inputs, &["-lstdc++", "-lm"]);
        support::run_program(&exe)
    };
    let expected = run(llc, "imgui-llc");
    assert!(expected.starts_with("atlas 512x64 "), "{expected}");
    assert_eq!(expected.lines().count(), 9, "{expected}");
    println!("{expected}");
    assert_eq!(run(ours_o2, "imgui-ours"), expected);
    assert_eq!(run(ours_o0, "imgui-ours-O0-IR"), expected);
}
