//! Figure (h): namespace-aware names in hardware (`--namespaces xpath`:
//! the namespace unit `qrtl_ns` and the clusters' namespace tests) beside
//! the same designs comparing raw names: xc6v LUT-eq, ECP5 LUT4, FFs and
//! Fmax, for the parser with one query and for synthetic length-4 path
//! queries, unprefixed (every name in no namespace) and with every name
//! prefixed (one namespace URI).

use crate::fig_wide::{synth_cells, SynthCells};
use crate::figs::{chart, figure, series, synthetic_file, write_if_changed, xpath_project_with};
use crate::md::{Figure, Table};
use crate::synth_points::Runner;
use crate::Options;
use qrtl_core::synth::Target;
use qrtl_xpath::engine::XpathHwOptions;
use qrtl_xpath::ir::xpath::Namespaces;
use qrtl_xpath::lower::names::NsOptions;
use std::path::Path;

/// The URI the prefixed query sets bind `n` to.
const URI: &str = "urn:qrtl:bench";

/// A query with `n:` before every name test (not before `*`).
fn prefixed(q: &str) -> String {
    let mut out = String::new();
    let mut after_slash = false;
    for c in q.chars() {
        if after_slash && c != '/' && c != '*' {
            out.push_str("n:");
        }
        after_slash = c == '/';
        out.push(c);
    }
    out
}

/// The designs: label, query file, its text.
fn designs(o: &Options) -> Result<Vec<(String, String, String)>, String> {
    let mut out = Vec::new();
    let parser = "bench/out/report/queries/parser-1.txt".to_string();
    write_if_changed(Path::new(&parser), "//a\n")?;
    out.push(("parser + 1 query".to_string(), parser, "//a\n".to_string()));
    let counts: &[usize] = if o.quick { &[256] } else { &[256, 2048] };
    for &n in counts {
        let (file, text) = synthetic_file(n, 4)?;
        out.push((format!("{n} × length 4"), file.clone(), text.clone()));
        let pfile = file.replace(".txt", "-ns.txt");
        let ptext: String = text.lines().map(|q| prefixed(q) + "\n").collect();
        write_if_changed(Path::new(&pfile), &ptext)?;
        out.push((format!("{n} × length 4, prefixed"), pfile, ptext));
    }
    Ok(out)
}

pub fn fig_h(o: &Options, synth: &mut Runner) -> Result<Figure, String> {
    let mut f = figure(
        "h",
        format!(
            "Namespace-aware names in hardware: each design compiled with `--namespaces raw` \
             (names compared as bytes) and with `--namespaces xpath`, the default (the namespace unit \
             `qrtl_ns` between the parser and the clusters: default capacities, 8 prefixes and \
             16 declarations; the clusters decode local names and test each element's \
             namespace class), default options otherwise, synthesized for area with \
             `synth_xilinx -family xc6v` and for Fmax with `synth_ecp5` + nextpnr-ecp5 \
             (LFE5U-85F, CABGA381, speed 6; median over the seeds). Designs: the parser with \
             one query (`//a`), synthetic length-4 path queries with their names in no \
             namespace, and the same with every name prefixed by `n`, bound to `{URI}` \
             (under raw names the prefix is just more bytes)."
        ),
    );
    f.table = Table::new(&[
        "design",
        "names",
        ">xc6v LUT-eq",
        ">ECP5 LUT4",
        ">FFs",
        ">Fmax MHz",
        "Fmax per seed",
        "source (xc6v; ECP5)",
    ]);
    let mut area = chart("Area (xc6v)", "design", "LUT-eq", false);
    let mut s_raw = series("raw names");
    let mut s_ns = series("namespace-aware");
    for (k, (label, file, text)) in designs(o)?.into_iter().enumerate() {
        // (LUT-eq, Fmax) under raw names, then namespace-aware.
        let mut pair = Vec::new();
        for names in [Namespaces::Raw, Namespaces::Xpath] {
            let (tag, ns) = match names {
                Namespaces::Raw => ("raw", NsOptions::raw()),
                Namespaces::Xpath => (
                    "xpath",
                    NsOptions::new(Namespaces::Xpath, &[format!("n={URI}")])
                        .map_err(|e| e.to_string())?,
                ),
            };
            let name = format!("h-{k}-{tag}");
            let p = xpath_project_with(&name, &file, &text, &XpathHwOptions::default(), "", &ns)?;
            f.commands.push(format!(
                "{} && {} && {}",
                p.compile_cmd,
                synth.command(&p.dir, Target::Xc6v, 0),
                synth.command(&p.dir, Target::Ecp5, o.seeds)
            ));
            let SynthCells {
                cells: c,
                fmax,
                lut_eq,
                src,
                ..
            } = synth_cells(o, synth, &mut f, &name, &p.dir, None);
            pair.push((lut_eq, fmax));
            if let Some(l) = lut_eq {
                let s = if names == Namespaces::Raw {
                    &mut s_raw
                } else {
                    &mut s_ns
                };
                s.points.push((k as f64 + 1.0, l as f64));
            }
            let mut row = vec![label.clone(), tag.to_string()];
            row.extend(c);
            row.push(src);
            f.table.push(row);
        }
        if let Some(note) = cost_note(&label, &pair) {
            f.notes.push(note);
        }
    }
    area.series = vec![s_raw, s_ns];
    f.commands.insert(0, o.bench_command("h"));
    f.charts.push(area);
    Ok(f)
}

/// What namespace-aware names cost design `label` beside raw names, from
/// its (LUT-eq, Fmax) pair; `None` while a point is missing.
fn cost_note(label: &str, pair: &[(Option<u64>, Option<f64>)]) -> Option<String> {
    let [(Some(raw_l), Some(raw_f)), (Some(ns_l), Some(ns_f))] = pair else {
        return None;
    };
    let (raw_l, ns_l) = (*raw_l as f64, *ns_l as f64);
    Some(format!(
        "{label}: namespace-aware names add {:.0} xc6v LUT-eq ({:+.0}%); Fmax {:.1} → {:.1} MHz ({:+.0}%).",
        ns_l - raw_l,
        100.0 * (ns_l / raw_l - 1.0),
        raw_f,
        ns_f,
        100.0 * (ns_f / raw_f - 1.0)
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_cost_note_compares_both_modes() {
        let note = super::cost_note("d", &[(Some(1000), Some(150.0)), (Some(1500), Some(120.0))]);
        assert_eq!(
            note.as_deref(),
            Some("d: namespace-aware names add 500 xc6v LUT-eq (+50%); Fmax 150.0 → 120.0 MHz (-20%).")
        );
        assert_eq!(
            super::cost_note("d", &[(Some(1000), None), (Some(1500), Some(120.0))]),
            None
        );
    }

    #[test]
    fn prefixed_names_every_name_test_but_star() {
        assert_eq!(super::prefixed("/a//*/b"), "/n:a//*/n:b");
    }
}
