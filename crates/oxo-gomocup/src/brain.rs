//! The brain side: oxo's players as a Gomocup engine (a "brain"), speaking the
//! Piskvork protocol on standard input and output, so gomoku managers and
//! GUIs can run oxo like any other engine.
//!
//! The manager sends one command a line; the brain answers the ones that
//! want an answer:
//!
//! | command | answer |
//! |---|---|
//! | `START N` | `OK`: an N×N board, five in a row (`ERROR` below 5 a side) |
//! | `RECTSTART W,H` | `OK`: W columns, H rows |
//! | `RESTART` | `OK`: the same board, empty |
//! | `BEGIN` | the brain's first move on the empty board |
//! | `TURN X,Y` | the opponent played at X,Y; the brain's move |
//! | `BOARD`, then `X,Y,F` lines, then `DONE` | a whole position (F: 1 the brain's stone, 2 the opponent's); the brain's move, or one `ERROR` with the first problem (the board is then left as it was) |
//! | `SWAP2BOARD`, lines, `DONE` | `ERROR swap2 openings are not supported`, once, at `DONE` |
//! | `TAKEBACK X,Y` | `OK`: the last stone, at X,Y, is taken back |
//! | `INFO KEY VALUE` | nothing: `timeout_turn`, `timeout_match`, `time_left` (ms; a negative time counts as 0), `rule` (see below), and `max_memory`, `game_type`, `evaluate`, `folder`, read and not needed; a value that is not a number keeps the setting as it was |
//! | `ABOUT` | `name="oxo", version="…", author="…", country="…"` |
//! | `END` | nothing: the brain exits |
//!
//! Anything else is answered `UNKNOWN …`; a command that cannot be obeyed
//! (a stone on a taken cell or off the board, a malformed line, a move
//! asked for before `START`) `ERROR …`, and the brain carries on. Every
//! command that wants an answer gets exactly one line: the lines of a
//! `BOARD` (or `SWAP2BOARD`) are answered together at `DONE`, with the
//! first problem among them if there is one (blank lines are skipped, as
//! everywhere). `END` ends the brain wherever it comes.
//!
//! Rules (`INFO rule`, bits): 0 is freestyle (five or more in a row wins)
//! and 1 exactly five (an overline wins nothing). The players are built
//! for freestyle, so under exactly five the brain takes a move that makes
//! exactly five when it has one and blocks the opponent's, and otherwise
//! asks its player as in freestyle (its search counts an overline as a
//! line), with the cells where it would make only an overline shown to
//! the player as the opponent's when the stone counts allow. While any
//! other bit is set (2 continuous, 4 renju, 8 caro), which oxo cannot
//! play, every move asked for (`BEGIN`, `TURN`, `BOARD`) is answered
//! `ERROR rule N (…) is not supported: …` and no stone is kept.
//!
//! Coordinates are the protocol's: X is the column and Y the row, both
//! from 0; oxo's own cells are (row, column), so `TURN 3,7` is oxo's row 7,
//! column 3.
//!
//! Time: each move gets `timeout_turn` (5 s until told), and at most a
//! twelfth of `time_left` (none at all when it is 0 or less) once one is
//! given, unless `timeout_match 0` said the match has no limit (the
//! protocol has a manager send `time_left` whenever it has), less a margin of
//! a tenth and 30 ms for the manager's own overhead; the strategy is given
//! that as a [`Deadline`], which `alphabeta` searches up to (the other
//! strategies answer at once). The clock is passed in, so tests need no
//! real time.
//!
//! Pondering ([`Brain::pondering`], `oxo brain --ponder`): once its move is
//! out, the brain guesses the opponent's reply (a search given a quarter
//! of a move's time) and searches its answer to that guess on a second
//! thread while the opponent thinks, for up to ten moves' time. When the
//! `TURN` is the guess, that search is given the move's usual time from
//! then and goes on deeper than a fresh one could; any other command but
//! `ABOUT` and `INFO` (save `INFO rule`) calls it off first. A move never takes longer than
//! without pondering. Only players that search to their deadline
//! ([`Strategy::searches_to_deadline`]: `alphabeta`, and `learned` where it
//! plays inside that search) ponder; the others
//! answer in their own time and would gain nothing. It is off by default: Gomocup's tournaments forbid
//! thinking on the opponent's time (they suspend the engine between its
//! turns), while a person playing the engine in a GUI may well want it.

use std::collections::HashSet;
use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use oxo_ai::{Clock, Deadline, Strategy};
use oxo_core::{Cell, Coords, Direction, Game, Integer, Player, Rules};
use oxo_text::input::{LineRead, MAX_LINE, read_line_bounded, skip_line};

use crate::{read_point, write_point};

/// Builds the strategy that plays each board.
pub type Build = dyn FnMut(Rules) -> Result<Box<dyn Strategy>, String> + Send;

/// Gomocup's win length.
pub const K: u32 = 5;

/// The time a move gets until the manager says otherwise.
pub const DEFAULT_TURN: Duration = Duration::from_secs(5);

/// Pondering lasts at most this many moves' time.
pub const PONDER_TURNS: u32 = 10;

/// Whose a stone is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Mine,
    Theirs,
}

/// Stones and whose they are.
type Stones = Vec<(Cell, Side)>;

/// What the manager told with `INFO`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Info {
    /// Milliseconds a move may take (0: as fast as possible).
    timeout_turn: Option<u64>,
    /// Milliseconds the whole match may take (0: no limit).
    timeout_match: Option<u64>,
    /// Milliseconds left in the match.
    time_left: Option<u64>,
    /// The rule bits: 1 exactly five; 2 continuous, 4 renju, 8 caro (not
    /// supported: no move is given while one is set).
    rule: u64,
}

/// A multi-line command (`BOARD`, `SWAP2BOARD`) being read up to `DONE`,
/// which alone is answered: a manager takes the one line after `DONE` as
/// the command's answer.
struct Reading {
    /// The stones listed so far...
    stones: Stones,
    /// ...and their cells, to find a cell listed twice at once on a board
    /// of a million cells.
    taken: HashSet<Cell>,
    /// The first thing wrong with the command, answered at `DONE` in place
    /// of a move; the lines after it are read and not looked at.
    problem: Option<String>,
}

/// The game being played.
struct Board {
    /// The board's rows, columns and five in a row (freestyle).
    rules: Rules,
    /// Every stone, in the order played.
    stones: Vec<(Cell, Side)>,
    /// The player; away on the pondering thread while it thinks.
    strategy: Option<Box<dyn Strategy>>,
}

/// A search on the opponent's time (see the module's documentation).
struct Ponder {
    /// The opponent's reply guessed, once the guess is made.
    guess: Arc<OnceLock<Cell>>,
    /// Ends the guessing search.
    guessing: Deadline,
    /// Ends the search for the answer to the guess: reset on a hit.
    answering: Deadline,
    /// Gives the player back, with its answer to the guess.
    thread: JoinHandle<(Box<dyn Strategy>, Option<Cell>)>,
}

/// How pondering went: the guesses made and those that came true.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pondered {
    /// Searches started on the opponent's time.
    pub started: u64,
    /// The opponent's moves that came while such a search ran (a search
    /// still running at the end met none).
    pub met: u64,
    /// Guesses that were the opponent's move.
    pub hits: u64,
}

/// What a line asks of the program.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Go on reading.
    Continue,
    /// `END`: stop.
    End,
}

/// Why a position gets no move: the last stone ended the game.
const GAME_OVER: &str = "the game is over";

/// The protocol's state: the board, what `INFO` said, a `BOARD` being
/// read.
pub struct Brain {
    build: Box<Build>,
    clock: Clock,
    board: Option<Board>,
    info: Info,
    /// A `BOARD` or `SWAP2BOARD` until its `DONE`.
    reading: Option<Reading>,
    about: String,
    /// Whether to think on the opponent's time.
    ponder: bool,
    /// The search on the opponent's time, while it runs.
    pondering: Option<Ponder>,
    pondered: Pondered,
    /// Said to the manager as a `MESSAGE` line just before the first
    /// answer, then dropped.
    message: Option<String>,
}

