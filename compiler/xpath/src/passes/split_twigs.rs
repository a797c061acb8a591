//! `split-twigs`: the path and pair decompositions of chapter 3.3.
//!
//! * `paths`: every root-to-leaf path of a twig becomes a part; a node with
//!   `text()` conditions also ends a path of its own carrying them (the
//!   condition is checked when that node's element closes).
//! * `pairs`: every parent/child or ancestor/descendant edge becomes a
//!   two-node part; the pair under the twig root keeps the root's anchoring,
//!   others float (`//p/c`); `text()` conditions become one-node parts.
//!
//! A query then matches iff all of its parts matched somewhere in the
//! document, which admits false positives (parts may match at unrelated
//! places) but never false negatives. Identical parts are shared.

use super::registry::PassConfig;
use crate::ir::xpath::{Axis, CondId, Design, Mode, Node, NodeId, Origin, Part, PartId, Test};
use qrtl_core::pass::Pass;
use rustc_hash::FxHashMap as HashMap;

pub struct SplitTwigs;

impl Pass<Design, PassConfig> for SplitTwigs {
    fn name(&self) -> &'static str {
        "split-twigs"
    }
    fn description(&self) -> &'static str {
        "break twigs into root-to-leaf paths or pairs (--mode paths|pairs)"
    }
    fn run(&self, design: Design, config: &PassConfig) -> Design {
        match config.mode {
            Mode::Holistic => design,
            mode => split(design, mode),
        }
    }
}

/// One step of a chain part.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ChainStep {
    axis: Axis,
    test: Test,
    open: Vec<CondId>,
    close: Vec<CondId>,
}

fn step_of(n: &Node, axis: Axis, with_close: bool) -> ChainStep {
    ChainStep {
        axis,
        test: n.test,
        open: n.open_conds.clone(),
        close: if with_close {
            n.close_conds.clone()
        } else {
            Vec::new()
        },
    }
}

fn chains(d: &Design, root: NodeId, mode: Mode) -> Vec<(Vec<ChainStep>, Origin)> {
    let mut out = Vec::new();
    // Depth-first over the twig with the path from the root.
    let mut stack: Vec<(NodeId, Vec<NodeId>)> = vec![(root, vec![root])];
    while let Some((n, path)) = stack.pop() {
        let node = d.node(n);
        match mode {
            Mode::Paths => {
                let with = |last_close: bool| -> Vec<ChainStep> {
                    path.iter()
                        .enumerate()
                        .map(|(i, &m)| {
                            step_of(d.node(m), d.node(m).axis, last_close && i == path.len() - 1)
                        })
                        .collect()
                };
                // A leaf ends a path; so does a node with text() conditions.
                if node.children.is_empty() || !node.close_conds.is_empty() {
                    out.push((with(true), node.origin.clone()));
                }
            }
            Mode::Pairs => {
                let anchor = |m: &Node| {
                    if m.parent.is_none() {
                        m.axis
                    } else {
                        Axis::Descendant
                    }
                };
                if !node.close_conds.is_empty()
                    || (node.parent.is_none() && node.children.is_empty())
                {
                    out.push((vec![step_of(node, anchor(node), true)], node.origin.clone()));
                }
                for &c in &node.children {
                    let child = d.node(c);
                    out.push((
                        vec![
                            step_of(node, anchor(node), false),
                            step_of(child, child.axis, false),
                        ],
                        child.origin.clone(),
                    ));
                }
            }
            Mode::Holistic => unreachable!("holistic designs are not split"),
        }
        for &c in node.children.iter().rev() {
            let mut p = path.clone();
            p.push(c);
            stack.push((c, p));
        }
    }
    out
}

fn split(design: Design, mode: Mode) -> Design {
    let mut out = design.clone();
    out.nodes.clear();
    out.parts.clear();
    out.mode = mode;
    let mut shared: HashMap<Vec<ChainStep>, PartId> = HashMap::default();
    for qi in 0..design.queries.len() {
        let mut parts = Vec::new();
        for &old in &design.queries[qi].parts {
            for (chain, origin) in chains(&design, design.parts[old.index()].root, mode) {
                let part = match shared.get(&chain) {
                    Some(&p) => p,
                    None => {
                        let p = PartId(out.parts.len() as u32);
                        out.parts.push(Part {
                            root: NodeId(out.nodes.len() as u32),
                            queries: Vec::new(),
                        });
                        let mut parent = None;
                        for s in &chain {
                            parent = Some(out.add_node(Node {
                                part: p,
                                parent,
                                axis: s.axis,
                                test: s.test,
                                open_conds: s.open.clone(),
                                close_conds: s.close.clone(),
                                children: Vec::new(),
                                origin: origin.clone(),
                            }));
                        }
                        shared.insert(chain, p);
                        p
                    }
                };
                if !parts.contains(&part) {
                    parts.push(part);
                }
            }
        }
        let id = design.queries[qi].id;
        for &p in &parts {
            out.parts[p.index()].queries.push(id);
        }
        out.queries[qi].parts = parts;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::xpath::lower_single;

    fn shapes(q: &str, mode: Mode) -> Vec<String> {
        let d = SplitTwigs.run(lower_single(q).unwrap(), &PassConfig { mode });
        d.verify().unwrap();
        let mut v: Vec<String> = d.queries[0]
            .parts
            .iter()
            .map(|&p| {
                d.part_nodes(p)
                    .iter()
                    .map(|&n| {
                        let node = d.node(n);
                        let ax = if node.axis == Axis::Child { "/" } else { "//" };
                        let t = match node.test {
                            Test::Any => "*".to_string(),
                            Test::Tag(t) => String::from_utf8_lossy(d.tags.name(t)).into_owned(),
                        };
                        format!(
                            "{ax}{t}{}",
                            if node.close_conds.is_empty() {
                                ""
                            } else {
                                "[text]"
                            }
                        )
                    })
                    .collect::<String>()
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn paths_mode_gives_root_to_leaf_paths() {
        assert_eq!(shapes("/a/b[c]//a", Mode::Paths), vec!["/a/b//a", "/a/b/c"]);
    }

    #[test]
    fn pairs_mode_gives_edges_anchored_at_the_root_only() {
        assert_eq!(
            shapes("/a/b[c]//a", Mode::Pairs),
            vec!["//b//a", "//b/c", "/a/b"]
        );
    }

    #[test]
    fn text_conditions_become_their_own_parts() {
        assert_eq!(
            shapes("/a[text()=1]/b", Mode::Paths),
            vec!["/a/b", "/a[text]"]
        );
        assert_eq!(shapes("//a[text()=1]", Mode::Pairs), vec!["//a[text]"]);
        assert_eq!(shapes("/a", Mode::Pairs), vec!["/a"]);
    }
}
