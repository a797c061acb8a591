//! The contract of `qrtl xpath compile` and `qrtl xpath sim` (SPEC §2,
//! §3.3): the project files, `--stats`, diagnostics and exit codes, and
//! `sim` printing exactly `filter`'s JSON lines plus `"cycles"` and
//! `"bytes"`.
//!
//! Every simulation uses one query file (`queries/xpath/news-paths.txt`),
//! so the whole file needs one Verilator build, one Verilator `--trace-fst`
//! build and two Icarus builds (default options and `--max-depth 3`), all
//! content-cached in the sim cache. Simulations run one at a time. Verilator and Icarus Verilog
//! must be installed: the tests fail without them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use serde_json::Value;

const PATHS: &str = "queries/xpath/news-paths.txt";
const MONDAY: &str = "queries/xpath/docs/monday.xml";
const TUESDAY: &str = "queries/xpath/docs/tuesday.xml";
const BROKEN: &str = "queries/xpath/docs/broken.xml";

/// Simulations take this lock: no two cold builds of the same design at once.
static SIM: Mutex<()> = Mutex::new(());

fn sim_lock() -> std::sync::MutexGuard<'static, ()> {
    SIM.lock().unwrap_or_else(|e| e.into_inner())
}

fn qrtl<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
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

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-cli-rtl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A run must end with an exit code: a panic (101) or a signal is a bug.
fn code(o: &Output) -> i32 {
    let c = o.status.code().unwrap_or_else(|| {
        panic!("killed by a signal: {}", stderr(o));
    });
    assert!(!stderr(o).contains("panicked"), "panic: {}", stderr(o));
    c
}

fn tools_present() {
    for (tool, arg) in [("verilator", "--version"), ("iverilog", "-V")] {
        match Command::new(tool).arg(arg).output() {
            Ok(_) => {}
            Err(e) => panic!(
                "`{tool}` is required by these tests and was not found ({e}); \
                 install it with `apt-get install verilator iverilog ccache` (or `make deps`)"
            ),
        }
    }
}

