//! Intermediate representations. Built by `lower`, rewritten by `passes`,
//! run by `refmodel` and emitted by `emit`. Index arenas only: every cross
//! reference is a typed `u32` index, never a pointer.

/// A typed `u32` index into one arena.
macro_rules! id_type {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

pub mod print;
pub mod stacks;
pub mod track;
pub mod value;
pub mod xpath;
