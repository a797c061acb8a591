//! The hardware flow in one place: XPath IR (after the XPath passes) →
//! stack IR → stack passes → Verilog. The CLI, tests and benches call this;
//! each stage stays in its own module.

use qrtl_core::diag::Diagnostic;
use crate::emit::xpath::{emit_xpath, EventInput, RtlShape, XpathRtl, XpathRtlConfig};
use crate::ir::stacks::StackDesign;
use crate::ir::xpath::Design;
use crate::lower::stacks::{lower_stacks, StackLowerConfig};
use crate::passes::registry::{run_stack_pipeline, PassReport, StackPassConfig, StackStats};
use crate::xml::XmlConfig;

/// Options of `qrtl xpath compile|sim`.
#[derive(Clone, Debug, Default)]
pub struct XpathHwOptions {
    pub xml: XmlConfig,
    pub passes: StackPassConfig,
    /// How the parser's events reach the clusters.
    pub input: EventInput,
    /// Sizes of the clusters' processes and the top's ORs (`RtlShape`).
    pub shape: RtlShape,
}

/// A compiled XPath design.
#[derive(Clone, Debug)]
pub struct XpathHw {
    pub stack: StackDesign,
    /// Size of the naive stack IR, before any stack pass.
    pub before: StackStats,
    pub reports: Vec<PassReport>,
    pub rtl: XpathRtl,
}

/// Build the stack IR and the RTL of a (split) XPath design. `file` names the
/// query file in diagnostics.
pub fn build_xpath_hw(
    file: &str,
    design: &Design,
    opts: &XpathHwOptions,
) -> Result<XpathHw, Vec<Diagnostic>> {
    let naive = lower_stacks(
        file,
        design,
        &StackLowerConfig {
            max_depth: opts.xml.max_depth,
        },
    )?;
    let before = StackStats::of(&naive);
    let (stack, reports) = run_stack_pipeline(naive, &opts.passes).map_err(|e| {
        vec![Diagnostic {
            code: "E0399",
            message: e,
            help: Some("this is a compiler bug; please report it with the query file".into()),
            file: file.to_string(),
            line: 0,
            source_line: String::new(),
            span: qrtl_core::diag::Span::point(0),
        }]
    })?;
    let rtl = emit_xpath(
        &stack,
        &XpathRtlConfig {
            name_stack_bytes: opts.xml.name_stack_bytes,
            input: opts.input,
            shape: opts.shape,
        },
    );
    Ok(XpathHw {
        stack,
        before,
        reports,
        rtl,
    })
}

/// The AXI4-Stream ports of `qrtl_xpath_top`.
pub fn xpath_top_ports() -> Vec<qrtl_core::project::Port> {
    use qrtl_core::project::{Port, PortDir::*};
    let p = |name: &str, dir, width, description: &str| Port {
        name: name.to_string(),
        dir,
        width,
        description: description.to_string(),
    };
    vec![
        p("clk", Input, 1, "clock"),
        p("rst", Input, 1, "synchronous reset, active high"),
        p("s_axis_tdata", Input, 8, "document bytes"),
        p("s_axis_tvalid", Input, 1, "document byte valid"),
        p("s_axis_tready", Output, 1, "document byte accepted (low only while a document's last byte waits for the previous results)"),
        p("s_axis_tlast", Input, 1, "last byte of a document"),
        p("m_axis_tdata", Output, 32, "result words: status word, then the match bitmap"),
        p("m_axis_tvalid", Output, 1, "result word valid"),
        p("m_axis_tready", Input, 1, "result word accepted"),
        p("m_axis_tlast", Output, 1, "last result word of a document"),
    ]
}

