//! Property tests for the rules core.
//!
//! * A refused move changes nothing, and a move is refused exactly when an
//!   independent model of the board says it should be.
//! * The O(k) win check through the last move agrees with a deliberately
//!   naive whole-board scan written here (it does not use `scan_lines`).
//! * Positions written in notation read back as the same game; `Setup`
//!   round-trips on any grid and its parser never panics.
//! * Cell numbers are a row-major bijection onto `1..=rows*cols`.
//! * A clock keeps the time a plain model of each side's time keeps.

use oxo_core::{
    Cell, Direction, Game, Line, MAX_SIDE, MoveError, MoveResult, Outcome, Player, Rules, Setup,
    Status,
};
use proptest::prelude::*;
use proptest::sample::Index;

// ---------------------------------------------------------------------------
// A shadow board, kept by the tests themselves.
// ---------------------------------------------------------------------------

/// The four line directions as (row step, column step), in the order the
/// core documents for reporting wins: across, down, down-right, down-left.
const DIRECTIONS: [(Direction, i64, i64); 4] = [
    (Direction::Horizontal, 0, 1),
    (Direction::Vertical, 1, 0),
    (Direction::Diagonal, 1, 1),
    (Direction::AntiDiagonal, 1, -1),
];

/// An independent copy of the board, addressed with signed coordinates so
/// that walking off any edge is just a bounds check.
#[derive(Clone, Debug)]
struct Shadow {
    rows: i64,
    cols: i64,
    k: i64,
    marks: Vec<Option<Player>>,
}

impl Shadow {
    fn new(rules: Rules) -> Shadow {
        let rows = i64::from(rules.rows());
        let cols = i64::from(rules.cols());
        Shadow {
            rows,
            cols,
            k: i64::from(rules.k()),
            marks: vec![None; usize::try_from(rows * cols).unwrap()],
        }
    }

    fn on_board(&self, row: i64, col: i64) -> bool {
        (0..self.rows).contains(&row) && (0..self.cols).contains(&col)
    }

    fn slot(&self, row: i64, col: i64) -> usize {
        assert!(self.on_board(row, col));
        usize::try_from(row * self.cols + col).unwrap()
    }

    /// The mark at (row, col); `None` when empty or off the board.
    fn at(&self, row: i64, col: i64) -> Option<Player> {
        if self.on_board(row, col) {
            self.marks[self.slot(row, col)]
        } else {
            None
        }
    }

    fn put(&mut self, row: i64, col: i64, player: Player) {
        let slot = self.slot(row, col);
        assert_eq!(self.marks[slot], None, "shadow: ({row}, {col}) is taken");
        self.marks[slot] = Some(player);
    }

    fn is_full(&self) -> bool {
        self.marks.iter().all(Option::is_some)
    }

    /// Naive: from every cell, in every direction, look for k consecutive
    /// marks of `player`.
    fn has_run(&self, player: Player) -> bool {
        (0..self.rows).any(|row| {
            (0..self.cols).any(|col| {
                DIRECTIONS.iter().any(|&(_, dr, dc)| {
                    (0..self.k).all(|i| self.at(row + i * dr, col + i * dc) == Some(player))
                })
            })
        })
    }

    /// How many of `player`'s marks follow (row, col) going (dr, dc), at
    /// most `limit`.
    fn count_from(&self, row: i64, col: i64, dr: i64, dc: i64, player: Player, limit: i64) -> i64 {
        let mut n = 0;
        while n < limit && self.at(row + (n + 1) * dr, col + (n + 1) * dc) == Some(player) {
            n += 1;
        }
        n
    }

    /// The line the core documents for a win at (row, col): in the first
    /// direction with k in a row, the mover's contiguous marks up to k−1
    /// cells either side of the move.
    fn documented_line(&self, row: i64, col: i64, player: Player) -> Option<Line> {
        let reach = self.k - 1;
        DIRECTIONS.iter().find_map(|&(direction, dr, dc)| {
            let back = self.count_from(row, col, -dr, -dc, player, reach);
            let ahead = self.count_from(row, col, dr, dc, player, reach);
            let len = back + 1 + ahead;
            (len >= self.k).then(|| Line {
                start: cell(row - back * dr, col - back * dc),
                direction,
                len: u32::try_from(len).unwrap(),
            })
        })
    }

