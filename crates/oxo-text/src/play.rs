//! `oxo play`: the week-37 console game, round after round.
//!
//! The plain line protocol, as in the seed: print the board, prompt
//! `X move (row col): `, read `ROW COL`. A move that is off the board, on a
//! taken cell or unreadable prints `invalid move` and the same player goes
//! again; a win prints the board and `X wins!`, a full board `draw.`.
//!
//! Beyond the seed, and without changing a byte of what it prints for
//! moves: the reason a move was refused goes to a second stream (standard
//! error), so the transcript on standard output stays the seed's; `help`
//! (or `?`) prints how to play, and `quit` (or `q`) ends the session with
//! the score.
//!
//! Each side is a [`Seat`]: a person at the keyboard ([`Human`]) or a
//! computer player ([`Computer`], any `oxo_ai` strategy), behind one trait
//! so the loop never changes with who plays (the seeds' Strategy pattern).

use std::io::{self, BufRead, Write};

use crate::input::{LineRead, MAX_LINE, read_line_bounded, skip_line};
use oxo_core::{Coords, Game, MoveError, MoveResult, Player, Rules, Scoreboard, Series};

/// What to play.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Board and win length.
    pub rules: Rules,
    /// Rounds to play (at least 1).
    pub rounds: u64,
    /// Who starts round 1; the starter alternates after that.
    pub first: Player,
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Every round was played out.
    Finished(Scoreboard),
    /// Input ran out during a round; that round was abandoned.
    InputEnded(Scoreboard),
    /// A player typed `quit` during a round; that round was abandoned.
    Quit(Scoreboard),
}

/// A side's answer when asked for a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Mark the cell at these coordinates (which may be off the board).
    Move(i64, i64),
    /// Something that is not a move was entered.
    Unreadable,
    /// The player asked how to play.
    Help,
    /// The player asked to stop.
    Quit,
    /// No more moves will come.
    EndOfInput,
}

/// Where one side's moves come from.
pub trait Seat {
    /// Choose a move for `game.to_move()`, reading from `input` and talking
    /// on `output` if this seat needs to.
    ///
    /// # Errors
    /// Reading or writing failed.
    fn choose(
        &mut self,
        game: &Game,
        input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> io::Result<Choice>;
}

/// A person typing `ROW COL` after the prompt.
#[derive(Clone, Copy, Debug, Default)]
pub struct Human;

impl Seat for Human {
    fn choose(
        &mut self,
        game: &Game,
        input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> io::Result<Choice> {
        write!(output, "{} move (row col): ", game.to_move())?;
        output.flush()?;
        let mut line = Vec::new();
        match read_line_bounded(input, &mut line, MAX_LINE)? {
            LineRead::End => {
                // End the prompt's line so the terminal is left tidy.
                writeln!(output)?;
                return Ok(Choice::EndOfInput);
            }
            // No move is that long: its rest is dropped in constant memory.
            LineRead::TooLong => {
                skip_line(input)?;
                return Ok(Choice::Unreadable);
            }
            LineRead::Line => {}
        }
        // Text that is not UTF-8 is just another unreadable line.
        let Ok(text) = std::str::from_utf8(&line) else {
            return Ok(Choice::Unreadable);
        };
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "help" | "?" => Choice::Help,
            "quit" | "q" | "exit" => Choice::Quit,
            _ => text
                .parse::<Coords>()
                .map_or(Choice::Unreadable, |c| Choice::Move(c.row, c.col)),
        })
    }
}

/// A computer player: asks its strategy and announces the move at once.
pub struct Computer {
    strategy: Box<dyn oxo_ai::Strategy>,
}

impl std::fmt::Debug for Computer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Computer")
            .field("strategy", &self.strategy.name())
            .finish()
    }
}

impl Computer {
    /// A seat played by `strategy`.
    #[must_use]
    pub fn new(strategy: Box<dyn oxo_ai::Strategy>) -> Computer {
        Computer { strategy }
    }
}

impl Seat for Computer {
    fn choose(
        &mut self,
        game: &Game,
        _input: &mut dyn BufRead,
        output: &mut dyn Write,
    ) -> io::Result<Choice> {
        let cell = self.strategy.choose(game).ok_or_else(|| {
            io::Error::other(format!(
                "the {} player found no move in {game}",
                self.strategy.name()
            ))
        })?;
        writeln!(
            output,
            "{} ({}) plays {} {}",
            game.to_move(),
            self.strategy.name(),
            cell.row,
            cell.col
        )?;
        Ok(Choice::Move(cell.row.into(), cell.col.into()))
    }
}

