//! Stack IR → Verilog: the XPath filtering RTL (ch. 2.5) from the templates
//! `rtl-templates/xpath/xpath_top.v` and `rtl-templates/xpath/xpath_cluster.v`, plus the
//! SAX parser (`sax.rs`) and the value comparators (`values.rs`).
//!
//! Every identifier comes from the naming pass or is derived here from a
//! name it chose; every node's logic carries a comment with the query
//! line(s) and step it implements.

use super::sax::{sax_module, SaxParams};
use super::values::vcmp_module;
use crate::ir::stacks::{Cluster, ColKind, FlagSrc, HwNodeId, NodeLists, PopId, Read, StackDesign};
use crate::ir::xpath::{AttrId, Axis, CmpOp, CondId, CondKind, SiblingOrder, Test};
use crate::passes::naming::sanitize;
use askama::Template;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Options of the emitted RTL.
#[derive(Clone, Copy, Debug)]
pub struct XpathRtlConfig {
    /// Bytes of open element names the SAX parser keeps to check close tags.
    pub name_stack_bytes: u32,
    /// How the parser's event stream reaches the clusters.
    pub input: EventInput,
    /// How large a process or an OR of the emitted text may grow before
    /// it is written in smaller pieces (for synthesis front ends).
    pub shape: RtlShape,
}

/// How the emitted text is cut for synthesis front ends: the sizes of a
/// cluster's clocked processes (`always` blocks) and of the top's ORs. The
/// logic is the same either way. Front ends take time growing with the
/// square of a process's size (Yosys: AST to RTLIL, then `proc_mux`), so a
/// process over a limit is split into small ones; a long OR chain is
/// written as a reduction. The limits are high enough that clustered
/// designs (256 queries a cluster, lengths up to 8, or 2K queries of
/// length 4 in one cluster) keep one process per concern and their chains,
/// which read best; tests set them low to simulate the other form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtlShape {
    /// The pipeline registers (`_ctx`, `_pre`) and the result bits
    /// (`q_match`), counted in registers. One process of the 16K pipeline
    /// registers of 2K passes-off queries took ~5 s more of native Yosys
    /// 0.23 than processes of 256.
    pub assigns: SplitRule,
    /// The stack memory's address counters (and writes), counted in
    /// memory groups. Each counter step was an inlined function with ~14
    /// temporaries a call, so the counters of 256 groups (2K passes-off
    /// queries, one cluster) were ~15K signals in one process: 150 s of
    /// Yosys `proc_mux` (YoWASP 0.70); 73 s in processes of 64 groups,
    /// under 10 s with a process per group. Split groups also step
    /// without function calls: Yosys 0.70 inlines a call in time growing
    /// with the module (`expand_genblock`), and the 1024 calls of those
    /// 256 groups were 65 of the 68 s of its `hierarchy` (native).
    pub mem_groups: SplitRule,
    /// Most terms the top writes as a chain of ORs (`a | b | ...`, one
    /// term a line); a longer OR (a cluster's match bits at one bit
    /// position of the result words: one term per word) is written as a
    /// reduction, `|{a, b, ...}`, which Yosys maps as a balanced tree.
    /// YoWASP Yosys 0.70's `abc9` export follows a chain recursively and
    /// stops with "wasm trap: call stack exhausted" on a registered OR of
    /// 257 terms (193 pass): a cluster of 8K queries has 256 words.
    pub max_or_chain: usize,
}

/// When and how a list of items (registers, memory groups) is split over
/// several processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitRule {
    /// Up to this many items share one process.
    pub max: usize,
    /// More are split into processes of this many (at least 1).
    pub piece: usize,
}

impl SplitRule {
    /// `v` in order: one piece if it has at most `max` items, else pieces
    /// of `piece`.
    fn split<T>(&self, v: Vec<T>) -> Vec<Vec<T>> {
        if v.len() <= self.max {
            return if v.is_empty() { Vec::new() } else { vec![v] };
        }
        let n = self.piece.max(1);
        let mut out = Vec::with_capacity(v.len().div_ceil(n));
        let mut it = v.into_iter().peekable();
        while it.peek().is_some() {
            out.push(it.by_ref().take(n).collect());
        }
        out
    }
}

impl Default for RtlShape {
    fn default() -> Self {
        RtlShape {
            assigns: SplitRule {
                max: 8192,
                piece: 1024,
            },
            mem_groups: SplitRule { max: 64, piece: 1 },
            max_or_chain: 128,
        }
    }
}

/// How the SAX parser's event stream reaches the clusters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EventInput {
    /// Through a register per cluster: cluster k sees the stream k clocks
    /// after cluster 0, every event register drives one cluster (latency
    /// grows by one clock per cluster; no net fans out to all clusters).
    #[default]
    Pipelined,
    /// Every cluster reads the parser's outputs directly (one fan-out net
    /// per event signal to all clusters; the dissertation's broadcast).
    Broadcast,
}

impl EventInput {
    /// Every event input, in the order reports list them.
    pub const ALL: [EventInput; 2] = [EventInput::Pipelined, EventInput::Broadcast];

    pub fn name(self) -> &'static str {
        match self {
            EventInput::Pipelined => "pipelined",
            EventInput::Broadcast => "broadcast",
        }
    }
}

/// Clocks from a cluster's event input to its results: the tag decoder
/// and each node's match are computed one clock ahead of the stack update,
/// and the match word is registered in the cluster at the document's end.
pub const CLUSTER_LATENCY: u32 = 2;

/// Width of a result word on the AXI4-Stream master.
pub const RESULT_WIDTH: u32 = 32;

/// One emitted file.
#[derive(Clone, Debug)]
pub struct RtlFile {
    pub name: String,
    pub text: String,
}

/// Where each query's match bit is (for the manifest and result readers).
#[derive(Clone, Debug)]
pub struct QueryBit {
    pub id: u32,
    pub line: usize,
    pub text: String,
    pub cluster: usize,
    /// 1-based result word after the status word, and bit in it.
    pub word: u32,
    pub bit: u32,
}

/// The emitted RTL and its interface facts.
#[derive(Clone, Debug)]
pub struct XpathRtl {
    pub top: String,
    pub files: Vec<RtlFile>,
    pub queries: Vec<QueryBit>,
    /// Result words per document (status word included).
    pub result_words: u32,
    /// Cycles from accepting a document's last byte to its status word
    /// being valid on the result stream.
    pub latency: u32,
}

// ---------------------------------------------------------------------------
// Template contexts
// ---------------------------------------------------------------------------

struct TrieBit {
    /// Index in the trie vector.
    idx: usize,
    /// Character line name.
    ch: String,
    /// Parent bit, or None at depth 1.
    parent: Option<usize>,
    /// The prefix this bit stands for (comment).
    prefix: String,
}

struct Line {
    name: String,
    bit: usize,
    comment: String,
}

struct CharLine {
    name: String,
    byte: u8,
}

struct VcmpInst {
    module: String,
    inst: String,
    out: String,
}

struct CondReg {
    name: String,
    attr_line: String,
    value_ok: Option<String>,
    comment: String,
}

struct RowBit {
    bit: usize,
    name: String,
    comment: String,
    /// What is pushed into this bit (global-stack bits only: the tag line).
    src: String,
}

struct NodeLogic {
    name: String,
    comment: String,
    /// The registered part: depth, parent column, global-stack bit, tag,
    /// computed one clock ahead (`<name>_pre`).
    pre: String,
    /// The node's fire signal: `<name>_pre` and its attribute conditions.
    expr: String,
    /// A `<name>_pre` register and fire wire exist (the node sets a flag or
    /// has attribute conditions); otherwise its `pre` term is folded into
    /// its columns' pre-registers.
    fires: bool,
    /// False for a root read only through the global stack: nothing stores
    /// or reports its firing, so no logic is emitted.
    used: bool,
}

