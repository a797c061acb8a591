//! `qrtl xpath compile --programmable` and `qrtl xpath configure`: the
//! generic design's project, a query set's configuration stream (read back
//! against the project's sizes), the dump, refusals with the resource and
//! the amounts (exit 1, nothing written) and usage errors (exit 2).

use qrtl_xpath::ir::generic::{Config, Shape};
use qrtl_xpath::ir::xpath::Namespaces;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn qrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run qrtl")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-prog-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn compile(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "xpath",
        "compile",
        "--programmable",
        "--namespaces",
        "raw",
        "-o",
        s(dir),
    ];
    args.extend_from_slice(extra);
    qrtl(&args)
}

#[test]
fn a_programmable_project_and_its_configuration() {
    let t = temp_dir("project");
    let design = t.join("design");
    let o = compile(
        &design,
        &["--columns", "256", "--cluster-size", "128", "--window", "8"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(design.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["kind"], "xpath-programmable");
    let p = &manifest["parameters"]["programmable"];
    assert_eq!(
        (
            p["columns"].as_u64(),
            p["cluster_size"].as_u64(),
            p["window"].as_u64()
        ),
        (Some(256), Some(128), Some(8))
    );
    let ports: Vec<&str> = manifest["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        ports.contains(&"s_cfg_tdata") && ports.contains(&"s_cfg_tready"),
        "{ports:?}"
    );
    for f in [
        "qrtl_xpath_top.v",
        "qrtl_gen_cluster.v",
        "qrtl_gen_decoder.v",
        "qrtl_gen_loader.v",
        "qrtl_sax.v",
    ] {
        assert!(design.join("rtl").join(f).is_file(), "rtl/{f}");
    }

    let queries = "/nitf/head/title\n//body//p\n/*/body[.//p]/head\n//a[b][c/d]\n";
    let qfile = t.join("q.txt");
    std::fs::write(&qfile, queries).unwrap();
    let cfg = t.join("q.bin");
    let dump = t.join("q.dump");
    let o = qrtl(&[
        "xpath",
        "configure",
        s(&qfile),
        "--design",
        s(&design),
        "-o",
        s(&cfg),
        "--dump",
        s(&dump),
        "--id",
        "7",
        "--namespaces",
        "raw",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let bytes = std::fs::read(&cfg).unwrap();
    assert_eq!(bytes.len() % 8, 0, "whole 64-bit words");
    let words: Vec<u64> = bytes
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let shape = Shape {
        cluster_size: 128,
        window: 8,
        tags: 128,
        namespaces: Namespaces::Raw,
        ..Shape::with_columns(256)
    };
    let (config, id) = Config::from_words(&shape, &words).expect("the stream reads back");
    assert_eq!(id, 7);
    assert_eq!(config.queries.len(), 4);
    let text = std::fs::read_to_string(&dump).unwrap();
    assert!(
        text.starts_with("# ") && text.contains("query 0 flags"),
        "{text}"
    );
    assert_eq!(
        text,
        config.to_string(),
        "the dump is the configuration read back"
    );
}

#[test]
fn a_set_that_does_not_fit_is_refused_and_nothing_is_written() {
    let t = temp_dir("refuse");
    let design = t.join("design");
    let o = compile(
        &design,
        &[
            "--columns",
            "16",
            "--cluster-size",
            "16",
            "--tags",
            "256",
            "--comparators",
            "0",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cfg = t.join("nitf.bin");
    let suite = "../shared/data/yfilter-nitf/queries/simple_paths.txt";
    let o = qrtl(&[
        "xpath",
        "configure",
        suite,
        "--design",
        s(&design),
        "-o",
        s(&cfg),
        "--namespaces",
        "raw",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("needs ") && e.contains(" columns; the design has 16"),
        "{e}"
    );
    assert!(!cfg.exists(), "nothing written");
    // Predicates need comparators, which this design has none of.
    let o = qrtl(&[
        "xpath",
        "configure",
        "queries/xpath/news.txt",
        "--design",
        s(&design),
        "-o",
        s(&cfg),
        "--namespaces",
        "raw",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("comparators; the design has 0"),
        "{}",
        stderr(&o)
    );
    // Read with XPath names, against a raw design.
    let o = qrtl(&[
        "xpath",
        "configure",
        suite,
        "--design",
        s(&design),
        "-o",
        s(&cfg),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--namespaces raw"), "{}", stderr(&o));
    // Not a programmable project.
    let o = qrtl(&[
        "xpath",
        "configure",
        suite,
        "--design",
        s(&t),
        "-o",
        s(&cfg),
        "--namespaces",
        "raw",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!cfg.exists());
}

#[test]
fn programmable_usage_errors_exit_2() {
    let t = temp_dir("usage");
    let out = t.join("d");
    for (args, says) in [
        (
            vec!["xpath", "compile", "--programmable", "-o", s(&out)],
            "--namespaces raw",
        ),
        (
            vec![
                "xpath",
                "compile",
                "--programmable",
                "--namespaces",
                "raw",
                "--columns",
                "100",
                "--cluster-size",
                "64",
                "-o",
                s(&out),
            ],
            "whole number of clusters",
        ),
        (
            vec![
                "xpath",
                "compile",
                "queries/xpath/news.txt",
                "--programmable",
                "--namespaces",
                "raw",
                "-o",
                s(&out),
            ],
            "cannot be used with",
        ),
    ] {
        let o = qrtl(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(!out.exists(), "{args:?}: nothing written");
    }
}

/// `sim --programmable`: the generic design configured with the queries
/// gives `filter`'s answers (the same JSON, plus cycles, bytes and the
/// configuration id): structural queries, and queries with attribute,
/// `text()` and positional predicates (both runs use one cached build).
#[test]
fn sim_programmable_gives_filters_answers() {
    let docs = [
        "queries/xpath/docs/monday.xml",
        "queries/xpath/docs/tuesday.xml",
        "queries/xpath/docs/broken.xml",
    ];
    for q in ["queries/xpath/news-structure.txt", "queries/xpath/news.txt"] {
        let mut args = vec!["xpath", "filter", q, "--namespaces", "raw"];
        args.extend(docs);
        let want = qrtl(&args);
        let mut args = vec!["xpath", "sim", q, "--in-gap", "20", "--out-stall", "20"];
        args.extend_from_slice(SIM_SIZES);
        args.extend(docs);
        let got = {
            let _built_once = sim_lock();
            qrtl(&args)
        };
        assert_eq!(got.status.code(), Some(0), "{q}: {}", stderr(&got));
        let lines = |o: &Output| -> Vec<serde_json::Value> {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        let (want, got) = (lines(&want), lines(&got));
        assert_eq!(got.len(), 3);
        for (w, g) in want.iter().zip(&got) {
            assert_eq!(
                (&g["doc"], &g["status"], &g["matched"]),
                (&w["doc"], &w["status"], &w["matched"]),
                "{q}"
            );
            assert_eq!((&g["config"], &g["queries"]), (&json!(1), &json!(q)));
            assert!(g["cycles"].as_u64().unwrap() > 0 && g["bytes"].as_u64().unwrap() > 0);
        }
        assert!(
            !got[0]["matched"].as_array().unwrap().is_empty(),
            "{q}: monday matches queries"
        );
    }
}

/// The sizes every `sim --programmable` of this file uses, so that the
/// generic design is built once (the simulator cache) for all of them.
const SIM_SIZES: &[&str] = &[
    "--programmable",
    "--namespaces",
    "raw",
    "--columns",
    "64",
    "--cluster-size",
    "32",
    "--general-columns",
    "16",
    "--comparators",
    "12",
];

/// Held by each test that simulates: the first builds the design of
/// [`SIM_SIZES`], the others wait and find it in the simulator cache
/// instead of building the same design at the same time.
static SIM_BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn sim_lock() -> std::sync::MutexGuard<'static, ()> {
    SIM_BUILD.lock().unwrap_or_else(|e| e.into_inner())
}

/// The JSON lines of a command's stdout.
fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `filter`'s `matched` for one document under a `config` step's options.
fn filter_matched(queries: &Path, options: &[&str], doc: &str) -> serde_json::Value {
    let mut args = vec!["xpath", "filter", s(queries), doc, "--namespaces", "raw"];
    args.extend_from_slice(options);
    let o = qrtl(&args);
    json_lines(&o)[0]["matched"].clone()
}

/// Three query sets (a sample with twigs, a sample under `--mode paths`, a
/// handwritten twig set under `--ordered`) loaded in turn into one
/// simulation, documents in between, stalls on every stream: each document
/// is answered by the step's configuration (its id, its query file) with
/// `filter`'s matches for that set; a document before any `config` by the
/// empty configuration.
#[test]
fn a_session_swaps_query_sets_between_documents() {
    let t = temp_dir("session");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let q = |f: &str| root.join("queries/xpath").join(f);
    let d = |f: &str| root.join("queries/xpath/docs").join(f);
    let twigs = t.join("twigs.txt");
    std::fs::write(
        &twigs,
        "# handwritten: order-sensitive twigs\n/news[wire][story]\n//story[keywords][headline]\n\
         //story[headline][keywords]//p\n/news/story[byline/name]/body\n",
    )
    .unwrap();
    // (id, query file, options) per config step; the documents after it.
    let sets: [(u64, PathBuf, &[&str], &[&str]); 3] = [
        (
            1,
            q("news-structure.txt"),
            &[],
            &["monday.xml", "tuesday.xml"],
        ),
        (
            9,
            q("news-twigs.txt"),
            &["--mode", "paths"],
            &["tuesday.xml", "broken.xml"],
        ),
        (
            3,
            twigs.clone(),
            &["--ordered"],
            &["tuesday.xml", "monday.xml"],
        ),
    ];
    let mut session = format!("doc {}   # before any config\n", s(&d("monday.xml")));
    for (id, file, options, docs) in &sets {
        let explicit = if *id == 9 { " --id 9" } else { "" };
        session += &format!("config {} {}{explicit}\n\n", s(file), options.join(" "));
        for doc in *docs {
            session += &format!("doc {}\n", s(&d(doc)));
        }
    }
    let file = t.join("hot.session");
    std::fs::write(&file, &session).unwrap();
    let mut args = vec!["xpath", "sim", "--session", s(&file)];
    args.extend_from_slice(SIM_SIZES);
    args.extend(["--in-gap", "25", "--out-stall", "25", "--stall-seed", "5"]);
    let o = {
        let _built_once = sim_lock();
        qrtl(&args)
    };
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got = json_lines(&o);
    assert_eq!(got.len(), 7, "one line per document: {got:?}");
    let first = &got[0];
    assert_eq!(
        (&first["config"], &first["queries"], &first["matched"]),
        (&json!(0), &json!(null), &json!([]))
    );
    let mut lines = got[1..].iter();
    for (id, file, options, docs) in &sets {
        for doc in *docs {
            let g = lines.next().unwrap();
            let doc = d(doc);
            assert_eq!(g["doc"], s(&doc), "{session}");
            assert_eq!((&g["config"], &g["queries"]), (&json!(id), &json!(s(file))));
            let want = filter_matched(file, options, s(&doc));
            assert_eq!(g["matched"], want, "{} {options:?} on {}", s(file), s(&doc));
        }
    }
    // The swaps change the answers: tuesday under each set.
    let tuesday: Vec<&serde_json::Value> = [2, 3, 5].iter().map(|&i| &got[i]["matched"]).collect();
    assert!(
        tuesday[0] != tuesday[1] && tuesday[1] != tuesday[2],
        "{tuesday:?}"
    );
}

/// Errors in a session file are reported together at their FILE:LINE:COL
/// and nothing runs (exit 1); a set that does not fit names the resource
/// and the amounts.
#[test]
fn a_bad_session_is_refused_at_its_lines() {
    let t = temp_dir("bad-session");
    std::fs::write(t.join("q.txt"), "/a/b\n").unwrap();
    std::fs::write(t.join("d.xml"), "<a><b/></a>").unwrap();
    let many: String = (0..40).map(|i| format!("/r/c{i}/d{i}\n")).collect();
    std::fs::write(t.join("many.txt"), many).unwrap();
    let file = t.join("bad.session");
    std::fs::write(
        &file,
        "config q.txt\n  confg q.txt\nconfig q.txt --mode holistc\nconfig many.txt\n\
         config q.txt --id 1\ndoc d.xml gone.xml\n",
    )
    .unwrap();
    let mut args = vec!["xpath", "sim", "--session", s(&file)];
    args.extend_from_slice(SIM_SIZES);
    args.extend(["--tags", "128"]);
    let o = qrtl(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "nothing ran");
    let e = stderr(&o);
    let f = s(&file);
    for want in [
        format!("{f}:2:3: error[E0902]: unknown step `confg`"),
        format!("{f}:3:21: error[E0903]: bad `config` step: invalid value 'holistc'"),
        format!(
            "{f}:4:8: error[E0906]: {} does not fit the design: needs ",
            s(&t.join("many.txt"))
        ),
        " columns; the design has 64 (".to_string(),
        format!("{f}:5:14: error[E0907]: configuration id 1 is already the one of line 1"),
        format!(
            "{f}:6:11: error[E0904]: cannot read {}",
            s(&t.join("gone.xml"))
        ),
        format!("{f}: 5 errors in 5 steps"),
    ] {
        assert!(e.contains(&want), "{want}\nin\n{e}");
    }
    // Usage errors (exit 2): no --programmable, a query file, a step's option.
    for extra in [
        &["--columns", "64"][..],
        &["queries/xpath/news.txt", "--programmable"],
        &["--programmable", "--ordered"],
    ] {
        let mut args = vec!["xpath", "sim", "--session", f, "--namespaces", "raw"];
        args.extend_from_slice(extra);
        let o = qrtl(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
    }
}
