//! `qrtl xpath compile --programmable` (the generic design, synthesized
//! once), `qrtl xpath configure` (a query set lowered onto it, as its
//! configuration stream) and `qrtl xpath sim --programmable` (configurations
//! and documents run in order through one simulation of it; a `--session`
//! file's steps come from `session.rs`).

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use qrtl_core::diag::plain_error;
use qrtl_core::engine::Failure;
use qrtl_core::project::write_project;
use qrtl_xpath::emit::generic::{
    decode_generic_result, generic_files, load_cycles, result_words, rtl_refusal, GenericDocResult,
};
use qrtl_xpath::engine::{decode_status, generic_project_spec, load_queries};
use qrtl_xpath::ir::generic::{Config, Shape};
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
    /// With --programmable: general columns in each cluster (its last
    /// ones), which hold twigs and the steps above them; the others are
    /// chain columns (a parent one column back, no twig), for plain paths
    /// at a fifth of the logic [default: --cluster-size / 4].
    #[arg(long, value_name = "G")]
    pub general_columns: Option<usize>,
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
            general: self.general_columns.unwrap_or(cluster_size / 4),
            window: self.window,
            tags: self
                .tags
                .unwrap_or((self.columns / 2).clamp(16, qrtl_xpath::ir::generic::MAX_TAGS)),
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
        general: size("general")?,
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
    eprintln!("{}: {}", a.out.display(), summary(&config, &shape, &words));
    Ok(0)
}

/// One step of a run through one programmable design.
pub enum RunStep {
    /// Load a configuration: its id, the query file it came from.
    Config {
        id: u16,
        queries: String,
        config: Box<Config>,
    },
    /// Filter a document (one packet).
    Doc { name: String, bytes: Vec<u8> },
}

/// `sim QUERIES DOC... --programmable`: one configuration (id 1), then the
/// documents.
pub fn sim_cmd(
    source: &qrtl_xpath::engine::XpathSource,
    shape: &Shape,
    xml: &XmlConfig,
    docs: Vec<(String, Vec<u8>)>,
    args: &crate::common::SimArgs,
) -> Result<i32, Failure> {
    let config = configure(&source.design, shape)
        .map_err(|e| Failure::input(plain_error(&source.file, format!("does not fit: {e}"))))?;
    let mut steps = vec![RunStep::Config {
        id: 1,
        queries: source.file.clone(),
        config: Box::new(config),
    }];
    steps.extend(
        docs.into_iter()
            .map(|(name, bytes)| RunStep::Doc { name, bytes }),
    );
    run_steps(&steps, shape, xml, args)
}

/// The generic design of `shape` (built once per shape, cached) run
/// through `steps` in one simulation: per document `filter`'s JSON plus
/// cycles, bytes, the id of the configuration that answered (status word
/// bits 31:16) and its query file (null for 0, the empty configuration a
/// reset leaves). A document answered by another configuration than the
/// last one loaded before it is an error (exit 1).
pub fn run_steps(
    steps: &[RunStep],
    shape: &Shape,
    xml: &XmlConfig,
    args: &crate::common::SimArgs,
) -> Result<i32, Failure> {
    use qrtl_core::sim::{build_with, BuildOptions, CfgStream, DriverSpec, Stalls};
    let top = "qrtl_xpath_top";
    let spec = DriverSpec {
        cfg: Some(CfgStream {
            prefix: "s_cfg".into(),
            data_bits: 64,
        }),
        ..DriverSpec::axis(top)
    };
    let built = build_with(
        &spec,
        &generic_files(shape, xml, top),
        args.simulator(),
        &BuildOptions::default(),
    )
    .map_err(|e| sim_error(&e))?;
    let packets = sim_packets(steps, shape);
    let stalls = Stalls {
        seed: args.stall_seed,
        in_gap_percent: args.in_gap,
        out_stall_percent: args.out_stall,
    };
    let run = built
        .run_steps(&packets, &stalls, args.trace.as_deref())
        .map_err(|e| sim_error(&e))?;
    print_results(steps, &run.packets, shape)
}

