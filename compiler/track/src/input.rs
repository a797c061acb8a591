//! Trajectory inputs (SPEC §4.3): CSV files and the YAML region map, turned
//! into samples and region events.
//!
//! * CSV, one sample per row: `traj_id,timestamp,region` or
//!   `traj_id,timestamp,x,y` (the latter with a region map). Blank lines and
//!   lines starting with `#` are skipped; the first row may be a header
//!   (its second field is `timestamp`, `time`, `ts` or `t`). Fields are trimmed. Timestamps are
//!   unsigned 32-bit integers and strictly increase within a trajectory; a
//!   trajectory's rows are contiguous and its id appears in no other file.
//! * "No region": a `region` field left empty, or an `x,y` point inside the
//!   grid whose cell no region lists. Such samples are events of the
//!   reserved code 0 ([`NO_REGION`]): they match `?`, `?+`, `?*` and `!R`,
//!   never a named region or a variable. A point outside the grid, an
//!   unknown region name (when a map is given) and a malformed row are
//!   errors; nothing is silently dropped.
//! * Events: consecutive samples of one trajectory in one region (or in no
//!   region) merge into one event `(region, entry, exit)`: entry is the first
//!   sample's timestamp, exit the last's (the visit interval `[entry, exit]`).
//!
//! Every error is a [`Diagnostic`] with the file, line and field (`E07xx`),
//! and all of a file's errors are reported.

use qrtl_core::diag::{Diagnostic, Span};
use serde::Deserialize;

/// The code of "no region" in every region numbering.
pub const NO_REGION: u32 = 0;

/// Region names in order of first appearance; code `i + 1` is `names[i]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionNames {
    pub names: Vec<String>,
    index: std::collections::HashMap<String, u32>,
}

impl RegionNames {
    pub fn code(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(c) = self.code(name) {
            return c;
        }
        self.names.push(name.to_string());
        let c = self.names.len() as u32;
        self.index.insert(name.to_string(), c);
        c
    }
    /// The name of a code; `None` for [`NO_REGION`].
    pub fn name(&self, code: u32) -> Option<&str> {
        code.checked_sub(1)
            .and_then(|i| self.names.get(i as usize))
            .map(String::as_str)
    }
}

/// One sample: a region code (of the [`RegionNames`] it was read with) and a timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub region: u32,
    pub ts: u32,
}

/// One event: consecutive samples in one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Event {
    pub region: u32,
    pub entry: u32,
    pub exit: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trajectory {
    pub id: String,
    /// File and 1-based line of its first row.
    pub file: String,
    pub line: usize,
    pub samples: Vec<Sample>,
}

impl Trajectory {
    /// Merge consecutive samples in one region (SPEC §4.2).
    pub fn events(&self) -> Vec<Event> {
        detect_events(&self.samples)
    }
}

/// The event detector: consecutive samples with one region code become one event.
pub fn detect_events(samples: &[Sample]) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for s in samples {
        match out.last_mut() {
            Some(e) if e.region == s.region => e.exit = s.ts,
            _ => out.push(Event {
                region: s.region,
                entry: s.ts,
                exit: s.ts,
            }),
        }
    }
    out
}

