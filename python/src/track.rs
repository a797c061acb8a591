//! `qrtl.TrackFilter`: FlexTrack patterns over trajectories, matched as
//! `qrtl track filter` matches them (exact, or what a hardware strategy
//! reports).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use qrtl_track::engine::{
    map_from_text, patterns_from_text, source_from_patterns, trajectories_from_texts,
    CodedTrajectory, TrackSource,
};
use qrtl_track::ir::Strategy;
use qrtl_track::lower::{build_engines, EngineConfig};
use qrtl_track::refmodel::exact::ExactEngine;
use qrtl_track::refmodel::hw::HwModel;

use crate::errors::{failure, Kind};
use crate::inputs::{Input, Source};

/// One trajectory's answer, the fields of `qrtl track filter`'s JSON line.
#[pyclass(module = "qrtl", frozen, get_all, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackResult {
    pub trajectory: String,
    /// Matched pattern ids (their index in the pattern file), ascending.
    pub matched: Vec<usize>,
    /// Region events of the trajectory (what `qrtl track sim` and the
    /// hardware's status word report).
    pub events: usize,
}

#[pymethods]
impl TrackResult {
    fn __repr__(&self) -> String {
        format!(
            "TrackResult(trajectory={:?}, matched={:?}, events={})",
            self.trajectory, self.matched, self.events
        )
    }
}

/// Patterns lowered against a region map, and the strategy to report.
#[pyclass(module = "qrtl", frozen)]
pub struct TrackFilter {
    source: TrackSource,
    /// `None`: the exact answer (SPEC §4).
    strategy: Option<Strategy>,
}

fn parse_variables(v: &str) -> PyResult<Option<Strategy>> {
    match v {
        "exact" => Ok(None),
        "or" => Ok(Some(Strategy::Or)),
        "buffer" => Ok(Some(Strategy::Buffer)),
        "expand" => Ok(Some(Strategy::Expand)),
        _ => Err(PyValueError::new_err(format!(
            "variables: expected \"exact\", \"or\", \"buffer\" or \"expand\", got {v:?}"
        ))),
    }
}

#[pymethods]
impl TrackFilter {
    /// `patterns` and `regions` (a YAML grid map): str text or os.PathLike.
    #[new]
    #[pyo3(signature = (patterns, regions = None, variables = "exact"))]
    fn new(
        py: Python<'_>,
        patterns: &Bound<'_, PyAny>,
        regions: Option<&Bound<'_, PyAny>>,
        variables: &str,
    ) -> PyResult<Self> {
        let strategy = parse_variables(variables)?;
        let query = |f| failure(py, f, Kind::Query);
        let map = match regions {
            None => None,
            Some(r) => {
                let (name, text) =
                    Source::extract(r, "regions")?.load(py, "regions", "region map")?;
                Some(map_from_text(&name, &text).map_err(query)?)
            }
        };
        let (name, text) =
            Source::extract(patterns, "patterns")?.load(py, "patterns", "pattern file")?;
        let parsed = patterns_from_text(&name, &text).map_err(query)?;
        let source = source_from_patterns(name, &parsed, map).map_err(query)?;
        Ok(TrackFilter { source, strategy })
    }

    /// Number of patterns (ids are 0..len).
    fn __len__(&self) -> usize {
        self.source.design.patterns.len()
    }

    /// Match the trajectories of CSV inputs (`id,time,region` or
    /// `id,time,x,y` rows; bytes, or a file as str or os.PathLike), ids
    /// unique across inputs; one result per trajectory, in input order.
    #[pyo3(signature = (*inputs))]
    fn filter(&self, py: Python<'_>, inputs: Vec<Bound<'_, PyAny>>) -> PyResult<Vec<TrackResult>> {
        let mut texts = Vec::with_capacity(inputs.len());
        for (i, obj) in inputs.iter().enumerate() {
            let input = Input::extract(obj, "trajectories")?;
            let name = input
                .name()
                .unwrap_or_else(|| format!("<trajectories #{i}>"));
            let text = String::from_utf8(input.read()?)
                .map_err(|_| PyValueError::new_err(format!("{name}: not valid UTF-8")))?;
            texts.push((name, text));
        }
        let mut source = self.source.clone();
        let trajs = trajectories_from_texts(&mut source, &texts)
            .map_err(|f| failure(py, f, Kind::Input))?;
        py.allow_threads(|| self.run(&source, &trajs))
            .map_err(|f| failure(py, f, Kind::Query))
    }
}

impl TrackFilter {
    /// The CLI's `filter`: the exact engine, or the strategy's engines
    /// through their hardware model.
    fn run(
        &self,
        source: &TrackSource,
        trajs: &[CodedTrajectory],
    ) -> Result<Vec<TrackResult>, qrtl_core::engine::Failure> {
        let design = &source.design;
        let engines = match self.strategy {
            None => None,
            Some(strategy) => {
                let cfg = EngineConfig {
                    strategy,
                    cluster_size: 0,
                };
                Some(
                    build_engines(&source.file, design, &cfg)
                        .map_err(|d| qrtl_core::engine::Failure::diagnostics(&d))?,
                )
            }
        };
        let mut hw = engines.as_ref().map(|e| HwModel::new(design, e));
        let exact = ExactEngine::new(design);
        Ok(trajs
            .iter()
            .map(|t| TrackResult {
                trajectory: t.id.clone(),
                matched: match hw.as_mut() {
                    Some(m) => m.run(&t.events),
                    None => exact.matches(&t.events),
                },
                events: t.events.len(),
            })
            .collect())
    }
}
