//! `qrtl synth`: area and clock rate of a generated project with the open
//! tools (SPEC §2, §7).
//!
//! Works on any project `qrtl xpath|track|rice compile` wrote: the
//! manifest gives the sources, top module and ports. Every script and
//! netlist goes to the project's `build/` directory (YoWASP tools see only
//! the directory they run in, so all paths are relative to the project).
//!
//! - `xc6v`, `xc7`: Yosys `synth_xilinx -family ... -flatten -noiopad
//!   -noclkbuf`, area only (no open place-and-route for Xilinx parts).
//! - `ecp5`: Yosys `synth_ecp5`, then nextpnr-ecp5 on the LFE5U-85F
//!   (CABGA381, speed grade 6) once per seed; Fmax is the median.
//! - `ice40`: Yosys `synth_ice40`, then nextpnr-ice40 on the iCE40HX8K
//!   (CT256) once per seed.
//!
//! A design with more memories than [`MEMORY_MODULE_ABOVE`] has them
//! mapped in a module of their own ([`MemoryMapping::OwnModule`]): Yosys'
//! `memory_libmap` rebuilds its index of the whole module after each memory
//! it maps, so in one flattened module its time grows with memories times
//! module size (about 25 minutes for the 1,024 memories of 8K passes-off
//! length-4 queries).
//!
//! For place and route the core is wrapped out of context
//! (`rtl-templates/core/synth_ooc.v`): registers on every port, four pins. The
//! area figures are the core's own (its instance keeps its hierarchy).

pub mod area;
pub mod depth;
mod run;
pub mod tools;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

use askama::Template;

use crate::project::{read_manifest, Manifest, ProjectError};
pub use area::Area;
use run::{Job, Progress};
pub use tools::{NotFound, Tool, ToolKind};

/// A synthesis target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Xc6v,
    Xc7,
    Ecp5,
    Ice40,
}

impl Target {
    pub const ALL: [Target; 4] = [Target::Xc6v, Target::Xc7, Target::Ecp5, Target::Ice40];

    pub fn name(self) -> &'static str {
        match self {
            Target::Xc6v => "xc6v",
            Target::Xc7 => "xc7",
            Target::Ecp5 => "ecp5",
            Target::Ice40 => "ice40",
        }
    }

    /// The place-and-route tool, for targets that have an open one.
    pub fn pnr(self) -> Option<ToolKind> {
        match self {
            Target::Xc6v | Target::Xc7 => None,
            Target::Ecp5 => Some(ToolKind::NextpnrEcp5),
            Target::Ice40 => Some(ToolKind::NextpnrIce40),
        }
    }

    /// The device place and route targets (targets without one: none).
    pub fn device(self) -> Option<&'static str> {
        match self {
            Target::Xc6v | Target::Xc7 => None,
            Target::Ecp5 => Some("LFE5U-85F"),
            Target::Ice40 => Some("iCE40HX8K"),
        }
    }

    /// The part as the report names it.
    pub fn part(self) -> &'static str {
        match self {
            Target::Xc6v => "Virtex-6 (Yosys synth_xilinx -family xc6v)",
            Target::Xc7 => "7-series (Yosys synth_xilinx -family xc7)",
            Target::Ecp5 => "LFE5U-85F CABGA381 speed 6",
            Target::Ice40 => "iCE40HX8K CT256",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        Target::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| format!("unknown target `{s}` (xc6v, xc7, ecp5 or ice40)"))
    }
}

/// How to run the flow.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthOptions {
    pub target: Target,
    /// Place-and-route runs, seeds 1..=seeds (ignored for Xilinx targets).
    pub seeds: u32,
    /// Place-and-route runs at a time.
    pub jobs: usize,
    /// Target clock for nextpnr's timing-driven placement; `None`: the
    /// project's clock.
    pub freq_mhz: Option<f64>,
    /// Progress lines on stderr while the tools run.
    pub progress: bool,
    /// Wall-clock limit of each tool run (Yosys, each place-and-route
    /// seed); a run still going is stopped and the flow fails with
    /// [`SynthError::TimeLimit`]. `None`: no limit.
    pub time_limit: Option<std::time::Duration>,
    /// Map the memories in a module of their own when the design declares
    /// more than this many ([`MemoryMapping`]).
    pub memory_module_above: usize,
}

