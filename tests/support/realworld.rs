//! The real-world harness: C libraries bundled by crates (Lua 5.4, zlib, bzip2,
//! lz4, found through `cargo metadata`) built file by file three ways — gcc -O0,
//! and clang `-O2 -g` IR compiled by dwarfsmith — then linked twice: the pure gcc
//! build, and a mixed build that takes dwarfsmith's object for every file it
//! compiles and gcc's for the others (so ABI interop is tested both ways).
//! Every dwarfsmith object is checked by `dwarfsmith verify`, by `dwarfsmith
//! verify --locations` (no finding) and, all in one run, by `llvm-dwarfdump
//! --verify`.
#![allow(dead_code)] // each test binary uses its own subset of these helpers

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A C program: its sources (library files and the driver with `main`), how to
/// compile them and what to link with.
pub struct Project {
    /// Short name, used for directories and in reports.
    pub name: &'static str,
    /// Every C file of the program, in a fixed order.
    pub sources: Vec<PathBuf>,
    /// Preprocessor options shared by every compiler (-I, -D).
    pub cpp_flags: Vec<String>,
    /// Libraries for the link line.
    pub libs: Vec<&'static str>,
}

/// The outcome of building a project both ways.
pub struct Build {
    /// The project's name.
    pub name: &'static str,
    /// Each source's file name with dwarfsmith's result: `Ok` with the object, or
    /// the first line of its error (without the IR file name).
    pub files: Vec<(String, Result<PathBuf, String>)>,
    /// The program built by gcc -O0 alone.
    pub gcc_exe: PathBuf,
    /// The program with dwarfsmith's objects where it compiled.
    pub mixed_exe: PathBuf,
}

impl Build {
    /// How many files dwarfsmith compiled.
    pub fn compiled(&self) -> usize {
        self.files.iter().filter(|(_, r)| r.is_ok()).count()
    }

    /// "compiled N/M files" and one line per file: `compiled` or the error.
    pub fn report(&self) -> String {
        let mut text = format!("compiled {}/{} files\n", self.compiled(), self.files.len());
        for (file, result) in &self.files {
            match result {
                Ok(_) => text.push_str(&format!("{file}: compiled\n")),
                Err(error) => text.push_str(&format!("{file}: {error}\n")),
            }
        }
        text
    }
}

/// The directory of a dependency crate's sources, from `cargo metadata`.
pub fn crate_dir(package: &str) -> PathBuf {
    static DIRS: OnceLock<HashMap<String, PathBuf>> = OnceLock::new();
    let dirs = DIRS.get_or_init(|| {
        let out = crate::support::run(
            Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                // Not `--offline`: the C++ crates are dev-dependencies under
                // `cfg(any())`, never built, so on a fresh clone nothing has
                // downloaded them yet; this fetches them (and the manifests
                // of other platforms' crates it needs) once.
                .args(["metadata", "--format-version", "1"])
                .current_dir(env!("CARGO_MANIFEST_DIR")),
        );
        assert!(
            out.status.success(),
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        manifest_dirs(&String::from_utf8(out.stdout).unwrap())
    });
    dirs.get(package)
        .unwrap_or_else(|| panic!("cargo metadata lists no package {package}"))
        .clone()
}

/// Package name → directory of its manifest, from the `manifest_path`s of
/// `cargo metadata` JSON: a registry crate lives in `<name>-<version>/`.
fn manifest_dirs(json: &str) -> HashMap<String, PathBuf> {
    let key = "\"manifest_path\":\"";
    let mut dirs = HashMap::new();
    for piece in json.split(key).skip(1) {
        let dir = Path::new(&piece[..piece.find('"').unwrap()])
            .parent()
            .unwrap();
        let dir_name = dir.file_name().unwrap().to_str().unwrap();
        // The version starts at the first '-' followed by a digit.
        let split = dir_name.char_indices().find(|&(i, c)| {
            c == '-' && dir_name[i + 1..].starts_with(|d: char| d.is_ascii_digit())
        });
        if let Some((at, _)) = split {
            dirs.insert(dir_name[..at].to_string(), dir.to_path_buf());
        }
    }
    dirs
}

/// Lua's source directory (lua-src's lua-5.4.x).
pub fn lua_dir() -> PathBuf {
    let root = crate_dir("lua-src");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("lua-5.4")
        })
        .collect();
    dirs.sort();
    dirs.pop()
        .unwrap_or_else(|| panic!("no lua-5.4.x in {}", root.display()))
}

