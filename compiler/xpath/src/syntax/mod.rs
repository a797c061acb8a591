//! XPath front end (SPEC §3.1): nom parser producing [`ast::Query`].
//!
//! - `lexer`: token-level nom parsers;
//! - `decl`: `declare namespace p = "uri";` lines of query files;
//! - `parser`: recursive descent over them, one [`SyntaxError`] per bad query;
//! - `error`: the error kinds and their stable codes (`E01xx`);
//! - `print`: `Display` for the syntax tree (canonical XPath text that
//!   parses back to the same tree).

pub mod ast;
mod decl;
mod error;
mod lexer;
pub use lexer::is_ncname;
mod parser;
mod print;

pub use parser::{
    parse_query, parse_query_file, NsDecl, QueryFile, SourceQuery, SyntaxError, XPathErrorKind,
    MAX_NESTING,
};
