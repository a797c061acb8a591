//! `qrtl-bench-report`: the performance report, `bench/REPORT.md` with one
//! SVG per figure (`bench/fig-a-lut-eq.svg` … `bench/fig-g-bytes-per-clock.svg`).
//!
//! ```text
//! qrtl-bench-report [--quick] [--only a,b,...] [--max-queries N]
//!                   [--min-queries N] [--lengths 4,8]
//!                   [--cluster-sizes A,B,...] [--inputs pipelined,broadcast]
//!                   [--max-width N]
//!                   [--seeds N] [--xpath-seeds N] [--time-limit MIN]
//!                   [--no-synth] [--render-only]
//!                   [--out DIR]
//! ```
//!
//! Figures (issue 7):
//!
//! * (a) LUT-eq per query node vs number of queries (xc6v, area only),
//!   lengths 4 and 8, stack passes on and all off;
//! * (b) ECP5 Fmax vs cluster size for 2K length-4 queries;
//! * (c) compile time (parse + lower + passes + Verilog text), 1K–32K
//!   queries, median of 3 runs;
//! * (d) Verilator simulated cycles per second and cycles per byte on the
//!   NITF documents, vs design size;
//! * (e) software engine MB/s vs number of queries on a generated corpus;
//! * (f) Golomb-Rice no-stall decoder N ∈ {8, 16, 32, 64}: LUT-eq, ECP5
//!   Fmax, Gbit/s;
//! * (g) multi-byte input, B ∈ {1, 2, 4, 8} bytes per clock: xc6v LUT-eq
//!   and ECP5 Fmax of the parser with one query and of 256 and 2K
//!   length-4 path queries, sustained bytes per clock (Verilator), Gbit/s;
//! * (h) namespace-aware names (`--namespaces xpath`, the namespace unit)
//!   beside raw names: xc6v LUT-eq and ECP5 Fmax of the parser with one
//!   query and of 256 (and 2K) length-4 path queries, unprefixed and
//!   prefixed;
//! * (i) the programmable engine (`--programmable`): xc6v LUT-eq and ECP5
//!   Fmax at 256, 1K and 2K columns, the area ratio per configured query
//!   node against the custom design, configuration bits per column and
//!   load time.
//!
//! Synthesis points are cached in `bench/data/synth-points.json`, keyed by
//! SHA-256 of the RTL, target and seeds: a point whose RTL is unchanged is
//! reused (the report says which points were measured in this run). Every
//! figure's data is also stored in `bench/data/figures.json`, so `--only`
//! reruns some figures and keeps the others as last measured.
//!
//! `--quick`: small sizes only and one place-and-route seed. `--seeds N`
//! (default 3): nextpnr seeds of the Golomb-Rice decoders; `--xpath-seeds
//! N` (default 1): of the XPath designs of fig. (b), minutes per seed each.
//! `--max-queries N`: skip synthesis and simulation points with more than N
//! queries (listed as not measured); `--min-queries N`, `--lengths 4,8`:
//! measure only these points of fig. (a); `--cluster-sizes A,B,...`: only
//! these cluster sizes in fig. (b), `--inputs pipelined,broadcast`: only
//! these event inputs (a point not measured is still taken from the cache,
//! so runs side by side can share fig. (b)); `--max-width N`: skip Golomb-Rice
//! decoders wider than N bits. `--time-limit MIN`: stop
//! each tool run (Yosys, one place-and-route seed) after MIN minutes; the
//! point is cached as stopped and reported as not finished (a later run
//! tries again only with a longer limit or none). `--no-synth`: run no synthesis; take
//! synthesis points from the cache only. `--render-only`: measure nothing,
//! redraw the SVGs and `REPORT.md` from `bench/data/figures.json`. Figures are reported, never
//! asserted.

