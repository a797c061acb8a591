//! The XPath engine behind `qrtl_core::engine::Engine`: query files →
//! XPath IR (after the XPath passes) → stack IR → stack passes → Verilog,
//! the result words of the AXI4-Stream top, and the software engine as the
//! model. The CLI, `qrtl build`, tests and benches go through it; each stage
//! stays in its own module.

use std::path::Path;

use crate::emit::xpath::{emit_xpath, EventInput, RtlShape, XpathRtl, XpathRtlConfig};
use crate::ir::stacks::StackDesign;
use crate::ir::xpath::{Design, Mode, Namespaces, SiblingOrder};
use crate::lower::names::NsOptions;
use crate::lower::stacks::{lower_stacks, StackLowerConfig};
use crate::lower::xpath::lower_file;
use crate::passes::registry::{run_stack_pipeline, PassReport, StackPassConfig, StackStats};
use crate::passes::{run_pipeline, PassConfig};
use crate::syntax::parse_query_file;
use crate::xml::XmlConfig;
use qrtl_core::diag::{plain_error, Diagnostic, TextError};
use qrtl_core::engine::{Engine, Failure};
use qrtl_core::sim::{DriverSpec, PacketResult};

/// Options of `qrtl xpath compile|sim`.
#[derive(Clone, Debug)]
pub struct XpathHwOptions {
    pub xml: XmlConfig,
    pub passes: StackPassConfig,
    /// How the parser's events reach the clusters.
    pub input: EventInput,
    /// Sizes of the clusters' processes and the top's ORs (`RtlShape`).
    pub shape: RtlShape,
    /// Document bytes per clock on `s_axis` (`--bytes-per-clock`: 1, 2, 4
    /// or 8).
    pub bytes_per_clock: u32,
}

impl Default for XpathHwOptions {
    fn default() -> Self {
        XpathHwOptions {
            xml: XmlConfig::default(),
            passes: StackPassConfig::default(),
            input: EventInput::default(),
            shape: RtlShape::default(),
            bytes_per_clock: 1,
        }
    }
}

/// Queries per cluster by default (`--cluster-size`).
pub const DEFAULT_CLUSTER_SIZE: usize = 256;
/// Deepest element nesting by default (`--max-depth`).
pub const DEFAULT_MAX_DEPTH: u32 = 32;
/// Target clock of the generated constraints by default (`--clock-mhz`).
pub const DEFAULT_CLOCK_MHZ: f64 = 200.0;

/// Everything `qrtl xpath compile` takes besides the query file (the
/// command line's options; also a design file's keys).
#[derive(Clone, Debug)]
pub struct XpathOptions {
    /// How twigs are matched (`--mode`).
    pub mode: Mode,
    /// Sibling branches match in document order (`--ordered`).
    pub ordered: bool,
    /// The hardware: document limits, passes, event input, shape.
    pub hw: XpathHwOptions,
    /// Target clock of the generated constraints, in MHz.
    pub clock_mhz: f64,
    /// How the query file's names are read (`--namespaces`, `--ns`): raw
    /// bytes by default, since the hardware compares names as bytes.
    pub ns: NsOptions,
}

impl Default for XpathOptions {
    fn default() -> Self {
        XpathOptions {
            mode: Mode::Holistic,
            ordered: false,
            ns: NsOptions::raw(),
            hw: XpathHwOptions {
                xml: XmlConfig::with_max_depth(DEFAULT_MAX_DEPTH),
                passes: StackPassConfig {
                    cluster_size: DEFAULT_CLUSTER_SIZE,
                    disabled: Vec::new(),
                },
                input: EventInput::Pipelined,
                shape: RtlShape::default(),
                bytes_per_clock: 1,
            },
            clock_mhz: DEFAULT_CLOCK_MHZ,
        }
    }
}

/// A checked query file: the XPath IR after the XPath passes (split for
/// the mode), with the sibling order set.
#[derive(Clone, Debug)]
pub struct XpathSource {
    /// The query file's name in diagnostics.
    pub file: String,
    pub design: Design,
}

