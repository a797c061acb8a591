//! The FlexTrack software engines.
//!
//! * `exact` against a brute-force matcher written here from the SPEC §4.2
//!   definition alone (it reads the syntax tree, enumerates every start,
//!   every length of `?+`/`?*` and every binding; no code shared with the
//!   engine), on seeded random patterns and trajectories. `QRTL_SOAK=N`
//!   multiplies the number of rounds.
//! * The hardware strategy models against it: `expand` equals it, `buffer`
//!   reports a superset, `or` a superset of `buffer` (ch. 4.4.6), and
//!   `buffer` is exact for a pattern with at most one variable or without
//!   `?+`/`?*` (ch. 4.4.4-4.4.5).
//! * Hand-written cases `tests/track/cases/NAME.case` (patterns, CSV,
//!   expected answers), one per construct; see `cases_by_file`.

use qrtl_track::engine::{code_trajectories, design_for, read_trajectories, CodedTrajectory};
use qrtl_track::input::Event;
use qrtl_track::ir::{Strategy, TrackDesign};
use qrtl_track::lower::{build_engines, EngineConfig};
use qrtl_track::refmodel::exact::ExactEngine;
use qrtl_track::refmodel::hw::HwModel;
use qrtl_track::syntax::ast::{ItemKind, Pattern as Ast, Target, TimeOp};
use qrtl_track::syntax::parse_pattern_file;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

#[path = "track/gen.rs"]
mod gen;
use std::collections::HashMap;

// ---------------------------------------------------------------- brute force

/// An event by region name (`None`: no region).
#[derive(Clone, Debug)]
struct NamedEvent {
    region: Option<String>,
    entry: u32,
    exit: u32,
}

fn time_ok(op: TimeOp, from: u32, to: u32, e: &NamedEvent) -> bool {
    match op {
        TimeOp::Overlap => !(e.exit < from || e.entry > to),
        TimeOp::Inside => from <= e.entry && e.exit <= to,
    }
}

/// Does the run `events[pos..end]` match `items[k..]` exactly, with `env`?
fn brute_items(
    ast: &Ast,
    k: usize,
    events: &[NamedEvent],
    pos: usize,
    end: usize,
    env: &mut HashMap<String, String>,
) -> bool {
    if k == ast.items.len() {
        return pos == end;
    }
    let one = |env: &mut HashMap<String, String>,
               var: Option<&str>,
               region: Option<&str>|
     -> Option<Option<String>> {
        // Returns Some(binding added) if the event fits.
        let e = &events[pos];
        if let Some(r) = region {
            return (e.region.as_deref() == Some(r)).then_some(None);
        }
        let v = var.expect("a variable");
        let name = e.region.as_deref()?;
        if let Some(c) = ast.constraints.iter().find(|c| c.var.text == v) {
            if !c.regions.iter().any(|r| r.text == name) {
                return None;
            }
        }
        match env.get(v) {
            Some(b) if b != name => None,
            Some(_) => Some(None),
            None => {
                env.insert(v.to_string(), name.to_string());
                Some(Some(v.to_string()))
            }
        }
    };
    match &ast.items[k].kind {
        ItemKind::Star => (pos..=end).any(|p| brute_items(ast, k + 1, events, p, end, env)),
        ItemKind::Plus => (pos + 1..=end).any(|p| brute_items(ast, k + 1, events, p, end, env)),
        kind => {
            if pos >= end {
                return false;
            }
            let e = &events[pos];
            let fits = match kind {
                ItemKind::Any => Some(None),
                ItemKind::Not(n) => (e.region.as_deref() != Some(n.text.as_str())).then_some(None),
                ItemKind::Region(n) => one(env, None, Some(&n.text)),
                ItemKind::Var(n) => one(env, Some(&n.text), None),
                ItemKind::Pred { op, target, time } => {
                    let t_ok = time.is_none_or(|t| time_ok(*op, t.from, t.to, e));
                    if !t_ok {
                        None
                    } else {
                        match target {
                            Target::Region(n) => one(env, None, Some(&n.text)),
                            Target::Var(n) => one(env, Some(&n.text), None),
                        }
                    }
                }
                ItemKind::Star | ItemKind::Plus => unreachable!(),
            };
            match fits {
                None => false,
                Some(added) => {
                    let ok = brute_items(ast, k + 1, events, pos + 1, end, env);
                    if let Some(v) = added {
                        env.remove(&v);
                    }
                    ok
                }
            }
        }
    }
}

