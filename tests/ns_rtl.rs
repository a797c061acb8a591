//! Namespace-aware names in hardware (issue 29 point 4): designs built with
//! `--namespaces xpath` (the parser, the namespace unit `qrtl_ns`, the
//! clusters decoding local names and testing namespace classes) against
//! the software engine under the same capacities, document by document in
//! Verilator: every match bit, the status and the reason, with and without
//! random `tvalid`/`tready` stalls, and cycles = bytes + latency.
//!
//! Documents: seeded random namespaced documents (prefixes bound and
//! rebound at random depths, default namespaces declared and undeclared,
//! declarations before and after the attributes and names that use them,
//! prefixed and unprefixed attributes, text), plus every namespace fault:
//! misplaced colons (also in a PI target), unbound element and attribute
//! prefixes, reserved prefixes and names misused, more prefixes or
//! declarations than the unit holds, one local name under two prefixes,
//! expanded-name duplicates. `QRTL_SOAK=N` adds N seeds.

mod common;

use common::{design_from_text_ns, libxml2_expected, nitf_dir, nitf_docs, sim_equals_engine};
use qrtl_core::sim::{Simulator, Stalls};
use qrtl_xpath::emit::xpath::{EventInput, RtlShape};
use qrtl_xpath::engine::{build_xpath_hw, XpathHw, XpathHwOptions};
use qrtl_xpath::ir::xpath::Mode;
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::passes::registry::StackPassConfig;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::xml::ns::NsLimits;
use qrtl_xpath::xml::{DocStatus, XmlConfig, XmlError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const LOCALS: [&str; 3] = ["a", "b", "c"];
const URIS: [&str; 3] = ["urn:one", "urn:two", "urn:three"];
const DOC_PREFIXES: [&str; 4] = ["p", "q", "r", "ss"];

type Scope = Vec<(&'static str, usize)>;

fn gen_elem(rng: &mut SmallRng, scope: &Scope, depth: usize, out: &mut String) {
    let mut scope = scope.clone();
    let mut decls = Vec::new();
    for _ in 0..rng.gen_range(0..3) {
        let p = DOC_PREFIXES[rng.gen_range(0..DOC_PREFIXES.len())];
        if decls.iter().any(|d: &String| d.contains(&format!(":{p}="))) {
            continue;
        }
        let u = rng.gen_range(0..URIS.len());
        decls.push(format!(" xmlns:{p}=\"{}\"", URIS[u]));
        scope.retain(|(q, _)| *q != p);
        scope.push((p, u));
    }
    match rng.gen_range(0..8) {
        0 => decls.push(format!(" xmlns=\"{}\"", URIS[rng.gen_range(0..URIS.len())])),
        1 => decls.push(" xmlns=\"\"".to_string()),
        _ => {}
    }
    let local = LOCALS[rng.gen_range(0..3)];
    let name = match scope.get(rng.gen_range(0..scope.len() + 2)) {
        Some((p, _)) => format!("{p}:{local}"),
        None => local.to_string(),
    };
    let mut attrs = Vec::new();
    if rng.gen_bool(0.4) {
        attrs.push(format!(" k=\"{}\"", rng.gen_range(0..3)));
    }
    if let Some((p, _)) = scope.get(rng.gen_range(0..scope.len() + 1)) {
        attrs.push(format!(" {p}:k=\"{}\"", rng.gen_range(0..3)));
    }
    if rng.gen_bool(0.1) {
        attrs.push(" xml:lang=\"en\"".to_string());
    }
    let tag_attrs = if rng.gen_bool(0.5) {
        decls.concat() + &attrs.concat()
    } else {
        attrs.concat() + &decls.concat()
    };
    out.push_str(&format!("<{name}{tag_attrs}"));
    let kids = if depth >= 4 { 0 } else { rng.gen_range(0..4) };
    if kids == 0 && rng.gen_bool(0.6) {
        out.push_str("/>");
        return;
    }
    out.push('>');
    if rng.gen_bool(0.3) {
        out.push_str(["t1", "t2", " x "][rng.gen_range(0..3)]);
    }
    for _ in 0..kids {
        gen_elem(rng, &scope, depth + 1, out);
    }
    out.push_str(&format!("</{name}>"));
}

fn random_ns_docs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut s = String::new();
            gen_elem(&mut rng, &Vec::new(), 0, &mut s);
            s.into_bytes()
        })
        .collect()
}