/// Read, parse and lower a query file and run the XPath passes for `mode`;
/// every diagnostic on failure (and a summary line), or "no queries".
pub fn load_queries(
    path: &Path,
    mode: Mode,
    ordered: bool,
    ns: &NsOptions,
) -> Result<XpathSource, Failure> {
    let name = path.display().to_string();
    let text = qrtl_core::diag::read_text(path).map_err(|e| match e {
        TextError::Utf8 { line, .. } => Failure::input(format!(
            "{name}:{line}: error: query file is not valid UTF-8"
        )),
        TextError::Io(e) => {
            Failure::input(plain_error(&name, format!("cannot read query file: {e}")))
        }
    })?;
    source_from_text(&name, &text, mode, ordered, ns)
}

/// [`load_queries`] of query text named `name` (the Python package's
/// `XPathFilter` of a string).
pub fn source_from_text(
    name: &str,
    text: &str,
    mode: Mode,
    ordered: bool,
    ns: &NsOptions,
) -> Result<XpathSource, Failure> {
    let mut design = queries_from_text(name, text, mode, ns)?;
    if ordered {
        design.order = SiblingOrder::Ordered;
    }
    Ok(XpathSource {
        file: name.to_string(),
        design,
    })
}

/// Parse and lower query text named `name` (prefixes bound by `ns` and the
/// text's declarations), then run the XPath passes.
pub fn queries_from_text(
    name: &str,
    text: &str,
    mode: Mode,
    ns: &NsOptions,
) -> Result<Design, Failure> {
    let parsed = parse_query_file(name, text);
    let mut diags = parsed.diagnostics.clone();
    let queries = &parsed.queries;
    let design = match lower_file(name, &parsed, ns) {
        Ok(d) => Some(d),
        Err(more) => {
            diags.extend(more);
            None
        }
    };
    if !diags.is_empty() {
        diags.sort_by_key(|d| (d.line, d.span.start));
        let mut f = Failure::diagnostics(&diags);
        f.text.push_str(&format!(
            "{name}: {} error{} in {} queries\n",
            diags.len(),
            if diags.len() == 1 { "" } else { "s" },
            queries.len() + diags.len()
        ));
        return Err(f);
    }
    let design = design.unwrap_or_default();
    if design.queries.is_empty() {
        return Err(Failure::input(plain_error(
            name,
            "no queries (every line is blank or a # comment)",
        )));
    }
    Ok(run_pipeline(design, &PassConfig { mode }))
}

/// The XPath filtering engine (SPEC §3): inputs are XML documents.
#[derive(Clone, Copy, Debug, Default)]
pub struct XpathEngine;

impl Engine for XpathEngine {
    const NAME: &'static str = "xpath";
    const INPUT: &'static str = "document";
    type Source = XpathSource;
    type Options = XpathOptions;
    type Design = XpathHw;
    type Input = Vec<u8>;
    type Output = HwDocResult;

    fn compile(&self, source: &XpathSource, opts: &XpathOptions) -> Result<XpathHw, Failure> {
        build_xpath_hw(&source.file, &source.design, &opts.hw).map_err(|d| Failure::diagnostics(&d))
    }

    fn project(
        &self,
        _source: &XpathSource,
        design: XpathHw,
        opts: &XpathOptions,
    ) -> qrtl_core::project::ProjectSpec {
        xpath_project_spec(design, &opts.hw, opts.mode, opts.clock_mhz)
    }

    fn rtl_files(&self, design: &XpathHw) -> Vec<(String, String)> {
        design
            .rtl
            .files
            .iter()
            .map(|f| (f.name.clone(), f.text.clone()))
            .collect()
    }

    fn driver_spec(&self, design: &XpathHw) -> DriverSpec {
        let mut spec = DriverSpec::axis(&design.rtl.top);
        spec.in_data_bits = 8 * design.bytes_per_clock;
        spec.in_keep = design.bytes_per_clock > 1;
        spec
    }

