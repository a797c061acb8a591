//! Intermediate representations. Built by `lower`, rewritten by `passes`,
//! run by `refmodel` and (later) emitted by `emit`. Index arenas only: every
//! cross reference is a typed `u32` index, never a pointer.

pub mod print;
pub mod stacks;
pub mod value;
pub mod xpath;