/// A uniform grid: `rows` x `cols` cells of `cell_size`, the cell (row 0,
/// col 0) at `origin` (its smallest x and y). Regions are lists of cells
/// `[row, col]`; no cell is in two regions.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionMap {
    pub origin: (f64, f64),
    pub cell: (f64, f64),
    pub rows: u32,
    pub cols: u32,
    /// Region names in file order (their order in every numbering).
    pub regions: Vec<String>,
    /// Per cell (row-major), the index into `regions`.
    cells: Vec<Option<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    origin: [f64; 2],
    cell_size: CellSize,
    rows: u32,
    cols: u32,
    regions: Vec<RegionDef>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CellSize {
    Square(f64),
    Rect([f64; 2]),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegionDef {
    name: String,
    cells: Vec<[u32; 2]>,
}

fn diag(
    code: &'static str,
    file: &str,
    line: usize,
    text: &str,
    span: Span,
    message: String,
) -> Diagnostic {
    Diagnostic {
        code,
        message,
        help: None,
        file: file.to_string(),
        line,
        source_line: text.to_string(),
        span,
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl RegionMap {
    /// Parse a region map; every problem as a diagnostic (E0701-E0705).
    pub fn parse(file: &str, text: &str) -> Result<RegionMap, Vec<Diagnostic>> {
        let lines: Vec<&str> = text.lines().collect();
        let at_line = |line: usize, col: usize, code, message: String| {
            let src = lines.get(line.saturating_sub(1)).copied().unwrap_or("");
            let col = col.saturating_sub(1).min(src.len());
            diag(code, file, line, src, Span::new(col, col + 1), message)
        };
        // The line that defines region `name` (for semantic errors).
        let name_line = |name: &str| {
            lines
                .iter()
                .position(|l| {
                    let l = l.trim_start().trim_start_matches("- ").trim_start();
                    l.strip_prefix("name:")
                        .is_some_and(|v| v.trim().trim_matches(['"', '\'']) == name)
                })
                .map_or(1, |i| i + 1)
        };
        let m: MapFile = serde_yaml_ng::from_str(text).map_err(|e| {
            let (line, col) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
            vec![at_line(line, col, "E0701", format!("bad region map: {e}"))]
        })?;
        let mut diags = Vec::new();
        let cell = match m.cell_size {
            CellSize::Square(s) => (s, s),
            CellSize::Rect([w, h]) => (w, h),
        };
        let finite = m.origin.iter().all(|v| v.is_finite());
        if !(cell.0.is_finite() && cell.1.is_finite() && cell.0 > 0.0 && cell.1 > 0.0 && finite) {
            diags.push(at_line(
                1,
                1,
                "E0702",
                "origin must be finite and cell_size positive".into(),
            ));
        }
        if m.rows == 0 || m.cols == 0 || u64::from(m.rows) * u64::from(m.cols) > 1 << 24 {
            diags.push(at_line(
                1,
                1,
                "E0702",
                format!(
                    "grid of {} x {} cells: rows and cols must be positive, at most 2^24 cells",
                    m.rows, m.cols
                ),
            ));
            return Err(diags);
        }
        let mut cells = vec![None; (m.rows * m.cols) as usize];
        let mut regions: Vec<String> = Vec::new();
        for (ri, r) in m.regions.iter().enumerate() {
            let line = name_line(&r.name);
            if !is_name(&r.name) {
                diags.push(at_line(
                    line,
                    1,
                    "E0703",
                    format!(
                        "region name {:?} is not an identifier ([A-Za-z0-9_]+)",
                        r.name
                    ),
                ));
            }
            if regions.contains(&r.name) {
                diags.push(at_line(
                    line,
                    1,
                    "E0703",
                    format!("region `{}` defined twice", r.name),
                ));
            }
            regions.push(r.name.clone());
            for &[row, col] in &r.cells {
                if row >= m.rows || col >= m.cols {
                    diags.push(at_line(
                        line,
                        1,
                        "E0704",
                        format!(
                            "region `{}`: cell [{row}, {col}] is outside the {} x {} grid",
                            r.name, m.rows, m.cols
                        ),
                    ));
                    continue;
                }
                let c = &mut cells[(row * m.cols + col) as usize];
                match *c {
                    Some(other) if other as usize != ri => diags.push(at_line(
                        line,
                        1,
                        "E0705",
                        format!(
                            "region `{}`: cell [{row}, {col}] is already in region `{}`",
                            r.name, m.regions[other as usize].name
                        ),
                    )),
                    _ => *c = Some(ri as u32),
                }
            }
        }
        if !diags.is_empty() {
            return Err(diags);
        }
        Ok(RegionMap {
            origin: (m.origin[0], m.origin[1]),
            cell,
            rows: m.rows,
            cols: m.cols,
            regions,
            cells,
        })
    }

    /// The cell of a point, `None` outside the grid.
    pub fn cell_of(&self, x: f64, y: f64) -> Option<(u32, u32)> {
        let c = ((x - self.origin.0) / self.cell.0).floor();
        let r = ((y - self.origin.1) / self.cell.1).floor();
        if !(c >= 0.0 && r >= 0.0 && c < f64::from(self.cols) && r < f64::from(self.rows)) {
            return None;
        }
        Some((r as u32, c as u32))
    }

    /// The region (index into `regions`) of a cell, `None` for no region.
    pub fn region_of_cell(&self, row: u32, col: u32) -> Option<u32> {
        self.cells[(row * self.cols + col) as usize]
    }
}

/// Reads trajectory files into one region numbering, checking that no
/// trajectory id appears twice across files.
#[derive(Debug, Default)]
pub struct TrajReader<'m> {
    pub map: Option<&'m RegionMap>,
    pub names: RegionNames,
    /// Trajectory id → (file, line) of its first row.
    seen: std::collections::HashMap<String, (String, usize)>,
}

impl<'m> TrajReader<'m> {
    /// With a map, its regions get codes 1.. in map order first.
    pub fn new(map: Option<&'m RegionMap>) -> Self {
        let mut names = RegionNames::default();
        if let Some(m) = map {
            for r in &m.regions {
                names.intern(r);
            }
        }
        TrajReader {
            map,
            names,
            seen: Default::default(),
        }
    }

    /// Read one CSV file; all its errors on failure (E0710-E0719).
    pub fn read(&mut self, file: &str, text: &str) -> Result<Vec<Trajectory>, Vec<Diagnostic>> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut out: Vec<Trajectory> = Vec::new();
        let mut diags = Vec::new();
        let mut width: Option<usize> = None;
        let mut first_row = true;
        // Ids of this file that ended (a later row with one is non-contiguous).
        let mut ended: std::collections::HashMap<String, usize> = Default::default();
        let mut last_row = 0;
        for (index, raw) in text.split('\n').enumerate() {
            let line_no = index + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            // Field spans.
            let mut fields: Vec<(&str, Span)> = Vec::new();
            let mut start = 0;
            for part in line.split(',') {
                let lead = part.len() - part.trim_start().len();
                let f = part.trim();
                fields.push((f, Span::new(start + lead, start + lead + f.len())));
                start += part.len() + 1;
            }
            let d = |code, span: Span, message: String| {
                let span = if span.start == span.end {
                    Span::new(span.start, span.start + 1)
                } else {
                    span
                };
                diag(code, file, line_no, line, span, message)
            };
            let is_first = std::mem::replace(&mut first_row, false);
            let header_name = |f: &str| {
                ["timestamp", "time", "ts", "t"]
                    .iter()
                    .any(|h| f.eq_ignore_ascii_case(h))
            };
            if is_first && fields.len() >= 2 && header_name(fields[1].0) {
                continue; // header
            }
            let n = fields.len();
            if n != 3 && n != 4 {
                diags.push(d(
                    "E0710",
                    Span::new(0, line.len()),
                    format!(
                        "expected 3 fields (traj_id,timestamp,region) or 4 (traj_id,timestamp,x,y), found {n}"
                    ),
                ));
                continue;
            }
            match width {
                None => width = Some(n),
                Some(w) if w != n => {
                    diags.push(d(
                        "E0710",
                        Span::new(0, line.len()),
                        format!("{n} fields, but the file's first row has {w}"),
                    ));
                    continue;
                }
                _ => {}
            }
            let (id, id_span) = fields[0];
            if id.is_empty() {
                diags.push(d("E0711", id_span, "empty trajectory id".into()));
                continue;
            }
            let (ts_text, ts_span) = fields[1];
            let ts = match ts_text.parse::<u32>() {
                Ok(t) => t,
                Err(_) => {
                    diags.push(d(
                        "E0712",
                        ts_span,
                        format!("timestamp {ts_text:?} is not an unsigned 32-bit integer"),
                    ));
                    continue;
                }
            };
            let region = if n == 3 {
                let (r, span) = fields[2];
                if r.is_empty() {
                    NO_REGION
                } else if !is_name(r) {
                    diags.push(d(
                        "E0713",
                        span,
                        format!("region {r:?} is not a name ([A-Za-z0-9_]+; empty for no region)"),
                    ));
                    continue;
                } else if let Some(c) = self.names.code(r) {
                    c
                } else if self.map.is_some() {
                    diags.push(d(
                        "E0714",
                        span,
                        format!("unknown region `{r}`: the region map does not define it"),
                    ));
                    continue;
                } else {
                    self.names.intern(r)
                }
            } else {
                let Some(map) = self.map else {
                    diags.push(d(
                        "E0715",
                        Span::new(fields[2].1.start, fields[3].1.end),
                        "x,y samples need a region map (--regions MAP.yaml)".into(),
                    ));
                    continue;
                };
                let mut xy = [0f64; 2];
                let mut bad = false;
                for (k, (t, span)) in fields[2..4].iter().enumerate() {
                    match t.parse::<f64>() {
                        Ok(v) if v.is_finite() => xy[k] = v,
                        _ => {
                            diags.push(d(
                                "E0716",
                                *span,
                                format!("coordinate {t:?} is not a finite number"),
                            ));
                            bad = true;
                        }
                    }
                }
                if bad {
                    continue;
                }
                match map.cell_of(xy[0], xy[1]) {
                    None => {
                        diags.push(d(
                            "E0717",
                            Span::new(fields[2].1.start, fields[3].1.end),
                            format!(
                                "point ({}, {}) is outside the {} x {} grid",
                                xy[0], xy[1], map.rows, map.cols
                            ),
                        ));
                        continue;
                    }
                    Some((r, c)) => match map.region_of_cell(r, c) {
                        None => NO_REGION,
                        Some(i) => i + 1,
                    },
                }
            };
            // Contiguity, uniqueness and time order.
            let current = out.last_mut().filter(|t| t.id == id);
            match current {
                Some(t) => {
                    let last = t.samples.last().expect("a trajectory has a sample").ts;
                    if ts <= last {
                        diags.push(d(
                            "E0718",
                            ts_span,
                            format!(
                                "timestamp {ts} does not increase (the previous sample of `{id}` is at {last})"
                            ),
                        ));
                        continue;
                    }
                    t.samples.push(Sample { region, ts });
                    last_row = line_no;
                }
                None => {
                    if let Some(prev) = ended.get(id) {
                        diags.push(d(
                            "E0719",
                            id_span,
                            format!(
                                "rows of trajectory `{id}` are not contiguous (it ended on line {prev})"
                            ),
                        ));
                        continue;
                    }
                    if let Some((f, l)) = self.seen.get(id) {
                        diags.push(d(
                            "E0719",
                            id_span,
                            format!("trajectory `{id}` already appeared in {f}:{l}"),
                        ));
                        continue;
                    }
                    if let Some(prev) = out.last() {
                        ended.insert(prev.id.clone(), last_row);
                    }
                    last_row = line_no;
                    self.seen
                        .insert(id.to_string(), (file.to_string(), line_no));
                    out.push(Trajectory {
                        id: id.to_string(),
                        file: file.to_string(),
                        line: line_no,
                        samples: vec![Sample { region, ts }],
                    });
                }
            }
        }
        if diags.is_empty() {
            Ok(out)
        } else {
            Err(diags)
        }
    }
}
