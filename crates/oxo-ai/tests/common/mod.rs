//! What the solver's and the prover's tests share.

use oxo_ai::Value;
use oxo_core::Rules;

/// Rows of `tests/data/known_values.txt`.
pub fn known_values() -> Vec<(Rules, Value)> {
    let text = include_str!("../data/known_values.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let n = |i: usize| f[i].parse::<u32>().unwrap();
            let rules = Rules::new(n(0), n(1), n(2)).unwrap();
            let value = match f[3] {
                "win" => Value::Win,
                "draw" => Value::Draw,
                "loss" => Value::Loss,
                other => panic!("bad value {other}"),
            };
            (rules, value)
        })
        .collect()
}
