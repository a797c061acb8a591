//! The Golomb-Rice encoder: a bit accumulator flushed byte by byte.

use super::{BitOrder, EncodeError, RiceConfig, Unary, MAX_ENCODE_QUOTIENT};

/// Encodes values one by one; [`Encoder::finish`] pads the last byte.
#[derive(Clone, Debug)]
pub struct Encoder {
    cfg: RiceConfig,
    out: Vec<u8>,
    /// Pending bits (fewer than 8 between calls): MSB order keeps them in
    /// the low `n` bits, oldest highest; LSB order keeps the oldest lowest.
    acc: u64,
    n: u32,
    count: usize,
}

impl Encoder {
    /// `cfg` must be valid ([`RiceConfig::validate`]).
    pub fn new(cfg: RiceConfig) -> Encoder {
        Encoder {
            cfg,
            out: Vec::new(),
            acc: 0,
            n: 0,
            count: 0,
        }
    }

    /// Writes `len <= 32` bits of `bits`: in MSB order its most significant
    /// bit first, in LSB order its least significant first.
    #[inline]
    fn put(&mut self, bits: u64, len: u32) {
        debug_assert!(len <= 32 && (len == 64 || bits >> len == 0));
        match self.cfg.bit_order {
            BitOrder::Msb => {
                self.acc = (self.acc << len) | bits;
                self.n += len;
                while self.n >= 8 {
                    self.n -= 8;
                    self.out.push((self.acc >> self.n) as u8);
                }
                self.acc &= (1u64 << self.n) - 1;
            }
            BitOrder::Lsb => {
                self.acc |= bits << self.n;
                self.n += len;
                while self.n >= 8 {
                    self.out.push(self.acc as u8);
                    self.acc >>= 8;
                    self.n -= 8;
                }
            }
        }
    }

    /// `len` continuation bits of the unary code.
    fn put_run(&mut self, mut len: u64) {
        let ones = self.cfg.unary == Unary::Ones;
        while len > 0 {
            let chunk = len.min(32) as u32;
            let bits = if ones { (1u64 << chunk) - 1 } else { 0 };
            self.put(bits, chunk);
            len -= chunk as u64;
        }
    }

    /// Appends the code of `v`.
    pub fn push(&mut self, v: u64) -> Result<(), EncodeError> {
        let index = self.count;
        if v > self.cfg.max_value() {
            return Err(EncodeError::ValueTooWide {
                index,
                value: v,
                width: self.cfg.width,
            });
        }
        let k = self.cfg.k;
        let q = v >> k;
        if q > MAX_ENCODE_QUOTIENT {
            return Err(EncodeError::QuotientTooLong {
                index,
                value: v,
                quotient: q,
            });
        }
        self.put_run(q);
        self.put(u64::from(self.cfg.unary == Unary::Zeros), 1);
        let r = if k == 0 {
            0
        } else {
            v & (u64::MAX >> (64 - k))
        };
        if k <= 32 {
            self.put(r, k);
        } else {
            let lo = k - 32;
            match self.cfg.bit_order {
                BitOrder::Msb => {
                    self.put(r >> lo, 32);
                    self.put(r & ((1u64 << lo) - 1), lo);
                }
                BitOrder::Lsb => {
                    self.put(r & 0xffff_ffff, 32);
                    self.put(r >> 32, lo);
                }
            }
        }
        self.count += 1;
        Ok(())
    }

    /// Number of values written.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The stream, its last byte padded with continuation bits.
    pub fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.put_run(u64::from(8 - self.n));
        }
        self.out
    }
}

/// Encodes `values` into a padded byte stream.
pub fn encode(cfg: &RiceConfig, values: &[u64]) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_into(cfg, values, &mut out)?;
    Ok(out)
}

/// Appends the padded stream of `values` to `out` (unchanged on error).
pub fn encode_into(cfg: &RiceConfig, values: &[u64], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let mut e = Encoder::new(*cfg);
    let bits: u64 = values
        .iter()
        .fold(0u64, |a, &v| a.saturating_add(cfg.code_bits(v)));
    e.out.reserve(bits.div_ceil(8).min(1 << 30) as usize);
    for &v in values {
        e.push(v)?;
    }
    out.extend_from_slice(&e.finish());
    Ok(())
}
