//! The multi-byte input (`--bytes-per-clock` B > 1): the front end
//! `qrtl_wide_in` (`rtl-templates/xpath/wide_in.v`) and the top that puts
//! it in front of the byte-serial engine (`rtl-templates/xpath/wide_top.v`).
//!
//! The front end runs the lexer of [`crate::xml::lanes`] on B lanes per
//! clock and passes on the bytes the byte-serial parser must see (the drop
//! rule of [`crate::xml::lanes::Droppable`]), one per clock. Everything the
//! RTL computes about the lexer comes from the table [`lanes::TABLE`]: the
//! per-lane transition bits, the products of the B per-lane transition
//! matrices (a pipelined tree, from bytes alone), the one AND-OR level that
//! takes the state from one beat to the next, and the lane-by-lane states
//! that the drop rule reads. This module only decides names and shapes;
//! the printing is the template's.

use std::collections::BTreeMap;

use askama::Template;

use crate::xml::lanes::{self, Class, Lex, Needs, Pred};

/// The multi-byte front end's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WideParams {
    /// Document bytes per clock: 2, 4 or 8.
    pub lanes: u32,
    /// What the design compares (values, character data): the units the
    /// items count, and the events the back end passes on.
    pub needs: Needs,
    /// The design reads attribute names (it has attribute conditions).
    pub attr_names: bool,
}

/// Entries of the front end's FIFO (beats holding kept bytes): enough for
/// the beats in flight and a backlog of about 50 beats at B = 8.
pub const WIDE_FIFO_DEPTH: u32 = 64;

/// The bytes per clock the front end supports (1: no front end).
pub const BYTES_PER_CLOCK: [u32; 4] = [1, 2, 4, 8];

/// Clock cycles from accepting a document's last beat (one item) to its
/// end reaching the clusters: the front end's stages (input, classes,
/// transitions, the product tree, the lane states, ops, the splitter's two
/// stages), its FIFO and head, the item register; the back end's four
/// stages (the registers, the lanes' checks, the name and attribute
/// compares, the first failure and the output); the event queue's FIFO,
/// head and its two output registers.
pub fn wide_latency(lanes: u32) -> u32 {
    let levels = lanes.trailing_zeros();
    let chain = lanes / 2;
    3 + levels + chain + 3 + 3 + 4 + 4
}

/// A transition matrix of the lexer: its nonzero entries (from, to) and
/// the Verilog expression of each.
struct Matrix {
    entries: Vec<(Lex, Lex)>,
}

impl Matrix {
    fn new(entries: Vec<(Lex, Lex)>) -> Matrix {
        Matrix { entries }
    }

    /// The entries of `a · b` (`a`'s bytes first), each with the pairs of
    /// entries of `a` and `b` whose AND-OR gives it.
    fn product(a: &Matrix, b: &Matrix) -> (Matrix, Vec<Vec<(usize, usize)>>) {
        let mut terms: BTreeMap<(Lex, Lex), Vec<(usize, usize)>> = BTreeMap::new();
        for (i, &(u, v)) in a.entries.iter().enumerate() {
            for (j, &(v2, s)) in b.entries.iter().enumerate() {
                if v == v2 {
                    terms.entry((u, s)).or_default().push((i, j));
                }
            }
        }
        let (entries, terms): (Vec<_>, Vec<_>) = terms.into_iter().unzip();
        (Matrix::new(entries), terms)
    }
}

/// A class set as a Verilog expression on a class vector `c`.
fn pred_expr(pred: Pred) -> String {
    let terms: Vec<String> = pred
        .iter()
        .map(|cl| format!("c[C_{}]", cl.rtl_name().to_uppercase()))
        .collect();
    if terms.len() == 1 {
        terms[0].clone()
    } else {
        format!("({})", terms.join(" | "))
    }
}

