//! The XPath design IR: what the RTL is emitted from and what the reference
//! engine runs.
//!
//! * A **tag dictionary** maps every element name used by a query to a
//!   [`TagId`]; every other name decodes to [`TagId::OTHER`] (the hardware
//!   tag decoder's "other" code).
//! * **Conditions** are per-element facts the parser stage evaluates
//!   (ch. 2.4.5: predicates become extra tag identifiers): attribute tests
//!   and sibling positions are known when the start tag ends (open-time);
//!   `text()` tests are known when the element closes (close-time).
//! * **Counters** count, per parent element, the children passing a name test
//!   and a guard (the conditions of the predicates before a positional one).
//! * **Nodes** are query steps. A node's push-stack column holds "the path
//!   from the document node to this node matches at this element". Nodes form
//!   one tree per **part**; a query matches iff all of its parts match
//!   (holistic mode: one part per query, `paths`/`pairs` modes: the split
//!   pieces). Every node of a part that is not a plain path (it branches or
//!   has close-time conditions) also gets a pop-stack column ("this node's
//!   whole subtree matched here", one per node as in ch. 3.2.2.4).

use qrtl_core::diag::Span;
use rustc_hash::FxHashMap as HashMap;

qrtl_core::id_type!(
    /// Index into [`TagDict`]; 0 is the "other" code.
    TagId
);
qrtl_core::id_type!(
    /// Index into [`AttrDict`].
    AttrId
);
qrtl_core::id_type!(
    /// Index into [`Design::conds`].
    CondId
);
qrtl_core::id_type!(
    /// Index into [`Design::counters`].
    CounterId
);
qrtl_core::id_type!(
    /// Index into [`Design::nodes`].
    NodeId
);
qrtl_core::id_type!(
    /// Index into [`Design::parts`].
    PartId
);
qrtl_core::id_type!(
    /// A query's id: its 0-based index in the query file.
    QueryId
);

impl TagId {
    /// Names that no query mentions.
    pub const OTHER: TagId = TagId(0);
}

/// Interned byte strings with a reserved slot 0 for tags ("other").
#[derive(Clone, Debug, Default)]
pub struct Dict {
    names: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, u32>,
}

impl Dict {
    fn with_reserved(reserved: &[u8]) -> Dict {
        Dict {
            names: vec![reserved.to_vec()],
            index: HashMap::default(),
        }
    }
    pub fn intern(&mut self, name: &[u8]) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_vec());
        self.index.insert(name.to_vec(), i);
        i
    }
    pub fn get(&self, name: &[u8]) -> Option<u32> {
        self.index.get(name).copied()
    }
    pub fn name(&self, i: u32) -> &[u8] {
        &self.names[i as usize]
    }
    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (u32, &[u8])> {
        self.names
            .iter()
            .enumerate()
            .map(|(i, n)| (i as u32, n.as_slice()))
    }
}

/// Element names used by the queries. Slot 0 is [`TagId::OTHER`].
#[derive(Clone, Debug)]
pub struct TagDict(pub Dict);

impl Default for TagDict {
    fn default() -> Self {
        TagDict(Dict::with_reserved(b"#other"))
    }
}

