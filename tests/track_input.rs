//! File-driven tests of the trajectory inputs (CSV, region map, events).
//!
//! * `tests/track/input/NAME.csv`: read (with the map named on a first line
//!   `# regions: MAP.yaml`); `NAME.expected` lists each trajectory's events
//!   as `REGION[entry,exit]` (`-` for no region) or the diagnostics.
//! * `tests/track/input/map-*.yaml`: region maps that must be rejected;
//!   `NAME.expected` holds the diagnostics.
//!
//! Regenerate with `QRTL_BLESS=1 cargo test --release --test track_input`.

use qrtl_track::input::{detect_events, RegionMap, Sample, TrajReader, NO_REGION};
use std::fs;
use std::path::{Path, PathBuf};

fn bless() -> bool {
    std::env::var_os("QRTL_BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/track/input")
}

fn rel(p: &Path) -> String {
    format!(
        "tests/track/input/{}",
        p.file_name().unwrap().to_string_lossy()
    )
}

fn load_map(path: &Path) -> Result<RegionMap, String> {
    let text = fs::read_to_string(path).unwrap();
    RegionMap::parse(&rel(path), &text)
        .map_err(|ds| ds.iter().map(|d| d.render()).collect::<String>())
}

fn render_csv(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let map = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# regions:"))
        .map(|m| load_map(&dir().join(m.trim())).expect("test map parses"));
    let mut reader = TrajReader::new(map.as_ref());
    match reader.read(&rel(path), &text) {
        Err(ds) => ds.iter().map(|d| d.render()).collect(),
        Ok(trajs) => {
            let mut out = String::new();
            for t in trajs {
                out.push_str(&format!("{} (line {}):", t.id, t.line));
                for e in t.events() {
                    let name = reader.names.name(e.region).unwrap_or("-");
                    out.push_str(&format!(" {name}[{},{}]", e.entry, e.exit));
                }
                out.push('\n');
            }
            out
        }
    }
}

#[test]
fn input_cases() {
    let mut entries: Vec<_> = fs::read_dir(dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut failures = Vec::new();
    let mut cases = 0;
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let got = if name.ends_with(".csv") {
            render_csv(&path)
        } else if name.starts_with("map-") && name.ends_with(".yaml") {
            match load_map(&path) {
                Ok(_) => panic!("{name}: a map-*.yaml case must be rejected"),
                Err(e) => e,
            }
        } else {
            continue;
        };
        cases += 1;
        let exp = path.with_extension("expected");
        if bless() {
            fs::write(&exp, &got).unwrap();
        } else if fs::read_to_string(&exp).unwrap_or_default() != got {
            failures.push(format!(
                "{name}:\n--- expected\n{}\n--- got\n{got}",
                fs::read_to_string(&exp).unwrap_or_default()
            ));
        }
    }
    assert!(cases >= 8);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn events_merge_runs_only() {
    let s = |region, ts| Sample { region, ts };
    let ev = detect_events(&[
        s(1, 1),
        s(1, 2),
        s(NO_REGION, 3),
        s(NO_REGION, 4),
        s(1, 5),
        s(2, 6),
    ]);
    let got: Vec<_> = ev.iter().map(|e| (e.region, e.entry, e.exit)).collect();
    assert_eq!(got, [(1, 1, 2), (0, 3, 4), (1, 5, 5), (2, 6, 6)]);
    assert!(detect_events(&[]).is_empty());
}

#[test]
fn ids_unique_across_files() {
    let mut r = TrajReader::new(None);
    r.read("a.csv", "t1,1,A\n").unwrap();
    let e = r.read("b.csv", "t2,1,A\nt1,2,B\n").unwrap_err();
    assert_eq!(e.len(), 1);
    assert!(
        e[0].render()
            .starts_with("b.csv:2:1: error[E0719]: trajectory `t1` already appeared in a.csv:1"),
        "{}",
        e[0].render()
    );
}
