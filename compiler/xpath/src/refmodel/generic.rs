//! Runs a programmable design's configuration ([`crate::ir::generic`]) in
//! software, slot by slot, as the generic hardware does: one row per open
//! element and cluster (each slot's exact, carry, report and accepted
//! bits), the tag decoder's code and the condition units' bits per
//! element, lanes selecting those bits per cluster. It checks
//! `qrtl xpath configure` without a simulator: every configured query set
//! must give the engine's answers.

use crate::ir::generic::{Bit, Config, Link, Name, Unit};
use crate::ir::value::compare_bytes;
use crate::ir::xpath::{clark_local, clark_uri, Axis, SiblingOrder};
use crate::xml::{ns, tokenizer::Tokenizer, DocStatus, Sink, XmlConfig, XmlErrorAt};

/// The result of one document: the status and the matched query ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenericRun {
    pub status: DocStatus,
    pub error: Option<XmlErrorAt>,
    pub matched: Vec<u32>,
}

/// A cluster's row at one element.
#[derive(Clone)]
struct Row {
    exact: Vec<bool>,
    carry: Vec<bool>,
    reps: Vec<bool>,
    accs: Vec<bool>,
}

impl Row {
    fn new(slots: usize) -> Row {
        Row {
            exact: vec![false; slots],
            carry: vec![false; slots],
            reps: vec![false; slots],
            accs: vec![false; slots],
        }
    }
}

/// Per open element: what the condition units hold for it.
struct Level {
    /// Children counted so far, per positional unit.
    counts: Vec<u64>,
    /// Per comparator: a text child satisfied it (`text()` units).
    texts: Vec<bool>,
}

struct Sim<'a> {
    c: &'a Config,
    rows: Vec<Vec<Row>>,
    levels: Vec<Level>,
    flags: Vec<Vec<bool>>,
    tag: u32,
    /// This element's open-time bits: comparators, then counters.
    comps: Vec<bool>,
    counts: Vec<bool>,
    attr: Option<Name>,
    value: Vec<u8>,
}

impl Sim<'_> {
    fn name(&self, name: &[u8]) -> Name {
        let uri = clark_uri(name)
            .and_then(|u| self.c.uris.iter().position(|x| x == u))
            .map(|i| i as u32);
        // A namespace no entry names matches nothing: keep it apart.
        let uri = match (clark_uri(name), uri) {
            (Some(_), None) => Some(u32::MAX),
            _ => uri,
        };
        Name {
            uri,
            local: clark_local(name).to_vec(),
        }
    }

    fn bit(&self, b: Bit, texts: &[bool]) -> bool {
        match b {
            Bit::Comparator(k) if self.c.comparators[k as usize].is_close_time() => {
                texts[k as usize]
            }
            Bit::Comparator(k) => self.comps[k as usize],
            Bit::Counter(k) => self.counts[k as usize],
        }
    }

    fn lanes_hold(&self, lanes: &[Bit], mask: u32, texts: &[bool]) -> bool {
        (0..lanes.len()).all(|l| mask >> l & 1 == 0 || self.bit(lanes[l], texts))
    }

    /// The positional units at an opening element, in order (a guard
    /// reads earlier units' bits).
    fn count(&mut self) {
        let parent = self.levels.last_mut().expect("document level");
        for (k, u) in self.c.counters.iter().enumerate() {
            let guard = u.guard.iter().all(|&b| match b {
                Bit::Comparator(i) => self.comps[i as usize],
                Bit::Counter(i) => self.counts[i as usize],
            });
            let counted = u.test.is_none_or(|t| t == self.tag) && guard;
            self.counts[k] = false;
            if counted {
                parent.counts[k] += 1;
                self.counts[k] = u.op.num(parent.counts[k] as f64, u.value);
            }
        }
    }

    fn open_cluster(&mut self, k: usize, depth: usize) {
        let cl = &self.c.clusters[k];
        let parent = self.rows[k].last().expect("document row");
        let mut row = Row::new(cl.slots.len());
        for (i, slot) in cl.slots.iter().enumerate() {
            let Some(slot) = slot else { continue };
            let linked = match slot.link {
                Link::Root(Axis::Child) => depth == 1,
                Link::Root(Axis::Descendant) => true,
                Link::Parent { back, axis } => {
                    let p = i - back as usize;
                    match axis {
                        Axis::Child => parent.exact[p],
                        Axis::Descendant => parent.carry[p],
                    }
                }
            };
            let fire = linked
                && slot.tag.is_none_or(|t| t == self.tag)
                && self.lanes_hold(&cl.lanes, slot.open_lanes, &[]);
            row.exact[i] = fire;
            row.carry[i] = fire || parent.carry[i];
            if fire && slot.flag && slot.pop.is_none() {
                self.flags[k][i] = true;
            }
        }
        self.rows[k].push(row);
    }

    /// Recurrence (a)–(d) of ch. 3.2.2 at the close of the element whose
    /// row is `closing`.
    fn close_cluster(&mut self, k: usize, closing: &Row, texts: &[bool]) {
        let cl = &self.c.clusters[k];
        let ordered = self.c.order == SiblingOrder::Ordered;
        let parent = self.rows[k].last_mut().expect("document row");
        let before = parent.accs.clone();
        // A slot's pop children report into `closing` at indexes after it.
        let mut all_in = vec![true; cl.slots.len()];
        for (j, slot) in cl.slots.iter().enumerate() {
            let Some(slot) = slot else { continue };
            if let (Some(p), Link::Parent { back, .. }) = (slot.pop, slot.link) {
                let got = if ordered {
                    closing.accs[j]
                } else {
                    closing.reps[j]
                };
                if p.to_parent && !got {
                    all_in[j - back as usize] = false;
                }
            }
        }
        for (i, slot) in cl.slots.iter().enumerate() {
            let Some(pop) = slot.and_then(|s| s.pop) else {
                continue;
            };
            let flag = slot.is_some_and(|s| s.flag);
            let full = closing.exact[i]
                && all_in[i]
                && (0..cl.lanes.len()).all(|l| {
                    pop.close_lanes >> l & 1 == 0
                        || match cl.lanes[l] {
                            Bit::Comparator(c) => texts[c as usize],
                            Bit::Counter(_) => false,
                        }
                });
            let arrive = full || (pop.axis == Axis::Descendant && closing.reps[i]);
            parent.reps[i] |= arrive;
            let prev_ok = pop
                .prev
                .is_none_or(|d| before[(i as i64 + d as i64) as usize]);
            parent.accs[i] |= arrive && prev_ok;
            if full && flag {
                self.flags[k][i] = true;
            }
        }
    }
}

