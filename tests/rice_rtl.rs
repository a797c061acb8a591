//! The Golomb-Rice decoder RTL (`emit::verilog::rice`, SPEC §5, dissertation
//! ch. 5.4) in Verilator against the software decoder (`refmodel::rice`),
//! on streams written by an encoder of this file that shares no code with
//! the reference model: Verilator output == software decoder == the
//! encoder's input, integer by integer, with the same trailing-bits report
//! and quotient overflow.
//!
//! One Verilator build per design, many streams per build. `QRTL_SOAK=1`
//! adds more streams per design.

use qrtl_core::sim::{BuildOptions, Simulator, Stalls};
use qrtl_rice::emit::{emit_rice, nostall_latency, RiceArch, RiceHwConfig};
use qrtl_rice::engine::{simulate_rice_with, RiceSimRun};
use qrtl_rice::refmodel::{BitOrder, DecodeError, RiceConfig, StreamDecoder, Unary};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

// ---- an independent encoder (bit vector, from the SPEC's definition) ----

fn stream_bits(cfg: &RiceConfig, values: &[u64]) -> Vec<bool> {
    let cont = cfg.unary == Unary::Ones;
    let mut bits = Vec::new();
    for &v in values {
        bits.extend(std::iter::repeat_n(cont, (v >> cfg.k) as usize));
        bits.push(!cont);
        for j in 0..cfg.k {
            let i = match cfg.bit_order {
                BitOrder::Msb => cfg.k - 1 - j,
                BitOrder::Lsb => j,
            };
            bits.push(v >> i & 1 == 1);
        }
    }
    bits
}

/// Bits to bytes; a partial last byte is padded with continuation bits.
fn pack(cfg: &RiceConfig, bits: &[bool]) -> Vec<u8> {
    let cont = cfg.unary == Unary::Ones;
    bits.chunks(8)
        .map(|c| {
            (0..8).fold(0u8, |b, i| {
                if c.get(i).copied().unwrap_or(cont) {
                    b | match cfg.bit_order {
                        BitOrder::Msb => 0x80 >> i,
                        BitOrder::Lsb => 1 << i,
                    }
                } else {
                    b
                }
            })
        })
        .collect()
}

fn encode(cfg: &RiceConfig, values: &[u64]) -> Vec<u8> {
    pack(cfg, &stream_bits(cfg, values))
}

// ---- expected results -----------------------------------------------------

#[derive(Clone, Debug, PartialEq, Eq)]
enum End {
    /// Trailing bits: count, holds a delimiter.
    Tail(u64, bool),
    /// Overflow: code offset, quotient.
    Overflow(u64, u64),
}

/// The software decoder's answer.
fn software(cfg: &RiceConfig, bytes: &[u8]) -> (Vec<u64>, End) {
    let mut dec = StreamDecoder::new(*cfg);
    let mut values = Vec::new();
    match dec.feed(bytes, &mut values) {
        Err(DecodeError::QuotientOverflow {
            bit_offset,
            index,
            quotient,
            ..
        }) => {
            assert_eq!(index as usize, values.len());
            (values, End::Overflow(bit_offset, quotient))
        }
        Ok(()) => {
            let d = dec.finish().unwrap();
            assert_eq!(d.tail.bit_offset + d.tail.bits, bytes.len() as u64 * 8);
            (values, End::Tail(d.tail.bits, d.tail.has_delimiter))
        }
    }
}

/// A stream, and the values the encoder was given (`None` for streams not
/// written by the encoder: truncated, garbage, overflowing).
struct Case {
    what: String,
    bytes: Vec<u8>,
    values: Option<Vec<u64>>,
}

