//! `oxo brain`: oxo's players as a Gomocup engine (a "brain"), speaking the
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
//! | `BOARD`, then `X,Y,F` lines, then `DONE` | a whole position (F: 1 the brain's stone, 2 the opponent's); the brain's move |
//! | `TAKEBACK X,Y` | `OK`: the last stone, at X,Y, is taken back |
//! | `INFO KEY VALUE` | nothing: `timeout_turn`, `timeout_match`, `time_left` (ms), `max_memory` (bytes), `rule` (bit 1: exactly five), `game_type`, `evaluate`, `folder` |
//! | `ABOUT` | `name="oxo", version="…", author="…", country="…"` |
//! | `END` | nothing: the brain exits |
//!
//! Anything else is answered `UNKNOWN …`; a command that cannot be obeyed
//! (a stone on a taken cell or off the board, a malformed line, a move
//! asked for before `START`) `ERROR …`, and the brain carries on.
//!
//! Coordinates are the protocol's: X is the column and Y the row, both
//! from 0; oxo's own cells are (row, column), so `TURN 3,7` is oxo's row 7,
//! column 3.
//!
//! Time: each move gets `timeout_turn` (5 s until told), and at most a
//! twelfth of `time_left` when the match has a time limit, less a margin of
//! a tenth and 30 ms for the manager's own overhead; the strategy is given
//! that as a [`Deadline`], which `alphabeta` searches up to (the other
//! strategies answer at once). The clock is passed in, so tests need no
//! real time.

use std::io::{self, BufRead, Read, Write};
use std::time::Duration;

use oxo_ai::{Clock, Deadline, Strategy};
use oxo_core::{Cell, Game, Player, Rules};

/// Builds the strategy that plays each board.
pub type Build = dyn FnMut(Rules) -> Result<Box<dyn Strategy>, String> + Send;

/// Gomocup's win length.
pub const K: u32 = 5;

/// The time a move gets until the manager says otherwise.
pub const DEFAULT_TURN: Duration = Duration::from_secs(5);

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
    /// The rule bits: 1 exactly five.
    rule: u32,
}

/// The game being played.
struct Board {
    /// The board's rows, columns and five in a row (freestyle).
    rules: Rules,
    /// Every stone, in the order played.
    stones: Vec<(Cell, Side)>,
    strategy: Box<dyn Strategy>,
}

/// What a line asks of the program.
#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// Go on reading.
    Continue,
    /// `END`: stop.
    End,
}

/// The protocol's state: the board, what `INFO` said, a `BOARD` being
/// read.
pub struct Brain {
    build: Box<Build>,
    clock: Clock,
    board: Option<Board>,
    info: Info,
    /// The stones of a `BOARD` command until `DONE`.
    reading: Option<Vec<(Cell, Side)>>,
    about: String,
}

