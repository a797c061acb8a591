//! `qrtl xpath check|filter|compile|sim` (SPEC §2, §3).

use std::fmt::Write as _;
use std::io::Write;
use std::num::NonZeroUsize;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use clap::builder::TypedValueParser;
use clap::{Subcommand, ValueEnum};
use qrtl_core::diag::plain_error;
use qrtl_core::engine::Failure;
use qrtl_xpath::emit::xpath::{EventInput, RtlShape};
use qrtl_xpath::engine::{
    disabled_pass_error, load_queries, ns_hw_refusal, XpathEngine, XpathHw, XpathHwOptions,
    XpathOptions, DEFAULT_CLOCK_MHZ, DEFAULT_CLUSTER_SIZE, DEFAULT_MAX_DEPTH,
};
use qrtl_xpath::ir::xpath::{Mode, Namespaces};
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::passes::registry::{StackPassConfig, StackStats};
use qrtl_xpath::refmodel::{DocResult, Engine, EngineConfig};
use qrtl_xpath::xml::ns::{NsLimits, DEFAULT_NS_BINDINGS, DEFAULT_NS_PREFIXES};
use qrtl_xpath::xml::{XmlConfig, DEFAULT_ATTR_NAME_BYTES, DEFAULT_MAX_ATTRIBUTES};

use crate::common::{self, fail, json_string, SimArgs};
use crate::jobs::{self, JobsArgs};
use crate::programmable::{self, ConfigureArgs, ProgOpts};
use crate::session;
use crate::split::{self, Doc, NamedDoc, SplitArg};

#[derive(Subcommand, Debug)]
pub enum XpathCommand {
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
        #[command(flatten)]
        ns: NsOpts,
    },
    /// Filter documents with the software engine; one JSON line per
    /// document, in input order, whatever --jobs.
    Filter {
        /// Query file: one query per line, `#` comments and blank lines skipped.
        queries: PathBuf,
        /// XML documents: one per file (`-`: standard input), or with
        /// `--split nul` NUL-separated documents per file, named FILE#N.
        #[arg(required = true)]
        docs: Vec<PathBuf>,
        #[command(flatten)]
        opts: XpathOpts,
        /// How files hold documents (with nul, a stream read incrementally;
        /// a final NUL is optional, an empty document is malformed).
        #[arg(long, value_enum, default_value_t = SplitArg::None)]
        split: SplitArg,
        #[command(flatten)]
        jobs: JobsArgs,
        /// Print engine statistics to stderr at the end (summed over the
        /// --jobs engines).
        #[arg(long)]
        stats: bool,
    },
    /// Compile queries to an RTL project (Verilog, constraints, scripts,
    /// manifest); with --programmable, the generic design instead.
    Compile {
        /// Query file: one query per line (paths, twigs, attribute, text()
        /// and positional predicates); none with --programmable.
        #[arg(
            required_unless_present = "programmable",
            conflicts_with = "programmable"
        )]
        queries: Option<PathBuf>,
        /// Output directory (created if missing).
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        #[command(flatten)]
        opts: XpathOpts,
        #[command(flatten)]
        hw: HwOpts,
        #[command(flatten)]
        prog: ProgOpts,
        /// Print nodes/columns before and after each pass.
        #[arg(long)]
        stats: bool,
    },
    /// Lower a query set onto a programmable design (`compile
    /// --programmable`): its configuration stream, or the resource that
    /// does not fit (exit 1, nothing written).
    Configure {
        /// Query file, as for `compile`.
        queries: PathBuf,
        /// The programmable design's project directory.
        #[arg(long, value_name = "DIR")]
        design: PathBuf,
        /// The configuration: 64-bit little-endian words, sent on s_cfg.
        #[arg(short = 'o', long = "out", value_name = "CONFIG.bin")]
        out: PathBuf,
        /// Also write a readable dump of the configuration (`-`: standard output).
        #[arg(long, value_name = "FILE")]
        dump: Option<PathBuf>,
        /// The configuration's id, reported in every status word it answers.
        #[arg(long, default_value_t = 1)]
        id: u16,
        /// How twigs are matched: holistic (exact), paths or pairs.
        #[arg(long, value_enum, default_value_t = ModeArg::Holistic)]
        mode: ModeArg,
        /// Sibling branches of a twig must match in document order.
        #[arg(long)]
        ordered: bool,
        #[command(flatten)]
        ns: NsOpts,
    },
    /// Compile, simulate the RTL on documents; `filter`'s JSON plus cycles
    /// and bytes. With --programmable, the generic design configured with
    /// the queries, or with each query set of a --session in turn.
    Sim {
        /// Query file, as for `compile` (none with --session).
        #[arg(required_unless_present = "session", conflicts_with = "session")]
        queries: Option<PathBuf>,
        /// XML documents (one AXI4-Stream packet each; none with --session).
        #[arg(required_unless_present = "session")]
        docs: Vec<PathBuf>,
        /// With --programmable: a session file of steps run in order through
        /// one simulation (hot swaps): `config QUERIES [--mode M] [--ordered]
        /// [--id N] [--ns PREFIX=URI]` loads a query set, `doc FILE...`
        /// streams documents; paths relative to the file.
        #[arg(
            long,
            value_name = "FILE",
            requires = "programmable",
            conflicts_with_all = ["docs", "mode", "ordered", "ns"]
        )]
        session: Option<PathBuf>,
        #[command(flatten)]
        opts: XpathOpts,
        #[command(flatten)]
        hw: HwOpts,
        #[command(flatten)]
        prog: ProgOpts,
        #[command(flatten)]
        sim: SimArgs,
    },
}

