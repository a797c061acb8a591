//! The word-driven Golomb-Rice decoder.
//!
//! Bits are normalised so that the delimiter is a one: a [`Unary::Ones`]
//! stream is inverted as it is loaded (and its remainders inverted back).
//! The fast loop loads 8 bytes at the current bit, aligns the current bit to
//! the word's first position (bit 63 for MSB order, bit 0 for LSB) and
//! decodes every code that fits in the word's valid bits with one
//! leading/trailing-zero count each, then reloads. A code that does not fit
//! a word (long quotient, large k) or runs into the end of the buffer goes
//! through the general path, which counts continuation bits across words
//! without bound.

use super::{BitOrder, DecodeError, Decoded, RiceConfig, Tail, Unary};

/// Stream bit order as word operations; monomorphised into the loops.
trait Order {
    /// A remainder's first stream bit is its most significant.
    const MSB_FIRST: bool;
    /// 8 bytes, the first in the word's first position.
    fn load(b: [u8; 8]) -> u64;
    /// Moves the word so that bit `sh` of the loaded word is first.
    fn skip(w: u64, sh: u32) -> u64;
    /// Continuation (zero) bits before the first one.
    fn count(w: u64) -> u32;
    /// The first `k < 64` bits as a remainder value.
    fn take(w: u64, k: u32) -> u64;
}

struct Msb;
struct Lsb;

impl Order for Msb {
    const MSB_FIRST: bool = true;
    #[inline(always)]
    fn load(b: [u8; 8]) -> u64 {
        u64::from_be_bytes(b)
    }
    #[inline(always)]
    fn skip(w: u64, sh: u32) -> u64 {
        w << sh
    }
    #[inline(always)]
    fn count(w: u64) -> u32 {
        w.leading_zeros()
    }
    #[inline(always)]
    fn take(w: u64, k: u32) -> u64 {
        (w >> (63 - k)) >> 1
    }
}

impl Order for Lsb {
    const MSB_FIRST: bool = false;
    #[inline(always)]
    fn load(b: [u8; 8]) -> u64 {
        u64::from_le_bytes(b)
    }
    #[inline(always)]
    fn skip(w: u64, sh: u32) -> u64 {
        w >> sh
    }
    #[inline(always)]
    fn count(w: u64) -> u32 {
        w.trailing_zeros()
    }
    #[inline(always)]
    fn take(w: u64, k: u32) -> u64 {
        w & ((1u64 << k) - 1)
    }
}

/// Per-config constants of the loops.
#[derive(Clone, Copy)]
struct Params {
    k: u32,
    /// XOR applied to loaded bytes so the delimiter is a one.
    invert: u64,
    /// XOR that restores a remainder read from inverted bits.
    rem_xor: u64,
    max_q: u64,
}

impl Params {
    fn new(cfg: &RiceConfig) -> Params {
        let ones = cfg.unary == Unary::Ones;
        let kmask = if cfg.k == 0 {
            0
        } else {
            u64::MAX >> (64 - cfg.k)
        };
        Params {
            k: cfg.k,
            invert: if ones { u64::MAX } else { 0 },
            rem_xor: if ones { kmask } else { 0 },
            max_q: cfg.max_quotient(),
        }
    }
}

/// Where a buffer stopped.
enum Stop {
    /// The code starting at bit `at` (after `run` continuation bits counted
    /// in earlier buffers) is incomplete; `delim`: its unary part is complete.
    Incomplete { at: u64, run: u64, delim: bool },
    /// The code at `at` has quotient `q`, above the maximum.
    Overflow { at: u64, run: u64, q: u64 },
}

/// One code through the general path.
enum Step {
    Value(u64, u64),
    Incomplete(bool),
    Overflow(u64),
}

/// Up to 64 bits at bit `c` of `bytes`, normalised and aligned, and how many
/// of them are in the buffer (at most 57).
#[inline(always)]
fn peek<O: Order>(bytes: &[u8], c: u64, p: &Params) -> (u64, u64) {
    let total = bytes.len() as u64 * 8;
    let i = (c >> 3) as usize;
    let sh = (c & 7) as u32;
    let b = match bytes.get(i..i + 8) {
        Some(s) => s.try_into().unwrap_or([0; 8]),
        None => {
            let mut b = [0u8; 8];
            let rest = bytes.get(i..).unwrap_or(&[]);
            b[..rest.len()].copy_from_slice(rest);
            b
        }
    };
    let w = O::skip(O::load(b) ^ p.invert, sh);
    (w, (total - c).min(57))
}

