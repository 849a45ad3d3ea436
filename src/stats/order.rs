//! Work on every unit in parallel, results summed in unit order as they
//! come.
//!
//! In: each unit's size, the work on one unit and the sum of one unit's
//! result. Out: every result handed to the sum, in unit order. Promises:
//! the sum sees the same results in the same order whatever the number of
//! threads. The threads take units from an atomic counter (not rayon's
//! halving of the range) in unit order, except that each unit starts
//! [`PULL`] times its size in bytes of work earlier: the largest units are
//! not the last ones started, when one thread would walk a large unit
//! alone while the others have nothing left (on a 98 MB rustc debug
//! binary, a 0.8 MB unit among the last left one of two threads idle for
//! 14-19 ms of the 0.2 s). The thread that finishes a unit sums the
//! results that are next in unit order (one thread at a time), so summing
//! overlaps the walk of later units, no third thread competes with the
//! walking ones for the cores (the calling thread had summed, 40-60 ms of
//! a 0.2 s run on two cores, with up to 20 ms of it left once the walks
//! ended), and each result is dropped once summed: the file's memory peak
//! is not every unit's results at once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

/// How many times its own size a unit is started earlier than unit order
/// would start it (see the module's comment).
const PULL: usize = 8;

/// The order in which the threads start units of `sizes`: unit order, each
/// unit moved `PULL` times its size earlier in the bytes of work before it.
fn start_order(sizes: &[usize]) -> Vec<usize> {
    let mut before = 0usize;
    let mut keys: Vec<(usize, usize)> = Vec::with_capacity(sizes.len());
    for (unit, &size) in sizes.iter().enumerate() {
        keys.push((before.saturating_sub(size.saturating_mul(PULL)), unit));
        before = before.saturating_add(size);
    }
    keys.sort_unstable();
    keys.into_iter().map(|(_, unit)| unit).collect()
}

/// Runs `work` on the units whose sizes are `sizes` (on rayon's threads
/// when `parallel`, else one after another on this thread) and gives each
/// result to `sum` in unit order; the first error in unit order stops the
/// work and is returned.
pub(crate) fn in_unit_order<T: Send, E: Send>(
    sizes: &[usize],
    parallel: bool,
    work: impl Fn(usize) -> Result<T, E> + Sync,
    mut sum: impl FnMut(T) + Send,
) -> Result<(), E> {
    let count = sizes.len();
    if !parallel {
        for unit in 0..count {
            sum(work(unit)?);
        }
        return Ok(());
    }
    let order = start_order(sizes);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let turns = Turns {
        waiting: Mutex::new(BTreeMap::new()),
        summing: Mutex::new(Summing {
            expected: 0,
            sum: &mut sum,
            error: None,
        }),
        stop: &stop,
    };
    (0..rayon::current_num_threads())
        .into_par_iter()
        .for_each(|_| {
            while !stop.load(Ordering::Relaxed) {
                let Some(&unit) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                let result = work(unit);
                if let Ok(mut waiting) = turns.waiting.lock() {
                    waiting.insert(unit, result);
                }
                turns.sum_what_is_ready();
            }
        });
    // What a thread left waiting as another was summing.
    turns.sum_what_is_ready();
    match turns.summing.into_inner() {
        Ok(Summing {
            error: Some(error), ..
        }) => Err(error),
        _ => Ok(()),
    }
}

/// The results of the units walked so far, and the sum they go to in unit
/// order, shared by the threads: the thread that finishes a unit sums what
/// is ready unless another is summing, so no third thread competes with
/// the two walking for the machine's cores, and no backlog of results is
/// left to sum once the walks end.
struct Turns<'s, T, E, S> {
    /// Results not summed yet, by unit.
    waiting: Mutex<BTreeMap<usize, Result<T, E>>>,
    /// The sum, and the unit it takes next.
    summing: Mutex<Summing<'s, E, S>>,
    /// Set at the first error in unit order.
    stop: &'s AtomicBool,
}

/// The sum's side of [`Turns`].
struct Summing<'s, E, S> {
    /// The unit whose result is summed next.
    expected: usize,
    /// The sum.
    sum: &'s mut S,
    /// The first error in unit order.
    error: Option<E>,
}

impl<T, E, S: FnMut(T)> Turns<'_, T, E, S> {
    /// Sums the waiting results that are next in unit order, unless
    /// another thread is summing; checks again once done, so a result that
    /// came in meanwhile is not left waiting.
    fn sum_what_is_ready(&self) {
        loop {
            let Ok(mut summing) = self.summing.try_lock() else {
                return;
            };
            while summing.error.is_none() {
                let result = match self.waiting.lock() {
                    Ok(mut waiting) => waiting.remove(&summing.expected),
                    Err(_) => None,
                };
                let Some(result) = result else { break };
                summing.expected += 1;
                match result {
                    Ok(value) => (summing.sum)(value),
                    Err(error) => {
                        summing.error = Some(error);
                        self.stop.store(true, Ordering::Relaxed);
                    }
                }
            }
            let expected = summing.expected;
            let stopped = summing.error.is_some();
            drop(summing);
            let ready = self
                .waiting
                .lock()
                .is_ok_and(|waiting| waiting.contains_key(&expected));
            if stopped || !ready {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{in_unit_order, start_order};

    #[test]
    fn results_come_in_unit_order_and_the_first_error_stops() {
        // Even sizes, then sizes that start the large units early.
        let even = vec![1; 100];
        let uneven: Vec<usize> = (0..100).map(|unit| 1 + unit % 7 * 40).collect();
        for sizes in [even, uneven] {
            for parallel in [false, true] {
                let mut seen = Vec::new();
                let done = in_unit_order(
                    &sizes,
                    parallel,
                    |unit| Ok::<_, usize>(unit * 2),
                    |value| seen.push(value),
                );
                assert_eq!(done, Ok(()));
                assert_eq!(seen, (0..100).map(|unit| unit * 2).collect::<Vec<_>>());
                let mut seen = Vec::new();
                let work = |unit| if unit % 30 == 29 { Err(unit) } else { Ok(unit) };
                let done = in_unit_order(&sizes, parallel, work, |value| seen.push(value));
                assert_eq!(done, Err(29));
                assert_eq!(seen, (0..29).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn a_large_unit_starts_eight_times_its_size_earlier() {
        // Twenty units of 1 byte, then one of 2: each 1-byte unit starts at
        // its place less 8 (at 0 for the first nine), the 2-byte unit at
        // 20 - 16 = 4, after the unit at 12 - 8 = 4 (ties in unit order).
        let mut sizes = vec![1; 20];
        sizes.push(2);
        let mut expected: Vec<usize> = (0..=12).collect();
        expected.push(20);
        expected.extend(13..20);
        assert_eq!(start_order(&sizes), expected);
    }
}
