//! The `qrtl` command line (SPEC §2). Exit codes: 0 success, 1 bad input
//! (diagnostics on stderr), 2 usage errors. Never panics on input.

use qrtl_core::diag::{plain_error, Diagnostic, Span};
use qrtl_xpath::hw::{
    build_xpath_hw, simulate_xpath_with, xpath_project_spec, XpathHw, XpathHwOptions,
};

/// `qrtl xpath sim` builds designs with more Verilog than this without C++
/// optimization (Verilator's C++ of a 1,000-twig design takes over 20
/// minutes at -Os on two cores, under 3 at -O0).
const LARGE_RTL_BYTES: usize = 1 << 20;
use qrtl_xpath::emit::xpath::{EventInput, RtlShape};
use qrtl_xpath::syntax::parse_query_file;
use qrtl_xpath::ir::xpath::{Design, Mode, SiblingOrder};
use qrtl_xpath::lower::xpath::lower_queries;
use qrtl_xpath::passes::registry::{stack_passes, unknown_stack_passes, StackPassConfig, StackStats};
use qrtl_xpath::passes::{run_pipeline, PassConfig};
use qrtl_core::project::write_project;
use qrtl_rice::refmodel::{BitOrder, DecodeError, Encoder, RiceConfig, StreamDecoder, Unary};
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_core::sim::{Simulator, Stalls};
use qrtl_xpath::xml::XmlConfig;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "qrtl",
    version,
    about = "Compile queries to FPGA RTL and verify it against software reference models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// XPath filtering: check queries, filter documents in software.
    #[command(subcommand)]
    Xpath(XpathCommand),
    /// Golomb-Rice: encode integers, decode streams in software, generate
    /// and simulate the hardware decoder.
    #[command(subcommand)]
    Rice(RiceCommand),
    /// FlexTrack motion patterns: check, filter trajectories, compile, simulate.
    #[command(subcommand)]
    Track(crate::track::TrackCommand),
    /// Area and Fmax of a generated project with the open tools (Yosys,
    /// nextpnr); prints one JSON object: target, luts, lut_eq, ffs,
    /// lutram, bram, fmax_mhz, seconds.
    #[command(after_help = SYNTH_HELP)]
    Synth(SynthArgs),
}

const SYNTH_HELP: &str = "\
Targets:
  xc6v, xc7  Yosys synth_xilinx -family xc6v|xc7 (area only: fmax_mhz is null)
  ecp5       Yosys synth_ecp5 + nextpnr-ecp5, LFE5U-85F CABGA381 speed 6
  ice40      Yosys synth_ice40 + nextpnr-ice40, iCE40HX8K CT256

luts: logic LUTs; lutram: LUTs used as distributed RAM or shift registers;
lut_eq = luts + lutram; bram: block RAM tiles (Xilinx 36 Kbit, a RAMB18
counts 0.5; ECP5 18 Kbit EBR; iCE40 4 Kbit); fmax_mhz: median over the
seeds of nextpnr's Fmax, the core wrapped in registers on every port
(build/qrtl_ooc.v). Logs, scripts and build/synth-TARGET.json (cell counts,
every seed) are written to DIR/build. A design of more than
--memory-module-above memories has them mapped in a module of their own.

Tools: $QRTL_YOSYS / $QRTL_NEXTPNR_ECP5 / $QRTL_NEXTPNR_ICE40, else the
pinned YoWASP builds in the venv `make deps-synth` creates (.venv-synth, or
$QRTL_SYNTH_VENV), else yowasp-* or the native tool on PATH.";

