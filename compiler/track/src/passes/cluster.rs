//! `cluster`: split the patterns, in order, into clusters (ch. 4.5.3), each
//! with its own decoder. A pattern joins the current cluster unless the
//! cluster already has nodes and would then exceed `cluster_size` nodes
//! (`cluster_size` 0: one cluster). A cluster's nodes are counted as
//! `prefix-share` will leave them; a pattern's weight is its naive node
//! count.
//!
//! Runs on the naive lowering (nodes grouped by pattern, in pattern order,
//! one cluster), so every cluster is a contiguous range of the arena.

use super::prefix_share::Sharer;
use crate::ir::{Cluster as EngineCluster, EngineSet, NodeId};
use crate::lower::EngineConfig;
use qrtl_core::pass::Pass;

pub struct Cluster;

impl Pass<EngineSet, EngineConfig> for Cluster {
    fn name(&self) -> &'static str {
        "cluster"
    }
    fn description(&self) -> &'static str {
        "split the patterns into clusters of about cluster_size nodes"
    }
    fn run(&self, mut set: EngineSet, cfg: &EngineConfig) -> EngineSet {
        assert!(
            set.clusters.len() == 1 && set.nodes.windows(2).all(|w| w[0].pattern <= w[1].pattern),
            "cluster runs on the naive lowering (one cluster, nodes in pattern order)"
        );
        let mut clusters = vec![EngineCluster {
            nodes: 0..0,
            patterns: Vec::new(),
        }];
        // The cluster's node count as `prefix-share` will leave it; shared
        // ids are positions in the cluster.
        let mut sharer = Sharer::default();
        let mut local: Vec<NodeId> = vec![NodeId(u32::MAX); set.nodes.len()];
        let mut next = 0;
        for o in &mut set.outs {
            let start = next;
            while next < set.nodes.len() && set.nodes[next].pattern == o.pattern {
                next += 1;
            }
            let weight = next - start;
            let used = sharer.count();
            if cfg.cluster_size > 0 && used > 0 && used + weight > cfg.cluster_size {
                let c = clusters.last_mut().expect("a cluster");
                c.nodes.end = start;
                clusters.push(EngineCluster {
                    nodes: start..start,
                    patterns: Vec::new(),
                });
                sharer = Sharer::default();
            }
            for i in start..next {
                let mut node = set.nodes[i].clone();
                node.preds = node.preds.iter().map(|p| local[p.index()]).collect();
                let id = sharer.count();
                local[i] = sharer.add(&mut node, id).unwrap_or(NodeId(id as u32));
            }
            clusters
                .last_mut()
                .expect("a cluster")
                .patterns
                .push(o.pattern);
            o.cluster = clusters.len() - 1;
        }
        clusters.last_mut().expect("a cluster").nodes.end = set.nodes.len();
        set.clusters = clusters;
        set
    }
}
