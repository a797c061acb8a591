//! Stack IR → Verilog: the XPath filtering RTL (ch. 2.5) from the templates
//! `rtl-templates/xpath/xpath_top.v` and `rtl-templates/xpath/xpath_cluster.v`, plus the
//! SAX parser (`../sax.rs`) and the value comparators (`../values.rs`).
//!
//! Where things are:
//! - `plan.rs`: the planning step. Every timing-shape decision
//!   ([`RtlShape`]: processes, memory groups, OR forms, pre-register
//!   groups) and which registers exist (the `_ctx` registers shared by
//!   nodes computing the same stack-top part, keyed by IR entities) is
//!   made there, per cluster (`plan_cluster`) and for the top
//!   (`plan_top`); the printers only read the plans;
//! - `scope.rs`: the IR entities a cluster uses;
//! - `cluster.rs`: a cluster's module, its printing context and names;
//! - `trie.rs`: the tag and attribute name decoders;
//! - `nodes.rs`: the push side (node matches, columns, pipeline registers);
//! - `mutable.rs`: counters, `text()` results and twig pop nodes;
//! - `top.rs`: the top module and its result lane;
//! - `comment.rs`: comment text (conditions, steps, queries).
//!
//! Every identifier comes from the naming pass or is derived here from a
//! name it chose; every node's logic carries a comment with the query
//! line(s) and step it implements.

mod cluster;
mod comment;
mod mutable;
mod nodes;
mod plan;
mod scope;
mod top;
pub(crate) use top::STAGE_SIGS;
mod trie;

use super::sax::{sax_module, SaxParams};
use super::values::vcmp_module;
use super::wide::{
    wide_events_module, wide_in_module, wide_latency, wide_sax_module, wide_top_module, WideParams,
    WideSaxParams, WideTop,
};
use crate::ir::stacks::StackDesign;
use crate::ir::xpath::CondKind;
use crate::xml::lanes::Needs;
use askama::Template;
use cluster::{cluster_template, comparators, ClusterCx};
use plan::{plan_cluster, plan_top};