#[path = "bench_report/cache.rs"]
mod cache;
#[path = "bench_report/fig_ns.rs"]
mod fig_ns;
#[path = "bench_report/fig_prog.rs"]
mod fig_prog;
#[path = "bench_report/fig_wide.rs"]
mod fig_wide;
#[path = "bench_report/figs.rs"]
mod figs;
#[path = "bench_report/md.rs"]
mod md;
#[path = "bench_report/plot.rs"]
mod plot;
#[path = "bench_report/synth_points.rs"]
mod synth_points;

use cache::now_stamp;
use figs::QUERY_LENGTHS;
use md::{markdown_report, Figure, Report, Section, TargetRow};
use qrtl_xpath::emit::xpath::EventInput;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Every figure: id, SVG file name, heading.
pub const FIGURES: [(&str, &str, &str); 9] = [
    (
        "a",
        "fig-a-lut-eq.svg",
        "LUT-eq per query node vs number of queries (xc6v)",
    ),
    (
        "b",
        "fig-b-fmax-cluster.svg",
        "ECP5 Fmax vs cluster size (2K length-4 queries)",
    ),
    (
        "c",
        "fig-c-compile-time.svg",
        "Compile time vs number of queries",
    ),
    (
        "d",
        "fig-d-verilator.svg",
        "Verilator simulation speed vs design size",
    ),
    (
        "e",
        "fig-e-engine.svg",
        "Software engine throughput vs number of queries",
    ),
    (
        "f",
        "fig-f-rice.svg",
        "Golomb-Rice no-stall decoder: area, Fmax, Gbit/s",
    ),
    (
        "g",
        "fig-g-bytes-per-clock.svg",
        "Multi-byte input: area, Fmax and Gbit/s vs bytes per clock",
    ),
    (
        "h",
        "fig-h-namespaces.svg",
        "Namespace-aware names in hardware: area and Fmax beside raw names",
    ),
    (
        "i",
        "fig-i-programmable.svg",
        "Programmable engine: area, Fmax, area ratio and load time",
    ),
];

/// Command-line options.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub quick: bool,
    /// Figures to measure (ids); empty: all.
    pub only: Vec<String>,
    pub max_queries: Option<usize>,
    /// Fig. (a): skip points with fewer queries (`--min-queries N`).
    pub min_queries: Option<usize>,
    /// Fig. (a): query lengths to measure (`--lengths 4,8`); empty: both.
    pub lengths: Vec<usize>,
    /// Cluster sizes of fig. (b) to measure (others are listed as not
    /// measured); empty: all.
    pub cluster_sizes: Vec<usize>,
    /// Event inputs of fig. (b) to measure; empty: both.
    pub inputs: Vec<EventInput>,
    /// Fig. (a): measure only the points with the stack passes on (`true`)
    /// or off; `None`: both.
    pub passes: Option<bool>,
    /// Skip Golomb-Rice decoders wider than this (fig. (f)).
    pub max_width: Option<u32>,
    /// Place-and-route seeds of the small designs (fig. (f)).
    pub seeds: u32,
    /// Place-and-route seeds of the XPath designs of fig. (b) (minutes of
    /// nextpnr per seed at 2K queries).
    pub xpath_seeds: u32,
    /// Take synthesis points from the cache only.
    pub no_synth: bool,
    /// Stop each synthesis tool run after this long (`--time-limit MIN`);
    /// the point is recorded as stopped.
    pub time_limit: Option<std::time::Duration>,
    /// Measure nothing: redraw the SVGs and REPORT.md from the stored
    /// figures.
    pub render_only: bool,
    /// Where REPORT.md and the SVGs go (`bench/`).
    pub out: PathBuf,
}

const USAGE: &str = "usage: qrtl-bench-report [--quick] [--only a,b,...] [--max-queries N] \
                     [--min-queries N] [--lengths 4,8] [--cluster-sizes A,B,..] [--inputs pipelined,broadcast] [--passes on|off] [--max-width N] [--seeds N] [--xpath-seeds N] [--time-limit MIN] [--no-synth] [--render-only] [--out DIR]";

