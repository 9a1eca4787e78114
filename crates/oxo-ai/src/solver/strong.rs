//! The strong solution of a small board: the value and distance of every
//! position reachable from the empty board, computed once and kept.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Write};

use oxo_core::{Game, Player, Rules};

use super::SolveError;
use super::geometry::{Geometry, MAX_SYMMETRIES};
use crate::value::{Eval, Value};

/// Counts over every reachable position, each counted once however it is
/// reached (symmetric positions count separately).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Reachable positions, the empty board included.
    pub positions: u64,
    /// Of those, finished games.
    pub terminal: u64,
    /// Finished with X on k in a row.
    pub x_wins: u64,
    /// Finished with O on k in a row.
    pub o_wins: u64,
    /// Finished on a full board with no line.
    pub draws: u64,
}

/// Every reachable position of one board with its perfect-play [`Eval`],
/// stored once per symmetry class.
#[derive(Clone, Debug)]
pub struct StrongSolution {
    rules: Rules,
    geo: Geometry,
    table: HashMap<(u64, u64), Eval, BuildHasherDefault<PairHasher>>,
    census: Census,
}

/// Strong solutions are only attempted for boards of at most this many
/// cells: 4×4 has 9.7 million reachable positions, 5×4 already billions.
pub const STRONG_MAX_CELLS: usize = 16;

impl StrongSolution {
    /// Solve every position reachable from the empty board under `rules`
    /// (X moving first).
    ///
    /// # Errors
    /// [`SolveError::Beyond`] for boards of more than
    /// [`STRONG_MAX_CELLS`] cells.
    pub fn compute(rules: Rules) -> Result<StrongSolution, SolveError> {
        if rules.cell_count() > STRONG_MAX_CELLS {
            return Err(SolveError::Beyond {
                what: "solving every reachable position",
                limit: format!("at most {STRONG_MAX_CELLS} cells"),
                rows: rules.rows(),
                cols: rules.cols(),
            });
        }
        if rules.is_exact() {
            return Err(SolveError::Exact(rules));
        }
        let geo = Geometry::new(rules).map_err(|_| SolveError::TooLarge {
            rows: rules.rows(),
            cols: rules.cols(),
        })?;
        let mut solution = StrongSolution {
            rules,
            geo,
            table: HashMap::default(),
            census: Census::default(),
        };
        let empty = [0u64; MAX_SYMMETRIES];
        solution.visit(empty, empty, true);
        Ok(solution)
    }

    /// The rules solved.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// Counts over the reachable positions.
    #[must_use]
    pub const fn census(&self) -> Census {
        self.census
    }

    /// Positions stored: one per symmetry class.
    #[must_use]
    pub fn stored(&self) -> usize {
        self.table.len()
    }

    /// The evaluation of `game` for the player to move, or `None` if the
    /// game is under other rules or its position is not reachable with X
    /// moving first.
    #[must_use]
    pub fn get(&self, game: &Game) -> Option<Eval> {
        if game.rules() != self.rules {
            return None;
        }
        // The table is for games X started: there, equal counts mean X is
        // to move. A game O started can reach the same marks with the other
        // player to move, which the table knows nothing about.
        let x = game
            .cells()
            .iter()
            .filter(|&&c| c == Some(Player::X))
            .count();
        let o = game
            .cells()
            .iter()
            .filter(|&&c| c == Some(Player::O))
            .count();
        let x_first_mover = if x == o { Player::X } else { Player::O };
        if x < o || x > o + 1 || game.to_move() != x_first_mover {
            return None;
        }
        let xs = self.geo.oriented(game, Player::X);
        let os = self.geo.oriented(game, Player::O);
        self.table.get(&self.canonical(&xs, &os)).copied()
    }

    fn canonical(&self, xs: &[u64; MAX_SYMMETRIES], os: &[u64; MAX_SYMMETRIES]) -> (u64, u64) {
        (0..self.geo.symmetry_count())
            .map(|s| (xs[s], os[s]))
            .min()
            .expect("at least the identity")
    }

    /// Evaluate the position (depth first, each class once) and count it.
    fn visit(
        &mut self,
        xs: [u64; MAX_SYMMETRIES],
        os: [u64; MAX_SYMMETRIES],
        x_to_move: bool,
    ) -> Eval {
        let key = self.canonical(&xs, &os);
        if let Some(&eval) = self.table.get(&key) {
            return eval;
        }
        let (x, o) = (xs[0], os[0]);
        let empty = self.geo.valid & !(x | o);
        let last_mover = if x_to_move { o } else { x };
        let orbit = self.orbit_size(&xs, &os);
        self.census.positions += orbit;
        let eval = if self.geo.has_line(last_mover) {
            self.census.terminal += orbit;
            if x_to_move {
                self.census.o_wins += orbit;
            } else {
                self.census.x_wins += orbit;
            }
            Eval {
                value: Value::Loss,
                plies: 0,
            }
        } else if empty == 0 {
            self.census.terminal += orbit;
            self.census.draws += orbit;
            Eval {
                value: Value::Draw,
                plies: 0,
            }
        } else {
            let mut best: Option<Eval> = None;
            let mut cells = empty;
            while cells != 0 {
                let b = cells.trailing_zeros();
                cells &= cells - 1;
                let (mut cx, mut co) = (xs, os);
                self.geo.place(if x_to_move { &mut cx } else { &mut co }, b);
                let child = self.visit(cx, co, !x_to_move).parent();
                best = Some(best.map_or(child, |e| e.max(child)));
            }
            best.expect("an unfinished game has a move")
        };
        self.table.insert(key, eval);
        eval
    }