fn values_for(cfg: &RiceConfig, rng: &mut SmallRng, n: usize, max_q: u64) -> Vec<u64> {
    let max_q = max_q.min(cfg.max_quotient());
    let rem_mask = if cfg.k == 0 { 0 } else { (1u64 << cfg.k) - 1 };
    (0..n)
        .map(|_| {
            let q = match rng.gen_range(0..10) {
                0..=5 => rng.gen_range(0..3),
                6..=8 => rng.gen_range(0..20),
                _ => rng.gen_range(0..=max_q),
            }
            .min(max_q);
            (q << cfg.k) | (rng.gen::<u64>() & rem_mask)
        })
        .collect()
}

/// Streams for one code: random values, long quotients spanning many beats,
/// maximum quotients, k = 0 style runs of small values, truncations at
/// every kind of position, an overflowing quotient, random bytes.
fn cases(cfg: &RiceConfig, seed: u64, soak: bool) -> Vec<Case> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut push = |what: String, values: Vec<u64>| {
        let bytes = encode(cfg, &values);
        if !bytes.is_empty() {
            out.push(Case {
                what,
                bytes,
                values: Some(values),
            });
        }
    };
    let rounds = if soak { 40 } else { 6 };
    for r in 0..rounds {
        let n = rng.gen_range(1..120);
        push(format!("random {r}"), values_for(cfg, &mut rng, n, 300));
    }
    let maxq = cfg.max_quotient().min(3000);
    let rem_mask = if cfg.k == 0 { 0 } else { (1u64 << cfg.k) - 1 };
    push(
        "long quotients".into(),
        vec![
            maxq << cfg.k,
            1,
            (maxq / 2) << cfg.k | rem_mask,
            0,
            maxq << cfg.k,
        ],
    );
    push("zeros".into(), vec![0; 77]);
    push("all ones remainders".into(), vec![rem_mask; 33]);
    if cfg.max_quotient() <= 3000 {
        push(
            "maximum value".into(),
            vec![cfg.max_value(), 3, cfg.max_value()],
        );
    }
    // Truncations of a random stream: every cut point of its first bytes.
    let base = encode(cfg, &values_for(cfg, &mut rng, 40, 40));
    for cut in 1..base.len().min(if soak { 40 } else { 9 }) {
        out.push(Case {
            what: format!("truncated to {cut} bytes"),
            bytes: base[..cut].to_vec(),
            values: None,
        });
    }
    // An overflowing quotient after some values (when one fits the encoder).
    if cfg.max_quotient() < 5000 {
        let mut bits = stream_bits(cfg, &values_for(cfg, &mut rng, 9, 50));
        let cont = cfg.unary == Unary::Ones;
        bits.extend(std::iter::repeat_n(cont, cfg.max_quotient() as usize + 1));
        bits.push(!cont);
        bits.extend(std::iter::repeat_n(false, cfg.k as usize + 20));
        out.push(Case {
            what: "quotient overflow".into(),
            bytes: pack(cfg, &bits),
            values: None,
        });
    }
    // A continuation run longer than a byte at the end (not padding).
    let mut bits = stream_bits(cfg, &[1, 2, 3]);
    bits.extend(std::iter::repeat_n(cfg.unary == Unary::Ones, 21));
    out.push(Case {
        what: "long unterminated quotient".into(),
        bytes: pack(cfg, &bits),
        values: None,
    });
    for g in 0..3 {
        let len = rng.gen_range(1..64);
        out.push(Case {
            what: format!("random bytes {g}"),
            bytes: (0..len).map(|_| rng.gen()).collect(),
            values: None,
        });
    }
    out
}

fn hw(
    n: u32,
    k: u32,
    unary: Unary,
    bit_order: BitOrder,
    value_bits: u32,
    arch: RiceArch,
) -> RiceHwConfig {
    RiceHwConfig {
        code: RiceConfig {
            k,
            unary,
            bit_order,
            width: value_bits,
        },
        chunk_bits: n,
        arch,
    }
}

