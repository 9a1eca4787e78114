//! The opening table: values the prover alone cannot give quickly,
//! solved ahead of time and shipped in the binary.
//!
//! A position is keyed by its canonical form under the board's 8
//! symmetries, seen from the side to move (its stones, then the other
//! side's, as bitboards of the square board read row by row), so one entry
//! answers every reflection and rotation of it and either colour to move.
//!
//! # Format (version 1)
//!
//! | bytes | what |
//! |-------|------|
//! | 4 | `OXOV`, the magic |
//! | 1 | the format version, 1 |
//! | 3 | rows, columns, k |
//! | 4 | the number of entries, little-endian |
//! | 17 a position | the mover's stones (8 bytes, LE), the other side's (8 bytes, LE), the value for the mover (`0` loss, `1` draw, `2` win) |
//!
//! Entries are sorted by their stones, unique, so a table is one binary
//! search away and the same positions always make the same bytes.

use oxo_core::{Game, Player, Rules};

use crate::value::Value;

const MAGIC: &[u8; 4] = b"OXOV";

/// The version of the table format this code reads and writes.
pub const FORMAT_VERSION: u8 = 1;

const HEADER: usize = 12;
const ENTRY: usize = 17;

/// Why bytes are not an opening table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// The bytes do not start with the table's magic.
    #[error("not an oxo opening table (no OXOV magic)")]
    Foreign,
    /// A table of another format version.
    #[error("opening table format version {0}; this oxo reads version {FORMAT_VERSION}")]
    Version(u8),
    /// The header names a board that is not an m,n,k board oxo plays.
    #[error("the opening table names an impossible board")]
    Board,
    /// The board is not square or has more than 64 cells.
    #[error("opening tables are for square boards of at most 64 cells, not {0}")]
    Shape(Rules),
    /// The length does not match the number of entries.
    #[error("the opening table is truncated or has bytes to spare")]
    Length,
    /// An entry out of order, repeated, or with a value that is no value.
    #[error("entry {0} of the opening table is out of order or invalid")]
    Entry(usize),
}

/// A position's canonical key: the mover's stones and the other side's,
/// the least pair under the board's symmetries.
pub(crate) type Key = (u64, u64);

/// The 8 symmetries of a square board as cell permutations.
#[derive(Clone, Debug)]
pub(crate) struct Symmetries {
    side: u32,
    maps: Vec<[u8; 64]>,
}

impl Symmetries {
    /// The symmetries of `rules`' board, if it is square with at most 64
    /// cells.
    pub(crate) fn of(rules: Rules) -> Option<Symmetries> {
        let side = rules.rows();
        if rules.cols() != side || rules.cell_count() > 64 {
            return None;
        }
        let n = side - 1;
        let maps = (0..8)
            .map(|s| {
                let mut map = [0; 64];
                for r in 0..side {
                    for c in 0..side {
                        let (r2, c2) = match s {
                            0 => (r, c),
                            1 => (c, n - r),
                            2 => (n - r, n - c),
                            3 => (n - c, r),
                            4 => (r, n - c),
                            5 => (n - r, c),
                            6 => (c, r),
                            _ => (n - c, n - r),
                        };
                        map[(r * side + c) as usize] = (r2 * side + c2) as u8;
                    }
                }
                map
            })
            .collect();
        Some(Symmetries { side, maps })
    }

    /// The canonical key of `game` (of these symmetries' board), from the
    /// side to move.
    pub(crate) fn key(&self, game: &Game) -> Key {
        let mover = game.to_move();
        let mut best = (u64::MAX, u64::MAX);
        for map in &self.maps {
            let (mut me, mut opp) = (0u64, 0u64);
            for (i, cell) in game.cells().iter().enumerate() {
                match cell {
                    Some(p) if *p == mover => me |= 1 << map[i],
                    Some(_) => opp |= 1 << map[i],
                    None => {}
                }
            }
            best = best.min((me, opp));
        }
        debug_assert_eq!(self.side * self.side, game.rules().cell_count() as u32);
        best
    }
}

/// Values of canonical positions, read from a table's bytes.
#[derive(Clone, Debug)]
pub struct OpeningTable {
    rules: Rules,
    entries: Vec<(Key, Value)>,
}

