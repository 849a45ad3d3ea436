//! Line-table rows of one function, with is_stmt, prologue_end and
//! epilogue_begin.
//!
//! In: the function's machine instructions in final order, each with its
//! byte offset, its source location (`loc`: `LocId + 1`, 0 for none),
//! whether it starts a block, and whether it belongs to the prologue or
//! starts an epilogue ([`LineInput`], built from a finished function by
//! [`inputs_of`]); the IR's debug metadata to read lines from.
//! Out: [`LineEntry`] rows in address order.
//!
//! The rules:
//! - A row starts wherever the source position (file, line, column)
//!   changes, or the location's source-order verdict does, at every block
//!   start (so a branch lands on a row boundary, where a debugger stops),
//!   at the first instruction after the prologue and at each epilogue.
//! - An instruction without a location continues the row before it in its
//!   block; a block that starts without one (a phi's copies on an edge, a
//!   merged return value) starts a line-0 row, as llc does, rather than
//!   borrowing the line of whatever block precedes it in memory.
//! - Prologue instructions, and unlocated instructions before the first
//!   located one (argument copies and stores), get the subprogram's
//!   scopeLine, as llc does; prologue_end marks the first located
//!   instruction after them, where a debugger's function breakpoint goes.
//! - is_stmt, in a function with `keyInstructions: true` (LLVM 21+): for
//!   each atom (`atomGroup` with `inlinedAt`), the instructions of its
//!   lowest `atomRank`; of those, the last in each block is a statement,
//!   and its is_stmt floats up to the first row of the run of rows with
//!   its line just before it in the block. Calls are always statements;
//!   nothing else is. This is LLVM 21's rule.
//! - is_stmt otherwise marks the first row of each source line within a
//!   block (so of an unrolled or duplicated line, the first copy in the
//!   block): a line already started earlier in the same block (code
//!   interleaved by scheduling) is not a new statement, and line 0 never
//!   is. The prologue's rows start no line: the row after them (the
//!   function's breakpoint address) is a statement even on the scopeLine,
//!   as llc's is. Nor is a row whose location the source-order decision found out
//!   of order (`DebugInfo::out_of_order`: hoisted out of a loop, sunk,
//!   speculated; see `source_order`), nor a row that sits inside another
//!   line's run: when the line before it in the block comes back after
//!   it, the row's code was moved there (hoisted or speculated into the
//!   middle of that statement, like a loop body's `p++` computed before
//!   the loop test) and stopping on it would show the statement as already
//!   run; a later, unmoved row of the same line can still be its statement
//!   start. Two calls of one statement inlined side by side and
//!   interleaved by scheduling (sibling frames called from the same line)
//!   are not moved code.
//! - prologue_end on a row that is no statement moves to the first
//!   statement after it in its block, if any (a function breakpoint does
//!   not stop in speculated code).
//! - epilogue_begin marks the first instruction of each epilogue.

use crate::codegen::isel::ir_loc;
use crate::codegen::mir::{Function, InstKind};
use crate::ir::{DebugInfo, LocId, MdId, MdNode};

/// What the line table needs to know of one machine instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineInput {
    /// Byte offset in the function.
    pub offset: u64,
    /// MIR location (`LocId + 1`; 0: none).
    pub loc: u32,
    /// The first instruction of a block.
    pub block_start: bool,
    /// Part of the prologue.
    pub prologue: bool,
    /// The first instruction of an epilogue.
    pub epilogue_begin: bool,
    /// A call (always a statement under Key Instructions).
    pub call: bool,
}

/// One row of a function's line table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineEntry {
    /// Byte offset in the function.
    pub offset: u64,
    /// The IR DILocation the row comes from (`None` for prologue rows,
    /// which use the subprogram's scopeLine, and for line-0 rows made up
    /// for unlocated code).
    pub loc: Option<LocId>,
    /// The DIFile of the row's scope (`None` when unknown).
    pub file: Option<MdId>,
    /// Source line (0: no line).
    pub line: u32,
    /// Source column.
    pub column: u32,
    /// A recommended breakpoint location.
    pub is_stmt: bool,
    /// The first instruction after the prologue.
    pub prologue_end: bool,
    /// The first instruction of an epilogue.
    pub epilogue_begin: bool,
}

