//! The FlexTrack RTL against the software model of the same strategy, in
//! Verilator, trajectory by trajectory: one build per strategy (each with a
//! different clustering: pipelined or broadcast input, several clusters),
//! many seeded random trajectories, with and without random AXI stalls.
//!
//! * matched == `refmodel::track::hw` of the strategy; `expand` also ==
//!   the exact engine;
//! * the event count word == the software event detector's count;
//! * one event per clock: without stalls, a trajectory whose last beat did
//!   not wait for the previous results takes exactly `samples - 1 +
//!   latency` cycles, and none takes fewer.
//!
//! `QRTL_SOAK=N` streams N times as many trajectories through each build.

use qrtl_core::sim::{Simulator, Stalls};
use qrtl_track::engine::{build_track_hw, simulate_track, TrackHwOptions};
use qrtl_track::engine::{code_trajectories, design_for, parse_patterns, read_trajectories};
use qrtl_track::input::Sample;
use qrtl_track::ir::Strategy;
use qrtl_track::lower::EngineConfig;
use qrtl_track::refmodel::exact::ExactEngine;
use qrtl_track::refmodel::hw::HwModel;
use rand::rngs::SmallRng;
use rand::SeedableRng;

#[path = "track/gen.rs"]
mod gen;

fn check(strategy: Strategy, cluster_size: usize, broadcast: bool, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut patterns: Vec<String> = (0..48).map(|_| gen::pattern(&mut rng, 6)).collect();
    // ch. 4.4.6's shape, where buffer and or report false positives.
    patterns.extend((0..6).map(|_| gen::two_variable_pattern(&mut rng)));
    let text = patterns.join("\n") + "\n?*\nA.?*\n";
    // QRTL_SOAK=N: N times the trajectories (same build).
    let soak: usize = std::env::var("QRTL_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1);
    let csv = gen::csv(&mut rng, 300 * soak, 24);
    let parsed = parse_patterns("p.txt", &text).expect("parses");
    let mut design = design_for("p.txt", &parsed, None).expect("lowers");
    let (trajs, names) = read_trajectories(&[("t.csv".into(), csv)], None).expect("reads");
    let trajs = code_trajectories(&mut design, &trajs, &names);
    let opts = TrackHwOptions {
        engines: EngineConfig {
            strategy,
            cluster_size,
        },
        broadcast,
    };
    let hw = build_track_hw("p.txt", &design, &opts).expect("compiles");
    assert!(
        hw.set.clusters.len() > 1 || cluster_size == 0,
        "want several clusters"
    );
    let mut model = HwModel::new(&design, &hw.set);
    let exact = ExactEngine::new(&design);
    let samples: Vec<&[Sample]> = trajs.iter().map(|t| t.samples.as_slice()).collect();
    let latency = hw.rtl.latency;
    let words = hw.rtl.result_words as u64;
    for stalls in [
        Stalls::NONE,
        Stalls {
            seed: seed ^ 0x55,
            in_gap_percent: 25,
            out_stall_percent: 40,
        },
    ] {
        let got = simulate_track(&hw, &samples, Simulator::Verilator, &stalls, None)
            .unwrap_or_else(|e| panic!("{} simulation: {e}", strategy.as_str()));
        assert_eq!(got.len(), trajs.len());
        let mut exact_cycles = 0;
        for (i, (t, r)) in trajs.iter().zip(&got).enumerate() {
            let want = model.run(&t.events);
            assert_eq!(
                r.matched,
                want,
                "{} {:?}: trajectory {} ({:?})\npatterns:\n{text}",
                strategy.as_str(),
                stalls,
                t.id,
                t.events
            );
            if strategy == Strategy::Expand {
                assert_eq!(
                    r.matched,
                    exact.matches(&t.events),
                    "expand != exact on {}",
                    t.id
                );
            }
            assert_eq!(r.events as usize, t.events.len(), "event count of {}", t.id);
            if stalls == Stalls::NONE {
                let n = t.samples.len() as u64;
                assert!(
                    r.cycles >= n - 1 + latency,
                    "{}: {} cycles for {n} samples",
                    t.id,
                    r.cycles
                );
                // The previous results drain in `words` cycles after loading.
                if i > 0 && n > words + latency + 1 {
                    assert_eq!(
                        r.cycles,
                        n - 1 + latency,
                        "{}: not one sample per clock",
                        t.id
                    );
                    exact_cycles += 1;
                }
            }
        }
        if stalls == Stalls::NONE {
            assert!(
                exact_cycles > 50,
                "too few long trajectories: {exact_cycles}"
            );
        }
    }
}

#[test]
fn rtl_equals_model_buffer_pipelined() {
    check(Strategy::Buffer, 60, false, 0xb0f);
}

#[test]
fn rtl_equals_model_or_broadcast() {
    check(Strategy::Or, 50, true, 0x0e);
}

#[test]
fn rtl_equals_exact_expand() {
    check(Strategy::Expand, 150, false, 0xe7);
}
