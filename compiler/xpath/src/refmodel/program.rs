//! The engine's compiled, read-only form of a [`Design`].
//!
//! * Push-stack columns of all parts are merged into one prefix tree of
//!   **push nodes** (two steps with the same parent push node, axis, name
//!   test and open-time conditions always hold the same bit). The nodes are
//!   numbered breadth-first, so the children of a node have consecutive ids
//!   and the children of a sorted set of parents come out sorted.
//! * The tree's edges are kept in per-tag lists sorted by parent
//!   ([`Program::child_edges`] for `/`, [`Program::desc_edges`] for `//`):
//!   a new row is a merge join of the parent row with the edge lists of the
//!   element's tag and of `*`, touching only candidates with that tag.
//! * [`Program::info`] summarises each push node in one byte of flags, so building a
//!   row reads a node's conditions, accepted parts or twig nodes only when
//!   it has some.
//! * Nodes of parts that are not plain paths become **twig nodes** with a
//!   pop-stack column each (ch. 3.2.2.4: one pop column per node).
//! * Conditions are indexed by (tag, attribute) so an element only
//!   evaluates the predicates that can concern it.

use crate::ir::xpath::{Axis, CmpOp, Compare, CondKind, Design, NodeId, SiblingOrder, Test, Value};
use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

pub(crate) type FxMap<K, V> = HashMap<K, V, FxBuildHasher>;

/// What makes two steps share a push column: the parent push node, and
/// the tag or [`ANY_TAG`], `//`? and the open-time conditions' list id
/// (0: none) packed in one word (`push_key`). Fixed-size, so that building
/// the tree at 100K queries hashes and compares no slices.
type PushKey = (u32, u64);

fn push_key(parent: u32, desc: bool, tag: u32, conds: u32) -> PushKey {
    (
        parent,
        (tag as u64) << 32 | (conds as u64) << 1 | desc as u64,
    )
}

/// Push node of the document node (depth 0).
pub(crate) const DOC: u32 = 0;
/// Tag key meaning "any tag" in the (tag, attribute) condition index.
pub(crate) const ANY_TAG: u32 = u32::MAX;
/// [`NodeInfo::accept_one`] of a node accepting several parts, or none.
pub(crate) const SEVERAL: u32 = u32::MAX;

/// A push node while the program is built (then flattened into
/// [`NodeLists`]).
#[derive(Debug, Default)]
struct PushNode {
    /// Open-time conditions, sorted.
    conds: Box<[u32]>,
    /// Plain-path parts whose leaf is this node.
    accepts: Vec<u32>,
    /// Twig nodes whose push column is this.
    twigs: Vec<u32>,
}

/// One list per push node, flattened into one array (compact and in node
/// order, so reading the lists of a sorted row walks memory forwards).
#[derive(Debug, Default)]
pub(crate) struct NodeLists {
    /// Node `n`'s items are `items[start[n]..start[n + 1]]`.
    start: Vec<u32>,
    items: Vec<u32>,
}

impl NodeLists {
    fn new<'a>(lists: impl Iterator<Item = &'a [u32]>) -> NodeLists {
        let mut l = NodeLists {
            start: vec![0],
            items: Vec::new(),
        };
        for items in lists {
            l.items.extend_from_slice(items);
            l.start.push(l.items.len() as u32);
        }
        l
    }

    #[inline]
    pub fn get(&self, n: u32) -> &[u32] {
        &self.items[self.start[n as usize] as usize..self.start[n as usize + 1] as usize]
    }
}

/// [`NodeInfo::flags`] bit: the node has open-time conditions.
pub(crate) const HAS_CONDS: u8 = 1;
/// [`NodeInfo::flags`] bit: the node has `//` children (its column carries).
pub(crate) const CARRIES: u8 = 2;
/// [`NodeInfo::flags`] bit: the node has `/` children.
pub(crate) const HAS_KIDS: u8 = 16;
/// [`NodeInfo::flags`] bit: the node is the leaf of plain-path parts.
pub(crate) const ACCEPTS: u8 = 4;
/// [`NodeInfo::flags`] bit: the node is the push column of twig nodes.
pub(crate) const HAS_TWIGS: u8 = 8;
/// [`NodeInfo::flags`] bit: the node has `/*` children.
pub(crate) const HAS_ANY_KIDS: u8 = 32;
/// [`NodeInfo::flags`] bit: the node has `//*` children.
pub(crate) const CARRIES_ANY: u8 = 64;

