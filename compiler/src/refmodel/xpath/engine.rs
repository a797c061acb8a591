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
//! dispatch).
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

use super::program::{FxMap, Program, ANY_TAG, DOC};
use crate::ir::value::{compare_value, ValueAcc};
use crate::ir::xpath::{CondKind, Design};
use crate::xml::{DocStatus, Sink, Tokenizer, XmlConfig, XmlErrorAt};
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};
use std::io::Read;

/// Engine limits.
#[derive(Clone, Copy, Debug)]
pub struct EngineConfig {
    pub xml: XmlConfig,
    /// Upper bound on the memoised state cache, in 32-bit words.
    pub cache_words: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig { xml: XmlConfig::default(), cache_words: 1 << 24 }
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
}

struct State {
    /// `exact ++ [u32::MAX] ++ carry`, each sorted.
    key: Box<[u32]>,
    split: u32,
    /// Plain-path parts matched on entering this state.
    accepts: Box<[u32]>,
    /// Twig nodes whose push column is set (need work at close).
    twigs: Box<[u32]>,
    /// `text()` conditions to evaluate on this element's text children.
    text_conds: Box<[u32]>,
    /// Document stamp when `accepts` were last recorded.
    stamp: u32,
}

impl State {
    fn exact(&self) -> &[u32] {
        &self.key[..self.split as usize]
    }
    fn carry(&self) -> &[u32] {
        &self.key[self.split as usize + 1..]
    }
}

fn hash_key(k: &[u32]) -> u64 {
    let mut h = FxHasher::default();
    k.hash(&mut h);
    h.finish()
}

/// Mutable caches and per-document scratch, reused across documents.
struct Runtime {
    states: Vec<State>,
    state_table: HashTable<u32>,
    state_words: usize,
    trans: FxMap<u64, u32>,
    symbols: FxMap<Box<[u32]>, u32>,
    symbol_keys: Vec<Box<[u32]>>,
    stats: EngineStats,
    // ---- per document ----
    doc: u32,
    depth: usize,
    stack: Vec<u32>,
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
    part_stamp: Vec<u32>,
    matched_parts: Vec<u32>,
    scratch: Vec<u32>,
}

/// The software XPath filtering engine for one design.
pub struct Engine {
    prog: Program,
    rt: Runtime,
    tok: Tokenizer,
    config: EngineConfig,
}

const SEP: u32 = u32::MAX;

impl Engine {
    pub fn new(design: &Design, config: EngineConfig) -> Engine {
        let prog = Program::new(design);
        let levels = config.xml.max_depth as usize + 2;
        let mut symbols = FxMap::default();
        let mut symbol_keys = Vec::new();
        for t in 0..prog.ntags as u32 {
            symbols.insert(Box::from([t]), t);
            symbol_keys.push(Box::from([t]));
        }
        let rt = Runtime {
            states: Vec::new(),
            state_table: HashTable::new(),
            state_words: 0,
            trans: FxMap::default(),
            symbols,
            symbol_keys,
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
            ordered: vec![0; if prog.ordered { levels * prog.twig_words } else { 0 }],
            ordered_touched: vec![Vec::new(); levels],
            text_ok: vec![Vec::new(); levels],
            part_stamp: vec![0; prog.part_queries.len()],
            matched_parts: Vec::new(),
            scratch: Vec::new(),
        };
        let mut e = Engine { prog, rt, tok: Tokenizer::new(config.xml), config };
        e.reset_cache();
        e
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub fn stats(&self) -> EngineStats {
        EngineStats { states: self.rt.states.len(), ..self.rt.stats }
    }

    fn reset_cache(&mut self) {
        let rt = &mut self.rt;
        rt.states.clear();
        rt.state_table.clear();
        rt.state_words = 0;
        rt.trans.clear();
        // State 0: the document node, whose push column is always set.
        let mut key = vec![DOC, SEP];
        if self.prog.push[DOC as usize].carries() {
            key.push(DOC);
        }
        intern_state(&self.prog, rt, &key, 1);
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
            rt.part_stamp.iter_mut().for_each(|s| *s = 0);
            rt.states.iter_mut().for_each(|s| s.stamp = 0);
        }
        rt.depth = 0;
        rt.stack.clear();
        rt.stack.push(0);
        rt.matched_parts.clear();
        let levels = self.config.xml.max_depth as usize + 2;
        for l in 0..levels {
            clear_counts(&self.prog, rt, l);
            clear_reports(&self.prog, rt, l);
            rt.text_ok[l].clear();
        }
        self.tok.reset();
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        let mut run = Run { p: &self.prog, rt: &mut self.rt, cache_words: self.config.cache_words };
        self.tok.feed(chunk, &mut run);
    }

    pub fn end(&mut self) -> DocResult {
        let mut run = Run { p: &self.prog, rt: &mut self.rt, cache_words: self.config.cache_words };
        let res = self.tok.finish(&mut run);
        let (status, error) = match res {
            Ok(()) => (DocStatus::Ok, None),
            Err(e) => (e.error.status(), Some(e)),
        };
        DocResult { status, error, matched: self.matched_queries() }
    }

