//! `oxo arena --players`'s round robin: a table of standings and scores,
//! one JSON object, and an SVG picture (the cross table and every player's
//! Elo with its interval).

use std::fmt::Write as _;
use std::time::Duration;

use oxo_ai::tournament::{Config, Results};
use oxo_core::BoardSize;
use serde::Serialize;

use super::arena::{
    EngineClock, ForfeitJson, StoppedJson, forfeits_text, is_zero, opening_json, round,
    stopped_line,
};
use crate::signals::Signal;
use crate::solve::to_json;

fn signed(elo: f64) -> String {
    let rounded = elo.round();
    if rounded == 0.0 {
        "0".to_owned()
    } else {
        format!("{rounded:+.0}")
    }
}

/// The readable results: standings, then every pair's score, the engines'
/// `clock` said on the first line; with `stopped`, of a round robin that
/// signal stopped before it was over.
#[must_use]
pub fn table(
    config: &Config,
    results: &Results,
    clock: Option<EngineClock>,
    elapsed: Duration,
    stopped: Option<Signal>,
) -> String {
    let name = |i: usize| config.players[i].name();
    let width = config
        .players
        .iter()
        .map(|p| p.name().chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "round robin on {} (seed {}): {} players, {} a pair, {}{}{}{}",
        config.rules,
        config.seed,
        config.players.len(),
        super::count(config.games, "game"),
        // The pair's first-named player is X in its even-numbered games.
        if config.games.is_multiple_of(2) {
            "each player X (moving first) in half"
        } else if config.games == 1 {
            "the first-named of each pair X (moving first)"
        } else {
            "each player X (moving first) in about half"
        },
        super::arena::opening_clause(&config.opening),
        EngineClock::clause(clock),
        if config.threads > 1 {
            format!(", {} threads", config.threads)
        } else {
            String::new()
        }
    );
    if let Some(signal) = stopped {
        out.push_str(&stopped_line(signal, results.games(), config.total_games()));
    }
    let _ = writeln!(
        out,
        "  {:<width$} {:>7} {:>7} {:>7} {:>7} {:>7}   {:>5} {:>6}",
        "player", "games", "wins", "draws", "losses", "score", "Elo", "95%"
    );
    for s in &results.standings {
        // A player a stopped round robin gave no game has no score or
        // rating to show (the fit puts it at the average, knowing nothing).
        let (score, elo, interval) = if s.games == 0 {
            ("-".to_owned(), "-".to_owned(), "-".to_owned())
        } else {
            (
                format!("{:.1}%", 100.0 * s.score),
                signed(s.elo),
                format!("±{:.0}", s.elo_95),
            )
        };
        let _ = writeln!(
            out,
            "  {:<width$} {:>7} {:>7} {:>7} {:>7} {score:>7}   {elo:>5} {interval:>6}",
            name(s.player),
            s.games,
            s.wins,
            s.draws,
            s.losses,
        );
    }
    let _ = writeln!(out, "  score of each row against each column:");
    let order: Vec<usize> = results.standings.iter().map(|s| s.player).collect();
    let col_width = order
        .iter()
        .map(|&i| name(i).chars().count())
        .max()
        .unwrap_or(0)
        .max(6);
    let _ = write!(out, "  {:<width$}", "");
    for &j in &order {
        let _ = write!(out, " {:>col_width$}", name(j));
    }
    out.push('\n');
    for &i in &order {
        let _ = write!(out, "  {:<width$}", name(i));
        for &j in &order {
            match results.score_between(i, j) {
                Some(score) => {
                    let _ = write!(out, " {:>col_width$}", format!("{:.1}%", 100.0 * score));
                }
                None if i == j => {
                    let _ = write!(out, " {:>col_width$}", "-");
                }
                // A pair a stopped round robin did not reach.
                None => {
                    let _ = write!(out, " {:>col_width$}", "none");
                }
            }
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "  {} in {:.2} s; Elo: a logistic fit, the field's average 0, 95% intervals",
        super::count(results.games(), "game"),
        elapsed.as_secs_f64()
    );
    if results.replayed_games > 0 {
        // Openings are what vary such games; a run with them already
        // needs more of them, or longer ones.
        let hint = match config.opening {
            oxo_ai::arena::Opening::Random(0) => "--opening N varies them",
            _ => "more or longer openings vary them",
        };
        let _ = writeln!(
            out,
            "  {} of {} replay their pairing's game with the same seats and opening move for \
             move: the intervals take each as new evidence ({hint})",
            results.replayed_games,
            super::count(results.games(), "game"),
        );
    }
    out.push_str(&forfeits_text(&results.forfeits));
    out
}

/// The results as one JSON object, with the engines' `clock` when they
/// have one; with `stopped`, of a round robin that signal stopped before
/// it was over.
#[must_use]
pub fn json(
    config: &Config,
    results: &Results,
    clock: Option<EngineClock>,
    elapsed: Duration,
    stopped: Option<Signal>,
) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        player: &'a str,
        games: u64,
        wins: u64,
        draws: u64,
        losses: u64,
        // `null` for a player with no game (a stopped round robin's).
        score: Option<f64>,
        elo: Option<f64>,
        elo_95: Option<f64>,
    }
    #[derive(Serialize)]
    struct Pair<'a> {
        a: &'a str,
        b: &'a str,
        a_wins: u64,
        b_wins: u64,
        draws: u64,
    }
    #[derive(Serialize)]
    struct Json<'a> {
        size: BoardSize,
        k: u32,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
        seed: u64,
        games_per_pair: u64,
        games: u64,
        replayed_games: u64,
        seconds: f64,
        standings: Vec<Line<'a>>,
        pairings: Vec<Pair<'a>>,
        forfeits: Vec<ForfeitJson<'a>>,
        #[serde(skip_serializing_if = "is_zero")]
        opening: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        openings: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        match_time_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        move_time_ms: Option<u64>,
        #[serde(flatten)]
        stopped: Option<StoppedJson>,
    }
    let name = |i: usize| config.players[i].name();
    to_json(&Json {
        size: config.rules.size(),
        k: config.rules.k(),
        exact: config.rules.is_exact(),
        seed: config.seed,
        games_per_pair: config.games,
        games: results.games(),
        replayed_games: results.replayed_games,
        seconds: round(elapsed.as_secs_f64(), 3),
        standings: results
            .standings
            .iter()
            .map(|s| {
                let played = |value: f64, places: i32| (s.games > 0).then(|| round(value, places));
                Line {
                    player: name(s.player),
                    games: s.games,
                    wins: s.wins,
                    draws: s.draws,
                    losses: s.losses,
                    score: played(s.score, 4),
                    elo: played(s.elo, 1),
                    elo_95: played(s.elo_95, 1),
                }
            })
            .collect(),
        pairings: results
            .pairings
            .iter()
            .map(|p| Pair {
                a: name(p.a),
                b: name(p.b),
                a_wins: p.a_wins,
                b_wins: p.b_wins,
                draws: p.draws,
            })
            .collect(),
        forfeits: results.forfeits.iter().map(ForfeitJson::from).collect(),
        opening: opening_json(&config.opening).0,
        openings: opening_json(&config.opening).1,
        match_time_ms: EngineClock::match_ms(clock),
        move_time_ms: EngineClock::move_ms(clock),
        stopped: stopped.map(|signal| StoppedJson::new(signal, config.total_games())),
    })
}

