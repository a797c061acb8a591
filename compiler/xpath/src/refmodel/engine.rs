//! The stack dynamic programming of chapters 2–3 over the tokenizer's
//! events, made fast by memoising push-stack rows.
//!
//! **Push stack.** The top-of-stack row at an element is the set of push
//! columns holding a 1 there: `exact` (this element matches the node) and
//! `carry` (a node followed by `//` matched here or at an ancestor: the
//! vertically propagating column). On `open`, the new row is a function of
//! the parent's row and the element's *symbol* (its tag plus the
//! open-time conditions it satisfies — ch. 2.4.5's "predicates as
//! additional tag identifiers"). Rows are interned as states and the
//! function is cached per (state, symbol): after warm-up an open event is a
//! hash lookup, whatever the number of queries. Computing a new row visits
//! only the children of active nodes that carry the element's tag (per-tag
//! dispatch); the `*` children, the same whatever the tag, are kept per
//! state ([`State::child_any`]) and per carry set ([`CarrySet::desc_any`],
//! built from the parent set's, so a new one costs its change).
//!
//! **Parts of a row.** A state does not copy those `*` children: it holds
//! its push nodes as three disjoint interned lists ([`Parts`]): `own`, the
//! children with the element's tag (and the `*` children with open-time
//! conditions, which depend on the element); `any`, the parent state's
//! `/*` children; `desc`, the `//*` children of the parent's carry set.
//! The last two are shared by every state below the same parent (or carry
//! set), and what a row derives from its nodes (accepted plain-path parts,
//! carrying nodes, twig nodes, `/*` children) is derived once per part,
//! so a new state costs about its own part. Accepted parts are recorded
//! once per part per document. A state is interned by its three parts and
//! its carry set; since a node's part follows from its axis, test and
//! conditions, equal rows still get one state.
//!
//! **Clean and dirty rows.** A row is kept as two interned states
//! ([`Row`]): its *clean* part, the push nodes with no open-time condition
//! on their path (a function of the tags alone, cached per (state, tag)),
//! and its *dirty* part, the nodes with conditions and their descendants.
//! Computing a clean transition sets the candidates with conditions aside
//! as the transition's *seeds*; the dirty part is computed from the
//! parent's dirty part, the seeds and the element's symbol (cached per
//! (dirty state, seeds, symbol)), and is the empty state, at no cost, when
//! the parent's is and there are no seeds. So attribute values no longer
//! multiply the clean states: only the few nodes they concern are
//! recomputed, in small dirty states.
//!
//! **Pop stack.** Twig nodes have one pop column each. On `close`, a twig
//! node whose push column is set at the closing element reports a match to
//! the parent element if all its children reported and its `text()`
//! conditions held; reports of `//` nodes also propagate downwards
//! (ch. 3.2.2, recurrence (a)–(d)). A part's root reporting means the part
//! matched.
//!
//! Memory is bounded by the design and `EngineConfig`: the state cache is
//! flushed when it exceeds `cache_words`, per-depth arrays are sized by
//! `max_depth`, values are kept up to the longest literal.

use super::lists::ListInterner;
use super::parts::{Parts, Span};
use super::program::{FxMap, Program, ANY_TAG, CARRIES, DOC, HAS_CONDS, NO_CHILD};
use super::rows::{any_kids, children, merge_rows, merge_sorted, Marks};
use crate::ir::value::ValueAcc;
use crate::ir::xpath::{CondKind, Design, Namespaces};
use crate::xml::{ns, DocStatus, Sink, Tokenizer, XmlConfig, XmlErrorAt};
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};
use std::io::Read;

/// Engine limits.
#[derive(Clone, Copy, Debug)]
pub struct EngineConfig {
    pub xml: XmlConfig,
    /// Upper bound on the memoised state cache, in 32-bit words (default
    /// 2^26 words = 256 MiB). When exceeded the cache is flushed (keeping the
    /// states of the open elements), so memory never grows with the input.
    pub cache_words: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            xml: XmlConfig::default(),
            cache_words: 1 << 26,
        }
    }
}

/// The result for one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocResult {
    pub status: DocStatus,
    pub error: Option<XmlErrorAt>,
    /// Matched query ids, ascending.
    pub matched: Vec<u32>,
}

/// Counters of the engine's work, for benchmarks and `--stats`.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineStats {
    pub states: usize,
    pub transitions_computed: u64,
    pub flushes: u64,
    /// Current size of the memoised state cache, in 32-bit words.
    pub cache_words: usize,
}

struct State {
    /// Its push nodes, in three disjoint [`Parts`] (see the module doc):
    /// `own`, the children with the element's tag (and the `*` children
    /// with conditions); `any`, the parent state's `/*` children without
    /// conditions ([`AnyKids::plain`]); `desc`, the `//*` children without
    /// conditions of the parent's carry set.
    own: u32,
    any: u32,
    desc: u32,
    /// Carry set: `//` nodes matched here or at an ancestor.
    carry: u32,
    /// The twig lists of its parts, merged, in [`StateLists`], in this
    /// order: `inner`, the twig nodes without children whose push column
    /// is set and that need a check at close (`text()` conditions, part
    /// roots, ordered mode); `branching`, the twig nodes with children
    /// whose push column is set, sorted (all checked at close when there
    /// are fewer of them than the reports' parents, else searched for
    /// those parents); `text_conds`, the `text()` conditions to evaluate
    /// on this element's text children, sorted. They start at `start`
    /// and each ends at `ends[i]`.
    start: u32,
    ends: [u32; 3],
    /// The `/*` children of its nodes: the candidates that do not depend
    /// on the child's tag, found once for all the transitions out of this
    /// state (`None` until the first is computed).
    child_any: Option<AnyKids>,
    /// Twig leaves without conditions: they report to the parent whenever
    /// their push column is set (word index, bits), in
    /// [`StateLists::leaf_up`] from `leaf_up.0` to `leaf_up.1`. Unordered
    /// designs only.
    leaf_up: (u32, u32),
}

impl State {
    fn parts(&self) -> [u32; 3] {
        [self.own, self.any, self.desc]
    }
}

/// The lists of all states in two arenas, so that a new state allocates
/// nothing (a cold pass may create one per element) and a flush drops
/// them all at once.
#[derive(Default)]
struct StateLists {
    /// Twig nodes and conditions ([`State::start`]).
    words: Vec<u32>,
    /// Leaf reports ([`State::leaf_up`]).
    leaf_up: Vec<(u32, u64)>,
}

