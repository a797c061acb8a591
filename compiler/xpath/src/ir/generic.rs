//! The programmable XPath engine as data (`--programmable`, SPEC §3.3,
//! dissertation §2.5.3 extended to twigs and predicates): the sizes of the
//! generic hardware, synthesized once ([`Shape`]), and a query set lowered
//! onto it ([`Config`], what `qrtl xpath configure` writes).
//!
//! **The generic structure.** One programmable tag decoder (`tags` entries
//! of up to `tag_bytes` bytes) gives each start tag a code (0: no entry);
//! `comparators` programmable condition units (an attribute test, a
//! `text()` test or a namespace test) and `counters` positional units
//! (a sibling counter with its name test and guard, and one comparison)
//! give each element a bit per unit. Tag codes and condition bits travel
//! with the events along the clusters, as in custom designs. A cluster has
//! `cluster_size` **slots** (generic stack columns) and `lanes` condition
//! lanes, each lane reading one unit's bit. A slot is one query node:
//!
//! * its name test: a tag code, or `*`;
//! * its link: a root (`/`: depth 1, `//`: any depth) or a parent slot at
//!   most `window` slots before it in the same cluster, over `/` (the
//!   parent's *exact* bit at the parent element) or `//` (the parent's
//!   *carry* bit: the parent matched at the parent element or above);
//! * the lanes that must hold when the element opens;
//! * optionally a **pop** (ch. 3.2.2, a twig node): when an element
//!   closes, the slot is *fully matched* if its exact bit is set in the
//!   closing row, its close-time lanes (`text()`) hold and every child
//!   slot marked `to_parent` reported into the closing row; it then
//!   reports into the parent row (`//` pops also pass their own reports
//!   up), and with `--ordered` a report is accepted only after the
//!   accepted report of its `prev` sibling (at most `window` slots away);
//! * a **flag**: a sticky per-document bit set when the slot fires (no
//!   pop) or is fully matched (a pop: a twig part's root).
//!
//! **Two kinds of slot.** A cluster's first `cluster_size - general`
//! slots are *chain* slots: a name test, a root or the slot just before
//! as parent, open-time lanes and a flag; no pop, no predecessor, no
//! reports: about a fifth of a general slot's logic. Its last `general`
//! slots are *general* slots, with everything above. `configure` puts
//! twigs (and the steps above them) in general slots and plain paths in
//! chain slots, copying a shared prefix where a path branches (a chain
//! slot reaches one slot back only).
//!
//! Every slot stores its exact and carry bits per stack level, and a
//! general slot its report bits too; what a custom design shares
//! (compaction, the global stack) is the price of programmability here. A query matches iff all
//! the flags [`Config::queries`] lists for it are set (one per part).

use super::tag_hash::TagHash;
use super::xpath::{Axis, CmpOp, Compare, Namespaces, SiblingOrder};
use std::fmt::{self, Write as _};

/// Most condition lanes a cluster may have.
pub const MAX_LANES: usize = 12;

/// The sizes of a programmable design.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Slots in all (a multiple of `cluster_size`).
    pub columns: usize,
    /// Slots per cluster (one stack memory, one copy of the event inputs).
    pub cluster_size: usize,
    /// How far back a general slot's parent (and forward its pop
    /// children, and either way its `--ordered` predecessor) may be.
    pub window: usize,
    /// General slots per cluster (its last ones); the others are chain
    /// slots.
    pub general: usize,
    /// Tag decoder entries.
    pub tags: usize,
    /// Longest name a tag entry or an attribute test holds (the local
    /// part, under namespace-aware names).
    pub tag_bytes: usize,
    /// Namespace URIs the decoder resolves names to (namespace-aware
    /// designs).
    pub uris: usize,
    /// Longest namespace URI.
    pub uri_bytes: usize,
    /// Condition units: attribute, `text()` and namespace tests.
    pub comparators: usize,
    /// Entries of a comparator's literal memory: a string literal's bytes,
    /// or a number literal's rounding bounds (two decimal digits an entry:
    /// `config_words::literal_entries`, about 55 for everyday numbers).
    pub literal_bytes: usize,
    /// Positional units.
    pub counters: usize,
    /// Condition lanes per cluster (at most 12: a slot's two lane masks
    /// and its links fit one 64-bit configuration word).
    pub lanes: usize,
    pub max_depth: u32,
    pub namespaces: Namespaces,
}

