//! The item back end against the tokenizer: the model gives the same
//! events (chunks merged), status and reason on every document; the items
//! partition every beat, keep every conflict rule and are cut greedily;
//! and the sustained bytes per clock on the NITF documents.

use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::*;
use crate::xml::{Tokenizer, XmlConfig};

/// The sink's calls, chunks merged. `picky` answers `start_name`,
/// `attr_start` and `wants_text` by the name or the count, to check that
/// the model respects the answers.
struct Events {
    needs: Needs,
    picky: bool,
    texts: u32,
    out: Vec<String>,
    /// The bytes of the last entry when it is merged chunks (decoded as a
    /// whole: a character may be split between chunks).
    merged: Vec<u8>,
}

impl Events {
    fn new(needs: Needs, picky: bool) -> Events {
        Events {
            needs,
            picky,
            texts: 0,
            out: Vec::new(),
            merged: Vec::new(),
        }
    }

    fn merge(&mut self, tag: &str, chunk: &[u8]) {
        match self.out.last_mut() {
            Some(last) if last.starts_with(tag) => {
                self.merged.extend_from_slice(chunk);
                *last = format!("{tag}{}", String::from_utf8_lossy(&self.merged));
            }
            _ => {
                self.merged = chunk.to_vec();
                self.out
                    .push(format!("{tag}{}", String::from_utf8_lossy(chunk)));
            }
        }
    }
}

impl Sink for Events {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        self.out
            .push(format!("start {} @{depth}", String::from_utf8_lossy(name)));
        !self.picky || name.len() % 3 != 0
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.out
            .push(format!("attr {}", String::from_utf8_lossy(name)));
        !self.picky || name.len() % 2 == 1
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        self.merge("value ", chunk);
    }
    fn attr_end(&mut self) {
        self.out.push("attr_end".into());
    }
    fn open(&mut self) {
        self.out.push("open".into());
    }
    fn close(&mut self) {
        self.out.push("close".into());
    }
    fn wants_text(&mut self) -> bool {
        self.texts += 1;
        self.needs.text && (!self.picky || self.texts % 2 == 1)
    }
    fn text(&mut self, chunk: &[u8]) {
        self.merge("text ", chunk);
    }
    fn text_end(&mut self) {
        self.out.push("text_end".into());
    }
}

fn status(r: Result<(), XmlError>) -> String {
    match r {
        Ok(()) => "status ok".into(),
        Err(e) => format!("status {:?} ({:?})", e, e.status()),
    }
}

fn tokenizer_events(doc: &[u8], config: XmlConfig, needs: Needs, picky: bool) -> Vec<String> {
    let mut sink = Events::new(needs, picky);
    let mut t = Tokenizer::new(config);
    t.feed(doc, &mut sink);
    let r = t.finish(&mut sink).map_err(|e| e.error);
    sink.out.push(status(r));
    sink.out
}

fn model_events(doc: &[u8], config: XmlConfig, rules: &ItemRules, picky: bool) -> Vec<String> {
    let mut sink = Events::new(rules.needs, picky);
    let r = parse(doc, config, rules, &mut sink);
    sink.out.push(status(r));
    sink.out
}

const ALL_NEEDS: [Needs; 4] = Needs::ALL;

/// Every rule set: B in 2, 4, 8, every `Needs`, attribute names or not.
fn all_rules() -> Vec<ItemRules> {
    let mut v = Vec::new();
    for bytes_per_clock in [2, 4, 8] {
        for needs in ALL_NEEDS {
            for attr_names in [false, true] {
                v.push(ItemRules {
                    bytes_per_clock,
                    needs,
                    attr_names,
                });
            }
        }
    }
    v
}

const CONFIGS: [XmlConfig; 4] = [
    XmlConfig {
        max_depth: 32,
        name_stack_bytes: 2048,
        max_attributes: 16,
        attr_name_bytes: 32,
        namespaces: false,
        ns_limits: None,
    },
    XmlConfig {
        max_depth: 2,
        name_stack_bytes: 128,
        max_attributes: 2,
        attr_name_bytes: 64,
        namespaces: false,
        ns_limits: None,
    },
    XmlConfig {
        max_depth: 3,
        name_stack_bytes: 8,
        max_attributes: 16,
        attr_name_bytes: 32,
        namespaces: false,
        ns_limits: None,
    },
    XmlConfig {
        max_depth: 6,
        name_stack_bytes: 16,
        max_attributes: 3,
        attr_name_bytes: 2,
        namespaces: false,
        ns_limits: None,
    },
];

