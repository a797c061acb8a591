//! `prefix-merge` (ch. 2.6.2.2, applied to custom hardware): inside a
//! cluster, steps with the same predecessor, axis, test and conditions are
//! one node, so queries sharing a prefix share its logic and columns (the
//! "minimal tree" of Fig. 2.12). Pop nodes of identical twig subtrees are
//! shared the same way. Runs after `cluster`, before the column passes.

use super::registry::StackPassConfig;
use crate::ir::stacks::{Cluster, FlagId, FlagSrc, HwNodeId, PopId, StackDesign};
use crate::ir::xpath::{Axis, CondId, Test};
use qrtl_core::pass::Pass;
use rustc_hash::FxHashMap as HashMap;

pub struct PrefixMerge;

impl Pass<StackDesign, StackPassConfig> for PrefixMerge {
    fn name(&self) -> &'static str {
        "prefix-merge"
    }
    fn description(&self) -> &'static str {
        "share common query prefixes inside a cluster"
    }
    fn run(&self, mut design: StackDesign, _config: &StackPassConfig) -> StackDesign {
        for k in 0..design.clusters.len() {
            let old = std::mem::take(&mut design.clusters[k]);
            let mut cl = Cluster {
                columns: old.columns.clone(),
                name: old.name.clone(),
                ..Cluster::default()
            };
            type Key = (Option<HwNodeId>, Axis, Test, Vec<CondId>);
            let mut index: HashMap<Key, HwNodeId> = HashMap::default();
            let mut map = Vec::with_capacity(old.nodes.len());
            for node in &old.nodes {
                let parent = node.parent.map(|p| map[p.index()]);
                let key = (parent, node.axis, node.test, node.conds.clone());
                let id = match index.get(&key) {
                    Some(&id) => {
                        let m = &mut cl.nodes[id.index()];
                        m.exact = m.exact.or(node.exact);
                        m.carry = m.carry.or(node.carry);
                        m.origins.extend(node.origins.iter().cloned());
                        id
                    }
                    None => {
                        let mut n = node.clone();
                        n.parent = parent;
                        cl.nodes.push(n);
                        let id = HwNodeId(cl.nodes.len() as u32 - 1);
                        index.insert(key, id);
                        id
                    }
                };
                map.push(id);
            }
            // Pop nodes: identical subtrees (same push node, axis, text()
            // conditions, children and ordered predecessor after merging)
            // report identically, so they share one pop node.
            type PopKey = (HwNodeId, Axis, Vec<CondId>, Vec<PopId>, Option<PopId>);
            let mut pop_index: HashMap<PopKey, PopId> = HashMap::default();
            let mut pop_map: Vec<PopId> = Vec::with_capacity(old.pops.len());
            for pop in &old.pops {
                let mut p = pop.clone();
                p.push = map[p.push.index()];
                for c in &mut p.children {
                    *c = pop_map[c.index()];
                }
                p.prev = p.prev.map(|x| pop_map[x.index()]);
                let mut kids = p.children.clone();
                kids.sort();
                let key = (p.push, p.axis, p.close_conds.clone(), kids, p.prev);
                let id = *pop_index.entry(key).or_insert_with(|| {
                    cl.pops.push(p);
                    PopId(cl.pops.len() as u32 - 1)
                });
                pop_map.push(id);
            }
            // One flag per source.
            let mut flag_of: HashMap<FlagSrc, FlagId> = HashMap::default();
            let mut flag_map = Vec::with_capacity(old.flags.len());
            for f in &old.flags {
                let src = match f.src {
                    FlagSrc::Fire(n) => FlagSrc::Fire(map[n.index()]),
                    FlagSrc::Pop(p) => FlagSrc::Pop(pop_map[p.index()]),
                };
                let id = *flag_of.entry(src).or_insert_with(|| {
                    let mut f = f.clone();
                    f.src = src;
                    cl.flags.push(f);
                    FlagId(cl.flags.len() as u32 - 1)
                });
                flag_map.push(id);
            }
            cl.renumber_columns();
            design.clusters[k] = cl;
            for q in design.queries.iter_mut().filter(|q| q.cluster == k) {
                for f in &mut q.flags {
                    *f = flag_map[f.index()];
                }
                q.flags.sort();
                q.flags.dedup();
            }
        }
        design
    }
}
