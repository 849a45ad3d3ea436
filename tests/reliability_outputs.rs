//! Outputs are written like a compiler writes them: through devices and
//! FIFOs, to standard output for `-o -`, with mode 0666 minus the umask for
//! regular files, and never partially or over an existing output on error.

mod support;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use support::{dwarfsmith, fixture, run};

const INPUT: &str = "ll/switch_table.O2.ll";

fn input() -> String {
    fixture(INPUT).to_str().unwrap().to_string()
}

/// The object `compile` writes for [`INPUT`], read back from a regular file.
fn reference_object(dir: &Path) -> Vec<u8> {
    let path = dir.join("reference.o");
    let out = dwarfsmith(&["compile", &input(), "-o", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(path).unwrap()
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference_object(dir.path());
    let fifo = dir.path().join("pipe");
    let made = run(Command::new("mkfifo").arg(&fifo));
    assert!(made.status.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        })
    };
    let out = dwarfsmith(&["compile", &input(), "-o", fifo.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(reader.join().unwrap(), expected);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn dev_null_is_written_through() {
    let out = dwarfsmith(&["compile", &input(), "-o", "/dev/null"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn a_write_error_on_dev_full_is_an_error() {
    for command in ["compile", "opt"] {
        let out = dwarfsmith(&[command, &input(), "-o", "/dev/full"]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "/dev/full: error: cannot write: No space left on device (os error 28)\n",
            "{command}"
        );
    }
}

#[test]
fn a_regular_output_gets_mode_0666_minus_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    for (umask, mode) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let object = dir.path().join(format!("umask{umask}.o"));
        let out = run(Command::new("sh").arg("-c").arg(format!(
            "umask {umask}; exec '{}' compile '{}' -o '{}'",
            env!("CARGO_BIN_EXE_dwarfsmith"),
            input(),
            object.display()
        )));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let actual = std::fs::metadata(&object).unwrap().permissions().mode() & 0o7777;
        assert_eq!(actual, mode, "umask {umask}");
    }
}

#[test]
fn dash_writes_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let expected = reference_object(dir.path());
    let out = run(Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .current_dir(dir.path())
        .args(["compile", &input(), "-o", "-"]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, expected);
    assert!(!dir.path().join("-").exists());

    let out = run(Command::new(env!("CARGO_BIN_EXE_dwarfsmith"))
        .current_dir(dir.path())
        .args(["opt", &input(), "-o", "-"]));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    assert!(printed.contains("define "), "{printed}");
    assert!(!dir.path().join("-").exists());
}

#[test]
fn an_error_leaves_an_existing_output_untouched_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.ll");
    std::fs::write(&bad, "define i32 @f() {\n  ret i32 %nope\n}\n").unwrap();
    let existing = dir.path().join("existing.o");
    std::fs::write(&existing, b"old contents").unwrap();
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o640)).unwrap();
    let fresh = dir.path().join("fresh.o");
    for command in ["compile", "opt"] {
        for output in [&existing, &fresh] {
            let out = dwarfsmith(&[
                command,
                bad.to_str().unwrap(),
                "-o",
                output.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(1));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.starts_with(&format!("{}:2:", bad.display())),
                "{stderr}"
            );
        }
    }
    assert_eq!(std::fs::read(&existing).unwrap(), b"old contents");
    assert_eq!(
        std::fs::metadata(&existing).unwrap().permissions().mode() & 0o7777,
        0o640
    );
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["bad.ll", "existing.o"]);
}

#[test]
fn a_directory_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dwarfsmith(&["compile", &input(), "-o", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{}: error: cannot write: is a directory\n",
            dir.path().display()
        )
    );
    assert!(dir.path().is_dir());
}
