//! The stack IR: the path-specific-stack hardware of ch. 2.5 as data. This
//! is what the XPath RTL is emitted from and what `refmodel::stacks` runs.
//!
//! A design is a list of **clusters** (ch. 2.5.4). Each cluster has its own
//! tag decoder, attribute decoder and one stack memory: every row holds the
//! cluster's global-stack bits (the one-hot tag of the element at that level,
//! for the tags some node reads) and its **columns** (1-bit stacks sharing
//! the one stack pointer). **Nodes** are query steps; a node *fires* when an
//! element opens whose tag passes its test, whose attributes satisfy its
//! conditions, and whose parent row says its predecessor matched:
//!
//! * no parent: `/`-rooted nodes fire at depth 1, `//`-rooted at any depth;
//! * parent `p` read through the global stack (`p.via_gs`, a condition-free
//!   root without a column, ch. 2.5.2.2 optimisation 2): the element's depth
//!   is 2 (or ≥ 2 for a `//` root) and the parent's tag bit is set;
//! * `/` axis: `p`'s **exact** column at the top of stack ("p fired at the
//!   parent element"), AND the global-stack bit of `p`'s tag when the column
//!   is shared by several nodes (compaction, Algorithms 1–2: nodes in one
//!   exact column have distinct tags, so the parent's tag tells which fired);
//! * `//` axis: `p`'s **carry** column ("p fired at the parent or above";
//!   the column ORs its own top of stack back in, Fig. 2.7(b)).
//!
//! Open-time conditions are attribute tests and positions: a position reads
//! a **sibling counter** kept in the parent's row (ch. 3.4.1's per-level
//! counters), counting the children that pass the counter's test and guard.
//!
//! **Pop nodes** (ch. 3.2.2) check twigs and `text()` predicates when an
//! element closes. A pop node is *fully matched* at a closing element when
//! its push node fired there ("here": the push node's exact column), each
//! child pop node reported into this element's row and the element's
//! `text()` conditions hold; it then reports into the parent's row
//! (recurrence (a)–(c)), and a `//` pop node's reports also travel up one
//! level per close (recurrence (d)). With `--ordered` a report is accepted
//! only if the previous sibling's report was accepted from an earlier child
//! subtree (ch. 3.4.2). Rows therefore also hold *mutable* bits: counters,
//! `text()` results, reports (and accepted reports).
//!
//! A **flag** is a sticky per-document bit set when its node fires (a path
//! part) or its pop node is fully matched (a part's pop root); a query
//! matches iff all of its flags are set (one flag per query in holistic
//! mode; one per part for `--mode paths|pairs`, joined on chip).

use super::xpath::{
    AttrDict, Axis, CondId, CondKind, Counter, CounterId, QueryId, SiblingOrder, TagDict, TagId,
    Test,
};
use std::fmt;

qrtl_core::id_type!(
    /// Index into [`Cluster::nodes`].
    HwNodeId
);
qrtl_core::id_type!(
    /// Index into [`Cluster::columns`].
    ColId
);
qrtl_core::id_type!(
    /// Index into [`Cluster::flags`].
    FlagId
);
qrtl_core::id_type!(
    /// Index into [`Cluster::pops`].
    PopId
);

/// Where a node came from: a step of a query (for names and RTL comments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepOrigin {
    pub query: QueryId,
    /// 1-based line in the query file.
    pub line: usize,
    /// 1-based step number within the query's path.
    pub step: usize,
}

