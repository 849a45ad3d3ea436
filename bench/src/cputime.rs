//! CPU time (user + system) of child processes, from `getrusage`: the
//! figure `bench-realworld` and `bench-cxx` report. Unlike wall time it
//! hardly moves when other work shares the machine, and it counts every
//! thread of a child.

/// User + system CPU seconds of every child this process has waited for so far.
pub fn children_cpu_seconds() -> f64 {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid for writes for the duration of the call.
    let status = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(status, 0, "getrusage failed");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The median, over `repetitions` runs of `run` (which must succeed), of the
/// CPU time of the child processes each run waited for.
pub fn median_seconds(repetitions: usize, mut run: impl FnMut() -> bool) -> f64 {
    let times: Vec<f64> = (0..repetitions.max(1))
        .map(|_| {
            let before = children_cpu_seconds();
            assert!(run(), "a measured run failed");
            children_cpu_seconds() - before
        })
        .collect();
    median(times)
}

/// The medians, over `repetitions` rounds, of the CPU time of `a` and of
/// `b`, each round running `a` then `b`: load that comes and goes while
/// the benchmark runs then weighs on both alike, not on whichever ran
/// while it lasted.
pub fn interleaved_medians(
    repetitions: usize,
    mut a: impl FnMut() -> bool,
    mut b: impl FnMut() -> bool,
) -> (f64, f64) {
    let mut times_a = Vec::new();
    let mut times_b = Vec::new();
    for _ in 0..repetitions.max(1) {
        times_a.push(median_seconds(1, &mut a));
        times_b.push(median_seconds(1, &mut b));
    }
    (median(times_a), median(times_b))
}

/// The middle value (the upper one of an even count).
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
