//! One gdb walk of one executable: `walk.py` under `gdb -batch`, its rows
//! parsed into [`Walk`].
//!
//! In: an executable with DWARF and [`WalkOptions`] (the functions whose
//! lines get breakpoints, the bounds). Out: every stop, in order, with the
//! scalar arguments and locals gdb shows there. The walk itself judges
//! nothing; [`super::judge()`] does.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The gdb script; written to a temporary file for each walk.
pub const SCRIPT: &str = include_str!("walk.py");

/// What to walk and how far.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// Functions whose source lines get breakpoints: every line with an
    /// `is_stmt` row at an address inside one of them (or inside code
    /// inlined into one of them). Only one source file's lines are walked:
    /// [`WalkOptions::file`]'s, else the first defined function's file.
    pub functions: Vec<String>,
    /// The base name of the source file whose lines are walked, when the
    /// functions come from more than one (lz4hc.c's object also defines
    /// the static helpers of the lz4.c it includes, first).
    pub file: Option<String>,
    /// Stops on a line before its breakpoints are disabled (the line's
    /// first executions, however many copies of it the code holds); with
    /// [`WalkOptions::every_row`], stops per address.
    pub max_hits_per_line: u32,
    /// Break on every `is_stmt` row's address of each line, not only where
    /// `break FILE:LINE` puts them (a function's first line still after
    /// its prologue): the oracle's walk, to see every value a variable
    /// holds on a line (a `for` line's condition and increment too).
    pub every_row: bool,
    /// Only these lines get breakpoints (every line of the functions when
    /// empty), and each stop on them is followed by a `next`
    /// ([`Stop::after_next`]), the first few at each address by a stop
    /// wherever a value changed as the line runs on, an instruction at a
    /// time: a second look at lines where a build showed a value the first
    /// walk never saw.
    pub only_lines: Vec<u32>,
    /// The walk ends after this many stops.
    pub max_stops: u32,
    /// gdb is killed after this long (the walk then ends in
    /// [`End::TimedOut`], keeping the stops read so far).
    pub time_limit: Duration,
    /// Arguments of the program.
    pub args: Vec<String>,
    /// The program's working directory (the caller's when `None`).
    pub dir: Option<PathBuf>,
}

impl WalkOptions {
    /// Bounds that suit a small program: 5 hits a line, 3,000 stops, 60 s;
    /// breakpoints where `break` puts them.
    pub fn new(functions: Vec<String>) -> WalkOptions {
        WalkOptions {
            functions,
            file: None,
            max_hits_per_line: 5,
            every_row: false,
            only_lines: Vec::new(),
            max_stops: 3_000,
            time_limit: Duration::from_secs(60),
            args: Vec::new(),
            dir: None,
        }
    }
}

/// One variable gdb showed at a stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Its name.
    pub name: String,
    /// A parameter (`true`) or a local (`false`).
    pub is_argument: bool,
    /// The line of its declaration.
    pub decl_line: u32,
    /// gdb's rendering (see `walk.py`): a number, a character, `NULL`,
    /// `&symbol+offset`, `<pointer>`, [`OPTIMIZED_OUT`], [`UNASSIGNED`] or
    /// `<error: ...>`.
    pub value: String,
}

impl Shown {
    /// The variable's identity: `name@declaration line` (a name declared
    /// again in an inner block is another variable).
    pub fn variable(&self) -> String {
        format!("{}@{}", self.name, self.decl_line)
    }

    /// Whether gdb showed a value (not `<optimized out>`).
    pub fn is_available(&self) -> bool {
        self.value != OPTIMIZED_OUT
    }

    /// Whether gdb failed to read the value (a location that is wrong
    /// whatever the value: memory that cannot be read, a bad expression).
    pub fn is_error(&self) -> bool {
        self.value.starts_with("<error")
    }
}

/// gdb's word for a variable without a location at the pc.
pub const OPTIMIZED_OUT: &str = "<optimized out>";

/// An integer or pointer of 2-8 bytes that are all 0xFE or all 0xAA: the
/// `-ftrivial-auto-var-init=pattern` fill of gcc or clang, a local not
/// assigned yet.
pub const UNASSIGNED: &str = "<unassigned>";

/// One breakpoint stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    /// Frames on the stack, inlined frames included (1 in `main`).
    pub depth: u32,
    /// The function gdb names (the inlined one at an inlined stop).
    pub function: String,
    /// The source line of the stop.
    pub line: u32,
    /// Whether the stop is at an address `break FILE:LINE` chooses (always,
    /// unless [`WalkOptions::every_row`] added others).
    pub at_break_address: bool,
    /// Whether the stop is the `next` after a stop of an
    /// [`WalkOptions::only_lines`] walk: the frame at its following line.
    pub after_next: bool,
    /// Every scalar parameter and local in scope, innermost first.
    pub shown: Vec<Shown>,
}

