//! `qrtl xpath configure` without a simulator: a query set lowered onto a
//! programmable design's slots (`lower::generic`) and run by the generic
//! structure's model (`refmodel::generic`) must give the engine's answer
//! (same mode) on every document: the four NITF suites in every mode and
//! with `--ordered`, seeded random path and twig sets with predicates, a
//! narrow window and small clusters (where copies are made), namespaces;
//! and a set that does not fit is refused with the resource and amounts.

mod common;

use common::{
    design_from_text, nitf_dir, nitf_docs, random_docs, random_queries, random_twig_queries,
    raw_design_from_text,
};
use qrtl_xpath::ir::generic::{Config, Link, Shape};
use qrtl_xpath::ir::xpath::{Design, Mode, Namespaces, SiblingOrder};
use qrtl_xpath::lower::generic::{configure, ConfigureError};
use qrtl_xpath::refmodel::generic::run_document;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::xml::XmlConfig;

/// A roomy shape: every NITF suite fits.
fn roomy(namespaces: Namespaces) -> Shape {
    Shape {
        namespaces,
        tags: 1024,
        comparators: 1024,
        counters: 64,
        lanes: 12,
        literal_bytes: 64,
        // Twigs take general slots: YFilter's nested_paths needs 8,663.
        general: 96,
        ..Shape::with_columns(16384)
    }
}

/// Small clusters and a narrow window: many copies and cluster breaks.
fn cramped(namespaces: Namespaces) -> Shape {
    Shape {
        cluster_size: 16,
        general: 12,
        window: 2,
        ..roomy(namespaces)
    }
}

fn check(name: &str, design: &Design, shape: &Shape, docs: &[Vec<u8>]) {
    let xml = XmlConfig::with_max_depth(shape.max_depth);
    let made = configure(design, shape).unwrap_or_else(|e| panic!("{name}: {e}"));
    // The model runs what the design reads: the configuration stream.
    let (mut config, id) = Config::from_words(shape, &made.words(7))
        .unwrap_or_else(|e| panic!("{name}: the stream does not read back: {e}"));
    config.copies = made.copies;
    assert_eq!(id, 7, "{name}: the configuration id");
    assert!(
        config == made,
        "{name}: the stream does not read back as written"
    );
    let mut engine = Engine::new(
        design,
        EngineConfig {
            xml,
            ..EngineConfig::default()
        },
    );
    for (i, doc) in docs.iter().enumerate() {
        let want = engine.filter(doc);
        let got = run_document(&config, xml, doc);
        assert_eq!(got.status, want.status, "{name} doc {i} status");
        assert_eq!(
            got.matched,
            want.matched,
            "{name} doc {i} ({} bytes), {} slots, {} copies, window {}, clusters of {}",
            doc.len(),
            config.used_slots(),
            config.copies,
            shape.window,
            shape.cluster_size
        );
    }
}

fn nitf_text(suite: &str) -> String {
    std::fs::read_to_string(nitf_dir().join(format!("queries/{suite}.txt"))).unwrap()
}

#[test]
fn nitf_suites_in_every_mode() {
    let docs = nitf_docs();
    for suite in ["simple_paths", "simple_predicates", "mixed", "nested_paths"] {
        let text = nitf_text(suite);
        for mode in [Mode::Holistic, Mode::Paths, Mode::Pairs] {
            let design = raw_design_from_text(suite, &text, mode);
            check(
                &format!("{suite} {}", mode.as_str()),
                &design,
                &roomy(Namespaces::Raw),
                &docs,
            );
        }
    }
}

#[test]
fn nitf_twigs_ordered() {
    let docs = nitf_docs();
    for suite in ["mixed", "nested_paths"] {
        let mut design = raw_design_from_text(suite, &nitf_text(suite), Mode::Holistic);
        design.order = SiblingOrder::Ordered;
        check(
            &format!("{suite} ordered"),
            &design,
            &roomy(Namespaces::Raw),
            &docs,
        );
    }
}

