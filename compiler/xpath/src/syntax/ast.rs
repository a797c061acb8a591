//! Syntax tree of one XPath query (the SPEC §3.1 subset). Produced by the
//! parser, consumed only by `lower::xpath`; nothing downstream of lowering
//! sees these types.

use qrtl_core::diag::Span;

/// A whole query: an absolute location path.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    /// At least one step. `steps[0].axis` says whether the query began with
    /// `/` (Child of the document node) or `//` (Descendant).
    pub steps: Vec<Step>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// `/`
    Child,
    /// `//` (descendant-or-self::node()/child::, i.e. any descendant)
    Descendant,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NameTest {
    /// `*`: any element.
    Any,
    /// An element name as written: `local` or `prefix:local`. Lowering
    /// resolves the prefix (namespace-aware matching) or keeps the bytes
    /// (`--namespaces raw`).
    Name(String),
    /// `prefix:*`: any element in the namespace bound to `prefix`.
    PrefixAny(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The axis connecting this step to the previous one (or to the
    /// document node / the predicate's context node for a first step).
    pub axis: Axis,
    pub test: NameTest,
    /// Predicates in source order (order matters for positional ones).
    pub predicates: Vec<Predicate>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Predicate {
    pub kind: PredicateKind,
    /// Span of the whole `[...]`.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PredicateKind {
    /// `[N]`: a bare number, shorthand for `[position() = N]`.
    Index(f64),
    /// `[e1 and e2 and ...]`, a single expression being a one-element list.
    And(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// `relpath`, `./relpath` or `.//relpath`: true iff the path selects a
    /// node from the context element. The first step's axis is Child for
    /// `a` and `./a`, Descendant for `.//a`.
    Path(Vec<Step>),
    /// `@name` (existence) or `@name OP literal`.
    Attr {
        name: String,
        cmp: Option<Comparison>,
    },
    /// `text() OP literal` (or bare `text()`: the element has a text child).
    Text { cmp: Option<Comparison> },
    /// `position() OP number` (normalised so position() is on the left).
    Position { op: CmpOp, value: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub op: CmpOp,
    pub value: Literal,
    /// Span of the literal.
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
    /// The operator with its operands swapped (`3 < x` is `x > 3`).
    pub fn flipped(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Eq,
            CmpOp::Ne => CmpOp::Ne,
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// A quoted string, quotes removed (XPath 1.0 has no escapes).
    Str(String),
    /// A number literal, possibly negative (`-5`).
    Num(f64),
}
