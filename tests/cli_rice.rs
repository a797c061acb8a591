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

#[test]
fn bench_quick_runs_and_both_decoders_agree() {
    // The bench asserts that both decoders reproduce its input; this only
    // checks that it runs and reports every row (no timing is asserted).
    let o = Command::new(env!("CARGO_BIN_EXE_qrtl-bench-rice"))
        .arg("--quick")
        .output()
        .expect("run qrtl-bench-rice");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.starts_with("| 3 |") || l.starts_with("| 8 |"))
        .map(str::to_string)
        .collect();
    assert_eq!(rows.len(), 4, "{}", stdout(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_qrtl-bench-rice"))
        .arg("--fast")
        .output()
        .expect("run qrtl-bench-rice");
    assert_eq!(o.status.code(), Some(2));
}
