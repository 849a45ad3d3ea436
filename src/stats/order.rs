//! Work on every unit in parallel, results summed in unit order as they
//! come.
//!
//! In: a unit count, the work on one unit and the sum of one unit's result.
//! Out: every result handed to the sum, in unit order, on the calling
//! thread. Promises: the sum sees the same results in the same order
//! whatever the number of threads; the threads take units in unit order
//! (an atomic counter, not rayon's halving of the range), so the results
//! waiting for their turn are few and each is dropped once summed: the
//! file's memory peak is not every unit's results at once, and summing
//! overlaps the walk of later units instead of following it.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

/// Runs `work` on units `0..count` (on rayon's threads when `parallel`,
/// else one after another on this thread) and gives each result to `sum`
/// in unit order; the first error in unit order stops the work and is
/// returned.
pub(crate) fn in_unit_order<T: Send, E: Send>(
    count: usize,
    parallel: bool,
    work: impl Fn(usize) -> Result<T, E> + Sync,
    mut sum: impl FnMut(T),
) -> Result<(), E> {
    if !parallel {
        for unit in 0..count {
            sum(work(unit)?);
        }
        return Ok(());
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, receiver) = std::sync::mpsc::channel::<(usize, Result<T, E>)>();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            (0..rayon::current_num_threads())
                .into_par_iter()
                .for_each_with(sender, |sender, _| {
                    while !stop.load(Ordering::Relaxed) {
                        let unit = next.fetch_add(1, Ordering::Relaxed);
                        if unit >= count || sender.send((unit, work(unit))).is_err() {
                            break;
                        }
                    }
                });
        });
        let mut waiting = BTreeMap::new();
        let mut expected = 0;
        for (unit, result) in receiver.iter() {
            waiting.insert(unit, result);
            while let Some(result) = waiting.remove(&expected) {
                expected += 1;
                match result {
                    Ok(value) => sum(value),
                    Err(error) => {
                        stop.store(true, Ordering::Relaxed);
                        return Err(error);
                    }
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::in_unit_order;

    #[test]
    fn results_come_in_unit_order_and_the_first_error_stops() {
        for parallel in [false, true] {
            let mut seen = Vec::new();
            let done = in_unit_order(
                100,
                parallel,
                |unit| Ok::<_, usize>(unit * 2),
                |value| seen.push(value),
            );
            assert_eq!(done, Ok(()));
            assert_eq!(seen, (0..100).map(|unit| unit * 2).collect::<Vec<_>>());
            let mut seen = Vec::new();
            let work = |unit| if unit % 30 == 29 { Err(unit) } else { Ok(unit) };
            let done = in_unit_order(100, parallel, work, |value| seen.push(value));
            assert_eq!(done, Err(29));
            assert_eq!(seen, (0..29).collect::<Vec<_>>());
        }
    }
}
