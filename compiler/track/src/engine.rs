//! The FlexTrack engine behind `qrtl_core::engine::Engine`: pattern file +
//! region map + trajectories → a design whose dictionary covers every
//! region seen → engine set (one variable strategy) → RTL; trajectories as
//! sample beats, the result words decoded, `refmodel::hw` as the model. The
//! CLI, `qrtl build`, tests and benches go through it; each stage stays in
//! its own module.

use std::path::{Path, PathBuf};

use crate::emit::{emit_track, TrackRtl, TrackRtlConfig, RESULT_WIDTH};
use crate::input::{detect_events, Event, RegionMap, Sample, TrajReader, Trajectory, NO_REGION};
use crate::ir::{EngineSet, Strategy, TrackDesign};
use crate::lower::{build_engines, lower_patterns, EngineConfig};
use crate::syntax::{parse_pattern_file, SourcePattern};
use qrtl_core::diag::{plain_error, Diagnostic};
use qrtl_core::engine::{Engine, Failure};
use qrtl_core::sim::{DriverSpec, PacketResult};

/// Options of `qrtl track compile|sim`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackHwOptions {
    pub engines: EngineConfig,
    pub broadcast: bool,
}

/// A compiled FlexTrack design.
#[derive(Clone, Debug)]
pub struct TrackHw {
    pub set: EngineSet,
    pub rtl: TrackRtl,
    /// The design the engine set was built from: the model runs both.
    pub design: TrackDesign,
}

/// Bytes of one input beat (one sample).
pub const BEAT_BYTES: usize = 8;

pub fn build_track_hw(
    file: &str,
    d: &TrackDesign,
    opts: &TrackHwOptions,
) -> Result<TrackHw, Vec<Diagnostic>> {
    if d.regions.len() >= 1 << 16 {
        return Err(vec![Diagnostic {
            code: "E0653",
            message: format!(
                "{} regions: the hardware region code has 16 bits",
                d.regions.len()
            ),
            help: None,
            file: file.to_string(),
            line: 0,
            source_line: String::new(),
            span: qrtl_core::diag::Span::point(0),
        }]);
    }
    let set = build_engines(file, d, &opts.engines)?;
    let rtl = emit_track(
        d,
        &set,
        &TrackRtlConfig {
            broadcast: opts.broadcast,
            source: file.to_string(),
        },
    );
    Ok(TrackHw {
        set,
        rtl,
        design: d.clone(),
    })
}

