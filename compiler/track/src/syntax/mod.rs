//! FlexTrack front end (SPEC §4.1): nom parser producing [`ast::Pattern`].
//!
//! - `parser`: token parsers (nom) and a cursor-driven parser, one
//!   [`SyntaxError`] per bad pattern;
//! - `error`: error kinds and their stable codes (`E06xx`);
//! - `ast`: the syntax tree and its canonical printer.

pub mod ast;
mod error;
mod parser;

pub use error::{SyntaxError, TrackErrorKind};
pub use parser::{parse_pattern, parse_pattern_file, SourcePattern};
