//! The multi-byte input (`--bytes-per-clock` 2, 4, 8) in simulation.
//!
//! * The front end `qrtl_wide_in` alone, against its model: for every
//!   document (well-formed, truncated, byte-flipped, too deep, NITF, of every
//!   length mod B) the bytes it hands to the parser are exactly
//!   `xml::lanes::compact`'s, with and without random stalls on both sides.
//!   `compact` itself is checked against the tokenizer (the parser sees the
//!   kept bytes only and gives the same events, status and reason:
//!   `compiler/xpath/src/xml/lanes/tests.rs`), and `qrtl_sax` against the
//!   tokenizer (`tests/sax_rtl.rs`).
//! * Whole designs at B = 2, 4, 8 against the software engine, document by
//!   document (every match bit, status and reason), and against libxml2's
//!   answers on the four NITF suites; cycles per document against the
//!   stated rule; random stalls on both streams.
//! * Beats that break the tkeep rule, in Icarus Verilog on a small design
//!   at B = 4: reported as `bad_beat` with the matches found before them.

mod common;

use common::{
    differences, libxml2_expected, nitf_dir, nitf_docs, random_docs, random_twig_queries,
};
use qrtl_core::sim::{BuildOptions, DriverSpec, Simulator, Stalls};
use qrtl_xpath::emit::wide::{wide_in_module, WideParams};
use qrtl_xpath::engine::{build_xpath_hw, simulate_xpath_with, XpathHw, XpathHwOptions};
use qrtl_xpath::ir::xpath::{Mode, SiblingOrder};
use qrtl_xpath::passes::registry::StackPassConfig;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::xml::lanes::{compact, Needs};
use qrtl_xpath::xml::XmlConfig;
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn stalls(seed: u64) -> Stalls {
    Stalls {
        seed,
        in_gap_percent: 30,
        out_stall_percent: 40,
    }
}

/// Unoptimized C++: the designs build several times faster, and their
/// inputs simulate fast enough.
fn build_options() -> BuildOptions {
    BuildOptions {
        unoptimized_cxx: true,
        ..BuildOptions::default()
    }
}

/// Documents for the front end: seeded NITF-like ones (malformed and too
/// deep mixed in), mutated ones, YFilter's NITF documents, and each padded
/// with 0..B-1 spaces so that every length mod B occurs.
fn front_end_docs(lanes: usize) -> Vec<Vec<u8>> {
    let mut docs = random_docs(26, 120);
    let mut rng = SmallRng::seed_from_u64(0x26);
    for i in 0..120 {
        let base = docs[i % 40].clone();
        let m = qrtl_xpath::workload::mutate_document(&mut rng, base);
        if !m.is_empty() {
            docs.push(m);
        }
    }
    docs.extend(nitf_docs().into_iter().take(30));
    for (i, d) in docs.iter_mut().enumerate() {
        d.extend(std::iter::repeat_n(b' ', i % lanes));
    }
    docs
}

/// A top around `qrtl_wide_in` whose output stream is the bytes it hands
/// to the parser: bits 7:0 the byte, bit 8 `o_bad`, tlast `o_last`.
fn probe(lanes: u32, needs: Needs) -> (DriverSpec, Vec<(String, String)>) {
    let top = format!(
        "`default_nettype none\n\
         module wide_probe (\n\
         input wire clk, input wire rst,\n\
         input wire [{d}:0] s_axis_tdata, input wire [{k}:0] s_axis_tkeep,\n\
         input wire s_axis_tvalid, output wire s_axis_tready, input wire s_axis_tlast,\n\
         output wire [8:0] m_axis_tdata, output wire m_axis_tvalid,\n\
         input wire m_axis_tready, output wire m_axis_tlast);\n\
         qrtl_wide_in u (.clk(clk), .rst(rst), .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep),\n\
         .s_tvalid(s_axis_tvalid), .s_tready(s_axis_tready), .s_tlast(s_axis_tlast),\n\
         .o_byte(m_axis_tdata[7:0]), .o_valid(m_axis_tvalid), .o_ready(m_axis_tready),\n\
         .o_last(m_axis_tlast), .o_bad(m_axis_tdata[8]));\n\
         endmodule\n",
        d = lanes * 8 - 1,
        k = lanes - 1
    );
    let mut spec = DriverSpec::axis("wide_probe");
    spec.in_data_bits = 8 * lanes;
    spec.in_keep = true;
    spec.out_word_bits = 9;
    let rtl = vec![
        ("wide_probe.v".to_string(), top),
        (
            "qrtl_wide_in.v".to_string(),
            wide_in_module(&WideParams { lanes, needs }),
        ),
    ];
    (spec, rtl)
}

