//! Property tests of the XPath parser.
//!
//! - Random strings, from a grammar-like token alphabet and from arbitrary
//!   Unicode, never make the parser panic; every error is a single
//!   diagnostic whose span lies on character boundaries of the query and
//!   renders; every success prints and parses back to the same tree.
//! - Random syntax trees print (`Display`) and parse back to themselves,
//!   spans aside.
//!
//! Run longer with `PROPTEST_CASES=20000 cargo test -p qrtl --test parse_fuzz`.

#[path = "parse/support.rs"]
mod support;

use proptest::prelude::*;
use qrtl_core::diag::Span;
use qrtl_xpath::syntax::ast::{
    Axis, CmpOp, Comparison, Expr, ExprKind, Literal, NameTest, Predicate, PredicateKind, Query,
    Step,
};
use qrtl_xpath::syntax::{parse_query, parse_query_file};
use support::strip_spans;

const TOKENS: &[&str] = &[
    "/",
    "//",
    "/",
    "[",
    "]",
    "[",
    "]",
    "(",
    ")",
    "@",
    "*",
    ".",
    "..",
    "./",
    ".//",
    "=",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "!",
    "and",
    " and ",
    "or",
    " or ",
    "div",
    "mod",
    " ",
    "\t",
    "a",
    "b",
    "c",
    "a:b",
    "p:",
    ":",
    "::",
    "text()",
    "position()",
    "text",
    "position",
    "(",
    "1",
    "2.5",
    ".5",
    "5.",
    "-",
    "-1",
    "\"x\"",
    "'y'",
    "\"",
    "'",
    "$v",
    "|",
    ",",
    "child::",
    "not(",
    "last()",
    "node()",
    "count(",
    "é",
    "日本",
    "#",
    "%",
    "+",
    "&",
    "\u{a0}",
    "\r",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..30).prop_map(|t| t.concat())
}

/// Checks that hold for any input.
fn check_any(src: &str) {
    match parse_query(src) {
        Ok(q) => {
            assert!(
                q.span.start <= q.span.end && q.span.end <= src.len(),
                "{src:?}: {q:?}"
            );
            let printed = q.to_string();
            let again = parse_query(&printed)
                .unwrap_or_else(|e| panic!("{src:?} printed as {printed:?} fails: {e:?}"));
            assert_eq!(
                strip_spans(&again),
                strip_spans(&q),
                "{src:?} printed as {printed:?}"
            );
        }
        Err(errors) => {
            assert_eq!(errors.len(), 1, "{src:?}: {errors:?}");
            let e = &errors[0];
            assert!(
                e.span.start <= e.span.end && e.span.end <= src.len(),
                "{src:?}: {e:?}"
            );
            assert!(src.is_char_boundary(e.span.start) && src.is_char_boundary(e.span.end));
            assert!(!e.message.is_empty());
            let rendered = e.to_diagnostic("f.txt", 1, src, 0).render();
            assert!(rendered.contains(e.kind.code()), "{rendered}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn token_soup_never_panics(src in token_soup()) {
        check_any(&src);
        check_any(&format!("/{src}"));
        check_any(&format!("/a[{src}]"));
    }

    #[test]
    fn arbitrary_text_never_panics(src in "\\PC{0,40}") {
        check_any(&src);
        check_any(&format!("/a[{src}"));
    }

    #[test]
    fn query_files_never_panic(lines in prop::collection::vec(token_soup(), 0..8)) {
        let text = lines.iter().map(|l| format!("/{l}")).collect::<Vec<_>>().join("\n");
        let qf = parse_query_file("f.txt", &text);
    let (queries, diags) = (qf.queries, qf.diagnostics);
        let query_lines = text.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')).count();
        prop_assert_eq!(queries.len() + diags.len(), query_lines);
        for (i, q) in queries.iter().enumerate() {
            prop_assert!(i == 0 || queries[i - 1].id < q.id);
        }
        for d in &diags {
            let _ = d.render();
        }
    }

    #[test]
    fn printed_trees_parse_back(q in query()) {
        let printed = q.to_string();
        match parse_query(&printed) {
            Ok(again) => prop_assert_eq!(strip_spans(&again), q, "printed as {}", printed),
            Err(e) => prop_assert!(false, "{printed} does not parse: {e:?}"),
        }
    }
}

// ----- random syntax trees (spans all 0..0) ------------------------------

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(
            &[
                "and",
                "or",
                "div",
                "mod",
                "text",
                "position",
                "node",
                "last",
                "not",
                "child",
                "a",
                "b",
                "body.content",
                "x-y",
                "_u",
                "é",
                "日本",
                "a1",
                "nitf",
            ][..]
        )
        .prop_map(str::to_string),
        "[a-zA-Z_][a-zA-Z0-9._-]{0,6}",
        "[a-z_][a-z0-9._-]{0,3}:[a-z_][a-z0-9._-]{0,3}",
    ]
}

