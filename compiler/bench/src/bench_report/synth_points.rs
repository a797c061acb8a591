//! Synthesis points: a written project → `qrtl_core::synth::synthesize`
//! (one at a time, `jobs: 1`), through the cache of `cache.rs`.

use crate::cache::{
    key_seeds, memory_mapping, now_stamp, point_key, project_rtl, CachedPoint, PointData,
    StoppedPoint, SynthCache,
};
use crate::Options;
use qrtl_core::synth::{synthesize, SynthOptions, Target};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Most seeds a cached point is looked up with (see [`Runner::point`]).
const MAX_SEEDS: u32 = 8;

/// Where a point's figures come from.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    /// Synthesized by this run; else taken from the cache.
    pub this_run: bool,
    /// When it was measured, `YYYY-MM-DD HH:MM UTC`.
    pub measured: String,
    /// The tools of its flow that were not YoWASP builds
    /// ([`CachedPoint::native_tools`]).
    pub native_tools: Vec<String>,
}

impl Source {
    /// `p`'s source; tool paths inside the checkout `root` relative to it.
    fn of(p: &CachedPoint, this_run: bool, root: &Path) -> Source {
        let prefix = format!("{}/", root.display());
        Source {
            this_run,
            measured: p.measured.clone(),
            native_tools: p
                .native_tools
                .iter()
                .map(|t| t.replacen(&prefix, "", 1))
                .collect(),
        }
    }

    /// The table cell.
    pub fn cell(&self) -> String {
        let mut c = if self.this_run {
            format!("measured {}", self.measured)
        } else {
            format!("cache ({})", self.measured)
        };
        if !self.native_tools.is_empty() {
            c.push_str(&format!(
                "; not the pinned YoWASP build: {}",
                self.native_tools.join(", ")
            ));
        }
        c
    }
}

/// One point's outcome.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Done(PointData, Source),
    /// Not measured, and why (skipped by an option, or the flow failed).
    NotMeasured(String),
}

pub struct Runner {
    cache: SynthCache,
    path: PathBuf,
    no_synth: bool,
    /// Each tool run's time limit (`--time-limit`).
    time_limit: Option<Duration>,
    /// Targets whose tool is missing: later points are not tried again.
    missing_tool: Vec<(Target, String)>,
    pub measured_now: usize,
    /// The checkout: tool paths inside it are shown relative to it.
    root: PathBuf,
}

impl Runner {
    pub fn new(o: &Options, root: &Path) -> Result<Runner, String> {
        let path = o.out.join("data/synth-points.json");
        Ok(Runner {
            cache: SynthCache::load(&path)?,
            path,
            no_synth: o.no_synth,
            time_limit: o.time_limit,
            missing_tool: Vec::new(),
            measured_now: 0,
            root: root.to_path_buf(),
        })
    }

    /// The `qrtl synth` command for a project directory.
    pub fn command(&self, dir: &str, target: Target, seeds: u32) -> String {
        let mut c = match key_seeds(target.name(), seeds) {
            0 => format!("qrtl synth {dir} --target {target}"),
            s => format!("qrtl synth {dir} --target {target} --seeds {s}"),
        };
        if let Some(l) = self.time_limit {
            c.push_str(&format!(" --time-limit {}", minutes_text(l)));
        }
        c
    }

