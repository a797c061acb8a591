//! FlexTrack IR → Verilog: the event detector, region decoders, time
//! comparators and per-pattern engines of ch. 4.4 from
//! `rtl-templates/track/track_top.v` and `rtl-templates/track/track_cluster.v`.
//!
//! Reads only the IR ([`TrackDesign`] for the dictionary and windows,
//! [`EngineSet`] for nodes, buffers and clusters). Names: node `p17_i2` is
//! item 2 of pattern 17 (`p17_e5_i2`: of its expansion 5), `_p` its gated
//! previous state, `_d` its next state, `_b_x` its buffer of variable `@x`;
//! `r_NAME` a decoded region, `w3` time window 3, `dom_p17_x` the one-hot of
//! the event's region within `@x`'s region set. Every node carries a comment
//! with its pattern's line and column.

use crate::ir::{Cluster, EngineSet, Node, NodeTest, SlotId, TrackDesign};
use askama::Template;
use std::collections::BTreeSet;

pub const RESULT_WIDTH: u32 = 32;

/// Options of the emitted RTL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackRtlConfig {
    /// All clusters see the event stream in the same cycle (ch. 4.5.3's
    /// non-pipelined clusters) instead of one pipeline stage per cluster.
    pub broadcast: bool,
    /// The pattern file's name (for comments).
    pub source: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtlFile {
    pub name: String,
    pub text: String,
}

/// Where each pattern's match bit is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternBit {
    pub id: usize,
    pub line: usize,
    pub text: String,
    pub cluster: usize,
    /// Result word (1-based: word 0 is the event count) and bit.
    pub word: usize,
    pub bit: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackRtl {
    pub top: String,
    pub files: Vec<RtlFile>,
    pub patterns: Vec<PatternBit>,
    /// Words per trajectory: the event count, then the bitmap.
    pub result_words: usize,
    /// Event pipeline stages (1 with broadcast input).
    pub stages: usize,
    /// Cycles from accepting a trajectory's last beat to its first result word.
    pub latency: u64,
}

#[derive(Template)]
#[template(path = "track_cluster.v", escape = "none")]
struct ClusterT<'a> {
    module: String,
    index: usize,
    pattern_count: usize,
    node_count: usize,
    strategy: &'a str,
    source: &'a str,
    decoder: Vec<String>,
    windows: Vec<String>,
    decls: Vec<String>,
    logic: Vec<String>,
    resets: Vec<String>,
    updates: Vec<String>,
    matches: Vec<String>,
}

struct BitT {
    pos: usize,
    idx: usize,
    comment: String,
}

struct ClusterInstT {
    module: String,
    inst: String,
    stage: usize,
    patterns: usize,
    bits: Vec<BitT>,
}

#[derive(Template)]
#[template(path = "track_top.v", escape = "none")]
struct TopT<'a> {
    module: &'a str,
    pattern_count: usize,
    strategy: &'a str,
    input_mode: &'a str,
    result_words: usize,
    stages: usize,
    clusters: Vec<ClusterInstT>,
    sr_width: usize,
    left_width: usize,
}

/// A one-line comment-safe rendering of source text.
fn comment(s: &str) -> String {
    s.replace(['\n', '\r'], " ").replace("*/", "* /")
}

fn region_wire(d: &TrackDesign, code: u32) -> String {
    format!("r_{}", d.region_name(code).unwrap_or("none"))
}

fn slot_var(set: &EngineSet, d: &TrackDesign, s: SlotId) -> String {
    let slot = &set.slots[s.index()];
    d.patterns[slot.pattern].vars[slot.var.index()].name.clone()
}

/// What one cluster's emission reads: the IR and the cluster's node range.
struct ClusterCtx<'a> {
    d: &'a TrackDesign,
    set: &'a EngineSet,
    c: &'a Cluster,
    nodes: &'a [Node],
}

/// The cluster template's per-node line lists.
#[derive(Default)]
struct ClusterLines {
    decls: Vec<String>,
    logic: Vec<String>,
    resets: Vec<String>,
    updates: Vec<String>,
}

impl<'a> ClusterCtx<'a> {
    /// Width of slot `s`'s buffer: its domain's size.
    fn width(&self, s: SlotId) -> usize {
        self.set.slots[s.index()].domain.len()
    }

