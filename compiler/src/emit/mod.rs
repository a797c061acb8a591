//! Emitters: IR → text (Verilog from `rtl-templates/`, manifests).
//! Emitters see only IR, never syntax trees.

pub mod verilog;
