//! A cluster's module: the context its parts are printed from
//! ([`ClusterCx`]: the design, the cluster, its plan and its names) and
//! the template context of `rtl-templates/xpath/xpath_cluster.v`, built
//! from the decoders (`trie.rs`), the conditions, the stack row, the push
//! side (`nodes.rs`), the mutable part (`mutable.rs`), the flags and
//! results, and the stack memory.

use super::comment::{comment_text, cond_text, query_comment};
use super::mutable::mutable_part;
use super::mutable::{CounterLogic, PopLogic, PosCond, TextBit};
use super::nodes::{push_logic, ColInput, NodeLogic};
use super::plan::{cut, ClusterPlan, MemGroup, StepForm};
use super::trie::{decoder, CharLine, Line, TrieBit};
use super::MEM_GROUP_BITS;
use crate::emit::ns::{clark_local, clark_uri, uri_class};
use crate::ir::stacks::{Cluster, ColKind, FlagSrc, StackDesign};
use crate::ir::xpath::{AttrId, CondId, CondKind, TagId};
use crate::passes::naming::sanitize;
use askama::Template;

/// What every part of a cluster's module is printed from.
pub(super) struct ClusterCx<'a> {
    pub d: &'a StackDesign,
    pub k: usize,
    pub cl: &'a Cluster,
    /// The cluster's name, the prefix of its signals.
    pub p: &'a str,
    pub plan: &'a ClusterPlan,
    /// Namespace-aware names: the design's namespace URIs in class order
    /// (`emit::ns`), `None` for raw names.
    pub ns: Option<&'a [Vec<u8>]>,
    /// With namespaced attribute tests in the design: the slots of the
    /// namespace unit (`max_attributes`).
    pub attr_slots: Option<u32>,
}

impl ClusterCx<'_> {
    /// The tag decoder's line for `t`.
    pub fn tag_line(&self, t: TagId) -> String {
        format!("{}_tag_{}_{}", self.p, t.0, sanitize(self.d.tags.name(t)))
    }

    /// The attribute decoder's line for `a`.
    pub fn attr_line(&self, a: AttrId) -> String {
        format!("{}_attr_{}_{}", self.p, a.0, sanitize(self.d.attrs.name(a)))
    }

    /// The line "the opening element is in namespace class `k`".
    pub fn ns_line(&self, k: u32) -> String {
        format!("{}_ns{k}", self.p)
    }

    /// The slots (of the tag's prefixed attributes) in namespace class `k`.
    pub fn slot_line(&self, k: u32) -> String {
        format!("{}_slot{k}", self.p)
    }

    /// The namespace class of `name` (Clark notation) among the design's
    /// URIs, for namespace-aware designs.
    fn class_of(&self, name: &[u8]) -> Option<u32> {
        let uris = self.ns?;
        Some(clark_uri(name).map_or(0, |u| uri_class(uris, u)))
    }

    /// An open-time condition's signal.
    pub fn cond_name(&self, c: CondId) -> String {
        format!("{}_cond{}", self.p, c.0)
    }

    /// The global-stack bit of `t` at the stack top.
    pub fn gs_name(&self, t: TagId) -> String {
        format!("{}_gs_{}_{}", self.p, t.0, sanitize(self.d.tags.name(t)))
    }

    /// Column `j` at the stack top.
    pub fn col_tos(&self, j: usize) -> String {
        format!("{}_tos", self.cl.columns[j].name)
    }

    /// The comparator module of a comparison (see [`comparators`]).
    pub fn comparator(&self, c: CondId) -> String {
        comparator_name(c)
    }
}

fn comparator_name(c: CondId) -> String {
    format!("qrtl_vcmp_{}", c.0)
}

