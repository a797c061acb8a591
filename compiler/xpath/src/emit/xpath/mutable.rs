//! The mutable part of a cluster's rows and the logic around it: sibling
//! counters and their `position()` tests, the top element's `text()`
//! results, and the twig pop nodes (checked when an element closes) with
//! their reports to the parent's row.

use super::cluster::{ClusterCx, RangeAssign, RowBit, VcmpInst};
use super::comment::{comment_text, cond_text, pop_comment};
use super::scope::Scope;
use crate::ir::stacks::{Cluster, PopId, StackDesign};
use crate::ir::xpath::{Axis, CmpOp, CondId, CondKind, CounterId, SiblingOrder, Test};
use std::collections::BTreeMap;

/// Where each piece of the mutable part sits: counters, then `text()`
/// results, then report bits (a raw bit per reported pop node, then with
/// `--ordered` an accepted bit per such node).
pub(super) struct MutLayout {
    /// Each counter's id, width and lowest bit.
    pub counters: Vec<(CounterId, u32, usize)>,
    /// First bit after the counters.
    pub counters_end: usize,
    /// Bit of each `text()` condition (in `Scope::text_conds` order).
    pub text_bits: BTreeMap<CondId, usize>,
    /// First bit after the `text()` results.
    pub plain_end: usize,
    /// Raw and accepted report bit of each pop node.
    pub rep_bit: Vec<Option<usize>>,
    pub acc_bit: Vec<Option<usize>>,
    pub width: usize,
}

/// Lay out the mutable part of cluster `cl`'s rows. A counter is wide
/// enough for the largest position compared + 1, saturating there (every
/// comparison then still sees the true answer).
pub(super) fn layout(d: &StackDesign, cl: &Cluster, scope: &Scope) -> MutLayout {
    let mut at = 0usize;
    let mut counters = Vec::with_capacity(scope.counters.len());
    for &k in &scope.counters {
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
        counters.push((k, width, at));
        at += width as usize;
    }
    let counters_end = at;
    let mut text_bits = BTreeMap::new();
    for &c in &scope.text_conds {
        text_bits.insert(c, at);
        at += 1;
    }
    let plain_end = at;
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
    MutLayout {
        counters,
        counters_end,
        text_bits,
        plain_end,
        rep_bit,
        acc_bit,
        width: at,
    }
}

pub(super) fn clog2(n: u64) -> u32 {
    64 - n.saturating_sub(1).leading_zeros()
}

pub(super) struct CounterLogic {
    pub name: String,
    pub comment: String,
    pub width: u32,
    pub lo: usize,
    pub hi: usize,
    pub inc: String,
}

pub(super) struct PosCond {
    pub name: String,
    pub expr: String,
    pub comment: String,
}

pub(super) struct PopLogic {
    pub name: String,
    pub comment: String,
    pub full: String,
    pub arrive: Option<String>,
}

pub(super) struct TextBit {
    pub bit: usize,
    pub hit: String,
    pub comment: String,
}

/// The mutable part's logic, for the cluster template.
pub(super) struct Mutable {
    pub width: usize,
    pub counters: Vec<CounterLogic>,
    pub pos_conds: Vec<PosCond>,
    pub text_vcmps: Vec<VcmpInst>,
    pub text_bits: Vec<TextBit>,
    pub pops: Vec<PopLogic>,
    pub counted_assigns: Vec<RangeAssign>,
    pub pmut_assigns: Vec<RangeAssign>,
}

/// The mutable part of cluster `x`'s rows, laid out by its plan.
pub(super) fn mutable_part(x: &ClusterCx<'_>, gs_bits: &[RowBit], col_bits: &[RowBit]) -> Mutable {
    let counters = counter_logic(x);
    let (text_vcmps, text_bits) = text_logic(x);
    let mut pmut_assigns = Vec::new();
    let lay = &x.plan.layout;
    if lay.plain_end > 0 {
        pmut_assigns.push(RangeAssign {
            range: range(lay.plain_end - 1, 0),
            expr: format!("{}_pmut[{}]", x.p, range(lay.plain_end - 1, 0)),
        });
    }
    let pops = (0..x.cl.pops.len())
        .map(|i| pop_logic(x, PopId(i as u32), gs_bits, col_bits, &mut pmut_assigns))
        .collect();
    let mut counted_assigns: Vec<RangeAssign> = counters
        .iter()
        .map(|c| RangeAssign {
            range: range(c.hi, c.lo),
            expr: format!("{}_next", c.name),
        })
        .collect();
    if lay.width > lay.counters_end {
        counted_assigns.push(RangeAssign {
            range: range(lay.width - 1, lay.counters_end),
            expr: format!(
                "{}_tos_mut[{}]",
                x.p,
                range(lay.width - 1, lay.counters_end)
            ),
        });
    }
    Mutable {
        width: lay.width,
        pos_conds: pos_conds(x),
        counters,
        text_vcmps,
        text_bits,
        pops,
        counted_assigns,
        pmut_assigns,
    }
}

fn counter_name(p: &str, k: CounterId) -> String {
    format!("{p}_cnt{}", k.0)
}