#[derive(Clone, Debug)]
pub struct HwNode {
    pub parent: Option<HwNodeId>,
    pub axis: Axis,
    pub test: Test,
    /// Open-time conditions (attribute tests, positions), sorted.
    pub conds: Vec<CondId>,
    /// Column holding "fired at this element" (read by `/` children).
    pub exact: Option<ColId>,
    /// Column holding "fired at this element or an ancestor" (read by `//`
    /// children).
    pub carry: Option<ColId>,
    /// A condition-free root whose `/` children read the global stack.
    pub via_gs: bool,
    /// Every query step merged into this node (first is the name source).
    pub origins: Vec<StepOrigin>,
    /// Chosen by the naming pass.
    pub name: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColKind {
    Exact,
    Carry,
}

#[derive(Clone, Debug)]
pub struct Column {
    pub kind: ColKind,
    pub name: String,
}

/// A twig node checked when an element closes (see the module docs).
#[derive(Clone, Debug)]
pub struct PopNode {
    /// The push node that must have fired at the closing element.
    pub push: HwNodeId,
    /// Relation to the element it reports to: `/` reports go to the parent
    /// row only; `//` reports also travel further up.
    pub axis: Axis,
    /// `text()` conditions of the closing element, sorted.
    pub close_conds: Vec<CondId>,
    /// Must all have reported into the closing element's row (earlier in
    /// the arena).
    pub children: Vec<PopId>,
    /// `--ordered`: the sibling whose accepted report must come first.
    pub prev: Option<PopId>,
    /// Chosen by the naming pass.
    pub name: String,
}

/// What sets a flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlagSrc {
    /// The node fires (a path part's last node).
    Fire(HwNodeId),
    /// The pop node is fully matched (a twig part's pop root).
    Pop(PopId),
}

/// A sticky per-document match bit.
#[derive(Clone, Debug)]
pub struct Flag {
    pub src: FlagSrc,
    pub name: String,
}

#[derive(Clone, Debug, Default)]
pub struct Cluster {
    pub nodes: Vec<HwNode>,
    pub columns: Vec<Column>,
    /// Children before parents, `prev` before its successor.
    pub pops: Vec<PopNode>,
    pub flags: Vec<Flag>,
    pub name: String,
}

#[derive(Clone, Debug)]
pub struct HwQuery {
    pub id: QueryId,
    pub line: usize,
    pub text: String,
    pub cluster: usize,
    /// The query matches iff all these flags (of its cluster) are set.
    pub flags: Vec<FlagId>,
}

/// How a node reads its predecessor (derived from the columns; see the
/// module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Root at depth 1 (`/`) or anywhere (`//`).
    Doc(Axis),
    /// Parent is a root read via the global stack: depth 2 (root `/`) or
    /// ≥ 2 (root `//`), and the parent's tag bit (none for `*`).
    Gs { root_axis: Axis, tag: Option<TagId> },
    /// A column at the top of stack, checked with the parent's global-stack
    /// tag bit when the column is shared.
    Column { col: ColId, gs: Option<TagId> },
}

#[derive(Clone, Debug)]
pub struct StackDesign {
    pub tags: TagDict,
    pub attrs: AttrDict,
    /// Indexed by the XPath IR's `CondId`: nodes reference open-time
    /// conditions, pop nodes `text()` conditions.
    pub conds: Vec<CondKind>,
    /// Indexed by the XPath IR's `CounterId` (positions and their guards).
    pub counters: Vec<Counter>,
    pub order: SiblingOrder,
    pub max_depth: u32,
    pub clusters: Vec<Cluster>,
    /// In query-id order.
    pub queries: Vec<HwQuery>,
}

/// Lists of nodes indexed by node or column (children, column members),
/// in node order within each list: one allocation for all of them, so the
/// derived views stay cheap for designs of 100K nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeLists {
    /// List `i` is `items[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    items: Vec<HwNodeId>,
}

impl NodeLists {
    /// A counting sort in two passes: [`NodeListsBuilder::count`] each
    /// `(list, node)` pair, then [`NodeListsFill::put`] the same pairs in
    /// the same order (kept within each list).
    pub fn builder(lists: usize) -> NodeListsBuilder {
        NodeListsBuilder {
            start: vec![0; lists + 1],
        }
    }

    /// The number of lists.
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &[HwNodeId]> + '_ {
        self.start
            .windows(2)
            .map(|w| &self.items[w[0] as usize..w[1] as usize])
    }
}

