//! Runs the stack IR in software, column by column, exactly as the emitted
//! RTL does (one stack row per open element: the element's tag and its
//! column bits; nodes read the parent row as `ir::stacks::Read` says; the
//! row's mutable part holds the sibling counters of the element's children,
//! its `text()` results and the pop nodes' reports).
//! It is slow and simple on purpose: it checks the stack passes (every
//! pass combination must agree with `refmodel::xpath::Engine`) without a
//! simulator, and it is the model the RTL is closest to.

use crate::ir::stacks::{ColId, ColKind, FlagSrc, HwNodeId, PopId, Read, StackDesign};
use crate::ir::value::compare_bytes;
use crate::ir::xpath::{AttrId, Axis, CondKind, QueryId, SiblingOrder, TagId};
use crate::xml::{tokenizer::tokenize, DocStatus, Sink, XmlConfig, XmlErrorAt};

/// Result of one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackRun {
    pub status: DocStatus,
    pub error: Option<XmlErrorAt>,
    pub matched: Vec<QueryId>,
}

#[derive(Clone)]
struct Row {
    tag: TagId,
    cols: Vec<bool>,
    /// Per design condition: a text child satisfied it.
    texts: Vec<bool>,
    /// Per pop node: reports received (raw) and accepted in sibling order.
    reps: Vec<bool>,
    accs: Vec<bool>,
}

impl Row {
    fn empty(d: &StackDesign, columns: usize, pops: usize) -> Row {
        Row {
            tag: TagId::OTHER,
            cols: vec![false; columns],
            texts: vec![false; d.conds.len()],
            reps: vec![false; pops],
            accs: vec![false; pops],
        }
    }
}

struct Sim<'a> {
    d: &'a StackDesign,
    reads: Vec<Vec<Read>>,
    /// Per cluster and pop node: its "fired here" column and tag check.
    heres: Vec<Vec<(ColId, Option<TagId>)>>,
    /// Per cluster: the stack of rows (index 0 = the document node).
    stacks: Vec<Vec<Row>>,
    flags: Vec<Vec<bool>>,
    /// Per open element (index 0 = the document node): its children
    /// counted so far, per design counter (every cluster keeps a copy of
    /// the counters it reads; they all count alike).
    counts: Vec<Vec<u64>>,
    tag: TagId,
    cond_true: Vec<bool>,
    attr: Option<AttrId>,
    value: Vec<u8>,
}

impl Sim<'_> {
    /// Sibling counters (in the parent's row) and positions, in counter
    /// order (guards only read earlier counters' positions).
    fn count_siblings(&mut self) {
        let parent = self.counts.last_mut().expect("document level");
        for (k, counter) in self.d.counters.iter().enumerate() {
            let counted = counter.test.accepts(self.tag)
                && counter.guard.iter().all(|g| self.cond_true[g.index()]);
            if !counted {
                continue;
            }
            parent[k] += 1;
            let pos = parent[k];
            for (i, c) in self.d.conds.iter().enumerate() {
                if let CondKind::Position { counter, op, value } = c {
                    if counter.index() == k && op.num(pos as f64, f64::from_bits(*value)) {
                        self.cond_true[i] = true;
                    }
                }
            }
        }
    }

    /// Recurrence (a)–(d) at the close of the element with row `closing`:
    /// update the parent row's reports and set the flags of pop roots.
    fn close_row(&mut self, k: usize, closing: &Row, parent: &mut Row) {
        let cl = &self.d.clusters[k];
        let ordered = self.d.order == SiblingOrder::Ordered;
        let before = parent.clone();
        let mut full = vec![false; cl.pops.len()];
        for (i, pop) in cl.pops.iter().enumerate() {
            let (col, gs) = self.heres[k][i];
            let here = closing.cols[col.index()] && gs.is_none_or(|t| closing.tag == t);
            full[i] = here
                && pop.close_conds.iter().all(|c| closing.texts[c.index()])
                && pop.children.iter().all(|c| {
                    if ordered {
                        closing.accs[c.index()]
                    } else {
                        closing.reps[c.index()]
                    }
                });
            let arrive = full[i] || (pop.axis == Axis::Descendant && closing.reps[i]);
            parent.reps[i] |= arrive;
            let prev_ok = pop.prev.is_none_or(|p| before.accs[p.index()]);
            parent.accs[i] |= arrive && prev_ok;
        }
        for (f, flag) in cl.flags.iter().enumerate() {
            if let FlagSrc::Pop(p) = flag.src {
                self.flags[k][f] |= full[p.index()];
            }
        }
    }
}

