//! Figure (i): the programmable engine (`qrtl xpath compile --programmable`,
//! issue 27): xc6v LUT-eq and ECP5 Fmax of generic designs of N columns;
//! the largest synthetic length-4 path query set each one holds, configured
//! onto it (`qrtl xpath configure`), with its LUT-eq per configured query
//! node beside the custom design's for the same queries (the area ratio),
//! configuration bits per column and load time.

use crate::fig_wide::{synth_cells, SynthCells};
use crate::figs::{chart, design_of, f1, f2, figure, series, synthetic_file, xpath_project};
use crate::md::{Figure, Table};
use crate::plot::HLine;
use crate::synth_points::{Outcome, Runner};
use crate::Options;
use qrtl_core::project::write_project;
use qrtl_core::synth::Target;
use qrtl_xpath::emit::generic::{load_cycles, rtl_refusal, shadow_bits};
use qrtl_xpath::engine::{generic_project_spec, XpathHwOptions};
use qrtl_xpath::ir::generic::{Config, Shape};
use qrtl_xpath::ir::xpath::Namespaces;
use qrtl_xpath::lower::generic::configure;
use qrtl_xpath::xml::XmlConfig;
use std::path::Path;

/// Query counts tried, largest first, when filling a design.
const COUNTS: [usize; 7] = [2048, 1024, 512, 256, 128, 64, 32];

/// The clock the load time is given at (the target: 1K columns in
/// under 10 µs at 150 MHz).
const LOAD_MHZ: f64 = 150.0;

/// The generic design of `columns` columns the figure measures:
/// [`Shape::with_columns`] (clusters of 128, `--cluster-size 128`; the
/// CLI's other defaults: tags = columns / 2, …) with names as bytes, and
/// condition units as far as the RTL builds them.
fn shape(columns: usize) -> Shape {
    let mut s = Shape {
        namespaces: Namespaces::Raw,
        ..Shape::with_columns(columns)
    };
    if rtl_refusal(&s).is_some() {
        s.comparators = 0;
        s.counters = 0;
    }
    s
}

/// The largest synthetic length-4 set of [`COUNTS`] that fits `shape`: its
/// count, file, text and configuration.
fn fill(shape: &Shape) -> Result<Option<(usize, String, String, Config)>, String> {
    for n in COUNTS {
        let (file, text) = synthetic_file(n, 4)?;
        let design = design_of(&file, &text)?;
        if let Ok(config) = configure(&design, shape) {
            return Ok(Some((n, file, text, config)));
        }
    }
    Ok(None)
}

