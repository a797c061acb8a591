//! The synthesis result cache (`bench/data/synth-points.json`): one entry
//! per (RTL, target, seeds), keyed by SHA-256 so that a point whose RTL has
//! not changed is taken from the file instead of being synthesized again.

use qrtl_core::synth::{MemoryMapping, MEMORY_MODULE_ABOVE};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// What one synthesis run measured (the fields of the synth flow's
/// `SynthReport` the report uses, kept here so the file format is this
/// report's own).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointData {
    pub luts: u64,
    pub lut_eq: u64,
    pub ffs: u64,
    pub lutram: u64,
    pub bram: f64,
    /// Median over the seeds; `None` for area-only targets.
    pub fmax_mhz: Option<f64>,
    pub fmax_seeds: Vec<f64>,
    /// Wall-clock seconds of the flow.
    pub seconds: f64,
}

/// One cached point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CachedPoint {
    /// Which design this was (for people reading the file).
    pub label: String,
    pub target: String,
    /// Place-and-route seeds (0 for area-only targets).
    pub seeds: u32,
    /// When it was measured, `YYYY-MM-DD HH:MM UTC`.
    pub measured: String,
    pub data: PointData,
    /// The tools of the flow that were not YoWASP builds, as `yosys: PATH`
    /// (`SynthReport::native_tools`); empty: the YoWASP builds (`make
    /// deps-synth`), which every point without this field used.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub native_tools: Vec<String>,
}

/// A point whose flow was stopped at the run's time limit (a design
/// nextpnr cannot route keeps its router going for hours), or because the
/// design does not fit the part: recorded so the report says so, and so a
/// later run (with no longer a limit) does not spend the time again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoppedPoint {
    pub label: String,
    pub target: String,
    pub seeds: u32,
    /// When it was stopped, `YYYY-MM-DD HH:MM UTC`.
    pub measured: String,
    /// The tool run that was stopped (`nextpnr-ecp5 seed 1/1`).
    pub what: String,
    /// The time limit, in seconds.
    pub limit_s: u64,
    /// Why the design does not fit the part (`the design does not fit the
    /// LFE5U-85F: TRELLIS_COMB 98488 of 83640 (117%)`), when that stopped
    /// it: no time limit makes it fit, so such a point is never retried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub misfit: Option<String>,
}

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SynthCache {
    /// Key ([`point_key`]) → point; a BTreeMap so the file is stable.
    pub points: BTreeMap<String, CachedPoint>,
    /// Key → a flow stopped at its time limit (no point under that key).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stopped: BTreeMap<String, StoppedPoint>,
}