/// The one-step matrix: entry (u, s) is set by the bytes that take `u` to
/// `s` (first matching edge wins, else `otherwise`), as an expression on
/// the lane's class vector `c`.
fn step_matrix() -> (Matrix, Vec<String>) {
    let mut entries = Vec::new();
    let mut exprs = Vec::new();
    for row in &lanes::TABLE {
        let mut by_target: BTreeMap<Lex, Vec<String>> = BTreeMap::new();
        let mut earlier: Vec<String> = Vec::new();
        for &(pred, to) in row.edges {
            let mut factors: Vec<String> = earlier.iter().map(|e| format!("!{e}")).collect();
            factors.push(pred_expr(pred));
            by_target.entry(to).or_default().push(factors.join(" & "));
            earlier.push(pred_expr(pred));
        }
        let otherwise = if earlier.is_empty() {
            "1'b1".to_string()
        } else {
            earlier
                .iter()
                .map(|e| format!("!{e}"))
                .collect::<Vec<_>>()
                .join(" & ")
        };
        by_target.entry(row.otherwise).or_default().push(otherwise);
        for (to, terms) in by_target {
            entries.push((row.state, to));
            exprs.push(if terms.len() == 1 {
                terms[0].clone()
            } else {
                terms
                    .iter()
                    .map(|t| format!("({t})"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            });
        }
    }
    (Matrix::new(entries), exprs)
}

struct StateLine {
    name: String,
    index: usize,
    comment: String,
}

struct ClassLine {
    name: String,
    index: usize,
    /// Verilog expression on the byte `b`.
    expr: &'static str,
}

struct Bit {
    index: usize,
    expr: String,
    comment: String,
}

/// One matrix of the product tree: register `name`, its entries.
struct TreeMatrix {
    name: String,
    width: usize,
    bits: Vec<Bit>,
}

struct TreeLevel {
    stage: String,
    prev: String,
    matrices: Vec<TreeMatrix>,
}

/// A lane-state stage: the lanes whose states it registers.
struct ChainStage {
    stage: String,
    prev: String,
    /// (lane, the expression of the state before it).
    lanes: Vec<(usize, String)>,
    /// Lanes whose states were computed earlier and are carried.
    carried: Vec<usize>,
}

/// A stage of the beat: its registers, the stage before it, whether it
/// carries the lanes' class vectors and whether it just copies the beat
/// (every stage but `c`, which computes the classes, and `d`, the drop
/// stage).
struct StageLine {
    name: String,
    prev: String,
    cls: bool,
    copy: bool,
}

/// Look-back and fault flags per lane that `qrtl_wide_in` hands the back
/// end (its `F_*`; the port `i_flags` is lanes x this wide).
pub const LANE_FLAGS: u32 = 12;

/// Controls of the back end's stack registers per lane, decoded by
/// `qrtl_wide_in` (its `CT_*`; the port `i_ctl` is lanes x this wide).
pub const LANE_CTLS: u32 = 10;

#[derive(Template)]
#[template(path = "wide_in.v", escape = "none")]
struct WideInTemplate {
    lanes: u32,
    lane_flags: u32,
    lane_ctls: u32,
    /// Class bits of a beat (lanes x classes).
    cls_bits: usize,
    needs_values: bool,
    needs_text: bool,
    states: Vec<StateLine>,
    classes: Vec<ClassLine>,
    trans: Vec<Bit>,
    step: Vec<Bit>,
    levels: Vec<TreeLevel>,
    /// Per state: the recurrence's OR terms on `lx` and the beat matrix.
    recur: Vec<Bit>,
    chain: Vec<ChainStage>,
    /// Stages a beat passes, in order (after `a`).
    stages: Vec<StageLine>,
    /// Matrix bits no product reads (see `step_matrix`): the lint sink.
    unread: Vec<String>,
    /// The stage holding the beat's matrix.
    beat_stage: String,
    last_stage: String,
    fifo_depth: u32,
    fifo_aw: u32,
    /// FIFO entries kept free for the beats in flight.
    reserve: u32,
}

fn class_line(cl: Class, index: usize) -> ClassLine {
    let expr = match cl {
        Class::Ws => "b == 8'h20 || b == 8'h09 || b == 8'h0A || b == 8'h0D",
        Class::NameStart => "ns",
        Class::NameChar => "ns || (b >= \"0\" && b <= \"9\") || b == \"-\" || b == \".\"",
        Class::Lt => "b == \"<\"",
        Class::Gt => "b == \">\"",
        Class::Amp => "b == \"&\"",
        Class::Slash => "b == \"/\"",
        Class::Qmark => "b == \"?\"",
        Class::Excl => "b == \"!\"",
        Class::Eq => "b == \"=\"",
        Class::Dquote => "b == 8'h22",
        Class::Squote => "b == 8'h27",
        Class::Dash => "b == \"-\"",
        Class::Lsqb => "b == \"[\"",
        Class::Rsqb => "b == \"]\"",
        Class::Semi => "b == \";\"",
        Class::Bom0 => "b == 8'hEF",
    };
    ClassLine {
        name: format!("C_{}", cl.rtl_name().to_uppercase()),
        index,
        expr,
    }
}

/// The Verilog text of module `qrtl_wide_in` for `p`.
///
/// # Panics
///
/// If `p.lanes` is not 2, 4 or 8.
pub fn wide_in_module(p: &WideParams) -> String {
    assert!(
        matches!(p.lanes, 2 | 4 | 8),
        "qrtl_wide_in takes 2, 4 or 8 bytes per clock, not {}",
        p.lanes
    );
    let b = p.lanes as usize;
    let (t, t_exprs) = step_matrix();
    let states = state_lines();
    let classes = class_lines();
    let trans: Vec<Bit> = t
        .entries
        .iter()
        .zip(&t_exprs)
        .enumerate()
        .map(|(i, (&(u, s), e))| Bit {
            index: i,
            expr: e.clone(),
            comment: format!("{u:?} -> {s:?}"),
        })
        .collect();
    // One step: next[s] = OR over u of st[u] & t[(u, s)].
    let mut step_terms: BTreeMap<Lex, Vec<String>> = BTreeMap::new();
    for (i, &(u, s)) in t.entries.iter().enumerate() {
        step_terms
            .entry(s)
            .or_default()
            .push(format!("(st[{}] & t[{i}])", u.rtl_name()));
    }
    let step = Lex::all()
        .map(|s| Bit {
            index: s.index(),
            expr: step_terms
                .get(&s)
                .map_or("1'b0".to_string(), |v| v.join(" | ")),
            comment: s.rtl_name(),
        })
        .collect();

    // The product tree: level 0 is the lanes' own matrices (t_tr<j>).
    let mut stages: Vec<(String, bool)> = vec![("c".into(), true), ("t".into(), true)];
    let mut levels = Vec::new();
    let mut prev: Vec<(String, Matrix)> = (0..b)
        .map(|j| (format!("t_tr{j}"), Matrix::new(t.entries.clone())))
        .collect();
    let mut prev_stage = "t".to_string();
    let mut level = 1;
    // Bits of each matrix register that a later product reads (entries
    // from states no byte leads to are not read in a right operand).
    let mut read: BTreeMap<String, (usize, std::collections::BTreeSet<usize>)> = prev
        .iter()
        .map(|(n, m)| (n.clone(), (m.entries.len(), Default::default())))
        .collect();
    while prev.len() > 1 {
        let stage = format!("p{level}");
        let mut next = Vec::new();
        let mut mats = Vec::new();
        for (m, pair) in prev.chunks(2).enumerate() {
            let (product, terms) = Matrix::product(&pair[0].1, &pair[1].1);
            let name = format!("{stage}_m{m}");
            for &(x, y) in terms.iter().flatten() {
                read.get_mut(&pair[0].0).expect("left operand").1.insert(x);
                read.get_mut(&pair[1].0).expect("right operand").1.insert(y);
            }
            read.insert(name.clone(), (product.entries.len(), Default::default()));
            let bits = product
                .entries
                .iter()
                .zip(&terms)
                .enumerate()
                .map(|(i, (&(u, s), ts))| Bit {
                    index: i,
                    expr: ts
                        .iter()
                        .map(|&(x, y)| format!("({}[{x}] & {}[{y}])", pair[0].0, pair[1].0))
                        .collect::<Vec<_>>()
                        .join(" | "),
                    comment: format!("{u:?} -> {s:?}"),
                })
                .collect();
            mats.push(TreeMatrix {
                name: name.clone(),
                width: product.entries.len(),
                bits,
            });
            next.push((name, product));
        }
        levels.push(TreeLevel {
            stage: stage.clone(),
            prev: prev_stage.clone(),
            matrices: mats,
        });
        stages.push((stage.clone(), true));
        prev_stage = stage;
        prev = next;
        level += 1;
    }
    let (beat, beat_m) = prev.pop().expect("one matrix left");
    read.remove(&beat);
    let unread: Vec<String> = read
        .iter()
        .flat_map(|(name, (width, used))| {
            (0..*width)
                .filter(|i| !used.contains(i))
                .map(move |i| format!("{name}[{i}]"))
        })
        .collect();
    let mut recur_terms: BTreeMap<Lex, Vec<String>> = BTreeMap::new();
    for (i, &(u, s)) in beat_m.entries.iter().enumerate() {
        recur_terms
            .entry(s)
            .or_default()
            .push(format!("(lx[{}] & {beat}[{i}])", u.rtl_name()));
    }
    let recur = Lex::all()
        .map(|s| Bit {
            index: s.index(),
            expr: recur_terms
                .get(&s)
                .map_or("1'b0".to_string(), |v| v.join(" | ")),
            comment: s.rtl_name(),
        })
        .collect();

    // Lane states: k1 holds lanes 0..=2 (lane 0: the beat's entry state,
    // `lx` before the beat), each later stage two more; a lane's state is
    // one step from the lane before it.
    let mut chain = Vec::new();
    let mut done = 0usize;
    let mut chain_prev = prev_stage.clone();
    while done < b {
        let stage = format!("k{}", chain.len() + 1);
        let carried: Vec<usize> = (0..done).collect();
        let mut lanes_here = Vec::new();
        let mut src = format!("{chain_prev}_ls{}", done.saturating_sub(1));
        if done == 0 {
            lanes_here.push((0, "lx".to_string()));
            src = format!("{stage}_n0");
            done = 1;
        }
        for _ in 0..2 {
            if done >= b {
                break;
            }
            let j = done;
            let nc = Class::ALL.len();
            lanes_here.push((
                j,
                format!("step({src}, {chain_prev}_cls[{}+:NC])", (j - 1) * nc),
            ));
            src = format!("{stage}_n{j}");
            done += 1;
        }
        chain.push(ChainStage {
            stage: stage.clone(),
            prev: chain_prev.clone(),
            lanes: lanes_here,
            carried,
        });
        stages.push((stage.clone(), true));
        chain_prev = stage;
    }
    for stage in ["o", "s1", "s2"] {
        stages.push((stage.into(), true));
    }
    let stage_count = 1 + stages.len() as u32;
    let stage_lines: Vec<StageLine> = stages
        .iter()
        .enumerate()
        .map(|(i, (name, cls))| StageLine {
            name: name.clone(),
            prev: if i == 0 {
                "a".into()
            } else {
                stages[i - 1].0.clone()
            },
            cls: *cls,
            copy: i > 0 && *cls,
        })
        .collect();
    let tmpl = WideInTemplate {
        lanes: p.lanes,
        lane_flags: LANE_FLAGS,
        lane_ctls: LANE_CTLS,
        cls_bits: b * Class::ALL.len(),
        needs_values: p.needs.values,
        needs_text: p.needs.text,
        states,
        classes,
        trans,
        step,
        levels,
        recur,
        chain,
        stages: stage_lines,
        unread,
        beat_stage: prev_stage,
        last_stage: chain_prev,
        fifo_depth: WIDE_FIFO_DEPTH,
        fifo_aw: WIDE_FIFO_DEPTH.trailing_zeros(),
        // Stage a, the stages to s2, s_tready's register, and the clock
        // by which the count it is loaded from is old.
        reserve: stage_count + 3,
    };
    let mut v = tmpl.render().expect("the wide_in.v template renders");
    v.push('\n');
    v
}

/// A signal of the byte-serial event protocol (`qrtl_sax`'s outputs).
struct StageSig {
    name: &'static str,
    width: u32,
}

fn stage_sigs() -> Vec<StageSig> {
    super::xpath::STAGE_SIGS
        .iter()
        .map(|&(name, width, _)| StageSig { name, width })
        .collect()
}

/// The sizes of the back end's registers and memories.
struct SaxSizes {
    addr_width: u32,
    bank_addr_width: u32,
    bank_words: u64,
    depth_width: u32,
    /// Index bits of the starts memory (MAX_DEPTH entries).
    starts_width: u32,
}

fn clog2(x: u64) -> u32 {
    if x <= 1 {
        0
    } else {
        64 - (x - 1).leading_zeros()
    }
}

fn sax_sizes(lanes: u32, max_depth: u32, name_stack_bytes: u32) -> SaxSizes {
    let lb = lanes.trailing_zeros();
    // Byte addresses 0 .. NAME_STACK_BYTES - 1, and the fill up to it.
    let na = clog2(u64::from(name_stack_bytes.max(1)));
    let bank_addr_width = na.saturating_sub(lb).max(1);
    SaxSizes {
        addr_width: (na + 1).max(lb + bank_addr_width),
        bank_addr_width,
        bank_words: 1u64 << bank_addr_width,
        depth_width: clog2(u64::from(max_depth) + 1).max(1),
        starts_width: clog2(u64::from(max_depth)).max(1),
    }
}

/// The bits of a lane's events in `qrtl_wide_sax`'s `e_lanes` (33 per
/// lane; bits 7:0 are the byte), read by `qrtl_wide_events` too.
const EVENT_BITS: [(&str, u32); 17] = [
    ("V_NAME_BYTE", 8),
    ("V_NAME_FIRST", 9),
    ("V_ATTR_NAME_BYTE", 10),
    ("V_ATTR_NAME_FIRST", 11),
    ("V_VAL_START", 12),
    ("V_VAL_UNIT", 13),
    ("V_VAL_END", 14),
    ("V_OPEN", 15),
    ("V_OPEN_EMPTY", 16),
    ("V_CLOSE", 17),
    ("V_TEXT_UNIT", 18),
    ("V_TEXT_END", 19),
    // two bits: the CDATA `]` units held before the lane's unit
    ("V_HELD", 20),
    ("V_UNIT_IS_CP", 22),
    // eight bits: the unit's byte
    ("V_UNIT_BYTE", 23),
    ("V_NAME_END", 31),
    ("V_ATTR_NAME_END", 32),
];

/// The reasons' localparams (`E_` + the variant's name), with their codes.
fn reasons() -> Vec<(String, u8)> {
    crate::xml::XmlError::ALL
        .iter()
        .filter(|e| !e.is_namespace())
        .map(|&e| {
            let mut name = String::from("E");
            for c in format!("{e:?}").chars() {
                if c.is_ascii_uppercase() {
                    name.push('_');
                }
                name.push(c.to_ascii_uppercase());
            }
            (name, e.code())
        })
        .collect()
}

/// The back end's parameters (besides the front end's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WideSaxParams {
    pub wide: WideParams,
    pub max_depth: u32,
    pub name_stack_bytes: u32,
    /// The duplicate-attribute check's slots (`XmlConfig`).
    pub max_attributes: u32,
    pub attr_name_bytes: u32,
}

#[derive(Template)]
#[template(path = "wide_sax.v", escape = "none")]
struct WideSaxTemplate {
    lanes: u32,
    lane_flags: u32,
    lane_ctls: u32,
    cls_bits: usize,
    lanes_log2: u32,
    needs_values: bool,
    needs_text: bool,
    attr_names: bool,
    max_depth: u32,
    name_stack_bytes: u32,
    addr_width: u32,
    bank_addr_width: u32,
    bank_words: u64,
    depth_width: u32,
    starts_width: u32,
    max_attributes: u32,
    attr_count_width: u32,
    attr_index_width: u32,
    attr_name_bytes: u32,
    attr_words: u64,
    attr_word_width: u32,
    reasons: Vec<(String, u8)>,
    event_bits: &'static [(&'static str, u32)],
    states: Vec<StateLine>,
    classes: Vec<ClassLine>,
}

