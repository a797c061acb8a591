//! Simulation harness: generated C++ Verilator drivers and Icarus test
//! benches for AXI4-Stream designs, a build cache, result readers.
//!
//! Any design shaped like `qrtl_xpath_top` (rtl-templates/README.md) can be
//! simulated: a byte stream in (`<in>_tdata[8B-1:0]`, B bytes per beat, with
//! an optional `<in>_tkeep[B-1:0]` for a partial last beat, `_tvalid`,
//! `_tready`, `_tlast`, one packet per input), result beats out
//! (`<out>_tdata` of 1 to 16384 bits, `_tvalid`, `_tready`, `_tlast` ending
//! each packet's result), one clock, a synchronous active-high reset. Each
//! input packet must yield exactly one result packet, in order.
//!
//! A design configured at run time may also have a configuration stream
//! ([`DriverSpec::cfg`]: `<cfg>_tdata` of whole bytes, `_tvalid`,
//! `_tready`, `_tlast`, no tkeep). [`Built::run_steps`] interleaves
//! configuration packets ([`Step::Config`]) with documents ([`Step::Doc`]):
//! steps go strictly in order, each after the previous one's last beat was
//! accepted, and only documents have results. Without configuration steps
//! the configuration stream stays idle.
//!
//! ```text
//! DriverSpec + RTL ──render──▶ axis_driver.cpp / axis_tb.v
//!                  ──build───▶ cache/<sha256>/ (verilator --build, or iverilog)
//! Built::run(packets, stalls) ──stimulus file──▶ driver ──results file──▶ SimRun
//! Built::run_steps(steps, stalls) ─┘ (QRTLSTM2 with configuration packets)
//! ```
//!
//! Both simulators draw tvalid gaps (on the stream of the packet being
//! sent) and tready stalls from the same xorshift64 sequence, so for one
//! seed they see the same stall pattern and report the same cycle counts.

pub mod cache;
pub mod format;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use askama::Template;

pub use cache::{default_cache_root, CacheEntry};
use format::StreamId;

/// Which simulator runs the design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Simulator {
    /// Verilator 5, with the generated C++ driver (`sim/axis_driver.cpp`).
    Verilator,
    /// Icarus Verilog (`iverilog -g2005` + `vvp`), with `sim/axis_tb.v`.
    Icarus,
}

impl Simulator {
    pub fn name(self) -> &'static str {
        match self {
            Simulator::Verilator => "verilator",
            Simulator::Icarus => "iverilog",
        }
    }
}

/// The design's AXI4-Stream interface, as the driver sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverSpec {
    /// Top-level module.
    pub top: String,
    /// Clock input.
    pub clock_port: String,
    /// Synchronous active-high reset input; empty if the design has none.
    pub reset_port: String,
    /// Prefix of the input stream's ports (`s_axis` → `s_axis_tdata`, ...).
    pub in_prefix: String,
    /// Prefix of the output stream's ports (`m_axis`).
    pub out_prefix: String,
    /// Width of `<in>_tdata`: a multiple of 8 in 8..=[`MAX_IN_BITS`]; a
    /// packet's bytes go in `in_data_bits / 8` per beat, byte `i` of a beat
    /// on bits `8i+7..8i`.
    pub in_data_bits: u32,
    /// The design has `<in>_tkeep[in_data_bits/8-1:0]`: a packet's last beat
    /// may be partial (its bytes in the low lanes, tkeep set for them, the
    /// other bytes 0). Without it every packet must be whole beats.
    pub in_keep: bool,
    /// Width of `<out>_tdata`, 1..=[`MAX_OUT_BITS`]. Beats of up to 32 bits
    /// are also given as [`PacketResult::words`].
    pub out_word_bits: u32,
    /// The configuration stream, if the design has one.
    pub cfg: Option<CfgStream>,
    /// Cycles of reset before the first beat.
    pub reset_cycles: u32,
    /// A run fails with [`SimError::Timeout`] after this many consecutive
    /// cycles without a transfer on either stream while results are
    /// outstanding. Not part of the build (a run-time argument).
    pub timeout_cycles: u64,
}

/// A second input stream for designs configured at run time: configuration
/// packets ([`Step::Config`]), whole beats (no tkeep), no results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgStream {
    /// Prefix of its ports (`s_cfg` → `s_cfg_tdata`, `s_cfg_tvalid`,
    /// `s_cfg_tready`, `s_cfg_tlast`).
    pub prefix: String,
    /// Width of `<cfg>_tdata`: a multiple of 8 in 8..=[`MAX_IN_BITS`]; a
    /// configuration packet's bytes go in `data_bits / 8` per beat, byte `i`
    /// of a beat on bits `8i+7..8i`.
    pub data_bits: u32,
}

