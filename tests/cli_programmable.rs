//! `qrtl xpath compile --programmable` and `qrtl xpath configure`: the
//! generic design's project, a query set's configuration stream (read back
//! against the project's sizes), the dump, refusals with the resource and
//! the amounts (exit 1, nothing written) and usage errors (exit 2).

use qrtl_xpath::ir::generic::{Config, Shape};
use qrtl_xpath::ir::xpath::Namespaces;
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
        let mut args = vec![
            "xpath",
            "sim",
            q,
            "--namespaces",
            "raw",
            "--programmable",
            "--columns",
            "64",
            "--cluster-size",
            "32",
            "--comparators",
            "12",
            "--in-gap",
            "20",
            "--out-stall",
            "20",
        ];
        args.extend(docs);
        let got = qrtl(&args);
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
            assert_eq!(g["config"], 1);
            assert!(g["cycles"].as_u64().unwrap() > 0 && g["bytes"].as_u64().unwrap() > 0);
        }
        assert!(
            !got[0]["matched"].as_array().unwrap().is_empty(),
            "{q}: monday matches queries"
        );
    }
}