/// SPEC §4.2: some contiguous run of events is consumed item by item.
fn brute(ast: &Ast, events: &[NamedEvent]) -> bool {
    for start in 0..events.len() {
        for end in start..=events.len() {
            if brute_items(ast, 0, events, start, end, &mut HashMap::new()) {
                return true;
            }
        }
    }
    false
}

// ---------------------------------------------------------------- helpers

struct Loaded {
    asts: Vec<Ast>,
    design: TrackDesign,
    trajs: Vec<CodedTrajectory>,
}

fn load(patterns: &str, csv: &str) -> Loaded {
    let (parsed, diags) = parse_pattern_file("p", patterns);
    assert!(
        diags.is_empty(),
        "{}",
        diags.iter().map(|d| d.render()).collect::<String>()
    );
    let mut design = design_for("p", &parsed, None).expect("lowers");
    let (trajs, names) = read_trajectories(&[("t.csv".into(), csv.into())], None).expect("reads");
    let trajs = code_trajectories(&mut design, &trajs, &names);
    Loaded {
        asts: parsed.into_iter().map(|p| p.ast).collect(),
        design,
        trajs,
    }
}

fn named(d: &TrackDesign, events: &[Event]) -> Vec<NamedEvent> {
    events
        .iter()
        .map(|e| NamedEvent {
            region: d.region_name(e.region).map(str::to_string),
            entry: e.entry,
            exit: e.exit,
        })
        .collect()
}

/// Answers per trajectory: brute, exact, or, buffer, expand.
fn answers(l: &Loaded) -> Vec<[Vec<usize>; 5]> {
    let exact = ExactEngine::new(&l.design);
    let sets: Vec<_> = [Strategy::Or, Strategy::Buffer, Strategy::Expand]
        .iter()
        .map(|&s| {
            let set = build_engines(
                "p",
                &l.design,
                &EngineConfig {
                    strategy: s,
                    cluster_size: 0,
                },
            )
            .expect("engines");
            set.verify().expect("engine set verifies");
            set
        })
        .collect();
    let mut models: Vec<HwModel> = sets.iter().map(|s| HwModel::new(&l.design, s)).collect();
    l.trajs
        .iter()
        .map(|t| {
            let ne = named(&l.design, &t.events);
            let b: Vec<usize> = l
                .asts
                .iter()
                .enumerate()
                .filter(|(_, a)| brute(a, &ne))
                .map(|(i, _)| i)
                .collect();
            [
                b,
                exact.matches(&t.events),
                models[0].run(&t.events),
                models[1].run(&t.events),
                models[2].run(&t.events),
            ]
        })
        .collect()
}

fn subset(a: &[usize], b: &[usize]) -> bool {
    a.iter().all(|x| b.contains(x))
}

// ---------------------------------------------------------------- random

