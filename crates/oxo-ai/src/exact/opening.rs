//! The opening table: every move's value at the positions the prover alone
//! cannot value quickly, solved ahead of time and shipped in the binary.
//!
//! A position is keyed by its canonical form under the board's 8
//! symmetries, seen from the side to move (its stones, then the other
//! side's, as bitboards of the square board read row by row), so one entry
//! answers every reflection and rotation of it and either colour to move.
//! An entry holds the value of each move at the position, cell by cell in
//! the canonical orientation. That gives the position's own value too (its
//! best move's), and the value of every position one move later: a
//! position of `n + 1` stones is valued from any entry of `n` stones it
//! follows from (take away one stone of the side that moved last).
//!
//! # Format (version 2)
//!
//! | bytes | what |
//! |-------|------|
//! | 4 | `OXOV`, the magic |
//! | 1 | the format version, 2 |
//! | 3 | rows, columns, k |
//! | 4 | the number of entries, little-endian |
//! | 16 + ⌈cells / 4⌉ a position | the mover's stones (8 bytes, LE), the other side's (8 bytes, LE), then 2 bits a cell (cell `i` in bits `2(i mod 4)` of byte `i / 4`): the value of the move there for the mover, `0` loss, `1` draw, `2` win, `3` no move (a stone, or past the last cell) |
//! | 8 | FNV-1a (64-bit) of every byte before it, LE |
//!
//! Entries are sorted by their stones, unique, so a table is one binary
//! search away and the same positions always make the same bytes. A table
//! whose checksum, order, stones or values do not hold together is
//! refused as a whole, so a damaged table is reported rather than misread.

use oxo_core::{Cell, Game, Player, Rules, Symmetry};

use crate::checksum::fnv1a;
use crate::value::Value;

const MAGIC: &[u8; 4] = b"OXOV";

/// The version of the table format this code reads and writes.
pub const FORMAT_VERSION: u8 = 2;

const HEADER: usize = 12;
const KEY: usize = 16;
const CHECKSUM: usize = 8;
/// The code of a cell where no move is made.
const NO_MOVE: u8 = 3;

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
    /// The checksum does not match the bytes: they were altered.
    #[error("the opening table is damaged (its checksum does not match)")]
    Checksum,
    /// An entry out of order, repeated, with stones no game reaches, or
    /// with moves that do not match its empty cells.
    #[error("entry {0} of the opening table is out of order or invalid")]
    Entry(usize),
}

/// A line of a position list that is not a position of the list's board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: not a position of {rules}: {text} ({reason})")]
pub struct ListError {
    /// The line's number, from 1.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// The board the list is for.
    pub rules: Rules,
    /// Why: the notation's own error, or another board's position.
    pub reason: String,
}

/// The positions of a position list, the form in which the build script
/// names the positions after three moves the table holds: one position a
/// line in the notation's rows split by `/`; blank lines and lines
/// starting with `#` are passed over.
pub fn read_list(text: &str, rules: Rules) -> Result<Vec<Game>, ListError> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(number, line)| {
            let refused = |reason: String| ListError {
                line: number,
                text: line.to_owned(),
                rules,
                reason,
            };
            match Game::from_notation(line, rules.k()) {
                Ok(game) if game.rules() == rules => Ok(game),
                Ok(game) => Err(refused(format!("a position of {}", game.rules()))),
                Err(e) => Err(refused(e.to_string())),
            }
        })
        .collect()
}

/// A position's canonical key: the mover's stones and the other side's,
/// the least pair under the board's symmetries.
pub(crate) type Key = (u64, u64);

