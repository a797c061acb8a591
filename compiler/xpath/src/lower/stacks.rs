//! XPath IR → stack IR: the naive mapping of ch. 2.5.2.1 and 3.2.2, before
//! any optimisation pass. One cluster; every query step is a push node with
//! its own columns (exact for `/` successors, for a leaf and for a node a pop
//! node checks; carry for `//` successors).
//!
//! A plain path part sets its flag when its last node fires. Any other part
//! (a twig, or a `text()` predicate) gets pop nodes for the subtree under
//! its *pop root*: the first node on the path from the part's root that
//! branches or has a `text()` condition. The steps above it form a chain,
//! and the pop root's push column already says that chain matched, so the
//! part matched iff its pop root is fully matched somewhere.

use crate::ir::stacks::{
    Cluster, ColId, ColKind, Column, Flag, FlagId, FlagSrc, HwNode, HwNodeId, HwQuery, PopId,
    PopNode, StackDesign, StepOrigin,
};
use crate::ir::xpath::{Axis, Design, NodeId, PartId, SiblingOrder};
use qrtl_core::diag::Diagnostic;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Options of the lowering.
#[derive(Clone, Copy, Debug)]
pub struct StackLowerConfig {
    pub max_depth: u32,
}

/// Lower a (split) XPath design. Every construct of the XPath IR has a
/// stack-IR form, so this cannot fail today; the `Result` keeps the
/// contract of a lowering (errors carry the query's line and span).
pub fn lower_stacks(
    _file: &str,
    design: &Design,
    config: &StackLowerConfig,
) -> Result<StackDesign, Vec<Diagnostic>> {
    let mut cluster = Cluster::default();
    let mut part_flag: HashMap<PartId, FlagId> = HashMap::default();
    for (pi, part) in design.parts.iter().enumerate() {
        let nodes = design.part_nodes(PartId(pi as u32));
        let pop_root = part.pop_root(design);
        let in_subtree: HashSet<NodeId> = pop_root
            .map_or(Vec::new(), |r| design.subtree_nodes(r))
            .into_iter()
            .collect();
        let in_pop: Vec<bool> = nodes.iter().map(|x| in_subtree.contains(x)).collect();
        // Push nodes, parents first (pre-order).
        let mut hw_of: HashMap<NodeId, HwNodeId> = HashMap::default();
        for (i, &x) in nodes.iter().enumerate() {
            let node = design.node(x);
            let axes: Vec<Axis> = node.children.iter().map(|c| design.node(*c).axis).collect();
            let leaf = node.children.is_empty();
            let mut col = |kind| {
                cluster.columns.push(Column {
                    kind,
                    name: String::new(),
                });
                ColId(cluster.columns.len() as u32 - 1)
            };
            let exact =
                (leaf || in_pop[i] || axes.contains(&Axis::Child)).then(|| col(ColKind::Exact));
            let carry = axes
                .contains(&Axis::Descendant)
                .then(|| col(ColKind::Carry));
            let id = HwNodeId(cluster.nodes.len() as u32);
            cluster.nodes.push(HwNode {
                parent: node.parent.map(|p| hw_of[&p]),
                axis: node.axis,
                test: node.test,
                conds: node.open_conds.clone(),
                exact,
                carry,
                via_gs: false,
                origins: part
                    .queries
                    .iter()
                    .map(|q| StepOrigin {
                        query: *q,
                        line: design.queries[q.index()].line,
                        step: step_number(design, x),
                    })
                    .collect(),
                name: String::new(),
            });
            hw_of.insert(x, id);
        }
        let src = match pop_root {
            None => {
                let leaf = *nodes.last().expect("a part has a node");
                FlagSrc::Fire(hw_of[&leaf])
            }
            Some(r) => FlagSrc::Pop(lower_pops(design, r, &hw_of, &mut cluster)),
        };
        let flag = FlagId(cluster.flags.len() as u32);
        cluster.flags.push(Flag {
            src,
            name: String::new(),
        });
        part_flag.insert(PartId(pi as u32), flag);
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
        counters: design.counters.clone(),
        order: design.order,
        max_depth: config.max_depth,
        clusters: vec![cluster],
        queries,
    };
    debug_assert_eq!(out.verify(), Ok(()));
    Ok(out)
}

/// 1-based step number of a node: its depth in the part's tree.
fn step_number(design: &Design, n: NodeId) -> usize {
    let mut depth = 1;
    let mut a = design.node(n).parent;
    while let Some(p) = a {
        depth += 1;
        a = design.node(p).parent;
    }
    depth
}

/// Pop nodes for the subtree of `n`, children first; returns `n`'s.
fn lower_pops(
    design: &Design,
    n: NodeId,
    hw_of: &HashMap<NodeId, HwNodeId>,
    cluster: &mut Cluster,
) -> PopId {
    let node = design.node(n);
    let mut children = Vec::new();
    let mut prev = None;
    for &c in &node.children {
        let id = lower_pops(design, c, hw_of, cluster);
        // Sibling order matters only with `--ordered`; without it, no
        // `prev` link keeps identical subtrees mergeable.
        if design.order == SiblingOrder::Ordered {
            cluster.pops[id.index()].prev = prev;
        }
        prev = Some(id);
        children.push(id);
    }
    cluster.pops.push(PopNode {
        push: hw_of[&n],
        axis: node.axis,
        close_conds: node.close_conds.clone(),
        children,
        prev: None,
        name: String::new(),
    });
    PopId(cluster.pops.len() as u32 - 1)
}
