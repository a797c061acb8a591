//! Synthetic workloads for benchmarks and randomized tests, in the style of
//! the ones YFilter was evaluated with:
//!
//! * documents like those of IBM's XMLGenerator over the NITF DTD
//!   ([`DocGen`], [`DocGenConfig`]): recursive, repeated children,
//!   attributes and text with small numeric values (1..=20);
//! * path queries like YFilter's query generator ([`QueryGen`],
//!   [`QueryGenConfig`]): random walks over the same grammar, depth up to
//!   `max_depth`, each step `*` with probability `prob_star` and reached by
//!   `//` with probability `prob_desc`, optionally distinct, optionally with
//!   attribute predicates and twig branches.
//!
//! Both work over a [`Vocab`]: element names, the children and attributes
//! seen under each. The NITF one ([`Vocab::nitf`]) is the checked-in
//! `queries/nitf-vocab.txt`, derived once from YFilter's NITF documents by
//! `bench/nitf-vocab.py`. Everything is deterministic for a given seed.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::OnceLock;

/// The NITF vocabulary file, as checked in.
pub const NITF_VOCAB: &str = include_str!("../../../../queries/nitf-vocab.txt");

/// One element of a [`Vocab`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElemDef {
    pub name: String,
    /// Whether the element carries character data.
    pub text: bool,
    /// Allowed children, in grammar order.
    pub children: Vec<Child>,
    /// Attribute names.
    pub attrs: Vec<String>,
}

/// An allowed child of an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Child {
    /// Index into [`Vocab::elems`].
    pub elem: u32,
    /// Present in every instance of the parent (DTD: no `?`/`*`).
    pub required: bool,
    /// May occur more than once under one parent (DTD: `*`/`+`).
    pub repeat: bool,
}

/// An element grammar: element → allowed children, attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocab {
    pub elems: Vec<ElemDef>,
    /// Possible document elements.
    pub roots: Vec<u32>,
}

impl Vocab {
    /// The NITF vocabulary (`queries/nitf-vocab.txt`).
    pub fn nitf() -> &'static Vocab {
        static V: OnceLock<Vocab> = OnceLock::new();
        V.get_or_init(|| Vocab::parse(NITF_VOCAB).expect("queries/nitf-vocab.txt is valid"))
    }

    /// Parse the vocabulary format:
    ///
    /// ```text
    /// # comment
    /// root NAME...
    /// NAME [#text] : CHILD CHILD? CHILD* CHILD+ ... | ATTR ATTR ...
    /// ```
    ///
    /// Occurrence marks as in a DTD: none = required once, `?` optional,
    /// `*` optional and repeatable, `+` required and repeatable. Children
    /// may be named before their own line; every name must have a line.
    pub fn parse(text: &str) -> Result<Vocab, String> {
        let mut index: HashMap<String, u32> = HashMap::new();
        let mut elems: Vec<ElemDef> = Vec::new();
        let mut defined: Vec<bool> = Vec::new();
        let mut root_names: Vec<String> = Vec::new();
        fn id(
            index: &mut HashMap<String, u32>,
            elems: &mut Vec<ElemDef>,
            defined: &mut Vec<bool>,
            name: &str,
        ) -> u32 {
            if let Some(&i) = index.get(name) {
                return i;
            }
            let i = elems.len() as u32;
            index.insert(name.to_string(), i);
            elems.push(ElemDef {
                name: name.to_string(),
                text: false,
                children: Vec::new(),
                attrs: Vec::new(),
            });
            defined.push(false);
            i
        }
        for (lineno, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |m: &str| format!("vocabulary line {}: {m}", lineno + 1);
            if let Some(rest) = line.strip_prefix("root ") {
                root_names.extend(rest.split_whitespace().map(str::to_string));
                continue;
            }
            let (head, body) = line
                .split_once(':')
                .ok_or_else(|| err("expected `NAME : children | attrs`"))?;
            let (kids, attrs) = body.split_once('|').unwrap_or((body, ""));
            let mut head_words = head.split_whitespace();
            let name = head_words
                .next()
                .ok_or_else(|| err("missing element name"))?;
            let mut has_text = false;
            for w in head_words {
                match w {
                    "#text" => has_text = true,
                    _ => return Err(err(&format!("unknown flag `{w}`"))),
                }
            }
            let e = id(&mut index, &mut elems, &mut defined, name);
            if defined[e as usize] {
                return Err(err(&format!("element `{name}` defined twice")));
            }
            defined[e as usize] = true;
            let mut children = Vec::new();
            for k in kids.split_whitespace() {
                let (k, required, repeat) = match k.as_bytes()[k.len() - 1] {
                    b'?' => (&k[..k.len() - 1], false, false),
                    b'*' => (&k[..k.len() - 1], false, true),
                    b'+' => (&k[..k.len() - 1], true, true),
                    _ => (k, true, false),
                };
                if k.is_empty() {
                    return Err(err("empty child name"));
                }
                children.push(Child {
                    elem: id(&mut index, &mut elems, &mut defined, k),
                    required,
                    repeat,
                });
            }
            let el = &mut elems[e as usize];
            el.text = has_text;
            el.children = children;
            el.attrs = attrs.split_whitespace().map(str::to_string).collect();
        }
        if let Some(i) = defined.iter().position(|d| !d) {
            return Err(format!(
                "vocabulary: element `{}` is used but has no line",
                elems[i].name
            ));
        }
        let mut roots = Vec::new();
        for r in &root_names {
            roots.push(
                *index
                    .get(r)
                    .ok_or_else(|| format!("vocabulary: root `{r}` has no line"))?,
            );
        }
        if roots.is_empty() {
            return Err("vocabulary: no `root` line".to_string());
        }
        Ok(Vocab { elems, roots })
    }

    pub fn elem(&self, i: u32) -> &ElemDef {
        &self.elems[i as usize]
    }

    /// Index of an element by name.
    pub fn find(&self, name: &str) -> Option<u32> {
        self.elems
            .iter()
            .position(|e| e.name == name)
            .map(|i| i as u32)
    }
}