    /// The line an exactly-k game (`Rules::exactly`) wins with at (row,
    /// col): in the first direction, the whole run of the mover's marks
    /// through it, when that run is exactly k long.
    fn exact_line(&self, row: i64, col: i64, player: Player) -> Option<Line> {
        let all = self.rows.max(self.cols);
        DIRECTIONS.iter().find_map(|&(direction, dr, dc)| {
            let back = self.count_from(row, col, -dr, -dc, player, all);
            let len = back + 1 + self.count_from(row, col, dr, dc, player, all);
            (len == self.k).then(|| Line {
                start: cell(row - back * dr, col - back * dc),
                direction,
                len: u32::try_from(len).unwrap(),
            })
        })
    }

    /// The position in notation, built by hand.
    fn notation(&self) -> String {
        let rows: Vec<String> = (0..self.rows)
            .map(|row| {
                (0..self.cols)
                    .map(|col| match self.at(row, col) {
                        Some(Player::X) => 'X',
                        Some(Player::O) => 'O',
                        None => '.',
                    })
                    .collect()
            })
            .collect();
        rows.join("/")
    }
}

fn cell(row: i64, col: i64) -> Cell {
    Cell::new(u32::try_from(row).unwrap(), u32::try_from(col).unwrap())
}

/// The cells of `line` in signed coordinates, walked with our own steps.
fn line_coords(line: Line) -> Vec<(i64, i64)> {
    let (_, dr, dc) = *DIRECTIONS
        .iter()
        .find(|(d, _, _)| *d == line.direction)
        .unwrap();
    let (r0, c0) = (i64::from(line.start.row), i64::from(line.start.col));
    (0..i64::from(line.len))
        .map(|i| (r0 + i * dr, c0 + i * dc))
        .collect()
}

/// The `index`-th cell of the board in row-major order, by our own arithmetic.
fn nth_cell(rules: Rules, index: usize) -> Cell {
    let cols = rules.cols() as usize;
    Cell::new(
        u32::try_from(index / cols).unwrap(),
        u32::try_from(index % cols).unwrap(),
    )
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

/// Rules with both sides in `1..=max_side` and any k the board allows.
fn rules_up_to(max_side: u32) -> impl Strategy<Value = Rules> {
    (1..=max_side, 1..=max_side)
        .prop_flat_map(|(rows, cols)| (Just(rows), Just(cols), 1..=rows.max(cols)))
        .prop_map(|(rows, cols, k)| Rules::new(rows, cols, k).expect("valid by construction"))
}

/// Rules together with a random order in which to fill every cell.
fn rules_and_order(
    rules: impl Strategy<Value = Rules>,
) -> impl Strategy<Value = (Rules, Vec<usize>)> {
    rules.prop_flat_map(|rules| {
        let order: Vec<usize> = (0..rules.cell_count()).collect();
        (Just(rules), Just(order).prop_shuffle())
    })
}

/// Signed coordinates: mostly near the board, sometimes anything, sometimes
/// values that a careless narrowing to `u32` would wrap onto the board.
fn coordinate() -> impl Strategy<Value = i64> {
    let u32_max = i64::from(u32::MAX);
    prop_oneof![
        6 => -2i64..10,
        1 => any::<i64>(),
        1 => prop::sample::select(vec![
            i64::MIN,
            i64::MIN + 1,
            i64::MAX,
            -1,
            u32_max,
            u32_max + 1,
            u32_max + 2,
            1 << 32,
            (1 << 32) + 3,
            -(1 << 32),
            i64::from(MAX_SIDE),
        ]),
    ]
}

/// Unsigned coordinates for `Cell::new`: mostly near the board.
fn unsigned_coordinate() -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => 0u32..10,
        1 => any::<u32>(),
        1 => prop::sample::select(vec![u32::MAX, MAX_SIDE - 1, MAX_SIDE, MAX_SIDE + 1]),
    ]
}