impl std::fmt::Debug for Brain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Brain")
            .field("info", &self.info)
            .field("stones", &self.board.as_ref().map(|b| b.stones.len()))
            .field("pondered", &self.pondered)
            .finish_non_exhaustive()
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        self.settle();
    }
}

impl Brain {
    /// A brain whose players `build` makes for each board, timed by
    /// `clock`; `strategy` names them in `ABOUT`.
    pub fn new(build: Box<Build>, clock: Clock, strategy: &str) -> Brain {
        Brain {
            build,
            clock,
            board: None,
            info: Info::default(),
            reading: None,
            about: format!(
                "name=\"oxo\", version=\"{}\", author=\"the oxo developers\", country=\"-\", www=\"-\", style=\"{strategy}\"",
                env!("CARGO_PKG_VERSION")
            ),
            ponder: false,
            pondering: None,
            pondered: Pondered::default(),
            message: None,
        }
    }

    /// The same brain, saying `message` to the manager (which shows it to
    /// its user) as a `MESSAGE` line just before its first answer, where
    /// the protocol has a brain's messages go. Not on standard error: some
    /// managers (Piskvork) read a brain's standard error as its output,
    /// and would take the line for an answer. A line break in `message`
    /// (`\n` or `\r`, as managers read lines) ends it; an empty one is
    /// not said.
    #[must_use]
    pub fn saying(mut self, message: &str) -> Brain {
        let line = message.split(['\r', '\n']).next().unwrap_or_default();
        self.message = (!line.is_empty()).then(|| line.to_owned());
        self
    }

    /// The same brain, thinking on the opponent's time if `ponder`.
    #[must_use]
    pub fn pondering(mut self, ponder: bool) -> Brain {
        self.ponder = ponder;
        self
    }

    /// How pondering has gone so far.
    #[must_use]
    pub const fn pondered(&self) -> Pondered {
        self.pondered
    }

    /// A line over [`MAX_LINE`] bytes came (and was skipped), starting
    /// with `start`: refused at once, or inside a `BOARD` kept as its
    /// problem, for the one answer at `DONE`. An `INFO` line is dropped
    /// unanswered, as every `INFO` is (an answer would be taken for the
    /// next command's): its value is none the brain needs.
    ///
    /// # Errors
    /// Writing failed.
    pub fn too_long(&mut self, start: &[u8], out: &mut dyn Write) -> io::Result<()> {
        let problem = format!("a line of more than {MAX_LINE} bytes");
        let info = start.trim_ascii_start().get(..5).is_some_and(|word| {
            word[..4].eq_ignore_ascii_case(b"INFO") && word[4].is_ascii_whitespace()
        });
        match self.reading.as_mut() {
            Some(reading) => {
                reading.problem.get_or_insert(problem);
                Ok(())
            }
            None if info => Ok(()),
            None => self.answer(&format!("ERROR {problem}"), out),
        }
    }

    /// Write `answer`, with the message waiting to be said before it, if
    /// any.
    fn answer(&mut self, answer: &str, out: &mut dyn Write) -> io::Result<()> {
        if let Some(message) = self.message.take() {
            writeln!(out, "MESSAGE {message}")?;
        }
        writeln!(out, "{answer}")?;
        out.flush()
    }

    /// Obey one line, writing any answer to `out`.
    ///
    /// # Errors
    /// Writing failed.
    pub fn line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<Step> {
        let line = line.trim();
        if self.reading.is_some() {
            // END ends the brain wherever it comes (the BOARD is dropped).
            if line.eq_ignore_ascii_case("END") {
                self.reading = None;
                return Ok(Step::End);
            }
            return self.board_line(line, out).map(|()| Step::Continue);
        }
        if line.is_empty() {
            return Ok(Step::Continue);
        }
        // A tab parts the words as a space does.
        let (command, rest) = line
            .split_once(|c: char| c.is_ascii_whitespace())
            .unwrap_or((line, ""));
        let rest = rest.trim();
        let upper = command.to_ascii_uppercase();
        // A search on the opponent's time is called off by anything that
        // changes the game but the opponent's move (a change of rules
        // included: it searched under the old ones).
        let new_rule = upper == "INFO"
            && rest
                .split_once(|c: char| c.is_ascii_whitespace())
                .is_some_and(|(key, _)| key.eq_ignore_ascii_case("rule"));
        if new_rule || !matches!(upper.as_str(), "TURN" | "INFO" | "ABOUT") {
            self.settle();
        }
        // A START ends the game before whatever its answer, so that a
        // manager that misses an ERROR gets "no board yet" rather than
        // moves on the old board.
        if matches!(upper.as_str(), "START" | "RECTSTART") {
            self.board = None;
        }
        let answer = match upper.as_str() {
            "START" => Some(match rest.parse().ok() {
                Some(n) => self.start((n, n)),
                None => "ERROR START wants a size".to_owned(),
            }),
            "RECTSTART" => Some(match size_pair(rest) {
                Some(size) => self.start(size),
                None => "ERROR RECTSTART wants WIDTH,HEIGHT".to_owned(),
            }),
            "RESTART" => Some(match &mut self.board {
                Some(board) => {
                    board.stones.clear();
                    "OK".to_owned()
                }
                None => "ERROR no board yet: START first".to_owned(),
            }),
            "BEGIN" => {
                let empty = self.board.as_ref().map(|b| b.stones.is_empty());
                Some(match (empty, self.unsupported_rule()) {
                    (None, _) => "ERROR no board yet: START first".to_owned(),
                    (Some(_), Some(refusal)) => refusal,
                    (Some(true), None) => self.reply(),
                    (Some(false), None) => {
                        "ERROR BEGIN is for an empty board: use TURN or BOARD".to_owned()
                    }
                })
            }
            "TURN" => Some(match read_point(rest) {
                Some(point) => self.turn(point, rest),
                None => format!("ERROR TURN wants X,Y, not {rest:?}"),
            }),
            // Both are read up to DONE and answered there, once.
            "BOARD" => {
                self.reading = Some(Reading {
                    stones: Vec::new(),
                    taken: HashSet::new(),
                    problem: self
                        .board
                        .is_none()
                        .then(|| "no board yet: START first".to_owned()),
                });
                None
            }
            "SWAP2BOARD" => {
                self.reading = Some(Reading {
                    stones: Vec::new(),
                    taken: HashSet::new(),
                    problem: Some("swap2 openings are not supported".to_owned()),
                });
                None
            }
            "TAKEBACK" => Some(match read_point(rest) {
                Some(point) => self.take_back(point),
                None => format!("ERROR TAKEBACK wants X,Y, not {rest:?}"),
            }),
            "INFO" => {
                self.info(rest);
                None
            }
            "ABOUT" => Some(self.about.clone()),
            "END" => return Ok(Step::End),
            // Quoted as a log shows a line: control characters and the
            // marks that reorder text escaped, cut to 60 characters.
            _ => Some(format!(
                "UNKNOWN {}",
                oxo_text::input::quoted(command.as_bytes())
            )),
        };
        if let Some(answer) = answer {
            self.answer(&answer, out)?;
        }
        Ok(Step::Continue)
    }

    /// `START`/`RECTSTART`: a new game on `cols` × `rows`.
    fn start(&mut self, (cols, rows): (u64, u64)) -> String {
        let fits = |n: u64| u32::try_from(n).ok();
        let rules = match (fits(rows), fits(cols)) {
            (Some(rows), Some(cols)) => Rules::new(rows, cols, K),
            _ => return format!("ERROR unsupported size {cols}x{rows}"),
        };
        let rules = match rules {
            Ok(rules) if rules.rows() >= K && rules.cols() >= K => rules,
            _ => {
                return format!(
                    "ERROR unsupported size {cols}x{rows}: from {K} to {} a side",
                    oxo_core::MAX_SIDE
                );
            }
        };
        match (self.build)(rules) {
            Ok(strategy) => {
                self.board = Some(Board {
                    rules,
                    stones: Vec::new(),
                    strategy: Some(strategy),
                });
                "OK".to_owned()
            }
            Err(e) => format!("ERROR {e}"),
        }
    }

