//! The engine's compiled, read-only form of a [`Design`].
//!
//! * Push-stack columns of all parts are merged into one prefix tree of
//!   **push nodes** (two steps with the same parent push node, axis, name
//!   test and open-time conditions always hold the same bit), with per-tag
//!   child lists so an open event only visits candidates with its tag.
//! * Nodes of parts that are not plain paths become **twig nodes** with a
//!   pop-stack column each (ch. 3.2.2.4: one pop column per node).
//! * Conditions are indexed by (tag, attribute) so an element only
//!   evaluates the predicates that can concern it.

use crate::ir::xpath::{Axis, CmpOp, Compare, CondKind, Design, NodeId, SiblingOrder, Test, Value};
use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

pub(crate) type FxMap<K, V> = HashMap<K, V, FxBuildHasher>;

/// What makes two steps share a push column: (parent push node, `//`?,
/// tag or [`ANY_TAG`], open-time conditions).
type PushKey = (u32, bool, u32, Box<[u32]>);

/// Push node of the document node (depth 0).
pub(crate) const DOC: u32 = 0;
/// Tag key meaning "any tag" in the (tag, attribute) condition index.
pub(crate) const ANY_TAG: u32 = u32::MAX;

#[derive(Debug, Default)]
pub(crate) struct PushNode {
    /// Open-time conditions, sorted.
    pub conds: Box<[u32]>,
    /// Children by `/`, sorted by tag.
    /// Children by `//`, sorted by tag.
    pub desc_tag: Vec<(u32, u32)>,
    pub desc_any: Vec<u32>,
    /// Plain-path parts whose leaf is this node.
    pub accepts: Vec<u32>,
    /// Twig nodes whose push column this is.
    pub twigs: Vec<u32>,
}

impl PushNode {
    pub fn carries(&self) -> bool {
        !self.desc_tag.is_empty() || !self.desc_any.is_empty()
    }
}

#[derive(Debug)]
pub(crate) struct TwigNode {
    pub close_conds: Box<[u32]>,
    pub children: Box<[u32]>,
    /// For a part's root: the part it completes.
    pub root_of: Option<u32>,
    /// The previous sibling branch (ordered matching), or `u32::MAX`.
    pub prev: u32,
}

/// Conditions on one attribute name for one tag key.
#[derive(Debug, Default)]
pub(crate) struct AttrConds {
    pub exists: Vec<u32>,
    pub str_eq: FxMap<Box<[u8]>, Vec<u32>>,
    pub num_eq: FxMap<u64, Vec<u32>>,
    pub other: Vec<(u32, Compare)>,
}

impl AttrConds {
    pub fn needs_value(&self) -> bool {
        !self.str_eq.is_empty() || !self.num_eq.is_empty() || !self.other.is_empty()
    }
}

#[derive(Debug)]
pub(crate) struct Program {
    pub tag_index: FxMap<Box<[u8]>, u32>,
    pub ntags: usize,
    pub push: Vec<PushNode>,
    pub twig: Vec<TwigNode>,
    /// Per tag: the `/` edges (parent, child) whose child has that tag,
    /// sorted by parent; the last entry (index `ntags`) holds `*` children.
    /// A new row joins the parent's sorted exact set with these lists.
    pub child_edges: Vec<Vec<(u32, u32)>>,
    /// Per twig node: its push node, and its parent twig node (`u32::MAX` for roots).
    pub twig_push: Vec<u32>,
    pub twig_parent: Vec<u32>,
    /// One bit per twig node whose axis is `//` (its reports propagate down).
    pub desc_mask: Vec<u64>,
    pub twig_words: usize,
    pub conds: Vec<CondKind>,
    pub attr_index: FxMap<Box<[u8]>, u32>,
    pub attr_sets: Vec<AttrConds>,
    pub attr_set_index: FxMap<(u32, u32), u32>,
    /// Per tag: does any condition read this element's attributes?
    pub tag_wants_attrs: Vec<bool>,
    /// Per tag: counters whose test accepts it, in id order.
    pub tag_counters: Vec<Vec<u32>>,
    pub counter_guard: Vec<Box<[u32]>>,
    /// Per counter: the positional conditions reading it.
    pub counter_pos: Vec<Vec<(u32, CmpOp, f64)>>,
    pub ncounters: usize,
    /// Per part: the queries it belongs to.
    pub part_queries: Vec<Vec<u32>>,
    /// Part `i` is exactly query `i`, which has no other part.
    pub parts_are_queries: bool,
    /// Per part: its only query if that query has just this part, else `u32::MAX`.
    pub part_single_query: Vec<u32>,
    /// Per query id: number of parts (0 for ids without a query).
    pub query_nparts: Vec<u32>,
    pub longest_literal: usize,
    pub ordered: bool,
}