impl Shape {
    /// A shape of `columns` slots with the default sizes.
    pub fn with_columns(columns: usize) -> Shape {
        Shape {
            columns,
            cluster_size: columns.min(128),
            window: 16,
            general: columns.min(128) / 4,
            tags: (columns / 2).max(16),
            tag_bytes: 32,
            uris: 8,
            uri_bytes: 64,
            comparators: (columns / 16).max(8),
            literal_bytes: 64,
            counters: (columns / 64).max(4),
            lanes: 8,
            max_depth: 32,
            namespaces: Namespaces::Xpath,
        }
    }

    pub fn clusters(&self) -> usize {
        self.columns / self.cluster_size
    }

    /// Chain slots per cluster: slots `0..chain()` of each cluster.
    pub fn chain(&self) -> usize {
        self.cluster_size - self.general
    }

    /// Why the sizes cannot be built, if they cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.columns == 0 || self.cluster_size == 0 {
            return Err("a programmable design needs at least one column".into());
        }
        if self.columns % self.cluster_size != 0 {
            return Err(format!(
                "{} columns are not a whole number of clusters of {}",
                self.columns, self.cluster_size
            ));
        }
        if self.general > self.cluster_size {
            return Err(format!(
                "{} general columns in a cluster of {}",
                self.general, self.cluster_size
            ));
        }
        if !(1..=32).contains(&self.window) {
            return Err(format!("window {}: must be 1 to 32", self.window));
        }
        if !(1..=MAX_LANES).contains(&self.lanes) {
            return Err(format!("{} lanes: must be 1 to {MAX_LANES}", self.lanes));
        }
        if !(1..=255).contains(&self.tag_bytes) || !(1..=255).contains(&self.literal_bytes) {
            return Err("names and literals hold 1 to 255 bytes".into());
        }
        if self.tags > MAX_TAGS || self.uris > 254 {
            return Err(format!(
                "at most {MAX_TAGS} tag entries and 254 namespace URIs"
            ));
        }
        Ok(())
    }
}

/// Most tag entries: the decoder's perfect hash has twice as many 16-bit
/// slots ([`crate::ir::tag_hash`]).
pub const MAX_TAGS: usize = 1 << 14;

/// A name the hardware compares: a namespace (an index into
/// [`Config::uris`], or none) and the local part (the whole name under
/// raw names).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    pub uri: Option<u32>,
    pub local: Vec<u8>,
}

/// What a comparator tests.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// `[@a]`
    AttrExists(Name),
    /// `[@a OP v]`
    AttrCmp(Name, Compare),
    /// `[text()]` (close-time)
    TextExists,
    /// `[text() OP v]` (close-time)
    TextCmp(Compare),
    /// `p:*`: the element's namespace is this URI.
    InNamespace(u32),
}

impl Unit {
    pub fn is_close_time(&self) -> bool {
        matches!(self, Unit::TextExists | Unit::TextCmp(_))
    }
}

/// A condition bit: a comparator's or a positional unit's. Lanes select
/// these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bit {
    Comparator(u32),
    Counter(u32),
}

/// A positional unit: per parent element it counts the children whose
/// tag passes `test` (a tag code, `None`: every element) and whose `guard`
/// bits all hold (earlier units' positions, comparators), and its bit is
/// `count OP value` at each counted child.
#[derive(Clone, Debug, PartialEq)]
pub struct Counter {
    pub test: Option<u32>,
    pub guard: Vec<Bit>,
    pub op: CmpOp,
    pub value: f64,
}

