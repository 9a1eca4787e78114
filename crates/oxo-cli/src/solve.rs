//! `oxo solve`: the perfect-play value of positions, as a table or JSON.

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use oxo_ai::exact::{self, Analyst, Valued, Values, ValuesError};
use oxo_ai::{Analysis, Eval, StrongSolution, Value};
use oxo_core::{BoardSize, Cell, Game, Player};
use serde::Serialize;

use oxo_text::input::{LineRead, MAX_LINE, read_line_bounded, skip_line};

/// `game` answered by `analyst` (its value alone, or every move's, as the
/// analyst was made to), timed, ready to print.
///
/// # Errors
/// As [`Analyst::answer`].
pub fn answer(analyst: &mut Analyst, game: Game) -> Result<Box<dyn Answer>, ValuesError> {
    // The opening table read and the valuer made once, before the clock.
    analyst.prepare(&game)?;
    let start = Instant::now();
    Ok(match analyst.answer(&game)? {
        exact::Answer::Value { value, nodes } => Box::new(ValueReport {
            game,
            value,
            nodes,
            time: start.elapsed(),
        }),
        exact::Answer::Values(values) => Box::new(ValuesReport {
            game,
            values,
            time: start.elapsed(),
        }),
        exact::Answer::Analysis(analysis) => Box::new(Report {
            game,
            analysis,
            time: start.elapsed(),
        }),
    })
}

/// One solved position, ready to print.
#[derive(Clone, Debug)]
pub struct Report {
    /// The position solved.
    pub game: Game,
    /// The solver's answer.
    pub analysis: Analysis,
    /// How long it took.
    pub time: Duration,
}

/// A solved position, as `oxo solve` prints it: a table for people or one
/// line of JSON.
pub trait Answer {
    /// The readable form.
    fn table(&self) -> String;
    /// One line of JSON.
    fn json(&self) -> String;
}

impl<A: Answer + ?Sized> Answer for Box<A> {
    fn table(&self) -> String {
        (**self).table()
    }

    fn json(&self) -> String {
        (**self).json()
    }
}

/// One position's value alone (`oxo solve --value`): win, draw or loss for
/// the player to move, without distances or the moves' values, which is the
/// solver's fastest question.
#[derive(Clone, Debug)]
pub struct ValueReport {
    /// The position solved.
    pub game: Game,
    /// Its value for the player to move (for a finished game, for the
    /// player who would move next).
    pub value: Value,
    /// Positions visited.
    pub nodes: u64,
    /// How long it took.
    pub time: Duration,
}

impl Answer for ValueReport {
    /// The position, its value for the player to move and the search's
    /// cost, one line each.
    fn table(&self) -> String {
        let game = &self.game;
        let mut out = String::new();
        let _ = writeln!(out, "position {game}  ({})", game.rules());
        let _ = writeln!(out, "{}", headline(game, self.value));
        out.push_str(&cost(self.nodes, self.time));
        out
    }

    /// `{"position", "size", "k", "to_move", "value", "nodes", "time_ms"}`.
    fn json(&self) -> String {
        #[derive(Serialize)]
        struct Json {
            #[serde(flatten)]
            head: Head,
            nodes: u64,
            time_ms: f64,
        }
        to_json(&Json {
            head: Head::of(&self.game, self.value),
            nodes: self.nodes,
            time_ms: millis(self.time),
        })
    }
}

/// The fields every answer's JSON opens with: the position and its value
/// for the player to move.
#[derive(Serialize)]
struct Head {
    position: String,
    size: BoardSize,
    k: u32,
    to_move: Option<Player>,
    value: Value,
}

impl Head {
    fn of(game: &Game, value: Value) -> Head {
        Head {
            position: game.to_string(),
            size: game.rules().size(),
            k: game.rules().k(),
            to_move: (!game.is_over()).then(|| game.to_move()),
            value,
        }
    }
}