/// Widest `<in>_tdata` (and `<cfg>_tdata`) the harness drives.
pub const MAX_IN_BITS: u32 = 1024;
/// Widest `<out>_tdata` the harness reads.
pub const MAX_OUT_BITS: u32 = 16384;

impl DriverSpec {
    /// The `qrtl_xpath_top` shape: `clk`, `rst`, `s_axis_*` bytes in (no
    /// tkeep), `m_axis_*` 32-bit words out, no configuration stream.
    pub fn axis(top: &str) -> Self {
        DriverSpec {
            top: top.to_string(),
            clock_port: "clk".into(),
            reset_port: "rst".into(),
            in_prefix: "s_axis".into(),
            out_prefix: "m_axis".into(),
            in_data_bits: 8,
            in_keep: false,
            out_word_bits: 32,
            cfg: None,
            reset_cycles: 8,
            timeout_cycles: 1_000_000,
        }
    }
}

/// The driver spec and RTL sources of a project written by
/// [`crate::project::write_project`]: top, clock and reset from its
/// `manifest.json`, `s_axis`/`m_axis` streams (the data widths from the
/// `s_axis_tdata` and `m_axis_tdata` ports, `in_keep` from the presence of
/// `s_axis_tkeep`), an `s_cfg` configuration stream if there is an
/// `s_cfg_tdata` port (its width from there), sources from the manifest's
/// `files`.
pub fn project_sources(dir: &Path) -> Result<(DriverSpec, Vec<(String, String)>), SimError> {
    let path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
    let bad = |message: String| SimError::InvalidSpec {
        message: format!("{}: {message}", path.display()),
    };
    let m: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let field = |k: &str| {
        m.get(k)
            .and_then(|v| v.as_str())
            .ok_or_else(|| bad(format!("missing string `{k}`")))
    };
    let mut spec = DriverSpec::axis(field("top")?);
    spec.clock_port = field("clock_port")?.to_string();
    spec.reset_port = field("reset_port")?.to_string();
    let port_width = |name: &str| {
        m.get("ports")
            .and_then(|p| p.as_array())
            .and_then(|ports| {
                ports
                    .iter()
                    .find(|p| p.get("name").and_then(|n| n.as_str()) == Some(name))
            })
            .and_then(|p| p.get("width"))
            .and_then(|w| w.as_u64())
            .and_then(|w| u32::try_from(w).ok())
    };
    let tdata = format!("{}_tdata", spec.out_prefix);
    spec.out_word_bits =
        port_width(&tdata).ok_or_else(|| bad(format!("no port `{tdata}` with a width")))?;
    let tdata = format!("{}_tdata", spec.in_prefix);
    spec.in_data_bits =
        port_width(&tdata).ok_or_else(|| bad(format!("no port `{tdata}` with a width")))?;
    spec.in_keep = port_width(&format!("{}_tkeep", spec.in_prefix)).is_some();
    spec.cfg = port_width("s_cfg_tdata").map(|data_bits| CfgStream {
        prefix: "s_cfg".into(),
        data_bits,
    });
    let files = m
        .get("files")
        .and_then(|f| f.as_array())
        .ok_or_else(|| bad("missing `files`".into()))?;
    let mut rtl = Vec::new();
    for f in files {
        let rel = f
            .as_str()
            .ok_or_else(|| bad("`files` holds a non-string".into()))?;
        let file = dir.join(rel);
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .ok_or_else(|| bad(format!("bad file `{rel}`")))?;
        let text = std::fs::read_to_string(&file).map_err(io_err(&file))?;
        rtl.push((name, text));
    }
    Ok((spec, rtl))
}

/// Random stalls on the streams: with `in_gap_percent`, the driver leaves
/// `tvalid` low before a beat (of a document or a configuration packet);
/// with `out_stall_percent`, it holds `m_axis_tready` low in a cycle.
/// Results must not depend on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stalls {
    pub seed: u64,
    pub in_gap_percent: u8,
    pub out_stall_percent: u8,
}

impl Stalls {
    /// Back-to-back input, output always ready.
    pub const NONE: Stalls = Stalls {
        seed: 1,
        in_gap_percent: 0,
        out_stall_percent: 0,
    };
}

/// A reset pulse in the middle of a run ([`Built::run_with_resets`]): the
/// reset held for `cycles` clocks from the driver's cycle `at` (cycles
/// count from the end of the initial reset, as [`SimRun`]'s do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResetPulse {
    pub at: u64,
    pub cycles: u32,
}

/// One packet of a run with configuration ([`Built::run_steps`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A document on the input stream: one result packet.
    Doc(Vec<u8>),
    /// A configuration packet on [`DriverSpec::cfg`]'s stream: whole beats,
    /// no result.
    Config(Vec<u8>),
}

