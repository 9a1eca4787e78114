//! `oxo arena --players a,b,c`: a round robin between several players, with
//! a results table, Elo estimates with error bars, JSON and an SVG picture.
//!
//! Every pair of players meets for the same number of games, each player
//! taking X in half of them (X moves first). Ratings come from a
//! Bradley–Terry fit (the logistic Elo model) to every game's score, a draw
//! counting half a win, found by the minorisation–maximisation iteration.
//! One virtual draw between every pair keeps the fit finite when a player
//! wins or loses every game (as `perfect` can against `random`); its pull
//! is one game in `--games`. The ratings are centred on 0 (the field's
//! average); the error bars are 95% intervals (±1.96 standard errors) from
//! the fit's Fisher information, so they shrink as games are added.

use std::fmt::Write as _;
use std::time::Duration;

use oxo_core::{BoardSize, Player, Rules};
use serde::Serialize;

use crate::arena::{self, ArenaError, Entrant, round};
use crate::solve::to_json;

/// What to play.
#[derive(Clone, Debug)]
pub struct Config {
    /// Board and win length.
    pub rules: Rules,
    /// The players, at least two.
    pub players: Vec<Entrant>,
    /// Games for every pair of players.
    pub games: u64,
    /// Seed for every random choice.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Random moves each pair's games start from, as in
    /// [`arena::Config::opening`]; 0 for none.
    pub opening: u32,
}

impl Config {
    /// Every pair of players, in order: (0, 1), (0, 2), …, (1, 2), ….
    fn pairs(&self) -> Vec<(usize, usize)> {
        let n = self.players.len();
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect()
    }

    /// Games in the whole round robin.
    #[must_use]
    pub fn total_games(&self) -> u64 {
        self.pairs().len() as u64 * self.games
    }
}

/// How one pair of players fared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pairing {
    /// The first player's index in [`Config::players`].
    pub a: usize,
    /// The second player's index.
    pub b: usize,
    /// Games won by `a`.
    pub a_wins: u64,
    /// Games won by `b`.
    pub b_wins: u64,
    /// Drawn games.
    pub draws: u64,
}

impl Pairing {
    /// Games played.
    #[must_use]
    pub fn games(&self) -> u64 {
        self.a_wins + self.b_wins + self.draws
    }
}

/// One player's line in the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// The player's index in [`Config::players`].
    pub player: usize,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Points (a win 1, a draw ½) over games, from 0 to 1.
    pub score: f64,
    /// Elo rating, the field's average being 0.
    pub elo: f64,
    /// Half the width of the rating's 95% interval.
    pub elo_95: f64,
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// Every pair's results, in [`Config`]'s pair order.
    pub pairings: Vec<Pairing>,
    /// Every player's line, best Elo first.
    pub standings: Vec<Standing>,
    /// Games lost for a move not given (external engines), in game order.
    pub forfeits: Vec<arena::Forfeit>,
}

impl Results {
    /// Points `a` scored against `b`, over their games (0 to 1), or `None`
    /// for a player against itself.
    #[must_use]
    pub fn score_between(&self, a: usize, b: usize) -> Option<f64> {
        self.pairings.iter().find_map(|p| {
            let points = |wins: u64| (wins as f64 + p.draws as f64 / 2.0) / p.games() as f64;
            if (p.a, p.b) == (a, b) {
                Some(points(p.a_wins))
            } else if (p.a, p.b) == (b, a) {
                Some(points(p.b_wins))
            } else {
                None
            }
        })
    }
}

