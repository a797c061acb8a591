//! Unit tests of the tokenizer: event traces for every construct, every
//! error variant from a minimal document, reuse after `reset`, and chunking
//! invariance. The trace format is the one of [`super::trace`].

use super::tokenizer::tokenize;
use super::trace::{trace_document, trace_with, TraceSink};
use super::{DocStatus, Sink, Tokenizer, XmlConfig, XmlError};

/// Trace of `doc` fed whole; asserts that every chunk size gives the same
/// trace and that a sink wanting nothing gets the same status.
fn trace_cfg(config: XmlConfig, doc: &[u8]) -> String {
    let whole = trace_document(config, doc, 0);
    for chunk in 1..=doc.len().max(1) {
        let t = trace_document(config, doc, chunk);
        assert_eq!(
            t,
            whole,
            "chunk size {chunk} differs for {:?}",
            String::from_utf8_lossy(doc)
        );
    }
    let mut quiet = TraceSink::new();
    quiet.want_attrs = false;
    quiet.want_text = false;
    trace_with(config, doc, 0, &mut quiet);
    let status = |t: &str| t.lines().last().unwrap_or("").to_string();
    assert_eq!(
        status(&quiet.out),
        status(&whole),
        "status depends on what the sink wants"
    );
    whole
}

fn check_cfg(config: XmlConfig, doc: &str, expected: &str) {
    let got = trace_cfg(config, doc.as_bytes());
    let expected: String = expected
        .lines()
        .map(|l| format!("{}\n", l.trim()))
        .collect();
    let expected = expected.trim_start().to_string();
    assert_eq!(
        got, expected,
        "\n--- got ---\n{got}--- expected ---\n{expected}"
    );
}

fn check(doc: &str, expected: &str) {
    check_cfg(XmlConfig::default(), doc, expected);
}

/// Only the status line.
fn status_cfg(config: XmlConfig, doc: &[u8]) -> String {
    let t = trace_cfg(config, doc);
    t.lines().last().unwrap_or("").to_string()
}

fn status(doc: &str) -> String {
    status_cfg(XmlConfig::default(), doc.as_bytes())
}

// ---------------------------------------------------------------- constructs

#[test]
fn empty_element_and_self_closing() {
    check(
        "<a></a>",
        "start a @1
         open
         close
         status ok",
    );
    check(
        "<a/>",
        "start a @1
         open
         close
         status ok",
    );
    check(
        "<a x=\"1\"/>",
        "start a @1
         attr x=\"1\"
         open
         close
         status ok",
    );
}

#[test]
fn nested_elements_text_and_depths() {
    check(
        "<r><a>hi</a> <b/>x</r>",
        "start r @1
         open
         start a @2
         open
         text \"hi\"
         close
         text \" \"
         start b @2
         open
         close
         text \"x\"
         close
         status ok",
    );
}

#[test]
fn attributes_quotes_whitespace_and_special_bytes() {
    check(
        "<a  x = '1>2/3' y=\"it's\"\tz='say \"hi\"' ><b\nc=\"\"/></a >",
        "start a @1
         attr x=\"1>2/3\"
         attr y=\"it's\"
         attr z=\"say \\\"hi\\\"\"
         open
         start b @2
         attr c=\"\"
         open
         close
         close
         status ok",
    );
}

#[test]
fn attribute_value_normalisation() {
    // Literal tab, LF, CR and CRLF become one space each; references don't.
    check(
        "<a v=\"1\t2\n3\r4\r\n5&#10;6&#9;7&#13;\"/>",
        "start a @1
         attr v=\"1 2 3 4 5\\n6\\t7\\r\"
         open
         close
         status ok",
    );
}

#[test]
fn references_in_text_and_attributes() {
    check(
        "<a t=\"&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#xe9;&#x1F600;\">&lt;b&gt; &#0065;&#X;</a>",
        "start a @1
         attr t=\"<>&'\\\"ABé😀\"
         open
         text-cut \"<b> A\"
         status malformed BadReference at 1:79 offset 78",
    );
    check(
        "<a>x&amp;y&#x10FFFF;</a>",
        "start a @1
         open
         text \"x&y\u{10FFFF}\"
         close
         status ok",
    );
}

