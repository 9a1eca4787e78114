//! Piskvork's game record, the `.psq` file that Gomocup tournaments keep
//! of every game and that Piskvork and Renlib viewers open.
//!
//! The format is the one Piskvork itself writes and reads (`savePsq` and
//! `openPsq` in `source/game.cpp` of github.com/plastovicka/Piskvork, as
//! of commit 2c32965):
//!
//! ```text
//! Piskvorky WIDTHxHEIGHT, L1:L2, FIRST
//! X,Y,TIME          one line a stone, in the order played
//! NAME1
//! NAME2
//! CODE
//! ```
//!
//! WIDTH is the number of columns and HEIGHT of rows; `X,Y` is a stone's
//! column and row counted from 1 (Piskvork's squares run from 1 to the
//! width and the height; unlike the protocol's own `X,Y`, which count from
//! 0); TIME is a thinking time in milliseconds; FIRST is 0 when the first
//! player (whose name is NAME1) made the first move and 1 when the second
//! did; L1 and L2 are the players' levels in Piskvork, 0 for a player it
//! does not run itself; CODE is 0 for a game that ended by the rules and
//! -2 for one lost to an error (Piskvork writes 15 for a timeout).
//!
//! Here the first player is X, the second O. TIME is the move's time as
//! the arena measured it (0 for an opening's stones, which are nobody's
//! move), and the levels are 0. A name is
//! what Piskvork reads as a player when it opens the file: an engine's
//! file name (as Piskvork writes it), and for oxo's own players their
//! name, which Piskvork would look for as an engine's file. CODE is -2
//! for every forfeit, a late answer included: the arena's forfeits carry
//! their reason in words only.

use std::time::Duration;

use oxo_ai::arena::{Ending, Played};
use oxo_core::{Player, Rules};

/// Whether a `.psq` file can describe a game under `rules`: Gomocup's five
/// in a row (the file names no win length) on a board of at least five a
/// side.
#[must_use]
pub fn describes(rules: Rules) -> bool {
    crate::is_gomoku(rules)
}

/// The `.psq` file of `game`, every stone from the opening's first, the
/// names of X and O as the arena gave them.
///
/// # Panics
/// The game's board is not one a `.psq` file describes ([`describes`]).
#[must_use]
pub fn write(game: &Played) -> String {
    let rules = game.start.rules();
    assert!(describes(rules), "a .psq file cannot describe {rules}");
    let first = match game.first {
        Player::X => 0,
        Player::O => 1,
    };
    let mut out = format!(
        "Piskvorky {}x{}, 0:0, {first}\n",
        rules.cols(),
        rules.rows()
    );
    // The opening's stones are nobody's move: no time.
    debug_assert_eq!(game.moves.len(), game.times.len(), "a time a move");
    let times = game.times.iter().map(Duration::as_millis);
    let stones = (game.opening.iter().map(|cell| (cell, 0))).chain(game.moves.iter().zip(times));
    for (cell, ms) in stones {
        out.push_str(&format!("{},{},{ms}\n", cell.col + 1, cell.row + 1));
    }
    let code = match game.ending {
        Ending::Line | Ending::Full => 0,
        Ending::Forfeit { .. } => -2,
    };
    out.push_str(&format!("{}\n{}\n{code}\n", line(&game.x), line(&game.o)));
    out
}

/// A player's name as one line of the file: an engine (`brain:PATH`) by
/// its file name, as Piskvork names one.
fn line(name: &str) -> String {
    let name = match name.strip_prefix("brain:") {
        Some(path) => std::path::Path::new(path)
            .file_name()
            .map_or(path.into(), |file| file.to_string_lossy()),
        None => name.into(),
    };
    name.replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use oxo_core::{Cell, Game};

    use super::*;

    fn played(rules: Rules, first: Player, opening: &[Cell], moves: &[Cell]) -> Played {
        let mut start = Game::starting_with(rules, first);
        for &cell in opening {
            start.play(cell).unwrap();
        }
        let mut end = start.clone();
        for &cell in moves {
            end.play(cell).unwrap();
        }
        Played {
            index: 0,
            x: "brain:./pbrain-a".to_owned(),
            o: "rules".to_owned(),
            first,
            opening: opening.to_vec(),
            start,
            moves: moves.to_vec(),
            times: (1..=moves.len() as u64)
                .map(Duration::from_millis)
                .collect(),
            winner: end.outcome().and_then(|o| o.winner()),
            ending: Ending::Line,
        }
    }

    /// X makes five along the top row of a board 9 columns wide and 6
    /// rows high, O answering on the second row: in Piskvork's terms X's
    /// stones are at x = 1 to 5 (the column), y = 1 (the row), O's at
    /// y = 2, and the board is 9x6 (width first). Read back as Piskvork's
    /// `openPsq` does (`Square(x - 1, y - 1)`, x the column), the file
    /// gives the same game.
    #[test]
    fn a_known_game_in_piskvorks_coordinates() {
        let rules = Rules::new(6, 9, 5).unwrap();
        let mut moves = Vec::new();
        for col in 0..5 {
            moves.push(Cell::new(0, col));
            if col < 4 {
                moves.push(Cell::new(1, col));
            }
        }
        let game = played(rules, Player::X, &[], &moves);
        assert_eq!(game.winner, Some(Player::X));
        let text = write(&game);
        assert_eq!(
            text,
            "Piskvorky 9x6, 0:0, 0\n\
             1,1,1\n1,2,2\n2,1,3\n2,2,4\n3,1,5\n3,2,6\n4,1,7\n4,2,8\n5,1,9\n\
             pbrain-a\nrules\n0\n"
        );
        let mut replay = Game::starting_with(rules, Player::X);
        for line in text.lines().skip(1).take(moves.len()) {
            let mut fields = line.split(',').map(|f| f.parse::<i64>().unwrap());
            let (x, y) = (fields.next().unwrap(), fields.next().unwrap());
            replay.play_at(y - 1, x - 1).unwrap();
        }
        assert_eq!(replay.outcome().and_then(|o| o.winner()), Some(Player::X));
    }

    /// O moving first is FIRST 1; the opening's stones come first, with no
    /// time; a forfeit is Piskvork's error code.
    #[test]
    fn the_first_mover_the_opening_and_a_forfeit() {
        let rules = Rules::new(15, 15, 5).unwrap();
        let mut game = played(rules, Player::O, &[Cell::new(7, 7)], &[Cell::new(7, 8)]);
        game.winner = Some(Player::X);
        game.ending = Ending::Forfeit {
            side: Player::O,
            reason: "no answer\nin time".to_owned(),
        };
        game.o = "two\nlines".to_owned();
        assert_eq!(
            write(&game),
            "Piskvorky 15x15, 0:0, 1\n8,8,0\n9,8,1\npbrain-a\ntwo lines\n-2\n"
        );
    }

    #[test]
    fn only_five_in_a_row_on_five_a_side() {
        assert!(describes(Rules::new(15, 15, 5).unwrap()));
        assert!(describes(Rules::new(5, 20, 5).unwrap()));
        assert!(!describes(Rules::new(15, 15, 4).unwrap()));
        assert!(!describes(Rules::new(4, 9, 5).unwrap()));
    }
}