impl StateLists {
    #[inline]
    fn list(&self, st: &State, i: usize) -> &[u32] {
        let start = if i == 0 { st.start } else { st.ends[i - 1] };
        &self.words[start as usize..st.ends[i] as usize]
    }

    #[inline]
    fn inner(&self, st: &State) -> &[u32] {
        self.list(st, 0)
    }

    #[inline]
    fn branching(&self, st: &State) -> &[u32] {
        self.list(st, 1)
    }

    #[inline]
    fn text_conds(&self, st: &State) -> &[u32] {
        self.list(st, 2)
    }

    #[inline]
    fn leaf_up(&self, st: &State) -> &[(u32, u64)] {
        &self.leaf_up[st.leaf_up.0 as usize..st.leaf_up.1 as usize]
    }

    fn clear(&mut self) {
        self.words.clear();
        self.leaf_up.clear();
    }
}

/// The `*` children (`/*` or `//*`) of a list of push nodes, before their
/// conditions are checked: those without conditions, the same in every row
/// that has them (a part), and those with (sorted).
#[derive(Clone, Copy, Debug)]
struct AnyKids {
    plain: u32,
    conds: Span,
}

/// A push-stack row: its clean part (push nodes with no conditions on
/// their path, a function of the tags alone) and its dirty part (the
/// others: nodes with open-time conditions and their descendants), each an
/// interned [`State`]. The two are disjoint, and their union is the row.
#[derive(Clone, Copy, Debug)]
struct Row {
    clean: u32,
    dirty: u32,
}

/// The candidates with conditions that a clean transition sets aside,
/// indexed so that finding those an element's conditions satisfy reads
/// only the seeds of its conditions (elements meet few; a state may have
/// hundreds of seeds, one value each).
struct Seeds {
    /// The seeds with one condition, sorted by (condition, node).
    single: Box<[(u32, u32)]>,
    /// The seeds with several conditions, sorted.
    several: Box<[u32]>,
}

impl Seeds {
    fn new(p: &Program, nodes: &[u32]) -> Seeds {
        let mut single = Vec::new();
        let mut several = Vec::new();
        for &n in nodes {
            match p.open_conds.get(n) {
                [c] => single.push((*c, n)),
                _ => several.push(n),
            }
        }
        single.sort_unstable();
        several.sort_unstable();
        Seeds {
            single: single.into(),
            several: several.into(),
        }
    }

    /// Cache words.
    fn words(&self) -> usize {
        2 * self.single.len() + self.several.len() + 8
    }

    /// Appends to `out`, sorted, the seeds whose conditions are all in
    /// `truth` (sorted).
    fn passing(&self, p: &Program, truth: &[u32], out: &mut Vec<u32>) {
        let start = out.len();
        let mut rest = &self.single[..];
        for &c in truth {
            rest = &rest[rest.partition_point(|&(sc, _)| sc < c)..];
            let len = rest.partition_point(|&(sc, _)| sc == c);
            out.extend(rest[..len].iter().map(|&(_, n)| n));
            rest = &rest[len..];
        }
        for &n in self.several.iter() {
            if Run::conds_hold(p.open_conds.get(n), truth) {
                out.push(n);
            }
        }
        out[start..].sort_unstable();
    }
}

/// Seeds id of a clean transition without seeds.
const NO_SEEDS: u32 = u32::MAX;

fn hash_set(k: &[u32]) -> u64 {
    let mut h = FxHasher::default();
    k.hash(&mut h);
    h.finish()
}

/// An interned carry set.
struct CarrySet {
    /// `//` nodes matched at an element or at its ancestors, sorted.
    nodes: Span,
    /// Their `//*` children. A carry set is usually its parent element's
    /// plus a few nodes, so these are the parent's merged with those nodes'
    /// `//*` children: the work follows the change, not the set's size.
    desc_any: AnyKids,
}

/// Scratch lists for building a [`State`], reused from state to state.
#[derive(Default)]
struct StateScratch {
    leaf_up: Vec<(u32, u64)>,
    inner: Vec<u32>,
    branching: Vec<u32>,
    text_conds: Vec<u32>,
}

/// Mutable caches and per-document scratch, reused across documents.
struct Runtime {
    // ---- memoised push rows (bounded by `cache_words`) ----
    /// States by their parts and carry set.
    states: Vec<State>,
    state_lists: StateLists,
    state_table: FxMap<[u32; 4], u32>,
    /// The parts of states, and the lists of carry sets in its arena.
    parts: Parts,
    carries: Vec<CarrySet>,
    /// (hash, id), so that growing the table rehashes no set.
    carry_table: HashTable<(u64, u32)>,

    cache_words: usize,
    /// Clean transitions: (clean state << 32 | tag) → (clean state, seeds
    /// id or [`NO_SEEDS`]).
    trans: FxMap<u64, (u32, u32)>,
    /// Seeds: per clean transition that has some, the sorted candidates
    /// with conditions (the clean parents' children with the tag or `*`
    /// that have open-time conditions), before those are checked.
    seeds: Vec<Seeds>,
    /// Dirty transitions: (dirty state, seeds id, symbol) → dirty state.
    dirty_trans: FxMap<(u32, u32, u32), u32>,
    /// The state with empty lists: the dirty row of most elements.
    empty: u32,
    /// Symbols with conditions (a tag, then sorted conditions): symbol
    /// `ntags + i` is list `i`; a symbol below `ntags` is a tag alone.
    symbols: ListInterner,
    stats: EngineStats,
    // ---- per document ----
    doc: u32,
    depth: usize,
    stack: Vec<Row>,
    tag: u32,
    truth: Vec<u32>,
    attr_sets: [u32; 2],
    attr_wants_value: bool,
    acc: ValueAcc,
    /// Counters per level (level = parent depth), `ncounters` each.
    counts: Vec<u32>,
    counts_touched: Vec<Vec<u32>>,
    /// Pop columns per depth: reports from below the element at that depth.
    reports: Vec<u64>,
    reports_touched: Vec<Vec<u32>>,
    /// With `--ordered`: the reports accepted in sibling order.
    ordered: Vec<u64>,
    ordered_touched: Vec<Vec<u32>>,
    /// `text()` conditions satisfied per depth.
    text_ok: Vec<Vec<u32>>,
    /// Matched parts of this document (cleared per document).
    part_bits: Vec<u64>,
    /// Scratch for building results: query bitmap, multi-part counts.
    query_bits: Vec<u64>,
    part_counts: Vec<u32>,
    scratch: Vec<u32>,
    /// Scratch for building a row: the sorted candidate lists of each edge
    /// kind, and the merges of two of them.
    rows: [Vec<u32>; 4],
    merged: [Vec<u32>; 2],
    marks: Marks,
    /// Scratch for `*` children: all, and those without and with
    /// conditions.
    any: [Vec<u32>; 3],
    cands: Vec<u32>,
    /// Scratch for the candidates a clean row sets aside (its seeds).
    aside: Vec<u32>,
    state_scratch: StateScratch,
    /// Per twig node: the close event that last listed it as a candidate.
    twig_seen: Vec<u32>,
    close_stamp: u32,
}