/// A node's stack-top part (depth, parent column, global-stack bit),
/// registered two clocks ahead of the stack logic (`<node>_ctx`): shared by
/// the nodes with the same part.
struct CtxReg {
    name: String,
    expr: String,
}

struct ColInput {
    bit: usize,
    name: String,
    /// Its registers `<name>_pre<i>`, i < pre_count, each the OR of a group
    /// of the member nodes without attribute conditions (and the column
    /// itself for a carry column), groups sized by `pre_group_size`, so the
    /// two clocks share the OR tree; assigned in the pipeline processes.
    pre_count: usize,
    expr: String,
}

/// One register assignment of a clocked process: `lhs <= rhs;`.
struct Assign {
    lhs: String,
    rhs: String,
}

struct FlagLogic {
    name: String,
    /// What sets the flag in this cycle.
    set: String,
}

struct CounterLogic {
    name: String,
    comment: String,
    width: u32,
    lo: usize,
    hi: usize,
    inc: String,
}

struct PosCond {
    name: String,
    expr: String,
    comment: String,
}

struct RangeAssign {
    range: String,
    expr: String,
}

struct PopLogic {
    name: String,
    comment: String,
    full: String,
    arrive: Option<String>,
}

struct TextBit {
    bit: usize,
    hit: String,
    comment: String,
}

struct QueryOut {
    idx: usize,
    expr: String,
    comment: String,
}

/// Row bits per stack-memory group: each group is a memory of its own
/// with read and write address counters of its own, each stepped from its
/// own value, so no address flip-flop drives the distributed RAM of a whole
/// row (timing: at 2K queries one read address spread over a cluster's row
/// was the critical path, a 4.7 ns route on ECP5; one adder shared by the
/// groups' copies, ~4 ns of routing).
pub const MEM_GROUP_BITS: usize = 32;

/// One group of the stack memory: row bits `hi..=lo`, addressed by its
/// counters, depth and depth - 2 XOR `key` (row r lives in word r ^ key).
/// Distinct keys keep the groups' address registers distinct from each
/// other, so synthesis cannot merge them as identical flip-flops.
struct MemGroup {
    idx: usize,
    lo: usize,
    hi: usize,
    key: u64,
    /// The read address's reset value: (2^addr_width - 2) ^ key.
    ra_reset: u64,
    /// The counters' next values on a push (up) and a close (down).
    steps: GroupSteps,
}

/// A group's address counters stepped up and down, as expressions.
#[derive(Default)]
struct GroupSteps {
    wa_up: String,
    wa_down: String,
    ra_up: String,
    ra_down: String,
}

/// How a cluster's counter steps are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StepForm {
    /// Calls of the cluster's `_up`/`_down` functions.
    Calls,
    /// Written out per counter ([`keyed_step`]): no function to inline.
    WrittenOut,
}

impl GroupSteps {
    /// The steps of group `g`'s counters in cluster `p`.
    fn new(p: &str, g: &MemGroup, addr_width: u32, form: StepForm) -> GroupSteps {
        let step = |reg: &str, dir: &str| -> String {
            let up = dir == "up";
            match form {
                StepForm::Calls => format!("{p}_{dir}({reg}, {addr_width}'d{})", g.key),
                StepForm::WrittenOut => keyed_step(reg, g.key, addr_width, up),
            }
        };
        let (wa, ra) = (format!("{p}_wa{}", g.idx), format!("{p}_ra{}", g.idx));
        GroupSteps {
            wa_up: step(&wa, "up"),
            wa_down: step(&wa, "down"),
            ra_up: step(&ra, "up"),
            ra_down: step(&ra, "down"),
        }
    }
}

/// `reg` stepped up (or down) by one in the keyed count: `reg ^ key` counts,
/// so bit i flips when the keyed bits below it are all ones (all zeros), as
/// the cluster's `_up`/`_down` functions compute it, written out:
/// `reg ^ {flip[w-1], ..., flip[1], 1'b1}`.
fn keyed_step(reg: &str, key: u64, width: u32, up: bool) -> String {
    let mut flips: Vec<String> = (1..width)
        .rev()
        .map(|i| {
            let below = if i == 1 {
                format!("{reg}[0]")
            } else {
                format!("{reg}[{}:0]", i - 1)
            };
            let k = key & ((1u64 << i) - 1);
            if up {
                format!("&({below} ^ {i}'d{k})")
            } else {
                format!("~|({below} ^ {i}'d{k})")
            }
        })
        .collect();
    flips.push("1'b1".to_string());
    format!("{reg} ^ {{{}}}", flips.join(", "))
}

