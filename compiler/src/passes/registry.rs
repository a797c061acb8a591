//! The one list of passes and the order they run in.
//!
//! | pass          | what it does                                                      |
//! |---------------|-------------------------------------------------------------------|
//! | `split-twigs` | `--mode paths|pairs`: break each twig into root-to-leaf paths or   |
//! |               | parent/child pairs joined per document (ch. 3.3); no-op for        |
//! |               | holistic. Must run first: later passes see only the split parts.   |

use crate::ir::xpath::{Design, Mode};

/// Options that select and configure passes.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassConfig {
    pub mode: Mode,
}

/// A pass: a name, a one-line description and the transformation.
pub trait Pass {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn run(&self, design: Design, config: &PassConfig) -> Design;
}

/// All passes, in pipeline order.
pub fn passes() -> Vec<Box<dyn Pass>> {
    vec![Box::new(super::split_twigs::SplitTwigs)]
}

/// Run every pass in order, verifying the IR after each.
pub fn run_pipeline(mut design: Design, config: &PassConfig) -> Design {
    for pass in passes() {
        design = pass.run(design, config);
        debug_assert_eq!(design.verify(), Ok(()), "after pass {}", pass.name());
    }
    design
}
