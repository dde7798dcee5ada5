//! Thin PyO3 bindings: a scenario goes in as JSON (validated by the Python front), the run
//! report comes back as JSON. The simulation runs with the GIL released, so Python threads
//! can run many at once.
//!
//! Ctrl-C: the engine polls its caller every few thousand events
//! (`lossytcp_sim::sim::POLL_EVENTS`). On Python's main thread the poll takes the GIL back
//! every [`SIGNAL_CHECK`] to run Python's signal handlers (`PyErr_CheckSignals`); a
//! `KeyboardInterrupt` they raise stops the run and is raised from `run_json`. On other
//! threads, where Python runs no signal handlers, a [`RunControl`] shared with the main
//! thread carries the request to stop, and the run's progress back.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use lossytcp_sim::RunError;

create_exception!(
    _sim,
    Cancelled,
    PyException,
    "The run was stopped through its RunControl."
);
create_exception!(
    _sim,
    NoProgress,
    PyRuntimeError,
    "The engine's Zeno guard ended a run that made no progress in simulated time."
);

/// How often the main thread's run looks at Python's signal handlers: Ctrl-C stops a run
/// within this (plus a few thousand events), and taking the GIL 20 times a second costs
/// nothing measurable.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Shared between a run and the thread that started or watches it: a request to stop, and
/// how far in simulated time the run has got.
#[pyclass(frozen, module = "lossytcp._sim")]
#[derive(Default)]
struct RunControl {
    cancelled: AtomicBool,
    simulated_ns: AtomicU64,
}

#[pymethods]
impl RunControl {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Asks the run to stop at its next poll; `run_json` then raises `Cancelled`.
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    #[getter]
    fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Simulated seconds the run had reached at its last poll.
    #[getter]
    fn simulated_s(&self) -> f64 {
        self.simulated_ns.load(Ordering::Relaxed) as f64 * 1e-9
    }
}

fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    let current = threading.call_method0("current_thread")?;
    let main = threading.call_method0("main_thread")?;
    Ok(current.is(&main))
}

/// Run one scenario (JSON text) and return its report (JSON text).
#[pyfunction]
#[pyo3(signature = (scenario, control = None))]
fn run_json(py: Python<'_>, scenario: &str, control: Option<Py<RunControl>>) -> PyResult<String> {
    let sc = lossytcp_sim::Scenario::from_json(scenario).map_err(PyValueError::new_err)?;
    let main = on_main_thread(py)?;
    let control = match control {
        Some(c) => c,
        None => Py::new(py, RunControl::default())?,
    };
    let ctl = control.get();
    let mut interrupt: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let mut last_check = Instant::now();
        lossytcp_sim::run_polled(&sc, &mut |now| {
            ctl.simulated_ns.store(now.0, Ordering::Relaxed);
            if ctl.cancelled.load(Ordering::Relaxed) {
                return false;
            }
            if main && last_check.elapsed() >= SIGNAL_CHECK {
                last_check = Instant::now();
                if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                    interrupt = Some(e);
                    return false;
                }
            }
            true
        })
    });
    let report = match result {
        Ok(r) => r,
        Err(RunError::Cancelled { .. }) => {
            return Err(interrupt.unwrap_or_else(|| Cancelled::new_err("the run was cancelled")))
        }
        Err(e @ RunError::NoProgress { .. }) => return Err(NoProgress::new_err(e.to_string())),
        Err(RunError::Invalid(e)) => return Err(PyValueError::new_err(e)),
    };
    ctl.simulated_ns
        .store((report.simulated_s * 1e9).round() as u64, Ordering::Relaxed);
    serde_json::to_string(&report).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The variant registry as JSON: every named variant (names, summary, parameters, its ns-2 /
/// ns-3 / Linux counterparts) and every plugin parameter's declaration (name, unit, type,
/// default, range, doc). The Python front builds its schema, keywords, flags and tables from it.
#[pyfunction]
fn registry_json() -> String {
    lossytcp_sim::tcp::variant::registry_json()
}

/// Check one scenario (JSON text) as `run_json` would before running it (structure and
/// ranges, trace files read) without running it: `ValueError` with the reason if refused.
#[pyfunction]
fn check_json(py: Python<'_>, scenario: &str) -> PyResult<()> {
    py.allow_threads(|| {
        let sc = lossytcp_sim::Scenario::from_json(scenario)?;
        lossytcp_sim::limits::check_scenario(&sc).map(|_| ())
    })
    .map_err(PyValueError::new_err)
}

/// The engine's version, part of every experiment point's key: the crate version and a
/// digest of the engine's sources (build.rs), so that a changed engine never reuses a stored
/// run.
#[pyfunction]
fn engine_version() -> &'static str {
    concat!(
        env!("CARGO_PKG_VERSION"),
        "+",
        env!("LOSSYTCP_ENGINE_SOURCE_DIGEST")
    )
}

#[pymodule]
fn _sim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(engine_version, m)?)?;
    m.add_function(wrap_pyfunction!(registry_json, m)?)?;
    m.add_function(wrap_pyfunction!(check_json, m)?)?;
    m.add_class::<RunControl>()?;
    m.add("Cancelled", m.py().get_type::<Cancelled>())?;
    m.add("NoProgress", m.py().get_type::<NoProgress>())?;
    Ok(())
}
