//! File-driven tests of the stack passes and the emitter.
//!
//! * `tests/passes/PASS/NAME.txt`: a query file whose first line may be
//!   `# flags: --mode paths --cluster-size 2` (also `--ordered`,
//!   `--disable-pass P`). The pipeline runs with every
//!   stack pass up to and including PASS (later ones skipped, `naming`
//!   always last) and the stack IR dump is compared with `NAME.expected`.
//! * `tests/emit/NAME.txt`: a query file (same flags line, which may also
//!   split the cluster's processes: `--assigns MAX/PIECE`,
//!   `--mem-groups MAX/PIECE`, `--max-or-chain N`, see `RtlShape`;
//!   `--bytes-per-clock B`; `--ns PREFIX=URI`, repeatable: namespace-aware
//!   names, whose namespace unit `qrtl_ns.v` is a golden file too);
//!   the full pipeline runs and the generated cluster and top Verilog are
//!   compared with the golden files `tests/emit/NAME/*.v`.
//!   Their step comments (`// /a[2]: q1 (line 4) step 2`) must name the
//!   query steps they implement: each re-parses as step S of query N.
//!
//! Regenerate after an intended change with
//!
//! ```text
//! QRTL_BLESS=1 cargo test --release --test pass_cases
//! ```
//!
//! and review the diff.

mod common;

