//! qrtl's core: everything the engines share and nothing that belongs to
//! one of them. Diagnostics with spans, typed arena indexes, the pass
//! manager, the generated project, the simulation harness and the
//! synthesis flow.
//! Cargo enforces the direction: this crate depends on no engine.
//! See `ARCHITECTURE.md` at the repository root.

pub mod arena;
pub mod design;
pub mod diag;
pub mod engine;
pub mod pass;
pub mod project;
pub mod sim;
pub mod synth;
