//! `qrtl rice encode|decode` (SPEC §2, §5): file formats, diagnostics with
//! FILE:LINE:COL, exit codes 0 / 1 (bad input) / 2 (usage), no panics.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn qrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qrtl"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run qrtl")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qrtl-cli-rice-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

#[test]
fn encode_then_decode_round_trips_with_every_option() {
    let d = temp_dir("round");
    let ints = write(
        &d,
        "ints.txt",
        b"5\n2\n\n# a comment\n  1000\t\r\n0\n70000\n",
    );
    let want = "5\n2\n1000\n0\n70000\n";
    for k in ["0", "3", "16", "63"] {
        for unary in ["zeros", "ones"] {
            for order in ["msb", "lsb"] {
                let s = d.join(format!("s-{k}-{unary}-{order}.gr"));
                let s = s.to_str().unwrap();
                let opts = ["--k", k, "--unary", unary, "--bit-order", order];
                let mut a = vec!["rice", "encode", &ints, "-o", s];
                a.extend(opts);
                let o = qrtl(&a);
                assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
                let mut a = vec!["rice", "decode", s];
                a.extend(opts);
                let o = qrtl(&a);
                assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
                assert_eq!(stdout(&o), want);
                assert_eq!(stderr(&o), "", "padding is not reported");
            }
        }
    }
}

