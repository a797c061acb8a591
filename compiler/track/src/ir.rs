//! The FlexTrack IR (SPEC §4, dissertation ch. 4), in two levels:
//!
//! * [`TrackDesign`]: the patterns after lowering, over a **region
//!   dictionary** (code 0 = no region, code `i + 1` = `regions[i]`; the
//!   regions named by patterns first, then any others the design must know,
//!   e.g. a region map's or the trajectories'), shared time **windows**, and
//!   per pattern its **items** and **variables** (with region sets). The
//!   exact software engine runs this level.
//! * [`EngineSet`]: the hardware of one variable strategy (ch. 4.4): a
//!   flip-flop **node** per item (per item and region combination for
//!   `expand`), its predecessors (several through `?*` bypasses), its event
//!   test, and for `buffer` the region-set buffers it carries; **clusters**
//!   (ch. 4.5.3) of patterns, each with its own decoder. The RTL is emitted
//!   from this level and `refmodel::track::hw` runs it, cycle for event.
//!
//! Index arenas only: nodes, slots, windows and variables are `u32` ids.

qrtl_core::id_type!(
    /// A shared time window (one comparator pair in the decoder).
    WindowId
);
qrtl_core::id_type!(
    /// A variable of one pattern.
    VarId
);
qrtl_core::id_type!(
    /// A flip-flop node of an [`EngineSet`].
    NodeId
);
qrtl_core::id_type!(
    /// A variable buffer slot of an [`EngineSet`] (buffer strategy).
    SlotId
);

/// How a visit `[entry, exit]` must relate to a time window (SPEC §4.2).
/// The IR's own copy of the syntax's time operator: lowering maps one to
/// the other, so nothing after lowering depends on the syntax tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowOp {
    /// The visit intersects the window.
    Overlap,
    /// The visit lies within the window.
    Inside,
}

impl WindowOp {
    /// The operator as written in a pattern (`overlap`, `inside`).
    pub fn as_str(self) -> &'static str {
        match self {
            WindowOp::Overlap => "overlap",
            WindowOp::Inside => "inside",
        }
    }
}

/// `op` against `[from, to]` (SPEC §4.2): `overlap` needs the visit
/// `[entry, exit]` to intersect the window, `inside` to lie within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Window {
    pub op: WindowOp,
    pub from: u32,
    pub to: u32,
}

impl Window {
    pub fn holds(&self, entry: u32, exit: u32) -> bool {
        match self.op {
            WindowOp::Overlap => entry <= self.to && exit >= self.from,
            WindowOp::Inside => entry >= self.from && exit <= self.to,
        }
    }
}

/// What one consumed event must be.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Test {
    /// Any event (`?`).
    Any,
    /// The region with this code.
    Region(u32),
    /// Any event but one in this region (no-region events pass).
    NotRegion(u32),
    /// The variable's binding (a named region in its set).
    Var(VarId),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Consume exactly one event passing the test (and the window).
    One {
        test: Test,
        window: Option<WindowId>,
    },
    /// `?+`: one or more events.
    Plus,
    /// `?*`: zero or more events.
    Star,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub step: Step,
    /// 1-based column of the item in its source line.
    pub col: usize,
    /// The item as written.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    /// Sorted region codes the variable may bind; `None`: any named region.
    pub set: Option<Vec<u32>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern id (SPEC §2).
    pub id: usize,
    pub line: usize,
    pub text: String,
    /// Leading and trailing `?*` removed (the run is unanchored); empty
    /// when the pattern was only `?*` items: it matches every trajectory.
    pub items: Vec<Item>,
    pub vars: Vec<Var>,
}

impl Pattern {
    /// Does item `i` hold its state over events (an aggregator)?
    pub fn is_aggregator(&self, i: usize) -> bool {
        matches!(self.items[i].step, Step::Plus | Step::Star)
    }
    /// Items whose state can feed item `j`: `j - 1` and, across `?*` items
    /// (zero events), the item before them; `None` stands for the start of
    /// the run (only item 0 after trimming).
    pub fn preds(&self, j: usize) -> Vec<Option<usize>> {
        let mut out = Vec::new();
        let mut i = j;
        loop {
            if i == 0 {
                out.push(None);
                break;
            }
            i -= 1;
            out.push(Some(i));
            if self.items[i].step != Step::Star {
                break;
            }
        }
        out
    }
    /// Ids of the variables each item binds or reads.
    pub fn var_of(&self, i: usize) -> Option<VarId> {
        match &self.items[i].step {
            Step::One {
                test: Test::Var(v), ..
            } => Some(*v),
            _ => None,
        }
    }
    /// The domain of a variable: its set, or every named region of `design`.
    pub fn domain(&self, v: VarId, design: &TrackDesign) -> Vec<u32> {
        match &self.vars[v.index()].set {
            Some(s) => s.clone(),
            None => (1..=design.regions.len() as u32).collect(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrackDesign {
    /// Region names; code `i + 1` is `regions[i]`, code 0 is no region.
    pub regions: Vec<String>,
    /// `regions[..pattern_regions]` are named by the patterns.
    pub pattern_regions: usize,
    pub windows: Vec<Window>,
    pub patterns: Vec<Pattern>,
}

impl TrackDesign {
    pub fn region_code(&self, name: &str) -> Option<u32> {
        self.regions
            .iter()
            .position(|r| r == name)
            .map(|i| i as u32 + 1)
    }
    /// Add a region the patterns do not name (a map's or a trajectory's);
    /// returns its code.
    pub fn add_region(&mut self, name: &str) -> u32 {
        match self.region_code(name) {
            Some(c) => c,
            None => {
                self.regions.push(name.to_string());
                self.regions.len() as u32
            }
        }
    }
    /// `Some(name)` of a code, `None` for no region.
    pub fn region_name(&self, code: u32) -> Option<&str> {
        code.checked_sub(1)
            .and_then(|i| self.regions.get(i as usize))
            .map(String::as_str)
    }
}

/// How variables become hardware (ch. 4.4.4-4.4.6, SPEC §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Relaxed: a variable item passes any region of its set (false positives).
    Or,
    /// Propagating region-set buffers (false positives only with several
    /// variables and aggregators).
    Buffer,
    /// Every combination of bindings as its own variable-free engine (exact).
    Expand,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Or => "or",
            Strategy::Buffer => "buffer",
            Strategy::Expand => "expand",
        }
    }
}

/// A node's event test in hardware.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NodeTest {
    Any,
    Region(u32),
    NotRegion(u32),
    /// One of these regions (`or` strategy).
    InSet(Vec<u32>),
    /// First occurrence of a buffered variable: its region must be in the
    /// slot's domain; the node's buffer becomes that one region.
    VarFirst(SlotId),
    /// Later occurrence: the region must be in the incoming buffer.
    VarAgain(SlotId),
}

