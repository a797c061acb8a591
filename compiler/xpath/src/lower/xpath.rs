//! XPath syntax trees → [`Design`] (holistic: one part per query).
//!
//! Each step becomes a node; predicates become open-time conditions
//! (attributes, positions), close-time conditions (`text()`) or child
//! nodes (relative paths). A positional predicate counts the siblings that
//! pass the step's name test and every predicate before it, so those earlier
//! predicates must be decidable when the element opens: a positional
//! predicate after a path or `text()` predicate is rejected with an error.

use super::names::{NsContext, NsOptions, Resolved};
use crate::ir::xpath::{
    Axis, CmpOp, Compare, CondId, CondKind, Counter, Design, Namespaces, Node, NodeId, Origin,
    Part, PartId, Query, QueryId, Test, Value,
};
use crate::syntax::{ast, QueryFile, SourceQuery};
use qrtl_core::diag::{Diagnostic, Span};
use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;

/// Errors found while lowering (the query parsed but cannot be compiled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowerErrorKind {
    /// `[b][2]`, `[text()="x"][1]`: the position depends on a predicate
    /// only known at close time.
    PositionAfterClosePredicate,
    /// `/p:a` with no binding for `p` (`--ns`, `declare namespace`).
    UnboundPrefix,
    /// `/p:*` under `--namespaces raw` (a prefix there is only text).
    PrefixWildcardRaw,
    /// A `declare namespace` line that cannot stand (reserved prefix or
    /// URI, a prefix bound twice, declarations under `--namespaces raw`).
    BadBinding,
}

