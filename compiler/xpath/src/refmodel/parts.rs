//! Interned lists of push nodes, the *parts* that rows are made of, with
//! what building a row derives from each (see the module doc of
//! `engine.rs` for how rows use them).
//!
//! A part is interned by its content and derives its lists once, when it
//! is created (the plain-path parts its nodes accept, its carrying nodes,
//! its twig nodes) or when first asked (its `/*` children): rows that
//! share a part share that work. All lists live in one [`Arena`], so a new
//! part allocates nothing, and the whole store is dropped at once when
//! the engine's cache is flushed.

use super::lists::hash_list;
use super::program::{NodeInfo, Program, ACCEPTS, CARRIES, HAS_TWIGS, SEVERAL};
use super::rows::{any_kids, merge_sorted};
use hashbrown::HashTable;

/// A range of an [`Arena`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Span {
    start: u32,
    len: u32,
}

/// Lists of `u32` in one vector: pushing a list allocates nothing (but
/// the vector's growth), and all are dropped at once.
#[derive(Debug, Default)]
pub(super) struct Arena {
    words: Vec<u32>,
}

impl Arena {
    pub fn push(&mut self, list: &[u32]) -> Span {
        let start = self.words.len() as u32;
        self.words.extend_from_slice(list);
        Span {
            start,
            len: list.len() as u32,
        }
    }

    #[inline]
    pub fn get(&self, s: Span) -> &[u32] {
        &self.words[s.start as usize..(s.start + s.len) as usize]
    }
}

/// The lists of a part, in this order in the arena.
const NODES: usize = 0;
const ACCEPT_PARTS: usize = 1;
const CARRYING: usize = 2;
const LEAVES: usize = 3;
const INNER: usize = 4;
const BRANCHING: usize = 5;
const TEXT_CONDS: usize = 6;
const LISTS: usize = 7;

/// Cache words of a part besides its lists: the record and its table entry.
const PART_WORDS: usize = 16;

/// An interned sorted list of push nodes and what rows derive from it.
#[derive(Debug)]
struct Part {
    /// Its lists are `arena[start..ends[0]]`, `arena[ends[0]..ends[1]]`, …:
    /// the nodes (sorted); the plain-path parts they accept; those that
    /// carry (have `//` children); their twig nodes, in node order, by
    /// kind ([`TwigLists`](super::program::TwigLists): leaves, inner,
    /// branching, `text()` conditions).
    start: u32,
    ends: [u32; LISTS],
    /// The `/*` children of its nodes, sorted, once asked for.
    any_kids: Option<Span>,
    /// Document stamp when its accepted parts were last recorded.
    stamp: u32,
}

/// The interned parts: what [`Parts::intern`] returns indexes them.
#[derive(Debug, Default)]
pub(super) struct Parts {
    pub arena: Arena,
    parts: Vec<Part>,
    /// (hash, id): growing the table rehashes no list.
    table: HashTable<(u64, u32)>,
    /// Scratch for a new part's lists and its nodes' records.
    scratch: [Vec<u32>; LISTS],
    infos: Vec<NodeInfo>,
    /// Scratch for [`Parts::intern_with`]: the union's nodes, and the
    /// merge of a sorted list.
    union: [Vec<u32>; 2],
}

impl Parts {
    /// Drop every part (the arena keeps its capacity).
    pub fn clear(&mut self) {
        self.arena.words.clear();
        self.parts.clear();
        self.table.clear();
    }

    /// Cache words held.
    pub fn words(&self) -> usize {
        self.arena.words.len() + PART_WORDS * self.parts.len()
    }

    #[inline]
    fn list(&self, id: u32, i: usize) -> &[u32] {
        let part = &self.parts[id as usize];
        let start = if i == 0 { part.start } else { part.ends[i - 1] };
        &self.arena.words[start as usize..part.ends[i] as usize]
    }

    #[inline]
    pub fn nodes(&self, id: u32) -> &[u32] {
        self.list(id, NODES)
    }

    #[inline]
    pub fn carrying(&self, id: u32) -> &[u32] {
        self.list(id, CARRYING)
    }

