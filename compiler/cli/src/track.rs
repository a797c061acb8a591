//! `qrtl track ...`: clap subcommands and their handlers. Exit codes as the
//! rest of the CLI: 0 success, 1 bad input, 2 usage.

use qrtl_core::diag::{plain_error, Diagnostic};
use qrtl_track::syntax::{parse_pattern_file, SourcePattern};
use qrtl_track::ir::{Strategy, TrackDesign};
use qrtl_track::lower::{build_engines, EngineConfig};
use qrtl_core::project::write_project;
use qrtl_track::refmodel::exact::ExactEngine;
use qrtl_track::refmodel::hw::HwModel;
use qrtl_core::sim::{Simulator, Stalls};
use qrtl_track::flow::{code_trajectories, design_for, read_trajectories, CodedTrajectory};
use qrtl_track::hw::{
    build_track_hw, simulate_track, track_project_spec, TrackHw, TrackHwOptions,
};
use qrtl_track::input::RegionMap;
use clap::{Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum TrackCommand {
    /// Parse a pattern file and report every error (exit 1 if any).
    Check {
        /// Pattern file: one pattern per line, `#` comments and blank lines skipped.
        patterns: PathBuf,
        /// Region map: pattern regions must be defined in it.
        #[arg(long, value_name = "MAP.yaml")]
        regions: Option<PathBuf>,
    },
    /// Match trajectories in software; one JSON line per trajectory.
    Filter {
        /// Pattern file.
        patterns: PathBuf,
        /// Trajectory CSV files (`traj_id,timestamp,region` or `traj_id,timestamp,x,y`).
        #[arg(required = true)]
        trajectories: Vec<PathBuf>,
        /// Region map (YAML grid); needed for x,y samples.
        #[arg(long, value_name = "MAP.yaml")]
        regions: Option<PathBuf>,
        /// exact (default): the SPEC answer; or|buffer|expand: what that
        /// hardware strategy reports (or and buffer may add false positives).
        #[arg(long, value_enum, default_value_t = VariablesArg::Exact)]
        variables: VariablesArg,
    },
    /// Compile patterns to an RTL project (Verilog, constraints, scripts, manifest).
    Compile {
        /// Pattern file.
        patterns: PathBuf,
        /// Output directory (created if missing).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        #[command(flatten)]
        hw: TrackHwArgs,
    },
    /// Compile, simulate the RTL on trajectories; `filter`'s JSON plus events and cycles.
    Sim {
        /// Pattern file.
        patterns: PathBuf,
        /// Trajectory CSV files (each trajectory one AXI4-Stream packet).
        #[arg(required = true)]
        trajectories: Vec<PathBuf>,
        #[command(flatten)]
        hw: TrackHwArgs,
        #[command(flatten)]
        sim: TrackSimArgs,
    },
}

/// Options of the generated hardware.
#[derive(clap::Args, Debug, Clone)]
pub struct TrackHwArgs {
    /// Region map (YAML grid): its regions join the region dictionary (the
    /// codes in manifest.json), so unconstrained variables can bind them.
    #[arg(long, value_name = "MAP.yaml")]
    regions: Option<PathBuf>,
    /// How variables become hardware: buffer (propagating region-set
    /// buffers), or (relaxed), expand (every combination; exact).
    #[arg(long, value_enum, default_value_t = StrategyArg::Buffer)]
    variables: StrategyArg,
    /// Nodes per cluster (each with its own region decoder); 0: one cluster.
    #[arg(long, default_value_t = 1024)]
    cluster_size: usize,
    /// Every cluster sees the event stream in the same cycle (default: the
    /// stream is pipelined from cluster to cluster).
    #[arg(long)]
    broadcast: bool,
    /// Target clock for the generated constraints, in MHz.
    #[arg(long, default_value_t = 200.0)]
    clock_mhz: f64,
}

/// Options of a simulation run.
#[derive(clap::Args, Debug, Clone)]
pub struct TrackSimArgs {
    /// Simulator: verilator (default) or icarus (small designs).
    #[arg(long, value_enum, default_value_t = SimulatorArg::Verilator)]
    simulator: SimulatorArg,
    /// Write a waveform (FST with Verilator; VCD with Icarus).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Seed of the random stalls.
    #[arg(long, default_value_t = 1)]
    stall_seed: u64,
    /// Percent of cycles the driver leaves s_axis_tvalid low (0-99).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=99))]
    in_gap: u8,
    /// Percent of cycles the driver holds m_axis_tready low (0-99).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=99))]
    out_stall: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimulatorArg {
    Verilator,
    Icarus,
}

/// `--variables` of filter (exact or a hardware strategy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum VariablesArg {
    Exact,
    Or,
    Buffer,
    Expand,
}

/// `--variables` of compile and sim (a hardware strategy).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    Or,
    Buffer,
    Expand,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Strategy {
        match s {
            StrategyArg::Or => Strategy::Or,
            StrategyArg::Buffer => Strategy::Buffer,
            StrategyArg::Expand => Strategy::Expand,
        }
    }
}