/// The groups of a `full_width`-bit row with `addr_width`-bit addresses.
fn mem_groups(full_width: usize, addr_width: u32) -> Vec<MemGroup> {
    let mask = (1u64 << addr_width) - 1;
    (0..full_width.div_ceil(MEM_GROUP_BITS))
        .map(|g| {
            let key = mask ^ (g as u64 & mask);
            MemGroup {
                idx: g,
                lo: g * MEM_GROUP_BITS,
                hi: ((g + 1) * MEM_GROUP_BITS).min(full_width) - 1,
                key,
                ra_reset: ((mask - 1) & mask) ^ key,
                steps: GroupSteps::default(),
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "xpath_cluster.v", escape = "none")]
struct ClusterTemplate {
    module: String,
    prefix: String,
    mem_words: u32,
    addr_width: u32,
    sp_width: u32,
    row_width: usize,
    queries: usize,
    tag_chars: Vec<CharLine>,
    attr_chars: Vec<CharLine>,
    tag_trie: Vec<TrieBit>,
    tag_lines: Vec<Line>,
    attr_trie: Vec<TrieBit>,
    attr_lines: Vec<Line>,
    vcmps: Vec<VcmpInst>,
    text_vcmps: Vec<VcmpInst>,
    conds: Vec<CondReg>,
    counters: Vec<CounterLogic>,
    pos_conds: Vec<PosCond>,
    mut_width: usize,
    full_width: usize,
    mem_group_bits: usize,
    mem_groups_piece: usize,
    /// The groups' counters step without the `_up`/`_down` functions.
    inline_steps: bool,
    /// The stack memory's groups, in processes of `mem_groups_piece`.
    mem_chunks: Vec<Vec<MemGroup>>,
    counted_assigns: Vec<RangeAssign>,
    pops: Vec<PopLogic>,
    pmut_assigns: Vec<RangeAssign>,
    text_bits: Vec<TextBit>,
    gs_bits: Vec<RowBit>,
    col_bits: Vec<RowBit>,
    nodes: Vec<NodeLogic>,
    /// The `_ctx` registers' names.
    ctx_regs: Vec<String>,
    col_inputs: Vec<ColInput>,
    assigns_piece: usize,
    /// The pure pipeline registers (`_ctx`, `_pre`), in processes of at
    /// most `assigns_piece`.
    pipe_chunks: Vec<Vec<Assign>>,
    flags: Vec<FlagLogic>,
    /// The result bits, in processes of at most `assigns_piece`.
    out_chunks: Vec<Vec<QueryOut>>,
    unused: Vec<String>,
    uses_depth1: bool,
    uses_depth2: bool,
    uses_depth_ge2: bool,
}

struct StageSig {
    name: &'static str,
    width: u32,
    /// Registered from stage to stage (the clusters' inputs); the
    /// document's status is read at stage 0 only (the result lane's head).
    piped: bool,
}

struct ClusterInst {
    module: String,
    inst: String,
    index: usize,
    stage: usize,
    queries: usize,
    /// The result lane register this cluster adds its bits to (`h`, the
    /// head, or `l<k-1>`, the previous cluster's).
    lane_in: String,
    /// Its match bits per bit position of a result word, 0..32.
    contrib: Vec<ContribBit>,
    /// The result words it has bits in, ascending.
    words: Vec<usize>,
    /// The word index its word selects are decoded from, two clocks before
    /// the word reaches `lane_in`: `h0_idx`, `h1_idx`, `h_idx` or
    /// `l<k-3>_idx`.
    sel_src: String,
}

/// One bit position of a cluster's contribution to the result words: the
/// queries of the cluster at that position, one per word.
struct ContribBit {
    bit: usize,
    terms: Vec<ContribTerm>,
    /// Written as a reduction, not a chain (`RtlShape::max_or_chain`).
    reduce: bool,
}

struct ContribTerm {
    /// Result word (0 is the status word).
    word: usize,
    /// The query's bit in the cluster's `q_match`.
    idx: usize,
    comment: String,
}

#[derive(Template)]
#[template(path = "xpath_top.v", escape = "none")]
struct TopTemplate {
    module: String,
    max_depth: u32,
    name_stack_bytes: u32,
    query_count: usize,
    result_words: u32,
    left_width: u32,
    /// Bits of a result word index.
    idx_width: u32,
    /// Entries of the output FIFO (a power of two), and its address bits.
    fifo_depth: u32,
    fifo_aw: u32,
    /// The FIFO is deeper than one distributed-RAM primitive's worth of
    /// words (32): ask for distributed RAM anyway (`ram_style`), since a
    /// block RAM's unregistered read (ECP5 DP16KD: 5.8 ns clock to out) in
    /// front of the output register limits the clock (2K queries in 64
    /// clusters of 32: 131.4 MHz with the FIFO in a DP16KD).
    fifo_distributed: bool,
    stages: usize,
    stage_sigs: Vec<StageSig>,
    clusters: Vec<ClusterInst>,
}

// ---------------------------------------------------------------------------
// Building the contexts
// ---------------------------------------------------------------------------

/// A trie over byte strings: one flip-flop per node (the tag decoder of
/// ch. 2.5.1 as a per-byte incremental matcher).
struct Trie {
    /// (parent, byte, prefix)
    nodes: Vec<(Option<usize>, u8, Vec<u8>)>,
    /// Node of each word's last byte.
    ends: Vec<usize>,
}

impl Trie {
    fn build(words: &[&[u8]]) -> Trie {
        let mut nodes: Vec<(Option<usize>, u8, Vec<u8>)> = Vec::new();
        let mut index: BTreeMap<(Option<usize>, u8), usize> = BTreeMap::new();
        let mut ends = Vec::new();
        for w in words {
            let mut at = None;
            for (i, &b) in w.iter().enumerate() {
                let next = *index.entry((at, b)).or_insert_with(|| {
                    nodes.push((at, b, w[..=i].to_vec()));
                    nodes.len() - 1
                });
                at = Some(next);
            }
            ends.push(at.expect("names are non-empty"));
        }
        Trie { nodes, ends }
    }
}

fn char_name(prefix: &str, b: u8) -> String {
    format!("{prefix}_ch_{b:02x}")
}

/// The trie's flip-flops; `suffix` names the character lines they read
/// (`_d`: the registered ones).
fn trie_bits(trie: &Trie, prefix: &str, suffix: &str) -> Vec<TrieBit> {
    trie.nodes
        .iter()
        .enumerate()
        .map(|(idx, (parent, b, pre))| TrieBit {
            idx,
            ch: format!("{}{suffix}", char_name(prefix, *b)),
            parent: *parent,
            prefix: comment_text(pre),
        })
        .collect()
}

/// Bytes as comment text: printable ASCII kept, the rest escaped.
fn comment_text(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    push_comment_text(&mut s, bytes);
    s
}

/// Append `bytes` as comment text: printable ASCII as is, other bytes as
/// `\xNN`.
fn push_comment_text(s: &mut String, bytes: &[u8]) {
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            s.push(b as char);
        } else {
            let _ = write!(s, "\\x{b:02x}");
        }
    }
}

fn cond_text(d: &StackDesign, c: CondId) -> String {
    match &d.conds[c.index()] {
        CondKind::AttrExists(a) => format!("[@{}]", comment_text(d.attrs.name(*a))),
        CondKind::AttrCmp(a, cmp) => {
            let v = match &cmp.value {
                crate::ir::xpath::Value::Str(s) => format!("\"{}\"", comment_text(s)),
                crate::ir::xpath::Value::Num(b) => format!("{}", f64::from_bits(*b)),
            };
            format!(
                "[@{} {} {}]",
                comment_text(d.attrs.name(*a)),
                cmp.op.as_str(),
                v
            )
        }
        CondKind::Position { op, value, .. } => {
            format!("[position() {} {}]", op.as_str(), f64::from_bits(*value))
        }
        CondKind::TextExists => "[text()]".to_string(),
        CondKind::TextCmp(cmp) => {
            let v = match &cmp.value {
                crate::ir::xpath::Value::Str(s) => format!("\"{}\"", comment_text(s)),
                crate::ir::xpath::Value::Num(b) => format!("{}", f64::from_bits(*b)),
            };
            format!("[text() {} {}]", cmp.op.as_str(), v)
        }
    }
}

fn node_comment(d: &StackDesign, cl: &Cluster, n: HwNodeId) -> String {
    let node = cl.node(n);
    let mut s = String::with_capacity(64);
    s.push_str(if node.axis == Axis::Child { "/" } else { "//" });
    match node.test {
        Test::Any => s.push('*'),
        Test::Tag(t) => push_comment_text(&mut s, d.tags.name(t)),
    }
    for c in &node.conds {
        s.push_str(&cond_text(d, *c));
    }
    s.push_str(": ");
    for (i, o) in node.origins.iter().take(4).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "q{} (line {}) step {}", o.query.0, o.line, o.step);
    }
    if node.origins.len() > 4 {
        let _ = write!(s, ", and {} more", node.origins.len() - 4);
    }
    s
}

fn query_comment(text: &str) -> String {
    comment_text(text.trim().as_bytes())
}

/// All distinct comparisons of the design, each one comparator module.
fn comparators(d: &StackDesign) -> Vec<(CondId, String)> {
    let mut out = Vec::new();
    for (i, c) in d.conds.iter().enumerate() {
        if let CondKind::AttrCmp(..) | CondKind::TextCmp(_) = c {
            out.push((CondId(i as u32), format!("qrtl_vcmp_{i}")));
        }
    }
    out
}

fn clog2(n: u64) -> u32 {
    64 - n.saturating_sub(1).leading_zeros()
}

