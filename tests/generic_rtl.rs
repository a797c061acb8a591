//! The programmable design's RTL (`emit::generic`, `rtl-templates/xpath/
//! generic.v`): lint-clean under `verilator --lint-only -Wall` at several
//! sizes.

mod common;

use qrtl_xpath::emit::generic::{generic_files, rtl_refusal};
use qrtl_xpath::ir::generic::Shape;
use qrtl_xpath::ir::xpath::Namespaces;
use qrtl_xpath::xml::XmlConfig;
use std::path::PathBuf;
use std::process::Command;

/// A raw-names shape without condition units (what the RTL builds today).
fn shape(columns: usize, cluster_size: usize, window: usize) -> Shape {
    Shape {
        cluster_size,
        window,
        comparators: 0,
        counters: 0,
        namespaces: Namespaces::Raw,
        ..Shape::with_columns(columns)
    }
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("qrtl-generic-rtl-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_generic_design_is_lint_clean() {
    for (columns, cluster_size, window) in [(16, 16, 4), (96, 32, 8), (64, 64, 16)] {
        let s = shape(columns, cluster_size, window);
        assert_eq!(rtl_refusal(&s), None);
        let files = generic_files(
            &s,
            &XmlConfig::with_max_depth(s.max_depth),
            "qrtl_xpath_top",
        );
        let dir = scratch(&format!("{columns}-{cluster_size}-{window}"));
        let mut paths = Vec::new();
        for (name, text) in &files {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            paths.push(p);
        }
        let out = Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "qrtl_xpath_top"])
            .args(&paths)
            .output()
            .expect("verilator runs");
        assert!(
            out.status.success(),
            "{columns} columns, clusters of {cluster_size}, window {window}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

use common::{nitf_dir, nitf_docs, random_docs, random_twig_queries, raw_design_from_text};
use qrtl_core::sim::{build, CfgStream, DriverSpec, Simulator, Stalls, Step};
use qrtl_xpath::emit::generic::decode_generic_result;
use qrtl_xpath::ir::generic::Config;
use qrtl_xpath::ir::xpath::{Mode, SiblingOrder};
use qrtl_xpath::lower::generic::configure;
use qrtl_xpath::refmodel::generic::run_document;

fn config_step(config: &Config, id: u16) -> Step {
    Step::Config(
        config
            .words(id)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect(),
    )
}

/// Build the design of `shape` once; run `sets` (each configured in turn,
/// with its documents) through it; every document's result must be the
/// model's under the configuration that answered, and that configuration
/// the one sent before it.
fn check_sets(shape: &Shape, sets: &[(&str, Config, Vec<Vec<u8>>)], stalls: &Stalls) {
    let xml = XmlConfig::with_max_depth(shape.max_depth);
    let files = generic_files(shape, &xml, "qrtl_xpath_top");
    let spec = DriverSpec {
        cfg: Some(CfgStream {
            prefix: "s_cfg".into(),
            data_bits: 64,
        }),
        ..DriverSpec::axis("qrtl_xpath_top")
    };
    let built = build(&spec, &files, Simulator::Verilator).expect("the design builds");
    let mut steps = Vec::new();
    let mut expect = Vec::new();
    for (i, (name, config, docs)) in sets.iter().enumerate() {
        steps.push(config_step(config, i as u16 + 1));
        for (d, doc) in docs.iter().enumerate() {
            steps.push(Step::Doc(doc.clone()));
            expect.push((name, i, d, run_document(config, xml, doc)));
        }
    }
    let run = built
        .run_steps(&steps, stalls, None)
        .expect("the run completes");
    assert_eq!(run.packets.len(), expect.len());
    for (packet, (name, i, d, want)) in run.packets.iter().zip(&expect) {
        let got = decode_generic_result(&packet.words, &sets[*i].1)
            .unwrap_or_else(|e| panic!("{name} doc {d}: {e}"));
        assert_eq!(
            got.config_id as usize,
            i + 1,
            "{name} doc {d}: the configuration that answered"
        );
        assert_eq!(got.status, want.status, "{name} doc {d} status");
        assert_eq!(got.matched, want.matched, "{name} doc {d} matches");
    }
}

fn configured(name: &str, text: &str, mode: Mode, order: SiblingOrder, shape: &Shape) -> Config {
    let mut design = raw_design_from_text(name, text, mode);
    design.order = order;
    configure(&design, shape).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn small_sets_swapped_between_documents() {
    let s = shape(64, 32, 8);
    let docs: Vec<Vec<u8>> = [
        "<a><b><c/></b><d>x</d></a>",
        "<a><d/><b/></a>",
        "<x><a><b><c/></b></a></x>",
        "<a><b><c></a>",
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect();
    let paths = "/a/b/c\n//b/c\n/a//c\n//a[b]/d\n/*/d\n//x//c\n";
    let twigs = "/a[b/c]/d\n//a[d][b]\n/x/a[b[c]]\n//*[c]\n";
    let sets = [
        (
            "paths",
            configured("paths", paths, Mode::Holistic, SiblingOrder::Unordered, &s),
            docs.clone(),
        ),
        (
            "twigs",
            configured("twigs", twigs, Mode::Holistic, SiblingOrder::Unordered, &s),
            docs.clone(),
        ),
        (
            "ordered",
            configured("ordered", twigs, Mode::Holistic, SiblingOrder::Ordered, &s),
            docs.clone(),
        ),
        (
            "pairs",
            configured("pairs", twigs, Mode::Pairs, SiblingOrder::Unordered, &s),
            docs.clone(),
        ),
        (
            "paths again",
            configured("paths", paths, Mode::Holistic, SiblingOrder::Unordered, &s),
            docs,
        ),
    ];
    check_sets(&s, &sets, &Stalls::NONE);
    check_sets(
        &s,
        &sets,
        &Stalls {
            seed: 5,
            in_gap_percent: 30,
            out_stall_percent: 40,
        },
    );
}

/// The NITF suites' queries without value or positional predicates (what
/// the RTL's units build today), twigs included.
fn structural(text: &str, count: usize) -> String {
    text.lines()
        .filter(|l| !l.contains('@') && !l.contains("text()") && !l.contains("position()"))
        .filter(|l| {
            !l.bytes()
                .zip(l.bytes().skip(1))
                .any(|(a, b)| a == b'[' && b.is_ascii_digit())
        })
        .take(count)
        .map(|l| format!("{l}\n"))
        .collect()
}

/// One build of 512 columns configured in turn with the NITF suites'
/// first structural queries
/// (holistic, paths, pairs, --ordered) over the 100 NITF documents, and
/// seeded random twig sets over generated documents.
#[test]
fn one_build_serves_the_nitf_suites_and_random_twigs() {
    let s = Shape {
        tags: 128,
        ..shape(512, 128, 16)
    };
    let docs = nitf_docs();
    let read = |suite: &str, count| {
        let text =
            std::fs::read_to_string(nitf_dir().join(format!("queries/{suite}.txt"))).unwrap();
        structural(&text, count)
    };
    let paths = read("simple_paths", 200);
    let nested = read("nested_paths", 80);
    let mixed = read("mixed", 200);
    let u = SiblingOrder::Unordered;
    let mut sets = vec![
        (
            "simple_paths",
            configured("simple_paths", &paths, Mode::Holistic, u, &s),
            docs.clone(),
        ),
        (
            "nested_paths",
            configured("nested_paths", &nested, Mode::Holistic, u, &s),
            docs.clone(),
        ),
        (
            "mixed paths",
            configured("mixed", &mixed, Mode::Paths, u, &s),
            docs.clone(),
        ),
        (
            "nested pairs",
            configured("nested_paths", &nested, Mode::Pairs, u, &s),
            docs.clone(),
        ),
        (
            "nested ordered",
            configured(
                "nested_paths",
                &nested,
                Mode::Holistic,
                SiblingOrder::Ordered,
                &s,
            ),
            docs[..30].to_vec(),
        ),
    ];
    for seed in [41, 42] {
        let q = structural(&random_twig_queries(seed, 100), 100);
        sets.push((
            "random twigs",
            configured("random", &q, Mode::Holistic, u, &s),
            random_docs(seed, 40),
        ));
    }
    check_sets(&s, &sets, &Stalls::NONE);
}