fn c_files(dir: &Path, except: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .filter(|p| !except.contains(&p.file_name().unwrap().to_str().unwrap()))
        .collect();
    files.sort();
    files
}

fn driver(name: &str) -> PathBuf {
    crate::support::fixture(&format!("realworld/{name}"))
}

/// Lua 5.4, core and libraries, with the interpreter main of fixtures/realworld.
pub fn lua() -> Project {
    let dir = lua_dir();
    let mut sources = c_files(&dir, &["lua.c", "luac.c", "onelua.c"]);
    sources.push(driver("lua_main.c"));
    Project {
        name: "lua",
        sources,
        cpp_flags: vec!["-DLUA_USE_POSIX".into(), format!("-I{}", dir.display())],
        libs: vec!["-lm"],
    }
}

/// zlib (libz-sys's copy) with fixtures/realworld/zlib_driver.c.
pub fn zlib() -> Project {
    let dir = crate_dir("libz-sys").join("src/zlib");
    let mut sources = c_files(&dir, &[]);
    sources.push(driver("zlib_driver.c"));
    Project {
        name: "zlib",
        sources,
        cpp_flags: vec![
            "-DSTDC".into(),
            "-D_LARGEFILE64_SOURCE".into(),
            format!("-I{}", dir.display()),
        ],
        libs: vec![],
    }
}

/// The bzip2 library and its command-line program bzip2.c (bzip2-sys's copy).
pub fn bzip2() -> Project {
    let dir = bzip2_dir();
    let sources = [
        "blocksort.c",
        "bzlib.c",
        "compress.c",
        "crctable.c",
        "decompress.c",
        "huffman.c",
        "randtable.c",
        "bzip2.c",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    Project {
        name: "bzip2",
        sources,
        cpp_flags: vec![
            "-D_FILE_OFFSET_BITS=64".into(),
            format!("-I{}", dir.display()),
        ],
        libs: vec![],
    }
}

/// bzip2-sys's bzip2-1.0.x directory.
pub fn bzip2_dir() -> PathBuf {
    let root = crate_dir("bzip2-sys");
    std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("bzip2-1.")
        })
        .unwrap_or_else(|| panic!("no bzip2-1.x in {}", root.display()))
}

/// The lz4 library (lz4-sys's copy) with fixtures/realworld/lz4_driver.c.
pub fn lz4() -> Project {
    let dir = crate_dir("lz4-sys").join("liblz4/lib");
    let mut sources = c_files(&dir, &[]);
    sources.push(driver("lz4_driver.c"));
    Project {
        name: "lz4",
        sources,
        cpp_flags: vec![format!("-I{}", dir.display())],
        libs: vec![],
    }
}

/// The mimalloc version libmimalloc-sys builds by default, with its
/// `include/` and `src/` (`src/static.c` #includes every other file).
pub fn mimalloc_dir() -> PathBuf {
    crate_dir("libmimalloc-sys").join("c_src/mimalloc/v2")
}

/// mimalloc's one-file build with fixtures/realworld/mimalloc_walk_driver.c:
/// one thread, and every system call `syscall(2)` makes goes through the
/// driver, which gives getrandom fixed bytes (see the driver).
pub fn mimalloc() -> Project {
    let dir = mimalloc_dir();
    Project {
        name: "mimalloc",
        sources: vec![dir.join("src/static.c"), driver("mimalloc_walk_driver.c")],
        cpp_flags: vec![
            format!("-I{}", dir.join("include").display()),
            "-Dsyscall=mimalloc_walk_syscall".into(),
        ],
        libs: vec!["-lpthread"],
    }
}