fn cluster_template(d: &StackDesign, k: usize, cl: &Cluster, limits: &RtlShape) -> ClusterTemplate {
    let p = cl.name.clone();
    let members = cl.column_members();
    // Tag decoder over the tags this cluster's nodes test or read.
    let gs_tags = cl.gs_tags();
    let counters = cl.counters_used(&d.conds, &d.counters);
    let mut tags: Vec<_> = cl
        .nodes
        .iter()
        .map(|n| n.test)
        .chain(counters.iter().map(|c| d.counters[c.index()].test))
        .filter_map(|t| match t {
            Test::Tag(t) => Some(t),
            Test::Any => None,
        })
        .chain(gs_tags.iter().copied())
        .collect();
    tags.sort();
    tags.dedup();
    let tag_trie = Trie::build(&tags.iter().map(|t| d.tags.name(*t)).collect::<Vec<_>>());
    let tag_line =
        |t: crate::ir::xpath::TagId| format!("{p}_tag_{}_{}", t.0, sanitize(d.tags.name(t)));
    let tag_lines: Vec<Line> = tags
        .iter()
        .zip(&tag_trie.ends)
        .map(|(t, &bit)| Line {
            name: tag_line(*t),
            bit,
            comment: comment_text(d.tags.name(*t)),
        })
        .collect();
    // Attribute decoder and comparators over this cluster's conditions.
    // Open-time conditions: the nodes', the guards of the counters they
    // read, and the positions of those counters (evaluated in id order).
    let mut conds: Vec<CondId> = cl
        .nodes
        .iter()
        .flat_map(|n| n.conds.iter().copied())
        .chain(
            counters
                .iter()
                .flat_map(|c| d.counters[c.index()].guard.iter().copied()),
        )
        .collect();
    conds.sort();
    conds.dedup();
    let (pos_ids, conds): (Vec<CondId>, Vec<CondId>) = conds
        .into_iter()
        .partition(|c| matches!(d.conds[c.index()], CondKind::Position { .. }));
    // text() conditions the pop nodes check.
    let mut text_conds: Vec<CondId> = cl
        .pops
        .iter()
        .flat_map(|p| p.close_conds.iter().copied())
        .collect();
    text_conds.sort();
    text_conds.dedup();
    let mut attrs: Vec<AttrId> = conds
        .iter()
        .filter_map(|c| match &d.conds[c.index()] {
            CondKind::AttrExists(a) | CondKind::AttrCmp(a, _) => Some(*a),
            _ => None,
        })
        .collect();
    attrs.sort();
    attrs.dedup();
    let attr_trie = Trie::build(&attrs.iter().map(|a| d.attrs.name(*a)).collect::<Vec<_>>());
    let attr_line = |a: AttrId| format!("{p}_attr_{}_{}", a.0, sanitize(d.attrs.name(a)));
    let attr_lines: Vec<Line> = attrs
        .iter()
        .zip(&attr_trie.ends)
        .map(|(a, &bit)| Line {
            name: attr_line(*a),
            bit,
            comment: comment_text(d.attrs.name(*a)),
        })
        .collect();
    let modules: BTreeMap<CondId, String> = comparators(d).into_iter().collect();
    let mut vcmps = Vec::new();
    let mut cond_regs = Vec::new();
    let cond_name = |c: CondId| format!("{p}_cond{}", c.0);
    for &c in &conds {
        let (attr, value_ok) = match &d.conds[c.index()] {
            CondKind::AttrExists(a) => (*a, None),
            CondKind::AttrCmp(a, _) => {
                let inst = format!("{p}_v{}", c.0);
                let out = format!("{inst}_ok");
                vcmps.push(VcmpInst {
                    module: modules[&c].clone(),
                    inst,
                    out: out.clone(),
                });
                (*a, Some(out))
            }
            _ => unreachable!("partitioned: attribute conditions only"),
        };
        cond_regs.push(CondReg {
            name: cond_name(c),
            attr_line: attr_line(attr),
            value_ok,
            comment: cond_text(d, c),
        });
    }
    // Character lines: the tag decoder's compare the early byte, the
    // attribute decoder's are registered (they see the stream one clock
    // late, like the rest of the cluster).
    let char_set = |trie: &Trie| {
        let mut v: Vec<u8> = trie.nodes.iter().map(|n| n.1).collect();
        v.sort();
        v.dedup();
        v
    };
    let tag_chars = char_set(&tag_trie);
    let attr_chars = char_set(&attr_trie);
    // Stack row: global-stack bits, then columns.
    let gs_bits: Vec<RowBit> = gs_tags
        .iter()
        .enumerate()
        .map(|(i, t)| RowBit {
            bit: i,
            name: format!("{p}_gs_{}_{}", t.0, sanitize(d.tags.name(*t))),
            comment: format!(
                "global stack: parent is <{}>",
                comment_text(d.tags.name(*t))
            ),
            src: tag_line(*t),
        })
        .collect();
    // Names by tag: `tags` and `gs_tags` are sorted.
    let tag_line_names: Vec<String> = tags.iter().map(|t| tag_line(*t)).collect();
    let tag_line_of = |t: crate::ir::xpath::TagId| -> &str {
        &tag_line_names[tags.binary_search(&t).expect("decoded tag")]
    };
    let gs_bit_of = |t: crate::ir::xpath::TagId| -> &str {
        &gs_bits[gs_tags.binary_search(&t).expect("gs tag")].name
    };
    let col_bits: Vec<RowBit> = cl
        .columns
        .iter()
        .enumerate()
        .map(|(j, c)| {
            let mut comment = String::with_capacity(32 + 16 * members[j].len());
            comment.push_str(if c.kind == ColKind::Exact {
                "exact column "
            } else {
                "carry column "
            });
            comment.push_str(&c.name);
            comment.push_str(": ");
            for (i, n) in members[j].iter().enumerate() {
                if i > 0 {
                    comment.push_str(", ");
                }
                comment.push_str(&cl.node(*n).name);
            }
            RowBit {
                bit: gs_tags.len() + j,
                name: format!("{}_tos", c.name),
                comment,
                src: String::new(),
            }
        })
        .collect();
    let mut flagged = vec![false; cl.nodes.len()];
    for f in &cl.flags {
        if let FlagSrc::Fire(n) = f.src {
            flagged[n.index()] = true;
        }
    }
    // Columns some node or pop node reads (a carry column also reads
    // itself); the others are stored but unread (possible only with
    // `last-column` off).
    let mut read_cols = vec![false; cl.columns.len()];
    for i in 0..cl.nodes.len() {
        if let Read::Column { col, .. } = cl.read_of(HwNodeId(i as u32), &members) {
            read_cols[col.index()] = true;
        }
    }
    for i in 0..cl.pops.len() {
        read_cols[cl.here_of(PopId(i as u32), &members).0.index()] = true;
    }
    let row_width = gs_bits.len() + col_bits.len();
    let m = mutable_part(MutableCtx {
        d,
        cl,
        p: &p,
        members: &members,
        row_width,
        counters: &counters,
        pos_ids: &pos_ids,
        text_conds: &text_conds,
        modules: &modules,
        tag_line: &tag_line,
        cond_name: &cond_name,
        gs_bit: &|t| &gs_bits[gs_tags.iter().position(|x| *x == t).expect("gs tag")],
        col_bit: &|c| &col_bits[c],
    });
    for (j, c) in cl.columns.iter().enumerate() {
        read_cols[j] |= c.kind == ColKind::Carry;
    }
    let (mut d1, mut d2, mut dge2) = (false, false, false);
    let mut nodes = Vec::with_capacity(cl.nodes.len());
    let mut ctx_regs: Vec<CtxReg> = Vec::new();
    let mut ctx_index: HashMap<String, usize> = HashMap::default();
    for (i, n) in cl.nodes.iter().enumerate() {
        let id = HwNodeId(i as u32);
        let used = n.exact.is_some() || n.carry.is_some() || flagged[i];
        // The node's match terms on the stack top, ANDed.
        let mut ctx = String::with_capacity(64);
        let mut term = |t: &str| {
            if !ctx.is_empty() {
                ctx.push_str(" & ");
            }
            ctx.push_str(t);
        };
        match cl.read_of(id, &members) {
            Read::Doc(Axis::Child) => {
                d1 |= used;
                term(&format!("{p}_depth1"));
            }
            Read::Doc(Axis::Descendant) => {}
            Read::Gs { root_axis, tag } => {
                if root_axis == Axis::Child {
                    d2 |= used;
                    term(&format!("{p}_depth2"));
                } else {
                    dge2 |= used;
                    term(&format!("{p}_depth_ge2"));
                }
                if let Some(t) = tag {
                    term(gs_bit_of(t));
                }
            }
            Read::Column { col, gs } => {
                term(&col_bits[col.index()].name);
                if let Some(t) = gs {
                    term(gs_bit_of(t));
                }
            }
        }
        let tag = match n.test {
            Test::Tag(t) => Some(tag_line_of(t)),
            _ => None,
        };
        // The stack-top part is registered a clock before the tag joins it
        // (see the cluster template's timing note); unused nodes keep the
        // plain expression for their comment.
        let mut pre = if used && !ctx.is_empty() {
            let k = *ctx_index.entry(ctx).or_insert_with_key(|ctx| {
                ctx_regs.push(CtxReg {
                    name: format!("{}_ctx", n.name),
                    expr: ctx.clone(),
                });
                ctx_regs.len() - 1
            });
            ctx_regs[k].name.clone()
        } else {
            ctx
        };
        if let Some(t) = tag {
            if !pre.is_empty() {
                pre.push_str(" & ");
            }
            pre.push_str(t);
        }
        if pre.is_empty() {
            pre.push_str("1'b1");
        }
        let mut expr = format!("{}_pre", n.name);
        for c in &n.conds {
            expr.push_str(" & ");
            expr.push_str(&cond_name(*c));
        }
        nodes.push(NodeLogic {
            name: n.name.clone(),
            comment: node_comment(d, cl, id),
            pre,
            expr,
            fires: used && (flagged[i] || !n.conds.is_empty()),
            used,
        });
    }
    let (col_inputs, col_pre): (Vec<ColInput>, Vec<Vec<String>>) = cl
        .columns
        .iter()
        .enumerate()
        .map(|(j, c)| {
            // Members without attribute conditions are known a clock
            // ahead; the others fire with their conditions.
            let mut pre_terms: Vec<(&str, bool)> = Vec::new();
            let mut live: Vec<String> = Vec::new();
            for n in &members[j] {
                if cl.node(*n).conds.is_empty() {
                    pre_terms.push((&nodes[n.index()].pre, true));
                } else {
                    live.push(cl.node(*n).name.clone());
                }
            }
            if c.kind == ColKind::Carry {
                pre_terms.push((&col_bits[j].name, false));
            }
            let group = pre_group_size(pre_terms.len(), live.len());
            let pre: Vec<String> = pre_terms
                .chunks(group)
                .map(|g| {
                    let mut s = String::with_capacity(g.iter().map(|t| t.0.len() + 5).sum());
                    for (i, (t, paren)) in g.iter().enumerate() {
                        if i > 0 {
                            s.push_str(" | ");
                        }
                        if *paren {
                            s.push('(');
                            s.push_str(t);
                            s.push(')');
                        } else {
                            s.push_str(t);
                        }
                    }
                    s
                })
                .collect();
            let mut expr: Vec<String> = (0..pre.len())
                .map(|i| format!("{}_pre{i}", c.name))
                .collect();
            expr.append(&mut live);
            (
                ColInput {
                    bit: gs_tags.len() + j,
                    name: c.name.clone(),
                    pre_count: pre.len(),
                    expr: if expr.is_empty() {
                        "1'b0".to_string()
                    } else {
                        expr.join(" | ")
                    },
                },
                pre,
            )
        })
        .unzip();
    // The pipeline registers in the order they are declared: stack-top
    // parts, nodes' pre-registers, columns' pre-registers.
    let mut pipe = Vec::with_capacity(ctx_regs.len() + nodes.len() + col_pre.len());
    let ctx_regs: Vec<String> = ctx_regs
        .into_iter()
        .map(|c| {
            pipe.push(Assign {
                lhs: c.name.clone(),
                rhs: c.expr,
            });
            c.name
        })
        .collect();
    // A firing node's `pre` is read here only (the template prints the
    // expression of nodes without a register).
    for n in nodes.iter_mut().filter(|n| n.fires) {
        pipe.push(Assign {
            lhs: format!("{}_pre", n.name),
            rhs: std::mem::take(&mut n.pre),
        });
    }
    for (c, pre) in col_inputs.iter().zip(col_pre) {
        for (i, e) in pre.into_iter().enumerate() {
            pipe.push(Assign {
                lhs: format!("{}_pre{i}", c.name),
                rhs: e,
            });
        }
    }
    let flags: Vec<FlagLogic> = cl
        .flags
        .iter()
        .map(|f| FlagLogic {
            name: f.name.clone(),
            set: match f.src {
                FlagSrc::Fire(n) => format!("(ev_open & {})", cl.node(n).name),
                FlagSrc::Pop(x) => format!("{}_full", cl.pop(x).name),
            },
        })
        .collect();
    let outs: Vec<QueryOut> = d
        .queries
        .iter()
        .filter(|q| q.cluster == k)
        .enumerate()
        .map(|(idx, q)| QueryOut {
            idx,
            expr: q
                .flags
                .iter()
                .map(|f| format!("{}_next", cl.flags[f.index()].name))
                .collect::<Vec<_>>()
                .join(" & "),
            comment: format!("q{} (line {}): {}", q.id.0, q.line, query_comment(&q.text)),
        })
        .collect();
    let unused = read_cols
        .iter()
        .enumerate()
        .filter(|(_, r)| !**r)
        .map(|(j, _)| col_bits[j].name.clone())
        // The tag decoder's character lines are the only reader of
        // in_byte_next.
        .chain(tag_chars.is_empty().then(|| "in_byte_next".to_string()))
        .chain(
            [
                "ev_byte",
                "ev_name_byte",
                "ev_name_first",
                "ev_attr_name_byte",
                "ev_attr_name_first",
                "ev_val_start",
                "ev_val_unit",
                "ev_unit_is_cp",
                "ev_unit_byte",
                "ev_unit_cp",
                "ev_val_end",
                "ev_open",
                "ev_open_empty",
                "ev_close",
                "ev_text_unit",
                "ev_text_end",
                "ev_doc_end",
            ]
            .iter()
            .map(|s| s.to_string()),
        )
        .collect();
    // Rows below the top: depths 0..max_depth-1, rounded up to a power of two
    // so the address is exactly the low bits of the stack pointer.
    let addr_width = clog2(u64::from(d.max_depth)).max(1);
    // Groups split over processes are stepped without function calls
    // (`RtlShape::mem_groups`).
    let mut groups = mem_groups(row_width + m.width, addr_width);
    let form = if groups.len() > limits.mem_groups.max {
        StepForm::WrittenOut
    } else {
        StepForm::Calls
    };
    for g in &mut groups {
        g.steps = GroupSteps::new(&p, g, addr_width, form);
    }
    let mem_chunks = limits.mem_groups.split(groups);
    ClusterTemplate {
        module: format!("qrtl_xpath_{p}"),
        prefix: p.clone(),
        mem_words: 1 << addr_width,
        addr_width,
        sp_width: clog2(u64::from(d.max_depth) + 1).max(1),
        row_width,
        queries: outs.len(),
        tag_chars: tag_chars
            .into_iter()
            .map(|b| CharLine {
                name: char_name(&p, b),
                byte: b,
            })
            .collect(),
        attr_chars: attr_chars
            .into_iter()
            .map(|b| CharLine {
                name: format!("{}_d", char_name(&p, b)),
                byte: b,
            })
            .collect(),
        tag_trie: trie_bits(&tag_trie, &p, ""),
        tag_lines,
        attr_trie: trie_bits(&attr_trie, &p, "_d"),
        attr_lines,
        vcmps,
        text_vcmps: m.text_vcmps,
        conds: cond_regs,
        counters: m.counters,
        pos_conds: m.pos_conds,
        mut_width: m.width,
        full_width: row_width + m.width,
        mem_group_bits: MEM_GROUP_BITS,
        mem_groups_piece: limits.mem_groups.piece,
        inline_steps: form == StepForm::WrittenOut,
        mem_chunks,
        counted_assigns: m.counted_assigns,
        pops: m.pops,
        pmut_assigns: m.pmut_assigns,
        text_bits: m.text_bits,
        gs_bits,
        col_bits,
        nodes,
        ctx_regs,
        col_inputs,
        assigns_piece: limits.assigns.piece,
        pipe_chunks: limits.assigns.split(pipe),
        flags,
        out_chunks: limits.assigns.split(outs),
        unused,
        uses_depth1: d1,
        uses_depth2: d2,
        uses_depth_ge2: dge2,
    }
}

