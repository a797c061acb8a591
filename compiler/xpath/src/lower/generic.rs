//! `qrtl xpath configure`: an XPath design (after its passes) lowered onto
//! the slots of a programmable design ([`crate::ir::generic`]), or refused
//! with the resource that does not fit and the amounts.
//!
//! 1. **Units.** Tags, attribute names and namespace URIs become decoder
//!    entries; every open- or close-time condition but a position becomes
//!    a comparator, every position a positional unit (its counter's test
//!    and guard, and its comparison), in counter order so a guard reads
//!    earlier units only.
//! 2. **Query trees.** The steps of each part down to its pop root (all of
//!    a plain path) are merged with every other part's in one trie keyed
//!    by (parent, axis, test, open conditions): prefix merging. A twig
//!    part's pop-root subtree gets nodes of its own, each with a pop.
//! 3. **Layout.** Trees are laid out depth-first, smaller subtrees first
//!    (a node's later children then stay near it), filling clusters in
//!    order: twigs and the steps above them in each cluster's general
//!    slots, plain paths in its chain slots (and in general slots once
//!    the chain slots are used up). A slot must reach its parent in its
//!    own region of its cluster, within the window (one slot back for a
//!    chain slot); when it cannot, the parent's chain of ancestors (steps
//!    without pops) is *copied* next to it: a copy fires exactly when the
//!    original does. So a path tree in chain slots is one chain per
//!    branch. A pop cannot be copied (its children report to it), so a
//!    twig's subtree is kept in one cluster and its children must lie
//!    within the window. A cluster also ends when its condition lanes are
//!    used up.

use crate::ir::config_words::{is_chain_slot, literal_entries, tag_key};
use crate::ir::generic::{
    Bit, ClusterConfig, Config, Counter, FlagRef, Link, Name, Pop, Shape, Slot, Unit,
};
use crate::ir::tag_hash::TagHash;
use crate::ir::xpath::{
    clark_local, clark_uri, Axis, CmpOp, CondId, CondKind, Design, NodeId, SiblingOrder, TagId,
    Test,
};
use rustc_hash::FxHashMap as HashMap;
use std::fmt;

/// Why a query set was not configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigureError {
    /// The design's sizes are not buildable.
    Shape(String),
    /// No perfect hash of the tag names was found (never seen: a handful
    /// of seeds at most for thousands of names).
    TagHash(String),
    /// The queries read names one way and the design the other.
    Namespaces {
        design: &'static str,
        queries: &'static str,
    },
    /// A resource is too small: what, how much the set needs, how much the
    /// design has, and (where one query or cluster decides it) which.
    DoesNotFit {
        resource: &'static str,
        needs: usize,
        has: usize,
        detail: String,
    },
}

impl fmt::Display for ConfigureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigureError::Shape(why) | ConfigureError::TagHash(why) => f.write_str(why),
            ConfigureError::Namespaces { design, queries } => write!(
                f,
                "the design compares names as `--namespaces {design}`, the queries were read with `--namespaces {queries}`; read them with `--namespaces {design}`"
            ),
            ConfigureError::DoesNotFit {
                resource,
                needs,
                has,
                detail,
            } => {
                write!(f, "needs {needs} {resource}; the design has {has}")?;
                if !detail.is_empty() {
                    write!(f, " ({detail})")?;
                }
                Ok(())
            }
        }
    }
}

fn does_not_fit(
    resource: &'static str,
    needs: usize,
    has: usize,
    detail: String,
) -> ConfigureError {
    ConfigureError::DoesNotFit {
        resource,
        needs,
        has,
        detail,
    }
}