    /// `TURN`: the opponent's stone at `point`, `written` so; the brain's
    /// move.
    fn turn(&mut self, point: Coords, written: &str) -> String {
        let refusal = self.unsupported_rule();
        let Some(board) = &self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        if board
            .stones
            .last()
            .is_some_and(|&(_, side)| side == Side::Theirs)
        {
            // Their last stone may have ended the game (it is kept).
            return match self.position() {
                Err(e) if e == GAME_OVER => format!("ERROR {GAME_OVER}"),
                _ => "ERROR it is my turn, not yours".to_owned(),
            };
        }
        let Some(board) = &mut self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        if let Some(refusal) = refusal {
            return refusal;
        }
        let stones = &board.stones;
        let taken = |cell| stones.iter().any(|&(c, _)| c == cell);
        let cell = match place(board.rules, point, written, taken) {
            Ok(cell) => cell,
            Err(e) => return format!("ERROR {e}"),
        };
        board.stones.push((cell, Side::Theirs));
        let answer = match self.harvest(cell) {
            Some(pondered) => match self.position() {
                Ok(game) => self.play_mine(&game, Some(pondered)),
                Err(e) => format!("ERROR {e}"),
            },
            None => self.reply(),
        };
        // A stone that ends the game is kept, as the manager's board has it
        // (a TAKEBACK of it goes on with the game); one the game did not
        // take (it was over before) is not.
        if answer.starts_with("ERROR")
            && answer != format!("ERROR {GAME_OVER}")
            && let Some(board) = &mut self.board
        {
            board.stones.pop();
        }
        answer
    }

    fn take_back(&mut self, point: Coords) -> String {
        let Some(board) = &mut self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        match board.stones.last() {
            Some(&(cell, _)) if Coords::from(cell) == point => {
                board.stones.pop();
                "OK".to_owned()
            }
            Some(_) => format!("ERROR {},{} is not the last stone", point.col, point.row),
            None => "ERROR the board is empty".to_owned(),
        }
    }

    /// `INFO KEY VALUE`: a value that is not a number keeps the setting
    /// it would have changed (it is no reason to forget what was said); a
    /// negative time counts as 0.
    fn info(&mut self, rest: &str) {
        let (key, value) = rest
            .split_once(|c: char| c.is_ascii_whitespace())
            .unwrap_or((rest, ""));
        let value = value.trim();
        let time = Integer::parse(value).map(|n| n.saturating_i64().max(0).unsigned_abs());
        let setting = match key.to_ascii_lowercase().as_str() {
            "timeout_turn" => &mut self.info.timeout_turn,
            "timeout_match" => &mut self.info.timeout_match,
            "time_left" => &mut self.info.time_left,
            "rule" => {
                if let Ok(rule) = value.parse() {
                    self.info.rule = rule;
                }
                return;
            }
            // Read and not needed: tens of MB on the boards tournaments use
            // (docs/manual/brain.md).
            _ => return,
        };
        if time.is_some() {
            *setting = time;
        }
    }