/// All distinct comparisons of the design, each one comparator module.
pub(super) fn comparators(d: &StackDesign) -> Vec<(CondId, String)> {
    (0..d.conds.len())
        .map(|i| CondId(i as u32))
        .filter(|c| {
            matches!(
                d.conds[c.index()],
                CondKind::AttrCmp(..) | CondKind::TextCmp(_)
            )
        })
        .map(|c| (c, comparator_name(c)))
        .collect()
}

pub(super) struct VcmpInst {
    pub module: String,
    pub inst: String,
    pub out: String,
}

pub(super) struct CondReg {
    name: String,
    attr_line: String,
    value_ok: Option<String>,
    comment: String,
    /// An attribute in a namespace: the line of the slots whose namespace
    /// is the attribute's (its condition is kept per slot until the `>`).
    slot: Option<String>,
}

pub(super) struct NsLine {
    name: String,
    class: u32,
    comment: String,
}

pub(super) struct NsCond {
    name: String,
    line: String,
    comment: String,
}

pub(super) struct RowBit {
    pub bit: usize,
    pub name: String,
    pub comment: String,
    /// What is pushed into this bit (global-stack bits only: the tag line).
    pub src: String,
}

/// One register assignment of a clocked process: `lhs <= rhs;`.
pub(super) struct Assign {
    pub lhs: String,
    pub rhs: String,
}

pub(super) struct RangeAssign {
    pub range: String,
    pub expr: String,
}

struct FlagLogic {
    name: String,
    /// What sets the flag in this cycle.
    set: String,
}

struct QueryOut {
    idx: usize,
    expr: String,
    comment: String,
}

