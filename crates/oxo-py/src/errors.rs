//! The package's exceptions, and how the library crates' typed errors map
//! onto them. Every one derives from `oxo.OxoError`, itself a `ValueError`:
//! each says that an argument (a board, a move, a model file) was refused.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    oxo,
    OxoError,
    PyValueError,
    "Base of every error oxo raises: an argument it refused."
);
create_exception!(
    oxo,
    RulesError,
    OxoError,
    "A board or position oxo cannot play: a bad size or k, a position play cannot reach, text that is not a board."
);
create_exception!(
    oxo,
    IllegalMoveError,
    OxoError,
    "A move the rules refuse (off the board, taken, after the end); the game is unchanged."
);
create_exception!(
    oxo,
    StrategyError,
    OxoError,
    "A strategy that does not exist or cannot play this board."
);
create_exception!(
    oxo,
    ModelError,
    OxoError,
    "A learned model file that cannot be read, or that was trained for another board."
);
create_exception!(
    oxo,
    SolveError,
    OxoError,
    "A position the solver does not handle, or one it could not finish within its budget."
);

/// Add the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("OxoError", py.get_type::<OxoError>())?;
    m.add("RulesError", py.get_type::<RulesError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("StrategyError", py.get_type::<StrategyError>())?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    m.add("SolveError", py.get_type::<SolveError>())?;
    Ok(())
}

/// A library error as the Python exception `E`, with its message.
pub(crate) fn raise<E: pyo3::PyTypeInfo>(error: impl std::fmt::Display) -> PyErr {
    PyErr::new::<E, _>(error.to_string())
}

/// A library error's message followed by its causes' (`cannot read …: Is
/// a directory (os error 21)`), as the command line prints an error.
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        message.push_str(": ");
        message.push_str(&e.to_string());
        cause = e.source();
    }
    message
}