impl Runtime {
    /// Cache words held.
    fn words(&self) -> usize {
        self.cache_words + self.parts.words()
    }
}

/// The software XPath filtering engine for one design.
pub struct Engine {
    prog: Program,
    rt: Runtime,
    tok: Tokenizer,
    /// The namespace layer between the tokenizer and the run, for a design
    /// with namespace-aware names.
    ns: Option<ns::Layer>,
    config: EngineConfig,
}

impl Engine {
    pub fn new(design: &Design, mut config: EngineConfig) -> Engine {
        let prog = Program::new(design);
        config.xml.namespaces = design.namespaces == Namespaces::Xpath;
        let wants = ns::AttrWants {
            names: prog.tag_wants_attrs.iter().any(|&w| w),
            values: prog.attr_values,
        };
        let ns = config.xml.namespaces.then(|| match config.xml.ns_limits {
            Some(l) => ns::Layer::with_limits(wants, l, config.xml.attr_name_bytes),
            None => ns::Layer::new(wants),
        });
        let levels = config.xml.max_depth as usize + 2;
        let nq = prog.query_nparts.len();
        let rt = Runtime {
            states: Vec::new(),
            state_lists: StateLists::default(),
            state_table: FxMap::default(),
            parts: Parts::default(),
            carries: Vec::new(),
            carry_table: HashTable::new(),
            cache_words: 0,
            trans: FxMap::default(),
            seeds: Vec::new(),
            dirty_trans: FxMap::default(),
            empty: 0,
            symbols: ListInterner::default(),
            stats: EngineStats::default(),
            doc: 0,
            depth: 0,
            stack: Vec::with_capacity(levels),
            tag: 0,
            truth: Vec::new(),
            attr_sets: [u32::MAX; 2],
            attr_wants_value: false,
            acc: ValueAcc::new(prog.longest_literal),
            counts: vec![0; levels * prog.ncounters],
            counts_touched: vec![Vec::new(); levels],
            reports: vec![0; levels * prog.twig_words],
            reports_touched: vec![Vec::new(); levels],
            ordered: vec![
                0;
                if prog.ordered {
                    levels * prog.twig_words
                } else {
                    0
                }
            ],
            ordered_touched: vec![Vec::new(); levels],
            text_ok: vec![Vec::new(); levels],
            part_bits: vec![0; prog.part_queries.len().div_ceil(64)],
            query_bits: vec![0; nq.div_ceil(64)],
            part_counts: vec![0; nq],
            scratch: Vec::new(),
            rows: Default::default(),
            merged: Default::default(),
            marks: Marks::new(prog.info.len()),
            any: Default::default(),
            cands: Vec::new(),
            aside: Vec::new(),
            state_scratch: StateScratch::default(),
            twig_seen: vec![u32::MAX; prog.twig.len()],
            close_stamp: 0,
        };
        let mut e = Engine {
            prog,
            rt,
            tok: Tokenizer::new(config.xml),
            ns,
            config,
        };
        e.reset_cache();
        e
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub fn stats(&self) -> EngineStats {
        EngineStats {
            states: self.rt.states.len(),
            cache_words: self.rt.words(),
            ..self.rt.stats
        }
    }

    /// Empty the state cache, as a fresh engine has it (the buffers keep
    /// their capacity): the next documents run the first pass again.
    pub fn clear_cache(&mut self) {
        self.reset_cache();
    }

    fn reset_cache(&mut self) {
        let rt = &mut self.rt;
        rt.states.clear();
        rt.state_lists.clear();
        rt.state_table.clear();
        rt.parts.clear();
        rt.carries.clear();
        rt.carry_table.clear();
        rt.cache_words = 0;
        rt.trans.clear();
        rt.seeds.clear();
        rt.dirty_trans.clear();
        rt.symbols.clear();
        intern_roots(&self.prog, rt);
    }

    /// Filter one document held in memory.
    pub fn filter(&mut self, doc: &[u8]) -> DocResult {
        self.begin();
        self.feed(doc);
        self.end()
    }

    /// Filter one document from a reader, in bounded memory.
    pub fn filter_reader<R: Read>(&mut self, mut r: R) -> std::io::Result<DocResult> {
        self.begin();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            self.feed(&buf[..n]);
        }
        Ok(self.end())
    }