// ---------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------

/// Parameters of the document generator.
#[derive(Clone, Debug)]
pub struct DocGenConfig {
    pub seed: u64,
    /// Total size of the corpus [`DocGen::corpus`] generates, in bytes.
    pub target_bytes: usize,
    /// Size range of one document, in bytes. Documents aim at a size drawn
    /// uniformly from it; a document may stay below its aim when the
    /// grammar or `max_depth` runs out.
    pub doc_bytes: (usize, usize),
    /// Deepest element nesting (document element = 1).
    pub max_depth: u32,
    /// Most occurrences of a repeatable child in one round.
    pub max_repeats: u32,
    /// Probability that an optional child occurs (once the element expands;
    /// required children always do, budget permitting).
    pub child_prob: f64,
    /// Probability that an allowed attribute occurs.
    pub attr_prob: f64,
    /// Probability that an element which carries text has some.
    pub text_prob: f64,
    /// Attribute and text values are integers in `1..=max_value`.
    pub max_value: u32,
    /// Start each document with an XML comment naming the generator.
    pub header: bool,
}

impl Default for DocGenConfig {
    fn default() -> Self {
        DocGenConfig {
            seed: 1,
            target_bytes: 1 << 20,
            doc_bytes: (10_000, 50_000),
            max_depth: 12,
            max_repeats: 3,
            child_prob: 0.5,
            attr_prob: 0.4,
            text_prob: 0.7,
            max_value: 20,
            header: true,
        }
    }
}

/// An element needs at least this much budget to get children.
const MIN_EXPAND: usize = 48;
/// Most rounds of children under one element (rounds after the first only
/// add repeatable children, to use up budget left by small subtrees).
const MAX_ROUNDS: u32 = 3;

/// Document generator in the style of IBM's XMLGenerator: a stream of
/// documents over a [`Vocab`], deterministic for a seed.
pub struct DocGen<'v> {
    vocab: &'v Vocab,
    cfg: DocGenConfig,
    rng: SmallRng,
    docs: u64,
    plan: Vec<u32>,
}

