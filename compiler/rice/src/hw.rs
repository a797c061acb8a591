//! The Golomb-Rice hardware flow: `qrtl rice compile` (a project from
//! [`crate::emit`]) and `qrtl rice sim` (the decoder in
//! Verilator or Icarus through [`qrtl_core::sim`], printing what `qrtl rice
//! decode` prints).
//!
//! One GR stream is one AXI4-Stream packet of N-bit beats (tkeep marks the
//! bytes of a partial last beat); the decoder answers with one packet of
//! lane beats whose last beat carries the status ([`BeatStatus`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::emit::{
    emit_rice, rice_ports, BeatStatus, RiceArch, RiceHwConfig, RiceRtl, POS_BITS,
};
use crate::refmodel::{BitOrder, RiceConfig, Unary};
use qrtl_core::sim::{Built, DriverSpec, SimRun, Simulator, Stalls};

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

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SimulatorHwArg {
    Verilator,
    Icarus,
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
    #[arg(long, default_value_t = 32)]
    pub width: u32,
    /// Bits of a decoded value (1-64; `qrtl rice decode --width`); a larger
    /// quotient is an overflow.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub value_bits: u32,
    /// Decoder: nostall (N bits per clock), single (one integer per clock)
    /// or serial (one bit per clock).
    #[arg(long, value_enum, default_value_t = ArchArg::Nostall)]
    pub arch: ArchArg,
}

