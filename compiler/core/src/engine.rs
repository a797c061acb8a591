//! The engine interface: what every engine (XPath, FlexTrack, Golomb-Rice,
//! and the next one) gives the shared flow, implemented once per engine
//! crate. `compile`, `sim`, `build` and the RTL-against-model check are
//! written once on top of it ([`write_compiled`], [`simulate`],
//! [`check_against_model`]); an engine never writes a project, drives a
//! simulator or decodes a stream on its own.
//!
//! The stages, in the one direction of the pipeline:
//! 1. the engine crate's own loader reads and checks its sources (query,
//!    pattern or integer files; a design file entry) into
//!    [`Engine::Source`], with every diagnostic;
//! 2. [`Engine::compile`]: source + options → [`Engine::Design`] (IR after
//!    the passes, and the emitted RTL);
//! 3. [`Engine::project`]: the design as a [`ProjectSpec`] for
//!    [`crate::project::write_project`];
//! 4. [`Engine::encode`] / [`Engine::decode`]: one input as an AXI4-Stream
//!    packet, one packet's result beats as the engine's output;
//! 5. [`Engine::model`]: the reference model's output for the same input.

use std::fmt;
use std::path::Path;

use crate::diag::Diagnostic;
use crate::project::{write_project, ProjectSpec};
use crate::sim::{BuildOptions, Built, DriverSpec, PacketResult, SimRun, Simulator, Stalls};

/// Designs with more Verilog than this are simulated from C++ compiled
/// without optimization: Verilator's C++ of a 1,000-twig XPath design takes
/// over 20 minutes at -Os on two cores, under 3 at -O0, and still simulates
/// inputs quickly.
pub const LARGE_RTL_BYTES: usize = 1 << 20;

/// Why a command could not go on: the text for stderr (diagnostics already
/// rendered) and the exit code (1 bad input, 2 usage).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub exit_code: i32,
    /// Printed to stderr as is (ends with a newline unless empty).
    pub text: String,
    /// The diagnostics `text` renders, for callers that report them
    /// otherwise (the Python package's `QueryError`); empty unless the
    /// failure came from [`Failure::diagnostics`].
    pub diagnostics: Vec<Diagnostic>,
}

impl Failure {
    /// Bad input (exit 1); `text` is one or more lines.
    pub fn input(text: impl fmt::Display) -> Self {
        Failure {
            exit_code: 1,
            text: with_newline(text.to_string()),
            diagnostics: Vec::new(),
        }
    }

    /// A usage error (exit 2).
    pub fn usage(text: impl fmt::Display) -> Self {
        Failure {
            exit_code: 2,
            text: with_newline(text.to_string()),
            diagnostics: Vec::new(),
        }
    }

    /// Diagnostics with their source lines and carets (exit 1).
    pub fn diagnostics(diags: &[Diagnostic]) -> Self {
        Failure {
            exit_code: 1,
            text: diags.iter().map(Diagnostic::render).collect(),
            diagnostics: diags.to_vec(),
        }
    }

    /// Already reported (the text is empty); only the exit code remains.
    pub fn reported(exit_code: i32) -> Self {
        Failure {
            exit_code,
            text: String::new(),
            diagnostics: Vec::new(),
        }
    }
}

fn with_newline(mut s: String) -> String {
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text.trim_end())
    }
}

/// Read a source file named `what` in messages ("pattern file") as UTF-8:
/// `FILE:LINE:COL: error: WHAT is not valid UTF-8`, or `FILE: error:
/// cannot read WHAT: ...`.
pub fn read_source(path: &Path, what: &str) -> Result<String, Failure> {
    use crate::diag::{plain_error, read_text, TextError};
    let name = path.display().to_string();
    read_text(path).map_err(|e| match e {
        TextError::Utf8 { line, col } => Failure::input(format!(
            "{name}:{line}:{col}: error: {what} is not valid UTF-8"
        )),
        TextError::Io(e) => Failure::input(plain_error(&name, format!("cannot read {what}: {e}"))),
    })
}

