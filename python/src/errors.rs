//! Rust errors as Python exceptions: a `Failure` of the engines' loaders
//! becomes `QueryError` (or `InputError`) carrying every diagnostic; an
//! unreadable file becomes `OSError` with its path.

use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use qrtl_core::diag;
use qrtl_core::engine::Failure;

create_exception!(
    qrtl,
    QueryError,
    PyValueError,
    "A query, pattern or region-map error. `str(e)` is what the `qrtl` command \
     prints; `e.diagnostics` lists every diagnostic (file, line, column, code, message)."
);
create_exception!(
    qrtl,
    InputError,
    PyValueError,
    "An input the engine cannot read (a trajectory file's bad row). `e.diagnostics` as for QueryError."
);

/// One diagnostic: where (1-based line and column), its stable code
/// (`E0101`) and message, as `qrtl` renders it.
#[pyclass(module = "qrtl", frozen, get_all, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub code: String,
    pub message: String,
    pub help: Option<String>,
}

#[pymethods]
impl Diagnostic {
    fn __repr__(&self) -> String {
        format!(
            "Diagnostic({}:{}:{}: {}: {})",
            self.file, self.line, self.column, self.code, self.message
        )
    }
}

impl From<&diag::Diagnostic> for Diagnostic {
    fn from(d: &diag::Diagnostic) -> Self {
        Diagnostic {
            file: d.file.clone(),
            line: d.line,
            column: d.col(),
            code: d.code.to_string(),
            message: d.message.clone(),
            help: d.help.clone(),
        }
    }
}

/// Which exception a failure becomes.
#[derive(Clone, Copy)]
pub enum Kind {
    Query,
    Input,
}

/// A loader's failure as `QueryError`/`InputError`: the text `qrtl` prints
/// as `str(e)`, the diagnostics as `e.diagnostics`.
pub fn failure(py: Python<'_>, f: Failure, kind: Kind) -> PyErr {
    let text = f.to_string();
    let err = match kind {
        Kind::Query => QueryError::new_err(text),
        Kind::Input => InputError::new_err(text),
    };
    let diags: Vec<Diagnostic> = f.diagnostics.iter().map(Diagnostic::from).collect();
    if let Err(e) = err.value(py).setattr("diagnostics", diags) {
        return e;
    }
    err
}

/// `OSError` (its subclass for the errno, e.g. `FileNotFoundError`) with
/// the path as `filename`.
pub fn os_error(e: &std::io::Error, path: &Path) -> PyErr {
    let text = e.to_string();
    let message = match e.raw_os_error() {
        // Python's own wording: the strerror without Rust's suffix.
        Some(n) => text
            .trim_end_matches(&format!(" (os error {n})"))
            .to_string(),
        None => text,
    };
    PyOSError::new_err((e.raw_os_error(), message, path.display().to_string()))
}

/// A source file (queries, patterns, region map) as UTF-8 text; `what`
/// names it in the message of a `QueryError` for bad UTF-8.
pub fn read_source(py: Python<'_>, path: &Path, what: &str) -> PyResult<String> {
    diag::read_text(path).map_err(|e| match e {
        diag::TextError::Io(e) => os_error(&e, path),
        diag::TextError::Utf8 { line, col } => failure(
            py,
            Failure::input(format!(
                "{}:{line}:{col}: error: {what} is not valid UTF-8",
                path.display()
            )),
            Kind::Query,
        ),
    })
}