/// The run's packets: each configuration's words (and a line about it on
/// stderr), each document's bytes.
fn sim_packets(steps: &[RunStep], shape: &Shape) -> Vec<qrtl_core::sim::Step> {
    use qrtl_core::sim::Step;
    let packet = |step: &RunStep| match step {
        RunStep::Config {
            id,
            queries,
            config,
        } => {
            let words = config.words(*id);
            let summary = summary(config, shape, &words);
            eprintln!("{queries}: configuration {id}: {summary}");
            let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            Step::Config(bytes)
        }
        RunStep::Doc { bytes, .. } => Step::Doc(bytes.clone()),
    };
    steps.iter().map(packet).collect()
}

fn sim_error(e: &dyn std::fmt::Display) -> Failure {
    Failure::input(format!("error: simulation failed: {e}"))
}

/// What a configuration takes of the design: columns, copies, tag
/// entries, words and the clocks it loads in.
fn summary(config: &Config, shape: &Shape, words: &[u64]) -> String {
    format!(
        "{} of {} columns ({} copies), {} tag entries, {} words; loads in {} clocks",
        config.used_slots(),
        shape.columns,
        config.copies,
        config.tags.len(),
        words.len(),
        load_cycles(shape, words)
    )
}
/// One JSON line per document, in order; notes and mismatched
/// configurations on stderr.
fn print_results(
    steps: &[RunStep],
    packets: &[qrtl_core::sim::PacketResult],
    shape: &Shape,
) -> Result<i32, Failure> {
    let configs = configs_by_id(steps);
    let (mut loaded, mut code) = (0, 0);
    let mut packets = packets.iter();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for step in steps {
        let (name, bytes) = match step {
            RunStep::Config { id, .. } => {
                loaded = *id;
                continue;
            }
            RunStep::Doc { name, bytes } => (name, bytes),
        };
        let packet = packets
            .next()
            .ok_or_else(|| sim_error(&"fewer results than documents"))?;
        let (r, queries) = decode(&packet.words, &configs, shape).map_err(|e| sim_error(&e))?;
        let line = result_line(name, bytes.len(), packet.cycles, &r, queries);
        if writeln!(out, "{line}").is_err() {
            return Ok(code);
        }
        if r.reason.is_some() || r.config_id != loaded {
            let _ = out.flush();
        }
        if let Some(reason) = r.reason {
            eprintln!("{name}: note: {}: {}", r.status.as_str(), reason.describe());
        }
        if r.config_id != loaded {
            eprintln!(
                "{}",
                plain_error(
                    name,
                    format!(
                        "answered by configuration {}, but the last one loaded before it is {loaded}",
                        r.config_id
                    )
                )
            );
            code = 1;
        }
    }
    let _ = out.flush();
    Ok(code)
}

/// Each configuration of a run by its id, with its query file.
fn configs_by_id(steps: &[RunStep]) -> HashMap<u16, (&str, &Config)> {
    steps
        .iter()
        .filter_map(|s| match s {
            RunStep::Config {
                id,
                queries,
                config,
            } => Some((*id, (queries.as_str(), &**config))),
            RunStep::Doc { .. } => None,
        })
        .collect()
}

/// A document's JSON line: `sim`'s keys, then the configuration's.
fn result_line(
    name: &str,
    bytes: usize,
    cycles: u64,
    r: &GenericDocResult,
    queries: Option<&str>,
) -> String {
    format!(
        "{{\"doc\":{},\"status\":\"{}\",\"matched\":{},\"cycles\":{cycles},\"bytes\":{bytes},\"config\":{},\"queries\":{}}}",
        json!(name),
        r.status.as_str(),
        json!(r.matched),
        r.config_id,
        json!(queries)
    )
}

/// A document's result decoded with the configuration that answered it
/// (the status word's id), and that configuration's query file.
fn decode<'a>(
    words: &[u32],
    configs: &HashMap<u16, (&'a str, &Config)>,
    shape: &Shape,
) -> Result<(GenericDocResult, Option<&'a str>), String> {
    let id = words.first().map_or(0, |w| (w >> 16) as u16);
    match configs.get(&id) {
        Some(&(queries, config)) => Ok((decode_generic_result(words, config)?, Some(queries))),
        None if id == 0 => {
            let expect = result_words(shape);
            if words.len() != expect {
                return Err(format!("{} result words, expected {expect}", words.len()));
            }
            let (status, reason) = decode_status(words[0])?;
            let r = GenericDocResult {
                status,
                reason,
                config_id: 0,
                matched: Vec::new(),
            };
            Ok((r, None))
        }
        None => Err(format!(
            "a document was answered by configuration {id}, which was never loaded"
        )),
    }
}