impl SynthOptions {
    pub fn new(target: Target) -> SynthOptions {
        SynthOptions {
            target,
            seeds: 3,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            freq_mhz: None,
            progress: false,
            time_limit: None,
            memory_module_above: MEMORY_MODULE_ABOVE,
        }
    }
}

/// The default of [`SynthOptions::memory_module_above`]. Below it the flow
/// is the synthesis command alone, as the figures measured before it were.
pub const MEMORY_MODULE_ABOVE: usize = 512;

/// Where Yosys maps a design's memories to RAM primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryMapping {
    /// In the flattened design, within the synthesis command.
    InPlace,
    /// The synthesis command runs up to memory mapping, `submod` moves
    /// every memory cell into a module of its own (`qrtl_memories`), the
    /// mapping runs, `flatten` puts the mapped memories back and the
    /// command finishes. Each memory cell carries its ports' registers, so
    /// the same primitives come out; only `memory_libmap`'s time changes
    /// (it rebuilds its index of a module after each memory).
    OwnModule,
}

impl MemoryMapping {
    /// The mapping for a design whose RTL files are `texts`.
    pub fn for_design<'a>(texts: impl IntoIterator<Item = &'a str>, above: usize) -> MemoryMapping {
        if texts.into_iter().map(count_memories).sum::<usize>() > above {
            MemoryMapping::OwnModule
        } else {
            MemoryMapping::InPlace
        }
    }
}

/// The memories (unpacked `reg` arrays, `reg [w:0] name [0:d];`) Verilog
/// text declares, one declaration a line as the emitters write them.
pub fn count_memories(text: &str) -> usize {
    text.lines().filter(|l| declares_memory(l)).count()
}

fn declares_memory(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("").trim_start();
    let Some(rest) = code.strip_prefix("reg") else {
        return false;
    };
    if !rest.starts_with([' ', '\t', '[']) {
        return false; // `register_x <= ...`
    }
    let rest = rest.trim_start();
    // Past the packed range, if any.
    let rest = match rest.strip_prefix('[') {
        Some(r) => r
            .split_once(']')
            .map_or("", |(_, after)| after)
            .trim_start(),
        None => rest,
    };
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    name_end > 0 && rest[name_end..].trim_start().starts_with('[')
}

/// What `qrtl synth` measured.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SynthReport {
    pub target: Target,
    pub luts: u64,
    pub lut_eq: u64,
    pub ffs: u64,
    pub lutram: u64,
    pub bram: f64,
    /// Median over the seeds; `None` for targets without place and route.
    pub fmax_mhz: Option<f64>,
    /// Wall-clock seconds of the whole flow.
    pub seconds: f64,
    /// Fmax of each seed, in seed order.
    pub fmax_seeds: Vec<f64>,
    /// LUT levels in front of the core's registers (place-and-route
    /// targets: measured on the mapped netlist before placement).
    #[serde(default)]
    pub logic_depth: Option<depth::LogicDepth>,
    /// The tools that ran that are not YoWASP builds (a native Yosys from
    /// `$QRTL_YOSYS` or Debian's), as `yosys: PATH`: figures from them may
    /// differ slightly from the pinned builds'.
    #[serde(default)]
    pub native_tools: Vec<String>,
}

/// The JSON object `qrtl synth` prints (SPEC §2), keys in this order.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub target: &'static str,
    pub luts: u64,
    pub lut_eq: u64,
    pub ffs: u64,
    pub lutram: u64,
    pub bram: f64,
    pub fmax_mhz: Option<f64>,
    pub seconds: f64,
}

impl SynthReport {
    /// What `qrtl synth` prints: Fmax to 0.01 MHz, seconds to 0.1 s.
    pub fn summary(&self) -> Summary {
        Summary {
            target: self.target.name(),
            luts: self.luts,
            lut_eq: self.lut_eq,
            ffs: self.ffs,
            lutram: self.lutram,
            bram: self.bram,
            fmax_mhz: self.fmax_mhz.map(|f| (f * 100.0).round() / 100.0),
            seconds: (self.seconds * 10.0).round() / 10.0,
        }
    }
}

