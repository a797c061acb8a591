//! Namespace-aware matching against `sxd-xpath` (namespace-aware too) on
//! seeded random namespaced documents and queries (issue 29 point 5).
//!
//! Documents: three local names, two URIs, two document prefixes bound to
//! them at random depths (and rebound), default namespace declarations
//! (never undeclared with `xmlns=""`, oracle quirk 8, and only on
//! unprefixed elements, quirk 9), prefixed and
//! unprefixed attributes, declarations before or after the attributes
//! that use them. Queries: paths over `a`, `x:a`, `*`, `x:*` with `/` and
//! `//`, attribute predicates `[@k]`, `[@x:k = v]` and positional ones;
//! the query prefixes `x`, `y` are bound with `--ns` to the two URIs under
//! other names than the documents use, so only URIs can make them agree.
//!
//! Runs: `cargo test --test xpath_ns_vs_sxd` (fixed seeds);
//! `QRTL_SOAK=N` for N rounds.

mod common;
#[path = "xpath_cases/sxd_oracle.rs"]
mod sxd_oracle;

use common::design_from_text_ns;
use qrtl_xpath::ir::xpath::Mode;
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::xml::DocStatus;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sxd_oracle::Oracle;

const LOCALS: [&str; 3] = ["a", "b", "c"];
const URIS: [&str; 2] = ["urn:one", "urn:two"];
/// Document prefixes; the queries use `x` and `y` for the same URIs.
const DOC_PREFIXES: [&str; 2] = ["p", "q"];
const QUERY_PREFIXES: [&str; 2] = ["x", "y"];

/// Prefixes in scope while generating: (prefix, URI index).
type Scope = Vec<(&'static str, usize)>;

fn gen_elem(rng: &mut SmallRng, scope: &Scope, depth: usize, out: &mut String) {
    let mut scope = scope.clone();
    let mut decls = Vec::new();
    if rng.gen_bool(0.3) {
        let p = DOC_PREFIXES[rng.gen_range(0..2)];
        let u = rng.gen_range(0..2);
        decls.push(format!(" xmlns:{p}=\"{}\"", URIS[u]));
        scope.retain(|(q, _)| *q != p);
        scope.push((p, u));
    }
    let local = LOCALS[rng.gen_range(0..3)];
    let name = match scope.get(rng.gen_range(0..scope.len() + 2)) {
        Some((p, _)) => format!("{p}:{local}"),
        None => local.to_string(),
    };
    // Oracle quirk 9: default declarations only on unprefixed elements.
    if !name.contains(':') && rng.gen_bool(0.25) {
        decls.push(format!(" xmlns=\"{}\"", URIS[rng.gen_range(0..2)]));
    }
    let mut attrs = Vec::new();
    if rng.gen_bool(0.4) {
        attrs.push(format!(" k=\"{}\"", rng.gen_range(0..3)));
    }
    if let Some((p, _)) = scope.get(rng.gen_range(0..scope.len() + 1)) {
        attrs.push(format!(" {p}:k=\"{}\"", rng.gen_range(0..3)));
    }
    // Declarations before or after the attributes that use them.
    let tag_attrs = if rng.gen_bool(0.5) {
        decls.concat() + &attrs.concat()
    } else {
        attrs.concat() + &decls.concat()
    };
    out.push_str(&format!("<{name}{tag_attrs}"));
    let kids = if depth >= 4 { 0 } else { rng.gen_range(0..4) };
    if kids == 0 {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for _ in 0..kids {
        gen_elem(rng, &scope, depth + 1, out);
    }
    out.push_str(&format!("</{name}>"));
}

fn gen_doc(rng: &mut SmallRng) -> String {
    let mut s = String::new();
    gen_elem(rng, &Vec::new(), 0, &mut s);
    s
}

fn gen_test(rng: &mut SmallRng) -> String {
    let local = LOCALS[rng.gen_range(0..3)];
    let p = QUERY_PREFIXES[rng.gen_range(0..2)];
    match rng.gen_range(0..6) {
        0 | 1 => local.to_string(),
        2 | 3 => format!("{p}:{local}"),
        4 => "*".into(),
        _ => format!("{p}:*"),
    }
}

fn gen_query(rng: &mut SmallRng) -> String {
    let mut q = String::new();
    for _ in 0..rng.gen_range(1..4) {
        q.push_str(if rng.gen_bool(0.4) { "//" } else { "/" });
        q.push_str(&gen_test(rng));
        match rng.gen_range(0..6) {
            0 => q.push_str("[@k]"),
            1 => q.push_str(&format!(
                "[@{}:k = {}]",
                QUERY_PREFIXES[rng.gen_range(0..2)],
                rng.gen_range(0..3)
            )),
            2 => q.push_str(&format!("[{}]", rng.gen_range(1..3))),
            _ => {}
        }
    }
    q
}

fn bindings() -> Vec<(String, String)> {
    QUERY_PREFIXES
        .iter()
        .zip(URIS)
        .map(|(p, u)| (p.to_string(), u.to_string()))
        .collect()
}

/// The oracle's form of a query: `[N]` as `[position() = N]`, `@x:k = v`
/// as `@x:k[. = v]` (oracle quirks 4 and 5).
fn oracle_form(q: &str) -> String {
    let mut out = String::new();
    let mut rest = q;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..=i]);
        let j = rest[i..].find(']').expect("closed") + i;
        let inner = &rest[i + 1..j];
        match inner.split_once(" = ") {
            Some((attr, v)) => out.push_str(&format!("{attr}[. = {v}]")),
            None if inner.chars().all(|c| c.is_ascii_digit()) => {
                out.push_str(&format!("position() = {inner}"))
            }
            None => out.push_str(inner),
        }
        out.push(']');
        rest = &rest[j + 1..];
    }
    out.push_str(rest);
    out
}

