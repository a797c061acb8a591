//! Helpers shared by the integration tests.
#![allow(dead_code)]

use qrtl_xpath::ir::xpath::{Design, Mode};
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::lower::xpath::lower_file;
use qrtl_xpath::passes::{run_pipeline, PassConfig};
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::syntax::parse_query_file;
use std::path::PathBuf;

pub mod sax_trace;

/// YFilter's NITF suites (`../shared/data/yfilter-nitf`, see `workload::nitf_dir`).
pub fn nitf_dir() -> PathBuf {
    qrtl_xpath::workload::nitf_dir()
}

/// The W3C XML Conformance Test Suite's folder: `QRTL_XMLCONF_DIR`, else
/// `../shared/data/xmlconf` beside the repository.
pub fn xmlconf_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("QRTL_XMLCONF_DIR") {
        return PathBuf::from(d);
    }
    let beside = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/xmlconf");
    if beside.is_dir() {
        return beside;
    }
    PathBuf::from("/work/shared/data/xmlconf")
}

/// Every `.xml` file under `dir`, sorted (the suite's case documents and
/// catalogues alike).
pub fn xml_files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for e in entries {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "xml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Parse, lower and run the pass pipeline over a query file's text
/// (namespace-aware names, the product's default).
pub fn design_from_text(name: &str, text: &str, mode: Mode) -> Design {
    design_from_text_ns(name, text, mode, &NsOptions::default())
}

/// [`design_from_text`] with names compared as raw bytes, as the hardware
/// compares them.
pub fn raw_design_from_text(name: &str, text: &str, mode: Mode) -> Design {
    design_from_text_ns(name, text, mode, &NsOptions::raw())
}

/// [`design_from_text`] under the namespace options `ns`.
pub fn design_from_text_ns(name: &str, text: &str, mode: Mode, ns: &NsOptions) -> Design {
    let qf = parse_query_file(name, text);
    assert!(
        qf.diagnostics.is_empty(),
        "{name}: {}",
        qf.diagnostics
            .iter()
            .map(|d| d.render())
            .collect::<String>()
    );
    let design = lower_file(name, &qf, ns).unwrap_or_else(|d| {
        panic!(
            "{name}: {}",
            d.iter().map(|d| d.render()).collect::<String>()
        )
    });
    run_pipeline(design, &PassConfig { mode })
}

pub fn engine_for(text: &str, mode: Mode) -> Engine {
    Engine::new(
        &design_from_text("<test>", text, mode),
        EngineConfig::default(),
    )
}

/// Seeded path queries over the NITF vocabulary (`*`, `//`, attribute
/// predicates; twig branches with `prob_twig`), plus three queries about the
/// deep `<a x='1'>` documents of [`random_docs`].
pub fn random_queries(seed: u64, count: usize, prob_twig: f64) -> String {
    use qrtl_xpath::workload::{QueryGen, QueryGenConfig, Vocab};
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
    let mut q = g.queries();
    q.push("/a".into());
    q.push("//a/a/a[@x=1]".into());
    q.push("//a[@x]//a".into());
    q.join("\n") + "\n"
}

/// Seeded random twig queries over the NITF vocabulary with every
/// predicate kind: attributes, positions, `text()`, branches and nested
/// predicates.
#[allow(dead_code)]
pub fn random_twig_queries(seed: u64, count: usize) -> String {
    use qrtl_xpath::workload::{QueryGen, QueryGenConfig, Vocab};
    let mut g = QueryGen::new(
        Vocab::nitf(),
        QueryGenConfig {
            seed,
            count,
            max_depth: 6,
            prob_star: 0.2,
            prob_desc: 0.25,
            prob_attr_pred: 0.2,
            quote_values: seed % 2 == 0,
            max_value: 6,
            prob_twig: 0.35,
            prob_pos_pred: 0.15,
            prob_text_pred: 0.2,
            prob_nested: 0.3,
            ..QueryGenConfig::default()
        },
    );
    let mut q = g.queries();
    q.push("//a[a][a/a]".into());
    q.push("//*[2][text()]".into());
    q.push("/nitf[head/title][body//p[text()='1']]".into());
    q.join("\n") + "\n"
}

/// Seeded small NITF-like documents; every 6th is truncated, byte-flipped,
/// or a deep `<a x='1'>` nest (1–39 levels), so malformed and too-deep
/// documents are mixed in. Never empty.
pub fn random_docs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    use qrtl_xpath::workload::{DocGen, DocGenConfig, Vocab};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let mut gen = DocGen::new(
        Vocab::nitf(),
        DocGenConfig {
            seed,
            doc_bytes: (60, 2500),
            max_depth: 10,
            attr_prob: 0.6,
            max_value: 6,
            header: seed % 2 == 0,
            ..DocGenConfig::default()
        },
    );
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xfeed);
    let mut docs = Vec::new();
    while docs.len() < count {
        let mut d = gen.next_doc();
        match docs.len() % 6 {
            3 => d.truncate(rng.gen_range(1..d.len())),
            4 => {
                for _ in 0..rng.gen_range(1..4) {
                    let at = rng.gen_range(0..d.len());
                    d[at] = b"<>/=\"'a &;!?x"[rng.gen_range(0..13)];
                }
            }
            5 => {
                let depth = rng.gen_range(1..40);
                d = format!("{}{}", "<a x='1'>".repeat(depth), "</a>".repeat(depth)).into_bytes();
            }
            _ => {}
        }
        docs.push(d);
    }
    docs
}

