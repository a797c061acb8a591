//! The multi-byte input (`--bytes-per-clock` 2, 4, 8) in simulation.
//!
//! * The parser alone (`qrtl_wide_in`, `qrtl_wide_sax` passing every
//!   event, `qrtl_wide_events`) against the tokenizer, event by event: for
//!   every document (well-formed, truncated at every length, byte-flipped,
//!   too deep, the file-driven XML cases, NITF, of every length mod B) the
//!   start names, attributes, opens, closes, text nodes, status and reason,
//!   with small and default limits, with and without random stalls on
//!   both sides.
//! * Whole designs at B = 2, 4, 8 against the software engine, document by
//!   document (every match bit, status and reason), and against libxml2's
//!   answers on the NITF suites; cycles of the run against the stated
//!   rule; random stalls on both streams.
//! * Beats that break the tkeep rule, in Icarus Verilog on a small design
//!   at B = 4: reported as `bad_beat` with the matches found before them.

mod common;

use common::sax_trace::{reference_trace, rtl_traces, Record};
use common::{
    libxml2_expected, nitf_dir, nitf_docs, random_docs, random_twig_queries, sim_equals_engine,
};
use qrtl_core::sim::{BuildOptions, DriverSpec, Simulator, Stalls};
use qrtl_xpath::emit::wide::{
    wide_events_module, wide_in_module, wide_sax_module, WideParams, WideSaxParams,
};
use qrtl_xpath::engine::{build_xpath_hw, XpathHw, XpathHwOptions};
use qrtl_xpath::ir::xpath::{Mode, SiblingOrder};
use qrtl_xpath::passes::registry::StackPassConfig;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::xml::items;
use qrtl_xpath::xml::lanes::Needs;
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

/// Documents for the parser alone: the front end's, the file-driven XML
/// cases (every construct, every reason), and every prefix of a rich one.
fn parser_docs(lanes: usize) -> Vec<Vec<u8>> {
    let mut docs = front_end_docs(lanes);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/xml");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/xml")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    names.sort();
    docs.extend(names.iter().map(|p| std::fs::read(p).expect("XML case")));
    let rich: &[u8] = b"\xEF\xBB\xBF<?xml version='1.0'?><!DOCTYPE r SYSTEM 'r.dtd'><!--c--><r a='1&amp;&#x41;'>\r\n\
        t&lt;&#65;<![CDATA[x]]y]]]>z<b/><?p d?></r>\n";
    docs.extend((1..=rich.len()).map(|n| rich[..n].to_vec()));
    // UTF-8 sequences, sound and faulty (xml/chars.rs), at every lane and
    // across beats: each shifted by 0..8 leading spaces.
    let utf8: [&[u8]; 10] = [
        "<r é='ü'>€ 𝄞 \u{FFFD}<!--ǅ--><?p ∑?><![CDATA[ø]]></r>".as_bytes(),
        b"<r>\xC3</r>",
        b"<r>\xE2\x82</r>",
        b"<r>\xF0\x9D\x84</r>",
        b"<r>\xEF\xBF\xBF</r>",
        b"<r>\xE0\x80\x80</r>",
        b"<r>\xF4\x90\x80\x80</r>",
        b"<r a='\x80'/>",
        b"<r\xF5/>",
        b"<r>\x1B</r>",
    ];
    for doc in utf8 {
        for k in 0..8 {
            let mut d = vec![b' '; k];
            d.extend_from_slice(doc);
            docs.push(d);
        }
    }
    // Names beyond ASCII (xml/names.rs): first and later characters of
    // element and attribute names, PI targets and the DOCTYPE's name,
    // sound and faulty, at every lane.
    let names: [&str; 8] = [
        "<é·x ü\u{300}='1' 中·='2'><?pé x?><ǅ/></é·x>",
        "<\u{300}a/>",
        "<a ·b='1'/>",
        "<a\u{a0}/>",
        "<?\u{203f}?><a/>",
        "<!DOCTYPE \u{300}><a/>",
        "<!DOCTYPE é\u{a0}><a/>",
        "<a\u{10000}\u{f0000}/>",
    ];
    // Duplicate attributes and the check's limits (xml/attrs.rs; the small
    // configurations hold 3 names of 4 bytes), at every lane.
    let attrs: [&str; 7] = [
        "<r a='1' b='2' a='3'/>",
        "<r ab='1' a='2' abc='3' ab = '4'/>",
        "<r a='1'><s a='2' b='3'/><t b='' a=''/></r>",
        "<r a='' b='' c='' d=''/>",
        "<r abcd='1' abcde='2'/>",
        "<r a0='' a1='' a2='' a3='' a4='' a5='' a6='' a7='' a8='' a9='' b0='' b1='' b2='' b3='' b4='' b5='' b6=''/>",
        "<r abcdefghijklmnopqrstuvwxyz0123456='1'/>",
    ];
    for doc in names.iter().chain(&attrs) {
        for k in 0..8 {
            let mut d = vec![b' '; k];
            d.extend_from_slice(doc.as_bytes());
            docs.push(d);
        }
    }
    // XML declarations (xml/decl.rs) whose bytes fall on every lane, and
    // the encodings they name applied from the lane after their `>`.
    let decls: [&[u8]; 6] = [
        b"version='1.0' encoding='ISO-8859-1'?><r a='\xE9'>\xFF\x0C</r>",
        b"version=\"1.0\" encoding=\"us-ascii\" standalone='no'?><r>a\xC3\xA9</r>",
        b"version='1.0' standalone='YES'?><r/>",
        b"version='1.0' encoding='UTF-16'?><r/>",
        b"version='1.0' encoding='ISO-8859-1'?><\xE9\xB7 \xB7='1'/>",
        b"version='1.0' encoding='ISO-8859-1'?><!DOCTYPE \xE9\xD7><r/>",
    ];
    for decl in decls {
        for k in 1..=8 {
            let mut d = b"<?xml".to_vec();
            d.extend(std::iter::repeat_n(b' ', k));
            d.extend_from_slice(decl);
            docs.push(d);
        }
    }
    // (an AXI4-Stream packet has at least one byte)
    docs.retain(|d| !d.is_empty());
    docs
}

