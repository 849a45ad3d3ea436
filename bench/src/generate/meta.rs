//! The module's numbered metadata (`!N = ...`).
//!
//! In: node texts, either uniqued (the same text gives the same node, as LLVM
//! uniques non-distinct nodes) or fresh (`distinct` nodes, or nodes filled in
//! later because they name nodes made after them). Out: the `!N = ...` lines
//! in number order. Promise: numbers are handed out in first-request order, so
//! the same sequence of requests always prints the same text.

use std::collections::HashMap;
use std::fmt;

/// A reference to a numbered metadata node; prints as `!N`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Md(usize);

impl fmt::Display for Md {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "!{}", self.0)
    }
}

/// All numbered metadata nodes of one module.
#[derive(Debug, Default)]
pub struct MetadataTable {
    nodes: Vec<Option<String>>,
    uniqued: HashMap<String, Md>,
}

impl MetadataTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new node number whose text is given later with [`MetadataTable::set`].
    pub fn reserve(&mut self) -> Md {
        self.nodes.push(None);
        Md(self.nodes.len() - 1)
    }

    /// Gives a reserved node its text.
    pub fn set(&mut self, node: Md, text: String) {
        assert!(self.nodes[node.0].is_none(), "metadata {node} set twice");
        self.nodes[node.0] = Some(text);
    }

    /// A new node with `text` (for `distinct` nodes, which are never shared).
    pub fn fresh(&mut self, text: String) -> Md {
        let node = self.reserve();
        self.set(node, text);
        node
    }

    /// The node with exactly `text`, made on first request and shared afterwards.
    pub fn intern(&mut self, text: String) -> Md {
        if let Some(&node) = self.uniqued.get(&text) {
            return node;
        }
        let node = self.fresh(text.clone());
        self.uniqued.insert(text, node);
        node
    }

    /// Appends `!N = text` lines in number order. Panics on a reserved node never set.
    pub fn print(&self, out: &mut String) {
        for (number, text) in self.nodes.iter().enumerate() {
            let text = text
                .as_ref()
                .unwrap_or_else(|| panic!("metadata !{number} reserved but never set"));
            out.push_str(&format!("!{number} = {text}\n"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniques_equal_texts_and_numbers_in_request_order() {
        let mut table = MetadataTable::new();
        let cu = table.reserve();
        let int = table.intern("!DIBasicType(name: \"int\")".into());
        let again = table.intern("!DIBasicType(name: \"int\")".into());
        let loop_id = table.reserve();
        table.set(loop_id, format!("distinct !{{{loop_id}}}"));
        table.set(cu, "distinct !DICompileUnit()".into());
        assert_eq!(int, again);
        let mut out = String::new();
        table.print(&mut out);
        assert_eq!(
            out,
            "!0 = distinct !DICompileUnit()\n!1 = !DIBasicType(name: \"int\")\n!2 = distinct !{!2}\n"
        );
    }
}
