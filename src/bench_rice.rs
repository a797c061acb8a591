//! `qrtl-bench-rice`: the Golomb-Rice software decoder against the
//! `dsi-bitstream` crate's `read_rice`, side by side in one run.
//!
//! Prints a markdown report on stdout (`make bench` stores it in
//! `bench/REPORT-rice.md`). Workload: 100M integers (1M with `--quick`) per
//! k in {3, 8}, quotients geometric with p = 1/2 (mean 1, the regime k is
//! chosen for) and uniform remainders, encoded by our encoder.
//!
//! Like is compared with like: `dsi-bitstream` writes the unary code as
//! zeros then a one, so both decoders read `--unary zeros` streams; its
//! big-endian reader (`BE`) takes bits MSB first from each byte, ours with
//! `--bit-order msb`, its little-endian reader (`LE`) matches `--bit-order
//! lsb`. It reads 32-bit words into a 64-bit buffer (its README's
//! recommendation) from a zero-extended memory reader (`new_inf`, its
//! fastest); both decoders append every value to a preallocated vector, and
//! both outputs are checked against the input.
//!
//! ```text
//! qrtl-bench-rice [--quick]
//! ```
//!
//! Throughput is Gbit/s of compressed input, best of 3 runs. Figures are
//! reported, never asserted.

use dsi_bitstream::prelude::*;
use qrtl_compiler::refmodel::rice::{decode_into, encode, BitOrder, RiceConfig, Unary};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;

const RUNS: usize = 3;

fn values(n: usize, k: u32, seed: u64) -> Vec<u64> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            // Geometric quotient: trailing zeros of a random word.
            let q = u64::from(rng.gen::<u64>().trailing_zeros().min(40));
            let r = if k == 0 {
                0
            } else {
                rng.gen::<u64>() >> (64 - k)
            };
            (q << k) | r
        })
        .collect()
}

/// Best time of `RUNS` runs of `f`, in seconds.
fn best(mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut n = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        n = std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, n)
}

fn words_u32(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_ne_bytes(b)
        })
        .collect()
}

fn dsi_decode<E: Endianness>(words: &[u32], n: usize, k: usize, out: &mut Vec<u64>) -> usize
where
    for<'a> BufBitReader<E, MemWordReader<u32, &'a [u32], true>>: RiceRead<E>,
{
    out.clear();
    let mut r = BufBitReader::<E, _>::new(MemWordReader::new_inf(words));
    for _ in 0..n {
        match r.read_rice(k) {
            Ok(v) => out.push(v),
            Err(_) => break,
        }
    }
    out.len()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    if let Some(bad) = std::env::args().skip(1).find(|a| a != "--quick") {
        eprintln!("error: unknown argument {bad:?}\nusage: qrtl-bench-rice [--quick]");
        std::process::exit(2);
    }
    let n: usize = if quick { 1_000_000 } else { 100_000_000 };
    println!("# Golomb-Rice software decoder vs dsi-bitstream\n");
    println!(
        "{} integers per k; quotients geometric (p = 1/2), uniform remainders; \
         `--unary zeros` (dsi-bitstream's unary code). Gbit/s of compressed \
         input, best of {RUNS} runs; both decoders fill a preallocated `Vec<u64>`; \
         dsi-bitstream 0.10 reads `u32` words with `MemWordReader::new_inf`. \
         Machine: {} hardware threads shared with other work.\n",
        n,
        std::thread::available_parallelism().map_or(0, |p| p.get())
    );
    println!("| k | bit order (dsi) | stream MB | bits/int | qrtl Gbit/s | dsi-bitstream Gbit/s | qrtl / dsi |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for k in [3u32, 8] {
        let input = values(n, k, 0x5eed + u64::from(k));
        for order in [BitOrder::Msb, BitOrder::Lsb] {
            let cfg = RiceConfig {
                k,
                unary: Unary::Zeros,
                bit_order: order,
                width: 64,
            };
            let bytes = encode(&cfg, &input).expect("bench values encode");
            let bits = bytes.len() as f64 * 8.0;
            let words = words_u32(&bytes);
            let mut out = Vec::with_capacity(n);

            let (ours, got) = best(|| {
                out.clear();
                match decode_into(&cfg, &bytes, &mut out) {
                    Ok(d) => d.values as usize,
                    Err(e) => panic!("bench stream: {e}"),
                }
            });
            assert_eq!(got, n);
            assert!(out == input, "qrtl decoder output differs from the input");

            let (theirs, got) = best(|| match order {
                BitOrder::Msb => dsi_decode::<BE>(&words, n, k as usize, &mut out),
                BitOrder::Lsb => dsi_decode::<LE>(&words, n, k as usize, &mut out),
            });
            assert_eq!(got, n);
            assert!(out == input, "dsi-bitstream output differs from the input");

            let gbps = |s: f64| bits / s / 1e9;
            println!(
                "| {k} | {} ({}) | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} |",
                match order {
                    BitOrder::Msb => "msb",
                    BitOrder::Lsb => "lsb",
                },
                match order {
                    BitOrder::Msb => "BE",
                    BitOrder::Lsb => "LE",
                },
                bytes.len() as f64 / 1e6,
                bits / n as f64,
                gbps(ours),
                gbps(theirs),
                theirs / ours
            );
        }
    }
}
