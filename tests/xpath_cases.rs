//! File-driven XPath filtering cases: `tests/xpath_cases/*.txt`.
//!
//! Each case file holds one document and queries with their expected
//! answers under XPath 1.0 semantics (SPEC §3.1):
//!
//! ```text
//! # Free text explaining the case (any `#` line before `# doc:`).
//! # doc:
//! <r><a x="1"/></r>
//! # queries:
//! /r/a[@x=1]
//! # expect: match
//! /r/a[@x="01"]
//! # expect: no-match
//! ```
//!
//! - The document is every line between `# doc:` and `# queries:`, joined
//!   with `\n`. `# doc (escaped):` instead reads `\r`, `\n`, `\t` and `\\`
//!   escapes in those lines (for CR and tab bytes) and joins lines with
//!   nothing.
//! - Each query line is followed by `# expect: match` or `# expect: no-match`,
//!   and optionally `# oracle: skip <reason>` when sxd-xpath is known to
//!   deviate from XPath 1.0 on it (see `xpath_cases/sxd_oracle.rs`).
//! - `# ns: PREFIX=URI` lines (before `# doc:`) bind query prefixes, as
//!   `--ns` does, for the engine and the oracle alike; `# namespaces: raw`
//!   compares names as bytes (`--namespaces raw`; sxd-xpath, namespace-aware,
//!   is not consulted).
//! - `# status: malformed` or `# status: too_deep` (before `# queries:`)
//!   says the engine must flag the document; sxd-document must reject a
//!   `malformed` one too.
//!
//! Every query is checked against the engine (holistic; `paths` and `pairs`
//! must report at least the expected matches) and against sxd-xpath.

mod common;
#[path = "xpath_cases/sxd_oracle.rs"]
mod sxd_oracle;

use common::design_from_text_ns;
use qrtl_xpath::ir::xpath::Mode;
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::syntax::ast::{self, Axis, CmpOp, ExprKind, Literal, NameTest, PredicateKind};
use qrtl_xpath::syntax::parse_query;
use qrtl_xpath::xml::DocStatus;
use std::fmt::Write as _;
use std::path::Path;
use sxd_oracle::{oracle_document, Oracle};

struct CaseQuery {
    line: usize,
    text: String,
    expect: bool,
    has_expect: bool,
    oracle_skip: Option<String>,
}

struct Case {
    doc: String,
    status: DocStatus,
    queries: Vec<CaseQuery>,
    /// `# ns: PREFIX=URI` lines: query prefixes (engine and oracle).
    ns: Vec<(String, String)>,
    /// `# namespaces: raw`: names compared as bytes (no oracle: sxd-xpath
    /// is namespace-aware).
    raw: bool,
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('r') => out.push('\r'),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            other => panic!("bad escape \\{other:?}"),
        }
    }
    out
}

