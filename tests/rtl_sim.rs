//! The XPath RTL against the software engine, document by document, in
//! Verilator (and Icarus Verilog for a small design) — and, on the NITF
//! suites, directly against libxml2's expected answers: every query's match
//! bit, the status and the parser's reason code; cycles per document =
//! bytes + the design's fixed latency when nothing stalls; no input stall
//! unless the result stream is backpressured; identical results under
//! random tvalid/tready stalls on both streams.
//!
//! Each design is built once (ccache-backed build cache, see `sim/`) and
//! all its documents go through one simulation run. `QRTL_SOAK=N` adds N
//! random query sets (300 documents each) to the fixed seeds.

mod common;

use common::{
    differences, libxml2_expected, nitf_dir, nitf_docs, random_docs, random_queries,
    random_twig_queries, raw_design_from_text, sim_equals_engine,
};
use qrtl_core::sim::{BuildOptions, Simulator, Stalls};
use qrtl_xpath::emit::xpath::{EventInput, RtlShape, SplitRule};
use qrtl_xpath::engine::{build_xpath_hw, XpathHw, XpathHwOptions};
use qrtl_xpath::ir::xpath::{Mode, SiblingOrder};
use qrtl_xpath::passes::registry::StackPassConfig;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::xml::XmlConfig;

struct Case<'a> {
    name: &'a str,
    queries: &'a str,
    mode: Mode,
    order: SiblingOrder,
    xml: XmlConfig,
    passes: StackPassConfig,
    input: EventInput,
    shape: RtlShape,
}

impl Case<'_> {
    fn hw(&self) -> (XpathHw, Engine) {
        let mut design = raw_design_from_text(self.name, self.queries, self.mode);
        design.order = self.order;
        let engine = Engine::new(
            &design,
            EngineConfig {
                xml: self.xml,
                ..EngineConfig::default()
            },
        );
        let hw = build_xpath_hw(
            self.name,
            &design,
            &XpathHwOptions {
                xml: self.xml,
                passes: self.passes.clone(),
                input: self.input,
                shape: self.shape,
                bytes_per_clock: 1,
            },
        )
        .unwrap_or_else(|d| panic!("{}: {}", self.name, d[0].render()));
        (hw, engine)
    }
}

/// Simulate `docs` with `stalls` and compare every document with the engine.
/// Returns the run for further checks.
fn check(
    case: &Case,
    hw: &XpathHw,
    engine: &mut Engine,
    docs: &[Vec<u8>],
    simulator: Simulator,
    stalls: Stalls,
) -> qrtl_xpath::engine::XpathSimRun {
    sim_equals_engine(case.name, hw, engine, docs, simulator, stalls)
}

/// Without stalls: cycles per document = bytes + latency, and the input
/// never stalls, for every document of at least `latency + result words`
/// bytes (a shorter one ends before the previous results have drained, so
/// its last byte waits: the result stream is the bottleneck then).
fn check_timing(
    case: &Case,
    hw: &XpathHw,
    docs: &[Vec<u8>],
    run: &qrtl_xpath::engine::XpathSimRun,
) {
    let min_len = u64::from(hw.rtl.latency + hw.rtl.result_words);
    let mut allowed_stall = 0;
    let mut checked = 0;
    for (i, d) in run.docs.iter().enumerate() {
        let len = docs[i].len() as u64;
        if len < min_len {
            allowed_stall += min_len - len;
            continue;
        }
        checked += 1;
        assert_eq!(
            d.cycles,
            // The first byte is accepted in cycle 0, the last in len - 1.
            len - 1 + u64::from(hw.rtl.latency),
            "{}: doc {i} cycles (bytes {len}, latency {})",
            case.name,
            hw.rtl.latency
        );
    }
    assert!(
        checked * 2 > docs.len(),
        "{}: most documents are long enough",
        case.name
    );
    assert!(
        run.run.input_stall_cycles <= allowed_stall,
        "{}: input stalled {} cycles without backpressure (short documents allow {allowed_stall})",
        case.name,
        run.run.input_stall_cycles
    );
}

fn stalls(seed: u64) -> Stalls {
    Stalls {
        seed,
        in_gap_percent: 30,
        out_stall_percent: 40,
    }
}

