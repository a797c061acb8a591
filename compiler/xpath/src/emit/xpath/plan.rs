//! The planning step: every timing-shape decision of a cluster and of the
//! top, made from the IR and [`RtlShape`] before anything is printed.
//! [`plan_cluster`] decides which registers a cluster has (the shared
//! `_ctx` registers, the nodes' and columns' pre-registers and how a
//! column's OR is grouped into them), how its stack memory is grouped and
//! stepped, and how its processes are cut; [`plan_top`] decides the
//! result lane's OR forms and the output FIFO. The printers only read the
//! plans.

use super::mutable::{clog2, layout, MutLayout};
use super::scope::Scope;
use super::{EventInput, RtlShape, SplitRule, MEM_GROUP_BITS, RESULT_WIDTH};
use crate::ir::stacks::{Cluster, ColId, ColKind, HwNodeId, Read, StackDesign};
use crate::ir::xpath::{Axis, TagId};
use rustc_hash::FxHashMap as HashMap;

impl SplitRule {
    /// The lengths of the pieces `n` items are cut into: one piece if at
    /// most `max`, else pieces of `piece` (none for no items).
    fn pieces(&self, n: usize) -> Vec<usize> {
        if n <= self.max {
            return if n == 0 { Vec::new() } else { vec![n] };
        }
        let k = self.piece.max(1);
        (0..n.div_ceil(k)).map(|i| k.min(n - i * k)).collect()
    }
}

/// `v` cut into consecutive pieces of the given lengths (which sum to its
/// length).
pub(super) fn cut<T>(v: Vec<T>, pieces: &[usize]) -> Vec<Vec<T>> {
    let mut it = v.into_iter();
    let out = pieces
        .iter()
        .map(|&n| it.by_ref().take(n).collect())
        .collect();
    debug_assert!(it.next().is_none(), "pieces cover the items");
    out
}

/// What a `_ctx` register computes: a node's stack-top part (depth,
/// parent column, global-stack bit), as IR entities. Nodes with the same
/// part share one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum StackTop {
    /// A `/` root: depth 1.
    Depth1,
    /// Below a root read through the global stack: depth 2 (a `/` root)
    /// or at least 2 (a `//` root), and the root's tag bit.
    Gs { root_axis: Axis, tag: Option<TagId> },
    /// A column at the stack top, with the parent's global-stack tag bit
    /// when the column is shared.
    Column { col: ColId, gs: Option<TagId> },
}

impl StackTop {
    /// The part a node reading `r` checks; none for a `//` root.
    pub fn of(r: Read) -> Option<StackTop> {
        match r {
            Read::Doc(Axis::Child) => Some(StackTop::Depth1),
            Read::Doc(Axis::Descendant) => None,
            Read::Gs { root_axis, tag } => Some(StackTop::Gs { root_axis, tag }),
            Read::Column { col, gs } => Some(StackTop::Column { col, gs }),
        }
    }
}

/// One shared `_ctx` register: what it computes and the node it is named
/// after (the first with that part).
pub(super) struct CtxPlan {
    pub top: StackTop,
    pub owner: HwNodeId,
}

/// A node's registers.
pub(super) struct NodePlan {
    /// Its firing is stored or reported (see `Scope::used`).
    pub used: bool,
    /// It has a `<node>_pre` register and a fire wire (it sets a flag or
    /// has attribute conditions); otherwise its pre term is folded into
    /// its columns' pre-registers.
    pub fires: bool,
    /// Its `_ctx` register (index into `ClusterPlan::ctx_regs`).
    pub ctx: Option<usize>,
}

/// A column's pre-registers: `regs` of them, each the OR of up to `group`
/// of its pre terms (see [`pre_group_size`]).
pub(super) struct ColPlan {
    pub group: usize,
    pub regs: usize,
}

/// How a cluster's stack memory counters step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StepForm {
    /// Calls of the cluster's `_up`/`_down` functions.
    Calls,
    /// Written out per counter (`cluster::keyed_step`): no function to
    /// inline.
    WrittenOut,
}

