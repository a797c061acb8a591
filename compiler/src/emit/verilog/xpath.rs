//! Stack IR → Verilog: the XPath filtering RTL (ch. 2.5) from the templates
//! `rtl-templates/xpath_top.v` and `rtl-templates/xpath_cluster.v`, plus the
//! SAX parser (`sax.rs`) and the value comparators (`values.rs`).
//!
//! Every identifier comes from the naming pass or is derived here from a
//! name it chose; every node's logic carries a comment with the query
//! line(s) and step it implements.

use super::sax::{sax_module, SaxParams};
use super::values::vcmp_module;
use crate::ir::stacks::{Cluster, ColKind, HwNodeId, Read, StackDesign};
use crate::ir::xpath::{AttrId, Axis, CondId, CondKind, Test};
use crate::passes::naming::sanitize;
use askama::Template;
use std::collections::BTreeMap;

/// Options of the emitted RTL.
#[derive(Clone, Copy, Debug)]
pub struct XpathRtlConfig {
    /// Bytes of open element names the SAX parser keeps to check close tags.
    pub name_stack_bytes: u32,
}

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
    expr: String,
    /// False for a root read only through the global stack: nothing stores
    /// or reports its firing, so no logic is emitted.
    used: bool,
}

struct ColInput {
    bit: usize,
    name: String,
    expr: String,
}

struct FlagLogic {
    name: String,
    node: String,
}

struct QueryOut {
    idx: usize,
    expr: String,
    comment: String,
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
    chars: Vec<CharLine>,
    tag_trie: Vec<TrieBit>,
    tag_lines: Vec<Line>,
    attr_trie: Vec<TrieBit>,
    attr_lines: Vec<Line>,
    vcmps: Vec<VcmpInst>,
    conds: Vec<CondReg>,
    gs_bits: Vec<RowBit>,
    col_bits: Vec<RowBit>,
    nodes: Vec<NodeLogic>,
    col_inputs: Vec<ColInput>,
    flags: Vec<FlagLogic>,
    outs: Vec<QueryOut>,
    unused: Vec<String>,
    uses_depth1: bool,
    uses_depth2: bool,
    uses_depth_ge2: bool,
}

struct StageSig {
    name: &'static str,
    width: u32,
}

struct ClusterInst {
    module: String,
    inst: String,
    stage: usize,
    queries: usize,
}

struct ResultBit {
    pos: usize,
    cluster: usize,
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
    sr_width: u32,
    left_width: u32,
    stages: usize,
    stage_sigs: Vec<StageSig>,
    clusters: Vec<ClusterInst>,
    result_bits: Vec<ResultBit>,
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

fn trie_bits(trie: &Trie, prefix: &str) -> Vec<TrieBit> {
    trie.nodes
        .iter()
        .enumerate()
        .map(|(idx, (parent, b, pre))| TrieBit {
            idx,
            ch: char_name(prefix, *b),
            parent: *parent,
            prefix: comment_text(pre),
        })
        .collect()
}

/// Bytes as comment text: printable ASCII kept, the rest escaped.
fn comment_text(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s
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
        _ => "[?]".to_string(),
    }
}

fn node_comment(d: &StackDesign, cl: &Cluster, n: HwNodeId) -> String {
    let node = cl.node(n);
    let test = match node.test {
        Test::Any => "*".to_string(),
        Test::Tag(t) => comment_text(d.tags.name(t)),
    };
    let conds: String = node.conds.iter().map(|c| cond_text(d, *c)).collect();
    let mut origins: Vec<String> = node
        .origins
        .iter()
        .take(4)
        .map(|o| format!("q{} (line {}) step {}", o.query.0, o.line, o.step))
        .collect();
    if node.origins.len() > 4 {
        origins.push(format!("and {} more", node.origins.len() - 4));
    }
    format!(
        "{}{}{}: {}",
        if node.axis == Axis::Child { "/" } else { "//" },
        test,
        conds,
        origins.join(", ")
    )
}

fn query_comment(text: &str) -> String {
    comment_text(text.trim().as_bytes())
}

/// All distinct comparisons of the design, each one comparator module.
fn comparators(d: &StackDesign) -> Vec<(CondId, String)> {
    let mut out = Vec::new();
    for (i, c) in d.conds.iter().enumerate() {
        if let CondKind::AttrCmp(..) = c {
            out.push((CondId(i as u32), format!("qrtl_vcmp_{i}")));
        }
    }
    out
}

fn clog2(n: u64) -> u32 {
    64 - n.saturating_sub(1).leading_zeros()
}