/// A variable buffer: one bit per region of `domain`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    pub pattern: usize,
    pub var: VarId,
    /// Sorted region codes; bit `k` of the buffer is `domain[k]`.
    pub domain: Vec<u32>,
    /// RTL name stem, e.g. `p3_x`.
    pub name: String,
}

/// One flip-flop: "the pattern has matched up to this item at this event".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// `None`: an aggregator (`?+`/`?*`) that takes any event and holds.
    pub test: Option<NodeTest>,
    pub window: Option<WindowId>,
    /// The run may start here (no predecessor needed).
    pub from_start: bool,
    /// Nodes whose previous state enables this one (earlier in the arena).
    pub preds: Vec<NodeId>,
    /// Buffer strategy: the slots whose buffers this node outputs (sorted).
    pub carries: Vec<SlotId>,
    /// RTL name, e.g. `p17_i2` (`p17_e5_i2` for expansion 5).
    pub name: String,
    /// Pattern, 1-based line and column of the item it implements.
    pub pattern: usize,
    pub line: usize,
    pub col: usize,
}

impl Node {
    pub fn is_aggregator(&self) -> bool {
        self.test.is_none()
    }
}

/// Where a pattern's match comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOut {
    pub pattern: usize,
    /// Only `?*` items: matched by any trajectory.
    pub always: bool,
    /// Nodes whose state means "matched" (the last item; one per expansion).
    pub accepts: Vec<NodeId>,
    pub cluster: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// The cluster's nodes: a contiguous range of the arena.
    pub nodes: std::ops::Range<usize>,
    /// Its patterns (ids), in id order.
    pub patterns: Vec<usize>,
}

/// The hardware engines of all patterns under one strategy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSet {
    pub strategy: Strategy,
    pub nodes: Vec<Node>,
    pub slots: Vec<Slot>,
    /// Indexed by pattern id.
    pub outs: Vec<EngineOut>,
    pub clusters: Vec<Cluster>,
}

impl EngineSet {
    /// Structural invariants: predecessors precede their node and lie in
    /// its cluster; a node carries or reads only slots its predecessors
    /// carry (or that it starts); every pattern is in one cluster.
    pub fn verify(&self) -> Result<(), String> {
        for (ci, c) in self.clusters.iter().enumerate() {
            for n in c.nodes.clone() {
                let node = &self.nodes[n];
                for p in &node.preds {
                    if p.index() >= n || !c.nodes.contains(&p.index()) {
                        return Err(format!(
                            "node {} has predecessor {} outside order/cluster {ci}",
                            node.name, p.0
                        ));
                    }
                }
                let incoming: Vec<SlotId> = node
                    .preds
                    .iter()
                    .flat_map(|p| self.nodes[p.index()].carries.iter().copied())
                    .collect();
                let starts = match node.test {
                    Some(NodeTest::VarFirst(s)) => Some(s),
                    _ => None,
                };
                if let Some(NodeTest::VarAgain(s)) = node.test {
                    if !incoming.contains(&s) {
                        return Err(format!(
                            "node {} reads slot {} no predecessor carries",
                            node.name, s.0
                        ));
                    }
                }
                for s in &node.carries {
                    if Some(*s) != starts && !incoming.contains(s) {
                        return Err(format!(
                            "node {} carries slot {} it does not receive",
                            node.name, s.0
                        ));
                    }
                }
            }
        }
        for (id, o) in self.outs.iter().enumerate() {
            if o.pattern != id {
                return Err(format!("engine output {id} is for pattern {}", o.pattern));
            }
            let c = &self.clusters[o.cluster];
            if !c.patterns.contains(&id) || o.accepts.iter().any(|a| !c.nodes.contains(&a.index()))
            {
                return Err(format!("pattern {id} is not inside cluster {}", o.cluster));
            }
            // No accepting node and not `always`: the pattern never matches
            // (`expand` of a variable whose set is empty: no combination).
        }
        Ok(())
    }
}