/// Emit the whole design.
pub fn emit_xpath(d: &StackDesign, config: &XpathRtlConfig) -> XpathRtl {
    let mut files = vec![RtlFile {
        name: "qrtl_sax.v".to_string(),
        text: sax_module(&SaxParams {
            max_depth: d.max_depth,
            name_stack_bytes: config.name_stack_bytes,
        }),
    }];
    for (c, module) in comparators(d) {
        if let CondKind::AttrCmp(_, cmp) | CondKind::TextCmp(cmp) = &d.conds[c.index()] {
            files.push(RtlFile {
                name: format!("{module}.v"),
                text: vcmp_module(&module, cmp, &cond_text(d, c)),
            });
        }
    }
    // Pipelined: cluster k sees the event stream after k pipeline stages;
    // broadcast: every cluster sees the parser's outputs.
    let mut local_index = vec![0usize; d.queries.len()];
    let mut counts = vec![0usize; d.clusters.len()];
    for q in &d.queries {
        local_index[q.id.index()] = counts[q.cluster];
        counts[q.cluster] += 1;
    }
    let mut clusters = Vec::new();
    // Clusters are about the same size: render each into a buffer sized
    // after the previous one (no regrowing of ~0.5 MB texts).
    let mut last_len = 0usize;
    for (k, cl) in d.clusters.iter().enumerate() {
        let t = cluster_template(d, k, cl, &config.shape);
        clusters.push(ClusterInst {
            module: t.module.clone(),
            inst: format!("u_{}", cl.name),
            index: k,
            stage: match config.input {
                EventInput::Pipelined => k,
                EventInput::Broadcast => 0,
            },
            queries: t.queries,
            lane_in: if k == 0 {
                "h".to_string()
            } else {
                format!("l{}", k - 1)
            },
            contrib: Vec::new(),
            words: Vec::new(),
            sel_src: match k {
                0 => "h0_idx".to_string(),
                1 => "h1_idx".to_string(),
                2 => "h_idx".to_string(),
                _ => format!("l{}_idx", k - 3),
            },
        });
        let mut text = String::with_capacity(last_len + last_len / 4);
        t.render_into(&mut text).expect("cluster template renders");
        text.push('\n');
        last_len = text.len();
        files.push(RtlFile {
            name: format!("{}.v", t.module),
            text,
        });
    }
    // Each query's bit: word 1 + id / 32, position id % 32, added to the
    // lane by its cluster.
    for c in clusters.iter_mut() {
        c.contrib = (0..RESULT_WIDTH as usize)
            .map(|bit| ContribBit {
                bit,
                terms: Vec::new(),
                reduce: false,
            })
            .collect();
    }
    for q in &d.queries {
        let pos = RESULT_WIDTH as usize + q.id.index();
        clusters[q.cluster].contrib[pos % RESULT_WIDTH as usize]
            .terms
            .push(ContribTerm {
                word: pos / RESULT_WIDTH as usize,
                idx: local_index[q.id.index()],
                comment: format!("q{} (line {})", q.id.0, q.line),
            });
        clusters[q.cluster].words.push(pos / RESULT_WIDTH as usize);
    }
    for c in clusters.iter_mut() {
        c.words.sort_unstable();
        c.words.dedup();
        for b in &mut c.contrib {
            b.reduce = b.terms.len() > config.shape.max_or_chain;
        }
    }
    let bitmap_words = (d.queries.len() as u32).div_ceil(RESULT_WIDTH);
    let result_words = 1 + bitmap_words;
    // The FIFO holds the words of a credit round trip (issue through every
    // cluster to the tail, the credit back through as many registers), so
    // the head never waits on an m_axis that takes a word every clock.
    let fifo_depth = (2 * d.clusters.len() as u32 + 7).next_power_of_two().max(8);
    // Up to this depth every tool maps the FIFO to distributed RAM by
    // itself; deeper ones get a `ram_style` attribute.
    const FIFO_LUTRAM_DEPTH: u32 = 32;
    let stages = match config.input {
        EventInput::Pipelined => d.clusters.len().max(1),
        EventInput::Broadcast => 1,
    };
    let top = TopTemplate {
        module: "qrtl_xpath_top".to_string(),
        max_depth: d.max_depth,
        name_stack_bytes: config.name_stack_bytes,
        query_count: d.queries.len(),
        result_words,
        left_width: clog2(u64::from(result_words) + 1).max(1),
        idx_width: clog2(u64::from(result_words)).max(1),
        fifo_depth,
        fifo_aw: fifo_depth.trailing_zeros(),
        fifo_distributed: fifo_depth > FIFO_LUTRAM_DEPTH,
        stages,
        stage_sigs: vec![
            StageSig {
                name: "byte",
                width: 8,
                piped: true,
            },
            StageSig {
                name: "name_byte",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "name_first",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "attr_name_byte",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "attr_name_first",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "val_start",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "val_unit",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "unit_is_cp",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "unit_byte",
                width: 8,
                piped: true,
            },
            StageSig {
                name: "unit_cp",
                width: 21,
                piped: true,
            },
            StageSig {
                name: "val_end",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "open",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "open_empty",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "close",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "text_unit",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "text_end",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "doc_end",
                width: 1,
                piped: true,
            },
            StageSig {
                name: "status",
                width: 2,
                piped: false,
            },
            StageSig {
                name: "reason",
                width: 5,
                piped: false,
            },
        ],
        clusters,
    };
    files.push(RtlFile {
        name: "qrtl_xpath_top.v".to_string(),
        text: top.render().expect("top template renders") + "\n",
    });
    let queries = d
        .queries
        .iter()
        .map(|q| QueryBit {
            id: q.id.0,
            line: q.line,
            text: q.text.clone(),
            cluster: q.cluster,
            word: 1 + q.id.0 / RESULT_WIDTH,
            bit: q.id.0 % RESULT_WIDTH,
        })
        .collect();
    XpathRtl {
        top: "qrtl_xpath_top".to_string(),
        files,
        queries,
        result_words,
        // The SAX parser's pipeline, cluster 0's own pipeline (to its match
        // register), then the result lane: one register per cluster plus
        // the head's and the tail's.
        latency: super::sax::SAX_LATENCY
            + CLUSTER_LATENCY
            + d.clusters.len() as u32
            + RESULT_LATENCY,
    }
}

