//! `cluster` (ch. 2.5.4): distribute the queries over clusters of at most
//! `--cluster-size` queries. Each cluster gets its own tag decoder, global
//! stack and stack memory, and the event stream is pipelined from cluster to
//! cluster, so no decoder or stack pointer drives more than one cluster's
//! columns. Queries are grouped in text order so that queries sharing a
//! prefix land in one cluster (prefix merging only works inside a cluster).
//! Must run before `prefix-merge` and every column pass.

use super::registry::{StackPass, StackPassConfig};
use crate::ir::stacks::{Cluster, FlagId, HwNodeId, StackDesign};
use std::collections::HashMap;

pub struct ClusterQueries;

impl StackPass for ClusterQueries {
    fn name(&self) -> &'static str {
        "cluster"
    }
    fn description(&self) -> &'static str {
        "distribute queries over clusters of --cluster-size queries"
    }
    fn run(&self, mut design: StackDesign, config: &StackPassConfig) -> StackDesign {
        let size = config.cluster_size;
        if size == 0 || design.queries.len() <= size {
            return design;
        }
        let mut order: Vec<usize> = (0..design.queries.len()).collect();
        order.sort_by(|&a, &b| {
            design.queries[a]
                .text
                .trim()
                .cmp(design.queries[b].text.trim())
        });
        let old = std::mem::take(&mut design.clusters);
        for group in order.chunks(size) {
            let k = design.clusters.len();
            let mut cl = Cluster::default();
            // Source (cluster, node) → new node; (cluster, flag) → new flag.
            let mut node_map: HashMap<(usize, HwNodeId), HwNodeId> = HashMap::new();
            let mut flag_map: HashMap<(usize, FlagId), FlagId> = HashMap::new();
            for &qi in group {
                let q = &design.queries[qi];
                let src = &old[q.cluster];
                let mut new_flags = Vec::new();
                for &f in &q.flags {
                    if let Some(&nf) = flag_map.get(&(q.cluster, f)) {
                        new_flags.push(nf);
                        continue;
                    }
                    // Copy the chain root-first so parents precede children.
                    let mut chain = Vec::new();
                    let mut n = Some(src.flags[f.index()].node);
                    while let Some(x) = n {
                        if node_map.contains_key(&(q.cluster, x)) {
                            break;
                        }
                        chain.push(x);
                        n = src.node(x).parent;
                    }
                    for &x in chain.iter().rev() {
                        let mut node = src.node(x).clone();
                        node.parent = node.parent.map(|p| node_map[&(q.cluster, p)]);
                        for c in [&mut node.exact, &mut node.carry].into_iter().flatten() {
                            cl.columns.push(src.columns[c.index()].clone());
                            *c = crate::ir::stacks::ColId(cl.columns.len() as u32 - 1);
                        }
                        cl.nodes.push(node);
                        node_map.insert((q.cluster, x), HwNodeId(cl.nodes.len() as u32 - 1));
                    }
                    let mut flag = src.flags[f.index()].clone();
                    flag.node = node_map[&(q.cluster, flag.node)];
                    cl.flags.push(flag);
                    let nf = FlagId(cl.flags.len() as u32 - 1);
                    flag_map.insert((q.cluster, f), nf);
                    new_flags.push(nf);
                }
                let q = &mut design.queries[qi];
                q.flags = new_flags;
                q.cluster = k;
            }
            design.clusters.push(cl);
        }
        design
    }
}
