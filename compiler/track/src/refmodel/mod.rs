//! FlexTrack reference models.
//!
//! * [`exact`]: the SPEC §4.2 answer, run on the [`TrackDesign`] (the
//!   patterns), checked in `tests/track_engine.rs` against a brute-force
//!   matcher that shares no code with it.
//! * [`hw`]: what the hardware of one variable strategy reports, run on the
//!   [`EngineSet`] the RTL is emitted from, node by node and event by event;
//!   the RTL is checked against it in Verilator.
//!
//! [`TrackDesign`]: crate::ir::TrackDesign
//! [`EngineSet`]: crate::ir::EngineSet

pub mod exact;
pub mod hw;

pub use crate::input::Event;