/// The line-table inputs of a finished function: its non-debug
/// instructions with offsets, block starts, prologue and epilogues.
pub fn inputs_of(
    mir: &Function,
    inst_offsets: &[Vec<(u32, u32)>],
    prologue_len: usize,
    epilogue_starts: &[(usize, usize)],
) -> Vec<LineInput> {
    let mut out = Vec::new();
    for (b, block) in mir.blocks.iter().enumerate() {
        let mut first = true;
        for (i, inst) in block.insts.iter().enumerate() {
            if inst.is_debug() {
                continue;
            }
            out.push(LineInput {
                offset: u64::from(inst_offsets[b][i].0),
                loc: inst.loc,
                block_start: first,
                prologue: b == 0 && i < prologue_len,
                epilogue_begin: epilogue_starts.contains(&(b, i)),
                call: matches!(inst.kind, InstKind::Call { .. }),
            });
            first = false;
        }
    }
    out
}

/// The file of a scope (subprogram, lexical block or block file).
pub fn scope_file(debug: &DebugInfo, scope: MdId) -> Option<MdId> {
    match debug.node(scope) {
        MdNode::Subprogram(s) => s.file,
        MdNode::LexicalBlock(b) => b.file.or_else(|| scope_file(debug, b.scope)),
        MdNode::LexicalBlockFile(b) => b.file.or_else(|| scope_file(debug, b.scope)),
        _ => None,
    }
}

/// The rows of one function. `subprogram` gives the prologue's line and
/// whether Key Instructions decide is_stmt.
pub fn line_entries(
    inputs: &[LineInput],
    debug: &DebugInfo,
    subprogram: Option<MdId>,
) -> Vec<LineEntry> {
    let sp = subprogram.and_then(|s| debug.subprogram(s));
    let prologue_line = sp.map_or(0, |s| s.scope_line.max(s.line));
    let prologue_file = sp.and_then(|s| s.file);
    let mut rows: Vec<LineEntry> = Vec::new();
    // Where each block's rows start in `rows`.
    let mut block_starts: Vec<usize> = Vec::new();
    // The row each input belongs to.
    let mut row_of: Vec<usize> = Vec::with_capacity(inputs.len());
    let mut previous: Option<(Option<LocId>, Option<MdId>, u32, u32)> = None;
    let mut after_prologue = false;
    let moved = |loc: Option<LocId>| loc.is_some_and(|l| debug.out_of_order.contains(&l));
    for input in inputs {
        if input.block_start {
            block_starts.push(rows.len());
        }
        // The prologue, and unlocated or line-0 code before the first
        // instruction with a line (argument copies and spills, a frameless
        // function's first jump), is the opening line, as llc's initial row.
        let line_0 = ir_loc(input.loc).is_some_and(|id| debug.location(id).line == 0);
        let in_prologue = input.prologue || (!after_prologue && (input.loc == 0 || line_0));
        let (loc, file, line, column) = if in_prologue {
            (None, prologue_file, prologue_line, 0)
        } else {
            match ir_loc(input.loc) {
                Some(id) => {
                    let l = debug.location(id);
                    (Some(id), scope_file(debug, l.scope), l.line, l.column)
                }
                None if input.block_start => (None, prologue_file, 0, 0),
                None => previous.unwrap_or((None, prologue_file, 0, 0)),
            }
        };
        let prologue_end = !in_prologue && !after_prologue;
        if !in_prologue {
            after_prologue = true;
        }
        // A new location at the same file:line:column (another atom of
        // the same statement, a merged copy) is no new row unless one of
        // the two was moved out of order, which decides is_stmt.
        let key = (file, line, column, moved(loc));
        let changed = previous.map(|(l, f, n, c)| (f, n, c, moved(l))) != Some(key);
        previous = Some((loc, file, line, column));
        if !(changed || input.block_start || prologue_end || input.epilogue_begin) {
            row_of.push(rows.len() - 1);
            continue;
        }
        let row = LineEntry {
            offset: input.offset,
            loc,
            file,
            line,
            column,
            is_stmt: false,
            prologue_end,
            epilogue_begin: input.epilogue_begin,
        };
        // Two rows at one offset (an empty block): the later one wins.
        match rows.last_mut() {
            Some(last) if last.offset == row.offset => {
                let prologue_end = last.prologue_end;
                *last = row;
                last.prologue_end |= prologue_end;
                // This block starts on the row it replaced.
                if input.block_start {
                    if let Some(start) = block_starts.last_mut() {
                        *start = rows.len() - 1;
                    }
                }
            }
            _ => rows.push(row),
        }
        row_of.push(rows.len() - 1);
    }
    block_starts.retain(|&start| start < rows.len());
    block_starts.dedup();
    if sp.is_some_and(|s| s.key_instructions()) {
        mark_key_instructions(&mut rows, &block_starts, inputs, &row_of, debug);
    } else {
        mark_statements(&mut rows, &block_starts, debug);
    }
    move_prologue_end_to_a_statement(&mut rows, &block_starts);
    rows
}

