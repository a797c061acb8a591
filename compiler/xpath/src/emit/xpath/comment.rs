//! Comment text of the emitted RTL: names, conditions and query steps as
//! XPath, each node's line(s) and step (`step S`: the node's depth in its
//! query's tree, see `lower::stacks`).

use crate::ir::stacks::{Cluster, HwNodeId, PopId, StackDesign};
use crate::ir::xpath::{Axis, CondId, CondKind, Test, Value};
use std::fmt::Write as _;

/// Bytes as comment text: printable ASCII kept, the rest escaped.
pub(super) fn comment_text(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    push_comment_text(&mut s, bytes);
    s
}

/// Append `bytes` as comment text: printable ASCII as is, other bytes as
/// `\xNN`.
fn push_comment_text(s: &mut String, bytes: &[u8]) {
    for &b in bytes {
        if (0x20..0x7f).contains(&b) {
            s.push(b as char);
        } else {
            let _ = write!(s, "\\x{b:02x}");
        }
    }
}

/// A literal of a comparison as XPath text.
fn value_text(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("\"{}\"", comment_text(s)),
        Value::Num(b) => format!("{}", f64::from_bits(*b)),
    }
}

/// A condition as an XPath predicate, `[...]`.
pub(super) fn cond_text(d: &StackDesign, c: CondId) -> String {
    match &d.conds[c.index()] {
        CondKind::AttrExists(a) => format!("[@{}]", comment_text(d.attrs.name(*a))),
        CondKind::AttrCmp(a, cmp) => format!(
            "[@{} {} {}]",
            comment_text(d.attrs.name(*a)),
            cmp.op.as_str(),
            value_text(&cmp.value)
        ),
        CondKind::Position { op, value, .. } => {
            format!("[position() {} {}]", op.as_str(), f64::from_bits(*value))
        }
        CondKind::InNamespace(uri) => format!("[namespace-uri() = \"{}\"]", comment_text(uri)),
        CondKind::TextExists => "[text()]".to_string(),
        CondKind::TextCmp(cmp) => {
            format!("[text() {} {}]", cmp.op.as_str(), value_text(&cmp.value))
        }
    }
}

/// A node as its step (`/a[@x]`, with its axis) and the query steps it
/// implements: `/a[@x]: q0 (line 2) step 1, ...` (four at most).
pub(super) fn node_comment(d: &StackDesign, cl: &Cluster, n: HwNodeId) -> String {
    let node = cl.node(n);
    let mut s = String::with_capacity(64);
    s.push_str(if node.axis == Axis::Child { "/" } else { "//" });
    match node.test {
        Test::Any => s.push('*'),
        Test::Tag(t) => push_comment_text(&mut s, d.tags.name(t)),
    }
    for c in &node.conds {
        s.push_str(&cond_text(d, *c));
    }
    s.push_str(": ");
    for (i, o) in node.origins.iter().take(4).enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "q{} (line {}) step {}", o.query.0, o.line, o.step);
    }
    if node.origins.len() > 4 {
        let _ = write!(s, ", and {} more", node.origins.len() - 4);
    }
    s
}

/// A pop node: its name, its push node's comment (which starts with the
/// step's own axis) and what it needs (child pop nodes, `text()` tests).
pub(super) fn pop_comment(d: &StackDesign, cl: &Cluster, p: PopId) -> String {
    let pop = cl.pop(p);
    let needs: Vec<String> = pop
        .children
        .iter()
        .map(|c| cl.pop(*c).name.clone())
        .chain(pop.close_conds.iter().map(|c| cond_text(d, *c)))
        .collect();
    format!(
        "{} {}{}",
        pop.name,
        node_comment(d, cl, pop.push),
        if needs.is_empty() {
            String::new()
        } else {
            format!("; needs {}", needs.join(", "))
        }
    )
}

/// A query's text as a comment.
pub(super) fn query_comment(text: &str) -> String {
    comment_text(text.trim().as_bytes())
}
