//! Lowering: syntax trees → IR. The only code that sees both.

pub mod generic;
pub mod names;
pub mod stacks;
pub mod xpath;