/// Project description of a compiled XPath design (`qrtl xpath compile -o`).
/// Consumes the design: its Verilog texts (tens of MB for 32K queries, not
/// worth copying) move into the spec.
pub fn xpath_project_spec(
    hw: XpathHw,
    opts: &XpathHwOptions,
    mode: crate::ir::xpath::Mode,
    clock_mhz: f64,
) -> qrtl_core::project::ProjectSpec {
    use serde_json::json;
    let rtl = &hw.rtl;
    let queries: Vec<_> = rtl
        .queries
        .iter()
        .map(|q| {
            json!({"id": q.id, "line": q.line, "text": q.text.trim(), "cluster": q.cluster,
                   "word": q.word, "bit": q.bit})
        })
        .collect();
    let reasons: Vec<_> = crate::xml::XmlError::ALL
        .iter()
        .map(|e| json!({"code": e.code(), "status": e.status().as_str(), "reason": e.describe()}))
        .collect();
    let passes: Vec<_> = hw
        .reports
        .iter()
        .map(|r| {
            json!({"pass": r.pass, "ran": r.ran, "nodes": r.after.nodes,
                        "columns": r.after.columns, "gs_bits": r.after.gs_bits,
                        "pop_nodes": r.after.pops, "pop_columns": r.after.pop_columns})
        })
        .collect();
    let last = hw.reports.last().map(|r| r.after).unwrap_or(hw.before);
    let manifest_extra = json!({
        "kind": "xpath",
        "parameters": {
            "mode": mode.as_str(),
            "ordered": hw.stack.order == crate::ir::xpath::SiblingOrder::Ordered,
            "max_depth": opts.xml.max_depth,
            "name_stack_bytes": opts.xml.name_stack_bytes,
            "cluster_size": opts.passes.cluster_size,
            "clusters": hw.stack.clusters.len(),
            "event_input": opts.input.name(),
            "disabled_passes": opts.passes.disabled,
            "bytes_per_clock": 1,
            "result_width": crate::emit::xpath::RESULT_WIDTH,
        },
        "result": {
            "words_per_document": rtl.result_words,
            "status_word": {"status": "bits 1:0", "reason": "bits 6:2",
                            "status_codes": {"ok": 0, "malformed": 1, "too_deep": 2},
                            "reasons": reasons},
            "bitmap": "word 1 + q/32, bit q%32 for query id q",
            "latency_cycles": rtl.latency,
        },
        "queries": queries,
        "stats": {"before": {"nodes": hw.before.nodes, "columns": hw.before.columns},
                  "after": {"nodes": last.nodes, "columns": last.columns, "gs_bits": last.gs_bits},
                  "passes": passes},
    });
    let readme_extra = format!(
        "## XPath filtering engine\n\n\
         {} queries ({} mode), {} cluster(s), maximum document depth {}. \
         Stream each document as one AXI4-Stream packet on `s_axis` (one byte per clock); \
         for each document `m_axis` returns {} words: the status word (bits 1:0: 0 ok, \
         1 malformed, 2 too_deep; bits 6:2: the reason code listed in `manifest.json`) and the \
         match bitmap (bit q%32 of word 1 + q/32 for query id q). `manifest.json` maps query \
         ids to their lines and bits. Latency: the status word is valid {} cycles after the \
         document's last byte is accepted.\n",
        rtl.queries.len(),
        mode.as_str(),
        hw.stack.clusters.len(),
        opts.xml.max_depth,
        rtl.result_words,
        rtl.latency
    );
    let top = rtl.top.clone();
    let files = hw.rtl.files.into_iter().map(|f| (f.name, f.text)).collect();
    qrtl_core::project::ProjectSpec {
        name: "qrtl_xpath".to_string(),
        top,
        rtl: files,
        clock_mhz,
        clock_port: "clk".to_string(),
        reset_port: "rst".to_string(),
        ports: xpath_top_ports(),
        manifest_extra,
        readme_extra,
    }
}

/// One document's result as the RTL reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HwDocResult {
    pub status: crate::xml::DocStatus,
    /// The parser's first error, if any.
    pub reason: Option<crate::xml::XmlError>,
    pub matched: Vec<u32>,
}