/// The RTL's answers equal libxml2's directly (not only through the engine).
fn check_libxml2(name: &str, run: &qrtl_xpath::engine::XpathSimRun, want: &[Vec<u32>]) {
    for (i, (d, w)) in run.docs.iter().zip(want).enumerate() {
        assert_eq!(
            &d.result.matched,
            w,
            "{name}: outFile{}.xml vs libxml2",
            i + 1
        );
    }
}

#[test]
fn nitf_simple_paths() {
    let text = std::fs::read_to_string(nitf_dir().join("queries/simple_paths.txt")).unwrap();
    let case = Case {
        name: "simple_paths",
        queries: &text,
        mode: Mode::Holistic,
        order: SiblingOrder::Unordered,
        xml: XmlConfig::default(),
        passes: StackPassConfig::default(),
        input: EventInput::Pipelined,
        shape: RtlShape::default(),
    };
    let (hw, mut engine) = case.hw();
    let docs = nitf_docs();
    let run = check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        Stalls::NONE,
    );
    check_timing(&case, &hw, &docs, &run);
    check_libxml2(
        case.name,
        &run,
        &libxml2_expected("simple_paths", &|q| Some(q as u32)),
    );
    check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        stalls(1),
    );
}

#[test]
fn nitf_simple_predicates_attribute_subset() {
    let text = std::fs::read_to_string(nitf_dir().join("queries/simple_predicates.txt")).unwrap();
    let subset = qrtl_xpath::workload::path_rtl_subset(&text);
    let case = Case {
        name: "simple_predicates",
        queries: &subset,
        mode: Mode::Holistic,
        order: SiblingOrder::Unordered,
        xml: XmlConfig::default(),
        passes: StackPassConfig::default(),
        input: EventInput::Pipelined,
        shape: RtlShape::default(),
    };
    let (hw, mut engine) = case.hw();
    let docs = nitf_docs();
    let run = check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        Stalls::NONE,
    );
    check_timing(&case, &hw, &docs, &run);
    // Map the suite's query ids to the subset's.
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let kept: Vec<&str> = subset.lines().collect();
    let mut map = std::collections::HashMap::new();
    let mut next = 0;
    for (i, l) in lines.iter().enumerate() {
        if kept.get(next) == Some(l) {
            map.insert(i as u64, next as u32);
            next += 1;
        }
    }
    assert_eq!(next, kept.len());
    check_libxml2(
        case.name,
        &run,
        &libxml2_expected("simple_predicates", &|q| map.get(&q).copied()),
    );
    check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        stalls(2),
    );
}

#[test]
fn random_sets_with_malformed_and_deep_documents() {
    // `QRTL_SOAK=N`: N more seeds (one Verilator build each).
    let soak: u64 = std::env::var("QRTL_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for seed in 1..=2 + soak {
        let queries = random_queries(seed, 150, 0.0);
        let case = Case {
            name: &format!("random-{seed}"),
            queries: &queries,
            mode: Mode::Holistic,
            order: SiblingOrder::Unordered,
            xml: XmlConfig::with_max_depth(8),
            passes: StackPassConfig {
                cluster_size: 40,
                ..StackPassConfig::default()
            },
            input: EventInput::Pipelined,
            shape: RtlShape::default(),
        };
        let (hw, mut engine) = case.hw();
        let docs = random_docs(seed, 300);
        let run = check(
            &case,
            &hw,
            &mut engine,
            &docs,
            Simulator::Verilator,
            Stalls::NONE,
        );
        check_timing(&case, &hw, &docs, &run);
        check(
            &case,
            &hw,
            &mut engine,
            &docs,
            Simulator::Verilator,
            stalls(seed),
        );
    }
}

