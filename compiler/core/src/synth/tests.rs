use super::*;

fn manifest(ports: &[(&str, &str, u32)]) -> Manifest {
    Manifest {
        name: "t".into(),
        top: "core_top".into(),
        clock_mhz: 125.0,
        clock_port: "clk".into(),
        reset_port: "rst".into(),
        files: vec!["rtl/a.v".into(), "rtl/core_top.v".into()],
        ports: ports
            .iter()
            .map(|(n, d, w)| crate::project::ManifestPort {
                name: n.to_string(),
                dir: d.to_string(),
                width: *w,
            })
            .collect(),
    }
}

#[test]
fn wrapper_registers_every_port_bit_in_port_order() {
    let m = manifest(&[
        ("clk", "input", 1),
        ("rst", "input", 1),
        ("din", "input", 8),
        ("dout", "output", 32),
        ("done", "output", 1),
    ]);
    let v = ooc_wrapper(&m);
    assert!(v.contains("reg [8:0] in_sr;"), "{v}");
    assert!(v.contains("in_sr <= {in_sr[7:0], si};"), "{v}");
    assert!(v.contains(".clk(clk),"), "{v}");
    assert!(v.contains("in_q <= in_sr;"), "{v}");
    assert!(v.contains(".rst(in_q[0:0]),"), "{v}");
    assert!(v.contains(".din(in_q[8:1]),"), "{v}");
    assert!(v.contains(".dout(o_dout),"), "{v}");
    assert!(v.contains(".done(o_done)\n"), "{v}");
    // The outputs are captured by a parallel register (out_q) beside the
    // core, which loads the output shift chain.
    assert!(v.contains("reg [32:0] out_q;"), "{v}");
    assert!(v.contains("out_q <= { o_dout, o_done };"), "{v}");
    assert!(v.contains("reg [32:0] out_sr;"), "{v}");
    assert!(
        v.contains("out_sr <= ld_q ? out_q : {out_sr[31:0], 1'b0};"),
        "{v}"
    );
    assert!(
        v.contains("(* keep_hierarchy *)\n    core_top u_core"),
        "{v}"
    );
}

#[test]
fn wrapper_of_one_bit_ports_has_no_empty_ranges() {
    let m = manifest(&[("clk", "input", 1), ("go", "input", 1), ("y", "output", 1)]);
    let v = ooc_wrapper(&m);
    assert!(v.contains("in_sr <= si;"), "{v}");
    assert!(v.contains(": 1'b0;"), "{v}");
    assert!(!v.contains("[-1"), "{v}");
}

#[test]
fn scripts_use_project_relative_paths_only() {
    let m = manifest(&[("clk", "input", 1)]);
    let x = yosys_script(&m, Target::Xc6v, MemoryMapping::InPlace);
    assert!(x.contains(
        "read_verilog -defer -DQRTL_TARGET_XC6V rtl/a.v\n\
         read_verilog -defer -DQRTL_TARGET_XC6V rtl/core_top.v\n"
    ));
    assert!(x.contains("synth_xilinx -family xc6v -top core_top -flatten -noiopad -noclkbuf\n"));
    assert!(x.contains("tee -q -o build/xc6v_stat.json stat -json\n"));
    assert!(!x.contains("qrtl_ooc"));
    let e = yosys_script(&m, Target::Ecp5, MemoryMapping::InPlace);
    assert!(
        e.contains("read_verilog -defer -DQRTL_TARGET_ECP5 rtl/a.v\n"),
        "{e}"
    );
    assert!(e.contains(&format!(
        "read_verilog -defer build/qrtl_ooc.v\n\
         # LUT mapping for each register's own best delay (see ECP5_ABC9_SCRIPT).\n\
         scratchpad -set abc9.script \"{ECP5_ABC9_SCRIPT}\"\n\
         synth_ecp5 -top qrtl_ooc -json build/ecp5_ooc.json\n"
    )));
    let i = yosys_script(&m, Target::Ice40, MemoryMapping::InPlace);
    assert!(i.contains("read_verilog -defer build/qrtl_ooc.v\nsynth_ice40 -top qrtl_ooc"));
    // Only the ECP5 timing flow maps for delay; the area figures keep
    // Yosys's default mapping.
    assert!(!x.contains("scratchpad") && !i.contains("scratchpad"));
    for s in [x, e, i] {
        for line in s.lines().filter(|l| !l.starts_with('#')) {
            assert!(!line.contains(" /"), "absolute path in `{line}`");
        }
    }
}

