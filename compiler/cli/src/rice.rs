//! `qrtl rice encode|decode|compile|sim` (SPEC §2, §5).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use qrtl_core::diag::plain_error;
use qrtl_core::engine::Failure;
use qrtl_rice::emit::{RiceArch, RiceHwConfig};
use qrtl_rice::engine::{
    config_error, RiceEngine, RiceOptions, StreamEnd, DEFAULT_CLOCK_MHZ, DEFAULT_VALUE_BITS,
    DEFAULT_WIDTH,
};
use qrtl_rice::input::parse_ints;
use qrtl_rice::refmodel::{BitOrder, DecodeError, Encoder, RiceConfig, StreamDecoder, Unary};

use crate::common::{self, fail, print_diagnostics, SimArgs};

#[derive(Subcommand, Debug)]
pub enum RiceCommand {
    /// Encode decimal integers (one per line) into a padded GR stream.
    Encode {
        /// Integers: one per line; blank lines and `#` comments skipped.
        ints: PathBuf,
        /// Output stream file.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        #[command(flatten)]
        code: RiceOpts,
    },
    /// Decode a GR stream; one integer per line on stdout.
    Decode {
        /// GR stream: the codes back to back, the last byte padded (as `encode` writes it).
        stream: PathBuf,
        #[command(flatten)]
        code: RiceOpts,
    },
    /// Generate the hardware decoder (RTL project: Verilog, constraints,
    /// scripts, manifest).
    Compile {
        #[command(flatten)]
        hw: RiceHwArgs,
        /// Output directory.
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Target clock for the generated constraints, in MHz.
        #[arg(long, default_value_t = DEFAULT_CLOCK_MHZ)]
        clock_mhz: f64,
    },
    /// Decode GR streams in the simulated hardware decoder; prints what
    /// `decode` prints.
    Sim {
        /// GR stream files, one AXI4-Stream packet each.
        #[arg(required = true)]
        streams: Vec<PathBuf>,
        #[command(flatten)]
        hw: RiceHwArgs,
        /// Print {"cycles":..,"bits":..} per stream on stderr.
        #[arg(long)]
        stats: bool,
        #[command(flatten)]
        sim: SimArgs,
    },
}

