//! The Golomb-Rice decoder generator (SPEC §5, dissertation ch. 5.4):
//! `rtl-templates/rice/rice_*.v` rendered for one code and chunk width.
//!
//! * `nostall` (5.4.2): K+1 speculative delimiter insertion pipelines of
//!   B = ceil(N/(K+1)) blocks (`rice_insert.v`), the selector FSM with
//!   spanning-bit marking (`rice_select.v`), B integer builders and the
//!   output alignment (`rice_build.v`); N input bits per clock, sustained.
//! * `single` (5.4.3): the same front end (insertion pipelines, selector),
//!   then one modified integer builder (`rice_build1.v`) that spends a
//!   cycle per integer of a chunk; while it works the pipeline before it
//!   holds, and so does the input (back pressure).
//! * `serial`: a bit-serial decoder, one stream bit per clock (the
//!   comparison point of 5.5).
//!
//! Every arch shares the output layout [`OutputLayout`]: integer lanes, a
//! valid mask, and the status fields (quotient overflow, trailing bits) on
//! a packet's last beat. `tests/rice_rtl.rs` checks the RTL against
//! [`crate::refmodel`] in Verilator.

use std::fmt;

use askama::Template;

use crate::refmodel::{BitOrder, ConfigError, RiceConfig, Unary};
use qrtl_core::project::{Port, StreamPorts};

/// Width of the status offsets, counts and quotients: a stream of up to
/// 2^32 bytes (the harness' limit) has fewer than 2^35 bits.
pub const POS_BITS: u32 = 40;

/// Width of a bit position within a chunk (`CW` in the RTL).
pub const CHUNK_POS_BITS: u32 = 8;

/// Input chunk widths accepted (`--width`), multiples of 8.
pub const MIN_CHUNK_BITS: u32 = 8;
pub const MAX_CHUNK_BITS: u32 = 128;

/// The decoder's architecture (`--arch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RiceArch {
    NoStall,
    Single,
    Serial,
}

impl RiceArch {
    pub const ALL: [RiceArch; 3] = [RiceArch::NoStall, RiceArch::Single, RiceArch::Serial];

    pub fn as_str(self) -> &'static str {
        match self {
            RiceArch::NoStall => "nostall",
            RiceArch::Single => "single",
            RiceArch::Serial => "serial",
        }
    }
}

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RiceHwConfig {
    /// The code: k, unary polarity, bit order, and the value width
    /// (`RiceConfig::width`, the output lanes' bits).
    pub code: RiceConfig,
    /// N: stream bits per input beat (`--width`), a multiple of 8 in
    /// 8..=128.
    pub chunk_bits: u32,
    pub arch: RiceArch,
}

/// A configuration the generator rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RiceHwError {
    /// The code itself is invalid (k above the value width, ...).
    Code(ConfigError),
    /// `--width` is not a multiple of 8 in 8..=128.
    ChunkBits { bits: u32 },
}

impl fmt::Display for RiceHwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RiceHwError::Code(e) => write!(f, "{e}"),
            RiceHwError::ChunkBits { bits } => write!(
                f,
                "--width {bits}: the input chunk must be a multiple of 8 bits in \
                 {MIN_CHUNK_BITS}..={MAX_CHUNK_BITS}"
            ),
        }
    }
}

impl std::error::Error for RiceHwError {}

impl RiceHwConfig {
    pub fn validate(&self) -> Result<(), RiceHwError> {
        self.code.validate().map_err(RiceHwError::Code)?;
        let n = self.chunk_bits;
        if n % 8 != 0 || !(MIN_CHUNK_BITS..=MAX_CHUNK_BITS).contains(&n) {
            return Err(RiceHwError::ChunkBits { bits: n });
        }
        Ok(())
    }

    /// B = ceil(N / (k+1)): blocks per insertion pipeline, builders, and
    /// the most integers a chunk can complete.
    pub fn builders(&self) -> u32 {
        self.chunk_bits.div_ceil(self.code.k + 1)
    }

    /// Integer lanes per output beat: B for `nostall`, 1 otherwise.
    pub fn lanes(&self) -> u32 {
        match self.arch {
            RiceArch::NoStall => self.builders(),
            RiceArch::Single | RiceArch::Serial => 1,
        }
    }

