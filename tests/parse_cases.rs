//! File-driven tests of the XPath parser (`qrtl_xpath::syntax`).
//!
//! - `tests/parse/ok/NAME.txt`: query files that must parse without a single
//!   diagnostic. `NAME.ast` holds a dump of every parsed query (one node per
//!   line, spans as byte ranges; format in `tests/parse/support.rs`). Every
//!   query must also print (`Display`) and parse back to the same tree.
//! - `tests/parse/err/NAME.txt`: every query line must give exactly one
//!   error. `NAME.expected` holds the rendered diagnostics, exactly as
//!   `qrtl xpath check` prints them.
//! - `tests/parse/mixed/NAME.txt`: no constraint; `NAME.expected` holds the
//!   parsed queries (with ids) and the diagnostics.
//!
//! Every error kind except `EmptyQuery` (blank lines are skipped in files)
//! must occur in some `err/` case.
//!
//! On a mismatch each differing file is shown as a diff. To accept the
//! current output as the new expectation, run
//!
//! ```text
//! QRTL_BLESS=1 cargo test -p qrtl --test parse_cases
//! ```
//!
//! and review the changes to `tests/parse/` with `git diff`.
//!
//! The YFilter NITF query suites (`../shared/data/yfilter-nitf/queries/*.txt`)
//! must parse without error and round-trip through the printer. They hold
//! 3,200 queries (`wc -l` says 3,199: `simple_predicates.txt` has no final
//! line break).

#[path = "parse/support.rs"]
mod support;

use qrtl_core::diag::Diagnostic;
use qrtl_xpath::syntax::{parse_query, parse_query_file, SourceQuery, XPathErrorKind};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use support::{dump, strip_spans};

fn parse_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parse")
}

fn bless() -> bool {
    std::env::var_os("QRTL_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The `.txt` files of `tests/parse/<dir>`, sorted.
fn cases(dir: &str) -> Vec<PathBuf> {
    let path = parse_dir().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no cases in {}", path.display());
    files
}

struct Parsed {
    /// `dir/NAME.txt`, as diagnostics name the file.
    name: String,
    queries: Vec<SourceQuery>,
    diags: Vec<Diagnostic>,
    /// Lines that hold a query (not blank, not a comment).
    query_lines: Vec<usize>,
}

fn parse_case(dir: &str, path: &Path) -> Parsed {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file_name = path.file_name().expect("file name").to_string_lossy();
    let name = format!("{dir}/{file_name}");
    let qf = parse_query_file(&name, &text);
    let (queries, diags) = (qf.queries, qf.diagnostics);
    let query_lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, _)| i + 1)
        .collect();
    Parsed {
        name,
        queries,
        diags,
        query_lines,
    }
}

fn render(p: &Parsed) -> String {
    let mut out = String::new();
    for q in &p.queries {
        let _ = writeln!(out, "#{} line {}: {}", q.id, q.line, q.text);
        out.push_str(&dump(&q.ast));
        out.push('\n');
    }
    for d in &p.diags {
        out.push_str(&d.render());
        out.push('\n');
    }
    out
}

/// Compare `actual` with the file at `expected_path` (or write it when
/// blessing); returns a description of the mismatch.
fn check_snapshot(expected_path: &Path, actual: &str) -> Option<String> {
    if bless() {
        std::fs::write(expected_path, actual)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        return None;
    }
    let expected = match std::fs::read_to_string(expected_path) {
        Ok(t) => t,
        Err(e) => return Some(format!("{}: {e}\n", expected_path.display())),
    };
    if expected == actual {
        return None;
    }
    Some(format!(
        "{} differs (left: expected, right: actual):\n{}\n",
        expected_path.display(),
        pretty_assertions::StrComparison::new(&expected, actual)
    ))
}

fn finish(failures: Vec<String>) {
    if !failures.is_empty() {
        panic!(
            "{} parse case(s) failed:\n\n{}\nIf the new output is right: QRTL_BLESS=1 cargo test -p qrtl --test parse_cases",
            failures.len(),
            failures.join("\n")
        );
    }
}

/// Print, re-parse, compare without spans.
fn round_trip(q: &SourceQuery) -> Option<String> {
    let printed = q.ast.to_string();
    match parse_query(&printed) {
        Ok(again) if strip_spans(&again) == strip_spans(&q.ast) => {
            let reprinted = again.to_string();
            (reprinted != printed).then(|| {
                format!(
                    "line {}: printing is not stable: `{printed}` then `{reprinted}`",
                    q.line
                )
            })
        }
        Ok(again) => Some(format!(
            "line {}: `{}` printed as `{printed}`, which parses to a different tree:\n{}\nvs\n{}",
            q.line,
            q.text.trim(),
            dump(&q.ast),
            dump(&again)
        )),
        Err(e) => Some(format!(
            "line {}: `{}` printed as `{printed}`, which does not parse: {e:?}",
            q.line,
            q.text.trim()
        )),
    }
}

