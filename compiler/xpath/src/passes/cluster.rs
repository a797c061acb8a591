//! `cluster` (ch. 2.5.4): distribute the queries over clusters of at most
//! `--cluster-size` queries. Each cluster gets its own tag decoder, global
//! stack and stack memory, and the event stream is pipelined from cluster to
//! cluster, so no decoder or stack pointer drives more than one cluster's
//! columns. Queries are grouped in text order so that queries sharing a
//! prefix land in one cluster (prefix merging only works inside a cluster).
//! Must run before `prefix-merge` and every column pass.

use super::registry::StackPassConfig;
use crate::ir::stacks::{Cluster, ColId, FlagId, FlagSrc, HwNodeId, PopId, StackDesign};
use qrtl_core::pass::Pass;

pub struct ClusterQueries;

impl Pass<StackDesign, StackPassConfig> for ClusterQueries {
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
        let mut ids = IdMaps::new(&old);
        for group in order.chunks(size) {
            let k = design.clusters.len();
            let mut copier = Copier {
                cl: Cluster::default(),
                ids: &mut ids,
                group: k as u32,
            };
            for &qi in group {
                let q = &design.queries[qi];
                let new_flags = q
                    .flags
                    .iter()
                    .map(|&f| copier.flag(&old, q.cluster, f))
                    .collect();
                let q = &mut design.queries[qi];
                q.flags = new_flags;
                q.cluster = k;
            }
            design.clusters.push(copier.cl);
        }
        design
    }
}

/// Per source cluster, where each node, pop node and flag went: `(group,
/// new id)`, valid only while `group` is the cluster being filled (so the
/// maps are allocated once, not once per new cluster).
struct IdMaps {
    nodes: Vec<Vec<(u32, HwNodeId)>>,
    pops: Vec<Vec<(u32, PopId)>>,
    flags: Vec<Vec<(u32, FlagId)>>,
}

const NOWHERE: u32 = u32::MAX;

impl IdMaps {
    fn new(old: &[Cluster]) -> Self {
        IdMaps {
            nodes: old
                .iter()
                .map(|c| vec![(NOWHERE, HwNodeId(0)); c.nodes.len()])
                .collect(),
            pops: old
                .iter()
                .map(|c| vec![(NOWHERE, PopId(0)); c.pops.len()])
                .collect(),
            flags: old
                .iter()
                .map(|c| vec![(NOWHERE, FlagId(0)); c.flags.len()])
                .collect(),
        }
    }
}

/// Copies flags with the nodes and pop nodes they need from the source
/// clusters into one new cluster (number `group`), keeping the arena orders
/// (parents before children, pop children before their parents).
struct Copier<'a> {
    cl: Cluster,
    ids: &'a mut IdMaps,
    group: u32,
}

impl Copier<'_> {
    fn flag(&mut self, old: &[Cluster], k: usize, f: FlagId) -> FlagId {
        let g = self.group;
        let (gf, nf) = self.ids.flags[k][f.index()];
        if gf == g {
            return nf;
        }
        let src = &old[k];
        let mut need_nodes: Vec<HwNodeId> = Vec::new();
        let mut need_pops: Vec<PopId> = Vec::new();
        let mut leaves: Vec<HwNodeId> = Vec::new();
        match src.flags[f.index()].src {
            FlagSrc::Fire(n) => leaves.push(n),
            FlagSrc::Pop(p) => {
                let mut todo = vec![p];
                while let Some(x) = todo.pop() {
                    if self.ids.pops[k][x.index()].0 == g || need_pops.contains(&x) {
                        continue;
                    }
                    need_pops.push(x);
                    leaves.push(src.pop(x).push);
                    todo.extend(src.pop(x).children.iter().copied());
                    todo.extend(src.pop(x).prev);
                }
            }
        }
        for leaf in leaves {
            let mut n = Some(leaf);
            while let Some(x) = n {
                if self.ids.nodes[k][x.index()].0 == g || need_nodes.contains(&x) {
                    break;
                }
                need_nodes.push(x);
                n = src.node(x).parent;
            }
        }
        need_nodes.sort();
        need_pops.sort();
        for x in need_nodes {
            let mut node = src.node(x).clone();
            node.parent = node.parent.map(|p| self.ids.nodes[k][p.index()].1);
            for c in [&mut node.exact, &mut node.carry].into_iter().flatten() {
                self.cl.columns.push(src.columns[c.index()].clone());
                *c = ColId(self.cl.columns.len() as u32 - 1);
            }
            self.cl.nodes.push(node);
            self.ids.nodes[k][x.index()] = (g, HwNodeId(self.cl.nodes.len() as u32 - 1));
        }
        for x in need_pops {
            let mut pop = src.pop(x).clone();
            pop.push = self.ids.nodes[k][pop.push.index()].1;
            for c in &mut pop.children {
                *c = self.ids.pops[k][c.index()].1;
            }
            pop.prev = pop.prev.map(|p| self.ids.pops[k][p.index()].1);
            self.cl.pops.push(pop);
            self.ids.pops[k][x.index()] = (g, PopId(self.cl.pops.len() as u32 - 1));
        }
        let mut flag = src.flags[f.index()].clone();
        flag.src = match flag.src {
            FlagSrc::Fire(n) => FlagSrc::Fire(self.ids.nodes[k][n.index()].1),
            FlagSrc::Pop(p) => FlagSrc::Pop(self.ids.pops[k][p.index()].1),
        };
        self.cl.flags.push(flag);
        let nf = FlagId(self.cl.flags.len() as u32 - 1);
        self.ids.flags[k][f.index()] = (g, nf);
        nf
    }
}
