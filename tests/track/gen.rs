//! Seeded random FlexTrack patterns and trajectories for the tests
//! (included with `#[path = "track/gen.rs"] mod gen;`).
#![allow(dead_code)]

use rand::rngs::SmallRng;
use rand::Rng;

pub const REGIONS: &[&str] = &["A", "B", "C", "D"];

pub fn region(rng: &mut SmallRng) -> &'static str {
    REGIONS[rng.gen_range(0..REGIONS.len())]
}

fn time(rng: &mut SmallRng) -> String {
    let a = rng.gen_range(0..30u32);
    if rng.gen_bool(0.3) {
        format!("{a}")
    } else {
        format!("({a}:{})", a + rng.gen_range(0..15u32))
    }
}

/// A pattern of 1..=max_items items over A-D, variables @x/@y (with region
/// sets 60% of the time), every item kind and predicate form.
pub fn pattern(rng: &mut SmallRng, max_items: usize) -> String {
    let n = rng.gen_range(1..=max_items);
    let vars = ["x", "y"];
    let mut items = Vec::new();
    let mut used = Vec::new();
    let var = |rng: &mut SmallRng, used: &mut Vec<&str>| {
        let v = vars[rng.gen_range(0..2)];
        if !used.contains(&v) {
            used.push(v);
        }
        format!("@{v}")
    };
    for _ in 0..n {
        let r = rng.gen_range(0..100);
        let item = if r < 25 {
            region(rng).to_string()
        } else if r < 45 {
            var(rng, &mut used)
        } else if r < 55 {
            "?".to_string()
        } else if r < 65 {
            "?+".to_string()
        } else if r < 75 {
            "?*".to_string()
        } else if r < 83 {
            format!("!{}", region(rng))
        } else {
            let op = if rng.gen_bool(0.5) {
                "inside"
            } else {
                "overlap"
            };
            let target = if rng.gen_bool(0.4) {
                var(rng, &mut used)
            } else {
                region(rng).to_string()
            };
            if rng.gen_bool(0.8) {
                format!("[{op}, {target}, {}]", time(rng))
            } else {
                format!("[{op}, {target}]")
            }
        };
        items.push(item);
    }
    let mut p = items.join(".");
    for v in used {
        if rng.gen_bool(0.6) {
            let k = rng.gen_range(1..=3);
            let set: Vec<&str> = (0..k).map(|_| region(rng)).collect();
            p.push_str(&format!(" {{@{v}: {}}}", set.join(", ")));
        }
    }
    p
}

/// `trajs` trajectories of 1..=max_samples samples (`t0`, `t1`, ...): regions
/// A-D, sometimes E (named by no pattern) or no region, repeated samples.
pub fn csv(rng: &mut SmallRng, trajs: usize, max_samples: usize) -> String {
    let mut out = String::new();
    for t in 0..trajs {
        let n = rng.gen_range(1..=max_samples);
        let mut ts = rng.gen_range(0..4u32);
        for _ in 0..n {
            let r = match rng.gen_range(0..10) {
                0 => "",
                1 => "E",
                _ => region(rng),
            };
            out.push_str(&format!("t{t},{ts},{r}\n"));
            ts += rng.gen_range(1..4u32);
        }
    }
    out
}

/// Two variables around an aggregator (ch. 4.4.6's false-positive shape),
/// e.g. `@x.@y.?+.@x.@y {@x: A, B, C} {@y: B, D}`, with random order and sets.
pub fn two_variable_pattern(rng: &mut SmallRng) -> String {
    let agg = if rng.gen_bool(0.5) { "?+" } else { "?*" };
    let head = if rng.gen_bool(0.5) { "@x.@y" } else { "@y.@x" };
    let tail = if rng.gen_bool(0.5) { "@x.@y" } else { "@y.@x" };
    let mut p = format!("{head}.{agg}.{tail}");
    for v in ["x", "y"] {
        if rng.gen_bool(0.7) {
            let k = rng.gen_range(2..=4);
            let set: Vec<&str> = (0..k).map(|_| region(rng)).collect();
            p.push_str(&format!(" {{@{v}: {}}}", set.join(", ")));
        }
    }
    p
}
