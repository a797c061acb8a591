//! The simulation harness (qrtl_core::sim) on small AXI4-Stream test
//! designs in tests/sim/fixtures/. Verilator and Icarus Verilog are required:
//! these tests fail (never skip) when either is missing.

use std::path::{Path, PathBuf};

use qrtl_core::sim::{
    build, build_with, BuildOptions, Built, CfgStream, DriverSpec, ResetPulse, SimError, SimRun,
    Simulator, Stalls, Step,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const BOTH: [Simulator; 2] = [Simulator::Verilator, Simulator::Icarus];

fn fixture(name: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sim/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    vec![(name.to_string(), text)]
}

fn build_fixture(top: &str, sim: Simulator) -> Built {
    build(&DriverSpec::axis(top), &fixture(&format!("{top}.v")), sim)
        .unwrap_or_else(|e| panic!("building {top} for {sim:?}: {e}"))
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-sim-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// axis_sum's answer for one packet: byte count, then rotl-xor checksum.
fn expected_words(packet: &[u8]) -> Vec<u32> {
    let sum = packet
        .iter()
        .fold(0u32, |c, &b| c.rotate_left(1) ^ u32::from(b));
    vec![packet.len() as u32, sum]
}

fn random_packets(seed: u64, n: usize, lengths: std::ops::RangeInclusive<usize>) -> Vec<Vec<u8>> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let len = rng.gen_range(lengths.clone());
            (0..len).map(|_| rng.gen()).collect()
        })
        .collect()
}

fn check_words(run: &SimRun, packets: &[Vec<u8>], what: &str) {
    assert_eq!(run.packets.len(), packets.len(), "{what}");
    for (i, (r, p)) in run.packets.iter().zip(packets).enumerate() {
        assert_eq!(
            r.words,
            expected_words(p),
            "{what}: packet {i} ({} bytes)",
            p.len()
        );
        // The result cannot be valid before the last byte went in.
        assert!(
            r.cycles >= p.len() as u64,
            "{what}: packet {i}: {} cycles",
            r.cycles
        );
    }
}

#[test]
fn random_packets_give_the_same_words_with_and_without_stalls() {
    let packets = random_packets(7, 300, 1..=24);
    let stall_sets = [
        Stalls::NONE,
        Stalls {
            seed: 11,
            in_gap_percent: 30,
            out_stall_percent: 0,
        },
        Stalls {
            seed: 12,
            in_gap_percent: 0,
            out_stall_percent: 80,
        },
        Stalls {
            seed: 13,
            in_gap_percent: 50,
            out_stall_percent: 50,
        },
    ];
    for sim in BOTH {
        let built = build_fixture("axis_sum", sim);
        eprintln!(
            "{sim:?}: build {:.2?} (cached: {}), {}",
            built.build_time, built.cached, built.tool_version
        );
        let mut runs = Vec::new();
        for stalls in &stall_sets {
            let run = built.run(&packets, stalls, None).unwrap();
            check_words(&run, &packets, &format!("{sim:?} {stalls:?}"));
            runs.push(run);
        }
        for (run, stalls) in runs.iter().zip(&stall_sets) {
            eprintln!(
                "{sim:?} {stalls:?}: {} cycles, {} input stalls, {} output stalls",
                run.total_cycles, run.input_stall_cycles, run.output_stall_cycles
            );
        }
        let none = &runs[0];
        assert_eq!((none.input_stall_cycles, none.output_stall_cycles), (0, 0));
        // Input gaps alone never stall the input: the FIFO drains at once.
        assert!(runs[1].output_stall_cycles == 0 && runs[1].total_cycles > none.total_cycles);
        // Output backpressure fills the 4-entry FIFO and reaches the input.
        assert!(runs[2].output_stall_cycles > 0 && runs[2].input_stall_cycles > 0);
        assert!(runs[3].output_stall_cycles > 0);
    }
}