/// Parse the command line (without the program name).
pub fn parse_args(args: &[String], root: &Path) -> Result<Options, String> {
    let mut o = Options {
        quick: false,
        only: Vec::new(),
        max_queries: None,
        min_queries: None,
        lengths: Vec::new(),
        max_width: None,
        cluster_sizes: Vec::new(),
        inputs: Vec::new(),
        passes: None,
        seeds: 3,
        xpath_seeds: 1,
        no_synth: false,
        time_limit: None,
        render_only: false,
        out: root.join("bench"),
    };
    let mut seeds_given = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--quick" => o.quick = true,
            "--no-synth" => o.no_synth = true,
            "--render-only" => o.render_only = true,
            "--only" => {
                o.only
                    .extend(list("--only", "figure", &value("--only")?, |id| {
                        FIGURES
                            .iter()
                            .any(|f| f.0 == id)
                            .then(|| id.to_string())
                            .ok_or_else(|| format!("unknown figure `{id}` (a to h)"))
                    })?);
            }
            "--max-queries" => o.max_queries = Some(count("--max-queries", &value(a)?)?),
            "--min-queries" => o.min_queries = Some(count("--min-queries", &value(a)?)?),
            "--max-width" => o.max_width = Some(count("--max-width", &value(a)?)?),
            "--lengths" => {
                o.lengths
                    .extend(list("--lengths", "length", &value(a)?, |l| {
                        match l.parse() {
                            Ok(n) if QUERY_LENGTHS.contains(&n) => Ok(n),
                            _ => Err(format!("`{l}` is not a length of fig. (a) (4, 8)")),
                        }
                    })?);
            }
            "--cluster-sizes" => {
                o.cluster_sizes
                    .extend(list("--cluster-sizes", "size", &value(a)?, |c| {
                        count_value::<usize>(c)
                    })?);
            }
            "--inputs" => {
                o.inputs.extend(list("--inputs", "input", &value(a)?, |i| {
                    EventInput::ALL
                        .into_iter()
                        .find(|e| e.name() == i)
                        .ok_or_else(|| format!("unknown input `{i}` (pipelined, broadcast)"))
                })?);
            }
            "--passes" => {
                let v = value("--passes")?;
                o.passes = Some(match v.as_str() {
                    "on" => true,
                    "off" => false,
                    _ => return Err(format!("--passes: `{v}` is neither `on` nor `off`")),
                });
            }
            "--seeds" | "--xpath-seeds" => {
                let v = value(a)?;
                let n = match v.parse::<u32>() {
                    Ok(n) if (1..=32).contains(&n) => n,
                    _ => return Err(format!("{a}: `{v}` is not an integer in 1..=32")),
                };
                if a == "--seeds" {
                    o.seeds = n;
                    seeds_given = true;
                } else {
                    o.xpath_seeds = n;
                }
            }
            "--time-limit" => {
                let v = value("--time-limit")?;
                o.time_limit = Some(
                    qrtl_core::synth::parse_minutes(&v)
                        .map_err(|e| format!("--time-limit: {e}"))?,
                );
            }
            "--out" => o.out = PathBuf::from(value("--out")?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.quick && !seeds_given {
        o.seeds = 1;
    }
    Ok(o)
}

/// A count given to `flag`: a non-negative integer.
fn count<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    count_value(v).map_err(|e| format!("{flag}: {e}"))
}

fn count_value<T: std::str::FromStr>(v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("`{v}` is not a non-negative integer"))
}

/// A comma-separated list given to `flag`, each item read by `item`; an
/// empty list is an error (`what`: the word for one item).
fn list<T>(
    flag: &str,
    what: &str,
    v: &str,
    item: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let items = v
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| item(s).map_err(|e| format!("{flag}: {e}")))
        .collect::<Result<Vec<T>, String>>()?;
    if items.is_empty() {
        return Err(format!("{flag}: no {what} named"));
    }
    Ok(items)
}

