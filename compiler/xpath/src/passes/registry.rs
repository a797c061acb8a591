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
//! Every stack pass but `naming` can be switched off by name
//! (`--no-compaction`, `--no-prefix-merge`, `--disable-pass NAME`).

use crate::ir::stacks::StackDesign;
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

/// All passes on the XPath IR, in pipeline order.
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

/// Options of the stack-IR passes.
#[derive(Clone, Debug)]
pub struct StackPassConfig {
    /// Queries per cluster; 0 puts every query in one cluster.
    pub cluster_size: usize,
    /// Names of passes to skip (`naming` cannot be skipped).
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

/// A pass over the stack IR.
pub trait StackPass {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    fn run(&self, design: StackDesign, config: &StackPassConfig) -> StackDesign;
}

/// All stack-IR passes, in pipeline order.
pub fn stack_passes() -> Vec<Box<dyn StackPass>> {
    vec![
        Box::new(super::cluster::ClusterQueries),
        Box::new(super::prefix_merge::PrefixMerge),
        Box::new(super::last_column::LastColumn),
        Box::new(super::root_gs::RootViaGlobalStack),
        Box::new(super::compaction::Compaction),
        Box::new(super::naming::Naming),
    ]
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

/// One row of `--stats`: a pass and the design size after it.
#[derive(Clone, Debug)]
pub struct PassReport {
    pub pass: &'static str,
    pub ran: bool,
    pub after: StackStats,
}

/// Unknown names in `config.disabled`, for a usage error.
pub fn unknown_stack_passes(config: &StackPassConfig) -> Vec<String> {
    let names: Vec<&str> = stack_passes().iter().map(|p| p.name()).collect();
    config
        .disabled
        .iter()
        .filter(|d| !names.contains(&d.as_str()) || d.as_str() == "naming")
        .cloned()
        .collect()
}

/// Run the stack passes in order (skipping disabled ones), verifying the IR
/// after each; returns the design and one report per pass.
pub fn run_stack_pipeline(
    mut design: StackDesign,
    config: &StackPassConfig,
) -> Result<(StackDesign, Vec<PassReport>), String> {
    let mut reports = Vec::new();
    for pass in stack_passes() {
        let ran = pass.name() == "naming" || !config.disabled.iter().any(|d| d == pass.name());
        if ran {
            design = pass.run(design, config);
            design
                .verify()
                .map_err(|e| format!("internal error after pass {}: {e}", pass.name()))?;
        }
        reports.push(PassReport {
            pass: pass.name(),
            ran,
            after: StackStats::of(&design),
        });
    }
    Ok((design, reports))
}