/// YFilter's 100 NITF documents, in file-number order.
pub fn nitf_docs() -> Vec<Vec<u8>> {
    let dir = nitf_dir().join("docs");
    (1..=100)
        .map(|i| std::fs::read(dir.join(format!("outFile{i}.xml"))).expect("NITF document"))
        .collect()
}

/// libxml2's answers (`expected/SUITE.jsonl`), per document in file order,
/// with query ids mapped through `keep` (original id → id in the run).
pub fn libxml2_expected(suite: &str, keep: &dyn Fn(u64) -> Option<u32>) -> Vec<Vec<u32>> {
    let text = std::fs::read_to_string(nitf_dir().join(format!("expected/{suite}.jsonl")))
        .expect("expected results");
    let mut by_doc = std::collections::BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let doc = v["doc"].as_str().expect("doc").to_string();
        let n: u32 = doc
            .trim_start_matches("outFile")
            .trim_end_matches(".xml")
            .parse()
            .expect("outFileN.xml");
        let mut ids: Vec<u32> = v["matched"]
            .as_array()
            .expect("matched")
            .iter()
            .filter_map(|x| keep(x.as_u64().expect("id")))
            .collect();
        ids.sort();
        by_doc.insert(n, ids);
    }
    (1..=100)
        .map(|n| by_doc.remove(&n).expect("every document"))
        .collect()
}

/// Every document whose simulated result (match bits, status, reason)
/// differs from the engine's, described.
pub fn differences(
    engine: &mut Engine,
    docs: &[Vec<u8>],
    got: &[qrtl_xpath::engine::SimDoc],
) -> Vec<String> {
    assert_eq!(got.len(), docs.len(), "one result per document");
    let mut failures = Vec::new();
    for (i, (doc, got)) in docs.iter().zip(got).enumerate() {
        let want = engine.filter(doc);
        let got = &got.result;
        let want_reason = want.error.map(|e| e.error);
        if got.status != want.status || got.reason != want_reason || got.matched != want.matched {
            failures.push(format!(
                "doc {i} ({} bytes): rtl {:?} {:?} {:?}\n  engine {:?} {:?} {:?}\n  doc: {}",
                doc.len(),
                got.status,
                got.reason,
                got.matched,
                want.status,
                want_reason,
                want.matched,
                String::from_utf8_lossy(&doc[..doc.len().min(300)])
            ));
        }
    }
    failures
}

/// Simulates `docs` through `hw` (Verilator's C++ unoptimized: designs
/// build several times faster and short inputs still simulate fast) and
/// asserts that every document's result equals `engine`'s; `name` names
/// the case in a failure, which shows the first five documents that differ.
pub fn sim_equals_engine(
    name: &str,
    hw: &qrtl_xpath::engine::XpathHw,
    engine: &mut Engine,
    docs: &[Vec<u8>],
    simulator: qrtl_core::sim::Simulator,
    stalls: qrtl_core::sim::Stalls,
) -> qrtl_xpath::engine::XpathSimRun {
    let build = qrtl_core::sim::BuildOptions {
        unoptimized_cxx: true,
        ..qrtl_core::sim::BuildOptions::default()
    };
    let run = qrtl_xpath::engine::simulate_xpath_with(hw, docs, simulator, &stalls, None, &build)
        .unwrap_or_else(|e| panic!("{name}: simulation failed: {e}"));
    let failures = differences(engine, docs, &run.docs);
    assert!(
        failures.is_empty(),
        "{name} ({simulator:?}, {stalls:?}): {} of {} documents differ:\n{}",
        failures.len(),
        docs.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    run
}
