//! The top module (`rtl-templates/xpath/xpath_top.v`): the SAX parser's
//! event stream staged to the clusters, and the result lane that gathers
//! the clusters' match bits into result words for the output FIFO.

use super::mutable::clog2;
use super::plan::TopPlan;
use super::{EventInput, XpathRtlConfig, RESULT_WIDTH};
use crate::ir::stacks::StackDesign;
use askama::Template;

struct StageSig {
    name: &'static str,
    width: u32,
    /// Registered from stage to stage (the clusters' inputs); the
    /// document's status is read at stage 0 only (the result lane's head).
    piped: bool,
}

/// The parser's outputs the stages carry: name, width, piped.
pub(crate) const STAGE_SIGS: [(&str, u32, bool); 19] = [
    ("byte", 8, true),
    ("name_byte", 1, true),
    ("name_first", 1, true),
    ("attr_name_byte", 1, true),
    ("attr_name_first", 1, true),
    ("val_start", 1, true),
    ("val_unit", 1, true),
    ("unit_is_cp", 1, true),
    ("unit_byte", 8, true),
    ("unit_cp", 21, true),
    ("val_end", 1, true),
    ("open", 1, true),
    ("open_empty", 1, true),
    ("close", 1, true),
    ("text_unit", 1, true),
    ("text_end", 1, true),
    ("doc_end", 1, true),
    ("status", 2, false),
    ("reason", 5, false),
];

pub(super) struct ClusterInst {
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
    /// Written as a reduction, not a chain (`TopPlan::reduce`).
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
    /// The clusters take the multi-byte parser's events (`ev_*` ports)
    /// instead of bytes through a `qrtl_sax` of their own.
    events: bool,
    max_depth: u32,
    name_stack_bytes: u32,
    max_attributes: u32,
    attr_name_bytes: u32,
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
    /// Namespace-aware names: the parser's events go through `qrtl_ns`
    /// (its outputs are stage 0), which adds `local_first`, `ns_cls` and
    /// `attr_nons` to the stages.
    ns: bool,
    /// ... and `attr_slot`, `slot_cls` (namespaced attribute tests).
    attr_ns: bool,
}

/// Cluster `k`'s instance (module `module`, `queries` result bits) in
/// the top. Pipelined: it sees the event stream after k pipeline stages;
/// broadcast: it sees the parser's outputs.
pub(super) fn cluster_inst(
    k: usize,
    name: &str,
    module: &str,
    queries: usize,
    input: EventInput,
) -> ClusterInst {
    ClusterInst {
        module: module.to_string(),
        inst: format!("u_{name}"),
        index: k,
        stage: match input {
            EventInput::Pipelined => k,
            EventInput::Broadcast => 0,
        },
        queries,
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
    }
}

/// Each query's bit: word 1 + id / 32, position id % 32, added to the
/// lane by its cluster (`local`: its bit in the cluster's `q_match`).
fn contributions(d: &StackDesign, plan: &TopPlan, clusters: &mut [ClusterInst]) {
    let w = RESULT_WIDTH as usize;
    let mut local = vec![0usize; d.clusters.len()];
    for (k, c) in clusters.iter_mut().enumerate() {
        c.contrib = (0..w)
            .map(|bit| ContribBit {
                bit,
                terms: Vec::new(),
                reduce: plan.reduce[k][bit],
            })
            .collect();
    }
    for q in &d.queries {
        let pos = w + q.id.index();
        let c = &mut clusters[q.cluster];
        c.contrib[pos % w].terms.push(ContribTerm {
            word: pos / w,
            idx: local[q.cluster],
            comment: format!("q{} (line {})", q.id.0, q.line),
        });
        local[q.cluster] += 1;
        c.words.push(pos / w);
    }
    for c in clusters.iter_mut() {
        c.words.sort_unstable();
        c.words.dedup();
    }
}

/// What the namespace unit adds to the stages: a local name's first byte,
/// the element's namespace class, whether the attribute is in no
/// namespace; with namespaced attribute tests, the attribute's slot and
/// the slots' classes.
fn ns_sigs(d: &StackDesign, config: &XpathRtlConfig) -> Vec<(&'static str, u32, bool)> {
    if config.ns.is_none() {
        return Vec::new();
    }
    let w = crate::emit::ns::class_width(crate::emit::ns::design_uris(d).len());
    let mut sigs = vec![
        ("local_first", 1, true),
        ("ns_cls", w, true),
        ("attr_nons", 1, true),
    ];
    if crate::emit::ns::has_attr_namespaces(d) {
        sigs.push(("attr_slot", config.max_attributes, true));
        sigs.push(("slot_cls", config.max_attributes * w, true));
    }
    sigs
}

/// The text of the byte-serial top `module`, for `result_words` result
/// words.
pub(super) fn top_text(
    module: &str,
    d: &StackDesign,
    config: &XpathRtlConfig,
    plan: &TopPlan,
    mut clusters: Vec<ClusterInst>,
    result_words: u32,
) -> String {
    contributions(d, plan, &mut clusters);
    let top = TopTemplate {
        module: module.to_string(),
        events: config.bytes_per_clock > 1,
        max_depth: d.max_depth,
        name_stack_bytes: config.name_stack_bytes,
        max_attributes: config.max_attributes,
        attr_name_bytes: config.attr_name_bytes,
        query_count: d.queries.len(),
        result_words,
        left_width: clog2(u64::from(result_words) + 1).max(1),
        idx_width: clog2(u64::from(result_words)).max(1),
        fifo_depth: plan.fifo_depth,
        fifo_aw: plan.fifo_depth.trailing_zeros(),
        fifo_distributed: plan.fifo_distributed,
        stages: plan.stages,
        stage_sigs: STAGE_SIGS
            .iter()
            .copied()
            .chain(ns_sigs(d, config))
            .map(|(name, width, piped)| StageSig { name, width, piped })
            .collect(),
        clusters,
        ns: config.ns.is_some(),
        attr_ns: config.ns.is_some() && crate::emit::ns::has_attr_namespaces(d),
    };
    top.render().expect("top template renders") + "\n"
}
