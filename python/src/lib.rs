//! The Python package `qrtl`: qrtl's software engines (the answers the
//! `qrtl` command prints and the generated RTL is checked against) as
//! Python objects. Only glue lives here: every answer comes from the
//! engine crates' functions that the CLI calls.

use pyo3::prelude::*;

mod errors;
mod inputs;
mod rice;
mod track;
mod xpath;

/// The module's `__doc__`: the two-minute path.
const DOC: &str = r#"qrtl's software engines from Python: XPath filtering, FlexTrack motion
patterns and the Golomb-Rice codec; the same answers as the `qrtl` command.

Two minutes:

    import pathlib, qrtl
    f = qrtl.XPathFilter('//story[headline]\n/news//keyword[text()="rates"]\n')
    r = f.filter(b'<news><story><headline/></story></news>')
    r.status, r.matched                      # ('ok', [0])
    f.filter_many(pathlib.Path('docs').glob('*.xml'), jobs=4)   # in input order

    t = qrtl.TrackFilter('airport.downtown\n', regions=pathlib.Path('regions.yaml'))
    t.filter(b'taxi-1,0,airport\ntaxi-1,5,downtown\n')   # [TrackResult('taxi-1', [0])]

    data = qrtl.rice_encode([3, 1, 4, 1, 5], k=2)
    qrtl.rice_decode(data, k=2)              # [3, 1, 4, 1, 5]

Sources (queries, patterns, region maps) are text when given as str and a
file when given as os.PathLike (pathlib.Path), or by XPathFilter.from_file.
Inputs (documents, trajectory CSV, streams) are content when given as bytes
and a file when given as str or os.PathLike. Errors in queries or patterns
raise QueryError (a ValueError) with every diagnostic in `.diagnostics`;
unreadable files raise OSError with the path.
"#;

#[pymodule]
#[pyo3(name = "_native")]
fn qrtl(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__doc__", DOC)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("QueryError", py.get_type::<errors::QueryError>())?;
    m.add("InputError", py.get_type::<errors::InputError>())?;
    m.add_class::<errors::Diagnostic>()?;
    m.add_class::<xpath::XPathFilter>()?;
    m.add_class::<xpath::Result>()?;
    m.add_class::<track::TrackFilter>()?;
    m.add_class::<track::TrackResult>()?;
    m.add_function(wrap_pyfunction!(rice::rice_encode, m)?)?;
    m.add_function(wrap_pyfunction!(rice::rice_decode, m)?)?;
    Ok(())
}
