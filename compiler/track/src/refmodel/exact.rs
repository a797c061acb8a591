//! The exact FlexTrack engine (SPEC §4.2).
//!
//! A pattern is an NFA over its items. After each event the engine keeps
//! the set of *configurations* `(item, binding)`: some run that ends at this
//! event has its last event consumed by `item`, with these variable
//! bindings. From a configuration at item `i`, the next event may be
//! consumed by `i` again (an aggregator) or by any item reachable over
//! `?*` items (they consume nothing); a new run may start at item 0 at any
//! event. The pattern matches when a configuration reaches its last item.
//! Variable-free patterns keep one bit per item instead (the bindings are
//! empty), which is the common case and much faster.

use super::Event;
use crate::ir::{Pattern, Step, Test, TrackDesign, VarId};
use rustc_hash::FxHashSet;

/// Sentinel: the variable is not bound yet.
const UNBOUND: u32 = u32::MAX;

/// Runs every pattern of a design over trajectories.
pub struct ExactEngine<'d> {
    design: &'d TrackDesign,
}

impl<'d> ExactEngine<'d> {
    pub fn new(design: &'d TrackDesign) -> Self {
        ExactEngine { design }
    }

    /// Ids of the patterns matching the trajectory's events, ascending.
    pub fn matches(&self, events: &[Event]) -> Vec<usize> {
        self.design
            .patterns
            .iter()
            .filter(|p| pattern_matches(self.design, p, events))
            .map(|p| p.id)
            .collect()
    }
}

/// Does item `i` accept `e` under `binding`? Returns the new binding.
fn consume(d: &TrackDesign, p: &Pattern, i: usize, e: &Event, binding: &[u32]) -> Option<Vec<u32>> {
    match &p.items[i].step {
        Step::Plus | Step::Star => Some(binding.to_vec()),
        Step::One { test, window } => {
            if let Some(w) = window {
                if !d.windows[w.index()].holds(e.entry, e.exit) {
                    return None;
                }
            }
            match test {
                Test::Any => Some(binding.to_vec()),
                Test::Region(r) => (e.region == *r).then(|| binding.to_vec()),
                Test::NotRegion(r) => (e.region != *r).then(|| binding.to_vec()),
                Test::Var(v) => bind(p, *v, e.region, binding),
            }
        }
    }
}

fn bind(p: &Pattern, v: VarId, region: u32, binding: &[u32]) -> Option<Vec<u32>> {
    if region == crate::input::NO_REGION {
        return None;
    }
    if let Some(set) = &p.vars[v.index()].set {
        if set.binary_search(&region).is_err() {
            return None;
        }
    }
    let b = binding[v.index()];
    if b != UNBOUND && b != region {
        return None;
    }
    let mut out = binding.to_vec();
    out[v.index()] = region;
    Some(out)
}

/// Items that may consume the event after one consumed by `i`.
fn successors(p: &Pattern, i: usize, out: &mut Vec<usize>) {
    out.clear();
    if p.is_aggregator(i) {
        out.push(i);
    }
    let mut j = i + 1;
    while j < p.items.len() {
        out.push(j);
        if p.items[j].step != Step::Star {
            break;
        }
        j += 1;
    }
}

/// The SPEC §4.2 answer for one pattern.
pub fn pattern_matches(d: &TrackDesign, p: &Pattern, events: &[Event]) -> bool {
    if p.items.is_empty() {
        return !events.is_empty();
    }
    let last = p.items.len() - 1;
    let mut succ = Vec::new();
    if p.vars.is_empty() {
        let mut cur = vec![false; p.items.len()];
        let mut next = vec![false; p.items.len()];
        for e in events {
            next.iter_mut().for_each(|b| *b = false);
            // Candidates: item 0 (a new run) and the successors of live items.
            let try_item = |j: usize, next: &mut Vec<bool>| {
                if !next[j] && consume(d, p, j, e, &[]).is_some() {
                    next[j] = true;
                }
            };
            try_item(0, &mut next);
            for (i, &live) in cur.iter().enumerate() {
                if live {
                    successors(p, i, &mut succ);
                    for &j in &succ {
                        try_item(j, &mut next);
                    }
                }
            }
            if next[last] {
                return true;
            }
            std::mem::swap(&mut cur, &mut next);
        }
        return false;
    }
    let fresh = vec![UNBOUND; p.vars.len()];
    let mut cur: FxHashSet<(usize, Vec<u32>)> = FxHashSet::default();
    let mut next: FxHashSet<(usize, Vec<u32>)> = FxHashSet::default();
    for e in events {
        next.clear();
        if let Some(b) = consume(d, p, 0, e, &fresh) {
            next.insert((0, b));
        }
        for (i, b) in &cur {
            successors(p, *i, &mut succ);
            for &j in &succ {
                if let Some(nb) = consume(d, p, j, e, b) {
                    next.insert((j, nb));
                }
            }
        }
        if next.iter().any(|(i, _)| *i == last) {
            return true;
        }
        std::mem::swap(&mut cur, &mut next);
    }
    false
}
