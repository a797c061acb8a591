//! Figures (a)-(f) (fig. (g) is in `fig_wide.rs`): each measures (or takes synthesis points from the
//! cache) and returns a [`Figure`]: charts, table, commands, notes.

use crate::cache::{memory_mapping, now_stamp, project_rtl, PointData};
use crate::md::{Figure, Table};
use crate::plot::{Chart, HLine, Series};
use crate::synth_points::{Outcome, Runner};
use crate::{Options, FIGURES};
use qrtl_core::project::write_project;
use qrtl_core::synth::Target;
use qrtl_core::synth::{count_memories, MemoryMapping, MEMORY_MODULE_ABOVE};
use qrtl_rice::emit::{emit_rice, RiceArch, RiceHwConfig};
use qrtl_rice::engine::rice_project_spec;
use qrtl_rice::refmodel::{BitOrder, RiceConfig, Unary};
use qrtl_xpath::emit::xpath::EventInput;
use qrtl_xpath::engine::{
    build_xpath_hw, simulate_xpath_with, xpath_project_spec, XpathHw, XpathHwOptions,
};
use qrtl_xpath::ir::xpath::{Design, Mode, Namespaces};
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::lower::xpath::lower_file;
use qrtl_xpath::passes::registry::StackPassConfig;
use qrtl_xpath::passes::{run_pipeline, PassConfig};
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::syntax::parse_query_file;
use qrtl_xpath::workload::{
    generate_docs, generate_queries, query_file, synthetic_path_queries, DocGenConfig,
    QueryGenConfig, SyntheticPathConfig, Vocab,
};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The CLI's default cluster size and event input (the targets table
/// reads fig. (b) at these).
pub const DEFAULT_CLUSTER: usize = qrtl_xpath::engine::DEFAULT_CLUSTER_SIZE;
pub const DEFAULT_INPUT: &str = "pipelined";

/// Query lengths (steps) of the synthetic queries of figures (a) and (c).
pub const QUERY_LENGTHS: [usize; 2] = [4, 8];

/// Seed of the synthetic path queries of figures (a)-(c).
const QUERY_SEED: u64 = 1;

/// Where projects and query files go (relative to the repository root,
/// as the commands in the report name them).
const WORK: &str = "bench/out/report";

fn heading(id: &str) -> (&'static str, &'static str) {
    let f = FIGURES.iter().find(|f| f.0 == id).expect("figure id");
    (f.1, f.2)
}

pub(crate) fn figure(id: &str, about: String) -> Figure {
    let (file, heading) = heading(id);
    Figure {
        id: id.to_string(),
        file: file.to_string(),
        heading: heading.to_string(),
        about,
        charts: Vec::new(),
        table: Table::default(),
        commands: Vec::new(),
        notes: Vec::new(),
        measured: now_stamp(),
    }
}

pub(crate) fn chart(title: &str, x: &str, y: &str, x_log: bool) -> Chart {
    Chart {
        title: title.into(),
        x_label: x.into(),
        y_label: y.into(),
        x_log,
        y_log: false,
        series: Vec::new(),
        hlines: Vec::new(),
    }
}

pub(crate) fn series(label: &str) -> Series {
    Series {
        label: label.into(),
        points: Vec::new(),
    }
}

/// Write `text` to `path` unless it already holds exactly that.
pub(crate) fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The synthetic query file of `count` queries of `len` steps: its path
/// (relative to the repository root) and text, written to disk.
pub(crate) fn synthetic_file(count: usize, len: usize) -> Result<(String, String), String> {
    let path = format!("{WORK}/queries/paths-{count}x{len}.txt");
    let text = synthetic_path_queries(&SyntheticPathConfig::new(count, len, QUERY_SEED));
    write_if_changed(Path::new(&path), &text)?;
    Ok((path, text))
}

/// Parse, lower and run the XPath passes as `qrtl xpath compile
/// --namespaces raw` does (holistic mode); `file` names the query file as
/// the CLI would. Figures (a) to (g) measure designs without the namespace
/// unit (names as bytes); (h) puts the unit beside them.
pub(crate) fn design_of(file: &str, text: &str) -> Result<Design, String> {
    design_with(file, text, &NsOptions::raw())
}

/// [`design_of`] with the names compared as `ns` says.
pub(crate) fn design_with(file: &str, text: &str, ns: &NsOptions) -> Result<Design, String> {
    let qf = parse_query_file(file, text);
    if let Some(d) = qf.diagnostics.first() {
        return Err(d.render());
    }
    let design =
        lower_file(file, &qf, ns).map_err(|d| d.first().map(|d| d.render()).unwrap_or_default())?;
    Ok(run_pipeline(
        design,
        &PassConfig {
            mode: Mode::Holistic,
        },
    ))
}

pub(crate) fn build(file: &str, design: &Design, opts: &XpathHwOptions) -> Result<XpathHw, String> {
    build_xpath_hw(file, design, opts).map_err(|d| {
        d.first()
            .map(|d| d.render())
            .unwrap_or_else(|| "compile failed".into())
    })
}