fn axis() -> impl Strategy<Value = Axis> {
    prop_oneof![Just(Axis::Child), Just(Axis::Descendant)]
}

fn test() -> impl Strategy<Value = NameTest> {
    prop_oneof![1 => Just(NameTest::Any), 4 => name().prop_map(NameTest::Name)]
}

fn op() -> impl Strategy<Value = CmpOp> {
    prop::sample::select(
        &[
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ][..],
    )
}

fn number() -> impl Strategy<Value = f64> {
    use prop::num::f64;
    prop_oneof![
        3 => (0u32..20).prop_map(std::primitive::f64::from),
        1 => (-1000i32..1000).prop_map(|n| std::primitive::f64::from(n) / 8.0),
        1 => f64::NORMAL | f64::SUBNORMAL | f64::ZERO | f64::INFINITE,
    ]
}

fn literal() -> impl Strategy<Value = Literal> {
    prop_oneof![
        number().prop_map(Literal::Num),
        "[^\"]{0,6}".prop_map(Literal::Str),
        "[^']{0,6}".prop_map(Literal::Str),
        "[a-z0-9 .=\\[\\]/@-]{0,6}".prop_map(Literal::Str),
    ]
}

fn comparison() -> impl Strategy<Value = Option<Comparison>> {
    prop::option::of((op(), literal()).prop_map(|(op, value)| Comparison {
        op,
        value,
        span: Span::default(),
    }))
}

fn expr_of(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn value_expr() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (name(), comparison()).prop_map(|(name, cmp)| expr_of(ExprKind::Attr { name, cmp })),
        comparison().prop_map(|cmp| expr_of(ExprKind::Text { cmp })),
        (op(), number()).prop_map(|(op, value)| expr_of(ExprKind::Position { op, value })),
    ]
}

fn step_of(axis: Axis, test: NameTest, predicates: Vec<Predicate>) -> Step {
    Step {
        axis,
        test,
        predicates,
        span: Span::default(),
    }
}

fn predicate_of(kind: PredicateKind) -> Predicate {
    Predicate {
        kind,
        span: Span::default(),
    }
}

fn predicate() -> impl Strategy<Value = Predicate> {
    let leaf = prop_oneof![
        number().prop_map(|n| predicate_of(PredicateKind::Index(n))),
        prop::collection::vec(value_expr(), 1..3).prop_map(|e| predicate_of(PredicateKind::And(e))),
    ];
    leaf.prop_recursive(3, 32, 4, |inner| {
        let step = (axis(), test(), prop::collection::vec(inner, 0..3))
            .prop_map(|(a, t, p)| step_of(a, t, p));
        let path = prop::collection::vec(step, 1..4).prop_map(|s| expr_of(ExprKind::Path(s)));
        let expr = prop_oneof![value_expr(), path];
        prop_oneof![
            1 => number().prop_map(|n| predicate_of(PredicateKind::Index(n))),
            4 => prop::collection::vec(expr, 1..4).prop_map(|e| predicate_of(PredicateKind::And(e))),
        ]
    })
}

fn query() -> impl Strategy<Value = Query> {
    let step = (axis(), test(), prop::collection::vec(predicate(), 0..3))
        .prop_map(|(a, t, p)| step_of(a, t, p));
    prop::collection::vec(step, 1..5).prop_map(|steps| Query {
        steps,
        span: Span::default(),
    })
}
