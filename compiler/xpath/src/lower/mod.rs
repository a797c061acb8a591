//! Lowering: syntax trees → IR. The only code that sees both.

pub mod stacks;
pub mod xpath;
