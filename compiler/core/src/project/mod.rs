//! Generated project files (constraints, scripts, FuseSoC core, manifest).
//!
//! [`write_project`] turns a [`ProjectSpec`] (Verilog sources, top module,
//! clock, ports) into a self-contained directory that an FPGA engineer can
//! hand to Vivado, Yosys/nextpnr or FuseSoC. The file templates live in
//! `constraints/` (SPEC §1). Engine-independent: the XPath, FlexTrack and
//! Golomb-Rice emitters all describe their top through a `ProjectSpec`.
//!
//! Layout of a written project:
//!
//! ```text
//! rtl/*.v                  the sources, in the order given
//! files.f                  one source path per line (relative to the project)
//! constraints/<top>.xdc    Vivado: create_clock + IO budget, no pins
//! constraints/<top>.sdc    the same in plain SDC
//! constraints/<top>.lpf    nextpnr-ecp5: FREQUENCY PORT
//! constraints/<top>.pcf    nextpnr-ice40: no pins (board-specific)
//! vivado.tcl               Vivado non-project flow, part overridable
//! synth/{xc7,xc6v,ecp5,ice40}.ys   Yosys scripts (run from the project dir)
//! Makefile                 lint / xc7 / xc6v / ecp5 / ice40 / vivado
//! <name>.core              FuseSoC CAPI2 core
//! README.md, manifest.json
//! tb/Makefile, tb/test_<top>.py   cocotb testbench (`make cocotb`, Icarus)
//! build/.gitignore         output directory of the Yosys/nextpnr flows
//! ```

use std::fmt;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use askama::Template;
use serde_json::{json, Map, Value};

#[cfg(test)]
mod tests;

/// Default Vivado part: Artix-7 200T (Nexys Video, AC701-class boards).
pub const DEFAULT_VIVADO_PART: &str = "xc7a200tsbg484-1";

/// Share of the clock period given to the surrounding logic on each side of
/// the core's ports (set_input_delay / set_output_delay).
pub const IO_BUDGET_PERCENT: u32 = 30;

/// The ABC script `synth_ecp5`'s LUT mapping (abc9) runs for `qrtl synth
/// --target ecp5`: Yosys's default for abc9 with `&if -t`. By default `&if`
/// maps for the best delay of the whole design and then recovers area on
/// every other path up to that delay, so one deep cone (the XML parser's
/// error sum, six LUT levels) lets thousands of shallow ones (a column's
/// match terms, a counter's enable) grow into chains of four LUTs, and
/// place and route then finds one of them with a long wire. `-t` ("optimize
/// average delay") gives each output its own best delay as its required
/// time instead: at 2K queries, 2 register inputs four or more LUTs deep
/// instead of 570, for about a quarter more LUT4s (LUT5/LUT6 through the
/// slice's muxes). The Xilinx targets report area and keep the default.
pub const ECP5_ABC9_SCRIPT: &str =
    "+&scorr;&sweep;&dc2;&dch,-f,-r;&ps;&if,-W,300,-v,-t;&mfs;&ps,-l";

/// What a generated project is built from.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectSpec {
    /// Project name: file name of the FuseSoC core, README title
    /// (letters, digits, `_` and `-`).
    pub name: String,
    /// Top-level Verilog module.
    pub top: String,
    /// Verilog sources `(file name, contents)`, in compile order; plain file
    /// names ending in `.v` (written to `rtl/`).
    pub rtl: Vec<(String, String)>,
    pub clock_mhz: f64,
    /// Clock input (must be one of `ports`).
    pub clock_port: String,
    /// Synchronous active-high reset input (one of `ports`), or empty when
    /// the design has none.
    pub reset_port: String,
    /// Every port of the top module.
    pub ports: Vec<Port>,
    /// Extra manifest keys (a JSON object, or `null`); a key that clashes
    /// with a generated one is an error.
    pub manifest_extra: Value,
    /// Markdown appended to the generated README.
    pub readme_extra: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub dir: PortDir,
    pub width: u32,
    pub description: String,
}

