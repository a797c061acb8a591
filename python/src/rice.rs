//! `qrtl.rice_encode` / `qrtl.rice_decode`: the Golomb-Rice codec of
//! `qrtl rice encode|decode` (`qrtl_rice::refmodel`).

use std::borrow::Cow;

use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use qrtl_rice::refmodel::{BitOrder, Encoder, RiceConfig, StreamDecoder, Unary};

use crate::inputs::Input;

/// The code's parameters, as the CLI's `--k --unary --bit-order --width`.
fn config(k: u32, unary: &str, bit_order: &str, width: u32) -> PyResult<RiceConfig> {
    let unary = match unary {
        "zeros" => Unary::Zeros,
        "ones" => Unary::Ones,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unary: expected \"zeros\" or \"ones\", got {unary:?}"
            )))
        }
    };
    let bit_order = match bit_order {
        "msb" => BitOrder::Msb,
        "lsb" => BitOrder::Lsb,
        _ => {
            return Err(PyValueError::new_err(format!(
                "bit_order: expected \"msb\" or \"lsb\", got {bit_order:?}"
            )))
        }
    };
    let cfg = RiceConfig {
        k,
        unary,
        bit_order,
        width,
    };
    cfg.validate()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(cfg)
}

/// Encode non-negative integers into a padded stream (`qrtl rice encode`).
#[pyfunction]
#[pyo3(signature = (ints, k, *, unary = "zeros", bit_order = "msb", width = 64))]
pub fn rice_encode<'py>(
    py: Python<'py>,
    ints: Vec<u64>,
    k: u32,
    unary: &str,
    bit_order: &str,
    width: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let cfg = config(k, unary, bit_order, width)?;
    let bytes = py.allow_threads(|| {
        let mut enc = Encoder::new(cfg);
        for &v in &ints {
            enc.push(v).map_err(|e| e.to_string())?;
        }
        Ok::<_, String>(enc.finish())
    });
    bytes
        .map(|b| PyBytes::new(py, &b))
        .map_err(PyValueError::new_err)
}

/// Decode a stream (bytes, or a file as str or os.PathLike) as `qrtl rice
/// decode` does; `count`: exactly that many values are expected (the rest
/// of the stream is padding). A quotient overflow raises ValueError;
/// trailing bits that are not padding give the CLI's note as a UserWarning.
#[pyfunction]
#[pyo3(signature = (data, k, count = None, *, unary = "zeros", bit_order = "msb", width = 64))]
pub fn rice_decode(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    k: u32,
    count: Option<usize>,
    unary: &str,
    bit_order: &str,
    width: u32,
) -> PyResult<Vec<u64>> {
    let cfg = config(k, unary, bit_order, width)?;
    let input = Input::extract(data, "data")?;
    let name: Cow<str> = input.name().map_or(Cow::Borrowed("<stream>"), Cow::Owned);
    let bytes = input.read()?;
    let (mut values, decoded) = py.allow_threads(|| {
        let mut dec = StreamDecoder::new(cfg);
        let mut values = Vec::new();
        let fed = dec.feed(&bytes, &mut values);
        (values, fed.and_then(|()| dec.finish()))
    });
    let decoded = decoded.map_err(|e| PyValueError::new_err(format!("{name}: error: {e}")))?;
    if let Some(n) = count {
        if values.len() < n {
            return Err(PyValueError::new_err(format!(
                "{name}: error: the stream holds {} values, fewer than count={n}",
                values.len()
            )));
        }
        values.truncate(n);
    } else if !decoded.tail.is_padding() {
        let note = format!("{name}: note: {}", decoded.tail.note());
        PyErr::warn(
            py,
            &py.get_type::<PyUserWarning>(),
            &std::ffi::CString::new(note)?,
            1,
        )?;
    }
    Ok(values)
}