    /// `ERROR …` while `INFO rule` has a bit set that oxo cannot honour
    /// (any but 1, exactly five): playing such a game by the freestyle
    /// rules would be playing another game without a word.
    fn unsupported_rule(&self) -> Option<String> {
        let rule = self.info.rule;
        if rule & !1 == 0 {
            return None;
        }
        let names: Vec<&str> = [(2, "continuous"), (4, "renju"), (8, "caro")]
            .into_iter()
            .filter(|&(bit, _)| rule & bit != 0)
            .map(|(_, name)| name)
            .collect();
        let named = if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        };
        Some(format!(
            "ERROR rule {rule}{named} is not supported: oxo plays freestyle (rule 0) and \
             exactly five (rule 1)"
        ))
    }

    /// One line inside `BOARD` (or `SWAP2BOARD`): a stone, or `DONE`,
    /// which alone is answered: the brain's move, or `ERROR` with the first
    /// problem and the board left as it was.
    fn board_line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<()> {
        if line.eq_ignore_ascii_case("DONE") {
            let reading = self.reading.take().unwrap_or(Reading {
                stones: Vec::new(),
                taken: HashSet::new(),
                problem: None,
            });
            // No board comes first (its problem is set at BOARD), then a
            // rule oxo cannot play, then the first bad line.
            let refusal = self.board.as_ref().and_then(|_| self.unsupported_rule());
            let answer = match (refusal, reading.problem) {
                (Some(refusal), _) => refusal,
                (None, Some(problem)) => format!("ERROR {problem}"),
                (None, None) => self.take_position(reading.stones),
            };
            return self.answer(&answer, out);
        }
        // Blank lines are skipped, as outside BOARD; after a problem the
        // rest is only read, so that the first problem is the one answered.
        let rules = self.board.as_ref().map(|b| b.rules);
        let (Some(reading), Some(rules)) = (self.reading.as_mut(), rules) else {
            return Ok(());
        };
        if line.is_empty() || reading.problem.is_some() {
            return Ok(());
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let (written, parsed) = match fields[..] {
            [x, y, field] => {
                let written = [x, y].join(",");
                let parsed = read_point(&written).zip(field.parse::<u8>().ok());
                (written, parsed)
            }
            _ => (String::new(), None),
        };
        let problem = match parsed {
            Some((point, field @ (1 | 2))) => {
                match place(rules, point, &written, |cell| reading.taken.contains(&cell)) {
                    Ok(cell) => {
                        let side = if field == 1 { Side::Mine } else { Side::Theirs };
                        reading.stones.push((cell, side));
                        reading.taken.insert(cell);
                        None
                    }
                    Err(e) => Some(e),
                }
            }
            Some((_, 3)) => Some("continuous games (field 3) are not supported".to_owned()),
            _ => Some(format!("a BOARD line is X,Y,FIELD, not {line:?}")),
        };
        reading.problem = problem;
        Ok(())
    }

    /// The position of a `BOARD` read without a problem taken as the game,
    /// and the brain's move in it; a position refused (stone counts, a
    /// line already made) leaves the board as it was.
    fn take_position(&mut self, stones: Stones) -> String {
        let before = self.board.as_ref().map(|b| b.stones.clone());
        match self
            .set_position(stones)
            .and_then(|()| self.position().map(drop))
        {
            Ok(()) => self.reply(),
            Err(e) => {
                if let (Some(board), Some(before)) = (self.board.as_mut(), before) {
                    board.stones = before;
                }
                format!("ERROR {e}")
            }
        }
    }

    /// The stones of a `BOARD`, in turn order (whoever has more stones
    /// began; with as many each, the brain did, since it is to move).
    fn set_position(&mut self, stones: Vec<(Cell, Side)>) -> Result<(), String> {
        let board = self.board.as_mut().ok_or("no board yet: START first")?;
        let side = |wanted: Side| -> Vec<Cell> {
            stones
                .iter()
                .filter(|s| s.1 == wanted)
                .map(|s| s.0)
                .collect()
        };
        let (mine, theirs) = (side(Side::Mine), side(Side::Theirs));
        let ordered = in_turn(&mine, &theirs)
            .ok_or_else(|| {
                format!(
                    "{} of mine and {} of yours: it cannot be my turn",
                    in_stones(mine.len()),
                    theirs.len()
                )
            })?
            .into_iter()
            .map(|(cell, is_mine)| (cell, if is_mine { Side::Mine } else { Side::Theirs }))
            .collect();
        board.stones = ordered;
        Ok(())
    }

    /// The rules the next move is played under (exactly five, if `INFO
    /// rule` says so).
    fn rules(&self, board: &Board) -> Rules {
        if self.info.rule & 1 == 1 {
            board.rules.exactly()
        } else {
            board.rules
        }
    }

    /// Time for the next move (see the module's documentation).
    fn move_time(&self) -> Duration {
        let turn = match self.info.timeout_turn {
            Some(0) => 0,
            Some(ms) => ms,
            None => u64::try_from(DEFAULT_TURN.as_millis()).unwrap_or(u64::MAX),
        };
        let mut ms = turn;
        // The protocol has a manager send `time_left` whenever the match
        // is timed, and lets a brain rely on it alone: it counts unless
        // the match was said to have no limit (`timeout_match 0`).
        if self.info.timeout_match != Some(0)
            && let Some(left) = self.info.time_left
        {
            ms = ms.min(left / 12);
        }
        Duration::from_millis((ms - ms / 10).saturating_sub(30))
    }

    /// The game the stones make, with the brain to move.
    fn position(&self) -> Result<Game, String> {
        let board = self.board.as_ref().ok_or("no board yet: START first")?;
        let mut game = Game::new(self.rules(board));
        let mine = match board.stones.first() {
            Some(&(_, Side::Theirs)) => Player::O,
            _ => Player::X,
        };
        for &(cell, side) in &board.stones {
            let player = if side == Side::Mine {
                mine
            } else {
                mine.other()
            };
            game.play_as(player, cell)
                .map_err(|e| format!("the position cannot be played: {e}"))?;
        }
        if game.is_over() {
            return Err(GAME_OVER.to_owned());
        }
        Ok(game)
    }

    /// The brain's move, played: `X,Y`, or `ERROR …`.
    fn reply(&mut self) -> String {
        let game = match self.position() {
            Ok(game) => game,
            Err(e) => return format!("ERROR {e}"),
        };
        let deadline = Deadline::after(self.move_time(), self.clock.clone());
        let Some(board) = self.board.as_mut() else {
            return "ERROR no board yet: START first".to_owned();
        };
        let freestyle = board.rules;
        let Some(strategy) = board.strategy.as_mut() else {
            return "ERROR the player was lost to a crash in its search".to_owned();
        };
        strategy.set_deadline(Some(deadline));
        let chosen = choose(strategy.as_mut(), &game, freestyle);
        self.play_mine(&game, chosen)
    }

    /// Play `chosen` in `game` as the brain's move (then ponder, if asked
    /// to): `X,Y`, or `ERROR …` for no move or one that is not free.
    fn play_mine(&mut self, game: &Game, chosen: Option<Cell>) -> String {
        let Some(board) = &mut self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        let name = board
            .strategy
            .as_ref()
            .map_or("the player", |s| s.name())
            .to_owned();
        let Some(cell) = chosen else {
            return format!("ERROR {name} found no move");
        };
        let mut after = game.clone();
        if after.play(cell).is_err() {
            return format!("ERROR {name} chose {cell}, which is not free");
        }
        board.stones.push((cell, Side::Mine));
        self.ponder(after);
        write_point(cell)
    }

    /// Start thinking on the opponent's time in `game`, the position after
    /// the brain's move, if asked to and the game goes on.
    fn ponder(&mut self, mut game: Game) {
        let time = self.move_time();
        if !self.ponder || game.is_over() || time.is_zero() {
            return;
        }
        let Some(board) = &mut self.board else { return };
        // Only a player that stops at its deadline gains, and can be
        // called off in time when the guess is wrong.
        if !board
            .strategy
            .as_ref()
            .is_some_and(|s| s.searches_to_deadline())
        {
            return;
        }
        let Some(mut strategy) = board.strategy.take() else {
            return;
        };
        let freestyle = board.rules;
        let guessing = Deadline::after(time / 4, self.clock.clone());
        let answering = Deadline::after(time * PONDER_TURNS, self.clock.clone());
        let guess = Arc::new(OnceLock::new());
        let (until_guessed, until_answered, guessed) =
            (guessing.clone(), answering.clone(), Arc::clone(&guess));
        let search = move || {
            strategy.set_deadline(Some(until_guessed));
            let Some(theirs) = choose(strategy.as_mut(), &game, freestyle) else {
                return (strategy, None);
            };
            if game.play(theirs).is_err() || game.is_over() {
                return (strategy, None);
            }
            guessed.get_or_init(|| theirs);
            strategy.set_deadline(Some(until_answered));
            let answer = choose(strategy.as_mut(), &game, freestyle);
            (strategy, answer)
        };
        // Should the thread not start, the search (and the player with it)
        // is dropped: build a new player.
        match std::thread::Builder::new()
            .name("ponder".to_owned())
            .spawn(search)
        {
            Ok(thread) => {
                self.pondered.started += 1;
                self.pondering = Some(Ponder {
                    guess,
                    guessing,
                    answering,
                    thread,
                });
            }
            Err(_) => board.strategy = (self.build)(board.rules).ok(),
        }
    }

    /// The pondered answer if the opponent's move, `theirs`, is the one
    /// guessed (its search given a move's time from now); otherwise the
    /// search is called off and there is none.
    fn harvest(&mut self, theirs: Cell) -> Option<Cell> {
        let ponder = self.pondering.take()?;
        self.pondered.met += 1;
        let hit = ponder.guess.get() == Some(&theirs);
        if hit {
            self.pondered.hits += 1;
            ponder.answering.reset(self.move_time());
        } else {
            ponder.guessing.stop();
            ponder.answering.stop();
        }
        let answer = self.join(ponder);
        answer.filter(|_| hit)
    }

    /// Call off any search on the opponent's time and take the player
    /// back.
    fn settle(&mut self) {
        if let Some(ponder) = self.pondering.take() {
            ponder.guessing.stop();
            ponder.answering.stop();
            self.join(ponder);
        }
    }

    /// Wait for the pondering thread: the player back on the board, and
    /// its answer to the guess. A player whose search panicked is built
    /// anew.
    fn join(&mut self, ponder: Ponder) -> Option<Cell> {
        let (strategy, answer) = match ponder.thread.join() {
            Ok((strategy, answer)) => (Some(strategy), answer),
            Err(_) => (None, None),
        };
        let board = self.board.as_mut()?;
        board.strategy = strategy.or_else(|| (self.build)(board.rules).ok());
        answer
    }
}

/// One of oxo's players, built for a board's freestyle rules, playing it
/// where only exactly k in a row wins, as the brain plays under `INFO rule
/// 1` (a move that makes exactly k when there is one, else a block of
/// the opponent's, else the freestyle move with the cells that would make
/// only an overline set aside): for `oxo arena --exact`.
pub struct ExactlyK {
    player: Box<dyn Strategy>,
    freestyle: Rules,
}

impl ExactlyK {
    /// `player`, built for `freestyle` (the board without the exactly-k
    /// rule).
    #[must_use]
    pub fn new(player: Box<dyn Strategy>, freestyle: Rules) -> ExactlyK {
        ExactlyK { player, freestyle }
    }
}

impl std::fmt::Debug for ExactlyK {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExactlyK")
            .field("player", &self.player.name())
            .field("freestyle", &self.freestyle)
            .finish()
    }
}

impl Strategy for ExactlyK {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        choose(self.player.as_mut(), game, self.freestyle)
    }

    fn name(&self) -> &str {
        self.player.name()
    }

    fn set_deadline(&mut self, deadline: Option<Deadline>) {
        self.player.set_deadline(deadline);
    }

    fn searches_to_deadline(&self) -> bool {
        self.player.searches_to_deadline()
    }

    fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.player.set_stop(stop);
    }

    fn failure(&mut self) -> Option<String> {
        self.player.failure()
    }

    fn start_from(&mut self, moves: &[Cell]) {
        self.player.start_from(moves);
    }
}