/// Moves prologue_end from a row that is no statement (moved code) to the
/// first statement after it in the same block, if there is one: a
/// function breakpoint must not stop in code run ahead of its statement.
fn move_prologue_end_to_a_statement(rows: &mut [LineEntry], block_starts: &[usize]) {
    let Some(at) = rows.iter().position(|r| r.prologue_end) else {
        return;
    };
    if rows[at].is_stmt {
        return;
    }
    let end = block_starts
        .iter()
        .copied()
        .find(|&s| s > at)
        .unwrap_or(rows.len());
    if let Some(to) = (at + 1..end).find(|&r| rows[r].is_stmt) {
        rows[at].prologue_end = false;
        rows[to].prologue_end = true;
    }
}

/// The row ranges of the blocks, in order.
fn block_ranges(rows: usize, block_starts: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut bounds: Vec<usize> = block_starts.to_vec();
    if bounds.first() != Some(&0) {
        bounds.insert(0, 0);
    }
    bounds.push(rows);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Sets is_stmt on each block's statement starts (see the module rules).
fn mark_statements(rows: &mut [LineEntry], block_starts: &[usize], debug: &DebugInfo) {
    for range in block_ranges(rows.len(), block_starts) {
        let block = &mut rows[range];
        let interrupting = moved_into_another_run(block, debug);
        let mut started: Vec<u32> = Vec::new();
        for (i, row) in block.iter_mut().enumerate() {
            if row.prologue_end {
                // The prologue's scopeLine rows start no statement of the
                // body: the first body row is one even on that same line
                // (a one-line function), where a breakpoint on the
                // function stops.
                started.clear();
            }
            let moved = row.loc.is_some_and(|l| debug.out_of_order.contains(&l));
            if row.line != 0 && !moved && !started.contains(&row.line) && !interrupting[i] {
                row.is_stmt = true;
                started.push(row.line);
            }
        }
    }
}

/// Sets is_stmt by Key Instructions (see the module rules).
fn mark_key_instructions(
    rows: &mut [LineEntry],
    block_starts: &[usize],
    inputs: &[LineInput],
    row_of: &[usize],
    debug: &DebugInfo,
) {
    // The atom of an input: (group, inlined_at) and rank.
    let atom = |input: &LineInput| {
        let l = debug.location(ir_loc(input.loc)?);
        (l.atom_group != 0 && l.atom_rank != 0)
            .then_some(((l.atom_group, l.inlined_at), l.atom_rank))
    };
    let mut lowest: crate::ir::hash::FxHashMap<(u64, Option<LocId>), u8> = Default::default();
    for input in inputs {
        if let Some((key, rank)) = atom(input) {
            let best = lowest.entry(key).or_insert(rank);
            *best = (*best).min(rank);
        }
    }
    let ranges = block_ranges(rows.len(), block_starts);
    let block_of = |row: usize| ranges.iter().position(|r| r.contains(&row)).unwrap_or(0);
    // The last input of each atom's lowest rank in each block, and calls.
    let mut last_in_block: std::collections::BTreeMap<(usize, (u64, Option<LocId>)), usize> =
        Default::default();
    let mut statements: Vec<usize> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let row = row_of[i];
        if input.call && input.loc != 0 {
            statements.push(row);
        }
        if let Some((key, rank)) = atom(input) {
            if lowest.get(&key) == Some(&rank) {
                last_in_block.insert((block_of(row), key), row);
            }
        }
    }
    statements.extend(last_in_block.values());
    // The opening row (the prologue's scopeLine) stays a statement.
    if rows.first().is_some_and(|r| r.loc.is_none() && r.line != 0) {
        statements.push(0);
    }
    for row in statements {
        if rows[row].line == 0 {
            continue;
        }
        // Float up through the rows of the same line just before it.
        let first = ranges[block_of(row)].start;
        let mut top = row;
        while top > first && rows[top - 1].line == rows[row].line {
            top -= 1;
        }
        rows[top].is_stmt = true;
    }
}