impl Sink for Sim<'_> {
    fn start_name(&mut self, name: &[u8], _depth: u32) -> bool {
        let n = self.name(name);
        self.tag = self.c.tag_code(&n);
        for (k, u) in self.c.comparators.iter().enumerate() {
            self.comps[k] = matches!(u, Unit::InNamespace(x) if Some(*x) == n.uri);
        }
        true
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.attr = Some(self.name(name));
        self.value.clear();
        true
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        self.value.extend_from_slice(chunk);
    }
    fn attr_end(&mut self) {
        let Some(a) = self.attr.take() else { return };
        for (k, u) in self.c.comparators.iter().enumerate() {
            self.comps[k] |= match u {
                Unit::AttrExists(x) => *x == a,
                Unit::AttrCmp(x, cmp) => *x == a && compare_bytes(&self.value, cmp),
                _ => false,
            };
        }
    }
    fn open(&mut self) {
        self.count();
        let depth = self.levels.len();
        self.levels.push(Level {
            counts: vec![0; self.c.counters.len()],
            texts: vec![false; self.c.comparators.len()],
        });
        for k in 0..self.c.clusters.len() {
            self.open_cluster(k, depth);
        }
    }
    fn close(&mut self) {
        let level = self.levels.pop().expect("an open element");
        for k in 0..self.c.clusters.len() {
            let closing = self.rows[k].pop().expect("an open element");
            self.close_cluster(k, &closing, &level.texts);
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
        let top = self.levels.last_mut().expect("document level");
        for (k, u) in self.c.comparators.iter().enumerate() {
            top.texts[k] |= match u {
                Unit::TextExists => true,
                Unit::TextCmp(cmp) => compare_bytes(&self.value, cmp),
                _ => false,
            };
        }
    }
}

/// Filter one document through the configured generic design. `xml`'s
/// depth is the design's (`xml.namespaces` is set from the shape).
pub fn run_document(config: &Config, mut xml: XmlConfig, doc: &[u8]) -> GenericRun {
    let c = config;
    let mut sim = Sim {
        c,
        rows: c
            .clusters
            .iter()
            .map(|cl| vec![Row::new(cl.slots.len())])
            .collect(),
        levels: vec![Level {
            counts: vec![0; c.counters.len()],
            texts: vec![false; c.comparators.len()],
        }],
        flags: c
            .clusters
            .iter()
            .map(|cl| vec![false; cl.slots.len()])
            .collect(),
        tag: 0,
        comps: vec![false; c.comparators.len()],
        counts: vec![false; c.counters.len()],
        attr: None,
        value: Vec::new(),
    };
    xml.namespaces = c.shape.namespaces == crate::ir::xpath::Namespaces::Xpath;
    let mut tok = Tokenizer::new(xml);
    let result = if xml.namespaces {
        let wants = ns::AttrWants {
            names: true,
            values: true,
        };
        let mut layer = match xml.ns_limits {
            Some(l) => ns::Layer::with_limits(wants, l, xml.attr_name_bytes),
            None => ns::Layer::new(wants),
        };
        tok.feed(doc, &mut layer.sink(&mut sim));
        tok.finish(&mut layer.sink(&mut sim))
    } else {
        tok.feed(doc, &mut sim);
        tok.finish(&mut sim)
    };
    let error = result.err();
    let matched = c
        .queries
        .iter()
        .enumerate()
        .filter(|(_, flags)| {
            flags
                .iter()
                .all(|&(k, s)| sim.flags[k as usize][s as usize])
        })
        .map(|(q, _)| q as u32)
        .collect();
    GenericRun {
        status: error.map_or(DocStatus::Ok, |e| e.error.status()),
        error,
        matched,
    }
}
