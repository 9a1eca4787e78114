//! The CS 1044 Program 6 referee (`oxo referee`): read a moves file
//! (`TTTmoves.txt`), judge every move, and write the game report
//! (`TTTgame.txt`).
//!
//! The judging here is pure, with no I/O: [`referee`] turns the bytes of a
//! moves file into a [`Transcript`], and [`report`] renders it under the two
//! header lines of [`Options`]. The file work around them: [`run`] checks
//! the whole [`Job`] before touching anything ([`UsageError`]), builds each
//! report in memory and writes it with a rename, so a failed file never
//! leaves half a report behind; each file's problem ([`FileError`]) is
//! handed back as it happens and the run ends with the worst [`Status`].
//!
//! ```
//! use oxo_text::referee::{Options, report};
//!
//! let moves = "Game\nX: A Ames O: B Bell\n\nX\t1\nO\t4\nX\t2\nO\t5\nX\t3\n";
//! let options = Options { programmer: "Me".into(), project: "Demo".into() };
//! let text = report(moves.as_bytes(), &options)?;
//! assert!(text.starts_with("Programmer: Me\nDemo\n\nTic-Tac-Toe game: X: A Ames O: B Bell\n"));
//! assert!(text.ends_with("Move 5: X 3\nX X X\nO O -\n- - -\n\nWinner: X\n"));
//! # Ok::<(), oxo_text::referee::RefereeError>(())
//! ```

use std::fmt;

use oxo_core::{Cell, Game, Integer, MoveError, Outcome, Player, Rules};

mod files;

pub use files::{FileError, Job, MAX_MOVES_FILE, Status, UsageError, run};

/// The default programmer line: the program that wrote the report.
pub const DEFAULT_PROGRAMMER: &str = "oxo";
/// The default project line.
pub const DEFAULT_PROJECT: &str = "Tic-Tac-Toe referee";

/// The seed's game: squares numbered 1 to 9, row by row.
const RULES: Rules = Rules::TIC_TAC_TOE;

/// A UTF-8 byte order mark, which some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The two header lines of a report.
#[derive(Clone, Debug)]
pub struct Options {
    /// After `Programmer: `.
    pub programmer: String,
    /// The project line.
    pub project: String,
}

impl Options {
    /// Check that each header line is one line of text: no line breaks or
    /// other control characters, which would let it write lines the
    /// report's reader takes for the referee's own. [`run`] checks this
    /// before any work; [`report`] writes the lines as they are.
    ///
    /// # Errors
    /// [`UsageError::HeaderControl`] naming the first line that fails.
    pub fn check(&self) -> Result<(), UsageError> {
        for (field, text) in [("programmer", &self.programmer), ("project", &self.project)] {
            if text.chars().any(char::is_control) {
                return Err(UsageError::HeaderControl {
                    field,
                    text: text.clone(),
                });
            }
        }
        Ok(())
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            programmer: DEFAULT_PROGRAMMER.to_owned(),
            project: DEFAULT_PROJECT.to_owned(),
        }
    }
}

/// Why a move is refused. The variants are in the order the seed checks
/// them; a move with several faults is reported with the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Illegal {
    /// The label is not exactly `X` or `O`.
    Player,
    /// The square is not 1 to 9.
    Square,
    /// The player who made the last legal move tried to move again.
    DoubleMove,
    /// The square already holds a mark.
    MarkedSquare,
}

impl Illegal {
    /// The reason as the report spells it.
    #[must_use]
    pub const fn message(self) -> &'static str {
        match self {
            Illegal::Player => "illegal player",
            Illegal::Square => "illegal square",
            Illegal::DoubleMove => "double move",
            Illegal::MarkedSquare => "marked square",
        }
    }
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// One move of a moves file, as the report shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A legal move and the board after it.
    Move {
        /// 1 for the first legal move, 2 for the next, and so on.
        number: usize,
        /// Who moved.
        player: Player,
        /// The square marked, 1 to 9.
        square: usize,
        /// Every square's mark after the move, row by row.
        board: Vec<Option<Player>>,
    },
    /// A refused move, which changes nothing.
    Refused {
        /// The label exactly as written.
        label: String,
        /// The square in canonical spelling (no `+`, no leading zeros).
        square: String,
        /// Why it was refused.
        reason: Illegal,
    },
}

