//! The `qrtl` binary's contract (SPEC §2): JSON lines, statuses, exit codes
//! 0 / 1 (bad input) / 2 (usage), diagnostics with FILE:LINE:COL, no panics.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn qrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run qrtl")
}

/// `qrtl` with `stdin` as standard input.
fn qrtl_stdin(args: &[&str], stdin: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::from(std::fs::File::open(stdin).unwrap()))
        .output()
        .expect("run qrtl")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn filter_prints_one_json_line_per_document_in_order() {
    let o = qrtl(&[
        "xpath",
        "filter",
        "queries/xpath/news.txt",
        "queries/xpath/docs/monday.xml",
        "queries/xpath/docs/broken.xml",
        "queries/xpath/docs/tuesday.xml",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["doc"], "queries/xpath/docs/monday.xml");
    assert_eq!(lines[0]["status"], "ok");
    assert_eq!(lines[1]["doc"], "queries/xpath/docs/broken.xml");
    assert_eq!(lines[1]["status"], "malformed");
    assert_eq!(lines[2]["status"], "ok");
    // Query 0 (/news/story/headline) matches monday and tuesday.
    for l in [&lines[0], &lines[2]] {
        assert!(
            l["matched"]
                .as_array()
                .unwrap()
                .contains(&serde_json::json!(0)),
            "{l}"
        );
    }
    assert!(
        stderr(&o).contains("broken.xml:3:34: note: malformed"),
        "malformed note names the position: {}",
        stderr(&o)
    );
}

#[test]
fn exact_output_format() {
    let d = temp_dir("format");
    let q = write(&d, "q.txt", "# comment\n\n//a\n/r/b\n//c\n");
    let x = write(&d, "x.xml", "<r><a/><c/></r>");
    let o = qrtl(&["xpath", "filter", &q, &x]);
    assert_eq!(
        stdout(&o),
        format!("{{\"doc\":\"{x}\",\"status\":\"ok\",\"matched\":[0,2]}}\n")
    );
}

#[test]
fn check_reports_every_error_with_location_and_exits_1() {
    let d = temp_dir("check");
    let q = write(
        &d,
        "bad.txt",
        "/a/b\na/b\n# comment\n/a[@x=]\n//ok\n/a[b][2]\n",
    );
    let o = qrtl(&["xpath", "check", &q]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains(&format!("{q}:2:1: error")), "{err}");
    assert!(
        err.contains("//"),
        "relative query error names the fixes: {err}"
    );
    assert!(err.contains(&format!("{q}:4:")), "{err}");
    assert!(
        err.contains(&format!("{q}:6:")),
        "lowering errors are reported too: {err}"
    );
    assert!(err.contains('^'), "caret line: {err}");
}

#[test]
fn check_accepts_the_sample_and_nitf_suites() {
    let mixed = qrtl_xpath::workload::nitf_dir().join("queries/mixed.txt");
    for f in [
        "queries/xpath/news.txt",
        mixed.to_str().expect("UTF-8 path"),
    ] {
        let o = qrtl(&["xpath", "check", f]);
        assert_eq!(o.status.code(), Some(0), "{f}: {}", stderr(&o));
    }
}

#[test]
fn filter_refuses_a_query_file_with_errors() {
    let d = temp_dir("refuse");
    let q = write(&d, "q.txt", "//a\n//b[\n");
    let x = write(&d, "x.xml", "<a/>");
    let o = qrtl(&["xpath", "filter", &q, &x]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).is_empty(),
        "no partial results when queries are bad"
    );
    assert!(stderr(&o).contains(&format!("{q}:2:")), "{}", stderr(&o));
}

