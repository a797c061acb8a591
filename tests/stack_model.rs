//! The stack IR and its passes against the software engine, without a
//! simulator: `refmodel::stacks` runs the column-level hardware model of
//! the compiled design, and every combination of stack passes must give the
//! engine's answer (same mode) on every document — NITF suites, seeded
//! random path sets with attribute predicates, `--mode paths` twigs joined
//! on chip, truncated and mutated documents, tiny depth limits.

mod common;

use common::{
    nitf_dir, nitf_docs, random_docs, random_queries, random_twig_queries, raw_design_from_text,
};
use qrtl_xpath::engine::{build_xpath_hw, XpathHwOptions};
use qrtl_xpath::ir::xpath::Mode;
use qrtl_xpath::passes::registry::StackPassConfig;
use qrtl_xpath::refmodel::stacks::run_document;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::xml::XmlConfig;

/// The option grid: every stack pass on and off (one at a time and all),
/// one cluster and small clusters.
fn grid() -> Vec<StackPassConfig> {
    let mut out = Vec::new();
    for cluster_size in [0, 3, 64] {
        for disabled in [
            vec![],
            vec!["compaction"],
            vec!["prefix-merge"],
            vec!["root-gs"],
            vec!["last-column"],
            vec![
                "compaction",
                "prefix-merge",
                "root-gs",
                "last-column",
                "cluster",
            ],
        ] {
            out.push(StackPassConfig {
                cluster_size,
                disabled: disabled.iter().map(|s| s.to_string()).collect(),
            });
        }
    }
    out
}

/// Compare the stack model with the engine for every grid point.
fn check(name: &str, queries: &str, mode: Mode, docs: &[Vec<u8>], xml: XmlConfig) {
    check_design(
        name,
        raw_design_from_text(name, queries, mode),
        docs,
        xml,
        &grid(),
    );
}

/// A smaller grid for the large suites: everything on, everything off,
/// small clusters.
fn grid_small() -> Vec<StackPassConfig> {
    let all = grid();
    vec![all[0].clone(), all[5].clone(), all[6].clone()]
}

fn check_design(
    name: &str,
    design: qrtl_xpath::ir::xpath::Design,
    docs: &[Vec<u8>],
    xml: XmlConfig,
    points: &[StackPassConfig],
) {
    let mut engine = Engine::new(
        &design,
        EngineConfig {
            xml,
            ..EngineConfig::default()
        },
    );
    let want: Vec<_> = docs.iter().map(|d| engine.filter(d)).collect();
    for passes in points {
        let hw = build_xpath_hw(
            name,
            &design,
            &XpathHwOptions {
                xml,
                passes: passes.clone(),
                ..XpathHwOptions::default()
            },
        )
        .unwrap_or_else(|d| panic!("{name}: {}", d[0].render()));
        for (i, doc) in docs.iter().enumerate() {
            let got = run_document(&hw.stack, xml, doc);
            let got_ids: Vec<u32> = got.matched.iter().map(|q| q.0).collect();
            assert_eq!(
                got.status, want[i].status,
                "{name} doc {i} status, {passes:?}"
            );
            assert_eq!(
                got_ids,
                want[i].matched,
                "{name} doc {i} ({} bytes) with {passes:?}:\n{}",
                doc.len(),
                String::from_utf8_lossy(&doc[..doc.len().min(400)])
            );
        }
    }
}

#[test]
fn nitf_simple_paths_all_pass_combinations() {
    let text = std::fs::read_to_string(nitf_dir().join("queries/simple_paths.txt")).unwrap();
    check(
        "simple_paths",
        &text,
        Mode::Holistic,
        &nitf_docs(),
        XmlConfig::default(),
    );
}

#[test]
fn nitf_simple_predicates_without_text_or_position() {
    let text = std::fs::read_to_string(nitf_dir().join("queries/simple_predicates.txt")).unwrap();
    let subset = qrtl_xpath::workload::path_rtl_subset(&text);
    // 1000 queries minus 54 with `text()` and 10 positional ones.
    assert_eq!(
        subset.lines().count(),
        936,
        "the attribute-only subset of simple_predicates"
    );
    check(
        "simple_predicates",
        &subset,
        Mode::Holistic,
        &nitf_docs(),
        XmlConfig::default(),
    );
}

#[test]
fn random_paths_with_attribute_predicates() {
    for seed in 1..=4 {
        let queries = random_queries(seed, 120, 0.0);
        let docs = random_docs(seed, 60);
        check(
            &format!("random-{seed}"),
            &queries,
            Mode::Holistic,
            &docs,
            XmlConfig::default(),
        );
    }
}

#[test]
fn random_twigs_split_into_paths_and_pairs() {
    for seed in 11..=13 {
        let queries = random_queries(seed, 80, 0.3);
        let docs = random_docs(seed, 40);
        check(
            &format!("paths-{seed}"),
            &queries,
            Mode::Paths,
            &docs,
            XmlConfig::default(),
        );
        check(
            &format!("pairs-{seed}"),
            &queries,
            Mode::Pairs,
            &docs,
            XmlConfig::default(),
        );
    }
}

#[test]
fn shallow_depth_limit() {
    let queries = random_queries(21, 100, 0.0);
    let docs = random_docs(21, 40);
    check(
        "depth-3",
        &queries,
        Mode::Holistic,
        &docs,
        XmlConfig::with_max_depth(3),
    );
}

/// Every NITF suite, whole (twigs, `text()`, positions), in every mode.
#[test]
fn nitf_all_suites_holistic_paths_pairs() {
    for suite in ["simple_predicates", "mixed", "nested_paths"] {
        let text =
            std::fs::read_to_string(nitf_dir().join(format!("queries/{suite}.txt"))).unwrap();
        for mode in [Mode::Holistic, Mode::Paths, Mode::Pairs] {
            let design = raw_design_from_text(suite, &text, mode);
            check_design(
                suite,
                design,
                &nitf_docs(),
                XmlConfig::default(),
                &grid_small(),
            );
        }
    }
}

/// `--ordered`: branches must match in distinct child subtrees, in order.
#[test]
fn nitf_twigs_ordered() {
    for suite in ["mixed", "nested_paths"] {
        let text =
            std::fs::read_to_string(nitf_dir().join(format!("queries/{suite}.txt"))).unwrap();
        let mut design = raw_design_from_text(suite, &text, Mode::Holistic);
        design.order = qrtl_xpath::ir::xpath::SiblingOrder::Ordered;
        check_design(
            suite,
            design,
            &nitf_docs(),
            XmlConfig::default(),
            &grid_small(),
        );
    }
}

#[test]
fn random_twigs_holistic() {
    for seed in 31..=33 {
        let queries = random_twig_queries(seed, 80);
        let docs = random_docs(seed, 40);
        check(
            &format!("twigs-{seed}"),
            &queries,
            Mode::Holistic,
            &docs,
            XmlConfig::default(),
        );
    }
}

#[test]
fn random_twigs_ordered() {
    for seed in 41..=42 {
        let queries = random_twig_queries(seed, 60);
        let docs = random_docs(seed, 40);
        let mut design = raw_design_from_text("ordered", &queries, Mode::Holistic);
        design.order = qrtl_xpath::ir::xpath::SiblingOrder::Ordered;
        check_design(
            &format!("ordered-{seed}"),
            design,
            &docs,
            XmlConfig::default(),
            &grid(),
        );
    }
}