impl<'v> DocGen<'v> {
    pub fn new(vocab: &'v Vocab, cfg: DocGenConfig) -> DocGen<'v> {
        let rng = SmallRng::seed_from_u64(cfg.seed);
        DocGen {
            vocab,
            cfg,
            rng,
            docs: 0,
            plan: Vec::new(),
        }
    }

    /// The next document, aiming at a size drawn from `doc_bytes`.
    pub fn next_doc(&mut self) -> Vec<u8> {
        let (lo, hi) = self.cfg.doc_bytes;
        let aim = if hi > lo {
            self.rng.gen_range(lo..=hi)
        } else {
            lo
        };
        self.doc_of_size(aim)
    }

    /// The next document, aiming at `aim` bytes.
    pub fn doc_of_size(&mut self, aim: usize) -> Vec<u8> {
        self.docs += 1;
        let mut out = Vec::with_capacity(aim + aim / 4 + 256);
        if self.cfg.header {
            let _ = write!(
                Wrapper(&mut out),
                "<!-- Generated by qrtl::workload (XMLGenerator style)\n\tseed={}, document={}, maxDepth={}, maxRepeats={}\n-->\n",
                self.cfg.seed,
                self.docs,
                self.cfg.max_depth,
                self.cfg.max_repeats
            );
        }
        let root = self.vocab.roots[self.rng.gen_range(0..self.vocab.roots.len())];
        let budget = aim.saturating_sub(out.len());
        self.element(root, 1, budget, &mut out);
        out.push(b'\n');
        out
    }

    /// Documents until their total size reaches `target_bytes`.
    pub fn corpus(&mut self) -> Vec<Vec<u8>> {
        let mut docs = Vec::new();
        let mut total = 0;
        while total < self.cfg.target_bytes {
            let d = self.next_doc();
            total += d.len();
            docs.push(d);
        }
        docs
    }

    fn value(&mut self) -> u32 {
        self.rng.gen_range(1..=self.cfg.max_value.max(1))
    }

    /// Write element `e` at `depth`, using about `budget` bytes (less if the
    /// grammar runs out); returns the bytes written.
    fn element(&mut self, e: u32, depth: u32, budget: usize, out: &mut Vec<u8>) -> usize {
        let start = out.len();
        let vocab = self.vocab;
        let el = vocab.elem(e);
        out.push(b'<');
        out.extend_from_slice(el.name.as_bytes());
        for a in &el.attrs {
            if self.rng.gen_bool(self.cfg.attr_prob) {
                let v = self.value();
                let _ = write!(Wrapper(out), " {a}=\"{v}\"");
            }
        }
        out.push(b'>');
        if el.text && self.rng.gen_bool(self.cfg.text_prob) {
            let v = self.value();
            let _ = write!(Wrapper(out), "{v}");
        }
        let close_len = el.name.len() + 3;
        let own = out.len() - start + close_len;
        let mut remaining = budget.saturating_sub(own);
        if depth < self.cfg.max_depth && !el.children.is_empty() {
            let mut round = 0;
            while remaining >= MIN_EXPAND && round < MAX_ROUNDS {
                // Plan this round's children in grammar order.
                let mut plan = std::mem::take(&mut self.plan);
                plan.clear();
                for c in &el.children {
                    if round > 0 && !c.repeat {
                        continue;
                    }
                    if (round == 0 && c.required) || self.rng.gen_bool(self.cfg.child_prob) {
                        let n = if c.repeat {
                            self.rng.gen_range(1..=self.cfg.max_repeats.max(1))
                        } else {
                            1
                        };
                        plan.extend(std::iter::repeat_n(c.elem, n as usize));
                    }
                }
                if plan.is_empty() && round == 0 {
                    plan.push(el.children[self.rng.gen_range(0..el.children.len())].elem);
                }
                if plan.is_empty() {
                    break;
                }
                // Share the budget out with random weights; what a child
                // leaves unused goes to its later siblings.
                let weights: Vec<u32> = plan.iter().map(|_| self.rng.gen_range(1..=4)).collect();
                let mut wsum: u64 = weights.iter().map(|&w| w as u64).sum();
                let mut written = 0;
                for (i, &c) in plan.iter().enumerate() {
                    if remaining == 0 {
                        break;
                    }
                    let share = (remaining as u64 * weights[i] as u64 / wsum.max(1)) as usize;
                    wsum -= weights[i] as u64;
                    out.push(b'\n');
                    let used = self.element(c, depth + 1, share.saturating_sub(1), out) + 1;
                    remaining = remaining.saturating_sub(used);
                    written += used;
                }
                self.plan = plan;
                if written == 0 {
                    break;
                }
                round += 1;
                // Only rounds of repeatable children after the first.
                if !el.children.iter().any(|c| c.repeat) {
                    break;
                }
            }
        }
        out.extend_from_slice(b"</");
        out.extend_from_slice(el.name.as_bytes());
        out.push(b'>');
        out.len() - start
    }
}

/// `fmt::Write` into a byte vector.
struct Wrapper<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Wrapper<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Convenience: a whole corpus for `cfg` over `vocab`.
/// YFilter's NITF suites (read-only shared data): `$QRTL_NITF_DIR` if set,
/// else `shared/data/yfilter-nitf` beside the repository (`../shared`), else
/// the workplace's `/work/shared`. Used by tests and `qrtl-bench`.
pub fn nitf_dir() -> std::path::PathBuf {
    use std::path::{Path, PathBuf};
    if let Some(d) = std::env::var_os("QRTL_NITF_DIR") {
        return PathBuf::from(d);
    }
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/yfilter-nitf");
    if beside.is_dir() {
        return beside;
    }
    PathBuf::from("/work/shared/data/yfilter-nitf")
}

pub fn generate_docs(vocab: &Vocab, cfg: &DocGenConfig) -> Vec<Vec<u8>> {
    DocGen::new(vocab, cfg.clone()).corpus()
}

// ---------------------------------------------------------------------------
// Queries
// ---------------------------------------------------------------------------

/// Parameters of the query generator (YFilter's: depth, wildcard
/// probability, descendant probability, distinct queries).
#[derive(Clone, Debug)]
pub struct QueryGenConfig {
    pub seed: u64,
    /// Number of queries to generate.
    pub count: usize,
    /// Query depth (number of location steps) is drawn uniformly from
    /// `min_depth..=max_depth`; a walk that reaches a leaf element stops early.
    pub min_depth: u32,
    pub max_depth: u32,
    /// Probability that a step's name test is `*`.
    pub prob_star: f64,
    /// Probability that a step uses the `//` axis.
    pub prob_desc: f64,
    /// With `//`, the walk skips up to this many extra levels of the grammar.
    pub max_desc_skip: u32,
    /// Generate no query twice (by text). If the grammar runs out of
    /// distinct queries, fewer than `count` are returned.
    pub distinct: bool,
    /// Probability that a step gets an attribute predicate `[@a=N]`
    /// (only steps whose element has attributes).
    pub prob_attr_pred: f64,
    /// Quote attribute-predicate values (`[@a="N"]`, as in YFilter's
    /// simple_predicates suite) rather than writing numbers.
    pub quote_values: bool,
    /// Probability that a step gets a twig branch `[rel/path]`.
    pub prob_twig: f64,
    /// Most steps in a twig branch.
    pub twig_max_depth: u32,
    /// Predicate values are integers in `1..=max_value`.
    pub max_value: u32,
    /// Probability that a step gets a positional predicate (`[N]` or
    /// `[position() OP N]`, after its attribute predicate if any).
    pub prob_pos_pred: f64,
    /// Probability that a step gets a `text()` predicate (`[text()]` or
    /// `[text() OP N]`, last).
    pub prob_text_pred: f64,
    /// Probability that a step inside a twig branch gets predicates of its
    /// own (nested predicates).
    pub prob_nested: f64,
}

impl Default for QueryGenConfig {
    fn default() -> Self {
        QueryGenConfig {
            seed: 1,
            count: 1000,
            min_depth: 1,
            max_depth: 8,
            prob_star: 0.15,
            prob_desc: 0.15,
            max_desc_skip: 3,
            distinct: true,
            prob_attr_pred: 0.0,
            quote_values: false,
            prob_twig: 0.0,
            twig_max_depth: 2,
            max_value: 20,
            prob_pos_pred: 0.0,
            prob_text_pred: 0.0,
            prob_nested: 0.0,
        }
    }
}

/// Query generator in the style of YFilter's: random walks from a root of
/// the grammar.
pub struct QueryGen<'v> {
    vocab: &'v Vocab,
    cfg: QueryGenConfig,
    rng: SmallRng,
    seen: HashSet<String>,
}