/// Decode a document's result words (status word, then the bitmap).
pub fn decode_xpath_result(words: &[u32], query_count: usize) -> Result<HwDocResult, String> {
    let expect = 1 + query_count.div_ceil(32);
    if words.len() != expect {
        return Err(format!("{} result words, expected {expect}", words.len()));
    }
    let status_word = words[0];
    let status = crate::xml::DocStatus::from_code((status_word & 3) as u8)
        .ok_or_else(|| format!("bad status word {status_word:#x}"))?;
    let code = ((status_word >> 2) & 31) as u8;
    let reason = crate::xml::XmlError::from_code(code);
    if status_word >> 7 != 0 || (code != 0 && reason.is_none()) {
        return Err(format!("bad status word {status_word:#x}"));
    }
    let mut matched = Vec::new();
    for (w, word) in words[1..].iter().enumerate() {
        for b in 0..32 {
            if word >> b & 1 == 1 {
                let q = w * 32 + b;
                if q >= query_count {
                    return Err(format!("bit for query {q} set; only {query_count} queries"));
                }
                matched.push(q as u32);
            }
        }
    }
    Ok(HwDocResult {
        status,
        reason,
        matched,
    })
}

/// Per-document outcome of a simulation run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimDoc {
    pub result: HwDocResult,
    /// Cycles from the document's first accepted byte to its status word.
    pub cycles: u64,
}

/// A simulation of many documents through one build.
#[derive(Clone, Debug)]
pub struct XpathSimRun {
    pub docs: Vec<SimDoc>,
    pub run: qrtl_core::sim::SimRun,
    pub build: qrtl_core::sim::Built,
}

/// Build (or reuse from the cache) the design for `simulator` and stream
/// `docs` through it, one AXI4-Stream packet each.
pub fn simulate_xpath(
    hw: &XpathHw,
    docs: &[Vec<u8>],
    simulator: qrtl_core::sim::Simulator,
    stalls: &qrtl_core::sim::Stalls,
    trace: Option<&std::path::Path>,
) -> Result<XpathSimRun, String> {
    simulate_xpath_with(
        hw,
        docs,
        simulator,
        stalls,
        trace,
        &qrtl_core::sim::BuildOptions::default(),
    )
}

/// The simulation build of an XPath design (cached; see `sim/`), to run
/// many inputs through ([`qrtl_core::sim::Built::run`], `run_with_resets`).
pub fn build_xpath_sim(
    hw: &XpathHw,
    simulator: qrtl_core::sim::Simulator,
    options: &qrtl_core::sim::BuildOptions,
) -> Result<qrtl_core::sim::Built, String> {
    let spec = qrtl_core::sim::DriverSpec::axis(&hw.rtl.top);
    let rtl: Vec<(String, String)> = hw
        .rtl
        .files
        .iter()
        .map(|f| (f.name.clone(), f.text.clone()))
        .collect();
    qrtl_core::sim::build_with(&spec, &rtl, simulator, options).map_err(|e| e.to_string())
}

/// Each document's result words of a run of an XPath design, decoded.
pub fn decode_xpath_run(hw: &XpathHw, run: &qrtl_core::sim::SimRun) -> Result<Vec<SimDoc>, String> {
    let n = hw.rtl.queries.len();
    let mut out = Vec::with_capacity(run.packets.len());
    for (i, p) in run.packets.iter().enumerate() {
        let result = decode_xpath_result(&p.words, n).map_err(|e| format!("document {i}: {e}"))?;
        out.push(SimDoc {
            result,
            cycles: p.cycles,
        });
    }
    Ok(out)
}

/// [`simulate_xpath`] with explicit build options (e.g. unoptimized C++ for
/// large designs simulated on short inputs).
pub fn simulate_xpath_with(
    hw: &XpathHw,
    docs: &[Vec<u8>],
    simulator: qrtl_core::sim::Simulator,
    stalls: &qrtl_core::sim::Stalls,
    trace: Option<&std::path::Path>,
    options: &qrtl_core::sim::BuildOptions,
) -> Result<XpathSimRun, String> {
    let build = build_xpath_sim(hw, simulator, options)?;
    let run = build.run(docs, stalls, trace).map_err(|e| e.to_string())?;
    let out = decode_xpath_run(hw, &run)?;
    Ok(XpathSimRun {
        docs: out,
        run,
        build,
    })
}