/// The sibling counters: each counts the top element's children that pass
/// its test and guards.
fn counter_logic(x: &ClusterCx<'_>) -> Vec<CounterLogic> {
    let d = x.d;
    x.plan
        .layout
        .counters
        .iter()
        .map(|&(k, width, lo)| {
            let counter = &d.counters[k.index()];
            let mut inc = vec!["ev_open".to_string()];
            if let Test::Tag(t) = counter.test {
                inc.push(x.tag_line(t));
            }
            inc.extend(counter.guard.iter().map(|g| x.cond_name(*g)));
            let test = match counter.test {
                Test::Any => "*".to_string(),
                Test::Tag(t) => comment_text(d.tags.name(t)),
            };
            let guards: String = counter.guard.iter().map(|g| cond_text(d, *g)).collect();
            CounterLogic {
                name: counter_name(x.p, k),
                comment: format!(
                    "counter {}: children {test}{guards} of the top element",
                    k.0
                ),
                width,
                lo,
                hi: lo + width as usize - 1,
                inc: inc.join(" & "),
            }
        })
        .collect()
}

/// The `position()` conditions, each a test of its counter's next value.
fn pos_conds(x: &ClusterCx<'_>) -> Vec<PosCond> {
    let d = x.d;
    let widths: BTreeMap<CounterId, u32> = x
        .plan
        .layout
        .counters
        .iter()
        .map(|&(k, w, _)| (k, w))
        .collect();
    x.plan
        .scope
        .pos_ids
        .iter()
        .map(|&c| {
            let CondKind::Position { counter, op, value } = &d.conds[c.index()] else {
                unreachable!("partitioned: positions only")
            };
            let (name, w) = (counter_name(x.p, *counter), widths[counter]);
            let expr = match position_test(*op, f64::from_bits(*value)) {
                Ok((op, n)) => format!("{name}_inc & ({name}_next {} {w}'d{n})", verilog_op(op)),
                Err(true) => format!("{name}_inc"),
                Err(false) => "1'b0".to_string(),
            };
            PosCond {
                name: x.cond_name(c),
                expr,
                comment: cond_text(d, c),
            }
        })
        .collect()
}

/// The `text()` results of the top element, and their comparators.
fn text_logic(x: &ClusterCx<'_>) -> (Vec<VcmpInst>, Vec<TextBit>) {
    let mut text_vcmps = Vec::new();
    let mut text_bits = Vec::new();
    for &c in &x.plan.scope.text_conds {
        let hit = match &x.d.conds[c.index()] {
            CondKind::TextCmp(_) => {
                let inst = format!("{}_t{}", x.p, c.0);
                let out = format!("{inst}_ok");
                text_vcmps.push(VcmpInst {
                    module: x.comparator(c),
                    inst,
                    out: out.clone(),
                });
                out
            }
            _ => "1'b1".to_string(),
        };
        text_bits.push(TextBit {
            bit: x.plan.row_width + x.plan.layout.text_bits[&c],
            hit,
            comment: cond_text(x.d, c),
        });
    }
    (text_vcmps, text_bits)
}

/// Pop node `i`: full when its push column (and global-stack bit) is set
/// in the closing row, its children reported there and its `text()`
/// conditions hold; its report bits' updates go to `pmut_assigns`.
fn pop_logic(
    x: &ClusterCx<'_>,
    i: PopId,
    gs_bits: &[RowBit],
    col_bits: &[RowBit],
    pmut_assigns: &mut Vec<RangeAssign>,
) -> PopLogic {
    let (d, cl, p, lay) = (x.d, x.cl, x.p, &x.plan.layout);
    let pop = cl.pop(i);
    let ordered = d.order == SiblingOrder::Ordered;
    let tos_mut = |b: usize| format!("{p}_tos_mut[{b}]");
    let (col, gs) = cl.here_of(i, &x.plan.scope.members);
    let col = &col_bits[col.index()];
    let mut close = vec!["ev_close".to_string(), col.name.clone()];
    let mut empty = vec!["ev_open_empty".to_string(), format!("{p}_row[{}]", col.bit)];
    if let Some(t) = gs {
        let g = &gs_bits[x.plan.scope.gs_index(t)];
        close.push(g.name.clone());
        empty.push(format!("{p}_row[{}]", g.bit));
    }
    for c in &pop.children {
        let b = if ordered {
            lay.acc_bit[c.index()]
        } else {
            lay.rep_bit[c.index()]
        };
        close.push(tos_mut(b.expect("children have report bits")));
    }
    for c in &pop.close_conds {
        close.push(tos_mut(lay.text_bits[c]));
    }
    let full = if pop.children.is_empty() && pop.close_conds.is_empty() {
        format!("({}) | ({})", close.join(" & "), empty.join(" & "))
    } else {
        close.join(" & ")
    };
    let name = pop.name.clone();
    let (rep, acc) = (lay.rep_bit[i.index()], lay.acc_bit[i.index()]);
    let arrive = (rep.is_some() || acc.is_some()).then(|| match (pop.axis, rep) {
        (Axis::Descendant, Some(r)) => format!("{name}_full | (ev_close & {})", tos_mut(r)),
        _ => format!("{name}_full"),
    });
    if let Some(r) = rep {
        pmut_assigns.push(RangeAssign {
            range: format!("{r}"),
            expr: format!("{p}_pmut[{r}] | {name}_arrive"),
        });
    }
    if let Some(a) = acc {
        let expr = match pop.prev {
            Some(prev) => format!(
                "{p}_pmut[{a}] | ({name}_arrive & {p}_pmut[{}])",
                lay.acc_bit[prev.index()].expect("siblings have accepted bits")
            ),
            None => format!("{p}_pmut[{a}] | {name}_arrive"),
        };
        pmut_assigns.push(RangeAssign {
            range: format!("{a}"),
            expr,
        });
    }
    PopLogic {
        comment: pop_comment(d, cl, i),
        name,
        full,
        arrive,
    }
}

pub(super) fn range(hi: usize, lo: usize) -> String {
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