/// Lower `design` onto `shape`.
pub fn configure(design: &Design, shape: &Shape) -> Result<Config, ConfigureError> {
    shape.check().map_err(ConfigureError::Shape)?;
    if design.namespaces != shape.namespaces {
        return Err(ConfigureError::Namespaces {
            design: shape.namespaces.as_str(),
            queries: design.namespaces.as_str(),
        });
    }
    let mut units = Units::new(design, shape);
    units.build()?;
    let trie = Trie::build(design, &units);
    let mut layout = Layout::new(shape, &trie);
    for &root in &trie.roots {
        layout.tree(root)?;
    }
    let clusters = layout.finish()?;
    let queries = design
        .queries
        .iter()
        .map(|q| {
            q.parts
                .iter()
                .map(|p| layout.home[trie.part_flag[p.index()]].expect("every node is placed"))
                .collect()
        })
        .collect();
    let xpath = shape.namespaces == crate::ir::xpath::Namespaces::Xpath;
    let keys: Vec<Vec<u8>> = units.tags.iter().map(|t| tag_key(t, xpath)).collect();
    let tag_hash = TagHash::build(&keys).map_err(ConfigureError::TagHash)?;
    Ok(Config {
        shape: *shape,
        uris: units.uris,
        tags: units.tags,
        tag_hash,
        comparators: units.comparators,
        counters: units.counters,
        order: design.order,
        clusters,
        queries,
        texts: design
            .queries
            .iter()
            .map(|q| (q.line, q.text.clone()))
            .collect(),
        copies: layout.copies,
    })
}

/// Step 1: decoder entries and condition units.
struct Units<'a> {
    design: &'a Design,
    shape: &'a Shape,
    uris: Vec<Vec<u8>>,
    tags: Vec<Name>,
    tag_code: HashMap<TagId, u32>,
    comparators: Vec<Unit>,
    counters: Vec<Counter>,
    /// Per design condition, its bit.
    bits: Vec<Option<Bit>>,
}

