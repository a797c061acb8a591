//! File-driven tests of the stack passes and the emitter.
//!
//! * `tests/passes/PASS/NAME.txt`: a query file whose first line may be
//!   `# flags: --mode paths --cluster-size 2` (also `--ordered`,
//!   `--disable-pass P`). The pipeline runs with every
//!   stack pass up to and including PASS (later ones skipped, `naming`
//!   always last) and the stack IR dump is compared with `NAME.expected`.
//! * `tests/emit/NAME.txt`: a query file (same flags line, which may also
//!   split the cluster's processes: `--assigns MAX/PIECE`,
//!   `--mem-groups MAX/PIECE`, `--max-or-chain N`, see `RtlShape`);
//!   the full pipeline runs and the generated cluster and top Verilog are
//!   compared with the golden files `tests/emit/NAME/*.v`.
//!
//! Regenerate after an intended change with
//!
//! ```text
//! QRTL_BLESS=1 cargo test --release --test pass_cases
//! ```
//!
//! and review the diff.

mod common;

use common::design_from_text;
use qrtl_xpath::engine::{build_xpath_hw, XpathHw, XpathHwOptions};
use qrtl_xpath::emit::xpath::{RtlShape, SplitRule};
use qrtl_xpath::ir::xpath::{Mode, SiblingOrder};
use qrtl_xpath::passes::registry::{stack_passes, StackPassConfig};
use std::fs;
use std::path::{Path, PathBuf};

fn bless() -> bool {
    std::env::var_os("QRTL_BLESS").is_some_and(|v| v != "0" && !v.is_empty())
}

/// Compile a case file with its flags; `upto`: skip the stack passes after it.
fn compile(path: &Path, upto: Option<&str>) -> XpathHw {
    let text = fs::read_to_string(path).expect("case file");
    let mut mode = Mode::Holistic;
    let mut order = SiblingOrder::Unordered;
    let mut passes = StackPassConfig::default();
    let mut shape = RtlShape::default();
    let number = |v: Option<&str>| -> usize {
        v.and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{}: a number after the flag", path.display()))
    };
    let rule = |v: Option<&str>| -> SplitRule {
        let (max, piece) = v
            .and_then(|v| v.split_once('/'))
            .unwrap_or_else(|| panic!("{}: MAX/PIECE after the flag", path.display()));
        SplitRule {
            max: number(Some(max)),
            piece: number(Some(piece)),
        }
    };
    if let Some(flags) = text.lines().next().and_then(|l| l.strip_prefix("# flags:")) {
        let mut it = flags.split_whitespace();
        while let Some(f) = it.next() {
            match f {
                "--mode" => {
                    mode = match it.next() {
                        Some("paths") => Mode::Paths,
                        Some("pairs") => Mode::Pairs,
                        _ => Mode::Holistic,
                    }
                }
                "--cluster-size" => passes.cluster_size = number(it.next()),
                "--assigns" => shape.assigns = rule(it.next()),
                "--mem-groups" => shape.mem_groups = rule(it.next()),
                "--max-or-chain" => shape.max_or_chain = number(it.next()),
                "--disable-pass" => passes.disabled.push(it.next().expect("pass").to_string()),
                "--ordered" => order = SiblingOrder::Ordered,
                other => panic!("{}: unknown flag {other}", path.display()),
            }
        }
    }
    if let Some(last) = upto {
        let names: Vec<&str> = stack_passes().iter().map(|p| p.name()).collect();
        let at = names.iter().position(|n| *n == last).expect("known pass");
        for n in &names[at + 1..] {
            if *n != "naming" {
                passes.disabled.push(n.to_string());
            }
        }
    }
    let name = path.display().to_string();
    let mut design = design_from_text(&name, &text, mode);
    design.order = order;
    build_xpath_hw(
        &name,
        &design,
        &XpathHwOptions {
            passes,
            shape,
            ..XpathHwOptions::default()
        },
    )
    .unwrap_or_else(|d| panic!("{}", d[0].render()))
}

fn case_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|_| panic!("{} exists", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

fn compare(path: &Path, got: &str, failures: &mut Vec<String>) {
    if bless() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, got).unwrap();
        return;
    }
    match fs::read_to_string(path) {
        Ok(want) if want == got => {}
        Ok(want) => failures.push(format!(
            "{} differs:\n{}",
            path.display(),
            first_difference(&want, got)
        )),
        Err(_) => failures.push(format!(
            "{} missing (run with QRTL_BLESS=1)",
            path.display()
        )),
    }
}

fn first_difference(want: &str, got: &str) -> String {
    for (i, (w, g)) in want.lines().zip(got.lines()).enumerate() {
        if w != g {
            return format!("line {}:\n  want: {w}\n  got:  {g}", i + 1);
        }
    }
    format!(
        "lengths differ: want {} lines, got {}",
        want.lines().count(),
        got.lines().count()
    )
}

#[test]
fn pass_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/passes");
    let mut failures = Vec::new();
    let mut count = 0;
    for pass in stack_passes() {
        let dir = root.join(pass.name());
        if pass.name() == "naming" {
            continue;
        }
        let files = case_files(&dir);
        assert!(!files.is_empty(), "no cases for pass {}", pass.name());
        for f in files {
            let hw = compile(&f, Some(pass.name()));
            compare(
                &f.with_extension("expected"),
                &hw.stack.to_string(),
                &mut failures,
            );
            count += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(count >= 5);
}

#[test]
fn golden_rtl() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emit");
    let mut failures = Vec::new();
    let files = case_files(&root);
    assert!(!files.is_empty());
    for f in files {
        let hw = compile(&f, None);
        let dir = f.with_extension("");
        for file in &hw.rtl.files {
            // The SAX parser and comparators have their own tests.
            if file.name.starts_with("qrtl_xpath_") {
                compare(&dir.join(&file.name), &file.text, &mut failures);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