    /// The part's twig nodes: leaves, inner, branching, `text()` conditions.
    pub fn twigs(&self, id: u32) -> [&[u32]; 4] {
        [LEAVES, INNER, BRANCHING, TEXT_CONDS].map(|i| self.list(id, i))
    }

    /// The id of the part with `nodes` (sorted), interned.
    pub fn intern(&mut self, p: &Program, nodes: &[u32]) -> u32 {
        let h = hash_list(nodes);
        if let Some(&(_, id)) = self
            .table
            .find(h, |&(hash, id)| hash == h && self.nodes(id) == nodes)
        {
            return id;
        }
        let mut lists = std::mem::take(&mut self.scratch);
        derive_lists(p, nodes, &mut self.infos, &mut lists);
        let id = self.push(h, &lists);
        self.scratch = lists;
        id
    }

    /// Adds a part with `lists` (its nodes first) and hash `h`.
    fn push(&mut self, h: u64, lists: &[Vec<u32>; LISTS]) -> u32 {
        let start = self.arena.words.len() as u32;
        let mut ends = [0; LISTS];
        for (end, list) in ends.iter_mut().zip(lists) {
            self.arena.words.extend_from_slice(list);
            *end = self.arena.words.len() as u32;
        }
        let id = self.parts.len() as u32;
        self.parts.push(Part {
            start,
            ends,
            any_kids: None,
            stamp: 0,
        });
        self.table.insert_unique(h, (h, id), |&(hash, _)| hash);
        id
    }

    /// The id of the part with the nodes of part `base` and `added`
    /// (sorted, none of them in `base`), interned. A new part derives the
    /// lists of the added nodes only and merges them with `base`'s, so a
    /// set that grows by a few nodes (a carry set's `//*` children) costs
    /// its change, not its size. Only the node and carrying lists are kept
    /// sorted: the others are read as sets.
    pub fn intern_with(&mut self, p: &Program, base: u32, added: &[u32]) -> u32 {
        let [mut nodes, mut merged] = std::mem::take(&mut self.union);
        nodes.clear();
        merge_sorted(self.nodes(base), added, &mut nodes);
        let h = hash_list(&nodes);
        let found = self
            .table
            .find(h, |&(hash, id)| {
                hash == h && self.nodes(id) == nodes.as_slice()
            })
            .map(|&(_, id)| id);
        let id = found.unwrap_or_else(|| {
            let mut lists = std::mem::take(&mut self.scratch);
            derive_lists(p, added, &mut self.infos, &mut lists);
            merged.clear();
            merge_sorted(self.list(base, CARRYING), &lists[CARRYING], &mut merged);
            lists[CARRYING].clone_from(&merged);
            lists[NODES].clone_from(&nodes);
            for i in [ACCEPT_PARTS, LEAVES, INNER, BRANCHING, TEXT_CONDS] {
                let from = self.list(base, i);
                lists[i].splice(0..0, from.iter().copied());
            }
            let id = self.push(h, &lists);
            self.scratch = lists;
            id
        });
        self.union = [nodes, merged];
        id
    }

    /// The `/*` children of part `id`'s nodes, sorted, in the arena
    /// (found once).
    pub fn any_kids(&mut self, p: &Program, id: u32) -> Span {
        if let Some(span) = self.parts[id as usize].any_kids {
            return span;
        }
        let mut kids = std::mem::take(&mut self.scratch[0]);
        kids.clear();
        any_kids(p, self.nodes(id), false, &mut kids);
        let span = self.arena.push(&kids);
        self.scratch[0] = kids;
        self.parts[id as usize].any_kids = Some(span);
        span
    }

    /// Records the plain-path parts that part `id` accepts in `bits`, on
    /// its first visit in document `doc`.
    #[inline]
    pub fn record_accepts(&mut self, id: u32, doc: u32, bits: &mut [u64]) {
        let part = &mut self.parts[id as usize];
        if part.stamp != doc {
            part.stamp = doc;
            for &a in self.list(id, ACCEPT_PARTS) {
                bits[(a / 64) as usize] |= 1 << (a % 64);
            }
        }
    }

