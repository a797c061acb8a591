//! `qrtl xpath compile --programmable` (the generic design, synthesized
//! once) and `qrtl xpath configure` (a query set lowered onto it, as its
//! configuration stream).

use std::io::Write;
use std::path::Path;

use qrtl_core::diag::plain_error;
use qrtl_core::engine::Failure;
use qrtl_core::project::{write_project, Port, PortDir, ProjectSpec};
use qrtl_xpath::emit::generic::{decode_generic_result, generic_files, result_words, rtl_refusal};
use qrtl_xpath::engine::{load_queries, xpath_top_ports};
use qrtl_xpath::ir::config_words::shape_signature;
use qrtl_xpath::ir::generic::Shape;
use qrtl_xpath::ir::xpath::{Mode, Namespaces};
use qrtl_xpath::lower::generic::configure;
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::xml::XmlConfig;
use serde_json::json;

/// The sizes of a programmable design.
#[derive(clap::Args, Debug, Clone)]
pub struct ProgOpts {
    /// Build the programmable engine: generic stack columns whose queries
    /// are a configuration loaded at run time (`qrtl xpath configure`),
    /// so one synthesis serves every query set that fits. No query file.
    #[arg(long)]
    pub programmable: bool,
    /// With --programmable: generic stack columns in all, a multiple of
    /// --cluster-size (columns per cluster).
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub columns: usize,
    /// With --programmable: tag decoder entries [default: columns / 2].
    #[arg(long, value_name = "T")]
    pub tags: Option<usize>,
    /// With --programmable: longest element name a tag entry holds.
    #[arg(long, value_name = "L", default_value_t = 32)]
    pub tag_bytes: usize,
    /// With --programmable: how far back a column's parent may be (and
    /// forward its twig children).
    #[arg(long, value_name = "W", default_value_t = 16)]
    pub window: usize,
    /// With --programmable: value comparators (attribute and text()
    /// tests, run-time literals) [default: columns / 16, at least 8].
    #[arg(long, value_name = "K")]
    pub comparators: Option<usize>,
    /// With --programmable: a comparator's literal entries: a string
    /// literal's bytes, or a number's rounding bounds (two digits an
    /// entry; about 55 for everyday numbers), 1 to 255.
    #[arg(long, value_name = "B", default_value_t = 64)]
    pub literal_bytes: usize,
    /// With --programmable: positional counters ([n], [position() OP n])
    /// [default: columns / 64, at least 4].
    #[arg(long, value_name = "P")]
    pub counters: Option<usize>,
    /// With --programmable: condition lanes per cluster (unit bits a
    /// cluster's columns can test), 1 to 12.
    #[arg(long, value_name = "L", default_value_t = 8)]
    pub lanes: usize,
}

impl ProgOpts {
    /// The design's sizes, or a usage error.
    pub fn shape(
        &self,
        cluster_size: usize,
        max_depth: u32,
        namespaces: Namespaces,
    ) -> Result<Shape, Failure> {
        let shape = Shape {
            cluster_size,
            window: self.window,
            tags: self.tags.unwrap_or((self.columns / 2).max(16)),
            tag_bytes: self.tag_bytes,
            comparators: self.comparators.unwrap_or((self.columns / 16).max(8)),
            literal_bytes: self.literal_bytes,
            counters: self.counters.unwrap_or((self.columns / 64).max(4)),
            lanes: self.lanes,
            max_depth,
            namespaces,
            ..Shape::with_columns(self.columns)
        };
        let refusal = shape.check().err().or_else(|| rtl_refusal(&shape));
        match refusal {
            Some(why) => Err(Failure::usage(format!("error: --programmable: {why}"))),
            None => Ok(shape),
        }
    }
}

/// `compile --programmable -o DIR`: the generic design's project.
pub fn compile(shape: &Shape, xml: &XmlConfig, clock_mhz: f64, out: &Path) -> Result<i32, Failure> {
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
                "columns": shape.columns, "cluster_size": shape.cluster_size,
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
            "load_cycles": "one per word, plus one per tag byte",
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
         {} generic stack columns in {} cluster(s) of {}, {} tag entries of up to {} bytes, \
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
    let spec = ProjectSpec {
        name: "qrtl_xpath".to_string(),
        top: top.to_string(),
        rtl: generic_files(shape, xml, top),
        clock_mhz,
        clock_port: "clk".to_string(),
        reset_port: "rst".to_string(),
        ports,
        manifest_extra,
        readme_extra,
    };
    write_project(out, &spec).map_err(|e| Failure::input(format!("error: {e}")))?;
    Ok(0)
}