impl Options {
    pub fn selected(&self, id: &str) -> bool {
        !self.render_only && (self.only.is_empty() || self.only.iter().any(|o| o == id))
    }

    /// The command line that reproduces this run's figure `id`.
    pub fn bench_command(&self, id: &str) -> String {
        let mut s = format!("target/release/qrtl-bench-report --only {id}");
        if self.quick {
            s.push_str(" --quick");
        }
        if let Some(m) = self.max_queries {
            s.push_str(&format!(" --max-queries {m}"));
        }
        if let Some(m) = self.min_queries {
            s.push_str(&format!(" --min-queries {m}"));
        }
        if !self.lengths.is_empty() {
            let l: Vec<String> = self.lengths.iter().map(|c| c.to_string()).collect();
            s.push_str(&format!(" --lengths {}", l.join(",")));
        }
        if !self.cluster_sizes.is_empty() {
            let l: Vec<String> = self.cluster_sizes.iter().map(|c| c.to_string()).collect();
            s.push_str(&format!(" --cluster-sizes {}", l.join(",")));
        }
        if !self.inputs.is_empty() {
            let l: Vec<&str> = self.inputs.iter().map(|i| i.name()).collect();
            s.push_str(&format!(" --inputs {}", l.join(",")));
        }
        if let Some(p) = self.passes {
            s.push_str(if p { " --passes on" } else { " --passes off" });
        }
        if let Some(w) = self.max_width {
            s.push_str(&format!(" --max-width {w}"));
        }
        if self.seeds != if self.quick { 1 } else { 3 } {
            s.push_str(&format!(" --seeds {}", self.seeds));
        }
        if self.xpath_seeds != 1 {
            s.push_str(&format!(" --xpath-seeds {}", self.xpath_seeds));
        }
        if let Some(l) = self.time_limit {
            s.push_str(&format!(" --time-limit {}", l.as_secs_f64() / 60.0));
        }
        s
    }
}