fn parse_case(name: &str, text: &str) -> Case {
    #[derive(PartialEq)]
    enum At {
        Head,
        Doc,
        Queries,
    }
    let mut at = At::Head;
    let mut escaped = false;
    let mut doc_lines: Vec<&str> = Vec::new();
    let mut status = DocStatus::Ok;
    let mut queries: Vec<CaseQuery> = Vec::new();
    let mut ns = Vec::new();
    let mut raw = false;
    for (i, line) in text.lines().enumerate() {
        let lno = i + 1;
        let t = line.trim();
        match at {
            At::Head => {
                if t == "# doc:" || t == "# doc (escaped):" {
                    escaped = t != "# doc:";
                    at = At::Doc;
                } else if let Some(s) = t.strip_prefix("# status:") {
                    status = parse_status(name, lno, s);
                } else if let Some(b) = t.strip_prefix("# ns:") {
                    let (p, u) = b
                        .trim()
                        .split_once('=')
                        .unwrap_or_else(|| panic!("{name}:{lno}: `# ns: PREFIX=URI`"));
                    ns.push((p.to_string(), u.to_string()));
                } else if t == "# namespaces: raw" {
                    raw = true;
                } else {
                    assert!(
                        t.is_empty() || t.starts_with('#'),
                        "{name}:{lno}: text before `# doc:`"
                    );
                }
            }
            At::Doc => {
                if t == "# queries:" {
                    at = At::Queries;
                } else if let Some(s) = t.strip_prefix("# status:") {
                    status = parse_status(name, lno, s);
                } else {
                    doc_lines.push(line);
                }
            }
            At::Queries => {
                if let Some(e) = t.strip_prefix("# expect:") {
                    let q = queries
                        .last_mut()
                        .unwrap_or_else(|| panic!("{name}:{lno}: expect without a query"));
                    assert!(!q.has_expect, "{name}:{lno}: second `# expect:`");
                    q.has_expect = true;
                    q.expect = match e.trim() {
                        "match" => true,
                        "no-match" => false,
                        other => {
                            panic!("{name}:{lno}: expect `match` or `no-match`, not {other:?}")
                        }
                    };
                } else if let Some(r) = t.strip_prefix("# oracle: skip") {
                    let q = queries
                        .last_mut()
                        .unwrap_or_else(|| panic!("{name}:{lno}: oracle without a query"));
                    q.oracle_skip = Some(r.trim().to_string());
                } else if !t.is_empty() && !t.starts_with('#') {
                    queries.push(CaseQuery {
                        line: lno,
                        text: t.to_string(),
                        expect: false,
                        has_expect: false,
                        oracle_skip: None,
                    });
                }
            }
        }
    }
    assert!(at == At::Queries, "{name}: needs `# doc:` and `# queries:`");
    for q in &queries {
        assert!(q.has_expect, "{name}:{}: query without `# expect:`", q.line);
    }
    let doc = if escaped {
        doc_lines.iter().map(|l| unescape(l)).collect::<String>()
    } else {
        doc_lines.join("\n")
    };
    Case {
        doc,
        status,
        queries,
        ns,
        raw,
    }
}

fn parse_status(name: &str, lno: usize, s: &str) -> DocStatus {
    match s.trim() {
        "malformed" => DocStatus::Malformed,
        "too_deep" => DocStatus::TooDeep,
        "ok" => DocStatus::Ok,
        other => panic!("{name}:{lno}: unknown status {other:?}"),
    }
}

// ---------- oracle form of a query (quirks 4 and 5) ----------

fn op(o: CmpOp) -> &'static str {
    o.as_str()
}

fn literal(l: &Literal) -> String {
    match l {
        Literal::Str(s) if s.contains('"') => format!("'{s}'"),
        Literal::Str(s) => format!("\"{s}\""),
        Literal::Num(n) => format!("{n}"),
    }
}

fn oracle_steps(steps: &[ast::Step], relative: bool, out: &mut String) {
    for (i, st) in steps.iter().enumerate() {
        match (i, relative, st.axis) {
            (0, true, Axis::Child) => {}
            (0, true, Axis::Descendant) => out.push_str(".//"),
            (_, _, Axis::Child) => out.push('/'),
            (_, _, Axis::Descendant) => out.push_str("//"),
        }
        match &st.test {
            NameTest::Any => out.push('*'),
            NameTest::Name(n) => out.push_str(n),
            NameTest::PrefixAny(p) => {
                let _ = write!(out, "{p}:*");
            }
        }
        for p in &st.predicates {
            out.push('[');
            match &p.kind {
                PredicateKind::Index(n) => {
                    let _ = write!(out, "position() = {n}");
                }
                PredicateKind::And(exprs) => {
                    for (k, e) in exprs.iter().enumerate() {
                        if k > 0 {
                            out.push_str(" and ");
                        }
                        match &e.kind {
                            ExprKind::Path(steps) => oracle_steps(steps, true, out),
                            ExprKind::Attr { name, cmp: None } => {
                                let _ = write!(out, "@{name}");
                            }
                            ExprKind::Attr { name, cmp: Some(c) } => {
                                let _ =
                                    write!(out, "@{name}[. {} {}]", op(c.op), literal(&c.value));
                            }
                            ExprKind::Text { cmp: None } => out.push_str("text()"),
                            ExprKind::Text { cmp: Some(c) } => {
                                let _ = write!(out, "text()[. {} {}]", op(c.op), literal(&c.value));
                            }
                            ExprKind::Position { op: o, value } => {
                                let _ = write!(out, "position() {} {value}", op(*o));
                            }
                        }
                    }
                }
            }
            out.push(']');
        }
    }
}