/// The ports of an engine's AXI4-Stream top, in this order: `clk`, `rst`,
/// `s_axis_tdata`, `s_axis_tkeep` (when the top takes partial last beats),
/// `s_axis_tvalid`, `s_axis_tready`, `s_axis_tlast`, then `m_axis_tdata`,
/// `m_axis_tvalid`, `m_axis_tready`, `m_axis_tlast`; each engine gives the
/// widths and what its ports carry.
#[derive(Clone, Copy, Debug)]
pub struct StreamPorts<'a> {
    pub in_bits: u32,
    pub in_data: &'a str,
    /// `s_axis_tkeep`'s description; `None`: no tkeep.
    pub in_keep: Option<&'a str>,
    pub in_valid: &'a str,
    pub in_ready: &'a str,
    pub in_last: &'a str,
    pub out_bits: u32,
    pub out_data: &'a str,
    pub out_valid: &'a str,
    pub out_ready: &'a str,
    pub out_last: &'a str,
}

impl StreamPorts<'_> {
    pub fn ports(&self) -> Vec<Port> {
        use PortDir::{Input, Output};
        let p = |name: &str, dir, width, description: &str| Port {
            name: name.to_string(),
            dir,
            width,
            description: description.to_string(),
        };
        let mut ports = vec![
            p("clk", Input, 1, "clock"),
            p("rst", Input, 1, "synchronous reset, active high"),
            p("s_axis_tdata", Input, self.in_bits, self.in_data),
        ];
        if let Some(keep) = self.in_keep {
            ports.push(p("s_axis_tkeep", Input, self.in_bits / 8, keep));
        }
        ports.extend([
            p("s_axis_tvalid", Input, 1, self.in_valid),
            p("s_axis_tready", Output, 1, self.in_ready),
            p("s_axis_tlast", Input, 1, self.in_last),
            p("m_axis_tdata", Output, self.out_bits, self.out_data),
            p("m_axis_tvalid", Output, 1, self.out_valid),
            p("m_axis_tready", Input, 1, self.out_ready),
            p("m_axis_tlast", Output, 1, self.out_last),
        ]);
        ports
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortDir {
    Input,
    Output,
}

impl PortDir {
    pub fn as_str(self) -> &'static str {
        match self {
            PortDir::Input => "input",
            PortDir::Output => "output",
        }
    }
}

/// Why a project could not be written.
#[derive(Debug)]
pub enum ProjectError {
    /// Creating or writing `path` failed.
    Io { path: PathBuf, source: io::Error },
    /// Rendering the template for `path` failed.
    Render {
        path: PathBuf,
        source: askama::Error,
    },
    /// The spec is inconsistent (bad name, unknown clock port, ...); `path`
    /// is the project directory.
    InvalidSpec { path: PathBuf, message: String },
    /// A project's `manifest.json` is missing or does not describe a
    /// project (`path` is the manifest).
    BadManifest { path: PathBuf, message: String },
}

impl fmt::Display for ProjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProjectError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ProjectError::Render { path, source } => {
                write!(f, "{}: template error: {source}", path.display())
            }
            ProjectError::InvalidSpec { path, message } => {
                write!(f, "{}: invalid project: {message}", path.display())
            }
            ProjectError::BadManifest { path, message } => {
                write!(f, "{}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for ProjectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProjectError::Io { source, .. } => Some(source),
            ProjectError::Render { source, .. } => Some(source),
            ProjectError::InvalidSpec { .. } | ProjectError::BadManifest { .. } => None,
        }
    }
}

/// A port as the templates see it.
struct PortView {
    name: String,
    dir: &'static str,
    width: u32,
    description: String,
    /// Tcl/SDC object pattern: `name` or `{name[*]}`.
    tcl: String,
    /// First bit as a PCF names it: `name` or `name[0]`.
    bit0: String,
}