/// A top around the multi-byte parser (`qrtl_wide_in`, `qrtl_wide_sax`
/// passing every event, `qrtl_wide_events`) whose output stream is its
/// events: a 60-bit word per event (the flags in `common::sax_trace`'s
/// order, byte, unit byte, unit code point and whether it is one, status,
/// reason), tlast on a document's end.
fn probe(
    lanes: u32,
    needs: Needs,
    attr_names: bool,
    xml: XmlConfig,
) -> (DriverSpec, Vec<(String, String)>) {
    let sax = WideSaxParams {
        wide: WideParams {
            lanes,
            needs,
            attr_names,
        },
        max_depth: xml.max_depth,
        name_stack_bytes: xml.name_stack_bytes,
        max_attributes: xml.max_attributes,
        attr_name_bytes: xml.attr_name_bytes,
    };
    let sigs = [
        "name_byte",
        "name_first",
        "name_end",
        "attr_name_byte",
        "attr_name_first",
        "attr_name_end",
        "val_start",
        "val_unit",
        "val_end",
        "open",
        "open_empty",
        "close",
        "text_unit",
        "text_end",
        "doc_end",
    ];
    let mut v = format!(
        "`default_nettype none\n\
         module wide_probe (\n\
         input wire clk, input wire rst,\n\
         input wire [{d}:0] s_axis_tdata, input wire [{k}:0] s_axis_tkeep,\n\
         input wire s_axis_tvalid, output wire s_axis_tready, input wire s_axis_tlast,\n\
         output wire [59:0] m_axis_tdata, output wire m_axis_tvalid,\n\
         input wire m_axis_tready, output wire m_axis_tlast);\n\
         wire i_valid, i_ready, i_last, i_bad;\n\
         wire [{d}:0] i_data; wire [{s}:0] i_state; wire [{t}:0] i_ctl; wire [{c}:0] i_cls;\n\
         wire [{f}:0] i_flags; wire [{k}:0] i_act;\n\
         qrtl_wide_in u_in (.clk(clk), .rst(rst), .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep),\n\
         .s_tvalid(s_axis_tvalid), .s_tready(s_axis_tready), .s_tlast(s_axis_tlast),\n\
         .i_valid(i_valid), .i_ready(i_ready), .i_data(i_data), .i_state(i_state), .i_ctl(i_ctl), .i_cls(i_cls),\n\
         .i_flags(i_flags), .i_act(i_act), .i_last(i_last), .i_bad(i_bad));\n\
         wire e_valid, e_doc_end; wire [{k}:0] e_mask; wire [{e}:0] e_lanes; wire [20:0] e_cp;\n\
         wire [1:0] e_status; wire [4:0] e_reason;\n\
         qrtl_wide_sax #(.ALL_EVENTS(1)) u_sax (.clk(clk), .rst(rst), .i_valid(i_valid),\n\
         .i_data(i_data), .i_state(i_state), .i_ctl(i_ctl), .i_cls(i_cls), .i_flags(i_flags), .i_act(i_act),\n\
         .i_last(i_last), .i_bad(i_bad), .e_valid(e_valid), .e_mask(e_mask), .e_lanes(e_lanes),\n\
         .e_cp(e_cp), .e_doc_end(e_doc_end), .e_status(e_status), .e_reason(e_reason));\n",
        d = lanes * 8 - 1,
        k = lanes - 1,
        s = lanes * 6 - 1,
        t = lanes * qrtl_xpath::emit::wide::LANE_CTLS - 1, // qrtl_wide_in's controls of the stack registers per lane
        c = lanes * 17 - 1,
        f = lanes * qrtl_xpath::emit::wide::LANE_FLAGS - 1, // qrtl_wide_in's look-back and fault flags per lane
        e = lanes * 33 - 1,
    );
    v.push_str(
        "wire o_ready; wire [7:0] o_byte, o_unit_byte, o_byte_next; wire [20:0] o_unit_cp;\n\
         wire o_unit_is_cp; wire [1:0] o_status; wire [4:0] o_reason;\n",
    );
    for sig in sigs {
        v.push_str(&format!("wire o_{sig};\n"));
    }
    v.push_str(
        "qrtl_wide_events u_ev (.clk(clk), .rst(rst), .e_valid(e_valid), .e_mask(e_mask),\n\
         .e_lanes(e_lanes), .e_cp(e_cp), .e_doc_end(e_doc_end), .e_status(e_status),\n\
         .e_reason(e_reason), .i_ready(i_ready), .o_ready(o_ready), .o_byte(o_byte),\n\
         .o_unit_byte(o_unit_byte), .o_unit_cp(o_unit_cp), .o_unit_is_cp(o_unit_is_cp),\n\
         .o_status(o_status), .o_reason(o_reason), .o_byte_next(o_byte_next)",
    );
    for sig in sigs {
        v.push_str(&format!(", .o_{sig}(o_{sig})"));
    }
    let flags: Vec<String> = sigs.iter().rev().map(|s| format!("o_{s}")).collect();
    v.push_str(&format!(
        ");\n\
         wire [14:0] flags = {{{}}};\n\
         assign m_axis_tvalid = |flags;\n\
         assign o_ready = !m_axis_tvalid || m_axis_tready;\n\
         assign m_axis_tdata = {{o_reason, o_status, o_unit_is_cp, o_unit_cp, o_unit_byte, o_byte, flags}};\n\
         assign m_axis_tlast = o_doc_end;\n\
         wire unused_probe = &{{1'b0, o_byte_next}};\n\
         endmodule\n",
        flags.join(", ")
    ));
    let mut spec = DriverSpec::axis("wide_probe");
    spec.in_data_bits = 8 * lanes;
    spec.in_keep = true;
    spec.out_word_bits = 60;
    let rtl = vec![
        ("wide_probe.v".to_string(), v),
        ("qrtl_wide_in.v".to_string(), wide_in_module(&sax.wide)),
        ("qrtl_wide_sax.v".to_string(), wide_sax_module(&sax)),
        ("qrtl_wide_events.v".to_string(), wide_events_module(lanes)),
    ];
    (spec, rtl)
}