#[derive(Template)]
#[template(path = "xpath_cluster.v", escape = "none")]
pub(super) struct ClusterTemplate {
    pub module: String,
    prefix: String,
    mem_words: u32,
    addr_width: u32,
    sp_width: u32,
    row_width: usize,
    pub queries: usize,
    tag_chars: Vec<CharLine>,
    attr_chars: Vec<CharLine>,
    tag_trie: Vec<TrieBit>,
    tag_lines: Vec<Line>,
    /// Namespace-aware names: the decoders start again after a colon
    /// (`in_local_first`) and the lines test the element's class.
    ns: bool,
    /// The byte a name decoder starts at: the name's first, or with
    /// namespace-aware names also the byte after its colon.
    tag_first: &'static str,
    attr_first: &'static str,
    /// Width of `in_ns_cls`.
    ns_width: u32,
    /// The namespace lines the cluster reads: (name, class, URI comment).
    ns_lines: Vec<NsLine>,
    /// `p:*` conditions: (signal, namespace line, comment).
    ns_conds: Vec<NsCond>,
    /// Namespaced attribute tests: the slot ports exist (`attr_ns`), the
    /// slots (`attr_slots`) and the classes the cluster reads of them.
    attr_ns: bool,
    attr_slots: u32,
    slot_lines: Vec<NsLine>,
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
    mem_chunks: Vec<Vec<MemGroupLogic>>,
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

/// The template context of cluster `x`.
pub(super) fn cluster_template(x: &ClusterCx<'_>) -> ClusterTemplate {
    let (d, plan, p) = (x.d, x.plan, x.p);
    let scope = &plan.scope;
    // Namespace-aware names are decoded by their local parts.
    let local = |n: &'_ [u8]| -> Vec<u8> {
        match x.ns {
            Some(_) => clark_local(n).to_vec(),
            None => n.to_vec(),
        }
    };
    let tag_locals: Vec<Vec<u8>> = scope.tags.iter().map(|t| local(d.tags.name(*t))).collect();
    let tag_names: Vec<(String, &[u8])> = scope
        .tags
        .iter()
        .zip(&tag_locals)
        .map(|(t, l)| (x.tag_line(*t), l.as_slice()))
        .collect();
    let attr_locals: Vec<Vec<u8>> = scope
        .attrs
        .iter()
        .map(|a| local(d.attrs.name(*a)))
        .collect();
    let attr_names: Vec<(String, &[u8])> = scope
        .attrs
        .iter()
        .zip(&attr_locals)
        .map(|(a, l)| (x.attr_line(*a), l.as_slice()))
        .collect();
    // Character lines: the tag decoder's compare the early byte, the
    // attribute decoder's are registered (they see the stream one clock
    // late, like the rest of the cluster).
    let mut tags = decoder(p, &tag_names, "");
    let mut attrs = decoder(p, &attr_names, "_d");
    let mut classes: Vec<u32> = Vec::new();
    if x.ns.is_some() {
        // An element test also tests the element's namespace; an attribute
        // test (in no namespace: namespaced ones are refused before) the
        // attribute's.
        for (line, t) in tags.lines.iter_mut().zip(&scope.tags) {
            let k = x.class_of(d.tags.name(*t)).expect("ns-aware");
            line.ns = Some(x.ns_line(k));
            line.comment = comment_text(d.tags.name(*t));
            classes.push(k);
        }
        for (line, a) in attrs.lines.iter_mut().zip(&scope.attrs) {
            if clark_uri(d.attrs.name(*a)).is_none() {
                line.ns = Some("ev_attr_nons".to_string());
            }
            line.comment = comment_text(d.attrs.name(*a));
        }
    }
    let (vcmps, conds) = attr_conds(x);
    let ns_conds = ns_conds(x, &mut classes);
    let mut slot_classes: Vec<u32> = match x.ns {
        Some(uris) => scope
            .attrs
            .iter()
            .filter_map(|a| clark_uri(d.attrs.name(*a)).map(|u| uri_class(uris, u)))
            .collect(),
        None => Vec::new(),
    };
    slot_classes.sort();
    slot_classes.dedup();
    let slot_lines = slot_classes
        .iter()
        .map(|&k| NsLine {
            name: x.slot_line(k),
            class: k,
            comment: ns_comment(x, k),
        })
        .collect();
    classes.sort();
    classes.dedup();
    let ns_lines = classes
        .iter()
        .map(|&k| NsLine {
            name: x.ns_line(k),
            class: k,
            comment: ns_comment(x, k),
        })
        .collect();
    let (gs_bits, col_bits) = (gs_bits(x), col_bits(x));
    let m = mutable_part(x, &gs_bits, &col_bits);
    let push = push_logic(x);
    let outs = query_outs(x);
    let full_width = plan.row_width + m.width;
    ClusterTemplate {
        module: format!("qrtl_xpath_{p}"),
        prefix: p.to_string(),
        mem_words: 1 << plan.addr_width,
        addr_width: plan.addr_width,
        sp_width: super::mutable::clog2(u64::from(d.max_depth) + 1).max(1),
        row_width: plan.row_width,
        queries: plan.queries,
        unused: unused(x, tags.chars.is_empty()),
        tag_chars: tags.chars,
        attr_chars: attrs.chars,
        tag_trie: tags.trie,
        tag_lines: tags.lines,
        ns: x.ns.is_some(),
        tag_first: if x.ns.is_some() {
            "in_local_first"
        } else {
            "in_name_first"
        },
        attr_first: if x.ns.is_some() {
            "ev_local_first"
        } else {
            "ev_attr_name_first"
        },
        ns_width: crate::emit::ns::class_width(x.ns.map_or(0, <[Vec<u8>]>::len)),
        ns_lines,
        ns_conds,
        attr_ns: x.attr_slots.is_some(),
        attr_slots: x.attr_slots.unwrap_or(1),
        slot_lines,
        attr_trie: attrs.trie,
        attr_lines: attrs.lines,
        vcmps,
        text_vcmps: m.text_vcmps,
        conds,
        counters: m.counters,
        pos_conds: m.pos_conds,
        mut_width: m.width,
        full_width,
        mem_group_bits: MEM_GROUP_BITS,
        mem_groups_piece: plan.mem_groups_piece,
        inline_steps: plan.step_form == StepForm::WrittenOut,
        mem_chunks: mem_chunks(x),
        counted_assigns: m.counted_assigns,
        pops: m.pops,
        pmut_assigns: m.pmut_assigns,
        text_bits: m.text_bits,
        gs_bits,
        col_bits,
        nodes: push.nodes,
        ctx_regs: push.ctx_regs,
        col_inputs: push.col_inputs,
        assigns_piece: plan.assigns_piece,
        pipe_chunks: push.pipe_chunks,
        flags: flags(x),
        out_chunks: cut(outs, &plan.out_pieces),
        uses_depth1: push.uses_depth1,
        uses_depth2: push.uses_depth2,
        uses_depth_ge2: push.uses_depth_ge2,
    }
}