    pub fn layout(&self) -> OutputLayout {
        OutputLayout {
            lanes: self.lanes(),
            value_bits: self.code.width,
        }
    }
}

/// Bit layout of `m_axis_tdata`, from bit 0: `lanes` values of
/// `value_bits`, the valid mask (`lanes` bits), then the status: overflow
/// (1), trailing bits hold a delimiter (1), trailing bit count, offset of
/// the overflowing code, its quotient ([`POS_BITS`] each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputLayout {
    pub lanes: u32,
    pub value_bits: u32,
}

/// One output beat, decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    /// The valid lanes' integers, lane 0 first.
    pub values: Vec<u64>,
    /// Lanes valid but not a prefix of the lanes (should never happen).
    pub mask_gaps: bool,
    pub status: BeatStatus,
}

/// The status fields of a beat (zero but on a packet's last beat).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BeatStatus {
    pub overflow: bool,
    pub tail_has_delimiter: bool,
    pub tail_bits: u64,
    pub overflow_at: u64,
    pub overflow_quotient: u64,
}

/// Bits `lsb .. lsb+width` (width <= 64) of a little-endian byte string.
pub fn bits_at(bytes: &[u8], lsb: u32, width: u32) -> u64 {
    let mut v = 0u64;
    for i in 0..width {
        let bit = lsb + i;
        let byte = bytes.get((bit / 8) as usize).copied().unwrap_or(0);
        if byte >> (bit % 8) & 1 == 1 {
            v |= 1 << i;
        }
    }
    v
}

impl OutputLayout {
    pub fn mask_lsb(&self) -> u32 {
        self.lanes * self.value_bits
    }
    pub fn overflow_bit(&self) -> u32 {
        self.mask_lsb() + self.lanes
    }
    pub fn tail_delim_bit(&self) -> u32 {
        self.overflow_bit() + 1
    }
    pub fn tail_lsb(&self) -> u32 {
        self.overflow_bit() + 2
    }
    pub fn overflow_at_lsb(&self) -> u32 {
        self.tail_lsb() + POS_BITS
    }
    pub fn overflow_quotient_lsb(&self) -> u32 {
        self.overflow_at_lsb() + POS_BITS
    }
    /// Bits of `m_axis_tdata`.
    pub fn width(&self) -> u32 {
        self.overflow_quotient_lsb() + POS_BITS
    }

    /// Decode one beat (`ceil(width/8)` little-endian bytes).
    pub fn decode(&self, beat: &[u8]) -> Beat {
        let mut values = Vec::new();
        let mut mask_gaps = false;
        let mut gap = false;
        for lane in 0..self.lanes {
            if bits_at(beat, self.mask_lsb() + lane, 1) == 1 {
                mask_gaps |= gap;
                values.push(bits_at(beat, lane * self.value_bits, self.value_bits));
            } else {
                gap = true;
            }
        }
        Beat {
            values,
            mask_gaps,
            status: BeatStatus {
                overflow: bits_at(beat, self.overflow_bit(), 1) == 1,
                tail_has_delimiter: bits_at(beat, self.tail_delim_bit(), 1) == 1,
                tail_bits: bits_at(beat, self.tail_lsb(), POS_BITS),
                overflow_at: bits_at(beat, self.overflow_at_lsb(), POS_BITS),
                overflow_quotient: bits_at(beat, self.overflow_quotient_lsb(), POS_BITS),
            },
        }
    }
}

/// A generated decoder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RiceRtl {
    pub top: String,
    /// `(file name, contents)`, top last.
    pub files: Vec<(String, String)>,
    pub layout: OutputLayout,
    /// `nostall`: cycles from a beat's acceptance to its output beat
    /// ([`nostall_latency`]).
    pub latency: u32,
}

/// Stage registers between an input beat and its output beat (`nostall`):
/// stage 1 (input), stage 2 (each insertion pipeline's copy of the
/// delimiter bits), one stage per insertion block (B) and one more that
/// encodes the last block's mark, the selector (1), the builders' six
/// stages (per builder: positions, then counts; chunk-local selections,
/// then cases; carried state, output beat). The harness and the project
/// manifest read it from here.
pub fn nostall_latency(cfg: &RiceHwConfig) -> u32 {
    2 + (cfg.builders() + 1) + 1 + 6
}

