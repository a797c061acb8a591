//! The Golomb-Rice engine behind `qrtl_core::engine::Engine`: a decoder
//! configuration → the generated decoder ([`crate::emit`]) → its project;
//! GR streams as packets, the lane beats decoded, the software codec
//! ([`crate::refmodel`]) as the model.
//!
//! One GR stream is one AXI4-Stream packet of N-bit beats (tkeep marks the
//! bytes of a partial last beat); the decoder answers with one packet of
//! lane beats whose last beat carries the status ([`BeatStatus`]).

use std::path::Path;

use crate::emit::{emit_rice, rice_ports, BeatStatus, RiceArch, RiceHwConfig, RiceRtl, POS_BITS};
use crate::refmodel::{BitOrder, DecodeError, StreamDecoder, Unary};
use qrtl_core::engine::{Engine, Failure};
use qrtl_core::sim::PacketResult;
use qrtl_core::sim::{Built, DriverSpec, SimRun, Simulator, Stalls};

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
    let build = qrtl_core::sim::build_with(&spec, &rtl.files, simulator, options)
        .map_err(|e| e.to_string())?;
    let run = build
        .run(streams, stalls, trace)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(streams.len());
    for (i, p) in run.packets.iter().enumerate() {
        out.push(decode_packet(rtl, p).map_err(|e| format!("stream {i}, {e}"))?);
    }
    Ok(RiceSimRun {
        streams: out,
        run,
        build,
    })
}

/// One packet's lane beats: the values and the last beat's status, or a
/// beat that breaks the layout's rules (lanes not filled from 0, status
/// on a beat that is not the last).
pub fn decode_packet(rtl: &RiceRtl, p: &PacketResult) -> Result<HwStream, String> {
    let mut values = Vec::new();
    let mut status = BeatStatus::default();
    for (j, beat) in p.beats.iter().enumerate() {
        let b = rtl.layout.decode(beat);
        if b.mask_gaps {
            return Err(format!("beat {j}: the valid lanes are not lanes 0.."));
        }
        values.extend_from_slice(&b.values);
        if j + 1 == p.beats.len() {
            status = b.status;
        } else if b.status != BeatStatus::default() {
            return Err(format!("beat {j}: status set before the last beat"));
        }
    }
    Ok(HwStream {
        values,
        status,
        beats: p.beats.len(),
        latency: p.cycles,
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

// ---- the engine interface ---------------------------------------------------

/// Stream bits per clock by default (`--width`).
pub const DEFAULT_WIDTH: u32 = 32;
/// Bits of a decoded value by default (`--value-bits`).
pub const DEFAULT_VALUE_BITS: u32 = 64;
/// Target clock of the generated constraints by default (`--clock-mhz`).
pub const DEFAULT_CLOCK_MHZ: f64 = 200.0;

/// Everything `qrtl rice compile` takes (the command line's options; also a
/// design file's keys). The decoder has no source file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RiceOptions {
    pub hw: RiceHwConfig,
    /// Target clock of the generated constraints, in MHz.
    pub clock_mhz: f64,
}

/// A generated decoder.
#[derive(Clone, Debug)]
pub struct RiceDesign {
    pub cfg: RiceHwConfig,
    pub rtl: RiceRtl,
}

/// How a stream ends, as the codec and the decoder's status report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// Bits after the last complete code: how many, and whether they hold a
    /// delimiter (a cut remainder).
    Tail { bits: u64, has_delimiter: bool },
    /// A quotient above the value width stopped decoding: the code's bit
    /// offset and its quotient.
    Overflow { bit_offset: u64, quotient: u64 },
}

/// One stream's result: what the hardware and the codec report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RiceOutput {
    pub values: Vec<u64>,
    pub end: StreamEnd,
}

impl HwStream {
    /// The decoded values and how the stream ended.
    pub fn output(&self) -> RiceOutput {
        let st = self.status;
        RiceOutput {
            values: self.values.clone(),
            end: if st.overflow {
                StreamEnd::Overflow {
                    bit_offset: st.overflow_at,
                    quotient: st.overflow_quotient,
                }
            } else {
                StreamEnd::Tail {
                    bits: st.tail_bits,
                    has_delimiter: st.tail_has_delimiter,
                }
            },
        }
    }
}

/// The software codec's answer for one stream (the model).
pub fn decode_software(code: &crate::refmodel::RiceConfig, bytes: &[u8]) -> RiceOutput {
    let mut dec = StreamDecoder::new(*code);
    let mut values = Vec::new();
    let end = match dec.feed(bytes, &mut values).and_then(|()| dec.finish()) {
        Ok(d) => StreamEnd::Tail {
            bits: d.tail.bits,
            has_delimiter: d.tail.has_delimiter,
        },
        Err(DecodeError::QuotientOverflow {
            bit_offset,
            quotient,
            ..
        }) => StreamEnd::Overflow {
            bit_offset,
            quotient,
        },
    };
    RiceOutput { values, end }
}