impl Step {
    fn packet(&self) -> (StreamId, &[u8]) {
        match self {
            Step::Doc(bytes) => (StreamId::Document, bytes),
            Step::Config(bytes) => (StreamId::Config, bytes),
        }
    }
}

/// One input packet's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketResult {
    /// The result beats' `tdata` (`tlast` on the last) when it is at most 32
    /// bits wide; the low 32 bits of each beat otherwise.
    pub words: Vec<u32>,
    /// The result beats' `tdata` as little-endian bytes,
    /// `ceil(out_word_bits / 8)` per beat (bits above the width are 0).
    pub beats: Vec<Vec<u8>>,
    /// Cycles from the packet's first accepted byte to the cycle its first
    /// result word was valid.
    pub cycles: u64,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimRun {
    /// One per input packet (document), in order.
    pub packets: Vec<PacketResult>,
    /// Cycles from the end of reset to the cycle the last word was accepted
    /// (or the last configuration beat, if that came later).
    pub total_cycles: u64,
    /// Cycles with `s_axis_tvalid && !s_axis_tready`, or the same on the
    /// configuration stream.
    pub input_stall_cycles: u64,
    /// Cycles with `m_axis_tvalid && !m_axis_tready`.
    pub output_stall_cycles: u64,
}

/// Build-time options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// Cache root; `None`: [`default_cache_root`].
    pub cache_dir: Option<PathBuf>,
    /// Parallel C++ compile jobs for Verilator (`0`: 2).
    pub jobs: u32,
    /// Compile Verilator's C++ without optimization (`-O0` instead of
    /// `-Os`): builds about a third faster, simulation slower. For tests
    /// that build many designs and run short streams.
    pub unoptimized_cxx: bool,
}

/// Why a build or a run failed.
#[derive(Debug)]
pub enum SimError {
    /// A required program is not installed.
    ToolMissing { tool: String },
    /// File system error at `path`.
    Io { path: PathBuf, source: io::Error },
    /// The driver spec, the RTL list or the stall settings are unusable.
    InvalidSpec { message: String },
    /// Packet `index` (of the packets, or of the steps in
    /// [`Built::run_steps`]) is empty: AXI4-Stream cannot send a
    /// zero-length packet.
    EmptyPacket { index: usize },
    /// The simulator rejected the design. `warnings` are the lint warnings
    /// (`%Warning-...` lines; fatal: designs must be lint clean).
    Build {
        tool: String,
        command: String,
        stderr: String,
        warnings: Vec<String>,
    },
    /// No transfer on either stream for the timeout while results were due.
    Timeout {
        simulator: Simulator,
        message: String,
    },
    /// The design broke the AXI4-Stream rules (changed a stalled word,
    /// answered before its input, produced extra output, drove X).
    Protocol {
        simulator: Simulator,
        message: String,
    },
    /// The driver failed in another way (crash, bad file).
    Run {
        simulator: Simulator,
        command: String,
        message: String,
    },
}

const INSTALL_HINT: &str =
    "install the simulators with `apt-get install verilator iverilog ccache` (or `make deps`)";

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::ToolMissing { tool } => write!(f, "`{tool}` not found: {INSTALL_HINT}"),
            SimError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            SimError::InvalidSpec { message } => write!(f, "invalid simulation setup: {message}"),
            SimError::EmptyPacket { index } => write!(
                f,
                "packet {index} is empty: AXI4-Stream cannot carry a zero-length packet"
            ),
            SimError::Build {
                tool,
                command,
                stderr,
                warnings,
            } => {
                write!(f, "{tool} build failed")?;
                if !warnings.is_empty() {
                    write!(
                        f,
                        " with {} lint warning(s) (designs must be lint clean under -Wall)",
                        warnings.len()
                    )?;
                }
                write!(f, "\ncommand: {command}\n{}", stderr.trim_end())
            }
            SimError::Timeout { simulator, message } => {
                write!(f, "{} simulation timed out: {message}", simulator.name())
            }
            SimError::Protocol { simulator, message } => write!(
                f,
                "{} simulation: AXI4-Stream protocol error by the design: {message}",
                simulator.name()
            ),
            SimError::Run {
                simulator,
                command,
                message,
            } => write!(
                f,
                "{} simulation failed: {message}\ncommand: {command}",
                simulator.name()
            ),
        }
    }
}

impl std::error::Error for SimError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SimError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SimError + '_ {
    move |source| SimError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[derive(Template)]
#[template(path = "axis_driver.cpp", escape = "none")]
struct DriverT<'a> {
    top: &'a str,
    clock: &'a str,
    reset: &'a str,
    has_reset: bool,
    in_prefix: &'a str,
    out_prefix: &'a str,
    reset_cycles: u32,
    in_bits: u32,
    in_bytes: u32,
    in_keep: bool,
    out_bits: u32,
    out_bytes: u32,
    has_cfg: bool,
    cfg_prefix: &'a str,
    cfg_bits: u32,
    cfg_bytes: u32,
}

