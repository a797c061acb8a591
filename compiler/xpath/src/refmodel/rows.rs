//! Building a push row from its candidate lists.
//!
//! Push nodes are numbered breadth-first ([`Program`]), so the children of
//! a sorted set of parents come out sorted and without duplicates (each
//! node has one parent): every function here yields a sorted list, and a
//! row is a merge of such lists, with no sort or dedup.

use super::program::{Program, ANY_TAG, CARRIES, CARRIES_ANY, HAS_ANY_KIDS, HAS_KIDS};

/// A bitmap over push nodes, all clear between uses: marks the parents of
/// a join while the tag's edge list is scanned.
#[derive(Debug, Default)]
pub(super) struct Marks {
    words: Vec<u64>,
}

impl Marks {
    pub fn new(nodes: usize) -> Marks {
        Marks {
            words: vec![0; nodes.div_ceil(64)],
        }
    }

    #[inline]
    fn has(&self, n: u32) -> bool {
        self.words[(n / 64) as usize] >> (n % 64) & 1 == 1
    }
}

/// Appends to `out` the `//*` (`desc`) or `/*` children of the sorted push
/// nodes `parents`, in increasing order.
pub(super) fn any_kids(p: &Program, parents: &[u32], desc: bool, out: &mut Vec<u32>) {
    let has = if desc { CARRIES_ANY } else { HAS_ANY_KIDS };
    for &n in parents {
        if p.info[n as usize].flags & has != 0 {
            out.extend(p.kids_of(n, desc, ANY_TAG));
        }
    }
}

/// Appends to `out` the children over `//` (`desc`) or `/` with tag key
/// `tag` (a tag or [`ANY_TAG`]) of the push nodes `parents` (the union of
/// sorted, disjoint lists), in increasing order. When the tag's edge list
/// (sorted by parent) is not much longer than the parents, they are marked
/// in `marks` and the list is scanned (sequential reads, no search;
/// branch-free: every child is written and the end advances when its
/// parent is marked, since about half of them are, a branch the CPU cannot
/// guess); otherwise each parent's children with the tag are looked up.
pub(super) fn children(
    p: &Program,
    marks: &mut Marks,
    parents: &[&[u32]],
    desc: bool,
    tag: u32,
    out: &mut Vec<u32>,
) {
    let lists = if desc { &p.desc_edges } else { &p.child_edges };
    let edges = &lists[if tag == ANY_TAG {
        p.ntags
    } else {
        tag as usize
    }];
    let nparents: usize = parents.iter().map(|l| l.len()).sum();
    if edges.is_empty() || nparents == 0 {
        return;
    }
    // Only the edges whose parent lies between the first and the last
    // parents can join (breadth-first ids: parents of the same query depth
    // are close, so this is often a small window of a long list).
    let first = parents.iter().filter_map(|l| l.first()).min();
    let last = parents.iter().filter_map(|l| l.last()).max();
    let (Some(&first), Some(&last)) = (first, last) else {
        return;
    };
    let edges = &edges[edges.partition_point(|&(parent, _)| parent < first)..];
    let edges = &edges[..edges.partition_point(|&(parent, _)| parent <= last)];
    if edges.len() <= 32 * nparents {
        for &n in parents.iter().copied().flatten() {
            marks.words[(n / 64) as usize] |= 1 << (n % 64);
        }
        let start = out.len();
        out.resize(start + edges.len(), 0);
        let dst = &mut out[start..];
        let mut k = 0;
        for &(parent, child) in edges {
            dst[k] = child;
            k += marks.has(parent) as usize;
        }
        out.truncate(start + k);
        for &n in parents.iter().copied().flatten() {
            marks.words[(n / 64) as usize] = 0;
        }
        return;
    }
    let has = if desc { CARRIES } else { HAS_KIDS };
    let start = out.len();
    for &n in parents.iter().copied().flatten() {
        if p.info[n as usize].flags & has != 0 {
            out.extend(p.kids_of(n, desc, tag));
        }
    }
    if parents.iter().filter(|l| !l.is_empty()).count() > 1 {
        out[start..].sort_unstable();
    }
}

/// Merge the four sorted, disjoint candidate lists into `out`, through
/// the scratch lists `tmp`.
pub(super) fn merge_rows([a, b, c, d]: [&[u32]; 4], tmp: &mut [Vec<u32>; 2], out: &mut Vec<u32>) {
    out.clear();
    if c.is_empty() && d.is_empty() {
        return merge_sorted(a, b, out);
    }
    let [ab, cd] = tmp;
    ab.clear();
    cd.clear();
    merge_sorted(a, b, ab);
    merge_sorted(c, d, cd);
    merge_sorted(ab, cd, out);
}

/// Append the merge of sorted `a` and `b` to `out`. Branch-free: which
/// side advances is data, not a jump the CPU must guess.
pub(super) fn merge_sorted(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    if b.is_empty() {
        return out.extend_from_slice(a);
    }
    if a.is_empty() {
        return out.extend_from_slice(b);
    }
    let start = out.len();
    out.resize(start + a.len() + b.len(), 0);
    let dst = &mut out[start..];
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        let take_a = x <= y;
        dst[k] = if take_a { x } else { y };
        i += take_a as usize;
        j += !take_a as usize;
        k += 1;
    }
    let rest = a.len() - i;
    dst[k..k + rest].copy_from_slice(&a[i..]);
    dst[k + rest..].copy_from_slice(&b[j..]);
}
