//! Index arenas: every cross reference of an IR is a typed `u32` index into
//! one arena (a `Vec`), never a pointer.

/// Declare a typed `u32` index into one arena:
/// `qrtl_core::id_type!(/// doc; NodeId);`.
#[macro_export]
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