/// Everything the project templates can use.
struct Ctx {
    name: String,
    top: String,
    vlnv: String,
    description: String,
    clock_mhz: String,
    period_ns: String,
    clock_port: String,
    reset_port: String,
    has_reset: bool,
    io_budget_percent: u32,
    comb_percent: u32,
    io_delay_ns: String,
    default_part: &'static str,
    rtl_files: Vec<String>,
    ports: Vec<PortView>,
    inputs: Vec<PortView>,
    outputs: Vec<PortView>,
    port_bits: u64,
    readme_extra: String,
    /// The ECP5 LUT-mapping script ([`ECP5_ABC9_SCRIPT`]).
    ecp5_abc9_script: &'static str,
}

macro_rules! project_template {
    ($ty:ident, $path:literal) => {
        #[derive(Template)]
        #[template(path = $path, escape = "none")]
        struct $ty<'a> {
            ctx: &'a Ctx,
        }
        impl Deref for $ty<'_> {
            type Target = Ctx;
            fn deref(&self) -> &Ctx {
                self.ctx
            }
        }
    };
}

project_template!(XdcT, "project.xdc");
project_template!(SdcT, "project.sdc");
project_template!(LpfT, "project.lpf");
project_template!(PcfT, "project.pcf");
project_template!(VivadoT, "project_vivado.tcl");
project_template!(Ecp5YsT, "project_ecp5.ys");
project_template!(Ice40YsT, "project_ice40.ys");
project_template!(MakefileT, "project_Makefile.mk");
project_template!(CoreT, "project.core");
project_template!(ReadmeT, "project_readme.md");
project_template!(TbMakefileT, "tb_Makefile.mk");

/// The cocotb testbench (`tb/test_<top>.py`): the same for every project,
/// it reads the project's manifest.
const TB_TEST: &str = include_str!("../../../../constraints/tb_test.py");

#[derive(Template)]
#[template(path = "project_xilinx.ys", escape = "none")]
struct XilinxYsT<'a> {
    ctx: &'a Ctx,
    family: &'a str,
    family_name: &'a str,
}
impl Deref for XilinxYsT<'_> {
    type Target = Ctx;
    fn deref(&self) -> &Ctx {
        self.ctx
    }
}

