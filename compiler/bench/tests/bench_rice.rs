//! `qrtl-bench-rice --quick`: the Golomb-Rice bench runs, both software
//! decoders agree with its input, and every row of the report is there.

use std::process::Command;

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
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
    // The hardware section: one design per arch, and the area row.
    for arch in ["nostall", "single", "serial"] {
        let n = stdout(&o)
            .lines()
            .filter(|l| l.starts_with(&format!("| {arch} | 8 | 3 |")))
            .count();
        assert_eq!(n, 1, "{arch}: {}", stdout(&o));
    }
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.starts_with("| nostall | 8 | 2 |")),
        "area row: {}",
        stdout(&o)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_qrtl-bench-rice"))
        .arg("--fast")
        .output()
        .expect("run qrtl-bench-rice");
    assert_eq!(o.status.code(), Some(2));
}
