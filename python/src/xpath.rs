//! `qrtl.XPathFilter`: a query set compiled once, documents filtered by
//! the software engine `qrtl xpath filter` runs (`refmodel::Engine`).

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyType};
use qrtl_xpath::engine::{source_from_text, DEFAULT_MAX_DEPTH};
use qrtl_xpath::ir::xpath::{Design, Mode, Namespaces};
use qrtl_xpath::lower::names::NsOptions;
use qrtl_xpath::refmodel::{DocResult, Engine, EngineConfig};
use qrtl_xpath::xml::{XmlConfig, DEFAULT_ATTR_NAME_BYTES, DEFAULT_MAX_ATTRIBUTES};

use crate::errors::{failure, os_error, Kind};
use crate::inputs::{Input, Source};

/// One document's answer: the fields of `qrtl xpath filter`'s JSON line
/// (`doc`, `status`, `matched`) and of its stderr note (`reason`, `line`,
/// `col` of a malformed or too deep document).
#[pyclass(module = "qrtl", frozen, get_all, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Result {
    /// The file's name as given; `None` for a document given as bytes.
    pub doc: Option<String>,
    /// `"ok"`, `"malformed"`, `"too_deep"` or `"attr_limit"`.
    pub status: &'static str,
    pub reason: Option<&'static str>,
    /// 1-based line and column (bytes) where the problem showed.
    pub line: Option<u64>,
    pub col: Option<u64>,
    /// Matched query ids (their index in the query file), ascending.
    pub matched: Vec<u32>,
}

#[pymethods]
impl Result {
    fn __repr__(&self) -> String {
        format!(
            "Result(doc={:?}, status={:?}, matched={:?})",
            self.doc, self.status, self.matched
        )
    }
}

impl Result {
    fn new(doc: Option<String>, r: DocResult) -> Self {
        Result {
            doc,
            status: r.status.as_str(),
            reason: r.error.map(|e| e.error.describe()),
            line: r.error.map(|e| e.line),
            col: r.error.map(|e| e.col),
            matched: r.matched,
        }
    }
}

// The signatures' `max_depth = 32`, `max_attributes = 16` and
// `attr_name_bytes = 32` (literals, so that `__text_signature__` and the
// stubs show them) are the CLI's defaults.
const _: () = assert!(DEFAULT_MAX_DEPTH == 32);
const _: () = assert!(DEFAULT_MAX_ATTRIBUTES == 16 && DEFAULT_ATTR_NAME_BYTES == 32);

/// The parser's limits of a filter (each checked as the CLI checks it).
fn xml_limits(max_depth: u32, max_attributes: u32, attr_name_bytes: u32) -> PyResult<XmlConfig> {
    for (name, value, max) in [
        ("max_depth", max_depth, 4096),
        ("max_attributes", max_attributes, 256),
        ("attr_name_bytes", attr_name_bytes, 1024),
    ] {
        if !(1..=max).contains(&value) {
            return Err(PyValueError::new_err(format!("{name}: expected 1..={max}")));
        }
    }
    Ok(XmlConfig {
        max_attributes,
        attr_name_bytes,
        ..XmlConfig::with_max_depth(max_depth)
    })
}

/// A compiled query set and a pool of engines (one per thread in use).
#[pyclass(module = "qrtl", frozen)]
pub struct XPathFilter {
    design: Design,
    config: EngineConfig,
    idle: Mutex<Vec<Engine>>,
}

/// `namespaces` (prefix → URI, as `--ns`) and `names` (`"xpath"` or
/// `"raw"`, as `--namespaces`), each checked as the CLI checks it.
fn ns_options(namespaces: Option<&Bound<'_, PyDict>>, names: &str) -> PyResult<NsOptions> {
    let mode = match names {
        "xpath" => Namespaces::Xpath,
        "raw" => Namespaces::Raw,
        _ => {
            return Err(PyValueError::new_err(format!(
                "names: expected \"xpath\" or \"raw\", got {names:?}"
            )))
        }
    };
    let mut bindings = Vec::new();
    for (prefix, uri) in namespaces.into_iter().flat_map(|d| d.iter()) {
        let (prefix, uri): (String, String) = (prefix.extract()?, uri.extract()?);
        bindings.push(format!("{prefix}={uri}"));
    }
    NsOptions::new(mode, &bindings)
        .map_err(|e| PyValueError::new_err(format!("namespaces: {}", e.message)))
}

fn parse_mode(mode: &str) -> PyResult<Mode> {
    match mode {
        "holistic" => Ok(Mode::Holistic),
        "paths" => Ok(Mode::Paths),
        "pairs" => Ok(Mode::Pairs),
        _ => Err(PyValueError::new_err(format!(
            "mode: expected \"holistic\", \"paths\" or \"pairs\", got {mode:?}"
        ))),
    }
}