#[derive(clap::Args, Debug)]
struct SynthArgs {
    /// A project directory written by `qrtl xpath|track|rice compile -o DIR`.
    dir: PathBuf,
    /// Device family.
    #[arg(long, value_enum)]
    target: TargetArg,
    /// Place-and-route runs (seeds 1..=N); Fmax is their median.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    seeds: u32,
    /// Place-and-route runs at a time [default: the number of CPUs].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    jobs: Option<u32>,
    /// Clock target for timing-driven placement, in MHz [default: the
    /// project's clock].
    #[arg(long)]
    freq_mhz: Option<f64>,
    /// Stop a tool run (Yosys, or one place-and-route seed) still going
    /// after this many minutes, and fail [default: no limit].
    #[arg(long, value_name = "MINUTES", value_parser = qrtl_core::synth::parse_minutes)]
    time_limit: Option<std::time::Duration>,
    /// Map the memories in a module of their own when the design declares
    /// more than N (Yosys maps the memories of one module in time growing
    /// with their number times the module's size).
    #[arg(long, value_name = "N", default_value_t = qrtl_core::synth::MEMORY_MODULE_ABOVE)]
    memory_module_above: usize,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TargetArg {
    Xc6v,
    Xc7,
    Ecp5,
    Ice40,
}

impl From<TargetArg> for qrtl_core::synth::Target {
    fn from(t: TargetArg) -> qrtl_core::synth::Target {
        use qrtl_core::synth::Target;
        match t {
            TargetArg::Xc6v => Target::Xc6v,
            TargetArg::Xc7 => Target::Xc7,
            TargetArg::Ecp5 => Target::Ecp5,
            TargetArg::Ice40 => Target::Ice40,
        }
    }
}

fn synth(args: &SynthArgs) -> i32 {
    use qrtl_core::synth::{synthesize, SynthOptions};
    if let Some(f) = args.freq_mhz {
        if !(f.is_finite() && f > 0.0 && f <= 2000.0) {
            eprintln!("error: --freq-mhz {f} must be in (0, 2000]");
            return 2;
        }
    }
    let mut opts = SynthOptions::new(args.target.into());
    opts.seeds = args.seeds;
    if let Some(j) = args.jobs {
        opts.jobs = j as usize;
    }
    opts.freq_mhz = args.freq_mhz;
    opts.progress = !args.quiet;
    opts.time_limit = args.time_limit;
    opts.memory_module_above = args.memory_module_above;
    match synthesize(&args.dir, &opts) {
        Ok(r) => {
            println!(
                "{}",
                serde_json::to_string(&r.summary()).expect("JSON values serialise")
            );
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

#[derive(Subcommand, Debug)]
enum RiceCommand {
    /// Encode decimal integers (one per line) into a padded GR stream.
    Encode {
        /// Integers: one per line; blank lines and `#` comments skipped.
        ints: PathBuf,
        /// Output stream file.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        #[command(flatten)]
        code: RiceOpts,
    },
    /// Decode a GR stream; one integer per line on stdout.
    Decode {
        stream: PathBuf,
        #[command(flatten)]
        code: RiceOpts,
    },
    /// Generate the hardware decoder (RTL project: Verilog, constraints,
    /// scripts, manifest).
    Compile {
        #[command(flatten)]
        hw: qrtl_rice::hw::RiceHwArgs,
        /// Output directory.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Target clock for the generated constraints, in MHz.
        #[arg(long, default_value_t = 200.0)]
        clock_mhz: f64,
    },
    /// Decode GR streams in the simulated hardware decoder; prints what
    /// `decode` prints.
    Sim {
        /// GR stream files, one AXI4-Stream packet each.
        #[arg(required = true)]
        streams: Vec<PathBuf>,
        #[command(flatten)]
        hw: qrtl_rice::hw::RiceHwArgs,
        #[command(flatten)]
        sim: qrtl_rice::hw::RiceSimArgs,
    },
}

/// The code's parameters (SPEC §5).
#[derive(clap::Args, Debug, Clone)]
struct RiceOpts {
    /// Remainder bits.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=63))]
    k: u32,
    /// Unary quotient: zeros (q zeros then a one) or ones (q ones then a zero).
    #[arg(long, value_enum, default_value_t = UnaryArg::Zeros)]
    unary: UnaryArg,
    /// Bits of each byte and of the remainder: msb or lsb first.
    #[arg(long, value_enum, default_value_t = BitOrderArg::Msb)]
    bit_order: BitOrderArg,
    /// Bits of a value (1-64); larger values and quotients are errors.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=64))]
    width: u32,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum UnaryArg {
    Zeros,
    Ones,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum BitOrderArg {
    Msb,
    Lsb,
}

impl RiceOpts {
    /// The codec config, or a usage error (exit 2).
    fn config(&self) -> Result<RiceConfig, i32> {
        let cfg = RiceConfig {
            k: self.k,
            unary: match self.unary {
                UnaryArg::Zeros => Unary::Zeros,
                UnaryArg::Ones => Unary::Ones,
            },
            bit_order: match self.bit_order {
                BitOrderArg::Msb => BitOrder::Msb,
                BitOrderArg::Lsb => BitOrder::Lsb,
            },
            width: self.width,
        };
        cfg.validate().map_err(|e| {
            eprintln!("error: {e}");
            2
        })?;
        Ok(cfg)
    }
}

#[derive(Subcommand, Debug)]
enum XpathCommand {
    /// Parse a query file and report every error (exit 1 if any).
    Check {
        /// Query file: one query per line, `#` comments and blank lines skipped.
        queries: PathBuf,
        /// Print the lowered IR (conditions, counters, nodes and their stack columns).
        #[arg(long)]
        dump_ir: bool,
        /// With --dump-ir: the IR after splitting twigs for this mode.
        #[arg(long, value_enum, default_value_t = ModeArg::Holistic)]
        mode: ModeArg,
    },
    /// Filter documents with the software engine; one JSON line per document.
    Filter {
        queries: PathBuf,
        /// XML documents (one document per file).
        #[arg(required = true)]
        docs: Vec<PathBuf>,
        #[command(flatten)]
        opts: XpathOpts,
        /// Print engine statistics to stderr at the end.
        #[arg(long)]
        stats: bool,
    },
    /// Compile queries to an RTL project (Verilog, constraints, scripts, manifest).
    Compile {
        /// Query file: path queries with attribute predicates (twigs with --mode paths|pairs).
        queries: PathBuf,
        /// Output directory (created if missing).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        #[command(flatten)]
        opts: XpathOpts,
        #[command(flatten)]
        hw: HwOpts,
        /// Print nodes/columns before and after each pass.
        #[arg(long)]
        stats: bool,
    },
    /// Compile, simulate the RTL on documents; `filter`'s JSON plus cycles and bytes.
    Sim {
        /// Query file, as for `compile`.
        queries: PathBuf,
        /// XML documents (one AXI4-Stream packet each).
        #[arg(required = true)]
        docs: Vec<PathBuf>,
        #[command(flatten)]
        opts: XpathOpts,
        #[command(flatten)]
        hw: HwOpts,
        #[command(flatten)]
        sim: SimOpts,
    },
}

/// Options of a simulation run.
#[derive(clap::Args, Debug, Clone)]
struct SimOpts {
    /// Simulator: verilator (default) or icarus (small designs).
    #[arg(long, value_enum, default_value_t = SimulatorArg::Verilator)]
    simulator: SimulatorArg,
    /// Write a waveform (FST with Verilator; VCD, or FST for a .fst name, with Icarus).
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

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SimulatorArg {
    Verilator,
    Icarus,
}

/// Options of the generated hardware.
#[derive(clap::Args, Debug, Clone)]
struct HwOpts {
    /// Queries per cluster (each cluster has its own decoder, global stack
    /// and stack memory; the input is pipelined from cluster to cluster).
    /// 0: one cluster.
    #[arg(long, default_value_t = 256)]
    cluster_size: usize,
    /// Do not share exact columns between nodes (Algorithms 1-2).
    #[arg(long)]
    no_compaction: bool,
    /// Do not share common query prefixes.
    #[arg(long)]
    no_prefix_merge: bool,
    /// Skip a stack pass by name (repeatable): cluster, prefix-merge,
    /// last-column, root-gs, compaction.
    #[arg(long = "disable-pass", value_name = "PASS")]
    disable_pass: Vec<String>,
    /// Target clock for the generated constraints, in MHz.
    #[arg(long, default_value_t = 200.0)]
    clock_mhz: f64,
    /// How the parser's events reach the clusters: pipelined (a register
    /// per cluster, no fan-out to all clusters; latency grows by one clock
    /// per cluster) or broadcast (one net per event signal to every cluster).
    #[arg(long, value_enum, default_value_t = InputArg::Pipelined)]
    input: InputArg,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum InputArg {
    Pipelined,
    Broadcast,
}

#[derive(clap::Args, Debug, Clone)]
struct XpathOpts {
    /// How twigs are matched: holistic (exact), paths or pairs (may give false positives).
    #[arg(long, value_enum, default_value_t = ModeArg::Holistic)]
    mode: ModeArg,
    /// Deepest element nesting accepted; deeper documents are flagged `too_deep`.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    max_depth: u32,
    /// Sibling branches of a twig must match in document order, in distinct
    /// child subtrees (holistic mode; default: unordered, as XPath).
    #[arg(long)]
    ordered: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ModeArg {
    Holistic,
    Paths,
    Pairs,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Holistic => Mode::Holistic,
            ModeArg::Paths => Mode::Paths,
            ModeArg::Pairs => Mode::Pairs,
        }
    }
}

/// Entry point; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match cli.command {
        Command::Xpath(XpathCommand::Check {
            queries,
            dump_ir,
            mode,
        }) => xpath_check(&queries, dump_ir, mode.into()),
        Command::Xpath(XpathCommand::Filter {
            queries,
            docs,
            opts,
            stats,
        }) => xpath_filter(&queries, &docs, &opts, stats),
        Command::Xpath(XpathCommand::Compile {
            queries,
            out,
            opts,
            hw,
            stats,
        }) => xpath_compile(&queries, &out, &opts, &hw, stats),
        Command::Xpath(XpathCommand::Sim {
            queries,
            docs,
            opts,
            hw,
            sim,
        }) => xpath_sim(&queries, &docs, &opts, &hw, &sim),
        Command::Rice(RiceCommand::Encode { ints, out, code }) => rice_encode(&ints, &out, &code),
        Command::Rice(RiceCommand::Decode { stream, code }) => rice_decode(&stream, &code),
        Command::Rice(RiceCommand::Compile { hw, out, clock_mhz }) => {
            qrtl_rice::hw::rice_compile(&hw, &out, clock_mhz)
        }
        Command::Rice(RiceCommand::Sim { streams, hw, sim }) => {
            qrtl_rice::hw::rice_sim(&streams, &hw, &sim)
        }
        Command::Track(cmd) => crate::track::run(cmd),
        Command::Synth(args) => synth(&args),
    }
}

fn print_diagnostics(diags: &[Diagnostic]) {
    let mut err = std::io::stderr().lock();
    for d in diags {
        let _ = write!(err, "{}", d.render());
    }
}

/// Parse and lower a query file; all diagnostics on failure.
fn load_design(path: &PathBuf, mode: Mode) -> Result<Design, i32> {
    let name = path.display().to_string();
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
                eprintln!("{name}:{line}: error: query file is not valid UTF-8");
                return Err(1);
            }
        },
        Err(e) => {
            eprintln!(
                "{}",
                plain_error(&name, format!("cannot read query file: {e}"))
            );
            return Err(1);
        }
    };
    let (queries, mut diags) = parse_query_file(&name, &text);
    let design = match lower_queries(&name, &queries) {
        Ok(d) => Some(d),
        Err(more) => {
            diags.extend(more);
            None
        }
    };
    if !diags.is_empty() {
        diags.sort_by_key(|d| (d.line, d.span.start));
        print_diagnostics(&diags);
        eprintln!(
            "{name}: {} error{} in {} queries",
            diags.len(),
            if diags.len() == 1 { "" } else { "s" },
            queries.len() + diags.len()
        );
        return Err(1);
    }
    let design = design.unwrap_or_default();
    if design.queries.is_empty() {
        eprintln!(
            "{}",
            plain_error(&name, "no queries (every line is blank or a # comment)")
        );
        return Err(1);
    }
    Ok(run_pipeline(design, &PassConfig { mode }))
}

fn xpath_check(queries: &PathBuf, dump_ir: bool, mode: Mode) -> i32 {
    match load_design(queries, mode) {
        Ok(d) => {
            // A closed stdout (e.g. `| head`) is not an error worth a panic.
            let mut out = std::io::stdout().lock();
            if dump_ir {
                let _ = write!(out, "{d}");
            }
            let _ = writeln!(out, "{}: {} queries ok", queries.display(), d.queries.len());
            0
        }
        Err(code) => code,
    }
}

fn xpath_filter(queries: &PathBuf, docs: &[PathBuf], opts: &XpathOpts, stats: bool) -> i32 {
    let mut design = match load_design(queries, opts.mode.into()) {
        Ok(d) => d,
        Err(code) => return code,
    };
    if opts.ordered {
        design.order = SiblingOrder::Ordered;
    }
    let config = EngineConfig {
        xml: XmlConfig::with_max_depth(opts.max_depth),
        ..EngineConfig::default()
    };
    let mut engine = Engine::new(&design, config);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut code = 0;
    for doc in docs {
        let name = doc.display().to_string();
        let result = std::fs::File::open(doc).and_then(|f| engine.filter_reader(f));
        match result {
            Ok(r) => {
                // Keys in the order of SPEC §2: doc, status, matched.
                let line = format!(
                    "{{\"doc\":{},\"status\":\"{}\",\"matched\":{}}}",
                    serde_json::Value::String(name.clone()),
                    r.status.as_str(),
                    serde_json::Value::from(r.matched.clone())
                );
                if writeln!(out, "{line}").is_err() {
                    return 0; // stdout closed (e.g. `| head`): stop quietly
                }
                if let Some(e) = r.error {
                    let _ = out.flush();
                    eprintln!(
                        "{name}:{}:{}: note: {}: {}",
                        e.line,
                        e.col,
                        r.status.as_str(),
                        e.error.describe()
                    );
                }
            }
            Err(e) => {
                let _ = out.flush();
                eprintln!(
                    "{}",
                    plain_error(&name, format!("cannot read document: {e}"))
                );
                code = 1;
            }
        }
    }
    let _ = out.flush();
    if stats {
        let s = engine.stats();
        eprintln!(
            "{{\"queries\":{},\"states\":{},\"transitions_computed\":{},\"cache_flushes\":{}}}",
            design.queries.len(),
            s.states,
            s.transitions_computed,
            s.flushes
        );
    }
    code
}

impl HwOpts {
    /// The driver options, or a usage error (exit 2).
    fn driver_options(&self, opts: &XpathOpts) -> Result<XpathHwOptions, i32> {
        let mut disabled = self.disable_pass.clone();
        if self.no_compaction {
            disabled.push("compaction".into());
        }
        if self.no_prefix_merge {
            disabled.push("prefix-merge".into());
        }
        let passes = StackPassConfig {
            cluster_size: self.cluster_size,
            disabled,
        };
        let unknown = unknown_stack_passes(&passes);
        if !unknown.is_empty() {
            let names: Vec<&str> = stack_passes()
                .iter()
                .map(|p| p.name())
                .filter(|n| *n != "naming")
                .collect();
            eprintln!(
                "error: --disable-pass: unknown or mandatory pass {} (passes: {})",
                unknown.join(", "),
                names.join(", ")
            );
            return Err(2);
        }
        if !(self.clock_mhz.is_finite() && self.clock_mhz > 0.0 && self.clock_mhz <= 2000.0) {
            eprintln!("error: --clock-mhz must be in (0, 2000]");
            return Err(2);
        }
        Ok(XpathHwOptions {
            xml: XmlConfig::with_max_depth(opts.max_depth),
            passes,
            input: match self.input {
                InputArg::Pipelined => EventInput::Pipelined,
                InputArg::Broadcast => EventInput::Broadcast,
            },
            shape: RtlShape::default(),
        })
    }
}

/// Load, split and compile a query file to RTL.
fn compile_hw(queries: &PathBuf, opts: &XpathOpts, hw: &HwOpts) -> Result<XpathHw, i32> {
    let hw_opts = hw.driver_options(opts)?;
    let mut design = load_design(queries, opts.mode.into())?;
    if opts.ordered {
        design.order = SiblingOrder::Ordered;
    }
    build_xpath_hw(&queries.display().to_string(), &design, &hw_opts).map_err(|diags| {
        print_diagnostics(&diags);
        1
    })
}

fn print_pass_stats(hw: &XpathHw) {
    let mut out = std::io::stdout().lock();
    let row = |out: &mut std::io::StdoutLock, name: &str, s: &StackStats, ran: &str| {
        let _ = writeln!(
            out,
            "{name:<14} {ran:<4} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
            s.clusters, s.nodes, s.columns, s.gs_bits, s.pops, s.pop_columns
        );
    };
    let _ = writeln!(
        out,
        "{:<14} {:<4} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "pass", "ran", "clusters", "nodes", "columns", "gs_bits", "pops", "pop_cols"
    );
    row(&mut out, "(lowered)", &hw.before, "");
    for r in &hw.reports {
        row(&mut out, r.pass, &r.after, if r.ran { "yes" } else { "no" });
    }
}

/// `--stats`: the same queries compiled in each mode, and what each saves
/// against holistic matching (push columns + global-stack bits + pop
/// columns per row; paths and pairs may report false positives).
fn print_mode_stats(queries: &PathBuf, opts: &XpathOpts, hw: &HwOpts) {
    let mut rows = Vec::new();
    for mode in [ModeArg::Holistic, ModeArg::Paths, ModeArg::Pairs] {
        let o = XpathOpts {
            mode,
            ..opts.clone()
        };
        let Ok(c) = compile_hw(queries, &o, hw) else {
            return;
        };
        let s = c.reports.last().map_or(c.before, |r| r.after);
        rows.push((Mode::from(mode), s, s.columns + s.gs_bits + s.pop_columns));
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<14} {:>8} {:>8} {:>8} {:>9} {:>8}",
        "mode", "columns", "gs_bits", "pop_cols", "row_bits", "saves"
    );
    let base = rows[0].2 as i64;
    for (mode, s, bits) in rows {
        let _ = writeln!(
            out,
            "{:<14} {:>8} {:>8} {:>8} {:>9} {:>8}",
            mode.as_str(),
            s.columns,
            s.gs_bits,
            s.pop_columns,
            bits,
            base - bits as i64
        );
    }
}

fn xpath_compile(
    queries: &PathBuf,
    out: &std::path::Path,
    opts: &XpathOpts,
    hw: &HwOpts,
    stats: bool,
) -> i32 {
    let compiled = match compile_hw(queries, opts, hw) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if stats {
        print_pass_stats(&compiled);
        print_mode_stats(queries, opts, hw);
    }
    let hw_opts = match hw.driver_options(opts) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let spec = xpath_project_spec(compiled, &hw_opts, opts.mode.into(), hw.clock_mhz);
    if let Err(e) = write_project(out, &spec) {
        eprintln!("error: {e}");
        return 1;
    }
    0
}

fn xpath_sim(
    queries: &PathBuf,
    docs: &[PathBuf],
    opts: &XpathOpts,
    hw: &HwOpts,
    sim: &SimOpts,
) -> i32 {
    let compiled = match compile_hw(queries, opts, hw) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Read every document first; unreadable or empty ones are errors
    // (an AXI4-Stream packet carries at least one byte), reported in order.
    let mut code = 0;
    let mut inputs: Vec<Option<Vec<u8>>> = Vec::with_capacity(docs.len());
    for doc in docs {
        let name = doc.display().to_string();
        match std::fs::read(doc) {
            Ok(bytes) if bytes.is_empty() => {
                eprintln!(
                    "{}",
                    plain_error(
                        &name,
                        "empty document: an AXI4-Stream packet carries at least one byte \
                         (`qrtl xpath filter` reports it as malformed)"
                    )
                );
                code = 1;
                inputs.push(None);
            }
            Ok(bytes) => inputs.push(Some(bytes)),
            Err(e) => {
                eprintln!(
                    "{}",
                    plain_error(&name, format!("cannot read document: {e}"))
                );
                code = 1;
                inputs.push(None);
            }
        }
    }
    let packets: Vec<Vec<u8>> = inputs.iter().flatten().cloned().collect();
    if packets.is_empty() {
        return 1;
    }
    // The Verilator driver does not check that its FST file opened; an
    // unwritable path must not pass silently.
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
    // Large designs (thousands of twig nodes and comparators) take tens of
    // minutes to compile as optimized C++; unoptimized they build several
    // times faster and still simulate documents quickly.
    let rtl_bytes: usize = compiled.rtl.files.iter().map(|f| f.text.len()).sum();
    let build = qrtl_core::sim::BuildOptions {
        unoptimized_cxx: rtl_bytes > LARGE_RTL_BYTES,
        ..qrtl_core::sim::BuildOptions::default()
    };
    let run = match simulate_xpath_with(
        &compiled,
        &packets,
        simulator,
        &stalls,
        sim.trace.as_deref(),
        &build,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: simulation failed: {e}");
            return 1;
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut results = run.docs.iter();
    for (doc, input) in docs.iter().zip(&inputs) {
        let Some(bytes) = input else { continue };
        let r = results.next().expect("one result per packet");
        let name = doc.display().to_string();
        let line = format!(
            "{{\"doc\":{},\"status\":\"{}\",\"matched\":{},\"cycles\":{},\"bytes\":{}}}",
            serde_json::Value::String(name.clone()),
            r.result.status.as_str(),
            serde_json::Value::from(r.result.matched.clone()),
            r.cycles,
            bytes.len()
        );
        if writeln!(out, "{line}").is_err() {
            return code;
        }
        if let Some(reason) = r.result.reason {
            let _ = out.flush();
            eprintln!(
                "{name}: note: {}: {}",
                r.result.status.as_str(),
                reason.describe()
            );
        }
    }
    let _ = out.flush();
    code
}

/// A diagnostic on one line of an integer file.
fn int_diag(
    file: &str,
    line: usize,
    text: &str,
    span: Span,
    code: &'static str,
    message: String,
) -> Diagnostic {
    Diagnostic {
        code,
        message,
        help: None,
        file: file.to_string(),
        line,
        source_line: text.to_string(),
        span,
    }
}

/// Parse an integer file: decimal integers, one per line, surrounding
/// spaces and tabs allowed; blank lines and lines starting with `#` are
/// skipped. Every bad line is a diagnostic (E0501 not an integer, E0502
/// above 2^64-1, E0503 above the output width, E0504 quotient above the
/// encoder's limit).
fn parse_ints(file: &str, text: &str, cfg: &RiceConfig) -> (Vec<u64>, Vec<Diagnostic>) {
    let mut values = Vec::new();
    let mut diags = Vec::new();
    for (i, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let start = line.len() - line.trim_start_matches([' ', '\t']).len();
        let body = line[start..].trim_end_matches([' ', '\t']);
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let end = start + body.len();
        if let Some(bad) = body.find(|c: char| !c.is_ascii_digit()) {
            let at = start + bad;
            let width = body[bad..].chars().next().map_or(1, char::len_utf8);
            diags.push(int_diag(
                file,
                i + 1,
                line,
                Span::new(at, at + width),
                "E0501",
                format!(
                    "expected a decimal integer, found {:?}",
                    &body[bad..bad + width]
                ),
            ));
            continue;
        }
        let span = Span::new(start, end);
        let Ok(v) = body.parse::<u64>() else {
            diags.push(int_diag(
                file,
                i + 1,
                line,
                span,
                "E0502",
                "integer above 2^64-1".into(),
            ));
            continue;
        };
        if v > cfg.max_value() {
            diags.push(int_diag(
                file,
                i + 1,
                line,
                span,
                "E0503",
                format!(
                    "{v} does not fit the {}-bit output width (--width)",
                    cfg.width
                ),
            ));
            continue;
        }
        let q = v >> cfg.k;
        if q > qrtl_rice::refmodel::MAX_ENCODE_QUOTIENT {
            diags.push(int_diag(
                file,
                i + 1,
                line,
                span,
                "E0504",
                format!(
                    "quotient {q} is above the encoder's limit {} (use a larger --k)",
                    qrtl_rice::refmodel::MAX_ENCODE_QUOTIENT
                ),
            ));
            continue;
        }
        values.push(v);
    }
    (values, diags)
}

fn rice_encode(ints: &PathBuf, out: &PathBuf, opts: &RiceOpts) -> i32 {
    let cfg = match opts.config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let name = ints.display().to_string();
    let text = match std::fs::read(ints) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
                let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
                let col =
                    upto.len() - upto.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1) + 1;
                eprintln!("{name}:{line}:{col}: error: integer file is not valid UTF-8");
                return 1;
            }
        },
        Err(e) => {
            eprintln!(
                "{}",
                plain_error(&name, format!("cannot read integer file: {e}"))
            );
            return 1;
        }
    };
    let (values, diags) = parse_ints(&name, &text, &cfg);
    if !diags.is_empty() {
        print_diagnostics(&diags);
        eprintln!(
            "{name}: {} error{}; no stream written",
            diags.len(),
            if diags.len() == 1 { "" } else { "s" }
        );
        return 1;
    }
    let mut enc = Encoder::new(cfg);
    for &v in &values {
        if let Err(e) = enc.push(v) {
            // parse_ints checked width and quotient; keep the rule in one place anyway.
            eprintln!("{}", plain_error(&name, e));
            return 1;
        }
    }
    if let Err(e) = std::fs::write(out, enc.finish()) {
        eprintln!(
            "{}",
            plain_error(
                &out.display().to_string(),
                format!("cannot write the stream: {e}")
            )
        );
        return 1;
    }
    0
}