/// Clocks of the result lane (`xpath_top.v`) besides its one register per
/// cluster: from cluster 0's match bits (`done_0`) the word count's load,
/// the head's three registers, the FIFO, the output register.
const RESULT_LATENCY: u32 = 6;

/// LUT4 levels of an AND/OR tree over `inputs` signals.
fn lut4_levels(inputs: usize) -> u32 {
    let mut levels = 0;
    let mut n = inputs.max(1);
    while n > 1 {
        n = n.div_ceil(4);
        levels += 1;
    }
    levels.max(1)
}

/// Terms per column pre-register, for a column of `terms` pre terms (two
/// flip-flops ANDed each: `<node>_ctx & tag`) and `live` members that fire
/// with their attribute conditions. The pre-registers' OR tree (before
/// the clock) and the column's OR of them and the live members, then the
/// stack-top update (after it) share the levels: the size that keeps the
/// deeper side shallowest, then the fewest levels in all, then the one
/// whose fuller tree is the least full (a tree using every input of its
/// levels leaves synthesis no room: at 2K queries a 64-input group mapped
/// to four levels, not three), then the larger size (fewer registers).
fn pre_group_size(terms: usize, live: usize) -> usize {
    (2..=terms.max(2))
        .map(|g| {
            let before = lut4_levels(2 * g);
            let after_inputs = terms.div_ceil(g) + live;
            let after = lut4_levels(after_inputs) + 1;
            // Inputs per thousand of what the tree's levels can take.
            let fill = |inputs: usize, levels: u32| inputs * 1000 / 4usize.pow(levels);
            let fuller = fill(2 * g, before).max(fill(after_inputs, after - 1));
            (
                before.max(after),
                before + after,
                fuller,
                std::cmp::Reverse(g),
            )
        })
        .min()
        .map_or(2, |(_, _, _, g)| g.0)
}