#[pymethods]
impl XPathFilter {
    #[new]
    #[pyo3(signature = (queries, mode = "holistic", ordered = false, max_depth = 32,
                        max_attributes = 16, attr_name_bytes = 32, namespaces = None,
                        names = "xpath"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        queries: &Bound<'_, PyAny>,
        mode: &str,
        ordered: bool,
        max_depth: u32,
        max_attributes: u32,
        attr_name_bytes: u32,
        namespaces: Option<&Bound<'_, PyDict>>,
        names: &str,
    ) -> PyResult<Self> {
        let xml = xml_limits(max_depth, max_attributes, attr_name_bytes)?;
        let ns = ns_options(namespaces, names)?;
        let queries = Source::extract(queries, "queries")?;
        XPathFilter::build(py, queries, mode, ordered, xml, &ns)
    }

    /// The query file at `path` (str or os.PathLike).
    #[classmethod]
    #[pyo3(signature = (path, mode = "holistic", ordered = false, max_depth = 32,
                        max_attributes = 16, attr_name_bytes = 32, namespaces = None,
                        names = "xpath"))]
    #[allow(clippy::too_many_arguments)]
    fn from_file(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        mode: &str,
        ordered: bool,
        max_depth: u32,
        max_attributes: u32,
        attr_name_bytes: u32,
        namespaces: Option<&Bound<'_, PyDict>>,
        names: &str,
    ) -> PyResult<Self> {
        let xml = xml_limits(max_depth, max_attributes, attr_name_bytes)?;
        let ns = ns_options(namespaces, names)?;
        XPathFilter::build(py, Source::File(path), mode, ordered, xml, &ns)
    }

    /// Number of queries (ids are 0..len).
    fn __len__(&self) -> usize {
        self.design.queries.len()
    }

    /// Filter one document: bytes, or a file (str or os.PathLike).
    fn filter(&self, py: Python<'_>, doc: &Bound<'_, PyAny>) -> PyResult<Result> {
        let input = Input::extract(doc, "doc")?;
        let name = input.name();
        let r = py.allow_threads(|| self.with_engine(|e| run(e, input)));
        Ok(Result::new(name, r?))
    }

    /// Filter documents on `jobs` threads (default: every core), each with
    /// its own engine; results in input order, as `filter` gives them.
    #[pyo3(signature = (docs, jobs = None))]
    fn filter_many(
        &self,
        py: Python<'_>,
        docs: &Bound<'_, PyAny>,
        jobs: Option<usize>,
    ) -> PyResult<Vec<Result>> {
        let jobs = match jobs {
            Some(0) => return Err(PyValueError::new_err("jobs: expected at least 1")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        };
        let inputs = docs
            .try_iter()?
            .map(|d| Input::extract(&d?, "docs"))
            .collect::<PyResult<Vec<_>>>()?;
        let names: Vec<_> = inputs.iter().map(Input::name).collect();
        let results = py.allow_threads(|| self.run_all(inputs, jobs));
        names
            .into_iter()
            .zip(results)
            .map(|(n, r)| r.map(|r| Result::new(n, r)))
            .collect()
    }
}

impl XPathFilter {
    /// Check the options, load and check the queries (`QueryError`).
    fn build(
        py: Python<'_>,
        queries: Source,
        mode: &str,
        ordered: bool,
        xml: XmlConfig,
        ns: &NsOptions,
    ) -> PyResult<Self> {
        let mode = parse_mode(mode)?;
        let (name, text) = queries.load(py, "queries", "query file")?;
        let source = source_from_text(&name, &text, mode, ordered, ns)
            .map_err(|f| failure(py, f, Kind::Query))?;
        Ok(XPathFilter {
            design: source.design,
            config: EngineConfig {
                xml,
                ..EngineConfig::default()
            },
            idle: Mutex::new(Vec::new()),
        })
    }

    /// Run `f` with an idle engine (a new one if none is idle).
    fn with_engine<R>(&self, f: impl FnOnce(&mut Engine) -> R) -> R {
        let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
        let mut engine = idle.unwrap_or_else(|| Engine::new(&self.design, self.config));
        let r = f(&mut engine);
        if let Ok(mut v) = self.idle.lock() {
            v.push(engine);
        }
        r
    }

    /// Every input on `jobs` threads taking the next input in turn.
    fn run_all(&self, inputs: Vec<Input>, jobs: usize) -> Vec<PyResult<DocResult>> {
        let slots: Vec<Mutex<Option<Input>>> =
            inputs.into_iter().map(|i| Mutex::new(Some(i))).collect();
        let results: Vec<Mutex<Option<PyResult<DocResult>>>> =
            slots.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let work = || {
            self.with_engine(|engine| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(slot) = slots.get(i) else { break };
                let input = slot.lock().expect("one taker per slot").take();
                let r = run(engine, input.expect("each slot is taken once"));
                *results[i].lock().expect("one writer per slot") = Some(r);
            })
        };
        std::thread::scope(|s| {
            for _ in 1..jobs.min(slots.len()) {
                s.spawn(work);
            }
            work();
        });
        results
            .into_iter()
            .map(|r| r.into_inner().ok().flatten().expect("every slot ran"))
            .collect()
    }
}

/// One document through the engine, as `qrtl xpath filter` runs it.
fn run(engine: &mut Engine, input: Input) -> PyResult<DocResult> {
    match input {
        Input::Bytes(b) => Ok(engine.filter(&b)),
        Input::File(p) => std::fs::File::open(&p)
            .and_then(|f| engine.filter_reader(f))
            .map_err(|e| os_error(&e, &p)),
    }
}