/// A refereed game: everything the report shows below its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transcript {
    /// The players line, trimmed, with each run of whitespace made one space.
    pub players: String,
    /// The moves up to the end of the game, legal and refused, in file order.
    pub entries: Vec<Entry>,
    /// How the game ended.
    pub outcome: Outcome,
}

/// The report body: the `Tic-Tac-Toe game:` line down to `Winner:`.
impl fmt::Display for Transcript {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Tic-Tac-Toe game: {}", self.players)?;
        writeln!(f)?;
        for entry in &self.entries {
            match entry {
                Entry::Move {
                    number,
                    player,
                    square,
                    board,
                } => {
                    writeln!(f, "Move {number}: {player} {square}")?;
                    for row in board.chunks(RULES.cols() as usize) {
                        for (i, mark) in row.iter().enumerate() {
                            if i > 0 {
                                f.write_str(" ")?;
                            }
                            write!(f, "{}", mark.map_or('-', Player::as_char))?;
                        }
                        writeln!(f)?;
                    }
                }
                Entry::Refused {
                    label,
                    square,
                    reason,
                } => writeln!(f, "{label} {square} {reason}")?,
            }
            writeln!(f)?;
        }
        match self.outcome {
            Outcome::Win(player) => writeln!(f, "Winner: {player}"),
            Outcome::Draw => writeln!(f, "Winner: Cat"),
        }
    }
}

/// Why a moves file could not be refereed, and on which line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefereeError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong there.
    pub problem: Problem,
}

impl RefereeError {
    const fn new(line: usize, problem: Problem) -> RefereeError {
        RefereeError { line, problem }
    }
}

impl fmt::Display for RefereeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.problem)
    }
}

impl std::error::Error for RefereeError {}

/// What can be wrong with a moves file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Not even a title line.
    Empty,
    /// The file ends after the title line.
    NoPlayers,
    /// The players line is blank.
    BlankPlayers,
    /// The line after the players line is not blank (it is shown).
    NotBlank(String),
    /// A move line that is not a label and a square number (it is shown).
    Unreadable(String),
    /// A line that is not UTF-8 text.
    NotUtf8,
    /// The file ends while the game goes on.
    Unfinished {
        /// Legal moves made by then.
        legal_moves: usize,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const PLAYERS: &str = "\"X: D Barnette O: D Allison\"";
        match self {
            Problem::Empty => f.write_str(
                "the file is empty: expected a title line, the players line, \
                 a blank line, then one move per line",
            ),
            Problem::NoPlayers => write!(
                f,
                "the file ends after the title line: expected the players line, such as {PLAYERS}"
            ),
            Problem::BlankPlayers => write!(
                f,
                "the players line is blank: expected something like {PLAYERS}"
            ),
            Problem::NotBlank(line) => write!(
                f,
                "expected a blank line after the players line, found {line:?}"
            ),
            Problem::Unreadable(line) => write!(
                f,
                "cannot read the move {line:?}: expected a player label and a square number, \
                 such as \"X 5\""
            ),
            Problem::NotUtf8 => f.write_str("not UTF-8 text"),
            Problem::Unfinished { legal_moves } => write!(
                f,
                "the file ends before the game does: {legal_moves} legal move{} and no winner",
                if *legal_moves == 1 { "" } else { "s" }
            ),
        }
    }
}