pub fn fig_i(o: &Options, synth: &mut Runner) -> Result<Figure, String> {
    let sizes: &[usize] = if o.quick { &[256] } else { &[256, 1024, 2048] };
    let mut f = figure("i", about());
    f.table = Table::new(&[
        ">columns",
        ">clusters",
        ">xc6v LUT-eq",
        ">LUT-eq / column",
        ">xc6v BRAM36",
        ">ECP5 LUT4",
        ">FFs",
        ">Fmax MHz",
        "Fmax per seed",
        "queries held",
        ">configured columns",
        ">LUT-eq / configured node",
        ">custom LUT-eq / node",
        ">area ratio",
        ">config bits / column",
        ">load clocks",
        ">load µs at 150 MHz",
        "source (xc6v; ECP5; custom xc6v)",
    ]);
    let mut per_col = chart("Area per column (xc6v)", "columns", "LUT-eq / column", true);
    let mut s_col = series("programmable");
    let mut ratio_c = chart(
        "Area ratio per query node (xc6v)",
        "columns",
        "programmable / custom",
        true,
    );
    ratio_c.hlines.push(HLine {
        y: 4.0,
        label: "target ≤ 4".into(),
    });
    let mut s_ratio = series("length-4 path queries");
    for &n in sizes {
        let shape = shape(n);
        let name = format!("i-{n}");
        let dir = format!("bench/out/report/{name}");
        let xml = XmlConfig::with_max_depth(shape.max_depth);
        write_project(Path::new(&dir), &generic_project_spec(&shape, &xml, 200.0))
            .map_err(|e| e.to_string())?;
        f.commands.push(format!(
            "qrtl xpath compile --programmable --columns {n} --cluster-size {} --namespaces raw{} -o {dir} && {} && {}",
            shape.cluster_size,
            if shape.comparators == 0 { " --comparators 0 --counters 0" } else { "" },
            synth.command(&dir, Target::Xc6v, 0),
            synth.command(&dir, Target::Ecp5, o.xpath_seeds)
        ));
        let SynthCells {
            cells,
            lut_eq,
            bram,
            src,
            ..
        } = synth_cells(o, synth, &mut f, &name, &dir, None);
        let mut row = vec![n.to_string(), shape.clusters().to_string()];
        row.push(cells[0].clone());
        row.push(lut_eq.map_or(String::new(), |l| f1(l as f64 / n as f64)));
        row.push(bram.map_or(String::new(), f1));
        row.extend(cells[1..].iter().cloned());
        if let Some(l) = lut_eq {
            s_col.points.push((n as f64, l as f64 / n as f64));
        }
        let mut sources = src;
        match fill(&shape)? {
            Some((q, file, text, config)) => {
                let nodes = 4 * q;
                let words = config.words(1);
                let clocks = load_cycles(&shape, &words);
                let custom = custom_lut_eq(synth, &mut f, q, &file, &text)?;
                let prog = lut_eq.map(|l| l as f64 / nodes as f64);
                let cust = custom.0.map(|l| l as f64 / nodes as f64);
                let ratio = prog.zip(cust).map(|(p, c)| p / c);
                if let Some(r) = ratio {
                    s_ratio.points.push((n as f64, r));
                }
                row.extend([
                    format!("{q} × length 4 ({nodes} nodes)"),
                    format!("{} ({} copies)", config.used_slots(), config.copies),
                    prog.map_or(String::new(), f2),
                    cust.map_or(String::new(), f2),
                    ratio.map_or(String::new(), f2),
                    shadow_bits(&shape).to_string(),
                    clocks.to_string(),
                    f2(clocks as f64 / LOAD_MHZ),
                ]);
                sources = format!("{sources}; {}", custom.1);
            }
            None => {
                f.notes
                    .push(format!("{n} columns: not even 32 synthetic queries fit."));
                row.extend(std::iter::repeat_n(String::new(), 8));
            }
        }
        row.push(sources);
        f.table.push(row);
    }
    per_col.series.push(s_col);
    ratio_c.series.push(s_ratio);
    f.charts.push(per_col);
    f.charts.push(ratio_c);
    f.commands.insert(0, o.bench_command("i"));
    Ok(f)
}

/// The custom design of the same queries (default options, as fig. (a)):
/// its xc6v LUT-eq (from the cache when fig. (a) measured it) and where it
/// came from.
fn custom_lut_eq(
    synth: &mut Runner,
    f: &mut Figure,
    q: usize,
    file: &str,
    text: &str,
) -> Result<(Option<u64>, String), String> {
    let name = format!("i-custom-{q}x4");
    let p = xpath_project(&name, file, text, &XpathHwOptions::default(), "")?;
    f.commands.push(format!(
        "{} && {}",
        p.compile_cmd,
        synth.command(&p.dir, Target::Xc6v, 0)
    ));
    Ok(
        match synth.point(&name, Path::new(&p.dir), Target::Xc6v, 0, None) {
            Outcome::Done(d, s) => (Some(d.lut_eq), s.cell()),
            Outcome::NotMeasured(why) => (None, format!("custom not measured ({why})")),
        },
    )
}

fn about() -> String {
    format!(
        "The programmable engine: `qrtl xpath compile --programmable --columns N --cluster-size \
         128 --namespaces raw` (clusters of 128 columns, the last quarter of each general columns and the \
         others chain columns; tag entries = N / 2 of up to 32 bytes; the default window and \
         condition units: N / 16 comparators, at least 8, N / 64 counters, at least 4), \
         synthesized once for area with `synth_xilinx -family xc6v` and for Fmax \
         with `synth_ecp5` + nextpnr-ecp5 (LFE5U-85F, CABGA381, speed 6; median over the \
         seeds). Each design is then configured (`qrtl xpath configure`) with the largest \
         synthetic length-4 path query set (fig. (a)'s generator, counts {}) that fits it. \
         LUT-eq per configured query node = the design's LUT-eq / (4 × queries); the custom \
         design compiles the same queries with the default options (fig. (a)'s points); the \
         area ratio is programmable / custom. Configuration bits per column: the shadow bits \
         a column's slot word is narrowed to (the stream carries 64 per column). Load clocks: \
         the configuration stream up to its COMMIT (one word a clock; the tag names' bytes \
         are written one a clock from a queue beside the stream, and the COMMIT waits for \
         the last) plus the commit's copy at the document boundary \
         (`emit::generic::load_cycles`); µs at {LOAD_MHZ} MHz.",
        COUNTS
            .iter()
            .rev()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}
