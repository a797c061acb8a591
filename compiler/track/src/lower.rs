//! FlexTrack lowering: pattern syntax trees → [`TrackDesign`], and a
//! design → the [`EngineSet`] of one variable strategy.
//!
//! Decisions (documented in ARCHITECTURE.md): leading and trailing `?*`
//! items are dropped (the run is unanchored, so they can always consume
//! nothing); a pattern of only `?*` items matches every trajectory. A
//! variable without a region set ranges over every region of the design's
//! dictionary (which the CLI extends with the region map's and the
//! trajectories' regions), never over "no region".

use crate::ir::*;
use crate::syntax::ast::{self, ItemKind, Target};
use crate::syntax::SourcePattern;
use qrtl_core::diag::{Diagnostic, Span};
use std::collections::HashMap;

/// Most engines one pattern may expand into (`expand` strategy).
pub const MAX_EXPANSIONS: usize = 4096;

/// Lower parsed patterns. With `known` (a region map's regions), every
/// region a pattern names must be one of them (E0651).
pub fn lower_patterns(
    file: &str,
    patterns: &[SourcePattern],
    known: Option<&[String]>,
) -> Result<TrackDesign, Vec<Diagnostic>> {
    let mut d = TrackDesign::default();
    let mut diags = Vec::new();
    let mut window_ids: HashMap<Window, WindowId> = HashMap::new();
    for sp in patterns {
        let ast = &sp.ast;
        let mut check = |n: &ast::Name| {
            if let Some(k) = known {
                if !k.iter().any(|r| r == &n.text) {
                    diags.push(Diagnostic {
                        code: "E0651",
                        message: format!(
                            "unknown region `{}`: the region map does not define it",
                            n.text
                        ),
                        help: Some(format!("the map defines: {}", k.join(", "))),
                        file: file.to_string(),
                        line: sp.line,
                        source_line: sp.text.clone(),
                        span: n.span,
                    });
                }
            }
        };
        // Regions in order of appearance (items, then constraint sets).
        let mut names: Vec<&ast::Name> = Vec::new();
        for it in &ast.items {
            match &it.kind {
                ItemKind::Region(n) | ItemKind::Not(n) => names.push(n),
                ItemKind::Pred {
                    target: Target::Region(n),
                    ..
                } => names.push(n),
                _ => {}
            }
        }
        for c in &ast.constraints {
            names.extend(c.regions.iter());
        }
        for n in names {
            check(n);
            d.add_region(&n.text);
        }
        let var_names = ast.variables();
        let vars: Vec<Var> = var_names
            .iter()
            .map(|v| Var {
                name: v.to_string(),
                set: ast.constraints.iter().find(|c| c.var.text == *v).map(|c| {
                    let mut s: Vec<u32> = c
                        .regions
                        .iter()
                        .map(|r| d.region_code(&r.text).expect("added above"))
                        .collect();
                    s.sort_unstable();
                    s.dedup();
                    s
                }),
            })
            .collect();
        let var_id = |n: &ast::Name| {
            VarId(
                var_names
                    .iter()
                    .position(|v| *v == n.text)
                    .expect("a variable of the pattern") as u32,
            )
        };
        let mut items = Vec::new();
        for it in &ast.items {
            let step = match &it.kind {
                ItemKind::Region(n) => Step::One {
                    test: Test::Region(d.region_code(&n.text).expect("added")),
                    window: None,
                },
                ItemKind::Not(n) => Step::One {
                    test: Test::NotRegion(d.region_code(&n.text).expect("added")),
                    window: None,
                },
                ItemKind::Var(n) => Step::One {
                    test: Test::Var(var_id(n)),
                    window: None,
                },
                ItemKind::Any => Step::One {
                    test: Test::Any,
                    window: None,
                },
                ItemKind::Plus => Step::Plus,
                ItemKind::Star => Step::Star,
                ItemKind::Pred { op, target, time } => {
                    let test = match target {
                        Target::Region(n) => Test::Region(d.region_code(&n.text).expect("added")),
                        Target::Var(n) => Test::Var(var_id(n)),
                    };
                    let window = time.map(|t| {
                        let w = Window {
                            op: window_op(*op),
                            from: t.from,
                            to: t.to,
                        };
                        let next = WindowId(d.windows.len() as u32);
                        *window_ids.entry(w).or_insert_with(|| {
                            d.windows.push(w);
                            next
                        })
                    });
                    Step::One { test, window }
                }
            };
            let text = sp
                .text
                .get(it.span.start..it.span.end)
                .unwrap_or("")
                .to_string();
            let col = sp
                .text
                .get(..it.span.start)
                .map_or(1, |s| s.chars().count() + 1);
            items.push(Item { step, col, text });
        }
        while items.first().is_some_and(|i| i.step == Step::Star) {
            items.remove(0);
        }
        while items.last().is_some_and(|i| i.step == Step::Star) {
            items.pop();
        }
        d.patterns.push(Pattern {
            id: sp.id,
            line: sp.line,
            text: sp.text.clone(),
            items,
            vars,
        });
    }
    d.pattern_regions = d.regions.len();
    if let Some(k) = known {
        for r in k {
            d.add_region(r);
        }
    }
    if diags.is_empty() {
        Ok(d)
    } else {
        Err(diags)
    }
}

