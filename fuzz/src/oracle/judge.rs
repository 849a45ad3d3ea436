//! Judging a walk against the oracle's walk (the gcc -O0 -g build of the
//! same source), after Li et al., "Debug Information Validation for
//! Optimized Code" (PLDI 2020).
//!
//! In: the oracle's [`Walk`] (made into a [`Reference`]) and the walk of the
//! build under test. Out: [`Figures`]. The rules:
//!
//! A variable is its name and declaration line ([`Shown::variable`]), so
//! that a name declared again in an inner block is another variable.
//!
//! - **Held values.** For each (function, line, variable) the reference
//!   holds every value the oracle showed at a stop on that line, and every
//!   value it showed at the *next* stop of the same frame (the next stop at
//!   the same depth in the same function before the frame returns): an
//!   optimised build may already hold the value the line computes. (A
//!   value a line leaves in a variable that is out of scope at the next
//!   stop is not held: a `for` variable's value after its last increment.)
//! - **Wrong.** A value shown by the build under test at (function, line)
//!   is wrong when the reference holds values for that variable there and
//!   this is not one of them, or when gdb could not read it (`<error: ...>`,
//!   always wrong). A local is not judged before or at its declaration
//!   line (its initializer has not run), nor
//!   one the oracle shows [`UNASSIGNED`] there (build the oracle with
//!   `-ftrivial-auto-var-init=pattern` to tell those apart).
//!   Values of a variable the oracle never showed at that line are not
//!   judged ([`Figures::unjudged`]), nor a value it did not show at a line
//!   whose later executions its bounded walk did not see ([`Walk::capped`]:
//!   a function called from a loop, whose inlined copies a build's walk
//!   stops in at later calls; or a function's closing line, its last line
//!   stopped at, when a frame of the function returned without a stop
//!   there: gcc -O0 jumps past the first instruction of the `}` row from a
//!   branch that ends in a call), nor one of a variable the oracle itself
//!   showed `<optimized out>` at some stop on that line (gcc -O0 keeps no
//!   location for an unused parameter of an inlined `always_inline`
//!   function: lz4's `dstCapacity`, 0 in one caller).
//! - **Availability** is [`Figures::available`] / [`Figures::expected`]:
//!   at each stop of the build under test at (function, line), every
//!   variable the oracle showed an assigned value of there is expected
//!   (a local only after its declaration line); it is available when the
//!   build shows it with a value (not `<optimized out>`).
//! - **Distinct values**: (function, line, variable, value) shown, counted
//!   once, locals only after their declaration line.
//! - **Missing** variables: (function, variable) pairs the oracle showed,
//!   where the build under test stopped on a line of that function at which
//!   the oracle itself (not a second unoptimised build whose values were
//!   added) showed the variable, and never listed the variable at any
//!   stop in that function, not even as `<optimized out>`.
//! - **Stepping order.** Stops are paired within a frame: a stop at depth
//!   `d` in function `f` follows the previous stop at depth `d` in `f` when
//!   no stop at a smaller depth, or at depth `d` in another function, came
//!   between (deeper stops, of callees, are skipped over). A pair from line
//!   `a` to line `b` in `f` *agrees* when the oracle made the same step
//!   (`f`, `a` to `b`) somewhere in its walk. The score is agreeing pairs /
//!   pairs; 1.0 when there are none. The oracle's steps are taken from its
//!   stops at the addresses `break FILE:LINE` chooses (the walk of a build
//!   under test has only those): breakpoints disabled after their bounded
//!   hits then make both walks skip lines the same way. The oracle's lines
//!   stopped at come from the same stops.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::walk::{End, Shown, Stop, Walk, UNASSIGNED};

