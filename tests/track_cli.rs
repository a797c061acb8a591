//! The contract of `qrtl track check|filter|compile|sim` (SPEC §2, §4):
//! JSON lines per trajectory in input order, diagnostics with
//! FILE:LINE:COL and exit codes (1 bad input, 2 usage), the project files,
//! and `sim` printing `filter`'s answer plus events, samples and cycles.
//! One simulation (the sample data, `--variables expand`, Icarus: a quick
//! build) checks the CLI path end to end; `track_rtl.rs` does the heavy
//! differential work in Verilator.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const PATTERNS: &str = "queries/track/patterns.txt";
const MAP: &str = "queries/track/regions.yaml";
const CITY: &str = "queries/track/city.csv";

fn qrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run qrtl")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(o: &Output) -> Vec<Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-track-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn write(name: &str, text: &str) -> String {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn check_ok_and_errors() {
    let o = qrtl(&["track", "check", PATTERNS, "--regions", MAP]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), format!("{PATTERNS}: 9 patterns ok\n"));
    let bad = write("bad.txt", "A.B\n# c\nA..B\n[near, A]\n@x {@y: A}\n");
    let o = qrtl(&["track", "check", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains(&format!("{bad}:3:3: error[E0602]")), "{e}");
    assert!(e.contains(&format!("{bad}:4:2: error[E0606]")), "{e}");
    assert!(e.contains(&format!("{bad}:5:5: error[E0615]")), "{e}");
    assert!(e.contains("3 errors in 4 patterns"), "{e}");
    // A region the map does not define.
    let unknown = write("unknown.txt", "airport.moon\n");
    let o = qrtl(&["track", "check", &unknown, "--regions", MAP]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!(
            "{unknown}:1:9: error[E0651]: unknown region `moon`"
        )),
        "{}",
        stderr(&o)
    );
    let empty = write("empty.txt", "# nothing\n\n");
    assert_eq!(qrtl(&["track", "check", &empty]).status.code(), Some(1));
    assert_eq!(
        qrtl(&["track", "check", "/nonexistent/p.txt"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn filter_json_in_input_order() {
    let o = qrtl(&["track", "filter", PATTERNS, CITY, "--regions", MAP]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Keys in SPEC §2 order.
    assert!(
        stdout(&o).starts_with("{\"trajectory\":\"taxi-1\",\"matched\":["),
        "{}",
        stdout(&o)
    );
    let got: Vec<(String, Vec<u64>)> = lines(&o)
        .iter()
        .map(|v| {
            assert_eq!(v.as_object().unwrap().len(), 2);
            (
                v["trajectory"].as_str().unwrap().to_string(),
                v["matched"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap())
                    .collect(),
            )
        })
        .collect();
    // Hand-checked against the routes in queries/track/city.csv.
    let want: Vec<(String, Vec<u64>)> = vec![
        ("taxi-1".into(), vec![2, 7]),
        ("bus-7".into(), vec![1, 2]),
        ("truck-3".into(), vec![3]),
        ("cab-12".into(), vec![4]),
        ("van-5".into(), vec![5, 6, 8]),
        ("bike-9".into(), vec![2, 3, 6, 7]),
    ];
    assert_eq!(got, want);
    // The relaxed OR adds false positives for @z.?.@z (no set: any region).
    let o = qrtl(&[
        "track",
        "filter",
        "--variables",
        "or",
        PATTERNS,
        CITY,
        "--regions",
        MAP,
    ]);
    let or: Vec<Value> = lines(&o);
    assert_eq!(or[1]["matched"], serde_json::json!([1, 2, 7]));
    for v in ["buffer", "expand"] {
        let o = qrtl(&[
            "track",
            "filter",
            "--variables",
            v,
            PATTERNS,
            CITY,
            "--regions",
            MAP,
        ]);
        let m: Vec<Vec<u64>> = lines(&o)
            .iter()
            .map(|l| {
                l["matched"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(
            m,
            want.iter().map(|w| w.1.clone()).collect::<Vec<_>>(),
            "{v}"
        );
    }
    // Several files, region names without a map.
    let a = write("a.csv", "traj_id,timestamp,region\nq,1,A\nq,2,B\n");
    let b = write("b.csv", "p,1,B\np,3,A\n");
    let pats = write("ab.txt", "A.B\nB.A\n@x\n");
    let o = qrtl(&["track", "filter", &pats, &a, &b]);
    assert_eq!(
        stdout(&o),
        "{\"trajectory\":\"q\",\"matched\":[0,2]}\n{\"trajectory\":\"p\",\"matched\":[1,2]}\n"
    );
}

/// Many trajectories over A..E (a fixed pseudo-random walk each).
fn many_trajectories() -> String {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut csv = String::from("traj_id,timestamp,region\n");
    for t in 0..400 {
        for s in 0..(3 + t % 11) {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let region = ["A", "B", "C", "D", "E", ""][(x >> 33) as usize % 6];
            csv.push_str(&format!("t{t},{s},{region}\n"));
        }
    }
    csv
}

#[test]
fn filter_jobs_give_identical_output() {
    let pats = write(
        "jobs.txt",
        "A.B\nB.?*.A\n@x.?+.@x\n@x.@y.@x\n!A.?.C\nA.@x.B.@x {@x: C, D, E}\n",
    );
    let csv = write("jobs.csv", &many_trajectories());
    for v in ["exact", "buffer", "or"] {
        let run = |jobs: &[&str]| {
            let mut args = vec!["track", "filter", "--variables", v, &pats, &csv];
            args.extend_from_slice(jobs);
            qrtl(&args)
        };
        let one = run(&["--jobs", "1"]);
        assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
        assert_eq!(lines(&one).len(), 400);
        assert!(stdout(&one).contains("\"matched\":[0"), "some matches");
        for jobs in [&["--jobs", "2"][..], &["--jobs", "3"], &[]] {
            let o = run(jobs);
            assert_eq!(o.status.code(), Some(0), "{v} {jobs:?}");
            assert_eq!(o.stdout, one.stdout, "{v} {jobs:?}");
            assert_eq!(o.stderr, one.stderr, "{v} {jobs:?}");
        }
    }
    let o = qrtl(&["track", "filter", "--jobs", "0", &pats, &csv]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn filter_bad_input() {
    let pats = write("p.txt", "A.B\n");
    let bad = write("bad.csv", "t,1,A\nt,1,B\nu,x,A\n");
    let o = qrtl(&["track", "filter", &pats, &bad]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).is_empty(), "nothing printed for rejected input");
    let e = stderr(&o);
    assert!(e.contains(&format!("{bad}:2:3: error[E0718]")), "{e}");
    assert!(e.contains(&format!("{bad}:3:3: error[E0712]")), "{e}");
    let xy = write("xy.csv", "t,1,1.0,2.0\n");
    let o = qrtl(&["track", "filter", &pats, &xy]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("E0715"), "{}", stderr(&o));
    let badmap = write("m.yaml", "origin: [0, 0]\ncell_size: 1\nrows: 1\n");
    let o = qrtl(&["track", "filter", &pats, &xy, "--regions", &badmap]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("E0701"), "{}", stderr(&o));
    // Usage errors.
    assert_eq!(qrtl(&["track", "filter", &pats]).status.code(), Some(2));
    assert_eq!(
        qrtl(&["track", "filter", &pats, &bad, "--variables", "all"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        qrtl(&["track", "compile", &pats, "-o", "x", "--clock-mhz", "0"])
            .status
            .code(),
        Some(2)
    );
    // expand refuses a combinatorial explosion.
    let many = write(
        "many.csv",
        &(0..70).map(|i| format!("t,{i},R{i}\n")).collect::<String>(),
    );
    let two = write("two.txt", "@x.@y.@z\n");
    let o = qrtl(&["track", "filter", "--variables", "expand", &two, &many]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("E0652"), "{}", stderr(&o));
}

#[test]
fn compile_writes_project() {
    let out = tmp("proj");
    let o = qrtl(&[
        "track",
        "compile",
        PATTERNS,
        "--regions",
        MAP,
        "-o",
        out.to_str().unwrap(),
        "--cluster-size",
        "12",
        "--variables",
        "buffer",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in [
        "manifest.json",
        "README.md",
        "files.f",
        "rtl/qrtl_track_top.v",
        "rtl/qrtl_track_c0.v",
        "rtl/qrtl_track_c1.v",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["kind"], "track");
    assert_eq!(m["top"], "qrtl_track_top");
    assert_eq!(m["parameters"]["variables"], "buffer");
    assert_eq!(m["patterns"].as_array().unwrap().len(), 9);
    assert_eq!(
        m["input"]["region_codes"][0],
        serde_json::json!({"code": 1, "name": "airport"})
    );
    let c0 = std::fs::read_to_string(out.join("rtl/qrtl_track_c0.v")).unwrap();
    assert!(
        c0.contains("reg  p1_i0; // pattern 1 line 5 col 1: depot"),
        "{c0}"
    );
    // The lint is part of every simulation build; here the files are also
    // checked stand-alone so `compile` output is lint-clean as written.
    let mut files: Vec<String> = std::fs::read_dir(out.join("rtl"))
        .unwrap()
        .flatten()
        .map(|e| e.path().display().to_string())
        .collect();
    files.sort();
    let lint = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "qrtl_track_top"])
        .args(&files)
        .output()
        .expect("verilator installed (make deps)");
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    // The project simulates through the harness from its manifest alone.
    let (spec, rtl) = qrtl_core::sim::project_sources(Path::new(&out)).expect("project sources");
    assert_eq!(spec.in_data_bits, 64);
    assert_eq!(rtl.len(), files.len());
}

#[test]
fn sim_prints_filter_answer_plus_cycles() {
    let f = qrtl(&["track", "filter", PATTERNS, CITY, "--regions", MAP]);
    let o = qrtl(&[
        "track",
        "sim",
        "--variables",
        "expand",
        "--simulator",
        "icarus",
        "--in-gap",
        "20",
        "--out-stall",
        "30",
        PATTERNS,
        CITY,
        "--regions",
        MAP,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for l in stdout(&o).lines() {
        let keys = [
            "\"trajectory\":",
            "\"matched\":",
            "\"events\":",
            "\"samples\":",
            "\"cycles\":",
        ];
        let at: Vec<usize> = keys.iter().map(|k| l.find(k).expect("key")).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "key order: {l}");
    }
    let sim = lines(&o);
    let filter = lines(&f);
    assert_eq!(sim.len(), filter.len());
    for (s, f) in sim.iter().zip(&filter) {
        assert_eq!(s["trajectory"], f["trajectory"]);
        assert_eq!(s["matched"], f["matched"]);
        assert_eq!(s.as_object().unwrap().len(), 5);
        assert!(s["cycles"].as_u64().unwrap() >= s["samples"].as_u64().unwrap());
    }
    // taxi-1: airport, airport, none, downtown, downtown, market, downtown.
    assert_eq!(sim[0]["samples"], 7);
    assert_eq!(sim[0]["events"], 5);
}

/// `expand` of a variable that ranges over no region (no map, no region in
/// the patterns or the trajectories) has no combination: the pattern can
/// never match. Every command says so without failing, and the RTL of such
/// a pattern is a constant 0 (it used to print `| ;`).
#[test]
fn a_variable_over_no_region_never_matches() {
    let patterns = write("noregion.txt", "@z.?.@z\n");
    let trajs = write("noregion.csv", "traj_id,timestamp,region\nt1,1,\nt1,2,\n");
    let o = qrtl(&[
        "track",
        "filter",
        "--variables",
        "expand",
        &patterns,
        &trajs,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), r#"{"trajectory":"t1","matched":[]}"#);
    let out = tmp("noregion-rtl");
    let o = qrtl(&[
        "track",
        "compile",
        "--variables",
        "expand",
        &patterns,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c0 = std::fs::read_to_string(out.join("rtl/qrtl_track_c0.v")).unwrap();
    assert!(
        c0.contains("wire m_p0_now = (m_p0 & ~ev_first) | 1'b0;"),
        "{c0}"
    );
    let o = qrtl(&[
        "track",
        "sim",
        "--simulator",
        "icarus",
        "--variables",
        "expand",
        &patterns,
        &trajs,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(lines(&o)[0]["matched"], serde_json::json!([]));
}