    /// Start a document (for streaming use with [`Engine::feed`] / [`Engine::end`]).
    pub fn begin(&mut self) {
        let rt = &mut self.rt;
        rt.doc = rt.doc.wrapping_add(1);
        if rt.doc == 0 {
            rt.doc = 1;
            rt.parts.reset_stamps();
        }
        rt.depth = 0;
        rt.stack.clear();
        rt.stack.push(Row {
            clean: 0,
            dirty: rt.empty,
        });
        rt.part_bits.iter_mut().for_each(|w| *w = 0);
        let levels = self.config.xml.max_depth as usize + 2;
        for l in 0..levels {
            clear_counts(&self.prog, rt, l);
            clear_reports(&self.prog, rt, l);
            rt.text_ok[l].clear();
        }
        self.tok.reset();
        if let Some(ns) = &mut self.ns {
            ns.reset();
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        let mut run = Run {
            p: &self.prog,
            rt: &mut self.rt,
            limit: self.config.cache_words,
        };
        match &mut self.ns {
            Some(ns) => self.tok.feed(chunk, &mut ns.sink(&mut run)),
            None => self.tok.feed(chunk, &mut run),
        }
    }

    pub fn end(&mut self) -> DocResult {
        let mut run = Run {
            p: &self.prog,
            rt: &mut self.rt,
            limit: self.config.cache_words,
        };
        let res = match &mut self.ns {
            Some(ns) => self.tok.finish(&mut ns.sink(&mut run)),
            None => self.tok.finish(&mut run),
        };
        let (status, error) = match res {
            Ok(()) => (DocStatus::Ok, None),
            Err(e) => (e.error.status(), Some(e)),
        };
        DocResult {
            status,
            error,
            matched: self.matched_queries(),
        }
    }

    /// Queries all of whose parts matched, ascending, in time linear in the
    /// matches (bitmaps, no sort of the matches themselves).
    fn matched_queries(&mut self) -> Vec<u32> {
        let p = &self.prog;
        let rt = &mut self.rt;
        if p.parts_are_queries {
            // Part i is query i (holistic, no duplicate queries): the part
            // bitmap is the answer.
            let n = rt.part_bits.iter().map(|w| w.count_ones() as usize).sum();
            let mut out = Vec::with_capacity(n);
            for (w, &word) in rt.part_bits.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    out.push(w as u32 * 64 + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
            return out;
        }
        let mut multi: Vec<u32> = Vec::new();
        for (w, &word) in rt.part_bits.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let part = w as u32 * 64 + bits.trailing_zeros();
                bits &= bits - 1;
                // Most parts belong to exactly one single-part query.
                let single = p.part_single_query[part as usize];
                if single != u32::MAX {
                    rt.query_bits[(single / 64) as usize] |= 1 << (single % 64);
                    continue;
                }
                for &q in &p.part_queries[part as usize] {
                    let need = p.query_nparts[q as usize];
                    if need > 1 {
                        if rt.part_counts[q as usize] == 0 {
                            multi.push(q);
                        }
                        rt.part_counts[q as usize] += 1;
                        if rt.part_counts[q as usize] < need {
                            continue;
                        }
                    }
                    rt.query_bits[(q / 64) as usize] |= 1 << (q % 64);
                }
            }
        }
        for q in multi {
            rt.part_counts[q as usize] = 0;
        }
        let n = rt.query_bits.iter().map(|w| w.count_ones() as usize).sum();
        let mut out = Vec::with_capacity(n);
        for (w, word) in rt.query_bits.iter_mut().enumerate() {
            let mut bits = std::mem::take(word);
            while bits != 0 {
                out.push(w as u32 * 64 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        out
    }
}

fn clear_counts(p: &Program, rt: &mut Runtime, level: usize) {
    let base = level * p.ncounters;
    for k in rt.counts_touched[level].drain(..) {
        rt.counts[base + k as usize] = 0;
    }
}

fn clear_reports(p: &Program, rt: &mut Runtime, level: usize) {
    let base = level * p.twig_words;
    for w in rt.reports_touched[level].drain(..) {
        rt.reports[base + w as usize] = 0;
    }
    for w in rt.ordered_touched[level].drain(..) {
        rt.ordered[base + w as usize] = 0;
    }
}

#[inline]
fn set_bit(words: &mut [u64], touched: &mut Vec<u32>, base: usize, t: u32) {
    let w = (t / 64) as usize;
    if words[base + w] == 0 {
        touched.push(w as u32);
    }
    words[base + w] |= 1 << (t % 64);
}

/// At close, a search in the branching list for a report's parent costs
/// about this many checks of a branching node's reports.
const SEARCH_COST: usize = 8;

/// How many twig parents the reports in `words` (at `base`, in the
/// words `touched`) have, counted up to `enough`.
fn parents_of_reports(
    p: &Program,
    words: &[u64],
    base: usize,
    touched: &[u32],
    enough: usize,
) -> usize {
    let mut n = 0;
    for &w in touched {
        let mut bits = words[base + w as usize];
        while bits != 0 {
            n += p.twig_parents.get(w * 64 + bits.trailing_zeros()).len();
            bits &= bits - 1;
        }
        if n * SEARCH_COST > enough {
            break;
        }
    }
    n
}

#[inline]
fn has_bit(words: &[u64], base: usize, t: u32) -> bool {
    words[base + (t / 64) as usize] >> (t % 64) & 1 == 1
}

/// The id of carry set `set`, interned. `base`: the parent element's carry
/// set and the nodes `set` adds to it (sorted), from which a new set's
/// `//*` children are found; `None`: found from `set` itself.
fn intern_carry(p: &Program, rt: &mut Runtime, set: &[u32], base: Option<(u32, &[u32])>) -> u32 {
    let h = hash_set(set);
    if let Some(&(_, id)) = rt.carry_table.find(h, |&(hash, id)| {
        hash == h && rt.parts.arena.get(rt.carries[id as usize].nodes) == set
    }) {
        return id;
    }
    let mut any = std::mem::take(&mut rt.any);
    let [kids, plain, conds] = &mut any;
    kids.clear();
    any_kids(p, base.map_or(set, |(_, added)| added), true, kids);
    split_conds(p, kids, plain, conds);
    // The parent's lists, merged with the added nodes' where they have
    // some.
    let old = base.map(|(parent, _)| rt.carries[parent as usize].desc_any);
    let desc_any = AnyKids {
        plain: match old {
            Some(old) if plain.is_empty() => old.plain,
            Some(old) => rt.parts.intern_with(p, old.plain, plain),
            None => rt.parts.intern(p, plain),
        },
        conds: match old {
            Some(old) if conds.is_empty() => old.conds,
            Some(old) => {
                let merged = &mut rt.merged[0];
                merged.clear();
                merge_sorted(rt.parts.arena.get(old.conds), conds, merged);
                rt.parts.arena.push(merged)
            }
            None => rt.parts.arena.push(conds),
        },
    };
    rt.any = any;
    let id = rt.carries.len() as u32;
    rt.cache_words += CARRY_WORDS;
    let nodes = rt.parts.arena.push(set);
    rt.carries.push(CarrySet { nodes, desc_any });
    rt.carry_table.insert_unique(h, (h, id), |&(hash, _)| hash);
    id
}

/// Cache words of a carry set besides its lists: the record and its table
/// entry.
const CARRY_WORDS: usize = 10;

/// Cache words of a state besides its twig lists: the record and its table
/// entry.
const STATE_WORDS: usize = 24;

/// Splits the sorted push nodes `kids` into those without open-time
/// conditions (`plain`) and those with (`conds`).
fn split_conds(p: &Program, kids: &[u32], plain: &mut Vec<u32>, conds: &mut Vec<u32>) {
    plain.clear();
    conds.clear();
    if !p.any_kid_conds {
        return plain.extend_from_slice(kids);
    }
    for &n in kids {
        if p.info[n as usize].flags & HAS_CONDS != 0 {
            conds.push(n);
        } else {
            plain.push(n);
        }
    }
}

/// The id of the state with `parts` (own, any, desc) and carry set
/// `carry`, interned; a new state merges its parts' twig lists.
fn intern_state(rt: &mut Runtime, parts: [u32; 3], carry: u32) -> u32 {
    let [own, any, desc] = parts;
    let key = [own, any, desc, carry];
    if let Some(&id) = rt.state_table.get(&key) {
        return id;
    }
    let mut b = std::mem::take(&mut rt.state_scratch);
    let StateScratch {
        leaf_up,
        inner,
        branching,
        text_conds,
    } = &mut b;
    leaf_up.clear();
    for l in [&mut *inner, &mut *branching, &mut *text_conds] {
        l.clear();
    }
    for part in parts {
        let [leaves, part_inner, part_branching, part_text] = rt.parts.twigs(part);
        leaf_up.extend(leaves.iter().map(|&t| (t / 64, 1u64 << (t % 64))));
        inner.extend_from_slice(part_inner);
        branching.extend_from_slice(part_branching);
        text_conds.extend_from_slice(part_text);
    }
    leaf_up.sort_unstable_by_key(|&(w, _)| w);
    leaf_up.dedup_by(|b, a| {
        if a.0 == b.0 {
            a.1 |= b.1;
            true
        } else {
            false
        }
    });
    text_conds.sort_unstable();
    text_conds.dedup();
    branching.sort_unstable();
    let id = rt.states.len() as u32;
    rt.cache_words +=
        2 * leaf_up.len() + inner.len() + branching.len() + text_conds.len() + STATE_WORDS;
    let lists = &mut rt.state_lists;
    let start = lists.words.len() as u32;
    let mut ends = [0u32; 3];
    for (i, l) in [inner, branching, text_conds].into_iter().enumerate() {
        lists.words.extend_from_slice(l);
        ends[i] = lists.words.len() as u32;
    }
    let leaf_start = lists.leaf_up.len() as u32;
    lists.leaf_up.extend_from_slice(leaf_up);
    rt.states.push(State {
        own,
        any,
        desc,
        carry,
        start,
        ends,
        child_any: None,
        leaf_up: (leaf_start, lists.leaf_up.len() as u32),
    });
    rt.state_scratch = b;
    rt.state_table.insert(key, id);
    id
}

/// Cache words of one entry of the transition map (a `u64` key and a
/// `u32` value, padded, its control byte and the table's spare capacity).
const TRANS_WORDS: usize = 5;

/// Records the plain-path parts `state` accepts in the document's part
/// bitmap, on each of its parts' first visit in the document.
#[inline]
fn record_accepts(rt: &mut Runtime, state: u32) {
    for part in rt.states[state as usize].parts() {
        rt.parts.record_accepts(part, rt.doc, &mut rt.part_bits);
    }
}

/// Interns, in an empty cache, state 0 (the document node, whose push
/// column is always set: the clean row every document starts from) and the
/// state with empty lists ([`Runtime::empty`]).
fn intern_roots(p: &Program, rt: &mut Runtime) {
    let carry: &[u32] = if p.info[DOC as usize].flags & CARRIES != 0 {
        &[DOC]
    } else {
        &[]
    };
    let carry = intern_carry(p, rt, carry, None);
    let [doc, none] = [&[DOC][..], &[]].map(|nodes| rt.parts.intern(p, nodes));
    let doc = intern_state(rt, [doc, none, none], carry);
    debug_assert_eq!(doc, 0);
    let carry = intern_carry(p, rt, &[], None);
    rt.empty = intern_state(rt, [none; 3], carry);
}

/// The id of the symbol `key` (a tag, then sorted conditions), interned.
/// Symbols with conditions count in the cache and are dropped with it.
fn intern_symbol(p: &Program, rt: &mut Runtime, key: &[u32]) -> u32 {
    let (id, fresh) = rt.symbols.intern(key);
    if fresh {
        rt.cache_words += key.len() + SYMBOL_WORDS;
    }
    p.ntags as u32 + id
}

/// Cache words of a symbol besides its list: its end and table entry.
const SYMBOL_WORDS: usize = 4;

/// The tag and the sorted conditions of `symbol`.
#[inline]
fn symbol_key<'a>(p: &Program, symbols: &'a ListInterner, symbol: u32) -> (u32, &'a [u32]) {
    match (symbol as usize).checked_sub(p.ntags) {
        None => (symbol, &[]),
        Some(i) => {
            let key = symbols.get(i as u32);
            (key[0], &key[1..])
        }
    }
}

/// The `/*` children of `state`'s nodes ([`State::child_any`]): its parts'
/// (each found once per part), merged, found once per state.
fn child_any_of(p: &Program, rt: &mut Runtime, state: u32) -> AnyKids {
    let st = &rt.states[state as usize];
    if let Some(kids) = st.child_any {
        return kids;
    }
    let spans = st.parts().map(|part| rt.parts.any_kids(p, part));
    let [a, b, c] = spans.map(|s| rt.parts.arena.get(s));
    let mut any = std::mem::take(&mut rt.any);
    let [kids, plain, conds] = &mut any;
    merge_rows([a, b, c, &[]], &mut rt.merged, kids);
    split_conds(p, kids, plain, conds);
    let child_any = AnyKids {
        plain: rt.parts.intern(p, plain),
        conds: rt.parts.arena.push(conds),
    };
    rt.any = any;
    rt.states[state as usize].child_any = Some(child_any);
    child_any
}

/// The tokenizer sink: one document's run over the shared program and caches.
struct Run<'a> {
    p: &'a Program,
    rt: &'a mut Runtime,
    limit: usize,
}

impl Run<'_> {
    /// Does the element's symbol satisfy all of `conds` (both sorted)?
    #[inline]
    fn conds_hold(conds: &[u32], truth: &[u32]) -> bool {
        if conds.is_empty() {
            return true;
        }
        let mut i = 0;
        for &c in conds {
            while i < truth.len() && truth[i] < c {
                i += 1;
            }
            if i == truth.len() || truth[i] != c {
                return false;
            }
        }
        true
    }

