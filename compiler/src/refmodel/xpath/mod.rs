//! The software XPath filtering engine (reference model and product).

mod engine;
mod program;
#[cfg(test)]
mod tests;

pub use engine::{DocResult, Engine, EngineConfig, EngineStats};
