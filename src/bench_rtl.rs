//! `qrtl-bench-rtl`: the XPath hardware compiler and its simulation.
//!
//! Prints a markdown report on stdout (`make bench` stores it in
//! `bench/REPORT-rtl.md`):
//!
//! 1. compile time (parse, lower, passes, Verilog text) for 1K–32K
//!    synthetic path queries of length 4 and 8;
//! 2. stack columns and query nodes with every pass on, and with
//!    compaction / prefix merging / all passes off;
//! 3. Verilator: build time, simulated clock cycles per document byte and
//!    simulation speed on YFilter's NITF documents.
//!
//! ```text
//! qrtl-bench-rtl [--quick]
//! ```
//!
//! Figures are reported, never asserted.

use qrtl_compiler::driver::{build_xpath_hw, simulate_xpath_with, XpathHwOptions};
use qrtl_compiler::frontend::xpath::parse_query_file;
use qrtl_compiler::ir::xpath::Mode;
use qrtl_compiler::lower::xpath::lower_queries;
use qrtl_compiler::passes::registry::StackPassConfig;
use qrtl_compiler::passes::{run_pipeline, PassConfig};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::time::Instant;

/// Synthetic path queries in the style of the dissertation's experiments:
/// `len` steps over an alphabet of `tags` names, 15% `*`, 15% `//`.
fn synthetic_queries(count: usize, len: usize, tags: usize, seed: u64) -> String {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = String::new();
    for _ in 0..count {
        for _ in 0..len {
            out.push_str(if rng.gen_bool(0.15) { "//" } else { "/" });
            if rng.gen_bool(0.15) {
                out.push('*');
            } else {
                let _ = write!(out, "t{}", rng.gen_range(0..tags));
            }
        }
        out.push('\n');
    }
    out
}

struct Compiled {
    seconds: f64,
    verilog_bytes: usize,
    nodes_before: usize,
    columns_before: usize,
    nodes: usize,
    columns: usize,
    gs_bits: usize,
    clusters: usize,
}

fn compile(text: &str, passes: StackPassConfig) -> Compiled {
    let t = Instant::now();
    let (queries, diags) = parse_query_file("bench", text);
    assert!(diags.is_empty(), "generated queries parse");
    let design = lower_queries("bench", &queries).expect("generated queries lower");
    let design = run_pipeline(
        design,
        &PassConfig {
            mode: Mode::Holistic,
        },
    );
    let hw = build_xpath_hw(
        "bench",
        &design,
        &XpathHwOptions {
            passes,
            ..XpathHwOptions::default()
        },
    )
    .expect("generated queries compile");
    let verilog_bytes = hw.rtl.files.iter().map(|f| f.text.len()).sum();
    let seconds = t.elapsed().as_secs_f64();
    let after = hw.reports.last().expect("passes ran").after;
    Compiled {
        seconds,
        verilog_bytes,
        nodes_before: hw.before.nodes,
        columns_before: hw.before.columns,
        nodes: after.nodes,
        columns: after.columns,
        gs_bits: after.gs_bits,
        clusters: after.clusters,
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let mut report = String::new();
    let _ = writeln!(report, "# XPath RTL compiler report (`qrtl-bench-rtl`)\n");
    let _ = writeln!(
        report,
        "Synthetic path queries (`/` or 15% `//` steps, 15% `*`, 200 tag names), default \
         options (`--cluster-size 256`, every pass on) unless stated. Compile = parse + lower + \
         passes + Verilog text, one core.\n"
    );
    let _ = writeln!(
        report,
        "| queries | length | compile s | Verilog MB | clusters | nodes (naive → merged) | columns (naive → after passes) | global-stack bits |"
    );
    let _ = writeln!(report, "|--:|--:|--:|--:|--:|--:|--:|--:|");
    let counts: &[usize] = if quick {
        &[1000, 4000]
    } else {
        &[1000, 4000, 16000, 32000]
    };
    for &len in &[4usize, 8] {
        for &n in counts {
            let text = synthetic_queries(n, len, 200, 1);
            let c = compile(&text, StackPassConfig::default());
            let _ = writeln!(
                report,
                "| {n} | {len} | {:.3} | {:.1} | {} | {} → {} | {} → {} | {} |",
                c.seconds,
                c.verilog_bytes as f64 / 1e6,
                c.clusters,
                c.nodes_before,
                c.nodes,
                c.columns_before,
                c.columns,
                c.gs_bits
            );
        }
    }
    let _ = writeln!(
        report,
        "\n## Columns per pass setting (2K queries, length 4)\n"
    );
    let _ = writeln!(
        report,
        "| setting | nodes | columns | global-stack bits | columns per query |"
    );
    let _ = writeln!(report, "|---|--:|--:|--:|--:|");
    let text = synthetic_queries(2000, 4, 200, 2);
    for (label, disabled) in [
        ("all passes", vec![]),
        ("--no-compaction", vec!["compaction"]),
        ("--no-prefix-merge", vec!["prefix-merge"]),
        ("no root-gs", vec!["root-gs"]),
        ("no last-column", vec!["last-column"]),
        (
            "all stack passes off (naive, one cluster)",
            vec![
                "cluster",
                "prefix-merge",
                "last-column",
                "root-gs",
                "compaction",
            ],
        ),
    ] {
        let c = compile(
            &text,
            StackPassConfig {
                disabled: disabled.iter().map(|s| s.to_string()).collect(),
                ..StackPassConfig::default()
            },
        );
        let _ = writeln!(
            report,
            "| {label} | {} | {} | {} | {:.2} |",
            c.nodes,
            c.columns,
            c.gs_bits,
            c.columns as f64 / 2000.0
        );
    }
    twig_report(&mut report);
    simulation_report(&mut report, quick);
    print!("{report}");
}

/// The NITF suites in each matching mode: push columns, global-stack bits,
/// pop nodes and pop columns after every pass, and compile time.
fn twig_report(report: &mut String) {
    let dir = qrtl_compiler::workload::nitf_dir();
    let _ = writeln!(
        report,
        "\n## Twig designs per mode (YFilter NITF suites, default options)\n"
    );
    let _ = writeln!(
        report,
        "| suite | mode | compile s | nodes | columns | global-stack bits | pop nodes | pop columns | row bits |"
    );
    let _ = writeln!(report, "|---|---|--:|--:|--:|--:|--:|--:|--:|");
    for suite in ["simple_predicates", "mixed", "nested_paths"] {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("queries/{suite}.txt"))) else {
            continue;
        };
        for mode in [Mode::Holistic, Mode::Paths, Mode::Pairs] {
            let t = Instant::now();
            let (queries, _) = parse_query_file(suite, &text);
            let design = lower_queries(suite, &queries).expect("suite lowers");
            let design = run_pipeline(design, &PassConfig { mode });
            let hw =
                build_xpath_hw(suite, &design, &XpathHwOptions::default()).expect("suite compiles");
            let s = hw.reports.last().expect("passes ran").after;
            let _ = writeln!(
                report,
                "| {suite} | {} | {:.3} | {} | {} | {} | {} | {} | {} |",
                mode.as_str(),
                t.elapsed().as_secs_f64(),
                s.nodes,
                s.columns,
                s.gs_bits,
                s.pops,
                s.pop_columns,
                s.columns + s.gs_bits + s.pop_columns
            );
        }
    }
}

