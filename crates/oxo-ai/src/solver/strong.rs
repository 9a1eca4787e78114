//! The strong solution of a small board: the value and distance of every
//! position reachable from the empty board, computed once and kept.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Write};

use oxo_core::{Game, Player, Rules};

use super::SolveError;
use super::geometry::{Geometry, MAX_SYMMETRIES};
use crate::checksum::Fnv1a;
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

    /// Write the table: a header line, one record per class, then a
    /// checksum.
    ///
    /// Format: `oxo-strong v2 ROWS COLS K COUNT\n`, then COUNT records of
    /// 18 bytes, sorted by their stones: X's bits and O's bits
    /// (little-endian `u64`, bit `row * (cols + 1) + col`), the value
    /// (0 loss, 1 draw, 2 win, for the player to move) and the plies to
    /// the end; last, the 64-bit FNV-1a of every byte before it
    /// (little-endian `u64`). Version 1 had no checksum, so damage to it
    /// went unnoticed; it is no longer read.
    ///
    /// # Errors
    /// Writing failed.
    pub fn save(&self, out: impl Write) -> io::Result<()> {
        let mut entries: Vec<_> = self.table.iter().collect();
        entries.sort_unstable_by_key(|(k, _)| **k);
        let mut out = Summed::new(out);
        writeln!(
            out,
            "{MAGIC} {FORMAT} {} {} {} {}",
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
        let sum = out.hash.finish();
        out.inner.write_all(&sum.to_le_bytes())?;
        out.inner.flush()
    }

    /// Read a table written by [`StrongSolution::save`]. The census is not
    /// stored, so it reads as zero.
    ///
    /// The whole table is checked before it is used: its checksum, that
    /// nothing follows it, and that its records are in order and name
    /// positions and values the board can have. A table that fails any of
    /// these is refused, never partly used.
    ///
    /// # Errors
    /// [`StrongTableError::Io`] if reading failed; any other variant if
    /// the bytes are not a whole, undamaged table of this format.
    pub fn load(input: impl Read) -> Result<StrongSolution, StrongTableError> {
        let mut input = Summed::new(input);
        let mut header = Vec::new();
        let mut byte = [0u8; 1];
        while header.len() < 128 {
            read_exact(&mut input, &mut byte)?;
            if byte[0] == b'\n' {
                break;
            }
            header.push(byte[0]);
        }
        let header = String::from_utf8(header).map_err(|_| StrongTableError::Foreign)?;
        let fields: Vec<&str> = header.split(' ').collect();
        if fields.first() != Some(&MAGIC) {
            return Err(StrongTableError::Foreign);
        }
        match fields.get(1) {
            Some(&FORMAT) => {}
            Some(&"v1") => return Err(StrongTableError::Unchecked),
            Some(other) => return Err(StrongTableError::Version((*other).to_owned())),
            None => return Err(StrongTableError::Header),
        }
        let [_, _, rows, cols, k, count] = fields[..] else {
            return Err(StrongTableError::Header);
        };
        let num = |s: &str| s.parse::<u32>().map_err(|_| StrongTableError::Header);
        let rules =
            Rules::new(num(rows)?, num(cols)?, num(k)?).map_err(|_| StrongTableError::Board)?;
        let geo = Geometry::new(rules).map_err(|_| StrongTableError::Board)?;
        let count: usize = count.parse().map_err(|_| StrongTableError::Header)?;
        // The count is only a claim until the records are read: reserve for
        // at most a million up front, and let the reads prove the rest.
        let mut table =
            HashMap::with_capacity_and_hasher(count.min(1 << 20), BuildHasherDefault::default());
        let cells = rules.cell_count() as u32;
        // The first record that does not hold together: reported only once
        // the checksum has said whether the bytes were altered, which is
        // the likelier cause.
        let mut invalid = None;
        let mut previous = None;
        let mut record = [0u8; 18];
        for i in 0..count {
            read_exact(&mut input, &mut record)?;
            let x = u64::from_le_bytes(record[0..8].try_into().expect("8 bytes"));
            let o = u64::from_le_bytes(record[8..16].try_into().expect("8 bytes"));
            let value = match record[16] {
                0 => Some(Value::Loss),
                1 => Some(Value::Draw),
                2 => Some(Value::Win),
                _ => None,
            };
            let plies = u32::from(record[17]);
            let stones_fit = x & o == 0 && (x | o) & !geo.valid == 0;
            let in_order = previous.is_none_or(|p| p < (x, o));
            previous = Some((x, o));
            match value {
                Some(value) if stones_fit && in_order && plies <= cells => {
                    table.insert((x, o), Eval { value, plies });
                }
                _ => {
                    invalid.get_or_insert(i);
                }
            }
        }
        let sum = input.hash.finish();
        let mut stored = [0u8; 8];
        read_exact(&mut input.inner, &mut stored)?;
        let mut rest = Vec::new();
        (&mut input.inner)
            .take(1)
            .read_to_end(&mut rest)
            .map_err(StrongTableError::Io)?;
        if !rest.is_empty() {
            return Err(StrongTableError::Trailing);
        }
        if u64::from_le_bytes(stored) != sum {
            return Err(StrongTableError::Checksum);
        }
        if let Some(i) = invalid {
            return Err(StrongTableError::Record(i));
        }
        Ok(StrongSolution {
            rules,
            geo,
            table,
            census: Census::default(),
        })
    }
}