/// One input with the name it is reported under (a file, `FILE#N`, a
/// trajectory id).
#[derive(Clone, Debug)]
pub struct Named<T> {
    pub name: String,
    pub value: T,
}

/// One engine. Implemented once per engine crate; see the module docs for
/// the stages.
pub trait Engine {
    /// `xpath`, `track`, `rice`: the CLI subcommand, the design file's
    /// `engine:` value and the manifest's `kind`.
    const NAME: &'static str;
    /// What one input is called in messages: `document`, `trajectory`,
    /// `stream`.
    const INPUT: &'static str;
    /// Run each input in a simulation of its own (one build, found in the
    /// cache after the first), so that a run's cycle count is the input's.
    const ONE_RUN_PER_INPUT: bool = false;

    /// The checked sources: queries, patterns with their region dictionary,
    /// or nothing beyond the options.
    type Source;
    /// The options of `compile`, with the command line's names and
    /// defaults (also the design file's keys).
    type Options;
    /// A compiled design: the IR after the passes and the emitted RTL.
    type Design;
    /// One input as the model and the hardware take it.
    type Input;
    /// What the model, and the hardware once decoded, report for one input.
    type Output: Clone + fmt::Debug + PartialEq;

    /// Lower, run the passes and emit the RTL.
    fn compile(&self, source: &Self::Source, opts: &Self::Options)
        -> Result<Self::Design, Failure>;

    /// The generated project (consumes the design: its Verilog may be tens
    /// of MB).
    fn project(
        &self,
        source: &Self::Source,
        design: Self::Design,
        opts: &Self::Options,
    ) -> ProjectSpec;

    /// The RTL files (name, text) of a design, top module included.
    fn rtl_files(&self, design: &Self::Design) -> Vec<(String, String)>;

    /// The simulation driver's view of the design's top.
    fn driver_spec(&self, design: &Self::Design) -> DriverSpec;

    /// One input as the bytes of one AXI4-Stream packet.
    fn encode(&self, design: &Self::Design, input: &Self::Input) -> Vec<u8>;

    /// One packet's result beats as the engine's output, or why they break
    /// the design's result format.
    fn decode(&self, design: &Self::Design, packet: &PacketResult) -> Result<Self::Output, String>;

    /// The reference model's output for one input.
    fn model(&self, design: &Self::Design, input: &Self::Input) -> Self::Output;

    /// The model's outputs for many inputs (an engine whose model is costly
    /// to set up sets it up once here).
    fn model_all(&self, design: &Self::Design, inputs: &[&Self::Input]) -> Vec<Self::Output> {
        inputs.iter().map(|i| self.model(design, i)).collect()
    }
}

/// `compile -o DIR` (and each design of `build`): the project of a design.
pub fn write_compiled<E: Engine>(
    engine: &E,
    source: &E::Source,
    design: E::Design,
    opts: &E::Options,
    dir: &Path,
) -> Result<(), Failure> {
    let spec = engine.project(source, design, opts);
    write_project(dir, &spec).map_err(|e| Failure::input(format!("error: {e}")))
}

/// How a simulation runs.
#[derive(Clone, Debug)]
pub struct SimSettings<'a> {
    pub simulator: Simulator,
    pub stalls: Stalls,
    /// Waveform file, if any.
    pub trace: Option<&'a Path>,
    /// Build options; `None`: the default, with C++ unoptimized for designs
    /// over [`LARGE_RTL_BYTES`] of Verilog.
    pub build: Option<BuildOptions>,
}

impl Default for SimSettings<'_> {
    fn default() -> Self {
        SimSettings {
            simulator: Simulator::Verilator,
            stalls: Stalls::NONE,
            trace: None,
            build: None,
        }
    }
}

/// One input's hardware result.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult<O> {
    pub output: O,
    /// Cycles from the packet's first accepted beat to its first result beat.
    pub latency: u64,
    /// Cycles of the run the input was in (its own with
    /// [`Engine::ONE_RUN_PER_INPUT`]).
    pub run_cycles: u64,
}

