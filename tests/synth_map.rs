//! The generated XPath RTL is synthesizable by Yosys for Xilinx 7-series,
//! and each cluster's stack memory (`reg [W-1:0] cK_mem [0:D-1]`, written
//! on push, read asynchronously on pop) becomes distributed RAM (LUTRAM),
//! not W·D flip-flops. No latch and no unmapped `$` cell (e.g. `$mem_v2`)
//! may remain.
//!
//! Needs `yosys` (Debian's 0.23 or newer) on `PATH`; the test fails when it
//! is missing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Xilinx 7-series distributed-RAM primitives `synth_xilinx` can map to.
const LUTRAM_CELLS: &[&str] = &[
    "RAM16X1D",
    "RAM32X1D",
    "RAM64X1D",
    "RAM128X1D",
    "RAM256X1D",
    "RAM32M",
    "RAM64M",
    "RAM32M16",
    "RAM64M8",
    "RAM16X1S",
    "RAM32X1S",
    "RAM64X1S",
    "RAM128X1S",
    "RAM256X1S",
    "RAM512X1S",
];

/// Xilinx 7-series flip-flops.
const FF_CELLS: &[&str] = &["FDRE", "FDSE", "FDCE", "FDPE"];

const LUT_CELLS: &[&str] = &["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"];

/// Xilinx latches.
const LATCH_CELLS: &[&str] = &["LDCE", "LDPE"];

/// 40 path queries with `/`, `//`, `*` and attribute predicates over a
/// NITF-like vocabulary (deterministic; different enough that prefix
/// merging keeps many columns).
fn queries() -> String {
    let tags = [
        "story", "headline", "byline", "body", "p", "keywords", "keyword", "table", "section",
        "title", "meta", "author",
    ];
    let langs = ["en", "fr", "de", "es"];
    let mut out = String::from("# synth_map: 40 path queries\n");
    for i in 0..40usize {
        let a = tags[i % tags.len()];
        let b = tags[(i * 5 + 3) % tags.len()];
        let c = tags[(i * 7 + 1) % tags.len()];
        let l = langs[i % langs.len()];
        let q = match i % 8 {
            0 => format!("/news/{a}/{b}"),
            1 => format!("//{a}[@lang=\"{l}\"]/{b}"),
            2 => format!("//{a}[@priority > {}]//{b}", i % 5),
            3 => format!("/news/*/{a}/{b}"),
            4 => format!("//{a}//{b}[@id]"),
            5 => format!("/news//{a}/*/{b}"),
            6 => format!("//*[@class=\"c{i}\"]/{a}/{c}"),
            _ => format!("/news/{a}[@type != \"t{i}\"]/{b}//{c}"),
        };
        out.push_str(&q);
        out.push('\n');
    }
    out
}

fn tool_version(tool: &str) -> String {
    match Command::new(tool).arg("-V").output() {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        Ok(o) => panic!("`{tool} -V` failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => panic!(
            "`{tool}` is required for this test and was not found ({e}); \
             install it with `apt-get install yosys` (or `make deps`)"
        ),
    }
}

/// Per-module cell counts from Yosys `stat` output (`=== module ===`
/// sections; the design-hierarchy summary is skipped).
fn parse_stat(text: &str) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut modules: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("=== ").and_then(|r| r.strip_suffix(" ===")) {
            current = (name != "design hierarchy").then(|| name.to_string());
            if let Some(m) = &current {
                modules.entry(m.clone()).or_default();
            }
            continue;
        }
        let Some(m) = &current else { continue };
        let fields: Vec<&str> = t.split_whitespace().collect();
        // "Number of memories:  0" and cell lines "  FDRE   398".
        if let Some(n) = t.strip_prefix("Number of memories:") {
            let n: u64 = n.trim().parse().expect("memory count");
            modules.get_mut(m).unwrap().insert("#memories".into(), n);
        } else if fields.len() == 2 && !t.starts_with("Number of") {
            if let Ok(n) = fields[1].parse::<u64>() {
                *modules
                    .get_mut(m)
                    .unwrap()
                    .entry(fields[0].to_string())
                    .or_default() += n;
            }
        }
    }
    modules
}

fn count(cells: &BTreeMap<String, u64>, kinds: &[&str]) -> u64 {
    cells
        .iter()
        .filter(|(k, _)| kinds.contains(&k.as_str()))
        .map(|(_, n)| n)
        .sum()
}

