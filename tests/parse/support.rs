//! Helpers shared by `tests/parse_cases.rs` and `tests/parse_fuzz.rs`
//! (included with `#[path]`; not a test crate of its own).
#![allow(dead_code)]

use qrtl_core::diag::Span;
use qrtl_xpath::syntax::ast::{Comparison, Expr, ExprKind, Predicate, PredicateKind, Query, Step};
use std::fmt::Write;

/// The query with every span set to `0..0`, to compare trees parsed from
/// different texts. Destructures every node without `..`, so a field added
/// to the AST is a compile error here rather than silently ignored.
pub fn strip_spans(q: &Query) -> Query {
    let Query { steps, span: _ } = q;
    Query {
        steps: strip_steps(steps),
        span: Span::default(),
    }
}

fn strip_steps(steps: &[Step]) -> Vec<Step> {
    steps
        .iter()
        .map(
            |Step {
                 axis,
                 test,
                 predicates,
                 span: _,
             }| Step {
                axis: *axis,
                test: test.clone(),
                predicates: predicates.iter().map(strip_predicate).collect(),
                span: Span::default(),
            },
        )
        .collect()
}

fn strip_predicate(p: &Predicate) -> Predicate {
    let Predicate { kind, span: _ } = p;
    let kind = match kind {
        PredicateKind::Index(n) => PredicateKind::Index(*n),
        PredicateKind::And(exprs) => PredicateKind::And(exprs.iter().map(strip_expr).collect()),
    };
    Predicate {
        kind,
        span: Span::default(),
    }
}

fn strip_expr(e: &Expr) -> Expr {
    let Expr { kind, span: _ } = e;
    let kind = match kind {
        ExprKind::Path(steps) => ExprKind::Path(strip_steps(steps)),
        ExprKind::Attr { name, cmp } => ExprKind::Attr {
            name: name.clone(),
            cmp: cmp.as_ref().map(strip_cmp),
        },
        ExprKind::Text { cmp } => ExprKind::Text {
            cmp: cmp.as_ref().map(strip_cmp),
        },
        ExprKind::Position { op, value } => ExprKind::Position {
            op: *op,
            value: *value,
        },
    };
    Expr {
        kind,
        span: Span::default(),
    }
}

fn strip_cmp(c: &Comparison) -> Comparison {
    let Comparison { op, value, span: _ } = c;
    Comparison {
        op: *op,
        value: value.clone(),
        span: Span::default(),
    }
}

/// A compact, complete tree dump: one node per line, every field shown,
/// spans as `@start..end` byte ranges of the query text.
pub fn dump(q: &Query) -> String {
    let Query { steps, span } = q;
    let mut out = format!("query {}\n", at(*span));
    dump_steps(&mut out, steps, 1);
    out
}

fn at(span: Span) -> String {
    format!("@{}..{}", span.start, span.end)
}

fn dump_steps(out: &mut String, steps: &[Step], depth: usize) {
    for Step {
        axis,
        test,
        predicates,
        span,
    } in steps
    {
        let _ = writeln!(
            out,
            "{}step {axis:?} {test:?} {}",
            "  ".repeat(depth),
            at(*span)
        );
        for Predicate { kind, span } in predicates {
            let pad = "  ".repeat(depth + 1);
            match kind {
                PredicateKind::Index(n) => {
                    let _ = writeln!(out, "{pad}pred Index({n:?}) {}", at(*span));
                }
                PredicateKind::And(exprs) => {
                    let _ = writeln!(out, "{pad}pred And {}", at(*span));
                    for e in exprs {
                        dump_expr(out, e, depth + 2);
                    }
                }
            }
        }
    }
}

fn dump_expr(out: &mut String, e: &Expr, depth: usize) {
    let Expr { kind, span } = e;
    let pad = "  ".repeat(depth);
    let cmp_text = |cmp: &Option<Comparison>| match cmp {
        None => String::new(),
        Some(Comparison { op, value, span }) => format!(" {op:?} {value:?} {}", at(*span)),
    };
    match kind {
        ExprKind::Path(steps) => {
            let _ = writeln!(out, "{pad}path {}", at(*span));
            dump_steps(out, steps, depth + 1);
        }
        ExprKind::Attr { name, cmp } => {
            let _ = writeln!(out, "{pad}attr {name:?}{} {}", cmp_text(cmp), at(*span));
        }
        ExprKind::Text { cmp } => {
            let _ = writeln!(out, "{pad}text(){} {}", cmp_text(cmp), at(*span));
        }
        ExprKind::Position { op, value } => {
            let _ = writeln!(out, "{pad}position() {op:?} {value:?} {}", at(*span));
        }
    }
}
