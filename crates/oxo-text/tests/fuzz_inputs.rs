//! Fuzz targets for the two text inputs, run by `cargo test` for a bounded
//! number of cases: the command stream (`oxo stream`) and the moves file
//! (`oxo referee`), each through the library call the binary makes
//! ([`stream::run`], [`referee::referee`]).
//!
//! Inputs are random bytes, and valid inputs (generated, and the golden
//! files the binary's tests use, under `crates/oxo-cli/tests/data/`) with
//! bytes inserted, deleted or replaced, numbers of any size and lines past
//! the length bound. Neither reader
//! ever panics, and each answers the same input the same way. Beyond
//! that, each target checks what its contract promises:
//!
//! * stream: the answer does not depend on how the input is cut into
//!   reads; every output line is one of the contract's five and together
//!   they tell a game that could happen; a valid script answers as a game
//!   played through `oxo-core` does, whatever follows its N-th line; a
//!   script that goes bad keeps the answers to its good lines; a line is
//!   read exactly when it fits in [`MAX_LINE`] bytes.
//! * referee: any transcript it gives is a game `oxo-core` agrees with,
//!   and a valid complete game, with refused moves, blank lines and any
//!   title and trailing bytes, gets the verdict of that game.

use std::io::BufReader;

use oxo_core::{Cell, Game, MoveResult, Player, Rules};
use oxo_text::input::MAX_LINE;
use oxo_text::referee::{self, Entry, Illegal, Options, Transcript};
use oxo_text::stream;
use proptest::prelude::*;
use proptest::sample::Index;

// ---------------------------------------------------------------------------
// Shared: edits of valid inputs
// ---------------------------------------------------------------------------

/// One byte-level edit.
#[derive(Clone, Debug)]
enum Edit {
    Insert(Index, u8),
    Delete(Index),
    Replace(Index, u8),
    /// A run of one byte: a long line, or many empty ones.
    InsertRun(Index, u8, usize),
}

/// Bytes that matter to both readers, and any byte.
fn edit_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => prop::sample::select(b"\n\r \t-+09XOxo5move\xff\xef\xbb\xbf".to_vec()),
        1 => any::<u8>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<Index>(), edit_byte()).prop_map(|(i, b)| Edit::Insert(i, b)),
        3 => any::<Index>().prop_map(Edit::Delete),
        3 => (any::<Index>(), edit_byte()).prop_map(|(i, b)| Edit::Replace(i, b)),
        1 => (any::<Index>(), prop::sample::select(b" 9\n".to_vec()), 1..MAX_LINE + 200)
            .prop_map(|(i, b, n)| Edit::InsertRun(i, b, n)),
    ]
}

fn apply(input: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = input.to_vec();
    for edit in edits {
        match *edit {
            Edit::Insert(at, b) => bytes.insert(at.index(bytes.len() + 1), b),
            Edit::Delete(at) if !bytes.is_empty() => {
                bytes.remove(at.index(bytes.len()));
            }
            Edit::Replace(at, b) if !bytes.is_empty() => {
                let at = at.index(bytes.len());
                bytes[at] = b;
            }
            Edit::InsertRun(at, b, n) => {
                let at = at.index(bytes.len() + 1);
                bytes.splice(at..at, std::iter::repeat_n(b, n));
            }
            Edit::Delete(_) | Edit::Replace(..) => {}
        }
    }
    bytes
}

// ---------------------------------------------------------------------------
// The command stream
// ---------------------------------------------------------------------------

/// The boards the stream is fuzzed on: the contract's own and a few others.
fn stream_rules() -> impl Strategy<Value = Rules> {
    prop::sample::select(vec![(3, 3, 3), (3, 3, 3), (1, 1, 1), (4, 4, 3), (2, 5, 2)])
        .prop_map(|(rows, cols, k)| Rules::new(rows, cols, k).expect("valid"))
}

/// What `oxo stream` answers: its output, and its error as the user sees it.
type Answer = (Vec<u8>, Result<(), String>);