    /// Synthesize the project in `dir` for `target`, or take the point from
    /// the cache: measured with `seeds` seeds, or with more (up to 8).
    /// With `skip` (why), a point not in the cache is not synthesized.
    pub fn point(
        &mut self,
        label: &str,
        dir: &Path,
        target: Target,
        seeds: u32,
        skip: Option<&str>,
    ) -> Outcome {
        let rtl = match project_rtl(dir) {
            Ok(r) => r,
            Err(e) => return Outcome::NotMeasured(format!("project unreadable: {e}")),
        };
        let seeds = key_seeds(target.name(), seeds);
        let memories = memory_mapping(&rtl);
        let key = point_key(&rtl, target.name(), seeds, memories);
        // A point measured with more seeds than asked for answers too, and
        // the one with the most seeds is taken (its median is the surer);
        // area-only targets (0 seeds) have the one key.
        let most = if seeds == 0 { 0 } else { MAX_SEEDS.max(seeds) };
        if let Some(p) = (seeds..=most)
            .rev()
            .map(|s| point_key(&rtl, target.name(), s, memories))
            .find_map(|k| self.cache.points.get(&k))
        {
            eprintln!("   {label} {target}: from the cache ({})", p.measured);
            return Outcome::Done(p.data.clone(), Source::of(p, false, &self.root));
        }
        // A flow stopped at a time limit answers unless this run allows
        // it longer (a run with no limit, or a longer one, tries again).
        if let Some(st) = (seeds..=most)
            .rev()
            .map(|s| point_key(&rtl, target.name(), s, memories))
            .find_map(|k| self.cache.stopped.get(&k))
        {
            let retry = !self.no_synth
                && skip.is_none()
                && st.misfit.is_none()
                && self.time_limit.is_none_or(|l| l.as_secs() > st.limit_s);
            if !retry {
                eprintln!("   {label} {target}: {}", stopped_text(st));
                return Outcome::NotMeasured(stopped_text(st));
            }
        }
        if let Some(why) = skip {
            return Outcome::NotMeasured(why.to_string());
        }
        if self.no_synth {
            return Outcome::NotMeasured("not in the cache and `--no-synth` given".into());
        }
        if let Some((_, e)) = self.missing_tool.iter().find(|(t, _)| *t == target) {
            return Outcome::NotMeasured(e.clone());
        }
        eprintln!(
            "   {label} {target}: synthesizing ({} seed(s))",
            seeds.max(1)
        );
        let opts = SynthOptions {
            seeds: seeds.max(1),
            jobs: 1,
            progress: true,
            time_limit: self.time_limit,
            ..SynthOptions::new(target)
        };
        match synthesize(dir, &opts) {
            Ok(r) => {
                let data = PointData {
                    luts: r.luts,
                    lut_eq: r.lut_eq,
                    ffs: r.ffs,
                    lutram: r.lutram,
                    bram: r.bram,
                    fmax_mhz: r.fmax_mhz,
                    fmax_seeds: r.fmax_seeds.clone(),
                    seconds: r.seconds,
                };
                let point = CachedPoint {
                    label: label.to_string(),
                    target: target.name().to_string(),
                    seeds,
                    measured: now_stamp(),
                    data: data.clone(),
                    native_tools: r.native_tools.clone(),
                };
                let source = Source::of(&point, true, &self.root);
                self.cache.stopped.remove(&key);
                self.cache.points.insert(key, point);
                self.measured_now += 1;
                self.save();
                eprintln!(
                    "   {label} {target}: {} LUT-eq, Fmax {:?} MHz, {:.0} s",
                    data.lut_eq, data.fmax_mhz, data.seconds
                );
                Outcome::Done(data, source)
            }
            Err(qrtl_core::synth::SynthError::TimeLimit { what, limit, .. }) => {
                self.stopped(key, label, target, seeds, what, limit.as_secs(), None)
            }
            Err(ref e @ qrtl_core::synth::SynthError::DoesNotFit { ref what, .. }) => {
                self.stopped(key, label, target, seeds, what.clone(), 0, e.misfit())
            }
            Err(e) => {
                let msg = format!("synthesis failed: {e}");
                eprintln!("   {label} {target}: {msg}");
                if matches!(e, qrtl_core::synth::SynthError::ToolMissing(_)) {
                    self.missing_tool.push((target, msg.clone()));
                }
                Outcome::NotMeasured(msg)
            }
        }
    }
}

impl Runner {
    /// Record a point whose flow was stopped (at the time limit, or as not
    /// fitting the part) and report it.
    #[allow(clippy::too_many_arguments)]
    fn stopped(
        &mut self,
        key: String,
        label: &str,
        target: Target,
        seeds: u32,
        what: String,
        limit_s: u64,
        misfit: Option<String>,
    ) -> Outcome {
        let st = StoppedPoint {
            label: label.to_string(),
            target: target.name().to_string(),
            seeds,
            measured: now_stamp(),
            what,
            limit_s,
            misfit,
        };
        let msg = stopped_text(&st);
        eprintln!("   {label} {target}: {msg}");
        self.cache.stopped.insert(key, st);
        self.save();
        Outcome::NotMeasured(msg)
    }

    /// Write the cache, merged with the file as it is now: another run may
    /// have added points since this one started.
    fn save(&mut self) {
        match SynthCache::load(&self.path) {
            Ok(mut disk) => {
                for k in self.cache.points.keys() {
                    disk.stopped.remove(k);
                }
                disk.points.extend(std::mem::take(&mut self.cache.points));
                disk.stopped.extend(std::mem::take(&mut self.cache.stopped));
                self.cache = disk;
            }
            Err(e) => eprintln!("warning: {e} (keeping this run's points only)"),
        }
        if let Err(e) = self.cache.save(&self.path) {
            eprintln!("warning: {e}");
        }
    }
}

