//! The software XPath filtering engine (reference model and product).

mod engine;
mod program;

pub use engine::{DocResult, Engine, EngineConfig, EngineStats};