/// A simulation of many inputs.
#[derive(Clone, Debug)]
pub struct Simulation<O> {
    pub results: Vec<SimResult<O>>,
    /// The runs (one, or one per input with [`Engine::ONE_RUN_PER_INPUT`]).
    pub runs: Vec<SimRun>,
    pub build: Built,
}

/// The simulation build of a design (cached; see [`crate::sim`]).
pub fn build_sim<E: Engine>(
    engine: &E,
    design: &E::Design,
    simulator: Simulator,
    options: Option<BuildOptions>,
) -> Result<Built, String> {
    let rtl = engine.rtl_files(design);
    let options = options.unwrap_or_else(|| {
        let bytes: usize = rtl.iter().map(|(_, t)| t.len()).sum();
        BuildOptions {
            unoptimized_cxx: bytes > LARGE_RTL_BYTES,
            ..BuildOptions::default()
        }
    });
    crate::sim::build_with(&engine.driver_spec(design), &rtl, simulator, &options)
        .map_err(|e| e.to_string())
}

/// Decode every packet of a run.
pub fn decode_run<E: Engine>(
    engine: &E,
    design: &E::Design,
    run: &SimRun,
) -> Result<Vec<SimResult<E::Output>>, String> {
    decode_packets(engine, design, run, 0)
}

/// [`decode_run`] of a run whose first packet is input `first` (errors
/// name the input by its index among all inputs).
fn decode_packets<E: Engine>(
    engine: &E,
    design: &E::Design,
    run: &SimRun,
    first: usize,
) -> Result<Vec<SimResult<E::Output>>, String> {
    run.packets
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let output = engine
                .decode(design, p)
                .map_err(|e| format!("{} {}: {e}", E::INPUT, first + i))?;
            Ok(SimResult {
                output,
                latency: p.cycles,
                run_cycles: run.total_cycles,
            })
        })
        .collect()
}

/// Build (or find in the cache) the design and stream `inputs` through it,
/// one packet each; decode every result.
pub fn simulate<E: Engine>(
    engine: &E,
    design: &E::Design,
    inputs: &[&E::Input],
    settings: &SimSettings<'_>,
) -> Result<Simulation<E::Output>, String> {
    let build = build_sim(engine, design, settings.simulator, settings.build.clone())?;
    let packets: Vec<Vec<u8>> = inputs.iter().map(|i| engine.encode(design, i)).collect();
    let batches: Vec<&[Vec<u8>]> = if E::ONE_RUN_PER_INPUT {
        packets.chunks(1).collect()
    } else {
        vec![&packets[..]]
    };
    let mut results = Vec::with_capacity(inputs.len());
    let mut runs = Vec::with_capacity(batches.len());
    for batch in batches {
        let run = build
            .run(batch, &settings.stalls, settings.trace)
            .map_err(|e| e.to_string())?;
        let offset = results.len();
        let decoded = decode_packets(engine, design, &run, offset)?;
        results.extend(decoded);
        runs.push(run);
    }
    Ok(Simulation {
        results,
        runs,
        build,
    })
}

/// An input whose hardware output differs from the model's.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch<O> {
    pub index: usize,
    pub name: String,
    pub hardware: O,
    pub model: O,
}

/// The RTL-against-model check, written once for every engine: simulate
/// `inputs` and compare each decoded output with [`Engine::model`]'s.
pub fn check_against_model<E: Engine>(
    engine: &E,
    design: &E::Design,
    inputs: &[Named<E::Input>],
    settings: &SimSettings<'_>,
) -> Result<Vec<Mismatch<E::Output>>, String> {
    let refs: Vec<&E::Input> = inputs.iter().map(|i| &i.value).collect();
    let sim = simulate(engine, design, &refs, settings)?;
    let models = engine.model_all(design, &refs);
    Ok(inputs
        .iter()
        .zip(sim.results)
        .zip(models)
        .enumerate()
        .filter_map(|(index, ((input, hw), model))| {
            (hw.output != model).then(|| Mismatch {
                index,
                name: input.name.clone(),
                hardware: hw.output,
                model,
            })
        })
        .collect())
}