impl SynthCache {
    /// Read the cache; a missing file is an empty cache, a malformed one an
    /// error (never silently discarded).
    pub fn load(path: &Path) -> Result<SynthCache, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{}:{}:{}: malformed synthesis cache: {e}",
                    path.display(),
                    e.line(),
                    e.column()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(SynthCache::default()),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(self).expect("cache serialises") + "\n";
        // Write then rename, so an interrupted run never leaves half a file.
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Seeds as they enter the key: area-only targets have no place and route,
/// so their result does not depend on the seed count.
pub fn key_seeds(target: &str, seeds: u32) -> u32 {
    match target {
        "xc6v" | "xc7" => 0,
        _ => seeds,
    }
}

/// The out-of-context wrapper template `qrtl synth` places and routes the
/// core in (part of the key of every place-and-route point).
const OOC_WRAPPER: &str = include_str!("../../../../rtl-templates/core/synth_ooc.v");

/// How `qrtl synth` with its defaults maps the memories of this RTL.
pub fn memory_mapping(rtl: &[(String, Vec<u8>)]) -> MemoryMapping {
    let texts: Vec<std::borrow::Cow<str>> = rtl
        .iter()
        .map(|(_, t)| String::from_utf8_lossy(t))
        .collect();
    MemoryMapping::for_design(texts.iter().map(|t| &**t), MEMORY_MODULE_ABOVE)
}

/// The cache key: SHA-256 over every RTL file (name and contents, in
/// `files.f` order, each length-prefixed so no two lists hash alike), the
/// target name, the place-and-route wrapper, the ECP5 LUT-mapping script,
/// whether the memories are mapped in a module of their own (a design over
/// `qrtl synth`'s default `--memory-module-above`: the points measured
/// before that flow existed mapped them in place) and the seed count, as
/// lowercase hex.
pub fn point_key(
    rtl: &[(String, Vec<u8>)],
    target: &str,
    seeds: u32,
    memories: MemoryMapping,
) -> String {
    let mut h = Sha256::new();
    h.update(b"qrtl-bench-report synth point v1\0");
    for (name, text) in rtl {
        h.update((name.len() as u64).to_le_bytes());
        h.update(name.as_bytes());
        h.update((text.len() as u64).to_le_bytes());
        h.update(text);
    }
    h.update(b"\0target\0");
    h.update(target.as_bytes());
    // Place and route times the core inside the out-of-context wrapper, so
    // a point measured with another wrapper is another point.
    if key_seeds(target, 1) != 0 {
        h.update(b"\0wrapper\0");
        h.update(OOC_WRAPPER.as_bytes());
    }
    // So is one mapped with another LUT-mapping script.
    if target == "ecp5" {
        h.update(b"\0abc9\0");
        h.update(qrtl_core::synth::ECP5_ABC9_SCRIPT.as_bytes());
    }
    if memories == MemoryMapping::OwnModule {
        h.update(b"\0memories in their own module\0");
    }
    h.update(b"\0seeds\0");
    h.update(key_seeds(target, seeds).to_le_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The RTL of a written project: the files `files.f` lists, in its order.
pub fn project_rtl(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let list = dir.join("files.f");
    let text = std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let p = dir.join(line);
        let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        out.push((line.to_string(), bytes));
    }
    if out.is_empty() {
        return Err(format!("{}: lists no RTL file", list.display()));
    }
    Ok(out)
}

/// `YYYY-MM-DD HH:MM UTC` of a time in seconds since the Unix epoch.
pub fn utc_stamp(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs / 3600,
        (secs / 60) % 60
    )
}

/// Now, as [`utc_stamp`].
pub fn now_stamp() -> String {
    let s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_stamp(s)
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rtl() -> Vec<(String, Vec<u8>)> {
        vec![
            ("rtl/a.v".into(), b"module a; endmodule\n".to_vec()),
            (
                "rtl/top.v".into(),
                b"module top; a u(); endmodule\n".to_vec(),
            ),
        ]
    }

    #[test]
    fn key_is_stable() {
        // The key of a fixed input must never change: a change silently
        // invalidates every committed point. (Independently computed with
        // Python's hashlib over the same byte layout.) An area-only
        // target's key has no wrapper in it.
        assert_eq!(
            point_key(&rtl(), "xc6v", 0, MemoryMapping::InPlace),
            "5df77e927ac23371e47d35560d97f97aa527dcad2c914da5f0774f2345cabb35"
        );
    }

    #[test]
    fn key_depends_on_rtl_order_target_and_seeds() {
        let base = point_key(&rtl(), "ecp5", 3, MemoryMapping::InPlace);
        let mut swapped = rtl();
        swapped.swap(0, 1);
        assert_ne!(point_key(&swapped, "ecp5", 3, MemoryMapping::InPlace), base);
        let mut edited = rtl();
        edited[1].1.push(b' ');
        assert_ne!(point_key(&edited, "ecp5", 3, MemoryMapping::InPlace), base);
        assert_ne!(point_key(&rtl(), "ice40", 3, MemoryMapping::InPlace), base);
        assert_ne!(point_key(&rtl(), "ecp5", 1, MemoryMapping::InPlace), base);
        // Name/contents boundaries are length-prefixed.
        let a = vec![("ab".to_string(), b"c".to_vec())];
        let b = vec![("a".to_string(), b"bc".to_vec())];
        assert_ne!(
            point_key(&a, "xc6v", 0, MemoryMapping::InPlace),
            point_key(&b, "xc6v", 0, MemoryMapping::InPlace)
        );
        // A design whose memories are mapped in a module of their own is
        // another point than the same RTL mapped in place.
        assert_ne!(
            point_key(&rtl(), "xc6v", 0, MemoryMapping::OwnModule),
            point_key(&rtl(), "xc6v", 0, MemoryMapping::InPlace)
        );
        assert_eq!(memory_mapping(&rtl()), MemoryMapping::InPlace);
        let many: Vec<(String, Vec<u8>)> = vec![(
            "rtl/m.v".into(),
            "    reg [31:0] m [0:63];\n"
                .repeat(MEMORY_MODULE_ABOVE + 1)
                .into_bytes(),
        )];
        assert_eq!(memory_mapping(&many), MemoryMapping::OwnModule);
        // Area-only targets ignore the seed count.
        assert_eq!(
            point_key(&rtl(), "xc6v", 1, MemoryMapping::InPlace),
            point_key(&rtl(), "xc6v", 3, MemoryMapping::InPlace)
        );
    }

    #[test]
    fn cache_round_trips_and_rejects_garbage() {
        let dir = std::env::temp_dir().join(format!("qrtl-bench-report-{}", std::process::id()));
        let path = dir.join("points.json");
        assert_eq!(SynthCache::load(&path).unwrap(), SynthCache::default());
        let mut c = SynthCache::default();
        c.points.insert(
            point_key(&rtl(), "ecp5", 3, MemoryMapping::InPlace),
            CachedPoint {
                label: "rice N=32".into(),
                target: "ecp5".into(),
                seeds: 3,
                measured: utc_stamp(0),
                data: PointData {
                    luts: 10,
                    lut_eq: 10,
                    ffs: 5,
                    lutram: 0,
                    bram: 0.0,
                    fmax_mhz: Some(151.5),
                    fmax_seeds: vec![150.0, 151.5, 160.0],
                    seconds: 12.0,
                },
                native_tools: vec!["yosys: /usr/bin/yosys".into()],
            },
        );
        c.save(&path).unwrap();
        assert_eq!(SynthCache::load(&path).unwrap(), c);
        // A point written before the field existed used the YoWASP builds;
        // one that used them writes no field.
        let mut old = c.clone();
        let p = old.points.values_mut().next().unwrap();
        p.native_tools.clear();
        old.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("native_tools"), "{text}");
        assert_eq!(SynthCache::load(&path).unwrap(), old);
        std::fs::write(&path, "{\"points\": [1,").unwrap();
        let e = SynthCache::load(&path).unwrap_err();
        assert!(e.contains("points.json:1:"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn project_rtl_follows_files_f() {
        let dir = std::env::temp_dir().join(format!("qrtl-bench-report-f-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("rtl")).unwrap();
        std::fs::write(dir.join("rtl/b.v"), "b").unwrap();
        std::fs::write(dir.join("rtl/a.v"), "a").unwrap();
        std::fs::write(dir.join("files.f"), "rtl/b.v\nrtl/a.v\n").unwrap();
        let r = project_rtl(&dir).unwrap();
        assert_eq!(r[0], ("rtl/b.v".to_string(), b"b".to_vec()));
        assert_eq!(r[1], ("rtl/a.v".to_string(), b"a".to_vec()));
        std::fs::write(dir.join("files.f"), "rtl/missing.v\n").unwrap();
        assert!(project_rtl(&dir).unwrap_err().contains("missing.v"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn utc_stamps() {
        assert_eq!(utc_stamp(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_stamp(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_stamp(1_700_000_000), "2023-11-14 22:13 UTC");
    }
}