/// How a walk ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The program exited (or gdb lost it).
    Exited,
    /// [`WalkOptions::max_stops`] was reached.
    StopLimit,
    /// [`WalkOptions::time_limit`] passed.
    TimedOut,
    /// gdb could not start the walk: no such function, no program.
    Error(String),
}

/// Everything one walk saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// The lines that got breakpoints.
    pub lines: Vec<u32>,
    /// The stops, in order.
    pub stops: Vec<Stop>,
    /// How it ended.
    pub end: End,
    /// (function, line) of each stop whose address the per-address bound
    /// then disabled ([`WalkOptions::every_row`] walks): the walk did not
    /// see every execution of that line.
    pub capped: BTreeSet<(String, u32)>,
}

/// Walks `exe` under gdb. An `Err` is a walk that could not run at all
/// (gdb or `timeout` missing, the script not written); a program gdb cannot
/// start is an `Ok` walk ending in [`End::Error`].
pub fn walk(exe: &Path, options: &WalkOptions) -> Result<Walk, String> {
    let mut script = tempfile::Builder::new()
        .suffix(".py")
        .tempfile()
        .map_err(|e| format!("cannot make the gdb script file: {e}"))?;
    std::io::Write::write_all(&mut script, SCRIPT.as_bytes())
        .map_err(|e| format!("cannot write the gdb script: {e}"))?;
    let mut gdb = Command::new("timeout");
    gdb.args([
        "-k",
        "5",
        &format!("{}", options.time_limit.as_secs().max(1)),
        "gdb",
        "-nx",
        "-batch",
        "-x",
    ])
    .arg(script.path())
    .arg("--args")
    .arg(exe)
    .args(&options.args)
    .env("WALK_FUNCTIONS", options.functions.join(","))
    .env("WALK_FILE", options.file.as_deref().unwrap_or_default())
    .env("WALK_MAX_HITS", options.max_hits_per_line.to_string())
    .env("WALK_MAX_STOPS", options.max_stops.to_string())
    .env("WALK_EVERY_ROW", if options.every_row { "1" } else { "0" })
    .env("WALK_LINES", join(&options.only_lines));
    if let Some(dir) = &options.dir {
        gdb.current_dir(dir);
    }
    let out = gdb
        .output()
        .map_err(|e| format!("cannot run gdb under timeout: {e}"))?;
    let mut walk = parse(&String::from_utf8_lossy(&out.stdout));
    if out.status.code() == Some(124) || out.status.code() == Some(137) {
        walk.end = End::TimedOut;
    }
    Ok(walk)
}

/// `lines` comma-separated.
fn join(lines: &[u32]) -> String {
    lines
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Parses the script's rows (other output, the program's and gdb's, is
/// skipped). Without an `END` row the walk counts as [`End::Exited`].
pub fn parse(text: &str) -> Walk {
    let mut walk = Walk {
        lines: Vec::new(),
        stops: Vec::new(),
        end: End::Exited,
        capped: BTreeSet::new(),
    };
    for row in text.lines() {
        let fields: Vec<&str> = row.split('\t').collect();
        match fields.as_slice() {
            ["LINES", lines] => {
                walk.lines = lines.split(' ').filter_map(|l| l.parse().ok()).collect()
            }
            ["STOP", depth, function, line, kind] => {
                if let (Ok(depth), Ok(line)) = (depth.parse(), line.parse()) {
                    walk.stops.push(Stop {
                        depth,
                        function: function.to_string(),
                        line,
                        at_break_address: *kind == "break",
                        after_next: *kind == "next",
                        shown: Vec::new(),
                    });
                }
            }
            ["VAR", name, kind, decl_line, value] => {
                if let Some(stop) = walk.stops.last_mut() {
                    stop.shown.push(Shown {
                        name: name.to_string(),
                        is_argument: *kind == "arg",
                        decl_line: decl_line.parse().unwrap_or(0),
                        value: value.to_string(),
                    });
                }
            }
            ["CAPPED", function, line] => {
                if let Ok(line) = line.parse() {
                    walk.capped.insert((function.to_string(), line));
                }
            }
            ["END", "limit", ..] => walk.end = End::StopLimit,
            ["END", "error", detail] => walk.end = End::Error(detail.to_string()),
            _ => {}
        }
    }
    walk
}