/// One group of the stack memory: row bits `hi..=lo`, addressed by its
/// counters, depth and depth - 2 XOR `key` (row r lives in word r ^ key).
/// Distinct keys keep the groups' address registers distinct from each
/// other, so synthesis cannot merge them as identical flip-flops.
pub(super) struct MemGroup {
    pub idx: usize,
    pub lo: usize,
    pub hi: usize,
    pub key: u64,
    /// The read address's reset value: (2^addr_width - 2) ^ key.
    pub ra_reset: u64,
}

/// Everything decided about a cluster's module before it is printed.
pub(super) struct ClusterPlan {
    pub scope: Scope,
    pub layout: MutLayout,
    /// Global-stack bits and columns.
    pub row_width: usize,
    /// Queries of the cluster.
    pub queries: usize,
    pub ctx_regs: Vec<CtxPlan>,
    pub nodes: Vec<NodePlan>,
    pub cols: Vec<ColPlan>,
    /// Address bits of the stack memory: depths 0..max_depth-1, rounded up
    /// to a power of two so the address is the stack pointer's low bits.
    pub addr_width: u32,
    pub step_form: StepForm,
    /// The memory groups, in processes.
    pub mem_chunks: Vec<Vec<MemGroup>>,
    pub mem_groups_piece: usize,
    /// Lengths of the pipeline registers' processes (`_ctx`, the nodes'
    /// then the columns' `_pre`), and of the result bits' processes.
    pub pipe_pieces: Vec<usize>,
    pub out_pieces: Vec<usize>,
    pub assigns_piece: usize,
}

/// Plan cluster `k`.
pub(super) fn plan_cluster(
    d: &StackDesign,
    k: usize,
    cl: &Cluster,
    shape: &RtlShape,
) -> ClusterPlan {
    let scope = Scope::of(d, cl);
    let layout = layout(d, cl, &scope);
    let row_width = scope.gs_tags.len() + cl.columns.len();
    let (ctx_regs, nodes) = plan_nodes(cl, &scope);
    let cols = plan_columns(cl, &scope);
    let pipe = ctx_regs.len()
        + nodes.iter().filter(|n| n.fires).count()
        + cols.iter().map(|c| c.regs).sum::<usize>();
    let queries = d.queries.iter().filter(|q| q.cluster == k).count();
    let addr_width = clog2(u64::from(d.max_depth)).max(1);
    // Groups split over processes are stepped without function calls
    // (`RtlShape::mem_groups`).
    let groups = mem_groups(row_width + layout.width, addr_width);
    let step_form = if groups.len() > shape.mem_groups.max {
        StepForm::WrittenOut
    } else {
        StepForm::Calls
    };
    let mem_pieces = shape.mem_groups.pieces(groups.len());
    ClusterPlan {
        scope,
        layout,
        row_width,
        queries,
        ctx_regs,
        nodes,
        cols,
        addr_width,
        step_form,
        mem_chunks: cut(groups, &mem_pieces),
        mem_groups_piece: shape.mem_groups.piece,
        pipe_pieces: shape.assigns.pieces(pipe),
        out_pieces: shape.assigns.pieces(queries),
        assigns_piece: shape.assigns.piece,
    }
}

/// The nodes' registers, and the `_ctx` registers they share: one per
/// distinct stack-top part of the used nodes, in first-use order.
fn plan_nodes(cl: &Cluster, scope: &Scope) -> (Vec<CtxPlan>, Vec<NodePlan>) {
    let mut ctx_regs: Vec<CtxPlan> = Vec::new();
    let mut index: HashMap<StackTop, usize> = HashMap::default();
    let nodes = cl
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let used = scope.used(cl, i);
            let ctx = StackTop::of(scope.reads[i]).filter(|_| used).map(|top| {
                *index.entry(top).or_insert_with(|| {
                    ctx_regs.push(CtxPlan {
                        top,
                        owner: HwNodeId(i as u32),
                    });
                    ctx_regs.len() - 1
                })
            });
            NodePlan {
                used,
                fires: used && (scope.flagged[i] || !n.conds.is_empty()),
                ctx,
            }
        })
        .collect();
    (ctx_regs, nodes)
}