#[test]
fn option_grid_gives_identical_results() {
    let queries = random_queries(7, 80, 0.0);
    let docs = random_docs(7, 150);
    let all_off = vec![
        "cluster",
        "prefix-merge",
        "last-column",
        "root-gs",
        "compaction",
    ];
    // Processes split far below the default sizes: the pipeline and
    // result registers 3 to a process, the stack memory's address
    // counters and writes one group to a process, the result words' ORs
    // as reductions.
    let small_shape = RtlShape {
        assigns: SplitRule { max: 0, piece: 3 },
        mem_groups: SplitRule { max: 0, piece: 1 },
        max_or_chain: 1,
    };
    let default = RtlShape::default();
    for (label, cluster_size, disabled, input, shape) in [
        (
            "no-compaction-no-merge",
            0,
            vec!["compaction", "prefix-merge"],
            EventInput::Pipelined,
            default,
        ),
        ("tiny-clusters", 3, vec![], EventInput::Pipelined, default),
        (
            "tiny-clusters-broadcast",
            3,
            vec![],
            EventInput::Broadcast,
            default,
        ),
        (
            "all-off",
            0,
            all_off.clone(),
            EventInput::Pipelined,
            default,
        ),
        (
            "all-off-small-processes",
            0,
            all_off,
            EventInput::Pipelined,
            small_shape,
        ),
    ] {
        let case = Case {
            name: label,
            queries: &queries,
            mode: Mode::Holistic,
            order: SiblingOrder::Unordered,
            xml: XmlConfig::default(),
            passes: StackPassConfig {
                cluster_size,
                disabled: disabled.iter().map(|s| s.to_string()).collect(),
            },
            input,
            shape,
        };
        let (hw, mut engine) = case.hw();
        let run = check(
            &case,
            &hw,
            &mut engine,
            &docs,
            Simulator::Verilator,
            Stalls::NONE,
        );
        check_timing(&case, &hw, &docs, &run);
        check(
            &case,
            &hw,
            &mut engine,
            &docs,
            Simulator::Verilator,
            stalls(3),
        );
    }
}

#[test]
fn paths_and_pairs_modes_join_twigs_on_chip() {
    let queries = random_queries(9, 60, 0.4);
    let docs = random_docs(9, 150);
    for (name, mode) in [("paths-join", Mode::Paths), ("pairs-join", Mode::Pairs)] {
        let case = Case {
            name,
            queries: &queries,
            mode,
            order: SiblingOrder::Unordered,
            xml: XmlConfig::default(),
            passes: StackPassConfig {
                cluster_size: 16,
                ..StackPassConfig::default()
            },
            input: EventInput::Pipelined,
            shape: RtlShape::default(),
        };
        let (hw, mut engine) = case.hw();
        check(
            &case,
            &hw,
            &mut engine,
            &docs,
            Simulator::Verilator,
            stalls(4),
        );
    }
}

#[test]
fn icarus_agrees_on_a_small_design() {
    let queries = random_queries(5, 12, 0.0);
    let case = Case {
        name: "icarus",
        queries: &queries,
        mode: Mode::Holistic,
        order: SiblingOrder::Unordered,
        xml: XmlConfig::with_max_depth(6),
        passes: StackPassConfig {
            cluster_size: 5,
            ..StackPassConfig::default()
        },
        input: EventInput::Pipelined,
        shape: RtlShape::default(),
    };
    let (hw, mut engine) = case.hw();
    let docs = random_docs(5, 24);
    let run = check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Icarus,
        Stalls::NONE,
    );
    check_timing(&case, &hw, &docs, &run);
    check(&case, &hw, &mut engine, &docs, Simulator::Icarus, stalls(5));
}

/// Attribute values as the parser decodes them: predefined entities,
/// decimal and hex character references (multi-byte UTF-8 too),
/// tab/LF/CRLF normalisation, both quote kinds, `>` and `/` inside values,
/// duplicate attributes, prefixed names — through the whole pipeline.
#[test]
fn attribute_values_with_references_and_normalisation() {
    let queries = r#"//a[@x=5]
//a[@x="5"]
//a[@x=" 5 "]
//a[@x="a<b"]
//a[@x="x&y"]
//a[@x="é"]
//a[@x="€"]
//a[@x="𝄞"]
//a[@x="a b"]
//a[@x!="5"]
//a[@x>4.5]/b
//a[@y<=-3]
/r//p:a[@p:x="1"]
//a[@x="/>"]
//a[@x='"']
//*[@x][@y]
//a[@x="5"][@x="6"]
//a[@z]
"#;
    let docs: Vec<Vec<u8>> = [
        r#"<r><a x="&#53;"/></r>"#,
        r#"<r><a x='&#x35;'><b/></a></r>"#,
        r#"<r><a x=" 5 "/></r>"#,
        "<r><a x=\"\t5\r\n\"/></r>",
        r#"<r><a x="a&lt;b"/><a x="x&amp;y"/></r>"#,
        r#"<r><a x="&#233;"/><a x="&#x20AC;"/><a x="&#x1D11E;"/></r>"#,
        "<r><a x=\"\u{e9}\"/><a x=\"\u{20ac}\"/></r>",
        "<r><a x=\"a\nb\"/><a x=\"a&#10;b\"/></r>",
        r#"<r><a y="-3.0" x="4.6"><b/></a></r>"#,
        r#"<r><a y="-3" x="-"/></r>"#,
        r#"<r xmlns:p="u"><p:a p:x="1"/></r>"#,
        r#"<r><a x="/>"/><a x='"'/><a x="&quot;"/></r>"#,
        r#"<r><a x="5" x="6"/></r>"#,
        r#"<r><a x="5" y=""/></r>"#,
        r#"<r><a x="&#53;&#53;"/><a x="5&#"/></r>"#,
        r#"<r><a x="5"><a z="&bogus;"/></a></r>"#,
        r#"<r><a x='5'>"#,
    ]
    .iter()
    .map(|d| d.as_bytes().to_vec())
    .collect();
    let case = Case {
        name: "attribute-values",
        queries,
        mode: Mode::Holistic,
        order: SiblingOrder::Unordered,
        xml: XmlConfig::default(),
        passes: StackPassConfig::default(),
        input: EventInput::Pipelined,
        shape: RtlShape::default(),
    };
    let (hw, mut engine) = case.hw();
    let run = check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        Stalls::NONE,
    );
    // The cases are not vacuous: several queries match, on several documents.
    let matched: usize = run.docs.iter().map(|d| d.result.matched.len()).sum();
    assert!(matched >= 15, "only {matched} matches");
    check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        stalls(6),
    );
}