impl Sink for Sim<'_> {
    fn start_name(&mut self, name: &[u8], _depth: u32) -> bool {
        self.tag = self.d.tags.decode(name);
        self.cond_true.iter_mut().for_each(|c| *c = false);
        true
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.attr = self.d.attrs.get(name);
        self.value.clear();
        true
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        self.value.extend_from_slice(chunk);
    }
    fn attr_end(&mut self) {
        let Some(a) = self.attr else { return };
        for (i, c) in self.d.conds.iter().enumerate() {
            let holds = match c {
                CondKind::AttrExists(x) => *x == a,
                CondKind::AttrCmp(x, cmp) => *x == a && compare_bytes(&self.value, cmp),
                _ => false,
            };
            self.cond_true[i] |= holds;
        }
    }
    fn open(&mut self) {
        self.count_siblings();
        self.counts.push(vec![0; self.d.counters.len()]);
        for k in 0..self.d.clusters.len() {
            let parent = self.stacks[k].pop().expect("document row");
            let cl = &self.d.clusters[k];
            let depth = self.stacks[k].len() + 1; // the new element's depth
            let mut row = Row::empty(self.d, cl.columns.len(), cl.pops.len());
            row.tag = self.tag;
            for (i, node) in cl.nodes.iter().enumerate() {
                let read_ok = match self.reads[k][i] {
                    Read::Doc(Axis::Child) => depth == 1,
                    Read::Doc(Axis::Descendant) => true,
                    Read::Gs { root_axis, tag } => {
                        let deep = match root_axis {
                            Axis::Child => depth == 2,
                            Axis::Descendant => depth >= 2,
                        };
                        deep && tag.is_none_or(|t| parent.tag == t)
                    }
                    Read::Column { col, gs } => {
                        parent.cols[col.index()] && gs.is_none_or(|t| parent.tag == t)
                    }
                };
                let fire = read_ok
                    && node.test.accepts(self.tag)
                    && node.conds.iter().all(|c| self.cond_true[c.index()]);
                if let Some(c) = node.exact {
                    row.cols[c.index()] |= fire;
                }
                if let Some(c) = node.carry {
                    row.cols[c.index()] = fire || parent.cols[c.index()];
                }
                if fire {
                    for (f, flag) in cl.flags.iter().enumerate() {
                        if flag.src == FlagSrc::Fire(HwNodeId(i as u32)) {
                            self.flags[k][f] = true;
                        }
                    }
                }
            }
            debug_assert!(cl
                .columns
                .iter()
                .all(|c| matches!(c.kind, ColKind::Exact | ColKind::Carry)));
            self.stacks[k].push(parent);
            self.stacks[k].push(row);
        }
    }
    fn close(&mut self) {
        self.counts.pop();
        for k in 0..self.d.clusters.len() {
            let closing = self.stacks[k].pop().expect("an open element");
            let mut parent = self.stacks[k].pop().expect("document row");
            self.close_row(k, &closing, &mut parent);
            self.stacks[k].push(parent);
        }
    }
    fn wants_text(&mut self) -> bool {
        self.value.clear();
        true
    }
    fn text(&mut self, chunk: &[u8]) {
        self.value.extend_from_slice(chunk);
    }
    fn text_end(&mut self) {
        for k in 0..self.d.clusters.len() {
            let top = self.stacks[k].last_mut().expect("document row");
            for (i, c) in self.d.conds.iter().enumerate() {
                top.texts[i] |= match c {
                    CondKind::TextExists => true,
                    CondKind::TextCmp(cmp) => compare_bytes(&self.value, cmp),
                    _ => false,
                };
            }
        }
    }
}

/// Filter one document with the stack model.
pub fn run_document(design: &StackDesign, xml: XmlConfig, doc: &[u8]) -> StackRun {
    let mut reads = Vec::new();
    let mut heres = Vec::new();
    for cl in &design.clusters {
        let members = cl.column_members();
        reads.push(
            (0..cl.nodes.len())
                .map(|i| cl.read_of(HwNodeId(i as u32), &members))
                .collect(),
        );
        heres.push(
            (0..cl.pops.len())
                .map(|i| cl.here_of(PopId(i as u32), &members))
                .collect(),
        );
    }
    let mut sim = Sim {
        d: design,
        reads,
        heres,
        stacks: design
            .clusters
            .iter()
            .map(|cl| vec![Row::empty(design, cl.columns.len(), cl.pops.len())])
            .collect(),
        flags: design
            .clusters
            .iter()
            .map(|cl| vec![false; cl.flags.len()])
            .collect(),
        counts: vec![vec![0; design.counters.len()]],
        tag: TagId::OTHER,
        cond_true: vec![false; design.conds.len()],
        attr: None,
        value: Vec::new(),
    };
    let result = tokenize(xml, doc, &mut sim);
    let error = result.err();
    let matched = design
        .queries
        .iter()
        .filter(|q| q.flags.iter().all(|f| sim.flags[q.cluster][f.index()]))
        .map(|q| q.id)
        .collect();
    StackRun {
        status: error.map_or(DocStatus::Ok, |e| e.error.status()),
        error,
        matched,
    }
}
