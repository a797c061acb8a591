//! Runs the stack IR in software, column by column, exactly as the emitted
//! RTL does (one stack row per open element: the element's tag and its
//! column bits; nodes read the parent row as `ir::stacks::Read` says).
//! It is slow and simple on purpose: it checks the stack passes (every
//! pass combination must agree with `refmodel::xpath::Engine`) without a
//! simulator, and it is the model the RTL is closest to.

use crate::ir::stacks::{ColKind, HwNodeId, Read, StackDesign};
use crate::ir::value::compare_bytes;
use crate::ir::xpath::{AttrId, Axis, CondKind, QueryId, TagId};
use crate::xml::{tokenizer::tokenize, DocStatus, Sink, XmlConfig, XmlErrorAt};

/// Result of one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackRun {
    pub status: DocStatus,
    pub error: Option<XmlErrorAt>,
    pub matched: Vec<QueryId>,
}

struct Row {
    tag: TagId,
    cols: Vec<bool>,
}

struct Sim<'a> {
    d: &'a StackDesign,
    reads: Vec<Vec<Read>>,
    /// Per cluster: the stack of rows (index 0 = the document node).
    stacks: Vec<Vec<Row>>,
    flags: Vec<Vec<bool>>,
    tag: TagId,
    cond_true: Vec<bool>,
    attr: Option<AttrId>,
    value: Vec<u8>,
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
        for (k, cl) in self.d.clusters.iter().enumerate() {
            let stack = &self.stacks[k];
            let parent = stack.last().expect("document row");
            let depth = stack.len(); // the new element's depth
            let mut cols = vec![false; cl.columns.len()];
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
                    cols[c.index()] |= fire;
                }
                if let Some(c) = node.carry {
                    cols[c.index()] = fire || parent.cols[c.index()];
                }
                if fire {
                    for (f, flag) in cl.flags.iter().enumerate() {
                        if flag.node == HwNodeId(i as u32) {
                            self.flags[k][f] = true;
                        }
                    }
                }
            }
            debug_assert!(cl
                .columns
                .iter()
                .all(|c| matches!(c.kind, ColKind::Exact | ColKind::Carry)));
            self.stacks[k].push(Row {
                tag: self.tag,
                cols,
            });
        }
    }
    fn close(&mut self) {
        for s in &mut self.stacks {
            s.pop();
        }
    }
    fn wants_text(&mut self) -> bool {
        false
    }
    fn text(&mut self, _chunk: &[u8]) {}
    fn text_end(&mut self) {}
}

/// Filter one document with the stack model.
pub fn run_document(design: &StackDesign, xml: XmlConfig, doc: &[u8]) -> StackRun {
    let reads = design
        .clusters
        .iter()
        .map(|cl| {
            let members = cl.column_members();
            (0..cl.nodes.len())
                .map(|i| cl.read_of(HwNodeId(i as u32), &members))
                .collect()
        })
        .collect();
    let mut sim = Sim {
        d: design,
        reads,
        stacks: design
            .clusters
            .iter()
            .map(|cl| {
                vec![Row {
                    tag: TagId::OTHER,
                    cols: vec![false; cl.columns.len()],
                }]
            })
            .collect(),
        flags: design
            .clusters
            .iter()
            .map(|cl| vec![false; cl.flags.len()])
            .collect(),
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