/// One trajectory as an AXI4-Stream packet: a beat per sample,
/// `[31:0]` timestamp, `[47:32]` region code, little-endian bytes.
pub fn encode_samples(samples: &[Sample]) -> Vec<u8> {
    let mut out = Vec::with_capacity(samples.len() * BEAT_BYTES);
    for s in samples {
        out.extend_from_slice(&s.ts.to_le_bytes());
        out.extend_from_slice(&(s.region as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
    }
    out
}

/// One trajectory's result as the RTL reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HwTrajResult {
    /// Events the hardware event detector produced.
    pub events: u32,
    pub matched: Vec<usize>,
    /// Cycles from the first accepted beat to the first result word.
    pub cycles: u64,
}

/// Decode a trajectory's result words (event count, then the bitmap).
pub fn decode_track_result(words: &[u32], patterns: usize) -> Result<(u32, Vec<usize>), String> {
    let expect = 1 + patterns.div_ceil(RESULT_WIDTH as usize);
    if words.len() != expect {
        return Err(format!("{} result words, expected {expect}", words.len()));
    }
    let mut matched = Vec::new();
    for (w, word) in words[1..].iter().enumerate() {
        for b in 0..32 {
            if word >> b & 1 == 1 {
                let p = w * 32 + b;
                if p >= patterns {
                    return Err(format!("bit for pattern {p} set; only {patterns} patterns"));
                }
                matched.push(p);
            }
        }
    }
    Ok((words[0], matched))
}

/// The AXI4-Stream ports of `qrtl_track_top`.
pub fn track_top_ports() -> Vec<qrtl_core::project::Port> {
    qrtl_core::project::StreamPorts {
        in_bits: 64,
        in_data: "samples: [31:0] timestamp, [47:32] region code, [63:48] zero",
        in_keep: None,
        in_valid: "sample valid",
        in_ready: "sample accepted (low only while a trajectory's last sample waits for the previous results)",
        in_last: "last sample of a trajectory",
        out_bits: 32,
        out_data: "result words: event count, then the match bitmap",
        out_valid: "result word valid",
        out_ready: "result word accepted",
        out_last: "last result word of a trajectory",
    }
    .ports()
}

/// The project description (`qrtl track compile -o`).
pub fn track_project_spec(
    hw: &TrackHw,
    d: &TrackDesign,
    opts: &TrackHwOptions,
    clock_mhz: f64,
) -> qrtl_core::project::ProjectSpec {
    use serde_json::json;
    let rtl = &hw.rtl;
    let patterns: Vec<_> = rtl
        .patterns
        .iter()
        .map(|p| json!({"id": p.id, "line": p.line, "text": p.text.trim(), "cluster": p.cluster, "word": p.word, "bit": p.bit}))
        .collect();
    let regions: Vec<_> = d
        .regions
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"code": i + 1, "name": r}))
        .collect();
    let manifest_extra = json!({
        "kind": "track",
        "parameters": {
            "variables": hw.set.strategy.as_str(),
            "cluster_size": opts.engines.cluster_size,
            "clusters": hw.set.clusters.len(),
            "input": if opts.broadcast { "broadcast" } else { "pipelined" },
            "nodes": hw.set.nodes.len(),
            "buffer_bits": hw.set.nodes.iter().map(|n| n.carries.iter().map(|s| hw.set.slots[s.index()].domain.len()).sum::<usize>()).sum::<usize>(),
            "sample_bits": 64,
            "result_width": RESULT_WIDTH,
        },
        "input": {"beat": "one sample per beat: [31:0] timestamp, [47:32] region code, [63:48] zero; tlast on a trajectory's last sample",
                  "region_codes": regions, "no_region_code": 0},
        "result": {
            "words_per_trajectory": rtl.result_words,
            "status_word": "number of events of the trajectory",
            "bitmap": "word 1 + p/32, bit p%32 for pattern id p",
            "latency_cycles": rtl.latency,
        },
        "patterns": patterns,
    });
    let readme_extra = format!(
        "## FlexTrack motion-pattern engine\n\n\
         {} patterns, variables as `{}`, {} cluster(s) with {} input, {} nodes. \
         Stream each trajectory as one AXI4-Stream packet on `s_axis`, one sample per beat \
         (`[31:0]` timestamp, `[47:32]` region code from `manifest.json`, 0 for no region); \
         for each trajectory `m_axis` returns {} words: the number of region events, then the \
         match bitmap (bit p%32 of word 1 + p/32 for pattern id p). Latency: the first result word \
         is valid {} cycles after the trajectory's last sample is accepted.\n",
        d.patterns.len(),
        hw.set.strategy.as_str(),
        hw.set.clusters.len(),
        if opts.broadcast {
            "broadcast"
        } else {
            "pipelined"
        },
        hw.set.nodes.len(),
        rtl.result_words,
        rtl.latency
    );
    qrtl_core::project::ProjectSpec {
        name: "qrtl_track".to_string(),
        top: rtl.top.clone(),
        rtl: rtl
            .files
            .iter()
            .map(|f| (f.name.clone(), f.text.clone()))
            .collect(),
        clock_mhz,
        clock_port: "clk".to_string(),
        reset_port: "rst".to_string(),
        ports: track_top_ports(),
        manifest_extra,
        readme_extra,
    }
}

/// The harness's view of `qrtl_track_top`.
pub fn driver_spec(hw: &TrackHw) -> qrtl_core::sim::DriverSpec {
    let mut spec = qrtl_core::sim::DriverSpec::axis(&hw.rtl.top);
    spec.in_data_bits = (BEAT_BYTES * 8) as u32;
    spec
}