/// Why the flow failed.
#[derive(Debug)]
pub enum SynthError {
    /// The directory is not a usable project.
    Project(ProjectError),
    /// A tool is not installed.
    ToolMissing(NotFound),
    /// Writing a script or reading a result failed.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A tool ran and failed; `log` is its log file, `tail` its last lines.
    ToolFailed {
        what: String,
        log: PathBuf,
        tail: String,
    },
    /// A tool's output could not be understood.
    BadOutput { path: PathBuf, message: String },
    /// A tool run was still going at [`SynthOptions::time_limit`] and was
    /// stopped (a design nextpnr cannot route keeps its router busy for
    /// hours).
    TimeLimit {
        what: String,
        limit: std::time::Duration,
        log: PathBuf,
    },
    /// Place and route found the design needs more of a resource than the
    /// part has, and was stopped.
    DoesNotFit {
        what: String,
        part: &'static str,
        resource: String,
        used: u64,
        available: u64,
        log: PathBuf,
    },
}

impl fmt::Display for SynthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SynthError::Project(e) => write!(f, "{e}"),
            SynthError::ToolMissing(nf) => write!(
                f,
                "{} not found (looked for: {}); install the pinned open tools with `make deps-synth`{}",
                nf.kind.native(),
                nf.tried.join(", "),
                match nf.kind {
                    ToolKind::Yosys => " (or Debian's: apt-get install yosys)",
                    ToolKind::NextpnrIce40 => " (or Debian's: apt-get install nextpnr-ice40)",
                    ToolKind::NextpnrEcp5 => "",
                }
            ),
            SynthError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            SynthError::ToolFailed { what, log, tail } => {
                write!(f, "{what} failed (log: {})", log.display())?;
                if !tail.is_empty() {
                    write!(f, "; its last lines:\n{tail}")?;
                }
                Ok(())
            }
            SynthError::BadOutput { path, message } => write!(f, "{}: {message}", path.display()),
            SynthError::DoesNotFit { what, log, .. } => write!(
                f,
                "{}; {what} was stopped (log: {})",
                self.misfit().unwrap_or_default(),
                log.display()
            ),
            SynthError::TimeLimit { what, limit, log } => write!(
                f,
                "{what} was still running at the time limit of {} and was stopped (log: {})",
                duration_text(*limit),
                log.display()
            ),
        }
    }
}

impl SynthError {
    /// For [`SynthError::DoesNotFit`], what does not fit: `the design does
    /// not fit the LFE5U-85F: TRELLIS_COMB 98488 of 83640 (117%)`.
    pub fn misfit(&self) -> Option<String> {
        match self {
            SynthError::DoesNotFit {
                part,
                resource,
                used,
                available,
                ..
            } => Some(format!(
                "the design does not fit the {part}: {resource} {used} of {available} ({}%)",
                used * 100 / (*available).max(1)
            )),
            _ => None,
        }
    }
}

impl std::error::Error for SynthError {}