/// The columns' pre-registers: a column's pre terms are its members
/// without attribute conditions (known a clock ahead) and, for a carry
/// column, the column itself; members with conditions join after the
/// clock.
fn plan_columns(cl: &Cluster, scope: &Scope) -> Vec<ColPlan> {
    cl.columns
        .iter()
        .enumerate()
        .map(|(j, c)| {
            let live = scope.members[j]
                .iter()
                .filter(|n| !cl.node(**n).conds.is_empty())
                .count();
            let terms = scope.members[j].len() - live + usize::from(c.kind == ColKind::Carry);
            let group = pre_group_size(terms, live);
            ColPlan {
                group,
                regs: terms.div_ceil(group),
            }
        })
        .collect()
}

/// The groups of a `full_width`-bit row with `addr_width`-bit addresses.
pub(super) fn mem_groups(full_width: usize, addr_width: u32) -> Vec<MemGroup> {
    let mask = (1u64 << addr_width) - 1;
    (0..full_width.div_ceil(MEM_GROUP_BITS))
        .map(|g| {
            let key = mask ^ (g as u64 & mask);
            MemGroup {
                idx: g,
                lo: g * MEM_GROUP_BITS,
                hi: ((g + 1) * MEM_GROUP_BITS).min(full_width) - 1,
                key,
                ra_reset: ((mask - 1) & mask) ^ key,
            }
        })
        .collect()
}

/// LUT4 levels of an AND/OR tree over `inputs` signals.
pub(super) fn lut4_levels(inputs: usize) -> u32 {
    let mut levels = 0;
    let mut n = inputs.max(1);
    while n > 1 {
        n = n.div_ceil(4);
        levels += 1;
    }
    levels.max(1)
}

/// Terms per column pre-register, for a column of `terms` pre terms (two
/// flip-flops ANDed each: `<node>_ctx & tag`) and `live` members that fire
/// with their attribute conditions. The pre-registers' OR tree (before
/// the clock) and the column's OR of them and the live members, then the
/// stack-top update (after it) share the levels: the size that keeps the
/// deeper side shallowest, then the fewest levels in all, then the one
/// whose fuller tree is the least full (a tree using every input of its
/// levels leaves synthesis no room: at 2K queries a 64-input group mapped
/// to four levels, not three), then the larger size (fewer registers).
pub(super) fn pre_group_size(terms: usize, live: usize) -> usize {
    (2..=terms.max(2))
        .map(|g| {
            let before = lut4_levels(2 * g);
            let after_inputs = terms.div_ceil(g) + live;
            let after = lut4_levels(after_inputs) + 1;
            // Inputs per thousand of what the tree's levels can take.
            let fill = |inputs: usize, levels: u32| inputs * 1000 / 4usize.pow(levels);
            let fuller = fill(2 * g, before).max(fill(after_inputs, after - 1));
            (
                before.max(after),
                before + after,
                fuller,
                std::cmp::Reverse(g),
            )
        })
        .min()
        .map_or(2, |(_, _, _, g)| g.0)
}

/// Up to this FIFO depth every tool maps the output FIFO to distributed
/// RAM by itself; deeper ones get a `ram_style` attribute.
const FIFO_LUTRAM_DEPTH: u32 = 32;

/// Everything decided about the top before it is printed.
pub(super) struct TopPlan {
    /// Event pipeline stages (one per cluster when pipelined).
    pub stages: usize,
    /// Per cluster, per bit position of a result word: its OR is written
    /// as a reduction, not a chain (`RtlShape::max_or_chain`).
    pub reduce: Vec<Vec<bool>>,
    /// Entries of the output FIFO: the words of a credit round trip (issue
    /// through every cluster to the tail, the credit back through as many
    /// registers), so the head never waits on an m_axis that takes a word
    /// every clock.
    pub fifo_depth: u32,
    pub fifo_distributed: bool,
}