/// The open-time attribute conditions' registers and their comparators.
fn attr_conds(x: &ClusterCx<'_>) -> (Vec<VcmpInst>, Vec<CondReg>) {
    let mut vcmps = Vec::new();
    let mut regs = Vec::new();
    for &c in &x.plan.scope.attr_conds {
        let (attr, value_ok) = match &x.d.conds[c.index()] {
            CondKind::InNamespace(_) => continue,
            CondKind::AttrExists(a) => (*a, None),
            CondKind::AttrCmp(a, _) => {
                let inst = format!("{}_v{}", x.p, c.0);
                let out = format!("{inst}_ok");
                vcmps.push(VcmpInst {
                    module: x.comparator(c),
                    inst,
                    out: out.clone(),
                });
                (*a, Some(out))
            }
            _ => unreachable!("partitioned: attribute conditions only"),
        };
        let slot = x.ns.and_then(|uris| {
            clark_uri(x.d.attrs.name(attr)).map(|u| x.slot_line(uri_class(uris, u)))
        });
        regs.push(CondReg {
            name: x.cond_name(c),
            attr_line: x.attr_line(attr),
            value_ok,
            comment: cond_text(x.d, c),
            slot,
        });
    }
    (vcmps, regs)
}

/// The `p:*` conditions: each a namespace line (its class added to
/// `classes`).
fn ns_conds(x: &ClusterCx<'_>, classes: &mut Vec<u32>) -> Vec<NsCond> {
    let mut out = Vec::new();
    for &c in &x.plan.scope.attr_conds {
        if let CondKind::InNamespace(u) = &x.d.conds[c.index()] {
            let k = uri_class(x.ns.expect("p:* needs namespace-aware names"), u);
            classes.push(k);
            out.push(NsCond {
                name: x.cond_name(c),
                line: x.ns_line(k),
                comment: cond_text(x.d, c),
            });
        }
    }
    out
}

/// The comment of namespace class `k`.
fn ns_comment(x: &ClusterCx<'_>, k: u32) -> String {
    let uris = x.ns.expect("ns-aware");
    match k {
        0 => "no namespace".to_string(),
        k => format!("namespace {}", comment_text(&uris[k as usize - 1])),
    }
}

/// The stack row's global-stack bits (the row's first bits).
fn gs_bits(x: &ClusterCx<'_>) -> Vec<RowBit> {
    x.plan
        .scope
        .gs_tags
        .iter()
        .enumerate()
        .map(|(i, t)| RowBit {
            bit: i,
            name: x.gs_name(*t),
            comment: format!(
                "global stack: parent is <{}>",
                comment_text(x.d.tags.name(*t))
            ),
            src: x.tag_line(*t),
        })
        .collect()
}

/// The stack row's columns (after the global-stack bits).
fn col_bits(x: &ClusterCx<'_>) -> Vec<RowBit> {
    let (cl, members) = (x.cl, &x.plan.scope.members);
    cl.columns
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
                bit: x.plan.scope.gs_tags.len() + j,
                name: x.col_tos(j),
                comment,
                src: String::new(),
            }
        })
        .collect()
}