/// Run one `qrtl track` subcommand; returns the exit code.
pub fn run(cmd: TrackCommand) -> i32 {
    match cmd {
        TrackCommand::Check { patterns, regions } => check(&patterns, regions.as_deref()),
        TrackCommand::Filter {
            patterns,
            trajectories,
            regions,
            variables,
        } => filter(&patterns, &trajectories, regions.as_deref(), variables),
        TrackCommand::Compile { patterns, out, hw } => compile(&patterns, &out, &hw),
        TrackCommand::Sim {
            patterns,
            trajectories,
            hw,
            sim,
        } => sim_cmd(&patterns, &trajectories, &hw, &sim),
    }
}

pub(crate) fn print_diagnostics(diags: &[Diagnostic]) {
    let mut err = std::io::stderr().lock();
    for d in diags {
        let _ = write!(err, "{}", d.render());
    }
}

/// Read a text file; a diagnostic line on failure.
pub(crate) fn read_text(path: &Path, what: &str) -> Result<String, i32> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => Ok(t),
            Err(e) => {
                let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
                let col =
                    upto.len() - upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
                eprintln!("{name}:{line}:{col}: error: {what} is not valid UTF-8");
                Err(1)
            }
        },
        Err(e) => {
            eprintln!("{}", plain_error(&name, format!("cannot read {what}: {e}")));
            Err(1)
        }
    }
}

/// Parse a pattern file; every diagnostic and exit 1 on any error.
pub(crate) fn load_patterns(path: &Path) -> Result<Vec<SourcePattern>, i32> {
    let name = path.display().to_string();
    let text = read_text(path, "pattern file")?;
    let (patterns, diags) = parse_pattern_file(&name, &text);
    if !diags.is_empty() {
        print_diagnostics(&diags);
        eprintln!(
            "{name}: {} error{} in {} patterns",
            diags.len(),
            if diags.len() == 1 { "" } else { "s" },
            patterns.len() + diags.len()
        );
        return Err(1);
    }
    if patterns.is_empty() {
        eprintln!(
            "{}",
            plain_error(&name, "no patterns (every line is blank or a # comment)")
        );
        return Err(1);
    }
    Ok(patterns)
}

/// Read and parse a region map; diagnostics and exit 1 on failure.
pub(crate) fn load_map(path: Option<&Path>) -> Result<Option<RegionMap>, i32> {
    let Some(path) = path else { return Ok(None) };
    let text = read_text(path, "region map")?;
    RegionMap::parse(&path.display().to_string(), &text)
        .map(Some)
        .map_err(|d| {
            print_diagnostics(&d);
            1
        })
}

/// Patterns lowered against the map (if any).
pub(crate) fn load_design(patterns: &Path, map: Option<&RegionMap>) -> Result<TrackDesign, i32> {
    let parsed = load_patterns(patterns)?;
    design_for(&patterns.display().to_string(), &parsed, map).map_err(|d| {
        print_diagnostics(&d);
        1
    })
}

/// Read trajectory files and code them into the design's dictionary.
pub(crate) fn load_trajectories(
    files: &[PathBuf],
    map: Option<&RegionMap>,
    design: &mut TrackDesign,
) -> Result<Vec<CodedTrajectory>, i32> {
    let mut texts = Vec::new();
    for f in files {
        texts.push((f.display().to_string(), read_text(f, "trajectory file")?));
    }
    let (trajs, names) = read_trajectories(&texts, map).map_err(|d| {
        print_diagnostics(&d);
        let n = d.len();
        eprintln!(
            "{n} error{} in the trajectory files; nothing matched",
            if n == 1 { "" } else { "s" }
        );
        1
    })?;
    Ok(code_trajectories(design, &trajs, &names))
}

/// One result line (SPEC §2).
pub(crate) fn result_line(id: &str, matched: &[usize], extra: &str) -> String {
    format!(
        "{{\"trajectory\":{},\"matched\":{}{extra}}}",
        serde_json::Value::String(id.to_string()),
        serde_json::Value::from(matched.to_vec())
    )
}

fn filter(
    patterns: &Path,
    files: &[PathBuf],
    regions: Option<&Path>,
    variables: VariablesArg,
) -> i32 {
    let map = match load_map(regions) {
        Ok(m) => m,
        Err(c) => return c,
    };
    let mut design = match load_design(patterns, map.as_ref()) {
        Ok(d) => d,
        Err(c) => return c,
    };
    let trajs = match load_trajectories(files, map.as_ref(), &mut design) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let strategy = match variables {
        VariablesArg::Exact => None,
        VariablesArg::Or => Some(Strategy::Or),
        VariablesArg::Buffer => Some(Strategy::Buffer),
        VariablesArg::Expand => Some(Strategy::Expand),
    };
    let engines = match strategy {
        None => None,
        Some(strategy) => {
            let cfg = EngineConfig {
                strategy,
                cluster_size: 0,
            };
            match build_engines(&patterns.display().to_string(), &design, &cfg) {
                Ok(e) => Some(e),
                Err(d) => {
                    print_diagnostics(&d);
                    return 1;
                }
            }
        }
    };
    let exact = ExactEngine::new(&design);
    let mut hw = engines.as_ref().map(|e| HwModel::new(&design, e));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for t in &trajs {
        let matched = match hw.as_mut() {
            Some(m) => m.run(&t.events),
            None => exact.matches(&t.events),
        };
        if writeln!(out, "{}", result_line(&t.id, &matched, "")).is_err() {
            return 0; // stdout closed
        }
    }
    let _ = out.flush();
    0
}