/// The IR's window operator for the syntax's time operator.
fn window_op(op: ast::TimeOp) -> WindowOp {
    match op {
        ast::TimeOp::Overlap => WindowOp::Overlap,
        ast::TimeOp::Inside => WindowOp::Inside,
    }
}

/// Options of [`build_engines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub strategy: Strategy,
    /// Nodes per cluster (ch. 4.5.3); 0: one cluster.
    pub cluster_size: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            strategy: Strategy::Buffer,
            cluster_size: 0,
        }
    }
}

/// Builds the naive [`EngineSet`]: one chain of fresh nodes per pattern
/// (per expansion for `expand`), in pattern order, all in one cluster. The
/// FlexTrack passes (`crate::passes`) then cluster and share.
struct Builder<'a> {
    design: &'a TrackDesign,
    set: EngineSet,
}

impl Builder<'_> {
    fn node(&mut self, mut node: Node) -> NodeId {
        node.preds.sort_unstable();
        node.preds.dedup();
        let id = NodeId(self.set.nodes.len() as u32);
        self.set.nodes.push(node);
        id
    }

    /// One chain of nodes for `p` with variables resolved by `bind` (expand)
    /// or by the strategy; returns the accepting node.
    fn chain(
        &mut self,
        p: &Pattern,
        bind: Option<&[u32]>,
        expansion: Option<usize>,
        slots: &[SlotId],
    ) -> NodeId {
        let strategy = self.set.strategy;
        let mut ids: Vec<NodeId> = Vec::with_capacity(p.items.len());
        // first/last occurrence of each variable
        let mut first = vec![usize::MAX; p.vars.len()];
        let mut last = vec![0; p.vars.len()];
        for i in 0..p.items.len() {
            if let Some(v) = p.var_of(i) {
                first[v.index()] = first[v.index()].min(i);
                last[v.index()] = i;
            }
        }
        for (j, item) in p.items.iter().enumerate() {
            let preds = p.preds(j);
            let from_start = preds.contains(&None);
            let preds: Vec<NodeId> = preds.into_iter().flatten().map(|i| ids[i]).collect();
            let (test, window) = match &item.step {
                Step::Plus | Step::Star => (None, None),
                Step::One { test, window } => {
                    let t = match test {
                        Test::Any => NodeTest::Any,
                        Test::Region(r) => NodeTest::Region(*r),
                        Test::NotRegion(r) => NodeTest::NotRegion(*r),
                        Test::Var(v) => match (bind, strategy) {
                            (Some(b), _) => NodeTest::Region(b[v.index()]),
                            (None, Strategy::Buffer) => {
                                if first[v.index()] == j {
                                    NodeTest::VarFirst(slots[v.index()])
                                } else {
                                    NodeTest::VarAgain(slots[v.index()])
                                }
                            }
                            (None, _) => NodeTest::InSet(p.domain(*v, self.design)),
                        },
                    };
                    (Some(t), *window)
                }
            };
            let carries: Vec<SlotId> = if strategy == Strategy::Buffer && bind.is_none() {
                (0..p.vars.len())
                    .filter(|&v| first[v] <= j && j < last[v])
                    .map(|v| slots[v])
                    .collect()
            } else {
                Vec::new()
            };
            let name = match expansion {
                Some(e) => format!("p{}_e{e}_i{j}", p.id),
                None => format!("p{}_i{j}", p.id),
            };
            let id = self.node(Node {
                test,
                window,
                from_start,
                preds,
                carries,
                name,
                pattern: p.id,
                line: p.line,
                col: item.col,
            });
            ids.push(id);
        }
        *ids.last().expect("non-empty pattern")
    }
}

