//! FlexTrack syntax errors: one kind per problem, each with a stable code
//! (`E06xx`; new kinds get new codes, old codes are never reused).

use qrtl_core::diag::{Diagnostic, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrackErrorKind {
    /// Nothing but whitespace (only from `parse_pattern`; files skip blank lines).
    EmptyPattern,
    /// `A..B`, `.A`, `A.`: no item where one must be.
    ExpectedItem,
    /// `!`, `[inside, ]`, `{@x: }`: no region name where one must be.
    ExpectedRegion,
    /// `@`, `@1`: no variable name after `@`.
    ExpectedVariableName,
    /// `!@x`, `!?`, `![...]`: only a fixed region can be negated.
    NegatedNonRegion,
    /// `[near, A]`: the operator is not `inside` or `overlap`.
    UnknownOp,
    /// `[inside, A, x]`, `(1:)`: a time is missing or not a number.
    ExpectedTime,
    /// `(9:3)`: a window whose start is after its end.
    EmptyWindow,
    /// A time above 2^32-1 (timestamps are 32-bit).
    TimeTooLarge,
    /// `[inside, A` with no `]`.
    UnclosedBracket,
    /// `{@x: A` with no `}`.
    UnclosedBrace,
    /// `(1:2` with no `)`.
    UnclosedParen,
    /// A character that starts no token (`#`, `%`, `;`, ...).
    BadCharacter,
    /// Any other token in the wrong place (`A B`, `[inside A]`).
    UnexpectedToken,
    /// `{@y: A}` where the pattern has no `@y`.
    ConstraintOnUnknownVariable,
    /// `{@x: A} {@x: B}`.
    DuplicateConstraint,
    /// `{x: A}`: a constraint names a variable, with its `@`.
    ConstraintNeedsVariable,
    /// `A {@x: B} . C`: items after the constraints.
    ItemAfterConstraint,
}

impl TrackErrorKind {
    /// Every kind, in code order.
    pub const ALL: &'static [TrackErrorKind] = &[
        TrackErrorKind::EmptyPattern,
        TrackErrorKind::ExpectedItem,
        TrackErrorKind::ExpectedRegion,
        TrackErrorKind::ExpectedVariableName,
        TrackErrorKind::NegatedNonRegion,
        TrackErrorKind::UnknownOp,
        TrackErrorKind::ExpectedTime,
        TrackErrorKind::EmptyWindow,
        TrackErrorKind::TimeTooLarge,
        TrackErrorKind::UnclosedBracket,
        TrackErrorKind::UnclosedBrace,
        TrackErrorKind::UnclosedParen,
        TrackErrorKind::BadCharacter,
        TrackErrorKind::UnexpectedToken,
        TrackErrorKind::ConstraintOnUnknownVariable,
        TrackErrorKind::DuplicateConstraint,
        TrackErrorKind::ConstraintNeedsVariable,
        TrackErrorKind::ItemAfterConstraint,
    ];

    /// The stable diagnostic code.
    pub fn code(self) -> &'static str {
        use TrackErrorKind::*;
        match self {
            EmptyPattern => "E0601",
            ExpectedItem => "E0602",
            ExpectedRegion => "E0603",
            ExpectedVariableName => "E0604",
            NegatedNonRegion => "E0605",
            UnknownOp => "E0606",
            ExpectedTime => "E0607",
            EmptyWindow => "E0608",
            TimeTooLarge => "E0609",
            UnclosedBracket => "E0610",
            UnclosedBrace => "E0611",
            UnclosedParen => "E0612",
            BadCharacter => "E0613",
            UnexpectedToken => "E0614",
            ConstraintOnUnknownVariable => "E0615",
            DuplicateConstraint => "E0616",
            ConstraintNeedsVariable => "E0617",
            ItemAfterConstraint => "E0618",
        }
    }

    /// A fixed hint for the kind, if it has one.
    pub fn help(self) -> Option<&'static str> {
        use TrackErrorKind::*;
        Some(match self {
            EmptyPattern => "write items separated by `.`, e.g. `A.?+.@x {@x: B, C}`",
            ExpectedItem => "an item is a region, `@var`, `?`, `?+`, `?*`, `!region` or `[op, region|@var, time]`",
            ExpectedRegion => "region names are identifiers of the region map (letters, digits, `_`)",
            ExpectedVariableName => "variables are `@` followed by an identifier, e.g. `@x`",
            NegatedNonRegion => "`!` takes a fixed region (`!A`); `!@x` and `!?` are not in the language",
            UnknownOp => "the operators are `inside` and `overlap`",
            ExpectedTime => "a time is a timestamp `T` or a window `(T1:T2)` of unsigned integers",
            EmptyWindow => "write the window as (start:end) with start <= end",
            TimeTooLarge => "timestamps are 32-bit unsigned integers",
            UnclosedBracket => "close the predicate with `]`",
            UnclosedBrace => "close the constraint with `}`",
            UnclosedParen => "close the window with `)`",
            ConstraintOnUnknownVariable => "constrain a variable the pattern uses",
            DuplicateConstraint => "list all of a variable's regions in one `{@x: A, B}`",
            ConstraintNeedsVariable => "write `{@x: A, B}`",
            ItemAfterConstraint => "constraints come after the last item",
            BadCharacter | UnexpectedToken => return None,
        })
    }
}

/// One error in one pattern: kind, message and span (byte offsets in the line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: TrackErrorKind,
    pub message: String,
    pub span: Span,
}

impl SyntaxError {
    pub fn new(kind: TrackErrorKind, span: Span, message: impl Into<String>) -> Self {
        SyntaxError {
            kind,
            message: message.into(),
            span,
        }
    }

    /// The diagnostic for line `line` (1-based) of `file`.
    pub fn diagnostic(&self, file: &str, line: usize, source_line: &str) -> Diagnostic {
        Diagnostic {
            code: self.kind.code(),
            message: self.message.clone(),
            help: self.kind.help().map(str::to_string),
            file: file.to_string(),
            line,
            source_line: source_line.to_string(),
            span: self.span,
        }
    }
}