const INSERT_V: &str = include_str!("../../../rtl-templates/rice/rice_insert.v");
const SELECT_V: &str = include_str!("../../../rtl-templates/rice/rice_select.v");
const BUILD_V: &str = include_str!("../../../rtl-templates/rice/rice_build.v");
const BUILD1_V: &str = include_str!("../../../rtl-templates/rice/rice_build1.v");
const SERIAL_V: &str = include_str!("../../../rtl-templates/rice/rice_serial.v");

#[derive(Template)]
#[template(path = "rice_top.v", escape = "none")]
struct TopTemplate<'a> {
    top: &'a str,
    arch: &'a str,
    arch_title: &'a str,
    arch_section: &'a str,
    config: String,
    n: u32,
    k: u32,
    b: u32,
    v: u32,
    pw: u32,
    keep_w: u32,
    out_w: u32,
    lanes: u32,
    mask_lsb: u32,
    ovf_bit: u32,
    tail_delim_bit: u32,
    tail_lsb: u32,
    ovf_at_lsb: u32,
    ovf_q_lsb: u32,
    msb_first: u32,
    unary_ones: u32,
    bit_order: &'a str,
    bit_order_text: &'a str,
    unary: &'a str,
    delim_value: u32,
    check_ovf: u32,
    maxq: u64,
    latency: u32,
    pos: u32,
    pos_text: &'a str,
    plw: u32,
}

/// Top-level module name.
pub const TOP: &str = "qrtl_rice_top";

/// Generate the decoder for `cfg`.
pub fn emit_rice(cfg: &RiceHwConfig) -> Result<RiceRtl, RiceHwError> {
    cfg.validate()?;
    let code = &cfg.code;
    let layout = cfg.layout();
    let (unary, delim_value) = match code.unary {
        Unary::Zeros => ("zeros", 1),
        Unary::Ones => ("ones", 0),
    };
    let (bit_order, bit_order_text, msb_first) = match code.bit_order {
        BitOrder::Msb => ("msb", "most significant first, remainders MSB first", 1),
        BitOrder::Lsb => ("lsb", "least significant first, remainders LSB first", 0),
    };
    let (arch_title, arch_section) = match cfg.arch {
        RiceArch::NoStall => ("no-stall, N bits per clock", "5.4.2"),
        RiceArch::Single => ("one integer per cycle", "5.4.3"),
        RiceArch::Serial => ("bit-serial", "5.5, the comparison decoder"),
    };
    // A quotient can only overflow when the value's quotient bits are
    // fewer than the status counters'.
    let q_bits = code.width - code.k;
    let check_ovf = q_bits < POS_BITS;
    let maxq = if check_ovf { (1u64 << q_bits) - 1 } else { 0 };
    // What the insertion pipelines hand the builders: every block's
    // delimiter position (no-stall builders, in parallel) or the
    // continuation and delimiter flags (the single builder scans them).
    let (pos, pos_text, plw) = match cfg.arch {
        RiceArch::NoStall => (
            1,
            "the blocks' delimiter positions",
            cfg.builders() * (CHUNK_POS_BITS + 1),
        ),
        RiceArch::Single | RiceArch::Serial => (
            0,
            "the continuation bits after the last code and the delimiter flags",
            2 * cfg.chunk_bits,
        ),
    };
    let latency = nostall_latency(cfg);
    let top = TopTemplate {
        top: TOP,
        arch: cfg.arch.as_str(),
        arch_title,
        arch_section,
        config: format!(
            "--width {} --k {} --unary {unary} --bit-order {bit_order} --value-bits {} --arch {}",
            cfg.chunk_bits,
            code.k,
            code.width,
            cfg.arch.as_str()
        ),
        n: cfg.chunk_bits,
        k: code.k,
        b: cfg.builders(),
        v: code.width,
        pw: POS_BITS,
        keep_w: cfg.chunk_bits / 8,
        out_w: layout.width(),
        lanes: layout.lanes,
        mask_lsb: layout.mask_lsb(),
        ovf_bit: layout.overflow_bit(),
        tail_delim_bit: layout.tail_delim_bit(),
        tail_lsb: layout.tail_lsb(),
        ovf_at_lsb: layout.overflow_at_lsb(),
        ovf_q_lsb: layout.overflow_quotient_lsb(),
        msb_first,
        unary_ones: 1 - delim_value,
        bit_order,
        bit_order_text,
        unary,
        delim_value,
        check_ovf: u32::from(check_ovf),
        maxq,
        latency,
        pos,
        pos_text,
        plw,
    }
    .render()
    .expect("the rice top template renders from plain values")
        + "\n";
    let files = match cfg.arch {
        RiceArch::Serial => vec![
            ("rice_serial.v".to_string(), SERIAL_V.to_string()),
            ("qrtl_rice_top.v".to_string(), top),
        ],
        RiceArch::NoStall => vec![
            ("rice_insert.v".to_string(), INSERT_V.to_string()),
            ("rice_select.v".to_string(), SELECT_V.to_string()),
            ("rice_build.v".to_string(), BUILD_V.to_string()),
            ("qrtl_rice_top.v".to_string(), top),
        ],
        RiceArch::Single => vec![
            ("rice_insert.v".to_string(), INSERT_V.to_string()),
            ("rice_select.v".to_string(), SELECT_V.to_string()),
            ("rice_build1.v".to_string(), BUILD1_V.to_string()),
            ("qrtl_rice_top.v".to_string(), top),
        ],
    };
    Ok(RiceRtl {
        top: TOP.to_string(),
        files,
        layout,
        latency,
    })
}

