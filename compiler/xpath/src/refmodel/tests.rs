//! Engine behaviour on small hand-checked cases. Broader checks against
//! independent engines live in the repository's `tests/`.

use super::{Engine, EngineConfig};
use crate::ir::xpath::{Mode, SiblingOrder};
use crate::lower::xpath::lower_queries;
use crate::passes::{run_pipeline, PassConfig};
use crate::syntax::parse_query_file;
use crate::xml::DocStatus;

fn engine_with(queries: &[&str], mode: Mode, order: SiblingOrder, config: EngineConfig) -> Engine {
    let text = queries.join("\n");
    let qf = parse_query_file("t", &text);
    let (qs, diags) = (qf.queries, qf.diagnostics);
    assert!(diags.is_empty(), "{diags:?}");
    let mut design = run_pipeline(
        lower_queries("t", &qs).expect("lowers"),
        &PassConfig { mode },
    );
    design.order = order;
    Engine::new(&design, config)
}

/// Which of `queries` match `doc` (holistic, unordered).
fn matches(queries: &[&str], doc: &str) -> Vec<u32> {
    engine_with(
        queries,
        Mode::Holistic,
        SiblingOrder::Unordered,
        EngineConfig::default(),
    )
    .filter(doc.as_bytes())
    .matched
}

fn one(query: &str, doc: &str) -> bool {
    !matches(&[query], doc).is_empty()
}

#[test]
fn dissertation_figure_2_5_path_with_recursion() {
    let doc = "<a><c><a><d/><c><a/><b/></c></a></c></a>";
    assert!(one("/a/c/a/c/b", doc));
    assert!(one("//a/c/b", doc));
    assert!(!one("/a/c/b", doc));
    assert!(!one("/a/c/a/c/a/b", doc));
}

#[test]
fn descendant_axis_propagates_vertically_and_stops_at_pop() {
    assert!(one("//c//d", "<r><c><x><y><d/></y></x></c></r>"));
    assert!(!one("//c//d", "<r><c><x/></c><d/></r>"));
    assert!(one("/r//*/d", "<r><x><d/></x></r>"));
    assert!(!one("/r//*/d", "<r><d/></r>"));
    assert!(one("//a//a", "<a><b><a/></b></a>"));
    assert!(!one("//a//a", "<a><b/></a>"));
}

#[test]
fn root_anchoring() {
    assert!(one("/a", "<a/>"));
    assert!(!one("/b", "<a><b/></a>"));
    assert!(one("//b", "<a><b/></a>"));
    assert!(one("/*", "<zz/>"));
}

#[test]
fn twig_needs_all_branches_under_the_same_element() {
    let q = "/r/a[b/c]/d/e";
    assert!(one(q, "<r><a><b><c/></b><d><e/></d></a></r>"));
    assert!(one(q, "<r><a><d><e/></d><b><c/></b></a></r>"), "unordered");
    assert!(
        !one(q, "<r><a><b><c/></b></a><a><d><e/></d></a></r>"),
        "no false positive"
    );
    assert!(one("//a[.//c]", "<a><x><y><c/></y></x></a>"));
    assert!(!one("//a[c]", "<a><x><c/></x></a>"));
    assert!(one("//a[b and c]", "<a><c/><b/></a>"));
    assert!(!one("//a[b and c]", "<r><a><b/></a><a><c/></a></r>"));
}

#[test]
fn nested_twigs_report_through_descendant_chains() {
    let q = "//a[.//b[c]//d]";
    assert!(one(q, "<a><x><b><c/><y><d/></y></b></x></a>"));
    assert!(!one(q, "<a><b><c/></b><b><d/></b></a>"));
}

#[test]
fn split_modes_report_false_positives_holistic_does_not() {
    let q = ["/r/a[b]/c"];
    let doc = "<r><a><b/></a><a><c/></a></r>";
    for (mode, want) in [
        (Mode::Holistic, false),
        (Mode::Paths, true),
        (Mode::Pairs, true),
    ] {
        let mut e = engine_with(&q, mode, SiblingOrder::Unordered, EngineConfig::default());
        assert_eq!(
            !e.filter(doc.as_bytes()).matched.is_empty(),
            want,
            "{mode:?}"
        );
    }
    // Pairs lose the anchoring of inner steps; paths keep it.
    let q = ["/r/a/b"];
    let doc = "<r><a/><x><a><b/></a></x></r>";
    let mut paths = engine_with(
        &q,
        Mode::Paths,
        SiblingOrder::Unordered,
        EngineConfig::default(),
    );
    let mut pairs = engine_with(
        &q,
        Mode::Pairs,
        SiblingOrder::Unordered,
        EngineConfig::default(),
    );
    assert!(paths.filter(doc.as_bytes()).matched.is_empty());
    assert_eq!(pairs.filter(doc.as_bytes()).matched, vec![0]);
}

#[test]
fn ordered_mode_requires_branches_in_document_order() {
    let q = ["//a[b]/c"];
    let in_order = "<a><b/><c/></a>";
    let reversed = "<a><c/><b/></a>";
    let mut e = engine_with(
        &q,
        Mode::Holistic,
        SiblingOrder::Ordered,
        EngineConfig::default(),
    );
    assert_eq!(e.filter(in_order.as_bytes()).matched, vec![0]);
    assert!(e.filter(reversed.as_bytes()).matched.is_empty());
    assert_eq!(matches(&q, reversed), vec![0], "unordered by default");
    // Distinct child subtrees: both branches inside one child do not count.
    let q = ["//a[.//b][.//c]"];
    let mut e = engine_with(
        &q,
        Mode::Holistic,
        SiblingOrder::Ordered,
        EngineConfig::default(),
    );
    assert!(e.filter(b"<a><x><b/><c/></x></a>").matched.is_empty());
    assert_eq!(
        e.filter(b"<a><x><b/></x><y><z><c/></z></y></a>").matched,
        vec![0]
    );
}

