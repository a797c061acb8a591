//! Differential test of the RTL SAX parser `qrtl_sax` (`rtl-templates/xpath/sax.v`)
//! against the byte-level tokenizer (`qrtl_xpath::xml`), in Verilator.
//!
//! The rendered module is built once per configuration with a small C++
//! trace driver (`sim/sax_trace.cpp`), in a directory keyed by a hash of the
//! generated sources (`CARGO_TARGET_TMPDIR/sax-rtl/<hash>`, reused by later
//! runs; C++ compiles go through ccache). All documents of the corpus go
//! through that one binary in one stimulus file; the driver records every
//! cycle with an event, and the events of each document are turned into a
//! trace (start names, attributes with decoded values, open/close, text
//! nodes, status and reason, and the offset of the byte that revealed the
//! error) that must equal the tokenizer's trace of the same document
//! through a [`Sink`].
//!
//! Corpus: every `tests/xml/*.xml`, YFilter's 100 NITF documents, NITF-like
//! workload documents, and a few thousand seeded random documents: valid
//! ones from `tests/xml/docgen.rs`, mutations of them (byte flips,
//! insertions, deletions, duplications, truncation), every prefix of a few
//! rich documents, token soups, random bytes, and hand-written edge cases
//! (deep nesting, long names, references of all kinds, CRLF, CDATA
//! brackets, comments, PIs, XML declarations, DOCTYPE). Each corpus runs in
//! two builds: `MAX_DEPTH` 6 with a 40-byte name stack (so too_deep and name
//! stack overflows are common) and the default 32 / 2048; each once with a
//! byte every cycle and once with idle cycles in between.
//!
//! The one tolerated difference (counted and printed): the module's CDATA
//! unit queue (see `sax.v`) drops at most two text units of a text node
//! cut by the end of a document inside a CDATA section; such a text node
//! never ends, so no consumer can use it.
//!
//! Verilator is required: the test fails if it is not installed. A longer
//! soak: `QRTL_SAX_SOAK=N` multiplies the random documents by N.

use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use qrtl_xpath::emit::sax::{sax_module, SaxParams};
use qrtl_xpath::workload::{DocGen, DocGenConfig, Vocab};
use qrtl_xpath::xml::trace::escape;
use qrtl_xpath::xml::{XmlConfig, XmlError};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

mod common;
use common::sax_trace::*;
#[path = "xml/docgen.rs"]
mod docgen;

const DRIVER: &str = include_str!("../sim/sax_trace.cpp");
/// A model of the ECP5 DP16KD block RAM, for the parser's ECP5 build.
const DP16KD_MODEL: &str = include_str!("../sim/ecp5_dp16kd.v");

/// Which name stack the parser is built with.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NameStack {
    /// The inferred memory (simulation, Xilinx, iCE40).
    Inferred,
    /// `QRTL_TARGET_ECP5`: a DP16KD instance with its output register,
    /// simulated through `sim/ecp5_dp16kd.v`.
    Ecp5Dp16kd,
}

