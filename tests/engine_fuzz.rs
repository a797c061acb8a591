//! Property tests: no input makes the engine panic, and results do not
//! depend on how a document is cut into chunks.

mod common;

use common::design_from_text;
use proptest::prelude::*;
use qrtl_xpath::ir::xpath::{Mode, SiblingOrder};
use qrtl_xpath::refmodel::{DocResult, Engine, EngineConfig};
use qrtl_xpath::xml::XmlConfig;

const QUERIES: &str = r#"//a
/r/a[b]/c
//a[.//b[c]][@x=1]//d
//*[@x!="2"][2]
//b[text()="t" and @y]
/r/*[position()<3]//c[1]
//a[b and c/d]/e[text()=5]
"#;

fn engines() -> Vec<Engine> {
    let config = EngineConfig {
        xml: XmlConfig::with_max_depth(8),
        cache_words: 256,
    };
    let mut out = Vec::new();
    for mode in [Mode::Holistic, Mode::Paths, Mode::Pairs] {
        let d = design_from_text("fuzz", QUERIES, mode);
        out.push(Engine::new(&d, config));
    }
    let mut d = design_from_text("fuzz", QUERIES, Mode::Holistic);
    d.order = SiblingOrder::Ordered;
    out.push(Engine::new(&d, config));
    out
}

fn chunked(e: &mut Engine, doc: &[u8], cuts: &[usize]) -> DocResult {
    e.begin();
    let mut at = 0;
    for &c in cuts {
        let c = c.min(doc.len()).max(at);
        e.feed(&doc[at..c]);
        at = c;
    }
    e.feed(&doc[at..]);
    e.end()
}

/// Pieces that make almost-XML when concatenated at random.
fn xmlish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"<r>".to_vec()),
        Just(b"</r>".to_vec()),
        Just(b"<a x=\"1\">".to_vec()),
        Just(b"<a x='2' y=\"/>\">".to_vec()),
        Just(b"</a>".to_vec()),
        Just(b"<b>".to_vec()),
        Just(b"</b>".to_vec()),
        Just(b"<c/>".to_vec()),
        Just(b"<d/>".to_vec()),
        Just(b"<e>5</e>".to_vec()),
        Just(b"t".to_vec()),
        Just(b"&amp;".to_vec()),
        Just(b"&#x41;".to_vec()),
        Just(b"<!-- c -->".to_vec()),
        Just(b"<![CDATA[x<y]]>".to_vec()),
        Just(b"<?pi x?>".to_vec()),
        Just(b"<!DOCTYPE r>".to_vec()),
        prop::collection::vec(any::<u8>(), 0..4),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(doc in prop::collection::vec(any::<u8>(), 0..300)) {
        for e in &mut engines() {
            let r = e.filter(&doc);
            prop_assert!(r.matched.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn chunking_does_not_change_results(doc in xmlish(), mut cuts in prop::collection::vec(0usize..400, 0..6)) {
        cuts.sort_unstable();
        for e in &mut engines() {
            let whole = e.filter(&doc);
            let parts = chunked(e, &doc, &cuts);
            prop_assert_eq!(&whole, &parts, "doc {:?}", String::from_utf8_lossy(&doc));
            // And the engine is reusable: the next document is unaffected.
            let again = e.filter(&doc);
            prop_assert_eq!(&whole, &again);
        }
    }
}
