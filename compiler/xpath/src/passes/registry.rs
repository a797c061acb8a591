//! The one list of passes and the order they run in.
//!
//! On the XPath IR (`ir::xpath::Design`):
//!
//! | pass          | what it does                                                      |
//! |---------------|-------------------------------------------------------------------|
//! | `split-twigs` | `--mode paths|pairs`: break each twig into root-to-leaf paths or   |
//! |               | parent/child pairs joined per document (ch. 3.3); no-op for        |
//! |               | holistic. Must run first: later passes see only the split parts.   |
//!
//! Then `lower::stacks` builds the naive stack IR (`ir::stacks`), and on it:
//!
//! | pass           | what it does                                                     |
//! |----------------|------------------------------------------------------------------|
//! | `cluster`      | queries → clusters of `--cluster-size` (ch. 2.5.4). First: the     |
//! |                | other passes work inside a cluster.                               |
//! | `prefix-merge` | share common prefixes inside a cluster (ch. 2.6.2.2). Before the   |
//! |                | column passes, so merged nodes get one set of columns.            |
//! | `last-column`  | drop columns nobody reads (ch. 2.5.2.2 opt. 1).                    |
//! | `root-gs`      | condition-free roots read via the global stack (opt. 2).          |
//! | `compaction`   | share exact columns between different tags (opt. 3, Alg. 1–2).    |
//! |                | After `last-column`/`root-gs` so only stored columns are packed.  |
//! | `naming`       | choose RTL identifiers. Always last, never skipped.               |
//!
//! Every stack pass but `naming` (the one whose `mandatory()` is true) can
//! be switched off by name (`--no-compaction`, `--no-prefix-merge`,
//! `--disable-pass NAME`).
//!
//! Both lists are `qrtl_core::pass::PassManager`s: [`xpath_passes`] (the
//! `xpath` pipeline) and [`stack_pass_manager`] (the `stacks` pipeline). The
//! manager verifies the IR after every pass and reports each pass.

use crate::ir::stacks::StackDesign;
use crate::ir::xpath::{Design, Mode};
use qrtl_core::pass::{Ir, PassManager};
use std::rc::Rc;

pub use qrtl_core::pass::Pass;

/// The pipeline of the XPath IR.
pub const XPATH_PIPELINE: &str = "xpath";
/// The pipeline of the stack IR.
pub const STACK_PIPELINE: &str = "stacks";

/// Options that select and configure passes.
#[derive(Clone, Copy, Debug, Default)]
pub struct PassConfig {
    pub mode: Mode,
}

impl Ir for Design {
    type Stats = ();
    fn verify(&self) -> Result<(), String> {
        Design::verify(self)
    }
    fn stats(&self) {}
}

/// Every pass on the XPath IR and its pipeline.
pub fn xpath_passes() -> PassManager<Design, PassConfig> {
    PassManager::new()
        .pass(super::split_twigs::SplitTwigs)
        // The only pass so far; it must stay first: passes after it see
        // only the split parts.
        .pipeline(XPATH_PIPELINE, &["split-twigs"])
}

/// All passes on the XPath IR, in pipeline order.
pub fn passes() -> Vec<Rc<dyn Pass<Design, PassConfig>>> {
    xpath_passes()
        .pipeline_passes(XPATH_PIPELINE)
        .expect("the xpath pipeline")
}

/// Run every pass in order, verifying the IR after each (a broken
/// invariant is a compiler bug: it panics).
pub fn run_pipeline(design: Design, config: &PassConfig) -> Design {
    match xpath_passes().run_all(XPATH_PIPELINE, design, config) {
        Ok((design, _)) => design,
        Err(e) => panic!("{e}"),
    }
}

/// Options of the stack-IR passes.
#[derive(Clone, Debug)]
pub struct StackPassConfig {
    /// Queries per cluster; 0 puts every query in one cluster.
    pub cluster_size: usize,
    /// Names of passes to skip (mandatory passes, i.e. `naming`, cannot be
    /// skipped).
    pub disabled: Vec<String>,
}