#[test]
fn fmax_comes_from_the_report_else_the_last_log_line() {
    let report = r#"{"fmax": {"$glbnet$clk": {"achieved": 151.2, "constraint": 200.0}}}"#;
    let log = "Info: Max frequency for clock '$glbnet$clk': 140.00 MHz (FAIL at 200.00 MHz)\n\
               Info: Max frequency for clock '$glbnet$clk': 148.50 MHz (FAIL at 200.00 MHz)\n";
    assert_eq!(parse_fmax(Some(report), log), Some(151.2));
    assert_eq!(parse_fmax(None, log), Some(148.5));
    assert_eq!(parse_fmax(Some("not json"), log), Some(148.5));
    assert_eq!(parse_fmax(None, "Info: nothing\n"), None);
    let two = r#"{"fmax": {"a": {"achieved": 90.0}, "b": {"achieved": 80.0}}}"#;
    assert_eq!(parse_fmax(Some(two), ""), Some(80.0), "the slowest clock");
}

#[test]
fn median_of_seeds() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
}

#[test]
fn targets_parse_and_print() {
    for t in Target::ALL {
        assert_eq!(t.name().parse::<Target>(), Ok(t));
    }
    assert!("xc5"
        .parse::<Target>()
        .unwrap_err()
        .contains("xc6v, xc7, ecp5 or ice40"));
}

#[test]
fn summary_has_exactly_the_contract_keys() {
    let r = SynthReport {
        target: Target::Ecp5,
        luts: 10,
        lut_eq: 16,
        ffs: 5,
        lutram: 6,
        bram: 0.5,
        fmax_mhz: Some(151.234),
        seconds: 12.345,
        fmax_seeds: vec![151.234],
        logic_depth: None,
        native_tools: vec!["yosys: /usr/bin/yosys".into()],
    };
    let j = serde_json::to_string(&r.summary()).unwrap();
    assert_eq!(
        j,
        r#"{"target":"ecp5","luts":10,"lut_eq":16,"ffs":5,"lutram":6,"bram":0.5,"fmax_mhz":151.23,"seconds":12.3}"#
    );
}

#[test]
fn limits_read_as_people_write_them() {
    use std::time::Duration;
    assert_eq!(duration_text(Duration::from_secs(1200)), "20 min");
    assert_eq!(duration_text(Duration::from_secs(90)), "90.0 s");
    assert_eq!(duration_text(Duration::from_millis(60)), "60 ms");
}