    /// How many distinct positions the symmetries make of this one.
    fn orbit_size(&self, xs: &[u64; MAX_SYMMETRIES], os: &[u64; MAX_SYMMETRIES]) -> u64 {
        let n = self.geo.symmetry_count();
        let mut images: [(u64, u64); MAX_SYMMETRIES] = [(0, 0); MAX_SYMMETRIES];
        for s in 0..n {
            images[s] = (xs[s], os[s]);
        }
        let images = &mut images[..n];
        images.sort_unstable();
        1 + images.windows(2).filter(|w| w[0] != w[1]).count() as u64
    }

    /// Write the table: a header line, then one record per class.
    ///
    /// Format: `oxo-strong v1 ROWS COLS K COUNT\n`, then COUNT records of
    /// 18 bytes: X's bits and O's bits (little-endian `u64`, bit
    /// `row * (cols + 1) + col`), the value (0 loss, 1 draw, 2 win, for the
    /// player to move) and the plies to the end.
    ///
    /// # Errors
    /// Writing failed.
    pub fn save(&self, mut out: impl Write) -> io::Result<()> {
        let mut entries: Vec<_> = self.table.iter().collect();
        entries.sort_unstable_by_key(|(k, _)| **k);
        writeln!(
            out,
            "oxo-strong v1 {} {} {} {}",
            self.rules.rows(),
            self.rules.cols(),
            self.rules.k(),
            entries.len()
        )?;
        for (&(x, o), eval) in entries {
            out.write_all(&x.to_le_bytes())?;
            out.write_all(&o.to_le_bytes())?;
            let value = (eval.value.sign() + 1) as u8;
            out.write_all(&[value, eval.plies as u8])?;
        }
        out.flush()
    }

    /// Read a table written by [`StrongSolution::save`]. The census is not
    /// stored, so it reads as zero.
    ///
    /// # Errors
    /// Reading failed or the data is not a table of this format.
    pub fn load(mut input: impl Read) -> io::Result<StrongSolution> {
        let bad = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not an oxo table: {why}"),
            )
        };
        let mut header = Vec::new();
        let mut byte = [0u8; 1];
        while header.len() < 128 {
            input.read_exact(&mut byte)?;
            if byte[0] == b'\n' {
                break;
            }
            header.push(byte[0]);
        }
        let header = String::from_utf8(header).map_err(|_| bad("header"))?;
        let fields: Vec<&str> = header.split(' ').collect();
        let [magic, version, rows, cols, k, count] = fields[..] else {
            return Err(bad("header"));
        };
        if magic != "oxo-strong" || version != "v1" {
            return Err(bad("header"));
        }
        let num = |s: &str| s.parse::<u32>().map_err(|_| bad("header"));
        let rules = Rules::new(num(rows)?, num(cols)?, num(k)?).map_err(|_| bad("rules"))?;
        let geo = Geometry::new(rules).map_err(|_| bad("board too large"))?;
        let count: usize = count.parse().map_err(|_| bad("header"))?;
        // The count is only a claim until the records are read: reserve for
        // at most a million up front, and let the reads prove the rest.
        let mut table =
            HashMap::with_capacity_and_hasher(count.min(1 << 20), BuildHasherDefault::default());
        let mut record = [0u8; 18];
        for _ in 0..count {
            input.read_exact(&mut record)?;
            let x = u64::from_le_bytes(record[0..8].try_into().expect("8 bytes"));
            let o = u64::from_le_bytes(record[8..16].try_into().expect("8 bytes"));
            let value = match record[16] {
                0 => Value::Loss,
                1 => Value::Draw,
                2 => Value::Win,
                _ => return Err(bad("value")),
            };
            table.insert(
                (x, o),
                Eval {
                    value,
                    plies: u32::from(record[17]),
                },
            );
        }
        Ok(StrongSolution {
            rules,
            geo,
            table,
            census: Census::default(),
        })
    }
}

/// A fast hasher for pairs of bitboards (the table's keys are not chosen
/// by an adversary).
#[derive(Clone, Copy, Debug, Default)]
pub struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(23) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
