//! `compaction` (ch. 2.5.2.2 optimisation 3, Algorithms 1–2): nodes that
//! cannot fire at the same element share an exact column. Two nodes with
//! different tag tests never fire at one element, so an exact column may
//! hold one node per tag; a reader checks the global-stack bit of its
//! predecessor's tag to know which node set the bit. Wildcard nodes and
//! carry (`//`) columns stay restricted to one node. This generalises
//! Algorithm 2's rule ("no earlier node with the same tag in the column")
//! from one query's stack to the whole cluster, which shares one stack
//! pointer and one memory. First fit, in node order.

use super::registry::StackPassConfig;
use crate::ir::stacks::{ColId, ColKind, Column, StackDesign};
use crate::ir::xpath::{TagId, Test};
use qrtl_core::pass::Pass;
use rustc_hash::FxHashSet as HashSet;

pub struct Compaction;

impl Pass<StackDesign, StackPassConfig> for Compaction {
    fn name(&self) -> &'static str {
        "compaction"
    }
    fn description(&self) -> &'static str {
        "share exact columns between nodes with different tags (Algorithms 1-2)"
    }
    fn run(&self, mut design: StackDesign, _config: &StackPassConfig) -> StackDesign {
        for cl in &mut design.clusters {
            let mut shared: Vec<(ColId, HashSet<TagId>)> = Vec::new();
            for i in 0..cl.nodes.len() {
                let (Some(_), Test::Tag(t)) = (cl.nodes[i].exact, cl.nodes[i].test) else {
                    continue;
                };
                let col = match shared.iter_mut().find(|(_, tags)| !tags.contains(&t)) {
                    Some((c, tags)) => {
                        tags.insert(t);
                        *c
                    }
                    None => {
                        cl.columns.push(Column {
                            kind: ColKind::Exact,
                            name: String::new(),
                        });
                        let c = ColId(cl.columns.len() as u32 - 1);
                        shared.push((c, HashSet::from_iter([t])));
                        c
                    }
                };
                cl.nodes[i].exact = Some(col);
            }
            cl.renumber_columns();
        }
        design
    }
}