/// Options of the generated hardware.
#[derive(clap::Args, Debug, Clone)]
pub struct HwOpts {
    /// Queries per cluster (each cluster has its own decoder, global stack
    /// and stack memory; the input is pipelined from cluster to cluster).
    /// 0: one cluster.
    #[arg(long, default_value_t = DEFAULT_CLUSTER_SIZE)]
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
    #[arg(long, default_value_t = DEFAULT_CLOCK_MHZ)]
    clock_mhz: f64,
    /// How the parser's events reach the clusters: pipelined (a register
    /// per cluster, no fan-out to all clusters; latency grows by one clock
    /// per cluster) or broadcast (one net per event signal to every cluster).
    #[arg(long, value_enum, default_value_t = InputArg::Pipelined)]
    input: InputArg,
    /// Document bytes per clock on s_axis (its tdata is 8 times as wide,
    /// with tkeep above 1): a multi-byte parser takes one beat per clock
    /// and hands the clusters one event per clock.
    #[arg(long, default_value_t = 1, value_name = "B",
          value_parser = clap::builder::PossibleValuesParser::new(["1", "2", "4", "8"])
              .map(|s| s.parse::<u32>().expect("a listed value")))]
    bytes_per_clock: u32,
    /// Prefixes the namespace unit holds at once: bound in scope, or used
    /// by the start tag being read (not with `--namespaces raw`, which has
    /// no unit); a document needing more is flagged `attr_limit`
    /// [default: 8]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    ns_prefixes: Option<u32>,
    /// Namespace declarations in scope the namespace unit holds (not with
    /// `--namespaces raw`); a document needing more is flagged `attr_limit`
    /// [default: 16]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    ns_bindings: Option<u32>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum InputArg {
    Pipelined,
    Broadcast,
}