#[test]
fn unreadable_inputs_are_errors_not_panics() {
    let d = temp_dir("missing");
    let q = write(&d, "q.txt", "//a\n");
    let x = write(&d, "x.xml", "<a/>");
    let o = qrtl(&["xpath", "filter", &q, "/nonexistent/doc.xml", &x]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent/doc.xml"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        stdout(&o).lines().count(),
        1,
        "the readable document is still filtered"
    );
    let o = qrtl(&["xpath", "check", "/nonexistent/q.txt"]);
    assert_eq!(o.status.code(), Some(1));
    let bin = write(&d, "bin.txt", "");
    std::fs::write(&bin, [0x2f, 0x61, 0xff, 0xfe, b'\n']).unwrap();
    let o = qrtl(&["xpath", "check", &bin]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("UTF-8"), "{}", stderr(&o));
    let empty = write(&d, "empty.txt", "# nothing\n\n");
    let o = qrtl(&["xpath", "filter", &empty, &x]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no queries"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["xpath", "filter", "queries/xpath/news.txt"][..],
        &[
            "xpath",
            "filter",
            "--mode",
            "bogus",
            "queries/xpath/news.txt",
            "x.xml",
        ],
        &[
            "xpath",
            "filter",
            "--max-depth",
            "0",
            "queries/xpath/news.txt",
            "x.xml",
        ],
        &[
            "xpath",
            "filter",
            "--jobs",
            "0",
            "queries/xpath/news.txt",
            "x.xml",
        ],
        &[
            "xpath",
            "filter",
            "--jobs",
            "x",
            "queries/xpath/news.txt",
            "x.xml",
        ],
        &[
            "xpath",
            "filter",
            "--split",
            "lines",
            "queries/xpath/news.txt",
            "x.xml",
        ],
        &["xpath", "frobnicate"],
        &[],
    ] {
        let o = qrtl(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn max_depth_flags_too_deep_documents() {
    let d = temp_dir("depth");
    let q = write(&d, "q.txt", "//a\n");
    let x = write(&d, "x.xml", "<a><a><a><a/></a></a></a>");
    let o = qrtl(&["xpath", "filter", "--max-depth", "3", &q, &x]);
    assert!(stdout(&o).contains("\"too_deep\""), "{}", stdout(&o));
    let o = qrtl(&["xpath", "filter", "--max-depth", "4", &q, &x]);
    assert!(stdout(&o).contains("\"ok\""), "{}", stdout(&o));
}

#[test]
fn modes_are_selectable() {
    let d = temp_dir("modes");
    let q = write(&d, "q.txt", "/r/a[b]/c\n");
    let x = write(&d, "x.xml", "<r><a><b/></a><a><c/></a></r>");
    let run = |mode: &str| stdout(&qrtl(&["xpath", "filter", "--mode", mode, &q, &x]));
    assert!(run("holistic").contains("\"matched\":[]"));
    assert!(run("paths").contains("\"matched\":[0]"));
    assert!(run("pairs").contains("\"matched\":[0]"));
}

#[test]
fn check_can_dump_the_ir_per_mode() {
    let o = qrtl(&["xpath", "check", "--dump-ir", "queries/xpath/news.txt"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.contains("n0 /news  push\n"),
        "plain path: push columns only\n{out}"
    );
    assert!(out.contains("push+pop"), "twigs get pop columns\n{out}");
    let o = qrtl(&[
        "xpath",
        "check",
        "--dump-ir",
        "--mode",
        "pairs",
        "queries/xpath/news.txt",
    ]);
    assert!(
        stdout(&o).contains("shared by"),
        "pairs are shared across queries"
    );
}

/// The NITF documents (sorted) with malformed ones among them: a truncated
/// NITF document, a mismatched close tag, an empty file.
fn nitf_docs(d: &Path) -> Vec<String> {
    let dir = qrtl_xpath::workload::nitf_dir().join("docs");
    let mut docs: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    docs.sort();
    let first = std::fs::read(&docs[0]).unwrap();
    let cut = std::str::from_utf8(&first[..first.len() / 2]).unwrap_or("<a>");
    docs.insert(3, write(d, "truncated.xml", cut));
    docs.insert(40, "queries/xpath/docs/broken.xml".into());
    docs.insert(70, write(d, "empty.xml", ""));
    docs
}

fn nitf_queries() -> String {
    let q = qrtl_xpath::workload::nitf_dir().join("queries/mixed.txt");
    q.display().to_string()
}

/// `xpath filter` with extra flags, the queries, the documents.
fn filter_with(flags: &[&str], queries: &str, docs: &[String]) -> Output {
    let mut args = vec!["xpath", "filter"];
    args.extend_from_slice(flags);
    args.push(queries);
    args.extend(docs.iter().map(String::as_str));
    qrtl(&args)
}

#[test]
fn filter_jobs_give_identical_output() {
    let d = temp_dir("jobs");
    let mut docs = nitf_docs(&d);
    docs.insert(20, "/nonexistent/doc.xml".into());
    let q = nitf_queries();
    let one = filter_with(&["--jobs", "1"], &q, &docs);
    assert_eq!(one.status.code(), Some(1), "{}", stderr(&one));
    assert_eq!(stdout(&one).lines().count(), docs.len() - 1);
    let err = stderr(&one);
    assert_eq!(
        err.lines().count(),
        4,
        "three notes and one read error: {err}"
    );
    assert!(
        err.contains("/nonexistent/doc.xml: error: cannot read"),
        "{err}"
    );
    for jobs in [&["--jobs", "2"][..], &["--jobs", "3"], &[]] {
        let o = filter_with(jobs, &q, &docs);
        assert_eq!(o.status.code(), Some(1), "{jobs:?}");
        assert_eq!(stdout(&o), stdout(&one), "{jobs:?}");
        assert_eq!(stderr(&o), err, "{jobs:?}");
    }
}

/// Names and the rest of each line: stdout's `"doc"` values, stderr's
/// `NAME:` prefixes.
fn split_names(o: &Output) -> (Vec<String>, Vec<String>, Vec<String>) {
    let mut names = Vec::new();
    let mut lines = Vec::new();
    for l in stdout(o).lines() {
        let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
        let doc = v.as_object_mut().unwrap().remove("doc").unwrap();
        names.push(doc.as_str().unwrap().to_string());
        lines.push(v.to_string());
    }
    let notes = stderr(o)
        .lines()
        .map(|l| l.split_once(':').unwrap().1.to_string())
        .collect();
    (names, lines, notes)
}

#[test]
fn split_nul_equals_per_file_results() {
    let d = temp_dir("split");
    let docs = nitf_docs(&d);
    let q = nitf_queries();
    let per_file = filter_with(&["--jobs", "1"], &q, &docs);
    let (_, want, want_notes) = split_names(&per_file);
    assert_eq!(want_notes.len(), 3, "{}", stderr(&per_file));
    let bytes: Vec<Vec<u8>> = docs.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let stream = bytes.join(&0u8);
    let bare = d.join("bare.nul");
    std::fs::write(&bare, &stream).unwrap();
    let trailing = d.join("trailing.nul");
    std::fs::write(&trailing, [&stream[..], b"\0"].concat()).unwrap();
    for file in [&bare, &trailing] {
        let f = file.display().to_string();
        for jobs in ["1", "3"] {
            let flags = ["--split", "nul", "--jobs", jobs];
            let from_file = filter_with(&flags, &q, std::slice::from_ref(&f));
            let from_stdin = {
                let mut args = vec!["xpath", "filter"];
                args.extend_from_slice(&flags);
                args.extend([q.as_str(), "-"]);
                qrtl_stdin(&args, file)
            };
            for (o, stem) in [(&from_file, f.as_str()), (&from_stdin, "-")] {
                assert_eq!(o.status.code(), Some(0), "{f} {jobs}: {}", stderr(o));
                let (names, lines, notes) = split_names(o);
                let want_names: Vec<String> =
                    (0..docs.len()).map(|i| format!("{stem}#{i}")).collect();
                assert_eq!(names, want_names, "{f} --jobs {jobs}");
                assert_eq!(lines, want, "{f} --jobs {jobs}");
                assert_eq!(notes, want_notes, "{f} --jobs {jobs}");
            }
        }
    }
}

#[test]
fn split_nul_framing_and_stdin() {
    let d = temp_dir("framing");
    let q = write(&d, "q.txt", "//a\n");
    let s = write(&d, "s.nul", "<a/>\0\0<b/>\0");
    let o = filter_with(&["--split", "nul"], &q, &[s.clone(), s.clone()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let want: String = [&s, &s]
        .iter()
        .flat_map(|s| {
            [
                format!("{{\"doc\":\"{s}#0\",\"status\":\"ok\",\"matched\":[0]}}\n"),
                format!("{{\"doc\":\"{s}#1\",\"status\":\"malformed\",\"matched\":[]}}\n"),
                format!("{{\"doc\":\"{s}#2\",\"status\":\"ok\",\"matched\":[]}}\n"),
            ]
        })
        .collect();
    assert_eq!(stdout(&o), want, "a trailing NUL adds no document");
    assert_eq!(
        stderr(&o),
        format!("{s}#1:1:1: note: malformed: no root element\n").repeat(2),
        "an empty document is malformed, as an empty file"
    );
    let empty = write(&d, "none.nul", "");
    let o = filter_with(&["--split", "nul"], &q, &[empty]);
    assert_eq!((o.status.code(), stdout(&o)), (Some(0), String::new()));
    let missing = d.join("missing.nul").display().to_string();
    let o = filter_with(&["--split", "nul"], &q, &[missing.clone(), s.clone()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with(&format!("{missing}: error: cannot read")));
    assert_eq!(
        stdout(&o).lines().count(),
        3,
        "the other stream is filtered"
    );
    // Without --split, `-` is one document from standard input.
    let x = write(&d, "x.xml", "<r><a/></r>");
    let o = qrtl_stdin(&["xpath", "filter", &q, "-"], Path::new(&x));
    assert_eq!(
        stdout(&o),
        "{\"doc\":\"-\",\"status\":\"ok\",\"matched\":[0]}\n"
    );
}

#[test]
fn namespace_prefixes_are_bound_or_reported_with_their_position() {
    let d = temp_dir("ns");
    let q = write(
        &d,
        "q.txt",
        "declare namespace a = \"http://www.w3.org/2005/Atom\";\n//a:entry\n  /feed/p:x\n",
    );
    let o = qrtl(&["xpath", "check", &q]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains(&format!(
            "{q}:3:9: error[E0202]: prefix `p` is not bound to a namespace"
        )),
        "{e}"
    );
    assert!(e.contains("--ns p=URI"), "{e}");
    let o = qrtl(&["xpath", "check", &q, "--ns", "p=urn:p"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A declaration that rebinds a prefix of --ns points at its URI.
    let o = qrtl(&[
        "xpath",
        "check",
        &q,
        "--ns",
        "a=urn:other",
        "--ns",
        "p=urn:p",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!(
            "{q}:1:23: error[E0204]: prefix `a` is bound to `urn:other` by `--ns`"
        )),
        "{}",
        stderr(&o)
    );
    // Raw names: no bindings, and p:* is refused.
    let raw = write(&d, "raw.txt", "/feed/p:x\n/p:*\n");
    let o = qrtl(&["xpath", "check", &raw, "--namespaces", "raw"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!(
            "{raw}:2:2: error[E0203]: `p:*` needs namespace-aware matching"
        )),
        "{}",
        stderr(&o)
    );
    for bad in [
        &["--ns", "p"][..],
        &["--ns", "xmlns=urn:x"],
        &["--ns", "p=urn:x", "--namespaces", "raw"],
        &["--ns", "p="],
    ] {
        let mut args = vec!["xpath", "check", &q];
        args.extend_from_slice(bad);
        let o = qrtl(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("error: --ns"),
            "{bad:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn filter_matches_by_namespace_uri_and_flags_unbound_document_prefixes() {
    let d = temp_dir("ns-filter");
    let q = write(&d, "q.txt", "//entry\n//a:entry\n//a:*[@a:k]\n");
    let feed = write(
        &d,
        "feed.xml",
        "<feed xmlns='http://www.w3.org/2005/Atom' xmlns:t='http://www.w3.org/2005/Atom'><entry t:k='1'/></feed>",
    );
    let bad = write(&d, "bad.xml", "<feed><x:entry/></feed>");
    let o = qrtl(&[
        "xpath",
        "filter",
        &q,
        &feed,
        &bad,
        "--ns",
        "a=http://www.w3.org/2005/Atom",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(r#"{{"doc":"{feed}","status":"ok","matched":[1,2]}}"#)
    );
    assert_eq!(
        lines[1],
        format!(r#"{{"doc":"{bad}","status":"malformed","matched":[]}}"#)
    );
    assert!(
        stderr(&o).contains(&format!(
            "{bad}:1:16: note: malformed: namespace prefix not declared"
        )),
        "{}",
        stderr(&o)
    );
    let rq = write(&d, "rq.txt", "//x:entry\n");
    let o = qrtl(&["xpath", "filter", &rq, &bad, "--namespaces", "raw"]);
    assert_eq!(
        stdout(&o),
        format!("{{\"doc\":\"{bad}\",\"status\":\"ok\",\"matched\":[0]}}\n")
    );
    // The hardware resolves namespaces too, by default (qrtl_ns): the manifest says so
    // and lists the design's URIs and the unit's capacities.
    let hw = d.join("hw");
    let o = qrtl(&[
        "xpath",
        "compile",
        &rq,
        "-o",
        &hw.display().to_string(),
        "--ns",
        "x=urn:x",
        "--ns-prefixes",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let manifest = std::fs::read_to_string(hw.join("manifest.json")).expect("manifest");
    for want in [
        r#""namespaces": "xpath""#,
        r#""ns_prefixes": 4"#,
        r#""namespace_uris": ["#,
        "namespace prefix not declared",
    ] {
        assert!(manifest.contains(want), "{want} in {manifest}");
    }
    // The unit's capacities without the unit: a usage error.
    let o = qrtl(&[
        "xpath",
        "compile",
        &rq,
        "-o",
        &d.join("hw-raw").display().to_string(),
        "--namespaces",
        "raw",
        "--ns-bindings",
        "4",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--ns-bindings size the namespace unit: they need --namespaces xpath"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("hw-raw").exists());
    // What the unit does not build is a usage error naming the flag and
    // the way out (`--namespaces raw`), before the queries are read.
    for (flag, value, why) in [
        (
            "--bytes-per-clock",
            "2",
            "at one byte per clock; this design takes 2",
        ),
        (
            "--attr-name-bytes",
            "8",
            "attribute names of at least 10 bytes",
        ),
    ] {
        let out = d.join("hw-refused");
        let o = qrtl(&[
            "xpath",
            "compile",
            "no-such-file.txt",
            "-o",
            &out.display().to_string(),
            flag,
            value,
        ]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        let want = format!("error: {flag} {value}: ");
        assert!(stderr(&o).contains(&want), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{flag}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("add --namespaces raw to compare names as bytes"),
            "{flag}: {}",
            stderr(&o)
        );
        assert!(!out.exists(), "{flag}: nothing written");
        // Raw names build at that width.
        let o = qrtl(&[
            "xpath",
            "compile",
            &rq,
            "-o",
            &out.display().to_string(),
            flag,
            value,
            "--namespaces",
            "raw",
        ]);
        assert_eq!(o.status.code(), Some(0), "{flag} raw: {}", stderr(&o));
        std::fs::remove_dir_all(&out).unwrap();
    }
}