/// The line that closes every answer's table: the search's cost.
fn cost(nodes: u64, time: Duration) -> String {
    format!(
        "{nodes} positions searched in {:.3} ms\n",
        time.as_secs_f64() * 1e3
    )
}

/// The line that says how a position stands: who has won a finished game,
/// else the value for the player to move.
fn headline(game: &Game, value: Value) -> String {
    match game.outcome() {
        Some(oxo_core::Outcome::Win(p)) => format!("game over: {p} has won"),
        Some(oxo_core::Outcome::Draw) => "game over: a draw".to_owned(),
        None => format!("{} to move: {value}", game.to_move()),
    }
}

fn cell_label(eval: Eval) -> String {
    match eval.value {
        Value::Win => format!("W{}", eval.plies),
        Value::Draw => "D".to_owned(),
        Value::Loss => format!("L{}", eval.plies),
    }
}

/// The position line and the board with each stone, and each empty cell's
/// label from `labels` (a dot where it has none).
fn board_table(game: &Game, labels: impl Iterator<Item = (Cell, String)>) -> String {
    let rules = game.rules();
    let mut cells = vec![String::new(); rules.cell_count()];
    for cell in rules.cells() {
        if let Some(p) = game.get(cell) {
            cells[rules.index(cell)] = p.to_string();
        }
    }
    for (cell, label) in labels {
        cells[rules.index(cell)] = label;
    }
    let width = cells
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(1)
        .max((rules.cols().saturating_sub(1)).to_string().len());
    let row_width = (rules.rows().saturating_sub(1)).to_string().len();
    let mut out = String::new();
    let _ = writeln!(out, "position {game}  ({rules})");
    let _ = write!(out, "{:row_width$}", "");
    for col in 0..rules.cols() {
        let _ = write!(out, " {col:>width$}");
    }
    out.push('\n');
    for row in 0..rules.rows() {
        let _ = write!(out, "{row:>row_width$}");
        for col in 0..rules.cols() {
            let label = &cells[(row * rules.cols() + col) as usize];
            let shown = if label.is_empty() { "." } else { label };
            let _ = write!(out, " {shown:>width$}");
        }
        out.push('\n');
    }
    out
}

/// Every move's value where the prover gives the values ([`exact::Valuer`]: 7×7
/// k=5 while the solver's full analysis is slow): wins and losses without
/// their distance, draws with theirs (the board fills).
#[derive(Clone, Debug)]
pub struct ValuesReport {
    /// The position solved.
    pub game: Game,
    /// Its value and its moves'.
    pub values: Values,
    /// How long it took.
    pub time: Duration,
}

fn valued_label(valued: Valued) -> String {
    match (valued.value, valued.plies) {
        (Value::Draw, _) => "D".to_owned(),
        (Value::Win, plies) => format!("W{}", plies.map_or(String::new(), |p| p.to_string())),
        (Value::Loss, plies) => format!("L{}", plies.map_or(String::new(), |p| p.to_string())),
    }
}

impl ValuesReport {
    /// The best moves: those valued as the first (the moves are best
    /// first).
    fn best(&self) -> Vec<Cell> {
        let moves = &self.values.moves;
        moves
            .iter()
            .take_while(|(_, valued)| Some(valued) == moves.first().map(|(_, v)| v))
            .map(|&(cell, _)| cell)
            .collect()
    }
}

impl Answer for ValuesReport {
    /// As [`Report`]'s table, with W and L alone where the distance is not
    /// known.
    fn table(&self) -> String {
        let game = &self.game;
        let labels = self
            .values
            .moves
            .iter()
            .map(|&(cell, valued)| (cell, valued_label(valued)));
        let mut out = board_table(game, labels);
        let value = self.values.value;
        let _ = match value.plies {
            Some(plies) if !game.is_over() => writeln!(
                out,
                "{} in {plies} {}",
                headline(game, value.value),
                if plies == 1 { "ply" } else { "plies" }
            ),
            _ => writeln!(out, "{}", headline(game, value.value)),
        };
        if !game.is_over() {
            let best: Vec<String> = self.best().iter().map(ToString::to_string).collect();
            let _ = writeln!(out, "best: {}", best.join(" "));
            let _ = writeln!(
                out,
                "cells: W = win, L = loss, D = draw for {}, in plies to the end where known",
                game.to_move()
            );
        }
        out.push_str(&cost(self.values.nodes, self.time));
        out
    }