/// The model equals the tokenizer on `doc` under `rules` and `config`,
/// with a plain and a picky sink; and the items keep the rules.
fn check(label: &str, doc: &[u8], config: XmlConfig, rules: &ItemRules) {
    for picky in [false, true] {
        let want = tokenizer_events(doc, config, rules.needs, picky);
        let got = model_events(doc, config, rules, picky);
        assert_eq!(
            got,
            want,
            "{label}: {rules:?} {config:?} picky {picky}\n  document: {:?}",
            String::from_utf8_lossy(doc)
        );
    }
    check_items(doc, rules, &items(doc, rules)).unwrap_or_else(|e| {
        panic!(
            "{label}: {rules:?}: {e}\n  document: {:?}",
            String::from_utf8_lossy(doc)
        )
    });
}

const EDGE_CASES: &[&[u8]] = &[
    b"",
    b"  ",
    b"<!-- only -->",
    b"<a/>",
    b"<a/><a/><a/>",
    b"  <a/>  ",
    b"<a>hello world</a>",
    b"<a>  x  y </a>",
    b"<a/> x",
    b"<a/>\n\n x",
    b"x<a/>",
    b"&amp;<a/>",
    b"<a>]]></a>",
    b"<a>]a]></a>",
    b"<a>]ab]></a>",
    b"<a>]] ></a>",
    b"<a>x]]]></a>",
    b"<a>]</a>]]>",
    b"<a>]]&amp;></a>",
    b"<a><![CDATA[ab]]c]]]]></a>",
    b"<a><![CDATA[x]]></a>",
    b"<a><![CDATA[]]></a>",
    b"<a>t<![CDATA[]x]]y]]]z\r\n]]>u\r</a>",
    b"<a><![CDATA[\r]\n]]></a>",
    b"<![CDATA[x]]><a/>",
    b"<a><![CDAT[x]]></a>",
    b"<a><![CD[x]]></a>",
    b"<?xml version=\"1.0\"?><a/>",
    b" <?xml version=\"1.0\"?><a/>",
    b"\xEF\xBB\xBF<?xml version=\"1.0\"?><a/>",
    b"\xEF\xBB\xBF <a/>",
    b"\xEF\xBB\xBF",
    b"\xEF\xBB",
    b"\xEF\xBBx<a/>",
    b"\xEFx<a/>",
    b"<a/><?xml x?>",
    b"<?XmL?><a/>",
    b"<?xml?><a/>",
    b"<?xmlx?><a/>",
    b"<?pi body ? still?><a/>",
    b"<?pi?><a/>",
    b"<?pi?x?><a/>",
    b"<??><a/>",
    b"<?1?><a/>",
    b"<a><?p q?>t</a>",
    b"<!-- a - b -- c --><a/>",
    b"<!-- ok --><a/><!-- x -- >",
    b"<!-x--><a/>",
    b"<!x><a/>",
    b"<a>t<!-- c -->u</a>",
    b"<!DOCTYPE a SYSTEM \"x>y\" 'p\"q'><a/>",
    b"<!DOCTYPE a [ <!ENTITY x 'y'> ]><a/>",
    b"<!DOCTYPEa><a/>",
    b"<!DOCTYP a><a/>",
    b"<!DOCTYPE a <b><a/>",
    // Names beyond ASCII (names.rs): first characters, later ones,
    // Latin-1 bytes, a PI target, the DOCTYPE's name.
    "<\u{e9}t\u{e9} \u{4e2d}\u{b7}='1'><?p\u{300}?></\u{e9}t\u{e9}>".as_bytes(),
    "<\u{300}a/>".as_bytes(),
    // Duplicate attributes (attrs.rs) and the check's limits (the small
    // configurations hold 2 or 3 names of up to 64 or 2 bytes).
    b"<a x='1' y='2' x='3'/>",
    b"<a xy='1' x='2' xy = '3'/>",
    b"<a x='1'><b x='2' y='3'/></a>",
    b"<a b='1' c='2' d='3' e='4'/>",
    b"<a abc='1'/>",
    "<a \u{b7}='1'/>".as_bytes(),
    "<a\u{a0}/>".as_bytes(),
    "<a b\u{2000}c='1'/>".as_bytes(),
    "<?\u{203f}?><a/>".as_bytes(),
    "<!DOCTYPE \u{300}><a/>".as_bytes(),
    "<a\u{10000}\u{f0000}/>".as_bytes(),
    b"<?xml version='1.0' encoding='ISO-8859-1'?><\xe9t\xe9 \xb7='1'/>",
    b"<?xml version='1.0' encoding='ISO-8859-1'?><a\xd7/>",
    b"<?xml version='1.0' encoding='ISO-8859-1'?><!DOCTYPE \xe9\xa0><a/>",
    b"<!DOCTYPE a><!DOCTYPE b><a/>",
    b"<a/><!DOCTYPE a>",
    b"<a><!DOCTYPE a></a>",
    b"<!DOCTYPE a",
    b"<a x='1' y = \"2\"  z\t=\n'3'/>",
    b"<a x=\"1\"y=\"2\"/>",
    b"<a x=\"1\"$/>",
    b"<a x=\"1<\"/>",
    b"<a x=1/>",
    b"<a x/>",
    b"<a x>",
    b"<a x$='1'/>",
    b"<a =/>",
    b"<a $/>",
    b"<a/ >",
    b"<a x=\"&amp;&#65;&#x41;\"/>",
    b"<a x=\"&bogus;\"/>",
    b"<a x='a\r\nb\rc\n\td'/>",
    b"<a x='\r\r\n'>\r\r\n</a>",
    b"<a>&lt;&gt;&amp;&apos;&quot;&#1114111;&#1114112;</a>",
    b"<a>&#xD800;</a>",
    b"<a>&#x;</a>",
    b"<a>&#a;</a>",
    b"<a>&#x10FFFF;&#x110000;</a>",
    b"<a>&#0;</a>",
    b"<a>&#9;&#xA;&#13;</a>",
    b"<a>&ltx;</a>",
    b"<a>t\x0Cu</a>",
    b"<a x='\xC3\xA9\xC3'/>",
    b"<a>\xEF\xBF\xBE</a>",
    b"<a>\xED\xA0\x80</a>",
    b"<a\xC3\xA9 b\xF4\x90='1'/>",
    b"<!-- \x1B --><a/>",
    b"\xFF\xFE<\x00a\x00/\x00>\x00",
    b"<\x00a\x00/\x00>\x00",
    b"\xEF\xBB\xBF\xFE<a/>",
    b"<?xml version='1.0' encoding='ISO-8859-1'?><a x='\xE9'>\xFF\x80</a>",
    b"<?xml version='1.0' encoding='ISO-8859-1'?><a>\x0C</a>",
    b"<?xml version=\"1.0\" encoding=\"us-ascii\" standalone=\"no\" ?><a>\xC3\xA9</a>",
    b"<?xml version='1.0' encoding='UTF-8'?><a>\xC3\xA9\xFF</a>",
    b"\xEF\xBB\xBF<?xml version='1.0' encoding='ISO-8859-1'?><a/>",
    b"<?xml version='1.0' encoding='Shift_JIS'?><a/>",
    b"<?xml version='1.1'?><a/>",
    b"<?xml version='1.0'encoding='UTF-8'?><a/>",
    b"<?xml version='1.0' standalone='yes' encoding='UTF-8'?><a/>",
    b"<?xml version='1.0' ?>?<a/>",
    b"<?xml version='1.0'",
    b"<?xml version = '1.0' standalone = 'no'?><a/>",
    b"<a>&abcde;</a>",
    b"<a>&l1;</a>",
    b"<a>& </a>",
    b"<a>&</a>",
    b"<a><b></a></b>",
    b"<a></ab>",
    b"<ab></a>",
    b"<a></a  >",
    b"<a></a x>",
    b"<a></ a>",
    b"<a></>",
    b"<a></1>",
    b"</a>",
    b"<a/></a>",
    b"< a/>",
    b"<1/>",
    b"<a><b/><c>t</c>\r\n\r<d x='\r\n\t'/></a>",
    b"<a/><b/>",
    b"<a><b><c><d/></c></b></a>",
    b"<abcdefghij/>",
    b"<abcd><efgh/></abcd>",
    b"<abc x123456='1'/>",
    b"<abc><d xyz='1'/></abc>",
    b"<a",
    b"<",
    b"<a x=\"1",
    b"<a>text",
    b"<a><!--",
    b"<a>&#12",
    b"<a><![CDATA[x",
    b"<a></a",
    b"<?pi",
    b"<a><b>\n<c>&amp; t</c>\n</b></a>\n",
];