/// Verilator on the NITF documents: build time, cycles per byte, speed.
fn simulation_report(report: &mut String, quick: bool) {
    let dir = qrtl_compiler::workload::nitf_dir();
    let docs: Vec<Vec<u8>> = (1..=100)
        .filter_map(|i| std::fs::read(dir.join(format!("docs/outFile{i}.xml"))).ok())
        .collect();
    let _ = writeln!(
        report,
        "\n## Verilator simulation (YFilter NITF documents, {} documents, {} bytes)\n",
        docs.len(),
        docs.iter().map(Vec::len).sum::<usize>()
    );
    if docs.is_empty() {
        let _ = writeln!(report, "NITF documents not found under {}.", dir.display());
        return;
    }
    let _ = writeln!(
        report,
        "| query set | queries | clusters | build s (cached?) | cycles / byte | input stall cycles | simulated MHz |"
    );
    let _ = writeln!(report, "|---|--:|--:|--:|--:|--:|--:|");
    // (suite, attribute subset only, unoptimized C++: the twig designs'
    // C++ takes over 20 minutes to build at -Os on two cores).
    let mut sets = vec![("simple_paths", false, false)];
    if !quick {
        sets.push(("simple_predicates", true, false));
        sets.push(("mixed", false, true));
    }
    for (suite, subset, unoptimized_cxx) in sets {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("queries/{suite}.txt"))) else {
            continue;
        };
        let text = if subset {
            qrtl_compiler::workload::path_rtl_subset(&text)
        } else {
            text
        };
        let (queries, _) = parse_query_file(suite, &text);
        let design = lower_queries(suite, &queries).expect("suite lowers");
        let design = run_pipeline(
            design,
            &PassConfig {
                mode: Mode::Holistic,
            },
        );
        let hw =
            build_xpath_hw(suite, &design, &XpathHwOptions::default()).expect("suite compiles");
        let t = Instant::now();
        let run = match simulate_xpath_with(
            &hw,
            &docs,
            qrtl_compiler::sim::Simulator::Verilator,
            &qrtl_compiler::sim::Stalls::NONE,
            None,
            &qrtl_compiler::sim::BuildOptions {
                unoptimized_cxx,
                ..qrtl_compiler::sim::BuildOptions::default()
            },
        ) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(report, "| {suite} | simulation failed: {e} |||||");
                continue;
            }
        };
        let wall = t.elapsed().as_secs_f64() - run.build.build_time.as_secs_f64();
        let bytes: usize = docs.iter().map(Vec::len).sum();
        let _ = writeln!(
            report,
            "| {suite}{}{} | {} | {} | {:.1} ({}) | {:.4} | {} | {:.2} |",
            if subset { " (attribute subset)" } else { "" },
            if unoptimized_cxx { " (C++ -O0)" } else { "" },
            queries.len(),
            hw.stack.clusters.len(),
            run.build.build_time.as_secs_f64(),
            if run.build.cached { "cached" } else { "built" },
            run.run.total_cycles as f64 / bytes as f64,
            run.run.input_stall_cycles,
            run.run.total_cycles as f64 / wall.max(1e-9) / 1e6
        );
    }
}
