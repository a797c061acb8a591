//! The push side of a cluster: each node's match on the opening element
//! (stack-top part, tag, attribute conditions), the columns' inputs built
//! from their members, and the pipeline registers between them, as the
//! plan lays them out.

use super::cluster::{Assign, ClusterCx};
use super::comment::node_comment;
use super::plan::{cut, StackTop};
use crate::ir::stacks::{ColKind, HwNodeId, Read};
use crate::ir::xpath::{Axis, Test};

pub(super) struct NodeLogic {
    pub name: String,
    pub comment: String,
    /// The registered part: depth, parent column, global-stack bit, tag,
    /// computed one clock ahead (`<name>_pre`).
    pub pre: String,
    /// The node's fire signal: `<name>_pre` and its attribute conditions.
    pub expr: String,
    /// A `<name>_pre` register and fire wire exist (`NodePlan::fires`).
    pub fires: bool,
    /// False for a root read only through the global stack: nothing stores
    /// or reports its firing, so no logic is emitted.
    pub used: bool,
}

pub(super) struct ColInput {
    pub bit: usize,
    pub name: String,
    /// Its registers `<name>_pre<i>`, i < pre_count, each the OR of a group
    /// of the member nodes without attribute conditions (and the column
    /// itself for a carry column), as planned (`ColPlan`), so the two
    /// clocks share the OR tree; assigned in the pipeline processes.
    pub pre_count: usize,
    pub expr: String,
}

/// The push side's logic for the cluster template.
pub(super) struct PushLogic {
    pub nodes: Vec<NodeLogic>,
    /// The `_ctx` registers' names.
    pub ctx_regs: Vec<String>,
    pub col_inputs: Vec<ColInput>,
    /// The pure pipeline registers (`_ctx`, `_pre`), in processes.
    pub pipe_chunks: Vec<Vec<Assign>>,
    pub uses_depth1: bool,
    pub uses_depth2: bool,
    pub uses_depth_ge2: bool,
}

/// The stack-top part `top` as an AND of its terms.
fn stack_top_text(x: &ClusterCx<'_>, top: StackTop) -> String {
    let p = x.p;
    let (first, gs) = match top {
        StackTop::Depth1 => (format!("{p}_depth1"), None),
        StackTop::Gs { root_axis, tag } => {
            let depth = if root_axis == Axis::Child {
                format!("{p}_depth2")
            } else {
                format!("{p}_depth_ge2")
            };
            (depth, tag)
        }
        StackTop::Column { col, gs } => (x.col_tos(col.index()), gs),
    };
    match gs {
        Some(t) => format!("{first} & {}", x.gs_name(t)),
        None => first,
    }
}

/// The push side of cluster `x`.
pub(super) fn push_logic(x: &ClusterCx<'_>) -> PushLogic {
    let plan = x.plan;
    let (mut d1, mut d2, mut dge2) = (false, false, false);
    for (r, n) in plan.scope.reads.iter().zip(&plan.nodes) {
        match r {
            Read::Doc(Axis::Child) => d1 |= n.used,
            Read::Gs {
                root_axis: Axis::Child,
                ..
            } => d2 |= n.used,
            Read::Gs { .. } => dge2 |= n.used,
            _ => {}
        }
    }
    let mut nodes: Vec<NodeLogic> = (0..x.cl.nodes.len()).map(|i| node_logic(x, i)).collect();
    let col_pre: Vec<Vec<String>> = (0..x.cl.columns.len())
        .map(|j| column_pre(x, j, &nodes))
        .collect();
    let col_inputs = (0..x.cl.columns.len())
        .map(|j| column_input(x, j, col_pre[j].len()))
        .collect();
    // The pipeline registers in the order they are declared: stack-top
    // parts, nodes' pre-registers, columns' pre-registers.
    let mut pipe = Vec::new();
    let mut ctx_regs = Vec::with_capacity(plan.ctx_regs.len());
    for c in &plan.ctx_regs {
        let name = format!("{}_ctx", x.cl.node(c.owner).name);
        pipe.push(Assign {
            lhs: name.clone(),
            rhs: stack_top_text(x, c.top),
        });
        ctx_regs.push(name);
    }
    // A firing node's `pre` is read here only (the template prints the
    // expression of nodes without a register).
    for n in nodes.iter_mut().filter(|n| n.fires) {
        pipe.push(Assign {
            lhs: format!("{}_pre", n.name),
            rhs: std::mem::take(&mut n.pre),
        });
    }
    for (c, pre) in x.cl.columns.iter().zip(col_pre) {
        for (i, e) in pre.into_iter().enumerate() {
            pipe.push(Assign {
                lhs: format!("{}_pre{i}", c.name),
                rhs: e,
            });
        }
    }
    PushLogic {
        nodes,
        ctx_regs,
        col_inputs,
        pipe_chunks: cut(pipe, &plan.pipe_pieces),
        uses_depth1: d1,
        uses_depth2: d2,
        uses_depth_ge2: dge2,
    }
}