/// Build (or reuse) the simulation and stream each trajectory's samples
/// through it as one packet.
pub fn simulate_track(
    hw: &TrackHw,
    trajectories: &[&[Sample]],
    simulator: qrtl_core::sim::Simulator,
    stalls: &qrtl_core::sim::Stalls,
    trace: Option<&std::path::Path>,
) -> Result<Vec<HwTrajResult>, String> {
    let built = qrtl_core::engine::build_sim(
        &TrackEngine,
        hw,
        simulator,
        Some(qrtl_core::sim::BuildOptions::default()),
    )?;
    let packets: Vec<Vec<u8>> = trajectories.iter().map(|s| encode_samples(s)).collect();
    let run = built
        .run(&packets, stalls, trace)
        .map_err(|e| e.to_string())?;
    Ok(qrtl_core::engine::decode_run(&TrackEngine, hw, &run)?
        .into_iter()
        .map(|r| HwTrajResult {
            events: r.output.events,
            matched: r.output.matched,
            cycles: r.latency,
        })
        .collect())
}

// ---- the engine interface ---------------------------------------------------

/// Nodes per cluster by default (`--cluster-size`).
pub const DEFAULT_CLUSTER_SIZE: usize = 1024;
/// Target clock of the generated constraints by default (`--clock-mhz`).
pub const DEFAULT_CLOCK_MHZ: f64 = 200.0;

/// Everything `qrtl track compile` takes besides the pattern file and the
/// region map (the command line's options; also a design file's keys).
#[derive(Clone, Debug, PartialEq)]
pub struct TrackOptions {
    pub hw: TrackHwOptions,
    /// Target clock of the generated constraints, in MHz.
    pub clock_mhz: f64,
}

impl Default for TrackOptions {
    fn default() -> Self {
        TrackOptions {
            hw: TrackHwOptions {
                engines: EngineConfig {
                    strategy: Strategy::Buffer,
                    cluster_size: DEFAULT_CLUSTER_SIZE,
                },
                broadcast: false,
            },
            clock_mhz: DEFAULT_CLOCK_MHZ,
        }
    }
}

/// A checked pattern file lowered against the region map (if any).
#[derive(Clone, Debug)]
pub struct TrackSource {
    /// The pattern file's name in diagnostics.
    pub file: String,
    pub design: TrackDesign,
    pub map: Option<RegionMap>,
}

/// One trajectory's result: what the hardware and the model report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrajOutput {
    /// Region events of the trajectory.
    pub events: u32,
    pub matched: Vec<usize>,
}

/// The FlexTrack motion-pattern engine (SPEC §4): inputs are trajectories.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrackEngine;

impl Engine for TrackEngine {
    const NAME: &'static str = "track";
    const INPUT: &'static str = "trajectory";
    type Source = TrackSource;
    type Options = TrackOptions;
    type Design = TrackHw;
    type Input = CodedTrajectory;
    type Output = TrajOutput;

    fn compile(&self, source: &TrackSource, opts: &TrackOptions) -> Result<TrackHw, Failure> {
        build_track_hw(&source.file, &source.design, &opts.hw).map_err(|d| Failure::diagnostics(&d))
    }

    fn project(
        &self,
        source: &TrackSource,
        design: TrackHw,
        opts: &TrackOptions,
    ) -> qrtl_core::project::ProjectSpec {
        track_project_spec(&design, &source.design, &opts.hw, opts.clock_mhz)
    }

    fn rtl_files(&self, design: &TrackHw) -> Vec<(String, String)> {
        design
            .rtl
            .files
            .iter()
            .map(|f| (f.name.clone(), f.text.clone()))
            .collect()
    }

    fn driver_spec(&self, design: &TrackHw) -> DriverSpec {
        driver_spec(design)
    }

    fn encode(&self, _design: &TrackHw, input: &CodedTrajectory) -> Vec<u8> {
        encode_samples(&input.samples)
    }

    fn decode(&self, design: &TrackHw, packet: &PacketResult) -> Result<TrajOutput, String> {
        let (events, matched) = decode_track_result(&packet.words, design.rtl.patterns.len())?;
        Ok(TrajOutput { events, matched })
    }