fn run(cfg: &RiceHwConfig, cases: &[Case], sim: Simulator, stalls: &Stalls) -> RiceSimRun {
    let rtl = emit_rice(cfg).unwrap();
    let streams: Vec<Vec<u8>> = cases.iter().map(|c| c.bytes.clone()).collect();
    // Many designs, short streams: unoptimized C++ builds faster.
    let options = BuildOptions {
        unoptimized_cxx: true,
        ..BuildOptions::default()
    };
    simulate_rice_with(&rtl, cfg, &streams, sim, stalls, None, &options)
        .unwrap_or_else(|e| panic!("{cfg:?}: {e}"))
}

/// Hardware == software == the encoder's input, stream by stream.
fn check(cfg: &RiceHwConfig, cases: &[Case], r: &RiceSimRun) {
    assert_eq!(r.streams.len(), cases.len());
    for (c, h) in cases.iter().zip(&r.streams) {
        let what = format!("{cfg:?}: {} ({} bytes)", c.what, c.bytes.len());
        let (values, end) = software(&cfg.code, &c.bytes);
        if let Some(v) = &c.values {
            assert_eq!(&values, v, "{what}: software vs encoder input");
        }
        assert_eq!(h.values, values, "{what}: hardware vs software");
        let st = h.status;
        let hw_end = if st.overflow {
            End::Overflow(st.overflow_at, st.overflow_quotient)
        } else {
            End::Tail(st.tail_bits, st.tail_has_delimiter)
        };
        assert_eq!(hw_end, end, "{what}: status");
        if c.values.is_some() {
            // The encoder's padding: fewer than 8 continuation bits.
            assert!(matches!(end, End::Tail(b, false) if b < 8), "{what}");
        }
    }
}

/// No stall: with the output always ready, the input is never held, every
/// stream takes ceil(bits/N) beats in and out, and its first output beat
/// comes a constant `nostall_latency(cfg)` cycles after its first input beat.
fn check_no_stall(cfg: &RiceHwConfig, cases: &[Case], r: &RiceSimRun) {
    assert_eq!(r.run.input_stall_cycles, 0, "{cfg:?}: s_axis_tready fell");
    let n_bytes = (cfg.chunk_bits / 8) as usize;
    let latency = u64::from(nostall_latency(cfg));
    let mut beats = 0u64;
    for (c, h) in cases.iter().zip(&r.streams) {
        let want = c.bytes.len().div_ceil(n_bytes);
        assert_eq!(h.beats, want, "{cfg:?}: {}: output beats", c.what);
        assert_eq!(h.latency, latency, "{cfg:?}: {}", c.what);
        beats += want as u64;
    }
    // Back to back: every stream costs exactly ceil(bits/N) cycles.
    assert_eq!(r.run.total_cycles, beats + latency, "{cfg:?}");
}

fn soak() -> bool {
    std::env::var_os("QRTL_SOAK").is_some()
}

const NS: [u32; 5] = [8, 16, 32, 64, 128];
const KS: [u32; 8] = [0, 1, 2, 3, 5, 8, 13, 16];
const CODES: [(Unary, BitOrder); 4] = [
    (Unary::Zeros, BitOrder::Msb),
    (Unary::Ones, BitOrder::Lsb),
    (Unary::Ones, BitOrder::Msb),
    (Unary::Zeros, BitOrder::Lsb),
];

/// Value bits of the grid's designs: room for quotients of a few thousand
/// (long runs over many beats, reachable maximum and overflow), small
/// enough to keep the lanes narrow.
fn grid_value_bits(k: u32) -> u32 {
    k + 12
}

/// Run `f` over `items` on two threads (Verilator builds dominate; two
/// at a time keep both cores busy).
fn par_each<T: Sync>(items: &[T], f: impl Fn(&T) + Sync) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                match items.get(i) {
                    Some(item) => f(item),
                    None => break,
                }
            });
        }
    });
}

