//! The scope tree of one compiled function, built from where its machine
//! instructions came from.
//!
//! In: every instruction's byte range and its scope path (the scopes from the
//! function's outermost scope down to the instruction's innermost one, e.g.
//! `[inlined call of clamp, lexical block in clamp]`).
//! Out: a tree whose root is the function and whose every node carries the
//! sorted, disjoint, merged byte ranges of the instructions inside it.
//! Promise: a child's ranges lie inside its parent's; children keep the order
//! in which their first instruction appears.

use crate::ir::hash::FxHashMap;
use std::hash::Hash;

/// Index of a node in a [`ScopeTree`]; the root is node 0.
pub type NodeId = usize;

/// One scope of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeNode<K> {
    /// The scope's key; `None` for the root (the function itself).
    pub key: Option<K>,
    /// Nested scopes, in order of first appearance.
    pub children: Vec<NodeId>,
    /// Byte ranges (function offsets, half open), sorted and merged.
    pub ranges: Vec<(u64, u64)>,
}

/// The scopes of one function.
#[derive(Clone, Debug)]
pub struct ScopeTree<K> {
    /// All nodes; node 0 is the root.
    pub nodes: Vec<ScopeNode<K>>,
    index: FxHashMap<Vec<K>, NodeId>,
}

impl<K: Clone + Eq + Hash> ScopeTree<K> {
    /// Builds the tree from `(start, end, path)` per instruction, in address order.
    pub fn build<'a>(instructions: impl IntoIterator<Item = (u64, u64, &'a [K])>) -> Self
    where
        K: 'a,
    {
        let mut tree = ScopeTree {
            nodes: vec![ScopeNode {
                key: None,
                children: Vec::new(),
                ranges: Vec::new(),
            }],
            index: FxHashMap::default(),
        };
        // The previous instruction's path and its nodes: consecutive
        // instructions mostly share their scopes, found again without a
        // lookup.
        let mut previous: &[K] = &[];
        let mut previous_nodes: Vec<NodeId> = Vec::new();
        for (start, end, path) in instructions {
            add_range(&mut tree.nodes[0].ranges, start, end);
            let shared = path
                .iter()
                .zip(previous)
                .take_while(|(a, b)| a == b)
                .count();
            previous_nodes.truncate(shared);
            for depth in shared..path.len() {
                let parent = depth.checked_sub(1).map_or(0, |d| previous_nodes[d]);
                previous_nodes.push(tree.node_for(&path[..=depth], parent));
            }
            for &node in &previous_nodes {
                add_range(&mut tree.nodes[node].ranges, start, end);
            }
            previous = path;
        }
        tree
    }

    /// The node for a scope path, if any instruction was in that scope.
    pub fn find(&self, path: &[K]) -> Option<NodeId> {
        if path.is_empty() {
            return Some(0);
        }
        self.index.get(path).copied()
    }

    fn node_for(&mut self, path: &[K], parent: NodeId) -> NodeId {
        if let Some(&node) = self.index.get(path) {
            return node;
        }
        let node = self.nodes.len();
        self.nodes.push(ScopeNode {
            key: Some(path[path.len() - 1].clone()),
            children: Vec::new(),
            ranges: Vec::new(),
        });
        self.nodes[parent].children.push(node);
        self.index.insert(path.to_vec(), node);
        node
    }
}

/// Adds `[start, end)` to sorted disjoint `ranges`, merging what touches.
fn add_range(ranges: &mut Vec<(u64, u64)>, start: u64, end: u64) {
    if start >= end {
        return;
    }
    if let Some(last) = ranges.last_mut() {
        if start >= last.0 && start <= last.1 {
            last.1 = last.1.max(end);
            return;
        }
    }
    // Past every range (instructions come in address order): no merge.
    if ranges.last().is_none_or(|last| start > last.1) {
        ranges.push((start, end));
        return;
    }
    ranges.push((start, end));
    ranges.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for &(s, e) in ranges.iter() {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    *ranges = merged;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_scopes_get_merged_ranges_and_keep_first_appearance_order() {
        let instructions: Vec<(u64, u64, Vec<&str>)> = vec![
            (0, 4, vec![]),
            (4, 8, vec!["inline clamp"]),
            (8, 12, vec!["inline clamp", "block"]),
            (12, 16, vec!["inline square"]),
            (16, 20, vec!["inline clamp"]),
            (20, 24, vec![]),
        ];
        let tree = ScopeTree::build(instructions.iter().map(|(s, e, p)| (*s, *e, p.as_slice())));
        assert_eq!(tree.nodes[0].ranges, vec![(0, 24)]);
        let clamp = tree.find(&["inline clamp"]).unwrap();
        let square = tree.find(&["inline square"]).unwrap();
        let block = tree.find(&["inline clamp", "block"]).unwrap();
        assert_eq!(tree.nodes[0].children, vec![clamp, square]);
        assert_eq!(tree.nodes[clamp].ranges, vec![(4, 12), (16, 20)]);
        assert_eq!(tree.nodes[clamp].children, vec![block]);
        assert_eq!(tree.nodes[block].ranges, vec![(8, 12)]);
        assert_eq!(tree.nodes[square].ranges, vec![(12, 16)]);
        assert_eq!(tree.find(&["block"]), None);
    }
}