fn state_lines() -> Vec<StateLine> {
    Lex::all()
        .map(|s| StateLine {
            name: s.rtl_name(),
            index: s.index(),
            comment: format!("{s:?}"),
        })
        .collect()
}

fn class_lines() -> Vec<ClassLine> {
    Class::ALL
        .iter()
        .enumerate()
        .map(|(i, &c)| class_line(c, i))
        .collect()
}

/// The Verilog text of module `qrtl_wide_sax`, the item back end.
pub fn wide_sax_module(p: &WideSaxParams) -> String {
    assert!(
        p.max_attributes >= 1 && p.attr_name_bytes >= 1,
        "qrtl_wide_sax needs max_attributes and attr_name_bytes >= 1, got {p:?}"
    );
    let sizes = sax_sizes(p.wide.lanes, p.max_depth, p.name_stack_bytes);
    // An attribute name longer than the name stack overflows it first, so
    // the slots need no more bytes than the stack has.
    let attr_bytes = p.attr_name_bytes.min(p.name_stack_bytes.max(1));
    let attr_words = u64::from(attr_bytes).div_ceil(u64::from(p.wide.lanes.max(1)));
    let mut v = WideSaxTemplate {
        lanes: p.wide.lanes,
        lane_flags: LANE_FLAGS,
        lane_ctls: LANE_CTLS,
        cls_bits: p.wide.lanes as usize * Class::ALL.len(),
        lanes_log2: p.wide.lanes.trailing_zeros(),
        needs_values: p.wide.needs.values,
        needs_text: p.wide.needs.text,
        attr_names: p.wide.attr_names,
        max_depth: p.max_depth,
        name_stack_bytes: p.name_stack_bytes,
        addr_width: sizes.addr_width,
        bank_addr_width: sizes.bank_addr_width,
        bank_words: sizes.bank_words,
        depth_width: sizes.depth_width,
        starts_width: sizes.starts_width,
        max_attributes: p.max_attributes,
        attr_count_width: clog2(u64::from(p.max_attributes) + 1).max(1),
        attr_index_width: clog2(u64::from(p.max_attributes)).max(1),
        attr_name_bytes: attr_bytes,
        attr_words,
        attr_word_width: clog2(attr_words).max(1),
        reasons: reasons(),
        event_bits: &EVENT_BITS,
        states: state_lines(),
        classes: class_lines(),
    }
    .render()
    .expect("the wide_sax.v template renders");
    v.push('\n');
    v
}

