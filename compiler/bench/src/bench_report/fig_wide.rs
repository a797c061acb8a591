//! Figure (g): multi-byte input (`--bytes-per-clock` B = 1, 2, 4, 8):
//! xc6v LUT-eq and ECP5 Fmax of synthetic length-4 path query designs and
//! of the parser with one query, sustained bytes per clock in Verilator
//! on the NITF documents, generated documents and a markup-only worst
//! case, and Gbit/s = 8 × sustained bytes per clock × Fmax.

use crate::figs::{
    build, chart, design_of, f1, f2, figure, nitf_docs, nitf_query_file, not_measured_note,
    seeds_cell, series, synthetic_file, write_if_changed, xpath_project,
};
use crate::md::{Figure, Table};
use crate::plot::{HLine, Series};
use crate::synth_points::{Outcome, Runner};
use crate::Options;
use qrtl_core::sim::{BuildOptions, Simulator, Stalls};
use qrtl_core::synth::Target;
use qrtl_xpath::engine::{simulate_xpath_with, XpathHwOptions};
use qrtl_xpath::refmodel::{Engine, EngineConfig};
use qrtl_xpath::workload::{DocGen, DocGenConfig, Vocab};
use std::collections::BTreeMap;
use std::path::Path;

/// Bytes per clock measured.
const LANES: [u32; 4] = [1, 2, 4, 8];

/// The one-query design that stands for the parser alone.
const PARSER_QUERY: &str = "//a\n";