/// A whole NITF suite (twigs, `text()`, positions) in holistic mode: every
/// document against the engine and libxml2, one byte per clock, and again
/// under random stalls.
fn nitf_suite(suite: &str, cluster_size: usize) {
    let text = std::fs::read_to_string(nitf_dir().join(format!("queries/{suite}.txt"))).unwrap();
    let case = Case {
        name: suite,
        queries: &text,
        mode: Mode::Holistic,
        order: SiblingOrder::Unordered,
        xml: XmlConfig::default(),
        passes: StackPassConfig {
            cluster_size,
            ..StackPassConfig::default()
        },
        input: EventInput::Pipelined,
        shape: RtlShape::default(),
    };
    let (hw, mut engine) = case.hw();
    let docs = nitf_docs();
    let run = check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        Stalls::NONE,
    );
    check_timing(&case, &hw, &docs, &run);
    check_libxml2(
        case.name,
        &run,
        &libxml2_expected(suite, &|q| Some(q as u32)),
    );
    check(
        &case,
        &hw,
        &mut engine,
        &docs,
        Simulator::Verilator,
        stalls(5),
    );
}

#[test]
fn nitf_simple_predicates_whole_suite() {
    nitf_suite("simple_predicates", 256);
}

#[test]
fn nitf_mixed_twigs() {
    nitf_suite("mixed", 256);
}

#[test]
fn nitf_nested_paths_twigs() {
    nitf_suite("nested_paths", 256);
}

