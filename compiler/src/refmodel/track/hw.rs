//! What the hardware of one variable strategy reports: the [`EngineSet`]
//! run node by node, one event per step, exactly as the RTL updates its
//! flip-flops (ch. 4.4). All nodes update at once from the previous states:
//!
//! * enable = `from_start` or some predecessor's previous state;
//! * a node with a test: state = enable ∧ window ∧ test;
//! * an aggregator (`?+`/`?*`): state = enable ∨ its previous state;
//! * buffers (`buffer` strategy), one bit per region of the slot's domain,
//!   all zero while the node's state is 0: a node receives the OR of its
//!   active predecessors' buffers; `VarFirst` sets its slot's buffer to the
//!   event's region (which must be in the domain), `VarAgain` keeps the
//!   incoming bits of the event's region (and passes only if one is set),
//!   an aggregator ORs what it receives into what it holds (ch. 4.4.5), and
//!   every other carried slot passes through unchanged.
//!
//! A pattern is reported when one of its accepting nodes is set after some
//! event of the trajectory (or at once for an `always` pattern).

use super::Event;
use crate::ir::track::{EngineSet, NodeTest, TrackDesign};

/// One buffer: a bit per domain region.
type Bits = Vec<u64>;

fn words(n: usize) -> usize {
    n.div_ceil(64).max(1)
}

/// The state of every node while a trajectory streams.
pub struct HwModel<'a> {
    design: &'a TrackDesign,
    set: &'a EngineSet,
    state: Vec<bool>,
    next: Vec<bool>,
    /// Per node, per carried slot (in `carries` order).
    bufs: Vec<Vec<Bits>>,
    next_bufs: Vec<Vec<Bits>>,
    matched: Vec<bool>,
}

impl<'a> HwModel<'a> {
    pub fn new(design: &'a TrackDesign, set: &'a EngineSet) -> Self {
        let bufs: Vec<Vec<Bits>> = set
            .nodes
            .iter()
            .map(|n| {
                n.carries
                    .iter()
                    .map(|s| vec![0; words(set.slots[s.index()].domain.len())])
                    .collect()
            })
            .collect();
        HwModel {
            design,
            set,
            state: vec![false; set.nodes.len()],
            next: vec![false; set.nodes.len()],
            next_bufs: bufs.clone(),
            bufs,
            matched: vec![false; set.outs.len()],
        }
    }

    /// The patterns the hardware reports for one trajectory, ascending.
    pub fn run(&mut self, events: &[Event]) -> Vec<usize> {
        self.state.iter_mut().for_each(|b| *b = false);
        for node in self.bufs.iter_mut() {
            for b in node.iter_mut() {
                b.iter_mut().for_each(|w| *w = 0);
            }
        }
        self.matched.iter_mut().for_each(|m| *m = false);
        for e in events {
            self.step(e);
        }
        if !events.is_empty() {
            for (m, o) in self.matched.iter_mut().zip(&self.set.outs) {
                *m |= o.always;
            }
        }
        (0..self.matched.len())
            .filter(|&i| self.matched[i])
            .collect()
    }

    fn step(&mut self, e: &Event) {
        let set = self.set;
        for (n, node) in set.nodes.iter().enumerate() {
            let enable = node.from_start || node.preds.iter().any(|p| self.state[p.index()]);
            let window = node
                .window
                .is_none_or(|w| self.design.windows[w.index()].holds(e.entry, e.exit));
            // Incoming buffers for each carried slot (and for a VarAgain slot).
            let incoming =
                |slot: crate::ir::track::SlotId, bufs: &Vec<Vec<Bits>>, state: &Vec<bool>| {
                    let mut acc = vec![0u64; words(set.slots[slot.index()].domain.len())];
                    for p in &node.preds {
                        if !state[p.index()] {
                            continue;
                        }
                        let pn = &set.nodes[p.index()];
                        if let Some(k) = pn.carries.iter().position(|s| *s == slot) {
                            for (a, b) in acc.iter_mut().zip(&bufs[p.index()][k]) {
                                *a |= b;
                            }
                        }
                    }
                    acc
                };
            let mut own: Option<(crate::ir::track::SlotId, Bits)> = None;
            let on = match &node.test {
                None => enable || self.state[n],
                Some(t) => {
                    enable
                        && window
                        && match t {
                            NodeTest::Any => true,
                            NodeTest::Region(r) => e.region == *r,
                            NodeTest::NotRegion(r) => e.region != *r,
                            NodeTest::InSet(s) => s.contains(&e.region),
                            NodeTest::VarFirst(s) => {
                                let dom = &set.slots[s.index()].domain;
                                match dom.binary_search(&e.region) {
                                    Ok(k) => {
                                        let mut b = vec![0u64; words(dom.len())];
                                        b[k / 64] |= 1 << (k % 64);
                                        own = Some((*s, b));
                                        true
                                    }
                                    Err(_) => false,
                                }
                            }
                            NodeTest::VarAgain(s) => {
                                let dom = &set.slots[s.index()].domain;
                                let inc = incoming(*s, &self.bufs, &self.state);
                                match dom.binary_search(&e.region) {
                                    Ok(k) if inc[k / 64] >> (k % 64) & 1 == 1 => {
                                        let mut b = vec![0u64; words(dom.len())];
                                        b[k / 64] |= 1 << (k % 64);
                                        own = Some((*s, b));
                                        true
                                    }
                                    _ => false,
                                }
                            }
                        }
                }
            };
            self.next[n] = on;
            for (k, s) in node.carries.iter().enumerate() {
                let v = if !on {
                    vec![0u64; words(set.slots[s.index()].domain.len())]
                } else if let Some((_, b)) = own.as_ref().filter(|(os, _)| os == s) {
                    b.clone()
                } else {
                    let mut v = incoming(*s, &self.bufs, &self.state);
                    if node.test.is_none() {
                        for (a, b) in v.iter_mut().zip(&self.bufs[n][k]) {
                            *a |= b;
                        }
                    }
                    v
                };
                self.next_bufs[n][k] = v;
            }
        }
        std::mem::swap(&mut self.state, &mut self.next);
        std::mem::swap(&mut self.bufs, &mut self.next_bufs);
        for (m, o) in self.matched.iter_mut().zip(&set.outs) {
            *m |= o.accepts.iter().any(|a| self.state[a.index()]);
        }
    }
}
