//! `qrtl synth` end to end: real Yosys and nextpnr runs on generated
//! projects of every kind, and its errors.
//!
//! Yosys comes from Debian or the `make deps-synth` venv; nextpnr-ecp5 and
//! nextpnr-ice40 from the venv. A test whose tool is missing fails when
//! `QRTL_REQUIRE_SYNTH=1` (set by `.ci/run`, which installs them) and
//! otherwise says it skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use qrtl_core::synth::tools::{self, ToolKind};
use serde_json::Value;

fn qrtl<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("qrtl runs")
}

fn repo(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-synth-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Whether `qrtl synth` can find `tool`: the library's own search (the
/// test runs in the checkout, as the binary below does).
fn have(tool: ToolKind) -> bool {
    let found = tools::find(tool).is_ok();
    if !found {
        assert!(
            std::env::var_os("QRTL_REQUIRE_SYNTH").is_none(),
            "{} is required (QRTL_REQUIRE_SYNTH is set); run `make deps-synth`",
            tool.native()
        );
        eprintln!("skipped: {} not installed (make deps-synth)", tool.native());
    }
    found
}

fn compile(args: &[&str], dir: &Path) {
    let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    a.push("-o".into());
    a.push(dir.display().to_string());
    let out = qrtl(&a);
    assert!(
        out.status.success(),
        "compile failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The bundled news path queries compiled into a fresh directory.
fn news_project(name: &str) -> PathBuf {
    let dir = tmp(name);
    compile(
        &["xpath", "compile", &repo("queries/xpath/news-paths.txt")],
        &dir,
    );
    dir
}

/// Run `qrtl synth` and return its JSON, checking the contract's keys.
fn synth(dir: &Path, extra: &[&str]) -> Value {
    let mut a = vec!["synth".to_string(), dir.display().to_string()];
    a.extend(extra.iter().map(|s| s.to_string()));
    let out = qrtl(&a);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "synth failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout.trim();
    assert_eq!(line.lines().count(), 1, "one JSON line: {line}");
    let keys: Vec<&str> = [
        "target", "luts", "lut_eq", "ffs", "lutram", "bram", "fmax_mhz", "seconds",
    ]
    .to_vec();
    let order: Vec<usize> = keys
        .iter()
        .map(|k| line.find(&format!("\"{k}\":")).expect(k))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "key order: {line}");
    let v: Value = serde_json::from_str(line).expect("JSON");
    assert_eq!(v.as_object().unwrap().len(), keys.len(), "{line}");
    assert_eq!(
        v["lut_eq"].as_u64().unwrap(),
        v["luts"].as_u64().unwrap() + v["lutram"].as_u64().unwrap()
    );
    v
}

/// Cell counts straight from the Yosys statistics the flow wrote.
fn cells(dir: &Path, target: &str, module: Option<&str>) -> serde_json::Map<String, Value> {
    let stat: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("build/{target}_stat.json"))).unwrap(),
    )
    .unwrap();
    let node = match module {
        None => &stat["design"],
        Some(m) => &stat["modules"][format!("\\{m}")],
    };
    node["num_cells_by_type"].as_object().unwrap().clone()
}

fn count(cells: &serde_json::Map<String, Value>, names: &[&str]) -> u64 {
    names
        .iter()
        .map(|n| cells.get(*n).and_then(Value::as_u64).unwrap_or(0))
        .sum()
}

