//! Browser tests of `oxo serve` live in `tests/`; this crate has no library code.