impl<'v> QueryGen<'v> {
    pub fn new(vocab: &'v Vocab, cfg: QueryGenConfig) -> QueryGen<'v> {
        let rng = SmallRng::seed_from_u64(cfg.seed);
        QueryGen {
            vocab,
            cfg,
            rng,
            seen: HashSet::new(),
        }
    }

    /// One query (not checked for distinctness).
    pub fn next_query(&mut self) -> String {
        let lo = self.cfg.min_depth.max(1);
        let hi = self.cfg.max_depth.max(lo);
        let depth = self.rng.gen_range(lo..=hi);
        let mut q = String::new();
        let mut cur: Option<u32> = None;
        for _ in 0..depth {
            match self.step(cur, &mut q, true) {
                Some(e) => cur = Some(e),
                None => break,
            }
        }
        q
    }

    /// `count` queries (distinct if configured).
    pub fn queries(&mut self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.cfg.count);
        let max_attempts = self.cfg.count.saturating_mul(50).max(1000);
        let mut attempts = 0;
        while out.len() < self.cfg.count && attempts < max_attempts {
            attempts += 1;
            let q = self.next_query();
            if q.is_empty() {
                continue;
            }
            if self.cfg.distinct && !self.seen.insert(q.clone()) {
                continue;
            }
            out.push(q);
        }
        out
    }