impl std::fmt::Debug for Brain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Brain")
            .field("info", &self.info)
            .field("stones", &self.board.as_ref().map(|b| b.stones.len()))
            .finish_non_exhaustive()
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
        }
    }

    /// Obey one line, writing any answer to `out`.
    ///
    /// # Errors
    /// Writing failed.
    pub fn line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<Step> {
        let line = line.trim();
        if self.reading.is_some() {
            return self.board_line(line, out).map(|()| Step::Continue);
        }
        if line.is_empty() {
            return Ok(Step::Continue);
        }
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        let rest = rest.trim();
        let answer = match command.to_ascii_uppercase().as_str() {
            "START" => Some(self.start(rest.parse().ok().map(|n| (n, n)))),
            "RECTSTART" => Some(self.start(pair(rest))),
            "RESTART" => Some(match &mut self.board {
                Some(board) => {
                    board.stones.clear();
                    "OK".to_owned()
                }
                None => "ERROR no board yet: START first".to_owned(),
            }),
            "BEGIN" => Some(match self.board.as_ref().map(|b| b.stones.is_empty()) {
                Some(true) => self.reply(),
                Some(false) => "ERROR BEGIN is for an empty board: use TURN or BOARD".to_owned(),
                None => "ERROR no board yet: START first".to_owned(),
            }),
            "TURN" => Some(match pair(rest) {
                Some((x, y)) => self.turn(x, y),
                None => format!("ERROR TURN wants X,Y, not {rest:?}"),
            }),
            "BOARD" => {
                if self.board.is_none() {
                    Some("ERROR no board yet: START first".to_owned())
                } else {
                    self.reading = Some(Vec::new());
                    None
                }
            }
            "TAKEBACK" => Some(match pair(rest) {
                Some((x, y)) => self.take_back(x, y),
                None => format!("ERROR TAKEBACK wants X,Y, not {rest:?}"),
            }),
            "INFO" => {
                self.info(rest);
                None
            }
            "ABOUT" => Some(self.about.clone()),
            "END" => return Ok(Step::End),
            _ => Some(format!("UNKNOWN {command}")),
        };
        if let Some(answer) = answer {
            writeln!(out, "{answer}")?;
            out.flush()?;
        }
        Ok(Step::Continue)
    }

    fn start(&mut self, size: Option<(u64, u64)>) -> String {
        let Some((cols, rows)) = size else {
            return "ERROR START wants a size".to_owned();
        };
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
                    strategy,
                });
                "OK".to_owned()
            }
            Err(e) => format!("ERROR {e}"),
        }
    }

    fn turn(&mut self, x: u64, y: u64) -> String {
        let Some(board) = &mut self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        if board
            .stones
            .last()
            .is_some_and(|&(_, side)| side == Side::Theirs)
        {
            return "ERROR it is my turn, not yours".to_owned();
        }
        let cell = match place(board.rules, x, y, &board.stones) {
            Ok(cell) => cell,
            Err(e) => return format!("ERROR {e}"),
        };
        board.stones.push((cell, Side::Theirs));
        let answer = self.reply();
        if answer.starts_with("ERROR") {
            // The game did not take the stone (it was over): neither do we.
            if let Some(board) = &mut self.board {
                board.stones.pop();
            }
        }
        answer
    }

    fn take_back(&mut self, x: u64, y: u64) -> String {
        let Some(board) = &mut self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        match board.stones.last() {
            Some(&(cell, _)) if u64::from(cell.col) == x && u64::from(cell.row) == y => {
                board.stones.pop();
                "OK".to_owned()
            }
            Some(_) => format!("ERROR {x},{y} is not the last stone"),
            None => "ERROR the board is empty".to_owned(),
        }
    }

    fn info(&mut self, rest: &str) {
        let (key, value) = rest.split_once(' ').unwrap_or((rest, ""));
        let number = value.trim().parse::<u64>().ok();
        match key.to_ascii_lowercase().as_str() {
            "timeout_turn" => self.info.timeout_turn = number,
            "timeout_match" => self.info.timeout_match = number,
            "time_left" => self.info.time_left = number,
            "rule" => {
                self.info.rule = number.and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
            }
            // Read and not needed: oxo's searches use a few MiB at most.
            _ => {}
        }
    }

    /// One line inside `BOARD`: a stone, or `DONE`.
    fn board_line(&mut self, line: &str, out: &mut dyn Write) -> io::Result<()> {
        if line.eq_ignore_ascii_case("DONE") {
            let stones = self.reading.take().unwrap_or_default();
            let answer = match self.set_position(stones) {
                Ok(()) => self.reply(),
                Err(e) => format!("ERROR {e}"),
            };
            writeln!(out, "{answer}")?;
            return out.flush();
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = match fields[..] {
            [x, y, field] => x
                .parse::<u64>()
                .ok()
                .zip(y.parse::<u64>().ok())
                .zip(field.parse::<u8>().ok()),
            _ => None,
        };
        let rules = self.board.as_ref().map(|b| b.rules);
        let problem = match (parsed, rules) {
            (Some(((x, y), field @ (1 | 2))), Some(rules)) => {
                let reading = self.reading.get_or_insert_with(Vec::new);
                match place(rules, x, y, reading) {
                    Ok(cell) => {
                        let side = if field == 1 { Side::Mine } else { Side::Theirs };
                        reading.push((cell, side));
                        None
                    }
                    Err(e) => Some(e),
                }
            }
            (Some((_, 3)), _) => Some("continuous games (field 3) are not supported".to_owned()),
            _ => Some(format!("a BOARD line is X,Y,FIELD, not {line:?}")),
        };
        if let Some(problem) = problem {
            // Said once; the rest of the board is still read up to DONE.
            writeln!(out, "ERROR {problem}")?;
            out.flush()?;
        }
        Ok(())
    }

    /// The stones of a `BOARD`, in turn order (whoever has more stones
    /// began; with as many each, the brain did, since it is to move).
    fn set_position(&mut self, stones: Vec<(Cell, Side)>) -> Result<(), String> {
        let board = self.board.as_mut().ok_or("no board yet: START first")?;
        let (mine, theirs): (Stones, Stones) = stones.iter().partition(|s| s.1 == Side::Mine);
        let first = match theirs.len().checked_sub(mine.len()) {
            Some(0) => Side::Mine,
            Some(1) => Side::Theirs,
            _ => {
                return Err(format!(
                    "{} stones of mine and {} of yours: it cannot be my turn",
                    mine.len(),
                    theirs.len()
                ));
            }
        };
        let (mut a, mut b) = if first == Side::Mine {
            (mine.into_iter(), theirs.into_iter())
        } else {
            (theirs.into_iter(), mine.into_iter())
        };
        let mut ordered = Vec::with_capacity(stones.len());
        loop {
            match (a.next(), b.next()) {
                (None, None) => break,
                (one, two) => ordered.extend(one.into_iter().chain(two)),
            }
        }
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
        if self.info.timeout_match.is_some_and(|m| m > 0)
            && let Some(left) = self.info.time_left
        {
            ms = ms.min(left / 12);
        }
        Duration::from_millis((ms - ms / 10).saturating_sub(30))
    }

    /// The brain's move, played: `X,Y`, or `ERROR …`.
    fn reply(&mut self) -> String {
        let time = self.move_time();
        let Some(board) = &self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        let rules = self.rules(board);
        let mut game = Game::new(rules);
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
            if let Err(e) = game.play_as(player, cell) {
                return format!("ERROR the position cannot be played: {e}");
            }
        }
        if game.is_over() {
            return "ERROR the game is over".to_owned();
        }
        let deadline = Deadline::after(time, self.clock.clone());
        let Some(board) = &mut self.board else {
            return "ERROR no board yet: START first".to_owned();
        };
        board.strategy.set_deadline(Some(deadline));
        match board.strategy.choose(&game) {
            Some(cell) if game.get(cell).is_none() && rules.contains(cell) => {
                board.stones.push((cell, Side::Mine));
                format!("{},{}", cell.col, cell.row)
            }
            Some(cell) => format!(
                "ERROR {} chose {cell}, which is not free",
                board.strategy.name()
            ),
            None => format!("ERROR {} found no move", board.strategy.name()),
        }
    }
}

