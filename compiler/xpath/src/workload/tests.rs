use super::*;
use crate::ir::xpath::Mode;
use crate::lower::xpath::lower_queries;
use crate::passes::{run_pipeline, PassConfig};
use crate::refmodel::{Engine, EngineConfig};
use crate::syntax::parse_query_file;
use crate::xml::{DocStatus, Sink, XmlConfig};

/// Records element nesting and values while tokenizing.
#[derive(Default)]
struct Shape {
    depth: u32,
    max_depth: u32,
    elements: usize,
    names: Vec<String>,
    values_ok: bool,
    value: Vec<u8>,
}

impl Sink for Shape {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        self.elements += 1;
        self.max_depth = self.max_depth.max(depth);
        self.names.push(String::from_utf8(name.to_vec()).unwrap());
        true
    }
    fn attr_start(&mut self, _name: &[u8]) -> bool {
        self.value.clear();
        true
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        self.value.extend_from_slice(chunk);
    }
    fn attr_end(&mut self) {
        let v: u32 = std::str::from_utf8(&self.value).unwrap().parse().unwrap();
        self.values_ok &= (1..=20).contains(&v);
    }
    fn open(&mut self) {
        self.depth += 1;
    }
    fn close(&mut self) {
        self.depth -= 1;
    }
    fn wants_text(&mut self) -> bool {
        false
    }
    fn text(&mut self, _chunk: &[u8]) {}
    fn text_end(&mut self) {}
}

fn small_docs(seed: u64) -> Vec<Vec<u8>> {
    let cfg = DocGenConfig {
        seed,
        target_bytes: 60_000,
        doc_bytes: (2_000, 20_000),
        ..Default::default()
    };
    generate_docs(Vocab::nitf(), &cfg)
}

#[test]
fn nitf_vocabulary_parses() {
    let v = Vocab::nitf();
    assert_eq!(v.roots, vec![v.find("nitf").unwrap()]);
    assert!(v.elems.len() > 100, "{}", v.elems.len());
    let body = v.elem(v.find("body").unwrap());
    assert!(body
        .children
        .iter()
        .any(|c| v.elem(c.elem).name == "body.content" && c.repeat && !c.required));
    let nitf = v.elem(v.roots[0]);
    assert!(nitf.children.iter().all(|c| c.required && !c.repeat));
    assert!(v.elem(v.find("title").unwrap()).text);
}

#[test]
fn vocabulary_errors() {
    assert!(Vocab::parse("a : b |").is_err(), "b has no line, no root");
    assert!(Vocab::parse("root a\na : b |").is_err());
    let v = Vocab::parse("root a\na #text : b+ b? b* b | x y\nb : a |").unwrap();
    let occ: Vec<(u32, bool, bool)> = v
        .elem(0)
        .children
        .iter()
        .map(|c| (c.elem, c.required, c.repeat))
        .collect();
    assert_eq!(
        occ,
        vec![
            (1, true, true),
            (1, false, false),
            (1, false, true),
            (1, true, false)
        ]
    );
    assert_eq!(v.elem(0).attrs, vec!["x", "y"]);
}

#[test]
fn documents_are_well_formed_and_use_the_vocabulary() {
    let v = Vocab::nitf();
    let docs = small_docs(7);
    assert!(docs.len() >= 3);
    let total: usize = docs.iter().map(|d| d.len()).sum();
    assert!(total >= 60_000);
    for d in &docs {
        let mut s = Shape {
            values_ok: true,
            ..Default::default()
        };
        let r = crate::xml::tokenizer::tokenize(XmlConfig::default(), d, &mut s);
        assert!(r.is_ok(), "{:?}\n{}", r, String::from_utf8_lossy(d));
        assert_eq!(s.depth, 0);
        assert!(s.values_ok);
        assert!(s.max_depth <= 12 && s.max_depth >= 4, "{}", s.max_depth);
        assert!(s.names.iter().all(|n| v.find(n).is_some()));
        assert!(d.len() <= 20_000 + 200, "{}", d.len());
    }
    // Sizes track their aims on average.
    assert!(total / docs.len() > 4_000, "{}", total / docs.len());
}

#[test]
fn documents_are_deterministic_per_seed() {
    assert_eq!(small_docs(3), small_docs(3));
    assert_ne!(small_docs(3), small_docs(4));
}