    /// Compute one part (clean or dirty) of the push row for a child
    /// with `symbol` under `state` (that part of the parent's row): its
    /// own part, the `/` children of the state's nodes and the `//`
    /// children of its carry set with the element's tag, from joins with
    /// the tag's edge lists, and the `*` children with conditions; its
    /// `any` and `desc` parts, the state's and its carry set's `*`
    /// children without conditions, as they are (see the module doc).
    /// Each list is sorted (breadth-first numbering, one parent per node,
    /// so no duplicates); merging them gives the sorted own part.
    ///
    /// With `set_aside` (a clean row), candidates with conditions are moved
    /// there unchecked (the clean row keeps none); otherwise (a dirty row)
    /// candidates with conditions the symbol does not satisfy are dropped,
    /// and the seeds `seeds` that it satisfies join the row.
    fn compute(
        &mut self,
        state: u32,
        symbol: u32,
        seeds: u32,
        mut set_aside: Option<&mut Vec<u32>>,
    ) -> u32 {
        let p = self.p;
        let rt = &mut *self.rt;
        rt.stats.transitions_computed += 1;
        let child_any = child_any_of(p, rt, state);
        let (tag, truth) = symbol_key(p, &rt.symbols, symbol);
        let st = &rt.states[state as usize];
        let carry = st.carry;
        let cs = &rt.carries[carry as usize];
        let desc_any = cs.desc_any;
        let exact = st.parts().map(|part| rt.parts.nodes(part));
        let mut rows = std::mem::take(&mut rt.rows);
        let mut keep = |row: &mut Vec<u32>, n: u32| {
            if p.info[n as usize].flags & HAS_CONDS == 0 {
                return row.push(n);
            }
            match set_aside.as_deref_mut() {
                Some(aside) => aside.push(n),
                None if Self::conds_hold(p.open_conds.get(n), truth) => row.push(n),
                None => {}
            }
        };
        let [r0, r1, r2, r3] = &mut rows;
        let mut kids = std::mem::take(&mut rt.any[0]);
        let carried = [rt.parts.arena.get(cs.nodes)];
        for (row, parents, desc) in [
            (&mut *r0, &exact[..], false),
            (&mut *r1, &carried[..], true),
        ] {
            row.clear();
            if !p.any_conds {
                children(p, &mut rt.marks, parents, desc, tag, row);
                continue;
            }
            kids.clear();
            children(p, &mut rt.marks, parents, desc, tag, &mut kids);
            kids.iter().for_each(|&n| keep(row, n));
        }
        rt.any[0] = kids;
        for (row, any) in [(&mut *r2, child_any), (&mut *r3, desc_any)] {
            row.clear();
            for &n in rt.parts.arena.get(any.conds) {
                keep(row, n);
            }
        }
        let mut key = std::mem::take(&mut rt.scratch);
        merge_rows([r0, r1, r2, r3], &mut rt.merged, &mut key);
        if seeds != NO_SEEDS {
            let [held, kept] = &mut rt.merged;
            kept.clear();
            rt.seeds[seeds as usize].passing(p, truth, kept);
            if !kept.is_empty() {
                std::mem::swap(held, &mut key);
                key.clear();
                merge_sorted(held, kept, &mut key);
            }
        }
        let parts = [rt.parts.intern(p, &key), child_any.plain, desc_any.plain];
        rt.scratch = key;
        let new_carry = Self::carry_after(p, rt, carry, parts, &mut rows[0]);
        rt.rows = rows;
        intern_state(rt, parts, new_carry)
    }