fn parse_records(raw: &[u8]) -> Vec<Record> {
    assert_eq!(raw.len() % 16, 0, "driver output is not whole records");
    raw.chunks_exact(16)
        .map(|r| {
            let cp = u32::from_le_bytes([r[6], r[7], r[8], r[9]]);
            Record {
                flags: u32::from_le_bytes([r[0], r[1], r[2], r[3]]),
                byte: r[4],
                unit_byte: r[5],
                unit_cp: cp & 0x1F_FFFF,
                unit_is_cp: cp & 0x8000_0000 != 0,
                status: r[10],
                reason: r[11],
                err_offset: u32::from_le_bytes([r[12], r[13], r[14], r[15]]),
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Building the module
// ---------------------------------------------------------------------------

fn verilator_version() -> String {
    let out = Command::new("verilator")
        .arg("--version")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "\n\n*** verilator is not installed or not on PATH ({e}); \
             tests/sax_rtl.rs needs it (apt-get install verilator). ***\n\n"
            )
        });
    assert!(out.status.success(), "verilator --version failed");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn hash_of(parts: &[&str]) -> String {
    let mut h = DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The build command's arguments (`--public-flat-rw`: the driver reads the
/// internal `fail` signal to locate the first error).
const VERILATOR_BUILD: &[&str] = &[
    "--cc",
    "--exe",
    "--build",
    "-Wall",
    "-j",
    "2",
    "--public-flat-rw",
    "--top-module",
    "qrtl_sax",
    "--Mdir",
    "obj",
    "-o",
    "sax_trace",
    "qrtl_sax.v",
    "sax_trace.cpp",
];

/// Build (or reuse) the trace binary for `p`; returns its path.
fn build(p: &SaxParams, names: NameStack) -> PathBuf {
    let version = verilator_version();
    let verilog = sax_module(p);
    let ecp5: &[&str] = match names {
        NameStack::Inferred => &[],
        NameStack::Ecp5Dp16kd => &["-DQRTL_TARGET_ECP5", "ecp5_dp16kd.v"],
    };
    let key = hash_of(&[
        &verilog,
        DRIVER,
        &version,
        &VERILATOR_BUILD.join(" "),
        &ecp5.join(" "),
        if ecp5.is_empty() { "" } else { DP16KD_MODEL },
    ]);
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sax-rtl");
    let dir = base.join(&key);
    let exe = dir.join("obj").join("sax_trace");
    if exe.is_file() {
        return exe;
    }
    // Build in a private directory, then move it into place.
    let tmp = base.join(format!("{key}.tmp{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).expect("create build dir");
    fs::write(tmp.join("qrtl_sax.v"), &verilog).expect("write qrtl_sax.v");
    fs::write(tmp.join("sax_trace.cpp"), DRIVER).expect("write sax_trace.cpp");
    if names == NameStack::Ecp5Dp16kd {
        fs::write(tmp.join("ecp5_dp16kd.v"), DP16KD_MODEL).expect("write ecp5_dp16kd.v");
    }
    run(
        Command::new("verilator")
            .current_dir(&tmp)
            .env("OBJCACHE", "ccache")
            .args(VERILATOR_BUILD)
            .args(ecp5),
        "verilator --build",
    );
    match fs::rename(&tmp, &dir) {
        Ok(()) => {}
        Err(_) if exe.is_file() => {
            // Another run finished first.
            let _ = fs::remove_dir_all(&tmp);
        }
        Err(e) => panic!("move {} to {}: {e}", tmp.display(), dir.display()),
    }
    assert!(exe.is_file(), "no {}", exe.display());
    exe
}

// ---------------------------------------------------------------------------
// Corpus
// ---------------------------------------------------------------------------

struct Doc {
    label: String,
    bytes: Vec<u8>,
}

fn push(docs: &mut Vec<Doc>, label: impl Into<String>, bytes: impl Into<Vec<u8>>) {
    let bytes = bytes.into();
    // A document is at least one byte on the stream (in_last marks a byte).
    if !bytes.is_empty() {
        docs.push(Doc {
            label: label.into(),
            bytes,
        });
    }
}

const TOKENS: &[&str] = &[
    "<a>",
    "</a>",
    "<b x='1'>",
    "</b>",
    "<a/>",
    "<c y=\"&lt;\"/>",
    "<d z = '\r\n\t&#x41;&#10;x'>",
    "</d >",
    "<!--",
    "-->",
    "-",
    "--",
    "<![CDATA[",
    "]]>",
    "]",
    "]]",
    "&amp;",
    "&apos;",
    "&quot;",
    "&gt;",
    "&#",
    "&#x",
    "41",
    "1F600",
    "D800",
    "110000",
    ";",
    "&",
    "&#65;",
    "&#x1F600;",
    "<?p",
    "<?xml",
    "<?XmL",
    "<?xml-stylesheet",
    "?>",
    "?",
    "<!DOCTYPE a",
    "<!DOCTYPE",
    " SYSTEM 'x[y]'",
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
    "<ns:tag-1.x",
    "</ns:tag-1.x>",
];

fn name_of_len(rng: &mut SmallRng, len: usize) -> String {
    const START: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_:";
    const REST: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-._:";
    (0..len)
        .map(|i| {
            let set = if i == 0 { START } else { REST };
            set[rng.gen_range(0..set.len())] as char
        })
        .collect()
}

/// Hand-written edge cases.
fn edge_cases(docs: &mut Vec<Doc>) {
    let mut rng = SmallRng::seed_from_u64(7);
    // Deep nesting around both depth limits, with text, attributes, `/>`.
    for d in 1..=40usize {
        let mut s = String::new();
        for i in 0..d {
            let _ = write!(s, "<e{} k='{i}'>t", i % 3);
        }
        s.push_str("<leaf/>");
        for i in (0..d).rev() {
            let _ = write!(s, "</e{}>", i % 3);
        }
        push(docs, format!("deep {d}"), s.clone());
        push(
            docs,
            format!("deep {d} empty leaf only"),
            s.replace("<leaf/>", ""),
        );
    }
    // Attributes around both duplicate checks' sizes (3 or 16 names of 4
    // or 32 bytes): many, long, repeated early, late, by prefix.
    for count in [2usize, 3, 4, 15, 16, 17, 40] {
        let mut s = String::from("<r");
        for i in 0..count {
            let _ = write!(s, " a{i}='{i}'");
        }
        push(docs, format!("{count} attributes"), format!("{s}/>"));
        push(
            docs,
            format!("{count} attributes, first repeated"),
            format!("{s} a0='x'/>"),
        );
        push(
            docs,
            format!("{count} attributes, last repeated"),
            format!("{s} a{}='x'/>", count - 1),
        );
    }
    for len in [3usize, 4, 5, 31, 32, 33] {
        let n = name_of_len(&mut rng, len);
        push(
            docs,
            format!("attr {len} twice"),
            format!("<r {n}='1' {n} = '2'/>"),
        );
        push(
            docs,
            format!("attr {len} and a prefix"),
            format!("<r {n}='1' {}='2' {n}x='3'/>", &n[..len - 1]),
        );
        push(
            docs,
            format!("attr {len} in nested elements"),
            format!("<r {n}='1'><s {n}='2'/></r>"),
        );
    }
    // Long element and attribute names around both name-stack sizes.
    for len in (1..=48).chain([60, 64, 100, 1000, 2000, 2040, 2047, 2048, 2049, 2100]) {
        let n = name_of_len(&mut rng, len);
        push(docs, format!("name {len}"), format!("<{n}>x</{n}>"));
        push(docs, format!("attr name {len}"), format!("<r {n}='v'/>"));
        push(
            docs,
            format!("nested names {len}"),
            format!("<{n}><{n} {n}=\"1\"><{n}/></{n}></{n}>"),
        );
        push(
            docs,
            format!("close mismatch {len}"),
            format!("<{n}></{n}x>"),
        );
        if len > 1 {
            push(
                docs,
                format!("close short {len}"),
                format!("<{n}></{}>", &n[..len - 1]),
            );
        }
    }
    for total in [20usize, 30, 38, 39, 40, 41, 45, 2040, 2048, 2050] {
        // Names filling the stack up to about `total` bytes, 4 levels.
        let per = total / 4;
        let names: Vec<String> = (0..4).map(|_| name_of_len(&mut rng, per.max(1))).collect();
        let mut s = String::new();
        for n in &names {
            let _ = write!(s, "<{n}>");
        }
        let an = name_of_len(&mut rng, total % 4 + 3);
        let _ = write!(s, "<z {an}='1'/>");
        for n in names.iter().rev() {
            let _ = write!(s, "</{n}>");
        }
        push(docs, format!("stack fill {total}"), s);
    }
    // References of every kind, in text and in values.
    let refs = [
        "&lt;",
        "&gt;",
        "&amp;",
        "&apos;",
        "&quot;",
        "&LT;",
        "&lt",
        "&ltx;",
        "&a;",
        "&abcd;",
        "&abcde;",
        "&;",
        "& ",
        "&#;",
        "&#x;",
        "&#X41;",
        "&#0;",
        "&#8;",
        "&#9;",
        "&#10;",
        "&#13;",
        "&#31;",
        "&#32;",
        "&#x7F;",
        "&#xD7FF;",
        "&#xD800;",
        "&#xDFFF;",
        "&#xE000;",
        "&#xFFFD;",
        "&#xFFFE;",
        "&#xFFFF;",
        "&#x10000;",
        "&#x10FFFF;",
        "&#x110000;",
        "&#1114111;",
        "&#55295;",
        "&#55296;",
        "&#57343;",
        "&#57344;",
        "&#65533;",
        "&#65534;",
        "&#65535;",
        "&#65536;",
        "&#111411;",
        "&#111412;",
        "&#1114110;",
        "&#1114112;",
        "&#99999999;",
        "&#x0000000041;",
        "&#00065;",
        "&#x1f600;",
        "&#xAbC;",
        "&#12a;",
        "&#xg;",
        "&#-1;",
        "&#x 41;",
        "&am p;",
        "&quot",
    ];
    for r in refs {
        push(docs, format!("ref text {r}"), format!("<a>x{r}y</a>"));
        push(docs, format!("ref attr {r}"), format!("<a v=\"x{r}y\"/>"));
        push(
            docs,
            format!("ref attr sq {r}"),
            format!("<a v='{r}'>{r}</a>"),
        );
        push(docs, format!("ref outside {r}"), format!("{r}<a/>"));
    }
    // Character references at and around every bound of the XML `Char`
    // ranges, in both bases and with leading zeros (the RTL builds its range
    // tests digit by digit, from tests on the value so far).
    for v in (0u32..=40)
        .chain(55_290..=55_300)
        .chain(57_340..=57_350)
        .chain(65_528..=65_540)
        .chain(1_114_105..=1_114_115)
    {
        push(docs, format!("char ref {v}"), format!("<a>&#{v};</a>"));
        push(docs, format!("char ref 0{v}"), format!("<a v='&#00{v};'/>"));
        push(
            docs,
            format!("char ref x{v:X}"),
            format!("<a>&#x{v:X};</a>"),
        );
        push(
            docs,
            format!("char ref x{v:x}"),
            format!("<a v='&#x0{v:x};'/>"),
        );
    }
    // Line ends in text, CDATA and values.
    for t in [
        "\r",
        "\n",
        "\r\n",
        "\r\r\n",
        "\n\r",
        "\r\r",
        "a\rb",
        "a\r\nb",
        "\r&#10;",
        "\r&amp;",
        "\r<![CDATA[\n]]>",
        "<![CDATA[\r]]>\n",
        "\r<!--c-->\n",
        "\r<?p?>\n",
        "\t",
        " \r\n ",
    ] {
        push(docs, format!("text eol {t:?}"), format!("<a>{t}</a>"));
        push(
            docs,
            format!("attr eol {t:?}"),
            format!("<a v=\"{t}\" w='{t}'/>"),
        );
        push(docs, format!("misc eol {t:?}"), format!("{t}<a/>{t}"));
    }
    // CDATA brackets and `]]>` in text.
    for c in [
        "]", "]]", "]]]", "]]]]", "] ]", "]x]", "]]x", "]]]x", "x]]", "]\r", "]]\r\n", "]\n",
        "]]\n", "]>", "]]]>", "<b>", "&amp;", "", "-->", "]]>x", "é]]é",
    ] {
        push(
            docs,
            format!("cdata {c:?}"),
            format!("<a><![CDATA[{c}]]></a>"),
        );
        push(
            docs,
            format!("cdata cut {c:?}"),
            format!("<a>t<![CDATA[{c}"),
        );
        push(docs, format!("text brackets {c:?}"), format!("<a>{c}</a>"));
    }
    for t in [
        "]]>",
        "]]]>",
        "] ]>",
        "]]&gt;",
        "]]<![CDATA[]]>>",
        "]&#93;>",
        "]]\r>",
    ] {
        push(docs, format!("text {t:?}"), format!("<a>x{t}y</a>"));
    }
    // Comments, PIs, XML declarations, DOCTYPE.
    for m in [
        "<!---->",
        "<!-- - -->",
        "<!--->",
        "<!-- -- -->",
        "<!-- --->",
        "<!--a--b-->",
        "<!-x>",
        "<!>",
        "<!X>",
        "<?p?>",
        "<?p ?>",
        "<?p x??>",
        "<?p ? >?>",
        "<? p?>",
        "<?1?>",
        "<?p",
        "<?xml?>",
        "<?xml version='1.0'?>",
        "<?XML?>",
        "<?xMl ?>",
        "<?xm?>",
        "<?xmlx?>",
        "<?xm-l?>",
        "<?x?>",
        "<?p!?>",
        "<?p/?>",
        "<?xml\t?>",
        "<!DOCTYPE a>",
        "<!DOCTYPE a [<!ELEMENT a ANY>]>",
        "<!DOCTYPE\ta SYSTEM \"x>y\">",
        "<!DOCTYPE a PUBLIC '[' \"]\">",
        "<!DOCTYPEa>",
        "<!DOCTYP a>",
        "<!DOCTYPE a<>",
        "<!DOCTYPE a '",
        "<!doctype a>",
        "<!DOCTYPE a>\n<!DOCTYPE b>",
        "<![CDATA[x]]>",
    ] {
        push(docs, format!("prolog {m:?}"), format!("{m}<a/>"));
        push(
            docs,
            format!("bom prolog {m:?}"),
            format!("\u{FEFF}{m}<a/>"),
        );
        push(docs, format!("ws prolog {m:?}"), format!(" {m}<a/>"));
        push(docs, format!("content {m:?}"), format!("<a>x{m}y</a>"));
        push(docs, format!("epilog {m:?}"), format!("<a/>{m}"));
    }
    // BOMs, partial BOMs, structure.
    for s in [
        &b"\xEF\xBB\xBF<a/>"[..],
        b"\xEF\xBB<a/>",
        b"\xEF<a/>",
        b"\xEF",
        b"\xEF\xBB",
        b"\xEF\xBB\xBF",
        b"\xEF\xBB\xBF\xEF\xBB\xBF<a/>",
        b" \xEF\xBB\xBF<a/>",
        b"<a/><b/>",
        b"<a></a><b>",
        b"</a>",
        b"<a></a></a>",
        b"<a/>x",
        b"<a/> \t\r\n",
        b" ",
        b"<",
        b"<a",
        b"<a ",
        b"<a b",
        b"<a b=",
        b"<a b='",
        b"<a b='x'",
        b"<a b='x'/",
        b"<a>",
        b"<a></",
        b"<a></a",
        b"<a></a ",
        b"<a b c='1'/>",
        b"<a b='1'c='2'/>",
        b"<a b='1'/c>",
        b"<a b='1'=/>",
        b"<a b='1' / >",
        b"<a b='<'/>",
        b"<a b=1/>",
        b"<a =''/>",
        b"<a b\t=\n'\r'\r\n/>",
        b"<a\xC3\xA9 \xE6\x95\xB0='\xF0\x9F\x98\x80'>\xE6\x95\xB0</a\xC3\xA9>",
        b"<1/>",
        b"<-a/>",
        b"<a-1.b/>",
        b"<a></ a>",
        b"<a></a\t\n>",
        b"<a></a\x00>",
        b"<a>\x00\xFF</a>",
        b"<a><b></a></b>",
        b"<a><b></b></a>",
    ] {
        push(docs, format!("misc {}", escape(s)), s.to_vec());
    }
}

/// Multiplier of the random parts of the corpus: `QRTL_SAX_SOAK` (default 1)
/// for a longer soak, e.g.
/// `QRTL_SAX_SOAK=20 cargo test --release --test sax_rtl`.
fn soak() -> u64 {
    std::env::var("QRTL_SAX_SOAK")
        .ok()
        .map(|v| v.parse().expect("QRTL_SAX_SOAK is a number"))
        .unwrap_or(1)
}

/// Every document of one test run.
fn corpus() -> Vec<Doc> {
    let soak = soak();
    let mut docs = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));

    // tests/xml/*.xml
    let mut files: Vec<PathBuf> = fs::read_dir(root.join("tests/xml"))
        .expect("tests/xml")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "expected the tests/xml case files");
    for p in &files {
        push(
            &mut docs,
            p.display().to_string(),
            fs::read(p).expect("read case"),
        );
    }

    // YFilter's NITF documents.
    let nitf = common::nitf_dir().join("docs");
    let mut nitf_files: Vec<PathBuf> = fs::read_dir(&nitf)
        .unwrap_or_else(|e| panic!("{}: {e}", nitf.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    nitf_files.sort();
    assert_eq!(nitf_files.len(), 100, "YFilter's 100 NITF documents");
    for p in &nitf_files {
        push(
            &mut docs,
            p.display().to_string(),
            fs::read(p).expect("read NITF doc"),
        );
    }

    // Every document of the W3C XML Conformance Test Suite (issue 29: the
    // parser equals the tokenizer on the whole suite).
    let xmlconf = common::xml_files_under(&common::xmlconf_dir());
    assert!(xmlconf.len() > 2500, "the W3C XML Conformance Test Suite");
    for p in &xmlconf {
        push(
            &mut docs,
            p.display().to_string(),
            fs::read(p).expect("read xmlconf file"),
        );
    }

    // NITF-like workload documents (deeper than 6, numeric values).
    let cfg = DocGenConfig {
        seed: 11,
        doc_bytes: (500, 6000),
        max_depth: 12,
        ..DocGenConfig::default()
    };
    let mut gen = DocGen::new(Vocab::nitf(), cfg);
    for i in 0..20 {
        push(&mut docs, format!("workload doc {i}"), gen.next_doc());
    }

    edge_cases(&mut docs);

    // Valid random documents of every construct.
    for seed in 0..500 * soak {
        push(
            &mut docs,
            format!("docgen {seed}"),
            docgen::Gen::new(seed).document(),
        );
    }
    // Their mutations.
    let mut rng = SmallRng::seed_from_u64(0x5A5);
    for seed in 0..1500 * soak {
        let doc = docgen::Gen::new(1000 + seed).document();
        let m = qrtl_xpath::workload::mutate_document(&mut rng, doc);
        push(
            &mut docs,
            format!("mutated docgen {} (#{seed})", 1000 + seed),
            m,
        );
    }
    // Every prefix of a few rich documents.
    for seed in [3u64, 17, 29] {
        let doc = docgen::Gen::new(seed).document();
        let doc = &doc[..doc.len().min(600)];
        for k in 1..=doc.len() {
            push(
                &mut docs,
                format!("prefix {k} of docgen {seed}"),
                doc[..k].to_vec(),
            );
        }
    }
    // Token soups.
    let mut rng = SmallRng::seed_from_u64(0x50_0B);
    for i in 0..1000 * soak {
        let n = rng.gen_range(1..50);
        let mut s = String::new();
        if rng.gen_bool(0.5) {
            s.push_str("<r>");
        }
        for _ in 0..n {
            s.push_str(TOKENS[rng.gen_range(0..TOKENS.len())]);
        }
        push(&mut docs, format!("soup {i}"), s);
    }
    // Random bytes, biased towards markup.
    let mut rng = SmallRng::seed_from_u64(0xB17E5);
    for i in 0..300 * soak {
        let n = rng.gen_range(1..100);
        let v: Vec<u8> = (0..n)
            .map(|_| {
                if rng.gen_bool(0.5) {
                    b"<>/?!-[]&#;x=\"' \r\nDab"[rng.gen_range(0..21)]
                } else {
                    rng.gen()
                }
            })
            .collect();
        push(&mut docs, format!("random bytes {i}"), v);
    }
    docs
}

// ---------------------------------------------------------------------------
// The comparison
// ---------------------------------------------------------------------------

/// The tolerated difference: the RTL's text node cut by the end of a
/// document inside a CDATA section may lack up to two trailing units.
fn cdata_cut_tolerated(doc: &[u8], want: &Trace, got: &Trace) -> bool {
    let inside_cdata = {
        let open = doc.windows(9).rposition(|w| w == b"<![CDATA[");
        let close = doc.windows(3).rposition(|w| w == b"]]>");
        match (open, close) {
            (Some(_), None) => true,
            (Some(o), Some(c)) => c < o + 9,
            _ => false,
        }
    };
    let (Some(w), g) = (&want.cut_text, got.cut_text.as_deref().unwrap_or(b"")) else {
        return false;
    };
    inside_cdata
        && want
            .status
            .starts_with("status malformed UnterminatedMarkup offset")
        && want.lines == got.lines
        && want.status == got.status
        && w.starts_with(g)
        && w.len() - g.len() <= 2
}

fn simulate(exe: &Path, docs: &[Doc], idle_seed: u64, tag: &str) -> Vec<Trace> {
    let dir = exe.parent().expect("exe dir");
    let stim_path = dir.join(format!("stim-{tag}-{}.bin", std::process::id()));
    let out_path = dir.join(format!("out-{tag}-{}.bin", std::process::id()));
    let mut stim = Vec::new();
    for d in docs {
        stim.extend_from_slice(&(d.bytes.len() as u32).to_le_bytes());
        stim.extend_from_slice(&d.bytes);
    }
    fs::write(&stim_path, &stim).expect("write stimulus");
    run(
        Command::new(exe)
            .arg(&stim_path)
            .arg(&out_path)
            .arg(idle_seed.to_string()),
        "sax_trace",
    );
    let raw = fs::read(&out_path).expect("read driver output");
    let _ = fs::remove_file(&stim_path);
    let _ = fs::remove_file(&out_path);
    rtl_traces(&parse_records(&raw))
}

fn differential(p: SaxParams, names: NameStack, tag: &str) {
    let exe = build(&p, names);
    let config = XmlConfig {
        max_depth: p.max_depth,
        name_stack_bytes: p.name_stack_bytes,
        max_attributes: p.max_attributes,
        attr_name_bytes: p.attr_name_bytes,
        namespaces: p.namespaces,
        ns_limits: None,
    };
    let docs = corpus();
    let want: Vec<Trace> = docs
        .iter()
        .map(|d| reference_trace(config, &d.bytes))
        .collect();
    let mut statuses = std::collections::BTreeMap::<String, usize>::new();
    for w in &want {
        let s = w.status.split(" offset").next().unwrap_or_default();
        *statuses.entry(s.to_string()).or_default() += 1;
    }
    let bytes: usize = docs.iter().map(|d| d.bytes.len()).sum();
    for idle_seed in [0u64, 0x1D1E] {
        let got = simulate(&exe, &docs, idle_seed, tag);
        assert_eq!(
            got.len(),
            docs.len(),
            "{tag}: the module reported {} document ends for {} documents",
            got.len(),
            docs.len()
        );
        let mut tolerated = 0;
        for (i, ((d, w), g)) in docs.iter().zip(&want).zip(&got).enumerate() {
            if w == g {
                continue;
            }
            if cdata_cut_tolerated(&d.bytes, w, g) {
                tolerated += 1;
                continue;
            }
            panic!(
                "{tag} (idle seed {idle_seed:#x}): document #{i} ({}) differs \
                 (left: tokenizer, right: RTL)\ndocument: \"{}\"\n{}",
                d.label,
                escape(&d.bytes),
                pretty_assertions::StrComparison::new(&w.render(), &g.render())
            );
        }
        eprintln!(
            "{tag}: {} documents ({bytes} bytes, idle seed {idle_seed:#x}) agree; \
             {tolerated} with a CDATA text node cut by the document end",
            docs.len()
        );
    }
    eprintln!("{tag}: statuses {statuses:?}");
    // The corpus exercises every reason of the parser under these limits.
    for e in XmlError::ALL.into_iter().filter(|e| e.from_parser()) {
        let s = format!("status {} {e:?}", e.status().as_str());
        assert!(
            statuses.contains_key(&s),
            "{tag}: no document of the corpus ends with {s}"
        );
    }
}

#[test]
fn sax_rtl_small_limits() {
    differential(
        SaxParams {
            max_depth: 6,
            name_stack_bytes: 40,
            max_attributes: 3,
            attr_name_bytes: 4,
            // Namespace-aware names: a colon in a PI target is BadQName.
            namespaces: true,
        },
        NameStack::Inferred,
        "depth6",
    );
}

#[test]
fn sax_rtl_default_limits() {
    differential(SaxParams::default(), NameStack::Inferred, "default");
}

/// The ECP5 build (`qrtl synth --target ecp5` defines QRTL_TARGET_ECP5):
/// the name stack is a DP16KD with its output register, and the parser
/// must still agree with the tokenizer on the whole corpus.
#[test]
fn sax_rtl_ecp5_block_ram() {
    differential(SaxParams::default(), NameStack::Ecp5Dp16kd, "ecp5-dp16kd");
}

#[test]
fn sax_rtl_lint_clean() {
    verilator_version();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sax-rtl-lint");
    fs::create_dir_all(&dir).expect("lint dir");
    for (d, s, a, l) in [
        (32, 2048, 16, 32),
        (6, 40, 3, 4),
        (1, 1, 1, 1),
        (5, 64, 2, 7),
        (256, 16384, 64, 64),
    ] {
        let p = SaxParams {
            max_depth: d,
            name_stack_bytes: s,
            max_attributes: a,
            attr_name_bytes: l,
            namespaces: a == 2,
        };
        let sub = dir.join(format!("{d}-{s}"));
        let _ = fs::remove_dir_all(&sub);
        fs::create_dir_all(&sub).expect("lint dir");
        fs::write(sub.join("qrtl_sax.v"), sax_module(&p)).expect("write");
        run(
            Command::new("verilator").current_dir(&sub).args([
                "--lint-only",
                "-Wall",
                "qrtl_sax.v",
            ]),
            &format!("verilator --lint-only -Wall ({d}, {s})"),
        );
        // The ECP5 build: lint-clean with the primitive's model, and the
        // primitive is really instantiated (without its model the build
        // fails) exactly when the name stack fits one DP16KD.
        fs::write(sub.join("ecp5_dp16kd.v"), DP16KD_MODEL).expect("write");
        run(
            Command::new("verilator").current_dir(&sub).args([
                "--lint-only",
                "-Wall",
                "-DQRTL_TARGET_ECP5",
                "qrtl_sax.v",
                "ecp5_dp16kd.v",
            ]),
            &format!("verilator --lint-only -Wall -DQRTL_TARGET_ECP5 ({d}, {s})"),
        );
        let bare = Command::new("verilator")
            .current_dir(&sub)
            .args([
                "--lint-only",
                "-Wall",
                "-DQRTL_TARGET_ECP5",
                "--top-module",
                "qrtl_sax",
                "qrtl_sax.v",
            ])
            .output()
            .expect("run verilator");
        let stderr = String::from_utf8_lossy(&bare.stderr);
        if s <= 2048 {
            assert!(
                !bare.status.success() && stderr.contains("DP16KD"),
                "({d}, {s}): QRTL_TARGET_ECP5 must instantiate DP16KD:\n{stderr}"
            );
        } else {
            assert!(
                bare.status.success(),
                "({d}, {s}): a name stack over 2048 bytes stays inferred:\n{stderr}"
            );
        }
    }
}