    fn matched_queries(&mut self) -> Vec<u32> {
        let p = &self.prog;
        let rt = &mut self.rt;
        let mut out = Vec::new();
        let mut multi: FxMap<u32, u32> = FxMap::default();
        for &part in &rt.matched_parts {
            for &q in &p.part_queries[part as usize] {
                if p.query_nparts[q as usize] == 1 {
                    out.push(q);
                } else {
                    let c = multi.entry(q).or_insert(0);
                    *c += 1;
                    if *c == p.query_nparts[q as usize] {
                        out.push(q);
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
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

fn intern_state(p: &Program, rt: &mut Runtime, key: &[u32], split: usize) -> u32 {
    let h = hash_key(key);
    if let Some(&id) = rt.state_table.find(h, |&id| &*rt.states[id as usize].key == key) {
        return id;
    }
    let exact = &key[..split];
    let mut accepts = Vec::new();
    let mut twigs = Vec::new();
    for &n in exact {
        let node = &p.push[n as usize];
        accepts.extend_from_slice(&node.accepts);
        twigs.extend_from_slice(&node.twigs);
    }
    let mut text_conds: Vec<u32> = twigs.iter().flat_map(|&t| p.twig[t as usize].close_conds.iter().copied()).collect();
    text_conds.sort_unstable();
    text_conds.dedup();
    let id = rt.states.len() as u32;
    rt.state_words += key.len() + accepts.len() + twigs.len() + text_conds.len() + 8;
    rt.states.push(State {
        key: key.into(),
        split: split as u32,
        accepts: accepts.into(),
        twigs: twigs.into(),
        text_conds: text_conds.into(),
        stamp: 0,
    });
    let states = &rt.states;
    rt.state_table.insert_unique(h, id, |&i| hash_key(&states[i as usize].key));
    id
}

/// The tokenizer sink: one document's run over the shared program and caches.
struct Run<'a> {
    p: &'a Program,
    rt: &'a mut Runtime,
    cache_words: usize,
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

    /// Compute the push row for a child with `symbol` under `state`.
    fn compute(&mut self, state: u32, symbol: u32) -> u32 {
        let p = self.p;
        let rt = &mut *self.rt;
        rt.stats.transitions_computed += 1;
        let sym = &rt.symbol_keys[symbol as usize];
        let (tag, truth) = (sym[0], &sym[1..]);
        let st = &rt.states[state as usize];
        let mut key = std::mem::take(&mut rt.scratch);
        key.clear();
        let take = |n: u32, key: &mut Vec<u32>| {
            if Self::conds_hold(&p.push[n as usize].conds, truth) {
                key.push(n);
            }
        };
        for &n in st.exact() {
            let node = &p.push[n as usize];
            for k in Program::kids(&node.child_tag, tag) {
                take(k, &mut key);
            }
            for &k in &node.child_any {
                take(k, &mut key);
            }
        }
        for &n in st.carry() {
            let node = &p.push[n as usize];
            for k in Program::kids(&node.desc_tag, tag) {
                take(k, &mut key);
            }
            for &k in &node.desc_any {
                take(k, &mut key);
            }
        }
        key.sort_unstable();
        key.dedup();
        let split = key.len();
        key.push(SEP);
        let carry_start = key.len();
        key.extend_from_slice(st.carry());
        for i in 0..split {
            let n = key[i];
            if p.push[n as usize].carries() {
                key.push(n);
            }
        }
        key[carry_start..].sort_unstable();
        let mut w = carry_start;
        for r in carry_start..key.len() {
            if w == carry_start || key[r] != key[w - 1] {
                key[w] = key[r];
                w += 1;
            }
        }
        key.truncate(w);
        if rt.state_words > self.cache_words {
            self.flush();
        }
        let rt = &mut *self.rt;
        let id = intern_state(p, rt, &key, split);
        rt.scratch = key;
        id
    }

    /// Drop the state cache, keeping the states on the current stack.
    fn flush(&mut self) {
        let rt = &mut *self.rt;
        rt.stats.flushes += 1;
        let old: Vec<State> = std::mem::take(&mut rt.states);
        rt.state_table.clear();
        rt.state_words = 0;
        rt.trans.clear();
        let mut remap: FxMap<u32, u32> = FxMap::default();
        for i in 0..rt.stack.len() {
            let s = rt.stack[i];
            let id = match remap.get(&s) {
                Some(&id) => id,
                None => {
                    let st = &old[s as usize];
                    let id = intern_state(self.p, rt, &st.key, st.split as usize);
                    rt.states[id as usize].stamp = st.stamp;
                    remap.insert(s, id);
                    id
                }
            };
            rt.stack[i] = id;
        }
        if rt.states.is_empty() {
            let key = old[0].key.clone();
            intern_state(self.p, rt, &key, old[0].split as usize);
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
        let id = match rt.symbols.get(key.as_slice()) {
            Some(&id) => id,
            None => {
                let id = rt.symbol_keys.len() as u32;
                rt.symbols.insert(key.clone().into_boxed_slice(), id);
                rt.symbol_keys.push(key.clone().into_boxed_slice());
                id
            }
        };
        rt.scratch = key;
        id
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

    #[inline]
    fn mark_part(rt: &mut Runtime, part: u32) {
        let s = &mut rt.part_stamp[part as usize];
        if *s != rt.doc {
            *s = rt.doc;
            rt.matched_parts.push(part);
        }
    }
}

impl Sink for Run<'_> {
    #[inline]
    fn start_name(&mut self, name: &[u8], _depth: u32) -> bool {
        let tag = self.p.decode_tag(name);
        self.rt.tag = tag;
        self.rt.truth.clear();
        self.p.tag_wants_attrs[tag as usize]
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
        let mut number: Option<f64> = None;
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
                let x = *number.get_or_insert_with(|| rt.acc.number());
                let bits = if x == 0.0 { 0f64.to_bits() } else { x.to_bits() };
                if let Some(cs) = set.num_eq.get(&bits) {
                    rt.truth.extend_from_slice(cs);
                }
            }
            for (c, cmp) in &set.other {
                let acc = &rt.acc;
                if compare_value(acc.bytes(), || *number.get_or_insert_with(|| acc.number()), cmp) {
                    rt.truth.push(*c);
                }
            }
        }
    }

    fn open(&mut self) {
        self.count_siblings();
        let symbol = self.symbol();
        let rt = &mut *self.rt;
        let parent = *rt.stack.last().unwrap_or(&0);
        let key = ((parent as u64) << 32) | symbol as u64;
        let next = match rt.trans.get(&key) {
            Some(&n) => n,
            None => {
                let n = self.compute(parent, symbol);
                let rt = &mut *self.rt;
                // `compute` may have flushed: the parent id may have changed.
                let parent = *rt.stack.last().unwrap_or(&0);
                rt.trans.insert(((parent as u64) << 32) | symbol as u64, n);
                n
            }
        };
        let rt = &mut *self.rt;
        rt.depth += 1;
        rt.stack.push(next);
        let d = rt.depth;
        rt.text_ok[d].clear();
        clear_counts(self.p, rt, d);
        let st = &mut rt.states[next as usize];
        if !st.accepts.is_empty() && st.stamp != rt.doc {
            st.stamp = rt.doc;
            for i in 0..rt.states[next as usize].accepts.len() {
                let part = rt.states[next as usize].accepts[i];
                Self::mark_part(rt, part);
            }
        }
    }

    fn close(&mut self) {
        let p = self.p;
        let rt = &mut *self.rt;
        let d = rt.depth;
        let s = rt.stack.pop().unwrap_or(0) as usize;
        rt.depth -= 1;
        if p.twig_words == 0 {
            return;
        }
        let words = p.twig_words;
        let (here, up) = (d * words, (d - 1) * words);
        // With ordered siblings, children are checked against the reports
        // accepted in order; otherwise against all reports.
        let checked = if p.ordered { &rt.ordered } else { &rt.reports };
        let mut arrivals = std::mem::take(&mut rt.scratch);
        arrivals.clear();
        // Recurrence (a)-(c): twig nodes matched here report to the parent.
        for &t in rt.states[s].twigs.iter() {
            let tn = &p.twig[t as usize];
            let ok = tn.close_conds.iter().all(|c| rt.text_ok[d].contains(c))
                && tn.children.iter().all(|&c| checked[here + (c / 64) as usize] >> (c % 64) & 1 == 1);
            if ok {
                match tn.root_of {
                    Some(part) => {
                        let st = &mut rt.part_stamp[part as usize];
                        if *st != rt.doc {
                            *st = rt.doc;
                            rt.matched_parts.push(part);
                        }
                    }
                    None => arrivals.push(t),
                }
            }
        }
        // Recurrence (d): reports of `//` nodes propagate downwards.
        for &w in &rt.reports_touched[d] {
            let mut bits = rt.reports[here + w as usize] & p.desc_mask[w as usize];
            while bits != 0 {
                arrivals.push(w * 64 + bits.trailing_zeros());
                bits &= bits - 1;
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
                    prev == u32::MAX || rt.ordered[up + (prev / 64) as usize] >> (prev % 64) & 1 == 1
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
        clear_reports(p, rt, d);
    }

    #[inline]
    fn wants_text(&mut self) -> bool {
        let rt = &mut *self.rt;
        let s = *rt.stack.last().unwrap_or(&0) as usize;
        if rt.states[s].text_conds.is_empty() {
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
        let s = *rt.stack.last().unwrap_or(&0) as usize;
        let d = rt.depth;
        let mut number: Option<f64> = None;
        for i in 0..rt.states[s].text_conds.len() {
            let c = rt.states[s].text_conds[i];
            if rt.text_ok[d].contains(&c) {
                continue;
            }
            let ok = match &p.conds[c as usize] {
                CondKind::TextExists => true,
                CondKind::TextCmp(cmp) => {
                    let acc = &rt.acc;
                    compare_value(acc.bytes(), || *number.get_or_insert_with(|| acc.number()), cmp)
                }
                _ => false,
            };
            if ok {
                rt.text_ok[d].push(c);
            }
        }
    }
}
