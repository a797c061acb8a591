//! `declare namespace PREFIX = "URI";` lines of a query file (SPEC §3.1:
//! prefixes bound in the query file). The form is XQuery's prolog
//! declaration; the `;` is optional. A declaration takes no query id and
//! binds its prefix for the whole file; what the binding means (reserved
//! prefixes, clashes with `--ns`) is decided when lowering.

use super::error::{SyntaxError, XPathErrorKind as K};
use super::lexer::{keyword, ncname, string_lit, ws};
use nom::IResult;
use qrtl_core::diag::Span;

/// A parsed declaration; spans are byte offsets into the trimmed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedDecl {
    pub prefix: String,
    pub prefix_span: Span,
    pub uri: String,
    /// The URI literal, quotes included.
    pub uri_span: Span,
}

/// Whether a trimmed query-file line is a declaration (queries start with
/// `/`, so the word `declare` cannot begin one).
pub fn is_declaration(line: &str) -> bool {
    keyword("declare")(line).is_ok()
}

/// Parse a trimmed line that [`is_declaration`].
pub fn parse_declaration(src: &str) -> Result<ParsedDecl, SyntaxError> {
    let at = |rest: &str| src.len() - rest.len();
    let rest = skip(keyword("declare"), src).expect("is_declaration");
    let rest = skip_ws1(rest).unwrap_or(rest);
    let Some(rest) = skip(keyword("namespace"), rest) else {
        return Err(expected(src, at(rest), "`namespace` after `declare`"));
    };
    let Some(rest) = skip_ws1(rest) else {
        return Err(expected(
            src,
            at(rest),
            "a prefix after `declare namespace`",
        ));
    };
    let Ok((after, prefix)) = ncname(rest) else {
        return Err(expected(src, at(rest), "a prefix (a name without `:`)"));
    };
    let prefix_span = Span::new(at(rest), at(after));
    let rest = skip(ws, after).unwrap_or(after);
    let Some(rest) = rest.strip_prefix('=') else {
        return Err(expected(src, at(rest), "`=` after the prefix"));
    };
    let rest = skip(ws, rest).unwrap_or(rest);
    let Ok((after, uri)) = string_lit(rest) else {
        if rest.starts_with(['"', '\'']) {
            return Err(SyntaxError::new(
                K::BadNamespaceDeclaration,
                Span::new(at(rest), src.len()),
                "the namespace URI's quote is not closed".to_string(),
            )
            .help(r#"a namespace declaration reads `declare namespace p = "urn:example";`"#));
        }
        return Err(expected(src, at(rest), "the namespace URI in quotes"));
    };
    let uri_span = Span::new(at(rest), at(after));
    let mut rest = skip(ws, after).unwrap_or(after);
    if let Some(r) = rest.strip_prefix(';') {
        rest = skip(ws, r).unwrap_or(r);
    }
    if !rest.is_empty() {
        return Err(expected(src, at(rest), "the end of the declaration"));
    }
    Ok(ParsedDecl {
        prefix: prefix.to_string(),
        prefix_span,
        uri: uri.to_string(),
        uri_span,
    })
}

fn skip<'a>(
    mut p: impl FnMut(&'a str) -> IResult<&'a str, &'a str>,
    i: &'a str,
) -> Option<&'a str> {
    p(i).ok().map(|(rest, _)| rest)
}

/// At least one whitespace character skipped.
fn skip_ws1(i: &str) -> Option<&str> {
    let rest = skip(ws, i)?;
    (rest.len() < i.len()).then_some(rest)
}

fn expected(src: &str, pos: usize, what: &str) -> SyntaxError {
    let end = src[pos..]
        .char_indices()
        .nth(1)
        .map_or(src.len(), |(k, _)| pos + k);
    let found = match src[pos..].chars().next() {
        None => "the end of the line".to_string(),
        Some(c) => format!("`{c}`"),
    };
    SyntaxError::new(
        K::BadNamespaceDeclaration,
        Span::new(pos, end.max(pos)),
        format!("expected {what}, found {found}"),
    )
    .help(r#"a namespace declaration reads `declare namespace p = "urn:example";`"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_parse_with_or_without_semicolon() {
        let d = parse_declaration(r#"declare namespace p = "urn:x";"#).unwrap();
        assert_eq!((d.prefix.as_str(), d.uri.as_str()), ("p", "urn:x"));
        assert_eq!(d.prefix_span, Span::new(18, 19));
        assert_eq!(d.uri_span, Span::new(22, 29));
        let d = parse_declaration("declare  namespace\tn1='http://a/b' ").unwrap();
        assert_eq!((d.prefix.as_str(), d.uri.as_str()), ("n1", "http://a/b"));
        assert!(is_declaration("declare namespace"));
        assert!(!is_declaration("declared"));
        assert!(!is_declaration("/declare"));
    }

    #[test]
    fn each_mistake_names_what_was_expected() {
        let msg = |s: &str| parse_declaration(s).unwrap_err();
        let e = msg("declare ns p = \"u\"");
        assert_eq!(
            (e.kind, e.span),
            (K::BadNamespaceDeclaration, Span::new(8, 9))
        );
        assert!(e.message.contains("`namespace`"), "{}", e.message);
        assert!(msg("declare namespace p:q = \"u\"").message.contains("`=`"));
        assert!(msg("declare namespace = \"u\"").message.contains("prefix"));
        assert!(msg("declare namespace p = u").message.contains("in quotes"));
        assert!(msg("declare namespace p = \"u")
            .message
            .contains("not closed"));
        let e = msg("declare namespace p = \"u\"; /a");
        assert_eq!(e.span, Span::new(27, 28));
        assert!(msg("declare").message.contains("the end of the line"));
    }
}