/// Replay `input`, read through a buffer of `capacity` bytes (the reader
/// as given when `None`).
fn replay(rules: Rules, input: &[u8], capacity: Option<usize>) -> Answer {
    let mut out = Vec::new();
    let result = match capacity {
        None => stream::run(rules, input, &mut out),
        Some(capacity) => stream::run(rules, BufReader::with_capacity(capacity, input), &mut out),
    };
    (out, result.map_err(|e| e.to_string()))
}

/// Everything the stream promises about any input; the answer.
fn check_stream(rules: Rules, input: &[u8]) -> Result<Answer, TestCaseError> {
    let answer = replay(rules, input, None);
    prop_assert_eq!(&replay(rules, input, None), &answer, "not deterministic");
    for capacity in [1, 3, 64, 8 * 1024] {
        prop_assert_eq!(
            &replay(rules, input, Some(capacity)),
            &answer,
            "read {} bytes at a time",
            capacity
        );
    }
    let answers = check_stream_output(rules, &answer.0)?;
    // One answer per instruction, and an instruction is a line after the
    // count.
    let lines = input.split(|&b| b == b'\n').count();
    prop_assert!(answers < lines, "{} answers to {} lines", answers, lines);
    Ok(answer)
}

/// The output tells a game that could happen: each line is one of the
/// contract's five, placements are in turn on empty cells of the board, a
/// win or draw is what some empty cell gives, and after it every line is
/// "Game already over". The number of lines.
fn check_stream_output(rules: Rules, out: &[u8]) -> Result<usize, TestCaseError> {
    let fail = |line: &str| TestCaseError::fail(format!("unexpected line {line:?}"));
    let text = std::str::from_utf8(out).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(out.is_empty() || text.ends_with('\n'), "{:?}", text);
    let mut game = Game::new(rules);
    let mut count = 0;
    for line in text.lines() {
        count += 1;
        let mover = game.to_move();
        if game.is_over() {
            prop_assert_eq!(line, "Game already over");
        } else if line == "Invalid move" {
        } else if let Some(at) = line.strip_prefix(&format!("{mover} placed at (")) {
            let (row, col) = at
                .strip_suffix(')')
                .and_then(|at| at.split_once(", "))
                .ok_or_else(|| fail(line))?;
            let row = row.parse().map_err(|_| fail(line))?;
            let col = col.parse().map_err(|_| fail(line))?;
            prop_assert_eq!(game.play_at(row, col), Ok(MoveResult::Placed), "{}", line);
            prop_assert_eq!(format!("{mover} placed at ({row}, {col})"), line);
        } else {
            // The move that ended the game is not shown; some empty cell
            // must end it this way (which one does not matter later).
            let ending = game.empty_cells().find(|&cell| {
                let mut after = game.clone();
                match after.play(cell) {
                    Ok(MoveResult::Won { winner, .. }) => line == format!("{winner} wins"),
                    Ok(MoveResult::Draw) => line == "Draw",
                    _ => false,
                }
            });
            let cell = ending.ok_or_else(|| fail(line))?;
            game.play(cell).expect("an empty cell");
        }
    }
    Ok(count)
}

/// An integer as a script may spell it, and the value it stands for
/// (saturated to `i64`, as the contract reads it).
fn number() -> impl Strategy<Value = (String, i64)> {
    prop_oneof![
        6 => (-1i64..=5).prop_map(|n| (n.to_string(), n)),
        1 => (0i64..=5, 1usize..4).prop_map(|(n, zeros)| (format!("+{}{n}", "0".repeat(zeros)), n)),
        1 => Just(("-0".to_owned(), 0)),
        1 => any::<i64>().prop_map(|n| (n.to_string(), n)),
        1 => (any::<bool>(), 19usize..60).prop_map(|(negative, len)| {
            let digits = "9".repeat(len);
            if negative {
                (format!("-{digits}"), i64::MIN)
            } else {
                (digits, i64::MAX)
            }
        }),
    ]
}