/// The `--cluster-size` / `--disable-pass` flags of `passes`.
fn pass_flags(passes: &StackPassConfig) -> String {
    let mut s = format!("--cluster-size {}", passes.cluster_size);
    for p in &passes.disabled {
        s.push_str(&format!(" --disable-pass {p}"));
    }
    s
}

/// A compiled XPath project on disk, with the design's sizes.
pub(crate) struct XpathProject {
    pub(crate) dir: String,
    /// Query nodes before any stack pass, columns after the last.
    nodes: usize,
    columns: usize,
    clusters: usize,
    pub(crate) compile_cmd: String,
}

/// Compile `file` with `opts` and raw names and write the project to
/// `WORK/name`, with the same functions as `qrtl xpath compile
/// --namespaces raw` (default clock 200 MHz).
pub(crate) fn xpath_project(
    name: &str,
    file: &str,
    text: &str,
    opts: &XpathHwOptions,
    extra_flags: &str,
) -> Result<XpathProject, String> {
    xpath_project_with(name, file, text, opts, extra_flags, &NsOptions::raw())
}

/// [`xpath_project`] with the names compared as `ns` says (the command
/// printed says it too).
pub(crate) fn xpath_project_with(
    name: &str,
    file: &str,
    text: &str,
    opts: &XpathHwOptions,
    extra_flags: &str,
    ns: &NsOptions,
) -> Result<XpathProject, String> {
    let design = design_with(file, text, ns)?;
    let hw = build(file, &design, opts)?;
    let dir = format!("{WORK}/{name}");
    let nodes = hw.before.nodes;
    let columns = hw.reports.last().map_or(hw.before, |r| r.after).columns;
    let clusters = hw.stack.clusters.len();
    let spec = xpath_project_spec(hw, opts, Mode::Holistic, 200.0);
    write_project(Path::new(&dir), &spec).map_err(|e| e.to_string())?;
    let names: String = match ns.mode {
        Namespaces::Raw => " --namespaces raw".into(),
        Namespaces::Xpath => (ns.bindings.iter())
            .map(|(p, u)| format!(" --ns {p}={u}"))
            .collect(),
    };
    let compile_cmd = format!(
        "qrtl xpath compile {file} -o {dir} {}{names}{extra_flags}",
        pass_flags(&opts.passes)
    );
    Ok(XpathProject {
        dir,
        nodes,
        columns,
        clusters,
        compile_cmd,
    })
}

pub(crate) fn f1(x: f64) -> String {
    format!("{x:.1}")
}

pub(crate) fn f2(x: f64) -> String {
    format!("{x:.2}")
}

