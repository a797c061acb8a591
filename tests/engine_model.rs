//! The RTL against the reference model through the one engine interface
//! (`qrtl_core::engine::check_against_model`), the same code for every
//! engine: one small design of each, simulated in Icarus Verilog, every
//! input's decoded hardware output equal to the model's. The per-engine
//! suites (`rtl_sim`, `track_rtl`, `rice_rtl`) go much further; this one
//! proves the interface itself (encode, decode, model) on each engine.

use std::path::Path;

use qrtl_core::engine::{check_against_model, Engine, Named, SimSettings};
use qrtl_core::sim::{Simulator, Stalls};

fn settings() -> SimSettings<'static> {
    SimSettings {
        simulator: Simulator::Icarus,
        stalls: Stalls {
            seed: 7,
            in_gap_percent: 20,
            out_stall_percent: 20,
        },
        ..SimSettings::default()
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Simulate, compare, and return the model's outputs (to check that the
/// inputs exercise something).
fn agree<E: Engine>(engine: &E, design: &E::Design, inputs: &[Named<E::Input>]) -> Vec<E::Output> {
    let mismatches = check_against_model(engine, design, inputs, &settings())
        .unwrap_or_else(|e| panic!("{}: simulation failed: {e}", E::NAME));
    assert!(
        mismatches.is_empty(),
        "{}: {} of {} inputs differ, first: {:?}",
        E::NAME,
        mismatches.len(),
        inputs.len(),
        mismatches[0]
    );
    inputs
        .iter()
        .map(|i| engine.model(design, &i.value))
        .collect()
}

#[test]
fn xpath_rtl_equals_the_software_engine() {
    use qrtl_xpath::engine::{load_queries, XpathEngine, XpathOptions};
    let opts = XpathOptions::default();
    let source = load_queries(
        &root().join("queries/xpath/news-paths.txt"),
        opts.mode,
        opts.ordered,
        &opts.ns,
    )
    .expect("sample queries load");
    let design = XpathEngine.compile(&source, &opts).expect("compiles");
    let mut inputs: Vec<Named<Vec<u8>>> = ["monday.xml", "tuesday.xml", "broken.xml"]
        .iter()
        .map(|f| Named {
            name: f.to_string(),
            value: std::fs::read(root().join("queries/xpath/docs").join(f)).unwrap(),
        })
        .collect();
    inputs.push(Named {
        name: "truncated".into(),
        value: inputs[0].value[..inputs[0].value.len() / 2].to_vec(),
    });
    let outputs = agree(&XpathEngine, &design, &inputs);
    assert!(
        outputs.iter().any(|o| !o.matched.is_empty()),
        "some document matches"
    );
    assert!(
        outputs.iter().any(|o| o.reason.is_some()),
        "some document is flagged"
    );
}

#[test]
fn track_rtl_equals_the_hardware_model() {
    use qrtl_track::engine::{load_source, load_trajectories, TrackEngine, TrackOptions};
    let mut source = load_source(
        &root().join("queries/track/patterns.txt"),
        Some(&root().join("queries/track/regions.yaml")),
    )
    .expect("sample patterns load");
    let trajs = load_trajectories(&mut source, &[root().join("queries/track/city.csv")])
        .expect("sample trajectories load");
    let opts = TrackOptions::default();
    let design = TrackEngine.compile(&source, &opts).expect("compiles");
    let inputs: Vec<_> = trajs
        .into_iter()
        .map(|t| Named {
            name: t.id.clone(),
            value: t,
        })
        .collect();
    let outputs = agree(&TrackEngine, &design, &inputs);
    assert!(
        outputs.iter().any(|o| !o.matched.is_empty()),
        "some trajectory matches"
    );
}

#[test]
fn rice_rtl_equals_the_codec() {
    use qrtl_rice::emit::{RiceArch, RiceHwConfig};
    use qrtl_rice::engine::{RiceEngine, RiceOptions, StreamEnd};
    use qrtl_rice::refmodel::{encode, BitOrder, RiceConfig, Unary};
    let code = RiceConfig {
        k: 2,
        unary: Unary::Zeros,
        bit_order: BitOrder::Msb,
        width: 12,
    };
    let opts = RiceOptions {
        hw: RiceHwConfig {
            code,
            chunk_bits: 16,
            arch: RiceArch::NoStall,
        },
        clock_mhz: 200.0,
    };
    let design = RiceEngine.compile(&(), &opts).expect("compiles");
    let values: Vec<u64> = (0..200u64).map(|i| (i * 37) % 61).collect();
    let stream = encode(&code, &values).unwrap();
    let inputs = vec![
        Named {
            name: "encoded".into(),
            value: stream.clone(),
        },
        Named {
            name: "cut".into(),
            value: stream[..stream.len() - 3].to_vec(),
        },
        Named {
            name: "overflow".into(),
            // 1,040 zero bits then a one: a quotient above 4095 >> 2.
            value: [vec![0u8; 130], vec![0x80, 0x55]].concat(),
        },
    ];
    let outputs = agree(&RiceEngine, &design, &inputs);
    assert_eq!(
        outputs[0].values, values,
        "the codec decodes what it encoded"
    );
    assert!(
        matches!(outputs[2].end, StreamEnd::Overflow { .. }),
        "{:?}",
        outputs[2]
    );
}