fn rice_decode(stream: &PathBuf, opts: &RiceOpts) -> i32 {
    use std::io::Read;
    let cfg = match opts.config() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let name = stream.display().to_string();
    let mut file = match std::fs::File::open(stream) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}", plain_error(&name, format!("cannot read stream: {e}")));
            return 1;
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut dec = StreamDecoder::new(cfg);
    let mut chunk = vec![0u8; 1 << 20];
    let mut values = Vec::new();
    let mut line = String::new();
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{}", plain_error(&name, format!("cannot read stream: {e}")));
                return 1;
            }
        };
        values.clear();
        let fed = dec.feed(&chunk[..n], &mut values);
        for v in &values {
            use std::fmt::Write as _;
            line.clear();
            let _ = writeln!(line, "{v}");
            if out.write_all(line.as_bytes()).is_err() {
                return 0; // stdout closed (e.g. `| head`): stop quietly
            }
        }
        if let Err(DecodeError::QuotientOverflow { .. }) = fed {
            break;
        }
    }
    let _ = out.flush();
    match dec.finish() {
        Ok(d) => {
            if !d.tail.is_padding() {
                eprintln!(
                    "{name}: note: {} trailing bit{} at bit {} do not complete a code{}",
                    d.tail.bits,
                    if d.tail.bits == 1 { "" } else { "s" },
                    d.tail.bit_offset,
                    if d.tail.has_delimiter {
                        " (the remainder is cut: truncated stream?)"
                    } else {
                        " (more than a byte of padding: truncated stream?)"
                    }
                );
            }
            0
        }
        Err(e) => {
            eprintln!("{}", plain_error(&name, e));
            1
        }
    }
}