/// Documents with each namespace fault (and near misses that are fine),
/// padded so that most are longer than the design's latency.
fn fault_docs() -> Vec<Vec<u8>> {
    let pad = "<!-- padding padding padding padding padding -->";
    [
        // misplaced colons
        "<:a/>",
        "<a:/>",
        "<a:b:c xmlns:a='urn:one'/>",
        "<r><e :k='1'/></r>",
        "<r xmlns:p='urn:one'><e p:='1'/></r>",
        "<r><?pi:target x?></r>",
        "<?t:x?><r/>",
        // unbound prefixes: element, attribute, after a sibling's scope ends
        "<p:a/>",
        "<r><e p:k='1'/></r>",
        "<r><e xmlns:p='urn:one'/><p:e/></r>",
        "<xmlns:a/>",
        "<r><longprefixlongprefixlongprefix:e/></r>",
        "<r><e longprefixlongprefixlong:k='1'/></r>",
        // declarations after the names that use them: fine
        "<p:a xmlns:p='urn:one'><p:b/></p:a>",
        "<a p:k='1' xmlns:p='urn:two'><b p:k='2'/></a>",
        // reserved prefixes and names
        "<r xmlns:p=''/>",
        "<r xmlns:xml='urn:one'/>",
        "<r xmlns:xml='http://www.w3.org/XML/1998/namespace'><e xml:lang='en'/></r>",
        "<r xmlns:xmlns='urn:one'/>",
        "<r xmlns:p='http://www.w3.org/XML/1998/namespace'/>",
        "<r xmlns='http://www.w3.org/2000/xmlns/'/>",
        "<r xmlns:p='http://www.w3.org/2000/xmlns/'/>",
        "<r xmlns='urn:one'><e xmlns=''/></r>",
        "<r xmlns:p='urn:&#111;ne'><p:a/></r>",
        // one local name under two prefixes, duplicates
        "<r xmlns:p='urn:one' xmlns:q='urn:two'><e p:k='1' q:k='2'/></r>",
        "<r xmlns:p='urn:one' xmlns:q='urn:one'><e p:k='1' q:k='2'/></r>",
        "<r xmlns:p='urn:one'><e p:k='1' k='2'/></r>",
        "<r xmlns:p='urn:one'><e p:k='1' p:k='2'/></r>",
        // capacities: prefixes and declarations
        "<r xmlns:a='urn:one' xmlns:b='urn:two' xmlns:c='urn:three' xmlns:d='urn:four'/>",
        "<r xmlns:a='urn:one'><e xmlns:b='urn:two'><f xmlns:c='urn:three'><g a:k='1' x:k='2'/></f></e></r>",
        "<r xmlns:a='u1'><e xmlns:a='u2'><f xmlns:a='u3'><g xmlns:a='u4' xmlns='u5'/></f></e></r>",
        "<r xmlns:a='u1'><e xmlns:a='u2'/><e xmlns:a='u2'/><e xmlns:a='u2'/></r>",
    ]
    .iter()
    .map(|d| format!("{d}{pad}").into_bytes())
    // A prefixed attribute's name ending at the document's last byte
    // (reason 31 is decided a clock after the name's end).
    .chain([b"<r xmlns:p='urn:one' xmlns:q='urn:two'><e p:k='1' q:k ".to_vec()])
    .collect()
}