/// A C++ project of the harness: every file it compiles, and the
/// preprocessor and language flags its own build gives clang++.
pub struct CxxProject {
    /// Short name, used for directories and in reports.
    pub name: &'static str,
    /// Every C++ file, in a fixed order; their stems are distinct.
    pub sources: Vec<PathBuf>,
    /// Flags before the IR flags' `-O`/`-g` (standard, -I, -D).
    pub cpp_flags: Vec<String>,
}

/// leveldb 1.22, the copy `leveldb-sys` bundles: the library as its
/// CMakeLists.txt lists it for POSIX, its gtest-free test harness, its test
/// programs and db_bench.
pub mod leveldb {
    use std::path::PathBuf;

    /// leveldb's source directory in leveldb-sys.
    pub fn dir() -> PathBuf {
        super::crate_dir("leveldb-sys").join("deps/leveldb-1.22")
    }

    /// The library's sources as its CMakeLists.txt lists them for POSIX.
    pub const LIBRARY: &[&str] = &[
        "db/builder.cc",
        "db/c.cc",
        "db/db_impl.cc",
        "db/db_iter.cc",
        "db/dbformat.cc",
        "db/dumpfile.cc",
        "db/filename.cc",
        "db/log_reader.cc",
        "db/log_writer.cc",
        "db/memtable.cc",
        "db/repair.cc",
        "db/table_cache.cc",
        "db/version_edit.cc",
        "db/version_set.cc",
        "db/write_batch.cc",
        "table/block_builder.cc",
        "table/block.cc",
        "table/filter_block.cc",
        "table/format.cc",
        "table/iterator.cc",
        "table/merger.cc",
        "table/table_builder.cc",
        "table/table.cc",
        "table/two_level_iterator.cc",
        "util/arena.cc",
        "util/bloom.cc",
        "util/cache.cc",
        "util/coding.cc",
        "util/comparator.cc",
        "util/crc32c.cc",
        "util/env.cc",
        "util/filter_policy.cc",
        "util/hash.cc",
        "util/logging.cc",
        "util/options.cc",
        "util/status.cc",
        "util/env_posix.cc",
        "helpers/memenv/memenv.cc",
    ];

    /// What every test program links beside the library.
    pub const HARNESS: &[&str] = &["util/testharness.cc", "util/testutil.cc"];

    /// The test programs of CMakeLists.txt (POSIX, static library), each one
    /// file with its `main`.
    pub const TEST_PROGRAMS: &[&str] = &[
        "db/autocompact_test.cc",
        "db/corruption_test.cc",
        "db/db_test.cc",
        "db/dbformat_test.cc",
        "db/fault_injection_test.cc",
        "db/filename_test.cc",
        "db/log_test.cc",
        "db/recovery_test.cc",
        "db/skiplist_test.cc",
        "db/version_edit_test.cc",
        "db/version_set_test.cc",
        "db/write_batch_test.cc",
        "helpers/memenv/memenv_test.cc",
        "issues/issue178_test.cc",
        "issues/issue200_test.cc",
        "issues/issue320_test.cc",
        "table/filter_block_test.cc",
        "table/table_test.cc",
        "util/arena_test.cc",
        "util/bloom_test.cc",
        "util/cache_test.cc",
        "util/coding_test.cc",
        "util/crc32c_test.cc",
        "util/env_posix_test.cc",
        "util/env_test.cc",
        "util/hash_test.cc",
        "util/logging_test.cc",
        "util/no_destructor_test.cc",
        "util/status_test.cc",
    ];

    /// The benchmark: `db_bench.cc` with `util/histogram.cc` (it links the
    /// harness too).
    pub const BENCHMARK: &[&str] = &["db/db_bench.cc", "util/histogram.cc"];

    /// The preprocessor flags of leveldb's CMake build, with the
    /// port_config.h it generates on x86-64 Linux in
    /// fixtures/realworld/leveldb_port.
    pub fn cpp_flags() -> Vec<String> {
        let root = dir();
        vec![
            "-std=c++11".into(),
            "-DLEVELDB_PLATFORM_POSIX=1".into(),
            "-DLEVELDB_HAS_PORT_CONFIG_H=1".into(),
            format!("-I{}", root.display()),
            format!("-I{}", root.join("include").display()),
            format!(
                "-I{}",
                crate::support::fixture("realworld/leveldb_port").display()
            ),
        ]
    }

