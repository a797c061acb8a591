//! XPath syntax errors: one kind per problem, each with a stable code.

use qrtl_core::diag::{Diagnostic, Span};
use std::fmt;

/// What went wrong in a query. Codes are stable (`E01xx`); tests and users
/// may depend on them, so new kinds get new codes and old codes are never
/// reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum XPathErrorKind {
    /// `a/b`, `./a`, `*`: the query does not start with `/` or `//`.
    RelativeQuery,
    /// Nothing but whitespace (only from [`parse_query`](super::parse_query);
    /// query files skip blank lines).
    EmptyQuery,
    /// `/a/`, `/a//`, `/`, `//`: a separator with no step after it.
    TrailingSlash,
    /// Something other than a name or `*` where a step must be (`/[x]`,
    /// `/1`, `/ /a`, `///a`).
    ExpectedStep,
    /// `child::a`, `descendant::a`, `ancestor::a`, ...: explicit axes.
    UnsupportedAxis,
    /// `..`
    ParentStep,
    /// `.` as a step (`/a/.`, `[a/.]`, `[.]`).
    SelfStep,
    /// `/a/@b`: an attribute as a location step.
    AttributeStep,
    /// `/a/text()`: a text node as a location step.
    TextStep,
    /// `node()`, `comment()`, `processing-instruction()`.
    NodeTypeTest,
    /// `|`
    Union,
    /// `or`
    Or,
    /// `not(...)`
    Not,
    /// Any other function call: `contains(`, `last()`, `count(`, ...
    FunctionCall,
    /// A path (or `.`) compared to a value: `[b = "x"]`, `[. = "x"]`.
    PathComparison,
    /// `+`, `-`, `*`, `div`, `mod` as operators, unary minus.
    Arithmetic,
    /// `$x`
    Variable,
    /// `@*`, `@p:*`
    AttributeWildcard,
    /// `p:*` (no longer produced: `p:*` is supported since namespaces; a
    /// design with `--namespaces raw` rejects it when lowering).
    PrefixWildcard,
    /// `[2 and @x]`: a number among `and`-joined conditions.
    NumberInAnd,
    /// `position() = "2"`
    PositionComparedToString,
    /// `[position()]`, `position() = @x`: position not compared to a number.
    BadPositionComparison,
    /// `[]`
    EmptyPredicate,
    /// `[` with no matching `]`.
    UnclosedPredicate,
    /// `(` with no matching `)`.
    UnclosedParen,
    /// `]` or `)` with nothing to close.
    UnmatchedClose,
    /// `"abc` with no closing quote.
    UnterminatedString,
    /// A character that starts no XPath token (`#`, `%`, `&`, `{`, ...).
    BadCharacter,
    /// `[a and ]`, `[()]`: a condition is missing.
    ExpectedCondition,
    /// `[@a = ]`, `[@a = b]`: the right-hand side of a comparison is not a
    /// quoted string or a number.
    ExpectedLiteral,
    /// `[@]`, `[@1]`: no attribute name after `@`.
    ExpectedAttributeName,
    /// `["x"]`, `[1 = 1]`: a predicate made only of literals.
    LiteralPredicate,
    /// `[/a]`, `[//a]`: an absolute path inside a predicate.
    AbsolutePathInPredicate,
    /// More than [`MAX_NESTING`](super::parser::MAX_NESTING) nested `[`/`(`.
    NestingTooDeep,
    /// Any other token in the wrong place (`/a b`, `[a b]`, `[@a=1=2]`).
    UnexpectedToken,
    /// A `declare namespace p = "uri";` line of a query file that does not
    /// follow that form.
    BadNamespaceDeclaration,
}