/// Blanks between tokens.
fn gap() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![" ", " ", "\t", "  ", " \t ", "\x0c"])
}

/// A `move R C` line with its newline, and the coordinates it names.
fn move_line() -> impl Strategy<Value = (String, (i64, i64))> {
    (
        prop::sample::select(vec!["", "", " ", "\t"]),
        gap(),
        number(),
        gap(),
        number(),
        prop::sample::select(vec!["", "", " ", "\r", " \t\r"]),
    )
        .prop_map(|(lead, gap1, (row, r), gap2, (col, c), trail)| {
            (format!("{lead}move{gap1}{row}{gap2}{col}{trail}\n"), (r, c))
        })
}

/// The count line, with its newline, for `n` instructions.
fn count_line(n: usize) -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["", "", " ", "\u{feff}"]),
        prop::sample::select(vec!["", "", "+", "00"]),
        prop::sample::select(vec!["", "", " ", "\r", "\t "]),
    )
        .prop_map(move |(lead, sign, trail)| format!("{lead}{sign}{n}{trail}\n"))
}

/// A valid script: its rules, count line and instruction lines.
#[derive(Clone, Debug)]
struct Script {
    rules: Rules,
    count: String,
    moves: Vec<(String, (i64, i64))>,
}

impl Script {
    fn text(&self) -> Vec<u8> {
        let mut text = self.count.clone().into_bytes();
        for (line, _) in &self.moves {
            text.extend_from_slice(line.as_bytes());
        }
        text
    }

    /// The contract's answers to the first `n` moves, worked out with
    /// `oxo-core` directly.
    fn answers(&self, n: usize) -> Vec<u8> {
        let mut game = Game::new(self.rules);
        let mut out = String::new();
        for &(_, (row, col)) in &self.moves[..n] {
            let mover = game.to_move();
            out.push_str(&match game.play_at(row, col) {
                Ok(MoveResult::Placed) => format!("{mover} placed at ({row}, {col})\n"),
                Ok(MoveResult::Won { winner, .. }) => format!("{winner} wins\n"),
                Ok(MoveResult::Draw) => "Draw\n".to_owned(),
                Err(oxo_core::MoveError::GameOver) => "Game already over\n".to_owned(),
                Err(_) => "Invalid move\n".to_owned(),
            });
        }
        out.into_bytes()
    }
}

fn script() -> impl Strategy<Value = Script> {
    (stream_rules(), prop::collection::vec(move_line(), 0..24)).prop_flat_map(|(rules, moves)| {
        count_line(moves.len()).prop_map(move |count| Script {
            rules,
            count,
            moves: moves.clone(),
        })
    })
}

/// The line number an error message names (`line N: ...`).
fn error_line(message: &str) -> Option<u64> {
    message
        .strip_prefix("line ")?
        .split(':')
        .next()?
        .parse()
        .ok()
}

