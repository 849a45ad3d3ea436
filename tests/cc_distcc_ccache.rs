//! `dwarfsmith-cc` (dwarfsmith under that name) where build tools want one
//! compiler executable: Lua 5.4 (fixtures/realworld/lua.mk) built by
//! `make -j4 CC="distcc dwarfsmith-cc"` on two `distccd` daemons this test
//! starts on 127.0.0.1, and by `make CC="ccache dwarfsmith-cc"` twice.
//!
//! distcc preprocesses on the client (`dwarfsmith-cc -E`) and the daemon
//! compiles the `.i`, in its own directory: every object must be byte-identical
//! to the local build that compiles the same `.i` files (`STEPS=2`), which runs
//! in another directory. (An object compiled from a `.i` differs from one
//! compiled from the `.c` by clang's design: no MD5 checksums, columns after a
//! macro count in the expanded text.) Every job must have run on a daemon: the
//! client may not compile locally (`DISTCC_FALLBACK=0`, no localhost in
//! `DISTCC_HOSTS`), and the daemons' logs must count one compile per object,
//! on both daemons. The second ccache build must hit the cache for every
//! file, and its objects equal the plain local build's.

#[path = "support/realworld.rs"]
mod realworld;
mod support;

use std::collections::BTreeMap;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// The objects of Lua and the harness's main: lua.mk builds one per source.
fn objects(build: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut objects = BTreeMap::new();
    for entry in std::fs::read_dir(build).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "o") {
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            objects.insert(name, std::fs::read(&path).unwrap());
        }
    }
    objects
}

/// A directory the distcc daemons (which drop root for the `distccd` user)
/// can read and write.
fn open_dir(path: &Path) -> PathBuf {
    std::fs::create_dir_all(path).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o1777)).unwrap();
    path.to_path_buf()
}

/// A test's directories: `bin/` holds `dwarfsmith-cc` and `dwarfsmith-c++`
/// (links to the dwarfsmith binary).
struct Workspace {
    root: tempfile::TempDir,
}