/// The sizes a programmable project was built with (its manifest).
fn design_shape(dir: &Path) -> Result<Shape, Failure> {
    let path = dir.join("manifest.json");
    let name = path.display().to_string();
    let text = std::fs::read_to_string(&path)
        .map_err(|e| Failure::input(plain_error(&name, format!("cannot read: {e}"))))?;
    let m: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Failure::input(plain_error(&name, format!("not JSON: {e}"))))?;
    let p = &m["parameters"]["programmable"];
    if m["kind"] != "xpath-programmable" || !p.is_object() {
        return Err(Failure::input(plain_error(
            &name,
            "not a programmable design (make one with `qrtl xpath compile --programmable`)",
        )));
    }
    let size = |k: &str| {
        p[k].as_u64().map(|v| v as usize).ok_or_else(|| {
            Failure::input(plain_error(
                &name,
                format!("`parameters.programmable.{k}` is missing"),
            ))
        })
    };
    let namespaces = match p["namespaces"].as_str() {
        Some("raw") => Namespaces::Raw,
        Some("xpath") => Namespaces::Xpath,
        _ => return Err(Failure::input(plain_error(&name, "bad `namespaces`"))),
    };
    Ok(Shape {
        columns: size("columns")?,
        cluster_size: size("cluster_size")?,
        window: size("window")?,
        tags: size("tags")?,
        tag_bytes: size("tag_bytes")?,
        uris: size("uris")?,
        uri_bytes: size("uri_bytes")?,
        comparators: size("comparators")?,
        literal_bytes: size("literal_bytes")?,
        counters: size("counters")?,
        lanes: size("lanes")?,
        max_depth: size("max_depth")? as u32,
        namespaces,
    })
}

/// What `configure` writes and how.
pub struct ConfigureArgs<'a> {
    pub queries: &'a Path,
    pub design: &'a Path,
    pub out: &'a Path,
    pub dump: Option<&'a Path>,
    pub id: u16,
    pub mode: Mode,
    pub ordered: bool,
}

/// `configure QUERIES --design DIR -o CONFIG.bin`: the configuration
/// stream, or the resource that does not fit (exit 1, nothing written).
pub fn configure_cmd(a: &ConfigureArgs, ns: &NsOptions) -> Result<i32, Failure> {
    let shape = design_shape(a.design)?;
    let source = load_queries(a.queries, a.mode, a.ordered, ns)?;
    let config = configure(&source.design, &shape).map_err(|e| {
        Failure::input(plain_error(
            &a.queries.display().to_string(),
            format!("does not fit {}: {e}", a.design.display()),
        ))
    })?;
    let bytes: Vec<u8> = config
        .words(a.id)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let text = config.to_string();
    std::fs::write(a.out, &bytes).map_err(|e| {
        Failure::input(plain_error(
            &a.out.display().to_string(),
            format!("cannot write: {e}"),
        ))
    })?;
    match a.dump {
        Some(p) if p == Path::new("-") => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
        Some(p) => std::fs::write(p, &text).map_err(|e| {
            Failure::input(plain_error(
                &p.display().to_string(),
                format!("cannot write: {e}"),
            ))
        })?,
        None => {}
    }
    eprintln!(
        "{}: {} of {} columns ({} copies), {} tag entries, {} words",
        a.out.display(),
        config.used_slots(),
        shape.columns,
        config.copies,
        config.tags.len(),
        bytes.len() / 8
    );
    Ok(0)
}

/// `sim QUERIES DOC... --programmable`: the generic design of `shape`
/// (built once per shape, cached), configured with the queries, then the
/// documents; `filter`'s JSON plus cycles, bytes and the configuration id.
pub fn sim_cmd(
    source: &qrtl_xpath::engine::XpathSource,
    shape: &Shape,
    xml: &XmlConfig,
    docs: &[(String, Vec<u8>)],
    args: &crate::common::SimArgs,
) -> Result<i32, Failure> {
    use qrtl_core::sim::{build_with, BuildOptions, CfgStream, DriverSpec, Stalls, Step};
    let config = configure(&source.design, shape)
        .map_err(|e| Failure::input(plain_error(&source.file, format!("does not fit: {e}"))))?;
    let top = "qrtl_xpath_top";
    let spec = DriverSpec {
        cfg: Some(CfgStream {
            prefix: "s_cfg".into(),
            data_bits: 64,
        }),
        ..DriverSpec::axis(top)
    };
    let sim_error =
        |e: &dyn std::fmt::Display| Failure::input(format!("error: simulation failed: {e}"));
    let built = build_with(
        &spec,
        &generic_files(shape, xml, top),
        args.simulator(),
        &BuildOptions::default(),
    )
    .map_err(|e| sim_error(&e))?;
    let id = 1;
    let mut steps = vec![Step::Config(
        config
            .words(id)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect(),
    )];
    steps.extend(docs.iter().map(|(_, d)| Step::Doc(d.clone())));
    let stalls = Stalls {
        seed: args.stall_seed,
        in_gap_percent: args.in_gap,
        out_stall_percent: args.out_stall,
    };
    let run = built
        .run_steps(&steps, &stalls, args.trace.as_deref())
        .map_err(|e| sim_error(&e))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for ((name, bytes), packet) in docs.iter().zip(&run.packets) {
        let r = decode_generic_result(&packet.words, &config).map_err(|e| sim_error(&e))?;
        let line = format!(
            "{{\"doc\":{},\"status\":\"{}\",\"matched\":{},\"cycles\":{},\"bytes\":{},\"config\":{}}}",
            json!(name),
            r.status.as_str(),
            json!(r.matched),
            packet.cycles,
            bytes.len(),
            r.config_id
        );
        if writeln!(out, "{line}").is_err() {
            return Ok(0);
        }
        if let Some(reason) = r.reason {
            let _ = out.flush();
            eprintln!("{name}: note: {}: {}", r.status.as_str(), reason.describe());
        }
    }
    let _ = out.flush();
    Ok(0)
}