/// What the oracle's walk says a build may show.
#[derive(Clone, Debug, Default)]
pub struct Reference {
    /// (function, line, variable) → every value it held there.
    held: HashMap<(String, u32, String), HashSet<String>>,
    /// (function, line) → the variables the oracle showed an assigned
    /// value of there (locals after their declaration line only).
    shown_at: HashMap<(String, u32), BTreeSet<String>>,
    /// The same, from the oracle's own walk only: what the missing-variable
    /// rule expects. Another unoptimised build's scopes may reach lines the
    /// oracle's do not (clang -O0 keeps a block's variable in scope on a
    /// line gcc -O0 gives the enclosing block), and a build under test
    /// whose scopes are the source's is not missing a variable there.
    oracle_shown_at: HashMap<(String, u32), BTreeSet<String>>,
    /// (function, line, next line) of every step within a frame.
    steps: HashSet<(String, u32, u32)>,
    /// The lines the oracle stopped at.
    lines: BTreeSet<u32>,
    /// (function, line) pairs whose later executions the oracle's bounded
    /// walk did not see: a value it never showed there is not judged.
    capped: HashSet<(String, u32)>,
    /// (function, line, variable) the oracle showed `<optimized out>` at
    /// some stop (gcc -O0 drops unused parameters of an `always_inline`
    /// function's inlined copies): a value it never showed there is not
    /// judged.
    unknown: HashSet<(String, u32, String)>,
}

/// Whether `shown` is a local whose declaration (and initializer) has not
/// run yet at `stop`.
fn before_assignment(stop: &Stop, shown: &Shown) -> bool {
    !shown.is_argument && stop.line <= shown.decl_line
}

/// Calls `each(previous, stop)` for every stop whose frame stopped before
/// (see the stepping-order rule in the module doc).
fn frame_pairs<'a>(stops: &'a [Stop], mut each: impl FnMut(&'a Stop, &'a Stop)) {
    // The last stop of each live frame, indexed by depth.
    let mut last: BTreeMap<u32, &'a Stop> = BTreeMap::new();
    for stop in stops {
        let deeper: Vec<u32> = last.range(stop.depth + 1..).map(|(d, _)| *d).collect();
        for depth in deeper {
            last.remove(&depth);
        }
        if let Some(previous) = last.get(&stop.depth) {
            if previous.function == stop.function {
                each(previous, stop);
            }
        }
        last.insert(stop.depth, stop);
    }
}

impl Reference {
    /// The reference of the oracle's walk.
    pub fn new(oracle: &Walk) -> Reference {
        let mut reference = Reference::default();
        reference.add_values(oracle);
        reference.oracle_shown_at = reference.shown_at.clone();
        let at_breaks: Vec<Stop> = oracle
            .stops
            .iter()
            .filter(|s| s.at_break_address)
            .cloned()
            .collect();
        for stop in &at_breaks {
            reference.lines.insert(stop.line);
        }
        frame_pairs(&at_breaks, |previous, stop| {
            reference
                .steps
                .insert((stop.function.clone(), previous.line, stop.line));
        });
        reference
    }

    /// Adds the values another unoptimised build's walk saw (clang -O0
    /// beside gcc -O0: C leaves the order of side effects within an
    /// expression open, so two faithful builds may hold different values
    /// in the middle of a line). The steps and lines stay the first walk's.
    pub fn add_values(&mut self, walk: &Walk) {
        self.add_held(walk);
        for stop in &walk.stops {
            let names = self
                .shown_at
                .entry((stop.function.clone(), stop.line))
                .or_default();
            names.extend(
                stop.shown
                    .iter()
                    .filter(|s| {
                        s.is_available() && s.value != UNASSIGNED && !before_assignment(stop, s)
                    })
                    .map(|s| s.variable()),
            );
        }
    }

    /// Adds where a twin of the oracle built with
    /// `-ftrivial-auto-var-init=pattern` showed a local [`UNASSIGNED`]: no
    /// value of it is judged on that line (it holds whatever its stack
    /// slot held). Nothing else of the twin's walk is taken: its fill
    /// stores give declarations lines of their own, and its bounds need
    /// only reach each line's first executions.
    pub fn add_unassigned(&mut self, walk: &Walk) {
        for stop in &walk.stops {
            for shown in stop.shown.iter().filter(|s| s.value == UNASSIGNED) {
                self.held
                    .entry((stop.function.clone(), stop.line, shown.variable()))
                    .or_default()
                    .insert(UNASSIGNED.to_string());
            }
        }
    }