/// The first word of a table's header.
const MAGIC: &str = "oxo-strong";

/// The table format version [`StrongSolution::save`] writes and
/// [`StrongSolution::load`] reads.
const FORMAT: &str = "v2";

/// Why bytes are not a strong-solution table [`StrongSolution::load`]
/// can use.
#[derive(Debug, thiserror::Error)]
pub enum StrongTableError {
    /// Reading failed.
    #[error("cannot read the table")]
    Io(#[source] io::Error),
    /// The bytes end before the table does.
    #[error("truncated: not a whole table from oxo solve --all --save")]
    Truncated,
    /// The bytes do not start with the table's header.
    #[error("not an oxo table (no oxo-strong header)")]
    Foreign,
    /// A table of format version 1, which had no checksum.
    #[error(
        "an oxo-strong v1 table, which carries no checksum and is no longer read: \
         rebuild it with oxo solve --all --save FILE"
    )]
    Unchecked,
    /// A table of a format version this code does not know.
    #[error("oxo-strong table format {0}; this oxo reads {FORMAT}")]
    Version(String),
    /// The header line does not have the fields it should.
    #[error("the table's header is malformed")]
    Header,
    /// The header names a board that is not one oxo solves.
    #[error("the table names an impossible board")]
    Board,
    /// Bytes follow the checksum.
    #[error("the table is damaged: bytes follow its end")]
    Trailing,
    /// The checksum does not match the bytes: they were altered.
    #[error("the table is damaged: its checksum does not match")]
    Checksum,
    /// A record out of order, or with stones or a value the board cannot
    /// have, under a checksum that matches.
    #[error("the table is damaged: record {0} is out of order or invalid")]
    Record(usize),
}

/// `read_exact`, an early end being a truncated table.
fn read_exact(input: &mut impl Read, buf: &mut [u8]) -> Result<(), StrongTableError> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => StrongTableError::Truncated,
        _ => StrongTableError::Io(e),
    })
}

/// A reader or writer that keeps the 64-bit FNV-1a of the bytes that pass
/// through it: the checksum of a table file.
struct Summed<T> {
    inner: T,
    hash: Fnv1a,
}

impl<T> Summed<T> {
    fn new(inner: T) -> Summed<T> {
        Summed {
            inner,
            hash: Fnv1a::default(),
        }
    }
}

impl<R: Read> Read for Summed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
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
