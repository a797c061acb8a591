//! XPath front end (SPEC §3.1): nom parser producing [`ast::Query`].

pub mod ast;
mod parser;

pub use parser::{parse_query, parse_query_file, SourceQuery, SyntaxError, XPathErrorKind};
