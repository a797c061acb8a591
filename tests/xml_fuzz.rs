//! Property tests of the tokenizer on arbitrary input: random bytes, random
//! token soups and random mutations of valid documents (from the seeded
//! generator in `tests/xml/docgen.rs`), under small random limits.
//!
//! For every input: no panic; the sink's calling contract holds (checked
//! call by call by `ContractSink`, including depth ≤ `max_depth`); the
//! document ends in exactly one status, stable under repeated `finish`; no
//! event follows the first error; any chunking gives the same trace; and a
//! tokenizer reused after `reset` behaves like a fresh one.

use proptest::prelude::*;
use qrtl_xpath::xml::trace::{trace_document, TraceSink};
use qrtl_xpath::xml::{DocStatus, Sink, Tokenizer, XmlConfig};

#[path = "xml/docgen.rs"]
mod docgen;

/// Checks the `Sink` calling contract as events arrive and answers the
/// "do you want" questions pseudo-randomly (so both paths are exercised).
struct ContractSink {
    max_depth: u32,
    events: usize,
    open: u32,
    roots: u32,
    in_tag: bool,
    attrs_wanted: bool,
    in_attr: bool,
    value_wanted: bool,
    text_open: bool,
    coin: u64,
}

impl ContractSink {
    fn new(max_depth: u32, seed: u64) -> ContractSink {
        ContractSink {
            max_depth,
            events: 0,
            open: 0,
            roots: 0,
            in_tag: false,
            attrs_wanted: false,
            in_attr: false,
            value_wanted: false,
            text_open: false,
            coin: seed | 1,
        }
    }
    fn flip(&mut self) -> bool {
        // xorshift64
        self.coin ^= self.coin << 13;
        self.coin ^= self.coin >> 7;
        self.coin ^= self.coin << 17;
        self.coin & 4 != 0
    }
}

impl Sink for ContractSink {
    fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
        self.events += 1;
        assert!(
            !self.in_tag && !self.text_open,
            "start_name inside a tag or text node"
        );
        assert!(!name.is_empty(), "empty element name");
        assert_eq!(depth, self.open + 1, "start_name depth");
        assert!(
            depth <= self.max_depth,
            "depth {depth} > max_depth {}",
            self.max_depth
        );
        if depth == 1 {
            self.roots += 1;
            assert_eq!(self.roots, 1, "second root element reported");
        }
        self.in_tag = true;
        self.attrs_wanted = self.flip();
        self.attrs_wanted
    }
    fn attr_start(&mut self, name: &[u8]) -> bool {
        self.events += 1;
        assert!(
            self.in_tag && self.attrs_wanted && !self.in_attr,
            "attr_start out of place"
        );
        assert!(!name.is_empty(), "empty attribute name");
        self.in_attr = true;
        self.value_wanted = self.flip();
        self.value_wanted
    }
    fn attr_value(&mut self, chunk: &[u8]) {
        self.events += 1;
        assert!(
            self.in_attr && self.value_wanted,
            "attr_value not asked for"
        );
        assert!(!chunk.is_empty(), "empty attr_value chunk");
    }
    fn attr_end(&mut self) {
        self.events += 1;
        assert!(self.in_attr, "attr_end without attr_start");
        self.in_attr = false;
    }
    fn open(&mut self) {
        self.events += 1;
        assert!(self.in_tag && !self.in_attr, "open out of place");
        self.in_tag = false;
        self.open += 1;
    }
    fn close(&mut self) {
        self.events += 1;
        assert!(
            !self.in_tag && !self.text_open && self.open > 0,
            "close out of place"
        );
        self.open -= 1;
    }
    fn wants_text(&mut self) -> bool {
        self.events += 1;
        assert!(
            !self.in_tag && !self.text_open && self.open > 0,
            "wants_text out of place"
        );
        self.text_open = self.flip();
        self.text_open
    }
    fn text(&mut self, chunk: &[u8]) {
        self.events += 1;
        assert!(self.text_open, "text not asked for");
        assert!(!chunk.is_empty(), "empty text chunk");
    }
    fn text_end(&mut self) {
        self.events += 1;
        assert!(self.text_open, "text_end without a wanted text node");
        self.text_open = false;
    }
}

/// Trace with the document cut at the given points.
fn trace_split(config: XmlConfig, doc: &[u8], cuts: &[usize]) -> String {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c % (doc.len() + 1)).collect();
    cuts.sort_unstable();
    let mut sink = TraceSink::new();
    let mut t = Tokenizer::new(config);
    let mut last = 0;
    for c in cuts.into_iter().chain([doc.len()]) {
        t.feed(&doc[last..c], &mut sink);
        last = c;
    }
    let r = t.finish(&mut sink);
    sink.finish(r);
    sink.out
}