    /// A random child of `cur` in the grammar (a root for the document node).
    fn pick(&mut self, cur: Option<u32>) -> Option<u32> {
        match cur {
            None => {
                let roots = &self.vocab.roots;
                Some(roots[self.rng.gen_range(0..roots.len())])
            }
            Some(e) => {
                let kids = &self.vocab.elem(e).children;
                if kids.is_empty() {
                    None
                } else {
                    Some(kids[self.rng.gen_range(0..kids.len())].elem)
                }
            }
        }
    }

    /// Append one step below `cur` (`/x` or `//x`; `x` or `x` without the
    /// leading `/` if `absolute` is false and `q` is empty); returns the
    /// element walked to.
    fn step(&mut self, cur: Option<u32>, q: &mut String, with_preds: bool) -> Option<u32> {
        let mut at = self.pick(cur)?;
        let desc = self.rng.gen_bool(self.cfg.prob_desc);
        if desc {
            let skip = self.rng.gen_range(0..=self.cfg.max_desc_skip);
            for _ in 0..skip {
                match self.pick(Some(at)) {
                    Some(n) => at = n,
                    None => break,
                }
            }
        }
        q.push_str(if desc { "//" } else { "/" });
        if self.rng.gen_bool(self.cfg.prob_star) {
            q.push('*');
        } else {
            q.push_str(&self.vocab.elem(at).name);
        }
        if with_preds {
            self.predicates(at, q);
        }
        Some(at)
    }

    fn predicates(&mut self, at: u32, q: &mut String) {
        let vocab = self.vocab;
        let el = vocab.elem(at);
        if self.cfg.prob_attr_pred > 0.0
            && !el.attrs.is_empty()
            && self.rng.gen_bool(self.cfg.prob_attr_pred)
        {
            let a = &el.attrs[self.rng.gen_range(0..el.attrs.len())];
            let v = self.rng.gen_range(1..=self.cfg.max_value.max(1));
            if self.cfg.quote_values {
                let _ = write!(q, "[@{a}=\"{v}\"]");
            } else {
                let _ = write!(q, "[@{a}={v}]");
            }
        }
        if self.cfg.prob_pos_pred > 0.0 && self.rng.gen_bool(self.cfg.prob_pos_pred) {
            let v = self.rng.gen_range(1..=3);
            let ops = ["=", "!=", "<", "<=", ">", ">="];
            match self.rng.gen_range(0..3) {
                0 => {
                    let _ = write!(q, "[{v}]");
                }
                _ => {
                    let op = ops[self.rng.gen_range(0..ops.len())];
                    let _ = write!(q, "[position() {op} {v}]");
                }
            }
        }
        if self.cfg.prob_twig > 0.0
            && !el.children.is_empty()
            && self.rng.gen_bool(self.cfg.prob_twig)
        {
            let n = self.rng.gen_range(1..=self.cfg.twig_max_depth.max(1));
            let mut branch = String::new();
            let mut cur = at;
            for _ in 0..n {
                let nested = self.cfg.prob_nested > 0.0 && self.rng.gen_bool(self.cfg.prob_nested);
                match self.step(Some(cur), &mut branch, nested) {
                    Some(e) => cur = e,
                    None => break,
                }
            }
            // `/x/y` → `x/y`, `//x/y` → `.//x/y`.
            let rel = match branch.strip_prefix("//") {
                Some(rest) => format!(".//{rest}"),
                None => branch[1..].to_string(),
            };
            let _ = write!(q, "[{rel}]");
        }
        if self.cfg.prob_text_pred > 0.0 && self.rng.gen_bool(self.cfg.prob_text_pred) {
            let v = self.rng.gen_range(1..=self.cfg.max_value.max(1));
            let ops = ["=", "!=", "<", ">="];
            match self.rng.gen_range(0..4) {
                0 => q.push_str("[text()]"),
                1 => {
                    let _ = write!(q, "[text()=\"{v}\"]");
                }
                _ => {
                    let op = ops[self.rng.gen_range(0..ops.len())];
                    let _ = write!(q, "[text() {op} {v}]");
                }
            }
        }
    }
}