/// What building a row reads of each of its push nodes, side by side: a
/// row is sparse among the push nodes (hundreds of 100,000s), so each of its
/// nodes costs a cache line per array read; one record costs one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeInfo {
    /// The plain-path part the node accepts when it accepts exactly one
    /// (the usual case: a part is its leaf's path), else [`SEVERAL`]: one
    /// read, where [`Program::accepts`] takes two.
    pub accept_one: u32,
    /// [`HAS_CONDS`], [`CARRIES`], [`HAS_KIDS`], [`ACCEPTS`],
    /// [`HAS_TWIGS`], [`HAS_ANY_KIDS`], [`CARRIES_ANY`].
    pub flags: u8,
}

/// A push node being built, before breadth-first numbering.
struct RawNode {
    parent: u32,
    desc: bool,
    tag: u32,
    conds: Box<[u32]>,
}

impl RawNode {
    fn kid_key(&self) -> u32 {
        kid_key(self.desc, self.tag)
    }
}

/// How a node's children are ordered ([`Program::kid_key`]): `/` before
/// `//`, then by tag, `*` last.
#[inline]
fn kid_key(desc: bool, tag: u32) -> u32 {
    (desc as u32) << 31 | tag.min(ANY_TAG >> 1)
}

/// The push prefix tree, numbered breadth-first.
struct PushTree {
    push: Vec<PushNode>,
    child_edges: EdgeLists,
    desc_edges: EdgeLists,
    /// Per design node: its push node.
    node_push: Vec<u32>,
    kids: Vec<KidBounds>,
    kid_key: Vec<u32>,
}

/// Where the children of a push node lie. Breadth-first numbering gives
/// them consecutive ids ordered by [`kid_key`]: the `/` children by tag,
/// then the `/*` ones, then the `//` children by tag, then the `//*` ones.
/// The children of node `n` end where those of `n + 1` start.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KidBounds {
    /// The first child (the first `/` child, if any).
    pub start: u32,
    /// The first `/*` child.
    pub child_any: u32,
    /// The first `//` child.
    pub desc: u32,
    /// The first `//*` child.
    pub desc_any: u32,
}

/// Push-tree edges (parent, child) per child tag, sorted by parent; the
/// last list (index `ntags`) holds the `*` children.
pub(crate) type EdgeLists = Vec<Vec<(u32, u32)>>;

/// [`Program::twig_first`] of a twig node without children.
pub(crate) const NO_CHILD: u32 = u32::MAX;

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

/// Per push node, its twig nodes sorted the way a state that holds the node
/// uses them, so building a state copies lists instead of visiting twig
/// nodes one by one.
#[derive(Debug, Default)]
pub(crate) struct TwigLists {
    /// Leaves that report to the parent whenever their column is set (no
    /// `text()` conditions, not a part root, unordered designs only).
    pub leaves: NodeLists,
    /// The other twig nodes without children (checked at close).
    pub inner: NodeLists,
    /// Twig nodes with children.
    pub branching: NodeLists,
    /// The `text()` conditions of all its twig nodes.
    pub text_conds: NodeLists,
}

impl TwigLists {
    fn new(push: &[PushNode], twig: &[TwigNode], ordered: bool) -> TwigLists {
        let mut lists: [Vec<Vec<u32>>; 4] = Default::default();
        for node in push {
            let [leaves, inner, branching, text] = lists.each_mut().map(|l| {
                l.push(Vec::new());
                l.last_mut().expect("just pushed")
            });
            for &t in &node.twigs {
                let tn = &twig[t as usize];
                text.extend_from_slice(&tn.close_conds);
                if !tn.children.is_empty() {
                    branching.push(t);
                } else if !ordered && tn.close_conds.is_empty() && tn.root_of.is_none() {
                    leaves.push(t);
                } else {
                    inner.push(t);
                }
            }
        }
        let [leaves, inner, branching, text_conds] =
            lists.map(|l| NodeLists::new(l.iter().map(Vec::as_slice)));
        TwigLists {
            leaves,
            inner,
            branching,
            text_conds,
        }
    }
}