/// Node `i`: its stack-top part is registered a clock before the tag joins
/// it (see the cluster template's timing note); an unused node keeps the
/// plain expression for its comment.
fn node_logic(x: &ClusterCx<'_>, i: usize) -> NodeLogic {
    let n = &x.cl.nodes[i];
    let np = &x.plan.nodes[i];
    let mut pre = match np.ctx {
        Some(k) => format!("{}_ctx", x.cl.node(x.plan.ctx_regs[k].owner).name),
        None => StackTop::of(x.plan.scope.reads[i])
            .map(|t| stack_top_text(x, t))
            .unwrap_or_default(),
    };
    if let Test::Tag(t) = n.test {
        if !pre.is_empty() {
            pre.push_str(" & ");
        }
        pre.push_str(&x.tag_line(t));
    }
    if pre.is_empty() {
        pre.push_str("1'b1");
    }
    let mut expr = format!("{}_pre", n.name);
    for c in &n.conds {
        expr.push_str(" & ");
        expr.push_str(&x.cond_name(*c));
    }
    NodeLogic {
        name: n.name.clone(),
        comment: node_comment(x.d, x.cl, HwNodeId(i as u32)),
        pre,
        expr,
        fires: np.fires,
        used: np.used,
    }
}

/// Column `j`'s pre-registers' expressions: its pre terms (members
/// without attribute conditions, then the column itself for a carry
/// column) ORed in the planned groups.
fn column_pre(x: &ClusterCx<'_>, j: usize, nodes: &[NodeLogic]) -> Vec<String> {
    let c = &x.cl.columns[j];
    let tos = x.col_tos(j);
    let mut terms: Vec<(&str, bool)> = x.plan.scope.members[j]
        .iter()
        .filter(|n| x.cl.node(**n).conds.is_empty())
        .map(|n| (nodes[n.index()].pre.as_str(), true))
        .collect();
    if c.kind == ColKind::Carry {
        terms.push((&tos, false));
    }
    terms
        .chunks(x.plan.cols[j].group)
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
        .collect()
}

/// Column `j`'s input to the pushed row: its `regs` pre-registers and its
/// members with attribute conditions, ORed.
fn column_input(x: &ClusterCx<'_>, j: usize, regs: usize) -> ColInput {
    let c = &x.cl.columns[j];
    debug_assert_eq!(regs, x.plan.cols[j].regs, "planned pre-registers");
    let mut expr: Vec<String> = (0..regs).map(|i| format!("{}_pre{i}", c.name)).collect();
    expr.extend(
        x.plan.scope.members[j]
            .iter()
            .filter(|n| !x.cl.node(**n).conds.is_empty())
            .map(|n| x.cl.node(*n).name.clone()),
    );
    ColInput {
        bit: x.plan.scope.gs_tags.len() + j,
        name: c.name.clone(),
        pre_count: regs,
        expr: if expr.is_empty() {
            "1'b0".to_string()
        } else {
            expr.join(" | ")
        },
    }
}
