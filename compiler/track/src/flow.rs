//! The FlexTrack flow shared by the CLI, tests and benches: patterns +
//! region map + trajectories → a design whose dictionary covers every
//! region seen, and the trajectories as samples and events in its codes.

use qrtl_core::diag::Diagnostic;
use crate::syntax::{parse_pattern_file, SourcePattern};
use crate::ir::TrackDesign;
use crate::lower::lower_patterns;
use crate::input::{
    detect_events, Event, RegionMap, Sample, TrajReader, Trajectory, NO_REGION,
};

/// A trajectory in a design's region codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodedTrajectory {
    pub id: String,
    pub samples: Vec<Sample>,
    pub events: Vec<Event>,
}

/// Parse a pattern file's text; all diagnostics on any error.
pub fn parse_patterns(file: &str, text: &str) -> Result<Vec<SourcePattern>, Vec<Diagnostic>> {
    let (patterns, diags) = parse_pattern_file(file, text);
    if diags.is_empty() {
        Ok(patterns)
    } else {
        Err(diags)
    }
}

/// Lower patterns (checked against the map's regions, if any) and extend
/// the dictionary with the map's regions.
pub fn design_for(
    file: &str,
    patterns: &[SourcePattern],
    map: Option<&RegionMap>,
) -> Result<TrackDesign, Vec<Diagnostic>> {
    lower_patterns(file, patterns, map.map(|m| m.regions.as_slice()))
}

/// Read trajectory files `(name, text)` with one reader (ids unique across
/// files); all diagnostics on any error.
pub fn read_trajectories(
    files: &[(String, String)],
    map: Option<&RegionMap>,
) -> Result<(Vec<Trajectory>, Vec<String>), Vec<Diagnostic>> {
    let mut reader = TrajReader::new(map);
    let mut all = Vec::new();
    let mut diags = Vec::new();
    for (name, text) in files {
        match reader.read(name, text) {
            Ok(t) => all.extend(t),
            Err(d) => diags.extend(d),
        }
    }
    if diags.is_empty() {
        Ok((all, reader.names.names))
    } else {
        Err(diags)
    }
}

/// Add the trajectories' regions to the design's dictionary and recode
/// their samples; events by the event detector.
pub fn code_trajectories(
    design: &mut TrackDesign,
    trajs: &[Trajectory],
    names: &[String],
) -> Vec<CodedTrajectory> {
    let map: Vec<u32> = std::iter::once(NO_REGION)
        .chain(names.iter().map(|n| design.add_region(n)))
        .collect();
    trajs
        .iter()
        .map(|t| {
            let samples: Vec<Sample> = t
                .samples
                .iter()
                .map(|s| Sample {
                    region: map[s.region as usize],
                    ts: s.ts,
                })
                .collect();
            CodedTrajectory {
                id: t.id.clone(),
                events: detect_events(&samples),
                samples,
            }
        })
        .collect()
}
