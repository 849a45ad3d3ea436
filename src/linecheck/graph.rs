//! A function's control-flow graph cut at line rows.
//!
//! In: a function's code (decoded with iced-x86), its relocations, the
//! jump-table targets that point into it, and the line rows at its
//! addresses. Out: [`Graph`], whose nodes are *pieces*: maximal runs of
//! instructions that start at the function entry, a branch target, a jump
//! table target, the instruction after a branch or return, or a line row,
//! so that one row is in effect over each piece.
//!
//! Rule for edges: a piece's last instruction decides them: fall through
//! to the next piece, jump, branch (both), return/trap/tail call (none),
//! indirect jump (every jump-table target of the function; when the object
//! names none, every piece nothing else leads to). Calls return.

use std::collections::{BTreeSet, HashMap};

use dwarfsmith_emit::read::RawLineRow;

use crate::x86::disasm::{decode_flow, DecodedInstruction, Flow};

/// A line as two objects of the same source can share it: the file's base
/// name and the line number.
pub type LineKey = (String, u64);

/// The key of a row (None for line 0: no source line).
pub fn line_key(row: &RawLineRow) -> Option<LineKey> {
    if row.line == 0 {
        return None;
    }
    let file = row.file_name.as_deref().unwrap_or("?");
    let base = file.rsplit('/').next().unwrap_or(file);
    Some((base.to_string(), row.line))
}

/// One node of the graph.
#[derive(Clone, Debug)]
pub struct Piece {
    /// Offset of its first instruction in the function.
    pub start: u64,
    /// Offset just past its last instruction.
    pub end: u64,
    /// The line of the row in effect at its start.
    pub line: Option<LineKey>,
    /// Its last instruction falls through (no branch ends it).
    pub falls_through: bool,
}

/// A function's pieces and edges.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Pieces in address order; piece 0 is the entry.
    pub pieces: Vec<Piece>,
    /// Successors of each piece.
    pub successors: Vec<Vec<usize>>,
    /// Predecessors of each piece.
    pub predecessors: Vec<Vec<usize>>,
    /// The decoded instructions.
    pub instructions: Vec<DecodedInstruction>,
}