impl Program {
    pub fn new(design: &Design) -> Program {
        let ntags = design.tags.len();
        let mut tag_index = FxMap::default();
        for (i, name) in design.tags.0.iter().skip(1) {
            tag_index.insert(name.to_vec().into_boxed_slice(), i);
        }

        // ---- push prefix tree ----
        let mut push: Vec<PushNode> = vec![PushNode::default()];
        // `/` edges (parent, child) per child tag; index `ntags` holds `*`.
        let mut child_edges: Vec<Vec<(u32, u32)>> = vec![Vec::new(); ntags + 1];
        let mut push_key: FxMap<PushKey, u32> = FxMap::default();
        let mut node_push = vec![DOC; design.nodes.len()];
        for part in &design.parts {
            let mut stack = vec![part.root];
            while let Some(n) = stack.pop() {
                let node = design.node(n);
                let parent = node.parent.map(|p| node_push[p.index()]).unwrap_or(DOC);
                let desc = node.axis == Axis::Descendant;
                let tag = match node.test {
                    Test::Any => ANY_TAG,
                    Test::Tag(t) => t.0,
                };
                let conds: Box<[u32]> = node.open_conds.iter().map(|c| c.0).collect();
                let key = (parent, desc, tag, conds.clone());
                let id = match push_key.get(&key) {
                    Some(&id) => id,
                    None => {
                        let id = push.len() as u32;
                        push.push(PushNode {
                            conds,
                            ..PushNode::default()
                        });
                        let p = &mut push[parent as usize];
                        match (desc, tag) {
                            (false, ANY_TAG) => child_edges[ntags].push((parent, id)),
                            (false, t) => child_edges[t as usize].push((parent, id)),
                            (true, ANY_TAG) => p.desc_any.push(id),
                            (true, t) => p.desc_tag.push((t, id)),
                        }
                        push_key.insert(key, id);
                        id
                    }
                };
                node_push[n.index()] = id;
                stack.extend(node.children.iter().copied());
            }
        }
        for p in &mut push {
            p.desc_tag.sort_unstable();
        }
        for e in &mut child_edges {
            e.sort_unstable();
        }

        // ---- parts: plain paths accept at open, twigs get pop columns ----
        let mut twig: Vec<TwigNode> = Vec::new();
        let mut twig_of = vec![u32::MAX; design.nodes.len()];
        let mut desc_bits = Vec::new();
        for (pi, part) in design.parts.iter().enumerate() {
            if part.is_path(design) {
                let mut n = part.root;
                while let [c] = design.node(n).children.as_slice() {
                    n = *c;
                }
                push[node_push[n.index()] as usize].accepts.push(pi as u32);
                continue;
            }
            // Pop columns for the pop root's subtree only: the chain above
            // it is covered by its push column.
            let root = part.pop_root(design).expect("not a plain path");
            let nodes: Vec<NodeId> = design.subtree_nodes(root);
            for &n in &nodes {
                twig_of[n.index()] = twig.len() as u32;
                let node = design.node(n);
                desc_bits.push(node.axis == Axis::Descendant);
                twig.push(TwigNode {
                    close_conds: node.close_conds.iter().map(|c| c.0).collect(),
                    children: Box::new([]),
                    root_of: (n == root).then_some(pi as u32),
                    prev: u32::MAX,
                });
            }
            for &n in &nodes {
                let t = twig_of[n.index()];
                twig[t as usize].children = design
                    .node(n)
                    .children
                    .iter()
                    .map(|c| twig_of[c.index()])
                    .collect();
                for w in design.node(n).children.windows(2) {
                    twig[twig_of[w[1].index()] as usize].prev = twig_of[w[0].index()];
                }
                push[node_push[n.index()] as usize].twigs.push(t);
            }
        }
        let mut twig_push = vec![0u32; twig.len()];
        let mut twig_parent = vec![u32::MAX; twig.len()];
        for (i, node) in design.nodes.iter().enumerate() {
            let t = twig_of[i];
            if t != u32::MAX {
                twig_push[t as usize] = node_push[i];
                if let Some(par) = node.parent {
                    twig_parent[t as usize] = twig_of[par.index()];
                }
            }
        }
        let twig_words = twig.len().div_ceil(64);
        let mut desc_mask = vec![0u64; twig_words];
        for (i, d) in desc_bits.iter().enumerate() {
            if *d {
                desc_mask[i / 64] |= 1 << (i % 64);
            }
        }

        // ---- conditions ----
        let mut attr_index = FxMap::default();
        for (i, name) in design.attrs.0.iter() {
            attr_index.insert(name.to_vec().into_boxed_slice(), i);
        }
        // Which tag keys each condition concerns: the tests of the nodes using it.
        let mut cond_tags: Vec<Vec<u32>> = vec![Vec::new(); design.conds.len()];
        for node in &design.nodes {
            let tag = match node.test {
                Test::Any => ANY_TAG,
                Test::Tag(t) => t.0,
            };
            for c in &node.open_conds {
                cond_tags[c.index()].push(tag);
            }
        }
        let mut attr_sets: Vec<AttrConds> = Vec::new();
        let mut attr_set_index: FxMap<(u32, u32), u32> = FxMap::default();
        let mut tag_wants_attrs = vec![false; ntags];
        let mut longest_literal = 0;
        for (ci, cond) in design.conds.iter().enumerate() {
            let ci = ci as u32;
            if let CondKind::AttrCmp(_, cmp) | CondKind::TextCmp(cmp) = cond {
                if let Value::Str(s) = &cmp.value {
                    longest_literal = longest_literal.max(s.len());
                }
            }
            let attr = match cond {
                CondKind::AttrExists(a) | CondKind::AttrCmp(a, _) => a.0,
                _ => continue,
            };
            let mut tags = cond_tags[ci as usize].clone();
            tags.sort_unstable();
            tags.dedup();
            for tag in tags {
                if tag == ANY_TAG {
                    tag_wants_attrs.iter_mut().for_each(|w| *w = true);
                } else {
                    tag_wants_attrs[tag as usize] = true;
                }
                let set = *attr_set_index.entry((tag, attr)).or_insert_with(|| {
                    attr_sets.push(AttrConds::default());
                    (attr_sets.len() - 1) as u32
                });
                let set = &mut attr_sets[set as usize];
                match cond {
                    CondKind::AttrExists(_) => set.exists.push(ci),
                    CondKind::AttrCmp(_, cmp) => match (&cmp.value, cmp.op) {
                        (Value::Str(s), CmpOp::Eq) => {
                            set.str_eq.entry(s.clone()).or_default().push(ci)
                        }
                        (Value::Num(b), CmpOp::Eq) if !f64::from_bits(*b).is_nan() => {
                            set.num_eq.entry(*b).or_default().push(ci)
                        }
                        _ => set.other.push((ci, cmp.clone())),
                    },
                    _ => unreachable!("filtered above"),
                }
            }
        }

        // ---- counters ----
        let ncounters = design.counters.len();
        let mut tag_counters = vec![Vec::new(); ntags];
        let mut counter_guard = Vec::with_capacity(ncounters);
        for (k, c) in design.counters.iter().enumerate() {
            match c.test {
                Test::Any => tag_counters.iter_mut().for_each(|v| v.push(k as u32)),
                Test::Tag(t) => tag_counters[t.index()].push(k as u32),
            }
            counter_guard.push(c.guard.iter().map(|g| g.0).collect::<Box<[u32]>>());
            // A counter's guard may read attributes of the counted elements.
            if c.guard.iter().any(|g| {
                matches!(
                    design.cond(*g),
                    CondKind::AttrExists(_) | CondKind::AttrCmp(..)
                )
            }) {
                match c.test {
                    Test::Any => tag_wants_attrs.iter_mut().for_each(|w| *w = true),
                    Test::Tag(t) => tag_wants_attrs[t.index()] = true,
                }
            }
        }
        let mut counter_pos = vec![Vec::new(); ncounters];
        for (ci, cond) in design.conds.iter().enumerate() {
            if let CondKind::Position { counter, op, value } = cond {
                counter_pos[counter.index()].push((ci as u32, *op, f64::from_bits(*value)));
            }
        }

        // ---- queries ----
        let nq = design
            .queries
            .iter()
            .map(|q| q.id.0 as usize + 1)
            .max()
            .unwrap_or(0);
        let mut query_nparts = vec![0u32; nq];
        for q in &design.queries {
            query_nparts[q.id.index()] = q.parts.len() as u32;
        }
        let part_queries: Vec<Vec<u32>> = design
            .parts
            .iter()
            .map(|p| p.queries.iter().map(|q| q.0).collect())
            .collect();
        let parts_are_queries = part_queries.len() == query_nparts.len()
            && part_queries
                .iter()
                .enumerate()
                .all(|(i, qs)| qs.as_slice() == [i as u32])
            && query_nparts.iter().all(|&n| n == 1);
        let part_single_query = part_queries
            .iter()
            .map(|qs| match qs.as_slice() {
                [q] if query_nparts[*q as usize] == 1 => *q,
                _ => u32::MAX,
            })
            .collect();

        Program {
            tag_index,
            ntags,
            push,
            twig,
            child_edges,
            twig_push,
            twig_parent,
            desc_mask,
            twig_words,
            conds: design.conds.clone(),
            attr_index,
            attr_sets,
            attr_set_index,
            tag_wants_attrs,
            tag_counters,
            counter_guard,
            counter_pos,
            ncounters,
            part_queries,
            parts_are_queries,
            part_single_query,
            query_nparts,
            longest_literal,
            ordered: design.order == SiblingOrder::Ordered,
        }
    }