#[test]
fn line_endings_in_text() {
    check(
        "<a>1\r\n2\r3\n4\r</a>",
        "start a @1
         open
         text \"1\\n2\\n3\\n4\\n\"
         close
         status ok",
    );
    // A CR then a reference or CDATA: no LF is swallowed.
    check(
        "<a>\r&#10;\r<![CDATA[\n]]>\r</a>",
        "start a @1
         open
         text \"\\n\\n\\n\\n\\n\"
         close
         status ok",
    );
}

#[test]
fn cdata_is_part_of_the_text_node() {
    check(
        "<a>x<![CDATA[<b>&amp;]] ]>]]]]>y</a>",
        "start a @1
         open
         text \"x<b>&amp;]] ]>]]y\"
         close
         status ok",
    );
    // An empty CDATA section alone starts no text node.
    check(
        "<a><![CDATA[]]></a>",
        "start a @1
         open
         close
         status ok",
    );
    check(
        "<a><![CDATA[]]>z</a>",
        "start a @1
         open
         text \"z\"
         close
         status ok",
    );
}

#[test]
fn comments_and_pis_split_text_nodes() {
    check(
        "<a>1<!-- c -->2<?p x?>3<!---->4<?q?>5</a>",
        "start a @1
         open
         text \"1\"
         text \"2\"
         text \"3\"
         text \"4\"
         text \"5\"
         close
         status ok",
    );
    check(
        "<a><!-- - -><- --></a>",
        "start a @1
         open
         close
         status ok",
    );
}

#[test]
fn prolog_and_epilog() {
    check(
        "<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE a SYSTEM \"a>[b].dtd\">\n<?pi?>\n<a/>\n<!-- after -->\n<?pi after?>\n",
        "start a @1
         open
         close
         status ok",
    );
    check(
        "\u{FEFF}<?xml version='1.0'?><a/>",
        "start a @1
         open
         close
         status ok",
    );
    check(
        "<!DOCTYPE a PUBLIC '-//x//(y)//EN' \"q'[\"><?xml-stylesheet href='s'?><a/>",
        "start a @1
         open
         close
         status ok",
    );
}

#[test]
fn whitespace_only_text_nodes_inside_root_only() {
    check(
        " \n<a>\n <b/>\n</a>\n ",
        "start a @1
         open
         text \"\\n \"
         start b @2
         open
         close
         text \"\\n\"
         close
         status ok",
    );
}

#[test]
fn names_are_raw_bytes() {
    check(
        "<ns:é-1.x _a:b='1'></ns:é-1.x>",
        "start ns:é-1.x @1
         attr _a:b=\"1\"
         open
         close
         status ok",
    );
}

#[test]
fn brackets_and_gt_in_text() {
    check(
        "<a>] ]] > ]>]]&gt;</a>",
        "start a @1
         open
         text \"] ]] > ]>]]>\"
         close
         status ok",
    );
}

#[test]
fn sink_choices_are_respected() {
    // Attributes not requested, text not requested.
    let mut s = TraceSink::new();
    s.want_attrs = false;
    s.want_text = false;
    trace_with(
        XmlConfig::default(),
        b"<a x='1'>t<b y='&lt;'/>u</a>",
        0,
        &mut s,
    );
    assert_eq!(
        s.out,
        "start a @1\nopen\nstart b @2\nopen\nclose\nclose\nstatus ok\n"
    );

    // A sink that wants one attribute only and records every call.
    #[derive(Default)]
    struct Picky(Vec<String>);
    impl Sink for Picky {
        fn start_name(&mut self, name: &[u8], depth: u32) -> bool {
            self.0
                .push(format!("start {} {depth}", String::from_utf8_lossy(name)));
            name == b"a"
        }
        fn attr_start(&mut self, name: &[u8]) -> bool {
            self.0
                .push(format!("attr {}", String::from_utf8_lossy(name)));
            name == b"y"
        }
        fn attr_value(&mut self, chunk: &[u8]) {
            self.0
                .push(format!("value {}", String::from_utf8_lossy(chunk)));
        }
        fn attr_end(&mut self) {
            self.0.push("attr_end".into());
        }
        fn open(&mut self) {
            self.0.push("open".into());
        }
        fn close(&mut self) {
            self.0.push("close".into());
        }
        fn wants_text(&mut self) -> bool {
            self.0.push("wants_text".into());
            false
        }
        fn text(&mut self, _: &[u8]) {
            self.0.push("text".into());
        }
        fn text_end(&mut self) {
            self.0.push("text_end".into());
        }
    }
    let mut p = Picky::default();
    tokenize(
        XmlConfig::default(),
        b"<a x='1' y='2'>t&amp;<b z='3'/> </a>",
        &mut p,
    )
    .unwrap();
    assert_eq!(
        p.0,
        [
            "start a 1",
            "attr x",
            "attr_end",
            "attr y",
            "value 2",
            "attr_end",
            "open",
            "wants_text",
            "start b 2",
            "open",
            "close",
            "wants_text",
            "close"
        ]
    );
}

