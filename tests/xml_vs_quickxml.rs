//! Cross-check of the tokenizer against quick-xml, an independent parser:
//! seeded random *valid* documents (every construct of SPEC §3.2) and the
//! YFilter NITF documents in `../shared/data/yfilter-nitf/docs/` must give
//! the same normalised event stream: start name + attributes with decoded
//! values, one merged text per text node, end.
//!
//! quick-xml 0.37 reports text and CDATA as separate events and performs no
//! line-end or attribute-value normalisation, so its side merges adjacent
//! text/CDATA events (comments and PIs split text nodes, as in XPath's data
//! model) and normalises the *raw* text (CRLF, CR → LF) and attribute values
//! (CRLF, CR, LF, tab → space) before unescaping them; references such as
//! `&#13;` are thus left alone on both sides.
//!
//! Generated documents avoid what quick-xml does not handle like an XML
//! parser (a `>` inside a quoted DOCTYPE literal ends its DOCTYPE).

use std::fmt::Write as _;

use qrtl_xpath::xml::trace::escape;
use qrtl_xpath::xml::{Sink, Tokenizer, XmlConfig};
use quick_xml::events::Event;
use quick_xml::Reader;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

// ------------------------------------------------------------ event streams

/// Renders events as lines; both sides produce the same format.
#[derive(Default)]
struct Stream {
    out: String,
}

impl Stream {
    fn start(&mut self, name: &[u8]) {
        let _ = write!(self.out, "<{}", escape(name));
    }
    fn attr(&mut self, name: &[u8], value: &[u8]) {
        let _ = write!(self.out, " {}=\"{}\"", escape(name), escape(value));
    }
    fn open(&mut self) {
        self.out.push_str(">\n");
    }
    fn end(&mut self) {
        self.out.push_str("</>\n");
    }
    fn text(&mut self, t: &[u8]) {
        let _ = writeln!(self.out, "text \"{}\"", escape(t));
    }
}

/// Our side.
#[derive(Default)]
struct OurSink {
    s: Stream,
    attr_name: Vec<u8>,
    value: Vec<u8>,
    text: Vec<u8>,
    max_depth: u32,
}

impl Sink for OurSink {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        self.max_depth = self.max_depth.max(depth);
        self.s.start(name);
        true
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.attr_name.clear();
        self.attr_name.extend_from_slice(name);
        self.value.clear();
        true
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        self.value.extend_from_slice(chunk);
    }
    fn attr_end(&mut self) {
        self.s.attr(&self.attr_name, &self.value);
    }
    fn open(&mut self) {
        self.s.open();
    }
    fn close(&mut self) {
        self.s.end();
    }
    fn wants_text(&mut self) -> bool {
        self.text.clear();
        true
    }
    fn text(&mut self, chunk: &[u8]) {
        self.text.extend_from_slice(chunk);
    }
    fn text_end(&mut self) {
        self.s.text(&self.text);
    }
}

fn ours(doc: &[u8], chunks: &[usize]) -> Result<String, String> {
    let config = XmlConfig {
        max_depth: 256,
        name_stack_bytes: 1 << 16,
        max_attributes: 1 << 10,
        attr_name_bytes: 1 << 10,
        namespaces: false,
        ns_limits: None,
    };
    let mut t = Tokenizer::new(config);
    let mut sink = OurSink::default();
    let mut rest = doc;
    let mut k = 0;
    while !rest.is_empty() {
        let n = chunks
            .get(k)
            .copied()
            .unwrap_or(rest.len())
            .clamp(1, rest.len());
        t.feed(&rest[..n], &mut sink);
        rest = &rest[n..];
        k += 1;
    }
    match t.finish(&mut sink) {
        Ok(()) => Ok(sink.s.out),
        Err(e) => Err(format!("{e:?} after\n{}", sink.s.out)),
    }
}

/// CRLF and lone CR → LF (XML line-end handling), on raw bytes.
fn eol(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\r' {
            out.push(b'\n');
            if raw.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
        } else {
            out.push(raw[i]);
        }
        i += 1;
    }
    out
}

fn unescape(raw: &[u8]) -> Result<Vec<u8>, String> {
    let s = std::str::from_utf8(raw).map_err(|e| e.to_string())?;
    quick_xml::escape::unescape(s)
        .map(|c| c.into_owned().into_bytes())
        .map_err(|e| e.to_string())
}