#[test]
fn latency_and_totals_are_exact_without_stalls() {
    // With packets of two bytes or more the FIFO is empty whenever a result
    // arrives: each result is valid the cycle after its last byte.
    let packets = random_packets(8, 200, 2..=40);
    let bytes: u64 = packets.iter().map(|p| p.len() as u64).sum();
    for sim in BOTH {
        let run = build_fixture("axis_sum", sim)
            .run(&packets, &Stalls::NONE, None)
            .unwrap();
        check_words(&run, &packets, &format!("{sim:?}"));
        for (i, (r, p)) in run.packets.iter().zip(&packets).enumerate() {
            assert_eq!(r.cycles, p.len() as u64, "{sim:?}: packet {i}");
        }
        // Bytes back to back from cycle 0, then the last result's two words.
        assert_eq!(run.total_cycles, bytes + 2, "{sim:?}");
        assert_eq!((run.input_stall_cycles, run.output_stall_cycles), (0, 0));
    }
}

#[test]
fn verilator_and_icarus_agree_cycle_for_cycle() {
    // Same xorshift stall sequence in both simulators: identical runs.
    let packets = random_packets(9, 150, 1..=30);
    let stalls = Stalls {
        seed: 0xdead_beef,
        in_gap_percent: 25,
        out_stall_percent: 40,
    };
    let v = build_fixture("axis_sum", Simulator::Verilator)
        .run(&packets, &stalls, None)
        .unwrap();
    let i = build_fixture("axis_sum", Simulator::Icarus)
        .run(&packets, &stalls, None)
        .unwrap();
    check_words(&v, &packets, "verilator");
    assert_eq!(v, i);
    // Another seed gives another stall pattern, and the same words.
    let other = Stalls { seed: 5, ..stalls };
    let v2 = build_fixture("axis_sum", Simulator::Verilator)
        .run(&packets, &other, None)
        .unwrap();
    assert_ne!(v2.total_cycles, v.total_cycles);
    check_words(&v2, &packets, "verilator, seed 5");
}