/// `(cluster prefix, row width, words)` of every cluster's stack memory:
/// the groups `reg [W-1:0] cK_mem<g> [0:D-1];` of a cluster, their widths
/// summed (the emitter splits a row into groups of at most 32 bits, each
/// with its own address registers).
fn stack_memories(rtl_dir: &Path) -> Vec<(String, u64, u64)> {
    let mut out: Vec<(String, u64, u64)> = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(rtl_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            // `reg  [31:0] c0_mem0 [0:31]; // row bits 31:0`
            let t = line.trim();
            let Some(rest) = t.strip_prefix("reg") else {
                continue;
            };
            let parts: Vec<&str> = rest.split_whitespace().collect();
            if parts.len() < 3 || !parts[2].starts_with("[0:") {
                continue;
            }
            let Some((prefix, group)) = parts[1].rsplit_once("_mem") else {
                continue;
            };
            if group.is_empty() || !group.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let msb: u64 = parts[0]
                .trim_start_matches('[')
                .trim_end_matches(":0]")
                .parse()
                .unwrap_or_else(|_| panic!("width in `{t}`"));
            let last: u64 = parts[2]
                .trim_start_matches("[0:")
                .trim_end_matches("];")
                .parse()
                .unwrap_or_else(|_| panic!("depth in `{t}`"));
            match out.iter_mut().find(|m| m.0 == prefix) {
                Some(m) => {
                    assert_eq!(m.2, last + 1, "{prefix}: groups of one depth");
                    m.1 += msb + 1;
                }
                None => out.push((prefix.to_string(), msb + 1, last + 1)),
            }
        }
    }
    out
}