/// Judge the moves file `input` (its bytes, in UTF-8).
///
/// Line 1 (the title) is skipped unread, line 2 names the players and line
/// 3 must be blank. Each later line is blank (skipped) or a move: a label
/// and a square number. The game ends at the first win or the ninth legal
/// move; whatever follows is ignored unread. A leading byte order mark and
/// `\r\n` line endings are accepted.
///
/// # Errors
/// A [`RefereeError`] naming the first line that is wrong: a missing or
/// blank players line, a non-blank line 3, a move line that cannot be read,
/// a line that is not UTF-8, or the last line when the file ends before the
/// game does.
pub fn referee(input: &[u8]) -> Result<Transcript, RefereeError> {
    let input = input.strip_prefix(BOM).unwrap_or(input);
    let mut lines = numbered_lines(input);
    if lines.next().is_none() {
        return Err(RefereeError::new(1, Problem::Empty));
    }
    let Some((number, players)) = lines.next() else {
        return Err(RefereeError::new(2, Problem::NoPlayers));
    };
    let players = one_line(decode(number, players)?);
    if players.is_empty() {
        return Err(RefereeError::new(number, Problem::BlankPlayers));
    }
    let mut last_line = number;
    if let Some((number, line)) = lines.next() {
        let line = decode(number, line)?;
        if !line.trim().is_empty() {
            return Err(RefereeError::new(
                number,
                Problem::NotBlank(line.to_owned()),
            ));
        }
        last_line = number;
    }

    let mut referee = Referee::default();
    let mut entries = Vec::new();
    for (number, line) in lines {
        last_line = number;
        let line = decode(number, line)?;
        if line.trim().is_empty() {
            continue;
        }
        let Some(written) = WrittenMove::parse(line) else {
            return Err(RefereeError::new(
                number,
                Problem::Unreadable(line.to_owned()),
            ));
        };
        entries.push(referee.judge(&written));
        if let Some(outcome) = referee.outcome() {
            return Ok(Transcript {
                players,
                entries,
                outcome,
            });
        }
    }
    Err(RefereeError::new(
        last_line,
        Problem::Unfinished {
            legal_moves: referee.legal_moves,
        },
    ))
}

/// The whole report for the moves file `input`: the header of `options`
/// (as given: see [`Options::check`]), then the [`Transcript`].
///
/// # Errors
/// As [`referee`].
pub fn report(input: &[u8], options: &Options) -> Result<String, RefereeError> {
    let transcript = referee(input)?;
    Ok(format!(
        "Programmer: {}\n{}\n\n{transcript}",
        options.programmer, options.project
    ))
}

/// The lines of `input` numbered from 1, without their `\n` or `\r\n`.
fn numbered_lines(input: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let lines = input.split_inclusive(|&b| b == b'\n').map(|line| {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        line.strip_suffix(b"\r").unwrap_or(line)
    });
    (1..).zip(lines)
}

/// Line `number` as text. Lines are decoded one at a time so that the
/// lines the referee never reads (the title, anything after the game) may
/// hold anything.
fn decode(number: usize, line: &[u8]) -> Result<&str, RefereeError> {
    std::str::from_utf8(line).map_err(|_| RefereeError::new(number, Problem::NotUtf8))
}

/// `text` trimmed, with each run of whitespace inside made one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A move line as written, not yet judged.
#[derive(Clone, Copy, Debug)]
struct WrittenMove<'a> {
    label: &'a str,
    square: Integer<'a>,
}

impl<'a> WrittenMove<'a> {
    /// Read a non-blank line: exactly a label and an integer, separated by
    /// whitespace. `None` for anything else.
    fn parse(line: &'a str) -> Option<WrittenMove<'a>> {
        let mut tokens = line.split_whitespace();
        let (Some(label), Some(square), None) = (tokens.next(), tokens.next(), tokens.next())
        else {
            return None;
        };
        Some(WrittenMove {
            label,
            square: Integer::parse(square)?,
        })
    }
}

/// The game so far. There is no board until the first legal move, because
/// that move decides who went first.
#[derive(Debug, Default)]
struct Referee {
    game: Option<Game>,
    legal_moves: usize,
}

impl Referee {
    /// Play `written` if it is legal, and say what happened.
    fn judge(&mut self, written: &WrittenMove<'_>) -> Entry {
        match self.try_play(written) {
            Ok((player, cell, board)) => {
                self.legal_moves += 1;
                Entry::Move {
                    number: self.legal_moves,
                    player,
                    square: RULES.number_of(cell),
                    board,
                }
            }
            Err(reason) => Entry::Refused {
                label: written.label.to_owned(),
                square: written.square.to_string(),
                reason,
            },
        }
    }

