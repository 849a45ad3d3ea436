//! Source order projected from debug records, for IR someone else
//! optimised (clang -O2).
//!
//! In: one function of a compile unit with `isOptimized: true`, as read.
//! Its instructions' order is the optimiser's, but its debug records
//! (`#dbg_value`, `#dbg_assign`, `#dbg_label`) sit where the assignments
//! and labels happened in source order, and each record names a variable
//! (or label) whose own `line:` and `scope:` are exact, even where the
//! record's `!dbg` is line 0 or the declaration line.
//! Out: the input positions (`pos`) of the instructions whose line belongs
//! to a statement that source order runs *before* the point where they now
//! sit (code sunk past later statements, into a branch or past a loop).
//!
//! The rule. A record of a variable declared at line L in scope S says
//! that the source position has passed line L in S: a C declaration comes
//! before every use in its scope, so later code of S (and of the scopes
//! inside it) is at line L or below it only after a jump back (a loop, a
//! `goto`). So, per block, in reverse post-order over the forward edges
//! (a loop's back edges and other retreating edges do not count):
//! - the position entering a block is, per (scope, inlined-at), the lowest
//!   of its forward predecessors' positions, and only for scopes all of
//!   them have passed;
//! - a record with a location (not `undef`/`poison`, so not a lifetime
//!   marker) raises its scope's position to its line and forgets the
//!   positions of the scopes inside that one: an assignment to an outer
//!   variable (a loop's `i++`) may be the jump back into a nested scope
//!   (an unrolled body's next copy). A label's record, and a parameter's,
//!   sets the position to its line instead: a label is a jump target,
//!   where the source is whatever jumped there, and a parameter assigned
//!   again is where a tail call became a loop;
//! - an instruction with a line M is *out of order* when its scope, or a
//!   scope around it in the same inlined instance and file, has passed a
//!   line above M: its statement ran before that declaration did.
//!   It keeps its line (an address in it still names the statement) and
//!   `source_order::project` takes its is_stmt away.
//!
//! Phis and instructions without a line are never judged; nor are
//! declares (`#dbg_declare` sits with its alloca in the entry block, far
//! from the declaration).

use crate::ir::hash::{FxHashMap, FxHashSet};

use crate::codegen::line_table::scope_file;
use crate::ir::{cfg, DebugInfo, Function, InstKind, LocId, MdId, MdNode, RecordKind};

/// A scope of one inlined instance (`None`: the function's own code).
type ScopeKey = (MdId, Option<LocId>);

/// Per scope, the highest declaration line the source position has passed.
type Position = FxHashMap<ScopeKey, u32>;

/// The `pos` (line, column) of every instruction of `function` whose line
/// source order runs before the place it sits (see the module rule).
pub fn sunk_instructions(function: &Function, debug: &DebugInfo) -> FxHashSet<(u32, u32)> {
    let mut found = FxHashSet::default();
    let order = cfg::reverse_post_order(function);
    let mut rank = vec![usize::MAX; function.blocks.len()];
    for (i, b) in order.iter().enumerate() {
        rank[b.0 as usize] = i;
    }
    let preds = cfg::predecessors(function);
    let mut exits: Vec<Option<Position>> = vec![None; function.blocks.len()];
    for &block in &order {
        let b = block.0 as usize;
        let mut position = entry_position(&preds[b], &rank, rank[b], &exits);
        for &id in &function.blocks[b].insts {
            let inst = function.inst(id);
            for record in &inst.records {
                if let Some(record) = record_position(record, debug) {
                    passed(&mut position, record, debug);
                }
            }
            if matches!(inst.kind, InstKind::Phi { .. }) || inst.pos.line == 0 {
                continue;
            }
            if let Some(loc) = inst.dbg {
                if ran_before(&position, loc, debug) {
                    found.insert((inst.pos.line, inst.pos.col));
                }
            }
        }
        exits[b] = Some(position);
    }
    found
}

/// The position entering a block: the meet of its forward predecessors'
/// exits (a scope all of them passed, at the lowest line).
fn entry_position(
    preds: &[crate::ir::BlockId],
    rank: &[usize],
    own_rank: usize,
    exits: &[Option<Position>],
) -> Position {
    let mut forward = preds
        .iter()
        .filter(|p| rank[p.0 as usize] < own_rank)
        .filter_map(|p| exits[p.0 as usize].as_ref());
    let Some(first) = forward.next() else {
        return Position::default();
    };
    let mut position = first.clone();
    for other in forward {
        position.retain(|key, line| match other.get(key) {
            Some(&l) => {
                *line = (*line).min(l);
                true
            }
            None => false,
        });
    }
    position
}

