//! Printing syntax trees back as XPath text.
//!
//! The output is canonical and compact (`/a[@x="1" and b]//c[2]`) and
//! parses back to the same tree, spans aside: relative paths in predicates
//! are printed without `./`, comparisons with the node on the left,
//! parentheses never. Two things have no XPath 1.0 spelling and are
//! printed as best they can: a string holding both quote characters, and
//! NaN (an infinite number prints as a digit string that parses back to
//! infinity).

use super::ast::{
    Axis, Comparison, Expr, ExprKind, Literal, NameTest, Predicate, PredicateKind, Query, Step,
};
use std::fmt::{self, Display, Formatter, Write};

impl Display for Query {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for step in &self.steps {
            f.write_str(separator(step.axis))?;
            step.fmt(f)?;
        }
        Ok(())
    }
}

fn separator(axis: Axis) -> &'static str {
    match axis {
        Axis::Child => "/",
        Axis::Descendant => "//",
    }
}

/// A step without its separator: `name[pred]...`.
impl Display for Step {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.test.fmt(f)?;
        for p in &self.predicates {
            p.fmt(f)?;
        }
        Ok(())
    }
}

impl Display for NameTest {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            NameTest::Any => f.write_char('*'),
            NameTest::Name(n) => f.write_str(n),
            NameTest::PrefixAny(p) => write!(f, "{p}:*"),
        }
    }
}

impl Display for Predicate {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        match &self.kind {
            PredicateKind::Index(n) => write_number(f, *n)?,
            PredicateKind::And(exprs) => {
                for (i, e) in exprs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" and ")?;
                    }
                    e.fmt(f)?;
                }
            }
        }
        f.write_char(']')
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Path(steps) => {
                for (i, step) in steps.iter().enumerate() {
                    match (i, step.axis) {
                        (0, Axis::Child) => {}
                        (0, Axis::Descendant) => f.write_str(".//")?,
                        (_, axis) => f.write_str(separator(axis))?,
                    }
                    step.fmt(f)?;
                }
                Ok(())
            }
            ExprKind::Attr { name, cmp } => {
                write!(f, "@{name}")?;
                write_cmp(f, cmp.as_ref())
            }
            ExprKind::Text { cmp } => {
                f.write_str("text()")?;
                write_cmp(f, cmp.as_ref())
            }
            ExprKind::Position { op, value } => {
                write!(f, "position(){}", op.as_str())?;
                write_number(f, *value)
            }
        }
    }
}

fn write_cmp(f: &mut Formatter<'_>, cmp: Option<&Comparison>) -> fmt::Result {
    match cmp {
        Some(c) => write!(f, "{}{}", c.op.as_str(), c.value),
        None => Ok(()),
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Str(s) if s.contains('"') && !s.contains('\'') => write!(f, "'{s}'"),
            Literal::Str(s) => write!(f, "\"{s}\""),
            Literal::Num(n) => write_number(f, *n),
        }
    }
}

/// A number in the parser's syntax: no exponent (Rust's `Display` for
/// `f64` never uses one and round-trips exactly).
fn write_number(f: &mut Formatter<'_>, n: f64) -> fmt::Result {
    if n.is_infinite() {
        let sign = if n < 0.0 { "-" } else { "" };
        write!(f, "{sign}1{}", "0".repeat(309))
    } else {
        write!(f, "{n}")
    }
}

#[cfg(test)]
mod tests {
    use crate::syntax::parse_query;

    fn canonical(src: &str) -> String {
        parse_query(src)
            .map(|q| q.to_string())
            .unwrap_or_else(|e| panic!("{src}: {e:?}"))
    }

    #[test]
    fn prints_canonical_form() {
        assert_eq!(canonical("/a"), "/a");
        assert_eq!(canonical(" / a [ ./b ] // * [ 2 ] "), "/a[b]//*[2]");
        assert_eq!(canonical("/a[.//b/c//d]"), "/a[.//b/c//d]");
        assert_eq!(
            canonical("/a[(@x = '1' and text()!=-2.50) and position() < 3]"),
            "/a[@x=\"1\" and text()!=-2.5 and position()<3]"
        );
        assert_eq!(
            canonical("/a[3 > position()][\"v\" = @y]"),
            "/a[position()<3][@y=\"v\"]"
        );
        assert_eq!(
            canonical("/a[@q='say \"hi\"'][.5]"),
            "/a[@q='say \"hi\"'][0.5]"
        );
        assert_eq!(
            canonical(&format!("/a[{}]", "9".repeat(400))),
            format!("/a[1{}]", "0".repeat(309))
        );
    }

    #[test]
    fn infinity_round_trips() {
        let q = parse_query(&format!("/a[@x=-{}]", "9".repeat(400))).unwrap();
        let printed = q.to_string();
        assert_eq!(printed, format!("/a[@x=-1{}]", "0".repeat(309)));
        assert_eq!(parse_query(&printed).unwrap().to_string(), printed);
    }
}