impl RiceHwArgs {
    /// The generator config, or a usage error message.
    pub fn config(&self) -> Result<RiceHwConfig, String> {
        let cfg = RiceHwConfig {
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
        cfg.validate().map_err(|e| match e {
            crate::emit::RiceHwError::Code(
                crate::refmodel::ConfigError::KAboveWidth { k, width },
            ) => format!("--k {k} is above --value-bits {width}"),
            e => e.to_string(),
        })?;
        Ok(cfg)
    }
}

/// Simulation options (`qrtl rice sim`).
#[derive(clap::Args, Debug, Clone)]
pub struct RiceSimArgs {
    /// Print {"cycles":..,"bits":..} per stream on stderr.
    #[arg(long)]
    pub stats: bool,
    /// Simulator: verilator (default) or icarus (small designs).
    #[arg(long, value_enum, default_value_t = SimulatorHwArg::Verilator)]
    pub simulator: SimulatorHwArg,
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

/// The harness' view of the generated top.
pub fn rice_driver_spec(rtl: &RiceRtl, cfg: &RiceHwConfig) -> DriverSpec {
    DriverSpec {
        in_data_bits: cfg.chunk_bits,
        in_keep: true,
        out_word_bits: rtl.layout.width(),
        ..DriverSpec::axis(&rtl.top)
    }
}

/// One stream as the hardware decoded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HwStream {
    pub values: Vec<u64>,
    /// The status of the packet's last beat.
    pub status: BeatStatus,
    /// Output beats of the packet.
    pub beats: usize,
    /// Cycles from the packet's first accepted beat to its first output beat.
    pub latency: u64,
}

/// Many streams through one build.
#[derive(Clone, Debug)]
pub struct RiceSimRun {
    pub streams: Vec<HwStream>,
    pub run: SimRun,
    pub build: Built,
}

/// Build (or find in the cache) `rtl` for `simulator` and decode `streams`
/// (non-empty byte strings), one packet each. Errors: the simulation's, or
/// output beats that break the layout's rules (lanes not filled from 0,
/// status on a beat that is not the last).
pub fn simulate_rice(
    rtl: &RiceRtl,
    cfg: &RiceHwConfig,
    streams: &[Vec<u8>],
    simulator: Simulator,
    stalls: &Stalls,
    trace: Option<&Path>,
) -> Result<RiceSimRun, String> {
    simulate_rice_with(
        rtl,
        cfg,
        streams,
        simulator,
        stalls,
        trace,
        &qrtl_core::sim::BuildOptions::default(),
    )
}

/// [`simulate_rice`] with build options.
pub fn simulate_rice_with(
    rtl: &RiceRtl,
    cfg: &RiceHwConfig,
    streams: &[Vec<u8>],
    simulator: Simulator,
    stalls: &Stalls,
    trace: Option<&Path>,
    options: &qrtl_core::sim::BuildOptions,
) -> Result<RiceSimRun, String> {
    let spec = rice_driver_spec(rtl, cfg);
    let build =
        qrtl_core::sim::build_with(&spec, &rtl.files, simulator, options).map_err(|e| e.to_string())?;
    let run = build
        .run(streams, stalls, trace)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(streams.len());
    for (i, p) in run.packets.iter().enumerate() {
        let mut values = Vec::new();
        let mut status = BeatStatus::default();
        for (j, beat) in p.beats.iter().enumerate() {
            let b = rtl.layout.decode(beat);
            if b.mask_gaps {
                return Err(format!(
                    "stream {i}, beat {j}: the valid lanes are not lanes 0.."
                ));
            }
            values.extend_from_slice(&b.values);
            if j + 1 == p.beats.len() {
                status = b.status;
            } else if b.status != BeatStatus::default() {
                return Err(format!(
                    "stream {i}, beat {j}: status set before the last beat"
                ));
            }
        }
        out.push(HwStream {
            values,
            status,
            beats: p.beats.len(),
            latency: p.cycles,
        });
    }
    Ok(RiceSimRun {
        streams: out,
        run,
        build,
    })
}

/// The project of a generated decoder (`qrtl rice compile -o`).
pub fn rice_project_spec(
    rtl: &RiceRtl,
    cfg: &RiceHwConfig,
    clock_mhz: f64,
) -> qrtl_core::project::ProjectSpec {
    use serde_json::json;
    let l = rtl.layout;
    let code = cfg.code;
    let manifest_extra = json!({
        "kind": "rice",
        "parameters": {
            "arch": cfg.arch.as_str(),
            "width": cfg.chunk_bits,
            "k": code.k,
            "unary": match code.unary { Unary::Zeros => "zeros", Unary::Ones => "ones" },
            "bit_order": match code.bit_order { BitOrder::Msb => "msb", BitOrder::Lsb => "lsb" },
            "value_bits": code.width,
            "builders": cfg.builders(),
            "insertion_pipelines": code.k + 1,
        },
        "output": {
            "lanes": l.lanes,
            "value_bits": l.value_bits,
            "lane_lsb": "lane i at bit i*value_bits",
            "mask_lsb": l.mask_lsb(),
            "overflow_bit": l.overflow_bit(),
            "tail_delimiter_bit": l.tail_delim_bit(),
            "tail_bits_lsb": l.tail_lsb(),
            "overflow_offset_lsb": l.overflow_at_lsb(),
            "overflow_quotient_lsb": l.overflow_quotient_lsb(),
            "status_field_bits": POS_BITS,
            "latency_cycles": if cfg.arch == RiceArch::NoStall { json!(rtl.latency) } else { json!(null) },
        },
    });
    let per_beat = match cfg.arch {
        RiceArch::NoStall => format!(
            "one output beat per input beat ({} cycles later), with up to {} integers \
             (lanes of {} bits, valid mask at bit {})",
            rtl.latency,
            l.lanes,
            l.value_bits,
            l.mask_lsb()
        ),
        RiceArch::Single | RiceArch::Serial => format!(
            "one integer per beat ({} bits, valid flag at bit {}), then a status beat with \
             no integer",
            l.value_bits,
            l.mask_lsb()
        ),
    };
    let readme_extra = format!(
        "## Golomb-Rice decoder\n\n\
         `--arch {}`, k = {}, `--unary {}`, `--bit-order {}`, {}-bit values, {} stream bits per \
         clock. Send each GR stream as one AXI4-Stream packet on `s_axis` (byte i of a beat on \
         bits 8i+7..8i; `s_axis_tkeep` marks the bytes of a partial last beat). `m_axis` \
         answers each packet with {per_beat}; the packet's last beat (tlast) carries the \
         status: quotient overflow (bit {}), trailing bits hold a delimiter (bit {}), trailing \
         bit count (bits {}+), offset and quotient of an overflowing code (bits {}+, {}+). \
         `manifest.json` lists the layout.\n",
        cfg.arch.as_str(),
        code.k,
        match code.unary {
            Unary::Zeros => "zeros",
            Unary::Ones => "ones",
        },
        match code.bit_order {
            BitOrder::Msb => "msb",
            BitOrder::Lsb => "lsb",
        },
        code.width,
        cfg.chunk_bits,
        l.overflow_bit(),
        l.tail_delim_bit(),
        l.tail_lsb(),
        l.overflow_at_lsb(),
        l.overflow_quotient_lsb(),
    );
    qrtl_core::project::ProjectSpec {
        name: "qrtl_rice".to_string(),
        top: rtl.top.clone(),
        rtl: rtl.files.clone(),
        clock_mhz,
        clock_port: "clk".to_string(),
        reset_port: "rst".to_string(),
        ports: rice_ports(cfg),
        manifest_extra,
        readme_extra,
    }
}

/// `qrtl rice compile`.
pub fn rice_compile(hw: &RiceHwArgs, out: &Path, clock_mhz: f64) -> i32 {
    let cfg = match hw.config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if !(clock_mhz.is_finite() && clock_mhz > 0.0) {
        eprintln!("error: --clock-mhz must be a positive number");
        return 2;
    }
    let rtl = match emit_rice(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    match qrtl_core::project::write_project(out, &rice_project_spec(&rtl, &cfg, clock_mhz)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// `qrtl rice sim`: decode each stream in the simulated decoder and print
/// what `qrtl rice decode` prints (integers on stdout, the trailing-bits
/// note and the overflow error on stderr, exit 1 on an overflow).
pub fn rice_sim(streams: &[PathBuf], hw: &RiceHwArgs, sim: &RiceSimArgs) -> i32 {
    let cfg = match hw.config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let rtl = match emit_rice(&cfg) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut data = Vec::with_capacity(streams.len());
    for s in streams {
        match std::fs::read(s) {
            Ok(b) => data.push(b),
            Err(e) => {
                eprintln!("{}: error: cannot read stream: {e}", s.display());
                return 1;
            }
        }
    }
    let simulator = match sim.simulator {
        SimulatorHwArg::Verilator => Simulator::Verilator,
        SimulatorHwArg::Icarus => Simulator::Icarus,
    };
    let stalls = Stalls {
        seed: sim.stall_seed,
        in_gap_percent: sim.in_gap,
        out_stall_percent: sim.out_stall,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut code = 0;
    for (path, bytes) in streams.iter().zip(&data) {
        let name = path.display().to_string();
        let bits = bytes.len() as u64 * 8;
        // AXI4-Stream has no empty packet: an empty stream decodes to
        // nothing without the hardware (as `decode` prints nothing for it).
        if bytes.is_empty() {
            if sim.stats {
                eprintln!("{{\"cycles\":0,\"bits\":0}}");
            }
            continue;
        }
        // One run per stream (one build, found in the cache after the
        // first): its cycle count is the stream's own.
        let r = match simulate_rice(
            &rtl,
            &cfg,
            std::slice::from_ref(bytes),
            simulator,
            &stalls,
            sim.trace.as_deref(),
        ) {
            Ok(r) => r,
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: simulation failed: {e}");
                return 1;
            }
        };
        let hs = &r.streams[0];
        for v in &hs.values {
            if writeln!(out, "{v}").is_err() {
                return code; // stdout closed (e.g. `| head`): stop quietly
            }
        }
        let _ = out.flush();
        let st = hs.status;
        if st.overflow {
            // The hardware's report, in the software decoder's words.
            let e = crate::refmodel::DecodeError::QuotientOverflow {
                bit_offset: st.overflow_at,
                index: hs.values.len() as u64,
                quotient: st.overflow_quotient,
                max_quotient: cfg.code.max_quotient(),
            };
            eprintln!("{}", qrtl_core::diag::plain_error(&name, e));
            code = 1;
        } else if st.tail_bits >= 8 || st.tail_has_delimiter {
            // Not padding-shaped (`Tail::is_padding`).
            eprintln!(
                "{name}: note: {} trailing bit{} at bit {} do not complete a code{}",
                st.tail_bits,
                if st.tail_bits == 1 { "" } else { "s" },
                bits.saturating_sub(st.tail_bits),
                if st.tail_has_delimiter {
                    " (the remainder is cut: truncated stream?)"
                } else {
                    " (more than a byte of padding: truncated stream?)"
                }
            );
        }
        if sim.stats {
            // From the stream's first beat in to its last beat out.
            eprintln!("{{\"cycles\":{},\"bits\":{bits}}}", r.run.total_cycles);
        }
    }
    let _ = out.flush();
    code
}