/// The golden scripts, as seeds for edits.
const GOLDEN_SCRIPTS: [&[u8]; 3] = [
    include_bytes!("../../oxo-cli/tests/data/stream/draw.in"),
    include_bytes!("../../oxo-cli/tests/data/stream/invalid_then_diagonal.in"),
    include_bytes!("../../oxo-cli/tests/data/stream/row_win.in"),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn stream_random_bytes(
        rules in stream_rules(),
        input in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        let _answer = check_stream(rules, &input)?;
    }

    /// Random lines that look like a script: a count, then lines built
    /// from the pieces of instructions.
    #[test]
    fn stream_script_like_text(
        rules in stream_rules(),
        input in "[0-9]{0,3}\n((move|mov|MOVE| |\t|-|\\+|[0-9]{1,3}|x|\r){0,6}\n){0,12}",
    ) {
        let _answer = check_stream(rules, input.as_bytes())?;
    }

    /// A valid script answers as `oxo-core` plays it, and whatever follows
    /// its last instruction is not read.
    #[test]
    fn stream_valid_script_then_anything(
        script in script(),
        after in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let expected = (script.answers(script.moves.len()), Ok(()));
        let text = script.text();
        prop_assert_eq!(&check_stream(script.rules, &text)?, &expected);
        let mut longer = text.clone();
        longer.extend_from_slice(&after);
        prop_assert_eq!(&check_stream(script.rules, &longer)?, &expected);
    }

    /// A script that promises more instructions than it has good lines
    /// keeps the answers to the good ones; any error is after them.
    #[test]
    fn stream_valid_lines_then_garbage(
        script in script(),
        extra in 1usize..4,
        garbage in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut text = format!("{}\n", script.moves.len() + extra).into_bytes();
        for (line, _) in &script.moves {
            text.extend_from_slice(line.as_bytes());
        }
        text.extend_from_slice(&garbage);
        let (out, result) = check_stream(script.rules, &text)?;
        let good = script.answers(script.moves.len());
        prop_assert!(out.starts_with(&good), "{:?} lost answers of {:?}", out, good);
        if let Err(message) = result {
            let line = error_line(&message).ok_or_else(|| TestCaseError::fail(message.clone()))?;
            prop_assert!(line >= script.moves.len() as u64 + 2, "{}", message);
        }
    }

    /// Edits of valid scripts and of the golden ones: near misses, numbers
    /// grown huge, lines grown past the bound.
    #[test]
    fn stream_edited_scripts(
        script in script(),
        golden in prop::sample::select(GOLDEN_SCRIPTS.to_vec()),
        use_golden in any::<bool>(),
        edits in prop::collection::vec(edit(), 1..5),
    ) {
        let base = if use_golden { golden.to_vec() } else { script.text() };
        let rules = if use_golden { Rules::TIC_TAC_TOE } else { script.rules };
        let _answer = check_stream(rules, &apply(&base, &edits))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A line is read when it fits in MAX_LINE bytes, its newline
    /// included, and is an error naming its number otherwise; the answers
    /// before it stand.
    #[test]
    fn stream_line_bound(
        script in script(),
        over in -3i64..=3,
        terminated in any::<bool>(),
        zeros in any::<bool>(),
    ) {
        let (row, col) = (1, 1);
        let mut moves = script.moves.clone();
        let len = usize::try_from(MAX_LINE as i64 + over).expect("positive");
        let short = format!("move {row} {col}");
        let newline = usize::from(terminated);
        let fill = len - short.len() - newline;
        let mut line = if zeros {
            // Leading zeros: the number itself is long.
            format!("move {}{row} {col}", "0".repeat(fill))
        } else {
            format!("{short}{}", " ".repeat(fill))
        };
        if terminated {
            line.push('\n');
        }
        prop_assert_eq!(line.len(), len);
        moves.push((line, (row, col)));
        let script = Script { count: format!("{}\n", moves.len()), moves, ..script };
        let (out, result) = check_stream(script.rules, &script.text())?;
        let n = script.moves.len();
        if len <= MAX_LINE {
            prop_assert_eq!(result, Ok(()));
            prop_assert_eq!(out, script.answers(n));
        } else {
            prop_assert_eq!(
                result,
                Err(format!("line {}: longer than {MAX_LINE} bytes, which no instruction is", n + 1))
            );
            prop_assert_eq!(out, script.answers(n - 1));
        }
    }
}

// ---------------------------------------------------------------------------
// The referee's moves file
// ---------------------------------------------------------------------------

/// The referee's board.
const RULES: Rules = Rules::TIC_TAC_TOE;

fn options() -> Options {
    Options {
        programmer: "Fuzz".into(),
        project: "Moves files".into(),
    }
}

/// Everything the referee promises about any input; its verdict.
fn check_referee(input: &[u8]) -> Result<Result<Transcript, referee::RefereeError>, TestCaseError> {
    let verdict = referee::referee(input);
    prop_assert_eq!(&referee::referee(input), &verdict, "not deterministic");
    let report = referee::report(input, &options());
    match &verdict {
        Ok(transcript) => {
            prop_assert_eq!(
                report,
                Ok(format!("Programmer: Fuzz\nMoves files\n\n{transcript}"))
            );
            check_transcript(transcript)?;
        }
        Err(error) => {
            prop_assert_eq!(report.as_ref(), Err(error));
            let lines = input.split(|&b| b == b'\n').count();
            prop_assert!(error.line >= 1 && error.line <= lines + 1, "{}", error);
        }
    }
    Ok(verdict)
}

/// A transcript is a game `oxo-core` agrees with: the legal moves, played
/// from the first one's player, give each board shown and end the game
/// with the outcome given, at the last entry; each refusal has the first
/// fault the seed's order finds.
fn check_transcript(transcript: &Transcript) -> Result<(), TestCaseError> {
    prop_assert!(!transcript.players.is_empty());
    prop_assert_eq!(
        &transcript.players,
        &transcript
            .players
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
    let mut game: Option<Game> = None;
    let mut last_mover = None;
    let mut legal = 0;
    for (i, entry) in transcript.entries.iter().enumerate() {
        prop_assert!(
            game.as_ref().is_none_or(|g| !g.is_over()),
            "entry {} after the game ended",
            i
        );
        match entry {
            Entry::Move {
                number,
                player,
                square,
                board,
            } => {
                legal += 1;
                prop_assert_eq!(*number, legal);
                let cell = RULES
                    .cell_numbered(i64::try_from(*square).expect("small"))
                    .ok_or_else(|| TestCaseError::fail(format!("square {square}")))?;
                let game = game.get_or_insert_with(|| Game::starting_with(RULES, *player));
                prop_assert!(game.play_as(*player, cell).is_ok(), "{:?}", entry);
                prop_assert_eq!(&board[..], game.cells());
                last_mover = Some(*player);
            }
            Entry::Refused {
                label,
                square,
                reason,
            } => {
                let player = match label.as_str() {
                    "X" => Player::X,
                    "O" => Player::O,
                    _ => {
                        prop_assert_eq!(*reason, Illegal::Player);
                        continue;
                    }
                };
                let cell = square
                    .parse::<i64>()
                    .ok()
                    .and_then(|n| RULES.cell_numbered(n));
                let Some(cell) = cell else {
                    prop_assert_eq!(*reason, Illegal::Square);
                    continue;
                };
                if last_mover == Some(player) {
                    prop_assert_eq!(*reason, Illegal::DoubleMove);
                    continue;
                }
                let taken = game.as_ref().and_then(|g| g.get(cell)).is_some();
                prop_assert!(taken, "{:?} refused on an empty square", entry);
                prop_assert_eq!(*reason, Illegal::MarkedSquare);
            }
        }
    }
    let game = game.ok_or_else(|| TestCaseError::fail("no legal move"))?;
    prop_assert_eq!(Some(transcript.outcome), game.outcome());
    prop_assert!(
        matches!(transcript.entries.last(), Some(Entry::Move { .. })),
        "the game ends on a legal move"
    );
    Ok(())
}

/// A refused move to put in a file, and why the referee must refuse it.
#[derive(Clone, Debug)]
enum Refusal {
    /// A label that is not exactly `X` or `O`.
    Label(&'static str, (String, String)),
    /// A square that is not 1 to 9.
    Square(Player, (String, String)),
    /// The last mover again, on any square.
    Double(Index, &'static str),
    /// The player to move, on a marked square.
    Marked(Index),
}

/// A square as a file may spell it, and as the report echoes it.
fn square_text() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        3 => (1u32..=9).prop_map(|n| (n.to_string(), n.to_string())),
        1 => (1u32..=9, 1usize..3).prop_map(|(n, zeros)| (format!("+{}{n}", "0".repeat(zeros)), n.to_string())),
        2 => bad_square(),
    ]
}

/// A square off the board, spelled and echoed.
fn bad_square() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        prop::sample::select(vec![0i64, 10, -1, -5, 100, i64::MAX, i64::MIN])
            .prop_map(|n| (n.to_string(), n.to_string())),
        Just(("-0".to_owned(), "0".to_owned())),
        Just(("+010".to_owned(), "10".to_owned())),
        (20usize..60).prop_map(|len| ("7".repeat(len), "7".repeat(len))),
        (20usize..60).prop_map(|len| (
            format!("-000{}", "8".repeat(len)),
            format!("-{}", "8".repeat(len))
        )),
    ]
}