#[test]
fn largest_value_and_the_encoders_quotient_limit() {
    let d = temp_dir("max");
    let ints = write(&d, "m.txt", b"0\n18446744073709551615\n");
    let s = d.join("m.gr");
    let s = s.to_str().unwrap();
    // k = 32: quotient 2^32 - 1, a 512 MiB code: too slow for a test; k = 40
    // and 63 write short codes.
    for k in ["40", "63"] {
        let o = qrtl(&["rice", "encode", "--k", k, &ints, "-o", s]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let o = qrtl(&["rice", "decode", "--k", k, s]);
        assert_eq!(stdout(&o), "0\n18446744073709551615\n");
    }
    // k = 31: quotient 2^33 - 1, above the limit 2^32: refused, nothing written.
    std::fs::remove_file(s).unwrap();
    let o = qrtl(&["rice", "encode", "--k", "31", &ints, "-o", s]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("m.txt:2:1: error[E0504]: quotient 8589934591 is above"),
        "{}",
        stderr(&o)
    );
    assert!(!Path::new(s).exists());
}

#[test]
fn exact_stream_bytes() {
    let d = temp_dir("bytes");
    let ints = write(&d, "i.txt", b"5\n2\n");
    let s = d.join("s.gr");
    let o = qrtl(&[
        "rice",
        "encode",
        "--k",
        "2",
        &ints,
        "-o",
        s.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&s).unwrap(), vec![0b0101_1100]);
    let o = qrtl(&[
        "rice",
        "encode",
        "--k",
        "2",
        "--unary",
        "ones",
        &ints,
        "-o",
        s.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&s).unwrap(), vec![0b1001_0101]);
}

#[test]
fn bad_integer_lines_name_file_line_and_column() {
    let d = temp_dir("bad");
    let ints = write(
        &d,
        "bad.txt",
        b"1\n  12x\n-3\n99999999999999999999999\n300\n7\n",
    );
    let s = d.join("s.gr");
    let o = qrtl(&[
        "rice",
        "encode",
        "--k",
        "2",
        "--width",
        "8",
        &ints,
        "-o",
        s.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    for want in [
        "bad.txt:2:5: error[E0501]: expected a decimal integer, found \"x\"",
        "bad.txt:3:1: error[E0501]",
        "bad.txt:4:1: error[E0502]",
        "bad.txt:5:1: error[E0503]: 300 does not fit the 8-bit output width",
        "4 errors; no stream written",
    ] {
        assert!(e.contains(want), "missing {want:?} in\n{e}");
    }
    assert!(!s.exists(), "no stream on error");
    assert!(!e.contains("panicked"));
}

#[test]
fn empty_file_gives_an_empty_stream() {
    let d = temp_dir("empty");
    let ints = write(&d, "e.txt", b"\n# nothing\n");
    let s = d.join("s.gr");
    let o = qrtl(&[
        "rice",
        "encode",
        "--k",
        "4",
        &ints,
        "-o",
        s.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&s).unwrap(), Vec::<u8>::new());
    let o = qrtl(&["rice", "decode", "--k", "4", s.to_str().unwrap()]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), ""));
}

#[test]
fn truncated_stream_is_a_note_and_complete_codes_are_printed() {
    let d = temp_dir("trunc");
    // k = 4: 3 = 1 0011, then 40 = 00 1 1000 cut after "001": the byte
    // 1001 1001 ends inside the second code's remainder.
    let s = write(&d, "t.gr", &[0x99]);
    let o = qrtl(&["rice", "decode", "--k", "4", &s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "3\n");
    assert!(
        stderr(&o).contains("t.gr: note: 3 trailing bits at bit 5 do not complete a code"),
        "{}",
        stderr(&o)
    );
    // Three bytes of continuation bits: more than padding.
    let s = write(&d, "z.gr", &[0x80, 0, 0]);
    let o = qrtl(&["rice", "decode", "--k", "0", &s]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "0\n");
    assert!(
        stderr(&o).contains("note: 23 trailing bits at bit 1"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn quotient_overflow_is_an_error_with_the_bit_offset() {
    let d = temp_dir("overflow");
    // k = 2, width 4: largest quotient 3. Codes: 1 01 (1), then 0000 1 ..
    // (quotient 4 at bit 3).
    let s = write(&d, "o.gr", &[0b1010_0001, 0b1100_0000]);
    let o = qrtl(&["rice", "decode", "--k", "2", "--width", "4", &s]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "1\n", "values before the error are printed");
    assert!(
        stderr(&o)
            .contains("o.gr: error: quotient overflow at bit 3 (code 1): quotient 4 is above 3"),
        "{}",
        stderr(&o)
    );
    // With 64-bit values the same stream decodes.
    let o = qrtl(&["rice", "decode", "--k", "2", &s]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "1\n19\n");
}

#[test]
fn usage_errors_exit_2() {
    let d = temp_dir("usage");
    let s = write(&d, "s.gr", &[0xff]);
    for args in [
        vec!["rice", "decode", s.as_str()],
        vec!["rice", "decode", "--k", "64", s.as_str()],
        vec!["rice", "decode", "--k", "9", "--width", "8", s.as_str()],
        vec!["rice", "decode", "--k", "1", "--unary", "twos", s.as_str()],
        vec![
            "rice",
            "decode",
            "--k",
            "1",
            "--bit-order",
            "middle",
            s.as_str(),
        ],
        vec!["rice", "decode", "--k", "1", "--width", "65", s.as_str()],
        vec!["rice", "encode", "--k", "1", s.as_str()],
    ] {
        let o = qrtl(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn unreadable_inputs_exit_1() {
    let d = temp_dir("missing");
    let missing = d.join("nope").display().to_string();
    let o = qrtl(&["rice", "decode", "--k", "1", &missing]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot read stream"), "{}", stderr(&o));
    let o = qrtl(&["rice", "encode", "--k", "1", &missing, "-o", "/dev/null"]);
    assert_eq!(o.status.code(), Some(1));
    let ints = write(&d, "i.txt", b"1\n");
    let out = d.join("no-such-dir").join("s.gr").display().to_string();
    let o = qrtl(&["rice", "encode", "--k", "1", &ints, "-o", &out]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot write the stream"),
        "{}",
        stderr(&o)
    );
    let bad = write(&d, "b.txt", b"1\n2\xff\n");
    let o = qrtl(&["rice", "encode", "--k", "1", &bad, "-o", &out]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("b.txt:2:2: error: integer file is not valid UTF-8"),
        "{}",
        stderr(&o)
    );
}

// ---- qrtl rice compile | sim (the hardware decoder) ------------------------

#[test]
fn compile_writes_a_project_with_ports_and_parameters() {
    let d = temp_dir("compile");
    for arch in ["nostall", "single", "serial"] {
        let out = d.join(arch);
        let o = qrtl(&[
            "rice",
            "compile",
            "--k",
            "3",
            "--width",
            "16",
            "--arch",
            arch,
            "--value-bits",
            "20",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{arch}: {}", stderr(&o));
        for f in [
            "manifest.json",
            "README.md",
            "rtl/qrtl_rice_top.v",
            "qrtl_rice.core",
        ] {
            assert!(out.join(f).is_file(), "{arch}: {f}");
        }
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(m["kind"], "rice");
        assert_eq!(m["parameters"]["arch"], arch);
        assert_eq!(m["parameters"]["k"], 3);
        assert_eq!(m["parameters"]["width"], 16);
        let lanes = if arch == "nostall" { 4 } else { 1 };
        assert_eq!(m["output"]["lanes"], lanes, "{arch}");
        let ports = m["ports"].as_array().unwrap();
        let width = |name: &str| {
            ports
                .iter()
                .find(|p| p["name"] == name)
                .unwrap_or_else(|| panic!("{arch}: port {name}"))["width"]
                .as_u64()
                .unwrap()
        };
        assert_eq!(width("s_axis_tdata"), 16);
        assert_eq!(width("s_axis_tkeep"), 2);
        assert_eq!(width("m_axis_tdata"), lanes * 21 + 2 + 120);
        // The project simulates as written (its sources and ports).
        let (spec, rtl) = qrtl_core::sim::project_sources(&out).unwrap();
        assert_eq!((spec.in_data_bits, spec.in_keep), (16, true));
        assert_eq!(rtl.len(), if arch == "serial" { 2 } else { 4 });
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn compile_and_sim_usage_errors_exit_2() {
    let d = temp_dir("hwusage");
    let out = d.join("p");
    let o_ = out.to_str().unwrap();
    for (args, msg) in [
        (vec!["--k", "3", "--width", "12"], "multiple of 8"),
        (vec!["--k", "3", "--width", "136"], "multiple of 8"),
        (vec!["--k", "3", "--width", "0"], "multiple of 8"),
        (
            vec!["--k", "20", "--value-bits", "16"],
            "above --value-bits",
        ),
        (vec!["--k", "64"], "--k"),
        (vec!["--k", "3", "--arch", "fast"], "--arch"),
        (vec!["--k", "3", "--value-bits", "0"], "--value-bits"),
        (vec!["--k", "3", "--clock-mhz", "0"], "clock"),
    ] {
        let mut a = vec!["rice", "compile"];
        a.extend(&args);
        a.extend(["-o", o_]);
        let o = qrtl(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
    let o = qrtl(&["rice", "sim", "--k", "3", "--width", "12", "x.bin"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = qrtl(&["rice", "sim", "--k", "3"]);
    assert_eq!(o.status.code(), Some(2), "no stream: {}", stderr(&o));
    let o = qrtl(&["rice", "sim", "--k", "3", "--out-stall", "100", "x.bin"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A missing stream is bad input.
    let o = qrtl(&["rice", "sim", "--k", "3", "/nonexistent/s.bin"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/nonexistent/s.bin: error: cannot read stream"));
    let _ = std::fs::remove_dir_all(&d);
}

/// `sim` prints exactly what `decode` prints (stdout, stderr, exit code),
/// for our own encoder's streams and for cut and overflowing ones.
#[test]
fn sim_prints_what_decode_prints() {
    let d = temp_dir("simdecode");
    let ints: String = (0..300u64)
        .map(|i| format!("{}\n", (i * 7919) % 97 + if i % 50 == 0 { 900 } else { 0 }))
        .collect();
    let ints = write(&d, "ints.txt", ints.as_bytes());
    let code = [
        "--k",
        "2",
        "--unary",
        "ones",
        "--bit-order",
        "lsb",
        "--width",
        "24",
    ];
    let stream = d.join("s.bin");
    let s = stream.to_str().unwrap();
    let mut a = vec!["rice", "encode"];
    a.extend(&code);
    a.extend([ints.as_str(), "-o", s]);
    assert_eq!(qrtl(&a).status.code(), Some(0));
    let full = std::fs::read(&stream).unwrap();
    let cut = write(&d, "cut.bin", &full[..full.len() / 2]);
    // q = 2^22: above the largest quotient of 24-bit values with k = 2.
    let mut over = full[..10].to_vec();
    over.extend(std::iter::repeat_n(0xff, (1 << 22) / 8 + 2));
    over.push(0x00);
    let over = write(&d, "over.bin", &over);
    for file in [s, cut.as_str(), over.as_str()] {
        let mut dec = vec!["rice", "decode"];
        dec.extend(&code);
        dec.push(file);
        let want = qrtl(&dec);
        for arch in ["nostall", "single", "serial"] {
            let mut sim = vec!["rice", "sim", "--arch", arch, "--value-bits", "24"];
            sim.extend(&code);
            sim.push(file);
            if arch == "serial" && file == over.as_str() {
                continue; // 4 Mbit one bit per cycle: left to the other archs
            }
            let got = qrtl(&sim);
            assert_eq!(got.status.code(), want.status.code(), "{arch} {file}");
            assert_eq!(stdout(&got), stdout(&want), "{arch} {file}");
            assert_eq!(stderr(&got), stderr(&want), "{arch} {file}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn sim_stats_report_cycles_and_bits_and_stalls_change_nothing() {
    let d = temp_dir("simstats");
    let bytes: Vec<u8> = (0..200u32).map(|i| (i * 37 % 251) as u8).collect();
    let a = write(&d, "a.bin", &bytes);
    let b = write(&d, "b.bin", &bytes[..13]);
    let base = [
        "rice",
        "sim",
        "--k",
        "5",
        "--width",
        "64",
        "--value-bits",
        "32",
    ];
    let mut args = base.to_vec();
    args.extend(["--stats", a.as_str(), b.as_str()]);
    let o = qrtl(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stats: Vec<serde_json::Value> = stderr(&o)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(stats.len(), 2);
    // ceil(bits / 64) beats plus the pipeline's constant latency:
    // ceil(N / (k + 1)) insertion blocks + 10 = 11 + 10 at N = 64, k = 5.
    let latency = 64u64.div_ceil(5 + 1) + 10;
    assert_eq!(stats[0]["bits"], 1600);
    assert_eq!(stats[0]["cycles"], 25 + latency);
    assert_eq!(stats[1]["bits"], 104);
    assert_eq!(stats[1]["cycles"], 2 + latency);
    let mut stalled = base.to_vec();
    stalled.extend(["--out-stall", "60", "--in-gap", "30", "--stall-seed", "9"]);
    stalled.extend([a.as_str(), b.as_str()]);
    let s = qrtl(&stalled);
    assert_eq!(s.status.code(), Some(0));
    assert_eq!(stdout(&s), stdout(&o));
    // Icarus agrees, and a waveform can be written.
    let vcd = d.join("w.vcd");
    let mut ic = base.to_vec();
    ic.extend([
        "--simulator",
        "icarus",
        "--trace",
        vcd.to_str().unwrap(),
        b.as_str(),
    ]);
    let i = qrtl(&ic);
    assert_eq!(i.status.code(), Some(0), "{}", stderr(&i));
    let mut vb = base.to_vec();
    vb.push(b.as_str());
    assert_eq!(stdout(&i), stdout(&qrtl(&vb)));
    assert!(std::fs::read_to_string(&vcd)
        .unwrap()
        .contains("$enddefinitions"));
    std::fs::remove_dir_all(&d).unwrap();
}
