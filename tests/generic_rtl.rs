//! The programmable design's RTL (`emit::generic`, `rtl-templates/xpath/
//! generic.v`): lint-clean under `verilator --lint-only -Wall` at several
//! sizes, with and without condition units; in Verilator, one build per
//! shape configured in turn with many query sets gives the model's answer
//! (`refmodel::generic`, itself checked against the engine) document by
//! document.

mod common;

use qrtl_xpath::emit::generic::{generic_files, rtl_refusal};
use qrtl_xpath::ir::generic::Shape;
use qrtl_xpath::ir::xpath::Namespaces;
use qrtl_xpath::xml::XmlConfig;
use std::path::PathBuf;
use std::process::Command;

/// A raw-names shape without condition units (what the RTL builds today).
/// Half of each cluster's slots are general.
fn shape(columns: usize, cluster_size: usize, window: usize) -> Shape {
    Shape {
        cluster_size,
        general: cluster_size / 2,
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
    // (columns, cluster size, window, comparators, counters, general
    // slots a cluster: half, none, all)
    let sizes = [
        (16, 16, 4, 0, 0, 8),
        (96, 32, 8, 0, 0, 16),
        (64, 64, 16, 0, 0, 32),
        (64, 32, 8, 8, 4, 16),
        (32, 32, 4, 3, 0, 0),
        (32, 16, 4, 0, 2, 16),
    ];
    for (columns, cluster_size, window, comparators, counters, general) in sizes {
        let s = Shape {
            comparators,
            counters,
            general,
            ..shape(columns, cluster_size, window)
        };
        assert_eq!(rtl_refusal(&s), None);
        let files = generic_files(
            &s,
            &XmlConfig::with_max_depth(s.max_depth),
            "qrtl_xpath_top",
        );
        let dir = scratch(&format!(
            "{columns}-{cluster_size}-{window}-{comparators}-{counters}-{general}"
        ));
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
            "{columns} columns, clusters of {cluster_size} ({general} general), window {window}, {comparators} comparators, {counters} counters:\n{}",
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
/// with its documents) through it, once per stall pattern; every
/// document's result must be the model's under the configuration that
/// answered, and that configuration the one sent before it.
fn check_sets(shape: &Shape, sets: &[(&str, Config, Vec<Vec<u8>>)], stalls: &[Stalls]) {
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
            expect.push((name.to_string(), i, d, run_document(config, xml, doc)));
        }
    }
    for stalls in stalls {
        let run = built
            .run_steps(&steps, stalls, None)
            .expect("the run completes");
        check_packets(&run.packets, &expect, sets);
    }
    check_load_cycles(&built, shape, sets);
}

/// The clocks a configuration takes to load, as `configure` prints them
/// (`load_cycles`: from its first word until it is active, the next
/// document waiting), against the simulation. The harness sends a
/// document after the configuration packet's last word, and the loader
/// takes the host records after the COMMIT once the commit is active; so
/// a small document sent after the configuration finishes `load_cycles`
/// plus those words, plus one (the driver presents the document the clock
/// after the configuration's last word), later than the same document
/// alone.
fn check_load_cycles(
    built: &qrtl_core::sim::Built,
    shape: &Shape,
    sets: &[(&str, Config, Vec<Vec<u8>>)],
) {
    use qrtl_xpath::emit::generic::load_cycles;
    use qrtl_xpath::ir::config_words::words_after_commit;
    let doc = Step::Doc(b"<r/>".to_vec());
    let total = |steps: &[Step]| {
        built
            .run_steps(steps, &Stalls::NONE, None)
            .expect("the run completes")
            .total_cycles
    };
    let alone = total(std::slice::from_ref(&doc));
    for (i, (name, config, _)) in sets.iter().enumerate() {
        let words = config.words(i as u16 + 1);
        let model = load_cycles(shape, &words);
        let expect = model + words_after_commit(&words) as u64 + 1;
        let measured = total(&[config_step(config, i as u16 + 1), doc.clone()]) - alone;
        assert_eq!(
            measured, expect,
            "{name}: clocks to load in simulation against load_cycles ({model}) \
             and the host words after the COMMIT"
        );
    }
}

/// A document's set name, set and document index, and the model's result.
type Expected = (
    String,
    usize,
    usize,
    qrtl_xpath::refmodel::generic::GenericRun,
);

fn check_packets(
    packets: &[qrtl_core::sim::PacketResult],
    expect: &[Expected],
    sets: &[(&str, Config, Vec<Vec<u8>>)],
) {
    assert_eq!(packets.len(), expect.len());
    for (packet, (name, i, d, want)) in packets.iter().zip(expect) {
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
    check_sets(
        &s,
        &sets,
        &[
            Stalls::NONE,
            Stalls {
                seed: 5,
                in_gap_percent: 30,
                out_stall_percent: 40,
            },
        ],
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
    // Mostly general slots (nested_paths' twigs need 479), 8 chain slots
    // a cluster, which the paths fill before they spill into general ones.
    let s = Shape {
        tags: 128,
        general: 120,
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
    // Names at the decoder's limit (32 bytes: no 0 after them), one byte
    // short (a prefix) and one too long (never a tag entry).
    let full = "n".repeat(31) + "z";
    let short = "n".repeat(31);
    let long = "n".repeat(31) + "zz";
    let q = format!("//{full}\n//{short}\n/r/{full}/b\n//{short}/*\n");
    let docs: Vec<Vec<u8>> = [
        format!("<r><{full}><b/></{full}></r>"),
        format!("<r><{short}><{long}/></{short}></r>"),
        format!("<r><{long}><b/></{long}><{short}z/></r>"),
        format!("<r><{short}y/><{short}/></r>"),
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect();
    sets.push((
        "names at the limit",
        configured("limit", &q, Mode::Holistic, u, &s),
        docs,
    ));
    check_sets(&s, &sets, &[Stalls::NONE]);
}

/// 256 tag names of 24 to 32 bytes: more `TAGS` words than the loader's
/// tag queue drains while the stream offers them, so the configuration
/// stream waits while the queue is full (gen_loader.v's `tq_full`); every
/// name still reaches the decoder (a query per name, documents with all of
/// them, a name one byte short and one byte long), and the load takes the
/// clocks `load_cycles` models.
#[test]
fn a_full_tag_queue_holds_the_stream_and_loses_no_name() {
    use qrtl_xpath::emit::generic::TAG_QUEUE_WORDS;
    let s = Shape {
        tags: 256,
        ..shape(256, 128, 16)
    };
    let names: Vec<String> = (0..256)
        .map(|i| {
            let n = format!("t{i:03}");
            n.clone() + &"abcdefghijklmnopqrstuvwxyz0123456789"[..20 + i % 9]
        })
        .collect();
    let queries: String = names.iter().map(|n| format!("//{n}\n")).collect();
    let config = configured(
        "names",
        &queries,
        Mode::Holistic,
        SiblingOrder::Unordered,
        &s,
    );
    let name_bytes: usize = names.iter().map(|n| n.len() + 1).sum();
    assert!(
        name_bytes.div_ceil(8) > TAG_QUEUE_WORDS * 8 / 7 + 1,
        "the names ({name_bytes} bytes) must overfill the tag queue"
    );
    let all: String = names.iter().map(|n| format!("<{n}/>")).collect();
    let odd: String = names
        .iter()
        .step_by(2)
        .map(|n| format!("<{n}><x/></{n}>"))
        .collect();
    let last = &names[255];
    let docs: Vec<Vec<u8>> = [
        format!("<r>{all}</r>"),
        format!("<r>{odd}</r>"),
        format!(
            "<r><{short}/><{last}z/></r>",
            short = &last[..last.len() - 1]
        ),
        format!("<{last}/>"),
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect();
    check_sets(&s, &[("256 names", config, docs)], &[Stalls::NONE]);
}

use qrtl_xpath::refmodel::{Engine, EngineConfig};

/// A shape with condition units: every predicate kind the front end
/// accepts and `configure` lowers.
fn unit_shape() -> Shape {
    Shape {
        tags: 96,
        comparators: 32,
        counters: 16,
        lanes: 12,
        literal_bytes: 64,
        ..shape(192, 32, 8)
    }
}

/// `configured`, after checking that the model gives the engine's answer
/// on `docs` (so the RTL, compared with the model, is compared with the
/// engine: `qrtl xpath filter`).
fn configured_as_engine(
    name: &str,
    text: &str,
    mode: Mode,
    order: SiblingOrder,
    shape: &Shape,
    docs: &[Vec<u8>],
) -> Config {
    let mut design = raw_design_from_text(name, text, mode);
    design.order = order;
    let config = configure(&design, shape).unwrap_or_else(|e| panic!("{name}: {e}"));
    let xml = XmlConfig::with_max_depth(shape.max_depth);
    let mut engine = Engine::new(
        &design,
        EngineConfig {
            xml,
            ..EngineConfig::default()
        },
    );
    for (d, doc) in docs.iter().enumerate() {
        let want = engine.filter(doc);
        let got = run_document(&config, xml, doc);
        assert_eq!(
            (got.status, &got.matched),
            (want.status, &want.matched),
            "{name} doc {d}: the model is the engine"
        );
    }
    config
}

/// Attribute and `text()` comparisons with every operator, string and
/// number literals (integers, fractions, negatives, a NaN string), and
/// positions: the hand-written part of the predicate sets.
const PREDICATES: &str = r#"//a[@x = "1"]
//a[@x != "1"]
//a[@x = 1]
//a[@x != 1]
//a[@x < 2.5]
//a[@x <= 2]
//a[@x > -1]
//a[@x >= 3]
//a[@x < "2"]
//a[@x > "abc"]
//a[@y = "é"]
//a[@y]/b
//b[text() = "hi"]
//b[text() != "hi"]
//b[text() < 10]
//b[text() >= 0.5]
//b[text()]
/r/a[2]
/r/a[position() > 1]
/r/*[position() <= 2]
/r/a[position() > 1][1]
/r/*[position() > 1][2]
//a[@x][position() > 1][1]
//a[@x][2]
//a[@x = 1][1]/b[text()]
/r[a[@x > 1]][b[text() = "hi"]]
//a[b[1]][b[text() < 3]]
"#;

/// Documents for [`PREDICATES`]: values around each literal, with
/// whitespace, signs, exponents (NaN), character and entity references,
/// CDATA, empty elements, several text nodes, text just after an
/// attribute value (the comparators' scanner restarts between them).
fn predicate_docs() -> Vec<Vec<u8>> {
    [
        r#"<r><a x="1"/><a x=" 2.50 "><b>hi</b></a><a x="3"><b> 7 </b></a></r>"#,
        r#"<r><a x="&#49;"><b>h<!--c-->i</b></a><a x="-0"/><a x="1e3"/><a y="&#233;"><b/></a></r>"#,
        r#"<r><a x="2.4999999999999999"><b><![CDATA[hi]]></b></a><a x="abc"/><a x="-1.0"/></r>"#,
        r#"<r><b>0.5</b><b>-.5</b><b>x<c/>hi</b><a x="2"><b>9.99</b><b>2</b></a></r>"#,
        r#"<r><a x=""/><a x="  "/><a x="-"/><a x="."/><a x="3."/><a x=".3e"/></r>"#,
        r#"<r><a x='2.5'/><a x='2.5000000000000001'/><a x='2.4999999999999996'/></r>"#,
        r#"<r><a y="é"><b>hi</b></a><a y="e"/><a x="00001"><b>&#104;i</b></a></r>"#,
        "<r><a x=\"1\">\n<b>\thi </b></a><b>10</b><b>10.0000000000000000001</b></r>",
        r#"<r><a x="1"><b>1</b><b>2</b></a><a x="4"><b/><b>3</b></a></r>"#,
        r#"<q><a x="9"/></q>"#,
        r#"<r><a x="-2"><b>9</b></a><b>5</b><c/></r>"#,
        r#"<r><a x="1"><b>hi</b></a><a x="1"></r>"#,
        // text right after an attribute value, empty CDATA after one
        r#"<r><b x="2">2</b><a x="3"><b x="9"><![CDATA[]]></b><b x="1">hi</b></a></r>"#,
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect()
}

/// [`random_twig_queries`] with its attribute tests' `=` replaced by
/// seeded operators and literals (strings, integers, fractions, signs).
fn random_predicate_queries(seed: u64, count: usize) -> String {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(seed);
    let ops = ["=", "!=", "<", "<=", ">", ">="];
    let literals = [
        "1", "2", "\"3\"", "2.5", "-1", "-0.25", "\"x\"", "6.000001", "\"\"",
    ];
    let mut out = String::new();
    for line in random_twig_queries(seed, count).lines() {
        let mut q = String::new();
        let mut rest = line;
        while let Some(at) = rest.find("[@") {
            let (head, tail) = rest.split_at(at);
            q.push_str(head);
            let end = tail.find(']').expect("a closed predicate");
            let pred = &tail[..end];
            match pred.find('=') {
                Some(eq) if rng.gen_bool(0.7) => {
                    q.push_str(&pred[..eq]);
                    q.push_str(ops[rng.gen_range(0..ops.len())]);
                    q.push_str(literals[rng.gen_range(0..literals.len())]);
                }
                _ => q.push_str(pred),
            }
            rest = &tail[end..];
        }
        q.push_str(rest);
        out.push_str(&q);
        out.push('\n');
    }
    out
}

/// Seeded value tests: `/a[@x OP L]` and `/a[text() OP L]` for random
/// operators and literals, and one-element documents whose attribute and
/// text are random values around the literals (numbers with signs,
/// whitespace, many digits, the literals' rounding bounds; garbage),
/// some characters written as character references.
fn random_value_set(seed: u64) -> (String, Vec<Vec<u8>>) {
    use qrtl_xpath::emit::values::{stimulus, Plan};
    use qrtl_xpath::ir::xpath::{CmpOp, Compare, Value};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let mut rng = SmallRng::seed_from_u64(seed);
    let ops = [
        (CmpOp::Eq, "="),
        (CmpOp::Ne, "!="),
        (CmpOp::Lt, "<"),
        (CmpOp::Le, "<="),
        (CmpOp::Gt, ">"),
        (CmpOp::Ge, ">="),
    ];
    let literals = [
        "2.5", "-1", "1", "0.5", "100", "-0.25", "6.000001", "\"3\"", "\"abc\"", "\"é\"",
    ];
    let mut queries = String::new();
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let mut picked = Vec::new();
    for _ in 0..16 {
        let (op, op_text) = ops[rng.gen_range(0..ops.len())];
        let lit = literals[rng.gen_range(0..literals.len())];
        let value = match lit.strip_prefix('"') {
            Some(s) => Value::Str(s.trim_end_matches('"').as_bytes().to_vec().into()),
            None => Value::num(lit.parse().unwrap()),
        };
        seeds.extend(
            Plan::new(&Compare {
                op,
                value: value.clone(),
            })
            .interesting_strings(&Compare { op, value }),
        );
        picked.push((op_text, lit));
    }
    for (op, lit) in &picked {
        queries.push_str(&format!("/a[@x {op} {lit}]\n/a[text() {op} {lit}]\n"));
    }
    let escape = |rng: &mut SmallRng, v: &[u8]| -> String {
        let text = String::from_utf8_lossy(v);
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '"' => out.push_str("&quot;"),
                c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
                c if rng.gen_bool(0.15) => out.push_str(&format!("&#{};", c as u32)),
                c => out.push(c),
            }
        }
        out
    };
    let mut docs = Vec::new();
    for _ in 0..150 {
        let x = stimulus::value(&mut rng, &seeds, 70);
        let t = stimulus::value(&mut rng, &seeds, 70);
        let (x, t) = (escape(&mut rng, &x), escape(&mut rng, &t));
        docs.push(format!("<a x=\"{x}\">{t}</a>").into_bytes());
    }
    (queries, docs)
}

/// One build with value comparators and positional counters, configured
/// in turn with the hand-written predicate set (holistic, paths, pairs,
/// --ordered) and seeded random twig sets with every predicate kind;
/// documents in between each reconfiguration, once without stalls and once
/// with random stalls on both streams. Each configuration is checked
/// against the engine through the model.
#[test]
fn predicates_swapped_between_documents() {
    let s = unit_shape();
    let docs = predicate_docs();
    let u = SiblingOrder::Unordered;
    let mut sets = Vec::new();
    for (name, mode, order) in [
        ("holistic", Mode::Holistic, u),
        ("paths", Mode::Paths, u),
        ("pairs", Mode::Pairs, u),
        ("ordered", Mode::Holistic, SiblingOrder::Ordered),
    ] {
        let c = configured_as_engine(name, PREDICATES, mode, order, &s, &docs);
        assert!(
            !c.comparators.is_empty() && !c.counters.is_empty(),
            "{name}: the set uses both kinds of unit"
        );
        if mode == Mode::Holistic && order == u {
            // The documents decide every query both ways.
            let xml = XmlConfig::with_max_depth(s.max_depth);
            let runs: Vec<Vec<u32>> = docs
                .iter()
                .map(|d| run_document(&c, xml, d).matched)
                .collect();
            for q in 0..c.queries.len() as u32 {
                let hits = runs.iter().filter(|m| m.contains(&q)).count();
                // number("abc") is NaN: `>` never holds.
                let never = c.texts[q as usize].1.contains("\"abc\"");
                assert!(
                    if never {
                        hits == 0
                    } else {
                        hits > 0 && hits < docs.len()
                    },
                    "query {q} ({}) matches {hits} of {} documents",
                    c.texts[q as usize].1,
                    docs.len()
                );
            }
        }
        sets.push((name, c, docs.clone()));
    }
    for seed in [7, 8, 9] {
        let q = random_predicate_queries(seed, 20);
        let rdocs = random_docs(seed, 30);
        let (mode, order) = match seed {
            7 => (Mode::Holistic, u),
            8 => (Mode::Paths, SiblingOrder::Ordered),
            _ => (Mode::Pairs, u),
        };
        let name = ["random holistic", "random paths ordered", "random pairs"][seed as usize - 7];
        let c = configured_as_engine(name, &q, mode, order, &s, &rdocs);
        sets.push((name, c, rdocs));
    }
    for seed in [21, 22] {
        let (q, vdocs) = random_value_set(seed);
        let c = configured_as_engine("values", &q, Mode::Holistic, u, &s, &vdocs);
        sets.push(("values", c, vdocs));
    }
    check_sets(
        &s,
        &sets,
        &[
            Stalls::NONE,
            Stalls {
                seed: 11,
                in_gap_percent: 30,
                out_stall_percent: 40,
            },
        ],
    );
}