fn refusal() -> impl Strategy<Value = Refusal> {
    let player = prop::sample::select(vec![Player::X, Player::O]);
    prop_oneof![
        (
            prop::sample::select(vec!["x", "o", "Y", "0", "XO", "X:", "\u{ff38}", "é", "-"]),
            square_text()
        )
            .prop_map(|(label, square)| Refusal::Label(label, square)),
        (player, bad_square()).prop_map(|(p, square)| Refusal::Square(p, square)),
        (any::<Index>(), prop::sample::select(vec!["", "+", "0"]))
            .prop_map(|(i, spelling)| Refusal::Double(i, spelling)),
        any::<Index>().prop_map(Refusal::Marked),
    ]
}

/// How one move line is laid out.
#[derive(Clone, Debug)]
struct Layout {
    lead: &'static str,
    gap: &'static str,
    trail: &'static str,
    crlf: bool,
    /// Blank lines before it.
    blanks: Vec<&'static str>,
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        prop::sample::select(vec!["", "", " ", "\t"]),
        prop::sample::select(vec!["\t", "\t", " ", "  ", " \t", "\u{a0}"]),
        prop::sample::select(vec!["", "", " ", "\t"]),
        any::<bool>(),
        prop::collection::vec(
            prop::sample::select(vec!["", " ", "\t \t", "\u{3000}"]),
            0..2,
        ),
    )
        .prop_map(|(lead, gap, trail, crlf, blanks)| Layout {
            lead,
            gap,
            trail,
            crlf,
            blanks,
        })
}

