//! Running one child process and measuring it.
//!
//! In: a program, its arguments and its [`Limits`] (the exit statuses that
//! count as finished, a time limit). Out: its wall-clock time and peak
//! resident set size (from `wait4`'s rusage, so only that child is counted),
//! or the first line it wrote to standard error when it failed. Promise: a
//! child that cannot start, exits with a status its limits do not accept,
//! dies of a signal or runs past its time limit (it is then killed) is
//! reported as a [`Outcome::Failed`], never as a panic of the caller. The
//! child itself is measured: no shell or `timeout` process around it adds
//! its own start-up to the time.
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

/// What a run may do and still count as finished.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The highest exit status that counts as finished: 0, or 1 for a
    /// checker whose status 1 means "findings".
    pub highest_ok_status: i32,
    /// How long the child may run before it is killed and counted as failed.
    pub timeout: Option<Duration>,
}

/// Runs `program` with `args` (standard input and output closed) and measures it.
pub fn run_measured(program: &Path, args: &[OsString]) -> Outcome {
    run_limited(program, args, Limits::default())
}

/// [`run_measured`] within `limits`.
pub fn run_limited(program: &Path, args: &[OsString], limits: Limits) -> Outcome {
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
    let pid = child.id() as libc::pid_t;
    // The watchdog kills the child once its time is up, unless told first
    // that it has exited; the child is not reaped before the watchdog is
    // done, so its pid cannot name another process meanwhile.
    let (exited, told) = std::sync::mpsc::channel::<()>();
    let watchdog = limits.timeout.map(|limit| {
        std::thread::spawn(move || {
            let up = told.recv_timeout(limit) == Err(std::sync::mpsc::RecvTimeoutError::Timeout);
            if up {
                // SAFETY: `pid` is our unreaped child (a zombie at worst).
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            up
        })
    });
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        // Standard output goes to /dev/null, so reading stderr to its end cannot deadlock
        // (a child killed by the watchdog closes it too).
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        stderr = String::from_utf8_lossy(&bytes).into_owned();
    }
    // SAFETY: an all-zero siginfo_t is a valid value of this plain C struct.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped (std only reaps on wait, which we never
    // call); WNOWAIT leaves it unreaped; `info` is valid for writes.
    let waited = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOWAIT,
        )
    };
    let wall = start.elapsed();
    drop(exited);
    let timed_out = watchdog.is_some_and(|watchdog| watchdog.join().unwrap_or(false));
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as for waitid; `status` and `usage` are valid for writes for the call.
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if waited != 0 || reaped != pid {
        return Outcome::Failed {
            first_error_line: format!("wait4 failed: {}", std::io::Error::last_os_error()),
        };
    }
    if timed_out {
        let limit = limits.timeout.unwrap_or_default().as_secs_f64();
        return Outcome::Failed {
            first_error_line: format!("killed past the time limit of {limit} s"),
        };
    }
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= limits.highest_ok_status {
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
/// `bench-run __measure-child [LIMITS] PROGRAM ARGS...` runs PROGRAM with
/// [`run_limited`] and prints [`encode`]'s line.
pub const HELPER_ARG: &str = "__measure-child";

/// The helper's option giving [`Limits::highest_ok_status`].
const OK_STATUS_ARG: &str = "--highest-ok-status";
/// The helper's option giving [`Limits::timeout`] in milliseconds.
const TIMEOUT_ARG: &str = "--timeout-ms";

/// What a binary re-executed with [`HELPER_ARG`] does: `ARGS` are the
/// limits' options, then PROGRAM and its arguments; runs PROGRAM from this
/// small, fresh process and prints one line ([`encode`]) describing how it
/// went.
pub fn measuring_helper(args: Vec<OsString>) -> std::process::ExitCode {
    let mut limits = Limits::default();
    let mut rest = args.as_slice();
    while let [option, value, after @ ..] = rest {
        let number = value.to_str().and_then(|value| value.parse::<u64>().ok());
        match (option.to_str(), number) {
            (Some(OK_STATUS_ARG), Some(status)) => {
                limits.highest_ok_status = i32::try_from(status).unwrap_or(i32::MAX);
            }
            (Some(TIMEOUT_ARG), Some(millis)) => {
                limits.timeout = Some(Duration::from_millis(millis))
            }
            (Some(OK_STATUS_ARG | TIMEOUT_ARG), None) => {
                eprintln!("{HELPER_ARG}: {} needs a number", option.to_string_lossy());
                return std::process::ExitCode::FAILURE;
            }
            _ => break,
        }
        rest = after;
    }
    let Some((program, args)) = rest.split_first() else {
        eprintln!("{HELPER_ARG} needs a program to run");
        return std::process::ExitCode::FAILURE;
    };
    let outcome = run_limited(Path::new(program), args, limits);
    println!("{}", encode(&outcome));
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

/// Runs `program` with `args` within `limits` under the measuring helper
/// `helper` (the `bench-run` binary), so the measured peak RSS is not raised
/// by this process's size.
pub fn run_via_helper(helper: &Path, program: &Path, args: &[OsString], limits: Limits) -> Outcome {
    let mut options: Vec<String> = vec![
        OK_STATUS_ARG.into(),
        limits.highest_ok_status.max(0).to_string(),
    ];
    if let Some(timeout) = limits.timeout {
        options.push(TIMEOUT_ARG.into());
        options.push(timeout.as_millis().to_string());
    }
    let output = match Command::new(helper)
        .arg(HELPER_ARG)
        .args(options)
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
    fn limits_accept_status_one_when_asked_and_kill_a_child_past_its_time() {
        let findings = ["-c".into(), "exit 1".into()];
        let shell = Path::new("/bin/sh");
        assert!(matches!(
            run_limited(shell, &findings, Limits::default()),
            Outcome::Failed { .. }
        ));
        let checker = Limits {
            highest_ok_status: 1,
            timeout: Some(Duration::from_secs(60)),
        };
        assert!(matches!(
            run_limited(shell, &findings, checker),
            Outcome::Finished(_)
        ));
        let broken = ["-c".into(), "echo broken >&2; exit 2".into()];
        assert_eq!(
            run_limited(shell, &broken, checker),
            Outcome::Failed {
                first_error_line: "broken".into()
            }
        );
        let started = Instant::now();
        let hung = Limits {
            highest_ok_status: 0,
            timeout: Some(Duration::from_millis(200)),
        };
        let outcome = run_limited(Path::new("/bin/sleep"), &["30".into()], hung);
        assert_eq!(
            outcome,
            Outcome::Failed {
                first_error_line: "killed past the time limit of 0.2 s".into()
            }
        );
        assert!(started.elapsed() < Duration::from_secs(10));
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
