//! What every engine's commands share, written once over
//! `qrtl_core::engine::Engine`: `compile` (a design to a project), the
//! simulation options and run of `sim`, reporting a failure.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use qrtl_core::diag::{plain_error, Diagnostic};
use qrtl_core::engine::{self, Engine, Failure, SimResult, SimSettings};
use qrtl_core::sim::{Simulator, Stalls};

/// Print a failure's text on stderr; its exit code.
pub fn fail(f: Failure) -> i32 {
    eprint!("{}", f.text);
    f.exit_code
}

/// Print diagnostics on stderr.
pub fn print_diagnostics(diags: &[Diagnostic]) {
    let mut err = std::io::stderr().lock();
    for d in diags {
        let _ = write!(err, "{}", d.render());
    }
}

/// `--clock-mhz`: in (0, 2000].
pub fn check_clock(clock_mhz: f64) -> Result<f64, Failure> {
    if clock_mhz.is_finite() && clock_mhz > 0.0 && clock_mhz <= 2000.0 {
        Ok(clock_mhz)
    } else {
        Err(Failure::usage("error: --clock-mhz must be in (0, 2000]"))
    }
}

/// `compile -o DIR`: compile the source, let `inspect` see the design (for
/// `--stats`), write the project.
pub fn compile<E: Engine>(
    engine: &E,
    source: &E::Source,
    opts: &E::Options,
    out: &Path,
    inspect: impl FnOnce(&E::Design),
) -> Result<(), Failure> {
    let design = engine.compile(source, opts)?;
    inspect(&design);
    engine::write_compiled(engine, source, design, opts, out)
}

/// Options of a simulation run (`sim` of every engine).
#[derive(clap::Args, Debug, Clone)]
pub struct SimArgs {
    /// Simulator: verilator (default) or icarus (small designs).
    #[arg(long, value_enum, default_value_t = SimulatorArg::Verilator)]
    pub simulator: SimulatorArg,
    /// Write a waveform (FST with Verilator; VCD, or FST for a .fst name, with Icarus).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Seed of the random stalls.
    #[arg(long, default_value_t = 1)]
    pub stall_seed: u64,
    /// Percent of cycles the driver leaves s_axis_tvalid low (0-99).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=99))]
    pub in_gap: u8,
    /// Percent of cycles the driver holds m_axis_tready low (0-99).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=99))]
    pub out_stall: u8,
}

impl SimArgs {
    pub fn simulator(&self) -> Simulator {
        match self.simulator {
            SimulatorArg::Verilator => Simulator::Verilator,
            SimulatorArg::Icarus => Simulator::Icarus,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimulatorArg {
    Verilator,
    Icarus,
}

/// Simulate `inputs` on a compiled design: the waveform file must be
/// writable (the Verilator driver does not check that its FST file
/// opened), then one build and the run(s); one result per input.
pub fn simulate<E: Engine>(
    engine: &E,
    design: &E::Design,
    inputs: &[&E::Input],
    args: &SimArgs,
) -> Result<Vec<SimResult<E::Output>>, Failure> {
    if let Some(t) = &args.trace {
        if let Err(e) = std::fs::File::create(t) {
            return Err(Failure::input(plain_error(
                &t.display().to_string(),
                format!("cannot write the waveform: {e}"),
            )));
        }
    }
    let settings = SimSettings {
        simulator: args.simulator(),
        stalls: Stalls {
            seed: args.stall_seed,
            in_gap_percent: args.in_gap,
            out_stall_percent: args.out_stall,
        },
        trace: args.trace.as_deref(),
        build: None,
    };
    engine::simulate(engine, design, inputs, &settings)
        .map(|s| s.results)
        .map_err(|e| Failure::input(format!("error: simulation failed: {e}")))
}

/// A JSON string.
pub fn json_string(s: &str) -> serde_json::Value {
    serde_json::Value::String(s.to_string())
}