/// A whole game as a moves file: who starts, a pick among the empty
/// squares for each move, refusals before each move, layouts, header
/// parts and what follows the last move.
#[derive(Clone, Debug)]
struct GameFile {
    first: Player,
    turns: Vec<(Index, Vec<Refusal>, Layout)>,
    bom: bool,
    title: Vec<u8>,
    players: String,
    third: &'static str,
    after: Vec<u8>,
}

fn game_file() -> impl Strategy<Value = GameFile> {
    let turn = (
        any::<Index>(),
        prop::collection::vec(refusal(), 0..3),
        layout(),
    );
    (
        prop::sample::select(vec![Player::X, Player::O]),
        prop::collection::vec(turn, 9),
        any::<bool>(),
        prop::collection::vec(any::<u8>().prop_filter("one line", |&b| b != b'\n'), 0..30),
        ("[ \ta-zA-Zé:]{0,12}", "[ \ta-zA-Zé:]{0,12}"),
        prop::sample::select(vec!["", " ", "\t", "\r"]),
        prop::collection::vec(any::<u8>(), 0..60),
    )
        .prop_map(
            |(first, turns, bom, title, (a, b), third, after)| GameFile {
                first,
                turns,
                bom,
                title,
                players: format!("{a}X:{b}"),
                third,
                after,
            },
        )
}