#[test]
fn copies_across_small_clusters_and_a_narrow_window() {
    let docs = nitf_docs();
    let text = nitf_text("simple_paths");
    let design = raw_design_from_text("simple_paths", &text, Mode::Holistic);
    let shape = cramped(Namespaces::Raw);
    let config = configure(&design, &shape).unwrap();
    assert!(config.copies > 0, "the cramped shape makes copies");
    check("simple_paths cramped", &design, &shape, &docs[..40]);
    for seed in 1..=3 {
        let queries = random_queries(seed, 120, 0.3);
        let design = raw_design_from_text("random", &queries, Mode::Holistic);
        check(
            &format!("random-{seed} cramped"),
            &design,
            &Shape {
                window: 4,
                ..cramped(Namespaces::Raw)
            },
            &random_docs(seed, 40),
        );
    }
}

#[test]
fn random_paths_and_twigs_with_predicates() {
    for seed in 1..=4 {
        let queries = random_queries(seed, 120, 0.2);
        let docs = random_docs(seed, 60);
        for mode in [Mode::Holistic, Mode::Paths, Mode::Pairs] {
            let design = raw_design_from_text("random", &queries, mode);
            check(
                &format!("random-{seed} {}", mode.as_str()),
                &design,
                &roomy(Namespaces::Raw),
                &docs,
            );
        }
    }
    for seed in 31..=33 {
        let queries = random_twig_queries(seed, 80);
        let docs = random_docs(seed, 40);
        for order in [SiblingOrder::Unordered, SiblingOrder::Ordered] {
            let mut design = raw_design_from_text("twigs", &queries, Mode::Holistic);
            design.order = order;
            check(
                &format!("twigs-{seed} {order:?}"),
                &design,
                &roomy(Namespaces::Raw),
                &docs,
            );
        }
    }
}