pub struct NodeListsBuilder {
    start: Vec<u32>,
}

impl NodeListsBuilder {
    pub fn count(&mut self, list: usize) {
        self.start[list + 1] += 1;
    }

    pub fn fill(mut self) -> NodeListsFill {
        for i in 1..self.start.len() {
            self.start[i] += self.start[i - 1];
        }
        let total = *self.start.last().expect("lists + 1 entries") as usize;
        NodeListsFill {
            next: self.start[..self.start.len() - 1].to_vec(),
            lists: NodeLists {
                start: self.start,
                items: vec![HwNodeId(0); total],
            },
        }
    }
}

pub struct NodeListsFill {
    next: Vec<u32>,
    lists: NodeLists,
}

impl NodeListsFill {
    pub fn put(&mut self, list: usize, n: HwNodeId) {
        let at = &mut self.next[list];
        self.lists.items[*at as usize] = n;
        *at += 1;
    }

    pub fn finish(self) -> NodeLists {
        debug_assert!(self
            .next
            .iter()
            .zip(&self.lists.start[1..])
            .all(|(a, b)| a == b));
        self.lists
    }
}

impl std::ops::Index<usize> for NodeLists {
    type Output = [HwNodeId];
    fn index(&self, i: usize) -> &[HwNodeId] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

impl Cluster {
    pub fn node(&self, n: HwNodeId) -> &HwNode {
        &self.nodes[n.index()]
    }

    /// Children lists, derived from the parent links.
    pub fn children(&self) -> NodeLists {
        let mut b = NodeLists::builder(self.nodes.len());
        for n in &self.nodes {
            if let Some(p) = n.parent {
                b.count(p.index());
            }
        }
        let mut b = b.fill();
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(p) = n.parent {
                b.put(p.index(), HwNodeId(i as u32));
            }
        }
        b.finish()
    }

    /// The nodes stored in each column.
    pub fn column_members(&self) -> NodeLists {
        let mut b = NodeLists::builder(self.columns.len());
        for n in &self.nodes {
            if let Some(c) = n.exact {
                b.count(c.index());
            }
            if let Some(c) = n.carry {
                b.count(c.index());
            }
        }
        let mut b = b.fill();
        for (i, n) in self.nodes.iter().enumerate() {
            if let Some(c) = n.exact {
                b.put(c.index(), HwNodeId(i as u32));
            }
            if let Some(c) = n.carry {
                b.put(c.index(), HwNodeId(i as u32));
            }
        }
        b.finish()
    }

    /// How node `n` reads its predecessor.
    pub fn read_of(&self, n: HwNodeId, members: &NodeLists) -> Read {
        let node = self.node(n);
        let Some(p) = node.parent else {
            return Read::Doc(node.axis);
        };
        let parent = self.node(p);
        let tag_of = |t: Test| match t {
            Test::Tag(t) => Some(t),
            Test::Any => None,
        };
        match node.axis {
            Axis::Child if parent.via_gs => Read::Gs {
                root_axis: parent.axis,
                tag: tag_of(parent.test),
            },
            Axis::Child => {
                let col = parent
                    .exact
                    .expect("verified: / children need an exact column");
                let gs = if members[col.index()].len() > 1 {
                    tag_of(parent.test)
                } else {
                    None
                };
                Read::Column { col, gs }
            }
            Axis::Descendant => Read::Column {
                col: parent
                    .carry
                    .expect("verified: // children need a carry column"),
                gs: None,
            },
        }
    }

    pub fn pop(&self, p: PopId) -> &PopNode {
        &self.pops[p.index()]
    }

    /// Per node: whether some pop node checks it at close time (it then
    /// needs its exact column).
    pub fn pop_checked(&self) -> Vec<bool> {
        let mut out = vec![false; self.nodes.len()];
        for p in &self.pops {
            out[p.push.index()] = true;
        }
        out
    }