fn check(patterns: &Path, regions: Option<&Path>) -> i32 {
    let map = match load_map(regions) {
        Ok(m) => m,
        Err(c) => return c,
    };
    match load_design(patterns, map.as_ref()) {
        Ok(p) => {
            let _ = writeln!(
                std::io::stdout().lock(),
                "{}: {} patterns ok",
                patterns.display(),
                p.patterns.len()
            );
            0
        }
        Err(code) => code,
    }
}

impl TrackHwArgs {
    /// Driver options, or a usage error (exit 2).
    fn options(&self) -> Result<TrackHwOptions, i32> {
        if !(self.clock_mhz.is_finite() && self.clock_mhz > 0.0 && self.clock_mhz <= 2000.0) {
            eprintln!("error: --clock-mhz must be in (0, 2000]");
            return Err(2);
        }
        Ok(TrackHwOptions {
            engines: EngineConfig {
                strategy: self.variables.into(),
                cluster_size: self.cluster_size,
            },
            broadcast: self.broadcast,
        })
    }
}

fn compile_design(
    patterns: &Path,
    design: &TrackDesign,
    opts: &TrackHwOptions,
) -> Result<TrackHw, i32> {
    build_track_hw(&patterns.display().to_string(), design, opts).map_err(|d| {
        print_diagnostics(&d);
        1
    })
}

fn compile(patterns: &Path, out: &Path, hw: &TrackHwArgs) -> i32 {
    let opts = match hw.options() {
        Ok(o) => o,
        Err(c) => return c,
    };
    let map = match load_map(hw.regions.as_deref()) {
        Ok(m) => m,
        Err(c) => return c,
    };
    let design = match load_design(patterns, map.as_ref()) {
        Ok(d) => d,
        Err(c) => return c,
    };
    let compiled = match compile_design(patterns, &design, &opts) {
        Ok(c) => c,
        Err(c) => return c,
    };
    let spec = track_project_spec(&compiled, &design, &opts, hw.clock_mhz);
    if let Err(e) = write_project(out, &spec) {
        eprintln!("error: {e}");
        return 1;
    }
    0
}

fn sim_cmd(patterns: &Path, files: &[PathBuf], hw: &TrackHwArgs, sim: &TrackSimArgs) -> i32 {
    let opts = match hw.options() {
        Ok(o) => o,
        Err(c) => return c,
    };
    let map = match load_map(hw.regions.as_deref()) {
        Ok(m) => m,
        Err(c) => return c,
    };
    let mut design = match load_design(patterns, map.as_ref()) {
        Ok(d) => d,
        Err(c) => return c,
    };
    // The trajectories' regions join the dictionary before compiling, so
    // unconstrained variables range over them (as in `filter`).
    let trajs = match load_trajectories(files, map.as_ref(), &mut design) {
        Ok(t) => t,
        Err(c) => return c,
    };
    if trajs.is_empty() {
        eprintln!("error: no trajectories in the input files");
        return 1;
    }
    let compiled = match compile_design(patterns, &design, &opts) {
        Ok(c) => c,
        Err(c) => return c,
    };
    if let Some(t) = &sim.trace {
        if let Err(e) = std::fs::File::create(t) {
            eprintln!(
                "{}",
                plain_error(
                    &t.display().to_string(),
                    format!("cannot write the waveform: {e}")
                )
            );
            return 1;
        }
    }
    let simulator = match sim.simulator {
        SimulatorArg::Verilator => Simulator::Verilator,
        SimulatorArg::Icarus => Simulator::Icarus,
    };
    let stalls = Stalls {
        seed: sim.stall_seed,
        in_gap_percent: sim.in_gap,
        out_stall_percent: sim.out_stall,
    };
    let samples: Vec<&[qrtl_track::input::Sample]> =
        trajs.iter().map(|t| t.samples.as_slice()).collect();
    let results = match simulate_track(
        &compiled,
        &samples,
        simulator,
        &stalls,
        sim.trace.as_deref(),
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: simulation failed: {e}");
            return 1;
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (t, r) in trajs.iter().zip(&results) {
        let extra = format!(
            ",\"events\":{},\"samples\":{},\"cycles\":{}",
            r.events,
            t.samples.len(),
            r.cycles
        );
        if writeln!(out, "{}", result_line(&t.id, &r.matched, &extra)).is_err() {
            return 0;
        }
    }
    let _ = out.flush();
    0
}