#[derive(Template)]
#[template(path = "wide_events.v", escape = "none")]
struct WideEventsTemplate {
    lanes: u32,
    stage_sigs: Vec<StageSig>,
    event_bits: &'static [(&'static str, u32)],
}

/// The Verilog text of module `qrtl_wide_events`, the event queue.
pub fn wide_events_module(lanes: u32) -> String {
    let mut v = WideEventsTemplate {
        lanes,
        stage_sigs: stage_sigs(),
        event_bits: &EVENT_BITS,
    }
    .render()
    .expect("the wide_events.v template renders");
    v.push('\n');
    v
}

#[derive(Template)]
#[template(path = "wide_top.v", escape = "none")]
struct WideTopTemplate {
    lanes: u32,
    lane_flags: u32,
    lane_ctls: u32,
    cls_bits: usize,
    bad_beat_reason: u8,
    core: String,
    queries: usize,
    result_words: u32,
    max_depth: u32,
    name_stack_bytes: u32,
    stage_sigs: Vec<StageSig>,
}

/// The top `qrtl_xpath_top` for B > 1 lanes: what it wraps.
pub struct WideTop<'a> {
    pub sax: &'a WideSaxParams,
    /// The clusters' and results' module (`qrtl_xpath_core`).
    pub core: &'a str,
    pub queries: usize,
    pub result_words: u32,
}