    fn model(&self, design: &TrackHw, input: &CodedTrajectory) -> TrajOutput {
        let mut m = crate::refmodel::hw::HwModel::new(&design.design, &design.set);
        TrajOutput {
            events: input.events.len() as u32,
            matched: m.run(&input.events),
        }
    }
}

// ---- loading the sources and inputs -------------------------------------------

/// Parse a pattern file; every diagnostic (and a summary line) on any
/// error, or "no patterns".
pub fn load_patterns(path: &Path) -> Result<Vec<SourcePattern>, Failure> {
    let name = path.display().to_string();
    let text = qrtl_core::engine::read_source(path, "pattern file")?;
    patterns_from_text(&name, &text)
}

/// [`load_patterns`] of pattern text named `name`.
pub fn patterns_from_text(name: &str, text: &str) -> Result<Vec<SourcePattern>, Failure> {
    let (patterns, diags) = parse_pattern_file(name, text);
    if !diags.is_empty() {
        let mut f = Failure::diagnostics(&diags);
        f.text.push_str(&format!(
            "{name}: {} error{} in {} patterns\n",
            diags.len(),
            if diags.len() == 1 { "" } else { "s" },
            patterns.len() + diags.len()
        ));
        return Err(f);
    }
    if patterns.is_empty() {
        return Err(Failure::input(plain_error(
            name,
            "no patterns (every line is blank or a # comment)",
        )));
    }
    Ok(patterns)
}

/// Read and parse a region map.
pub fn load_map(path: Option<&Path>) -> Result<Option<RegionMap>, Failure> {
    let Some(path) = path else { return Ok(None) };
    let text = qrtl_core::engine::read_source(path, "region map")?;
    map_from_text(&path.display().to_string(), &text).map(Some)
}

/// A region map's text named `name`, parsed.
pub fn map_from_text(name: &str, text: &str) -> Result<RegionMap, Failure> {
    RegionMap::parse(name, text).map_err(|d| Failure::diagnostics(&d))
}

/// The pattern file lowered against the region map at `regions` (if any).
pub fn load_source(patterns: &Path, regions: Option<&Path>) -> Result<TrackSource, Failure> {
    let map = load_map(regions)?;
    let parsed = load_patterns(patterns)?;
    source_from_patterns(patterns.display().to_string(), &parsed, map)
}

/// Parsed patterns of the file `file` lowered against `map` (if any).
pub fn source_from_patterns(
    file: String,
    patterns: &[SourcePattern],
    map: Option<RegionMap>,
) -> Result<TrackSource, Failure> {
    let design = design_for(&file, patterns, map.as_ref()).map_err(|d| Failure::diagnostics(&d))?;
    Ok(TrackSource { file, design, map })
}

/// Read trajectory files and code them into the source's dictionary (their
/// regions join it, so unconstrained variables range over them).
pub fn load_trajectories(
    source: &mut TrackSource,
    files: &[PathBuf],
) -> Result<Vec<CodedTrajectory>, Failure> {
    let mut texts = Vec::new();
    for f in files {
        texts.push((
            f.display().to_string(),
            qrtl_core::engine::read_source(f, "trajectory file")?,
        ));
    }
    trajectories_from_texts(source, &texts)
}

/// [`load_trajectories`] of trajectory files read already, `(name, text)`.
pub fn trajectories_from_texts(
    source: &mut TrackSource,
    texts: &[(String, String)],
) -> Result<Vec<CodedTrajectory>, Failure> {
    let (trajs, names) = read_trajectories(texts, source.map.as_ref()).map_err(|d| {
        let mut f = Failure::diagnostics(&d);
        let n = d.len();
        f.text.push_str(&format!(
            "{n} error{} in the trajectory files; nothing matched\n",
            if n == 1 { "" } else { "s" }
        ));
        f
    })?;
    Ok(code_trajectories(&mut source.design, &trajs, &names))
}