#[test]
fn nostall_grid_matches_the_software_decoder_without_stalls() {
    // Every N with every k; the unary polarity and bit order rotate so that
    // every N and every k meets all four codes.
    let mut grid = Vec::new();
    for (ni, &n) in NS.iter().enumerate() {
        for (ki, &k) in KS.iter().enumerate() {
            let (unary, order) = CODES[(ni + ki) % 4];
            let cfg = hw(n, k, unary, order, grid_value_bits(k), RiceArch::NoStall);
            grid.push((cfg, 1000 + (ni * 10 + ki) as u64));
        }
    }
    par_each(&grid, |(cfg, seed)| {
        let cs = cases(&cfg.code, *seed, soak());
        let r = run(cfg, &cs, Simulator::Verilator, &Stalls::NONE);
        check(cfg, &cs, &r);
        check_no_stall(cfg, &cs, &r);
    });
}

#[test]
fn nostall_input_gaps_never_stall_and_output_backpressure_changes_nothing() {
    let cfg = hw(32, 3, Unary::Ones, BitOrder::Msb, 15, RiceArch::NoStall);
    let cs = cases(&cfg.code, 77, soak());
    let gaps = Stalls {
        seed: 5,
        in_gap_percent: 40,
        out_stall_percent: 0,
    };
    let r = run(&cfg, &cs, Simulator::Verilator, &gaps);
    check(&cfg, &cs, &r);
    // Output always ready: s_axis_tready never fell, whatever the gaps.
    assert_eq!(r.run.input_stall_cycles, 0);
    for seed in [6, 7] {
        let stalls = Stalls {
            seed,
            in_gap_percent: 25,
            out_stall_percent: 60,
        };
        let r = run(&cfg, &cs, Simulator::Verilator, &stalls);
        check(&cfg, &cs, &r);
        assert!(r.run.output_stall_cycles > 0 && r.run.input_stall_cycles > 0);
    }
}

#[test]
fn single_and_serial_match_under_random_backpressure() {
    let designs = [
        hw(8, 0, Unary::Zeros, BitOrder::Msb, 12, RiceArch::Single),
        hw(16, 5, Unary::Ones, BitOrder::Msb, 17, RiceArch::Single),
        hw(32, 3, Unary::Ones, BitOrder::Lsb, 15, RiceArch::Single),
        hw(64, 16, Unary::Zeros, BitOrder::Lsb, 28, RiceArch::Single),
        hw(128, 2, Unary::Zeros, BitOrder::Msb, 14, RiceArch::Single),
        hw(8, 0, Unary::Ones, BitOrder::Lsb, 12, RiceArch::Serial),
        hw(32, 3, Unary::Zeros, BitOrder::Msb, 15, RiceArch::Serial),
        hw(16, 13, Unary::Ones, BitOrder::Msb, 25, RiceArch::Serial),
    ];
    par_each(&designs, |cfg| {
        let cs = cases(
            &cfg.code,
            500 + u64::from(cfg.chunk_bits + cfg.code.k),
            soak(),
        );
        let none = run(cfg, &cs, Simulator::Verilator, &Stalls::NONE);
        check(cfg, &cs, &none);
        for (seed, out_stall) in [(1, 50), (2, 85)] {
            let stalls = Stalls {
                seed,
                in_gap_percent: 20,
                out_stall_percent: out_stall,
            };
            let r = run(cfg, &cs, Simulator::Verilator, &stalls);
            check(cfg, &cs, &r);
            assert!(r.run.output_stall_cycles > 0, "{cfg:?}");
        }
        // One integer per beat: the decoder holds its input while it works
        // through a chunk (single: the FIFO fills; serial: one bit per clock).
        assert!(none.run.input_stall_cycles > 0, "{cfg:?}");
        let ints: usize = none.streams.iter().map(|s| s.values.len()).sum();
        let beats: usize = none.streams.iter().map(|s| s.beats).sum();
        assert_eq!(
            beats,
            ints + cs.len(),
            "{cfg:?}: an integer per beat, a status beat"
        );
    });
}