#[test]
fn the_model_equals_the_tokenizer_on_edge_cases() {
    for rules in all_rules() {
        for config in CONFIGS {
            for (i, case) in EDGE_CASES.iter().enumerate() {
                check(&format!("edge case {i}"), case, config, &rules);
            }
        }
    }
}

#[test]
fn the_edge_cases_give_every_reason() {
    let mut seen = std::collections::HashSet::new();
    for config in CONFIGS {
        for case in EDGE_CASES {
            let mut t = Tokenizer::new(config);
            let mut sink = Events::new(Needs::default(), false);
            t.feed(case, &mut sink);
            if let Err(e) = t.finish(&mut sink) {
                seen.insert(e.error);
            }
        }
    }
    for reason in XmlError::ALL.into_iter().filter(|r| r.from_parser()) {
        assert!(seen.contains(&reason), "no edge case gives {reason:?}");
    }
}

#[test]
fn the_model_equals_the_tokenizer_on_repeated_empty_elements() {
    let mut doc = b"<r>".to_vec();
    for k in 0..40 {
        doc.extend_from_slice(if k % 3 == 0 { b"<a/>" } else { b"<bc/>" });
        let mut closed = doc.clone();
        closed.extend_from_slice(b"</r>");
        for rules in all_rules() {
            check("repeated", &closed, XmlConfig::default(), &rules);
            check("repeated, unclosed", &doc, XmlConfig::default(), &rules);
        }
    }
}