const QUERIES: &str = "\
//a
//x:a
/x:a
//y:b/z:c
//*[@k]
//x:*[@k = 1]
//x:*[2]
//*/y:*
//a[@k = 2]
/*/*[1]
//x:b[text() = \"t1\"]
//z:c[x:a]
//a[b][x:c]
//*[@x:k]
//a[@y:k = 1]
//x:*[@z:k = 2][@k]
//*[@xml:lang = \"en\"]
//b[@x:k][@y:k]
";

fn design(name: &str, limits: NsLimits) -> (XpathHw, Engine) {
    design_of(name, QUERIES, limits, 4, 8)
}

/// `queries` under namespace-aware names (`x`, `y`, `z` bound to the three
/// URIs), built with the unit's capacities `limits`.
fn design_of(
    name: &str,
    queries: &str,
    limits: NsLimits,
    cluster_size: usize,
    max_depth: u32,
) -> (XpathHw, Engine) {
    let mut ns = NsOptions::default();
    for b in ["x=urn:one", "y=urn:two", "z=urn:three"] {
        ns.bind(b).expect("a binding");
    }
    let design = design_from_text_ns(name, queries, Mode::Holistic, &ns);
    let xml = XmlConfig {
        ns_limits: Some(limits),
        ..XmlConfig::with_max_depth(max_depth)
    };
    let hw = build_xpath_hw(
        name,
        &design,
        &XpathHwOptions {
            xml,
            passes: StackPassConfig {
                cluster_size,
                ..StackPassConfig::default()
            },
            input: EventInput::Pipelined,
            shape: RtlShape::default(),
            bytes_per_clock: 1,
        },
    )
    .unwrap_or_else(|d| panic!("{name}: {}", d[0].render()));
    let engine = Engine::new(
        &hw.queries,
        EngineConfig {
            xml: hw.xml,
            ..EngineConfig::default()
        },
    );
    (hw, engine)
}

fn check(name: &str, hw: &XpathHw, engine: &mut Engine, docs: &[Vec<u8>], stalls: Stalls) {
    check_in(name, hw, engine, docs, stalls, Simulator::Verilator);
}

fn check_in(
    name: &str,
    hw: &XpathHw,
    engine: &mut Engine,
    docs: &[Vec<u8>],
    stalls: Stalls,
    simulator: Simulator,
) -> qrtl_xpath::engine::XpathSimRun {
    let run = sim_equals_engine(name, hw, engine, docs, simulator, stalls);
    if stalls == Stalls::NONE {
        let min_len = u64::from(hw.rtl.latency + hw.rtl.result_words);
        for (i, d) in run.docs.iter().enumerate() {
            let len = docs[i].len() as u64;
            if len >= min_len {
                assert_eq!(
                    d.cycles,
                    len - 1 + u64::from(hw.rtl.latency),
                    "{name}: doc {i}"
                );
            }
        }
    }
    run
}

/// The run is worth something: most queries match some document, and
/// documents end with every kind of status.
fn check_coverage(name: &str, hw: &XpathHw, run: &qrtl_xpath::engine::XpathSimRun) {
    let mut matched = vec![false; hw.rtl.queries.len()];
    let mut statuses = std::collections::BTreeSet::new();
    for d in &run.docs {
        for &q in &d.result.matched {
            matched[q as usize] = true;
        }
        statuses.insert(format!("{:?}", d.result.status));
    }
    let n = matched.iter().filter(|&&m| m).count();
    assert!(
        n * 4 >= matched.len() * 3,
        "{name}: only {n} queries match anything"
    );
    assert!(statuses.len() >= 3, "{name}: statuses {statuses:?}");
}

/// The simple-paths suite (`queries` rewritten from it) on `docs` (the
/// NITF documents, maybe rewritten): the RTL equals the engine, and
/// libxml2's answers for the plain suite.
fn nitf_run(name: &str, queries: &str, docs: &[Vec<u8>]) {
    let (hw, mut engine) = design_of(name, queries, NsLimits::default(), 64, 32);
    let run = check_in(
        name,
        &hw,
        &mut engine,
        docs,
        Stalls::NONE,
        Simulator::Verilator,
    );
    let want = libxml2_expected("simple_paths", &|q| Some(q as u32));
    for (i, (d, w)) in run.docs.iter().zip(&want).enumerate() {
        assert_eq!(
            &d.result.matched,
            w,
            "{name}: outFile{}.xml vs libxml2",
            i + 1
        );
    }
}

fn simple_paths() -> String {
    std::fs::read_to_string(nitf_dir().join("queries/simple_paths.txt")).unwrap()
}

/// NITF documents have no namespaces: a namespace-aware design answers the
/// simple-paths suite exactly as libxml2 does (and as the engine).
#[test]
fn nitf_simple_paths_with_namespace_aware_names() {
    nitf_run("ns-nitf", &simple_paths(), &nitf_docs());
}

/// The NITF documents put in a namespace (a default namespace declared on
/// the root), and the suite's queries with every name prefixed by it: the
/// same answers as libxml2 gives for the plain suite.
#[test]
fn nitf_in_a_default_namespace_with_prefixed_queries() {
    let queries: String = simple_paths()
        .lines()
        .map(|q| prefix_names(q, "z") + "\n")
        .collect();
    let docs: Vec<Vec<u8>> = nitf_docs()
        .into_iter()
        .map(|d| {
            let s = String::from_utf8(d).expect("UTF-8");
            s.replacen("<nitf", "<nitf xmlns=\"urn:three\"", 1)
                .into_bytes()
        })
        .collect();
    nitf_run("ns-nitf-default", &queries, &docs);
}

/// A path query with `prefix:` before each name test (not before `*`).
fn prefix_names(q: &str, prefix: &str) -> String {
    let mut out = String::new();
    let mut after_slash = false;
    for c in q.chars() {
        if after_slash && c != '/' && c != '*' {
            out.push_str(prefix);
            out.push(':');
        }
        after_slash = c == '/';
        out.push(c);
    }
    out
}

/// Icarus Verilog runs the namespace unit as Verilator does.
#[test]
fn icarus_agrees_on_the_fault_documents() {
    let (hw, mut engine) = design(
        "ns-icarus",
        NsLimits {
            prefixes: 3,
            bindings: 4,
        },
    );
    let docs = fault_docs();
    check_in(
        "ns-icarus",
        &hw,
        &mut engine,
        &docs,
        Stalls::NONE,
        Simulator::Icarus,
    );
}

#[test]
fn namespaced_documents_match_the_engine() {
    let soak: u64 = std::env::var("QRTL_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for (name, limits) in [
        (
            "ns-small",
            NsLimits {
                prefixes: 3,
                bindings: 4,
            },
        ),
        ("ns-default", NsLimits::default()),
    ] {
        let (hw, mut engine) = design(name, limits);
        let mut docs = fault_docs();
        for seed in 1..=2 + soak {
            docs.extend(random_ns_docs(seed, 150));
        }
        let run = check_in(
            name,
            &hw,
            &mut engine,
            &docs,
            Stalls::NONE,
            Simulator::Verilator,
        );
        check_coverage(name, &hw, &run);
        let stalls = Stalls {
            seed: 7,
            in_gap_percent: 30,
            out_stall_percent: 40,
        };
        check(name, &hw, &mut engine, &docs, stalls);
    }
}

/// The fault documents reach every namespace reason, in software and so
/// (by the test above) in hardware.
#[test]
fn the_fault_documents_cover_every_namespace_reason() {
    let (_, mut engine) = {
        let mut ns = NsOptions::default();
        ns.bind("x=urn:one").expect("a binding");
        let d = design_from_text_ns("cover", "//x:a\n", Mode::Holistic, &ns);
        let xml = XmlConfig {
            namespaces: true,
            ns_limits: Some(NsLimits {
                prefixes: 3,
                bindings: 4,
            }),
            ..XmlConfig::with_max_depth(8)
        };
        let e = Engine::new(
            &d,
            EngineConfig {
                xml,
                ..EngineConfig::default()
            },
        );
        ((), e)
    };
    let mut seen = std::collections::BTreeSet::new();
    for d in fault_docs() {
        let r = engine.filter(&d);
        if let Some(e) = r.error {
            seen.insert(e.error.code());
        }
        if r.status == DocStatus::Ok {
            seen.insert(0);
        }
    }
    for e in [
        XmlError::BadQName,
        XmlError::UnboundPrefix,
        XmlError::BadNamespaceDecl,
        XmlError::NsCapacity,
        XmlError::NsLocalNameTwice,
        XmlError::DuplicateAttribute,
    ] {
        assert!(seen.contains(&e.code()), "no fault document gives {e:?}");
    }
    assert!(seen.contains(&0), "some fault documents are fine");
}