impl GameFile {
    /// The file's bytes, and the transcript the game played through
    /// `oxo-core` gives.
    fn build(&self) -> (Vec<u8>, Transcript) {
        let mut file = Vec::new();
        if self.bom {
            file.extend_from_slice(b"\xEF\xBB\xBF");
        }
        file.extend_from_slice(&self.title);
        file.push(b'\n');
        file.extend_from_slice(format!("{}\n{}\n", self.players, self.third).as_bytes());
        let mut game = Game::starting_with(RULES, self.first);
        let mut entries = Vec::new();
        let mut last_mover: Option<Player> = None;
        let line = |file: &mut Vec<u8>, layout: &Layout, label: &str, square: &str| {
            let end = if layout.crlf { "\r\n" } else { "\n" };
            for blank in &layout.blanks {
                file.extend_from_slice(format!("{blank}{end}").as_bytes());
            }
            let Layout {
                lead, gap, trail, ..
            } = layout;
            file.extend_from_slice(format!("{lead}{label}{gap}{square}{trail}{end}").as_bytes());
        };
        for (pick, refusals, layout) in &self.turns {
            if game.is_over() {
                break;
            }
            for refusal in refusals {
                let (label, written, echoed, reason) = match refusal {
                    Refusal::Label(label, (written, echoed)) => (
                        (*label).to_owned(),
                        written.clone(),
                        echoed.clone(),
                        Illegal::Player,
                    ),
                    Refusal::Square(player, (written, echoed)) => (
                        player.to_string(),
                        written.clone(),
                        echoed.clone(),
                        Illegal::Square,
                    ),
                    Refusal::Double(square, spelling) => {
                        let Some(mover) = last_mover else { continue };
                        let n = square.index(9) + 1;
                        (
                            mover.to_string(),
                            format!("{spelling}{n}"),
                            n.to_string(),
                            Illegal::DoubleMove,
                        )
                    }
                    Refusal::Marked(which) => {
                        let marked: Vec<Cell> =
                            RULES.cells().filter(|&c| game.get(c).is_some()).collect();
                        if marked.is_empty() {
                            continue;
                        }
                        let n = RULES.number_of(marked[which.index(marked.len())]);
                        (
                            game.to_move().to_string(),
                            n.to_string(),
                            n.to_string(),
                            Illegal::MarkedSquare,
                        )
                    }
                };
                line(&mut file, layout, &label, &written);
                entries.push(Entry::Refused {
                    label,
                    square: echoed,
                    reason,
                });
            }
            let empty: Vec<Cell> = game.empty_cells().collect();
            let cell = *pick.get(&empty);
            let mover = game.to_move();
            game.play(cell).expect("an empty square");
            let square = RULES.number_of(cell);
            line(&mut file, layout, &mover.to_string(), &square.to_string());
            last_mover = Some(mover);
            entries.push(Entry::Move {
                number: game.move_count(),
                player: mover,
                square,
                board: game.cells().to_vec(),
            });
        }
        file.extend_from_slice(&self.after);
        let transcript = Transcript {
            players: self
                .players
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            entries,
            outcome: game.outcome().expect("nine moves end any game"),
        };
        (file, transcript)
    }
}

/// The golden moves files, as seeds for edits.
const GOLDEN_MOVES: [&[u8]; 2] = [
    include_bytes!("../../oxo-cli/tests/data/referee/barnette.moves.txt"),
    include_bytes!("../../oxo-cli/tests/data/referee/illegal.moves.txt"),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn referee_random_bytes(input in prop::collection::vec(any::<u8>(), 0..300)) {
        let _verdict = check_referee(&input)?;
    }

    /// Random text with a header and lines made of move pieces.
    #[test]
    fn referee_move_like_text(
        input in "[^\n]{0,8}\n[XO: ab]{0,8}\n[ \t]{0,2}\n(([XOxoY ]|\t|\r|[0-9]{1,3}|-|\\+){0,5}\n){0,16}",
    ) {
        let _verdict = check_referee(input.as_bytes())?;
    }

    /// A valid game, with refused moves, blank lines, any title and
    /// anything after its end, gets the verdict of the game itself.
    #[test]
    fn referee_valid_games(file in game_file()) {
        let (input, expected) = file.build();
        prop_assert_eq!(check_referee(&input)?, Ok(expected));
    }

    /// Edits of valid games and of the golden files.
    #[test]
    fn referee_edited_files(
        file in game_file(),
        golden in prop::sample::select(GOLDEN_MOVES.to_vec()),
        use_golden in any::<bool>(),
        edits in prop::collection::vec(edit(), 1..5),
    ) {
        let base = if use_golden { golden.to_vec() } else { file.build().0 };
        let _verdict = check_referee(&apply(&base, &edits))?;
    }
}