// ---------------------------------------------------------------- errors

#[test]
fn every_error_variant() {
    let small = XmlConfig {
        max_depth: 2,
        name_stack_bytes: 4,
        ..XmlConfig::default()
    };
    let attrs = XmlConfig {
        max_attributes: 2,
        attr_name_bytes: 3,
        ..XmlConfig::default()
    };
    let cases: &[(XmlConfig, &str, XmlError, u64)] = &[
        (
            XmlConfig::default(),
            "<a></b>",
            XmlError::MismatchedClose,
            5,
        ),
        (
            XmlConfig::default(),
            "<ab></a>",
            XmlError::MismatchedClose,
            7,
        ),
        (
            XmlConfig::default(),
            "<a></ab>",
            XmlError::MismatchedClose,
            6,
        ),
        (XmlConfig::default(), "</a>", XmlError::CloseWithoutOpen, 1),
        (
            XmlConfig::default(),
            "<a/></a>",
            XmlError::CloseWithoutOpen,
            5,
        ),
        (XmlConfig::default(), "<a", XmlError::UnterminatedMarkup, 2),
        (
            XmlConfig::default(),
            "<a><!-- x",
            XmlError::UnterminatedMarkup,
            9,
        ),
        (
            XmlConfig::default(),
            "<a>&am",
            XmlError::UnterminatedMarkup,
            6,
        ),
        (
            XmlConfig::default(),
            "<a><![CDATA[x]]",
            XmlError::UnterminatedMarkup,
            15,
        ),
        (
            XmlConfig::default(),
            "<?pi x",
            XmlError::UnterminatedMarkup,
            6,
        ),
        (
            XmlConfig::default(),
            "<!DOCTYPE a SYSTEM 'x>",
            XmlError::UnterminatedMarkup,
            22,
        ),
        (XmlConfig::default(), "<a>", XmlError::UnclosedElement, 3),
        (
            XmlConfig::default(),
            "<a><b/>text",
            XmlError::UnclosedElement,
            11,
        ),
        (
            XmlConfig::default(),
            "<!DOCTYPE a [<!ENTITY x 'y'>]><a/>",
            XmlError::DoctypeInternalSubset,
            12,
        ),
        (
            XmlConfig::default(),
            "<a/><!DOCTYPE a>",
            XmlError::MisplacedDoctype,
            6,
        ),
        (
            XmlConfig::default(),
            "<!DOCTYPE a><!DOCTYPE a><a/>",
            XmlError::MisplacedDoctype,
            14,
        ),
        (
            XmlConfig::default(),
            "<a><!DOCTYPE a></a>",
            XmlError::MisplacedDoctype,
            5,
        ),
        (XmlConfig::default(), "<a/><b/>", XmlError::MultipleRoots, 5),
        (XmlConfig::default(), "", XmlError::NoRootElement, 0),
        (
            XmlConfig::default(),
            " <!-- c --> ",
            XmlError::NoRootElement,
            12,
        ),
        (
            XmlConfig::default(),
            "x<a/>",
            XmlError::ContentOutsideRoot,
            0,
        ),
        (
            XmlConfig::default(),
            "<a/>x",
            XmlError::ContentOutsideRoot,
            4,
        ),
        (
            XmlConfig::default(),
            "<a/>&amp;",
            XmlError::ContentOutsideRoot,
            4,
        ),
        (
            XmlConfig::default(),
            "<![CDATA[x]]><a/>",
            XmlError::ContentOutsideRoot,
            2,
        ),
        (
            XmlConfig::default(),
            "<a><1/></a>",
            XmlError::UnexpectedByte,
            4,
        ),
        (XmlConfig::default(), "< a/>", XmlError::UnexpectedByte, 1),
        (
            XmlConfig::default(),
            "<a></ a>",
            XmlError::UnexpectedByte,
            5,
        ),
        (
            XmlConfig::default(),
            "<a x='1'/ >",
            XmlError::UnexpectedByte,
            9,
        ),
        (
            XmlConfig::default(),
            "<!-x--><a/>",
            XmlError::UnexpectedByte,
            3,
        ),
        (
            XmlConfig::default(),
            "<a><![CDATX[x]]></a>",
            XmlError::UnexpectedByte,
            10,
        ),
        (
            XmlConfig::default(),
            "<!DOCTYPEa><a/>",
            XmlError::UnexpectedByte,
            9,
        ),
        (
            XmlConfig::default(),
            "<? x?><a/>",
            XmlError::UnexpectedByte,
            2,
        ),
        (
            XmlConfig::default(),
            " <?xml version='1.0'?><a/>",
            XmlError::MisplacedXmlDecl,
            6,
        ),
        (
            XmlConfig::default(),
            "<a><?xml ?></a>",
            XmlError::MisplacedXmlDecl,
            8,
        ),
        (
            XmlConfig::default(),
            "<?XML ?><a/>",
            XmlError::MisplacedXmlDecl,
            5,
        ),
        (XmlConfig::default(), "<a x>", XmlError::BadAttribute, 4),
        (XmlConfig::default(), "<a x=1>", XmlError::BadAttribute, 5),
        (XmlConfig::default(), "<a x='<'>", XmlError::BadAttribute, 6),
        (
            XmlConfig::default(),
            "<a x='1'y='2'/>",
            XmlError::BadAttribute,
            8,
        ),
        (
            XmlConfig::default(),
            "<a x y='2'/>",
            XmlError::BadAttribute,
            5,
        ),
        (
            XmlConfig::default(),
            "<a>&foo;</a>",
            XmlError::BadReference,
            7,
        ),
        (
            XmlConfig::default(),
            "<a>&quote;</a>",
            XmlError::BadReference,
            8,
        ),
        (XmlConfig::default(), "<a>&;</a>", XmlError::BadReference, 4),
        (
            XmlConfig::default(),
            "<a>&lt </a>",
            XmlError::BadReference,
            6,
        ),
        (
            XmlConfig::default(),
            "<a>&#0;</a>",
            XmlError::BadReference,
            6,
        ),
        (
            XmlConfig::default(),
            "<a>&#1;</a>",
            XmlError::BadReference,
            6,
        ),
        (
            XmlConfig::default(),
            "<a>&#xD800;</a>",
            XmlError::BadReference,
            10,
        ),
        (
            XmlConfig::default(),
            "<a>&#xFFFE;</a>",
            XmlError::BadReference,
            10,
        ),
        (
            XmlConfig::default(),
            "<a>&#1114112;</a>",
            XmlError::BadReference,
            11,
        ),
        (
            XmlConfig::default(),
            "<a>&#x110000;</a>",
            XmlError::BadReference,
            11,
        ),
        (
            XmlConfig::default(),
            "<a>&#x;</a>",
            XmlError::BadReference,
            6,
        ),
        (
            XmlConfig::default(),
            "<a>&#-1;</a>",
            XmlError::BadReference,
            5,
        ),
        (
            XmlConfig::default(),
            "<a x='&bogus;'/>",
            XmlError::BadReference,
            11,
        ),
        (
            XmlConfig::default(),
            "<a><!-- a -- b --></a>",
            XmlError::DoubleHyphenInComment,
            12,
        ),
        (
            XmlConfig::default(),
            "<a><!-- a ---></a>",
            XmlError::DoubleHyphenInComment,
            12,
        ),
        (
            XmlConfig::default(),
            "<a>]]></a>",
            XmlError::CdataEndInText,
            5,
        ),
        (
            XmlConfig::default(),
            "<a>x]]]></a>",
            XmlError::CdataEndInText,
            7,
        ),
        (
            XmlConfig::default(),
            "<a>x\u{C}</a>",
            XmlError::InvalidChar,
            4,
        ),
        (
            XmlConfig::default(),
            "<a>\u{FFFF}</a>",
            XmlError::InvalidChar,
            5,
        ),
        (
            XmlConfig::default(),
            "<\0a\0/\0>\0",
            XmlError::UnsupportedEncoding,
            1,
        ),
        (
            XmlConfig::default(),
            "<?xml version='1.0' standalone='YES'?><a/>",
            XmlError::BadXmlDecl,
            32,
        ),
        (
            XmlConfig::default(),
            "<?xml version='1.0' encoding='UTF-16'?><a/>",
            XmlError::UnsupportedEncoding,
            36,
        ),
        (
            XmlConfig::default(),
            "<!DOCTYPE a PUBLIC '[' 'x'><a/>",
            XmlError::BadDoctype,
            20,
        ),
        (
            XmlConfig::default(),
            "<a \u{300}='1'/>",
            XmlError::BadNameChar,
            4,
        ),
        (
            XmlConfig::default(),
            "<a x='1' y='2' x='3'/>",
            XmlError::DuplicateAttribute,
            16,
        ),
        (
            attrs,
            "<a x='1' y='2' z='3'/>",
            XmlError::TooManyAttributes,
            15,
        ),
        (attrs, "<a wxyz='1'/>", XmlError::AttrNameTooLong, 6),
        (small, "<a><b><c/></b></a>", XmlError::TooDeep, 7),
        (XmlConfig::with_max_depth(0), "<a/>", XmlError::TooDeep, 1),
        (small, "<abcde/>", XmlError::NameStackOverflow, 5),
        (small, "<ab><cde/></ab>", XmlError::NameStackOverflow, 7),
        (small, "<ab xyz='1'/>", XmlError::NameStackOverflow, 6),
    ];
    let mut seen = std::collections::HashSet::new();
    for &(config, doc, error, offset) in cases {
        let want = format!(
            "status {} {:?} at 1:{} offset {}",
            error.status().as_str(),
            error,
            offset + 1,
            offset
        );
        assert_eq!(status_cfg(config, doc.as_bytes()), want, "document {doc:?}");
        seen.insert(error);
    }
    // BadBeat is the multi-byte input's (tests/wide_rtl.rs).
    for e in XmlError::ALL.into_iter().filter(|e| e.from_parser()) {
        assert!(seen.contains(&e), "no test document for {e:?}");
    }
}