#[derive(Debug)]
pub(crate) struct Program {
    pub tag_index: FxMap<Box<[u8]>, u32>,
    pub ntags: usize,
    /// Per push node (numbered breadth-first, see the module doc): its
    /// open-time conditions (sorted), the plain-path parts whose leaf it is,
    /// the twig nodes whose push column it is ([`TwigLists`]).
    pub open_conds: NodeLists,
    pub accepts: NodeLists,
    pub twig_lists: TwigLists,
    /// Per push node: its flags and accepted part ([`NodeInfo`]).
    pub info: Vec<NodeInfo>,
    pub twig: Vec<TwigNode>,
    /// The `/` edges of the push tree per child tag ([`EdgeLists`]). A new
    /// row joins the parent's sorted exact set with these lists.
    pub child_edges: EdgeLists,
    /// The `//` edges per child tag, joined with the carry set.
    pub desc_edges: EdgeLists,
    /// Per push node, then one more (the end of the last node's
    /// children): where its children lie ([`KidBounds`]), the other way to
    /// find the children with a tag, for long edge lists, and the direct
    /// way to find the `*` ones.
    pub kids: Vec<KidBounds>,
    /// Per push node: its axis and tag as its parent orders its children.
    pub kid_key: Vec<u32>,
    /// Does some push node have open-time conditions? If not, the
    /// candidates of a row are all kept, unfiltered.
    pub any_conds: bool,
    /// Does some `*` node (`/*` or `//*` child) have open-time conditions?
    /// If not, the `*` candidates of a row are all kept, unfiltered.
    pub any_kid_conds: bool,
    /// Per twig node: its parent twig nodes (none for roots; several where
    /// identical branches of different parts were shared, see
    /// [`SharedTwigs`]).
    pub twig_parents: NodeLists,
    /// Per twig node: its first child ([`NO_CHILD`] for a leaf), beside
    /// [`Program::twig`] in a dense array, so that a candidate at close
    /// whose first child did not report (most of them) is dropped without
    /// reading its record and its children list.
    pub twig_first: Vec<u32>,
    /// One bit per twig node whose axis is `//` (its reports propagate down).
    pub desc_mask: Vec<u64>,
    pub twig_words: usize,
    pub conds: Vec<CondKind>,
    pub attr_index: FxMap<Box<[u8]>, u32>,
    pub attr_sets: Vec<AttrConds>,
    pub attr_set_index: FxMap<(u32, u32), u32>,
    /// Per tag: does any condition read this element's attributes?
    pub tag_wants_attrs: Vec<bool>,
    /// Local names (of expanded names) of the tags that want attributes;
    /// `None` when every element may (conditions on `*`).
    pub attr_locals: Option<FxMap<Box<[u8]>, ()>>,
    /// `p:*` conditions (`CondKind::InNamespace`) by namespace URI.
    pub ns_conds: Vec<(Box<[u8]>, u32)>,
    /// Some condition reads an attribute's value (the namespace layer
    /// must keep values).
    pub attr_values: bool,
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
        let PushTree {
            mut push,
            child_edges,
            desc_edges,
            node_push,
            kids,
            kid_key,
        } = build_push_tree(design, ntags);

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
            }
        }
        let mut twig_push = vec![0u32; twig.len()];
        for (i, &t) in twig_of.iter().enumerate() {
            if t != u32::MAX {
                twig_push[t as usize] = node_push[i];
            }
        }
        let ordered = design.order == SiblingOrder::Ordered;
        let shared = if ordered {
            SharedTwigs::unshared(twig, twig_push.clone(), desc_bits)
        } else {
            SharedTwigs::new(&twig, &twig_push, &desc_bits)
        };
        for (old, &new) in shared.new_id.iter().enumerate() {
            push[twig_push[old] as usize].twigs.push(new);
        }
        for node in &mut push {
            node.twigs.sort_unstable();
            node.twigs.dedup();
        }
        let SharedTwigs {
            twig,
            desc: desc_bits,
            ..
        } = shared;
        let twig_parents = twig_parents(&twig);
        let twig_first = twig
            .iter()
            .map(|tn| tn.children.first().copied().unwrap_or(NO_CHILD))
            .collect();
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

        let ns_conds = design
            .conds
            .iter()
            .enumerate()
            .filter_map(|(ci, c)| match c {
                CondKind::InNamespace(uri) => Some((uri.clone(), ci as u32)),
                _ => None,
            })
            .collect();
        let attr_values = attr_sets.iter().any(|s| s.needs_value());

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

        let flags = node_flags(&push, &child_edges, &desc_edges);
        let any_conds = flags.iter().any(|&f| f & HAS_CONDS != 0);
        let any_kid_conds = [&child_edges, &desc_edges]
            .iter()
            .flat_map(|l| l[ntags].iter())
            .any(|&(_, kid)| flags[kid as usize] & HAS_CONDS != 0);
        let attr_locals = (!tag_wants_attrs[0]).then(|| {
            tag_index
                .iter()
                .filter(|(_, &t)| tag_wants_attrs[t as usize])
                .map(|(name, _)| (local_part(name).into(), ()))
                .collect()
        });
        Program {
            attr_locals,
            twig_lists: TwigLists::new(&push, &twig, ordered),
            tag_index,
            ntags,
            open_conds: NodeLists::new(push.iter().map(|n| &*n.conds)),
            accepts: NodeLists::new(push.iter().map(|n| n.accepts.as_slice())),
            info: push
                .iter()
                .zip(flags)
                .map(|(n, flags)| NodeInfo {
                    accept_one: match n.accepts.as_slice() {
                        [part] => *part,
                        _ => SEVERAL,
                    },
                    flags,
                })
                .collect(),
            twig,
            child_edges,
            desc_edges,
            kids,
            kid_key,
            any_conds,
            any_kid_conds,
            twig_parents,
            twig_first,
            desc_mask,
            twig_words,
            conds: design.conds.clone(),
            attr_index,
            attr_sets,
            attr_set_index,
            tag_wants_attrs,
            ns_conds,
            attr_values,
            tag_counters,
            counter_guard,
            counter_pos,
            ncounters,
            part_queries,
            parts_are_queries,
            part_single_query,
            query_nparts,
            longest_literal,
            ordered,
        }
    }

    /// Whether an element with local name `local`, in whatever namespace,
    /// may want its attributes read.
    pub fn may_want_attrs(&self, local: &[u8]) -> bool {
        self.attr_locals
            .as_ref()
            .is_none_or(|m| m.contains_key(local))
    }

    #[inline]
    pub fn decode_tag(&self, name: &[u8]) -> u32 {
        self.tag_index.get(name).copied().unwrap_or(0)
    }

    /// Children of push node `n` over `//` (`desc`) or `/` with tag key
    /// `tag` (a tag or [`ANY_TAG`]), as a range of consecutive ids.
    #[inline]
    pub fn kids_of(&self, n: u32, desc: bool, tag: u32) -> std::ops::Range<u32> {
        let b = self.kids[n as usize];
        let (first, any, end) = if desc {
            (b.desc, b.desc_any, self.kids[n as usize + 1].start)
        } else {
            (b.start, b.child_any, b.desc)
        };
        if tag == ANY_TAG {
            return any..end;
        }
        let keys = &self.kid_key[first as usize..any as usize];
        let key = kid_key(desc, tag);
        let lo = keys.partition_point(|&k| k < key);
        let len = keys[lo..].partition_point(|&k| k == key);
        first + lo as u32..first + (lo + len) as u32
    }
}