/// Seeded random twig sets (branches, nested predicates, positions,
/// `text()`) with malformed and too-deep documents, in holistic, ordered,
/// paths and pairs modes and with the passes on and off.
#[test]
fn random_twig_sets_every_mode_and_option() {
    let soak: u64 = std::env::var("QRTL_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let all_off: Vec<String> = [
        "cluster",
        "prefix-merge",
        "last-column",
        "root-gs",
        "compaction",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for seed in 1..=1 + soak {
        let queries = random_twig_queries(100 + seed, 90);
        let docs = random_docs(100 + seed, 200);
        for (label, mode, order, passes) in [
            (
                "holistic",
                Mode::Holistic,
                SiblingOrder::Unordered,
                StackPassConfig {
                    cluster_size: 30,
                    ..StackPassConfig::default()
                },
            ),
            (
                "ordered",
                Mode::Holistic,
                SiblingOrder::Ordered,
                StackPassConfig::default(),
            ),
            (
                "holistic-all-off",
                Mode::Holistic,
                SiblingOrder::Unordered,
                StackPassConfig {
                    cluster_size: 0,
                    disabled: all_off.clone(),
                },
            ),
            (
                "paths",
                Mode::Paths,
                SiblingOrder::Unordered,
                StackPassConfig {
                    cluster_size: 45,
                    ..StackPassConfig::default()
                },
            ),
            (
                "pairs",
                Mode::Pairs,
                SiblingOrder::Unordered,
                StackPassConfig::default(),
            ),
        ] {
            let case = Case {
                name: &format!("twigs-{seed}-{label}"),
                queries: &queries,
                mode,
                order,
                xml: XmlConfig::with_max_depth(8),
                passes,
                input: EventInput::Pipelined,
                shape: RtlShape::default(),
            };
            let (hw, mut engine) = case.hw();
            let run = check(
                &case,
                &hw,
                &mut engine,
                &docs,
                Simulator::Verilator,
                Stalls::NONE,
            );
            check_timing(&case, &hw, &docs, &run);
            check(
                &case,
                &hw,
                &mut engine,
                &docs,
                Simulator::Verilator,
                stalls(seed + 7),
            );
        }
    }
}

/// A reset in the middle of a run leaves nothing behind: whenever it comes
/// (inside a document, on its last byte, while results drain through the
/// lane and the FIFO), the driver drops both streams, holds `rst` for the
/// documented minimum of `RESET_MIN_CLOCKS`, and sends again every document
/// whose result it had not received whole; the results must be the
/// engine's, and no stale word may come out after the reset (the driver's
/// protocol check). One pulse per run, at every cycle of a run of short
/// documents (so that result words drain often), pipelined and broadcast,
/// with and without stalls: the delayed resets of the clusters (`rst_s<k>`)
/// and of the result side (`rst_h`, `rst_l<k>`, `rst_t`) are under test,
/// and bytes are accepted from the clock after the pulse. (Two clocks are
/// not enough: the output register, reset two clocks late, can then show a
/// stale word after the pulse; this test fails with them.)
#[test]
fn mid_run_resets_leave_no_state_behind() {
    use qrtl_core::sim::ResetPulse;
    use qrtl_xpath::engine::{build_xpath_sim, decode_xpath_run};
    use qrtl_xpath::workload::{DocGen, DocGenConfig, Vocab};
    const RESET_MIN_CLOCKS: u32 = 3;
    let queries = random_queries(11, 24, 0.0);
    let mut gen = DocGen::new(
        Vocab::nitf(),
        DocGenConfig {
            seed: 11,
            doc_bytes: (30, 90),
            max_depth: 5,
            attr_prob: 0.6,
            max_value: 4,
            ..DocGenConfig::default()
        },
    );
    let mut docs: Vec<Vec<u8>> = (0..6).map(|_| gen.next_doc()).collect();
    // A malformed one too (its status comes early, from the parser).
    let half = docs[3].len() / 2;
    docs[3].truncate(half);
    let mut pulses_run = 0;
    for input in [EventInput::Pipelined, EventInput::Broadcast] {
        let case = Case {
            name: &format!("resets-{input:?}"),
            queries: &queries,
            mode: Mode::Holistic,
            order: SiblingOrder::Unordered,
            xml: XmlConfig::with_max_depth(8),
            passes: StackPassConfig {
                cluster_size: 6,
                ..StackPassConfig::default()
            },
            input,
            shape: RtlShape::default(),
        };
        let (hw, mut engine) = case.hw();
        let clusters = hw
            .rtl
            .files
            .iter()
            .filter(|f| f.name.starts_with("qrtl_xpath_c"))
            .count();
        assert!(clusters >= 3, "{}: {clusters} clusters", case.name);
        let build = build_xpath_sim(
            &hw,
            Simulator::Verilator,
            &BuildOptions {
                unoptimized_cxx: true,
                ..BuildOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}: build: {e}", case.name));
        for st in [Stalls::NONE, stalls(3)] {
            let plain = build.run(&docs, &st, None).unwrap();
            for at in 0..plain.total_cycles {
                let pulse = [ResetPulse {
                    at,
                    cycles: RESET_MIN_CLOCKS,
                }];
                pulses_run += 1;
                let run = build
                    .run_with_resets(&docs, &st, &pulse, None)
                    .unwrap_or_else(|e| panic!("{} {st:?}, reset at {at}: {e}", case.name));
                let got = decode_xpath_run(&hw, &run)
                    .unwrap_or_else(|e| panic!("{} {st:?}, reset at {at}: {e}", case.name));
                let failures = differences(&mut engine, &docs, &got);
                assert!(
                    failures.is_empty(),
                    "{} {st:?}, reset at {at}: {}",
                    case.name,
                    failures.join("\n")
                );
            }
        }
    }
    assert!(pulses_run > 1000, "{pulses_run} reset pulses");
}
