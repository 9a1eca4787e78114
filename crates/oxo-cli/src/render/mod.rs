//! What the computer-player commands print: tables for people, JSON and CSV
//! for programs, SVG pictures. The figures come from `oxo_ai` ([`arena`]:
//! `oxo_ai::arena`, [`tournament`]: `oxo_ai::tournament`, [`train`]:
//! `oxo_ai::curve`); these modules only lay them out, byte for byte as
//! documented.

pub mod arena;
pub mod tournament;
pub mod train;
