//! `qrtl synth DIR --target ...`: area and Fmax of any generated project
//! with the open tools (the flow lives in `qrtl_core::synth`).

use std::path::PathBuf;

use clap::ValueEnum;

pub const SYNTH_HELP: &str = "\
Targets:
  xc6v, xc7  Yosys synth_xilinx -family xc6v|xc7 (area only: fmax_mhz is null)
  ecp5       Yosys synth_ecp5 + nextpnr-ecp5, LFE5U-85F CABGA381 speed 6
  ice40      Yosys synth_ice40 + nextpnr-ice40, iCE40HX8K CT256

luts: logic LUTs; lutram: LUTs used as distributed RAM or shift registers;
lut_eq = luts + lutram; bram: block RAM tiles (Xilinx 36 Kbit, a RAMB18
counts 0.5; ECP5 18 Kbit EBR; iCE40 4 Kbit); fmax_mhz: median over the
seeds of nextpnr's Fmax, the core wrapped in registers on every port
(build/qrtl_ooc.v). Logs, scripts and build/synth-TARGET.json (cell counts,
every seed) are written to DIR/build. A design of more than
--memory-module-above memories has them mapped in a module of their own.

Tools: $QRTL_YOSYS / $QRTL_NEXTPNR_ECP5 / $QRTL_NEXTPNR_ICE40, else the
pinned YoWASP builds in the venv `make deps-synth` creates (.venv-synth, or
$QRTL_SYNTH_VENV), else yowasp-* or the native tool on PATH.";

#[derive(clap::Args, Debug)]
pub struct SynthArgs {
    /// A project directory written by `qrtl xpath|track|rice compile -o DIR`.
    dir: PathBuf,
    /// Device family.
    #[arg(long, value_enum)]
    target: TargetArg,
    /// Place-and-route runs (seeds 1..=N); Fmax is their median.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    seeds: u32,
    /// Place-and-route runs at a time [default: the number of CPUs].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    jobs: Option<u32>,
    /// Clock target for timing-driven placement, in MHz [default: the
    /// project's clock].
    #[arg(long)]
    freq_mhz: Option<f64>,
    /// Stop a tool run (Yosys, or one place-and-route seed) still going
    /// after this many minutes, and fail [default: no limit].
    #[arg(long, value_name = "MINUTES", value_parser = qrtl_core::synth::parse_minutes)]
    time_limit: Option<std::time::Duration>,
    /// Map the memories in a module of their own when the design declares
    /// more than N (Yosys maps the memories of one module in time growing
    /// with their number times the module's size).
    #[arg(long, value_name = "N", default_value_t = qrtl_core::synth::MEMORY_MODULE_ABOVE)]
    memory_module_above: usize,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TargetArg {
    Xc6v,
    Xc7,
    Ecp5,
    Ice40,
}

impl From<TargetArg> for qrtl_core::synth::Target {
    fn from(t: TargetArg) -> qrtl_core::synth::Target {
        use qrtl_core::synth::Target;
        match t {
            TargetArg::Xc6v => Target::Xc6v,
            TargetArg::Xc7 => Target::Xc7,
            TargetArg::Ecp5 => Target::Ecp5,
            TargetArg::Ice40 => Target::Ice40,
        }
    }
}

pub fn run(args: &SynthArgs) -> i32 {
    use qrtl_core::synth::{synthesize, SynthOptions};
    if let Some(f) = args.freq_mhz {
        if !(f.is_finite() && f > 0.0 && f <= 2000.0) {
            eprintln!("error: --freq-mhz {f} must be in (0, 2000]");
            return 2;
        }
    }
    let mut opts = SynthOptions::new(args.target.into());
    opts.seeds = args.seeds;
    if let Some(j) = args.jobs {
        opts.jobs = j as usize;
    }
    opts.freq_mhz = args.freq_mhz;
    opts.progress = !args.quiet;
    opts.time_limit = args.time_limit;
    opts.memory_module_above = args.memory_module_above;
    match synthesize(&args.dir, &opts) {
        Ok(r) => {
            println!(
                "{}",
                serde_json::to_string(&r.summary()).expect("JSON values serialise")
            );
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