/// The twig nodes of all parts with identical branches shared (unordered
/// designs): two non-root twig nodes with the same push node (so the same
/// axis and test), the same `text()` conditions and the same (shared)
/// children always report alike, so they get one pop column. Built bottom
/// up by hash-consing; a shared node may then have several parents.
struct SharedTwigs {
    twig: Vec<TwigNode>,
    /// Per shared twig node: its push node and whether its axis is `//`.
    push: Vec<u32>,
    desc: Vec<bool>,
    /// Per original twig node: its shared id.
    new_id: Vec<u32>,
}

/// What makes two non-root twig nodes share a pop column: (push node,
/// shared children sorted, `text()` conditions).
type TwigKey = (u32, Box<[u32]>, Box<[u32]>);

impl SharedTwigs {
    /// Every twig node kept as it is (ordered designs: sibling order links
    /// branches to their part).
    fn unshared(twig: Vec<TwigNode>, push: Vec<u32>, desc: Vec<bool>) -> SharedTwigs {
        let new_id = (0..twig.len() as u32).collect();
        SharedTwigs {
            twig,
            push,
            desc,
            new_id,
        }
    }

    fn new(twig: &[TwigNode], push: &[u32], desc: &[bool]) -> SharedTwigs {
        let mut s = SharedTwigs {
            twig: Vec::new(),
            push: Vec::new(),
            desc: Vec::new(),
            new_id: vec![u32::MAX; twig.len()],
        };
        let mut index: FxMap<TwigKey, u32> = FxMap::default();
        for t in 0..twig.len() as u32 {
            s.share(t, twig, push, desc, &mut index);
        }
        s
    }