/// The top module's ports.
pub fn rice_ports(cfg: &RiceHwConfig) -> Vec<Port> {
    StreamPorts {
        in_bits: cfg.chunk_bits,
        in_data: "GR stream bytes, byte i on bits 8i+7..8i",
        in_keep: Some("bytes present (all but on a packet's last beat)"),
        in_valid: "",
        in_ready: "",
        in_last: "last beat of a stream",
        out_bits: cfg.layout().width(),
        out_data: "integer lanes, valid mask, status (see README)",
        out_valid: "",
        out_ready: "",
        out_last: "last beat of a stream's integers",
    }
    .ports()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_fields_do_not_overlap() {
        let l = OutputLayout {
            lanes: 3,
            value_bits: 10,
        };
        assert_eq!(l.mask_lsb(), 30);
        assert_eq!(l.overflow_bit(), 33);
        assert_eq!(l.tail_lsb(), 35);
        assert_eq!(l.width(), 35 + 3 * POS_BITS);
        // lanes 0 and 2 valid, values 5 and 1023, overflow at 77.
        let mut beat = vec![0u8; l.width().div_ceil(8) as usize];
        let mut set = |lsb: u32, w: u32, v: u64| {
            for i in 0..w {
                if v >> i & 1 == 1 {
                    beat[((lsb + i) / 8) as usize] |= 1 << ((lsb + i) % 8);
                }
            }
        };
        set(0, 10, 5);
        set(20, 10, 1023);
        set(30, 1, 1);
        set(32, 1, 1);
        set(33, 1, 1);
        set(l.overflow_at_lsb(), POS_BITS, 77);
        let b = l.decode(&beat);
        assert_eq!(b.values, vec![5, 1023]);
        assert!(b.mask_gaps && b.status.overflow);
        assert_eq!(b.status.overflow_at, 77);
    }

    #[test]
    fn widths_are_validated() {
        let cfg = |n, k, width| RiceHwConfig {
            code: RiceConfig {
                k,
                width,
                ..RiceConfig::default()
            },
            chunk_bits: n,
            arch: RiceArch::NoStall,
        };
        assert!(cfg(8, 0, 64).validate().is_ok());
        assert!(cfg(128, 63, 64).validate().is_ok());
        for n in [0, 4, 12, 136] {
            assert_eq!(
                cfg(n, 3, 32).validate(),
                Err(RiceHwError::ChunkBits { bits: n })
            );
        }
        assert!(cfg(32, 9, 8).validate().is_err());
        assert_eq!(cfg(32, 3, 32).builders(), 8);
        assert_eq!(cfg(30 + 2, 2, 32).builders(), 11);
    }
}