#[derive(Template)]
#[template(path = "axis_tb.v", escape = "none")]
struct TestbenchT<'a> {
    top: &'a str,
    clock: &'a str,
    reset: &'a str,
    has_reset: bool,
    in_prefix: &'a str,
    out_prefix: &'a str,
    out_bits: u32,
    out_bytes: u32,
    in_bytes: u32,
    in_keep: bool,
    reset_cycles: u32,
    has_cfg: bool,
    cfg_prefix: &'a str,
    cfg_bytes: u32,
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn validate_cfg(spec: &DriverSpec, cfg: &CfgStream) -> Result<(), SimError> {
    let bad = |message: String| Err(SimError::InvalidSpec { message });
    if !is_identifier(&cfg.prefix) {
        return bad(format!(
            "configuration prefix `{}` is not a Verilog identifier",
            cfg.prefix
        ));
    }
    if cfg.prefix == spec.in_prefix || cfg.prefix == spec.out_prefix {
        return bad(format!(
            "configuration prefix `{}` is also the input or output prefix",
            cfg.prefix
        ));
    }
    if cfg.data_bits % 8 != 0 || !(8..=MAX_IN_BITS).contains(&cfg.data_bits) {
        return bad(format!(
            "configuration data width {} (`{}_tdata`) is not a multiple of 8 in 8..={MAX_IN_BITS}",
            cfg.data_bits, cfg.prefix
        ));
    }
    Ok(())
}

fn validate(spec: &DriverSpec, rtl: &[(String, String)]) -> Result<(), SimError> {
    let bad = |message: String| Err(SimError::InvalidSpec { message });
    for (what, name) in [
        ("top", &spec.top),
        ("clock port", &spec.clock_port),
        ("input prefix", &spec.in_prefix),
        ("output prefix", &spec.out_prefix),
    ] {
        if !is_identifier(name) {
            return bad(format!("{what} `{name}` is not a Verilog identifier"));
        }
    }
    if !spec.reset_port.is_empty() && !is_identifier(&spec.reset_port) {
        return bad(format!(
            "reset port `{}` is not an identifier",
            spec.reset_port
        ));
    }
    if spec.in_data_bits % 8 != 0 || !(8..=MAX_IN_BITS).contains(&spec.in_data_bits) {
        return bad(format!(
            "input data width {} is not a multiple of 8 in 8..={MAX_IN_BITS}",
            spec.in_data_bits
        ));
    }
    if let Some(cfg) = &spec.cfg {
        validate_cfg(spec, cfg)?;
    }
    if !(1..=MAX_OUT_BITS).contains(&spec.out_word_bits) {
        return bad(format!(
            "output word width {} is not in 1..={MAX_OUT_BITS}",
            spec.out_word_bits
        ));
    }
    if spec.timeout_cycles == 0 {
        return bad("timeout_cycles must be positive".into());
    }
    if rtl.is_empty() {
        return bad("no RTL sources".into());
    }
    for (i, (name, _)) in rtl.iter().enumerate() {
        let plain = !name.is_empty()
            && (name.ends_with(".v") || name.ends_with(".sv") || name.ends_with(".vh"))
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !plain || name.starts_with('.') {
            return bad(format!(
                "RTL file name `{name}` must be a plain NAME.v (no directories)"
            ));
        }
        if rtl[..i].iter().any(|(n, _)| n == name) {
            return bad(format!("RTL file `{name}` given twice"));
        }
        if name == "axis_tb.v" || name == "axis_driver.cpp" {
            return bad(format!(
                "RTL file name `{name}` is reserved for the harness"
            ));
        }
    }
    Ok(())
}

/// Bytes of a configuration beat; 1 (unused) without a configuration stream.
fn cfg_bytes(spec: &DriverSpec) -> u32 {
    spec.cfg.as_ref().map_or(1, |c| c.data_bits / 8)
}

/// The C++ driver for `spec` (Verilator).
pub fn render_driver(spec: &DriverSpec) -> String {
    DriverT {
        top: &spec.top,
        clock: &spec.clock_port,
        reset: &spec.reset_port,
        has_reset: !spec.reset_port.is_empty(),
        in_prefix: &spec.in_prefix,
        out_prefix: &spec.out_prefix,
        reset_cycles: spec.reset_cycles,
        in_bits: spec.in_data_bits,
        in_bytes: spec.in_data_bits / 8,
        in_keep: spec.in_keep,
        out_bits: spec.out_word_bits,
        out_bytes: spec.out_word_bits.div_ceil(8),
        has_cfg: spec.cfg.is_some(),
        cfg_prefix: spec.cfg.as_ref().map_or("", |c| &c.prefix),
        cfg_bits: spec.cfg.as_ref().map_or(8, |c| c.data_bits),
        cfg_bytes: cfg_bytes(spec),
    }
    .render()
    .expect("the driver template renders from plain strings")
}

