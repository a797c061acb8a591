//! `qrtl build DESIGN.yaml -o DIR` (SPEC §2): the project of each design is
//! byte-identical to the one the matching `compile` command writes; broken
//! design files (`tests/build/*.yaml`, each with `# error:` / `# help:`
//! lines that stderr must contain) exit 1 with FILE:LINE:COL diagnostics
//! and write nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn qrtl_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run qrtl")
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-build-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Every file under `dir`, by relative path.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn assert_same_project(built: &Path, compiled: &Path, what: &str) {
    let (a, b) = (tree(built), tree(compiled));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}: the same files"
    );
    for (path, bytes) in &a {
        assert!(bytes == &b[path], "{what}: {} differs", path.display());
    }
    assert!(!a.is_empty(), "{what}: a project was written");
}

fn ok(o: &Output, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_single_design_writes_what_compile_writes() {
    let out = temp_dir("single");
    let (b, c) = (out.join("built"), out.join("compiled"));
    let (bs, cs) = (b.to_str().unwrap(), c.to_str().unwrap());
    ok(
        &qrtl_in(&root(), &["build", "queries/designs/news.yaml", "-o", bs]),
        "build",
    );
    ok(
        &qrtl_in(
            &root(),
            &[
                "xpath",
                "compile",
                "queries/xpath/news-paths.txt",
                "--cluster-size",
                "4",
                "--clock-mhz",
                "150",
                "-o",
                cs,
            ],
        ),
        "compile",
    );
    assert_same_project(&b, &c, "news.yaml");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn every_design_of_a_list_writes_what_its_compile_writes() {
    let out = temp_dir("list");
    let built = out.join("built");
    let o = qrtl_in(
        &root(),
        &[
            "build",
            "queries/designs/all.yaml",
            "-o",
            built.to_str().unwrap(),
        ],
    );
    ok(&o, "build");
    let compiles: [(&str, &[&str]); 3] = [
        ("news", &["xpath", "compile", "queries/xpath/news.txt"]),
        (
            "city",
            &[
                "track",
                "compile",
                "queries/track/patterns.txt",
                "--regions",
                "queries/track/regions.yaml",
                "--variables",
                "expand",
            ],
        ),
        (
            "decoder",
            &[
                "rice",
                "compile",
                "--k",
                "3",
                "--width",
                "32",
                "--value-bits",
                "16",
            ],
        ),
    ];
    for (name, args) in compiles {
        let dir = out.join(format!("compiled-{name}"));
        let mut args = args.to_vec();
        args.extend(["-o", dir.to_str().unwrap()]);
        ok(&qrtl_in(&root(), &args), name);
        assert_same_project(&built.join(name), &dir, name);
    }
    let listed = String::from_utf8_lossy(&o.stdout);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn broken_design_files_are_reported_where_they_break_and_write_nothing() {
    let dir = root().join("tests/build");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "the cases are there");
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(case).unwrap();
        let expected: Vec<&str> = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("# error: ")
                    .or_else(|| l.strip_prefix("# help: "))
            })
            .collect();
        assert!(!expected.is_empty(), "{name}: no `# error:` line");
        let out = temp_dir(name);
        let o = qrtl_in(&dir, &["build", name, "-o", out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(1) {
            failures.push(format!(
                "{name}: exit {:?}, expected 1\n{stderr}",
                o.status.code()
            ));
        }
        for e in expected {
            if !stderr.contains(e) {
                failures.push(format!("{name}: stderr lacks {e:?}:\n{stderr}"));
            }
        }
        if stderr.contains("panicked") {
            failures.push(format!("{name}: panicked:\n{stderr}"));
        }
        if out.exists() {
            failures.push(format!("{name}: wrote {}", out.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
