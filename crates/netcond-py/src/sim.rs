//! The simulator's scenarios from Python: a run's or a reproduction's report
//! as the CSV texts the CLI writes (turned into DataFrames by `netcond.sim`).

use netcond_sim::progress::Progress;
use netcond_sim::report::{csv_text, Report};
use netcond_sim::scenarios::{find, names, ReproduceOpts, DEFAULT_MEMORY_BUDGET};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

fn scenario(name: &str) -> PyResult<&'static dyn netcond_sim::scenarios::Scenario> {
    find(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown scenario {name:?}; the scenarios are: {}",
            names().join(", ")
        ))
    })
}

/// A report as a dict: `text` (what the CLI prints), `csv` (file name ->
/// CSV text, exactly the files the CLI writes, SVGs left out), `notes`,
/// `events`, `sim_seconds`, `params`.
fn report_dict<'py>(py: Python<'py>, rep: &Report) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("scenario", &rep.scenario)?;
    d.set_item("title", &rep.title)?;
    d.set_item("text", rep.to_text())?;
    d.set_item("params", rep.params.clone())?;
    d.set_item("notes", rep.notes.clone())?;
    d.set_item("events", rep.events)?;
    d.set_item("sim_seconds", rep.sim_seconds)?;
    let csv = PyDict::new(py);
    if !rep.comparisons.is_empty() {
        csv.set_item("comparison.csv", rep.comparison_csv())?;
    }
    if !rep.runs.is_empty() {
        csv.set_item("runs.csv", rep.runs_csv())?;
    }
    for t in &rep.tables {
        csv.set_item(format!("{}.csv", t.name), csv_text(&t.header, &t.rows))?;
    }
    for p in &rep.plots {
        csv.set_item(format!("{}.csv", p.name), p.to_csv())?;
    }
    d.set_item("csv", csv)?;
    Ok(d)
}

/// The scenario names.
#[pyfunction]
fn sim_scenarios() -> Vec<&'static str> {
    names()
}

/// A scenario's parameters with their defaults, as `key=value` strings.
#[pyfunction]
fn sim_defaults(name: &str) -> PyResult<Vec<String>> {
    Ok(scenario(name)?.defaults().listing())
}

/// A scenario's one-line description.
#[pyfunction]
fn sim_description(name: &str) -> PyResult<&'static str> {
    Ok(scenario(name)?.description())
}

/// `netcond-sim run NAME --seed SEED --set k=v ...`, the report as a dict.
#[pyfunction]
#[pyo3(signature = (name, seed, sets, memory_budget = DEFAULT_MEMORY_BUDGET))]
fn sim_run<'py>(
    py: Python<'py>,
    name: &str,
    seed: u64,
    sets: Vec<String>,
    memory_budget: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = scenario(name)?;
    let params = sc
        .defaults()
        .with(&sets)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    sc.check(&params, memory_budget)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let rep = py
        .allow_threads(|| sc.run(&params, seed, &Progress::hidden()))
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    report_dict(py, &rep)
}

/// `netcond-sim reproduce NAME --seed SEED` (`quick`: the reduced size of
/// `reproduce quick`), the report as a dict.
#[pyfunction]
fn sim_reproduce<'py>(
    py: Python<'py>,
    name: &str,
    seed: u64,
    quick: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let sc = scenario(name)?;
    let opts = ReproduceOpts { seed, quick };
    let rep = py
        .allow_threads(|| sc.reproduce(&opts, &Progress::hidden()))
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    report_dict(py, &rep)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sim_scenarios, m)?)?;
    m.add_function(wrap_pyfunction!(sim_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(sim_description, m)?)?;
    m.add_function(wrap_pyfunction!(sim_run, m)?)?;
    m.add_function(wrap_pyfunction!(sim_reproduce, m)?)?;
    Ok(())
}