/// The move of `strategy`, a player built for the `freestyle` rules, in
/// `game`. Under exactly five (`INFO rule 1`) the players cannot be asked
/// as they are: `learned` and `perfect` refuse those rules, and the
/// searches of `alphabeta` and `rules` count an overline as a line. So
/// there a move that makes exactly five is played, else the opponent's is
/// blocked, else the player is asked on the same stones under the
/// freestyle rules, with the cells where the brain would make only an
/// overline given to the opponent when the stone counts allow it (so its
/// search does not take one for a win). An overline already on the board
/// ends the freestyle game: then the player is given the game as it is.
/// When the player finds no move, or only one that makes an overline, the
/// free cell next to the most stones is played (not an overline's while
/// another is free).
fn choose(strategy: &mut dyn Strategy, game: &Game, freestyle: Rules) -> Option<Cell> {
    if !game.rules().is_exact() || game.is_over() {
        return strategy.choose(game);
    }
    let k = game.rules().k();
    let me = game.to_move();
    for player in [me, me.other()] {
        if let Some(&five) = lines_at(game, player, |runs| runs.contains(&k)).first() {
            return Some(five);
        }
    }
    // No five for either side, so a run longer than k is only an overline.
    let overlines = lines_at(game, me, |runs| runs.iter().any(|&len| len > k));
    let view = freestyle_view(game, freestyle, &overlines)
        .or_else(|| freestyle_view(game, freestyle, &[]));
    let chosen = match view {
        Some(view) => strategy.choose(&view),
        None => strategy.choose(game),
    };
    match chosen {
        Some(cell) if !overlines.contains(&cell) => Some(cell),
        // The player found no move, or one that makes only an overline
        // (its view could not hide those cells: the stone counts did not
        // allow it): the free cell next to the most stones, an overline's
        // only when no other is free.
        _ => {
            let rules = game.rules();
            let stones_around = |cell: Cell| {
                Direction::ALL
                    .into_iter()
                    .flat_map(|d| [rules.step(cell, d, true), rules.step(cell, d, false)])
                    .filter(|&next| next.and_then(|c| game.get(c)).is_some())
                    .count()
            };
            // The first of the best, in reading order.
            game.legal_moves()
                .max_by_key(|&cell| {
                    (
                        !overlines.contains(&cell),
                        stones_around(cell),
                        std::cmp::Reverse(rules.index(cell)),
                    )
                })
                .or(chosen)
        }
    }
}

/// The free cells where a stone of `player`'s would make runs through it
/// (its length in each of the four directions, the stone counted) that
/// `wanted` picks, in reading order. Only cells next to one of
/// `player`'s stones can make a run of two or more.
fn lines_at(game: &Game, player: Player, wanted: impl Fn(&[u32; 4]) -> bool) -> Vec<Cell> {
    let rules = game.rules();
    let mut near: Vec<Cell> = Vec::new();
    for stone in rules.cells().filter(|&c| game.get(c) == Some(player)) {
        for direction in Direction::ALL {
            for forward in [true, false] {
                if let Some(next) = rules.step(stone, direction, forward)
                    && game.get(next).is_none()
                {
                    near.push(next);
                }
            }
        }
    }
    near.sort_unstable_by_key(|&c| rules.index(c));
    near.dedup();
    near.retain(|&cell| {
        let runs = Direction::ALL.map(|direction| {
            let mut len = 1;
            for forward in [true, false] {
                let mut at = cell;
                while let Some(next) = rules.step(at, direction, forward)
                    && game.get(next) == Some(player)
                {
                    len += 1;
                    at = next;
                }
            }
            len
        });
        wanted(&runs)
    });
    near
}

/// `game`'s stones, and the opponent's on `blocked` too, under `freestyle`
/// rules, with the same player to move; `None` if the counts cannot be
/// played in turn with that player to move, or the game is over there (a
/// run of more than k on the board is a line under the freestyle rules).
fn freestyle_view(game: &Game, freestyle: Rules, blocked: &[Cell]) -> Option<Game> {
    let me = game.to_move();
    let rules = game.rules();
    let stones = |player: Player| rules.cells().filter(move |&c| game.get(c) == Some(player));
    let mine: Vec<Cell> = stones(me).collect();
    let theirs: Vec<Cell> = stones(me.other()).chain(blocked.iter().copied()).collect();
    let ordered = in_turn(&mine, &theirs)?;
    let first = match ordered.first() {
        Some(&(_, false)) => me.other(),
        _ => me,
    };
    let mut view = Game::starting_with(freestyle, first);
    for (cell, is_mine) in ordered {
        let player = if is_mine { me } else { me.other() };
        view.play_as(player, cell).ok()?;
    }
    (!view.is_over() && view.to_move() == me).then_some(view)
}

/// The stones of the side to move (`mine`) and of the other (`theirs`),
/// each in the order listed, as they were played: the sides alternating,
/// `mine` first with as many stones each and `theirs` first with one
/// more; each stone with whether it is `mine`. `None` for any other count
/// (it could not be `mine`'s turn).
fn in_turn<T: Copy>(mine: &[T], theirs: &[T]) -> Option<Vec<(T, bool)>> {
    let mine_first = match theirs.len().checked_sub(mine.len()) {
        Some(0) => true,
        Some(1) => false,
        _ => return None,
    };
    let (a, b) = if mine_first {
        (mine, theirs)
    } else {
        (theirs, mine)
    };
    let mut ordered = Vec::with_capacity(a.len() + b.len());
    for (i, &stone) in a.iter().enumerate() {
        ordered.push((stone, mine_first));
        if let Some(&reply) = b.get(i) {
            ordered.push((reply, !mine_first));
        }
    }
    Some(ordered)
}

/// `WIDTH,HEIGHT` as two numbers.
fn size_pair(text: &str) -> Option<(u64, u64)> {
    let (x, y) = text.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// The cell at `point`, if it is on the board and not `taken`;
/// a refusal quotes the point as `written` (a number too large for any
/// integer is read clamped, and would be misquoted from `point`).
fn place(
    rules: Rules,
    point: Coords,
    written: &str,
    taken: impl Fn(Cell) -> bool,
) -> Result<Cell, String> {
    let cell = point.to_cell(rules).map_err(|_| {
        format!(
            "{written} is off the {}x{} board (width x height)",
            rules.cols(),
            rules.rows()
        )
    })?;
    if taken(cell) {
        return Err(format!("{written} is taken"));
    }
    Ok(cell)
}

/// Obey `input` line by line until `END` or its end.
///
/// # Errors
/// Reading or writing failed.
pub fn run(brain: &mut Brain, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        // MAX_LINE bytes and the newline.
        match read_line_bounded(&mut input, &mut line, MAX_LINE + 1)? {
            LineRead::End => return Ok(()),
            LineRead::TooLong => {
                // Skip to the end of the line, then say why it was ignored.
                skip_line(&mut input)?;
                brain.too_long(&line, &mut output)?;
                continue;
            }
            LineRead::Line => {}
        }
        // Bytes that are not text make an unknown command.
        let text = String::from_utf8_lossy(&line);
        if brain.line(&text, &mut output)? == Step::End {
            return Ok(());
        }
    }
}

