//! Reference models of the XPath engine: the software filtering engine
//! (the product's `filter`, checked against `sxd-xpath`, libxml2's answers
//! and `quick-xml`), `stacks`, which runs the stack IR column by column
//! as the RTL does, and `generic`, which runs a programmable design's
//! configuration slot by slot.

mod engine;
pub mod generic;
mod lists;
mod parts;
mod program;
mod rows;
pub mod stacks;
#[cfg(test)]
mod tests;

pub use engine::{DocResult, Engine, EngineConfig, EngineStats};