fn cluster_template(d: &StackDesign, k: usize, cl: &Cluster) -> ClusterTemplate {
    let p = cl.name.clone();
    let members = cl.column_members();
    // Tag decoder over the tags this cluster's nodes test or read.
    let gs_tags = cl.gs_tags();
    let mut tags: Vec<_> = cl
        .nodes
        .iter()
        .filter_map(|n| match n.test {
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
    let mut conds: Vec<CondId> = cl
        .nodes
        .iter()
        .flat_map(|n| n.conds.iter().copied())
        .collect();
    conds.sort();
    conds.dedup();
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
            _ => unreachable!("verified: attribute conditions only"),
        };
        cond_regs.push(CondReg {
            name: cond_name(c),
            attr_line: attr_line(attr),
            value_ok,
            comment: cond_text(d, c),
        });
    }
    let mut chars: Vec<u8> = tag_trie
        .nodes
        .iter()
        .chain(&attr_trie.nodes)
        .map(|n| n.1)
        .collect();
    chars.sort();
    chars.dedup();
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
    let gs_bit_of = |t: crate::ir::xpath::TagId| {
        gs_bits[gs_tags.iter().position(|x| *x == t).expect("gs tag")]
            .name
            .clone()
    };
    let col_bits: Vec<RowBit> = cl
        .columns
        .iter()
        .enumerate()
        .map(|(j, c)| RowBit {
            bit: gs_tags.len() + j,
            name: format!("{}_tos", c.name),
            comment: format!(
                "{} column {}: {}",
                if c.kind == ColKind::Exact {
                    "exact"
                } else {
                    "carry"
                },
                c.name,
                members[j]
                    .iter()
                    .map(|n| cl.node(*n).name.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            src: String::new(),
        })
        .collect();
    let flagged: std::collections::HashSet<HwNodeId> = cl.flags.iter().map(|f| f.node).collect();
    // Columns some node reads (a carry column also reads itself); the others
    // are stored but unread (possible only with `last-column` off).
    let mut read_cols = vec![false; cl.columns.len()];
    for i in 0..cl.nodes.len() {
        if let Read::Column { col, .. } = cl.read_of(HwNodeId(i as u32), &members) {
            read_cols[col.index()] = true;
        }
    }
    for (j, c) in cl.columns.iter().enumerate() {
        read_cols[j] |= c.kind == ColKind::Carry;
    }
    let (mut d1, mut d2, mut dge2) = (false, false, false);
    let mut nodes = Vec::new();
    for (i, n) in cl.nodes.iter().enumerate() {
        let id = HwNodeId(i as u32);
        let used = n.exact.is_some() || n.carry.is_some() || flagged.contains(&id);
        let mut terms = Vec::new();
        match cl.read_of(id, &members) {
            Read::Doc(Axis::Child) => {
                d1 |= used;
                terms.push(format!("{p}_depth1"));
            }
            Read::Doc(Axis::Descendant) => {}
            Read::Gs { root_axis, tag } => {
                if root_axis == Axis::Child {
                    d2 |= used;
                    terms.push(format!("{p}_depth2"));
                } else {
                    dge2 |= used;
                    terms.push(format!("{p}_depth_ge2"));
                }
                if let Some(t) = tag {
                    terms.push(gs_bit_of(t));
                }
            }
            Read::Column { col, gs } => {
                terms.push(col_bits[col.index()].name.clone());
                if let Some(t) = gs {
                    terms.push(gs_bit_of(t));
                }
            }
        }
        if let Test::Tag(t) = n.test {
            terms.push(tag_line(t));
        }
        for c in &n.conds {
            terms.push(cond_name(*c));
        }
        if terms.is_empty() {
            terms.push("1'b1".to_string());
        }
        nodes.push(NodeLogic {
            name: n.name.clone(),
            comment: node_comment(d, cl, id),
            expr: terms.join(" & "),
            used,
        });
    }
    let col_inputs = cl
        .columns
        .iter()
        .enumerate()
        .map(|(j, c)| {
            let fires: Vec<String> = members[j]
                .iter()
                .map(|n| cl.node(*n).name.clone())
                .collect();
            let expr = match c.kind {
                ColKind::Exact => fires.join(" | "),
                ColKind::Carry => format!("{} | {}", fires.join(" | "), col_bits[j].name),
            };
            ColInput {
                bit: gs_tags.len() + j,
                name: c.name.clone(),
                expr,
            }
        })
        .collect();
    let flags: Vec<FlagLogic> = cl
        .flags
        .iter()
        .map(|f| FlagLogic {
            name: f.name.clone(),
            node: cl.node(f.node).name.clone(),
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
                "ev_doc_end",
            ]
            .iter()
            .map(|s| s.to_string()),
        )
        .collect();
    let row_width = gs_bits.len() + col_bits.len();
    // Rows below the top: depths 0..max_depth-1, rounded up to a power of two
    // so the address is exactly the low bits of the stack pointer.
    let addr_width = clog2(u64::from(d.max_depth)).max(1);
    ClusterTemplate {
        module: format!("qrtl_xpath_{p}"),
        prefix: p.clone(),
        mem_words: 1 << addr_width,
        addr_width,
        sp_width: clog2(u64::from(d.max_depth) + 1).max(1),
        row_width,
        queries: outs.len(),
        chars: chars
            .into_iter()
            .map(|b| CharLine {
                name: char_name(&p, b),
                byte: b,
            })
            .collect(),
        tag_trie: trie_bits(&tag_trie, &p),
        tag_lines,
        attr_trie: trie_bits(&attr_trie, &p),
        attr_lines,
        vcmps,
        conds: cond_regs,
        gs_bits,
        col_bits,
        nodes,
        col_inputs,
        flags,
        outs,
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
        if let CondKind::AttrCmp(_, cmp) = &d.conds[c.index()] {
            files.push(RtlFile {
                name: format!("{module}.v"),
                text: vcmp_module(&module, cmp, &cond_text(d, c)),
            });
        }
    }
    // Cluster k sees the event stream after k pipeline stages.
    let mut local_index = vec![0usize; d.queries.len()];
    let mut counts = vec![0usize; d.clusters.len()];
    for q in &d.queries {
        local_index[q.id.index()] = counts[q.cluster];
        counts[q.cluster] += 1;
    }
    let mut clusters = Vec::new();
    for (k, cl) in d.clusters.iter().enumerate() {
        let t = cluster_template(d, k, cl);
        clusters.push(ClusterInst {
            module: t.module.clone(),
            inst: format!("u_{}", cl.name),
            stage: k,
            queries: t.queries,
        });
        files.push(RtlFile {
            name: format!("{}.v", t.module),
            text: t.render().expect("cluster template renders") + "\n",
        });
    }
    let result_bits = d
        .queries
        .iter()
        .map(|q| ResultBit {
            pos: RESULT_WIDTH as usize + q.id.index(),
            cluster: q.cluster,
            idx: local_index[q.id.index()],
            comment: format!("q{} (line {})", q.id.0, q.line),
        })
        .collect();
    let bitmap_words = (d.queries.len() as u32).div_ceil(RESULT_WIDTH);
    let result_words = 1 + bitmap_words;
    let stages = d.clusters.len().max(1);
    let top = TopTemplate {
        module: "qrtl_xpath_top".to_string(),
        max_depth: d.max_depth,
        name_stack_bytes: config.name_stack_bytes,
        query_count: d.queries.len(),
        result_words,
        sr_width: result_words * RESULT_WIDTH,
        left_width: clog2(u64::from(result_words) + 1).max(1),
        stages,
        stage_sigs: vec![
            StageSig {
                name: "byte",
                width: 8,
            },
            StageSig {
                name: "name_byte",
                width: 1,
            },
            StageSig {
                name: "name_first",
                width: 1,
            },
            StageSig {
                name: "attr_name_byte",
                width: 1,
            },
            StageSig {
                name: "attr_name_first",
                width: 1,
            },
            StageSig {
                name: "val_start",
                width: 1,
            },
            StageSig {
                name: "val_unit",
                width: 1,
            },
            StageSig {
                name: "unit_is_cp",
                width: 1,
            },
            StageSig {
                name: "unit_byte",
                width: 8,
            },
            StageSig {
                name: "unit_cp",
                width: 21,
            },
            StageSig {
                name: "val_end",
                width: 1,
            },
            StageSig {
                name: "open",
                width: 1,
            },
            StageSig {
                name: "open_empty",
                width: 1,
            },
            StageSig {
                name: "close",
                width: 1,
            },
            StageSig {
                name: "doc_end",
                width: 1,
            },
            StageSig {
                name: "status",
                width: 2,
            },
            StageSig {
                name: "reason",
                width: 5,
            },
        ],
        clusters,
        result_bits,
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
        // SAX output register, one register per further cluster, the
        // result load.
        latency: 1 + (stages as u32 - 1) + 1,
    }
}
