//! oxo for Python: the `oxo._oxo` extension module behind the `oxo` package.
//!
//! Thin bindings over the library crates: [`oxo_core`]'s rules (a game, a
//! batch of games stepped at once), [`oxo_ai`]'s players and solver. No rule
//! is written here or in the package's Python code: every move is played by
//! [`oxo_core::Game`], every win found by it. What this crate adds is the
//! Python surface: actions numbered `row * cols + col`, NumPy arrays in and
//! out, Python exceptions for every refusal, and the GIL released while Rust
//! works on a batch, a search or a solve.
//!
//! The Python side (`python/oxo/`) adds the PettingZoo environment, which
//! must subclass PettingZoo's own class, and the type stubs.

mod args;
mod errors;
mod game;
mod solve;
mod strategy;
mod vector;

use std::sync::{Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;

/// `mutex`, locked: what this crate keeps behind a lock (the solvers'
/// pool, a strategy's built player, a signal's exception) is only ever
/// replaced whole, so a thread that panicked holding it left it sound.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether this is Python's main thread, the only one where Python runs
/// signal handlers (so where Ctrl-C can stop a long call).
fn on_main_thread(py: Python<'_>) -> PyResult<bool> {
    let threading = py.import("threading")?;
    Ok(threading
        .call_method0("current_thread")?
        .is(&threading.call_method0("main_thread")?))
}

/// The extension module, imported by the package as `oxo._oxo`.
#[pymodule]
fn _oxo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<vector::PyVectorGame>()?;
    m.add_class::<strategy::PyStrategy>()?;
    m.add_class::<solve::PySolution>()?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(solve::_solution, m)?)?;
    m.add("STRATEGIES", oxo_ai::StrategyKind::NAMES.to_vec())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