/// The Verilog test bench for `spec` (Icarus).
pub fn render_testbench(spec: &DriverSpec) -> String {
    TestbenchT {
        top: &spec.top,
        clock: &spec.clock_port,
        reset: &spec.reset_port,
        has_reset: !spec.reset_port.is_empty(),
        in_prefix: &spec.in_prefix,
        out_prefix: &spec.out_prefix,
        out_bits: spec.out_word_bits,
        out_bytes: spec.out_word_bits.div_ceil(8),
        in_bytes: spec.in_data_bits / 8,
        in_keep: spec.in_keep,
        reset_cycles: spec.reset_cycles,
        has_cfg: spec.cfg.is_some(),
        cfg_prefix: spec.cfg.as_ref().map_or("", |c| &c.prefix),
        cfg_bytes: cfg_bytes(spec),
    }
    .render()
    .expect("the test bench template renders from plain strings")
}

/// First line of `tool --version`-like output, or `ToolMissing`.
fn tool_version(tool: &str, arg: &str) -> Result<String, SimError> {
    let out = Command::new(tool).arg(arg).output().map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            SimError::ToolMissing { tool: tool.into() }
        } else {
            SimError::Io {
                path: PathBuf::from(tool),
                source: e,
            }
        }
    })?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    Ok(text.lines().next().unwrap_or("").trim().to_string())
}

fn ccache_available() -> bool {
    Command::new("ccache").arg("--version").output().is_ok()
}

/// A design built for one simulator, ready to run.
#[derive(Clone, Debug)]
pub struct Built {
    pub simulator: Simulator,
    /// The cache entry holding the executable (`driver` or `sim.vvp`).
    pub dir: PathBuf,
    /// True when the entry was already in the cache (nothing was compiled).
    pub cached: bool,
    /// Time spent in this `build` call (lookup, or compile and link).
    pub build_time: Duration,
    /// Tool version the entry was built with.
    pub tool_version: String,
    /// Warnings printed by the build (non-fatal ones, e.g. Icarus').
    pub warnings: Vec<String>,
    spec: DriverSpec,
    rtl: Vec<(String, String)>,
    options: BuildOptions,
}

/// Build `spec` + `rtl` for `sim` with default options (see [`build_with`]).
pub fn build(
    spec: &DriverSpec,
    rtl: &[(String, String)],
    sim: Simulator,
) -> Result<Built, SimError> {
    build_with(spec, rtl, sim, &BuildOptions::default())
}

/// Build (or find in the cache) the simulation of `rtl` (`(file name,
/// contents)` pairs) driven through `spec`'s ports.
pub fn build_with(
    spec: &DriverSpec,
    rtl: &[(String, String)],
    sim: Simulator,
    options: &BuildOptions,
) -> Result<Built, SimError> {
    validate(spec, rtl)?;
    build_variant(spec, rtl, sim, options, false)
}