    /// As [`Report`]'s JSON, with `"plies"` null where the distance is not
    /// known.
    fn json(&self) -> String {
        #[derive(Serialize)]
        struct Move {
            row: u32,
            col: u32,
            value: Value,
            plies: Option<u32>,
        }
        #[derive(Serialize)]
        struct Json {
            #[serde(flatten)]
            head: Head,
            plies: Option<u32>,
            moves: Vec<Move>,
            best: Vec<Cell>,
            nodes: u64,
            time_ms: f64,
        }
        let value = self.values.value;
        to_json(&Json {
            head: Head::of(&self.game, value.value),
            plies: value.plies,
            moves: self
                .values
                .moves
                .iter()
                .map(|&(cell, valued)| Move {
                    row: cell.row,
                    col: cell.col,
                    value: valued.value,
                    plies: valued.plies,
                })
                .collect(),
            best: self.best(),
            nodes: self.values.nodes,
            time_ms: millis(self.time),
        })
    }
}

impl Answer for Report {
    /// The board with each empty cell's value for the player to move, then
    /// the position's value, the best moves and the search's cost.
    fn table(&self) -> String {
        let game = &self.game;
        let labels = self
            .analysis
            .moves
            .iter()
            .map(|&(cell, eval)| (cell, cell_label(eval)));
        let mut out = board_table(game, labels);
        let mover = game.to_move();
        let eval = self.analysis.eval;
        if game.is_over() {
            let _ = writeln!(out, "{}", headline(game, eval.value));
        } else {
            let _ = writeln!(
                out,
                "{} in {} {}",
                headline(game, eval.value),
                eval.plies,
                if eval.plies == 1 { "ply" } else { "plies" }
            );
            let best: Vec<String> = self.analysis.best_moves().map(|c| c.to_string()).collect();
            let _ = writeln!(out, "best: {}", best.join(" "));
            let _ = writeln!(
                out,
                "cells: W = win, L = loss, D = draw for {mover}, in plies to the end"
            );
        }
        out.push_str(&cost(self.analysis.nodes, self.time));
        out
    }

    /// `{"position", "size", "k", "to_move", "value", "plies", "moves":
    /// [{"row", "col", "value", "plies"}], "best", "nodes", "time_ms"}`,
    /// values for the player to move.
    fn json(&self) -> String {
        /// One move and its value, for the player making it.
        #[derive(Serialize)]
        struct Move {
            row: u32,
            col: u32,
            value: Value,
            plies: u32,
        }
        #[derive(Serialize)]
        struct Json {
            #[serde(flatten)]
            head: Head,
            plies: u32,
            moves: Vec<Move>,
            best: Vec<Cell>,
            nodes: u64,
            time_ms: f64,
        }
        let game = &self.game;
        let eval = self.analysis.eval;
        to_json(&Json {
            head: Head::of(game, eval.value),
            plies: eval.plies,
            moves: self
                .analysis
                .moves
                .iter()
                .map(|&(cell, eval)| Move {
                    row: cell.row,
                    col: cell.col,
                    value: eval.value,
                    plies: eval.plies,
                })
                .collect(),
            best: self.analysis.best_moves().collect(),
            nodes: self.analysis.nodes,
            time_ms: millis(self.time),
        })
    }
}

