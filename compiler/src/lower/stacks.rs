//! XPath IR → stack IR: the naive mapping of ch. 2.5.2.1, before any
//! optimisation pass. One cluster; every node gets its own column (exact
//! for a node whose child step is `/` or that is a leaf, carry for a node
//! whose child step is `//`); every part's leaf gets a flag.
//!
//! The RTL of this issue covers path parts with attribute predicates: a
//! twig part (holistic mode), a `text()` predicate or a positional predicate
//! is rejected with a diagnostic on the query's line.

use crate::diag::{Diagnostic, Span};
use crate::ir::stacks::{
    Cluster, ColId, ColKind, Column, Flag, FlagId, HwNode, HwNodeId, HwQuery, StackDesign,
    StepOrigin,
};
use crate::ir::xpath::{Axis, CondKind, Design, NodeId, PartId};
use std::collections::HashMap;

/// Why a design has no stack-IR form (yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackLowerErrorKind {
    /// A part that branches (holistic twig).
    Twig,
    /// `[text() ...]`.
    TextPredicate,
    /// `[N]`, `[position() OP N]`.
    PositionalPredicate,
}

impl StackLowerErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            StackLowerErrorKind::Twig => "E0301",
            StackLowerErrorKind::TextPredicate => "E0302",
            StackLowerErrorKind::PositionalPredicate => "E0303",
        }
    }
}

/// Options of the lowering.
#[derive(Clone, Copy, Debug)]
pub struct StackLowerConfig {
    pub max_depth: u32,
}

/// Lower a (split) XPath design. Errors carry the query's line and the span
/// of the offending step.
pub fn lower_stacks(
    file: &str,
    design: &Design,
    config: &StackLowerConfig,
) -> Result<StackDesign, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut cluster = Cluster::default();
    // Each XPath part becomes one chain of nodes and one flag.
    let mut part_flag: HashMap<PartId, FlagId> = HashMap::new();
    for (pi, part) in design.parts.iter().enumerate() {
        let owner = &design.queries[part.queries[0].index()];
        let mut chain: Vec<NodeId> = Vec::new();
        let mut n = part.root;
        let mut bad = None;
        loop {
            let node = design.node(n);
            chain.push(n);
            for c in node.open_conds.iter().chain(&node.close_conds) {
                let kind = match design.cond(*c) {
                    CondKind::TextExists | CondKind::TextCmp(_) => {
                        Some(StackLowerErrorKind::TextPredicate)
                    }
                    CondKind::Position { .. } => Some(StackLowerErrorKind::PositionalPredicate),
                    _ => None,
                };
                if let Some(k) = kind {
                    bad.get_or_insert((k, n));
                }
            }
            match node.children.as_slice() {
                [] => break,
                [c] => n = *c,
                _ => {
                    bad.get_or_insert((StackLowerErrorKind::Twig, n));
                    break;
                }
            }
        }
        if let Some((kind, at)) = bad {
            let origin = &design.node(at).origin;
            let (message, help) = match kind {
                StackLowerErrorKind::Twig => (
                    "twig queries (branching predicates) have no RTL yet",
                    "compile with `--mode paths` or `--mode pairs` (joined on chip, may report false positives)",
                ),
                StackLowerErrorKind::TextPredicate => (
                    "`text()` predicates have no RTL yet",
                    "the software engine (`qrtl xpath filter`) supports them",
                ),
                StackLowerErrorKind::PositionalPredicate => (
                    "positional predicates have no RTL yet",
                    "the software engine (`qrtl xpath filter`) supports them",
                ),
            };
            errors.push(Diagnostic {
                code: kind.code(),
                message: message.to_string(),
                help: Some(help.to_string()),
                file: file.to_string(),
                line: owner.line,
                source_line: owner.text.clone(),
                span: if origin.line == owner.line {
                    origin.span
                } else {
                    Span::point(0)
                },
            });
            continue;
        }
        let mut parent: Option<HwNodeId> = None;
        for (step, &x) in chain.iter().enumerate() {
            let node = design.node(x);
            let col = ColId(cluster.columns.len() as u32);
            let next_axis = chain.get(step + 1).map(|c| design.node(*c).axis);
            let kind = if next_axis == Some(Axis::Descendant) {
                ColKind::Carry
            } else {
                ColKind::Exact
            };
            cluster.columns.push(Column {
                kind,
                name: String::new(),
            });
            let id = HwNodeId(cluster.nodes.len() as u32);
            cluster.nodes.push(HwNode {
                parent,
                axis: node.axis,
                test: node.test,
                conds: node.open_conds.clone(),
                exact: (kind == ColKind::Exact).then_some(col),
                carry: (kind == ColKind::Carry).then_some(col),
                via_gs: false,
                origins: part
                    .queries
                    .iter()
                    .map(|q| StepOrigin {
                        query: *q,
                        line: design.queries[q.index()].line,
                        step: step + 1,
                    })
                    .collect(),
                name: String::new(),
            });
            parent = Some(id);
        }
        let flag = FlagId(cluster.flags.len() as u32);
        cluster.flags.push(Flag {
            node: parent.expect("a part has a root"),
            name: String::new(),
        });
        part_flag.insert(PartId(pi as u32), flag);
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let queries = design
        .queries
        .iter()
        .map(|q| HwQuery {
            id: q.id,
            line: q.line,
            text: q.text.clone(),
            cluster: 0,
            flags: q.parts.iter().map(|p| part_flag[p]).collect(),
        })
        .collect();
    let out = StackDesign {
        tags: design.tags.clone(),
        attrs: design.attrs.clone(),
        conds: design.conds.clone(),
        max_depth: config.max_depth,
        clusters: vec![cluster],
        queries,
    };
    debug_assert_eq!(out.verify(), Ok(()));
    Ok(out)
}