#[test]
fn xilinx_area_of_an_xpath_project_counts_luts_ffs_and_lutram() {
    if !have(ToolKind::Yosys) {
        return;
    }
    let dir = news_project("xc7");
    let v = synth(&dir, &["--target", "xc7", "--quiet"]);
    assert_eq!(v["target"], "xc7");
    assert!(v["fmax_mhz"].is_null(), "no open place and route for xc7");
    let c = cells(&dir, "xc7", None);
    let luts = count(&c, &["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV"]);
    assert_eq!(v["luts"].as_u64().unwrap(), luts);
    assert_eq!(
        v["ffs"].as_u64().unwrap(),
        count(&c, &["FDRE", "FDSE", "FDCE", "FDPE"])
    );
    // The cluster's stack memory is distributed RAM: RAM32M, 4 LUTs each.
    let ram32m = count(&c, &["RAM32M"]);
    assert!(ram32m > 0, "stack memory in LUTRAM: {c:?}");
    assert!(v["lutram"].as_u64().unwrap() >= 4 * ram32m);
    assert!(
        v["bram"].as_f64().unwrap() > 0.0,
        "the SAX name stack is a block RAM"
    );
    // The full record next to the logs.
    let detail: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("build/synth-xc7.json")).unwrap())
            .unwrap();
    assert_eq!(detail["summary"]["luts"], v["luts"]);
    assert!(detail["unknown_cells"].as_object().unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memories_mapped_in_their_own_module_become_the_same_primitives() {
    if !have(ToolKind::Yosys) {
        return;
    }
    // The news design declares a handful of memories: in place by
    // default, in a module of their own when the limit is below that.
    let dir = news_project("xc7-memory-module");
    let in_place = synth(&dir, &["--target", "xc7", "--quiet"]);
    let c_in_place = cells(&dir, "xc7", None);
    let detail = |dir: &Path| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("build/synth-xc7.json")).unwrap())
            .unwrap()
    };
    assert_eq!(detail(&dir)["memory_mapping"], "in place");
    let apart = synth(
        &dir,
        &["--target", "xc7", "--quiet", "--memory-module-above", "0"],
    );
    assert_eq!(detail(&dir)["memory_mapping"], "own module");
    let script = std::fs::read_to_string(dir.join("build/qrtl_synth_xc7.ys")).unwrap();
    assert!(script.contains("submod -name qrtl_memories"), "{script}");
    let c_apart = cells(&dir, "xc7", None);
    // The memories' primitives and every register are the same; no
    // submodule is left; the LUTs are ABC's, within a few.
    for kind in ["RAM32M", "RAMB18E1", "FDRE", "FDSE"] {
        assert_eq!(c_apart.get(kind), c_in_place.get(kind), "{kind}");
    }
    assert_eq!(in_place["lutram"], apart["lutram"]);
    assert_eq!(in_place["ffs"], apart["ffs"]);
    let (a, b) = (
        in_place["luts"].as_f64().unwrap(),
        apart["luts"].as_f64().unwrap(),
    );
    assert!((a - b).abs() <= 0.02 * a, "LUTs {a} in place, {b} apart");
    assert!(
        !c_apart.keys().any(|k| k.contains("qrtl_memories")),
        "{c_apart:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ecp5_fmax_is_the_median_of_the_seeds_of_the_wrapped_core() {
    if !have(ToolKind::Yosys) || !have(ToolKind::NextpnrEcp5) {
        return;
    }
    let dir = news_project("ecp5");
    let v = synth(&dir, &["--target", "ecp5", "--seeds", "3", "--quiet"]);
    assert_eq!(v["target"], "ecp5");
    let detail: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("build/synth-ecp5.json")).unwrap())
            .unwrap();
    let mut seeds: Vec<f64> = detail["fmax_seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_f64().unwrap())
        .collect();
    assert_eq!(seeds.len(), 3);
    seeds.sort_by(f64::total_cmp);
    let fmax = v["fmax_mhz"].as_f64().unwrap();
    assert!(
        (fmax - seeds[1]).abs() < 0.01,
        "median of {seeds:?}: {fmax}"
    );
    assert!(fmax > 20.0 && fmax < 1000.0, "{fmax} MHz");
    for s in 1..=3 {
        assert!(dir.join(format!("build/ecp5_pnr_seed{s}.log")).is_file());
    }
    // The logic depth of the mapped core: every flip-flop input counted,
    // the deepest ones named by the RTL's registers.
    let depth = &detail["logic_depth"];
    let inputs: u64 = depth["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h[1].as_u64().unwrap())
        .sum();
    assert!(inputs >= v["ffs"].as_u64().unwrap(), "{depth}");
    let deepest = depth["deepest"].as_array().unwrap();
    assert!(!deepest.is_empty() && deepest.len() <= 10, "{depth}");
    // A plausible depth for a small registered design: the report's range
    // check, not a timing target (`make bench` measures Fmax). ABC's
    // mapping of the same comparator moves with the rest of the netlist:
    // 8.5 levels (a value comparator's state) once the parser grew its
    // character and declaration checks, 8 or less before.
    let top = deepest[0]["levels"].as_f64().unwrap();
    assert!((1.0..=10.0).contains(&top), "{depth}");
    assert!(
        deepest.iter().all(
            |d| d["levels"].as_f64().unwrap() <= top && !d["sink"].as_str().unwrap().is_empty()
        ),
        "{depth}"
    );
    // Area is the core's own, not the wrapper's registers.
    let core = cells(&dir, "ecp5", Some("qrtl_xpath_top"));
    assert_eq!(
        v["luts"].as_u64().unwrap(),
        count(&core, &["LUT4"]) + 2 * count(&core, &["CCU2C"])
    );
    assert_eq!(v["ffs"].as_u64().unwrap(), count(&core, &["TRELLIS_FF"]));
    let wrapper = cells(&dir, "ecp5", Some("qrtl_ooc"));
    assert_eq!(
        count(&wrapper, &["qrtl_xpath_top"]),
        1,
        "the core keeps its hierarchy"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rice_and_track_projects_synthesize_too() {
    if !have(ToolKind::Yosys) {
        return;
    }
    let rice = tmp("rice");
    compile(
        &[
            "rice",
            "compile",
            "--k",
            "3",
            "--width",
            "8",
            "--value-bits",
            "16",
        ],
        &rice,
    );
    let v = synth(&rice, &["--target", "xc6v", "--quiet"]);
    assert_eq!(v["target"], "xc6v");
    assert!(v["luts"].as_u64().unwrap() > 50);
    let track = tmp("track");
    compile(
        &[
            "track",
            "compile",
            &repo("queries/track/patterns.txt"),
            "--regions",
            &repo("queries/track/regions.yaml"),
        ],
        &track,
    );
    let v = synth(&track, &["--target", "xc7", "--quiet"]);
    assert!(v["ffs"].as_u64().unwrap() > 0);
    if have(ToolKind::NextpnrIce40) {
        let v = synth(&rice, &["--target", "ice40", "--seeds", "1", "--quiet"]);
        assert_eq!(v["lutram"], 0, "iCE40 has no distributed RAM");
        assert!(v["fmax_mhz"].as_f64().unwrap() > 5.0);
    }
    let _ = std::fs::remove_dir_all(&rice);
    let _ = std::fs::remove_dir_all(&track);
}

#[test]
fn a_missing_tool_names_make_deps_synth() {
    let dir = news_project("missing");
    let out = Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(["synth", &dir.display().to_string(), "--target", "xc7"])
        .env("QRTL_YOSYS", "/nonexistent/yosys")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("yosys not found"), "{err}");
    assert!(err.contains("make deps-synth"), "{err}");
    assert!(err.contains("/nonexistent/yosys"), "{err}");
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tool_run_past_the_time_limit_is_stopped_and_named() {
    if !have(ToolKind::Yosys) {
        return;
    }
    let dir = news_project("limit");
    // 0.001 min = 60 ms: Yosys is still reading the RTL.
    let started = std::time::Instant::now();
    let out = qrtl(&[
        "synth",
        &dir.display().to_string(),
        "--target",
        "xc7",
        "--time-limit",
        "0.001",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "no figures from a stopped run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("yosys synth_xilinx was still running at the time limit of 60 ms"),
        "{err}"
    );
    assert!(err.contains("xc7_yosys.log"), "{err}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "stopped, not waited for"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_directory_that_is_not_a_project_is_an_error() {
    let dir = tmp("notaproject");
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.display().to_string();
    let out = qrtl(&["synth", &d, "--target", "xc7"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("manifest.json: not found"), "{err}");
    std::fs::write(dir.join("manifest.json"), "{\n  \"name\": 3\n}\n").unwrap();
    let out = qrtl(&["synth", &d, "--target", "xc7"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2 column"), "{err}");
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"name":"x","top":"t","clock_mhz":100,"clock_port":"clk","files":["rtl/t.v"],"ports":[]}"#,
    )
    .unwrap();
    let out = qrtl(&["synth", &d, "--target", "xc7"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("source `rtl/t.v` listed but missing"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_flags_are_usage_errors() {
    for args in [
        vec!["synth", "x", "--target", "xc5"],
        vec!["synth", "x"],
        vec!["synth", "x", "--target", "ecp5", "--seeds", "0"],
        vec!["synth", "x", "--target", "ecp5", "--freq-mhz", "-5"],
        vec!["synth", "x", "--target", "ecp5", "--time-limit", "0"],
        vec!["synth", "x", "--target", "ecp5", "--time-limit", "soon"],
    ] {
        let out = qrtl(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}
