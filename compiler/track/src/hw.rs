//! The FlexTrack hardware flow: design → engine set (one strategy) → RTL →
//! project files or a Verilator/Icarus run. The CLI, tests and benches call
//! this; each stage stays in its own module.

use qrtl_core::diag::Diagnostic;
use crate::emit::{emit_track, TrackRtl, TrackRtlConfig, RESULT_WIDTH};
use crate::ir::{EngineSet, TrackDesign};
use crate::lower::{build_engines, EngineConfig};
use crate::input::Sample;

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
    Ok(TrackHw { set, rtl })
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
    use qrtl_core::project::{Port, PortDir::*};
    let p = |name: &str, dir, width, description: &str| Port {
        name: name.to_string(),
        dir,
        width,
        description: description.to_string(),
    };
    vec![
        p("clk", Input, 1, "clock"),
        p("rst", Input, 1, "synchronous reset, active high"),
        p("s_axis_tdata", Input, 64, "samples: [31:0] timestamp, [47:32] region code, [63:48] zero"),
        p("s_axis_tvalid", Input, 1, "sample valid"),
        p("s_axis_tready", Output, 1, "sample accepted (low only while a trajectory's last sample waits for the previous results)"),
        p("s_axis_tlast", Input, 1, "last sample of a trajectory"),
        p("m_axis_tdata", Output, 32, "result words: event count, then the match bitmap"),
        p("m_axis_tvalid", Output, 1, "result word valid"),
        p("m_axis_tready", Input, 1, "result word accepted"),
        p("m_axis_tlast", Output, 1, "last result word of a trajectory"),
    ]
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
    let spec = driver_spec(hw);
    let rtl: Vec<(String, String)> = hw
        .rtl
        .files
        .iter()
        .map(|f| (f.name.clone(), f.text.clone()))
        .collect();
    let built = qrtl_core::sim::build(&spec, &rtl, simulator).map_err(|e| e.to_string())?;
    let packets: Vec<Vec<u8>> = trajectories.iter().map(|s| encode_samples(s)).collect();
    let run = built
        .run(&packets, stalls, trace)
        .map_err(|e| e.to_string())?;
    let n = hw.rtl.patterns.len();
    run.packets
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (events, matched) =
                decode_track_result(&p.words, n).map_err(|e| format!("trajectory {i}: {e}"))?;
            Ok(HwTrajResult {
                events,
                matched,
                cycles: p.cycles,
            })
        })
        .collect()
}