/// A limit in minutes as `--time-limit` takes it: `20`, `0.5`.
fn minutes_text(d: Duration) -> String {
    let m = d.as_secs_f64() / 60.0;
    if m.fract() == 0.0 {
        format!("{m:.0}")
    } else {
        format!("{m}")
    }
}

/// The report's words for a stopped point.
fn stopped_text(st: &StoppedPoint) -> String {
    if let Some(why) = &st.misfit {
        return format!("{why} ({} stopped, {})", st.what, st.measured);
    }
    format!(
        "not finished: {} was still running at the time limit of {} and was stopped, {}",
        st.what,
        qrtl_core::synth::duration_text(Duration::from_secs(st.limit_s)),
        st.measured
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{utc_stamp, CachedPoint};
    use qrtl_core::synth::MemoryMapping;

    /// A scratch directory holding a one-module project: (scratch
    /// directory, project, its RTL as the cache keys it).
    fn tiny_project(tag: &str) -> (PathBuf, PathBuf, Vec<(String, Vec<u8>)>) {
        let tmp =
            std::env::temp_dir().join(format!("qrtl-bench-report-{tag}-{}", std::process::id()));
        let proj = tmp.join("proj");
        std::fs::create_dir_all(proj.join("rtl")).unwrap();
        std::fs::write(proj.join("rtl/top.v"), "module top; endmodule\n").unwrap();
        std::fs::write(proj.join("files.f"), "rtl/top.v\n").unwrap();
        let rtl = project_rtl(&proj).unwrap();
        (tmp, proj, rtl)
    }

    #[test]
    fn cached_points_answer_and_no_synth_never_runs_tools() {
        let (tmp, proj, rtl) = tiny_project("r");
        let data = PointData {
            luts: 7,
            lut_eq: 7,
            ffs: 1,
            lutram: 0,
            bram: 0.0,
            fmax_mhz: Some(200.0),
            fmax_seeds: vec![190.0, 200.0, 210.0],
            seconds: 1.0,
        };
        let mut cache = SynthCache::default();
        cache.points.insert(
            point_key(&rtl, "ecp5", 3, MemoryMapping::InPlace),
            CachedPoint {
                label: "top".into(),
                target: "ecp5".into(),
                seeds: 3,
                measured: utc_stamp(0),
                data: data.clone(),
                native_tools: vec![
                    "nextpnr-ecp5: /usr/bin/nextpnr-ecp5".into(),
                    format!("yosys: {}/bench/tools/y", tmp.display()),
                ],
            },
        );
        // The same RTL with one seed: asked for one, the 3-seed point still
        // answers (the most seeds win).
        let one_seed = PointData {
            fmax_mhz: Some(230.0),
            fmax_seeds: vec![230.0],
            ..data.clone()
        };
        cache.points.insert(
            point_key(&rtl, "ecp5", 1, MemoryMapping::InPlace),
            CachedPoint {
                label: "top".into(),
                target: "ecp5".into(),
                seeds: 1,
                measured: utc_stamp(60),
                data: one_seed,
                native_tools: Vec::new(),
            },
        );
        let out = tmp.join("bench");
        cache.save(&out.join("data/synth-points.json")).unwrap();
        let o = crate::parse_args(
            &[
                "--no-synth".to_string(),
                "--out".into(),
                out.display().to_string(),
            ],
            &tmp,
        )
        .unwrap();
        let mut r = Runner::new(&o, &tmp).unwrap();
        // Asked for 1 or 3 seeds: the 3-seed point answers.
        for seeds in [1, 3] {
            assert_eq!(
                r.point("top", &proj, Target::Ecp5, seeds, Some("skipped")),
                Outcome::Done(
                    data.clone(),
                    Source {
                        this_run: false,
                        measured: utc_stamp(0),
                        native_tools: vec![
                            "nextpnr-ecp5: /usr/bin/nextpnr-ecp5".into(),
                            "yosys: bench/tools/y".into(),
                        ],
                    }
                )
            );
        }
        // The table says which tool was not the pinned build.
        match r.point("top", &proj, Target::Ecp5, 3, None) {
            Outcome::Done(_, src) => assert_eq!(
                src.cell(),
                "cache (1970-01-01 00:00 UTC); not the pinned YoWASP build: \
                 nextpnr-ecp5: /usr/bin/nextpnr-ecp5, yosys: bench/tools/y"
            ),
            other => panic!("{other:?}"),
        }
        // Asked for more seeds than measured, or another target: not in the
        // cache, and --no-synth runs nothing.
        for (t, seeds) in [(Target::Ecp5, 5), (Target::Xc6v, 0)] {
            match r.point("top", &proj, t, seeds, None) {
                Outcome::NotMeasured(why) => assert!(why.contains("--no-synth"), "{why}"),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(r.measured_now, 0);
        assert_eq!(
            r.command("bench/out/x", Target::Ecp5, 3),
            "qrtl synth bench/out/x --target ecp5 --seeds 3"
        );
        assert_eq!(
            r.command("bench/out/x", Target::Xc6v, 3),
            "qrtl synth bench/out/x --target xc6v"
        );
        let _ = std::fs::remove_dir_all(&tmp);
    }

    #[test]
    fn stopped_points_are_reported_until_a_longer_limit_is_given() {
        let (tmp, proj, rtl) = tiny_project("s");
        let mut cache = SynthCache::default();
        cache.stopped.insert(
            point_key(&rtl, "ecp5", 1, MemoryMapping::InPlace),
            StoppedPoint {
                label: "top".into(),
                target: "ecp5".into(),
                seeds: 1,
                measured: utc_stamp(0),
                what: "nextpnr-ecp5 seed 1/1".into(),
                limit_s: 1200,
                misfit: None,
            },
        );
        let out = tmp.join("bench");
        let path = out.join("data/synth-points.json");
        cache.save(&path).unwrap();
        assert_eq!(
            SynthCache::load(&path).unwrap(),
            cache,
            "the file keeps them"
        );
        let runner = |extra: &[&str]| {
            let mut args: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
            args.extend(["--out".to_string(), out.display().to_string()]);
            Runner::new(&crate::parse_args(&args, &tmp).unwrap(), &tmp).unwrap()
        };
        let stopped = "not finished: nextpnr-ecp5 seed 1/1 was still running at the time \
                       limit of 20 min and was stopped, 1970-01-01 00:00 UTC";
        // From the cache only, or with a limit no longer than the one it
        // was stopped at: reported as stopped, nothing run.
        for extra in [
            &["--no-synth"][..],
            &["--time-limit", "20"],
            &["--time-limit", "5"],
        ] {
            let mut r = runner(extra);
            assert_eq!(
                r.point("top", &proj, Target::Ecp5, 1, None),
                Outcome::NotMeasured(stopped.into()),
                "{extra:?}"
            );
            assert_eq!(r.measured_now, 0);
        }
        // A skipped point is still reported as stopped.
        assert_eq!(
            runner(&["--time-limit", "30"]).point("top", &proj, Target::Ecp5, 1, Some("skipped")),
            Outcome::NotMeasured(stopped.into())
        );
        assert_eq!(
            runner(&["--time-limit", "20"]).command("d", Target::Ecp5, 1),
            "qrtl synth d --target ecp5 --seeds 1 --time-limit 20"
        );
        // A point that does not fit the part is never tried again, whatever
        // the limit.
        let misfit = StoppedPoint {
            misfit: Some(
                "the design does not fit the LFE5U-85F: TRELLIS_COMB 98488 of 83640 (117%)".into(),
            ),
            limit_s: 0,
            ..cache.stopped.values().next().unwrap().clone()
        };
        cache
            .stopped
            .insert(point_key(&rtl, "ecp5", 1, MemoryMapping::InPlace), misfit);
        cache.save(&path).unwrap();
        for extra in [&["--no-synth"][..], &["--time-limit", "30"], &[]] {
            let mut r = runner(extra);
            assert_eq!(
                r.point("top", &proj, Target::Ecp5, 1, None),
                Outcome::NotMeasured(
                    "the design does not fit the LFE5U-85F: TRELLIS_COMB 98488 of 83640 (117%) \
                     (nextpnr-ecp5 seed 1/1 stopped, 1970-01-01 00:00 UTC)"
                        .into()
                ),
                "{extra:?}"
            );
            assert_eq!(r.measured_now, 0);
        }
        // An old file without the `stopped` table still loads.
        std::fs::write(&path, "{\"points\": {}}").unwrap();
        assert!(SynthCache::load(&path).unwrap().stopped.is_empty());
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
