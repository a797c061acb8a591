//! Golomb-Rice codec (SPEC §5): the software reference model of the GR
//! decoder hardware (dissertation ch. 5).
//!
//! A value `v` is coded with parameter `k` as the quotient `q = v >> k` in
//! unary, then the `k`-bit remainder. The unary part is `q` *continuation*
//! bits then one *delimiter* bit: zeros then a one ([`Unary::Zeros`], FLAC and
//! JPEG-LS style, the default) or ones then a zero ([`Unary::Ones`], the
//! dissertation's). [`BitOrder::Msb`] takes the bits of each byte from the
//! most significant one and writes the remainder most significant bit first;
//! [`BitOrder::Lsb`] mirrors both.
//!
//! Stream rules:
//! * the encoder pads the last byte with continuation bits, so a decoder
//!   sees at most 7 bits of an incomplete unary part, never a phantom value;
//! * a decoder emits only complete codes and reports the bits after the last
//!   one ([`Tail`]): padding-shaped when they are fewer than 8 continuation
//!   bits (exactly what the encoder writes), truncated otherwise;
//! * a complete unary part whose quotient does not fit the output width
//!   ([`RiceConfig::width`]) is an error ([`DecodeError::QuotientOverflow`]),
//!   never a wrap; decoding stops there.
//!
//! The decoder ([`decode`], [`StreamDecoder`]) is word-driven: it loads 64
//! bits at a time and counts leading (MSB) or trailing (LSB) zeros to find
//! each delimiter; it never panics on any input.

mod decode;
mod encode;

pub use decode::{decode, decode_into, StreamDecoder};
pub use encode::{encode, encode_into, Encoder};

use std::fmt;

/// How the quotient is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Unary {
    /// `q` zeros then a one (default).
    #[default]
    Zeros,
    /// `q` ones then a zero.
    Ones,
}

/// Bit order within bytes and of the remainder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BitOrder {
    /// Each byte's bits from the most significant; remainder MSB first (default).
    #[default]
    Msb,
    /// Each byte's bits from the least significant; remainder LSB first.
    Lsb,
}

/// Codec parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RiceConfig {
    /// Remainder bits, `0..=63` and at most `width`.
    pub k: u32,
    pub unary: Unary,
    pub bit_order: BitOrder,
    /// Bits of a decoded value, `1..=64`: a value must be below `2^width`.
    pub width: u32,
}

impl Default for RiceConfig {
    fn default() -> Self {
        RiceConfig {
            k: 0,
            unary: Unary::Zeros,
            bit_order: BitOrder::Msb,
            width: 64,
        }
    }
}

/// Largest `k` accepted.
pub const MAX_K: u32 = 63;

/// Largest quotient the encoder writes (a code of up to 2^32 + 64 bits);
/// larger ones are [`EncodeError::QuotientTooLong`]. The decoder has no such
/// limit: it counts continuation bits across words and chunks.
pub const MAX_ENCODE_QUOTIENT: u64 = 1 << 32;