#[test]
fn namespace_aware_names() {
    let queries = "declare namespace a = \"urn:a\";\n\
        declare namespace b = \"urn:b\";\n\
        /a:r/a:x\n//b:*[@a:k = \"1\"]\n//x[@k]\n/a:r//*[2]\n//a:x[text() = \"t\"]\n";
    let design = design_from_text("ns", queries, Mode::Holistic);
    let docs: Vec<Vec<u8>> = [
        "<r xmlns=\"urn:a\"><x/></r>",
        "<p:r xmlns:p=\"urn:a\" xmlns:q=\"urn:b\"><q:y p:k=\"1\"/><x k=\"2\"/></p:r>",
        "<r xmlns=\"urn:a\"><x>t</x><x xmlns=\"\" k=\"\"/></r>",
        "<r><x/></r>",
        "<r xmlns:b=\"urn:b\"><b:z xmlns:a=\"urn:a\" a:k=\"1\"/></r>",
        "<r xmlns=\"urn:a\"><y><x/><x/></y></r>",
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect();
    check("ns", &design, &roomy(Namespaces::Xpath), &docs);
    // Read by hand: which queries each document matches.
    let config = configure(&design, &roomy(Namespaces::Xpath)).unwrap();
    let got: Vec<Vec<u32>> = docs
        .iter()
        .map(|d| run_document(&config, XmlConfig::default(), d).matched)
        .collect();
    assert_eq!(
        got,
        [
            vec![0],
            vec![1, 2, 3],
            vec![0, 2, 3, 4],
            vec![],
            vec![1],
            vec![3],
        ]
    );
}

fn refusal(design: &Design, shape: &Shape) -> (&'static str, usize, usize) {
    match configure(design, shape) {
        Err(ConfigureError::DoesNotFit {
            resource,
            needs,
            has,
            ..
        }) => (resource, needs, has),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_set_that_does_not_fit_is_refused_with_the_amounts() {
    let design = raw_design_from_text("simple_paths", &nitf_text("simple_paths"), Mode::Holistic);
    let fits = configure(&design, &roomy(Namespaces::Raw)).unwrap();
    let used = fits.used_slots();
    let (what, needs, has) = refusal(
        &design,
        &Shape {
            columns: 256,
            cluster_size: 128,
            ..roomy(Namespaces::Raw)
        },
    );
    assert_eq!((what, has), ("columns", 256));
    assert!(needs > has, "needs {needs} columns ({used} with room)");
    let (what, needs, has) = refusal(
        &design,
        &Shape {
            tags: 10,
            ..roomy(Namespaces::Raw)
        },
    );
    assert_eq!((what, has), ("tag entries", 10));
    assert_eq!(needs, fits.tags.len());
    let preds = raw_design_from_text(
        "simple_predicates",
        &nitf_text("simple_predicates"),
        Mode::Holistic,
    );
    let (what, _, has) = refusal(
        &preds,
        &Shape {
            comparators: 3,
            ..roomy(Namespaces::Raw)
        },
    );
    assert_eq!((what, has), ("comparators", 3));
    let e = configure(&preds, &roomy(Namespaces::Xpath)).unwrap_err();
    assert!(matches!(e, ConfigureError::Namespaces { .. }), "{e}");
}

/// A comparator's literal memory holds a string's bytes or a number's
/// rounding bounds, two digits an entry: `2.5` needs 53 entries, `0`
/// (bounds ±2^-1075) 1,075, a long string its bytes.
#[test]
fn literals_that_do_not_fit_are_refused_with_the_entries() {
    let shape = Shape {
        literal_bytes: 53,
        ..roomy(Namespaces::Raw)
    };
    let fits = raw_design_from_text(
        "fits",
        "//a[@x > 2.5]\n//a[text() = \"abc\"]\n",
        Mode::Holistic,
    );
    assert!(configure(&fits, &shape).is_ok());
    let zero = raw_design_from_text("zero", "//a[@x != 0]\n", Mode::Holistic);
    assert_eq!(
        refusal(&zero, &shape),
        ("literal bytes for a number's rounding bounds", 1075, 53)
    );
    let long = raw_design_from_text(
        "long",
        &format!("//a[@x = \"{}\"]\n", "y".repeat(54)),
        Mode::Holistic,
    );
    assert_eq!(refusal(&long, &shape), ("bytes of literal", 54, 53));
}

/// Plain paths take chain slots (the first `cluster_size - general` of a
/// cluster; a branch is a chain of its own, the shared steps copied),
/// twigs general slots; too few general slots for a twig is refused as
/// such, and a design of general slots only holds the paths as a tree.
#[test]
fn paths_take_chain_slots_and_twigs_general_slots() {
    let design = raw_design_from_text("kinds", "/a/b/c\n/a/b/d\n//x[y]/z\n", Mode::Holistic);
    let shape = Shape {
        cluster_size: 16,
        general: 8,
        ..roomy(Namespaces::Raw)
    };
    let config = configure(&design, &shape).unwrap();
    let slots = &config.clusters[0].slots;
    let chain: Vec<bool> = slots[..8].iter().map(|s| s.is_some()).collect();
    assert_eq!(chain, [true, true, true, true, true, true, false, false]);
    assert!(slots[..6]
        .iter()
        .flatten()
        .all(|s| s.pop.is_none() && !matches!(s.link, Link::Parent { back, .. } if back != 1)));
    assert_eq!(config.copies, 2, "a and b again for the branch to d");
    let twig: Vec<bool> = slots[8..]
        .iter()
        .map(|s| s.is_some_and(|s| s.pop.is_some()))
        .collect();
    assert_eq!(twig, [true, true, true]);
    let docs: Vec<Vec<u8>> = [
        "<a><b><c/><d/></b></a>",
        "<a><b><d/></b><c/></a>",
        "<r><x><y/><z/></x><x><z/></x></r>",
        "<a><b/><x><z/><y/></x></a>",
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect();
    check("kinds", &design, &shape, &docs);
    let all_general = Shape {
        general: 16,
        ..shape
    };
    let config = configure(&design, &all_general).unwrap();
    assert_eq!((config.used_slots(), config.copies), (7, 0));
    check("kinds, general slots only", &design, &all_general, &docs);
    assert_eq!(
        refusal(
            &design,
            &Shape {
                general: 2,
                ..shape
            }
        ),
        ("general columns in one cluster", 3, 2)
    );
}
