//! The stack IR and its passes against the software engine, without a
//! simulator: `refmodel::stacks` runs the column-level hardware model of
//! the compiled design, and every combination of stack passes must give the
//! engine's answer (same mode) on every document — NITF suites, seeded
//! random path sets with attribute predicates, `--mode paths` twigs joined
//! on chip, truncated and mutated documents, tiny depth limits.

mod common;

use common::{design_from_text, nitf_dir};
use qrtl_compiler::driver::{build_xpath_hw, XpathHwOptions};
use qrtl_compiler::ir::xpath::Mode;
use qrtl_compiler::passes::registry::StackPassConfig;
use qrtl_compiler::refmodel::stacks::run_document;
use qrtl_compiler::refmodel::xpath::{Engine, EngineConfig};
use qrtl_compiler::workload::{DocGen, DocGenConfig, QueryGen, QueryGenConfig, Vocab};
use qrtl_compiler::xml::XmlConfig;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

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
    let design = design_from_text(name, queries, mode);
    let mut engine = Engine::new(
        &design,
        EngineConfig {
            xml,
            ..EngineConfig::default()
        },
    );
    let want: Vec<_> = docs.iter().map(|d| engine.filter(d)).collect();
    for passes in grid() {
        let hw = build_xpath_hw(
            name,
            &design,
            &XpathHwOptions {
                xml,
                passes: passes.clone(),
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

fn nitf_docs() -> Vec<Vec<u8>> {
    let dir = nitf_dir().join("docs");
    (1..=100)
        .map(|i| std::fs::read(dir.join(format!("outFile{i}.xml"))).expect("NITF document"))
        .collect()
}

/// Path queries the RTL of issue 3 covers: no `text()` or positional predicates.
pub fn path_rtl_queries(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter(|l| {
            !l.contains("text()")
                && !l.contains("position()")
                && !l
                    .split('[')
                    .skip(1)
                    .any(|p| p.starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|l| format!("{l}\n"))
        .collect()
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
    let subset = path_rtl_queries(&text);
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

/// Generated documents, plus truncated and byte-flipped copies.
fn random_docs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut gen = DocGen::new(
        Vocab::nitf(),
        DocGenConfig {
            seed,
            doc_bytes: (200, 4000),
            max_depth: 10,
            attr_prob: 0.6,
            max_value: 6,
            header: false,
            ..DocGenConfig::default()
        },
    );
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let mut docs = Vec::new();
    for i in 0..count {
        let mut d = gen.next_doc();
        match i % 5 {
            3 => d.truncate(rng.gen_range(0..d.len())),
            4 => {
                for _ in 0..rng.gen_range(1..4) {
                    let at = rng.gen_range(0..d.len());
                    d[at] = b"<>/=\"'a &;!?"[rng.gen_range(0..12)];
                }
            }
            _ => {}
        }
        if !d.is_empty() {
            docs.push(d);
        }
    }
    docs
}

fn random_queries(seed: u64, count: usize, prob_twig: f64) -> String {
    let mut g = QueryGen::new(
        Vocab::nitf(),
        QueryGenConfig {
            seed,
            count,
            max_depth: 6,
            prob_star: 0.2,
            prob_desc: 0.25,
            prob_attr_pred: 0.3,
            quote_values: seed % 2 == 0,
            max_value: 6,
            prob_twig,
            ..QueryGenConfig::default()
        },
    );
    g.queries().join("\n") + "\n"
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
