//! qrtl's Golomb-Rice engine (SPEC §5, dissertation ch. 5): `refmodel` is
//! the codec (the decoder hardware's reference model), `emit` the no-stall
//! decoder generator, `hw` its project and simulation.
//! See `ARCHITECTURE.md` at the repository root.

pub mod emit;
pub mod engine;
pub mod input;
pub mod refmodel;