/// Text safe inside SVG markup.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A player's name as the picture shows it, of its `parts` last path
/// components for an engine (`brain:/long/path/pbrain-x` is `pbrain-x` with
/// one, `path/pbrain-x` with two), anything else whole. The whole name
/// goes in a tooltip.
fn short_name(name: &str, parts: usize) -> &str {
    let Some(path) = name.strip_prefix("brain:") else {
        return name;
    };
    // The byte where the last `parts` components start.
    let start = path
        .trim_end_matches('/')
        .rmatch_indices('/')
        .nth(parts - 1)
        .map_or(0, |(at, _)| at + 1);
    &path[start..]
}

/// The width of `text` in the picture's font, about (sans-serif at
/// `size` px: an average letter is a little over half the size).
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.6
}

/// The results as a picture: the cross table coloured by score, and every
/// player's Elo with its 95% interval; with `stopped`, of a round robin
/// that signal stopped before it was over.
///
/// Rows are labelled with the players' names (an engine's file name, the
/// whole name in a tooltip), and the margin is as wide as the longest. Column
/// heads are the names too when each fits its column, and otherwise the
/// rows' numbers, the rows then numbered as their key.
#[must_use]
pub fn svg(config: &Config, results: &Results, stopped: Option<Signal>) -> String {
    const FONT: f64 = 13.0;
    let order: Vec<usize> = results.standings.iter().map(|s| s.player).collect();
    let n = order.len();
    let full = |i: usize| config.players[i].name();
    // Two engines of one file name in different folders are told apart by
    // their folders, or else by their whole names.
    let players = config.players.len();
    let shown: Vec<&str> = (0..players)
        .map(|i| {
            let unique = |parts| {
                let short = short_name(full(i), parts);
                (0..players)
                    .all(|j| j == i || short_name(full(j), parts) != short)
                    .then_some(short)
            };
            unique(1).or_else(|| unique(2)).unwrap_or(full(i))
        })
        .collect();
    let cell = 64.0;
    let names_fit = order
        .iter()
        .all(|&i| text_width(shown[i], FONT) <= cell - 8.0);
    let row_label = |row: usize, i: usize| {
        if names_fit {
            shown[i].to_owned()
        } else {
            format!("{}. {}", row + 1, shown[i])
        }
    };
    let widest = order
        .iter()
        .enumerate()
        .map(|(row, &i)| text_width(&row_label(row, i), FONT))
        .fold(0.0_f64, f64::max);
    let label = (widest + 26.0).max(120.0).ceil();
    let top = 96.0;
    let grid = cell * n as f64;
    let caption = "score of each row against each column";
    // The Elo panel clear of the table and of its caption.
    let chart_x = label + grid.max(text_width(caption, FONT)) + 40.0;
    let chart_w = 320.0;
    let partial = stopped.map_or(String::new(), |signal| {
        format!(
            "; partial: stopped by {} after {} of {} games",
            signal.name(),
            results.games(),
            config.total_games()
        )
    });
    let title = format!(
        "Round robin on {}: {} games a pair (seed {}){partial}",
        config.rules, config.games, config.seed
    );
    // Room for the names at the right of the Elo panel, and for the title.
    let elo_names = order
        .iter()
        .map(|&i| text_width(shown[i], FONT))
        .fold(0.0_f64, f64::max);
    let width = (chart_x + chart_w + 12.0 + elo_names + 24.0)
        .max(16.0 + text_width(&title, 16.0) + 24.0)
        .ceil();
    let height = top + grid + 60.0;
    let tooltip = |i: usize| format!("<title>{}</title>", xml(full(i)));
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="13">"##
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/><text x="16" y="28" font-size="16" font-weight="bold">{}</text>"##,
        xml(&title)
    );
    let _ = writeln!(
        out,
        r##"<text x="{label:.0}" y="{:.0}">{caption}</text>"##,
        top - 40.0
    );
    for (col, &j) in order.iter().enumerate() {
        let head = if names_fit {
            shown[j].to_owned()
        } else {
            (col + 1).to_string()
        };
        let _ = writeln!(
            out,
            r##"<text x="{:.0}" y="{:.0}" text-anchor="middle">{}{}</text>"##,
            label + cell * (col as f64 + 0.5),
            top - 10.0,
            tooltip(j),
            xml(&head)
        );
    }
    for (row, &i) in order.iter().enumerate() {
        let y = top + cell * row as f64;
        let _ = writeln!(
            out,
            r##"<text x="{:.0}" y="{:.0}" text-anchor="end">{}{}</text>"##,
            label - 10.0,
            y + cell / 2.0 + 5.0,
            tooltip(i),
            xml(&row_label(row, i))
        );
        for (col, &j) in order.iter().enumerate() {
            let x = label + cell * col as f64;
            let (fill, text) = match results.score_between(i, j) {
                // Blue for a winning score, orange for a losing one (safe
                // for colour-blind readers), white at 50%.
                Some(s) => {
                    let t = (2.0 * s - 1.0).clamp(-1.0, 1.0);
                    let (r, g, b) = if t >= 0.0 {
                        (255.0 - 200.0 * t, 255.0 - 120.0 * t, 255.0 - 30.0 * t)
                    } else {
                        (255.0 + 5.0 * t, 255.0 + 100.0 * t, 255.0 + 220.0 * t)
                    };
                    (
                        format!("rgb({r:.0},{g:.0},{b:.0})"),
                        format!("{:.0}%", 100.0 * s),
                    )
                }
                None if i == j => ("#e6e6e6".to_owned(), "–".to_owned()),
                // A pair a stopped round robin did not reach.
                None => ("#f6f8fa".to_owned(), "none".to_owned()),
            };
            let _ = writeln!(
                out,
                r##"<rect x="{x:.0}" y="{y:.0}" width="{cell:.0}" height="{cell:.0}" fill="{fill}" stroke="#999"/><text x="{:.0}" y="{:.0}" text-anchor="middle">{text}</text>"##,
                x + cell / 2.0,
                y + cell / 2.0 + 5.0
            );
        }
    }
    // Elo with error bars, on a scale wide enough for every interval.
    let reach = results
        .standings
        .iter()
        .filter(|s| s.games > 0)
        .map(|s| s.elo.abs() + s.elo_95.min(2000.0))
        .fold(100.0_f64, f64::max);
    let to_x = |elo: f64| chart_x + chart_w / 2.0 + elo / reach * chart_w / 2.0;
    let _ = writeln!(
        out,
        r##"<text x="{chart_x:.0}" y="{:.0}">Elo (field average 0), 95% interval</text>"##,
        top - 40.0
    );
    let _ = writeln!(
        out,
        r##"<rect x="{chart_x:.0}" y="{top:.0}" width="{chart_w:.0}" height="{grid:.0}" fill="#f6f8fa" stroke="#ccc"/>"##
    );
    for tick in [-reach, -reach / 2.0, 0.0, reach / 2.0, reach] {
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.0}" text-anchor="middle" fill="#555">{}</text>"##,
            to_x(tick),
            top + grid + 18.0,
            signed(tick)
        );
    }
    let _ = writeln!(
        out,
        r##"<line x1="{0:.1}" y1="{1:.0}" x2="{0:.1}" y2="{2:.0}" stroke="#999" stroke-dasharray="4 3"/>"##,
        to_x(0.0),
        top - 4.0,
        top + grid
    );
    for (row, s) in results.standings.iter().enumerate() {
        let y = top + cell * (row as f64 + 0.5);
        let label = format!(
            r##"<text x="{:.0}" y="{:.0}">{}{}</text>"##,
            chart_x + chart_w + 12.0,
            y + 5.0,
            tooltip(s.player),
            xml(shown[s.player])
        );
        if s.games == 0 {
            let _ = writeln!(
                out,
                r##"<text x="{:.1}" y="{:.0}" text-anchor="middle" fill="#555">no games</text>"##,
                to_x(0.0),
                y + 5.0
            );
            let _ = writeln!(out, "{label}");
            continue;
        }
        let (lo, hi) = (
            to_x((s.elo - s.elo_95).max(-reach)),
            to_x((s.elo + s.elo_95).min(reach)),
        );
        let _ = writeln!(
            out,
            r##"<line x1="{lo:.1}" y1="{y:.0}" x2="{hi:.1}" y2="{y:.0}" stroke="#0b5394" stroke-width="2"/><line x1="{lo:.1}" y1="{:.0}" x2="{lo:.1}" y2="{:.0}" stroke="#0b5394" stroke-width="2"/><line x1="{hi:.1}" y1="{:.0}" x2="{hi:.1}" y2="{:.0}" stroke="#0b5394" stroke-width="2"/><circle cx="{:.1}" cy="{y:.0}" r="5" fill="#0b5394"/><text x="{:.1}" y="{:.0}" text-anchor="middle">{} ± {:.0}</text>"##,
            y - 6.0,
            y + 6.0,
            y - 6.0,
            y + 6.0,
            to_x(s.elo),
            to_x(s.elo),
            y - 12.0,
            signed(s.elo),
            s.elo_95
        );
        let _ = writeln!(out, "{label}");
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use oxo_ai::StrategyKind;
    use oxo_ai::arena::Entrant;
    use oxo_ai::tournament;
    use oxo_core::Rules;

    fn config(players: &[StrategyKind], games: u64, threads: usize) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            players: players.iter().map(|&k| Entrant::strategy(k)).collect(),
            games,
            seed: 9,
            threads,
            opening: oxo_ai::arena::Opening::Random(0),
        }
    }

    #[test]
    fn outputs_name_every_player() {
        let kinds = [StrategyKind::Random, StrategyKind::Rules];
        let c = config(&kinds, 10, 1);
        let results = tournament::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let text = table(&c, &results, None, Duration::from_millis(3), None);
        assert!(
            text.starts_with("round robin on 3x3 k=3 (seed 9): 2 players"),
            "{text}"
        );
        assert!(text.contains("rules") && text.contains("random"), "{text}");
        let json = json(&c, &results, None, Duration::from_millis(3), None);
        assert!(
            json.starts_with(
                "{\"size\":\"3x3\",\"k\":3,\"seed\":9,\"games_per_pair\":10,\"games\":10,"
            ),
            "{json}"
        );
        assert!(
            json.contains("\"pairings\":[{\"a\":\"random\",\"b\":\"rules\","),
            "{json}"
        );
        let svg = svg(&c, &results, None);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 2);
    }

    /// Games that repeat an earlier one are counted and said.
    #[test]
    fn repeated_games_are_said() {
        struct FirstLegal;
        impl oxo_ai::Strategy for FirstLegal {
            fn choose(&mut self, game: &oxo_core::Game) -> Option<oxo_core::Cell> {
                game.legal_moves().next()
            }
            fn name(&self) -> &str {
                "first"
            }
        }
        let mut c = config(&[StrategyKind::Random; 2], 4, 1);
        c.players = ["a", "b"]
            .map(|name| {
                Entrant::external(name, |_, _| {
                    Ok(Box::new(FirstLegal) as Box<dyn oxo_ai::Strategy>)
                })
            })
            .to_vec();
        let results = tournament::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let text = table(&c, &results, None, Duration::from_millis(3), None);
        assert!(
            text.contains(
                "\n  2 of 4 games replay their pairing's game with the same seats and opening \
                 move for move: the intervals take each as new evidence (--opening N varies \
                 them)\n"
            ),
            "{text}"
        );
        let json = json(&c, &results, None, Duration::from_millis(3), None);
        assert!(json.contains("\"games\":4,\"replayed_games\":2,"), "{json}");
        // Games that all differ need no word.
        let c = config(&[StrategyKind::Random, StrategyKind::Rules], 1, 1);
        let results = tournament::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let text = table(&c, &results, None, Duration::from_millis(3), None);
        assert!(!text.contains("replay"), "{text}");
    }

    /// Players a stopped round robin gave no game have no score or rating
    /// shown: a dash in the table, `null` in the JSON, no bar in the plot.
    #[test]
    fn a_player_without_games_has_no_rating_shown() {
        let c = config(&[StrategyKind::Random, StrategyKind::Rules], 10, 1);
        let results = tournament::run(&c, &AtomicBool::new(true), |_| {}).unwrap();
        assert_eq!(results.games(), 0);
        let text = table(&c, &results, None, Duration::from_millis(3), None);
        let row = text
            .lines()
            .find(|line| line.trim_start().starts_with("rules"))
            .expect("a row for rules");
        assert_eq!(
            row.split_whitespace().collect::<Vec<_>>(),
            ["rules", "0", "0", "0", "0", "-", "-", "-"],
            "{text}"
        );
        let json = json(&c, &results, None, Duration::from_millis(3), None);
        assert!(
            json.contains("\"losses\":0,\"score\":null,\"elo\":null,\"elo_95\":null}"),
            "{json}"
        );
        let svg = svg(&c, &results, None);
        assert_eq!(svg.matches("<circle").count(), 0, "{svg}");
        assert_eq!(svg.matches(">no games</text>").count(), 2, "{svg}");
    }

    /// Every `<text>` of `svg`: its x, its anchor and what it shows (its
    /// tooltip apart).
    fn texts(svg: &str) -> Vec<(f64, &str, String, Option<String>)> {
        svg.split("<text x=\"")
            .skip(1)
            .map(|rest| {
                let x = rest[..rest.find('"').unwrap()].parse().unwrap();
                let tag = &rest[..rest.find('>').unwrap()];
                let anchor = tag
                    .split("text-anchor=\"")
                    .nth(1)
                    .map_or("start", |a| &a[..a.find('"').unwrap()]);
                let body = &rest[rest.find('>').unwrap() + 1..rest.find("</text>").unwrap()];
                let (tooltip, shown) = match body.strip_prefix("<title>") {
                    Some(titled) => {
                        let end = titled.find("</title>").unwrap();
                        (Some(titled[..end].to_owned()), &titled[end + 8..])
                    }
                    None => (None, body),
                };
                (x, anchor, shown.to_owned(), tooltip)
            })
            .collect()
    }

    /// An engine with a long path: its file name in the picture, the whole
    /// name in a tooltip, no label cut at the left edge, no column heads
    /// wider than their column, and names in the Elo panel too.
    #[test]
    fn the_plot_makes_room_for_long_names() {
        let long = "brain:/some/long/path/to/the/engines/pbrain-of-a-rather-long-name";
        let mut c = config(&[StrategyKind::Random, StrategyKind::Rules], 2, 1);
        c.players.push(Entrant::external(long, |rules, seed| {
            StrategyKind::Random
                .build(rules, seed)
                .map_err(|e| e.to_string())
        }));
        let results = tournament::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let svg = svg(&c, &results, None);
        let texts = texts(&svg);
        let width: f64 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|w| w[..w.find('"').unwrap()].parse().ok())
            .unwrap();
        let cell = 64.0;
        let mut heads = 0;
        for (x, anchor, shown, tooltip) in &texts {
            let wide = text_width(shown, 13.0);
            let (left, right) = match *anchor {
                "end" => (x - wide, *x),
                "middle" => (x - wide / 2.0, x + wide / 2.0),
                _ => (*x, x + wide),
            };
            assert!(left >= 0.0 && right <= width, "{shown:?} at {x}: {svg}");
            if let Some(tooltip) = tooltip {
                // A name, short; a column head may be its row's number.
                let name = c
                    .players
                    .iter()
                    .find(|p| p.name() == tooltip)
                    .unwrap()
                    .name();
                if *anchor == "middle" {
                    heads += 1;
                    assert!(
                        wide <= cell - 8.0,
                        "a column head wider than its column: {shown:?}"
                    );
                    assert!(shown.parse::<usize>().is_ok() || shown == short_name(name, 1));
                } else {
                    assert!(shown.ends_with(short_name(name, 1)), "{shown:?} for {name}");
                }
            }
        }
        assert_eq!(heads, 3, "{svg}");
        let engine: Vec<_> = texts
            .iter()
            .filter(|t| t.3.as_deref() == Some(long))
            .map(|t| t.2.as_str())
            .collect();
        // Its row (numbered, as its name is too wide for a column head),
        // its column (the number) and its line in the Elo panel.
        assert_eq!(engine.len(), 3, "{engine:?}");
        assert!(
            engine
                .iter()
                .any(|t| t.ends_with(". pbrain-of-a-rather-long-name")),
            "{engine:?}"
        );
        assert!(
            engine.contains(&"pbrain-of-a-rather-long-name"),
            "{engine:?}"
        );
        assert!(texts.iter().all(|t| !t.2.contains("/long/")), "{svg}");
    }

    #[test]
    fn engines_of_one_file_name_are_told_apart_by_their_folders() {
        assert_eq!(short_name("brain:/a/b/pbrain-x", 1), "pbrain-x");
        assert_eq!(short_name("brain:/a/b/pbrain-x", 2), "b/pbrain-x");
        assert_eq!(short_name("brain:pbrain-x", 2), "pbrain-x");
        assert_eq!(short_name("rules", 1), "rules");
        let mut c = config(&[StrategyKind::Random], 2, 1);
        for folder in ["one", "two"] {
            c.players.push(Entrant::external(
                format!("brain:/engines/{folder}/pbrain-x"),
                |rules, seed| {
                    StrategyKind::Random
                        .build(rules, seed)
                        .map_err(|e| e.to_string())
                },
            ));
        }
        let results = tournament::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let svg = svg(&c, &results, None);
        for folder in ["one", "two"] {
            assert!(
                svg.contains(&format!(
                    "<title>brain:/engines/{folder}/pbrain-x</title>{folder}/pbrain-x<"
                )),
                "{svg}"
            );
        }
    }
}