/// A number for a constraint file: at most three decimals, no trailing zeros.
pub fn format_decimal(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Clock period in ns for a frequency in MHz, as written in the constraints.
pub fn period_ns(clock_mhz: f64) -> String {
    format_decimal(1000.0 / clock_mhz)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn validate(dir: &Path, spec: &ProjectSpec) -> Result<(), ProjectError> {
    let bad = |message: String| ProjectError::InvalidSpec {
        path: dir.to_path_buf(),
        message,
    };
    if spec.name.is_empty()
        || !spec
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(bad(format!(
            "project name `{}` must be letters, digits, `_` or `-`",
            spec.name
        )));
    }
    if !is_identifier(&spec.top) {
        return Err(bad(format!(
            "top `{}` is not a Verilog identifier",
            spec.top
        )));
    }
    if !(spec.clock_mhz.is_finite() && spec.clock_mhz > 0.0) {
        return Err(bad(format!(
            "clock_mhz {} must be positive",
            spec.clock_mhz
        )));
    }
    if spec.rtl.is_empty() {
        return Err(bad("no RTL sources".into()));
    }
    for (i, (file, _)) in spec.rtl.iter().enumerate() {
        let stem = file.strip_suffix(".v").unwrap_or("");
        if stem.is_empty()
            || !stem
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
        {
            return Err(bad(format!(
                "RTL file name `{file}` must be a plain `NAME.v` (no directories)"
            )));
        }
        if spec.rtl[..i].iter().any(|(f, _)| f == file) {
            return Err(bad(format!("RTL file `{file}` given twice")));
        }
    }
    for (i, p) in spec.ports.iter().enumerate() {
        if !is_identifier(&p.name) {
            return Err(bad(format!(
                "port `{}` is not a Verilog identifier",
                p.name
            )));
        }
        if p.width == 0 {
            return Err(bad(format!("port `{}` has width 0", p.name)));
        }
        if spec.ports[..i].iter().any(|q| q.name == p.name) {
            return Err(bad(format!("port `{}` listed twice", p.name)));
        }
    }
    let input_1bit = |name: &str| {
        spec.ports
            .iter()
            .any(|p| p.name == name && p.dir == PortDir::Input && p.width == 1)
    };
    if !input_1bit(&spec.clock_port) {
        return Err(bad(format!(
            "clock `{}` is not a 1-bit input port",
            spec.clock_port
        )));
    }
    if !spec.reset_port.is_empty() && !input_1bit(&spec.reset_port) {
        return Err(bad(format!(
            "reset `{}` is not a 1-bit input port",
            spec.reset_port
        )));
    }
    if !(spec.manifest_extra.is_object() || spec.manifest_extra.is_null()) {
        return Err(bad("manifest_extra must be a JSON object or null".into()));
    }
    Ok(())
}

fn context(spec: &ProjectSpec) -> Ctx {
    let view = |p: &Port| PortView {
        name: p.name.clone(),
        dir: p.dir.as_str(),
        width: p.width,
        description: p.description.clone(),
        tcl: if p.width == 1 {
            p.name.clone()
        } else {
            format!("{{{}[*]}}", p.name)
        },
        bit0: if p.width == 1 {
            p.name.clone()
        } else {
            format!("{}[0]", p.name)
        },
    };
    let period = 1000.0 / spec.clock_mhz;
    Ctx {
        name: spec.name.clone(),
        top: spec.top.clone(),
        vlnv: format!("qrtl:generated:{}:0.1.0", spec.name),
        description: format!("{} (generated by qrtl)", spec.top),
        clock_mhz: format_decimal(spec.clock_mhz),
        period_ns: format_decimal(period),
        clock_port: spec.clock_port.clone(),
        reset_port: spec.reset_port.clone(),
        has_reset: !spec.reset_port.is_empty(),
        io_budget_percent: IO_BUDGET_PERCENT,
        comb_percent: 100 - 2 * IO_BUDGET_PERCENT,
        io_delay_ns: format_decimal(period * f64::from(IO_BUDGET_PERCENT) / 100.0),
        default_part: DEFAULT_VIVADO_PART,
        ecp5_abc9_script: ECP5_ABC9_SCRIPT,
        rtl_files: spec.rtl.iter().map(|(f, _)| format!("rtl/{f}")).collect(),
        ports: spec.ports.iter().map(view).collect(),
        inputs: spec
            .ports
            .iter()
            .filter(|p| p.dir == PortDir::Input && p.name != spec.clock_port)
            .map(view)
            .collect(),
        outputs: spec
            .ports
            .iter()
            .filter(|p| p.dir == PortDir::Output)
            .map(view)
            .collect(),
        port_bits: spec.ports.iter().map(|p| u64::from(p.width)).sum(),
        readme_extra: spec.readme_extra.trim_end().to_string(),
    }
}

fn manifest(dir: &Path, spec: &ProjectSpec, ctx: &Ctx) -> Result<Value, ProjectError> {
    let top = &spec.top;
    let mut m = Map::new();
    m.insert("name".into(), json!(spec.name));
    m.insert("top".into(), json!(spec.top));
    m.insert("clock_mhz".into(), json!(spec.clock_mhz));
    m.insert("clock_port".into(), json!(spec.clock_port));
    m.insert("reset_port".into(), json!(spec.reset_port));
    m.insert(
        "ports".into(),
        Value::Array(
            spec.ports
                .iter()
                .map(|p| {
                    json!({"name": p.name, "dir": p.dir.as_str(), "width": p.width,
                           "description": p.description})
                })
                .collect(),
        ),
    );
    m.insert("files".into(), json!(ctx.rtl_files));
    m.insert(
        "constraints".into(),
        json!({
            "xdc": format!("constraints/{top}.xdc"),
            "sdc": format!("constraints/{top}.sdc"),
            "lpf": format!("constraints/{top}.lpf"),
            "pcf": format!("constraints/{top}.pcf"),
        }),
    );
    m.insert(
        "scripts".into(),
        json!({
            "vivado": "vivado.tcl",
            "xc7": "synth/xc7.ys",
            "xc6v": "synth/xc6v.ys",
            "ecp5": "synth/ecp5.ys",
            "ice40": "synth/ice40.ys",
            "makefile": "Makefile",
            "fusesoc": format!("{}.core", spec.name),
        }),
    );
    if let Value::Object(extra) = &spec.manifest_extra {
        for (k, v) in extra {
            if m.contains_key(k) {
                return Err(ProjectError::InvalidSpec {
                    path: dir.to_path_buf(),
                    message: format!("manifest_extra key `{k}` clashes with a generated key"),
                });
            }
            m.insert(k.clone(), v.clone());
        }
    }
    Ok(Value::Object(m))
}

/// Write `contents` to `path` unless it holds them already: an unchanged
/// file is never truncated, so a compile into a project another process is
/// reading (side-by-side `qrtl-bench-report` runs, a `qrtl synth` while
/// the same design is recompiled) leaves it intact, and keeps its mtime.
fn write_file(path: &Path, contents: &str) -> Result<(), ProjectError> {
    if std::fs::read(path).is_ok_and(|old| old == contents.as_bytes()) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| ProjectError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(path, contents).map_err(|source| ProjectError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn render(path: &Path, t: &impl Template) -> Result<String, ProjectError> {
    let mut s = t.render().map_err(|source| ProjectError::Render {
        path: path.to_path_buf(),
        source,
    })?;
    if !s.ends_with('\n') {
        s.push('\n');
    }
    Ok(s)
}

/// Write the project for `spec` into `dir` (created if needed; existing
/// files with the same names are overwritten, others are left alone).
pub fn write_project(dir: &Path, spec: &ProjectSpec) -> Result<(), ProjectError> {
    validate(dir, spec)?;
    let ctx = context(spec);
    let top = &spec.top;
    let c = &ctx;

    // A previous compile into the same directory may have left modules this
    // design does not have (e.g. more clusters): `rtl/` holds exactly `rtl`.
    let rtl_dir = dir.join("rtl");
    if let Ok(entries) = std::fs::read_dir(&rtl_dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            let ours = spec.rtl.iter().any(|(f, _)| *f == name);
            if !ours && path.extension().is_some_and(|e| e == "v") && path.is_file() {
                std::fs::remove_file(&path).map_err(|source| ProjectError::Io {
                    path: path.clone(),
                    source,
                })?;
            }
        }
    }
    for (file, text) in &spec.rtl {
        write_file(&rtl_dir.join(file), text)?;
    }
    let mut files_f = String::new();
    for f in &ctx.rtl_files {
        files_f.push_str(f);
        files_f.push('\n');
    }
    write_file(&dir.join("files.f"), &files_f)?;

    let mut out: Vec<(PathBuf, String)> = Vec::new();
    let mut add = |rel: String, t: &dyn Fn(&Path) -> Result<String, ProjectError>| {
        let path = dir.join(rel);
        let text = t(&path)?;
        out.push((path, text));
        Ok::<(), ProjectError>(())
    };
    add(format!("constraints/{top}.xdc"), &|p| {
        render(p, &XdcT { ctx: c })
    })?;
    add(format!("constraints/{top}.sdc"), &|p| {
        render(p, &SdcT { ctx: c })
    })?;
    add(format!("constraints/{top}.lpf"), &|p| {
        render(p, &LpfT { ctx: c })
    })?;
    add(format!("constraints/{top}.pcf"), &|p| {
        render(p, &PcfT { ctx: c })
    })?;
    add("vivado.tcl".into(), &|p| render(p, &VivadoT { ctx: c }))?;
    for (family, family_name) in [("xc7", "7-series"), ("xc6v", "Virtex-6")] {
        add(format!("synth/{family}.ys"), &|p| {
            render(
                p,
                &XilinxYsT {
                    ctx: c,
                    family,
                    family_name,
                },
            )
        })?;
    }
    add("synth/ecp5.ys".into(), &|p| render(p, &Ecp5YsT { ctx: c }))?;
    add("synth/ice40.ys".into(), &|p| {
        render(p, &Ice40YsT { ctx: c })
    })?;
    add("Makefile".into(), &|p| render(p, &MakefileT { ctx: c }))?;
    add(format!("{}.core", spec.name), &|p| {
        render(p, &CoreT { ctx: c })
    })?;
    add("README.md".into(), &|p| render(p, &ReadmeT { ctx: c }))?;
    add("tb/Makefile".into(), &|p| {
        render(p, &TbMakefileT { ctx: c })
    })?;
    add(format!("tb/test_{top}.py"), &|_| Ok(TB_TEST.to_string()))?;
    let manifest = manifest(dir, spec, c)?;
    out.push((
        dir.join("manifest.json"),
        serde_json::to_string_pretty(&manifest).expect("JSON values serialise") + "\n",
    ));
    out.push((dir.join("build/.gitignore"), "*\n!.gitignore\n".into()));
    for (path, text) in &out {
        write_file(path, text)?;
    }
    Ok(())
}

/// What a tool needs to know of a written project, read back from its
/// `manifest.json` (the fields [`write_project`] always writes).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct Manifest {
    pub name: String,
    pub top: String,
    pub clock_mhz: f64,
    pub clock_port: String,
    #[serde(default)]
    pub reset_port: String,
    /// Sources relative to the project, in compile order.
    pub files: Vec<String>,
    pub ports: Vec<ManifestPort>,
}

#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct ManifestPort {
    pub name: String,
    pub dir: String,
    pub width: u32,
}

