//! Running one child process and measuring it.
//!
//! In: a program and its arguments. Out: its wall-clock time and peak
//! resident set size (from `wait4`'s rusage, so only that child is counted),
//! or the first line it wrote to standard error when it failed. Promise: a
//! child that cannot start, exits non-zero or dies of a signal is reported as
//! a [`Outcome::Failed`], never as a panic of the caller.
//!
//! Linux counts in a child's peak RSS the peak of the memory image it was
//! spawned from (at `exec` the old image's high-water mark is kept), so a
//! child of a large process reports at least that process's size. The runner
//! therefore measures through a lean helper process ([`run_via_helper`]:
//! `bench-run` re-executed with [`HELPER_ARG`]), whose fresh image is a few
//! MiB; [`run_measured`] is what that helper does.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Time and memory of one successful run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measurement {
    /// Wall-clock time from spawn to exit.
    pub wall: Duration,
    /// Peak resident set size of the child, in KiB (`ru_maxrss`).
    pub peak_rss_kib: u64,
}

/// What one run of a child came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The child exited with status 0.
    Finished(Measurement),
    /// The child could not start or did not exit with status 0.
    Failed {
        /// Its first non-empty line of standard error, or how it ended when it wrote none.
        first_error_line: String,
    },
}

/// Runs `program` with `args` (standard input and output closed) and measures it.
pub fn run_measured(program: &Path, args: &[OsString]) -> Outcome {
    let start = Instant::now();
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(error) => {
            return Outcome::Failed {
                first_error_line: format!("cannot run {}: {error}", program.display()),
            }
        }
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        // Standard output goes to /dev/null, so reading stderr to its end cannot deadlock.
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        stderr = String::from_utf8_lossy(&bytes).into_owned();
    }
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped (std only reaps on wait, which we never
    // call); `status` and `usage` are valid for writes for the duration of the call.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if reaped != pid {
        return Outcome::Failed {
            first_error_line: format!("wait4 failed: {}", std::io::Error::last_os_error()),
        };
    }
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        return Outcome::Finished(Measurement {
            wall,
            peak_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        });
    }
    let how = if libc::WIFEXITED(status) {
        format!("exited with status {}", libc::WEXITSTATUS(status))
    } else {
        format!("killed by signal {}", libc::WTERMSIG(status))
    };
    let first_error_line = stderr
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .map(str::to_string)
        .unwrap_or(how);
    Outcome::Failed { first_error_line }
}

/// The hidden first argument that makes `bench-run` a measuring helper:
/// `bench-run __measure-child PROGRAM ARGS...` runs PROGRAM with [`run_measured`]
/// and prints [`encode`]'s line.
pub const HELPER_ARG: &str = "__measure-child";

/// What a binary re-executed with [`HELPER_ARG`] does: `ARGS` are PROGRAM and its
/// arguments; runs PROGRAM from this small, fresh process and prints one line
/// ([`encode`]) describing how it went.
pub fn measuring_helper(mut args: Vec<OsString>) -> std::process::ExitCode {
    if args.is_empty() {
        eprintln!("{HELPER_ARG} needs a program to run");
        return std::process::ExitCode::FAILURE;
    }
    let program = std::path::PathBuf::from(args.remove(0));
    println!("{}", encode(&run_measured(&program, &args)));
    std::process::ExitCode::SUCCESS
}

/// The one line a helper prints for `outcome`.
pub fn encode(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Finished(measurement) => format!(
            "finished {} {}",
            measurement.wall.as_nanos(),
            measurement.peak_rss_kib
        ),
        Outcome::Failed { first_error_line } => format!("failed {first_error_line}"),
    }
}

/// The outcome a helper's line stands for (the inverse of [`encode`]).
pub fn decode(line: &str) -> Outcome {
    let malformed = || Outcome::Failed {
        first_error_line: format!("measuring helper printed {line:?}"),
    };
    if let Some(message) = line.strip_prefix("failed ") {
        return Outcome::Failed {
            first_error_line: message.to_string(),
        };
    }
    let Some(numbers) = line.strip_prefix("finished ") else {
        return malformed();
    };
    let mut numbers = numbers.split(' ').map(str::parse::<u64>);
    match (numbers.next(), numbers.next(), numbers.next()) {
        (Some(Ok(nanos)), Some(Ok(peak_rss_kib)), None) => Outcome::Finished(Measurement {
            wall: Duration::from_nanos(nanos),
            peak_rss_kib,
        }),
        _ => malformed(),
    }
}