    /// All 71 files: library, harness, test programs, benchmark.
    pub fn project() -> super::CxxProject {
        let root = dir();
        super::CxxProject {
            name: "leveldb",
            sources: LIBRARY
                .iter()
                .chain(HARNESS)
                .chain(TEST_PROGRAMS)
                .chain(BENCHMARK)
                .map(|file| root.join(file))
                .collect(),
            cpp_flags: cpp_flags(),
        }
    }
}

/// libFuzzer, the copy `libfuzzer-sys` bundles: its 26 files, sorted, with
/// the flags libfuzzer-sys's build script gives them.
pub fn libfuzzer() -> CxxProject {
    let dir = crate_dir("libfuzzer-sys").join("libfuzzer");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    CxxProject {
        name: "libfuzzer",
        sources,
        cpp_flags: vec!["-std=c++17".into(), "-fno-omit-frame-pointer".into()],
    }
}

/// The imgui directory of imgui-sys's imgui-master.
pub fn imgui_dir() -> PathBuf {
    crate_dir("imgui-sys").join("third-party/imgui-master/imgui")
}

/// Dear ImGui, the copy `imgui-sys` bundles: its five files.
pub fn imgui() -> CxxProject {
    let root = imgui_dir();
    CxxProject {
        name: "imgui",
        sources: [
            "imgui.cpp",
            "imgui_demo.cpp",
            "imgui_draw.cpp",
            "imgui_tables.cpp",
            "imgui_widgets.cpp",
        ]
        .iter()
        .map(|file| root.join(file))
        .collect(),
        cpp_flags: vec!["-std=c++11".into(), format!("-I{}", root.display())],
    }
}

/// How long one `dwarfsmith compile` may take before the harness records it
/// as timed out: a guard against hangs, far above what any file needs (the
/// slowest, lz4.c's -O0 IR through our optimiser, takes about 30 s of CPU in
/// the debug build the tests use), so that a loaded machine does not change
/// the snapshots.
const COMPILE_TIME_LIMIT_SECONDS: u32 = 600;

/// How many commands run at once: the machine is small and shared.
const JOBS: usize = 2;

/// Runs every command, `JOBS` at a time, and returns their outputs in order.
pub fn run_all(commands: Vec<Command>) -> Vec<Output> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let commands: Vec<Mutex<Command>> = commands.into_iter().map(Mutex::new).collect();
    let outputs: Vec<Mutex<Option<Output>>> = commands.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..JOBS {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(command) = commands.get(i) else {
                    break;
                };
                let output = crate::support::run(&mut command.lock().unwrap());
                *outputs[i].lock().unwrap() = Some(output);
            });
        }
    });
    outputs
        .into_iter()
        .map(|o| o.into_inner().unwrap().unwrap())
        .collect()
}

fn stem(source: &Path) -> String {
    source.file_stem().unwrap().to_str().unwrap().to_string()
}