impl Default for StackPassConfig {
    fn default() -> Self {
        StackPassConfig {
            cluster_size: 256,
            disabled: Vec::new(),
        }
    }
}

/// Every pass on the stack IR and its pipeline.
pub fn stack_pass_manager() -> PassManager<StackDesign, StackPassConfig> {
    PassManager::new()
        .pass(super::cluster::ClusterQueries)
        .pass(super::prefix_merge::PrefixMerge)
        .pass(super::last_column::LastColumn)
        .pass(super::root_gs::RootViaGlobalStack)
        .pass(super::compaction::Compaction)
        .pass(super::naming::Naming)
        .pipeline(
            STACK_PIPELINE,
            &[
                // First: the other passes work inside a cluster.
                "cluster",
                // Before the column passes, so merged nodes get one set of
                // columns.
                "prefix-merge",
                "last-column",
                "root-gs",
                // After last-column and root-gs: only stored columns are
                // packed.
                "compaction",
                // Mandatory and last: names the final nodes and columns.
                "naming",
            ],
        )
}

/// All stack-IR passes, in pipeline order.
pub fn stack_passes() -> Vec<Rc<dyn Pass<StackDesign, StackPassConfig>>> {
    stack_pass_manager()
        .pipeline_passes(STACK_PIPELINE)
        .expect("the stacks pipeline")
}

/// The stack passes a user may disable (the non-mandatory ones), in
/// pipeline order.
pub fn optional_stack_pass_names() -> Vec<&'static str> {
    stack_pass_manager().optional_names(STACK_PIPELINE)
}

/// Size of a stack design, reported before and after each pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackStats {
    pub clusters: usize,
    pub nodes: usize,
    pub columns: usize,
    pub gs_bits: usize,
    /// Pop nodes (twigs, `text()`) and their report columns.
    pub pops: usize,
    pub pop_columns: usize,
}

impl StackStats {
    pub fn of(d: &StackDesign) -> StackStats {
        StackStats {
            clusters: d.clusters.len(),
            nodes: d.node_count(),
            columns: d.column_count(),
            gs_bits: d.gs_bit_count(),
            pops: d.pop_count(),
            pop_columns: d.pop_column_count(),
        }
    }
}

impl Ir for StackDesign {
    type Stats = StackStats;
    fn verify(&self) -> Result<(), String> {
        StackDesign::verify(self)
    }
    fn stats(&self) -> StackStats {
        StackStats::of(self)
    }
}

/// One row of `--stats`: a pass and the design size after it.
pub type PassReport = qrtl_core::pass::PassReport<StackStats>;

/// Names in `config.disabled` that are not passes one may disable (unknown
/// or mandatory), for a usage error.
pub fn unknown_stack_passes(config: &StackPassConfig) -> Vec<String> {
    stack_pass_manager().refused(STACK_PIPELINE, &config.disabled)
}

/// Run the stack passes in order (skipping disabled ones), verifying the IR
/// after each; returns the design and one report per pass. Disabling an
/// unknown or mandatory pass is an error.
pub fn run_stack_pipeline(
    design: StackDesign,
    config: &StackPassConfig,
) -> Result<(StackDesign, Vec<PassReport>), String> {
    stack_pass_manager()
        .run(STACK_PIPELINE, design, config, &config.disabled)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_is_the_one_mandatory_stack_pass() {
        let all: Vec<&str> = stack_passes().iter().map(|p| p.name()).collect();
        assert_eq!(
            all,
            [
                "cluster",
                "prefix-merge",
                "last-column",
                "root-gs",
                "compaction",
                "naming"
            ]
        );
        assert_eq!(optional_stack_pass_names(), all[..5]);
        let config = StackPassConfig {
            disabled: vec!["compaction".into(), "naming".into(), "bogus".into()],
            ..StackPassConfig::default()
        };
        assert_eq!(unknown_stack_passes(&config), ["naming", "bogus"]);
    }

    #[test]
    fn the_xpath_pipeline_is_split_twigs() {
        let names: Vec<&str> = passes().iter().map(|p| p.name()).collect();
        assert_eq!(names, ["split-twigs"]);
    }
}