/// What the mutable part of a cluster's rows is built from.
struct MutableCtx<'a> {
    d: &'a StackDesign,
    cl: &'a Cluster,
    p: &'a str,
    members: &'a NodeLists,
    row_width: usize,
    counters: &'a [crate::ir::xpath::CounterId],
    pos_ids: &'a [CondId],
    text_conds: &'a [CondId],
    modules: &'a BTreeMap<CondId, String>,
    tag_line: &'a dyn Fn(crate::ir::xpath::TagId) -> String,
    cond_name: &'a dyn Fn(CondId) -> String,
    gs_bit: &'a dyn Fn(crate::ir::xpath::TagId) -> &'a RowBit,
    col_bit: &'a dyn Fn(usize) -> &'a RowBit,
}

/// The mutable part of the rows (counters, `text()` results, reports) and
/// the logic around it.
struct Mutable {
    width: usize,
    counters: Vec<CounterLogic>,
    pos_conds: Vec<PosCond>,
    text_vcmps: Vec<VcmpInst>,
    text_bits: Vec<TextBit>,
    pops: Vec<PopLogic>,
    counted_assigns: Vec<RangeAssign>,
    pmut_assigns: Vec<RangeAssign>,
}

fn range(hi: usize, lo: usize) -> String {
    if hi == lo {
        format!("{lo}")
    } else {
        format!("{hi}:{lo}")
    }
}

fn verilog_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// Positions a counter can tell apart: up to 2^40 siblings under one parent.
const MAX_POSITION: f64 = (1u64 << 40) as f64;

/// `position() OP v` over positions 1, 2, ... as an integer comparison
/// `position() OP' n` with 1 <= n <= 2^40, or its constant answer.
fn position_test(op: CmpOp, v: f64) -> Result<(CmpOp, u64), bool> {
    if v.is_nan() {
        return Err(op == CmpOp::Ne);
    }
    let whole = v.fract() == 0.0;
    match op {
        CmpOp::Eq | CmpOp::Ne => {
            let never = !whole || !(1.0..=MAX_POSITION).contains(&v);
            if never {
                Err(op == CmpOp::Ne)
            } else {
                Ok((op, v as u64))
            }
        }
        // pos < v  <=>  pos < ceil(v);  pos >= v  <=>  pos >= ceil(v)
        CmpOp::Lt | CmpOp::Ge => {
            let n = v.ceil();
            if n <= 1.0 {
                Err(op == CmpOp::Ge)
            } else if n > MAX_POSITION {
                Err(op == CmpOp::Lt)
            } else {
                Ok((op, n as u64))
            }
        }
        // pos <= v  <=>  pos <= floor(v);  pos > v  <=>  pos > floor(v)
        CmpOp::Le | CmpOp::Gt => {
            let n = v.floor();
            if n < 1.0 {
                Err(op == CmpOp::Gt)
            } else if n >= MAX_POSITION {
                Err(op == CmpOp::Le)
            } else {
                Ok((op, n as u64))
            }
        }
    }
}