/// Stored figures (`bench/data/figures.json`).
fn load_figures(path: &Path) -> Result<BTreeMap<String, Figure>, String> {
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t).map_err(|e| {
            format!(
                "{}:{}:{}: malformed stored figures: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn run(o: &Options, root: &Path) -> Result<(), String> {
    let data_dir = o.out.join("data");
    let figures_path = data_dir.join("figures.json");
    let mut stored = load_figures(&figures_path)?;
    let mut synth = synth_points::Runner::new(o, root)?;
    for (id, _, heading) in FIGURES {
        if !o.selected(id) {
            continue;
        }
        eprintln!("== ({id}) {heading}");
        let fig = match id {
            "a" => figs::fig_a(o, &mut synth)?,
            "b" => figs::fig_b(o, &mut synth)?,
            "c" => figs::fig_c(o)?,
            "d" => figs::fig_d(o)?,
            "e" => figs::fig_e(o)?,
            "f" => figs::fig_f(o, &mut synth)?,
            "g" => fig_wide::fig_g(o, &mut synth)?,
            "h" => fig_ns::fig_h(o, &mut synth)?,
            "i" => fig_prog::fig_i(o, &mut synth)?,
            _ => unreachable!("FIGURES ids"),
        };
        // Keep what is measured so far, in case a later figure fails; read
        // the file again first so that figures another run stored in the
        // meantime (`--only` runs side by side) are kept.
        stored = load_figures(&figures_path)?;
        stored.insert(id.to_string(), fig);
        write(
            &figures_path,
            &(serde_json::to_string_pretty(&stored).expect("figures serialise") + "\n"),
        )?;
    }
    let mut report = Report {
        intro: intro(o),
        targets: Vec::new(),
        sections: Vec::new(),
    };
    for (id, file, heading) in FIGURES {
        match stored.get(id) {
            Some(f) => {
                let mut f = f.clone();
                if !o.selected(id) {
                    f.notes.push(format!(
                        "Not rerun by the last invocation (`{}`): the data stored in \
                         `bench/data/figures.json`, measured {}.",
                        if o.render_only {
                            "--render-only".to_string()
                        } else {
                            format!("--only {}", o.only.join(","))
                        },
                        f.measured
                    ));
                }
                let svg = plot::render_panels(&f.charts)
                    .map_err(|e| format!("figure ({id}): drawing failed: {e}"))?;
                write(&o.out.join(file), &svg)?;
                report.sections.push(Section::Figure(f));
            }
            None => report.sections.push(Section::Missing {
                id: id.to_string(),
                heading: heading.to_string(),
                why: "not measured by this invocation and no stored data".to_string(),
            }),
        }
    }
    report.targets = targets(&stored);
    write(&o.out.join("REPORT.md"), &markdown_report(&report))?;
    eprintln!(
        "wrote {} ({} synthesis point(s) measured in this run)",
        o.out.join("REPORT.md").display(),
        synth.measured_now
    );
    Ok(())
}

fn intro(o: &Options) -> Vec<String> {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .map_or(String::new(), |l| {
            format!(
                " (1-minute load average {l} when the report was assembled; wall-clock times \
                 on a busy machine are inflated, so on-CPU times are given next to them)"
            )
        });
    vec![
        format!(
            "Generated by `qrtl-bench-report` (`make bench`) on {} ({} logical cores visible{load}), last run {}{}. \
             Synthesis: Yosys `synth_xilinx -family xc6v` for area (LUT-eq counts each distributed-RAM \
             primitive as the LUTs it occupies), Yosys `synth_ecp5` (LUT mapping with ABC's `&if -t`: \
             each register's cone at its own best depth) + nextpnr-ecp5 (LFE5U-85F, CABGA381, \
             speed 6) for Fmax, the median over the place-and-route seeds — all through `qrtl synth` \
             with the pinned YoWASP builds of `make deps-synth` (a table says when a point used another \
             build). A design that declares more than {} memories has them mapped in a module of their \
             own (`qrtl synth --memory-module-above`; Yosys's `memory_libmap` takes time growing with \
             memories × module size in one module). Each synthesis point is cached in \
             `bench/data/synth-points.json` by SHA-256 of its RTL, target, mapping script, memory \
             mapping and seed count; the tables say whether a point was measured in this run or taken \
             from the cache, and when it was measured.",
            cpu,
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            now_stamp(),
            if o.quick { " with `--quick`" } else { "" },
            qrtl_core::synth::MEMORY_MODULE_ABOVE,
        ),
        "Synthetic path queries (`qrtl_xpath::workload::synthetic_path_queries`): each step `/` or \
         (15%) `//`, name `*` (15%) or one of 200 tags `t0`…`t199`, the given number of steps; the \
         query files are written to `bench/out/report/queries/` so the commands below can be rerun \
         from the repository root. A query node is one step of a query (the naive node count, before \
         any pass)."
            .to_string(),
    ]
}

/// The targets table (issue 7), from the stored figures.
fn targets(stored: &BTreeMap<String, Figure>) -> Vec<TargetRow> {
    let mut rows = Vec::new();
    let fig = |id: &str| stored.get(id);
    // Every figure stores the values the targets need as `target:NAME`
    // notes-free cells: look them up in its table by the row key.
    let cell = |id: &str, key: &[(&str, &str)], col: &str| -> Option<String> {
        let f = fig(id)?;
        let t = &f.table;
        let ci = t.headers.iter().position(|h| h == col)?;
        t.rows
            .iter()
            .find(|r| {
                key.iter().all(|(k, v)| {
                    t.headers
                        .iter()
                        .position(|h| h == k)
                        .and_then(|i| r.get(i))
                        .is_some_and(|c| c == v)
                })
            })
            .and_then(|r| r.get(ci))
            .cloned()
    };
    let lookup = |id: &str, key: &[(&str, &str)], col: &str| -> Option<f64> {
        cell(id, key, col).and_then(|c| c.parse::<f64>().ok())
    };
    // ", median of N seeds" from a table's "Fmax per seed" cell.
    let seeds = |id: &str, key: &[(&str, &str)]| -> String {
        match cell(id, key, "Fmax per seed").map(|c| c.split(',').count()) {
            Some(1) => ", 1 seed".to_string(),
            Some(n) => format!(", median of {n} seeds"),
            None => String::new(),
        }
    };
    let cluster = figs::DEFAULT_CLUSTER.to_string();
    let b_key = [
        ("cluster size", cluster.as_str()),
        ("input", figs::DEFAULT_INPUT),
    ];
    let fmax = lookup("b", &b_key, "Fmax MHz");
    let fmax_seeds = seeds("b", &b_key);
    rows.push(TargetRow {
        what: "2K length-4 path queries: ECP5 Fmax".into(),
        target: "≥ 150 MHz".into(),
        measured: fmax.map(|f| format!("{f:.1} MHz{fmax_seeds}")),
        met: fmax.map(|f| f >= 150.0),
        source: format!(
            "(b), cluster size {}, {} input",
            figs::DEFAULT_CLUSTER,
            figs::DEFAULT_INPUT
        ),
    });
    let lut = lookup(
        "a",
        &[("queries", "2048"), ("length", "4"), ("passes", "on")],
        "LUT-eq / node",
    );
    rows.push(TargetRow {
        what: "2K length-4 path queries: LUT-eq per query node (xc6v)".into(),
        target: "≤ 3".into(),
        measured: lut.map(|v| format!("{v:.2}")),
        met: lut.map(|v| v <= 3.0),
        source: "(a), passes on".into(),
    });
    let ct = lookup(
        "c",
        &[("queries", "32000"), ("length", "8")],
        "on-CPU s (median)",
    );
    rows.push(TargetRow {
        what: "32K length-8 queries: compile to Verilog".into(),
        target: "< 1 s".into(),
        measured: ct.map(|v| format!("{v:.3} s on-CPU")),
        met: ct.map(|v| v < 1.0),
        source: "(c)".into(),
    });
    rows.extend(wide_targets(lookup, seeds));
    let rice = lookup("f", &[("N", "32")], "ECP5 Fmax MHz");
    let rice_seeds = seeds("f", &[("N", "32")]);
    rows.push(TargetRow {
        what: "Golomb-Rice no-stall N=32: ECP5 Fmax".into(),
        target: "≥ 150 MHz (≥ 4.8 Gbit/s)".into(),
        measured: rice.map(|f| format!("{f:.1} MHz ({:.2} Gbit/s{rice_seeds})", 32.0 * f / 1000.0)),
        met: rice.map(|f| f >= 150.0),
        source: "(f)".into(),
    });
    rows.extend(programmable_targets(lookup));
    rows
}

/// The programmable engine's targets (issue 27), from fig. (i): the area
/// ratio per query node at every size measured, Fmax at 1K columns, the
/// load time of 1K columns.
fn programmable_targets(lookup: impl Fn(&str, &RowKey, &str) -> Option<f64>) -> Vec<TargetRow> {
    let mut rows = Vec::new();
    let ratios: Vec<(String, f64)> = ["256", "1024", "2048"]
        .iter()
        .filter_map(|n| Some((n.to_string(), lookup("i", &[("columns", n)], "area ratio")?)))
        .collect();
    let worst = ratios.iter().map(|r| r.1).reduce(f64::max);
    rows.push(TargetRow {
        what: "Programmable engine: LUT-eq per configured query node / custom (length-4 paths)"
            .into(),
        target: "≤ 4".into(),
        measured: worst.map(|_| {
            (ratios.iter())
                .map(|(n, r)| format!("{r:.2} at {n} columns"))
                .collect::<Vec<_>>()
                .join(", ")
        }),
        met: worst.map(|w| w <= 4.0),
        source: "(i)".into(),
    });
    let fmax = lookup("i", &[("columns", "1024")], "Fmax MHz");
    rows.push(TargetRow {
        what: "Programmable engine, 1K columns: ECP5 Fmax".into(),
        target: "≥ 150 MHz".into(),
        measured: fmax.map(|f| format!("{f:.1} MHz")),
        met: fmax.map(|f| f >= 150.0),
        source: "(i)".into(),
    });
    let load = lookup("i", &[("columns", "1024")], "load µs at 150 MHz");
    rows.push(TargetRow {
        what: "Programmable engine, 1K columns: configuration load".into(),
        target: "< 10 µs at 150 MHz".into(),
        measured: load.map(|l| format!("{l:.2} µs")),
        met: load.map(|l| l < 10.0),
        source: "(i)".into(),
    });
    rows
}

/// A row key of a figure's table: (column, value) pairs.
type RowKey<'a> = [(&'a str, &'a str)];

/// The multi-byte input targets (issue 26), from fig. (g): ECP5 Fmax of a
/// design at B bytes per clock and the Gbit/s it gives on the NITF
/// documents.
/// `lookup`: a number in a figure's table (figure id, row key, column);
/// `seeds`: ", median of N seeds" of a figure's row.
fn wide_targets(
    lookup: impl Fn(&str, &RowKey, &str) -> Option<f64>,
    seeds: impl Fn(&str, &RowKey) -> String,
) -> Vec<TargetRow> {
    let goals = [
        (
            "2048 × length 4",
            "4",
            150.0,
            "B = 4, 2K length-4 queries: ECP5 Fmax",
        ),
        (
            "256 × length 4",
            "8",
            125.0,
            "B = 8, 256 length-4 queries: ECP5 Fmax",
        ),
        (
            "256 × length 4",
            "8",
            156.25,
            "B = 8, 256 length-4 queries: 10 GbE (stretch)",
        ),
    ];
    goals
        .iter()
        .map(|&(design, b, mhz, what)| {
            let key = [("design", design), ("B", b)];
            let fmax = lookup("g", &key, "Fmax MHz");
            let gbit = lookup("g", &key, "Gbit/s");
            let lanes: f64 = b.parse().unwrap_or(1.0);
            TargetRow {
                what: what.into(),
                target: format!("≥ {mhz} MHz (≥ {:.1} Gbit/s)", 8.0 * lanes * mhz / 1000.0),
                measured: fmax.map(|f| {
                    format!(
                        "{f:.1} MHz{}{}",
                        seeds("g", &key),
                        gbit.map_or(String::new(), |g| format!(", {g:.2} Gbit/s on NITF"))
                    )
                }),
                met: fmax.map(|f| f >= mhz),
                source: format!("(g), {design}, B = {b}"),
            }
        })
        .collect()
}

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse_args(&args, &root) {
        Ok(o) => o,
        Err(e) => {
            if e.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    // Relative paths in the commands and in the RTL (query file names)
    // are relative to the repository root, as in the report's commands.
    if let Err(e) = std::env::set_current_dir(&root) {
        eprintln!("error: {}: {e}", root.display());
        return ExitCode::from(1);
    }
    match run(&o, &root) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn options() {
        let root = Path::new("/repo");
        let o = parse_args(&args(""), root).unwrap();
        assert_eq!(o.seeds, 3);
        assert!(o.selected("a") && o.selected("f"));
        assert_eq!(o.out, Path::new("/repo/bench"));
        let o = parse_args(&args("--quick --only c,e --max-queries 512"), root).unwrap();
        assert_eq!(o.seeds, 1);
        assert!(o.selected("c") && o.selected("e") && !o.selected("a"));
        assert_eq!(o.max_queries, Some(512));
        assert_eq!(
            o.bench_command("c"),
            "target/release/qrtl-bench-report --only c --quick --max-queries 512"
        );
        let o = parse_args(&args("--only b --cluster-sizes 256,2048"), root).unwrap();
        assert_eq!(o.cluster_sizes, vec![256, 2048]);
        assert!(o.bench_command("b").ends_with("--cluster-sizes 256,2048"));
        let o = parse_args(&args("--only a --passes on"), root).unwrap();
        assert_eq!(o.passes, Some(true));
        assert!(o.bench_command("a").ends_with("--passes on"));
        let o = parse_args(
            &args("--only a --passes off --min-queries 8192 --lengths 8"),
            root,
        )
        .unwrap();
        assert_eq!((o.min_queries, o.lengths.clone()), (Some(8192), vec![8]));
        assert!(o
            .bench_command("a")
            .ends_with("--min-queries 8192 --lengths 8 --passes off"));
        let o = parse_args(&args("--only b --inputs broadcast"), root).unwrap();
        assert_eq!(o.inputs, vec![EventInput::Broadcast]);
        assert!(o.bench_command("b").ends_with("--inputs broadcast"));
        let o = parse_args(&args("--only a --only c --lengths 4 --lengths 8"), root).unwrap();
        assert_eq!(
            (o.only.clone(), o.lengths.clone()),
            (vec!["a".to_string(), "c".to_string()], vec![4, 8])
        );
        let o = parse_args(&args("--render-only"), root).unwrap();
        assert!(!o.selected("a") && !o.selected("c"));
        let o = parse_args(&args("--quick --seeds 2 --xpath-seeds 3"), root).unwrap();
        assert_eq!((o.seeds, o.xpath_seeds), (2, 3));
        for (bad, msg) in [
            ("--only z", "unknown figure `z`"),
            ("--only", "needs a value"),
            ("--seeds 0", "--seeds"),
            ("--xpath-seeds x", "--xpath-seeds: `x`"),
            ("--cluster-sizes 64,x", "--cluster-sizes: `x`"),
            ("--inputs serial", "unknown input `serial`"),
            ("--passes maybe", "neither `on` nor `off`"),
            ("--inputs ,", "no input named"),
            ("--max-queries -1", "--max-queries"),
            ("--min-queries x", "--min-queries: `x`"),
            ("--lengths 4,6", "--lengths: `6` is not a length"),
            ("--lengths ,", "no length named"),
            ("--cluster-sizes ,", "--cluster-sizes: no size named"),
            ("--only ,", "--only: no figure named"),
            (
                "--max-width 1.5",
                "--max-width: `1.5` is not a non-negative integer",
            ),
            ("--frobnicate", "unknown argument"),
        ] {
            let e = parse_args(&args(bad), root).unwrap_err();
            assert!(e.contains(msg), "{bad}: {e}");
        }
    }

    #[test]
    fn targets_read_the_figures() {
        let mut stored = BTreeMap::new();
        let mut t = md::Table::new(&[">N", ">ECP5 Fmax MHz", "Fmax per seed"]);
        t.push(vec!["16".into(), "200.0".into(), "200.0".into()]);
        t.push(vec![
            "32".into(),
            "140.5".into(),
            "150.1, 140.5, 139.0".into(),
        ]);
        stored.insert(
            "f".to_string(),
            Figure {
                id: "f".into(),
                file: "fig-f-rice.svg".into(),
                heading: String::new(),
                about: String::new(),
                charts: vec![],
                table: t,
                commands: vec![],
                notes: vec![],
                measured: String::new(),
            },
        );
        let rows = targets(&stored);
        let rice = rows.iter().find(|r| r.what.contains("Golomb")).unwrap();
        assert_eq!(
            rice.measured.as_deref(),
            Some("140.5 MHz (4.50 Gbit/s, median of 3 seeds)")
        );
        assert_eq!(rice.met, Some(false));
        let fmax = rows
            .iter()
            .find(|r| r.what.contains("Fmax") && r.source.starts_with("(b)"));
        assert_eq!(fmax.unwrap().measured, None);
    }
}