#[test]
fn error_positions_count_lines_and_columns() {
    assert_eq!(
        status("<a>\n  <b>\n  </c>\n</a>"),
        "status malformed MismatchedClose at 3:5 offset 14"
    );
    assert_eq!(
        status("<a>\n\n"),
        "status malformed UnclosedElement at 3:1 offset 5"
    );
    assert_eq!(
        status("<a>\nx"),
        "status malformed UnclosedElement at 2:2 offset 5"
    );
}

#[test]
fn no_events_after_the_first_error() {
    check(
        "<a><b>t</c><d x='1'/>more</a>",
        "start a @1
         open
         start b @2
         open
         text \"t\"
         status malformed MismatchedClose at 1:10 offset 9",
    );
    check(
        "<a x='1' y='&bad;' z='2'/>",
        "start a @1
         attr x=\"1\"
         attr-cut y=\"\"
         status malformed BadReference at 1:17 offset 16",
    );
    check_cfg(
        XmlConfig::with_max_depth(1),
        "<a>x<b>y</b></a>",
        "start a @1
         open
         text \"x\"
         status too_deep TooDeep at 1:6 offset 5",
    );
}

#[test]
fn later_documents_unaffected_by_reset() {
    let docs: &[&[u8]] = &[
        b"<a><b></a>",
        b"<r><x y='1'>t</x></r>",
        b"<a x='",
        b"<r><x y='1'>t</x></r>",
        b"<a>\n<b>",
        b"<r><x y='1'>t</x></r>",
        b"<a><b><c><d/></c></b></a>",
        b"<r><x y='1'>t</x></r>",
        b"",
        b"<r><x y='1'>t</x></r>",
    ];
    let config = XmlConfig {
        max_depth: 3,
        name_stack_bytes: 64,
        ..XmlConfig::default()
    };
    let mut t = Tokenizer::new(config);
    for doc in docs {
        let mut sink = TraceSink::new();
        // Feed in two pieces to also carry partial state across the reset.
        let (x, y) = doc.split_at(doc.len() / 2);
        t.feed(x, &mut sink);
        t.feed(y, &mut sink);
        let r = t.finish(&mut sink);
        assert_eq!(t.error(), r.err());
        sink.finish(r);
        assert_eq!(sink.out, trace_document(config, doc, 0), "document {doc:?}");
        t.reset();
        assert_eq!(t.status(), DocStatus::Ok);
        assert_eq!(t.depth(), 0);
    }
}