fn mutable_part(x: MutableCtx<'_>) -> Mutable {
    let MutableCtx { d, cl, p, .. } = x;
    let mut at = 0usize; // next free bit of the mutable part
                         // Sibling counters: wide enough for the largest position compared + 1,
                         // saturating there (every comparison then still sees the true answer).
    let mut counters = Vec::new();
    let mut cnt_name = BTreeMap::new();
    let mut cnt_width = BTreeMap::new();
    for &k in x.counters {
        let maxv = d
            .conds
            .iter()
            .filter_map(|c| match c {
                CondKind::Position { counter, op, value } if *counter == k => {
                    position_test(*op, f64::from_bits(*value)).ok().map(|t| t.1)
                }
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let width = clog2(maxv.saturating_add(2)).max(1);
        let counter = &d.counters[k.index()];
        let name = format!("{p}_cnt{}", k.0);
        let mut inc = vec!["ev_open".to_string()];
        if let Test::Tag(t) = counter.test {
            inc.push((x.tag_line)(t));
        }
        inc.extend(counter.guard.iter().map(|g| (x.cond_name)(*g)));
        let test = match counter.test {
            Test::Any => "*".to_string(),
            Test::Tag(t) => comment_text(d.tags.name(t)),
        };
        let guards: String = counter.guard.iter().map(|g| cond_text(d, *g)).collect();
        counters.push(CounterLogic {
            name: name.clone(),
            comment: format!(
                "counter {}: children {test}{guards} of the top element",
                k.0
            ),
            width,
            lo: at,
            hi: at + width as usize - 1,
            inc: inc.join(" & "),
        });
        cnt_name.insert(k, name);
        cnt_width.insert(k, width);
        at += width as usize;
    }
    let pos_conds = x
        .pos_ids
        .iter()
        .map(|&c| {
            let CondKind::Position { counter, op, value } = &d.conds[c.index()] else {
                unreachable!("partitioned: positions only")
            };
            let (name, w) = (&cnt_name[counter], cnt_width[counter]);
            let expr = match position_test(*op, f64::from_bits(*value)) {
                Ok((op, n)) => format!("{name}_inc & ({name}_next {} {w}'d{n})", verilog_op(op)),
                Err(true) => format!("{name}_inc"),
                Err(false) => "1'b0".to_string(),
            };
            PosCond {
                name: (x.cond_name)(c),
                expr,
                comment: cond_text(d, c),
            }
        })
        .collect();
    let counters_end = at;
    // text() results of the top element.
    let mut text_vcmps = Vec::new();
    let mut text_bits = Vec::new();
    let mut text_bit = BTreeMap::new();
    for &c in x.text_conds {
        let hit = match &d.conds[c.index()] {
            CondKind::TextCmp(_) => {
                let inst = format!("{p}_t{}", c.0);
                let out = format!("{inst}_ok");
                text_vcmps.push(VcmpInst {
                    module: x.modules[&c].clone(),
                    inst,
                    out: out.clone(),
                });
                out
            }
            _ => "1'b1".to_string(),
        };
        text_bits.push(TextBit {
            bit: x.row_width + at,
            hit,
            comment: cond_text(d, c),
        });
        text_bit.insert(c, at);
        at += 1;
    }
    let plain_end = at;
    // Reports: a bit per pop node some pop node needs; with `--ordered` an
    // accepted-report bit per such node, and a raw bit only for `//` nodes
    // (their reports still travel up).
    let ordered = d.order == SiblingOrder::Ordered;
    let mut rep_bit = vec![None; cl.pops.len()];
    let mut acc_bit = vec![None; cl.pops.len()];
    let bits = cl.report_bits(d.order);
    for (i, &(raw, _)) in bits.iter().enumerate() {
        if raw {
            rep_bit[i] = Some(at);
            at += 1;
        }
    }
    for (i, &(_, accepted)) in bits.iter().enumerate() {
        if accepted {
            acc_bit[i] = Some(at);
            at += 1;
        }
    }
    let width = at;
    let tos_mut = |b: usize| format!("{p}_tos_mut[{b}]");
    let mut pops = Vec::new();
    let mut pmut_assigns = Vec::new();
    if plain_end > 0 {
        pmut_assigns.push(RangeAssign {
            range: range(plain_end - 1, 0),
            expr: format!("{p}_pmut[{}]", range(plain_end - 1, 0)),
        });
    }
    for (i, pop) in cl.pops.iter().enumerate() {
        let (col, gs) = cl.here_of(PopId(i as u32), x.members);
        let col = (x.col_bit)(col.index());
        let mut close = vec!["ev_close".to_string(), col.name.clone()];
        let mut empty = vec!["ev_open_empty".to_string(), format!("{p}_row[{}]", col.bit)];
        if let Some(t) = gs {
            let g = (x.gs_bit)(t);
            close.push(g.name.clone());
            empty.push(format!("{p}_row[{}]", g.bit));
        }
        for c in &pop.children {
            let b = if ordered {
                acc_bit[c.index()]
            } else {
                rep_bit[c.index()]
            };
            close.push(tos_mut(b.expect("children have report bits")));
        }
        for c in &pop.close_conds {
            close.push(tos_mut(text_bit[c]));
        }
        let full = if pop.children.is_empty() && pop.close_conds.is_empty() {
            format!("({}) | ({})", close.join(" & "), empty.join(" & "))
        } else {
            close.join(" & ")
        };
        let name = pop.name.clone();
        let arrive =
            (rep_bit[i].is_some() || acc_bit[i].is_some()).then(|| match (pop.axis, rep_bit[i]) {
                (Axis::Descendant, Some(r)) => {
                    format!("{name}_full | (ev_close & {})", tos_mut(r))
                }
                _ => format!("{name}_full"),
            });
        if let Some(r) = rep_bit[i] {
            pmut_assigns.push(RangeAssign {
                range: format!("{r}"),
                expr: format!("{p}_pmut[{r}] | {name}_arrive"),
            });
        }
        if let Some(a) = acc_bit[i] {
            let expr = match pop.prev {
                Some(prev) => format!(
                    "{p}_pmut[{a}] | ({name}_arrive & {p}_pmut[{}])",
                    acc_bit[prev.index()].expect("siblings have accepted bits")
                ),
                None => format!("{p}_pmut[{a}] | {name}_arrive"),
            };
            pmut_assigns.push(RangeAssign {
                range: format!("{a}"),
                expr,
            });
        }
        let needs: Vec<String> = pop
            .children
            .iter()
            .map(|c| cl.pop(*c).name.clone())
            .chain(pop.close_conds.iter().map(|c| cond_text(d, *c)))
            .collect();
        pops.push(PopLogic {
            // `node_comment` starts with the push node's own axis.
            comment: format!(
                "{} {}{}",
                name,
                node_comment(d, cl, pop.push),
                if needs.is_empty() {
                    String::new()
                } else {
                    format!("; needs {}", needs.join(", "))
                }
            ),
            name,
            full,
            arrive,
        });
    }
    let mut counted_assigns: Vec<RangeAssign> = counters
        .iter()
        .map(|c| RangeAssign {
            range: range(c.hi, c.lo),
            expr: format!("{}_next", c.name),
        })
        .collect();
    if width > counters_end {
        counted_assigns.push(RangeAssign {
            range: range(width - 1, counters_end),
            expr: format!("{p}_tos_mut[{}]", range(width - 1, counters_end)),
        });
    }
    Mutable {
        width,
        counters,
        pos_conds,
        text_vcmps,
        text_bits,
        pops,
        counted_assigns,
        pmut_assigns,
    }
}

#[cfg(test)]
mod tests {
    use super::{keyed_step, lut4_levels, mem_groups, pre_group_size, MEM_GROUP_BITS};

    #[test]
    fn lut4_levels_count_a_tree_of_four_input_luts() {
        assert_eq!(lut4_levels(0), 1);
        assert_eq!(lut4_levels(1), 1);
        assert_eq!(lut4_levels(4), 1);
        assert_eq!(lut4_levels(5), 2);
        assert_eq!(lut4_levels(16), 2);
        assert_eq!(lut4_levels(17), 3);
        assert_eq!(lut4_levels(64), 3);
    }

    #[test]
    fn pre_groups_keep_both_clocks_shallow() {
        // 100 terms: 32 per group is 64 inputs (3 levels) before the clock,
        // 4 registers ORed then the top's update (2 levels) after it; 7 per
        // group is 14 inputs (2 levels) before, 15 registers (3 levels)
        // after: as deep, as many levels in all, but 32 fills every input
        // of both trees and 7 leaves room in each (14 of 16, 15 of 16).
        assert_eq!(pre_group_size(100, 0), 7);
        // 173 terms (column 0 of a 2K-query cluster): 32 per group (64 of
        // 64 inputs before the clock) mapped to four levels; 20 per group
        // is 40 of 64 before and 9 of 16 after, as deep.
        assert_eq!(pre_group_size(173, 0), 20);
        // 4 terms: two groups of 4 inputs (1 level) before the clock, their
        // OR and the top's update (2 levels) after it; one group of 8
        // inputs would take 2 levels on both sides.
        assert_eq!(pre_group_size(4, 0), 2);
        // A handful of terms: one group (one register) when that is as
        // shallow as any split.
        assert_eq!(pre_group_size(2, 0), 2);
        assert_eq!(pre_group_size(1, 0), 2);
        // Live members (attribute conditions) join the OR after the clock.
        let g = pre_group_size(100, 40);
        assert!(100usize.div_ceil(g) + 40 <= 64, "{g}");
        // Never deeper than either side must be: a group's tree and the OR
        // of the groups each fit the chosen depth.
        for terms in 1..600 {
            let g = pre_group_size(terms, 0);
            let depth = lut4_levels(2 * g).max(lut4_levels(terms.div_ceil(g)) + 1);
            let sqrt = terms.isqrt().max(2);
            let naive = lut4_levels(2 * sqrt).max(lut4_levels(terms.div_ceil(sqrt)) + 1);
            assert!(
                depth <= naive,
                "{terms} terms: group {g} depth {depth} > {naive}"
            );
        }
    }

    #[test]
    fn keyed_steps_flip_the_bits_the_functions_flip() {
        // Key 5 (101), 3 bits: r = v ^ 5. Up from v = 3 (r = 110): both
        // keyed low bits are ones, all three bits flip, r = 001 = 4 ^ 5.
        // Down from v = 4 (r = 001): both keyed low bits are zeros, all
        // flip, r = 110 = 3 ^ 5. (The Verilator option grid runs these
        // steps against the reference model.)
        assert_eq!(
            keyed_step("r", 5, 3, true),
            "r ^ {&(r[1:0] ^ 2'd1), &(r[0] ^ 1'd1), 1'b1}"
        );
        assert_eq!(
            keyed_step("r", 5, 3, false),
            "r ^ {~|(r[1:0] ^ 2'd1), ~|(r[0] ^ 1'd1), 1'b1}"
        );
        assert_eq!(keyed_step("r", 1, 1, true), "r ^ {1'b1}");
    }

    #[test]
    fn mem_groups_cover_the_row_with_distinct_nonzero_keys() {
        for (width, aw) in [(1, 1), (31, 5), (32, 5), (33, 5), (300, 5), (2000, 6)] {
            let groups = mem_groups(width, aw);
            let mask = (1u64 << aw) - 1;
            // Contiguous, in order, every bit once, at most MEM_GROUP_BITS each.
            let mut next = 0;
            for g in &groups {
                assert_eq!(g.lo, next, "width {width}");
                assert!(g.hi >= g.lo && g.hi - g.lo < MEM_GROUP_BITS);
                next = g.hi + 1;
                // The read address's reset is the counter's (2^aw - 2) under the key.
                assert_eq!(g.ra_reset ^ g.key, (mask - 1) & mask);
                assert!(g.key <= mask);
            }
            assert_eq!(next, width);
            // Keys never 0 (a copy equal to a counter) and distinct while
            // the address width allows.
            let keys: std::collections::BTreeSet<u64> = groups.iter().map(|g| g.key).collect();
            assert!(!keys.contains(&0) || groups.len() > mask as usize);
            assert_eq!(keys.len(), groups.len().min(mask as usize + 1));
        }
    }
}