#[test]
fn stack_memories_map_to_lutram_with_yosys_synth_xilinx() {
    let dir = std::env::temp_dir().join(format!("qrtl-synth-map-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (proj, manifest) = compile_clusters(&dir, "proj", 20);
    assert_eq!(
        manifest["parameters"]["clusters"], 2,
        "{}",
        manifest["parameters"]
    );
    assert_eq!(manifest["parameters"]["max_depth"], 32);

    // The stack memories as emitted: one per cluster, 32 rows deep at most.
    let mems = stack_memories(&proj.join("rtl"));
    let prefixes: Vec<&str> = mems.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(
        prefixes,
        ["c0", "c1"],
        "one stack memory per cluster: {mems:?}"
    );
    for (p, width, words) in &mems {
        assert!(
            *width >= 8,
            "{p}: a row of {width} bits is too narrow to tell"
        );
        assert!((2..=32).contains(words), "{p}: {words} words");
    }

    let version = tool_version("yosys");
    let modules = synthesize(&proj, "map", "", &version);
    let stat = std::fs::read_to_string(proj.join("map_stat.txt")).unwrap();
    eprintln!("{version}\n{stat}");
    for (p, width, words) in &mems {
        let module = format!("qrtl_xpath_{p}");
        let cells = modules
            .get(&module)
            .unwrap_or_else(|| panic!("no module {module} in stat:\n{stat}"));
        let lutram = count(cells, LUTRAM_CELLS);
        let ffs = count(cells, FF_CELLS);
        eprintln!(
            "{module}: stack {words} x {width}: {lutram} LUTRAM cells, {ffs} FFs, {} LUTs",
            count(cells, LUT_CELLS)
        );
        // A RAM32M holds 32 x 6 bits of a simple dual-port memory: at
        // least ceil(width / 8) distributed-RAM cells of any kind.
        assert!(
            lutram >= width.div_ceil(8),
            "{module}: {lutram} distributed-RAM cells for a {words} x {width} stack\n{stat}"
        );
        // A flip-flop stack needs words x width flip-flops on top of the
        // decoders, conditions and flags; with LUTRAM the whole cluster
        // stays well below that.
        let ff_stack = words * width;
        assert!(
            ffs * 2 < ff_stack,
            "{module}: {ffs} flip-flops; a flip-flop stack alone would need {ff_stack}\n{stat}"
        );
    }

    // Control: with distributed and block RAM forbidden, the same stacks
    // become flip-flops, so the flip-flop bound above does tell the two
    // apart. (-nobram too: the stack is read at a registered address, so
    // Yosys could otherwise put it in a block RAM.)
    let control = synthesize(&proj, "nolutram", "-nolutram -nobram", &version);
    for (p, width, words) in &mems {
        let module = format!("qrtl_xpath_{p}");
        let with = count(&modules[&module], FF_CELLS);
        let without = count(&control[&module], FF_CELLS);
        eprintln!("{module} with -nolutram -nobram: {without} FFs");
        assert_eq!(count(&control[&module], LUTRAM_CELLS), 0, "{module}");
        assert!(
            without >= with + (words - 1) * width,
            "{module}: -nolutram -nobram gives {without} flip-flops, LUTRAM {with}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Xilinx block RAMs.
const BRAM_CELLS: &[&str] = &["RAMB18E1", "RAMB36E1"];

/// Compile the 40 queries with `cluster_size` into `dir/name`: the project
/// and its manifest.
fn compile_clusters(dir: &Path, name: &str, cluster_size: usize) -> (PathBuf, serde_json::Value) {
    let qfile = dir.join("queries.txt");
    std::fs::write(&qfile, queries()).unwrap();
    let proj = dir.join(name);
    let o = Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(["xpath", "compile"])
        .arg(&qfile)
        .arg("-o")
        .arg(&proj)
        .args(["--cluster-size", &cluster_size.to_string()])
        .output()
        .expect("run qrtl");
    assert_eq!(
        o.status.code(),
        Some(0),
        "compile failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(proj.join("manifest.json")).unwrap()).unwrap();
    (proj, manifest)
}

/// The top's result FIFO holds a credit round trip, 2 x clusters + 7 words
/// rounded up to a power of two: 128 x 33 bits for 40 clusters. Left to
/// itself a tool may put that in a block RAM, whose read is not registered
/// inside it and feeds the output register directly (the clock rate of
/// many-cluster designs); the emitter asks for distributed RAM.
#[test]
fn deep_result_fifo_maps_to_lutram_not_block_ram() {
    let dir = std::env::temp_dir().join(format!("qrtl-synth-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (proj, manifest) = compile_clusters(&dir, "proj", 1);
    assert_eq!(manifest["parameters"]["clusters"], 40);
    let top = std::fs::read_to_string(proj.join("rtl/qrtl_xpath_top.v")).unwrap();
    assert!(
        top.contains("localparam FIFO_DEPTH = 128;"),
        "FIFO depth for 40 clusters"
    );
    let version = tool_version("yosys");
    let modules = synthesize(&proj, "fifo", "", &version);
    let cells = &modules["qrtl_xpath_top"];
    eprintln!("{version}: qrtl_xpath_top {cells:?}");
    assert_eq!(count(cells, BRAM_CELLS), 0, "top: block RAM {cells:?}");
    // 128 x 33 bits: a RAM64M holds 64 x 3 bits of a simple dual-port memory.
    assert!(
        count(cells, LUTRAM_CELLS) >= 2 * 33u64.div_ceil(3),
        "top: distributed RAM {cells:?}"
    );
    let ffs = count(cells, FF_CELLS);
    assert!(
        ffs < 128 * 33,
        "top: {ffs} flip-flops, the FIFO in registers"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Synthesize the project in `proj` hierarchically (no -flatten, so `stat`
/// counts per module), out of context (no IO buffers, no clock buffer) as
/// `synth/xc7.ys` does, with `extra` options; check the netlist (`check
/// -assert`: no multiple drivers, no undriven wires used, no loops), that
/// no latch and no unmapped `$` cell or memory remains; per-module cells.
fn synthesize(
    proj: &Path,
    tag: &str,
    extra: &str,
    version: &str,
) -> BTreeMap<String, BTreeMap<String, u64>> {
    let files = std::fs::read_to_string(proj.join("files.f")).unwrap();
    let mut script = String::new();
    for f in files.lines().filter(|l| !l.trim().is_empty()) {
        script.push_str(&format!("read_verilog -defer {f}\n"));
    }
    script.push_str(&format!(
        "synth_xilinx -family xc7 -top qrtl_xpath_top -noiopad -noclkbuf {extra}\n"
    ));
    script.push_str("check -assert\n");
    script.push_str(&format!("tee -q -o {tag}_stat.txt stat\n"));
    std::fs::write(proj.join(format!("{tag}.ys")), &script).unwrap();
    let log_name = format!("{tag}.log");
    let o = Command::new("yosys")
        .args(["-q", "-l", &log_name, "-s", &format!("{tag}.ys")])
        .current_dir(proj)
        .output()
        .expect("run yosys");
    let log = std::fs::read_to_string(proj.join(&log_name)).unwrap_or_default();
    assert!(
        o.status.success(),
        "{version} ({tag}): synthesis failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stderr),
        log.lines().rev().take(40).collect::<Vec<_>>().join("\n")
    );
    assert!(
        !log.contains("Latch inferred"),
        "{tag}: a latch was inferred:\n{}",
        log.lines()
            .filter(|l| l.contains("Latch inferred"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let stat = std::fs::read_to_string(proj.join(format!("{tag}_stat.txt"))).unwrap();
    let modules = parse_stat(&stat);
    assert!(
        modules.contains_key("qrtl_xpath_top"),
        "{tag}: no top in stat\n{stat}"
    );
    for (m, cells) in &modules {
        // Instances of other modules of the design are hierarchy, not cells.
        let unmapped: Vec<_> = cells
            .keys()
            .filter(|k| k.starts_with('$') && !modules.contains_key(*k))
            .collect();
        assert!(
            unmapped.is_empty(),
            "{tag}: {m}: unmapped cells {unmapped:?}\n{stat}"
        );
        assert_eq!(
            cells.get("#memories"),
            Some(&0),
            "{tag}: {m}: memories left\n{stat}"
        );
        assert_eq!(count(cells, LATCH_CELLS), 0, "{tag}: {m}: latches\n{stat}");
    }
    modules
}