    /// The carry set below an element whose row has `parts` and whose
    /// parent's carry set is `carry`: the parent's, plus the parts'
    /// carrying nodes.
    fn carry_after(
        p: &Program,
        rt: &mut Runtime,
        carry: u32,
        parts: [u32; 3],
        buf: &mut Vec<u32>,
    ) -> u32 {
        let mut new = std::mem::take(&mut rt.cands);
        let [a, b, c] = parts.map(|part| rt.parts.carrying(part));
        merge_rows([a, b, c, &[]], &mut rt.merged, &mut new);
        if new.is_empty() {
            rt.cands = new;
            return carry;
        }
        // The union with the parent's set into `buf`; the nodes it adds
        // (`delta`) are moved to the front of `new`, in place (`d <= j`).
        // Branch-free: which of them are new is data.
        let old = rt.parts.arena.get(rt.carries[carry as usize].nodes);
        buf.clear();
        buf.resize(old.len() + new.len(), 0);
        let (mut i, mut j, mut k, mut d) = (0, 0, 0, 0);
        while i < old.len() && j < new.len() {
            let (x, y) = (old[i], new[j]);
            buf[k] = x.min(y);
            new[d] = y;
            d += (y < x) as usize;
            i += (x <= y) as usize;
            j += (y <= x) as usize;
            k += 1;
        }
        buf[k..k + old.len() - i].copy_from_slice(&old[i..]);
        k += old.len() - i;
        while j < new.len() {
            buf[k] = new[j];
            new[d] = new[j];
            (j, k, d) = (j + 1, k + 1, d + 1);
        }
        buf.truncate(k);
        new.truncate(d);
        let id = if new.is_empty() {
            carry
        } else {
            intern_carry(p, rt, buf, Some((carry, &new)))
        };
        rt.cands = new;
        id
    }

    /// Drop the caches, keeping the states on the current stack.
    fn flush(&mut self) {
        let p = self.p;
        let rt = &mut *self.rt;
        rt.stats.flushes += 1;
        let old_states = std::mem::take(&mut rt.states);
        let old_carries = std::mem::take(&mut rt.carries);
        let old_parts = std::mem::take(&mut rt.parts);
        rt.state_lists.clear();
        rt.state_table.clear();
        rt.carry_table.clear();
        rt.trans.clear();
        rt.seeds.clear();
        rt.dirty_trans.clear();
        rt.symbols.clear();
        rt.cache_words = 0;
        intern_roots(p, rt);
        let mut remap: FxMap<u32, u32> = FxMap::default();
        for i in 0..rt.stack.len() {
            let Row { clean, dirty } = rt.stack[i];
            let [clean, dirty] = [clean, dirty].map(|s| {
                *remap.entry(s).or_insert_with(|| {
                    let st = &old_states[s as usize];
                    let carried = old_parts.arena.get(old_carries[st.carry as usize].nodes);
                    let carry = intern_carry(p, rt, carried, None);
                    let parts = st
                        .parts()
                        .map(|part| rt.parts.intern(p, old_parts.nodes(part)));
                    intern_state(rt, parts, carry)
                })
            });
            rt.stack[i] = Row { clean, dirty };
        }
    }

    fn symbol(&mut self) -> u32 {
        let rt = &mut *self.rt;
        if rt.truth.is_empty() {
            return rt.tag;
        }
        rt.truth.sort_unstable();
        rt.truth.dedup();
        let mut key = std::mem::take(&mut rt.scratch);
        key.clear();
        key.push(rt.tag);
        key.extend_from_slice(&rt.truth);
        let id = intern_symbol(self.p, rt, &key);
        rt.scratch = key;
        id
    }

