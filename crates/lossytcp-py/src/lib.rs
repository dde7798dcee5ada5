//! Thin PyO3 bindings: a scenario goes in as JSON (validated by the Python front), the run
//! report comes back as JSON. The simulation runs with the GIL released, so Python threads
//! can run many at once.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Run one scenario (JSON text) and return its report (JSON text).
#[pyfunction]
fn run_json(py: Python<'_>, scenario: &str) -> PyResult<String> {
    let sc = lossytcp_sim::Scenario::from_json(scenario).map_err(PyValueError::new_err)?;
    let report = py
        .allow_threads(|| lossytcp_sim::run(&sc))
        .map_err(PyValueError::new_err)?;
    serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The engine's version, part of every experiment point's key.
#[pyfunction]
fn engine_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _sim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    Ok(())
}