pub(crate) fn seeds_cell(d: &PointData) -> String {
    d.fmax_seeds
        .iter()
        .map(|f| format!("{f:.1}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn not_measured_note(what: &str, why: &str) -> String {
    format!("{what}: not measured ({why}).")
}

// ---------------------------------------------------------------------------
// (a) LUT-eq per query node (xc6v)
// ---------------------------------------------------------------------------

pub fn fig_a(o: &Options, synth: &mut Runner) -> Result<Figure, String> {
    let counts: &[usize] = if o.quick {
        &[32, 128]
    } else {
        &[32, 128, 512, 2048, 8192]
    };
    let mut f = figure(
        "a",
        format!("Synthetic path queries of 4 and 8 steps compiled with every stack pass on (default \
         options, `--cluster-size 256`) and with every stack pass off (`--disable-pass` for each: \
         one cluster, no prefix sharing, no column compaction), synthesized for area with Yosys \
         `synth_xilinx -family xc6v` through `qrtl synth`. LUT-eq per query node = LUT-eq / \
         (steps of all queries). From 512 queries on, the passes-off cluster is over the \
         emitter's process limits (`RtlShape`: more than 8192 pipeline registers or 64 \
         stack-memory groups), so its registers are assigned in smaller `always` blocks; that \
         changes how long Yosys takes, not the logic. Memories: the memories the RTL declares \
         (stack-memory groups of up to 32 row bits, the parser's name stack); a design with \
         more than {MEMORY_MODULE_ABOVE} has them mapped in a module of their own (`own module`), the same \
         primitives in less Yosys time."),
    );
    f.table = Table::new(&[
        ">queries",
        ">length",
        "passes",
        ">query nodes",
        ">columns after passes",
        ">clusters",
        ">memories",
        ">LUT-eq",
        ">LUT-eq / node",
        ">FFs",
        ">LUTRAM",
        "source",
    ]);
    let mut c = chart(
        "LUT-eq per query node (xc6v)",
        "number of queries",
        "LUT-eq per query node",
        true,
    );
    c.hlines.push(HLine {
        y: 3.0,
        label: "target ≤ 3 (2K, length 4, passes on)".into(),
    });
    for len in QUERY_LENGTHS {
        for on in [true, false] {
            let label = format!("length {len}, passes {}", if on { "on" } else { "off" });
            let mut s = series(&label);
            for &n in counts {
                let passes = StackPassConfig {
                    cluster_size: DEFAULT_CLUSTER,
                    disabled: if on {
                        Vec::new()
                    } else {
                        // Every stack pass that can be disabled.
                        qrtl_xpath::passes::registry::optional_stack_pass_names()
                            .into_iter()
                            .map(str::to_string)
                            .collect()
                    },
                };
                let (file, text) = synthetic_file(n, len)?;
                let name = format!("a-{n}x{len}-{}", if on { "on" } else { "off" });
                let row_head = vec![
                    n.to_string(),
                    len.to_string(),
                    if on { "on" } else { "off" }.to_string(),
                ];
                // Too large for this run: taken from the cache if there,
                // never synthesized.
                let skip = o
                    .max_queries
                    .filter(|&m| n > m)
                    .map(|m| format!("--max-queries {m}"))
                    .or_else(|| {
                        o.min_queries
                            .filter(|&m| n < m)
                            .map(|m| format!("--min-queries {m}"))
                    })
                    .or_else(|| {
                        (!o.lengths.is_empty() && !o.lengths.contains(&len))
                            .then(|| "not in --lengths".to_string())
                    })
                    .or_else(|| {
                        o.passes
                            .is_some_and(|p| p != on)
                            .then(|| "not in --passes".to_string())
                    });
                let p = xpath_project(
                    &name,
                    &file,
                    &text,
                    &XpathHwOptions {
                        passes,
                        ..XpathHwOptions::default()
                    },
                    "",
                )?;
                let nodes = p.nodes;
                if n == counts[0] || n == 2048 {
                    f.commands.push(format!(
                        "{} && {}",
                        p.compile_cmd,
                        synth.command(&p.dir, Target::Xc6v, 0)
                    ));
                }
                let mut row = row_head;
                row.extend([
                    nodes.to_string(),
                    p.columns.to_string(),
                    p.clusters.to_string(),
                    memories_cell(Path::new(&p.dir)),
                ]);
                match synth.point(&name, Path::new(&p.dir), Target::Xc6v, 0, skip.as_deref()) {
                    Outcome::Done(d, src) => {
                        let per = d.lut_eq as f64 / nodes.max(1) as f64;
                        s.points.push((n as f64, per));
                        row.extend([
                            d.lut_eq.to_string(),
                            f2(per),
                            d.ffs.to_string(),
                            d.lutram.to_string(),
                            src.cell(),
                        ]);
                    }
                    Outcome::NotMeasured(why) => {
                        f.notes.push(not_measured_note(&name, &why));
                        row.extend(["".into(), "".into(), "".into(), "".into()]);
                        row.push(format!("not measured ({why})"));
                    }
                }
                f.table.push(row);
            }
            c.series.push(s);
        }
    }
    f.commands.push(
        "# the other points: the same with paths-NxL.txt for N = 32…8192, L = 4, 8 and -o bench/out/report/a-NxL-on|off"
            .into(),
    );
    f.charts.push(c);
    Ok(f)
}

/// The memories a project's RTL declares, and `own module` when `qrtl
/// synth` maps them in a module of their own.
fn memories_cell(dir: &Path) -> String {
    let Ok(rtl) = project_rtl(dir) else {
        return String::new();
    };
    let n: usize = rtl
        .iter()
        .map(|(_, t)| count_memories(&String::from_utf8_lossy(t)))
        .sum();
    match memory_mapping(&rtl) {
        MemoryMapping::OwnModule => format!("{n} (own module)"),
        MemoryMapping::InPlace => n.to_string(),
    }
}

// ---------------------------------------------------------------------------
// (b) ECP5 Fmax vs cluster size
// ---------------------------------------------------------------------------

pub fn fig_b(o: &Options, synth: &mut Runner) -> Result<Figure, String> {
    let (count, sizes): (usize, &[usize]) = if o.quick {
        (256, &[32, 64, 128, 256])
    } else {
        (2048, &[32, 64, 128, 256, 512, 2048])
    };
    let mut f = figure(
        "b",
        format!(
            "{count} synthetic length-4 path queries, every stack pass on, compiled with each \
             cluster size, synthesized with Yosys `synth_ecp5` and placed and routed with \
             nextpnr-ecp5 (LFE5U-85F, CABGA381, speed 6) through `qrtl synth --target ecp5`; \
             Fmax is the median over the seeds. Event input (`--input`): `pipelined` \
             registers the parser's events from cluster to cluster (no net fans out to every \
             cluster), `broadcast` drives every cluster from the parser directly."
        ),
    );
    f.table = Table::new(&[
        ">cluster size",
        "input",
        ">clusters",
        ">ECP5 LUT4",
        ">FFs",
        ">Fmax MHz",
        "Fmax per seed",
        "source",
    ]);
    let mut c = chart(
        &format!("ECP5 Fmax, {count} length-4 queries"),
        "cluster size (queries per cluster)",
        "Fmax (MHz)",
        true,
    );
    c.hlines.push(HLine {
        y: 150.0,
        label: "target ≥ 150 MHz".into(),
    });
    let (file, text) = synthetic_file(count, 4)?;
    // The RTL of the first input's project per cluster size: with one
    // cluster there is nothing to pipeline, and the inputs give one design.
    let mut first_rtl: std::collections::BTreeMap<usize, (String, Vec<(String, Vec<u8>)>)> =
        std::collections::BTreeMap::new();
    for input in EventInput::ALL {
        let input_flag = format!(" --input {}", input.name());
        let label = input.name();
        let mut s = series(&format!("{label} input"));
        for &size in sizes {
            let name = format!("b-{count}x4-c{size}-{label}");
            let skip = if o.max_queries.is_some_and(|m| count > m) {
                Some(format!("--max-queries {}", o.max_queries.unwrap_or(0)))
            } else if !o.cluster_sizes.is_empty() && !o.cluster_sizes.contains(&size) {
                Some("not in --cluster-sizes".to_string())
            } else if !o.inputs.is_empty() && !o.inputs.contains(&input) {
                Some("not in --inputs".to_string())
            } else {
                None
            };
            let opts = XpathHwOptions {
                passes: StackPassConfig {
                    cluster_size: size,
                    disabled: Vec::new(),
                },
                input,
                ..XpathHwOptions::default()
            };
            let p = xpath_project(&name, &file, &text, &opts, &input_flag)?;
            f.commands.push(format!(
                "{} && {}",
                p.compile_cmd,
                synth.command(&p.dir, Target::Ecp5, o.xpath_seeds)
            ));
            if let Ok(rtl) = project_rtl(Path::new(&p.dir)) {
                match first_rtl.get(&size) {
                    Some((other, r)) if *r == rtl => f.notes.push(format!(
                        "{name}: the same RTL as {other} ({} cluster(s): the event input \
                         reaches them the same way), so the same synthesis point.",
                        p.clusters
                    )),
                    Some(_) => {}
                    None => {
                        first_rtl.insert(size, (name.clone(), rtl));
                    }
                }
            }
            let mut row = vec![size.to_string(), label.to_string(), p.clusters.to_string()];
            match synth.point(
                &name,
                Path::new(&p.dir),
                Target::Ecp5,
                o.xpath_seeds,
                skip.as_deref(),
            ) {
                Outcome::Done(d, src) => {
                    if let Some(fm) = d.fmax_mhz {
                        s.points.push((size as f64, fm));
                    }
                    row.extend([
                        d.luts.to_string(),
                        d.ffs.to_string(),
                        d.fmax_mhz.map_or("—".into(), f1),
                        seeds_cell(&d),
                        src.cell(),
                    ]);
                }
                Outcome::NotMeasured(why) => {
                    f.notes.push(not_measured_note(&name, &why));
                    row.extend(["".into(), "".into(), "".into(), "".into()]);
                    row.push(format!("not measured ({why})"));
                }
            }
            f.table.push(row);
        }
        c.series.push(s);
    }
    f.charts.push(c);
    Ok(f)
}

// ---------------------------------------------------------------------------
// (c) compile time
// ---------------------------------------------------------------------------

/// One timed in-process compile: parse + lower + passes + Verilog text;
/// wall-clock and on-CPU seconds.
fn timed_compile(file: &str, text: &str) -> Result<(f64, Option<f64>, XpathHw), String> {
    let (hw, wall, cpu) = timed(|| {
        let design = design_of(file, text)?;
        build(file, &design, &XpathHwOptions::default())
    });
    Ok((wall, cpu, black_box(hw?)))
}

/// Seconds this thread has spent on a CPU (`CLOCK_THREAD_CPUTIME_ID`), to
/// tell the compiler's and engine's speed from a busy machine's (as
/// `qrtl-bench` does).
#[cfg(target_os = "linux")]
fn cpu_seconds() -> Option<f64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec (64-bit Linux layout).
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0 && cfg!(target_pointer_width = "64"))
        .then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

#[cfg(not(target_os = "linux"))]
fn cpu_seconds() -> Option<f64> {
    None
}

/// On-CPU seconds (user + system) of the waited-for child processes so far.
#[cfg(target_os = "linux")]
fn children_cpu_seconds() -> Option<f64> {
    #[repr(C)]
    struct Timeval {
        tv_sec: i64,
        tv_usec: i64,
    }
    #[repr(C)]
    struct Rusage {
        ru_utime: Timeval,
        ru_stime: Timeval,
        rest: [i64; 14],
    }
    extern "C" {
        fn getrusage(who: i32, usage: *mut Rusage) -> i32;
    }
    const RUSAGE_CHILDREN: i32 = -1;
    let mut ru = Rusage {
        ru_utime: Timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        ru_stime: Timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        rest: [0; 14],
    };
    // SAFETY: `ru` is a valid, writable rusage (64-bit Linux layout).
    let rc = unsafe { getrusage(RUSAGE_CHILDREN, &mut ru) };
    let t = |v: &Timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    (rc == 0 && cfg!(target_pointer_width = "64")).then(|| t(&ru.ru_utime) + t(&ru.ru_stime))
}

#[cfg(not(target_os = "linux"))]
fn children_cpu_seconds() -> Option<f64> {
    None
}

/// Wall-clock and on-CPU seconds of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, Option<f64>) {
    let c0 = cpu_seconds();
    let t = Instant::now();
    let r = f();
    let wall = t.elapsed().as_secs_f64();
    let cpu = match (c0, cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    (r, wall, cpu)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn fig_c(o: &Options) -> Result<Figure, String> {
    let counts: &[usize] = if o.quick {
        &[1000, 2000]
    } else {
        &[1000, 2000, 4000, 8000, 16000, 32000]
    };
    const RUNS: usize = 3;
    let mut f = figure(
        "c",
        format!(
            "In-process compile of synthetic path queries with default options: parse + lower + \
             XPath passes + stack IR + stack passes + Verilog text (`build_xpath_hw`), the query \
             text already in memory and nothing written to disk; median of {RUNS} runs, one \
             thread. On-CPU seconds count only the time the thread was on a CPU \
             (`CLOCK_THREAD_CPUTIME_ID`), what one core delivers when the machine is shared; \
             the target is checked against it."
        ),
    );
    f.table = Table::new(&[
        ">queries",
        ">length",
        ">compile s (median)",
        ">on-CPU s (median)",
        "runs s",
        ">Verilog MB",
        ">clusters",
        ">query nodes",
        ">columns after passes",
    ]);
    let mut c = chart(
        "Compile time (parse → Verilog text)",
        "number of queries",
        "seconds (median of 3)",
        true,
    );
    c.hlines.push(HLine {
        y: 1.0,
        label: "target < 1 s (32K, length 8)".into(),
    });
    for len in QUERY_LENGTHS {
        let mut s = series(&format!("length {len}"));
        for &n in counts {
            let (file, text) = synthetic_file(n, len)?;
            let mut times = Vec::new();
            let mut cpus = Vec::new();
            let mut last = None;
            for _ in 0..RUNS {
                let (t, cpu, hw) = timed_compile(&file, &text)?;
                times.push(t);
                cpus.extend(cpu);
                last = Some(hw);
            }
            let hw = last.expect("RUNS > 0");
            let runs = times
                .iter()
                .map(|t| format!("{t:.3}"))
                .collect::<Vec<_>>()
                .join(", ");
            let med = median(&mut times);
            let cpu_med = (cpus.len() == RUNS).then(|| median(&mut cpus));
            s.points.push((n as f64, med));
            let after = hw.reports.last().map_or(hw.before, |r| r.after);
            f.table.push(vec![
                n.to_string(),
                len.to_string(),
                format!("{med:.3}"),
                cpu_med.map_or("—".into(), |c| format!("{c:.3}")),
                runs,
                format!(
                    "{:.1}",
                    hw.rtl.files.iter().map(|f| f.text.len()).sum::<usize>() as f64 / 1e6
                ),
                hw.stack.clusters.len().to_string(),
                hw.before.nodes.to_string(),
                after.columns.to_string(),
            ]);
            eprintln!("   {n} x {len}: {med:.3} s");
        }
        c.series.push(s);
    }
    f.commands.push(o.bench_command("c"));
    let big = counts[counts.len() - 1];
    f.commands.push(format!(
        "# the same through the CLI (also reads the file and writes the project): time qrtl xpath compile {WORK}/queries/paths-{big}x8.txt -o /tmp/qrtl-{big}x8 --namespaces raw"
    ));
    f.charts.push(c);
    Ok(f)
}

// ---------------------------------------------------------------------------
// (d) Verilator
// ---------------------------------------------------------------------------

pub(crate) fn nitf_docs() -> Result<(PathBuf, Vec<Vec<u8>>), String> {
    let dir = qrtl_xpath::workload::nitf_dir().join("docs");
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    paths.sort();
    let docs = paths
        .iter()
        .map(|p| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((dir, docs))
}

/// Generated NITF path queries (YFilter-style: depth ≤ 8, 15% `*`, 15%
/// `//`, distinct), written to `WORK/queries/nitf-N.txt`.
pub(crate) fn nitf_query_file(count: usize) -> Result<(String, String), String> {
    let q = generate_queries(
        Vocab::nitf(),
        &QueryGenConfig {
            seed: 7,
            count,
            ..QueryGenConfig::default()
        },
    );
    let path = format!("{WORK}/queries/nitf-{count}.txt");
    let text = query_file(&q);
    write_if_changed(Path::new(&path), &text)?;
    Ok((path, text))
}

pub fn fig_d(o: &Options) -> Result<Figure, String> {
    let counts: &[usize] = if o.quick { &[32] } else { &[32, 200, 1000] };
    const REPEAT: usize = 4;
    let (doc_dir, docs) = nitf_docs()?;
    let stream: Vec<Vec<u8>> = (0..REPEAT).flat_map(|_| docs.iter().cloned()).collect();
    let bytes: usize = stream.iter().map(Vec::len).sum();
    let mut f = figure(
        "d",
        format!(
            "Generated NITF path queries (YFilter-style walks over the NITF grammar: depth ≤ 8, \
             15% `*`, 15% `//`, distinct; seed 7) compiled with default options and simulated in \
             Verilator (optimized C++) on YFilter's {} NITF documents streamed {REPEAT} times \
             ({bytes} bytes, one AXI4-Stream packet per document, no stalls). Each design is \
             built and run once (the results checked against the software engine), then run \
             again on the cached build, timed: simulated cycles per wall-clock second and per \
             on-CPU second of the simulation process (the latter holds on a busy machine).",
            docs.len()
        ),
    );
    f.table = Table::new(&[
        ">queries",
        ">clusters",
        ">columns",
        ">build s",
        "build",
        ">cycles",
        ">cycles / byte",
        ">run s",
        ">on-CPU s",
        ">simulated kcycles/s",
        ">kcycles per on-CPU s",
        "matches = engine",
    ]);
    let mut speed = chart(
        "Verilator speed",
        "number of queries",
        "simulated kcycles per second",
        true,
    );
    let mut cpb = chart(
        "Clock cycles per document byte",
        "number of queries",
        "cycles / byte",
        true,
    );
    let mut s_speed = series("kcycles/s (wall clock)");
    let mut s_cpu = series("kcycles per on-CPU second");
    let mut s_cpb = series("cycles / byte");
    for &n in counts {
        if o.max_queries.is_some_and(|m| n > m) {
            let why = format!("--max-queries {}", o.max_queries.unwrap_or(0));
            f.notes
                .push(not_measured_note(&format!("{n} queries"), &why));
            f.table
                .push(vec![n.to_string(), format!("not measured ({why})")]);
            continue;
        }
        let (file, text) = nitf_query_file(n)?;
        let design = design_of(&file, &text)?;
        let hw = build(&file, &design, &XpathHwOptions::default())?;
        let sim = || {
            simulate_xpath_with(
                &hw,
                &stream,
                qrtl_core::sim::Simulator::Verilator,
                &qrtl_core::sim::Stalls::NONE,
                None,
                &qrtl_core::sim::BuildOptions::default(),
            )
        };
        // Build (or take the cached build) and check; then time a run on
        // the cached build.
        let first = sim();
        let built = first
            .as_ref()
            .ok()
            .map(|r| (r.build.build_time, r.build.cached));
        let c0 = children_cpu_seconds();
        let t = Instant::now();
        let run = first.and_then(|_| sim());
        let wall = t.elapsed().as_secs_f64();
        let cpu = match (c0, children_cpu_seconds()) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
        let run = match run {
            Ok(r) => r,
            Err(e) => {
                f.notes.push(not_measured_note(&format!("{n} queries"), &e));
                f.table
                    .push(vec![n.to_string(), format!("not measured ({e})")]);
                continue;
            }
        };
        let (build_time, was_cached) = built.unwrap_or_default();
        let wall = wall - run.build.build_time.as_secs_f64();
        if !f.notes.iter().any(|n| n.starts_with("Simulator:")) {
            f.notes
                .push(format!("Simulator: {}.", run.build.tool_version.trim()));
        }
        // Oracle: the software engine on the same documents.
        let mut engine = Engine::new(&design, EngineConfig::default());
        let agree = docs.iter().zip(&run.docs).all(|(d, hwr)| {
            let mut sw = engine.filter(d).matched;
            sw.sort_unstable();
            let mut h = hwr.result.matched.clone();
            h.sort_unstable();
            sw == h
        });
        let cycles = run.run.total_cycles;
        let kcps = cycles as f64 / wall.max(1e-9) / 1e3;
        let cpu_kcps = cpu.map(|c| cycles as f64 / c.max(1e-9) / 1e3);
        let per_byte = cycles as f64 / bytes as f64;
        s_speed.points.push((n as f64, kcps));
        s_cpu.points.extend(cpu_kcps.map(|k| (n as f64, k)));
        s_cpb.points.push((n as f64, per_byte));
        let after = hw.reports.last().map_or(hw.before, |r| r.after);
        f.table.push(vec![
            n.to_string(),
            hw.stack.clusters.len().to_string(),
            after.columns.to_string(),
            f1(build_time.as_secs_f64()),
            if was_cached { "cached" } else { "built" }.into(),
            cycles.to_string(),
            format!("{per_byte:.4}"),
            f2(wall),
            cpu.map_or("—".into(), f2),
            f1(kcps),
            cpu_kcps.map_or("—".into(), f1),
            if agree { "yes" } else { "NO" }.into(),
        ]);
        eprintln!(
            "   {n} queries: {kcps:.1} kcycles/s, {} kcycles per on-CPU s, {per_byte:.4} cycles/byte",
            cpu_kcps.map_or("—".into(), f1)
        );
        f.commands.push(format!(
            "qrtl xpath sim {file} {}/*.xml --namespaces raw   # once per document set; the bench streams the set {REPEAT} times",
            doc_dir.display()
        ));
    }
    f.commands.insert(0, o.bench_command("d"));
    speed.series.push(s_speed);
    speed.series.push(s_cpu);
    cpb.series.push(s_cpb);
    f.notes.push(
        "A cached build (`~/.cache/qrtl/sim`, keyed by the RTL) is reused: the build time is then the cache lookup."
            .into(),
    );
    f.charts.push(speed);
    f.charts.push(cpb);
    Ok(f)
}

// ---------------------------------------------------------------------------
// (e) software engine
// ---------------------------------------------------------------------------

pub fn fig_e(o: &Options) -> Result<Figure, String> {
    let (counts, target_bytes): (&[usize], usize) = if o.quick {
        (&[10, 100, 1000], 1_000_000)
    } else {
        (&[10, 100, 1000, 10_000, 100_000], 10_000_000)
    };
    const WARM: usize = 3;
    let docs = generate_docs(
        Vocab::nitf(),
        &DocGenConfig {
            seed: 2024,
            target_bytes,
            doc_bytes: (10_000, 50_000),
            ..DocGenConfig::default()
        },
    );
    let bytes: usize = docs.iter().map(Vec::len).sum();
    let mut f = figure(
        "e",
        format!(
            "The software filtering engine (`Engine::filter` per document, holistic mode, one \
             thread) on {} generated NITF-vocabulary documents ({:.1} MB, 10–50 KB each, seed \
             2024) with generated NITF path queries (depth ≤ 8, 15% `*`, 15% `//`, distinct, seed \
             7). First pass: a fresh engine (empty state cache); warm: median of {WARM} further \
             passes over the corpus (on-CPU: bytes / time the thread was on a CPU). MB = 10^6 \
             bytes.",
            docs.len(),
            bytes as f64 / 1e6
        ),
    );
    f.table = Table::new(&[
        ">queries",
        ">compile ms",
        ">first pass MB/s",
        ">warm MB/s (median)",
        ">warm MB/s on-CPU",
        "warm runs MB/s",
        ">matches per doc",
    ]);
    let mut c = chart(
        "Software engine throughput",
        "number of queries",
        "MB/s",
        true,
    );
    let mut warm_s = series("warm (median of 3)");
    let mut first_s = series("first pass");
    let mut cpu_s = series("warm, on-CPU");
    for &n in counts {
        let (file, text) = nitf_query_file(n)?;
        let t = Instant::now();
        let design = design_of(&file, &text)?;
        let mut engine = Engine::new(&design, EngineConfig::default());
        let compile_ms = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let mut matches = 0usize;
        for d in &docs {
            matches += engine.filter(black_box(d)).matched.len();
        }
        let first = bytes as f64 / t.elapsed().as_secs_f64() / 1e6;
        let mut warm = Vec::new();
        let mut warm_cpu = Vec::new();
        for _ in 0..WARM {
            let ((), wall, cpu) = timed(|| {
                for d in &docs {
                    black_box(engine.filter(black_box(d)));
                }
            });
            warm.push(bytes as f64 / wall / 1e6);
            warm_cpu.extend(cpu.map(|c| bytes as f64 / c / 1e6));
        }
        let runs = warm.iter().map(|w| f1(*w)).collect::<Vec<_>>().join(", ");
        let med = median(&mut warm);
        let cpu_med = (warm_cpu.len() == WARM).then(|| median(&mut warm_cpu));
        let actual = design.queries.len();
        warm_s.points.push((actual as f64, med));
        if let Some(c) = cpu_med {
            cpu_s.points.push((actual as f64, c));
        }
        first_s.points.push((actual as f64, first));
        f.table.push(vec![
            actual.to_string(),
            format!("{compile_ms:.0}"),
            f1(first),
            f1(med),
            cpu_med.map_or("—".into(), f1),
            runs,
            f2(matches as f64 / docs.len() as f64),
        ]);
        eprintln!("   {actual} queries: {med:.1} MB/s warm, {first:.1} MB/s first pass");
    }
    c.series.push(warm_s);
    c.series.push(cpu_s);
    c.series.push(first_s);
    f.commands.push(o.bench_command("e"));
    f.commands.push(format!(
        "# the CLI equivalent on files: qrtl xpath filter {WORK}/queries/nitf-N.txt DOCS... --namespaces raw"
    ));
    f.charts.push(c);
    Ok(f)
}

// ---------------------------------------------------------------------------
// (f) Golomb-Rice no-stall decoder
// ---------------------------------------------------------------------------

pub fn fig_f(o: &Options, synth: &mut Runner) -> Result<Figure, String> {
    let widths: &[u32] = if o.quick { &[8, 32] } else { &[8, 16, 32, 64] };
    let mut f = figure(
        "f",
        "The Golomb-Rice no-stall decoder (`--arch nostall --k 3 --value-bits 16`, N stream bits \
         per clock), synthesized for area with `synth_xilinx -family xc6v` and for Fmax with \
         `synth_ecp5` + nextpnr-ecp5 (LFE5U-85F, CABGA381, speed 6). Gbit/s = N × Fmax / 1000 \
         (one N-bit beat per clock, never stalling)."
            .into(),
    );
    f.table = Table::new(&[
        ">N",
        ">xc6v LUT-eq",
        ">xc6v FFs",
        ">ECP5 LUT4",
        ">ECP5 FFs",
        ">ECP5 Fmax MHz",
        "Fmax per seed",
        ">Gbit/s",
        "source (xc6v; ECP5)",
    ]);
    let mut fmax_c = chart("ECP5 Fmax", "N (bits per clock)", "Fmax (MHz)", false);
    fmax_c.hlines.push(HLine {
        y: 150.0,
        label: "target ≥ 150 MHz (N = 32)".into(),
    });
    let mut gbit_c = chart("Throughput", "N (bits per clock)", "Gbit/s", false);
    gbit_c.hlines.push(HLine {
        y: 4.8,
        label: "target ≥ 4.8 Gbit/s (N = 32)".into(),
    });
    let mut area_c = chart("Area", "N (bits per clock)", "LUTs", false);
    let mut s_fmax = series("ECP5 Fmax");
    let mut s_gbit = series("N × Fmax");
    let mut s_xc6v = series("xc6v LUT-eq");
    let mut s_ecp5 = series("ECP5 LUT4");
    for &n in widths {
        let cfg = RiceHwConfig {
            code: RiceConfig {
                k: 3,
                unary: Unary::Zeros,
                bit_order: BitOrder::Msb,
                width: 16,
            },
            chunk_bits: n,
            arch: RiceArch::NoStall,
        };
        let skip = o
            .max_width
            .filter(|&m| n > m)
            .map(|m| format!("--max-width {m}"));
        cfg.validate().map_err(|e| e.to_string())?;
        let rtl = emit_rice(&cfg).map_err(|e| e.to_string())?;
        let dir = format!("{WORK}/f-rice-n{n}");
        write_project(Path::new(&dir), &rice_project_spec(&rtl, &cfg, 200.0))
            .map_err(|e| e.to_string())?;
        f.commands.push(format!(
            "qrtl rice compile --arch nostall --k 3 --width {n} --value-bits 16 -o {dir} && {} && {}",
            synth.command(&dir, Target::Xc6v, 0),
            synth.command(&dir, Target::Ecp5, o.seeds)
        ));
        let label = format!("rice N={n}");
        let x = synth.point(&label, Path::new(&dir), Target::Xc6v, 0, skip.as_deref());
        let e = synth.point(
            &label,
            Path::new(&dir),
            Target::Ecp5,
            o.seeds,
            skip.as_deref(),
        );
        let mut row = vec![n.to_string()];
        let mut src = Vec::new();
        match &x {
            Outcome::Done(d, s) => {
                s_xc6v.points.push((f64::from(n), d.lut_eq as f64));
                row.extend([d.lut_eq.to_string(), d.ffs.to_string()]);
                src.push(s.cell());
            }
            Outcome::NotMeasured(why) => {
                f.notes
                    .push(not_measured_note(&format!("{label} xc6v"), why));
                row.extend(["".into(), "".into()]);
                src.push(format!("not measured ({why})"));
            }
        }
        match &e {
            Outcome::Done(d, s) => {
                s_ecp5.points.push((f64::from(n), d.luts as f64));
                let gbit = d.fmax_mhz.map(|fm| f64::from(n) * fm / 1000.0);
                if let (Some(fm), Some(g)) = (d.fmax_mhz, gbit) {
                    s_fmax.points.push((f64::from(n), fm));
                    s_gbit.points.push((f64::from(n), g));
                }
                row.extend([
                    d.luts.to_string(),
                    d.ffs.to_string(),
                    d.fmax_mhz.map_or("—".into(), f1),
                    seeds_cell(d),
                    gbit.map_or("—".into(), f2),
                ]);
                src.push(s.cell());
            }
            Outcome::NotMeasured(why) => {
                f.notes
                    .push(not_measured_note(&format!("{label} ECP5"), why));
                row.extend(["".into(), "".into(), "".into(), "".into(), "".into()]);
                src.push(format!("not measured ({why})"));
            }
        }
        row.push(src.join("; "));
        f.table.push(row);
    }
    fmax_c.series.push(s_fmax);
    gbit_c.series.push(s_gbit);
    area_c.series.push(s_xc6v);
    area_c.series.push(s_ecp5);
    f.charts.extend([fmax_c, gbit_c, area_c]);
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn flags_name_every_disabled_pass() {
        let p = StackPassConfig {
            cluster_size: 128,
            disabled: vec!["cluster".into(), "compaction".into()],
        };
        assert_eq!(
            pass_flags(&p),
            "--cluster-size 128 --disable-pass cluster --disable-pass compaction"
        );
    }

    #[test]
    fn synthetic_queries_have_the_asked_shape() {
        let text = synthetic_path_queries(&SyntheticPathConfig::new(50, 4, QUERY_SEED));
        assert_eq!(text.lines().count(), 50);
        let design = design_of("q.txt", &text).unwrap();
        assert_eq!(design.queries.len(), 50);
        for l in text.lines() {
            assert_eq!(l.matches('/').count() - l.matches("//").count(), 4, "{l}");
        }
        // Deterministic for a seed, different for another.
        assert_eq!(
            text,
            synthetic_path_queries(&SyntheticPathConfig::new(50, 4, QUERY_SEED))
        );
        assert_ne!(
            text,
            synthetic_path_queries(&SyntheticPathConfig::new(50, 4, QUERY_SEED + 1))
        );
    }
}