    fn encode(&self, _design: &XpathHw, input: &Vec<u8>) -> Vec<u8> {
        input.clone()
    }

    fn decode(&self, design: &XpathHw, packet: &PacketResult) -> Result<HwDocResult, String> {
        decode_xpath_result(&packet.words, design.rtl.queries.len())
    }

    fn model(&self, design: &XpathHw, input: &Vec<u8>) -> HwDocResult {
        self.model_all(design, &[input]).remove(0)
    }

    /// One software engine (its program and state cache) for every input.
    fn model_all(&self, design: &XpathHw, inputs: &[&Vec<u8>]) -> Vec<HwDocResult> {
        let config = crate::refmodel::EngineConfig {
            xml: design.xml,
            ..crate::refmodel::EngineConfig::default()
        };
        let mut engine = crate::refmodel::Engine::new(&design.queries, config);
        inputs
            .iter()
            .map(|doc| {
                let r = engine.filter(doc);
                HwDocResult {
                    status: r.status,
                    reason: r.error.map(|e| e.error),
                    matched: r.matched,
                }
            })
            .collect()
    }
}

/// A compiled XPath design.
#[derive(Clone, Debug)]
pub struct XpathHw {
    pub stack: StackDesign,
    /// Size of the naive stack IR, before any stack pass.
    pub before: StackStats,
    pub reports: Vec<PassReport>,
    pub rtl: XpathRtl,
    /// The XPath IR the stack IR was lowered from: the model runs it.
    pub queries: Design,
    /// The documents' limits, as the hardware checks them.
    pub xml: XmlConfig,
    /// Document bytes per clock on `s_axis`.
    pub bytes_per_clock: u32,
}

/// An option that keeps a design with namespace-aware names out of RTL:
/// its design-file key (`--` and the key with `-` for `_` on the command
/// line), its value and why.
pub struct NsHwRefusal {
    pub key: &'static str,
    pub value: u32,
    pub why: String,
}

/// Why a design with namespace-aware names cannot be built in RTL (yet)
/// with these options, if it cannot. The CLI and design files ask before
/// reading the queries; [`build_xpath_hw`] refuses too (`E0398`).
pub fn ns_hw_refusal(bytes_per_clock: u32, attr_name_bytes: u32) -> Option<NsHwRefusal> {
    if bytes_per_clock > 1 {
        return Some(NsHwRefusal {
            key: "bytes_per_clock",
            value: bytes_per_clock,
            why: format!(
                "namespace-aware names (the default) are resolved in hardware at one byte \
                 per clock; this design takes {bytes_per_clock}"
            ),
        });
    }
    let min = crate::emit::ns::MIN_ATTR_NAME_BYTES;
    if attr_name_bytes < min {
        return Some(NsHwRefusal {
            key: "attr_name_bytes",
            value: attr_name_bytes,
            why: format!(
                "the namespace unit needs attribute names of at least {min} bytes (this \
                 design keeps {attr_name_bytes}): its prefixes are 6 bytes shorter"
            ),
        });
    }
    None
}

/// Build the stack IR and the RTL of a (split) XPath design. `file` names the
/// query file in diagnostics.
pub fn build_xpath_hw(
    file: &str,
    design: &Design,
    opts: &XpathHwOptions,
) -> Result<XpathHw, Vec<Diagnostic>> {
    let ns = match design.namespaces {
        Namespaces::Raw => None,
        Namespaces::Xpath => {
            if let Some(r) = ns_hw_refusal(opts.bytes_per_clock, opts.xml.attr_name_bytes) {
                return Err(vec![Diagnostic {
                    code: "E0398",
                    message: r.why,
                    help: Some("compile with `--namespaces raw` to compare names as bytes".into()),
                    file: file.to_string(),
                    line: 0,
                    source_line: String::new(),
                    span: qrtl_core::diag::Span::point(0),
                }]);
            }
            Some(opts.xml.ns_limits.unwrap_or_default())
        }
    };
    let mut xml = opts.xml;
    xml.ns_limits = ns;
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
            max_attributes: opts.xml.max_attributes,
            attr_name_bytes: opts.xml.attr_name_bytes,
            input: opts.input,
            shape: opts.shape,
            bytes_per_clock: opts.bytes_per_clock,
            ns,
        },
    );
    Ok(XpathHw {
        stack,
        before,
        reports,
        rtl,
        queries: design.clone(),
        xml,
        bytes_per_clock: opts.bytes_per_clock,
    })
}