impl Graph {
    /// Builds the graph of `code`. `rows` are the function's rows (offsets
    /// into it, table order), `relocations` the offsets of relocated fields
    /// in the code, `table_targets` the offsets jump tables name.
    pub fn build(
        code: &[u8],
        relocations: &[u64],
        table_targets: &BTreeSet<u64>,
        rows: &[(u64, &RawLineRow)],
    ) -> Graph {
        let relocated = |start: u64, end: u64| relocations.iter().any(|&r| r >= start && r < end);
        let instructions = decode_flow(code, &relocated);
        let size = code.len() as u64;
        let starts: BTreeSet<u64> = instructions.iter().map(|i| i.offset).collect();
        let mut boundaries: BTreeSet<u64> = BTreeSet::new();
        boundaries.insert(0);
        for instruction in &instructions {
            let next = instruction.offset + instruction.length;
            match instruction.flow {
                Flow::Next => {}
                Flow::Jump(target) | Flow::Branch(target) => {
                    boundaries.insert(target);
                    boundaries.insert(next);
                }
                Flow::Indirect | Flow::Leave => {
                    boundaries.insert(next);
                }
            }
        }
        boundaries.extend(table_targets.iter().copied());
        boundaries.extend(rows.iter().map(|(offset, _)| *offset));
        let cuts: Vec<u64> = boundaries
            .into_iter()
            .filter(|b| *b < size && starts.contains(b))
            .collect();
        let mut sorted_rows: Vec<(u64, &RawLineRow)> = rows.to_vec();
        sorted_rows.sort_by_key(|(offset, _)| *offset);
        let mut pieces = Vec::with_capacity(cuts.len());
        let mut last_instruction = Vec::with_capacity(cuts.len());
        for (index, &start) in cuts.iter().enumerate() {
            let end = cuts.get(index + 1).copied().unwrap_or(size);
            let last = instructions
                .iter()
                .rposition(|i| i.offset >= start && i.offset < end)
                .unwrap_or(0);
            let line = sorted_rows
                .iter()
                .rev()
                .find(|(offset, _)| *offset <= start)
                .and_then(|(_, row)| line_key(row));
            let falls_through = instructions.get(last).map(|i| i.flow) == Some(Flow::Next);
            pieces.push(Piece {
                start,
                end,
                line,
                falls_through,
            });
            last_instruction.push(last);
        }
        if pieces.is_empty() {
            // No code (a symbol of size 0): no piece, no edge.
            return Graph {
                instructions,
                ..Graph::default()
            };
        }
        let at: HashMap<u64, usize> = pieces
            .iter()
            .enumerate()
            .map(|(i, p)| (p.start, i))
            .collect();
        let mut successors = vec![Vec::new(); pieces.len()];
        let mut indirect = Vec::new();
        for (index, piece) in pieces.iter().enumerate() {
            let Some(instruction) = instructions.get(last_instruction[index]) else {
                continue;
            };
            let next = (piece.end < size)
                .then(|| at.get(&piece.end).copied())
                .flatten();
            let out = &mut successors[index];
            match instruction.flow {
                Flow::Next => out.extend(next),
                Flow::Jump(target) => out.extend(at.get(&target).copied()),
                Flow::Branch(target) => {
                    out.extend(at.get(&target).copied());
                    out.extend(next);
                }
                Flow::Indirect => indirect.push(index),
                Flow::Leave => {}
            }
        }
        let targets: Vec<usize> = if table_targets.is_empty() {
            let mut led = vec![false; pieces.len()];
            led[0] = true;
            for out in &successors {
                for &s in out {
                    led[s] = true;
                }
            }
            (0..pieces.len()).filter(|&p| !led[p]).collect()
        } else {
            table_targets
                .iter()
                .filter_map(|t| at.get(t).copied())
                .collect()
        };
        for index in indirect {
            successors[index].extend(targets.iter().copied());
        }
        let mut predecessors = vec![Vec::new(); pieces.len()];
        for (from, out) in successors.iter_mut().enumerate() {
            out.sort_unstable();
            out.dedup();
            for &to in out.iter() {
                predecessors[to].push(from);
            }
        }
        Graph {
            pieces,
            successors,
            predecessors,
            instructions,
        }
    }

    /// The piece containing `offset`.
    pub fn piece_at(&self, offset: u64) -> Option<usize> {
        let index = self.pieces.partition_point(|p| p.start <= offset);
        let piece = index.checked_sub(1)?;
        (offset < self.pieces[piece].end).then_some(piece)
    }

    /// Strongly connected components of the subgraph of `members` that
    /// hold a cycle (more than one piece, or a piece leading to itself).
    pub fn cycles(&self, members: &[bool]) -> Vec<Vec<usize>> {
        // Kosaraju: finish order on the graph, then components on its reverse.
        let n = self.pieces.len();
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        for root in (0..n).filter(|&p| members[p]) {
            if seen[root] {
                continue;
            }
            seen[root] = true;
            let mut stack = vec![(root, 0usize)];
            while let Some((node, child)) = stack.pop() {
                let out = &self.successors[node];
                if let Some(&next) = out[child..].iter().find(|&&s| members[s] && !seen[s]) {
                    let at = out.iter().position(|&s| s == next).unwrap_or(out.len());
                    stack.push((node, at + 1));
                    seen[next] = true;
                    stack.push((next, 0));
                } else {
                    order.push(node);
                }
            }
        }
        let mut component = vec![usize::MAX; n];
        let mut result = Vec::new();
        for &root in order.iter().rev() {
            if component[root] != usize::MAX {
                continue;
            }
            let id = result.len();
            component[root] = id;
            let mut members_of = vec![root];
            let mut stack = vec![root];
            while let Some(node) = stack.pop() {
                for &p in &self.predecessors[node] {
                    if members[p] && component[p] == usize::MAX {
                        component[p] = id;
                        members_of.push(p);
                        stack.push(p);
                    }
                }
            }
            result.push(members_of);
        }
        result
            .into_iter()
            .filter(|c| c.len() > 1 || self.successors[c[0]].contains(&c[0]))
            .map(|mut c| {
                c.sort_unstable();
                c
            })
            .collect()
    }
}