impl<'a> Units<'a> {
    fn new(design: &'a Design, shape: &'a Shape) -> Units<'a> {
        Units {
            design,
            shape,
            uris: Vec::new(),
            tags: Vec::new(),
            tag_code: HashMap::default(),
            comparators: Vec::new(),
            counters: Vec::new(),
            bits: vec![None; design.conds.len()],
        }
    }

    fn uri(&mut self, uri: &[u8]) -> Result<u32, ConfigureError> {
        if let Some(i) = self.uris.iter().position(|u| u == uri) {
            return Ok(i as u32);
        }
        if uri.len() > self.shape.uri_bytes {
            return Err(does_not_fit(
                "bytes of namespace URI",
                uri.len(),
                self.shape.uri_bytes,
                String::from_utf8_lossy(uri).into_owned(),
            ));
        }
        self.uris.push(uri.to_vec());
        Ok(self.uris.len() as u32 - 1)
    }

    /// A design name (Clark notation under namespace-aware names) as the
    /// decoder compares it.
    fn name(&mut self, name: &[u8]) -> Result<Name, ConfigureError> {
        let local = clark_local(name);
        if local.len() > self.shape.tag_bytes {
            return Err(does_not_fit(
                "bytes of name",
                local.len(),
                self.shape.tag_bytes,
                String::from_utf8_lossy(name).into_owned(),
            ));
        }
        let uri = clark_uri(name).map(|u| self.uri(u)).transpose()?;
        Ok(Name {
            uri,
            local: local.to_vec(),
        })
    }

    fn tag(&mut self, test: Test) -> Result<Option<u32>, ConfigureError> {
        let Test::Tag(t) = test else { return Ok(None) };
        if let Some(&c) = self.tag_code.get(&t) {
            return Ok(Some(c));
        }
        let name = self.name(self.design.tags.name(t))?;
        self.tags.push(name);
        let code = self.tags.len() as u32;
        self.tag_code.insert(t, code);
        Ok(Some(code))
    }

    /// The longest literal of the conditions, checked after the units are
    /// counted (a design without comparators refuses the count): a
    /// string's bytes, or the digits of a number's rounding bounds
    /// (`config_words::literal_entries`).
    fn literal_fits(&self) -> Result<(), ConfigureError> {
        let longest = self
            .comparators
            .iter()
            .filter_map(|u| match u {
                Unit::AttrCmp(_, c) | Unit::TextCmp(c) => Some((literal_entries(c), c)),
                _ => None,
            })
            .max_by_key(|(n, _)| *n);
        match longest {
            Some((n, c)) if n > self.shape.literal_bytes => {
                let (what, text) = match &c.value {
                    crate::ir::xpath::Value::Str(s) if matches!(c.op, CmpOp::Eq | CmpOp::Ne) => {
                        ("bytes of literal", String::from_utf8_lossy(s).into_owned())
                    }
                    v => (
                        "literal bytes for a number's rounding bounds",
                        match v {
                            crate::ir::xpath::Value::Str(s) => {
                                format!("\"{}\"", String::from_utf8_lossy(s))
                            }
                            crate::ir::xpath::Value::Num(b) => format!("{}", f64::from_bits(*b)),
                        },
                    ),
                };
                Err(does_not_fit(what, n, self.shape.literal_bytes, text))
            }
            _ => Ok(()),
        }
    }

    fn build(&mut self) -> Result<(), ConfigureError> {
        let d = self.design;
        for n in &d.nodes {
            self.tag(n.test)?;
        }
        for (i, c) in d.conds.iter().enumerate() {
            let unit = match c {
                CondKind::AttrExists(a) => Unit::AttrExists(self.name(d.attrs.name(*a))?),
                CondKind::AttrCmp(a, cmp) => {
                    Unit::AttrCmp(self.name(d.attrs.name(*a))?, cmp.clone())
                }
                CondKind::TextExists => Unit::TextExists,
                CondKind::TextCmp(cmp) => Unit::TextCmp(cmp.clone()),
                CondKind::InNamespace(uri) => Unit::InNamespace(self.uri(uri)?),
                CondKind::Position { .. } => continue,
            };
            self.bits[i] = Some(Bit::Comparator(self.comparators.len() as u32));
            self.comparators.push(unit);
        }
        // Positional units in counter order: a guard reads earlier ones.
        for (k, counter) in d.counters.iter().enumerate() {
            let test = self.tag(counter.test)?;
            let guard: Vec<Bit> = counter
                .guard
                .iter()
                .map(|g| self.bits[g.index()].expect("guards read earlier conditions"))
                .collect();
            for (i, c) in d.conds.iter().enumerate() {
                if let CondKind::Position { counter, op, value } = c {
                    if counter.index() == k {
                        self.bits[i] = Some(Bit::Counter(self.counters.len() as u32));
                        self.counters.push(Counter {
                            test,
                            guard: guard.clone(),
                            op: *op,
                            value: f64::from_bits(*value),
                        });
                    }
                }
            }
        }
        let s = self.shape;
        let checks = [
            ("tag entries", self.tags.len(), s.tags),
            ("namespace URIs", self.uris.len(), s.uris),
            ("comparators", self.comparators.len(), s.comparators),
            ("positional counters", self.counters.len(), s.counters),
        ];
        for (what, needs, has) in checks {
            if needs > has {
                return Err(does_not_fit(what, needs, has, String::new()));
            }
        }
        self.literal_fits()
    }

    fn bits_of(&self, conds: &[CondId]) -> Vec<Bit> {
        let mut out: Vec<Bit> = conds
            .iter()
            .map(|c| self.bits[c.index()].expect("every condition has a bit"))
            .collect();
        out.sort_unstable();
        out
    }
}

/// A node of the merged query trees.
struct TNode {
    parent: Option<usize>,
    axis: Axis,
    tag: Option<u32>,
    open: Vec<Bit>,
    children: Vec<usize>,
    pop: Option<TPop>,
    flag: bool,
    /// Slots of its subtree (without copies).
    size: usize,
    /// Its subtree holds a pop (a twig): it goes to general slots.
    twiggy: bool,
}

struct TPop {
    axis: Axis,
    close: Vec<Bit>,
    to_parent: bool,
    /// `--ordered`: the previous sibling's node.
    prev: Option<usize>,
}