/// Convenience: `cfg.count` queries over `vocab`.
pub fn generate_queries(vocab: &Vocab, cfg: &QueryGenConfig) -> Vec<String> {
    QueryGen::new(vocab, cfg.clone()).queries()
}

/// A query file's text: one query per line.
pub fn query_file(queries: &[String]) -> String {
    let mut s = String::with_capacity(queries.iter().map(|q| q.len() + 1).sum());
    for q in queries {
        s.push_str(q);
        s.push('\n');
    }
    s
}

/// Synthetic path queries over an abstract alphabet, in the style of the
/// dissertation's scaling experiments (no vocabulary, so every query node is
/// one tag comparison): `len` steps over the names `t0`..`t{tags-1}`, each
/// step `//` with probability `prob_desc` (else `/`) and `*` with
/// probability `prob_star`. Used by the hardware benches (compile time,
/// area and clock rate against the number of queries).
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticPathConfig {
    pub count: usize,
    /// Steps per query.
    pub len: usize,
    /// Size of the tag alphabet.
    pub tags: usize,
    pub prob_desc: f64,
    pub prob_star: f64,
    pub seed: u64,
}

impl SyntheticPathConfig {
    /// `count` queries of `len` steps, 200 tags, 15% `//`, 15% `*`.
    pub fn new(count: usize, len: usize, seed: u64) -> SyntheticPathConfig {
        SyntheticPathConfig {
            count,
            len,
            tags: 200,
            prob_desc: 0.15,
            prob_star: 0.15,
            seed,
        }
    }
}

/// A query file of [`SyntheticPathConfig`] queries, one per line.
pub fn synthetic_path_queries(cfg: &SyntheticPathConfig) -> String {
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let mut out = String::new();
    for _ in 0..cfg.count {
        for _ in 0..cfg.len {
            out.push_str(if rng.gen_bool(cfg.prob_desc) {
                "//"
            } else {
                "/"
            });
            if rng.gen_bool(cfg.prob_star) {
                out.push('*');
            } else {
                let _ = write!(out, "t{}", rng.gen_range(0..cfg.tags.max(1)));
            }
        }
        out.push('\n');
    }
    out
}

/// A document mutated by 1–4 random edits (a byte inserted, removed,
/// replaced or bit-flipped, a piece duplicated, a truncation), the bytes
/// mostly drawn from the delimiters XML parsers test: a generator of
/// malformed and nearly-well-formed input for the parser's tests.
pub fn mutate_document(rng: &mut SmallRng, mut doc: Vec<u8>) -> Vec<u8> {
    const BYTES: &[u8] = b"<>/?!-[]&#;x=\"' \r\nDa";
    for _ in 0..rng.gen_range(1..5) {
        let len = doc.len();
        let byte = if rng.gen_bool(0.8) {
            BYTES[rng.gen_range(0..BYTES.len())]
        } else {
            rng.gen()
        };
        match rng.gen_range(0..6) {
            0 => doc.insert(rng.gen_range(0..=len), byte),
            1 if len > 0 => {
                doc.remove(rng.gen_range(0..len));
            }
            2 if len > 0 => doc[rng.gen_range(0..len)] = byte,
            3 if len > 0 => {
                // Flip one bit.
                let p = rng.gen_range(0..len);
                doc[p] ^= 1 << rng.gen_range(0..8);
            }
            4 if len > 0 => {
                let p = rng.gen_range(0..len);
                let n = rng.gen_range(1..16);
                let piece = doc[p..(p + n).min(len)].to_vec();
                doc.splice(p..p, piece);
            }
            _ => doc.truncate(rng.gen_range(0..=len)),
        }
    }
    doc
}

#[cfg(test)]
mod tests;

/// The queries of a query file the path RTL covers today: every
/// non-blank, non-`#` line without a `text()` or positional predicate, one
/// per line (ids are renumbered by position in the result).
pub fn path_rtl_subset(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter(|l| {
            !l.contains("text()")
                && !l.contains("position()")
                && !l
                    .split('[')
                    .skip(1)
                    .any(|p| p.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}