/// Per row of a block: whether it sits inside another line's run (see
/// [`inside_another_run`]), unless the two rows belong to sibling inlined
/// frames (neither inlined into the other) called from the same line of
/// the innermost frame they share: two calls of one statement interleaved
/// by scheduling, neither moved into the other. When one row's frame holds
/// the other's, the run is judged again by the lines of the row's own
/// frame ([`interrupted_in_own_frame`]).
fn moved_into_another_run(block: &[LineEntry], debug: &DebugInfo) -> Vec<bool> {
    let keys: Vec<Option<u32>> = block
        .iter()
        .map(|row| (row.line != 0).then_some(row.line))
        .collect();
    let frame = |row: &LineEntry| row.loc.and_then(|l| debug.location(l).inlined_at);
    let within =
        |row: &LineEntry, other: Option<LocId>| inline_chain(debug, row).any(|(f, _)| f == other);
    (0..block.len())
        .map(|at| {
            interrupted_run(&keys, at).is_some_and(|before| {
                let (row, other) = (&block[at], &block[before]);
                let siblings = frame(row) != frame(other)
                    && !within(row, frame(other))
                    && !within(other, frame(row));
                if !siblings {
                    return interrupted_in_own_frame(block, at, debug);
                }
                let shared = inline_chain(debug, row)
                    .map(|(f, _)| f)
                    .find(|&f| within(other, f))
                    .flatten();
                let line_in = |row: &LineEntry| {
                    inline_chain(debug, row)
                        .find(|&(f, _)| f == shared)
                        .map(|(_, line)| line)
                };
                line_in(row) != line_in(other)
            })
        })
        .collect()
}