#[derive(clap::Args, Debug, Clone)]
pub struct XpathOpts {
    /// How twigs are matched: holistic (exact), paths or pairs (may give false positives).
    #[arg(long, value_enum, default_value_t = ModeArg::Holistic)]
    mode: ModeArg,
    /// Deepest element nesting accepted; deeper documents are flagged `too_deep`.
    #[arg(long, default_value_t = DEFAULT_MAX_DEPTH, value_parser = clap::value_parser!(u32).range(1..=4096))]
    max_depth: u32,
    /// Attributes per element the duplicate-attribute check holds; a start
    /// tag with more is flagged `attr_limit`.
    #[arg(long, default_value_t = DEFAULT_MAX_ATTRIBUTES, value_parser = clap::value_parser!(u32).range(1..=256))]
    max_attributes: u32,
    /// Longest attribute name (bytes) the duplicate-attribute check holds;
    /// a longer one is flagged `attr_limit`.
    #[arg(long, default_value_t = DEFAULT_ATTR_NAME_BYTES, value_parser = clap::value_parser!(u32).range(1..=1024))]
    attr_name_bytes: u32,
    /// Sibling branches of a twig must match in document order, in distinct
    /// child subtrees (holistic mode; default: unordered, as XPath).
    #[arg(long)]
    ordered: bool,
    #[command(flatten)]
    ns: NsOpts,
}