impl LowerErrorKind {
    pub fn code(self) -> &'static str {
        match self {
            LowerErrorKind::PositionAfterClosePredicate => "E0201",
            LowerErrorKind::UnboundPrefix => "E0202",
            LowerErrorKind::PrefixWildcardRaw => "E0203",
            LowerErrorKind::BadBinding => "E0204",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    pub kind: LowerErrorKind,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

/// Lower every parsed query of a file under namespace-aware matching with
/// no bindings but `xml` (the queries of a file without declarations).
pub fn lower_queries(file: &str, queries: &[SourceQuery]) -> Result<Design, Vec<Diagnostic>> {
    let ns = NsContext::new(file, &[], &NsOptions::default()).expect("no declarations");
    lower_with(file, queries, &ns)
}

/// [`lower_queries`] with names compared as raw bytes (`--namespaces
/// raw`), as the hardware compares them.
pub fn lower_queries_raw(file: &str, queries: &[SourceQuery]) -> Result<Design, Vec<Diagnostic>> {
    let ns = NsContext::new(file, &[], &NsOptions::raw()).expect("no declarations");
    lower_with(file, queries, &ns)
}

/// Lower a parsed query file: its declarations and `opts` bind the
/// prefixes, then every query is lowered. Query ids are kept from the file.
pub fn lower_file(
    file: &str,
    parsed: &QueryFile,
    opts: &NsOptions,
) -> Result<Design, Vec<Diagnostic>> {
    let ns = NsContext::new(file, &parsed.namespaces, opts)?;
    lower_with(file, &parsed.queries, &ns)
}

fn lower_with(
    file: &str,
    queries: &[SourceQuery],
    ns: &NsContext,
) -> Result<Design, Vec<Diagnostic>> {
    let mut design = Design::default();
    design.namespaces = ns.mode;
    design.bindings = ns.bindings();
    let mut errors = Vec::new();
    let mut seen: HashMap<&str, PartId> = HashMap::default();
    for q in queries {
        let id = QueryId(q.id as u32);
        // Identical query texts share one part.
        let key = q.text.trim();
        let part = match seen.get(&key) {
            Some(&p) => {
                design.parts[p.index()].queries.push(id);
                Some(p)
            }
            None => match lower_one(&mut design, q, ns) {
                Ok(p) => {
                    design.parts[p.index()].queries.push(id);
                    seen.insert(key, p);
                    Some(p)
                }
                Err(e) => {
                    let offset = q.text.len() - q.text.trim_start().len();
                    errors.push(Diagnostic {
                        code: e.kind.code(),
                        message: e.message,
                        help: e.help,
                        file: file.to_string(),
                        line: q.line,
                        source_line: q.text.clone(),
                        span: Span::new(e.span.start + offset, e.span.end + offset),
                    });
                    None
                }
            },
        };
        if let Some(p) = part {
            design.queries.push(Query {
                id,
                line: q.line,
                text: q.text.clone(),
                parts: vec![p],
            });
        }
    }
    if errors.is_empty() {
        debug_assert_eq!(design.verify(), Ok(()));
        Ok(design)
    } else {
        Err(errors)
    }
}

/// Lower one query (for tests and tools): returns the design with a single query 0.
pub fn lower_single(text: &str) -> Result<Design, String> {
    let ast = crate::syntax::parse_query(text).map_err(|e| {
        e.iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    let q = SourceQuery {
        id: 0,
        line: 1,
        text: text.to_string(),
        ast,
    };
    lower_queries("<query>", std::slice::from_ref(&q)).map_err(|d| {
        d.iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

fn lower_one(design: &mut Design, q: &SourceQuery, ns: &NsContext) -> Result<PartId, LowerError> {
    // Nodes are only added if the whole query lowers; roll back otherwise.
    let nodes = design.nodes.len();
    let part = PartId(design.parts.len() as u32);
    design.parts.push(Part {
        root: NodeId(nodes as u32),
        queries: Vec::new(),
    });
    let mut lw = Lowerer {
        design,
        line: q.line,
        part,
        ns,
    };
    match lw.steps(None, &q.ast.steps) {
        Ok(_) => Ok(part),
        Err(e) => {
            // Conditions interned on the way stay (unused conditions are
            // never evaluated by anything that matters); nodes go.
            design.nodes.truncate(nodes);
            design.parts.pop();
            Err(e)
        }
    }
}

struct Lowerer<'a> {
    design: &'a mut Design,
    line: usize,
    part: PartId,
    ns: &'a NsContext,
}

fn axis(a: ast::Axis) -> Axis {
    match a {
        ast::Axis::Child => Axis::Child,
        ast::Axis::Descendant => Axis::Descendant,
    }
}

fn op(o: ast::CmpOp) -> CmpOp {
    match o {
        ast::CmpOp::Eq => CmpOp::Eq,
        ast::CmpOp::Ne => CmpOp::Ne,
        ast::CmpOp::Lt => CmpOp::Lt,
        ast::CmpOp::Le => CmpOp::Le,
        ast::CmpOp::Gt => CmpOp::Gt,
        ast::CmpOp::Ge => CmpOp::Ge,
    }
}

fn compare(c: &ast::Comparison) -> Compare {
    Compare {
        op: op(c.op),
        value: match &c.value {
            ast::Literal::Str(s) => Value::Str(s.as_bytes().into()),
            ast::Literal::Num(x) => Value::num(*x),
        },
    }
}

impl Lowerer<'_> {
    /// Lower a chain of steps under `parent`; returns the first node.
    fn steps(&mut self, parent: Option<NodeId>, steps: &[ast::Step]) -> Result<NodeId, LowerError> {
        let mut parent = parent;
        let mut first = None;
        for step in steps {
            let n = self.step(parent, step)?;
            first.get_or_insert(n);
            parent = Some(n);
        }
        Ok(first.expect("the parser guarantees at least one step"))
    }

    fn step(&mut self, parent: Option<NodeId>, step: &ast::Step) -> Result<NodeId, LowerError> {
        let (test, in_ns) = self.name_test(step)?;
        let mut open: Vec<CondId> = Vec::new();
        let mut close: Vec<CondId> = Vec::new();
        let mut branches: Vec<&[ast::Step]> = Vec::new();
        // Open-time conditions of the predicates seen so far: the guard of
        // any positional predicate that follows (`p:*` counts only the
        // siblings in p's namespace).
        let mut guard: Vec<CondId> = in_ns.into_iter().collect();
        open.extend(in_ns);
        let mut close_before: Option<Span> = None;
        for pred in &step.predicates {
            let mut bracket_open = Vec::new();
            let mut bracket_close = false;
            let position = |lw: &mut Self, o: CmpOp, v: f64, span: Span| {
                if let Some(prev) = close_before {
                    return Err(LowerError {
                        kind: LowerErrorKind::PositionAfterClosePredicate,
                        span,
                        message: "a positional predicate after a path or text() predicate is not supported"
                            .into(),
                        help: Some(format!(
                            "the position would count only siblings satisfying the predicate at column {}, \
                             which is known only when each sibling closes; move the positional predicate first",
                            prev.start + 1
                        )),
                    });
                }
                let mut g = guard.clone();
                g.sort_unstable();
                g.dedup();
                let counter = lw.design.intern_counter(Counter { test, guard: g });
                Ok(lw.design.intern_cond(CondKind::Position {
                    counter,
                    op: o,
                    value: v.to_bits(),
                }))
            };
            match &pred.kind {
                ast::PredicateKind::Index(n) => {
                    bracket_open.push(position(self, CmpOp::Eq, *n, pred.span)?);
                }
                ast::PredicateKind::And(exprs) => {
                    for e in exprs {
                        match &e.kind {
                            ast::ExprKind::Attr { name, cmp } => {
                                let at = Span::new(e.span.start, e.span.start + 1 + name.len());
                                let name = self.expand(name, at)?;
                                let a = self.design.attrs.intern(name.as_bytes());
                                let c = match cmp {
                                    None => CondKind::AttrExists(a),
                                    Some(c) => CondKind::AttrCmp(a, compare(c)),
                                };
                                bracket_open.push(self.design.intern_cond(c));
                            }
                            ast::ExprKind::Text { cmp } => {
                                let c = match cmp {
                                    None => CondKind::TextExists,
                                    Some(c) => CondKind::TextCmp(compare(c)),
                                };
                                close.push(self.design.intern_cond(c));
                                bracket_close = true;
                            }
                            ast::ExprKind::Position { op: o, value } => {
                                bracket_open.push(position(self, op(*o), *value, e.span)?);
                            }
                            ast::ExprKind::Path(steps) => {
                                branches.push(steps);
                                bracket_close = true;
                            }
                        }
                    }
                }
            }
            if bracket_close && close_before.is_none() {
                close_before = Some(pred.span);
            }
            guard.extend(bracket_open.iter().copied());
            open.extend(bracket_open);
        }
        open.sort_unstable();
        open.dedup();
        close.sort_unstable();
        close.dedup();
        let node = self.design.add_node(Node {
            part: self.part,
            parent,
            axis: axis(step.axis),
            test,
            open_conds: open,
            close_conds: close,
            children: Vec::new(),
            origin: Origin {
                line: self.line,
                span: step.span,
            },
        });
        for b in branches {
            self.steps(Some(node), b)?;
        }
        Ok(node)
    }

    /// The step's test, and for `p:*` the condition "in p's namespace".
    fn name_test(&mut self, step: &ast::Step) -> Result<(Test, Option<CondId>), LowerError> {
        let at = |len: usize| Span::new(step.span.start, step.span.start + len);
        Ok(match &step.test {
            ast::NameTest::Any => (Test::Any, None),
            ast::NameTest::Name(n) => {
                let name = self.expand(n, at(n.len()))?;
                (Test::Tag(self.design.tags.intern(name.as_bytes())), None)
            }
            ast::NameTest::PrefixAny(p) => {
                let span = at(p.len() + 2);
                if self.ns.mode == Namespaces::Raw {
                    return Err(LowerError {
                        kind: LowerErrorKind::PrefixWildcardRaw,
                        span,
                        message: format!("`{p}:*` needs namespace-aware matching, not `--namespaces raw`"),
                        help: Some("under `--namespaces raw` names are compared as written: write the full name (`p:name`) or `*`".into()),
                    });
                }
                let Some(uri) = self.ns.uri(p) else {
                    return Err(self.unbound(p, span));
                };
                let c = CondKind::InNamespace(uri.as_bytes().into());
                (Test::Any, Some(self.design.intern_cond(c)))
            }
        })
    }

    /// The expanded name of a query's QName written at `span`.
    fn expand<'q>(&self, qname: &'q str, span: Span) -> Result<Cow<'q, str>, LowerError> {
        match self.ns.expand(qname) {
            Resolved::Name(n) => Ok(n),
            Resolved::Unbound(p) => {
                Err(self.unbound(&p, Span::new(span.start, span.start + p.len() + 1)))
            }
        }
    }

    fn unbound(&self, prefix: &str, span: Span) -> LowerError {
        let bound = self.ns.prefixes().join("`, `");
        LowerError {
            kind: LowerErrorKind::UnboundPrefix,
            span,
            message: format!("prefix `{prefix}` is not bound to a namespace"),
            help: Some(format!(
                "bind it with `--ns {prefix}=URI` or a line `declare namespace {prefix} = \"URI\";` \
                 (bound now: `{bound}`); `--namespaces raw` compares names as written"
            )),
        }
    }
}