/// The 8 symmetries of a square board as cell permutations.
#[derive(Clone, Debug)]
pub(crate) struct Symmetries {
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
        let maps = Symmetry::ALL
            .iter()
            .map(|s| {
                let mut map = [0; 64];
                for r in 0..side {
                    for c in 0..side {
                        let (r2, c2) = s.map(side, side, r, c);
                        map[(r * side + c) as usize] = (r2 * side + c2) as u8;
                    }
                }
                map
            })
            .collect();
        Some(Symmetries { maps })
    }

    /// The canonical key of the position with the mover's stones `me` and
    /// the other side's `opp`, and the symmetry that takes it there.
    fn canonical(&self, me: u64, opp: u64) -> (Key, usize) {
        let image = |map: &[u8; 64], set: u64| {
            let mut out = 0u64;
            let mut rest = set;
            while rest != 0 {
                out |= 1 << map[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            out
        };
        (0..self.maps.len())
            .map(|s| {
                let map = &self.maps[s];
                ((image(map, me), image(map, opp)), s)
            })
            .min()
            .expect("8 symmetries")
    }

    /// The canonical key of `game` (of these symmetries' board), from the
    /// side to move.
    pub(crate) fn key(&self, game: &Game) -> Key {
        let (me, opp) = stones(game);
        self.canonical(me, opp).0
    }
}

/// The mover's stones and the other side's, as bitboards of the board read
/// row by row.
fn stones(game: &Game) -> (u64, u64) {
    let mover = game.to_move();
    let (mut me, mut opp) = (0u64, 0u64);
    for (i, cell) in game.cells().iter().enumerate() {
        match cell {
            Some(p) if *p == mover => me |= 1 << i,
            Some(_) => opp |= 1 << i,
            None => {}
        }
    }
    (me, opp)
}

/// Every move's value at canonical positions, read from a table's bytes.
#[derive(Clone, Debug)]
pub struct OpeningTable {
    rules: Rules,
    symmetries: Symmetries,
    /// Each position's key and its cells' codes, 2 bits a cell.
    entries: Vec<(Key, u128)>,
    /// The most stones a held position has.
    max_stones: u32,
}

fn value_code(value: Value) -> u8 {
    match value {
        Value::Loss => 0,
        Value::Draw => 1,
        Value::Win => 2,
    }
}

fn code_value(code: u128) -> Option<Value> {
    match code & 3 {
        0 => Some(Value::Loss),
        1 => Some(Value::Draw),
        2 => Some(Value::Win),
        _ => None,
    }
}

impl OpeningTable {
    /// Read a table.
    ///
    /// # Errors
    /// Bytes that are not a table of this format version; truncated or
    /// altered ones (a checksum that does not match, entries out of order,
    /// stones no game reaches, moves that do not match the empty cells).
    pub fn parse(bytes: &[u8]) -> Result<OpeningTable, TableError> {
        if bytes.len() < HEADER || &bytes[..4] != MAGIC {
            return Err(TableError::Foreign);
        }
        if bytes[4] != FORMAT_VERSION {
            return Err(TableError::Version(bytes[4]));
        }
        let rules = Rules::new(bytes[5].into(), bytes[6].into(), bytes[7].into())
            .map_err(|_| TableError::Board)?;
        let symmetries = Symmetries::of(rules).ok_or(TableError::Shape(rules))?;
        let cells = rules.cell_count();
        let entry = KEY + cells.div_ceil(4);
        let count = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")) as usize;
        let expected = count
            .checked_mul(entry)
            .and_then(|body| body.checked_add(HEADER + CHECKSUM));
        if expected != Some(bytes.len()) {
            return Err(TableError::Length);
        }
        let (data, sum) = bytes.split_at(bytes.len() - CHECKSUM);
        if fnv1a(data) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            return Err(TableError::Checksum);
        }
        let board = u64::MAX >> (64 - cells);
        let mut entries: Vec<(Key, u128)> = Vec::with_capacity(count);
        let mut max_stones = 0;
        for (i, entry) in data[HEADER..].chunks_exact(entry).enumerate() {
            let me = u64::from_le_bytes(entry[..8].try_into().expect("8 bytes"));
            let opp = u64::from_le_bytes(entry[8..16].try_into().expect("8 bytes"));
            // The slots past the last byte hold no move.
            let mut codes = u128::MAX
                .checked_shl(8 * (entry.len() - KEY) as u32)
                .unwrap_or(0);
            for (j, &byte) in entry[KEY..].iter().enumerate() {
                codes |= u128::from(byte) << (8 * j);
            }
            let in_order = entries.last().is_none_or(|&(last, _)| last < (me, opp));
            // The mover has as many stones as the other side (X to move)
            // or one fewer (O to move).
            let turn = opp.count_ones().checked_sub(me.count_ones());
            let moves_fit = (0..64).all(|c| {
                let empty = board & !(me | opp) & (1 << c) != 0;
                empty == (codes >> (2 * c) & 3 != u128::from(NO_MOVE))
            });
            if !in_order
                || me & opp != 0
                || (me | opp) & !board != 0
                || !matches!(turn, Some(0 | 1))
                || (me | opp) == board
                || !moves_fit
            {
                return Err(TableError::Entry(i));
            }
            max_stones = max_stones.max((me | opp).count_ones());
            entries.push(((me, opp), codes));
        }
        Ok(OpeningTable {
            rules,
            symmetries,
            entries,
            max_stones,
        })
    }

    /// The bytes of a table holding, for each of `positions`, every legal
    /// move's value for the player making it. Positions that are images of
    /// one another are held once (the first given).
    ///
    /// # Panics
    /// A board that is not square with at most 64 cells; a position of
    /// other rules, finished, or without a value for each legal move.
    #[must_use]
    pub fn to_bytes(rules: Rules, positions: &[(Game, Vec<(Cell, Value)>)]) -> Vec<u8> {
        let symmetries = Symmetries::of(rules).expect("a square board of at most 64 cells");
        let cells = rules.cell_count();
        let side = rules.cols();
        let mut entries: Vec<(Key, u128)> = Vec::with_capacity(positions.len());
        for (game, moves) in positions {
            assert_eq!(game.rules(), rules, "a position of the table's rules");
            assert!(!game.is_over(), "a position still being played");
            assert_eq!(game.legal_moves().count(), moves.len(), "every move valued");
            let (me, opp) = stones(game);
            let (key, s) = symmetries.canonical(me, opp);
            let map = &symmetries.maps[s];
            // Every cell no move, then each move's value where it lands.
            let mut codes = u128::MAX;
            for &(cell, value) in moves {
                assert!(
                    game.get(cell).is_none() && rules.contains(cell),
                    "a legal move"
                );
                let at = 2 * u32::from(map[(cell.row * side + cell.col) as usize]);
                codes &= !(3 << at);
                codes |= u128::from(value_code(value)) << at;
            }
            entries.push((key, codes));
        }
        entries.sort_by_key(|&(key, _)| key);
        entries.dedup_by_key(|&mut (key, _)| key);
        let mut bytes = Vec::with_capacity(HEADER + entries.len() * (KEY + 16) + CHECKSUM);
        bytes.extend_from_slice(MAGIC);
        bytes.push(FORMAT_VERSION);
        for n in [rules.rows(), rules.cols(), rules.k()] {
            bytes.push(u8::try_from(n).expect("boards of at most 64 cells"));
        }
        let count = u32::try_from(entries.len()).expect("fewer than 2^32 entries");
        bytes.extend_from_slice(&count.to_le_bytes());
        for ((me, opp), codes) in entries {
            bytes.extend_from_slice(&me.to_le_bytes());
            bytes.extend_from_slice(&opp.to_le_bytes());
            bytes.extend_from_slice(&codes.to_le_bytes()[..cells.div_ceil(4)]);
        }
        let sum = fnv1a(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
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

    fn codes(&self, key: Key) -> Option<u128> {
        self.entries
            .binary_search_by_key(&key, |&(k, _)| k)
            .ok()
            .map(|i| self.entries[i].1)
    }

    /// The value of each legal move of `game` for its player to move, in
    /// row-major order, if the table holds the position.
    #[must_use]
    pub fn moves(&self, game: &Game) -> Option<Vec<(Cell, Value)>> {
        if game.rules() != self.rules || game.move_count() > self.max_stones as usize {
            return None;
        }
        let (me, opp) = stones(game);
        let (key, s) = self.symmetries.canonical(me, opp);
        let codes = self.codes(key)?;
        let map = &self.symmetries.maps[s];
        let side = self.rules.cols();
        Some(
            game.legal_moves()
                .map(|cell| {
                    let at = 2 * u32::from(map[(cell.row * side + cell.col) as usize]);
                    let value = code_value(codes >> at).expect("checked when read");
                    (cell, value)
                })
                .collect(),
        )
    }

    /// The value of `game` for its player to move, if the table holds it or
    /// a position one move before it: the best of its moves, or the move's
    /// value from the earlier position, seen from the other side.
    #[must_use]
    pub fn value(&self, game: &Game) -> Option<Value> {
        if game.rules() != self.rules || game.move_count() > self.max_stones as usize + 1 {
            return None;
        }
        if game.is_over() {
            return Value::of_finished(game);
        }
        let (me, opp) = stones(game);
        if let Some(codes) = self.codes(self.symmetries.canonical(me, opp).0) {
            let best = (0..self.rules.cell_count())
                .filter_map(|c| code_value(codes >> (2 * c)))
                .max_by_key(|value| value.sign())
                .expect("a held position has moves");
            return Some(best);
        }
        // The position before the last move: the last mover to move, one
        // of its stones not yet played.
        let mut last = opp;
        while last != 0 {
            let stone = last & last.wrapping_neg();
            last &= last - 1;
            let (key, s) = self.symmetries.canonical(opp & !stone, me);
            if let Some(codes) = self.codes(key) {
                let at = 2 * u32::from(self.symmetries.maps[s][stone.trailing_zeros() as usize]);
                return code_value(codes >> at).map(|value| -value);
            }
        }
        None
    }

    /// Every held position as a game (one orientation of it, the mover
    /// playing X or O as its stones say) with the value of each of its
    /// moves, for tests that check the table against a direct solve.
    pub fn positions(&self) -> impl Iterator<Item = (Game, Vec<(Cell, Value)>)> + '_ {
        let side = self.rules.cols();
        self.entries.iter().map(move |&((me, opp), codes)| {
            let mover_first = me.count_ones() == opp.count_ones();
            let (first, second) = if mover_first { (me, opp) } else { (opp, me) };
            let mut game = Game::new(self.rules);
            let (mut a, mut b) = (first, second);
            while a != 0 {
                let cell = a.trailing_zeros();
                a &= a - 1;
                game.play_unchecked(Cell::new(cell / side, cell % side));
                if b != 0 {
                    let cell = b.trailing_zeros();
                    b &= b - 1;
                    game.play_unchecked(Cell::new(cell / side, cell % side));
                }
            }
            debug_assert_eq!(
                game.to_move(),
                if mover_first { Player::X } else { Player::O }
            );
            let moves = game
                .legal_moves()
                .map(|cell| {
                    let code = codes >> (2 * (cell.row * side + cell.col));
                    (cell, code_value(code).expect("checked when read"))
                })
                .collect();
            (game, moves)
        })
    }
}
