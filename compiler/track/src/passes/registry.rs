//! The one list of FlexTrack passes and the order they run in.
//!
//! `lower::build_engines` lowers a `TrackDesign` naively into an
//! [`EngineSet`]: a fresh chain of nodes per pattern (per expansion for
//! `--variables expand`), in pattern order, all in one cluster. Then the
//! `engines` pipeline:
//!
//! | pass           | what it does                                              |
//! |----------------|-----------------------------------------------------------|
//! | `cluster`      | patterns → clusters of about `cluster_size` nodes (ch.     |
//! |                | 4.5.3), each with its own decoder. First: it needs the     |
//! |                | nodes grouped by pattern, and sharing is per cluster.      |
//! | `prefix-share` | hash-cons variable-free nodes inside each cluster: equal   |
//! |                | test, window, start and predecessors = one flip-flop       |
//! |                | (common prefixes within and across patterns).              |
//!
//! The cluster pass counts a cluster's nodes as `prefix-share` will leave
//! them, so the two together give the clusters and node order (and thus
//! the RTL names) the single-pass lowering gave.

use super::cluster::Cluster;
use super::prefix_share::PrefixShare;
use crate::ir::EngineSet;
use crate::lower::EngineConfig;
use qrtl_core::pass::{Ir, PassManager};

/// The pipeline `build_engines` runs.
pub const ENGINE_PIPELINE: &str = "engines";

/// Size of an engine set, reported after each pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineStats {
    pub clusters: usize,
    pub nodes: usize,
    pub slots: usize,
}

impl Ir for EngineSet {
    type Stats = EngineStats;
    fn verify(&self) -> Result<(), String> {
        EngineSet::verify(self)
    }
    fn stats(&self) -> EngineStats {
        EngineStats {
            clusters: self.clusters.len(),
            nodes: self.nodes.len(),
            slots: self.slots.len(),
        }
    }
}

/// Every FlexTrack pass and the `engines` pipeline.
pub fn engine_passes() -> PassManager<EngineSet, EngineConfig> {
    PassManager::new().pass(Cluster).pass(PrefixShare).pipeline(
        ENGINE_PIPELINE,
        &[
            // First: splits the pattern-ordered naive chains into
            // contiguous clusters.
            "cluster",
            // Per cluster (a cluster's decoder feeds only its nodes), so
            // after `cluster`.
            "prefix-share",
        ],
    )
}

/// Run the `engines` pipeline on a naive engine set, verifying it after
/// each pass (a broken invariant is a compiler bug: it panics).
pub fn run_engine_pipeline(set: EngineSet, cfg: &EngineConfig) -> EngineSet {
    match engine_passes().run_all(ENGINE_PIPELINE, set, cfg) {
        Ok((set, _)) => set,
        Err(e) => panic!("{e}"),
    }
}
