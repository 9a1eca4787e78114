//! What the computer-player commands print: tables for people, JSON and CSV
//! for programs, SVG pictures. The figures come from `oxo_ai` ([`arena`]:
//! `oxo_ai::arena`, [`tournament`]: `oxo_ai::tournament`, [`train`]:
//! `oxo_ai::curve`); these modules only lay them out, byte for byte as
//! documented.

pub mod arena;
pub mod tournament;
pub mod train;

/// `n` and `noun`, plural unless `n` is 1: "1 game", "3 games" (nouns
/// whose plural adds an s).
#[must_use]
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(super::count(1, "game"), "1 game");
        assert_eq!(super::count(0, "game"), "0 games");
        assert_eq!(super::count(2, "thread"), "2 threads");
    }
}