/// Step 2: the query trees, prefixes merged.
struct Trie {
    nodes: Vec<TNode>,
    roots: Vec<usize>,
    /// Per design part, the node holding its flag.
    part_flag: Vec<usize>,
}

type TrieKey = (Option<usize>, Axis, Option<u32>, Vec<Bit>);

impl Trie {
    fn build(design: &Design, units: &Units) -> Trie {
        let mut t = Trie {
            nodes: Vec::new(),
            roots: Vec::new(),
            part_flag: Vec::with_capacity(design.parts.len()),
        };
        let mut index: HashMap<TrieKey, usize> = HashMap::default();
        for part in &design.parts {
            let pop_root = part.pop_root(design);
            let mut at = None;
            let mut n = Some(part.root);
            while let Some(id) = n.filter(|&id| Some(id) != pop_root) {
                let node = design.node(id);
                let key = (
                    at,
                    node.axis,
                    units.tag_code.get(&tag_of(node.test)).copied(),
                    units.bits_of(&node.open_conds),
                );
                let next = match index.get(&key) {
                    Some(&i) => i,
                    None => {
                        let i = t.add(at, node.axis, key.2, key.3.clone(), None);
                        index.insert(key, i);
                        i
                    }
                };
                at = Some(next);
                n = node.children.first().copied();
            }
            let flag = match pop_root {
                None => at.expect("a part has a node"),
                Some(r) => t.twig(design, units, r, at, None),
            };
            t.nodes[flag].flag = true;
            t.part_flag.push(flag);
        }
        for i in (0..t.nodes.len()).rev() {
            t.nodes[i].size += 1;
            t.nodes[i].twiggy |= t.nodes[i].pop.is_some();
            if let Some(p) = t.nodes[i].parent {
                t.nodes[p].size += t.nodes[i].size;
                t.nodes[p].twiggy |= t.nodes[i].twiggy;
            }
        }
        t
    }

    fn add(
        &mut self,
        parent: Option<usize>,
        axis: Axis,
        tag: Option<u32>,
        open: Vec<Bit>,
        pop: Option<TPop>,
    ) -> usize {
        let i = self.nodes.len();
        self.nodes.push(TNode {
            parent,
            axis,
            tag,
            open,
            children: Vec::new(),
            pop,
            flag: false,
            size: 0,
            twiggy: false,
        });
        match parent {
            Some(p) => self.nodes[p].children.push(i),
            None => self.roots.push(i),
        }
        i
    }

    /// The pop subtree of design node `n` under trie node `at`; `prev`:
    /// its previous sibling's trie node under `--ordered`.
    fn twig(
        &mut self,
        design: &Design,
        units: &Units,
        n: NodeId,
        at: Option<usize>,
        prev: Option<usize>,
    ) -> usize {
        let node = design.node(n);
        let is_root = at.is_none_or(|a| self.nodes[a].pop.is_none());
        let pop = TPop {
            axis: node.axis,
            close: units.bits_of(&node.close_conds),
            to_parent: !is_root,
            prev,
        };
        let tag = units.tag_code.get(&tag_of(node.test)).copied();
        let me = self.add(
            at,
            node.axis,
            tag,
            units.bits_of(&node.open_conds),
            Some(pop),
        );
        let mut prev = None;
        for &c in &node.children {
            let child = self.twig(design, units, c, Some(me), prev);
            if design.order == SiblingOrder::Ordered {
                prev = Some(child);
            }
        }
        me
    }
}

fn tag_of(test: Test) -> TagId {
    match test {
        Test::Tag(t) => t,
        Test::Any => TagId(u32::MAX),
    }
}

/// Which slots of a cluster a node takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    /// Slots `0..chain()`: a parent one slot back, no pop.
    Chain = 0,
    /// Slots `chain()..cluster_size`.
    General = 1,
}

impl Region {
    fn size(self, shape: &Shape) -> usize {
        match self {
            Region::Chain => shape.chain(),
            Region::General => shape.general,
        }
    }

