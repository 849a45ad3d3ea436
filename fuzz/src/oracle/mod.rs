//! The gdb oracle: how much of a program's state an optimised build shows
//! under a debugger, and whether what it shows is true.
//!
//! The oracle is the gcc -O0 -g build of the same source (with
//! `-ftrivial-auto-var-init=pattern`, so that a local not assigned yet is
//! told apart). Both builds are walked by the same gdb script
//! ([`walk::walk`]): a breakpoint on every source line that has an
//! `is_stmt` row in the given functions, each hit a bounded number of
//! times, printing every scalar parameter and local in scope; the oracle's
//! walk breaks on every `is_stmt` row of a line ([`WalkOptions::every_row`]). [`judge::Reference`] gathers what the oracle's variables held at
//! each line; [`judge::judge`] turns the walk of a build under test into
//! [`judge::Figures`]: stops, availability, distinct values, wrong values,
//! missing variables, lines stopped at, stepping order.
//!
//! Used by the random-program runs ([`crate::debug_info`]) and by the
//! real-world harness of the root crate's tests:
//!
//! ```no_run
//! use dwarfsmith_fuzz::oracle::{judge, walk, Reference, WalkOptions};
//! let options = WalkOptions::new(vec!["func_1".into(), "main".into()]);
//! let every_row = WalkOptions { every_row: true, ..options.clone() };
//! let reference = Reference::new(&walk(std::path::Path::new("oracle.exe"), &every_row)?);
//! let figures = judge(&reference, &walk(std::path::Path::new("test.exe"), &options)?);
//! println!("availability {:.3}, {} wrong", figures.availability(), figures.wrong.len());
//! # Ok::<(), String>(())
//! ```

pub mod judge;
pub mod walk;

pub use judge::{judge, Figures, Reference, WrongValue};
pub use walk::{walk, End, Shown, Stop, Walk, WalkOptions, OPTIMIZED_OUT, UNASSIGNED};