    /// Adds what a second walk of the same oracle build saw at the lines it
    /// looked at again ([`super::WalkOptions::only_lines`], further than
    /// the first walk): the values held there and the lines it still did
    /// not see every execution of. What is expected at a stop (the
    /// availability figures) stays the first walk's.
    /// Its stops are paired only with the `next` after each
    /// ([`Stop::after_next`]): its other consecutive stops are not
    /// consecutive lines.
    /// A walk that ended before the program did saw no line's every
    /// execution: all its lines count as capped (in every function the
    /// reference holds values at them).
    pub fn confirm(&mut self, walk: &Walk) {
        self.capped.extend(walk.capped.iter().cloned());
        if walk.end != End::Exited {
            let looked_at: HashSet<u32> = walk.lines.iter().copied().collect();
            let unfinished: Vec<(String, u32)> = self
                .held
                .keys()
                .filter(|(_, line, _)| looked_at.contains(line))
                .map(|(function, line, _)| (function.clone(), *line))
                .collect();
            self.capped.extend(unfinished);
        }
        for stop in &walk.stops {
            self.hold(&stop.function, stop.line, stop, true);
        }
        for pair in walk.stops.windows(2) {
            let (previous, stop) = (&pair[0], &pair[1]);
            if stop.after_next && stop.depth == previous.depth && stop.function == previous.function
            {
                self.hold(&previous.function, previous.line, stop, false);
            }
        }
    }

    /// The held values and capped lines of `walk`.
    fn add_held(&mut self, walk: &Walk) {
        self.capped.extend(walk.capped.iter().cloned());
        self.cap_unclosed(&walk.stops);
        for stop in &walk.stops {
            self.hold(&stop.function, stop.line, stop, true);
        }
        frame_pairs(&walk.stops, |previous, stop| {
            self.hold(&previous.function, previous.line, stop, false);
        });
    }

    /// Caps each function's closing line (its last line stopped at) when
    /// a frame of it returned without a stop there: gcc -O0 ends a branch
    /// that calls and returns with a jump past the first instruction of
    /// the `}` row (Lua's `codearith`, whose `if` branch calls `codebinK`),
    /// so the oracle never sees that frame's values at its `}`, which
    /// another layout stops at on every path.
    fn cap_unclosed(&mut self, stops: &[Stop]) {
        let mut closing: HashMap<&str, u32> = HashMap::new();
        for stop in stops {
            let line = closing.entry(stop.function.as_str()).or_default();
            *line = (*line).max(stop.line);
        }
        // The open frames by depth: function, and whether it stopped at
        // its closing line.
        let mut open: BTreeMap<u32, (&str, bool)> = BTreeMap::new();
        let mut unclosed = HashSet::new();
        let close = |frame: (&str, bool), unclosed: &mut HashSet<(String, u32)>| {
            if !frame.1 {
                unclosed.insert((frame.0.to_string(), closing[frame.0]));
            }
        };
        for stop in stops {
            let ended: Vec<u32> = open.range(stop.depth + 1..).map(|(d, _)| *d).collect();
            for depth in ended {
                close(open.remove(&depth).unwrap(), &mut unclosed);
            }
            let at_closing = stop.line == closing[stop.function.as_str()];
            match open.get_mut(&stop.depth) {
                Some(frame) if frame.0 == stop.function => frame.1 |= at_closing,
                _ => {
                    if let Some(frame) =
                        open.insert(stop.depth, (stop.function.as_str(), at_closing))
                    {
                        close(frame, &mut unclosed);
                    }
                }
            }
        }
        for frame in open.into_values() {
            close(frame, &mut unclosed);
        }
        self.capped.extend(unclosed);
    }

    /// Records the values shown at `stop` as held at `line` of `function`,
    /// and, when that is `stop`'s own line (`own`), the variables the
    /// oracle could not show there.
    fn hold(&mut self, function: &str, line: u32, stop: &Stop, own: bool) {
        for shown in &stop.shown {
            let key = (function.to_string(), line, shown.variable());
            if shown.is_available() {
                self.held
                    .entry(key)
                    .or_default()
                    .insert(shown.value.clone());
            } else if own {
                self.unknown.insert(key);
            }
        }
    }

    /// The values `variable` held at `line` of `function`, if the oracle
    /// showed it there.
    pub fn held(&self, function: &str, line: u32, variable: &str) -> Option<&HashSet<String>> {
        self.held
            .get(&(function.to_string(), line, variable.to_string()))
    }

    /// Every value `variable` (`name@declaration line`) held at any line
    /// of `function` after its declaration line (before it, a local holds
    /// what its stack slot held), sorted.
    pub fn held_in_function(&self, function: &str, variable: &str) -> Vec<String> {
        self.held_before(function, u32::MAX, variable)
    }