/// How names are compared.
#[derive(clap::Args, Debug, Clone)]
pub struct NsOpts {
    /// Bind a query prefix to a namespace URI (repeatable): `--ns
    /// a=http://www.w3.org/2005/Atom`. A query file may also declare
    /// `declare namespace a = "URI";`.
    #[arg(long = "ns", value_name = "PREFIX=URI")]
    ns: Vec<String>,
    /// How element and attribute names are compared: `xpath` (namespace
    /// URI and local name, XPath 1.0 with Namespaces in XML; the default;
    /// in hardware a namespace unit resolves them, at one byte per clock)
    /// or `raw` (bytes as written, prefix included; needed with
    /// `--bytes-per-clock` above 1).
    #[arg(long, value_enum)]
    namespaces: Option<NamespacesArg>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum NamespacesArg {
    Xpath,
    Raw,
}

impl NsOpts {
    /// The namespace options: namespace-aware names unless `--namespaces
    /// raw` says otherwise.
    fn options(&self) -> Result<NsOptions, Failure> {
        let mode = match self.namespaces {
            None | Some(NamespacesArg::Xpath) => Namespaces::Xpath,
            Some(NamespacesArg::Raw) => Namespaces::Raw,
        };
        NsOptions::new(mode, &self.ns).map_err(|e| Failure::usage(format!("error: --ns {e}")))
    }
}

impl XpathOpts {
    /// The parser's limits.
    fn xml(&self) -> XmlConfig {
        XmlConfig {
            max_attributes: self.max_attributes,
            attr_name_bytes: self.attr_name_bytes,
            ..XmlConfig::with_max_depth(self.max_depth)
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ModeArg {
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

/// Run one `qrtl xpath` subcommand; returns the exit code.
pub fn run(cmd: XpathCommand) -> i32 {
    let r = match cmd {
        XpathCommand::Check {
            queries,
            dump_ir,
            mode,
            ns,
        } => check(&queries, dump_ir, mode.into(), &ns),
        XpathCommand::Filter {
            queries,
            docs,
            opts,
            split,
            jobs,
            stats,
        } => {
            let inputs = FilterInputs {
                docs: &docs,
                split,
                jobs: jobs.count(),
            };
            filter(&queries, &inputs, &opts, stats)
        }
        XpathCommand::Compile {
            queries,
            out,
            opts,
            hw,
            prog,
            stats,
        } => match queries {
            Some(queries) => compile(&queries, &out, &opts, &hw, stats),
            None => compile_programmable(&out, &opts, &hw, &prog),
        },
        XpathCommand::Configure {
            queries,
            design,
            out,
            dump,
            id,
            mode,
            ordered,
            ns,
        } => ns.options().and_then(|ns| {
            let args = ConfigureArgs {
                queries: &queries,
                design: &design,
                out: &out,
                dump: dump.as_deref(),
                id,
                mode: mode.into(),
                ordered,
            };
            programmable::configure_cmd(&args, &ns)
        }),
        XpathCommand::Sim {
            queries,
            docs,
            session,
            opts,
            hw,
            prog,
            sim,
        } => match (session, queries) {
            (Some(session), _) => sim_session(&session, &opts, &hw, &prog, &sim),
            (None, Some(q)) if prog.programmable => {
                sim_programmable(&q, &docs, &opts, &hw, &prog, &sim)
            }
            (None, Some(q)) => sim_cmd(&q, &docs, &opts, &hw, &sim),
            (None, None) => Err(Failure::usage("error: `sim` needs QUERIES or --session")),
        },
    };
    r.unwrap_or_else(fail)
}

fn check(queries: &Path, dump_ir: bool, mode: Mode, ns: &NsOpts) -> Result<i32, Failure> {
    let ns = ns.options()?;
    let d = load_queries(queries, mode, false, &ns)?.design;
    // A closed stdout (e.g. `| head`) is not an error worth a panic.
    let mut out = std::io::stdout().lock();
    if dump_ir {
        let _ = write!(out, "{d}");
    }
    let _ = writeln!(out, "{}: {} queries ok", queries.display(), d.queries.len());
    Ok(0)
}

/// The documents of `xpath filter` and how to run them.
struct FilterInputs<'a> {
    docs: &'a [PathBuf],
    split: SplitArg,
    jobs: NonZeroUsize,
}

fn filter(
    queries: &Path,
    inputs: &FilterInputs,
    opts: &XpathOpts,
    stats: bool,
) -> Result<i32, Failure> {
    let ns = opts.ns.options()?;
    let design = load_queries(queries, opts.mode.into(), opts.ordered, &ns)?.design;
    let config = EngineConfig {
        xml: opts.xml(),
        ..EngineConfig::default()
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut code, mut closed) = (0, false);
    let engines = jobs::ordered_map(
        inputs.jobs,
        split::documents(inputs.docs, inputs.split),
        |d| d.doc.weight(),
        || Engine::new(&design, config),
        |engine, d: NamedDoc| {
            let result = filter_doc(engine, d.doc).map(|r| render(&d.name, r));
            (d.name, result)
        },
        |(name, result)| match print_result(&mut out, &name, result) {
            Printed::Line => ControlFlow::Continue(()),
            Printed::Unreadable => {
                code = 1;
                ControlFlow::Continue(())
            }
            Printed::Closed => {
                closed = true;
                ControlFlow::Break(())
            }
        },
    );
    let _ = out.flush();
    if closed {
        return Ok(0); // stdout closed (e.g. `| head`): stop quietly
    }
    if stats {
        print_engine_stats(design.queries.len(), &engines);
    }
    Ok(code)
}

/// Run one document through the engine.
fn filter_doc(engine: &mut Engine, doc: Doc) -> std::io::Result<DocResult> {
    match doc {
        Doc::File(path) => std::fs::File::open(path).and_then(|f| engine.filter_reader(f)),
        Doc::Stdin => engine.filter_reader(std::io::stdin().lock()),
        Doc::Bytes(bytes) => Ok(engine.filter(&bytes)),
        Doc::Unreadable(e) => Err(e),
    }
}

/// What printing one document's result did.
enum Printed {
    Line,
    Unreadable,
    Closed,
}

/// One document's output, formatted by the worker that filtered it (so
/// the thread printing in input order only writes).
struct Rendered {
    /// The JSON line for stdout.
    line: String,
    /// The note for stderr, for a flagged document.
    note: Option<String>,
}

/// The document's JSON line and its note.
fn render(name: &str, r: DocResult) -> Rendered {
    // Keys in the order of SPEC §2: doc, status, matched.
    let mut line = format!(
        "{{\"doc\":{},\"status\":\"{}\",\"matched\":[",
        json_string(name),
        r.status.as_str(),
    );
    for (i, q) in r.matched.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        let _ = write!(line, "{q}");
    }
    line.push_str("]}");
    let note = r.error.map(|e| {
        format!(
            "{name}:{}:{}: note: {}: {}",
            e.line,
            e.col,
            r.status.as_str(),
            e.error.describe()
        )
    });
    Rendered { line, note }
}

/// The document's JSON line on stdout and its note on stderr, or the read
/// error on stderr.
fn print_result(out: &mut impl Write, name: &str, result: std::io::Result<Rendered>) -> Printed {
    let r = match result {
        Ok(r) => r,
        Err(e) => {
            let _ = out.flush();
            eprintln!(
                "{}",
                plain_error(name, format!("cannot read document: {e}"))
            );
            return Printed::Unreadable;
        }
    };
    if writeln!(out, "{}", r.line).is_err() {
        return Printed::Closed;
    }
    if let Some(note) = r.note {
        let _ = out.flush();
        eprintln!("{note}");
    }
    Printed::Line
}

/// `--stats`: the engines' counters, summed.
fn print_engine_stats(queries: usize, engines: &[Engine]) {
    let (mut states, mut computed, mut flushes) = (0, 0, 0);
    for s in engines.iter().map(Engine::stats) {
        states += s.states;
        computed += s.transitions_computed;
        flushes += s.flushes;
    }
    eprintln!(
        "{{\"queries\":{queries},\"states\":{states},\"transitions_computed\":{computed},\"cache_flushes\":{flushes}}}"
    );
}

impl HwOpts {
    /// The compile options, or a usage error (exit 2).
    fn options(&self, opts: &XpathOpts) -> Result<XpathOptions, Failure> {
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
        if let Some(e) = disabled_pass_error(&passes) {
            return Err(Failure::usage(format!("error: --disable-pass: {e}")));
        }
        let ns = opts.ns.options()?;
        if ns.mode == Namespaces::Raw && (self.ns_prefixes.is_some() || self.ns_bindings.is_some())
        {
            return Err(Failure::usage(
                "error: --ns-prefixes and --ns-bindings size the namespace unit: they need \
                 --namespaces xpath (a design comparing raw names has none)"
                    .to_string(),
            ));
        }
        if ns.mode == Namespaces::Xpath {
            if let Some(r) = ns_hw_refusal(self.bytes_per_clock, opts.attr_name_bytes) {
                return Err(Failure::usage(format!(
                    "error: --{} {}: {}; add --namespaces raw to compare names as bytes",
                    r.key.replace('_', "-"),
                    r.value,
                    r.why
                )));
            }
        }
        Ok(XpathOptions {
            mode: opts.mode.into(),
            ordered: opts.ordered,
            hw: XpathHwOptions {
                xml: XmlConfig {
                    ns_limits: Some(NsLimits {
                        prefixes: self.ns_prefixes.unwrap_or(DEFAULT_NS_PREFIXES),
                        bindings: self.ns_bindings.unwrap_or(DEFAULT_NS_BINDINGS),
                    }),
                    ..opts.xml()
                },
                passes,
                input: match self.input {
                    InputArg::Pipelined => EventInput::Pipelined,
                    InputArg::Broadcast => EventInput::Broadcast,
                },
                shape: RtlShape::default(),
                bytes_per_clock: self.bytes_per_clock,
            },
            clock_mhz: common::check_clock(self.clock_mhz)?,
            ns,
        })
    }
}

/// Options first (usage errors before reading anything), then the query
/// file, then the design.
fn compile_hw(queries: &Path, opts: &XpathOpts, hw: &HwOpts) -> Result<XpathHw, Failure> {
    let options = hw.options(opts)?;
    let source = load_queries(queries, options.mode, options.ordered, &options.ns)?;
    qrtl_core::engine::Engine::compile(&XpathEngine, &source, &options)
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
fn print_mode_stats(queries: &Path, opts: &XpathOpts, hw: &HwOpts) {
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

fn compile(
    queries: &Path,
    out: &Path,
    opts: &XpathOpts,
    hw: &HwOpts,
    stats: bool,
) -> Result<i32, Failure> {
    let options = hw.options(opts)?;
    let source = load_queries(queries, options.mode, options.ordered, &options.ns)?;
    common::compile(&XpathEngine, &source, &options, out, |design| {
        if stats {
            print_pass_stats(design);
            print_mode_stats(queries, opts, hw);
        }
    })?;
    Ok(0)
}

/// `compile --programmable -o DIR`: sizes and limits first (usage errors),
/// then the project.
fn compile_programmable(
    out: &Path,
    opts: &XpathOpts,
    hw: &HwOpts,
    prog: &ProgOpts,
) -> Result<i32, Failure> {
    let ns = opts.ns.options()?;
    let shape = prog.shape(hw.cluster_size, opts.max_depth, ns.mode)?;
    let clock = common::check_clock(hw.clock_mhz)?;
    programmable::compile(&shape, &opts.xml(), clock, out)
}

/// `sim --programmable`: sizes first (usage errors), then the queries and
/// the documents.
fn sim_programmable(
    queries: &Path,
    docs: &[PathBuf],
    opts: &XpathOpts,
    hw: &HwOpts,
    prog: &ProgOpts,
    sim: &SimArgs,
) -> Result<i32, Failure> {
    let ns = opts.ns.options()?;
    let shape = prog.shape(hw.cluster_size, opts.max_depth, ns.mode)?;
    let source = load_queries(queries, opts.mode.into(), opts.ordered, &ns)?;
    let (inputs, code) = read_docs(docs);
    let named: Vec<(String, Vec<u8>)> = docs
        .iter()
        .zip(inputs)
        .filter_map(|(d, bytes)| Some((d.display().to_string(), bytes?)))
        .collect();
    if named.is_empty() {
        return Ok(1);
    }
    let r = programmable::sim_cmd(&source, &shape, &opts.xml(), named, sim)?;
    Ok(r.max(code))
}

/// `sim --programmable --session FILE`: sizes first (usage errors), then
/// every step checked (nothing runs unless all are good), then one run.
fn sim_session(
    session: &Path,
    opts: &XpathOpts,
    hw: &HwOpts,
    prog: &ProgOpts,
    sim: &SimArgs,
) -> Result<i32, Failure> {
    let ns = opts.ns.options()?;
    let shape = prog.shape(hw.cluster_size, opts.max_depth, ns.mode)?;
    let steps = session::read_session(session, &shape)?;
    programmable::run_steps(&steps, &shape, &opts.xml(), sim)
}

/// Read every document; unreadable or empty ones are errors (an
/// AXI4-Stream packet carries at least one byte), reported in order.
fn read_docs(docs: &[PathBuf]) -> (Vec<Option<Vec<u8>>>, i32) {
    let mut code = 0;
    let mut inputs = Vec::with_capacity(docs.len());
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
    (inputs, code)
}

fn sim_cmd(
    queries: &Path,
    docs: &[PathBuf],
    opts: &XpathOpts,
    hw: &HwOpts,
    sim: &SimArgs,
) -> Result<i32, Failure> {
    let compiled = compile_hw(queries, opts, hw)?;
    let (inputs, code) = read_docs(docs);
    let packets: Vec<&Vec<u8>> = inputs.iter().flatten().collect();
    if packets.is_empty() {
        return Ok(1);
    }
    let results = common::simulate(&XpathEngine, &compiled, &packets, sim)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut results = results.iter();
    for (doc, input) in docs.iter().zip(&inputs) {
        let Some(bytes) = input else { continue };
        let r = results.next().expect("one result per packet");
        let name = doc.display().to_string();
        let line = format!(
            "{{\"doc\":{},\"status\":\"{}\",\"matched\":{},\"cycles\":{},\"bytes\":{}}}",
            json_string(&name),
            r.output.status.as_str(),
            serde_json::Value::from(r.output.matched.clone()),
            r.latency,
            bytes.len()
        );
        if writeln!(out, "{line}").is_err() {
            return Ok(code);
        }
        if let Some(reason) = r.output.reason {
            let _ = out.flush();
            eprintln!(
                "{name}: note: {}: {}",
                r.output.status.as_str(),
                reason.describe()
            );
        }
    }
    let _ = out.flush();
    Ok(code)
}