/// quick-xml's side.
fn theirs(doc: &[u8]) -> Result<String, String> {
    let mut reader = Reader::from_reader(doc);
    reader.config_mut().trim_text(false);
    let mut buf = Vec::new();
    let mut s = Stream::default();
    let mut depth = 0u32;
    let mut text: Option<Vec<u8>> = None;
    let flush = |s: &mut Stream, text: &mut Option<Vec<u8>>| {
        if let Some(t) = text.take() {
            if !t.is_empty() {
                s.text(&t);
            }
        }
    };
    loop {
        let ev = reader
            .read_event_into(&mut buf)
            .map_err(|e| e.to_string())?;
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                flush(&mut s, &mut text);
                s.start(e.name().as_ref());
                for a in e.attributes() {
                    let a = a.map_err(|e| e.to_string())?;
                    // Attribute-value normalisation of literal whitespace.
                    let norm: Vec<u8> = eol(&a.value)
                        .into_iter()
                        .map(|b| if b == b'\n' || b == b'\t' { b' ' } else { b })
                        .collect();
                    s.attr(a.key.as_ref(), &unescape(&norm)?);
                }
                s.open();
                if matches!(ev, Event::Empty(_)) {
                    s.end();
                } else {
                    depth += 1;
                }
            }
            Event::End(_) => {
                flush(&mut s, &mut text);
                s.end();
                depth = depth.saturating_sub(1);
            }
            Event::Text(t) => {
                if depth > 0 {
                    let raw = t.into_inner();
                    text.get_or_insert_with(Vec::new)
                        .extend(unescape(&eol(&raw))?);
                }
            }
            Event::CData(c) => {
                if depth > 0 {
                    let raw = c.into_inner();
                    text.get_or_insert_with(Vec::new).extend(eol(&raw));
                }
            }
            Event::Comment(_) | Event::PI(_) => flush(&mut s, &mut text),
            Event::Decl(_) | Event::DocType(_) => {}
            Event::Eof => break,
        }
        buf.clear();
    }
    Ok(s.out)
}

fn compare(what: &str, doc: &[u8], chunks: &[usize]) {
    let a = ours(doc, &[]);
    let b = theirs(doc);
    let shown = || String::from_utf8_lossy(doc).into_owned();
    match (&a, &b) {
        (Ok(a), Ok(b)) if a == b => {}
        (Ok(a), Ok(b)) => panic!(
            "{what}: event streams differ (left: qrtl, right: quick-xml)\n{}\ndocument:\n{}",
            pretty_assertions::StrComparison::new(a, b),
            shown()
        ),
        _ => panic!(
            "{what}: qrtl {a:?}\nquick-xml {b:?}\ndocument:\n{}",
            shown()
        ),
    }
    let c = ours(doc, chunks);
    assert_eq!(c, a, "{what}: chunking {chunks:?} changes the events");
}

#[path = "xml/docgen.rs"]
mod docgen;
use docgen::Gen;

fn random_chunks(rng: &mut SmallRng) -> Vec<usize> {
    (0..64).map(|_| rng.gen_range(1..9)).collect()
}

#[test]
fn random_valid_documents_agree_with_quick_xml() {
    let mut sizes = SmallRng::seed_from_u64(7);
    for seed in 0..2000u64 {
        let doc = Gen::new(seed).document();
        let chunks = random_chunks(&mut sizes);
        compare(&format!("seed {seed}"), &doc, &chunks);
    }
}

#[test]
fn nitf_documents_agree_with_quick_xml() {
    let dir = qrtl_xpath::workload::nitf_dir().join("docs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no NITF documents in {}", dir.display());
    let mut sizes = SmallRng::seed_from_u64(11);
    for f in &files {
        let doc = std::fs::read(f).expect("read document");
        let chunks = random_chunks(&mut sizes);
        compare(&f.display().to_string(), &doc, &chunks);
    }
}

/// The comparison itself must be able to fail.
#[test]
fn comparison_detects_differences() {
    let a = ours(b"<a x='1'>t<![CDATA[u]]>v<!--c-->w</a>", &[]).unwrap();
    let b = theirs(b"<a x='1'>t<![CDATA[u]]>v<!--c-->w</a>").unwrap();
    assert_eq!(a, b);
    assert_eq!(a, "<a x=\"1\">\ntext \"tuv\"\ntext \"w\"\n</>\n");
    let c = theirs(b"<a x='2'>tuv<!--c-->w</a>").unwrap();
    assert_ne!(a, c);
}