    /// Forget when accepted parts were recorded (document stamps wrapped).
    pub fn reset_stamps(&mut self) {
        self.parts.iter_mut().for_each(|s| s.stamp = 0);
    }
}

/// Fills `lists` with the lists a part with `nodes` keeps ([`Part`]),
/// using `infos` as scratch: the nodes' records are read first, in one
/// pass without branches, so that their cache misses overlap.
fn derive_lists(
    p: &Program,
    nodes: &[u32],
    infos: &mut Vec<NodeInfo>,
    lists: &mut [Vec<u32>; LISTS],
) {
    lists.iter_mut().for_each(Vec::clear);
    infos.clear();
    infos.extend(nodes.iter().map(|&n| p.info[n as usize]));
    let [own, accept_parts, carrying, leaves, inner, branching, text_conds] = lists;
    own.extend_from_slice(nodes);
    carrying.resize(nodes.len(), 0);
    let mut k = 0;
    for (&n, info) in nodes.iter().zip(infos.iter()) {
        carrying[k] = n;
        k += (info.flags & CARRIES != 0) as usize;
    }
    carrying.truncate(k);
    let tl = &p.twig_lists;
    for (&n, &NodeInfo { accept_one, flags }) in nodes.iter().zip(infos.iter()) {
        if flags & (ACCEPTS | HAS_TWIGS) == 0 {
            continue;
        }
        match accept_one {
            SEVERAL => accept_parts.extend_from_slice(p.accepts.get(n)),
            part => accept_parts.push(part),
        }
        if flags & HAS_TWIGS == 0 {
            continue;
        }
        leaves.extend_from_slice(tl.leaves.get(n));
        inner.extend_from_slice(tl.inner.get(n));
        branching.extend_from_slice(tl.branching.get(n));
        text_conds.extend_from_slice(tl.text_conds.get(n));
    }
}

#[cfg(test)]
mod tests {
    use super::{Parts, LISTS};
    use crate::ir::xpath::Mode;
    use crate::lower::xpath::lower_queries;
    use crate::passes::{run_pipeline, PassConfig};
    use crate::refmodel::program::Program;
    use crate::syntax::parse_query_file;

    fn program(queries: &[&str]) -> Program {
        let qf = parse_query_file("t", &queries.join("\n"));
        assert!(qf.diagnostics.is_empty(), "{:?}", qf.diagnostics);
        let design = run_pipeline(
            lower_queries("t", &qf.queries).expect("lowers"),
            &PassConfig {
                mode: Mode::Holistic,
            },
        );
        Program::new(&design)
    }

    /// Every list of part `id`, each sorted (the lists are read as sets).
    fn lists(parts: &Parts, id: u32) -> Vec<Vec<u32>> {
        (0..LISTS)
            .map(|i| {
                let mut l = parts.list(id, i).to_vec();
                l.sort_unstable();
                l
            })
            .collect()
    }

    #[test]
    fn a_part_grown_from_a_base_equals_the_part_interned_whole() {
        let p = program(&[
            "//a//b",
            "//a/c[d]",
            "/r//*/e",
            "//a//*",
            "/r/a[text()='x']",
            "//c//d",
        ]);
        let all: Vec<u32> = (0..p.info.len() as u32).collect();
        for split in 0..=all.len() {
            let (base, added) = all.split_at(split);
            let mut grown = Parts::default();
            let b = grown.intern(&p, base);
            let u = grown.intern_with(&p, b, added);
            let mut whole = Parts::default();
            let w = whole.intern(&p, &all);
            assert_eq!(lists(&grown, u), lists(&whole, w), "split at {split}");
            assert_eq!(grown.nodes(u), whole.nodes(w));
            assert_eq!(grown.carrying(u), whole.carrying(w), "kept sorted");
            assert_eq!(grown.intern(&p, &all), u, "one id for equal nodes");
            assert_eq!(grown.intern_with(&p, b, added), u);
        }
    }
}