/// `n` stones, in words.
fn in_stones(n: usize) -> String {
    if n == 1 {
        "1 stone".to_owned()
    } else {
        format!("{n} stones")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use super::*;

    /// Plays the first free cell in reading order, and keeps the time it
    /// was given. Like `learned` and `perfect`, it refuses to play under
    /// exactly five.
    struct FirstFree {
        given: Arc<Mutex<Vec<Duration>>>,
        deadline: Option<Deadline>,
    }

    impl Strategy for FirstFree {
        fn choose(&mut self, game: &Game) -> Option<Cell> {
            if let Some(deadline) = &self.deadline {
                self.given.lock().unwrap().push(deadline.left());
            }
            if game.rules().is_exact() {
                return None;
            }
            game.legal_moves().next()
        }

        fn name(&self) -> &str {
            "first-free"
        }

        fn set_deadline(&mut self, deadline: Option<Deadline>) {
            self.deadline = deadline;
        }
    }

    /// A brain of [`FirstFree`] players on a clock that never moves; the
    /// times each move was given.
    fn brain() -> (Brain, Arc<Mutex<Vec<Duration>>>) {
        let given = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::clone(&given);
        let build = move |_rules| {
            Ok(Box::new(FirstFree {
                given: Arc::clone(&shared),
                deadline: None,
            }) as Box<dyn Strategy>)
        };
        let now = Instant::now();
        let clock: Clock = Arc::new(move || now);
        (Brain::new(Box::new(build), clock, "first-free"), given)
    }

    /// Feed `script` (one command a line) and return the answers.
    fn talk(brain: &mut Brain, script: &str) -> Vec<String> {
        let mut out = Vec::new();
        run(brain, script.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn a_game_from_start_to_end() {
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "START 15\nINFO timeout_turn 1000\nBEGIN\nTURN 1,0\nTURN 3,0\nabout\nEND\nTURN 5,5\n",
        );
        assert_eq!(answers[..4], ["OK", "0,0", "2,0", "4,0"]);
        assert!(
            answers[4].starts_with("name=\"oxo\", version=\""),
            "{answers:?}"
        );
        assert_eq!(answers.len(), 5, "nothing after END: {answers:?}");
    }

    /// A message is said once, as a `MESSAGE` line just before the first
    /// answer, whatever that answer is (an `ERROR` here, a `DONE`'s move
    /// there), and a line break cannot make a second line of it.
    #[test]
    fn a_message_comes_before_the_first_answer_only() {
        let (b, _) = brain();
        let mut b = b.saying("seed 7\rOK");
        let answers = talk(
            &mut b,
            "INFO timeout_turn 5\nTURN 1,1\nSTART 15\nBEGIN\nEND\n",
        );
        assert_eq!(
            answers,
            [
                "MESSAGE seed 7",
                "ERROR no board yet: START first",
                "OK",
                "0,0"
            ]
        );
        let (b, _) = brain();
        let mut b = b.saying("seed 8");
        let answers = talk(&mut b, "START 15\nBOARD\n7,7,2\nDONE\nEND\n");
        assert_eq!(answers, ["MESSAGE seed 8", "OK", "0,0"]);
        let (mut b, _) = brain();
        assert_eq!(
            talk(&mut b, "START 15\nEND\n"),
            ["OK"],
            "no message, no line"
        );
        let (b, _) = brain();
        let mut b = b.saying("\nsecond");
        assert_eq!(talk(&mut b, "START 15\nEND\n"), ["OK"], "nothing to say");
    }

    /// A tab parts a command's words as a space does, an `INFO`'s too.
    #[test]
    fn a_tab_parts_words() {
        let (mut b, given) = brain();
        assert_eq!(
            talk(
                &mut b,
                "START\t15\nINFO\ttimeout_turn\t1000\nINFO\trule\t4\nTURN\t5,5\nINFO rule\t0\n\
                 TURN 6,6\nEND\n"
            ),
            [
                "OK",
                "ERROR rule 4 (renju) is not supported: oxo plays freestyle (rule 0) and exactly five (rule 1)",
                "0,0"
            ]
        );
        // 1000 ms, less a tenth and 30 ms.
        assert_eq!(*given.lock().unwrap(), [Duration::from_millis(870)]);
    }

    #[test]
    fn end_inside_a_board_ends_the_brain() {
        let (mut b, _) = brain();
        let answers = talk(&mut b, "START 15\nBOARD\n7,7,2\nEND\nDONE\nBEGIN\n");
        assert_eq!(answers, ["OK"], "nothing after END");
        let (mut b, _) = brain();
        let answers = talk(&mut b, "RECTSTART 5\nSTART\n");
        assert_eq!(
            answers,
            [
                "ERROR RECTSTART wants WIDTH,HEIGHT",
                "ERROR START wants a size"
            ]
        );
    }

    #[test]
    fn a_refused_start_leaves_no_board() {
        for start in ["START 4", "START", "RECTSTART 2000,5", "RECTSTART 9"] {
            let (mut b, _) = brain();
            let answers = talk(&mut b, &format!("START 15\nBEGIN\n{start}\nTURN 14,14\n"));
            assert_eq!(answers.len(), 4, "{answers:?}");
            assert!(answers[2].starts_with("ERROR "), "{answers:?}");
            assert_eq!(answers[3], "ERROR no board yet: START first", "{start}");
        }
    }

    #[test]
    fn refusals_are_errors_and_the_brain_carries_on() {
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "BEGIN\nTURN 1,1\nSTART 4\nSTART x\nRECTSTART 20,5\nTURN 0,0\nTURN 0,0\nTURN 20,0\n\
             TURN 7\nTURN -1,2\nTAKEBACK 9,9\nSWAP2BOARD\n7,7,1\n\u{1}\nDONE\nBEGIN\n",
        );
        assert_eq!(
            answers,
            [
                "ERROR no board yet: START first",
                "ERROR no board yet: START first",
                "ERROR unsupported size 4x4: from 5 to 1024 a side",
                "ERROR START wants a size",
                "OK",
                // The opponent at 0,0; the brain's reply, the first free cell.
                "1,0",
                "ERROR 0,0 is taken",
                "ERROR 20,0 is off the 20x5 board (width x height)",
                "ERROR TURN wants X,Y, not \"7\"",
                "ERROR TURN wants X,Y, not \"-1,2\"",
                "ERROR 9,9 is not the last stone",
                // Read up to DONE and answered once.
                "ERROR swap2 openings are not supported",
                "ERROR BEGIN is for an empty board: use TURN or BOARD",
            ]
        );
    }

    #[test]
    fn board_takeback_and_restart() {
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "START 5\nBOARD\n0,0,2\n2,2,1\n1,0,2\nDONE\nTAKEBACK 2,0\nTAKEBACK 1,0\nTURN 1,0\n\
             RESTART\nBOARD\n0,0,1\n0,0,2\n4,4,3\n0,1,9\nDONE\nBOARD\n0,0,1\nDONE\nRESTART\nBEGIN\n",
        );
        assert_eq!(
            answers,
            [
                "OK",
                // O's stones at 0,0 and 1,0, X's at 2,2: first free is 2,0.
                "2,0",
                // The brain's stone, then the opponent's before it.
                "OK",
                "OK",
                "2,0",
                "OK",
                // One answer for the BOARD: its first problem.
                "ERROR 0,0 is taken",
                "ERROR 1 stone of mine and 0 of yours: it cannot be my turn",
                "OK",
                "0,0",
            ]
        );
    }

    #[test]
    fn a_board_gets_one_answer_its_first_problem_and_changes_nothing() {
        let about = |answer: &str| answer.starts_with("name=\"oxo\"");
        for (stones, problem) in [
            (
                "7,7,1\n20,20,2\n8,8,2",
                "20,20 is off the 15x15 board (width x height)",
            ),
            ("7,7,1\n7,7,2\n8,8,2\n8,8,1", "7,7 is taken"),
            (
                "7,7,1\n8,8,3\n9,9,2",
                "continuous games (field 3) are not supported",
            ),
            (
                "7,7,1\nfoo\n8,8,2\nbar",
                "a BOARD line is X,Y,FIELD, not \"foo\"",
            ),
        ] {
            let (mut b, _) = brain();
            let answers = talk(
                &mut b,
                &format!("START 15\nBEGIN\nBOARD\n{stones}\nDONE\nABOUT\nTAKEBACK 0,0\n"),
            );
            assert_eq!(answers.len(), 5, "{stones}: {answers:?}");
            assert_eq!(answers[..3], ["OK", "0,0", &format!("ERROR {problem}")]);
            assert!(about(&answers[3]), "{stones}: {answers:?}");
            // The board is the one before BOARD: the brain's first move.
            assert_eq!(answers[4], "OK", "{stones}");
        }
        // A blank line is skipped, as outside BOARD.
        let (mut b, _) = brain();
        let answers = talk(&mut b, "START 15\nBOARD\n\n0,0,2\n\nDONE\n");
        assert_eq!(answers, ["OK", "1,0"]);
        // With no board, the lines are read up to DONE, answered once.
        let (mut b, _) = brain();
        let answers = talk(&mut b, "BOARD\n7,7,1\n8,8,2\nDONE\nABOUT\n");
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert_eq!(answers[0], "ERROR no board yet: START first");
        assert!(about(&answers[1]), "{answers:?}");
        let answers = talk(&mut b, "START 15\nBOARD\n20,20,1\nEND\nDONE\nABOUT\n");
        assert_eq!(answers, ["OK"], "END inside BOARD ends the brain");
        // SWAP2BOARD likewise, with or without a board.
        for start in ["", "START 15\n"] {
            let (mut b, _) = brain();
            let answers = talk(
                &mut b,
                &format!("{start}SWAP2BOARD\n7,7\n8,8\n9,9\nDONE\nABOUT\n"),
            );
            let answers = &answers[start.lines().count()..];
            assert_eq!(answers.len(), 2, "{answers:?}");
            assert_eq!(answers[0], "ERROR swap2 openings are not supported");
            assert!(about(&answers[1]), "{answers:?}");
        }
        let (mut b, _) = brain();
        let answers = talk(&mut b, "START 15\nSWAP2BOARD\nEND\nDONE\nABOUT\n");
        assert_eq!(answers, ["OK"], "END inside SWAP2BOARD ends the brain");
    }

    #[test]
    fn a_finished_game_gets_no_move_and_exactly_five_is_the_rule_when_told() {
        // The opponent has four on the top row; the brain blocks one end
        // (its first free cell), the opponent makes five at the other.
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "START 7\nBOARD\n1,0,2\n2,0,2\n3,0,2\n4,0,2\n0,6,1\n1,6,1\n2,6,1\n3,6,1\nDONE\n\
             TURN 5,0\nTURN 6,6\n",
        );
        assert_eq!(answers[1], "0,0", "{answers:?}");
        assert_eq!(answers[2], "ERROR the game is over");
        // The stone that ended it is kept, as the manager's board has it:
        // a turn after it is refused for the same reason, and once it is
        // taken back, the game goes on from the board before it.
        assert_eq!(answers[3], "ERROR the game is over", "{answers:?}");
        let answers = talk(&mut b, "TAKEBACK 5,0\nTURN 6,6\n");
        assert_eq!(answers, ["OK", "5,0"]);
        // Nor is a BOARD that is already over: the game goes on from the
        // position before it.
        let answers = talk(
            &mut b,
            "RESTART\nBEGIN\nBOARD\n0,0,2\n1,0,2\n2,0,2\n3,0,2\n4,0,2\n0,6,1\n1,6,1\n2,6,1\n\
             3,6,1\nDONE\nTURN 4,4\n",
        );
        assert_eq!(answers[0], "OK");
        assert_eq!(answers[2], "ERROR the game is over", "{answers:?}");
        assert!(!answers[3].starts_with("ERROR"), "{answers:?}");
        // Under exactly five, six in a row is no win: the game goes on.
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "START 7\nINFO rule 1\nBOARD\n0,3,2\n1,3,2\n2,3,2\n4,3,2\n5,3,2\n0,0,1\n1,0,1\n\
             2,0,1\n0,6,1\n1,6,1\nDONE\nTURN 3,3\n",
        );
        assert_eq!(answers[1], "3,0", "{answers:?}");
        // Six in a row on row 3: under exactly five, not a win.
        assert_eq!(answers[2], "4,0", "{answers:?}");
    }

    /// The brain's answer to `INFO rule 1` and a BOARD of `stones` (X,Y,F
    /// each) on an N×N board.
    fn exactly_five(n: u32, stones: &str) -> String {
        let (mut b, _) = brain();
        let board: String = stones.split(' ').map(|s| format!("{s}\n")).collect();
        let answers = talk(
            &mut b,
            &format!("START {n}\nINFO rule 1\nBOARD\n{board}DONE\n"),
        );
        assert_eq!(answers.len(), 2, "{answers:?}");
        answers[1].clone()
    }

    #[test]
    fn under_exactly_five_a_five_is_taken_or_blocked_and_an_overline_avoided() {
        // The auditor's position: 2,5 makes six for the brain (nothing),
        // 11,11 blocks the opponent's five.
        assert_eq!(
            exactly_five(
                15,
                "0,5,1 1,5,1 3,5,1 4,5,1 5,5,1 6,6,1 7,7,2 8,8,2 9,9,2 10,10,2 14,0,2 14,2,2"
            ),
            "11,11"
        );
        // The brain's own five comes first, at either end of its four.
        assert_eq!(
            exactly_five(15, "1,2,1 2,2,1 3,2,1 4,2,1 1,10,2 2,10,2 3,10,2 4,10,2"),
            "0,2"
        );
        // Otherwise the player (which refuses exactly five) is asked under
        // freestyle, with 3,0 (six for the brain, nothing) taken from it:
        // its first free cell is then 6,0.
        assert_eq!(
            exactly_five(
                15,
                "0,0,1 1,0,1 2,0,1 4,0,1 5,0,1 0,14,2 2,14,2 4,14,2 6,14,2 8,14,2"
            ),
            "6,0"
        );
        // The same with the brain second (the opponent a stone ahead): the
        // view cannot hide 3,0, the player plays it, and the brain plays
        // the free cell next to the most stones that makes no overline.
        assert_eq!(
            exactly_five(
                15,
                "0,0,1 1,0,1 2,0,1 4,0,1 5,0,1 0,14,2 2,14,2 4,14,2 6,14,2 8,14,2 10,14,2"
            ),
            "1,1"
        );
        // An overline on the board (listed so that no five is made on the
        // way) ends the freestyle game: the player,
        // given the game as it is, finds no move; the free cell next to
        // the most stones (three of the six) is played.
        assert_eq!(
            exactly_five(
                7,
                "0,3,2 1,3,2 2,3,2 4,3,2 5,3,2 3,3,2 0,0,1 2,0,1 4,0,1 0,6,1 2,6,1 4,6,1"
            ),
            "1,2"
        );
    }

    #[test]
    fn rules_oxo_cannot_play_get_no_move() {
        let refused = |rule: &str| {
            format!(
                "ERROR rule {rule} is not supported: oxo plays freestyle (rule 0) and exactly \
                 five (rule 1)"
            )
        };
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "START 15\nINFO rule 4\nBEGIN\nTURN 7,7\nBOARD\n7,7,2\nDONE\nINFO rule 0\nTURN 7,7\n",
        );
        // No stone was kept: the turn is taken afresh once freestyle.
        assert_eq!(
            answers,
            [
                "OK".to_owned(),
                refused("4 (renju)"),
                refused("4 (renju)"),
                refused("4 (renju)"),
                "0,0".to_owned()
            ]
        );
        for (rule, named) in [
            ("2", "2 (continuous)"),
            ("8", "8 (caro)"),
            ("9", "9 (caro)"),
            ("14", "14 (continuous, renju, caro)"),
            ("16", "16"),
        ] {
            let (mut b, _) = brain();
            let answers = talk(&mut b, &format!("START 15\nINFO rule {rule}\nBEGIN\n"));
            assert_eq!(answers, ["OK".to_owned(), refused(named)], "{rule}");
        }
        // A rule that is not a number changes nothing.
        let (mut b, _) = brain();
        let answers = talk(&mut b, "START 15\nINFO rule 4\nINFO rule renju\nBEGIN\n");
        assert_eq!(answers[1], refused("4 (renju)"));
    }

    #[test]
    fn points_are_quoted_as_sent() {
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "START 15\nTURN 99999999999999999999,1\nBOARD\n1,99999999999999999999,2\nDONE\n",
        );
        assert_eq!(
            answers,
            [
                "OK",
                "ERROR 99999999999999999999,1 is off the 15x15 board (width x height)",
                "ERROR 1,99999999999999999999 is off the 15x15 board (width x height)",
            ]
        );
    }

    #[test]
    fn a_time_that_is_not_a_number_changes_nothing_and_a_negative_one_is_none() {
        let (mut b, given) = brain();
        talk(
            &mut b,
            "START 9\nINFO timeout_turn 1000\nINFO timeout_turn 1s\nINFO timeout_turn\nBEGIN\n\
             INFO timeout_match 60000\nINFO time_left 6000\nINFO time_left -\nTURN 8,8\n\
             INFO time_left -50\nTURN 8,7\nINFO time_left 6000\nINFO timeout_turn -5\nTURN 8,6\n",
        );
        let ms = millis(&given);
        // 1 s, kept; a twelfth of the 6 s left, kept; no time left; no time
        // a move.
        assert_eq!(ms, [870, 420, 0, 0]);
    }

    /// The times the test player was given, in milliseconds.
    fn millis(given: &Mutex<Vec<Duration>>) -> Vec<u128> {
        given
            .lock()
            .unwrap()
            .iter()
            .map(Duration::as_millis)
            .collect()
    }

    #[test]
    fn each_move_gets_its_share_of_the_time() {
        let (mut b, given) = brain();
        talk(
            &mut b,
            "START 9\nBEGIN\nINFO timeout_turn 1000\nTURN 8,8\nINFO timeout_match 60000\n\
             INFO time_left 6000\nTURN 8,7\nINFO timeout_turn 0\nTURN 8,6\n",
        );
        let ms = millis(&given);
        // 5 s until told (less a tenth and 30 ms); then 1 s; then a twelfth
        // of the 6 s left; then as fast as possible.
        assert_eq!(ms, [4470, 870, 420, 0]);
    }

    /// `time_left` counts without `timeout_match` (a manager need not send
    /// it), and not once the match is said to have no limit.
    #[test]
    fn time_left_counts_unless_the_match_has_no_limit() {
        let (mut b, given) = brain();
        talk(
            &mut b,
            "START 9\nINFO timeout_turn 3000\nINFO time_left 1200\nBEGIN\n\
             INFO timeout_match 0\nTURN 8,8\nINFO timeout_match 60000\nTURN 8,7\n",
        );
        // A twelfth of 1.2 s; the 3 s move time; the twelfth again.
        assert_eq!(millis(&given), [60, 2670, 60]);
    }

    /// Plays the first free cell in reading order. Given more than a
    /// second, it waits until its deadline is moved to a second or less
    /// (a pondering search given its time on a hit) or stopped, as a
    /// search on the opponent's time would go on until then. Notes the
    /// stones on the board and its time left on the way in and out.
    struct Patient {
        seen: Arc<Mutex<Vec<(usize, u128, u128)>>>,
        deadline: Option<Deadline>,
    }

    impl Strategy for Patient {
        fn choose(&mut self, game: &Game) -> Option<Cell> {
            let deadline = self.deadline.clone().expect("the brain sets a deadline");
            let came = deadline.left();
            while deadline.left() > Duration::from_secs(1) {
                std::thread::sleep(Duration::from_millis(1));
            }
            let left = deadline.left();
            let micros = |d: Duration| d.as_micros();
            self.seen
                .lock()
                .unwrap()
                .push((game.move_count(), micros(came), micros(left)));
            game.legal_moves().next()
        }

        fn name(&self) -> &str {
            "patient"
        }

        fn set_deadline(&mut self, deadline: Option<Deadline>) {
            self.deadline = deadline;
        }

        fn searches_to_deadline(&self) -> bool {
            true
        }
    }

    type Seen = Arc<Mutex<Vec<(usize, u128, u128)>>>;

    /// A pondering brain of [`Patient`] players on a clock that never
    /// moves, a 9×9 board, a second a move: it has played its first move,
    /// 0,0, and guessed the reply (the first free cell, 1,0).
    fn pondering() -> (Brain, Seen) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::clone(&seen);
        let build = move |_rules| {
            Ok(Box::new(Patient {
                seen: Arc::clone(&shared),
                deadline: None,
            }) as Box<dyn Strategy>)
        };
        let now = Instant::now();
        let clock: Clock = Arc::new(move || now);
        let mut brain = Brain::new(Box::new(build), clock, "patient").pondering(true);
        assert_eq!(
            talk(&mut brain, "START 9\nINFO timeout_turn 1000\nBEGIN\n"),
            ["OK", "0,0"]
        );
        let ponder = brain.pondering.as_ref().expect("pondering after its move");
        while ponder.guess.get().is_none() {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(ponder.guess.get(), Some(&Cell::new(0, 1)));
        (brain, seen)
    }

    #[test]
    fn a_guessed_reply_is_answered_by_the_search_made_on_its_time() {
        let (mut b, seen) = pondering();
        // INFO and ABOUT leave the search running; the guess comes.
        assert_eq!(talk(&mut b, "INFO time_left 100000\nTURN 1,0\n"), ["2,0"]);
        assert_eq!(
            b.pondered(),
            Pondered {
                started: 2,
                met: 1,
                hits: 1
            }
        );
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen[..3],
            [
                // The first move: 1 s less a tenth and 30 ms.
                (0, 870_000, 870_000),
                // The guess: a quarter of a move's time.
                (1, 217_500, 217_500),
                // The answer to it: ten moves' time, until the guess came
                // and it was given a move's time from then.
                (2, 8_700_000, 870_000),
            ]
        );
        // No search of its own for the move after the hit, which went to
        // pondering again (the guess and an answer to it).
        assert!(
            seen[3..].iter().all(|&(stones, ..)| stones >= 3),
            "{seen:?}"
        );
    }

    #[test]
    fn a_wrong_guess_calls_the_search_off_and_the_move_is_searched_afresh() {
        let (mut b, seen) = pondering();
        assert_eq!(talk(&mut b, "TURN 5,5\n"), ["1,0"]);
        assert_eq!(b.pondered().hits, 0);
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen[1..4],
            [
                (1, 217_500, 217_500),
                // Called off when the move was not the guess…
                (2, 8_700_000, 0),
                // …and the move searched in its own time.
                (2, 870_000, 870_000),
            ]
        );
    }

    #[test]
    fn other_commands_call_pondering_off_first() {
        for command in [
            "TAKEBACK 0,0",
            "RESTART",
            "START 9",
            "BOARD",
            "END",
            "FOO",
            "INFO rule 1",
        ] {
            let (mut b, seen) = pondering();
            talk(&mut b, &format!("{command}\n"));
            assert!(b.pondering.is_none(), "{command}");
            assert_eq!(seen.lock().unwrap()[2], (2, 8_700_000, 0), "{command}");
            // The player is back on the board.
            if command != "END" && command != "BOARD" {
                assert_eq!(talk(&mut b, "RESTART\nBEGIN\n"), ["OK", "0,0"], "{command}");
            }
        }
        // Dropping a pondering brain ends its search too.
        let (b, seen) = pondering();
        drop(b);
        assert_eq!(seen.lock().unwrap()[2], (2, 8_700_000, 0));
    }

    #[test]
    fn no_pondering_unless_asked_or_with_no_time() {
        let (mut b, _) = brain();
        talk(&mut b, "START 9\nBEGIN\n");
        assert!(b.pondering.is_none());
        // A player that answers in its own time does not ponder.
        let (b, _) = brain();
        let mut b = b.pondering(true);
        talk(&mut b, "START 9\nBEGIN\n");
        assert!(b.pondering.is_none());
        assert_eq!(b.pondered().started, 0);
        let (mut b, _) = pondering();
        talk(&mut b, "RESTART\nINFO timeout_turn 0\nBEGIN\n");
        assert!(b.pondering.is_none());
        assert_eq!(b.pondered().started, 1);
    }

    #[test]
    fn long_lines_are_refused_without_holding_them() {
        let (mut b, _) = brain();
        let long = "X".repeat(MAX_LINE * 10);
        let answers = talk(&mut b, &format!("{long}\nSTART 5\n"));
        assert_eq!(
            answers,
            [
                format!("ERROR a line of more than {MAX_LINE} bytes"),
                "OK".to_owned()
            ]
        );
        let _ = AtomicU64::new(0).load(Ordering::SeqCst);
        // Inside a BOARD, the BOARD's one answer says so, at DONE.
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            &format!("START 15\nBOARD\n7,7,1\n{long}\n8,8,2\nDONE\nTAKEBACK 0,0\n"),
        );
        assert_eq!(
            answers,
            [
                "OK".to_owned(),
                format!("ERROR a line of more than {MAX_LINE} bytes"),
                "ERROR the board is empty".to_owned()
            ]
        );
        // A long INFO (a deep `folder`, say) is dropped unanswered, as any
        // INFO is: an ERROR would be taken for the next command's answer.
        let (mut b, _) = brain();
        let answers = talk(&mut b, &format!("START 5\ninfo folder /{long}\nABOUT\n"));
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert_eq!(answers[0], "OK");
        assert!(answers[1].starts_with("name="), "{answers:?}");
    }

    #[test]
    fn an_unknown_command_is_quoted_escaped_and_short() {
        let (mut b, _) = brain();
        assert_eq!(
            talk(&mut b, "\u{1b}[31mBAD\u{202e}X\n"),
            ["UNKNOWN \\u{1b}[31mBAD\\u{202e}X"]
        );
        let long = "Z".repeat(100);
        assert_eq!(
            talk(&mut b, &format!("{long}\n")),
            [format!("UNKNOWN {}… (100 bytes)", &long[..60])]
        );
    }
}