#[test]
fn icarus_agrees_with_verilator_cycle_for_cycle() {
    let designs = [
        hw(16, 2, Unary::Zeros, BitOrder::Lsb, 14, RiceArch::NoStall),
        hw(8, 1, Unary::Ones, BitOrder::Msb, 13, RiceArch::Single),
        hw(8, 3, Unary::Zeros, BitOrder::Msb, 15, RiceArch::Serial),
    ];
    let stalls = Stalls {
        seed: 0xfeed,
        in_gap_percent: 15,
        out_stall_percent: 30,
    };
    for cfg in &designs {
        let cs: Vec<Case> = cases(&cfg.code, 9, false).into_iter().take(8).collect();
        let v = run(cfg, &cs, Simulator::Verilator, &stalls);
        let i = run(cfg, &cs, Simulator::Icarus, &stalls);
        check(cfg, &cs, &i);
        assert_eq!(v.streams, i.streams, "{cfg:?}");
        assert_eq!(v.run, i.run, "{cfg:?}");
    }
}

#[test]
fn generated_rtl_is_lint_clean() {
    // verilator --lint-only -Wall, no waivers: every arch, the extremes of
    // N, k and the value width.
    let mut designs = Vec::new();
    for arch in RiceArch::ALL {
        for (n, k, v) in [
            (8, 0, 1),
            (8, 63, 64),
            (128, 0, 64),
            (128, 63, 63),
            (24, 16, 16),
            (40, 7, 40),
            (72, 2, 41),
        ] {
            designs.push(hw(n, k, Unary::Ones, BitOrder::Lsb, v, arch));
        }
    }
    let dir = std::env::temp_dir().join(format!("qrtl-rice-lint-{}", std::process::id()));
    for (i, cfg) in designs.iter().enumerate() {
        let rtl = emit_rice(cfg).unwrap();
        let d = dir.join(i.to_string());
        std::fs::create_dir_all(&d).unwrap();
        let mut files = Vec::new();
        for (name, text) in &rtl.files {
            std::fs::write(d.join(name), text).unwrap();
            files.push(d.join(name));
        }
        let out = std::process::Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", &rtl.top])
            .args(&files)
            .output()
            .expect("verilator is installed (make deps)");
        assert!(
            out.status.success(),
            "{cfg:?}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Golden RTL: the generated top for small designs of every arch, in
/// `tests/emit/rice/` (regenerate with `QRTL_BLESS=1 cargo test --release
/// --test rice_rtl golden`). The other modules are `rtl-templates/rice/rice_*.v`
/// verbatim.
#[test]
fn golden_tops() {
    let bless = std::env::var_os("QRTL_BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emit/rice");
    let mut failures = Vec::new();
    for (name, cfg) in [
        (
            "nostall_n8_k2",
            hw(8, 2, Unary::Zeros, BitOrder::Msb, 16, RiceArch::NoStall),
        ),
        (
            "single_n16_k1_ones_lsb",
            hw(16, 1, Unary::Ones, BitOrder::Lsb, 12, RiceArch::Single),
        ),
        (
            "serial_n8_k3",
            hw(8, 3, Unary::Zeros, BitOrder::Msb, 20, RiceArch::Serial),
        ),
    ] {
        let rtl = emit_rice(&cfg).unwrap();
        for (file, text) in &rtl.files {
            if file != "qrtl_rice_top.v" {
                let template = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("rtl-templates/rice")
                    .join(file);
                assert_eq!(&std::fs::read_to_string(template).unwrap(), text, "{file}");
                continue;
            }
            let path = dir.join(format!("{name}.v"));
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, text).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                failures.push(path.display().to_string());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "generated RTL differs from {failures:?}; if the new RTL is right: \
         QRTL_BLESS=1 cargo test --release --test rice_rtl golden"
    );
}