/// The probe's words of one document as the byte-serial protocol's records.
fn records(beats: &[Vec<u8>]) -> Vec<Record> {
    beats
        .iter()
        .map(|b| {
            let w = b.iter().rev().fold(0u64, |a, &x| a << 8 | u64::from(x));
            Record {
                flags: (w & 0x7FFF) as u32,
                byte: (w >> 15) as u8,
                unit_byte: (w >> 23) as u8,
                unit_cp: ((w >> 31) & 0x1F_FFFF) as u32,
                unit_is_cp: (w >> 52) & 1 == 1,
                status: ((w >> 53) & 3) as u8,
                reason: ((w >> 55) & 31) as u8,
                err_offset: 0,
            }
        })
        .collect()
}

/// A trace without error offsets (the multi-byte parser does not report
/// them).
fn without_offset(t: &str) -> String {
    t.lines()
        .map(|l| match l.find(" offset ") {
            Some(i) if l.starts_with("status ") => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The multi-byte parser against the tokenizer, event by event: every
/// start name, attribute (decoded value), open, close, text node (decoded,
/// CR LF normalised), status and reason, on every document, at B = 2, 4,
/// 8, with small limits (too deep, name stack overflows, the duplicate
/// attribute check's slots) and the defaults, with and without random
/// stalls on both sides; at B = 8 with every comparison, also every
/// document of the W3C XML Conformance Test Suite.
#[test]
fn the_parser_gives_the_tokenizers_events() {
    let all = Needs {
        values: true,
        text: true,
    };
    let small = XmlConfig {
        max_depth: 6,
        name_stack_bytes: 40,
        max_attributes: 3,
        attr_name_bytes: 4,
        namespaces: false,
        ns_limits: None,
    };
    for (lanes, needs, attr_names, xml) in [
        (2, all, true, small),
        (4, Needs::default(), false, XmlConfig::default()),
        (8, Needs::default(), false, small),
        (8, all, true, XmlConfig::default()),
    ] {
        let (spec, rtl) = probe(lanes, needs, attr_names, xml);
        let label = format!(
            "B={lanes} {needs:?} attr_names={attr_names} depth={}",
            xml.max_depth
        );
        let built =
            qrtl_core::sim::build_with(&spec, &rtl, Simulator::Verilator, &BuildOptions::default())
                .unwrap_or_else(|e| panic!("{label}: build failed: {e}"));
        let mut docs = parser_docs(lanes as usize);
        if lanes == 8 && attr_names {
            // The W3C XML Conformance Test Suite's every document (issue 29:
            // the SAX parser against the tokenizer on the whole suite).
            let suite = common::xml_files_under(&common::xmlconf_dir());
            assert!(suite.len() > 2500, "the W3C XML Conformance Test Suite");
            docs.extend(
                suite
                    .iter()
                    .map(|p| std::fs::read(p).expect("read xmlconf file"))
                    .filter(|d| !d.is_empty()),
            );
        }
        for st in [Stalls::NONE, stalls(lanes.into())] {
            let run = built
                .run(&docs, &st, None)
                .unwrap_or_else(|e| panic!("{label}: run failed: {e}"));
            for (i, (doc, got)) in docs.iter().zip(&run.packets).enumerate() {
                let got = rtl_traces(&records(&got.beats));
                assert_eq!(
                    got.len(),
                    1,
                    "{label}: doc {i}: {} document ends",
                    got.len()
                );
                let want = reference_trace(xml, doc);
                assert_eq!(
                    without_offset(&got[0].render()),
                    without_offset(&want.render()),
                    "{label} {st:?}: doc {i} ({} bytes) differs\n  doc: {:?}",
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
    let mut d = common::raw_design_from_text(name, queries, mode);
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
    sim_equals_engine(name, hw, engine, docs, Simulator::Verilator, st)
}

/// The stated rule for a run of documents back to back, latency aside:
/// beats arrive one per clock; the front end issues one item per clock,
/// none before its beat; the event queue hands out one event per clock,
/// none before its item (`items::events`: what the clusters of `hw` read).
/// Returns the rule's clocks and the item clocks alone.
fn rule_clocks(hw: &XpathHw, xml: XmlConfig, docs: &[Vec<u8>]) -> (u64, u64) {
    let rules = qrtl_xpath::emit::xpath::wide_item_rules(&hw.stack, hw.bytes_per_clock);
    let (mut beat0, mut t_item, mut t_event, mut item_clocks) = (0u64, 0u64, 0u64, 0u64);
    for doc in docs {
        let cut = items::items(doc, &rules);
        let events = items::events(doc, xml, &rules);
        for (it, e) in cut.iter().zip(&events) {
            t_item = (t_item + 1).max(beat0 + it.beat as u64 + 1);
            t_event = t_event.max(t_item) + e;
        }
        item_clocks += items::clocks(doc, &rules);
        beat0 += doc.len().div_ceil(rules.bytes_per_clock) as u64;
    }
    (t_event, item_clocks)
}

/// The rule, checked without stalls on the run's cycles (every document's
/// beats back to back; the run ends when the last document's last result
/// word is taken, latency and result words after the rule's clocks): at
/// least the rule, and at most a quarter more. What the rule leaves out:
/// the queue holds an open back until three clocks after the previous
/// stack event, and when items and events come at about the same rate the
/// bounded queue between them loses clocks to bursts (up to 16% in these
/// tests, with `--mode pairs` at B = 2; under 5% elsewhere).
fn check_cycles(
    name: &str,
    hw: &XpathHw,
    xml: XmlConfig,
    docs: &[Vec<u8>],
    run: &qrtl_xpath::engine::XpathSimRun,
) {
    let extra = u64::from(hw.rtl.latency) + u64::from(hw.rtl.result_words);
    let (rule, items) = rule_clocks(hw, xml, docs);
    let bytes: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let got = run.run.total_cycles;
    eprintln!(
        "{name}: {got} cycles; the rule {rule} + {extra}, {items} item clocks; {bytes} bytes: {:.2} bytes/clock",
        bytes as f64 / got as f64
    );
    assert!(
        got + 2 >= rule + extra,
        "{name}: {got} cycles, under the rule's {rule} + {extra}"
    );
    assert!(
        got <= rule + rule / 4 + extra,
        "{name}: {got} cycles, over 1.25 x the rule's {rule} + {extra}"
    );
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
    check_cycles(&name, &hw, xml, &docs, &run);
    let want = libxml2_expected(suite, &|q| Some(q as u32));
    for (i, (d, w)) in run.docs.iter().zip(&want).enumerate() {
        assert_eq!(
            &d.result.matched,
            w,
            "{name}: outFile{}.xml vs libxml2",
            i + 1
        );
    }
    // Stalls on both streams, on a third of the documents (time).
    agree(
        &name,
        &hw,
        &mut engine,
        &docs[..34],
        stalls(u64::from(lanes)),
    );
}

/// The NITF suites at B = 2, 4, 8: each width runs a suite (the clusters
/// are the ones `rtl_sim` runs on every suite at B = 1, and the parser is
/// checked event by event above). With `QRTL_SOAK` set, every suite at
/// every width.
#[test]
fn nitf_suites_at_every_width() {
    let soak = std::env::var_os("QRTL_SOAK").is_some();
    let suites = ["simple_paths", "simple_predicates", "mixed", "nested_paths"];
    for (k, lanes) in [2u32, 4, 8].into_iter().enumerate() {
        for (i, suite) in suites.iter().enumerate() {
            if soak || i == k {
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
        check_cycles(&name, &hw, xml, &docs, &run);
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