fn parse_all(qs: &[String]) -> Vec<crate::syntax::SourceQuery> {
    let qf = parse_query_file("gen", &query_file(qs));
    let (parsed, diags) = (qf.queries, qf.diagnostics);
    assert!(
        diags.is_empty(),
        "{}",
        diags.iter().map(|d| d.render()).collect::<String>()
    );
    assert_eq!(parsed.len(), qs.len());
    parsed
}

#[test]
fn path_queries_follow_the_parameters() {
    let cfg = QueryGenConfig {
        seed: 5,
        count: 3000,
        ..Default::default()
    };
    let qs = generate_queries(Vocab::nitf(), &cfg);
    assert_eq!(qs.len(), 3000);
    let distinct: HashSet<&String> = qs.iter().collect();
    assert_eq!(distinct.len(), qs.len());
    parse_all(&qs);
    // Step statistics before the distinctness filter (which favours `//`
    // steps: there are few distinct shallow child-axis paths).
    let qs = generate_queries(
        Vocab::nitf(),
        &QueryGenConfig {
            distinct: false,
            ..cfg
        },
    );
    let (mut steps, mut stars, mut descs) = (0usize, 0usize, 0usize);
    for q in &qs {
        assert!(q.starts_with('/') && !q.contains('['), "{q}");
        let s = q.replace("//", "/\u{1}");
        let parts: Vec<&str> = s.split('/').skip(1).collect();
        assert!(!parts.is_empty() && parts.len() <= 8, "{q}");
        for p in parts {
            steps += 1;
            let p = match p.strip_prefix('\u{1}') {
                Some(p) => {
                    descs += 1;
                    p
                }
                None => p,
            };
            if p == "*" {
                stars += 1;
            }
        }
    }
    let (fs, fd) = (stars as f64 / steps as f64, descs as f64 / steps as f64);
    assert!((0.10..0.20).contains(&fs), "star fraction {fs}");
    assert!((0.10..0.20).contains(&fd), "descendant fraction {fd}");
}

#[test]
fn predicate_queries_parse() {
    let cfg = QueryGenConfig {
        seed: 9,
        count: 500,
        prob_attr_pred: 0.3,
        prob_twig: 0.3,
        ..Default::default()
    };
    let qs = generate_queries(Vocab::nitf(), &cfg);
    assert!(qs.iter().any(|q| q.contains("[@")));
    assert!(qs.iter().any(|q| q.contains('[') && !q.contains("[@")));
    parse_all(&qs);
    let quoted = generate_queries(
        Vocab::nitf(),
        &QueryGenConfig {
            quote_values: true,
            ..cfg
        },
    );
    assert!(quoted.iter().any(|q| q.contains("=\"")));
    parse_all(&quoted);
}

#[test]
fn queries_are_deterministic_per_seed() {
    let cfg = QueryGenConfig {
        seed: 11,
        count: 200,
        prob_attr_pred: 0.2,
        prob_twig: 0.2,
        ..Default::default()
    };
    let a = generate_queries(Vocab::nitf(), &cfg);
    assert_eq!(a, generate_queries(Vocab::nitf(), &cfg));
    assert_ne!(
        a,
        generate_queries(Vocab::nitf(), &QueryGenConfig { seed: 12, ..cfg })
    );
}

#[test]
fn engine_accepts_generated_documents_and_matches_some_queries() {
    let cfg = QueryGenConfig {
        seed: 2,
        count: 300,
        ..Default::default()
    };
    let qs = generate_queries(Vocab::nitf(), &cfg);
    let parsed = parse_all(&qs);
    let design = run_pipeline(
        lower_queries("gen", &parsed).expect("lowers"),
        &PassConfig {
            mode: Mode::Holistic,
        },
    );
    let mut engine = Engine::new(&design, EngineConfig::default());
    let mut any = HashSet::new();
    for d in small_docs(1) {
        let r = engine.filter(&d);
        assert_eq!(r.status, DocStatus::Ok, "{:?}", r.error);
        any.extend(r.matched);
    }
    // `/nitf`-style shallow queries always match; deep ones sometimes.
    assert!(
        any.len() > qs.len() / 10,
        "{} of {} queries ever matched",
        any.len(),
        qs.len()
    );
}