#[test]
fn builds_are_cached() {
    let root = scratch("cache");
    let options = BuildOptions {
        cache_dir: Some(root.clone()),
        jobs: 0,
        ..BuildOptions::default()
    };
    let spec = DriverSpec::axis("axis_sum");
    let rtl = fixture("axis_sum.v");
    for sim in BOTH {
        let first = build_with(&spec, &rtl, sim, &options).unwrap();
        assert!(!first.cached, "{sim:?}: fresh cache");
        let second = build_with(&spec, &rtl, sim, &options).unwrap();
        assert!(second.cached, "{sim:?}: second build reuses the entry");
        assert_eq!(first.dir, second.dir);
        assert!(second.dir.starts_with(&root));
        assert!(second.executable().is_file());
        eprintln!(
            "{sim:?}: first build {:.2?}, cached lookup {:.2?}",
            first.build_time, second.build_time
        );
        if sim == Simulator::Verilator {
            // Seconds of C++ compilation against a directory lookup. (Icarus
            // compiles in milliseconds: too close to the lookup to compare.)
            assert!(second.build_time < first.build_time);
        }
        // The cached build runs.
        let run = second.run(&[vec![1, 2, 3]], &Stalls::NONE, None).unwrap();
        assert_eq!(run.packets[0].words, expected_words(&[1, 2, 3]));
    }
    // Changed RTL: a new entry.
    let mut changed = rtl.clone();
    changed[0].1.push_str("// changed\n");
    let third = build_with(&spec, &changed, Simulator::Icarus, &options).unwrap();
    assert!(!third.cached);
    // Entries: two simulators + the changed design; temporary dirs are gone.
    let entries: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(entries.len(), 3, "{entries:?}");
    assert_eq!(std::fs::read_dir(root.join(".tmp")).unwrap().count(), 0);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_silent_design_times_out() {
    let mut spec = DriverSpec::axis("axis_stuck");
    spec.timeout_cycles = 2000;
    for sim in BOTH {
        let built = build(&spec, &fixture("axis_stuck.v"), sim).unwrap();
        let t = std::time::Instant::now();
        let err = built
            .run(&[vec![1, 2, 3], vec![4]], &Stalls::NONE, None)
            .unwrap_err();
        assert!(matches!(err, SimError::Timeout { .. }), "{sim:?}: {err}");
        let msg = err.to_string();
        assert!(
            msg.contains("2000 cycles") && msg.contains("timed out"),
            "{msg}"
        );
        assert!(t.elapsed().as_secs() < 30);
    }
}

#[test]
fn axi_violations_are_reported() {
    let packets = random_packets(10, 40, 1..=10);
    for sim in BOTH {
        let built = build_fixture("axis_pulse", sim);
        // Without backpressure the one-cycle pulse is legal.
        let run = built.run(&packets, &Stalls::NONE, None).unwrap();
        for (r, p) in run.packets.iter().zip(&packets) {
            assert_eq!(r.words, vec![p.len() as u32]);
        }
        let stalls = Stalls {
            seed: 3,
            in_gap_percent: 0,
            out_stall_percent: 50,
        };
        let err = built.run(&packets, &stalls, None).unwrap_err();
        assert!(matches!(err, SimError::Protocol { .. }), "{sim:?}: {err}");
        assert!(err.to_string().contains("changed while"), "{err}");
    }
}

/// A reset pulse in a run: the driver drops both streams, holds the reset,
/// then sends again every packet whose result is incomplete, so the words
/// are those of a run without the pulse (axis_sum resets in one clock);
/// the run is longer by the pulse and the packets sent again.
#[test]
fn reset_pulses_resend_the_unfinished_packets() {
    let packets = random_packets(9, 40, 1..=12);
    let built = build_fixture("axis_sum", Simulator::Verilator);
    let stalls = Stalls {
        seed: 21,
        in_gap_percent: 20,
        out_stall_percent: 20,
    };
    let plain = built.run(&packets, &stalls, None).unwrap();
    for at in [0, 1, 17, plain.total_cycles / 2, plain.total_cycles - 2] {
        for cycles in [1, 4] {
            let pulses = [
                ResetPulse { at, cycles },
                ResetPulse {
                    at: at + 40,
                    cycles,
                },
            ];
            let run = built
                .run_with_resets(&packets, &stalls, &pulses, None)
                .unwrap_or_else(|e| panic!("{pulses:?}: {e}"));
            check_words(&run, &packets, &format!("{pulses:?}"));
            assert!(
                run.total_cycles > plain.total_cycles,
                "{pulses:?}: {} cycles, {} without the pulses",
                run.total_cycles,
                plain.total_cycles
            );
        }
    }
}

#[test]
fn bad_reset_pulses_are_rejected() {
    let packets = random_packets(9, 4, 1..=4);
    let icarus = build_fixture("axis_sum", Simulator::Icarus);
    let pulse = [ResetPulse { at: 3, cycles: 2 }];
    let err = icarus
        .run_with_resets(&packets, &Stalls::NONE, &pulse, None)
        .unwrap_err();
    assert!(err.to_string().contains("Verilator"), "{err}");
    let built = build_fixture("axis_sum", Simulator::Verilator);
    for pulses in [
        vec![ResetPulse { at: 3, cycles: 0 }],
        vec![
            ResetPulse { at: 9, cycles: 1 },
            ResetPulse { at: 9, cycles: 1 },
        ],
    ] {
        let err = built
            .run_with_resets(&packets, &Stalls::NONE, &pulses, None)
            .unwrap_err();
        assert!(
            matches!(err, SimError::InvalidSpec { .. }),
            "{pulses:?}: {err}"
        );
    }
}

#[test]
fn empty_packets_are_rejected() {
    let built = build_fixture("axis_sum", Simulator::Icarus);
    let err = built
        .run(&[vec![1], vec![], vec![2]], &Stalls::NONE, None)
        .unwrap_err();
    assert!(matches!(err, SimError::EmptyPacket { index: 1 }), "{err}");
    assert!(err.to_string().contains("zero-length"));
    // No packets at all is a valid (empty) run.
    let run = built.run(&[], &Stalls::NONE, None).unwrap();
    assert!(run.packets.is_empty() && run.total_cycles == 0);
}

#[test]
fn lint_warnings_fail_the_verilator_build() {
    let rtl = vec![(
        "axis_sum.v".to_string(),
        fixture("axis_sum.v")[0]
            .1
            .replace("    reg phase;", "    reg phase;\n    wire dangling;"),
    )];
    let err = build(&DriverSpec::axis("axis_sum"), &rtl, Simulator::Verilator).unwrap_err();
    match &err {
        SimError::Build {
            tool,
            warnings,
            stderr,
            ..
        } => {
            assert_eq!(tool, "verilator");
            assert!(warnings.iter().any(|w| w.contains("dangling")), "{stderr}");
        }
        other => panic!("expected a build error, got {other}"),
    }
    assert!(err.to_string().contains("lint clean"), "{err}");
}

#[test]
fn icarus_build_errors_carry_the_compiler_output() {
    let rtl = vec![(
        "axis_sum.v".to_string(),
        "module axis_sum(; endmodule\n".to_string(),
    )];
    let err = build(&DriverSpec::axis("axis_sum"), &rtl, Simulator::Icarus).unwrap_err();
    match &err {
        SimError::Build { tool, stderr, .. } => {
            assert_eq!(tool, "iverilog");
            assert!(stderr.contains("axis_sum.v:1"), "{stderr}");
        }
        other => panic!("expected a build error, got {other}"),
    }
}

#[test]
fn traces_are_written() {
    let dir = scratch("trace");
    let packets = vec![vec![1, 2, 3], vec![4, 5]];
    let fst = dir.join("run.fst");
    let built = build_fixture("axis_sum", Simulator::Verilator);
    let run = built.run(&packets, &Stalls::NONE, Some(&fst)).unwrap();
    check_words(&run, &packets, "verilator traced");
    let bytes = std::fs::read(&fst).unwrap();
    assert!(bytes.len() > 100, "FST file of {} bytes", bytes.len());
    // An untraced run of the same build writes nothing.
    let none = dir.join("none.fst");
    built.run(&packets, &Stalls::NONE, None).unwrap();
    assert!(!none.exists());

    let vcd = dir.join("run.vcd");
    let run = build_fixture("axis_sum", Simulator::Icarus)
        .run(&packets, &Stalls::NONE, Some(&vcd))
        .unwrap();
    check_words(&run, &packets, "icarus traced");
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(
        text.contains("$enddefinitions") && text.contains("s_tdata"),
        "VCD"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_specs_are_rejected_before_building() {
    let rtl = fixture("axis_sum.v");
    use qrtl_core::sim::{MAX_IN_BITS, MAX_OUT_BITS};
    const { assert!(MAX_IN_BITS >= 1024 && MAX_OUT_BITS >= 4096) };
    for (in_bits, out_bits) in [
        (12, 32),
        (0, 32),
        (MAX_IN_BITS + 8, 32),
        (8, 0),
        (8, MAX_OUT_BITS + 1),
    ] {
        let mut spec = DriverSpec::axis("axis_sum");
        spec.in_data_bits = in_bits;
        spec.out_word_bits = out_bits;
        assert!(
            matches!(
                build(&spec, &rtl, Simulator::Verilator),
                Err(SimError::InvalidSpec { .. })
            ),
            "{in_bits} {out_bits}"
        );
    }
    let spec = DriverSpec::axis("axis_sum");
    let bad_name = vec![("../axis_sum.v".to_string(), rtl[0].1.clone())];
    assert!(matches!(
        build(&spec, &bad_name, Simulator::Icarus),
        Err(SimError::InvalidSpec { .. })
    ));
    let built = build_fixture("axis_sum", Simulator::Icarus);
    let stalls = Stalls {
        seed: 1,
        in_gap_percent: 100,
        out_stall_percent: 0,
    };
    assert!(matches!(
        built.run(&[vec![1]], &stalls, None),
        Err(SimError::InvalidSpec { .. })
    ));
}

#[test]
fn a_written_project_simulates() {
    use qrtl_core::project::{write_project, Port, PortDir, ProjectSpec};
    let port = |name: &str, dir, width| Port {
        name: name.into(),
        dir,
        width,
        description: String::new(),
    };
    let dir = scratch("project");
    let spec = ProjectSpec {
        name: "axis_sum".into(),
        top: "axis_sum".into(),
        rtl: fixture("axis_sum.v"),
        clock_mhz: 200.0,
        clock_port: "clk".into(),
        reset_port: "rst".into(),
        ports: vec![
            port("clk", PortDir::Input, 1),
            port("rst", PortDir::Input, 1),
            port("s_axis_tdata", PortDir::Input, 8),
            port("s_axis_tvalid", PortDir::Input, 1),
            port("s_axis_tready", PortDir::Output, 1),
            port("s_axis_tlast", PortDir::Input, 1),
            port("m_axis_tdata", PortDir::Output, 32),
            port("m_axis_tvalid", PortDir::Output, 1),
            port("m_axis_tready", PortDir::Input, 1),
            port("m_axis_tlast", PortDir::Output, 1),
        ],
        manifest_extra: serde_json::Value::Null,
        readme_extra: String::new(),
    };
    write_project(&dir, &spec).unwrap();
    let (driver, rtl) = qrtl_core::sim::project_sources(&dir).unwrap();
    assert_eq!(driver, DriverSpec::axis("axis_sum"));
    assert_eq!(rtl, spec.rtl);
    let packets = random_packets(12, 20, 1..=16);
    let run = build(&driver, &rtl, Simulator::Verilator)
        .unwrap()
        .run(&packets, &Stalls::NONE, None)
        .unwrap();
    check_words(&run, &packets, "project");

    // A project with `s_cfg_*` ports has a configuration stream.
    let mut cfg = spec.clone();
    cfg.name = "axis_cfg_key".into();
    cfg.top = "axis_cfg_key".into();
    cfg.rtl = fixture("axis_cfg_key.v");
    cfg.ports.extend([
        port("s_cfg_tdata", PortDir::Input, 64),
        port("s_cfg_tvalid", PortDir::Input, 1),
        port("s_cfg_tready", PortDir::Output, 1),
        port("s_cfg_tlast", PortDir::Input, 1),
    ]);
    std::fs::remove_dir_all(&dir).unwrap();
    write_project(&dir, &cfg).unwrap();
    let (driver, rtl) = qrtl_core::sim::project_sources(&dir).unwrap();
    assert_eq!(driver, cfg_spec());
    let steps = random_steps(13, 30);
    let run = build(&driver, &rtl, Simulator::Icarus)
        .unwrap()
        .run_steps(&steps, &Stalls::NONE, None)
        .unwrap();
    check_keyed(&run, &steps, "cfg project");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Run by `concurrent_processes_share_one_build` in two child processes at
/// once (cache root and RTL variant from the environment); on its own it
/// builds and runs the fixture from the default cache.
#[test]
fn child_build_and_run() {
    let mut rtl = fixture("axis_sum.v");
    let options = match std::env::var_os("QRTL_TEST_CHILD_CACHE") {
        Some(root) => {
            let tag = std::env::var("QRTL_TEST_CHILD_TAG").unwrap();
            rtl[0].1.push_str(&format!("// variant {tag}\n"));
            BuildOptions {
                cache_dir: Some(PathBuf::from(root)),
                jobs: 1,
                ..BuildOptions::default()
            }
        }
        None => BuildOptions::default(),
    };
    let built = build_with(
        &DriverSpec::axis("axis_sum"),
        &rtl,
        Simulator::Verilator,
        &options,
    )
    .unwrap();
    let packets = random_packets(13, 10, 1..=10);
    check_words(
        &built.run(&packets, &Stalls::NONE, None).unwrap(),
        &packets,
        "child",
    );
}

#[test]
fn concurrent_processes_share_one_build() {
    let root = scratch("processes");
    let tag = format!("{}-{:?}", std::process::id(), std::time::SystemTime::now());
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["--exact", "child_build_and_run", "--test-threads", "1"])
                .env("QRTL_TEST_CHILD_CACHE", &root)
                .env("QRTL_TEST_CHILD_TAG", &tag)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 passed"),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let entries: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(std::fs::read_dir(root.join(".tmp")).unwrap().count(), 0);
    std::fs::remove_dir_all(&root).unwrap();
}

/// axis_wide_echo's spec: 96-bit input beats with tkeep, 140-bit results.
fn wide_spec() -> DriverSpec {
    DriverSpec {
        in_data_bits: 96,
        in_keep: true,
        out_word_bits: 140,
        ..DriverSpec::axis("axis_wide_echo")
    }
}

/// axis_wide_echo's answer: one 18-byte beat per 12-byte input beat,
/// {tkeep, bytes so far, the kept bytes}, little-endian.
fn expected_echo(packet: &[u8]) -> Vec<Vec<u8>> {
    let mut beats = Vec::new();
    for (i, chunk) in packet.chunks(12).enumerate() {
        let mut beat = vec![0u8; 18];
        beat[..chunk.len()].copy_from_slice(chunk);
        let count = (i * 12 + chunk.len()) as u32;
        beat[12..16].copy_from_slice(&count.to_le_bytes());
        let keep: u16 = ((1u32 << chunk.len()) - 1) as u16;
        beat[16] = keep as u8;
        beat[17] = (keep >> 8) as u8;
        beats.push(beat);
    }
    beats
}

#[test]
fn wide_beats_with_partial_last_beats_in_both_simulators() {
    let packets = random_packets(21, 120, 1..=70);
    let stalls = Stalls {
        seed: 0x5eed,
        in_gap_percent: 20,
        out_stall_percent: 35,
    };
    let mut runs = Vec::new();
    for sim in BOTH {
        let built = build(&wide_spec(), &fixture("axis_wide_echo.v"), sim)
            .unwrap_or_else(|e| panic!("{sim:?}: {e}"));
        for st in [Stalls::NONE, stalls] {
            let run = built.run(&packets, &st, None).unwrap();
            for (i, (r, p)) in run.packets.iter().zip(&packets).enumerate() {
                assert_eq!(r.beats, expected_echo(p), "{sim:?} {st:?}: packet {i}");
                let low: Vec<u32> = r
                    .beats
                    .iter()
                    .map(|b| u32::from_le_bytes(b[..4].try_into().unwrap()))
                    .collect();
                assert_eq!(r.words, low, "{sim:?}: packet {i} low words");
            }
            if st == Stalls::NONE {
                // One beat per cycle, the last result one cycle later.
                let beats: u64 = packets.iter().map(|p| p.len().div_ceil(12) as u64).sum();
                assert_eq!(run.total_cycles, beats + 1, "{sim:?}");
            } else {
                assert!(run.output_stall_cycles > 0 && run.input_stall_cycles > 0);
            }
            runs.push(run);
        }
    }
    // Same stall sequence, same design: cycle-identical in both simulators.
    assert_eq!(runs[0], runs[2]);
    assert_eq!(runs[1], runs[3]);
}

#[test]
fn without_tkeep_packets_must_be_whole_beats() {
    let mut spec = DriverSpec::axis("axis_wide_echo");
    spec.in_data_bits = 96;
    spec.out_word_bits = 140;
    // The spec does not drive the design's tkeep (Icarus leaves the port
    // floating); the harness refuses a packet that is not whole 12-byte
    // beats before running anything.
    let built = build(&spec, &fixture("axis_wide_echo.v"), Simulator::Icarus).unwrap();
    assert!(matches!(
        built.run(&[vec![1; 13]], &Stalls::NONE, None),
        Err(SimError::InvalidSpec { .. })
    ));
}

/// axis_cfg_key's spec: axis_sum's streams and a 64-bit `s_cfg` stream.
fn cfg_spec() -> DriverSpec {
    DriverSpec {
        cfg: Some(CfgStream {
            prefix: "s_cfg".into(),
            data_bits: 64,
        }),
        ..DriverSpec::axis("axis_cfg_key")
    }
}

fn build_cfg_fixture(sim: Simulator) -> Built {
    build(&cfg_spec(), &fixture("axis_cfg_key.v"), sim)
        .unwrap_or_else(|e| panic!("building axis_cfg_key for {sim:?}: {e}"))
}

/// axis_cfg_key's answers: per document axis_sum's words xored with the
/// key, the last 8 bytes of the last configuration packet before it (0
/// before any).
fn expected_keyed(steps: &[Step]) -> Vec<Vec<u32>> {
    let mut key = 0u64;
    let mut answers = Vec::new();
    for step in steps {
        match step {
            Step::Config(bytes) => {
                key = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap())
            }
            Step::Doc(doc) => {
                let w = expected_words(doc);
                answers.push(vec![w[0] ^ (key >> 32) as u32, w[1] ^ key as u32]);
            }
        }
    }
    answers
}

fn check_keyed(run: &SimRun, steps: &[Step], what: &str) {
    let words: Vec<_> = run.packets.iter().map(|p| p.words.clone()).collect();
    assert_eq!(words, expected_keyed(steps), "{what}");
}

/// Documents of 1 to 20 bytes and, about one step in three, configuration
/// packets of one to three 8-byte words.
fn random_steps(seed: u64, n: usize) -> Vec<Step> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            if rng.gen_ratio(1, 3) {
                let len = 8 * rng.gen_range(1..=3);
                Step::Config((0..len).map(|_| rng.gen()).collect())
            } else {
                let len = rng.gen_range(1..=20);
                Step::Doc((0..len).map(|_| rng.gen()).collect())
            }
        })
        .collect()
}