#[test]
fn front_end_hands_the_parser_exactly_the_kept_bytes() {
    let all = Needs {
        values: true,
        text: true,
    };
    let values = Needs {
        values: true,
        text: false,
    };
    for (lanes, needs) in [
        (2, all),
        (4, Needs::default()),
        (8, Needs::default()),
        (8, values),
    ] {
        let (spec, rtl) = probe(lanes, needs);
        // Optimized C++: the lexer's wide logic simulates slowly without.
        let built =
            qrtl_core::sim::build_with(&spec, &rtl, Simulator::Verilator, &BuildOptions::default())
                .unwrap_or_else(|e| panic!("B={lanes}: build failed: {e}"));
        let docs = front_end_docs(lanes as usize);
        for st in [Stalls::NONE, stalls(lanes.into())] {
            let run = built
                .run(&docs, &st, None)
                .unwrap_or_else(|e| panic!("B={lanes} {needs:?}: run failed: {e}"));
            for (i, (doc, got)) in docs.iter().zip(&run.packets).enumerate() {
                let want = compact(doc, needs);
                let got_bytes: Vec<u8> = got.words.iter().map(|w| *w as u8).collect();
                assert!(
                    got.words.iter().all(|w| w >> 8 == 0),
                    "B={lanes}: doc {i}: o_bad on a good document"
                );
                assert_eq!(
                    got_bytes,
                    want,
                    "B={lanes} {needs:?} {st:?}: doc {i} ({} bytes): kept bytes differ\n  doc: {:?}",
                    doc.len(),
                    String::from_utf8_lossy(doc)
                );
            }
        }
    }
}