    /// The shared id of original twig node `t` (its children first).
    fn share(
        &mut self,
        t: u32,
        twig: &[TwigNode],
        push: &[u32],
        desc: &[bool],
        index: &mut FxMap<TwigKey, u32>,
    ) -> u32 {
        if self.new_id[t as usize] != u32::MAX {
            return self.new_id[t as usize];
        }
        let tn = &twig[t as usize];
        let mut kids: Vec<u32> = tn
            .children
            .iter()
            .map(|&c| self.share(c, twig, push, desc, index))
            .collect();
        kids.sort_unstable();
        kids.dedup();
        let key = (
            push[t as usize],
            kids.into_boxed_slice(),
            tn.close_conds.clone(),
        );
        let fresh = self.twig.len() as u32;
        let id = match tn.root_of {
            Some(_) => fresh,
            None => *index.entry(key.clone()).or_insert(fresh),
        };
        if id == fresh {
            self.twig.push(TwigNode {
                close_conds: key.2,
                children: key.1,
                root_of: tn.root_of,
                prev: u32::MAX,
            });
            self.push.push(key.0);
            self.desc.push(desc[t as usize]);
        }
        self.new_id[t as usize] = id;
        id
    }
}

/// Per twig node: the twig nodes that list it as a child.
fn twig_parents(twig: &[TwigNode]) -> NodeLists {
    let mut parents: Vec<Vec<u32>> = vec![Vec::new(); twig.len()];
    for (t, tn) in twig.iter().enumerate() {
        for &c in tn.children.iter() {
            parents[c as usize].push(t as u32);
        }
    }
    NodeLists::new(parents.iter().map(Vec::as_slice))
}

/// The push prefix tree of `design`'s parts, numbered breadth-first: its
/// nodes (conditions only), its `/` and `//` edge lists, and the push node
/// of every design node.
fn build_push_tree(design: &Design, ntags: usize) -> PushTree {
    let mut raw = vec![RawNode {
        parent: u32::MAX,
        desc: false,
        tag: ANY_TAG,
        conds: Box::new([]),
    }];
    let mut push_of: FxMap<PushKey, u32> = FxMap::default();
    // Open-time condition lists by id (1, 2, ...; 0 is the empty list).
    let mut cond_lists: FxMap<Box<[u32]>, u32> = FxMap::default();
    let mut node_push = vec![DOC; design.nodes.len()];
    let mut stack = Vec::new();
    for part in &design.parts {
        stack.push(part.root);
        while let Some(n) = stack.pop() {
            let node = design.node(n);
            let parent = node.parent.map(|p| node_push[p.index()]).unwrap_or(DOC);
            let desc = node.axis == Axis::Descendant;
            let tag = match node.test {
                Test::Any => ANY_TAG,
                Test::Tag(t) => t.0,
            };
            let conds: Box<[u32]> = node.open_conds.iter().map(|c| c.0).collect();
            let list = if conds.is_empty() {
                0
            } else {
                let next = cond_lists.len() as u32 + 1;
                *cond_lists.entry(conds.clone()).or_insert(next)
            };
            let key = push_key(parent, desc, tag, list);
            node_push[n.index()] = *push_of.entry(key).or_insert_with(|| {
                raw.push(RawNode {
                    parent,
                    desc,
                    tag,
                    conds,
                });
                (raw.len() - 1) as u32
            });
            stack.extend(node.children.iter().copied());
        }
    }
    let new_id = breadth_first_ids(&raw);
    let mut push: Vec<PushNode> = (0..raw.len()).map(|_| PushNode::default()).collect();
    let mut child_edges: EdgeLists = vec![Vec::new(); ntags + 1];
    let mut desc_edges: EdgeLists = vec![Vec::new(); ntags + 1];
    for (old, r) in raw.iter_mut().enumerate() {
        let id = new_id[old];
        if old as u32 != DOC {
            let lists = if r.desc {
                &mut desc_edges
            } else {
                &mut child_edges
            };
            let t = if r.tag == ANY_TAG {
                ntags
            } else {
                r.tag as usize
            };
            lists[t].push((new_id[r.parent as usize], id));
        }
        push[id as usize].conds = std::mem::take(&mut r.conds);
    }
    for e in child_edges.iter_mut().chain(desc_edges.iter_mut()) {
        e.sort_unstable();
    }
    for p in &mut node_push {
        *p = new_id[*p as usize];
    }
    let mut kid_key = vec![0u32; raw.len()];
    let mut first_kid = vec![1u32; raw.len() + 1];
    for (old, r) in raw.iter().enumerate().skip(1) {
        kid_key[new_id[old] as usize] = r.kid_key();
        first_kid[new_id[r.parent as usize] as usize + 1] += 1;
    }
    for i in 0..raw.len() {
        first_kid[i + 1] += first_kid[i] - 1;
    }
    let kids = kid_bounds(&first_kid, &kid_key);
    PushTree {
        push,
        child_edges,
        desc_edges,
        node_push,
        kids,
        kid_key,
    }
}

