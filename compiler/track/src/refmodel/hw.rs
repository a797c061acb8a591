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
//!
//! Buffers live in one flat word array (an offset per node and carried
//! slot); the predecessors feeding each buffer and each slot's
//! region-to-bit table are computed once, so a step allocates nothing.

use super::Event;
use crate::ir::{EngineSet, NodeTest, TrackDesign};

fn words(n: usize) -> usize {
    n.div_ceil(64).max(1)
}

/// A carried buffer of a node: where it lives and where its input comes from.
struct Buf {
    slot: usize,
    offset: usize,
    words: usize,
    /// Offsets of the same slot's buffers of the predecessors carrying it,
    /// with the predecessor's node index.
    from: Vec<(usize, usize)>,
}

/// The state of every node while a trajectory streams.
pub struct HwModel<'a> {
    design: &'a TrackDesign,
    set: &'a EngineSet,
    state: Vec<bool>,
    next: Vec<bool>,
    bufs: Vec<Vec<Buf>>,
    /// Per node: for a `VarAgain` test, the incoming buffers of its slot
    /// (predecessor node, offset).
    again_from: Vec<Vec<(usize, usize)>>,
    /// Per slot: region code → bit index (or -1).
    bit_of: Vec<Vec<i32>>,
    words: Vec<u64>,
    next_words: Vec<u64>,
    scratch: Vec<u64>,
    matched: Vec<bool>,
}

impl<'a> HwModel<'a> {
    pub fn new(design: &'a TrackDesign, set: &'a EngineSet) -> Self {
        let mut offset = 0;
        let mut bufs: Vec<Vec<Buf>> = Vec::with_capacity(set.nodes.len());
        for n in &set.nodes {
            let mut v = Vec::new();
            for s in &n.carries {
                let w = words(set.slots[s.index()].domain.len());
                v.push(Buf {
                    slot: s.index(),
                    offset,
                    words: w,
                    from: Vec::new(),
                });
                offset += w;
            }
            bufs.push(v);
        }
        let find = |bufs: &Vec<Vec<Buf>>, node: usize, slot: usize| {
            bufs[node].iter().find(|b| b.slot == slot).map(|b| b.offset)
        };
        let mut again_from = vec![Vec::new(); set.nodes.len()];
        for (i, n) in set.nodes.iter().enumerate() {
            for k in 0..bufs[i].len() {
                let slot = bufs[i][k].slot;
                let from: Vec<(usize, usize)> = n
                    .preds
                    .iter()
                    .filter_map(|p| find(&bufs, p.index(), slot).map(|o| (p.index(), o)))
                    .collect();
                bufs[i][k].from = from;
            }
            if let Some(NodeTest::VarAgain(s)) = n.test {
                again_from[i] = n
                    .preds
                    .iter()
                    .filter_map(|p| find(&bufs, p.index(), s.index()).map(|o| (p.index(), o)))
                    .collect();
            }
        }
        let codes = design.regions.len() + 1;
        let bit_of = set
            .slots
            .iter()
            .map(|s| {
                let mut t = vec![-1i32; codes];
                for (k, &r) in s.domain.iter().enumerate() {
                    if (r as usize) < codes {
                        t[r as usize] = k as i32;
                    }
                }
                t
            })
            .collect();
        let maxw = set
            .slots
            .iter()
            .map(|s| words(s.domain.len()))
            .max()
            .unwrap_or(1);
        HwModel {
            design,
            set,
            state: vec![false; set.nodes.len()],
            next: vec![false; set.nodes.len()],
            bufs,
            again_from,
            bit_of,
            words: vec![0; offset],
            next_words: vec![0; offset],
            scratch: vec![0; maxw],
            matched: vec![false; set.outs.len()],
        }
    }

    /// The patterns the hardware reports for one trajectory, ascending.
    pub fn run(&mut self, events: &[Event]) -> Vec<usize> {
        self.state.iter_mut().for_each(|b| *b = false);
        self.words.iter_mut().for_each(|w| *w = 0);
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

    fn bit(&self, slot: usize, region: u32) -> Option<usize> {
        let k = *self.bit_of[slot].get(region as usize)?;
        (k >= 0).then_some(k as usize)
    }

    fn step(&mut self, e: &Event) {
        let set = self.set;
        for (n, node) in set.nodes.iter().enumerate() {
            let enable = node.from_start || node.preds.iter().any(|p| self.state[p.index()]);
            let window = node
                .window
                .is_none_or(|w| self.design.windows[w.index()].holds(e.entry, e.exit));
            // (slot, bit) of the one-region buffer a variable node produces.
            let mut own: Option<(usize, usize)> = None;
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
                            NodeTest::VarFirst(s) => match self.bit(s.index(), e.region) {
                                Some(k) => {
                                    own = Some((s.index(), k));
                                    true
                                }
                                None => false,
                            },
                            NodeTest::VarAgain(s) => match self.bit(s.index(), e.region) {
                                Some(k) => {
                                    let hit = self.again_from[n].iter().any(|&(p, off)| {
                                        self.state[p]
                                            && self.words[off + k / 64] >> (k % 64) & 1 == 1
                                    });
                                    if hit {
                                        own = Some((s.index(), k));
                                    }
                                    hit
                                }
                                None => false,
                            },
                        }
                }
            };
            self.next[n] = on;
            for b in &self.bufs[n] {
                let acc = &mut self.scratch[..b.words];
                acc.iter_mut().for_each(|w| *w = 0);
                if on {
                    match own {
                        Some((slot, k)) if slot == b.slot => acc[k / 64] |= 1 << (k % 64),
                        _ => {
                            for &(p, off) in &b.from {
                                if self.state[p] {
                                    for (a, w) in
                                        acc.iter_mut().zip(&self.words[off..off + b.words])
                                    {
                                        *a |= w;
                                    }
                                }
                            }
                            if node.test.is_none() {
                                for (a, w) in acc
                                    .iter_mut()
                                    .zip(&self.words[b.offset..b.offset + b.words])
                                {
                                    *a |= w;
                                }
                            }
                        }
                    }
                }
                self.next_words[b.offset..b.offset + b.words].copy_from_slice(acc);
            }
        }
        std::mem::swap(&mut self.state, &mut self.next);
        std::mem::swap(&mut self.words, &mut self.next_words);
        for (m, o) in self.matched.iter_mut().zip(&set.outs) {
            *m |= o.accepts.iter().any(|a| self.state[a.index()]);
        }
    }
}