/// The AXI4-Stream ports of `qrtl_xpath_top` taking `lanes` document bytes
/// per clock.
pub fn xpath_top_ports(lanes: u32) -> Vec<qrtl_core::project::Port> {
    let wide = lanes > 1;
    qrtl_core::project::StreamPorts {
        in_bits: 8 * lanes,
        in_data: if wide {
            "document bytes, lane i = bits 8i+7:8i"
        } else {
            "document bytes"
        },
        in_keep: wide.then_some(
            "bytes of the beat: all lanes, except in a document's last beat its n >= 1 low lanes (2^n - 1); another value makes the document bad_beat",
        ),
        in_valid: if wide { "beat valid" } else { "document byte valid" },
        in_ready: if wide {
            "beat accepted (low while the front end's FIFO is full, or a document's last byte waits for the previous results)"
        } else {
            "document byte accepted (low only while a document's last byte waits for the previous results)"
        },
        in_last: if wide {
            "last beat of a document"
        } else {
            "last byte of a document"
        },
        out_bits: 32,
        out_data: "result words: status word, then the match bitmap",
        out_valid: "result word valid",
        out_ready: "result word accepted",
        out_last: "last result word of a document",
    }
    .ports()
}

/// Project description of the programmable design of `shape` (`qrtl xpath
/// compile --programmable -o`): the generic RTL, the configuration stream's
/// ports, and the sizes and formats in `manifest.json`.
pub fn generic_project_spec(
    shape: &crate::ir::generic::Shape,
    xml: &XmlConfig,
    clock_mhz: f64,
) -> qrtl_core::project::ProjectSpec {
    use crate::emit::generic::{generic_files, result_words, swap_cycles};
    use crate::ir::config_words::shape_signature;
    use qrtl_core::project::{Port, PortDir, ProjectSpec};
    use serde_json::json;
    let top = "qrtl_xpath_top";
    let mut ports = xpath_top_ports(1);
    let cfg = [
        ("s_cfg_tdata", PortDir::Input, 64, "configuration words (compiler/xpath/src/ir/config_words.rs)"),
        ("s_cfg_tvalid", PortDir::Input, 1, "configuration word valid"),
        ("s_cfg_tready", PortDir::Output, 1, "configuration word accepted (low while a tag's bytes are written, and from a COMMIT until the configuration is active)"),
        ("s_cfg_tlast", PortDir::Input, 1, "last word of a configuration"),
    ];
    let at = ports
        .iter()
        .position(|p| p.name.starts_with("m_axis"))
        .unwrap_or(ports.len());
    for (i, (name, dir, width, description)) in cfg.into_iter().enumerate() {
        ports.insert(
            at + i,
            Port {
                name: name.into(),
                dir,
                width,
                description: description.into(),
            },
        );
    }
    let words = result_words(shape);
    let manifest_extra = json!({
        "kind": "xpath-programmable",
        "parameters": {
            "programmable": {
                "columns": shape.columns, "cluster_size": shape.cluster_size, "general": shape.general,
                "window": shape.window, "tags": shape.tags, "tag_bytes": shape.tag_bytes,
                "uris": shape.uris, "uri_bytes": shape.uri_bytes,
                "comparators": shape.comparators, "literal_bytes": shape.literal_bytes,
                "counters": shape.counters, "lanes": shape.lanes,
                "max_depth": shape.max_depth, "namespaces": shape.namespaces.as_str(),
                "signature": format!("{:016x}", shape_signature(shape)),
            },
            "max_depth": xml.max_depth,
            "name_stack_bytes": xml.name_stack_bytes,
            "max_attributes": xml.max_attributes,
            "attr_name_bytes": xml.attr_name_bytes,
        },
        "configuration": {
            "stream": "s_cfg: 64-bit words, one packet per configuration (qrtl xpath configure -o CONFIG.bin: little-endian words)",
            "format": "records: header word (kind 63:56, index 55:32, data words 31:16, payload 15:0), then its data words; see compiler/xpath/src/ir/config_words.rs",
            "commit": "a COMMIT record makes the configuration active at the next document boundary; the status word's bits 31:16 give the id of the configuration that answered",
            "load_cycles": format!("one per word up to the COMMIT (TAGS records' name bytes are written one a clock from a queue of {} words beside the stream; the COMMIT waits for the last); then the commit waits for a document boundary and holds the input {} clocks while the clusters copy their slot words (qrtl xpath configure prints the total)", crate::emit::generic::TAG_QUEUE_WORDS, swap_cycles(shape)),
            "tag_decoder": format!("a perfect hash of the tag names (TAGHASH record: a seed, per bucket a displacement, per slot a code; compiler/xpath/src/ir/tag_hash.rs) and the names (TAGS records); an element's code comes {} clocks after its name ends", crate::emit::generic::DECODER_LATENCY),
            "units": "comparators (COMPARATOR and VALUE records: attribute or text() tests, string or number literals), positional counters (COUNTER and POSITION records), and per cluster the unit bits its lanes read (LANES)",
        },
        "result": {
            "words_per_document": words,
            "status_word": {"status": "bits 1:0", "reason": "bits 6:2", "config_id": "bits 31:16",
                            "status_codes": {"ok": 0, "malformed": 1, "too_deep": 2, "attr_limit": 3}},
            "bitmap": "word 1 + s/32, bit s%32 for column s (cluster s / cluster_size); the configuration's QUERY records name the columns each query needs",
        },
    });
    let readme_extra = format!(
        "## Programmable XPath filtering engine\n\n\
         {} generic stack columns in {} cluster(s) of {} ({} general, the others chain \
         columns), {} tag entries of up to {} bytes, \
         {} value comparators (literals of {} entries), {} positional counters, {} condition \
         lanes per cluster, a window of {}, maximum document depth {}. Load a query set's \
         configuration (`qrtl xpath configure QUERIES --design . -o config.bin`) on `s_cfg` (64-bit words), \
         then stream documents on `s_axis`, one byte per clock, one packet each; `m_axis` \
         returns {} words per document: the status word (bits 1:0 status, 6:2 reason, \
         31:16 the configuration id) and one bit per column. A reset clears the \
         configuration.\n",
        shape.columns,
        shape.clusters(),
        shape.cluster_size,
        shape.general,
        shape.tags,
        shape.tag_bytes,
        shape.comparators,
        shape.literal_bytes,
        shape.counters,
        shape.lanes,
        shape.window,
        shape.max_depth,
        words
    );
    ProjectSpec {
        name: "qrtl_xpath".to_string(),
        top: top.to_string(),
        rtl: generic_files(shape, xml, top),
        clock_mhz,
        clock_port: "clk".to_string(),
        reset_port: "rst".to_string(),
        ports,
        manifest_extra,
        readme_extra,
    }
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
    // The namespace reasons are the namespace unit's (qrtl_ns): a design
    // comparing raw names never reports them.
    let ns = hw.xml.ns_limits;
    let reasons: Vec<_> = crate::xml::XmlError::ALL
        .iter()
        .filter(|e| ns.is_some() || !e.is_namespace())
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
            "namespaces": if ns.is_some() { "xpath" } else { "raw" },
            "ns_prefixes": ns.map(|l| l.prefixes),
            "ns_bindings": ns.map(|l| l.bindings),
            // The prefixes the query texts below are read with.
            "ns": (hw.queries.bindings.iter())
                .map(|(p, u)| (p.clone(), json!(u)))
                .collect::<serde_json::Map<_, _>>(),
            "namespace_uris": ns.map(|_| {
                crate::emit::ns::design_uris(&hw.stack)
                    .iter()
                    .map(|u| String::from_utf8_lossy(u).into_owned())
                    .collect::<Vec<_>>()
            }),
            "ordered": hw.stack.order == crate::ir::xpath::SiblingOrder::Ordered,
            "max_depth": opts.xml.max_depth,
            "name_stack_bytes": opts.xml.name_stack_bytes,
            "max_attributes": opts.xml.max_attributes,
            "attr_name_bytes": opts.xml.attr_name_bytes,
            "cluster_size": opts.passes.cluster_size,
            "clusters": hw.stack.clusters.len(),
            "event_input": opts.input.name(),
            "disabled_passes": opts.passes.disabled,
            "bytes_per_clock": hw.bytes_per_clock,
            "result_width": crate::emit::xpath::RESULT_WIDTH,
        },
        "result": {
            "words_per_document": rtl.result_words,
            "status_word": {"status": "bits 1:0", "reason": "bits 6:2",
                            "status_codes": {"ok": 0, "malformed": 1, "too_deep": 2, "attr_limit": 3},
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
         Stream each document as one AXI4-Stream packet on `s_axis` ({}); \
         for each document `m_axis` returns {} words: the status word (bits 1:0: 0 ok, \
         1 malformed, 2 too_deep, 3 attr_limit; bits 6:2: the reason code listed in \
         `manifest.json`) and the \
         match bitmap (bit q%32 of word 1 + q/32 for query id q). `manifest.json` maps query \
         ids to their lines and bits. Latency: the status word is valid {} cycles after the \
         document's last byte is accepted.\n",
        rtl.queries.len(),
        mode.as_str(),
        hw.stack.clusters.len(),
        opts.xml.max_depth,
        bytes_clause(hw.bytes_per_clock),
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
        ports: xpath_top_ports(hw.bytes_per_clock),
        manifest_extra,
        readme_extra,
    }
}

