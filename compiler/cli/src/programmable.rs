//! `qrtl xpath compile --programmable` (the generic design, synthesized
//! once) and `qrtl xpath configure` (a query set lowered onto it, as its
//! configuration stream).

use std::io::Write;
use std::path::Path;

use qrtl_core::diag::plain_error;
use qrtl_core::engine::Failure;
use qrtl_core::project::write_project;
use qrtl_xpath::emit::generic::{decode_generic_result, generic_files, load_cycles, rtl_refusal};
use qrtl_xpath::engine::{generic_project_spec, load_queries};
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
    #[arg(long, value_name = "W", default_value_t = 8)]
    pub window: usize,
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
            comparators: 0,
            counters: 0,
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
    let spec = generic_project_spec(shape, xml, clock_mhz);
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
    let words = config.words(a.id);
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
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
        "{}: {} of {} columns ({} copies), {} tag entries, {} words; loads in {} clocks",
        a.out.display(),
        config.used_slots(),
        shape.columns,
        config.copies,
        config.tags.len(),
        words.len(),
        load_cycles(&shape, &words)
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
