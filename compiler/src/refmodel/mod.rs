//! Reference models: run the IR in software. They are the oracles the RTL
//! is checked against, and are themselves checked against independent
//! implementations (see `tests/`).

pub mod rice;
pub mod stacks;
pub mod track;
pub mod xpath;