/// How the project README describes the input beats.
fn bytes_clause(lanes: u32) -> String {
    if lanes == 1 {
        return "one byte per clock".to_string();
    }
    format!(
        "{lanes} bytes per beat, lane i in bits 8i+7:8i; every beat full except a document's \
         last, whose n >= 1 bytes are the low lanes, `s_axis_tkeep` = 2^n - 1; a beat breaking \
         this rule is reported as reason `bad_beat`, and the document's matches are those \
         found before it"
    )
}

/// One document's result as the RTL reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HwDocResult {
    pub status: crate::xml::DocStatus,
    /// The parser's first error, if any.
    pub reason: Option<crate::xml::XmlError>,
    pub matched: Vec<u32>,
}

/// The status (bits 1:0) and the reason (bits 6:2) of a status word, or
/// what is wrong with them; the bits above are the caller's.
pub fn decode_status(
    status_word: u32,
) -> Result<(crate::xml::DocStatus, Option<crate::xml::XmlError>), String> {
    let status = crate::xml::DocStatus::from_code((status_word & 3) as u8)
        .ok_or_else(|| format!("bad status word {status_word:#x}"))?;
    let code = ((status_word >> 2) & 31) as u8;
    let reason = crate::xml::XmlError::from_code(code);
    if code != 0 && reason.is_none() {
        return Err(format!("bad status word {status_word:#x}"));
    }
    Ok((status, reason))
}