    /// The checks in the seed's order. The label and square are checked
    /// here because [`Game::play_as`] looks at the turn before the square.
    fn try_play(
        &mut self,
        written: &WrittenMove<'_>,
    ) -> Result<(Player, Cell, Vec<Option<Player>>), Illegal> {
        // Exactly `X` or `O`: `Player::from_char` would also take `x` and `o`.
        let player = match written.label {
            "X" => Player::X,
            "O" => Player::O,
            _ => return Err(Illegal::Player),
        };
        let cell = RULES
            .cell_numbered(written.square.saturating_i64())
            .ok_or(Illegal::Square)?;
        let game = self
            .game
            .get_or_insert_with(|| Game::starting_with(RULES, player));
        match game.play_as(player, cell) {
            Ok(_) => Ok((player, cell, game.cells().to_vec())),
            // With two players taking turns, "not your turn" means "you made
            // the last legal move".
            Err(MoveError::NotYourTurn { .. }) => Err(Illegal::DoubleMove),
            Err(MoveError::Occupied { .. }) => Err(Illegal::MarkedSquare),
            Err(MoveError::OffBoard { .. }) => Err(Illegal::Square),
            Err(MoveError::GameOver) => unreachable!("refereeing stops when the game ends"),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.game.as_ref().and_then(Game::outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "Tic-Tac-Toe Game Data\nX: D Barnette O: D Allison\n\n";

    /// Referee `moves` under a standard header.
    fn judge(moves: &str) -> Result<Transcript, RefereeError> {
        referee(format!("{HEADER}{moves}").as_bytes())
    }

    /// The entries as the report's first lines show them.
    fn lines(transcript: &Transcript) -> Vec<String> {
        transcript
            .entries
            .iter()
            .map(|entry| match entry {
                Entry::Move {
                    number,
                    player,
                    square,
                    ..
                } => format!("Move {number}: {player} {square}"),
                Entry::Refused {
                    label,
                    square,
                    reason,
                } => format!("{label} {square} {reason}"),
            })
            .collect()
    }

    /// A quick X win on the top row.
    const X_WINS: &str = "X 1\nO 4\nX 2\nO 5\nX 3\n";

    #[test]
    fn the_seed_sample_is_a_cat_game() {
        let moves = "X\t6\nO\t9\nX\t7\nO\t4\nX\t1\nO\t3\nX\t5\nO\t2\nX\t8\n";
        let transcript = judge(moves).unwrap();
        assert_eq!(transcript.outcome, Outcome::Draw);
        assert_eq!(transcript.players, "X: D Barnette O: D Allison");
        let options = Options {
            programmer: "Dwight Barnette".into(),
            project: "CS 1044 Project 6 Spring 2002".into(),
        };
        let text = report(format!("{HEADER}{moves}").as_bytes(), &options).unwrap();
        assert_eq!(
            text,
            include_str!("../../../oxo-cli/tests/data/referee/barnette.report.txt")
        );
    }

    #[test]
    fn each_illegal_move_has_its_message() {
        let t = judge("X 1\nY 5\nO 0\nO 10\nX 6\nO 1\nO 2\nX 4\nO 3\nX 7\n").unwrap();
        assert_eq!(
            lines(&t)[..6],
            [
                "Move 1: X 1",
                "Y 5 illegal player",
                "O 0 illegal square",
                "O 10 illegal square",
                "X 6 double move",
                "O 1 marked square",
            ]
        );
        assert_eq!(t.outcome, Outcome::Win(Player::X));
    }

    #[test]
    fn only_the_first_fault_is_reported() {
        let t = judge(&format!("Z 0\nX 1\nX 0\nY 1\nX 1\n{X_WINS}")).unwrap();
        assert_eq!(
            lines(&t)[..5],
            [
                "Z 0 illegal player",
                "Move 1: X 1",
                "X 0 illegal square", // not a double move
                "Y 1 illegal player", // not a marked square
                "X 1 double move",    // not a marked square
            ]
        );
    }

    #[test]
    fn labels_are_exactly_x_or_o() {
        let t = judge(&format!("x 7\no 7\nXX 7\n0 7\n{X_WINS}")).unwrap();
        assert!(
            lines(&t)[..4]
                .iter()
                .all(|line| line.ends_with(" 7 illegal player")),
            "{:?}",
            lines(&t)
        );
    }

    #[test]
    fn squares_echo_in_canonical_spelling() {
        let huge = "123456789012345678901234567890";
        let t = judge(&format!(
            "X 05\nO +9\nX -0\nX -4\nX {huge}\nX -{huge}\nO 005\nX 1\nO 7\nX 2\nO 8\n"
        ))
        .unwrap();
        assert_eq!(
            lines(&t),
            [
                "Move 1: X 5",
                "Move 2: O 9",
                "X 0 illegal square",
                "X -4 illegal square",
                &format!("X {huge} illegal square"),
                &format!("X -{huge} illegal square"),
                "O 5 double move", // before "marked square"
                "Move 3: X 1",
                "Move 4: O 7",
                "Move 5: X 2",
                "Move 6: O 8",
            ]
        );
        assert_eq!(t.outcome, Outcome::Win(Player::O));
    }

    #[test]
    fn o_may_move_first() {
        let t = judge("O 5\nO 1\nX 1\nO 9\nX 2\nO 3\nX 7\nO 4\nX 6\nO 8\n").unwrap();
        assert_eq!(
            lines(&t)[..3],
            ["Move 1: O 5", "O 1 double move", "Move 2: X 1"]
        );
        assert_eq!(t.outcome, Outcome::Draw);
    }

    #[test]
    fn the_first_legal_move_decides_who_starts() {
        // Refused moves before it decide nothing.
        let t = judge("X 0\nY 3\nO 5\nX 1\nO 3\nX 2\nO 7\n").unwrap();
        assert_eq!(
            lines(&t)[..4],
            [
                "X 0 illegal square",
                "Y 3 illegal player",
                "Move 1: O 5",
                "Move 2: X 1",
            ]
        );
        assert_eq!(t.outcome, Outcome::Win(Player::O));
    }

    #[test]
    fn o_can_win() {
        let t = judge("O 5\nX 1\nO 3\nX 2\nO 7\n").unwrap();
        assert_eq!(t.outcome, Outcome::Win(Player::O));
        assert!(
            report(
                format!("{HEADER}O 5\nX 1\nO 3\nX 2\nO 7\n").as_bytes(),
                &Options::default()
            )
            .unwrap()
            .ends_with("Move 5: O 7\nX X O\n- O -\nO - -\n\nWinner: O\n")
        );
    }

    #[test]
    fn nine_legal_moves_without_a_win_is_cat() {
        let t = judge("X 6\nO 9\nX 7\nO 4\nX 1\nO 3\nX 5\nO 2\nX 8\n").unwrap();
        assert_eq!(t.outcome, Outcome::Draw);
        assert_eq!(t.entries.len(), 9);
    }

    #[test]
    fn the_game_ends_at_the_first_win_and_the_rest_is_ignored() {
        let mut input = format!("{HEADER}{X_WINS}O 9\nnot a move at all\n").into_bytes();
        input.extend_from_slice(b"\xff\xfe garbage\n");
        let t = referee(&input).unwrap();
        assert_eq!(t.outcome, Outcome::Win(Player::X));
        assert_eq!(t.entries.len(), 5);
    }

    #[test]
    fn blank_lines_are_skipped() {
        let t = judge("\n \t \nX 1\n\nO 4\n\t\nX 2\nO 5\n   \nX 3\n").unwrap();
        assert_eq!(t.entries.len(), 5);
    }

    #[test]
    fn crlf_bom_and_spacing_are_accepted() {
        let plain = format!("{HEADER}X\t1\nO\t4\nX\t2\nO\t5\nX\t3\n");
        let mut windows = b"\xEF\xBB\xBF".to_vec();
        windows.extend_from_slice(
            "Title\r\n  X:  D Barnette\tO: D   Allison \r\n \r\n X 1 \r\nO  4\r\nX\t \t2\r\nO 5\r\nX 3"
                .as_bytes(),
        );
        assert_eq!(referee(&windows), referee(plain.as_bytes()));
    }

    #[test]
    fn the_title_is_not_read() {
        let mut input = b"Partie de morpion \xe9t\xe9\n".to_vec();
        input.extend_from_slice(format!("X: A O: B\n\n{X_WINS}").as_bytes());
        assert!(referee(&input).is_ok());
    }

    #[test]
    fn header_problems_are_reported_with_their_line() {
        let err = |input: &[u8]| referee(input).unwrap_err();
        assert_eq!(err(b""), RefereeError::new(1, Problem::Empty));
        assert_eq!(err(b"\xEF\xBB\xBF"), RefereeError::new(1, Problem::Empty));
        assert_eq!(err(b"Title\n"), RefereeError::new(2, Problem::NoPlayers));
        assert_eq!(
            err(b"Title\n \t\n\nX 1\n"),
            RefereeError::new(2, Problem::BlankPlayers)
        );
        assert_eq!(
            err(b"Title\nX: A O: B\nX 1\n"),
            RefereeError::new(3, Problem::NotBlank("X 1".into()))
        );
        assert_eq!(
            err(b"Title\nX: A O: B\n"),
            RefereeError::new(2, Problem::Unfinished { legal_moves: 0 })
        );
    }

    #[test]
    fn unreadable_lines_are_errors() {
        for bad in ["X", "X 5 6", "X five", "X 5.0", "X5", "X 0x5", "5 X"] {
            let err = judge(&format!("O 1\n{bad}\n")).unwrap_err();
            assert_eq!(
                err,
                RefereeError::new(5, Problem::Unreadable(bad.into())),
                "{bad:?}"
            );
        }
        let err = judge("X 1\nX five\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 5: cannot read the move \"X five\": \
             expected a player label and a square number, such as \"X 5\""
        );
    }

    #[test]
    fn non_utf8_lines_are_errors() {
        let mut input = format!("{HEADER}X 1\n").into_bytes();
        input.extend_from_slice(b"O \xff4\n");
        assert_eq!(referee(&input), Err(RefereeError::new(5, Problem::NotUtf8)));
        assert_eq!(
            referee(b"Title\nX: \xc3 O: B\n\nX 1\n"),
            Err(RefereeError::new(2, Problem::NotUtf8))
        );
    }

    #[test]
    fn a_short_file_names_its_last_line() {
        let err = judge("X 1\nO 2\n\n").unwrap_err();
        assert_eq!(
            err,
            RefereeError::new(6, Problem::Unfinished { legal_moves: 2 })
        );
        assert_eq!(
            err.to_string(),
            "line 6: the file ends before the game does: 2 legal moves and no winner"
        );
    }

    #[test]
    fn the_header_comes_from_options() {
        let options = Options {
            programmer: "Ada".into(),
            project: "Project 6".into(),
        };
        let text = report(format!("{HEADER}{X_WINS}").as_bytes(), &options).unwrap();
        assert!(text.starts_with(
            "Programmer: Ada\nProject 6\n\nTic-Tac-Toe game: X: D Barnette O: D Allison\n\nMove 1: X 1\n"
        ));
    }
}
