//! The lexer and the drop rule against the tokenizer: a document and its
//! kept bytes give the same events (as far as the design reads them), the
//! same status and the same reason.

use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::*;
use crate::xml::{Sink, Tokenizer, XmlConfig};

/// The events a design reads: names and structure always, values and
/// character data when it compares them.
struct Events {
    needs: Needs,
    out: Vec<String>,
}

impl Sink for Events {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        self.out
            .push(format!("start {} @{depth}", String::from_utf8_lossy(name)));
        true
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.out
            .push(format!("attr {}", String::from_utf8_lossy(name)));
        true
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        if self.needs.values {
            // Merge chunks: the tokenizer cuts them where its scans stop.
            let s = String::from_utf8_lossy(chunk).into_owned();
            match self.out.last_mut() {
                Some(last) if last.starts_with("value ") => last.push_str(&s),
                _ => self.out.push(format!("value {s}")),
            }
        }
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
        self.needs.text
    }
    fn text(&mut self, chunk: &[u8]) {
        let s = String::from_utf8_lossy(chunk).into_owned();
        match self.out.last_mut() {
            Some(last) if last.starts_with("text ") => last.push_str(&s),
            _ => self.out.push(format!("text {s}")),
        }
    }
    fn text_end(&mut self) {
        self.out.push("text_end".into());
    }
}

fn events(doc: &[u8], needs: Needs, config: XmlConfig) -> Vec<String> {
    let mut sink = Events {
        needs,
        out: Vec::new(),
    };
    let mut t = Tokenizer::new(config);
    t.feed(doc, &mut sink);
    let status = match t.finish(&mut sink) {
        Ok(()) => "status ok".to_string(),
        Err(e) => format!("status {:?}", e.error),
    };
    sink.out.push(status);
    sink.out
}

const ALL_NEEDS: [Needs; 4] = Needs::ALL;

/// Check one document under every combination of needs; returns the kept
/// fraction with no needs.
fn check(label: &str, doc: &[u8], config: XmlConfig) -> f64 {
    let mut kept_fraction = 1.0;
    for needs in ALL_NEEDS {
        let kept = compact(doc, needs);
        assert_eq!(
            events(doc, needs, config),
            events(&kept, needs, config),
            "{label}: needs {needs:?}: events differ\n  document: {:?}\n  kept:     {:?}",
            String::from_utf8_lossy(doc),
            String::from_utf8_lossy(&kept)
        );
        if needs == Needs::default() && !doc.is_empty() {
            kept_fraction = kept.len() as f64 / doc.len() as f64;
        }
    }
    kept_fraction
}

#[test]
fn table_rows_are_in_state_order() {
    for (i, row) in TABLE.iter().enumerate() {
        assert_eq!(row.state.index(), i, "row {i} is {:?}", row.state);
    }
}

const EDGE_CASES: &[&str] = &[
    "",
    "<a/>",
    "  <a/>  ",
    "<a>hello world</a>",
    "<a>  x  y </a>",
    "<a/> x",
    "<a/>\n\n x",
    "x<a/>",
    "<a>]]></a>",
    "<a>]a]></a>",
    "<a>]ab]></a>",
    "<a>]] ></a>",
    "<a>x]]]></a>",
    "<a>]</a>]]>",
    "<a><![CDATA[ab]]c]]]]></a>",
    "<a><![CDATA[x]]></a>",
    "<![CDATA[x]]><a/>",
    "<a><![CDAT[x]]></a>",
    "<?xml version=\"1.0\"?><a/>",
    " <?xml version=\"1.0\"?><a/>",
    "\u{FEFF}<?xml version=\"1.0\"?><a/>",
    "\u{FEFF} <a/>",
    "<a/><?xml x?>",
    "<?XmL?><a/>",
    "<?pi body ? still?><a/>",
    "<?pi?><a/>",
    "<??><a/>",
    "<!-- a - b -- c --><a/>",
    "<!-- ok --><a/><!-- x -- >",
    "<!DOCTYPE a SYSTEM \"x>y\" 'p\"q'><a/>",
    "<!DOCTYPE a [ <!ENTITY x 'y'> ]><a/>",
    "<!DOCTYPEa><a/>",
    "<a/><!DOCTYPE a>",
    "<a x='1' y = \"2\"  z\t=\n'3'/>",
    "<a x=\"1\"y=\"2\"/>",
    "<a x=\"1<\"/>",
    "<a x=1/>",
    "<a x/>",
    "<a x=\"&amp;&#65;&#x41;\"/>",
    "<a x=\"&bogus;\"/>",
    "<a>&lt;&gt;&amp;&apos;&quot;&#1114111;&#1114112;</a>",
    "<a>&#xD800;</a>",
    "<a>&</a>",
    "&amp;<a/>",
    "<a><b></a></b>",
    "<a></a  >",
    "<a></ a>",
    "</a>",
    "<a><b/><c>t</c>\r\n\r<d x='\r\n\t'/></a>",
    "<a/><b/>",
    "<a",
    "<a x=\"1",
    "<a>text",
    "<a><!--",
    "<a>&#12",
];

#[test]
fn drop_rule_keeps_events_and_status_on_edge_cases() {
    let config = XmlConfig::default();
    for (i, case) in EDGE_CASES.iter().enumerate() {
        check(&format!("edge case {i}"), case.as_bytes(), config);
    }
}

/// `count` generated NITF-like documents of 200–3000 bytes (also the item
/// model's tests).
pub(crate) fn generated_docs(seed: u64, count: usize) -> Vec<Vec<u8>> {
    use crate::workload::{DocGen, DocGenConfig, Vocab};
    let cfg = DocGenConfig {
        seed,
        doc_bytes: (200, 3000),
        ..DocGenConfig::default()
    };
    let mut gen = DocGen::new(Vocab::nitf(), cfg);
    (0..count).map(|_| gen.next_doc()).collect()
}

#[test]
fn drop_rule_keeps_events_and_status_on_mutated_documents() {
    let config = XmlConfig::with_max_depth(6);
    let mut rng = SmallRng::seed_from_u64(26);
    let mut bases: Vec<Vec<u8>> = EDGE_CASES.iter().map(|c| c.as_bytes().to_vec()).collect();
    bases.extend(generated_docs(7, 40));
    for round in 0..40 {
        for (i, base) in bases.iter().enumerate() {
            let doc = crate::workload::mutate_document(&mut rng, base.clone());
            check(&format!("round {round}, base {i}"), &doc, config);
        }
    }
}

#[test]
fn drop_rule_keeps_events_and_status_on_the_nitf_documents() {
    let dir = crate::workload::nitf_dir().join("docs");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: no NITF documents at {}", dir.display());
        return;
    };
    let (mut kept, mut total) = (0.0, 0usize);
    for e in entries {
        let path = e.expect("dir entry").path();
        let doc = std::fs::read(&path).expect("read NITF document");
        kept += check(&path.display().to_string(), &doc, XmlConfig::default()) * doc.len() as f64;
        total += doc.len();
    }
    assert!(total > 0);
    eprintln!(
        "NITF: {:.1}% of the bytes kept with no comparisons",
        100.0 * kept / total as f64
    );
}

#[test]
fn a_documents_last_byte_is_always_kept() {
    for needs in ALL_NEEDS {
        for doc in ["<a/>  ", "<a>xyz", "<a><!-- abc", "<a x='abc"] {
            let kept = compact(doc.as_bytes(), needs);
            assert_eq!(kept.last(), doc.as_bytes().last(), "{doc:?}");
        }
    }
}