    /// How a pop node reads "its push node fired at the closing element":
    /// the exact column of the closing element's row, checked with the
    /// element's global-stack tag bit when the column is shared.
    pub fn here_of(&self, p: PopId, members: &NodeLists) -> (ColId, Option<TagId>) {
        let node = self.node(self.pop(p).push);
        let col = node
            .exact
            .expect("verified: pop-checked nodes have an exact column");
        let gs = match node.test {
            Test::Tag(t) if members[col.index()].len() > 1 => Some(t),
            _ => None,
        };
        (col, gs)
    }

    /// Per pop node, the report bits its rows hold: `(raw, accepted)`. A
    /// pop node that is some pop node's child needs a raw report bit
    /// (unordered), or an accepted-report bit plus a raw bit only if it is
    /// a `//` node whose reports travel up (ordered). Pop roots set flags
    /// and need none.
    pub fn report_bits(&self, order: SiblingOrder) -> Vec<(bool, bool)> {
        let mut is_child = vec![false; self.pops.len()];
        for p in &self.pops {
            for c in &p.children {
                is_child[c.index()] = true;
            }
        }
        let ordered = order == SiblingOrder::Ordered;
        self.pops
            .iter()
            .zip(is_child)
            .map(|(p, child)| {
                (
                    child && (!ordered || p.axis == Axis::Descendant),
                    child && ordered,
                )
            })
            .collect()
    }

    /// The counters some node's conditions read, directly or through the
    /// guards of the counters they read, sorted.
    pub fn counters_used(&self, conds: &[CondKind], counters: &[Counter]) -> Vec<CounterId> {
        let mut todo: Vec<CondId> = self.nodes.iter().flat_map(|n| n.conds.clone()).collect();
        let mut out = Vec::new();
        while let Some(c) = todo.pop() {
            if let CondKind::Position { counter, .. } = &conds[c.index()] {
                if !out.contains(counter) {
                    out.push(*counter);
                    todo.extend(counters[counter.index()].guard.iter().copied());
                }
            }
        }
        out.sort();
        out
    }

    /// The tags whose global-stack bits some node or pop node reads, sorted.
    pub fn gs_tags(&self) -> Vec<TagId> {
        let members = self.column_members();
        let mut tags: Vec<TagId> = (0..self.nodes.len())
            .filter_map(|i| match self.read_of(HwNodeId(i as u32), &members) {
                Read::Gs { tag, .. } => tag,
                Read::Column { gs, .. } => gs,
                Read::Doc(_) => None,
            })
            .chain((0..self.pops.len()).filter_map(|p| self.here_of(PopId(p as u32), &members).1))
            .collect();
        tags.sort();
        tags.dedup();
        tags
    }

    /// Drop columns no node uses and renumber the rest in first-use order.
    pub fn renumber_columns(&mut self) {
        let mut map = vec![None; self.columns.len()];
        let mut columns = Vec::new();
        for n in &mut self.nodes {
            for c in [&mut n.exact, &mut n.carry].into_iter().flatten() {
                let new = *map[c.index()].get_or_insert_with(|| {
                    columns.push(self.columns[c.index()].clone());
                    ColId(columns.len() as u32 - 1)
                });
                *c = new;
            }
        }
        self.columns = columns;
    }
}

impl StackDesign {
    pub fn node_count(&self) -> usize {
        self.clusters.iter().map(|c| c.nodes.len()).sum()
    }
    pub fn column_count(&self) -> usize {
        self.clusters.iter().map(|c| c.columns.len()).sum()
    }
    pub fn gs_bit_count(&self) -> usize {
        self.clusters.iter().map(|c| c.gs_tags().len()).sum()
    }
    pub fn pop_count(&self) -> usize {
        self.clusters.iter().map(|c| c.pops.len()).sum()
    }
    /// Pop-stack columns: report bits per row (see [`Cluster::report_bits`]).
    pub fn pop_column_count(&self) -> usize {
        self.clusters
            .iter()
            .flat_map(|c| c.report_bits(self.order))
            .map(|(r, a)| usize::from(r) + usize::from(a))
            .sum()
    }