fn assert_ran(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Builds `project` in `dir`: gcc -O0 objects, `clang -O2 -g` IR, objects
/// from that IR by the `dwarfsmith` binary, both programs; checks every
/// dwarfsmith object with `dwarfsmith verify` and one `llvm-dwarfdump --verify` run.
pub fn build(project: &Project, clang: &str, dwarfsmith: &Path, dir: &Path) -> Build {
    build_with(project, clang, &["-O2", "-g"], &[], dwarfsmith, dir)
}

/// [`build`] with the IR made by `clang IR_FLAGS` and compiled by
/// `dwarfsmith compile COMPILE_FLAGS` (for example clang's `-O0` IR
/// optimised by our own `-O2`).
pub fn build_with(
    project: &Project,
    clang: &str,
    ir_flags: &[&str],
    compile_flags: &[&str],
    dwarfsmith: &Path,
    dir: &Path,
) -> Build {
    for sub in ["gcc", "ir", "ds"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let mut front = Vec::new();
    for source in &project.sources {
        let mut gcc = Command::new("gcc");
        gcc.args(["-O0", "-g", "-w", "-c"])
            .args(&project.cpp_flags)
            .arg(source)
            .arg("-o")
            .arg(dir.join(format!("gcc/{}.o", stem(source))));
        front.push(gcc);
        let mut ir = Command::new(clang);
        ir.args(ir_flags)
            .args(["-w", "-S", "-emit-llvm"])
            .args(&project.cpp_flags)
            .arg(source)
            .arg("-o")
            .arg(dir.join(format!("ir/{}.ll", stem(source))));
        front.push(ir);
    }
    for (output, command) in run_all(front)
        .iter()
        .zip(project.sources.iter().flat_map(|s| [s, s]))
    {
        assert_ran(output, &format!("gcc or {clang} on {}", command.display()));
    }

    let files = compile_each(&project.sources, compile_flags, dwarfsmith, dir);
    let objects: Vec<&PathBuf> = files.iter().filter_map(|(_, r)| r.as_ref().ok()).collect();
    verify_objects(dwarfsmith, &objects);

    let gcc_objects: Vec<PathBuf> = project
        .sources
        .iter()
        .map(|s| dir.join(format!("gcc/{}.o", stem(s))))
        .collect();
    let mixed_objects: Vec<PathBuf> = files
        .iter()
        .zip(&gcc_objects)
        .map(|((_, result), gcc)| result.as_ref().unwrap_or(gcc).clone())
        .collect();
    // Same file name in both builds: programs print their argv[0].
    std::fs::create_dir_all(dir.join("mixed")).unwrap();
    let gcc_exe = link(project, &gcc_objects, &dir.join("gcc").join(project.name));
    let mixed_exe = link(
        project,
        &mixed_objects,
        &dir.join("mixed").join(project.name),
    );
    Build {
        name: project.name,
        files,
        gcc_exe,
        mixed_exe,
    }
}

/// `dwarfsmith compile COMPILE_FLAGS` of `dir/ir/STEM.ll` into
/// `dir/ds/STEM.o` for each source, `JOBS` at a time: each source's file
/// name with the object, or the first line of the error (without the IR
/// file name), or the time limit it ran into.
pub fn compile_each(
    sources: &[PathBuf],
    compile_flags: &[&str],
    dwarfsmith: &Path,
    dir: &Path,
) -> Vec<(String, Result<PathBuf, String>)> {
    std::fs::create_dir_all(dir.join("ds")).unwrap();
    let back = sources
        .iter()
        .map(|source| {
            let name = stem(source);
            // A compile that hangs is a status line, not a stuck test.
            let mut command = Command::new("timeout");
            command
                .arg(format!("{COMPILE_TIME_LIMIT_SECONDS}"))
                .arg(dwarfsmith)
                .args([
                    "compile",
                    &format!("ir/{name}.ll"),
                    "-o",
                    &format!("ds/{name}.o"),
                ])
                .args(compile_flags)
                .current_dir(dir);
            command
        })
        .collect();
    run_all(back)
        .into_iter()
        .zip(sources)
        .map(|(output, source)| {
            let name = stem(source);
            let file = source.file_name().unwrap().to_str().unwrap().to_string();
            if output.status.success() {
                return (file, Ok(dir.join(format!("ds/{name}.o"))));
            }
            if output.status.code() == Some(124) {
                let limit = format!("timed out after {COMPILE_TIME_LIMIT_SECONDS} s");
                return (file, Err(limit));
            }
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr.lines().next().unwrap_or("(no message)");
            let prefix = format!("ir/{name}.ll:");
            (
                file,
                Err(first.strip_prefix(&prefix).unwrap_or(first).to_string()),
            )
        })
        .collect()
}

/// `clang++-19 IR_FLAGS -S -emit-llvm CPP_FLAGS` of each C++ source into
/// `dir/ir/STEM.ll`, `JOBS` at a time (every one must succeed).
pub fn cxx_ir(sources: &[PathBuf], cpp_flags: &[String], ir_flags: &[&str], dir: &Path) {
    std::fs::create_dir_all(dir.join("ir")).unwrap();
    let commands = sources
        .iter()
        .map(|source| {
            let mut command = Command::new("clang++-19");
            command
                .args(ir_flags)
                .args(["-w", "-S", "-emit-llvm"])
                .args(cpp_flags)
                .arg(source)
                .arg("-o")
                .arg(dir.join(format!("ir/{}.ll", stem(source))));
            command
        })
        .collect();
    for (output, source) in run_all(commands).iter().zip(sources) {
        assert_ran(output, &format!("clang++-19 on {}", source.display()));
    }
}

/// `llc-19 -O2` (position independent, as clang's objects are) of each
/// source's `dir/ir/STEM.ll` into `dir/llc/STEM.o`, `JOBS` at a time: the
/// reference build from the same IR.
pub fn llc_each(sources: &[PathBuf], dir: &Path) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir.join("llc")).unwrap();
    let objects: Vec<PathBuf> = sources
        .iter()
        .map(|source| dir.join(format!("llc/{}.o", stem(source))))
        .collect();
    let commands = sources
        .iter()
        .zip(&objects)
        .map(|(source, object)| {
            let mut command = Command::new("llc-19");
            command
                .args(["-O2", "-filetype=obj", "-relocation-model=pic", "-o"])
                .arg(object)
                .arg(dir.join(format!("ir/{}.ll", stem(source))));
            command
        })
        .collect();
    for (output, source) in run_all(commands).iter().zip(sources) {
        assert_ran(output, &format!("llc-19 on {}", source.display()));
    }
    objects
}