    /// The row below `parent` for the current element: the clean part
    /// cached per (clean state, tag), the dirty part per (dirty state,
    /// seeds, symbol), and nothing to do for it when the parent's dirty
    /// part is empty and the clean transition has no seeds.
    fn transition(&mut self) -> Row {
        if self.rt.words() > self.limit {
            self.flush();
        }
        let parent = *self.rt.stack.last().expect("the document node's row");
        let (clean, seeds) = self.clean_transition(parent.clean, self.rt.tag);
        if seeds == NO_SEEDS && parent.dirty == self.rt.empty {
            return Row {
                clean,
                dirty: self.rt.empty,
            };
        }
        let dirty = self.dirty_transition(parent.dirty, seeds);
        Row { clean, dirty }
    }

    /// The clean state below `state` for an element with `tag`, and the
    /// seeds of the dirty row ([`Runtime::seeds`]): cached, else computed.
    fn clean_transition(&mut self, state: u32, tag: u32) -> (u32, u32) {
        let key = (state as u64) << 32 | tag as u64;
        if let Some(&t) = self.rt.trans.get(&key) {
            return t;
        }
        let mut aside = std::mem::take(&mut self.rt.aside);
        aside.clear();
        let next = self.compute(state, tag, NO_SEEDS, Some(&mut aside));
        let rt = &mut *self.rt;
        let seeds = if aside.is_empty() {
            NO_SEEDS
        } else {
            let seeds = Seeds::new(self.p, &aside);
            rt.cache_words += seeds.words();
            rt.seeds.push(seeds);
            (rt.seeds.len() - 1) as u32
        };
        rt.aside = aside;
        rt.trans.insert(key, (next, seeds));
        rt.cache_words += TRANS_WORDS;
        (next, seeds)
    }

    /// The dirty state below dirty state `state` for the current element,
    /// given the clean transition's `seeds`: cached, else computed.
    fn dirty_transition(&mut self, state: u32, seeds: u32) -> u32 {
        let symbol = self.symbol();
        let key = (state, seeds, symbol);
        if let Some(&n) = self.rt.dirty_trans.get(&key) {
            return n;
        }
        let next = self.compute(state, symbol, seeds, None);
        self.rt.dirty_trans.insert(key, next);
        self.rt.cache_words += TRANS_WORDS + 1;
        next
    }

    /// The `p:*` conditions the element (its expanded name, `{URI}local`)
    /// meets.
    fn namespace_conds(&mut self, name: &[u8]) {
        if name.first() != Some(&b'{') {
            return;
        }
        for (u, c) in &self.p.ns_conds {
            if name.len() > u.len() + 1 && name[1..].starts_with(u) && name[u.len() + 1] == b'}' {
                self.rt.truth.push(*c);
            }
        }
    }

    /// Count this element among its siblings and add the positional conditions it meets.
    fn count_siblings(&mut self) {
        let p = self.p;
        let rt = &mut *self.rt;
        let counters = &p.tag_counters[rt.tag as usize];
        if counters.is_empty() {
            return;
        }
        let level = rt.depth; // parent's depth
        let base = level * p.ncounters;
        for &k in counters {
            let guard = &p.counter_guard[k as usize];
            if !guard.iter().all(|g| rt.truth.contains(g)) {
                continue;
            }
            let slot = &mut rt.counts[base + k as usize];
            if *slot == 0 {
                rt.counts_touched[level].push(k);
            }
            *slot += 1;
            let pos = *slot as f64;
            for &(c, op, v) in &p.counter_pos[k as usize] {
                if op.num(pos, v) {
                    rt.truth.push(c);
                }
            }
        }
    }
}

