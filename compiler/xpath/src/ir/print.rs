//! Human-readable dump of an XPath design (`qrtl xpath check --dump-ir`):
//! dictionaries, conditions, counters, and every query's parts as trees of
//! nodes with their stack columns.

use super::xpath::{Axis, CondKind, Design, Namespaces, NodeId, Test, Value};
use std::fmt::{self, Write};

fn bytes(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn test_name(d: &Design, t: Test) -> String {
    match t {
        Test::Any => "*".into(),
        Test::Tag(t) => bytes(d.tags.name(t)),
    }
}

fn value(v: &Value) -> String {
    match v {
        Value::Str(s) => format!("{:?}", bytes(s)),
        Value::Num(b) => format!("{}", f64::from_bits(*b)),
    }
}

/// One condition in XPath-like notation.
pub fn cond_text(d: &Design, c: &CondKind) -> String {
    match c {
        CondKind::AttrExists(a) => format!("@{}", bytes(d.attrs.name(*a))),
        CondKind::AttrCmp(a, cmp) => {
            format!(
                "@{} {} {}",
                bytes(d.attrs.name(*a)),
                cmp.op.as_str(),
                value(&cmp.value)
            )
        }
        CondKind::Position { counter, op, value } => {
            format!(
                "position(k{}) {} {}",
                counter.0,
                op.as_str(),
                f64::from_bits(*value)
            )
        }
        CondKind::InNamespace(uri) => format!("namespace-uri() = \"{}\"", bytes(uri)),
        CondKind::TextExists => "text()".into(),
        CondKind::TextCmp(cmp) => format!("text() {} {}", cmp.op.as_str(), value(&cmp.value)),
    }
}

impl fmt::Display for Design {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "design: {} queries, {} parts, {} nodes, mode {}, {:?}",
            self.queries.len(),
            self.parts.len(),
            self.nodes.len(),
            self.mode.as_str(),
            self.order
        )?;
        if self.namespaces == Namespaces::Raw {
            writeln!(f, "names: raw bytes (--namespaces raw)")?;
        }
        let mut tags = String::new();
        for (i, name) in self.tags.0.iter() {
            let _ = write!(tags, " {i}={}", bytes(name));
        }
        writeln!(f, "tags:{tags}")?;
        for (i, c) in self.conds.iter().enumerate() {
            let when = if c.is_close_time() { "close" } else { "open" };
            writeln!(f, "c{i}: {} ({when})", cond_text(self, c))?;
        }
        for (i, k) in self.counters.iter().enumerate() {
            let guard: Vec<String> = k.guard.iter().map(|g| format!("c{}", g.0)).collect();
            writeln!(
                f,
                "k{i}: count {} siblings passing [{}]",
                test_name(self, k.test),
                guard.join(" ")
            )?;
        }
        for q in &self.queries {
            writeln!(f, "q{} (line {}): {}", q.id.0, q.line, q.text.trim())?;
            for &p in &q.parts {
                let shared = self.parts[p.index()].queries.len();
                let note = if shared > 1 {
                    format!(" (shared by {shared} queries)")
                } else {
                    String::new()
                };
                writeln!(f, "  part p{}{note}", p.0)?;
                let twig = !self.parts[p.index()].is_path(self);
                self.print_node(f, self.parts[p.index()].root, 2, twig)?;
            }
        }
        Ok(())
    }
}

impl Design {
    /// Every node has a push column; nodes of twig parts also have a pop
    /// column (one per node, ch. 3.2.2.4); plain paths need none.
    fn print_node(
        &self,
        f: &mut fmt::Formatter<'_>,
        n: NodeId,
        indent: usize,
        twig: bool,
    ) -> fmt::Result {
        let node = self.node(n);
        let axis = match node.axis {
            Axis::Child => "/",
            Axis::Descendant => "//",
        };
        let conds: Vec<String> = node
            .open_conds
            .iter()
            .chain(&node.close_conds)
            .map(|c| format!("c{}", c.0))
            .collect();
        let conds = if conds.is_empty() {
            String::new()
        } else {
            format!(" [{}]", conds.join(" "))
        };
        let cols = if twig { "push+pop" } else { "push" };
        writeln!(
            f,
            "{}n{} {axis}{}{conds}  {cols}",
            "  ".repeat(indent),
            n.0,
            test_name(self, node.test)
        )?;
        for &c in &node.children {
            self.print_node(f, c, indent + 1, twig)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::lower::xpath::lower_single;

    #[test]
    fn plain_paths_have_push_columns_only() {
        let text = lower_single("/a//b").unwrap().to_string();
        assert!(
            text.contains("n0 /a  push\n") && text.contains("n1 //b  push\n"),
            "{text}"
        );
    }

    #[test]
    fn dump_shows_conditions_counters_and_columns() {
        let d = lower_single(r#"/a[@x="1"][2]/b[c and text()=5]"#).unwrap();
        let text = d.to_string();
        for want in [
            "c0: @x = \"1\" (open)",
            "k0: count a siblings passing [c0]",
            "c1: position(k0) = 2 (open)",
            "c2: text() = 5 (close)",
            "n0 /a [c0 c1]  push+pop",
            "n1 /b [c2]  push+pop",
            "n2 /c  push+pop",
        ] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
    }
}