/// `X,Y` as two numbers.
fn pair(text: &str) -> Option<(u64, u64)> {
    let (x, y) = text.split_once(',')?;
    Some((x.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// The cell at protocol coordinates (`x` the column), if it is on the
/// board and not among `stones`.
fn place(rules: Rules, x: u64, y: u64, stones: &[(Cell, Side)]) -> Result<Cell, String> {
    let cell = i64::try_from(y)
        .ok()
        .zip(i64::try_from(x).ok())
        .and_then(|(row, col)| rules.cell(row, col))
        .ok_or_else(|| format!("{x},{y} is off the {}x{} board", rules.cols(), rules.rows()))?;
    if stones.iter().any(|&(c, _)| c == cell) {
        return Err(format!("{x},{y} is taken"));
    }
    Ok(cell)
}

/// The longest line read; the rest of a longer one is skipped (no
/// command needs more than a few dozen bytes).
pub const MAX_LINE: usize = 4096;

/// Obey `input` line by line until `END` or its end.
///
/// # Errors
/// Reading or writing failed.
pub fn run(brain: &mut Brain, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = input
            .by_ref()
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(());
        }
        if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            // Skip to the end of the line, then say why it was ignored.
            let mut rest = Vec::new();
            while input.by_ref().take(1 << 16).read_until(b'\n', &mut rest)? > 0 {
                if rest.last() == Some(&b'\n') {
                    break;
                }
                rest.clear();
            }
            writeln!(output, "ERROR a line of more than {MAX_LINE} bytes")?;
            output.flush()?;
            continue;
        }
        // Bytes that are not text make an unknown command.
        let text = String::from_utf8_lossy(&line);
        if brain.line(&text, &mut output)? == Step::End {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use super::*;

    /// Plays the first free cell in reading order, and keeps the time it
    /// was given.
    struct FirstFree {
        given: Arc<Mutex<Vec<Duration>>>,
        deadline: Option<Deadline>,
    }

    impl Strategy for FirstFree {
        fn choose(&mut self, game: &Game) -> Option<Cell> {
            if let Some(deadline) = &self.deadline {
                self.given.lock().unwrap().push(deadline.left());
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

    #[test]
    fn refusals_are_errors_and_the_brain_carries_on() {
        let (mut b, _) = brain();
        let answers = talk(
            &mut b,
            "BEGIN\nTURN 1,1\nSTART 4\nSTART x\nRECTSTART 20,5\nTURN 0,0\nTURN 0,0\nTURN 20,0\n\
             TURN 7\nTURN -1,2\nTAKEBACK 9,9\nSWAP2BOARD\n\u{1}\nBEGIN\n",
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
                "ERROR 20,0 is off the 20x5 board",
                "ERROR TURN wants X,Y, not \"7\"",
                "ERROR TURN wants X,Y, not \"-1,2\"",
                "ERROR 9,9 is not the last stone",
                "UNKNOWN SWAP2BOARD",
                "UNKNOWN \u{1}",
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
                "ERROR 0,0 is taken",
                "ERROR continuous games (field 3) are not supported",
                "ERROR a BOARD line is X,Y,FIELD, not \"0,1,9\"",
                // What was read is one stone of mine: not my turn.
                "ERROR 1 stones of mine and 0 of yours: it cannot be my turn",
                "ERROR 1 stones of mine and 0 of yours: it cannot be my turn",
                "OK",
                "0,0",
            ]
        );
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
        // The stone that ended it was not kept: the next turn is judged on
        // the board before it.
        assert_eq!(answers[3], "5,0", "{answers:?}");
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

    #[test]
    fn each_move_gets_its_share_of_the_time() {
        let (mut b, given) = brain();
        talk(
            &mut b,
            "START 9\nBEGIN\nINFO timeout_turn 1000\nTURN 8,8\nINFO timeout_match 60000\n\
             INFO time_left 6000\nTURN 8,7\nINFO timeout_turn 0\nTURN 8,6\n",
        );
        let ms: Vec<u128> = given
            .lock()
            .unwrap()
            .iter()
            .map(Duration::as_millis)
            .collect();
        // 5 s until told (less a tenth and 30 ms); then 1 s; then a twelfth
        // of the 6 s left; then as fast as possible.
        assert_eq!(ms, [4470, 870, 420, 0]);
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
    }
}