/// The code's parameters (SPEC §5).
#[derive(clap::Args, Debug, Clone)]
pub struct RiceOpts {
    /// Remainder bits.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=63))]
    k: u32,
    /// Unary quotient: zeros (q zeros then a one) or ones (q ones then a zero).
    #[arg(long, value_enum, default_value_t = UnaryArg::Zeros)]
    unary: UnaryArg,
    /// Bits of each byte and of the remainder: msb or lsb first.
    #[arg(long, value_enum, default_value_t = BitOrderArg::Msb)]
    bit_order: BitOrderArg,
    /// Bits of a value (1-64); larger values and quotients are errors.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=64))]
    width: u32,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum UnaryArg {
    Zeros,
    Ones,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum BitOrderArg {
    Msb,
    Lsb,
}

impl RiceOpts {
    /// The codec config, or a usage error (exit 2).
    fn config(&self) -> Result<RiceConfig, Failure> {
        let cfg = RiceConfig {
            k: self.k,
            unary: match self.unary {
                UnaryArg::Zeros => Unary::Zeros,
                UnaryArg::Ones => Unary::Ones,
            },
            bit_order: match self.bit_order {
                BitOrderArg::Msb => BitOrder::Msb,
                BitOrderArg::Lsb => BitOrder::Lsb,
            },
            width: self.width,
        };
        cfg.validate()
            .map_err(|e| Failure::usage(format!("error: {e}")))?;
        Ok(cfg)
    }
}

/// `--arch`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum ArchArg {
    Nostall,
    Single,
    Serial,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum UnaryHwArg {
    Zeros,
    Ones,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum BitOrderHwArg {
    Msb,
    Lsb,
}

/// The decoder to generate (`qrtl rice compile|sim`).
#[derive(clap::Args, Debug, Clone)]
pub struct RiceHwArgs {
    /// Remainder bits.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=63))]
    pub k: u32,
    /// Unary quotient: zeros (q zeros then a one) or ones (q ones then a zero).
    #[arg(long, value_enum, default_value_t = UnaryHwArg::Zeros)]
    pub unary: UnaryHwArg,
    /// Bits of each byte and of the remainder: msb or lsb first.
    #[arg(long, value_enum, default_value_t = BitOrderHwArg::Msb)]
    pub bit_order: BitOrderHwArg,
    /// Stream bits per clock (input beat width), a multiple of 8 in 8..=128.
    #[arg(long, default_value_t = DEFAULT_WIDTH)]
    pub width: u32,
    /// Bits of a decoded value (1-64; `qrtl rice decode --width`); a larger
    /// quotient is an overflow.
    #[arg(long, default_value_t = DEFAULT_VALUE_BITS, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub value_bits: u32,
    /// Decoder: nostall (N bits per clock), single (one integer per clock)
    /// or serial (one bit per clock).
    #[arg(long, value_enum, default_value_t = ArchArg::Nostall)]
    pub arch: ArchArg,
}

impl RiceHwArgs {
    /// The decoder's options, or a usage error (exit 2).
    fn options(&self, clock_mhz: f64) -> Result<RiceOptions, Failure> {
        let hw = RiceHwConfig {
            code: RiceConfig {
                k: self.k,
                unary: match self.unary {
                    UnaryHwArg::Zeros => Unary::Zeros,
                    UnaryHwArg::Ones => Unary::Ones,
                },
                bit_order: match self.bit_order {
                    BitOrderHwArg::Msb => BitOrder::Msb,
                    BitOrderHwArg::Lsb => BitOrder::Lsb,
                },
                width: self.value_bits,
            },
            chunk_bits: self.width,
            arch: match self.arch {
                ArchArg::Nostall => RiceArch::NoStall,
                ArchArg::Single => RiceArch::Single,
                ArchArg::Serial => RiceArch::Serial,
            },
        };
        if let Some((_, e)) = config_error(&hw, |k| format!("--{k}")) {
            return Err(Failure::usage(format!("error: {e}")));
        }
        if !(clock_mhz.is_finite() && clock_mhz > 0.0) {
            return Err(Failure::usage(
                "error: --clock-mhz must be a positive number",
            ));
        }
        Ok(RiceOptions { hw, clock_mhz })
    }
}

/// Run one `qrtl rice` subcommand; returns the exit code.
pub fn run(cmd: RiceCommand) -> i32 {
    match cmd {
        RiceCommand::Encode { ints, out, code } => encode(&ints, &out, &code),
        RiceCommand::Decode { stream, code } => decode(&stream, &code),
        RiceCommand::Compile { hw, out, clock_mhz } => {
            compile(&hw, &out, clock_mhz).map_or_else(fail, |()| 0)
        }
        RiceCommand::Sim {
            streams,
            hw,
            stats,
            sim,
        } => sim_cmd(&streams, &hw, stats, &sim).unwrap_or_else(fail),
    }
}

fn compile(hw: &RiceHwArgs, out: &Path, clock_mhz: f64) -> Result<(), Failure> {
    let opts = hw.options(clock_mhz)?;
    common::compile(&RiceEngine, &(), &opts, out, |_| ())
}

/// Decode each stream in the simulated decoder and print what `decode`
/// prints (integers on stdout, the trailing-bits note and the overflow
/// error on stderr, exit 1 on an overflow). Each stream is a run of its
/// own, so `--stats` gives its cycles.
fn sim_cmd(
    streams: &[PathBuf],
    hw: &RiceHwArgs,
    stats: bool,
    sim: &SimArgs,
) -> Result<i32, Failure> {
    let opts = hw.options(DEFAULT_CLOCK_MHZ)?;
    let design = qrtl_core::engine::Engine::compile(&RiceEngine, &(), &opts)?;
    let mut data = Vec::with_capacity(streams.len());
    for s in streams {
        match std::fs::read(s) {
            Ok(b) => data.push(b),
            Err(e) => {
                return Err(Failure::input(format!(
                    "{}: error: cannot read stream: {e}",
                    s.display()
                )))
            }
        }
    }
    // AXI4-Stream has no empty packet: an empty stream decodes to nothing
    // without the hardware (as `decode` prints nothing for it).
    let inputs: Vec<&Vec<u8>> = data.iter().filter(|b| !b.is_empty()).collect();
    let results = if inputs.is_empty() {
        Vec::new()
    } else {
        common::simulate(&RiceEngine, &design, &inputs, sim)?
    };
    let mut results = results.into_iter();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut code = 0;
    for (path, bytes) in streams.iter().zip(&data) {
        let bits = bytes.len() as u64 * 8;
        if bytes.is_empty() {
            if stats {
                eprintln!("{{\"cycles\":0,\"bits\":0}}");
            }
            continue;
        }
        let r = results.next().expect("one result per non-empty stream");
        for v in &r.output.values {
            if writeln!(out, "{v}").is_err() {
                return Ok(code); // stdout closed (e.g. `| head`): stop quietly
            }
        }
        let _ = out.flush();
        let name = path.display().to_string();
        if !report_end(&name, bits, &r.output, &opts) {
            code = 1;
        }
        if stats {
            // From the stream's first beat in to its last beat out.
            eprintln!("{{\"cycles\":{},\"bits\":{bits}}}", r.run_cycles);
        }
    }
    let _ = out.flush();
    Ok(code)
}

/// The hardware's end of a stream in the software decoder's words on
/// stderr; `false` for an overflow (an error).
fn report_end(
    name: &str,
    bits: u64,
    output: &qrtl_rice::engine::RiceOutput,
    opts: &RiceOptions,
) -> bool {
    match output.end {
        StreamEnd::Overflow {
            bit_offset,
            quotient,
        } => {
            let e = DecodeError::QuotientOverflow {
                bit_offset,
                index: output.values.len() as u64,
                quotient,
                max_quotient: opts.hw.code.max_quotient(),
            };
            eprintln!("{}", plain_error(name, e));
            false
        }
        // Not padding-shaped (`Tail::is_padding`).
        StreamEnd::Tail {
            bits: tail,
            has_delimiter,
        } if tail >= 8 || has_delimiter => {
            eprintln!(
                "{name}: note: {tail} trailing bit{} at bit {} do not complete a code{}",
                if tail == 1 { "" } else { "s" },
                bits.saturating_sub(tail),
                if has_delimiter {
                    " (the remainder is cut: truncated stream?)"
                } else {
                    " (more than a byte of padding: truncated stream?)"
                }
            );
            true
        }
        StreamEnd::Tail { .. } => true,
    }
}

fn encode(ints: &Path, out: &Path, opts: &RiceOpts) -> i32 {
    let cfg = match opts.config() {
        Ok(c) => c,
        Err(f) => return fail(f),
    };
    let name = ints.display().to_string();
    let text = match qrtl_core::engine::read_source(ints, "integer file") {
        Ok(t) => t,
        Err(f) => return fail(f),
    };
    let (values, diags) = parse_ints(&name, &text, &cfg);
    if !diags.is_empty() {
        print_diagnostics(&diags);
        eprintln!(
            "{name}: {} error{}; no stream written",
            diags.len(),
            if diags.len() == 1 { "" } else { "s" }
        );
        return 1;
    }
    let mut enc = Encoder::new(cfg);
    for &v in &values {
        if let Err(e) = enc.push(v) {
            // parse_ints checked width and quotient; keep the rule in one place anyway.
            eprintln!("{}", plain_error(&name, e));
            return 1;
        }
    }
    if let Err(e) = std::fs::write(out, enc.finish()) {
        eprintln!(
            "{}",
            plain_error(
                &out.display().to_string(),
                format!("cannot write the stream: {e}")
            )
        );
        return 1;
    }
    0
}

fn decode(stream: &Path, opts: &RiceOpts) -> i32 {
    use std::io::Read;
    let cfg = match opts.config() {
        Ok(c) => c,
        Err(f) => return fail(f),
    };
    let name = stream.display().to_string();
    let mut file = match std::fs::File::open(stream) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}", plain_error(&name, format!("cannot read stream: {e}")));
            return 1;
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut dec = StreamDecoder::new(cfg);
    let mut chunk = vec![0u8; 1 << 20];
    let mut values = Vec::new();
    let mut line = String::new();
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = out.flush();
                eprintln!("{}", plain_error(&name, format!("cannot read stream: {e}")));
                return 1;
            }
        };
        values.clear();
        let fed = dec.feed(&chunk[..n], &mut values);
        for v in &values {
            use std::fmt::Write as _;
            line.clear();
            let _ = writeln!(line, "{v}");
            if out.write_all(line.as_bytes()).is_err() {
                return 0; // stdout closed (e.g. `| head`): stop quietly
            }
        }
        if let Err(DecodeError::QuotientOverflow { .. }) = fed {
            break;
        }
    }
    let _ = out.flush();
    match dec.finish() {
        Ok(d) => {
            if !d.tail.is_padding() {
                eprintln!("{name}: note: {}", d.tail.note());
            }
            0
        }
        Err(e) => {
            eprintln!("{}", plain_error(&name, e));
            1
        }
    }
}