impl TagDict {
    pub fn intern(&mut self, name: &[u8]) -> TagId {
        TagId(self.0.intern(name))
    }
    /// The decoder: a name not used by any query is [`TagId::OTHER`].
    pub fn decode(&self, name: &[u8]) -> TagId {
        TagId(self.0.get(name).unwrap_or(0))
    }
    pub fn name(&self, t: TagId) -> &[u8] {
        self.0.name(t.0)
    }
    /// Number of codes including "other".
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Attribute names used by the queries.
#[derive(Clone, Debug, Default)]
pub struct AttrDict(pub Dict);

impl AttrDict {
    pub fn intern(&mut self, name: &[u8]) -> AttrId {
        AttrId(self.0.intern(name))
    }
    pub fn get(&self, name: &[u8]) -> Option<AttrId> {
        self.0.get(name).map(AttrId)
    }
    pub fn name(&self, a: AttrId) -> &[u8] {
        self.0.name(a.0)
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    Child,
    Descendant,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Test {
    Any,
    Tag(TagId),
}

impl Test {
    pub fn accepts(self, t: TagId) -> bool {
        match self {
            Test::Any => true,
            Test::Tag(x) => x == t,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    /// IEEE comparison, as XPath 1.0 compares numbers (NaN: only `!=` holds).
    pub fn num(self, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }
}

/// A literal on the right of a comparison. `Num` holds the bits of an f64
/// so conditions can be hashed and interned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Str(Box<[u8]>),
    Num(u64),
}

impl Value {
    pub fn num(x: f64) -> Value {
        // -0.0 and 0.0 compare equal; intern them as one.
        Value::Num(if x == 0.0 {
            0f64.to_bits()
        } else {
            x.to_bits()
        })
    }
    pub fn as_num(&self) -> Option<f64> {
        match self {
            Value::Num(b) => Some(f64::from_bits(*b)),
            Value::Str(_) => None,
        }
    }
}

/// A comparison of a node's string value against a literal, with XPath 1.0's
/// rules: `=`/`!=` against a string compare strings; against a number, or
/// any relational operator, compare numbers (`number()` of both sides).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Compare {
    pub op: CmpOp,
    pub value: Value,
}

impl Compare {
    /// The literal as a number (for numeric comparisons).
    pub fn rhs_number(&self) -> f64 {
        match &self.value {
            Value::Num(b) => f64::from_bits(*b),
            Value::Str(s) => super::value::xpath_number(s),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CondKind {
    /// `[@a]`
    AttrExists(AttrId),
    /// `[@a OP v]`
    AttrCmp(AttrId, Compare),
    /// `[N]`, `[position() OP N]`: the element's rank among its parent's
    /// children counted by `counter` (1-based), compared with `value` (the
    /// bits of the f64 literal `N`).
    Position {
        counter: CounterId,
        op: CmpOp,
        value: u64,
    },
    /// `p:*`: the element's namespace URI is this one (open-time; only
    /// under [`Namespaces::Xpath`]).
    InNamespace(Box<[u8]>),
    /// `[text()]`: the element has a text child.
    TextExists,
    /// `[text() OP v]`: some text child of the element satisfies the comparison.
    TextCmp(Compare),
}

impl CondKind {
    /// Known only when the element closes (its text children are all seen).
    pub fn is_close_time(&self) -> bool {
        matches!(self, CondKind::TextExists | CondKind::TextCmp(_))
    }
}

/// A sibling counter: per parent element, counts children that pass `test`
/// and all `guard` conditions (all open-time), in document order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Counter {
    pub test: Test,
    pub guard: Vec<CondId>,
}

/// Where an IR object came from, for diagnostics and RTL comments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// 1-based line of the query file.
    pub line: usize,
    /// Span of the step within that line's query text.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub part: PartId,
    /// `None` for a part's root: its parent is the document node.
    pub parent: Option<NodeId>,
    /// Relation to the parent (or to the document node for a root).
    pub axis: Axis,
    pub test: Test,
    /// All must hold when the element opens (sorted, deduplicated).
    pub open_conds: Vec<CondId>,
    /// All must hold when the element closes (sorted, deduplicated).
    pub close_conds: Vec<CondId>,
    /// Branches (predicate paths) and the main-path continuation.
    pub children: Vec<NodeId>,
    pub origin: Origin,
}

/// A tree of nodes that is matched as a whole.
#[derive(Clone, Debug)]
pub struct Part {
    pub root: NodeId,
    /// The queries that need this part (parts are shared when identical).
    pub queries: Vec<QueryId>,
}

impl Part {
    /// A part is a plain path when no node branches or has close-time
    /// conditions: it then matches as soon as its leaf's push column is set.
    pub fn is_path(&self, design: &Design) -> bool {
        let mut n = self.root;
        loop {
            let node = design.node(n);
            if !node.close_conds.is_empty() {
                return false;
            }
            match node.children.as_slice() {
                [] => return true,
                [c] => n = *c,
                _ => return false,
            }
        }
    }
}

impl Part {
    /// The node whose full match decides a part that is not a plain path:
    /// the first node of the spine from the root that branches or has a
    /// close-time condition. The steps above it form a chain that its push
    /// column already covers, so the part matched iff this node was fully
    /// matched at some element (which may be before a later parse error).
    /// `None` for a plain path.
    pub fn pop_root(&self, design: &Design) -> Option<NodeId> {
        let mut n = self.root;
        loop {
            let node = design.node(n);
            if node.children.len() > 1 || !node.close_conds.is_empty() {
                return Some(n);
            }
            n = *node.children.first()?;
        }
    }
}

#[derive(Clone, Debug)]
pub struct Query {
    pub id: QueryId,
    /// 1-based line in the query file.
    pub line: usize,
    /// The query text as written.
    pub text: String,
    /// Matched iff every part matched.
    pub parts: Vec<PartId>,
}

/// How element and attribute names are compared (SPEC §3.1,
/// `--namespaces`). Under `Xpath` a tag or attribute name of the design is
/// its expanded name in Clark notation: `{URI}local` for a name in a
/// namespace, the bare local name for one in no namespace (`{` cannot
/// occur in an XML name, so the two never collide); the parser's
/// namespace layer (`xml::ns`) reports document names the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Namespaces {
    /// XPath 1.0 with Namespaces in XML 1.0 (the default).
    #[default]
    Xpath,
    /// Names compared as raw bytes, prefix included.
    Raw,
}

impl Namespaces {
    pub fn as_str(self) -> &'static str {
        match self {
            Namespaces::Xpath => "xpath",
            Namespaces::Raw => "raw",
        }
    }
}

/// The URI of a name in Clark notation (`{URI}local`), if it has one.
pub fn clark_uri(name: &[u8]) -> Option<&[u8]> {
    let rest = name.strip_prefix(b"{")?;
    let end = rest.iter().position(|&b| b == b'}')?;
    Some(&rest[..end])
}

/// The local part of a name in Clark notation (the name itself if it has
/// no namespace).
pub fn clark_local(name: &[u8]) -> &[u8] {
    match clark_uri(name) {
        Some(u) => &name[u.len() + 2..],
        None => name,
    }
}

/// How twigs are matched (SPEC §3.1, dissertation ch. 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// Push and pop stacks: exact.
    #[default]
    Holistic,
    /// Root-to-leaf paths joined per document: may report false positives.
    Paths,
    /// Parent/child and ancestor/descendant pairs joined per document.
    Pairs,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Holistic => "holistic",
            Mode::Paths => "paths",
            Mode::Pairs => "pairs",
        }
    }
}