/// Decode a document's result words (status word, then the bitmap).
pub fn decode_xpath_result(words: &[u32], query_count: usize) -> Result<HwDocResult, String> {
    let expect = 1 + query_count.div_ceil(32);
    if words.len() != expect {
        return Err(format!("{} result words, expected {expect}", words.len()));
    }
    let status_word = words[0];
    if status_word >> 7 != 0 {
        return Err(format!("bad status word {status_word:#x}"));
    }
    let (status, reason) = decode_status(status_word)?;
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

/// The simulation build of an XPath design (cached; see `qrtl_core::sim`),
/// to run many inputs through ([`qrtl_core::sim::Built::run`],
/// `run_with_resets`).
pub fn build_xpath_sim(
    hw: &XpathHw,
    simulator: qrtl_core::sim::Simulator,
    options: &qrtl_core::sim::BuildOptions,
) -> Result<qrtl_core::sim::Built, String> {
    qrtl_core::engine::build_sim(&XpathEngine, hw, simulator, Some(options.clone()))
}

/// Each document's result words of a run of an XPath design, decoded.
pub fn decode_xpath_run(hw: &XpathHw, run: &qrtl_core::sim::SimRun) -> Result<Vec<SimDoc>, String> {
    Ok(qrtl_core::engine::decode_run(&XpathEngine, hw, run)?
        .into_iter()
        .map(|r| SimDoc {
            result: r.output,
            cycles: r.latency,
        })
        .collect())
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
    let settings = qrtl_core::engine::SimSettings {
        simulator,
        stalls: *stalls,
        trace,
        build: Some(options.clone()),
    };
    let inputs: Vec<&Vec<u8>> = docs.iter().collect();
    let sim = qrtl_core::engine::simulate(&XpathEngine, hw, &inputs, &settings)?;
    let docs = sim
        .results
        .into_iter()
        .map(|r| SimDoc {
            result: r.output,
            cycles: r.latency,
        })
        .collect();
    let run = sim.runs.into_iter().next().expect("one run");
    Ok(XpathSimRun {
        docs,
        run,
        build: sim.build,
    })
}

// ---- design files -------------------------------------------------------------

/// The passes of `passes.disabled` that are unknown or mandatory, as the
/// message `--disable-pass` reports, or `None` when all may be disabled.
pub fn disabled_pass_error(passes: &StackPassConfig) -> Option<String> {
    let unknown = crate::passes::registry::unknown_stack_passes(passes);
    (!unknown.is_empty()).then(|| {
        format!(
            "unknown or mandatory pass {} (passes: {})",
            unknown.join(", "),
            crate::passes::registry::optional_stack_pass_names().join(", ")
        )
    })
}

/// Why `bytes_per_clock` is not a supported input width, if it is not.
pub fn bytes_per_clock_error(bytes_per_clock: u32) -> Option<String> {
    (!crate::emit::wide::BYTES_PER_CLOCK.contains(&bytes_per_clock))
        .then(|| format!("{bytes_per_clock} bytes per clock is not supported: use 1, 2, 4 or 8"))
}

/// `--mode` values.
pub const MODES: [(&str, Mode); 3] = [
    ("holistic", Mode::Holistic),
    ("paths", Mode::Paths),
    ("pairs", Mode::Pairs),
];

/// `--namespaces` values.
pub const NAMESPACE_MODES: [(&str, Namespaces); 2] =
    [("xpath", Namespaces::Xpath), ("raw", Namespaces::Raw)];

/// `--input` values.
pub const EVENT_INPUTS: [(&str, EventInput); 2] = [
    ("pipelined", EventInput::Pipelined),
    ("broadcast", EventInput::Broadcast),
];

/// One design of a design file (`engine: xpath`): `queries` (required), and
/// the options of `qrtl xpath compile` under their flag names (`mode`,
/// `ordered`, `max_depth`, `max_attributes`, `attr_name_bytes`,
/// `ns_prefixes`, `ns_bindings`, `cluster_size`, `no_compaction`,
/// `no_prefix_merge`, `disable_pass`, `clock_mhz`, `input`,
/// `bytes_per_clock`, `namespaces`, `ns`: a list of `PREFIX=URI`) with the
/// same defaults. Then the query file is loaded as `compile` loads it.
pub fn from_design(
    mut f: qrtl_core::design::Fields<'_>,
) -> Result<(XpathSource, XpathOptions), Failure> {
    let d = XpathOptions::default();
    let queries = f.input("queries");
    let mode = f.choice("mode", d.mode, &MODES);
    let ordered = f.flag("ordered", d.ordered);
    let names = f.choice("namespaces", Namespaces::Xpath, &NAMESPACE_MODES);
    let ns = NsOptions::new(names, &f.strings("ns")).unwrap_or_else(|e| {
        f.reject("ns", format!("`ns`: {e}"), None);
        NsOptions::raw()
    });
    let max_depth = f.uint("max_depth", u64::from(DEFAULT_MAX_DEPTH), 1, 4096) as u32;
    let max_attributes = f.uint(
        "max_attributes",
        u64::from(crate::xml::DEFAULT_MAX_ATTRIBUTES),
        1,
        256,
    ) as u32;
    let attr_name_bytes = f.uint(
        "attr_name_bytes",
        u64::from(crate::xml::DEFAULT_ATTR_NAME_BYTES),
        1,
        1024,
    ) as u32;
    let ns_limits = crate::xml::ns::NsLimits {
        prefixes: f.uint(
            "ns_prefixes",
            u64::from(crate::xml::ns::DEFAULT_NS_PREFIXES),
            1,
            64,
        ) as u32,
        bindings: f.uint(
            "ns_bindings",
            u64::from(crate::xml::ns::DEFAULT_NS_BINDINGS),
            1,
            256,
        ) as u32,
    };
    for key in ["ns_prefixes", "ns_bindings"] {
        if names == Namespaces::Raw && f.has(key) {
            f.reject(
                key,
                format!(
                    "`{key}` sizes the namespace unit: it needs `namespaces: xpath` (a design \
                     comparing raw names has none)"
                ),
                None,
            );
        }
    }
    let cluster_size = f.uint(
        "cluster_size",
        DEFAULT_CLUSTER_SIZE as u64,
        0,
        u32::MAX as u64,
    );
    let mut disabled = f.strings("disable_pass");
    if f.flag("no_compaction", false) {
        disabled.push("compaction".into());
    }
    if f.flag("no_prefix_merge", false) {
        disabled.push("prefix-merge".into());
    }
    let clock_mhz = f.positive("clock_mhz", DEFAULT_CLOCK_MHZ, 2000.0);
    let input = f.choice("input", d.hw.input, &EVENT_INPUTS);
    let bytes_per_clock = f.uint("bytes_per_clock", 1, 1, 8) as u32;
    if let Some(e) = bytes_per_clock_error(bytes_per_clock) {
        f.reject("bytes_per_clock", format!("`bytes_per_clock`: {e}"), None);
    }
    let passes = StackPassConfig {
        cluster_size: cluster_size as usize,
        disabled,
    };
    if let Some(e) = disabled_pass_error(&passes) {
        f.reject("disable_pass", format!("`disable_pass`: {e}"), None);
    }
    if names == Namespaces::Xpath {
        if let Some(r) = ns_hw_refusal(bytes_per_clock, attr_name_bytes) {
            let help = "add `namespaces: raw` to compare names as bytes".to_string();
            f.reject(r.key, format!("`{}`: {}", r.key, r.why), Some(help));
        }
    }
    f.finish().map_err(|d| Failure::diagnostics(&d))?;
    let queries = queries.expect("finish reports a missing or bad `queries`");
    let source = load_queries(&queries, mode, ordered, &ns)?;
    let opts = XpathOptions {
        mode,
        ordered,
        hw: XpathHwOptions {
            xml: XmlConfig {
                max_attributes,
                attr_name_bytes,
                ns_limits: Some(ns_limits),
                ..XmlConfig::with_max_depth(max_depth)
            },
            passes,
            input,
            shape: d.hw.shape,
            bytes_per_clock,
        },
        clock_mhz,
        ns,
    };
    Ok((source, opts))
}