fn value_byte(value: Value) -> u8 {
    match value {
        Value::Loss => 0,
        Value::Draw => 1,
        Value::Win => 2,
    }
}

impl OpeningTable {
    /// Read a table.
    ///
    /// # Errors
    /// Bytes that are not a table of this format version, truncated or
    /// altered ones (entries out of order or with values out of range).
    pub fn parse(bytes: &[u8]) -> Result<OpeningTable, TableError> {
        if bytes.len() < HEADER || &bytes[..4] != MAGIC {
            return Err(TableError::Foreign);
        }
        if bytes[4] != FORMAT_VERSION {
            return Err(TableError::Version(bytes[4]));
        }
        let rules = Rules::new(bytes[5].into(), bytes[6].into(), bytes[7].into())
            .map_err(|_| TableError::Board)?;
        if Symmetries::of(rules).is_none() {
            return Err(TableError::Shape(rules));
        }
        let count = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
        let body = &bytes[HEADER..];
        if count.checked_mul(ENTRY) != Some(body.len()) {
            return Err(TableError::Length);
        }
        let mut entries = Vec::with_capacity(count);
        for (i, entry) in body.chunks_exact(ENTRY).enumerate() {
            let me = u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
            let opp = u64::from_le_bytes(entry[8..16].try_into().expect("8 bytes"));
            let value = match entry[16] {
                0 => Value::Loss,
                1 => Value::Draw,
                2 => Value::Win,
                _ => return Err(TableError::Entry(i)),
            };
            let outside = u64::MAX.checked_shl(rules.cell_count() as u32).unwrap_or(0);
            let in_order = entries.last().is_none_or(|&(last, _)| last < (me, opp));
            if !in_order || me & opp != 0 || (me | opp) & outside != 0 {
                return Err(TableError::Entry(i));
            }
            entries.push(((me, opp), value));
        }
        Ok(OpeningTable { rules, entries })
    }

    /// The bytes of a table of `entries` (canonical keys, in any order;
    /// repeats must agree).
    pub(crate) fn to_bytes(rules: Rules, entries: &[(Key, Value)]) -> Vec<u8> {
        let mut sorted = entries.to_vec();
        sorted.sort_by_key(|&(key, _)| key);
        sorted.dedup_by_key(|&mut (key, _)| key);
        let mut bytes = Vec::with_capacity(HEADER + sorted.len() * ENTRY);
        bytes.extend_from_slice(MAGIC);
        bytes.push(FORMAT_VERSION);
        for n in [rules.rows(), rules.cols(), rules.k()] {
            bytes.push(u8::try_from(n).expect("boards of at most 64 cells"));
        }
        let count = u32::try_from(sorted.len()).expect("fewer than 2^32 entries");
        bytes.extend_from_slice(&count.to_le_bytes());
        for ((me, opp), value) in sorted {
            bytes.extend_from_slice(&me.to_le_bytes());
            bytes.extend_from_slice(&opp.to_le_bytes());
            bytes.push(value_byte(value));
        }
        bytes
    }

    /// The board the table is for.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The positions it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of the position with canonical key `key`, if held.
    pub(crate) fn get(&self, key: Key) -> Option<Value> {
        self.entries
            .binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|i| self.entries[i].1)
    }

    /// Every held position as a game (one orientation of it, the mover
    /// playing X... or O as its stones say) with its value for the mover,
    /// for tests that check the table against a direct solve.
    pub fn positions(&self) -> impl Iterator<Item = (Game, Value)> + '_ {
        let side = self.rules.cols();
        self.entries.iter().map(move |&((me, opp), value)| {
            let mover_first = me.count_ones() == opp.count_ones();
            let (first, second) = if mover_first { (me, opp) } else { (opp, me) };
            let mut game = Game::new(self.rules);
            let (mut a, mut b) = (first, second);
            while a != 0 {
                let cell = a.trailing_zeros();
                a &= a - 1;
                game.play_unchecked(oxo_core::Cell::new(cell / side, cell % side));
                if b != 0 {
                    let cell = b.trailing_zeros();
                    b &= b - 1;
                    game.play_unchecked(oxo_core::Cell::new(cell / side, cell % side));
                }
            }
            debug_assert_eq!(
                game.to_move(),
                if mover_first { Player::X } else { Player::O }
            );
            (game, value)
        })
    }
}