fn build_variant(
    spec: &DriverSpec,
    rtl: &[(String, String)],
    sim: Simulator,
    options: &BuildOptions,
    trace: bool,
) -> Result<Built, SimError> {
    let t0 = Instant::now();
    let (version, harness) = match sim {
        Simulator::Verilator => (tool_version("verilator", "--version")?, render_driver(spec)),
        Simulator::Icarus => {
            let v = tool_version("iverilog", "-V")?;
            tool_version("vvp", "-V")?;
            (v, render_testbench(spec))
        }
    };
    let jobs = if options.jobs == 0 { 2 } else { options.jobs };
    let mut key_parts: Vec<(&str, &[u8])> = vec![
        ("harness", b"qrtl-sim-3"),
        ("simulator", sim.name().as_bytes()),
        ("version", version.as_bytes()),
        ("top", spec.top.as_bytes()),
        ("driver", harness.as_bytes()),
        ("trace", if trace { b"fst" } else { b"none" }),
    ];
    if options.unoptimized_cxx {
        key_parts.push(("cxx", b"-O0"));
    }
    for (name, text) in rtl {
        key_parts.push((name, text.as_bytes()));
    }
    let key = cache::key(&key_parts);
    let root = match &options.cache_dir {
        Some(d) => d.clone(),
        None => default_cache_root(),
    };
    let exe_name = match sim {
        Simulator::Verilator => "driver",
        Simulator::Icarus => "sim.vvp",
    };
    let mut warnings = Vec::new();
    let entry = cache::get_or_build(&root, &key, |tmp| {
        let rtl_dir = tmp.join("rtl");
        std::fs::create_dir_all(&rtl_dir).map_err(io_err(&rtl_dir))?;
        let mut files = Vec::new();
        for (name, text) in rtl {
            let p = rtl_dir.join(name);
            std::fs::write(&p, text).map_err(io_err(&p))?;
            if !name.ends_with(".vh") {
                files.push(p);
            }
        }
        let log;
        match sim {
            Simulator::Verilator => {
                let cpp = tmp.join("axis_driver.cpp");
                std::fs::write(&cpp, &harness).map_err(io_err(&cpp))?;
                let obj = tmp.join("obj");
                let mut cmd = Command::new("verilator");
                cmd.args(["--cc", "--exe", "--build", "-O3", "-Wall"])
                    .args(["--top-module", &spec.top])
                    .arg("-Mdir")
                    .arg(&obj)
                    .args(["-o", exe_name])
                    .args(["-j", &jobs.to_string()])
                    .arg("-I".to_string() + &rtl_dir.to_string_lossy());
                if trace {
                    cmd.arg("--trace-fst");
                }
                if options.unoptimized_cxx {
                    cmd.args(["-MAKEFLAGS", "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"]);
                }
                cmd.args(&files).arg(&cpp);
                if ccache_available() {
                    cmd.env("OBJCACHE", "ccache");
                }
                log = run_build(cmd, "verilator")?;
                let exe = obj.join(exe_name);
                std::fs::rename(&exe, tmp.join(exe_name)).map_err(io_err(&exe))?;
                std::fs::remove_dir_all(&obj).map_err(io_err(&obj))?;
            }
            Simulator::Icarus => {
                let tb = tmp.join("axis_tb.v");
                std::fs::write(&tb, &harness).map_err(io_err(&tb))?;
                let mut cmd = Command::new("iverilog");
                cmd.args(["-g2005", "-Wall", "-Wno-timescale", "-s", "qrtl_axis_tb"])
                    .arg("-o")
                    .arg(tmp.join(exe_name))
                    .arg("-I")
                    .arg(&rtl_dir)
                    .arg(&tb)
                    .args(&files);
                log = run_build(cmd, "iverilog")?;
            }
        }
        let log_path = tmp.join("build.log");
        std::fs::write(&log_path, &log).map_err(io_err(&log_path))?;
        Ok(())
    })?;
    if !entry.cached {
        // Keep the cache bounded; entries in use are the most recent ones.
        let _ = cache::prune(&root, cache::default_max_bytes());
    }
    if let Ok(log) = std::fs::read_to_string(entry.dir.join("build.log")) {
        warnings.extend(
            log.lines()
                .filter(|l| l.contains("warning") || l.starts_with("%Warning"))
                .map(str::to_string),
        );
    }
    Ok(Built {
        simulator: sim,
        dir: entry.dir,
        cached: entry.cached,
        build_time: t0.elapsed(),
        tool_version: version,
        warnings,
        spec: spec.clone(),
        rtl: rtl.to_vec(),
        options: options.clone(),
    })
}

/// Run a build command; its stdout+stderr on success, `Build` on failure.
fn run_build(mut cmd: Command, tool: &str) -> Result<String, SimError> {
    let command = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            SimError::ToolMissing { tool: tool.into() }
        } else {
            SimError::Io {
                path: PathBuf::from(tool),
                source: e,
            }
        }
    })?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        return Ok(text);
    }
    let warnings = text
        .lines()
        .filter(|l| l.starts_with("%Warning"))
        .map(str::to_string)
        .collect();
    Err(SimError::Build {
        tool: tool.into(),
        command,
        stderr: text,
        warnings,
    })
}

impl Built {
    /// The executable: Verilator's driver binary or Icarus' `sim.vvp`.
    pub fn executable(&self) -> PathBuf {
        self.dir.join(match self.simulator {
            Simulator::Verilator => "driver",
            Simulator::Icarus => "sim.vvp",
        })
    }

    /// Simulate `packets` (one AXI4-Stream packet each) with `stalls`.
    /// With `trace`, write a waveform there (Verilator: FST, from a
    /// separately cached `--trace-fst` build; Icarus: VCD, or FST if the
    /// name ends in `.fst`).
    pub fn run(
        &self,
        packets: &[Vec<u8>],
        stalls: &Stalls,
        trace: Option<&Path>,
    ) -> Result<SimRun, SimError> {
        self.run_with_resets(packets, stalls, &[], trace)
    }

