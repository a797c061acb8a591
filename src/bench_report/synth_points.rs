//! Synthesis points: a written project → `qrtl_compiler::synth::synthesize`
//! (one at a time, `jobs: 1`), through the cache of `cache.rs`.

use crate::cache::{
    key_seeds, now_stamp, point_key, project_rtl, CachedPoint, PointData, SynthCache,
};
use crate::Options;
use qrtl_compiler::synth::{synthesize, SynthOptions, Target};
use std::path::{Path, PathBuf};

/// Where a point's figures come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// Synthesized by this run.
    Measured(String),
    /// Taken from the cache (measured at that date).
    Cached(String),
}

impl Source {
    /// The table cell.
    pub fn cell(&self) -> String {
        match self {
            Source::Measured(d) => format!("measured {d}"),
            Source::Cached(d) => format!("cache ({d})"),
        }
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
    seeds: u32,
    no_synth: bool,
    /// Targets whose tool is missing: later points are not tried again.
    missing_tool: Vec<(Target, String)>,
    pub measured_now: usize,
}

impl Runner {
    pub fn new(o: &Options, _root: &Path) -> Result<Runner, String> {
        let path = o.out.join("data/synth-points.json");
        Ok(Runner {
            cache: SynthCache::load(&path)?,
            path,
            seeds: o.seeds,
            no_synth: o.no_synth,
            missing_tool: Vec::new(),
            measured_now: 0,
        })
    }

    /// Seeds for `target` as the key and the command line use them.
    pub fn seeds(&self, target: Target) -> u32 {
        key_seeds(target.name(), self.seeds)
    }

    /// The `qrtl synth` command for a project directory.
    pub fn command(&self, dir: &str, target: Target) -> String {
        match self.seeds(target) {
            0 => format!("qrtl synth {dir} --target {target}"),
            s => format!("qrtl synth {dir} --target {target} --seeds {s}"),
        }
    }

    /// Synthesize the project in `dir` for `target`, or take the point from
    /// the cache.
    pub fn point(&mut self, label: &str, dir: &Path, target: Target) -> Outcome {
        let rtl = match project_rtl(dir) {
            Ok(r) => r,
            Err(e) => return Outcome::NotMeasured(format!("project unreadable: {e}")),
        };
        let seeds = self.seeds(target);
        let key = point_key(&rtl, target.name(), seeds);
        if let Some(p) = self.cache.points.get(&key) {
            eprintln!("   {label} {target}: from the cache ({})", p.measured);
            return Outcome::Done(p.data.clone(), Source::Cached(p.measured.clone()));
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
                let measured = now_stamp();
                self.cache.points.insert(
                    key,
                    CachedPoint {
                        label: label.to_string(),
                        target: target.name().to_string(),
                        seeds,
                        measured: measured.clone(),
                        data: data.clone(),
                    },
                );
                self.measured_now += 1;
                if let Err(e) = self.cache.save(&self.path) {
                    eprintln!("warning: {e}");
                }
                eprintln!(
                    "   {label} {target}: {} LUT-eq, Fmax {:?} MHz, {:.0} s",
                    data.lut_eq, data.fmax_mhz, data.seconds
                );
                Outcome::Done(data, Source::Measured(measured))
            }
            Err(e) => {
                let msg = format!("synthesis failed: {e}");
                eprintln!("   {label} {target}: {msg}");
                if matches!(e, qrtl_compiler::synth::SynthError::ToolMissing(_)) {
                    self.missing_tool.push((target, msg.clone()));
                }
                Outcome::NotMeasured(msg)
            }
        }
    }
}