    /// Regions and windows this cluster uses; slots it holds.
    fn uses(&self) -> (BTreeSet<u32>, BTreeSet<u32>, BTreeSet<SlotId>) {
        let set = self.set;
        let mut regions: BTreeSet<u32> = BTreeSet::new();
        let mut windows: BTreeSet<u32> = BTreeSet::new();
        let mut slots: BTreeSet<SlotId> = BTreeSet::new();
        for n in self.nodes {
            if let Some(w) = n.window {
                windows.insert(w.0);
            }
            match &n.test {
                Some(NodeTest::Region(r)) | Some(NodeTest::NotRegion(r)) => {
                    regions.insert(*r);
                }
                Some(NodeTest::InSet(s)) => regions.extend(s.iter().copied()),
                Some(NodeTest::VarFirst(s)) | Some(NodeTest::VarAgain(s)) => {
                    slots.insert(*s);
                    regions.extend(set.slots[s.index()].domain.iter().copied());
                }
                _ => {}
            }
            slots.extend(n.carries.iter().copied());
        }
        (regions, windows, slots)
    }

    /// Domain one-hots: bit k = the event is in domain[k].
    fn domain_onehots(&self, slots: &BTreeSet<SlotId>, decls: &mut Vec<String>) {
        let (d, set) = (self.d, self.set);
        for &s in slots {
            let slot = &set.slots[s.index()];
            let bits: Vec<String> = slot
                .domain
                .iter()
                .rev()
                .map(|&r| region_wire(d, r))
                .collect();
            decls.push(format!(
                "wire [{}:0] dom_{} = {{{}}}; // @{} of pattern {}: {{{}}}",
                self.width(s) - 1,
                slot.name,
                bits.join(", "),
                slot_var(set, d, s),
                slot.pattern,
                slot.domain
                    .iter()
                    .map(|&r| d.region_name(r).unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }

    /// A node's state register exists only if something reads it (a
    /// successor, or itself as an aggregator); an accepting node's next
    /// state feeds its pattern's match flag directly. Indexed by arena id.
    fn read_nodes(&self) -> Vec<bool> {
        let mut read = vec![false; self.set.nodes.len()];
        for (k, n) in self.nodes.iter().enumerate() {
            for q in &n.preds {
                read[q.index()] = true;
            }
            if n.is_aggregator() {
                read[self.c.nodes.start + k] = true;
            }
        }
        read
    }

    /// Node state registers and their buffers (declarations, resets,
    /// updates); accepting nodes nobody reads get a comment only.
    fn node_registers(&self, out: &mut ClusterLines) {
        let (d, set) = (self.d, self.set);
        let read = self.read_nodes();
        for (k, n) in self.nodes.iter().enumerate() {
            let p = &d.patterns[n.pattern];
            let item = p
                .items
                .iter()
                .find(|i| i.col == n.col)
                .map_or(String::new(), |i| i.text.clone());
            if !read[self.c.nodes.start + k] {
                out.decls.push(format!(
                    "// {}: pattern {} line {} col {}: {} (accepting; feeds m_p{})",
                    n.name,
                    n.pattern,
                    n.line,
                    n.col,
                    comment(&item),
                    n.pattern
                ));
                continue;
            }
            out.decls.push(format!(
                "reg  {name}; // pattern {} line {} col {}: {}",
                n.pattern,
                n.line,
                n.col,
                comment(&item),
                name = n.name
            ));
            out.decls
                .push(format!("wire {0}_p = {0} & ~ev_first;", n.name));
            out.resets.push(format!("{} <= 1'b0;", n.name));
            out.updates.push(format!("{0} <= {0}_d;", n.name));
            for &s in &n.carries {
                let w = self.width(s);
                let b = format!("{}_b_{}", n.name, slot_var(set, d, s));
                out.decls.push(format!("reg  [{}:0] {b};", w - 1));
                out.resets.push(format!("{b} <= {w}'d0;"));
                out.updates.push(format!("{b} <= {b}_d;"));
            }
        }
    }

    /// The enable of node `n`: 1 for a run start, else its predecessors'
    /// gated previous states ORed.
    fn enable(&self, n: &Node) -> String {
        if n.from_start {
            return "1'b1".to_string();
        }
        let preds: Vec<String> = n
            .preds
            .iter()
            .map(|q| format!("{}_p", self.set.nodes[q.index()].name))
            .collect();
        if preds.len() == 1 {
            preds[0].clone()
        } else {
            format!("({})", preds.join(" | "))
        }
    }

    /// Incoming buffer of slot s: OR of active predecessors' buffers
    /// (a buffer is zero while its node is off; `_p` gates the first event).
    fn incoming(&self, n: &Node, s: SlotId) -> String {
        let set = self.set;
        let w = self.width(s);
        let parts: Vec<String> = n
            .preds
            .iter()
            .filter(|q| set.nodes[q.index()].carries.contains(&s))
            .map(|q| {
                let qn = &set.nodes[q.index()].name;
                format!("({{{w}{{{qn}_p}}}} & {qn}_b_{})", slot_var(set, self.d, s))
            })
            .collect();
        if parts.is_empty() {
            format!("{w}'d0")
        } else {
            parts.join(" | ")
        }
    }

    /// Node `n`'s next-state expression; `own` gets the slot the node binds
    /// and the value it binds it to, `logic` the `@x again` hit wire.
    fn next_state(
        &self,
        n: &Node,
        own: &mut Option<(SlotId, String)>,
        logic: &mut Vec<String>,
    ) -> String {
        let (d, set) = (self.d, self.set);
        let enable = self.enable(n);
        let Some(t) = &n.test else {
            return format!("{enable} | {}_p", n.name);
        };
        let mut terms: Vec<String> = Vec::new();
        if !n.from_start {
            terms.push(enable);
        }
        if let Some(w) = n.window {
            terms.push(format!("w{}", w.0));
        }
        match t {
            NodeTest::Any => {}
            NodeTest::Region(r) => terms.push(region_wire(d, *r)),
            NodeTest::NotRegion(r) => terms.push(format!("~{}", region_wire(d, *r))),
            NodeTest::InSet(s) => {
                let rs: Vec<String> = s.iter().map(|&r| region_wire(d, r)).collect();
                terms.push(format!("({})", rs.join(" | ")));
            }
            NodeTest::VarFirst(s) => {
                terms.push(format!("(|dom_{})", set.slots[s.index()].name));
                *own = Some((*s, format!("dom_{}", set.slots[s.index()].name)));
            }
            NodeTest::VarAgain(s) => {
                let hit = format!("{}_hit", n.name);
                logic.push(format!(
                    "wire [{}:0] {hit} = ({}) & dom_{}; // @{} again: regions still bound",
                    self.width(*s) - 1,
                    self.incoming(n, *s),
                    set.slots[s.index()].name,
                    slot_var(set, d, *s)
                ));
                terms.push(format!("(|{hit})"));
                *own = Some((*s, hit));
            }
        }
        if terms.is_empty() {
            "1'b1".to_string()
        } else {
            terms.join(" & ")
        }
    }

    /// Node `n`'s next state and next buffer values.
    fn node_logic(&self, n: &Node, logic: &mut Vec<String>) {
        let mut own: Option<(SlotId, String)> = None;
        let next = self.next_state(n, &mut own, logic);
        logic.push(format!("wire {}_d = {next};", n.name));
        for &s in &n.carries {
            let w = self.width(s);
            let b = format!("{}_b_{}", n.name, slot_var(self.set, self.d, s));
            let value = match &own {
                Some((os, v)) if *os == s => v.clone(),
                _ if n.test.is_none() => {
                    format!("{} | ({{{w}{{{}_p}}}} & {b})", self.incoming(n, s), n.name)
                }
                _ => self.incoming(n, s),
            };
            logic.push(format!(
                "wire [{}:0] {b}_d = {{{w}{{{}_d}}}} & ({value});",
                w - 1,
                n.name
            ));
        }
    }

    /// Per pattern: its match flag, held across the trajectory, and its
    /// result bit.
    fn match_bits(&self) -> Vec<String> {
        let (d, set) = (self.d, self.set);
        let mut matches = Vec::new();
        for (k, &pid) in self.c.patterns.iter().enumerate() {
            let o = &set.outs[pid];
            let p = &d.patterns[pid];
            let now = if o.always {
                "1'b1".to_string()
            } else if o.accepts.is_empty() {
                // No engine (`expand` of a variable over no region): never.
                "1'b0".to_string()
            } else {
                o.accepts
                    .iter()
                    .map(|a| format!("{}_d", set.nodes[a.index()].name))
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            matches.push(format!(
                "// pattern {pid} (line {}): {}",
                p.line,
                comment(p.text.trim())
            ));
            matches.push(format!("reg  m_p{pid};"));
            matches.push(format!(
                "wire m_p{pid}_now = (m_p{pid} & ~ev_first) | {now};"
            ));
            matches.push(format!(
                "always @(posedge clk) begin\n        if (rst) m_p{pid} <= 1'b0;\n        else if (ev_valid) m_p{pid} <= m_p{pid}_now;\n    end"
            ));
            matches.push(format!("assign q_match[{k}] = m_p{pid}_now;"));
        }
        matches
    }
}

/// The region decoder: one wire per region the cluster tests.
fn region_decoder(d: &TrackDesign, regions: &BTreeSet<u32>) -> Vec<String> {
    regions
        .iter()
        .map(|&r| {
            format!(
                "wire {} = (ev_region == 16'd{r}); // region `{}`",
                region_wire(d, r),
                comment(d.region_name(r).unwrap_or(""))
            )
        })
        .collect()
}

/// The time comparators: one wire per window the cluster tests.
fn window_wires(d: &TrackDesign, windows: &BTreeSet<u32>) -> Vec<String> {
    windows
        .iter()
        .map(|&w| {
            let win = &d.windows[w as usize];
            // Comparisons that always hold (against 0 or 2^32-1) are left
            // out: they are constant and lint would flag them.
            let (lo, hi) = match win.op {
                crate::ir::WindowOp::Overlap => ("ev_exit", "ev_entry"),
                crate::ir::WindowOp::Inside => ("ev_entry", "ev_exit"),
            };
            let mut terms = Vec::new();
            if win.from > 0 {
                terms.push(format!("({lo} >= 32'd{})", win.from));
            }
            if win.to < u32::MAX {
                terms.push(format!("({hi} <= 32'd{})", win.to));
            }
            let expr = if terms.is_empty() {
                "1'b1".to_string()
            } else {
                terms.join(" & ")
            };
            format!(
                "wire w{w} = {expr}; // {} ({}:{})",
                win.op.as_str(),
                win.from,
                win.to
            )
        })
        .collect()
}

fn emit_cluster(
    d: &TrackDesign,
    set: &EngineSet,
    ci: usize,
    cfg: &TrackRtlConfig,
) -> (String, String) {
    let c = &set.clusters[ci];
    let module = format!("qrtl_track_c{ci}");
    let cx = ClusterCtx {
        d,
        set,
        c,
        nodes: &set.nodes[c.nodes.clone()],
    };
    let (regions, windows, slots) = cx.uses();
    let mut lines = ClusterLines::default();
    cx.domain_onehots(&slots, &mut lines.decls);
    cx.node_registers(&mut lines);
    for n in cx.nodes {
        cx.node_logic(n, &mut lines.logic);
    }
    let t = ClusterT {
        module: module.clone(),
        index: ci,
        pattern_count: c.patterns.len(),
        node_count: cx.nodes.len(),
        strategy: set.strategy.as_str(),
        source: &cfg.source,
        decoder: region_decoder(d, &regions),
        windows: window_wires(d, &windows),
        decls: lines.decls,
        logic: lines.logic,
        resets: lines.resets,
        updates: lines.updates,
        matches: cx.match_bits(),
    };
    (module, t.render().expect("cluster template renders") + "\n")
}

/// Emit the cluster modules and the top.
pub fn emit_track(d: &TrackDesign, set: &EngineSet, cfg: &TrackRtlConfig) -> TrackRtl {
    let mut files = Vec::new();
    let mut insts = Vec::new();
    let mut bits = Vec::new();
    let stages = if cfg.broadcast { 1 } else { set.clusters.len() };
    for ci in 0..set.clusters.len() {
        let (module, text) = emit_cluster(d, set, ci, cfg);
        files.push(RtlFile {
            name: format!("{module}.v"),
            text,
        });
        let c = &set.clusters[ci];
        let cbits: Vec<BitT> = c
            .patterns
            .iter()
            .enumerate()
            .map(|(k, &pid)| {
                let p = &d.patterns[pid];
                bits.push(PatternBit {
                    id: pid,
                    line: p.line,
                    text: p.text.clone(),
                    cluster: ci,
                    word: 1 + pid / 32,
                    bit: pid % 32,
                });
                BitT {
                    pos: 32 + pid,
                    idx: k,
                    comment: format!("pattern {pid}, line {}", p.line),
                }
            })
            .collect();
        insts.push(ClusterInstT {
            module,
            inst: format!("c{ci}"),
            stage: if cfg.broadcast { 0 } else { ci },
            patterns: c.patterns.len(),
            bits: cbits,
        });
    }
    let result_words = 1 + d.patterns.len().div_ceil(32);
    let left_width = (usize::BITS - result_words.leading_zeros()) as usize;
    let top = "qrtl_track_top".to_string();
    let t = TopT {
        module: &top,
        pattern_count: d.patterns.len(),
        strategy: set.strategy.as_str(),
        input_mode: if cfg.broadcast {
            "broadcast"
        } else {
            "pipelined"
        },
        result_words,
        stages,
        clusters: insts,
        sr_width: 32 * result_words,
        left_width,
    };
    files.push(RtlFile {
        name: format!("{top}.v"),
        text: t.render().expect("top template renders") + "\n",
    });
    bits.sort_by_key(|b| b.id);
    TrackRtl {
        top,
        files,
        patterns: bits,
        result_words,
        stages,
        // last beat -> cur/flush (1) -> s0 (1) -> stage k (stages-1) -> res_valid (1)
        latency: 2 + stages as u64,
    }
}