/// Plan the top: query `q`'s bit is at position `(32 + id) % 32` of its
/// cluster's contribution, one OR term per word.
pub(super) fn plan_top(d: &StackDesign, input: EventInput, shape: &RtlShape) -> TopPlan {
    let w = RESULT_WIDTH as usize;
    let mut terms = vec![vec![0usize; w]; d.clusters.len()];
    for q in &d.queries {
        terms[q.cluster][(w + q.id.index()) % w] += 1;
    }
    let fifo_depth = (2 * d.clusters.len() as u32 + 7).next_power_of_two().max(8);
    TopPlan {
        stages: match input {
            EventInput::Pipelined => d.clusters.len().max(1),
            EventInput::Broadcast => 1,
        },
        reduce: terms
            .iter()
            .map(|t| t.iter().map(|&n| n > shape.max_or_chain).collect())
            .collect(),
        fifo_depth,
        fifo_distributed: fifo_depth > FIFO_LUTRAM_DEPTH,
    }
}

#[cfg(test)]
mod tests {
    use super::{cut, lut4_levels, mem_groups, plan_cluster, pre_group_size, SplitRule, StackTop};
    use crate::emit::xpath::{RtlShape, MEM_GROUP_BITS};
    use crate::engine::{build_xpath_hw, XpathHwOptions};
    use crate::ir::stacks::StackDesign;

    use crate::passes::{run_pipeline, PassConfig};
    use crate::syntax::parse_query_file;

    fn stack_design(queries: &str) -> StackDesign {
        let qf = parse_query_file("t", queries);
        let (qs, diags) = (qf.queries, qf.diagnostics);
        assert!(diags.is_empty(), "{diags:?}");
        let design = run_pipeline(
            crate::lower::xpath::lower_queries_raw("t", &qs).expect("lowers"),
            &PassConfig::default(),
        );
        build_xpath_hw("t", &design, &XpathHwOptions::default())
            .expect("compiles")
            .stack
    }

    #[test]
    fn nodes_reading_the_same_stack_top_share_a_ctx_register() {
        // b and c read a's column; d is a `/` root (depth 1), as is e; f is
        // a `//` root, with no stack-top part.
        let d = stack_design("/a/b\n/a/c[@x]\n/d\n/e\n//f\n");
        let cl = &d.clusters[0];
        let plan = plan_cluster(&d, 0, cl, &RtlShape::default());
        let node = |name: &str| {
            let i = cl
                .nodes
                .iter()
                .position(|n| n.name.ends_with(name))
                .unwrap_or_else(|| {
                    panic!(
                        "{name} in {:?}",
                        cl.nodes.iter().map(|n| &n.name).collect::<Vec<_>>()
                    )
                });
            &plan.nodes[i]
        };
        let (b, c, dd, e, f) = (node("_b"), node("_c"), node("_d"), node("_e"), node("_f"));
        assert!(b.ctx.is_some() && b.ctx == c.ctx);
        assert!(dd.ctx.is_some() && dd.ctx == e.ctx && dd.ctx != b.ctx);
        assert_eq!(f.ctx, None);
        let tops: Vec<StackTop> = plan.ctx_regs.iter().map(|r| r.top).collect();
        assert!(tops.contains(&StackTop::Depth1));
        // One register per distinct part, named after its first node.
        for (k, r) in plan.ctx_regs.iter().enumerate() {
            assert_eq!(tops.iter().filter(|t| **t == r.top).count(), 1);
            assert_eq!(plan.nodes[r.owner.index()].ctx, Some(k));
        }
    }