/// `n <= 63` bits at `c` (known to be in the buffer) as a remainder value.
fn read_bits<O: Order>(bytes: &[u8], c: u64, n: u32, p: &Params) -> u64 {
    if n == 0 {
        return 0;
    }
    if n <= 57 {
        return O::take(peek::<O>(bytes, c, p).0, n);
    }
    let hi_n = n - 32;
    let first = O::take(peek::<O>(bytes, c, p).0, 32);
    let second = O::take(peek::<O>(bytes, c + 32, p).0, hi_n);
    // The remainder's first 32 stream bits are its high bits in MSB
    // order, its low bits in LSB order.
    if O::MSB_FIRST {
        (first << hi_n) | second
    } else {
        first | (second << 32)
    }
}

/// Decodes one code at `c`, `run` continuation bits already counted.
fn general<O: Order>(bytes: &[u8], mut c: u64, run: u64, p: &Params) -> Step {
    let total = bytes.len() as u64 * 8;
    let mut q = run;
    loop {
        if c >= total {
            return Step::Incomplete(false);
        }
        let (w, valid) = peek::<O>(bytes, c, p);
        let z = u64::from(O::count(w));
        if z < valid {
            q += z;
            c += z;
            break;
        }
        q += valid;
        c += valid;
    }
    c += 1; // the delimiter
    if q > p.max_q {
        return Step::Overflow(q);
    }
    if c + u64::from(p.k) > total {
        return Step::Incomplete(true);
    }
    let r = read_bits::<O>(bytes, c, p.k, p) ^ p.rem_xor;
    Step::Value((q << p.k) | r, c + u64::from(p.k))
}

/// Decodes every complete code of `bytes` from bit `start`; the first code
/// continues `run` continuation bits of earlier buffers.
fn run<O: Order>(bytes: &[u8], start: u64, run: u64, p: &Params, out: &mut Vec<u64>) -> Stop {
    let mut pos = start;
    let k = p.k;
    if run > 0 {
        match general::<O>(bytes, pos, run, p) {
            Step::Value(v, next) => {
                out.push(v);
                pos = next;
            }
            Step::Incomplete(delim) => {
                return Stop::Incomplete {
                    at: pos,
                    run,
                    delim,
                }
            }
            Step::Overflow(q) => return Stop::Overflow { at: pos, run, q },
        }
    }
    // Fast loop: 8 bytes in the buffer from the current byte.
    let fast_end = bytes.len().saturating_sub(7);
    let per_word = (57 / (k as usize + 1)).max(1);
    while ((pos >> 3) as usize) < fast_end {
        let i = (pos >> 3) as usize;
        let sh = (pos & 7) as u32;
        let b: [u8; 8] = match bytes[i..i + 8].try_into() {
            Ok(b) => b,
            Err(_) => break,
        };
        let mut w = O::skip(O::load(b) ^ p.invert, sh);
        // At most 63 so that every shift below is below 64.
        let valid = (64 - sh).min(63);
        let mut used = 0u32;
        out.reserve(per_word);
        loop {
            let z = O::count(w);
            let len = z + 1 + k;
            if used + len > valid {
                break;
            }
            if u64::from(z) > p.max_q {
                return Stop::Overflow {
                    at: pos + u64::from(used),
                    run: 0,
                    q: u64::from(z),
                };
            }
            let r = O::take(O::skip(w, z + 1), k) ^ p.rem_xor;
            out.push((u64::from(z) << k) | r);
            w = O::skip(w, len);
            used += len;
        }
        if used > 0 {
            pos += u64::from(used);
            continue;
        }
        // The code does not fit one word.
        match general::<O>(bytes, pos, 0, p) {
            Step::Value(v, next) => {
                out.push(v);
                pos = next;
            }
            Step::Incomplete(delim) => {
                return Stop::Incomplete {
                    at: pos,
                    run: 0,
                    delim,
                }
            }
            Step::Overflow(q) => return Stop::Overflow { at: pos, run: 0, q },
        }
    }
    // The last bytes, code by code.
    loop {
        match general::<O>(bytes, pos, 0, p) {
            Step::Value(v, next) => {
                out.push(v);
                pos = next;
            }
            Step::Incomplete(delim) => {
                return Stop::Incomplete {
                    at: pos,
                    run: 0,
                    delim,
                }
            }
            Step::Overflow(q) => return Stop::Overflow { at: pos, run: 0, q },
        }
    }
}