/// An invalid [`RiceConfig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigError {
    KTooLarge { k: u32 },
    BadWidth { width: u32 },
    KAboveWidth { k: u32, width: u32 },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ConfigError::KTooLarge { k } => write!(f, "k = {k} is above the maximum {MAX_K}"),
            ConfigError::BadWidth { width } => {
                write!(f, "output width {width} is outside 1..=64 bits")
            }
            ConfigError::KAboveWidth { k, width } => {
                write!(f, "k = {k} is above the output width {width}")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

impl RiceConfig {
    /// A config with `k` and the defaults (zeros, MSB, 64-bit values).
    pub fn with_k(k: u32) -> RiceConfig {
        RiceConfig {
            k,
            ..RiceConfig::default()
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.k > MAX_K {
            return Err(ConfigError::KTooLarge { k: self.k });
        }
        if !(1..=64).contains(&self.width) {
            return Err(ConfigError::BadWidth { width: self.width });
        }
        if self.k > self.width {
            return Err(ConfigError::KAboveWidth {
                k: self.k,
                width: self.width,
            });
        }
        Ok(())
    }

    /// Largest value of the output width.
    pub fn max_value(&self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// Largest quotient whose value fits the output width.
    pub fn max_quotient(&self) -> u64 {
        let bits = self.width.saturating_sub(self.k);
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }

    /// Length in bits of the code of `v` (saturating).
    pub fn code_bits(&self, v: u64) -> u64 {
        (v >> self.k).saturating_add(1 + self.k as u64)
    }
}

/// A value the encoder cannot write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// `value` (the `index`-th, 0-based) is above `2^width - 1`.
    ValueTooWide {
        index: usize,
        value: u64,
        width: u32,
    },
    /// The quotient is above [`MAX_ENCODE_QUOTIENT`].
    QuotientTooLong {
        index: usize,
        value: u64,
        quotient: u64,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EncodeError::ValueTooWide {
                index,
                value,
                width,
            } => write!(
                f,
                "value {index} ({value}) does not fit the {width}-bit output width"
            ),
            EncodeError::QuotientTooLong {
                index,
                value,
                quotient,
            } => write!(
                f,
                "value {index} ({value}) has quotient {quotient}, above the encoder's \
                 limit {MAX_ENCODE_QUOTIENT} (use a larger k)"
            ),
        }
    }
}

impl std::error::Error for EncodeError {}

/// A stream the decoder stops on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The code starting at bit `bit_offset` (0-based, in stream bit order)
    /// has a complete unary part whose quotient exceeds
    /// [`RiceConfig::max_quotient`]. `index` is the number of values
    /// decoded before it.
    QuotientOverflow {
        bit_offset: u64,
        index: u64,
        quotient: u64,
        max_quotient: u64,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeError::QuotientOverflow {
                bit_offset,
                index,
                quotient,
                max_quotient,
            } => write!(
                f,
                "quotient overflow at bit {bit_offset} (code {index}): quotient {quotient} \
                 is above {max_quotient}, the largest that fits the output width"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// The bits after the last complete code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tail {
    /// Bit offset of the incomplete code (= total bits when `bits == 0`).
    pub bit_offset: u64,
    /// Number of trailing bits that do not form a complete code.
    pub bits: u64,
    /// They hold a delimiter (the unary part is complete, the remainder is cut).
    pub has_delimiter: bool,
}

impl Tail {
    /// Padding-shaped: fewer than 8 bits, all continuation bits (what the
    /// encoder writes). Anything else is a truncated code.
    pub fn is_padding(&self) -> bool {
        self.bits < 8 && !self.has_delimiter
    }

    /// What `qrtl rice decode` notes about a tail that is not padding.
    pub fn note(&self) -> String {
        format!(
            "{} trailing bit{} at bit {} do not complete a code{}",
            self.bits,
            if self.bits == 1 { "" } else { "s" },
            self.bit_offset,
            if self.has_delimiter {
                " (the remainder is cut: truncated stream?)"
            } else {
                " (more than a byte of padding: truncated stream?)"
            }
        )
    }
}

/// What a decode produced besides the values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decoded {
    /// Number of values produced.
    pub values: u64,
    pub tail: Tail,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_quotient_follows_width_and_k() {
        let c = |k, width| RiceConfig {
            k,
            width,
            ..RiceConfig::default()
        };
        assert_eq!(c(0, 64).max_quotient(), u64::MAX);
        assert_eq!(c(2, 4).max_quotient(), 3);
        assert_eq!(c(8, 8).max_quotient(), 0);
        assert_eq!(c(63, 64).max_quotient(), 1);
        assert_eq!(c(5, 16).max_value(), 65535);
    }

    #[test]
    fn byte_by_byte_feeding_equals_one_shot() {
        for unary in [Unary::Zeros, Unary::Ones] {
            for bit_order in [BitOrder::Msb, BitOrder::Lsb] {
                for k in [0, 3, 8, 17, 63] {
                    let cfg = RiceConfig {
                        k,
                        unary,
                        bit_order,
                        width: 64,
                    };
                    let values: Vec<u64> = (0..300u64)
                        .map(|i| {
                            ((i * 7919 % 97) << k)
                                | ((i.wrapping_mul(0x9e37_79b9) >> (64 - k.max(1)))
                                    * u64::from(k > 0))
                        })
                        .collect();
                    let bytes = encode(&cfg, &values).unwrap();
                    let (one_shot, d) = decode(&cfg, &bytes).unwrap();
                    assert_eq!(one_shot, values);
                    let mut s = StreamDecoder::new(cfg);
                    let mut got = Vec::new();
                    for b in &bytes {
                        s.feed(std::slice::from_ref(b), &mut got).unwrap();
                    }
                    assert_eq!(got, values);
                    assert_eq!(s.finish().unwrap(), d);
                }
            }
        }
    }
}
