//! qrtl's FlexTrack motion-pattern engine (SPEC §4, dissertation ch. 4), one
//! stage per module: `syntax` (patterns → AST), `input` (trajectories, region
//! maps, events) → `lower` (AST → `TrackDesign` → `EngineSet`) → `emit`
//! (Verilog), with `refmodel` running the same IR in software.
//! See `ARCHITECTURE.md` at the repository root.

pub mod emit;
pub mod engine;
pub mod input;
pub mod ir;
pub mod lower;
pub mod passes;
pub mod refmodel;
pub mod syntax;