use crate::xml::lanes::tests::generated_docs;

#[test]
fn the_model_equals_the_tokenizer_on_mutated_documents() {
    let rules = all_rules();
    let mut rng = SmallRng::seed_from_u64(31);
    let mut bases: Vec<Vec<u8>> = EDGE_CASES.iter().map(|c| c.to_vec()).collect();
    bases.extend(generated_docs(11, 40));
    let mut n = 0usize;
    for round in 0..20 {
        for (i, base) in bases.iter().enumerate() {
            let doc = crate::workload::mutate_document(&mut rng, base.clone());
            // Every B, the other choices rotating.
            for b in 0..3 {
                let r = &rules[(n * 7 + b * 8) % rules.len()];
                let config = CONFIGS[(n + b) % CONFIGS.len()];
                check(&format!("round {round}, base {i}"), &doc, config, r);
            }
            n += 1;
        }
    }
    assert!(n > 3000);
}

fn nitf_docs() -> Vec<Vec<u8>> {
    let dir = crate::workload::nitf_dir().join("docs");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

#[test]
fn the_model_equals_the_tokenizer_on_the_nitf_documents() {
    let docs = nitf_docs();
    if docs.is_empty() {
        eprintln!("skipped: no NITF documents");
        return;
    }
    for rules in all_rules() {
        for (i, doc) in docs.iter().enumerate() {
            check(&format!("NITF {i}"), doc, XmlConfig::default(), &rules);
        }
    }
}

// ---- an independent checker of the items ----

/// Per lane: the op, and an id of the name or reference it belongs to
/// (a new one wherever a name or reference starts).
fn runs(doc: &[u8]) -> Vec<(LaneOp, usize)> {
    let mut state = Lex::Start;
    let mut prev_kind = None;
    let mut id = 0;
    let mut out = Vec::new();
    for &b in doc {
        let op = LaneOp::of(state, b);
        let kind = match op {
            LaneOp::StartName => Some(0),
            LaneOp::EndName => Some(1),
            LaneOp::AttrName => Some(2),
            _ => None,
        };
        if kind != prev_kind {
            id += 1;
        }
        prev_kind = kind;
        out.push((op, id));
        state = state.next(b);
    }
    out
}

/// Why the lanes `lanes` (ops and run ids) cannot be one item, if so.
fn violation(lanes: &[(LaneOp, usize)], rules: &ItemRules) -> Option<String> {
    use std::collections::HashSet;
    let ids = |f: &dyn Fn(LaneOp) -> bool| -> usize {
        lanes
            .iter()
            .filter(|(op, _)| f(*op))
            .map(|&(_, id)| id)
            .collect::<HashSet<_>>()
            .len()
    };
    let count = |f: &dyn Fn(LaneOp) -> bool| lanes.iter().filter(|(op, _)| f(*op)).count();
    let stack = count(&|op| matches!(op, LaneOp::Open | LaneOp::Close | LaneOp::Empty));
    let starts = ids(&|op| op == LaneOp::StartName);
    let ends = ids(&|op| op == LaneOp::EndName);
    let attrs = ids(&|op| op == LaneOp::AttrName);
    let serial = count(&|op| matches!(op, LaneOp::Serial(_)));
    let units = count(&|op| match op {
        LaneOp::Unit(u) | LaneOp::Serial(Some(u)) => match u {
            Unit::Value => rules.needs.values,
            Unit::Text => rules.needs.text,
        },
        _ => false,
    });
    let problems = [
        (stack > 1, "two stack events"),
        (starts > 1, "two start names"),
        (ends > 1, "two end names"),
        (starts > 0 && ends > 0, "a start and an end name"),
        (attrs > 1, "two attribute names"),
        (serial > 1, "two serial lanes"),
        (units > 1, "two units"),
    ];
    problems
        .iter()
        .find(|(bad, _)| *bad)
        .map(|(_, why)| why.to_string())
}

/// The items partition every beat into non-empty lane ranges in order,
/// keep every rule, and are greedy (each item but a beat's last would
/// break a rule with the next lane).
fn check_items(doc: &[u8], rules: &ItemRules, items: &[Item]) -> Result<(), String> {
    let w = rules.bytes_per_clock;
    let lanes = runs(doc);
    let mut k = 0;
    for (beat, chunk) in lanes.chunks(w).enumerate() {
        let mut lane = 0;
        while lane < chunk.len() {
            let it = items.get(k).ok_or(format!("beat {beat}: no item"))?;
            if it.beat != beat || it.lo != lane || it.hi <= it.lo || it.hi > chunk.len() {
                return Err(format!(
                    "item {it:?} does not continue beat {beat} at {lane}"
                ));
            }
            if let Some(why) = violation(&chunk[it.lo..it.hi], rules) {
                return Err(format!("item {it:?}: {why}"));
            }
            if it.hi < chunk.len() && violation(&chunk[it.lo..=it.hi], rules).is_none() {
                return Err(format!("item {it:?} could take its next lane"));
            }
            lane = it.hi;
            k += 1;
        }
    }
    if k != items.len() {
        return Err(format!("{} items beyond the document", items.len() - k));
    }
    Ok(())
}

#[test]
fn the_stack_events_are_the_tokenizers_opens_and_closes() {
    struct Count(usize, usize);
    impl Sink for Count {
        fn start_name(&mut self, _: &[u8], _: u32) -> bool {
            false
        }
        fn attr_start(&mut self, _: &[u8]) -> bool {
            false
        }
        fn attr_value(&mut self, _: &[u8]) {}
        fn attr_end(&mut self) {}
        fn open(&mut self) {
            self.0 += 1;
        }
        fn close(&mut self) {
            self.1 += 1;
        }
        fn wants_text(&mut self) -> bool {
            false
        }
        fn text(&mut self, _: &[u8]) {}
        fn text_end(&mut self) {}
    }
    let mut docs = nitf_docs();
    docs.extend(generated_docs(5, 20));
    for doc in docs {
        let mut c = Count(0, 0);
        let ok = crate::xml::tokenizer::tokenize(XmlConfig::default(), &doc, &mut c).is_ok();
        let ops = lane_ops(&doc);
        let n = |o: LaneOp| ops.iter().filter(|&&x| x == o).count();
        if ok {
            assert_eq!(n(LaneOp::Open) + n(LaneOp::Empty), c.0);
            assert_eq!(n(LaneOp::Close) + n(LaneOp::Empty), c.1);
        }
    }
}

#[test]
fn items_ignoring_the_rules_break_the_model() {
    // One item per beat: three name starts in one item, the depth check
    // of the third sees one.
    let doc = b"<a><b><c/></b></a>";
    let config = XmlConfig::with_max_depth(2);
    let whole: Vec<Item> = (0..doc.len().div_ceil(8))
        .map(|beat| Item {
            beat,
            lo: 0,
            hi: (doc.len() - beat * 8).min(8),
        })
        .collect();
    let mut sink = Events::new(Needs::default(), false);
    let wrong = parse_items(doc, config, 8, &whole, &mut sink);
    assert_ne!(wrong, Err(XmlError::TooDeep));
    let rules = ItemRules {
        bytes_per_clock: 8,
        needs: Needs::default(),
        attr_names: false,
    };
    let mut sink = Events::new(Needs::default(), false);
    assert_eq!(
        parse(doc, config, &rules, &mut sink),
        Err(XmlError::TooDeep)
    );
}

// ---- throughput ----

/// Bytes per clock over `docs`.
fn bytes_per_clock(docs: &[Vec<u8>], rules: &ItemRules) -> f64 {
    let bytes: usize = docs.iter().map(Vec::len).sum();
    let clocks: u64 = docs.iter().map(|d| clocks(d, rules)).sum();
    bytes as f64 / clocks.max(1) as f64
}

/// At B = 8 the NITF documents take at least 6.7 bytes per clock in a
/// design without value or text comparisons (6.75 since every item holds
/// at most one attribute name for the duplicate check, `attrs.rs`; 7.0
/// before).
#[test]
fn nitf_sustains_six_point_seven_bytes_per_clock_at_b8() {
    let docs = nitf_docs();
    if docs.is_empty() {
        return;
    }
    let rules = ItemRules {
        bytes_per_clock: 8,
        needs: Needs::default(),
        attr_names: false,
    };
    let rate = bytes_per_clock(&docs, &rules);
    assert!(rate >= 6.7, "{rate:.3} bytes/clock");
}

#[test]
#[ignore]
fn print_bytes_per_clock() {
    let nitf = nitf_docs();
    let worst = vec![b"<a/>".repeat(4096)];
    for (name, docs) in [("NITF", &nitf), ("<a/>*", &worst)] {
        for rules in all_rules() {
            println!(
                "{name:6} B={} values={:5} text={:5} attr_names={:5}: {:.3} bytes/clock",
                rules.bytes_per_clock,
                rules.needs.values,
                rules.needs.text,
                rules.attr_names,
                bytes_per_clock(docs, &rules)
            );
        }
    }
}

/// The splitter's wire formulation ([`start_mask`]) cuts every beat where
/// [`items`] does.
fn check_start_masks(doc: &[u8], rules: &ItemRules) -> Result<(), String> {
    let ops = lane_ops(doc);
    let width = rules.bytes_per_clock;
    let mut expected = vec![0u32; doc.len().div_ceil(width)];
    for it in items(doc, rules) {
        expected[it.beat] |= 1 << it.lo;
    }
    let mut prev = LaneOp::Plain;
    for (beat, lanes) in ops.chunks(width).enumerate() {
        let bits: Vec<PortBits> = lanes
            .iter()
            .map(|&op| {
                let b = PortBits::of(op, prev, rules);
                prev = op;
                b
            })
            .collect();
        let got = start_mask(&bits);
        if got != expected[beat] {
            return Err(format!(
                "beat {beat}: starts {got:#b}, items {:#b}",
                expected[beat]
            ));
        }
    }
    Ok(())
}

#[test]
fn the_splitters_wire_formulation_cuts_where_items_does() {
    let mut docs = nitf_docs();
    docs.extend(generated_docs(0x5917, 400));
    docs.extend(EDGE_CASES.iter().map(|c| c.to_vec()));
    docs.push(
        b"<r>"
            .iter()
            .chain(b"<a/>".repeat(50).iter())
            .copied()
            .collect(),
    );
    docs.push(b"<a x='&amp;&#x41;&lt;'>&gt;&#65;<?p t?><![CDATA[]]]]>x</a>".to_vec());
    for rules in all_rules() {
        for (i, doc) in docs.iter().enumerate() {
            if let Err(e) = check_start_masks(doc, &rules) {
                panic!("document {i}, {rules:?}: {e}");
            }
        }
    }
}