/// What `help` prints.
pub const HELP: &str = "\
Type a row and a column, counted from 0, then Enter: `1 2` is row 1, column 2.
`quit` ends the game and shows the score; `help` shows this again.
";

/// The streams a session talks on.
#[derive(Debug)]
pub struct Console<I, O, E> {
    /// Where people's moves come from.
    pub input: I,
    /// The seed's transcript: boards, prompts, results.
    pub output: O,
    /// Why a move was refused (kept off `output` so its bytes stay the
    /// seed's).
    pub notes: E,
}

/// Play `config.rounds` rounds between `seats` (X's seat first).
///
/// # Errors
/// Reading or writing failed.
pub fn run(
    config: &Config,
    seats: &mut [Box<dyn Seat + '_>; 2],
    console: Console<impl BufRead, impl Write, impl Write>,
) -> io::Result<End> {
    let Console {
        mut input,
        mut output,
        mut notes,
    } = console;
    let mut series = Series::new(config.first);
    for round in 1..=config.rounds {
        let starter = series.starter();
        if config.rounds > 1 {
            writeln!(
                output,
                "Round {round} of {}: {starter} starts",
                config.rounds
            )?;
        }
        let mut game = series.game(config.rules);
        let io = (
            &mut input as &mut dyn BufRead,
            &mut output as &mut dyn Write,
        );
        let outcome = match play_round(&mut game, seats, io, &mut notes)? {
            Ok(outcome) => outcome,
            Err(Stop::EndOfInput) => return Ok(End::InputEnded(series.score())),
            Err(Stop::Quit) => {
                writeln!(output, "Score: {}", series.score())?;
                output.flush()?;
                return Ok(End::Quit(series.score()));
            }
        };
        series.finish_round(outcome);
        if config.rounds > 1 {
            writeln!(output, "Score: {}", series.score())?;
        }
    }
    output.flush()?;
    Ok(End::Finished(series.score()))
}

/// Why a round stopped before its end.
enum Stop {
    EndOfInput,
    Quit,
}

/// One game to its end, or why it stopped first.
fn play_round(
    game: &mut Game,
    seats: &mut [Box<dyn Seat + '_>; 2],
    (input, output): (&mut dyn BufRead, &mut dyn Write),
    notes: &mut dyn Write,
) -> io::Result<Result<oxo_core::Outcome, Stop>> {
    loop {
        write_board(output, game)?;
        let mover = game.to_move();
        let refused = |output: &mut dyn Write, notes: &mut dyn Write, why: &str| {
            writeln!(output, "invalid move")?;
            output.flush()?;
            writeln!(notes, "oxo: {why}")?;
            notes.flush()
        };
        let (row, col) = match seats[mover.index()].choose(game, input, output)? {
            Choice::Move(row, col) => (row, col),
            Choice::Unreadable => {
                refused(
                    output,
                    notes,
                    "type a row and a column, such as `1 2`, or `help`",
                )?;
                continue;
            }
            Choice::Help => {
                output.write_all(HELP.as_bytes())?;
                continue;
            }
            Choice::Quit => return Ok(Err(Stop::Quit)),
            Choice::EndOfInput => return Ok(Err(Stop::EndOfInput)),
        };
        match game.play_at(row, col) {
            Ok(MoveResult::Placed) => {}
            Ok(MoveResult::Won { winner, .. }) => {
                write_board(output, game)?;
                writeln!(output, "{winner} wins!")?;
                return Ok(Ok(oxo_core::Outcome::Win(winner)));
            }
            Ok(MoveResult::Draw) => {
                write_board(output, game)?;
                writeln!(output, "draw.")?;
                return Ok(Ok(oxo_core::Outcome::Draw));
            }
            Err(e) => refused(output, notes, &refusal(&e, game.rules()))?,
        }
    }
}

/// Why a move was refused, for the notes: the rules' reason, a cell off
/// the board with the board's size, and a coordinate too large to hold
/// (read as the largest that fits) not shown as that number.
fn refusal(error: &MoveError, rules: Rules) -> String {
    let (rows, cols) = (rules.rows(), rules.cols());
    match *error {
        MoveError::OffBoard { row, col }
            if [row, col].iter().any(|&n| n == i64::MAX || n == i64::MIN) =>
        {
            format!("that cell is off the {rows}x{cols} board")
        }
        MoveError::OffBoard { row, col } => {
            format!("({row}, {col}) is off the {rows}x{cols} board")
        }
        _ => error.to_string(),
    }
}

/// The board with row and column numbers, `.` for empty cells:
///
/// ```text
///   0 1 2
/// 0 X . .
/// 1 . O .
/// 2 . . .
/// ```
///
/// # Errors
/// Writing failed.
pub fn write_board(out: &mut dyn Write, game: &Game) -> io::Result<()> {
    let rules = game.rules();
    let row_w = digits(rules.rows() - 1);
    let col_w = digits(rules.cols() - 1);
    write!(out, "{:row_w$}", "")?;
    for col in 0..rules.cols() {
        write!(out, " {col:>col_w$}")?;
    }
    writeln!(out)?;
    for (row, cells) in game.cells().chunks(rules.cols() as usize).enumerate() {
        write!(out, "{row:>row_w$}")?;
        for cell in cells {
            write!(out, " {:>col_w$}", cell.map_or('.', Player::as_char))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn digits(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(config: Config, input: &str) -> (String, End) {
        let mut out = Vec::new();
        let mut seats: [Box<dyn Seat>; 2] = [Box::new(Human), Box::new(Human)];
        let end = run(&config, &mut seats, console(input.as_bytes(), &mut out)).unwrap();
        (String::from_utf8(out).unwrap(), end)
    }

    /// A console whose notes are dropped.
    fn console<I: BufRead, O: Write>(input: I, output: O) -> Console<I, O, io::Sink> {
        Console {
            input,
            output,
            notes: io::sink(),
        }
    }

    fn one_round() -> Config {
        Config {
            rules: Rules::default(),
            rounds: 1,
            first: Player::X,
        }
    }

    #[test]
    fn board_layout() {
        let mut game = Game::default();
        game.play_at(1, 1).unwrap();
        let mut out = Vec::new();
        write_board(&mut out, &game).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  0 1 2\n0 . . .\n1 . X .\n2 . . .\n"
        );

        let game = Game::new(Rules::new(11, 12, 5).unwrap());
        let mut out = Vec::new();
        write_board(&mut out, &game).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 12);
        assert!(lines[0].ends_with(" 9 10 11"), "{:?}", lines[0]);
        assert!(lines[11].starts_with("10  ."), "{:?}", lines[11]);
    }

    #[test]
    fn a_win_prints_the_board_and_the_winner() {
        let (out, end) = session(one_round(), "0 0\n1 0\n0 1\n1 1\n0 2\n");
        assert!(out.starts_with("  0 1 2\n0 . . .\n1 . . .\n2 . . .\nX move (row col): "));
        assert!(
            out.ends_with("  0 1 2\n0 X X X\n1 O O .\n2 . . .\nX wins!\n"),
            "{out}"
        );
        assert_eq!(out.matches("move (row col): ").count(), 5);
        let mut score = Scoreboard::default();
        score.record(oxo_core::Outcome::Win(Player::X));
        assert_eq!(end, End::Finished(score));
    }

    #[test]
    fn invalid_input_asks_the_same_player_again() {
        let (out, _) = session(
            one_round(),
            "1 1\n1 1\n3 0\nhello\n\n-1 99999999999999999999999\n0 0\n",
        );
        assert_eq!(out.matches("invalid move\n").count(), 5);
        assert_eq!(out.matches("O move (row col): ").count(), 6);
        assert!(out.contains("0 O . .\n1 . X .\n"));
    }

    #[test]
    fn refusals_say_why_on_the_notes_stream_only() {
        let mut out = Vec::new();
        let mut notes = Vec::new();
        let mut seats: [Box<dyn Seat>; 2] = [Box::new(Human), Box::new(Human)];
        let console = Console {
            input: "1 1\n1 1\n5 0\nnine\n99999999999999999999 0\n".as_bytes(),
            output: &mut out,
            notes: &mut notes,
        };
        run(&one_round(), &mut seats, console).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches("invalid move\n").count(), 4, "{out}");
        assert!(!out.contains("taken"), "{out}");
        // A number too large to hold is not shown as the largest that fits.
        assert_eq!(
            String::from_utf8(notes).unwrap(),
            "oxo: (1, 1) is already taken by X\n\
             oxo: (5, 0) is off the 3x3 board\n\
             oxo: type a row and a column, such as `1 2`, or `help`\n\
             oxo: that cell is off the 3x3 board\n"
        );
    }

    /// A line longer than any move is one invalid move, read in constant
    /// memory, and the game goes on from the next line.
    #[test]
    fn a_line_longer_than_any_move_is_one_invalid_move() {
        let mut out = Vec::new();
        let mut notes = Vec::new();
        let mut seats: [Box<dyn Seat>; 2] = [Box::new(Human), Box::new(Human)];
        let input = format!("{}\n1 1\n", "7".repeat(100_000));
        let console = Console {
            input: input.as_bytes(),
            output: &mut out,
            notes: &mut notes,
        };
        run(&one_round(), &mut seats, console).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches("invalid move\n").count(), 1, "{out}");
        assert!(out.contains("1 . X .\n"), "{out}");
    }

    #[test]
    fn help_explains_and_quit_ends_with_the_score() {
        let (out, end) = session(one_round(), "0 0\nhelp\n?\nQUIT\n2 2\n");
        assert_eq!(out.matches(HELP).count(), 2, "{out}");
        assert!(!out.contains("invalid move"), "{out}");
        // Help asks the same player again, on a fresh board.
        assert_eq!(out.matches("O move (row col): ").count(), 3, "{out}");
        assert!(
            out.ends_with("O move (row col): Score: X 0, O 0, draws 0\n"),
            "{out}"
        );
        assert_eq!(end, End::Quit(Scoreboard::default()));
    }

    #[test]
    fn bytes_that_are_not_text_are_an_invalid_move() {
        let mut out = Vec::new();
        let mut seats: [Box<dyn Seat>; 2] = [Box::new(Human), Box::new(Human)];
        let input: &[u8] = b"\xff\xfe\n1 1\n";
        let end = run(&one_round(), &mut seats, console(input, &mut out)).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("X move (row col): invalid move\n"), "{out}");
        assert!(out.contains("1 . X .\n"), "{out}");
        assert_eq!(end, End::InputEnded(Scoreboard::default()));
    }

    #[test]
    fn draw() {
        let (out, _) = session(one_round(), "0 0\n1 1\n2 2\n0 1\n2 1\n2 0\n0 2\n1 2\n1 0\n");
        assert!(out.ends_with("0 X O X\n1 X O O\n2 O X X\ndraw.\n"), "{out}");
    }

    #[test]
    fn end_of_input_abandons_cleanly() {
        let (out, end) = session(one_round(), "0 0\n");
        assert!(out.ends_with("O move (row col): \n"), "{out:?}");
        assert_eq!(end, End::InputEnded(Scoreboard::default()));
    }

    #[test]
    fn rounds_alternate_the_starter_and_keep_score() {
        let config = Config {
            rounds: 2,
            ..one_round()
        };
        // Round 1: X wins the top row. Round 2: O starts and wins the top row.
        let moves = "0 0\n1 0\n0 1\n1 1\n0 2\n0 0\n1 0\n0 1\n1 1\n0 2\n";
        let (out, end) = session(config, moves);
        assert!(out.starts_with("Round 1 of 2: X starts\n"));
        assert!(out.contains("X wins!\nScore: X 1, O 0, draws 0\nRound 2 of 2: O starts\n"));
        assert!(
            out.ends_with("O wins!\nScore: X 1, O 1, draws 0\n"),
            "{out}"
        );
        let End::Finished(score) = end else {
            panic!("expected both rounds to finish");
        };
        assert_eq!((score.wins(Player::X), score.wins(Player::O)), (1, 1));
    }

    #[test]
    fn human_against_the_perfect_computer() {
        let rules = Rules::default();
        let perfect = oxo_ai::StrategyKind::Perfect.build(rules, 1).unwrap();
        let mut seats: [Box<dyn Seat>; 2] = [Box::new(Human), Box::new(Computer::new(perfect))];
        let mut out = Vec::new();
        // The human opens in a corner and then plays badly; the computer
        // answers every move at once and wins.
        let input = "0 0\n0 1\n1 0\n2 2\n".as_bytes();
        let end = run(&one_round(), &mut seats, console(input, &mut out)).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("O (perfect) plays 1 1\n"), "{out}");
        assert!(out.ends_with("O wins!\n"), "{out}");
        let End::Finished(score) = end else {
            panic!("the game should finish: {out}");
        };
        assert_eq!(score.wins(Player::O), 1);
    }

    #[test]
    fn two_computers_need_no_input() {
        let rules = Rules::default();
        let build = |seed| Computer::new(oxo_ai::StrategyKind::Perfect.build(rules, seed).unwrap());
        let mut seats: [Box<dyn Seat>; 2] = [Box::new(build(1)), Box::new(build(2))];
        let config = Config {
            rounds: 4,
            ..one_round()
        };
        let mut out = Vec::new();
        let end = run(&config, &mut seats, console(io::empty(), &mut out)).unwrap();
        let End::Finished(score) = end else {
            panic!("all rounds should finish");
        };
        assert_eq!(score.draws(), 4);
    }

    #[test]
    fn larger_boards_use_k() {
        let config = Config {
            rules: Rules::new(4, 5, 4).unwrap(),
            ..one_round()
        };
        let (out, _) = session(config, "0 0\n1 0\n0 1\n1 1\n0 2\n1 2\n0 3\n");
        assert!(out.ends_with("X wins!\n"), "{out}");
    }
}