impl Workspace {
    fn new() -> Workspace {
        let root = tempfile::tempdir().unwrap();
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let bin = root.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        for name in ["dwarfsmith-cc", "dwarfsmith-c++"] {
            symlink(env!("CARGO_BIN_EXE_dwarfsmith"), bin.join(name)).unwrap();
        }
        Workspace { root }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    /// PATH with `bin/` first.
    fn search_path(&self) -> String {
        format!(
            "{}:{}",
            self.path("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// `make -f lua.mk -j4` run in `dir` (made here) with `CC` and extra
    /// arguments and environment; the objects go to `dir/build`. The flags map
    /// the build directory to `.`, so builds in two directories may agree.
    fn make(&self, dir: &str, cc: &str, extra: &[&str], env: &[(&str, String)]) -> PathBuf {
        let dir = self.path(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let out = support::run(
            Command::new("make")
                .arg("-j4")
                .arg("-f")
                .arg(support::fixture("realworld/lua.mk"))
                .arg(format!("LUA_SRC={}", realworld::lua_dir().display()))
                .arg("OUT=build")
                .arg(format!("CC={cc}"))
                .arg("CFLAGS=-O2 -g -DLUA_USE_POSIX -I$(LUA_SRC) -ffile-prefix-map=$(CURDIR)=.")
                .args(extra)
                .env("PATH", self.search_path())
                .envs(env.iter().map(|(k, v)| (k, v)))
                .current_dir(&dir),
        );
        assert!(
            out.status.success(),
            "make CC=\"{cc}\" {extra:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir.join("build")
    }
}

/// A `distccd` on 127.0.0.1, in a process group of its own (its shutdown
/// signals the whole group), stopped when dropped.
struct Daemon {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Daemon {
    /// Starts a daemon that may run only `dwarfsmith-cc` (`DISTCC_CMDLIST`)
    /// and compiles in a directory of its own (`TMPDIR`).
    fn start(workspace: &Workspace, name: &str) -> Daemon {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let commands = workspace.path(&format!("{name}.commands"));
        std::fs::write(
            &commands,
            format!("{}\n", workspace.path("bin/dwarfsmith-cc").display()),
        )
        .unwrap();
        let log = open_dir(&workspace.path("logs")).join(format!("{name}.log"));
        let child = Command::new("distccd")
            .args(["--daemon", "--no-detach", "--listen", "127.0.0.1"])
            .args(["--allow", "127.0.0.1", "--jobs", "2", "--log-level", "info"])
            .arg("--port")
            .arg(port.to_string())
            .arg("--log-file")
            .arg(&log)
            .env("DISTCC_CMDLIST", &commands)
            .env("TMPDIR", open_dir(&workspace.path(name)))
            .env("PATH", workspace.search_path())
            .process_group(0)
            .spawn()
            .expect("cannot start distccd (Debian: apt-get install distcc)");
        let daemon = Daemon { child, port, log };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "distccd did not listen on port {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        daemon
    }

    /// `127.0.0.1:PORT/2`: this daemon in `DISTCC_HOSTS`, two jobs at a time.
    fn host(&self) -> String {
        format!("127.0.0.1:{}/2", self.port)
    }

    /// How many compiles the daemon's log says it finished.
    fn compiles(&self) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .matches(" COMPILE_OK ")
            .count()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        support::run(
            Command::new("kill")
                .arg("-TERM")
                .arg(self.child.id().to_string()),
        );
        self.child.wait().unwrap();
    }
}

fn assert_same_objects(what: &str, actual: &Path, expected: &Path) {
    let actual = objects(actual);
    let expected = objects(expected);
    assert_eq!(
        actual.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{what}: not the same objects"
    );
    let differing: Vec<&String> = actual
        .iter()
        .filter(|(name, bytes)| expected[*name] != **bytes)
        .map(|(name, _)| name)
        .collect();
    assert!(
        differing.is_empty(),
        "{what}: objects differ: {differing:?}"
    );
}

#[test]
fn distcc_builds_lua_on_two_daemons_into_the_objects_of_a_local_build() {
    let workspace = Workspace::new();
    let local = workspace.make("local", "dwarfsmith-cc", &["STEPS=2"], &[]);
    let daemons = [
        Daemon::start(&workspace, "daemon1"),
        Daemon::start(&workspace, "daemon2"),
    ];
    let hosts = daemons
        .iter()
        .map(Daemon::host)
        .collect::<Vec<_>>()
        .join(" ");
    let distcc_state = workspace.path("distcc-state");
    std::fs::create_dir(&distcc_state).unwrap();
    let distributed = workspace.make(
        "distcc",
        "distcc dwarfsmith-cc",
        &[],
        &[
            ("DISTCC_HOSTS", hosts),
            ("DISTCC_FALLBACK", "0".into()),
            ("DISTCC_DIR", distcc_state.display().to_string()),
        ],
    );
    let compiles: Vec<usize> = daemons.iter().map(Daemon::compiles).collect();
    drop(daemons);

    println!("compiles per daemon: {compiles:?}");
    let object_count = objects(&local).len();
    assert_eq!(object_count, 33, "lua.mk builds 32 Lua files and the main");
    assert_eq!(
        compiles.iter().sum::<usize>(),
        object_count,
        "compiles per daemon: {compiles:?}"
    );
    assert!(
        compiles.iter().all(|&n| n > 0),
        "a daemon got no job: {compiles:?}"
    );
    assert_same_objects("distcc build against local build", &distributed, &local);
    let script = workspace.path("answer.lua");
    std::fs::write(&script, "print(6 * 7)\n").unwrap();
    let lua = support::run(Command::new(distributed.join("lua")).arg(&script));
    assert_eq!(String::from_utf8_lossy(&lua.stdout), "42\n");
}

#[test]
fn a_second_ccache_build_of_lua_hits_the_cache_for_every_file() {
    let workspace = Workspace::new();
    let plain = workspace.make("plain", "dwarfsmith-cc", &[], &[]);
    let env = [("CCACHE_DIR", workspace.path("ccache").display().to_string())];
    let ccache = |args: &[&str]| {
        let out = support::run(Command::new("ccache").args(args).envs(env.clone()));
        assert!(out.status.success(), "ccache {args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let first = workspace.make("cached", "ccache dwarfsmith-cc", &[], &env);
    assert_same_objects("first ccache build against plain build", &first, &plain);
    std::fs::remove_dir_all(&first).unwrap();
    ccache(&["--zero-stats"]);
    let second = workspace.make("cached", "ccache dwarfsmith-cc", &[], &env);
    assert_same_objects("second ccache build against plain build", &second, &plain);

    let stats: BTreeMap<String, u64> = ccache(&["--print-stats"])
        .lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('\t')?;
            Some((key.to_string(), value.parse().ok()?))
        })
        .collect();
    let hits = stats["direct_cache_hit"] + stats["preprocessed_cache_hit"];
    println!("second build: {hits} hits, {} misses", stats["cache_miss"]);
    assert_eq!(
        (hits, stats["cache_miss"]),
        (objects(&plain).len() as u64, 0),
        "{stats:?}"
    );
}