    /// The invariants every pass preserves and the emitter relies on.
    pub fn verify(&self) -> Result<(), String> {
        for (k, cl) in self.clusters.iter().enumerate() {
            let children = cl.children();
            let members = cl.column_members();
            let checked = cl.pop_checked();
            for (i, n) in cl.nodes.iter().enumerate() {
                let at = || format!("cluster {k} node {i}");
                if let Some(p) = n.parent {
                    if p.index() >= i {
                        return Err(format!("{}: parent {} is not earlier", at(), p.0));
                    }
                }
                for c in &n.conds {
                    match self.conds.get(c.index()) {
                        Some(
                            CondKind::AttrExists(_)
                            | CondKind::AttrCmp(..)
                            | CondKind::InNamespace(_),
                        ) => {}
                        Some(CondKind::Position { counter, .. })
                            if counter.index() < self.counters.len() => {}
                        _ => {
                            return Err(format!(
                                "{}: condition {} is not an open-time condition",
                                at(),
                                c.0
                            ))
                        }
                    }
                }
                let kids = &children[i];
                let has_child = kids.iter().any(|c| cl.node(*c).axis == Axis::Child);
                let has_desc = kids.iter().any(|c| cl.node(*c).axis == Axis::Descendant);
                if checked[i] && (n.exact.is_none() || n.via_gs) {
                    return Err(format!(
                        "{}: checked by a pop node but no exact column",
                        at()
                    ));
                }
                if has_child && n.exact.is_none() && !n.via_gs {
                    return Err(format!("{}: `/` children but no exact column", at()));
                }
                if has_desc && n.carry.is_none() {
                    return Err(format!("{}: `//` children but no carry column", at()));
                }
                if n.via_gs && (n.parent.is_some() || !n.conds.is_empty() || n.exact.is_some()) {
                    return Err(format!(
                        "{}: via_gs on a node that is not a bare root",
                        at()
                    ));
                }
                if let Some(c) = n.exact {
                    if cl.columns[c.index()].kind != ColKind::Exact {
                        return Err(format!("{}: exact column {} is not exact", at(), c.0));
                    }
                }
                if let Some(c) = n.carry {
                    if cl.columns[c.index()].kind != ColKind::Carry {
                        return Err(format!("{}: carry column {} is not carry", at(), c.0));
                    }
                }
            }
            for (c, m) in members.iter().enumerate() {
                if m.is_empty() {
                    return Err(format!("cluster {k} column {c}: unused"));
                }
                if m.len() > 1 {
                    if cl.columns[c].kind == ColKind::Carry {
                        return Err(format!("cluster {k} column {c}: shared carry column"));
                    }
                    let mut tags = Vec::new();
                    for n in m {
                        match cl.node(*n).test {
                            Test::Tag(t) => tags.push(t),
                            Test::Any => {
                                return Err(format!("cluster {k} column {c}: shares a wildcard"))
                            }
                        }
                    }
                    tags.sort();
                    if tags.windows(2).any(|w| w[0] == w[1]) {
                        return Err(format!("cluster {k} column {c}: two nodes with one tag"));
                    }
                }
            }
            for (i, p) in cl.pops.iter().enumerate() {
                let at = || format!("cluster {k} pop node {i}");
                if p.push.index() >= cl.nodes.len() {
                    return Err(format!("{}: no such push node", at()));
                }
                if p.children.iter().chain(&p.prev).any(|c| c.index() >= i) {
                    return Err(format!("{}: a child or `prev` is not earlier", at()));
                }
                if p.close_conds.iter().any(|c| {
                    !matches!(
                        self.conds.get(c.index()),
                        Some(CondKind::TextExists | CondKind::TextCmp(_))
                    )
                }) {
                    return Err(format!("{}: a close condition is not a text() test", at()));
                }
            }
            for (f, flag) in cl.flags.iter().enumerate() {
                let ok = match flag.src {
                    FlagSrc::Fire(n) => n.index() < cl.nodes.len(),
                    FlagSrc::Pop(p) => p.index() < cl.pops.len(),
                };
                if !ok {
                    return Err(format!("cluster {k} flag {f}: no such node"));
                }
            }
        }
        for (i, q) in self.queries.iter().enumerate() {
            if q.id.index() != i {
                return Err(format!("query {i}: out of order"));
            }
            let Some(cl) = self.clusters.get(q.cluster) else {
                return Err(format!("query {i}: no such cluster"));
            };
            if q.flags.is_empty() || q.flags.iter().any(|f| f.index() >= cl.flags.len()) {
                return Err(format!("query {i}: bad flags"));
            }
        }
        Ok(())
    }
}