impl Sink for Run<'_> {
    #[inline]
    fn start_name(&mut self, name: &[u8], _depth: u32) -> bool {
        let tag = self.p.decode_tag(name);
        self.rt.tag = tag;
        self.rt.truth.clear();
        if !self.p.ns_conds.is_empty() {
            self.namespace_conds(name);
        }
        self.p.tag_wants_attrs[tag as usize]
    }

    fn may_want_attrs(&mut self, local: &[u8]) -> bool {
        self.p.may_want_attrs(local)
    }

    fn attr_start(&mut self, name: &[u8]) -> bool {
        let p = self.p;
        let rt = &mut *self.rt;
        rt.attr_sets = [u32::MAX; 2];
        let Some(&a) = p.attr_index.get(name) else {
            return false;
        };
        let mut wants = false;
        for (i, tag) in [rt.tag, ANY_TAG].into_iter().enumerate() {
            if let Some(&s) = p.attr_set_index.get(&(tag, a)) {
                rt.attr_sets[i] = s;
                let set = &p.attr_sets[s as usize];
                rt.truth.extend_from_slice(&set.exists);
                wants |= set.needs_value();
            }
        }
        if wants {
            rt.acc.reset();
        }
        rt.attr_wants_value = wants;
        wants
    }

    #[inline]
    fn attr_value(&mut self, chunk: &[u8]) {
        self.rt.acc.push(chunk);
    }

    fn attr_end(&mut self) {
        let p = self.p;
        let rt = &mut *self.rt;
        if !rt.attr_wants_value {
            return;
        }
        for s in rt.attr_sets {
            if s == u32::MAX {
                continue;
            }
            let set = &p.attr_sets[s as usize];
            if let Some(v) = rt.acc.bytes() {
                if let Some(cs) = set.str_eq.get(v) {
                    rt.truth.extend_from_slice(cs);
                }
            }
            if !set.num_eq.is_empty() {
                let x = rt.acc.number();
                let bits = if x == 0.0 {
                    0f64.to_bits()
                } else {
                    x.to_bits()
                };
                if let Some(cs) = set.num_eq.get(&bits) {
                    rt.truth.extend_from_slice(cs);
                }
            }
            for (c, cmp) in &set.other {
                if rt.acc.satisfies(cmp) {
                    rt.truth.push(*c);
                }
            }
        }
    }

    fn open(&mut self) {
        self.count_siblings();
        let next = self.transition();
        let p = self.p;
        let rt = &mut *self.rt;
        rt.depth += 1;
        rt.stack.push(next);
        let d = rt.depth;
        rt.text_ok[d].clear();
        clear_counts(p, rt, d);
        record_accepts(rt, next.clean);
        if next.dirty != rt.empty {
            record_accepts(rt, next.dirty);
        }
    }

    fn close(&mut self) {
        let p = self.p;
        let rt = &mut *self.rt;
        let d = rt.depth;
        let row = rt.stack.pop().expect("an open element");
        rt.depth -= 1;
        if p.twig_words == 0 {
            return;
        }
        let words = p.twig_words;
        let (here, up) = (d * words, (d - 1) * words);
        let both = [row.clean, row.dirty];
        let parts = &both[..if row.dirty == rt.empty { 1 } else { 2 }];
        // Unconditional leaves (recurrence (a)): one OR per word.
        for &s in parts {
            for &(w, bits) in rt.state_lists.leaf_up(&rt.states[s as usize]) {
                let slot = &mut rt.reports[up + w as usize];
                if *slot == 0 {
                    rt.reports_touched[d - 1].push(w);
                }
                *slot |= bits;
            }
        }
        let (states, lists) = (&rt.states, &rt.state_lists);
        if parts
            .iter()
            .all(|&s| lists.inner(&states[s as usize]).is_empty())
            && rt.reports_touched[d].is_empty()
        {
            return;
        }
        // With ordered siblings, children are checked against the reports
        // accepted in order; otherwise against all reports.
        let checked = if p.ordered { &rt.ordered } else { &rt.reports };
        let checked_touched = if p.ordered {
            &rt.ordered_touched[d]
        } else {
            &rt.reports_touched[d]
        };
        // Candidates: childless twig nodes of this row, and the parents of
        // the reports received here whose push column is set at this element.
        let mut cands = std::mem::take(&mut rt.cands);
        cands.clear();
        for &s in parts {
            cands.extend_from_slice(lists.inner(&states[s as usize]));
        }
        let branching: usize = parts
            .iter()
            .map(|&s| lists.branching(&states[s as usize]).len())
            .sum();
        // The row's branching nodes, or the parents of the reports (a
        // search each): whichever list is shorter.
        if branching
            <= SEARCH_COST * parents_of_reports(p, checked, here, checked_touched, branching)
        {
            for &s in parts {
                cands.extend_from_slice(lists.branching(&states[s as usize]));
            }
        } else {
            rt.close_stamp = rt.close_stamp.wrapping_add(1);
            // A parent of a report is a candidate if its push column is
            // set here: if it is among the row's branching nodes.
            let set_here = |t: u32| {
                parts.iter().any(|&s| {
                    lists
                        .branching(&states[s as usize])
                        .binary_search(&t)
                        .is_ok()
                })
            };
            for &w in checked_touched {
                let mut bits = checked[here + w as usize];
                while bits != 0 {
                    let c = w * 64 + bits.trailing_zeros();
                    bits &= bits - 1;
                    for &t in p.twig_parents.get(c) {
                        if rt.twig_seen[t as usize] != rt.close_stamp && set_here(t) {
                            rt.twig_seen[t as usize] = rt.close_stamp;
                            cands.push(t);
                        }
                    }
                }
            }
        }
        let mut arrivals = std::mem::take(&mut rt.scratch);
        arrivals.clear();
        // Recurrence (a)-(c): twig nodes matched here report to the parent.
        for &t in cands.iter() {
            // Most candidates fail at their first child: test it from the
            // dense array before reading the node's record.
            let first = p.twig_first[t as usize];
            if first != NO_CHILD && !has_bit(checked, here, first) {
                continue;
            }
            let tn = &p.twig[t as usize];
            let ok = tn.close_conds.iter().all(|c| rt.text_ok[d].contains(c))
                && tn.children.iter().all(|&c| has_bit(checked, here, c));
            if ok {
                match tn.root_of {
                    Some(part) => rt.part_bits[(part / 64) as usize] |= 1 << (part % 64),
                    None => arrivals.push(t),
                }
            }
        }
        // Recurrence (d): reports of `//` nodes propagate downwards.
        if p.ordered {
            for &w in &rt.reports_touched[d] {
                let mut bits = rt.reports[here + w as usize] & p.desc_mask[w as usize];
                while bits != 0 {
                    arrivals.push(w * 64 + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
        } else {
            for i in 0..rt.reports_touched[d].len() {
                let w = rt.reports_touched[d][i] as usize;
                let bits = rt.reports[here + w] & p.desc_mask[w];
                if bits != 0 {
                    if rt.reports[up + w] == 0 {
                        rt.reports_touched[d - 1].push(w as u32);
                    }
                    rt.reports[up + w] |= bits;
                }
            }
        }
        if p.ordered {
            // A branch is accepted only if its previous sibling was accepted
            // from an earlier child subtree (state before this event).
            let accepted: Vec<u32> = arrivals
                .iter()
                .copied()
                .filter(|&t| {
                    let prev = p.twig[t as usize].prev;
                    prev == u32::MAX || has_bit(&rt.ordered, up, prev)
                })
                .collect();
            for t in accepted {
                set_bit(&mut rt.ordered, &mut rt.ordered_touched[d - 1], up, t);
            }
        }
        for &t in &arrivals {
            set_bit(&mut rt.reports, &mut rt.reports_touched[d - 1], up, t);
        }
        rt.scratch = arrivals;
        rt.cands = cands;
        clear_reports(p, rt, d);
    }

    #[inline]
    fn wants_text(&mut self) -> bool {
        let rt = &mut *self.rt;
        let row = *rt.stack.last().expect("the document node's row");
        let text_conds = |s: u32| rt.state_lists.text_conds(&rt.states[s as usize]);
        if text_conds(row.clean).is_empty() && text_conds(row.dirty).is_empty() {
            return false;
        }
        rt.acc.reset();
        true
    }

    #[inline]
    fn text(&mut self, chunk: &[u8]) {
        self.rt.acc.push(chunk);
    }

    fn text_end(&mut self) {
        let p = self.p;
        let rt = &mut *self.rt;
        let row = *rt.stack.last().expect("the document node's row");
        let d = rt.depth;
        for s in [row.clean, row.dirty] {
            let conds = rt.state_lists.text_conds(&rt.states[s as usize]);
            for &c in conds {
                if rt.text_ok[d].contains(&c) {
                    continue;
                }
                let ok = match &p.conds[c as usize] {
                    CondKind::TextExists => true,
                    CondKind::TextCmp(cmp) => rt.acc.satisfies(cmp),
                    _ => false,
                };
                if ok {
                    rt.text_ok[d].push(c);
                }
            }
        }
    }
}
