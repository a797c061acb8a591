//! IR → IR passes, one per file; `registry` lists them.

pub mod registry;
pub mod split_twigs;

pub use registry::{run_pipeline, PassConfig};
