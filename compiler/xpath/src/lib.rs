//! qrtl's XPath filtering engine (SPEC §3, dissertation ch. 2–3), one stage
//! per module: `syntax` (queries → AST) → `lower` (AST → XPath IR → stack
//! IR) → `passes` → `emit` (Verilog), with `refmodel` running the same IR in
//! software and `xml` the tokenizer the hardware SAX parser twins.
//! See `ARCHITECTURE.md` at the repository root.

pub mod emit;
pub mod engine;
pub mod ir;
pub mod lower;
pub mod passes;
pub mod refmodel;
pub mod syntax;
pub mod workload;
pub mod xml;