fn differential(seed: u64, rounds: usize) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut fp = [0usize; 2];
    let mut total = 0;
    for round in 0..rounds {
        let np = rng.gen_range(1..=8);
        let mut patterns: Vec<String> = (0..np).map(|_| gen::pattern(&mut rng, 6)).collect();
        if round % 3 == 0 {
            patterns.push(gen::two_variable_pattern(&mut rng));
        }
        let text = patterns.join("\n");
        let csv = gen::csv(&mut rng, 6, 10);
        let l = load(&text, &csv);
        for (t, [b, ex, or, buf, exp]) in answers(&l).into_iter().enumerate() {
            let ctx = || {
                format!("seed {seed} round {round} trajectory t{t}\npatterns:\n{text}\ncsv:\n{csv}")
            };
            assert_eq!(ex, b, "exact != brute force: {}", ctx());
            assert_eq!(exp, ex, "expand != exact: {}", ctx());
            assert!(subset(&ex, &buf), "buffer misses a match: {}", ctx());
            assert!(subset(&buf, &or), "or misses a buffer match: {}", ctx());
            for (i, a) in l.asts.iter().enumerate() {
                let vars = a.variables().len();
                let aggs = a
                    .items
                    .iter()
                    .any(|it| matches!(it.kind, ItemKind::Plus | ItemKind::Star));
                if vars <= 1 || !aggs {
                    assert_eq!(
                        buf.contains(&i),
                        ex.contains(&i),
                        "buffer not exact for pattern {i}: {}",
                        ctx()
                    );
                }
            }
            fp[0] += or.len() - ex.len();
            fp[1] += buf.len() - ex.len();
            total += ex.len();
        }
    }
    // The strategies must actually differ somewhere (else the test is weak).
    assert!(
        fp[0] > 0 && total > 0,
        "no or false positives in {rounds} rounds: {fp:?}"
    );
    eprintln!(
        "seed {seed}: {total} exact matches, false positives or {} buffer {}",
        fp[0], fp[1]
    );
}

#[test]
fn random_against_brute_force() {
    let soak: usize = std::env::var("QRTL_SOAK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for seed in 0..4 {
        differential(0x7ac0 + seed, 1500 * soak);
    }
}

// ---------------------------------------------------------------- cases

/// `tests/track/cases/NAME.case`:
///
/// ```text
/// patterns:
/// A.@x.B.@x {@x: C, D, E}
/// trajectories:
/// t1,1,A
/// ...
/// expect:
/// t1: 0 2          exact answer (expand must equal it; brute force too)
/// t1 or: 0 1 2     optional: what a strategy reports, exactly
/// ```
#[test]
fn cases_by_file() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/track/cases");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    let mut n = 0;
    for path in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "case"))
    {
        n += 1;
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let sec = |h: &str| -> String {
            let start = text
                .find(&format!("{h}:\n"))
                .unwrap_or_else(|| panic!("{name}: no {h}:"))
                + h.len()
                + 2;
            let rest = &text[start..];
            let end = ["patterns:\n", "trajectories:\n", "expect:\n"]
                .iter()
                .filter_map(|s| rest.find(s))
                .min()
                .unwrap_or(rest.len());
            rest[..end].to_string()
        };
        let l = load(&sec("patterns"), &sec("trajectories"));
        let got = answers(&l);
        let mut checked = 0;
        for line in sec("expect")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let (head, ids) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("{name}: bad expect line {line}"));
            let ids: Vec<usize> = ids.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let mut h = head.split_whitespace();
            let traj = h.next().unwrap();
            let which = h.next().unwrap_or("exact");
            let ti = l
                .trajs
                .iter()
                .position(|t| t.id == traj)
                .unwrap_or_else(|| panic!("{name}: no {traj}"));
            let [b, ex, or, buf, exp] = &got[ti];
            let actual = match which {
                "exact" => {
                    assert_eq!(b, ex, "{name} {traj}: brute force != exact");
                    assert_eq!(exp, ex, "{name} {traj}: expand != exact");
                    ex
                }
                "or" => or,
                "buffer" => buf,
                "expand" => exp,
                w => panic!("{name}: unknown strategy {w}"),
            };
            assert_eq!(actual, &ids, "{name}: {traj} {which}");
            checked += 1;
        }
        assert!(checked > 0, "{name}: no expectations");
    }
    assert!(n >= 8, "case files missing");
}
