//! Smoke test of the benchmark workloads: the generators at tiny sizes,
//! through the engine. Checks determinism and that results are sane (a
//! query built from a document's own path matches it; generated path
//! queries agree with a brute-force matcher over the document's paths).
//! No timing assertions.

use qrtl_xpath::ir::xpath::Mode;
use qrtl_xpath::lower::xpath::lower_queries;
use qrtl_xpath::passes::{run_pipeline, PassConfig};
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::syntax::parse_query_file;
use qrtl_xpath::workload::{
    generate_docs, generate_queries, query_file, DocGen, DocGenConfig, QueryGenConfig, Vocab,
};
use qrtl_xpath::xml::{DocStatus, Sink, XmlConfig};
use std::process::Command;

fn engine_for(text: &str) -> Engine {
    let qf = parse_query_file("<smoke>", text);
    let (queries, diags) = (qf.queries, qf.diagnostics);
    assert!(
        diags.is_empty(),
        "{}",
        diags.iter().map(|d| d.render()).collect::<String>()
    );
    let design = lower_queries("<smoke>", &queries).expect("generated queries lower");
    Engine::new(
        &run_pipeline(
            design,
            &PassConfig {
                mode: Mode::Holistic,
            },
        ),
        EngineConfig::default(),
    )
}

fn tiny_docs(seed: u64) -> Vec<Vec<u8>> {
    let cfg = DocGenConfig {
        seed,
        target_bytes: 40_000,
        doc_bytes: (1_000, 8_000),
        ..Default::default()
    };
    generate_docs(Vocab::nitf(), &cfg)
}

fn tiny_queries(seed: u64, count: usize) -> Vec<String> {
    generate_queries(
        Vocab::nitf(),
        &QueryGenConfig {
            seed,
            count,
            ..Default::default()
        },
    )
}

/// Every element's root-to-node path (names), in document order.
#[derive(Default)]
struct Paths {
    stack: Vec<String>,
    paths: Vec<Vec<String>>,
}

impl Sink for Paths {
    fn start_name(&mut self, name: &[u8], _depth: u32) -> bool {
        self.stack.push(String::from_utf8(name.to_vec()).unwrap());
        self.paths.push(self.stack.clone());
        false
    }
    fn attr_start(&mut self, _: &[u8]) -> bool {
        false
    }
    fn attr_value(&mut self, _: &[u8]) {}
    fn attr_end(&mut self) {}
    fn open(&mut self) {}
    fn close(&mut self) {
        self.stack.pop();
    }
    fn wants_text(&mut self) -> bool {
        false
    }
    fn text(&mut self, _: &[u8]) {}
    fn text_end(&mut self) {}
}

fn paths_of(doc: &[u8]) -> Vec<Vec<String>> {
    let mut p = Paths::default();
    qrtl_xpath::xml::tokenizer::tokenize(XmlConfig::default(), doc, &mut p).expect("well-formed");
    p.paths
}

/// `(descendant, name)` steps of a predicate-free path query.
fn steps(q: &str) -> Vec<(bool, String)> {
    let s = q.replace("//", "/\u{1}");
    s.split('/')
        .skip(1)
        .map(|p| match p.strip_prefix('\u{1}') {
            Some(n) => (true, n.to_string()),
            None => (false, p.to_string()),
        })
        .collect()
}

/// Does the path query `steps` select the node at the end of `path`?
fn selects(steps: &[(bool, String)], path: &[String]) -> bool {
    fn go(steps: &[(bool, String)], path: &[String], from: usize) -> bool {
        let Some(((desc, name), rest)) = steps.split_first() else {
            return from == path.len();
        };
        let candidates = if *desc {
            from..path.len()
        } else {
            from..(from + 1).min(path.len())
        };
        candidates
            .into_iter()
            .any(|i| (name == "*" || *name == path[i]) && go(rest, path, i + 1))
    }
    go(steps, path, 0)
}

