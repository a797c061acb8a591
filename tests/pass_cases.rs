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
use qrtl_xpath::emit::xpath::{RtlShape, SplitRule};
use qrtl_xpath::hw::{build_xpath_hw, XpathHw, XpathHwOptions};
use qrtl_xpath::ir::xpath::{Mode, SiblingOrder};
use qrtl_xpath::passes::registry::{stack_passes, StackPassConfig};
use qrtl_xpath::syntax::{ast, parse_query, parse_query_file};
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

/// A predicate of a step as the RTL comments can show it: `[N]` is
/// `[position() = N]`, an `and` list is its terms one by one, and a path
/// term (a twig branch, its own nodes) is left out.
fn comment_predicates(step: &ast::Step) -> (Vec<String>, Vec<String>) {
    let (mut open, mut text) = (Vec::new(), Vec::new());
    for p in &step.predicates {
        match &p.kind {
            ast::PredicateKind::Index(n) => open.push(format!(
                "{:?}",
                ast::ExprKind::Position {
                    op: ast::CmpOp::Eq,
                    value: *n
                }
            )),
            ast::PredicateKind::And(exprs) => {
                for e in exprs {
                    let shown = format!("{:?}", strip_spans(&e.kind));
                    match e.kind {
                        ast::ExprKind::Path(_) => {}
                        ast::ExprKind::Text { .. } => text.push(shown),
                        _ => open.push(shown),
                    }
                }
            }
        }
    }
    (open, text)
}

/// An expression without the spans of its literal (they differ between
/// the query file and the comment).
fn strip_spans(k: &ast::ExprKind) -> ast::ExprKind {
    let clean = |c: &Option<ast::Comparison>| {
        c.as_ref().map(|c| ast::Comparison {
            span: Default::default(),
            ..c.clone()
        })
    };
    match k {
        ast::ExprKind::Attr { name, cmp } => ast::ExprKind::Attr {
            name: name.clone(),
            cmp: clean(cmp),
        },
        ast::ExprKind::Text { cmp } => ast::ExprKind::Text { cmp: clean(cmp) },
        other => other.clone(),
    }
}

/// Every step of a query's tree with its 1-based depth (the `step S` of
/// the RTL comments: the main path's steps and those of predicate paths).
fn steps_by_depth<'a>(steps: &'a [ast::Step], depth: usize, out: &mut Vec<(usize, &'a ast::Step)>) {
    for (i, s) in steps.iter().enumerate() {
        out.push((depth + i, s));
        for p in &s.predicates {
            if let ast::PredicateKind::And(exprs) = &p.kind {
                for e in exprs {
                    if let ast::ExprKind::Path(b) = &e.kind {
                        steps_by_depth(b, depth + i + 1, out);
                    }
                }
            }
        }
    }
}

/// The step comments of the golden cases name their steps right: in every
/// `// STEP: qN (line L) step S, ...` (a node) and `// NAME_pop STEP: qN
/// (line L) step S...; needs ...` (a pop node, whose `text()` conditions
/// are in its needs), STEP parses as a one-step query equal to step S of
/// query N (axis, name test, predicates but twig branches).
#[test]
fn step_comments_name_their_steps() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emit");
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in case_files(&root) {
        let case = f.file_stem().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(&f).expect("case file");
        let (queries, diags) = parse_query_file(&case, &text);
        assert!(diags.is_empty(), "{case}: the queries parse");
        let hw = compile(&f, None);
        for file in hw
            .rtl
            .files
            .iter()
            .filter(|f| f.name.starts_with("qrtl_xpath_c"))
        {
            for (ln, line) in file.text.lines().enumerate() {
                let Some(c) = line.trim_start().strip_prefix("// ") else {
                    continue;
                };
                let Some((head, origins)) = c.split_once(": q") else {
                    continue;
                };
                if !origins.contains(" step ") {
                    continue;
                }
                let (origins, needs) = match origins.split_once("; needs ") {
                    Some((o, n)) => (o, Some(n)),
                    None => (origins, None),
                };
                // A pop node's comment starts with its name.
                let (step_text, pop) = match head.split_once(' ') {
                    Some((name, s)) if name.ends_with("_pop") => (s.to_string(), true),
                    _ => (head.to_string(), false),
                };
                let at = format!("{case}: {} line {}: `{}`", file.name, ln + 1, line.trim());
                let mut shown = step_text.clone();
                if let Some(n) = needs {
                    for x in n.split(", ").filter(|x| x.starts_with('[')) {
                        shown.push_str(x);
                    }
                }
                let got = match parse_query(&shown) {
                    Ok(q) if q.steps.len() == 1 => q.steps.into_iter().next().unwrap(),
                    Ok(_) => {
                        failures.push(format!("{at}: `{shown}` is not one step"));
                        continue;
                    }
                    Err(e) => {
                        failures.push(format!("{at}: `{shown}` does not parse: {e:?}"));
                        continue;
                    }
                };
                let (got_open, got_text) = comment_predicates(&got);
                for o in ("q".to_string() + origins).split(", ") {
                    if o.starts_with("and ") {
                        continue;
                    }
                    let parsed = o
                        .strip_prefix('q')
                        .and_then(|o| o.split_once(" (line "))
                        .and_then(|(q, r)| {
                            let (l, s) = r.split_once(") step ")?;
                            Some((
                                q.parse::<usize>().ok()?,
                                l.parse::<usize>().ok()?,
                                s.parse::<usize>().ok()?,
                            ))
                        });
                    let Some((qn, line_no, s)) = parsed else {
                        failures.push(format!("{at}: origin `{o}` unreadable"));
                        continue;
                    };
                    let Some(q) = queries.iter().find(|q| q.id == qn) else {
                        failures.push(format!("{at}: no query q{qn}"));
                        continue;
                    };
                    if q.line != line_no {
                        failures.push(format!("{at}: q{qn} is on line {}, not {line_no}", q.line));
                    }
                    let mut all = Vec::new();
                    steps_by_depth(&q.ast.steps, 1, &mut all);
                    let same = all.iter().filter(|(d, _)| *d == s).any(|(_, want)| {
                        let (open, text) = comment_predicates(want);
                        want.axis == got.axis
                            && want.test == got.test
                            && open == got_open
                            && (!pop || text == got_text)
                    });
                    if !same {
                        let wants: Vec<String> = all
                            .iter()
                            .filter(|(d, _)| *d == s)
                            .map(|(_, w)| {
                                let sep = if w.axis == ast::Axis::Child {
                                    "/"
                                } else {
                                    "//"
                                };
                                format!("{sep}{w}")
                            })
                            .collect();
                        failures.push(format!(
                            "{at}: `{shown}` is not step {s} of q{qn} `{}` (step {s}: {})",
                            q.text.trim(),
                            wants.join(" or ")
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} step comments found");
}