#[test]
fn a_failed_run_names_what_its_log_and_its_output_say() {
    let dir = std::env::temp_dir().join(format!("qrtl-synth-fail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Like YoWASP's Yosys stopped by a trap: the log ends mid-pass, the
    // cause is on stderr.
    let r = run::run_all(
        &dir,
        &run::Progress::new(false),
        vec![run::Job {
            label: "tool".into(),
            program: "sh".into(),
            args: vec![
                "-c".into(),
                "echo '4.49.15.3. Executing XAIGER2 backend.' > tool.log; \
                 echo 'wasm trap: call stack exhausted' >&2; exit 1"
                    .into(),
            ],
            log: "tool.log".into(),
            fit_on: None,
        }],
        1,
        None,
    );
    match r {
        Err(SynthError::ToolFailed { what, log, tail }) => {
            assert!(what.starts_with("tool ("), "{what}");
            assert_eq!(log, dir.join("tool.log"));
            assert_eq!(
                tail,
                "4.49.15.3. Executing XAIGER2 backend.\nand its output ends:\n\
                 wasm trap: call stack exhausted"
            );
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// nextpnr-ecp5's device utilisation block for a design larger than the
/// part (the programmable engine at 256 columns, 2026-11-27).
const OVER_UTILISED: &str = "Info: Device utilisation:
Info: \t          TRELLIS_IO:       0/    365     0%
Info: \t                DCCA:       1/     56     1%
Info: \t              DP16KD:       7/    208     3%
Info: \t          TRELLIS_FF:   16192/  83640    19%
Info: \t        TRELLIS_COMB:   98488/  83640   117%
Info: \t        TRELLIS_RAMW:    3278/  10455    31%

Info: Placed 0 cells based on constraints.
";

#[test]
fn a_resource_over_the_part_is_read_from_the_utilisation() {
    assert_eq!(
        run::over_utilised(OVER_UTILISED),
        Some(("TRELLIS_COMB".to_string(), 98488, 83640))
    );
    let fits = OVER_UTILISED.replace("98488/  83640   117%", "80000/  83640    95%");
    assert_eq!(run::over_utilised(&fits), None);
    assert_eq!(
        run::over_utilised("Info: Max frequency for clock 'clk': 151.2 MHz (PASS at 150.0 MHz)"),
        None
    );
}

/// A shell `script` in `dir` run as nextpnr-ecp5 on the LFE5U-85F would
/// be, writing its log to `pnr.log`.
fn fake_place_and_route(
    dir: &std::path::Path,
    script: &str,
    limit: Option<std::time::Duration>,
) -> Result<(), SynthError> {
    run::run_all(
        dir,
        &run::Progress::new(false),
        vec![run::Job {
            label: "nextpnr-ecp5 seed 1/1".into(),
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            log: "pnr.log".into(),
            fit_on: Some("LFE5U-85F"),
        }],
        1,
        limit,
    )
}

#[test]
fn place_and_route_of_a_design_larger_than_the_part_stops_at_its_utilisation() {
    use std::time::{Duration, Instant};
    let dir = std::env::temp_dir().join(format!("qrtl-synth-fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("util.txt"), OVER_UTILISED).unwrap();
    let started = Instant::now();
    // Like nextpnr: the utilisation in its log, then a placer that spins.
    let r = fake_place_and_route(
        &dir,
        "cat util.txt > pnr.log; sleep 30",
        Some(Duration::from_secs(60)),
    );
    match &r {
        Err(SynthError::DoesNotFit {
            what,
            part,
            resource,
            used,
            available,
            log,
        }) => {
            assert_eq!(what, "nextpnr-ecp5 seed 1/1");
            assert_eq!(*part, "LFE5U-85F");
            assert_eq!(
                (resource.as_str(), *used, *available),
                ("TRELLIS_COMB", 98488, 83640)
            );
            assert_eq!(log, &dir.join("pnr.log"));
        }
        other => panic!("{other:?}"),
    }
    let text = r.unwrap_err().to_string();
    assert!(
        text.starts_with(
            "the design does not fit the LFE5U-85F: TRELLIS_COMB 98488 of 83640 (117%)"
        ),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "stopped at the utilisation, not at the sleep's end"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_earlier_runs_log_never_stops_place_and_route() {
    let dir = std::env::temp_dir().join(format!("qrtl-synth-stale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The last run's log says the design did not fit; this run's fits.
    std::fs::write(dir.join("pnr.log"), OVER_UTILISED).unwrap();
    let fits = OVER_UTILISED.replace("98488/", "42337/");
    std::fs::write(dir.join("util.txt"), fits).unwrap();
    let r = fake_place_and_route(&dir, "sleep 2; cat util.txt > pnr.log", None);
    assert!(r.is_ok(), "{r:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_past_its_time_limit_is_stopped() {
    use std::time::{Duration, Instant};
    let dir = std::env::temp_dir().join(format!("qrtl-synth-limit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let started = Instant::now();
    let job = |label: &str, secs: &str| run::Job {
        label: label.into(),
        program: "sleep".into(),
        args: vec![secs.into()],
        log: format!("{label}.log"),
        fit_on: None,
    };
    let r = run::run_all(
        &dir,
        &run::Progress::new(false),
        vec![job("quick", "0"), job("slow", "30")],
        2,
        Some(Duration::from_millis(300)),
    );
    match r {
        Err(SynthError::TimeLimit { what, limit, log }) => {
            assert_eq!(what, "slow");
            assert_eq!(limit, Duration::from_millis(300));
            assert_eq!(log, dir.join("slow.log"));
        }
        other => panic!("{other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the sleep was stopped"
    );
    // Without a limit the same runs finish.
    assert!(run::run_all(
        &dir,
        &run::Progress::new(false),
        vec![job("a", "0"), job("b", "0.2")],
        2,
        None
    )
    .is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A hand-made ECP5 netlist: a LUT chain, a wide-function mux, a carry
/// cell fed on its carry input, an output port and a combinational loop.
const DEPTH_NETLIST: &str = r#"{"modules": {"core": {
  "ports": {"clk": {"direction": "input", "bits": [1]},
            "a": {"direction": "input", "bits": [2]},
            "y": {"direction": "output", "bits": [8]}},
  "cells": {
    "ff1": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
            "connections": {"CLK": [1], "DI": [2], "Q": [3]}},
    "l1": {"type": "LUT4", "port_directions": {"A": "input", "B": "input", "C": "input", "D": "input", "Z": "output"},
           "connections": {"A": [3], "B": [2], "C": ["0"], "D": ["0"], "Z": [4]}},
    "l2": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
           "connections": {"A": [4], "Z": [5]}},
    "mx": {"type": "PFUMX", "port_directions": {"ALUT": "input", "BLUT": "input", "C0": "input", "Z": "output"},
           "connections": {"ALUT": [5], "BLUT": [4], "C0": [3], "Z": [6]}},
    "ff2": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "CE": "input", "Q": "output"},
            "connections": {"CLK": [1], "DI": [6], "CE": [4], "Q": [7]}},
    "cc": {"type": "CCU2C", "port_directions": {"A0": "input", "CIN": "input", "COUT": "output"},
           "connections": {"A0": [7], "CIN": [6], "COUT": [8]}},
    "l3": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
           "connections": {"A": [10], "Z": [11]}},
    "l4": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
           "connections": {"A": [11], "Z": [10]}},
    "ff3": {"type": "TRELLIS_FF", "port_directions": {"CLK": "input", "DI": "input", "Q": "output"},
            "connections": {"CLK": [1], "DI": [11], "Q": [12]}}
  },
  "netnames": {"clk": {"bits": [1]}, "a": {"bits": [2]}, "r1": {"bits": [3]},
               "$abc$t": {"bits": [4]}, "t": {"bits": [4]}, "$abc$5": {"bits": [5]},
               "r2_register_long": {"bits": [7]}, "r2_TRELLIS_FF_Q": {"bits": [7]}, "y": {"bits": [8]}, "r3": {"bits": [12, 13]}}
}}}"#;

#[test]
fn logic_depth_counts_lut_levels_into_every_register_and_output() {
    let v = depth::Netlist::parse(DEPTH_NETLIST.as_bytes()).unwrap();
    let d = depth::logic_depth(&v, "core").unwrap();
    // Registers are named by their Q net, a real name before one Yosys
    // derived from the cells (`r2_TRELLIS_FF_Q`) even when longer.
    // ff1 DI straight from a port: 0; ff2 CE behind one LUT: 1; the loop's
    // register behind two LUTs (the loop broken once, where the walk met
    // it: the path starts there): 2; ff2 DI behind
    // two LUTs and a PFUMX, and port y behind that and a carry input: 2.5.
    assert_eq!(d.histogram, vec![(0.0, 1), (1.0, 1), (2.0, 1), (2.5, 2)]);
    assert_eq!(d.loops, 1);
    assert_eq!(d.max_levels(), 2.5);
    let listed: Vec<(f64, &str, &str)> = d
        .deepest
        .iter()
        .map(|e| (e.levels, e.sink.as_str(), e.from.as_str()))
        .collect();
    assert_eq!(
        listed,
        vec![
            (2.5, "port y", "r1"),
            (2.5, "r2_register_long (TRELLIS_FF DI)", "r1"),
            (2.0, "r3[0] (TRELLIS_FF DI)", "bit 11"),
            (1.0, "r2_register_long (TRELLIS_FF CE)", "r1"),
            (0.0, "r1 (TRELLIS_FF DI)", "a"),
        ]
    );
    assert_eq!(
        d.line(),
        "deepest input 2.5 LUT levels: port y from r1 (2 of 5 inputs at 2.5 levels)"
    );
    assert!(depth::logic_depth(&v, "other")
        .unwrap_err()
        .contains("no module `other`"));
}

#[test]
fn memories_are_counted_from_their_declarations() {
    let v = "\
    reg  [31:0] c0_mem0 [0:63]; // row bits 31:0
    reg  [5:0] c0_wa0, c0_ra0; // depth
    reg [7:0] names[0:255];
    reg flag_q;
    reg  q [0:3];
    // reg [3:0] commented [0:1];
    register_file [3] <= 1'b0;
    wire [3:0] w [0:1];
";
    assert_eq!(count_memories(v), 3);
    let texts = [v, v];
    assert_eq!(MemoryMapping::for_design(texts, 6), MemoryMapping::InPlace);
    assert_eq!(
        MemoryMapping::for_design(texts, 5),
        MemoryMapping::OwnModule
    );
}

#[test]
fn many_memories_are_mapped_in_their_own_module() {
    let m = manifest(&[("clk", "input", 1)]);
    for (target, cmd, top, label) in [
        (
            Target::Xc6v,
            "synth_xilinx -family xc6v -top core_top -flatten -noiopad -noclkbuf",
            "core_top",
            "map_memory",
        ),
        (
            Target::Ecp5,
            "synth_ecp5 -top qrtl_ooc -json build/ecp5_ooc.json",
            "qrtl_ooc",
            "map_ram",
        ),
    ] {
        let s = yosys_script(&m, target, MemoryMapping::OwnModule);
        assert!(
            s.contains(&format!(
                "{cmd} -run :{label}\n\
                 submod -name qrtl_memories {top}/t:$mem_v2\n\
                 {cmd} -run {label}:map_ffram\n\
                 flatten\n\
                 {cmd} -run map_ffram:\n\
                 tee -q -o build/{target}_stat.json stat -json\n"
            )),
            "{s}"
        );
    }
}
