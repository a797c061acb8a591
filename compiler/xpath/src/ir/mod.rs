//! Intermediate representations of the XPath engine. Built by `lower`,
//! rewritten by `passes`, run by `refmodel` and emitted by `emit`. Index
//! arenas only (`qrtl_core::id_type!`): every cross reference is a typed
//! `u32` index, never a pointer.

pub mod config_words;
pub mod generic;
pub mod print;
pub mod stacks;
pub mod tag_hash;
pub mod value;
pub mod xpath;
