//! `root-gs` (ch. 2.5.2.2, optimisation 2): a condition-free query root
//! needs no exact column: its `/` successors read the global stack (the
//! parent's tag bit) and the element depth instead. A root with attribute
//! conditions keeps its column (the global stack holds tags only), and so
//! does a root a pop node checks at close time.

use super::registry::StackPassConfig;
use crate::ir::stacks::StackDesign;
use qrtl_core::pass::Pass;

pub struct RootViaGlobalStack;

impl Pass<StackDesign, StackPassConfig> for RootViaGlobalStack {
    fn name(&self) -> &'static str {
        "root-gs"
    }
    fn description(&self) -> &'static str {
        "read condition-free query roots from the global stack instead of a column"
    }
    fn run(&self, mut design: StackDesign, _config: &StackPassConfig) -> StackDesign {
        for cl in &mut design.clusters {
            let checked = cl.pop_checked();
            for (n, checked) in cl.nodes.iter_mut().zip(checked) {
                if n.parent.is_none() && n.conds.is_empty() && n.exact.is_some() && !checked {
                    n.exact = None;
                    n.via_gs = true;
                }
            }
            cl.renumber_columns();
        }
        design
    }
}