use common::{design_from_text_ns, raw_design_from_text};
use qrtl_xpath::emit::xpath::{RtlShape, SplitRule};
use qrtl_xpath::engine::{build_xpath_hw, XpathHw, XpathHwOptions};
use qrtl_xpath::ir::xpath::{Mode, Namespaces, SiblingOrder};
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::passes::registry::{stack_passes, StackPassConfig};
use qrtl_xpath::syntax::{ast, parse_query, parse_query_file, SourceQuery};
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
    let mut bytes_per_clock = 1;
    let mut ns: Vec<String> = Vec::new();
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
                "--bytes-per-clock" => bytes_per_clock = number(it.next()) as u32,
                "--ns" => ns.push(it.next().expect("PREFIX=URI").to_string()),
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
    // `--ns PREFIX=URI`: namespace-aware names (the namespace unit).
    let mut design = if ns.is_empty() {
        raw_design_from_text(&name, &text, mode)
    } else {
        let opts = NsOptions::new(Namespaces::Xpath, &ns).expect("bindings");
        design_from_text_ns(&name, &text, mode, &opts)
    };
    design.order = order;
    build_xpath_hw(
        &name,
        &design,
        &XpathHwOptions {
            passes,
            shape,
            bytes_per_clock,
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
            // The SAX parser and comparators have their own tests; the
            // namespace unit's text depends on the design's URIs.
            if file.name.starts_with("qrtl_xpath_") || file.name == "qrtl_ns.v" {
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

/// A step comment of the RTL: `// STEP: qN (line L) step S, ...` (a
/// node) or `// NAME_pop STEP: qN (line L) step S...; needs ...` (a pop
/// node).
struct StepComment {
    /// STEP, and for a pop node the `text()` conditions it needs after it.
    step: String,
    pop: bool,
    /// (query, line, step) of each origin listed.
    origins: Vec<Result<(usize, usize, usize), String>>,
}

fn step_comment(line: &str) -> Option<StepComment> {
    let c = line.trim_start().strip_prefix("// ")?;
    let (head, rest) = c.split_once(": q")?;
    if !rest.contains(" step ") {
        return None;
    }
    let (origins, needs) = match rest.split_once("; needs ") {
        Some((o, n)) => (o, Some(n)),
        None => (rest, None),
    };
    let (mut step, pop) = match head.split_once(' ') {
        Some((name, s)) if name.ends_with("_pop") => (s.to_string(), true),
        _ => (head.to_string(), false),
    };
    for x in needs.into_iter().flat_map(|n| n.split(", ")) {
        if x.starts_with('[') {
            step.push_str(x);
        }
    }
    let origin = |o: &str| -> Option<(usize, usize, usize)> {
        let (q, r) = o.strip_prefix('q')?.split_once(" (line ")?;
        let (l, s) = r.split_once(") step ")?;
        Some((q.parse().ok()?, l.parse().ok()?, s.parse().ok()?))
    };
    let origins = ("q".to_string() + origins)
        .split(", ")
        .filter(|o| !o.starts_with("and "))
        .map(|o| origin(o).ok_or_else(|| o.to_string()))
        .collect();
    Some(StepComment { step, pop, origins })
}

/// The `--ns PREFIX=URI` bindings of a case file's flags line, and `xml`.
fn ns_flags(text: &str) -> Vec<(String, String)> {
    let mut out = vec![(
        "xml".to_string(),
        "http://www.w3.org/XML/1998/namespace".to_string(),
    )];
    let flags = text.lines().next().and_then(|l| l.strip_prefix("# flags:"));
    let mut it = flags.unwrap_or("").split_whitespace();
    while let Some(f) = it.next() {
        if f == "--ns" {
            let (p, u) = it
                .next()
                .and_then(|b| b.split_once('='))
                .expect("PREFIX=URI");
            out.push((p.to_string(), u.to_string()));
        }
    }
    out
}

/// A comment's step with namespace-aware names written back with the
/// case's prefixes: `{URI}local` as `p:local`, `*[namespace-uri() = "URI"]`
/// as `p:*`.
fn unclark(step: &str, bindings: &[(String, String)]) -> String {
    let mut s = step.to_string();
    for (p, u) in bindings {
        s = s.replace(&format!("*[namespace-uri() = \"{u}\"]"), &format!("{p}:*"));
        s = s.replace(&format!("{{{u}}}"), &format!("{p}:"));
    }
    s
}

/// Whether `got` (a comment's step) is step `s` of `q`; else a message
/// naming `q` and its steps at depth `s`.
fn check_step(got: &ast::Step, pop: bool, q: &SourceQuery, s: usize) -> Result<(), String> {
    let mut all = Vec::new();
    steps_by_depth(&q.ast.steps, 1, &mut all);
    let (got_open, got_text) = comment_predicates(got);
    let at_s: Vec<&ast::Step> = all.iter().filter(|(d, _)| *d == s).map(|x| x.1).collect();
    let same = at_s.iter().any(|want| {
        let (open, text) = comment_predicates(want);
        want.axis == got.axis
            && want.test == got.test
            && open == got_open
            && (!pop || text == got_text)
    });
    if same {
        return Ok(());
    }
    let sep = |a| if a == ast::Axis::Child { "/" } else { "//" };
    let wants: Vec<String> = at_s.iter().map(|w| format!("{}{w}", sep(w.axis))).collect();
    Err(format!(
        "is not step {s} of q{} `{}` (step {s}: {})",
        q.id,
        q.text.trim(),
        wants.join(" or ")
    ))
}

/// The step comments of the golden cases name their steps right: in every
/// node and pop-node step comment ([`StepComment`]) STEP parses as a
/// one-step query equal to step S of query N (axis, name test, predicates
/// but twig branches; a pop node's with the `text()` tests it needs).
#[test]
fn step_comments_name_their_steps() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emit");
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in case_files(&root) {
        let case = f.file_stem().unwrap().to_string_lossy().to_string();
        let qf = parse_query_file(&case, &fs::read_to_string(&f).expect("case file"));
        let (queries, diags) = (qf.queries, qf.diagnostics);
        assert!(diags.is_empty(), "{case}: the queries parse");
        let hw = compile(&f, None);
        let bindings = ns_flags(&fs::read_to_string(&f).expect("case file"));
        for file in hw
            .rtl
            .files
            .iter()
            .filter(|f| f.name.starts_with("qrtl_xpath_c"))
        {
            for (ln, line) in file.text.lines().enumerate() {
                let Some(c) = step_comment(line) else {
                    continue;
                };
                let at = format!("{case}: {} line {}: `{}`", file.name, ln + 1, line.trim());
                let got = match parse_query(&unclark(&c.step, &bindings)) {
                    Ok(q) if q.steps.len() == 1 => q.steps.into_iter().next().unwrap(),
                    Ok(_) => {
                        failures.push(format!("{at}: `{}` is not one step", c.step));
                        continue;
                    }
                    Err(e) => {
                        failures.push(format!(
                            "{at}: `{}` does not parse: {}",
                            c.step, e[0].message
                        ));
                        continue;
                    }
                };
                for o in &c.origins {
                    let (qn, line_no, s) = match o {
                        Ok(o) => *o,
                        Err(o) => {
                            failures.push(format!("{at}: origin `{o}` unreadable"));
                            continue;
                        }
                    };
                    let Some(q) = queries.iter().find(|q| q.id == qn) else {
                        failures.push(format!("{at}: no query q{qn}"));
                        continue;
                    };
                    if q.line != line_no {
                        failures.push(format!("{at}: q{qn} is on line {}, not {line_no}", q.line));
                    }
                    if let Err(e) = check_step(&got, c.pop, q, s) {
                        failures.push(format!("{at}: `{}` {e}", c.step));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} step comments found");
}