impl Manifest {
    /// The ports in `dir` (`input` or `output`), the clock excluded.
    pub fn ports_in(&self, dir: &str) -> impl Iterator<Item = &ManifestPort> {
        let dir = dir.to_string();
        self.ports
            .iter()
            .filter(move |p| p.dir == dir && p.name != self.clock_port)
    }
}

/// Read the manifest of the project in `dir` and check that its sources
/// exist.
pub fn read_manifest(dir: &Path) -> Result<Manifest, ProjectError> {
    let path = dir.join("manifest.json");
    let bad = |message: String| ProjectError::BadManifest {
        path: path.clone(),
        message,
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(bad(
            "not found: DIR must be a project written by `qrtl xpath|track|rice compile -o DIR`"
                .into(),
        )),
        Err(source) => return Err(ProjectError::Io { path, source }),
    };
    let m: Manifest = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "line {} column {}: not a qrtl project manifest: {e}",
            e.line(),
            e.column()
        ))
    })?;
    if !is_identifier(&m.top) {
        return Err(bad(format!("top `{}` is not a Verilog identifier", m.top)));
    }
    if m.files.is_empty() {
        return Err(bad("no RTL sources in `files`".into()));
    }
    for f in &m.files {
        if Path::new(f).is_absolute() || f.split('/').any(|c| c == "..") {
            return Err(bad(format!("source `{f}` is not inside the project")));
        }
        if !dir.join(f).is_file() {
            return Err(bad(format!("source `{f}` listed but missing")));
        }
    }
    for p in &m.ports {
        if !is_identifier(&p.name) || p.width == 0 || !(p.dir == "input" || p.dir == "output") {
            return Err(bad(format!(
                "port `{}` ({} {} bits) is not a valid port",
                p.name, p.dir, p.width
            )));
        }
    }
    if !m
        .ports
        .iter()
        .any(|p| p.name == m.clock_port && p.dir == "input" && p.width == 1)
    {
        return Err(bad(format!(
            "clock `{}` is not a 1-bit input port",
            m.clock_port
        )));
    }
    Ok(m)
}