/// Play the round robin; `progress` is told the number of finished games
/// now and then.
///
/// # Errors
/// Fewer than two players, a player that cannot play these rules, or one
/// that offers an illegal move.
pub fn run(config: &Config, progress: impl FnMut(u64)) -> Result<Results, ArenaError> {
    if config.players.len() < 2 {
        return Err(ArenaError::TooFewPlayers);
    }
    for player in &config.players {
        player.check(config.rules)?;
    }
    let pairs = config.pairs();
    let games = arena::run_jobs(config.total_games(), config.threads, progress, |index| {
        let (a, b) = pairs[(index / config.games) as usize];
        // The pair's players swap seats game by game; X always moves first.
        let a_is_x = (index % config.games).is_multiple_of(2);
        let seats = if a_is_x { [a, b] } else { [b, a] };
        // Games 2j and 2j + 1 of a pair share an opening, one seat each.
        let opening_key = ((index / config.games) << 32) | ((index % config.games) / 2);
        let result = arena::play_one(
            config.rules,
            [&config.players[seats[0]], &config.players[seats[1]]],
            Player::X,
            config.seed,
            index,
            &arena::opening(config.rules, config.seed, opening_key, config.opening),
        )?;
        let a_side = if a_is_x { &result.x } else { &result.o };
        let b_side = if a_is_x { &result.o } else { &result.x };
        let pairing = Pairing {
            a,
            b,
            a_wins: a_side.wins,
            b_wins: b_side.wins,
            draws: result.draws,
        };
        Ok((pairing, result.forfeits))
    })?;
    let forfeits = games.iter().flat_map(|(_, f)| f.iter().cloned()).collect();
    let mut pairings: Vec<Pairing> = pairs
        .iter()
        .map(|&(a, b)| Pairing {
            a,
            b,
            ..Pairing::default()
        })
        .collect();
    for (index, (game, _)) in games.iter().enumerate() {
        let pairing = &mut pairings[index / config.games as usize];
        pairing.a_wins += game.a_wins;
        pairing.b_wins += game.b_wins;
        pairing.draws += game.draws;
    }
    let ratings = elo(config.players.len(), &pairings);
    let mut standings: Vec<Standing> = (0..config.players.len())
        .map(|player| {
            let mut line = Standing {
                player,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                score: 0.0,
                elo: ratings[player].0,
                elo_95: ratings[player].1,
            };
            for p in &pairings {
                let (wins, losses) = if p.a == player {
                    (p.a_wins, p.b_wins)
                } else if p.b == player {
                    (p.b_wins, p.a_wins)
                } else {
                    continue;
                };
                line.games += p.games();
                line.wins += wins;
                line.losses += losses;
                line.draws += p.draws;
            }
            if line.games > 0 {
                line.score = (line.wins as f64 + line.draws as f64 / 2.0) / line.games as f64;
            }
            line
        })
        .collect();
    standings.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(a.player.cmp(&b.player)));
    Ok(Results {
        pairings,
        standings,
        forfeits,
    })
}

/// Elo ratings (mean 0) and the half-widths of their 95% intervals, for
/// `players` players who met as `pairings` say (see the module docs).
#[must_use]
pub fn elo(players: usize, pairings: &[Pairing]) -> Vec<(f64, f64)> {
    const PRIOR_DRAWS: f64 = 1.0;
    // Games and points between every pair, the virtual draw included.
    let mut games = vec![vec![0.0_f64; players]; players];
    let mut points = vec![0.0_f64; players];
    for p in pairings {
        let n = p.games() as f64 + PRIOR_DRAWS;
        games[p.a][p.b] += n;
        games[p.b][p.a] += n;
        points[p.a] += p.a_wins as f64 + (p.draws as f64 + PRIOR_DRAWS) / 2.0;
        points[p.b] += p.b_wins as f64 + (p.draws as f64 + PRIOR_DRAWS) / 2.0;
    }
    // Strengths γ, P(i beats j) = γi / (γi + γj), by minorisation–maximisation.
    let mut gamma = vec![1.0_f64; players];
    for _ in 0..10_000 {
        let mut next: Vec<f64> = (0..players)
            .map(|i| {
                let denominator: f64 = (0..players)
                    .filter(|&j| j != i && games[i][j] > 0.0)
                    .map(|j| games[i][j] / (gamma[i] + gamma[j]))
                    .sum();
                if denominator > 0.0 {
                    points[i] / denominator
                } else {
                    gamma[i]
                }
            })
            .collect();
        let log_mean = next.iter().map(|g| g.ln()).sum::<f64>() / players as f64;
        for g in &mut next {
            *g /= log_mean.exp();
        }
        let change = next
            .iter()
            .zip(&gamma)
            .map(|(a, b)| (a.ln() - b.ln()).abs())
            .fold(0.0, f64::max);
        gamma = next;
        if change < 1e-12 {
            break;
        }
    }
    let scale = 400.0 / std::f64::consts::LN_10;
    let ratings: Vec<f64> = gamma.iter().map(|g| g.ln() * scale).collect();
    // Fisher information of the ratings (a graph Laplacian: only rating
    // differences are known); the pseudo-inverse is the covariance of the
    // ratings measured from their mean.
    let c = 1.0 / scale;
    let mut info = vec![vec![0.0_f64; players]; players];
    for i in 0..players {
        for j in 0..players {
            if i != j && games[i][j] > 0.0 {
                let p = gamma[i] / (gamma[i] + gamma[j]);
                let w = games[i][j] * p * (1.0 - p) * c * c;
                info[i][i] += w;
                info[i][j] -= w;
            }
        }
    }
    let n = players as f64;
    for row in &mut info {
        for v in row.iter_mut() {
            *v += 1.0 / n;
        }
    }
    let covariance = invert(info);
    ratings
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let variance = covariance
                .as_ref()
                .map_or(f64::INFINITY, |m| (m[i][i] - 1.0 / n).max(0.0));
            (r, 1.96 * variance.sqrt())
        })
        .collect()
}