/// `(id, line, text)` of every query of a query file (SPEC §2: blank lines
/// and `#` lines are skipped; ids count the remaining lines).
fn query_lines(text: &str) -> Vec<(u64, u64, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .enumerate()
        .map(|(id, (i, l))| (id as u64, i as u64 + 1, l.trim().to_string()))
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

// ---------------------------------------------------------------- compile

#[test]
fn compile_writes_the_whole_project_with_the_clock_and_query_map() {
    let d = temp_dir("project");
    let out = d.join("proj");
    let o = qrtl(&[
        "xpath",
        "compile",
        PATHS,
        "-o",
        out.to_str().unwrap(),
        "--clock-mhz",
        "150",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "compile prints nothing without --stats");

    // files.f lists exactly the files of rtl/, each a Verilog module.
    let files = std::fs::read_to_string(out.join("files.f")).unwrap();
    let listed: Vec<&str> = files.lines().collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(out.join("rtl"))
        .unwrap()
        .map(|e| format!("rtl/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    let mut sorted: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    sorted.sort();
    assert_eq!(sorted, on_disk, "files.f lists every rtl/ file once");
    for f in &listed {
        assert!(f.ends_with(".v"), "{f}");
        let text = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(text.contains("module "), "{f} holds a module");
    }
    assert!(listed.contains(&"rtl/qrtl_sax.v"), "{listed:?}");
    assert!(listed.contains(&"rtl/qrtl_xpath_c0.v"), "{listed:?}");
    assert_eq!(
        listed.last(),
        Some(&"rtl/qrtl_xpath_top.v"),
        "the top comes last"
    );
    let top = std::fs::read_to_string(out.join("rtl/qrtl_xpath_top.v")).unwrap();
    assert!(top.contains("module qrtl_xpath_top"), "{top}");

    // Constraints: 150 MHz is a 6.667 ns period.
    let c = |ext: &str| {
        std::fs::read_to_string(out.join(format!("constraints/qrtl_xpath_top.{ext}")))
            .unwrap_or_else(|e| panic!("{ext}: {e}"))
    };
    for ext in ["xdc", "sdc"] {
        assert!(
            c(ext).contains("create_clock -name clk -period 6.667 [get_ports clk]"),
            "{ext}:\n{}",
            c(ext)
        );
    }
    assert!(
        c("lpf").contains("FREQUENCY PORT \"clk\" 150 MHZ;"),
        "{}",
        c("lpf")
    );
    assert!(c("pcf").contains("--freq 150"), "{}", c("pcf"));

    let vivado = std::fs::read_to_string(out.join("vivado.tcl")).unwrap();
    assert!(
        vivado.contains("read_xdc [file join $here constraints qrtl_xpath_top.xdc]"),
        "{vivado}"
    );
    assert!(
        vivado.contains("synth_design -top qrtl_xpath_top"),
        "{vivado}"
    );
    assert!(vivado.contains("clock 150 MHz"), "{vivado}");

    for ys in ["xc7", "xc6v", "ecp5", "ice40"] {
        let s = std::fs::read_to_string(out.join(format!("synth/{ys}.ys")))
            .unwrap_or_else(|e| panic!("synth/{ys}.ys: {e}"));
        for f in &listed {
            let define = format!("QRTL_TARGET_{}", ys.to_ascii_uppercase());
            assert!(
                s.contains(&format!("read_verilog -defer -D{define} {f}")),
                "{ys}: {f}"
            );
        }
        assert!(s.contains("-top qrtl_xpath_top"), "{ys}:\n{s}");
    }

    let core = std::fs::read_to_string(out.join("qrtl_xpath.core")).unwrap();
    assert!(core.starts_with("CAPI=2:"), "{core}");
    assert!(core.contains("toplevel: qrtl_xpath_top"), "{core}");
    for f in &listed {
        assert!(core.contains(&format!("- {f}")), "core lists {f}");
    }
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("150 MHz"), "{readme}");
    assert!(readme.contains("qrtl_xpath_top"), "{readme}");
    assert!(out.join("Makefile").is_file());

    // manifest.json: the clock, the files, every query's line and bit.
    let m = read_json(&out.join("manifest.json"));
    assert_eq!(m["kind"], "xpath");
    assert_eq!(m["clock_mhz"], 150.0);
    assert_eq!(m["top"], "qrtl_xpath_top");
    let mfiles: Vec<&str> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(mfiles, listed);
    assert_eq!(m["parameters"]["mode"], "holistic");
    assert_eq!(m["parameters"]["max_depth"], 32);
    let expect = query_lines(&std::fs::read_to_string(repo(PATHS)).unwrap());
    assert_eq!(expect.len(), 10);
    check_query_map(&m, &expect);
    assert_eq!(m["result"]["words_per_document"], 2);
    let _ = std::fs::remove_dir_all(&d);
}

/// `manifest.json`'s `queries`: one entry per query id, in id order, with
/// its line, text, and bit `id % 32` of result word `1 + id / 32`.
fn check_query_map(m: &Value, expect: &[(u64, u64, String)]) {
    let qs = m["queries"].as_array().expect("queries array");
    assert_eq!(qs.len(), expect.len(), "{}", m["queries"]);
    let clusters = m["parameters"]["clusters"].as_u64().unwrap();
    for (q, (id, line, text)) in qs.iter().zip(expect) {
        assert_eq!(q["id"], *id, "{q}");
        assert_eq!(q["line"], *line, "{q}");
        assert_eq!(q["text"], text.as_str(), "{q}");
        assert_eq!(q["word"], 1 + id / 32, "{q}");
        assert_eq!(q["bit"], id % 32, "{q}");
        assert!(q["cluster"].as_u64().unwrap() < clusters, "{q}");
    }
    assert_eq!(
        m["result"]["words_per_document"],
        1 + (expect.len() as u64).div_ceil(32)
    );
}

#[test]
fn compile_maps_ids_past_the_first_word_and_splits_clusters() {
    let d = temp_dir("manyq");
    let mut text = String::from("# 70 queries, comments and blank lines between them\n");
    for i in 0..70 {
        if i % 9 == 0 {
            text.push_str("\n# a comment\n");
        }
        text.push_str(&format!("/r/t{i}\n"));
    }
    let q = write(&d, "q.txt", &text);
    let out = d.join("proj");
    let o = qrtl(&[
        "xpath",
        "compile",
        &q,
        "-o",
        out.to_str().unwrap(),
        "--cluster-size",
        "16",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let m = read_json(&out.join("manifest.json"));
    assert_eq!(m["parameters"]["clusters"], 5, "ceil(70 / 16)");
    assert_eq!(m["parameters"]["cluster_size"], 16);
    check_query_map(&m, &query_lines(&text));
    let mut per_cluster = [0usize; 5];
    for q in m["queries"].as_array().unwrap() {
        per_cluster[q["cluster"].as_u64().unwrap() as usize] += 1;
    }
    assert!(per_cluster.iter().all(|&n| n <= 16), "{per_cluster:?}");
    for k in 0..5 {
        assert!(
            out.join(format!("rtl/qrtl_xpath_c{k}.v")).is_file(),
            "cluster {k}"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `--stats` pass rows: `(pass, ran, [clusters, nodes, columns, gs_bits])`
/// (the mode comparison that follows them is checked elsewhere).
fn stats_table(out: &str) -> Vec<(String, String, [u64; 4])> {
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().expect("header").split_whitespace().collect();
    assert_eq!(
        header,
        ["pass", "ran", "clusters", "nodes", "columns", "gs_bits", "pops", "pop_cols"],
        "{out}"
    );
    lines
        .take_while(|l| !l.starts_with("mode "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (name, ran, nums) = match f.len() {
                7 => (f[0], "", &f[1..]),
                8 => (f[0], f[1], &f[2..]),
                _ => panic!("bad stats row `{l}`"),
            };
            let n: Vec<u64> = nums.iter().map(|x| x.parse().unwrap()).collect();
            (name.to_string(), ran.to_string(), [n[0], n[1], n[2], n[3]])
        })
        .collect()
}

#[test]
fn compile_stats_prints_one_row_per_pass_and_no_compaction_keeps_columns() {
    let d = temp_dir("stats");
    let run = |extra: &[&str], name: &str| {
        let out = d.join(name);
        let mut args = vec![
            "xpath",
            "compile",
            PATHS,
            "-o",
            out.to_str().unwrap(),
            "--stats",
        ];
        args.extend_from_slice(extra);
        let o = qrtl(&args);
        assert_eq!(code(&o), 0, "{extra:?}: {}", stderr(&o));
        let m = read_json(&out.join("manifest.json"));
        (stats_table(&stdout(&o)), m)
    };
    let (default, m_default) = run(&[], "default");
    let names: Vec<&str> = default.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "(lowered)",
            "cluster",
            "prefix-merge",
            "last-column",
            "root-gs",
            "compaction",
            "naming"
        ]
    );
    assert_eq!(default[0].1, "", "(lowered) has no `ran`");
    assert!(default[1..].iter().all(|r| r.1 == "yes"), "{default:?}");
    let cols =
        |t: &[(String, String, [u64; 4])], pass: &str| t.iter().find(|r| r.0 == pass).unwrap().2[2];
    // The lowered design has one column per node.
    assert_eq!(default[0].2[1], default[0].2[2]);
    // On news-paths.txt compaction shares exact columns of different tags.
    assert!(
        cols(&default, "compaction") < cols(&default, "root-gs"),
        "{default:?}"
    );
    assert_eq!(
        m_default["stats"]["after"]["columns"],
        default.last().unwrap().2[2],
        "the table's last row is the manifest's result"
    );

    let (no_comp, m_no_comp) = run(&["--no-compaction"], "nocomp");
    let row = no_comp.iter().find(|r| r.0 == "compaction").unwrap();
    assert_eq!(row.1, "no", "{no_comp:?}");
    assert_eq!(cols(&no_comp, "compaction"), cols(&no_comp, "root-gs"));
    assert_eq!(
        cols(&no_comp, "naming"),
        cols(&default, "root-gs"),
        "without compaction the columns stay as after root-gs"
    );
    assert!(cols(&no_comp, "naming") > cols(&default, "naming"));
    assert_eq!(
        m_no_comp["stats"]["after"]["columns"],
        cols(&no_comp, "naming")
    );
    assert_eq!(
        m_no_comp["parameters"]["disabled_passes"],
        serde_json::json!(["compaction"])
    );
    // --disable-pass compaction is the same thing.
    let (disabled, _) = run(&["--disable-pass", "compaction"], "disabled");
    assert_eq!(disabled, no_comp);
    let _ = std::fs::remove_dir_all(&d);
}

// ----------------------------------------------------------------- errors

/// Compile `queries` (a file in `d`) and expect exit 1, nothing written.
fn compile_fails(d: &Path, q: &str, extra: &[&str]) -> String {
    let out = d.join("never");
    let mut args = vec!["xpath", "compile", q, "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = qrtl(&args);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
    assert!(!out.exists(), "no project is written for a rejected file");
    stderr(&o)
}

/// Twigs, `text()` and positional predicates compile in every mode; the
/// manifest records the mode and sibling order; `--stats` compares the
/// modes' columns.
#[test]
fn compile_accepts_twigs_text_and_positions_in_every_mode() {
    let d = temp_dir("twig");
    let q = write(
        &d,
        "q.txt",
        "# twig\n//a\n/r/a[b]/c\n//x[text()='1']\n/r/a[2]\n",
    );
    for (mode, extra) in [
        ("holistic", &[][..]),
        ("holistic", &["--ordered"][..]),
        ("paths", &["--mode", "paths"][..]),
        ("pairs", &["--mode", "pairs"][..]),
    ] {
        let out = d.join(format!("{mode}{}", extra.len()));
        let mut args = vec!["xpath", "compile", &q, "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = qrtl(&args);
        assert_eq!(code(&o), 0, "{mode} {extra:?}: {}", stderr(&o));
        let m = read_json(&out.join("manifest.json"));
        assert_eq!(m["parameters"]["mode"], mode);
        assert_eq!(
            m["parameters"]["ordered"],
            extra.contains(&"--ordered"),
            "{extra:?}"
        );
    }
    let o = qrtl(&[
        "xpath",
        "compile",
        &q,
        "-o",
        d.join("stats").to_str().unwrap(),
        "--stats",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    let modes: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|l| !l.starts_with("mode "))
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        modes.iter().map(|r| r[0]).collect::<Vec<_>>(),
        ["holistic", "paths", "pairs"],
        "{text}"
    );
    // Holistic needs pop columns for `/r/a[b]/c`; the split modes none.
    assert!(modes[0][3].parse::<u32>().unwrap() > 0, "{text}");
    assert_eq!(modes[1][3], "0", "{text}");
    assert_eq!(modes[0][5], "0", "holistic saves nothing against itself");
    let _ = std::fs::remove_dir_all(&d);
}

/// `sim` of a twig design prints what `filter` prints (plus cycles and
/// bytes), in holistic and ordered matching.
#[test]
fn sim_matches_filter_on_twigs_text_and_positions() {
    let d = temp_dir("twigsim");
    let q = write(
        &d,
        "q.txt",
        "/r[a][b]\n/r/a[2][text()='y']\n//a[text()]\n/r[b][a]\n//r[.//c]\n",
    );
    let x1 = write(&d, "x1.xml", "<r><a>x</a><b/><a>y<c/></a></r>");
    let x2 = write(&d, "x2.xml", "<r><b/><a>y</a></r>");
    for extra in [&[][..], &["--ordered"][..]] {
        let mut args = vec!["xpath", "filter", &q, &x1, &x2];
        args.extend_from_slice(extra);
        let f = qrtl(&args);
        assert_eq!(code(&f), 0, "{}", stderr(&f));
        args[1] = "sim";
        let s = qrtl(&args);
        assert_eq!(code(&s), 0, "{}", stderr(&s));
        let want: Vec<serde_json::Value> = stdout(&f)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let got: Vec<serde_json::Value> = stdout(&s)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), 2);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g["matched"], w["matched"], "{extra:?}: {g} vs {w}");
            assert_eq!(g["status"], w["status"]);
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `sim --namespaces xpath` (the namespace unit in the RTL) prints what
/// `filter` prints: matches by namespace URI, the declaration file's and
/// `--ns` prefixes, and the namespace faults with their notes.
#[test]
fn sim_resolves_namespaces_as_filter_does() {
    let d = temp_dir("nssim");
    let q = write(
        &d,
        "q.txt",
        "declare namespace a = \"urn:atom\";\n//a:entry\n/a:feed/*[2]\n//entry\n//t:*[@k]\n",
    );
    let x1 = write(
        &d,
        "x1.xml",
        "<feed xmlns='urn:atom'><entry/><p:entry xmlns:p='urn:t' k='1'/><entry xmlns=''/></feed>",
    );
    let x2 = write(&d, "x2.xml", "<feed><q:entry/></feed>");
    let args = [
        "filter",
        &q,
        &x1,
        &x2,
        "--namespaces",
        "xpath",
        "--ns",
        "t=urn:t",
    ];
    let mut f_args = vec!["xpath"];
    f_args.extend_from_slice(&args);
    let f = qrtl(&f_args);
    assert_eq!(code(&f), 0, "{}", stderr(&f));
    f_args[1] = "sim";
    let s = qrtl(&f_args);
    assert_eq!(code(&s), 0, "{}", stderr(&s));
    let lines = |o: &Output| -> Vec<serde_json::Value> {
        stdout(o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (want, got) = (lines(&f), lines(&s));
    assert_eq!(got.len(), 2);
    assert_eq!(want[0]["matched"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(want[1]["status"], "malformed");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g["matched"], w["matched"], "{g} vs {w}");
        assert_eq!(g["status"], w["status"]);
    }
    assert!(
        stderr(&s).contains("namespace prefix not declared"),
        "{}",
        stderr(&s)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compile_reports_parse_errors_exactly_as_check() {
    let d = temp_dir("parse");
    let q = write(&d, "q.txt", "//a\n/r/[\na/b\n/a[@x=]\n");
    let err = compile_fails(&d, &q, &[]);
    let check = qrtl(&["xpath", "check", &q]);
    assert_eq!(code(&check), 1);
    assert_eq!(err, stderr(&check));
    assert!(err.contains(&format!("{q}:2:4: error[E0")), "{err}");
    assert!(err.contains(&format!("{q}:3:1: error")), "{err}");
    assert!(err.contains(&format!("{q}:4:")), "{err}");
    // sim refuses the file the same way.
    let x = write(&d, "x.xml", "<a/>");
    let o = qrtl(&["xpath", "sim", &q, &x]);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    assert_eq!(stderr(&o), stderr(&check));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn usage_errors_of_compile_and_sim_exit_2() {
    let d = temp_dir("usage");
    let out = d.join("never");
    let out_s = out.to_str().unwrap();
    for (extra, needle) in [
        (&["--disable-pass", "bogus"][..], "bogus"),
        (&["--disable-pass", "naming"], "naming"),
        (&["--clock-mhz", "0"], "--clock-mhz"),
        (&["--clock-mhz", "nan"], "--clock-mhz"),
        (&["--clock-mhz", "2001"], "--clock-mhz"),
        (&["--mode", "bogus"], "bogus"),
        (&["--max-depth", "0"], "0"),
        (&["--cluster-size", "-1"], "-1"),
    ] {
        let mut args = vec!["xpath", "compile", PATHS, "-o", out_s];
        args.extend_from_slice(extra);
        let o = qrtl(&args);
        assert_eq!(code(&o), 2, "compile {extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{extra:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "");
        assert!(!out.exists(), "{extra:?}: nothing written");

        let mut args = vec!["xpath", "sim", PATHS, MONDAY];
        args.extend_from_slice(extra);
        let o = qrtl(&args);
        assert_eq!(code(&o), 2, "sim {extra:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "");
    }
    // The message lists the passes one may disable.
    let o = qrtl(&[
        "xpath",
        "compile",
        PATHS,
        "-o",
        out_s,
        "--disable-pass",
        "naming",
    ]);
    assert!(
        stderr(&o).contains("cluster, prefix-merge, last-column, root-gs, compaction"),
        "{}",
        stderr(&o)
    );
    for args in [
        &["xpath", "compile", PATHS][..],                    // no -o
        &["xpath", "sim", PATHS],                            // no document
        &["xpath", "sim", PATHS, MONDAY, "--in-gap", "100"], // 0-99
        &["xpath", "sim", PATHS, MONDAY, "--simulator", "vcs"],
    ] {
        let o = qrtl(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compile_to_an_unwritable_directory_is_an_error_not_a_panic() {
    let d = temp_dir("unwritable");
    let file = write(&d, "plain-file", "not a directory\n");
    for out in [format!("{file}/sub"), file.clone()] {
        let o = qrtl(&["xpath", "compile", PATHS, "-o", &out]);
        assert_eq!(code(&o), 1, "{out}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains(&file), "names the path: {err}");
        assert_eq!(stdout(&o), "");
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "not a directory\n",
        "the file is left alone"
    );
    let _ = std::fs::remove_dir_all(&d);
}

// -------------------------------------------------------------------- sim

/// `filter`'s output on `docs` (news-paths.txt).
fn filter(docs: &[&str]) -> Output {
    let mut args = vec!["xpath", "filter", PATHS];
    args.extend_from_slice(docs);
    qrtl(&args)
}

fn sim(docs: &[&str], extra: &[&str]) -> Output {
    tools_present();
    let mut args = vec!["xpath", "sim", PATHS];
    args.extend_from_slice(docs);
    args.extend_from_slice(extra);
    qrtl(&args)
}

/// The latency the compiled design announces in its manifest.
fn manifest_latency() -> u64 {
    let d = temp_dir("latency");
    let out = d.join("proj");
    let o = qrtl(&["xpath", "compile", PATHS, "-o", out.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lat = read_json(&out.join("manifest.json"))["result"]["latency_cycles"]
        .as_u64()
        .unwrap();
    let _ = std::fs::remove_dir_all(&d);
    lat
}

/// Each `sim` line is the `filter` line with `"cycles"` and `"bytes"`
/// appended, byte for byte; returns the cycles.
fn assert_filter_plus(sim_out: &str, filter_out: &str, docs: &[&str]) -> Vec<u64> {
    let s: Vec<&str> = sim_out.lines().collect();
    let f: Vec<&str> = filter_out.lines().collect();
    assert_eq!(s.len(), docs.len(), "one line per document:\n{sim_out}");
    assert_eq!(f.len(), docs.len(), "{filter_out}");
    let mut cycles = Vec::new();
    for ((sl, fl), doc) in s.iter().zip(&f).zip(docs) {
        let v: Value = serde_json::from_str(sl).unwrap();
        assert_eq!(v["doc"], *doc, "input order");
        // `repo` keeps an absolute path as it is.
        let bytes = std::fs::metadata(repo(doc)).unwrap().len();
        assert_eq!(v["bytes"], bytes, "{sl}");
        let c = v["cycles"].as_u64().expect("cycles");
        let want = format!(
            "{},\"cycles\":{c},\"bytes\":{bytes}}}",
            fl.strip_suffix('}').unwrap()
        );
        assert_eq!(*sl, want, "sim = filter + cycles + bytes");
        // Compare the shared fields programmatically as well.
        let fv: Value = serde_json::from_str(fl).unwrap();
        for k in ["doc", "status", "matched"] {
            assert_eq!(v[k], fv[k], "{k} of {doc}");
        }
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 5, "{sl}");
        cycles.push(c);
    }
    cycles
}

#[test]
fn sim_prints_filters_json_plus_cycles_and_bytes_in_input_order() {
    let _g = sim_lock();
    let d = temp_dir("simorder");
    let small = write(
        &d,
        "small.xml",
        "<news date=\"x\"><story lang=\"fr\"><body><p>a</p></body></story><table/></news>",
    );
    let docs = [TUESDAY, MONDAY, small.as_str(), BROKEN, MONDAY];
    let o = sim(&docs, &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let f = filter(&docs);
    assert_eq!(code(&f), 0);
    let cycles = assert_filter_plus(&stdout(&o), &stdout(&f), &docs);
    // Without stalls every document takes bytes - 1 + latency cycles.
    let lat = manifest_latency();
    let s: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (v, c) in s.iter().zip(&cycles) {
        assert_eq!(*c, v["bytes"].as_u64().unwrap() - 1 + lat, "{v}");
    }
    // The samples do match something, and small.xml matches 4, 5 and 9.
    assert_eq!(s[2]["matched"], serde_json::json!([4, 5, 9]), "{}", s[2]);
    assert_eq!(s[3]["status"], "malformed");

    // The malformed note: the same reason as filter's (which also has a position).
    let note = |err: &str| -> String {
        let l = err
            .lines()
            .find(|l| l.starts_with(BROKEN) && l.contains(": note: malformed: "))
            .unwrap_or_else(|| panic!("no malformed note for {BROKEN}: {err}"))
            .to_string();
        l.split(": note: malformed: ").nth(1).unwrap().to_string()
    };
    let (sim_err, filter_err) = (stderr(&o), stderr(&f));
    assert!(
        sim_err.contains(&format!("{BROKEN}: note: malformed: ")),
        "{sim_err}"
    );
    assert_eq!(note(&sim_err), note(&filter_err));
    assert_eq!(sim_err.lines().count(), 1, "only the note: {sim_err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sim_reports_an_empty_document_as_an_error_and_the_others_still() {
    let _g = sim_lock();
    let d = temp_dir("simempty");
    let empty = write(&d, "empty.xml", "");
    let o = sim(&[MONDAY, &empty, TUESDAY], &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("{empty}: error: empty document")),
        "{err}"
    );
    let f = filter(&[MONDAY, TUESDAY]);
    assert_filter_plus(&stdout(&o), &stdout(&f), &[MONDAY, TUESDAY]);
    // Nothing but unusable documents: exit 1, no output.
    let o = sim(&[&empty, "/nonexistent/qrtl/doc.xml"], &[]);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains(&empty), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/nonexistent/qrtl/doc.xml"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sim_reports_an_unreadable_document_and_exits_1() {
    let _g = sim_lock();
    let missing = "/nonexistent/qrtl/missing.xml";
    let o = sim(&[missing, MONDAY], &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("{missing}: error: cannot read document")),
        "{}",
        stderr(&o)
    );
    let f = filter(&[MONDAY]);
    assert_filter_plus(&stdout(&o), &stdout(&f), &[MONDAY]);
    // A directory is unreadable as a document too.
    let o = sim(&["queries/xpath/docs", TUESDAY], &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("queries/xpath/docs"), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 1);
}

#[test]
fn sim_with_icarus_prints_the_same_json_as_verilator() {
    let _g = sim_lock();
    let d = temp_dir("icarus");
    let docs = [MONDAY, BROKEN, TUESDAY];
    let v = sim(&docs, &["--simulator", "verilator"]);
    assert_eq!(code(&v), 0, "{}", stderr(&v));
    let vcd = d.join("wave.vcd");
    let i = sim(
        &docs,
        &["--simulator", "icarus", "--trace", vcd.to_str().unwrap()],
    );
    assert_eq!(code(&i), 0, "{}", stderr(&i));
    assert_eq!(stdout(&i), stdout(&v), "identical lines, cycles included");
    assert_eq!(stderr(&i), stderr(&v), "identical notes");
    // Icarus writes a VCD with the top's AXI ports.
    let wave = std::fs::read_to_string(&vcd).unwrap();
    assert!(wave.contains("$enddefinitions"), "VCD header");
    assert!(wave.contains("s_axis_tdata"), "the top's ports are traced");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sim_under_random_stalls_gives_the_same_results() {
    let _g = sim_lock();
    let docs = [MONDAY, BROKEN, TUESDAY, MONDAY];
    let calm = sim(&docs, &[]);
    assert_eq!(code(&calm), 0, "{}", stderr(&calm));
    let f = filter(&docs);
    let calm_cycles = assert_filter_plus(&stdout(&calm), &stdout(&f), &docs);
    for seed in ["1", "7"] {
        let o = sim(
            &docs,
            &["--in-gap", "30", "--out-stall", "40", "--stall-seed", seed],
        );
        assert_eq!(code(&o), 0, "seed {seed}: {}", stderr(&o));
        let cycles = assert_filter_plus(&stdout(&o), &stdout(&f), &docs);
        // 30% input gaps stretch every document of hundreds of bytes.
        for (c, calm) in cycles.iter().zip(&calm_cycles) {
            assert!(c > calm, "seed {seed}: {cycles:?} vs {calm_cycles:?}");
        }
    }
}

#[test]
fn sim_trace_writes_a_waveform() {
    let _g = sim_lock();
    let d = temp_dir("trace");
    let fst = d.join("wave.fst");
    let plain = sim(&[MONDAY], &[]);
    let o = sim(&[MONDAY], &["--trace", fst.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&plain), "tracing changes no result");
    let bytes = std::fs::read(&fst).unwrap_or_else(|e| panic!("{}: {e}", fst.display()));
    assert!(bytes.len() > 1000, "{} bytes", bytes.len());
    assert_eq!(bytes[0], 0, "FST header block first");
    // A waveform that cannot be written is an error with either simulator
    // (the Verilator driver alone would run without it and exit 0).
    let file = write(&d, "plain-file", "");
    for (simulator, name) in [("verilator", "w.fst"), ("icarus", "w.vcd")] {
        let bad = format!("{file}/{name}");
        let o = sim(&[MONDAY], &["--simulator", simulator, "--trace", &bad]);
        assert_eq!(code(&o), 1, "{simulator}: {}", stderr(&o));
        assert!(stderr(&o).contains(&bad), "{simulator}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{simulator}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sim_max_depth_flags_too_deep_documents_as_filter_does() {
    let _g = sim_lock();
    let d = temp_dir("depth");
    let deep = write(
        &d,
        "deep.xml",
        "<news><story><body><p/></body></story></news>",
    );
    let ok = write(&d, "ok.xml", "<news date=\"d\"><story><p/></story></news>");
    let docs = [deep.as_str(), ok.as_str()];
    // Icarus: a second small design, built in a few seconds.
    let o = sim(&docs, &["--max-depth", "3", "--simulator", "icarus"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mut args = vec!["xpath", "filter", PATHS, "--max-depth", "3"];
    args.extend_from_slice(&docs);
    let f = qrtl(&args);
    assert_filter_plus(&stdout(&o), &stdout(&f), &docs);
    assert!(stdout(&o).lines().next().unwrap().contains("\"too_deep\""));
    assert!(
        stdout(&o)
            .lines()
            .nth(1)
            .unwrap()
            .contains("\"matched\":[5]"),
        "{}",
        stdout(&o)
    );
    assert!(
        stderr(&o).contains(&format!("{deep}: note: too_deep: ")),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}