/// Why a position given in notation cannot be solved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadPosition {
    /// The text is not a position.
    #[error("bad position {text:?}: {error}")]
    Syntax {
        /// The text given.
        text: String,
        /// What is wrong with it.
        error: oxo_core::SyntaxError,
    },
    /// The marks cannot arise in a game (too many of one player, play
    /// going on after a win, a k too long).
    #[error("impossible position {text:?}: {error}")]
    Impossible {
        /// The text given.
        text: String,
        /// Why not.
        error: oxo_core::PositionError,
    },
}

/// A position in notation, with k from `k` or the board's default
/// ([`oxo_core::BoardSize::default_k`]: its shorter side, at most 5).
///
/// # Errors
/// The text is not a position, or not one a game can reach.
pub fn parse_position(text: &str, k: Option<u32>) -> Result<Game, BadPosition> {
    let setup: oxo_core::Setup = text.parse().map_err(|error| BadPosition::Syntax {
        text: text.to_owned(),
        error,
    })?;
    let k = k.unwrap_or(setup.size().default_k());
    Game::from_setup(&setup, k).map_err(|error| BadPosition::Impossible {
        text: text.to_owned(),
        error,
    })
}

/// Every position of a board solved (`oxo solve --all`), ready to print.
#[derive(Debug)]
pub struct CensusReport<'a> {
    /// The solution.
    pub strong: &'a StrongSolution,
    /// How long solving took.
    pub time: Duration,
}

impl CensusReport<'_> {
    fn empty_board(&self) -> Eval {
        self.strong
            .get(&Game::new(self.strong.rules()))
            .expect("the empty board is always reachable")
    }

    /// The readable form: the census of positions and the empty board's value.
    #[must_use]
    pub fn table(&self) -> String {
        let rules = self.strong.rules();
        let census = self.strong.census();
        let empty = self.empty_board();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{rules}: every reachable position solved in {:.1} ms",
            self.time.as_secs_f64() * 1e3
        );
        let _ = writeln!(out, "  reachable positions  {:>12}", census.positions);
        let _ = writeln!(
            out,
            "  finished games       {:>12}  (X wins {}, O wins {}, full-board draws {})",
            census.terminal, census.x_wins, census.o_wins, census.draws
        );
        let _ = writeln!(out, "  stored (by symmetry) {:>12}", self.strong.stored());
        let _ = writeln!(
            out,
            "  empty board: {} for X in {} {}",
            empty.value,
            empty.plies,
            if empty.plies == 1 { "ply" } else { "plies" }
        );
        out
    }

    /// One JSON object (no newline).
    #[must_use]
    pub fn json(&self) -> String {
        #[derive(Serialize)]
        struct Json {
            size: BoardSize,
            k: u32,
            positions: u64,
            terminal: u64,
            x_wins: u64,
            o_wins: u64,
            draws: u64,
            classes: usize,
            value: Value,
            plies: u32,
            time_ms: f64,
        }
        let rules = self.strong.rules();
        let census = self.strong.census();
        let empty = self.empty_board();
        to_json(&Json {
            size: rules.size(),
            k: rules.k(),
            positions: census.positions,
            terminal: census.terminal,
            x_wins: census.x_wins,
            o_wins: census.o_wins,
            draws: census.draws,
            classes: self.strong.stored(),
            value: empty.value,
            plies: empty.plies,
            time_ms: (self.time.as_secs_f64() * 1e4).round() / 10.0,
        })
    }
}

/// `value` as JSON: every JSON oxo writes goes through serde.
#[must_use]
pub fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("oxo's JSON types always serialise")
}

/// A duration in milliseconds, to the microsecond.
#[must_use]
pub fn millis(time: Duration) -> f64 {
    (time.as_secs_f64() * 1e6).round() / 1e3
}

/// How `solve_lines` went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchSummary {
    /// Positions answered.
    pub solved: u64,
    /// Lines that were not positions the solver could answer.
    pub failed: u64,
}

