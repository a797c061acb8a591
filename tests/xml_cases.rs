//! File-driven tokenizer tests: every `tests/xml/NAME.xml` is tokenized and
//! its event trace (format: `qrtl_xpath::xml::trace`) compared with
//! `tests/xml/NAME.expected`. The document is also fed in 1-, 2-, 3- and
//! 7-byte chunks, which must give the same trace.
//!
//! A first line `<!-- qrtl-xml: max_depth=N name_stack_bytes=M -->` sets
//! the parser limits (defaults otherwise; the comment is part of the document).
//!
//! To (re)generate the expectations after an intended change, run
//!
//! ```text
//! QRTL_BLESS=1 cargo test -p qrtl --test xml_cases
//! ```
//!
//! and review the diff of `tests/xml/*.expected`.

use std::fs;
use std::path::{Path, PathBuf};

use qrtl_xpath::xml::trace::trace_document;
use qrtl_xpath::xml::XmlConfig;

fn config_of(doc: &[u8]) -> XmlConfig {
    let mut config = XmlConfig::default();
    let first = doc.split(|&b| b == b'\n').next().unwrap_or(b"");
    let Some(rest) = std::str::from_utf8(first)
        .ok()
        .and_then(|l| l.strip_prefix("<!-- qrtl-xml:"))
    else {
        return config;
    };
    let mut stack_set = false;
    for kv in rest.trim_end_matches("-->").split_whitespace() {
        let (k, v) = kv
            .split_once('=')
            .unwrap_or_else(|| panic!("bad flag {kv:?}"));
        let v: u32 = v.parse().unwrap_or_else(|_| panic!("bad value in {kv:?}"));
        match k {
            "max_depth" => config.max_depth = v,
            "name_stack_bytes" => {
                config.name_stack_bytes = v;
                stack_set = true;
            }
            _ => panic!("unknown flag {k:?}"),
        }
    }
    if !stack_set {
        config.name_stack_bytes = XmlConfig::with_max_depth(config.max_depth).name_stack_bytes;
    }
    config
}

fn cases(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .expect("tests/xml exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    v.sort();
    v
}

#[test]
fn xml_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/xml");
    let bless = std::env::var_os("QRTL_BLESS").is_some_and(|v| v != "0" && !v.is_empty());
    let mut failures = Vec::new();
    let files = cases(&dir);
    assert!(
        files.len() >= 20,
        "expected the case files in {}",
        dir.display()
    );
    for path in &files {
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let doc = fs::read(path).expect("read case");
        let config = config_of(&doc);
        let got = trace_document(config, &doc, 0);
        for chunk in [1, 2, 3, 7] {
            let t = trace_document(config, &doc, chunk);
            if t != got {
                failures.push(format!(
                    "{name}: feeding in {chunk}-byte chunks changes the trace:\n{}",
                    pretty_assertions::StrComparison::new(&got, &t)
                ));
            }
        }
        let exp_path = path.with_extension("expected");
        if bless {
            fs::write(&exp_path, &got).expect("write expectation");
            continue;
        }
        match fs::read_to_string(&exp_path) {
            Ok(expected) if expected == got => {}
            Ok(expected) => failures.push(format!(
                "{name}: trace differs from {} (left: expected, right: got):\n{}",
                exp_path.display(),
                pretty_assertions::StrComparison::new(&expected, &got)
            )),
            Err(_) => failures.push(format!(
                "{name}: no {} (run with QRTL_BLESS=1 to create it); trace:\n{got}",
                exp_path.display()
            )),
        }
    }
    if !failures.is_empty() {
        panic!(
            "{} of {} XML cases failed:\n\n{}",
            failures.len(),
            files.len(),
            failures.join("\n")
        );
    }
}