    /// [`Built::run`] with reset pulses in the middle of the run (Verilator
    /// only; the design must have a reset port). At each pulse the driver
    /// drops both streams, holds the reset for its length, then sends again
    /// every packet whose result it had not received whole; the packets'
    /// results are those of a run without resets unless state survives a
    /// reset (or a stale word comes out after it: a protocol error).
    pub fn run_with_resets(
        &self,
        packets: &[Vec<u8>],
        stalls: &Stalls,
        resets: &[ResetPulse],
        trace: Option<&Path>,
    ) -> Result<SimRun, SimError> {
        self.check_resets(resets)?;
        let packets: Vec<_> = packets
            .iter()
            .map(|p| (StreamId::Document, p.as_slice()))
            .collect();
        self.run_packets(&packets, stalls, resets, trace)
    }

    /// Simulate `steps` in order, configuration packets on the design's
    /// configuration stream ([`DriverSpec::cfg`]) between the documents:
    /// each step's first beat is presented once the previous step's last
    /// beat was accepted. The run lists the documents' results, in order
    /// (configuration steps have none), and ends when every step was sent
    /// and every result received. Configuration packets must be whole beats
    /// of the configuration stream. Reset pulses are not offered here: the
    /// design would lose its configuration ([`Built::run_with_resets`]
    /// runs documents only).
    pub fn run_steps(
        &self,
        steps: &[Step],
        stalls: &Stalls,
        trace: Option<&Path>,
    ) -> Result<SimRun, SimError> {
        let packets: Vec<_> = steps.iter().map(Step::packet).collect();
        self.run_packets(&packets, stalls, &[], trace)
    }

    fn check_resets(&self, resets: &[ResetPulse]) -> Result<(), SimError> {
        let bad = |message: &str| {
            Err(SimError::InvalidSpec {
                message: message.into(),
            })
        };
        if resets.is_empty() {
            Ok(())
        } else if self.simulator != Simulator::Verilator {
            bad("reset pulses in a run need the Verilator driver")
        } else if self.spec.reset_port.is_empty() {
            bad("reset pulses in a run: the design has no reset port")
        } else if resets.iter().any(|r| r.cycles == 0)
            || resets.windows(2).any(|w| w[1].at <= w[0].at)
        {
            bad("reset pulses must last a clock or more, at increasing cycles")
        } else {
            Ok(())
        }
    }

    /// Refuse packets the driver cannot send: empty ones, partial beats
    /// where the stream has no tkeep, configuration packets without a
    /// configuration stream, counts or lengths beyond `u32`.
    fn check_packets(&self, packets: &[(StreamId, &[u8])]) -> Result<(), SimError> {
        let bad = |message: String| Err(SimError::InvalidSpec { message });
        if packets.len() > u32::MAX as usize {
            return bad("more than 2^32-1 packets".into());
        }
        let in_bytes = (self.spec.in_data_bits / 8) as usize;
        for (index, &(stream, bytes)) in packets.iter().enumerate() {
            if bytes.is_empty() {
                return Err(SimError::EmptyPacket { index });
            }
            if bytes.len() > u32::MAX as usize {
                return bad(format!("packet {index} has more than 2^32-1 bytes"));
            }
            match (stream, &self.spec.cfg) {
                (StreamId::Document, _) if !self.spec.in_keep && bytes.len() % in_bytes != 0 => {
                    return bad(format!(
                        "packet {index} has {} bytes, not whole {in_bytes}-byte beats, and \
                         the design has no `{}_tkeep` for a partial last beat",
                        bytes.len(),
                        self.spec.in_prefix
                    ))
                }
                (StreamId::Document, _) => {}
                (StreamId::Config, None) => {
                    return bad(format!(
                        "step {index} is a configuration packet, but the design has no \
                         configuration stream (`DriverSpec::cfg` is None)"
                    ))
                }
                (StreamId::Config, Some(cfg))
                    if bytes.len() % (cfg.data_bits / 8) as usize != 0 =>
                {
                    return bad(format!(
                        "configuration packet (step {index}) has {} bytes, not whole {}-byte \
                         beats of `{}_tdata`",
                        bytes.len(),
                        cfg.data_bits / 8,
                        cfg.prefix
                    ))
                }
                (StreamId::Config, Some(_)) => {}
            }
        }
        Ok(())
    }