/// Build `queries` at `lanes` bytes per clock, and the engine for them.
fn design(
    name: &str,
    queries: &str,
    mode: Mode,
    order: SiblingOrder,
    xml: XmlConfig,
    lanes: u32,
) -> (XpathHw, Engine) {
    let mut d = common::design_from_text(name, queries, mode);
    d.order = order;
    let engine = Engine::new(
        &d,
        EngineConfig {
            xml,
            ..EngineConfig::default()
        },
    );
    let hw = build_xpath_hw(
        name,
        &d,
        &XpathHwOptions {
            xml,
            passes: StackPassConfig {
                cluster_size: 256,
                ..StackPassConfig::default()
            },
            bytes_per_clock: lanes,
            ..XpathHwOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{name}: {}", e[0].render()));
    (hw, engine)
}

/// Simulate and compare every document with the engine; the run.
fn agree(
    name: &str,
    hw: &XpathHw,
    engine: &mut Engine,
    docs: &[Vec<u8>],
    st: Stalls,
) -> qrtl_xpath::engine::XpathSimRun {
    let run = simulate_xpath_with(hw, docs, Simulator::Verilator, &st, None, &build_options())
        .unwrap_or_else(|e| panic!("{name}: simulation failed: {e}"));
    let failures = differences(engine, docs, &run.docs);
    assert!(
        failures.is_empty(),
        "{name} {st:?}: {} of {} documents differ:\n{}",
        failures.len(),
        docs.len(),
        failures[..failures.len().min(5)].join("\n")
    );
    run
}

/// Kept bytes per beat of `doc` (the drop rule; a document's last byte is
/// always kept).
fn kept_per_beat(doc: &[u8], lanes: usize, needs: Needs) -> Vec<u64> {
    use qrtl_xpath::xml::lanes::{Droppable, Lex};
    let mut state = Lex::Start;
    let mut drop = Droppable::default();
    let mut per_beat = vec![0u64; doc.len().div_ceil(lanes)];
    for (i, &b) in doc.iter().enumerate() {
        if !drop.at(state, b, needs) || i + 1 == doc.len() {
            per_beat[i / lanes] += 1;
        }
        state = state.next(b);
    }
    per_beat
}

/// The clocks the stated rule allows a stream of beats, latency aside:
/// the input takes one beat per clock and the parser one kept byte per
/// clock, starting on a beat's bytes once the beat is in. At least the
/// two-stage flow with an unbounded FIFO between the stages (the most,
/// over the beats, of the beats up to it plus the kept bytes from it on);
/// at most each beat in turn, max(1, its kept bytes) clocks.
fn rule_cycles(per_beat: &[u64]) -> (u64, u64) {
    let mut after = 0u64;
    let mut least = 0u64;
    for (i, k) in per_beat.iter().enumerate().rev() {
        after += k;
        least = least.max(i as u64 + after);
    }
    let most = per_beat.iter().map(|&k| k.max(1)).sum();
    (least, most)
}

/// The rule, checked without stalls: the first document's cycles, and the
/// whole run's (every document's beats back to back; the run ends when the
/// last document's last result word is taken), two clocks of slack.
fn check_cycles(name: &str, hw: &XpathHw, docs: &[Vec<u8>], run: &qrtl_xpath::engine::XpathSimRun) {
    let lanes = hw.bytes_per_clock as usize;
    let needs = qrtl_xpath::emit::xpath::wide_needs(&hw.stack);
    let latency = u64::from(hw.rtl.latency);
    let within = |got: u64, (least, most): (u64, u64), extra: u64, what: &str| {
        assert!(
            got + 2 >= least + extra && got <= most + extra + 2,
            "{name}: {what}: {got} cycles, the rule says {} to {}",
            least + extra,
            most + extra
        );
    };
    let first = rule_cycles(&kept_per_beat(&docs[0], lanes, needs));
    within(run.docs[0].cycles, first, latency, "the first document");
    let all: Vec<u64> = docs
        .iter()
        .flat_map(|d| kept_per_beat(d, lanes, needs))
        .collect();
    let extra = latency + u64::from(hw.rtl.result_words);
    within(run.run.total_cycles, rule_cycles(&all), extra, "the run");
}

/// One NITF suite at one width: every document against the engine and
/// libxml2's answers, the cycle rule, and random stalls.
fn nitf_suite(suite: &str, lanes: u32) {
    let text = std::fs::read_to_string(nitf_dir().join(format!("queries/{suite}.txt")))
        .expect("NITF suite");
    let name = format!("{suite}-b{lanes}");
    let xml = XmlConfig::default();
    let (hw, mut engine) = design(
        &name,
        &text,
        Mode::Holistic,
        SiblingOrder::Unordered,
        xml,
        lanes,
    );
    let docs = nitf_docs();
    let run = agree(&name, &hw, &mut engine, &docs, Stalls::NONE);
    check_cycles(&name, &hw, &docs, &run);
    let want = libxml2_expected(suite, &|q| Some(q as u32));
    for (i, (d, w)) in run.docs.iter().zip(&want).enumerate() {
        assert_eq!(
            &d.result.matched,
            w,
            "{name}: outFile{}.xml vs libxml2",
            i + 1
        );
    }
    agree(&name, &hw, &mut engine, &docs, stalls(u64::from(lanes)));
}

/// The NITF suites at B = 2, 4, 8: each width runs a suite (the byte-serial
/// engine behind the front end is the one `rtl_sim` runs on every suite at
/// B = 1, and the front end is checked byte for byte above). With
/// `QRTL_SOAK` set, every suite at every width.
#[test]
fn nitf_suites_at_every_width() {
    let soak = std::env::var_os("QRTL_SOAK").is_some();
    let suites = ["simple_paths", "simple_predicates", "mixed", "nested_paths"];
    for (k, lanes) in [2u32, 4, 8].into_iter().enumerate() {
        for (i, suite) in suites.iter().enumerate() {
            // k = 2 (B = 8) also runs the last suite.
            if soak || i == k || (k == 2 && i == 3) {
                nitf_suite(suite, lanes);
            }
        }
    }
}

/// Seeded twig sets with predicates (attributes, values, positions,
/// `text()`) over documents with malformed and too-deep ones, in every
/// mode and with `--ordered`, spread over the widths.
#[test]
fn random_twig_sets_at_every_width() {
    let queries = random_twig_queries(126, 90);
    let mut docs = random_docs(126, 160);
    for (i, d) in docs.iter_mut().enumerate() {
        d.extend(std::iter::repeat_n(b'\n', i % 8));
    }
    for (lanes, label, mode, order) in [
        (2, "pairs", Mode::Pairs, SiblingOrder::Unordered),
        (4, "ordered", Mode::Holistic, SiblingOrder::Ordered),
        (8, "holistic", Mode::Holistic, SiblingOrder::Unordered),
        (8, "paths", Mode::Paths, SiblingOrder::Unordered),
    ] {
        let name = format!("twigs-{label}-b{lanes}");
        let xml = XmlConfig::with_max_depth(8);
        let (hw, mut engine) = design(&name, &queries, mode, order, xml, lanes);
        let run = agree(&name, &hw, &mut engine, &docs, Stalls::NONE);
        check_cycles(&name, &hw, &docs, &run);
        agree(&name, &hw, &mut engine, &docs, stalls(lanes.into()));
    }
}

/// A beat of the test bench: bytes (lane i in bits 8i+7:8i), tkeep, tlast.
struct Beat {
    data: u32,
    keep: u8,
    last: bool,
}

/// A document's beats at 4 bytes per beat, by the rule.
fn beats_of(doc: &[u8]) -> Vec<Beat> {
    let n = doc.len().div_ceil(4);
    doc.chunks(4)
        .enumerate()
        .map(|(i, c)| Beat {
            data: c.iter().rev().fold(0u32, |a, &b| a << 8 | u32::from(b)),
            keep: (1u8 << c.len()) - 1,
            last: i + 1 == n,
        })
        .collect()
}

/// Beats that break the tkeep rule, in Icarus Verilog at B = 4: the
/// document's status word says bad_beat and its bitmap holds the matches
/// of the bytes before the bad beat; the documents after it are parsed as
/// usual.
#[test]
fn bad_beats_report_bad_beat_with_the_matches_before_them() {
    use qrtl_xpath::xml::{DocStatus, XmlError};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let queries = std::fs::read_to_string(root.join("queries/xpath/news.txt")).unwrap();
    let xml = XmlConfig::default();
    let (hw, mut engine) = design(
        "bad-beats",
        &queries,
        Mode::Holistic,
        SiblingOrder::Unordered,
        xml,
        4,
    );
    let monday = std::fs::read(root.join("queries/xpath/docs/monday.xml")).unwrap();
    let tuesday = std::fs::read(root.join("queries/xpath/docs/tuesday.xml")).unwrap();
    // (label, beats, the bytes the hardware parses, bad)
    let mut cases: Vec<(&str, Vec<Beat>, Vec<u8>, bool)> = Vec::new();
    cases.push(("good", beats_of(&monday), monday.clone(), false));
    let mut b = beats_of(&tuesday);
    b[40].keep = 0b0111; // not full, not last
    cases.push(("short beat", b, tuesday[..160].to_vec(), true));
    let mut b = beats_of(&monday);
    b[100].keep = 0b0101; // bytes not in the low lanes
    cases.push(("holes", b, monday[..400].to_vec(), true));
    let mut b = beats_of(&tuesday);
    b.push(Beat {
        data: 0,
        keep: 0,
        last: true,
    }); // an empty last beat
    let n = b.len();
    b[n - 2].last = false;
    cases.push(("empty last beat", b, tuesday.clone(), true));
    let mut b = beats_of(&monday);
    b[0].keep = 0; // the first beat
    cases.push(("bad first beat", b, Vec::new(), true));
    let mut b = beats_of(&tuesday);
    let n = b.len();
    b[n - 1].keep = 0b1010;
    cases.push(("bad last beat", b, tuesday[..4 * (n - 1)].to_vec(), true));
    cases.push(("good after", beats_of(&tuesday), tuesday.clone(), false));

    let dir = std::env::temp_dir().join(format!("qrtl-wide-bad-beats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut hex = String::new();
    for (_, beats, _, _) in &cases {
        for bt in beats {
            hex.push_str(&format!(
                "{:01x}{:01x}{:08x}\n",
                u8::from(bt.last),
                bt.keep,
                bt.data
            ));
        }
    }
    let count = hex.lines().count();
    std::fs::write(dir.as_path().join("beats.hex"), &hex).unwrap();
    let tb = format!(
        "`timescale 1ns/1ps\n\
         module tb;\n\
         reg clk = 1'b0, rst = 1'b1;\n\
         always #5 clk = ~clk;\n\
         reg [37:0] beats [0:{last}];\n\
         reg [31:0] tdata = 32'd0; reg [3:0] tkeep = 4'd0; reg tvalid = 1'b0, tlast = 1'b0;\n\
         wire tready; wire [31:0] m_tdata; wire m_tvalid, m_tlast;\n\
         qrtl_xpath_top dut (.clk(clk), .rst(rst), .s_axis_tdata(tdata), .s_axis_tkeep(tkeep),\n\
           .s_axis_tvalid(tvalid), .s_axis_tready(tready), .s_axis_tlast(tlast),\n\
           .m_axis_tdata(m_tdata), .m_axis_tvalid(m_tvalid), .m_axis_tready(1'b1), .m_axis_tlast(m_tlast));\n\
         integer i, docs;\n\
         reg fired;\n\
         always @(posedge clk) fired <= tvalid & tready;\n\
         always @(posedge clk) if (m_tvalid) begin\n\
           $display(\"W %h %0d\", m_tdata, m_tlast);\n\
           if (m_tlast) docs = docs + 1;\n\
         end\n\
         initial begin\n\
           docs = 0;\n\
           $readmemh(\"beats.hex\", beats);\n\
           repeat (8) @(negedge clk);\n\
           rst = 1'b0;\n\
           for (i = 0; i < {count}; i = i + 1) begin\n\
             {{tlast, tkeep, tdata}} = {{beats[i][37:36] == 2'd1, beats[i][35:32], beats[i][31:0]}};\n\
             tvalid = 1'b1;\n\
             @(negedge clk);\n\
             while (!fired) @(negedge clk);\n\
           end\n\
           tvalid = 1'b0;\n\
           repeat (20000) @(negedge clk);\n\
           $display(\"D %0d\", docs);\n\
           $finish;\n\
         end\n\
         endmodule\n",
        last = count - 1
    );
    std::fs::write(dir.as_path().join("tb.v"), tb).unwrap();
    let mut files = vec!["tb.v".to_string()];
    for f in &hw.rtl.files {
        std::fs::write(dir.as_path().join(&f.name), &f.text).unwrap();
        files.push(f.name.clone());
    }
    let out = std::process::Command::new("iverilog")
        .current_dir(dir.as_path())
        .args(["-g2005", "-o", "sim.vvp"])
        .args(&files)
        .output()
        .expect("iverilog runs");
    assert!(
        out.status.success(),
        "iverilog: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = std::process::Command::new("vvp")
        .current_dir(dir.as_path())
        .args(["-n", "sim.vvp"])
        .output()
        .expect("vvp runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut packets: Vec<Vec<u32>> = vec![Vec::new()];
    for line in text.lines().filter(|l| l.starts_with("W ")) {
        let mut it = line[2..].split_whitespace();
        let w = u32::from_str_radix(it.next().unwrap(), 16).unwrap();
        packets.last_mut().unwrap().push(w);
        if it.next() == Some("1") {
            packets.push(Vec::new());
        }
    }
    packets.pop();
    assert_eq!(
        packets.len(),
        cases.len(),
        "one result per document:\n{text}"
    );
    for ((label, _, parsed, bad), words) in cases.iter().zip(&packets) {
        let got = qrtl_xpath::engine::decode_xpath_result(words, hw.rtl.queries.len())
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let want = engine.filter(parsed);
        assert_eq!(got.matched, want.matched, "{label}: matches");
        if *bad {
            assert_eq!(
                (got.status, got.reason),
                (DocStatus::Malformed, Some(XmlError::BadBeat)),
                "{label}: status"
            );
        } else {
            assert_eq!(got.status, want.status, "{label}: status");
            assert_eq!(got.reason, want.error.map(|e| e.error), "{label}: reason");
        }
    }
    assert!(
        cases
            .iter()
            .any(|c| c.3 && !engine.filter(&c.2).matched.is_empty()),
        "some bad document had matches before its bad beat"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