/// What a record says of the source position.
#[derive(Clone, Copy)]
struct RecordPosition {
    /// The scope of its variable or label.
    scope: ScopeKey,
    /// The declaration's line.
    line: u32,
    /// The position is exactly `line`, not at least it: a label (a jump
    /// target) or a parameter (assigned again where a tail call became a
    /// loop, the function starts over).
    exact: bool,
}

/// The scope and line a record says the source has reached, if any.
fn record_position(record: &crate::ir::DebugRecord, debug: &DebugInfo) -> Option<RecordPosition> {
    let inlined_at = debug.location(record.loc).inlined_at;
    let (scope, line, exact) = match record.kind {
        RecordKind::Value | RecordKind::Assign => {
            if record.locations.is_empty()
                || record.locations.iter().any(|v| v.is_undef_or_poison())
            {
                return None;
            }
            let variable = debug.variable(record.variable)?;
            (variable.scope, variable.line, variable.arg.is_some())
        }
        RecordKind::Label => match debug.node(record.variable) {
            MdNode::Label(label) => (label.scope, label.line, true),
            _ => return None,
        },
        RecordKind::Declare => return None,
    };
    (line != 0).then_some(RecordPosition {
        scope: (scope, inlined_at),
        line,
        exact,
    })
}

/// Moves `key`'s position to `line` (see the rule) and forgets the scopes
/// inside it.
fn passed(position: &mut Position, record: RecordPosition, debug: &DebugInfo) {
    let key = record.scope;
    position.retain(|&(scope, inlined_at), _| {
        inlined_at != key.1 || scope == key.0 || !encloses(debug, key.0, scope)
    });
    let at = position.entry(key).or_insert(record.line);
    *at = if record.exact {
        record.line
    } else {
        (*at).max(record.line)
    };
}

/// Whether `outer` is `inner` or a scope around it.
fn encloses(debug: &DebugInfo, outer: MdId, inner: MdId) -> bool {
    let mut scope = Some(inner);
    // Scopes form a tree; the bound guards against a malformed cycle.
    for _ in 0..=debug.nodes.len() {
        match scope {
            Some(s) if s == outer => return true,
            Some(s) => scope = debug.parent_scope(s),
            None => return false,
        }
    }
    false
}

/// Whether the statement at `loc` ran before `position` (see the rule).
fn ran_before(position: &Position, loc: LocId, debug: &DebugInfo) -> bool {
    let location = debug.location(loc);
    if location.line == 0 || position.is_empty() {
        return false;
    }
    let file = scope_file(debug, location.scope);
    let mut scope = Some(location.scope);
    // Scopes form a tree; the bound guards against a malformed cycle.
    for _ in 0..=debug.nodes.len() {
        let Some(s) = scope else {
            return false;
        };
        if position
            .get(&(s, location.inlined_at))
            .is_some_and(|&line| line > location.line)
            && scope_file(debug, s) == file
        {
            return true;
        }
        scope = debug.parent_scope(s);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_module;

    /// Per function with sunk code, the source lines of its sunk
    /// instructions, in block order.
    fn sunk_lines(text: &str) -> Vec<(String, Vec<u32>)> {
        let module = parse_module(text, "test.ll").unwrap();
        let mut out = Vec::new();
        for function in module.functions.iter().filter(|f| !f.is_declaration()) {
            let sunk = sunk_instructions(function, &module.debug);
            let lines: Vec<u32> = function
                .blocks
                .iter()
                .flat_map(|b| &b.insts)
                .map(|&id| function.inst(id))
                .filter(|inst| sunk.contains(&(inst.pos.line, inst.pos.col)))
                .map(|inst| module.debug.location(inst.dbg.unwrap()).line)
                .collect();
            if !lines.is_empty() {
                out.push((function.name.clone(), lines));
            }
        }
        out
    }

    #[test]
    fn code_sunk_below_a_later_declaration_is_found() {
        // `a * b + 7` (line 3) below the loop that follows `int s` (4);
        // `x / y` (line 12) in the else branch, after `int w` (13).
        let text = include_str!("../../fixtures/lines/sunk.O2.ll");
        assert_eq!(
            sunk_lines(text),
            [
                ("scaled_sum".to_string(), vec![3, 3]),
                ("quotient_or_rest".to_string(), vec![12]),
            ]
        );
    }

    #[test]
    fn a_parameter_assigned_again_starts_the_function_over() {
        // fib and gcd: a tail call made a loop, whose block assigns the
        // parameters again after `int a`/`unsigned r` and then runs the
        // `if` of the function's first line: the next call, not sunk code.
        let text = include_str!("../../fixtures/ll/recursion.O2.ll");
        assert_eq!(sunk_lines(text), []);
    }
}
