//! Token-level nom parsers for the XPath front end.
//!
//! Every function here takes the rest of the query text and returns a nom
//! [`IResult`]; the recursive-descent [`Parser`](super::parser) runs them at
//! its cursor and turns a failure into a [`SyntaxError`](super::SyntaxError)
//! that says what was expected. Nothing here allocates or reports errors.

use super::ast::CmpOp;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while};
use nom::character::complete::{char, digit0, digit1, satisfy};
use nom::combinator::{not, opt, peek, recognize, value};
use nom::sequence::{delimited, pair, terminated, tuple};
use nom::IResult;

/// First character of an XML name: ASCII letter, `_`, or any non-ASCII
/// character that is not whitespace.
pub(super) fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || (!c.is_ascii() && !c.is_whitespace())
}

/// Later characters of an XML name: a start character, a digit, `-` or `.`.
pub(super) fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-' || c == '.'
}

/// Whitespace between tokens. XPath only has the four ASCII ones; other
/// Unicode whitespace (a pasted no-break space) is accepted the same way,
/// matching `str::trim` used when reading query files.
pub(super) fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

/// Characters that start no XPath 1.0 token at all.
pub(super) fn is_bad_char(c: char) -> bool {
    !(is_name_char(c)
        || is_ws(c)
        || matches!(
            c,
            '/' | '['
                | ']'
                | '('
                | ')'
                | '@'
                | '*'
                | ':'
                | '='
                | '!'
                | '<'
                | '>'
                | '|'
                | '+'
                | '$'
                | '"'
                | '\''
                | ','
        ))
}

/// Zero or more whitespace characters.
pub(super) fn ws(i: &str) -> IResult<&str, &str> {
    take_while(is_ws)(i)
}

/// An NCName (no colon).
pub(super) fn ncname(i: &str) -> IResult<&str, &str> {
    recognize(pair(satisfy(is_name_start), take_while(is_name_char)))(i)
}

/// Whether all of `s` is an NCName (a name without `:`).
pub fn is_ncname(s: &str) -> bool {
    matches!(ncname(s), Ok(("", _)))
}

/// A QName: `name` or `prefix:local`. The colon is taken only when a name
/// follows it, so `child::a` lexes as `child` then `::`.
pub(super) fn qname(i: &str) -> IResult<&str, &str> {
    recognize(pair(ncname, opt(pair(char(':'), ncname))))(i)
}

/// `prefix:*` (the name test the engine cannot express).
pub(super) fn prefix_wildcard(i: &str) -> IResult<&str, &str> {
    recognize(tuple((ncname, char(':'), char('*'))))(i)
}

/// `Digits ('.' Digits?)? | '.' Digits`, without sign or exponent.
pub(super) fn number(i: &str) -> IResult<&str, &str> {
    alt((
        recognize(pair(digit1, opt(pair(char('.'), digit0)))),
        recognize(pair(char('.'), digit1)),
    ))(i)
}

/// The value of a [`number`] token. Over-long digit strings become
/// infinity, as in XPath.
pub(super) fn number_value(text: &str) -> f64 {
    text.parse().unwrap_or(f64::INFINITY)
}

/// A closed string literal in either quote; returns the text between the
/// quotes (XPath 1.0 strings have no escapes).
pub(super) fn string_lit(i: &str) -> IResult<&str, &str> {
    alt((
        delimited(char('"'), take_till(|c| c == '"'), char('"')),
        delimited(char('\''), take_till(|c| c == '\''), char('\'')),
    ))(i)
}

/// A comparison operator.
pub(super) fn cmp_op(i: &str) -> IResult<&str, CmpOp> {
    alt((
        value(CmpOp::Ne, tag("!=")),
        value(CmpOp::Le, tag("<=")),
        value(CmpOp::Ge, tag(">=")),
        value(CmpOp::Eq, tag("=")),
        value(CmpOp::Lt, tag("<")),
        value(CmpOp::Gt, tag(">")),
    ))(i)
}

/// `//` or `/`, longest first. Returns the axis the separator stands for.
pub(super) fn axis_sep(i: &str) -> IResult<&str, super::ast::Axis> {
    use super::ast::Axis;
    alt((
        value(Axis::Descendant, tag("//")),
        value(Axis::Child, tag("/")),
    ))(i)
}

/// An operator keyword (`and`, `or`, `div`, `mod`): the word not followed
/// by a name character. Only meaningful in operator position; elsewhere
/// the same word is an element name.
pub(super) fn keyword(kw: &'static str) -> impl FnMut(&str) -> IResult<&str, &str> {
    move |i| terminated(tag(kw), not(peek(satisfy(is_name_char))))(i)
}

/// `(` then `)` with optional whitespace: the empty argument list of
/// `text()`, `position()`, `node()`, ...
pub(super) fn empty_args(i: &str) -> IResult<&str, &str> {
    recognize(tuple((char('('), ws, char(')'))))(i)
}

/// Whitespace then `(`: what makes a name a function call or node type.
pub(super) fn open_paren(i: &str) -> IResult<&str, &str> {
    recognize(pair(ws, char('(')))(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qname_stops_before_axis_separator() {
        assert_eq!(qname("child::a"), Ok(("::a", "child")));
        assert_eq!(qname("a:b/c"), Ok(("/c", "a:b")));
        assert_eq!(qname("a:*"), Ok((":*", "a")));
        assert_eq!(qname("body.content["), Ok(("[", "body.content")));
        assert_eq!(qname("é-1 "), Ok((" ", "é-1")));
        assert!(qname("1a").is_err());
        assert!(qname("-a").is_err());
    }

    #[test]
    fn numbers() {
        assert_eq!(number("12]"), Ok(("]", "12")));
        assert_eq!(number("5.]"), Ok(("]", "5.")));
        assert_eq!(number(".5]"), Ok(("]", ".5")));
        assert_eq!(number("1.25.3"), Ok((".3", "1.25")));
        assert!(number(".]").is_err());
        assert_eq!(number_value("5."), 5.0);
        assert_eq!(number_value(".5"), 0.5);
        assert_eq!(number_value(&"9".repeat(400)), f64::INFINITY);
    }

    #[test]
    fn keywords_need_a_word_boundary() {
        assert!(keyword("and")("and b").is_ok());
        assert!(keyword("and")("and(").is_ok());
        assert!(keyword("and")("and").is_ok());
        assert!(keyword("and")("andb").is_err());
        assert!(keyword("and")("and-x").is_err());
        assert!(keyword("and")("and.x").is_err());
    }

    #[test]
    fn operators_take_the_longest_match() {
        assert_eq!(cmp_op("<=1"), Ok(("1", CmpOp::Le)));
        assert_eq!(cmp_op("<1"), Ok(("1", CmpOp::Lt)));
        assert_eq!(cmp_op("!=1"), Ok(("1", CmpOp::Ne)));
        assert!(cmp_op("!1").is_err());
    }

    #[test]
    fn strings() {
        assert_eq!(string_lit("\"a'b\"]"), Ok(("]", "a'b")));
        assert_eq!(string_lit("'a\"b']"), Ok(("]", "a\"b")));
        assert_eq!(string_lit("''"), Ok(("", "")));
        assert!(string_lit("\"abc").is_err());
    }
}
