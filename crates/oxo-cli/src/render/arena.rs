//! `oxo arena`'s match results: a table for people, one JSON object for
//! programs.

use std::time::Duration;

use oxo_ai::arena::{Config, Forfeit, Results};
use oxo_core::BoardSize;
use serde::Serialize;

use crate::solve::to_json;

/// The readable results table.
#[must_use]
pub fn table(config: &Config, results: &Results, elapsed: Duration) -> String {
    let pct = |n: u64| {
        if results.games == 0 {
            0.0
        } else {
            100.0 * n as f64 / results.games as f64
        }
    };
    let x_name = format!("X {}", config.x);
    let o_name = format!("O {}", config.o);
    let mut out = String::new();
    out.push_str(&format!(
        "{} games of {} (seed {}), {} moving first{}{}\n",
        results.games,
        config.rules,
        config.seed,
        match config.first {
            Some(p) => format!("{p} always"),
            None => "X and O taking turns".to_owned(),
        },
        match config.opening {
            0 => String::new(),
            n => format!(", from {n}-move openings"),
        },
        if config.threads > 1 {
            format!(", {} threads", config.threads)
        } else {
            String::new()
        }
    ));
    // Names as wide as the longest (an engine's path can be long).
    let w = x_name.chars().count().max(o_name.chars().count()).max(14);
    out.push_str(&format!(
        "  {:<w$} {:>8} {:>7}   {:>12}\n",
        "", "wins", "%", "per move"
    ));
    for (name, side) in [(x_name, &results.x), (o_name, &results.o)] {
        out.push_str(&format!(
            "  {:<w$} {:>8} {:>6.1}%   {:>9.1} µs\n",
            name,
            side.wins,
            pct(side.wins),
            side.micros_per_move()
        ));
    }
    out.push_str(&format!(
        "  {:<w$} {:>8} {:>6.1}%\n",
        "draws",
        results.draws,
        pct(results.draws)
    ));
    out.push_str(&format!(
        "  average game {:.2} plies; the first mover won {} games; {:.2} s in all\n",
        results.average_plies(),
        results.first_mover_wins,
        elapsed.as_secs_f64()
    ));
    out.push_str(&forfeits_text(&results.forfeits));
    out
}

/// The games lost for a move not given, one line each (the first 20).
#[must_use]
pub fn forfeits_text(forfeits: &[Forfeit]) -> String {
    const SHOWN: usize = 20;
    let mut out = String::new();
    if forfeits.is_empty() {
        return out;
    }
    out.push_str(&format!(
        "{} games lost for a move not given:\n",
        forfeits.len()
    ));
    for f in forfeits.iter().take(SHOWN) {
        out.push_str(&format!(
            "  game {}: {} ({}) lost: {}\n",
            f.game, f.player, f.side, f.reason
        ));
    }
    if forfeits.len() > SHOWN {
        out.push_str(&format!("  and {} more\n", forfeits.len() - SHOWN));
    }
    out
}

/// A forfeit as JSON shows it.
#[derive(Serialize)]
pub(super) struct ForfeitJson<'a> {
    game: u64,
    player: &'a str,
    side: char,
    reason: &'a str,
}

impl<'a> From<&'a Forfeit> for ForfeitJson<'a> {
    fn from(f: &'a Forfeit) -> Self {
        ForfeitJson {
            game: f.game,
            player: &f.player,
            side: f.side.as_char(),
            reason: &f.reason,
        }
    }
}

/// Rounded to `places` decimals, for JSON that reads well.
pub(super) fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

/// The results as one JSON object.
#[must_use]
pub fn json(config: &Config, results: &Results, elapsed: Duration) -> String {
    #[derive(Serialize)]
    struct Json<'a> {
        x: &'a str,
        o: &'a str,
        size: BoardSize,
        k: u32,
        seed: u64,
        games: u64,
        x_wins: u64,
        o_wins: u64,
        draws: u64,
        x_first: u64,
        average_plies: f64,
        x_us_per_move: f64,
        o_us_per_move: f64,
        seconds: f64,
        forfeits: Vec<ForfeitJson<'a>>,
        #[serde(skip_serializing_if = "is_zero")]
        opening: u32,
    }
    to_json(&Json {
        x: config.x.name(),
        o: config.o.name(),
        size: config.rules.size(),
        k: config.rules.k(),
        seed: config.seed,
        games: results.games,
        x_wins: results.x.wins,
        o_wins: results.o.wins,
        draws: results.draws,
        x_first: results.x_first,
        average_plies: round(results.average_plies(), 3),
        x_us_per_move: round(results.x.micros_per_move(), 2),
        o_us_per_move: round(results.o.micros_per_move(), 2),
        seconds: round(elapsed.as_secs_f64(), 3),
        forfeits: results.forfeits.iter().map(ForfeitJson::from).collect(),
        opening: config.opening,
    })
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
const fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxo_ai::StrategyKind;
    use oxo_ai::arena::{self, Entrant};
    use oxo_core::Rules;

    fn config(x: StrategyKind, o: StrategyKind, games: u64) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            x: Entrant::strategy(x),
            o: Entrant::strategy(o),
            games,
            first: None,
            seed: 42,
            threads: 2,
            opening: 0,
        }
    }

    #[test]
    fn the_table_names_the_openings() {
        let mut config = config(StrategyKind::Rules, StrategyKind::Rules, 20);
        config.rules = Rules::new(9, 9, 5).unwrap();
        config.opening = 4;
        let results = arena::run(&config, |_| {}).unwrap();
        let text = table(&config, &results, Duration::ZERO);
        assert!(text.contains("from 4-move openings"), "{text}");
    }

    #[test]
    fn outputs_name_both_sides() {
        let c = config(StrategyKind::Rules, StrategyKind::Random, 20);
        let results = arena::run(&c, |_| {}).unwrap();
        let json = json(&c, &results, Duration::from_millis(5));
        assert!(json.starts_with("{\"x\":\"rules\",\"o\":\"random\",\"size\":\"3x3\",\"k\":3,\"seed\":42,\"games\":20,"), "{json}");
        let text = table(&c, &results, Duration::from_millis(5));
        assert!(text.contains("X rules"), "{text}");
        assert!(text.contains("O random"), "{text}");
    }
}