#[test]
fn finish_is_idempotent_and_feed_after_finish_is_ignored() {
    let mut t = Tokenizer::new(XmlConfig::default());
    let mut s = TraceSink::new();
    t.feed(b"<a/>", &mut s);
    assert_eq!(t.finish(&mut s), Ok(()));
    t.feed(b"<b/>", &mut s);
    assert_eq!(t.finish(&mut s), Ok(()));
    assert_eq!(s.out, "start a @1\nopen\nclose\n");
    let mut t = Tokenizer::new(XmlConfig::default());
    t.feed(b"<a>", &mut s);
    let e = t.finish(&mut s).unwrap_err();
    assert_eq!(t.finish(&mut s), Err(e));
    assert_eq!(t.error(), Some(e));
    assert_eq!(t.status(), DocStatus::Malformed);
}

#[test]
fn chunk_boundaries_inside_names_and_values() {
    // Every split in two pieces, plus byte by byte (trace_cfg covers the
    // fixed-size splits).
    let doc = b"<root\r\n  attribute-name='va&#x4C;ue\r\n'><![CDATA[c]]]>t\r\n&amp;</root>";
    let whole = trace_document(XmlConfig::default(), doc, 0);
    for cut in 0..=doc.len() {
        let mut sink = TraceSink::new();
        let mut t = Tokenizer::new(XmlConfig::default());
        t.feed(&doc[..cut], &mut sink);
        t.feed(&[], &mut sink);
        t.feed(&doc[cut..], &mut sink);
        let r = t.finish(&mut sink);
        sink.finish(r);
        assert_eq!(sink.out, whole, "cut at {cut}");
    }
    assert_eq!(
        whole,
        "start root @1\nattr attribute-name=\"vaLue \"\nopen\ntext \"c]t\\n&\"\nclose\nstatus ok\n"
    );
}