    /// The cluster's slot index of the region's first slot.
    fn base(self, shape: &Shape) -> u32 {
        match self {
            Region::Chain => 0,
            Region::General => shape.chain() as u32,
        }
    }

    /// How far back a slot of the region reaches its parent.
    fn window(self, shape: &Shape) -> u32 {
        match self {
            Region::Chain => 1,
            Region::General => shape.window as u32,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Region::Chain => "chain columns in one cluster",
            Region::General => "general columns in one cluster",
        }
    }
}

/// One region's slots in one cluster, each with its open-time bits.
type Bin = Vec<(Slot, Vec<Bit>)>;

/// Step 3: slots in clusters.
struct Layout<'a> {
    shape: &'a Shape,
    trie: &'a Trie,
    /// Per region, its part of every cluster laid out so far (bin `k` in
    /// cluster `k`; more than the design has when the set does not fit:
    /// the count is the refusal's figure).
    bins: [Vec<Bin>; 2],
    /// Per cluster, the bits its lanes read.
    lanes: Vec<Vec<Bit>>,
    /// Per trie node, the slot representing it now (a copy after one is
    /// made) and where it was first placed (its flag and pop).
    rep: Vec<Option<FlagRef>>,
    home: Vec<Option<FlagRef>>,
    /// No chain slots are left: plain paths take general slots too.
    chain_full: bool,
    copies: usize,
}