#[derive(Clone, Debug)]
enum Attempt {
    /// `play_at` with any signed coordinates.
    At(i64, i64),
    /// `play` with a cell that may be off the board.
    Play(u32, u32),
    /// `play_as`, naming the player to move or (`wrong`) the other one.
    As { wrong: bool, row: u32, col: u32 },
    /// `play` on one of the occupied cells (if any).
    Occupied(Index),
    /// `play` on one of the empty cells: moves the game along.
    Empty(Index),
}

fn attempt() -> impl Strategy<Value = Attempt> {
    prop_oneof![
        2 => (coordinate(), coordinate()).prop_map(|(r, c)| Attempt::At(r, c)),
        2 => (unsigned_coordinate(), unsigned_coordinate()).prop_map(|(r, c)| Attempt::Play(r, c)),
        2 => (any::<bool>(), unsigned_coordinate(), unsigned_coordinate())
            .prop_map(|(wrong, row, col)| Attempt::As { wrong, row, col }),
        1 => any::<Index>().prop_map(Attempt::Occupied),
        4 => any::<Index>().prop_map(Attempt::Empty),
    ]
}

/// A game that reaches game over or the end of the move list, playing the
/// cells of `order` (row-major indices) in turn, X first.
fn play_prefix(rules: Rules, order: &[usize], moves: usize) -> (Game, Shadow, Option<Cell>) {
    let mut game = Game::new(rules);
    let mut shadow = Shadow::new(rules);
    let mut last = None;
    for &index in order.iter().take(moves) {
        if game.is_over() {
            break;
        }
        let target = nth_cell(rules, index);
        let mover = game.to_move();
        game.play(target).expect("an empty cell in a running game");
        shadow.put(i64::from(target.row), i64::from(target.col), mover);
        last = Some(target);
    }
    (game, shadow, last)
}

// ---------------------------------------------------------------------------
// Refused moves
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every call either does exactly what the model says (one new mark, the
    /// turn passes) or is refused with the model's error and leaves the game
    /// equal to a clone taken before the call.
    #[test]
    fn refused_moves_change_nothing(
        rules in rules_up_to(8),
        o_first in any::<bool>(),
        attempts in prop::collection::vec(attempt(), 1..80),
    ) {
        let first = if o_first { Player::O } else { Player::X };
        let mut game = Game::starting_with(rules, first);
        let mut shadow = Shadow::new(rules);
        let mut to_move = first;
        let mut over = false;

        for attempt in attempts {
            let before = game.clone();
            let count_before = game.move_count();
            // (row, col, named mover) of the attempt, and the call's result.
            let (row, col, named, result) = match attempt {
                Attempt::At(row, col) => (row, col, None, game.play_at(row, col)),
                Attempt::Play(row, col) => (
                    i64::from(row),
                    i64::from(col),
                    None,
                    game.play(Cell::new(row, col)),
                ),
                Attempt::As { wrong, row, col } => {
                    let mover = if wrong { to_move.other() } else { to_move };
                    (
                        i64::from(row),
                        i64::from(col),
                        Some(mover),
                        game.play_as(mover, Cell::new(row, col)),
                    )
                }
                Attempt::Occupied(pick) | Attempt::Empty(pick) => {
                    let want_taken = matches!(attempt, Attempt::Occupied(_));
                    let candidates: Vec<usize> = (0..shadow.marks.len())
                        .filter(|&i| shadow.marks[i].is_some() == want_taken)
                        .collect();
                    if candidates.is_empty() {
                        continue;
                    }
                    let target = nth_cell(rules, candidates[pick.index(candidates.len())]);
                    (
                        i64::from(target.row),
                        i64::from(target.col),
                        None,
                        game.play(target),
                    )
                }
            };

            // What the model says should have happened.
            let expected_err = if over {
                Some(MoveError::GameOver)
            } else if let Some(mover) = named.filter(|&p| p != to_move) {
                Some(MoveError::NotYourTurn { mover, to_move })
            } else if !shadow.on_board(row, col) {
                Some(MoveError::OffBoard { row, col })
            } else {
                shadow.at(row, col).map(|by| MoveError::Occupied { cell: cell(row, col), by })
            };

            match result {
                Err(err) => {
                    prop_assert_eq!(Some(err), expected_err);
                    prop_assert_eq!(&game, &before, "a refused move changed the game");
                    prop_assert_eq!(game.to_move(), to_move);
                    prop_assert_eq!(game.move_count(), count_before);
                }
                Ok(outcome) => {
                    prop_assert_eq!(expected_err, None, "accepted a move the model refuses");
                    shadow.put(row, col, to_move);
                    prop_assert_eq!(game.move_count(), count_before + 1);
                    to_move = to_move.other();
                    over = outcome.outcome().is_some();
                }
            }
            prop_assert_eq!(game.cells(), &shadow.marks[..]);
            prop_assert_eq!(game.to_move(), to_move);
            prop_assert_eq!(game.is_over(), over);
        }
    }
}