#[test]
fn attribute_predicates_follow_xpath_comparison_rules() {
    let doc = r#"<r><a x="05" y="abc" z=" 7 "/></r>"#;
    assert!(one("//a[@x=5]", doc), "number equality converts");
    assert!(!one(r#"//a[@x="5"]"#, doc), "string equality is exact");
    assert!(one(r#"//a[@x="05"]"#, doc));
    assert!(one("//a[@y!=5]", doc), "NaN != 5");
    assert!(!one("//a[@y=5]", doc));
    assert!(!one("//a[@w!=5]", doc), "absent attribute: empty node-set");
    assert!(one("//a[@z>=7 and @z<=7]", doc));
    assert!(one(r#"//a[@x < "6"]"#, doc), "relational compares numbers");
    assert!(one("//a[@y]", doc));
    assert!(!one("//a[@w]", doc));
    assert!(
        one(r#"//a[@q="a<b"]"#, r#"<a q="a&lt;b"/>"#),
        "references are decoded"
    );
}

#[test]
fn text_predicates_test_each_text_node() {
    assert!(
        one(r#"//a[text()="xy"]"#, "<a>x<![CDATA[y]]></a>"),
        "CDATA joins its text node"
    );
    assert!(
        !one(r#"//a[text()="xy"]"#, "<a>x<!-- c -->y</a>"),
        "comments split text nodes"
    );
    assert!(one(r#"//a[text()="y"]"#, "<a>x<!-- c -->y</a>"));
    assert!(one(r#"//a[text()="y"]"#, "<a>x<b>z</b>y</a>"));
    assert!(
        !one(r#"//a[text()="z"]"#, "<a>x<b>z</b>y</a>"),
        "only child text nodes"
    );
    assert!(one("//a[text()=18]", "<a> 18 </a>"));
    assert!(!one(r#"//a[text()="18"]"#, "<a> 18 </a>"));
    assert!(one(r#"//a[text()="a&b"]"#, "<a>a&amp;b</a>"));
    assert!(one("//a[text()]", "<a> </a>"));
    assert!(!one("//a[text()]", "<a><b/></a>"));
    assert!(one(r#"/r[a[text()="1"]]/b"#, "<r><b/><a>1</a></r>"));
}

#[test]
fn positional_predicates_count_filtered_siblings() {
    let doc = r#"<r><b/><a x="1"/><a/><a x="1"/><c><a/></c></r>"#;
    assert!(one("/r/a[3]", doc));
    assert!(!one("/r/a[4]", doc));
    assert!(one("/r/*[4][@x]", doc));
    assert!(!one("/r/*[3][@x]", doc));
    assert!(one("/r/a[@x][2]", doc), "second of the a's having x");
    assert!(!one("/r/a[@x][3]", doc));
    assert!(!one("/r/a[2][@x]", doc), "the second a has no x");
    assert!(
        one("//a[1]", "<r><c><a/></c></r>"),
        "first a child of its parent"
    );
    assert!(one("/r/a[position() > 2]", doc));
    assert!(!one("/r/a[position() > 3]", doc));
    assert!(one("/r/a[position() >= 1 and @x][2]", doc));
    assert!(!one("/r/a[1.5]", doc));
    assert!(one("/r[1]", doc));
    assert!(!one("/r[2]", doc));
}

#[test]
fn flagged_documents_keep_prefix_matches_and_do_not_affect_the_next() {
    let mut e = engine_with(
        &["//a", "//b", "//a[c]"],
        Mode::Holistic,
        SiblingOrder::Unordered,
        EngineConfig::default(),
    );
    let bad = e.filter(b"<r><a></b></r>");
    assert_eq!(bad.status, DocStatus::Malformed);
    assert_eq!(bad.matched, vec![0]);
    let good = e.filter(b"<r><b/><a><c/></a></r>");
    assert_eq!(good.status, DocStatus::Ok);
    assert_eq!(good.matched, vec![0, 1, 2]);
    let deep = format!("{}{}", "<a>".repeat(40), "</a>".repeat(40));
    let r = e.filter(deep.as_bytes());
    assert_eq!(r.status, DocStatus::TooDeep);
    assert_eq!(r.matched, vec![0]);
    assert_eq!(e.filter(b"").status, DocStatus::Malformed);
}

#[test]
fn tiny_state_cache_gives_identical_results() {
    let queries = [
        "//a//b",
        "/r/a[b]/c",
        "//*[@x=1]//c",
        "//a[2]/b",
        r#"//c[text()="t"]"#,
    ];
    let docs = [
        r#"<r><a><b/><c>t</c></a><a x="1"><x><b><c/></b></x></a></r>"#,
        "<r><a><a><b/></a></a><c>u</c></r>",
        r#"<r x="1"><a><b/></a><a><b/><c>t</c></a></r>"#,
    ];
    let mut big = engine_with(
        &queries,
        Mode::Holistic,
        SiblingOrder::Unordered,
        EngineConfig::default(),
    );
    let small_cfg = EngineConfig {
        cache_words: 1,
        ..EngineConfig::default()
    };
    let mut small = engine_with(&queries, Mode::Holistic, SiblingOrder::Unordered, small_cfg);
    for _ in 0..3 {
        for d in docs {
            assert_eq!(big.filter(d.as_bytes()), small.filter(d.as_bytes()), "{d}");
        }
    }
    assert!(small.stats().flushes > 0);
}

#[test]
fn duplicate_queries_share_a_part_and_both_report() {
    assert_eq!(
        matches(&["//a", "//b", "//a", " //a"], "<a/>"),
        vec![0, 2, 3]
    );
}