/// A decoder fed chunk by chunk (as the hardware sees its input); codes may
/// span chunks, long quotients any number of them.
#[derive(Clone, Debug)]
pub struct StreamDecoder {
    cfg: RiceConfig,
    /// The bytes of an incomplete code with a complete unary part.
    carry: Vec<u8>,
    /// Bit of `carry[0]` where that code's unread part starts.
    carry_bit: u64,
    /// Continuation bits of the incomplete code before `carry`.
    run: u64,
    /// Stream bit offset of `carry[0]` (or of the next chunk when empty).
    base: u64,
    /// Stream bit offset of the incomplete code's first bit.
    code_start: u64,
    values: u64,
    failed: Option<DecodeError>,
}

impl StreamDecoder {
    /// `cfg` must be valid ([`RiceConfig::validate`]).
    pub fn new(cfg: RiceConfig) -> StreamDecoder {
        StreamDecoder {
            cfg,
            carry: Vec::new(),
            carry_bit: 0,
            run: 0,
            base: 0,
            code_start: 0,
            values: 0,
            failed: None,
        }
    }

    /// Appends the values completed by `chunk` to `out`. After an error,
    /// every later call returns the same error and decodes nothing.
    pub fn feed(&mut self, chunk: &[u8], out: &mut Vec<u64>) -> Result<(), DecodeError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let p = Params::new(&self.cfg);
        let mut buf = std::mem::take(&mut self.carry);
        let bytes: &[u8] = if buf.is_empty() {
            chunk
        } else {
            buf.extend_from_slice(chunk);
            &buf
        };
        let before = out.len();
        let stop = match self.cfg.bit_order {
            BitOrder::Msb => run::<Msb>(bytes, self.carry_bit, self.run, &p, out),
            BitOrder::Lsb => run::<Lsb>(bytes, self.carry_bit, self.run, &p, out),
        };
        self.values += (out.len() - before) as u64;
        let total = bytes.len() as u64 * 8;
        match stop {
            Stop::Incomplete { at, run, delim } => {
                self.code_start = self.base + at - run;
                if delim {
                    let first = (at >> 3) as usize;
                    let kept = bytes[first..].to_vec();
                    self.base += (first as u64) * 8;
                    self.carry = kept;
                    self.carry_bit = at & 7;
                    self.run = run;
                } else {
                    // Only continuation bits: keep their count, not the bytes.
                    self.run = run + (total - at);
                    self.base += total;
                    self.carry_bit = 0;
                }
                Ok(())
            }
            Stop::Overflow { at, run, q } => {
                let e = DecodeError::QuotientOverflow {
                    bit_offset: self.base + at - run,
                    index: self.values,
                    quotient: q,
                    max_quotient: p.max_q,
                };
                self.failed = Some(e);
                Err(e)
            }
        }
    }

    /// Values decoded so far.
    pub fn values(&self) -> u64 {
        self.values
    }

    /// The bits after the last complete code (for a finished stream).
    pub fn tail(&self) -> Tail {
        let carried = (self.carry.len() as u64 * 8).saturating_sub(self.carry_bit);
        let bits = self.run + carried;
        Tail {
            bit_offset: if bits == 0 {
                self.base + self.carry.len() as u64 * 8
            } else {
                self.code_start
            },
            bits,
            has_delimiter: !self.carry.is_empty(),
        }
    }

    /// Ends the stream.
    pub fn finish(self) -> Result<Decoded, DecodeError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        Ok(Decoded {
            values: self.values,
            tail: self.tail(),
        })
    }
}

/// Decodes a whole stream, appending its complete codes to `out`. On an
/// error, `out` holds the values before the failing code.
pub fn decode_into(
    cfg: &RiceConfig,
    bytes: &[u8],
    out: &mut Vec<u64>,
) -> Result<Decoded, DecodeError> {
    let mut d = StreamDecoder::new(*cfg);
    d.feed(bytes, out)?;
    d.finish()
}

/// Decodes a whole stream: its values and what follows the last code.
pub fn decode(cfg: &RiceConfig, bytes: &[u8]) -> Result<(Vec<u64>, Decoded), DecodeError> {
    let mut out = Vec::new();
    let d = decode_into(cfg, bytes, &mut out)?;
    Ok((out, d))
}
