//! `last-column` (ch. 2.5.2.2, optimisation 1): a column that no step reads
//! is not stored. A query's last node only sets its match flag; a node
//! keeps its exact column only for `/` successors or a pop node checking it
//! at close time, and its carry column only for `//` successors.

use super::registry::StackPassConfig;
use crate::ir::stacks::StackDesign;
use crate::ir::xpath::Axis;
use qrtl_core::pass::Pass;

pub struct LastColumn;

impl Pass<StackDesign, StackPassConfig> for LastColumn {
    fn name(&self) -> &'static str {
        "last-column"
    }
    fn description(&self) -> &'static str {
        "drop the columns of nodes no successor reads (last query nodes)"
    }
    fn run(&self, mut design: StackDesign, _config: &StackPassConfig) -> StackDesign {
        for cl in &mut design.clusters {
            let children = cl.children();
            let checked = cl.pop_checked();
            for (i, kids) in children.iter().enumerate() {
                let has = |axis| kids.iter().any(|c| cl.node(*c).axis == axis);
                let (child, desc) = (has(Axis::Child), has(Axis::Descendant));
                let node = &mut cl.nodes[i];
                if !child && !checked[i] {
                    node.exact = None;
                }
                if !desc {
                    node.carry = None;
                }
            }
            cl.renumber_columns();
        }
        design
    }
}