// ---------------------------------------------------------------------------
// The O(k) win check against a naive scan
// ---------------------------------------------------------------------------

/// Play every cell of `order` until the game ends, checking each result
/// against the shadow board.
fn check_game_against_naive_scan(
    rules: Rules,
    first: Player,
    order: &[usize],
) -> Result<(), TestCaseError> {
    let mut game = Game::starting_with(rules, first);
    let mut shadow = Shadow::new(rules);
    let k = i64::from(rules.k());

    for (played, &index) in order.iter().enumerate() {
        let target = nth_cell(rules, index);
        let (row, col) = (i64::from(target.row), i64::from(target.col));
        let mover = game.to_move();
        let result = game.play(target).expect("an empty cell in a running game");
        shadow.put(row, col, mover);

        prop_assert_eq!(game.cells(), &shadow.marks[..]);
        prop_assert_eq!(game.move_count(), played + 1);
        prop_assert_eq!(game.to_move(), mover.other());
        let run = shadow.has_run(mover);
        let full = shadow.is_full();
        prop_assert_eq!(game.is_full(), full);
        prop_assert_eq!(game.outcome(), result.outcome());
        prop_assert_eq!(game.is_over(), result.outcome().is_some());

        match result {
            MoveResult::Won { winner, line } => {
                prop_assert!(run, "reported a win the naive scan does not see");
                prop_assert_eq!(winner, mover);
                prop_assert!(i64::from(line.len) >= k && i64::from(line.len) < 2 * k);
                let coords = line_coords(line);
                prop_assert!(coords.contains(&(row, col)), "line misses the last move");
                for &(r, c) in &coords {
                    prop_assert_eq!(shadow.at(r, c), Some(mover), "({}, {}) in {:?}", r, c, line);
                }
                prop_assert_eq!(Some(line), shadow.documented_line(row, col, mover));
                prop_assert_eq!(game.winning_line(), Some(line));
                prop_assert_eq!(game.status(), Status::Over(Outcome::Win(mover)));
            }
            MoveResult::Draw => {
                prop_assert!(!run, "missed a win on the last cell");
                prop_assert!(full, "draw on a board with empty cells");
                prop_assert_eq!(game.winning_line(), None);
                prop_assert_eq!(game.status(), Status::Over(Outcome::Draw));
            }
            MoveResult::Placed => {
                prop_assert!(!run, "missed a win");
                prop_assert!(!full, "a full board must end the game");
                prop_assert_eq!(game.winning_line(), None);
                prop_assert_eq!(
                    game.status(),
                    Status::InProgress {
                        to_move: mover.other()
                    }
                );
                let empty = shadow.marks.iter().filter(|m| m.is_none()).count();
                prop_assert_eq!(game.legal_moves().count(), empty);
            }
        }

        if game.is_over() {
            prop_assert_eq!(game.legal_moves().count(), 0);
            if let Some(&next) = order.get(played + 1) {
                let after = game.clone();
                prop_assert_eq!(game.play(nth_cell(rules, next)), Err(MoveError::GameOver));
                prop_assert_eq!(&game, &after);
            }
            return Ok(());
        }
    }
    Err(TestCaseError::fail(
        "every cell was played but the game is not over",
    ))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn win_check_agrees_with_naive_scan(
        (rules, order) in rules_and_order(rules_up_to(8)),
        o_first in any::<bool>(),
    ) {
        let first = if o_first { Player::O } else { Player::X };
        check_game_against_naive_scan(rules, first, &order)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn win_check_agrees_with_naive_scan_15x15_k5(
        (rules, order) in rules_and_order(Just(Rules::new(15, 15, 5).unwrap())),
        o_first in any::<bool>(),
    ) {
        let first = if o_first { Player::O } else { Player::X };
        check_game_against_naive_scan(rules, first, &order)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Under the exactly-k rule a move wins when the whole run through it
    /// is k long, never longer, and the game goes on after an overline.
    #[test]
    fn exact_win_check_agrees_with_naive_scan(
        (rules, order) in rules_and_order(rules_up_to(8)),
    ) {
        let rules = rules.exactly();
        let mut game = Game::new(rules);
        let mut shadow = Shadow::new(rules);
        for &index in &order {
            let target = nth_cell(rules, index);
            let (row, col) = (i64::from(target.row), i64::from(target.col));
            let mover = game.to_move();
            let result = game.play(target).expect("an empty cell in a running game");
            shadow.put(row, col, mover);
            match (result, shadow.exact_line(row, col, mover)) {
                (MoveResult::Won { winner, line }, Some(expected)) => {
                    prop_assert_eq!(winner, mover);
                    prop_assert_eq!(line, expected);
                    break;
                }
                (MoveResult::Won { line, .. }, None) => {
                    prop_assert!(false, "won with {:?}, which is no run of exactly k", line);
                }
                (_, Some(expected)) => {
                    prop_assert!(false, "missed the exact win {:?}", expected);
                }
                (MoveResult::Draw, None) => {
                    prop_assert!(shadow.is_full());
                    break;
                }
                (MoveResult::Placed, None) => prop_assert!(!shadow.is_full()),
            }
        }
        prop_assert!(game.is_over(), "every cell was played but the game is not over");
    }
}

// ---------------------------------------------------------------------------
// Notation
// ---------------------------------------------------------------------------

/// A grid of marks that need not be a legal position.
fn grid() -> impl Strategy<Value = (u32, u32, Vec<Option<Player>>)> {
    (1u32..=12, 1u32..=12).prop_flat_map(|(rows, cols)| {
        let mark = prop_oneof![Just(None), Just(Some(Player::X)), Just(Some(Player::O))];
        (
            Just(rows),
            Just(cols),
            prop::collection::vec(mark, (rows * cols) as usize),
        )
    })
}

fn canonical(cols: u32, cells: &[Option<Player>]) -> String {
    cells
        .chunks(cols as usize)
        .map(|row| {
            row.iter()
                .map(|m| match m {
                    Some(Player::X) => 'X',
                    Some(Player::O) => 'O',
                    None => '.',
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// What every successfully parsed setup must satisfy.
fn check_parsed_setup(setup: &Setup) -> Result<(), TestCaseError> {
    let text = setup.to_string();
    prop_assert!(text.chars().all(|c| "XO./".contains(c)), "{:?}", text);
    prop_assert_eq!(
        setup.cells().len(),
        setup.rows() as usize * setup.cols() as usize
    );
    prop_assert_eq!(&text, &canonical(setup.cols(), setup.cells()));
    let again: Setup = text.parse().expect("displayed setups parse");
    prop_assert_eq!(&again, setup);
    Ok(())
}

/// Reading arbitrary text as a game never panics, and what it accepts is
/// consistent with the setup it came from.
fn check_notation_is_total(text: &str) -> Result<(), TestCaseError> {
    let parsed = text.parse::<Setup>();
    if let Ok(setup) = &parsed {
        check_parsed_setup(setup)?;
    }
    for k in 0..=9 {
        let Ok(game) = Game::from_notation(text, k) else {
            continue;
        };
        let setup = parsed.as_ref().expect("a game's text is a setup");
        prop_assert_eq!(game.to_string(), setup.to_string());
        let x = setup
            .cells()
            .iter()
            .filter(|&&m| m == Some(Player::X))
            .count();
        let o = setup
            .cells()
            .iter()
            .filter(|&&m| m == Some(Player::O))
            .count();
        let to_move = if x == o { Player::X } else { Player::O };
        prop_assert!(x == o || x == o + 1);
        prop_assert_eq!(game.to_move(), to_move);
        match game.outcome() {
            Some(Outcome::Draw) => prop_assert!(x + o == setup.cells().len()),
            Some(Outcome::Win(p)) => {
                prop_assert_eq!(p, to_move.other());
                prop_assert!(game.winning_line().is_some());
            }
            None => prop_assert!(game.winning_line().is_none()),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A game reached by play reads back from its own notation as exactly the
    /// same game, winning line included (also when the last move made k in a
    /// row in more than one direction).
    #[test]
    fn notation_round_trips_games(
        (rules, order) in rules_and_order(rules_up_to(8)),
        moves in 0usize..=64,
    ) {
        let (game, shadow, last) = play_prefix(rules, &order, moves);
        let text = game.to_string();
        prop_assert_eq!(&text, &shadow.notation());
        prop_assert_eq!(Setup::from(&game).to_string(), text.clone());

        let parsed = Game::from_notation(&text, rules.k())
            .unwrap_or_else(|e| panic!("{text:?} k={}: {e}", rules.k()));
        prop_assert_eq!(parsed.rules(), rules);
        prop_assert_eq!(parsed.cells(), game.cells());
        prop_assert_eq!(parsed.to_move(), game.to_move());
        prop_assert_eq!(parsed.outcome(), game.outcome());
        prop_assert_eq!(parsed.status(), game.status());
        prop_assert_eq!(parsed.move_count(), game.move_count());
        prop_assert_eq!(parsed.to_string(), text);

        if let Some(Outcome::Win(winner)) = game.outcome() {
            let line = parsed.winning_line().expect("a won position has a line");
            let k = i64::from(rules.k());
            prop_assert!(i64::from(line.len) >= k && i64::from(line.len) < 2 * k);
            for (r, c) in line_coords(line) {
                prop_assert_eq!(shadow.at(r, c), Some(winner));
            }
            prop_assert!(last.is_some(), "a won game has a last move");
        }
        prop_assert_eq!(&parsed, &game);
    }

    #[test]
    fn setup_round_trips_any_grid((rows, cols, cells) in grid()) {
        let text = canonical(cols, &cells);
        let setup: Setup = text.parse().expect("canonical text parses");
        prop_assert_eq!((setup.rows(), setup.cols()), (rows, cols));
        prop_assert_eq!(setup.cells(), &cells[..]);
        prop_assert_eq!(setup.to_string(), text);
        check_parsed_setup(&setup)?;
    }

    /// Lower case marks, `-` for empty and surrounding blanks read the same.
    #[test]
    fn setup_reads_lenient_spellings(
        (_, cols, cells) in grid(),
        spellings in prop::collection::vec(any::<bool>(), 144),
        pad in prop::sample::select(vec!["", " ", "\t", "\n", "  \n"]),
    ) {
        let rows: Vec<String> = cells
            .chunks(cols as usize)
            .enumerate()
            .map(|(r, row)| {
                row.iter()
                    .enumerate()
                    .map(|(c, m)| {
                        let alt = spellings[r * cols as usize + c];
                        match (m, alt) {
                            (Some(Player::X), false) => 'X',
                            (Some(Player::X), true) => 'x',
                            (Some(Player::O), false) => 'O',
                            (Some(Player::O), true) => 'o',
                            (None, false) => '.',
                            (None, true) => '-',
                        }
                    })
                    .collect()
            })
            .collect();
        let text = format!("{pad}{}{pad}", rows.join("/"));
        let setup: Setup = text.parse().expect("lenient text parses");
        prop_assert_eq!(setup.cells(), &cells[..]);
        prop_assert_eq!(setup.to_string(), canonical(cols, &cells));
    }

    #[test]
    fn parsing_any_string_never_panics(text in any::<String>()) {
        check_notation_is_total(&text)?;
    }

    #[test]
    fn parsing_board_like_strings_never_panics(text in "[XO.x/-]{0,40}") {
        check_notation_is_total(&text)?;
    }

    #[test]
    fn parsing_padded_board_like_strings_never_panics(text in "[ XOxo.\t/-]{0,60}") {
        check_notation_is_total(&text)?;
    }
}

/// Small grids with any k the board allows, for checking position legality.
fn small_grid_and_k() -> impl Strategy<Value = (u32, u32, Vec<Option<Player>>, u32)> {
    (1u32..=5, 1u32..=5).prop_flat_map(|(rows, cols)| {
        let mark = prop_oneof![Just(None), Just(Some(Player::X)), Just(Some(Player::O))];
        (
            Just(rows),
            Just(cols),
            prop::collection::vec(mark, (rows * cols) as usize),
            1..=rows.max(cols),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `from_setup` on arbitrary grids: what it accepts is consistent
    /// (turn from the counts, at most one winner and the winner moved last,
    /// draws only on full boards), and a grid with sane counts and no k in a
    /// row anywhere is always accepted.
    #[test]
    fn from_setup_accepts_only_consistent_positions((rows, cols, cells, k) in small_grid_and_k()) {
        let setup: Setup = canonical(cols, &cells).parse().expect("canonical text parses");
        let mut shadow = Shadow::new(Rules::new(rows, cols, k).unwrap());
        shadow.marks.clone_from(&cells);
        let x = cells.iter().filter(|&&m| m == Some(Player::X)).count();
        let o = cells.iter().filter(|&&m| m == Some(Player::O)).count();
        let counts_ok = x == o || x == o + 1;
        let x_run = shadow.has_run(Player::X);
        let o_run = shadow.has_run(Player::O);

        match Game::from_setup(&setup, k) {
            Ok(game) => {
                prop_assert!(counts_ok, "accepted x={} o={}", x, o);
                prop_assert!(!(x_run && o_run), "accepted two winners");
                let to_move = if x == o { Player::X } else { Player::O };
                prop_assert_eq!(game.to_move(), to_move);
                prop_assert_eq!(game.cells(), &cells[..]);
                let winner = if x_run { Some(Player::X) } else if o_run { Some(Player::O) } else { None };
                match winner {
                    Some(w) => {
                        prop_assert_eq!(w, to_move.other(), "the winner did not move last");
                        prop_assert_eq!(game.outcome(), Some(Outcome::Win(w)));
                        let line = game.winning_line().expect("a won position has a line");
                        prop_assert!(line.len >= k && line.len < 2 * k);
                        for (r, c) in line_coords(line) {
                            prop_assert_eq!(shadow.at(r, c), Some(w));
                        }
                    }
                    None => {
                        let expected = shadow.is_full().then_some(Outcome::Draw);
                        prop_assert_eq!(game.outcome(), expected);
                        prop_assert_eq!(game.winning_line(), None);
                    }
                }
            }
            Err(err) => {
                prop_assert!(
                    !counts_ok || x_run || o_run,
                    "refused a quiet position with sane counts: {}", err
                );
            }
        }
    }
}

#[test]
fn setup_size_limit_is_max_side() {
    let side = MAX_SIDE as usize;
    let wide = ".".repeat(side);
    assert_eq!(wide.parse::<Setup>().map(|s| s.cols()), Ok(MAX_SIDE));
    assert!(format!("{wide}.").parse::<Setup>().is_err());
    let tall = vec!["X"; side].join("/");
    assert_eq!(tall.parse::<Setup>().map(|s| s.rows()), Ok(MAX_SIDE));
    assert!(format!("{tall}/X").parse::<Setup>().is_err());
}

// ---------------------------------------------------------------------------
// Cell numbering
// ---------------------------------------------------------------------------

/// Numbers that no board of `count` cells has, including values that would
/// land on the board if narrowed to 32 bits.
fn outside_numbers(count: i64) -> Vec<i64> {
    vec![
        0,
        -1,
        -count,
        count + 1,
        count + 2,
        2 * count + 1,
        i64::MIN,
        i64::MIN + 1,
        i64::MAX,
        (1 << 32) + 1,
        (1 << 32) + count,
        -(1 << 32) + 1,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cell_numbers_round_trip(rules in rules_up_to(32), extra in any::<i64>()) {
        let (rows, cols) = (rules.rows(), rules.cols());
        let count = i64::from(rows) * i64::from(cols);
        let mut seen = 0;
        for row in 0..rows {
            for col in 0..cols {
                let cell = Cell::new(row, col);
                let number = i64::from(row) * i64::from(cols) + i64::from(col) + 1;
                prop_assert_eq!(i64::try_from(rules.number_of(cell)).unwrap(), number);
                prop_assert_eq!(rules.cell_numbered(number), Some(cell));
                seen += 1;
            }
        }
        prop_assert_eq!(seen, count);
        for number in outside_numbers(count) {
            prop_assert_eq!(rules.cell_numbered(number), None, "number {}", number);
        }
        let expected = if (1..=count).contains(&extra) {
            Some(nth_cell(rules, usize::try_from(extra - 1).unwrap()))
        } else {
            None
        };
        prop_assert_eq!(rules.cell_numbered(extra), expected);
    }

    /// The same on boards up to the largest size, sampling numbers.
    #[test]
    fn cell_numbers_round_trip_on_large_boards(
        rows in 1..=MAX_SIDE,
        cols in 1..=MAX_SIDE,
        picks in prop::collection::vec(any::<Index>(), 16),
    ) {
        let rules = Rules::new(rows, cols, 1).unwrap();
        let count = i64::from(rows) * i64::from(cols);
        for pick in picks {
            let index = pick.index(rules.cell_count());
            let number = i64::try_from(index).unwrap() + 1;
            let cell = rules.cell_numbered(number).expect("an on-board number");
            prop_assert_eq!(cell, nth_cell(rules, index));
            prop_assert!(rules.contains(cell));
            prop_assert_eq!(rules.number_of(cell), index + 1);
        }
        for number in outside_numbers(count) {
            prop_assert_eq!(rules.cell_numbered(number), None, "number {}", number);
        }
    }
}

// ---------------------------------------------------------------------------
// Clocks: a model of each side's time, kept by the test.
// ---------------------------------------------------------------------------

proptest! {
    /// A round of moves each taking an arbitrary time: the clock agrees
    /// with a plain model (the first two moves untimed, then the mover
    /// charged and given its increment), flags exactly when the model's
    /// time runs out, never shows more than the model, and reads back the
    /// same from its stored parts.
    #[test]
    fn a_clock_keeps_the_time_a_model_keeps(
        initial in 1u64..200_000,
        increment in 0u64..10_000,
        thinks in prop::collection::vec(0u64..60_000, 1..40),
    ) {
        use oxo_core::{Clock, Flagged, TimeControl};
        let mut clock = Clock::new(TimeControl::fischer(initial, increment));
        let mut model = [initial, initial];
        let mut now = 1_000_000u64;
        for (i, think) in thinks.iter().enumerate() {
            let ply = i + 1;
            let mover = if ply % 2 == 1 { Player::X } else { Player::O };
            now += think;
            let timed = ply >= 3;
            let left = model[mover.index()];
            prop_assert_eq!(clock.left(mover, now), if timed { left.saturating_sub(*think) } else { left });
            match clock.punch(mover, ply, now) {
                Err(Flagged(side)) => {
                    prop_assert!(timed && *think >= left, "flag at ply {} after {} of {}", ply, think, left);
                    prop_assert_eq!(side, mover);
                    prop_assert_eq!(clock.flagged(now), Some(mover));
                    return Ok(());
                }
                Ok(next) => {
                    prop_assert!(!timed || *think < left, "no flag at ply {} after {} of {}", ply, think, left);
                    if timed {
                        model[mover.index()] = left - think + increment;
                    }
                    clock = next;
                }
            }
            prop_assert_eq!(clock.left(mover, now), model[mover.index()]);
            let other = mover.other();
            prop_assert_eq!(clock.running(), (ply >= 2).then_some(other));
            prop_assert_eq!(clock.deadline(), (ply >= 2).then(|| now + model[other.index()]));
            let stored = Clock::from_parts(
                clock.control(),
                [clock.stored_left(Player::X), clock.stored_left(Player::O)],
                clock.running_since(),
            );
            prop_assert_eq!(stored, clock);
        }
    }
}