    #[test]
    fn split_rules_cut_as_before() {
        let r = SplitRule { max: 4, piece: 3 };
        assert_eq!(r.pieces(0), Vec::<usize>::new());
        assert_eq!(r.pieces(4), vec![4]);
        assert_eq!(r.pieces(7), vec![3, 3, 1]);
        assert_eq!(SplitRule { max: 0, piece: 0 }.pieces(2), vec![1, 1]);
        assert_eq!(
            cut(vec![1, 2, 3, 4, 5], &[3, 2]),
            vec![vec![1, 2, 3], vec![4, 5]]
        );
    }

    #[test]
    fn lut4_levels_count_a_tree_of_four_input_luts() {
        assert_eq!(lut4_levels(0), 1);
        assert_eq!(lut4_levels(1), 1);
        assert_eq!(lut4_levels(4), 1);
        assert_eq!(lut4_levels(5), 2);
        assert_eq!(lut4_levels(16), 2);
        assert_eq!(lut4_levels(17), 3);
        assert_eq!(lut4_levels(64), 3);
    }

    #[test]
    fn pre_groups_keep_both_clocks_shallow() {
        // 100 terms: 32 per group is 64 inputs (3 levels) before the clock,
        // 4 registers ORed then the top's update (2 levels) after it; 7 per
        // group is 14 inputs (2 levels) before, 15 registers (3 levels)
        // after: as deep, as many levels in all, but 32 fills every input
        // of both trees and 7 leaves room in each (14 of 16, 15 of 16).
        assert_eq!(pre_group_size(100, 0), 7);
        // 173 terms (column 0 of a 2K-query cluster): 32 per group (64 of
        // 64 inputs before the clock) mapped to four levels; 20 per group
        // is 40 of 64 before and 9 of 16 after, as deep.
        assert_eq!(pre_group_size(173, 0), 20);
        // 4 terms: two groups of 4 inputs (1 level) before the clock, their
        // OR and the top's update (2 levels) after it; one group of 8
        // inputs would take 2 levels on both sides.
        assert_eq!(pre_group_size(4, 0), 2);
        // A handful of terms: one group (one register) when that is as
        // shallow as any split.
        assert_eq!(pre_group_size(2, 0), 2);
        assert_eq!(pre_group_size(1, 0), 2);
        // Live members (attribute conditions) join the OR after the clock.
        let g = pre_group_size(100, 40);
        assert!(100usize.div_ceil(g) + 40 <= 64, "{g}");
        // Never deeper than either side must be: a group's tree and the OR
        // of the groups each fit the chosen depth.
        for terms in 1..600 {
            let g = pre_group_size(terms, 0);
            let depth = lut4_levels(2 * g).max(lut4_levels(terms.div_ceil(g)) + 1);
            let sqrt = terms.isqrt().max(2);
            let naive = lut4_levels(2 * sqrt).max(lut4_levels(terms.div_ceil(sqrt)) + 1);
            assert!(
                depth <= naive,
                "{terms} terms: group {g} depth {depth} > {naive}"
            );
        }
    }

    #[test]
    fn mem_groups_cover_the_row_with_distinct_nonzero_keys() {
        for (width, aw) in [(1, 1), (31, 5), (32, 5), (33, 5), (300, 5), (2000, 6)] {
            let groups = mem_groups(width, aw);
            let mask = (1u64 << aw) - 1;
            // Contiguous, in order, every bit once, at most MEM_GROUP_BITS each.
            let mut next = 0;
            for g in &groups {
                assert_eq!(g.lo, next, "width {width}");
                assert!(g.hi >= g.lo && g.hi - g.lo < MEM_GROUP_BITS);
                next = g.hi + 1;
                // The read address's reset is the counter's (2^aw - 2) under the key.
                assert_eq!(g.ra_reset ^ g.key, (mask - 1) & mask);
                assert!(g.key <= mask);
            }
            assert_eq!(next, width);
            // Keys never 0 (a copy equal to a counter) and distinct while
            // the address width allows.
            let keys: std::collections::BTreeSet<u64> = groups.iter().map(|g| g.key).collect();
            assert!(!keys.contains(&0) || groups.len() > mask as usize);
            assert_eq!(keys.len(), groups.len().min(mask as usize + 1));
        }
    }
}