/// A slot's link to the rest of its query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// A query's first step: `/` (the document element) or `//` (any
    /// element).
    Root(Axis),
    /// The slot `back` places before this one, over `axis`.
    Parent { back: u32, axis: Axis },
}

/// A slot's pop (a twig node).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pop {
    /// `//`: reports also travel up one level per close.
    pub axis: Axis,
    /// Lanes (`text()` units) that must hold when the element closes.
    pub close_lanes: u32,
    /// Reports to its parent slot's pop (false for a part's pop root).
    pub to_parent: bool,
    /// `--ordered`: the sibling slot (this slot's index plus this) whose
    /// accepted report must come first.
    pub prev: Option<i32>,
}

/// One generic stack column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// A tag code (1..=tags), `None` for `*`.
    pub tag: Option<u32>,
    pub link: Link,
    /// Lanes that must hold when the element opens.
    pub open_lanes: u32,
    pub pop: Option<Pop>,
    pub flag: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterConfig {
    /// What each lane reads.
    pub lanes: Vec<Bit>,
    /// The slots up to the last in use (`None`: off); the rest are off.
    /// Slots `Shape::chain()..` are general.
    pub slots: Vec<Option<Slot>>,
}

/// Where a flag is: (cluster, slot).
pub type FlagRef = (u32, u32);

/// A query set lowered onto a [`Shape`].
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub shape: Shape,
    pub uris: Vec<Vec<u8>>,
    /// Tag entry `i` gives the code `i + 1`.
    pub tags: Vec<Name>,
    /// The decoder's perfect hash over `tags` (their
    /// [`tag_key`](super::config_words::tag_key)s).
    pub tag_hash: TagHash,
    pub comparators: Vec<Unit>,
    pub counters: Vec<Counter>,
    pub order: SiblingOrder,
    pub clusters: Vec<ClusterConfig>,
    /// Per query (in id order), the flags that must all be set.
    pub queries: Vec<Vec<FlagRef>>,
    /// Per query, its line and text (for the dump and the results).
    pub texts: Vec<(usize, String)>,
    /// Duplicated slots: copies of a query prefix placed where a parent
    /// was out of reach (a cluster boundary, or beyond the window).
    pub copies: usize,
}

impl Config {
    /// Slots in use.
    pub fn used_slots(&self) -> usize {
        let on = |c: &ClusterConfig| c.slots.iter().filter(|s| s.is_some()).count();
        self.clusters.iter().map(on).sum()
    }

    /// The code the tag decoder gives `name` (0: no entry), as the
    /// hardware finds it: the code in the slot the name hashes to, if that
    /// entry holds the name (a name longer than the entries never does).
    pub fn tag_code(&self, name: &Name) -> u32 {
        if name.local.len() > self.shape.tag_bytes {
            return 0;
        }
        // The key as `tag_key` writes it: the URI + 1 under
        // namespace-aware names, then the bytes.
        let uri = [name.uri.map_or(0, |u| u as u8 + 1)];
        let prefix: &[u8] = match self.shape.namespaces {
            Namespaces::Xpath => &uri,
            Namespaces::Raw => &[],
        };
        let c = self.tag_hash.code_of_parts(&[prefix, &name.local]);
        match self.tags.get((c as usize).wrapping_sub(1)) {
            Some(t) if t == name => c,
            _ => 0,
        }
    }
}

fn axis_str(a: Axis) -> &'static str {
    match a {
        Axis::Child => "/",
        Axis::Descendant => "//",
    }
}

impl Config {
    fn name_text(&self, n: &Name) -> String {
        let local = String::from_utf8_lossy(&n.local);
        match n.uri {
            Some(u) => format!(
                "{{{}}}{local}",
                String::from_utf8_lossy(&self.uris[u as usize])
            ),
            None => local.into_owned(),
        }
    }