#[test]
fn config_steps_run_cycle_for_cycle_alike_in_both_simulators() {
    let steps = random_steps(31, 150);
    let stalls = Stalls {
        seed: 0xc0f1,
        in_gap_percent: 25,
        out_stall_percent: 40,
    };
    let mut runs = Vec::new();
    for sim in BOTH {
        let built = build_cfg_fixture(sim);
        for st in [Stalls::NONE, stalls] {
            let run = built.run_steps(&steps, &st, None).unwrap();
            check_keyed(&run, &steps, &format!("{sim:?} {st:?}"));
            runs.push(run);
        }
    }
    // Output backpressure holds s_cfg_tready low: input stalls.
    assert!(runs[1].input_stall_cycles > 0 && runs[1].output_stall_cycles > 0);
    assert!(runs[1].total_cycles > runs[0].total_cycles);
    assert_eq!(runs[0], runs[2]);
    assert_eq!(runs[1], runs[3]);
}

#[test]
fn documents_before_any_config_and_configs_in_a_row() {
    let doc = |n: u8| Step::Doc((1..=n).collect());
    let cfg = |words: &[u64]| Step::Config(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    let steps = vec![
        doc(3),
        doc(7),
        cfg(&[0x1111_2222_3333_4444]),
        cfg(&[0xdead_beef_0000_0001, 0x0123_4567_89ab_cdef]),
        cfg(&[0x8000_0000_0000_0008]),
        doc(5),
        doc(1),
        cfg(&[0xffff_ffff_ffff_ffff]),
        doc(9),
        // A configuration at the end is sent, though it has no result.
        cfg(&[42]),
    ];
    let docs: Vec<Vec<u8>> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Doc(d) => Some(d.clone()),
            Step::Config(_) => None,
        })
        .collect();
    for sim in BOTH {
        let built = build_cfg_fixture(sim);
        let run = built.run_steps(&steps, &Stalls::NONE, None).unwrap();
        check_keyed(&run, &steps, &format!("{sim:?}"));
        assert_eq!(run.packets[2].words[0], 5 ^ 0x8000_0000, "{sim:?}");
        // 25 document bytes and 6 configuration beats, one a cycle, but a
        // configuration waits until the results before it have left
        // (s_cfg_tready is "FIFO empty"): 2 + 3 + 2 stall cycles. The last
        // configuration beat, accepted after the last result, ends the run.
        assert_eq!(
            (run.total_cycles, run.input_stall_cycles),
            (25 + 6 + 7, 7),
            "{sim:?}"
        );
        // Without configuration steps the stream stays idle: key 0.
        let plain = built.run(&docs, &Stalls::NONE, None).unwrap();
        check_words(&plain, &docs, &format!("{sim:?} documents only"));
        let doc_steps: Vec<Step> = docs.iter().cloned().map(Step::Doc).collect();
        assert_eq!(
            built.run_steps(&doc_steps, &Stalls::NONE, None).unwrap(),
            plain
        );
    }
}