/// The inverse of a small square matrix by Gauss–Jordan elimination with
/// partial pivoting, or `None` if it is singular.
fn invert(mut m: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let d = m[col][col];
        for j in 0..n {
            m[col][j] /= d;
            inv[col][j] /= d;
        }
        for row in 0..n {
            if row != col {
                let f = m[row][col];
                if f != 0.0 {
                    for j in 0..n {
                        m[row][j] -= f * m[col][j];
                        inv[row][j] -= f * inv[col][j];
                    }
                }
            }
        }
    }
    Some(inv)
}

fn signed(elo: f64) -> String {
    let rounded = elo.round();
    if rounded == 0.0 {
        "0".to_owned()
    } else {
        format!("{rounded:+.0}")
    }
}

/// The readable results: standings, then every pair's score.
#[must_use]
pub fn table(config: &Config, results: &Results, elapsed: Duration) -> String {
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
        "round robin on {} (seed {}): {} players, {} games a pair, each player X (moving first) in half{}{}",
        config.rules,
        config.seed,
        config.players.len(),
        config.games,
        match config.opening {
            0 => String::new(),
            n => format!(", from {n}-move openings"),
        },
        if config.threads > 1 {
            format!(", {} threads", config.threads)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        out,
        "  {:<width$} {:>7} {:>7} {:>7} {:>7} {:>7}   {:>5} {:>6}",
        "player", "games", "wins", "draws", "losses", "score", "Elo", "95%"
    );
    for s in &results.standings {
        let _ = writeln!(
            out,
            "  {:<width$} {:>7} {:>7} {:>7} {:>7} {:>6.1}%   {:>5} {:>6}",
            name(s.player),
            s.games,
            s.wins,
            s.draws,
            s.losses,
            100.0 * s.score,
            signed(s.elo),
            format!("±{:.0}", s.elo_95)
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
                None => {
                    let _ = write!(out, " {:>col_width$}", "-");
                }
            }
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "  {} games in {:.2} s; Elo: a logistic fit, the field's average 0, 95% intervals",
        config.total_games(),
        elapsed.as_secs_f64()
    );
    out.push_str(&arena::forfeits_text(&results.forfeits));
    out
}

