//! Golden RTL of small FlexTrack designs: `tests/track/emit/NAME.pat` (first
//! line `# flags: --variables S [--cluster-size N] [--broadcast]`) is
//! compiled and each generated file compared with `NAME/FILE.v`.
//! Regenerate after an intended change with
//! `QRTL_BLESS=1 cargo test --release --test track_emit` and review the diff.

use qrtl_track::engine::{build_track_hw, TrackHwOptions};
use qrtl_track::engine::{design_for, parse_patterns};
use qrtl_track::ir::Strategy;
use qrtl_track::lower::EngineConfig;
use std::fs;
use std::path::Path;

fn bless() -> bool {
    std::env::var_os("QRTL_BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

#[test]
fn golden_rtl() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/track/emit");
    let mut entries: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut failures = Vec::new();
    let mut cases = 0;
    for path in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pat"))
    {
        cases += 1;
        let text = fs::read_to_string(path).unwrap();
        let mut opts = TrackHwOptions {
            engines: EngineConfig::default(),
            broadcast: false,
        };
        let flags = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# flags:"))
            .unwrap_or("");
        let mut it = flags.split_whitespace();
        while let Some(f) = it.next() {
            match f {
                "--variables" => {
                    opts.engines.strategy = match it.next() {
                        Some("or") => Strategy::Or,
                        Some("buffer") => Strategy::Buffer,
                        Some("expand") => Strategy::Expand,
                        s => panic!("{}: bad strategy {s:?}", path.display()),
                    }
                }
                "--cluster-size" => opts.engines.cluster_size = it.next().unwrap().parse().unwrap(),
                "--broadcast" => opts.broadcast = true,
                f => panic!("{}: unknown flag {f}", path.display()),
            }
        }
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let file = format!("tests/track/emit/{name}.pat");
        let parsed = parse_patterns(&file, &text).expect("parses");
        let design = design_for(&file, &parsed, None).expect("lowers");
        let hw = build_track_hw(&file, &design, &opts).expect("compiles");
        let out = dir.join(&name);
        if bless() {
            let _ = fs::remove_dir_all(&out);
            fs::create_dir_all(&out).unwrap();
        }
        for f in &hw.rtl.files {
            let golden = out.join(&f.name);
            if bless() {
                fs::write(&golden, &f.text).unwrap();
            } else if fs::read_to_string(&golden).ok().as_deref() != Some(f.text.as_str()) {
                failures.push(format!("{}: differs from {}", f.name, golden.display()));
            }
        }
        if !bless() {
            let n = fs::read_dir(&out).map(|d| d.count()).unwrap_or(0);
            if n != hw.rtl.files.len() {
                failures.push(format!(
                    "{name}: {n} golden files, {} generated",
                    hw.rtl.files.len()
                ));
            }
        }
    }
    assert!(cases >= 2);
    assert!(
        failures.is_empty(),
        "{}\n(QRTL_BLESS=1 regenerates; review the diff)",
        failures.join("\n")
    );
}