/// `dwarfsmith verify` and `dwarfsmith verify --locations` on each object
/// and one `llvm-dwarfdump --verify` over all; `verify --locations` must
/// find nothing.
pub fn verify_objects(dwarfsmith: &Path, objects: &[&PathBuf]) {
    if objects.is_empty() {
        return;
    }
    let checks = ["verify", "verify --locations"];
    let verifies = objects
        .iter()
        .flat_map(|object| {
            checks.map(|check| {
                let mut command = Command::new(dwarfsmith);
                command.args(check.split(' ')).arg(object);
                command
            })
        })
        .collect();
    let runs = objects
        .iter()
        .flat_map(|object| checks.map(|check| (check, object)));
    let mut findings = Vec::new();
    for (output, (check, object)) in run_all(verifies).iter().zip(runs) {
        let stdout = String::from_utf8_lossy(&output.stdout);
        if check == "verify --locations" {
            let prefix = format!("{}: ", object.display());
            findings.extend(
                stdout
                    .lines()
                    .filter(|line| !line.ends_with("no location problems found"))
                    .map(|line| line.strip_prefix(&prefix).unwrap_or(line).to_string()),
            );
            continue;
        }
        assert!(
            output.status.success(),
            "dwarfsmith {check} {}:\n{stdout}",
            object.display(),
        );
    }
    assert_eq!(
        findings,
        Vec::<String>::new(),
        "dwarfsmith verify --locations"
    );
    let output = crate::support::run(
        Command::new(crate::support::llvm_dwarfdump())
            .arg("--verify")
            .args(objects),
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && !text.contains("error:"),
        "llvm-dwarfdump --verify:\n{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn link(project: &Project, objects: &[PathBuf], exe: &Path) -> PathBuf {
    let output = crate::support::run(
        Command::new("gcc")
            .args(objects)
            .arg("-o")
            .arg(exe)
            .args(&project.libs),
    );
    assert_ran(&output, &format!("linking {}", exe.display()));
    exe.to_path_buf()
}

/// Runs a program and returns everything it said: its exit status, stdout and
/// stderr, for an exact comparison between builds.
pub fn run_transcript(command: &mut Command) -> String {
    let output = crate::support::run(command);
    format!(
        "{}\n--- stdout\n{}--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