    /// Every value `variable` held at a line of `function` after its
    /// declaration line and before `line` (see [`Reference::held_in_function`]),
    /// sorted.
    pub fn held_before(&self, function: &str, line: u32, variable: &str) -> Vec<String> {
        let declared: u32 = variable
            .rsplit_once('@')
            .and_then(|(_, at)| at.parse().ok())
            .unwrap_or(0);
        let mut values: Vec<String> = self
            .held
            .iter()
            .filter(|((f, at, v), _)| {
                f == function && v == variable && *at > declared && *at < line
            })
            .flat_map(|(_, values)| values.iter().cloned())
            .collect();
        values.sort();
        values.dedup();
        values
    }

    /// The lines the oracle stopped at.
    pub fn lines(&self) -> &BTreeSet<u32> {
        &self.lines
    }
}

/// A value the oracle says the variable never held there.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct WrongValue {
    /// The function of the stop.
    pub function: String,
    /// The line of the stop.
    pub line: u32,
    /// The variable: [`Shown::variable`].
    pub variable: String,
    /// What the build under test showed.
    pub shown: String,
    /// What the oracle's variable held there (sorted; empty for an error
    /// shown where the oracle never showed the variable).
    pub held: Vec<String>,
}

impl std::fmt::Display for WrongValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{} {} = {} (the oracle holds {{{}}})",
            self.function,
            self.line,
            self.variable,
            self.shown,
            self.held.join(", ")
        )
    }
}

/// The figures of one walk against a [`Reference`] (rules in the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// Stops of the build under test.
    pub stops: usize,
    /// Values the oracle shows at those stops.
    pub expected: usize,
    /// Of those, how many the build under test shows.
    pub available: usize,
    /// Distinct (function, line, variable, value) shown with a value.
    pub distinct_values: usize,
    /// Values shown that the variable never held there (one entry per
    /// distinct function, line, variable and value).
    pub wrong: Vec<WrongValue>,
    /// Values shown that could not be judged (the oracle never showed the
    /// variable at that line).
    pub unjudged: usize,
    /// (function, variable) pairs missing entirely.
    pub missing: Vec<(String, String)>,
    /// The distinct lines stopped at.
    pub lines: BTreeSet<u32>,
    /// Pairs of consecutive stops in one frame.
    pub step_pairs: usize,
    /// Of those, the ones whose step the oracle also made.
    pub steps_agreeing: usize,
}

impl Figures {
    /// available / expected (1.0 when nothing is expected).
    pub fn availability(&self) -> f64 {
        ratio(self.available, self.expected)
    }

    /// The stepping-order score: agreeing pairs / pairs (1.0 with none).
    pub fn stepping_order(&self) -> f64 {
        ratio(self.steps_agreeing, self.step_pairs)
    }

    /// Lines `baseline` stopped at that this walk never did.
    pub fn lines_missed(&self, baseline: &Figures) -> Vec<u32> {
        baseline.lines.difference(&self.lines).copied().collect()
    }

    /// Adds another program's figures; the lines stopped at are line
    /// numbers of each program's own source, so they are left as they are
    /// (sum `lines.len()` per program instead).
    pub fn add(&mut self, other: &Figures) {
        self.stops += other.stops;
        self.expected += other.expected;
        self.available += other.available;
        self.distinct_values += other.distinct_values;
        self.wrong.extend(other.wrong.iter().cloned());
        self.unjudged += other.unjudged;
        self.missing.extend(other.missing.iter().cloned());
        self.step_pairs += other.step_pairs;
        self.steps_agreeing += other.steps_agreeing;
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        1.0
    } else {
        part as f64 / whole as f64
    }
}

