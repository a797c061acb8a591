//! What a cluster's module is built from: the tags, attributes,
//! conditions, counters and columns its nodes and pop nodes use, read off
//! the stack IR once.

use crate::ir::stacks::ColKind;
use crate::ir::stacks::{Cluster, FlagSrc, HwNodeId, NodeLists, PopId, Read, StackDesign};
use crate::ir::xpath::{AttrId, CondId, CondKind, CounterId, TagId, Test};

/// The IR entities one cluster uses, each list sorted and without
/// duplicates.
pub(super) struct Scope {
    /// The nodes of each column.
    pub members: NodeLists,
    /// Tags with a global-stack bit.
    pub gs_tags: Vec<TagId>,
    /// Sibling counters the nodes' conditions read.
    pub counters: Vec<CounterId>,
    /// Tags the decoder recognises: tested by a node or counter, or with a
    /// global-stack bit.
    pub tags: Vec<TagId>,
    /// Open-time attribute conditions (the nodes' and the counters' guards).
    pub attr_conds: Vec<CondId>,
    /// Open-time position conditions.
    pub pos_ids: Vec<CondId>,
    /// `text()` conditions the pop nodes check.
    pub text_conds: Vec<CondId>,
    /// Attributes the attribute conditions test.
    pub attrs: Vec<AttrId>,
    /// How each node reads its predecessor.
    pub reads: Vec<Read>,
    /// Nodes whose firing sets a flag.
    pub flagged: Vec<bool>,
    /// Columns some node or pop node reads (a carry column also reads
    /// itself); the others are stored but unread (possible only with
    /// `last-column` off).
    pub read_cols: Vec<bool>,
}

impl Scope {
    pub fn of(d: &StackDesign, cl: &Cluster) -> Scope {
        let members = cl.column_members();
        let counters = cl.counters_used(&d.conds, &d.counters);
        let gs_tags = cl.gs_tags();
        let mut tags: Vec<TagId> = cl
            .nodes
            .iter()
            .map(|n| n.test)
            .chain(counters.iter().map(|c| d.counters[c.index()].test))
            .filter_map(|t| match t {
                Test::Tag(t) => Some(t),
                Test::Any => None,
            })
            .chain(gs_tags.iter().copied())
            .collect();
        tags.sort();
        tags.dedup();
        let (attr_conds, pos_ids) = open_conds(d, cl, &counters);
        let mut text_conds: Vec<CondId> = cl
            .pops
            .iter()
            .flat_map(|p| p.close_conds.iter().copied())
            .collect();
        text_conds.sort();
        text_conds.dedup();
        let mut attrs: Vec<AttrId> = attr_conds
            .iter()
            .filter_map(|c| match &d.conds[c.index()] {
                CondKind::AttrExists(a) | CondKind::AttrCmp(a, _) => Some(*a),
                _ => None,
            })
            .collect();
        attrs.sort();
        attrs.dedup();
        let reads: Vec<Read> = (0..cl.nodes.len())
            .map(|i| cl.read_of(HwNodeId(i as u32), &members))
            .collect();
        let mut flagged = vec![false; cl.nodes.len()];
        for f in &cl.flags {
            if let FlagSrc::Fire(n) = f.src {
                flagged[n.index()] = true;
            }
        }
        let mut read_cols: Vec<bool> = cl
            .columns
            .iter()
            .map(|c| c.kind == ColKind::Carry)
            .collect();
        for r in &reads {
            if let Read::Column { col, .. } = r {
                read_cols[col.index()] = true;
            }
        }
        for i in 0..cl.pops.len() {
            read_cols[cl.here_of(PopId(i as u32), &members).0.index()] = true;
        }
        Scope {
            members,
            gs_tags,
            counters,
            tags,
            attr_conds,
            pos_ids,
            text_conds,
            attrs,
            reads,
            flagged,
            read_cols,
        }
    }

    /// Node `i`'s firing is stored (a column) or reported (a flag); a root
    /// read only through the global stack is not.
    pub fn used(&self, cl: &Cluster, i: usize) -> bool {
        let n = &cl.nodes[i];
        n.exact.is_some() || n.carry.is_some() || self.flagged[i]
    }

    /// Row bit of the global-stack bit of `t`.
    pub fn gs_index(&self, t: TagId) -> usize {
        self.gs_tags.binary_search(&t).expect("gs tag")
    }
}

/// The open-time conditions: the nodes', the guards of the counters they
/// read, and the positions of those counters, in id order; split into
/// attribute conditions and positions.
fn open_conds(d: &StackDesign, cl: &Cluster, counters: &[CounterId]) -> (Vec<CondId>, Vec<CondId>) {
    let mut conds: Vec<CondId> = cl
        .nodes
        .iter()
        .flat_map(|n| n.conds.iter().copied())
        .chain(
            counters
                .iter()
                .flat_map(|c| d.counters[c.index()].guard.iter().copied()),
        )
        .collect();
    conds.sort();
    conds.dedup();
    let (pos, attr): (Vec<CondId>, Vec<CondId>) = conds
        .into_iter()
        .partition(|c| matches!(d.conds[c.index()], CondKind::Position { .. }));
    (attr, pos)
}
