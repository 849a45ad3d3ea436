//! Source order: is_stmt rows reached before the loop they belong to.
//!
//! In: the graph of a function in the object, and of the same function
//! (by name) in a reference object, an -O0 build of the same source.
//! Out: the is_stmt rows of the object that are reached out of source
//! order.
//!
//! The rule. Lines are (file base name, line number); line 0 is no line.
//! 1. In the reference, the loops are found as nested strongly connected
//!    components of its graph (see `graph`): a component holding a cycle
//!    is a loop; its *entry pieces* are those with a predecessor outside
//!    it (or the function entry), its *header* the entry pieces and the
//!    pieces they fall into without a branch and with no other
//!    predecessor; the loops nested in it are the components of it
//!    without its entry pieces. A loop's *lines* are the lines of all its
//!    pieces; its *body lines* are those of its lines that are not
//!    header lines and that no reference piece outside the loop has.
//!    A body line is, in source order, reached only once the loop runs.
//! 2. In the object, a piece is *in* the loop when it lies on a cycle
//!    whose pieces all have lines of the loop or lines the reference
//!    function does not have (line 0, inlined code) or the line of the
//!    reference's entry piece (the function's opening line, which
//!    compilers also give to parameter copies), and that cycle holds at
//!    least one line of the loop.
//! 3. An is_stmt row of the object whose line is a body line of a
//!    reference loop is flagged when its piece is not in that loop but
//!    every path from it enters the loop before leaving the function:
//!    the row is reached before the loop runs and only when it runs, as a
//!    hoisted instruction in a loop preheader is. A peeled first iteration
//!    (which can leave or skip the loop) is not flagged; a loop that left
//!    no cycle in the object (fully unrolled, folded away) flags nothing.

use std::collections::{BTreeSet, HashSet};

use super::graph::{Graph, LineKey};

/// A loop of the reference.
#[derive(Clone, Debug)]
pub struct Loop {
    /// Lines of its pieces.
    pub lines: HashSet<LineKey>,
    /// Lines of its header, smallest first (for messages).
    pub header: BTreeSet<LineKey>,
    /// Its body lines.
    pub body: HashSet<LineKey>,
}

/// The loops of a reference function, outermost first.
pub fn reference_loops(graph: &Graph) -> Vec<Loop> {
    let mut loops = Vec::new();
    let members = vec![true; graph.pieces.len()];
    nest(graph, &members, &mut loops);
    loops
}

fn nest(graph: &Graph, members: &[bool], loops: &mut Vec<Loop>) {
    for component in graph.cycles(members) {
        let mut inside = vec![false; graph.pieces.len()];
        for &p in &component {
            inside[p] = true;
        }
        let mut header: Vec<bool> = vec![false; graph.pieces.len()];
        for &p in &component {
            header[p] = p == 0 || graph.predecessors[p].iter().any(|&q| !inside[q]);
        }
        let entries: Vec<usize> = component.iter().copied().filter(|&p| header[p]).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &p in &component {
                if !header[p]
                    && graph.predecessors[p].len() == 1
                    && header[graph.predecessors[p][0]]
                    && graph.pieces[graph.predecessors[p][0]].falls_through
                {
                    header[p] = true;
                    changed = true;
                }
            }
        }
        let lines: HashSet<LineKey> = component
            .iter()
            .filter_map(|&p| graph.pieces[p].line.clone())
            .collect();
        let header_lines: BTreeSet<LineKey> = component
            .iter()
            .filter(|&&p| header[p])
            .filter_map(|&p| graph.pieces[p].line.clone())
            .collect();
        let outside: HashSet<&LineKey> = graph
            .pieces
            .iter()
            .enumerate()
            .filter(|(p, _)| !inside[*p])
            .filter_map(|(_, piece)| piece.line.as_ref())
            .collect();
        let body = lines
            .iter()
            .filter(|l| !header_lines.contains(*l) && !outside.contains(l))
            .cloned()
            .collect();
        loops.push(Loop {
            lines,
            header: header_lines,
            body,
        });
        let mut inner = inside;
        for p in entries {
            inner[p] = false;
        }
        nest(graph, &inner, loops);
    }
}

/// An is_stmt row found out of source order.
#[derive(Clone, Debug)]
pub struct OutOfOrder {
    /// Offset of the row in the function.
    pub offset: u64,
    /// Its line.
    pub line: LineKey,
    /// The loop's header lines in the reference.
    pub header: BTreeSet<LineKey>,
}

/// The is_stmt rows (`stmt_rows`: offset and line) of `graph` reached out of
/// source order relative to `loops`; `known` holds the reference
/// function's lines.
pub fn out_of_order(
    graph: &Graph,
    stmt_rows: &[(u64, LineKey)],
    loops: &[Loop],
    known: &HashSet<LineKey>,
) -> Vec<OutOfOrder> {
    let mut found: Vec<OutOfOrder> = Vec::new();
    let n = graph.pieces.len();
    for each in loops.iter().filter(|l| !l.body.is_empty()) {
        let in_loop_line = |p: usize| {
            graph.pieces[p]
                .line
                .as_ref()
                .is_some_and(|l| each.lines.contains(l))
        };
        let members: Vec<bool> = (0..n)
            .map(|p| match &graph.pieces[p].line {
                Some(line) => each.lines.contains(line) || !known.contains(line),
                None => true,
            })
            .collect();
        let mut in_loop = vec![false; n];
        for cycle in graph.cycles(&members) {
            if cycle.iter().any(|&p| in_loop_line(p)) {
                for p in cycle {
                    in_loop[p] = true;
                }
            }
        }
        // Pieces from which every path enters the loop before it leaves
        // the function (least fixpoint: a path circling outside the loop
        // forever does not enter it).
        let mut enters = vec![false; n];
        let mut changed = true;
        while changed {
            changed = false;
            for p in 0..n {
                let out = &graph.successors[p];
                if !enters[p] && !out.is_empty() && out.iter().all(|&q| in_loop[q] || enters[q]) {
                    enters[p] = true;
                    changed = true;
                }
            }
        }
        for (offset, line) in stmt_rows {
            if !each.body.contains(line) {
                continue;
            }
            let Some(piece) = graph.piece_at(*offset) else {
                continue;
            };
            if !in_loop[piece]
                && enters[piece]
                && !found.iter().any(|f| f.offset == *offset && &f.line == line)
            {
                found.push(OutOfOrder {
                    offset: *offset,
                    line: line.clone(),
                    header: each.header.clone(),
                });
            }
        }
    }
    found.sort_by_key(|f| f.offset);
    found
}