/// The results as one JSON object.
#[must_use]
pub fn json(config: &Config, results: &Results, elapsed: Duration) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        player: &'a str,
        games: u64,
        wins: u64,
        draws: u64,
        losses: u64,
        score: f64,
        elo: f64,
        elo_95: f64,
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
        seed: u64,
        games_per_pair: u64,
        games: u64,
        seconds: f64,
        standings: Vec<Line<'a>>,
        pairings: Vec<Pair<'a>>,
        forfeits: Vec<arena::ForfeitJson<'a>>,
    }
    let name = |i: usize| config.players[i].name();
    to_json(&Json {
        size: config.rules.size(),
        k: config.rules.k(),
        seed: config.seed,
        games_per_pair: config.games,
        games: config.total_games(),
        seconds: round(elapsed.as_secs_f64(), 3),
        standings: results
            .standings
            .iter()
            .map(|s| Line {
                player: name(s.player),
                games: s.games,
                wins: s.wins,
                draws: s.draws,
                losses: s.losses,
                score: round(s.score, 4),
                elo: round(s.elo, 1),
                elo_95: round(s.elo_95, 1),
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
        forfeits: results
            .forfeits
            .iter()
            .map(arena::ForfeitJson::from)
            .collect(),
    })
}

/// Text safe inside SVG markup.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The results as a picture: the cross table coloured by score, and every
/// player's Elo with its 95% interval.
#[must_use]
pub fn svg(config: &Config, results: &Results) -> String {
    let order: Vec<usize> = results.standings.iter().map(|s| s.player).collect();
    let n = order.len();
    let name = |i: usize| xml(config.players[i].name());
    let (cell, label, top) = (64.0, 120.0, 96.0);
    let grid = cell * n as f64;
    let chart_x = label + grid + 40.0;
    let chart_w = 320.0;
    let width = chart_x + chart_w + 40.0;
    let height = top + grid + 60.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="13">"##
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/><text x="16" y="28" font-size="16" font-weight="bold">Round robin on {}: {} games a pair (seed {})</text>"##,
        xml(&config.rules.to_string()),
        config.games,
        config.seed
    );
    let _ = writeln!(
        out,
        r##"<text x="{label:.0}" y="{:.0}">score of each row against each column</text>"##,
        top - 40.0
    );
    for (col, &j) in order.iter().enumerate() {
        let _ = writeln!(
            out,
            r##"<text x="{:.0}" y="{:.0}" text-anchor="middle">{}</text>"##,
            label + cell * (col as f64 + 0.5),
            top - 10.0,
            name(j)
        );
    }
    for (row, &i) in order.iter().enumerate() {
        let y = top + cell * row as f64;
        let _ = writeln!(
            out,
            r##"<text x="{:.0}" y="{:.0}" text-anchor="end">{}</text>"##,
            label - 10.0,
            y + cell / 2.0 + 5.0,
            name(i)
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
                None => ("#e6e6e6".to_owned(), "–".to_owned()),
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
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxo_ai::StrategyKind;

    fn config(players: &[StrategyKind], games: u64, threads: usize) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            players: players.iter().map(|&k| Entrant::strategy(k)).collect(),
            games,
            seed: 9,
            threads,
            opening: 0,
        }
    }

    #[test]
    fn every_pair_meets_in_both_seats_and_results_do_not_depend_on_threads() {
        let kinds = [
            StrategyKind::Random,
            StrategyKind::Rules,
            StrategyKind::Perfect,
        ];
        let one = run(&config(&kinds, 40, 1), |_| {}).unwrap();
        let three = run(&config(&kinds, 40, 3), |_| {}).unwrap();
        assert_eq!(one, three);
        assert_eq!(one.pairings.len(), 3);
        for p in &one.pairings {
            assert_eq!(p.games(), 40);
        }
        for s in &one.standings {
            assert_eq!(s.games, 80);
            assert_eq!(s.wins + s.draws + s.losses, 80);
        }
        // Perfect never loses; random is last. (Perfect is not always
        // first: it plays any value-keeping move, not the one most likely
        // to make random blunder, so rules can beat random more often.)
        let perfect = one.standings.iter().find(|s| s.player == 2).unwrap();
        assert_eq!(perfect.losses, 0);
        assert_eq!(one.standings.last().unwrap().player, 0);
        assert!(one.standings.windows(2).all(|w| w[0].elo >= w[1].elo));
    }

    #[test]
    fn elo_of_two_players_matches_the_logistic_formula() {
        // 75% for a over 400 games (plus the one virtual draw):
        // 400·log10(s / (1 − s)) apart, split evenly around 0.
        let p = Pairing {
            a: 0,
            b: 1,
            a_wins: 300,
            b_wins: 100,
            draws: 0,
        };
        let ratings = elo(2, &[p]);
        let s: f64 = 300.5 / 401.0;
        let diff = 400.0 * (s / (1.0 - s)).log10();
        assert!(
            (ratings[0].0 - ratings[1].0 - diff).abs() < 1e-6,
            "{ratings:?}"
        );
        assert!((ratings[0].0 + ratings[1].0).abs() < 1e-6);
        // The interval: the score's binomial standard error through the
        // logistic curve, shared by the two ratings (each half the gap).
        let se_diff = 400.0 / std::f64::consts::LN_10 / (401.0 * s * (1.0 - s)).sqrt();
        assert!(
            (ratings[0].1 - 1.96 * se_diff / 2.0).abs() < 1e-6,
            "{ratings:?}"
        );
    }

    #[test]
    fn a_clean_sweep_stays_finite_and_more_games_narrow_the_interval() {
        let sweep = |games| {
            elo(
                2,
                &[Pairing {
                    a: 0,
                    b: 1,
                    a_wins: games,
                    b_wins: 0,
                    draws: 0,
                }],
            )
        };
        let (few, many) = (sweep(10), sweep(1000));
        assert!(few[0].0.is_finite() && few[0].1.is_finite());
        assert!(many[0].0 > few[0].0);
        assert!(few[0].1 > 0.0);
    }

    #[test]
    fn outputs_name_every_player() {
        let kinds = [StrategyKind::Random, StrategyKind::Rules];
        let c = config(&kinds, 10, 1);
        let results = run(&c, |_| {}).unwrap();
        let text = table(&c, &results, Duration::from_millis(3));
        assert!(
            text.starts_with("round robin on 3x3 k=3 (seed 9): 2 players"),
            "{text}"
        );
        assert!(text.contains("rules") && text.contains("random"), "{text}");
        let json = json(&c, &results, Duration::from_millis(3));
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
        let svg = svg(&c, &results);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 2);
    }

    #[test]
    fn one_player_is_not_a_tournament() {
        let c = config(&[StrategyKind::Random], 10, 1);
        assert!(matches!(run(&c, |_| {}), Err(ArenaError::TooFewPlayers)));
    }
}