fn check_document(config: XmlConfig, doc: &[u8], cuts: &[usize], seed: u64) {
    // Byte by byte with the contract checker; no event after the first error.
    let mut t = Tokenizer::new(config);
    let mut sink = ContractSink::new(config.max_depth, seed);
    let mut events_at_error = None;
    for b in doc.chunks(1) {
        t.feed(b, &mut sink);
        match (t.error(), events_at_error) {
            (Some(_), None) => events_at_error = Some(sink.events),
            (Some(_), Some(n)) => assert_eq!(sink.events, n, "event after the first error"),
            (None, _) => {}
        }
    }
    let r = t.finish(&mut sink);
    // Exactly one status, stable.
    assert_eq!(t.error(), r.err());
    assert_eq!(t.finish(&mut sink), r);
    match r {
        Ok(()) => {
            assert_eq!(t.status(), DocStatus::Ok);
            assert!(
                !sink.in_tag && !sink.text_open && sink.open == 0,
                "ok but unbalanced"
            );
            assert_eq!(sink.roots, 1, "ok without a root");
        }
        Err(e) => {
            assert_eq!(t.status(), e.error.status());
            assert_ne!(t.status(), DocStatus::Ok);
            assert!(e.offset <= doc.len() as u64);
            assert!(e.line >= 1 && e.col >= 1);
        }
    }
    // Chunking invariance.
    let whole = trace_document(config, doc, 0);
    assert_eq!(
        trace_split(config, doc, cuts),
        whole,
        "chunking changes the trace"
    );
    // Reuse after reset: a previous document leaves nothing behind.
    let mut t2 = Tokenizer::new(config);
    let mut junk = TraceSink::new();
    t2.feed(b"<a b='<", &mut junk);
    t2.reset();
    let mut s2 = TraceSink::new();
    t2.feed(doc, &mut s2);
    let r2 = t2.finish(&mut s2);
    s2.finish(r2);
    assert_eq!(s2.out, whole, "reset leaves state behind");
}

fn config_strategy() -> impl Strategy<Value = XmlConfig> {
    prop_oneof![
        Just(XmlConfig::default()),
        (0u32..6, 0u32..40, 0u32..4, 0u32..6).prop_map(|(d, s, a, l)| XmlConfig {
            max_depth: d,
            name_stack_bytes: s,
            max_attributes: a,
            attr_name_bytes: l,
            namespaces: false,
            ns_limits: None,
        }),
    ]
}

const TOKENS: &[&str] = &[
    "<a>",
    "</a>",
    "<b x='1'>",
    "</b>",
    "<a/>",
    "<c y=\"&lt;\"/>",
    "<!--",
    "-->",
    "-",
    "<![CDATA[",
    "]]>",
    "]",
    "&amp;",
    "&#",
    "&#x",
    "41",
    ";",
    "&",
    "<?p",
    "<?xml",
    "?>",
    "<!DOCTYPE a",
    "[",
    ">",
    "/>",
    "/",
    "'",
    "\"",
    "=",
    "text",
    " ",
    "\r",
    "\n",
    "\r\n",
    "\t",
    "é",
    "\u{FEFF}",
    "<",
    "</",
    "<!",
    "x",
    "\0",
];

fn soup() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|v| v.concat().into_bytes())
}

#[derive(Clone, Debug)]
enum Mutation {
    Insert(usize, u8),
    Delete(usize),
    Replace(usize, u8),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop::sample::select(b"<>/?!-[]&#;x=\"' \r\nD".to_vec());
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(p, b)| Mutation::Insert(p, b)),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), byte).prop_map(|(p, b)| Mutation::Replace(p, b)),
        (any::<usize>(), 1usize..12).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(mut doc: Vec<u8>, ms: &[Mutation]) -> Vec<u8> {
    for m in ms {
        let len = doc.len();
        match *m {
            Mutation::Insert(p, b) => doc.insert(p % (len + 1), b),
            Mutation::Delete(p) if len > 0 => {
                doc.remove(p % len);
            }
            Mutation::Replace(p, b) if len > 0 => doc[p % len] = b,
            Mutation::Duplicate(p, n) if len > 0 => {
                let p = p % len;
                let piece = doc[p..(p + n).min(len)].to_vec();
                doc.splice(p..p, piece);
            }
            Mutation::Truncate(p) => doc.truncate(p % (len + 1)),
            _ => {}
        }
    }
    doc
}

/// 400 cases per property unless `PROPTEST_CASES` says otherwise (a longer
/// soak: `PROPTEST_CASES=100000 cargo test --release -p qrtl --test xml_fuzz`).
fn proptest_config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 400;
    }
    config
}

proptest! {
    #![proptest_config(proptest_config())]

    #[test]
    fn random_bytes(doc in prop::collection::vec(any::<u8>(), 0..120),
                    config in config_strategy(),
                    cuts in prop::collection::vec(any::<usize>(), 0..6),
                    seed in any::<u64>()) {
        check_document(config, &doc, &cuts, seed);
    }

    #[test]
    fn token_soup(doc in soup(),
                  config in config_strategy(),
                  cuts in prop::collection::vec(any::<usize>(), 0..6),
                  seed in any::<u64>()) {
        check_document(config, &doc, &cuts, seed);
    }

    #[test]
    fn mutated_valid_documents(gen_seed in 0u64..100_000,
                               ms in prop::collection::vec(mutation(), 0..4),
                               config in config_strategy(),
                               cuts in prop::collection::vec(any::<usize>(), 0..6),
                               seed in any::<u64>()) {
        let doc = mutate(docgen::Gen::new(gen_seed).document(), &ms);
        check_document(config, &doc, &cuts, seed);
    }

    #[test]
    fn valid_documents_are_ok(gen_seed in 0u64..100_000,
                              cuts in prop::collection::vec(any::<usize>(), 0..6),
                              seed in any::<u64>()) {
        let doc = docgen::Gen::new(gen_seed).document();
        let config = XmlConfig {
            max_depth: 256,
            name_stack_bytes: 1 << 16,
            max_attributes: 1 << 10,
            attr_name_bytes: 1 << 10,
            namespaces: false,
            ns_limits: None,
        };
        check_document(config, &doc, &cuts, seed);
        let t = trace_document(config, &doc, 0);
        prop_assert!(t.ends_with("status ok\n"), "valid document flagged: {}", t);
    }
}
