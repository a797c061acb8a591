//! `naming`: the only place final RTL identifiers are chosen. Names come
//! from the queries: a node is `q<id>_s<step>_<tag>` after the first query
//! step merged into it, its columns `<node>_m` (exact) and `<node>_anc`
//! (carry); a column shared by several nodes is `c<k>_col<j>`; a pop node
//! is `<node>_pop`; a flag is `<node>_seen` or `<pop node>_seen`. Clashes get a numeric suffix. Must run last.

use super::registry::StackPassConfig;
use crate::ir::stacks::{ColKind, FlagSrc, StackDesign};
use crate::ir::xpath::Test;
use qrtl_core::pass::Pass;
use rustc_hash::FxHashSet as HashSet;

pub struct Naming;

/// A Verilog-safe fragment of a name: ASCII alphanumerics and `_`, at most
/// 24 characters.
pub fn sanitize(raw: &[u8]) -> String {
    let mut s: String = raw
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() {
                b as char
            } else {
                '_'
            }
        })
        .take(24)
        .collect();
    if s.is_empty() {
        s.push('x');
    }
    s
}

fn unique(taken: &mut HashSet<String>, base: String) -> String {
    if taken.insert(base.clone()) {
        return base;
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|n| taken.insert(n.clone()))
        .expect("some suffix is free")
}

impl Pass<StackDesign, StackPassConfig> for Naming {
    fn name(&self) -> &'static str {
        "naming"
    }
    fn description(&self) -> &'static str {
        "choose RTL identifiers from query ids, steps and tags"
    }
    /// The emitter needs the names: never skipped.
    fn mandatory(&self) -> bool {
        true
    }
    fn run(&self, mut design: StackDesign, _config: &StackPassConfig) -> StackDesign {
        let tags = design.tags.clone();
        for (k, cl) in design.clusters.iter_mut().enumerate() {
            cl.name = format!("c{k}");
            let mut taken = HashSet::default();
            for n in &mut cl.nodes {
                let tag = match n.test {
                    Test::Any => "any".to_string(),
                    Test::Tag(t) => sanitize(tags.name(t)),
                };
                let base = match n.origins.first() {
                    Some(o) => format!("q{}_s{}_{}", o.query.0, o.step, tag),
                    None => format!("c{k}_{tag}"),
                };
                n.name = unique(&mut taken, base);
            }
            let members = cl.column_members();
            for (j, col) in cl.columns.iter_mut().enumerate() {
                let base = match &members[j] {
                    [one] => {
                        let suffix = if col.kind == ColKind::Exact {
                            "m"
                        } else {
                            "anc"
                        };
                        format!("{}_{}", cl.nodes[one.index()].name, suffix)
                    }
                    _ => format!("c{k}_col{j}"),
                };
                col.name = unique(&mut taken, base);
            }
            for p in &mut cl.pops {
                let base = format!("{}_pop", cl.nodes[p.push.index()].name);
                p.name = unique(&mut taken, base);
            }
            for f in &mut cl.flags {
                let base = match f.src {
                    FlagSrc::Fire(n) => format!("{}_seen", cl.nodes[n.index()].name),
                    FlagSrc::Pop(p) => format!("{}_seen", cl.pops[p.index()].name),
                };
                f.name = unique(&mut taken, base);
            }
        }
        design
    }
}
