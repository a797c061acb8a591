//! Optimisation passes; `registry.rs` is the one list of them.

pub mod cluster;
pub mod compaction;
pub mod last_column;
pub mod naming;
pub mod prefix_merge;
pub mod registry;
pub mod root_gs;
pub mod split_twigs;

pub use registry::{
    optional_stack_pass_names, passes, run_pipeline, run_stack_pipeline, stack_passes, Pass,
    PassConfig, StackPassConfig,
};
