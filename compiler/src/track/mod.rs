//! FlexTrack (SPEC §4) command handlers: `qrtl track check|filter|compile|sim`.
//! The stages live in their own modules (`frontend::flextrack`, `ir::track`,
//! `lower::track`, `refmodel::track`, `emit::verilog::track`); this module
//! only reads files, strings the stages together and prints.

pub mod cli;
pub mod flow;
pub mod hw;
pub mod input;