/// A document set of the sustained-rate runs: label and documents.
type DocSet = (&'static str, Vec<Vec<u8>>);

/// The document sets of the sustained-rate runs.
fn doc_sets(o: &Options) -> Result<Vec<DocSet>, String> {
    let (_, nitf) = nitf_docs()?;
    let generated = DocGen::new(
        Vocab::nitf(),
        DocGenConfig {
            seed: 26,
            target_bytes: if o.quick { 200_000 } else { 1_000_000 },
            doc_bytes: (2_000, 20_000),
            ..DocGenConfig::default()
        },
    )
    .corpus();
    let worst = vec![format!("<r>{}</r>", "<a/>".repeat(2_000)).into_bytes(); 4];
    Ok(vec![
        ("NITF", nitf),
        ("generated", generated),
        ("worst <a/>", worst),
    ])
}

/// Sustained bytes per clock of a 200-query NITF design at `lanes` on each
/// document set (Verilator, no stalls), with whether its matches equal
/// the software engine's.
fn sustained(lanes: u32, sets: &[DocSet]) -> Result<(Vec<f64>, bool), String> {
    let (file, text) = nitf_query_file(200)?;
    let design = design_of(&file, &text)?;
    let hw = build(
        &file,
        &design,
        &XpathHwOptions {
            bytes_per_clock: lanes,
            ..XpathHwOptions::default()
        },
    )?;
    let mut engine = Engine::new(&design, EngineConfig::default());
    let mut rates = Vec::new();
    let mut agree = true;
    for (_, docs) in sets {
        let run = simulate_xpath_with(
            &hw,
            docs,
            Simulator::Verilator,
            &Stalls::NONE,
            None,
            &BuildOptions::default(),
        )?;
        let bytes: usize = docs.iter().map(Vec::len).sum();
        rates.push(bytes as f64 / run.run.total_cycles.max(1) as f64);
        agree &= docs.iter().zip(&run.docs).all(|(d, h)| {
            let mut sw = engine.filter(d).matched;
            sw.sort_unstable();
            let mut hm = h.result.matched.clone();
            hm.sort_unstable();
            sw == hm
        });
    }
    Ok((rates, agree))
}

/// The designs synthesized: label, query file and text.
fn designs(o: &Options) -> Result<Vec<(String, String, String)>, String> {
    let mut out = Vec::new();
    let path = "bench/out/report/queries/parser-1.txt".to_string();
    write_if_changed(Path::new(&path), PARSER_QUERY)?;
    out.push((
        "parser + 1 query".to_string(),
        path,
        PARSER_QUERY.to_string(),
    ));
    let counts: &[usize] = if o.quick { &[256] } else { &[256, 2048] };
    for &n in counts {
        let (file, text) = synthetic_file(n, 4)?;
        out.push((format!("{n} × length 4"), file, text));
    }
    Ok(out)
}

/// Synthesis of one design, as a table shows it.
pub(crate) struct SynthCells {
    /// xc6v LUT-eq, ECP5 LUT4, FFs, Fmax, seeds.
    pub cells: Vec<String>,
    pub fmax: Option<f64>,
    pub lut_eq: Option<u64>,
    /// xc6v block RAM (36 Kbit tiles).
    pub bram: Option<f64>,
    /// Where each figure came from.
    pub src: String,
}

/// Synthesis of one design for xc6v area and ECP5 Fmax.
pub(crate) fn synth_cells(
    o: &Options,
    synth: &mut Runner,
    f: &mut Figure,
    name: &str,
    dir: &str,
    skip: Option<&str>,
) -> SynthCells {
    let mut cells = Vec::new();
    let mut src = Vec::new();
    let mut lut_eq = None;
    let mut bram = None;
    match synth.point(name, Path::new(dir), Target::Xc6v, 0, skip) {
        Outcome::Done(d, s) => {
            lut_eq = Some(d.lut_eq);
            bram = Some(d.bram);
            cells.push(d.lut_eq.to_string());
            src.push(s.cell());
        }
        Outcome::NotMeasured(why) => {
            f.notes
                .push(not_measured_note(&format!("{name} xc6v"), &why));
            cells.push(String::new());
            src.push(format!("not measured ({why})"));
        }
    }
    let mut fmax = None;
    match synth.point(name, Path::new(dir), Target::Ecp5, o.seeds, skip) {
        Outcome::Done(d, s) => {
            fmax = d.fmax_mhz;
            cells.extend([
                d.luts.to_string(),
                d.ffs.to_string(),
                d.fmax_mhz.map_or("—".into(), f1),
                seeds_cell(&d),
            ]);
            src.push(s.cell());
        }
        Outcome::NotMeasured(why) => {
            f.notes
                .push(not_measured_note(&format!("{name} ECP5"), &why));
            cells.extend([String::new(), String::new(), String::new(), String::new()]);
            src.push(format!("not measured ({why})"));
        }
    }
    SynthCells {
        cells,
        fmax,
        lut_eq,
        bram,
        src: src.join("; "),
    }
}

pub fn fig_g(o: &Options, synth: &mut Runner) -> Result<Figure, String> {
    let sets = doc_sets(o)?;
    let mut f = figure(
        "g",
        "Multi-byte input: `qrtl xpath compile --bytes-per-clock B --namespaces raw` (default \
         options otherwise), \
         synthesized for area with `synth_xilinx -family xc6v` and for Fmax with `synth_ecp5` + \
         nextpnr-ecp5 (LFE5U-85F, CABGA381, speed 6; median over the seeds). Designs: the \
         parser with one query (`//a`: the front end, the parser and a one-column cluster), and \
         synthetic length-4 path queries. Sustained bytes per clock: a 200-query NITF design \
         (fig. (d)'s queries) at each B simulated in Verilator without stalls on YFilter's NITF \
         documents, on generated NITF-like documents (seed 26) and on a markup-only worst case \
         (`<r>` + `<a/>` × 2000 + `</r>`, 4 documents); bytes / total cycles of the run, \
         results checked against the software engine. Gbit/s = 8 × sustained bytes per clock \
         (NITF) × Fmax."
            .into(),
    );
    f.table = Table::new(&[
        "design",
        ">B",
        ">xc6v LUT-eq",
        ">ECP5 LUT4",
        ">FFs",
        ">Fmax MHz",
        "Fmax per seed",
        ">bytes/clock NITF",
        ">Gbit/s",
        "source (xc6v; ECP5)",
    ]);
    let mut rate_c = chart(
        "Sustained bytes per clock",
        "B (bytes per clock)",
        "bytes / clock",
        false,
    );
    let mut sustained_by_b = BTreeMap::new();
    let mut rate_series: Vec<Series> = sets.iter().map(|(l, _)| series(l)).collect();
    for lanes in LANES {
        match sustained(lanes, &sets) {
            Ok((rates, agree)) => {
                for (s, r) in rate_series.iter_mut().zip(&rates) {
                    s.points.push((f64::from(lanes), *r));
                }
                let cells: Vec<String> = sets
                    .iter()
                    .zip(&rates)
                    .map(|((l, _), r)| format!("{} {r:.2}", l.replace('<', "&lt;")))
                    .collect();
                f.notes.push(format!(
                    "B = {lanes}: sustained bytes/clock {}; matches {} the software engine.",
                    cells.join(", "),
                    if agree { "equal" } else { "DIFFER FROM" }
                ));
                sustained_by_b.insert(lanes, rates[0]);
            }
            Err(e) => f.notes.push(not_measured_note(
                &format!("sustained rate at B = {lanes}"),
                &e,
            )),
        }
    }
    rate_c.series = rate_series;
    let mut gbit_c = chart("Throughput (NITF)", "B (bytes per clock)", "Gbit/s", false);
    gbit_c.hlines.push(HLine {
        y: 10.0,
        label: "10 GbE".into(),
    });
    let mut area_c = chart("Area (xc6v)", "B (bytes per clock)", "LUT-eq", false);
    for (label, file, text) in designs(o)? {
        let mut s_gbit = series(&label);
        let mut s_area = series(&label);
        let count = text.lines().count();
        for lanes in LANES {
            let tag = label.split_whitespace().next().unwrap_or("design");
            let name = format!("g-{tag}-b{lanes}");
            let opts = XpathHwOptions {
                bytes_per_clock: lanes,
                ..XpathHwOptions::default()
            };
            let flag = format!(" --bytes-per-clock {lanes}");
            let p = xpath_project(&name, &file, &text, &opts, &flag)?;
            f.commands.push(format!(
                "{} && {} && {}",
                p.compile_cmd,
                synth.command(&p.dir, Target::Xc6v, 0),
                synth.command(&p.dir, Target::Ecp5, o.seeds)
            ));
            let skip = o
                .max_queries
                .filter(|&m| count > m)
                .map(|m| format!("--max-queries {m}"));
            let SynthCells {
                cells,
                fmax,
                lut_eq,
                src,
                ..
            } = synth_cells(o, synth, &mut f, &name, &p.dir, skip.as_deref());
            let rate = sustained_by_b.get(&lanes).copied();
            let gbit = fmax.zip(rate).map(|(fm, r)| 8.0 * r * fm / 1000.0);
            if let Some(g) = gbit {
                s_gbit.points.push((f64::from(lanes), g));
            }
            if let Some(l) = lut_eq {
                s_area.points.push((f64::from(lanes), l as f64));
            }
            let mut row = vec![label.clone(), lanes.to_string()];
            row.extend(cells);
            row.push(rate.map_or("—".into(), f2));
            row.push(gbit.map_or("—".into(), f2));
            row.push(src);
            f.table.push(row);
        }
        gbit_c.series.push(s_gbit);
        area_c.series.push(s_area);
    }
    f.commands.insert(0, o.bench_command("g"));
    f.charts.extend([rate_c, gbit_c, area_c]);
    Ok(f)
}