/// Each node's [`KidBounds`] (and one more, the end), from where its
/// children start (`first_kid`, one more than the nodes) and their keys.
fn kid_bounds(first_kid: &[u32], keys: &[u32]) -> Vec<KidBounds> {
    let bound = |a: u32, b: u32, key: u32| {
        a + keys[a as usize..b as usize].partition_point(|&k| k < key) as u32
    };
    first_kid
        .windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            KidBounds {
                start: a,
                child_any: bound(a, b, kid_key(false, ANY_TAG)),
                desc: bound(a, b, kid_key(true, 0)),
                desc_any: bound(a, b, kid_key(true, ANY_TAG)),
            }
        })
        .chain(std::iter::once(KidBounds {
            start: *first_kid.last().expect("one more than the nodes"),
            ..KidBounds::default()
        }))
        .collect()
}

/// Breadth-first ids of a tree given by parent links (node 0 the root,
/// parents created before their children): children of a node get
/// consecutive ids, ordered by [`kid_key`] (then creation order).
fn breadth_first_ids(raw: &[RawNode]) -> Vec<u32> {
    let mut first_kid = vec![0u32; raw.len() + 1];
    for r in &raw[1..] {
        first_kid[r.parent as usize + 1] += 1;
    }
    for i in 0..raw.len() {
        first_kid[i + 1] += first_kid[i];
    }
    let mut kids = vec![0u32; raw.len().saturating_sub(1)];
    let mut fill = first_kid.clone();
    for (i, r) in raw.iter().enumerate().skip(1) {
        kids[fill[r.parent as usize] as usize] = i as u32;
        fill[r.parent as usize] += 1;
    }
    for n in 0..raw.len() {
        kids[first_kid[n] as usize..first_kid[n + 1] as usize]
            .sort_by_key(|&k| raw[k as usize].kid_key());
    }
    let mut order = Vec::with_capacity(raw.len());
    order.push(DOC);
    let mut next = 0;
    while next < order.len() {
        let n = order[next] as usize;
        order.extend_from_slice(&kids[first_kid[n] as usize..first_kid[n + 1] as usize]);
        next += 1;
    }
    let mut new_id = vec![0u32; raw.len()];
    for (i, &old) in order.iter().enumerate() {
        new_id[old as usize] = i as u32;
    }
    new_id
}

/// Each push node's [`NodeInfo::flags`].
fn node_flags(push: &[PushNode], child_edges: &EdgeLists, desc_edges: &EdgeLists) -> Vec<u8> {
    let mut flags: Vec<u8> = push
        .iter()
        .map(|n| {
            let mut f = 0;
            if !n.conds.is_empty() {
                f |= HAS_CONDS;
            }
            if !n.accepts.is_empty() {
                f |= ACCEPTS;
            }
            if !n.twigs.is_empty() {
                f |= HAS_TWIGS;
            }
            f
        })
        .collect();
    for &(parent, _) in desc_edges.iter().flatten() {
        flags[parent as usize] |= CARRIES;
    }
    for &(parent, _) in child_edges.iter().flatten() {
        flags[parent as usize] |= HAS_KIDS;
    }
    for &(parent, _) in child_edges.last().into_iter().flatten() {
        flags[parent as usize] |= HAS_ANY_KIDS;
    }
    for &(parent, _) in desc_edges.last().into_iter().flatten() {
        flags[parent as usize] |= CARRIES_ANY;
    }
    flags
}

/// The local part of an expanded name (`{URI}local` or `local`).
fn local_part(name: &[u8]) -> &[u8] {
    match name.first() {
        Some(b'{') => name
            .iter()
            .rposition(|&b| b == b'}')
            .map_or(name, |k| &name[k + 1..]),
        _ => name,
    }
}
