//! The package's one rule for arguments that may be text or a file:
//!
//! * sources (queries, patterns, region maps): `str` is the text itself,
//!   `os.PathLike` (e.g. `pathlib.Path`) names a file;
//! * inputs (documents, trajectory CSV, Golomb-Rice streams): `bytes`-like
//!   is the content, `str` or `os.PathLike` names a file.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::errors::{os_error, read_source};

/// A source argument: text, or the file holding it.
pub enum Source {
    Text(String),
    File(PathBuf),
}

impl Source {
    pub fn extract(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Source> {
        if let Ok(s) = obj.downcast::<PyString>() {
            return Ok(Source::Text(s.to_cow()?.into_owned()));
        }
        match obj.extract::<PathBuf>() {
            Ok(p) => Ok(Source::File(p)),
            Err(_) => Err(PyTypeError::new_err(format!(
                "{what}: expected str (the text) or os.PathLike (a file), got {}",
                obj.get_type().name()?
            ))),
        }
    }

    /// `(name in diagnostics, text)`; text given for the argument `arg` is
    /// named `<arg>`, `what` names the file in messages ("pattern file").
    pub fn load(self, py: Python<'_>, arg: &str, what: &str) -> PyResult<(String, String)> {
        match self {
            Source::Text(t) => Ok((format!("<{arg}>"), t)),
            Source::File(p) => {
                let text = read_source(py, &p, what)?;
                Ok((p.display().to_string(), text))
            }
        }
    }
}

/// An input argument: its bytes, or the file holding them.
pub enum Input {
    Bytes(Vec<u8>),
    File(PathBuf),
}

impl Input {
    pub fn extract(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Input> {
        if let Ok(b) = obj.downcast::<PyBytes>() {
            return Ok(Input::Bytes(b.as_bytes().to_vec()));
        }
        if let Ok(b) = obj.downcast::<PyByteArray>() {
            return Ok(Input::Bytes(b.to_vec()));
        }
        match obj.extract::<PathBuf>() {
            Ok(p) => Ok(Input::File(p)),
            Err(_) => Err(PyTypeError::new_err(format!(
                "{what}: expected bytes (the content), or str or os.PathLike (a file), got {}",
                obj.get_type().name()?
            ))),
        }
    }

    /// The file's name as given, `None` for bytes.
    pub fn name(&self) -> Option<String> {
        match self {
            Input::Bytes(_) => None,
            Input::File(p) => Some(p.display().to_string()),
        }
    }

    /// The whole content (`OSError` with the path for a bad file).
    pub fn read(self) -> PyResult<Vec<u8>> {
        match self {
            Input::Bytes(b) => Ok(b),
            Input::File(p) => std::fs::read(&p).map_err(|e| os_error(&e, &p)),
        }
    }
}