    #[inline]
    pub fn decode_tag(&self, name: &[u8]) -> u32 {
        self.tag_index.get(name).copied().unwrap_or(0)
    }

    /// Children by `/` with edges in `edges` (sorted by parent) of the nodes
    /// in `exact` (sorted): a merge join, or binary searches when `exact`
    /// is much smaller than the edge list.
    pub fn join_children(exact: &[u32], edges: &[(u32, u32)], mut out: impl FnMut(u32)) {
        if edges.is_empty() || exact.is_empty() {
            return;
        }
        if exact.len() * 16 < edges.len() {
            for &n in exact {
                let start = edges.partition_point(|&(p, _)| p < n);
                for &(p, c) in &edges[start..] {
                    if p != n {
                        break;
                    }
                    out(c);
                }
            }
            return;
        }
        let (mut i, mut j) = (0, 0);
        while i < exact.len() && j < edges.len() {
            let (p, c) = edges[j];
            match exact[i].cmp(&p) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    out(c);
                    j += 1;
                }
            }
        }
    }

    /// Children of `p` reachable by an element with tag `t`, over `/`.
    #[inline]
    pub fn kids<'a>(list: &'a [(u32, u32)], t: u32) -> impl Iterator<Item = u32> + 'a {
        let start = list.partition_point(|&(tag, _)| tag < t);
        list[start..]
            .iter()
            .take_while(move |&&(tag, _)| tag == t)
            .map(|&(_, n)| n)
    }
}