/// Whether the branches of a twig node must match in document order
/// (`--ordered`): the matches of a node's children must lie in distinct
/// child subtrees of the node's element, in query order (predicates left to
/// right, then the main path). The hardware rule (ch. 3.4.2): a branch
/// reports only when its previous sibling already has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SiblingOrder {
    /// XPath semantics (default).
    #[default]
    Unordered,
    Ordered,
}

/// A whole XPath filtering design.
#[derive(Clone, Debug, Default)]
pub struct Design {
    pub tags: TagDict,
    pub attrs: AttrDict,
    pub conds: Vec<CondKind>,
    pub counters: Vec<Counter>,
    pub nodes: Vec<Node>,
    pub parts: Vec<Part>,
    pub queries: Vec<Query>,
    pub mode: Mode,
    pub order: SiblingOrder,
    /// How names compare; under `Xpath`, `tags` and `attrs` hold expanded
    /// names (see [`Namespaces`]).
    pub namespaces: Namespaces,
    /// The prefixes the queries were read with (`--ns` and the file's
    /// declarations; `xml`, always bound, left out), sorted: what a
    /// reader of the query texts needs to give them the same meaning.
    pub bindings: Vec<(String, String)>,
    cond_index: HashMap<CondKind, CondId>,
    counter_index: HashMap<Counter, CounterId>,
}

impl Design {
    pub fn node(&self, n: NodeId) -> &Node {
        &self.nodes[n.index()]
    }
    pub fn node_mut(&mut self, n: NodeId) -> &mut Node {
        &mut self.nodes[n.index()]
    }
    pub fn cond(&self, c: CondId) -> &CondKind {
        &self.conds[c.index()]
    }
    pub fn intern_cond(&mut self, c: CondKind) -> CondId {
        if let Some(&id) = self.cond_index.get(&c) {
            return id;
        }
        let id = CondId(self.conds.len() as u32);
        self.conds.push(c.clone());
        self.cond_index.insert(c, id);
        id
    }
    pub fn intern_counter(&mut self, c: Counter) -> CounterId {
        if let Some(&id) = self.counter_index.get(&c) {
            return id;
        }
        let id = CounterId(self.counters.len() as u32);
        self.counters.push(c.clone());
        self.counter_index.insert(c, id);
        id
    }
    pub fn add_node(&mut self, node: Node) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        if let Some(p) = node.parent {
            self.nodes[p.index()].children.push(id);
        }
        self.nodes.push(node);
        id
    }

    /// Nodes of a part in depth-first pre-order.
    pub fn part_nodes(&self, p: PartId) -> Vec<NodeId> {
        self.subtree_nodes(self.parts[p.index()].root)
    }

    /// `n` and its descendants in depth-first pre-order.
    pub fn subtree_nodes(&self, n: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(self.node(n).children.iter().rev());
        }
        out
    }

    /// Checks the structural invariants every pass must preserve.
    pub fn verify(&self) -> Result<(), String> {
        for (i, n) in self.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            if let Some(p) = n.parent {
                if !self.node(p).children.contains(&id) {
                    return Err(format!("node {i}: parent {} does not list it", p.0));
                }
                if self.node(p).part != n.part {
                    return Err(format!("node {i}: parent in another part"));
                }
            } else if self.parts[n.part.index()].root != id {
                return Err(format!("node {i}: parentless but not its part's root"));
            }
            for c in &n.open_conds {
                if self.cond(*c).is_close_time() {
                    return Err(format!(
                        "node {i}: close-time condition {} in open_conds",
                        c.0
                    ));
                }
            }
            for c in &n.close_conds {
                if !self.cond(*c).is_close_time() {
                    return Err(format!(
                        "node {i}: open-time condition {} in close_conds",
                        c.0
                    ));
                }
            }
            if !n.open_conds.windows(2).all(|w| w[0] < w[1]) {
                return Err(format!("node {i}: open_conds not sorted/unique"));
            }
        }
        for (i, c) in self.counters.iter().enumerate() {
            for g in &c.guard {
                match self.cond(*g) {
                    CondKind::Position { counter, .. } if counter.0 as usize >= i => {
                        return Err(format!("counter {i}: guard depends on a later counter"))
                    }
                    k if k.is_close_time() => {
                        return Err(format!("counter {i}: close-time guard"));
                    }
                    _ => {}
                }
            }
        }
        for q in &self.queries {
            if q.parts.is_empty() {
                return Err(format!("query {}: no parts", q.id.0));
            }
        }
        Ok(())
    }
}
