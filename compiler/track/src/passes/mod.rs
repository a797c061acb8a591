//! FlexTrack's optimisation passes over the [`EngineSet`](crate::ir::EngineSet);
//! `registry.rs` is the one list of them and names the pipeline.

pub mod cluster;
pub mod prefix_share;
pub mod registry;

#[cfg(test)]
mod tests;

pub use registry::{engine_passes, run_engine_pipeline, EngineStats, ENGINE_PIPELINE};
