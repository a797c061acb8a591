//! The Golomb-Rice codec (SPEC §5) against an independent oracle: a
//! deliberately simple encoder and decoder over a `Vec<bool>` of stream
//! bits, written here from the SPEC's definition and sharing no code with
//! `refmodel::rice`.

use proptest::prelude::*;
use qrtl_rice::refmodel::{
    decode, decode_into, encode, BitOrder, DecodeError, EncodeError, RiceConfig, StreamDecoder,
    Tail, Unary,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

// ---- the oracle ----------------------------------------------------------

fn cont_bit(cfg: &RiceConfig) -> bool {
    cfg.unary == Unary::Ones
}

/// The code bits of `values`, unpadded.
fn oracle_bits(cfg: &RiceConfig, values: &[u64]) -> Vec<bool> {
    let mut bits = Vec::new();
    let c = cont_bit(cfg);
    for &v in values {
        let q = v >> cfg.k;
        for _ in 0..q {
            bits.push(c);
        }
        bits.push(!c);
        let order: Vec<u32> = match cfg.bit_order {
            BitOrder::Msb => (0..cfg.k).rev().collect(),
            BitOrder::Lsb => (0..cfg.k).collect(),
        };
        for i in order {
            bits.push((v >> i) & 1 == 1);
        }
    }
    bits
}

/// Stream bits to bytes; a partial last byte is filled with `fill`.
fn pack(cfg: &RiceConfig, bits: &[bool], fill: bool) -> Vec<u8> {
    let mut bytes = Vec::new();
    for chunk in bits.chunks(8) {
        let mut b = 0u8;
        for i in 0..8 {
            let bit = chunk.get(i).copied().unwrap_or(fill);
            if bit {
                b |= match cfg.bit_order {
                    BitOrder::Msb => 0x80 >> i,
                    BitOrder::Lsb => 1 << i,
                };
            }
        }
        bytes.push(b);
    }
    bytes
}

fn unpack(cfg: &RiceConfig, bytes: &[u8]) -> Vec<bool> {
    let mut bits = Vec::new();
    for &b in bytes {
        for i in 0..8 {
            bits.push(match cfg.bit_order {
                BitOrder::Msb => b & (0x80 >> i) != 0,
                BitOrder::Lsb => b & (1 << i) != 0,
            });
        }
    }
    bits
}

fn oracle_encode(cfg: &RiceConfig, values: &[u64]) -> Vec<u8> {
    pack(cfg, &oracle_bits(cfg, values), cont_bit(cfg))
}

#[derive(Debug, PartialEq, Eq)]
enum End {
    /// Trailing bits: offset, count, holds a delimiter.
    Tail(u64, u64, bool),
    /// Overflow: offset, values before, quotient.
    Overflow(u64, u64, u64),
}

fn oracle_decode(cfg: &RiceConfig, bytes: &[u8]) -> (Vec<u64>, End) {
    let bits = unpack(cfg, bytes);
    let c = cont_bit(cfg);
    let width_bits = cfg.width - cfg.k;
    let mut values = Vec::new();
    let mut i = 0usize;
    loop {
        let start = i;
        let mut q: u64 = 0;
        while i < bits.len() && bits[i] == c {
            q += 1;
            i += 1;
        }
        if i == bits.len() {
            return (values, End::Tail(start as u64, (i - start) as u64, false));
        }
        i += 1;
        if width_bits < 64 && q >= (1u64 << width_bits) {
            let index = values.len() as u64;
            return (values, End::Overflow(start as u64, index, q));
        }
        if i + cfg.k as usize > bits.len() {
            return (
                values,
                End::Tail(start as u64, (bits.len() - start) as u64, true),
            );
        }
        let mut r: u64 = 0;
        for j in 0..cfg.k as usize {
            if bits[i + j] {
                r |= match cfg.bit_order {
                    BitOrder::Msb => 1 << (cfg.k as usize - 1 - j),
                    BitOrder::Lsb => 1 << j,
                };
            }
        }
        i += cfg.k as usize;
        values.push((q << cfg.k) | r);
    }
}

// ---- helpers -------------------------------------------------------------

fn end_of(r: Result<qrtl_rice::refmodel::Decoded, DecodeError>) -> End {
    match r {
        Ok(d) => End::Tail(d.tail.bit_offset, d.tail.bits, d.tail.has_delimiter),
        Err(DecodeError::QuotientOverflow {
            bit_offset,
            index,
            quotient,
            ..
        }) => End::Overflow(bit_offset, index, quotient),
    }
}

/// Ours (one shot and in chunks) == the oracle on any bytes.
fn check_decode(cfg: &RiceConfig, bytes: &[u8], rng: &mut SmallRng) {
    let want = oracle_decode(cfg, bytes);
    let mut got = Vec::new();
    let end = end_of(decode_into(cfg, bytes, &mut got));
    assert_eq!((&got, &end), (&want.0, &want.1), "{cfg:?} {bytes:02x?}");
    // Streaming, random chunks (some empty).
    let mut d = StreamDecoder::new(*cfg);
    let mut got = Vec::new();
    let mut rest = bytes;
    let mut err = None;
    while !rest.is_empty() || rng.gen_bool(0.3) {
        let n = rng.gen_range(0..=rest.len().min(20));
        let (a, b) = rest.split_at(n);
        rest = b;
        if let Err(e) = d.feed(a, &mut got) {
            err = Some(e);
            break;
        }
    }
    let end = match err {
        Some(e) => end_of(Err(e)),
        None => end_of(d.finish()),
    };
    assert_eq!(
        (&got, &end),
        (&want.0, &want.1),
        "chunked {cfg:?} {bytes:02x?}"
    );
}

fn all_configs(k: u32, width: u32) -> Vec<RiceConfig> {
    let mut v = Vec::new();
    for unary in [Unary::Zeros, Unary::Ones] {
        for bit_order in [BitOrder::Msb, BitOrder::Lsb] {
            v.push(RiceConfig {
                k,
                unary,
                bit_order,
                width,
            });
        }
    }
    v
}

/// Values for `k` with quotients mostly small, sometimes long.
fn values_for(k: u32, n: usize, rng: &mut SmallRng) -> Vec<u64> {
    (0..n)
        .map(|_| {
            let q: u64 = match rng.gen_range(0..20) {
                0 => rng.gen_range(0..3000),
                1..=3 => rng.gen_range(0..70),
                _ => rng.gen_range(0..4),
            };
            let r = if k == 0 {
                0
            } else {
                rng.gen::<u64>() >> (64 - k)
            };
            let q = q.min(u64::MAX >> k);
            (q << k) | r
        })
        .collect()
}

fn round_trip(cfg: &RiceConfig, values: &[u64], rng: &mut SmallRng) {
    let bytes = encode(cfg, values).unwrap();
    assert_eq!(
        bytes,
        oracle_encode(cfg, values),
        "encoder vs oracle {cfg:?}"
    );
    let (got, d) = decode(cfg, &bytes).unwrap();
    assert_eq!(got, values, "{cfg:?}");
    assert!(d.tail.is_padding() && d.tail.bits < 8, "{:?}", d.tail);
    assert_eq!(d.values, values.len() as u64);
    check_decode(cfg, &bytes, rng);
}

// ---- tests ---------------------------------------------------------------

#[test]
fn round_trips_every_k_up_to_16_and_beyond() {
    let mut rng = SmallRng::seed_from_u64(5);
    for k in (0..=20).chain([24, 31, 32, 33, 40, 56, 57, 58, 62, 63]) {
        for cfg in all_configs(k, 64) {
            for n in [0, 1, 2, 7, 100, 1000] {
                let values = values_for(k, n, &mut rng);
                round_trip(&cfg, &values, &mut rng);
            }
        }
    }
}

#[test]
fn known_bytes() {
    // k = 2: 5 = q 1, r 01 -> 0 1 01; 2 = 1 10; padding zeros.
    let cfg = RiceConfig::with_k(2);
    assert_eq!(encode(&cfg, &[5, 2]).unwrap(), vec![0b0101_1100]);
    let ones = RiceConfig {
        unary: Unary::Ones,
        ..cfg
    };
    assert_eq!(encode(&ones, &[5, 2]).unwrap(), vec![0b1001_0101]);
    let lsb = RiceConfig {
        bit_order: BitOrder::Lsb,
        ..cfg
    };
    // Stream bits 0 1 1 0 (remainder 01 LSB first), 1 0 1, padding 0;
    // stream bit i is byte bit i.
    assert_eq!(encode(&lsb, &[5, 2]).unwrap(), vec![0b0101_0110]);
    assert_eq!(decode(&lsb, &[0b0101_0110]).unwrap().0, vec![5, 2]);
}

#[test]
fn long_quotients_span_many_words_and_chunks() {
    let mut rng = SmallRng::seed_from_u64(6);
    for k in [0, 1, 3, 8, 16] {
        for cfg in all_configs(k, 64) {
            let values = vec![
                100_000 << k,
                3,
                (64 << k) | 1,
                (57 << k) + 1,
                (56 << k) + 1,
                (63 << k) + 1,
                5000 << k,
                0,
            ];
            round_trip(&cfg, &values, &mut rng);
        }
    }
}

#[test]
fn k_zero_and_maximum_quotients() {
    let mut rng = SmallRng::seed_from_u64(7);
    for width in [1, 2, 8, 13, 16, 63, 64] {
        for k in [0, 1, 5, width.min(16), width.min(63)] {
            if k > width {
                continue;
            }
            for cfg in all_configs(k, width) {
                let max = cfg.max_value();
                let q_max = max >> k;
                if q_max > 20_000 {
                    // The widest values: the largest k only.
                    continue;
                }
                round_trip(&cfg, &[max, 0, max, max - (max >> 1)], &mut rng);
                // One quotient more: the encoder refuses the value, the
                // decoder flags the code at its bit offset.
                if width < 64 {
                    let too_wide = max + 1;
                    assert!(matches!(
                        encode(&cfg, &[1, too_wide]),
                        Err(EncodeError::ValueTooWide { index: 1, .. })
                    ));
                    let wide = RiceConfig { width: 64, ..cfg };
                    let bytes = oracle_encode(&wide, &[0, too_wide, 0]);
                    let mut got = Vec::new();
                    let e = decode_into(&cfg, &bytes, &mut got).unwrap_err();
                    assert_eq!(
                        e,
                        DecodeError::QuotientOverflow {
                            bit_offset: u64::from(k + 1),
                            index: 1,
                            quotient: q_max + 1,
                            max_quotient: q_max,
                        }
                    );
                    assert_eq!(got, vec![0]);
                    check_decode(&cfg, &bytes, &mut rng);
                }
            }
        }
    }
}

#[test]
fn widest_values_with_large_k() {
    let mut rng = SmallRng::seed_from_u64(8);
    for k in [48, 56, 60, 63] {
        for cfg in all_configs(k, 64) {
            round_trip(&cfg, &[u64::MAX, 0, u64::MAX - 1, 1 << 63], &mut rng);
        }
    }
}

#[test]
fn padding_is_continuation_bits_and_never_a_value() {
    for k in 0..=16 {
        for cfg in all_configs(k, 64) {
            for v in 0..40u64 {
                let bytes = encode(&cfg, &[v]).unwrap();
                let bits = cfg.code_bits(v);
                assert_eq!(bytes.len() as u64, bits.div_ceil(8));
                let (got, d) = decode(&cfg, &bytes).unwrap();
                assert_eq!(got, vec![v]);
                assert_eq!(
                    d.tail,
                    Tail {
                        bit_offset: bits,
                        bits: bytes.len() as u64 * 8 - bits,
                        has_delimiter: false,
                    }
                );
            }
        }
    }
}

#[test]
fn truncation_at_every_bit_position() {
    let mut rng = SmallRng::seed_from_u64(9);
    for k in [0, 1, 2, 3, 5, 8, 13, 16, 40, 63] {
        for cfg in all_configs(k, 64) {
            let values = values_for(k, 12, &mut rng);
            let bits = oracle_bits(&cfg, &values);
            let step = (bits.len() / 400).max(1);
            for cut in (0..=bits.len()).step_by(step) {
                // Cut bits, the byte completed with either bit value.
                for fill in [false, true] {
                    let bytes = pack(&cfg, &bits[..cut], fill);
                    check_decode(&cfg, &bytes, &mut rng);
                }
            }
        }
    }
}

#[test]
fn random_garbage_matches_the_oracle() {
    let mut rng = SmallRng::seed_from_u64(10);
    for round in 0..3000 {
        let k = rng.gen_range(0..=63);
        let width = rng.gen_range(k.max(1)..=64);
        let cfg = all_configs(k, width)[round % 4];
        let len = rng.gen_range(0..80);
        let density = rng.gen_range(0.0..1.0);
        let bytes: Vec<u8> = (0..len)
            .map(|_| (0..8).fold(0u8, |b, i| b | (u8::from(rng.gen_bool(density)) << i)))
            .collect();
        check_decode(&cfg, &bytes, &mut rng);
    }
}

#[test]
fn config_and_encoder_errors_are_typed() {
    assert!(RiceConfig::with_k(64).validate().is_err());
    assert!(RiceConfig {
        width: 0,
        ..RiceConfig::default()
    }
    .validate()
    .is_err());
    assert!(RiceConfig {
        k: 9,
        width: 8,
        ..RiceConfig::default()
    }
    .validate()
    .is_err());
    assert!(RiceConfig::with_k(63).validate().is_ok());
    assert!(matches!(
        encode(&RiceConfig::with_k(0), &[1, u64::MAX]),
        Err(EncodeError::QuotientTooLong { index: 1, .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn prop_round_trip(
        k in 0u32..=63,
        ones in any::<bool>(),
        lsb in any::<bool>(),
        qs in proptest::collection::vec(prop_oneof![8 => 0u64..8, 2 => 0u64..200, 1 => 0u64..2000], 0..60),
        rs in proptest::collection::vec(any::<u64>(), 60),
        seed in any::<u64>(),
    ) {
        let cfg = RiceConfig {
            k,
            unary: if ones { Unary::Ones } else { Unary::Zeros },
            bit_order: if lsb { BitOrder::Lsb } else { BitOrder::Msb },
            width: 64,
        };
        let values: Vec<u64> = qs.iter().zip(&rs).map(|(&q, &r)| {
            let q = q.min(u64::MAX >> k);
            let r = if k == 0 { 0 } else { r >> (64 - k) };
            (q << k) | r
        }).collect();
        let mut rng = SmallRng::seed_from_u64(seed);
        round_trip(&cfg, &values, &mut rng);
    }

    #[test]
    fn prop_any_bytes(
        k in 0u32..=20,
        width in 1u32..=64,
        ones in any::<bool>(),
        lsb in any::<bool>(),
        bytes in proptest::collection::vec(any::<u8>(), 0..64),
        seed in any::<u64>(),
    ) {
        let cfg = RiceConfig {
            k: k.min(width),
            unary: if ones { Unary::Ones } else { Unary::Zeros },
            bit_order: if lsb { BitOrder::Lsb } else { BitOrder::Msb },
            width,
        };
        let mut rng = SmallRng::seed_from_u64(seed);
        check_decode(&cfg, &bytes, &mut rng);
    }
}

#[test]
fn large_streams_in_chunks_of_any_size() {
    let mut rng = SmallRng::seed_from_u64(11);
    for k in [0, 3, 8, 16, 45] {
        for cfg in all_configs(k, 64) {
            let values = values_for(k, 20_000, &mut rng);
            let bytes = encode(&cfg, &values).unwrap();
            let (one_shot, d) = decode(&cfg, &bytes).unwrap();
            assert_eq!(one_shot, values);
            for chunk in [7, 8, 9, 61, 4096] {
                let mut s = StreamDecoder::new(cfg);
                let mut got = Vec::new();
                for c in bytes.chunks(chunk) {
                    s.feed(c, &mut got).unwrap();
                }
                assert_eq!(got, values, "{cfg:?} chunks of {chunk}");
                assert_eq!(s.finish().unwrap(), d);
            }
        }
    }
}