/// The Verilog text of the top `qrtl_xpath_top` for B > 1 lanes: the
/// front end, the back end and the event queue in front of `core`.
pub fn wide_top_module(t: &WideTop) -> String {
    let mut v = WideTopTemplate {
        lanes: t.sax.wide.lanes,
        lane_flags: LANE_FLAGS,
        lane_ctls: LANE_CTLS,
        cls_bits: t.sax.wide.lanes as usize * Class::ALL.len(),
        bad_beat_reason: crate::xml::XmlError::BadBeat.code(),
        core: t.core.to_string(),
        queries: t.queries,
        result_words: t.result_words,
        max_depth: t.sax.max_depth,
        name_stack_bytes: t.sax.name_stack_bytes,
        stage_sigs: stage_sigs(),
    }
    .render()
    .expect("the wide_top.v template renders");
    v.push('\n');
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_product_tree_has_one_matrix_per_beat() {
        for lanes in [2, 4, 8] {
            let v = wide_in_module(&WideParams {
                lanes,
                needs: Needs::default(),
                attr_names: false,
            });
            assert!(v.contains("module qrtl_wide_in"));
            let top = format!("p{}_m0", lanes.trailing_zeros());
            assert!(v.contains(&top), "{lanes} lanes: no {top}");
            assert!(
                !v.contains("{{ ") && !v.contains("{%"),
                "template syntax left"
            );
        }
    }

    #[test]
    fn one_step_matrix_matches_the_table_on_every_byte() {
        // The expressions are built from the same predicates the model
        // evaluates; check the structure: every (state, next) the model
        // reaches is an entry, and no other.
        let (t, _) = step_matrix();
        let mut want = std::collections::BTreeSet::new();
        for s in Lex::all() {
            for byte in 0..=255u8 {
                want.insert((s, s.next(byte)));
            }
        }
        let got: std::collections::BTreeSet<_> = t.entries.iter().copied().collect();
        assert_eq!(got, want);
    }
}
