//! `qrtl track check|filter|compile|sim` (SPEC §2, §4). Exit codes as the
//! rest of the CLI: 0 success, 1 bad input, 2 usage.

use std::io::Write;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use qrtl_core::engine::{Engine, Failure};
use qrtl_track::engine::{
    load_source, load_trajectories, TrackEngine, TrackHwOptions, TrackOptions, DEFAULT_CLOCK_MHZ,
    DEFAULT_CLUSTER_SIZE,
};
use qrtl_track::ir::Strategy;
use qrtl_track::lower::{build_engines, EngineConfig};
use qrtl_track::refmodel::exact::ExactEngine;
use qrtl_track::refmodel::hw::HwModel;

use crate::common::{self, fail, json_string, SimArgs};
use crate::jobs::{self, JobsArgs};

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
    /// Match trajectories in software; one JSON line per trajectory, in
    /// input order, whatever --jobs.
    Filter {
        /// Pattern file.
        patterns: PathBuf,
        /// Trajectory CSV files (`traj_id,timestamp,region` or
        /// `traj_id,timestamp,x,y`), each any number of trajectories.
        #[arg(required = true)]
        trajectories: Vec<PathBuf>,
        /// Region map (YAML grid); needed for x,y samples.
        #[arg(long, value_name = "MAP.yaml")]
        regions: Option<PathBuf>,
        /// exact (default): the SPEC answer; or|buffer|expand: what that
        /// hardware strategy reports (or and buffer may add false positives).
        #[arg(long, value_enum, default_value_t = VariablesArg::Exact)]
        variables: VariablesArg,
        #[command(flatten)]
        jobs: JobsArgs,
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
        sim: SimArgs,
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
    #[arg(long, default_value_t = DEFAULT_CLUSTER_SIZE)]
    cluster_size: usize,
    /// Every cluster sees the event stream in the same cycle (default: the
    /// stream is pipelined from cluster to cluster).
    #[arg(long)]
    broadcast: bool,
    /// Target clock for the generated constraints, in MHz.
    #[arg(long, default_value_t = DEFAULT_CLOCK_MHZ)]
    clock_mhz: f64,
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
    let r = match cmd {
        TrackCommand::Check { patterns, regions } => check(&patterns, regions.as_deref()),
        TrackCommand::Filter {
            patterns,
            trajectories,
            jobs,
            regions,
            variables,
        } => filter(
            &patterns,
            &trajectories,
            regions.as_deref(),
            variables,
            jobs.count(),
        ),
        TrackCommand::Compile { patterns, out, hw } => compile(&patterns, &out, &hw),
        TrackCommand::Sim {
            patterns,
            trajectories,
            hw,
            sim,
        } => sim_cmd(&patterns, &trajectories, &hw, &sim),
    };
    r.unwrap_or_else(fail)
}

/// One result line (SPEC §2).
fn result_line(id: &str, matched: &[usize], extra: &str) -> String {
    format!(
        "{{\"trajectory\":{},\"matched\":{}{extra}}}",
        json_string(id),
        serde_json::Value::from(matched.to_vec())
    )
}

/// The trajectories are read and coded first (their regions join the
/// dictionary the engines are built on), then matched on `jobs` workers.
/// No `--split`: a CSV file already holds any number of trajectories.
fn filter(
    patterns: &Path,
    files: &[PathBuf],
    regions: Option<&Path>,
    variables: VariablesArg,
    jobs: NonZeroUsize,
) -> Result<i32, Failure> {
    let mut source = load_source(patterns, regions)?;
    let trajs = load_trajectories(&mut source, files)?;
    let design = &source.design;
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
            Some(build_engines(&source.file, design, &cfg).map_err(|d| Failure::diagnostics(&d))?)
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    jobs::ordered_map(
        jobs,
        trajs.iter(),
        // About the bytes of a trajectory's input lines.
        |t| t.events.len() * 32,
        || engines.as_ref().map(|e| HwModel::new(design, e)),
        |hw, t| {
            let matched = match hw.as_mut() {
                Some(m) => m.run(&t.events),
                None => ExactEngine::new(design).matches(&t.events),
            };
            result_line(&t.id, &matched, "")
        },
        |line| match writeln!(out, "{line}") {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()), // stdout closed
        },
    );
    let _ = out.flush();
    Ok(0)
}

fn check(patterns: &Path, regions: Option<&Path>) -> Result<i32, Failure> {
    let source = load_source(patterns, regions)?;
    let _ = writeln!(
        std::io::stdout().lock(),
        "{}: {} patterns ok",
        patterns.display(),
        source.design.patterns.len()
    );
    Ok(0)
}

impl TrackHwArgs {
    /// The compile options, or a usage error (exit 2).
    fn options(&self) -> Result<TrackOptions, Failure> {
        Ok(TrackOptions {
            hw: TrackHwOptions {
                engines: EngineConfig {
                    strategy: self.variables.into(),
                    cluster_size: self.cluster_size,
                },
                broadcast: self.broadcast,
            },
            clock_mhz: common::check_clock(self.clock_mhz)?,
        })
    }
}

fn compile(patterns: &Path, out: &Path, hw: &TrackHwArgs) -> Result<i32, Failure> {
    let opts = hw.options()?;
    let source = load_source(patterns, hw.regions.as_deref())?;
    common::compile(&TrackEngine, &source, &opts, out, |_| ())?;
    Ok(0)
}

fn sim_cmd(
    patterns: &Path,
    files: &[PathBuf],
    hw: &TrackHwArgs,
    sim: &SimArgs,
) -> Result<i32, Failure> {
    let opts = hw.options()?;
    let mut source = load_source(patterns, hw.regions.as_deref())?;
    // The trajectories' regions join the dictionary before compiling, so
    // unconstrained variables range over them (as in `filter`).
    let trajs = load_trajectories(&mut source, files)?;
    if trajs.is_empty() {
        return Err(Failure::input("error: no trajectories in the input files"));
    }
    let compiled = TrackEngine.compile(&source, &opts)?;
    let inputs: Vec<_> = trajs.iter().collect();
    let results = common::simulate(&TrackEngine, &compiled, &inputs, sim)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for (t, r) in trajs.iter().zip(&results) {
        let extra = format!(
            ",\"events\":{},\"samples\":{},\"cycles\":{}",
            r.output.events,
            t.samples.len(),
            r.latency
        );
        if writeln!(out, "{}", result_line(&t.id, &r.output.matched, &extra)).is_err() {
            return Ok(0);
        }
    }
    let _ = out.flush();
    Ok(0)
}