    fn unit_text(&self, u: &Unit) -> String {
        let cmp = |c: &Compare| {
            let v = match &c.value {
                super::xpath::Value::Str(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
                super::xpath::Value::Num(b) => format!("{}", f64::from_bits(*b)),
            };
            format!("{} {v}", c.op.as_str())
        };
        match u {
            Unit::AttrExists(n) => format!("@{}", self.name_text(n)),
            Unit::AttrCmp(n, c) => format!("@{} {}", self.name_text(n), cmp(c)),
            Unit::TextExists => "text()".into(),
            Unit::TextCmp(c) => format!("text() {}", cmp(c)),
            Unit::InNamespace(u) => format!(
                "namespace {}",
                String::from_utf8_lossy(&self.uris[*u as usize])
            ),
        }
    }
}

fn bit_text(b: Bit) -> String {
    match b {
        Bit::Comparator(k) => format!("c{k}"),
        Bit::Counter(k) => format!("p{k}"),
    }
}

fn lanes_text(mask: u32) -> String {
    (0..32)
        .filter(|l| mask >> l & 1 == 1)
        .map(|l| format!("l{l}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// The readable dump (`qrtl xpath configure --dump`).
impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.shape;
        writeln!(
            f,
            "# {} of {} slots in use ({} copies), {} clusters of {} ({} general), window {}",
            self.used_slots(),
            s.columns,
            self.copies,
            s.clusters(),
            s.cluster_size,
            s.general,
            s.window
        )?;
        for (i, u) in self.uris.iter().enumerate() {
            writeln!(f, "uri {i} {}", String::from_utf8_lossy(u))?;
        }
        for (i, t) in self.tags.iter().enumerate() {
            writeln!(f, "tag {} {}", i + 1, self.name_text(t))?;
        }
        for (i, u) in self.comparators.iter().enumerate() {
            writeln!(f, "c{i} {}", self.unit_text(u))?;
        }
        for (i, c) in self.counters.iter().enumerate() {
            let test = c.test.map_or("*".to_string(), |t| format!("tag {t}"));
            let guard: Vec<String> = c.guard.iter().map(|b| bit_text(*b)).collect();
            writeln!(
                f,
                "p{i} count {test} guard [{}] position {} {}",
                guard.join(" "),
                c.op.as_str(),
                c.value
            )?;
        }
        for (k, cl) in self.clusters.iter().enumerate() {
            let lanes: Vec<String> = cl.lanes.iter().map(|b| bit_text(*b)).collect();
            writeln!(f, "cluster {k} lanes [{}]", lanes.join(" "))?;
            for (i, slot) in cl.slots.iter().enumerate() {
                if let Some(slot) = slot {
                    writeln!(f, "  {i:4} {}", slot_text(slot))?;
                }
            }
        }
        for (q, flags) in self.queries.iter().enumerate() {
            let fl: Vec<String> = flags.iter().map(|(c, s)| format!("{c}.{s}")).collect();
            let (line, text) = &self.texts[q];
            writeln!(f, "query {q} flags {} # line {line}: {text}", fl.join(" "))?;
        }
        Ok(())
    }
}

fn slot_text(slot: &Slot) -> String {
    let mut out = String::new();
    match slot.link {
        Link::Root(a) => write!(out, "root {}", axis_str(a)),
        Link::Parent { back, axis } => write!(out, "-{back} {}", axis_str(axis)),
    }
    .expect("a string");
    match slot.tag {
        Some(t) => write!(out, " tag {t}"),
        None => write!(out, " *"),
    }
    .expect("a string");
    if slot.open_lanes != 0 {
        write!(out, " [{}]", lanes_text(slot.open_lanes)).expect("a string");
    }
    if let Some(p) = slot.pop {
        write!(out, " pop {}", axis_str(p.axis)).expect("a string");
        if p.close_lanes != 0 {
            write!(out, " close [{}]", lanes_text(p.close_lanes)).expect("a string");
        }
        if p.to_parent {
            out.push_str(" up");
        }
        if let Some(d) = p.prev {
            write!(out, " after {d:+}").expect("a string");
        }
    }
    if slot.flag {
        out.push_str(" flag");
    }
    out
}
