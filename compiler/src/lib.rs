//! qrtl compiler: query front ends → IR → passes → emitters, plus the
//! software reference models the RTL is checked against.
//! See `compiler/ARCHITECTURE.md` for the code map and invariants.

pub mod cli;
pub mod diag;
pub mod driver;
pub mod driver_rice;
pub mod emit;
pub mod frontend;
pub mod ir;
pub mod lower;
pub mod passes;
pub mod project;
pub mod refmodel;
pub mod sim;
pub mod synth;
pub mod track;
pub mod workload;
pub mod xml;