#[test]
fn ok_cases() {
    let mut failures = Vec::new();
    for path in cases("ok") {
        let p = parse_case("ok", &path);
        if !p.diags.is_empty() {
            failures.push(format!(
                "{}: expected no errors, got:\n{}",
                p.name,
                p.diags.iter().map(Diagnostic::render).collect::<String>()
            ));
            continue;
        }
        assert_eq!(p.queries.len(), p.query_lines.len(), "{}", p.name);
        for q in &p.queries {
            if let Some(f) = round_trip(q) {
                failures.push(format!("{}: {f}", p.name));
            }
        }
        failures.extend(check_snapshot(&path.with_extension("ast"), &render(&p)));
    }
    finish(failures);
}

#[test]
fn err_cases() {
    let mut failures = Vec::new();
    for path in cases("err") {
        let p = parse_case("err", &path);
        for q in &p.queries {
            failures.push(format!(
                "{}:{}: expected an error, parsed `{}`",
                p.name, q.line, q.text
            ));
        }
        let error_lines: Vec<usize> = p.diags.iter().map(|d| d.line).collect();
        let unique: BTreeSet<usize> = error_lines.iter().copied().collect();
        if unique.len() != error_lines.len() {
            failures.push(format!(
                "{}: more than one error on a line: {error_lines:?}",
                p.name
            ));
        }
        failures.extend(check_snapshot(
            &path.with_extension("expected"),
            &render(&p),
        ));
    }
    finish(failures);
}

#[test]
fn mixed_cases() {
    let mut failures = Vec::new();
    for path in cases("mixed") {
        let p = parse_case("mixed", &path);
        let mut ids: Vec<usize> = p.queries.iter().map(|q| q.id).collect();
        let error_lines: BTreeSet<usize> = p.diags.iter().map(|d| d.line).collect();
        // Ids are positions among query lines, errors or not.
        for (id, line) in p.query_lines.iter().enumerate() {
            if !error_lines.contains(line) && !ids.contains(&id) {
                failures.push(format!("{}:{line}: no query with id {id}", p.name));
            }
        }
        ids.dedup();
        assert_eq!(ids.len(), p.queries.len(), "{}: duplicate ids", p.name);
        failures.extend(check_snapshot(
            &path.with_extension("expected"),
            &render(&p),
        ));
    }
    finish(failures);
}

#[test]
fn every_error_kind_has_a_case() {
    let mut seen = BTreeSet::new();
    for path in cases("err") {
        seen.extend(parse_case("err", &path).diags.iter().map(|d| d.code));
    }
    let missing: Vec<_> = XPathErrorKind::ALL
        .iter()
        // EmptyQuery: files skip blank lines; PrefixWildcard: no longer
        // produced (`p:*` parses; raw designs reject it when lowering).
        .filter(|k| {
            !matches!(
                k,
                XPathErrorKind::EmptyQuery | XPathErrorKind::PrefixWildcard
            ) && !seen.contains(k.code())
        })
        .map(|k| format!("{k:?} ({})", k.code()))
        .collect();
    assert!(
        missing.is_empty(),
        "error kinds without a case in tests/parse/err: {missing:?}"
    );
    assert_eq!(
        parse_query("   ").unwrap_err()[0].kind,
        XPathErrorKind::EmptyQuery
    );
}

#[test]
fn yfilter_nitf_queries_all_parse() {
    let dir = qrtl_xpath::workload::nitf_dir().join("queries");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the YFilter suites are required)", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut counts = Vec::new();
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("query file");
        let name = path.display().to_string();
        let qf = parse_query_file(&name, &text);
        let (queries, diags) = (qf.queries, qf.diagnostics);
        failures.extend(diags.iter().map(Diagnostic::render));
        for q in &queries {
            failures.extend(round_trip(q).map(|f| format!("{name}: {f}")));
        }
        let file = path
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        counts.push((file, queries.len()));
    }
    finish(failures);
    let counts: Vec<(&str, usize)> = counts.iter().map(|(f, n)| (f.as_str(), *n)).collect();
    assert_eq!(
        counts,
        [
            ("mixed.txt", 1000),
            ("nested_paths.txt", 1000),
            ("simple_paths.txt", 200),
            ("simple_predicates.txt", 1000)
        ]
    );
}