#[test]
fn config_packets_must_be_whole_nonempty_beats() {
    let built = build_cfg_fixture(Simulator::Icarus);
    let err = built
        .run_steps(
            &[Step::Doc(vec![1]), Step::Config(vec![])],
            &Stalls::NONE,
            None,
        )
        .unwrap_err();
    assert!(matches!(err, SimError::EmptyPacket { index: 1 }), "{err}");
    for len in [1, 7, 12] {
        let err = built
            .run_steps(&[Step::Config(vec![1; len])], &Stalls::NONE, None)
            .unwrap_err();
        assert!(matches!(err, SimError::InvalidSpec { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{len} bytes"))
                && msg.contains("whole 8-byte beats of `s_cfg_tdata`"),
            "{msg}"
        );
    }
}

#[test]
fn designs_without_a_cfg_stream_refuse_config_steps() {
    let built = build_fixture("axis_sum", Simulator::Icarus);
    let steps = [Step::Doc(vec![1, 2]), Step::Config(vec![0; 8])];
    let err = built.run_steps(&steps, &Stalls::NONE, None).unwrap_err();
    assert!(matches!(err, SimError::InvalidSpec { .. }), "{err}");
    assert!(
        err.to_string().contains(
            "step 1 is a configuration packet, but the design has no configuration stream"
        ),
        "{err}"
    );
    // Documents only: the same as `run`.
    let packets = random_packets(14, 20, 1..=9);
    let steps: Vec<Step> = packets.iter().cloned().map(Step::Doc).collect();
    assert_eq!(
        built.run_steps(&steps, &Stalls::NONE, None).unwrap(),
        built.run(&packets, &Stalls::NONE, None).unwrap()
    );
}

#[test]
fn bad_cfg_streams_are_rejected_before_building() {
    let rtl = fixture("axis_cfg_key.v");
    for (prefix, bits) in [
        ("s_cfg", 0),
        ("s_cfg", 12),
        ("s_cfg", qrtl_core::sim::MAX_IN_BITS + 8),
        ("s_axis", 64),
        ("m_axis", 64),
        ("1cfg", 64),
    ] {
        let spec = DriverSpec {
            cfg: Some(CfgStream {
                prefix: prefix.into(),
                data_bits: bits,
            }),
            ..cfg_spec()
        };
        let err = build(&spec, &rtl, Simulator::Icarus).unwrap_err();
        assert!(
            matches!(err, SimError::InvalidSpec { .. }),
            "{prefix} {bits}: {err}"
        );
        assert!(err.to_string().contains("configuration"), "{err}");
    }
}

/// The driver refuses `--reset-at` with configuration packets: the reset
/// would undo the configuration, and resending documents would not redo it.
#[test]
fn the_driver_refuses_resets_with_config_packets() {
    use qrtl_core::sim::format::{encode_stimulus, StreamId};
    let dir = scratch("cfg-reset");
    let stim = dir.join("stimulus.bin");
    let packets = [
        (StreamId::Config, &[0u8; 8][..]),
        (StreamId::Document, &[1u8][..]),
    ];
    std::fs::write(&stim, encode_stimulus(&packets)).unwrap();
    let out = std::process::Command::new(build_cfg_fixture(Simulator::Verilator).executable())
        .arg(&stim)
        .arg(dir.join("results.bin"))
        .args(["--reset-at", "5:1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--reset-at with configuration packets"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
