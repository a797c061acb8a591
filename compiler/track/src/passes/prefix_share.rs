//! `prefix-share`: hash-consing of variable-free nodes inside each cluster.
//! Two nodes with the same test, window, start flag and (shared)
//! predecessors have the same state at every event, so one flip-flop serves
//! both: patterns (and expansions) with a common prefix share it. Nodes
//! that carry or read variable buffers are never shared.
//!
//! The result is renumbered in first-occurrence order, each node keeping
//! the name and source position of its first occurrence.

use crate::ir::{EngineSet, Node, NodeId, NodeTest, WindowId};
use crate::lower::EngineConfig;
use qrtl_core::pass::Pass;
use std::collections::HashMap;

pub struct PrefixShare;

impl Pass<EngineSet, EngineConfig> for PrefixShare {
    fn name(&self) -> &'static str {
        "prefix-share"
    }
    fn description(&self) -> &'static str {
        "share equal variable-free nodes (common prefixes) inside each cluster"
    }
    fn run(&self, mut set: EngineSet, _cfg: &EngineConfig) -> EngineSet {
        let old = std::mem::take(&mut set.nodes);
        let mut map = vec![NodeId(u32::MAX); old.len()];
        let mut nodes: Vec<Node> = Vec::with_capacity(old.len());
        for c in &mut set.clusters {
            let start = nodes.len();
            let mut sharer = Sharer::default();
            for i in c.nodes.clone() {
                let mut node = old[i].clone();
                node.preds = node.preds.iter().map(|p| map[p.index()]).collect();
                map[i] = match sharer.add(&mut node, nodes.len()) {
                    Some(id) => id,
                    None => {
                        nodes.push(node);
                        NodeId(nodes.len() as u32 - 1)
                    }
                };
            }
            c.nodes = start..nodes.len();
        }
        set.nodes = nodes;
        for o in &mut set.outs {
            for a in &mut o.accepts {
                *a = map[a.index()];
            }
            o.accepts.sort_unstable();
            o.accepts.dedup();
        }
        set
    }
}

/// Sharing key (variable-free nodes only): equal keys mean equal state at
/// every event.
type NodeKey = (Option<NodeTest>, Option<WindowId>, bool, Vec<NodeId>);

/// The nodes of one cluster so far, by sharing key.
#[derive(Default)]
pub(crate) struct Sharer {
    shared: HashMap<NodeKey, NodeId>,
    count: usize,
}

impl Sharer {
    /// Offer `node` (its predecessors already mapped to shared ids; they
    /// are sorted and deduplicated here) that would get id `next`:
    /// `Some(id)` of an equal node seen before, or `None` (it is new, and
    /// counted).
    pub(crate) fn add(&mut self, node: &mut Node, next: usize) -> Option<NodeId> {
        node.preds.sort_unstable();
        node.preds.dedup();
        let shareable = node.carries.is_empty()
            && !matches!(
                node.test,
                Some(NodeTest::VarFirst(_) | NodeTest::VarAgain(_))
            );
        if shareable {
            let key = (
                node.test.clone(),
                node.window,
                node.from_start,
                node.preds.clone(),
            );
            if let Some(&id) = self.shared.get(&key) {
                return Some(id);
            }
            self.shared.insert(key, NodeId(next as u32));
        }
        self.count += 1;
        None
    }

    /// Distinct nodes so far.
    pub(crate) fn count(&self) -> usize {
        self.count
    }
}