fn oracle_query(q: &str) -> String {
    let ast = parse_query(q).unwrap_or_else(|e| panic!("{q}: {e:?}"));
    let mut s = String::new();
    oracle_steps(&ast.steps, false, &mut s);
    s
}

// ---------- runner ----------

fn ns_options(case: &Case) -> NsOptions {
    if case.raw {
        return NsOptions::raw();
    }
    let mut opts = NsOptions::default();
    for (p, u) in &case.ns {
        opts.bind(&format!("{p}={u}")).expect("a valid binding");
    }
    opts
}

fn check_case(name: &str, case: &Case, failures: &mut Vec<String>) -> usize {
    let texts: Vec<String> = case.queries.iter().map(|q| q.text.clone()).collect();
    let mut file = texts.join("\n");
    if file.is_empty() {
        file = "/*\n".into();
    }
    let results: Vec<_> = [Mode::Holistic, Mode::Paths, Mode::Pairs]
        .into_iter()
        .map(|m| {
            let design = design_from_text_ns(name, &file, m, &ns_options(case));
            let mut e = Engine::new(&design, EngineConfig::default());
            e.filter(case.doc.as_bytes())
        })
        .collect();
    let oracle_doc = oracle_document(&case.doc);
    let oracle_texts: Vec<String> = texts.iter().map(|q| oracle_query(q)).collect();
    let oracle = Oracle::with_namespaces(&oracle_texts, &case.ns);
    let sxd = if case.raw {
        Ok(Vec::new())
    } else {
        oracle.eval(&oracle_doc)
    };
    let mut checked = 0;

    let r = &results[0];
    if r.status != case.status {
        failures.push(format!(
            "{name}: engine status {:?} ({:?}), expected {:?}\n  document: {:?}",
            r.status, r.error, case.status, case.doc
        ));
        return 1;
    }
    if case.status == DocStatus::Malformed {
        if sxd.is_ok() && !case.raw {
            failures.push(format!(
                "{name}: sxd-document accepts a document expected malformed"
            ));
        }
        return 1;
    }
    let sxd = match sxd {
        Ok(m) => Some(m),
        Err(e) if case.status == DocStatus::TooDeep => {
            let _ = e;
            None
        }
        Err(e) => {
            failures.push(format!("{name}: sxd-document rejects the document: {e}"));
            None
        }
    };
    if case.status != DocStatus::Ok {
        return 1;
    }
    for (i, q) in case.queries.iter().enumerate() {
        checked += 1;
        let id = i as u32;
        let got = r.matched.contains(&id);
        let word = |b: bool| if b { "match" } else { "no-match" };
        if got != q.expect {
            failures.push(format!(
                "{name}:{}: {}\n  expected {}, engine says {}\n  document: {:?}",
                q.line,
                q.text,
                word(q.expect),
                word(got),
                case.doc
            ));
        }
        for (mode, res) in ["paths", "pairs"].iter().zip(&results[1..]) {
            if q.expect && !res.matched.contains(&id) {
                failures.push(format!(
                    "{name}:{}: {} — {mode} mode misses the match",
                    q.line, q.text
                ));
            }
        }
        if let (Some(m), None, false) = (&sxd, &q.oracle_skip, case.raw) {
            let s = m.contains(&id);
            if s != q.expect {
                failures.push(format!(
                    "{name}:{}: {}\n  expected {}, sxd-xpath says {} for {}",
                    q.line,
                    q.text,
                    word(q.expect),
                    word(s),
                    oracle_texts[i]
                ));
            }
        }
    }
    checked
}

#[test]
fn xpath_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/xpath_cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 30,
        "expected the case files in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(f).unwrap();
        let case = parse_case(&name, &text);
        checked += check_case(&name, &case, &mut failures);
    }
    println!("{} case files, {checked} checks", files.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