#[test]
fn generators_are_deterministic() {
    assert_eq!(tiny_docs(5), tiny_docs(5));
    assert_ne!(tiny_docs(5), tiny_docs(6));
    assert_eq!(tiny_queries(5, 100), tiny_queries(5, 100));
    assert_ne!(tiny_queries(5, 100), tiny_queries(6, 100));
    // A stream of documents is a prefix-stable sequence.
    let cfg = DocGenConfig {
        seed: 9,
        doc_bytes: (2_000, 2_000),
        ..Default::default()
    };
    let mut a = DocGen::new(Vocab::nitf(), cfg.clone());
    let first: Vec<Vec<u8>> = (0..3).map(|_| a.next_doc()).collect();
    let mut b = DocGen::new(Vocab::nitf(), cfg);
    assert_eq!(first, (0..3).map(|_| b.next_doc()).collect::<Vec<_>>());
}

#[test]
fn generated_path_queries_agree_with_brute_force() {
    let docs = tiny_docs(1);
    let queries = tiny_queries(2, 400);
    assert_eq!(queries.len(), 400);
    let mut engine = engine_for(&query_file(&queries));
    let mut total = 0;
    for d in &docs {
        let r = engine.filter(d);
        assert_eq!(r.status, DocStatus::Ok, "{:?}", r.error);
        let paths = paths_of(d);
        let expected: Vec<u32> = queries
            .iter()
            .enumerate()
            .filter(|(_, q)| {
                let s = steps(q);
                paths.iter().any(|p| selects(&s, p))
            })
            .map(|(i, _)| i as u32)
            .collect();
        assert_eq!(r.matched, expected);
        total += r.matched.len();
    }
    // The workload is not degenerate: a fair share of queries match something.
    assert!(
        total > queries.len() / 4,
        "only {total} matches over {} documents",
        docs.len()
    );
    // A fresh engine gives the same answers as the warmed-up one.
    let mut fresh = engine_for(&query_file(&queries));
    for d in docs.iter().rev() {
        assert_eq!(fresh.filter(d).matched, engine.filter(d).matched);
    }
}

#[test]
fn a_documents_own_paths_match_it() {
    for (n, d) in tiny_docs(3).iter().enumerate() {
        let paths = paths_of(d);
        // Some element paths of this document, exact and generalised.
        let mut qs = Vec::new();
        for p in paths.iter().step_by((paths.len() / 20).max(1)) {
            qs.push(format!("/{}", p.join("/")));
            let mut g = String::new();
            for (i, name) in p.iter().enumerate() {
                g.push_str(if i % 3 == 2 { "//" } else { "/" });
                g.push_str(if i % 4 == 1 { "*" } else { name });
            }
            qs.push(g);
            qs.push(format!("//{}", p.last().unwrap()));
        }
        let mut engine = engine_for(&qs.join("\n"));
        let r = engine.filter(d);
        assert_eq!(r.status, DocStatus::Ok);
        assert_eq!(
            r.matched.len(),
            qs.len(),
            "document {n}: not all of its own paths matched"
        );
        // A path that is not in the document does not match.
        let mut e2 = engine_for("/nitf/no-such-element\n/head");
        assert!(e2.filter(d).matched.is_empty());
    }
}

#[test]
fn bench_binary_runs_a_configuration() {
    let exe = env!("CARGO_BIN_EXE_qrtl-bench");
    let list = Command::new(exe).arg("--list").output().unwrap();
    assert!(list.status.success());
    let names = String::from_utf8(list.stdout).unwrap();
    for name in ["tok-gen", "gen-1k"] {
        assert!(
            names.lines().any(|l| l.starts_with(&format!("{name}\t"))),
            "{names}"
        );
        let out = Command::new(exe)
            .args(["--one", name, "--quick"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let get = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{k}\t")))
                .map(str::to_string)
                .unwrap_or_default()
        };
        assert!(get("warm_mbps").parse::<f64>().unwrap() > 0.0, "{text}");
        assert!(get("peak_rss_kb").parse::<u64>().unwrap() > 0, "{text}");
        if name == "gen-1k" {
            assert!(get("queries").parse::<u64>().unwrap() > 0, "{text}");
            assert!(
                get("queries_ever_matched").parse::<u64>().unwrap() > 0,
                "{text}"
            );
            assert_eq!(get("flagged_docs"), "0");
        }
    }
}
