//! Integer arguments checked by name.
//!
//! pyo3 converts a Python `int` to a Rust `u32` or `u64` with a bare
//! `OverflowError` ("out of range integral type conversion attempted")
//! when it is negative or too large, naming no argument. The functions
//! here take an [`Int`] instead, which holds any Python integer, and check
//! its range themselves, so the error names the argument and what it may
//! be.

use std::fmt;

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyBool;
use pyo3::{Borrowed, PyTypeInfo};

use crate::errors::raise;

/// An integer argument as Python gave it: an `int`, or anything with
/// `__index__` (a NumPy integer), but not a `bool` (an `int` to Python,
/// but never meant as a size, seed or budget; `Game.play` refuses one as a
/// move too). Anything else is a `TypeError`, pyo3's naming the argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Int {
    /// Its value.
    Fits(i128),
    /// Beyond an `i128` either way: its decimal text, for a message. No
    /// argument accepts such a value.
    Huge(String),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Int> {
        if obj.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(format!(
                "a bool is not a number here: give an int, not {}",
                obj.str()?
            )));
        }
        match obj.extract::<i128>() {
            Ok(value) => Ok(Int::Fits(value)),
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                Ok(Int::Huge(obj.str()?.to_string()))
            }
            Err(e) => Err(e),
        }
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Int::Fits(value) => write!(f, "{value}"),
            Int::Huge(text) => f.write_str(text),
        }
    }
}

impl Int {
    /// The value as a `T`, when it is one (`None` when it is out of `T`'s
    /// range).
    pub(crate) fn to<T: TryFrom<i128>>(&self) -> Option<T> {
        match self {
            Int::Fits(value) => T::try_from(*value).ok(),
            Int::Huge(_) => None,
        }
    }

    /// Whether the value is below zero.
    pub(crate) fn is_negative(&self) -> bool {
        match self {
            Int::Fits(value) => *value < 0,
            Int::Huge(text) => text.starts_with('-'),
        }
    }

    /// The value as a `u64`, or the exception `E` saying that `name` must
    /// be from 0 to `u64::MAX`, and what it was.
    pub(crate) fn to_u64<E: PyTypeInfo>(&self, name: &str) -> PyResult<u64> {
        self.to()
            .ok_or_else(|| raise::<E>(format!("{name} must be from 0 to {}, not {self}", u64::MAX)))
    }
}
