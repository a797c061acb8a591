//! The word-driven Golomb-Rice decoder.
//!
//! Bits are normalised so that the delimiter is a one: a [`Unary::Ones`]
//! stream is inverted as it is loaded (and its remainders inverted back).
//! The fast loop keeps a 64-bit buffer topped up by a branch-free refill
//! (8 bytes loaded at the first byte not yet in the buffer, ORed in behind
//! the valid bits, leaving 56 to 63 valid bits) and decodes one code per
//! leading-zero (MSB order) or trailing-zero (LSB order) count. A code
//! longer than the buffer (long quotient, large k) and the last 8 bytes go
//! through the general path, which counts continuation bits across words
//! without bound. x86-64 CPUs with LZCNT and BMI2 get a copy of the loops
//! compiled for them (baseline x86-64 has only BSR/BSF).

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
    /// `buf` with `w` placed after its first `n < 64` bits.
    fn refill(buf: u64, w: u64, n: u32) -> u64;
    /// The first `n < 64` bits of `w`, the others cleared.
    fn keep(w: u64, n: u32) -> u64;
}

/// 8 bytes at `i` (the caller checked `i + 8 <= bytes.len()`).
#[inline(always)]
fn load8(bytes: &[u8], i: usize) -> [u8; 8] {
    match bytes.get(i..i + 8) {
        Some(s) => s.try_into().unwrap_or([0; 8]),
        None => [0; 8],
    }
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
    #[inline(always)]
    fn refill(buf: u64, w: u64, n: u32) -> u64 {
        buf | (w >> n)
    }
    #[inline(always)]
    fn keep(w: u64, n: u32) -> u64 {
        w & !(u64::MAX >> n)
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
    #[inline(always)]
    fn refill(buf: u64, w: u64, n: u32) -> u64 {
        buf | (w << n)
    }
    #[inline(always)]
    fn keep(w: u64, n: u32) -> u64 {
        w & ((1u64 << n) - 1)
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
#[inline(always)]
fn run<O: Order, const CHECK_Q: bool>(
    bytes: &[u8],
    start: u64,
    run: u64,
    p: &Params,
    out: &mut Vec<u64>,
) -> Stop {
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
    // Fast loop (a branch-free refill): `buf` holds `count` valid bits
    // (56..=63 after each refill) in stream order from its first position,
    // `ptr` is the first byte not yet counted in it. A refill ORs the 8
    // bytes at `ptr` in behind the valid bits; bits past `count` are real
    // stream bits (ORed again, identically, by the next refill).
    let len_bytes = bytes.len();
    let mut ptr = (pos >> 3) as usize;
    let mut buf = 0u64;
    let mut count = 0u32;
    if ptr + 8 <= len_bytes {
        let s = (pos & 7) as u32;
        count = 56 - s;
        buf = O::keep(O::skip(O::load(load8(bytes, ptr)) ^ p.invert, s), count);
        ptr += 7;
    }
    while ptr + 8 <= len_bytes {
        buf = O::refill(buf, O::load(load8(bytes, ptr)) ^ p.invert, count);
        ptr += ((63 - count) >> 3) as usize;
        count |= 56;
        let z = O::count(buf);
        let len = z + 1 + k;
        if len > count {
            // The code does not fit the buffer: the general path, then
            // restart the buffer after it.
            let at = ptr as u64 * 8 - u64::from(count);
            match general::<O>(bytes, at, 0, p) {
                Step::Value(v, next) => {
                    out.push(v);
                    pos = next;
                }
                Step::Incomplete(delim) => return Stop::Incomplete { at, run: 0, delim },
                Step::Overflow(q) => return Stop::Overflow { at, run: 0, q },
            }
            ptr = (pos >> 3) as usize;
            buf = 0;
            count = 0;
            if ptr + 8 <= len_bytes {
                let s = (pos & 7) as u32;
                count = 56 - s;
                buf = O::keep(O::skip(O::load(load8(bytes, ptr)) ^ p.invert, s), count);
                ptr += 7;
            }
            continue;
        }
        if CHECK_Q && u64::from(z) > p.max_q {
            return Stop::Overflow {
                at: ptr as u64 * 8 - u64::from(count),
                run: 0,
                q: u64::from(z),
            };
        }
        let r = O::take(O::skip(buf, z + 1), k) ^ p.rem_xor;
        out.push((u64::from(z) << k) | r);
        buf = O::skip(buf, len);
        count -= len;
    }
    if count > 0 || ptr > (pos >> 3) as usize {
        pos = ptr as u64 * 8 - u64::from(count);
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

/// `run` with the overflow check only where a quotient that fits a word
/// can overflow.
#[inline(always)]
fn run_checked<O: Order>(
    bytes: &[u8],
    start: u64,
    run_in: u64,
    p: &Params,
    out: &mut Vec<u64>,
) -> Stop {
    if p.max_q >= 63 {
        run::<O, false>(bytes, start, run_in, p, out)
    } else {
        run::<O, true>(bytes, start, run_in, p, out)
    }
}

/// The loops compiled with LZCNT/TZCNT and BMI2 shifts (x86-64 baseline
/// has only BSR/BSF and flag-setting shifts).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "lzcnt,bmi1,bmi2")]
fn run_bmi<O: Order>(
    bytes: &[u8],
    start: u64,
    run_in: u64,
    p: &Params,
    out: &mut Vec<u64>,
) -> Stop {
    run_checked::<O>(bytes, start, run_in, p, out)
}

fn run_best<O: Order>(
    bytes: &[u8],
    start: u64,
    run_in: u64,
    p: &Params,
    out: &mut Vec<u64>,
) -> Stop {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
    {
        // SAFETY: the CPU has every feature `run_bmi` is compiled for.
        return unsafe { run_bmi::<O>(bytes, start, run_in, p, out) };
    }
    run_checked::<O>(bytes, start, run_in, p, out)
}

/// A decoder fed chunk by chunk (as the hardware sees its input); codes may
/// span chunks, long quotients any number of them.
#[derive(Clone, Debug)]
pub struct StreamDecoder {
    cfg: RiceConfig,
    /// The bytes of an incomplete code with a complete unary part.
    carry: Vec<u8>,
    /// Bit of `carry[0]` (of the next chunk when `carry` is empty) where
    /// the next code's unread part starts.
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
        if !self.carry.is_empty() && chunk.len() >= 8 {
            // The carried code has its delimiter, so at most 63 remainder
            // bits are missing: finish it on the carry plus 8 bytes, then
            // decode the chunk in place instead of copying it.
            let carry_bits = self.carry.len() as u64 * 8;
            let carry_len = self.carry.len();
            self.carry.extend_from_slice(&chunk[..8]);
            let step = match self.cfg.bit_order {
                BitOrder::Msb => general::<Msb>(&self.carry, self.carry_bit, self.run, &p),
                BitOrder::Lsb => general::<Lsb>(&self.carry, self.carry_bit, self.run, &p),
            };
            match step {
                Step::Value(v, next) if next >= carry_bits => {
                    out.push(v);
                    self.values += 1;
                    self.base += carry_bits;
                    self.carry.clear();
                    self.carry_bit = next - carry_bits;
                    self.run = 0;
                }
                // Not reachable for a carry the decoder kept; the copying
                // path below decides.
                _ => self.carry.truncate(carry_len),
            }
        }
        let mut buf = std::mem::take(&mut self.carry);
        let bytes: &[u8] = if buf.is_empty() {
            chunk
        } else {
            buf.extend_from_slice(chunk);
            &buf
        };
        let before = out.len();
        let stop = match self.cfg.bit_order {
            BitOrder::Msb => run_best::<Msb>(bytes, self.carry_bit, self.run, &p, out),
            BitOrder::Lsb => run_best::<Lsb>(bytes, self.carry_bit, self.run, &p, out),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refmodel::encode;

    fn outcome(s: Stop) -> (u64, u64, bool, u64) {
        match s {
            Stop::Incomplete { at, run, delim } => (at, run, delim, 0),
            Stop::Overflow { at, run, q } => (at, run, false, q + 1),
        }
    }

    /// The baseline x86-64 loops and the LZCNT/BMI2 copy (where the CPU
    /// has it) agree, so both builds are tested on any machine.
    #[test]
    fn baseline_and_dispatched_loops_agree() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for k in [0u32, 2, 3, 8, 16, 40, 63] {
            for width in [64u32, 16] {
                if k > width {
                    continue;
                }
                for unary in [Unary::Zeros, Unary::Ones] {
                    for bit_order in [BitOrder::Msb, BitOrder::Lsb] {
                        let cfg = RiceConfig {
                            k,
                            unary,
                            bit_order,
                            width,
                        };
                        let p = Params::new(&cfg);
                        let values: Vec<u64> = (0..500)
                            .map(|_| {
                                let q = u64::from(next().trailing_zeros() % 70);
                                let r = if k == 0 { 0 } else { next() >> (64 - k) };
                                ((q << k) | r) & cfg.max_value()
                            })
                            .collect();
                        let mut streams = vec![encode(&cfg, &values).unwrap()];
                        streams.push((0..300).map(|_| next() as u8).collect());
                        for bytes in &streams {
                            for start in [0u64, 3] {
                                let (mut a, mut b) = (Vec::new(), Vec::new());
                                let (sa, sb) = match bit_order {
                                    BitOrder::Msb => (
                                        run_checked::<Msb>(bytes, start, 0, &p, &mut a),
                                        run_best::<Msb>(bytes, start, 0, &p, &mut b),
                                    ),
                                    BitOrder::Lsb => (
                                        run_checked::<Lsb>(bytes, start, 0, &p, &mut a),
                                        run_best::<Lsb>(bytes, start, 0, &p, &mut b),
                                    ),
                                };
                                assert_eq!(a, b, "{cfg:?}");
                                assert_eq!(outcome(sa), outcome(sb), "{cfg:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}