/// Whether the row at `at` still sits inside another line's run when every
/// row is judged by its line in `at`'s own frame: a row inlined into that
/// frame counts as the line of its call there, a row of no frame within it
/// as its own line in its own frame, except a row of a statement that
/// calls `at`'s frame (its line in an enclosing frame is that frame's call
/// of ours), which is not judged: an inlined body runs inside the run of
/// the statement that calls it (`printf("%d", f(x))`: the arguments, f's
/// body, the call of printf). Line 142's first row, between the inlined
/// header line 73 of line 141's call and the same header of its own call,
/// interrupts nothing: in its frame the rows read `141 142 142`.
fn interrupted_in_own_frame(block: &[LineEntry], at: usize, debug: &DebugInfo) -> bool {
    let own = block[at].loc.and_then(|l| debug.location(l).inlined_at);
    let calling: Vec<(Option<LocId>, u32)> = inline_chain(debug, &block[at]).skip(1).collect();
    let keys: Vec<Option<(Option<LocId>, u32)>> = block
        .iter()
        .map(|row| {
            if row.line == 0 {
                return None;
            }
            let frame = row.loc.and_then(|l| debug.location(l).inlined_at);
            match inline_chain(debug, row).find(|&(f, _)| f == own) {
                Some((_, line)) => Some((own, line)),
                None if calling.contains(&(frame, row.line)) => None,
                None => Some((frame, row.line)),
            }
        })
        .collect();
    interrupted_run(&keys, at).is_some()
}

/// A row's frames from the innermost out: each frame's `inlinedAt` (`None`
/// for the function itself) with the row's line in it (the line of the
/// call that leads to the inner frames).
fn inline_chain<'a>(
    debug: &'a DebugInfo,
    row: &LineEntry,
) -> impl Iterator<Item = (Option<LocId>, u32)> + 'a {
    let first = row
        .loc
        .map(|l| (debug.location(l).inlined_at, row.line))
        .unwrap_or((None, row.line));
    std::iter::successors(Some(first), |&(frame, _)| {
        let call = debug.location(frame?);
        Some((call.inlined_at, call.line))
    })
}

/// Whether position `at` of a block whose code has source `lines` (0 for
/// none) sits inside another line's run: the nearest earlier line that
/// differs from its own is also the next different line after its own run
/// (`4 4 5 4`: the 5 interrupts the 4s). Such code was moved there by the
/// optimiser (hoisted or speculated into that statement). A line followed
/// by yet another line is a statement of its own (an unrolled loop body
/// repeats `18 10 11 4 19 17 18 ...` without any line interrupting another).
pub fn inside_another_run(lines: &[u32], at: usize) -> bool {
    let keys: Vec<Option<u32>> = lines.iter().map(|&l| (l != 0).then_some(l)).collect();
    interrupted_run(&keys, at).is_some()
}