/// How many engines `expand` makes of a pattern (product of its domains).
pub fn expansions(p: &Pattern, d: &TrackDesign) -> usize {
    (0..p.vars.len())
        .map(|v| p.domain(VarId(v as u32), d).len())
        .fold(1usize, |a, n| a.saturating_mul(n))
}

/// Build the hardware engines of every pattern under one strategy: lower
/// naively (a chain of nodes per pattern, one cluster), then run the
/// FlexTrack pipeline (`crate::passes::registry`: clustering by
/// `cfg.cluster_size`, common-prefix sharing). Fails (E0652) when `expand`
/// would exceed [`MAX_EXPANSIONS`] engines for a pattern.
pub fn build_engines(
    file: &str,
    d: &TrackDesign,
    cfg: &EngineConfig,
) -> Result<EngineSet, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    if cfg.strategy == Strategy::Expand {
        for p in &d.patterns {
            let n = expansions(p, d);
            if n > MAX_EXPANSIONS {
                diags.push(Diagnostic {
                    code: "E0652",
                    message: format!(
                        "--variables expand: {n} region combinations, more than {MAX_EXPANSIONS}"
                    ),
                    help: Some(
                        "give the variables region sets ({@x: A, B}), or use --variables buffer|or"
                            .into(),
                    ),
                    file: file.to_string(),
                    line: p.line,
                    source_line: p.text.clone(),
                    span: Span::new(0, p.text.len()),
                });
            }
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let mut b = Builder {
        design: d,
        set: EngineSet {
            strategy: cfg.strategy,
            nodes: Vec::new(),
            slots: Vec::new(),
            outs: Vec::new(),
            clusters: vec![Cluster {
                nodes: 0..0,
                patterns: Vec::new(),
            }],
        },
    };
    for p in &d.patterns {
        let cluster = 0;
        b.set.clusters[cluster].patterns.push(p.id);
        let mut out = EngineOut {
            pattern: p.id,
            always: p.items.is_empty(),
            accepts: Vec::new(),
            cluster,
        };
        if !out.always {
            match cfg.strategy {
                Strategy::Expand if !p.vars.is_empty() => {
                    let domains: Vec<Vec<u32>> = (0..p.vars.len())
                        .map(|v| p.domain(VarId(v as u32), d))
                        .collect();
                    let total = expansions(p, d);
                    for e in 0..total {
                        // Mixed radix, the last variable fastest: neighbours share prefixes.
                        let mut k = e;
                        let mut bind = vec![0u32; domains.len()];
                        for v in (0..domains.len()).rev() {
                            bind[v] = domains[v][k % domains[v].len()];
                            k /= domains[v].len();
                        }
                        if domains.iter().any(|dm| dm.is_empty()) {
                            break;
                        }
                        let a = b.chain(p, Some(&bind), Some(e), &[]);
                        out.accepts.push(a);
                    }
                }
                Strategy::Buffer => {
                    let slots: Vec<SlotId> = p
                        .vars
                        .iter()
                        .enumerate()
                        .map(|(v, var)| {
                            let id = SlotId(b.set.slots.len() as u32);
                            b.set.slots.push(Slot {
                                pattern: p.id,
                                var: VarId(v as u32),
                                domain: p.domain(VarId(v as u32), d),
                                name: format!("p{}_{}", p.id, var.name),
                            });
                            id
                        })
                        .collect();
                    out.accepts.push(b.chain(p, None, None, &slots));
                }
                _ => out.accepts.push(b.chain(p, None, None, &[])),
            }
            out.accepts.sort_unstable();
            out.accepts.dedup();
        }
        b.set.outs.push(out);
    }
    b.set.clusters[0].nodes = 0..b.set.nodes.len();
    Ok(crate::passes::registry::run_engine_pipeline(b.set, cfg))
}