/// Runs `program` with `args` under the measuring helper `helper` (the
/// `bench-run` binary), so the measured peak RSS is not raised by this process's size.
pub fn run_via_helper(helper: &Path, program: &Path, args: &[OsString]) -> Outcome {
    let output = match Command::new(helper)
        .arg(HELPER_ARG)
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(output) => output,
        Err(error) => {
            return Outcome::Failed {
                first_error_line: format!("cannot run helper {}: {error}", helper.display()),
            }
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    decode(stdout.lines().next().unwrap_or_default())
}

/// The median of `runs` (time and memory each taken separately; the upper
/// middle for an even count), or the first failure if any run failed.
pub fn median(runs: &[Outcome]) -> Outcome {
    let mut walls = Vec::new();
    let mut peaks = Vec::new();
    for run in runs {
        match run {
            Outcome::Finished(measurement) => {
                walls.push(measurement.wall);
                peaks.push(measurement.peak_rss_kib);
            }
            failed @ Outcome::Failed { .. } => return failed.clone(),
        }
    }
    if walls.is_empty() {
        return Outcome::Failed {
            first_error_line: "no runs".to_string(),
        };
    }
    walls.sort();
    peaks.sort();
    Outcome::Finished(Measurement {
        wall: walls[walls.len() / 2],
        peak_rss_kib: peaks[peaks.len() / 2],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Outcome {
        run_measured(Path::new("/bin/sh"), &["-c".into(), script.into()])
    }

    #[test]
    fn a_successful_child_has_its_time_and_memory_measured() {
        let Outcome::Finished(measurement) = sh("sleep 0.2") else {
            panic!("sleep failed");
        };
        assert!(
            measurement.wall >= Duration::from_millis(200),
            "{measurement:?}"
        );
        assert!(measurement.peak_rss_kib > 0, "{measurement:?}");
    }

    #[test]
    fn peak_memory_counts_what_the_child_touches() {
        // A child that builds a 64 MiB string must report at least that much resident.
        let Outcome::Finished(large) = run_measured(
            Path::new("/usr/bin/perl"),
            &[
                "-e".into(),
                "my $x = 'a' x (64*1024*1024); print length $x".into(),
            ],
        ) else {
            panic!("perl failed");
        };
        assert!(large.peak_rss_kib >= 64 * 1024, "{large:?}");
    }

    #[test]
    fn helper_lines_round_trip() {
        let finished = Outcome::Finished(Measurement {
            wall: Duration::from_nanos(1_234_567_890),
            peak_rss_kib: 4096,
        });
        assert_eq!(encode(&finished), "finished 1234567890 4096");
        assert_eq!(decode(&encode(&finished)), finished);
        let failed = Outcome::Failed {
            first_error_line: "x.ll:1:2: error: no".to_string(),
        };
        assert_eq!(decode(&encode(&failed)), failed);
        assert_eq!(
            decode("garbage"),
            Outcome::Failed {
                first_error_line: "measuring helper printed \"garbage\"".to_string()
            }
        );
    }

    #[test]
    fn a_failing_child_reports_its_first_error_line() {
        assert_eq!(
            sh("echo; echo 'in.ll:3:7: error: bad' >&2; echo second >&2; exit 1"),
            Outcome::Failed {
                first_error_line: "in.ll:3:7: error: bad".to_string()
            }
        );
        assert_eq!(
            sh("exit 3"),
            Outcome::Failed {
                first_error_line: "exited with status 3".to_string()
            }
        );
        assert_eq!(
            sh("kill -9 $$"),
            Outcome::Failed {
                first_error_line: "killed by signal 9".to_string()
            }
        );
        let missing = run_measured(Path::new("/nonexistent/compiler"), &[]);
        assert!(
            matches!(&missing, Outcome::Failed { first_error_line } if first_error_line.starts_with("cannot run /nonexistent/compiler")),
            "{missing:?}"
        );
    }

    #[test]
    fn median_takes_time_and_memory_separately_and_any_failure_wins() {
        let run = |millis, kib| {
            Outcome::Finished(Measurement {
                wall: Duration::from_millis(millis),
                peak_rss_kib: kib,
            })
        };
        assert_eq!(median(&[run(30, 1), run(10, 5), run(20, 3)]), run(20, 3));
        assert_eq!(median(&[run(30, 9), run(10, 1)]), run(30, 9));
        let failed = Outcome::Failed {
            first_error_line: "boom".to_string(),
        };
        assert_eq!(median(&[run(1, 1), failed.clone()]), failed);
    }
}
