//! File-driven tests of the FlexTrack parser.
//!
//! `tests/track/parse/NAME.pat` is a pattern file; `NAME.expected` holds, per
//! non-comment line, `ok ID: CANONICAL` or the rendered diagnostic. The
//! canonical text of every parsed pattern must parse back to the same tree.
//! Regenerate with `QRTL_BLESS=1 cargo test --release --test track_parse`.

use qrtl_track::syntax::{parse_pattern, parse_pattern_file, TrackErrorKind};
use std::fs;
use std::path::Path;

fn bless() -> bool {
    std::env::var_os("QRTL_BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

/// Spans differ after printing; compare the printed forms instead.
fn roundtrip(text: &str) {
    let p = parse_pattern(text).expect("parses");
    let printed = p.to_string();
    let again = parse_pattern(&printed).unwrap_or_else(|e| panic!("{printed}: {e:?}"));
    assert_eq!(again.to_string(), printed, "{text}");
}

fn render(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("case file");
    let name = format!(
        "tests/track/parse/{}",
        path.file_name().unwrap().to_string_lossy()
    );
    let (patterns, diags) = parse_pattern_file(&name, &text);
    let mut rows: Vec<(usize, String)> = Vec::new();
    for p in &patterns {
        roundtrip(&p.text);
        rows.push((p.line, format!("ok {}: {}\n", p.id, p.ast)));
    }
    for d in &diags {
        rows.push((d.line, d.render()));
    }
    rows.sort();
    rows.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn parse_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/track/parse");
    let mut failures = Vec::new();
    let mut all = String::new();
    let mut cases = 0;
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().is_none_or(|e| e != "pat") {
            continue;
        }
        cases += 1;
        let got = render(&path);
        all.push_str(&got);
        let exp_path = path.with_extension("expected");
        if bless() {
            fs::write(&exp_path, &got).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&exp_path).unwrap_or_default();
        if got != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}\n--- got\n{got}",
                path.display()
            ));
        }
    }
    assert!(cases >= 4, "case files missing");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every error kind but EmptyPattern (files skip blank lines) is exercised.
    for k in TrackErrorKind::ALL {
        if *k != TrackErrorKind::EmptyPattern {
            assert!(
                all.contains(k.code()),
                "no case file exercises {} ({k:?})",
                k.code()
            );
        }
    }
}

#[test]
fn empty_pattern_and_ids() {
    let e = parse_pattern("   ").unwrap_err();
    assert_eq!(e.kind, TrackErrorKind::EmptyPattern);
    // Ids count non-blank, non-comment lines, bad lines included.
    let (ok, diags) = parse_pattern_file("f", "\n# c\nA\nA..B\n\n  B.C\r\n");
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].line, 4);
    assert_eq!(
        ok.iter().map(|p| (p.id, p.line)).collect::<Vec<_>>(),
        [(0, 3), (2, 6)]
    );
    assert_eq!(ok[1].ast.to_string(), "B.C");
}

#[test]
fn codes_are_distinct() {
    let mut codes: Vec<&str> = TrackErrorKind::ALL.iter().map(|k| k.code()).collect();
    codes.sort();
    let n = codes.len();
    codes.dedup();
    assert_eq!(codes.len(), n);
}