/// A time limit as `--time-limit` takes it: a positive number of minutes
/// (fractions allowed), at most a week.
pub fn parse_minutes(text: &str) -> Result<std::time::Duration, String> {
    let m: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of minutes"))?;
    if !(m.is_finite() && m > 0.0 && m <= 7.0 * 24.0 * 60.0) {
        return Err(format!(
            "{text} minutes: must be more than 0 and at most a week"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(m * 60.0))
}

/// `20 min`, `90.0 s`, `60 ms`: a limit as people write it.
pub fn duration_text(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s >= 60 && s % 60 == 0 && d.subsec_nanos() == 0 {
        format!("{} min", s / 60)
    } else if s >= 1 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{} ms", d.as_millis())
    }
}

impl From<ProjectError> for SynthError {
    fn from(e: ProjectError) -> SynthError {
        SynthError::Project(e)
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One port of the wrapped core as the template sees it.
struct OocIn {
    name: String,
    hi: u32,
    lo: u32,
}

struct OocOut {
    name: String,
    width: u32,
}

#[derive(Template)]
#[template(path = "synth_ooc.v", escape = "none")]
struct OocT {
    top: String,
    clock: String,
    in_bits: u32,
    out_bits: u32,
    in_shift: String,
    out_concat: String,
    out_shift: String,
    inputs: Vec<OocIn>,
    outputs: Vec<OocOut>,
}

/// The out-of-context wrapper of the project's top (module `qrtl_ooc`).
pub fn ooc_wrapper(m: &Manifest) -> String {
    let mut inputs = Vec::new();
    let mut lo = 0u32;
    for p in m.ports_in("input") {
        inputs.push(OocIn {
            name: p.name.clone(),
            hi: lo + p.width - 1,
            lo,
        });
        lo += p.width;
    }
    // A core with no inputs but the clock still gets a one-bit register.
    let in_bits = lo.max(1);
    let outputs: Vec<OocOut> = m
        .ports_in("output")
        .map(|p| OocOut {
            name: p.name.clone(),
            width: p.width,
        })
        .collect();
    let out_bits: u32 = outputs.iter().map(|o| o.width).sum::<u32>().max(1);
    let shift = |bits: u32, reg: &str, fill: &str| {
        if bits == 1 {
            fill.to_string()
        } else {
            format!("{{{reg}[{}:0], {fill}}}", bits - 2)
        }
    };
    let out_concat = if outputs.is_empty() {
        "in_sr[0]".to_string()
    } else {
        outputs
            .iter()
            .map(|o| format!("o_{}", o.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    OocT {
        top: m.top.clone(),
        clock: m.clock_port.clone(),
        in_bits,
        out_bits,
        in_shift: shift(in_bits, "in_sr", "si"),
        out_concat,
        out_shift: shift(out_bits, "out_sr", "1'b0"),
        inputs,
        outputs,
    }
    .render()
    .expect("the wrapper template renders")
}

/// The Yosys script `qrtl synth` runs for `target` (paths relative to the
/// project directory).
/// The ECP5 LUT mapping (the project's scripts and `qrtl synth` run the
/// same one; the project owns it, synthesis reads it).
pub use crate::project::ECP5_ABC9_SCRIPT;

pub fn yosys_script(m: &Manifest, target: Target, memories: MemoryMapping) -> String {
    let mut s = format!(
        "# Written by qrtl synth: {} for {}.\n# Run from the project directory.\n",
        m.top,
        target.part()
    );
    // QRTL_TARGET_<TARGET> lets the RTL pick a primitive the inference
    // does not reach (qrtl_sax: the ECP5 block RAM's output register).
    let define = format!("QRTL_TARGET_{}", target.name().to_ascii_uppercase());
    for f in &m.files {
        s.push_str(&format!("read_verilog -defer -D{define} {f}\n"));
    }
    let t = target.name();
    let (command, top, map_label) = match target {
        Target::Xc6v | Target::Xc7 => (
            format!(
                "synth_xilinx -family {t} -top {} -flatten -noiopad -noclkbuf",
                m.top
            ),
            m.top.as_str(),
            "map_memory",
        ),
        Target::Ecp5 | Target::Ice40 => {
            s.push_str("read_verilog -defer build/qrtl_ooc.v\n");
            if target == Target::Ecp5 {
                s.push_str(&format!(
                    "# LUT mapping for each register's own best delay (see ECP5_ABC9_SCRIPT).\n\
                     scratchpad -set abc9.script \"{ECP5_ABC9_SCRIPT}\"\n"
                ));
            }
            (
                format!("synth_{t} -top qrtl_ooc -json build/{t}_ooc.json"),
                "qrtl_ooc",
                "map_ram",
            )
        }
    };
    match memories {
        MemoryMapping::InPlace => s.push_str(&format!("{command}\n")),
        MemoryMapping::OwnModule => s.push_str(&format!(
            "# The memories are mapped in a module of their own (see MemoryMapping).\n\
             {command} -run :{map_label}\n\
             submod -name qrtl_memories {top}/t:$mem_v2\n\
             {command} -run {map_label}:map_ffram\n\
             flatten\n\
             {command} -run map_ffram:\n"
        )),
    }
    s.push_str(&format!("tee -q -o build/{t}_stat.json stat -json\n"));
    s
}

/// Fmax in MHz from nextpnr: its `--report` JSON when there is one, else
/// the last "Max frequency for clock" line of its log.
pub fn parse_fmax(report: Option<&str>, log: &str) -> Option<f64> {
    if let Some(r) = report {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(r) {
            let best = v
                .get("fmax")
                .and_then(|f| f.as_object())
                .and_then(|clocks| {
                    clocks
                        .values()
                        .filter_map(|c| c.get("achieved")?.as_f64())
                        .reduce(f64::min)
                });
            if best.is_some() {
                return best;
            }
        }
    }
    log.lines()
        .rev()
        .filter_map(|l| {
            let rest = &l[l.find("Max frequency for clock")?..];
            let rest = &rest[rest.find("': ")? + 3..];
            rest.split_whitespace().next()?.parse::<f64>().ok()
        })
        .next()
}

fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Run the flow on the project in `dir`.
pub fn synthesize(dir: &Path, opts: &SynthOptions) -> Result<SynthReport, SynthError> {
    let start = Instant::now();
    let m = read_manifest(dir)?;
    let target = opts.target;
    let t = target.name();
    // Every tool is found before anything runs.
    let yosys = tools::find(ToolKind::Yosys).map_err(SynthError::ToolMissing)?;
    let pnr = match target.pnr() {
        Some(kind) => Some(tools::find(kind).map_err(SynthError::ToolMissing)?),
        None => None,
    };
    let build = dir.join("build");
    std::fs::create_dir_all(&build).map_err(io_err(&build))?;
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::write(&p, text).map_err(io_err(&p))
    };
    if pnr.is_some() {
        write("build/qrtl_ooc.v", &ooc_wrapper(&m))?;
    }
    let mut texts = Vec::with_capacity(m.files.len());
    for f in &m.files {
        let p = dir.join(f);
        texts.push(std::fs::read_to_string(&p).map_err(io_err(&p))?);
    }
    let memories =
        MemoryMapping::for_design(texts.iter().map(String::as_str), opts.memory_module_above);
    let script = format!("build/qrtl_synth_{t}.ys");
    write(&script, &yosys_script(&m, target, memories))?;
    let stat_rel = format!("build/{t}_stat.json");
    // A stale result must not pass for this run's.
    let _ = std::fs::remove_file(dir.join(&stat_rel));

    let progress = Progress::new(opts.progress);
    let ylog = format!("build/{t}_yosys.log");
    run::run_all(
        dir,
        &progress,
        vec![Job {
            label: format!(
                "yosys synth_{}",
                if target.pnr().is_some() { t } else { "xilinx" }
            ),
            program: yosys.program.clone(),
            args: ["-q", "-l", &ylog, "-s", &script]
                .map(String::from)
                .to_vec(),
            log: ylog.clone(),
            fit_on: None,
        }],
        1,
        opts.time_limit,
    )?;
    let stat_path = dir.join(&stat_rel);
    let stat_text = std::fs::read_to_string(&stat_path).map_err(io_err(&stat_path))?;
    let stat: serde_json::Value =
        serde_json::from_str(&stat_text).map_err(|e| SynthError::BadOutput {
            path: stat_path.clone(),
            message: format!("not Yosys `stat -json` output: {e}"),
        })?;
    let module = pnr.as_ref().map(|_| m.top.as_str());
    let cells = area::cell_counts(&stat, module).ok_or_else(|| SynthError::BadOutput {
        path: stat_path.clone(),
        message: format!(
            "no cell counts for {}",
            module.map_or("the design".to_string(), |m| format!("module `{m}`"))
        ),
    })?;
    let a = area::area(target, &cells, &[]);

    let mut fmax_seeds = Vec::new();
    let mut logic_depth = None;
    if let Some(pnr) = &pnr {
        let freq = crate::project::format_decimal(opts.freq_mhz.unwrap_or(m.clock_mhz));
        let netlist = format!("build/{t}_ooc.json");
        // Advisory: a netlist this reader cannot follow is a warning, and
        // place and route still runs.
        let netlist_path = dir.join(&netlist);
        match std::fs::read(&netlist_path)
            .map_err(|e| e.to_string())
            .and_then(|b| depth::Netlist::parse(&b))
            .and_then(|n| depth::logic_depth(&n, &m.top))
        {
            Ok(d) => {
                progress.say(&format!("logic depth: {}", d.line()));
                logic_depth = Some(d);
            }
            Err(e) => progress.say(&format!(
                "warning: no logic depth from {}: {e}",
                netlist_path.display()
            )),
        }
        let mut jobs = Vec::new();
        let constraints = match target {
            Target::Ecp5 => {
                write(
                    "build/qrtl_ooc.lpf",
                    &format!(
                        "# Written by qrtl synth: the wrapper's clock; its pins are placed freely.\n\
                         FREQUENCY PORT \"clk\" {freq} MHz;\n"
                    ),
                )?;
                vec![
                    "--85k",
                    "--package",
                    "CABGA381",
                    "--speed",
                    "6",
                    "--lpf",
                    "build/qrtl_ooc.lpf",
                    "--lpf-allow-unconstrained",
                ]
            }
            _ => {
                write(
                    "build/qrtl_ooc.pcf",
                    "# Written by qrtl synth: no pins; nextpnr places the wrapper's four.\n",
                )?;
                vec![
                    "--hx8k",
                    "--package",
                    "ct256",
                    "--pcf",
                    "build/qrtl_ooc.pcf",
                    "--pcf-allow-unconstrained",
                ]
            }
        };
        for seed in 1..=opts.seeds.max(1) {
            let log = format!("build/{t}_pnr_seed{seed}.log");
            let report = format!("build/{t}_pnr_seed{seed}.json");
            let _ = std::fs::remove_file(dir.join(&report));
            let mut args: Vec<String> = constraints.iter().map(|s| s.to_string()).collect();
            args.extend([
                "--json".to_string(),
                netlist.clone(),
                "--freq".to_string(),
                freq.clone(),
                "--seed".to_string(),
                seed.to_string(),
                "--timing-allow-fail".to_string(),
                "--report".to_string(),
                report,
                "--log".to_string(),
                log.clone(),
                "-q".to_string(),
            ]);
            jobs.push(Job {
                label: format!("{} seed {seed}/{}", pnr.kind.native(), opts.seeds.max(1)),
                program: pnr.program.clone(),
                args,
                log,
                fit_on: target.device(),
            });
        }
        run::run_all(dir, &progress, jobs, opts.jobs.max(1), opts.time_limit)?;
        for seed in 1..=opts.seeds.max(1) {
            let log_path = dir.join(format!("build/{t}_pnr_seed{seed}.log"));
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            let report =
                std::fs::read_to_string(dir.join(format!("build/{t}_pnr_seed{seed}.json"))).ok();
            let f = parse_fmax(report.as_deref(), &log).ok_or_else(|| SynthError::BadOutput {
                path: log_path.clone(),
                message: "nextpnr reported no Fmax for the clock".into(),
            })?;
            fmax_seeds.push(f);
        }
    }
    let report = SynthReport {
        target,
        luts: a.luts,
        lut_eq: a.lut_eq,
        ffs: a.ffs,
        lutram: a.lutram,
        bram: a.bram,
        fmax_mhz: median(&fmax_seeds),
        seconds: start.elapsed().as_secs_f64(),
        fmax_seeds,
        logic_depth,
        native_tools: std::iter::once(&yosys)
            .chain(pnr.as_ref())
            .filter(|t| !t.yowasp)
            .map(|t| format!("{}: {}", t.kind.native(), t.program.display()))
            .collect(),
    };
    // The full record next to the logs: tools, cell counts, every seed.
    let detail = serde_json::json!({
        "summary": report.summary(),
        "fmax_seeds": report.fmax_seeds,
        "logic_depth": report.logic_depth,
        "part": target.part(),
        "module": module.unwrap_or(&m.top),
        "cells": cells,
        "unknown_cells": a.unknown,
        "yosys": yosys.program,
        "pnr": pnr.as_ref().map(|p| p.program.clone()),
        "script": script,
        "memory_mapping": match memories {
            MemoryMapping::InPlace => "in place",
            MemoryMapping::OwnModule => "own module",
        },
    });
    write(
        &format!("build/synth-{t}.json"),
        &(serde_json::to_string_pretty(&detail).expect("JSON values serialise") + "\n"),
    )?;
    if !a.unknown.is_empty() && opts.progress {
        eprintln!(
            "qrtl synth: warning: cell types not counted in any figure: {}",
            a.unknown
                .iter()
                .map(|(k, v)| format!("{k} x{v}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(report)
}

#[cfg(test)]
mod tests;