/// Options of the emitted RTL.
#[derive(Clone, Copy, Debug)]
pub struct XpathRtlConfig {
    /// Bytes of open element names the SAX parser keeps to check close tags.
    pub name_stack_bytes: u32,
    /// The parser's duplicate-attribute check: attributes per element and
    /// bytes per attribute name (`XmlConfig`).
    pub max_attributes: u32,
    pub attr_name_bytes: u32,
    /// How the parser's event stream reaches the clusters.
    pub input: EventInput,
    /// How large a process or an OR of the emitted text may grow before
    /// it is written in smaller pieces (for synthesis front ends).
    pub shape: RtlShape,
    /// Document bytes per clock on `s_axis` (1, 2, 4, 8): above 1 the
    /// multi-byte front end (`emit::wide`) feeds the byte-serial engine.
    pub bytes_per_clock: u32,
    /// Namespace-aware names (the design's tags in Clark notation): the
    /// namespace unit `qrtl_ns` (`emit::ns`) with these capacities sits
    /// between the parser and the clusters. One byte per clock only.
    pub ns: Option<crate::xml::ns::NsLimits>,
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
/// The planning step (`plan.rs`) applies them before anything is printed.
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

/// Row bits per stack-memory group: each group is a memory of its own
/// with read and write address counters of its own, each stepped from its
/// own value, so no address flip-flop drives the distributed RAM of a whole
/// row (timing: at 2K queries one read address spread over a cluster's row
/// was the critical path, a 4.7 ns route on ECP5; one adder shared by the
/// groups' copies, ~4 ns of routing).
pub const MEM_GROUP_BITS: usize = 32;

/// Emit the whole design.
pub fn emit_xpath(d: &StackDesign, config: &XpathRtlConfig) -> XpathRtl {
    let lanes = config.bytes_per_clock;
    let mut files = Vec::new();
    if lanes == 1 {
        files.push(RtlFile {
            name: "qrtl_sax.v".to_string(),
            text: sax_module(&SaxParams {
                max_depth: d.max_depth,
                name_stack_bytes: config.name_stack_bytes,
                max_attributes: config.max_attributes,
                attr_name_bytes: config.attr_name_bytes,
                namespaces: config.ns.is_some(),
            }),
        });
    }
    files.extend(comparator_files(d));
    let ns_uris = config.ns.map(|_| super::ns::design_uris(d));
    if let Some(limits) = config.ns {
        assert_eq!(lanes, 1, "the namespace unit takes one byte per clock");
        let p = super::ns::NsParams {
            limits,
            max_attributes: config.max_attributes,
            attr_name_bytes: config.attr_name_bytes,
            max_depth: d.max_depth,
        };
        files.extend(
            super::ns::ns_files(d, &p)
                .into_iter()
                .map(|(name, text)| RtlFile { name, text }),
        );
    }
    let mut insts = Vec::with_capacity(d.clusters.len());
    // Clusters are about the same size: render each into a buffer sized
    // after the previous one (no regrowing of ~0.5 MB texts).
    let mut last_len = 0usize;
    for (k, cl) in d.clusters.iter().enumerate() {
        let plan = plan_cluster(d, k, cl, &config.shape);
        let t = cluster_template(&ClusterCx {
            d,
            k,
            cl,
            p: &cl.name,
            plan: &plan,
            ns: ns_uris.as_deref(),
            attr_slots: (config.ns.is_some() && super::ns::has_attr_namespaces(d))
                .then_some(config.max_attributes),
        });
        insts.push(top::cluster_inst(
            k,
            &cl.name,
            &t.module,
            t.queries,
            config.input,
        ));
        let mut text = String::with_capacity(last_len + last_len / 4);
        t.render_into(&mut text).expect("cluster template renders");
        text.push('\n');
        last_len = text.len();
        files.push(RtlFile {
            name: format!("{}.v", t.module),
            text,
        });
    }
    let result_words = 1 + (d.queries.len() as u32).div_ceil(RESULT_WIDTH);
    let top_plan = plan_top(d, config.input, &config.shape);
    // The parser's pipeline (the byte-serial one, or at B > 1 the front
    // end, back end and event queue: `wide_latency`), cluster 0's own
    // pipeline (to its match register), then the result lane: one register
    // per cluster plus the head's and the tail's.
    let mut latency = CLUSTER_LATENCY + d.clusters.len() as u32 + RESULT_LATENCY;
    if lanes == 1 {
        files.push(RtlFile {
            name: "qrtl_xpath_top.v".to_string(),
            text: top::top_text("qrtl_xpath_top", d, config, &top_plan, insts, result_words),
        });
        latency += super::sax::SAX_LATENCY;
        if config.ns.is_some() {
            latency += super::ns::NS_LATENCY;
        }
    } else {
        // More than one byte per clock: the multi-byte parser in front of
        // the clusters and results (the byte-serial top without its
        // parser), under the top's name.
        let core = "qrtl_xpath_core";
        files.push(RtlFile {
            name: format!("{core}.v"),
            text: top::top_text(core, d, config, &top_plan, insts, result_words),
        });
        let rules = wide_item_rules(d, lanes);
        let sax = WideSaxParams {
            wide: WideParams {
                lanes,
                needs: rules.needs,
                attr_names: rules.attr_names,
            },
            max_depth: d.max_depth,
            name_stack_bytes: config.name_stack_bytes,
            max_attributes: config.max_attributes,
            attr_name_bytes: config.attr_name_bytes,
        };
        files.push(RtlFile {
            name: "qrtl_wide_in.v".to_string(),
            text: wide_in_module(&sax.wide),
        });
        files.push(RtlFile {
            name: "qrtl_wide_sax.v".to_string(),
            text: wide_sax_module(&sax),
        });
        files.push(RtlFile {
            name: "qrtl_wide_events.v".to_string(),
            text: wide_events_module(lanes),
        });
        files.push(RtlFile {
            name: "qrtl_xpath_top.v".to_string(),
            text: wide_top_module(&WideTop {
                sax: &sax,
                core,
                queries: d.queries.len(),
                result_words,
            }),
        });
        latency += wide_latency(lanes);
    }
    XpathRtl {
        top: "qrtl_xpath_top".to_string(),
        files,
        queries: query_bits(d),
        result_words,
        latency,
    }
}

/// What the front end must pass on besides names and structure: values
/// if a condition compares one, character data if one tests `text()`.
pub fn wide_needs(d: &StackDesign) -> Needs {
    let mut needs = Needs::default();
    for c in &d.conds {
        match c {
            CondKind::AttrCmp(..) => needs.values = true,
            CondKind::TextExists | CondKind::TextCmp(_) => needs.text = true,
            _ => {}
        }
    }
    needs
}

/// How the multi-byte parser cuts beats into items for design `d` at
/// `lanes` bytes per clock (the rules its RTL is emitted with).
pub fn wide_item_rules(d: &StackDesign, lanes: u32) -> crate::xml::items::ItemRules {
    crate::xml::items::ItemRules {
        bytes_per_clock: lanes as usize,
        needs: wide_needs(d),
        attr_names: wide_attr_names(d),
    }
}

/// Whether the clusters read attribute names (the design has attribute
/// conditions).
pub fn wide_attr_names(d: &StackDesign) -> bool {
    d.conds
        .iter()
        .any(|c| matches!(c, CondKind::AttrExists(_) | CondKind::AttrCmp(..)))
}

/// A module per distinct comparison of the design.
fn comparator_files(d: &StackDesign) -> Vec<RtlFile> {
    comparators(d)
        .into_iter()
        .filter_map(|(c, module)| match &d.conds[c.index()] {
            CondKind::AttrCmp(_, cmp) | CondKind::TextCmp(cmp) => Some(RtlFile {
                name: format!("{module}.v"),
                text: vcmp_module(&module, cmp, &comment::cond_text(d, c)),
            }),
            _ => None,
        })
        .collect()
}

/// Where each query's match bit is on the result stream.
fn query_bits(d: &StackDesign) -> Vec<QueryBit> {
    d.queries
        .iter()
        .map(|q| QueryBit {
            id: q.id.0,
            line: q.line,
            text: q.text.clone(),
            cluster: q.cluster,
            word: 1 + q.id.0 / RESULT_WIDTH,
            bit: q.id.0 % RESULT_WIDTH,
        })
        .collect()
}

/// Clocks of the result lane (`xpath_top.v`) besides its one register per
/// cluster: from cluster 0's match bits (`done_0`) the word count's load,
/// the head's three registers, the FIFO, the output register.
const RESULT_LATENCY: u32 = 6;