#[test]
fn long_names_fit_exactly() {
    let config = XmlConfig {
        max_depth: 4,
        name_stack_bytes: 6,
        ..XmlConfig::default()
    };
    assert_eq!(status_cfg(config, b"<abc><def/></abc>"), "status ok");
    assert_eq!(
        status_cfg(config, b"<abc x23='1'><def/></abc>"),
        "status ok"
    );
    assert_eq!(
        status_cfg(config, b"<abc x234='1'/>"),
        "status too_deep NameStackOverflow at 1:9 offset 8"
    );
}

#[test]
fn arbitrary_bytes_never_panic() {
    // A cheap deterministic sweep; tests/xml_fuzz.rs does the real fuzzing.
    let mut x: u32 = 12345;
    for _ in 0..2000 {
        let len = (x % 40) as usize;
        let mut doc = Vec::with_capacity(len);
        for _ in 0..len {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let pick = b"<>/?!-[]&#;x=\"' \r\nabCDATA";
            doc.push(pick[(x >> 16) as usize % pick.len()]);
        }
        let _ = trace_cfg(
            XmlConfig {
                max_depth: 3,
                name_stack_bytes: 8,
                ..XmlConfig::default()
            },
            &doc,
        );
    }
}

#[test]
fn reason_codes_are_the_list_order() {
    for (i, e) in XmlError::ALL.iter().enumerate() {
        assert_eq!(usize::from(e.code()), i + 1, "{e:?}");
        assert_eq!(XmlError::from_code(e.code()), Some(*e));
    }
    assert_eq!(XmlError::from_code(0), None);
    assert_eq!(XmlError::from_code(XmlError::ALL.len() as u8 + 1), None);
}