fn round(seed: u64, nqueries: usize, ndocs: usize) -> usize {
    let mut rng = SmallRng::seed_from_u64(seed);
    let queries: Vec<String> = (0..nqueries).map(|_| gen_query(&mut rng)).collect();
    let mut ns = NsOptions::default();
    for (p, u) in bindings() {
        ns.bind(&format!("{p}={u}")).expect("valid");
    }
    let text = queries.join("\n") + "\n";
    let design = design_from_text_ns("<ns>", &text, Mode::Holistic, &ns);
    let mut engine = Engine::new(&design, EngineConfig::default());
    let oracle_texts: Vec<String> = queries.iter().map(|q| oracle_form(q)).collect();
    let oracle = Oracle::with_namespaces(&oracle_texts, &bindings());
    let mut failures = Vec::new();
    for _ in 0..ndocs {
        let doc = gen_doc(&mut rng);
        let got = engine.filter(doc.as_bytes());
        assert_eq!(got.status, DocStatus::Ok, "{doc}: {:?}", got.error);
        let want = oracle
            .eval(&doc)
            .unwrap_or_else(|e| panic!("sxd rejects {doc}: {e}"));
        if got.matched != want {
            let diff: Vec<String> = (0..nqueries as u32)
                .filter(|i| got.matched.contains(i) != want.contains(i))
                .map(|i| {
                    format!(
                        "{} (engine {})",
                        queries[i as usize],
                        got.matched.contains(&i)
                    )
                })
                .collect();
            failures.push(format!("seed {seed}: {doc}\n  {}", diff.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} documents differ:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
    ndocs
}

#[test]
fn namespaced_documents_agree_with_sxd_xpath() {
    let docs: usize = [1u64, 2, 3, 4].iter().map(|&s| round(s, 60, 150)).sum();
    eprintln!("{docs} namespaced documents x 60 queries agree");
}

#[test]
fn soak() {
    let Some(n) = std::env::var("QRTL_SOAK")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    else {
        return;
    };
    for s in 0..n {
        round(1000 + s, 200, 300);
    }
}

#[test]
fn unbound_document_prefixes_are_malformed() {
    let design = design_from_text_ns("<ns>", "//a\n", Mode::Holistic, &NsOptions::default());
    let mut engine = Engine::new(&design, EngineConfig::default());
    for doc in [
        "<r><p:a/></r>",
        "<r a:k='1'/>",
        "<r><a xmlns:p='urn:x'/><p:a/></r>",
    ] {
        let r = engine.filter(doc.as_bytes());
        assert_eq!(r.status, DocStatus::Malformed, "{doc}");
        assert!(
            Oracle::new(&[]).eval(doc).is_err(),
            "sxd-document accepts {doc}"
        );
    }
}