/// [`inside_another_run`] over the rows' keys (`None`: no line): the index
/// of the interrupted run's row before `at`, when `at` sits inside one.
fn interrupted_run<K: PartialEq>(keys: &[Option<K>], at: usize) -> Option<usize> {
    let own = keys[at].as_ref()?;
    let before = (0..at)
        .rev()
        .find(|&i| keys[i].as_ref().is_some_and(|k| k != own))?;
    let after = keys[at + 1..].iter().flatten().find(|&k| k != own);
    (after == keys[before].as_ref()).then_some(before)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_code_inside_another_lines_run_is_moved() {
        use super::inside_another_run;
        // while (*p) p++;  →  load:4, icmp:4, gep:5, br:4
        let header = [4, 4, 5, 4];
        assert!(inside_another_run(&header, 2));
        assert!(!inside_another_run(&header, 0));
        // A loop latch: body line 6, then the increment and test of line 4.
        let latch = [6, 4, 4];
        assert!(!inside_another_run(&latch, 0));
        assert!(!inside_another_run(&latch, 1));
        // Interleaved lines: the second run of line 5 is its statement start.
        let interleaved = [4, 5, 5, 4, 5];
        assert!(inside_another_run(&interleaved, 1));
        assert!(inside_another_run(&interleaved, 2));
        assert!(!inside_another_run(&interleaved, 4));
        // Unlocated code is never judged.
        assert!(!inside_another_run(&[4, 0, 4], 1));
        // An unrolled loop body: each line is a statement of its own.
        let unrolled = [18, 10, 11, 4, 19, 17, 18, 10, 11, 4, 19, 17];
        assert!((0..unrolled.len()).all(|i| !inside_another_run(&unrolled, i)));
    }

    use super::*;
    use crate::ir::debug::DISubprogram;
    use crate::ir::DILocation;

    /// A subprogram at line 3 and locations at the given (line, column)s;
    /// location k (0-based) has MIR loc k + 1.
    fn debug_with(lines: &[(u32, u32)]) -> (DebugInfo, MdId) {
        let mut debug = DebugInfo::default();
        let sp = debug.add_node(
            true,
            MdNode::Subprogram(DISubprogram {
                name: "f".into(),
                linkage_name: None,
                scope: None,
                file: None,
                line: 3,
                ty: None,
                scope_line: 3,
                flags: vec![],
                sp_flags: vec![],
                unit: None,
                retained_nodes: None,
                declaration: None,
                other: vec![],
            }),
        );
        for &(line, column) in lines {
            debug.intern_location(DILocation {
                line,
                column,
                scope: sp,
                inlined_at: None,
                implicit_code: false,
                distinct: false,
                atom_group: 0,
                atom_rank: 0,
            });
        }
        (debug, sp)
    }

    fn input(offset: u64, loc: u32) -> LineInput {
        LineInput {
            offset,
            loc,
            block_start: false,
            prologue: false,
            epilogue_begin: false,
            call: false,
        }
    }

    /// Rows as `offset line:col flags`.
    fn show(rows: &[LineEntry]) -> Vec<String> {
        rows.iter()
            .map(|r| {
                let mut s = format!("{} {}:{}", r.offset, r.line, r.column);
                for (on, name) in [
                    (r.is_stmt, " stmt"),
                    (r.prologue_end, " prologue_end"),
                    (r.epilogue_begin, " epilogue_begin"),
                ] {
                    if on {
                        s.push_str(name);
                    }
                }
                s
            })
            .collect()
    }

    #[test]
    fn statements_prologue_and_epilogue() {
        // Locations: 1 = 4:13, 2 = 5:13, 3 = 4:20, 4 = 7:3.
        let (debug, sp) = debug_with(&[(4, 13), (5, 13), (4, 20), (7, 3)]);
        let inputs = vec![
            LineInput {
                block_start: true,
                prologue: true,
                ..input(0, 1)
            },
            LineInput {
                prologue: true,
                ..input(1, 1)
            },
            input(4, 1),
            input(7, 0),
            input(9, 2),
            input(12, 3),
            LineInput {
                block_start: true,
                ..input(15, 3)
            },
            LineInput {
                epilogue_begin: true,
                ..input(18, 4)
            },
            input(19, 4),
        ];
        let rows = line_entries(&inputs, &debug, Some(sp));
        assert_eq!(
            show(&rows),
            [
                "0 3:0 stmt",
                "4 4:13 stmt prologue_end",
                // Line 5 sits inside line 4's run: moved code, no statement.
                "9 5:13",
                "12 4:20",
                "15 4:20 stmt",
                "18 7:3 stmt epilogue_begin",
            ]
        );
        // Unlocated code before the first location belongs to the opening
        // line; the first located instruction ends the prologue.
        let inputs = [input(0, 0), input(3, 2), input(5, 0)];
        let rows = line_entries(&inputs, &debug, Some(sp));
        assert_eq!(show(&rows), ["0 3:0 stmt", "3 5:13 stmt prologue_end"]);
    }

    #[test]
    fn the_first_row_after_the_prologue_is_a_statement_on_the_scope_line_too() {
        // A one-line function: its body is on the scopeLine (3). The row
        // after the prologue is where a function breakpoint stops; without
        // is_stmt gdb shows the stop as an address.
        let (debug, sp) = debug_with(&[(3, 25), (3, 18)]);
        let inputs = [
            LineInput {
                prologue: true,
                ..input(0, 1)
            },
            input(4, 1),
            input(9, 2),
        ];
        let rows = line_entries(&inputs, &debug, Some(sp));
        assert_eq!(
            show(&rows),
            ["0 3:0 stmt", "4 3:25 stmt prologue_end", "9 3:18"]
        );
    }
}