/// Judges the walk of a build under test against the oracle's reference.
pub fn judge(reference: &Reference, walk: &Walk) -> Figures {
    let mut figures = Figures {
        stops: walk.stops.len(),
        ..Figures::default()
    };
    let mut distinct = HashSet::new();
    let mut wrong = BTreeSet::new();
    // (function, variable) the oracle expected at some stop, and the
    // (function, variable) pairs listed at any stop.
    let mut expected_somewhere = BTreeSet::new();
    let mut listed = HashSet::new();
    let none = BTreeSet::new();
    for stop in &walk.stops {
        figures.lines.insert(stop.line);
        let expected = reference
            .shown_at
            .get(&(stop.function.clone(), stop.line))
            .unwrap_or(&none);
        for name in expected {
            figures.expected += 1;
            if stop
                .shown
                .iter()
                .any(|s| &s.variable() == name && s.is_available())
            {
                figures.available += 1;
            }
        }
        if let Some(names) = reference
            .oracle_shown_at
            .get(&(stop.function.clone(), stop.line))
        {
            for name in names {
                expected_somewhere.insert((stop.function.clone(), name.clone()));
            }
        }
        for shown in &stop.shown {
            listed.insert((stop.function.clone(), shown.variable()));
            if !shown.is_available() {
                continue;
            }
            if before_assignment(stop, shown) {
                continue;
            }
            let variable = shown.variable();
            let held = reference.held(&stop.function, stop.line, &variable);
            distinct.insert((&stop.function, stop.line, variable.clone(), &shown.value));
            let capped = reference
                .capped
                .contains(&(stop.function.clone(), stop.line))
                || reference.unknown.contains(&(
                    stop.function.clone(),
                    stop.line,
                    variable.clone(),
                ));
            let is_wrong = match held {
                _ if shown.is_error() => true,
                Some(held) if held.contains(&shown.value) || held.contains(UNASSIGNED) => false,
                Some(_) if !capped => true,
                _ => {
                    figures.unjudged += 1;
                    false
                }
            };
            if is_wrong {
                let mut held: Vec<String> = held.into_iter().flatten().cloned().collect();
                held.sort();
                wrong.insert(WrongValue {
                    function: stop.function.clone(),
                    line: stop.line,
                    variable,
                    shown: shown.value.clone(),
                    held,
                });
            }
        }
    }
    figures.distinct_values = distinct.len();
    figures.wrong = wrong.into_iter().collect();
    figures.missing = expected_somewhere
        .into_iter()
        .filter(|pair| !listed.contains(pair))
        .collect();
    frame_pairs(&walk.stops, |previous, stop| {
        figures.step_pairs += 1;
        let step = (stop.function.clone(), previous.line, stop.line);
        figures.steps_agreeing += usize::from(reference.steps.contains(&step));
    });
    figures
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::walk::parse;

    const ORACLE: &str = "LINES\t3 4 5\n\
        STOP\t1\tmain\t3\tbreak\nVAR\tx\tlocal\t2\t7\n\
        STOP\t1\tmain\t4\tbreak\nVAR\tx\tlocal\t2\t1\nVAR\ty\tlocal\t3\t0\n\
        STOP\t1\tmain\t5\tbreak\nVAR\tx\tlocal\t2\t1\nVAR\ty\tlocal\t3\t2\n\
        END\texited\t\n";

    #[test]
    fn values_of_the_line_and_the_next_stop_are_held() {
        let reference = Reference::new(&parse(ORACLE));
        let held = |line, name| {
            let mut v: Vec<_> = reference
                .held("main", line, name)
                .unwrap()
                .iter()
                .cloned()
                .collect();
            v.sort();
            v
        };
        assert_eq!(held(3, "x@2"), ["1", "7"]);
        assert_eq!(held(4, "y@3"), ["0", "2"]);
        assert_eq!(held(5, "y@3"), ["2"]);
    }

    #[test]
    fn a_walk_is_judged_value_by_value() {
        let reference = Reference::new(&parse(ORACLE));
        // Line 5 before line 4 (a step the oracle never made), y = 9 never
        // held at 5, x optimised out at 4, an unreadable x at 5.
        let walk = parse(
            "STOP\t1\tmain\t3\tbreak\nVAR\tx\tlocal\t2\t1\n\
             STOP\t1\tmain\t5\tbreak\nVAR\tx\tlocal\t2\t<error: Cannot access memory at address 0x7>\nVAR\ty\tlocal\t3\t9\n\
             STOP\t1\tmain\t4\tbreak\nVAR\tx\tlocal\t2\t<optimized out>\n",
        );
        let figures = judge(&reference, &walk);
        assert_eq!(figures.stops, 3);
        assert_eq!((figures.available, figures.expected), (3, 5));
        let wrong: Vec<String> = figures.wrong.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            wrong,
            [
                "main:5 x@2 = <error: Cannot access memory at address 0x7> (the oracle holds {1})",
                "main:5 y@3 = 9 (the oracle holds {2})"
            ]
        );
        assert_eq!((figures.steps_agreeing, figures.step_pairs), (0, 2));
        assert!(figures.missing.is_empty());
        assert_eq!(figures.lines, BTreeSet::from([3, 4, 5]));
    }

    #[test]
    fn a_value_the_oracle_missed_at_a_capped_line_is_not_judged() {
        // The oracle stopped at f:10 until the bound disabled it (p was 0,
        // then 7); a build stopping there in a later call shows p = 3.
        let oracle = "STOP\t2\tf\t10\trow\nVAR\tp\targ\t9\t0\n\
                      STOP\t2\tf\t10\trow\nVAR\tp\targ\t9\t7\nCAPPED\tf\t10\n";
        let reference = Reference::new(&parse(oracle));
        let later_call = parse("STOP\t2\tf\t10\tbreak\nVAR\tp\targ\t9\t3\n");
        let figures = judge(&reference, &later_call);
        assert!(figures.wrong.is_empty());
        assert_eq!(figures.unjudged, 1);
        // Without the cap, the same value is wrong.
        let uncapped = Reference::new(&parse(&oracle.replace("CAPPED\tf\t10\n", "")));
        assert_eq!(judge(&uncapped, &later_call).wrong.len(), 1);
    }

    #[test]
    fn the_closing_line_of_a_frame_that_returned_past_it_is_capped() {
        // f's first call stops at its `}` (12) with op 1; the second call's
        // branch jumps past the `}` row's first instruction: its frame
        // ends at line 11, back in main. A build stopping at f:12 in the
        // second call shows op 2.
        let oracle = "STOP\t1\tmain\t3\tbreak\n\
                      STOP\t2\tf\t11\tbreak\nVAR\top\targ\t10\t1\n\
                      STOP\t2\tf\t12\tbreak\nVAR\top\targ\t10\t1\n\
                      STOP\t1\tmain\t4\tbreak\n\
                      STOP\t2\tf\t11\tbreak\nVAR\top\targ\t10\t2\n\
                      STOP\t1\tmain\t5\tbreak\n";
        let second_call = parse("STOP\t2\tf\t12\tbreak\nVAR\top\targ\t10\t2\n");
        let figures = judge(&Reference::new(&parse(oracle)), &second_call);
        assert!(figures.wrong.is_empty());
        assert_eq!(figures.unjudged, 1);
        // When every frame of f stopped at its `}`, op 3 there is wrong.
        let closed = oracle.replace(
            "STOP\t1\tmain\t5",
            "STOP\t2\tf\t12\tbreak\nVAR\top\targ\t10\t2\nSTOP\t1\tmain\t5",
        );
        let third = parse("STOP\t2\tf\t12\tbreak\nVAR\top\targ\t10\t3\n");
        assert_eq!(
            judge(&Reference::new(&parse(&closed)), &third).wrong.len(),
            1
        );
    }

    #[test]
    fn a_local_the_pattern_twin_shows_unassigned_is_not_judged_there() {
        // `size_t l;` then `s = check(L, &l)` on line 5: gcc -O0 shows the
        // stack's 77 at line 4, the pattern twin shows it unassigned.
        let oracle = "STOP\t1\tf\t4\tbreak\nVAR\tl\tlocal\t3\t77\n\
                      STOP\t1\tf\t5\tbreak\nVAR\tl\tlocal\t3\t2\n";
        let twin = "STOP\t1\tf\t3\tbreak\nVAR\tl\tlocal\t3\t<unassigned>\n\
                    STOP\t1\tf\t4\tbreak\nVAR\tl\tlocal\t3\t<unassigned>\n\
                    STOP\t1\tf\t5\tbreak\nVAR\tl\tlocal\t3\t2\n";
        let build = parse("STOP\t1\tf\t4\tbreak\nVAR\tl\tlocal\t3\t12\n");
        let mut reference = Reference::new(&parse(oracle));
        assert_eq!(judge(&reference, &build).wrong.len(), 1);
        reference.add_unassigned(&parse(twin));
        assert!(judge(&reference, &build).wrong.is_empty());
        // The twin's line 3 is not a line the oracle stopped at.
        assert!(!reference.lines().contains(&3));
    }

    #[test]
    fn a_value_of_a_variable_the_oracle_could_not_show_there_is_not_judged() {
        // An inlined copy of f whose unused parameter gcc -O0 left without
        // a location, and another copy where it is 9.
        let oracle = "STOP\t2\tf\t10\tbreak\nVAR\tcap\targ\t9\t<optimized out>\n\
                      STOP\t2\tf\t10\tbreak\nVAR\tcap\targ\t9\t9\n";
        let reference = Reference::new(&parse(oracle));
        let first_copy = parse("STOP\t2\tf\t10\tbreak\nVAR\tcap\targ\t9\t0\n");
        let figures = judge(&reference, &first_copy);
        assert!(figures.wrong.is_empty());
        assert_eq!(figures.unjudged, 1);
        let known = Reference::new(&parse(&oracle.replace("<optimized out>", "9")));
        assert_eq!(judge(&known, &first_copy).wrong.len(), 1);
    }

    #[test]
    fn a_second_look_holds_its_lines_values_and_the_next_lines() {
        let mut reference = Reference::new(&parse(ORACLE));
        let build = parse("STOP\t1\tmain\t4\tbreak\nVAR\tx\tlocal\t2\t5\nVAR\ty\tlocal\t3\t8\n");
        assert_eq!(judge(&reference, &build).wrong.len(), 2);
        // Line 4 again: x was 5 there at a later execution, and the `next`
        // after it saw y = 8 at line 5 (what line 4 computes). The stop
        // after that, at line 4 again, is no step from line 5.
        let again = "LINES\t4\n\
            STOP\t1\tmain\t4\tbreak\nVAR\tx\tlocal\t2\t5\nVAR\ty\tlocal\t3\t0\n\
            STOP\t1\tmain\t5\tnext\nVAR\tx\tlocal\t2\t5\nVAR\ty\tlocal\t3\t8\n\
            STOP\t1\tmain\t4\tbreak\nVAR\tx\tlocal\t2\t6\nVAR\ty\tlocal\t3\t4\n\
            END\texited\t\n";
        reference.confirm(&parse(again));
        assert!(judge(&reference, &build).wrong.is_empty());
        assert!(!reference.held("main", 5, "y@3").unwrap().contains("4"));
        // A second look that ended early saw no line's every execution.
        let mut unfinished = Reference::new(&parse(ORACLE));
        unfinished.confirm(&parse(
            "LINES\t4\nSTOP\t1\tmain\t4\tbreak\nVAR\tx\tlocal\t2\t1\nEND\tlimit\t1\n",
        ));
        let figures = judge(&unfinished, &build);
        assert!(figures.wrong.is_empty());
        assert_eq!(figures.unjudged, 2);
    }

    #[test]
    fn a_variable_never_listed_in_its_function_is_missing() {
        let reference = Reference::new(&parse(ORACLE));
        let walk = parse("STOP\t1\tmain\t4\tbreak\nVAR\tx\tlocal\t2\t1\n");
        let figures = judge(&reference, &walk);
        assert_eq!(figures.missing, [("main".to_string(), "y@3".to_string())]);
        assert_eq!(figures.availability(), 0.5);
    }

    #[test]
    fn a_variable_only_the_second_unoptimised_build_shows_is_expected_but_not_missing() {
        // The clang -O0 twin keeps a block's z in scope at line 3, where
        // the oracle showed none: a stop there expects z (availability),
        // but a build whose scopes are the oracle's is not missing it.
        let mut reference = Reference::new(&parse(ORACLE));
        reference.add_values(&parse(
            "STOP\t1\tmain\t3\tbreak\nVAR\tz\tlocal\t2\t5\nEND\texited\t\n",
        ));
        let walk = parse("STOP\t1\tmain\t3\tbreak\nVAR\tx\tlocal\t2\t7\n");
        let figures = judge(&reference, &walk);
        assert!(figures.missing.is_empty(), "{:?}", figures.missing);
        assert_eq!((figures.available, figures.expected), (1, 2));
    }

    #[test]
    fn steps_pair_within_a_frame_across_callee_stops() {
        let walk = parse(
            "STOP\t1\tmain\t3\tbreak\nSTOP\t2\tf\t10\tbreak\nSTOP\t2\tf\t11\tbreak\nSTOP\t1\tmain\t4\tbreak\nSTOP\t2\tg\t20\tbreak\n",
        );
        let mut pairs = Vec::new();
        frame_pairs(&walk.stops, |a, b| {
            pairs.push((a.function.clone(), a.line, b.line))
        });
        assert_eq!(
            pairs,
            [("f".to_string(), 10, 11), ("main".to_string(), 3, 4)]
        );
    }
}