/// Answer one position per line of `input` (blank lines skipped; lines
/// over [`MAX_LINE`] bytes are errors, read in bounded memory), each
/// read with `parse`, writing a table or a JSON line per position. A line
/// that fails gets a message on `errors` (and, in JSON, an
/// `{"line", "error"}` object in its place) and the batch goes on.
///
/// # Errors
/// Reading or writing failed.
pub fn solve_lines<A: Answer>(
    mut input: impl BufRead,
    mut out: impl Write,
    errors: &mut dyn Write,
    json: bool,
    mut answer: impl FnMut(&str) -> Result<A, String>,
) -> io::Result<BatchSummary> {
    let mut summary = BatchSummary::default();
    let mut line = Vec::with_capacity(256);
    for number in 0.. {
        let read = read_line_bounded(&mut input, &mut line, MAX_LINE)?;
        let result = match read {
            LineRead::End => break,
            LineRead::TooLong => Err(format!(
                "the line is longer than {MAX_LINE} bytes, which no position is"
            )),
            // A byte-order mark before the first line (a file saved by
            // a Windows editor) is no part of it.
            LineRead::Line => match std::str::from_utf8(&line).map(|text| {
                text.strip_prefix('\u{feff}')
                    .filter(|_| number == 0)
                    .unwrap_or(text)
            }) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => answer(text.trim()),
                Err(_) => Err("the line is not UTF-8 text".to_owned()),
            },
        };
        match result {
            Ok(report) => {
                summary.solved += 1;
                if json {
                    writeln!(out, "{}", report.json())?;
                } else {
                    writeln!(out, "{}", report.table())?;
                }
            }
            Err(message) => {
                summary.failed += 1;
                writeln!(errors, "oxo solve: line {}: {message}", number + 1)?;
                if json {
                    #[derive(Serialize)]
                    struct Failed<'a> {
                        line: usize,
                        error: &'a str,
                    }
                    let failed = Failed {
                        line: number + 1,
                        error: &message,
                    };
                    writeln!(out, "{}", to_json(&failed))?;
                }
            }
        }
        out.flush()?;
        // Its answer is out before the rest of a long line is read.
        if read == LineRead::TooLong {
            skip_line(&mut input)?;
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxo_core::Rules;
    use std::collections::HashSet;

    /// A 3×3 analyst, for every move's value or (`value_only`) the value.
    fn analyst(value_only: bool) -> Analyst {
        Analyst::new(Rules::TIC_TAC_TOE, 1 << 16, None, value_only).unwrap()
    }

    fn report(notation: &str) -> Box<dyn Answer> {
        let game = Game::from_notation(notation, 3).unwrap();
        answer(&mut analyst(false), game).unwrap()
    }

    #[test]
    fn table_shows_each_cell() {
        let text = report("XX./OO./...").table();
        assert!(
            text.starts_with("position XX./OO./...  (3x3 k=3)\n"),
            "{text}"
        );
        assert!(text.contains("0  X  X W1\n"), "{text}");
        assert!(
            text.contains("X to move: win in 1 ply\nbest: (0, 2)\n"),
            "{text}"
        );
    }

    #[test]
    fn json_has_the_documented_fields() {
        let json = report("XX./OO./...").json();
        assert!(json.starts_with(
            "{\"position\":\"XX./OO./...\",\"size\":\"3x3\",\"k\":3,\"to_move\":\"x\",\"value\":\"win\",\"plies\":1,\"moves\":[{\"row\":0,\"col\":2,\"value\":\"win\",\"plies\":1},"
        ), "{json}");
        assert!(json.contains("\"best\":[[0,2]]"), "{json}");
        let over = report("XXX/OO./...").json();
        assert!(
            over.contains("\"to_move\":null,\"value\":\"loss\",\"plies\":0,\"moves\":[]"),
            "{over}"
        );
    }

    #[test]
    fn the_value_alone_is_the_full_analysis_value_on_every_3x3_position() {
        fn walk(game: &Game, full: &mut Analyst, quick: &mut Analyst, seen: &mut HashSet<String>) {
            if !seen.insert(game.to_string()) {
                return;
            }
            let (exact::Answer::Value { value, .. }, exact::Answer::Analysis(analysis)) =
                (quick.answer(game).unwrap(), full.answer(game).unwrap())
            else {
                panic!("{game}: the value and the analysis were asked for");
            };
            assert_eq!(value, analysis.eval.value, "{game}");
            for cell in game.legal_moves() {
                let mut next = game.clone();
                next.play(cell).unwrap();
                walk(&next, full, quick, seen);
            }
        }
        let mut full = analyst(false);
        let mut quick = analyst(true);
        let mut seen = HashSet::new();
        walk(
            &Game::new(Rules::TIC_TAC_TOE),
            &mut full,
            &mut quick,
            &mut seen,
        );
        assert_eq!(
            seen.len(),
            5478,
            "every position reachable from the empty board"
        );
    }

    #[test]
    fn the_value_alone_prints_the_position_its_value_and_the_cost() {
        let mut quick = analyst(true);
        let game = Game::from_notation("XX./OO./...", 3).unwrap();
        let report = answer(&mut quick, game).unwrap();
        let text = report.table();
        assert!(
            text.starts_with("position XX./OO./...  (3x3 k=3)\nX to move: win\n"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 3, "{text}");
        let json = report.json();
        assert!(
            json.starts_with("{\"position\":\"XX./OO./...\",\"size\":\"3x3\",\"k\":3,\"to_move\":\"x\",\"value\":\"win\",\"nodes\":"),
            "{json}"
        );
        assert!(!json.contains("plies"), "{json}");
        let over = answer(&mut quick, Game::from_notation("XXX/OO./...", 3).unwrap()).unwrap();
        assert!(
            over.table().contains("\ngame over: X has won\n"),
            "{}",
            over.table()
        );
    }

    /// A JSON batch of 3×3 positions: the summary, stdout and stderr.
    fn batch(input: &[u8]) -> (BatchSummary, String, String) {
        let mut full = analyst(false);
        let mut out = Vec::new();
        let mut errors = Vec::new();
        let summary = solve_lines(input, &mut out, &mut errors, true, |text| {
            let game = Game::from_notation(text, 3).map_err(|e| e.to_string())?;
            answer(&mut full, game).map_err(|e| e.to_string())
        })
        .unwrap();
        (
            summary,
            String::from_utf8(out).unwrap(),
            String::from_utf8(errors).unwrap(),
        )
    }

    #[test]
    fn batches_go_on_after_a_bad_line() {
        let (summary, out, errors) = batch(b"X../.../...\n\nnot a board\n.../.X./...\n");
        assert_eq!(
            summary,
            BatchSummary {
                solved: 2,
                failed: 1
            }
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[1].starts_with("{\"line\":3,\"error\":\"bad position: unexpected 'n'"),
            "{}",
            lines[1]
        );
        assert!(errors.starts_with("oxo solve: line 3: "));
    }

    #[test]
    fn an_endless_line_is_one_bad_line() {
        let input = format!("{}\n.../.../...\n", "X".repeat(1 << 20));
        let (summary, _, errors) = batch(input.as_bytes());
        assert_eq!(
            summary,
            BatchSummary {
                solved: 1,
                failed: 1
            }
        );
        assert_eq!(
            errors,
            "oxo solve: line 1: the line is longer than 4096 bytes, which no position is\n"
        );
    }

    #[test]
    fn a_line_that_is_not_text_is_one_bad_line() {
        let (summary, out, _) = batch(b"\xff\n.../.../...\r\n");
        assert_eq!(
            summary,
            BatchSummary {
                solved: 1,
                failed: 1
            }
        );
        assert!(
            out.starts_with("{\"line\":1,\"error\":\"the line is not UTF-8 text\"}\n"),
            "{out}"
        );
    }
}
