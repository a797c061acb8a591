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
//! `--quick`: 1M integers, and one hardware design (N = 8, k = 3) per arch.
//!
//! Throughput is Gbit/s of compressed input, best of 3 runs. Figures are
//! reported, never asserted.
//!
//! Then the hardware decoders (`qrtl rice compile`): Verilator cycles per
//! stream against ceil(bits/N) for each arch, and Yosys 0.23 LUT/FF counts
//! of the no-stall decoder (`synth_xilinx -family xc7`, `synth_ecp5`) for
//! N in {8, 16, 32, 64} at k = 3.

use dsi_bitstream::prelude::*;
use qrtl_core::sim::{Simulator, Stalls};
use qrtl_rice::emit::{emit_rice, nostall_latency, RiceArch, RiceHwConfig};
use qrtl_rice::engine::simulate_rice;
use qrtl_rice::refmodel::{decode_into, encode, BitOrder, RiceConfig, Unary};
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
    rtl_section(quick);
}

/// Verilator cycles and Yosys area of the hardware decoders.
fn rtl_section(quick: bool) {
    let ints = if quick { 2_000 } else { 20_000 };
    // The no-stall pipeline's depth beyond its ceil(N/(k+1)) insertion
    // blocks, from the emitter (the same for every N and k).
    let probe = RiceHwConfig {
        code: RiceConfig::default(),
        chunk_bits: 32,
        arch: RiceArch::NoStall,
    };
    let extra = nostall_latency(&probe) - probe.builders();
    println!("\n# Golomb-Rice hardware decoders\n");
    println!(
        "One stream of {ints} integers (same distribution) per design, `--value-bits 32`, \
         simulated alone in Verilator with the output always ready. cycles: from the \
         stream's first beat in to its last beat out. `nostall` takes N bits every clock: \
         cycles = ceil(bits/N) + ceil(N/(k+1)) + {extra} (its pipeline depth); `single` sends one integer per clock, plus a cycle loading and one closing each chunk; `serial` reads \
         one bit per clock.\n"
    );
    println!("| arch | N | k | bits | ceil(bits/N) | cycles | cycles - ceil(bits/N) | bits/cycle | build s |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for arch in RiceArch::ALL {
        let designs: &[(u32, u32)] = if quick {
            &[(8, 3)]
        } else {
            &[(8, 3), (32, 3), (64, 3), (128, 3), (32, 8), (64, 0)]
        };
        for &(n, k) in designs {
            if arch == RiceArch::Serial && n > 32 {
                continue; // one bit per clock whatever N
            }
            let cfg = RiceHwConfig {
                code: RiceConfig {
                    k,
                    width: 32,
                    ..RiceConfig::default()
                },
                chunk_bits: n,
                arch,
            };
            let input = values(ints, k, 0xbeef + u64::from(k));
            let bytes = encode(&cfg.code, &input).expect("bench values encode");
            let rtl = emit_rice(&cfg).expect("bench config is valid");
            let t0 = Instant::now();
            let r = simulate_rice(
                &rtl,
                &cfg,
                std::slice::from_ref(&bytes),
                Simulator::Verilator,
                &Stalls::NONE,
                None,
            )
            .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            let elapsed = t0.elapsed().as_secs_f64();
            assert!(
                r.streams[0].values == input,
                "{cfg:?}: hardware output differs"
            );
            let bits = bytes.len() as u64 * 8;
            let beats = bits.div_ceil(u64::from(n));
            let cycles = r.run.total_cycles;
            println!(
                "| {} | {n} | {k} | {bits} | {beats} | {cycles} | {} | {:.2} | {:.0} |",
                arch.as_str(),
                cycles as i64 - beats as i64,
                bits as f64 / cycles as f64,
                r.build.build_time.as_secs_f64().min(elapsed)
            );
        }
    }
    println!(
        "\n## Area: no-stall decoder, k = 3, 32-bit values (Yosys 0.23)\n\n\
         `synth_xilinx -family xc7 -flatten` (LUT1-6, FDRE/FDSE/FDCE/FDPE, CARRY4) and `synth_ecp5` \
         (LUT4, TRELLIS_FF, CCU2C) of the generated RTL, cell counts from `stat`.\n"
    );
    println!("| arch | N | builders | xc7 LUT | xc7 FF | xc7 CARRY4 | ecp5 LUT4 | ecp5 FF | ecp5 CCU2C | synth s |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let sizes: &[u32] = if quick { &[8] } else { &[8, 16, 32, 64] };
    for &n in sizes {
        let cfg = RiceHwConfig {
            code: RiceConfig {
                k: 3,
                width: 32,
                ..RiceConfig::default()
            },
            chunk_bits: n,
            arch: RiceArch::NoStall,
        };
        let rtl = emit_rice(&cfg).expect("bench config is valid");
        let t0 = Instant::now();
        let xc7 = yosys_cells(&rtl.files, &rtl.top, "synth_xilinx -family xc7 -flatten");
        let ecp5 = yosys_cells(&rtl.files, &rtl.top, "synth_ecp5");
        let (Some(xc7), Some(ecp5)) = (xc7, ecp5) else {
            println!(
                "| nostall | {n} | {} | yosys failed | | | | | | |",
                cfg.builders()
            );
            continue;
        };
        let sum = |m: &std::collections::BTreeMap<String, u64>, names: &[&str]| -> u64 {
            names.iter().map(|c| m.get(*c).copied().unwrap_or(0)).sum()
        };
        println!(
            "| nostall | {n} | {} | {} | {} | {} | {} | {} | {} | {:.0} |",
            cfg.builders(),
            sum(&xc7, &["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"]),
            sum(&xc7, &["FDRE", "FDSE", "FDCE", "FDPE"]),
            sum(&xc7, &["CARRY4"]),
            sum(&ecp5, &["LUT4"]),
            sum(&ecp5, &["TRELLIS_FF"]),
            sum(&ecp5, &["CCU2C"]),
            t0.elapsed().as_secs_f64()
        );
    }
}

/// Cell counts of `yosys -p "read_verilog ...; <synth> -top TOP; stat"`,
/// or `None` when Yosys is missing or fails.
fn yosys_cells(
    files: &[(String, String)],
    top: &str,
    synth: &str,
) -> Option<std::collections::BTreeMap<String, u64>> {
    let dir = std::env::temp_dir().join(format!("qrtl-bench-rice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let mut read = String::from("read_verilog");
    for (name, text) in files {
        std::fs::write(dir.join(name), text).ok()?;
        read.push(' ');
        read.push_str(name);
    }
    let out = std::process::Command::new("yosys")
        .current_dir(&dir)
        .args([
            "-q",
            "-p",
            &format!("{read}; {synth} -top {top}; tee -o stat.txt stat"),
        ])
        .output()
        .ok()?;
    let stat = std::fs::read_to_string(dir.join("stat.txt")).ok();
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        eprintln!("yosys {synth}: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let mut cells = std::collections::BTreeMap::new();
    for line in stat?.lines() {
        let mut w = line.split_whitespace();
        if let (Some(name), Some(count), None) = (w.next(), w.next(), w.next()) {
            if let Ok(c) = count.parse::<u64>() {
                if name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                {
                    *cells.entry(name.to_string()).or_insert(0) += c;
                }
            }
        }
    }
    Some(cells)
}