/// A trajectory in a design's region codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodedTrajectory {
    pub id: String,
    pub samples: Vec<Sample>,
    pub events: Vec<Event>,
}

/// Parse a pattern file's text; all diagnostics on any error.
pub fn parse_patterns(file: &str, text: &str) -> Result<Vec<SourcePattern>, Vec<Diagnostic>> {
    let (patterns, diags) = parse_pattern_file(file, text);
    if diags.is_empty() {
        Ok(patterns)
    } else {
        Err(diags)
    }
}

/// Lower patterns (checked against the map's regions, if any) and extend
/// the dictionary with the map's regions.
pub fn design_for(
    file: &str,
    patterns: &[SourcePattern],
    map: Option<&RegionMap>,
) -> Result<TrackDesign, Vec<Diagnostic>> {
    lower_patterns(file, patterns, map.map(|m| m.regions.as_slice()))
}

/// Read trajectory files `(name, text)` with one reader (ids unique across
/// files); all diagnostics on any error.
pub fn read_trajectories(
    files: &[(String, String)],
    map: Option<&RegionMap>,
) -> Result<(Vec<Trajectory>, Vec<String>), Vec<Diagnostic>> {
    let mut reader = TrajReader::new(map);
    let mut all = Vec::new();
    let mut diags = Vec::new();
    for (name, text) in files {
        match reader.read(name, text) {
            Ok(t) => all.extend(t),
            Err(d) => diags.extend(d),
        }
    }
    if diags.is_empty() {
        Ok((all, reader.names.names))
    } else {
        Err(diags)
    }
}

/// Add the trajectories' regions to the design's dictionary and recode
/// their samples; events by the event detector.
pub fn code_trajectories(
    design: &mut TrackDesign,
    trajs: &[Trajectory],
    names: &[String],
) -> Vec<CodedTrajectory> {
    let map: Vec<u32> = std::iter::once(NO_REGION)
        .chain(names.iter().map(|n| design.add_region(n)))
        .collect();
    trajs
        .iter()
        .map(|t| {
            let samples: Vec<Sample> = t
                .samples
                .iter()
                .map(|s| Sample {
                    region: map[s.region as usize],
                    ts: s.ts,
                })
                .collect();
            CodedTrajectory {
                id: t.id.clone(),
                events: detect_events(&samples),
                samples,
            }
        })
        .collect()
}

// ---- design files -------------------------------------------------------------

/// `--variables` values of `compile` and `sim`.
pub const STRATEGIES: [(&str, Strategy); 3] = [
    ("or", Strategy::Or),
    ("buffer", Strategy::Buffer),
    ("expand", Strategy::Expand),
];

/// One design of a design file (`engine: track`): `patterns` (required),
/// `regions` (a region map), and the options of `qrtl track compile` under
/// their flag names (`variables`, `cluster_size`, `broadcast`,
/// `clock_mhz`) with the same defaults. Then the sources are loaded as
/// `compile` loads them.
pub fn from_design(
    mut f: qrtl_core::design::Fields<'_>,
) -> Result<(TrackSource, TrackOptions), Failure> {
    let d = TrackOptions::default();
    let patterns = f.input("patterns");
    let regions = f.opt_input("regions");
    let strategy = f.choice("variables", d.hw.engines.strategy, &STRATEGIES);
    let cluster_size = f.uint(
        "cluster_size",
        DEFAULT_CLUSTER_SIZE as u64,
        0,
        u32::MAX as u64,
    );
    let broadcast = f.flag("broadcast", d.hw.broadcast);
    let clock_mhz = f.positive("clock_mhz", DEFAULT_CLOCK_MHZ, 2000.0);
    f.finish().map_err(|d| Failure::diagnostics(&d))?;
    let patterns = patterns.expect("finish reports a missing or bad `patterns`");
    let source = load_source(&patterns, regions.as_deref())?;
    let opts = TrackOptions {
        hw: TrackHwOptions {
            engines: EngineConfig {
                strategy,
                cluster_size: cluster_size as usize,
            },
            broadcast,
        },
        clock_mhz,
    };
    Ok((source, opts))
}