impl XPathErrorKind {
    /// Every kind, in code order.
    pub const ALL: &'static [XPathErrorKind] = &[
        XPathErrorKind::RelativeQuery,
        XPathErrorKind::EmptyQuery,
        XPathErrorKind::TrailingSlash,
        XPathErrorKind::ExpectedStep,
        XPathErrorKind::UnsupportedAxis,
        XPathErrorKind::ParentStep,
        XPathErrorKind::SelfStep,
        XPathErrorKind::AttributeStep,
        XPathErrorKind::TextStep,
        XPathErrorKind::NodeTypeTest,
        XPathErrorKind::Union,
        XPathErrorKind::Or,
        XPathErrorKind::Not,
        XPathErrorKind::FunctionCall,
        XPathErrorKind::PathComparison,
        XPathErrorKind::Arithmetic,
        XPathErrorKind::Variable,
        XPathErrorKind::AttributeWildcard,
        XPathErrorKind::PrefixWildcard,
        XPathErrorKind::NumberInAnd,
        XPathErrorKind::PositionComparedToString,
        XPathErrorKind::BadPositionComparison,
        XPathErrorKind::EmptyPredicate,
        XPathErrorKind::UnclosedPredicate,
        XPathErrorKind::UnclosedParen,
        XPathErrorKind::UnmatchedClose,
        XPathErrorKind::UnterminatedString,
        XPathErrorKind::BadCharacter,
        XPathErrorKind::ExpectedCondition,
        XPathErrorKind::ExpectedLiteral,
        XPathErrorKind::ExpectedAttributeName,
        XPathErrorKind::LiteralPredicate,
        XPathErrorKind::AbsolutePathInPredicate,
        XPathErrorKind::NestingTooDeep,
        XPathErrorKind::UnexpectedToken,
        XPathErrorKind::BadNamespaceDeclaration,
    ];

    /// The stable diagnostic code.
    pub fn code(self) -> &'static str {
        use XPathErrorKind::*;
        match self {
            RelativeQuery => "E0101",
            EmptyQuery => "E0102",
            TrailingSlash => "E0103",
            ExpectedStep => "E0104",
            UnsupportedAxis => "E0105",
            ParentStep => "E0106",
            SelfStep => "E0107",
            AttributeStep => "E0108",
            TextStep => "E0109",
            NodeTypeTest => "E0110",
            Union => "E0111",
            Or => "E0112",
            Not => "E0113",
            FunctionCall => "E0114",
            PathComparison => "E0115",
            Arithmetic => "E0116",
            Variable => "E0117",
            AttributeWildcard => "E0118",
            PrefixWildcard => "E0119",
            NumberInAnd => "E0120",
            PositionComparedToString => "E0121",
            BadPositionComparison => "E0122",
            EmptyPredicate => "E0123",
            UnclosedPredicate => "E0124",
            UnclosedParen => "E0125",
            UnmatchedClose => "E0126",
            UnterminatedString => "E0127",
            BadCharacter => "E0128",
            ExpectedCondition => "E0129",
            ExpectedLiteral => "E0130",
            ExpectedAttributeName => "E0131",
            LiteralPredicate => "E0132",
            AbsolutePathInPredicate => "E0133",
            NestingTooDeep => "E0134",
            UnexpectedToken => "E0135",
            BadNamespaceDeclaration => "E0136",
        }
    }
}

/// One syntax error in one query.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub kind: XPathErrorKind,
    /// Byte range within the query text that was parsed.
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl SyntaxError {
    pub(super) fn new(kind: XPathErrorKind, span: Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            kind,
            span,
            message: message.into(),
            help: None,
        }
    }

    pub(super) fn help(mut self, help: impl Into<String>) -> SyntaxError {
        self.help = Some(help.into());
        self
    }

    /// A diagnostic for this error in `file` at 1-based `line`, whose full
    /// text is `line_text`; the query text began `offset_in_line` bytes
    /// into the line (the leading whitespace that was trimmed).
    pub fn to_diagnostic(
        &self,
        file: &str,
        line: usize,
        line_text: &str,
        offset_in_line: usize,
    ) -> Diagnostic {
        Diagnostic {
            code: self.kind.code(),
            message: self.message.clone(),
            help: self.help.clone(),
            file: file.to_string(),
            line,
            source_line: line_text.to_string(),
            span: Span::new(
                self.span.start + offset_in_line,
                self.span.end + offset_in_line,
            ),
        }
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error[{}] at byte {}: {}",
            self.kind.code(),
            self.span.start,
            self.message
        )
    }
}

impl std::error::Error for SyntaxError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_and_cover_every_kind() {
        let codes: HashSet<_> = XPathErrorKind::ALL.iter().map(|k| k.code()).collect();
        assert_eq!(codes.len(), XPathErrorKind::ALL.len());
        assert!(codes.iter().all(|c| c.starts_with("E01") && c.len() == 5));
    }
}