/// The flags: set by a node's firing or a pop node's check.
fn flags(x: &ClusterCx<'_>) -> Vec<FlagLogic> {
    x.cl.flags
        .iter()
        .map(|f| FlagLogic {
            name: f.name.clone(),
            set: match f.src {
                FlagSrc::Fire(n) => format!("(ev_open & {})", x.cl.node(n).name),
                FlagSrc::Pop(p) => format!("{}_full", x.cl.pop(p).name),
            },
        })
        .collect()
}

/// The cluster's queries' result bits: the AND of their flags.
fn query_outs(x: &ClusterCx<'_>) -> Vec<QueryOut> {
    x.d.queries
        .iter()
        .filter(|q| q.cluster == x.k)
        .enumerate()
        .map(|(idx, q)| QueryOut {
            idx,
            expr: q
                .flags
                .iter()
                .map(|f| format!("{}_next", x.cl.flags[f.index()].name))
                .collect::<Vec<_>>()
                .join(" & "),
            comment: format!("q{} (line {}): {}", q.id.0, q.line, query_comment(&q.text)),
        })
        .collect()
}

/// Signals the module has but does not read: unread columns, the early
/// byte without a tag decoder (its character lines are its only reader),
/// and the events.
fn unused(x: &ClusterCx<'_>, no_tag_chars: bool) -> Vec<String> {
    x.plan
        .scope
        .read_cols
        .iter()
        .enumerate()
        .filter(|(_, r)| !**r)
        .map(|(j, _)| x.col_tos(j))
        .chain(no_tag_chars.then(|| "in_byte_next".to_string()))
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
        .chain(
            ["ev_local_first", "ev_attr_nons", "in_ns_cls"]
                .iter()
                .filter(|_| x.ns.is_some())
                .chain(
                    ["ev_attr_slot", "in_slot_cls"]
                        .iter()
                        .filter(|_| x.attr_slots.is_some()),
                )
                .map(|s| s.to_string()),
        )
        .collect()
}

/// A planned group of the stack memory and its counters' steps.
struct MemGroupLogic {
    idx: usize,
    lo: usize,
    hi: usize,
    key: u64,
    ra_reset: u64,
    steps: GroupSteps,
}

/// A group's address counters stepped up and down, as expressions.
struct GroupSteps {
    wa_up: String,
    wa_down: String,
    ra_up: String,
    ra_down: String,
}

/// The stack memory's groups as planned, with their counters' steps.
fn mem_chunks(x: &ClusterCx<'_>) -> Vec<Vec<MemGroupLogic>> {
    let plan = x.plan;
    plan.mem_chunks
        .iter()
        .map(|chunk| {
            chunk
                .iter()
                .map(|g| MemGroupLogic {
                    idx: g.idx,
                    lo: g.lo,
                    hi: g.hi,
                    key: g.key,
                    ra_reset: g.ra_reset,
                    steps: group_steps(x.p, g, plan.addr_width, plan.step_form),
                })
                .collect()
        })
        .collect()
}

/// The steps of group `g`'s counters in cluster `p`.
fn group_steps(p: &str, g: &MemGroup, addr_width: u32, form: StepForm) -> GroupSteps {
    let step = |reg: &str, up: bool| -> String {
        match form {
            StepForm::Calls => {
                let dir = if up { "up" } else { "down" };
                format!("{p}_{dir}({reg}, {addr_width}'d{})", g.key)
            }
            StepForm::WrittenOut => keyed_step(reg, g.key, addr_width, up),
        }
    };
    let (wa, ra) = (format!("{p}_wa{}", g.idx), format!("{p}_ra{}", g.idx));
    GroupSteps {
        wa_up: step(&wa, true),
        wa_down: step(&wa, false),
        ra_up: step(&ra, true),
        ra_down: step(&ra, false),
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

#[cfg(test)]
mod tests {
    use super::keyed_step;

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
}