    fn run_packets(
        &self,
        packets: &[(StreamId, &[u8])],
        stalls: &Stalls,
        resets: &[ResetPulse],
        trace: Option<&Path>,
    ) -> Result<SimRun, SimError> {
        self.check_packets(packets)?;
        if stalls.in_gap_percent > 99 || stalls.out_stall_percent > 99 {
            return Err(SimError::InvalidSpec {
                message: "stall percentages must be 0..=99".into(),
            });
        }
        let traced;
        let exe = match (self.simulator, trace) {
            (Simulator::Verilator, Some(_)) => {
                traced = build_variant(&self.spec, &self.rtl, self.simulator, &self.options, true)?;
                traced.executable()
            }
            _ => self.executable(),
        };
        let work = cache::TempDir::new(&self.dir.parent().unwrap_or(&self.dir).join(".runs"))?;
        let stim = work.path().join("stimulus.bin");
        let res = work.path().join("results.bin");
        std::fs::write(&stim, format::encode_stimulus(packets)).map_err(io_err(&stim))?;
        let mut cmd = self.command(&exe, &stim, &res, stalls, resets, trace);
        let command = format!("{cmd:?}");
        let out = cmd.output().map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound && self.simulator == Simulator::Icarus {
                SimError::ToolMissing { tool: "vvp".into() }
            } else {
                SimError::Io {
                    path: exe.clone(),
                    source: e,
                }
            }
        })?;
        self.check_exit(&out, &command)?;
        let bytes = std::fs::read(&res).map_err(io_err(&res))?;
        let out_bytes = self.spec.out_word_bits.div_ceil(8) as usize;
        let docs = packets
            .iter()
            .filter(|(s, _)| *s == StreamId::Document)
            .count();
        format::decode_results(&bytes, docs, out_bytes).map_err(|message| SimError::Run {
            simulator: self.simulator,
            command,
            message: format!("{}: {message}", res.display()),
        })
    }

    /// The simulator's command line for one run.
    fn command(
        &self,
        exe: &Path,
        stim: &Path,
        res: &Path,
        stalls: &Stalls,
        resets: &[ResetPulse],
        trace: Option<&Path>,
    ) -> Command {
        let mut cmd;
        match self.simulator {
            Simulator::Verilator => {
                cmd = Command::new(exe);
                cmd.arg(stim)
                    .arg(res)
                    .args(["--seed", &stalls.seed.to_string()])
                    .args(["--in-gap", &stalls.in_gap_percent.to_string()])
                    .args(["--out-stall", &stalls.out_stall_percent.to_string()])
                    .args(["--timeout", &self.spec.timeout_cycles.to_string()]);
                if let Some(t) = trace {
                    cmd.arg("--trace").arg(t);
                }
                for r in resets {
                    cmd.arg("--reset-at").arg(format!("{}:{}", r.at, r.cycles));
                }
            }
            Simulator::Icarus => {
                cmd = Command::new("vvp");
                cmd.arg("-n").arg(exe);
                if trace.is_some_and(|t| t.extension().is_some_and(|e| e == "fst")) {
                    cmd.arg("-fst");
                }
                cmd.arg(format!("+stim={}", stim.display()))
                    .arg(format!("+results={}", res.display()))
                    .arg(format!("+seed={:x}", stalls.seed))
                    .arg(format!("+in_gap={}", stalls.in_gap_percent))
                    .arg(format!("+out_stall={}", stalls.out_stall_percent))
                    .arg(format!("+timeout={}", self.spec.timeout_cycles));
                if let Some(t) = trace {
                    cmd.arg(format!("+trace={}", t.display()));
                }
            }
        }
        cmd
    }

    /// The run's outcome from the simulator's exit status and output.
    fn check_exit(&self, out: &std::process::Output, command: &str) -> Result<(), SimError> {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let simulator = self.simulator;
        let run_error = |message: String| SimError::Run {
            simulator,
            command: command.to_string(),
            message,
        };
        match simulator {
            Simulator::Verilator => {
                let msg = stderr
                    .lines()
                    .filter(|l| l.starts_with("qrtl-driver:"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let message = if msg.is_empty() {
                    format!("{}{}", stdout, stderr).trim().to_string()
                } else {
                    msg
                };
                match out.status.code() {
                    Some(0) => Ok(()),
                    Some(3) => Err(SimError::Timeout { simulator, message }),
                    Some(2) => Err(SimError::Protocol { simulator, message }),
                    _ => Err(run_error(format!("{} ({})", message, out.status))),
                }
            }
            Simulator::Icarus => {
                let find = |tag: &str| {
                    stdout
                        .lines()
                        .find_map(|l| l.strip_prefix(tag).map(|m| m.trim().to_string()))
                };
                if let Some(message) = find("QRTL_TB_TIMEOUT:") {
                    return Err(SimError::Timeout { simulator, message });
                }
                if let Some(message) = find("QRTL_TB_ERROR:") {
                    let protocol = [
                        "changed while",
                        "before its first",
                        "after the last",
                        "X on",
                    ]
                    .iter()
                    .any(|k| message.contains(k));
                    return Err(if protocol {
                        SimError::Protocol { simulator, message }
                    } else {
                        run_error(message)
                    });
                }
                if !out.status.success() || find("QRTL_TB_DONE").is_none() {
                    return Err(run_error(format!(
                        "vvp did not finish ({}): {stdout}{stderr}",
                        out.status
                    )));
                }
                Ok(())
            }
        }
    }
}