/// The Golomb-Rice decoder (SPEC §5): inputs are GR streams.
#[derive(Clone, Copy, Debug, Default)]
pub struct RiceEngine;

impl Engine for RiceEngine {
    const NAME: &'static str = "rice";
    const INPUT: &'static str = "stream";
    /// One run per stream: `qrtl rice sim --stats` reports each stream's
    /// cycles.
    const ONE_RUN_PER_INPUT: bool = true;
    type Source = ();
    type Options = RiceOptions;
    type Design = RiceDesign;
    type Input = Vec<u8>;
    type Output = RiceOutput;

    fn compile(&self, _source: &(), opts: &RiceOptions) -> Result<RiceDesign, Failure> {
        let rtl = emit_rice(&opts.hw).map_err(|e| Failure::usage(format!("error: {e}")))?;
        Ok(RiceDesign { cfg: opts.hw, rtl })
    }

    fn project(
        &self,
        _source: &(),
        design: RiceDesign,
        opts: &RiceOptions,
    ) -> qrtl_core::project::ProjectSpec {
        rice_project_spec(&design.rtl, &design.cfg, opts.clock_mhz)
    }

    fn rtl_files(&self, design: &RiceDesign) -> Vec<(String, String)> {
        design.rtl.files.clone()
    }

    fn driver_spec(&self, design: &RiceDesign) -> DriverSpec {
        rice_driver_spec(&design.rtl, &design.cfg)
    }

    fn encode(&self, _design: &RiceDesign, input: &Vec<u8>) -> Vec<u8> {
        input.clone()
    }

    fn decode(&self, design: &RiceDesign, packet: &PacketResult) -> Result<RiceOutput, String> {
        Ok(decode_packet(&design.rtl, packet)?.output())
    }

    fn model(&self, design: &RiceDesign, input: &Vec<u8>) -> RiceOutput {
        decode_software(&design.cfg.code, input)
    }
}

// ---- design files -------------------------------------------------------------

/// `--unary` values.
pub const UNARY: [(&str, Unary); 2] = [("zeros", Unary::Zeros), ("ones", Unary::Ones)];
/// `--bit-order` values.
pub const BIT_ORDERS: [(&str, BitOrder); 2] = [("msb", BitOrder::Msb), ("lsb", BitOrder::Lsb)];
/// `--arch` values.
pub const ARCHS: [(&str, RiceArch); 3] = [
    ("nostall", RiceArch::NoStall),
    ("single", RiceArch::Single),
    ("serial", RiceArch::Serial),
];

/// Why a decoder configuration is refused, in the option names of `flag`
/// (`--k`/`--value-bits` on the command line, `k`/`value_bits` in design
/// files), and the option to blame.
pub fn config_error(
    cfg: &RiceHwConfig,
    flag: impl Fn(&str) -> String,
) -> Option<(&'static str, String)> {
    use crate::emit::RiceHwError;
    cfg.validate().err().map(|e| match e {
        RiceHwError::Code(crate::refmodel::ConfigError::KAboveWidth { k, width }) => (
            "k",
            format!("{} {k} is above {} {width}", flag("k"), flag("value-bits")),
        ),
        RiceHwError::ChunkBits { bits } => (
            "width",
            format!(
                "{} {bits}: the input chunk must be a multiple of 8 bits in {}..={}",
                flag("width"),
                crate::emit::MIN_CHUNK_BITS,
                crate::emit::MAX_CHUNK_BITS
            ),
        ),
        e => ("k", e.to_string()),
    })
}

/// One design of a design file (`engine: rice`): the options of `qrtl rice
/// compile` under their flag names (`k` (required), `unary`, `bit_order`,
/// `width`, `value_bits`, `arch`, `clock_mhz`) with the same defaults.
pub fn from_design(mut f: qrtl_core::design::Fields<'_>) -> Result<((), RiceOptions), Failure> {
    f.require("k");
    let k = f.uint("k", 0, 0, 63) as u32;
    let hw = RiceHwConfig {
        code: crate::refmodel::RiceConfig {
            k,
            unary: f.choice("unary", Unary::Zeros, &UNARY),
            bit_order: f.choice("bit_order", BitOrder::Msb, &BIT_ORDERS),
            width: f.uint("value_bits", u64::from(DEFAULT_VALUE_BITS), 1, 64) as u32,
        },
        chunk_bits: f.uint("width", u64::from(DEFAULT_WIDTH), 8, 128) as u32,
        arch: f.choice("arch", RiceArch::NoStall, &ARCHS),
    };
    let clock_mhz = f.positive("clock_mhz", DEFAULT_CLOCK_MHZ, 2000.0);
    if let Some((key, e)) = config_error(&hw, |k| format!("`{}`", k.replace('-', "_"))) {
        f.reject(key, e, None);
    }
    f.finish().map_err(|d| Failure::diagnostics(&d))?;
    Ok(((), RiceOptions { hw, clock_mhz }))
}