impl<'a> Layout<'a> {
    fn new(shape: &'a Shape, trie: &'a Trie) -> Layout<'a> {
        Layout {
            shape,
            trie,
            bins: [vec![Vec::new()], vec![Vec::new()]],
            lanes: vec![Vec::new()],
            rep: vec![None; trie.nodes.len()],
            home: vec![None; trie.nodes.len()],
            chain_full: false,
            copies: 0,
        }
    }

    fn bin(&self, r: Region) -> &Bin {
        self.bins[r as usize].last().expect("a bin")
    }

    /// The cluster region `r` fills now.
    fn cur(&self, r: Region) -> u32 {
        self.bins[r as usize].len() as u32 - 1
    }

    /// The cluster's slot index of region `r`'s next slot.
    fn next(&self, r: Region) -> u32 {
        r.base(self.shape) + self.bin(r).len() as u32
    }

    fn room(&self, r: Region) -> usize {
        r.size(self.shape) - self.bin(r).len()
    }

    /// Lanes region `r`'s cluster would need with `bits` added.
    fn lanes_with(&self, r: Region, bits: &[Bit]) -> usize {
        let lanes = &self.lanes[self.cur(r) as usize];
        lanes.len() + bits.iter().filter(|b| !lanes.contains(b)).count()
    }

    fn new_bin(&mut self, r: Region) {
        self.bins[r as usize].push(Vec::new());
        while self.lanes.len() < self.bins[r as usize].len() {
            self.lanes.push(Vec::new());
        }
    }

    /// Slots and lanes region `r` needs for `slots` slots with `bits`
    /// after the copies of the ancestors from `parent` up it cannot reach.
    fn needs(
        &self,
        r: Region,
        parent: Option<usize>,
        slots: usize,
        bits: &[Bit],
    ) -> (usize, usize) {
        let (chain, mut all) = self.unreached_chain(r, parent);
        all.extend(bits);
        all.sort_unstable();
        all.dedup();
        (slots + chain, self.lanes_with(r, &all))
    }

    /// Room for `slots` slots with lanes for `bits` in region `want`. A
    /// twig takes general slots. A plain path takes chain slots while the
    /// design has them, then general slots; where neither has room, more
    /// chain slots than the design has (the refusal's count, at
    /// [`Layout::finish`]).
    fn make_room(
        &mut self,
        want: Region,
        parent: Option<usize>,
        slots: usize,
        bits: &[Bit],
    ) -> Result<Region, ConfigureError> {
        let s = self.shape;
        if want == Region::General || s.chain() == 0 {
            self.room_in(Region::General, parent, slots, bits, usize::MAX)?;
            return Ok(Region::General);
        }
        if !self.chain_full {
            match self.room_in(Region::Chain, parent, slots, bits, s.clusters()) {
                Ok(true) => return Ok(Region::Chain),
                Ok(false) => self.chain_full = true,
                Err(e) if s.general == 0 => return Err(e),
                // Longer than a cluster's chain slots.
                Err(_) => {}
            }
        }
        if s.general > 0
            && self.room_in(Region::General, parent, slots, bits, s.clusters()) == Ok(true)
        {
            return Ok(Region::General);
        }
        self.room_in(Region::Chain, parent, slots, bits, usize::MAX)?;
        Ok(Region::Chain)
    }

    /// Whether region `r` has room for `slots` slots with lanes for `bits`
    /// in its cluster, or in a new one while it has fewer than `limit`
    /// (past any whose lanes the other region has taken); refused when a
    /// fresh cluster (no lanes taken) has no room either.
    fn room_in(
        &mut self,
        r: Region,
        parent: Option<usize>,
        slots: usize,
        bits: &[Bit],
        limit: usize,
    ) -> Result<bool, ConfigureError> {
        let fits = |l: &Self| {
            let (s, lanes) = l.needs(r, parent, slots, bits);
            l.room(r) >= s && lanes <= l.shape.lanes
        };
        if fits(self) {
            return Ok(true);
        }
        loop {
            if self.bins[r as usize].len() >= limit {
                return Ok(false);
            }
            self.new_bin(r);
            if fits(self) {
                return Ok(true);
            }
            if self.lanes[self.cur(r) as usize].is_empty() {
                break;
            }
        }
        let (s, lanes) = self.needs(r, parent, slots, bits);
        let (resource, needs, has) = if lanes > self.shape.lanes {
            ("condition lanes in one cluster", lanes, self.shape.lanes)
        } else {
            (r.name(), s, r.size(self.shape))
        };
        let detail = match r {
            Region::General if self.shape.chain() > 0 => {
                "for one query tree: a twig and the steps above it stay in one cluster's general columns (--general-columns)"
            }
            Region::General => "for one query tree: a twig and the steps above it stay in one cluster",
            Region::Chain => "for one path: its steps stay in one cluster's chain columns",
        };
        Err(does_not_fit(resource, needs, has, detail.into()))
    }

    /// How far back `at` is from region `r`'s next slot, if a link can
    /// reach it.
    fn reach(&self, r: Region, at: Option<FlagRef>) -> Option<u32> {
        let (c, s) = at?;
        let next = self.next(r);
        let near = c == self.cur(r) && s >= r.base(self.shape) && s < next;
        (near && next - s <= r.window(self.shape)).then(|| next - s)
    }

    fn tree(&mut self, n: usize) -> Result<(), ConfigureError> {
        let t = self.trie;
        let node = &t.nodes[n];
        let region = match &node.pop {
            // Reserved at its twig's root.
            Some(p) if p.to_parent => Region::General,
            // A twig's subtree goes into one cluster.
            Some(_) => {
                let bits = subtree_bits(t, n);
                self.make_room(Region::General, node.parent, node.size, &bits)?
            }
            None => {
                let want = if node.twiggy && self.shape.general > 0 {
                    Region::General
                } else {
                    Region::Chain
                };
                self.make_room(want, node.parent, 1, &node.open)?
            }
        };
        let link = self.link_of(region, n)?;
        let at = self.place(region, n, link);
        self.home[n] = Some(at);
        let mut kids = node.children.clone();
        kids.sort_by_key(|&k| t.nodes[k].size);
        for k in kids {
            self.tree(k)?;
        }
        Ok(())
    }

    /// The ancestors from `parent` up that region `r`'s next slot cannot
    /// reach (they would be copied) and the condition bits of those copies.
    fn unreached_chain(&self, r: Region, parent: Option<usize>) -> (usize, Vec<Bit>) {
        let mut n = 0;
        let mut bits = Vec::new();
        let mut p = parent;
        while let Some(i) = p {
            if self.reach(r, self.rep[i]).is_some() {
                break;
            }
            n += 1;
            bits.extend(&self.trie.nodes[i].open);
            p = self.trie.nodes[i].parent;
        }
        (n, bits)
    }

    /// The link of node `n` in region `r`, copying its ancestors there
    /// when its parent is out of reach.
    fn link_of(&mut self, r: Region, n: usize) -> Result<Link, ConfigureError> {
        let node = &self.trie.nodes[n];
        let Some(parent) = node.parent else {
            return Ok(Link::Root(node.axis));
        };
        if self.reach(r, self.rep[parent]).is_none() {
            if self.trie.nodes[parent].pop.is_some() {
                let at = self.rep[parent].expect("placed").1;
                return Err(does_not_fit(
                    "window places between a twig step and its child",
                    (self.next(r) - at) as usize,
                    self.shape.window,
                    "a wider --window fits it".into(),
                ));
            }
            self.copy(r, parent);
        }
        let back = self
            .reach(r, self.rep[parent])
            .expect("reached after copying");
        Ok(Link::Parent {
            back,
            axis: node.axis,
        })
    }

    /// A copy of pop-less node `n` (after copies of its ancestors out of
    /// reach) at region `r`'s next slot; `make_room` left room for it.
    fn copy(&mut self, r: Region, n: usize) {
        let node = &self.trie.nodes[n];
        let link = match node.parent {
            None => Link::Root(node.axis),
            Some(p) => {
                if self.reach(r, self.rep[p]).is_none() {
                    self.copy(r, p);
                }
                Link::Parent {
                    back: self.reach(r, self.rep[p]).expect("reached after copying"),
                    axis: node.axis,
                }
            }
        };
        let slot = Slot {
            tag: node.tag,
            link,
            open_lanes: 0,
            pop: None,
            flag: false,
        };
        let at = self.push(r, slot, node.open.clone(), &[]);
        self.rep[n] = Some(at);
        self.copies += 1;
    }

    fn place(&mut self, r: Region, n: usize, link: Link) -> FlagRef {
        let node = &self.trie.nodes[n];
        let slot = Slot {
            tag: node.tag,
            link,
            open_lanes: 0,
            pop: node.pop.as_ref().map(|p| Pop {
                axis: p.axis,
                close_lanes: 0,
                to_parent: p.to_parent,
                prev: None,
            }),
            flag: node.flag,
        };
        let close = node.pop.as_ref().map_or(&[][..], |p| &p.close[..]);
        let at = self.push(r, slot, node.open.clone(), close);
        self.rep[n] = Some(at);
        at
    }

    /// Append `slot` (with its open-time bits; `close`: its pop's) to
    /// region `r`, taking lanes of its cluster for bits it has none for.
    fn push(&mut self, r: Region, slot: Slot, open: Vec<Bit>, close: &[Bit]) -> FlagRef {
        let (k, at) = (self.cur(r), self.next(r));
        let lanes = &mut self.lanes[k as usize];
        for b in open.iter().chain(close) {
            if !lanes.contains(b) {
                lanes.push(*b);
            }
        }
        self.bins[r as usize]
            .last_mut()
            .expect("a bin")
            .push((slot, open));
        (k, at)
    }

    /// Slots region `r` takes in all, counting the unused end of every
    /// full cluster.
    fn region_needs(&self, r: Region) -> usize {
        let bins = &self.bins[r as usize];
        (bins.len() - 1) * r.size(self.shape) + self.bin(r).len()
    }

    /// The refusal if the slots overflow the design.
    fn overflow(&self) -> Result<(), ConfigureError> {
        let s = self.shape;
        let over = |r: Region| self.bins[r as usize].len() > s.clusters();
        if !over(Region::Chain) && !over(Region::General) {
            return Ok(());
        }
        let used: usize = self.bins.iter().flatten().map(|b| b.len()).sum();
        let detail = format!(
            "{used} slots in clusters of {} ({} general), {} of them copies",
            s.cluster_size, s.general, self.copies
        );
        if over(Region::General) && !self.chain_full && s.chain() > 0 {
            return Err(does_not_fit(
                "general columns",
                self.region_needs(Region::General),
                s.general * s.clusters(),
                format!("twigs and the steps above them take general columns (--general-columns); {detail}"),
            ));
        }
        let needs = self
            .region_needs(Region::Chain)
            .max(s.chain() * s.clusters())
            + self.region_needs(Region::General);
        Err(does_not_fit("columns", needs, s.columns, detail))
    }

    /// Lanes, lane masks and `--ordered` links; the refusal if the slots
    /// overflow the design.
    fn finish(&mut self) -> Result<Vec<ClusterConfig>, ConfigureError> {
        self.overflow()?;
        let chain = self.shape.chain();
        let mut out: Vec<ClusterConfig> = Vec::new();
        for (k, lanes) in self.lanes.iter().enumerate() {
            let mut lanes = lanes.clone();
            let mut slots = Vec::new();
            for r in [Region::Chain, Region::General] {
                let Some(bin) = self.bins[r as usize].get(k).filter(|b| !b.is_empty()) else {
                    continue;
                };
                slots.resize(r.base(self.shape) as usize, None);
                for (slot, open) in bin {
                    let mut slot = *slot;
                    slot.open_lanes = lane_mask(&mut lanes, open);
                    slots.push(Some(slot));
                }
            }
            debug_assert!(slots.iter().take(chain).flatten().all(is_chain_slot));
            out.push(ClusterConfig { lanes, slots });
        }
        let mut pops = Vec::new();
        for (n, node) in self.trie.nodes.iter().enumerate() {
            if let Some(p) = &node.pop {
                pops.push((n, p));
            }
        }
        for (n, p) in pops {
            let (c, s) = self.home[n].expect("placed");
            let close_lanes = lane_mask(&mut out[c as usize].lanes, &p.close);
            let prev = match p.prev {
                None => None,
                Some(q) => {
                    let (qc, qs) = self.home[q].expect("placed");
                    let d = qs as i64 - s as i64;
                    if qc != c || d.unsigned_abs() as usize > self.shape.window {
                        return Err(does_not_fit(
                            "window places between ordered siblings",
                            d.unsigned_abs() as usize,
                            self.shape.window,
                            String::new(),
                        ));
                    }
                    Some(d as i32)
                }
            };
            let pop = out[c as usize].slots[s as usize]
                .as_mut()
                .and_then(|s| s.pop.as_mut())
                .expect("a pop slot");
            pop.close_lanes = close_lanes;
            pop.prev = prev;
        }
        for (k, cl) in out.iter().enumerate() {
            if cl.lanes.len() > self.shape.lanes {
                return Err(does_not_fit(
                    "condition lanes in one cluster",
                    cl.lanes.len(),
                    self.shape.lanes,
                    format!("cluster {k}"),
                ));
            }
        }
        Ok(out)
    }
}

fn subtree_bits(t: &Trie, n: usize) -> Vec<Bit> {
    let mut bits = Vec::new();
    let mut stack = vec![n];
    while let Some(i) = stack.pop() {
        let node = &t.nodes[i];
        bits.extend(&node.open);
        if let Some(p) = &node.pop {
            bits.extend(&p.close);
        }
        stack.extend(&node.children);
    }
    bits.sort_unstable();
    bits.dedup();
    bits
}

/// The mask of `bits` over `lanes`, adding lanes for new bits.
fn lane_mask(lanes: &mut Vec<Bit>, bits: &[Bit]) -> u32 {
    let mut mask = 0;
    for b in bits {
        let i = match lanes.iter().position(|l| l == b) {
            Some(i) => i,
            None => {
                lanes.push(*b);
                lanes.len() - 1
            }
        };
        if i < 32 {
            mask |= 1 << i;
        }
    }
    mask
}
