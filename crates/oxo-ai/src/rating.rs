//! Elo ratings from the results of games between pairs of players.
//!
//! The ratings are a Bradley–Terry fit (the logistic Elo model) to every
//! game's score, a draw counting half a win, found by the
//! minorisation–maximisation iteration. One virtual draw between every pair
//! keeps the fit finite when a player wins or loses every game (as `perfect`
//! can against `random`); its pull is one game in the pair's games. The
//! ratings are centred on 0 (the field's average); the error bars are 95%
//! intervals (±1.96 standard errors) from the fit's Fisher information, so
//! they shrink as games are added.
//!
//! ```
//! use oxo_ai::rating::{Pairing, elo};
//!
//! // Player 0 scored 75% against player 1.
//! let ratings = elo(2, &[Pairing { a: 0, b: 1, a_wins: 30, b_wins: 10, draws: 0 }]);
//! let (gap, interval) = (ratings[0].0 - ratings[1].0, ratings[0].1);
//! assert!((150.0..200.0).contains(&gap) && interval > 0.0);
//! ```

/// How one pair of players fared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pairing {
    /// The first player's index (in a round robin, in
    /// [`tournament::Config::players`](crate::tournament::Config::players)).
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