impl fmt::Display for StackDesign {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = |t: Test| match t {
            Test::Any => "*".to_string(),
            Test::Tag(t) => String::from_utf8_lossy(self.tags.name(t)).into_owned(),
        };
        for (k, cl) in self.clusters.iter().enumerate() {
            let members = cl.column_members();
            writeln!(
                f,
                "cluster {k} {}: {} nodes, {} columns, global stack {:?}",
                cl.name,
                cl.nodes.len(),
                cl.columns.len(),
                cl.gs_tags()
                    .iter()
                    .map(|t| tag(Test::Tag(*t)))
                    .collect::<Vec<_>>()
            )?;
            for (i, n) in cl.nodes.iter().enumerate() {
                let read = match cl.read_of(HwNodeId(i as u32), &members) {
                    Read::Doc(Axis::Child) => "depth=1".to_string(),
                    Read::Doc(Axis::Descendant) => "any depth".to_string(),
                    Read::Gs { root_axis, tag: t } => format!(
                        "depth{}2 & gs[{}]",
                        if root_axis == Axis::Child { "=" } else { ">=" },
                        t.map_or("*".to_string(), |t| tag(Test::Tag(t)))
                    ),
                    Read::Column { col, gs } => format!(
                        "{}{}",
                        cl.columns[col.index()].name,
                        gs.map_or(String::new(), |t| format!(" & gs[{}]", tag(Test::Tag(t))))
                    ),
                };
                let cols: Vec<String> = [n.exact, n.carry]
                    .into_iter()
                    .flatten()
                    .map(|c| cl.columns[c.index()].name.clone())
                    .collect();
                writeln!(
                    f,
                    "  {} {}{}{} <- {}{}{}",
                    n.name,
                    if n.axis == Axis::Child { "/" } else { "//" },
                    tag(n.test),
                    if n.conds.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " conds{:?}",
                            n.conds.iter().map(|c| c.0).collect::<Vec<_>>()
                        )
                    },
                    read,
                    if cols.is_empty() {
                        String::new()
                    } else {
                        format!(" -> {}", cols.join(","))
                    },
                    if n.via_gs { " (via global stack)" } else { "" }
                )?;
            }
            for p in &cl.pops {
                let name = |x: &PopId| cl.pop(*x).name.clone();
                writeln!(
                    f,
                    "  pop {} {}{}{}{}{}",
                    p.name,
                    if p.axis == Axis::Child { "/" } else { "//" },
                    cl.node(p.push).name,
                    if p.close_conds.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " text{:?}",
                            p.close_conds.iter().map(|c| c.0).collect::<Vec<_>>()
                        )
                    },
                    if p.children.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " needs {}",
                            p.children.iter().map(name).collect::<Vec<_>>().join(",")
                        )
                    },
                    p.prev
                        .as_ref()
                        .map_or(String::new(), |x| format!(" after {}", name(x)))
                )?;
            }
            for fl in &cl.flags {
                let src = match fl.src {
                    FlagSrc::Fire(n) => format!("fire {}", cl.node(n).name),
                    FlagSrc::Pop(p) => format!("pop {}", cl.pop(p).name),
                };
                writeln!(f, "  flag {} <- {}", fl.name, src)?;
            }
        }
        Ok(())
    }
}
